/*
 * trees.c: the trees' API.  A tree's JSON is checked by the daemon's
 * trees_check() (robot/daemon/trees.h) before the store sees it.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/jobs.h"
#include "robot/daemon/store/trees.h"
#include "robot/daemon/trees.h"
#include "web/trees.h"
#include "robot/core/banned.h"

void
trees_list(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	store_trees(w->d.store, NULL, web_on_json, req);
}

static void
trees_on_put(const char *text, const struct problem *p, struct http_req *req,
	     int status)
{
	if (p != NULL)
		web_reply_problem(req, p);
	else
		http_req_reply(req, status, "application/json", text,
			       strlen(text));
}

static void
trees_on_added(const char *text, const struct problem *p, void *arg)
{
	trees_on_put(text, p, arg, 201);
}

static void
trees_on_changed(const char *text, const struct problem *p, void *arg)
{
	trees_on_put(text, p, arg, 200);
}

/* The body as a tree, checked; NULL after answering 400. */
static json_t *
trees_body(struct http_req *req, const char *name, bool partial)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_error_t e;
	json_t *tree = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);
	struct problem *p;

	if (tree == NULL) {
		char *msg = xasprintf("the body is not JSON: %s (line %d)",
				      e.text, e.line);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return NULL;
	}
	if (name != NULL && json_is_object(tree)) {
		const char *given = rjson_get_str(tree, "name");

		if (given != NULL && strcmp(given, name) != 0) {
			http_req_reply_error(req, 400,
					     "a tree's name does not change: "
					     "remove it and add it anew",
					     NULL);
			json_decref(tree);
			return NULL;
		}
		json_object_set_new(tree, "name", json_string(name));
	}
	if ((p = trees_check(tree, partial)) != NULL) {
		web_reply_problem(req, p);
		problem_free(p);
		json_decref(tree);
		return NULL;
	}
	return tree;
}

static void
trees_put(struct web *w, struct http_req *req, const struct web_call *call,
	  bool replace)
{
	json_t *tree = trees_body(req, call->arg, replace);
	char *text;

	if (tree == NULL)
		return;
	log_info("%s %s tree %s", call->name, replace ? "changes" : "adds",
		 rjson_get_str(tree, "name"));
	text = rjson_dumps(tree, JSON_COMPACT);
	store_tree_put(w->d.store, text, replace,
		       replace ? trees_on_changed : trees_on_added, req);
	free(text);
	json_decref(tree);
}

void
trees_add(struct web *w, struct http_req *req, const struct web_call *call)
{
	trees_put(w, req, call, false);
}

void
trees_set(struct web *w, struct http_req *req, const struct web_call *call)
{
	trees_put(w, req, call, true);
}

void
trees_remove(struct web *w, struct http_req *req, const struct web_call *call)
{
	log_info("%s removes tree %s", call->name, call->arg);
	store_tree_remove(w->d.store, call->arg, web_on_json, req);
}

static void
trees_on_cancelled(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	char *body;

	if (p != NULL) {
		web_reply_problem(req, p);
		return;
	}
	body = xasprintf("{\"cancelled\": %s}", text ? text : "0");
	http_req_reply(req, 200, "application/json", body, strlen(body));
	free(body);
}

void
trees_cancel(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_t *j = json_loadb(body, len, 0, NULL);
	json_t *job = json_object_get(j, "job");
	json_t *sub = json_object_get(j, "submission");
	const char *series = rjson_get_str(j, "series");
	int given = (job != NULL) + (sub != NULL) + (series != NULL);

	if (!json_is_object(j) || given != 1 || json_object_size(j) != 1 ||
	    (job != NULL &&
	     (!json_is_integer(job) || json_integer_value(job) <= 0)) ||
	    (sub != NULL &&
	     (!json_is_integer(sub) || json_integer_value(sub) <= 0)) ||
	    (series != NULL && !name_ok(NAME_SERIES, series))) {
		http_req_reply_error(req, 400,
				     "the body is {\"job\": ID}, "
				     "{\"submission\": ID} or "
				     "{\"series\": KEY/TBOX_GROUP}",
				     NULL);
		json_decref(j);
		return;
	}
	if (series != NULL)
		log_info("%s cancels the queued runs of series %s", call->name,
			 series);
	else
		log_info("%s cancels the queued runs of %s %lld", call->name,
			 job ? "job" : "submission",
			 (long long)json_integer_value(job ? job : sub));
	store_cancel(w->d.store, job ? json_integer_value(job) : 0,
		     sub ? json_integer_value(sub) : 0, series, call->name,
		     strcmp(call->kind, "admin") == 0, trees_on_cancelled, req);
	json_decref(j);
}

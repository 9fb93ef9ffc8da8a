/*
 * web.c: the answers the handlers give, and their checks of query
 * arguments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/web.h"
#include "robot/core/banned.h"

void
web_reply_problem(struct http_req *req, const struct problem *p)
{
	http_req_reply_error(req, (int)p->kind, p->message,
			     json_incref(p->details));
}

void
web_reply(struct http_req *req, int status, json_t *answer,
	  const struct problem *p)
{
	if (p != NULL) {
		json_decref(answer);
		web_reply_problem(req, p);
	} else {
		http_req_reply_json(req, status, answer);
	}
}

/* An answer being written off the loop. */
struct written {
	struct http_req *req;
	int status;
	json_t *answer;
	char *text;
};

static void
written_work(void *arg)
{
	struct written *x = arg;

	x->text = rjson_dumps(x->answer, JSON_COMPACT);
	json_decref(x->answer);
	x->answer = NULL;
}

static void
written_done(void *arg)
{
	struct written *x = arg;

	http_req_reply(x->req, x->status, "application/json", x->text,
		       strlen(x->text));
	free(x->text);
	free(x);
}

void
web_reply_off_loop(struct web *w, struct http_req *req, int status,
		   json_t *answer, const struct problem *p)
{
	struct written *x;

	if (p != NULL || answer == NULL) {
		web_reply(req, status, answer, p);
		return;
	}
	x = xcalloc(1, sizeof *x);
	x->req = req;
	x->status = status;
	x->answer = answer;
	worker_run(w->writer, written_work, written_done, x);
}

bool
web_int_arg(struct http_req *req, const char *name, long lo, long hi, long *v)
{
	const char *s = http_req_arg(req, name, 0);
	char *end;
	long x;

	if (s == NULL)
		return true;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) {
		char *msg = xasprintf("%s wants an integer from %ld to %ld, "
				      "not '%s'",
				      name, lo, hi, s);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return false;
	}
	*v = x;
	return true;
}

bool
web_name_arg(struct http_req *req, const char *name, size_t nth,
	     enum name_kind kind, const char **out)
{
	const char *v = http_req_arg(req, name, nth), *why;
	char *q, *msg;

	*out = v;
	if (v == NULL || (why = name_check(kind, v, strlen(v))) == NULL)
		return true;
	q = str_printable(v, strlen(v), 40);
	msg = xasprintf("%s '%s' %s: it must be %s", name, q, why,
			name_kind_text(kind));
	http_req_reply_error(req, 400, msg, NULL);
	free(msg);
	free(q);
	*out = NULL;
	return false;
}

static void
web_on_status(const char *text, const struct problem *p, void *arg)
{
	struct web *w = arg;
	struct web_waiter *list = w->status_waiting, *fifo = NULL, *next;

	w->status_waiting = NULL;
	w->status_asked = false;
	for (; list != NULL; list = next) { /* oldest first */
		next = list->next;
		list->next = fifo;
		fifo = list;
	}
	for (; fifo != NULL; fifo = next) {
		next = fifo->next;
		fifo->cb(text, p, fifo->arg);
		free(fifo);
	}
}

void
web_status(struct web *w, store_text_cb cb, void *arg)
{
	struct web_waiter *n = xcalloc(1, sizeof *n);

	n->cb = cb;
	n->arg = arg;
	n->next = w->status_waiting;
	w->status_waiting = n;
	if (!w->status_asked) {
		w->status_asked = true;
		store_status(w->d.store, web_on_status, w);
	}
}

void
web_on_json(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;

	if (p != NULL)
		web_reply_problem(req, p);
	else if (text == NULL)
		http_req_reply_error(req, 404, "not found", NULL);
	else
		http_req_reply(req, 200, "application/json", text,
			       strlen(text));
}

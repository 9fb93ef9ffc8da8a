/*
 * subscriptions.c: subscriptions and the outbox over HTTP
 * (subscriptions.h).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "reporters/mailin.h"
#include "reporters/subscribe.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "web/html.h"
#include "web/subscriptions.h"
#include "robot/core/banned.h"

static void
reply_page(struct http_req *req, int status, const char *title,
	   const char *body)
{
	char *page = html_page(title, body);

	http_req_reply(req, status, "text/html; charset=utf-8", page,
		       strlen(page));
	free(page);
}

/* A token from ?t=: 64 hex digits, or NULL (after answering 404). */
static const char *
token_arg(struct http_req *req)
{
	const char *t = http_req_arg(req, "t", 0);

	if (t == NULL || strlen(t) != 64 ||
	    strspn(t, "0123456789abcdef") != 64) {
		reply_page(req, 404, "Not a valid link",
			   "<p>This link is not one robot made: check that it "
			   "was copied whole.</p>");
		return NULL;
	}
	return t;
}

struct asked {
	struct http_req *req;
	char *email;
	bool html; /* the subscribe form's: a page, not JSON */
};

/* The faults of a subscription asked for from the form, as a page. */
static void
reply_faults(struct http_req *req, const struct problem *p)
{
	struct buf b;
	json_t *f;
	size_t i;

	buf_init(&b);
	buf_adds(&b, "<ul>");
	json_array_foreach(p->details, i, f)
	{
		buf_adds(&b, "<li>");
		html_text(&b, json_string_value(f));
		buf_adds(&b, "</li>");
	}
	buf_adds(&b, "</ul><p><a href=\"/subscribe\">Back to "
		     "the form</a></p>");
	reply_page(req, 400, "Not subscribed", b.data);
	buf_release(&b);
}

static void
subscriptions_on_added(const char *text, const struct problem *p, void *arg)
{
	struct asked *a = arg;
	json_t *j;
	char *msg = xasprintf("a confirmation mail is on its way to %s: "
			      "follow its link to start the reports",
			      a->email);

	if (p != NULL && a->html && p->kind == PROBLEM_INVALID &&
	    json_array_size(p->details) > 0) {
		reply_faults(a->req, p);
	} else if (p != NULL && a->html) {
		struct buf b;

		buf_init(&b);
		buf_adds(&b, "<p>");
		html_text(&b, p->message);
		buf_adds(&b, "</p>");
		reply_page(a->req, (int)p->kind, "Not subscribed", b.data);
		buf_release(&b);
	} else if (p != NULL) {
		web_reply_problem(a->req, p);
	} else if (a->html) {
		struct buf b;

		buf_init(&b);
		buf_adds(&b, "<p>A"); /* a sentence on the page */
		html_text(&b, msg + 1);
		buf_adds(&b, ".</p>");
		reply_page(a->req, 202, "Almost subscribed", b.data);
		buf_release(&b);
	} else {
		j = text ? rjson_loads(text, NULL) : json_object();
		json_object_set_new(j, "message", json_string(msg));
		http_req_reply_json(a->req, 202, j);
	}
	free(msg);
	free(a->email);
	free(a);
}

void
subscriptions_ask(struct web *w, struct http_req *req, json_t *sub, bool html,
		  bool token)
{
	struct asked *a = xcalloc(1, sizeof *a);
	const char *email;
	char client[INET6_ADDRSTRLEN + 1];

	a->req = req;
	a->html = html;
	subscribe_ask(w->d.base, w->d.store, w->d.set,
		      reporters_link_url(w->d.reporters), sub,
		      token ? NULL : web_client(w, req, client, sizeof client),
		      subscriptions_on_added, a);
	/* After the check, which writes it in lowercase. */
	email = rjson_get_str(sub, "email");
	a->email = xstrdup(email ? email : "");
}

void
subscriptions_add(struct web *w, struct http_req *req,
		  const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_error_t e;
	json_t *sub = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);

	if (!web_from_here(w, req)) {
		http_req_reply_error(req, 403,
				     "a subscription is asked from robot's own "
				     "pages, or without a browser (robot "
				     "subscribe)",
				     NULL);
		json_decref(sub);
		return;
	}
	if (sub == NULL) {
		char *msg = xasprintf("the body is not JSON: %s (line %d)",
				      e.text, e.line);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return;
	}
	/* With a token (robot subscribe, an operator's script) it is not
	 * an anonymous client's: only the address's own limit holds. */
	subscriptions_ask(w, req, sub, false, call->kind != NULL);
	json_decref(sub);
}

void
subscriptions_list(struct web *w, struct http_req *req,
		   const struct web_call *call)
{
	(void)call;
	store_subscriptions(w->d.store, web_on_json, req);
}

struct linked {
	struct web *w;
	struct http_req *req;
};

static void
subscriptions_on_confirmed(const char *text, const struct problem *p, void *arg)
{
	struct linked *l = arg;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;
	struct buf b;

	if (p != NULL) {
		reply_page(l->req, 503, "Not now",
			   "<p>robot cannot reach its database: try the link "
			   "again in a minute.</p>");
	} else if (j == NULL) {
		reply_page(l->req, 404, "Not a valid link",
			   "<p>This confirmation link is older than a week, "
			   "or was never robot's: <a href=\"/subscribe\">"
			   "subscribe</a> again.</p>");
	} else if (json_is_true(json_object_get(j, "replaced"))) {
		buf_init(&b);
		buf_adds(&b, "<p>This subscription of <strong>");
		html_text(&b, rjson_get_str(j, "email"));
		buf_adds(&b, "</strong> was asked for again since, and a newer "
			     "confirmation mailed: follow the link in the "
			     "newest mail. This one confirms nothing.</p>");
		reply_page(l->req, 410, "Asked for again", b.data);
		buf_release(&b);
	} else if (json_is_true(json_object_get(j, "already")) &&
		   (json_is_true(json_object_get(j, "opted_out")) ||
		    strcmp(rjson_get_str(j, "state"), "unsubscribed") == 0)) {
		buf_init(&b);
		buf_adds(&b, "<p>This subscription of <strong>");
		html_text(&b, rjson_get_str(j, "email"));
		buf_adds(&b, "</strong> was confirmed already, and "
			     "unsubscribed since: robot mails it nothing of "
			     "it. <a href=\"/subscribe\">Subscribe</a> again "
			     "to have reports.</p>");
		reply_page(l->req, 200, "Unsubscribed already", b.data);
		buf_release(&b);
	} else {
		static const char *const filters[] = {
			"tree", "branch", "testcase", "metric", NULL};
		double min =
			json_number_value(json_object_get(j, "min_change"));

		bool already = json_is_true(json_object_get(j, "already"));

		buf_init(&b);
		if (already)
			buf_adds(&b, "<p>This subscription was confirmed "
				     "already; nothing changed.</p>\n");
		buf_adds(&b, "<p>Reports will be mailed to <strong>");
		html_text(&b, rjson_get_str(j, "email"));
		buf_adds(&b, "</strong>: ");
		buf_adds(&b, json_is_false(json_object_get(j, "regressions"))
				     ? "improvements"
			     : json_is_true(json_object_get(j, "improvements"))
				     ? "regressions and improvements"
				     : "regressions");
		/* (the filters, which its mail did not repeat) */
		for (size_t i = 0; filters[i] != NULL; i++)
			if (rjson_get_str(j, filters[i]) != NULL) {
				buf_addf(&b, ", %s <code>", filters[i]);
				html_text(&b, rjson_get_str(j, filters[i]));
				buf_adds(&b, "</code>");
			}
		if (min > 0)
			buf_addf(&b, ", of at least %g%%", min);
		buf_adds(&b,
			 ".</p>\n<p>Every mail has a link to stop "
			 "them; or <a href=\"/subscriptions/unsubscribe?t=");
		html_attr(&b, rjson_get_str(j, "token"));
		buf_adds(&b, "\">unsubscribe now</a>.</p>");
		reply_page(l->req, 200,
			   already ? "Subscribed already" : "Subscribed",
			   b.data);
		buf_release(&b);
		if (!already)
			log_info("subscription %lld of %s confirmed",
				 (long long)json_integer_value(
					 json_object_get(j, "id")),
				 rjson_get_str(j, "email"));
	}
	json_decref(j);
	free(l);
}

void
subscriptions_confirm(struct web *w, struct http_req *req,
		      const struct web_call *call)
{
	const char *t = token_arg(req);
	struct linked *l;

	(void)call;
	if (t == NULL)
		return;
	l = xcalloc(1, sizeof *l);
	l->w = w;
	l->req = req;
	subscribe_confirm(w->d.store, t, subscriptions_on_confirmed, l);
}

/* The unsubscribe link's page: the address it names, and a button that
 * unsubscribes (a link opened, or fetched by a mail scanner, changes
 * nothing); or that it is unsubscribed already. */
static void
subscriptions_on_look(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;
	const char *email = rjson_get_str(j, "email");
	struct buf b;

	if (p != NULL) {
		reply_page(req, 503, "Not now",
			   "<p>robot cannot reach its database: try the link "
			   "again in a minute.</p>");
	} else if (email == NULL) {
		reply_page(req, 404, "Not a valid link",
			   "<p>robot knows no such address.</p>");
	} else if (json_is_true(json_object_get(j, "opted_out"))) {
		buf_init(&b);
		buf_adds(&b, "<p><strong>");
		html_text(&b, email);
		buf_adds(&b, "</strong> is unsubscribed already: robot mails "
			     "it nothing. <a href=\"/subscribe\">Subscribe"
			     "</a> again to have reports.</p>");
		reply_page(req, 200, "Unsubscribed already", b.data);
		buf_release(&b);
	} else {
		buf_init(&b);
		buf_adds(&b, "<p>No more mail from robot to <strong>");
		html_text(&b, email);
		buf_adds(&b, "</strong>: no reports, no follow-ups.</p>\n"
			     "<form method=\"post\" "
			     "action=\"/subscriptions/unsubscribe?t=");
		html_attr(&b, http_req_arg(req, "t", 0));
		buf_adds(&b, "\">\n<input type=\"hidden\" "
			     "name=\"List-Unsubscribe\" value=\"One-Click\">\n"
			     "<button type=\"submit\">Unsubscribe</button>\n"
			     "</form>");
		reply_page(req, 200, "Unsubscribe", b.data);
		buf_release(&b);
	}
	json_decref(j);
}

void
subscriptions_unsubscribe_page(struct web *w, struct http_req *req,
			       const struct web_call *call)
{
	const char *t = token_arg(req);

	(void)call;
	if (t != NULL)
		store_unsubscribe_look(w->d.store, t, subscriptions_on_look,
				       req);
}

static void
subscriptions_on_unsubscribed(const char *text, const struct problem *p,
			      void *arg)
{
	struct linked *l = arg;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;
	struct buf b;

	if (p != NULL) {
		reply_page(l->req, 503, "Not now",
			   "<p>robot cannot reach its database: try again in "
			   "a minute.</p>");
	} else if (j == NULL) {
		reply_page(l->req, 404, "Not a valid link",
			   "<p>robot knows no such address.</p>");
	} else {
		buf_init(&b);
		buf_adds(&b, "<p>robot mails nothing more to <strong>");
		html_text(&b, rjson_get_str(j, "email"));
		buf_adds(&b, "</strong>.</p>");
		reply_page(l->req, 200, "Unsubscribed", b.data);
		buf_release(&b);
		log_info("%s unsubscribed", rjson_get_str(j, "email")
						    ? rjson_get_str(j, "email")
						    : "?");
	}
	json_decref(j);
	free(l);
}

void
subscriptions_unsubscribe(struct web *w, struct http_req *req,
			  const struct web_call *call)
{
	const char *t = token_arg(req);
	struct linked *l;

	(void)call;
	if (t == NULL)
		return;
	l = xcalloc(1, sizeof *l);
	l->w = w;
	l->req = req;
	subscribe_end(w->d.store, t, subscriptions_on_unsubscribed, l);
}

void
subscriptions_outbox(struct web *w, struct http_req *req,
		     const struct web_call *call)
{
	long limit = 50;

	(void)call;
	if (!web_int_arg(req, "limit", 1, 10000, &limit))
		return;
	store_outbox(w->d.store, (int)limit, web_on_json, req);
}

void
subscriptions_mail(struct web *w, struct http_req *req,
		   const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);

	(void)call;
	mailin_take(w->d.base, w->d.store, body, len,
		    w->d.set->box_false_alarms, web_on_json, req);
}

/*
 * subscriptions.c: subscriptions and the outbox over HTTP
 * (subscriptions.h).
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/report.h"
#include "reporters/crypto.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "web/html.h"
#include "web/subscriptions.h"
#include "robot/core/banned.h"

/* robotd's base URL for links: public_url, else the address it serves. */
static char *
base_url(struct web *w, struct http_req *req)
{
	const char *u = w->d.set->public_url, *host;

	if (u != NULL && u[0] != '\0')
		return xstrdup(u);
	host = http_req_header(req, "Host");
	return xasprintf("http://%s", host ? host : "127.0.0.1");
}

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

static void
subscriptions_on_added(const char *text, const struct problem *p, void *arg)
{
	struct asked *a = arg;
	json_t *j;
	char *msg = xasprintf("a confirmation mail is on its way to %s: "
			      "follow its link to start the reports",
			      a->email);

	if (p != NULL && a->html) {
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
		buf_adds(&b, "<p>");
		html_text(&b, msg);
		buf_adds(&b, ".</p>");
		reply_page(a->req, 202, "Almost subscribed", b.data);
		buf_release(&b);
	} else {
		j = text ? json_loads(text, 0, NULL) : json_object();
		json_object_set_new(j, "message", json_string(msg));
		http_req_reply_json(a->req, 202, j);
	}
	free(msg);
	free(a->email);
	free(a);
}

void
subscriptions_ask(struct web *w, struct http_req *req, json_t *sub, bool html)
{
	json_t *faults;
	struct report_config cfg = {NULL, w->d.set->mail_from, NULL, NULL};
	struct store_subscribe ss;
	struct asked *a;
	char *token, *hash, *url, *link, *subject, *message, *text;

	if ((faults = report_subscription_check(sub)) != NULL) {
		const char *why =
			json_array_size(faults) == 1
				? json_string_value(json_array_get(faults, 0))
				: "a subscription with faults";

		if (html) {
			struct buf b;
			json_t *f;
			size_t i;

			buf_init(&b);
			buf_adds(&b, "<ul>");
			json_array_foreach(faults, i, f)
			{
				buf_adds(&b, "<li>");
				html_text(&b, json_string_value(f));
				buf_adds(&b, "</li>");
			}
			buf_adds(&b, "</ul><p><a href=\"/subscribe\">Back to "
				     "the form</a></p>");
			reply_page(req, 400, "Not subscribed", b.data);
			buf_release(&b);
			json_decref(faults);
		} else {
			http_req_reply_error(req, 400, why, faults);
		}
		return;
	}
	token = crypto_token();
	hash = crypto_sha256(token);
	url = base_url(w, req);
	link = xasprintf("%s/subscriptions/confirm?t=%s", url, token);
	cfg.public_url = url;
	message = report_confirmation(&cfg, sub, link, &subject);
	text = rjson_dumps(sub, JSON_COMPACT);
	ss = (struct store_subscribe){text, hash, subject, message};
	a = xcalloc(1, sizeof *a);
	a->req = req;
	a->email = xstrdup(rjson_get_str(sub, "email"));
	a->html = html;
	log_info("subscription asked for %s", a->email);
	store_subscribe(w->d.store, &ss, subscriptions_on_added, a);
	free(token);
	free(hash);
	free(url);
	free(link);
	free(subject);
	free(message);
	free(text);
}

void
subscriptions_add(struct web *w, struct http_req *req,
		  const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_error_t e;
	json_t *sub = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);

	(void)call;
	if (sub == NULL) {
		char *msg = xasprintf("the body is not JSON: %s (line %d)",
				      e.text, e.line);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return;
	}
	subscriptions_ask(w, req, sub, false);
	json_decref(sub);
}

char *
subscriptions_base_url(struct web *w, struct http_req *req)
{
	return base_url(w, req);
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
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	struct buf b;
	char *url;

	if (p != NULL) {
		reply_page(l->req, 503, "Not now",
			   "<p>robot cannot reach its database: try the link "
			   "again in a minute.</p>");
	} else if (j == NULL) {
		reply_page(l->req, 404, "Not a valid link",
			   "<p>This confirmation link was used already, is "
			   "older than a week, or was never robot's.</p>");
	} else {
		url = base_url(l->w, l->req);
		buf_init(&b);
		buf_adds(&b, "<p>Reports will be mailed to <strong>");
		html_text(&b, rjson_get_str(j, "email"));
		buf_adds(&b, "</strong>.</p>\n<p>Every mail has a link to stop "
			     "them; or <a href=\"");
		html_attr(&b, url);
		buf_adds(&b, "/subscriptions/unsubscribe?t=");
		html_attr(&b, rjson_get_str(j, "token"));
		buf_adds(&b, "\">unsubscribe now</a>.</p>");
		reply_page(l->req, 200, "Subscribed", b.data);
		buf_release(&b);
		free(url);
		log_info(
			"subscription %lld of %s confirmed",
			(long long)json_integer_value(json_object_get(j, "id")),
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
	char *hash;

	(void)call;
	if (t == NULL)
		return;
	l = xcalloc(1, sizeof *l);
	l->w = w;
	l->req = req;
	hash = crypto_sha256(t);
	store_subscription_confirm(w->d.store, hash, subscriptions_on_confirmed,
				   l);
	free(hash);
}

void
subscriptions_unsubscribe_page(struct web *w, struct http_req *req,
			       const struct web_call *call)
{
	const char *t = token_arg(req);
	struct buf b;

	(void)w;
	(void)call;
	if (t == NULL)
		return;
	/* A link opened (or fetched by a mail scanner) changes nothing: the
	 * button posts. */
	buf_init(&b);
	buf_adds(&b, "<p>No more mail from robot to this address: no "
		     "reports, no follow-ups.</p>\n<form method=\"post\" "
		     "action=\"/subscriptions/unsubscribe?t=");
	html_attr(&b, t);
	buf_adds(&b, "\">\n<input type=\"hidden\" name=\"List-Unsubscribe\" "
		     "value=\"One-Click\">\n<button type=\"submit\">"
		     "Unsubscribe</button>\n</form>");
	reply_page(req, 200, "Unsubscribe", b.data);
	buf_release(&b);
}

static void
subscriptions_on_unsubscribed(const char *text, const struct problem *p,
			      void *arg)
{
	struct linked *l = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
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
	store_unsubscribe(w->d.store, t, subscriptions_on_unsubscribed, l);
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

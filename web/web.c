/*
 * web.c: the answers the handlers give, and their checks of query
 * arguments.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "robot/daemon/tokens.h"
#include "web/web.h"
#include "robot/core/banned.h"

void
web_reply_problem(struct http_req *req, const struct problem *p)
{
	http_req_reply_error(req, (int)p->kind, p->message,
			     json_incref(p->details));
}

bool
web_wants_page(struct http_req *req)
{
	const char *m = http_req_method(req), *path = http_req_path(req);

	return (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0) &&
	       strncmp(path, "/api/", 5) != 0 && strcmp(path, "/api") != 0 &&
	       strcmp(path, "/metrics") != 0;
}

void
web_reply_error(struct http_req *req, int status, const char *msg)
{
	struct buf b;
	char *page;

	if (!web_wants_page(req)) {
		http_req_reply_error(req, status, msg, NULL);
		return;
	}
	buf_init(&b);
	buf_adds(&b, "<p>");
	html_text(&b, msg);
	buf_adds(&b, "</p>\n<p><a href=\"/\">The home page</a></p>");
	page = html_page(status == 404   ? "Not found"
			 : status == 405 ? "Not allowed"
			 : status == 400 ? "Bad request"
					 : "Cannot show it",
			 b.data);
	http_req_reply(req, status, "text/html; charset=utf-8", page,
		       strlen(page));
	free(page);
	buf_release(&b);
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
web_heavy_begin(struct web *w, struct http_req *req)
{
	char *msg;

	if (w->heavy < w->d.set->compare_max_running) {
		w->heavy++;
		return true;
	}
	msg = xasprintf("%d large answers (histories, runs, pages of results) "
			"are being made (this robotd's compare_max_running): "
			"ask again in a few seconds",
			w->heavy);
	http_req_reply_error(req, 429, msg, NULL);
	free(msg);
	return false;
}

void
web_heavy_end(struct web *w)
{
	w->heavy--;
}

char *
web_int_check(struct http_req *req, const char *name, long lo, long hi, long *v)
{
	const char *s = http_req_arg(req, name, 0);
	char *end;
	long x;

	if (s == NULL || (*s == '\0' && web_wants_page(req)))
		return NULL;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) {
		char *q = str_printable(s, strlen(s), 40), *msg;

		msg = xasprintf("%s wants an integer from %ld to %ld, not '%s'",
				name, lo, hi, q);
		free(q);
		return msg;
	}
	*v = x;
	return NULL;
}

bool
web_int_arg(struct http_req *req, const char *name, long lo, long hi, long *v)
{
	char *msg = web_int_check(req, name, lo, hi, v);

	if (msg == NULL)
		return true;
	web_reply_error(req, 400, msg);
	free(msg);
	return false;
}

char *
web_name_check(struct http_req *req, const char *name, size_t nth,
	       enum name_kind kind, const char **out)
{
	const char *v = http_req_arg(req, name, nth), *why;
	char *q, *msg;

	/* a form's field left empty asks for nothing */
	if (v != NULL && *v == '\0' && web_wants_page(req))
		v = NULL;
	*out = v;
	if (v == NULL || (why = name_check(kind, v, strlen(v))) == NULL)
		return NULL;
	q = str_printable(v, strlen(v), 40);
	msg = xasprintf("%s '%s' %s: it must be %s", name, q, why,
			name_kind_text(kind));
	free(q);
	*out = NULL;
	return msg;
}

bool
web_name_arg(struct http_req *req, const char *name, size_t nth,
	     enum name_kind kind, const char **out)
{
	char *msg = web_name_check(req, name, nth, kind, out);

	if (msg == NULL)
		return true;
	web_reply_error(req, 400, msg);
	free(msg);
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

const char *
web_client(const struct web *w, const struct http_req *req, char *buf,
	   size_t len)
{
	const char *peer = http_req_client(req), *xff, *last;
	unsigned char bin[sizeof(struct in6_addr)];
	size_t n;

	if (!settings_proxy_is(w->d.set, peer) ||
	    (xff = http_req_header_last(req, "X-Forwarded-For")) == NULL)
		return peer;
	last = strrchr(xff, ',');
	last = last != NULL ? last + 1 : xff;
	last += strspn(last, " \t");
	n = strcspn(last, " \t");
	if (n == 0 || n >= len)
		return peer;
	memcpy(buf, last, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, bin) != 1 &&
	    inet_pton(AF_INET6, buf, bin) != 1)
		return peer;
	return buf;
}

struct web_revoke {
	struct web *w;
	struct http_req *req;
};

void *
web_revoking(struct web *w, struct http_req *req)
{
	struct web_revoke *r = xcalloc(1, sizeof *r);

	r->w = w;
	r->req = req;
	return r;
}

void
web_on_revoked(const char *text, const struct problem *p, void *arg)
{
	struct web_revoke *r = arg;

	if (p == NULL)
		tokens_forget(r->w->d.tokens);
	web_on_json(text, p, r->req);
	free(r);
}

char *
web_jobs_filter(struct http_req *req, struct store_jobs_filter *f,
		const char **field)
{
	static const char *const states[] = {"queued", "leased", "done",
					     "failed", NULL};
	const char *state = http_req_arg(req, "state", 0);
	long submission = 0, before = 0, limit = f->limit;
	char *why = NULL;
	bool ok;

	if (state != NULL && *state == '\0' && web_wants_page(req))
		state = NULL;
	ok = state == NULL;
	for (size_t i = 0; state != NULL && states[i] != NULL; i++)
		ok = ok || strcmp(state, states[i]) == 0;
	if (!ok) {
		*field = "state";
		return xstrdup("state is one of queued, leased, done, failed");
	}
	if ((why = web_name_check(req, *field = "series", 0, NAME_SERIES,
				  &f->series)) != NULL ||
	    (why = web_name_check(req, *field = "box", 0, NAME_LABEL,
				  &f->box)) != NULL ||
	    (why = web_name_check(req, *field = "commit", 0, NAME_COMMIT,
				  &f->commit)) != NULL ||
	    (why = web_int_check(req, *field = "limit", 1, 10000, &limit)) !=
		    NULL ||
	    (why = web_int_check(req, *field = "submission", 1, LONG_MAX,
				 &submission)) != NULL ||
	    (why = web_int_check(req, *field = "before", 1, LONG_MAX,
				 &before)) != NULL)
		return why;
	if (f->commit != NULL &&
	    (strlen(f->commit) < 4 || strlen(f->commit) > 40 ||
	     strspn(f->commit, "0123456789abcdef") != strlen(f->commit))) {
		*field = "commit";
		return xstrdup("commit is a SHA, or its first 4 to 40 hex "
			       "digits");
	}
	*field = NULL;
	f->state = state;
	f->submission = submission;
	f->before = before;
	f->limit = limit;
	return NULL;
}

bool
web_from_here(struct web *w, struct http_req *req)
{
	const char *origin = http_req_header(req, "Origin");
	const char *site = http_req_header(req, "Sec-Fetch-Site");
	const char *u = w->d.set->public_url, *host;
	char *mine;
	bool ok;

	if (origin != NULL && strcmp(origin, "null") == 0)
		return site != NULL && strcmp(site, "same-origin") == 0;
	if (origin == NULL)
		return site == NULL || strcmp(site, "cross-site") != 0;
	/* The page the browser posts from is robotd's as the browser
	 * reached it. */
	host = http_req_header(req, "Host");
	mine = u != NULL && u[0] != '\0'
		       ? xstrdup(u)
		       : xasprintf("http://%s", host ? host : "127.0.0.1");
	ok = strcmp(origin, mine) == 0;
	free(mine);
	if (!ok)
		log_warnx("a form posted from %.200s refused", origin);
	return ok;
}

static int
hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* One form field's name or value decoded (+ and %XX); NULL when
 * malformed. */
static char *
form_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%') {
			if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
			    !isxdigit((unsigned char)s[i + 2])) {
				free(out);
				return NULL;
			}
			*o++ = (char)(hexval((unsigned char)s[i + 1]) * 16 +
				      hexval((unsigned char)s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	if (strlen(out) != (size_t)(o - out)) { /* a NUL inside */
		free(out);
		return NULL;
	}
	return out;
}

json_t *
web_form(const char *body, size_t len)
{
	json_t *form = json_object();
	size_t i = 0;

	while (i < len) {
		size_t end = i, eq;
		char *name, *value;

		while (end < len && body[end] != '&')
			end++;
		for (eq = i; eq < end && body[eq] != '='; eq++)
			;
		name = form_decode(body + i, eq - i);
		value = eq < end ? form_decode(body + eq + 1, end - eq - 1)
				 : xstrdup("");
		if (name == NULL || value == NULL ||
		    !str_utf8_valid(value, strlen(value))) {
			free(name);
			free(value);
			json_decref(form);
			return NULL;
		}
		json_object_set_new(form, name, json_string(value));
		free(name);
		free(value);
		i = end + 1;
	}
	return form;
}

bool
web_token_shaped(const char *t)
{
	size_t n = strlen(t);

	if (n < 8 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)t[i]) && t[i] != '_')
			return false;
	return true;
}

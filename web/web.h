/*
 * web.h: what the web layer's handlers share: the daemon objects they
 * call, and the answers they give.
 *
 * The web layer is HTTP only: it parses paths, query strings and
 * headers, checks tokens (once, in the router, for the kind each route
 * needs), calls the daemon's typed calls (store, lab, submit), and turns
 * their answers and problems into HTTP answers.  It holds no SQL and no
 * scheduling.  router.h is its entry point.
 */
#ifndef ROBOT_WEB_H
#define ROBOT_WEB_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "robot/core/name.h"
#include "robot/daemon/analysis.h"
#include "robot/daemon/bisect.h"
#include "robot/daemon/lab.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"
#include "robot/daemon/store/jobs.h"
#include "robot/daemon/tokens.h"
#include "robot/daemon/worker.h"
#include "reporters/reporters.h"
#include "web/httpd.h"

/* What robotd's main hands the web layer. */
struct web_deps {
	struct event_base *base;
	struct store *store;
	struct tokens *tokens;
	struct lab *lab;
	struct analysis *analysis;
	struct bisect *bisect;
	struct reporters *reporters;
	const struct settings *set; /* live: SIGHUP changes it */
};

/* The handlers' view of the web layer (the router owns it). */
/* A caller waiting for the status query in flight (web_status()). */
struct web_waiter {
	store_text_cb cb;
	void *arg;
	struct web_waiter *next;
};

struct web {
	struct web_deps d;
	unsigned long long requests; /* served, for /metrics */
	/* The status query in flight, and who waits for it. */
	bool status_asked;
	struct web_waiter *status_waiting;
	/* Writes the largest answers (a comparison of every metric) off
	 * the loop: web_reply_off_loop(), and does the heavy work of a
	 * request: web_heavy_begin(). */
	struct worker *writer;
	int heavy; /* requests between web_heavy_begin() and _end() */
};

/* What a route's handler gets besides the request; valid during the
 * handler only (copy what a callback needs). */
struct web_call {
	const char *arg;  /* the path's :id or :name segment, or NULL */
	const char *kind; /* the token's kind, NULL for public routes */
	const char *name; /* the token's name */
};

/* A store call's JSON text answered as it is: 200, 404 for NULL, or
 * the problem. */
void web_on_json(const char *text, const struct problem *p, void *arg);
/* For a revocation: web_on_json(), after this robotd forgot the tokens
 * it cached (the revoked one's next request must find it revoked; the
 * other robotd hear NOTIFY).  arg: web_revoking(w, req). */
void web_on_revoked(const char *text, const struct problem *p, void *arg);
void *web_revoking(struct web *w, struct http_req *req);
/*
 * robotd's status (store_status()) for cb: callers that come while one
 * status query is in flight share its answer, so that many clients of
 * the lab page or /api/status cost one query at a time.
 */
void web_status(struct web *w, store_text_cb cb, void *arg);
/*
 * The request's client, for per-client limits: the connection's peer,
 * or, when the peer is a trusted_proxy, the address that proxy appended
 * last to X-Forwarded-For (what the client itself wrote there is not
 * believed); in buf.
 */
const char *web_client(const struct web *w, const struct http_req *req,
		       char *buf, size_t len);
/* Answers a problem: its kind is the HTTP status. */
void web_reply_problem(struct http_req *req, const struct problem *p);
/* Whether req asks for a page (a GET or HEAD outside /api/ and
 * /metrics): its errors are HTML pages, with the navigation. */
bool web_wants_page(struct http_req *req);
/* Answers an error of status with msg: a page (its title the status's
 * name, msg its text) when web_wants_page(req), else the problem
 * document. */
void web_reply_error(struct http_req *req, int status, const char *msg);
/* Answers a daemon call's JSON answer (consumed) with status, or its
 * problem. */
void web_reply(struct http_req *req, int status, json_t *answer,
	       const struct problem *p);
/* As web_reply(), the answer written on w->writer's thread: answer must
 * hold nothing the loop still uses. */
void web_reply_off_loop(struct web *w, struct http_req *req, int status,
			json_t *answer, const struct problem *p);
/*
 * A request whose answer is made from a history or a large document
 * (change points over a million values, a page of them, a run's page,
 * a page of result documents): its work runs on w->writer's thread,
 * never on the loop, and at most
 * compare_max_running such requests are in hand at once, the rest
 * answered 429 at once, before they read anything (issue 61).
 * web_heavy_begin() answers the 429 and returns false, else counts the
 * request until web_heavy_end().
 */
bool web_heavy_begin(struct web *w, struct http_req *req);
void web_heavy_end(struct web *w);

/*
 * The integer query argument name into *v (left alone when absent, or
 * empty on a page: a form's field left empty).  False after answering
 * 400 (web_reply_error()) when it is not a whole number in [lo, hi].
 */
bool web_int_arg(struct http_req *req, const char *name, long lo, long hi,
		 long *v);
/*
 * The nth query argument called name, checked as a name of kind
 * (robot/core/name.h) into *out (NULL when absent, or empty on a page).
 * False after answering 400 (web_reply_error()) when it is not such a
 * name.
 */
bool web_name_arg(struct http_req *req, const char *name, size_t nth,
		  enum name_kind kind, const char **out);
/* The checks of web_int_arg() and web_name_arg() alone: NULL when the
 * argument is good (or absent), else why not (the caller frees it);
 * nothing is answered. */
char *web_int_check(struct http_req *req, const char *name, long lo, long hi,
		    long *v);
char *web_name_check(struct http_req *req, const char *name, size_t nth,
		     enum name_kind kind, const char **out);
/*
 * The runs' filter of the queue and GET /api/jobs, one for both:
 * state, submission, series, commit (a SHA or its first hex digits),
 * box, before and limit, each optional.  NULL when they are good, else
 * why not (the caller frees it) with *field the argument at fault;
 * nothing is answered.
 */
char *web_jobs_filter(struct http_req *req, struct store_jobs_filter *f,
		      const char **field);

/* Whether a form's (or a browser's) POST comes from robotd's own pages
 * or from no browser: its Origin is robotd's as the browser reached it;
 * without one, Sec-Fetch-Site is not cross-site; with Origin "null" (a
 * page that answers Referrer-Policy: no-referrer, robotd's own),
 * Sec-Fetch-Site is same-origin. */
bool web_from_here(struct web *w, struct http_req *req);
/* An application/x-www-form-urlencoded body's fields as a JSON object
 * of strings (the last of a repeated name); NULL when malformed (bad
 * escapes, a NUL, not UTF-8). */
json_t *web_form(const char *body, size_t len);

/* Whether t could be one of our tokens (8 to 128 letters, digits and
 * '_'): else it is not looked up. */
bool web_token_shaped(const char *t);

#endif

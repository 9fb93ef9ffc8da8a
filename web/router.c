/*
 * router.c: the route table, the token check, and the HTTP server's
 * life.
 *
 * A request is matched against the table, then against the pages
 * (pages[], web/pages/pages.h: each a public GET route and its JSON
 * twin's); a
 * route that needs a token
 * has it checked (tokens.h: a recent answer comes from memory) before
 * its handler runs.  The one variable segment of a pattern, ":id" (a
 * number), ":name" (a name) or ":series" (a series: it holds '/', and
 * runs to the pattern's literal rest), is the handler's argument; a
 * pattern that ends in its series gives way to one that goes on after
 * it.  GET routes answer HEAD.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobs/jobfile.h"
#include "robot/analysis/result.h"
#include "reporters/mailin.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "web/api.h"
#include "web/boxes.h"
#include "web/findings.h"
#include "web/pages/pages.h"
#include "web/subscriptions.h"
#include "robot/core/protocol.h"
#include "web/tokens.h"
#include "web/trees.h"
#include "web/triage.h"
#include "web/router.h"
#include "robot/core/banned.h"

/* Bodies of routes that name no limit. */
#define ROUTER_BODY_LIMIT (64 * 1024)
/* The memory libmicrohttpd gives each connection: enough for a request's
 * headers (a URI of up to 8 KiB) and an answer's, small enough for
 * thousands of idle boxes. */
#define ROUTER_CONNECTION_MEMORY 16384

enum route_auth {
	ROUTE_PUBLIC,      /* anyone */
	ROUTE_SUBMIT,      /* a submit or admin token */
	ROUTE_TRIAGE,      /* a triage, submit or admin token */
	ROUTE_TRIAGE_ONLY, /* a triage or admin token */
	ROUTE_BOX,         /* a box token; a :name segment must be its box */
	ROUTE_ADMIN,       /* an admin token */
	ROUTE_ANYONE,      /* anyone, a submit or admin token (if any) told */
};

typedef void (*route_fn)(struct web *w, struct http_req *req,
			 const struct web_call *call);

struct route {
	const char *method;
	const char *pattern;
	enum route_auth auth;
	size_t body_limit;     /* 0: ROUTER_BODY_LIMIT */
	const char *forbidden; /* the 403 for a token of another kind */
	route_fn fn;
};

static const struct route routes[] = {
	{"GET", "/metrics", ROUTE_PUBLIC, 0, NULL, api_metrics},
	{"POST", "/api/jobs", ROUTE_SUBMIT, JOBFILE_MAX_BYTES,
	 "submitting needs a submit token", api_submit},
	{"POST", "/api/jobs/cancel", ROUTE_SUBMIT, 0,
	 "cancelling needs a submit token", trees_cancel},
	{"GET", "/api/results", ROUTE_PUBLIC, 0, NULL, api_results},
	{"POST", "/api/boxes/:name/register", ROUTE_BOX, 0,
	 "box calls need a box token", boxes_register},
	{"POST", "/api/boxes/:name/lease", ROUTE_BOX, 0,
	 "box calls need a box token", boxes_lease},
	{"POST", "/api/boxes/:name/reset", ROUTE_ADMIN, 0,
	 "resetting a box needs an admin token", boxes_reset},
	{"POST", "/api/boxes/:name/revoke", ROUTE_ADMIN, 0,
	 "revoking a box needs an admin token", boxes_revoke},
	{"POST", "/api/enroll", ROUTE_PUBLIC, 1024, NULL, boxes_enroll},
	{"GET", "/api/tokens", ROUTE_ADMIN, 0,
	 "listing tokens needs an admin token", tokens_list},
	{"POST", "/api/tokens/:id/revoke", ROUTE_ADMIN, 0,
	 "revoking a token needs an admin token", tokens_revoke},
	{"POST", "/api/leases/:id/heartbeat", ROUTE_BOX, 0,
	 "box calls need a box token", boxes_heartbeat},
	{"POST", "/api/leases/:id/result", ROUTE_BOX, RESULT_MAX_BYTES,
	 "box calls need a box token", boxes_result},
	{"GET", "/api/regressions", ROUTE_PUBLIC, 0, NULL,
	 findings_regressions},
	{"POST", "/api/regressions/:id", ROUTE_SUBMIT, 0,
	 "changing a regression needs a submit token", findings_regression_set},
	{"POST", "/api/regressions/:id/triage", ROUTE_TRIAGE, 4096,
	 "triaging a regression needs a triage, submit or admin token",
	 findings_regression_triage},
	{"POST", "/api/mutes", ROUTE_TRIAGE_ONLY, 4096,
	 "muting needs a triage or admin token", findings_mute},
	{"POST", "/api/mutes/:id/end", ROUTE_TRIAGE_ONLY, 0,
	 "ending a mute needs a triage or admin token", findings_unmute},
	{"GET", "/api/mutes", ROUTE_PUBLIC, 0, NULL, findings_mutes},
	{"GET", "/signin", ROUTE_PUBLIC, 0, NULL, triage_signin_form},
	{"POST", "/signin", ROUTE_PUBLIC, 4096, NULL, triage_signin},
	{"POST", "/signout", ROUTE_PUBLIC, 4096, NULL, triage_signout},
	{"GET", "/triage", ROUTE_PUBLIC, 0, NULL, triage_link},
	{"POST", "/regressions/:id/triage", ROUTE_PUBLIC, 4096, NULL,
	 triage_form_post},
	{"POST", "/api/bisections", ROUTE_SUBMIT, 0,
	 "bisecting needs a submit token", findings_bisect},
	{"POST", "/api/bisections/:id/cancel", ROUTE_SUBMIT, 0,
	 "cancelling a bisection needs a submit token", findings_bisect_cancel},
	{"GET", "/api/series", ROUTE_PUBLIC, 0, NULL, findings_series},
	{"GET", "/api/series/:series/commits", ROUTE_PUBLIC, 0, NULL,
	 findings_series_commits},
	{"GET", "/api/trees", ROUTE_PUBLIC, 0, NULL, trees_list},
	{"POST", "/api/trees", ROUTE_ADMIN, TREES_BODY_LIMIT,
	 "adding a tree needs an admin token", trees_add},
	{"POST", "/api/trees/:name", ROUTE_ADMIN, TREES_BODY_LIMIT,
	 "changing a tree needs an admin token", trees_set},
	{"DELETE", "/api/trees/:name", ROUTE_ADMIN, 0,
	 "removing a tree needs an admin token", trees_remove},
	{"POST", "/api/subscriptions", ROUTE_ANYONE, 0,
	 "a subscription asked with a token needs a submit or admin token",
	 subscriptions_add},
	{"GET", "/api/subscriptions", ROUTE_ADMIN, 0,
	 "listing subscriptions needs an admin token", subscriptions_list},
	{"GET", "/api/reports", ROUTE_ADMIN, 0,
	 "the outbox needs an admin token", subscriptions_outbox},
	{"POST", "/api/mail", ROUTE_PUBLIC, MAILIN_MAX, NULL,
	 subscriptions_mail},
	{"GET", "/api/series/:series/changes", ROUTE_PUBLIC, 0, NULL,
	 findings_changes},
	{"GET", "/style.css", ROUTE_PUBLIC, 0, NULL, pages_style},
	{"GET", "/icon.svg", ROUTE_PUBLIC, 0, NULL, pages_icon},
	{"GET", "/subscribe", ROUTE_PUBLIC, 0, NULL, pages_subscribe_form},
	{"POST", "/subscribe", ROUTE_PUBLIC, 0, NULL, pages_subscribe},
	{"GET", "/subscriptions/confirm", ROUTE_PUBLIC, 0, NULL,
	 subscriptions_confirm},
	{"GET", "/subscriptions/unsubscribe", ROUTE_PUBLIC, 0, NULL,
	 subscriptions_unsubscribe_page},
	{"POST", "/subscriptions/unsubscribe", ROUTE_PUBLIC, 0, NULL,
	 subscriptions_unsubscribe},
	{NULL, NULL, ROUTE_PUBLIC, 0, NULL, NULL},
};

struct router {
	struct web w;
	struct httpd *httpd;
	bool stopping;
};

/* A request whose token is being checked. */
struct route_call {
	struct router *r;
	struct http_req *req;
	const struct route *route;
	char *arg;
};

static bool
is_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Whether path fits pattern; *arg gets the variable segment (in buf). */
static bool
route_match(const char *pattern, const char *path, char *buf, size_t len,
	    const char **arg)
{
	*arg = NULL;
	while (*pattern != '\0' && *path != '\0') {
		size_t pn = strcspn(pattern + 1, "/") + 1;
		size_t sn = strcspn(path + 1, "/") + 1;

		if (*pattern != '/' || *path != '/')
			return false;
		if (strncmp(pattern, "/:series", 8) == 0) {
			/* A series holds '/': it runs to the pattern's
			 * literal rest, at the end of the path. */
			const char *rest = pattern + 8;
			size_t pl = strlen(path), rl = strlen(rest);

			if (pl < rl + 2 || pl - rl - 1 >= len ||
			    strcmp(path + pl - rl, rest) != 0)
				return false;
			memcpy(buf, path + 1, pl - rl - 1);
			buf[pl - rl - 1] = '\0';
			*arg = buf;
			return name_ok(NAME_SERIES, buf);
		}
		if (pattern[1] == ':') {
			if (sn - 1 >= len || sn == 1)
				return false;
			memcpy(buf, path + 1, sn - 1);
			buf[sn - 1] = '\0';
			if (strncmp(pattern + 1, ":id", pn - 1) == 0
				    ? !is_id(buf)
				    : !name_ok(NAME_LABEL, buf))
				return false;
			*arg = buf;
		} else if (pn != sn || strncmp(pattern, path, pn) != 0) {
			return false;
		}
		pattern += pn;
		path += sn;
	}
	return *pattern == '\0' && (*path == '\0' || strcmp(path, "/") == 0);
}

/* What a request's method and path name: a route of routes[], or a
 * page of pages[] (its own route, or its JSON twin's). */
struct route_hit {
	const struct route *rt;
	const struct page *page;
	bool twin;
};

/* allow: the methods of a path's routes that are not method. */
static void
route_allow(char *allow, size_t alen, const char *method)
{
	snprintf(allow + strlen(allow), alen - strlen(allow), "%s%s",
		 allow[0] ? " or " : "", method);
}

/* Whether pattern ends in a series ("/series/:series"): it matches the
 * paths of the patterns that go on after it too ("/series/:series/
 * history"), which win over it. */
static bool
route_greedy(const char *pattern)
{
	size_t n = strlen(pattern);

	return n >= 8 && strcmp(pattern + n - 8, "/:series") == 0;
}

/* The route or page of method and path (false if none), a pattern that
 * goes on after its series before one that ends in it; *allow lists the
 * methods of the path's other routes when there is none. */
static bool
route_find(const char *method, const char *path, char *buf, size_t len,
	   const char **arg, char *allow, size_t alen, struct route_hit *hit)
{
	struct route_hit greedy = {NULL, NULL, false};
	bool get;

	if (strcmp(method, "HEAD") == 0)
		method = "GET";
	get = strcmp(method, "GET") == 0;
	allow[0] = '\0';
	*hit = (struct route_hit){NULL, NULL, false};
	for (size_t i = 0; pages[i] != NULL; i++) {
		bool twin = route_match(pages[i]->api, path, buf, len, arg);

		if (!twin && !route_match(pages[i]->route, path, buf, len, arg))
			continue;
		if (!get) {
			route_allow(allow, alen, "GET");
		} else if (route_greedy(twin ? pages[i]->api
					     : pages[i]->route)) {
			if (greedy.page == NULL)
				greedy = (struct route_hit){NULL, pages[i],
							    twin};
		} else {
			*hit = (struct route_hit){NULL, pages[i], twin};
			return true;
		}
	}
	for (const struct route *rt = routes; rt->method != NULL; rt++) {
		if (!route_match(rt->pattern, path, buf, len, arg))
			continue;
		if (strcmp(rt->method, method) != 0) {
			route_allow(allow, alen, rt->method);
		} else if (route_greedy(rt->pattern)) {
			if (greedy.rt == NULL && greedy.page == NULL)
				greedy.rt = rt;
		} else {
			hit->rt = rt;
			return true;
		}
	}
	if (greedy.rt == NULL && greedy.page == NULL)
		return false;
	/* (its argument again: the patterns tried since wrote over it) */
	*hit = greedy;
	route_match(greedy.rt != NULL ? greedy.rt->pattern
		    : greedy.twin     ? greedy.page->api
				      : greedy.page->route,
		    path, buf, len, arg);
	return true;
}

/* Whether the token's kind may use the route; answers 403 if not. */
static bool
route_allows(const struct route_call *c, const char *kind, const char *name)
{
	const struct route *rt = c->route;
	bool ok;
	char *msg;

	switch (rt->auth) {
	case ROUTE_SUBMIT:
		ok = strcmp(kind, "submit") == 0 || strcmp(kind, "admin") == 0;
		break;
	case ROUTE_TRIAGE:
		ok = strcmp(kind, "triage") == 0 ||
		     strcmp(kind, "submit") == 0 || strcmp(kind, "admin") == 0;
		break;
	case ROUTE_TRIAGE_ONLY:
		ok = strcmp(kind, "triage") == 0 || strcmp(kind, "admin") == 0;
		break;
	case ROUTE_BOX:
		ok = strcmp(kind, "box") == 0;
		if (ok && strstr(rt->pattern, ":name") != NULL &&
		    strcmp(name, c->arg) != 0) {
			msg = xasprintf("this token is box %s's, not %s's",
					name, c->arg);
			http_req_reply_error(c->req, 403, msg, NULL);
			free(msg);
			return false;
		}
		break;
	case ROUTE_ADMIN:
		ok = strcmp(kind, "admin") == 0;
		break;
	case ROUTE_ANYONE:
		ok = strcmp(kind, "submit") == 0 || strcmp(kind, "admin") == 0;
		break;
	default:
		ok = true;
	}
	if (!ok)
		http_req_reply_error(c->req, 403, rt->forbidden, NULL);
	return ok;
}

/* The 401 of a revoked token: when, and what its holder can do. */
static void
router_revoked(struct http_req *req, const char *kind, const char *name,
	       const char *when)
{
	char *msg;

	if (strcmp(kind, "box") == 0)
		msg = xasprintf("box %s's token was revoked (%s): enroll the "
				"box again (robotd box enroll %s on robotd's "
				"host, then robot-box enroll URL CODE on the "
				"box)",
				name, when, name);
	else
		msg = xasprintf("this %s token (%s) was revoked (%s): ask "
				"robotd's operator for a new one (robotd token "
				"create --kind %s --name NAME)",
				kind, name, when, kind);
	http_req_reply_error(req, 401, msg, NULL);
	free(msg);
}

static void
router_on_token(const char *kind, const char *name, const char *revoked,
		const struct problem *p, void *arg)
{
	struct route_call *c = arg;

	if (p != NULL)
		web_reply_problem(c->req, p);
	else if (kind == NULL)
		http_req_reply_error(c->req, 401, "unknown token", NULL);
	else if (revoked != NULL)
		router_revoked(c->req, kind, name, revoked);
	else if (route_allows(c, kind, name)) {
		struct web_call call = {c->arg, kind, name};

		c->route->fn(&c->r->w, c->req, &call);
	}
	free(c->arg);
	free(c);
}

/* Whether robotd speaks the box protocol of the box's call
 * (ROBOT_BOX_PROTOCOL_HEADER, none: version 1); answers 426 (or 400)
 * with what to upgrade if not. */
static bool
router_box_protocol(struct http_req *req)
{
	const char *v = http_req_header(req, ROBOT_BOX_PROTOCOL_HEADER);
	char *end, *msg;
	long n;

	if (v == NULL)
		return true;
	n = strtol(v, &end, 10);
	if (end == v || *end != '\0' || n < 0 || n > 1000000) {
		msg = xasprintf("%s: '%.20s' is not a version",
				ROBOT_BOX_PROTOCOL_HEADER, v);
		http_req_reply_error(req, 400, msg, NULL);
	} else if (n > ROBOT_BOX_PROTOCOL) {
		msg = xasprintf("this robot-box speaks box protocol %ld, newer "
				"than this robotd serves (%d to %d): upgrade "
				"robotd, or run the robot-box of its release "
				"(%s)",
				n, ROBOT_BOX_PROTOCOL_MIN, ROBOT_BOX_PROTOCOL,
				ROBOT_VERSION);
		http_req_reply_error(req, 426, msg, NULL);
	} else if (n < ROBOT_BOX_PROTOCOL_MIN) {
		msg = xasprintf("this robot-box speaks box protocol %ld, older "
				"than this robotd serves (%d to %d): upgrade "
				"robot-box to robotd's release (%s)",
				n, ROBOT_BOX_PROTOCOL_MIN, ROBOT_BOX_PROTOCOL,
				ROBOT_VERSION);
		http_req_reply_error(req, 426, msg, NULL);
	} else {
		return true;
	}
	free(msg);
	return false;
}

/* Whether an Authorization header names no token: none, or "Bearer"
 * and nothing after it (a client that has none to send). */
static bool
no_token(const char *h)
{
	return h == NULL || (strncasecmp(h, "Bearer", 6) == 0 &&
			     h[6 + strspn(h + 6, " \t")] == '\0');
}

static void
router_on_request(struct http_req *req, void *arg)
{
	struct router *r = arg;
	const char *method = http_req_method(req), *path = http_req_path(req);
	const char *var, *h;
	char buf[NAME_SERIES_MAX + 1], allow[64];
	const struct route *rt;
	struct route_hit hit;
	struct route_call *c;
	char *msg;

	r->w.requests++;
	if (r->stopping) {
		http_req_reply_error(req, 503, "robotd is stopping", NULL);
		return;
	}
	if (!route_find(method, path, buf, sizeof buf, &var, allow,
			sizeof allow, &hit)) {
		msg = allow[0] ? xasprintf("%s %s: use %s", method, path, allow)
			       : xasprintf("no such resource: %s %s",
					   strcmp(method, "HEAD") == 0 ? "GET"
								       : method,
					   path);
		web_reply_error(req, allow[0] ? 405 : 404, msg);
		free(msg);
		return;
	}
	if (hit.page != NULL) { /* a page, or its twin: public */
		struct web_call call = {var, NULL, NULL};

		http_req_set_data(req, hit.page);
		hit.page->ask(&r->w, req, &call, hit.twin);
		return;
	}
	rt = hit.rt;
	if ((rt->auth == ROUTE_BOX || rt->fn == boxes_enroll) &&
	    !router_box_protocol(req))
		return;
	h = http_req_header(req, "Authorization");
	if (rt->auth == ROUTE_PUBLIC ||
	    (rt->auth == ROUTE_ANYONE && no_token(h))) {
		struct web_call call = {var, NULL, NULL};

		rt->fn(&r->w, req, &call);
		return;
	}
	if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0 || h[7] == '\0') {
		http_req_reply_error(req, 401,
				     "this call needs a token "
				     "(Authorization: Bearer TOKEN)",
				     NULL);
		return;
	}
	if (!web_token_shaped(h + 7)) {
		http_req_reply_error(req, 401, "unknown token", NULL);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->r = r;
	c->req = req;
	c->route = rt;
	c->arg = var ? xstrdup(var) : NULL;
	tokens_check(r->w.d.tokens, h + 7, router_on_token, c);
}

static size_t
router_body_limit(const char *method, const char *path)
{
	char buf[NAME_SERIES_MAX + 1], allow[64];
	struct route_hit hit;
	const char *var;

	if (strcmp(method, "POST") != 0)
		return 0;
	return route_find(method, path, buf, sizeof buf, &var, allow,
			  sizeof allow, &hit) &&
			       hit.rt != NULL && hit.rt->body_limit > 0
		       ? hit.rt->body_limit
		       : ROUTER_BODY_LIMIT;
}

struct router *
router_new(const struct web_deps *d, char **err)
{
	struct router *r = xcalloc(1, sizeof *r);
	struct httpd_options ho = {
		d->set->listen_addr, d->set->listen_port,
		(size_t)d->set->max_connections,
		/* (a proxy's clients are all the proxy:
				    * it holds each to its own limits) */
		(size_t)(d->set->trusted_proxy != NULL
				 ? d->set->max_connections
				 : d->set->max_connections_per_client),
		d->set->request_timeout, ROUTER_CONNECTION_MEMORY,
		d->set->tls_cert, d->set->tls_key};

	r->w.d = *d;
	r->w.writer = worker_new(d->base);
	r->httpd = httpd_new(d->base, &ho, router_on_request, router_body_limit,
			     r, err);
	if (r->httpd == NULL) {
		worker_free(r->w.writer);
		free(r);
		return NULL;
	}
	return r;
}

void
router_quiesce(struct router *r)
{
	r->stopping = true;
	httpd_quiesce(r->httpd);
}

void
router_free(struct router *r)
{
	if (r == NULL)
		return;
	worker_free(r->w.writer); /* its answers given, before the httpd goes */
	httpd_free(r->httpd);
	free(r);
}

int
router_port(const struct router *r)
{
	return httpd_port(r->httpd);
}

bool
router_tls_reload(struct router *r, char **err)
{
	return httpd_tls_reload(r->httpd, err);
}

const char *
router_scheme(const struct router *r)
{
	return httpd_tls(r->httpd) ? "https" : "http";
}

size_t
router_in_flight(const struct router *r)
{
	return httpd_in_flight(r->httpd);
}

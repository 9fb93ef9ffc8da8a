/*
 * triage.c: triage from the page (docs/reports.md, "Triage on the
 * page"): signing in with a token (a cookie, HttpOnly and
 * SameSite=Strict), a report mail's one-time link (a cookie for that
 * report's findings), and the regression page's form, posted only from
 * robotd's own pages (web_from_here()).
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/crypto.h"
#include "robot/analysis/triage.h"
#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/store/analysis.h"
#include "robot/daemon/store/reports.h"
#include "robot/daemon/tokens.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/triage.h"
#include "robot/core/banned.h"

#define COOKIE_TOKEN "robot_token"
#define COOKIE_LINK  "robot_link"

/* The value of cookie name in the request, or NULL (the caller frees). */
static char *
cookie(struct http_req *req, const char *name)
{
	const char *h = http_req_header(req, "Cookie");
	size_t n = strlen(name);

	for (const char *p = h; p != NULL && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (len > 0 && *p == ' ') {
			p++;
			len--;
		}
		if (len > n && strncmp(p, name, n) == 0 && p[n] == '=')
			return xstrndup(p + n + 1, len - n - 1);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Sets cookie name to value (NULL: ends it), as robotd's pages need it. */
static void
set_cookie(struct web *w, struct http_req *req, const char *name,
	   const char *value, int seconds)
{
	const char *u = w->d.set->public_url;
	bool secure = w->d.set->tls_cert != NULL ||
		      (u != NULL && strncmp(u, "https:", 6) == 0);
	char *c = xasprintf("%s=%s; Path=/; HttpOnly; SameSite=Strict; "
			    "Max-Age=%d%s",
			    name, value ? value : "", value ? seconds : 0,
			    secure ? "; Secure" : "");

	http_req_add_header(req, "Set-Cookie", c);
	free(c);
}

/* 303 to path, with a line of text for a client that does not follow. */
static void
see_other(struct http_req *req, const char *path)
{
	http_req_reply(req, 303, "text/plain; charset=utf-8", path,
		       strlen(path));
	http_req_add_header(req, "Location", path);
}

/* A page that says why not, with how to sign in. */
static void
refuse(struct http_req *req, int status, const char *why)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "<p>");
	html_text(&b, why);
	buf_adds(&b, "</p>\n<p><a href=\"/signin\">Sign in</a> with a triage "
		     "token, or open the link in your report's mail; or "
		     "reply to the mail with <code>#robot</code> commands "
		     "(docs/reports.md).</p>\n");
	page_reply(req, status, "Not triaged", &b);
	buf_release(&b);
}

void
triage_signin_form(struct web *w, struct http_req *req,
		   const struct web_call *call)
{
	struct buf b;

	(void)w;
	(void)call;
	buf_init(&b);
	buf_adds(&b, "<p>Sign in with a token of kind <code>triage</code> "
		     "(<code>robotd token create --kind triage --name "
		     "NAME</code>), or an admin's: the regression pages' "
		     "forms then triage as you. robotd keeps it in a cookie "
		     "of this site for 30 days.</p>\n"
		     "<form method=\"post\" action=\"/signin\">\n"
		     "<p><label>token <input type=\"password\" name=\"token\" "
		     "required size=\"66\" autocomplete=\"off\"></label></p>\n"
		     "<p><button type=\"submit\">Sign in</button></p>\n"
		     "</form>\n"
		     "<form method=\"post\" action=\"/signout\"><p><button "
		     "type=\"submit\">Sign out</button></p></form>\n");
	page_reply(req, 200, "Sign in", &b);
	buf_release(&b);
}

/* A sign-in being checked (its token: tokens_check()). */
struct signin {
	struct web *w;
	struct http_req *req;
	char *token;
};

static void
signin_on_token(const char *kind, const char *name, const char *revoked,
		const struct problem *p, void *arg)
{
	struct signin *s = arg;

	if (p != NULL) {
		page_fail(s->req, p, "checking the token");
	} else if (kind == NULL || revoked != NULL ||
		   (strcmp(kind, "triage") != 0 && strcmp(kind, "admin") != 0 &&
		    strcmp(kind, "submit") != 0)) {
		refuse(s->req, 403,
		       kind == NULL      ? "robotd knows no such token."
		       : revoked != NULL ? "That token was revoked."
					 : "A box's token cannot sign in.");
	} else {
		log_info("%s signed in (%s) on the pages", name, kind);
		see_other(s->req, "/");
		set_cookie(s->w, s->req, COOKIE_TOKEN, s->token, 30 * 86400);
	}
	free(s->token);
	free(s);
}

void
triage_signin(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len), *t;
	json_t *form;
	struct signin *s;

	(void)call;
	if (!web_from_here(w, req)) {
		refuse(req, 403,
		       "This form posts only from robot's own pages.");
		return;
	}
	form = web_form(body, len);
	t = rjson_get_str(form, "token");
	if (t == NULL || !web_token_shaped(t)) {
		refuse(req, 400, "That is no token.");
		json_decref(form);
		return;
	}
	s = xmalloc(sizeof *s);
	*s = (struct signin){w, req, xstrdup(t)};
	json_decref(form);
	tokens_check(w->d.tokens, s->token, signin_on_token, s);
}

void
triage_signout(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	if (!web_from_here(w, req)) {
		refuse(req, 403,
		       "This form posts only from robot's own pages.");
		return;
	}
	see_other(req, "/");
	set_cookie(w, req, COOKIE_TOKEN, NULL, 0);
	set_cookie(w, req, COOKIE_LINK, NULL, 0);
}

/* A report mail's link being opened. */
struct opening {
	struct web *w;
	struct http_req *req;
	char *session;
};

static void
link_on_open(const char *text, const struct problem *p, void *arg)
{
	struct opening *o = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	long long id = json_integer_value(json_object_get(j, "regression"));

	if (p != NULL &&
	    (p->kind == PROBLEM_FORBIDDEN || p->kind == PROBLEM_CONFLICT)) {
		refuse(o->req, p->kind, p->message);
	} else if (p != NULL) {
		page_fail(o->req, p, "opening the link");
	} else {
		char *path = id > 0 ? xasprintf("/regressions/%lld", id)
				    : xstrdup("/");

		see_other(o->req, path);
		set_cookie(o->w, o->req, COOKIE_LINK, o->session, 7 * 86400);
		free(path);
	}
	json_decref(j);
	free(o->session);
	free(o);
}

void
triage_link(struct web *w, struct http_req *req, const struct web_call *call)
{
	const char *t = http_req_arg(req, "t", 0),
		   *a = http_req_arg(req, "a", 0);
	struct opening *o;
	char *hash;

	(void)call;
	if (t == NULL || a == NULL || strlen(t) > 64 || strlen(a) > 254) {
		refuse(req, 400,
		       "This link is not whole: open it as the "
		       "report's mail has it.");
		return;
	}
	o = xmalloc(sizeof *o);
	*o = (struct opening){w, req, crypto_token()};
	hash = crypto_sha256(o->session);
	store_triage_link_open(w->d.store, t, a, hash, link_on_open, o);
	free(hash);
}

/*
 * The regression page's form posted:
 *
 *   WHO (a token's cookie: tokens_check(); a link's: robot_triage_
 *       session()) --(someone)--> TRIAGING (robot_regression_triage())
 *       --> done: 303 back to the page, or a page that says why
 *   WHO --(no one)--> done: 403
 */
enum post_state {
	POST_WHO,
	POST_TRIAGING,
};
static const char *const post_names[] = {
	[POST_WHO] = "who",
	[POST_TRIAGING] = "triaging",
};
static const struct fsm post_fsm =
	FSM("triage form", post_names, POST_TRIAGING);

struct post {
	enum post_state state;
	struct web *w;
	struct http_req *req;
	long long id;
	char *cmd; /* its JSON */
	char *by, *kind;
};

static void
post_free(struct post *o)
{
	free(o->cmd);
	free(o->by);
	free(o->kind);
	free(o);
}

static void
post_on_triaged(const char *text, const struct problem *p, void *arg)
{
	struct post *o = arg;
	char *path;

	if (p != NULL && p->kind != PROBLEM_INTERNAL &&
	    p->kind != PROBLEM_UNAVAILABLE) {
		refuse(o->req, p->kind, p->message);
	} else if (p != NULL) {
		page_fail(o->req, p, "triaging");
	} else if (text == NULL) {
		refuse(o->req, 404, "There is no such regression.");
	} else {
		path = xasprintf("/regressions/%lld", o->id);
		see_other(o->req, path);
		free(path);
	}
	post_free(o);
}

static void
post_triage(struct post *o, const char *by, const char *kind)
{
	FSM_SET(&post_fsm, o->state, POST_TRIAGING, "triage form %lld", o->id);
	o->by = xstrdup(by);
	o->kind = xstrdup(kind);
	log_info("%s triages regression %lld on the page", by, o->id);
	store_regression_triage(o->w->d.store, o->id, o->cmd, o->by, o->kind,
				"page", o->w->d.set->box_false_alarms,
				post_on_triaged, o);
}

static void
post_on_session(const char *text, const struct problem *p, void *arg)
{
	struct post *o = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	const char *email = rjson_get_str(j, "email");
	char *kind;

	if (p != NULL) {
		page_fail(o->req, p, "reading the link's session");
		post_free(o);
	} else if (email == NULL) {
		refuse(o->req, 403,
		       "Your link's session ended (7 days): open the "
		       "report's link again, or sign in.");
		post_free(o);
	} else {
		kind = xasprintf("link:%lld",
				 (long long)json_integer_value(
					 json_object_get(j, "report")));
		post_triage(o, email, kind);
		free(kind);
	}
	json_decref(j);
}

static void
post_on_token(const char *kind, const char *name, const char *revoked,
	      const struct problem *p, void *arg)
{
	struct post *o = arg;

	if (p != NULL) {
		page_fail(o->req, p, "checking the token");
		post_free(o);
	} else if (kind == NULL || revoked != NULL ||
		   strcmp(kind, "box") == 0) {
		refuse(o->req, 403, "Your sign-in is no longer good.");
		post_free(o);
	} else {
		post_triage(o, name, kind);
	}
}

void
triage_form_post(struct web *w, struct http_req *req,
		 const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len), *line;
	json_t *form;
	struct triage_cmd c;
	struct post *o;
	char err[256], *token, *link;

	if (!web_from_here(w, req)) {
		refuse(req, 403,
		       "This form posts only from robot's own pages.");
		return;
	}
	form = web_form(body, len);
	line = rjson_get_str(form, "command");
	if (line == NULL ||
	    !triage_parse(line, strlen(line), &c, err, sizeof err)) {
		refuse(req, 400,
		       line == NULL ? "The form has no command." : err);
		json_decref(form);
		return;
	}
	json_decref(form);
	o = xmalloc(sizeof *o);
	*o = (struct post){POST_WHO,
			   w,
			   req,
			   strtoll(call->arg, NULL, 10),
			   triage_cmd_json(&c),
			   NULL,
			   NULL};
	token = cookie(req, COOKIE_TOKEN);
	link = cookie(req, COOKIE_LINK);
	if (token != NULL && web_token_shaped(token)) {
		tokens_check(w->d.tokens, token, post_on_token, o);
	} else if (link != NULL && strlen(link) == 64) {
		char *hash = crypto_sha256(link);

		store_triage_session(w->d.store, hash, post_on_session, o);
		free(hash);
	} else {
		refuse(req, 403, "Triaging on the page needs you signed in.");
		post_free(o);
	}
	free(token);
	free(link);
}

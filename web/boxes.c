/*
 * boxes.c: the boxes' half of the API, as HTTP: each handler reads the
 * request and calls the lab (robot/daemon/lab.h).  A box that hangs up
 * while its lease request waits cancels that request.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/boxes.h"
#include "robot/daemon/store/tokens.h"
#include "web/boxes.h"
#include "robot/core/banned.h"

static void
boxes_on_answer(json_t *answer, const struct problem *p, void *arg)
{
	web_reply(arg, 200, answer, p);
}

void
boxes_register(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);

	lab_register(w->d.lab, call->arg, body, len, boxes_on_answer, req);
}

static void
lease_on_answer(json_t *lease, const struct problem *p, void *arg)
{
	struct http_req *req = arg;

	if (p == NULL && lease == NULL)
		http_req_reply(req, 204, "application/json", "", 0);
	else
		web_reply(req, 200, lease, p);
}

static void
lease_on_gone(struct http_req *req, void *arg)
{
	(void)req;
	lab_lease_cancel(arg);
}

void
boxes_lease(struct web *w, struct http_req *req, const struct web_call *call)
{
	const char *ws = http_req_arg(req, "wait", 0);
	long wait = w->d.set->long_poll;
	struct lab_wait *lw;
	char *end;

	if (ws != NULL) {
		wait = strtol(ws, &end, 10);
		if (end == ws || *end != '\0' || wait < 0 ||
		    wait > w->d.set->long_poll) {
			char *msg = xasprintf("wait is 0 to %d seconds",
					      w->d.set->long_poll);

			http_req_reply_error(req, 400, msg, NULL);
			free(msg);
			return;
		}
	}
	lw = lab_lease(w->d.lab, call->arg, (int)wait, lease_on_answer, req);
	if (!http_req_answered(req))
		http_req_watch_gone(req, lease_on_gone, lw);
}

void
boxes_heartbeat(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	lab_heartbeat(w->d.lab, strtoll(call->arg, NULL, 10), call->name,
		      boxes_on_answer, req);
}

void
boxes_result(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);

	lab_upload(w->d.lab, strtoll(call->arg, NULL, 10), call->name, body,
		   len, boxes_on_answer, req);
}

void
boxes_reset(struct web *w, struct http_req *req, const struct web_call *call)
{
	lab_reset(w->d.lab, call->arg, call->name, boxes_on_answer, req);
}

/* An enrollment in flight: the token robotd made for the box, until the
 * database has its hash. */
struct enrolling {
	struct http_req *req;
	char token[STORE_SECRET_MAX];
};

static void
enroll_on_traded(const char *text, const struct problem *p, void *arg)
{
	struct enrolling *e = arg;
	json_t *j = p == NULL && text != NULL ? rjson_loads(text, NULL) : NULL;

	if (j != NULL) {
		log_info("box %s enrolled (group %s)", rjson_get_str(j, "name"),
			 rjson_get_str(j, "tbox_group"));
		json_object_set_new(j, "token", json_string(e->token));
	}
	web_reply(e->req, 200, j, p);
	explicit_bzero(e->token, sizeof e->token);
	free(e);
}

/* Whether code could be an enrollment code: "rbe_" and hex. */
static bool
code_shaped(const char *code)
{
	size_t n = strlen(code);

	if (strncmp(code, "rbe_", 4) != 0 || n < 12 || n > 100)
		return false;
	for (size_t i = 4; i < n; i++)
		if (!isxdigit((unsigned char)code[i]))
			return false;
	return true;
}

void
boxes_enroll(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len), *code;
	json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	struct enrolling *e;
	char *err = NULL;

	(void)call;
	code = rjson_get_str(j, "code");
	if (!json_is_object(j) || code == NULL || json_object_size(j) != 1) {
		http_req_reply_error(req, 400,
				     "the body is {\"code\": CODE}: the "
				     "code robotd box enroll printed",
				     NULL);
		json_decref(j);
		return;
	}
	if (!code_shaped(code)) {
		http_req_reply_error(req, 401,
				     "unknown enrollment code: ask robotd's "
				     "operator for one (robotd box enroll "
				     "NAME, on its host)",
				     NULL);
		json_decref(j);
		return;
	}
	e = xcalloc(1, sizeof *e);
	e->req = req;
	if (!store_secret(e->token, "rbt_", &err)) {
		log_warnx("cannot make a box's token: %s", err);
		http_req_reply_error(req, 500, "robotd cannot make a token",
				     NULL);
		free(err);
		free(e);
		json_decref(j);
		return;
	}
	store_enroll(w->d.store, code, e->token, enroll_on_traded, e);
	json_decref(j);
}

void
boxes_revoke(struct web *w, struct http_req *req, const struct web_call *call)
{
	log_info("%s revokes box %s", call->name, call->arg);
	store_box_revoke(w->d.store, call->arg, call->name, web_on_revoked,
			 web_revoking(w, req));
}

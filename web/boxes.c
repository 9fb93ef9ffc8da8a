/*
 * boxes.c: the boxes' half of the API, as HTTP: each handler reads the
 * request and calls the lab (robot/daemon/lab.h).  A box that hangs up
 * while its lease request waits cancels that request.
 */
#include <stdlib.h>

#include "robot/core/xmalloc.h"
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

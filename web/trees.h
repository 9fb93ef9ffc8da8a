/*
 * trees.h: the trees robotd follows, and cancelling queued work, over
 * HTTP (DESIGN.md section 7).  Reading is public; adding, changing and
 * removing a tree needs an admin token, cancelling a submit token.
 */
#ifndef ROBOT_WEB_TREES_H
#define ROBOT_WEB_TREES_H

#include "web/web.h"

/* A tree's body: its job files inlined. */
#define TREES_BODY_LIMIT (4u << 20)

/* GET /api/trees */
void trees_list(struct web *w, struct http_req *req,
		const struct web_call *call);
/* POST /api/trees {name, url, branches, base_ref, jobs, ...} */
void trees_add(struct web *w, struct http_req *req,
	       const struct web_call *call);
/* POST /api/trees/:name {the members to change} */
void trees_set(struct web *w, struct http_req *req,
	       const struct web_call *call);
/* DELETE /api/trees/:name */
void trees_remove(struct web *w, struct http_req *req,
		  const struct web_call *call);
/* POST /api/jobs/cancel {"job": ID} or {"submission": ID} or
 * {"series": S} */
void trees_cancel(struct web *w, struct http_req *req,
		  const struct web_call *call);

#endif

/*
 * boxes.h: the boxes' half of the JSON API: register, lease (a
 * long-poll), heartbeat, result upload, and an operator's reset.  The
 * router has checked the box token (and that a :name is its box).  And
 * how a box joins and leaves: its enrollment code traded for its token
 * (public: the code is the credential), and an operator's revocation.
 */
#ifndef ROBOT_BOXES_H
#define ROBOT_BOXES_H

#include "web/web.h"

void boxes_register(struct web *w, struct http_req *req,
		    const struct web_call *call);
void boxes_lease(struct web *w, struct http_req *req,
		 const struct web_call *call);
void boxes_heartbeat(struct web *w, struct http_req *req,
		     const struct web_call *call);
void boxes_result(struct web *w, struct http_req *req,
		  const struct web_call *call);
void boxes_reset(struct web *w, struct http_req *req,
		 const struct web_call *call);
void boxes_enroll(struct web *w, struct http_req *req,
		  const struct web_call *call);
void boxes_revoke(struct web *w, struct http_req *req,
		  const struct web_call *call);

#endif

/*
 * tokens.h: the credentials' part of the JSON API, for an admin: every
 * token listed (never a token itself: only hashes are kept), and one
 * revoked.
 */
#ifndef ROBOT_WEB_TOKENS_H
#define ROBOT_WEB_TOKENS_H

#include "web/web.h"

void tokens_list(struct web *w, struct http_req *req,
		 const struct web_call *call);
void tokens_revoke(struct web *w, struct http_req *req,
		   const struct web_call *call);

#endif

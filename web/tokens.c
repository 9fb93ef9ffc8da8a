/*
 * tokens.c: the credentials' part of the API (tokens.h).
 */
#include <stdlib.h>

#include "robot/core/log.h"
#include "robot/daemon/store/tokens.h"
#include "web/tokens.h"
#include "robot/core/banned.h"

void
tokens_list(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	store_tokens(w->d.store, web_on_json, req);
}

void
tokens_revoke(struct web *w, struct http_req *req, const struct web_call *call)
{
	log_info("%s revokes token %s", call->name, call->arg);
	store_token_revoke(w->d.store, strtoll(call->arg, NULL, 10), call->name,
			   web_on_revoked, web_revoking(w, req));
}

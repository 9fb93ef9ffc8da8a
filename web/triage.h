/*
 * triage.h: triage from the page (web/triage.c): GET and POST /signin,
 * POST /signout, GET /triage (a report mail's one-time link), POST
 * /regressions/:id/triage (the regression page's form).
 */
#ifndef ROBOT_WEB_TRIAGE_H
#define ROBOT_WEB_TRIAGE_H

#include "web/web.h"

void triage_signin_form(struct web *w, struct http_req *req,
			const struct web_call *call);
void triage_signin(struct web *w, struct http_req *req,
		   const struct web_call *call);
void triage_signout(struct web *w, struct http_req *req,
		    const struct web_call *call);
void triage_link(struct web *w, struct http_req *req,
		 const struct web_call *call);
void triage_form_post(struct web *w, struct http_req *req,
		      const struct web_call *call);

#endif

/*
 * subscriptions.h: subscriptions to reports over HTTP (DESIGN.md section
 * 7), double opt-in: POST /api/subscriptions mails a one-time link, and
 * only following it confirms; every mail carries a one-click unsubscribe
 * link (RFC 8058).  The pages the links open are HTML; the outbox and
 * the list of subscriptions are for admins.
 */
#ifndef ROBOT_SUBSCRIPTIONS_H
#define ROBOT_SUBSCRIPTIONS_H

#include "web/web.h"

/* POST /api/subscriptions {"email", "tree", "branch", "testcase",
 * "metric", "min_change", "regressions", "improvements"} */
void subscriptions_add(struct web *w, struct http_req *req,
		       const struct web_call *call);
/* GET /api/subscriptions (admin) */
void subscriptions_list(struct web *w, struct http_req *req,
			const struct web_call *call);
/* GET /subscriptions/confirm?t= */
void subscriptions_confirm(struct web *w, struct http_req *req,
			   const struct web_call *call);
/* GET /subscriptions/unsubscribe?t=: a page with the button */
void subscriptions_unsubscribe_page(struct web *w, struct http_req *req,
				    const struct web_call *call);
/* POST /subscriptions/unsubscribe?t= (List-Unsubscribe=One-Click, or the
 * page's form) */
void subscriptions_unsubscribe(struct web *w, struct http_req *req,
			       const struct web_call *call);
/* GET /api/reports?limit= (admin): the outbox */
void subscriptions_outbox(struct web *w, struct http_req *req,
			  const struct web_call *call);
/* POST /api/mail: a mail to robot, as robot mail-in hands it on (its
 * raw RFC 5322 text): a reply to a report, whose triage commands are
 * taken (reporters/mailin.h). */
void subscriptions_mail(struct web *w, struct http_req *req,
			const struct web_call *call);

/* Asks for subscription sub (checked here), answering JSON, or with html
 * a page (the subscribe form's).  token: asked with a submit or admin
 * token, whose requests the limits of an anonymous client's (ten an
 * hour from one address, a hundred from anyone) do not count. */
void subscriptions_ask(struct web *w, struct http_req *req, json_t *sub,
		       bool html, bool token);

#endif

/*
 * subscribe.c: the subscribe form (GET /subscribe) and its post (POST
 * /subscribe, application/x-www-form-urlencoded), which asks for the
 * same double opt-in subscription as POST /api/subscriptions.  A post
 * from another site is refused (403): its Origin must be robotd's own;
 * without one, Sec-Fetch-Site must not say cross-site; with Origin
 * "null" (what a browser sends from a page that answers Referrer-Policy:
 * no-referrer, robotd's own included), Sec-Fetch-Site must say
 * same-origin.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/subscriptions.h"
#include "robot/core/banned.h"

void
pages_subscribe_form(struct web *w, struct http_req *req,
		     const struct web_call *call)
{
	struct buf b;

	(void)w;
	(void)call;
	buf_init(&b);
	buf_adds(
		&b,
		"<p>robot mails its reports to confirmed subscribers whose "
		"filters match: a confirmation mail comes first, and every "
		"mail has a one-click unsubscribe link. Empty filters match "
		"everything; globs (<code>*</code>) work.</p>\n"
		"<form method=\"post\" action=\"/subscribe\">\n"
		"<p><label>address <input type=\"email\" name=\"email\" "
		"required size=\"40\"></label></p>\n"
		"<p><label>tree <input name=\"tree\" size=\"20\"></label>\n"
		"<label>branch <input name=\"branch\" size=\"20\"></label>\n"
		"<label>testcase <input name=\"testcase\" size=\"20\">"
		"</label>\n<label>metric <input name=\"metric\" size=\"30\">"
		"</label>\n<label>at least <input name=\"min_change\" "
		"size=\"6\" placeholder=\"5%\"></label></p>\n"
		"<p><label><input type=\"checkbox\" name=\"improvements\" "
		"value=\"yes\"> improvements too</label></p>\n"
		"<p><button type=\"submit\">Subscribe</button></p>\n</form>\n");
	page_reply(req, 200, "Subscribe", &b);
	buf_release(&b);
}

/* The form's fields as a subscription's JSON; NULL when malformed. */
static json_t *
form_subscription(const char *body, size_t len)
{
	json_t *form = web_form(body, len), *sub, *v;
	const char *name;

	if (form == NULL)
		return NULL;
	sub = json_object();
	/* (every other field as typed: the subscription's check, the
	 * API's, reads "5" and "5%" as min_change, and refuses what is
	 * not a percentage) */
	json_object_foreach(form, name, v)
	{
		if (strcmp(name, "improvements") == 0)
			json_object_set_new(sub, "improvements", json_true());
		else if (json_string_value(v)[0] != '\0')
			json_object_set(sub, name, v);
	}
	json_decref(form);
	return sub;
}

void
pages_subscribe(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_t *sub;

	(void)call;
	if (!web_from_here(w, req)) {
		struct buf b;

		buf_init(&b);
		buf_adds(&b, "<p>This form posts only from robot's own pages: "
			     "<a href=\"/subscribe\">subscribe here</a>.</p>");
		page_reply(req, 403, "Not from here", &b);
		buf_release(&b);
		return;
	}
	if ((sub = form_subscription(body, len)) == NULL) {
		page_bad(req, "the form's data is not well encoded");
		return;
	}
	subscriptions_ask(w, req, sub, true, false);
	json_decref(sub);
}

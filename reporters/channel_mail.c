/*
 * channel_mail.c: reports by mail (channel.h): RFC 5322 (mail.h) sent
 * over SMTP through curl.h, with the recipient's one-click unsubscribe
 * link.  A 5xx refuses the recipient for good; anything else (4xx, no
 * server, a timeout) is tried again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reporters/channel.h"
#include "reporters/mail.h"
#include "robot/core/client.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

static void
mail_deliver(const struct channel_send *cs, const struct store_outbox_row *row)
{
	const struct settings *set = cs->set;
	const char *to = row->recipient, *from = set->mail_from;
	char *mid = NULL, *unsub = NULL, *footer, *text, *rcpt, *mfrom;
	char *list_id, *reply = NULL, *triage, *to_q;
	struct curlm_request rq;
	struct mail m;

	if (mail_address_check(to) != NULL) {
		cs->failed(true, mail_address_check(to), cs->arg);
		return;
	}
	if (set->smtp == NULL) {
		cs->failed(false,
			   "no smtp: in robotd's settings: the mail waits",
			   cs->arg);
		return;
	}
	list_id = xasprintf("<reports.%s>", mail_domain(from));
	if (row->message_id == NULL)
		mid = xasprintf("<robot.mail.%lld@%s>", row->id,
				mail_domain(from));
	if (row->token != NULL)
		unsub = xasprintf("%s/subscriptions/unsubscribe?t=%s", cs->url,
				  row->token);
	/* A report's: its one-time link to triage it on the page, as
	 * this recipient (web/triage.c). */
	to_q = client_escape(to);
	triage = row->reply ? xasprintf("Triage it on the page (this link "
					"works once, for you): "
					"%s/triage?t=%s&a=%s\n",
					cs->url, row->reply, to_q)
			    : xstrdup("");
	free(to_q);
	footer = unsub ? xasprintf("%srobot, a performance test robot: %s\n"
				   "No more mail from robot: %s\n",
				   triage, cs->url, unsub)
		       : xasprintf("%srobot, a performance test robot: %s\n",
				   triage, cs->url);
	/* A report's own reply address for this recipient: robot+TOKEN@
	 * the sender's domain, which robot mail-in takes (mailin.h). */
	if (row->reply != NULL) {
		const char *at = strrchr(from, '@');

		reply = at ? xasprintf("%.*s+%s%s", (int)(at - from), from,
				       row->reply, at)
			   : NULL;
		if (reply != NULL && mail_address_check(reply) != NULL) {
			free(reply);
			reply = NULL;
		}
	}
	m = (struct mail){from,
			  "robot",
			  to,
			  row->subject,
			  mid ? mid : row->message_id,
			  row->in_reply_to ? row->in_reply_to : row->thread,
			  list_id,
			  unsub,
			  NULL,
			  time(NULL),
			  row->body ? row->body : "",
			  footer,
			  reply};
	text = mail_format(&m);
	rcpt = xasprintf("<%s>", to);
	mfrom = xasprintf("<%s>", from);
	rq = (struct curlm_request){set->smtp,
				    mfrom,
				    rcpt,
				    set->smtp_user,
				    set->smtp_password,
				    set->smtp_starttls != 0,
				    NULL,
				    text,
				    strlen(text),
				    set->report_claim / 2};
	curlm_send(cs->curl, &rq, cs->sent, cs->arg);
	free(mid);
	free(unsub);
	free(footer);
	free(text);
	free(rcpt);
	free(mfrom);
	free(list_id);
	free(reply);
	free(triage);
}

static bool
mail_permanent(long code)
{
	return code >= 500 && code < 600;
}

static const char *
mail_operator(const struct settings *set)
{
	return set->operator_mail;
}

const struct channel_ops channel_mail = {
	.name = "mail",
	.operator= mail_operator,
	.deliver = mail_deliver,
	.permanent = mail_permanent,
};

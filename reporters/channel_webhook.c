/*
 * channel_webhook.c: reports posted as JSON to the configured webhook
 * (channel.h; docs/reports.md), signed with webhook_secret.  Also the
 * post that the chat channel shares.  A 4xx other than 408 and 429 is
 * for good; 5xx and no answer are tried again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reporters/channel.h"
#include "reporters/channel_post.h"
#include "reporters/crypto.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

void
channel_post(const struct channel_send *cs, const struct store_outbox_row *row,
	     json_t *body, bool sign)
{
	const struct settings *set = cs->set;
	const char *kind = rjson_get_str(row->doc, "kind");
	char ts[32], *text, *sig = NULL, *h[6];
	struct curlm_request rq;
	size_t n = 0;

	text = rjson_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
	h[n++] = xstrdup("Content-Type: application/json");
	h[n++] = xasprintf("X-Robot-Event: %s", kind ? kind : "report");
	h[n++] = xasprintf("X-Robot-Delivery: %lld", row->id);
	h[n++] = xasprintf("X-Robot-Timestamp: %s", ts);
	if (sign && set->webhook_secret != NULL) {
		sig = crypto_signature(set->webhook_secret, ts, text,
				       strlen(text));
		h[n++] = xasprintf("X-Robot-Signature: %s", sig);
	}
	h[n] = NULL;
	rq = (struct curlm_request){row->recipient,
				    NULL,
				    NULL,
				    NULL,
				    NULL,
				    false,
				    (const char *const *)h,
				    text,
				    strlen(text),
				    set->report_claim / 2};
	curlm_send(cs->curl, &rq, cs->sent, cs->arg);
	for (size_t i = 0; i < n; i++)
		free(h[i]);
	free(sig);
	free(text);
}

bool
channel_post_permanent(long code)
{
	return code >= 400 && code < 500 && code != 408 && code != 429;
}

static const char *
webhook_recipient(const struct settings *set)
{
	return set->webhook;
}

static void
webhook_deliver(const struct channel_send *cs,
		const struct store_outbox_row *row)
{
	if (row->doc == NULL) {
		cs->failed(true, "only reports are posted", cs->arg);
		return;
	}
	channel_post(cs, row, row->doc, true);
}

static const char *
webhook_operator(const struct settings *set)
{
	return set->operator_webhook;
}

const struct channel_ops channel_webhook = {
	.name = "webhook",
	.recipient = webhook_recipient,
	.operator= webhook_operator,
	.deliver = webhook_deliver,
	.permanent = channel_post_permanent,
};

/*
 * channel_chat.c: a report's headline and link posted to a chat's
 * incoming webhook (Slack, Mattermost: {"text": ...}), unsigned
 * (channel.h).
 */
#include <stdlib.h>

#include "reporters/channel.h"
#include "reporters/channel_post.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

json_t *
channel_chat_text(json_t *doc)
{
	const char *subject = rjson_get_str(doc, "subject");
	const char *url = rjson_get_str(doc, "url");
	char *text = xasprintf("%s\n%s", subject ? subject : "robot",
			       url ? url : "");
	json_t *j = json_pack("{s:s}", "text", text);

	free(text);
	return j;
}

static const char *
chat_recipient(const struct settings *set)
{
	return set->chat_webhook;
}

static void
chat_deliver(const struct channel_send *cs, const struct store_outbox_row *row)
{
	json_t *body;

	if (row->doc == NULL) {
		cs->failed(true, "only reports are posted", cs->arg);
		return;
	}
	body = channel_chat_text(row->doc);
	channel_post(cs, row, body, false);
	json_decref(body);
}

const struct channel_ops channel_chat = {
	.name = "chat",
	.recipient = chat_recipient,
	.deliver = chat_deliver,
	.permanent = channel_post_permanent,
};

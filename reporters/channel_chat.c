/*
 * channel_chat.c: a report's headline and link posted to a chat's
 * incoming webhook (Slack, Mattermost: {"text": ...}), unsigned
 * (channel.h).
 */
#include <ctype.h>
#include <stdlib.h>

#include "reporters/channel.h"
#include "reporters/channel_post.h"
#include "robot/core/buf.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

/* Text of another's making (a branch, a commit subject) as a chat shows
 * it, not as it acts: &, < and > escaped as Slack's and Mattermost's
 * formats want (so "<!channel>" is text, not a mention or a link), and
 * an @ that starts a word ("@here", "@all", "@someone") followed by a
 * zero-width space, which Mattermost does not take for a mention.  An
 * address's @ (after a letter) stays. */
static void
add_chat_safe(struct buf *b, const char *s)
{
	for (const char *p = s; *p != '\0'; p++) {
		if (*p == '&')
			buf_adds(b, "&amp;");
		else if (*p == '<')
			buf_adds(b, "&lt;");
		else if (*p == '>')
			buf_adds(b, "&gt;");
		else if (*p == '@' &&
			 (p == s || !isalnum((unsigned char)p[-1])) &&
			 isalnum((unsigned char)p[1]))
			buf_adds(b, "@\xe2\x80\x8b");
		else
			buf_addc(b, *p);
	}
}

json_t *
channel_chat_text(json_t *doc)
{
	const char *subject = rjson_get_str(doc, "subject");
	const char *url = rjson_get_str(doc, "url");
	struct buf b;
	json_t *j;

	buf_init(&b);
	add_chat_safe(&b, subject ? subject : "robot");
	buf_addc(&b, '\n');
	add_chat_safe(&b, url ? url : "");
	buf_addc(&b, '\0');
	j = json_pack("{s:s}", "text", b.data);
	buf_release(&b);
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

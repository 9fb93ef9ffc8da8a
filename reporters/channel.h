/*
 * channel.h: the report channels (mail, webhook, chat), as a table of
 * operations: who a channel sends every report to, how it delivers one
 * outbox row, and which failures are for good.  A new channel is a file
 * of its own (channel_NAME.c) and a row in channel.c's table; the outbox
 * (outbox.c) and the builder (builder.c) only walk the table.
 */
#ifndef ROBOT_CHANNEL_H
#define ROBOT_CHANNEL_H

#include <stdbool.h>

#include "reporters/curl.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store/reports.h"

/* What a delivery has to send one row with, and how it tells its end. */
struct channel_send {
	struct curlm *curl;
	const struct settings *set;
	const char *url; /* the base of the links in mails */
	/* The transfer's end (curlm_cb): its code says whether a failure
	 * is for good (the channel's permanent()). */
	curlm_cb sent;
	/* A failure before anything was sent. */
	void (*failed)(bool permanent, const char *why, void *arg);
	void *arg;
};

struct channel_ops {
	const char *name; /* the outbox's channel column: "mail" */
	/* The one recipient of every report through it, from the settings
	 * (a webhook's URL), or NULL (mail's come from the report). */
	const char *(*recipient)(const struct settings *set);
	/* The lab's operators' recipient through it, from the settings
	 * (operator_mail, operator_webhook), or NULL: who gets a lab
	 * note. */
	const char *(*operator)(const struct settings *set);
	/* Delivers row: calls cs->sent or cs->failed once, later. */
	void (*deliver)(const struct channel_send *cs,
			const struct store_outbox_row *row);
	/* Whether a failed try with the server's answer code is for good. */
	bool (*permanent)(long code);
};

extern const struct channel_ops channel_mail, channel_webhook, channel_chat;

/* The chat form of a stored report's JSON: {"text": headline and
 * link}, escaped so that it mentions nobody and links nothing. */
json_t *channel_chat_text(json_t *doc);

/* The channel of that name, or NULL. */
const struct channel_ops *channel_find(const char *name);
/* The channels, ending with NULL. */
extern const struct channel_ops *const channels[];

#endif

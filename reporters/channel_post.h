/*
 * channel_post.h: what the channels that post JSON over HTTP share
 * (channel_webhook.c has it): the post, its headers and signature, and
 * which answers are for good.
 */
#ifndef ROBOT_CHANNEL_POST_H
#define ROBOT_CHANNEL_POST_H

#include <jansson.h>

#include "reporters/channel.h"

/* Posts body for row (signed with webhook_secret when sign). */
void channel_post(const struct channel_send *cs,
		  const struct store_outbox_row *row, json_t *body, bool sign);
/* A 4xx other than 408 and 429. */
bool channel_post_permanent(long code);

#endif

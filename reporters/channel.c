/*
 * channel.c: the table of report channels (channel.h).
 */
#include <string.h>

#include "reporters/channel.h"
#include "robot/core/banned.h"

const struct channel_ops *const channels[] = {
	&channel_mail,
	&channel_webhook,
	&channel_chat,
	NULL,
};

const struct channel_ops *
channel_find(const char *name)
{
	for (size_t i = 0; channels[i] != NULL; i++)
		if (strcmp(channels[i]->name, name) == 0)
			return channels[i];
	return NULL;
}

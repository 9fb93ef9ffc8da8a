/*
 * outbox.h: the outbox delivered (reporters.h's second half): rows
 * claimed in batches, each sent through its channel (channel.h: mail,
 * webhook, chat), and its end stored: sent, tried again later, or
 * failed.
 */
#ifndef ROBOT_OUTBOX_H
#define ROBOT_OUTBOX_H

#include <stdbool.h>

#include <event2/event.h>

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct outbox;

/* A worker of d, woken by ":outbox"; url() gives the base of the links
 * in mails (public_url or robotd's). */
struct outbox *outbox_new(struct drain *d, struct event_base *base,
			  struct store *store, const struct settings *set,
			  const char *(*url)(void *), void *url_arg);
void outbox_free(struct outbox *o);
void outbox_counts(const struct outbox *o, unsigned long long *sent,
		   unsigned long long *failed);
/*
 * What becomes of a row after its try number attempts: "sent" (ok),
 * "failed" for good (permanent: the server refused it; or its last try,
 * about two days of them), else "pending", tried again in *retry_in
 * seconds: 10 after the first try, doubling, at most an hour.
 */
const char *outbox_outcome(bool ok, bool permanent, int attempts,
			   int *retry_in);

#endif

/*
 * subscribe.h: double opt-in subscriptions (DESIGN.md section 8): one
 * asked for is checked, gets a one-time link (its token's sha256 is
 * kept, never the token) and its confirmation mail in the outbox, and
 * nothing else is mailed to the address until the link is followed; an
 * address's unsubscribe token stops all mail to it.  web/ only carries
 * these over HTTP.
 */
#ifndef ROBOT_SUBSCRIBE_H
#define ROBOT_SUBSCRIBE_H

#include <event2/event.h>
#include <jansson.h>

#include "reporters/report.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

/*
 * Asks for subscription sub ({email, tree, branch, testcase, metric,
 * min_change, regressions, improvements}; normalized in place), whose
 * confirmation link starts at base_url, for a request from address
 * client.  cb gets {id, email, state}, or the problem: 400 with one
 * detail per fault, 429 when confirmations wait in the mailbox, or too
 * many were asked from client or from anyone in the last hour
 * (robot_subscribe()).  cb runs from the loop, never inside the call.
 */
void subscribe_ask(struct event_base *base, struct store *s,
		   const struct settings *set, const char *base_url,
		   json_t *sub, const char *client, store_text_cb cb,
		   void *arg);
/* The subscription a confirmation link's token names, now confirmed;
 * NULL for a link unknown, used or too old. */
void subscribe_confirm(struct store *s, const char *token, store_text_cb cb,
		       void *arg);
/* {email, subscriptions}: the address of an unsubscribe token opted
 * out; NULL for no such token. */
void subscribe_end(struct store *s, const char *token, store_text_cb cb,
		   void *arg);

/*
 * Checks a subscription as asked (POST /api/subscriptions): an object of
 * email (an address, mail_address_check()), tree, branch, testcase and
 * metric (globs of printable ASCII, at most 200 bytes), min_change (a
 * number of percent, 0 to 10000, or a string "5%"), regressions and
 * improvements (booleans; not both false).  Normalizes it in place
 * (min_change a number, the email lowercase).  Returns the faults, one
 * string each, or NULL when it is good; the caller frees them.
 */
json_t *subscribe_check(json_t *sub);
/*
 * The confirmation mail of a subscription (its JSON: email and filters)
 * with its one-time link; its subject in *subject.  Both for the caller
 * to free.
 */
char *subscribe_confirmation(const struct report_config *cfg, json_t *sub,
			     const char *link, char **subject);

#endif

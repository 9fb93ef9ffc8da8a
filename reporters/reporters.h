/*
 * reporters.h: robotd's reporters: the builder that turns a commit's
 * final regressions (and later news of them) into reports with their
 * outbox rows, and the delivery of the outbox by mail and webhooks.
 * Both are claimed in the database, so that several robotd share the
 * work and none does a piece twice (sql/functions/reports.sql).
 */
#ifndef ROBOT_REPORTERS_H
#define ROBOT_REPORTERS_H

#include <event2/event.h>

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct reporters;

/* Two workers of d (woken by ":reports" and ":outbox"); set is live:
 * SIGHUP changes it. */
struct reporters *reporters_new(struct drain *d, struct event_base *base,
				struct store *store,
				const struct settings *set);
/* robotd's own address ("http://127.0.0.1:8420"), for the links in mails
 * when set->public_url is not set; known once robotd listens. */
void reporters_set_url(struct reporters *r, const char *url);
/* The base of every link robotd mails: public_url, else its own
 * address; never what a request's Host header says. */
const char *reporters_link_url(struct reporters *r);
void reporters_free(struct reporters *r);

/* What this robotd did, for /metrics. */
struct reporters_stats {
	unsigned long long reports; /* stored */
	unsigned long long sent;    /* mails and posts the server took */
	unsigned long long failed;  /* tries that failed */
};
void reporters_stats(const struct reporters *r, struct reporters_stats *st);

#endif

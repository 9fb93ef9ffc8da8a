/*
 * janitor.c: the sweep, a worker of the drain engine (drain.h): its
 * claim brings back deadlines further off than the lease time (a clock
 * stepped back), expires the leases past their deadline, takes back the rounds
 * of a box that vanished between two of their runs, mends the pairs left
 * waiting for runs that are over, and brings no work, so the engine's
 * IDLE -> CLAIMING -> IDLE is the whole of it, once a tick.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/janitor.h"
#include "robot/daemon/store/leases.h"
#include "robot/core/banned.h"

struct janitor {
	struct store *store;
	const struct settings *set;
	struct drain_worker *w;
};

static void
janitor_on_swept(const struct store_sweep *sw, const struct problem *p,
		 void *arg)
{
	struct drain_worker *w = arg;
	long long n = sw != NULL ? sw->expired : 0,
		  o = sw != NULL ? sw->orphaned : 0;

	if (p != NULL)
		log_warnx("janitor: cannot sweep: %s (tried again next tick)",
			  p->message);
	if (n > 0)
		log_info("%lld lease%s expired: back to the queue", n,
			 n == 1 ? "" : "s");
	if (o > 0)
		log_info("%lld round%s left by a box that asked for no work "
			 "for a minute: "
			 "measured again elsewhere",
			 o, o == 1 ? "" : "s");
	if (sw != NULL && sw->mutes_expired > 0)
		log_info("%lld mute%s expired: in the lab notes",
			 sw->mutes_expired, sw->mutes_expired == 1 ? "" : "s");
	for (size_t i = 0; sw != NULL && i < sw->nmended; i++)
		log_warnx("pair %lld waited for runs that had all ended: "
			  "ready now",
			  sw->mended[i]);
	drain_claimed(w, NULL, 0, p != NULL);
}

static void
janitor_claim(struct drain_worker *w, int n)
{
	struct janitor *j = drain_ctx(w);

	(void)n;
	store_sweep(j->store, j->set->lease_seconds, janitor_on_swept, w);
}

static const struct drain_ops janitor_ops = {
	.name = "janitor",
	.tick = 1,
	.slots = 1,
	.batch = 1,
	.claim = janitor_claim,
};

struct janitor *
janitor_new(struct drain *d, struct store *store, const struct settings *set)
{
	struct janitor *j = xcalloc(1, sizeof *j);

	j->store = store;
	j->set = set;
	j->w = drain_add(d, &janitor_ops, j);
	return j;
}

void
janitor_free(struct janitor *j)
{
	free(j);
}

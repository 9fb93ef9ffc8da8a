/*
 * janitor.c: the sweep, a worker of the drain engine (drain.h): its
 * claim expires the leases past their deadline and brings no work, so
 * the engine's IDLE -> CLAIMING -> IDLE is the whole of it, once a tick.
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
	struct drain_worker *w;
};

static void
janitor_on_expired(const char *text, const struct problem *p, void *arg)
{
	struct drain_worker *w = arg;

	if (p == NULL && text != NULL && atoi(text) > 0)
		log_info("%s lease%s expired: back to the queue", text,
			 strcmp(text, "1") == 0 ? "" : "s");
	drain_claimed(w, NULL, 0, p != NULL);
}

static void
janitor_claim(struct drain_worker *w, int n)
{
	struct janitor *j = drain_ctx(w);

	(void)n;
	store_expire(j->store, janitor_on_expired, w);
}

static const struct drain_ops janitor_ops = {
	.name = "janitor",
	.tick = 1,
	.slots = 1,
	.batch = 1,
	.claim = janitor_claim,
};

struct janitor *
janitor_new(struct drain *d, struct store *store)
{
	struct janitor *j = xcalloc(1, sizeof *j);

	j->store = store;
	j->w = drain_add(d, &janitor_ops, j);
	return j;
}

void
janitor_free(struct janitor *j)
{
	free(j);
}

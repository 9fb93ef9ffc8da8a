/*
 * test_drain.c: the engine of robotd's background work on a real event
 * loop, with workers whose claims answer from a script instead of the
 * database: the claim loop (batches, a full batch claims again, a wake
 * during a claim, waiting for room), the topics, the deferred frees and
 * the stop.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/problem.h"
#include "tap.h"

/* A worker whose claims the test answers by hand. */
struct fake {
	struct drain_worker *w;
	int claims;       /* claims asked so far */
	int asked;        /* what the last one asked for */
	int started;      /* works started */
	int freed;        /* works freed */
	bool freed_early; /* a work freed inside the call that ended it */
	bool in_done;
};

static void
fake_claim(struct drain_worker *w, int n)
{
	struct fake *f = drain_ctx(w);

	f->claims++;
	f->asked = n;
}

static void
fake_start(struct drain_worker *w, void *work)
{
	struct fake *f = drain_ctx(w);

	(void)work;
	f->started++;
}

/* A work: its worker, to count it freed. */
struct work {
	struct fake *f;
};

static void
fake_free(void *arg)
{
	struct work *k = arg;

	k->f->freed++;
	if (k->f->in_done)
		k->f->freed_early = true;
	free(k);
}

static struct work *
work_new(struct fake *f)
{
	struct work *k = calloc(1, sizeof *k);

	k->f = f;
	return k;
}

/* Answers the claim under way with n works (kept in out). */
static void
answer(struct fake *f, int n, struct work **out)
{
	void *v[16];

	for (int i = 0; i < n; i++)
		v[i] = out[i] = work_new(f);
	drain_claimed(f->w, v, (size_t)n, false);
}

static void
done(struct fake *f, struct work *k)
{
	f->in_done = true;
	drain_done(f->w, k);
	f->in_done = false;
}

static const struct drain_ops batch_ops = {
	.name = "batch",
	.topic = ":batch",
	.tick = 3600,
	.slots = 4,
	.batch = 0,
	.claim = fake_claim,
	.start = fake_start,
	.free = fake_free,
};

static const struct drain_ops one_ops = {
	.name = "one",
	.topic = ":one",
	.tick = 3600,
	.slots = 2,
	.batch = 1,
	.look_after_each = true,
	.claim = fake_claim,
	.start = fake_start,
	.free = fake_free,
};

static void
test_batches(void)
{
	struct event_base *base = event_base_new();
	struct drain *d = drain_new(base, NULL);
	struct fake f = {0};
	struct work *w[16];

	f.w = drain_add(d, &batch_ops, &f);
	/* A topic wakes its worker, and only it. */
	CHECK(!drain_notify(d, ":other"));
	CHECK_INT(f.claims, 0);
	CHECK(drain_notify(d, ":batch"));
	CHECK_INT(f.claims, 1);
	CHECK_INT(f.asked, 4);
	/* Woken while it claims: it claims again after the answer. */
	drain_wake(f.w);
	CHECK_INT(f.claims, 1);
	answer(&f, 1, w);
	CHECK_INT(f.started, 1);
	CHECK_INT(f.claims, 2);
	CHECK_INT(f.asked, 3);
	/* Fewer than asked, not woken: it rests. */
	answer(&f, 2, w + 1);
	CHECK_INT(f.claims, 2);
	CHECK_INT(drain_in_hand(f.w), 3);
	/* A work ended: freed after the loop iteration, not inside. */
	done(&f, w[0]);
	CHECK(!f.freed_early);
	CHECK_INT(f.freed, 0);
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_INT(f.freed, 1);
	/* Resting, a work that ends claims nothing (no look_after_each). */
	CHECK_INT(f.claims, 2);
	/* A full batch: more may be due, and there is no room: it waits,
	 * and claims when a work ends. */
	drain_wake(f.w);
	CHECK_INT(f.claims, 3);
	CHECK_INT(f.asked, 2);
	answer(&f, 2, w + 3);
	CHECK_INT(drain_in_hand(f.w), 4);
	CHECK_INT(f.claims, 3);
	done(&f, w[1]);
	CHECK_INT(f.claims, 4);
	CHECK_INT(f.asked, 1);
	/* The database failed: it rests until woken again. */
	drain_claimed(f.w, NULL, 0, true);
	done(&f, w[2]);
	CHECK_INT(f.claims, 4);
	/* robotd stops: works that come after are freed unstarted. */
	drain_wake(f.w);
	CHECK_INT(f.claims, 5);
	drain_stop(d);
	answer(&f, 1, w + 5);
	CHECK_INT(f.started, 5);
	drain_wake(f.w);
	CHECK_INT(f.claims, 5);
	event_base_loop(base, EVLOOP_NONBLOCK);
	drain_free(d);
	CHECK_INT(f.freed, 6);
	event_base_free(base);
}

static void
test_one_at_a_time(void)
{
	struct event_base *base = event_base_new();
	struct drain *d = drain_new(base, NULL);
	struct fake f = {0};
	struct work *w[4];

	f.w = drain_add(d, &one_ops, &f);
	/* NULL (a reconnect) wakes every worker. */
	CHECK(drain_notify(d, NULL));
	CHECK_INT(f.asked, 1);
	/* One a claim; a full answer claims the next while there is room. */
	answer(&f, 1, w);
	CHECK_INT(f.claims, 2);
	answer(&f, 1, w + 1);
	CHECK_INT(f.claims, 2); /* no room: waiting */
	done(&f, w[0]);
	CHECK_INT(f.claims, 3);
	answer(&f, 0, w + 2);
	/* Resting: with look_after_each, a work that ends claims. */
	done(&f, w[1]);
	CHECK_INT(f.claims, 4);
	answer(&f, 0, w + 2);
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_INT(f.freed, 2);
	drain_free(d);
	event_base_free(base);
}

/* A claim of one answered by drain_claimed_one(): the work is started;
 * none, the worker rests; the database's problem, it rests until woken
 * (and the problem is logged). */
static void
test_claimed_one(void)
{
	struct event_base *base = event_base_new();
	struct drain *d = drain_new(base, NULL);
	struct fake f = {0};
	struct work *k;
	struct problem *p;

	f.w = drain_add(d, &one_ops, &f);
	CHECK(drain_notify(d, ":one"));
	CHECK_INT(f.claims, 1);
	k = work_new(&f);
	drain_claimed_one(f.w, k, NULL);
	CHECK_INT(f.started, 1);
	CHECK_INT(f.claims, 2); /* room for one more: it claims again */
	drain_claimed_one(f.w, NULL, NULL);
	CHECK_INT(drain_in_hand(f.w), 1);
	done(&f, k);
	CHECK_INT(f.claims, 3); /* look_after_each */
	p = problem_new(PROBLEM_INTERNAL, NULL, "the database is gone");
	drain_claimed_one(f.w, NULL, p);
	problem_free(p);
	CHECK_INT(f.claims, 3);
	drain_wake(f.w);
	CHECK_INT(f.claims, 4);
	drain_claimed_one(f.w, NULL, NULL);
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_INT(f.freed, 1);
	drain_free(d);
	event_base_free(base);
}

static int deferred;

static void
count(void *arg)
{
	(void)arg;
	deferred++;
}

static void
test_defer(void)
{
	struct event_base *base = event_base_new();

	defer(base, count, NULL);
	defer(base, count, NULL);
	CHECK_INT(deferred, 0);
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_INT(deferred, 2);
	event_base_free(base);
}

/* A defer_list: its calls after the loop iteration, in order, those
 * they add in the same turn; what is still waiting at its free, then. */
static char order[16];
static struct defer_list *list;

static void
note(void *arg)
{
	size_t n = strlen(order);

	order[n] = *(const char *)arg;
	if (order[n] == 'b')
		defer_add(list, note, "c");
}

static void
test_defer_list(void)
{
	struct event_base *base = event_base_new();

	list = defer_list_new(base);
	defer_add(list, note, "a");
	defer_add(list, note, "b");
	CHECK_STR(order, "");
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_STR(order, "abc");
	defer_add(list, note, "d");
	defer_list_free(list);
	CHECK_STR(order, "abcd");
	event_base_free(base);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_batches),     TAP_CASE(test_one_at_a_time),
		TAP_CASE(test_defer),       TAP_CASE(test_defer_list),
		TAP_CASE(test_claimed_one), {NULL, NULL},
	};

	return tap_run(cases);
}

/*
 * bench_compare.c: how long the comparison engine takes for many metrics.
 *
 * Compares N metrics (default 10,000) with 10 runs per side, as a series
 * with N stats per result document does, and prints the time per
 * comparison of the whole set and per metric, for N, 2N and 4N metrics
 * (the cost should grow linearly).  Single thread.
 *
 * Usage: bench_compare [N] [REPEATS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/analysis/comparison.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/result.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A metric name like LKP's: monitors, devices, the test's own. */
static char *
metric_name(size_t i)
{
	static const char *const prefixes[] = {"proc-vmstat.",   "iostat.loop",
					       "vmstat.system.", "meminfo.",
					       "fsmark.time.",   "perf-stat."};
	char buf[128];

	if (i == 0)
		return strdup("fsmark.files_per_sec");
	if (i % 6 == 1)
		snprintf(buf, sizeof buf, "iostat.loop%zu.wkB/s", i);
	else
		snprintf(buf, sizeof buf, "%smetric_%zu", prefixes[i % 6], i);
	return strdup(buf);
}

static double
run(size_t nmetrics, int repeats, struct direction_table *dt)
{
	struct result base[10], head[10];
	const struct result *bp[10], *hp[10];
	char **names = calloc(nmetrics, sizeof *names);
	struct compare_options opt;
	double best = 1e9;
	unsigned seed = 1;

	compare_options_init(&opt);
	for (size_t i = 0; i < nmetrics; i++)
		names[i] = metric_name(i);
	for (int r = 0; r < 10; r++) {
		for (int side = 0; side < 2; side++) {
			struct result *x = side ? &head[r] : &base[r];

			memset(x, 0, sizeof *x);
			x->status = RESULT_OK;
			x->commit = side ? "head" : "base";
			x->stats = calloc(nmetrics, sizeof *x->stats);
			x->nstats = nmetrics;
			for (size_t i = 0; i < nmetrics; i++) {
				x->stats[i].name = names[i];
				x->stats[i].value =
					1000 + (rand_r(&seed) % 100) +
					(side && i % 50 == 0 ? 200 : 0);
			}
		}
		bp[r] = &base[r];
		hp[r] = &head[r];
	}
	for (int k = 0; k < repeats; k++) {
		struct errlist el;
		struct comparison *c;
		double t0, t;

		errlist_init(&el);
		t0 = now();
		c = comparison_new("bench/defaults/box", bp, 10, hp, 10, &opt,
				   dt, "fsmark.", &el);
		t = now() - t0;
		if (t < best)
			best = t;
		comparison_free(c);
		errlist_release(&el);
	}
	for (int r = 0; r < 10; r++) {
		free(base[r].stats);
		free(head[r].stats);
	}
	for (size_t i = 0; i < nmetrics; i++)
		free(names[i]);
	free(names);
	return best;
}

int
main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	int repeats = argc > 2 ? atoi(argv[2]) : 20;
	struct direction_table *dt = direction_table_new();

	printf("comparison of one series, 10 runs per side, best of %d:\n",
	       repeats);
	for (size_t k = 1; k <= 4; k *= 2) {
		double t = run(n * k, repeats, dt);

		printf("  %7zu metrics: %8.2f ms  (%.2f us per metric)\n",
		       n * k, t * 1000, t * 1e6 / (double)(n * k));
	}
	direction_table_free(dt);
	return 0;
}

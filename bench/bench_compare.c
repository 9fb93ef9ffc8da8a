/*
 * bench_compare.c: how long the comparison engine takes for many metrics.
 *
 * Compares N metrics with 10 runs per side, as a series with N stats per
 * result document does (LKP's matrix: 1,000, 10,000 and 100,000 metrics
 * by default), in process: comparison_new() from the runs' stats to every
 * metric's verdict.  Names like LKP's (bench/make_docs.py's), values with
 * 2% noise and every 50th metric 20% up on the head.  Prints the median
 * and the best of REPEATS, and the time per metric.  Single thread.
 *
 * Usage: bench_compare [REPEATS [N...]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/analysis/comparison.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/result.h"

#define RUNS 10

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
	static const char *const prefixes[] = {
		"proc-vmstat.", "iostat.loop0.", "vmstat.system.",
		"meminfo.",     "fsmark.time.",  "perf-stat."};
	char buf[128];

	if (i == 0)
		return strdup("fsmark.files_per_sec");
	if (i % 6 == 1)
		snprintf(buf, sizeof buf, "iostat.loop%zu.m%zu.wkB/s", i % 8,
			 i);
	else
		snprintf(buf, sizeof buf, "%smetric_%zu", prefixes[i % 6], i);
	return strdup(buf);
}

static double
uniform(unsigned *seed)
{
	return (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);
}

static double
gauss(unsigned *seed)
{
	return sqrt(-2 * log(uniform(seed))) * cos(2 * M_PI * uniform(seed));
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
run(size_t nmetrics, int repeats, struct direction_table *dt)
{
	struct result base[RUNS], head[RUNS];
	const struct result *bp[RUNS], *hp[RUNS];
	char **names = calloc(nmetrics, sizeof *names);
	double *level = calloc(nmetrics, sizeof *level);
	double *times = calloc((size_t)repeats, sizeof *times);
	struct compare_options opt;
	unsigned seed = 1;
	size_t changed = 0;

	compare_options_init(&opt);
	for (size_t i = 0; i < nmetrics; i++) {
		names[i] = metric_name(i);
		level[i] = pow(10, (double)(rand_r(&seed) % 9)) *
			   (1 + uniform(&seed));
	}
	for (int r = 0; r < RUNS; r++) {
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
					level[i] * (1 + 0.02 * gauss(&seed)) *
					(side && i % 50 == 0 ? 1.2 : 1);
			}
		}
		bp[r] = &base[r];
		hp[r] = &head[r];
	}
	for (int k = 0; k < repeats; k++) {
		struct errlist el;
		struct comparison *c;
		double t0;

		errlist_init(&el);
		t0 = now();
		c = comparison_new("bench/defaults/box", bp, RUNS, hp, RUNS,
				   &opt, dt, "fsmark.", &el);
		times[k] = now() - t0;
		changed = 0;
		for (size_t i = 0; i < c->nmetrics; i++)
			changed += compare_verdict_is_change(
				c->metrics[i].r.verdict);
		comparison_free(c);
		errlist_release(&el);
	}
	qsort(times, (size_t)repeats, sizeof *times, cmp_double);
	printf("  %7zu metrics: median %8.2f ms, best %8.2f ms  (%.3f us a "
	       "metric; %zu changed)\n",
	       nmetrics, times[repeats / 2] * 1000, times[0] * 1000,
	       times[repeats / 2] * 1e6 / (double)nmetrics, changed);
	for (int r = 0; r < RUNS; r++) {
		free(base[r].stats);
		free(head[r].stats);
	}
	for (size_t i = 0; i < nmetrics; i++)
		free(names[i]);
	free(names);
	free(level);
	free(times);
}

int
main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 11;
	struct direction_table *dt = direction_table_new();

	if (repeats < 1)
		repeats = 1;
	printf("the comparison engine, one series, %d runs a side, %d "
	       "repeats:\n",
	       RUNS, repeats);
	if (argc > 2)
		for (int i = 2; i < argc; i++)
			run(strtoul(argv[i], NULL, 10), repeats, dt);
	else
		for (size_t n = 1000; n <= 100000; n *= 10)
			run(n, repeats, dt);
	direction_table_free(dt);
	return 0;
}

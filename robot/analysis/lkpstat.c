/*
 * lkpstat.c: LKP's changed-stat rule.
 *
 * Followed step by step from lib/stats.rb (StatCompare#process), so that
 * the names of the steps there can be found here: skip_stat,
 * calculate_matrix_values, changed_stats, skip_critical_stat,
 * calc_stats_metrics, skip_small_change.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/lkpstat.h"
#include "robot/analysis/workloads.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define MARGIN_SHIFT 5
#define MAX_RATIO    5.0

/* The monitors and tests whose stats LKP counts as perf metrics. */
static const char *const perf_prefixes[] = {
	"iostat.", "proc-vmstat.", "vmstat.cpu.", "vmstat.io.", "vmstat.swap.",
	"vmstat.system.", "perf-stat.", "pmeter.", "energy.", "boot-time.",
	"boot-slabinfo.",
	/* tests (LKP adds every performance test's prefix; robot's own
	 * workloads are workloads.h's) */
	"fxmark.", "fio.", "aim7.", "dbench.", "filebench.", "will-it-scale.",
	"vm-scalability.", "stress-ng.", "reaim.", "postmark.",
	"sysbench-fileio.", NULL};

bool
lkpstat_is_function_stat(const char *name)
{
	static const char *const prefixes[] = {"dmesg.", "kmsg.", "last_state.",
					       "stderr.", NULL};

	if (strstr(name, ".time.") || strstr(name, ".timestamp:") ||
	    strstr(name, ".bootstage:"))
		return false;
	for (size_t i = 0; prefixes[i] != NULL; i++)
		if (str_has_prefix(name, prefixes[i]))
			return true;
	return str_has_suffix(name, ".fail") || str_has_suffix(name, ".pass") ||
	       str_has_suffix(name, ".error") || str_has_suffix(name, ".warn");
}

bool
lkpstat_is_perf_metric(const char *name)
{
	if (workload_of_metric(name) != NULL)
		return true;
	for (size_t i = 0; perf_prefixes[i] != NULL; i++)
		if (str_has_prefix(name, perf_prefixes[i]))
			return true;
	return false;
}

struct summary {
	double *sorted; /* owned */
	size_t n;
	double min, mean, max; /* mean: LKP's, the upper median */
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* LKP's StatSummary: sort, drop size >> 5 (at most max_margin) each end. */
static void
summarize(const double *v, size_t n, size_t cols, size_t max_margin,
	  struct summary *s)
{
	size_t total = n > cols ? n : cols, margin = total >> MARGIN_SHIFT;
	double *all = xcalloc(total, sizeof *all);

	memcpy(all, v, n * sizeof *v); /* missing runs count as 0, as LKP */
	qsort(all, total, sizeof *all, cmp_double);
	if (margin > max_margin)
		margin = max_margin;
	s->n = total > 2 * margin ? total - 2 * margin : 0;
	s->sorted = xcalloc(s->n + 1, sizeof *s->sorted);
	memcpy(s->sorted, all + margin, s->n * sizeof *all);
	free(all);
	if (s->n == 0) {
		s->min = s->mean = s->max = 0;
		return;
	}
	s->min = s->sorted[0];
	s->mean = s->sorted[s->n / 2];
	s->max = s->sorted[s->n - 1];
}

static const struct lkpstat_stat *
find(const struct lkpstat_stat *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0)
			return &m[i];
	return NULL;
}

static size_t
cols_of(const struct lkpstat_stat *m, size_t n)
{
	size_t a, b;

	if (n == 0)
		return 0;
	a = m[0].n;
	b = m[n - 1].n;
	return a > b ? a : b;
}

static bool
gap(const struct summary *a, const struct summary *b, double g)
{
	if (b->min > a->max && (b->min - a->max) > (b->mean - a->mean) * g)
		return true;
	return a->min > b->max && (a->min - b->max) > (a->mean - b->mean) * g;
}

/* LKP::ChangedStat#change? */
static bool
changed_stat(const struct summary *a, const struct summary *b,
	     struct lkpstat_options *opt)
{
	opt->gap_distance_set = true;
	if (opt->has_distance) {
		if ((a->min - b->max == 1 || b->min - a->max == 1) &&
		    a->max == floor(a->max))
			return false;
		if (a->n < 3 || b->n < 3) {
			double la = a->max - a->min, lb = b->max - b->min;
			double min_gap = (la > lb ? la : lb) * opt->distance;

			return b->min - a->max > min_gap ||
			       a->min - b->max > min_gap;
		}
		return (b->min > a->max &&
			(b->min - a->max) > (b->mean - a->mean) / 2) ||
		       (a->min > b->max &&
			(a->min - b->max) > (a->mean - b->mean) / 2);
	}
	return (b->min > a->mean && b->mean > a->max) ||
	       (a->min > b->mean && a->mean > b->max);
}

static bool
changed_perf_stat(const struct summary *a, const struct summary *b,
		  struct lkpstat_options *opt)
{
	if (opt->has_variance) {
		double la = a->max - a->min, lb = b->max - b->min;

		return la * b->mean > opt->variance * lb * a->mean ||
		       lb * a->mean > opt->variance * la * b->mean;
	}
	if (opt->has_gap)
		return gap(a, b, opt->gap);
	return changed_stat(a, b, opt);
}

/* LKP's skip_function_stat?: a .fail without .pass in the base, ... */
static bool
skip_function_stat(const char *k, const struct lkpstat_stat *b, size_t nb)
{
	static const char *const always[] = {"dmesg.", "kmsg.", "last_state.",
					     "stderr.", NULL};
	const char *dot = strrchr(k, '.');
	size_t base_len = dot ? (size_t)(dot - k) : strlen(k);
	char *want;
	bool skip = false;

	for (size_t i = 0; always[i] != NULL; i++)
		if (str_has_prefix(k, always[i]))
			return false;
	if (str_has_suffix(k, ".error") || str_has_suffix(k, ".warn") ||
	    str_has_suffix(k, ".fail")) {
		want = xasprintf("%.*s.pass", (int)base_len, k);
		skip = find(b, nb, want) == NULL;
		free(want);
	} else if (str_has_suffix(k, ".pass")) {
		static const char *const sfx[] = {"error", "warn", "fail",
						  NULL};

		skip = true;
		for (size_t i = 0; sfx[i] != NULL; i++) {
			want = xasprintf("%.*s.%s", (int)base_len, k, sfx[i]);
			if (find(b, nb, want) != NULL)
				skip = false;
			free(want);
		}
	}
	return skip;
}

/* LKP's reasonable_perf_change? with the thresholds it knows. */
static bool
reasonable(const char *k, double delta, double max, double threshold)
{
	if (threshold > 0) {
		if (max < threshold)
			return false;
		if (delta < threshold / 2 && threshold == floor(threshold))
			return false;
		return true;
	}
	if (str_has_prefix(k, "iostat"))
		return max > 1;
	if (str_has_prefix(k, "pagetypeinfo") ||
	    str_has_prefix(k, "buddyinfo") || str_has_prefix(k, "slabinfo"))
		return delta > 100;
	if (str_has_prefix(k, "proc-vmstat") || strstr(k, "meminfo"))
		return max > 1000;
	if (str_has_prefix(k, "interrupts") || str_has_prefix(k, "softirqs"))
		return max > 10000;
	return true;
}

/* StatCompare#process for stat k; true with *c filled if it changed. */
static bool
process(const char *k, const struct lkpstat_stat *ak, size_t cols_a,
	const struct lkpstat_stat *b, size_t nb, size_t cols_b,
	struct lkpstat_options *opt, double (*abs_floor_of)(const char *),
	struct lkpstat_change *c)
{
	bool fn = lkpstat_is_function_stat(k);
	const struct lkpstat_stat *bk = find(b, nb, k);
	struct summary sa, sb;
	size_t max_margin = fn ? 0 : 3;
	double high_min, low_max, high_mean, low_mean;
	bool changed;

	/* skip_stat */
	if (fn) {
		if (skip_function_stat(k, b, nb))
			return false;
	} else if (cols_a < 3 && cols_b < 3) {
		return false;
	}
	if (bk == NULL && !fn)
		return false;
	/* calculate_matrix_values */
	summarize(bk ? bk->v : NULL, bk ? bk->n : 0, cols_b, max_margin, &sb);
	if (sb.n == 0) {
		free(sb.sorted);
		return false;
	}
	if ((bk ? (bk->n > cols_b ? bk->n : cols_b) : cols_b) <= 3 &&
	    max_margin > 1)
		max_margin = 1;
	summarize(ak->v, ak->n, cols_a, max_margin, &sa);
	if (sa.n == 0) {
		free(sa.sorted);
		free(sb.sorted);
		return false;
	}
	/* changed_stats */
	changed = fn ? sa.max != sb.max : changed_perf_stat(&sa, &sb, opt);
	/* skip_critical_stat */
	if (changed && (opt->regression_only) && fn) {
		if (sa.max == 0) {
			if (str_has_prefix(k, "dmesg."))
				opt->has_boot_fix = true;
			changed = false;
		} else if (opt->has_boot_fix && str_has_prefix(k, "kmsg.")) {
			changed = false;
		}
	}
	if (!changed) {
		free(sa.sorted);
		free(sb.sorted);
		return false;
	}
	/* calc_stats_metrics */
	memset(c, 0, sizeof *c);
	c->max = sb.max > sa.max ? sb.max : sa.max;
	c->x = sa.max - sa.min;
	c->z = sb.max - sb.min;
	if (sa.n <= 2 && c->x < c->z)
		c->x = c->z;
	if (sa.mean > sb.mean) {
		high_min = sa.min;
		low_max = sb.max;
		high_mean = sa.mean;
		low_mean = sb.mean;
	} else {
		high_min = sb.min;
		low_max = sa.max;
		high_mean = sb.mean;
		low_mean = sa.mean;
	}
	c->y = high_min - low_max;
	c->delta = high_mean - low_mean;
	c->ratio = low_mean > 0 ? high_mean / low_mean : MAX_RATIO;
	if (c->y < 0)
		c->y = 0;
	if (c->ratio > MAX_RATIO)
		c->ratio = MAX_RATIO;
	/* skip_small_change */
	if (!(c->ratio > 1.01) ||
	    !(c->ratio > 1.05 || lkpstat_is_perf_metric(k)) ||
	    !reasonable(k, c->delta, c->max,
			abs_floor_of ? abs_floor_of(k) : 0)) {
		free(sa.sorted);
		free(sb.sorted);
		return false;
	}
	c->stat = k;
	snprintf(c->interval, sizeof c->interval,
		 "[ %-10.5g - %-10.5g ] -- [ %-10.5g - %-10.5g ]", sa.min,
		 sa.max, sb.min, sb.max);
	c->a = sa.sorted;
	c->na = sa.n;
	c->b = sb.sorted;
	c->nb = sb.n;
	c->is_function_stat = fn;
	c->is_latency = false;
	c->mean_a = sa.mean;
	c->mean_b = sb.mean;
	c->min_a = sa.min;
	c->max_a = sa.max;
	c->min_b = sb.min;
	c->max_b = sb.max;
	c->nr_run = ak->n > cols_a ? ak->n : cols_a;
	return true;
}

struct lkpstat_change *
lkpstat_compare(const struct lkpstat_stat *a, size_t na,
		const struct lkpstat_stat *b, size_t nb,
		struct lkpstat_options *opt,
		double (*abs_floor_of)(const char *), size_t *n)
{
	size_t cols_a = cols_of(a, na), cols_b = cols_of(b, nb), count = 0;
	struct lkpstat_change *out = NULL;

	*n = 0;
	if (opt->has_variance && (cols_a < 10 || cols_b < 10))
		return NULL;
	/* Stats of a, then those only b has (a gets zeros for them). */
	for (size_t i = 0; i < na + nb; i++) {
		struct lkpstat_stat zero, *ak;
		struct lkpstat_change c;
		double *zeros = NULL;

		if (i < na) {
			ak = (struct lkpstat_stat *)&a[i];
		} else {
			if (find(a, na, b[i - na].name) != NULL)
				continue;
			zeros = xcalloc(cols_a + 1, sizeof *zeros);
			zero = (struct lkpstat_stat){b[i - na].name, zeros,
						     cols_a};
			ak = &zero;
		}
		if (process(ak->name, ak, cols_a, b, nb, cols_b, opt,
			    abs_floor_of, &c)) {
			out = xreallocarray(out, count + 1, sizeof *out);
			out[count++] = c;
		}
		free(zeros);
	}
	*n = count;
	return out;
}

void
lkpstat_changes_free(struct lkpstat_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].a);
		free(c[i].b);
	}
	free(c);
}

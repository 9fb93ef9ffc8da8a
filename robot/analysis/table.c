/*
 * table.c: the ncompare table.
 *
 * The widths are LKP's (lib/compare.rb): ABS_WIDTH 10 for means,
 * REL_WIDTH 10 for changes, ERR_WIDTH 6 for the " +-NN%" cell; the first
 * commit is cut to 16 characters, the others to 27.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/table.h"
#include "robot/analysis/workloads.h"
#include "robot/core/buf.h"
#include "robot/core/num.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6

void
table_print_header(FILE *fp, const char *base_commit, const char *head_commit)
{
	int first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;

	fprintf(fp, "%*.*s ", first, first, base_commit ? base_commit : "");
	fprintf(fp, "%*.*s \n", width, width, head_commit ? head_commit : "");
	for (int i = 0; i < first; i++)
		fputc('-', fp);
	fputc(' ', fp);
	for (int i = 0; i < width; i++)
		fputc('-', fp);
	fputs(" \n", fp);
	fputs("         %stddev     %change         %stddev\n", fp);
	fputs("             \\          |                \\  \n", fp);
}

/* Ruby's "%d" of a Float truncates toward zero. */
static long long
ruby_int(double d)
{
	if (d >= 9.2e18)
		return 9200000000000000000LL;
	if (d <= -9.2e18)
		return -9200000000000000000LL;
	return (long long)d;
}

static void
print_avg(FILE *fp, double avg, double stddev, size_t n)
{
	double pct;

	if (fabs(avg) < 1000)
		fprintf(fp, "%*.2f", ABS_WIDTH, avg);
	else if (fabs(avg) > 100000000)
		fprintf(fp, "%*.4g", ABS_WIDTH, avg);
	else
		fprintf(fp, "%*lld", ABS_WIDTH, ruby_int(avg));
	/* LKP has no stddev for a single run (-1), hence no cell. */
	pct = n > 1 ? (avg != 0 ? 100 * stddev / avg : stddev) : -1;
	if (pct > 2)
		fprintf(fp, " \xc2\xb1%*lld%%", ERR_WIDTH - 3, ruby_int(pct));
	else
		fprintf(fp, "%*s", ERR_WIDTH, "");
}

static bool
absolute_change(const char *metric)
{
	return str_has_prefix(metric, "perf-profile") ||
	       str_has_suffix(metric, "%");
}

void
table_print_row(FILE *fp, const char *metric, const struct compare_result *r)
{
	double p;

	print_avg(fp, r->base.mean, r->base.stddev, r->base.n);
	if (absolute_change(metric)) {
		p = r->head.mean - r->base.mean;
		fprintf(fp, fabs(p) < 100000 ? "%+*.1f  " : "%+*.2g  ",
			REL_WIDTH, p);
	} else {
		/* LKP divides by 1e-100 for a zero base: a huge change. */
		double base = r->base.mean == 0 ? 1e-100 : r->base.mean;

		p = 100.0 * (r->head.mean - r->base.mean) / base;
		if (!isfinite(p))
			p = p > 0 ? 1e300 : -1e300;
		fprintf(fp, fabs(p) < 100000 ? "%+*.1f%% " : "%+*.2g%% ",
			REL_WIDTH, p);
	}
	print_avg(fp, r->head.mean, r->head.stddev, r->head.n);
	fprintf(fp, "  %s\n", metric);
}

struct row {
	const struct comparison_metric *m;
	const char *base; /* the part before the first '.' */
	size_t base_len;
	int order; /* LKP's stat_base_map value */
};

/* Whether a stat's base is a test's: a workload's, or LKP's name of
 * dd's testcase. */
static bool
is_test(const char *base, size_t len)
{
	return workload_named(base, len) != NULL ||
	       (len == 8 && strncmp(base, "dd-write", len) == 0);
}

static int
row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double cx, cy;
	int c;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if ((c = strcmp(x->m->name, y->m->name)) != 0)
		return c;
	cx = x->m->r.change_pct;
	cy = y->m->r.change_pct;
	return cx < cy ? -1 : cx > cy;
}

static bool
shown(const struct comparison_metric *m, bool all)
{
	return all || compare_verdict_is_change(m->r.verdict);
}

size_t
table_print(FILE *fp, const struct comparison *c, bool all)
{
	return table_print_rows(fp, c, all, false);
}

size_t
table_print_rows(FILE *fp, const struct comparison *c, bool all,
		 bool workload_only)
{
	struct row *rows = xcalloc(c->nmetrics + 1, sizeof *rows);
	size_t n = 0;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const char *dot;

		if (!shown(m, all))
			continue;
		dot = strchr(m->name, '.');
		rows[n].m = m;
		rows[n].base = m->name;
		rows[n].base_len =
			dot ? (size_t)(dot - m->name) : strlen(m->name);
		n++;
	}
	/* LKP: each base counts its rows; a test's own base counts 0.
	 * Rows sorted by name have each base's rows together. */
	qsort(rows, n, sizeof *rows, row_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && rows[j].base_len == rows[i].base_len &&
		       strncmp(rows[j].base, rows[i].base, rows[i].base_len) ==
			       0)
			j++;
		for (size_t k = i; k < j; k++)
			rows[k].order = is_test(rows[i].base, rows[i].base_len)
						? 0
						: (int)(j - i);
		i = j;
	}
	qsort(rows, n, sizeof *rows, row_cmp);
	if (workload_only) { /* the workload's rows: order 0, first */
		size_t k = 0;

		while (k < n && rows[k].order == 0 &&
		       is_test(rows[k].base, rows[k].base_len))
			k++;
		n = k;
	}
	table_print_header(fp, c->base.commit, c->head.commit);
	for (size_t i = 0; i < n; i++)
		table_print_row(fp, rows[i].m->name, &rows[i].m->r);
	free(rows);
	return n;
}

const char *
table_metric_kind(const char *metric)
{
	static const struct {
		const char *prefix, *kind;
	} kinds[] = {{"perf-profile.", "profile"},
		     {"perf-stat.", "profile"},
		     {"meminfo.", "memory"},
		     {"proc-vmstat.", "memory"},
		     {"vmstat.memory.", "memory"},
		     {"slabinfo.", "memory"},
		     {"numa-", "memory"},
		     {"buddyinfo.", "memory"},
		     {"iostat.", "I/O"},
		     {"vmstat.io.", "I/O"},
		     {"diskstats.", "I/O"},
		     {"vmstat.swap.", "I/O"},
		     {"vmstat.cpu.", "CPU"},
		     {"vmstat.system.", "CPU"},
		     {"vmstat.procs.", "CPU"},
		     {"mpstat.", "CPU"},
		     {"interrupts.", "CPU"},
		     {"softirqs.", "CPU"},
		     {"sched_debug.", "CPU"},
		     {"cpuidle.", "CPU"},
		     {"turbostat.", "CPU"},
		     {"latency_stats.", "CPU"},
		     {NULL, NULL}};
	const char *dot = strchr(metric, '.');

	if (is_test(metric, dot ? (size_t)(dot - metric) : strlen(metric)))
		return NULL;
	for (size_t i = 0; kinds[i].prefix != NULL; i++)
		if (str_has_prefix(metric, kinds[i].prefix))
			return kinds[i].kind;
	return "other";
}

static const char *const moved_kinds[] = {"profile", "memory", "I/O",
					  "CPU",     "other",  NULL};

static int
kind_place(const char *kind)
{
	int i = 0;

	while (moved_kinds[i + 1] != NULL && strcmp(moved_kinds[i], kind) != 0)
		i++;
	return i;
}

static int
moved_by_size(const void *a, const void *b)
{
	const struct table_moved *x = a, *y = b;

	if (x->times != y->times)
		return x->times > y->times ? -1 : 1;
	return strcmp(x->m->name, y->m->name);
}

static int
moved_by_kind(const void *a, const void *b)
{
	const struct table_moved *x = a, *y = b;
	int gx = kind_place(x->kind), gy = kind_place(y->kind);

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return moved_by_size(a, b);
}

static double
square(double sd)
{
	return isfinite(sd) ? sd * sd : 0;
}

/* Whether y moved alike with x: of its kind, by the same change (to a
 * tenth of a point, or 0.5% of it) and as many times its noise (to 5%):
 * LKP's counts of one quantity under several names (meminfo.Shmem and
 * proc-vmstat.nr_shmem), or limits set together. */
static bool
alike(const struct table_moved *x, const struct table_moved *y)
{
	const struct compare_result *a = &x->m->r, *b = &y->m->r;
	double tol = fmax(0.1, 0.005 * fabs(a->change_pct));

	if (strcmp(x->kind, y->kind) != 0 || !a->change_defined ||
	    !b->change_defined || fabs(a->change_pct - b->change_pct) > tol)
		return false;
	if (isinf(x->times) || isinf(y->times))
		return isinf(x->times) && isinf(y->times);
	return fabs(y->times / x->times - 1) <= 0.05;
}

size_t
table_moved(const struct comparison *c, struct table_moved *out,
	    size_t *changed)
{
	struct table_moved *v = xcalloc(c->nmetrics + 1, sizeof *v);
	size_t n = 0, shown;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const struct compare_result *r = &m->r;
		const char *kind = table_metric_kind(m->name);
		double noise, d;

		if (kind == NULL || m->kpi ||
		    !compare_verdict_is_change(r->verdict) ||
		    !isfinite(r->base.mean) || !isfinite(r->head.mean) ||
		    (d = fabs(r->head.mean - r->base.mean)) == 0)
			continue;
		noise = sqrt((square(r->base.stddev) + square(r->head.stddev)) /
			     2);
		v[n].m = m;
		v[n].kind = kind;
		v[n].times = noise > 0 ? d / noise : INFINITY;
		n++;
	}
	qsort(v, n, sizeof *v, moved_by_size);
	/* Largest first; one that moved alike with a row taken goes with it
	 * instead of taking a row of its own. */
	shown = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < shown && !alike(&v[k], &v[i]))
			k++;
		if (k < shown) {
			if (v[k].nalike < TABLE_ALIKE)
				v[k].alike[v[k].nalike] = v[i].m;
			v[k].nalike++;
		} else if (shown < TABLE_MOVED)
			v[shown++] = v[i];
	}
	qsort(v, shown, sizeof *v, moved_by_kind);
	memcpy(out, v, shown * sizeof *v);
	free(v);
	if (changed != NULL)
		*changed = n;
	return shown;
}

void
table_moved_change(const struct table_moved *t, char *buf, size_t len)
{
	const struct compare_result *r = &t->m->r;

	if (absolute_change(t->m->name))
		snprintf(buf, len, "%+.1f", r->head.mean - r->base.mean);
	else if (r->change_defined)
		num_pct(buf, len, r->change_pct, "?");
	else
		snprintf(buf, len, "from 0");
}

char *
table_moved_alike(const struct table_moved *t)
{
	struct buf b;
	size_t named = t->nalike < TABLE_ALIKE ? t->nalike : TABLE_ALIKE;

	buf_init(&b);
	for (size_t i = 0; i < named; i++)
		buf_addf(&b, "%s%s", i > 0 ? ", " : "", t->alike[i]->name);
	if (t->nalike > named)
		buf_addf(&b, " and %zu more", t->nalike - named);
	return buf_detach(&b);
}

void
table_moved_times(const struct table_moved *t, char *buf, size_t len)
{
	if (isinf(t->times))
		snprintf(buf, len, "no noise");
	else if (t->times >= 1e4)
		snprintf(buf, len, ">9999x");
	else
		snprintf(buf, len, "%.0fx", t->times);
}

size_t
table_print_moved(FILE *fp, const struct comparison *c)
{
	struct table_moved v[TABLE_MOVED];
	size_t n, shown = table_moved(c, v, &n);

	if (shown == 0)
		return 0;
	fprintf(fp,
		"what moved with it (%zu of %zu changed monitor%s, by change "
		"against their noise):\n",
		shown, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < shown; i++) {
		char change[32], times[16];

		table_moved_change(&v[i], change, sizeof change);
		table_moved_times(&v[i], times, sizeof times);
		/* (a name too long for its column, a calltrace's: the
		 * numbers on a line of their own) */
		fprintf(fp, "  %-8s %-38s%s%9s %8s  %s\n",
			i > 0 && strcmp(v[i].kind, v[i - 1].kind) == 0
				? ""
				: v[i].kind,
			v[i].m->name,
			strlen(v[i].m->name) > 38
				? "\n                                      "
				  "           "
				: " ",
			change, times, compare_verdict_name(v[i].m->r.verdict));
		if (v[i].nalike > 0) {
			char *names = table_moved_alike(&v[i]);

			fprintf(fp, "           alike: %s\n", names);
			free(names);
		}
	}
	return shown;
}

/*
 * run.c: a run (/jobs/:id, the twin of /api/jobs/:id): its state, its
 * result first (its KPIs, formatted with their units), its facts and
 * provisioning, its per-second series as charts (dd's throughput per
 * filesystem over time shows erratic writeback; none for a run too
 * short for a line), where its CPUs spent their time when it was
 * profiled (perf-profile), its numbers (KPIs first), and its raw outputs.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "robot/analysis/comparison.h"
#include "robot/analysis/series.h"
#include "robot/analysis/units.h"
#include "robot/analysis/workloads.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/analysis.h"
#include "robot/daemon/store/jobs.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/svg.h"
#include "robot/core/banned.h"

#define RUN_CHARTS      12 /* per-second series drawn; the rest are numbers */
#define RUN_PROFILE     15 /* functions in the profile's table */
#define RUN_MIN_SAMPLES 3  /* a series shorter is no line */
/* What a page shows of a large run (issue 61: a run of 100,000 metrics
 * made a page of 8.7 MB, and one output of 15 MB was printed whole); the
 * rest is in its JSON, /api/jobs/ID. */
#define RUN_NUMBERS      2000  /* rows of its numbers */
#define RUN_OUTPUT_BYTES 65536 /* of each output */
#define RUN_NOT_DRAWN    20    /* series named as not drawn */

/* A number as a person reads it: with its unit when the metric's name
 * tells it (SI prefix: "4.72 kB/s"), else to six digits ("4715.8", not
 * 4715.8000000000002). */
static void
number(struct buf *b, const char *metric, json_t *v)
{
	char s[64];
	const char *unit = unit_of(metric);

	double x = json_number_value(v);

	if (json_is_integer(v) && unit[0] == '\0')
		snprintf(s, sizeof s, "%lld", (long long)json_integer_value(v));
	else if (unit[0] != '\0')
		unit_si(s, sizeof s, x, unit);
	else if (fabs(x) >= 1e6 || (x != 0 && fabs(x) < 1e-4))
		/* (never e-notation: "21416600", "0.0000123") */
		snprintf(s, sizeof s, fabs(x) >= 1e6 ? "%.0f" : "%.7f", x);
	else
		snprintf(s, sizeof s, "%.6g", x);
	html_text(b, s);
}

/* The run's numbers: each KPI first (marked), then the rest, by name, at
 * most RUN_NUMBERS rows. */
static void
numbers_table(struct buf *b, json_t *stats, const char *const *kpis,
	      size_t nkpis, long long id)
{
	const char *k;
	json_t *v;
	size_t rows = 0;

	buf_adds(b, "<table>\n");
	for (int pass = 0; pass < 2; pass++)
		json_object_foreach(stats, k, v)
		{
			bool kpi = false;

			for (size_t i = 0; i < nkpis && !kpi; i++)
				kpi = strcmp(kpis[i], k) == 0;
			if (kpi != (pass == 0) || rows >= RUN_NUMBERS)
				continue;
			rows++;
			buf_adds(b, "<tr><th scope=\"row\">");
			html_text(b, k);
			buf_adds(b, kpi ? " (KPI)</th><td class=\"num\">"
					: "</th><td class=\"num\">");
			if (json_is_number(v))
				number(b, k, v);
			else if (json_is_string(v))
				html_text(b, json_string_value(v));
			buf_adds(b, "</td></tr>\n");
		}
	buf_adds(b, "</table>\n");
	if (json_object_size(stats) > rows)
		buf_addf(b,
			 "<p class=\"muted\">The first %zu of its %zu numbers; "
			 "<a href=\"/api/jobs/%lld\">its JSON</a> has every "
			 "one.</p>\n",
			 rows, json_object_size(stats), id);
}

/* An output, in <pre>: its first RUN_OUTPUT_BYTES (cut where a character
 * begins), saying how long it is when that is not all of it. */
static void
output_pre(struct buf *b, const char *s, long long id)
{
	size_t len = strlen(s), n = len;
	char *head;

	buf_adds(b, "<pre>");
	if (len <= RUN_OUTPUT_BYTES) {
		html_text(b, s);
		buf_adds(b, "</pre>\n");
		return;
	}
	n = RUN_OUTPUT_BYTES;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	head = xstrndup(s, n);
	html_text(b, head);
	free(head);
	buf_addf(b,
		 "</pre>\n<p class=\"muted\">The first %zu of its %zu bytes; "
		 "<a href=\"/api/jobs/%lld\">its JSON</a> has them all.</p>"
		 "\n",
		 n, len, id);
}

static void
kv_table(struct buf *b, json_t *o)
{
	const char *k;
	json_t *v;

	buf_adds(b, "<table>\n");
	json_object_foreach(o, k, v)
	{
		char *s = json_is_string(v)
				  ? NULL
				  : rjson_dumps(v,
						JSON_COMPACT | JSON_ENCODE_ANY);

		buf_adds(b, "<tr><th scope=\"row\">");
		html_text(b, k);
		buf_adds(b, "</th><td>");
		html_text(b, s ? s : json_string_value(v));
		buf_adds(b, "</td></tr>\n");
		free(s);
	}
	buf_adds(b, "</table>\n");
}

struct self_row {
	const char *key; /* perf-profile.self.EV.F */
	double share;
};

static int
self_row_cmp(const void *a, const void *b)
{
	const struct self_row *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return strcmp(x->key, y->key);
}

/*
 * Where the CPUs spent their time, from a profiled run's perf-profile
 * rows (docs/box.md): the functions with the most samples of their own,
 * each with its share with its callees; all rows stay in the numbers.
 */
static void
profile_section(struct buf *b, json_t *stats)
{
	static const char self[] = "perf-profile.self.";
	struct self_row *rows = NULL;
	size_t n = 0, cap = 0;
	const char *k;
	json_t *v;

	json_object_foreach(stats, k, v)
	{
		if (strncmp(k, self, sizeof self - 1) != 0 ||
		    !json_is_number(v) ||
		    strchr(k + sizeof self - 1, '.') == NULL)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			rows = xreallocarray(rows, cap, sizeof *rows);
		}
		rows[n++] = (struct self_row){k, json_number_value(v)};
	}
	if (n == 0)
		return;
	qsort(rows, n, sizeof *rows, self_row_cmp);
	buf_adds(b, "<h2>Profile</h2>\n<p>Where the CPUs spent their time: "
		    "the functions with the most samples of their own, in "
		    "percent of the samples (");
	{
		const char *ev = rows[0].key + sizeof self - 1;

		buf_add(b, ev, strcspn(ev, "."));
	}
	buf_adds(b, "), and with their callees.</p>\n<div class=\"wide\">"
		    "<table id=\"profile\">\n<tr><th>function</th>"
		    "<th>self</th><th>with callees</th></tr>\n");
	for (size_t i = 0; i < n && i < RUN_PROFILE; i++) {
		const char *ev = rows[i].key + sizeof self - 1;
		const char *fn = strchr(ev, '.') + 1;
		char *children = xasprintf("perf-profile.children.%s", ev);
		json_t *c = json_object_get(stats, children);
		char cell[32];

		buf_adds(b, "<tr><th scope=\"row\">");
		html_text(b, fn);
		snprintf(cell, sizeof cell, "%.2f%%", rows[i].share);
		buf_adds(b, "</th><td class=\"num\">");
		html_text(b, cell);
		buf_adds(b, "</td><td class=\"num\">");
		if (json_is_number(c)) {
			snprintf(cell, sizeof cell, "%.2f%%",
				 json_number_value(c));
			html_text(b, cell);
		}
		buf_adds(b, "</td></tr>\n");
		free(children);
	}
	buf_adds(b, "</table></div>\n");
	free(rows);
}

/* The chart of a group of per-second series (one prefix: "dd.", one
 * column each). */
/* A series' shape in words ("loop0: peak 80 MB/s, trough 20 MB/s,
 * every 20 s"), from the run's stats (metrics_spread()), into b; false
 * when it has none. */
static bool
shape_text(struct buf *b, const char *name, json_t *stats)
{
	char *k = xasprintf("%s.peak", name), peak[32], trough[32];
	json_t *p = json_object_get(stats, k), *t, *period;

	free(k);
	k = xasprintf("%s.trough", name);
	t = json_object_get(stats, k);
	free(k);
	k = xasprintf("%s.period_s", name);
	period = json_object_get(stats, k);
	free(k);
	if (!json_is_number(p) || !json_is_number(t))
		return false;
	unit_si(peak, sizeof peak, json_number_value(p), unit_of(name));
	unit_si(trough, sizeof trough, json_number_value(t), unit_of(name));
	buf_addf(b, "%s: peak %s, trough %s", name, peak, trough);
	if (json_is_number(period))
		buf_addf(b, ", a period of %.3g s", json_number_value(period));
	else
		buf_adds(b, ", no period");
	return true;
}

static void
series_chart(struct buf *b, const char *title, json_t *series, json_t *stats,
	     const char *const *names, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, xmax = 1;
	char desc[256];
	struct buf shapes;
	struct svg *s;

	for (size_t i = 0; i < n; i++) {
		json_t *a = json_object_get(series, names[i]);

		for (size_t k = 0; k < json_array_size(a); k++) {
			double v = json_number_value(json_array_get(a, k));

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		if ((double)json_array_size(a) - 1 > xmax)
			xmax = (double)json_array_size(a) - 1;
	}
	snprintf(desc, sizeof desc,
		 "%s, second by second through the run: %zu line%s, one for "
		 "each series.",
		 title, n, n == 1 ? "" : "s");
	s = svg_new(720, 260, title, desc);
	svg_range(s, 0, xmax, lo, hi);
	svg_yaxis(s, title, unit_of(title));
	svg_xaxis(s, "seconds", "s");
	for (size_t i = 0; i < n; i++) {
		json_t *a = json_object_get(series, names[i]);
		size_t m = json_array_size(a);
		double *x = xcalloc(m + 1, sizeof *x),
		       *y = xcalloc(m + 1, sizeof *y);

		for (size_t k = 0; k < m; k++) {
			x[k] = (double)k;
			y[k] = json_number_value(json_array_get(a, k));
		}
		svg_line(s, (int)i, x, y, m);
		svg_points(s, (int)i, x, y, m, NULL, NULL);
		if (i < 6)
			svg_legend(s, (int)i, names[i]);
		free(x);
		free(y);
	}
	/* The shapes: each series' peak and trough as levels (of the
	 * first few), and in words under the chart. */
	buf_init(&shapes);
	for (size_t i = 0; i < n && i < 6; i++) {
		size_t at = shapes.len;

		if (shapes.len > 0)
			buf_adds(&shapes, "; ");
		if (!shape_text(&shapes, names[i], stats)) {
			shapes.len = at;
			shapes.data[at] = '\0';
			continue;
		}
		for (int k = 0; k < 2; k++) {
			char *key = xasprintf("%s.%s", names[i],
					      k ? "trough" : "peak");
			char *tip = xasprintf("%s of %s", k ? "trough" : "peak",
					      names[i]);

			svg_hline(
				s, (int)i, 0, xmax,
				json_number_value(json_object_get(stats, key)),
				tip);
			free(tip);
			free(key);
		}
	}
	buf_adds(b, "<figure class=\"chart\">");
	svg_finish(s, b);
	buf_adds(b, "<figcaption>");
	html_text(b, desc);
	if (shapes.len > 0) {
		buf_adds(b, " The levels are each series' peak and trough "
			    "(the means of its top and bottom tenths of "
			    "seconds): ");
		html_text(b, shapes.data);
		buf_adds(b, ".");
	}
	buf_adds(b, "</figcaption></figure>\n");
	buf_release(&shapes);
}

/* The chart a per-second series goes in: one per device-less name, so
 * that "dd.loop0.write_bytes_per_sec" and "dd.loop1..." share
 * "dd.*.write_bytes_per_sec". */
static char *
group_of(const char *name)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');

	const struct workload_kind *k = workload_of_metric(name);

	if (((k != NULL && k->per_device) ||
	     strncmp(name, "iostat.", 7) == 0) &&
	    first != NULL && last != NULL && last > first)
		return xasprintf("%.*s.*%s", (int)(first - name), name, last);
	return xstrdup(name);
}

/* The order of the charts: the workloads' own series (each its first
 * chart, then the rest of it, in workloads.h's order), then the disks',
 * then the rest; the most telling first. */
static int
rank_of(const char *group)
{
	static const char *const order[] = {"iostat.*.wkB/s",
					    "iostat.*.util",
					    "iostat.*.w/s",
					    "iostat.*.await",
					    "vmstat.io.bo",
					    "vmstat.cpu.wa",
					    "vmstat.cpu.sy",
					    "vmstat.system.cs",
					    "iostat.",
					    "vmstat.",
					    NULL};

	int rank = 0;

	for (const struct workload_kind *k = workload_kinds; k->name; k++) {
		if (k->first_chart != NULL &&
		    strcmp(group, k->first_chart) == 0)
			return rank;
		rank += k->first_chart != NULL;
		if (strncmp(group, k->prefix, strlen(k->prefix)) == 0)
			return rank;
		rank++;
	}
	for (int i = 0; order[i] != NULL; i++)
		if (strncmp(group, order[i], strlen(order[i])) == 0)
			return rank + i;
	return 99;
}

/* Draws the run's per-second series, grouped, at most RUN_CHARTS
 * charts; names what it does not draw.  The charts drawn. */
static size_t
draw_series(struct buf *b, json_t *series, json_t *stats)
{
	json_t *groups = json_object(), *g;
	const char *k, **keys;
	size_t n = 0, drawn = 0, i, longest = 0;
	json_t *v;

	json_object_foreach(series, k, v)
	{
		char *key = group_of(k);

		if ((g = json_object_get(groups, key)) == NULL) {
			g = json_array();
			json_object_set_new(groups, key, g);
		}
		json_array_append_new(g, json_string(k));
		free(key);
	}
	/* A run too short for a line: its numbers say it all. */
	json_object_foreach(series, k, v)
	{
		if (json_array_size(v) > longest)
			longest = json_array_size(v);
	}
	if (longest < RUN_MIN_SAMPLES) {
		if (json_object_size(series) > 0)
			buf_addf(b,
				 "<p class=\"muted\">The run was too short for "
				 "charts (%zu sample%s a second); its numbers "
				 "are below.</p>\n",
				 longest, longest == 1 ? "" : "s");
		json_decref(groups);
		return 0;
	}
	keys = xcalloc(json_object_size(groups) + 1, sizeof *keys);
	json_object_foreach(groups, k, g) keys[n++] = k;
	/* A stable insertion sort by rank: few groups. */
	for (i = 1; i < n; i++)
		for (size_t j = i;
		     j > 0 && rank_of(keys[j - 1]) > rank_of(keys[j]); j--) {
			const char *t = keys[j];

			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	for (i = 0; i < n && drawn < RUN_CHARTS; i++, drawn++) {
		json_t *names = json_object_get(groups, keys[i]);
		size_t m = json_array_size(names);
		const char **list = xcalloc(m + 1, sizeof *list);

		for (size_t j = 0; j < m; j++)
			list[j] = json_string_value(json_array_get(names, j));
		series_chart(b, keys[i], series, stats, list, m);
		free(list);
	}
	if (i < n) {
		size_t named = 0;

		buf_adds(b, "<p class=\"muted\">Not drawn (their numbers are "
			    "below): ");
		for (; i < n && named < RUN_NOT_DRAWN; i++, named++) {
			html_text(b, keys[i]);
			buf_adds(b, i + 1 < n ? ", " : ".");
		}
		if (i < n)
			buf_addf(b, "and %zu more.", n - i);
		buf_adds(b, "</p>\n");
	}
	free(keys);
	json_decref(groups);
	return drawn;
}

#define RUN_KPIS 8

/* A run asked for, its page or its JSON: a large answer
 * (web_heavy_begin()), its page made on the writer's thread from the
 * store's text and answered on the loop. */
struct ask {
	struct web *w;
	struct http_req *req;
	char *text;     /* the store's, until the page is made from it */
	int status;     /* 200, or 500 when it did not decode */
	bool final;     /* a run that ended: cacheable, etag */
	char etag[96];  /* (final) */
	char *title;    /* (200) */
	struct buf out; /* the body, or why it did not decode */
};

/* The run's KPIs (comparison_is_kpi() of its workload's prefix), at
 * most max, into kpis (borrowed from its stats); how many. */
static size_t
run_kpis(struct web *w, const struct store_job *j, const char **kpis,
	 size_t max)
{
	char prefix[64];
	const char *k;
	json_t *v;
	size_t n = 0;

	if (!series_kpi_prefix_of((json_t *)j->job, j->key,
				  catalog_testcase_workload, prefix,
				  sizeof prefix))
		return 0;
	json_object_foreach((json_t *)j->result.stats, k, v)
	{
		if (n < max && json_is_number(v) &&
		    comparison_is_kpi(analysis_directions(w->d.analysis), k,
				      prefix))
			kpis[n++] = k;
	}
	return n;
}

/* What the run measured, first: its KPIs, formatted, and a failure's
 * reason. */
static void
result_section(struct buf *b, const struct store_job_result *r,
	       const char *const *kpis, size_t n)
{
	if (n == 0 && r->error == NULL)
		return;
	buf_adds(b, "<h2>Result</h2>\n");
	if (r->error != NULL) {
		buf_adds(b, "<p class=\"state-new\">");
		html_text(b, r->error);
		buf_adds(b, "</p>\n");
	}
	if (n == 0)
		return;
	buf_adds(b, "<table>\n");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "<tr><th scope=\"row\">");
		html_text(b, kpis[i]);
		buf_adds(b, "</th><td class=\"num\"><strong>");
		number(b, kpis[i], json_object_get(r->stats, kpis[i]));
		buf_adds(b, "</strong></td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* The run's record: its state, series, commit, box, error, times, and
 * which run of how many. */
static void
record(struct buf *b, const struct store_job *j)
{
	const struct {
		const char *label, *value;
	} rows[] = {
		{"state", j->state},     {"series", j->series},
		{"commit", j->commit},   {"box", j->box},
		{"error", j->error},     {"created", j->created},
		{"updated", j->updated},
	};

	buf_adds(b, "<table>\n");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (rows[i].value == NULL)
			continue;
		buf_adds(b, "<tr><th scope=\"row\">");
		html_text(b, rows[i].label);
		buf_adds(b, "</th><td>");
		if (i >= 5) /* created, updated */
			html_time(b, rows[i].value);
		else if (i == 2) /* the commit's page */
			page_link(b, "/commits/", rows[i].value, rows[i].value);
		else
			html_text(b, rows[i].value);
		buf_adds(b, "</td></tr>\n");
	}
	buf_addf(b,
		 "<tr><th scope=\"row\">run</th><td>%lld of %lld, "
		 "attempt %lld</td></tr>\n",
		 j->run, j->runs, j->attempts);
	buf_adds(b, "</table>\n");
	if (j->series != NULL) {
		buf_adds(b, "<p>Its series: ");
		page_series(b, j->series);
		buf_adds(b, " (");
		page_link(b, "/queue?series=", j->series, "its runs");
		buf_adds(b, ")</p>\n");
	}
}

/* Its result document: the KPIs, what the box ran, the box, the
 * per-second series, the profile, every number and the outputs. */
static void
result(struct buf *b, struct web *w, const struct store_job *j)
{
	const struct store_job_result *r = &j->result;
	const char *k, *kpis[RUN_KPIS];
	size_t nkpis = run_kpis(w, j, kpis, RUN_KPIS);
	json_t *v;

	result_section(b, r, kpis, nkpis);
	if (json_is_object(r->provision)) {
		buf_adds(b, "<h2>What the box ran</h2>\n");
		kv_table(b, (json_t *)r->provision);
	}
	if (json_is_object(r->facts)) {
		buf_adds(b, "<h2>The box</h2>\n");
		kv_table(b, (json_t *)r->facts);
	}
	if (json_object_size(r->series) > 0)
		buf_adds(b, "<h2>Per second</h2>\n");
	draw_series(b, (json_t *)r->series, (json_t *)r->stats);
	profile_section(b, (json_t *)r->stats);
	if (json_object_size(r->stats) > 0) {
		buf_adds(b, "<h2>Numbers</h2>\n<div class=\"wide\">");
		numbers_table(b, (json_t *)r->stats, kpis, nkpis, j->id);
		buf_adds(b, "</div>\n");
	}
	json_object_foreach((json_t *)r->outputs, k, v)
	{
		buf_adds(b, "<h2>Output: ");
		html_text(b, k);
		buf_adds(b, "</h2>\n");
		output_pre(b, json_string_value(v) ? json_string_value(v) : "",
			   j->id);
	}
}

/* The job as queued (its commit, null there, is the run's, above). */
static void
job_section(struct buf *b, const struct store_job *j)
{
	json_t *shown = json_copy((json_t *)j->job);
	char *text;

	if (json_is_null(json_object_get(shown, "commit")))
		json_object_del(shown, "commit");
	text = rjson_dumps(shown, JSON_INDENT(2));
	json_decref(shown);
	buf_adds(b, "<h2>The job</h2>\n<pre>");
	html_text(b, text);
	buf_addf(b, "</pre>\n<p><a href=\"/api/jobs/%lld\">As JSON</a></p>",
		 j->id);
	free(text);
}

/* On the writer's thread: the page made from the store's text. */
static void
make_page(void *arg)
{
	struct ask *a = arg;
	struct view_doc d = {0};
	struct store_job j;
	char err[256];

	a->status = 500;
	if (!view_load(&d, &store_job_view, a->text, &j, err, sizeof err)) {
		buf_adds(&a->out, err);
		goto out;
	}
	a->status = 200;
	a->title = xasprintf("Run %lld of %s", j.id, j.key);
	record(&a->out, &j);
	if (json_is_object(j.doc))
		result(&a->out, a->w, &j);
	else
		buf_adds(&a->out, "<p class=\"muted\">No result yet.</p>\n");
	job_section(&a->out, &j);
	/* A run that ended changes no more. */
	a->final =
		strcmp(j.state, "done") == 0 || strcmp(j.state, "failed") == 0;
	snprintf(a->etag, sizeof a->etag, "\"job-%lld-%s\"", j.id,
		 j.updated ? j.updated : "");
out:
	view_release(&d);
	free(a->text);
	a->text = NULL;
}

static void
ask_free(struct ask *a)
{
	web_heavy_end(a->w);
	buf_release(&a->out);
	free(a->title);
	free(a->text);
	free(a);
}

static void
page_made(void *arg)
{
	struct ask *a = arg;

	if (a->status != 200)
		page_broken(a->req, a->out.data);
	else if (a->final)
		page_reply_final(a->req, a->title, &a->out, a->etag);
	else
		page_reply(a->req, 200, a->title, &a->out);
	ask_free(a);
}

static void
on_job(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;

	if (p != NULL || text == NULL) {
		page_fail(a->req, p, "run of that number");
		ask_free(a);
		return;
	}
	a->text = xstrdup(text);
	worker_run(a->w->writer, make_page, page_made, a);
}

static void
on_twin(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;

	web_on_json(text, p, a->req);
	ask_free(a);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	struct ask *a;

	if (!web_heavy_begin(w, req))
		return;
	a = xcalloc(1, sizeof *a);
	a->w = w;
	a->req = req;
	buf_init(&a->out);
	store_job(w->d.store, strtoll(call->arg, NULL, 10),
		  twin ? on_twin : on_job, a);
}

const struct page run_page = {"/jobs/:id", "/api/jobs/:id", ask};

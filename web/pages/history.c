/*
 * history.c: a metric of a series over its commits, in commit order
 * (/series/:series/history?metric=, the twin of /api/series/:series/
 * history): every run a dot, the mean line with its spread, regressions
 * and fixes marked, and the history's change points (changes.h) with
 * the means of the segments between them; a dot links to the compare of
 * its commit with the one before, and a form compares any two; a picker
 * offers the series' metrics (without ?metric=, it alone).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/units.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/svg.h"
#include "robot/core/banned.h"

struct ask {
	struct http_req *req;
	char *series, *metric;
};

/* The index of commit sha among the history's, or -1. */
static long
index_of(json_t *commits, const char *sha)
{
	json_t *c;
	size_t i;

	if (sha == NULL)
		return -1;
	json_array_foreach(commits, i, c)
	{
		if (strcmp(rjson_get_str(c, "commit"), sha) == 0)
			return (long)i;
	}
	return -1;
}

static char *
compare_href(const char *series, const char *base, const char *head)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "/compare?series=");
	page_query(&b, series);
	buf_adds(&b, "&base=");
	page_query(&b, base);
	buf_adds(&b, "&head=");
	page_query(&b, head);
	return buf_detach(&b);
}

/* The change points cps (history_changes_json()) on the chart: a
 * marker between the points on either side, and each segment's mean as
 * a level. */
static void
mark_changes(struct svg *s, struct ask *a, json_t *commits, json_t *cps)
{
	double from = -0.5, mean = NAN;
	json_t *cp;
	size_t i;
	char t[200], m[32], pct[NUM_PCT_MAX];

	json_array_foreach(cps, i, cp)
	{
		long at = index_of(commits, rjson_get_str(cp, "commit"));
		json_t *before = json_object_get(cp, "before");

		if (at < 0)
			continue;
		mean = json_number_value(json_object_get(before, "mean"));
		unit_si(m, sizeof m, mean, unit_of(a->metric));
		snprintf(t, sizeof t, "mean %s before %.12s", m,
			 rjson_get_str(cp, "commit"));
		svg_hline(s, 3, from, (double)at - 0.5, mean, t);
		snprintf(t, sizeof t, "change point at %.12s: %s (p %.2g)",
			 rjson_get_str(cp, "commit"),
			 num_pct(pct, sizeof pct,
				 json_number_value(
					 json_object_get(cp, "change_pct")),
				 "?"),
			 json_number_value(json_object_get(cp, "p")));
		svg_marker(s, 3, (double)at - 0.5, t);
		from = (double)at - 0.5;
		mean = json_number_value(
			json_object_get(json_object_get(cp, "after"), "mean"));
	}
	if (!isnan(mean)) {
		unit_si(m, sizeof m, mean, unit_of(a->metric));
		snprintf(t, sizeof t, "mean %s since the last change point", m);
		svg_hline(s, 3, from, (double)json_array_size(commits) - 0.5,
			  mean, t);
	}
}

/* The change points, in words, above the chart. */
static void
list_changes(struct buf *b, struct ask *a, json_t *cps)
{
	json_t *cp;
	size_t i;

	if (json_array_size(cps) == 0) {
		buf_adds(b, "<p>No change point in this history.</p>\n");
		return;
	}
	buf_addf(b, "<p>%zu change point%s in this history:</p>\n<ul>\n",
		 json_array_size(cps), json_array_size(cps) == 1 ? "" : "s");
	json_array_foreach(cps, i, cp)
	{
		buf_adds(b, "<li>");
		page_pct(b, json_object_get(cp, "change_pct"));
		buf_adds(b, " at ");
		page_commit(b, json_object_get(cp, "commit"));
		buf_addf(b, " (p %.2g): from ",
			 json_number_value(json_object_get(cp, "p")));
		page_segment(b, json_object_get(cp, "before"), a->metric, true);
		buf_adds(b, " to ");
		page_segment(b, json_object_get(cp, "after"), a->metric, false);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

static void
chart(struct buf *b, struct ask *a, json_t *h, json_t *cps)
{
	json_t *commits = json_object_get(h, "commits"), *c, *r;
	size_t n = json_array_size(commits), runs = 0, i, k, at = 0;
	double *x, *y, *mx, *mean, *lo, *hi, ylo = INFINITY, yhi = -INFINITY;
	char **titles, **hrefs, desc[512];
	const char **cats = xcalloc(n + 1, sizeof *cats);
	char(*shas)[16] = xcalloc(n + 1, sizeof *shas);
	struct svg *s;

	json_array_foreach(commits, i, c) runs +=
		json_array_size(json_object_get(c, "vals"));
	x = xcalloc(runs + 1, sizeof *x);
	y = xcalloc(runs + 1, sizeof *y);
	titles = xcalloc(runs + 1, sizeof *titles);
	hrefs = xcalloc(runs + 1, sizeof *hrefs);
	mx = xcalloc(n + 1, sizeof *mx);
	mean = xcalloc(n + 1, sizeof *mean);
	lo = xcalloc(n + 1, sizeof *lo);
	hi = xcalloc(n + 1, sizeof *hi);
	json_array_foreach(commits, i, c)
	{
		json_t *vals = json_object_get(c, "vals");
		const char *sha = rjson_get_str(c, "commit");
		double m = json_number_value(json_object_get(c, "mean"));
		double sd = json_number_value(json_object_get(c, "stddev"));
		char *href =
			i > 0 ? compare_href(
					a->series,
					rjson_get_str(
						json_array_get(commits, i - 1),
						"commit"),
					sha)
			      : NULL;

		char mean_text[32];

		unit_si(mean_text, sizeof mean_text, m, unit_of(a->metric));
		snprintf(shas[i], sizeof shas[i], "%.7s", sha);
		cats[i] = shas[i];
		mx[i] = (double)i;
		mean[i] = m;
		lo[i] = m - sd;
		hi[i] = m + sd;
		ylo = lo[i] < ylo ? lo[i] : ylo;
		yhi = hi[i] > yhi ? hi[i] : yhi;
		for (k = 0; k < json_array_size(vals); k++) {
			x[at] = (double)i;
			y[at] = json_number_value(json_array_get(vals, k));
			ylo = y[at] < ylo ? y[at] : ylo;
			yhi = y[at] > yhi ? y[at] : yhi;
			/* One tooltip a commit, on its first dot: the
			 * page stays small at thousands of runs. */
			titles[at] =
				k == 0 ? xasprintf("%.12s: %zu runs, mean "
						   "%s",
						   sha, json_array_size(vals),
						   mean_text)
				       : NULL;
			hrefs[at] = href ? xstrdup(href) : NULL;
			at++;
		}
		free(href);
	}
	snprintf(desc, sizeof desc,
		 "%s of %s over %zu commits, oldest first: %zu runs as dots, "
		 "the mean as a line, its spread (one standard deviation) as "
		 "a band; dashed lines mark regressions, fixes and change "
		 "points (%zu), with the mean between change points as a "
		 "level. A commit's dots link to its comparison with "
		 "the commit before.",
		 a->metric, a->series, n, runs, json_array_size(cps));
	s = svg_new(900, 320, a->metric, desc);
	svg_range(s, -0.5, (double)n - 0.5, ylo, yhi);
	svg_yaxis(s, a->metric, unit_of(a->metric));
	svg_xcategories(s, cats, n);
	svg_band(s, 0, mx, lo, hi, n);
	svg_line(s, 0, mx, mean, n);
	svg_points(s, 0, x, y, runs, (const char *const *)titles,
		   (const char *const *)hrefs);
	json_array_foreach(json_object_get(h, "regressions"), i, r)
	{
		/* At the commit at fault once it is known (and measured
		 * here), else at the head it was found at. */
		const char *culprit = rjson_get_str(r, "culprit");
		long at_k = index_of(commits, culprit);
		long at_c = index_of(commits, rjson_get_str(r, "commit"));
		long at_f = index_of(commits, rjson_get_str(r, "fixed_by"));
		char t[160], pct[NUM_PCT_MAX];

		num_pct(pct, sizeof pct,
			json_number_value(json_object_get(r, "change_pct")),
			"?");
		if (at_k >= 0 && strcmp(culprit, rjson_get_str(r, "commit")))
			snprintf(t, sizeof t, "%s %s: %.12s, found at %.12s",
				 rjson_get_str(r, "kind"), pct, culprit,
				 rjson_get_str(r, "commit"));
		else if (at_c >= 0)
			snprintf(t, sizeof t, "%s %s at %.12s",
				 rjson_get_str(r, "kind"), pct,
				 rjson_get_str(r, "commit"));
		if (at_k >= 0 || at_c >= 0)
			svg_marker(s, 1, (double)(at_k >= 0 ? at_k : at_c), t);
		if (at_f >= 0) {
			snprintf(t, sizeof t, "fixed at %.12s",
				 rjson_get_str(r, "fixed_by"));
			svg_marker(s, 2, (double)at_f, t);
		}
	}
	mark_changes(s, a, commits, cps);
	svg_legend(s, 0, "runs, mean and spread");
	svg_legend(s, 1, "regression");
	svg_legend(s, 2, "fix");
	if (json_array_size(cps) > 0)
		svg_legend(s, 3, "change point, segment means");
	buf_adds(b, "<figure>");
	svg_finish(s, b);
	buf_adds(b, "<figcaption>");
	html_text(b, desc);
	buf_adds(b, "</figcaption></figure>\n");
	for (i = 0; i < runs; i++) {
		free(titles[i]);
		free(hrefs[i]);
	}
	free(titles);
	free(hrefs);
	free(x);
	free(y);
	free(mx);
	free(mean);
	free(lo);
	free(hi);
	free(cats);
	free(shas);
}

/* The metric picker: the series' metrics, its KPIs first (marked). */
static void
metric_form(struct buf *b, const char *series, json_t *h, const char *chosen)
{
	json_t *m, *k;
	size_t i, j;

	buf_adds(b, "<form method=\"get\" action=\"/series/");
	html_attr(b, series);
	buf_adds(b, "/history\">\n<label>metric <select name=\"metric\">");
	json_array_foreach(json_object_get(h, "metrics"), i, m)
	{
		const char *name = json_string_value(m);
		bool kpi = false;

		json_array_foreach(json_object_get(h, "kpis"), j, k)
		{
			kpi = kpi || (name != NULL && json_string_value(k) &&
				      strcmp(json_string_value(k), name) == 0);
		}
		buf_adds(b, "<option value=\"");
		html_attr(b, name);
		buf_adds(b, "\"");
		if (chosen != NULL && name != NULL && strcmp(chosen, name) == 0)
			buf_adds(b, " selected");
		buf_adds(b, ">");
		html_text(b, name);
		if (kpi)
			buf_adds(b, " (KPI)");
		buf_adds(b, "</option>");
	}
	buf_adds(b, "</select></label>\n<button type=\"submit\">Show"
		    "</button>\n</form>\n");
}

static void
on_history(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;
	json_t *h = text ? json_loads(text, 0, NULL) : NULL, *c, *cps;
	struct buf b;
	size_t i, n;

	n = json_array_size(json_object_get(h, "commits"));
	if (p == NULL && a->metric == NULL &&
	    json_array_size(json_object_get(h, "metrics")) > 0) {
		/* no metric asked: pick one */
		buf_init(&b);
		buf_adds(&b, "<p>");
		html_text(&b, a->series);
		buf_adds(&b, ": which metric's history?</p>\n");
		metric_form(&b, a->series, h, NULL);
		page_reply(a->req, 200, "History", &b);
		buf_release(&b);
		goto out;
	}
	if (p != NULL || h == NULL || n == 0) {
		page_fail(a->req, p,
			  a->metric ? "runs of that metric in that series"
				    : "series of that name");
		goto out;
	}
	buf_init(&b);
	buf_adds(&b, "<p>");
	html_text(&b, a->series);
	buf_adds(&b, "</p>\n");
	metric_form(&b, a->series, h, a->metric);
	cps = findings_history_changes(h, NULL, NULL);
	list_changes(&b, a, cps);
	chart(&b, a, h, cps);
	json_decref(cps);
	buf_adds(&b, "<form method=\"get\" action=\"/compare\">\n"
		     "<input type=\"hidden\" name=\"series\" value=\"");
	html_attr(&b, a->series);
	buf_adds(&b, "\">\n");
	for (int k = 0; k < 2; k++) {
		buf_addf(&b, "<label>%s <select name=\"%s\">",
			 k ? "head" : "base", k ? "head" : "base");
		json_array_foreach(json_object_get(h, "commits"), i, c)
		{
			char s[16];

			snprintf(s, sizeof s, "%.12s",
				 rjson_get_str(c, "commit"));
			buf_adds(&b, "<option value=\"");
			html_attr(&b, rjson_get_str(c, "commit"));
			buf_adds(&b, "\"");
			if (i == (k ? n - 1 : (n > 1 ? n - 2 : 0)))
				buf_adds(&b, " selected");
			buf_adds(&b, ">");
			html_text(&b, s);
			buf_adds(&b, " ");
			html_text(&b, rjson_get_str(c, "subject"));
			buf_adds(&b, "</option>");
		}
		buf_adds(&b, "</select></label>\n");
	}
	buf_adds(&b,
		 "<button type=\"submit\">Compare</button>\n</form>\n"
		 "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		 "commit</th><th scope=\"col\">runs</th><th scope=\"col\">"
		 "mean</th><th scope=\"col\">%stddev</th></tr></thead>\n"
		 "<tbody>\n");
	json_array_foreach(json_object_get(h, "commits"), i, c)
	{
		double m = json_number_value(json_object_get(c, "mean"));
		double sd = json_number_value(json_object_get(c, "stddev"));

		char mean[32];

		unit_si(mean, sizeof mean, m, unit_of(a->metric));
		buf_adds(&b, "<tr><td>");
		page_commit(&b, c);
		buf_addf(
			&b,
			"</td><td class=\"num\">%lld</td><td class=\"num\">",
			(long long)json_integer_value(json_object_get(c, "n")));
		html_text(&b, mean);
		buf_addf(&b, "</td><td class=\"num\">%.1f%%</td></tr>\n",
			 m != 0 ? 100 * fabs(sd / m) : 0.0);
	}
	buf_adds(&b, "</tbody></table></div>\n<p><a href=\"/api/series/");
	html_attr(&b, a->series);
	buf_adds(&b, "/history?metric=");
	page_query(&b, a->metric);
	buf_adds(&b, "\">As JSON</a></p>");
	page_reply(a->req, 200, a->metric, &b);
	buf_release(&b);
out:
	json_decref(h);
	free(a->series);
	free(a->metric);
	free(a);
}

void
pages_history(struct web *w, struct http_req *req, const struct web_call *call)
{
	const char *metric;
	struct ask *a;

	if (!web_name_arg(req, "metric", 0, NAME_METRIC, &metric))
		return;
	a = xcalloc(1, sizeof *a);
	a->req = req;
	a->series = xstrdup(call->arg);
	a->metric = metric ? xstrdup(metric) : NULL;
	store_series_history(w->d.store, call->arg, metric,
			     FINDINGS_HISTORY_COMMITS, on_history, a);
}

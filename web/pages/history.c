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
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/svg.h"
#include "robot/core/banned.h"

/* A history page asked for: made on the writer's thread from the
 * store's text (web_heavy_begin()), answered on the loop. */
struct ask {
	struct web *w;
	struct http_req *req;
	char *series, *metric;
	char *text;     /* the store's, until the work reads it */
	int status;     /* the page made: 200 or 404, else 500 (broken) */
	char *title;    /* the page's, or the thing not found (404) */
	struct buf out; /* its body, or why it is broken (500) */
};

/* What the page draws: the history, its points and change points. */
struct drawn {
	const struct store_history *h;
	const struct history *hist; /* its points (commits with values) */
	struct change_point *cp;
	size_t ncp;
};

/* The index of commit sha among the history's, or -1. */
static long
index_of(const struct store_history *h, const char *sha)
{
	if (sha == NULL)
		return -1;
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->commits[i].commit != NULL &&
		    strcmp(h->commits[i].commit, sha) == 0)
			return (long)i;
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

/* The commit of a change point. */
static const char *
cp_commit(const struct drawn *d, const struct change_point *c)
{
	return d->hist->pts[c->index].commit;
}

/* The change points on the chart: a marker between the points on
 * either side, and each segment's mean as a level. */
static void
mark_changes(struct svg *s, struct ask *a, const struct drawn *d)
{
	double from = -0.5, mean = NAN;
	char t[200], m[32], pct[NUM_PCT_MAX];

	for (size_t i = 0; i < d->ncp; i++) {
		const struct change_point *c = &d->cp[i];
		long at = index_of(d->h, cp_commit(d, c));

		if (at < 0)
			continue;
		mean = c->before;
		unit_si(m, sizeof m, mean, unit_of(a->metric));
		snprintf(t, sizeof t, "mean %s before %.12s", m,
			 cp_commit(d, c));
		svg_hline(s, 3, from, (double)at - 0.5, mean, t);
		snprintf(t, sizeof t, "change point at %.12s: %s (p %.2g)",
			 cp_commit(d, c),
			 num_pct(pct, sizeof pct, c->change_pct, "?"), c->p);
		svg_marker(s, 3, (double)at - 0.5, t);
		from = (double)at - 0.5;
		mean = c->after;
	}
	if (!isnan(mean)) {
		unit_si(m, sizeof m, mean, unit_of(a->metric));
		snprintf(t, sizeof t, "mean %s since the last change point", m);
		svg_hline(s, 3, from, (double)d->h->ncommits - 0.5, mean, t);
	}
}

/* The change points, in words, above the chart. */
static void
list_changes(struct buf *b, struct ask *a, const struct drawn *d)
{
	char pct[NUM_PCT_MAX];

	if (d->ncp == 0) {
		buf_adds(b, "<p>No change point in this history.</p>\n");
		return;
	}
	buf_addf(b, "<p>%zu change point%s in this history:</p>\n<ul>\n",
		 d->ncp, d->ncp == 1 ? "" : "s");
	for (size_t i = 0; i < d->ncp; i++) {
		const struct change_point *c = &d->cp[i];

		buf_adds(b, "<li>");
		buf_adds(b, num_pct(pct, sizeof pct, c->change_pct, "-"));
		buf_adds(b, " at ");
		page_sha(b, cp_commit(d, c), NULL);
		buf_addf(b, " (p %.2g): from ", c->p);
		page_mean_over(b, c->before, (long long)(c->index - c->from),
			       a->metric, true);
		buf_adds(b, " to ");
		page_mean_over(b, c->after, (long long)(c->to - c->index),
			       a->metric, false);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

/* The regressions and fixes on the chart: at the commit at fault once
 * it is known (and measured here), else at the head it was found at. */
static void
mark_regressions(struct svg *s, const struct store_history *h)
{
	for (size_t i = 0; i < h->nregressions; i++) {
		const struct store_history_regression *r = &h->regressions[i];
		long at_k = index_of(h, r->culprit);
		long at_c = index_of(h, r->commit);
		long at_f = index_of(h, r->fixed_by);
		char t[160], pct[NUM_PCT_MAX];

		num_pct(pct, sizeof pct, r->change_pct, "?");
		if (at_k >= 0 && strcmp(r->culprit, r->commit))
			snprintf(t, sizeof t, "%s %s: %.12s, found at %.12s",
				 r->kind, pct, r->culprit, r->commit);
		else if (at_c >= 0)
			snprintf(t, sizeof t, "%s %s at %.12s", r->kind, pct,
				 r->commit);
		if (at_k >= 0 || at_c >= 0)
			svg_marker(s, 1, (double)(at_k >= 0 ? at_k : at_c), t);
		if (at_f >= 0) {
			snprintf(t, sizeof t, "fixed at %.12s", r->fixed_by);
			svg_marker(s, 2, (double)at_f, t);
		}
	}
}

/* Every run a dot (linked to its commit's comparison with the commit
 * before), one tooltip a commit on its first dot. */
struct dots {
	double *x, *y;
	char **titles, **hrefs;
	size_t n;
};

static void
dots_of(struct dots *o, struct ask *a, const struct store_history *h,
	double *ylo, double *yhi)
{
	size_t runs = 0, at = 0;

	for (size_t i = 0; i < h->ncommits; i++)
		runs += h->commits[i].nvals;
	o->x = xcalloc(runs + 1, sizeof *o->x);
	o->y = xcalloc(runs + 1, sizeof *o->y);
	o->titles = xcalloc(runs + 1, sizeof *o->titles);
	o->hrefs = xcalloc(runs + 1, sizeof *o->hrefs);
	o->n = runs;
	for (size_t i = 0; i < h->ncommits; i++) {
		const struct store_history_commit *c = &h->commits[i];
		char *href = i > 0 ? compare_href(a->series,
						  h->commits[i - 1].commit,
						  c->commit)
				   : NULL;
		char mean_text[32];

		unit_si(mean_text, sizeof mean_text, c->mean,
			unit_of(a->metric));
		for (size_t k = 0; k < c->nvals; k++) {
			o->x[at] = (double)i;
			o->y[at] = c->vals[k];
			*ylo = o->y[at] < *ylo ? o->y[at] : *ylo;
			*yhi = o->y[at] > *yhi ? o->y[at] : *yhi;
			/* One tooltip a commit, on its first dot: the
			 * page stays small at thousands of runs. */
			o->titles[at] = k == 0 ? xasprintf("%.12s: %zu runs, "
							   "mean %s",
							   c->commit, c->nvals,
							   mean_text)
					       : NULL;
			o->hrefs[at] = href ? xstrdup(href) : NULL;
			at++;
		}
		free(href);
	}
}

static void
dots_free(struct dots *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->titles[i]);
		free(o->hrefs[i]);
	}
	free(o->titles);
	free(o->hrefs);
	free(o->x);
	free(o->y);
}

static void
chart(struct buf *b, struct ask *a, const struct drawn *d)
{
	const struct store_history *h = d->h;
	size_t n = h->ncommits;
	double *mx = xcalloc(n + 1, sizeof *mx),
	       *mean = xcalloc(n + 1, sizeof *mean),
	       *lo = xcalloc(n + 1, sizeof *lo),
	       *hi = xcalloc(n + 1, sizeof *hi), ylo = INFINITY,
	       yhi = -INFINITY;
	const char **cats = xcalloc(n + 1, sizeof *cats);
	char(*shas)[16] = xcalloc(n + 1, sizeof *shas), desc[512];
	struct dots o;
	struct svg *s;

	for (size_t i = 0; i < n; i++) {
		const struct store_history_commit *c = &h->commits[i];

		snprintf(shas[i], sizeof shas[i], "%.7s", c->commit);
		cats[i] = shas[i];
		mx[i] = (double)i;
		mean[i] = c->mean;
		lo[i] = c->mean - c->stddev;
		hi[i] = c->mean + c->stddev;
		ylo = lo[i] < ylo ? lo[i] : ylo;
		yhi = hi[i] > yhi ? hi[i] : yhi;
	}
	dots_of(&o, a, h, &ylo, &yhi);
	snprintf(desc, sizeof desc,
		 "%s of %s over %zu commits, oldest first: %zu runs as dots, "
		 "the mean as a line, its spread (one standard deviation) as "
		 "a band; dashed lines mark regressions, fixes and change "
		 "points (%zu), with the mean between change points as a "
		 "level. A commit's dots link to its comparison with "
		 "the commit before.",
		 a->metric, a->series, n, o.n, d->ncp);
	s = svg_new(900, 320, a->metric, desc);
	svg_range(s, -0.5, (double)n - 0.5, ylo, yhi);
	svg_yaxis(s, a->metric, unit_of(a->metric));
	svg_xcategories(s, cats, n);
	svg_band(s, 0, mx, lo, hi, n);
	svg_line(s, 0, mx, mean, n);
	mark_regressions(s, h);
	mark_changes(s, a, d);
	/* the dots last, over the lines: each a link (a segment's mean
	 * drawn over them took their clicks) */
	svg_points(s, 0, o.x, o.y, o.n, (const char *const *)o.titles,
		   (const char *const *)o.hrefs);
	svg_legend(s, 0, "runs, mean and spread");
	svg_legend(s, 1, "regression");
	svg_legend(s, 2, "fix");
	if (d->ncp > 0)
		svg_legend(s, 3, "change point, segment means");
	buf_adds(b, "<figure class=\"chart\">");
	svg_finish(s, b);
	buf_adds(b, "<figcaption>");
	html_text(b, desc);
	buf_adds(b, "</figcaption></figure>\n");
	dots_free(&o);
	free(mx);
	free(mean);
	free(lo);
	free(hi);
	free(cats);
	free(shas);
}

/* The metric picker: the series' metrics, its KPIs first (marked). */
static void
metric_form(struct buf *b, const char *series, const struct store_history *h,
	    const char *chosen)
{
	buf_adds(b, "<form method=\"get\" action=\"/series/");
	page_series_path(b, series);
	buf_adds(b, "/history\">\n<label>metric <select name=\"metric\">");
	for (size_t i = 0; i < h->nmetrics; i++) {
		const char *name = h->metrics[i];
		bool kpi = false;

		for (size_t j = 0; j < h->nkpis; j++)
			kpi = kpi || (name != NULL && h->kpis[j] != NULL &&
				      strcmp(h->kpis[j], name) == 0);
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
	if (h->metrics_total > (long long)h->nmetrics)
		buf_addf(b,
			 "<p>The first %zu of its %lld metrics; another's "
			 "history is at ?metric=NAME.</p>\n",
			 h->nmetrics, h->metrics_total);
}

/* A form to compare any two of its commits: the newest against the one
 * before it, chosen. */
static void
compare_form(struct buf *b, struct ask *a, const struct store_history *h)
{
	size_t n = h->ncommits;

	buf_adds(b, "<form method=\"get\" action=\"/compare\">\n"
		    "<input type=\"hidden\" name=\"series\" value=\"");
	html_attr(b, a->series);
	buf_adds(b, "\">\n");
	for (int k = 0; k < 2; k++) {
		buf_addf(b, "<label>%s <select name=\"%s\">",
			 k ? "head" : "base", k ? "head" : "base");
		for (size_t i = 0; i < n; i++) {
			const struct store_history_commit *c = &h->commits[i];
			char s[16];

			snprintf(s, sizeof s, "%.12s", c->commit);
			buf_adds(b, "<option value=\"");
			html_attr(b, c->commit);
			buf_adds(b, "\"");
			if (i == (k ? n - 1 : (n > 1 ? n - 2 : 0)))
				buf_adds(b, " selected");
			buf_adds(b, ">");
			html_text(b, s);
			buf_adds(b, " ");
			html_text(b, c->subject);
			buf_adds(b, "</option>");
		}
		buf_adds(b, "</select></label>\n");
	}
	buf_adds(b, "<button type=\"submit\">Compare</button>\n</form>\n");
}

/* Each commit's runs, mean and spread. */
static void
commits_table(struct buf *b, struct ask *a, const struct store_history *h)
{
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		    "commit</th><th scope=\"col\">runs</th><th scope=\"col\">"
		    "mean</th><th scope=\"col\">%stddev</th></tr></thead>\n"
		    "<tbody>\n");
	for (size_t i = 0; i < h->ncommits; i++) {
		const struct store_history_commit *c = &h->commits[i];
		char mean[32];

		unit_si(mean, sizeof mean, c->mean, unit_of(a->metric));
		buf_adds(b, "<tr><td>");
		page_sha(b, c->commit, c->subject);
		buf_addf(b,
			 "</td><td class=\"num\">%lld</td><td class=\"num\">",
			 c->n);
		html_text(b, mean);
		buf_addf(b, "</td><td class=\"num\">%.1f%%</td></tr>\n",
			 c->mean != 0 ? 100 * fabs(c->stddev / c->mean) : 0.0);
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* No metric asked: pick one. */
static void
pick_metric(struct ask *a, const struct store_history *h)
{
	a->status = 200;
	a->title = xasprintf("History of %s", a->series);
	buf_adds(&a->out, "<p>");
	page_series(&a->out, a->series);
	buf_adds(&a->out, ": which metric's history?</p>\n");
	metric_form(&a->out, a->series, h, NULL);
}

/* On the writer's thread: the page made from the store's text. */
static void
make_page(void *arg)
{
	struct ask *a = arg;
	json_t *j = rjson_loads(a->text, NULL);
	struct view_doc vd = {0};
	struct store_history h;
	struct history hist;
	struct drawn d = {&h, &hist, NULL, 0};
	struct buf *b = &a->out;
	char err[256] = "not JSON";

	free(a->text);
	a->text = NULL;
	a->status = 500;
	if (j == NULL ||
	    !view_decode(&vd, &store_history_view, j, &h, err, sizeof err)) {
		buf_adds(b, err);
		goto out;
	}
	if (a->metric == NULL && h.nmetrics > 0) {
		pick_metric(a, &h);
		goto out;
	}
	if (h.ncommits == 0) {
		a->status = 404;
		goto out;
	}
	a->status = 200;
	buf_adds(b, "<p>");
	page_series(b, a->series);
	buf_adds(b, "</p>\n");
	metric_form(b, a->series, &h, a->metric);
	d.ncp = findings_history_find(j, &hist, &d.cp);
	list_changes(b, a, &d);
	chart(b, a, &d);
	free(d.cp);
	history_release(&hist);
	compare_form(b, a, &h);
	commits_table(b, a, &h);
	buf_adds(b, "<p><a href=\"/api/series/");
	page_series_path(b, a->series);
	buf_adds(b, "/history?metric=");
	page_query(b, a->metric);
	buf_adds(b, "\">As JSON</a></p>");
	a->title = a->metric != NULL
			   ? xasprintf("%s of %s", a->metric, a->series)
			   : xasprintf("History of %s", a->series);
out:
	view_release(&vd);
	json_decref(j);
}

static void
ask_free(struct ask *a)
{
	web_heavy_end(a->w);
	buf_release(&a->out);
	free(a->title);
	free(a->text);
	free(a->series);
	free(a->metric);
	free(a);
}

static void
page_made(void *arg)
{
	struct ask *a = arg;

	if (a->status == 200)
		page_reply(a->req, 200, a->title, &a->out);
	else if (a->status == 404)
		page_fail(a->req, NULL,
			  a->metric ? "runs of that metric in that series"
				    : "series of that name");
	else
		page_broken(a->req, a->out.data);
	ask_free(a);
}

static void
on_history(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;

	if (p != NULL || text == NULL) {
		page_fail(a->req, p,
			  a->metric ? "runs of that metric in that series"
				    : "series of that name");
		ask_free(a);
		return;
	}
	a->text = xstrdup(text);
	worker_run(a->w->writer, make_page, page_made, a);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	const char *metric;
	long limit;
	struct ask *a;

	if (!findings_history_args(req, &metric, &limit))
		return;
	if (twin) {
		findings_history_answer(w, req, call->arg, metric, limit,
					false);
		return;
	}
	if (!web_heavy_begin(w, req))
		return;
	a = xcalloc(1, sizeof *a);
	a->w = w;
	a->req = req;
	a->series = xstrdup(call->arg);
	a->metric = metric ? xstrdup(metric) : NULL;
	buf_init(&a->out);
	store_series_history(w->d.store, call->arg, metric, (int)limit,
			     w->d.set->compare_max_values, on_history, a);
}

const struct page history_page = {"/series/:series/history",
				  "/api/series/:series/history", ask};

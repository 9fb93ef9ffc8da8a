/*
 * page.c: what the pages share.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/table.h"
#include "robot/analysis/units.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/bisect.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/svg.h"
#include "robot/core/banned.h"

void
page_reply(struct http_req *req, int status, const char *title,
	   const struct buf *body)
{
	char *page = html_page(title, body->data ? body->data : "");

	http_req_reply(req, status, "text/html; charset=utf-8", page,
		       strlen(page));
	free(page);
}

void
page_reply_final(struct http_req *req, const char *title,
		 const struct buf *body, const char *etag)
{
	char *page = html_page(title, body->data ? body->data : "");

	http_req_reply_etag(req, "text/html; charset=utf-8", page, strlen(page),
			    etag);
	free(page);
}

static void
page_text(struct http_req *req, int status, const char *title, const char *text)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "<p>");
	html_text(&b, text);
	buf_adds(&b, "</p>");
	page_reply(req, status, title, &b);
	buf_release(&b);
}

void
page_broken(struct http_req *req, const char *why)
{
	log_warnx("a page's document does not fit its view: %s", why);
	page_text(req, 500, "Cannot show it", why);
}

void
page_fail(struct http_req *req, const struct problem *p, const char *what)
{
	char *msg;

	if (p == NULL) {
		msg = xasprintf("robot has no %s.", what);
		page_text(req, 404, "Not found", msg);
		free(msg);
	} else if (p->kind == PROBLEM_UNAVAILABLE) {
		page_text(req, 503, "Not now",
			  "robot cannot reach its database: try again in a "
			  "minute.");
	} else {
		page_text(req, (int)p->kind,
			  p->kind == PROBLEM_NOT_FOUND ? "Not found"
						       : "Cannot show it",
			  p->message);
	}
}

void
page_bad(struct http_req *req, const char *why)
{
	page_text(req, 400, "Bad request", why);
}

void
page_query(struct buf *b, const char *s)
{
	char *e = client_escape(s ? s : "");

	buf_adds(b, e);
	free(e);
}

void
page_series_path(struct buf *b, const char *series)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)series;
	     p != NULL && *p != '\0'; p++)
		if (isalnum(*p) || strchr("-._~/", *p) != NULL) {
			buf_addc(b, (char)*p);
		} else {
			buf_addc(b, '%');
			buf_addc(b, hex[*p >> 4]);
			buf_addc(b, hex[*p & 15]);
		}
}

void
page_series(struct buf *b, const char *series)
{
	buf_adds(b, "<a href=\"/series/");
	page_series_path(b, series);
	buf_adds(b, "\">");
	html_text(b, series);
	buf_adds(b, "</a>");
}

void
page_link(struct buf *b, const char *prefix, const char *arg, const char *text)
{
	buf_adds(b, "<a href=\"");
	html_attr(b, prefix);
	if (arg != NULL) {
		char *e = client_escape(arg);

		html_attr(b, e);
		free(e);
	}
	buf_adds(b, "\">");
	html_text(b, text);
	buf_adds(b, "</a>");
}

void
page_cell(struct buf *b, const char *s)
{
	buf_adds(b, "<td>");
	html_text(b, s != NULL ? s : "-");
	buf_adds(b, "</td>");
}

void
page_time_cell(struct buf *b, const char *s)
{
	buf_adds(b, "<td>");
	html_time(b, s != NULL ? s : "-");
	buf_adds(b, "</td>");
}

void
page_job_cell(struct buf *b, long long id)
{
	char s[32];

	snprintf(s, sizeof s, "%lld", id);
	buf_adds(b, "<td class=\"num\">");
	page_link(b, "/jobs/", s, s);
	buf_adds(b, "</td>");
}

void
page_box_cell(struct buf *b, const char *name)
{
	if (name == NULL) {
		page_cell(b, NULL);
		return;
	}
	buf_adds(b, "<td>");
	page_link(b, "/boxes/", name, name);
	buf_adds(b, "</td>");
}

const char *
page_box_state_class(const char *state)
{
	return strcmp(state, "broken") == 0 || strcmp(state, "suspect") == 0 ||
			       strcmp(state, "revoked") == 0
		       ? "state-new"
		       : "state-ok";
}

void
page_sha(struct buf *b, const char *sha, const char *subject)
{
	char s[16];

	snprintf(s, sizeof s, "%.10s", sha ? sha : "?");
	if (sha != NULL) {
		buf_adds(b, "<a href=\"/commits/");
		html_attr(b, sha);
		buf_adds(b, "\">");
	}
	buf_adds(b, "<code title=\"");
	html_attr(b, sha);
	buf_adds(b, "\">");
	html_text(b, s);
	buf_adds(b, "</code>");
	if (sha != NULL)
		buf_adds(b, "</a>");
	if (subject != NULL) {
		buf_adds(b, " ");
		html_text(b, subject);
	}
}

/* A commit's SHA, short, in <code> with the whole one as its title. */
static void
short_code(struct buf *b, const char *sha)
{
	char s[16];

	snprintf(s, sizeof s, "%.10s", sha ? sha : "?");
	if (sha != NULL) {
		buf_adds(b, "<a href=\"/commits/");
		html_attr(b, sha);
		buf_adds(b, "\">");
	}
	buf_adds(b, "<code title=\"");
	html_attr(b, sha ? sha : "?");
	buf_adds(b, "\">");
	html_text(b, s);
	buf_adds(b, "</code>");
	if (sha != NULL)
		buf_adds(b, "</a>");
}

void
page_compare_href(struct buf *b, const char *path, const char *series,
		  const char *base, const char *head)
{
	buf_adds(b, path);
	buf_adds(b, "?series=");
	page_query(b, series);
	buf_adds(b, "&amp;base=");
	page_query(b, base);
	buf_adds(b, "&amp;head=");
	page_query(b, head);
}

void
page_pairs_open(struct buf *b)
{
	buf_adds(b, "<h2>Compared</h2>\n<div class=\"wide\"><table>\n<thead>"
		    "<tr><th scope=\"col\">series</th><th scope=\"col\">base"
		    "</th><th scope=\"col\">head</th><th scope=\"col\">"
		    "verdict</th></tr></thead>\n<tbody>\n");
}

void
page_pair_row(struct buf *b, const char *series, const char *base,
	      const char *head, const char *verdict)
{
	buf_adds(b, "<tr><td>");
	page_series(b, series);
	buf_adds(b, "</td><td>");
	page_sha(b, base, NULL);
	buf_adds(b, "</td><td>");
	page_sha(b, head, NULL);
	buf_adds(b, "</td><td><a href=\"");
	page_compare_href(b, "/compare", series, base, head);
	buf_adds(b, "\">");
	html_text(b, verdict);
	buf_adds(b, "</a>");
}

void
page_blame(struct buf *b, const struct store_commit_info *culprit,
	   const struct store_commit_info *range_base,
	   const struct store_commit_info *range_head, const char *head)
{
	if (range_head != NULL) {
		buf_adds(b, "<span class=\"muted\">range</span> ");
		short_code(b, range_base != NULL ? range_base->sha : NULL);
		buf_adds(b, "..");
		page_sha(b, range_head->sha, range_head->subject);
		return;
	}
	page_sha(b, culprit->sha, culprit->subject);
	if (head != NULL && culprit->sha != NULL &&
	    strcmp(head, culprit->sha) != 0) {
		buf_adds(b, " <span class=\"muted\">found at ");
		short_code(b, head);
		buf_adds(b, "</span>");
	}
}

void
page_mean_over(struct buf *b, double mean, long long points, const char *metric,
	       bool commits)
{
	char m[32];

	unit_si(m, sizeof m, mean, unit_of(metric));
	html_text(b, m);
	buf_addf(b, " over %lld%s", points, commits ? " commits" : "");
}

/* A side's mean, as a person reads it (with its unit, or an SI prefix
 * for a large count: 90.1 MB/s, 5.05 k), then its %stddev. */
static void
side_cell(struct buf *b, const char *metric, const struct stats_summary *side)
{
	const char *unit = unit_of(metric ? metric : "");
	double v = side->mean;
	char s[48];

	if (isnan(v)) {
		buf_adds(b, "-");
		return;
	}
	if (unit[0] == '\0' && fabs(v) < 1000)
		snprintf(s, sizeof s, "%.4g", v);
	else
		unit_si(s, sizeof s, v, unit);
	buf_adds(b, "<span class=\"nw\">");
	html_text(b, s);
	buf_adds(b, "</span>");
	if (!isnan(side->stddev) && v != 0)
		buf_addf(b, " &plusmn; %.0f%%", 100 * fabs(side->stddev / v));
}

static void
metric_rows(struct buf *b, const struct comparison *c, bool kpis)
{
	for (size_t i = 0; c != NULL && i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const char *v = compare_verdict_name(m->r.verdict);
		char pct[NUM_PCT_MAX], note[256];

		if (m->kpi != kpis)
			continue;
		buf_adds(b, "<tr class=\"");
		html_attr(b, v);
		buf_adds(b, "\"><td class=\"num\">");
		side_cell(b, m->name, &m->r.base);
		buf_adds(b, "</td><td class=\"num\">");
		buf_adds(b, num_pct(pct, sizeof pct,
				    m->r.change_defined ? m->r.change_pct : NAN,
				    "-"));
		buf_adds(b, "</td><td class=\"num\">");
		side_cell(b, m->name, &m->r.head);
		buf_adds(b, "</td><td>");
		html_text(b, v);
		buf_adds(b, "</td><td class=\"num\">");
		if (!isnan(m->r.p_value))
			buf_addf(b, "%.2g", m->r.p_value);
		buf_adds(b, "</td><td>");
		html_text(b, m->name);
		if (kpis)
			buf_adds(b, " <strong>KPI</strong>");
		/* what its history's noise did for it (compare.h) */
		if (kpis && compare_history_note(&m->r, note, sizeof note)) {
			buf_adds(b, "<br><small>");
			html_prose(b, note);
			buf_adds(b, "</small>");
		}
		buf_adds(b, "</td></tr>\n");
	}
}

/* What moved with the KPI (table_moved()), above LKP's table: the
 * monitors whose change was largest against their noise, by kind.
 * Returns how many are shown. */
static size_t
moved_rows(struct buf *b, const struct comparison *c)
{
	struct table_moved v[TABLE_MOVED];
	size_t n = 0, shown = c != NULL ? table_moved(c, v, &n) : 0;

	if (shown > 0) {
		buf_adds(b, "<h3>What moved with it</h3>\n<p>");
		if (shown == n)
			buf_addf(b, "The %s monitor%s that changed, by kind, ",
				 n == 1 ? "one" : "every", n == 1 ? "" : "s");
		else
			buf_addf(b,
				 "The %zu of the %zu changed monitors whose "
				 "change was largest, by kind, ",
				 shown, n);
		buf_adds(b, "with the change against its noise (the two "
			    "sides' standard deviations):</p>\n"
			    "<table id=\"moved\">\n"
			    "<thead><tr><th scope=\"col\">kind</th>"
			    "<th scope=\"col\">metric</th>"
			    "<th scope=\"col\">change</th>"
			    "<th scope=\"col\">against its noise</th>"
			    "<th scope=\"col\">verdict</th></tr></thead>\n"
			    "<tbody>\n");
		for (size_t i = 0; i < shown; i++) {
			char change[32], times[16];

			table_moved_change(&v[i], change, sizeof change);
			table_moved_times(&v[i], times, sizeof times);
			buf_adds(b, "<tr><td>");
			html_text(b, v[i].kind);
			buf_adds(b, "</td><td>");
			html_text(b, v[i].m->name);
			if (v[i].nalike > 0) {
				char *names = table_moved_alike(&v[i]);

				buf_adds(b, "<br><small>alike: ");
				html_text(b, names);
				buf_adds(b, "</small>");
				free(names);
			}
			buf_adds(b, "</td><td class=\"num\">");
			html_text(b, change);
			buf_adds(b, "</td><td class=\"num\">");
			html_text(b, times);
			buf_adds(b, "</td><td>");
			html_text(b, compare_verdict_name(v[i].m->r.verdict));
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</tbody></table>\n");
	}
	return shown;
}

void
page_comparison(struct buf *b, const struct comparison *c)
{
	if (moved_rows(b, c) > 0)
		buf_adds(b, "<h3>Every metric that changed</h3>\n");
	buf_adds(b, "<div class=\"wide\"><table class=\"lkp\">\n<thead><tr>"
		    "<th scope=\"col\">base &plusmn; %stddev</th>"
		    "<th scope=\"col\">%change</th>"
		    "<th scope=\"col\">head &plusmn; %stddev</th>"
		    "<th scope=\"col\">verdict</th><th scope=\"col\">p</th>"
		    "<th scope=\"col\">metric</th></tr></thead>\n<tbody>\n");
	metric_rows(b, c, true);
	metric_rows(b, c, false);
	buf_adds(b, "</tbody></table></div>\n");
	if (c != NULL && c->nnotes > 0) {
		buf_adds(b, "<ul class=\"notes\">\n");
		for (size_t i = 0; i < c->nnotes; i++) {
			buf_adds(b, "<li>");
			html_text(b, c->notes[i]);
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
}

void
page_runs(struct buf *b, const struct comparison *c)
{
	size_t nb = c != NULL ? c->base.runs : 0,
	       nh = c != NULL ? c->head.runs : 0,
	       rounds = c != NULL ? c->rounds : 0;
	bool linked = c != NULL && c->nround_runs > 0;

	if (linked)
		buf_adds(b, "<a href=\"#runs\">");
	if (nb == nh)
		buf_addf(b, "%zu run%s a side", nb, nb == 1 ? "" : "s");
	else
		buf_addf(b, "%zu base run%s and %zu head run%s", nb,
			 nb == 1 ? "" : "s", nh, nh == 1 ? "" : "s");
	if (rounds > 0)
		buf_addf(b, ", in %zu round%s", rounds, rounds == 1 ? "" : "s");
	if (linked)
		buf_adds(b, "</a>");
}

void
page_round_runs(struct buf *b, const struct comparison *c)
{
	if (c == NULL || c->nround_runs == 0)
		return;
	buf_adds(b, "<h3 id=\"runs\">The runs compared</h3>\n<p "
		    "class=\"muted\">A round is a run of the base and one of "
		    "the head, back to back on one box; the comparison reads "
		    "the change within each round.</p>\n<div class=\"wide\">"
		    "<table>\n<thead><tr><th scope=\"col\">round</th><th "
		    "scope=\"col\">base run</th><th scope=\"col\">head run"
		    "</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < c->nround_runs; i++) {
		buf_addf(b, "<tr><td class=\"num\">%zu</td>", i + 1);
		page_job_cell(b, c->round_runs[i][0]);
		page_job_cell(b, c->round_runs[i][1]);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* Mean and population stddev of n values. */
static void
mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = n ? sqrt(ss / (double)n) : NAN;
}

/* Every run of a metric at the two commits: base's runs and head's,
 * and each one's job (in step with them; 0 or none: not known). */
struct sides {
	double *v[2]; /* base, head */
	size_t n[2];
	long long *jobs[2];
	size_t njobs[2];
};
static const struct view_field sides_fields[] = {
	VIEW_N(sides, "base", v[0], n[0]),
	VIEW_N(sides, "head", v[1], n[1]),
	{"base_jobs", VIEW_INTS, offsetof(struct sides, jobs[0]), VIEW_OPT,
	 NULL, offsetof(struct sides, njobs[0])},
	{"head_jobs", VIEW_INTS, offsetof(struct sides, jobs[1]), VIEW_OPT,
	 NULL, offsetof(struct sides, njobs[1])},
};

/* Whether run i of side k was one comparison c read (c names its runs,
 * and the run's job is one of them); with no such names, every run. */
static bool
compared(const struct comparison *c, const struct sides *sides, int k, size_t i)
{
	long long job = i < sides->njobs[k] ? sides->jobs[k][i] : 0;

	if (c == NULL || c->nround_runs == 0)
		return true;
	for (size_t r = 0; r < c->nround_runs; r++)
		if (c->round_runs[r][k] == job && job != 0)
			return true;
	return false;
}
static const struct view_type sides_view =
	VIEW_TYPE("runs", struct sides, sides_fields);

/* Side k's runs of a chart: those comparison c read as dots, the others
 * as rings, each spread across its column and linked to its run. */
static void
side_dots(struct svg *s, const char *metric, const struct sides *sides, int k,
	  const struct comparison *c)
{
	static const char *const names[2] = {"base", "head"};
	size_t n = sides->n[k], m[2] = {0, 0};
	/* [0]: the runs compared, [1]: the others */
	double *x[2] = {xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double))};
	double *y[2] = {xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double))};
	char **t[2] = {xcalloc(n + 1, sizeof(char *)),
		       xcalloc(n + 1, sizeof(char *))};
	char **h[2] = {xcalloc(n + 1, sizeof(char *)),
		       xcalloc(n + 1, sizeof(char *))};

	for (size_t i = 0; i < n; i++) {
		int o = !compared(c, sides, k, i);
		long long job = i < sides->njobs[k] ? sides->jobs[k][i] : 0;
		char v[32];

		/* Spread across the column, so that runs with the same value
		 * do not hide each other. */
		x[o][m[o]] =
			k +
			(n > 1 ? -0.2 + 0.4 * (double)i / (double)(n - 1) : 0);
		y[o][m[o]] = sides->v[k][i];
		unit_si(v, sizeof v, sides->v[k][i], unit_of(metric));
		t[o][m[o]] = job > 0 ? xasprintf("%s run %zu (run %lld): %s%s",
						 names[k], i + 1, job, v,
						 o ? ", not compared" : "")
				     : xasprintf("%s run %zu: %s", names[k],
						 i + 1, v);
		h[o][m[o]] = job > 0 ? xasprintf("/jobs/%lld", job) : NULL;
		m[o]++;
	}
	svg_points(s, k, x[0], y[0], m[0], (const char *const *)t[0],
		   (const char *const *)h[0]);
	svg_points_hollow(s, k, x[1], y[1], m[1], (const char *const *)t[1],
			  (const char *const *)h[1]);
	for (int o = 0; o < 2; o++) {
		for (size_t i = 0; i < m[o]; i++) {
			free(t[o][i]);
			free(h[o][i]);
		}
		free(t[o]);
		free(h[o]);
		free(x[o]);
		free(y[o]);
	}
}

/* One metric's chart of its sides' runs. */
static void
sides_chart(struct buf *b, const char *metric, const struct sides *sides,
	    const char *base, const char *head, const struct comparison *c)
{
	char bl[32], hl[32], desc[512], m0[32], m1[32];
	const char *cats[2] = {bl, hl};
	double lo = INFINITY, hi = -INFINITY, mean[2], sd[2];
	struct svg *s;

	snprintf(bl, sizeof bl, "base %.10s", base ? base : "?");
	snprintf(hl, sizeof hl, "head %.10s", head ? head : "?");
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < sides->n[k]; i++) {
			double v = sides->v[k][i];

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		mean_sd(sides->v[k], sides->n[k], &mean[k], &sd[k]);
		if (isfinite(sd[k])) {
			lo = mean[k] - sd[k] < lo ? mean[k] - sd[k] : lo;
			hi = mean[k] + sd[k] > hi ? mean[k] + sd[k] : hi;
		}
	}
	unit_si(m0, sizeof m0, mean[0], unit_of(metric));
	unit_si(m1, sizeof m1, mean[1], unit_of(metric));
	snprintf(desc, sizeof desc,
		 "Every run of %s at the two commits: %zu at the base (mean "
		 "%s), %zu at the head "
		 "(mean %s); a bar is a mean, the band its spread (one "
		 "standard deviation)%s.",
		 metric, sides->n[0], m0, sides->n[1], m1,
		 c != NULL && c->nround_runs > 0
			 ? "; a dot is a run compared, a ring a run at the "
			   "commit that this comparison did not read"
			 : "");
	s = svg_new(560, 260, metric, desc);
	svg_range(s, -0.5, 1.5, lo, hi);
	svg_yaxis(s, metric, unit_of(metric));
	svg_xcategories(s, cats, 2);
	for (int k = 0; k < 2; k++) {
		double bx[2] = {k - 0.3, k + 0.3}, blo[2], bhi[2];

		blo[0] = blo[1] = mean[k] - sd[k];
		bhi[0] = bhi[1] = mean[k] + sd[k];
		svg_band(s, k, bx, blo, bhi, 2);
		side_dots(s, metric, sides, k, c);
		svg_hline(s, k, k - 0.3, k + 0.3, mean[k],
			  k == 0 ? "the base's mean" : "the head's mean");
		svg_legend(s, k, k == 0 ? bl : hl);
	}
	buf_adds(b, "<figure class=\"chart\">");
	svg_finish(s, b);
	buf_adds(b, "<figcaption>");
	html_text(b, desc);
	buf_adds(b, "</figcaption></figure>\n");
}

void
page_sides_charts(struct buf *b, const json_t *values, const char *base,
		  const char *head, const struct comparison *c)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)values, key, v)
	{
		struct view_doc d = {0};
		struct sides sides;
		char err[128];

		/* a metric without both sides' runs has no chart */
		if (view_decode(&d, &sides_view, v, &sides, err, sizeof err) &&
		    sides.v[0] != NULL && sides.v[1] != NULL)
			sides_chart(b, key, &sides, base, head, c);
		view_release(&d);
	}
}

/* The regression's bisection: its outcome and every step. */
/* The bisection's record: its outcome, the first bad commit, the
 * bisection it follows. */
static void
bisection_head(struct buf *b, const struct store_bisection *bs, bool own)
{
	char id[32];

	buf_adds(b, own ? "<h2>Steps</h2>\n<p>" : "<h2>Bisection</h2>\n<p>");
	if (!own && bs->id != 0) {
		snprintf(id, sizeof id, "%lld", bs->id);
		page_link(b, "/bisections/", id, "Bisection");
		buf_adds(b, " ");
		html_text(b, id);
		buf_adds(b, ". ");
	}
	if (bs->first_bad.sha != NULL) {
		buf_adds(b, "First bad commit: ");
		page_sha(b, bs->first_bad.sha, bs->first_bad.subject);
		if (bs->first_bad.author != NULL) {
			buf_adds(b, ", by ");
			html_text(b, bs->first_bad.author);
		}
		buf_adds(b, ".<br>\n");
	}
	if (bs->lead != 0) {
		snprintf(id, sizeof id, "%lld", bs->lead);
		buf_adds(b, "It follows ");
		page_link(b, "/bisections/", id, "bisection");
		buf_adds(b, " ");
		html_text(b, id);
		buf_adds(b, ", of the same range on another series, and only "
			    "confirms its first bad commit against its parent "
			    "here.<br>\n");
	}
	html_text(b, bs->state);
	if (bs->reason != NULL) {
		buf_adds(b, ": ");
		html_text(b, bs->reason);
	}
	buf_adds(b, "</p>\n");
}

/* A step's comparisons, each a link to its compare page: with the good
 * end (a confirmation's: with the parent), and a midpoint's with the
 * bad end. */
static void
step_comparisons(struct buf *b, const struct store_bisection *bs,
		 const struct store_bisection_step *st)
{
	const struct store_bisection_pair *p[2] = {&st->good_pair,
						   &st->bad_pair};
	bool confirm = strcmp(st->kind, "confirm") == 0;

	for (int i = 0; i < 2; i++) {
		if (p[i]->base == NULL || p[i]->head == NULL)
			continue;
		if (i > 0)
			buf_adds(b, "<br>");
		buf_adds(b, "<a href=\"");
		page_compare_href(b, "/compare", bs->series, p[i]->base,
				  p[i]->head);
		buf_adds(b, "\">");
		buf_adds(b, i > 0     ? "with the bad end"
			    : confirm ? "with its parent"
				      : "with the good end");
		buf_adds(b, "</a>");
	}
}

void
page_bisection(struct buf *b, const struct store_bisection *bs, bool own)
{
	char num[64];

	bisection_head(b, bs, own);
	buf_adds(b, "<table>\n<tr><th scope=\"col\">step</th>"
		    "<th scope=\"col\">kind</th><th scope=\"col\">commit</th>"
		    "<th scope=\"col\">ok runs</th><th scope=\"col\">verdict"
		    "</th><th scope=\"col\">why</th><th scope=\"col\">"
		    "compared</th></tr>\n");
	for (size_t i = 0; i < bs->nsteps; i++) {
		const struct store_bisection_step *st = &bs->steps[i];

		snprintf(num, sizeof num, "%lld", st->n);
		buf_adds(b, "<tr><td>");
		html_text(b, num);
		buf_adds(b, "</td><td>");
		html_text(b, st->kind);
		buf_adds(b, "</td><td>");
		page_sha(b, st->commit.sha, st->commit.subject);
		buf_adds(b, "</td><td>");
		snprintf(num, sizeof num, "%lld", st->ok);
		html_text(b, num);
		buf_adds(b, "</td><td>");
		html_text(b, st->verdict != NULL ? st->verdict : "running");
		buf_adds(b, "</td><td>");
		html_prose(b, st->reason);
		buf_adds(b, "</td><td>");
		step_comparisons(b, bs, st);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* The store's answer for a page: decoded by its view, drawn by its
 * render(). */
static void
page_on_answer(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	const struct page *pg = http_req_data(req);
	struct view_doc d = {0};
	void *doc;
	struct buf b;
	char *title, err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, pg->missing);
		return;
	}
	doc = xcalloc(1, pg->view->size);
	if (!view_load(&d, pg->view, text, doc, err, sizeof err)) {
		page_broken(req, err);
	} else {
		buf_init(&b);
		title = pg->render(&b, doc, req);
		page_reply(req, 200, title, &b);
		free(title);
		buf_release(&b);
	}
	view_release(&d);
	free(doc);
}

store_text_cb
page_answer(bool twin)
{
	return twin ? web_on_json : page_on_answer;
}

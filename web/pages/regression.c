/*
 * regression.c: a regression's page, the one report mails link to: the
 * record, LKP's table as HTML with each row's verdict, a chart of every
 * run of each regressed KPI, the job and how to reproduce it, the report
 * as mailed, its news and its bisection.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/log.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* " -89.1% (p 0.00012, 6 runs a side)": what a later head showed. */
static void
still_figures(struct buf *b, json_t *o, const char *pct, const char *p,
	      const char *runs)
{
	char t[NUM_PCT_MAX];

	if (!json_is_number(json_object_get(o, pct)))
		return;
	buf_addf(b, " <span class=\"nw\">%s</span>",
		 num_pct(t, sizeof t,
			 json_number_value(json_object_get(o, pct)), "?"));
	if (json_is_number(json_object_get(o, p)))
		buf_addf(b, " (p %.2g",
			 json_number_value(json_object_get(o, p)));
	else
		buf_adds(b, " (");
	if (json_integer_value(json_object_get(o, runs)) > 0)
		buf_addf(b, "%s%lld runs a side",
			 json_is_number(json_object_get(o, p)) ? ", " : "",
			 (long long)json_integer_value(
				 json_object_get(o, runs)));
	buf_adds(b, ")");
}

/* How a change point of a branch's history was found: the means of
 * the segments around it (the record's history). */
static void
history_row(struct buf *b, json_t *r)
{
	json_t *h = json_object_get(r, "history");
	json_t *before = json_object_get(h, "before");
	json_t *after = json_object_get(h, "after");
	const char *kpi = rjson_get_str(r, "kpi");

	if (rjson_get_str(r, "found_by") == NULL ||
	    strcmp(rjson_get_str(r, "found_by"), "change point") != 0 ||
	    !json_is_object(before) || !json_is_object(after) || kpi == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">found by</th><td>a change point "
		    "of the branch's history (");
	buf_addf(b, "%lld commits): ",
		 (long long)json_integer_value(json_object_get(h, "points")));
	page_segment(b, before, kpi, true);
	buf_adds(b, ", then ");
	page_segment(b, after, kpi, false);
	buf_adds(b, "</td></tr>\n");
}

/* The latest head that still shows it, with what it showed there (the
 * record above keeps what it was found with); nothing when that is the
 * commit it was found at. */
static void
still_row(struct buf *b, json_t *r)
{
	const char *last = rjson_get_str(r, "last_head");

	if (last == NULL || rjson_get_str(r, "commit") == NULL ||
	    strcmp(last, rjson_get_str(r, "commit")) == 0)
		return;
	buf_adds(b, "<tr><th scope=\"row\">still at</th><td>");
	page_commit(b, json_object_get(r, "last_head"));
	still_figures(b, r, "last_change_pct", "last_p_value", "last_runs");
	buf_adds(b, "</td></tr>\n");
}

/* A row of the record: a name and a value (escaped), or nothing when
 * the value is absent. */
static void
row(struct buf *b, const char *name, const char *value)
{
	if (value == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">");
	html_text(b, name);
	buf_adds(b, "</th><td>");
	if (strcmp(name, "found") == 0 || strcmp(name, "updated") == 0)
		html_time(b, value);
	else
		html_text(b, value);
	buf_adds(b, "</td></tr>\n");
}

static void
row_commit(struct buf *b, const char *name, json_t *info)
{
	if (!json_is_object(info) || rjson_get_str(info, "sha") == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">");
	html_text(b, name);
	buf_adds(b, "</th><td>");
	page_commit(b, info);
	buf_adds(b, "</td></tr>\n");
}

static void
on_regression(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	json_t *r = text ? json_loads(text, 0, NULL) : NULL;
	json_t *v, *e, *job, *report;
	const char *series, *key;
	struct buf b;
	char num[64], *title, *jtext;
	size_t i;

	if (p != NULL || r == NULL) {
		page_fail(req, p, "regression of that number");
		json_decref(r);
		return;
	}
	series = rjson_get_str(r, "series");
	v = json_object_get(r, "change_pct");
	num_pct(num, sizeof num, json_is_number(v) ? json_number_value(v) : NAN,
		"?");
	/* The commit at fault leads once it is known; its range before. */
	if (json_is_object(json_object_get(r, "culprit")))
		title = xasprintf(
			"%.10s: %s %s %s",
			rjson_get_str(json_object_get(r, "culprit"), "sha"),
			rjson_get_str(r, "kpi"), num, rjson_get_str(r, "kind"));
	else
		title = xasprintf(
			"%.10s..%.10s: %s %s %s", rjson_get_str(r, "base"),
			rjson_get_str(r, "commit"), rjson_get_str(r, "kpi"),
			num, rjson_get_str(r, "kind"));
	buf_init(&b);
	buf_adds(&b, "<p class=\"state-");
	html_attr(&b, rjson_get_str(r, "state"));
	buf_adds(&b, "\">");
	html_text(&b, rjson_get_str(r, "state"));
	buf_adds(&b, "</p>\n<table>\n");
	row(&b, "tree", rjson_get_str(r, "tree"));
	row(&b, "branch", rjson_get_str(r, "branch"));
	row_commit(&b, "commit at fault", json_object_get(r, "culprit"));
	row_commit(&b, "found at", json_object_get(r, "commit_info"));
	row_commit(&b, "base", json_object_get(r, "base_info"));
	row(&b, "series", series);
	row(&b, "KPI", rjson_get_str(r, "kpi"));
	history_row(&b, r);
	row(&b, "change", num);
	if (json_is_number(json_object_get(r, "p_value"))) {
		snprintf(num, sizeof num, "%.2g",
			 json_number_value(json_object_get(r, "p_value")));
		row(&b, "p", num);
	}
	if (json_is_integer(json_object_get(r, "base_runs")))
		snprintf(num, sizeof num, "%lld+%lld",
			 (long long)json_integer_value(
				 json_object_get(r, "base_runs")),
			 (long long)json_integer_value(
				 json_object_get(r, "head_runs")));
	else
		snprintf(num, sizeof num, "%lld",
			 (long long)json_integer_value(
				 json_object_get(r, "runs")));
	row(&b, "runs compared (base+head)", num);
	still_row(&b, r);
	row(&b, "fixed by", rjson_get_str(r, "fixed_by"));
	row(&b, "found", rjson_get_str(r, "created"));
	row(&b, "updated", rjson_get_str(r, "updated"));
	buf_adds(&b, "</table>\n<p>");
	buf_adds(&b, "<a href=\"/compare?series=");
	page_query(&b, series);
	buf_adds(&b, "&amp;base=");
	page_query(&b, rjson_get_str(r, "base"));
	buf_adds(&b, "&amp;head=");
	page_query(&b, rjson_get_str(r, "commit"));
	buf_adds(&b,
		 "\">Compare these commits</a> &middot; <a href=\"/series/");
	html_attr(&b, series);
	buf_adds(&b, "/history?metric=");
	page_query(&b, rjson_get_str(r, "kpi"));
	buf_adds(&b, "\">the KPI's history</a> &middot; <a "
		     "href=\"/queue?series=");
	page_query(&b, series);
	buf_adds(&b, "\">the series' runs</a></p>\n");
	json_object_foreach(json_object_get(r, "values"), key, v)
	{
		if (!json_is_array(json_object_get(v, "base")) ||
		    !json_is_array(json_object_get(v, "head")))
			continue;
		page_sides_chart(&b, key, v, rjson_get_str(r, "base"),
				 rjson_get_str(r, "commit"));
	}
	buf_adds(&b, "<h2>The changed metrics (LKP's table)</h2>\n");
	page_comparison(&b, json_object_get(r, "comparison"));
	if (json_is_object(json_object_get(r, "bisection"))) {
		struct view_doc bd = {0};
		struct store_bisection bs;
		char err[256];

		if (view_decode(&bd, &store_bisection_view,
				json_object_get(r, "bisection"), &bs, err,
				sizeof err))
			page_bisection(&b, &bs, false);
		else
			log_warnx("regression page: %s", err);
		view_release(&bd);
	}
	/* The atomic job as a job file robot submit takes (its runs in
	 * the command, not the file's repeat). */
	job = json_object_get(json_object_get(r, "job"), "job");
	if (json_is_object(job)) {
		json_t *file = json_deep_copy(job);
		json_int_t repeat =
			json_integer_value(json_object_get(r, "repeat"));

		json_object_del(file, "repeat");
		jtext = rjson_dumps(file, JSON_INDENT(2));
		json_decref(file);
		buf_adds(&b, "<h2>The job</h2>\n<pre id=\"job\">");
		html_text(&b, jtext);
		buf_adds(&b, "</pre>\n<p>To reproduce: save the job as "
			     "<code>job.json</code>, then</p>\n<pre "
			     "id=\"reproduce\">robot submit job.json");
		if (rjson_get_str(r, "tbox_group") != NULL) {
			buf_adds(&b, " --tbox-group ");
			html_text(&b, rjson_get_str(r, "tbox_group"));
		}
		if (rjson_get_str(r, "tree") != NULL) {
			buf_adds(&b, " --tree ");
			html_text(&b, rjson_get_str(r, "tree"));
		}
		buf_adds(&b, " --commit ");
		html_text(&b, rjson_get_str(r, "base"));
		buf_adds(&b, " --commit ");
		html_text(&b, rjson_get_str(r, "commit"));
		if (repeat > 0)
			buf_addf(&b, " --repeat %lld", (long long)repeat);
		buf_adds(&b, "</pre>\n");
		free(jtext);
	}
	report = json_object_get(r, "report");
	if (json_is_object(report)) {
		buf_addf(&b,
			 "<h2>The report as mailed</h2>\n<p>to %lld "
			 "recipients, %lld sent</p>\n<pre>",
			 (long long)json_integer_value(
				 json_object_get(report, "recipients")),
			 (long long)json_integer_value(
				 json_object_get(report, "sent")));
		html_text(&b, rjson_get_str(report, "subject"));
		buf_adds(&b, "\n\n");
		html_text(&b, rjson_get_str(report, "body"));
		buf_adds(&b, "</pre>\n");
	}
	buf_adds(&b, "<h2>What happened</h2>\n<ul>\n<li>");
	html_time(&b, rjson_get_str(r, "created"));
	buf_adds(&b, ": found</li>\n");
	json_array_foreach(json_object_get(r, "events"), i, e)
	{
		buf_adds(&b, "<li>");
		html_time(&b, rjson_get_str(e, "created"));
		buf_adds(&b, ": ");
		html_text(&b, rjson_get_str(e, "kind"));
		if (rjson_get_str(e, "head") != NULL) {
			buf_adds(&b, " ");
			page_commit(&b, json_object_get(e, "head"));
		}
		still_figures(&b, e, "change_pct", "p_value", "runs");
		buf_adds(&b, "</li>\n");
	}
	buf_adds(&b, "</ul>\n<p><a href=\"/api/regressions/");
	snprintf(num, sizeof num, "%lld",
		 (long long)json_integer_value(json_object_get(r, "id")));
	html_attr(&b, num);
	buf_adds(&b, "\">As JSON</a></p>");
	page_reply(req, 200, title, &b);
	buf_release(&b);
	free(title);
	json_decref(r);
}

void
pages_regression(struct web *w, struct http_req *req,
		 const struct web_call *call)
{
	store_regression(w->d.store, strtoll(call->arg, NULL, 10),
			 on_regression, req);
}

/*
 * regression.c: a regression's page: the record and LKP's table, every
 * value escaped by web/html.c.  No script, no style of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "web/html.h"
#include "web/pages/regression.h"
#include "robot/core/banned.h"

static void
page_reply(struct http_req *req, int status, const char *title,
	   const char *body)
{
	char *page = html_page(title, body);

	http_req_reply(req, status, "text/html; charset=utf-8", page,
		       strlen(page));
	free(page);
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
	html_text(b, value);
	buf_adds(b, "</td></tr>\n");
}

/* The regression's bisection: its outcome and every step. */
static void
bisection(struct buf *b, json_t *bs)
{
	json_t *fb = json_object_get(bs, "first_bad"), *st;
	char num[64];
	size_t i;

	if (!json_is_object(bs))
		return;
	buf_adds(b, "<h2>Bisection</h2>\n<p>");
	if (json_is_object(fb)) {
		buf_adds(b, "First bad commit: <code>");
		html_text(b, rjson_get_str(fb, "sha"));
		buf_adds(b, "</code> ");
		html_text(b, rjson_get_str(fb, "subject"));
		if (rjson_get_str(fb, "author") != NULL) {
			buf_adds(b, ", by ");
			html_text(b, rjson_get_str(fb, "author"));
		}
		buf_adds(b, ".<br>\n");
	}
	html_text(b, rjson_get_str(bs, "state"));
	if (rjson_get_str(bs, "reason") != NULL) {
		buf_adds(b, ": ");
		html_text(b, rjson_get_str(bs, "reason"));
	}
	buf_adds(b, "</p>\n<table>\n<tr><th scope=\"col\">step</th>"
		    "<th scope=\"col\">kind</th><th scope=\"col\">commit</th>"
		    "<th scope=\"col\">ok runs</th><th scope=\"col\">verdict"
		    "</th><th scope=\"col\">why</th></tr>\n");
	json_array_foreach(json_object_get(bs, "steps"), i, st)
	{
		json_t *c = json_object_get(st, "commit");

		snprintf(num, sizeof num, "%lld",
			 (long long)json_integer_value(json_object_get(st, "n")));
		buf_adds(b, "<tr><td>");
		html_text(b, num);
		buf_adds(b, "</td><td>");
		html_text(b, rjson_get_str(st, "kind"));
		buf_adds(b, "</td><td><code>");
		snprintf(num, sizeof num, "%.12s", rjson_get_str(c, "sha"));
		html_text(b, num);
		buf_adds(b, "</code> ");
		html_text(b, rjson_get_str(c, "subject"));
		buf_adds(b, "</td><td>");
		snprintf(num, sizeof num, "%lld",
			 (long long)json_integer_value(json_object_get(
				 json_object_get(st, "runs"), "ok")));
		html_text(b, num);
		buf_adds(b, "</td><td>");
		html_text(b, rjson_get_str(st, "verdict") != NULL
				     ? rjson_get_str(st, "verdict")
				     : "running");
		buf_adds(b, "</td><td>");
		html_text(b, rjson_get_str(st, "reason"));
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

static void
on_regression(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	json_t *r = text ? json_loads(text, 0, NULL) : NULL;
	json_t *v;
	struct buf b;
	char num[64], *title;

	if (p != NULL) {
		page_reply(req, 503, "Not now",
			   "<p>robot cannot reach its database: try again in "
			   "a minute.</p>");
		return;
	}
	if (r == NULL) {
		page_reply(req, 404, "No such regression",
			   "<p>robot has no regression of that number.</p>");
		return;
	}
	v = json_object_get(r, "change_pct");
	if (json_is_number(v))
		snprintf(num, sizeof num, "%+.1f%%", json_number_value(v));
	else
		snprintf(num, sizeof num, "?");
	title = xasprintf("%s %s %s", rjson_get_str(r, "kpi"), num,
			  rjson_get_str(r, "kind"));
	buf_init(&b);
	buf_adds(&b, "<table>\n");
	row(&b, "state", rjson_get_str(r, "state"));
	row(&b, "tree", rjson_get_str(r, "tree"));
	row(&b, "branch", rjson_get_str(r, "branch"));
	row(&b, "commit", rjson_get_str(r, "commit"));
	row(&b, "base", rjson_get_str(r, "base"));
	row(&b, "series", rjson_get_str(r, "series"));
	row(&b, "KPI", rjson_get_str(r, "kpi"));
	row(&b, "change", num);
	if (json_is_number(json_object_get(r, "p_value"))) {
		snprintf(num, sizeof num, "%.2g",
			 json_number_value(json_object_get(r, "p_value")));
		row(&b, "p", num);
	}
	snprintf(num, sizeof num, "%lld",
		 (long long)json_integer_value(json_object_get(r, "runs")));
	row(&b, "runs a side", num);
	row(&b, "still at", rjson_get_str(r, "last_head"));
	row(&b, "fixed by", rjson_get_str(r, "fixed_by"));
	row(&b, "bisected to",
	    rjson_get_str(json_object_get(r, "bisected_to"), "sha"));
	row(&b, "found", rjson_get_str(r, "created"));
	row(&b, "updated", rjson_get_str(r, "updated"));
	buf_adds(&b, "</table>\n<h2>The changed metrics (LKP's table)</h2>\n"
		     "<pre>");
	html_text(&b, rjson_get_str(r, "table"));
	buf_adds(&b, "</pre>\n");
	bisection(&b, json_object_get(r, "bisection"));
	buf_adds(&b, "<p><a href=\"/api/regressions/");
	snprintf(num, sizeof num, "%lld",
		 (long long)json_integer_value(json_object_get(r, "id")));
	html_attr(&b, num);
	buf_adds(&b, "\">As JSON</a></p>");
	page_reply(req, 200, title, b.data);
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

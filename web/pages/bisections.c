/*
 * bisections.c: the bisections (/bisections, the twin of
 * /api/bisections): the newest first, each with its state, steps and
 * first bad commit.
 */
#include <stdio.h>

#include "robot/core/view.h"
#include "robot/daemon/store/bisect.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

static void
on_bisections(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_bisections j;
	struct buf b;
	char err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "bisections");
		return;
	}
	if (!view_load(&d, &store_bisections_view, text, &j, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	if (j.nbisections == 0)
		buf_adds(&b, "<p class=\"muted\">No bisection yet.</p>\n");
	buf_adds(&b, "<div class=\"wide\"><table>\n<thead><tr><th "
		     "scope=\"col\">bisection</th><th scope=\"col\">state</th>"
		     "<th scope=\"col\">steps</th><th scope=\"col\">first bad"
		     "</th><th scope=\"col\">KPI, series</th></tr></thead>\n"
		     "<tbody>\n");
	for (size_t i = 0; i < j.nbisections; i++) {
		const struct store_bisections_row *x = &j.bisections[i];
		char id[32];

		snprintf(id, sizeof id, "%lld", x->id);
		buf_adds(&b, "<tr><td class=\"num\">");
		page_link(&b, "/bisections/", id, id);
		buf_adds(&b, "</td>");
		page_cell(&b, x->state);
		buf_addf(&b, "<td class=\"num\">%lld</td><td>", x->steps);
		if (x->first_bad.sha != NULL)
			page_sha(&b, x->first_bad.sha, x->first_bad.subject);
		buf_adds(&b, "</td><td>");
		html_text(&b, x->kpi);
		buf_adds(&b, " <span class=\"muted\">");
		html_text(&b, x->series);
		buf_adds(&b, "</span></td></tr>\n");
	}
	buf_adds(&b, "</tbody></table></div>\n<p><a href=\"/api/bisections\">"
		     "As JSON</a></p>");
	page_reply(req, 200, "Bisections", &b);
	buf_release(&b);
	view_release(&d);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	long limit = 100;

	(void)call;
	if (!web_int_arg(req, "limit", 1, 10000, &limit))
		return;
	store_bisections(w->d.store, (int)limit,
			 twin ? web_on_json : on_bisections, req);
}

const struct page bisections_page = {"/bisections", "/api/bisections", ask};

/*
 * bisections.c: the bisections (/bisections, the twin of
 * /api/bisections): the newest first, each with its state, steps and
 * first bad commit.
 */
#include <stdio.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/bisect.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_bisections *j = doc;

	(void)req;
	if (j->nbisections == 0)
		buf_adds(b, "<p class=\"muted\">No bisection yet.</p>\n");
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th "
		    "scope=\"col\">bisection</th><th scope=\"col\">state</th>"
		    "<th scope=\"col\">steps</th><th scope=\"col\">first bad"
		    "</th><th scope=\"col\">KPI, series</th></tr></thead>\n"
		    "<tbody>\n");
	for (size_t i = 0; i < j->nbisections; i++) {
		const struct store_bisections_row *x = &j->bisections[i];
		char id[32];

		snprintf(id, sizeof id, "%lld", x->id);
		buf_adds(b, "<tr><td class=\"num\">");
		page_link(b, "/bisections/", id, id);
		buf_adds(b, "</td>");
		page_cell(b, x->state);
		buf_addf(b, "<td class=\"num\">%lld</td><td>", x->steps);
		if (x->first_bad.sha != NULL)
			page_sha(b, x->first_bad.sha, x->first_bad.subject);
		/* the KPI's history in the series (a bisection named before
		 * its ends were measured has no KPI yet) */
		buf_adds(b, "</td><td>");
		if (x->kpi != NULL) {
			buf_adds(b, "<a href=\"/series/");
			page_series_path(b, x->series);
			buf_adds(b, "/history?metric=");
			page_query(b, x->kpi);
			buf_adds(b, "\">");
			html_text(b, x->kpi);
			buf_adds(b, "</a>");
		}
		buf_adds(b, " <span class=\"muted\">");
		page_series(b, x->series);
		buf_adds(b, "</span></td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n<p><a href=\"/api/bisections\">"
		    "As JSON</a></p>");
	return xstrdup("Bisections");
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	long limit = 100;

	(void)call;
	if (!web_int_arg(req, "limit", 1, 10000, &limit))
		return;
	store_bisections(w->d.store, (int)limit, page_answer(twin), req);
}

const struct page bisections_page = {"/bisections", "/api/bisections",
				     ask,           &store_bisections_view,
				     "bisections",  render};

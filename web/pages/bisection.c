/*
 * bisection.c: a bisection's page (/bisections/:id, the twin of
 * /api/bisections/:id): its ends, and each step with its verdict.
 */
#include <stdio.h>
#include <stdlib.h>

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
	const struct store_bisection *j = doc;
	char *title, id[32];

	(void)req;
	buf_adds(b, "<p>");
	page_series(b, j->series);
	if (j->tree != NULL) {
		buf_adds(b, ", tree ");
		page_link(b, "/trees/", j->tree, j->tree);
	}
	buf_adds(b, ", between ");
	page_sha(b, j->good, NULL);
	buf_adds(b, " (good) and ");
	page_sha(b, j->bad, NULL);
	buf_adds(b, " (bad)");
	if (j->regression != 0) {
		char what[48];

		snprintf(id, sizeof id, "%lld", j->regression);
		snprintf(what, sizeof what, "regression %s", id);
		buf_adds(b, ", for ");
		page_link(b, "/regressions/", id, what);
	}
	buf_adds(b, ".</p>\n");
	page_bisection(b, j, true);
	snprintf(id, sizeof id, "%lld", j->id);
	buf_adds(b, "<p>");
	page_link(b, "/api/bisections/", id, "As JSON");
	buf_adds(b, "</p>");
	title = xasprintf("Bisection %s", id);
	return title;
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_bisection(w->d.store, strtoll(call->arg, NULL, 10),
			page_answer(twin), req);
}

const struct page bisection_page = {
	"/bisections/:id",     "/api/bisections/:id",      ask,
	&store_bisection_view, "bisection of that number", render};

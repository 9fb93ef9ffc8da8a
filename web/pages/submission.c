/*
 * submission.c: a submission's page (/submissions/:id, the twin of
 * /api/submissions/:id): who asked for it and when, its runs by state
 * (the queue filtered to them), each series' commits with their runs,
 * and the pairs its runs are in with their verdicts.  robot submit
 * prints its URL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* Who, when, what file, and its runs by state. */
static void
record(struct buf *b, const struct store_submission *s)
{
	const struct store_submission_runs *r = &s->runs;
	char id[32];

	buf_adds(b, "<table>\n<tr><th scope=\"row\">by</th><td>");
	html_text(b, s->submitter);
	buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">asked</th><td>");
	html_time(b, s->created);
	buf_adds(b, "</td></tr>\n");
	if (s->file != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">job file</th><td>");
		html_text(b, s->file);
		buf_adds(b, "</td></tr>\n");
	}
	if (s->max_runs > 0)
		buf_addf(b,
			 "<tr><th scope=\"row\">runs a side, at most</th>"
			 "<td>%lld</td></tr>\n",
			 s->max_runs);
	buf_addf(b,
		 "<tr><th scope=\"row\">runs</th><td>%lld queued, %lld "
		 "running, %lld done, %lld failed",
		 r->queued, r->leased, r->done, r->failed);
	if (r->cancelled > 0)
		buf_addf(b, ", %lld cancelled", r->cancelled);
	snprintf(id, sizeof id, "%lld", s->id);
	buf_adds(b, " (");
	page_link(b, "/queue?submission=", id, "each run");
	buf_adds(b, ")</td></tr>\n</table>\n");
}

/* "and N more" under a list cut at its first 200, where the queue
 * filtered to the submission has all its runs. */
static void
more(struct buf *b, const struct store_submission *s, long long shown,
     long long total)
{
	char id[32];

	if (total <= shown)
		return;
	snprintf(id, sizeof id, "%lld", s->id);
	buf_addf(b, "<p class=\"muted\">The first %lld of %lld (", shown,
		 total);
	page_link(b, "/queue?submission=", id, "every run");
	buf_adds(b, ").</p>\n");
}

/* Each series' commits, with their runs. */
static void
commits(struct buf *b, const struct store_submission *s)
{
	buf_adds(b, "<h2>Commits</h2>\n<div class=\"wide\"><table>\n<thead>"
		    "<tr><th scope=\"col\">series</th><th scope=\"col\">"
		    "commit</th><th scope=\"col\">ok runs</th><th "
		    "scope=\"col\">failed</th><th scope=\"col\">to come</th>"
		    "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->ncommits; i++) {
		const struct store_submission_commit *c = &s->commits[i];

		buf_adds(b, "<tr><td>");
		page_series(b, c->series);
		buf_adds(b, "</td><td>");
		if (c->commit != NULL)
			page_sha(b, c->commit, NULL);
		else
			buf_adds(b, "(no commit)");
		buf_addf(b,
			 "</td><td class=\"num\">%lld</td><td class=\"num\">"
			 "%lld</td><td class=\"num\">%lld</td></tr>\n",
			 c->ok, c->failed, c->to_come);
	}
	buf_adds(b, "</tbody></table></div>\n");
	more(b, s, (long long)s->ncommits, s->commits_total);
}

/* The pairs its runs are in: each a comparison, with its verdict. */
static void
pairs(struct buf *b, const struct store_submission *s)
{
	if (s->npairs == 0)
		return;
	page_pairs_open(b);
	for (size_t i = 0; i < s->npairs; i++) {
		const struct store_submission_pair *p = &s->pairs[i];

		page_pair_row(b, p->series, p->base, p->head,
			      p->verdict != NULL ? p->verdict : p->state);
		if (p->kpi != NULL) {
			buf_adds(b, " <span class=\"muted\">");
			html_text(b, p->kpi);
			buf_adds(b, "</span>");
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
	more(b, s, (long long)s->npairs, s->pairs_total);
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_submission *s = doc;
	char *title;

	(void)req;
	record(b, s);
	commits(b, s);
	pairs(b, s);
	buf_addf(b, "<p><a href=\"/api/submissions/%lld\">As JSON</a></p>",
		 s->id);
	title = xasprintf("Submission %lld", s->id);
	return title;
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_submission(w->d.store, strtoll(call->arg, NULL, 10),
			 page_answer(twin), req);
}

const struct page submission_page = {
	"/submissions/:id",     "/api/submissions/:id",      ask,
	&store_submission_view, "submission of that number", render};

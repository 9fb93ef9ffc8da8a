/*
 * queue.c: the queue (/queue, the twin of /api/jobs): the runs, newest
 * first, filtered by state, series, commit, box and submission (one
 * filter for both: web_jobs_filter()), a page at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/jobs.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* The queue's filter fields other than the state: each its query
 * argument. */
static const char *const queue_fields[] = {"series", "commit", "box",
					   "submission", NULL};

/* The filter's arguments given (not empty), each "&amp;NAME=VALUE". */
static void
queue_args(struct buf *b, struct http_req *req)
{
	static const char *const all[] = {"state", "series",     "commit",
					  "box",   "submission", NULL};

	for (size_t i = 0; all[i] != NULL; i++) {
		const char *v = http_req_arg(req, all[i], 0);

		if (v == NULL || v[0] == '\0')
			continue;
		buf_addf(b, "&amp;%s=", all[i]);
		page_query(b, v);
	}
}

/* A field's error, after it. */
static void
field_error(struct buf *b, const char *name, const char *field, const char *why)
{
	if (field == NULL || why == NULL || strcmp(name, field) != 0)
		return;
	buf_adds(b, " <strong class=\"state-new\" id=\"error\">");
	html_text(b, why);
	buf_adds(b, "</strong>");
}

/* The queue's filter: a state, and the fields above (empty: any), the
 * values as given, and why one of them (field) is refused. */
static void
queue_form(struct buf *b, struct http_req *req, const char *field,
	   const char *why)
{
	static const char *const states[] = {"",     "queued", "leased",
					     "done", "failed", NULL};
	static const int sizes[] = {50, 12, 16, 8};
	const char *state = http_req_arg(req, "state", 0);

	buf_adds(b, "<form method=\"get\" action=\"/queue\">\n<label>state "
		    "<select name=\"state\">");
	for (size_t i = 0; states[i] != NULL; i++) {
		buf_adds(b, "<option value=\"");
		html_attr(b, states[i]);
		buf_adds(b, "\"");
		if (state != NULL && strcmp(state, states[i]) == 0)
			buf_adds(b, " selected");
		buf_adds(b, ">");
		html_text(b, states[i][0] ? states[i] : "any");
		buf_adds(b, "</option>");
	}
	buf_adds(b, "</select></label>");
	field_error(b, "state", field, why);
	buf_adds(b, "\n");
	for (size_t i = 0; queue_fields[i] != NULL; i++) {
		buf_addf(b, "<label>%s <input name=\"%s\" size=\"%d\" value=\"",
			 queue_fields[i], queue_fields[i], sizes[i]);
		html_attr(b, http_req_arg(req, queue_fields[i], 0));
		buf_adds(b, "\"></label>");
		field_error(b, queue_fields[i], field, why);
		buf_adds(b, "\n");
	}
	buf_adds(b, "<button type=\"submit\">Show</button>\n</form>\n");
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_jobs *j = doc;

	queue_form(b, req, NULL, NULL);
	buf_adds(b, "<p class=\"muted\">The newest 100 (older ones "
		    "below).</p>\n"
		    "<div class=\"wide\"><table>\n<thead><tr><th "
		    "scope=\"col\">run</th><th scope=\"col\">state</th><th "
		    "scope=\"col\">series</th><th scope=\"col\">commit</th>"
		    "<th scope=\"col\">box</th><th scope=\"col\">updated</th>"
		    "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < j->njobs; i++) {
		const struct store_jobs_row *x = &j->jobs[i];

		buf_adds(b, "<tr>");
		page_job_cell(b, x->id);
		page_cell(b, x->state);
		/* the series' runs, the commit's page */
		buf_adds(b, "<td>");
		if (x->series != NULL)
			page_series(b, x->series);
		buf_adds(b, "</td><td>");
		if (x->commit != NULL)
			page_sha(b, x->commit, NULL);
		else
			buf_adds(b, "-");
		buf_adds(b, "</td>");
		page_box_cell(b, x->box);
		page_time_cell(b, x->updated);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
	/* Paging: the next 100 below the last shown. */
	if (j->njobs == 100) {
		buf_addf(b, "<p><a href=\"/queue?before=%lld", j->jobs[99].id);
		queue_args(b, req);
		buf_adds(b, "\">Older runs</a></p>\n");
	}
	/* its twin, with the same filter */
	buf_adds(b, "<p><a href=\"/api/jobs?limit=100");
	queue_args(b, req);
	buf_adds(b, "\">As JSON</a></p>");
	return xstrdup("The queue");
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	struct store_jobs_filter f = {.limit = 100};
	const char *field;
	char *why = web_jobs_filter(req, &f, &field);
	struct buf b;

	(void)call;
	if (why == NULL) {
		store_jobs(w->d.store, &f, page_answer(twin), req);
		return;
	}
	if (twin) {
		web_reply_error(req, 400, why);
		free(why);
		return;
	}
	/* the form again, as it was filled in, its error at the field (a
	 * field the form has not, as limit or before, above it) */
	buf_init(&b);
	if (strcmp(field, "limit") == 0 || strcmp(field, "before") == 0) {
		buf_adds(&b, "<p class=\"state-new\" id=\"error\">");
		html_text(&b, why);
		buf_adds(&b, "</p>\n");
	}
	queue_form(&b, req, field, why);
	page_reply(req, 400, "The queue", &b);
	buf_release(&b);
	free(why);
}

const struct page queue_page = {"/queue",         "/api/jobs", ask,
				&store_jobs_view, "runs",      render};

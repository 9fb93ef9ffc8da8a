/*
 * lab.c: the lab (/lab, the twin of /api/status): the boxes, each with
 * its state, failures, last heartbeat and what it runs now; what robotd
 * tells the lab's operators, and the runs that failed lately.
 */
#include <stdio.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* The boxes: each with what it runs now. */
static void
boxes_table(struct buf *b, const struct store_status *s)
{
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		    "box</th><th scope=\"col\">group</th><th scope=\"col\">"
		    "state</th><th scope=\"col\">failures</th><th "
		    "scope=\"col\" title=\"findings it ran marked invalid for "
		    "their box, 30 days\">false alarms</th><th "
		    "scope=\"col\">last seen</th><th scope=\"col\">running"
		    "</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct store_status_box *x = &s->boxes[i];

		buf_adds(b, "<tr>");
		page_box_cell(b, x->name);
		page_cell(b, x->tbox_group);
		buf_addf(b, "<td class=\"%s\">",
			 page_box_state_class(x->state));
		html_text(b, x->state);
		buf_addf(b,
			 "</td><td class=\"num\">%lld</td><td "
			 "class=\"num\">%lld</td>",
			 x->failures, x->false_alarms);
		page_time_cell(b, x->last_seen);
		buf_adds(b, "<td>");
		for (size_t k = 0; k < s->nrunning; k++) {
			const struct store_status_running *r = &s->running[k];
			char id[32];

			if (r->box == NULL || strcmp(r->box, x->name) != 0)
				continue;
			snprintf(id, sizeof id, "%lld", r->id);
			page_link(b, "/jobs/", id, r->key);
			buf_addf(b, " run %lld of %lld, lease until ", r->run,
				 r->runs);
			html_time(b, r->deadline);
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* What robotd tells the lab's operators (boxes too noisy), and the
 * newest failures. */
static void
notes_and_failures(struct buf *b, const struct store_status *s)
{
	if (s->nnotes > 0) {
		buf_adds(b, "<h2>Notes for the operators</h2>\n<ul>\n");
		for (size_t i = 0; i < s->nnotes; i++) {
			buf_adds(b, "<li>");
			html_text(b, s->notes[i].message);
			buf_adds(b, " <span class=\"muted\">");
			html_time(b, s->notes[i].created);
			buf_adds(b, "</span></li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	buf_adds(b, "<h2>Recent failures</h2>\n");
	if (s->nfailed == 0) {
		buf_adds(b, "<p class=\"muted\">None.</p>\n");
		return;
	}
	buf_adds(b, "<div class=\"wide\"><table>\n<tbody>\n");
	for (size_t i = 0; i < s->nfailed; i++) {
		const struct store_status_failed *x = &s->failed[i];

		buf_adds(b, "<tr>");
		page_job_cell(b, x->id);
		page_box_cell(b, x->box);
		page_cell(b, x->error);
		page_time_cell(b, x->updated);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_status *s = doc;

	(void)req;
	buf_addf(b,
		 "<p>Runs: %lld queued, %lld running, %lld done, %lld failed "
		 "(<a href=\"/queue\">the queue</a>).</p>\n<h2>Boxes</h2>\n",
		 s->queue.queued, s->queue.leased, s->queue.done,
		 s->queue.failed);
	boxes_table(b, s);
	notes_and_failures(b, s);
	buf_adds(b, "<p><a href=\"/api/status\">As JSON</a></p>");
	return xstrdup("The lab");
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	(void)call;
	web_status(w, page_answer(twin), req);
}

const struct page lab_page = {"/lab",   "/api/status", ask, &store_status_view,
			      "status", render};

/*
 * box.c: a box's page (/boxes/:name, the twin of /api/boxes/:name): its
 * state and health, the machine it said it is, the lab's notes that
 * name it, and its newest runs (all of them: the queue filtered by it).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/boxes.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* A row of the record: a text, or a time (NULL: no row). */
static void
row(struct buf *b, const char *name, const char *text, bool time)
{
	if (text == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">");
	html_text(b, name);
	buf_adds(b, "</th><td>");
	if (time)
		html_time(b, text);
	else
		html_text(b, text);
	buf_adds(b, "</td></tr>\n");
}

/* Its group, state, health, and the machine. */
static void
record(struct buf *b, const struct store_box *x)
{
	const struct store_box_facts *f = &x->facts;

	buf_adds(b, "<table>\n");
	row(b, "group", x->tbox_group, false);
	buf_addf(b, "<tr><th scope=\"row\">state</th><td class=\"%s\">",
		 page_box_state_class(x->state));
	html_text(b, x->state);
	buf_addf(b,
		 "</td></tr>\n<tr><th scope=\"row\">failed runs in a row"
		 "</th><td>%lld</td></tr>\n",
		 x->failures);
	row(b, "suspect since", x->suspect, true);
	row(b, "revoked", x->revoked, true);
	row(b, "power-cycled", x->power_cycled, true);
	row(b, "last seen", x->last_seen, true);
	row(b, "registered", x->registered, true);
	if (f->cpus > 0 && isfinite(f->memory))
		buf_addf(b,
			 "<tr><th scope=\"row\">size</th><td>%lld CPUs, %.1f "
			 "GiB memory</td></tr>\n",
			 f->cpus, f->memory / (1024.0 * 1024 * 1024));
	row(b, "cpu", f->cpu_model, false);
	row(b, "kernel", f->kernel, false);
	row(b, "/proc/version", f->proc_version, false);
	for (size_t i = 0; i < f->ndisks; i++)
		row(b, "disk", f->disks[i], false);
	buf_adds(b, "</table>\n");
}

/* What robotd told the lab's operators of it. */
static void
notes(struct buf *b, const struct store_box *x)
{
	if (x->nnotes == 0)
		return;
	buf_adds(b, "<h2>Notes</h2>\n<ul>\n");
	for (size_t i = 0; i < x->nnotes; i++) {
		buf_adds(b, "<li>");
		html_time(b, x->notes[i].created);
		buf_adds(b, ": ");
		html_text(b, x->notes[i].message);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

/* Its newest runs. */
static void
runs(struct buf *b, const struct store_box *x)
{
	buf_adds(b, "<h2>Runs</h2>\n");
	if (x->nruns == 0) {
		buf_adds(b, "<p class=\"muted\">No runs yet.</p>\n");
		return;
	}
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		    "run</th><th scope=\"col\">state</th><th scope=\"col\">"
		    "series</th><th scope=\"col\">commit</th><th "
		    "scope=\"col\">updated</th><th scope=\"col\">error</th>"
		    "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < x->nruns; i++) {
		const struct store_box_run *r = &x->runs[i];

		buf_adds(b, "<tr>");
		page_job_cell(b, r->id);
		page_cell(b, r->state);
		buf_adds(b, "<td>");
		page_series(b, r->series);
		buf_adds(b, "</td>");
		buf_adds(b, "<td>");
		if (r->commit != NULL)
			page_sha(b, r->commit, NULL);
		else
			buf_adds(b, "-");
		buf_adds(b, "</td>");
		page_time_cell(b, r->updated);
		page_cell(b, r->error);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n<p>");
	page_link(b, "/queue?box=", x->name, "All its runs");
	buf_adds(b, "</p>\n");
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_box *x = doc;
	char *title;

	(void)req;
	record(b, x);
	notes(b, x);
	runs(b, x);
	buf_adds(b, "<p>");
	page_link(b, "/api/boxes/", x->name, "As JSON");
	buf_adds(b, "</p>");
	title = xasprintf("Box %s", x->name);
	return title;
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_box(w->d.store, call->arg, page_answer(twin), req);
}

const struct page box_page = {"/boxes/:name",  "/api/boxes/:name", ask,
			      &store_box_view, "box of that name", render};

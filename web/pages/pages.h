/*
 * pages.h: robotd's HTML pages (DESIGN.md section 9, docs/web.md).
 * Each has a stable URL and a JSON twin in the API with the same data;
 * none needs JavaScript.  A page and its twin are one entry of pages[]:
 * one file each, web/pages/NAME.c, exports its struct page NAME_page,
 * whose ask() checks the arguments once for both; the table is made by
 * the build from meson.build's list of pages (scripts/c-table).
 *
 *   /                          home: newest regressions by commit, the
 *                              queue, the lab, the trees (/api/home)
 *   /regressions/:id           one regression (/api/regressions/:id)
 *   /commits/:sha?tree=        a commit: its series, pairs, findings
 *                              (/api/commits/:sha)
 *   /submissions/:id           a submission (/api/submissions/:id)
 *   /compare?series=&base=&head=  two commits of a series (/api/compare)
 *   /series/:series/history?metric=  a metric over commits
 *                              (/api/series/:series/history)
 *   /jobs/:id                  a run (/api/jobs/:id)
 *   /lab                       boxes and running jobs (/api/status)
 *   /queue?state=&series=      the runs (/api/jobs)
 *   /trees/:name               a tree (/api/trees/:name)
 *   /bisections, /bisections/:id  (/api/bisections...)
 *
 * Routes that are not a page with a twin:
 *
 *   /subscribe                 the form; POST subscribes
 *   /style.css                 the one stylesheet
 *   /icon.svg                  the pages' icon (a browser asks for
 *                              /favicon.ico, a 404, without it)
 */
#ifndef ROBOT_PAGES_H
#define ROBOT_PAGES_H

#include <stdbool.h>

#include "robot/core/buf.h"
#include "robot/core/view.h"
#include "web/web.h"

/*
 * A page and its JSON twin.  The router makes both public GET routes
 * from it (and makes the page the request's data, http_req_data()).
 * ask() checks the request's arguments, for both alike (answering a bad
 * one itself: a page of the error on the page, JSON on the twin,
 * web_reply_error()), then asks for the document with page_answer()'s
 * callback: the twin answers it as it is (web_on_json()), the page
 * decodes it by view and draws it by render(), which returns its title.
 * A page that draws in its own way (the run, the history, the compare
 * page) has no view and answers from ask().
 */
struct page {
	const char *route; /* the page's path: "/commits/:sha" */
	const char *api;   /* its twin's: "/api/commits/:sha" */
	void (*ask)(struct web *w, struct http_req *req,
		    const struct web_call *call, bool twin);
	const struct view_type *view; /* the document's, or NULL */
	const char *missing;          /* a 404's "no ...": "box of that name" */
	char *(*render)(struct buf *b, const void *doc, struct http_req *req);
};

/* The callback of a page's store call, arg the request: the twin's
 * (web_on_json()), or the page's (its view and render()). */
store_text_cb page_answer(bool twin);

/* Every page, NULL at the end (made by scripts/c-table). */
extern const struct page *const pages[];

void pages_subscribe_form(struct web *w, struct http_req *req,
			  const struct web_call *call);
void pages_subscribe(struct web *w, struct http_req *req,
		     const struct web_call *call);
void pages_style(struct web *w, struct http_req *req,
		 const struct web_call *call);
void pages_icon(struct web *w, struct http_req *req,
		const struct web_call *call);

#endif

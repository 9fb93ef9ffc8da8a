/*
 * pages.h: robotd's HTML pages (DESIGN.md section 9, docs/web.md).
 * Each has a stable URL and a JSON twin in the API with the same data;
 * none needs JavaScript.
 *
 *   /                          home: newest regressions by commit, the
 *                              queue, the lab, the trees (/api/home)
 *   /regressions/:id           one regression (/api/regressions/:id)
 *   /commits/:sha?tree=        a commit: its series, pairs, findings
 *                              (/api/commits/:sha)
 *   /compare?series=&base=&head=  two commits of a series (/api/compare)
 *   /series/:series/history?metric=  a metric over commits
 *                              (/api/series/:series/history)
 *   /jobs/:id                  a run (/api/jobs/:id)
 *   /lab                       boxes and running jobs (/api/status)
 *   /queue?state=&series=      the runs (/api/jobs)
 *   /trees/:name               a tree (/api/trees/:name)
 *   /bisections, /bisections/:id  (/api/bisections...)
 *   /subscribe                 the form; POST subscribes
 *   /style.css                 the one stylesheet
 *   /icon.svg                  the pages' icon (a browser asks for
 *                              /favicon.ico, a 404, without it)
 */
#ifndef ROBOT_PAGES_H
#define ROBOT_PAGES_H

#include "web/web.h"

void pages_home(struct web *w, struct http_req *req,
		const struct web_call *call);
void pages_regression(struct web *w, struct http_req *req,
		      const struct web_call *call);
void pages_commit(struct web *w, struct http_req *req,
		  const struct web_call *call);
void pages_submission(struct web *w, struct http_req *req,
		      const struct web_call *call);
void pages_compare(struct web *w, struct http_req *req,
		   const struct web_call *call);
void pages_history(struct web *w, struct http_req *req,
		   const struct web_call *call);
void pages_job(struct web *w, struct http_req *req,
	       const struct web_call *call);
void pages_lab(struct web *w, struct http_req *req,
	       const struct web_call *call);
void pages_queue(struct web *w, struct http_req *req,
		 const struct web_call *call);
void pages_tree(struct web *w, struct http_req *req,
		const struct web_call *call);
void pages_bisections(struct web *w, struct http_req *req,
		      const struct web_call *call);
void pages_bisection(struct web *w, struct http_req *req,
		     const struct web_call *call);
void pages_subscribe_form(struct web *w, struct http_req *req,
			  const struct web_call *call);
void pages_subscribe(struct web *w, struct http_req *req,
		     const struct web_call *call);
void pages_style(struct web *w, struct http_req *req,
		 const struct web_call *call);
void pages_icon(struct web *w, struct http_req *req,
		const struct web_call *call);

#endif

/*
 * api.h: the people's half of the JSON API (DESIGN.md section 7): submit
 * jobs, result documents and Prometheus metrics (a job, the jobs and the
 * status are the twins of the run, queue and lab pages, web/pages/).  The
 * router calls these after checking the route's token.
 */
#ifndef ROBOT_API_H
#define ROBOT_API_H

#include "web/web.h"

void api_submit(struct web *w, struct http_req *req,
		const struct web_call *call);
void api_results(struct web *w, struct http_req *req,
		 const struct web_call *call);
void api_metrics(struct web *w, struct http_req *req,
		 const struct web_call *call);

#endif

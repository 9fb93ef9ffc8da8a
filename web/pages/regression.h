/*
 * regression.h: a regression's page, the one report mails link to
 * (GET /regressions/:id; its JSON twin is GET /api/regressions/:id).
 */
#ifndef ROBOT_PAGES_REGRESSION_H
#define ROBOT_PAGES_REGRESSION_H

#include "web/web.h"

void pages_regression(struct web *w, struct http_req *req,
		      const struct web_call *call);

#endif

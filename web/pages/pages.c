/*
 * pages.c: the table of pages, from which the router makes each page's
 * route and its JSON twin's.  A new page is its file and a line here
 * (and in meson.build).  (Each page's struct is declared here, beside
 * its line, not in a header: nothing else names it.)
 */
#include <stddef.h>

#include "web/pages/pages.h"
#include "robot/core/banned.h"

extern const struct page home_page, regression_page, commit_page,
	submission_page, compare_page, history_page, job_page, lab_page,
	queue_page, tree_page, bisections_page, bisection_page;

const struct page *const pages[] = {
	&home_page,    &regression_page, &commit_page,     &submission_page,
	&compare_page, &history_page,    &job_page,        &lab_page,
	&queue_page,   &tree_page,       &bisections_page, &bisection_page,
	NULL,
};

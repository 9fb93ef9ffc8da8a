/*
 * page.h: what robotd's pages share (docs/web.md): the answer around a
 * body, links with their query escaped, commits, changes, LKP's table
 * as HTML and the chart of two sides' runs.  Every value goes through
 * web/html.c; every chart through web/svg.c.
 */
#ifndef ROBOT_PAGES_PAGE_H
#define ROBOT_PAGES_PAGE_H

#include <stdbool.h>

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "robot/core/buf.h"
#include "robot/daemon/store/bisect.h"
#include "web/web.h"

/* The page title and body (HTML, escaped by its maker), answered. */
void page_reply(struct http_req *req, int status, const char *title,
		const struct buf *body);
/* The same for a page whose data is final (a run that ended): cacheable
 * with its ETag etag (a quoted string), 304 when the browser has it. */
void page_reply_final(struct http_req *req, const char *title,
		      const struct buf *body, const char *etag);
/* The page of a failed read: 503 when the database is down, else p's
 * status and message; a 404 when p is NULL (no such thing: what). */
void page_fail(struct http_req *req, const struct problem *p, const char *what);
/* The page of a document that did not decode into its view (500): why
 * (view_load()'s message), logged too. */
void page_broken(struct http_req *req, const char *why);
/* The page of a bad request (400): why. */
void page_bad(struct http_req *req, const char *why);
/* Appends s escaped for a URL's query. */
void page_query(struct buf *b, const char *s);
/* <a href="PATH">TEXT</a>: path is a fixed prefix, then arg escaped. */
void page_link(struct buf *b, const char *prefix, const char *arg,
	       const char *text);
/* Appends series escaped for a URL's path (its '/' kept), for
 * "/series/SERIES/..." links. */
void page_series_path(struct buf *b, const char *series);
/* <a href="/series/SERIES">SERIES</a>: the series' page. */
void page_series(struct buf *b, const char *series);
/* Table cells: text ("-" for NULL); a time; a run's number linked to
 * its page; a box's name linked to its page. */
void page_cell(struct buf *b, const char *s);
void page_time_cell(struct buf *b, const char *s);
void page_job_cell(struct buf *b, long long id);
void page_box_cell(struct buf *b, const char *name);
/* The class of a box's state, "state-new" where it takes no work
 * (broken, suspect, revoked), else "state-ok". */
const char *page_box_state_class(const char *state);
/* A commit: its short SHA in <code>, a link to its page (/commits/SHA),
 * and its subject (or NULL). */
void page_sha(struct buf *b, const char *sha, const char *subject);
/* The href of the comparison of series at base and head, on the page
 * (path "/compare") or its twin ("/api/compare"), escaped for an
 * attribute. */
void page_compare_href(struct buf *b, const char *path, const char *series,
		       const char *base, const char *head);
/* "Compared" and the head of a table of pairs' rows (page_pair_row()),
 * its body left open for them. */
void page_pairs_open(struct buf *b);
/* A pair's row: its series, base and head, and its verdict linked to
 * their comparison, the last cell left open for the caller to close
 * ("</td></tr>"). */
void page_pair_row(struct buf *b, const char *series, const char *base,
		   const char *head, const char *verdict);
/* What a regression blames: the commit at fault (culprit) with the head
 * it was found at (when it is another), or while that is not known its
 * range (range_head not NULL: its base and head). */
void page_blame(struct buf *b, const struct store_commit_info *culprit,
		const struct store_commit_info *range_base,
		const struct store_commit_info *range_head, const char *head);
/* A segment's mean of metric over its points: "90 MB/s over 4"
 * (" commits" after it when commits). */
void page_mean_over(struct buf *b, double mean, long long points,
		    const char *metric, bool commits);
/* LKP's table as HTML: every metric of comparison c
 * (comparison_from_json() of DESIGN.md section 6's JSON; NULL: an empty
 * table), KPIs first, each row with its verdict. */
void page_comparison(struct buf *b, const struct comparison *c);
/* The runs comparison c (or NULL) compared, from its own counts: "5 runs a side,
 * in 5 rounds", or "6 base runs and 3 head runs"; a link to the runs
 * (page_round_runs()) when c names them. */
void page_runs(struct buf *b, const struct comparison *c);
/* The runs c compared, round by round, each linked to its page (the
 * section #runs), when c names them (its round_runs). */
void page_round_runs(struct buf *b, const struct comparison *c);
/* A chart of every run of each metric of values ({METRIC: {"base":
 * [...], "head": [...], "base_jobs": [...], "head_jobs": [...]}}, a
 * metric without both sides' runs left out), at commits base and head:
 * each run a dot linked to its page, a ring when comparison c (or NULL)
 * names the runs it read and this is not one of them. */
void page_sides_charts(struct buf *b, const json_t *values, const char *base,
		       const char *head, const struct comparison *c);

/* A bisection: its outcome and every step; on its own page (own), its
 * steps without a link to itself. */
void page_bisection(struct buf *b, const struct store_bisection *bisection,
		    bool own);

#endif

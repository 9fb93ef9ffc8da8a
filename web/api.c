/*
 * api.c: the people's half of the API.  Reads are answered with the
 * JSON that the store's queries build; a submit goes to the daemon's
 * submit planning.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/buf.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/jobs.h"
#include "robot/daemon/store/pages.h"
#include "robot/daemon/submit.h"
#include "web/api.h"
#include "robot/core/banned.h"

/* A page of GET /api/results: the documents that fit, and always one (a
 * document is 16 MiB at most); the rest with ?after=NEXT. */
#define API_RESULTS_BYTES (4 * 1024 * 1024)

/* A read's JSON, or 404 when there is no such thing. */
/* A submit's answer (its runs: thousands), written off the loop. */
struct submitted {
	struct web *w;
	struct http_req *req;
};

static void
api_on_submitted(json_t *answer, const struct problem *p, void *arg)
{
	struct submitted *x = arg;

	web_reply_off_loop(x->w, x->req, 201, answer, p);
	free(x);
}

void
api_submit(struct web *w, struct http_req *req, const struct web_call *call)
{
	struct submit_request rq;
	struct submitted *x;
	const char **commits = NULL, *c;
	long max_runs = 0;
	size_t n = 0;

	memset(&rq, 0, sizeof rq);
	rq.priority = LONG_MIN;
	if (!web_int_arg(req, "repeat", 1, SUBMIT_MAX_REPEAT, &rq.repeat) ||
	    !web_int_arg(req, "priority", -SUBMIT_MAX_PRIORITY,
			 SUBMIT_MAX_PRIORITY, &rq.priority) ||
	    !web_int_arg(req, "max_runs", 1, SUBMIT_MAX_REPEAT, &max_runs))
		return;
	rq.max_runs = (int)max_runs;
	while (http_req_arg(req, "commit", n) != NULL) {
		if (!web_name_arg(req, "commit", n, NAME_COMMIT, &c)) {
			free(commits);
			return;
		}
		commits = xreallocarray(commits, n + 1, sizeof *commits);
		commits[n++] = c;
	}
	if (!web_name_arg(req, "tbox_group", 0, NAME_LABEL, &rq.group) ||
	    !web_name_arg(req, "tree", 0, NAME_LABEL, &rq.named_tree)) {
		free(commits);
		return;
	}
	rq.file_name = http_req_arg(req, "name", 0);
	if (rq.file_name != NULL && !name_ok(NAME_LABEL, rq.file_name))
		rq.file_name = NULL;
	rq.submitter = call->name;
	rq.body = http_req_body(req, &rq.len);
	rq.commits = commits;
	rq.ncommits = n;
	rq.worker = w->writer;
	x = xcalloc(1, sizeof *x);
	x->w = w;
	x->req = req;
	submit_start(w->d.base, w->d.store, w->d.set, &rq, api_on_submitted, x);
	free(commits);
}

/* GET /api/results: a page of the documents, a large answer
 * (web_heavy_begin()). */
struct results_ask {
	struct web *w;
	struct http_req *req;
};

static void
api_on_results(const char *text, const struct problem *p, void *arg)
{
	struct results_ask *a = arg;

	web_on_json(text, p, a->req);
	web_heavy_end(a->w);
	free(a);
}

void
api_results(struct web *w, struct http_req *req, const struct web_call *call)
{
	const char *series, *commit;
	long after = 0;
	struct results_ask *a;

	(void)call;
	if (!web_name_arg(req, "series", 0, NAME_SERIES, &series) ||
	    !web_name_arg(req, "commit", 0, NAME_COMMIT, &commit) ||
	    !web_int_arg(req, "after", 0, LONG_MAX, &after))
		return;
	if (series == NULL) {
		http_req_reply_error(req, 400,
				     "results want ?series=KEY/TBOX_GROUP and "
				     "&commit=SHA",
				     NULL);
		return;
	}
	if (!web_heavy_begin(w, req))
		return;
	a = xcalloc(1, sizeof *a);
	a->w = w;
	a->req = req;
	store_results(w->d.store, series, commit, after, API_RESULTS_BYTES,
		      api_on_results, a);
}

struct metrics {
	struct web *w;
	struct http_req *req;
};

/* One gauge, labelled by state when there are several. */
static void
metric(struct buf *b, const char *name, const char *help,
       const char *const *states, const long long *v, size_t n)
{
	buf_addf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (size_t i = 0; i < n; i++)
		if (states != NULL)
			buf_addf(b, "%s{state=\"%s\"} %lld\n", name, states[i],
				 v[i]);
		else
			buf_addf(b, "%s %lld\n", name, v[i]);
}

static void
api_on_counts(const struct store_counts *c, const struct problem *p, void *arg)
{
	static const char *const jobs[] = {"queued", "leased", "done",
					   "failed"};
	static const char *const boxes[] = {"idle", "busy", "broken"};
	static const char *const outbox[] = {"pending", "sent", "failed",
					     "cancelled"};
	struct metrics *m = arg;
	struct web *w = m->w;
	struct lab_stats ls;
	struct reporters_stats rs;
	struct buf b;

	lab_stats(w->d.lab, &ls);
	reporters_stats(w->d.reporters, &rs);
	buf_init(&b);
	buf_adds(&b, "# HELP robot_up Whether robotd reaches its "
		     "database.\n# TYPE robot_up gauge\n");
	buf_addf(&b, "robot_up %d\n", p == NULL);
	if (p == NULL) {
		metric(&b, "robot_jobs", "Runs by state.", jobs, c->jobs, 4);
		metric(&b, "robot_boxes", "Boxes by state.", boxes, c->boxes,
		       3);
		metric(&b, "robot_leases_active", "Leases held.", NULL,
		       &c->leases, 1);
		metric(&b, "robot_reports",
		       "Report mails and webhook posts by state.", outbox,
		       c->outbox, 4);
	}
	buf_addf(&b,
		 "# HELP robot_lease_waiters Lease requests waiting for "
		 "work in this robotd.\n# TYPE robot_lease_waiters gauge\n"
		 "robot_lease_waiters %zu\n"
		 "# HELP robot_db_queued Queries waiting for a connection.\n"
		 "# TYPE robot_db_queued gauge\nrobot_db_queued %zu\n"
		 "# HELP robot_http_requests_total Requests served.\n"
		 "# TYPE robot_http_requests_total counter\n"
		 "robot_http_requests_total %llu\n"
		 "# HELP robot_leases_granted_total Leases this robotd "
		 "granted.\n# TYPE robot_leases_granted_total counter\n"
		 "robot_leases_granted_total %llu\n"
		 "# HELP robot_uploads_total Result documents stored.\n"
		 "# TYPE robot_uploads_total counter\n"
		 "robot_uploads_total %llu\n"
		 "# HELP robot_analyses_total Pairs this robotd analysed.\n"
		 "# TYPE robot_analyses_total counter\n"
		 "robot_analyses_total %llu\n"
		 "# HELP robot_reports_built_total Reports this robotd "
		 "built.\n# TYPE robot_reports_built_total counter\n"
		 "robot_reports_built_total %llu\n"
		 "# HELP robot_reports_sent_total Mails and posts this "
		 "robotd delivered.\n"
		 "# TYPE robot_reports_sent_total counter\n"
		 "robot_reports_sent_total %llu\n"
		 "# HELP robot_reports_failed_total Deliveries of this "
		 "robotd that failed (most are tried again).\n"
		 "# TYPE robot_reports_failed_total counter\n"
		 "robot_reports_failed_total %llu\n",
		 ls.waiting, store_queued(w->d.store), w->requests,
		 ls.leases_granted, ls.uploads, analysis_count(w->d.analysis),
		 rs.reports, rs.sent, rs.failed);
	http_req_reply(m->req, 200, "text/plain; version=0.0.4", b.data, b.len);
	buf_release(&b);
	free(m);
}

void
api_metrics(struct web *w, struct http_req *req, const struct web_call *call)
{
	struct metrics *m = xcalloc(1, sizeof *m);

	(void)call;
	m->w = w;
	m->req = req;
	store_counts(w->d.store, api_on_counts, m);
}

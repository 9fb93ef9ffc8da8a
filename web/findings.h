/*
 * findings.h: what robotd found (DESIGN.md section 7): regressions and
 * improvements, comparisons of a series between two commits, and the
 * series and commits that have runs.  Reading is public; changing a
 * regression's state needs a submit (or admin) token.
 */
#ifndef ROBOT_FINDINGS_H
#define ROBOT_FINDINGS_H

#include "robot/analysis/changes.h"
#include "robot/analysis/history.h"
#include "robot/core/view.h"
#include "web/web.h"

/* GET /api/regressions?tree=&state=&since=&kind=&limit= */
void findings_regressions(struct web *w, struct http_req *req,
			  const struct web_call *call);
/* POST /api/regressions/:id {"state": "invalid"} */
void findings_regression_set(struct web *w, struct http_req *req,
			     const struct web_call *call);
/* POST /api/regressions/:id/triage: a triage command (triage.h). */
void findings_regression_triage(struct web *w, struct http_req *req,
				const struct web_call *call);
/* POST /api/mutes, POST /api/mutes/:id/end, GET /api/mutes: muting
 * (docs/reports.md, "Muting"). */
void findings_mute(struct web *w, struct http_req *req,
		   const struct web_call *call);
void findings_unmute(struct web *w, struct http_req *req,
		     const struct web_call *call);
void findings_mutes(struct web *w, struct http_req *req,
		    const struct web_call *call);
/* The options of a comparison asked (?method=, &min_effect=, &all=)
 * into *ask: false after answering 400. */
bool findings_compare_args(struct http_req *req, struct analysis_ask *ask);
/* GET /api/compare?series=&base=&head= (the compare page's twin), the
 * arguments checked: the comparison with its KPIs' runs. */
void findings_compare_answer(struct web *w, struct http_req *req,
			     const char *series, const char *base,
			     const char *head, const struct analysis_ask *ask);
/* The commits on the home page, and a history's by default. */
#define FINDINGS_HOME_COMMITS    30
#define FINDINGS_HISTORY_COMMITS 200

typedef void (*findings_compare_cb)(json_t *answer, const struct problem *p,
				    void *arg);
/* The comparison of series at base and head (analysis_compare(), as ask
 * says: NULL for analysis's) with "values", every run of its KPIs at
 * both, and "runs", the tunables and the commit's subject of one run of
 * each side ({"base": {"sysctl", "provision"}, "head": ...}): cb owns
 * answer. */
void findings_compare_values(struct web *w, const char *series,
			     const char *base, const char *head,
			     const struct analysis_ask *ask,
			     findings_compare_cb cb, void *arg);
/* Such an answer decoded (findings_compared_view). */
struct findings_compared {
	const char *verdict, *kpi; /* kpi: the worst KPI's, or NULL */
	const json_t *comparison;  /* as analysis stores it */
	const json_t *values;      /* {METRIC: {"base": [...], "head":
				      [...]}} */
};
extern const struct view_type findings_compared_view;
/* The arguments of a history and its change points (?metric=,
 * &limit=): false after answering 400. */
bool findings_history_args(struct http_req *req, const char **metric,
			   long *limit);
/* GET /api/series/:series/history (the history page's twin) and
 * /changes, the arguments checked: the history with its change points,
 * or those alone; 400 without a metric. */
void findings_history_answer(struct web *w, struct http_req *req,
			     const char *series, const char *metric, long limit,
			     bool changes_only);
/* GET /api/series/:series/changes?metric=&limit=: the history's change
 * points ({"series", "metric", "points", "runs", "changes"}) */
void findings_changes(struct web *w, struct http_req *req,
		      const struct web_call *call);
/* The change points of h, a series' history (robot_series_history()'s
 * answer, oldest commit first), as history_changes_json() gives them: a
 * new array.  points and runs (each may be NULL) get the history's
 * size. */
json_t *findings_history_changes(const json_t *h, size_t *points, size_t *runs);
/* The same as structs: the history of h into *hist (history_release()
 * it) and its change points into *cp (free() it); how many. */
size_t findings_history_find(const json_t *h, struct history *hist,
			     struct change_point **cp);
/* GET /api/series?match=&limit= */
void findings_series(struct web *w, struct http_req *req,
		     const struct web_call *call);
/* GET /api/series/:series/commits */
void findings_series_commits(struct web *w, struct http_req *req,
			     const struct web_call *call);
/* POST /api/bisections {"regression": ID} or {"series", "good", "bad",
 * "tree", "kpi"}: starts a bisection (docs/bisect.md) */
void findings_bisect(struct web *w, struct http_req *req,
		     const struct web_call *call);
/* POST /api/bisections/:id/cancel */
void findings_bisect_cancel(struct web *w, struct http_req *req,
			    const struct web_call *call);

#endif

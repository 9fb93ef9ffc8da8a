/*
 * analysis.h: the store's pairs (sql/functions/analysis.sql): a pair
 * claimed for analysis and its end, the values a comparison reads, the
 * stored comparisons and the regressions found.
 */
#ifndef ROBOT_STORE_ANALYSIS_H
#define ROBOT_STORE_ANALYSIS_H

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "robot/analysis/findings.h"
#include "robot/analysis/noise.h"
#include "robot/core/view.h"
#include "robot/daemon/store.h"

/* A finding the pair's branch left open for its series. */
struct store_open_finding {
	long long id;
	char *kpi;
	struct finding_open f;
};

/* A metric's noise history (robot_noise_obs()), newest first. */
struct store_noise {
	char *metric;
	struct noise_obs *obs;
	size_t nobs;
};
/* Decodes robot_noise_obs()'s JSON into *out (n of them; the caller
 * frees them with store_noise_free()); what is not one is left out. */
void store_noise_decode(json_t *j, struct store_noise **out, size_t *n);
void store_noise_free(struct store_noise *v, size_t n);

/* A pair claimed for analysis (robot_pair_next()), decoded. */
struct store_pair_claim {
	long long pair;
	int analyses;   /* the claim's token */
	int max_runs;   /* the pair's cap on runs per side; 0: robotd's */
	int looked;     /* the runs a side at its last look; 0: none */
	bool bisection; /* a bisection's pair */
	bool capped;    /* max_runs is a submission's own: no promising look
			   past it (decide()) */
	char *series, *base, *head;
	struct store_open_finding *open;
	size_t nopen;
	struct store_noise *noise; /* its series' noise history */
	size_t nnoise;
};
/* c is the callback's to keep (store_pair_claim_free()); NULL with no
 * problem when no pair is ready. */
typedef void (*store_pair_claim_cb)(struct store_pair_claim *c,
				    const struct problem *p, void *arg);
void store_pair_claim_free(struct store_pair_claim *c);
/* The next pair to analyse, claimed for seconds; its values come from
 * store_pair_columns(). */
void store_pair_next(struct store *s, int seconds, store_pair_claim_cb cb,
		     void *arg);
/* The open finding of kpi among c's, or NULL. */
const struct store_open_finding *
store_pair_claim_open(const struct store_pair_claim *c, const char *kpi);

struct store_pair_done {
	long long pair;
	int analyses;           /* the claim */
	const char *verdict;    /* regression, improvement, ... */
	const char *kpi;        /* the KPI that decided, or NULL */
	int runs;               /* ok runs per side compared */
	const char *comparison; /* JSON, or NULL */
	const char *table;      /* LKP's table, or NULL */
	int more;               /* > 0: runs per side to have; 0: final */
	const char *kpis;       /* JSON [{kpi, verdict, change_pct, p_value}] */
	const char *findings;   /* JSON [{kpi, verdict, change_pct, p_value,
				   action, regression}]: what a final pair
				   records (robot/analysis/findings.h) */
	const char *note;       /* inconclusive at the cap: the KPI's noise
				   (decide_noise_note()), or NULL */
	int looked;             /* the runs a side asked at this look */
};
/* "final", "more" or "stale" (another robotd took the claim over). */
void store_pair_done(struct store *s, const struct store_pair_done *d,
		     store_text_cb cb, void *arg);
/* The histories of a final pair of a branch, each KPI's up to its head
 * (robot_pair_history(): commits on its first-parent line, at most limit
 * back); NULL text for a pair without a branch. */
void store_pair_history(struct store *s, long long pair, int limit,
			store_text_cb cb, void *arg);
/* That text decoded (store_pair_histories_view): each KPI's history
 * as history_from_json() reads it. */
struct store_kpi_history {
	const char *kpi;
	const json_t *commits; /* [{commit, vals}], oldest first */
};
struct store_pair_histories {
	long long pair;
	const char *series, *tree, *branch, *head;
	struct store_kpi_history *histories;
	size_t nhistories;
};
extern const struct view_type store_pair_histories_view;
/* What recording a pair's change points did. */
struct store_change_points {
	long long made, moved, updated, dropped;
};
typedef void (*store_change_points_cb)(const struct store_change_points *c,
				       const struct problem *p, void *arg);
/* Records what the change points of a pair's histories say
 * (robot_change_points_record(), whose JSON json is). */
void store_change_points(struct store *s, const char *json,
			 store_change_points_cb cb, void *arg);
/*
 * A pair's values, any series, base and head (nothing claimed):
 * robot_pair_head()'s JSON and every metric's values of both sides, in
 * binary (hundreds of thousands of numbers, which the server would take
 * longer to print than robotd to compare).  cb gets them (its to free)
 * or the problem; store_values_read() reads them, on any thread.
 */
/* How many values store_pair_columns() would read: the text of a
 * number. */
void store_pair_size(struct store *s, const char *series, const char *base,
		     const char *head, store_text_cb cb, void *arg);

struct store_values;
typedef void (*store_values_cb)(struct store_values *v, const struct problem *p,
				void *arg);
void store_pair_columns(struct store *s, const char *series, const char *base,
			const char *head, store_values_cb cb, void *arg);
/* The runs of one side of a pair. */
struct store_side_runs {
	int asked; /* queued, but the cancelled ones */
	int ok, failed;
};
/* What a pair's comparison starts from (robot_pair_head()). */
struct store_pair_head {
	char *series, *base, *head;
	json_t *job; /* one of its atomic jobs (for the KPIs' prefix) */
	struct store_side_runs base_runs, head_runs; /* of its rounds, if
							any */
	long long (*rounds)[2]; /* its rounds that ended ok on one box:
				   their base and head jobs, oldest first */
	size_t nrounds;
	long long *canary_jobs; /* the base's other ok runs on those boxes */
	char **canary_boxes;    /* and the box of each */
	size_t ncanary;
};
void store_pair_head_free(struct store_pair_head *h);
/*
 * The pair's head into *in, and a column per metric into *cols, whose
 * values are in *block (the caller frees the three).  When base and head
 * are one commit, the head's values are the base's.  A pair with rounds
 * ((*in)->nrounds > 0) has only their values, base[i] and head[i] of one
 * round (for compare_options.paired).  False when the values are not
 * what robot_pair_head() and metric_values give.
 */
bool store_values_read(const struct store_values *v, const char *base,
		       const char *head, struct store_pair_head **in,
		       struct comparison_column **cols, size_t *ncols,
		       double **block) __attribute__((warn_unused_result));
/*
 * The noise of metric as the base's other runs on each box of the pair's
 * rounds show it (in->canary): for each box with three or more, twice
 * the variance of their logs (a round's difference's, were the base run
 * against itself) on their degrees of freedom, into out (at most max;
 * their number).  None when a value is not positive.
 */
size_t store_values_canary(const struct store_values *v,
			   const struct store_pair_head *in, const char *metric,
			   struct noise_obs *out, size_t max);
void store_values_free(struct store_values *v);
/* The stored comparison of a pair: {"pair", "state", "verdict", "kpi",
 * "runs", "comparison", "table"}, or NULL when there is none. */
void store_pair(struct store *s, const char *series, const char *base,
		const char *head, store_text_cb cb, void *arg);
/* Every run's values of metrics (a JSON array of names) at base and
 * head, and what one ok run of each side says of its setting:
 * {"values": {metric: {"base": [...], "head": [...]}}, "runs": {"base":
 * {"sysctl", "provision"}, "head": ...}}. */
void store_side_values(struct store *s, const char *series, const char *base,
		       const char *head, const char *metrics, store_text_cb cb,
		       void *arg);

struct store_regressions_filter {
	const char *tree;   /* NULL: any */
	const char *state;  /* NULL: any */
	const char *since;  /* an ISO date; NULL: any */
	const char *kind;   /* regression or improvement; NULL: any */
	long limit;         /* newest first */
	const char *triage; /* untriaged, acknowledged, ...; NULL: any */
};
/* {"regressions": [...]}, newest first. */
void store_regressions(struct store *s,
		       const struct store_regressions_filter *f,
		       store_text_cb cb, void *arg);
/* Sets a regression's state (new, reported, invalid, ...) for by (a
 * token's name), an admin or not: the record, NULL when there is no such
 * regression, 403 when by is not an admin nor the submitter of the
 * runs it was found in (a tree's findings are the admins'). */
void store_regression_set(struct store *s, long long id, const char *state,
			  const char *by, bool admin, store_text_cb cb,
			  void *arg);
/* A triage command on a regression (robot_regression_triage()): cmd is
 * its JSON ({action, reason, text, arg, dup}), by who gave it with a
 * token of kind (admin, triage or submit), how (page, mail, api, cli);
 * box_limit the findings invalid for their box in 30 days that make a
 * box suspect (box_false_alarms; 0: never).
 * The finding's triage; NULL when there is no such regression; 403 when
 * by may not (robot_regression_may()), 400 for a duplicate of none. */
void store_regression_triage(struct store *s, long long id, const char *cmd,
			     const char *by, const char *kind, const char *how,
			     int box_limit, store_text_cb cb, void *arg);

/* A mute (robot_mute()): p is {kind, pattern, reason, seconds}, by who
 * made it, how (page, mail, api, cli); {id, ..., findings}. */
void store_mute(struct store *s, const char *p, const char *by, const char *how,
		store_text_cb cb, void *arg);
/* Mute id ended now (robot_unmute()); NULL when there is none. */
void store_unmute(struct store *s, long long id, store_text_cb cb, void *arg);
/* {"mutes": [...]}, the active ones first (robot_mutes()). */
void store_mutes(struct store *s, store_text_cb cb, void *arg);

#endif

/*
 * bisect.h: the store's bisections (sql/functions/bisect.sql): a
 * bisection whose step has its answer claimed and driven, and the
 * bisections as the API shows them.
 */
#ifndef ROBOT_STORE_BISECT_H
#define ROBOT_STORE_BISECT_H

#include "robot/analysis/bisectstep.h"
#include "robot/daemon/store.h"
#include "robot/daemon/store/analysis.h"
#include "robot/daemon/store/reports.h"

/* A KPI's verdict in a pair of a step. */
struct store_bisect_kpi {
	char *kpi;
	char *verdict; /* or NULL */
	bool change_defined, p_defined;
	double change_pct, p_value;
};

/* A pair of a step: (good or parent, commit), or (commit, bad). */
struct store_bisect_pair {
	bool present;   /* the step has this pair */
	char *verdict;  /* the pair's, or NULL: not compared yet */
	int runs;       /* ok runs per side compared */
	bool kpis_kept; /* false: analysed before a pair kept its KPIs */
	struct store_bisect_kpi *kpis;
	size_t nkpis;
};

/* A bisection claimed (robot_bisect_next()), decoded. */
struct store_bisect_claim {
	long long id;
	int claims;         /* the claim's token */
	bool of_regression; /* started for a regression */
	char *change;       /* the verdict it looks for: regression or
			     * improvement */
	char *tree;
	char *kpi;     /* NULL until the ends name it */
	char *bad_now; /* the oldest known bad */
	char **goods;  /* known good */
	size_t ngoods;
	char **skipped;
	size_t nskipped;
	int max_runs; /* per commit */
	struct {
		char *kind; /* ends, mid, confirm */
		char *commit;
		char *against; /* the good end, or the parent */
		char *verdict; /* decided by a robotd that died since, or NULL */
		struct store_bisect_pair good, bad;
		char *error; /* of a failed run at its commit, or NULL */
		/* the KPI's values its test reads (robot_bisect_rounds()) */
		struct bisect_round *rounds; /* its own rounds */
		size_t nrounds;
		struct bisect_round *ends; /* the ends' (good, NAN, bad) */
		size_t nends;
		struct store_noise *noise; /* its series' noise history */
		size_t nnoise;
	} step;
};
/* c is the callback's to keep (store_bisect_claim_free()); NULL with no
 * problem when no step has its answer. */
typedef void (*store_bisect_claim_cb)(struct store_bisect_claim *c,
				      const struct problem *p, void *arg);
void store_bisect_claim_free(struct store_bisect_claim *c);
/* The verdict of kpi in pair, or NULL. */
const struct store_bisect_kpi *
store_bisect_pair_kpi(const struct store_bisect_pair *pair, const char *kpi);
/* The next bisection whose step has its answer, claimed for seconds. */
void store_bisect_next(struct store *s, int seconds, store_bisect_claim_cb cb,
		       void *arg);

/* What a mark left: the bisection ended (state, reason), or goes on
 * with c's known goods, bad and skipped commits and KPI updated. */
struct store_bisect_marked {
	bool stale;   /* another robotd took the claim over */
	bool running; /* it goes on */
	const char *state, *reason;
};
typedef void (*store_bisect_marked_cb)(const struct store_bisect_marked *m,
				       const struct problem *p, void *arg);
/* The step in hand of c decided under its claim (json: {verdict,
 * reason, kpi, end}); c is updated when it goes on, and must live until
 * cb. */
void store_bisect_mark(struct store *s, struct store_bisect_claim *c,
		       const char *json, store_bisect_marked_cb cb, void *arg);
/* The next step (json: {kind, commit, against, candidates}): the
 * bisection, or "stale". */
void store_bisect_step(struct store *s, long long id, int claims,
		       const char *json, store_text_cb cb, void *arg);
/* More runs (runs a side) for the step in hand of bisection id: the
 * number of its pairs given them, or "stale". */
void store_bisect_more(struct store *s, long long id, int claims, int runs,
		       store_text_cb cb, void *arg);

/* A bisection started by by (json: {regression} or {series, good, bad,
 * tree, kpi}, commits full SHAs): robot_bisection() of it, with
 * "running": true when one of those ends ran already. */
void store_bisect_start(struct store *s, const char *json, const char *by,
			store_text_cb cb, void *arg);
/* A running bisection cancelled by by ("KIND NAME"); 404 when there is
 * none, 403 when by is no admin and did not start it. */
void store_bisect_cancel(struct store *s, long long id, const char *by,
			 bool admin, store_text_cb cb, void *arg);
/* {"bisections": [...]}, newest first. */
void store_bisections(struct store *s, int limit, store_text_cb cb, void *arg);
struct store_bisections_row {
	long long id, regression, lead; /* 0: none */
	const char *tree, *series, *kpi, *good, *bad, *state, *reason;
	const char *created, *finished;
	struct store_commit_info first_bad; /* .sha NULL: not found yet */
	long long steps, runs_queued;
};
/* robot_bisections() (store_bisections_view). */
struct store_bisections {
	struct store_bisections_row *bisections;
	size_t nbisections;
};
extern const struct view_type store_bisections_view;
/* One bisection with its steps, or NULL (store_bisection_view). */
void store_bisection(struct store *s, long long id, store_text_cb cb,
		     void *arg);
/* A step's comparison: its pair's commits (base NULL: none). */
struct store_bisection_pair {
	const char *base, *head;
};
struct store_bisection_step {
	long long n;
	const char *kind, *verdict, *reason; /* verdict NULL: running */
	struct store_commit_info commit;
	long long ok; /* the commit's ok runs in the series */
	/* its comparisons: with the good end (or the parent), and a
	 * midpoint's with the bad end */
	struct store_bisection_pair good_pair, bad_pair;
};
struct store_bisection {
	long long id, regression, lead; /* 0: none */
	const char *tree, *series, *kpi, *good, *bad, *state, *reason;
	struct store_commit_info first_bad; /* .sha NULL: not found yet */
	struct store_bisection_step *steps;
	size_t nsteps;
};
extern const struct view_type store_bisection_view;

#endif

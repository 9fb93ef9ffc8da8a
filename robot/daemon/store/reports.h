/*
 * reports.h: the store's reports, outbox and subscriptions
 * (sql/functions/reports.sql).
 */
#ifndef ROBOT_STORE_REPORTS_H
#define ROBOT_STORE_REPORTS_H

#include <jansson.h>

#include "robot/core/view.h"
#include "robot/daemon/store.h"

/* What a tree knows of a commit (robot_commit_info(), decoded by
 * store_commit_info_view): its subject, author and date are NULL when
 * the tree has not fetched it. */
struct store_commit_info {
	const char *sha, *subject, *author, *date;
	const char *email; /* the author's, as git read it; NULL before */
};
extern const struct view_type store_commit_info_view;

/*
 * A claim's document as report_render() reads it (robot_report_next(),
 * robot_followup_next(), robot_note_next()), decoded by
 * store_claim_view.  Its parts may be absent (a follow-up has no
 * findings, a running bisection no parent): absent is the zero value.
 * Each part that goes into the webhook's JSON as it is keeps its JSON
 * too (.json).
 */
struct store_claim_kpi {
	double change_pct, p_value;
};
struct store_claim_bisection {
	long long id, steps, pair; /* pair: the culprit's against its parent */
	const char *state, *reason, *first_bad, *lead_series;
	struct store_commit_info parent;
	const json_t *kpi_json; /* NULL: no such KPI in the pair */
	struct store_claim_kpi kpi;
};
struct store_claim_segment {
	long long from, to;
	double mean;
};
struct store_claim_history {
	long long points;
	const json_t *before_json, *after_json; /* NULL: none */
	struct store_claim_segment before, after;
};
struct store_claim_finding {
	long long id, pair, runs;
	long long base_runs, head_runs; /* 0: not kept (an old record) */
	const char *kind, *found_by, *branch, *base, *head, *series, *kpi;
	double change_pct, p_value;
	struct store_commit_info head_info, base_info;
	struct store_claim_history history;
	struct store_claim_bisection bisection;
	const json_t *json;
};
struct store_claim_pair {
	long long pair, runs, base_runs, head_runs;
	const char *series, *base, *head, *tbox_group, *table;
	const json_t *comparison, *facts, *provision;
	const json_t *job; /* {"job": the atomic job, ...} */
	const json_t *json;
};
struct store_claim_range {
	struct store_commit_info base, head;
	long long count;
	struct store_commit_info *commits; /* newest first, at most 20 */
	size_t ncommits;
};
struct store_claim_news {
	long long regression, runs;
	const char *kind, *finding, *series, *kpi;
	double change_pct;
	struct store_commit_info head;
	const json_t *regression_json, *series_json, *kpi_json;
	const json_t *change_pct_json, *head_json;
};
struct store_claim_note {
	const char *kind, *series, *message;
	const char **boxes;
	size_t nboxes;
	const char **also; /* the other series of the day (noisy) */
	size_t nalso;
	const json_t *boxes_json, *kpi_json, *pair_json, *created_json;
};
/* A subscriber of the claim's tree (robot_report_next()): the address
 * and the filters its reports must pass. */
struct store_claim_subscriber {
	const char *email, *tree, *branch, *testcase, *metric; /* globs */
	double min_change;                                     /* NAN: any */
	bool regressions, improvements;
};
struct store_claim_tree_info {
	const char *url;
	bool mail_author;
};
struct store_claim_thread {
	long long id;
	const char *subject;
};
struct store_claim {
	const char *kind;                 /* "report", "followup" or "note" */
	long long id;                     /* a note's */
	const char *tree, *branch, *base; /* branch, base: a thread's */
	const json_t *tree_json, *branch_json;
	struct store_claim_tree_info tree_info;
	struct store_commit_info commit;
	const json_t *commit_json;
	bool culprit; /* about the commit at fault, else a range */
	const json_t *range_json;
	struct store_claim_range range;
	const json_t *thread_json; /* a reply's thread, or NULL */
	struct store_claim_thread thread;
	const json_t *events_json, *regressions_json;
	struct store_claim_finding *findings; /* each .json set too */
	size_t nfindings;
	struct store_claim_pair *pairs, *culprit_pairs; /* and theirs */
	size_t npairs, nculprit_pairs;
	const json_t *findings_json, *pairs_json, *culprit_pairs_json;
	struct store_commit_info *bases;
	size_t nbases;
	struct store_claim_news *news;
	size_t nnews;
	const char **recipients;
	size_t nrecipients;
	struct store_claim_subscriber *subscribers;
	size_t nsubscribers;
	const json_t *note_json;
	struct store_claim_note note;
};
extern const struct view_type store_claim_view;
/* j (a claim's document) decoded by store_claim_view into *out, each
 * finding and pair with its own JSON too; false with err as
 * view_decode(). */
bool store_claim_decode(struct view_doc *d, json_t *j, struct store_claim *out,
			char *err, size_t len);

/* A commit's report due, or a thread's follow-up, claimed
 * (robot_report_next(), robot_followup_next()), decoded. */
struct store_report_claim {
	bool followup;       /* a follow-up in a thread, else a report */
	long long note;      /* a lab note's id (robot_note_next()), or 0 */
	char *tree;          /* or NULL */
	char *branch, *base; /* of its first finding, or the thread's */
	char *commit;        /* the commit it is about (its SHA): at fault,
			      * or a range's head */
	char *range;         /* a range's "BASE..HEAD", or NULL */
	long long thread;    /* the thread's first report, or 0 */
	json_t *regressions; /* the ids it tells of (a report's) */
	json_t *events;      /* the ids it tells of (a follow-up's) */
	struct store_claim claim; /* all it says: report_render() reads it */
	struct view_doc view;     /* what claim points into */
};
/* c is the callback's to keep (store_report_claim_free()); NULL with no
 * problem when none is due. */
typedef void (*store_report_claim_cb)(struct store_report_claim *c,
				      const struct problem *p, void *arg);
void store_report_claim_free(struct store_report_claim *c);
/* The next report due (robot_report_next(): about the commit at fault,
 * or its range once bisect_wait seconds passed; when none of its heads'
 * pairs waits, or the oldest waited window seconds), claimed for
 * seconds. */
void store_report_next(struct store *s, int window, int bisect_wait,
		       int seconds, store_report_claim_cb cb, void *arg);
/* The next thread with news of its regressions (when none of their
 * heads' pairs waits, or the oldest waited window seconds), claimed for
 * seconds. */
void store_followup_next(struct store *s, int window, int seconds,
			 store_report_claim_cb cb, void *arg);
/* The next note for the lab's operators, claimed for seconds (its commit
 * is ""). */
void store_note_next(struct store *s, int seconds, store_report_claim_cb cb,
		     void *arg);
/* A rendered note (JSON: robot_note_store()) handed to the outbox: the
 * rows made, or "stale" when another robotd told it. */
void store_note_store(struct store *s, long long id, const char *note,
		      store_text_cb cb, void *arg);
/* A rendered report (JSON: robot_report_store()) stored with its outbox:
 * {id, message_id} (store_report_stored_view), or "stale" when another
 * robotd told of it. */
void store_report_store(struct store *s, const char *report, const char *domain,
			store_text_cb cb, void *arg);

struct store_report_stored {
	long long id;
	const char *message_id;
};
extern const struct view_type store_report_stored_view;

/* An outbox row claimed for delivery (robot_outbox_next()). */
struct store_outbox_row {
	long long id;
	const char *channel;        /* mail, webhook, chat */
	const char *recipient;      /* an address, or a URL */
	int attempts;               /* this one counted */
	const char *subject, *body; /* or NULL */
	json_t *doc;                /* the report's JSON (a post's), or NULL */
	const char *message_id; /* the report's, or NULL (a mail of its own) */
	const char *thread;     /* the thread's Message-ID, or NULL */
	const char *token;      /* the recipient's unsubscribe token, or NULL */
	const char *reply;      /* a report's mail: its reply address's
				   token for the recipient, or NULL */
	const char *in_reply_to; /* an answer's: the mail it answers */
};
/* rows (n of them) are borrowed for the callback. */
typedef void (*store_outbox_rows_cb)(const struct store_outbox_row *rows,
				     size_t n, const struct problem *p,
				     void *arg);
/* Up to limit outbox rows due, claimed for seconds. */
void store_outbox_next(struct store *s, int limit, int seconds,
		       store_outbox_rows_cb cb, void *arg);
struct store_outbox_done {
	long long id;
	const char *state; /* sent, pending (tried again), failed (for good) */
	const char *error; /* NULL when sent */
	int retry_in;      /* pending: seconds until the next try */
};
/* The row's new state: sent, pending (tried again later), failed. */
void store_outbox_done(struct store *s, const struct store_outbox_done *d,
		       store_text_cb cb, void *arg);
/* {counts, reports, rows}: the outbox for robot reports. */
void store_outbox(struct store *s, int limit, store_text_cb cb, void *arg);

struct store_subscribe {
	const char *json;         /* {email, tree, branch, ...} (checked) */
	const char *confirm_hash; /* sha256 of the link's token, hex */
	const char *subject, *message; /* the confirmation mail */
	const char *client;            /* the asker's address, or "" */
};
/* {id, email, state}; 429 when confirmations wait in the mailbox. */
void store_subscribe(struct store *s, const struct store_subscribe *sub,
		     store_text_cb cb, void *arg);
/* The subscription a confirmation link names, now confirmed; NULL for a
 * link unknown, used or too old. */
void store_subscription_confirm(struct store *s, const char *hash,
				store_text_cb cb, void *arg);
/* {email, subscriptions}: the address opted out; NULL for no such token. */
void store_unsubscribe(struct store *s, const char *token, store_text_cb cb,
		       void *arg);
/* {email, opted_out}: the address an unsubscribe link names (nothing
 * changed); NULL for no such token. */
void store_unsubscribe_look(struct store *s, const char *token,
			    store_text_cb cb, void *arg);
/* {"subscriptions": [...]}. */
void store_subscriptions(struct store *s, store_text_cb cb, void *arg);

/* A mail to robot, parsed (reporters/mailin.c): p is robot_mail_in()'s
 * {message_id, from, token, automatic, commands}; its answer is
 * robot_mail_in()'s JSON (the commands applied or refused, or the mail
 * ignored, or replayed). */
void store_mail_in(struct store *s, const char *p, store_text_cb cb, void *arg);
/* The answer to mail id, queued once: "answered" or "answered already". */
void store_mail_in_answer(struct store *s, long long id, const char *subject,
			  const char *text, store_text_cb cb, void *arg);

/* A report mail's one-time link opened (robot_triage_link_open()):
 * {report, regression}; 403 when it does not check out, 409 used. */
void store_triage_link_open(struct store *s, const char *token,
			    const char *email, const char *session_hash,
			    store_text_cb cb, void *arg);
/* A link's session by its cookie's sha256: {report, email}, or NULL. */
void store_triage_session(struct store *s, const char *hash, store_text_cb cb,
			  void *arg);

#endif

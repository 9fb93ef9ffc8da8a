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
};
extern const struct view_type store_commit_info_view;

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
	json_t *doc;         /* all a report says: report_render() reads it */
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
 * {id, message_id}, or "stale" when another robotd told of it. */
void store_report_store(struct store *s, const char *report, const char *domain,
			store_text_cb cb, void *arg);

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
/* {"subscriptions": [...]}. */
void store_subscriptions(struct store *s, store_text_cb cb, void *arg);

#endif

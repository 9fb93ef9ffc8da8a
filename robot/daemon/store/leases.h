/*
 * leases.h: the store's leases (sql/functions/leases.sql): a box's next
 * job, its heartbeats and upload, and the sweep of expired ones.
 */
#ifndef ROBOT_STORE_LEASES_H
#define ROBOT_STORE_LEASES_H

#include "robot/daemon/store.h"

/* Whether box may upload a result for lease: "active", or "stored" when
 * one is there already; a problem otherwise (404, 403, 409). */
void store_lease_check(struct store *s, long long lease, const char *box,
		       store_text_cb cb, void *arg);

struct store_claim {
	long long lease;   /* 0: no job */
	const char *json;  /* the lease as the box gets it, or NULL */
	const char *group; /* the box's tbox_group */
};
typedef void (*store_claim_cb)(const struct store_claim *c,
			       const struct problem *p, void *arg);
/* The next job box can run, leased for seconds. */
void store_claim(struct store *s, const char *box, int seconds,
		 store_claim_cb cb, void *arg);
/* A lease nobody got: the job goes back uncounted.  cb may be NULL. */
void store_release(struct store *s, long long lease, store_text_cb cb,
		   void *arg);
/* The lease's new deadline: seconds off, but never past max_life
 * seconds after it was made (409 once it is). */
void store_heartbeat(struct store *s, long long lease, const char *box,
		     int seconds, int max_life, store_text_cb cb, void *arg);

struct store_upload {
	long long lease;
	const char *box;
	const char *key;
	const char *tbox_group; /* the document's */
	const char *doc_box;    /* the box the document names, or NULL */
	const char *commit;     /* the document's, or NULL */
	const char *status;     /* ok, failed, incomplete */
	const char *error;      /* NULL unless failed */
	const char *doc;        /* the document as sent */
	int broken_after;
	bool job_fault; /* failed as the job's fault: not the box's */
};
/* "stored", "duplicate" or "requeued"; a document that is not of the
 * lease's job, or differs from the one stored for it, is refused. */
void store_upload(struct store *s, const struct store_upload *u,
		  store_text_cb cb, void *arg);
/* The janitor's sweep: deadlines further off than lease_seconds (a
 * clock stepped back) brought back to it, leases past their deadline
 * back to the queue, the rounds pinned to a box idle for a minute (no
 * lease, no work asked for)
 * measured again, and pairs left waiting for runs that have all ended
 * made ready. */
struct store_sweep {
	long long expired;       /* leases back to the queue */
	long long orphaned;      /* rounds measured again */
	long long mutes_expired; /* told in lab notes */
	long long *mended;       /* pairs made ready */
	size_t nmended;
};
typedef void (*store_sweep_cb)(const struct store_sweep *sw,
			       const struct problem *p, void *arg);
void store_sweep(struct store *s, int lease_seconds, store_sweep_cb cb,
		 void *arg);

#endif

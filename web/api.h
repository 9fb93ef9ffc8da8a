/*
 * api.h: the JSON API of DESIGN.md section 7 (the part robotd serves so
 * far): job submission and listing, the boxes' register / lease /
 * heartbeat / result calls, result documents, status and Prometheus
 * metrics.
 *
 * api.c routes requests and serves the people's half; boxes.c serves the
 * boxes' half with its long-poll.  Every handler checks what it is given,
 * queries the database (db.h) with parameters only, and answers from the
 * query's callback; a database that is down gives 503.
 */
#ifndef ROBOT_API_H
#define ROBOT_API_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "jobs/jobfile.h"
#include "robot/analysis/result.h"
#include "robot/daemon/db.h"
#include "robot/daemon/tokens.h"
#include "web/httpd.h"

#define API_JOB_LIMIT    JOBFILE_MAX_BYTES
#define API_RESULT_LIMIT RESULT_MAX_BYTES
#define API_OTHER_LIMIT  (64 * 1024)
#define API_LONG_POLL    30 /* seconds */

struct api_config {
	int lease_seconds;   /* a lease's life without heartbeats */
	int max_attempts;    /* leases of a job before it fails */
	int broken_after;    /* failed jobs in a row that break a box */
	size_t max_jobs;     /* atomic jobs per submit */
	int long_poll;       /* seconds a lease request may wait */
	char *default_group; /* tbox_group of submits naming none */
};

struct waiter;

struct api {
	struct event_base *base;
	struct db *db;
	struct tokens *tokens;
	struct api_config cfg;
	/* boxes.c: lease requests, oldest first */
	struct waiter *waiters, *waiters_tail;
	size_t nwaiters;
	/* bumped by every notification, so that a claim that raced one
	 * is tried again */
	unsigned long gen;
	bool stopping;
	/* counters for /metrics */
	unsigned long long requests, leases_granted, uploads;
};

struct api *api_new(struct event_base *base, struct db *db,
		    struct tokens *tokens, const struct api_config *cfg);
void api_free(struct api *a);
/* httpd's handler and body limits. */
void api_on_request(struct http_req *req, void *arg);
size_t api_body_limit(const char *method, const char *path);
/* db's notification callback: new work for a group (NULL: maybe missed). */
void api_on_notify(const char *payload, void *arg);
/* Answers every waiting lease request with 204 (robotd is stopping). */
void api_quiesce(struct api *a);

/* Shared by api.c and boxes.c. */

/* Answers 503 for a failed query when the database is down, else 500
 * or the HTTP status of an RBnnn code.  */
void api_reply_db_error(struct http_req *req);
/* The token of a request's Authorization header, checked; calls cb with
 * the token's kind and name, or answers 401 or 503 itself and calls cb
 * with kind NULL (to free arg). */
typedef void (*api_auth_cb)(struct http_req *req, const char *kind,
			    const char *name, void *arg);
void api_auth(struct api *a, struct http_req *req, api_auth_cb cb, void *arg);

void boxes_register(struct api *a, struct http_req *req, const char *box);
void boxes_lease(struct api *a, struct http_req *req, const char *box);
void boxes_heartbeat(struct api *a, struct http_req *req, const char *lease);
void boxes_result(struct api *a, struct http_req *req, const char *lease);
void boxes_reset(struct api *a, struct http_req *req, const char *box);
void boxes_notify(struct api *a, const char *group);
void boxes_quiesce(struct api *a);
void boxes_free(struct api *a);

#endif

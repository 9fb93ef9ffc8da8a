/*
 * db.c: libpq on libevent.
 *
 * Each connection is a small state machine (DBC_CONNECTING, DBC_IDLE,
 * DBC_BUSY, DBC_DOWN) with one read and one write event on its socket.
 * db_drive() hands queued queries to idle connections; every completion
 * and every reconnect calls it again.  A connection that fails fails its
 * query (callback with NULL) and comes back after a backoff of 100 ms
 * doubling to 5 s.  While no connection is up, queries fail at once (the
 * API answers 503) instead of piling up.
 */
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/db.h"
#include "robot/core/banned.h"

enum dbc_state {
	DBC_CONNECTING,
	DBC_IDLE,
	DBC_BUSY,
	DBC_DOWN,
};
static const char *const dbc_states[] = {
	[DBC_CONNECTING] = "connecting",
	[DBC_IDLE] = "idle",
	[DBC_BUSY] = "busy",
	[DBC_DOWN] = "down",
};
static const struct fsm dbc_fsm = FSM("db connection", dbc_states, DBC_DOWN);

struct db_query {
	char *sql;
	char **params;
	int nparams;
	db_cb cb;
	void *arg;
	bool binary; /* the rows' values in binary, not text */
	bool shared; /* one of the shared reads (db_query_flags()) */
	struct db_query *next;
};

struct db_result {
	PGresult *res;    /* the rows; NULL for a failure */
	char sqlstate[6]; /* of a failure */
	const char *message;
	const char *detail;
	char *own_message; /* db_exec()'s failures: copies, freed with r */
	char *own_detail;
};

struct dbc {
	struct db *db;
	PGconn *conn;
	enum dbc_state state;
	struct event *rev, *wev, *timer;
	struct db_query *q; /* the query running */
	PGresult *last;     /* its result so far */
	double backoff;     /* seconds until the next reconnect */
	bool listener;      /* the LISTEN connection */
	int index;
};

struct db {
	struct event_base *base;
	char *conninfo;
	char *channel;
	db_notify_cb on_notify;
	void *notify_arg;
	struct dbc *conns; /* size of the pool, then the listener */
	int size;
	int nconns;
	struct db_query *head, *tail;
	size_t queued;
	int shared_busy; /* shared reads on a connection */
	int shared_max;  /* the most of them at once */
	char *error;
	struct event *drive; /* a deferred db_drive() */
};

static void dbc_connect(struct dbc *c);
static void db_drive(struct db *db);

/* The connection's query, taken off it. */
static struct db_query *
dbc_take(struct dbc *c)
{
	struct db_query *q = c->q;

	c->q = NULL;
	if (q != NULL && q->shared)
		c->db->shared_busy--;
	return q;
}

static void
dbc_set_state(struct dbc *c, enum dbc_state s)
{
	FSM_SET(&dbc_fsm, c->state, s, "db connection %d", c->index);
}

static void
query_free(struct db_query *q)
{
	for (int i = 0; i < q->nparams; i++)
		free(q->params[i]);
	free(q->params);
	free(q->sql);
	free(q);
}

/* Calls a query's callback: with res, or NULL and the reason.  True
 * when the callback took res (db_result_take()). */
static bool
query_finish(struct db_query *q, PGresult *res, const char *state,
	     const char *msg, const char *detail)
{
	struct db_result r = {res,  "",  msg ? msg : "", detail ? detail : "",
			      NULL, NULL};

	snprintf(r.sqlstate, sizeof r.sqlstate, "%s", state ? state : "");
	q->cb(&r, q->arg);
	query_free(q);
	return res != NULL && r.res == NULL;
}

/* The read event is persistent; the write event is added when libpq
 * has something to send. */
static void
dbc_events(struct dbc *c, bool want_write)
{
	if (want_write)
		event_add(c->wev, NULL);
	else
		event_del(c->wev);
}

static void
dbc_on_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dbc_connect(arg);
}

/* The connection failed: fail its query, retry later. */
static void
dbc_fail(struct dbc *c, const char *reason)
{
	/* reason may be libpq's, which PQfinish() frees. */
	char *why = xstrdup(reason);
	struct timeval tv;

	why[strcspn(why, "\n")] = '\0';
	if (c->state != DBC_DOWN)
		log_warnx("database connection %d lost: %s", c->index, why);
	free(c->db->error);
	c->db->error = xstrdup(why);
	if (c->rev != NULL) {
		event_free(c->rev);
		event_free(c->wev);
		c->rev = c->wev = NULL;
	}
	if (c->conn != NULL) {
		PQfinish(c->conn);
		c->conn = NULL;
	}
	if (c->last != NULL) {
		PQclear(c->last);
		c->last = NULL;
	}
	dbc_set_state(c, DBC_DOWN);
	if (c->q != NULL)
		query_finish(dbc_take(c), NULL, "08006", why, NULL);
	tv.tv_sec = (long)c->backoff;
	tv.tv_usec = (long)((c->backoff - (double)tv.tv_sec) * 1e6);
	evtimer_add(c->timer, &tv);
	c->backoff = c->backoff < 2.5 ? c->backoff * 2 : 5;
	if (c->listener && c->db->on_notify != NULL)
		c->db->on_notify(NULL, c->db->notify_arg);
	db_drive(c->db);
	free(why);
}

static void
dbc_notifies(struct dbc *c)
{
	PGnotify *n;

	while ((n = PQnotifies(c->conn)) != NULL) {
		if (c->db->on_notify != NULL)
			c->db->on_notify(n->extra, c->db->notify_arg);
		PQfreemem(n);
	}
}

static void
dbc_read_results(struct dbc *c)
{
	PGresult *r;

	while (c->conn != NULL && !PQisBusy(c->conn)) {
		r = PQgetResult(c->conn);
		if (r == NULL) {
			/* The query is complete. */
			struct db_query *q = dbc_take(c);
			PGresult *last = c->last;

			c->last = NULL;
			dbc_set_state(c, DBC_IDLE);
			if (q != NULL && last != NULL &&
			    (PQresultStatus(last) == PGRES_TUPLES_OK ||
			     PQresultStatus(last) == PGRES_COMMAND_OK)) {
				if (query_finish(q, last, NULL, NULL, NULL))
					last = NULL; /* taken */
			} else if (q != NULL) {
				/* a failure: why, from the result if any */
				const char *code =
					last ? PQresultErrorField(
						       last, PG_DIAG_SQLSTATE)
					     : NULL;
				const char *msg =
					last ? PQresultErrorField(
						       last,
						       PG_DIAG_MESSAGE_PRIMARY)
					     : "no result";
				const char *detail =
					last ? PQresultErrorField(
						       last,
						       PG_DIAG_MESSAGE_DETAIL)
					     : NULL;

				(void)query_finish(q, NULL, code, msg, detail);
			}
			if (last != NULL)
				PQclear(last);
			db_drive(c->db);
			return;
		}
		if (c->last != NULL)
			PQclear(c->last);
		c->last = r;
	}
}

static void
dbc_on_io(evutil_socket_t fd, short what, void *arg)
{
	struct dbc *c = arg;

	(void)fd;
	if (c->state == DBC_CONNECTING) {
		PostgresPollingStatusType p = PQconnectPoll(c->conn);

		if (p == PGRES_POLLING_FAILED) {
			dbc_fail(c, PQerrorMessage(c->conn));
		} else if (p == PGRES_POLLING_OK) {
			PQsetnonblocking(c->conn, 1);
			c->backoff = 0.1;
			dbc_set_state(c, DBC_IDLE);
			dbc_events(c, false);
			if (c->listener) {
				char *sql =
					xasprintf("LISTEN %s", c->db->channel);

				/* The listener runs LISTEN like a query. */
				PQsendQuery(c->conn, sql);
				free(sql);
				dbc_set_state(c, DBC_BUSY);
				if (c->db->on_notify != NULL)
					c->db->on_notify(NULL,
							 c->db->notify_arg);
			}
			log_debug("database connection %d up", c->index);
			db_drive(c->db);
		} else {
			dbc_events(c, p == PGRES_POLLING_WRITING);
		}
		return;
	}
	if (what & EV_WRITE) {
		int f = PQflush(c->conn);

		if (f == -1) {
			dbc_fail(c, PQerrorMessage(c->conn));
			return;
		}
		dbc_events(c, f == 1);
	}
	if (what & EV_READ) {
		if (!PQconsumeInput(c->conn)) {
			dbc_fail(c, PQerrorMessage(c->conn));
			return;
		}
		dbc_notifies(c);
		if (c->state == DBC_BUSY)
			dbc_read_results(c);
		if (c->listener && c->state == DBC_IDLE)
			dbc_notifies(c);
	}
}

/* The server's notices and warnings (a FATAL before it hangs up) go to
 * robotd's log, one line each, not raw to stderr. */
static void
dbc_on_notice(void *arg, const char *message)
{
	struct dbc *c = arg;

	log_info("database connection %d: %.*s", c->index,
		 (int)strcspn(message, "\n"), message);
}

/*
 * Starts a connection to conninfo whose search path finds robotd's
 * functions (DB_FUNCTIONS_SCHEMA) before the tables: the options that
 * conninfo gives, if any, and "-c search_path=...", which follows them
 * and so wins.  Blocking or not.
 */
static PGconn *
db_start(const char *conninfo, bool blocking)
{
	/* Over TCP, a database cut off (a partition: no RST, no FIN) is
	 * found out within seconds, not at the kernel's 15 minutes of
	 * retransmissions: unless conninfo says otherwise, a connection
	 * with data unacknowledged for 10 s is given up, an idle one is
	 * probed after 10 s, and a connect waits 10 s.  (docs/deploy.md
	 * has what the lab measured.) */
	static const char *const tcp[][2] = {
		{"tcp_user_timeout", "10000"}, {"keepalives_idle", "10"},
		{"keepalives_interval", "3"},  {"keepalives_count", "3"},
		{"connect_timeout", "10"},
	};
	const char *keys[3 + sizeof tcp / sizeof tcp[0]];
	const char *values[3 + sizeof tcp / sizeof tcp[0]];
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL);
	const char *given = NULL;
	char *options;
	size_t n = 0;
	PGconn *c;

	for (PQconninfoOption *o = opts; o != NULL && o->keyword != NULL; o++)
		if (strcmp(o->keyword, "options") == 0)
			given = o->val;
	options = xasprintf("%s%s-c search_path=%s,public", given ? given : "",
			    given ? " " : "", DB_FUNCTIONS_SCHEMA);
	keys[n] = "dbname";
	values[n++] = conninfo;
	keys[n] = "options";
	values[n++] = options;
	for (size_t i = 0; i < sizeof tcp / sizeof tcp[0]; i++) {
		bool set = false;

		for (PQconninfoOption *o = opts;
		     o != NULL && o->keyword != NULL; o++)
			if (strcmp(o->keyword, tcp[i][0]) == 0 &&
			    o->val != NULL)
				set = true;
		if (!set) {
			keys[n] = tcp[i][0];
			values[n++] = tcp[i][1];
		}
	}
	keys[n] = NULL;
	values[n] = NULL;
	c = blocking ? PQconnectdbParams(keys, values, 1)
		     : PQconnectStartParams(keys, values, 1);
	PQconninfoFree(opts);
	free(options);
	return c;
}

static void
dbc_connect(struct dbc *c)
{
	PostgresPollingStatusType p;

	c->conn = db_start(c->db->conninfo, false);
	if (c->conn == NULL || PQstatus(c->conn) == CONNECTION_BAD) {
		dbc_fail(c,
			 c->conn ? PQerrorMessage(c->conn) : "out of memory");
		return;
	}
	PQsetNoticeProcessor(c->conn, dbc_on_notice, c);
	dbc_set_state(c, DBC_CONNECTING);
	c->rev = event_new(c->db->base, PQsocket(c->conn), EV_READ | EV_PERSIST,
			   dbc_on_io, c);
	c->wev = event_new(c->db->base, PQsocket(c->conn), EV_WRITE, dbc_on_io,
			   c);
	event_add(c->rev, NULL);
	/* libpq's first poll step wants to write. */
	p = PGRES_POLLING_WRITING;
	dbc_events(c, p == PGRES_POLLING_WRITING);
}

/* The query after prev (the first when prev is NULL), taken off the
 * queue whole. */
static struct db_query *
queue_take(struct db *db, struct db_query *prev)
{
	struct db_query *q = prev != NULL ? prev->next : db->head;

	if (prev != NULL)
		prev->next = q->next;
	else
		db->head = q->next;
	if (db->tail == q)
		db->tail = prev;
	q->next = NULL;
	db->queued--;
	return q;
}

static struct db_query *
queue_pop(struct db *db)
{
	return queue_take(db, NULL);
}

/* The first query a connection may take: a shared one only while fewer
 * than shared_max are on connections, so that the others always have
 * one; NULL when none may.  *prev is the one before it. */
static struct db_query *
queue_next(struct db *db, struct db_query **prev)
{
	*prev = NULL;
	for (struct db_query *q = db->head; q != NULL; q = q->next) {
		if (!q->shared || db->shared_busy < db->shared_max)
			return q;
		*prev = q;
	}
	return NULL;
}

static void
db_on_drive(evutil_socket_t fd, short what, void *arg)
{
	struct db *db = arg;

	(void)fd;
	(void)what;
	/* Fail the queue when nothing can serve it. */
	if (!db_up(db)) {
		bool connecting = false;

		for (int i = 0; i < db->size; i++)
			connecting = connecting ||
				     db->conns[i].state == DBC_CONNECTING;
		if (!connecting) {
			/* (each taken off whole first: its callback may
			 * queue another, which this loop fails too) */
			while (db->head != NULL)
				query_finish(queue_pop(db), NULL, "08006",
					     db->error ? db->error
						       : "database down",
					     NULL);
			return;
		}
	}
	for (int i = 0; i < db->size && db->head != NULL; i++) {
		struct dbc *c = &db->conns[i];
		struct db_query *q, *prev;

		if (c->state != DBC_IDLE)
			continue;
		if (queue_next(db, &prev) == NULL)
			break;
		q = queue_take(db, prev);
		if (q->shared)
			db->shared_busy++;
		if (!PQsendQueryParams(c->conn, q->sql, q->nparams, NULL,
				       (const char *const *)q->params, NULL,
				       NULL, q->binary ? 1 : 0)) {
			c->q = q;
			dbc_fail(c, PQerrorMessage(c->conn));
			continue;
		}
		c->q = q;
		dbc_set_state(c, DBC_BUSY);
		dbc_events(c, PQflush(c->conn) == 1);
	}
}

static void
db_drive(struct db *db)
{
	event_active(db->drive, 0, 0);
}

struct db *
db_new(struct event_base *base, const char *conninfo, int size,
       const char *channel, db_notify_cb on_notify, void *notify_arg)
{
	struct db *db = xcalloc(1, sizeof *db);

	db->base = base;
	db->conninfo = xstrdup(conninfo);
	db->channel = channel ? xstrdup(channel) : NULL;
	db->on_notify = on_notify;
	db->notify_arg = notify_arg;
	db->size = size;
	/* a quarter kept for the rest, at least one (none of a pool of 1) */
	db->shared_max = size > 1 ? size - (size / 4 > 1 ? size / 4 : 1) : 1;
	db->nconns = size + (channel ? 1 : 0);
	db->conns = xcalloc((size_t)db->nconns, sizeof *db->conns);
	db->drive = event_new(base, -1, 0, db_on_drive, db);
	for (int i = 0; i < db->nconns; i++) {
		struct dbc *c = &db->conns[i];

		c->db = db;
		c->index = i;
		c->backoff = 0.1;
		c->listener = i == size;
		c->timer = evtimer_new(base, dbc_on_retry, c);
		dbc_connect(c);
	}
	return db;
}

void
db_free(struct db *db)
{
	if (db == NULL)
		return;
	for (int i = 0; i < db->nconns; i++) {
		struct dbc *c = &db->conns[i];

		if (c->rev != NULL) {
			event_free(c->rev);
			event_free(c->wev);
		}
		event_free(c->timer);
		if (c->last != NULL)
			PQclear(c->last);
		if (c->conn != NULL)
			PQfinish(c->conn);
		if (c->q != NULL)
			query_finish(c->q, NULL, "57P01", "robotd is stopping",
				     NULL);
	}
	while (db->head != NULL)
		query_finish(queue_pop(db), NULL, "57P01", "robotd is stopping",
			     NULL);
	event_free(db->drive);
	free(db->conns);
	free(db->conninfo);
	free(db->channel);
	free(db->error);
	free(db);
}

static void
enqueue(struct db *db, const char *sql, int nparams, const char *const *params,
	int flags, db_cb cb, void *arg)
{
	struct db_query *q = xcalloc(1, sizeof *q);

	q->binary = (flags & DB_BINARY) != 0;
	q->shared = (flags & DB_SHARED) != 0;
	q->sql = xstrdup(sql);
	q->nparams = nparams;
	q->params = xcalloc((size_t)nparams + 1, sizeof *q->params);
	for (int i = 0; i < nparams; i++)
		q->params[i] = params[i] ? xstrdup(params[i]) : NULL;
	q->cb = cb;
	q->arg = arg;
	if (db->tail != NULL)
		db->tail->next = q;
	else
		db->head = q;
	db->tail = q;
	db->queued++;
	db_drive(db);
}

void
db_query(struct db *db, const char *sql, int nparams, const char *const *params,
	 db_cb cb, void *arg)
{
	enqueue(db, sql, nparams, params, 0, cb, arg);
}

void
db_query_flags(struct db *db, const char *sql, int nparams,
	       const char *const *params, int flags, db_cb cb, void *arg)
{
	enqueue(db, sql, nparams, params, flags, cb, arg);
}

void
db_query_binary(struct db *db, const char *sql, int nparams,
		const char *const *params, db_cb cb, void *arg)
{
	enqueue(db, sql, nparams, params, DB_BINARY, cb, arg);
}

bool
db_up(const struct db *db)
{
	for (int i = 0; i < db->size; i++)
		if (db->conns[i].state == DBC_IDLE ||
		    db->conns[i].state == DBC_BUSY)
			return true;
	return false;
}

size_t
db_queued(const struct db *db)
{
	return db->queued;
}

bool
db_ok(const struct db_result *r)
{
	return r->res != NULL;
}

const char *
db_sqlstate(const struct db_result *r)
{
	return r->sqlstate;
}

const char *
db_message(const struct db_result *r)
{
	return r->message;
}

const char *
db_detail(const struct db_result *r)
{
	return r->detail;
}

size_t
db_rows(const struct db_result *r)
{
	return r->res != NULL ? (size_t)PQntuples(r->res) : 0;
}

const char *
db_value(const struct db_result *r, size_t row, int col)
{
	if (col < 0 || col >= PQnfields(r->res) ||
	    row >= (size_t)PQntuples(r->res))
		fatalx("a query result has no row %zu, column %d", row, col);
	if (PQgetisnull(r->res, (int)row, col))
		return NULL;
	return PQgetvalue(r->res, (int)row, col);
}

size_t
db_length(const struct db_result *r, size_t row, int col)
{
	(void)db_value(r, row, col); /* checks row and column */
	return (size_t)PQgetlength(r->res, (int)row, col);
}

struct db_result *
db_result_take(const struct db_result *r)
{
	struct db_result *t = xcalloc(1, sizeof *t),
			 *from = (struct db_result *)r;

	/* The callback's result is the loop's, on its stack: its rows
	 * change hands, and query_finish() sees they did. */
	t->res = from->res;
	from->res = NULL;
	t->message = "";
	t->detail = "";
	return t;
}

/* Blocking connections. */

struct db_conn {
	PGconn *conn;
};

struct db_conn *
db_connect(const char *conninfo, char **err)
{
	PGconn *c = db_start(conninfo, true);
	struct db_conn *dc;

	if (PQstatus(c) != CONNECTION_OK) {
		*err = xasprintf("cannot connect to the database: %s",
				 PQerrorMessage(c));
		(*err)[strcspn(*err, "\n")] = '\0';
		PQfinish(c);
		return NULL;
	}
	PQclear(PQexec(c, "SET client_min_messages = warning"));
	dc = xcalloc(1, sizeof *dc);
	dc->conn = c;
	return dc;
}

void
db_disconnect(struct db_conn *c)
{
	if (c == NULL)
		return;
	PQfinish(c->conn);
	free(c);
}

struct db_result *
db_exec(struct db_conn *c, const char *sql, int nparams,
	const char *const *params)
{
	struct db_result *r = xcalloc(1, sizeof *r);
	PGresult *res = nparams == 0 ? PQexec(c->conn, sql)
				     : PQexecParams(c->conn, sql, nparams, NULL,
						    params, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(res);

	/* Empty: sql holds only comments (a migration that changes no
	 * table, sql/schema/). */
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK ||
	    st == PGRES_EMPTY_QUERY) {
		r->res = res;
		r->message = r->detail = "";
		return r;
	}
	snprintf(r->sqlstate, sizeof r->sqlstate, "%s",
		 PQresultErrorField(res, PG_DIAG_SQLSTATE)
			 ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
			 : "");
	r->own_message = xstrdup(
		PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
			? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
			: PQerrorMessage(c->conn));
	r->own_message[strcspn(r->own_message, "\n")] = '\0';
	r->own_detail = xstrdup(
		PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL)
			? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL)
			: "");
	r->message = r->own_message;
	r->detail = r->own_detail;
	PQclear(res);
	return r;
}

void
db_result_free(struct db_result *r)
{
	if (r == NULL)
		return;
	PQclear(r->res);
	free(r->own_message);
	free(r->own_detail);
	free(r);
}

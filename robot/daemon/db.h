/*
 * db.h: PostgreSQL from the event loop: a small pool of non-blocking libpq
 * connections, queries queued while all are busy, reconnection with
 * backoff when the server goes away, and LISTEN on a connection of its
 * own; and, for the work before the loop starts (migrations, token
 * commands), plain blocking connections.  db.c is the only file that
 * includes libpq-fe.h; the SQL itself is the store's (store.h).
 *
 * A query's callback runs exactly once, from the loop, never from inside
 * db_query().  It gets the result: its rows when db_ok(), else the
 * failure (db_sqlstate(), db_message(), db_detail()): the database is
 * down or the query failed.
 */
#ifndef ROBOT_DB_H
#define ROBOT_DB_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

/* The schema of robotd's functions (sql/functions/), made anew at each
 * start: every connection finds them first, then the tables (public). */
#define DB_FUNCTIONS_SCHEMA "robot_functions"

struct db;

/* A query's outcome: its rows, or why there are none (a PGresult
 * underneath, freed after the callback). */
struct db_result;

typedef void (*db_cb)(const struct db_result *r, void *arg);
/* Called with the payload of each NOTIFY on the listened channel, or
 * with NULL after a reconnect (notifications may have been missed). */
typedef void (*db_notify_cb)(const char *payload, void *arg);

/*
 * A pool of size connections to conninfo, and one more listening on
 * channel when it is not NULL.  Connecting starts at once.
 */
struct db *db_new(struct event_base *base, const char *conninfo, int size,
		  const char *channel, db_notify_cb on_notify,
		  void *notify_arg);
void db_free(struct db *db);
/*
 * Runs sql with text parameters $1..$n (NULL for SQL NULL).  The
 * parameters are copied.
 */
void db_query(struct db *db, const char *sql, int nparams,
	      const char *const *params, db_cb cb, void *arg);
/* db_query() with the rows' values in binary (PostgreSQL's send
 * format: big-endian numbers, arrays with their header): for many
 * numbers, which text would cost the server more to print than the
 * query. */
void db_query_binary(struct db *db, const char *sql, int nparams,
		     const char *const *params, db_cb cb, void *arg);
/*
 * db_query() with flags: DB_BINARY as db_query_binary(); DB_SHARED for
 * the statements a crowd may cause (listings, histories, comparisons
 * asked for; submits): they take at most the pool's size less a quarter
 * (at least one) of its connections at once, the rest kept for
 * everything else, so that no crowd of anonymous readers (issue 28) nor
 * of large submits (issue 61) holds every connection.
 */
enum { DB_BINARY = 1, DB_SHARED = 2 };
void db_query_flags(struct db *db, const char *sql, int nparams,
		    const char *const *params, int flags, db_cb cb, void *arg);
/* Whether at least one connection of the pool is up. */
bool db_up(const struct db *db);
/* Queries waiting for a connection. */
size_t db_queued(const struct db *db);

/* Whether the query ran; else the three below say why. */
bool db_ok(const struct db_result *r);
/* The SQLSTATE of a failure ("" when there is none, as for a lost
 * connection), its message and its DETAIL (or ""). */
const char *db_sqlstate(const struct db_result *r);
const char *db_message(const struct db_result *r);
const char *db_detail(const struct db_result *r);
/* Rows of a result that is db_ok() (0 otherwise). */
size_t db_rows(const struct db_result *r);
/* The value at row, column (NULL for SQL NULL); columns counted from 0,
 * fatal for a column the result does not have. */
const char *db_value(const struct db_result *r, size_t row, int col);
/* The length in bytes of that value (binary values hold NULs). */
size_t db_length(const struct db_result *r, size_t row, int col);
/*
 * Takes the rows of a callback's result that is db_ok(), to read after
 * the callback returns (on another thread): the caller frees them with
 * db_result_free().  The callback's r has no rows after.
 */
struct db_result *db_result_take(const struct db_result *r);

/* Blocking connections, for the work before the loop. */
struct db_conn;

/* Connects to conninfo; NULL with *err (the caller frees it). */
struct db_conn *db_connect(const char *conninfo, char **err);
void db_disconnect(struct db_conn *c);
/*
 * Runs sql with text parameters (nparams 0: sql may hold several
 * statements) and returns its outcome, which the caller frees with
 * db_result_free().
 */
struct db_result *db_exec(struct db_conn *c, const char *sql, int nparams,
			  const char *const *params);
void db_result_free(struct db_result *r);

#endif

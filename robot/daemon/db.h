/*
 * db.h: PostgreSQL from the event loop: a small pool of non-blocking libpq
 * connections, queries queued while all are busy, reconnection with
 * backoff when the server goes away, and LISTEN on a connection of its
 * own.  db.c is the only file of the loop that includes libpq-fe.h; the
 * blocking start-up work (migrations, token commands) is pgsync.c's.
 *
 * A query's callback runs exactly once, from the loop, never from inside
 * db_query().  It gets the result rows, or NULL when the database is down
 * or the query failed; then db_last_message() says why and
 * db_last_sqlstate() gives the code (the RBnnn codes of sql/ carry the
 * HTTP status).
 */
#ifndef ROBOT_DB_H
#define ROBOT_DB_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

struct db;

/* The rows of a result (a PGresult underneath, freed after the callback). */
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
/* Whether at least one connection of the pool is up. */
bool db_up(const struct db *db);
/* Queries waiting for a connection. */
size_t db_queued(const struct db *db);

size_t db_rows(const struct db_result *r);
/* The value at row, column (NULL for SQL NULL). */
const char *db_value(const struct db_result *r, size_t row, int col);

/*
 * For a failed query the callback gets NULL; these describe the failure
 * of the query whose callback is running now.
 */
const char *db_last_sqlstate(void);
const char *db_last_message(void);
/* Its DETAIL, or "". */
const char *db_last_detail(void);

#endif

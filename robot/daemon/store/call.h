/*
 * call.h: what the store's domain files share (only they include it).
 * A statement is data: its SQL, the kinds of its parameters and the
 * reader of its answer; store_call() packs the parameters as the
 * statement says, runs it on the pool and hands the rows, or the
 * problem, to the reader, which calls the caller's typed callback.
 */
#ifndef ROBOT_STORE_CALL_H
#define ROBOT_STORE_CALL_H

#include <stdbool.h>

#include "robot/core/view.h"
#include "robot/daemon/db.h"
#include "robot/daemon/problem.h"

struct store;

/* A typed callback, as the statement's reader casts it back. */
typedef void (*store_fn)(void);
#define STORE_FN(f) ((store_fn)(f))

/* Reads a statement's answer (rows, or p) and calls cb with what it
 * makes of it, once. */
typedef void (*store_read_fn)(const struct db_result *r,
			      const struct problem *p, store_fn cb, void *arg);

struct store_stmt {
	const char *sql;
	/* A letter per parameter $1, $2...: 's' text (NULL is SQL NULL),
	 * 'i' an int, 'l' a long long, 'z' a long long whose 0 is SQL NULL,
	 * 'b' a bool; each given by its STORE_ macro below. */
	const char *params;
	store_read_fn read;
	bool binary; /* the rows in PostgreSQL's binary format */
	/* A statement anyone may cause again and again (listings,
	 * histories, pages; a submitter's submits): it takes a share of
	 * the pool only (db_query_flags(), DB_SHARED), so that status,
	 * leases and uploads always have a connection. */
	bool shared;
};

/*
 * A parameter, of the kind its macro names: the compiler checks the
 * value against the field it initializes (a number where text is
 * wanted does not build), and store_call() checks the kinds against the
 * statement's params, and those against the $n of its SQL.
 */
struct store_arg {
	char kind; /* 0 ends the list */
	const char *text;
	long long num;
};
#define STORE_TEXT(v) ((struct store_arg){'s', .text = (v)})
#define STORE_INT(v)  ((struct store_arg){'i', .num = (v)})
#define STORE_LONG(v) ((struct store_arg){'l', .num = (v)})
#define STORE_ID(v)   ((struct store_arg){'z', .num = (v)})
#define STORE_BOOL(v) ((struct store_arg){'b', .num = !!(v)})

/* Runs st with the parameters that follow arg, each given by a STORE_
 * macro of the kind st->params gives; st->read gets the answer.  A
 * parameter list that does not fit the statement is a bug: fatalx. */
#define store_call(s, st, cb, arg, ...)                                        \
	store_call_args(                                                       \
		(s), (st), (cb), (arg),                                        \
		(const struct store_arg[]){__VA_ARGS__ __VA_OPT__(, ){0}})
void store_call_args(struct store *s, const struct store_stmt *st, store_fn cb,
		     void *arg, const struct store_arg *args);

/* Readers: row 0, column 0 as text (NULL when there is no row) to a
 * store_text_cb; nothing to a NULL cb. */
void store_read_text(const struct db_result *r, const struct problem *p,
		     store_fn cb, void *arg);

/*
 * For a reader of a document with a view: row 0, column 0 decoded by
 * view into a struct that lives for the callback (cb's first argument,
 * NULL when there is no row or there is a problem); one robotd cannot
 * read is a problem (500, "a document that does not fit its view: ...").
 * The statement's reader is a line of the domain's that names its view.
 */
void store_read_view(const struct db_result *r, const struct problem *p,
		     const struct view_type *view, store_fn cb, void *arg);

/*
 * For a reader of a claim: row 0, column 0 decoded by decode into *obj
 * (NULL when there is no row, or p).  Returns the problem to hand on:
 * p, or one made when decode refuses the text (a claim robotd cannot
 * read), which the caller frees with problem_free() after its callback.
 */
struct problem *store_decode(const struct db_result *r, const struct problem *p,
			     void *(*decode)(const char *text), void **obj);
void store_decoded_free(struct problem *made, const struct problem *p);

/* Blocking, before the loop: runs sql (with text parameters); false
 * with *err (the caller frees it) when it fails. */
bool store_exec(struct db_conn *c, const char *sql, int n,
		const char *const *params, char **err)
	__attribute__((warn_unused_result));

#endif

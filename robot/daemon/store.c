/*
 * store.c: the one way robotd's statements run (store/call.h).
 *
 * A call packs its parameters as text as its statement says, runs it on
 * the pool (db.c), and hands the answer to the statement's reader.
 * Failures become problems here, in one place: a lost connection or a
 * stopping robotd is PROBLEM_UNAVAILABLE, an RBnnn code of sql/ is the
 * problem of kind nnn, anything else is a bug of ours (logged) and
 * PROBLEM_INTERNAL.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store.h"
#include "robot/daemon/store/call.h"
#include "robot/core/banned.h"

#define STORE_PARAMS_MAX 16 /* parameters of one statement */

struct store {
	struct db *db;
};

/* A call in flight: its statement and the caller's callback. */
struct store_call {
	const struct store_stmt *st;
	store_fn cb;
	void *arg;
};

struct store *
store_new(struct db *db)
{
	struct store *s = xcalloc(1, sizeof *s);

	s->db = db;
	return s;
}

void
store_free(struct store *s)
{
	free(s);
}

bool
store_up(const struct store *s)
{
	return db_up(s->db);
}

size_t
store_queued(const struct store *s)
{
	return db_queued(s->db);
}

/* Why the database cannot answer, in a word, for SQLSTATE code; NULL
 * when it can (the query failed for another reason). */
static const char *
unavailable(const char *code)
{
	if (code[0] == '\0' || str_has_prefix(code, "08"))
		return "there is no connection to it";
	if (str_has_prefix(code, "57P"))
		return "it is shutting down or starting";
	if (str_has_prefix(code, "53"))
		return "it is out of disk space or memory";
	return NULL;
}

/* The problem of a failed query, or NULL when it ran. */
static struct problem *
store_problem(const struct db_result *r)
{
	const char *code = db_sqlstate(r), *msg = db_message(r);
	const char *detail = db_detail(r), *why;
	json_t *details = json_array();

	if (db_ok(r)) {
		json_decref(details);
		return NULL;
	}
	if (code[0] == 'R' && code[1] == 'B') {
		int kind = atoi(code + 2);
		const char *p = detail;

		while (*p != '\0') {
			size_t n = strcspn(p, "\n");

			json_array_append_new(details,
					      rjson_string_lossy(p, n));
			p += n + (p[n] == '\n');
		}
		if (kind < 400 || kind > 499)
			kind = PROBLEM_INVALID;
		return problem_new((enum problem_kind)kind, details, "%s", msg);
	}
	/* PostgreSQL's own message names the server's files ("could not
	 * extend file base/5/16433") and its internals: the log has it,
	 * an answer says what it means in a word. */
	if ((why = unavailable(code)) != NULL) {
		json_array_append_new(details, json_string(why));
		if (str_has_prefix(code, "53"))
			log_warnx("query failed: %s: %s", code, msg);
		return problem_new(PROBLEM_UNAVAILABLE, details,
				   "the database is unavailable");
	}
	/* A value the database cannot take (class 22: bad encoding, out
	 * of range) is the request's fault; what enters is checked first,
	 * so this is the last line of defence.  Its message is about the
	 * value (no server path). */
	if (str_has_prefix(code, "22")) {
		json_array_append_new(details, json_string(msg));
		return problem_new(PROBLEM_INVALID, details,
				   "the request holds a value the database "
				   "refuses");
	}
	log_warnx("query failed: %s: %s", code, msg);
	json_array_append_new(details, json_string("robotd's log says why"));
	return problem_new(PROBLEM_INTERNAL, details, "internal error");
}

static void
store_on_answer(const struct db_result *r, void *arg)
{
	struct store_call *c = arg;
	struct problem *p = store_problem(r);

	c->st->read(r, p, c->cb, c->arg);
	problem_free(p);
	free(c);
}

/* The highest $n of sql (dollar quotes and JSON paths have no digit). */
static int
store_sql_params(const char *sql)
{
	int most = 0;

	for (const char *p = sql; (p = strchr(p, '$')) != NULL; p++)
		if (isdigit((unsigned char)p[1])) {
			int n = (int)strtol(p + 1, NULL, 10);

			if (n > most)
				most = n;
		}
	return most;
}

void
store_call_args(struct store *s, const struct store_stmt *st, store_fn cb,
		void *arg, const struct store_arg *args)
{
	char text[STORE_PARAMS_MAX][24];
	const char *params[STORE_PARAMS_MAX];
	int n = (int)strlen(st->params), given = 0;
	struct store_call *c;

	while (args[given].kind != 0)
		given++;
	if (n > STORE_PARAMS_MAX || given != n ||
	    store_sql_params(st->sql) != n)
		fatalx("'%s' takes %d parameters (%s), called with %d", st->sql,
		       store_sql_params(st->sql), st->params, given);
	for (int i = 0; i < n; i++) {
		if (args[i].kind != st->params[i])
			fatalx("'%s': parameter $%d is of kind '%c', given "
			       "'%c'",
			       st->sql, i + 1, st->params[i], args[i].kind);
		params[i] = text[i];
		switch (args[i].kind) {
		case 's':
			params[i] = args[i].text;
			break;
		case 'i':
		case 'l':
		case 'z':
			snprintf(text[i], sizeof text[i], "%lld", args[i].num);
			if (args[i].num == 0 && args[i].kind == 'z')
				params[i] = NULL;
			break;
		case 'b':
			params[i] = args[i].num ? "true" : "false";
			break;
		default:
			fatalx("a parameter of kind '%c'", args[i].kind);
		}
	}
	c = xmalloc(sizeof *c);
	*c = (struct store_call){st, cb, arg};
	db_query_flags(s->db, st->sql, n, params,
		       (st->binary ? DB_BINARY : 0) |
			       (st->shared ? DB_SHARED : 0),
		       store_on_answer, c);
}

void
store_read_text(const struct db_result *r, const struct problem *p, store_fn cb,
		void *arg)
{
	if (cb != NULL)
		((store_text_cb)cb)(
			p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL,
			p, arg);
}

/* A callback of a decoded document, as store_read_view() calls it. */
typedef void (*view_cb)(const void *doc, const struct problem *p, void *arg);

void
store_read_view(const struct db_result *r, const struct problem *p,
		const struct view_type *view, store_fn cb, void *arg)
{
	const char *text =
		p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;
	struct view_doc d = {0};
	struct problem *made = NULL;
	void *obj = NULL;
	char err[256];

	if (text != NULL) {
		obj = xcalloc(1, view->size);
		if (!view_load(&d, view, text, obj, err, sizeof err)) {
			made = problem_new(PROBLEM_INTERNAL, NULL,
					   "a document that does not fit its "
					   "view: %s",
					   err);
			free(obj);
			obj = NULL;
		}
	}
	if (cb != NULL)
		((view_cb)cb)(obj, made != NULL ? made : p, arg);
	problem_free(made);
	view_release(&d);
	free(obj);
}

struct problem *
store_decode(const struct db_result *r, const struct problem *p,
	     void *(*decode)(const char *text), void **obj)
{
	const char *text =
		p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;

	*obj = text != NULL ? decode(text) : NULL;
	if (text != NULL && *obj == NULL)
		return problem_new(PROBLEM_INTERNAL, NULL,
				   "a claim that robotd cannot read: %.80s",
				   text);
	return (struct problem *)p;
}

void
store_decoded_free(struct problem *made, const struct problem *p)
{
	if (made != p)
		problem_free(made);
}

bool
store_exec(struct db_conn *c, const char *sql, int n, const char *const *params,
	   char **err)
{
	struct db_result *r = db_exec(c, sql, n, params);
	bool ok = db_ok(r);

	if (!ok)
		*err = xstrdup(db_message(r));
	db_result_free(r);
	return ok;
}

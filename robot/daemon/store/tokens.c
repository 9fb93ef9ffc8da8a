/*
 * tokens.c: the store's credentials (tokens.h).  Only a token's or a
 * code's sha256 is stored: a database dump reveals none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "robot/core/xmalloc.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/schema.h"
#include "robot/daemon/store/tokens.h"
#include "robot/core/banned.h"

bool
store_secret(char out[STORE_SECRET_MAX], const char *prefix, char **err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[24];
	size_t n = strlen(prefix);

	if (n + 2 * sizeof raw + 1 > STORE_SECRET_MAX)
		abort();
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		*err = xasprintf("getrandom: %s", strerror(errno));
		return false;
	}
	memcpy(out, prefix, n);
	for (size_t i = 0; i < sizeof raw; i++) {
		out[n + 2 * i] = hex[raw[i] >> 4];
		out[n + 2 * i + 1] = hex[raw[i] & 15];
	}
	out[n + 2 * sizeof raw] = '\0';
	explicit_bzero(raw, sizeof raw);
	return true;
}

/* A connection to conninfo, the database brought up first (a fresh one
 * gets its tables); NULL with *err. */
static struct db_conn *
connect_up(const char *conninfo, char **err)
{
	struct db_conn *c;
	int version;

	if ((c = db_connect(conninfo, err)) == NULL)
		return NULL;
	/* On the same connection: a backend's start is about 30 ms of
	 * CPU, and the tests make some 150 tokens a pass. */
	if (!store_migrate_on(c, &version, err)) {
		db_disconnect(c);
		return NULL;
	}
	return c;
}

char *
store_token_create(const char *conninfo, const char *kind, const char *name,
		   const char *group, char **err)
{
	char token[STORE_SECRET_MAX];
	const char *params[4] = {kind, name, token, group};
	struct db_conn *c;
	char *out = NULL;

	*err = NULL;
	if (!store_secret(token, "rbt_", err) ||
	    (c = connect_up(conninfo, err)) == NULL)
		return NULL;
	if (store_exec(c,
		       "INSERT INTO tokens (kind, name, hash, tbox_group) "
		       "VALUES ($1, $2, sha256(convert_to($3, 'UTF8')), $4)",
		       4, params, err))
		out = xstrdup(token);
	db_disconnect(c);
	explicit_bzero(token, sizeof token);
	return out;
}

char *
store_enroll_code(const char *conninfo, const char *name, const char *group,
		  int seconds, char **expires, char **err)
{
	char code[STORE_SECRET_MAX], secs[16];
	const char *params[4] = {name, group, code, secs};
	struct db_conn *c;
	struct db_result *r;
	char *out = NULL;

	*err = NULL;
	*expires = NULL;
	snprintf(secs, sizeof secs, "%d", seconds);
	if (!store_secret(code, "rbe_", err) ||
	    (c = connect_up(conninfo, err)) == NULL)
		return NULL;
	r = db_exec(c,
		    "SELECT to_char(robot_enroll_code($1, $2, $3, $4) AT TIME "
		    "ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS \"UTC\"')",
		    4, params);
	if (db_ok(r) && db_rows(r) == 1) {
		out = xstrdup(code);
		*expires = xstrdup(db_value(r, 0, 0));
	} else {
		*err = xstrdup(db_message(r));
	}
	db_result_free(r);
	db_disconnect(c);
	explicit_bzero(code, sizeof code);
	return out;
}

static void
read_token(const struct db_result *r, const struct problem *p, store_fn cb,
	   void *arg)
{
	bool found = p == NULL && db_rows(r) > 0;

	((store_token_cb)cb)(found ? db_value(r, 0, 0) : NULL,
			     found ? db_value(r, 0, 1) : NULL,
			     found ? db_value(r, 0, 2) : NULL, p, arg);
}

static const struct store_stmt token_stmt = {
	"SELECT kind, name, revoked FROM robot_token($1)", "s", read_token,
	false};

void
store_token(struct store *s, const char *token, store_token_cb cb, void *arg)
{
	store_call(s, &token_stmt, STORE_FN(cb), arg, STORE_TEXT(token));
}

static const struct store_stmt tokens_stmt = {"SELECT robot_tokens()", "",
					      store_read_text, false};

void
store_tokens(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &tokens_stmt, STORE_FN(cb), arg);
}

static const struct store_stmt token_revoke_stmt = {
	"SELECT robot_token_revoke($1, $2)", "ls", store_read_text, false};

void
store_token_revoke(struct store *s, long long id, const char *by,
		   store_text_cb cb, void *arg)
{
	store_call(s, &token_revoke_stmt, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(by));
}

static const struct store_stmt enroll_stmt = {"SELECT robot_enroll($1, $2)",
					      "ss", store_read_text, false};

void
store_enroll(struct store *s, const char *code, const char *token,
	     store_text_cb cb, void *arg)
{
	store_call(s, &enroll_stmt, STORE_FN(cb), arg, STORE_TEXT(code),
		   STORE_TEXT(token));
}

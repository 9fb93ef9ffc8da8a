/*
 * tokens.c: the store's tokens (tokens.h).  Only a token's sha256 is
 * stored: a database dump reveals none.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "robot/core/xmalloc.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/schema.h"
#include "robot/daemon/store/tokens.h"
#include "robot/core/banned.h"

char *
store_token_create(const char *conninfo, const char *kind, const char *name,
		   char **err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[24];
	char token[4 + 2 * sizeof raw + 1] = "rbt_";
	const char *params[3] = {kind, name, token};
	struct db_conn *c;
	char *out = NULL;
	int version;

	*err = NULL;
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		*err = xasprintf("getrandom: %s", strerror(errno));
		return NULL;
	}
	for (size_t i = 0; i < sizeof raw; i++) {
		token[4 + 2 * i] = hex[raw[i] >> 4];
		token[5 + 2 * i] = hex[raw[i] & 15];
	}
	token[sizeof token - 1] = '\0';
	if ((c = db_connect(conninfo, err)) == NULL)
		return NULL;
	/* The database brought up first, on the same connection: a
	 * backend's start is about 30 ms of CPU, and the tests make some
	 * 150 tokens a pass. */
	if (store_migrate_on(c, &version, err) &&
	    store_exec(c,
		       "INSERT INTO tokens (kind, name, hash) VALUES "
		       "($1, $2, sha256(convert_to($3, 'UTF8')))",
		       3, params, err))
		out = xstrdup(token);
	db_disconnect(c);
	explicit_bzero(token, sizeof token);
	return out;
}

static void
read_token(const struct db_result *r, const struct problem *p, store_fn cb,
	   void *arg)
{
	bool found = p == NULL && db_rows(r) > 0;

	((store_token_cb)cb)(found ? db_value(r, 0, 0) : NULL,
			     found ? db_value(r, 0, 1) : NULL, p, arg);
}

static const struct store_stmt token_stmt = {
	"SELECT kind, name FROM tokens "
	"WHERE hash = sha256(convert_to($1, 'UTF8'))",
	"s", read_token, false};

void
store_token(struct store *s, const char *token, store_token_cb cb, void *arg)
{
	store_call(s, &token_stmt, STORE_FN(cb), arg, STORE_TEXT(token));
}

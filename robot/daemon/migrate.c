/*
 * pgsync.c: the blocking PostgreSQL work done before the event loop
 * starts: schema migrations and token commands.  Concurrent robotd
 * instances starting on one database are serialized by an advisory lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <libpq-fe.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/migrate.h"
#include "robot/core/banned.h"

int
pgsync_latest(void)
{
	int v = 0;

	for (size_t i = 0; migrations[i].name != NULL; i++)
		v = migrations[i].version;
	return v;
}

static bool
exec_ok(PGconn *c, const char *sql, char **err)
{
	PGresult *r = PQexec(c, sql);
	bool ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
		  PQresultStatus(r) == PGRES_TUPLES_OK;

	if (!ok)
		*err = xasprintf("%s", PQerrorMessage(c));
	PQclear(r);
	return ok;
}

bool
pgsync_migrate(const char *conninfo, int *version, char **err)
{
	PGconn *c = PQconnectdb(conninfo);
	PGresult *r;
	int have = 0, latest = pgsync_latest();
	bool ok = false;

	*err = NULL;
	if (PQstatus(c) != CONNECTION_OK) {
		*err = xasprintf("cannot connect to the database: %s",
				 PQerrorMessage(c));
		PQfinish(c);
		return false;
	}
	PQclear(PQexec(c, "SET client_min_messages = warning"));
	if (!exec_ok(c, "BEGIN", err) ||
	    !exec_ok(c, "SELECT pg_advisory_xact_lock(727272)", err) ||
	    !exec_ok(c,
		     "CREATE TABLE IF NOT EXISTS robot_schema "
		     "(version int NOT NULL, name text NOT NULL, "
		     "applied timestamptz NOT NULL DEFAULT now())",
		     err))
		goto out;
	r = PQexec(c, "SELECT coalesce(max(version), 0) FROM robot_schema");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		*err = xasprintf("%s", PQerrorMessage(c));
		PQclear(r);
		goto out;
	}
	have = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (have > latest) {
		*err = xasprintf("the database has schema version %d, newer "
				 "than this robotd knows (%d): run a newer "
				 "robotd",
				 have, latest);
		goto out;
	}
	for (size_t i = 0; migrations[i].name != NULL; i++) {
		const struct migration *m = &migrations[i];
		const char *params[2];
		char vbuf[16];

		if (m->version <= have)
			continue;
		log_info("applying schema migration %s", m->name);
		if (!exec_ok(c, m->sql, err)) {
			char *e = *err;

			*err = xasprintf("migration %s failed: %s", m->name, e);
			free(e);
			goto out;
		}
		snprintf(vbuf, sizeof vbuf, "%d", m->version);
		params[0] = vbuf;
		params[1] = m->name;
		r = PQexecParams(c,
				 "INSERT INTO robot_schema (version, name) "
				 "VALUES ($1, $2)",
				 2, NULL, params, NULL, NULL, 0);
		PQclear(r);
		have = m->version;
	}
	ok = exec_ok(c, "COMMIT", err);
out:
	if (!ok)
		PQclear(PQexec(c, "ROLLBACK"));
	PQfinish(c);
	*version = have;
	return ok;
}

char *
pgsync_token_create(const char *conninfo, const char *kind, const char *name,
		    char **err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[24];
	char token[4 + 2 * sizeof raw + 1] = "rbt_";
	const char *params[3];
	PGconn *c;
	PGresult *r;
	char *out = NULL;

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
	c = PQconnectdb(conninfo);
	if (PQstatus(c) != CONNECTION_OK) {
		*err = xasprintf("cannot connect to the database: %s",
				 PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	params[0] = kind;
	params[1] = name;
	params[2] = token;
	/* Only the hash is stored: a database dump reveals no token. */
	r = PQexecParams(c,
			 "INSERT INTO tokens (kind, name, hash) VALUES "
			 "($1, $2, sha256(convert_to($3, 'UTF8')))",
			 3, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) == PGRES_COMMAND_OK)
		out = xstrdup(token);
	else
		*err = xasprintf("%s", PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	explicit_bzero(token, sizeof token);
	return out;
}

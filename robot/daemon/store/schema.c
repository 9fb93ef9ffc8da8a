/*
 * schema.c: the database brought to what this robotd knows, before the
 * loop starts.  In one transaction, under one advisory lock (several
 * robotd starting at once take turns):
 *
 * 1. the table migrations applied so far are checked: each one's sha256
 *    as applied is the file's now, or robotd refuses to start naming
 *    the file (a migration is append-only: a change goes in a new one);
 * 2. the functions loaded so far are no newer than this robotd's;
 * 3. the migrations it lacks are applied (sql/schema/NNN_NAME.sql);
 * 4. every function, view and trigger is made anew from
 *    sql/functions/DOMAIN.sql in their own schema (DB_FUNCTIONS_SCHEMA),
 *    dropped first as a whole, so that no function of an older robotd
 *    is left and a changed signature needs no DROP by hand.
 *
 * The migrations run with the tables' schema (public) alone on the
 * search path: they never call the functions, which may not exist yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/db.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/migrations.h"
#include "robot/daemon/store/schema.h"
#include "robot/core/banned.h"

int
store_schema_latest(void)
{
	int v = 0;

	for (size_t i = 0; migrations[i].name != NULL; i++)
		v = migrations[i].version;
	return v;
}

int
store_functions_version(void)
{
	return functions_version;
}

static const struct migration *
migration_find(int version)
{
	for (size_t i = 0; migrations[i].name != NULL; i++)
		if (migrations[i].version == version)
			return &migrations[i];
	return NULL;
}

/* The bookkeeping tables, made or brought up to date: robot_schema (a
 * row per migration applied; its sha256 since the functions left the
 * migrations) and robot_functions_loaded (the functions' version). */
static bool
schema_book(struct db_conn *c, char **err)
{
	return store_exec(c,
			  "CREATE TABLE IF NOT EXISTS robot_schema "
			  "(version int NOT NULL, name text NOT NULL, "
			  "applied timestamptz NOT NULL DEFAULT now())",
			  0, NULL, err) &&
	       store_exec(c,
			  "ALTER TABLE robot_schema ADD COLUMN IF NOT EXISTS "
			  "sha256 text",
			  0, NULL, err) &&
	       store_exec(c,
			  "CREATE TABLE IF NOT EXISTS robot_functions_loaded "
			  "(version int NOT NULL, sha256 text NOT NULL, "
			  "loaded timestamptz NOT NULL DEFAULT now())",
			  0, NULL, err) &&
	       store_exec(c,
			  "ALTER TABLE robot_functions_loaded ADD COLUMN IF "
			  "NOT EXISTS fingerprint text",
			  0, NULL, err);
}

/* The functions and triggers in the database as they are: their names,
 * arguments and bodies, and the tables of the triggers (an md5).  Kept
 * when they are loaded, it tells whether someone changed or dropped one
 * by hand since. */
#define FUNCTIONS_FINGERPRINT                                                  \
	"(SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) FROM "    \
	"(SELECT p.proname || '(' || pg_get_function_identity_arguments("      \
	"p.oid) || ') ' || md5(p.prosrc) AS x FROM pg_proc p JOIN "            \
	"pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = "          \
	"'" DB_FUNCTIONS_SCHEMA "' UNION ALL SELECT t.tgname || ' ON ' || "    \
	"t.tgrelid::regclass::text || ' ' || f.proname FROM pg_trigger t "     \
	"JOIN pg_proc f ON f.oid = t.tgfoid JOIN pg_namespace n ON n.oid = "   \
	"f.pronamespace WHERE n.nspname = '" DB_FUNCTIONS_SCHEMA "' AND "      \
	"NOT t.tgisinternal) y)"

/*
 * Checks the migrations applied so far against the files, and records
 * the sha256 of those applied by a robotd that kept none (from before
 * 012): the files as they are now.  *have gets the newest applied.
 */
static bool
schema_check(struct db_conn *c, int *have, char **err)
{
	struct db_result *r = db_exec(
		c, "SELECT version, sha256 FROM robot_schema ORDER BY version",
		0, NULL);
	int latest = store_schema_latest(), recorded = 0;
	bool ok = db_ok(r);

	if (!ok)
		*err = xstrdup(db_message(r));
	for (size_t i = 0; ok && i < db_rows(r); i++) {
		int v = atoi(db_value(r, i, 0));
		const char *sum = db_value(r, i, 1);
		const struct migration *m = migration_find(v);
		const char *params[2];
		char vbuf[16];

		if (v > *have)
			*have = v;
		if (v > latest) {
			*err = xasprintf("the database has schema version %d, "
					 "newer than this robotd knows (%d): "
					 "run a newer robotd",
					 v, latest);
			ok = false;
		} else if (m == NULL) {
			continue;
		} else if (sum == NULL) {
			snprintf(vbuf, sizeof vbuf, "%d", v);
			params[0] = vbuf;
			params[1] = m->sha256;
			ok = store_exec(c,
					"UPDATE robot_schema SET sha256 = $2 "
					"WHERE version = $1::int",
					2, params, err);
			recorded++;
		} else if (strcmp(sum, m->sha256) != 0) {
			*err = xasprintf(
				"sql/schema/%s has changed since this database "
				"applied it (sha256 %.12s there, %.12s here): "
				"an applied migration is never edited; a "
				"change "
				"goes in a new one",
				m->name, sum, m->sha256);
			ok = false;
		}
	}
	db_result_free(r);
	if (ok && recorded > 0)
		log_info("recorded the sha256 of %d migrations applied "
			 "before robotd kept them",
			 recorded);
	return ok;
}

/* Refuses functions newer than this robotd's, or of its version but
 * not its own (two builds that disagree).  *same: the database has this
 * robotd's functions loaded already. */
static bool
functions_check(struct db_conn *c, bool *same, char **err)
{
	struct db_result *r = db_exec(c,
				      "SELECT version, sha256, fingerprint IS "
				      "NOT DISTINCT FROM " FUNCTIONS_FINGERPRINT
				      " FROM robot_functions_loaded ORDER BY "
				      "version DESC LIMIT 1",
				      0, NULL);
	bool ok = db_ok(r);

	*same = false;
	if (!ok) {
		*err = xstrdup(db_message(r));
	} else if (db_rows(r) > 0) {
		int v = atoi(db_value(r, 0, 0));
		const char *sum = db_value(r, 0, 1);

		if (v > functions_version) {
			*err = xasprintf("the database has functions version "
					 "%d, newer than this robotd's (%d): "
					 "run a newer robotd",
					 v, functions_version);
			ok = false;
		} else if (v == functions_version &&
			   strcmp(sum, functions_sha256) != 0) {
			*err = xasprintf(
				"the database has functions version %d with "
				"sha256 %.12s, this robotd's version %d is "
				"%.12s: two builds disagree on what version %d "
				"is (sql/functions/versions)",
				v, sum, v, functions_sha256, v);
			ok = false;
		} else if (v == functions_version &&
			   strcmp(db_value(r, 0, 2), "t") == 0)
			*same = true;
	}
	db_result_free(r);
	return ok;
}

/* Applies the migrations newer than *have, recording each. */
static bool
schema_apply(struct db_conn *c, int *have, char **err)
{
	for (size_t i = 0; migrations[i].name != NULL; i++) {
		const struct migration *m = &migrations[i];
		const char *params[3];
		char vbuf[16];

		if (m->version <= *have)
			continue;
		log_info("applying schema migration %s", m->name);
		if (!store_exec(c, m->sql, 0, NULL, err)) {
			char *e = *err;

			*err = xasprintf("migration %s failed: %s", m->name, e);
			free(e);
			return false;
		}
		snprintf(vbuf, sizeof vbuf, "%d", m->version);
		params[0] = vbuf;
		params[1] = m->name;
		params[2] = m->sha256;
		if (!store_exec(
			    c,
			    "INSERT INTO robot_schema (version, name, sha256) "
			    "VALUES ($1::int, $2, $3)",
			    3, params, err))
			return false;
		*have = m->version;
	}
	return true;
}

/*
 * Every function made anew in its own schema, and its version and
 * fingerprint kept.  Only when they changed, were changed by hand since
 * (the fingerprint), or a table migration was applied: dropping them
 * under a robotd that serves would leave its sessions' cached plans
 * pointing at functions that are gone ("cache lookup failed for
 * function"), and `robotd token` runs this beside a serving robotd.
 */
static bool
functions_load(struct db_conn *c, char **err)
{
	char vbuf[16];
	const char *params[2] = {vbuf, functions_sha256};

	if (!store_exec(c,
			"DROP SCHEMA IF EXISTS " DB_FUNCTIONS_SCHEMA " CASCADE",
			0, NULL, err) ||
	    !store_exec(c, "CREATE SCHEMA " DB_FUNCTIONS_SCHEMA, 0, NULL,
			err) ||
	    !store_exec(c,
			"SET LOCAL search_path = " DB_FUNCTIONS_SCHEMA
			", public",
			0, NULL, err))
		return false;
	for (size_t i = 0; function_files[i].name != NULL; i++) {
		if (!store_exec(c, function_files[i].sql, 0, NULL, err)) {
			char *e = *err;

			*err = xasprintf("sql/functions/%s failed: %s",
					 function_files[i].name, e);
			free(e);
			return false;
		}
	}
	snprintf(vbuf, sizeof vbuf, "%d", functions_version);
	/* (at the commit: a robotd of older functions beside this one
	 * stops, store_functions_loaded()) */
	return store_exec(c, "SET LOCAL search_path = public", 0, NULL, err) &&
	       store_exec(c, "SELECT pg_notify('robot_jobs', ':functions')", 0,
			  NULL, err) &&
	       store_exec(c, "DELETE FROM robot_functions_loaded", 0, NULL,
			  err) &&
	       store_exec(
		       c,
		       "INSERT INTO robot_functions_loaded (version, sha256, "
		       "fingerprint) VALUES ($1::int, "
		       "$2, " FUNCTIONS_FINGERPRINT ")",
		       2, params, err);
}

bool
store_migrate_on(struct db_conn *c, int *version, char **err)
{
	int have = 0, before;
	bool ok, same = false;

	*version = 0;
	*err = NULL;
	ok = store_exec(c, "BEGIN", 0, NULL, err) &&
	     store_exec(c, "SELECT pg_advisory_xact_lock(727272)", 0, NULL,
			err) &&
	     store_exec(c, "SET LOCAL search_path = public", 0, NULL, err) &&
	     schema_book(c, err) && schema_check(c, &have, err) &&
	     functions_check(c, &same, err);
	before = have;
	ok = ok && schema_apply(c, &have, err) &&
	     ((same && have == before) || functions_load(c, err)) &&
	     store_exec(c, "COMMIT", 0, NULL, err);
	if (!ok)
		db_result_free(db_exec(c, "ROLLBACK", 0, NULL));
	*version = have;
	return ok;
}

bool
store_migrate(const char *conninfo, int *version, char **err)
{
	struct db_conn *c = db_connect(conninfo, err);
	bool ok;

	*version = 0;
	if (c == NULL)
		return false;
	ok = store_migrate_on(c, version, err);
	db_disconnect(c);
	return ok;
}

static const struct store_stmt functions_loaded = {
	"SELECT max(version)::text FROM public.robot_functions_loaded", "",
	store_read_text, false};

void
store_functions_loaded(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &functions_loaded, STORE_FN(cb), arg);
}

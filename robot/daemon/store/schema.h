/*
 * schema.h: the database brought to what this robotd knows, before the
 * loop (blocking): the table migrations of sql/schema/ and the
 * functions of sql/functions/, built in (docs/architecture.md, "The
 * database").
 */
#ifndef ROBOT_STORE_SCHEMA_H
#define ROBOT_STORE_SCHEMA_H

#include <stdbool.h>

#include "robot/daemon/store.h"

/*
 * Brings the database at conninfo up to the newest schema this robotd
 * knows and makes its functions anew, inside one transaction under an
 * advisory lock.  Refused, with the reason in *err: a newer schema,
 * newer functions, or an applied migration whose file has changed since
 * (named).  *version gets the schema version the database is at.
 * Returns false with *err (the caller frees it).
 */
bool store_migrate(const char *conninfo, int *version, char **err)
	__attribute__((warn_unused_result));
/* The same on a connection the caller holds (and keeps). */
struct db_conn;
bool store_migrate_on(struct db_conn *c, int *version, char **err)
	__attribute__((warn_unused_result));
/* The newest schema version this robotd knows. */
int store_schema_latest(void);
/* The version of its functions (sql/functions/versions). */
int store_functions_version(void);
/*
 * From the loop: the version of the functions the database has now
 * (text), which a newer robotd may have loaded since this one started
 * (it NOTIFYs ':functions' when it does).
 */
void store_functions_loaded(struct store *s, store_text_cb cb, void *arg);

#endif

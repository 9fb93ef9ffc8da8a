/*
 * pgsync.h: blocking database work before the event loop starts.
 *
 * The schema migrations (sql/NNN_*.sql, built in) are applied in order at
 * start inside one transaction, with the version recorded in
 * robot_schema.  A database with a newer schema than this robotd knows is
 * refused.
 */
#ifndef ROBOT_PGSYNC_H
#define ROBOT_PGSYNC_H

#include <stdbool.h>

struct migration {
	int version;      /* NNN of the file name */
	const char *name; /* 001_init.sql */
	const char *sql;
};

/* The built-in migrations, in order, ending with a NULL name. */
extern const struct migration migrations[];

/*
 * Brings the database at conninfo up to the newest schema (blocking: it
 * runs before the event loop).  Returns false with *err (the caller frees
 * it).  *version gets the version the database is at.
 */
bool pgsync_migrate(const char *conninfo, int *version, char **err)
	__attribute__((warn_unused_result));
/* The newest version this robotd knows. */
int pgsync_latest(void);

/*
 * Makes a token of kind (submit, box, admin) for name and stores its
 * hash.  Returns the token (shown once; the caller frees it), or NULL
 * with *err.
 */
char *pgsync_token_create(const char *conninfo, const char *kind,
			  const char *name, char **err);

#endif

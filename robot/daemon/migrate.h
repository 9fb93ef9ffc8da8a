/*
 * migrate.h: the schema migrations, sql/NNN_*.sql, built into robotd by
 * scripts/embed-sql (the generated migrations.c defines the table);
 * store_migrate() applies them.
 */
#ifndef ROBOT_MIGRATE_H
#define ROBOT_MIGRATE_H

struct migration {
	int version;      /* NNN of the file name */
	const char *name; /* 001_init.sql */
	const char *sql;
};

/* The built-in migrations, in order, ending with a NULL name. */
extern const struct migration migrations[];

#endif

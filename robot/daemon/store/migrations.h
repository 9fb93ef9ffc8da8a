/*
 * migrations.h: the database as robotd builds it in, from sql/ by
 * scripts/embed-sql (the generated migrations.c defines these):
 * the table migrations (sql/schema/NNN_NAME.sql) and the functions
 * (sql/functions/DOMAIN.sql).  store_migrate() applies them.
 */
#ifndef ROBOT_MIGRATIONS_H
#define ROBOT_MIGRATIONS_H

struct migration {
	int version;        /* NNN of the file name */
	const char *name;   /* 001_init.sql */
	const char *sha256; /* of the file, in hex */
	const char *sql;
};

/* The table migrations, in order, ending with a NULL name. */
extern const struct migration migrations[];

struct function_file {
	const char *name; /* jobs.sql */
	const char *sql;
};

/* The functions, in the order they load, ending with a NULL name. */
extern const struct function_file function_files[];
/* Their version (sql/functions/versions) and the sha256 of them all. */
extern const int functions_version;
extern const char functions_sha256[];

#endif

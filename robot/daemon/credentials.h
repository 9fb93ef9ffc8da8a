/*
 * credentials.h: robotd's commands that make a credential, run on
 * robotd's host before any loop (the database brought up for them):
 *
 *   robotd token create --kind submit|box|admin --name NAME
 *   robotd box enroll NAME [--group G] [--expires 1h]
 *
 * Each prints its secret once; only its hash is stored.  An enrollment
 * code is traded by the box (robot-box enroll URL CODE) for its own
 * token: once, before it expires (an hour by default, a week at most).
 */
#ifndef ROBOT_CREDENTIALS_H
#define ROBOT_CREDENTIALS_H

#include <stdio.h>

#define CREDENTIALS_EXPIRES     3600 /* an enrollment code's */
#define CREDENTIALS_EXPIRES_MAX (7 * 86400)

struct credentials_args {
	enum { CREDENTIALS_TOKEN, CREDENTIALS_ENROLL } what;
	const char *kind; /* a token's */
	const char *name;
	const char *group; /* an enrollment's (NULL: the name) */
	int seconds;       /* an enrollment code's life */
};

/* Whether argv (argv[0] "token" or "box") names one of the commands. */
int credentials_is_command(const char *word);
/* Reads the command's words (before any database starts): -1 when they
 * are good, or the exit status (0 after --help, after usage(stdout)). */
int credentials_args(int argc, char **argv, struct credentials_args *a,
		     void (*usage)(FILE *));
/* Runs it on conninfo: prints the secret and what to do with it. */
int credentials_run(const char *conninfo, const struct credentials_args *a);

#endif

/*
 * problem.h: why a request to the daemon failed, as the daemon's calls
 * report it to their callers (the web layer turns it into an HTTP
 * answer, the CLI-facing JSON of DESIGN.md section 7: an error and its
 * details).  The kinds carry the HTTP status they stand for, as the
 * RBnnn SQLSTATE codes of sql/ do.
 */
#ifndef ROBOT_PROBLEM_H
#define ROBOT_PROBLEM_H

#include <jansson.h>

enum problem_kind {
	PROBLEM_INVALID = 400,     /* the request is wrong; details say how */
	PROBLEM_FORBIDDEN = 403,   /* not with this token */
	PROBLEM_NOT_FOUND = 404,   /* no such thing */
	PROBLEM_CONFLICT = 409,    /* not in this state (an expired lease) */
	PROBLEM_TOO_LARGE = 413,   /* over a size limit */
	PROBLEM_BUSY = 429,        /* too many at once: try again soon */
	PROBLEM_INTERNAL = 500,    /* a bug, logged */
	PROBLEM_UNAVAILABLE = 503, /* the database is down; robotd stops */
};

struct problem {
	enum problem_kind kind;
	char *message;   /* one line, for people */
	json_t *details; /* an array of strings, never NULL */
};

/* A problem; details (an array of strings, consumed) may be NULL. */
struct problem *problem_new(enum problem_kind kind, json_t *details,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void problem_free(struct problem *p);

#endif

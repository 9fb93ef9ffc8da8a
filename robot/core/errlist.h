/*
 * errlist.h: the problems found in user input, collected rather than
 * reported one at a time (STYLE.md rule 14).  A parser adds every problem
 * it finds as "file:line: message" and carries on; the caller prints them
 * all, or returns them as JSON from the API.  Warnings are kept beside
 * errors: they are shown but do not make the input invalid.
 */
#ifndef ROBOT_ERRLIST_H
#define ROBOT_ERRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

enum errlist_severity {
	ERRLIST_ERROR,
	ERRLIST_WARNING,
};

struct errlist_entry {
	enum errlist_severity severity;
	char *file; /* the input's name as given */
	int line;   /* 1-based, or 0 when the problem has no line */
	char *message;
};

/* The most problems kept: past it an input's problems are counted, not
 * kept (a document of 8,000 unknown keys made 8,000 errors, each
 * compared with those before: seconds of CPU), and the list ends "and N
 * more problems". */
#define ERRLIST_MAX 100

struct errlist {
	struct errlist_entry *v; /* in the order added, until sorted */
	size_t n;
	size_t cap;
	size_t nerrors;     /* all of them, those past ERRLIST_MAX too */
	size_t nwarnings;   /* likewise */
	size_t more;        /* problems past ERRLIST_MAX, not kept */
	size_t more_errors; /* of them, errors */
};

void errlist_init(struct errlist *el);
void errlist_release(struct errlist *el);
/*
 * Adds a problem.  The same severity, place and message added twice is
 * kept once, so that checks repeated over the jobs of one file do not
 * repeat their findings.  Past ERRLIST_MAX kept, a problem is only
 * counted (in more, nerrors or nwarnings).
 */
void errlist_add(struct errlist *el, enum errlist_severity sev,
		 const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define errlist_error(el, file, line, ...)                                     \
	errlist_add((el), ERRLIST_ERROR, (file), (line), __VA_ARGS__)
#define errlist_warning(el, file, line, ...)                                   \
	errlist_add((el), ERRLIST_WARNING, (file), (line), __VA_ARGS__)
/* Moves every entry of src to the end of dst. */
void errlist_append(struct errlist *dst, struct errlist *src);
/* Orders the entries by file, then line; entries on one line keep order. */
void errlist_sort(struct errlist *el);
/* Writes "file:line: message" lines ("warning: " before warnings), then
 * "and N more problems" when some were not kept. */
void errlist_print(const struct errlist *el, FILE *fp);
/* Formats one entry the way errlist_print() does; the caller frees it. */
char *errlist_format(const struct errlist_entry *e);
/* Returns a new JSON array of the formatted entries (errors only, or
 * all), then "and N more problems" (errors, or all) when some were not
 * kept. */
json_t *errlist_to_json(const struct errlist *el, bool with_warnings);

#endif

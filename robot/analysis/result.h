/*
 * result.h: the result document of one run (DESIGN.md section 5), what
 * robot-box prints and uploads and what robot compare reads: its one
 * writer (result_doc_new()) and its one set of checks (result_check()),
 * reached from a jansson tree (result_parse(), for uploads) or straight
 * from a file's bytes (result_read(), resultread.c, for robot compare).
 *
 * The checks are complete and collect every problem in an errlist; a
 * document that passes has finite numbers only, a known status, the
 * strings the series identity needs, names that pass robot/core/name.h
 * (key, group, box, tree, commit, every metric), at most
 * RESULT_MAX_METRICS metrics, and no value beyond +-RESULT_MAX_VALUE.
 */
#ifndef ROBOT_RESULT_H
#define ROBOT_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/core/errlist.h"

#define RESULT_VERSION 1
/* The largest result document, in a file or an upload. */
#define RESULT_MAX_BYTES (16 * 1024 * 1024)
/* The most metrics (stats and series together) a document may hold. */
#define RESULT_MAX_METRICS 100000
/* The largest magnitude of a value: the squares of a million of them
 * still sum within a double, so every summary of a metric (its mean, the
 * store's stddev_pop) can be made.  A finite value beyond it is refused:
 * one 1e200 once overflowed a commit's stddev and made every later run
 * there unstorable. */
#define RESULT_MAX_VALUE 1e100

enum result_status {
	RESULT_OK,         /* the workload ran; stats hold its numbers */
	RESULT_FAILED,     /* the workload failed; error says why */
	RESULT_INCOMPLETE, /* no numbers */
};

struct result_stat {
	const char *name; /* borrowed from json, or from result_names */
	double value;
};

struct result {
	json_t *json;    /* the document (a reference is held); without
			  * "stats" when result_read() read them */
	const char *key; /* testcase/path_params */
	const char *tbox_group;
	const char *box;    /* may be NULL */
	const char *tree;   /* may be NULL */
	const char *commit; /* may be NULL for a run of no commit */
	const char *error;  /* NULL unless failed */
	enum result_status status;
	bool job_fault;     /* failed, and "fault" says the job's */
	bool unprovisioned; /* of a commit the box did not provision */
	bool profiled; /* its job ran perf beside the workload (perf-profile,
			* perf-stat), which can move the workload's figures */
	const char *warning;       /* the box's first warning, or NULL */
	const char *subject;       /* the commit's, from "provision", or NULL */
	struct result_stat *stats; /* in document order */
	size_t nstats;
	char *series; /* <key>/<tbox_group> */
};

/* What every document says of its run, for the writer. */
struct result_head {
	json_t *job;     /* the atomic job (consumed), or NULL */
	const char *key; /* testcase/path_params */
	const char *tbox_group;
	const char *box;
	const char *tree;     /* NULL: none */
	const char *commit;   /* NULL: none */
	const char *started;  /* ISO 8601 UTC; NULL when it never began */
	const char *finished; /* likewise */
	enum result_status status;
	const char *error; /* why, unless ok */
	bool job_fault;    /* a failure of the job, not of the box */
};

/*
 * A new document of version RESULT_VERSION with head's members in
 * DESIGN.md's order; the writer adds "stats", "series", "outputs" and
 * its own members after them.
 */
json_t *result_doc_new(const struct result_head *head);

/*
 * Checks doc and fills r.  where names the document in messages ("a.json"
 * or "a.json: document 2").  Returns false with the problems in el.
 */
bool result_parse(const char *where, json_t *doc, struct result *r,
		  struct errlist *el) __attribute__((warn_unused_result));
/*
 * The checks of result_parse() on doc, whose "stats" were already read
 * into r->stats and r->nstats when stats_read (then doc has none).  On
 * success r holds a reference to doc; on failure r->stats is freed and r
 * cleared.
 */
bool result_check(const char *where, json_t *doc, bool stats_read,
		  struct result *r, struct errlist *el)
	__attribute__((warn_unused_result));
void result_release(struct result *r);

/*
 * Metric names interned for the runs of one load: each name once, the
 * runs' stats pointing at it, so that a million stats cost a copy of each
 * of their ten thousand names.  Outlives the runs read with it.
 */
struct result_names;

struct result_names *result_names_new(void);
void result_names_free(struct result_names *t);
/* How many names it holds. */
size_t result_names_count(const struct result_names *t);
/* A buffer of len + 1 bytes that the files of the load are read into,
 * one after another: the same memory each time, touched once. */
char *result_names_file_buffer(struct result_names *t, size_t len);

/*
 * Reads the result documents in buf (len bytes; buf[len] must be '\0'),
 * one document or a JSON array of them, as result_parse() would read
 * what jansson made of them, but without a jansson value per stat: the
 * stats go straight into each run's array, their names into names.
 * Appends the good documents to *v.  Returns false with the problems in
 * el (a bad document is not appended; when the bytes are not JSON, none
 * is).  where names the file in messages.
 */
bool result_read(const char *where, const char *buf, size_t len,
		 struct result_names *names, struct result **v, size_t *n,
		 struct errlist *el);
const char *result_status_name(enum result_status s);

/*
 * Loads the result documents of a file (one document, or a JSON array of
 * them) with result_read() and appends them to *v.  Returns false with
 * the problems in el; a bad document is not appended but the others are.
 */
bool result_load_file(const char *path, struct result_names *names,
		      struct result **v, size_t *n, struct errlist *el);
/*
 * Loads every *.json file under a directory (recursively, in name
 * order), or the file itself if path is a file.
 */
bool result_load_path(const char *path, struct result_names *names,
		      struct result **v, size_t *n, struct errlist *el);

#endif

/*
 * jobfile.h: a job file split into atomic jobs, as LKP's split-job does.
 *
 * jobfile_split() runs the whole pipeline on a file's bytes: size checks,
 * YAML or JSON loading, merging each later document into the first
 * (dotted keys revise nested values, mail_to and mail_cc accumulate),
 * validation of every key and value against the catalogue, expansion of
 * sequences into the cross product of atomic jobs, and their identity
 * (path_params and key).  All problems are collected in one errlist; on
 * any error nothing is returned.
 */
#ifndef ROBOT_JOBFILE_H
#define ROBOT_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "robot/core/node.h"

#define JOBFILE_MAX_BYTES        DOCLOAD_MAX_BYTES
#define JOBFILE_DEFAULT_MAX_JOBS 1000
/* Runs per commit of a job whose file says no "repeat" (DESIGN.md
 * section 4), wherever jobs are run: robotd and robot-box run. */
#define JOBFILE_DEFAULT_REPEAT 3

enum jobfile_format {
	JOBFILE_AUTO, /* by the name's extension, else by the first byte */
	JOBFILE_YAML,
	JOBFILE_JSON,
};

struct jobfile_options {
	enum jobfile_format format;
	size_t max_jobs; /* 0 means JOBFILE_DEFAULT_MAX_JOBS */
	/* LKP's includes ("<<: file.yaml") are read, relative to the file's
	 * name: only for a file read from its path (jobs/include.h). */
	bool includes;
	/* Each atomic job must be one robot can run: what it cannot run is
	 * an error (submit, robot-box run), not a warning (split). */
	bool runnable;
};

struct atomic_job {
	struct node
		*job; /* the atomic job: a mapping without lists to expand */
	char *path_params; /* LKP's path_params, "defaults" when empty */
	char *testcase;    /* the testcase, or the workload when none is set */
	char *key;         /* <testcase>/<path_params> */
	char *commit;      /* the job's commit, or NULL */
	int document;      /* 0-based index of the document that gave it */
};

struct jobfile {
	char *name;              /* as given to jobfile_split() */
	struct atomic_job *jobs; /* in LKP's order */
	size_t njobs;
};

/*
 * Splits len bytes of data, read from a file called name (used in
 * messages and to guess the format).  Returns NULL if el gained errors;
 * warnings alone do not stop it.  The caller frees the result with
 * jobfile_free().
 */
struct jobfile *jobfile_split(const char *name, const char *data, size_t len,
			      const struct jobfile_options *opt,
			      struct errlist *el);
/* Reads path (at most JOBFILE_MAX_BYTES) and splits it; includes are read
 * (opt NULL: the options of robot split). */
struct jobfile *jobfile_split_path(const char *path,
				   const struct jobfile_options *opt,
				   struct errlist *el);
void jobfile_free(struct jobfile *jf);
/*
 * The job file at path with its includes resolved, as YAML documents to
 * send to robotd (which reads no files): NULL and *changed false when
 * the file includes nothing (send it as it is), NULL after errors in el.
 */
char *jobfile_inline(const char *path, const char *data, size_t len,
		     bool *changed, struct errlist *el);

/* LKP's path_params of one atomic job; the caller frees it. */
char *jobfile_path_params(const struct node *job);
/* The runs per commit an atomic job asks for ("repeat"), else
 * JOBFILE_DEFAULT_REPEAT. */
int jobfile_repeat(const struct atomic_job *aj);
/* The atomic job as JSON: {"path_params", "key", "testcase", "commit", "job"}. */
json_t *jobfile_job_json(const struct atomic_job *aj);

#endif

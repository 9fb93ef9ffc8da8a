/*
 * validate.h: checks a merged job (one document merged into the first)
 * against the catalogue: every key known or close to nothing known, every
 * value of the right kind and unit, exactly one workload, and the
 * testcase naming it.  Problems go to el as "file:line: message".
 */
#ifndef ROBOT_VALIDATE_H
#define ROBOT_VALIDATE_H

#include <stdbool.h>

#include "robot/core/errlist.h"
#include "robot/core/node.h"

/*
 * Validates job.  Returns the workload program the job runs (a catalogue
 * name), or NULL when it runs none or several (an error was added then).
 */
const char *validate_job(const char *file, const struct node *job,
			 struct errlist *el);
/*
 * Checks the value a template gave key (under the mapping parent, NULL
 * at the top) of job; returns why it is not valid (the caller frees it),
 * or NULL.  The check of struct expand_env.
 */
char *validate_value(const char *parent, const char *key,
		     const struct node *value, void *job);
/* The workload programs among job's top-level keys. */
size_t validate_workloads(const struct node *job, const char **first);

#endif

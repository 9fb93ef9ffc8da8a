/*
 * expand.h: LKP's matrix expansion and path_params over a merged job.
 *
 * The keys that expand (LKP's "dims") are: the programs the job runs, the
 * options of those programs and of LKP's wrappers, a sysctl's settings,
 * and commit, kconfig and rootfs.  The first such key holding a list, in
 * document order and depth first, is expanded: one job per element, each
 * expanded further.  So the atomic jobs are the cross product with the
 * first list varying slowest, as in LKP.  A value holding a "{{ }}"
 * template (jobs/template.h), under any key, is an expansion point too:
 * met in the same order, it is evaluated against the job expanded so
 * far, and a nil value gives no job, as LKP's each_job does.
 */
#ifndef ROBOT_EXPAND_H
#define ROBOT_EXPAND_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/core/errlist.h"
#include "robot/core/node.h"

struct expand_dims;

/*
 * Where templates are evaluated: problems go to el as file:line; check,
 * when not NULL, checks a template's value for key (under the mapping
 * named parent, NULL at the top) and returns why it is not valid (the
 * caller frees it), or NULL.  The first problem stops the expansion.
 */
struct expand_env {
	const char *file;
	struct errlist *el;
	char *(*check)(const char *parent, const char *key,
		       const struct node *value, void *arg);
	void *check_arg;
};

/* The keys that expand in job (a mapping).  Free with expand_dims_free(). */
struct expand_dims *expand_dims_new(const struct node *job);
void expand_dims_free(struct expand_dims *d);
bool expand_dims_has(const struct expand_dims *d, const char *key);
/* Whether key is a program option or a program (shown in path_params). */
bool expand_dims_is_param(const struct expand_dims *d, const char *key);

/*
 * Counts the atomic jobs of job, stopping once the count passes limit
 * (the return value is then limit + 1).  job is changed while counting and
 * restored before returning.  env may be NULL (a template's problem is
 * then not reported, and it gives no job).
 */
size_t expand_count(struct node *job, const struct expand_dims *d,
		    const struct expand_env *env, size_t limit);
/*
 * The product of the lengths of every list that expands: the size of the
 * matrix for messages (saturates at SIZE_MAX).
 */
size_t expand_estimate(const struct node *job, const struct expand_dims *d);
/*
 * Calls fn with each atomic job (a temporary view: copy what you keep)
 * in LKP's order.  job is restored before returning.
 */
void expand_each(struct node *job, const struct expand_dims *d,
		 const struct expand_env *env,
		 void (*fn)(const struct node *atomic, void *arg), void *arg);

/* path_params of an atomic job, as LKP builds them; the caller frees it. */
char *expand_path_params(const struct node *atomic);

#endif

/*
 * validate.c: the checks of a merged job.
 *
 * Every problem is reported, not just the first: a maintainer fixing a
 * job file wants the whole list at once.  Lists are checked element by
 * element wherever they would expand.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "jobs/sysctl.h"
#include "jobs/template.h"
#include "jobs/validate.h"
#include "robot/analysis/workloads.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct vctx {
	const char *file;
	const struct node *job;
	struct errlist *el;
};

/* Reports a catalog_check() failure for key (owning msg). */
static void
bad_value(struct vctx *v, const char *key, const struct node *n, char *msg)
{
	char *q = str_quote(key);

	errlist_error(v->el, v->file, n->line, "%s: %s", q, msg);
	free(q);
	free(msg);
}

/*
 * Checks a value that may be a list of values (each one checked), as for
 * every key that expands or accumulates.
 */
static void
check_values(struct vctx *v, const char *key, const struct node *n,
	     enum catalog_value kind, const char *const *choices, bool list_ok)
{
	char *msg;

	if (n->kind == NODE_SEQ) {
		if (!list_ok) {
			char *q = str_quote(key);

			errlist_error(v->el, v->file, n->line,
				      "%s takes one value, not a list", q);
			free(q);
			return;
		}
		if (n->nitems == 0) {
			char *q = str_quote(key);

			errlist_error(v->el, v->file, n->line,
				      "%s is an empty list: the matrix has "
				      "nothing to run (leave the key out, or "
				      "write '~' for \"without it\")",
				      q);
			free(q);
			return;
		}
		for (size_t i = 0; i < n->nitems; i++) {
			const struct node *item = n->items[i];

			if (item->kind == NODE_SEQ || item->kind == NODE_MAP) {
				char *q = str_quote(key);

				errlist_error(v->el, v->file, item->line,
					      "%s: a list element is %s; "
					      "elements are single values",
					      q, node_type_name(item));
				free(q);
			} else if ((msg = catalog_check(kind, choices, item)) !=
				   NULL) {
				bad_value(v, key, item, msg);
			}
		}
		return;
	}
	if ((msg = catalog_check(kind, choices, n)) != NULL)
		bad_value(v, key, n, msg);
}

/* A setting under sysctl: LKP's sc_* names. */
static void
check_sysctl(struct vctx *v, const char *key, int line, const struct node *n)
{
	const char *lkp, *near;
	char *q;

	if (sysctl_path(key) != NULL) {
		check_values(v, key, n, CV_ANY, NULL, true);
		return;
	}
	q = str_quote(key);
	if ((lkp = sysctl_of_dotted(key)) != NULL)
		errlist_error(v->el, v->file, line,
			      "sysctl setting '%s' is written '%s' in LKP's "
			      "job files (programs/sysctl/setup)",
			      q, lkp);
	else if ((near = sysctl_suggest(key)) != NULL)
		errlist_error(v->el, v->file, line,
			      "unknown sysctl setting '%s' (did you mean "
			      "'%s'?)",
			      q, near);
	else
		errlist_error(v->el, v->file, line,
			      "unknown sysctl setting '%s' (LKP's are sc_*, "
			      "e.g. sc_dirty_ratio)",
			      q);
	free(q);
}

static void
check_option(struct vctx *v, const struct catalog_program *p, const char *key,
	     int line, const struct node *n)
{
	const struct catalog_option *o;
	const char *near;

	if (p->named_options) {
		check_sysctl(v, key, line, n);
		return;
	}
	if ((o = catalog_option(p, key)) == NULL) {
		char *q = str_quote(key);

		near = catalog_suggest_option(p, key);
		if (near != NULL)
			errlist_error(v->el, v->file, line,
				      "unknown option '%s' of %s (did you mean "
				      "'%s'?)",
				      q, p->name, near);
		else
			errlist_error(v->el, v->file, line,
				      "unknown option '%s' of %s", q, p->name);
		free(q);
		return;
	}
	check_values(v, key, n, o->value, o->choices, true);
}

/* One value of a program key: null, a scalar, or a mapping of options. */
static void
check_program_value(struct vctx *v, const struct catalog_program *p,
		    const struct node *n)
{
	char *msg;

	switch (n->kind) {
	case NODE_NULL:
		return;
	case NODE_SEQ:
		errlist_error(v->el, v->file, n->line,
			      "%s: a list element is a list; elements are "
			      "single values or mappings",
			      p->name);
		return;
	case NODE_MAP:
		for (size_t i = 0; i < n->npairs; i++)
			check_option(v, p, n->pairs[i].key, n->pairs[i].line,
				     n->pairs[i].value);
		return;
	case NODE_SCALAR:
		break;
	}
	if (p->named_options) {
		errlist_error(v->el, v->file, n->line,
			      "%s takes a mapping of settings, like "
			      "'sc_dirty_ratio: 10'",
			      p->name);
	} else if (p->kind == CATALOG_WORKLOAD) {
		errlist_error(v->el, v->file, n->line,
			      "%s takes a mapping of options, not a single "
			      "value",
			      p->name);
	} else if ((msg = catalog_check(p->value, p->choices, n)) != NULL) {
		bad_value(v, p->name, n, msg);
	}
}

static void
check_program(struct vctx *v, const struct catalog_program *p,
	      const struct node_pair *pair)
{
	const struct node *n = pair->value;

	if (p->kind == CATALOG_MONITOR) {
		if (!p->runs)
			errlist_warning(v->el, v->file, pair->line,
					"monitor '%s' is not run by the robot "
					"(kept for LKP compatibility)",
					p->name);
		else if (p->options[0].name != NULL && n->kind == NODE_MAP)
			check_program_value(v, p, n);
		return;
	}
	if (n->kind == NODE_SEQ) {
		if (n->nitems == 0) {
			errlist_error(v->el, v->file, n->line,
				      "%s is an empty list: the matrix has "
				      "nothing to run",
				      p->name);
			return;
		}
		for (size_t i = 0; i < n->nitems; i++)
			check_program_value(v, p, n->items[i]);
		return;
	}
	check_program_value(v, p, n);
}

size_t
validate_workloads(const struct node *job, const char **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < job->npairs; i++) {
		const struct node_pair *pr = &job->pairs[i];
		const struct catalog_program *p = catalog_program(pr->key);

		if (p != NULL && p->kind == CATALOG_WORKLOAD) {
			if (n++ == 0)
				*first = p->name;
		} else if (catalog_role_section(pr->key) &&
			   pr->value->kind == NODE_MAP) {
			const char *w;
			size_t k = validate_workloads(pr->value, &w);

			if (k > 0 && n == 0)
				*first = w;
			n += k;
		}
	}
	return n;
}

/* Whether the job runs a program that has option key; which one.  The
 * programs of role sections count, as LKP finds programs at any depth. */
static const struct catalog_program *
option_in_job(const struct node *job, const char *key)
{
	for (size_t i = 0; i < job->npairs; i++) {
		const struct node_pair *pr = &job->pairs[i];
		const struct catalog_program *p = catalog_program(pr->key);

		if (p != NULL && p->kind != CATALOG_MONITOR &&
		    catalog_option(p, key) != NULL)
			return p;
		if (catalog_role_section(pr->key) &&
		    pr->value->kind == NODE_MAP &&
		    (p = option_in_job(pr->value, key)) != NULL)
			return p;
	}
	return NULL;
}

/* "unknown WHAT 'q'", with the closest known name when there is one. */
static void
unknown_name(struct vctx *v, int line, const char *what, const char *q,
	     const char *near)
{
	if (near != NULL)
		errlist_error(v->el, v->file, line,
			      "unknown %s '%s' (did you mean '%s'?)", what, q,
			      near);
	else
		errlist_error(v->el, v->file, line, "unknown %s '%s'", what, q);
}

static void check_top_key(struct vctx *v, const struct node_pair *pair);

/* "if role server:" holds the keys of one role, checked as the job's. */
static void
check_role_section(struct vctx *v, const struct node_pair *pair)
{
	const struct node *n = pair->value;

	if (n->kind == NODE_NULL)
		return;
	if (n->kind != NODE_MAP) {
		errlist_error(v->el, v->file, pair->line,
			      "'%s' holds the keys of that role: a mapping",
			      pair->key);
		return;
	}
	for (size_t i = 0; i < n->npairs; i++)
		check_top_key(v, &n->pairs[i]);
}

static void
check_top_key(struct vctx *v, const struct node_pair *pair)
{
	const char *key = pair->key;
	const struct node *n = pair->value;
	const struct catalog_program *p;
	const struct catalog_param *param;
	const struct catalog_option *o;
	const char *near;
	char *q;

	if ((p = catalog_program(key)) != NULL) {
		check_program(v, p, pair);
		return;
	}
	if (catalog_role_section(key)) {
		check_role_section(v, pair);
		return;
	}
	if (sysctl_path(key) != NULL) {
		/* LKP takes a program's options outside it too. */
		if (node_get(v->job, "sysctl") == NULL)
			errlist_warning(v->el, v->file, pair->line,
					"'%s' is a setting of sysctl, which "
					"this job does not run; it is ignored",
					key);
		check_values(v, key, n, CV_ANY, NULL, true);
		return;
	}
	if ((param = catalog_param(key)) != NULL) {
		if (n->kind == NODE_MAP && param->value != CV_ANY) {
			q = str_quote(key);
			errlist_error(v->el, v->file, n->line,
				      "%s is a mapping; a single value is "
				      "expected here",
				      q);
			free(q);
			return;
		}
		if (param->value == CV_ANY)
			return;
		check_values(v, key, n, param->value, param->choices,
			     param->expands || param->accumulate);
		if (strcmp(key, "repeat") == 0 && n->kind == NODE_SCALAR &&
		    n->stype == NODE_INT && n->ival > 100)
			errlist_error(v->el, v->file, n->line,
				      "repeat: %lld runs per commit is more "
				      "than the limit of 100",
				      n->ival);
		if (strcmp(key, "priority") == 0 && n->kind == NODE_SCALAR &&
		    n->stype == NODE_INT && (n->ival > 1000 || n->ival < -1000))
			errlist_error(v->el, v->file, n->line,
				      "priority: %lld is outside -1000 to 1000",
				      n->ival);
		return;
	}
	if ((o = catalog_global_option(key)) != NULL) {
		check_values(v, key, n, o->value, o->choices, true);
		return;
	}
	if ((p = option_in_job(v->job, key)) != NULL) {
		check_values(v, key, n, catalog_option(p, key)->value,
			     catalog_option(p, key)->choices, true);
		return;
	}
	q = str_quote(key);
	if ((p = catalog_option_owner(key)) != NULL) {
		errlist_warning(v->el, v->file, pair->line,
				"'%s' is an option of %s, which this job does "
				"not run; it is ignored",
				q, p->name);
	} else if (strchr(key, '.') != NULL &&
		   (near = sysctl_of_dotted(key)) != NULL) {
		errlist_error(v->el, v->file, pair->line,
			      "'%s' is a sysctl setting: write it under "
			      "'sysctl:' as %s",
			      q, near);
	} else if (catalog_lkp_known(key)) {
		errlist_warning(v->el, v->file, pair->line,
				"'%s' is LKP's; the robot keeps it but does "
				"not use it",
				q);
	} else if (key[0] != '\0' && (key[strlen(key) - 1] == '+' ||
				      key[strlen(key) - 1] == '-')) {
		errlist_error(v->el, v->file, pair->line,
			      "'%s': LKP's 'key+' and 'key-' revisions are "
			      "not supported; write the value out",
			      q);
	} else if (n->kind == NODE_MAP) {
		unknown_name(v, pair->line, "program", q,
			     catalog_suggest_program(key));
	} else if ((near = catalog_suggest_key(key)) != NULL) {
		errlist_error(v->el, v->file, pair->line,
			      "unknown key '%s' (did you mean '%s'?)", q, near);
	} else {
		errlist_warning(v->el, v->file, pair->line,
				"unknown key '%s' is kept but not used", q);
	}
	free(q);
}

/* Every "{{ }}" template is checked now, evaluated later, per job. */
static void
check_templates(struct vctx *v, const struct node *n)
{
	char *err;

	if (template_has(n) && !template_check(n, &err)) {
		errlist_error(v->el, v->file, n->line, "%s", err);
		free(err);
	}
	for (size_t i = 0; i < n->nitems; i++)
		check_templates(v, n->items[i]);
	for (size_t i = 0; i < n->npairs; i++)
		check_templates(v, n->pairs[i].value);
}

static void
check_testcase(struct vctx *v, const char *workload)
{
	const struct node_pair *tp = node_get_pair(v->job, "testcase");
	const char *tw;
	char *t, *q;

	if (tp == NULL)
		tp = node_get_pair(v->job, "suite");
	if (tp == NULL || tp->value->kind != NODE_SCALAR)
		return;
	t = node_to_s(tp->value);
	tw = catalog_testcase_workload(t);
	q = str_quote(t);
	if (tw == NULL) {
		unknown_name(v, tp->line, "testcase", q,
			     catalog_suggest_program(t));
	} else if (workload != NULL && strcmp(tw, workload) != 0) {
		errlist_error(v->el, v->file, tp->line,
			      "testcase '%s' runs %s, but the job runs %s", q,
			      tw, workload);
	}
	free(q);
	free(t);
}

const char *
validate_job(const char *file, const struct node *job, struct errlist *el)
{
	struct vctx v = {file, job, el};
	const char *workload = NULL;
	size_t nw;

	for (size_t i = 0; i < job->npairs; i++)
		check_top_key(&v, &job->pairs[i]);
	check_templates(&v, job);
	nw = validate_workloads(job, &workload);
	if (nw == 0) {
		struct buf names;

		buf_init(&names);
		for (const struct workload_kind *k = workload_kinds; k->name;
		     k++)
			buf_addf(&names, "%s%s",
				 k == workload_kinds ? ""
				 : k[1].name == NULL ? " or "
						     : ", ",
				 k->name);
		errlist_error(el, file, job->line,
			      "the job runs no workload: add one of %s",
			      names.data);
		buf_release(&names);
	} else if (nw > 1) {
		errlist_error(el, file, job->line,
			      "the job runs %zu workloads; an atomic job runs "
			      "one (split them into documents)",
			      nw);
		workload = NULL;
	}
	check_testcase(&v, workload);
	return nw == 1 ? workload : NULL;
}

char *
validate_value(const char *parent, const char *key, const struct node *value,
	       void *job)
{
	const struct catalog_program *p;
	const struct catalog_option *o;
	const struct catalog_param *param;

	if (parent != NULL) {
		p = catalog_program(parent);
		if (p == NULL || p->named_options ||
		    (o = catalog_option(p, key)) == NULL)
			return NULL;
		return catalog_check(o->value, o->choices, value);
	}
	if ((p = catalog_program(key)) != NULL)
		return catalog_check(p->value, p->choices, value);
	if ((param = catalog_param(key)) != NULL)
		return catalog_check(param->value, param->choices, value);
	if ((o = catalog_global_option(key)) != NULL)
		return catalog_check(o->value, o->choices, value);
	if ((p = option_in_job(job, key)) != NULL) {
		o = catalog_option(p, key);
		return catalog_check(o->value, o->choices, value);
	}
	return NULL;
}

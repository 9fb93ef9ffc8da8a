/*
 * jobfile.c: from a job file's bytes to its atomic jobs.
 *
 * The steps follow LKP's Job#each_jobs: the first document alone gives
 * its jobs, then the first merged with each later document gives more.
 * Merging is LKP's revise_hash(): top-level keys replace, mail_to and
 * mail_cc accumulate, and dotted keys ("fsmark.test_size: 60G") revise a
 * nested value after the plain keys are in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobs/catalog.h"
#include "jobs/emit.h"
#include "jobs/expand.h"
#include "jobs/include.h"
#include "jobs/jobfile.h"
#include "jobs/needs.h"
#include "jobs/sysctl.h"
#include "jobs/validate.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* ---- merging ---------------------------------------------------------- */

static struct node *
accumulate(struct node *old, const struct node *add)
{
	struct node *list;

	if (old == NULL || old->kind == NODE_NULL)
		return node_copy(add);
	if (old->kind == NODE_SEQ)
		list = node_copy(old);
	else {
		list = node_new(NODE_SEQ, old->line, old->column);
		node_append(list, node_copy(old));
	}
	if (add->kind == NODE_SEQ) {
		for (size_t i = 0; i < add->nitems; i++)
			node_append(list, node_copy(add->items[i]));
	} else if (add->kind != NODE_NULL) {
		node_append(list, node_copy(add));
	}
	return list;
}

static void
revise_dotted(const char *file, struct node *job, const struct node_pair *pr,
	      struct errlist *el)
{
	char *path = xstrdup(pr->key), *comp[16], *q;
	size_t ncomp = 0;
	struct node *h = job;

	if (str_has_prefix(path, "sysctl.")) {
		comp[ncomp++] = path;
		path[6] = '\0';
		comp[ncomp++] = path + 7;
	} else {
		for (char *p = path; ncomp < 16;) {
			char *dot = strchr(p, '.');

			comp[ncomp++] = p;
			if (dot == NULL)
				break;
			*dot = '\0';
			p = dot + 1;
		}
	}
	q = str_quote(pr->key);
	for (size_t i = 0; i < ncomp; i++) {
		if (*comp[i] == '\0') {
			errlist_error(el, file, pr->line,
				      "'%s' is not a dotted key (an empty "
				      "part)",
				      q);
			goto out;
		}
	}
	if (node_get(job, comp[0]) == NULL &&
	    catalog_program(comp[0]) == NULL) {
		if (sysctl_of_dotted(pr->key) != NULL)
			errlist_error(el, file, pr->line,
				      "'%s' is a sysctl setting: write it "
				      "under 'sysctl:' as %s",
				      q, sysctl_of_dotted(pr->key));
		else
			errlist_error(el, file, pr->line,
				      "'%s' revises '%s', which is neither in "
				      "the job nor a known program",
				      q, comp[0]);
		goto out;
	}
	for (size_t i = 0; i + 1 < ncomp; i++) {
		struct node *v = node_get(h, comp[i]);

		if (v == NULL || v->kind == NODE_NULL) {
			v = node_new(NODE_MAP, pr->line, 1);
			node_set(h, comp[i], pr->line, v);
		} else if (v->kind != NODE_MAP) {
			errlist_error(el, file, pr->line,
				      "cannot revise '%s': '%s' is %s, not a "
				      "mapping",
				      q, comp[i], node_type_name(v));
			goto out;
		}
		h = v;
	}
	node_set(h, comp[ncomp - 1], pr->line, node_copy(pr->value));
out:
	free(q);
	free(path);
}

/* LKP's revise_hash(job, rev) with overwrite_top_keys. */
static void
revise(const char *file, struct node *job, const struct node *rev,
       struct errlist *el)
{
	for (size_t i = 0; i < rev->npairs; i++) {
		const struct node_pair *p = &rev->pairs[i];

		if (strchr(p->key, '.') != NULL &&
		    catalog_param(p->key) == NULL)
			continue;
		if (catalog_accumulates(p->key))
			node_set(job, p->key, p->line,
				 accumulate(node_get(job, p->key), p->value));
		else
			node_set(job, p->key, p->line, node_copy(p->value));
	}
	for (size_t i = 0; i < rev->npairs; i++) {
		const struct node_pair *p = &rev->pairs[i];

		if (strchr(p->key, '.') != NULL &&
		    catalog_param(p->key) == NULL)
			revise_dotted(file, job, p, el);
	}
}

/* ---- splitting -------------------------------------------------------- */

struct emit {
	struct jobfile *jf;
	int document;
	const char *workload;
	const char *file;
	struct errlist *el;
	bool runnable; /* what robot cannot run is an error */
};

static char *
commit_of(const struct node *job)
{
	const struct node *c = node_get(job, "commit");

	if (c == NULL || c->kind != NODE_SCALAR)
		return NULL;
	/* The text as written: "0123abc" must not become an octal number. */
	return xstrdup(c->text);
}

static void
on_atomic(const struct node *atomic, void *arg)
{
	struct emit *e = arg;
	struct jobfile *jf = e->jf;
	struct atomic_job aj = {0};
	const struct node *t;
	struct node *c;
	char *why;

	aj.job = node_copy(atomic);
	/* A commit is a string even when it looks like a number. */
	if ((c = node_get(aj.job, "commit")) != NULL && c->kind == NODE_SCALAR)
		c->stype = NODE_STR;
	aj.path_params = expand_path_params(aj.job);
	t = node_get(aj.job, "testcase");
	if (t == NULL || t->kind != NODE_SCALAR)
		t = node_get(aj.job, "suite");
	aj.testcase = t != NULL && t->kind == NODE_SCALAR
			      ? node_to_s(t)
			      : xstrdup(e->workload);
	aj.key = xasprintf("%s/%s", aj.testcase, aj.path_params);
	aj.commit = commit_of(aj.job);
	aj.document = e->document;
	if ((why = needs_unrunnable(aj.job)) != NULL) {
		errlist_add(e->el,
			    e->runnable ? ERRLIST_ERROR : ERRLIST_WARNING,
			    e->file, atomic->line, "%s%s", why,
			    e->runnable ? "" : " (split as in LKP)");
		free(why);
	}

	/* A later document giving the same job replaces it, as LKP's
	 * split-job overwrites the file of the same name. */
	for (size_t i = 0; i < jf->njobs; i++) {
		struct atomic_job *o = &jf->jobs[i];

		if (strcmp(o->key, aj.key) != 0 ||
		    (o->commit == NULL) != (aj.commit == NULL) ||
		    (o->commit != NULL && strcmp(o->commit, aj.commit) != 0))
			continue;
		if (!node_equal(o->job, aj.job) && o->document != aj.document)
			errlist_warning(e->el, e->file, atomic->line,
					"document %d gives the atomic job '%s' "
					"that document %d gave already; the "
					"later one is kept",
					aj.document + 1, aj.key,
					o->document + 1);
		node_free(o->job);
		free(o->path_params);
		free(o->testcase);
		free(o->key);
		free(o->commit);
		*o = aj;
		return;
	}
	jf->jobs = xreallocarray(jf->jobs, jf->njobs + 1, sizeof *jf->jobs);
	jf->jobs[jf->njobs++] = aj;
}

/* Reports ERB templates, which LKP evaluates as Ruby before parsing. */
static bool
check_erb(const char *name, const char *data, size_t len, struct errlist *el)
{
	int line = 1;
	bool found = false;

	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			line++;
		else if (data[i] == '<' && i + 1 < len && data[i + 1] == '%') {
			errlist_error(el, name, line,
				      "ERB templates ('<%% ... %%>') are not "
				      "supported; write the values out");
			found = true;
			while (i < len && data[i] != '\n')
				i++;
			i--;
		}
	}
	return found;
}

static bool
is_blank(const char *data, size_t len)
{
	bool comment = false;

	for (size_t i = 0; i < len; i++) {
		char c = data[i];

		if (c == '\n')
			comment = false;
		else if (c == '#')
			comment = true;
		else if (!comment && c != ' ' && c != '\t' && c != '\r' &&
			 !(c == '-' && i + 2 < len && data[i + 1] == '-' &&
			   data[i + 2] == '-'))
			return false;
		else if (!comment && c == '-')
			i += 2;
	}
	return true;
}

static enum jobfile_format
guess_format(const char *name, const char *data, size_t len)
{
	if (str_has_suffix(name, ".json"))
		return JOBFILE_JSON;
	if (str_has_suffix(name, ".yaml") || str_has_suffix(name, ".yml"))
		return JOBFILE_YAML;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' ||
		    data[i] == '\r')
			continue;
		return data[i] == '{' || data[i] == '[' ? JOBFILE_JSON
							: JOBFILE_YAML;
	}
	return JOBFILE_YAML;
}

void
jobfile_free(struct jobfile *jf)
{
	if (jf == NULL)
		return;
	for (size_t i = 0; i < jf->njobs; i++) {
		node_free(jf->jobs[i].job);
		free(jf->jobs[i].path_params);
		free(jf->jobs[i].testcase);
		free(jf->jobs[i].key);
		free(jf->jobs[i].commit);
	}
	free(jf->jobs);
	free(jf->name);
	free(jf);
}

/*
 * Validates and expands one merged job into jf; *budget is how many more
 * atomic jobs the file may give (max in all).
 */
static void
split_one(const char *name, struct node *job, int document, size_t *budget,
	  size_t max, bool runnable, struct jobfile *jf, struct errlist *el)
{
	size_t before = el->nerrors, n;
	struct expand_env env = {name, el, validate_value, job};
	struct expand_dims *d;
	struct emit e;
	const char *w;

	w = validate_job(name, job, el);
	if (el->nerrors > before || w == NULL)
		return;
	d = expand_dims_new(job);
	n = expand_count(job, d, &env, *budget);
	if (el->nerrors > before) {
		expand_dims_free(d);
		return;
	}
	if (n > *budget) {
		size_t est = expand_estimate(job, d);
		const char *more = *budget < max ? " more" : "";

		if (est > *budget && est != SIZE_MAX)
			errlist_error(el, name, job->line,
				      "the matrix gives %zu%s atomic jobs, "
				      "over the limit of %zu",
				      est, more, max);
		else
			errlist_error(el, name, job->line,
				      "the matrix gives more than %zu atomic "
				      "jobs",
				      max);
		expand_dims_free(d);
		return;
	}
	e = (struct emit){jf, document, w, name, el, runnable};
	expand_each(job, d, &env, on_atomic, &e);
	*budget -= n;
	expand_dims_free(d);
}

struct jobfile *
jobfile_split(const char *name, const char *data, size_t len,
	      const struct jobfile_options *opt, struct errlist *el)
{
	size_t max =
		opt && opt->max_jobs ? opt->max_jobs : JOBFILE_DEFAULT_MAX_JOBS;
	size_t budget = max;
	enum jobfile_format fmt = opt ? opt->format : JOBFILE_AUTO;
	size_t before = el->nerrors;
	bool runnable = opt != NULL && opt->runnable;
	struct include_ctx *inc = NULL;
	struct docload_options dopt = {NULL, NULL};
	struct node *docs, *first;
	struct jobfile *jf;
	const char *w;

	if (len > JOBFILE_MAX_BYTES) {
		errlist_error(el, name, 0,
			      "the file is %zu bytes; job files are limited "
			      "to 1 MiB",
			      len);
		return NULL;
	}
	if (len == 0 || is_blank(data, len)) {
		errlist_error(el, name, len == 0 ? 0 : 1,
			      "the job file is empty");
		return NULL;
	}
	if (fmt == JOBFILE_AUTO)
		fmt = guess_format(name, data, len);
	if (fmt == JOBFILE_YAML && check_erb(name, data, len, el))
		return NULL;
	if (opt != NULL && opt->includes) {
		inc = include_ctx_new(name, el);
		include_options(inc, &dopt);
	}
	docs = fmt == JOBFILE_JSON
		       ? docload_json(name, data, len, el)
		       : docload_yaml_opt(name, data, len, &dopt, el);
	include_ctx_free(inc);
	if (docs == NULL)
		return NULL;
	if (docs->nitems == 0 || docs->items[0]->kind == NODE_NULL) {
		errlist_error(el, name, 1, "the job file is empty");
		node_free(docs);
		return NULL;
	}
	for (size_t i = 0; i < docs->nitems; i++) {
		const struct node *d = docs->items[i];

		if (d->kind == NODE_MAP || (i > 0 && d->kind == NODE_NULL))
			continue;
		errlist_error(el, name, d->line,
			      "document %zu is %s; a job is a mapping of keys "
			      "to values",
			      i + 1, node_type_name(d));
	}
	if (el->nerrors > before) {
		node_free(docs);
		return NULL;
	}

	jf = xcalloc(1, sizeof *jf);
	jf->name = xstrdup(name);
	first = node_new(NODE_MAP, docs->items[0]->line, 1);
	revise(name, first, docs->items[0], el);
	/* The first document is a job of its own unless it is only the
	 * common part of the later ones (it names no workload). */
	if (docs->nitems == 1 || validate_workloads(first, &w) > 0)
		split_one(name, first, 0, &budget, max, runnable, jf, el);
	for (size_t i = 1; i < docs->nitems; i++) {
		struct node *job;

		if (docs->items[i]->kind == NODE_NULL) {
			errlist_warning(el, name, docs->items[i]->line,
					"document %zu is empty and gives no "
					"jobs",
					i + 1);
			continue;
		}
		job = node_copy(first);
		revise(name, job, docs->items[i], el);
		split_one(name, job, (int)i, &budget, max, runnable, jf, el);
		node_free(job);
	}
	node_free(first);
	node_free(docs);
	if (el->nerrors > before) {
		jobfile_free(jf);
		return NULL;
	}
	return jf;
}

struct jobfile *
jobfile_split_path(const char *path, const struct jobfile_options *opt,
		   struct errlist *el)
{
	struct jobfile *jf = NULL;
	struct stat st;
	struct buf b;

	if (stat(path, &st) == -1) {
		errlist_error(el, path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		errlist_error(el, path, 0, "not a regular file");
		return NULL;
	}
	buf_init(&b);
	if (!buf_add_file(&b, path, JOBFILE_MAX_BYTES))
		errlist_error(el, path, 0, "cannot read: %s", strerror(errno));
	else if (b.len > JOBFILE_MAX_BYTES)
		errlist_error(el, path, 0,
			      "the file is %lld bytes; job files are limited "
			      "to 1 MiB",
			      (long long)st.st_size);
	else {
		struct jobfile_options o = {JOBFILE_AUTO, 0, true, false};

		if (opt != NULL)
			o = *opt;
		o.includes = true;
		jf = jobfile_split(path, b.data, b.len, &o, el);
	}
	buf_release(&b);
	return jf;
}

char *
jobfile_path_params(const struct node *job)
{
	return expand_path_params(job);
}

int
jobfile_repeat(const struct atomic_job *aj)
{
	const struct node *r = node_get(aj->job, "repeat");

	if (r != NULL && r->kind == NODE_SCALAR && r->stype == NODE_INT)
		return (int)r->ival;
	return JOBFILE_DEFAULT_REPEAT;
}

json_t *
jobfile_job_json(const struct atomic_job *aj)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o}", "path_params",
			 aj->path_params, "key", aj->key, "testcase",
			 aj->testcase, "commit",
			 aj->commit ? json_string(aj->commit) : json_null(),
			 "job", node_to_json(aj->job));
}

char *
jobfile_inline(const char *path, const char *data, size_t len, bool *changed,
	       struct errlist *el)
{
	struct include_ctx *inc = include_ctx_new(path, el);
	struct docload_options dopt;
	struct node *docs;
	struct buf b;
	bool ok = true;

	*changed = false;
	if (guess_format(path, data, len) != JOBFILE_YAML) {
		include_ctx_free(inc);
		return NULL;
	}
	include_options(inc, &dopt);
	docs = docload_yaml_opt(path, data, len, &dopt, el);
	*changed = docs != NULL && include_count(inc) > 0;
	include_ctx_free(inc);
	if (!*changed) {
		node_free(docs);
		return NULL;
	}
	buf_init(&b);
	for (size_t i = 0; i < docs->nitems && ok; i++) {
		char *y = emit_yaml(docs->items[i], NULL);

		if (y == NULL) {
			errlist_error(el, path, docs->items[i]->line,
				      "cannot write the document with its "
				      "includes as YAML");
			ok = false;
		} else {
			buf_adds(&b, y);
		}
		free(y);
	}
	node_free(docs);
	if (!ok) {
		buf_release(&b);
		*changed = false;
		return NULL;
	}
	return buf_detach(&b);
}

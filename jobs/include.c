/*
 * include.c: resolving LKP's includes while a job file is loaded.
 *
 * docload calls include_resolve() for each "<<: FILE" it meets; this
 * loads FILE with the same options (so that its own includes resolve
 * relative to it), with a stack of the files being loaded to catch a
 * cycle.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/include.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* Includes nested deeper than this are refused. */
#define INCLUDE_MAX_DEPTH 16

struct include_ctx {
	struct errlist *el;
	char *stack[INCLUDE_MAX_DEPTH + 1]; /* files being loaded */
	size_t depth;
	size_t resolved; /* includes resolved */
};

struct include_ctx *
include_ctx_new(const char *path, struct errlist *el)
{
	struct include_ctx *c = xcalloc(1, sizeof *c);

	c->el = el;
	c->stack[c->depth++] = xstrdup(path);
	return c;
}

void
include_ctx_free(struct include_ctx *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->depth; i++)
		free(c->stack[i]);
	free(c);
}

/* The file an include names, relative to the including file. */
static char *
include_path(const char *including, const char *file)
{
	char *copy, *dir, *path;

	if (file[0] == '/')
		return xstrdup(file);
	copy = xstrdup(including);
	dir = dirname(copy);
	path = xasprintf("%s/%s", dir, file);
	free(copy);
	return path;
}

/* Whether two paths name the same file. */
static bool
same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (realpath(a, ra) == NULL || realpath(b, rb) == NULL)
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0;
}

/* Loads the one document of path (a mapping); NULL after errors. */
static struct node *
include_load(struct include_ctx *c, const char *path, const char *at, int line)
{
	struct docload_options opt;
	struct node *docs, *m = NULL;
	struct buf b;

	buf_init(&b);
	if (!buf_add_file(&b, path, DOCLOAD_MAX_BYTES)) {
		errlist_error(c->el, at, line,
			      "cannot read included file "
			      "'%s': %s",
			      path, strerror(errno));
		buf_release(&b);
		return NULL;
	}
	if (b.len > DOCLOAD_MAX_BYTES) {
		errlist_error(c->el, at, line,
			      "included file '%s' is larger than 1 MiB", path);
		buf_release(&b);
		return NULL;
	}
	c->stack[c->depth++] = xstrdup(path);
	include_options(c, &opt);
	docs = docload_yaml_opt(path, b.data, b.len, &opt, c->el);
	free(c->stack[--c->depth]);
	buf_release(&b);
	if (docs == NULL)
		return NULL;
	if (docs->nitems != 1 || docs->items[0]->kind != NODE_MAP) {
		errlist_error(c->el, at, line,
			      "included file '%s' holds %zu documents; an "
			      "include takes one mapping",
			      path, docs->nitems);
	} else {
		m = docs->items[0];
		docs->items[0] = node_new(NODE_NULL, 1, 1);
	}
	node_free(docs);
	return m;
}

/* The overrides of "<<: {file: F, key: value, ignore: [keys]}". */
static bool
include_apply(struct include_ctx *c, const struct node *spec, struct node *m,
	      const char *at)
{
	const struct node *ign = node_get(spec, "ignore");

	if (ign != NULL) {
		const struct node *const *keys =
			ign->kind == NODE_SEQ
				? (const struct node *const *)ign->items
				: &ign;
		size_t n = ign->kind == NODE_SEQ ? ign->nitems : 1;

		for (size_t i = 0; i < n; i++) {
			if (keys[i]->kind != NODE_SCALAR) {
				errlist_error(c->el, at, spec->line,
					      "ignore: names keys to leave "
					      "out");
				return false;
			}
			node_del(m, keys[i]->text);
		}
	}
	for (size_t i = 0; i < spec->npairs; i++) {
		const struct node_pair *p = &spec->pairs[i];

		if (strcmp(p->key, "file") != 0 &&
		    strcmp(p->key, "ignore") != 0)
			node_set(m, p->key, p->line, node_copy(p->value));
	}
	return true;
}

static struct node *
include_resolve(const struct node *spec, int line, void *arg)
{
	struct include_ctx *c = arg;
	const char *at = c->stack[c->depth - 1];
	const struct node *f =
		spec->kind == NODE_MAP ? node_get(spec, "file") : spec;
	struct node *m;
	char *path;

	if (f == NULL || f->kind != NODE_SCALAR || f->len == 0 ||
	    f->len != strlen(f->text)) {
		errlist_error(c->el, at, line,
			      "'<<' includes a file: '<<: FILE' or "
			      "'<<: {file: FILE, key: value}'");
		return NULL;
	}
	path = include_path(at, f->text);
	for (size_t i = 0; i < c->depth; i++) {
		if (same_file(c->stack[i], path)) {
			errlist_error(c->el, at, line,
				      "'%s' includes itself (through %s)",
				      f->text, c->stack[i]);
			free(path);
			return NULL;
		}
	}
	if (c->depth >= INCLUDE_MAX_DEPTH) {
		errlist_error(c->el, at, line,
			      "includes are nested deeper than %d files",
			      INCLUDE_MAX_DEPTH);
		free(path);
		return NULL;
	}
	if (access(path, F_OK) != 0) {
		char *q = str_quote(f->text);

		errlist_error(c->el, at, line,
			      "included file '%s' not found (looked for "
			      "'%s')",
			      q, path);
		free(q);
		free(path);
		return NULL;
	}
	m = include_load(c, path, at, line);
	free(path);
	c->resolved += m != NULL;
	if (m != NULL && spec->kind == NODE_MAP &&
	    !include_apply(c, spec, m, at)) {
		node_free(m);
		return NULL;
	}
	return m;
}

void
include_options(struct include_ctx *c, struct docload_options *opt)
{
	opt->include = include_resolve;
	opt->include_arg = c;
}

size_t
include_count(const struct include_ctx *c)
{
	return c->resolved;
}

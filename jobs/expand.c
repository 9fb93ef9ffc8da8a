/*
 * expand.c: LKP's split-job expansion and path_params.
 *
 * Lists are expanded by temporarily pointing a mapping's value at each
 * element in turn (no copies until an atomic job is complete), exactly as
 * LKP's Job#each_job assigns h[k] = vv and recurses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "jobs/expand.h"
#include "jobs/template.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct dim {
	const char *key; /* borrowed from the job or the catalogue */
	char type;       /* '-' or '=' for options; 0 for other dims */
	bool param;      /* shown in path_params */
};

struct expand_dims {
	struct dim *v;
	size_t n;
};

static void
dims_add(struct expand_dims *d, const char *key, char type, bool param)
{
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->v[i].key, key) == 0) {
			if (type == '=')
				d->v[i].type = '=';
			d->v[i].param = d->v[i].param || param;
			return;
		}
	}
	d->v = xreallocarray(d->v, d->n + 1, sizeof *d->v);
	d->v[d->n++] = (struct dim){key, type, param};
}

static const struct dim *
dims_find(const struct expand_dims *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].key, key) == 0)
			return &d->v[i];
	return NULL;
}

static void
dims_add_program(struct expand_dims *d, const struct catalog_program *p,
		 const struct node *value)
{
	dims_add(d, p->name, '-', true);
	for (size_t i = 0; p->options[i].name != NULL; i++)
		dims_add(d, p->options[i].name, p->options[i].type, true);
	if (!p->named_options)
		return;
	/* sysctl: the settings named in the job are its options ('-' in
	 * LKP's programs/sysctl/setup). */
	if (value->kind == NODE_MAP) {
		for (size_t i = 0; i < value->npairs; i++)
			dims_add(d, value->pairs[i].key, '-', true);
	} else if (value->kind == NODE_SEQ) {
		for (size_t i = 0; i < value->nitems; i++)
			dims_add_program(d, p, value->items[i]);
	}
}

/* LKP's referenced programs: program keys at any depth (role sections
 * included), as its for_each_in() finds them. */
static void
dims_add_programs(struct expand_dims *d, const struct node *map)
{
	for (size_t i = 0; i < map->npairs; i++) {
		const struct catalog_program *p =
			catalog_program(map->pairs[i].key);

		if (p != NULL && p->kind != CATALOG_MONITOR)
			dims_add_program(d, p, map->pairs[i].value);
		if (map->pairs[i].value->kind == NODE_MAP &&
		    (p == NULL || p->kind != CATALOG_MONITOR))
			dims_add_programs(d, map->pairs[i].value);
	}
}

struct expand_dims *
expand_dims_new(const struct node *job)
{
	static const char *const fixed[] = {"commit", "kconfig", "rootfs",
					    NULL};
	static const char *const wrapper[] = {"nr_instances", "cpu_node_bind",
					      "mem_node_bind", "cluster", NULL};
	struct expand_dims *d = xcalloc(1, sizeof *d);

	for (size_t i = 0; fixed[i] != NULL; i++)
		dims_add(d, fixed[i], 0, false);
	for (size_t i = 0; wrapper[i] != NULL; i++)
		dims_add(d, wrapper[i], '-', true);
	dims_add_programs(d, job);
	return d;
}

void
expand_dims_free(struct expand_dims *d)
{
	if (d == NULL)
		return;
	free(d->v);
	free(d);
}

bool
expand_dims_has(const struct expand_dims *d, const char *key)
{
	return dims_find(d, key) != NULL;
}

bool
expand_dims_is_param(const struct expand_dims *d, const char *key)
{
	const struct dim *x = dims_find(d, key);

	if (x != NULL && x->param)
		return true;
	/* LKP shows every setup and test program, referenced or not. */
	const struct catalog_program *p = catalog_program(key);

	return p != NULL && p->kind != CATALOG_MONITOR;
}

/*
 * The first expansion point, depth first in document order: a list under
 * a key that expands, or a template under any key; NULL when none is
 * left.  *parent gets the key of the mapping holding it (NULL at the top).
 */
static struct node_pair *
find_point(struct node *map, const char *key, const struct expand_dims *d,
	   const char **parent)
{
	for (size_t i = 0; i < map->npairs; i++) {
		struct node_pair *p = &map->pairs[i];

		if ((p->value->kind == NODE_SEQ &&
		     expand_dims_has(d, p->key)) ||
		    template_has(p->value)) {
			*parent = key;
			return p;
		}
		if (p->value->kind == NODE_MAP) {
			struct node_pair *q =
				find_point(p->value, p->key, d, parent);

			if (q != NULL)
				return q;
		}
	}
	return NULL;
}

struct walk {
	struct node *root;
	const struct expand_dims *d;
	const struct expand_env *env;
	size_t count;
	size_t limit; /* stop counting past this; 0 when emitting */
	bool failed;  /* a template's problem stops the walk */
	void (*fn)(const struct node *, void *);
	void *arg;
};

static void walk(struct walk *w);

/* Evaluates the template at p and walks on with its value. */
static void
walk_template(struct walk *w, struct node_pair *p, const char *parent)
{
	const struct expand_env *env = w->env;
	struct node *tmpl = p->value, *v;
	char *err = NULL;

	if (!template_eval(tmpl, w->root, &v, &err)) {
		if (env != NULL)
			errlist_error(env->el, env->file, tmpl->line, "%s",
				      err);
		free(err);
		w->failed = true;
		return;
	}
	if (v == NULL)
		return; /* nil: no job, as in LKP */
	if (env != NULL && env->check != NULL &&
	    (err = env->check(parent, p->key, v, env->check_arg)) != NULL) {
		errlist_error(env->el, env->file, tmpl->line,
			      "%s, as its template gives it: %s", p->key, err);
		free(err);
		node_free(v);
		w->failed = true;
		return;
	}
	p->value = v;
	walk(w);
	p->value = tmpl;
	node_free(v);
}

static void
walk(struct walk *w)
{
	const char *parent = NULL;
	struct node_pair *p = find_point(w->root, NULL, w->d, &parent);
	struct node *list;

	if (w->failed)
		return;
	if (p == NULL) {
		w->count++;
		if (w->fn != NULL)
			w->fn(w->root, w->arg);
		return;
	}
	if (p->value->kind != NODE_SEQ) {
		walk_template(w, p, parent);
		return;
	}
	list = p->value;
	for (size_t i = 0; i < list->nitems && !w->failed; i++) {
		if (w->limit != 0 && w->count > w->limit)
			break;
		p->value = list->items[i];
		walk(w);
		/* p may have moved if the mapping grew: it cannot here. */
	}
	p->value = list;
}

size_t
expand_count(struct node *job, const struct expand_dims *d,
	     const struct expand_env *env, size_t limit)
{
	struct walk w = {.root = job, .d = d, .env = env, .limit = limit};

	walk(&w);
	return w.count > limit ? limit + 1 : w.count;
}

static size_t
sat_mul(size_t a, size_t b)
{
	if (a != 0 && b > SIZE_MAX / a)
		return SIZE_MAX;
	return a * b;
}

size_t
expand_estimate(const struct node *job, const struct expand_dims *d)
{
	size_t n = 1;

	for (size_t i = 0; i < job->npairs; i++) {
		const struct node_pair *p = &job->pairs[i];

		if (p->value->kind == NODE_SEQ && expand_dims_has(d, p->key))
			n = sat_mul(n, p->value->nitems);
		else if (p->value->kind == NODE_MAP)
			n = sat_mul(n, expand_estimate(p->value, d));
	}
	return n;
}

void
expand_each(struct node *job, const struct expand_dims *d,
	    const struct expand_env *env,
	    void (*fn)(const struct node *atomic, void *arg), void *arg)
{
	struct walk w = {.root = job, .d = d, .env = env, .fn = fn, .arg = arg};

	walk(&w);
}

/* ---- path_params ------------------------------------------------------ */

struct param {
	const char *key;
	const struct node *value;
	char type;
	size_t order; /* for a stable sort */
};

struct params {
	struct param *v;
	size_t n;
};

/*
 * LKP's each_param: every key in the set (program options, programs) at
 * any depth whose value is not a mapping, skipping what sits under a
 * monitor.
 */
static void
collect(const struct node *map, const char *parent, const struct expand_dims *d,
	struct params *out)
{
	const struct catalog_program *pp =
		parent ? catalog_program(parent) : NULL;
	bool under_monitor = pp != NULL && pp->kind == CATALOG_MONITOR;

	for (size_t i = 0; i < map->npairs; i++) {
		const struct node_pair *p = &map->pairs[i];

		if (p->value->kind != NODE_MAP && !under_monitor &&
		    expand_dims_is_param(d, p->key)) {
			const struct dim *x = dims_find(d, p->key);

			out->v = xreallocarray(out->v, out->n + 1,
					       sizeof *out->v);
			out->v[out->n] = (struct param){
				p->key, p->value, x ? x->type : '-', out->n};
			out->n++;
		}
		if (p->value->kind == NODE_MAP)
			collect(p->value, p->key, d, out);
	}
}

static int
param_cmp(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Bytes of the character at s (invalid UTF-8 counts one byte each). */
static size_t
char_len(const char *s)
{
	size_t n = str_utf8_seq_len((const unsigned char *)s, strnlen(s, 4));

	return n == 0 ? 1 : n;
}

/* Appends the first 31 characters of s, as Ruby's s[0..30]. */
static void
add_cut(struct buf *b, const char *s)
{
	const char *p = s;

	for (int i = 0; i < 31 && *p != '\0'; i++)
		p += char_len(p);
	buf_add(b, s, (size_t)(p - s));
}

char *
expand_path_params(const struct node *atomic)
{
	struct expand_dims *d = expand_dims_new(atomic);
	struct params ps = {NULL, 0};
	struct buf b, out;

	collect(atomic, NULL, d, &ps);
	if (ps.n > 1) /* qsort() wants a real array, even for none */
		qsort(ps.v, ps.n, sizeof *ps.v, param_cmp);
	buf_init(&b);
	for (size_t i = 0; i < ps.n; i++) {
		const struct param *p = &ps.v[i];
		char *s = node_to_s(p->value);

		if (p->type == '=') {
			buf_adds(&b, p->key);
			if (s != NULL && *s != '\0') {
				buf_addc(&b, '=');
				add_cut(&b, s);
			}
			buf_addc(&b, '-');
		} else if (s != NULL &&
			   !(p->value->stype == NODE_BOOL && !p->value->bval)) {
			/* Ruby's "next unless v" skips nil and false. */
			add_cut(&b, s);
			buf_addc(&b, '-');
		}
		free(s);
	}
	free(ps.v);
	expand_dims_free(d);
	if (b.len == 0) {
		buf_release(&b);
		return xstrdup("defaults");
	}
	b.data[--b.len] = '\0'; /* the last '-' */
	/* Ruby's tr('^-a-zA-Z0-9+=:.%', '_'): one '_' per character. */
	buf_init(&out);
	for (const char *p = b.data; *p != '\0';) {
		unsigned char c = (unsigned char)*p;
		size_t n = char_len(p);

		if (n == 1 &&
		    ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		     (c >= '0' && c <= '9') || strchr("-+=:.%", c)))
			buf_addc(&out, (char)c);
		else
			buf_addc(&out, '_');
		p += n;
	}
	buf_release(&b);
	return buf_detach(&out);
}

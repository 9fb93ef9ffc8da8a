/*
 * view.c: a JSON document decoded into a struct by its field table.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void *
keep(struct view_doc *d, size_t n, size_t size)
{
	void *p = xcalloc(n > 0 ? n : 1, size);

	d->allocs = xreallocarray(d->allocs, d->nallocs + 1, sizeof *d->allocs);
	d->allocs[d->nallocs++] = p;
	return p;
}

static void
fail(char *err, size_t len, const char *path, const char *what)
{
	snprintf(err, len, "%s: %s", path, what);
}

/* The path of an element (key NULL: [i]) or a key below path, cut to
 * at's size. */
static void
join(char *at, size_t n, const char *path, const char *key, size_t i)
{
	int w = key != NULL
			? snprintf(at, n, "%s%s%s", path, *path ? "." : "", key)
			: snprintf(at, n, "%s[%zu]", path, i);

	if (w < 0 || (size_t)w >= n)
		at[n - 1] = '\0';
}

static bool decode(struct view_doc *d, const struct view_type *t,
		   const json_t *o, void *out, const char *path, char *err,
		   size_t len);

static bool field(struct view_doc *d, const struct view_field *f,
		  const json_t *v, char *p, const char *path, char *err,
		  size_t len);

/* The elements of array v of field f: allocated, each decoded as a
 * field of the array's element kind, its count beside it. */
static bool
elements(struct view_doc *d, const struct view_field *f, const json_t *v,
	 char *p, const char *path, char *err, size_t len)
{
	struct view_field e = {NULL, VIEW_OBJECT, 0, 0, f->type, 0};
	size_t n = json_array_size(v), size;
	char *a;

	switch (f->kind) {
	case VIEW_STRS:
		e.kind = VIEW_STR;
		size = sizeof(const char *);
		break;
	case VIEW_NUMS:
		e.kind = VIEW_NUM;
		size = sizeof(double);
		break;
	case VIEW_INTS:
		e.kind = VIEW_INT;
		size = sizeof(long long);
		break;
	default:
		size = f->type->size;
		break;
	}
	a = keep(d, n, size);
	*(void **)p = a;
	*(size_t *)(p - f->off + f->count) = n;
	for (size_t i = 0; i < n; i++) {
		char at[256];

		join(at, sizeof at, path, NULL, i);
		if (!field(d, &e, json_array_get(v, i), a + i * size, at, err,
			   len))
			return false;
	}
	return true;
}

/* One value v of field f into its place at p. */
static bool
field(struct view_doc *d, const struct view_field *f, const json_t *v, char *p,
      const char *path, char *err, size_t len)
{
	if (json_is_null(v)) {
		if (f->kind == VIEW_NUM)
			*(double *)p = NAN;
		return true;
	}
	switch (f->kind) {
	case VIEW_STR:
		if (!json_is_string(v))
			break;
		*(const char **)p = json_string_value(v);
		return true;
	case VIEW_INT:
		if (!json_is_integer(v))
			break;
		*(long long *)p = (long long)json_integer_value(v);
		return true;
	case VIEW_NUM:
		if (!json_is_number(v))
			break;
		*(double *)p = json_number_value(v);
		return true;
	case VIEW_BOOL:
		if (!json_is_boolean(v))
			break;
		*(bool *)p = json_is_true(v);
		return true;
	case VIEW_JSON:
		*(const json_t **)p = v;
		return true;
	case VIEW_OBJECT:
		if (!json_is_object(v))
			break;
		return decode(d, f->type, v, p, path, err, len);
	case VIEW_ARRAY:
	case VIEW_STRS:
	case VIEW_NUMS:
	case VIEW_INTS:
		if (!json_is_array(v))
			break;
		return elements(d, f, v, p, path, err, len);
	}
	fail(err, len, path,
	     f->kind == VIEW_STR      ? "not a string"
	     : f->kind == VIEW_INT    ? "not an integer"
	     : f->kind == VIEW_NUM    ? "not a number"
	     : f->kind == VIEW_BOOL   ? "not true or false"
	     : f->kind == VIEW_OBJECT ? "not an object"
				      : "not an array");
	return false;
}

static bool
decode(struct view_doc *d, const struct view_type *t, const json_t *o,
       void *out, const char *path, char *err, size_t len)
{
	for (size_t i = 0; i < t->nfields; i++) {
		const struct view_field *f = &t->fields[i];
		const json_t *v = json_object_get(o, f->key);
		char at[256];

		join(at, sizeof at, path, f->key, 0);
		if (v == NULL) {
			if (f->kind == VIEW_NUM)
				*(double *)((char *)out + f->off) = NAN;
			if (f->flags & VIEW_OPT)
				continue;
			fail(err, len, at, "missing");
			return false;
		}
		if (!field(d, f, v, (char *)out + f->off, at, err, len))
			return false;
	}
	return true;
}

bool
view_decode(struct view_doc *d, const struct view_type *t, json_t *j, void *out,
	    char *err, size_t len)
{
	char msg[512];

	memset(out, 0, t->size);
	if (!json_is_object(j)) {
		snprintf(err, len, "%s: not a JSON object", t->name);
		return false;
	}
	d->roots = xreallocarray(d->roots, d->nroots + 1, sizeof *d->roots);
	d->roots[d->nroots++] = json_incref(j);
	if (decode(d, t, j, out, "", msg, sizeof msg))
		return true;
	snprintf(err, len, "%s: %s", t->name, msg);
	memset(out, 0, t->size);
	return false;
}

bool
view_load(struct view_doc *d, const struct view_type *t, const char *text,
	  void *out, char *err, size_t len)
{
	json_error_t e;
	json_t *j;
	bool ok;

	memset(out, 0, t->size);
	if (text == NULL) {
		snprintf(err, len, "%s: no document", t->name);
		return false;
	}
	j = rjson_loads(text, &e);
	if (j == NULL) {
		snprintf(err, len, "%s: not JSON: %s", t->name, e.text);
		return false;
	}
	ok = view_decode(d, t, j, out, err, len);
	json_decref(j);
	return ok;
}

void
view_release(struct view_doc *d)
{
	for (size_t i = 0; i < d->nallocs; i++)
		free(d->allocs[i]);
	free(d->allocs);
	for (size_t i = 0; i < d->nroots; i++)
		json_decref(d->roots[i]);
	free(d->roots);
	memset(d, 0, sizeof *d);
}

/*
 * history.c: reading a history file (history.h).  Both formats feed
 * one builder, which groups a commit's runs at its first place.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/history.h"
#include "robot/analysis/result.h"
#include "robot/core/docload.h"
#include "robot/core/node.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* The longest commit name taken (a SHA-256 is 64; a ref may be long). */
#define HISTORY_COMMIT_MAX 255

struct builder {
	struct history *h;
	struct strmap *index; /* commit -> its point */
	size_t *cap;          /* values allocated, by point */
	size_t ncap;          /* points allocated */
};

static void
builder_add(struct builder *b, const char *commit, int line, double v)
{
	struct history *h = b->h;
	struct changes_point *p;
	size_t i;

	if (!strmap_get(b->index, commit, &i)) {
		if (h->n == b->ncap) {
			b->ncap = b->ncap ? 2 * b->ncap : 64;
			h->pts = xreallocarray(h->pts, b->ncap, sizeof *h->pts);
			h->lines = xreallocarray(h->lines, b->ncap,
						 sizeof *h->lines);
			b->cap = xreallocarray(b->cap, b->ncap, sizeof *b->cap);
		}
		i = h->n++;
		h->pts[i].commit = xstrdup(commit);
		h->pts[i].v = NULL;
		h->pts[i].n = 0;
		h->lines[i] = line;
		b->cap[i] = 0;
		strmap_put(b->index, h->pts[i].commit, i);
	}
	p = &h->pts[i];
	if (p->n == b->cap[i]) {
		b->cap[i] = b->cap[i] ? 2 * b->cap[i] : 4;
		p->v = xreallocarray((double *)p->v, b->cap[i], sizeof *p->v);
	}
	((double *)p->v)[p->n++] = v;
	h->runs++;
}

/* Whether commit (len bytes) is a name we take; says why not. */
static bool
commit_ok(const char *commit, size_t len, const char *name, int line,
	  struct errlist *el)
{
	if (len == 0) {
		errlist_error(el, name, line, "the commit is empty");
		return false;
	}
	if (len > HISTORY_COMMIT_MAX) {
		errlist_error(el, name, line,
			      "the commit is %zu bytes long; at most %d", len,
			      HISTORY_COMMIT_MAX);
		return false;
	}
	if (!str_utf8_valid(commit, len)) {
		errlist_error(el, name, line, "the commit is not UTF-8");
		return false;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)commit[i] < 0x20 || commit[i] == 0x7f) {
			errlist_error(el, name, line,
				      "the commit holds a control character");
			return false;
		}
	return true;
}

/* A field without blanks around it, nor the double quotes that may
 * enclose it. */
static const char *
field_trim(const char *s, size_t *len)
{
	s = str_trim_blanks(s, len);
	if (*len >= 2 && s[0] == '"' && s[*len - 1] == '"') {
		s++;
		*len -= 2;
	}
	return s;
}

static bool
has_digit(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (isdigit((unsigned char)s[i]))
			return true;
	return false;
}

/* One CSV line (len bytes, its end of line cut); header: the first
 * line of data is still to come. */
static void
csv_line(struct builder *b, const char *s, size_t len, const char *name,
	 int line, bool *first, struct errlist *el)
{
	const char *comma, *commit, *value;
	size_t clen, vlen, fields = 1;
	char *text, *end, *c;
	double v;

	s = str_trim_blanks(s, &len);
	if (len == 0 || s[0] == '#')
		return;
	if (memchr(s, '\0', len) != NULL) {
		errlist_error(el, name, line, "the line holds a NUL byte");
		return;
	}
	for (size_t i = 0; i < len; i++)
		fields += s[i] == ',';
	if (fields != 2) {
		errlist_error(el, name, line,
			      "expected 'commit,value', found %zu field%s",
			      fields, fields == 1 ? "" : "s");
		*first = false;
		return;
	}
	comma = memchr(s, ',', len);
	clen = (size_t)(comma - s);
	vlen = len - clen - 1;
	commit = field_trim(s, &clen);
	value = field_trim(comma + 1, &vlen);
	text = xmalloc(vlen + 1);
	memcpy(text, value, vlen);
	text[vlen] = '\0';
	v = strtod(text, &end);
	if (vlen == 0 || end != text + vlen) {
		/* A first line whose value holds no digit is a header
		 * ("commit,value"); else a mistake, and said. */
		if (!*first || has_digit(text, vlen)) {
			char *q = str_printable(text, vlen, 40);

			errlist_error(el, name, line, "'%s' is not a number",
				      q);
			free(q);
		}
		free(text);
		*first = false;
		return;
	}
	free(text);
	*first = false;
	if (!isfinite(v)) {
		errlist_error(el, name, line,
			      "the value is not a finite number");
		return;
	}
	if (fabs(v) > RESULT_MAX_VALUE) {
		errlist_error(el, name, line,
			      "the value is beyond +-%g, more than a mean of "
			      "them can hold",
			      RESULT_MAX_VALUE);
		return;
	}
	if (!commit_ok(commit, clen, name, line, el))
		return;
	c = xmalloc(clen + 1);
	memcpy(c, commit, clen);
	c[clen] = '\0';
	builder_add(b, c, line, v);
	free(c);
}

static void
load_csv(struct builder *b, const char *name, const char *data, size_t len,
	 struct errlist *el)
{
	const char *p = data, *end = data + len;
	bool first = true;
	int line = 1;

	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3; /* a byte order mark */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 0 && p[n - 1] == '\r')
			n--;
		csv_line(b, p, n, name, line++, &first, el);
		p = nl ? nl + 1 : end;
	}
}

/* One element of a JSON history. */
static void
json_point(struct builder *b, const struct node *x, size_t i, const char *name,
	   struct errlist *el)
{
	const struct node *commit = NULL, *values = NULL;
	bool ok = true;

	if (x->kind != NODE_MAP) {
		errlist_error(el, name, x->line,
			      "point %zu is %s, not an object with \"commit\" "
			      "and \"values\"",
			      i + 1, node_type_name(x));
		return;
	}
	for (size_t k = 0; k < x->npairs; k++) {
		const struct node_pair *pr = &x->pairs[k];

		if (strcmp(pr->key, "commit") == 0)
			commit = pr->value;
		else if (strcmp(pr->key, "values") == 0)
			values = pr->value;
		else {
			char *q = str_quote(pr->key);

			errlist_error(el, name, pr->line,
				      "unknown key '%s' (a point has "
				      "\"commit\" and \"values\")",
				      q);
			free(q);
			ok = false;
		}
	}
	if (commit == NULL || values == NULL) {
		errlist_error(el, name, x->line, "point %zu has no \"%s\"",
			      i + 1, commit == NULL ? "commit" : "values");
		return;
	}
	if (commit->kind != NODE_SCALAR || commit->stype != NODE_STR) {
		errlist_error(el, name, commit->line,
			      "\"commit\" is %s, not a string",
			      node_type_name(commit));
		ok = false;
	} else if (!commit_ok(commit->text, commit->len, name, commit->line,
			      el))
		ok = false;
	if (values->kind != NODE_SEQ || values->nitems == 0) {
		errlist_error(el, name, values->line,
			      "\"values\" is %s, not an array of numbers",
			      values->kind == NODE_SEQ
				      ? "empty"
				      : node_type_name(values));
		return;
	}
	for (size_t k = 0; k < values->nitems; k++) {
		const struct node *v = values->items[k];

		if (v->kind != NODE_SCALAR ||
		    (v->stype != NODE_INT && v->stype != NODE_FLOAT)) {
			errlist_error(el, name, v->line,
				      "values[%zu] is %s, not a number", k,
				      node_type_name(v));
			ok = false;
		} else if (v->stype == NODE_FLOAT &&
			   !(fabs(v->fval) <= RESULT_MAX_VALUE)) {
			errlist_error(el, name, v->line,
				      "values[%zu] is beyond +-%g, more than a "
				      "mean of them can hold",
				      k, RESULT_MAX_VALUE);
			ok = false;
		}
	}
	if (!ok)
		return;
	for (size_t k = 0; k < values->nitems; k++) {
		const struct node *v = values->items[k];

		builder_add(b, commit->text, x->line,
			    v->stype == NODE_INT ? (double)v->ival : v->fval);
	}
}

static void
load_json(struct builder *b, const char *name, const char *data, size_t len,
	  struct errlist *el)
{
	struct node *root = docload_json_value(name, data, len, el);

	if (root == NULL)
		return;
	if (root->kind != NODE_SEQ)
		errlist_error(el, name, root->line,
			      "a JSON history is an array of points, not %s",
			      node_type_name(root));
	else
		for (size_t i = 0; i < root->nitems; i++)
			json_point(b, root->items[i], i, name, el);
	node_free(root);
}

bool
history_load(struct history *h, const char *name, const char *data, size_t len,
	     struct errlist *el)
{
	struct builder b = {.h = h, .index = strmap_new(64)};
	size_t before = el->nerrors, i = 0;

	memset(h, 0, sizeof *h);
	while (i < len && isspace((unsigned char)data[i]))
		i++;
	if (i < len && data[i] == '[')
		load_json(&b, name, data, len, el);
	else
		load_csv(&b, name, data, len, el);
	if (el->nerrors == before && h->n == 0)
		errlist_error(el, name, 0, "the history has no points");
	strmap_free(b.index);
	free(b.cap);
	if (el->nerrors != before) {
		history_release(h);
		return false;
	}
	return true;
}

void
history_release(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free((char *)h->pts[i].commit);
		free((double *)h->pts[i].v);
	}
	free(h->pts);
	free(h->lines);
	memset(h, 0, sizeof *h);
}

void
history_from_json(struct history *h, const json_t *commits)
{
	struct builder b = {.h = h, .index = strmap_new(64)};
	const json_t *c, *v;
	size_t i, k;

	memset(h, 0, sizeof *h);
	json_array_foreach(commits, i, c)
	{
		const char *sha = rjson_get_str(c, "commit");

		if (sha == NULL)
			continue;
		json_array_foreach(json_object_get(c, "vals"), k, v)
		{
			double x = json_number_value(v);

			if (json_is_number(v) && isfinite(x))
				builder_add(&b, sha, 0, x);
		}
	}
	strmap_free(b.index);
	free(b.cap);
}

/* A real, or null where it is not finite (jansson refuses those). */
static json_t *
real_or_null(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *
segment_json(size_t from, size_t to, size_t runs, double mean)
{
	return json_pack("{s:I, s:I, s:I, s:o}", "from", (json_int_t)from, "to",
			 (json_int_t)to, "runs", (json_int_t)runs, "mean",
			 real_or_null(mean));
}

json_t *
history_changes_json(const struct history *h, const struct change_point *cp,
		     size_t n)
{
	json_t *list = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct change_point *c = &cp[i];
		const char *commit = h->pts[c->index].commit;

		json_array_append_new(
			list,
			json_pack("{s:I, s:o, s:o, s:f, s:o, s:o, s:o}",
				  "index", (json_int_t)c->index, "commit",
				  rjson_string_lossy(commit, strlen(commit)),
				  "change_pct", real_or_null(c->change_pct),
				  "p", c->p, "effect_pct",
				  real_or_null(c->effect_pct), "before",
				  segment_json(c->from, c->index, c->nbefore,
					       c->before),
				  "after",
				  segment_json(c->index, c->to, c->nafter,
					       c->after)));
	}
	return list;
}

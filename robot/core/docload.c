/*
 * docload.c: YAML and JSON job files into node trees.
 *
 * YAML goes through libyaml's event parser: a stack of open collections,
 * anchors kept as copies so that an alias can be expanded (with a budget
 * against "billion laughs"), YAML merge keys ("<<: *anchor") and LKP's
 * includes ("<<: file.yaml", resolved by the caller).  Plain scalars are
 * typed as LKP's Ruby types them (docload_resolve_plain()).
 *
 * JSON goes through jansson, which checks the syntax strictly and rejects
 * duplicate keys.  jansson keeps no positions, so a small scanner walks the
 * same text in the same order and records where each value starts; the two
 * walks are zipped together to give every node its line.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/str.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* ---- plain scalar typing ---------------------------------------------- */

static bool
match_ci(const char *s, const char *const *words)
{
	for (size_t i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return true;
	return false;
}

/* Copies s without '_' (and ',' as Psych allows) into out (size n). */
static bool
strip_separators(const char *s, char *out, size_t n)
{
	size_t j = 0;

	for (; *s != '\0'; s++) {
		if (*s == '_' || *s == ',')
			continue;
		if (j + 1 >= n)
			return false;
		out[j++] = *s;
	}
	out[j] = '\0';
	return true;
}

static bool
all_chars(const char *s, const char *set)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (strchr(set, *s) == NULL)
			return false;
	return true;
}

static bool
resolve_int(const char *text, long long *out)
{
	char tmp[128];
	const char *p = text, *digits;
	int base = 10;
	bool neg = false;
	unsigned long long v;
	char *end;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		digits = p + 2;
		if (!all_chars(digits, "0123456789abcdefABCDEF_,"))
			return false;
	} else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
		base = 2;
		digits = p + 2;
		if (!all_chars(digits, "01_,"))
			return false;
	} else if (p[0] == '0' && p[1] != '\0') {
		base = 8;
		digits = p + 1;
		if (!all_chars(digits, "01234567_,"))
			return false;
	} else {
		digits = p;
		if (!all_chars(digits, "0123456789_,") || *digits == '_' ||
		    *digits == ',')
			return false;
		/* "1,000" is 1000 for Psych, but "1," and "1__" are not. */
		for (const char *q = digits; *q != '\0'; q++)
			if ((*q == '_' || *q == ',') &&
			    !isdigit((unsigned char)q[1]))
				return false;
	}
	if (!strip_separators(digits, tmp, sizeof tmp) || tmp[0] == '\0')
		return false;
	errno = 0;
	v = strtoull(tmp, &end, base);
	if (errno != 0 || *end != '\0')
		return false;
	if (neg) {
		if (v > (unsigned long long)LLONG_MAX + 1)
			return false;
		*out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
							      : -(long long)v;
	} else {
		if (v > (unsigned long long)LLONG_MAX)
			return false;
		*out = (long long)v;
	}
	return true;
}

static bool
resolve_float(const char *text, double *out)
{
	const char *p = text;
	char tmp[128];
	bool digits = false;
	char *end;
	double d;

	/* [-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)? */
	if (*p == '+' || *p == '-')
		p++;
	while (isdigit((unsigned char)*p) || (digits && *p == '_')) {
		digits = true;
		p++;
	}
	if (*p != '.')
		return false;
	p++;
	while (isdigit((unsigned char)*p) || *p == '_') {
		digits = digits || *p != '_';
		p++;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '\0' || !strip_separators(text, tmp, sizeof tmp))
		return false;
	errno = 0;
	d = strtod(tmp, &end);
	if (*end != '\0' || !isfinite(d))
		return false;
	*out = d;
	return true;
}

void
docload_resolve_plain(struct node *n)
{
	static const char *const nulls[] = {"~", "null", NULL};
	static const char *const trues[] = {"true", "yes", "on", NULL};
	static const char *const falses[] = {"false", "no", "off", NULL};
	const char *t = n->text;

	if (n->len != strlen(t))
		return; /* holds a NUL byte: a string */
	if (*t == '\0' || match_ci(t, nulls)) {
		free(n->text);
		n->text = NULL;
		n->len = 0;
		n->kind = NODE_NULL;
	} else if (match_ci(t, trues)) {
		n->stype = NODE_BOOL;
		n->bval = true;
	} else if (match_ci(t, falses)) {
		n->stype = NODE_BOOL;
		n->bval = false;
	} else if (resolve_int(t, &n->ival)) {
		n->stype = NODE_INT;
	} else if (resolve_float(t, &n->fval)) {
		n->stype = NODE_FLOAT;
	}
}

/* ---- YAML ------------------------------------------------------------- */

struct yframe {
	struct node *node; /* the open mapping or sequence */
	char *key;         /* a mapping's pending key, or NULL */
	int key_line;
	bool key_is_merge; /* the pending key is "<<" */
	/* A mapping's keys: the index of each one's pair, times two, plus
	 * one if it came from a merge or an include (a later key of that
	 * name overrides it instead of being a duplicate).  Lookups stay
	 * constant-time however many keys a file or its merges make. */
	struct strmap *keys;
	char *anchor; /* the collection's anchor, or NULL */
};

struct yanchor {
	char *name;
	struct node *copy;
};

struct yload {
	const char *name;
	const struct docload_options *opt;
	struct errlist *el;
	struct node *docs;
	struct yframe *stack;
	size_t depth;
	struct yanchor *anchors;
	size_t nanchors;
	size_t anchors_cap;
	struct strmap *anchor_index; /* name -> index in anchors */
	size_t nodes;                /* values made, aliases included */
	bool from_alias; /* the value being added is an alias's copy */
	bool failed;
};

static bool yload_count(struct yload *y, size_t add, int line);

static size_t
node_count(const struct node *n)
{
	size_t c = 1;

	for (size_t i = 0; i < n->nitems; i++)
		c += node_count(n->items[i]);
	for (size_t i = 0; i < n->npairs; i++)
		c += node_count(n->pairs[i].value);
	return c;
}

/* Keeps a copy of n under name: a copy made and counted like an
 * alias's, so that anchors cannot spend memory outside the budget. */
static void
yload_anchor(struct yload *y, const char *name, const struct node *n)
{
	size_t i;

	if (!yload_count(y, node_count(n), n->line))
		return;
	if (strmap_get(y->anchor_index, name, &i)) {
		node_free(y->anchors[i].copy);
		y->anchors[i].copy = node_copy(n);
		return;
	}
	if (y->nanchors == y->anchors_cap) {
		y->anchors_cap = y->anchors_cap ? y->anchors_cap * 2 : 16;
		y->anchors = xreallocarray(y->anchors, y->anchors_cap,
					   sizeof *y->anchors);
	}
	y->anchors[y->nanchors].name = xstrdup(name);
	y->anchors[y->nanchors].copy = node_copy(n);
	strmap_put(y->anchor_index, y->anchors[y->nanchors].name, y->nanchors);
	y->nanchors++;
}

/* The pair of key in f's mapping, or NULL; *merged: whether it came from
 * a merge or an include. */
static struct node_pair *
frame_get(struct yframe *f, const char *key, bool *merged)
{
	size_t v;

	if (f->keys == NULL || !strmap_get(f->keys, key, &v))
		return NULL;
	*merged = v & 1;
	return &f->node->pairs[v >> 1];
}

/* Sets key to value in f's mapping, replacing what it held. */
static void
frame_put(struct yframe *f, const char *key, int line, struct node *value,
	  bool merged)
{
	bool was_merged;
	struct node_pair *p = frame_get(f, key, &was_merged);
	size_t i;

	if (f->keys == NULL)
		f->keys = strmap_new(8);
	if (p != NULL) {
		node_free(p->value);
		p->value = value;
		p->line = line;
		i = (size_t)(p - f->node->pairs);
	} else {
		node_push_pair(f->node, key, line, value);
		i = f->node->npairs - 1;
	}
	strmap_put(f->keys, f->node->pairs[i].key, i << 1 | merged);
}

/* LKP's include: the included mapping's keys go in as LKP's textual
 * include puts them (docload.h). */
static void
yload_include(struct yload *y, struct yframe *f, struct node *spec, int line)
{
	struct node *m;

	if (y->opt == NULL || y->opt->include == NULL) {
		errlist_error(y->el, y->name, line,
			      "'<<' includes another file (LKP's include); "
			      "robotd cannot read your files: split or submit "
			      "it with the robot command, which resolves "
			      "includes");
		y->failed = true;
		return;
	}
	if ((m = y->opt->include(spec, line, y->opt->include_arg)) == NULL) {
		y->failed = true;
		return;
	}
	if (!yload_count(y, node_count(m), line)) {
		node_free(m);
		return;
	}
	for (size_t j = 0; j < m->npairs; j++) {
		struct node_pair *p = &m->pairs[j];

		frame_put(f, p->key, p->line, node_copy(p->value), true);
	}
	node_free(m);
}

/* Whether a "<<" value is an include (a file name, or a mapping with
 * "file") rather than a merge of anchors. */
static bool
is_include(const struct node *v)
{
	return (v->kind == NODE_SCALAR && v->stype == NODE_STR) ||
	       (v->kind == NODE_MAP && node_get(v, "file") != NULL);
}

/* Applies "<<: value" to the mapping of frame f. */
static void
yload_merge(struct yload *y, struct yframe *f, struct node *v, int line)
{
	struct node **maps = &v;
	size_t nmaps = 1;

	if (!y->from_alias && is_include(v)) {
		yload_include(y, f, v, line);
		return;
	}

	if (v->kind == NODE_SEQ) {
		maps = v->items;
		nmaps = v->nitems;
	}
	for (size_t i = 0; i < nmaps; i++) {
		struct node *m = maps[i];

		if (m->kind != NODE_MAP) {
			errlist_error(y->el, y->name, line,
				      "'<<' merges mappings ('<<: *anchor') or "
				      "includes a file ('<<: file.yaml'), not "
				      "%s",
				      node_type_name(m));
			y->failed = true;
			return;
		}
		if (!yload_count(y, node_count(m), line))
			return;
		for (size_t j = 0; j < m->npairs; j++) {
			struct node_pair *p = &m->pairs[j];
			bool merged;

			if (frame_get(f, p->key, &merged) == NULL)
				frame_put(f, p->key, p->line,
					  node_copy(p->value), true);
		}
	}
}

/* Attaches a finished value n to the open collection (or as a document). */
static void
yload_add(struct yload *y, struct node *n, const char *anchor)
{
	struct yframe *f;
	struct node_pair *p;
	bool merged;

	if (y->failed) {
		node_free(n);
		return;
	}
	if (anchor != NULL)
		yload_anchor(y, anchor, n);
	if (y->depth == 0) {
		node_append(y->docs, n);
		return;
	}
	f = &y->stack[y->depth - 1];
	if (f->node->kind == NODE_SEQ) {
		node_append(f->node, n);
		return;
	}
	if (f->key == NULL && !f->key_is_merge) {
		/* n is a key. */
		if (n->kind == NODE_SCALAR && !n->quoted && n->len == 2 &&
		    strcmp(n->text, "<<") == 0) {
			f->key_is_merge = true;
			f->key_line = n->line;
		} else if (n->kind == NODE_NULL) {
			errlist_error(y->el, y->name, n->line,
				      "a key is empty");
			y->failed = true;
		} else if (n->kind != NODE_SCALAR) {
			errlist_error(y->el, y->name, n->line,
				      "a key is %s; keys must be names",
				      node_type_name(n));
			y->failed = true;
		} else if (n->len != strlen(n->text) ||
			   !str_utf8_valid(n->text, n->len)) {
			char *q = str_printable(n->text, n->len, 60);

			errlist_error(y->el, y->name, n->line,
				      "key '%s' holds control bytes or "
				      "invalid UTF-8",
				      q);
			free(q);
			y->failed = true;
		} else {
			f->key = xstrdup(n->text);
			f->key_line = n->line;
		}
		node_free(n);
		return;
	}
	if (f->key_is_merge) {
		yload_merge(y, f, n, f->key_line);
		f->key_is_merge = false;
		node_free(n);
		return;
	}
	if ((p = frame_get(f, f->key, &merged)) != NULL && !merged) {
		char *q = str_quote(f->key);

		errlist_error(y->el, y->name, f->key_line,
			      "key '%s' appears twice (first at line %d)", q,
			      p->line);
		free(q);
		node_free(n);
	} else {
		frame_put(f, f->key, f->key_line, n, false);
	}
	free(f->key);
	f->key = NULL;
}

static bool
yload_count(struct yload *y, size_t add, int line)
{
	y->nodes += add;
	if (y->nodes > DOCLOAD_MAX_NODES) {
		errlist_error(y->el, y->name, line,
			      "the file holds more than %d values (with "
			      "aliases expanded); a job file is far smaller",
			      DOCLOAD_MAX_NODES);
		y->failed = true;
		return false;
	}
	return true;
}

static struct node *
yload_scalar(struct yload *y, const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	int line = (int)ev->start_mark.line + 1;
	int col = (int)ev->start_mark.column + 1;
	struct node *n;

	n = node_new_str((const char *)ev->data.scalar.value,
			 ev->data.scalar.length, line, col);
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	if (tag != NULL) {
		if (strcmp(tag, YAML_STR_TAG) == 0 || strcmp(tag, "!") == 0)
			return n;
		if (strcmp(tag, YAML_INT_TAG) == 0 ||
		    strcmp(tag, YAML_FLOAT_TAG) == 0 ||
		    strcmp(tag, YAML_BOOL_TAG) == 0 ||
		    strcmp(tag, YAML_NULL_TAG) == 0) {
			docload_resolve_plain(n);
			return n;
		}
		char *q = str_quote(tag);

		errlist_error(y->el, y->name, line,
			      "YAML tag '%s' is not supported", q);
		free(q);
		y->failed = true;
		return n;
	}
	if (!n->quoted)
		docload_resolve_plain(n);
	return n;
}

static void
yload_push(struct yload *y, struct node *n, int line, const char *anchor)
{
	if (y->depth >= DOCLOAD_MAX_DEPTH) {
		errlist_error(y->el, y->name, line,
			      "values are nested deeper than %d levels",
			      DOCLOAD_MAX_DEPTH);
		y->failed = true;
		node_free(n);
		return;
	}
	if (y->stack == NULL)
		y->stack = xcalloc(DOCLOAD_MAX_DEPTH, sizeof *y->stack);
	memset(&y->stack[y->depth], 0, sizeof y->stack[y->depth]);
	y->stack[y->depth].anchor = anchor ? xstrdup(anchor) : NULL;
	y->stack[y->depth++].node = n;
}

/* Frees what a frame holds besides its node, which it returns. */
static struct node *
yframe_release(struct yframe *f)
{
	free(f->key);
	strmap_free(f->keys);
	free(f->anchor);
	return f->node;
}

static void
yload_pop(struct yload *y)
{
	struct yframe *f = &y->stack[--y->depth];
	char *anchor = f->anchor;
	struct node *n;

	f->anchor = NULL;
	n = yframe_release(f);
	yload_add(y, n, anchor);
	free(anchor);
}

/* Whether the input has a tab at the parser's problem mark, or before
 * it on its line's indentation. */
static bool
tab_at(const yaml_parser_t *p, const char *data, size_t len)
{
	size_t i = p->problem_mark.index;

	if (i < len && data[i] == '\t')
		return true;
	while (i > 0 && i <= len && data[i - 1] != '\n')
		i--;
	for (; i < len && (data[i] == ' ' || data[i] == '\t'); i++)
		if (data[i] == '\t')
			return true;
	return false;
}

static void
yload_error(struct yload *y, const yaml_parser_t *p, const char *data,
	    size_t len)
{
	int line = (int)p->problem_mark.line + 1;

	if (p->error != YAML_MEMORY_ERROR && tab_at(p, data, len)) {
		errlist_error(y->el, y->name, line,
			      "malformed YAML: a tab: YAML indents with spaces "
			      "only (%s)",
			      p->problem ? p->problem : "a tab");
	} else if (p->error == YAML_MEMORY_ERROR) {
		errlist_error(y->el, y->name, 0, "out of memory parsing YAML");
	} else if (p->context != NULL) {
		errlist_error(y->el, y->name, line,
			      "malformed YAML: %s (%s, line %d)", p->problem,
			      p->context, (int)p->context_mark.line + 1);
	} else {
		errlist_error(y->el, y->name, line, "malformed YAML: %s",
			      p->problem ? p->problem : "unknown error");
	}
}

/*
 * LKP's literal_double_braces(): a value that starts with "{{" right
 * after "KEY:" or "- " and whitespace, up to the next "}}", is made a
 * double-quoted string, its newlines kept (YAML folds them into spaces)
 * so that every line keeps its number.  NULL when there is none.
 */
static char *
quote_templates(const char *data, size_t len, size_t *outlen)
{
	struct buf b;
	size_t i = 0, copied = 0;
	bool found = false;

	buf_init(&b);
	while (i < len) {
		size_t line_end = i, j, k;

		while (line_end < len && data[line_end] != '\n')
			line_end++;
		for (j = i; j < line_end; j++) {
			if (data[j] == '#' || data[j] == '"' || data[j] == '\'')
				break; /* a comment, or a quoted value */
			if (data[j] != ':' && data[j] != '-')
				continue;
			k = j + 1;
			while (k < len && (data[k] == ' ' || data[k] == '\t' ||
					   data[k] == '\n' || data[k] == '\r'))
				k++;
			if (k == j + 1 || k + 1 >= len || data[k] != '{' ||
			    data[k + 1] != '{')
				continue;
			for (size_t e = k + 2; e + 1 < len; e++) {
				if (data[e] != '}' || data[e + 1] != '}')
					continue;
				buf_add(&b, data + copied, k - copied);
				buf_addc(&b, '"');
				for (size_t c = k; c < e + 2; c++) {
					if (data[c] == '"' || data[c] == '\\')
						buf_addc(&b, '\\');
					buf_addc(&b, data[c]);
				}
				buf_addc(&b, '"');
				copied = e + 2;
				line_end = e + 2;
				found = true;
				break;
			}
			break;
		}
		i = line_end + 1;
		if (copied > i)
			i = copied;
	}
	if (!found) {
		buf_release(&b);
		return NULL;
	}
	buf_add(&b, data + copied, len - copied);
	*outlen = b.len;
	return buf_detach(&b);
}

struct node *
docload_yaml(const char *name, const char *data, size_t len, struct errlist *el)
{
	return docload_yaml_opt(name, data, len, NULL, el);
}

struct node *
docload_yaml_opt(const char *name, const char *data, size_t len,
		 const struct docload_options *opt, struct errlist *el)
{
	struct yload y = {.name = name, .opt = opt, .el = el};
	yaml_parser_t parser;
	yaml_event_t ev;
	bool done = false;
	struct node *n;
	size_t qlen = 0;
	char *quoted = quote_templates(data, len, &qlen);

	if (quoted != NULL) {
		data = quoted;
		len = qlen;
	}
	y.docs = node_new(NODE_SEQ, 1, 1);
	y.anchor_index = strmap_new(8);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && !y.failed) {
		int line, col;
		const char *tag, *anchor;
		bool seq;

		if (!yaml_parser_parse(&parser, &ev)) {
			yload_error(&y, &parser, data, len);
			y.failed = true;
			break;
		}
		line = (int)ev.start_mark.line + 1;
		col = (int)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_SCALAR_EVENT:
			if (!yload_count(&y, 1, line))
				break;
			n = yload_scalar(&y, &ev);
			yload_add(&y, n, (const char *)ev.data.scalar.anchor);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (!yload_count(&y, 1, line))
				break;
			seq = ev.type == YAML_SEQUENCE_START_EVENT;
			tag = (const char *)(seq ? ev.data.sequence_start.tag
						 : ev.data.mapping_start.tag);
			anchor =
				(const char
					 *)(seq ? ev.data.sequence_start.anchor
						: ev.data.mapping_start.anchor);
			if (tag != NULL &&
			    strcmp(tag, seq ? YAML_SEQ_TAG : YAML_MAP_TAG) !=
				    0) {
				char *q = str_quote(tag);

				errlist_error(el, name, line,
					      "YAML tag '%s' is not supported",
					      q);
				free(q);
				y.failed = true;
				break;
			}
			yload_push(
				&y,
				node_new(seq ? NODE_SEQ : NODE_MAP, line, col),
				line, anchor);
			break;
		case YAML_SEQUENCE_END_EVENT:
			yload_pop(&y);
			break;
		case YAML_MAPPING_END_EVENT:
			yload_pop(&y);
			break;
		case YAML_ALIAS_EVENT: {
			const char *a = (const char *)ev.data.alias.anchor;
			struct node *copy = NULL;

			size_t i;

			if (strmap_get(y.anchor_index, a, &i))
				copy = y.anchors[i].copy;
			if (copy == NULL) {
				char *q = str_quote(a);

				errlist_error(el, name, line,
					      "alias '*%s' names no anchor", q);
				free(q);
				y.failed = true;
				break;
			}
			if (!yload_count(&y, node_count(copy), line))
				break;
			n = node_copy(copy);
			n->line = line;
			y.from_alias = true;
			yload_add(&y, n, NULL);
			y.from_alias = false;
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	while (y.depth > 0)
		node_free(yframe_release(&y.stack[--y.depth]));
	free(y.stack);
	for (size_t i = 0; i < y.nanchors; i++) {
		free(y.anchors[i].name);
		node_free(y.anchors[i].copy);
	}
	free(y.anchors);
	strmap_free(y.anchor_index);
	free(quoted);
	if (y.failed) {
		node_free(y.docs);
		return NULL;
	}
	return y.docs;
}

/* ---- JSON ------------------------------------------------------------- */

struct jpos {
	int line;
	int column;
};

struct jscan {
	const char *p;
	const char *end;
	int line;
	const char *line_start;
	struct jpos *v; /* value and key starts, in document order */
	size_t n;
	size_t cap;
};

static void
jscan_ws(struct jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r')) {
		if (*s->p == '\n') {
			s->line++;
			s->line_start = s->p + 1;
		}
		s->p++;
	}
}

static void
jscan_mark(struct jscan *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = (struct jpos){s->line, (int)(s->p - s->line_start) + 1};
}

static void
jscan_string(struct jscan *s)
{
	s->p++; /* the opening quote */
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\' && s->p + 1 < s->end)
			s->p++;
		s->p++;
	}
	s->p++;
}

/* Records the start of the value at s->p and of everything inside it. */
static void
jscan_value(struct jscan *s)
{
	jscan_ws(s);
	jscan_mark(s);
	if (s->p >= s->end)
		return;
	if (*s->p == '{' || *s->p == '[') {
		char close = *s->p == '{' ? '}' : ']';

		s->p++;
		for (const char *last = NULL; s->p != last;) {
			last = s->p; /* (each turn moves on, or the scan ends) */
			jscan_ws(s);
			if (s->p >= s->end || *s->p == close) {
				s->p++;
				return;
			}
			if (close == '}') {
				jscan_mark(s); /* the key */
				jscan_string(s);
				jscan_ws(s);
				s->p++; /* ':' */
			}
			jscan_value(s);
			jscan_ws(s);
			if (s->p < s->end && *s->p == ',')
				s->p++;
		}
		return;
	}
	if (*s->p == '"') {
		jscan_string(s);
		return;
	}
	while (s->p < s->end && strchr(",]} \t\r\n", *s->p) == NULL)
		s->p++;
}

struct jconv {
	const char *name;
	struct errlist *el;
	struct jscan *scan;
	size_t next; /* the next position to hand out */
};

static struct jpos
jconv_pos(struct jconv *c)
{
	if (c->next < c->scan->n)
		return c->scan->v[c->next++];
	return (struct jpos){0, 0};
}

static struct node *
jconv_value(struct jconv *c, json_t *j, int depth, bool *ok)
{
	struct jpos pos = jconv_pos(c);
	struct node *n;
	const char *key;
	json_t *v;
	size_t i;

	if (depth > DOCLOAD_MAX_DEPTH) {
		if (*ok)
			errlist_error(c->el, c->name, pos.line,
				      "values are nested deeper than %d "
				      "levels",
				      DOCLOAD_MAX_DEPTH);
		*ok = false;
		return node_new(NODE_NULL, pos.line, pos.column);
	}
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		n = node_new(NODE_MAP, pos.line, pos.column);
		json_object_foreach(j, key, v)
		{
			struct jpos kpos = jconv_pos(c);

			node_push_pair(n, key, kpos.line,
				       jconv_value(c, v, depth + 1, ok));
		}
		return n;
	case JSON_ARRAY:
		n = node_new(NODE_SEQ, pos.line, pos.column);
		json_array_foreach(j, i, v)
			node_append(n, jconv_value(c, v, depth + 1, ok));
		return n;
	case JSON_STRING:
		n = node_new_str(json_string_value(j), json_string_length(j),
				 pos.line, pos.column);
		n->quoted = true;
		return n;
	case JSON_INTEGER:
		return node_new_int(json_integer_value(j), pos.line,
				    pos.column);
	case JSON_REAL: {
		char tmp[64];

		snprintf(tmp, sizeof tmp, "%.17g", json_real_value(j));
		n = node_new_str(tmp, strlen(tmp), pos.line, pos.column);
		n->stype = NODE_FLOAT;
		n->fval = json_real_value(j);
		return n;
	}
	case JSON_TRUE:
	case JSON_FALSE:
		n = node_new_str(json_is_true(j) ? "true" : "false",
				 json_is_true(j) ? 4 : 5, pos.line, pos.column);
		n->stype = NODE_BOOL;
		n->bval = json_is_true(j);
		return n;
	case JSON_NULL:
		break;
	}
	return node_new(NODE_NULL, pos.line, pos.column);
}

struct node *
docload_json_value(const char *name, const char *data, size_t len,
		   struct errlist *el)
{
	struct jscan scan = {
		.p = data, .end = data + len, .line = 1, .line_start = data};
	struct jconv conv = {.name = name, .el = el, .scan = &scan};
	const char *nul = memchr(data, '\0', len);
	json_error_t jerr;
	struct node *root;
	bool ok = true;
	json_t *j;

	/* jansson lets a NUL after a number or a literal through. */
	if (nul != NULL) {
		for (const char *p = data; p < nul; p++)
			if (*p == '\n') {
				scan.line++;
				scan.line_start = p + 1;
			}
		errlist_error(el, name, scan.line,
			      "a NUL byte (column %d): not JSON",
			      (int)(nul - scan.line_start) + 1);
		return NULL;
	}
	j = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
		       &jerr);
	if (j == NULL) {
		errlist_error(el, name, jerr.line > 0 ? jerr.line : 0,
			      "malformed JSON: %s (column %d)", jerr.text,
			      jerr.column);
		return NULL;
	}
	jscan_value(&scan);
	root = jconv_value(&conv, j, 1, &ok);
	json_decref(j);
	free(scan.v);
	if (!ok) {
		node_free(root);
		return NULL;
	}
	return root;
}

struct node *
docload_json(const char *name, const char *data, size_t len, struct errlist *el)
{
	struct node *root, *docs;
	bool ok = true;

	root = docload_json_value(name, data, len, el);
	if (root == NULL)
		return NULL;
	if (root->kind == NODE_SEQ) {
		for (size_t i = 0; i < root->nitems; i++) {
			if (root->items[i]->kind != NODE_MAP) {
				errlist_error(
					el, name, root->items[i]->line,
					"a JSON job file is an object, or "
					"an array of objects (one per "
					"document); element %zu is %s",
					i + 1, node_type_name(root->items[i]));
				ok = false;
			}
		}
		if (!ok) {
			node_free(root);
			return NULL;
		}
		return root;
	}
	docs = node_new(NODE_SEQ, root->line, root->column);
	node_append(docs, root);
	return docs;
}

struct node *
docload_config(const char *path, const char *const *known,
	       const struct node **map, struct errlist *el)
{
	struct node *docs, *n;
	struct buf b;

	*map = NULL;
	buf_init(&b);
	if (!buf_add_file(&b, path, 65536)) {
		errlist_error(el, path, 0, "cannot read it: %s",
			      strerror(errno));
		buf_release(&b);
		return NULL;
	}
	if (b.len > 65536) {
		errlist_error(el, path, 0,
			      "a configuration file is at most 64 KiB");
		buf_release(&b);
		return NULL;
	}
	docs = docload_yaml(path, b.data, b.len, el);
	buf_release(&b);
	if (docs == NULL)
		return NULL;
	n = docs->nitems > 0 ? docs->items[0] : NULL;
	if (n == NULL || n->kind == NODE_NULL)
		return docs;
	if (n->kind != NODE_MAP) {
		errlist_error(el, path, n->line,
			      "the configuration is a mapping of keys");
		node_free(docs);
		return NULL;
	}
	for (size_t i = 0; i < n->npairs; i++) {
		const char *k = n->pairs[i].key, *near;
		size_t j;

		for (j = 0; known[j] != NULL; j++)
			if (strcmp(known[j], k) == 0)
				break;
		if (known[j] != NULL)
			continue;
		near = str_closest(k, known);
		if (near != NULL)
			errlist_error(el, path, n->pairs[i].line,
				      "unknown key '%s' (did you mean '%s'?)",
				      k, near);
		else
			errlist_error(el, path, n->pairs[i].line,
				      "unknown key '%s'", k);
	}
	*map = n;
	return docs;
}

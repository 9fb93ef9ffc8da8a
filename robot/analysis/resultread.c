/*
 * resultread.c: result documents read from a buffer, fast.
 *
 * A document's "stats" are most of its bytes (100,000 metrics in a
 * large one), and a tree of jansson values for them costs ten times the
 * comparison they feed.  So the reader walks the buffer itself: each
 * member of "stats" goes straight into the run's array of (name, value),
 * its name interned in a struct result_names shared by every run loaded
 * (the runs of one job list their metrics in one order, so a name is
 * first looked for where the previous document had it), its number read
 * by num_read().  Every other member is small and goes to jansson
 * (json_loadb() of its bytes), and the document without "stats" is then
 * checked by result_check(), as an upload is by result_parse().  What it accepts and
 * refuses is jansson's JSON and result_parse()'s document, one for one
 * (tests/fuzz/fuzz_result.c holds the two to it).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/result.h"
#include "robot/core/name.h"
#include "robot/core/num.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct name_entry {
	const char *s; /* NUL-ended, in the arena */
	uint32_t len;
	uint32_t hash;
	unsigned stamp; /* the document that last had it */
	bool plain;     /* no '"' or '\\': its JSON string is its bytes */
};

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

struct result_names {
	struct name_entry **slots; /* open addressing; NULL when free */
	size_t cap;                /* a power of two */
	size_t count;
	struct arena_chunk *arena;
	const struct name_entry **hint; /* the previous document's order */
	size_t nhint, caphint;
	unsigned stamp; /* of the document being read */
	char *file;     /* the files of the load are read here, in turn */
	size_t filecap;
};

struct result_names *
result_names_new(void)
{
	struct result_names *t = xcalloc(1, sizeof *t);

	t->cap = 1024;
	t->slots = xcalloc(t->cap, sizeof *t->slots);
	return t;
}

void
result_names_free(struct result_names *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i]);
	while (t->arena != NULL) {
		struct arena_chunk *c = t->arena;

		t->arena = c->next;
		free(c);
	}
	free(t->slots);
	free(t->hint);
	free(t->file);
	free(t);
}

char *
result_names_file_buffer(struct result_names *t, size_t len)
{
	if (len + 1 > t->filecap) {
		free(t->file);
		t->filecap = len + 1;
		t->file = xmalloc(t->filecap);
	}
	return t->file;
}

size_t
result_names_count(const struct result_names *t)
{
	return t->count;
}

static char *
arena_copy(struct result_names *t, const char *s, size_t len)
{
	struct arena_chunk *c = t->arena;
	char *p;

	if (c == NULL || c->size - c->used < len + 1) {
		size_t size = len + 1 > 65536 ? len + 1 : 65536;

		c = xmalloc(sizeof *c + size);
		c->size = size;
		c->used = 0;
		c->next = t->arena;
		t->arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static uint32_t
hash_of(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void
names_grow(struct result_names *t)
{
	size_t cap = t->cap * 2;
	struct name_entry **slots = xcalloc(cap, sizeof *slots);

	for (size_t i = 0; i < t->cap; i++) {
		struct name_entry *e = t->slots[i];
		size_t j;

		if (e == NULL)
			continue;
		for (j = e->hash & (cap - 1); slots[j] != NULL;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = e;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

/* The entry of the name s (len bytes, not NUL-ended), made if new. */
static struct name_entry *
names_intern(struct result_names *t, const char *s, size_t len)
{
	uint32_t h = hash_of(s, len);
	size_t j;
	struct name_entry *e;

	for (j = h & (t->cap - 1); (e = t->slots[j]) != NULL;
	     j = (j + 1) & (t->cap - 1))
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return e;
	e = xmalloc(sizeof *e);
	e->s = arena_copy(t, s, len);
	e->len = (uint32_t)len;
	e->hash = h;
	e->stamp = 0;
	e->plain = memchr(s, '"', len) == NULL && memchr(s, '\\', len) == NULL;
	t->slots[j] = e;
	if (++t->count * 2 > t->cap)
		names_grow(t);
	return e;
}

/* One buffer being read. */
struct reader {
	const char *buf, *p; /* NUL-ended */
	size_t len;
	const char *where; /* the file */
	const char *doc;   /* its document's name in messages */
	struct errlist *el;
	struct result_names *names;
	char *key; /* a decoded key with escapes */
	size_t keycap;
	bool broken; /* a syntax error: the rest cannot be read */
};

/* A syntax error at p, with its line and column, as jansson words it. */
static void
syntax_error(struct reader *rd, const char *p, const char *what)
{
	int line = 1, col = 1;

	for (const char *q = rd->buf; q < p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else
			col++;
	}
	if (!rd->broken)
		errlist_error(rd->el, rd->where, line,
			      "malformed JSON: %s (column %d)", what, col);
	rd->broken = true;
}

static void
skip_ws(struct reader *rd)
{
	const char *p = rd->p;

	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	rd->p = p;
}

static bool
at_end(const struct reader *rd)
{
	return rd->p >= rd->buf + rd->len;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool
read_hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return false;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return true;
}

static void
key_add(struct reader *rd, size_t *n, const char *s, size_t len)
{
	if (*n + len + 1 > rd->keycap) {
		rd->keycap = (*n + len + 1) * 2;
		rd->key = xreallocarray(rd->key, rd->keycap, 1);
	}
	memcpy(rd->key + *n, s, len);
	*n += len;
}

/* An escape at p (after the backslash) into the key; its length, or 0
 * when it is not one. */
static size_t
read_escape(struct reader *rd, const char *p, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c = *p ? strchr(from, *p) : NULL;
	unsigned u, lo;
	char utf8[4];
	size_t len;

	if (c != NULL) {
		key_add(rd, n, &to[c - from], 1);
		return 1;
	}
	if (*p != 'u' || !read_hex4(p + 1, &u))
		return 0;
	len = 5;
	if (u >= 0xd800 && u < 0xdc00) {
		if (p[5] != '\\' || p[6] != 'u' || !read_hex4(p + 7, &lo) ||
		    lo < 0xdc00 || lo > 0xdfff)
			return 0;
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		len = 11;
	} else if ((u >= 0xdc00 && u < 0xe000) || u == 0)
		return 0; /* a lone low surrogate; \u0000 (jansson's too) */
	if (u < 0x80) {
		utf8[0] = (char)u;
		key_add(rd, n, utf8, 1);
	} else if (u < 0x800) {
		utf8[0] = (char)(0xc0 | u >> 6);
		utf8[1] = (char)(0x80 | (u & 0x3f));
		key_add(rd, n, utf8, 2);
	} else if (u < 0x10000) {
		utf8[0] = (char)(0xe0 | u >> 12);
		utf8[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		utf8[2] = (char)(0x80 | (u & 0x3f));
		key_add(rd, n, utf8, 3);
	} else {
		utf8[0] = (char)(0xf0 | u >> 18);
		utf8[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		utf8[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		utf8[3] = (char)(0x80 | (u & 0x3f));
		key_add(rd, n, utf8, 4);
	}
	return len;
}

/*
 * The string at rd->p (its opening quote): *s and *len are its bytes,
 * in the buffer when it has no escapes, else decoded into rd->key.
 * False after a syntax error.
 */
static bool
read_string(struct reader *rd, const char **s, size_t *len)
{
	const char *p = rd->p + 1, *run = p;
	bool high = false, escaped = false;
	size_t n = 0;

	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c == '"')
			break;
		if (c == '\\') {
			size_t k;

			key_add(rd, &n, run, (size_t)(p - run));
			if ((k = read_escape(rd, p + 1, &n)) == 0) {
				syntax_error(rd, p, "invalid escape");
				return false;
			}
			p += 1 + k;
			run = p;
			escaped = true;
			continue;
		}
		if (c < 0x20) {
			syntax_error(rd, p,
				     p >= rd->buf + rd->len
					     ? "premature end of input"
					     : "control character in a string");
			return false;
		}
		high |= c >= 0x80;
		p++;
	}
	if (escaped) {
		key_add(rd, &n, run, (size_t)(p - run));
		*s = rd->key;
		*len = n;
		high = true; /* escapes may have made UTF-8 */
	} else {
		*s = rd->p + 1;
		*len = (size_t)(p - *s);
	}
	if (high && !str_utf8_valid(*s, *len)) {
		syntax_error(rd, rd->p, "invalid UTF-8 in a string");
		return false;
	}
	rd->p = p + 1;
	return true;
}

/* Where the JSON value at p ends (jansson checks what it is): past
 * matching brackets and whole strings, at the ',', '}' or ']' after it,
 * or the end of the buffer. */
static const char *
value_end(const struct reader *rd, const char *p)
{
	const char *end = rd->buf + rd->len;
	size_t depth = 0;

	for (; p < end; p++) {
		switch (*p) {
		case '"':
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return end;
			break;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0)
				return p;
			depth--;
			break;
		case ',':
			if (depth == 0)
				return p;
			break;
		}
	}
	return end;
}

/* After a member or an element: true at a ',' (another follows), false
 * past the closing bracket or after a syntax error (rd->broken). */
static bool
another(struct reader *rd, char close)
{
	if (rd->broken)
		return false;
	skip_ws(rd);
	if (*rd->p == ',') {
		rd->p++;
		return true;
	}
	if (*rd->p == close)
		rd->p++;
	else
		syntax_error(rd, rd->p,
			     close == '}' ? "',' or '}' expected"
					  : "',' or ']' expected");
	return false;
}

/* The JSON value at rd->p, by jansson; NULL after a syntax error. */
static json_t *
read_value(struct reader *rd)
{
	const char *start = rd->p, *end = value_end(rd, start);
	json_error_t jerr;
	json_t *v;

	v = json_loadb(start, (size_t)(end - start),
		       JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (v == NULL) {
		syntax_error(
			rd, start + (jerr.position > 0 ? jerr.position - 1 : 0),
			jerr.text);
		return NULL;
	}
	rd->p = end;
	return v;
}

/* A metric's entry at position pos of the stats: where the previous
 * document had its name, usually; else checked and interned.  NULL
 * after saying why the name is not a metric's. */
static const struct name_entry *
stat_name(struct reader *rd, size_t pos, const char *s, size_t len)
{
	struct result_names *t = rd->names;
	const struct name_entry *e;
	const char *why;

	if (pos < t->nhint && t->hint[pos] != NULL &&
	    t->hint[pos]->len == len && memcmp(t->hint[pos]->s, s, len) == 0)
		e = t->hint[pos];
	else if ((why = name_check(NAME_METRIC, s, len)) == NULL)
		e = names_intern(t, s, len);
	else {
		char *bad = xstrndup(s, len), *q = str_quote(bad);

		errlist_error(rd->el, rd->doc, 0, "stats metric '%s' %s", q,
			      why);
		free(q);
		free(bad);
		e = NULL;
	}
	/* every place up to nhint is written, a refused name's as NULL */
	if (pos >= t->caphint) {
		t->caphint = t->caphint ? t->caphint * 2 : 1024;
		t->hint = xreallocarray(t->hint, t->caphint, sizeof *t->hint);
	}
	t->hint[pos] = e;
	return e;
}

/* A stat's value at rd->p: true with a finite number in *d; false when
 * it is not one (said, unless a syntax error stops the reading). */
static bool
stat_value(struct reader *rd, const struct name_entry *e, double *d)
{
	const char *after;
	enum num_kind k;
	json_t *v;

	if (*rd->p == '-' || (*rd->p >= '0' && *rd->p <= '9')) {
		k = num_read(rd->p, &after, d);
		if (k == NUM_BAD)
			syntax_error(rd, after, "invalid number");
		else if (k == NUM_BIG)
			syntax_error(rd, rd->p, "too big integer");
		else if (!isfinite(*d))
			syntax_error(rd, rd->p, "real number overflow");
		rd->p = after;
		if (rd->broken)
			return false;
		if (fabs(*d) > RESULT_MAX_VALUE) {
			if (e != NULL) {
				char *q = str_quote(e->s);

				errlist_error(rd->el, rd->doc, 0,
					      "stats '%s' is beyond +-%g, more "
					      "than its summaries can hold",
					      q, RESULT_MAX_VALUE);
				free(q);
			}
			return false;
		}
		return true;
	}
	if ((v = read_value(rd)) == NULL)
		return false;
	json_decref(v);
	if (e != NULL) {
		char *q = str_quote(e->s);

		errlist_error(rd->el, rd->doc, 0,
			      "stats '%s' is not a finite number", q);
		free(q);
	}
	return false;
}

/* The stats object at rd->p into r->stats (names checked and interned,
 * numbers finite); problems are the document's. */
static void
read_stats(struct reader *rd, struct result *r)
{
	struct result_names *t = rd->names;
	size_t cap = t->nhint + 16, pos;

	r->stats = xreallocarray(NULL, cap, sizeof *r->stats);
	r->nstats = 0;
	rd->p++; /* '{' */
	skip_ws(rd);
	if (*rd->p == '}') {
		rd->p++;
		t->nhint = 0;
		return;
	}
	for (pos = 0;; pos++) {
		const struct name_entry *e;
		const char *s;
		size_t len;
		double d;

		skip_ws(rd);
		if (*rd->p != '"') {
			syntax_error(rd, rd->p, "string or '}' expected");
			return;
		}
		e = pos < t->nhint ? t->hint[pos] : NULL;
		if (e != NULL && e->plain &&
		    (size_t)(rd->buf + rd->len - rd->p) > e->len + 1 &&
		    rd->p[1 + e->len] == '"' &&
		    memcmp(rd->p + 1, e->s, e->len) == 0) {
			/* the previous document's name at its place, as
			 * bytes: nothing to decode or check */
			rd->p += e->len + 2;
		} else {
			if (!read_string(rd, &s, &len))
				return;
			e = stat_name(rd, pos, s, len);
		}
		skip_ws(rd);
		if (*rd->p != ':') {
			syntax_error(rd, rd->p, "':' expected");
			return;
		}
		rd->p++;
		skip_ws(rd);
		if (stat_value(rd, e, &d) && e != NULL) {
			if (e->stamp == t->stamp) {
				syntax_error(rd, rd->p, "duplicate object key");
				return;
			}
			((struct name_entry *)e)->stamp = t->stamp;
			if (r->nstats == RESULT_MAX_METRICS) {
				errlist_error(rd->el, rd->doc, 0,
					      "the document holds more than "
					      "%d metrics",
					      RESULT_MAX_METRICS);
				r->nstats++; /* said once */
			} else if (r->nstats < RESULT_MAX_METRICS) {
				if (r->nstats == cap) {
					cap *= 2;
					r->stats =
						xreallocarray(r->stats, cap,
							      sizeof *r->stats);
				}
				r->stats[r->nstats++] =
					(struct result_stat){e->s, d};
			}
		}
		if (!another(rd, '}'))
			break;
	}
	if (rd->broken)
		return;
	t->nhint = pos + 1;
	if (r->nstats > RESULT_MAX_METRICS)
		r->nstats = RESULT_MAX_METRICS;
}

/*
 * The document at rd->p (an object): its stats read into r, the rest
 * into a jansson object; then checked.  False when it is not a good
 * document (the problems in el) or after a syntax error.
 */
static bool
read_document(struct reader *rd, struct result *r)
{
	json_t *doc = json_object();
	size_t before = rd->el->nerrors;
	bool stats_read = false, ok;

	memset(r, 0, sizeof *r);
	rd->names->stamp++;
	rd->p++; /* '{' */
	skip_ws(rd);
	if (*rd->p == '}')
		rd->p++;
	else
		for (;;) {
			const char *s;
			size_t len;
			char *key;

			skip_ws(rd);
			if (*rd->p != '"') {
				syntax_error(rd, rd->p,
					     "string or '}' expected");
				break;
			}
			if (!read_string(rd, &s, &len))
				break;
			key = xstrndup(s, len);
			skip_ws(rd);
			if (*rd->p != ':') {
				syntax_error(rd, rd->p, "':' expected");
				free(key);
				break;
			}
			rd->p++;
			skip_ws(rd);
			if (json_object_get(doc, key) != NULL ||
			    (stats_read && strcmp(key, "stats") == 0)) {
				syntax_error(rd, rd->p, "duplicate object key");
				free(key);
				break;
			}
			if (strcmp(key, "stats") == 0 && *rd->p == '{') {
				read_stats(rd, r);
				stats_read = true;
			} else {
				json_t *v = read_value(rd);

				if (v != NULL)
					json_object_set_new(doc, key, v);
			}
			free(key);
			if (!another(rd, '}'))
				break;
		}
	if (rd->broken) {
		free(r->stats);
		memset(r, 0, sizeof *r);
		json_decref(doc);
		return false;
	}
	/* The rest is checked even when a stat was bad: every problem
	 * at once. */
	ok = result_check(rd->doc, doc, stats_read, r, rd->el);
	json_decref(doc);
	if (ok && rd->el->nerrors > before) {
		result_release(r);
		ok = false;
	}
	return ok;
}

static void
append(struct result **v, size_t *n, const struct result *r)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = *r;
}

/* Not an object where a document stands: jansson reads it, and
 * result_parse() says what is wrong with it. */
static void
read_other(struct reader *rd, const char *where, struct result **v, size_t *n)
{
	json_t *j = read_value(rd);
	struct result r;

	if (j != NULL && result_parse(where, j, &r, rd->el))
		append(v, n, &r);
	json_decref(j);
}

/* The documents of the array at rd->p. */
static void
read_array(struct reader *rd, struct result **v, size_t *n)
{
	struct result r;

	rd->p++; /* '[' */
	skip_ws(rd);
	if (*rd->p == ']') {
		rd->p++;
		return;
	}
	for (size_t i = 1; !rd->broken; i++) {
		char *w = xasprintf("%s: document %zu", rd->where, i);

		rd->doc = w;
		skip_ws(rd);
		if (*rd->p != '{')
			read_other(rd, w, v, n);
		else if (read_document(rd, &r))
			append(v, n, &r);
		rd->doc = rd->where;
		free(w);
		if (!another(rd, ']'))
			break;
	}
}

bool
result_read(const char *where, const char *buf, size_t len,
	    struct result_names *names, struct result **v, size_t *n,
	    struct errlist *el)
{
	struct reader rd = {buf, buf,   len,  where, where,
			    el,  names, NULL, 0,     false};
	size_t before = el->nerrors, n0 = *n;
	struct result r;

	skip_ws(&rd);
	if (*rd.p == '{') {
		if (read_document(&rd, &r))
			append(v, n, &r);
	} else if (*rd.p == '[')
		read_array(&rd, v, n);
	else
		read_other(&rd, where, v, n);
	skip_ws(&rd);
	if (!rd.broken && !at_end(&rd))
		syntax_error(&rd, rd.p, "end of file expected");
	free(rd.key);
	/* A file that is not JSON gives no documents, as jansson would. */
	for (; rd.broken && *n > n0; (*n)--)
		result_release(&(*v)[*n - 1]);
	return el->nerrors == before;
}

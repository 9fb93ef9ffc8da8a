/*
 * perfparse.c: perf script and perf stat output folded into LKP's
 * perf-profile and perf-stat records (perfparse.h).
 *
 * A profile of a minute on two CPUs is some 100,000 samples and a
 * million lines; each sample is folded as it ends, into one hash map of
 * the rows (calltrace, children and self of each event), so that memory
 * grows with the distinct rows, not with the samples.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/perfparse.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* The longest stack folded: perf's own default is 127 frames. */
#define MAX_FRAMES 512
/* The longest metric name (NAME_METRIC_MAX) less "perf-profile.". */
#define MAX_KEY (256 - 13)

/* The next line of [*p, end) as a NUL-terminated copy in b; false at the
 * end.  A NUL inside a line ends it there. */
static bool
next_line(const char **p, const char *end, struct buf *b)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (nl == NULL)
		nl = end;
	buf_reset(b);
	buf_add(b, *p, (size_t)(nl - *p));
	*p = nl < end ? nl + 1 : nl;
	return true;
}

/* s with every byte a metric name cannot hold made '_', in place. */
static void
sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			*s = '_';
}

/* ---- perf-profile ------------------------------------------------------ */

struct row {
	char *key;
	size_t event; /* index into fold.events */
	size_t count;
	size_t seen; /* the last sample counted in it */
};

struct event {
	char *name; /* as LKP names it: "cycles-pp" */
	size_t samples;
};

struct fold {
	struct strmap *map;
	struct row *rows;
	size_t nrows;
	struct event *events;
	size_t nevents;
	size_t sample; /* serial number of the sample being folded */
	size_t cur;    /* its event */
	char *frames[MAX_FRAMES];
	size_t nframes;
	bool in_sample;
	struct buf key;
};

/*
 * LKP's name of the event perf script prints: the modifiers after the
 * last ':' are dropped ("cpu-clock:ppH" is cpu-clock), except that
 * precise cycles stay cycles-pp; a tracepoint's ':' becomes '-'.
 */
static char *
event_name(const char *text)
{
	char *s = xstrdup(text), *colon = strrchr(s, ':');
	bool pp = false;

	if (colon != NULL && colon[1] != '\0' &&
	    strspn(colon + 1, "ukhIGHpPSDWe") == strlen(colon + 1)) {
		pp = strstr(colon + 1, "pp") != NULL;
		*colon = '\0';
	}
	for (char *c = s; *c != '\0'; c++)
		if (*c == ':')
			*c = '-';
	sanitize(s);
	if (pp && strcmp(s, "cycles") == 0) {
		free(s);
		s = xstrdup("cycles-pp");
	}
	return s;
}

static size_t
event_index(struct fold *f, const char *text)
{
	char *name = event_name(text);

	for (size_t i = 0; i < f->nevents; i++)
		if (strcmp(f->events[i].name, name) == 0) {
			free(name);
			return i;
		}
	f->events = xreallocarray(f->events, f->nevents + 1, sizeof *f->events);
	f->events[f->nevents] = (struct event){name, 0};
	return f->nevents++;
}

/* Counts the current sample once in the row of key f->key. */
static void
count(struct fold *f)
{
	struct row *r;
	size_t i;

	if (f->key.len > MAX_KEY)
		return;
	if (!strmap_get(f->map, f->key.data, &i)) {
		f->rows = xreallocarray(f->rows, f->nrows + 1, sizeof *f->rows);
		f->rows[f->nrows] =
			(struct row){xstrdup(f->key.data), f->cur, 0, 0};
		i = f->nrows++;
		strmap_put(f->map, f->rows[i].key, i);
	}
	r = &f->rows[i];
	if (r->seen != f->sample) {
		r->seen = f->sample;
		r->count++;
	}
}

static void
start_key(struct fold *f, const char *kind)
{
	buf_reset(&f->key);
	buf_addf(&f->key, "%s.%s.", kind, f->events[f->cur].name);
}

/* Folds the sample read (frames[0] its leaf) and forgets it. */
static void
end_sample(struct fold *f)
{
	size_t d = f->nframes;

	if (!f->in_sample)
		return;
	f->in_sample = false;
	f->sample++;
	f->events[f->cur].samples++;
	if (d > 0) {
		start_key(f, "self");
		buf_adds(&f->key, f->frames[0]);
		count(f);
	}
	for (size_t k = 0; k < d; k++) {
		start_key(f, "children");
		buf_adds(&f->key, f->frames[k]);
		count(f);
		/* The path from the root down to frames[k], named from
		 * frames[k] up through its nearest callers. */
		start_key(f, "calltrace");
		for (size_t j = k; j < d && j < k + PERFPARSE_DEPTH; j++) {
			if (j > k)
				buf_addc(&f->key, '.');
			buf_adds(&f->key, f->frames[j]);
		}
		count(f);
	}
	for (size_t k = 0; k < d; k++)
		free(f->frames[k]);
	f->nframes = 0;
}

/* A frame line: "\tffffffff8164e80a kmem_cache_free", perhaps with
 * "+0x1a" and " ([kernel.kallsyms])" when perf script was asked for
 * them; "[unknown]" when perf has no symbol. */
static void
add_frame(struct fold *f, char *line)
{
	char *sym, *end;

	while (isspace((unsigned char)*line))
		line++;
	sym = line;
	while (*sym != '\0' && !isspace((unsigned char)*sym))
		sym++;
	while (isspace((unsigned char)*sym))
		sym++;
	end = sym + strlen(sym);
	while (end > sym && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (end > sym && end[-1] == ')') {
		char *open = strstr(sym, " (");

		if (open != NULL && (open[2] == '/' || open[2] == '['))
			*open = '\0';
	}
	if ((end = strstr(sym, "+0x")) != NULL &&
	    strspn(end + 3, "0123456789abcdef") == strlen(end + 3))
		*end = '\0';
	if (*sym == '\0')
		sym = "[unknown]";
	if (f->nframes < MAX_FRAMES) {
		f->frames[f->nframes] = xstrdup(sym);
		sanitize(f->frames[f->nframes++]);
	}
}

static int
row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->key,
		      ((const struct row *)b)->key);
}

static void
fold_release(struct fold *f)
{
	for (size_t k = 0; k < f->nframes; k++)
		free(f->frames[k]);
	for (size_t i = 0; i < f->nrows; i++)
		free(f->rows[i].key);
	for (size_t i = 0; i < f->nevents; i++)
		free(f->events[i].name);
	free(f->rows);
	free(f->events);
	strmap_free(f->map);
	buf_release(&f->key);
}

bool
perfparse_profile(const char *text, size_t len, perfparse_emit_fn emit,
		  void *arg, const char **err)
{
	const char *p = text, *end = text + len;
	struct fold f = {0};
	struct buf line;
	size_t emitted = 0;

	f.map = strmap_new(4096);
	f.sample = 1;
	buf_init(&f.key);
	buf_init(&line);
	while (next_line(&p, end, &line)) {
		char *s = line.data, *last, *tok;

		if (*s == '\0') {
			end_sample(&f);
		} else if (isspace((unsigned char)*s)) {
			/* Frames before any sample line are not a sample's. */
			if (f.in_sample)
				add_frame(&f, s);
		} else {
			end_sample(&f);
			/* "comm pid ... event:" : the event is the last
			 * field, with its colon. */
			tok = s + strlen(s);
			while (tok > s && isspace((unsigned char)tok[-1]))
				*--tok = '\0';
			last = tok;
			while (last > s && !isspace((unsigned char)last[-1]))
				last--;
			if (tok - last < 2 || tok[-1] != ':')
				continue;
			tok[-1] = '\0';
			f.cur = event_index(&f, last);
			f.in_sample = true;
		}
	}
	end_sample(&f);
	buf_release(&line);
	if (f.nrows > 0)
		qsort(f.rows, f.nrows, sizeof *f.rows, row_cmp);
	for (size_t i = 0; i < f.nrows; i++) {
		const struct row *r = &f.rows[i];
		double pct = 100.0 * (double)r->count /
			     (double)f.events[r->event].samples;
		double min = str_has_prefix(r->key, "calltrace.")
				     ? PERFPARSE_CALLTRACE_MIN
				     : PERFPARSE_FUNCTION_MIN;
		char value[32];

		if (pct < min)
			continue;
		snprintf(value, sizeof value, "%.2f", pct);
		emit(r->key, value, arg);
		emitted++;
	}
	fold_release(&f);
	if (emitted == 0) {
		*err = "no perf samples with a call chain";
		return false;
	}
	return true;
}

/* ---- perf-stat --------------------------------------------------------- */

struct counter {
	char *name;
	double total;
	double rate_sum; /* of the intervals' counts a second */
	size_t intervals;
	double last_t; /* the end of its last interval */
};

static struct counter *
counter_of(struct counter **cs, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*cs)[i].name, name) == 0)
			return &(*cs)[i];
	*cs = xreallocarray(*cs, *n + 1, sizeof **cs);
	(*cs)[*n] = (struct counter){xstrdup(name), 0, 0, 0, 0};
	return &(*cs)[(*n)++];
}

static const struct counter *
find_counter(const struct counter *cs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cs[i].name, name) == 0)
			return &cs[i];
	return NULL;
}

/* A whole field as a finite number. */
static bool
to_double(const char *s, double *v)
{
	char *end;

	if (*s == '\0' || isspace((unsigned char)*s))
		return false;
	*v = strtod(s, &end);
	return *end == '\0' && *v == *v && *v < 1e300 && *v > -1e300;
}

static void
emit_number(perfparse_emit_fn emit, void *arg, const char *key, double d)
{
	char *s = str_ruby_float(d);

	emit(key, s, arg);
	free(s);
}

/* overall.NAME = scale * a / b, when both counters are there. */
static bool
emit_ratio(const struct counter *cs, size_t n, const char *name, const char *a,
	   const char *b, double scale, perfparse_emit_fn emit, void *arg)
{
	const struct counter *ca = find_counter(cs, n, a);
	const struct counter *cb = find_counter(cs, n, b);
	char key[64];

	if (ca == NULL || cb == NULL || cb->total <= 0)
		return false;
	snprintf(key, sizeof key, "overall.%s", name);
	emit_number(emit, arg, key, scale * ca->total / cb->total);
	return true;
}

bool
perfparse_stat(const char *text, size_t len, perfparse_emit_fn emit, void *arg,
	       const char **err)
{
	const char *p = text, *end = text + len;
	struct counter *cs = NULL;
	double last_t = 0;
	size_t n = 0, emitted = 0;
	struct buf line;

	buf_init(&line);
	while (next_line(&p, end, &line)) {
		/* "1.001274921,83,,context-switches,2003459722,100.00,..." */
		char *f[5] = {NULL}, *s = line.data, *q;
		size_t nf = 0;
		double t, v;
		struct counter *c;

		while (isspace((unsigned char)*s))
			s++;
		if (*s == '#' || *s == '\0')
			continue;
		while (nf < 5) {
			f[nf++] = s;
			if ((q = strchr(s, ',')) == NULL)
				break;
			*q = '\0';
			s = q + 1;
		}
		if (nf < 4 || !to_double(f[0], &t) || t <= 0 ||
		    !to_double(f[1], &v) || v < 0 || *f[3] == '\0')
			continue; /* "<not supported>", "<not counted>" */
		sanitize(f[3]);
		if (strlen(f[3]) > 64)
			continue;
		c = counter_of(&cs, &n, f[3]);
		if (t <= c->last_t)
			continue;
		c->total += v;
		c->rate_sum += v / (t - c->last_t);
		c->intervals++;
		c->last_t = t;
		if (t > last_t)
			last_t = t;
	}
	buf_release(&line);
	for (size_t i = 0; i < n; i++) {
		char key[80];

		snprintf(key, sizeof key, "i.%s", cs[i].name);
		emit_number(emit, arg, key,
			    cs[i].rate_sum / (double)cs[i].intervals);
		snprintf(key, sizeof key, "ps.%s", cs[i].name);
		emit_number(emit, arg, key, cs[i].total / last_t);
		emitted++;
	}
	emit_ratio(cs, n, "ipc", "instructions", "cycles", 1, emit, arg);
	emit_ratio(cs, n, "cpi", "cycles", "instructions", 1, emit, arg);
	emit_ratio(cs, n, "branch-miss-rate%", "branch-misses",
		   "branch-instructions", 100, emit, arg);
	emit_ratio(cs, n, "cache-miss-rate%", "cache-misses",
		   "cache-references", 100, emit, arg);
	for (size_t i = 0; i < n; i++)
		free(cs[i].name);
	free(cs);
	if (emitted == 0) {
		*err = "no perf stat counts (perf stat -x, -I MS)";
		return false;
	}
	return true;
}

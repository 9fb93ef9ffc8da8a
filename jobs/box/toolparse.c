/*
 * toolparse.c: LKP-compatible parsers of tool output.
 *
 * Each parser walks the text line by line with a small line reader; none
 * allocates per line beyond the fields of that line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs/box/perfparse.h"
#include "jobs/box/toolparse.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

const char *const toolparse_programs[] = {
	"fsmark", "vmstat",       "iostat",    "proc-vmstat",
	"time",   "perf-profile", "perf-stat", NULL};

struct lines {
	const char *p;
	const char *end;
	char *line; /* the current line, NUL-terminated, owned */
};

static bool
next_line(struct lines *l)
{
	const char *nl;

	free(l->line);
	l->line = NULL;
	if (l->p >= l->end)
		return false;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	if (nl == NULL)
		nl = l->end;
	l->line = xstrndup(l->p, (size_t)(nl - l->p));
	/* Bytes after a NUL in a line are lost; tools write none. */
	l->p = nl < l->end ? nl + 1 : nl;
	return true;
}

/* Splits s on whitespace into at most max fields (pointers into s). */
static size_t
split(char *s, char **fields, size_t max)
{
	size_t n = 0;

	while (*s != '\0' && n < max) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		fields[n++] = s;
		while (*s != '\0' && !isspace((unsigned char)*s))
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
	return n;
}

static void
emit_double(toolparse_emit_fn emit, void *arg, const char *key, double d)
{
	char *s = str_ruby_float(d);

	emit(key, s, arg);
	free(s);
}

/* ---- fsmark ------------------------------------------------------------ */

static bool
parse_fsmark(struct lines *l, toolparse_emit_fn emit, void *arg,
	     const char **err)
{
	double fps = 0, overhead = 0;
	size_t rows = 0;
	char *f[8];

	while (next_line(l))
		if (str_has_prefix(l->line, "FSUse"))
			break;
	while (next_line(l)) {
		char *end1, *end2;
		double a, b;

		if (split(l->line, f, 8) != 5)
			continue; /* LKP warns and skips */
		a = strtod(f[3], &end1);
		b = strtod(f[4], &end2);
		if (*end1 != '\0' || *end2 != '\0')
			continue;
		fps += a;
		overhead += b;
		rows++;
	}
	if (rows == 0) {
		*err = "no fs_mark result table (the FSUse% header and rows)";
		return false;
	}
	emit_double(emit, arg, "files_per_sec", fps / rows);
	emit_double(emit, arg, "app_overhead", overhead / rows);
	return true;
}

/* ---- vmstat ------------------------------------------------------------ */

static const char *const vmstat_keys[] = {
	"procs.r",     "procs.b",     "memory.swpd",
	"memory.free", "memory.buff", "memory.cache",
	"swap.si",     "swap.so",     "io.bi",
	"io.bo",       "system.in",   "system.cs",
	"cpu.us",      "cpu.sy",      "cpu.id",
	"cpu.wa",      "cpu.st",      NULL};

/* "2015-01-11 20:18:35" as UTC seconds, or -1. */
static long long
parse_datetime(const char *date, const char *tod)
{
	struct tm tm = {0};
	char both[64];
	char *end;

	snprintf(both, sizeof both, "%s %s", date, tod);
	end = strptime(both, "%Y-%m-%d %H:%M:%S", &tm);
	if (end == NULL || *end != '\0')
		return -1;
	return (long long)timegm(&tm);
}

static bool
parse_vmstat(struct lines *l, toolparse_emit_fn emit, void *arg,
	     const char **err)
{
	size_t records = 0, nkeys = 17;
	char *f[32];

	while (next_line(l)) {
		size_t n;

		if (strpbrk(l->line, "0123456789") == NULL)
			continue;
		n = split(l->line, f, 32);
		if (n == nkeys + 2) {
			/* "... st 2015-01-11 20:18:35": time last */
			long long t = parse_datetime(f[n - 2], f[n - 1]);
			char tb[32];

			if (t < 0)
				continue;
			snprintf(tb, sizeof tb, "%lld", t);
			emit("time", tb, arg);
			for (size_t i = 0; i < nkeys; i++)
				emit(vmstat_keys[i], f[i], arg);
			records++;
		} else if (n == nkeys || n == nkeys - 1) {
			/* no timestamp; procps 3.3.8 has no st column */
			if (!isdigit((unsigned char)f[0][0]))
				continue;
			for (size_t i = 0; i < n; i++)
				emit(vmstat_keys[i], f[i], arg);
			records++;
		} else if (n == nkeys + 1) {
			/* an old vmstat with the time first */
			emit("time", f[0], arg);
			for (size_t i = 1; i < n; i++)
				emit(vmstat_keys[i - 1], f[i], arg);
			records++;
		}
	}
	if (records == 0) {
		*err = "no vmstat samples";
		return false;
	}
	return true;
}

/* ---- iostat ------------------------------------------------------------ */

/* "2013-04-02T13:58:40+0800" as UTC seconds, or -1. */
static long long
parse_iso_time(const char *s)
{
	struct tm tm = {0};
	int sign, hh, mm;
	char *end;

	if (strlen(s) != 24)
		return -1;
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL || (*end != '+' && *end != '-') ||
	    !isdigit((unsigned char)end[1]))
		return -1;
	sign = *end == '-' ? -1 : 1;
	if (sscanf(end + 1, "%2d%2d", &hh, &mm) != 2)
		return -1;
	return (long long)timegm(&tm) - sign * (hh * 3600 + mm * 60);
}

/* LKP's normalize_key: drop the first '%'. */
static char *
iostat_key(const char *prefix, const char *title)
{
	char *k = xasprintf("%s.%s", prefix, title), *pct = strchr(k, '%');

	if (pct != NULL)
		memmove(pct, pct + 1, strlen(pct));
	return k;
}

static bool
parse_iostat(struct lines *l, toolparse_emit_fn emit, void *arg,
	     const char **err)
{
	size_t records = 0;
	char *f[64], *t[64];

	while (next_line(l)) {
		char *line = l->line;
		size_t nt, n;
		long long when;

		if (strspn(line, "0123456789T:+-") == 24 && line[24] == '\0' &&
		    (when = parse_iso_time(line)) >= 0) {
			char tb[32];

			snprintf(tb, sizeof tb, "%lld", when);
			emit("time", tb, arg);
		} else if (str_has_prefix(line, "avg-cpu:")) {
			char *titles = xstrdup(line);

			nt = split(titles, t, 64);
			if (!next_line(l)) {
				free(titles);
				break;
			}
			n = split(l->line, f, 64);
			for (size_t i = 0; i < n && i + 1 < nt; i++) {
				char *k = iostat_key("cpu", t[i + 1]);

				emit(k, f[i], arg);
				free(k);
			}
			records++;
			free(titles);
		} else if (str_has_prefix(line, "Device:") ||
			   str_has_prefix(line, "Device ")) {
			char *titles = xstrdup(line);

			nt = split(titles, t, 64);
			while (next_line(l)) {
				n = split(l->line, f, 64);
				if (n != nt)
					break;
				for (size_t i = 1; i < n; i++) {
					char *k = iostat_key(f[0], t[i]);

					emit(k, f[i], arg);
					free(k);
				}
				records++;
			}
			free(titles);
		}
	}
	if (records == 0) {
		*err = "no iostat samples";
		return false;
	}
	return true;
}

/* ---- proc-vmstat -------------------------------------------------------- */

static bool
parse_proc_vmstat(struct lines *l, toolparse_emit_fn emit, void *arg,
		  const char **err)
{
	size_t records = 0;
	char *f[4];

	while (next_line(l)) {
		size_t n = split(l->line, f, 4);
		size_t klen;

		if (n < 2)
			continue;
		klen = strlen(f[0]);
		if (klen > 0 && f[0][klen - 1] == ':')
			f[0][klen - 1] = '\0';
		emit(f[0], f[1], arg);
		records++;
	}
	if (records == 0) {
		*err = "no /proc/vmstat lines";
		return false;
	}
	return true;
}

/* ---- GNU time -v -------------------------------------------------------- */

static bool
parse_time(struct lines *l, toolparse_emit_fn emit, void *arg, const char **err)
{
	size_t records = 0;

	while (next_line(l)) {
		char *sep = strstr(l->line, ": "), *val, *key;
		struct buf b;

		if (strstr(l->line, "Command being timed: ") != NULL ||
		    sep == NULL)
			continue;
		*sep = '\0';
		val = sep + 2;
		/* LKP: strip leading blanks and " (...)" groups, blanks to
		 * '_', lower case. */
		buf_init(&b);
		for (const char *p = l->line; *p != '\0'; p++) {
			if (b.len == 0 && isspace((unsigned char)*p))
				continue;
			if (p[0] == ' ' && p[1] == '(' && strchr(p, ')')) {
				p = strchr(p, ')');
				continue;
			}
			if (isspace((unsigned char)*p)) {
				if (b.len > 0 && b.data[b.len - 1] != '_')
					buf_addc(&b, '_');
				continue;
			}
			buf_addc(&b, (char)tolower((unsigned char)*p));
		}
		key = buf_detach(&b);
		if (strcmp(key, "elapsed_time") == 0) {
			double total = 0;

			for (char *part = val, *colon;; part = colon + 1) {
				total = total * 60 + strtod(part, NULL);
				if ((colon = strchr(part, ':')) == NULL)
					break;
			}
			emit_double(emit, arg, key, total);
		} else if (strcmp(key, "percent_of_cpu_this_job_got") == 0) {
			size_t vl = strlen(val);

			if (vl > 0 && val[vl - 1] == '%')
				val[vl - 1] = '\0';
			emit(key, strcmp(val, "?") == 0 ? "0" : val, arg);
		} else {
			emit(key, val, arg);
		}
		free(key);
		records++;
	}
	if (records == 0) {
		*err = "no GNU time -v figures";
		return false;
	}
	return true;
}

bool
toolparse_run(const char *program, const char *text, size_t len,
	      toolparse_emit_fn emit, void *arg, const char **err)
{
	struct lines l = {text, text + len, NULL};
	bool ok;

	if (strcmp(program, "fsmark") == 0)
		ok = parse_fsmark(&l, emit, arg, err);
	else if (strcmp(program, "vmstat") == 0)
		ok = parse_vmstat(&l, emit, arg, err);
	else if (strcmp(program, "iostat") == 0)
		ok = parse_iostat(&l, emit, arg, err);
	else if (strcmp(program, "proc-vmstat") == 0)
		ok = parse_proc_vmstat(&l, emit, arg, err);
	else if (strcmp(program, "time") == 0)
		ok = parse_time(&l, emit, arg, err);
	else if (strcmp(program, "perf-profile") == 0)
		ok = perfparse_profile(text, len, emit, arg, err);
	else if (strcmp(program, "perf-stat") == 0)
		ok = perfparse_stat(text, len, emit, arg, err);
	else {
		*err = "unknown program (fsmark, vmstat, iostat, proc-vmstat, "
		       "time, perf-profile or perf-stat)";
		ok = false;
	}
	free(l.line);
	return ok;
}

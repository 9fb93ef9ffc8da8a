/*
 * errlist.c: collected user-input problems.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/errlist.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

void
errlist_init(struct errlist *el)
{
	memset(el, 0, sizeof *el);
}

void
errlist_release(struct errlist *el)
{
	for (size_t i = 0; i < el->n; i++) {
		free(el->v[i].file);
		free(el->v[i].message);
	}
	free(el->v);
	memset(el, 0, sizeof *el);
}

static void
errlist_push(struct errlist *el, enum errlist_severity sev, char *file,
	     int line, char *message)
{
	for (size_t i = 0; i < el->n; i++) {
		struct errlist_entry *e = &el->v[i];

		if (e->severity == sev && e->line == line &&
		    strcmp(e->file, file) == 0 &&
		    strcmp(e->message, message) == 0) {
			free(file);
			free(message);
			return;
		}
	}
	if (el->n >= ERRLIST_MAX) {
		free(file);
		free(message);
		el->more++;
		if (sev == ERRLIST_ERROR) {
			el->more_errors++;
			el->nerrors++;
		} else {
			el->nwarnings++;
		}
		return;
	}
	if (el->n == el->cap) {
		el->cap = el->cap ? el->cap * 2 : 8;
		el->v = xreallocarray(el->v, el->cap, sizeof *el->v);
	}
	el->v[el->n++] = (struct errlist_entry){sev, file, line, message};
	if (sev == ERRLIST_ERROR)
		el->nerrors++;
	else
		el->nwarnings++;
}

void
errlist_add(struct errlist *el, enum errlist_severity sev, const char *file,
	    int line, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	errlist_push(el, sev, xstrdup(file ? file : "-"), line, msg);
}

void
errlist_append(struct errlist *dst, struct errlist *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct errlist_entry *e = &src->v[i];

		errlist_push(dst, e->severity, e->file, e->line, e->message);
	}
	dst->more += src->more;
	dst->more_errors += src->more_errors;
	dst->nerrors += src->more_errors;
	dst->nwarnings += src->more - src->more_errors;
	free(src->v);
	memset(src, 0, sizeof *src);
}

void
errlist_sort(struct errlist *el)
{
	/* Insertion sort: stable, and the lists are short. */
	for (size_t i = 1; i < el->n; i++) {
		struct errlist_entry e = el->v[i];
		size_t j = i;

		while (j > 0) {
			struct errlist_entry *p = &el->v[j - 1];
			int c = strcmp(p->file, e.file);

			if (c < 0 || (c == 0 && p->line <= e.line))
				break;
			el->v[j] = *p;
			j--;
		}
		el->v[j] = e;
	}
}

char *
errlist_format(const struct errlist_entry *e)
{
	const char *tag = e->severity == ERRLIST_WARNING ? "warning: " : "";

	if (e->line > 0)
		return xasprintf("%s:%d: %s%s", e->file, e->line, tag,
				 e->message);
	return xasprintf("%s: %s%s", e->file, tag, e->message);
}

void
errlist_print(const struct errlist *el, FILE *fp)
{
	for (size_t i = 0; i < el->n; i++) {
		char *s = errlist_format(&el->v[i]);

		fprintf(fp, "%s\n", s);
		free(s);
	}
	if (el->more > 0)
		fprintf(fp, "and %zu more problem%s\n", el->more,
			el->more == 1 ? "" : "s");
}

json_t *
errlist_to_json(const struct errlist *el, bool with_warnings)
{
	json_t *a = json_array();
	size_t n;

	for (size_t i = 0; i < el->n; i++) {
		if (el->v[i].severity == ERRLIST_WARNING && !with_warnings)
			continue;
		char *s = errlist_format(&el->v[i]);

		json_array_append_new(a, rjson_string_lossy(s, strlen(s)));
		free(s);
	}
	n = with_warnings ? el->more : el->more_errors;
	if (n > 0) {
		char *s = xasprintf("and %zu more %s%s", n,
				    with_warnings ? "problem" : "error",
				    n == 1 ? "" : "s");

		json_array_append_new(a, json_string(s));
		free(s);
	}
	return a;
}

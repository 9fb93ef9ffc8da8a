/*
 * xmalloc.h: allocation that cannot fail.  Out of memory is fatal (STYLE.md
 * rule 15): all state lives in PostgreSQL, so a restart is the recovery.
 * Every function here either returns usable memory or exits.
 */
#ifndef ROBOT_XMALLOC_H
#define ROBOT_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/* Resizes ptr to nmemb * size bytes, checking the product for overflow. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* Copies at most n bytes of s and terminates the copy. */
char *xstrndup(const char *s, size_t n);
/* Returns a new string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

#endif

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

/*
 * For a short process that reads a lot and exits (robot compare): every
 * block, however large, comes from malloc's one heap, which is never
 * trimmed and, where the kernel allows (transparent huge pages in
 * "madvise" mode), is backed by 2 MiB pages.  Each 4 KiB page touched
 * for the first time is a page fault, and the big blocks of a comparison
 * (the files read, each run's values) were fresh mappings that cost one
 * each: 2,400 faults at 10,000 metrics x 10 runs a side, and a fault is
 * dear on a virtual machine (docs/analysis.md, "Comparison speed").
 * Best effort, once, before the big allocations: under a sanitizer's or
 * another malloc it does nothing.
 */
void xmalloc_bulk_process(void);

#endif

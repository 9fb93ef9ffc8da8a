/*
 * xmalloc.c: allocation wrappers that exit on failure.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		fatalx("out of memory allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		fatalx("out of memory allocating %zu * %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		fatalx("allocation of %zu * %zu bytes overflows", nmemb, size);
	if (nmemb * size == 0)
		nmemb = size = 1;
	if ((p = realloc(ptr, nmemb * size)) == NULL)
		fatalx("out of memory allocating %zu * %zu bytes", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		fatalx("out of memory formatting a string");
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Huge pages are 2 MiB on x86-64 and arm64's default. */
#define BULK_HUGE_PAGE ((uintptr_t)2 << 20)
/* The heap grows this much past what is asked (address space only: a
 * page costs nothing until it is touched), so that one madvise() covers
 * a comparison of 100,000 metrics. */
#define BULK_TOP_PAD (256 << 20)

/*
 * A 2 MiB range of the heap gets huge pages only if no page of it was
 * touched before the madvise(): malloc writes a header at the start of
 * its free top, so the top must end up below the first boundary that is
 * advised.  A block from the heap's end to near a boundary past it (too
 * big to come from anything freed, so from the top: the heap grows by it
 * and the pad), grown in place to just below the boundary, puts it there;
 * it is kept, never touched.
 */
void
xmalloc_bulk_process(void)
{
	static void *filler;
	uintptr_t end, start, top, at;
	void *p;

	if (filler != NULL)
		return;
	/* Blocks below 32 MiB (malloc's most) from the heap; never trimmed.
	 * A malloc that is not glibc's says no, and nothing else is done. */
	if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 ||
	    mallopt(M_TRIM_THRESHOLD, INT32_MAX) != 1 ||
	    mallopt(M_TOP_PAD, BULK_TOP_PAD) != 1)
		return;
	end = (uintptr_t)sbrk(0);
	if (end == UINTPTR_MAX) /* (void *)-1: no brk heap */
		return;
	start = (end + 2 * BULK_HUGE_PAGE) & ~(BULK_HUGE_PAGE - 1);
	p = xmalloc(start - end - 4096);
	at = (uintptr_t)p;
	filler = realloc(p, start - at - 64);
	if (filler == NULL)
		filler = p;
	top = (uintptr_t)sbrk(0);
	/* Only where the block came from the heap's top, as glibc's does. */
	if ((uintptr_t)filler == at && at < end && start < top &&
	    top - start <= (uintptr_t)BULK_TOP_PAD + (BULK_HUGE_PAGE << 5))
		(void)madvise((void *)start, top - start, MADV_HUGEPAGE);
}

/*
 * buf.h: a growable byte buffer, always NUL-terminated after its data so
 * that it can be used as a C string.  Embedded by value: buf_init() and
 * buf_release().
 */
#ifndef ROBOT_BUF_H
#define ROBOT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data; /* len bytes and a NUL; never NULL after buf_init() */
	size_t len; /* bytes of data, without the NUL */
	size_t cap; /* bytes allocated */
};

void buf_init(struct buf *b);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * Appends the file at path, at most max + 1 bytes (so that more than max
 * shows as b->len > max).  Returns false with errno set when it cannot be
 * opened or read; what was read stays in b.
 */
bool buf_add_file(struct buf *b, const char *path, size_t max)
	__attribute__((warn_unused_result));
/*
 * Returns the data, which the caller now owns.  b is left released:
 * buf_init() it again to reuse it.
 */
char *buf_detach(struct buf *b);

#endif

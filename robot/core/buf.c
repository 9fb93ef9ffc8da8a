/*
 * buf.c: growable byte buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "robot/core/buf.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

void
buf_init(struct buf *b)
{
	b->cap = 64;
	b->len = 0;
	b->data = xmalloc(b->cap);
	b->data[0] = '\0';
}

void
buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

static void
buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	while (b->cap < need)
		b->cap *= 2;
	b->data = xreallocarray(b->data, b->cap, 1);
}

void
buf_add(struct buf *b, const void *data, size_t len)
{
	buf_grow(b, len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *
buf_detach(struct buf *b)
{
	char *s = b->data;

	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

bool
buf_add_file(struct buf *b, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	size_t start = b->len;
	char chunk[65536];
	ssize_t n;

	if (fd == -1)
		return false;
	while (b->len - start <= max) {
		size_t want = max + 1 - (b->len - start);

		n = read(fd, chunk, want < sizeof chunk ? want : sizeof chunk);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			errno = e;
			return false;
		}
		buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	return true;
}

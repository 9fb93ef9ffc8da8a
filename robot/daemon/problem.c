/*
 * problem.c: the daemon's failures as values.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "robot/core/xmalloc.h"
#include "robot/daemon/problem.h"
#include "robot/core/banned.h"

struct problem *
problem_new(enum problem_kind kind, json_t *details, const char *fmt, ...)
{
	struct problem *p = xcalloc(1, sizeof *p);
	va_list ap;

	va_start(ap, fmt);
	p->message = xvasprintf(fmt, ap);
	va_end(ap);
	p->kind = kind;
	p->details = details ? details : json_array();
	return p;
}

void
problem_free(struct problem *p)
{
	if (p == NULL)
		return;
	free(p->message);
	json_decref(p->details);
	free(p);
}

/*
 * fsm.c: a state machine's states, checked and logged (fsm.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/banned.h"

/* The name of state s, or "?". */
static const char *
fsm_name(const struct fsm *f, int s)
{
	return s >= 0 && s < f->n && f->names[s] != NULL ? f->names[s] : "?";
}

int
fsm_check(const struct fsm *f, int s)
{
	if (s < 0 || s >= f->n || f->names[s] == NULL)
		fatalx("%s: %d is no state", f->what, s);
	return s;
}

void
fsm_log(const struct fsm *f, int from, int to, const char *fmt, ...)
{
	char label[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(label, sizeof label, fmt, ap);
	va_end(ap);
	log_debug("%s: %s -> %s", label, fsm_name(f, from), fsm_name(f, to));
}

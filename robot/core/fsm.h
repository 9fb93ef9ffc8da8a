/*
 * fsm.h: the one rule for a state machine's state (STYLE.md: every
 * async object an explicit state machine).  Its states' names are a
 * table in enum order; its state is written by FSM_SET() alone, in its
 * one setter (and its constructor's initializer), which refuses a state
 * that is not one (fatalx) and logs each change at debug level, as
 * memcached's conn_set_state() does.  tests/check_layers.py holds every
 * state enum to it.
 */
#ifndef ROBOT_FSM_H
#define ROBOT_FSM_H

#include "robot/core/log.h"

struct fsm {
	const char *what;         /* for fatalx: "db connection" */
	const char *const *names; /* by state; a hole is no state */
	int n;
};

/* A struct fsm of the names table names (an array, in enum order, last
 * its state last), checked at build time to name every state. */
#define FSM(what, names, last)                                                 \
	{(what), (names), (int)(sizeof(names) / sizeof((names)[0]))};          \
	_Static_assert(sizeof(names) / sizeof((names)[0]) ==                   \
			       (size_t)(last) + 1,                             \
		       "a name for each state of " what)

/* s, when it is a state of f; fatalx otherwise. */
int fsm_check(const struct fsm *f, int s);
/* Logs "LABEL: from -> to" at debug level, LABEL from fmt. */
void fsm_log(const struct fsm *f, int from, int to, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Sets the state lvalue of f to the state to, saying so at debug level
 * when it changes, the printf-style arguments that follow naming what
 * changed ("db connection %d", c->index). */
#define FSM_SET(f, lvalue, to, ...)                                            \
	do {                                                                   \
		int fsm_from_ = (int)(lvalue), fsm_to_ = fsm_check((f), (to)); \
		if (fsm_from_ != fsm_to_ &&                                    \
		    log_get_level() >= LOG_LEVEL_DEBUG)                        \
			fsm_log((f), fsm_from_, fsm_to_, __VA_ARGS__);         \
		(lvalue) = (to);                                               \
	} while (0)

#endif

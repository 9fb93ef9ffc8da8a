/*
 * perfparse.h: perf's output folded into LKP's perf-profile and
 * perf-stat records (toolparse.h's "perf-profile" and "perf-stat").
 *
 * perf-profile reads "perf script -F event,ip,sym" (a sample is a line
 * naming its event, then one line a frame, the leaf first, then a blank
 * line) and gives, in percent of the event's samples:
 *
 *   calltrace.EV.F.C1.C2   samples whose stack, from its root, runs
 *                          down to F through its callers C1, C2 (F and
 *                          at most four callers named, as LKP)
 *   children.EV.F          samples with F anywhere on the stack
 *   self.EV.F              samples taken in F itself
 *
 * EV is the event as LKP names it: cycles-pp for cycles:pp, else the
 * event without its modifiers (cpu-clock where the box has no hardware
 * counters).  Rows under PERFPARSE_CALLTRACE_MIN (calltrace) or
 * PERFPARSE_FUNCTION_MIN (children, self) percent are left out.
 *
 * perf-stat reads "perf stat -a -x, -I MS" and gives, for each counter
 * the kernel gave:
 *
 *   i.E        the mean over the intervals of E a second
 *   ps.E       E's total over the seconds recorded
 *   overall.R  ratios of the totals: ipc, cpi, branch-miss-rate%,
 *              cache-miss-rate%, where both counters are there
 */
#ifndef ROBOT_PERFPARSE_H
#define ROBOT_PERFPARSE_H

#include <stdbool.h>
#include <stddef.h>

/* As toolparse_emit_fn: one "key: value" record. */
typedef void (*perfparse_emit_fn)(const char *key, const char *value,
				  void *arg);

#define PERFPARSE_CALLTRACE_MIN 0.5
#define PERFPARSE_FUNCTION_MIN  0.05
/* Functions named in a calltrace row: the function and its callers. */
#define PERFPARSE_DEPTH 5

bool perfparse_profile(const char *text, size_t len, perfparse_emit_fn emit,
		       void *arg, const char **err);
bool perfparse_stat(const char *text, size_t len, perfparse_emit_fn emit,
		    void *arg, const char **err);

#endif

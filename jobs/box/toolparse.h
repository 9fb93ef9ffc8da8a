/*
 * toolparse.h: parsers of benchmark and monitor output, as LKP's
 * stats/<program> scripts: each turns a tool's text into "key: value"
 * records, without the "<program>." prefix LKP adds later.
 *
 *   fsmark       fs_mark's table: files_per_sec and app_overhead, the
 *                average over the -L rows
 *   vmstat       vmstat (with or without --timestamp): procs.r, ...
 *   iostat       iostat -x: cpu.* and <dev>.<column>; the old sysstat
 *                header "Device:" as LKP, and the newer "Device" too
 *   proc-vmstat  /proc/vmstat snapshots after "time: N" lines
 *   time         GNU time -v: user_time, elapsed_time, ...
 *   perf-profile perf script -F event,ip,sym: calltrace.*, children.*,
 *                self.* (perfparse.h)
 *   perf-stat    perf stat -a -x, -I MS: i.*, ps.*, overall.*
 *
 * Values are passed on as text, as LKP prints them.
 */
#ifndef ROBOT_TOOLPARSE_H
#define ROBOT_TOOLPARSE_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*toolparse_emit_fn)(const char *key, const char *value,
				  void *arg);

/* The programs known, NULL-terminated. */
extern const char *const toolparse_programs[];

/*
 * Parses len bytes of program's output (it may hold any bytes), calling
 * emit for each record in order.  Returns false with a message in *err
 * (static text) when the program is unknown or the output holds nothing
 * to report.  Lines that do not fit are skipped, as LKP skips them.
 */
bool toolparse_run(const char *program, const char *text, size_t len,
		   toolparse_emit_fn emit, void *arg, const char **err);

#endif

/*
 * tap.h: a small test harness whose output is TAP, which meson counts per
 * test case (protocol 'tap').  A test is a function; CHECK macros record
 * failures with file and line and let the test go on, so one run shows
 * every broken expectation.
 */
#ifndef ROBOT_TAP_H
#define ROBOT_TAP_H

#include <stdbool.h>
#include <stddef.h>

struct tap_case {
	const char *name;
	void (*fn)(void);
};

#define TAP_CASE(fn)                                                           \
	{                                                                      \
#fn, fn                                                        \
	}

/* Runs every case (the array ends with a NULL name); returns exit status. */
int tap_run(const struct tap_case *cases);

bool tap_check(bool ok, const char *file, int line, const char *expr);
bool tap_check_str(const char *got, const char *want, const char *file,
		   int line, const char *expr);
bool tap_check_int(long long got, long long want, const char *file, int line,
		   const char *expr);
bool tap_check_dbl(double got, double want, double tol, const char *file,
		   int line, const char *expr);
/* Prints a diagnostic line ("# ...") into the TAP stream. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(e) tap_check((e), __FILE__, __LINE__, #e)
#define CHECK_STR(got, want)                                                   \
	tap_check_str((got), (want), __FILE__, __LINE__, #got)
#define CHECK_INT(got, want)                                                   \
	tap_check_int((long long)(got), (long long)(want), __FILE__, __LINE__, \
		      #got)
#define CHECK_DBL(got, want, tol)                                              \
	tap_check_dbl((got), (want), (tol), __FILE__, __LINE__, #got)

/* Paths of the source tree and ../shared, from the build. */
const char *tap_source_dir(void);
const char *tap_shared_dir(void);
/* Reads a whole file (NUL-terminated); NULL if it cannot. *len may be NULL. */
char *tap_read_file(const char *path, size_t *len);

#endif

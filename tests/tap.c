/*
 * tap.c: the test harness.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int tap_failures;

bool
tap_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok) {
		printf("# %s:%d: check failed: %s\n", file, line, expr);
		tap_failures++;
	}
	return ok;
}

bool
tap_check_str(const char *got, const char *want, const char *file, int line,
	      const char *expr)
{
	if (got == NULL || want == NULL ? got != want
					: strcmp(got, want) != 0) {
		printf("# %s:%d: %s\n#   got:  %s%s%s\n#   want: %s%s%s\n",
		       file, line, expr, got ? "'" : "", got ? got : "NULL",
		       got ? "'" : "", want ? "'" : "", want ? want : "NULL",
		       want ? "'" : "");
		tap_failures++;
		return false;
	}
	return true;
}

bool
tap_check_int(long long got, long long want, const char *file, int line,
	      const char *expr)
{
	if (got != want) {
		printf("# %s:%d: %s\n#   got:  %lld\n#   want: %lld\n", file,
		       line, expr, got, want);
		tap_failures++;
		return false;
	}
	return true;
}

bool
tap_check_dbl(double got, double want, double tol, const char *file, int line,
	      const char *expr)
{
	if (!(fabs(got - want) <= tol)) {
		printf("# %s:%d: %s\n#   got:  %.17g\n#   want: %.17g (+-%g)\n",
		       file, line, expr, got, want, tol);
		tap_failures++;
		return false;
	}
	return true;
}

void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int
tap_run(const struct tap_case *cases)
{
	int n = 0, failed = 0;

	while (cases[n].name != NULL)
		n++;
	printf("1..%d\n", n);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		int before = tap_failures;

		cases[i].fn();
		if (tap_failures > before) {
			printf("not ok %d - %s\n", i + 1, cases[i].name);
			failed++;
		} else {
			printf("ok %d - %s\n", i + 1, cases[i].name);
		}
		fflush(stdout);
	}
	return failed == 0 ? 0 : 1;
}

const char *
tap_source_dir(void)
{
	const char *e = getenv("ROBOT_SOURCE_DIR");

	return e ? e : TAP_SOURCE_DIR;
}

const char *
tap_shared_dir(void)
{
	const char *e = getenv("ROBOT_SHARED_DIR");

	return e ? e : TAP_SHARED_DIR;
}

char *
tap_read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *data = NULL;
	size_t cap = 0, n = 0, r;

	if (fp == NULL)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			data = realloc(data, cap);
			if (data == NULL)
				abort();
		}
		r = fread(data + n, 1, cap - n - 1, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	data[n] = '\0';
	if (len != NULL)
		*len = n;
	return data;
}

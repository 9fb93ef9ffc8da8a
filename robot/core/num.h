/*
 * num.h: JSON numbers, read and written fast, for the documents and
 * comparisons that hold hundreds of thousands of them (a result file of
 * 100,000 metrics; a comparison's --json): strtod() and printf("%g") are
 * each several hundred nanoseconds a number, longer than comparing one.
 */
#ifndef ROBOT_NUM_H
#define ROBOT_NUM_H

#include <stddef.h>

enum num_kind {
	NUM_BAD,  /* not a JSON number */
	NUM_INT,  /* an integer literal that fits in 64 bits */
	NUM_REAL, /* with a fraction or an exponent */
	NUM_BIG,  /* an integer literal beyond 64 bits (jansson refuses it) */
};

/*
 * Reads the JSON number at p (RFC 8259's grammar exactly: no '+', no
 * leading zeros, no "1." or ".5", no NaN), which must be followed by a
 * byte that is not part of a number (the NUL ending a buffer will do).
 * *end is set past it.  *out is the value as jansson gives it: an
 * integer literal as (double)(int64_t), so "-0" is 0; a real correctly
 * rounded (strtod), which may be infinite when it overflows.
 */
enum num_kind num_read(const char *p, const char **end, double *out);

/* The longest text num_format() writes, with its NUL. */
#define NUM_FORMAT_MAX 32

/*
 * Writes the finite d with digits (1 to 17) significant digits as
 * printf("%.*g") does, the way jansson writes reals: ".0" added to an
 * integral value, no '+' or leading zeros in an exponent ("1.5e8",
 * "1e-5").  Returns the length.
 */
size_t num_format(char *buf, double d, int digits);

/* d rounded to digits significant digits: the double num_format()'s text
 * reads back as (d itself when not finite). */
double num_round(double d, int digits);

/* The longest text num_pct() writes of a change, with its NUL. */
#define NUM_PCT_MAX 32

/*
 * A change in percent as robot writes it everywhere, in pages, mails,
 * logs and the CLI: one decimal and its sign ("-10.3%", "+0.4%"), or
 * unknown ("?", "-") when pct is not finite.  Into buf; returns buf.
 */
const char *num_pct(char *buf, size_t len, double pct, const char *unknown);

#endif

/*
 * num.c: JSON numbers.
 *
 * Reading takes Clinger's fast path: a decimal of at most 19 digits whose
 * integer fits in 53 bits and whose power of ten is at most 22 is exactly
 * that integer times or divided by an exact power of ten, one correctly
 * rounded operation.  Anything else goes to strtod(), once the grammar is
 * checked (strtod would take more than JSON: "0x10", "inf").
 *
 * Writing scales the value to an integer of the digits wanted in long
 * double (64 bits of mantissa, powers of ten exact up to 10^27) and
 * rounds it to the nearest, as printf does from the exact value; values
 * too near halfway for 64 bits to tell, or beyond the exact powers, go to
 * snprintf().
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/banned.h"

static const double pow10_exact[] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

enum num_kind
num_read(const char *p, const char **end, double *out)
{
	const char *start = p;
	uint64_t m = 0;
	int digits = 0, exp10 = 0, e = 0;
	bool neg = false, real = false, exact = true;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (*p == '0')
		p++;
	else if (is_digit(*p)) {
		for (; is_digit(*p); p++) {
			if (digits < 19)
				m = m * 10 + (uint64_t)(*p - '0');
			else
				exact = false;
			digits += digits > 0 || *p != '0';
		}
	} else {
		*end = p;
		return NUM_BAD;
	}
	if (!exact) {
		/* Past 19 digits: an integer beyond 64 bits, or a real
		 * whose digits strtod() rounds. */
		exp10 = digits - 19;
	}
	if (*p == '.') {
		real = true;
		p++;
		if (!is_digit(*p)) {
			*end = p;
			return NUM_BAD;
		}
		for (; is_digit(*p); p++) {
			if (m == 0 && *p == '0') {
				exp10--;
				continue;
			}
			if (digits < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				digits++;
				exp10--;
			} else
				exact = false;
		}
	}
	if (*p == 'e' || *p == 'E') {
		bool eneg = false;

		real = true;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!is_digit(*p)) {
			*end = p;
			return NUM_BAD;
		}
		for (; is_digit(*p); p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		exp10 += eneg ? -e : e;
	}
	*end = p;
	if (!real) {
		if (!exact || m > (uint64_t)INT64_MAX + neg)
			return NUM_BIG;
		/* jansson's json_integer: -0 is 0. */
		*out = m == 0 ? 0 : neg ? -(double)m : (double)m;
		return NUM_INT;
	}
	if (exact && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
		double d = (double)m;

		d = exp10 < 0 ? d / pow10_exact[-exp10]
			      : d * pow10_exact[exp10];
		*out = neg ? -d : d;
		return NUM_REAL;
	}
	*out = strtod(start, NULL);
	return NUM_REAL;
}

/* jansson's touches to printf's "%g": ".0" on an integral value, no '+'
 * or leading zeros in the exponent. */
static size_t
num_tidy(char *buf, size_t n)
{
	char *e = memchr(buf, 'e', n);

	if (e != NULL) {
		char *s = e + 1, *z;

		if (*s == '-')
			s++;
		z = s;
		while (*z == '+' || *z == '0')
			z++;
		memmove(s, z, (size_t)(buf + n - z) + 1);
		n -= (size_t)(z - s);
	} else if (memchr(buf, '.', n) == NULL) {
		buf[n++] = '.';
		buf[n++] = '0';
		buf[n] = '\0';
	}
	return n;
}

/* printf's way, for the values the fast way does not reach. */
static size_t
num_format_slow(char *buf, double d, int digits)
{
	int n = snprintf(buf, NUM_FORMAT_MAX - 2, "%.*g", digits, d);

	return num_tidy(buf, (size_t)n);
}

static const uint64_t pow10_int[] = {1ULL,
				     10ULL,
				     100ULL,
				     1000ULL,
				     10000ULL,
				     100000ULL,
				     1000000ULL,
				     10000000ULL,
				     100000000ULL,
				     1000000000ULL,
				     10000000000ULL,
				     100000000000ULL,
				     1000000000000ULL};

/* floor(log10(a)) of a normal a > 0, or one off near a power of ten (the
 * caller's rounding corrects it): from the binary exponent, without
 * log10(). */
static int
decimal_exponent(double a)
{
	uint64_t bits;
	double x;
	int e2, e;

	memcpy(&bits, &a, sizeof bits);
	e2 = (int)((bits >> 52) & 0x7ff) - 1023; /* 2^e2 <= a < 2^(e2+1) */
	/* log10(2) = 0.30103: between the floors of e2's and e2 + 1's */
	x = ((double)e2 + 0.5) * 0.30102999566398120;
	e = (int)x;
	return e - (x < e); /* floor() without the call */
}

/*
 * The digits significant digits of a > 0 as an integer: a is about
 * r / 10^k, and r has digits digits (10^e10 <= a, rounded, < 10^(e10+1)).
 * False where the fast way cannot tell (printf's way decides).
 */
static bool
num_digits(double a, int digits, uint64_t *r, int *e10, int *k)
{
	static const long double p10[] = {
		1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
		1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
		1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
		1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
	long double s;

	if (digits < 1 || digits > 12 || !(a >= 1e-15 && a < 1e30))
		return false;
	*e10 = decimal_exponent(a);
	for (int tries = 0;; tries++) {
		*k = digits - 1 - *e10; /* a * 10^k has digits digits */
		if (*k > 27 || *k < -27 || tries > 2)
			return false;
		s = *k >= 0 ? (long double)a * p10[*k]
			    : (long double)a / p10[-*k];
		*r = (uint64_t)rintl(s);
		/* Too near halfway for 64 bits to tell: printf decides. */
		if (fabsl(fabsl(s - (long double)*r) - 0.5L) < 1e-6L)
			return false;
		if (*r >= pow10_int[digits])
			(*e10)++;
		else if (*r < pow10_int[digits - 1])
			(*e10)--;
		else
			return true;
	}
}

size_t
num_format(char *buf, double d, int digits)
{
	char dig[24];
	double a = fabs(d);
	uint64_t r;
	int e10, k, nd;
	size_t n = 0;

	if (a == 0)
		return num_format_slow(buf, d, 1);
	if (!num_digits(a, digits, &r, &e10, &k))
		return num_format_slow(buf, d, digits);
	/* r's digits, then the trailing zeros %g drops. */
	for (nd = digits; nd > 0; nd--) {
		dig[nd - 1] = (char)('0' + r % 10);
		r /= 10;
	}
	nd = digits;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (d < 0)
		buf[n++] = '-';
	if (e10 < -4 || e10 >= digits) {
		buf[n++] = dig[0];
		if (nd > 1) {
			buf[n++] = '.';
			memcpy(buf + n, dig + 1, (size_t)nd - 1);
			n += (size_t)nd - 1;
		}
		n += (size_t)snprintf(buf + n, 8, "e%d", e10);
		return n;
	}
	if (e10 < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (int i = -1; i > e10; i--)
			buf[n++] = '0';
		memcpy(buf + n, dig, (size_t)nd);
		n += (size_t)nd;
	} else {
		for (int i = 0; i <= e10; i++)
			buf[n++] = i < nd ? dig[i] : '0';
		buf[n++] = '.';
		if (nd > e10 + 1) {
			memcpy(buf + n, dig + e10 + 1, (size_t)(nd - e10 - 1));
			n += (size_t)(nd - e10 - 1);
		} else
			buf[n++] = '0';
	}
	buf[n] = '\0';
	return n;
}

double
num_round(double d, int digits)
{
	static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
				     1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
				     1e18, 1e19, 1e20, 1e21, 1e22};
	char buf[NUM_FORMAT_MAX];
	double a = fabs(d), v;
	uint64_t r;
	int e10, k;

	if (!isfinite(d) || a == 0)
		return d;
	/* r and 10^|k| are exact doubles (r < 10^12, 10^22 at most), so
	 * one division or product rounds as strtod() rounds r * 10^-k. */
	if (num_digits(a, digits, &r, &e10, &k) && k >= -22 && k <= 22) {
		v = k >= 0 ? (double)r / p10[k] : (double)r * p10[-k];
		return d < 0 ? -v : v;
	}
	num_format_slow(buf, d, digits);
	return strtod(buf, NULL);
}

const char *
num_pct(char *buf, size_t len, double pct, const char *unknown)
{
	if (isfinite(pct))
		snprintf(buf, len, "%+.1f%%", pct);
	else
		snprintf(buf, len, "%s", unknown);
	return buf;
}

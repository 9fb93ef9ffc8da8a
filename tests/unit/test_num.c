/*
 * test_num.c: JSON numbers read and written fast, checked against
 * strtod() and printf() on hundreds of thousands of values.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "tap.h"

/* A deterministic generator (xorshift64*). */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void
test_read_matches_strtod(void)
{
	size_t bad = 0;

	for (int i = 0; i < 300000; i++) {
		char text[96];
		int form = i % 6;
		unsigned long long a = rng() >> (rng() % 64);
		unsigned long long b = rng() >> (rng() % 64);
		int e = (int)(rng() % 40);
		const char *sign = rng() % 4 == 0 ? "-" : "";
		const char *end;
		double got, want;
		enum num_kind k;

		if (form == 0)
			snprintf(text, sizeof text, "%s%llu", sign,
				 a % 1000000000000ULL);
		else if (form == 1)
			snprintf(text, sizeof text, "%s%llu.%llu", sign, a, b);
		else if (form == 2)
			snprintf(text, sizeof text, "%s%llue%d", sign, a, e);
		else if (form == 3)
			snprintf(text, sizeof text, "%s%llu.%llue%d", sign, a,
				 b, e);
		else if (form == 4)
			snprintf(text, sizeof text, "%s0.%06llu", sign,
				 b % 1000000);
		else
			snprintf(text, sizeof text, "%s%llu.%llue-%d", sign, a,
				 b, e * 8);
		k = num_read(text, &end, &got);
		want = strtod(text, NULL);
		if (k == NUM_INT && want == 0)
			want = 0; /* jansson's -0 integer is 0 */
		if ((k != NUM_INT && k != NUM_REAL) || *end != '\0' ||
		    memcmp(&got, &want, sizeof got) != 0) {
			if (bad++ < 5)
				tap_diag("'%s': %.17g, strtod %.17g", text, got,
					 want);
		}
	}
	CHECK_INT(bad, 0);
}

static void
test_read_refuses_what_json_refuses(void)
{
	static const char *const bad[] = {
		"01",  "1.",       ".5", "+1",  "-",    "1e", "1e+",
		"NaN", "Infinity", "-x", "--1", "1.e5", ""};
	const char *end;
	double d;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		enum num_kind k = num_read(bad[i], &end, &d);

		/* "01" reads as 0 and stops at '1': the caller's next byte
		 * is then not a separator, a syntax error there. */
		if (!CHECK(k == NUM_BAD || *end != '\0'))
			tap_diag("'%s' was read as a number", bad[i]);
	}
	CHECK(num_read("0x10", &end, &d) == NUM_INT && *end == 'x');
}

static void
test_read_integers_as_jansson(void)
{
	const char *end;
	double d = 1;

	CHECK(num_read("-0", &end, &d) == NUM_INT);
	CHECK(d == 0 && !signbit(d));
	CHECK(num_read("9223372036854775807", &end, &d) == NUM_INT);
	CHECK(d == 9223372036854775807.0);
	CHECK(num_read("-9223372036854775808", &end, &d) == NUM_INT);
	CHECK(num_read("9223372036854775808", &end, &d) == NUM_BIG);
	CHECK(num_read("123456789012345678901", &end, &d) == NUM_BIG);
	CHECK(num_read("123456789012345678901.5", &end, &d) == NUM_REAL);
	CHECK(d == 123456789012345678901.5);
	CHECK(num_read("1e400", &end, &d) == NUM_REAL && isinf(d));
	CHECK(num_read("1e-400", &end, &d) == NUM_REAL && d == 0);
	CHECK(num_read("-0.0", &end, &d) == NUM_REAL && signbit(d));
}

/* printf's "%.*g" with jansson's touches, the reference. */
static void
reference(char *buf, double d, int digits)
{
	char tmp[64], *e;
	size_t n;

	snprintf(tmp, sizeof tmp, "%.*g", digits, d);
	e = strchr(tmp, 'e');
	if (e != NULL) {
		char *s = e + 1, *z;

		if (*s == '-')
			s++;
		z = s;
		while (*z == '+' || *z == '0')
			z++;
		memmove(s, z, strlen(z) + 1);
	} else if (strchr(tmp, '.') == NULL)
		strncat(tmp, ".0", sizeof tmp - strlen(tmp) - 1);
	n = strlen(tmp);
	memcpy(buf, tmp, n + 1);
}

/* The i-th value to try: on even i any double of any magnitude, on odd i
 * a measurement (a few digits, some exactly halfway).  False for a
 * double that is not finite. */
static bool
some_value(int i, double *d)
{
	uint64_t bits = rng();

	if (i % 2 == 0) {
		memcpy(d, &bits, sizeof *d);
		return isfinite(*d);
	}
	*d = (double)(bits % 100000000000ULL) / pow(10, (double)(rng() % 16)) *
	     (rng() % 5 == 0 ? -1 : 1);
	return true;
}

static void
test_format_matches_printf(void)
{
	size_t bad = 0;

	for (int i = 0; i < 400000; i++) {
		char got[NUM_FORMAT_MAX], want[64];
		int digits = i % 3 == 0 ? 6 : i % 3 == 1 ? 10 : 12;
		double d;

		if (!some_value(i, &d))
			continue;
		num_format(got, d, digits);
		reference(want, d, digits);
		if (strcmp(got, want) != 0 && bad++ < 5)
			tap_diag("%.17g at %d digits: '%s', printf '%s'", d,
				 digits, got, want);
	}
	CHECK_INT(bad, 0);
}

/* num_round() is the double num_format()'s text reads back as, for any
 * double and for measurements, exactly halfway ones among them. */
static void
test_round_reads_back(void)
{
	size_t bad = 0;

	for (int i = 0; i < 400000; i++) {
		char text[NUM_FORMAT_MAX];
		int digits = i % 3 == 0 ? 6 : i % 3 == 1 ? 10 : 12;
		double d, want, got;

		if (!some_value(i, &d))
			continue;
		/* a mean of a measurement: an ulp off its decimal */
		if (i % 2 == 1 && rng() % 2 == 0)
			d = nextafter(d, rng() % 2 ? INFINITY : -INFINITY);
		text[num_format(text, d, digits)] = '\0';
		want = strtod(text, NULL);
		got = num_round(d, digits);
		if (memcmp(&got, &want, sizeof got) != 0 && bad++ < 5)
			tap_diag("%.17g at %d digits: %.17g, read back %.17g",
				 d, digits, got, want);
	}
	CHECK_INT(bad, 0);
	CHECK(isnan(num_round(NAN, 10)));
	CHECK(isinf(num_round(-INFINITY, 10)));
	CHECK(signbit(num_round(-0.0, 10)));
	CHECK(num_round(10.084999999999999, 10) == 10.085);
}

static void
test_format_edges(void)
{
	char b[NUM_FORMAT_MAX];

	num_format(b, 0, 10);
	CHECK_STR(b, "0.0");
	num_format(b, -0.0, 10);
	CHECK_STR(b, "-0.0");
	num_format(b, 1.5e8, 10);
	CHECK_STR(b, "150000000.0");
	num_format(b, 1.5e9, 10);
	CHECK_STR(b, "1500000000.0");
	num_format(b, 1.5e10, 10); /* %g's exponent from the 11th digit */
	CHECK_STR(b, "1.5e10");
	num_format(b, 1.5e11, 10);
	CHECK_STR(b, "1.5e11");
	num_format(b, 0.0001, 10);
	CHECK_STR(b, "0.0001");
	num_format(b, 0.00001234, 10);
	CHECK_STR(b, "1.234e-5");
	num_format(b, 9.99999999996, 10);
	CHECK_STR(b, "10.0");
	num_format(b, 1234567890.5, 10); /* halfway: to even */
	CHECK_STR(b, "1234567890.0");
	num_format(b, 1234567891.5, 10);
	CHECK_STR(b, "1234567892.0");
	num_format(b, -2.5, 1);
	CHECK_STR(b, "-2.0");
	num_format(b, 1e300, 10);
	CHECK_STR(b, "1e300");
	num_format(b, 1.0 / 3, 17);
	CHECK_STR(b, "0.33333333333333331");
}

/* A change as every page, mail and log writes it. */
static void
test_pct(void)
{
	char b[NUM_PCT_MAX];

	CHECK_STR(num_pct(b, sizeof b, -10.349, "?"), "-10.3%");
	CHECK_STR(num_pct(b, sizeof b, 0.04, "?"), "+0.0%");
	CHECK_STR(num_pct(b, sizeof b, 1234.56, "?"), "+1234.6%");
	CHECK_STR(num_pct(b, sizeof b, NAN, "?"), "?");
	CHECK_STR(num_pct(b, sizeof b, INFINITY, "-"), "-");
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_read_matches_strtod),
		TAP_CASE(test_read_refuses_what_json_refuses),
		TAP_CASE(test_read_integers_as_jansson),
		TAP_CASE(test_format_matches_printf),
		TAP_CASE(test_round_reads_back),
		TAP_CASE(test_format_edges),
		TAP_CASE(test_pct),
		{NULL, NULL}};

	return tap_run(cases);
}

/*
 * test_bisectstep.c: what a midpoint's two comparisons make of it, and
 * which commit git's listing makes the next midpoint (bad input too).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/bisectstep.h"
#include "tap.h"

#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define C "cccccccccccccccccccccccccccccccccccccccc"
#define D "dddddddddddddddddddddddddddddddddddddddd"
#define P "0123456789012345678901234567890123456789"

static struct bisect_side
side(const char *verdict, double change)
{
	struct bisect_side s = {"regression", verdict, change, 3};

	return s;
}

static enum bisect_class
classify(struct bisect_side g, struct bisect_side d)
{
	char why[256];
	enum bisect_class c =
		bisect_classify(&g, &d, "regression", why, sizeof why);

	tap_diag("%s", why);
	CHECK(why[0] != '\0');
	return c;
}

static void
test_classify(void)
{
	/* Regressed from good, not to bad: like bad. */
	CHECK_INT(classify(side("regression", -10), side("unchanged", 0.3)),
		  BISECT_BAD);
	CHECK_INT(classify(side("regression", -10), side("inconclusive", -1)),
		  BISECT_BAD);
	/* Bad regressed from it: like good. */
	CHECK_INT(classify(side("unchanged", -0.5), side("regression", -9)),
		  BISECT_GOOD);
	CHECK_INT(classify(side("improvement", 3), side("regression", -12)),
		  BISECT_GOOD);
	/* The change in two steps: the nearer end. */
	CHECK_INT(classify(side("regression", -7), side("regression", -3)),
		  BISECT_BAD);
	CHECK_INT(classify(side("regression", -3), side("regression", -7)),
		  BISECT_GOOD);
	/* No regression either way: the end it is shown unchanged from. */
	CHECK_INT(classify(side("unchanged", 0), side("inconclusive", -5)),
		  BISECT_GOOD);
	CHECK_INT(classify(side("inconclusive", -5), side("unchanged", 0)),
		  BISECT_BAD);
	/* Too noisy either way: unsure (more runs); like both: skipped. */
	CHECK_INT(classify(side("inconclusive", -5), side("inconclusive", -5)),
		  BISECT_UNSURE);
	CHECK_INT(classify(side("improvement", 2), side("inconclusive", -5)),
		  BISECT_UNSURE);
	CHECK_INT(classify(side("unchanged", 0), side("unchanged", 0)),
		  BISECT_SKIP);
}

static void
test_classify_failed(void)
{
	struct bisect_side g = {"failed", NULL, NAN, 0};
	struct bisect_side d = side("regression", -10);
	struct bisect_side none = {"unchanged", NULL, NAN, 3};
	char why[128];

	CHECK_INT(bisect_classify(&g, &d, "regression", why, sizeof why),
		  BISECT_SKIP);
	CHECK(strstr(why, "no run") != NULL);
	CHECK_INT(bisect_classify(&none, &d, "regression", why, sizeof why),
		  BISECT_SKIP);
	CHECK(strstr(why, "not measured") != NULL);
	CHECK_STR(bisect_class_name(BISECT_GOOD), "good");
	CHECK_STR(bisect_class_name(BISECT_SKIP), "skip");
	CHECK_STR(bisect_class_name(BISECT_UNSURE), "unsure");
}

static void
test_pick(void)
{
	struct bisect_pick p;
	const char *skip[] = {C};
	const char *out = C " " P " (dist=2)\n" D " " C " (dist=1)\n" B " " D
			    " (HEAD -> main, dist=0)\n";

	CHECK(bisect_pick(out, B, NULL, 0, &p));
	CHECK_INT(p.next, BISECT_MID);
	CHECK_STR(p.commit, C);
	CHECK_INT((long long)p.candidates, 3);
	free(p.left);
	/* A skipped commit is passed over for the next best. */
	CHECK(bisect_pick(out, B, skip, 1, &p));
	CHECK_INT(p.next, BISECT_MID);
	CHECK_STR(p.commit, D);
	free(p.left);
}

static void
test_pick_first_bad(void)
{
	struct bisect_pick p;
	const char *skip[] = {C, D};
	const char *one = B " " P " (HEAD -> main, dist=0)\n";
	const char *root = B " (dist=0)\n";
	const char *out = C " " P " (dist=1)\n" D " " C " (dist=1)\n" B " " D
			    " (dist=0)\n";

	CHECK(bisect_pick(one, B, NULL, 0, &p));
	CHECK_INT(p.next, BISECT_FIRST_BAD);
	CHECK_STR(p.parent, P);
	free(p.left);
	CHECK(bisect_pick(root, B, NULL, 0, &p));
	CHECK_INT(p.next, BISECT_FIRST_BAD);
	CHECK_STR(p.parent, "");
	free(p.left);
	/* Every other commit skipped: the first bad one is among them. */
	CHECK(bisect_pick(out, B, skip, 2, &p));
	CHECK_INT(p.next, BISECT_ALL_SKIPPED);
	CHECK_STR(p.left, "cccccccccc, dddddddddd or bbbbbbbbbb");
	free(p.left);
	CHECK(bisect_pick("", B, NULL, 0, &p));
	CHECK_INT(p.next, BISECT_NONE);
	free(p.left);
}

static void
test_pick_bad_input(void)
{
	struct bisect_pick p;

	CHECK(!bisect_pick("fatal: bad revision\n", B, NULL, 0, &p));
	CHECK(!bisect_pick(A "\n", B, NULL, 0, &p)); /* no dist */
	CHECK(!bisect_pick("abc (dist=1)\n", B, NULL, 0, &p));
	CHECK(!bisect_pick(A "x (dist=1)\n", B, NULL, 0, &p));
}

/* The ends' three rounds: good about 100, bad about 92 (-8%). */
static const struct bisect_round ends[3] = {
	{100, NAN, 92}, {101, NAN, 91.5}, {99.5, NAN, 92.5}};

/* A step's rounds of the good end, the midpoint (about mid) and the bad
 * end, n of them, +-1% (a fixed pattern). */
static size_t
rounds_of(struct bisect_round *r, size_t n, double mid)
{
	static const double e[] = {0.4, -0.6, 0.9, -0.3, 0.1, -0.8, 0.5};

	for (size_t i = 0; i < n; i++)
		r[i] = (struct bisect_round){100 * (1 + e[i % 7] / 100),
					     mid * (1 - e[(i + 3) % 7] / 100),
					     92 * (1 + e[(i + 5) % 7] / 100)};
	return n;
}

static enum bisect_class
tested(const struct bisect_round *r, size_t n, bool confirm, double pv,
       double pdf, bool at_cap, struct bisect_test *t)
{
	char why[512];

	bisect_test(r, n, ends, 3, confirm, pv, pdf, at_cap, t, why,
		    sizeof why);
	tap_diag("%s", why);
	CHECK(why[0] != '\0');
	return t->verdict;
}

/* A midpoint like one end, with the series' noise known: decided in two
 * rounds, the ends' change measured; with its noise not yet known on
 * enough degrees of freedom, not decided but at the most runs. */
static void
test_sprt_mid(void)
{
	struct bisect_round r[8];
	struct bisect_test t;

	/* a run +-1%: a round's difference's variance 0.0002 */
	CHECK_INT(
		tested(r, rounds_of(r, 2, 92.3), false, 0.0002, 30, false, &t),
		BISECT_BAD);
	CHECK(t.llr >= BISECT_LLR);
	CHECK_DBL(t.change_pct, -8, 0.6);
	CHECK_DBL(t.position, 1, 0.15);
	CHECK_INT(t.used, 2);
	CHECK_INT(t.dropped, 0);
	CHECK(t.logs);
	CHECK_INT(
		tested(r, rounds_of(r, 2, 99.8), false, 0.0002, 30, false, &t),
		BISECT_GOOD);
	CHECK(t.llr <= -BISECT_LLR);
	CHECK_DBL(t.position, 0, 0.15);
	/* No history: one round leaves the noise known on too few degrees
	 * of freedom (the ends' two and the step's none)... */
	CHECK_INT(tested(r, rounds_of(r, 1, 92.3), false, 0, 0, false, &t),
		  BISECT_UNSURE);
	/* ... unless it is at the most runs: the likelier end. */
	CHECK_INT(tested(r, rounds_of(r, 1, 92.3), false, 0, 0, true, &t),
		  BISECT_BAD);
	/* Three rounds know it on four: decided. */
	CHECK_INT(tested(r, rounds_of(r, 3, 92.3), false, 0, 0, false, &t),
		  BISECT_BAD);
	/* One round 18% of the way, the history's noise 1%: the midpoint's
	 * own noise unseen (BISECT_UNSEEN), not decided; a second round 27%
	 * of the way beyond bad shows it noisier than its history (its own
	 * noise, too few degrees of freedom: not yet); one like bad with
	 * the ends 93% apart, decided all the same. */
	rounds_of(r, 1, 100 * (1 - 0.08 * 0.18));
	CHECK_INT(tested(r, 1, false, 0.0002, 30, false, &t), BISECT_UNSURE);
	CHECK(t.llr < 0);
	r[1] = (struct bisect_round){100, 100 * (1 - 0.08 * 1.27), 92};
	CHECK_INT(tested(r, 2, false, 0.0002, 30, false, &t), BISECT_UNSURE);
	CHECK(t.noisier);
	{
		static const struct bisect_round far[3] = {
			{100, NAN, 7}, {101, NAN, 7.1}, {99, NAN, 6.9}};
		char why[512];

		r[0] = (struct bisect_round){100, 7.2, 7};
		bisect_test(r, 1, far, 3, false, 0.0002, 30, false, &t, why,
			    sizeof why);
		tap_diag("%s", why);
		CHECK_INT(t.verdict, BISECT_BAD);
	}
}

/* A run 30% off in one round leaves that round out, and the step is
 * decided on the others; a midpoint between the ends goes to the nearer
 * one and says so. */
static void
test_sprt_outlier_and_between(void)
{
	struct bisect_round r[8];
	struct bisect_test t;
	char why[512];

	rounds_of(r, 4, 99.8);
	r[1].good *= 0.7;
	CHECK_INT(tested(r, 4, false, 0.0002, 30, false, &t), BISECT_GOOD);
	CHECK_INT(t.dropped, 1);
	CHECK_INT(t.used, 3);
	rounds_of(r, 4, 99.8);
	r[2].mid *= 0.7; /* far below both ends */
	CHECK_INT(tested(r, 4, false, 0.0002, 30, false, &t), BISECT_GOOD);
	CHECK_INT(t.dropped, 1);
	/* 30% of the way from good to bad */
	rounds_of(r, 6, 100 * pow(0.92, 0.3));
	bisect_test(r, 6, ends, 3, false, 0.0002, 30, false, &t, why,
		    sizeof why);
	tap_diag("%s", why);
	CHECK_INT(t.verdict, BISECT_GOOD);
	CHECK_DBL(t.position, 0.3, 0.15);
	CHECK(strstr(why, "between the two, nearer good") != NULL);
}

/* A confirm step: its commit like its parent, or changed as the ends
 * did; rounds without the midpoint, or no ends, cannot be read. */
static void
test_sprt_confirm(void)
{
	struct bisect_round r[4];
	struct bisect_test t;
	char why[512];

	for (size_t i = 0; i < 3; i++)
		r[i] = (struct bisect_round){100 + (double)i / 2,
					     92.2 - (double)i / 3, NAN};
	CHECK_INT(tested(r, 3, true, 0.0002, 30, false, &t), BISECT_BAD);
	for (size_t i = 0; i < 3; i++)
		r[i].mid = 100.2 - (double)i / 3;
	CHECK_INT(tested(r, 3, true, 0.0002, 30, false, &t), BISECT_GOOD);
	r[0].mid = r[1].mid = r[2].mid = NAN;
	CHECK_INT(tested(r, 3, true, 0.0002, 30, false, &t), BISECT_UNSURE);
	CHECK_INT(t.used, 0);
	bisect_test(r, 3, NULL, 0, true, 0.0002, 30, false, &t, why,
		    sizeof why);
	CHECK_INT(t.verdict, BISECT_UNSURE);
	CHECK_STR(why, "the ends were never measured together");
}

/* A change of a metric that can be zero or negative is read on its
 * values, not their logs. */
static void
test_sprt_values(void)
{
	static const struct bisect_round e[3] = {
		{0, NAN, -8}, {0.5, NAN, -8.2}, {-0.3, NAN, -7.9}};
	struct bisect_round r[3] = {
		{0.1, -8.1, -8}, {-0.2, -7.8, -7.9}, {0.3, -8.3, -8.2}};
	struct bisect_test t;
	char why[512];

	bisect_test(r, 3, e, 3, false, 0.1, 30, false, &t, why, sizeof why);
	tap_diag("%s", why);
	CHECK(!t.logs);
	CHECK_INT(t.verdict, BISECT_BAD);
	CHECK_DBL(t.change_pct, -8, 0.3);
}

/* A step whose commits are all far noisier than the series' history
 * (the quickstart scenario: good commits 15% apart, a history of the bad
 * ones' 1%): its rounds are not outliers to leave out but noise, read by
 * the guard; the midpoint like good is decided on its own noise. */
static void
test_sprt_noisier_not_outliers(void)
{
	static const double e[6] = {0.15, -0.12, 0.1, -0.16, 0.13, -0.09};
	struct bisect_round r[6], far[6];
	struct bisect_test t;
	char why[512];

	for (size_t i = 0; i < 6; i++) {
		far[i] = (struct bisect_round){100 * exp(e[(i + 2) % 6]), NAN,
					       7 * exp(0.01 * e[i])};
		r[i] = (struct bisect_round){100 * exp(e[i]),
					     100 * exp(e[(i + 3) % 6]),
					     7 * exp(0.01 * e[(i + 1) % 6])};
	}
	bisect_test(r, 6, far, 6, false, 0.0002, 30, false, &t, why,
		    sizeof why);
	tap_diag("%s", why);
	CHECK_INT((int)t.dropped, 0);
	CHECK(t.noisier);
	CHECK_INT(t.verdict, BISECT_GOOD);
	CHECK_DBL(t.change_pct, -93, 1.5);
}

/* A scattered midpoint (test_robotd_bisect.sh's "noisy midpoint": a bad
 * commit whose first runs lie 9% above and 3% below the bad end, on a
 * series of 0.7% noise): the run just beyond the bad end is no outlier
 * to leave out, whereupon the two near good decided "like good" (CI,
 * b7ef558); with it, the step is unsure, on its own noise, and more runs
 * come.  A run beyond an end by more than the ends' change still is. */
static void
test_sprt_scattered(void)
{
	static const struct bisect_round e[3] = {
		{100, NAN, 90.5}, {100.8, NAN, 89.7}, {99.5, NAN, 90.2}};
	static const double mids[3] = {99, 87, 99};
	struct bisect_round r[3];
	struct bisect_test t;
	char why[512];

	for (size_t i = 0; i < 3; i++)
		r[i] = (struct bisect_round){100 + 0.3 * (double)i, mids[i],
					     90 - 0.2 * (double)i};
	bisect_test(r, 3, e, 3, false, 0.00005, 20, false, &t, why, sizeof why);
	tap_diag("%s", why);
	CHECK_INT((int)t.dropped, 0);
	CHECK_INT(t.verdict, BISECT_UNSURE);
	CHECK(t.noisier);
	r[1].mid = 70; /* 20% beyond the bad end: an outlier */
	bisect_test(r, 3, e, 3, false, 0.00005, 20, false, &t, why, sizeof why);
	tap_diag("%s", why);
	CHECK_INT((int)t.dropped, 1);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_classify),
		TAP_CASE(test_classify_failed),
		TAP_CASE(test_pick),
		TAP_CASE(test_pick_first_bad),
		TAP_CASE(test_pick_bad_input),
		TAP_CASE(test_sprt_mid),
		TAP_CASE(test_sprt_outlier_and_between),
		TAP_CASE(test_sprt_confirm),
		TAP_CASE(test_sprt_values),
		TAP_CASE(test_sprt_noisier_not_outliers),
		TAP_CASE(test_sprt_scattered),
		{NULL, NULL}};

	return tap_run(cases);
}

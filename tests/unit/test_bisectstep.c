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

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_classify),       TAP_CASE(test_classify_failed),
		TAP_CASE(test_pick),           TAP_CASE(test_pick_first_bad),
		TAP_CASE(test_pick_bad_input), {NULL, NULL}};

	return tap_run(cases);
}

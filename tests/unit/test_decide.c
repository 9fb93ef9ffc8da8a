/*
 * test_decide.c: comparisons from columns of values, and what the
 * daemon decides of them: final, or more runs (doubling to the cap).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/decide.h"
#include "tap.h"

/* n values around mean, spread by +-noise (a fixed pattern). */
static double *
values(double mean, double noise, size_t n)
{
	static const double pattern[] = {0.3,  -0.8, 1.0,  -0.1, 0.6,
					 -1.0, 0.2,  -0.5, 0.9,  -0.6};
	double *v = calloc(n, sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = mean * (1 + noise * pattern[i % 10]);
	return v;
}

/* Compares a KPI (fsmark.files_per_sec, higher is better) and a monitor
 * metric, n runs a side, head's KPI at base * (1 + shift). */
static struct comparison *
compare(double shift, double noise, size_t n, double monitor_shift)
{
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	struct comparison_side bs = {"a", n, 0, 0}, hs = {"b", n, 0, 0};
	double *kb = values(1000, noise, n),
	       *kh = values(1000 * (1 + shift), noise, n);
	double *mb = values(50000, 0.01, n),
	       *mh = values(50000 * (1 + monitor_shift), 0.01, n);
	struct comparison_column cols[] = {
		{"fsmark.files_per_sec", kb, n, kh, n},
		{"proc-vmstat.pgfault", mb, n, mh, n},
	};
	struct comparison *c;

	compare_options_init(&opt);
	c = comparison_of_columns("fsmark/x/lab", &bs, &hs, cols, 2, &opt, dt,
				  "fsmark.");
	free(kb);
	free(kh);
	free(mb);
	free(mh);
	direction_table_free(dt);
	return c;
}

static void
test_regression_is_final(void)
{
	struct comparison *c = compare(-0.10, 0.01, 5, 0);
	struct decision d;

	CHECK_INT(c->nmetrics, 2);
	CHECK(c->metrics[0].kpi);
	CHECK(!c->metrics[1].kpi);
	decide(c, 5, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_REGRESSION);
	CHECK_STR(d.kpi, "fsmark.files_per_sec");
	comparison_free(c);
}

static void
test_unchanged_is_final(void)
{
	struct comparison *c = compare(0, 0.005, 5, 0);
	struct decision d;

	decide(c, 5, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_UNCHANGED);
	comparison_free(c);
}

/* A 5% move under 8% noise with 3 runs cannot be told: more runs,
 * doubling, up to the cap; at the cap the verdict is final. */
static void
test_inconclusive_asks_for_more(void)
{
	struct comparison *c = compare(-0.05, 0.08, 3, 0);
	struct decision d;

	CHECK_INT(c->metrics[0].r.verdict, COMPARE_INCONCLUSIVE);
	CHECK(!c->metrics[0].r.within_floor); /* -5%: not below the floor */
	decide(c, 3, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 5);
	decide(c, 5, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 8);
	decide(c, 8, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 10);
	decide(c, 10, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_INCONCLUSIVE);
	comparison_free(c);
}

/* The planned looks, and the false-alarm budget spent across them: the
 * shares of one plan add up to the whole, whatever the plan; the first
 * look gets DECIDE_FIRST_SHARE of it (the early answer), the next few
 * little. */
static void
test_looks_spend_the_budget(void)
{
	int plan[16], n = 0, runs = 3;
	double sum = 0;

	CHECK_INT(decide_next_look(1, 14), 3);
	CHECK_INT(decide_next_look(3, 14), 5);
	CHECK_INT(decide_next_look(4, 14), 5);
	CHECK_INT(decide_next_look(8, 14), 12);
	CHECK_INT(decide_next_look(12, 14), 14);
	CHECK_INT(decide_next_look(12, 100), 18);
	CHECK_INT(decide_next_look(14, 14), 15); /* past the cap: one more */
	plan[n++] = runs;
	while (runs < 14)
		plan[n++] = runs = decide_next_look(runs, 14);
	CHECK_INT(n, 5); /* 3 5 8 12 14 */
	for (int i = 0; i < n; i++)
		sum += decide_look_alpha(plan[i], i ? plan[i - 1] : 0, 14,
					 DECIDE_ALPHA);
	CHECK_DBL(sum, DECIDE_ALPHA, 1e-15);
	CHECK_DBL(decide_look_alpha(3, 0, 14, DECIDE_ALPHA),
		  DECIDE_ALPHA * DECIDE_FIRST_SHARE +
			  DECIDE_ALPHA * (1 - DECIDE_FIRST_SHARE) * 27 / 2744,
		  1e-15);
	CHECK(decide_look_alpha(5, 3, 14, DECIDE_ALPHA) < DECIDE_ALPHA / 25);
	CHECK(decide_look_alpha(14, 12, 14, DECIDE_ALPHA) > DECIDE_ALPHA / 5);
	/* One look at the cap spends it all; a look asked again with no
	 * new runs spends what the plan gives that look, not nothing. */
	CHECK_DBL(decide_look_alpha(10, 0, 10, DECIDE_ALPHA), DECIDE_ALPHA,
		  1e-15);
	CHECK_DBL(decide_look_alpha(14, 14, 14, DECIDE_ALPHA),
		  decide_look_alpha(14, 12, 14, DECIDE_ALPHA), 1e-15);
	/* A look after every round (noise known): the same budget. */
	sum = 0;
	for (int r = 3; r <= 14; r++)
		sum += decide_look_alpha(r, r == 3 ? 0 : r - 1, 14,
					 DECIDE_ALPHA_KNOWN);
	CHECK_DBL(sum, DECIDE_ALPHA_KNOWN, 1e-15);
}

/* A KPI inconclusive at the cap whose p there is near the line
 * (DECIDE_PROMISING_P) gets the promising look, at half as many rounds
 * again, tested at the cap's level; none when the caller allows none (a
 * submitter's cap, a bisection's pair), none past that look, and none
 * for a KPI far from the line. */
static void
test_promising_look(void)
{
	struct comparison *c = compare(-0.05, 0.05, 10, 0);
	struct decision d;
	double p = compare_p_value(&c->metrics[0].r);

	tap_diag("-5%% at 5%% noise, 10 runs a side: %s, p %.4f",
		 compare_verdict_name(c->metrics[0].r.verdict), p);
	CHECK_INT(c->metrics[0].r.verdict, COMPARE_INCONCLUSIVE);
	CHECK(p < DECIDE_PROMISING_P);
	CHECK_INT(decide_promising_runs(10), 15);
	CHECK_INT(decide_promising_runs(14), 21);
	decide(c, 10, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 15);
	decide(c, 12, 10, DECIDE_PROMISING_P, &d); /* a side had more */
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 15);
	decide(c, 15, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_INCONCLUSIVE);
	decide(c, 10, 10, 0, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	/* before the cap: the plan's next look, as ever */
	decide(c, 8, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 10);
	comparison_free(c);
	c = compare(-0.02, 0.05, 10, 0);
	CHECK_INT(c->metrics[0].r.verdict, COMPARE_INCONCLUSIVE);
	CHECK(compare_p_value(&c->metrics[0].r) > DECIDE_PROMISING_P);
	decide(c, 10, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	comparison_free(c);
	/* its level: the cap's look's, after the round before it */
	CHECK_DBL(decide_look_alpha(21, 14, 14, DECIDE_ALPHA_KNOWN),
		  decide_look_alpha(14, 13, 14, DECIDE_ALPHA_KNOWN), 1e-15);
	CHECK_DBL(decide_look_alpha(15, 10, 10, DECIDE_ALPHA),
		  decide_look_alpha(10, 9, 10, DECIDE_ALPHA), 1e-15);
}

/* Rounds of a KPI (fsmark.files_per_sec) whose noise its history knows:
 * n rounds, the head's runs off by shift, each round's difference of
 * logs +-noise (a fixed pattern), the history's variance var on df. */
static struct comparison *
compare_known(double shift, double noise, size_t n, double var, double df)
{
	static const double pattern[] = {0.3,  -0.8, 1.0,  -0.1, 0.6,
					 -1.0, 0.2,  -0.5, 0.9,  -0.6};
	struct direction_table *dt = direction_table_new();
	struct compare_prior prior = {"fsmark.files_per_sec", var, df};
	struct compare_options opt;
	struct comparison_side bs = {"a", n, 0, 0}, hs = {"b", n, 0, 0};
	double b[32], h[32];
	struct comparison_column col = {"fsmark.files_per_sec", b, n, h, n};
	struct comparison *c;

	for (size_t i = 0; i < n; i++) {
		b[i] = 1000 * (1 + 0.01 * (double)(i % 3));
		h[i] = b[i] * (1 + shift) * exp(noise * pattern[i % 10]);
	}
	compare_options_init(&opt);
	opt.paired = true;
	opt.priors = &prior;
	opt.npriors = 1;
	opt.alpha = decide_look_alpha((int)n, 0, 14, DECIDE_ALPHA_KNOWN);
	c = comparison_of_columns("fsmark/x/lab", &bs, &hs, &col, 1, &opt, dt,
				  "fsmark.");
	direction_table_free(dt);
	return c;
}

/* Its noise known from its history, an unsure KPI asks for one more
 * round, not the next planned look; shown far below the pair's
 * resolution (the change the cap could find), it asks for none; a
 * change near the resolution goes on. */
static void
test_known_noise_looks_every_round(void)
{
	/* a round's difference spread 5%, its history the same */
	struct comparison *c = compare_known(0.03, 0.05, 5, 0.0025, 30);
	const struct compare_result *r = &c->metrics[0].r;
	struct decision d;

	CHECK_INT(r->history, COMPARE_HISTORY_USED);
	CHECK_INT(r->verdict, COMPARE_INCONCLUSIVE);
	/* z(0.9975) + z(0.9) = 4.09 standard errors of 14 rounds */
	CHECK_DBL(decide_resolution_pct(r, 14),
		  100 * expm1(4.089 * r->se * sqrt(5.0 / 14)), 0.05);
	CHECK(!decide_futile(r, 14));
	decide(c, 5, 14, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	CHECK_INT(d.runs, 6);
	comparison_free(c);
	/* 0.3% over 8 rounds, resolution about 4%: futile */
	c = compare_known(0.003, 0.05, 8, 0.0025, 30);
	r = &c->metrics[0].r;
	CHECK_INT(r->verdict, COMPARE_INCONCLUSIVE);
	tap_diag("resolution %.2f%%, change %.2f%%, se %.4f",
		 decide_resolution_pct(r, 14), r->effect_pct, r->se);
	CHECK(decide_futile(r, 14));
	decide(c, 8, 14, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_INCONCLUSIVE);
	comparison_free(c);
	/* Without a history, the planned looks, and no resolution. */
	c = compare(-0.05, 0.08, 5, 0);
	CHECK(isnan(decide_resolution_pct(&c->metrics[0].r, 14)));
	decide(c, 5, 14, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.runs, 8);
	comparison_free(c);
}

/* A KPI whose change is below its floor, too noisy for the cap to show
 * it unchanged, asks for no runs: the pair is final, inconclusive. */
static void
test_futile_runs_not_asked(void)
{
	struct comparison *c = compare(0, 0.08, 3, 0);
	struct decision d;

	CHECK_INT(c->metrics[0].r.verdict, COMPARE_INCONCLUSIVE);
	CHECK(c->metrics[0].r.within_floor);
	CHECK(decide_futile(&c->metrics[0].r, 14));
	decide(c, 3, 14, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_FINAL);
	CHECK_INT(d.verdict, DECIDE_INCONCLUSIVE);
	comparison_free(c);
	/* quiet enough for the cap to show it: more runs */
	c = compare(0, 0.02, 3, 0);
	CHECK_INT(c->metrics[0].r.verdict, COMPARE_INCONCLUSIVE);
	CHECK(!decide_futile(&c->metrics[0].r, 14));
	decide(c, 3, 14, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.outcome, DECIDE_MORE);
	comparison_free(c);
}

/* Inconclusive at the cap: the note for the lab's operators says how
 * much the KPI varies and how many runs its minimum effect would need;
 * a pair that is final otherwise, or that asks for more, gets none. */
static void
test_noise_note(void)
{
	struct comparison *c = compare(-0.05, 0.08, 3, 0);
	struct compare_options opt;
	struct decision d;
	char note[512];

	compare_options_init(&opt);
	decide(c, 3, 10, DECIDE_PROMISING_P, &d);
	CHECK(!decide_noise_note(c, &d, &opt, 10, note, sizeof note));
	CHECK_STR(note, "");
	decide(c, 10, 10, DECIDE_PROMISING_P, &d);
	CHECK(decide_noise_note(c, &d, &opt, 10, note, sizeof note));
	tap_diag("%s", note);
	/* The pattern's population stddev is about 0.65 of the noise: the
	 * noisier side, 8% of 950, is +-6%. */
	CHECK(strstr(note, "fsmark.files_per_sec varied by ±6% between this "
			   "pair's runs of one commit; a 2% change would need "
			   "about ") == note);
	CHECK(strstr(note, " runs a side (this pair's cap is 10)") != NULL);
	/* 2 * (z(0.9985) + z(0.8))^2 * ln(1.06)^2 / ln(1.02)^2: about 240. */
	CHECK(atoi(note + strlen("fsmark.files_per_sec varied by ±6% between "
				 "this pair's runs of one commit; a 2% "
				 "change would need about ")) > 200);
	comparison_free(c);
	c = compare(-0.10, 0.01, 5, 0);
	decide(c, 5, 10, DECIDE_PROMISING_P, &d);
	CHECK(!decide_noise_note(c, &d, &opt, 10, note, sizeof note));
	comparison_free(c);
}

/* A monitor metric's change decides nothing. */
static void
test_monitors_never_decide(void)
{
	struct comparison *c = compare(0, 0.005, 5, 0.5);
	struct decision d;

	CHECK(compare_verdict_is_change(c->metrics[1].r.verdict));
	decide(c, 5, 10, DECIDE_PROMISING_P, &d);
	CHECK_INT(d.verdict, DECIDE_UNCHANGED);
	comparison_free(c);
}

/* A metric missing from some runs is noted; one of a side only is left
 * out with a note. */
static void
test_columns_notes(void)
{
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	struct comparison_side bs = {"a", 3, 1, 0}, hs = {"b", 3, 0, 0};
	double a[] = {1, 2, 3}, b[] = {1, 2};
	struct comparison_column cols[] = {
		{"dd.bytes_per_sec", a, 3, b, 2},
		{"x.only_base", a, 3, NULL, 0},
	};
	struct comparison *c;
	json_t *j;

	compare_options_init(&opt);
	c = comparison_of_columns("dd/x/lab", &bs, &hs, cols, 2, &opt, dt,
				  "dd.");
	CHECK_INT(c->nmetrics, 1);
	CHECK_INT(c->nnotes, 2);
	CHECK(strstr(c->notes[0], "in 3 of 3 base and 2 of 3 head") != NULL);
	CHECK(strstr(c->notes[1], "only in the base runs") != NULL);
	j = comparison_to_json(c, true);
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(j, "base_runs"), "failed")),
		  1);
	json_decref(j);
	comparison_free(c);
	direction_table_free(dt);
}

/* KPIs are the workload's headline figures: not a device's share, a
 * time series' summary or a resource figure. */
static void
test_kpis_are_headlines(void)
{
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	struct comparison_side bs = {"a", 3, 0, 0}, hs = {"b", 3, 0, 0};
	double a[] = {100, 101, 99}, b[] = {80, 81, 79};
	struct comparison_column cols[] = {
		{"dd.write_bytes_per_sec", a, 3, b, 3},
		{"dd.loop0.write_bytes_per_sec", a, 3, b, 3},
		{"dd.disks.write_bytes_per_sec.stddev", a, 3, b, 3},
		{"dd.time.elapsed_time", a, 3, b, 3},
		{"fsmark.files_per_sec", a, 3, b, 3},
	};
	struct comparison *c;

	compare_options_init(&opt);
	c = comparison_of_columns("dd/x/lab", &bs, &hs, cols, 5, &opt, dt,
				  "dd.");
	CHECK(c->metrics[0].kpi);
	CHECK(!c->metrics[1].kpi);
	CHECK(!c->metrics[2].kpi);
	CHECK(!c->metrics[3].kpi);
	CHECK(!c->metrics[4].kpi); /* another workload's */
	comparison_free(c);
	direction_table_free(dt);
}

/* The stored comparison keeps what is shown: the KPIs, changed or not,
 * and the metrics that changed; "compared" counts them all. */
static void
test_json_keeps_what_is_shown(void)
{
	struct comparison *unchanged = compare(0, 0.005, 5, 0),
			  *moved = compare(0, 0.005, 5, 0.5);
	json_t *a = comparison_to_json(unchanged, false),
	       *b = comparison_to_json(moved, false),
	       *all = comparison_to_json(unchanged, true);
	json_t *m = json_object_get(b, "metrics");

	CHECK_INT(json_array_size(json_object_get(a, "metrics")), 1);
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(a, "metrics"), 0),
			  "metric")),
		  "fsmark.files_per_sec");
	CHECK_INT(json_integer_value(json_object_get(a, "compared")), 2);
	CHECK_INT(json_array_size(m), 2);
	CHECK_STR(json_string_value(
			  json_object_get(json_array_get(m, 1), "metric")),
		  "proc-vmstat.pgfault");
	CHECK_INT(json_array_size(json_object_get(all, "metrics")), 2);
	json_decref(a);
	json_decref(b);
	json_decref(all);
	comparison_free(unchanged);
	comparison_free(moved);
}

/* A box's canary: its runs of one series at one commit.  Steady, or a
 * last run off, it is well; its last three 20% down (a controller that
 * changed its cache mode), it moved; too few runs say nothing; a drift,
 * however far it has gone, is not a step. */
static void
test_canary(void)
{
	double v[20];
	struct compare_result r;
	size_t at = 99;

	for (size_t i = 0; i < 20; i++)
		v[i] = 100 * (1 + 0.01 * ((double)(i * 7 % 5) - 2) / 2);
	CHECK(!decide_canary(v, 12, 0, &r, &at));
	v[11] = 93; /* one run off */
	CHECK(!decide_canary(v, 12, 0, &r, &at));
	v[9] = 80, v[10] = 81, v[11] = 79.5;
	CHECK(decide_canary(v, 12, 11, &r, &at));
	CHECK_INT(at, 9);
	CHECK_DBL(r.effect_pct, -20, 1);
	CHECK(decide_canary(v + 2, 10, 9, &r, &at)); /* 7 before */
	CHECK(!decide_canary(v + 5, 7, 0, &r, &at)); /* 4 before: too few */
	/* checked all at once, long after the step: the window that ends
	 * three runs after it is among the new ones */
	for (size_t i = 12; i < 20; i++)
		v[i] = 80 + (double)(i % 3) / 2;
	CHECK(decide_canary(v, 20, 8, &r, &at));
	CHECK_INT(at, 9);
	CHECK(!decide_canary(v, 20, 14, &r, &at)); /* seen before */
	/* a slow drift is not a change of the box */
	for (size_t i = 0; i < 20; i++)
		v[i] = 100 * (1 + 0.004 * (double)i);
	CHECK(!decide_canary(v, 20, 0, &r, &at));
	/* nor one whose runs of this commit are far apart in the box's
	 * time (the box ran other commits between): 1.5% from one to the
	 * next, so that the last three are 6.8% off the six before, moved
	 * no more from the three just before than those from the three
	 * before them */
	for (size_t i = 0; i < 20; i++)
		v[i] = 100 * (1 - 0.015 * (double)i) *
		       (1 + 0.002 * ((double)(i * 7 % 5) - 2));
	CHECK(!decide_canary(v, 20, 0, &r, &at));
	/* a step on that drift is a change */
	for (size_t i = 12; i < 20; i++)
		v[i] *= 0.8;
	CHECK(decide_canary(v, 20, 0, &r, &at));
	CHECK_INT(at, 12);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_regression_is_final),
		TAP_CASE(test_unchanged_is_final),
		TAP_CASE(test_inconclusive_asks_for_more),
		TAP_CASE(test_looks_spend_the_budget),
		TAP_CASE(test_promising_look),
		TAP_CASE(test_known_noise_looks_every_round),
		TAP_CASE(test_futile_runs_not_asked),
		TAP_CASE(test_canary),
		TAP_CASE(test_noise_note),
		TAP_CASE(test_monitors_never_decide),
		TAP_CASE(test_columns_notes),
		TAP_CASE(test_kpis_are_headlines),
		TAP_CASE(test_json_keeps_what_is_shown),
		{NULL, NULL}};

	return tap_run(cases);
}

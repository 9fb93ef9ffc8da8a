/*
 * sim_loop.c: robotd's adaptive loop as a whole, measured on simulated
 * labs whose truth is known: a pair's KPI compared at each planned look
 * (decide_next_look(), decide_look_alpha()), more rounds while it is
 * inconclusive, up to the cap.  Per KPI it counts
 *   false alarms  a change verdict on a pair of one commit against itself;
 *   detections    a regression on a pair whose head is slower;
 *   runs a side   at the verdict, on average.
 *
 * A lab: each run's value is 100 x the box's factor x (1 - slowdown at
 * the head) x exp(noise x N(0, 1)).  The box's factor holds its offset
 * (N(0, offset) per box), its drift (a share per run it takes,
 * compounding) and a step (box 0 moves by step from its step_at-th run);
 * --outliers: a run off by a factor F (0.7: 30% low) with probability P.
 * Each round goes to a random box, its base and head back to back in a
 * random order.  Three ways of taking and comparing the runs:
 *   rounds   rounds, compared within them (compare_options.paired): robotd's;
 *   sides    rounds, but the sides compared as two samples;
 *   before   the old loop: every base run taken before the head's, on
 *            random boxes, doubling to the cap at a fixed alpha of 0.003.
 *
 * Usage: sim_loop [--pairs N] [--seed S] [--max R] [--first R]
 *                 [--noise PCT] [--shift PCT] [--boxes B] [--offset PCT]
 *                 [--drift PCT] [--step N:PCT] [--outliers P:F]
 *                 [--prior DF]
 *                 [--history PCT] [--noisy FRAC:MULT] [--guard G]
 *                 [--weight W] [--looks R,R,...] [--look-alpha A]
 *                 [--promising P]
 * --prior: the KPI's noise is known from its series' history, DF
 * degrees of freedom of it (compare_prior: robotd caps a prior at
 * NOISE_DF_MAX), with the noise --history (default: the lab's; larger or
 * smaller: a box whose noise changed).  --noisy: a share FRAC of the
 * pairs (innocent and slower alike) is MULT times as noisy as the lab,
 * and so as its history: a commit that makes the job noisier, the
 * guard's case.  --guard, --weight: the guard's level and the prior's
 * weight cap (compare_options.guard, .prior_weight); --screen: the
 * rounds' outlier screen (.screen, 0: none; --outliers P:F, a run off by
 * a factor F with probability P, is its case).  --promising: the p below
 * which a pair inconclusive at the cap gets the promising look past it
 * (decide(); 0: none).
 * --looks, --look-alpha: another plan, to weigh robotd's against: the
 * looks at the rounds given (then the cap), each at the alpha A
 * (Pocock's way: the same at every look, its level over all of them
 * found by running this; not a budget spent as robotd spends it).
 * Prints one line per way, and for rounds the runs a side a lab pays
 * over 1,000 innocent and 300 slower pairs ("lab"), as a lab sees them,
 * and how the slower pairs it missed ended (at the cap, or stopped as
 * futile, and by which of decide_futile()'s rules); run it with and
 * without the lab's faults.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/compare.h"
#include "robot/analysis/decide.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/noise.h"

enum way { WAY_ROUNDS, WAY_SIDES, WAY_BEFORE };

/* How a pair ended: with a verdict before the cap, inconclusive at the
 * cap, or stopped as futile (decide_futile()): its change below the
 * floor, on its own noise where the guard fired or on the history's,
 * or shown below the pair's resolution. */
enum end {
	END_VERDICT,
	END_CAP,
	END_FLOOR_GUARD,
	END_FLOOR,
	END_RESOLUTION,
	END_N
};

struct lab {
	double noise, offset, drift, step;
	int boxes, step_at, max, first;
	int prior;            /* degrees of freedom of the KPI's known noise */
	double history;       /* the noise the history had (default: noise) */
	double noisy, mult;   /* --noisy: a share of the pairs MULT as noisy */
	double guard, weight; /* compare_options' (negative: the default) */
	double pair_noise;    /* this pair's noise */
	double *box_offset;   /* per box */
	int *box_runs;        /* runs each box took so far */
	int looks[64];        /* --looks: another plan (nlooks of them) */
	int nlooks;
	double look_alpha;   /* --look-alpha: its alpha at each look */
	double out_p, out_f; /* --outliers: a run off by out_f, at out_p */
	double screen;    /* --screen: compare_options' (negative: default) */
	double promising; /* --promising: decide()'s (0: no look past the
			     cap) */
};

/* The look after runs: robotd's plan, or --looks. */
static int
next_look(const struct lab *l, int runs)
{
	if (l->nlooks == 0)
		return decide_next_look(runs, l->max);
	for (int i = 0; i < l->nlooks; i++)
		if (l->looks[i] > runs)
			return l->looks[i] < l->max ? l->looks[i] : l->max;
	return l->max;
}

static unsigned short xs[3];

static double
uniform(void)
{
	return erand48(xs);
}

static double
normal(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* One run on box b, at the head (slowed by shift) or not. */
static double
run(struct lab *l, int b, bool head, double shift)
{
	double f = 100 * (1 + l->box_offset[b]) *
		   pow(1 + l->drift, l->box_runs[b]);

	if (b == 0 && l->step_at > 0 && l->box_runs[b] >= l->step_at)
		f *= 1 + l->step;
	l->box_runs[b]++;
	if (head)
		f *= 1 - shift;
	if (l->out_p > 0 && uniform() < l->out_p)
		f *= l->out_f;
	return f * exp(l->pair_noise * normal());
}

/* A new lab: its boxes' offsets drawn, none of them has run yet. */
static void
lab_reset(struct lab *l)
{
	for (int b = 0; b < l->boxes; b++) {
		l->box_offset[b] = l->offset * normal();
		l->box_runs[b] = 0;
	}
}

/* Takes runs base[from..to) and head[from..to) in the way given. */
static void
take(struct lab *l, enum way w, double shift, double *base, double *head,
     int from, int to)
{
	if (w == WAY_BEFORE) {
		for (int i = from; i < to; i++)
			base[i] = run(l, (int)(uniform() * l->boxes), false, 0);
		for (int i = from; i < to; i++)
			head[i] = run(l, (int)(uniform() * l->boxes), true,
				      shift);
		return;
	}
	for (int i = from; i < to; i++) {
		int b = (int)(uniform() * l->boxes);

		if (uniform() < 0.5) {
			base[i] = run(l, b, false, 0);
			head[i] = run(l, b, true, shift);
		} else {
			head[i] = run(l, b, true, shift);
			base[i] = run(l, b, false, 0);
		}
	}
}

/* Why decide_futile() stopped r: its rule, and for the floor's whether
 * the guard had fired (the pair decided on its own noise). */
static enum end
futile_end(const struct compare_result *r, int max)
{
	if (decide_futility(r, max) == DECIDE_FUTILE_RESOLUTION)
		return END_RESOLUTION;
	return r->history == COMPARE_HISTORY_NOISIER ? END_FLOOR_GUARD
						     : END_FLOOR;
}

/* One pair to its verdict: the verdict and the runs a side; robotd's
 * way decides as decide() does (decide.h). */
static enum compare_verdict
pair(struct lab *l, enum way w, double shift, int *runs, enum end *end)
{
	static const struct direction up = {1, 0, 0, "up"};
	double base[1024], head[1024];
	struct compare_options opt;
	struct compare_result r;
	struct comparison_metric m = {"dd.write_bytes_per_sec", true, {{0}}};
	struct comparison c = {0};
	struct decision d;
	int asked = l->first, before = 0;

	struct compare_prior prior = {"dd.write_bytes_per_sec", 0, 0};

	compare_options_init(&opt);
	if (l->guard >= 0)
		opt.guard = l->guard;
	if (l->weight >= 0)
		opt.prior_weight = l->weight;
	if (l->screen >= 0)
		opt.screen = l->screen;
	opt.paired = w == WAY_ROUNDS;
	c.metrics = &m;
	c.nmetrics = 1;
	if (opt.paired && l->prior > 0) {
		/* the series' history: prior + 1 earlier rounds' differences
		 * of identical runs */
		double sum = 0, sq = 0;

		for (int k = 0; k <= l->prior; k++) {
			double dk = l->history * (normal() - normal());

			sum += dk;
			sq += dk * dk;
		}
		prior.df = l->prior < NOISE_DF_MAX ? l->prior : NOISE_DF_MAX;
		prior.var = (sq - sum * sum / (l->prior + 1)) / l->prior;
		opt.priors = &prior;
		opt.npriors = 1;
	}
	take(l, w, shift, base, head, 0, asked);
	for (;;) {
		if (w == WAY_BEFORE)
			opt.alpha = 0.003;
		else
			opt.alpha =
				l->look_alpha > 0
					? l->look_alpha
					: decide_look_alpha(
						  asked, before, l->max,
						  opt.npriors > 0
							  ? DECIDE_ALPHA_KNOWN
							  : DECIDE_ALPHA);
		compare_metric("dd.write_bytes_per_sec", base, (size_t)asked,
			       head, (size_t)asked, &opt, &up, &r);
		*end = r.verdict != COMPARE_INCONCLUSIVE ? END_VERDICT
							 : END_CAP;
		if (r.verdict != COMPARE_INCONCLUSIVE ||
		    (asked >= l->max && (w != WAY_ROUNDS || l->nlooks > 0)))
			break;
		before = asked;
		if (w == WAY_BEFORE) {
			asked = asked * 2 < l->max ? asked * 2 : l->max;
		} else if (l->nlooks > 0) {
			if (decide_futile(&r, l->max))
				break;
			asked = next_look(l, asked);
		} else {
			m.r = r;
			decide(&c, asked, l->max, l->promising, &d);
			if (d.outcome == DECIDE_FINAL) {
				if (asked < l->max)
					*end = futile_end(&r, l->max);
				break;
			}
			asked = d.runs;
		}
		take(l, w, shift, base, head, before, asked);
	}
	*runs = asked;
	return r.verdict;
}

int
main(int argc, char **argv)
{
	struct lab l = {0.05, 0,   0, 0, 4,  0,  12,   3,
			0,    -1,  0, 1, -1, -1, 0.05, NULL,
			NULL, {0}, 0, 0, 0,  1,  -1,   DECIDE_PROMISING_P};
	long pairs = 1000, seed = 1;
	double shift = 0.10;
	static const char *names[] = {"rounds", "sides", "before"};

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (strcmp(o, "--pairs") == 0)
			pairs = atol(v);
		else if (strcmp(o, "--seed") == 0)
			seed = atol(v);
		else if (strcmp(o, "--max") == 0)
			l.max = atoi(v);
		else if (strcmp(o, "--looks") == 0) {
			char *end;

			l.nlooks = 0;
			for (const char *c = v; *c != '\0';
			     c = *end == ',' ? end + 1 : end) {
				long r = strtol(c, &end, 10);

				if (l.nlooks == 64 || end == c || r < 1 ||
				    r > 1024 || (*end != ',' && *end != '\0')) {
					fprintf(stderr,
						"sim_loop: bad --looks %s\n",
						v);
					return 2;
				}
				l.looks[l.nlooks++] = (int)r;
			}
		} else if (strcmp(o, "--look-alpha") == 0)
			l.look_alpha = atof(v);
		else if (strcmp(o, "--prior") == 0)
			l.prior = atoi(v);
		else if (strcmp(o, "--history") == 0)
			l.history = atof(v) / 100;
		else if (strcmp(o, "--noisy") == 0 &&
			 sscanf(v, "%lf:%lf", &l.noisy, &l.mult) == 2)
			l.noisy /= 1;
		else if (strcmp(o, "--guard") == 0)
			l.guard = atof(v);
		else if (strcmp(o, "--weight") == 0)
			l.weight = atof(v);
		else if (strcmp(o, "--first") == 0)
			l.first = atoi(v);
		else if (strcmp(o, "--noise") == 0)
			l.noise = atof(v) / 100;
		else if (strcmp(o, "--shift") == 0)
			shift = atof(v) / 100;
		else if (strcmp(o, "--boxes") == 0)
			l.boxes = atoi(v);
		else if (strcmp(o, "--offset") == 0)
			l.offset = atof(v) / 100;
		else if (strcmp(o, "--drift") == 0)
			l.drift = atof(v) / 100;
		else if (strcmp(o, "--step") == 0 &&
			 sscanf(v, "%d:%lf", &l.step_at, &l.step) == 2)
			l.step /= 100;
		else if (strcmp(o, "--promising") == 0)
			l.promising = atof(v);
		else if (strcmp(o, "--screen") == 0)
			l.screen = atof(v);
		else if (strcmp(o, "--outliers") == 0 &&
			 sscanf(v, "%lf:%lf", &l.out_p, &l.out_f) == 2)
			;
		else {
			fprintf(stderr, "sim_loop: bad option %s\n", o);
			return 2;
		}
	}
	if (l.boxes < 1 || l.max < 1 || l.max > 1024 || l.first < 1 ||
	    pairs < 1) {
		fprintf(stderr, "sim_loop: bad figures\n");
		return 2;
	}
	if (l.history < 0)
		l.history = l.noise;
	l.box_offset = calloc((size_t)l.boxes, sizeof *l.box_offset);
	l.box_runs = calloc((size_t)l.boxes, sizeof *l.box_runs);
	printf("%ld pairs each; noise %.1f%%, %d boxes offset %.1f%%, drift "
	       "%.2f%% a run, step %+.0f%% from run %d of box 0; looks from "
	       "%d to %d rounds\n",
	       pairs, 100 * l.noise, l.boxes, 100 * l.offset, 100 * l.drift,
	       100 * l.step, l.step_at, l.first, l.max);
	if (l.out_p > 0)
		printf("a run off by x%.2f with probability %g\n", l.out_f,
		       l.out_p);
	if (l.nlooks > 0 || l.look_alpha > 0) {
		printf("rounds and sides: looks at");
		for (int i = 0; i < l.nlooks; i++)
			printf(" %d", l.looks[i]);
		printf("%s %d", l.nlooks > 0 ? " and" : " robotd's, to", l.max);
		if (l.look_alpha > 0)
			printf(", each at alpha %g", l.look_alpha);
		printf("\n");
	}
	if (l.prior > 0)
		printf("the KPI's noise known from %d degrees of freedom of a "
		       "history with %.1f%% noise\n",
		       l.prior, 100 * l.history);
	if (l.noisy > 0)
		printf("%.0f%% of the pairs %.1f times as noisy\n",
		       100 * l.noisy, l.mult);
	{
		char found[32];

		snprintf(found, sizeof found, "found a -%g%% one", 100 * shift);
		printf("%-8s %14s %10s %18s %10s\n", "way", "false alarms",
		       "runs", found, "runs");
	}
	for (int w = WAY_ROUNDS; w <= WAY_BEFORE; w++) {
		long fa = 0, found = 0, rn = 0, rs = 0, nz = 0, fz = 0;
		long missed[END_N] = {0};

		xs[0] = (unsigned short)seed;
		xs[1] = (unsigned short)(seed >> 16);
		xs[2] = 0x330e;
		for (long p = 0; p < pairs; p++) {
			bool noisy = uniform() < l.noisy;
			enum end end = END_VERDICT;
			int n, v;

			lab_reset(&l);
			l.pair_noise = l.noise * (noisy ? l.mult : 1);
			v = compare_verdict_is_change(
				pair(&l, (enum way)w, 0, &n, &end));
			fa += v;
			nz += noisy;
			fz += noisy && v;
			rn += n;
			noisy = uniform() < l.noisy;
			lab_reset(&l);
			l.pair_noise = l.noise * (noisy ? l.mult : 1);
			if (pair(&l, (enum way)w, shift, &n, &end) ==
			    COMPARE_REGRESSION)
				found++;
			else
				missed[end]++;
			rs += n;
		}
		printf("%-8s %13.2f%% %10.2f %17.1f%% %10.2f", names[w],
		       100.0 * fa / pairs, (double)rn / pairs,
		       100.0 * found / pairs, (double)rs / pairs);
		if (w == WAY_ROUNDS)
			printf("   lab %.2f",
			       (1000.0 * rn / pairs + 300.0 * rs / pairs) /
				       1300);
		if (nz > 0)
			printf("   noisy pairs: %.2f%% false alarms",
			       100.0 * fz / nz);
		printf("\n");
		if (w == WAY_ROUNDS)
			printf("         missed: %.1f%% at the cap; stopped as "
			       "futile: %.1f%% below the floor on their own "
			       "noise (the guard fired), %.1f%% below the "
			       "floor, "
			       "%.1f%% below the resolution; %.1f%% another "
			       "verdict\n",
			       100.0 * missed[END_CAP] / pairs,
			       100.0 * missed[END_FLOOR_GUARD] / pairs,
			       100.0 * missed[END_FLOOR] / pairs,
			       100.0 * missed[END_RESOLUTION] / pairs,
			       100.0 * missed[END_VERDICT] / pairs);
	}
	free(l.box_offset);
	free(l.box_runs);
	return 0;
}

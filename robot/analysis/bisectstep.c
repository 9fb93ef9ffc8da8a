/*
 * bisectstep.c: a midpoint's class, and the next midpoint.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/bisectstep.h"
#include "robot/analysis/compare.h"
#include "robot/analysis/stats.h"
#include "robot/core/buf.h"
#include "robot/core/num.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static bool
is(const char *v, const char *name)
{
	return v != NULL && strcmp(v, name) == 0;
}

static void
change_text(char *buf, size_t len, const struct bisect_side *s)
{
	num_pct(buf, len, s->change_pct, "?");
}

const char *
bisect_changed(const char *change)
{
	return is(change, "improvement") ? "improved" : "regressed";
}

enum bisect_class
bisect_classify(const struct bisect_side *good, const struct bisect_side *bad,
		const char *change, char *reason, size_t len)
{
	bool gr = is(good->verdict, change);
	bool br = is(bad->verdict, change);
	char gc[32], bc[32];
	int runs = good->runs < bad->runs ? good->runs : bad->runs;

	change_text(gc, sizeof gc, good);
	change_text(bc, sizeof bc, bad);
	if (is(good->pair_verdict, "failed") ||
	    is(bad->pair_verdict, "failed")) {
		snprintf(reason, len, "no run of it ended ok");
		return BISECT_SKIP;
	}
	if (good->verdict == NULL || bad->verdict == NULL) {
		snprintf(reason, len, "the KPI was not measured at it");
		return BISECT_SKIP;
	}
	if (gr && !br) {
		snprintf(reason, len,
			 "like bad: %s from good, %s (%s) to bad, %d runs", gc,
			 bc, bad->verdict, runs);
		return BISECT_BAD;
	}
	if (br && !gr) {
		snprintf(reason, len,
			 "like good: %s (%s) from good, %s to bad, %d runs", gc,
			 good->verdict, bc, runs);
		return BISECT_GOOD;
	}
	if (gr && br) {
		bool nearer_bad =
			fabs(good->change_pct) >= fabs(bad->change_pct);

		snprintf(reason, len,
			 "%s from good (%s) and to bad (%s): nearer %s, "
			 "%d runs",
			 bisect_changed(change), gc, bc,
			 nearer_bad ? "bad" : "good", runs);
		return nearer_bad ? BISECT_BAD : BISECT_GOOD;
	}
	if (is(good->verdict, "unchanged") && !is(bad->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like good: unchanged from good (%s), %s (%s) to bad, "
			 "%d runs",
			 gc, bc, bad->verdict, runs);
		return BISECT_GOOD;
	}
	if (is(bad->verdict, "unchanged") && !is(good->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like bad: %s (%s) from good, unchanged to bad (%s), "
			 "%d runs",
			 gc, good->verdict, bc, runs);
		return BISECT_BAD;
	}
	if (is(good->verdict, "unchanged") && is(bad->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like both ends: unchanged from good (%s) and to bad "
			 "(%s), %d runs",
			 gc, bc, runs);
		return BISECT_SKIP;
	}
	snprintf(reason, len,
		 "like neither end: %s (%s) from good, %s (%s) "
		 "to bad, %d runs",
		 gc, good->verdict, bc, bad->verdict, runs);
	return BISECT_UNSURE;
}

const char *
bisect_class_name(enum bisect_class c)
{
	switch (c) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_SKIP:
		return "skip";
	case BISECT_UNSURE:
		return "unsure";
	}
	return "?";
}

/* One round's observation: its change u, whose mean is cg D like good
 * and cb D like bad (D the ends' change), with its variance as a share f
 * of a round's difference's. */
struct obs {
	double u, cg, cb, f;
	int kind; /* 0: good, mid and bad; 1: good and mid; 2: mid and bad;
		     3: the ends (bad less good: D either way) */
};

/* The log likelihood of o[0..n) at D, like bad or like good: Student's t
 * with nu degrees of freedom, the scale of a round's difference s2. */
static double
loglik(const struct obs *o, size_t n, double d, double s2, double nu, bool bad)
{
	double l = 0;

	for (size_t i = 0; i < n; i++) {
		double e = o[i].u - (bad ? o[i].cb : o[i].cg) * d;

		l -= (nu + 1) / 2 * log1p(e * e / (nu * o[i].f * s2));
	}
	return l;
}

/* The D that makes o[0..n) likeliest, like bad or like good: Student's
 * t's location by iteratively reweighted least squares, from d. */
static double
fit(const struct obs *o, size_t n, double d, double s2, double nu, bool bad)
{
	for (int it = 0; it < 100; it++) {
		double num = 0, den = 0, next;

		for (size_t i = 0; i < n; i++) {
			double c = bad ? o[i].cb : o[i].cg;
			double e = o[i].u - c * d;
			double w = (nu + 1) / (nu + e * e / (o[i].f * s2)) /
				   o[i].f;

			num += w * c * o[i].u;
			den += w * c * c;
		}
		if (!(den > 0))
			break;
		next = num / den;
		if (fabs(next - d) <= 1e-12 * (1 + fabs(d))) {
			d = next;
			break;
		}
		d = next;
	}
	return d;
}

static bool
all_positive(const struct bisect_round *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((isfinite(r[i].good) && !(r[i].good > 0)) ||
		    (isfinite(r[i].mid) && !(r[i].mid > 0)) ||
		    (isfinite(r[i].bad) && !(r[i].bad > 0)))
			return false;
	return true;
}

/* Whether x lies outside [lo, hi] by more than BISECT_SCREEN times sd
 * (sd 0: nothing is screened). */
static bool
off(double x, double lo, double hi, double sd)
{
	return sd > 0 && (x < fmin(lo, hi) - BISECT_SCREEN * sd ||
			  x > fmax(lo, hi) + BISECT_SCREEN * sd);
}

/* Whether k of n rounds off are few enough to be outlier runs: at most a
 * quarter of them (one of fewer than eight).  More are not outliers but
 * commits noisier than the scale (a midpoint noisier than its series'
 * history): all are kept, and the guard reads their noise. */
static bool
few(size_t k, size_t n)
{
	return k <= (n / 4 > 1 ? n / 4 : 1);
}

/* The step's round r as an observation (false: it cannot be read). */
static bool
obs_of(const struct bisect_round *r, bool logs, struct obs *x)
{
	double g = r->good, m = r->mid, b = r->bad;

	if (!isfinite(m) || (!isfinite(g) && !isfinite(b)))
		return false;
	if (logs) {
		g = log(g);
		m = log(m);
		b = log(b);
	}
	if (isfinite(g) && isfinite(b))
		*x = (struct obs){m - (g + b) / 2, -0.5, 0.5, 0.75, 0};
	else if (isfinite(g))
		*x = (struct obs){m - g, 0, 1, 1, 1};
	else
		*x = (struct obs){m - b, -1, 0, 1, 2};
	return true;
}

/* Whether round r (read as x) lies far off: its ends' change from d, or
 * its midpoint from what either likeness says.  A midpoint is off only
 * beyond an end by more than the ends' change too: nearer, it is what a
 * scattered commit shows (runs on both sides of the ends, a midpoint
 * noisier than its series), which the guard weighs; left out, the runs
 * on one side would decide alone (test_bisectstep.c, "scattered"). */
static bool
round_off(const struct bisect_round *r, const struct obs *x, bool logs,
	  bool confirm, double d, double sd)
{
	double ends = logs ? log(r->bad) - log(r->good) : r->bad - r->good;
	double msd = sd * sqrt(x->f);

	return (isfinite(r->good) && isfinite(r->bad) && !confirm &&
		off(ends, d, d, sd)) ||
	       (sd > 0 && off(x->u, x->cg * d, x->cb * d,
			      fmax(msd, fabs(d) / BISECT_SCREEN)));
}

void
bisect_test(const struct bisect_round *r, size_t n,
	    const struct bisect_round *ends, size_t nends, bool confirm,
	    double prior_var, double prior_df, bool at_cap,
	    struct bisect_test *out, char *reason, size_t len)
{
	bool logs = all_positive(r, n) && all_positive(ends, nends);
	double *y = xcalloc(n + nends + 1, sizeof *y);
	struct obs *o = xcalloc(n + nends + n + 1, sizeof *o);
	double d, ss = 0, df = 0, s2, sd, own_df = 0, screen_sd;
	double sum[3] = {0}, sq[3] = {0};
	size_t ny = 0, no = 0, cnt[3] = {0};
	const char *like, *end_name;
	char between[64] = "";

#define X(v) (logs ? log(v) : (v))
	memset(out, 0, sizeof *out);
	out->verdict = BISECT_UNSURE;
	out->position = out->change_pct = out->spread_pct = NAN;
	out->logs = logs;
	/* 1. The ends' change of each round that ran both (bad less good,
	 * within the round: what a box stands off by, or drifts to, or
	 * steps to, cancels out), and a first scale of a round's difference
	 * to tell an outlier by: the history's, else the ends' rounds'
	 * (1.4826 MADs, from five of them). */
	for (size_t i = 0; i < nends; i++)
		if (isfinite(ends[i].good) && isfinite(ends[i].bad))
			y[ny++] = X(ends[i].bad) - X(ends[i].good);
	for (size_t i = 0; i < n && !confirm; i++)
		if (isfinite(r[i].good) && isfinite(r[i].bad))
			y[ny++] = X(r[i].bad) - X(r[i].good);
	if (ny == 0) {
		snprintf(reason, len, "the ends were never measured together");
		goto done;
	}
	d = stats_median(y, ny);
	sd = 0;
	if (prior_df > 0 && prior_var > 0) {
		sd = sqrt(prior_var);
	} else if (ny >= 5) {
		double *dev = xcalloc(ny, sizeof *dev);

		for (size_t i = 0; i < ny; i++)
			dev[i] = fabs(y[i] - d);
		sd = 1.4826 * stats_median(dev, ny);
		free(dev);
	}
	/* 2. The ends' change D and the noise, of the rounds whose change
	 * is not an outlier's (few()): the history's, and the ends'
	 * rounds'. */
	{
		size_t k = 0;

		for (size_t i = 0; i < ny; i++)
			k += off(y[i], d, d, sd);
		if (few(k, ny)) {
			k = 0;
			for (size_t i = 0; i < ny; i++)
				if (!off(y[i], d, d, sd))
					y[k++] = y[i];
			ny = k;
		}
	}
	if (prior_df > 0 && prior_var > 0) {
		ss += prior_df * prior_var;
		df += prior_df;
	}
	if (ny >= 2) {
		double mean = 0;

		for (size_t i = 0; i < ny; i++)
			mean += y[i] / (double)ny;
		for (size_t i = 0; i < ny; i++)
			ss += (y[i] - mean) * (y[i] - mean);
		df += (double)(ny - 1);
	}
	d = stats_median(y, ny);
	out->change_pct = logs ? 100 * expm1(d) : d;
	if (sd == 0 && df >= BISECT_MIN_DF)
		sd = sqrt(ss / df);
	/* 3. The step's rounds, each read within it; one whose ends'
	 * change, or whose midpoint, lies far off what either likeness
	 * says is left out (a run of it was an outlier), when such rounds
	 * are few(). */
	{
		size_t k = 0, readable = 0;
		struct obs x;

		for (size_t i = 0; i < n; i++)
			if (obs_of(&r[i], logs, &x)) {
				readable++;
				k += round_off(&r[i], &x, logs, confirm, d, sd);
			}
		screen_sd = few(k, readable) ? sd : 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct obs *x = &o[no];

		if (!obs_of(&r[i], logs, x))
			continue;
		if (round_off(&r[i], x, logs, confirm, d, screen_sd)) {
			out->dropped++;
			continue;
		}
		sum[x->kind] += x->u / sqrt(x->f);
		sq[x->kind] += x->u * x->u / x->f;
		cnt[x->kind]++;
		no++;
	}
	/* and the step's own rounds' noise, about each kind's mean: pooled
	 * with the others', unless it is above theirs beyond chance (the
	 * guard, as compare.c's): a midpoint noisier than its series is
	 * decided on its own rounds' noise */
	{
		double own_ss = 0;

		for (int k = 0; k < 3; k++)
			if (cnt[k] >= 2) {
				own_ss += sq[k] -
					  sum[k] * sum[k] / (double)cnt[k];
				own_df += (double)(cnt[k] - 1);
			}
		if (own_df > 0 && df > 0 &&
		    stats_f_sf((own_ss / own_df) / (ss / df), own_df, df) <
			    BISECT_GUARD) {
			out->noisier = true;
			ss = own_ss;
			df = own_df;
		} else {
			ss += own_ss;
			df += own_df;
		}
	}
	/* (a step's own rounds that cannot show their noise yet:
	 * BISECT_UNSEEN) */
	if (own_df == 0)
		for (size_t i = 0; i < no; i++)
			o[i].f *= BISECT_UNSEEN * BISECT_UNSEEN;
	out->used = no;
	if (no == 0) {
		snprintf(reason, len, "no round of it could be read%s",
			 out->dropped ? " (every one had an outlier run)" : "");
		goto done;
	}
	if (!(df > 0) || !(ss > 0)) {
		snprintf(reason, len, "its noise is not known yet");
		goto done;
	}
	s2 = ss / df;
	out->spread_pct = logs ? 100 * sqrt(s2 / 2) : sqrt(s2 / 2);
	/* 4. The likelihood ratio of the rounds and the ends' rounds,
	 * Student's t each, with no more degrees of freedom than the scale
	 * is known on, D fitted to each hypothesis (a generalized
	 * likelihood ratio: the ends' change is itself measured). */
	{
		double *pos = xcalloc(no, sizeof *pos);
		double nu = df < BISECT_NU ? df : BISECT_NU, dg, db;
		size_t nall = no;

		for (size_t i = 0; i < no; i++)
			pos[i] = (o[i].u - o[i].cg * d) /
				 ((o[i].cb - o[i].cg) * d);
		for (size_t i = 0; i < ny; i++)
			o[nall++] = (struct obs){y[i], 1, 1, 1, 3};
		dg = fit(o, nall, d, s2, nu, false);
		db = fit(o, nall, d, s2, nu, true);
		out->llr = loglik(o, nall, db, s2, nu, true) -
			   loglik(o, nall, dg, s2, nu, false);
		out->position = d != 0 ? stats_median(pos, no) : NAN;
		free(pos);
	}
	/* (a scale known on few degrees of freedom may be far too small:
	 * no decision rests on it but at the most runs) */
	if (at_cap || df >= BISECT_MIN_DF) {
		if (out->llr >= BISECT_LLR || (at_cap && out->llr > 0))
			out->verdict = BISECT_BAD;
		else if (out->llr <= -BISECT_LLR || (at_cap && out->llr < 0))
			out->verdict = BISECT_GOOD;
	}
	like = confirm ? (out->verdict == BISECT_BAD ? "changed as the ends did"
						     : "like its parent")
	       : out->verdict == BISECT_BAD ? "like bad"
					    : "like good";
	end_name = confirm ? "from its parent to the ends' change"
			   : "from good to bad";
	if (out->verdict != BISECT_UNSURE && isfinite(out->position) &&
	    out->position > 0.25 && out->position < 0.75)
		snprintf(between, sizeof between,
			 "; between the two, nearer %s",
			 out->verdict == BISECT_BAD
				 ? (confirm ? "the change" : "bad")
				 : (confirm ? "its parent" : "good"));
	{
		char ratio[48], pct[NUM_PCT_MAX];
		double lr = exp(fmin(fabs(out->llr), 700));

		snprintf(ratio, sizeof ratio,
			 out->llr >= 0 ? "%.3g:1 for bad" : "1:%.3g for bad",
			 lr);
		snprintf(reason, len,
			 "%s%s: %.2f of the way %s (%s), likelihood "
			 "ratio %s, %zu round%s%s%s",
			 out->verdict == BISECT_UNSURE ? "unsure"
			 : at_cap && fabs(out->llr) < BISECT_LLR
				 ? "at the most runs, likelier "
				 : "",
			 out->verdict == BISECT_UNSURE ? "" : like,
			 out->position, end_name,
			 num_pct(pct, sizeof pct, out->change_pct, "?"), ratio,
			 no, no == 1 ? "" : "s",
			 out->dropped ? " (and some with an outlier run left "
					"out)"
				      : "",
			 between);
		if (out->noisier) {
			size_t k = strlen(reason);

			snprintf(reason + k, len - k,
				 "; noisier than its series: on its own "
				 "rounds' noise");
		}
	}
done:
#undef X
	free(y);
	free(o);
}

/* Whether line starts with a SHA followed by a space: its length. */
static bool
sha_at(const char *s)
{
	for (int i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[40] == ' ' || s[40] == '\n' || s[40] == '\0';
}

static bool
listed(const char *sha, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(list[i], sha, 40) == 0)
			return true;
	return false;
}

bool
bisect_pick(const char *out, const char *bad, const char *const *skipped,
	    size_t nskipped, struct bisect_pick *p)
{
	struct buf left;
	bool bad_seen = false;

	memset(p, 0, sizeof *p);
	buf_init(&left);
	for (const char *l = out; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n == 0) {
			l += 1;
			continue;
		}
		if (!sha_at(l) || memchr(l, '(', n) == NULL) {
			buf_release(&left);
			return false;
		}
		p->candidates++;
		if (strncmp(l, bad, 40) == 0) {
			bad_seen = true;
			if (n > 81 && l[40] == ' ' && sha_at(l + 41))
				memcpy(p->parent, l + 41, 40);
		} else if (listed(l, skipped, nskipped)) {
			buf_addf(&left, "%s%.10s", left.len ? ", " : "", l);
		} else if (p->commit[0] == '\0') {
			memcpy(p->commit, l, 40);
		}
		l += n + (nl != NULL);
	}
	if (p->commit[0] != '\0') {
		p->next = BISECT_MID;
		memset(p->parent, 0, sizeof p->parent);
		buf_release(&left);
	} else if (left.len > 0) {
		p->next = BISECT_ALL_SKIPPED;
		buf_addf(&left, " or %.10s", bad);
		p->left = buf_detach(&left);
	} else if (bad_seen) {
		p->next = BISECT_FIRST_BAD;
		buf_release(&left);
	} else {
		p->next = BISECT_NONE;
		buf_release(&left);
	}
	return true;
}

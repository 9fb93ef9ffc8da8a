/*
 * stats.c: descriptive statistics and Student's t.
 *
 * The incomplete beta function is evaluated by its continued fraction
 * (modified Lentz), using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where
 * the fraction converges fast; the normal quantile is Acklam's rational
 * approximation refined by one Halley step.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/stats.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
insertion_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/*
 * Past a few dozen values, a radix sort: a comparison sort's branches on
 * random data mispredict half the time, and a side of 500 runs cost
 * quicksort 16 us.  The key of a double is its bits with the sign bit
 * flipped (all the bits for a negative one), which orders as the values
 * do; -0 takes the key of +0, since they compare equal.  Least
 * significant byte first and stable, so the order is any stable sort's,
 * as qsort()'s (a merge sort) was; bytes every key shares are skipped.
 */
#define RADIX_MIN 64

static uint64_t
radix_key(double d)
{
	uint64_t b;

	if (d == 0)
		d = 0; /* -0 is +0 */
	memcpy(&b, &d, sizeof b);
	return b >> 63 ? ~b : b | (UINT64_C(1) << 63);
}

static void
radix_sort(double *v, size_t n)
{
	size_t count[8][256];
	uint64_t *k = xreallocarray(NULL, 2 * n, sizeof *k);
	double *w = xreallocarray(NULL, n, sizeof *w);
	uint64_t *kin = k, *kout = k + n;
	double *vin = v, *vout = w;

	memset(count, 0, sizeof count);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = radix_key(v[i]);

		kin[i] = x;
		for (int b = 0; b < 8; b++)
			count[b][(x >> (8 * b)) & 255]++;
	}
	for (int b = 0; b < 8; b++) {
		size_t sum = 0, *c = count[b];

		if (c[(kin[0] >> (8 * b)) & 255] == n)
			continue; /* one byte for all */
		for (int d = 0; d < 256; d++) {
			size_t t = c[d];

			c[d] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t j = c[(kin[i] >> (8 * b)) & 255]++;

			kout[j] = kin[i];
			vout[j] = vin[i];
		}
		{
			uint64_t *tk = kin;
			double *tv = vin;

			kin = kout;
			kout = tk;
			vin = vout;
			vout = tv;
		}
	}
	if (vin != v)
		memcpy(v, vin, n * sizeof *v);
	free(k);
	free(w);
}

/* From scripts/gen-sortnet: 2 to SORTNET_MAX values by a network. */
#define SORTNET_MAX 16
void sortnet(double *v, size_t n);

/* A network is not stable: with both zeros among the values, -0 and +0
 * could change places, which a stable sort keeps. */
static bool
has_zero(const double *v, size_t n)
{
	bool z = false;

	for (size_t i = 0; i < n; i++)
		z |= v[i] == 0;
	return z;
}

void
stats_sort(double *v, size_t n)
{
	if (n >= RADIX_MIN)
		radix_sort(v, n);
	else if (n >= 2 && n <= SORTNET_MAX && !has_zero(v, n))
		sortnet(v, n);
	else
		insertion_sort(v, n);
}

double
stats_median(double *v, size_t n)
{
	stats_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The mean and the sum of squared deviations of n > 0 values, in two
 * passes: the mean is the (compensated) sum over n, so that integers
 * whose mean is an integer give it exactly, as LKP's sum / size does (its
 * table truncates the mean: a running mean an ulp short printed one
 * less), and n copies of one value give it, with no spread.  A sum
 * beyond the doubles (values near 1e308) falls back to a running mean,
 * which does not overflow.
 */
struct moments {
	double mean, sq;
};

static struct moments
moments_of(const double *v, size_t n)
{
	struct moments m = {0, 0};
	double sum = 0, comp = 0;
	bool same = true;

	for (size_t i = 0; i < n; i++) { /* Neumaier's summation */
		double t = sum + v[i];

		comp += fabs(sum) >= fabs(v[i]) ? (sum - t) + v[i]
						: (v[i] - t) + sum;
		sum = t;
		same &= v[i] == v[0];
	}
	/* n copies of one value: that value, with no spread (three 0.1s
	 * sum to a double whose third is not 0.1) */
	if (n > 0 && same) {
		m.mean = v[0];
		return m;
	}
	m.mean = (sum + comp) / (double)n;
	if (!isfinite(m.mean)) {
		m.mean = 0;
		for (size_t i = 0; i < n; i++)
			m.mean += (v[i] - m.mean) / (double)(i + 1);
	}
	for (size_t i = 0; i < n; i++) {
		double d = v[i] - m.mean;

		m.sq += d * d;
	}
	return m;
}

static void
summary_of(const double *sorted, size_t n, const struct moments *w,
	   struct stats_summary *out)
{
	out->n = n;
	out->mean = w->mean;
	out->stddev = sqrt(w->sq / (double)n);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = sorted[n / 2];
}

void
stats_summarize(const double *v, size_t n, double *sorted,
		struct stats_summary *out)
{
	/* The values are copied before sorting; sorted may be scratch. */
	double local[64], *own = NULL;
	struct moments w;

	if (sorted == NULL && n > 64)
		sorted = own = malloc(n * sizeof *own);
	if (sorted == NULL)
		sorted = local;
	memcpy(sorted, v, n * sizeof *v);
	stats_sort(sorted, n);
	w = moments_of(v, n);
	summary_of(sorted, n, &w, out);
	free(own);
}

void
stats_summarize_two(const double *a, size_t na, double *sa,
		    struct stats_summary *oa, const double *b, size_t nb,
		    double *sb, struct stats_summary *ob)
{
	struct moments wa, wb;

	memcpy(sa, a, na * sizeof *a);
	memcpy(sb, b, nb * sizeof *b);
	stats_sort(sa, na);
	stats_sort(sb, nb);
	wa = moments_of(a, na);
	wb = moments_of(b, nb);
	summary_of(sa, na, &wa, oa);
	summary_of(sb, nb, &wb, ob);
}

void
stats_mean_var(const double *v, size_t n, double *mean, double *var)
{
	struct moments m = {0, 0};

	if (n > 0)
		m = moments_of(v, n);
	*mean = m.mean;
	*var = n > 1 ? m.sq / (double)(n - 1) : 0;
}

#define BETACF_TINY 1e-300

/* One step of the modified Lentz method with coefficient aa: updates c
 * and d and returns the factor the fraction's value is multiplied by. */
static double
lentz_step(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < BETACF_TINY)
		*d = BETACF_TINY;
	*c = 1 + aa / *c;
	if (fabs(*c) < BETACF_TINY)
		*c = BETACF_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double
betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < BETACF_TINY)
		d = BETACF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz_step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c,
				&d);
		del = lentz_step(-(a + m) * (a + b + m) * x /
					 ((a + m2) * (a + m2 + 1)),
				 &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double
stats_incbeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double
stats_t_sf(double t, double df)
{
	double p;

	if (isinf(t))
		return t > 0 ? 0 : 1;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	p = 0.5 * stats_incbeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? p : 1 - p;
}

/* The regularized upper incomplete gamma function Q(a, x), for the
 * chi-square's tail (an F with infinite denominator): its series below
 * a + 1, its continued fraction above. */
static double
gamma_q(double a, double x)
{
	double sum, term, b, c, d, h;

	if (x <= 0)
		return 1;
	if (x < a + 1) {
		sum = term = 1 / a;
		for (int n = 1; n < 1000 && fabs(term) > fabs(sum) * 1e-15;
		     n++) {
			term *= x / (a + n);
			sum += term;
		}
		return 1 - sum * exp(-x + a * log(x) - lgamma(a));
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	d = 1 / b;
	h = d;
	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a), del;

		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

double
stats_f_sf(double f, double d1, double d2)
{
	if (!(f > 0))
		return 1;
	if (isinf(f))
		return 0;
	if (isinf(d2))
		return gamma_q(d1 / 2, d1 * f / 2);
	/* P(F > f) = I_{d2 / (d2 + d1 f)}(d2 / 2, d1 / 2) */
	return stats_incbeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

double
stats_digamma(double x)
{
	double r = 0, f;

	/* up to where the asymptotic series is good to 1e-12 */
	while (x < 10) {
		r -= 1 / x;
		x += 1;
	}
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 -
		    f * (1.0 / 120 -
			 f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double
stats_trigamma(double x)
{
	double r = 0, f;

	while (x < 10) {
		r += 1 / (x * x);
		x += 1;
	}
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

double
stats_norm_quantile(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {
		-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01};
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00,
				   3.754408661907416e+00};
	double q, r, x, e, u;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			     q +
		     c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p > 1 - 0.02425) {
		q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			      q +
		      c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
			     r +
		     a[5]) *
		    q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
			     r +
		     1);
	}
	/* One Halley step on erfc brings it to full precision. */
	e = 0.5 * erfc(-x / sqrt(2)) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

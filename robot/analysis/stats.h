/*
 * stats.h: descriptive statistics of one side's runs and the Student t
 * distribution, for the comparison engine.  No allocation, no state.
 */
#ifndef ROBOT_STATS_H
#define ROBOT_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double mean;   /* arithmetic mean */
	double stddev; /* population standard deviation, as LKP */
	double min;
	double max;
	double median; /* the upper median, sorted[n / 2], as LKP */
};

/*
 * Summarises n > 0 finite values.  sorted is scratch space for n values
 * (it holds them sorted afterwards), or NULL.
 */
void stats_summarize(const double *v, size_t n, double *sorted,
		     struct stats_summary *out);
/*
 * The summaries of two sides at once, each as stats_summarize() makes it
 * (the same figures, bit for bit), faster: sa and sb are scratch for na
 * and nb values, sorted afterwards.
 */
void stats_summarize_two(const double *a, size_t na, double *sa,
			 struct stats_summary *oa, const double *b, size_t nb,
			 double *sb, struct stats_summary *ob);
/* Sorts n values in place (no NaN among them). */
void stats_sort(double *v, size_t n);
/* The median of n > 0 values (the mean of the middle two when n is even),
 * sorting them in place. */
double stats_median(double *v, size_t n);
/* Mean and unbiased (n - 1) variance of n values, n >= 1 (var 0 if 1). */
void stats_mean_var(const double *v, size_t n, double *mean, double *var);
/* The regularized incomplete beta function I_x(a, b). */
double stats_incbeta(double a, double b, double x);
/* P(T > t) for Student's t with df > 0 degrees of freedom. */
double stats_t_sf(double t, double df);
/* P(F > f) for Snedecor's F with d1 and d2 > 0 degrees of freedom (1
 * for f <= 0); d2 may be INFINITY (then F is chi-square over d1). */
double stats_f_sf(double f, double d1, double d2);
/* The digamma and trigamma functions, x > 0. */
double stats_digamma(double x);
double stats_trigamma(double x);
/* The p quantile of the standard normal distribution, 0 < p < 1. */
double stats_norm_quantile(double p);

#endif

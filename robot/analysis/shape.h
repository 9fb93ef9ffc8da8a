/*
 * shape.h: the shape of a per-second series, which its mean, spread and
 * extremes lose: a steady 50k and an oscillation between 20k and 80k
 * have one mean.  The peak and the trough (the means of its top and
 * bottom tenths), and its dominant period when one is significant.
 */
#ifndef ROBOT_SHAPE_H
#define ROBOT_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

struct shape {
	double peak;     /* the mean of the top tenth (one value at least) */
	double trough;   /* the mean of the bottom tenth */
	bool periodic;   /* a period was found */
	double period;   /* in samples, when periodic */
	double strength; /* the autocorrelation at the period, when
			    periodic (0 to 1) */
};

/* The fewest samples a period is looked for in (three periods of 3). */
#define SHAPE_PERIOD_MIN_SAMPLES 9

/*
 * The shape of the n finite values v (n >= 1).  A period is the lag of
 * the autocorrelation's highest point in its first rise above zero
 * after it fell below, a straight line (a trend) taken out and the rest
 * ranked (outliers count as one rank each): at most n / 3 samples
 * (three periods seen; a random walk looks like one or two slow
 * swings), and only when that point reaches 0.5 and 4 of its standard
 * errors, with the fall's bottom half way to it (an oscillation swings;
 * noise and drift do not); refined between samples by a parabola.
 */
void shape_of(const double *v, size_t n, struct shape *out);

#endif

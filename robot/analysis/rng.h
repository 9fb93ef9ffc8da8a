/*
 * rng.h: random numbers for the analysis' own use (the change points'
 * permutations) and for the benches and tests that simulate runs:
 * xoshiro256** seeded by splitmix64, so that a seed gives one sequence
 * everywhere.  Not for secrets.
 */
#ifndef ROBOT_RNG_H
#define ROBOT_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* A uniform number in [0, 1), 53 bits. */
double rng_uniform(struct rng *r);
/* A uniform integer below n > 0 (Lemire's multiply-shift; its bias,
 * below n / 2^64, is immaterial here). */
size_t rng_below(struct rng *r, size_t n);
/* A standard normal number (Marsaglia's polar method). */
double rng_gauss(struct rng *r);

#endif

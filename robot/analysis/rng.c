/*
 * rng.c: xoshiro256** (Blackman and Vigna) seeded by splitmix64.
 */
#include <math.h>

#include "robot/analysis/rng.h"
#include "robot/core/banned.h"

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void
rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

double
rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

size_t
rng_below(struct rng *r, size_t n)
{
	return (size_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

double
rng_gauss(struct rng *r)
{
	double u, v, s;

	do {
		u = 2 * rng_uniform(r) - 1;
		v = 2 * rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

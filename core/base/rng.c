/*
 * rng.c - xoshiro256** seeded by splitmix64: the same stream on every
 * machine for a given seed, with the state held by the caller.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_internal.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void topomatch_rng_seed(topomatch_rng_t *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t topomatch_rng_next(topomatch_rng_t *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t topomatch_rng_below(topomatch_rng_t *r, uint64_t bound)
{
	if (bound <= 1)
		return 0;
	/* rejection sampling: drop the top partial range to stay unbiased */
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t x;
	do
		x = topomatch_rng_next(r);
	while (x >= limit);
	return x % bound;
}

double topomatch_rng_uniform(topomatch_rng_t *r)
{
	return (double)(topomatch_rng_next(r) >> 11) * 0x1.0p-53;
}

double topomatch_rng_normal(topomatch_rng_t *r)
{
	/* Box-Muller; u1 in (0, 1] so that log() is finite */
	double u1 = 1.0 - topomatch_rng_uniform(r);
	double u2 = topomatch_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

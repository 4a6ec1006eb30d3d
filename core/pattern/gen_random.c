/*
 * gen_random.c - random sparse and all-to-all patterns.
 *
 * The random generator never holds an ntasks x ntasks structure: each row
 * draws its `degree` distinct targets with Floyd's sampling algorithm
 * (exactly `degree` draws, even when degree is close to ntasks, where plain
 * rejection would degrade to a coupon collector), remembered in a small
 * hash set of about 2 x degree slots.  Weights are whole numbers (message
 * volumes are), uniform in [1, floor(maxw)], so every output format holds them.
 * RNG order: row by row, one target draw then one weight draw per entry.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Open-addressing set of values >= 0 (empty slot: -1). */
struct idset {
	int64_t *slot;
	uint64_t mask;
};

static int idset_init(struct idset *s, int64_t count)
{
	uint64_t cap = 2;

	while (cap < 2 * (uint64_t)count)
		cap *= 2;
	s->slot = tm_alloc((int64_t)cap, sizeof(*s->slot));
	s->mask = cap - 1;
	return s->slot ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
}

static void idset_clear(struct idset *s)
{
	memset(s->slot, 0xff, (size_t)(s->mask + 1) * sizeof(*s->slot));
}

/* Insert v; false when it was already there. */
static bool idset_add(struct idset *s, int64_t v)
{
	uint64_t h = ((uint64_t)v * UINT64_C(0x9E3779B97F4A7C15)) >> 32;

	for (;; h++) {
		int64_t *p = &s->slot[h & s->mask];
		if (*p == v)
			return false;
		if (*p < 0) {
			*p = v;
			return true;
		}
	}
}

/* The `degree` entries of row i (Floyd: a distinct sample of the n - 1
 * other tasks, numbered 0..n-2 and shifted past i). */
static int random_row(int64_t n, int64_t i, int64_t degree, double maxw,
		      topomatch_rng_t *rng, struct idset *seen, tm_coo_t *coo)
{
	idset_clear(seen);
	for (int64_t j = n - 1 - degree; j < n - 1; j++) {
		int64_t t = (int64_t)topomatch_rng_below(rng, (uint64_t)j + 1);
		if (!idset_add(seen, t)) {
			t = j; /* every value taken so far is < j */
			idset_add(seen, t);
		}
		double w = 1.0 + (double)topomatch_rng_below(rng, (uint64_t)(maxw - 1.0) + 1);
		int rc = tm_coo_push(coo, i, t < i ? t : t + 1, w, coo->cap);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	return TOPOMATCH_OK;
}

static int check_random(int64_t ntasks, int64_t degree, double maxw, int64_t *m, char *err)
{
	if (ntasks < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "random: ntasks must be >= 1 (got %lld)",
			      (long long)ntasks);
	if (ntasks > TOPOMATCH_DEFAULT_MAX_TASKS)
		return tm_err(err, TOPOMATCH_ELIMIT, "random: %lld tasks exceed the limit of %lld",
			      (long long)ntasks, (long long)TOPOMATCH_DEFAULT_MAX_TASKS);
	if (degree < 0 || degree >= ntasks)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "random: degree must be in [0, ntasks - 1] = [0, %lld] (got %lld)",
			      (long long)(ntasks - 1), (long long)degree);
	if (!isfinite(maxw) || !(maxw >= 1.0) || maxw > 0x1p53)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "random: maxw must be in [1, 2^53] (got %g)", maxw);
	if (!tm_mul_ok(ntasks, degree, m) || *m > TOPOMATCH_DEFAULT_MAX_NNZ)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "random: %lld tasks x degree %lld exceed the limit of %lld entries",
			      (long long)ntasks, (long long)degree,
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	return TOPOMATCH_OK;
}

int topomatch_gen_random(int64_t ntasks, int64_t degree, double maxw, uint64_t seed,
			 topomatch_affinity_t **out, char *err)
{
	int64_t m = 0;

	*out = NULL;
	int rc = check_random(ntasks, degree, maxw, &m, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	tm_coo_t coo;
	struct idset seen;
	if (gen_coo_reserve(&coo, m) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM, "random: out of memory for %lld entries",
			      (long long)m);
	if (idset_init(&seen, degree) != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		return tm_err(err, TOPOMATCH_ENOMEM, "random: out of memory");
	}
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, seed);
	for (int64_t i = 0; i < ntasks && rc == TOPOMATCH_OK; i++)
		rc = random_row(ntasks, i, degree, maxw, &rng, &seen, &coo);
	free(seen.slot);
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		return tm_err(err, rc, "random: internal error collecting entries");
	}
	return gen_coo_finish(ntasks, &coo, NULL, out, err);
}

int topomatch_gen_alltoall(int64_t ntasks, double w, int64_t max_nnz,
			   topomatch_affinity_t **out, char *err)
{
	int64_t m;

	*out = NULL;
	if (ntasks < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "all-to-all: ntasks must be >= 1 (got %lld)",
			      (long long)ntasks);
	if (!isfinite(w) || !(w > 0.0))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "all-to-all: weight must be finite and > 0 (got %g)", w);
	if (max_nnz <= 0)
		max_nnz = TOPOMATCH_DEFAULT_MAX_NNZ;
	if (!tm_mul_ok(ntasks, ntasks - 1, &m) || m > max_nnz)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "all-to-all: %lld tasks need %lld x %lld entries, above the limit "
			      "of %lld",
			      (long long)ntasks, (long long)ntasks, (long long)(ntasks - 1),
			      (long long)max_nnz);
	tm_coo_t coo;
	if (gen_coo_reserve(&coo, m) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM, "all-to-all: out of memory for %lld entries",
			      (long long)m);
	for (int64_t i = 0; i < ntasks; i++)
		for (int64_t j = 0; j < ntasks; j++)
			if (i != j)
				(void)tm_coo_push(&coo, i, j, w, m); /* m is exact */
	return gen_coo_finish(ntasks, &coo, NULL, out, err);
}

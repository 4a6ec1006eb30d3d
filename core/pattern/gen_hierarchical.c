/*
 * gen_hierarchical.c - the synthetic hierarchical matrices of TreeMatch
 * §5.1: "distinct pairs of processes communicate a lot together, then
 * pairs of pairs communicate a little bit less, etc."
 *
 * Task ids are mixed-radix numbers with arity[0] as the fastest digit, so
 * that the level-L group of task i is i / (arity[0] * ... * arity[L-1]).
 * Two tasks whose smallest common group is at level L exchange
 * base / ratio^(L-1) in each direction, times a factor drawn uniformly in
 * [1 - jitter, 1 + jitter) once per unordered pair (C stays symmetric).
 * The RNG is drawn for pairs (i, j), i < j, in row-major order.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"

#include <float.h>
#include <math.h>

static int check_weights(int nlevels, double base, double ratio, double jitter, char *err)
{
	if (!isfinite(base) || !(base > 0.0))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: base must be finite and > 0 (got %g)", base);
	if (!isfinite(ratio) || !(ratio > 1.0))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: ratio must be finite and > 1 (got %g)", ratio);
	if (!(jitter >= 0.0 && jitter < 1.0))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: jitter must be in [0, 1) (got %g)", jitter);
	/* The matrix must stay clearly hierarchical (TreeMatch §5.1): the
	 * lowest level-L weight has to beat the highest level-(L+1) one. */
	if (!((1.0 - jitter) * ratio > 1.0 + jitter))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: jitter %g is too large for ratio %g: the levels "
			      "would overlap; need (1 - jitter) * ratio > 1 + jitter, i.e. "
			      "jitter < (ratio - 1) / (ratio + 1) = %g",
			      jitter, ratio, (ratio - 1.0) / (ratio + 1.0));
	double low = base * (1.0 - jitter);
	for (int l = 1; l < nlevels; l++)
		low /= ratio;
	if (!isfinite(base * (1.0 + jitter)) || !(low >= DBL_MIN))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: base %g and ratio %g over %d levels leave the "
			      "range of doubles",
			      base, ratio, nlevels);
	return TOPOMATCH_OK;
}

/* group[l] = size of a level-l group (group[0] = 1); returns ntasks. */
static int group_sizes(int nlevels, const int *arity, int64_t *group, char *err)
{
	if (nlevels < 1 || nlevels > TOPOMATCH_MAX_LEVELS)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "hierarchical: nlevels must be in [1, %d] (got %d)",
			      TOPOMATCH_MAX_LEVELS, nlevels);
	if (!arity)
		return tm_err(err, TOPOMATCH_EINVAL, "hierarchical: no arity given");
	group[0] = 1;
	for (int l = 0; l < nlevels; l++) {
		if (arity[l] < 1)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "hierarchical: arity of level %d is %d, must be >= 1", l + 1,
				      arity[l]);
		if (!tm_mul_ok(group[l], arity[l], &group[l + 1]) ||
		    group[l + 1] > TOPOMATCH_DEFAULT_MAX_TASKS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "hierarchical: more than %lld tasks",
				      (long long)TOPOMATCH_DEFAULT_MAX_TASKS);
	}
	return TOPOMATCH_OK;
}

/* Smallest level (1 = innermost) whose groups hold both i and j. */
static int common_level(int64_t i, int64_t j, const int64_t *group)
{
	int l = 1;

	while (i / group[l] != j / group[l])
		l++; /* stops at nlevels: one group holds every task */
	return l;
}

static int fill(int64_t n, const int64_t *group, const double *lw, double jitter,
		uint64_t seed, tm_coo_t *coo)
{
	topomatch_rng_t rng;

	topomatch_rng_seed(&rng, seed);
	for (int64_t i = 0; i < n; i++) {
		for (int64_t j = i + 1; j < n; j++) {
			double f = 1.0 + jitter * (2.0 * topomatch_rng_uniform(&rng) - 1.0);
			double w = lw[common_level(i, j, group)] * f;
			int rc = tm_coo_push(coo, i, j, w, coo->cap);
			if (rc == TOPOMATCH_OK)
				rc = tm_coo_push(coo, j, i, w, coo->cap);
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	}
	return TOPOMATCH_OK;
}

int topomatch_gen_hierarchical(int nlevels, const int *arity, double base, double ratio,
			       double jitter, uint64_t seed, topomatch_affinity_t **out,
			       char *err)
{
	int64_t group[TOPOMATCH_MAX_LEVELS + 1];
	double lw[TOPOMATCH_MAX_LEVELS + 1];

	*out = NULL;
	int rc = group_sizes(nlevels, arity, group, err);
	if (rc == TOPOMATCH_OK)
		rc = check_weights(nlevels, base, ratio, jitter, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	int64_t n = group[nlevels], m;
	/* every pair communicates: the pattern is dense by construction */
	if (!tm_mul_ok(n, n - 1, &m) || m > TOPOMATCH_DEFAULT_MAX_NNZ)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "hierarchical: %lld tasks make a dense pattern of %lld x %lld "
			      "entries, above the limit of %lld",
			      (long long)n, (long long)n, (long long)(n - 1),
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	lw[1] = base;
	for (int l = 2; l <= nlevels; l++)
		lw[l] = lw[l - 1] / ratio;
	tm_coo_t coo;
	if (gen_coo_reserve(&coo, m) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM,
			      "hierarchical: out of memory for %lld entries", (long long)m);
	rc = fill(n, group, lw, jitter, seed, &coo);
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		return tm_err(err, rc, "hierarchical: internal error collecting entries");
	}
	return gen_coo_finish(n, &coo, NULL, out, err);
}

/*
 * affinity_transform.c - derive a new pattern from an existing one:
 * random relabelling of the tasks, scaling of the weights, and the noise
 * models of TopoMatch §5.5.
 *
 * Both are deterministic for a seed: the RNG is drawn in a fixed order
 * (Fisher-Yates from the last task down; noise row-major over i, then j).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"
#include "pattern_internal.h"

#include <math.h>
#include <stdlib.h>
#include <strings.h>

/*
 * Shuffle direction: task i of the input becomes task perm[i] of the
 * output, so C'(perm[i], perm[j]) = C(i, j) and load'[perm[i]] = load[i].
 * perm is Fisher-Yates over 0..n-1 from the seed, swapping from the end.
 */
static int64_t *make_perm(int64_t n, uint64_t seed)
{
	int64_t *perm = tm_alloc(n, sizeof(*perm));
	topomatch_rng_t rng;

	if (!perm)
		return NULL;
	for (int64_t i = 0; i < n; i++)
		perm[i] = i;
	topomatch_rng_seed(&rng, seed);
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)topomatch_rng_below(&rng, (uint64_t)i + 1);
		int64_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	return perm;
}

/* C'(perm[i], perm[j]) = scale x C(i, j); perm NULL: the identity. */
static int relabel(const topomatch_affinity_t *a, const int64_t *perm, double scale,
		   double **loads, tm_coo_t *coo)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	const double *in = topomatch_affinity_loads(a);

	*loads = NULL;
	if (gen_coo_reserve(coo, c.rowptr[c.n]) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < c.n; i++)
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
			(void)tm_coo_push(coo, perm ? perm[i] : i, perm ? perm[c.col[p]] : c.col[p],
					  scale * c.w[p], coo->cap);
	if (!in)
		return TOPOMATCH_OK;
	*loads = tm_alloc(c.n, sizeof(**loads));
	if (!*loads) {
		tm_coo_free(coo);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t i = 0; i < c.n; i++)
		(*loads)[perm ? perm[i] : i] = in[i];
	return TOPOMATCH_OK;
}

static int transform(const topomatch_affinity_t *a, const int64_t *perm, double scale,
		     topomatch_affinity_t **out, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a);
	tm_coo_t coo;
	double *loads;
	int rc = relabel(a, perm, scale, &loads, &coo);
	if (rc != TOPOMATCH_OK)
		return tm_err(err, rc, "pattern copy: out of memory for %lld tasks", (long long)n);
	rc = gen_coo_finish(n, &coo, loads, out, err);
	free(loads);
	return rc;
}

int tm_affinity_relabel(const topomatch_affinity_t *a, const int64_t *perm,
			topomatch_affinity_t **out, char *err)
{
	return transform(a, perm, 1.0, out, err);
}

int tm_affinity_scale(const topomatch_affinity_t *a, double scale, topomatch_affinity_t **out,
		      char *err)
{
	return transform(a, NULL, scale, out, err);
}

int tm_affinity_groups(const topomatch_affinity_t *a, int64_t g, topomatch_affinity_t **out,
		       char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	const double *in = topomatch_affinity_loads(a);
	int64_t ng = (c.n + g - 1) / g;
	double *loads = in ? tm_zalloc(ng, sizeof(*loads)) : NULL;
	tm_coo_t coo;
	int rc = gen_coo_reserve(&coo, c.rowptr[c.n]);

	*out = NULL;
	if (rc != TOPOMATCH_OK || (in && !loads)) {
		tm_coo_free(&coo);
		free(loads);
		return tm_err(err, TOPOMATCH_ENOMEM, "groups: out of memory");
	}
	/* tm_affinity_from_coo sums the pairs that land on one pair of groups */
	for (int64_t i = 0; i < c.n; i++) {
		if (loads)
			loads[i / g] += in[i];
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
			if (i / g != c.col[p] / g)
				(void)tm_coo_push(&coo, i / g, c.col[p] / g, c.w[p], coo.cap);
	}
	rc = gen_coo_finish(ng, &coo, loads, out, err);
	free(loads);
	return rc;
}

int topomatch_affinity_shuffle(const topomatch_affinity_t *a, uint64_t seed,
			       topomatch_affinity_t **out, char *err)
{
	*out = NULL;
	if (!a)
		return tm_err(err, TOPOMATCH_EINVAL, "shuffle: no pattern given");
	int64_t *perm = make_perm(topomatch_affinity_ntasks(a), seed);
	if (!perm)
		return tm_err(err, TOPOMATCH_ENOMEM, "shuffle: out of memory");
	int rc = tm_affinity_relabel(a, perm, out, err);
	free(perm);
	return rc;
}

static const struct {
	const char *abbrev;
	const char *name;
	int model;
} noise_names[] = {
	{ "ga", "gaussian-additive", TOPOMATCH_NOISE_GA },
	{ "gm", "gaussian-multiplicative", TOPOMATCH_NOISE_GM },
	{ "ua", "uniform-additive", TOPOMATCH_NOISE_UA },
	{ "um", "uniform-multiplicative", TOPOMATCH_NOISE_UM },
};

int topomatch_noise_from_name(const char *name)
{
	if (!name)
		return -1;
	for (size_t k = 0; k < sizeof(noise_names) / sizeof(noise_names[0]); k++)
		if (!strcasecmp(name, noise_names[k].abbrev) ||
		    !strcasecmp(name, noise_names[k].name))
			return noise_names[k].model;
	return -1;
}

static bool is_additive(int model)
{
	return model == TOPOMATCH_NOISE_GA || model == TOPOMATCH_NOISE_UA;
}

/* The model's random term: N(0, k) (k is the standard deviation) or U(-k, k). */
static double draw(topomatch_rng_t *rng, int model, double k)
{
	if (model == TOPOMATCH_NOISE_GA || model == TOPOMATCH_NOISE_GM)
		return k * topomatch_rng_normal(rng);
	return k * (2.0 * topomatch_rng_uniform(rng) - 1.0);
}

/* Keep v when positive: TopoMatch §5.5 truncates negatives to 0, and
 * zeros are not stored. */
static int keep(tm_coo_t *coo, int64_t i, int64_t j, double v)
{
	if (!(v > 0.0))
		return TOPOMATCH_OK;
	if (!isfinite(v))
		return TOPOMATCH_EINVAL;
	return tm_coo_push(coo, i, j, v, coo->cap);
}

/* m + m X on the stored entries only: the zeros would stay 0 anyway. */
static int noise_mult(topomatch_csr_t c, int model, double k, topomatch_rng_t *rng,
		      tm_coo_t *coo)
{
	for (int64_t i = 0; i < c.n; i++) {
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++) {
			double m = c.w[p];
			int rc = keep(coo, i, c.col[p], m + m * draw(rng, model, k));
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	}
	return TOPOMATCH_OK;
}

/* m + X on every off-diagonal entry, zeros included (the paper's model). */
static int noise_add(topomatch_csr_t c, int model, double k, topomatch_rng_t *rng,
		     tm_coo_t *coo)
{
	for (int64_t i = 0; i < c.n; i++) {
		int64_t p = c.rowptr[i];
		for (int64_t j = 0; j < c.n; j++) {
			if (j == i)
				continue;
			double m = 0.0;
			if (p < c.rowptr[i + 1] && c.col[p] == j)
				m = c.w[p++];
			int rc = keep(coo, i, j, m + draw(rng, model, k));
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	}
	return TOPOMATCH_OK;
}

static int check_noise(const topomatch_affinity_t *a, int model, double k, int64_t max_nnz,
		       int64_t *cap, char *err)
{
	if (!a)
		return tm_err(err, TOPOMATCH_EINVAL, "noise: no pattern given");
	if (model < TOPOMATCH_NOISE_GA || model > TOPOMATCH_NOISE_UM)
		return tm_err(err, TOPOMATCH_EINVAL, "noise: unknown model %d", model);
	if (!isfinite(k) || !(k >= 0.0))
		return tm_err(err, TOPOMATCH_EINVAL, "noise: k must be finite and >= 0 (got %g)",
			      k);
	int64_t n = topomatch_affinity_ntasks(a);
	*cap = topomatch_affinity_nnz(a);
	if (!is_additive(model))
		return TOPOMATCH_OK;
	if (max_nnz <= 0)
		max_nnz = TOPOMATCH_DEFAULT_MAX_NNZ;
	if (!tm_mul_ok(n, n - 1, cap) || *cap > max_nnz)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "noise: additive noise makes all %lld x %lld entries of a %lld-task "
			      "pattern non-zero, above the limit of %lld; use a multiplicative "
			      "model (gm, um), which keeps the sparsity",
			      (long long)n, (long long)(n - 1), (long long)n, (long long)max_nnz);
	return TOPOMATCH_OK;
}

int topomatch_affinity_noise(const topomatch_affinity_t *a, int model, double k,
			     uint64_t seed, int64_t max_nnz, topomatch_affinity_t **out,
			     char *err)
{
	int64_t cap;

	*out = NULL;
	int rc = check_noise(a, model, k, max_nnz, &cap, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	tm_coo_t coo;
	if (gen_coo_reserve(&coo, cap) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM, "noise: out of memory for %lld entries",
			      (long long)cap);
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, seed);
	topomatch_csr_t c = topomatch_affinity_directed(a);
	if (is_additive(model))
		rc = noise_add(c, model, k, &rng, &coo);
	else
		rc = noise_mult(c, model, k, &rng, &coo);
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		if (rc == TOPOMATCH_EINVAL)
			return tm_err(err, rc, "noise: k = %g overflows the weights", k);
		return tm_err(err, rc, "noise: internal error collecting entries");
	}
	return gen_coo_finish(topomatch_affinity_ntasks(a), &coo, topomatch_affinity_loads(a),
			      out, err);
}

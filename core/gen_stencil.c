/*
 * gen_stencil.c - halo-exchange patterns of 2D/3D stencil codes.
 *
 * Conventions (the header states the rest):
 *  - every task sends one message per neighbour direction; when two
 *    directions reach the same task (periodic dimension of size 2, where
 *    +1 and -1 are the same task), both messages are counted, so the entry
 *    is the sum (C(0,1) = 2 w on a ring of two tasks), as a real periodic
 *    halo exchange sends both halos;
 *  - a dimension of size 1 has no neighbour in it, periodic or not: the
 *    wrap-around would be the task itself;
 *  - a diagonal neighbour receives the smallest weight among the
 *    dimensions it crosses (its halo is a corner/edge of the faces).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"

#include <math.h>

#define MAX_OFFSETS 26

/* One neighbour direction: a step of -1, 0 or +1 per dimension. */
struct offset {
	int s[3];
	double w;
};

static int check_args(int ndims, const int *dims, int points, const double *weight, char *err)
{
	if (ndims != 2 && ndims != 3)
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: ndims must be 2 or 3 (got %d)",
			      ndims);
	if (!dims)
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: no dimensions given");
	int faces = 2 * ndims + 1, full = ndims == 2 ? 9 : 27;
	if (points != faces && points != full)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "stencil: a %dD stencil has %d or %d points (got %d)", ndims, faces,
			      full, points);
	for (int d = 0; d < ndims; d++) {
		if (dims[d] < 1)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "stencil: dimension %d has size %d, sizes must be >= 1", d,
				      dims[d]);
		if (weight && (!isfinite(weight[d]) || weight[d] < 0.0))
			return tm_err(err, TOPOMATCH_EINVAL,
				      "stencil: weight of dimension %d must be finite and >= 0 "
				      "(got %g)",
				      d, weight[d]);
	}
	return TOPOMATCH_OK;
}

/* The directions of the stencil, with the volume each one carries. */
static int make_offsets(int ndims, int points, const double *weight, struct offset *off)
{
	int n = 0;

	for (int code = 0; code < 27; code++) {
		int s[3] = { code % 3 - 1, code / 3 % 3 - 1, code / 9 - 1 };
		int crossed = (s[0] != 0) + (s[1] != 0) + (s[2] != 0);
		if (crossed == 0 || (ndims == 2 && s[2] != 0))
			continue;
		if (crossed > 1 && points == 2 * ndims + 1)
			continue;
		double w = INFINITY;
		for (int d = 0; d < ndims; d++)
			if (s[d] != 0 && (weight ? weight[d] : 1.0) < w)
				w = weight ? weight[d] : 1.0;
		off[n] = (struct offset){ { s[0], s[1], s[2] }, w };
		n++;
	}
	return n;
}

/* Coordinate reached from c by step s in a dimension of size len, or -1. */
static int step(int c, int s, int len, int periodic)
{
	if (s == 0)
		return c;
	if (len == 1)
		return -1;
	int t = c + s;
	if (t >= 0 && t < len)
		return t;
	return periodic ? (t + len) % len : -1;
}

/* How many tasks have a neighbour in direction o (exact entry count). */
static int64_t offset_count(const struct offset *o, const int *len, int periodic)
{
	int64_t count = 1;

	for (int d = 0; d < 3; d++) {
		int64_t k = len[d];
		if (o->s[d] != 0)
			k = len[d] == 1 ? 0 : (periodic ? len[d] : len[d] - 1);
		count *= k; /* <= ntasks, checked by the caller */
	}
	return count;
}

static int fill(const int *len, int64_t n, const struct offset *off, int noff, int periodic,
		tm_coo_t *coo)
{
	for (int64_t id = 0; id < n; id++) {
		int c[3] = { (int)(id % len[0]), (int)(id / len[0] % len[1]),
			     (int)(id / ((int64_t)len[0] * len[1])) };
		for (int k = 0; k < noff; k++) {
			int x = step(c[0], off[k].s[0], len[0], periodic);
			int y = step(c[1], off[k].s[1], len[1], periodic);
			int z = step(c[2], off[k].s[2], len[2], periodic);
			if (x < 0 || y < 0 || z < 0)
				continue;
			int64_t to = x + (int64_t)len[0] * (y + (int64_t)len[1] * z);
			int rc = tm_coo_push(coo, id, to, off[k].w, coo->cap);
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	}
	return TOPOMATCH_OK;
}

int topomatch_gen_stencil(int ndims, const int *dims, int points, int periodic,
			  const double *weight, topomatch_affinity_t **out, char *err)
{
	*out = NULL;
	int rc = check_args(ndims, dims, points, weight, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	int len[3] = { dims[0], dims[1], ndims == 3 ? dims[2] : 1 };
	int64_t n = 1;
	for (int d = 0; d < 3; d++)
		if (!tm_mul_ok(n, len[d], &n) || n > TOPOMATCH_DEFAULT_MAX_TASKS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "stencil: the grid has more than %lld tasks",
				      (long long)TOPOMATCH_DEFAULT_MAX_TASKS);
	struct offset off[MAX_OFFSETS];
	int noff = make_offsets(ndims, points, weight, off);
	int64_t m = 0;
	for (int k = 0; k < noff; k++)
		if (!tm_add_ok(m, offset_count(&off[k], len, periodic), &m))
			m = INT64_MAX;
	if (m > TOPOMATCH_DEFAULT_MAX_NNZ)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "stencil: %lld entries exceed the limit of %lld", (long long)m,
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	tm_coo_t coo;
	if (gen_coo_reserve(&coo, m) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM, "stencil: out of memory for %lld entries",
			      (long long)m);
	rc = fill(len, n, off, noff, !!periodic, &coo);
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		return tm_err(err, rc, "stencil: internal error collecting entries");
	}
	return gen_coo_finish(n, &coo, NULL, out, err);
}

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
 * topomatch_gen_stencil_shape is the same with a wrap-around flag per
 * dimension; topomatch_stencil_detect recognises such a stencil in a
 * (recorded) pattern and topomatch_stencil_rescale resizes it (gen
 * --from-profile), see the end of the file.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"

#include <math.h>
#include <string.h>

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
static int64_t offset_count(const struct offset *o, const int *len, const unsigned char *wrap)
{
	int64_t count = 1;

	for (int d = 0; d < 3; d++) {
		int64_t k = len[d];
		if (o->s[d] != 0)
			k = len[d] == 1 ? 0 : (wrap[d] ? len[d] : len[d] - 1);
		count *= k; /* <= ntasks, checked by the caller */
	}
	return count;
}

static int fill(const int *len, int64_t n, const struct offset *off, int noff,
		const unsigned char *wrap, tm_coo_t *coo)
{
	for (int64_t id = 0; id < n; id++) {
		int c[3] = { (int)(id % len[0]), (int)(id / len[0] % len[1]),
			     (int)(id / ((int64_t)len[0] * len[1])) };
		for (int k = 0; k < noff; k++) {
			int x = step(c[0], off[k].s[0], len[0], wrap[0]);
			int y = step(c[1], off[k].s[1], len[1], wrap[1]);
			int z = step(c[2], off[k].s[2], len[2], wrap[2]);
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

/* The stencil with a wrap flag per dimension (wrap[2] unused in 2D). */
static int gen(int ndims, const int *dims, int points, const unsigned char *wrap,
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
		if (!tm_add_ok(m, offset_count(&off[k], len, wrap), &m))
			m = INT64_MAX;
	if (m > TOPOMATCH_DEFAULT_MAX_NNZ)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "stencil: %lld entries exceed the limit of %lld", (long long)m,
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	tm_coo_t coo;
	if (gen_coo_reserve(&coo, m) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_ENOMEM, "stencil: out of memory for %lld entries",
			      (long long)m);
	rc = fill(len, n, off, noff, wrap, &coo);
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&coo);
		return tm_err(err, rc, "stencil: internal error collecting entries");
	}
	return gen_coo_finish(n, &coo, NULL, out, err);
}

int topomatch_gen_stencil(int ndims, const int *dims, int points, int periodic,
			  const double *weight, topomatch_affinity_t **out, char *err)
{
	unsigned char wrap[3] = { !!periodic, !!periodic, !!periodic };

	return gen(ndims, dims, points, wrap, weight, out, err);
}

int topomatch_gen_stencil_shape(const topomatch_stencil_shape_t *s, topomatch_affinity_t **out,
				char *err)
{
	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: no result pointer");
	*out = NULL;
	if (!s)
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: no shape given");
	for (int d = 0; d < 3; d++)
		if (s->periodic[d] > 1)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "stencil: periodic[%d] must be 0 or 1 (got %d)", d,
				      s->periodic[d]);
	unsigned char wrap[3] = { s->periodic[0], s->periodic[1],
				  s->ndims == 3 ? s->periodic[2] : 0 };
	return gen(s->ndims, s->dims, s->points, wrap, s->weight, out, err);
}


/* ------------------------------------------------------------------ */
/* Recognising a stencil (gen --from-profile)                          */
/* ------------------------------------------------------------------ */

/*
 * A candidate grid comes from task 0's row: in the x-fastest order its +x
 * neighbour is task 1, its +y neighbour task X and its +z neighbour task
 * X Y, whether the grid wraps or not, so X and X Y are among the columns
 * of row 0 (few for a stencil, so few candidates, each checked against
 * the whole pattern in three passes over its entries and no other memory:
 * the model's weight of a pair is computed, not generated).
 */

#define DETECT_MAX_ROW0 64 /* a stencil row has at most 26 entries, plus noise */

struct cand {
	int nd;
	int64_t len[3]; /* len[2] = 1 in 2D */
	int64_t n;
	topomatch_stencil_shape_t shape;
	double explained; /* weight on the stencil */
	char reason[200]; /* why it failed */
};

static void coords(int64_t id, const int64_t *len, int64_t *c)
{
	c[0] = id % len[0];
	c[1] = id / len[0] % len[1];
	c[2] = id / (len[0] * len[1]);
}

/* The steps s in {-1, 0, +1} that lead from coordinate a to b in a
 * dimension of size len (2 steps when len = 2 and it wraps). */
static int steps_to(int64_t a, int64_t b, int64_t len, int wrap, int *s)
{
	int k = 0;

	for (int st = -1; st <= 1; st++) {
		int t = step((int)a, st, (int)len, wrap);
		if (t >= 0 && t == b)
			s[k++] = st;
	}
	return k;
}

/* What the model sends from i to j: the sum over the stencil's directions
 * that lead there (0: not a neighbour). */
static double model_weight(const struct cand *c, int points, const int64_t *ci,
			   const int64_t *cj)
{
	int s[3][3], ns[3];
	double w = 0.0;

	for (int d = 0; d < 3; d++) {
		ns[d] = steps_to(ci[d], cj[d], c->len[d], c->shape.periodic[d], s[d]);
		if (ns[d] == 0)
			return 0.0;
	}
	for (int a = 0; a < ns[0]; a++)
		for (int b = 0; b < ns[1]; b++)
			for (int e = 0; e < ns[2]; e++) {
				int st[3] = { s[0][a], s[1][b], s[2][e] };
				int crossed = (st[0] != 0) + (st[1] != 0) + (st[2] != 0);
				if (crossed == 0 || (crossed > 1 && points == 2 * c->nd + 1))
					continue;
				double m = INFINITY;
				for (int d = 0; d < c->nd; d++)
					if (st[d] != 0 && c->shape.weight[d] < m)
						m = c->shape.weight[d];
				w += m;
			}
	return w;
}

/* Distinct neighbours of every task in the model: its entry count. */
static int64_t model_entries(const struct cand *c, int points)
{
	struct offset off[MAX_OFFSETS];
	int noff = make_offsets(c->nd, points, NULL, off);
	int64_t count = 0;

	for (int64_t id = 0; id < c->n; id++) {
		int64_t ci[3], seen[MAX_OFFSETS];
		int nseen = 0;
		coords(id, c->len, ci);
		for (int k = 0; k < noff; k++) {
			int64_t t[3];
			bool ok = true;
			for (int d = 0; d < 3 && ok; d++) {
				int v = step((int)ci[d], off[k].s[d], (int)c->len[d],
					     c->shape.periodic[d]);
				ok = v >= 0;
				t[d] = v;
			}
			if (!ok)
				continue;
			int64_t to = t[0] + c->len[0] * (t[1] + c->len[1] * t[2]);
			bool dup = to == id;
			for (int q = 0; q < nseen && !dup; q++)
				dup = seen[q] == to;
			if (!dup)
				seen[nseen++] = to;
		}
		count += nseen;
	}
	return count;
}

/* Face statistics of one dimension, inner links and wrap-around links apart. */
struct face_stats {
	int64_t cnt[2];
	double sum[2], min[2], max[2];
};

/* Pass 1: which entries are face links, per dimension; decide the wraps
 * and the weights.  false (with the reason) when faces are missing or
 * uneven. */
static bool faces(const topomatch_csr_t *cs, struct cand *c)
{
	struct face_stats f[3];
	const char *dimname = "xyz";

	memset(f, 0, sizeof(f));
	for (int d = 0; d < 3; d++)
		for (int k = 0; k < 2; k++) {
			f[d].min[k] = INFINITY;
			f[d].max[k] = 0.0;
		}
	for (int64_t i = 0; i < c->n; i++) {
		int64_t ci[3], cj[3];
		coords(i, c->len, ci);
		for (int64_t p = cs->rowptr[i]; p < cs->rowptr[i + 1]; p++) {
			coords(cs->col[p], c->len, cj);
			int dim = -1, wrapk = 0, moved = 0;
			for (int d = 0; d < 3; d++) {
				int64_t delta = cj[d] > ci[d] ? cj[d] - ci[d] : ci[d] - cj[d];
				if (delta == 0)
					continue;
				moved++;
				dim = d;
				if (delta == c->len[d] - 1 && c->len[d] >= 3)
					wrapk = 1;
				else if (delta != 1)
					moved = 99;
			}
			if (moved != 1)
				continue;
			struct face_stats *s = &f[dim];
			double w = cs->w[p];
			s->cnt[wrapk]++;
			s->sum[wrapk] += w;
			s->min[wrapk] = w < s->min[wrapk] ? w : s->min[wrapk];
			s->max[wrapk] = w > s->max[wrapk] ? w : s->max[wrapk];
		}
	}
	/* every inner face link present; wrap links all there or none */
	int decided = 0, wraps = 0;
	for (int d = 0; d < c->nd; d++) {
		int64_t inner = 2 * (c->len[d] - 1) * (c->n / c->len[d]);
		if (f[d].cnt[0] != inner) {
			snprintf(c->reason, sizeof(c->reason),
				 "%lld of the %lld face links along %c are missing",
				 (long long)(inner - f[d].cnt[0]), (long long)inner, dimname[d]);
			return false;
		}
		c->shape.periodic[d] = c->len[d] >= 3 && f[d].cnt[1] == 2 * (c->n / c->len[d]);
		if (c->len[d] >= 3) {
			decided++;
			wraps += c->shape.periodic[d];
		}
	}
	/* size 2: +1 and -1 are the same task, the wrap cannot be seen; take
	 * the other dimensions' answer when they agree */
	for (int d = 0; d < c->nd; d++)
		if (c->len[d] == 2)
			c->shape.periodic[d] = decided > 0 && wraps == decided;
	for (int d = 0; d < c->nd; d++) {
		int k = c->shape.periodic[d] && c->len[d] >= 3 ? 2 : 1;
		double sum = 0.0, lo = INFINITY, hi = 0.0;
		int64_t cnt = 0;
		for (int q = 0; q < k; q++) {
			sum += f[d].sum[q];
			cnt += f[d].cnt[q];
			lo = f[d].min[q] < lo ? f[d].min[q] : lo;
			hi = f[d].max[q] > hi ? f[d].max[q] : hi;
		}
		double mean = sum / (double)cnt;
		if (lo < mean / 2 || hi > mean * 2) {
			snprintf(c->reason, sizeof(c->reason),
				 "the face links along %c weigh from %g to %g, more than a factor "
				 "of 2 from their mean %g", dimname[d], lo, hi, mean);
			return false;
		}
		/* both halos of a wrapping size-2 dimension go to the same task */
		c->shape.weight[d] = c->len[d] == 2 && c->shape.periodic[d] ? mean / 2 : mean;
	}
	return true;
}

/* Passes 2-3 for one stencil (faces only or with diagonals). */
static bool check_model(const topomatch_csr_t *cs, double total, double tol, struct cand *c,
			int points)
{
	int64_t matched = 0, uneven = 0, expected = model_entries(c, points);
	double on = 0.0;

	for (int64_t i = 0; i < c->n; i++) {
		int64_t ci[3], cj[3];
		coords(i, c->len, ci);
		for (int64_t p = cs->rowptr[i]; p < cs->rowptr[i + 1]; p++) {
			coords(cs->col[p], c->len, cj);
			double m = model_weight(c, points, ci, cj);
			if (m <= 0.0)
				continue;
			matched++;
			on += cs->w[p];
			if (cs->w[p] < m / 2 || cs->w[p] > m * 2)
				uneven++;
		}
	}
	c->explained = on;
	if (matched < expected)
		snprintf(c->reason, sizeof(c->reason), "%lld of its %lld links are missing",
			 (long long)(expected - matched), (long long)expected);
	else if (uneven > 0)
		snprintf(c->reason, sizeof(c->reason),
			 "%lld links are more than a factor of 2 from the stencil's weight",
			 (long long)uneven);
	else if (total - on > tol * total)
		snprintf(c->reason, sizeof(c->reason),
			 "links off the stencil weigh %.3g%% of the total (tolerance %.3g%%)",
			 100.0 * (total - on) / total, 100.0 * tol);
	else
		return true;
	return false;
}

static bool evaluate(const topomatch_csr_t *cs, double total, double tol, struct cand *c)
{
	memset(&c->shape, 0, sizeof(c->shape));
	c->shape.ndims = c->nd;
	for (int d = 0; d < c->nd; d++)
		c->shape.dims[d] = (int)c->len[d];
	c->explained = 0.0;
	if (!faces(cs, c))
		return false;
	int full = c->nd == 2 ? 9 : 27, face = 2 * c->nd + 1;
	if (check_model(cs, total, tol, c, full)) {
		c->shape.points = full;
		return true;
	}
	c->shape.points = face;
	return check_model(cs, total, tol, c, face);
}

static bool row_has(const topomatch_csr_t *cs, int64_t i, int64_t j)
{
	int64_t lo = cs->rowptr[i], hi = cs->rowptr[i + 1];

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (cs->col[mid] == j)
			return true;
		if (cs->col[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void describe_grid(const struct cand *c, char *buf, size_t len)
{
	if (c->nd == 2)
		snprintf(buf, len, "%lldx%lld", (long long)c->len[0], (long long)c->len[1]);
	else
		snprintf(buf, len, "%lldx%lldx%lld", (long long)c->len[0], (long long)c->len[1],
			 (long long)c->len[2]);
}

int topomatch_stencil_detect(const topomatch_affinity_t *a, double tolerance,
			     topomatch_stencil_shape_t *shape, char *err)
{
	if (!a || !shape)
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: no pattern or no result");
	if (!(tolerance >= 0.0 && tolerance <= 1.0))
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: tolerance must be in [0, 1] (got %g)",
			      tolerance);
	topomatch_csr_t cs = topomatch_affinity_directed(a);
	int64_t n = cs.n, r0 = cs.rowptr[1] - cs.rowptr[0];
	double total = topomatch_affinity_total(a);
	if (n < 4 || n > INT32_MAX)
		return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: %lld "
			      "tasks (a grid of at least 2x2 is needed)", (long long)n);
	if (!(total > 0.0))
		return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: the "
			      "pattern has no communication");
	if (r0 > DETECT_MAX_ROW0)
		return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: task 0 "
			      "sends to %lld tasks (a stencil has at most 26 neighbours)",
			      (long long)r0);
	if (!row_has(&cs, 0, 1))
		return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: task 0 "
			      "does not send to task 1 (tasks must be numbered first dimension "
			      "fastest)");
	struct cand best = { .explained = -1.0 }, c;
	int found = 0, tried = 0;
	const int64_t *col = cs.col + cs.rowptr[0];
	/* 2D candidates, then 3D: ties go to fewer dimensions */
	for (int nd = 2; nd <= 3; nd++)
		for (int64_t p = 0; p < r0; p++)
			for (int64_t q = nd == 2 ? 0 : p + 1; q < (nd == 2 ? 1 : r0); q++) {
				int64_t x = col[p], xy = nd == 2 ? n : col[q];
				if (x < 2 || xy % x || n % xy || xy / x < 2 ||
				    (nd == 3 && n / xy < 2))
					continue;
				c = (struct cand){ .nd = nd, .len = { x, xy / x, n / xy }, .n = n };
				tried++;
				bool ok = evaluate(&cs, total, tolerance, &c);
				if (ok && (!found || c.explained > best.explained)) {
					best = c;
					found = 1;
				} else if (!found && c.explained > best.explained) {
					best = c; /* the closest failure, for the message */
				}
			}
	if (!found) {
		char grid[64];
		if (!tried)
			return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: "
				      "no grid of %lld tasks fits the neighbours of task 0 (tasks "
				      "in another order?)", (long long)n);
		describe_grid(&best, grid, sizeof(grid));
		return tm_err(err, TOPOMATCH_EINVAL, "not recognised as a 2D/3D stencil: the "
			      "closest grid, %s, fails: %s", grid, best.reason);
	}
	*shape = best.shape;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Rescaling                                                           */
/* ------------------------------------------------------------------ */

int topomatch_stencil_rescale(topomatch_stencil_shape_t *s, int64_t ntasks, char *err)
{
	if (!s || (s->ndims != 2 && s->ndims != 3))
		return tm_err(err, TOPOMATCH_EINVAL, "stencil: rescale needs a 2D or 3D shape");
	if (ntasks < 1 || ntasks > TOPOMATCH_DEFAULT_MAX_TASKS)
		return tm_err(err, ntasks < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "stencil: %lld tasks: must be in [1, %lld]", (long long)ntasks,
			      (long long)TOPOMATCH_DEFAULT_MAX_TASKS);
	int nd = s->ndims;
	double old = 0.0, target[3];
	for (int d = 0; d < nd; d++) {
		if (s->dims[d] < 1)
			return tm_err(err, TOPOMATCH_EINVAL, "stencil: dimension %d has size %d", d,
				      s->dims[d]);
		old += log((double)s->dims[d]);
	}
	/* the same proportions: every log-size shifted by the same amount */
	for (int d = 0; d < nd; d++)
		target[d] = log((double)s->dims[d]) + (log((double)ntasks) - old) / nd;
	double best = INFINITY;
	int64_t bd[3] = { 0, 0, 1 };
	for (int64_t a = 1; a <= ntasks; a++) {
		if (ntasks % a)
			continue;
		int64_t rest = ntasks / a;
		for (int64_t b = nd == 2 ? rest : 1; b <= rest; b++) {
			if (rest % b)
				continue;
			int64_t dd[3] = { a, b, rest / b };
			double score = 0.0;
			for (int d = 0; d < nd; d++)
				score += (log((double)dd[d]) - target[d]) * (log((double)dd[d]) - target[d]);
			/* strict, with slack for rounding: ties keep the first */
			if (score < best - 1e-9) {
				best = score;
				memcpy(bd, dd, sizeof(bd));
			}
		}
	}
	for (int d = 0; d < nd; d++)
		s->dims[d] = (int)bd[d];
	return TOPOMATCH_OK;
}

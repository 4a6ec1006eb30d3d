/*
 * analytical_global.c - the global mapping stage of the analytical torus
 * mapper (Wu, Xiong, Lan et al., "Analytical topology mapping", J.
 * Supercomput. 2016, §3.3, Fig. 2 lines 1-5): minimise
 * sum c_ij |Phi_i - Phi_j|^2 (Eq. 2) by one sparse system per dimension
 * (Eq. 5, conjugate gradients), then spread the groups until each unit
 * bin around a router holds at most gamma of them.  Two spreadings:
 *
 *  - paper (§3.3.2-3.3.3): shift the groups along each line of bins in
 *    proportion to the bins' loads, keeping their order (FastPlace's cell
 *    shifting), and pull each towards its shifted place by a spring to a
 *    "fake" process on the boundary whose stiffness balances the group's
 *    own forces there (Eq. 6-9); gamma = 4, stop after ten iterations
 *    without a lower maximum load (§3.6);
 *  - anchor (default): the shifted place of each group is a legal
 *    look-ahead mapping (the groups sorted along the longest side of the
 *    grid, split in proportion to the routers of the two halves,
 *    recursively: their relative order in each dimension is kept, as
 *    §3.3.2 asks), and the fake process sits on that place with a
 *    stiffness that grows each iteration.  Measured on shuffled stencils
 *    (8^3 mesh, 16^3 torus, 64^2 torus) and a random graph: the paper's
 *    forces, all moving at once, overshoot and oscillate (the maximum
 *    load goes 4, 6, 7, 8, 8, 4 ...), and its mappings came out 1.3x to
 *    3x Scotch's hop-bytes; the anchors converge, and the best look-ahead
 *    mapping is kept as a candidate (a legal mapping at every iteration).
 *
 * Routers are placed as on a mesh (Eq. 2 is Euclidean); wrap-around only
 * counts in the hop-bytes of the candidates and in legalization.  Every
 * group also has a very weak spring to the grid's centre, so that a
 * component without a fixed group keeps a definite solution.  Work is
 * counted (iterations), never timed.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "analytical_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int an_oom(an_t *s)
{
	return tm_err(s->err, TOPOMATCH_ENOMEM, "analytical: out of memory");
}

double an_group_hb(const an_t *s, const int64_t *where)
{
	double hb = 0.0;
	for (int64_t p = 0; p < s->np; p++)
		for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++)
			hb += s->qw[e] * (double)an_hops(&s->g, where[p], where[s->qcol[e]]);
	return hb;
}

#define AN_GAMMA_PAPER 4    /* almost legal: at most this many groups per bin (§3.6) */
#define AN_STALL 10         /* iterations without progress (§3.6) */
#define AN_MAX_GLOBAL 100   /* global mapping iterations at most */
#define AN_CG_MAXIT 300     /* conjugate-gradient iterations per solve */
#define AN_CG_TOL 1e-6
#define AN_ANCHOR 1e-6      /* the centre spring, relative to a group's traffic */
#define AN_SHIFT_DELTA 1.5  /* FastPlace's delta in cell shifting */
/* Anchor stiffness per iteration, relative to a group's traffic.  Of
 * 0.002 to 0.05, 0.005 gave the lowest hop-bytes on most of the cases
 * measured (shuffled stencils on 16^3 and 64^2 tori, a random graph);
 * stiffer anchors settle in fewer iterations, further from the optimum. */
#define AN_ALPHA 0.005

/* A group's total traffic (its row of the groups' graph). */
static double traffic(const an_t *s, int64_t p)
{
	double tot = 0.0;
	for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++)
		tot += s->qw[e];
	return tot;
}

/* The bin (router) of a point: nearest grid point, clamped. */
static int64_t bin_of(const an_t *s, const double *x)
{
	int64_t r = 0;
	for (int k = 0; k < s->g.nd; k++) {
		long v = lround(x[k]);
		v = v < 0 ? 0 : v >= s->g.dims[k] ? s->g.dims[k] - 1 : v;
		r += (int64_t)v * s->g.rstride[k];
	}
	return r;
}

/* Bins of the moving and fixed groups, and the largest load. */
static int64_t bin_loads(an_t *s)
{
	int64_t maxload = 0;
	memset(s->load, 0, (size_t)s->g.nr * sizeof(*s->load));
	for (int64_t p = 0; p < s->np; p++) {
		if (s->silent[p])
			continue;
		s->bin[p] = s->fixed[p] >= 0 ? s->fixed[p] : bin_of(s, an_pos(s, p));
		int64_t l = ++s->load[s->bin[p]];
		maxload = l > maxload ? l : maxload;
	}
	return maxload;
}

typedef struct an_work {
	int64_t *rp, *col;
	double *w, *diag, *rhs, *x;
	double *left, *width; /* paper: the bins' new extents */
	struct an_key *keys;  /* anchor: groups being split */
	int64_t *ahead;       /* anchor: this iteration's look-ahead */
} an_work_t;

/* Eq. 5 for each dimension: the moving groups' coordinates. */
static int solve(an_t *s, an_work_t *wk)
{
	const an_grid_t *g = &s->g;
	int64_t m = 0;
	wk->rp[0] = 0;
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i];
		for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++)
			if (s->mov[s->qcol[e]] >= 0) {
				wk->col[m] = s->mov[s->qcol[e]];
				wk->w[m++] = s->qw[e];
			}
		wk->diag[i] = traffic(s, p) * (1.0 + AN_ANCHOR) + s->beta[i];
		wk->rp[i + 1] = m;
	}
	an_sys_t a = { s->nm, wk->rp, wk->col, wk->w, wk->diag };
	for (int k = 0; k < g->nd; k++) {
		/* up to AN_CG_MAXIT steps a dimension (tens of ms at 16,384
		 * groups): the clock is looked at before each */
		if (tm_ctx_expired(s->c))
			return tm_err(s->err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded");
		for (int64_t i = 0; i < s->nm; i++) {
			int64_t p = s->mgrp[i];
			double r = 0.0;
			for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++)
				if (s->mov[s->qcol[e]] < 0) /* fixed neighbours: d of Eq. 4 */
					r += s->qw[e] * an_pos(s, s->qcol[e])[k];
			wk->rhs[i] = r + traffic(s, p) * AN_ANCHOR * (g->dims[k] - 1) / 2.0 +
				     s->beta[i] * s->fake[i * g->nd + k];
			wk->x[i] = an_pos(s, p)[k];
		}
		if (an_cg(&a, wk->rhs, wk->x, AN_CG_MAXIT, AN_CG_TOL) < 0)
			return an_oom(s);
		for (int64_t i = 0; i < s->nm; i++)
			an_pos(s, s->mgrp[i])[k] = wk->x[i];
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------ paper: §3.3.2-3.3.3 */

/* §3.3.2: along each line of bins in dimension k, the bins take widths
 * in proportion to their loads (+ AN_SHIFT_DELTA) and the groups move
 * with their bin's stretch, keeping their order. */
static void shift_dim(an_t *s, int k, an_work_t *wk)
{
	const an_grid_t *g = &s->g;
	int d = g->dims[k];
	for (int64_t r = 0; r < g->nr; r++) {
		if (an_coord(g, r, k) != 0)
			continue;
		/* FastPlace's cell shifting (Viswanathan and Chu 2005, §V): the
		 * boundary between bins i and i + 1 moves towards the less
		 * loaded one, within [i - 1/2, i + 3/2] */
		double lo = -0.5;
		for (int i = 0; i < d; i++) {
			int64_t b = r + i * g->rstride[k];
			double hi = d - 0.5;
			if (i + 1 < d) {
				double ui = (double)s->load[b], un = (double)s->load[b + g->rstride[k]];
				hi = ((i - 0.5) * (un + AN_SHIFT_DELTA) + (i + 1.5) * (ui + AN_SHIFT_DELTA)) /
				     (ui + un + 2 * AN_SHIFT_DELTA);
			}
			hi = hi > lo ? hi : lo; /* a squeezed bin keeps no width */
			wk->left[b] = lo;
			wk->width[b] = hi - lo;
			lo = hi;
		}
	}
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i], b = s->bin[p];
		double c = an_coord(g, b, k), x = an_pos(s, p)[k];
		x = x < c - 0.5 ? c - 0.5 : x > c + 0.5 ? c + 0.5 : x;
		s->target[i * g->nd + k] = wk->left[b] + (x - (c - 0.5)) * wk->width[b];
	}
}

/* §3.3.3, Eq. 6-9: a spring from each moving group to a fake process on
 * the boundary, against the group's resultant force at its shifted
 * place (the other groups where they are), so that the shifted place is
 * where the group is in balance. */
static void spread_paper(an_t *s)
{
	const an_grid_t *g = &s->g;
	int nd = g->nd;
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i];
		const double *xs = s->target + i * nd;
		double f[AN_MAX_DIMS] = { 0 }, norm = 0.0, t = HUGE_VAL;
		for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++)
			for (int k = 0; k < nd; k++)
				f[k] += s->qw[e] * (xs[k] - an_pos(s, s->qcol[e])[k]);
		for (int k = 0; k < nd; k++)
			norm += f[k] * f[k];
		norm = sqrt(norm);
		s->beta[i] = 0.0;
		if (norm <= 0.0)
			continue;
		for (int k = 0; k < nd; k++) { /* the ray xs + u t meets the boundary */
			double u = f[k] / norm;
			if (u > 0)
				t = fmin(t, (g->dims[k] - 0.5 - xs[k]) / u);
			else if (u < 0)
				t = fmin(t, (-0.5 - xs[k]) / u);
		}
		if (!(t > 1e-9) || t == HUGE_VAL)
			continue;
		for (int k = 0; k < nd; k++)
			s->fake[i * nd + k] = xs[k] + f[k] / norm * t;
		s->beta[i] = norm / t; /* Eq. 9 */
	}
}

/* ---------------------------------------------------- anchor spreading */

typedef struct an_key {
	double x;
	int64_t p;
} an_key_t;

/* By coordinate, ties to the lower group. */
static int cmp_key(const void *a, const void *b)
{
	const an_key_t *x = a, *y = b;
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

/* The look-ahead: the n groups of keys[] into the box lo..hi of routers,
 * split across its longest side in proportion to the halves' routers. */
static void look_ahead(an_t *s, an_work_t *wk, an_key_t *key, int64_t n, const int *lo,
		       const int *hi)
{
	const an_grid_t *g = &s->g;
	if (n == 0)
		return;
	int64_t cap = 1;
	int k = 0;
	for (int d = 0; d < g->nd; d++) {
		cap *= hi[d] - lo[d];
		k = hi[d] - lo[d] > hi[k] - lo[k] ? d : k;
	}
	if (cap == 1) {
		int64_t r = 0;
		for (int d = 0; d < g->nd; d++)
			r += lo[d] * g->rstride[d];
		for (int64_t i = 0; i < n; i++)
			wk->ahead[key[i].p] = r;
		return;
	}
	int mid = lo[k] + (hi[k] - lo[k]) / 2;
	int64_t capl = cap / (hi[k] - lo[k]) * (mid - lo[k]);
	int64_t nl = llround((double)n * (double)capl / (double)cap);
	nl = nl > capl ? capl : nl;
	nl = n - nl > cap - capl ? n - (cap - capl) : nl;
	for (int64_t i = 0; i < n; i++)
		key[i].x = an_pos(s, key[i].p)[k];
	qsort(key, (size_t)n, sizeof(*key), cmp_key);
	int l2[AN_MAX_DIMS], h2[AN_MAX_DIMS];
	memcpy(l2, lo, sizeof(l2));
	memcpy(h2, hi, sizeof(h2));
	h2[k] = mid;
	look_ahead(s, wk, key, nl, lo, h2);
	l2[k] = mid;
	look_ahead(s, wk, key + nl, n - nl, l2, hi);
}

/* Computes this iteration's look-ahead, keeps it when it is the best so
 * far (returns true then), and anchors each moving group to its place. */
static bool spread_anchor(an_t *s, an_work_t *wk, int it)
{
	int lo[AN_MAX_DIMS] = { 0 }, hi[AN_MAX_DIMS] = { 0 };
	int64_t n = 0;
	for (int k = 0; k < s->g.nd; k++)
		hi[k] = s->g.dims[k];
	for (int64_t p = 0; p < s->np; p++)
		if (!s->silent[p])
			wk->keys[n++].p = p;
	look_ahead(s, wk, wk->keys, n, lo, hi);
	double hb = an_group_hb(s, wk->ahead);
	bool better = hb < s->ahead_hb;
	if (better) {
		s->ahead_hb = hb;
		memcpy(s->ahead, wk->ahead, (size_t)s->np * sizeof(*s->ahead));
	}
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i];
		for (int k = 0; k < s->g.nd; k++)
			s->fake[i * s->g.nd + k] = an_coord(&s->g, wk->ahead[p], k);
		s->beta[i] = AN_ALPHA * (it + 1) * traffic(s, p);
	}
	return better;
}

/* ---------------------------------------------------------------- loop */

static void work_free(an_work_t *wk)
{
	free(wk->rp);
	free(wk->col);
	free(wk->w);
	free(wk->diag);
	free(wk->rhs);
	free(wk->x);
	free(wk->left);
	free(wk->width);
	free(wk->keys);
	free(wk->ahead);
}

static bool work_alloc(const an_t *s, an_work_t *wk)
{
	int64_t nm = s->nm, np = s->np, nr = s->g.nr;
	wk->rp = tm_alloc(nm + 1, sizeof(*wk->rp));
	wk->col = tm_alloc(s->qrp[np], sizeof(*wk->col));
	wk->w = tm_alloc(s->qrp[np], sizeof(*wk->w));
	wk->diag = tm_alloc(nm, sizeof(*wk->diag));
	wk->rhs = tm_alloc(nm, sizeof(*wk->rhs));
	wk->x = tm_alloc(nm, sizeof(*wk->x));
	wk->left = tm_alloc(nr, sizeof(*wk->left));
	wk->width = tm_alloc(nr, sizeof(*wk->width));
	wk->keys = tm_alloc(np, sizeof(*wk->keys));
	wk->ahead = tm_alloc(np, sizeof(*wk->ahead));
	return wk->rp && wk->col && wk->w && wk->diag && wk->rhs && wk->x && wk->left &&
	       wk->width && wk->keys && wk->ahead;
}

int an_global_mapping(an_t *s)
{
	an_work_t wk = { 0 };
	int rc = work_alloc(s, &wk) ? TOPOMATCH_OK : an_oom(s);
	bool paper = s->spreading == AN_SPREAD_PAPER;
	/* the anchors keep a legal look-ahead at every iteration: they go on
	 * while it improves, until the bins are legal themselves */
	int64_t gamma = paper ? AN_GAMMA_PAPER : 1, best = INT64_MAX, stall = 0;
	s->ahead_hb = HUGE_VAL;
	for (int it = 0; rc == TOPOMATCH_OK && it < AN_MAX_GLOBAL; it++) {
		rc = solve(s, &wk);
		if (rc != TOPOMATCH_OK)
			break;
		if (tm_ctx_expired(s->c)) {
			rc = tm_err(s->err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded");
			break;
		}
		int64_t maxload = bin_loads(s);
		if (maxload <= gamma)
			break;
		bool progress;
		if (paper) {
			progress = maxload < best;
			best = maxload < best ? maxload : best;
			for (int k = 0; k < s->g.nd; k++)
				shift_dim(s, k, &wk);
			spread_paper(s);
		} else {
			progress = spread_anchor(s, &wk, it);
		}
		stall = progress ? 0 : stall + 1;
		if (stall >= AN_STALL)
			break;
	}
	work_free(&wk);
	return rc;
}

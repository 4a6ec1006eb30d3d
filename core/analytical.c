/*
 * analytical.c - the analytical mapper for 2D/3D meshes and tori (Wu,
 * Xiong, Lan et al., "Analytical topology mapping", J. Supercomput.
 * 2016, §3, Fig. 2), the VLSI analytical placement of FastPlace applied
 * to processes:
 *
 *  - several processes per router: the tasks are first split into one
 *    balanced group per router (§3.6, "partition the processes into fixed
 *    groups", here tm_partition_exact), and the groups are placed;
 *  - fixed processes (§3.6): the routers and the groups are both ordered
 *    by RCM (breadth first from a vertex of least degree, neighbours by
 *    increasing degree, reversed); the group at the position of a corner
 *    router in that order is fixed on that corner;
 *  - global mapping (§3.3): minimise sum c_ij |Phi_i - Phi_j|^2 (Eq. 2),
 *    one sparse system per dimension (Eq. 5, conjugate gradients); while
 *    some unit bin around a router holds more than gamma = 4 groups,
 *    shift the groups along each line of bins in proportion to the bins'
 *    loads, keeping their order (§3.3.2), and pull each towards its
 *    shifted place by a spring to a "fake" process on the boundary whose
 *    stiffness balances the group's own forces there (§3.3.3, Eq. 6-9);
 *    stop when the bins are almost legal, or after ten iterations
 *    without a lower maximum load (§3.6);
 *  - legalization (§3.4, Fig. 4): analytical_legal.c.
 *
 * Routers are placed as on a mesh (Eq. 2 is Euclidean); wrap-around only
 * counts in legalization, whose moves weigh torus hops.  Groups without
 * any communication (and empty ones, for jobs smaller than the grid) take
 * no part in the global mapping: they fill the least loaded bins before
 * legalization, where moving them costs nothing.  Every group also has a
 * very weak spring to the grid's centre, so that a component without a
 * fixed group keeps a definite solution.
 *
 * Work is counted (iterations), never timed: the result depends only on
 * the inputs and the seed of the partition.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "analytical_internal.h"
#include "topology_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#define AN_GAMMA 4          /* almost legal: at most this many groups per bin (§3.6) */
#define AN_STALL 10         /* iterations without a lower maximum load (§3.6) */
#define AN_MAX_GLOBAL 100   /* global mapping iterations at most */
#define AN_CG_MAXIT 300     /* conjugate-gradient iterations per solve */
#define AN_CG_TOL 1e-6
#define AN_ANCHOR 1e-6      /* the centre spring, relative to a group's traffic */
#define AN_SHIFT_DELTA 1.5  /* FastPlace's delta in cell shifting */

typedef struct an {
	const tm_map_ctx_t *c;
	an_grid_t g;
	int64_t np;          /* groups = routers */
	int64_t *grp;        /* task -> group */
	tm_wgraph_t q;       /* the groups' graph */
	int64_t *qrp, *qcol;
	double *qw;
	int64_t *fixed;      /* group -> corner router, -1 when free */
	int64_t *mov;        /* group -> index among the moving ones, -1 */
	int64_t nm;
	int64_t *mgrp;       /* index -> group */
	double *pos;         /* group -> coordinates (nd each) */
	double *shifted;     /* moving index -> shifted coordinates (nd each) */
	double *beta, *fake; /* moving index -> spring to its fake process */
	int64_t *bin;        /* group -> router of its bin */
	int64_t *load;       /* router -> groups in its bin */
	char *err;
} an_t;

static int oom(an_t *s)
{
	return tm_err(s->err, TOPOMATCH_ENOMEM, "analytical: out of memory");
}

/* ------------------------------------------------------------ groups */

/* One group per router, as even as possible (§3.6). */
static int make_groups(an_t *s)
{
	const tm_map_ctx_t *c = s->c;
	int64_t n = c->ntasks, np = s->np;
	s->grp = tm_alloc(n, sizeof(*s->grp));
	if (!s->grp)
		return oom(s);
	if (n <= np) { /* a task per router at most: the groups are the tasks */
		for (int64_t u = 0; u < n; u++)
			s->grp[u] = u;
		return TOPOMATCH_OK;
	}
	if (np > INT32_MAX)
		return tm_err(s->err, TOPOMATCH_ELIMIT, "analytical: %lld routers are too many",
			      (long long)np);
	int64_t *size = tm_alloc(np, sizeof(*size));
	if (!size)
		return oom(s);
	for (int64_t r = 0; r < np; r++)
		size[r] = n / np + (r < n % np);
	topomatch_csr_t a = topomatch_affinity_symmetric(c->a);
	tm_wgraph_t g = { n, a.rowptr, a.col, a.w, NULL };
	int rc = tm_partition_exact(&g, (int)np, size, c->seed, c->deadline, s->grp, s->err);
	free(size);
	return rc;
}

/* The groups' graph: summed weights between groups, no self loops. */
static int group_graph(an_t *s)
{
	topomatch_csr_t a = topomatch_affinity_symmetric(s->c->a);
	int64_t n = s->c->ntasks, np = s->np;
	int64_t *first = tm_alloc(np + 1, sizeof(*first)), *tasks = tm_alloc(n, sizeof(*tasks));
	int64_t *slot = tm_alloc(np, sizeof(*slot));
	s->qrp = tm_alloc(np + 1, sizeof(*s->qrp));
	s->qcol = tm_alloc(a.rowptr[n], sizeof(*s->qcol));
	s->qw = tm_alloc(a.rowptr[n], sizeof(*s->qw));
	int rc = first && tasks && slot && s->qrp && s->qcol && s->qw ? TOPOMATCH_OK : oom(s);
	if (rc == TOPOMATCH_OK) {
		memset(first, 0, (size_t)(np + 1) * sizeof(*first));
		for (int64_t u = 0; u < n; u++)
			first[s->grp[u] + 1]++;
		for (int64_t r = 0; r < np; r++)
			first[r + 1] += first[r];
		memset(slot, 0, (size_t)np * sizeof(*slot));
		for (int64_t u = 0; u < n; u++) /* tasks by group, in task order */
			tasks[first[s->grp[u]] + slot[s->grp[u]]++] = u;
		for (int64_t r = 0; r < np; r++)
			slot[r] = -1;
		s->qrp[0] = 0;
		for (int64_t p = 0, m = 0; p < np; p++) {
			for (int64_t k = first[p]; k < first[p + 1]; k++) {
				int64_t u = tasks[k];
				for (int64_t e = a.rowptr[u]; e < a.rowptr[u + 1]; e++) {
					int64_t v = s->grp[a.col[e]];
					if (v == p)
						continue;
					if (slot[v] < s->qrp[p]) { /* first edge to v from p */
						slot[v] = m;
						s->qcol[m] = v;
						s->qw[m++] = 0.0;
					}
					s->qw[slot[v]] += a.w[e];
				}
			}
			s->qrp[p + 1] = m;
		}
		s->q = (tm_wgraph_t){ np, s->qrp, s->qcol, s->qw, NULL };
	}
	free(first);
	free(tasks);
	free(slot);
	return rc;
}

/* ------------------------------------------------------- fixed groups */

typedef struct dkey {
	int64_t deg, v;
} dkey_t;

static int cmp_dkey(const void *a, const void *b)
{
	const dkey_t *x = a, *y = b;
	if (x->deg != y->deg)
		return (x->deg > y->deg) - (x->deg < y->deg);
	return (x->v > y->v) - (x->v < y->v);
}

/*
 * Reverse Cuthill-McKee order of the vertices of a CSR graph that skip[]
 * does not exclude (§3.6): breadth first from an unvisited vertex of
 * least degree, neighbours by increasing degree, the whole list reversed.
 * Returns how many vertices it ordered, -1 out of memory.
 */
static int64_t rcm(int64_t n, const int64_t *rp, const int64_t *col, const unsigned char *skip,
		   int64_t *order)
{
	dkey_t *all = tm_alloc(n, sizeof(*all)), *nb = tm_alloc(n, sizeof(*nb));
	unsigned char *seen = tm_zalloc(n, 1);
	int64_t len = 0;
	if (!all || !nb || !seen) {
		free(all);
		free(nb);
		free(seen);
		return -1;
	}
	for (int64_t v = 0; v < n; v++)
		all[v] = (dkey_t){ rp[v + 1] - rp[v], v };
	qsort(all, (size_t)n, sizeof(*all), cmp_dkey);
	for (int64_t k = 0; k < n; k++) {
		int64_t s0 = all[k].v;
		if (seen[s0] || (skip && skip[s0]))
			continue;
		seen[s0] = 1;
		int64_t head = len;
		order[len++] = s0;
		while (head < len) {
			int64_t v = order[head++], m = 0;
			for (int64_t e = rp[v]; e < rp[v + 1]; e++) {
				int64_t u = col[e];
				if (!seen[u] && !(skip && skip[u])) {
					seen[u] = 1;
					nb[m++] = (dkey_t){ rp[u + 1] - rp[u], u };
				}
			}
			qsort(nb, (size_t)m, sizeof(*nb), cmp_dkey);
			for (int64_t i = 0; i < m; i++)
				order[len++] = nb[i].v;
		}
	}
	for (int64_t i = 0; i < len / 2; i++) {
		int64_t t = order[i];
		order[i] = order[len - 1 - i];
		order[len - 1 - i] = t;
	}
	free(all);
	free(nb);
	free(seen);
	return len;
}

static bool is_corner(const an_grid_t *g, int64_t r)
{
	for (int k = 0; k < g->nd; k++) {
		int x = an_coord(g, r, k);
		if (x != 0 && x != g->dims[k] - 1)
			return false;
	}
	return true;
}

/* The group at the position of each corner router, in the two RCM
 * orders, is fixed there (§3.6); groups without traffic are not. */
static int fix_corners(an_t *s, const unsigned char *silent)
{
	int64_t np = s->np, nr = s->g.nr, nn = 2 * s->g.nd;
	int64_t *grp_rp = tm_alloc(nr + 1, sizeof(*grp_rp)), *gcol = tm_alloc(nr * nn, sizeof(*gcol));
	int64_t *rord = tm_alloc(nr, sizeof(*rord)), *pord = tm_alloc(np, sizeof(*pord));
	int rc = grp_rp && gcol && rord && pord ? TOPOMATCH_OK : oom(s);
	if (rc == TOPOMATCH_OK) {
		/* the routers as a mesh: Eq. 2 places in a box, whose corners
		 * are the corners of the mesh, wrap-around or not */
		an_grid_t mesh = s->g;
		memset(mesh.wrap, 0, sizeof(mesh.wrap));
		grp_rp[0] = 0;
		for (int64_t r = 0; r < nr; r++)
			grp_rp[r + 1] = grp_rp[r] + an_grid_nbrs(&mesh, r, gcol + grp_rp[r]);
		int64_t lr = rcm(nr, grp_rp, gcol, NULL, rord);
		int64_t lp = rcm(np, s->qrp, s->qcol, silent, pord);
		if (lr < 0 || lp < 0)
			rc = oom(s);
		for (int64_t i = 0; rc == TOPOMATCH_OK && i < lr && i < lp; i++)
			if (is_corner(&s->g, rord[i])) {
				s->fixed[pord[i]] = rord[i];
				if (getenv("AN_DBG")) fprintf(stderr, "fix group %lld at router %lld (pos %lld)\n", (long long)pord[i], (long long)rord[i], (long long)i);
			}
	}
	free(grp_rp);
	free(gcol);
	free(rord);
	free(pord);
	return rc;
}

/* ----------------------------------------------------- global mapping */

static double *at(const an_t *s, int64_t p)
{
	return s->pos + p * s->g.nd;
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
static int64_t bin_loads(an_t *s, const unsigned char *silent)
{
	int64_t maxload = 0;
	memset(s->load, 0, (size_t)s->g.nr * sizeof(*s->load));
	for (int64_t p = 0; p < s->np; p++) {
		if (silent[p])
			continue;
		s->bin[p] = s->fixed[p] >= 0 ? s->fixed[p] : bin_of(s, at(s, p));
		int64_t l = ++s->load[s->bin[p]];
		maxload = l > maxload ? l : maxload;
	}
	return maxload;
}

/* Eq. 5 for each dimension: the moving groups' coordinates. */
static int solve(an_t *s, int64_t *rp, int64_t *col, double *w, double *diag, double *rhs,
		 double *x)
{
	const an_grid_t *g = &s->g;
	int64_t m = 0;
	rp[0] = 0;
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i];
		double tot = 0.0;
		for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++) {
			tot += s->qw[e];
			if (s->mov[s->qcol[e]] >= 0) {
				col[m] = s->mov[s->qcol[e]];
				w[m++] = s->qw[e];
			}
		}
		diag[i] = tot * (1.0 + AN_ANCHOR) + s->beta[i];
		rp[i + 1] = m;
	}
	an_sys_t a = { s->nm, rp, col, w, diag };
	for (int k = 0; k < g->nd; k++) {
		for (int64_t i = 0; i < s->nm; i++) {
			int64_t p = s->mgrp[i];
			double r = 0.0, tot = 0.0;
			for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++) {
				int64_t v = s->qcol[e];
				tot += s->qw[e];
				if (s->mov[v] < 0)
					r += s->qw[e] * at(s, v)[k];
			}
			rhs[i] = r + tot * AN_ANCHOR * (g->dims[k] - 1) / 2.0 +
				 s->beta[i] * s->fake[i * g->nd + k];
			x[i] = at(s, p)[k];
		}
		if (an_cg(&a, rhs, x, AN_CG_MAXIT, AN_CG_TOL) < 0)
			return oom(s);
		for (int64_t i = 0; i < s->nm; i++)
			at(s, s->mgrp[i])[k] = x[i];
	}
	return TOPOMATCH_OK;
}

/* §3.3.2: along each line of bins in dimension k, the bins take widths
 * in proportion to their loads (+ AN_SHIFT_DELTA) and the groups move
 * with their bin's stretch, keeping their order. */
static void shift_dim(an_t *s, int k, double *left, double *width)
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
			left[b] = lo;
			width[b] = hi - lo;
			lo = hi;
		}
	}
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i], b = s->bin[p];
		double c = an_coord(g, b, k), x = at(s, p)[k];
		x = x < c - 0.5 ? c - 0.5 : x > c + 0.5 ? c + 0.5 : x;
		double al = getenv("AN_AL") ? atof(getenv("AN_AL")) : 1.0;
		s->shifted[i * g->nd + k] = at(s, p)[k] + al * (left[b] + (x - (c - 0.5)) * width[b] - at(s, p)[k]);
	}
}

/* §3.3.3, Eq. 6-9: a spring from each moving group to a fake process on
 * the boundary, against the group's resultant force at its shifted
 * place, so that the shifted place is where the group is in balance. */
static void spread(an_t *s)
{
	const an_grid_t *g = &s->g;
	int nd = g->nd;
	for (int64_t i = 0; i < s->nm; i++) {
		int64_t p = s->mgrp[i];
		const double *xs = s->shifted + i * nd;
		double f[AN_MAX_DIMS] = { 0 }, norm = 0.0, t = HUGE_VAL;
		for (int64_t e = s->qrp[p]; e < s->qrp[p + 1]; e++) {
			int64_t v = s->qcol[e];
			const double *xv = s->mov[v] >= 0 && getenv("AN_SH") ? s->shifted + s->mov[v] * nd : at(s, v);
			for (int k = 0; k < nd; k++)
				f[k] += s->qw[e] * (xs[k] - xv[k]);
		}
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

static int global_mapping(an_t *s, const unsigned char *silent)
{
	int64_t nm = s->nm, nnz = s->qrp[s->np], nr = s->g.nr;
	int64_t *rp = tm_alloc(nm + 1, sizeof(*rp)), *col = tm_alloc(nnz, sizeof(*col));
	double *w = tm_alloc(nnz, sizeof(*w)), *diag = tm_alloc(nm, sizeof(*diag));
	double *rhs = tm_alloc(nm, sizeof(*rhs)), *x = tm_alloc(nm, sizeof(*x));
	double *left = tm_alloc(nr, sizeof(*left)), *width = tm_alloc(nr, sizeof(*width));
	int rc = rp && col && w && diag && rhs && x && left && width ? TOPOMATCH_OK : oom(s);
	int64_t best = INT64_MAX, stall = 0;
	for (int it = 0; rc == TOPOMATCH_OK && it < AN_MAX_GLOBAL; it++) {
		if (it == 0 || !getenv("AN_PURE")) rc = solve(s, rp, col, w, diag, rhs, x);
		else for (int64_t i = 0; i < s->nm; i++) memcpy(at(s, s->mgrp[i]), s->shifted + i * s->g.nd, s->g.nd * sizeof(double));
		if (rc != TOPOMATCH_OK)
			break;
		if (tm_ctx_expired(s->c)) {
			rc = tm_err(s->err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded");
			break;
		}
		int64_t maxload = bin_loads(s, silent);
		if (getenv("AN_DBG")) { double sp=0; for (int64_t i=0;i<s->nm;i++){ double *xx=at(s,s->mgrp[i]); sp+=fabs(xx[0]-(s->g.dims[0]-1)/2.0);} fprintf(stderr, "it %d maxload %lld nm %lld spread %g\n", it, (long long)maxload, (long long)s->nm, sp/s->nm); }
		if (maxload <= (getenv("AN_G") ? atoll(getenv("AN_G")) : AN_GAMMA))
			break;
		stall = maxload < best ? 0 : stall + 1;
		best = maxload < best ? maxload : best;
		if (stall >= AN_STALL)
			break;
		for (int k = 0; k < s->g.nd; k++)
			shift_dim(s, k, left, width);
		spread(s);
	}
	free(rp);
	free(col);
	free(w);
	free(diag);
	free(rhs);
	free(x);
	free(left);
	free(width);
	return rc;
}

/* ------------------------------------------------------------- driver */

/* The silent groups (no traffic, or empty) fill the least loaded bins,
 * lowest router first. */
static void place_silent(an_t *s, const unsigned char *silent)
{
	int64_t left = 0;
	for (int64_t p = 0; p < s->np; p++)
		left += silent[p];
	for (int64_t level = 0, p = 0; left > 0; level++)
		for (int64_t r = 0; r < s->g.nr && left > 0; r++) {
			if (s->load[r] != level)
				continue;
			while (!silent[p])
				p++;
			s->bin[p++] = r;
			s->load[r]++;
			left--;
		}
}

static int check(const tm_map_ctx_t *c, an_grid_t *g, char *err)
{
	const topomatch_topology_t *t = c->t;
	int kind = topomatch_topology_kind(t);
	if (kind != TOPOMATCH_TOPO_TORUS && kind != TOPOMATCH_TOPO_MESH &&
	    kind != TOPOMATCH_TOPO_HCUB)
		return tm_err(err, TOPOMATCH_EINVAL, "analytical needs a mesh or torus topology");
	if (t->ndims > AN_MAX_DIMS)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "analytical maps onto 1 to %d dimensions (the topology has %d)",
			      AN_MAX_DIMS, t->ndims);
	memset(g, 0, sizeof(*g));
	g->nd = t->ndims;
	g->nr = t->npu / t->lpus;
	for (int k = 0; k < g->nd; k++) {
		g->dims[k] = t->dims[k];
		g->wrap[k] = t->wrap[k];
		g->rstride[k] = t->stride[k] / t->lpus;
	}
	return TOPOMATCH_OK;
}

static void an_free(an_t *s)
{
	free(s->grp);
	free(s->qrp);
	free(s->qcol);
	free(s->qw);
	free(s->fixed);
	free(s->mov);
	free(s->mgrp);
	free(s->pos);
	free(s->shifted);
	free(s->beta);
	free(s->fake);
	free(s->bin);
	free(s->load);
}

static int an_alloc(an_t *s)
{
	int64_t np = s->np, nd = s->g.nd;
	s->fixed = tm_alloc(np, sizeof(*s->fixed));
	s->mov = tm_alloc(np, sizeof(*s->mov));
	s->mgrp = tm_alloc(np, sizeof(*s->mgrp));
	s->pos = tm_alloc(np * nd, sizeof(*s->pos));
	s->shifted = tm_alloc(np * nd, sizeof(*s->shifted));
	s->beta = tm_zalloc(np, sizeof(*s->beta));
	s->fake = tm_zalloc(np * nd, sizeof(*s->fake));
	s->bin = tm_alloc(np, sizeof(*s->bin));
	s->load = tm_alloc(s->g.nr, sizeof(*s->load));
	return s->fixed && s->mov && s->mgrp && s->pos && s->shifted && s->beta && s->fake &&
			       s->bin && s->load
		       ? TOPOMATCH_OK
		       : oom(s);
}

/* Groups at their corners, the others at the centre; the moving ones
 * numbered. */
static void start_positions(an_t *s, const unsigned char *silent)
{
	s->nm = 0;
	for (int64_t p = 0; p < s->np; p++) {
		for (int k = 0; k < s->g.nd; k++)
			at(s, p)[k] = s->fixed[p] >= 0 ? an_coord(&s->g, s->fixed[p], k)
						       : (s->g.dims[k] - 1) / 2.0;
		s->mov[p] = -1;
		if (!silent[p] && s->fixed[p] < 0) {
			s->mov[p] = s->nm;
			s->mgrp[s->nm++] = p;
		}
	}
}

/* Tasks of each group onto the PUs of its router, f per PU, in order. */
static int emit(an_t *s, int64_t *pu)
{
	const tm_map_ctx_t *c = s->c;
	int64_t *used = tm_zalloc(s->np, sizeof(*used));
	if (!used)
		return oom(s);
	for (int64_t u = 0; u < c->ntasks; u++) {
		int64_t p = s->grp[u];
		pu[u] = s->bin[p] * c->t->lpus + used[p]++ / c->f;
	}
	free(used);
	return TOPOMATCH_OK;
}

int tm_map_analytical(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	an_t s = { .c = c, .err = err };
	int rc = check(c, &s.g, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (c->ntasks > s.g.nr * c->t->lpus * c->f)
		return tm_err(err, TOPOMATCH_EINVAL, "analytical: %lld tasks do not fit",
			      (long long)c->ntasks);
	s.np = s.g.nr;
	unsigned char *silent = tm_zalloc(s.np, 1);
	rc = silent ? make_groups(&s) : oom(&s);
	if (rc == TOPOMATCH_OK)
		rc = group_graph(&s);
	if (rc == TOPOMATCH_OK)
		rc = an_alloc(&s);
	for (int64_t p = 0; rc == TOPOMATCH_OK && p < s.np; p++) {
		silent[p] = s.qrp[p + 1] == s.qrp[p];
		s.fixed[p] = -1;
	}
	if (rc == TOPOMATCH_OK)
		rc = fix_corners(&s, silent);
	if (rc == TOPOMATCH_OK) {
		start_positions(&s, silent);
		rc = global_mapping(&s, silent);
	}
	if (rc == TOPOMATCH_OK) {
		bin_loads(&s, silent);
		place_silent(&s, silent);
		if (getenv("AN_DBG")) { double hb=0; for (int64_t p=0;p<s.np;p++) for (int64_t e=s.qrp[p];e<s.qrp[p+1];e++) hb+=s.qw[e]*an_hops(&s.g,s.bin[p],s.bin[s.qcol[e]]); fprintf(stderr,"pre-legal hb %g\n", hb); }
		rc = an_legalize(&s.g, &s.q, s.bin, err);
		if (getenv("AN_DBG")) { double hb=0; for (int64_t p=0;p<s.np;p++) for (int64_t e=s.qrp[p];e<s.qrp[p+1];e++) hb+=s.qw[e]*an_hops(&s.g,s.bin[p],s.bin[s.qcol[e]]); fprintf(stderr,"post-legal hb %g\n", hb); }
	}
	if (rc == TOPOMATCH_OK)
		rc = emit(&s, pu);
	free(silent);
	an_free(&s);
	return rc;
}

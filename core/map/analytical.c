/*
 * analytical.c - the analytical mapper for 1-3D meshes and tori (Wu,
 * Xiong, Lan et al., "Analytical topology mapping", J. Supercomput.
 * 2016, §3, Fig. 2), the VLSI analytical placement of FastPlace applied
 * to processes.  This file drives the two stages:
 *
 *  - several processes per router: the tasks are first split into one
 *    balanced group per router (§3.6, "partition the processes into fixed
 *    groups", here tm_partition_exact), and the groups are placed;
 *  - fixed processes on the grid's corners (§3.3, §3.6, §4.2), below;
 *  - global mapping (§3.3): analytical_global.c;
 *  - legalization (§3.4, Fig. 4): analytical_legal.c, and with the anchor
 *    spreading the better of it and the best look-ahead mapping.
 *
 * Groups without any communication (and empty ones, for jobs smaller
 * than the grid) take no part in the global mapping: they fill the least
 * loaded bins before legalization, where moving them costs nothing.
 * The result depends only on the inputs and the seed of the partition.
 *
 * Options ("analytical:spreading=paper"): spreading=anchor (default) or
 * paper (analytical_global.c says how they differ).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "analytical_internal.h"
#include "topology/topology_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ groups */

/* One group per router, as even as possible (§3.6). */
static int make_groups(an_t *s)
{
	const tm_map_ctx_t *c = s->c;
	int64_t n = c->ntasks, np = s->np;
	s->grp = tm_alloc(n, sizeof(*s->grp));
	if (!s->grp)
		return an_oom(s);
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
		return an_oom(s);
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
	int rc = first && tasks && slot && s->qrp && s->qcol && s->qw ? TOPOMATCH_OK : an_oom(s);
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

static bool is_corner(const an_grid_t *g, int64_t r)
{
	for (int k = 0; k < g->nd; k++) {
		int x = an_coord(g, r, k);
		if (x != 0 && x != g->dims[k] - 1)
			return false;
	}
	return true;
}

/* Breadth-first hop distances from src over the groups' graph (-1:
 * unreachable); returns the farthest vertex of least degree. */
static int64_t bfs(const an_t *s, int64_t src, int64_t *dist, int64_t *queue)
{
	int64_t np = s->np, qh = 0, qt = 0, far = src;
	for (int64_t p = 0; p < np; p++)
		dist[p] = -1;
	dist[src] = 0;
	queue[qt++] = src;
	while (qh < qt) {
		int64_t v = queue[qh++];
		int64_t dv = s->qrp[v + 1] - s->qrp[v], df = s->qrp[far + 1] - s->qrp[far];
		if (dist[v] > dist[far] || (dist[v] == dist[far] && (dv < df || (dv == df && v < far))))
			far = v;
		for (int64_t e = s->qrp[v]; e < s->qrp[v + 1]; e++)
			if (dist[s->qcol[e]] < 0) {
				dist[s->qcol[e]] = dist[v] + 1;
				queue[qt++] = s->qcol[e];
			}
	}
	return far;
}

/* Mesh hops between two routers (the box Eq. 2 places in). */
static int64_t mesh_hops(const an_grid_t *g, int64_t r, int64_t t)
{
	int64_t h = 0;
	for (int k = 0; k < g->nd; k++)
		h += labs((long)an_coord(g, r, k) - an_coord(g, t, k));
	return h;
}

/* The group, not yet fixed, whose graph distances to the nfix groups
 * fixed so far (dist, np per group) best match corner c's mesh distances
 * to theirs (least squares; ties: least degree, then lowest id). */
static int64_t best_fit(const an_t *s, const int64_t *dist, int64_t nfix, const int64_t *fcorner,
			int64_t c, double scale)
{
	int64_t np = s->np, best = -1;
	double bscore = 0.0;
	for (int64_t p = 0; p < np; p++) {
		if (s->silent[p] || s->fixed[p] >= 0 || dist[p] < 0)
			continue;
		double sc = 0.0;
		for (int64_t j = 0; j < nfix; j++) {
			double e = (double)dist[j * np + p] - scale * (double)mesh_hops(&s->g, c, fcorner[j]);
			sc += e * e;
		}
		int64_t dp = s->qrp[p + 1] - s->qrp[p];
		if (best < 0 || sc < bscore || (sc == bscore && dp < s->qrp[best + 1] - s->qrp[best])) {
			best = p;
			bscore = sc;
		}
	}
	return best;
}

/*
 * Fixed groups on the corners of the grid (§3.3; §3.6 and §4.2 order
 * the processes by RCM for that).  The first is RCM's start vertex, a
 * pseudo-peripheral one (George and Liu: breadth first search from a
 * vertex of least degree, again from the farthest one while the
 * eccentricity grows), on router 0; the group farthest from it takes the
 * opposite corner; each further corner takes the group whose graph
 * distances to those fixed so far best match the corners' mesh
 * distances.  Measured: fixing the groups found at the corners' positions
 * in the two RCM orders, as first written, put non-corner groups on
 * corners of a shuffled stencil (the orders break ties by id), and the
 * 8^3 mesh came out at 2x its optimum hop-bytes; by distances, shuffled
 * or not, it comes out optimal.  Only the start's component takes part:
 * other components float (see the centre spring of analytical_global.c).
 */
static int fix_corners(an_t *s)
{
	const an_grid_t *g = &s->g;
	int64_t np = s->np, ncorner = 0, corner[1 << AN_MAX_DIMS], fcorner[1 << AN_MAX_DIMS];
	int64_t start = -1;
	for (int64_t p = 0; p < np; p++) /* least degree, lowest id */
		if (!s->silent[p] &&
		    (start < 0 || s->qrp[p + 1] - s->qrp[p] < s->qrp[start + 1] - s->qrp[start]))
			start = p;
	if (start < 0)
		return TOPOMATCH_OK; /* nothing communicates */
	int64_t *dist = tm_alloc(np << AN_MAX_DIMS, sizeof(*dist)), *queue = tm_alloc(np, sizeof(*queue));
	if (!dist || !queue) {
		free(dist);
		free(queue);
		return an_oom(s);
	}
	for (int64_t r = 0; r < g->nr; r++)
		if (is_corner(g, r))
			corner[ncorner++] = r;
	/* up to 16 + 2^d breadth-first searches of the groups' graph (some
	 * ms each at 16,384 groups): the clock is looked at between them.
	 * George-Liu, a few sweeps at most: */
	bool late = false;
	for (int i = 0; i < 8 && !(late = tm_ctx_expired(s->c)); i++) {
		int64_t far = bfs(s, start, dist, queue), ecc = dist[far];
		if (dist[bfs(s, far, dist, queue)] <= ecc)
			break;
		start = far;
	}
	if (late) {
		free(dist);
		free(queue);
		return tm_err(s->err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded");
	}
	/* corners: router 0, the opposite one, then the others by id */
	int64_t far = bfs(s, start, dist, queue);
	int64_t span = mesh_hops(g, corner[0], corner[ncorner - 1]);
	double scale = span > 0 ? (double)dist[far] / (double)span : 1.0;
	for (int64_t i = 0, nfix = 0; i < ncorner && !(late = tm_ctx_expired(s->c)); i++) {
		int64_t c = corner[i == 0 ? 0 : i == 1 ? ncorner - 1 : i - 1];
		int64_t p = i == 0 ? start : best_fit(s, dist, nfix, fcorner, c, scale);
		if (p < 0)
			break;
		s->fixed[p] = c;
		fcorner[nfix] = c;
		bfs(s, p, dist + nfix * np, queue);
		nfix++;
	}
	free(dist);
	free(queue);
	return late ? tm_err(s->err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded")
		    : TOPOMATCH_OK;
}

/* ------------------------------------------------------------- driver */

/* The silent groups fill the least loaded bins, lowest router first. */
static void place_silent(an_t *s)
{
	int64_t left = 0;
	for (int64_t p = 0; p < s->np; p++)
		left += s->silent[p];
	for (int64_t level = 0, p = 0; left > 0; level++)
		for (int64_t r = 0; r < s->g.nr && left > 0; r++) {
			if (s->load[r] != level)
				continue;
			while (!s->silent[p])
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

bool tm_analytical_fits(const topomatch_topology_t *t)
{
	int kind = topomatch_topology_kind(t);
	return (kind == TOPOMATCH_TOPO_TORUS || kind == TOPOMATCH_TOPO_MESH) &&
	       t->ndims <= AN_MAX_DIMS;
}

static void an_free(an_t *s)
{
	free(s->grp);
	free(s->qrp);
	free(s->qcol);
	free(s->qw);
	free(s->silent);
	free(s->fixed);
	free(s->mov);
	free(s->mgrp);
	free(s->pos);
	free(s->target);
	free(s->ahead);
	free(s->beta);
	free(s->fake);
	free(s->bin);
	free(s->load);
}

static int an_alloc(an_t *s)
{
	int64_t np = s->np, nd = s->g.nd;
	s->silent = tm_alloc(np, 1);
	s->fixed = tm_alloc(np, sizeof(*s->fixed));
	s->mov = tm_alloc(np, sizeof(*s->mov));
	s->mgrp = tm_alloc(np, sizeof(*s->mgrp));
	s->pos = tm_alloc(np * nd, sizeof(*s->pos));
	s->target = tm_alloc(np * nd, sizeof(*s->target));
	s->ahead = tm_alloc(np, sizeof(*s->ahead));
	s->beta = tm_zalloc(np, sizeof(*s->beta));
	s->fake = tm_zalloc(np * nd, sizeof(*s->fake));
	s->bin = tm_alloc(np, sizeof(*s->bin));
	s->load = tm_alloc(s->g.nr, sizeof(*s->load));
	if (!s->silent || !s->fixed || !s->mov || !s->mgrp || !s->pos || !s->target || !s->ahead ||
	    !s->beta || !s->fake || !s->bin || !s->load)
		return an_oom(s);
	for (int64_t p = 0; p < np; p++) {
		s->silent[p] = s->qrp[p + 1] == s->qrp[p];
		s->fixed[p] = -1;
	}
	return TOPOMATCH_OK;
}

/* Groups at their corners, the others at the centre; the moving ones
 * numbered. */
static void start_positions(an_t *s)
{
	s->nm = 0;
	for (int64_t p = 0; p < s->np; p++) {
		for (int k = 0; k < s->g.nd; k++)
			an_pos(s, p)[k] = s->fixed[p] >= 0 ? an_coord(&s->g, s->fixed[p], k)
						       : (s->g.dims[k] - 1) / 2.0;
		s->mov[p] = -1;
		if (!s->silent[p] && s->fixed[p] < 0) {
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
		return an_oom(s);
	for (int64_t u = 0; u < c->ntasks; u++) {
		int64_t p = s->grp[u];
		pu[u] = s->bin[p] * c->t->lpus + used[p]++ / c->f;
	}
	free(used);
	return TOPOMATCH_OK;
}

static int parse_opts(const char *args, an_spreading_t *sp, char *err)
{
	*sp = AN_SPREAD_ANCHOR;
	if (!args || !*args || !strcmp(args, "spreading=anchor"))
		return TOPOMATCH_OK;
	if (!strcmp(args, "spreading=paper")) {
		*sp = AN_SPREAD_PAPER;
		return TOPOMATCH_OK;
	}
	return tm_err(err, TOPOMATCH_EINVAL,
		      "analytical: unknown options '%s' (known: spreading=anchor|paper)", args);
}

/* Stage 2: Fig. 4 from the global mapping's bins; with the anchors, the
 * best look-ahead mapping instead when its hop-bytes are lower. */
static int legalize(an_t *s)
{
	int64_t *lb = s->bin;
	place_silent(s);
	int rc = an_legalize(&s->g, &s->q, lb, s->c->deadline, s->err);
	if (rc != TOPOMATCH_OK || !(s->ahead_hb < an_group_hb(s, lb)))
		return rc;
	memset(s->load, 0, (size_t)s->g.nr * sizeof(*s->load));
	for (int64_t p = 0; p < s->np; p++)
		if (!s->silent[p]) {
			s->bin[p] = s->ahead[p];
			s->load[s->ahead[p]]++;
		}
	place_silent(s);
	return TOPOMATCH_OK;
}

int tm_map_analytical(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	an_t s = { .c = c, .err = err };
	int rc = check(c, &s.g, err);
	if (rc == TOPOMATCH_OK)
		rc = parse_opts(c->args, &s.spreading, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (c->ntasks > s.g.nr * c->t->lpus * c->f)
		return tm_err(err, TOPOMATCH_EINVAL, "analytical: %lld tasks do not fit",
			      (long long)c->ntasks);
	s.np = s.g.nr;
	rc = make_groups(&s);
	if (rc == TOPOMATCH_OK)
		rc = group_graph(&s);
	if (rc == TOPOMATCH_OK)
		rc = an_alloc(&s);
	if (rc == TOPOMATCH_OK)
		rc = fix_corners(&s);
	if (rc == TOPOMATCH_OK) {
		start_positions(&s);
		rc = an_global_mapping(&s);
	}
	if (rc == TOPOMATCH_OK)
		rc = legalize(&s);
	if (rc == TOPOMATCH_OK)
		rc = emit(&s, pu);
	an_free(&s);
	return rc;
}

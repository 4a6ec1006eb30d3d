/*
 * scotch_graph.c - Scotch source graphs with bounded integer weights,
 * for the Scotch mapper (TopoMatch Alg. 2 and 4) and partitioner.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "scotch_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest integer edge weight of a source graph: finer weights changed
 * nothing (same hop-bytes with caps of 2^10, 2^16 and 2^24 on 512-task
 * stencils), and small ones keep every sum far from 32-bit limits. */
#define MAX_EDGE_WEIGHT 65536.0

/* ---------------------------------------------------------- source graphs */

/*
 * Scotch adds weight x distance over all arcs in SCOTCH_Num: keep that
 * total under a quarter of the range (room for its partial sums).
 */
SCOTCH_Num tm_scotch_weight_budget(SCOTCH_Num dmax)
{
	SCOTCH_Num b = SCOTCH_NUMMAX / 4 / (dmax > 1 ? dmax : 1);
	return b > 1 ? b : 1;
}

static bool keep(double w, double cut, double wmax)
{
	return w > 0.0 && (w > cut || w >= wmax);
}

/* Sum and maximum of the kept weights; arcs kept. */
static int64_t sgraph_scan(int64_t n, const int64_t *rowptr, const double *w, double *cut,
			   double *wsum, double *wmax)
{
	int64_t narcs = 0;
	*wmax = 0.0;
	for (int64_t e = 0; e < rowptr[n]; e++)
		if (w[e] > *wmax)
			*wmax = w[e];
	*cut *= *wmax;
	*wsum = 0.0;
	for (int64_t e = 0; e < rowptr[n]; e++) {
		if (keep(w[e], *cut, *wmax)) {
			narcs++;
			*wsum += w[e];
		}
	}
	return narcs;
}

/*
 * Scale so that the rounded weights, each at least 1, total at most
 * budget: sum(max(1, round(w s))) <= s sum(w) + narcs.
 */
static double sgraph_scale(int64_t narcs, double wsum, double wmax, SCOTCH_Num budget)
{
	double room = (double)budget - (double)narcs;
	if (narcs == 0 || room <= 0.0)
		return 0.0; /* every weight becomes 1 */
	double s = room / wsum;
	return fmin(s, MAX_EDGE_WEIGHT / wmax);
}

static SCOTCH_Num scaled(double w, double s)
{
	double v = floor(w * s + 0.5);
	return v < 1.0 ? 1 : v > MAX_EDGE_WEIGHT ? (SCOTCH_Num)MAX_EDGE_WEIGHT : (SCOTCH_Num)v;
}

static void sgraph_fill(tm_sgraph_t *sg, int64_t n, const int64_t *rowptr, const int64_t *col,
			const double *w, double cut, double wmax, double s)
{
	SCOTCH_Num e = 0;
	for (int64_t i = 0; i < n; i++) {
		sg->vert[i] = e;
		for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
			if (!keep(w[k], cut, wmax) || col[k] == i)
				continue;
			sg->edge[e] = (SCOTCH_Num)col[k];
			sg->edlo[e++] = scaled(w[k], s);
		}
	}
	for (int64_t i = n; i <= sg->nvert; i++) /* fillers have no edge */
		sg->vert[i] = e;
	sg->narcs = e;
}

int tm_sgraph_build(tm_sgraph_t *sg, int64_t n, const int64_t *rowptr, const int64_t *col,
		    const double *w, double rel_cut, int64_t nfill, SCOTCH_Num budget, char *err)
{
	memset(sg, 0, sizeof(*sg));
	double wsum, wmax, cut = rel_cut;
	int64_t narcs = sgraph_scan(n, rowptr, w, &cut, &wsum, &wmax);
	if (n < 0 || nfill < 0 || n + nfill > SCOTCH_NUMMAX - 1 || narcs > SCOTCH_NUMMAX)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "Scotch: %lld vertices and %lld arcs are too many for 32-bit Scotch",
			      (long long)(n + nfill), (long long)narcs);
	sg->nreal = (SCOTCH_Num)n;
	sg->nvert = (SCOTCH_Num)(n + nfill);
	sg->vert = tm_alloc(n + nfill + 1, sizeof(*sg->vert));
	sg->edge = tm_alloc(narcs, sizeof(*sg->edge));
	sg->edlo = tm_alloc(narcs, sizeof(*sg->edlo));
	if (!sg->vert || !sg->edge || !sg->edlo) {
		tm_sgraph_free(sg);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (Scotch graph, %lld arcs)",
			      (long long)narcs);
	}
	sgraph_fill(sg, n, rowptr, col, w, cut, wmax, sgraph_scale(narcs, wsum, wmax, budget));
	if (SCOTCH_graphInit(&sg->g)) {
		tm_sgraph_free(sg);
		return tm_scotch_fail(err, "SCOTCH_graphInit");
	}
	sg->built = true;
	if (SCOTCH_graphBuild(&sg->g, 0, sg->nvert, sg->vert, sg->vert + 1, NULL, NULL, sg->narcs,
			      sg->edge, sg->edlo)) {
		tm_sgraph_free(sg);
		return tm_scotch_fail(err, "SCOTCH_graphBuild");
	}
	return TOPOMATCH_OK;
}

void tm_sgraph_free(tm_sgraph_t *sg)
{
	if (sg->built)
		SCOTCH_graphExit(&sg->g);
	free(sg->vert);
	free(sg->edge);
	free(sg->edlo);
	memset(sg, 0, sizeof(*sg));
}

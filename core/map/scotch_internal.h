/*
 * scotch_internal.h - what the Scotch mapper (TopoMatch Alg. 2 and 4), the
 * Scotch partitioner and their tests share: source graphs with bounded
 * integer weights (scotch_graph.c) and the check-and-repair pass that
 * follows every mapping; the targets they map onto and the Scotch sessions
 * they run in come from topology/scotch_arch.h.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SCOTCH_INTERNAL_H
#define TM_SCOTCH_INTERNAL_H

#include "mapper_internal.h"
#include "topology/scotch_arch.h"

/* The largest total arc weight a graph mapped onto a target of distances
 * up to dmax may carry: Scotch sums weight x distance in 32-bit integers. */
SCOTCH_Num tm_scotch_weight_budget(SCOTCH_Num dmax);

/*
 * A Scotch source graph and the arrays it borrows.  Vertices 0..nreal-1
 * come from a CSR graph; nfill more, without edges, fill the target so
 * that a balanced mapping leaves room for the real ones (§4.5).
 */
typedef struct tm_sgraph {
	SCOTCH_Graph g;
	bool built;
	SCOTCH_Num nreal;
	SCOTCH_Num nvert; /* nreal + nfill */
	SCOTCH_Num narcs; /* both directions of every kept edge */
	SCOTCH_Num *vert;
	SCOTCH_Num *edge;
	SCOTCH_Num *edlo;
} tm_sgraph_t;

/*
 * Build from a symmetric CSR (n rows, weights > 0), keeping the entries
 * with w > rel_cut x (the largest weight) and those equal to the largest
 * weight (so that rel_cut = 1 still keeps the heaviest edges), with the
 * weights scaled to integers >= 1 whose total stays within `budget`.
 */
int tm_sgraph_build(tm_sgraph_t *sg, int64_t n, const int64_t *rowptr, const int64_t *col,
		    const double *w, double rel_cut, int64_t nfill, SCOTCH_Num budget,
		    char *err);
void tm_sgraph_free(tm_sgraph_t *sg);

/*
 * The task graph of TopoMatch Alg. 2 line 1: the symmetric affinity of
 * c->a with only the weights strictly greater than mu x c->sparse_factor
 * (mu = the largest weight; the mu-weight edges always stay), plus nfill
 * filler vertices.
 */
int tm_scotch_task_graph(const tm_map_ctx_t *c, int64_t nfill, SCOTCH_Num budget,
			 tm_sgraph_t *sg, char *err);

/*
 * Balance tolerance of the mapping strategy, whole targets and
 * sub-architectures alike.  Mean hop-bytes after repair over 8 seeds, on
 * 4096-task stencils (torus and tleaf, whole and 6407 scattered PUs): 0
 * keeps Scotch to one task per PU but maps 1-18% worse than 0.01; 0.02
 * and 0.05 were up to 7% worse on the torus, at best 1% better on tleaf.
 * 0.01 leaves a handful of tasks to move.
 */
#define TM_SCOTCH_BALANCE 0.01

/*
 * Check and repair a mapping given as slots: loc[i] in [0, m) is the index
 * of task i's PU in cand[] (anything else: no PU).  Tasks beyond f on a PU
 * (the least attached to the others there) and tasks without a PU move,
 * heaviest first, to the free PU of cand[] that adds the fewest hop-bytes
 * among those nearest to their heaviest placed neighbour.  *moved (may be
 * NULL) receives the number of moves.  Needs n <= m x f, n = the task
 * count of a.  deadline: tm_now() value, 0 = none.
 */
int tm_scotch_repair(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		     const int64_t *cand, int64_t m, int f, double deadline, int64_t *loc,
		     int64_t *moved, char *err);

#endif /* TM_SCOTCH_INTERNAL_H */

/*
 * scotch_internal.h - what the Scotch mapper (TopoMatch Alg. 2 and 4), the
 * Scotch partitioner and their tests share: Scotch targets built from our
 * topologies, source graphs with bounded integer weights, deterministic
 * contexts, and the check-and-repair pass that follows every mapping.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Numbering (checked by tests/unit/test_scotch.c): terminal t of a full
 * target is our PU t on every kind (tleaf: root level most significant;
 * torus/mesh: first dimension fastest, with a local tree router x L +
 * local; hcub: the vertex number; deco: compute vertices in increasing
 * vertex order) but one: the tleaf of a large grid with a local tree,
 * only ever used through a sub-architecture; terminal j of a
 * sub-architecture, or of a "deco" target built on a list of PUs, is the
 * j-th PU of the list.
 */
#ifndef TM_SCOTCH_INTERNAL_H
#define TM_SCOTCH_INTERNAL_H

#include <stdio.h> /* scotch.h uses FILE without including it */

#include <scotch.h>

#include "mapper_internal.h"
#include "topology/topology_internal.h"

/*
 * A Scotch target: the target of the whole topology and, when only some
 * PUs may be used, the sub-architecture on them (Scotch keeps a pointer
 * to the full target inside the sub-architecture, so both live here).
 * Graph topologies (and meshes of more than 3 dimensions, and grids with
 * a local tree or only some dimensions wrapping, up to 2048 usable PUs)
 * have "deco" targets that are built on the usable PUs directly: no
 * sub-architecture.  Larger grids with a local tree map onto a tleaf
 * through a sub-architecture on the usable PUs, even all of them (it
 * renumbers the tleaf's terminals as our PUs).
 * dmax bounds the distance between two terminals, in Scotch's units.
 */
struct tm_arch_job;

typedef struct tm_starget {
	SCOTCH_Arch full;
	SCOTCH_Arch sub;
	bool has_full;
	bool has_sub;
	/* "deco" targets: loaded where the load can be abandoned (it takes
	 * up to seconds: tm_starget_build_until), the target inside */
	struct tm_arch_job *job;
	SCOTCH_Num dmax;
	SCOTCH_Num nterm; /* terminals of tm_starget_arch() */
} tm_starget_t;

/*
 * Build the target of t restricted to the m PUs cand[0..m-1] (distinct,
 * any order; cand == NULL: all PUs in order, no sub-architecture).
 */
int tm_starget_build(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
		     int64_t m, char *err);
/* The same, given up at deadline (a tm_now() value, 0 = none): EBUDGET.
 * The exact distances of a "deco" target look at the clock between rows;
 * Scotch's loading of it (SCOTCH_archLoad, SCOTCH_archBuild2: 0.2 s for
 * 1,152 PUs of a dragonfly, seconds at 2,048) runs where it can be
 * abandoned (tm_run_abandonable). */
int tm_starget_build_until(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
			   int64_t m, double deadline, char *err);
void tm_starget_free(tm_starget_t *x);
/* The target to map onto: the sub-architecture when there is one. */
SCOTCH_Arch *tm_starget_arch(tm_starget_t *x);

/*
 * The Scotch graph of a graph topology, as its "deco" targets see it: the
 * vertices that PU 0 reaches, in vertex order (nv), parallel links merged,
 * CSR vert/edge, edlo the link costs made integers (the cheapest 1, 10 or
 * 100; NULL when they are all equal), list[p] the vertex of PU p.
 */
typedef struct tm_tgraph {
	SCOTCH_Num nv;
	SCOTCH_Num *vert, *edge, *edlo, *list;
} tm_tgraph_t;

int tm_target_graph(const topomatch_topology_t *t, tm_tgraph_t *g, char *err);
/* The exact "deco 0" text of all the PUs of t (2 to 2048 PUs; graphs and
 * grids with node trees): what the mapper's targets load, our distances
 * and a balanced decomposition (malloc'd, *len bytes). */
int tm_exact_deco_text(const topomatch_topology_t *t, char **text, size_t *len, char *err);
void tm_target_graph_free(tm_tgraph_t *g);

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
 * A deterministic context (SCOTCH_OPTIONNUMDETERMINISTIC, a fixed random
 * seed from `seed`, a fixed thread count) bound to g: *bound is the graph
 * to hand to Scotch.  Release with tm_scotch_unbind().
 */
int tm_scotch_bind(SCOTCH_Context *ctx, SCOTCH_Graph *bound, const SCOTCH_Graph *g,
		   uint64_t seed, char *err);
void tm_scotch_unbind(SCOTCH_Context *ctx, SCOTCH_Graph *bound);

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

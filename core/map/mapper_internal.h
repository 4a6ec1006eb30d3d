/*
 * mapper_internal.h - the mappers' entry points, which the dispatcher
 * (mapper.c) calls with a mapping request (map_ctx.h), the local search
 * and the portfolio; with the graph partitioning they share (partition.h).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_MAPPER_INTERNAL_H
#define TM_MAPPER_INTERNAL_H

#include "map_ctx.h"
#include "partition.h"

/* TreeMatch / TopoMatch Alg. 1 on a tree topology (treematch.c). */
int tm_map_treematch(const tm_map_ctx_t *c, int64_t *pu, char *err);
/* TOPOMATCHCONST, TopoMatch Alg. 3, on a tree topology (topomatch_const.c). */
int tm_map_topomatch_const(const tm_map_ctx_t *c, int64_t *pu, char *err);
/*
 * TOPOMATCHCONST's regrouping, step 2 (topomatch_const.c): k parts of
 * size[j] tasks sit on k places (part j on place at[j], a permutation);
 * w (k x k, symmetric) is the weight between two parts, d (k x k) the
 * hops between two places.  Parts of equal size swap places while a swap
 * lowers sum_{j,l} w[j][l] d[at[j]][at[l]] (first improvement, in part
 * order; at most 64 sweeps, and about 2^24 steps of work in all, at least
 * one sweep): at[] ends at a local optimum, or where the work ran out.
 */
void tm_const_place_parts(int64_t k, const int64_t *size, const double *w, const int64_t *d,
			  int64_t *at);
/* Scotch mapping, TopoMatch Alg. 2, or Alg. 4 when c->constrained (scotch_map.c). */
int tm_map_scotch(const tm_map_ctx_t *c, int64_t *pu, char *err);
/* EagerMap, TOPC 2019 Alg. 1-7 (§3.6 off trees), any topology (eagermap_entry.c). */
int tm_map_eagermap(const tm_map_ctx_t *c, int64_t *pu, char *err);
/* GreedyMap, ICS 2017 Alg. 1, one configuration, any topology (greedymap.c). */
int tm_map_greedymap(const tm_map_ctx_t *c, int64_t *pu, char *err);
/* Analytical mapping, J. Supercomput. 2016 §3, on a 1-3D mesh or torus
 * without constraints (analytical.c). */
int tm_map_analytical(const tm_map_ctx_t *c, int64_t *pu, char *err);
/* Whether tm_map_analytical takes the topology (a 1-3D mesh or torus). */
bool tm_analytical_fits(const topomatch_topology_t *t);
/* GreedyMap's BFS task list (ICS 2017 §4.5): Cuthill-McKee from the least
 * connected task, heaviest neighbours first, every component; out[n]
 * (greedymap_order.c). */
int tm_order_bfs(const topomatch_csr_t *a, int64_t *out, char *err);
/* ParMapper, ICS 2017 §4.2: GreedyMap configurations on threads (parmapper.c). */
int tm_map_parmapper(const tm_map_ctx_t *c, int64_t *pu, char *err);

/*
 * Local search after any mapper (refine.c): improves the valid mapping
 * pu[] in place by trades of blocks of PUs, task swaps and moves into free
 * slots, keeping it valid (allowed PUs, at most f per PU); hop-bytes never
 * go up.  At most about `work` units (matrix entries read); the result
 * depends on the inputs and c->seed only, the guard only cuts it short.
 * TOPOMATCH_OK also when the guard stops it, or on graphs with more than
 * 2048 allowed PUs (unchanged); ENOMEM/EINVAL leave pu[] unchanged.
 */
int tm_refine(const tm_map_ctx_t *c, int64_t *pu, int64_t work, char *err);

/* A mapper of the portfolio (portfolio.c), by name for the result. */
typedef struct tm_candidate {
	const char *name;
	int (*run)(const tm_map_ctx_t *c, int64_t *pu, char *err);
} tm_candidate_t;

/*
 * Run the n candidates (on c->threads threads, each candidate on one) and
 * keep the best mapping in pu: the lowest hop-bytes, ties to the lower
 * maximum task hop-bytes, then to the earlier candidate; *winner its
 * index.  Fails only when every candidate failed (the first failure).
 * *cut: some candidate gave up at the deadline (the winner then depends
 * on the machine's speed, which the caller reports).
 */
int tm_portfolio(const tm_map_ctx_t *c, const tm_candidate_t *cand, int n, int64_t *pu,
		 int *winner, bool *cut, char *err);

#endif /* TM_MAPPER_INTERNAL_H */

/*
 * mapper_internal.h - what the mappers share: the mapping request as the
 * dispatcher (mapper.c) hands it over, a weighted graph type for
 * aggregated matrices, and graph partitioning with exact part sizes.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_MAPPER_INTERNAL_H
#define TM_MAPPER_INTERNAL_H

#include "base/tm_internal.h"

/*
 * A mapping request, validated by mapper.c: `allowed` lists m distinct
 * valid PU ids (never NULL: mapper.c materialises 0..npu-1 when the user
 * gave no constraints, and sets `constrained` accordingly); ntasks <= m * f.
 * Mappers fill pu[ntasks] with ids from `allowed`, at most f tasks per PU,
 * and must be deterministic for a given seed: the deadline is only a guard
 * (return TOPOMATCH_EBUDGET when it passes; mapper.c then returns the best
 * valid mapping found so far, or the natural placement).  A step that
 * cannot look at the clock (a Scotch call) runs through
 * tm_run_abandonable (tm_pool.h).
 */
typedef struct tm_map_ctx {
	const topomatch_affinity_t *a;
	const topomatch_topology_t *t;
	int64_t ntasks;
	const int64_t *allowed;
	int64_t m;
	int constrained; /* the user gave constraints */
	int f;           /* oversubscription factor, >= 1 */
	uint64_t seed;
	double deadline; /* tm_now() value; 0 = none */
	double tau;      /* > 0 */
	double sparse_factor; /* in [0, 1] */
	int threads;     /* threads the mapper may run, >= 1 (results do not depend on it) */
	const char *args; /* the mapper's options ("name:args"), or NULL */
} tm_map_ctx_t;

/* true when the guard has passed (cheap enough to call every few thousand steps) */
static inline bool tm_ctx_expired(const tm_map_ctx_t *c)
{
	return c->deadline > 0 && tm_now() > c->deadline;
}

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
/* EagerMap, TOPC 2019 Alg. 1-7 (§3.6 off trees), any topology (eagermap.c). */
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

/*
 * An undirected weighted graph in CSR: symmetric, no self loops, weights
 * finite and > 0; vw (vertex weights) may be NULL (all 1).  The symmetric
 * view of an affinity (topomatch_affinity_symmetric) has this shape.
 */
typedef struct tm_wgraph {
	int64_t n;
	const int64_t *rowptr;
	const int64_t *col;
	const double *w;
	const double *vw;
} tm_wgraph_t;

/*
 * Partition g into k parts whose sizes (vertex counts) are exactly
 * size[0..k-1] (sum = n; a size may be 0), minimising the weight of the
 * cut.  part[v] in [0, k).  Deterministic for a seed.  Scotch k-way
 * partitioning when it succeeds, made exact by rebalancing; a greedy
 * partitioner with a balancing phase otherwise (TopoMatch §4.4).
 * deadline (a tm_now() value, 0 = none) is looked at between phases and
 * refinement passes: TOPOMATCH_EBUDGET when it has passed.  (partition.c)
 */
int tm_partition_exact(const tm_wgraph_t *g, int k, const int64_t *size, uint64_t seed,
		       double deadline, int64_t *part, char *err);
/* The greedy partitioner's graph growing alone (TopoMatch §4.2.2: parts
 * grown one after the other from the heaviest attachment, without the
 * refinement that follows), the same contract: O(nnz log n), no Scotch. */
int tm_partition_grow(const tm_wgraph_t *g, int k, const int64_t *size, double deadline,
		      int64_t *part, char *err);
/*
 * Parsed Scotch strategies kept for reuse by one caller (not shared
 * between threads): TOPOMATCHCONST partitions a 1,024-task job's tasks
 * hundreds of times, mostly graphs of 16 vertices into 2 parts, where
 * parsing Scotch's strategy string is 40 % of a call (scotch_part.c).
 */
typedef struct tm_scotch_strats tm_scotch_strats_t;
tm_scotch_strats_t *tm_scotch_strats_new(void); /* NULL: out of memory (then none is kept) */
void tm_scotch_strats_free(tm_scotch_strats_t *s);

/* Scotch's k-way strategy (SCOTCH_stratGraphMapBuild's flags); the parts
 * are made exact afterwards whichever it is. */
typedef enum tm_part_strategy {
	TM_PART_BALANCED,  /* multilevel k-way, exact-balance passes (STRATBALANCE) */
	TM_PART_LEAN,	   /* neither diffusion nor exact-balance passes (STRATSAFETY) */
	TM_PART_RECURSIVE, /* recursive bisection, each exact (STRATRECURSIVE | BALANCE) */
} tm_part_strategy_t;

/* How a partition is computed; tm_part_opts_init: the seed and deadline
 * given, balance 0.01, TM_PART_BALANCED, nothing else. */
typedef struct tm_part_opts {
	uint64_t seed;
	double deadline;  /* a tm_now() value, 0 = none */
	double balance;   /* Scotch's k-way balance tolerance (0.01 by default) */
	bool also_tight;  /* graphs of up to 256 vertices at 0.01 as well, the lower cut kept */
	bool scotch_first; /* Scotch's partition alone when it gives one, else the greedy one */
	tm_part_strategy_t strategy;
	tm_scotch_strats_t *strats; /* strategies to reuse, or NULL */
} tm_part_opts_t;
void tm_part_opts_init(tm_part_opts_t *o, uint64_t seed, double deadline);

/* tm_partition_exact with the options given (TOPOMATCHCONST: balance
 * 0.05, and its strategies kept). */
int tm_partition_exact_opts(const tm_wgraph_t *g, int k, const int64_t *size,
			    const tm_part_opts_t *o, int64_t *part, char *err);
/* Scotch's k-way partition with target part sizes; sizes may come out
 * off by a few vertices (scotch_part.c). */
int tm_partition_scotch(const tm_wgraph_t *g, int k, const int64_t *size, uint64_t seed,
			int64_t *part, char *err);
/* The same with the options' balance and strategies, abandoned at their
 * deadline: EBUDGET then, and the Scotch call ends on a thread of its
 * own, its result dropped (tm_run_abandonable). */
int tm_partition_scotch_opts(const tm_wgraph_t *g, int k, const int64_t *size,
			     const tm_part_opts_t *o, int64_t *part, char *err);
/* Move vertices between parts until part sizes are exactly size[], each
 * move chosen to cost the least cut weight (partition.c). */
int tm_partition_rebalance(const tm_wgraph_t *g, int k, const int64_t *size, int64_t *part,
			   char *err);
/* Weight of the cut of a partition (each cut edge counted once). */
double tm_partition_cut(const tm_wgraph_t *g, const int64_t *part);

#endif /* TM_MAPPER_INTERNAL_H */

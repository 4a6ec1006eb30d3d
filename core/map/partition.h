/*
 * partition.h - graph partitioning with exact part sizes (partition.c,
 * TopoMatch §4.2-4.4), on Scotch's k-way partitioner (scotch_part.c) or
 * a greedy one, for the mappers' grouping steps.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_PARTITION_H
#define TM_PARTITION_H

#include "base/tm_internal.h"

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
	topomatch_memo_t *memo;     /* partitions to reuse and keep, or NULL */
} tm_part_opts_t;
void tm_part_opts_init(tm_part_opts_t *o, uint64_t seed, double deadline);

/*
 * What a partition depends on (partition_memo.c): the graph, the part
 * sizes, the seed, Scotch's balance and the options' flags
 * (tm_part_opts_t's also_tight, scotch_first and strategy).
 */
typedef struct tm_part_key {
	const tm_wgraph_t *g;
	int k;
	const int64_t *size;
	uint64_t seed;
	double balance;
	int flags;
} tm_part_key_t;
uint64_t tm_part_key_hash(const tm_part_key_t *k);
/* The partition kept for key k (hash h) into part[k->g->n]: false when none. */
bool tm_part_memo_get(topomatch_memo_t *m, const tm_part_key_t *k, uint64_t h, int64_t *part);
/* Keep part[] for k (silently not when memory is short or it is larger
 * than the memo). */
void tm_part_memo_put(topomatch_memo_t *m, const tm_part_key_t *k, uint64_t h,
		      const int64_t *part);

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

#endif /* TM_PARTITION_H */

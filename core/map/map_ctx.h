/*
 * map_ctx.h - one mapping: the request every mapper receives from the
 * dispatcher (mapper.c), and its time budget.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_MAP_CTX_H
#define TM_MAP_CTX_H

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
	topomatch_memo_t *memo; /* partitions to reuse, or NULL (partition.h) */
} tm_map_ctx_t;

/* true when the guard has passed (cheap enough to call every few thousand steps) */
static inline bool tm_ctx_expired(const tm_map_ctx_t *c)
{
	return c->deadline > 0 && tm_now() > c->deadline;
}

#endif /* TM_MAP_CTX_H */

/*
 * greedymap_internal.h - GreedyMap and ParMapper (Galvez, Jain, Kale:
 * "Automatic Topology Mapping of Diverse Large-scale Parallel
 * Applications", ICS 2017, §4.2-4.5): what greedymap.c (Alg. 1 and its
 * configurations), greedymap_order.c (the task lists of §4.5) and
 * parmapper.c (many configurations, Pareto choice) share, and what the
 * unit tests reach.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_GREEDYMAP_INTERNAL_H
#define TM_GREEDYMAP_INTERNAL_H

#include "mapper_internal.h"
#include "topology/pu_nodes.h"

/* Task lists of §4.5. */
enum gm_order { GM_OO = 0, GM_BFS, GM_BFSDFS, GM_GPART, GM_NORDERS };
/* Cost of a partial solution (§4.4): hop-bytes, or the maximum task
 * hop-bytes (then hop-bytes between equals). */
enum gm_cost { GM_COST_HB = 0, GM_COST_MAXHB };

/* A configuration: the tuple (T, Delta, packNodeFirst, cost_function,
 * Torus_Wrap) of §4.5, and the seed of its random choices. */
typedef struct gm_config {
	int order;
	bool pack;
	int64_t delta; /* nodes explored per step; 0 = all */
	bool wrap;
	int cost;
	bool random_ties; /* Alg. 1 line 10; else the first tie in ring order */
	uint64_t seed;
} gm_config_t;

/* Tasks between two looks at the clock: a placement may scan many PUs
 * (1,024 of them took some 20 ms at 16,384 tasks), a look costs ~25 ns. */
#define GM_CHECK_TASKS 64
/* Delta = every node: a bounded walk visits at most this many nodes once
 * it has a candidate (it only binds when the placed neighbours of a task
 * are scattered, as with a task list that ignores the pattern). */
#define GM_WALK_MAX 512

/* What every configuration of one request reads: built once, then shared
 * by the threads without locks. */
typedef struct gm_shared {
	const tm_map_ctx_t *c;
	topomatch_csr_t a;
	tm_nodes_t nd;
	int64_t *order[GM_NORDERS]; /* task lists, NULL until built */
} gm_shared_t;

int gm_shared_init(gm_shared_t *sh, const tm_map_ctx_t *c, char *err);
void gm_shared_free(gm_shared_t *sh);

/* Build the task list `order` into sh->order[order] (greedymap_order.c);
 * GPART partitions with Scotch (tm_partition_exact). */
int gm_shared_order(gm_shared_t *sh, int order, char *err);

/* The number of parts GPART cuts the tasks into: the nodes they fill
 * (0 when a part would average fewer than two tasks: GPART is then BFS). */
int64_t gm_gpart_parts(const gm_shared_t *sh);

/* Scratch of one thread running configurations. */
typedef struct gm_run gm_run_t;

int gm_run_create(const gm_shared_t *sh, gm_run_t **out, char *err);
void gm_run_destroy(gm_run_t *r);

/* GreedyMap (Alg. 1) under cfg: slot[t] = allowed index (into sh->nd.pus)
 * of task t.  The task list must have been built. */
int gm_map(gm_run_t *r, const gm_config_t *cfg, int64_t *slot, char *err);

/* TopoMapping Eq. 1-3 for a mapping in allowed indices: average and
 * maximum of the per-task hop-bytes. */
void gm_task_hop_bytes(gm_run_t *r, const int64_t *slot, double *avg, double *max);

/* The default configuration for a request (greedymap without options). */
gm_config_t gm_default_config(const gm_shared_t *sh);

/* Options "key=value,..." (order, pack, delta, wrap, cost) over *cfg. */
int gm_parse(const char *args, gm_config_t *cfg, char *err);

/* Configuration names for messages and tests ("gpart", "bfs-dfs"...). */
const char *gm_order_name(int order);

/* ParMapper (parmapper.c). */
int tm_parmapper_select(const double *avg, const double *max, const bool *ok, int64_t n,
			double alpha);

#endif /* TM_GREEDYMAP_INTERNAL_H */

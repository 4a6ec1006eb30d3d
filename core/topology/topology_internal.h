/*
 * topology_internal.h - the topology model, shared by the topology files
 * (model, parser, router), the metrics and the mappers.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_TOPOLOGY_INTERNAL_H
#define TM_TOPOLOGY_INTERNAL_H

#include "base/tm_internal.h"

/* Bounds of general graphs (the PU count has TOPOMATCH_MAX_PUS). */
#define TM_MAX_GRAPH_VERTICES (INT64_C(1) << 28)
#define TM_MAX_GRAPH_LINKS (INT64_C(1) << 28)

/* Largest target file topomatch_topology_load() reads. */
#define TM_MAX_TOPOLOGY_BYTES (INT64_C(1) << 20)

/* One direction of an undirected graph link, as seen from its tail. */
typedef struct tm_adj {
	int64_t nbr;  /* head vertex */
	int64_t link; /* directed link id: 2k from a[k] to b[k], 2k+1 back */
	double cost;
} tm_adj_t;

struct topomatch_topology {
	int kind;     /* topomatch_topo_kind */
	int64_t npu;
	int64_t nlinks;  /* directed link ids, see router.c */
	int64_t maxhops; /* bound on the length of any route */

	/*
	 * tree: node at depth k covers below[k] PUs; below[0] = npu.
	 * torus/mesh: the same fields describe the local tree below every
	 * router (the router at depth 0, below[0] = lpus), numbered globally:
	 * tm_tree_node() and the link ids of router.c span all routers.
	 */
	int nlevels;
	int arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];
	double costsum[TOPOMATCH_MAX_LEVELS + 1]; /* sum of cost[k..nlevels-1] */
	int64_t below[TOPOMATCH_MAX_LEVELS + 1];
	int64_t node_off[TOPOMATCH_MAX_LEVELS + 1]; /* id of the first node at depth k */

	/*
	 * torus/mesh: a grid of routers, lpus PUs below each (1 without a
	 * local tree); PU p is on router p / lpus.  A hypercube is kept as
	 * ndims dimensions of size 2 that do not wrap, lpus 1.
	 */
	int ndims;
	unsigned char wrap[TOPOMATCH_MAX_DIMS]; /* 1 when dimension k wraps */
	int dims[TOPOMATCH_MAX_DIMS];
	int64_t stride[TOPOMATCH_MAX_DIMS]; /* in PUs: lpus x product of dims[0..k-1] */
	int64_t lpus;
	double grid_cost; /* cost of one router-router link */
	int64_t grid_maxhops; /* longest router-router route */

	/* graph: adjacency in CSR, rows sorted by (nbr, link) */
	int64_t nvert;
	int64_t nedges; /* undirected links */
	int64_t *adj_ptr;
	tm_adj_t *adj;
	int64_t *pu_vert; /* PU -> vertex */
	int64_t *vert_pu; /* vertex -> PU, -1 for switches */
	/* graph: the trees hanging off the core (graph_hang.c) */
	int64_t ncore;
	int64_t *core_id;     /* vertex -> index among the core's vertices, -1 */
	int64_t *core_vert;   /* core index -> vertex */
	int64_t *hang_att;    /* the core vertex a vertex's tree hangs from */
	int64_t *hang_parent; /* towards it; -1 for core vertices */
	int64_t *hang_up;     /* directed link id vertex -> parent */
	int64_t *hang_down;   /* parent -> vertex */
	int64_t *hang_depth;  /* hops to hang_att */
	double *hang_cost;    /* cost of that path */
	/* graph, after topomatch_cluster_precompute: hops between core
	 * vertices, ncore x ncore (TM_CORE_HOPS_NONE: unreachable), or NULL;
	 * and the parent of core vertex c in the BFS tree of core vertex s,
	 * core_parent[s * ncore + c] (s itself for c = s and for c unreached) */
	uint8_t *core_hops;
	uint16_t *core_parent;
};

#define TM_CORE_HOPS_NONE 255
/* The largest core whose tables are kept (3 bytes a pair: 192 MiB at
 * 8,192 switches), above the largest dragonflies built (166 groups of 32
 * switches, 5,312: 81 MiB); without them every hop count searches. */
#define TM_CORE_TABLE_MAX 8192
_Static_assert(TM_CORE_TABLE_MAX <= 65536, "core_parent holds core indices in 16 bits");

/*
 * Breadth-first search state over a graph topology.  Neighbours are taken
 * in increasing vertex order and the first discovery sets the parent, so
 * the tree (and every route) is deterministic.
 */
typedef struct tm_bfs {
	int64_t src;   /* source vertex, -1 before the first run */
	int64_t *dist; /* hops from src, -1 when unreached */
	int64_t *plink; /* directed link that reached the vertex */
	int64_t *parent;
	double *cost;  /* cost of the tree path from src */
	int64_t *queue;
} tm_bfs_t;

int tm_bfs_init(tm_bfs_t *b, int64_t nvert);
void tm_bfs_free(tm_bfs_t *b);
void tm_bfs_run(tm_bfs_t *b, const topomatch_topology_t *t, int64_t src_vertex);

/* graph_hang.c: the hang_* and core fields of a graph; ENOMEM. */
int tm_graph_hang_build(topomatch_topology_t *t);
void tm_graph_hang_free(topomatch_topology_t *t);

/* A BFS of a graph's core from core vertex src, over core indices, in
 * tm_bfs_run's order (the routes of a BFS over the whole graph): b comes
 * from tm_bfs_init(b, t->ncore), and its src, dist, parent and queue hold
 * core indices. */
void tm_core_bfs_run(tm_bfs_t *b, const topomatch_topology_t *t, int64_t src);
/* The core's hop and parent tables (t->core_hops, t->core_parent);
 * ENOMEM, or OK without them when the core is over TM_CORE_TABLE_MAX or a
 * distance over 254 hops. */
int tm_graph_core_table(topomatch_topology_t *t);

/* Parse a target from a buffer that may hold NUL bytes (refused). */
int tm_topology_parse_buf(const char *buf, size_t len, const char *name,
			  topomatch_topology_t **out, char *err);

/*
 * Tree helpers: depth of the lowest common ancestor of PUs p and q (nlevels
 * when p == q), and the id of the depth-k ancestor of PU p (k >= 1) among
 * all non-root nodes.
 */
int tm_tree_lca(const topomatch_topology_t *t, int64_t p, int64_t q);
int64_t tm_tree_node(const topomatch_topology_t *t, int k, int64_t p);
/* At least the cost of any route between two PUs (cheap: no routing). */
double tm_topology_cost_bound(const topomatch_topology_t *t);

/* Coordinate of PU p (of its router) in grid dimension k. */
static inline int64_t tm_grid_coord(const topomatch_topology_t *t, int k, int64_t p)
{
	return (p / t->stride[k]) % t->dims[k];
}

/* A torus or mesh with a local tree, or with only some dimensions
 * wrapping: a shape that no Scotch target class stands for.  (A uniform
 * router link cost scales every distance alike: that is no new shape.) */
static inline bool tm_grid_tree(const topomatch_topology_t *t)
{
	if (t->kind != TOPOMATCH_TOPO_TORUS && t->kind != TOPOMATCH_TOPO_MESH)
		return false;
	if (t->nlevels > 0)
		return true;
	for (int k = 0; k < t->ndims; k++)
		if (t->wrap[k] != t->wrap[0])
			return true;
	return false;
}

#endif /* TM_TOPOLOGY_INTERNAL_H */

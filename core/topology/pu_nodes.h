/*
 * pu_nodes.h - the allowed PUs of a mapping request grouped into nodes,
 * the unit that GreedyMap (TopoMapping §4.4) fills and explores and that
 * EagerMap's non-tree extension (EagerMap §3.6) calls a machine:
 *
 *  - tree: the parents of the PUs (all PUs under one are at the same
 *    distance from any PU outside it);
 *  - torus/mesh: a router with the local tree below it (one PU on plain
 *    grids);
 *  - hypercube, graph: a single PU.
 *
 * Nodes with no allowed PU do not exist here.  Allowed PUs are handled by
 * their index j in the sorted allowed list (pus[j]); a node holds the
 * indices ptr[x] .. ptr[x+1]-1.
 *
 * Nodes are explored in rings of growing distance from a centre node
 * (tm_near_walk): subtrees of growing height on trees, Manhattan shells on
 * grids (wrapping or not; each shell the non-negative offsets first, those
 * spread over the most dimensions first), Hamming shells on hypercubes,
 * BFS layers on graphs.  Every order is fixed, so walks are
 * deterministic, and the mappers settle equal costs by it: the first
 * node met wins.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_PU_NODES_H
#define TM_PU_NODES_H

#include "topology_internal.h"

/* General graphs get a table of hops between allowed PUs up to this many
 * of them (uint16, 8 MiB); beyond it, one BFS per source PU. */
#define TM_NODES_TABLE_MAX 2048

typedef struct tm_nodes {
	const topomatch_topology_t *t;
	int64_t m;       /* allowed PUs */
	int64_t *pus;    /* sorted allowed PU ids */
	int64_t n;       /* nodes */
	int64_t *ptr;    /* n + 1: node x holds allowed indices ptr[x] .. ptr[x+1]-1 */
	int64_t *key;    /* n, increasing: parent number, router, or PU */
	int64_t *node;   /* m: allowed index -> node */
	int64_t maxcap;  /* most allowed PUs in one node */
	uint16_t *tab;   /* graphs with m <= TM_NODES_TABLE_MAX: m x m hops */
} tm_nodes_t;

/* Build from m distinct valid PU ids (any order). */
int tm_nodes_build(tm_nodes_t *nd, const topomatch_topology_t *t, const int64_t *allowed,
		   int64_t m, char *err);
void tm_nodes_free(tm_nodes_t *nd);

/* Node with this key, or -1. */
int64_t tm_nodes_find(const tm_nodes_t *nd, int64_t key);

/* Per-thread scratch for distance queries and walks. */
typedef struct tm_near {
	const tm_nodes_t *nd;
	topomatch_router_t *r; /* graphs without a table */
	int64_t *dist;         /* graphs: BFS layers of a walk, per vertex... */
	uint64_t *seen;        /* ...valid where seen[v] == epoch */
	uint64_t epoch;
	int64_t *queue;
} tm_near_t;

int tm_near_init(tm_near_t *x, const tm_nodes_t *nd, char *err);
void tm_near_free(tm_near_t *x);

/* Hops between allowed PUs i and j (indices). */
int64_t tm_near_hops(tm_near_t *x, int64_t i, int64_t j);

/* Distance between nodes in walk units: hops between their PUs on trees,
 * hypercubes and graphs, router hops on grids; 0 for a node to itself. */
int64_t tm_near_dist(tm_near_t *x, int64_t a, int64_t b);

/*
 * Visit the nodes in rings of nondecreasing distance from `centre`
 * (itself first, at 0), calling fn(arg, node, dist) until it returns
 * false or every node was seen.  wrap = false explores a torus as if it
 * were a mesh (TopoMapping §4.5, Torus_Wrap): rings then follow mesh
 * distances.
 */
typedef bool (*tm_near_fn)(void *arg, int64_t node, int64_t dist);
void tm_near_walk(tm_near_t *x, int64_t centre, bool wrap, tm_near_fn fn, void *arg);

#endif /* TM_PU_NODES_H */

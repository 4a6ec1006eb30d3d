/*
 * eagermap_internal.h - EagerMap (Cruz, Diener, Pilla, Navaux, ACM TOPC
 * 2019): greedy hierarchical mapping.  What eagermap.c (Alg. 1 and 5 on a
 * tree), eagermap_group.c (Alg. 2, 3, 4, 6, 7 and the parallel Alg. 8)
 * and eagermap_cluster.c (§3.6, non-tree topologies) share, and what the
 * unit tests reach.
 *
 * Groups are typed.  The paper assumes a symmetric tree, where all groups
 * of a level have the same size; with constraints (a subset of the PUs),
 * partly used subtrees and uneven task counts, subtrees differ.  Every
 * used hardware object therefore gets a type: the canonical form of its
 * used subtree (a PU's type is its task count).  A group is built for an
 * object and takes, by the greedy rule of Alg. 3, exactly the multiset of
 * element types that the object's children have; Alg. 5 then gives every
 * element to a child of the same type, which is isomorphic to the one the
 * element was built for.  On a symmetric tree there is one type per level
 * and this is the paper's algorithm.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_EAGERMAP_INTERNAL_H
#define TM_EAGERMAP_INTERNAL_H

#include "mapper_internal.h"
#include "base/tm_pool.h"

/* Greedy steps between two looks at the clock. */
#define EM_CHECK_STEPS 4096
/* A GenerateGroup search over at least this many candidates is split
 * between the threads (Alg. 8). */
#define EM_PAR_MIN 2048

/* A graph that owns its arrays (RecreateMatrix's output). */
typedef struct em_graph {
	tm_wgraph_t g;
	int64_t *rowptr, *col;
	double *w;
} em_graph_t;

void em_graph_free(em_graph_t *g);

/*
 * The groups of one level: group k holds the elements
 * memb[gptr[k] .. gptr[k+1]-1] of the level below, in the order they
 * joined it (Alg. 3 line 18); type[k] is the type of the object it was
 * built for.
 */
typedef struct em_groups {
	int64_t ng;
	int64_t *gptr;
	int64_t *memb;
	int32_t *type;
} em_groups_t;

void em_groups_free(em_groups_t *gr);

/* The elements of one GenerateGroupsForLevel call (Alg. 2). */
typedef struct em_level {
	const tm_map_ctx_t *c;   /* the deadline */
	tm_pool_t *pool;         /* Alg. 8 when it has several threads, or NULL */
	const tm_wgraph_t *g;    /* communication between the elements */
	const int32_t *etype;    /* element types (NULL: all 0) */
	int32_t ntypes;          /* types are 0 .. ntypes-1 */
	const double *load;      /* element loads (Alg. 6-7), or NULL */
} em_level_t;

/* What each group takes: ncnt[i] elements of type ntype[i] for i in
 * nptr[k] .. nptr[k+1]-1.  The counts add up to the number of elements. */
typedef struct em_need {
	int64_t ng;
	const int64_t *nptr;
	const int32_t *ntype;
	const int64_t *ncnt;
	const int32_t *gtype; /* type of each group, copied to the output */
} em_need_t;

/* GenerateGroupsForLevel (Alg. 2) with GenerateGroup (Alg. 3, Alg. 8 on
 * the pool) taking typed elements. */
int em_generate(const em_level_t *lv, const em_need_t *need, em_groups_t *out, char *err);

/*
 * LbGenerateGroupsForLevel / LbGenerateGroup (Alg. 6-7): ng groups, group
 * k standing for npu[k] PUs that take 1 to f tasks each; every group
 * takes elements (of one type) while its load is under its share of the
 * load left (totalLoad / avlGroups, weighted by PUs), as far as the PUs
 * left can still hold the elements left.  Groups get type 0.
 */
int em_generate_load(const em_level_t *lv, int64_t ng, const int64_t *npu, int f,
		     em_groups_t *out, char *err);

/* RecreateMatrix (Alg. 4), sparse: the communication between the groups
 * (O(nnz + n)). */
int em_recreate(const tm_wgraph_t *g, const em_groups_t *gr, em_graph_t *out, char *err);

/*
 * EagerMap on a tree (Alg. 1-5): map the g->n elements of g onto the m
 * PUs pus[] (sorted, distinct) of a balanced tree whose objects at depth
 * k are the PUs sharing p / below[k] (k = 0 .. nlevels, below[nlevels] =
 * 1), at most f per PU.  loads (NULL: none) switch on Alg. 6-7 when the
 * elements outnumber the PUs.  pu_out[e] = the PU of element e.
 */
int em_tree(const tm_map_ctx_t *c, tm_pool_t *pool, const tm_wgraph_t *g, const double *loads,
	    const int64_t *pus, int64_t m, int nlevels, const int64_t *below, int f,
	    int64_t *pu_out, char *err);

/* EagerMap on a torus, mesh, hypercube or graph (§3.6, eagermap_cluster.c). */
int em_cluster(const tm_map_ctx_t *c, tm_pool_t *pool, int64_t *pu, char *err);

/* How many tasks each of the first U PUs takes when n tasks spread over
 * U = min(n, m) of m PUs: q, and q + 1 for the first r of them. */
static inline void em_spread(int64_t n, int64_t m, int64_t *u, int64_t *q, int64_t *r)
{
	*u = n < m ? n : m;
	*q = *u > 0 ? n / *u : 0;
	*r = *u > 0 ? n % *u : 0;
}

/* Whether Alg. 6-7 apply: loads given, not all zero, and PUs shared. */
bool em_load_mode(const double *loads, int64_t n, int64_t m);

#endif /* TM_EAGERMAP_INTERNAL_H */

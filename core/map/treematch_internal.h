/*
 * treematch_internal.h - TreeMatch (Jeannot & Mercier, Euro-Par 2010) with
 * the adaptive grouping of TopoMatch (JPDC 2022, §4.2.2, Alg. 1): what
 * treematch.c (levels, ExtendComMatrix, AggregateComMatrix, top-down
 * mapping, oversubscription) and treematch_group.c (the grouping
 * strategies) share, and what the unit tests reach.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_TREEMATCH_INTERNAL_H
#define TM_TREEMATCH_INTERNAL_H

#include "mapper_internal.h"

/* The grouping strategies of TopoMatch Alg. 1 (line numbers of Alg. 1). */
enum tm_group_strategy {
	TM_GROUP_TRIVIAL = 0, /* a == 1 or a == n: there is one grouping only */
	TM_GROUP_EXHAUSTIVE,  /* lines 11-18: round robin, then 3 greedy orders */
	TM_GROUP_BUCKET,      /* line 4: a == 2 */
	TM_GROUP_FAST,        /* line 7: a <= 5 */
	TM_GROUP_KPART        /* line 9: a > 5 */
};

/*
 * The exhaustive strategy builds every candidate group and a dense copy of
 * the matrix; these bounds keep it feasible whatever tau says (tau = 1e30
 * asks for it everywhere).  Past them the fast strategy of the arity runs.
 */
#define TM_EXHAUSTIVE_MAX_N 4096
#define TM_EXHAUSTIVE_MAX_GROUPS (INT64_C(1) << 20)

/* Steps between two looks at the deadline. */
#define TM_BUDGET_STEPS 4096

/* C(n, k) in double arithmetic (+inf past the range of doubles). */
double tm_binomial(int64_t n, int64_t k);

/* The strategy TopoMatch Alg. 1 uses to group n processes by a. */
int tm_group_choose(int64_t n, int a, double tau);

/*
 * Group the g->n virtual processes of g (g->n a multiple of a, a >= 1) into
 * m = g->n / a groups of exactly a members: memb[h * a .. h * a + a - 1]
 * lists the members of group h in increasing order, and groups come in the
 * order of their smallest member.  Strategy chosen by tm_group_choose() with
 * c->tau (stored in *strategy when non-NULL).  Uses c->deadline only.
 */
int tm_group(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, uint64_t seed,
	     int64_t *memb, int *strategy, char *err);

/* The strategies themselves, same contract as tm_group(). */
int tm_group_exhaustive(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, int64_t *memb,
			char *err);
int tm_group_bucket(const tm_map_ctx_t *c, const tm_wgraph_t *g, uint64_t seed,
		    int64_t *memb, char *err);
int tm_group_fast(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, int64_t *memb,
		  char *err);
int tm_group_kpart(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, uint64_t seed,
		   int64_t *memb, char *err);

/* A matrix between the (virtual) processes of one level of TreeMatch. */
typedef struct tm_tmmat {
	tm_wgraph_t g;   /* the view; g.n counts the artificial processes too */
	int64_t *rowptr; /* owned arrays; col and w are NULL when borrowed */
	int64_t *col;
	double *w;
} tm_tmmat_t;

void tm_tmmat_free(tm_tmmat_t *m);

/*
 * AggregateComMatrix (TreeMatch §3): out->g gets g->n / a rows, r[h, h'] =
 * the sum of g's weights between the members of groups h and h' (memb in
 * tm_group()'s layout), no diagonal, exactly symmetric, rows sorted by
 * column.  O(nnz + n).  Free out with tm_tmmat_free().
 */
int tm_treematch_aggregate(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a,
			   const int64_t *memb, tm_tmmat_t *out, char *err);

/*
 * Communication a grouping leaves between groups, TreeMatch's valuation
 * summed over the groups: sum of (weighted degrees - 2 x internal weight),
 * i.e. twice the weight of the edges cut.  Smaller is better.
 */
double tm_group_outside(const tm_wgraph_t *g, int a, const int64_t *memb);

#endif /* TM_TREEMATCH_INTERNAL_H */

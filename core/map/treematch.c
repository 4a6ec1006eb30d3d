/*
 * treematch.c - TreeMatch on tree topologies (Jeannot & Mercier, Euro-Par
 * 2010, Alg. 1) as TopoMatch runs it (JPDC 2022, §4.2.2 and §4.5):
 *
 *   bottom-up, from the deepest level to the root: ExtendComMatrix when the
 *   arity a does not divide the number of (virtual) processes, group them by
 *   a (TopoMatch Alg. 1, treematch_group.c), AggregateComMatrix;
 *   top-down: the c-th member of a group mapped on a node goes to the node's
 *   c-th child; artificial processes get nothing (MapGroups).
 *
 * Oversubscription by f (§4.5) adds a level of f leaves under every PU and
 * collapses the result; undersubscription needs nothing more than the
 * artificial processes of ExtendComMatrix, which leave PUs empty while the
 * real tasks fill as few subtrees as possible.
 *
 * Everything is sparse: AggregateComMatrix costs O(nnz + n) per level and
 * keeps the aggregated matrix exactly symmetric (each r[g, h] is summed
 * once and mirrored), with rows sorted by column.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "treematch_internal.h"
#include "topology/topology_internal.h"

#include <stdlib.h>
#include <string.h>

/* One level of the hierarchy of groups: the groups of a processes at
 * depth k + 1 become the nodes at depth k. */
struct level {
	int a;
	int64_t nreal; /* processes at depth k + 1, before ExtendComMatrix */
	int64_t n;     /* after: a multiple of a */
	int64_t *memb; /* tm_group() layout; NULL when a == 1 */
};

struct hier {
	int depth; /* tree levels, plus the oversubscription leaves */
	struct level lv[TOPOMATCH_MAX_LEVELS + 1];
};

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "treematch: out of memory");
}

void tm_tmmat_free(tm_tmmat_t *s)
{
	free(s->rowptr);
	free(s->col);
	free(s->w);
	memset(s, 0, sizeof(*s));
}

/*
 * ExtendComMatrix (TreeMatch §3): "we add two artificial groups that do not
 * communicate to any other groups", i.e. empty rows up to npad.
 */
static int extend(tm_tmmat_t *s, int64_t npad)
{
	int64_t n = s->g.n;

	if (npad == n)
		return TOPOMATCH_OK;
	int64_t *rp = tm_alloc(npad + 1, sizeof(*rp));
	if (!rp)
		return TOPOMATCH_ENOMEM;
	memcpy(rp, s->g.rowptr, (size_t)(n + 1) * sizeof(*rp));
	for (int64_t v = n + 1; v <= npad; v++)
		rp[v] = rp[n];
	free(s->rowptr);
	s->rowptr = rp;
	s->g.rowptr = rp;
	s->g.n = npad;
	return TOPOMATCH_OK;
}

/* One group of AggregateComMatrix: the r[gi, h], h > gi, into u (the upper
 * triangle of the aggregated matrix). */
static int aggregate_row(const tm_wgraph_t *g, int a, const int64_t *memb, const int64_t *grp,
			 int64_t gi, int64_t *mark, int64_t *touched, double *acc,
			 tm_coo_t *u)
{
	int64_t nt = 0;

	for (int k = 0; k < a; k++) {
		int64_t v = memb[gi * a + k];
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
			int64_t h = grp[g->col[e]];
			if (h <= gi)
				continue;
			if (mark[h] != gi) {
				mark[h] = gi;
				acc[h] = 0.0;
				touched[nt++] = h;
			}
			acc[h] += g->w[e];
		}
	}
	for (int64_t t = 0; t < nt; t++)
		if (tm_coo_push(u, gi, touched[t], acc[touched[t]], INT64_MAX) != TOPOMATCH_OK)
			return TOPOMATCH_ENOMEM;
	return TOPOMATCH_OK;
}

/*
 * AggregateComMatrix: r[g, h] = sum over i in g, j in h of m[i, j], for
 * h > g only (each sum is done once, so the mirror is exact), in O(nnz)
 * with a scatter array over the groups.
 */
static int aggregate_upper(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a,
			   const int64_t *memb, const int64_t *grp, tm_coo_t *u, char *err)
{
	int64_t m = g->n / a;
	int64_t *mark = tm_alloc(m, sizeof(*mark));
	int64_t *touched = tm_alloc(m, sizeof(*touched));
	double *acc = tm_alloc(m, sizeof(*acc));
	int rc = TOPOMATCH_OK;

	if (!mark || !touched || !acc) {
		rc = oom(err);
		goto out;
	}
	for (int64_t h = 0; h < m; h++)
		mark[h] = -1;
	for (int64_t gi = 0; gi < m && rc == TOPOMATCH_OK; gi++) {
		if (gi % TM_BUDGET_STEPS == 0 && tm_ctx_expired(c))
			rc = tm_err(err, TOPOMATCH_EBUDGET, "treematch: time budget exceeded");
		else if (aggregate_row(g, a, memb, grp, gi, mark, touched, acc, u) != 0)
			rc = oom(err);
	}
out:
	free(mark);
	free(touched);
	free(acc);
	return rc;
}

/*
 * Mirror the upper triangle into full rows sorted by column: the entries
 * below the diagonal of row h are the r[g, h], g < h, written in increasing
 * g; those above are then read back from them in increasing h.
 */
static int mirror(const tm_coo_t *u, int64_t m, tm_tmmat_t *out)
{
	int64_t *rp = tm_zalloc(m + 1, sizeof(*rp));
	int64_t *low = tm_zalloc(m, sizeof(*low));
	int64_t *up = tm_alloc(m, sizeof(*up));
	int64_t *col = tm_alloc(2 * u->n, sizeof(*col));
	double *w = tm_alloc(2 * u->n, sizeof(*w));

	if (!rp || !low || !up || !col || !w) {
		free(rp);
		free(low);
		free(up);
		free(col);
		free(w);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t k = 0; k < u->n; k++) {
		rp[u->src[k] + 1]++;
		rp[u->dst[k] + 1]++;
		low[u->dst[k]]++;
	}
	for (int64_t h = 0; h < m; h++) {
		rp[h + 1] += rp[h];
		up[h] = rp[h] + low[h];
		low[h] = rp[h];
	}
	/* the upper triangle was produced row by row: increasing g */
	for (int64_t k = 0; k < u->n; k++) {
		int64_t p = low[u->dst[k]]++;
		col[p] = u->src[k];
		w[p] = u->w[k];
	}
	for (int64_t h = 0; h < m; h++) {
		for (int64_t p = rp[h]; p < up[h]; p++) {
			int64_t q = up[col[p]]++;
			col[q] = h;
			w[q] = w[p];
		}
	}
	free(low);
	free(up);
	out->rowptr = rp;
	out->col = col;
	out->w = w;
	out->g = (tm_wgraph_t){ m, rp, col, w, NULL };
	return TOPOMATCH_OK;
}

int tm_treematch_aggregate(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a,
			   const int64_t *memb, tm_tmmat_t *out, char *err)
{
	tm_coo_t u;
	tm_coo_init(&u);
	int64_t *grp = NULL;
	int rc = TOPOMATCH_OK;

	memset(out, 0, sizeof(*out));
	if (a < 1 || g->n % a != 0)
		return tm_err(err, TOPOMATCH_EINVAL, "treematch: cannot aggregate %lld by %d",
			      (long long)g->n, a);
	grp = tm_alloc(g->n, sizeof(*grp));
	if (!grp)
		return oom(err);
	for (int64_t k = 0; k < g->n; k++)
		grp[memb[k]] = k / a;
	rc = aggregate_upper(c, g, a, memb, grp, &u, err);
	if (rc == TOPOMATCH_OK && mirror(&u, g->n / a, out) != TOPOMATCH_OK)
		rc = oom(err);
	tm_coo_free(&u);
	free(grp);
	return rc;
}

/* Each level grouping draws from its own stream of the seed. */
static uint64_t level_seed(uint64_t seed, int k)
{
	return seed ^ (UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(k + 1));
}

/* One step of TreeMatch Alg. 1 (lines 3-7) at depth k. */
static int build_level(const tm_map_ctx_t *c, tm_tmmat_t *cur, struct level *l, int k,
		       char *err)
{
	l->nreal = cur->g.n;
	if (l->a == 1) {
		l->n = l->nreal; /* nothing to group: a unary node changes no distance */
		return TOPOMATCH_OK;
	}
	l->n = (l->nreal + l->a - 1) / l->a * l->a;
	l->memb = tm_alloc(l->n, sizeof(*l->memb));
	if (!l->memb || extend(cur, l->n) != TOPOMATCH_OK)
		return oom(err);
	int rc = tm_group(c, &cur->g, l->a, level_seed(c->seed, k), l->memb, NULL, err);
	if (rc != TOPOMATCH_OK || k == 0)
		return rc;
	tm_tmmat_t next;
	rc = tm_treematch_aggregate(c, &cur->g, l->a, l->memb, &next, err);
	tm_tmmat_free(cur);
	*cur = next;
	return rc;
}

static int bottom_up(const tm_map_ctx_t *c, struct hier *h, char *err)
{
	topomatch_csr_t a = topomatch_affinity_symmetric(c->a);
	tm_tmmat_t cur = { .g = { a.n, a.rowptr, a.col, a.w, NULL } };
	int rc = TOPOMATCH_OK;

	for (int k = h->depth - 1; k >= 0 && rc == TOPOMATCH_OK; k--) {
		rc = build_level(c, &cur, &h->lv[k], k, err);
		if (rc == TOPOMATCH_OK && tm_ctx_expired(c))
			rc = tm_err(err, TOPOMATCH_EBUDGET, "treematch: time budget exceeded");
	}
	tm_tmmat_free(&cur);
	return rc;
}

/*
 * MapGroups: "virtual process 0 (resp. 1) of group[1] is mapped on the left
 * (resp. right) part of the tree.  When a group corresponds to an artificial
 * group, no processes will be mapped to the corresponding subtree."  The
 * c-th member of a group on node x at depth k goes to node x * a + c at
 * depth k + 1 (nodes numbered lexicographically, as PUs are).
 */
static void top_down(const struct hier *h, int64_t ntasks, int f, int64_t *pos,
		     int64_t *next, int64_t *pu)
{
	pos[0] = 0; /* the single depth-0 group is on the root */
	for (int k = 0; k < h->depth; k++) {
		const struct level *l = &h->lv[k];
		for (int64_t i = 0; i < l->n; i++) {
			int64_t v = l->memb ? l->memb[i] : i;
			if (v < l->nreal)
				next[v] = pos[i / l->a] * l->a + i % l->a;
		}
		int64_t *t = pos;
		pos = next;
		next = t;
	}
	/* §4.5: collapse the f leaves of every PU back onto it */
	for (int64_t i = 0; i < ntasks; i++)
		pu[i] = pos[i] / f;
}

static int check_ctx(const tm_map_ctx_t *c, char *err)
{
	if (!c || !c->a || !c->t || c->t->kind != TOPOMATCH_TOPO_TREE)
		return tm_err(err, TOPOMATCH_EINVAL, "treematch: needs a tree topology");
	if (c->constrained)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "treematch: constraints are handled by topomatch-const");
	if (!(c->tau > 0))
		return tm_err(err, TOPOMATCH_EINVAL, "treematch: tau must be > 0 (got %g)", c->tau);
	int64_t cap;
	if (c->f < 1 || c->ntasks != topomatch_affinity_ntasks(c->a) ||
	    !tm_mul_ok(c->t->npu, c->f, &cap) || c->ntasks > cap)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "treematch: %lld tasks do not fit %lld PUs x %d",
			      (long long)c->ntasks, (long long)c->t->npu, c->f);
	return TOPOMATCH_OK;
}

int tm_map_treematch(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	struct hier h = { 0 };
	int rc = check_ctx(c, err);

	if (rc != TOPOMATCH_OK)
		return rc;
	h.depth = c->t->nlevels;
	for (int k = 0; k < h.depth; k++)
		h.lv[k].a = c->t->arity[k];
	if (c->f > 1)
		h.lv[h.depth++].a = c->f; /* §4.5: f new leaves per leaf */
	rc = bottom_up(c, &h, err);
	if (rc == TOPOMATCH_OK) {
		int64_t *pos = tm_alloc(c->ntasks, sizeof(*pos));
		int64_t *next = tm_alloc(c->ntasks, sizeof(*next));
		if (pos && next)
			top_down(&h, c->ntasks, c->f, pos, next, pu);
		else
			rc = oom(err);
		free(pos);
		free(next);
	}
	for (int k = 0; k < h.depth; k++)
		free(h.lv[k].memb);
	return rc;
}

/*
 * eagermap.c - EagerMap (Cruz, Diener, Pilla, Navaux: "EagerMap: A Task
 * Mapping Algorithm to Improve Communication and Load Balancing in
 * Clusters of Multicore Systems", ACM TOPC 5(4), 2019) on trees:
 * MapAlgorithm (Alg. 1) and MapGroupsToTopology (Alg. 5); the grouping
 * itself is in eagermap_group.c, non-tree topologies (§3.6) in
 * eagermap_cluster.c, the mapper's entry point in eagermap_entry.c.
 *
 * Alg. 1 walks the levels of the hierarchy bottom-up: the tasks are
 * grouped per PU, the PU groups per object of the next shared level, and
 * so on, the matrix being recomputed between levels (Alg. 4).  Alg. 5
 * then hands the group tree down the hardware tree.
 *
 * Extensions to the symmetric trees of the paper (eagermap_internal.h):
 *  - only the allowed PUs exist; objects are the distinct ancestors of
 *    allowed PUs at each depth (`hier_t`);
 *  - n tasks take U = min(n, m) PUs, q = n / U each and one more on the
 *    first n % U (the paper's elPerGroup and leftover at the PU level);
 *    when U < m, the used PUs are packed under as few subtrees as
 *    possible, the subtrees with the most allowed PUs first (as
 *    TreeMatch's artificial groups and TOPOMATCHCONST do), so that
 *    undersubscribed jobs are not spread over the whole machine;
 *  - every used object has a type (its used subtree, canonically), each
 *    group takes the element types of its object's children, and Alg. 5
 *    gives each element to a child of its type;
 *  - with task loads and more tasks than PUs, the PU level is built by
 *    Alg. 6-7 (tasks per PU by load, 1 to f of them); upper levels count
 *    PUs, which loads cannot change.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "eagermap_internal.h"
#include "topology/topology_internal.h"

#include <stdlib.h>
#include <string.h>

#define ML (TOPOMATCH_MAX_LEVELS + 1)

/* The allowed PUs as a tree of objects, and the plan of Alg. 1. */
typedef struct hier {
	int d;               /* depth of the PUs */
	int64_t nobj[ML];
	int64_t *cptr[ML];   /* k < d: children of object o: cptr[k][o] .. cptr[k][o+1]-1 */
	int64_t *cap[ML];    /* allowed PUs under each object */
	int64_t *used[ML];   /* PUs used under each object */
	int32_t *type[ML];   /* type of each used object (-1: unused) */
	int32_t ntypes[ML];
	/* per depth, the used objects in order and what their groups take */
	int64_t nused[ML];
	int64_t *uobj[ML];
	int64_t *nptr[ML];
	int32_t *ntype[ML];
	int64_t *ncnt[ML];
	int32_t *gtype[ML];
} hier_t;

typedef struct pair {
	int64_t a; /* sort key */
	int64_t i;
} pair_t;

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "eagermap: out of memory");
}

static void hier_free(hier_t *h)
{
	for (int k = 0; k < ML; k++) {
		free(h->cptr[k]);
		free(h->cap[k]);
		free(h->used[k]);
		free(h->type[k]);
		free(h->uobj[k]);
		free(h->nptr[k]);
		free(h->ntype[k]);
		free(h->ncnt[k]);
		free(h->gtype[k]);
	}
	memset(h, 0, sizeof(*h));
}

bool em_load_mode(const double *loads, int64_t n, int64_t m)
{
	double sum = 0.0;
	if (!loads || n <= m)
		return false;
	for (int64_t i = 0; i < n; i++)
		sum += loads[i];
	return sum > 0.0;
}

/* ---------------------------------------------------------------- objects */

/* Shallowest depth at which PU pus[j] starts a new object. */
static int first_new(const int64_t *pus, int64_t j, int d, const int64_t *below)
{
	if (j == 0)
		return 0;
	int k = 0;
	while (k < d && pus[j] / below[k] == pus[j - 1] / below[k])
		k++;
	return k;
}

static int hier_alloc(hier_t *h)
{
	for (int k = 0; k <= h->d; k++) {
		int64_t n = h->nobj[k];
		if (k < h->d && !(h->cptr[k] = tm_alloc(n + 1, sizeof(int64_t))))
			return TOPOMATCH_ENOMEM;
		h->cap[k] = tm_zalloc(n, sizeof(int64_t));
		h->used[k] = tm_zalloc(n, sizeof(int64_t));
		h->type[k] = tm_alloc(n, sizeof(int32_t));
		if (!h->cap[k] || !h->used[k] || !h->type[k])
			return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

/* Objects at every depth (runs of equal p / below[k] in the sorted PUs),
 * their children ranges and capacities. */
static int hier_build(hier_t *h, const int64_t *pus, int64_t m, int d, const int64_t *below)
{
	int64_t cnt[ML] = { 0 };
	memset(h, 0, sizeof(*h));
	h->d = d;
	for (int64_t j = 0; j < m; j++)
		for (int k = first_new(pus, j, d, below); k <= d; k++)
			h->nobj[k]++;
	if (hier_alloc(h) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	for (int64_t j = 0; j < m; j++) {
		for (int k = first_new(pus, j, d, below); k <= d; k++) {
			if (k < d)
				h->cptr[k][cnt[k]] = cnt[k + 1];
			cnt[k]++;
		}
	}
	for (int k = 0; k < d; k++)
		h->cptr[k][h->nobj[k]] = h->nobj[k + 1];
	for (int64_t o = 0; o < h->nobj[d]; o++)
		h->cap[d][o] = 1;
	for (int k = d - 1; k >= 0; k--)
		for (int64_t o = 0; o < h->nobj[k]; o++)
			for (int64_t c = h->cptr[k][o]; c < h->cptr[k][o + 1]; c++)
				h->cap[k][o] += h->cap[k + 1][c];
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- plan */

static int cmp_pair_desc(const void *x, const void *y)
{
	const pair_t *a = x, *b = y;
	if (a->a != b->a)
		return a->a > b->a ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_pair_asc(const void *x, const void *y)
{
	const pair_t *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The used PUs of object o go to its children, largest first. */
static void pack_children(hier_t *h, int k, int64_t o, pair_t *tmp)
{
	int64_t c0 = h->cptr[k][o], nc = h->cptr[k][o + 1] - c0, left = h->used[k][o];
	for (int64_t i = 0; i < nc; i++)
		tmp[i] = (pair_t){ h->cap[k + 1][c0 + i], c0 + i };
	qsort(tmp, (size_t)nc, sizeof(*tmp), cmp_pair_desc);
	for (int64_t i = 0; i < nc && left > 0; i++) {
		int64_t take = tmp[i].a < left ? tmp[i].a : left;
		h->used[k + 1][tmp[i].i] = take;
		left -= take;
	}
}

/* Top-down: U used PUs, packed. */
static int plan_used(hier_t *h, int64_t u)
{
	int64_t most = 1;
	for (int k = 0; k < h->d; k++)
		for (int64_t o = 0; o < h->nobj[k]; o++)
			if (h->cptr[k][o + 1] - h->cptr[k][o] > most)
				most = h->cptr[k][o + 1] - h->cptr[k][o];
	pair_t *tmp = tm_alloc(most, sizeof(*tmp));
	if (!tmp)
		return TOPOMATCH_ENOMEM;
	h->used[0][0] = u;
	for (int k = 0; k < h->d; k++)
		for (int64_t o = 0; o < h->nobj[k]; o++)
			if (h->used[k][o] > 0)
				pack_children(h, k, o, tmp);
	free(tmp);
	return TOPOMATCH_OK;
}

static int list_used(hier_t *h, int k)
{
	h->nused[k] = 0;
	for (int64_t o = 0; o < h->nobj[k]; o++)
		h->nused[k] += h->used[k][o] > 0;
	h->uobj[k] = tm_alloc(h->nused[k], sizeof(int64_t));
	h->gtype[k] = tm_alloc(h->nused[k], sizeof(int32_t));
	h->nptr[k] = tm_alloc(h->nused[k] + 1, sizeof(int64_t));
	if (!h->uobj[k] || !h->gtype[k] || !h->nptr[k])
		return TOPOMATCH_ENOMEM;
	for (int64_t o = 0, i = 0; o < h->nobj[k]; o++) {
		h->type[k][o] = -1;
		if (h->used[k][o] > 0)
			h->uobj[k][i++] = o;
	}
	return TOPOMATCH_OK;
}

/* The PU level: a used PU of type 0 or 1 (q or q + 1 tasks) takes that
 * many tasks (type 0); in load mode all PUs have type 0 and Alg. 6-7
 * decide the counts. */
static int plan_pus(hier_t *h, int64_t q, int64_t r, bool load)
{
	int d = h->d;
	if (list_used(h, d) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	int64_t nu = h->nused[d];
	h->ntype[d] = tm_zalloc(nu, sizeof(int32_t));
	h->ncnt[d] = tm_alloc(nu, sizeof(int64_t));
	if (!h->ntype[d] || !h->ncnt[d])
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < nu; i++) {
		int32_t ty = !load && i < r ? 1 : 0;
		h->type[d][h->uobj[d][i]] = ty;
		h->gtype[d][i] = ty;
		h->ncnt[d][i] = q + ty;
		h->nptr[d][i] = i;
	}
	h->nptr[d][nu] = nu;
	h->ntypes[d] = !load && r > 0 ? 2 : 1;
	return TOPOMATCH_OK;
}

/* The sorted child types of a used object, as a key for canonical ids. */
typedef struct sig {
	const int32_t *s;
	int64_t len;
	int64_t i; /* rank among the used objects */
} sig_t;

static int cmp_sig(const void *x, const void *y)
{
	const sig_t *a = x, *b = y;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (int64_t k = 0; k < a->len; k++)
		if (a->s[k] != b->s[k])
			return a->s[k] < b->s[k] ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	return (a > b) - (a < b);
}

/* Sorted child types of every used object of depth k, flat. */
static int32_t *child_types(const hier_t *h, int k, int64_t *sptr)
{
	int64_t total = 0;
	for (int64_t i = 0; i < h->nused[k]; i++) {
		int64_t o = h->uobj[k][i];
		sptr[i] = total;
		for (int64_t c = h->cptr[k][o]; c < h->cptr[k][o + 1]; c++)
			total += h->used[k + 1][c] > 0;
	}
	sptr[h->nused[k]] = total;
	int32_t *s = tm_alloc(total, sizeof(*s));
	for (int64_t i = 0; s && i < h->nused[k]; i++) {
		int64_t o = h->uobj[k][i], p = sptr[i];
		for (int64_t c = h->cptr[k][o]; c < h->cptr[k][o + 1]; c++)
			if (h->used[k + 1][c] > 0)
				s[p++] = h->type[k + 1][c];
		qsort(s + sptr[i], (size_t)(p - sptr[i]), sizeof(*s), cmp_i32);
	}
	return s;
}

/* Canonical ids: equal sorted child types, equal type. */
static int assign_types(hier_t *h, int k, const int32_t *s, const int64_t *sptr)
{
	int64_t nu = h->nused[k];
	sig_t *sg = tm_alloc(nu, sizeof(*sg));
	if (!sg)
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < nu; i++)
		sg[i] = (sig_t){ s + sptr[i], sptr[i + 1] - sptr[i], i };
	qsort(sg, (size_t)nu, sizeof(*sg), cmp_sig);
	int32_t id = -1;
	for (int64_t i = 0; i < nu; i++) {
		sig_t cur = sg[i], prev = i > 0 ? sg[i - 1] : cur;
		prev.i = cur.i = 0;
		if (i == 0 || cmp_sig(&prev, &cur) != 0)
			id++;
		h->gtype[k][sg[i].i] = id;
		h->type[k][h->uobj[k][sg[i].i]] = id;
	}
	h->ntypes[k] = id + 1;
	free(sg);
	return TOPOMATCH_OK;
}

/* What the group of each used object takes: its child types, counted. */
static int need_lists(hier_t *h, int k, const int32_t *s, const int64_t *sptr)
{
	int64_t nu = h->nused[k], total = sptr[nu], nn = 0;
	h->ntype[k] = tm_alloc(total, sizeof(int32_t));
	h->ncnt[k] = tm_alloc(total, sizeof(int64_t));
	if (!h->ntype[k] || !h->ncnt[k])
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < nu; i++) {
		h->nptr[k][i] = nn;
		for (int64_t p = sptr[i]; p < sptr[i + 1]; p++) {
			if (p > sptr[i] && s[p] == s[p - 1]) {
				h->ncnt[k][nn - 1]++;
				continue;
			}
			h->ntype[k][nn] = s[p];
			h->ncnt[k][nn++] = 1;
		}
	}
	h->nptr[k][nu] = nn;
	return TOPOMATCH_OK;
}

/* Types and needs of depth k < d from those of depth k + 1. */
static int plan_level(hier_t *h, int k)
{
	if (list_used(h, k) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	int64_t *sptr = tm_alloc(h->nused[k] + 1, sizeof(*sptr));
	int32_t *s = sptr ? child_types(h, k, sptr) : NULL;
	int rc = s ? assign_types(h, k, s, sptr) : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK)
		rc = need_lists(h, k, s, sptr);
	free(s);
	free(sptr);
	return rc;
}

/* What Alg. 1 takes as execElInLevel, per object: used PUs, task counts
 * (Alg. 2's elPerGroup and leftover at the PU level), types and needs. */
static int plan(hier_t *h, int64_t n, int64_t m, bool load)
{
	int64_t u, q, r;
	em_spread(n, m, &u, &q, &r);
	if (plan_used(h, u) != TOPOMATCH_OK || plan_pus(h, q, r, load) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	for (int k = h->d - 1; k >= 0; k--)
		if (plan_level(h, k) != TOPOMATCH_OK)
			return TOPOMATCH_ENOMEM;
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- Alg. 1 */

/* The PU level (Alg. 1, i = 1): tasks into PU groups. */
static int group_pus(const hier_t *h, em_level_t *lv, int f, bool load, em_groups_t *out,
		     char *err)
{
	int d = h->d;
	if (!load) {
		em_need_t nd = { h->nused[d], h->nptr[d], h->ntype[d], h->ncnt[d], h->gtype[d] };
		return em_generate(lv, &nd, out, err);
	}
	int64_t *one = tm_alloc(h->nused[d], sizeof(*one));
	if (!one)
		return oom(err);
	for (int64_t i = 0; i < h->nused[d]; i++)
		one[i] = 1;
	int rc = em_generate_load(lv, h->nused[d], one, f, out, err);
	free(one);
	return rc;
}

/* Alg. 1 lines 8-15: the groups of every depth from d down to 1,
 * RecreateMatrix (Alg. 4) between them. */
static int bottom_up(const tm_map_ctx_t *c, tm_pool_t *pool, const tm_wgraph_t *g,
		     const double *loads, const hier_t *h, int f, bool load, em_groups_t *gr,
		     char *err)
{
	em_level_t lv = { c, pool, g, NULL, 1, load ? loads : NULL };
	em_graph_t cur = { 0 };
	int rc = group_pus(h, &lv, f, load, &gr[h->d], err);
	for (int k = h->d - 1; k >= 1 && rc == TOPOMATCH_OK; k--) {
		em_graph_t next;
		rc = em_recreate(&lv.g[0], &gr[k + 1], &next, err);
		em_graph_free(&cur);
		cur = next;
		if (rc != TOPOMATCH_OK)
			break;
		lv = (em_level_t){ c, pool, &cur.g, gr[k + 1].type, h->ntypes[k + 1], NULL };
		em_need_t nd = { h->nused[k], h->nptr[k], h->ntype[k], h->ncnt[k], h->gtype[k] };
		rc = em_generate(&lv, &nd, &gr[k], err);
	}
	em_graph_free(&cur);
	return rc;
}

/* ---------------------------------------------------------------- Alg. 5 */

/* Alg. 5 lines 6-9 for object o: the members of its group (groups of
 * depth k + 1) go to its used children, type by type, both sides in
 * increasing order (line 8's linked[i] <- elements[i]). */
static void hand_down(const hier_t *h, const em_groups_t *gr, int k, int64_t o,
		      int64_t *const *asg, pair_t *mem, pair_t *ch)
{
	int64_t nm = 0, nc = 0;
	if (k == 0) {
		for (int64_t e = 0; e < gr[1].ng; e++)
			mem[nm++] = (pair_t){ gr[1].type[e], e };
	} else {
		int64_t g = asg[k][o];
		for (int64_t i = gr[k].gptr[g]; i < gr[k].gptr[g + 1]; i++)
			mem[nm++] = (pair_t){ gr[k + 1].type[gr[k].memb[i]], gr[k].memb[i] };
	}
	for (int64_t c = h->cptr[k][o]; c < h->cptr[k][o + 1]; c++)
		if (h->used[k + 1][c] > 0)
			ch[nc++] = (pair_t){ h->type[k + 1][c], c };
	qsort(mem, (size_t)nm, sizeof(*mem), cmp_pair_asc);
	qsort(ch, (size_t)nc, sizeof(*ch), cmp_pair_asc);
	for (int64_t i = 0; i < nc && i < nm; i++)
		asg[k + 1][ch[i].i] = mem[i].i;
}

/* MapGroupsToTopology (Alg. 5), level by level from the root. */
static int top_down(const hier_t *h, const em_groups_t *gr, const int64_t *pus,
		    int64_t *pu_out)
{
	int64_t *asg[ML] = { 0 }, most = gr[1].ng;
	int rc = TOPOMATCH_OK;
	for (int k = 1; k <= h->d; k++) {
		asg[k] = tm_alloc(h->nobj[k], sizeof(int64_t));
		if (gr[k].ng > most)
			most = gr[k].ng;
		if (!asg[k])
			rc = TOPOMATCH_ENOMEM;
	}
	pair_t *mem = tm_alloc(most, sizeof(*mem)), *ch = tm_alloc(most, sizeof(*ch));
	if (rc == TOPOMATCH_OK && mem && ch) {
		for (int k = 0; k < h->d; k++)
			for (int64_t i = 0; i < h->nused[k]; i++)
				hand_down(h, gr, k, h->uobj[k][i], asg, mem, ch);
		for (int64_t i = 0; i < h->nused[h->d]; i++) {
			int64_t o = h->uobj[h->d][i], g = asg[h->d][o];
			for (int64_t t = gr[h->d].gptr[g]; t < gr[h->d].gptr[g + 1]; t++)
				pu_out[gr[h->d].memb[t]] = pus[o];
		}
	} else {
		rc = TOPOMATCH_ENOMEM;
	}
	free(mem);
	free(ch);
	for (int k = 1; k <= h->d; k++)
		free(asg[k]);
	return rc;
}

/* MapAlgorithm (Alg. 1): the plan (execElInLevel, here per object), the
 * groups bottom-up, MapGroupsToTopology (Alg. 5). */
int em_tree(const tm_map_ctx_t *c, tm_pool_t *pool, const tm_wgraph_t *g, const double *loads,
	    const int64_t *pus, int64_t m, int nlevels, const int64_t *below, int f,
	    int64_t *pu_out, char *err)
{
	hier_t h;
	em_groups_t gr[ML];
	bool load = em_load_mode(loads, g->n, m);
	int rc;

	if (m == 1 || nlevels == 0) { /* one PU: nothing to choose */
		for (int64_t e = 0; e < g->n; e++)
			pu_out[e] = pus[0];
		return TOPOMATCH_OK;
	}
	memset(gr, 0, sizeof(gr));
	if (hier_build(&h, pus, m, nlevels, below) != TOPOMATCH_OK ||
	    plan(&h, g->n, m, load) != TOPOMATCH_OK) {
		hier_free(&h);
		return oom(err);
	}
	rc = bottom_up(c, pool, g, loads, &h, f, load, gr, err);
	if (rc == TOPOMATCH_OK && top_down(&h, gr, pus, pu_out) != TOPOMATCH_OK)
		rc = oom(err);
	for (int k = 0; k < ML; k++)
		em_groups_free(&gr[k]);
	hier_free(&h);
	return rc;
}

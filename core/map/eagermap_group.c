/*
 * eagermap_group.c - EagerMap's group generation (Cruz et al., TOPC 2019):
 * GenerateGroupsForLevel and GenerateGroup (Alg. 2-3), their load-aware
 * forms (Alg. 6-7), the parallel search of ParallelGenerateGroup (Alg. 8)
 * and RecreateMatrix (Alg. 4).
 *
 * Sparse form of Alg. 3.  Line 8 sums, for every candidate j, its
 * communication with the winners so far; here w[j] holds that sum and is
 * brought up to date when a winner joins (its row is added), so a step
 * costs the winner's degree plus a look at the candidates with w > 0
 * (`touched`).  Alg. 3 takes the first j of the largest w (strict >, j
 * increasing); so does the search here: largest w, then smallest index.
 * With no candidate above 0 (the group's first element, or a group with
 * no link to anything left), that is the first element not chosen yet,
 * as in the paper where every w is 0 > wMax = -1.  The result is the
 * paper's, in O(nnz + sum over steps of |touched|) instead of O(n^3).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "eagermap_internal.h"

#include <stdlib.h>
#include <string.h>

/* The state of one GenerateGroupsForLevel call. */
typedef struct gen {
	const em_level_t *lv;
	int64_t n;
	unsigned char *chosen;
	double *w;          /* communication with the current group's members */
	unsigned char *in;  /* in touched[] */
	int64_t *touched;   /* elements with w > 0 since the group began */
	int64_t nt;
	int64_t *need;      /* by type: still wanted by the current group */
	int64_t *tptr;      /* elements of each type, increasing */
	int64_t *tel;
	int64_t *tcur;      /* first element of the type that may be free */
	int64_t steps;
	double gload;       /* load of the current group (Alg. 7 line 23) */
} gen_t;

/* The best candidate of a part of touched[] (Alg. 8's threadResult). */
typedef struct best {
	int64_t j;
	double w;
} best_t;

void em_graph_free(em_graph_t *g)
{
	free(g->rowptr);
	free(g->col);
	free(g->w);
	memset(g, 0, sizeof(*g));
}

void em_groups_free(em_groups_t *gr)
{
	free(gr->gptr);
	free(gr->memb);
	free(gr->type);
	memset(gr, 0, sizeof(*gr));
}

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "eagermap: out of memory");
}

static int32_t etype(const gen_t *s, int64_t j)
{
	return s->lv->etype ? s->lv->etype[j] : 0;
}

static void gen_free(gen_t *s)
{
	free(s->chosen);
	free(s->w);
	free(s->in);
	free(s->touched);
	free(s->need);
	free(s->tptr);
	free(s->tel);
	free(s->tcur);
}

/* Elements by type (counting sort), for the first-free-element rule. */
static void bucket_types(gen_t *s)
{
	int32_t nt = s->lv->ntypes;
	for (int64_t j = 0; j < s->n; j++)
		s->tptr[etype(s, j) + 1]++;
	for (int32_t k = 0; k < nt; k++)
		s->tptr[k + 1] += s->tptr[k];
	for (int32_t k = 0; k < nt; k++)
		s->tcur[k] = s->tptr[k];
	for (int64_t j = 0; j < s->n; j++)
		s->tel[s->tcur[etype(s, j)]++] = j;
	for (int32_t k = 0; k < nt; k++)
		s->tcur[k] = s->tptr[k];
}

static int gen_init(gen_t *s, const em_level_t *lv)
{
	int32_t nt = lv->ntypes > 0 ? lv->ntypes : 1;
	memset(s, 0, sizeof(*s));
	s->lv = lv;
	s->n = lv->g->n;
	s->chosen = tm_zalloc(s->n, 1);
	s->w = tm_zalloc(s->n, sizeof(*s->w));
	s->in = tm_zalloc(s->n, 1);
	s->touched = tm_alloc(s->n, sizeof(*s->touched));
	s->need = tm_zalloc(nt, sizeof(*s->need));
	s->tptr = tm_zalloc(nt + 1, sizeof(*s->tptr));
	s->tel = tm_alloc(s->n, sizeof(*s->tel));
	s->tcur = tm_alloc(nt, sizeof(*s->tcur));
	if (!s->chosen || !s->w || !s->in || !s->touched || !s->need || !s->tptr || !s->tel ||
	    !s->tcur) {
		gen_free(s);
		return TOPOMATCH_ENOMEM;
	}
	bucket_types(s);
	return TOPOMATCH_OK;
}

/* (w, j) before (v, i) in Alg. 3's order: larger w, then smaller index. */
static bool better(double w, int64_t j, double v, int64_t i)
{
	return i < 0 || w > v || (w == v && j < i);
}

/* Alg. 3 lines 4-15 (Alg. 8 lines 10-21) over touched[lo, hi). */
static best_t scan(const gen_t *s, int64_t lo, int64_t hi)
{
	best_t b = { -1, 0.0 };
	for (int64_t k = lo; k < hi; k++) {
		int64_t j = s->touched[k];
		if (s->chosen[j] || s->need[etype(s, j)] <= 0)
			continue;
		if (better(s->w[j], j, b.w, b.j)) {
			b.j = j;
			b.w = s->w[j];
		}
	}
	return b;
}

typedef struct par_scan {
	const gen_t *s;
	best_t part[TM_POOL_MAX];
} par_scan_t;

static void scan_share(void *arg, int tid, int nthreads)
{
	par_scan_t *p = arg;
	int64_t lo, hi;
	tm_pool_share(p->s->nt, tid, nthreads, &lo, &hi);
	p->part[tid] = scan(p->s, lo, hi);
}

/* Alg. 8: every thread finds the best of its share, then the best of
 * the thread results is taken (line 24); the order is total, so the
 * winner is the sequential one whatever the thread count. */
static best_t search(const gen_t *s)
{
	tm_pool_t *pool = s->lv->pool;
	int nth = tm_pool_size(pool);
	if (nth < 2 || s->nt < EM_PAR_MIN)
		return scan(s, 0, s->nt);
	par_scan_t p = { .s = s };
	tm_pool_run(pool, scan_share, &p);
	best_t b = p.part[0];
	for (int k = 1; k < nth; k++)
		if (p.part[k].j >= 0 && better(p.part[k].w, p.part[k].j, b.w, b.j))
			b = p.part[k];
	return b;
}

/* Alg. 3 lines 5-12 when no candidate is above 0: the first element not
 * chosen yet (every w = 0 > wMax = -1), of a type the group still needs
 * (types: the group's need list). */
static int64_t first_free(gen_t *s, const int32_t *types, int64_t ntypes)
{
	int64_t j = -1;
	for (int64_t i = 0; i < ntypes; i++) {
		int32_t k = types[i];
		if (s->need[k] <= 0)
			continue;
		while (s->tcur[k] < s->tptr[k + 1] && s->chosen[s->tel[s->tcur[k]]])
			s->tcur[k]++;
		if (s->tcur[k] < s->tptr[k + 1] && (j < 0 || s->tel[s->tcur[k]] < j))
			j = s->tel[s->tcur[k]];
	}
	return j;
}

/* Alg. 3 lines 16-18: the winner joins; its row updates w (line 8). */
static void join(gen_t *s, int64_t j, int64_t *memb, int64_t *nm)
{
	const tm_wgraph_t *g = s->lv->g;
	s->chosen[j] = 1;
	s->need[etype(s, j)]--;
	memb[(*nm)++] = j;
	if (s->lv->load)
		s->gload += s->lv->load[j];
	for (int64_t e = g->rowptr[j]; e < g->rowptr[j + 1]; e++) {
		int64_t x = g->col[e];
		if (s->chosen[x])
			continue;
		if (!s->in[x]) {
			s->in[x] = 1;
			s->touched[s->nt++] = x;
		}
		s->w[x] += g->w[e];
	}
	s->steps++;
}

/* Alg. 3 lines 3-15 (Alg. 8 lines 3-29): the next winner into *j;
 * EBUDGET when the deadline has passed, EINVAL when no element of a
 * needed type is left (a bug). */
static int pick(gen_t *s, const int32_t *types, int64_t ntypes, int64_t *j, char *err)
{
	if (s->steps % EM_CHECK_STEPS == 0 && s->steps > 0 && tm_ctx_expired(s->lv->c))
		return tm_err(err, TOPOMATCH_EBUDGET, "eagermap: time budget exceeded");
	best_t b = search(s);
	*j = b.j >= 0 && b.w > 0 ? b.j : first_free(s, types, ntypes);
	if (*j < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "eagermap: a group cannot be filled");
	return TOPOMATCH_OK;
}

/* A group is done: forget its w. */
static void group_end(gen_t *s)
{
	for (int64_t k = 0; k < s->nt; k++) {
		s->w[s->touched[k]] = 0.0;
		s->in[s->touched[k]] = 0;
	}
	s->nt = 0;
	s->gload = 0.0;
}

static int groups_alloc(em_groups_t *out, int64_t ng, int64_t n)
{
	memset(out, 0, sizeof(*out));
	out->ng = ng;
	out->gptr = tm_alloc(ng + 1, sizeof(*out->gptr));
	out->memb = tm_alloc(n, sizeof(*out->memb));
	out->type = tm_zalloc(ng, sizeof(*out->type));
	if (!out->gptr || !out->memb || !out->type) {
		em_groups_free(out);
		return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

/* GenerateGroup (Alg. 3) for group k of a typed level. */
static int typed_group(gen_t *s, const em_need_t *nd, int64_t k, em_groups_t *out,
		       int64_t *nm, char *err)
{
	int64_t lo = nd->nptr[k], hi = nd->nptr[k + 1], size = 0;
	for (int64_t i = lo; i < hi; i++) {
		s->need[nd->ntype[i]] += nd->ncnt[i];
		size += nd->ncnt[i];
	}
	for (int64_t i = 0; i < size; i++) {
		int64_t j;
		int rc = pick(s, nd->ntype + lo, hi - lo, &j, err);
		if (rc != TOPOMATCH_OK) {
			group_end(s);
			return rc;
		}
		join(s, j, out->memb, nm);
	}
	group_end(s);
	return TOPOMATCH_OK;
}

typedef struct gsize {
	int64_t size, k;
} gsize_t;

static int cmp_gsize(const void *x, const void *y)
{
	const gsize_t *a = x, *b = y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* Group sizes, group ranges in memb (object order), and the order in
 * which the groups are built: largest first, as Alg. 2 gives its
 * `leftover` extra elements to the first groups. */
static gsize_t *build_order(const em_need_t *nd, em_groups_t *out, int64_t n)
{
	gsize_t *ord = tm_alloc(nd->ng, sizeof(*ord));
	if (!ord)
		return NULL;
	out->gptr[0] = 0;
	for (int64_t k = 0; k < nd->ng; k++) {
		ord[k] = (gsize_t){ 0, k };
		for (int64_t i = nd->nptr[k]; i < nd->nptr[k + 1]; i++)
			ord[k].size += nd->ncnt[i];
		out->gptr[k + 1] = out->gptr[k] + ord[k].size;
		out->type[k] = nd->gtype ? nd->gtype[k] : 0;
	}
	if (out->gptr[nd->ng] != n) {
		free(ord);
		return NULL;
	}
	qsort(ord, (size_t)nd->ng, sizeof(*ord), cmp_gsize);
	return ord;
}

/* Alg. 2: one group per object; the sizes (and types) come from the
 * objects instead of elPerGroup and leftover. */
int em_generate(const em_level_t *lv, const em_need_t *nd, em_groups_t *out, char *err)
{
	gen_t s;
	int rc = TOPOMATCH_OK;

	if (gen_init(&s, lv) != TOPOMATCH_OK)
		return oom(err);
	if (groups_alloc(out, nd->ng, s.n) != TOPOMATCH_OK) {
		gen_free(&s);
		return oom(err);
	}
	gsize_t *ord = build_order(nd, out, s.n);
	if (!ord)
		rc = tm_err(err, TOPOMATCH_EINVAL, "eagermap: the groups do not take %lld elements",
			    (long long)s.n);
	for (int64_t i = 0; i < nd->ng && rc == TOPOMATCH_OK; i++) {
		int64_t k = ord[i].k, nm = out->gptr[k];
		rc = typed_group(&s, nd, k, out, &nm, err);
	}
	free(ord);
	gen_free(&s);
	if (rc != TOPOMATCH_OK)
		em_groups_free(out);
	return rc;
}

/* ---------------------------------------------------------------- loads */

/* Alg. 6 line 9 and Alg. 7 line 4 for a group of p PUs: the load
 * threshold, and bounds the paper leaves implicit: at least one task per
 * PU, at most f, and room left for the tasks left. */
typedef struct lb_bounds {
	int64_t lo, hi;
	double thr;
} lb_bounds_t;

static lb_bounds_t lb_bounds(int64_t p, int f, int64_t tasks, int64_t pus, double load)
{
	lb_bounds_t b;
	int64_t rest = pus - p; /* PUs of the groups after this one */
	b.lo = tasks - rest * f > p ? tasks - rest * f : p;
	b.hi = tasks - rest < p * f ? tasks - rest : p * f;
	/* Alg. 6 line 9: loadThreshold = totalLoad / avlGroups, per PU */
	b.thr = load * (double)p / (double)pus;
	return b;
}

/* LbGenerateGroup (Alg. 7): take elements while the group's load is under
 * the threshold (line 4), within the bounds. */
static int lb_group(gen_t *s, const lb_bounds_t *b, em_groups_t *out, int64_t *nm, char *err)
{
	static const int32_t type0 = 0;
	int64_t count = 0;
	s->need[0] = s->n; /* one type; the bounds limit the group */
	while (count < b->lo || (count < b->hi && s->gload < b->thr)) {
		int64_t j;
		int rc = pick(s, &type0, 1, &j, err);
		if (rc != TOPOMATCH_OK) {
			group_end(s);
			return rc;
		}
		join(s, j, out->memb, nm);
		count++;
	}
	s->need[0] = 0;
	group_end(s);
	return TOPOMATCH_OK;
}

/* LbGenerateGroupsForLevel (Alg. 6): the threshold is recomputed for
 * every group from the load and the PUs left (lines 9, 12-13). */
int em_generate_load(const em_level_t *lv, int64_t ng, const int64_t *npu, int f,
		     em_groups_t *out, char *err)
{
	gen_t s;
	int64_t nm = 0, pus = 0;
	double load = 0.0;
	int rc = TOPOMATCH_OK;

	if (gen_init(&s, lv) != TOPOMATCH_OK)
		return oom(err);
	if (groups_alloc(out, ng, s.n) != TOPOMATCH_OK) {
		gen_free(&s);
		return oom(err);
	}
	for (int64_t j = 0; j < s.n; j++)
		load += lv->load[j];
	for (int64_t k = 0; k < ng; k++)
		pus += npu[k];
	for (int64_t k = 0; k < ng && rc == TOPOMATCH_OK; k++) {
		int64_t before = nm;
		lb_bounds_t b = lb_bounds(npu[k], f, s.n - nm, pus, load);
		out->gptr[k] = nm;
		rc = lb_group(&s, &b, out, &nm, err);
		for (int64_t i = before; i < nm; i++)
			load -= lv->load[out->memb[i]];
		pus -= npu[k];
	}
	out->gptr[ng] = nm;
	gen_free(&s);
	if (rc != TOPOMATCH_OK)
		em_groups_free(out);
	return rc;
}

/* ---------------------------------------------------------------- Alg. 4 */

/* One row of the new matrix: what group a exchanges with the others. */
static void recreate_row(const tm_wgraph_t *g, const em_groups_t *gr, const int64_t *grp,
			 int64_t a, int64_t *mark, double *acc, em_graph_t *out, int64_t *nnz)
{
	int64_t first = *nnz;
	for (int64_t i = gr->gptr[a]; i < gr->gptr[a + 1]; i++) {
		int64_t v = gr->memb[i];
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
			int64_t b = grp[g->col[e]];
			if (b == a)
				continue;
			if (mark[b] != a) {
				mark[b] = a;
				acc[b] = 0.0;
				out->col[(*nnz)++] = b;
			}
			acc[b] += g->w[e];
		}
	}
	for (int64_t k = first; k < *nnz; k++)
		out->w[k] = acc[out->col[k]];
}

/* RecreateMatrix (Alg. 4): newCommMatrix[i][j] = the sum of commMatrix
 * between the elements of groups i and j, sparse, in O(nnz + n). */
int em_recreate(const tm_wgraph_t *g, const em_groups_t *gr, em_graph_t *out, char *err)
{
	int64_t ng = gr->ng, nnz = 0;
	int64_t *grp = tm_alloc(g->n, sizeof(*grp)), *mark = tm_alloc(ng, sizeof(*mark));
	double *acc = tm_alloc(ng, sizeof(*acc));
	int64_t cap = g->rowptr[g->n];

	memset(out, 0, sizeof(*out));
	out->rowptr = tm_alloc(ng + 1, sizeof(*out->rowptr));
	out->col = tm_alloc(cap, sizeof(*out->col));
	out->w = tm_alloc(cap, sizeof(*out->w));
	if (!grp || !mark || !acc || !out->rowptr || !out->col || !out->w) {
		free(grp);
		free(mark);
		free(acc);
		em_graph_free(out);
		return oom(err);
	}
	for (int64_t a = 0; a < ng; a++) {
		mark[a] = -1;
		for (int64_t i = gr->gptr[a]; i < gr->gptr[a + 1]; i++)
			grp[gr->memb[i]] = a;
	}
	for (int64_t a = 0; a < ng; a++) {
		out->rowptr[a] = nnz;
		recreate_row(g, gr, grp, a, mark, acc, out, &nnz);
	}
	out->rowptr[ng] = nnz;
	out->g = (tm_wgraph_t){ ng, out->rowptr, out->col, out->w, NULL };
	free(grp);
	free(mark);
	free(acc);
	return TOPOMATCH_OK;
}

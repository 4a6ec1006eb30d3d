/*
 * eagermap_cluster.c - EagerMap on topologies that are not trees
 * (Cruz et al., TOPC 2019, §3.6): "make a pre-computation of which tasks
 * will run on each machine of the cluster, and then call the previously
 * presented algorithms for each machine separately".
 *
 * Machines are the nodes of pu_nodes.h: a router and the local tree below
 * it on tori and meshes, a PU on plain grids, hypercubes and graphs.
 *
 *  1. Task counts per machine (§3.6): the tasks spread evenly over
 *     U = min(n, m) PUs; the machines with the most allowed PUs are filled
 *     first.  With loads and more tasks than PUs, Alg. 6-7 size the
 *     groups by load instead.
 *  2. The groups, greedily as in Alg. 3 (GenerateGroupsForLevel with one
 *     group per planned machine; Alg. 8 on the pool).
 *  3. Placement of the groups on the machines.  The paper assumes every
 *     machine is as far from the others, which a torus is not; so the
 *     groups are placed in EagerMap's greedy order (next: the group that
 *     communicates most with the groups placed so far, Alg. 3's rule, ties
 *     to the group met first: a breadth-first front, which on a lattice
 *     places a task's neighbours before their own neighbours), each on
 *     the free machine of its size that costs least (sum of
 *     communication x machine distance to the placed groups).  Machines
 *     are examined in rings around the heaviest placed partner; a ring r
 *     cannot hold anything cheaper than sum_h W_h max(0, r - d(c, h)) (by
 *     the triangle inequality), which ends the search, as does a bound on
 *     the machines weighed (EM_PLACE_CANDIDATES, for dense patterns).
 *     The first group is the least connected one (a peripheral start,
 *     as in RCM), on the first planned machine (a mesh's corner).
 *     Ties go to the first machine met, rings being walked in a fixed
 *     order that starts with the most compact offsets (pu_nodes.c).
 *  4. EagerMap (Alg. 1-5) on each machine's local tree with its tasks.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "eagermap_internal.h"
#include "topology/pu_nodes.h"

#include <stdlib.h>
#include <string.h>

typedef struct clu {
	const tm_map_ctx_t *c;
	tm_pool_t *pool;
	tm_wgraph_t g;       /* the tasks' A = C + C^T */
	tm_nodes_t nd;
	tm_near_t near;
	int64_t np;          /* groups = planned machines */
	int64_t *pm;         /* planned machine of each group */
	int64_t *npu;        /* PUs each group uses */
	em_groups_t gr;
	em_graph_t gg;       /* between the groups (Alg. 4) */
	int64_t *mach;       /* group -> machine */
	unsigned char *busy; /* machine -> holds a group */
} clu_t;

/* A placed partner of the group being placed. */
typedef struct partner {
	int64_t node;
	double w;
	int64_t dc; /* distance from the centre of the search */
} partner_t;

/* Free machines weighed for one group at most: past them the best so
 * far is kept (dense patterns would otherwise weigh every machine). */
#define EM_PLACE_CANDIDATES 64

typedef struct search {
	clu_t *s;
	int64_t cap;         /* machines of this size only */
	int64_t tried;       /* free machines weighed */
	const partner_t *p;
	int64_t np;
	int64_t ring;
	double best;
	int64_t pick;
} search_t;

typedef struct pair {
	int64_t a, i;
} pair_t;

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "eagermap: out of memory");
}

static int64_t ncap(const clu_t *s, int64_t x)
{
	return s->nd.ptr[x + 1] - s->nd.ptr[x];
}

static void clu_free(clu_t *s)
{
	tm_near_free(&s->near);
	tm_nodes_free(&s->nd);
	free(s->pm);
	free(s->npu);
	em_groups_free(&s->gr);
	em_graph_free(&s->gg);
	free(s->mach);
	free(s->busy);
}

/* ---------------------------------------------------------------- 1. plan */

static int cmp_cap(const void *x, const void *y)
{
	const pair_t *a = x, *b = y;
	if (a->a != b->a)
		return a->a > b->a ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* §3.6: "it counts the total number of available PUs in all machines,
 * and spreads the tasks" - machines by size, largest first, until U PUs
 * are taken. */
static int plan_machines(clu_t *s, int64_t u)
{
	int64_t nm = s->nd.n, left = u;
	pair_t *ord = tm_alloc(nm, sizeof(*ord));
	s->pm = tm_alloc(nm, sizeof(*s->pm));
	s->npu = tm_alloc(nm, sizeof(*s->npu));
	if (!ord || !s->pm || !s->npu) {
		free(ord);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t x = 0; x < nm; x++)
		ord[x] = (pair_t){ ncap(s, x), x };
	qsort(ord, (size_t)nm, sizeof(*ord), cmp_cap);
	s->np = 0;
	for (int64_t i = 0; i < nm && left > 0; i++) {
		int64_t take = ord[i].a < left ? ord[i].a : left;
		s->pm[s->np] = ord[i].i;
		s->npu[s->np++] = take;
		left -= take;
	}
	free(ord);
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- 2. groups */

/* §3.6 with Alg. 2-3: one group per planned machine, q tasks per used
 * PU and one more on the first r. */
static int groups_by_count(clu_t *s, const em_level_t *lv, int64_t q, int64_t r, char *err)
{
	int64_t *nptr = tm_alloc(s->np + 1, sizeof(*nptr)), *cnt = tm_alloc(s->np, sizeof(*cnt));
	int32_t *ty = tm_zalloc(s->np, sizeof(*ty));
	int rc;
	if (!nptr || !cnt || !ty) {
		rc = oom(err);
	} else {
		for (int64_t j = 0; j < s->np; j++) {
			int64_t extra = r < s->npu[j] ? r : s->npu[j];
			nptr[j] = j;
			cnt[j] = s->npu[j] * q + extra;
			r -= extra;
		}
		nptr[s->np] = s->np;
		em_need_t nd = { s->np, nptr, ty, cnt, NULL };
		rc = em_generate(lv, &nd, &s->gr, err);
	}
	free(nptr);
	free(cnt);
	free(ty);
	return rc;
}

/* §3.6 steps 1-2: groups by count, or by load (Alg. 6-7), and their
 * communication (Alg. 4). */
static int make_groups(clu_t *s, char *err)
{
	const tm_map_ctx_t *c = s->c;
	const double *loads = topomatch_affinity_loads(c->a);
	bool load = em_load_mode(loads, c->ntasks, c->m);
	int64_t u, q, r;
	em_spread(c->ntasks, c->m, &u, &q, &r);
	if (plan_machines(s, u) != TOPOMATCH_OK)
		return oom(err);
	em_level_t lv = { c, s->pool, &s->g, NULL, 1, load ? loads : NULL };
	int rc = load ? em_generate_load(&lv, s->np, s->npu, c->f, &s->gr, err)
		      : groups_by_count(s, &lv, q, r, err);
	if (rc == TOPOMATCH_OK)
		rc = em_recreate(&s->g, &s->gr, &s->gg, err);
	return rc;
}

/* ---------------------------------------------------------------- 3. place */

static double place_cost(search_t *x, int64_t node)
{
	double cost = 0.0;
	for (int64_t i = 0; i < x->np; i++)
		cost += x->p[i].w * (double)tm_near_dist(&x->s->near, node, x->p[i].node);
	return cost;
}

/* No machine in ring r can cost less than this. */
static double ring_bound(const search_t *x, int64_t r)
{
	double lb = 0.0;
	for (int64_t i = 0; i < x->np; i++)
		if (r > x->p[i].dc)
			lb += x->p[i].w * (double)(r - x->p[i].dc);
	return lb;
}

static bool visit_best(void *arg, int64_t node, int64_t dist)
{
	search_t *x = arg;
	if (dist != x->ring) {
		x->ring = dist;
		if (x->pick >= 0 && ring_bound(x, dist) > x->best)
			return false;
	}
	if (x->s->busy[node] || ncap(x->s, node) != x->cap)
		return true;
	double cost = place_cost(x, node);
	if (x->pick < 0 || cost < x->best) { /* ties: the first in ring order */
		x->best = cost;
		x->pick = node;
	}
	return ++x->tried < EM_PLACE_CANDIDATES;
}

static bool visit_first(void *arg, int64_t node, int64_t dist)
{
	search_t *x = arg;
	(void)dist;
	if (x->s->busy[node] || ncap(x->s, node) != x->cap)
		return true;
	x->pick = node;
	return false;
}

/* Placed partners of group k, the heaviest first (ties: lower machine). */
static int64_t partners(clu_t *s, int64_t k, partner_t *p)
{
	const tm_wgraph_t *g = &s->gg.g;
	int64_t np = 0, top = -1;
	for (int64_t e = g->rowptr[k]; e < g->rowptr[k + 1]; e++) {
		int64_t h = g->col[e];
		if (s->mach[h] < 0)
			continue;
		p[np] = (partner_t){ s->mach[h], g->w[e], 0 };
		if (top < 0 || p[np].w > p[top].w || (p[np].w == p[top].w && p[np].node < p[top].node))
			top = np;
		np++;
	}
	if (top > 0) {
		partner_t t = p[0];
		p[0] = p[top];
		p[top] = t;
	}
	return np;
}

/* The machine for group k: cheapest for its placed partners, or (none)
 * the first free one around the last machine used. */
static int64_t choose(clu_t *s, int64_t k, int64_t last, partner_t *p)
{
	search_t x = { .s = s, .cap = ncap(s, s->pm[k]), .ring = 0, .pick = -1 };
	x.np = partners(s, k, p);
	x.p = p;
	if (x.np == 0) {
		tm_near_walk(&s->near, last >= 0 ? last : s->pm[0], true, visit_first, &x);
		return x.pick;
	}
	for (int64_t i = 0; i < x.np; i++)
		p[i].dc = tm_near_dist(&s->near, p[0].node, p[i].node);
	tm_near_walk(&s->near, p[0].node, true, visit_best, &x);
	return x.pick;
}

/* The group that communicates least with the others (ties: lower
 * index): a peripheral start, as RCM takes, so that a mesh is filled from
 * a corner of the pattern. */
static int64_t least_connected(const clu_t *s)
{
	const tm_wgraph_t *g = &s->gg.g;
	int64_t best = 0;
	double bw = 0.0;
	for (int64_t k = 0; k < g->n; k++) {
		double w = 0.0;
		for (int64_t e = g->rowptr[k]; e < g->rowptr[k + 1]; e++)
			w += g->w[e];
		if (k == 0 || w < bw) {
			bw = w;
			best = k;
		}
	}
	return best;
}

/* The next group in EagerMap's order: most communication with the
 * placed groups (ties: the one discovered first), else the first
 * unplaced one.  The chosen group leaves `front`, which stays in order of
 * discovery. */
static int64_t next_group(clu_t *s, const double *pw, int64_t *front, int64_t *nf,
			  int64_t *first)
{
	int64_t best = -1, bi = -1;
	for (int64_t i = 0; i < *nf; i++) {
		int64_t k = front[i];
		if (s->mach[k] >= 0)
			continue;
		if (best < 0 || pw[k] > pw[best])
			best = k, bi = i;
	}
	if (bi >= 0) { /* keep the order of discovery: ties go to the oldest */
		memmove(front + bi, front + bi + 1, (size_t)(*nf - bi - 1) * sizeof(*front));
		(*nf)--;
	}
	if (best >= 0)
		return best;
	while (s->mach[*first] >= 0)
		(*first)++;
	return *first;
}

static void placed(clu_t *s, int64_t k, double *pw, unsigned char *in, int64_t *front,
		   int64_t *nf)
{
	const tm_wgraph_t *g = &s->gg.g;
	for (int64_t e = g->rowptr[k]; e < g->rowptr[k + 1]; e++) {
		int64_t h = g->col[e];
		if (s->mach[h] >= 0)
			continue;
		pw[h] += g->w[e];
		if (!in[h]) {
			in[h] = 1;
			front[(*nf)++] = h;
		}
	}
}

static int place_loop(clu_t *s, double *pw, unsigned char *in, int64_t *front, partner_t *p,
		      char *err)
{
	int64_t nf = 0, first = 0, last = -1;
	for (int64_t step = 0; step < s->np; step++) {
		if (step % EM_CHECK_STEPS == EM_CHECK_STEPS - 1 && tm_ctx_expired(s->c))
			return tm_err(err, TOPOMATCH_EBUDGET, "eagermap: time budget exceeded");
		int64_t k = step == 0 ? least_connected(s) : next_group(s, pw, front, &nf, &first);
		int64_t x = choose(s, k, last, p);
		if (x < 0)
			return tm_err(err, TOPOMATCH_EINVAL, "eagermap: no machine left for group %lld",
				      (long long)k);
		s->mach[k] = x;
		s->busy[x] = 1;
		last = x;
		placed(s, k, pw, in, front, &nf);
	}
	return TOPOMATCH_OK;
}

/* Step 3 (an extension of §3.6, which takes machines as equidistant):
 * every group on a machine, in EagerMap's greedy order. */
static int place_groups(clu_t *s, char *err)
{
	int64_t np = s->np;
	double *pw = tm_zalloc(np, sizeof(*pw));
	unsigned char *in = tm_zalloc(np, 1);
	int64_t *front = tm_alloc(np, sizeof(*front));
	partner_t *p = tm_alloc(np, sizeof(*p));
	int rc;
	s->mach = tm_alloc(np, sizeof(*s->mach));
	s->busy = tm_zalloc(s->nd.n, 1);
	if (!pw || !in || !front || !p || !s->mach || !s->busy) {
		rc = oom(err);
	} else {
		for (int64_t k = 0; k < np; k++)
			s->mach[k] = -1;
		rc = place_loop(s, pw, in, front, p, err);
	}
	free(pw);
	free(in);
	free(front);
	free(p);
	return rc;
}

/* ---------------------------------------------------------------- 4. local */

/* The tasks of group k (their order in the group) as a graph of their
 * own: loc[] maps a task to its rank while the group is mapped. */
typedef struct sub {
	tm_wgraph_t g;
	int64_t *rowptr, *col;
	double *w, *load;
	int64_t *out;
} sub_t;

static void sub_free(sub_t *b)
{
	free(b->rowptr);
	free(b->col);
	free(b->w);
	free(b->load);
	free(b->out);
}

static int sub_build(const clu_t *s, const int64_t *tasks, int64_t nt, int64_t *loc, sub_t *b)
{
	const tm_wgraph_t *g = &s->g;
	const double *loads = topomatch_affinity_loads(s->c->a);
	int64_t nnz = 0;
	memset(b, 0, sizeof(*b));
	for (int64_t i = 0; i < nt; i++) {
		loc[tasks[i]] = i;
		nnz += g->rowptr[tasks[i] + 1] - g->rowptr[tasks[i]];
	}
	b->rowptr = tm_alloc(nt + 1, sizeof(*b->rowptr));
	b->col = tm_alloc(nnz, sizeof(*b->col));
	b->w = tm_alloc(nnz, sizeof(*b->w));
	b->out = tm_alloc(nt, sizeof(*b->out));
	b->load = loads ? tm_alloc(nt, sizeof(*b->load)) : NULL;
	if (!b->rowptr || !b->col || !b->w || !b->out || (loads && !b->load))
		return TOPOMATCH_ENOMEM;
	nnz = 0;
	for (int64_t i = 0; i < nt; i++) {
		int64_t v = tasks[i];
		b->rowptr[i] = nnz;
		if (b->load)
			b->load[i] = loads[v];
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
			if (loc[g->col[e]] < 0)
				continue;
			b->col[nnz] = loc[g->col[e]];
			b->w[nnz++] = g->w[e];
		}
	}
	b->rowptr[nt] = nnz;
	b->g = (tm_wgraph_t){ nt, b->rowptr, b->col, b->w, NULL };
	return TOPOMATCH_OK;
}

/* §3.6: "call EagerMap separately for each group": Alg. 1-5 on machine
 * x's local tree for group k. */
static int map_machine(const clu_t *s, int64_t k, int64_t *loc, int64_t *pu, char *err)
{
	const topomatch_topology_t *t = s->nd.t;
	int64_t x = s->mach[k], nt = s->gr.gptr[k + 1] - s->gr.gptr[k];
	const int64_t *tasks = s->gr.memb + s->gr.gptr[k], *pus = s->nd.pus + s->nd.ptr[x];
	if (ncap(s, x) == 1 || t->nlevels == 0) {
		for (int64_t i = 0; i < nt; i++)
			pu[tasks[i]] = pus[0];
		return TOPOMATCH_OK;
	}
	sub_t b;
	int rc = sub_build(s, tasks, nt, loc, &b);
	if (rc != TOPOMATCH_OK)
		rc = oom(err);
	else
		rc = em_tree(s->c, NULL, &b.g, b.load, pus, ncap(s, x), t->nlevels, t->below,
			     s->c->f, b.out, err);
	for (int64_t i = 0; i < nt; i++) {
		if (rc == TOPOMATCH_OK)
			pu[tasks[i]] = b.out[i];
		loc[tasks[i]] = -1;
	}
	sub_free(&b);
	return rc;
}

static int map_machines(const clu_t *s, int64_t *pu, char *err)
{
	int64_t *loc = tm_alloc(s->c->ntasks, sizeof(*loc));
	int rc = TOPOMATCH_OK;
	if (!loc)
		return oom(err);
	for (int64_t i = 0; i < s->c->ntasks; i++)
		loc[i] = -1;
	for (int64_t k = 0; k < s->np && rc == TOPOMATCH_OK; k++)
		rc = map_machine(s, k, loc, pu, err);
	free(loc);
	return rc;
}

int em_cluster(const tm_map_ctx_t *c, tm_pool_t *pool, int64_t *pu, char *err)
{
	clu_t s;
	topomatch_csr_t a = topomatch_affinity_symmetric(c->a);
	int rc;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.pool = pool;
	s.g = (tm_wgraph_t){ a.n, a.rowptr, a.col, a.w, NULL };
	rc = tm_nodes_build(&s.nd, c->t, c->allowed, c->m, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_near_init(&s.near, &s.nd, err);
	if (rc == TOPOMATCH_OK)
		rc = make_groups(&s, err);
	if (rc == TOPOMATCH_OK)
		rc = place_groups(&s, err);
	if (rc == TOPOMATCH_OK)
		rc = map_machines(&s, pu, err);
	clu_free(&s);
	return rc;
}

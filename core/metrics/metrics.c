/*
 * metrics.c - quality of a mapping: hop-bytes, SumCom and MaxCom
 * (TopoMatch §3.5), per-task hop-bytes and their average and maximum
 * (TopoMapping Eq. 1-3), maximum link load (TopoMapping Eq. 4-5) under the
 * routing model of router.c; and the validity check of a mapping.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Work is O(nnz x route length) and memory O(ntasks + npu + links): the
 * pattern is walked row by row, never as a dense matrix.
 */
#include "config.h"
#include "topology/topology_internal.h"
#include "metrics_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct mctx {
	const topomatch_topology_t *t;
	const int64_t *pu;
	topomatch_csr_t c;   /* C as read: direction matters for B and routes */
	topomatch_csr_t sym; /* A = C + C^T: TopoMapping's undirected task graph */
	topomatch_router_t *r;
	int64_t *route; /* maxhops link ids */
	double *load;   /* per directed link; NULL when not wanted */
	double *hb;     /* per task: sum_j C(i,j) d */
	double *sc;     /* per task: sum_j C(i,j) B */
	double *thb;    /* per task: sum_j A(i,j) d (Eq. 1) */
	double max_com;
} mctx_t;

static int check_pus(const topomatch_topology_t *t, int64_t n, const int64_t *pu, char *err)
{
	for (int64_t i = 0; i < n; i++)
		if (pu[i] < 0 || pu[i] >= t->npu)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "task %lld is on PU %lld, outside [0, %lld)", (long long)i,
				      (long long)pu[i], (long long)t->npu);
	return TOPOMATCH_OK;
}

/* (PU, task) pairs, for the visit order. */
typedef struct pu_task {
	int64_t pu, task;
} pu_task_t;

static int cmp_pu_task(const void *x, const void *y)
{
	const pu_task_t *p = x, *q = y;
	if (p->pu != q->pu)
		return p->pu < q->pu ? -1 : 1;
	return (p->task > q->task) - (p->task < q->task);
}

/*
 * Order of the tasks to visit: by PU on graphs, so that the router runs
 * one BFS per source it has not just run (router.c keeps the last, and
 * the PUs of one node hang from one vertex); task order elsewhere.
 * O(ntasks log ntasks): nothing the size of the machine.
 */
static int64_t *task_order(const topomatch_topology_t *t, int64_t n, const int64_t *pu)
{
	int64_t *order = tm_alloc(n, sizeof(*order));
	if (!order || t->kind != TOPOMATCH_TOPO_GRAPH) {
		for (int64_t i = 0; order && i < n; i++)
			order[i] = i;
		return order;
	}
	pu_task_t *pt = tm_alloc(n, sizeof(*pt));
	if (!pt) {
		free(order);
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		pt[i] = (pu_task_t){ pu[i], i };
	qsort(pt, (size_t)n, sizeof(*pt), cmp_pu_task);
	for (int64_t i = 0; i < n; i++)
		order[i] = pt[i].task;
	free(pt);
	return order;
}

int topomatch_metrics_edge_hops(const topomatch_topology_t *t, topomatch_router_t *r,
				const topomatch_affinity_t *a, const int64_t *pu, int64_t *hops,
				char *err)
{
	if (!t || !r || !a || !pu || !hops)
		return tm_err(err, TOPOMATCH_EINVAL, "edge hops: NULL argument");
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t *order = task_order(t, c.n, pu);
	if (!order)
		return tm_err(err, TOPOMATCH_ENOMEM, "edge hops: out of memory for %lld tasks",
			      (long long)c.n);
	for (int64_t k = 0; k < c.n; k++) {
		int64_t i = order[k];
		topomatch_router_source(r, pu[i]);
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			hops[e] = topomatch_router_hops(r, pu[c.col[e]]);
	}
	free(order);
	return TOPOMATCH_OK;
}

/* Directed row i of C: d and B of the sender's route, loads on its links. */
static void row_directed(mctx_t *x, int64_t i)
{
	int64_t s = x->pu[i];
	for (int64_t e = x->c.rowptr[i]; e < x->c.rowptr[i + 1]; e++) {
		int64_t q = x->pu[x->c.col[e]];
		double w = x->c.w[e];
		if (q == s)
			continue; /* same PU: d = B = 0, no link used */
		int64_t h = topomatch_router_route(x->r, q, x->route, x->t->maxhops);
		double b = topomatch_router_cost(x->r, q);
		x->hb[i] += w * (double)h;
		x->sc[i] += w * b;
		if (w * b > x->max_com)
			x->max_com = w * b;
		for (int64_t k = 0; x->load && k < h; k++)
			x->load[x->route[k]] += w;
	}
}

/* Directed row i of C, hops only: the hop_bytes term of row_directed,
 * added in the same order so that the sum is the same to the bit. */
static void row_hops(mctx_t *x, int64_t i)
{
	int64_t s = x->pu[i];
	for (int64_t e = x->c.rowptr[i]; e < x->c.rowptr[i + 1]; e++) {
		int64_t q = x->pu[x->c.col[e]];
		if (q != s)
			x->hb[i] += x->c.w[e] * (double)topomatch_router_hops(x->r, q);
	}
}

/* Row i of A: hopbytes(S, t) of TopoMapping Eq. 1 (both directions). */
static void row_symmetric(mctx_t *x, int64_t i)
{
	double sum = 0.0;
	for (int64_t e = x->sym.rowptr[i]; e < x->sym.rowptr[i + 1]; e++)
		sum += x->sym.w[e] * (double)topomatch_router_hops(x->r, x->pu[x->sym.col[e]]);
	x->thb[i] = sum;
}

static void mctx_free(mctx_t *x)
{
	topomatch_router_destroy(x->r);
	free(x->route);
	free(x->load);
	free(x->hb);
	free(x->sc);
	free(x->thb);
}

/* What a walk computes: everything of topomatch_metrics_t, only the
 * per-task hop-bytes (into the caller's thb[]), or only hop_bytes. */
enum { M_ALL, M_TASKS, M_HOP_BYTES };

static int mctx_init(mctx_t *x, const topomatch_affinity_t *a, const topomatch_topology_t *t,
		     const int64_t *pu, int what, double *thb, char *err)
{
	bool full = what == M_ALL;
	int64_t n = topomatch_affinity_ntasks(a);
	memset(x, 0, sizeof(*x));
	x->t = t;
	x->pu = pu;
	x->c = topomatch_affinity_directed(a);
	x->sym = topomatch_affinity_symmetric(a);
	int rc = topomatch_router_create(t, &x->r, err);
	if (rc)
		return rc;
	if (what != M_HOP_BYTES)
		x->thb = thb ? thb : tm_alloc(n, sizeof(*x->thb));
	if (what == M_HOP_BYTES)
		x->hb = tm_zalloc(n, sizeof(*x->hb));
	if (full) {
		x->route = tm_alloc(t->maxhops, sizeof(*x->route));
		x->load = tm_zalloc(t->nlinks, sizeof(*x->load));
		x->hb = tm_zalloc(n, sizeof(*x->hb));
		x->sc = tm_zalloc(n, sizeof(*x->sc));
	}
	if ((what != M_HOP_BYTES && !x->thb) || (what != M_TASKS && !x->hb) ||
	    (full && (!x->route || !x->load || !x->sc))) {
		if (thb)
			x->thb = NULL;
		mctx_free(x);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for the metrics of %lld tasks",
			      (long long)n);
	}
	return TOPOMATCH_OK;
}

static int walk(mctx_t *x, int64_t n, int what, char *err)
{
	int64_t *order = task_order(x->t, n, x->pu);
	if (!order)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for the metrics of %lld tasks",
			      (long long)n);
	for (int64_t k = 0; k < n; k++) {
		int64_t i = order[k];
		topomatch_router_source(x->r, x->pu[i]);
		if (what == M_ALL)
			row_directed(x, i);
		else if (what == M_HOP_BYTES)
			row_hops(x, i);
		if (what != M_HOP_BYTES)
			row_symmetric(x, i);
	}
	free(order);
	return TOPOMATCH_OK;
}

/* Sums in task order, so the result does not depend on the visit order. */
static void summarize(const mctx_t *x, int64_t n, topomatch_metrics_t *m)
{
	double thb_sum = 0.0;
	memset(m, 0, sizeof(*m));
	for (int64_t i = 0; i < n; i++) {
		m->hop_bytes += x->hb[i];
		m->sum_com += x->sc[i];
		thb_sum += x->thb[i];
		if (x->thb[i] > m->max_task_hop_bytes)
			m->max_task_hop_bytes = x->thb[i];
	}
	m->avg_task_hop_bytes = thb_sum / (double)n;
	m->max_com = x->max_com;
	for (int64_t l = 0; l < x->t->nlinks; l++)
		if (x->load[l] > m->max_link_load)
			m->max_link_load = x->load[l];
}

static int args_ok(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		   const int64_t *pu, const void *out, char *err)
{
	if (!a || !t || !pu || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "metrics: missing pattern, topology, "
						      "mapping or output");
	return check_pus(t, topomatch_affinity_ntasks(a), pu, err);
}

int topomatch_metrics_compute(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			      const int64_t *pu, topomatch_metrics_t *m, char *err)
{
	mctx_t x;
	int rc = args_ok(a, t, pu, m, err);
	if (rc)
		return rc;
	int64_t n = topomatch_affinity_ntasks(a);
	if ((rc = mctx_init(&x, a, t, pu, M_ALL, NULL, err)))
		return rc;
	rc = walk(&x, n, M_ALL, err);
	if (!rc)
		summarize(&x, n, m);
	mctx_free(&x);
	return rc;
}

int topomatch_metrics_task_hop_bytes(const topomatch_affinity_t *a,
				     const topomatch_topology_t *t, const int64_t *pu,
				     double *out, char *err)
{
	mctx_t x;
	int rc = args_ok(a, t, pu, out, err);
	if (rc)
		return rc;
	if ((rc = mctx_init(&x, a, t, pu, M_TASKS, out, err)))
		return rc;
	rc = walk(&x, topomatch_affinity_ntasks(a), M_TASKS, err);
	x.thb = NULL; /* the caller's */
	mctx_free(&x);
	return rc;
}

int topomatch_metrics_hop_bytes(const topomatch_affinity_t *a, const topomatch_topology_t *t,
				const int64_t *pu, double *hop_bytes, char *err)
{
	return tm_metrics_hop_bytes(a, t, pu, hop_bytes, err);
}

int tm_metrics_hop_bytes(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const int64_t *pu, double *hop_bytes, char *err)
{
	mctx_t x;
	int rc = args_ok(a, t, pu, hop_bytes, err);
	if (rc)
		return rc;
	int64_t n = topomatch_affinity_ntasks(a);
	if ((rc = mctx_init(&x, a, t, pu, M_HOP_BYTES, NULL, err)))
		return rc;
	rc = walk(&x, n, M_HOP_BYTES, err);
	*hop_bytes = 0.0;
	for (int64_t i = 0; !rc && i < n; i++) /* task order, as summarize() */
		*hop_bytes += x.hb[i];
	mctx_free(&x);
	return rc;
}

/* ---------------------------------------------------------------- check */

/* allowed[] as a PU bitmap (each id checked); NULL bitmap when no list. */
static int allowed_map(const topomatch_topology_t *t, const int64_t *allowed,
		       int64_t nallowed, unsigned char **map, char *err)
{
	*map = NULL;
	if (!allowed)
		return TOPOMATCH_OK;
	if (nallowed < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "negative allowed-PU count %lld",
			      (long long)nallowed);
	*map = tm_zalloc(t->npu, 1);
	if (!*map)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; k < nallowed; k++) {
		if (allowed[k] < 0 || allowed[k] >= t->npu) {
			free(*map);
			*map = NULL;
			return tm_err(err, TOPOMATCH_EINVAL,
				      "allowed PU %lld (entry %lld) is outside [0, %lld)",
				      (long long)allowed[k], (long long)k, (long long)t->npu);
		}
		(*map)[allowed[k]] = 1;
	}
	return TOPOMATCH_OK;
}

static int check_places(const topomatch_topology_t *t, int64_t n, const int64_t *pu,
			const unsigned char *map, char *err)
{
	int rc = check_pus(t, n, pu, err);
	for (int64_t i = 0; !rc && map && i < n; i++)
		if (!map[pu[i]])
			rc = tm_err(err, TOPOMATCH_EINVAL,
				    "task %lld is on PU %lld, which is not allowed", (long long)i,
				    (long long)pu[i]);
	return rc;
}

/* Name the first task that overfills a PU, with the PU's final count. */
static int check_oversub(const topomatch_topology_t *t, int64_t n, const int64_t *pu,
			 int oversub, char *err)
{
	int64_t *cnt = tm_zalloc(t->npu, sizeof(*cnt));
	int64_t bad = -1;
	if (!cnt)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < n; i++)
		if (++cnt[pu[i]] > oversub && bad < 0)
			bad = i;
	if (bad >= 0) {
		int64_t p = pu[bad];
		tm_err(err, TOPOMATCH_EINVAL,
		       "task %lld: PU %lld holds %lld tasks (at most %d allowed)", (long long)bad,
		       (long long)p, (long long)cnt[p], oversub);
	}
	free(cnt);
	return bad >= 0 ? TOPOMATCH_EINVAL : TOPOMATCH_OK;
}

int topomatch_mapping_check(const topomatch_topology_t *t, int64_t ntasks, const int64_t *pu,
			    const int64_t *allowed, int64_t nallowed, int oversub, char *err)
{
	unsigned char *map;
	if (!t || ntasks < 0 || (ntasks > 0 && !pu))
		return tm_err(err, TOPOMATCH_EINVAL, "mapping check: bad arguments");
	if (oversub < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "oversubscription must be >= 1 (got %d)",
			      oversub);
	int rc = allowed_map(t, allowed, nallowed, &map, err);
	if (!rc)
		rc = check_places(t, ntasks, pu, map, err);
	free(map);
	if (!rc)
		rc = check_oversub(t, ntasks, pu, oversub, err);
	return rc;
}

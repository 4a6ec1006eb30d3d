/*
 * cluster_abstract.c - a balanced tree over the node positions of a torus,
 * mesh or dragonfly cluster, on which `auto` maps a job onto free PUs.
 *
 * Why: on these networks the constrained mapping was Scotch on a
 * sub-architecture of the whole machine (TopoMatch §4.4, Fig. 3), whose
 * target Scotch builds again at every call: 60-150 ms on 1,024 nodes and
 * tens of seconds on a 10,240-node dragonfly (issue 18), far over a
 * scheduler's budget, and Scotch spreads a job over more nodes than it
 * needs (168 nodes for 64 nodes' worth of tasks on a 1,024-node
 * dragonfly).  TOPOMATCHCONST (TopoMatch §4.4, Alg. 2: TreeMatch's
 * bottom-up grouping with the free leaves as constraints) works on trees
 * in time close to linear in the free PUs, so the network is seen as the
 * hierarchy it is built from ("work on switches before PUs"):
 *   - dragonfly: groups, then the routers of a group (all-to-all local
 *     links), then the nodes of a router (Kim et al., ISCA 2008, §3);
 *   - torus and mesh: recursive bisection of the router grid, the longest
 *     dimension first, cut by its smallest prime factor, so that each
 *     subtree is a compact box (the partitioning order of recursive
 *     bisection mappers);
 *   - general graphs: the switches in breadth-first order from a
 *     pseudo-peripheral switch (Cuthill-McKee, the order GreedyMap's BFS
 *     takes, ICS 2017 §4.5), cut in halves: switches close in that order
 *     are close in the network, and each subtree is a run of them; a
 *     switch's nodes below it (positions left empty where switches have
 *     fewer nodes than the largest);
 * then the nodes of a router and the node's hardware levels.  Tasks that
 * talk most end up in the smallest common box or group.  The result is
 * measured on the real network (hop-bytes of the cluster topology) by
 * the callers; bench/plugin_scale compares it with the same mapper
 * without a budget and (--scotch) with the scotch mapper on the network.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct levels {
	int n;
	int arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];
	int dim[TOPOMATCH_MAX_LEVELS]; /* torus/mesh: the dimension a level cuts */
} levels_t;

static int push(levels_t *l, int arity, double cost, int dim)
{
	if (l->n >= TOPOMATCH_MAX_LEVELS)
		return -1;
	l->arity[l->n] = arity;
	l->cost[l->n] = cost;
	l->dim[l->n++] = dim;
	return 0;
}

static int smallest_factor(int x)
{
	for (int f = 2; f * f <= x; f++)
		if (x % f == 0)
			return f;
	return x;
}

/* Bisection levels of the router grid; the link cost of a level grows with
 * the extent of the box it cuts (only the abstraction's own metrics read
 * it: TOPOMATCHCONST groups by arity). */
static int grid_levels(const tm_cluster_desc_t *d, levels_t *l)
{
	int ext[TOPOMATCH_MAX_DIMS];
	memcpy(ext, d->dims, sizeof(ext));
	for (;;) {
		int k = 0;
		for (int j = 1; j < d->ndims; j++)
			if (ext[j] > ext[k])
				k = j;
		if (ext[k] <= 1)
			return 0;
		int f = smallest_factor(ext[k]);
		if (push(l, f, d->link_cost * (ext[k] / 4.0 > 0.5 ? ext[k] / 4.0 : 0.5), k))
			return -1;
		ext[k] /= f;
	}
}

/* The position of router `id` (first dimension fastest) among the leaves
 * of the bisection levels l[0 .. ncut-1]. */
static int64_t grid_position(const tm_cluster_desc_t *d, const levels_t *l, int ncut,
			     int64_t id)
{
	int co[TOPOMATCH_MAX_DIMS], ext[TOPOMATCH_MAX_DIMS];
	for (int k = 0; k < d->ndims; k++) {
		co[k] = (int)(id % d->dims[k]);
		id /= d->dims[k];
		ext[k] = d->dims[k];
	}
	int64_t pos = 0;
	for (int v = 0; v < ncut; v++) {
		int k = l->dim[v], sub = ext[k] / l->arity[v];
		pos = pos * l->arity[v] + co[k] / sub;
		co[k] %= sub;
		ext[k] = sub;
	}
	return pos;
}

/* For graph networks: each node's switch (from `attach`) and the
 * switches' rank in BFS order; the most nodes on one switch. */
typedef struct sworder {
	int64_t nsw, maxper;
	int64_t *node_sw;  /* node -> switch */
	int64_t *rank;     /* switch -> BFS rank */
	int64_t *within;   /* node -> index among its switch's nodes */
} sworder_t;

static void sworder_free(sworder_t *o)
{
	free(o->node_sw);
	free(o->rank);
	free(o->within);
}

/* BFS over the switch links from s, visiting in order[] from *n; the
 * last vertex reached is the farthest. */
static void sw_bfs(const int64_t *ptr, const int64_t *adj, int64_t s, int64_t *rank,
		   int64_t *order, int64_t *n)
{
	int64_t head = *n;
	rank[s] = (*n)++;
	order[rank[s]] = s;
	while (head < *n) {
		int64_t v = order[head++];
		for (int64_t e = ptr[v]; e < ptr[v + 1]; e++)
			if (rank[adj[e]] < 0) {
				rank[adj[e]] = *n;
				order[(*n)++] = adj[e];
			}
	}
}

static int graph_order(const topomatch_cluster_t *c, sworder_t *o)
{
	const tm_cluster_desc_t *d = &c->d;
	char name[TM_HOSTLIST_MAX_NAME + 1];
	int64_t nsw = tm_hostlist_count(d->switches), n = 0;
	int64_t *ptr = tm_zalloc(nsw + 1, sizeof(*ptr)), *adj = tm_alloc(2 * d->nlinks, sizeof(*adj));
	int64_t *order = tm_alloc(nsw, sizeof(*order)), *count = tm_zalloc(nsw, sizeof(*count));
	o->nsw = nsw;
	o->maxper = 0;
	o->node_sw = tm_alloc(d->nnodes, sizeof(*o->node_sw));
	o->rank = tm_alloc(nsw, sizeof(*o->rank));
	o->within = tm_alloc(d->nnodes, sizeof(*o->within));
	int rc = TOPOMATCH_ENOMEM;
	if (!ptr || !adj || !order || !count || !o->node_sw || !o->rank || !o->within)
		goto out;
	for (int64_t k = 0; k < d->nlinks; k++) {
		ptr[d->link[k].a + 1]++;
		ptr[d->link[k].b + 1]++;
	}
	for (int64_t v = 0; v < nsw; v++)
		ptr[v + 1] += ptr[v];
	for (int64_t k = 0; k < d->nlinks; k++) {
		adj[ptr[d->link[k].a] + count[d->link[k].a]++] = d->link[k].b;
		adj[ptr[d->link[k].b] + count[d->link[k].b]++] = d->link[k].a;
	}
	/* pseudo-peripheral start: the farthest switch from switch 0, per
	 * component (switches without nodes included: they carry paths) */
	for (int64_t v = 0; v < nsw; v++)
		o->rank[v] = -1;
	for (int64_t s = 0; s < nsw; s++) {
		if (o->rank[s] >= 0)
			continue;
		int64_t start = n;
		sw_bfs(ptr, adj, s, o->rank, order, &n);
		int64_t far = order[n - 1];
		for (int64_t k = start; k < n; k++)
			o->rank[order[k]] = -1;
		n = start;
		sw_bfs(ptr, adj, far, o->rank, order, &n);
	}
	for (int64_t v = 0; v < nsw; v++)
		count[v] = 0;
	for (int64_t k = 0; k < d->nattach; k++) {
		const tm_attach_desc_t *at = &d->attach[k];
		for (int64_t j = 0; j < tm_hostlist_count(at->nodes); j++) {
			tm_hostlist_name(at->nodes, j, name, sizeof(name));
			int64_t i = tm_hostlist_find(d->all, name);
			o->node_sw[i] = at->sw;
			o->within[i] = count[at->sw]++;
			if (count[at->sw] > o->maxper)
				o->maxper = count[at->sw];
		}
	}
	rc = TOPOMATCH_OK;
out:
	free(ptr);
	free(adj);
	free(order);
	free(count);
	return rc;
}

int tm_cluster_build_abstract(topomatch_cluster_t *c, char *err)
{
	const tm_cluster_desc_t *d = &c->d;
	levels_t l = { 0 };
	sworder_t so = { 0 };
	int ncut, bad = 0, npr = d->nodes_per_router;
	if (d->net == TM_NET_GRAPH) {
		if (graph_order(c, &so)) {
			sworder_free(&so);
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		}
		for (int64_t w = 1; w < so.nsw; w *= 2)
			bad |= push(&l, 2, 1, -1);
		npr = (int)so.maxper;
	} else if (d->net == TM_NET_DRAGONFLY) {
		bad |= push(&l, (int)d->df_groups, (d->global_cost + d->link_cost) / 2, -1);
		bad |= push(&l, (int)d->df_routers, d->link_cost / 2, -1);
	} else if (d->net == TM_NET_TORUS || d->net == TM_NET_MESH) {
		bad |= grid_levels(d, &l);
	} else {
		return TOPOMATCH_OK; /* trees map on themselves; switch trees kept as graphs: Scotch */
	}
	ncut = l.n;
	if (npr > 1)
		bad |= push(&l, npr, 1, -1);
	for (int k = 0; k < c->shape.nlevels; k++)
		bad |= push(&l, c->shape.arity[k], 1, -1);
	if (bad || l.n == 0) {
		sworder_free(&so);
		return TOPOMATCH_OK; /* too deep, or one PU: Scotch as before */
	}
	int64_t npos = 1;
	for (int k = 0; k < l.n - c->shape.nlevels; k++)
		npos *= l.arity[k];
	/* graphs: positions left empty (-1) where switches have fewer nodes */
	if (!(c->abs_of_slot = tm_alloc(c->nslots, sizeof(*c->abs_of_slot))) ||
	    !(c->slot_of_abs = tm_alloc(npos, sizeof(*c->slot_of_abs)))) {
		sworder_free(&so);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t p = 0; p < npos; p++)
		c->slot_of_abs[p] = -1;
	for (int64_t s = 0; s < c->nslots; s++) {
		int64_t router = s / npr, pos;
		if (d->net == TM_NET_GRAPH) /* slot s is node s */
			c->abs_of_slot[s] = so.rank[so.node_sw[s]] * npr + so.within[s];
		else {
			pos = d->net == TM_NET_DRAGONFLY ? router : grid_position(d, &l, ncut, router);
			c->abs_of_slot[s] = pos * npr + s % npr;
		}
		c->slot_of_abs[c->abs_of_slot[s]] = s;
	}
	sworder_free(&so);
	char why[TOPOMATCH_ERRLEN];
	int rc = topomatch_topology_tree(l.n, l.arity, l.cost, &c->abs, why);
	if (rc == TOPOMATCH_OK && topomatch_topology_npu(c->abs) != npos * c->slot_pus)
		rc = tm_err(why, TOPOMATCH_EINVAL, "%lld leaves for %lld PUs",
			    (long long)topomatch_topology_npu(c->abs),
			    (long long)(npos * c->slot_pus));
	if (rc)
		return tm_err(err, rc, "internal error: the network's tree: %s", why);
	return TOPOMATCH_OK;
}

static int64_t to_abs(const topomatch_cluster_t *c, int64_t tpu)
{
	return c->abs_of_slot[tpu / c->slot_pus] * c->slot_pus + tpu % c->slot_pus;
}

static int64_t from_abs(const topomatch_cluster_t *c, int64_t apu)
{
	return c->slot_of_abs[apu / c->slot_pus] * c->slot_pus + apu % c->slot_pus;
}

/*
 * TOPOMATCHCONST on the tree, kept when it beats the natural placement
 * (task i on the i-th allowed PU, Slurm's and mpirun's default) by the
 * tree's hop-bytes, as `auto` keeps only a mapping that beats it
 * (TopoMatch Alg. 1 starts from round-robin, §5.5).  o->allowed holds
 * topology PUs; pu[] receives topology PUs.
 */
int tm_cluster_map_abstract(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			    const topomatch_map_opts_t *o, int64_t *pu,
			    topomatch_map_result_t *res, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), m = o->nallowed;
	int64_t *allowed = tm_alloc(m, sizeof(*allowed)), *rr = tm_alloc(n, sizeof(*rr));
	int rc = allowed && rr ? TOPOMATCH_OK : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	topomatch_map_opts_t t = *o;
	double hc, hr;
	topomatch_map_result_t own;
	if (!res)
		res = &own;
	for (int64_t k = 0; rc == TOPOMATCH_OK && k < m; k++)
		allowed[k] = to_abs(c, o->allowed[k]);
	if (rc == TOPOMATCH_OK) {
		t.allowed = allowed;
		t.mapper = "topomatch-const";
		rc = topomatch_map(a, c->abs, &t, pu, res, err);
	}
	if (rc == TOPOMATCH_OK && !res->fell_back && m >= n) {
		for (int64_t i = 0; i < n; i++)
			rr[i] = allowed[i];
		rc = topomatch_metrics_hop_bytes(a, c->abs, pu, &hc, err);
		if (rc == TOPOMATCH_OK)
			rc = topomatch_metrics_hop_bytes(a, c->abs, rr, &hr, err);
		if (rc == TOPOMATCH_OK && hr <= hc) {
			memcpy(pu, rr, (size_t)n * sizeof(*pu));
			snprintf(res->mapper, sizeof(res->mapper), "round-robin");
		}
	}
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < n; i++)
		pu[i] = from_abs(c, pu[i]);
	free(allowed);
	free(rr);
	return rc;
}

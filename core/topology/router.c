/*
 * router.c - deterministic routes between PUs and the directed link ids
 * they use, for the link-load metric (TopoMapping Eq. 4-5).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Link ids (every direction of a full-duplex link has its own id):
 *  - tree: non-root nodes are numbered depth by depth (depth 1 first),
 *    lexicographically inside a depth; node n has the up link 2n (to its
 *    parent) and the down link 2n+1 (from its parent).  Routes go up from
 *    the source to the lowest common ancestor, then down.
 *  - torus/mesh: router v has, in dimension k, the link G + 2(v*ndims + k)
 *    to its + neighbour and G + 2(v*ndims + k) + 1 to its - neighbour
 *    (mesh borders leave some ids unused).  Routes correct dimension 0
 *    first, then 1, ..., each the shorter way round where the dimension
 *    wraps; an exact half-way on an even wrapping dimension goes the +
 *    way.  Without a local tree G = 0 and a router is a PU; with one, its
 *    links come first and are numbered as a tree's, the non-root local
 *    nodes of all routers together (G = their number x 2), and a route
 *    goes up from the source PU to its router, across the grid, and down
 *    to the destination (or up to the lowest common ancestor and down,
 *    under one router).
 *  - hypercube: node v has the link v*d + b to v ^ (1 << b); routes fix the
 *    differing bits from the lowest.
 *  - graph: undirected link k is 2k from a[k] to b[k] and 2k+1 back.
 *    Routes follow the BFS tree of the source, which visits neighbours in
 *    increasing vertex order (the first discovery sets the parent).
 */
#include "config.h"
#include "topology_internal.h"

#include <stdlib.h>

struct topomatch_router {
	const topomatch_topology_t *t;
	int64_t src; /* source PU, -1 when none is selected */
	tm_bfs_t bfs; /* graphs only, over core indices (tm_core_bfs_run), kept
		       * for the next source on it */
};

/* The lowest common ancestor of a and b in their hanging tree. */
static int64_t hang_lca(const topomatch_topology_t *t, int64_t a, int64_t b)
{
	while (t->hang_depth[a] > t->hang_depth[b])
		a = t->hang_parent[a];
	while (t->hang_depth[b] > t->hang_depth[a])
		b = t->hang_parent[b];
	while (a != b) {
		a = t->hang_parent[a];
		b = t->hang_parent[b];
	}
	return a;
}

/* The BFS of the source's attachment vertex, run when first needed: hop
 * counts come from the core's table when the topology has one. */
static void graph_bfs(topomatch_router_t *r)
{
	const topomatch_topology_t *t = r->t;
	int64_t c = t->core_id[t->hang_att[t->pu_vert[r->src]]];
	if (r->bfs.src != c)
		tm_core_bfs_run(&r->bfs, t, c);
}

/* Hops (and *cost) from the source to PU q on a graph; -1 unreachable. */
static int64_t graph_hops(topomatch_router_t *r, int64_t q, double *cost)
{
	const topomatch_topology_t *t = r->t;
	int64_t s = t->pu_vert[r->src], w = t->pu_vert[q];
	if (t->hang_att[s] == t->hang_att[w]) {
		int64_t l = hang_lca(t, s, w);
		if (cost)
			*cost = t->hang_cost[s] + t->hang_cost[w] - 2 * t->hang_cost[l];
		return t->hang_depth[s] + t->hang_depth[w] - 2 * t->hang_depth[l];
	}
	int64_t c = t->core_id[t->hang_att[w]];
	if (!cost && t->core_hops) {
		uint8_t h = t->core_hops[t->core_id[t->hang_att[s]] * t->ncore + c];
		return h == TM_CORE_HOPS_NONE ? -1 : t->hang_depth[s] + h + t->hang_depth[w];
	}
	graph_bfs(r);
	if (r->bfs.dist[c] < 0)
		return -1;
	if (cost)
		*cost = t->hang_cost[s] + r->bfs.cost[c] + t->hang_cost[w];
	return t->hang_depth[s] + r->bfs.dist[c] + t->hang_depth[w];
}

/* ---------------------------------------------------------------- router */

int topomatch_router_create(const topomatch_topology_t *t, topomatch_router_t **out,
			    char *err)
{
	*out = NULL;
	if (!t)
		return tm_err(err, TOPOMATCH_EINVAL, "router: no topology");
	topomatch_router_t *r = calloc(1, sizeof(*r));
	if (!r)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	r->t = t;
	r->src = -1;
	r->bfs.src = -1;
	if (t->kind == TOPOMATCH_TOPO_GRAPH && tm_bfs_init(&r->bfs, t->ncore)) {
		free(r);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for a %lld-vertex router",
			      (long long)t->ncore);
	}
	*out = r;
	return TOPOMATCH_OK;
}

void topomatch_router_destroy(topomatch_router_t *r)
{
	if (!r)
		return;
	tm_bfs_free(&r->bfs);
	free(r);
}

int64_t topomatch_router_nlinks(const topomatch_router_t *r)
{
	return r->t->nlinks;
}

/* An out-of-range PU deselects the source: queries then return -1. */
void topomatch_router_source(topomatch_router_t *r, int64_t p)
{
	if (p < 0 || p >= r->t->npu) {
		r->src = -1;
		return;
	}
	r->src = p;
}

static bool query_ok(const topomatch_router_t *r, int64_t q)
{
	return r->src >= 0 && q >= 0 && q < r->t->npu;
}

int64_t topomatch_router_hops(topomatch_router_t *r, int64_t q)
{
	if (!query_ok(r, q))
		return -1;
	if (r->t->kind == TOPOMATCH_TOPO_GRAPH)
		return graph_hops(r, q, NULL);
	return topomatch_topology_hops(r->t, r->src, q);
}

double topomatch_router_cost(topomatch_router_t *r, int64_t q)
{
	if (!query_ok(r, q))
		return -1.0;
	if (r->t->kind == TOPOMATCH_TOPO_GRAPH) {
		double c;
		return graph_hops(r, q, &c) < 0 ? -1.0 : c;
	}
	return topomatch_topology_cost(r->t, r->src, q);
}

/* ---------------------------------------------------------------- routes */

/* Record link id at position n when it fits; returns n + 1. */
static int64_t emit(int64_t *links, int64_t cap, int64_t n, int64_t id)
{
	if (n < cap)
		links[n] = id;
	return n + 1;
}

static int64_t tree_route(const topomatch_topology_t *t, int64_t p, int64_t q, int64_t *links,
			  int64_t cap)
{
	int lca = tm_tree_lca(t, p, q);
	int64_t n = 0;
	for (int k = t->nlevels; k > lca; k--)
		n = emit(links, cap, n, 2 * tm_tree_node(t, k, p));
	for (int k = lca + 1; k <= t->nlevels; k++)
		n = emit(links, cap, n, 2 * tm_tree_node(t, k, q) + 1);
	return n;
}

/* Steps (signed) to go from coordinate a to b in dimension k. */
static int64_t grid_steps(const topomatch_topology_t *t, int k, int64_t a, int64_t b)
{
	int64_t dx = b - a, x = t->dims[k];
	if (!t->wrap[k])
		return dx;
	if (dx < 0)
		dx += x;
	/* dx in [0, x): forward, unless going back is strictly shorter */
	return (x - dx < dx) ? dx - x : dx;
}

/* First grid link id: the local tree's links come before (see the top). */
static int64_t grid_link0(const topomatch_topology_t *t)
{
	return t->nlevels > 0 ? 2 * (t->node_off[t->nlevels] + t->npu) : 0;
}

/* Router to router in dimension order, from n links emitted already. */
static int64_t grid_route(const topomatch_topology_t *t, int64_t p, int64_t q, int64_t *links,
			  int64_t cap, int64_t n)
{
	int64_t v = p / t->lpus, g = grid_link0(t);
	for (int k = 0; k < t->ndims; k++) {
		int64_t x = t->dims[k], s = t->stride[k] / t->lpus, c = tm_grid_coord(t, k, p);
		int64_t steps = grid_steps(t, k, c, tm_grid_coord(t, k, q));
		int64_t dir = steps < 0 ? 1 : 0;
		for (int64_t i = 0; i < llabs(steps); i++) {
			n = emit(links, cap, n, g + 2 * (v * t->ndims + k) + dir);
			int64_t nc = dir ? (c + x - 1) % x : (c + 1) % x;
			v += (nc - c) * s;
			c = nc;
		}
	}
	return n;
}

/* Up the local tree from p to depth `top`, across, down to q. */
static int64_t grid_tree_route(const topomatch_topology_t *t, int64_t p, int64_t q,
			       int64_t *links, int64_t cap)
{
	bool same = p / t->lpus == q / t->lpus;
	int top = same ? tm_tree_lca(t, p, q) : 0;
	int64_t n = 0;
	for (int k = t->nlevels; k > top; k--)
		n = emit(links, cap, n, 2 * tm_tree_node(t, k, p));
	if (!same)
		n = grid_route(t, p, q, links, cap, n);
	for (int k = top + 1; k <= t->nlevels; k++)
		n = emit(links, cap, n, 2 * tm_tree_node(t, k, q) + 1);
	return n;
}

static int64_t hcub_route(const topomatch_topology_t *t, int64_t p, int64_t q, int64_t *links,
			  int64_t cap)
{
	int64_t n = 0, v = p;
	for (int b = 0; b < t->ndims; b++) {
		if (((v ^ q) >> b) & 1) {
			n = emit(links, cap, n, v * t->ndims + b);
			v ^= INT64_C(1) << b;
		}
	}
	return n;
}

/* The link core vertex p's BFS reached its child c by: the first of p's
 * links to c (tm_core_bfs_run takes a vertex's links in order). */
static int64_t child_link(const topomatch_topology_t *t, int64_t p, int64_t c)
{
	int64_t v = t->core_vert[p], w = t->core_vert[c];
	for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
		if (t->adj[e].nbr == w)
			return t->adj[e].link;
	return -1; /* not reached: c's parent links to it */
}

/* The core's part of a route, from core vertex cs to cw, into the
 * links[] before index i, backwards (those below cap). */
static void core_route(topomatch_router_t *r, int64_t cs, int64_t cw, int64_t *links,
		       int64_t cap, int64_t i)
{
	const topomatch_topology_t *t = r->t;
	if (t->core_parent) { /* the source's BFS tree, kept */
		const uint16_t *par = t->core_parent + cs * t->ncore;
		for (int64_t c = cw; c != cs; c = par[c])
			if (--i < cap)
				links[i] = child_link(t, par[c], c);
		return;
	}
	graph_bfs(r);
	for (int64_t c = cw; c != r->bfs.src; c = r->bfs.parent[c])
		if (--i < cap)
			links[i] = r->bfs.plink[c];
}

/* Up from s's vertex to a (an ancestor or the attachment vertex), across
 * the core, down to q's vertex: links[0 .. n-1], those below cap. */
static int64_t graph_route(topomatch_router_t *r, int64_t q, int64_t *links, int64_t cap)
{
	const topomatch_topology_t *t = r->t;
	int64_t s = t->pu_vert[r->src], w = t->pu_vert[q], top;
	int64_t n = graph_hops(r, q, NULL), k = 0, i = n;
	if (n < 0)
		return -1;
	top = t->hang_att[s] == t->hang_att[w] ? hang_lca(t, s, w) : t->hang_att[s];
	for (int64_t v = s; v != top; v = t->hang_parent[v], k++)
		if (k < cap)
			links[k] = t->hang_up[v];
	for (int64_t v = w; v != t->hang_att[w] && v != top; v = t->hang_parent[v])
		if (--i < cap)
			links[i] = t->hang_down[v];
	if (t->hang_att[s] != t->hang_att[w])
		core_route(r, t->core_id[t->hang_att[s]], t->core_id[t->hang_att[w]], links, cap, i);
	return n;
}

/* ------------------------------------------------- links at a switch */

/* The router of PU p and its neighbours in every dimension: per
 * neighbour, the link to it and the link back. */
static int64_t grid_attach(const topomatch_topology_t *t, int64_t p, int64_t *links,
			   int64_t cap)
{
	int64_t v = p / t->lpus, g = grid_link0(t), n = 0;
	for (int k = 0; k < t->ndims; k++) {
		int64_t x = t->dims[k], s = t->stride[k] / t->lpus, c = tm_grid_coord(t, k, p);
		for (int dir = 0; dir < 2 && x > 1; dir++) { /* dir 0: +, 1: - */
			int64_t nc = dir ? c - 1 : c + 1;
			if (!t->wrap[k] && (nc < 0 || nc >= x))
				continue; /* a mesh's border */
			nc = (nc + x) % x;
			int64_t u = v + (nc - c) * s;
			n = emit(links, cap, n, g + 2 * (v * t->ndims + k) + dir);
			n = emit(links, cap, n, g + 2 * (u * t->ndims + k) + !dir);
		}
	}
	return n;
}

static int64_t hcub_attach(const topomatch_topology_t *t, int64_t p, int64_t *links, int64_t cap)
{
	int64_t n = 0;
	for (int b = 0; b < t->ndims; b++) {
		n = emit(links, cap, n, p * t->ndims + b);
		n = emit(links, cap, n, (p ^ (INT64_C(1) << b)) * t->ndims + b);
	}
	return n;
}

/* The core vertex p's tree hangs from and its links to other core
 * vertices (not to the trees hanging from it). */
static int64_t graph_attach(const topomatch_topology_t *t, int64_t p, int64_t *links,
			    int64_t cap)
{
	int64_t a = t->hang_att[t->pu_vert[p]], n = 0;
	for (int64_t e = t->adj_ptr[a]; e < t->adj_ptr[a + 1]; e++)
		if (t->core_id[t->adj[e].nbr] >= 0) {
			n = emit(links, cap, n, t->adj[e].link);
			n = emit(links, cap, n, t->adj[e].link ^ 1);
		}
	return n;
}

int64_t topomatch_router_attach_links(const topomatch_router_t *r, int64_t p, int64_t *links,
				      int64_t cap)
{
	const topomatch_topology_t *t = r ? r->t : NULL;
	if (!t || p < 0 || p >= t->npu)
		return -1;
	if (!links || cap < 0)
		cap = 0;
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return 0;
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return grid_attach(t, p, links, cap);
	case TOPOMATCH_TOPO_HCUB:
		return hcub_attach(t, p, links, cap);
	default:
		return graph_attach(t, p, links, cap);
	}
}

int64_t topomatch_router_route(topomatch_router_t *r, int64_t q, int64_t *links, int64_t cap)
{
	const topomatch_topology_t *t = r->t;
	if (!query_ok(r, q))
		return -1;
	if (!links || cap < 0)
		cap = 0;
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return tree_route(t, r->src, q, links, cap);
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return grid_tree_route(t, r->src, q, links, cap);
	case TOPOMATCH_TOPO_HCUB:
		return hcub_route(t, r->src, q, links, cap);
	default:
		return graph_route(r, q, links, cap);
	}
}

/*
 * pu_nodes.c - allowed PUs grouped into nodes, distances between them and
 * walks in rings of growing distance (see pu_nodes.h).
 *
 * Memory is O(m + nodes) (plus, on graphs, O(vertices) per walker and a
 * table of at most TM_NODES_TABLE_MAX^2 hops): nothing is sized by the
 * whole machine's PU count, and no ring walk needs a visited array except
 * on general graphs.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "pu_nodes.h"

#include <stdlib.h>
#include <string.h>

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for the nodes of the allowed PUs");
}

/* Depth of the nodes of a tree: the parents of the PUs. */
static int tree_node_depth(const topomatch_topology_t *t)
{
	return t->nlevels > 0 ? t->nlevels - 1 : 0;
}

static int64_t node_key(const topomatch_topology_t *t, int64_t p)
{
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return p / t->below[tree_node_depth(t)];
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return p / t->lpus;
	default:
		return p;
	}
}

/* Keys increase with the PU id on every kind, so sorted PUs give sorted,
 * contiguous nodes. */
static int group_nodes(tm_nodes_t *nd)
{
	int64_t n = 0;
	for (int64_t j = 0; j < nd->m; j++)
		if (j == 0 || node_key(nd->t, nd->pus[j]) != node_key(nd->t, nd->pus[j - 1]))
			n++;
	nd->ptr = tm_alloc(n + 1, sizeof(*nd->ptr));
	nd->key = tm_alloc(n, sizeof(*nd->key));
	nd->node = tm_alloc(nd->m, sizeof(*nd->node));
	if (!nd->ptr || !nd->key || !nd->node)
		return TOPOMATCH_ENOMEM;
	nd->n = 0;
	for (int64_t j = 0; j < nd->m; j++) {
		int64_t k = node_key(nd->t, nd->pus[j]);
		if (j == 0 || k != nd->key[nd->n - 1]) {
			nd->ptr[nd->n] = j;
			nd->key[nd->n++] = k;
		}
		nd->node[j] = nd->n - 1;
	}
	nd->ptr[nd->n] = nd->m;
	nd->maxcap = 0;
	for (int64_t x = 0; x < nd->n; x++)
		if (nd->ptr[x + 1] - nd->ptr[x] > nd->maxcap)
			nd->maxcap = nd->ptr[x + 1] - nd->ptr[x];
	return TOPOMATCH_OK;
}

/* Graphs: hops between every pair of allowed PUs, when it is small. */
static int graph_table(tm_nodes_t *nd)
{
	const topomatch_topology_t *t = nd->t;
	tm_bfs_t b;

	if (t->kind != TOPOMATCH_TOPO_GRAPH || nd->m > TM_NODES_TABLE_MAX)
		return TOPOMATCH_OK;
	if (tm_bfs_init(&b, t->nvert) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	nd->tab = tm_alloc(nd->m * nd->m, sizeof(*nd->tab));
	for (int64_t i = 0; nd->tab && i < nd->m; i++) {
		tm_bfs_run(&b, t, t->pu_vert[nd->pus[i]]);
		for (int64_t j = 0; j < nd->m; j++) {
			int64_t d = b.dist[t->pu_vert[nd->pus[j]]];
			if (d < 0 || d > UINT16_MAX) { /* too far for the table: BFS instead */
				free(nd->tab);
				nd->tab = NULL;
				break;
			}
			nd->tab[i * nd->m + j] = (uint16_t)d;
		}
	}
	tm_bfs_free(&b);
	return TOPOMATCH_OK;
}

int tm_nodes_build(tm_nodes_t *nd, const topomatch_topology_t *t, const int64_t *allowed,
		   int64_t m, char *err)
{
	memset(nd, 0, sizeof(*nd));
	nd->t = t;
	nd->m = m;
	if (m < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "no allowed PU");
	nd->pus = tm_alloc(m, sizeof(*nd->pus));
	if (!nd->pus)
		return oom(err);
	memcpy(nd->pus, allowed, (size_t)m * sizeof(*nd->pus));
	qsort(nd->pus, (size_t)m, sizeof(*nd->pus), tm_cmp_i64);
	if (group_nodes(nd) != TOPOMATCH_OK || graph_table(nd) != TOPOMATCH_OK) {
		tm_nodes_free(nd);
		return oom(err);
	}
	return TOPOMATCH_OK;
}

void tm_nodes_free(tm_nodes_t *nd)
{
	free(nd->pus);
	free(nd->ptr);
	free(nd->key);
	free(nd->node);
	free(nd->tab);
	memset(nd, 0, sizeof(*nd));
}

/* First node whose key is >= k. */
static int64_t lower_bound(const tm_nodes_t *nd, int64_t k)
{
	int64_t lo = 0, hi = nd->n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (nd->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t tm_nodes_find(const tm_nodes_t *nd, int64_t key)
{
	int64_t x = lower_bound(nd, key);
	return x < nd->n && nd->key[x] == key ? x : -1;
}

/* ---------------------------------------------------------------- distances */

int tm_near_init(tm_near_t *x, const tm_nodes_t *nd, char *err)
{
	const topomatch_topology_t *t = nd->t;

	memset(x, 0, sizeof(*x));
	x->nd = nd;
	if (t->kind != TOPOMATCH_TOPO_GRAPH)
		return TOPOMATCH_OK;
	x->dist = tm_alloc(t->nvert, sizeof(*x->dist));
	x->seen = tm_zalloc(t->nvert, sizeof(*x->seen));
	x->queue = tm_alloc(t->nvert, sizeof(*x->queue));
	if (!x->dist || !x->seen || !x->queue) {
		tm_near_free(x);
		return oom(err);
	}
	if (!nd->tab && topomatch_router_create(t, &x->r, err) != TOPOMATCH_OK) {
		tm_near_free(x);
		return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

void tm_near_free(tm_near_t *x)
{
	topomatch_router_destroy(x->r);
	free(x->dist);
	free(x->seen);
	free(x->queue);
	memset(x, 0, sizeof(*x));
}

int64_t tm_near_hops(tm_near_t *x, int64_t i, int64_t j)
{
	const tm_nodes_t *nd = x->nd;

	if (nd->tab)
		return nd->tab[i * nd->m + j];
	if (x->r) {
		topomatch_router_source(x->r, nd->pus[i]); /* BFS only when it changes */
		return topomatch_router_hops(x->r, nd->pus[j]);
	}
	return topomatch_topology_hops(nd->t, nd->pus[i], nd->pus[j]);
}

int64_t tm_near_dist(tm_near_t *x, int64_t a, int64_t b)
{
	const tm_nodes_t *nd = x->nd;
	const topomatch_topology_t *t = nd->t;

	if (a == b)
		return 0;
	int64_t h = tm_near_hops(x, nd->ptr[a], nd->ptr[b]);
	if (t->kind == TOPOMATCH_TOPO_TORUS || t->kind == TOPOMATCH_TOPO_MESH)
		h -= 2 * (int64_t)t->nlevels; /* up to the router and down again */
	return h;
}

/* ---------------------------------------------------------------- walks */

typedef struct walk {
	tm_near_t *x;
	tm_near_fn fn;
	void *arg;
	int64_t seen; /* nodes visited so far */
	bool stop;
} walk_t;

static void visit(walk_t *w, int64_t node, int64_t dist)
{
	if (w->stop || node < 0)
		return;
	w->seen++;
	if (!w->fn(w->arg, node, dist) || w->seen >= w->x->nd->n)
		w->stop = true;
}

/* Trees: the nodes under the centre's ancestor at depth j, for j going
 * up; each ring adds the ones left and right of the previous range. */
static void walk_tree(walk_t *w, int64_t centre)
{
	const tm_nodes_t *nd = w->x->nd;
	const topomatch_topology_t *t = nd->t;
	int l = tree_node_depth(t);
	int64_t plo = centre, phi = centre + 1;

	visit(w, centre, 0);
	for (int j = l - 1; j >= 0 && !w->stop; j--) {
		int64_t span = t->below[j] / t->below[l];
		int64_t k0 = nd->key[centre] / span * span;
		int64_t lo = lower_bound(nd, k0), hi = lower_bound(nd, k0 + span);
		int64_t dist = 2 * (int64_t)(t->nlevels - j);
		for (int64_t y = lo; y < plo && !w->stop; y++)
			visit(w, y, dist);
		for (int64_t y = phi; y < hi && !w->stop; y++)
			visit(w, y, dist);
		plo = lo;
		phi = hi;
	}
}

/* Grids: Manhattan shells of routers around the centre. */
typedef struct gshell {
	walk_t *w;
	const topomatch_topology_t *t;
	int c[TOPOMATCH_MAX_DIMS];      /* centre coordinates */
	bool wrap[TOPOMATCH_MAX_DIMS];
	int64_t reach[TOPOMATCH_MAX_DIMS + 1]; /* farthest offset of dims k.. */
	int64_t rstride[TOPOMATCH_MAX_DIMS];   /* router id strides */
	int64_t dist;
	bool positive; /* this pass: offsets >= 0 only, else some offset < 0 */
} gshell_t;

/* Coordinate of offset d in dimension k, or -1 when outside / counted
 * on the other side already (wrapping: offsets in (-dims/2, dims/2]). */
static int64_t shell_coord(const gshell_t *g, int k, int64_t d)
{
	int64_t n = g->t->dims[k];
	if (g->wrap[k]) {
		if (d > n / 2 || d <= -((n + 1) / 2))
			return -1;
		return ((g->c[k] + d) % n + n) % n;
	}
	int64_t y = g->c[k] + d;
	return y >= 0 && y < n ? y : -1;
}

static int64_t dim_reach(const gshell_t *g, int k)
{
	int64_t n = g->t->dims[k];
	if (g->wrap[k])
		return n / 2;
	return g->c[k] > n - 1 - g->c[k] ? g->c[k] : n - 1 - g->c[k];
}

static void shell_visit(gshell_t *g, int k, int64_t d, int64_t router)
{
	int64_t y = shell_coord(g, k, d);
	if (y >= 0)
		visit(g->w, tm_nodes_find(g->w->x->nd, router + y * g->rstride[k]), g->dist);
}

/* Routers at offsets summing to rem in dimensions k.. (the last one
 * takes exactly what is left); neg: an earlier offset was negative.  The
 * positive pass takes offsets >= 0 only, the other pass the offsets with
 * at least one negative component. */
static void shell_rec(gshell_t *g, int k, int64_t rem, int64_t router, bool neg)
{
	int64_t lim = g->reach[k] - g->reach[k + 1];
	if (k == g->t->ndims - 1) {
		if (rem > lim)
			return;
		if (g->positive || neg)
			shell_visit(g, k, rem, router);
		if (!g->positive && rem > 0)
			shell_visit(g, k, -rem, router);
		return;
	}
	if (rem < lim)
		lim = rem;
	/* offsets 0, 1, 2, ... (then -1, -2, ... in the other pass): a shell
	 * starts with the routers that spread over the most dimensions */
	for (int64_t i = 0; i <= 2 * lim && !g->w->stop; i++) {
		int64_t d = i <= lim ? i : lim - i;
		if (g->positive && d < 0)
			break;
		int64_t left = rem - (d < 0 ? -d : d), y = shell_coord(g, k, d);
		if (left <= g->reach[k + 1] && y >= 0)
			shell_rec(g, k + 1, left, router + y * g->rstride[k], neg || d < 0);
	}
}

static void walk_grid(walk_t *w, int64_t centre, bool wrap)
{
	const topomatch_topology_t *t = w->x->nd->t;
	gshell_t g = { .w = w, .t = t };
	int64_t router = w->x->nd->key[centre], s = 1;

	for (int k = 0; k < t->ndims; k++) {
		g.rstride[k] = s;
		g.c[k] = (int)(router / s % t->dims[k]);
		g.wrap[k] = wrap && t->wrap[k];
		s *= t->dims[k];
	}
	g.reach[t->ndims] = 0;
	for (int k = t->ndims - 1; k >= 0; k--)
		g.reach[k] = g.reach[k + 1] + dim_reach(&g, k);
	for (g.dist = 0; g.dist <= g.reach[0] && !w->stop; g.dist++) {
		g.positive = true; /* the positive orthant first, then the rest */
		shell_rec(&g, 0, g.dist, 0, false);
		g.positive = false;
		if (g.dist > 0)
			shell_rec(&g, 0, g.dist, 0, false);
	}
}

/* Hypercubes: vertices at Hamming distance r, masks in increasing order
 * (Gosper's hack). */
static void walk_hcub(walk_t *w, int64_t centre)
{
	int d = w->x->nd->t->ndims;
	uint64_t c = (uint64_t)w->x->nd->key[centre], end = UINT64_C(1) << d;

	for (int r = 0; r <= d && !w->stop; r++) {
		uint64_t mask = (UINT64_C(1) << r) - 1;
		while (mask < end && !w->stop) {
			visit(w, tm_nodes_find(w->x->nd, (int64_t)(c ^ mask)), r);
			if (mask == 0)
				break;
			uint64_t low = mask & -mask, rr = mask + low;
			mask = (((rr ^ mask) >> 2) / low) | rr;
		}
	}
}

/* Graphs: BFS layers from the centre's vertex, neighbours in vertex
 * order; a new epoch forgets the previous walk in O(1). */
static void walk_graph(walk_t *w, int64_t centre)
{
	const tm_nodes_t *nd = w->x->nd;
	const topomatch_topology_t *t = nd->t;
	int64_t *dist = w->x->dist, *q = w->x->queue, head = 0, tail = 0;
	uint64_t *seen = w->x->seen, ep = ++w->x->epoch;

	q[tail++] = t->pu_vert[nd->pus[nd->ptr[centre]]];
	dist[q[0]] = 0;
	seen[q[0]] = ep;
	while (head < tail && !w->stop) {
		int64_t v = q[head++];
		if (t->vert_pu[v] >= 0)
			visit(w, tm_nodes_find(nd, t->vert_pu[v]), dist[v]);
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++) {
			int64_t u = t->adj[e].nbr;
			if (seen[u] != ep) {
				seen[u] = ep;
				dist[u] = dist[v] + 1;
				q[tail++] = u;
			}
		}
	}
}

void tm_near_walk(tm_near_t *x, int64_t centre, bool wrap, tm_near_fn fn, void *arg)
{
	walk_t w = { .x = x, .fn = fn, .arg = arg };

	switch (x->nd->t->kind) {
	case TOPOMATCH_TOPO_TREE:
		walk_tree(&w, centre);
		break;
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		walk_grid(&w, centre, wrap);
		break;
	case TOPOMATCH_TOPO_HCUB:
		walk_hcub(&w, centre);
		break;
	default:
		walk_graph(&w, centre);
		break;
	}
}

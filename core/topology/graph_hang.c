/*
 * graph_hang.c - the trees that hang off a graph topology's core.
 *
 * In a cluster graph most vertices are tree-shaped appendages: a node's
 * PUs, cores and sockets below the node, the node below its switch.  A
 * route from a PU climbs its tree to the vertex the tree hangs from, runs
 * through the core, and climbs down.  Pruning leaves repeatedly leaves the
 * core; each pruned vertex keeps the neighbour it hung from.  A BFS from a
 * PU then only needs the core (router.c): on a 10,240-node dragonfly 1,280
 * routers instead of 200,000 vertices, which took 2.7 s to measure the
 * hop-bytes of one 1,024-task job.
 *
 * The routes stay those of a BFS over the whole graph (neighbours in
 * increasing vertex order, the lowest-numbered parallel link): core
 * vertices are only discovered from core vertices, in the same order as a
 * BFS of the core alone from the source's attachment vertex, and a path
 * inside one hanging tree is the tree's only simple path.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "topology_internal.h"

#include <stdlib.h>
#include <string.h>

/* The first adjacency entry of v towards u (the lowest-numbered link). */
static const tm_adj_t *entry(const topomatch_topology_t *t, int64_t v, int64_t u)
{
	for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
		if (t->adj[e].nbr == u)
			return &t->adj[e];
	return NULL;
}

/* Distinct neighbours of v not yet removed. */
static int64_t live_degree(const topomatch_topology_t *t, int64_t v, const unsigned char *gone)
{
	int64_t d = 0;
	for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
		if (!gone[t->adj[e].nbr] && (e == t->adj_ptr[v] || t->adj[e - 1].nbr != t->adj[e].nbr))
			d++;
	return d;
}

static void prune(const topomatch_topology_t *t, int64_t *deg, unsigned char *gone,
		  int64_t *order, int64_t *norder)
{
	int64_t head = 0, tail = 0, n = t->nvert;
	for (int64_t v = 0; v < n; v++)
		if ((deg[v] = live_degree(t, v, gone)) <= 1)
			order[tail++] = v;
	while (head < tail) {
		int64_t v = order[head++];
		gone[v] = 1;
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++) {
			int64_t u = t->adj[e].nbr;
			if (gone[u] || (e > t->adj_ptr[v] && t->adj[e - 1].nbr == u))
				continue;
			if (--deg[u] == 1)
				order[tail++] = u;
		}
	}
	*norder = tail;
}

void tm_graph_hang_free(topomatch_topology_t *t)
{
	free(t->core_id);
	free(t->core_vert);
	free(t->hang_att);
	free(t->hang_parent);
	free(t->hang_up);
	free(t->hang_down);
	free(t->hang_depth);
	free(t->hang_cost);
	free(t->core_hops);
	free(t->core_parent);
	t->core_hops = NULL;
	t->core_parent = NULL;
	t->core_id = t->core_vert = t->hang_att = t->hang_parent = NULL;
	t->hang_up = t->hang_down = t->hang_depth = NULL;
	t->hang_cost = NULL;
}

int tm_graph_hang_build(topomatch_topology_t *t)
{
	int64_t n = t->nvert, norder = 0;
	int64_t *deg = tm_alloc(n, sizeof(*deg)), *order = tm_alloc(n, sizeof(*order));
	unsigned char *gone = tm_zalloc(n, 1);
	t->core_id = tm_alloc(n, sizeof(*t->core_id));
	t->hang_att = tm_alloc(n, sizeof(*t->hang_att));
	t->hang_parent = tm_alloc(n, sizeof(*t->hang_parent));
	t->hang_up = tm_alloc(n, sizeof(*t->hang_up));
	t->hang_down = tm_alloc(n, sizeof(*t->hang_down));
	t->hang_depth = tm_alloc(n, sizeof(*t->hang_depth));
	t->hang_cost = tm_alloc(n, sizeof(*t->hang_cost));
	int rc = TOPOMATCH_ENOMEM;
	if (!deg || !order || !gone || !t->core_id || !t->hang_att || !t->hang_parent ||
	    !t->hang_up || !t->hang_down || !t->hang_depth || !t->hang_cost)
		goto out;
	prune(t, deg, gone, order, &norder);
	/* a pruned vertex hangs from its one neighbour still there when it
	 * went; with none (the last vertex of a tree-shaped component) it is
	 * the core of its component */
	for (int64_t v = 0; v < n; v++)
		t->hang_parent[v] = -1;
	for (int64_t k = 0; k < norder; k++)
		gone[order[k]] = 0;
	for (int64_t k = 0; k < norder; k++) {
		int64_t v = order[k];
		gone[v] = 1;
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
			if (!gone[t->adj[e].nbr]) {
				t->hang_parent[v] = t->adj[e].nbr;
				break;
			}
	}
	t->ncore = 0;
	for (int64_t v = 0; v < n; v++)
		t->core_id[v] = t->hang_parent[v] < 0 ? t->ncore++ : -1;
	if (!(t->core_vert = tm_alloc(t->ncore, sizeof(*t->core_vert))))
		goto out;
	for (int64_t v = 0; v < n; v++) {
		if (t->core_id[v] >= 0) {
			t->core_vert[t->core_id[v]] = v;
			t->hang_att[v] = v;
			t->hang_depth[v] = 0;
			t->hang_cost[v] = 0;
			t->hang_up[v] = t->hang_down[v] = -1;
		}
	}
	/* parents went after their children: fill from the last pruned */
	for (int64_t k = norder - 1; k >= 0; k--) {
		int64_t v = order[k], p = t->hang_parent[v];
		if (p < 0)
			continue;
		const tm_adj_t *up = entry(t, v, p), *down = entry(t, p, v);
		t->hang_att[v] = t->hang_att[p];
		t->hang_depth[v] = t->hang_depth[p] + 1;
		t->hang_cost[v] = t->hang_cost[p] + up->cost;
		t->hang_up[v] = up->link;
		t->hang_down[v] = down->link;
	}
	rc = TOPOMATCH_OK;
out:
	free(deg);
	free(order);
	free(gone);
	if (rc)
		tm_graph_hang_free(t);
	return rc;
}

void tm_core_bfs_run(tm_bfs_t *b, const topomatch_topology_t *t, int64_t s)
{
	int64_t head = 0, tail = 0;
	for (int64_t c = 0; c < t->ncore; c++)
		b->dist[c] = -1;
	b->src = s;
	b->dist[s] = 0;
	b->parent[s] = b->plink[s] = -1;
	b->cost[s] = 0.0;
	b->queue[tail++] = s;
	while (head < tail) {
		int64_t c = b->queue[head++], v = t->core_vert[c];
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++) {
			int64_t u = t->core_id[t->adj[e].nbr];
			if (u < 0 || b->dist[u] >= 0)
				continue;
			b->dist[u] = b->dist[c] + 1;
			b->plink[u] = t->adj[e].link;
			b->parent[u] = c;
			b->cost[u] = b->cost[c] + t->adj[e].cost;
			b->queue[tail++] = u;
		}
	}
}

/* The core's links as core indices, in adjacency order (tm_core_bfs_run
 * takes them so), for the table's searches: 2 bytes a link instead of a
 * walk through the whole graph's 16-byte entries. */
static int core_links(const topomatch_topology_t *t, int64_t **ptr, uint16_t **nbr)
{
	int64_t n = t->ncore, m = 0;
	*ptr = tm_alloc(n + 1, sizeof(**ptr));
	for (int64_t c = 0; c < n; c++) {
		int64_t v = t->core_vert[c];
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
			m += t->core_id[t->adj[e].nbr] >= 0;
	}
	*nbr = tm_alloc(m > 0 ? m : 1, sizeof(**nbr));
	if (!*ptr || !*nbr)
		return TOPOMATCH_ENOMEM;
	m = 0;
	for (int64_t c = 0; c < n; c++) {
		int64_t v = t->core_vert[c];
		(*ptr)[c] = m;
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++)
			if (t->core_id[t->adj[e].nbr] >= 0)
				(*nbr)[m++] = (uint16_t)t->core_id[t->adj[e].nbr];
	}
	(*ptr)[n] = m;
	return TOPOMATCH_OK;
}

/* One row of both tables: tm_core_bfs_run's search from src (the same
 * order, so the same parents), written straight into them; false when a
 * distance does not fit in a byte. */
static bool core_row(int64_t n, const int64_t *ptr, const uint16_t *nbr, int64_t src,
		     uint8_t *hops, uint16_t *parent, uint16_t *queue)
{
	int64_t head = 0, tail = 0;
	memset(hops, TM_CORE_HOPS_NONE, (size_t)n);
	for (int64_t c = 0; c < n; c++)
		parent[c] = (uint16_t)src;
	hops[src] = 0;
	queue[tail++] = (uint16_t)src;
	while (head < tail) {
		uint16_t c = queue[head++];
		for (int64_t e = ptr[c]; e < ptr[c + 1]; e++) {
			uint16_t u = nbr[e];
			if (hops[u] != TM_CORE_HOPS_NONE)
				continue;
			if (hops[c] + 1 >= TM_CORE_HOPS_NONE)
				return false;
			hops[u] = (uint8_t)(hops[c] + 1);
			parent[u] = c;
			queue[tail++] = u;
		}
	}
	return true;
}

/*
 * Hops between every two core vertices, one BFS from each: hop-bytes need
 * hop counts only, and a BFS per source router of a job costs the whole
 * core (on a 32,768-node dragonfly, 4,096 routers of 40 links: 14 ms for
 * the hop-bytes of one 1,024-task job spread over 64 routers).  The same
 * BFS give each source's tree, kept as parents: a route is then a walk
 * up that tree, where the link loads of a job starting ran a BFS per
 * source router of the job (on that dragonfly, 40 ms for a job of 1,024
 * tasks).  Built on request (topomatch_cluster_precompute: slurmctld at
 * load, not every srun), in O(ncore x links) time and 3 ncore^2 bytes.
 */
int tm_graph_core_table(topomatch_topology_t *t)
{
	int64_t n = t->ncore, *ptr = NULL;
	if (t->kind != TOPOMATCH_TOPO_GRAPH || t->core_hops || n > TM_CORE_TABLE_MAX || n < 1)
		return TOPOMATCH_OK;
	uint8_t *table = tm_alloc(n * n, 1);
	uint16_t *parent = tm_alloc(n * n, sizeof(*parent)), *nbr = NULL;
	uint16_t *queue = tm_alloc(n, sizeof(*queue));
	int rc = core_links(t, &ptr, &nbr);
	if (!rc && (!table || !parent || !queue))
		rc = TOPOMATCH_ENOMEM;
	for (int64_t src = 0; !rc && src < n; src++)
		if (!core_row(n, ptr, nbr, src, table + src * n, parent + src * n, queue)) {
			free(table); /* a distance over 254 hops: searches, no table */
			free(parent);
			table = NULL;
			parent = NULL;
			break;
		}
	free(ptr);
	free(nbr);
	free(queue);
	if (rc) {
		free(table);
		free(parent);
		return rc;
	}
	t->core_hops = table;
	t->core_parent = parent;
	return TOPOMATCH_OK;
}

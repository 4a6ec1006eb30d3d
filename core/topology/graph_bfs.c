/*
 * graph_bfs.c - breadth-first search over a graph topology's vertices
 * (tm_bfs_t): the routes of router.c, the distances and diameter of
 * topology.c, the hanging trees of graph_hang.c.  Neighbours are visited
 * in increasing vertex order, so the first discovery sets the parent and
 * routes are deterministic.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "topology_internal.h"

#include <stdlib.h>
#include <string.h>

int tm_bfs_init(tm_bfs_t *b, int64_t nvert)
{
	memset(b, 0, sizeof(*b));
	b->src = -1;
	b->dist = tm_alloc(nvert, sizeof(*b->dist));
	b->plink = tm_alloc(nvert, sizeof(*b->plink));
	b->parent = tm_alloc(nvert, sizeof(*b->parent));
	b->cost = tm_alloc(nvert, sizeof(*b->cost));
	b->queue = tm_alloc(nvert, sizeof(*b->queue));
	if (!b->dist || !b->plink || !b->parent || !b->cost || !b->queue) {
		tm_bfs_free(b);
		return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

void tm_bfs_free(tm_bfs_t *b)
{
	free(b->dist);
	free(b->plink);
	free(b->parent);
	free(b->cost);
	free(b->queue);
	memset(b, 0, sizeof(*b));
	b->src = -1;
}

void tm_bfs_run(tm_bfs_t *b, const topomatch_topology_t *t, int64_t s)
{
	int64_t head = 0, tail = 0;
	for (int64_t v = 0; v < t->nvert; v++)
		b->dist[v] = -1;
	b->src = s;
	b->dist[s] = 0;
	b->plink[s] = -1;
	b->parent[s] = -1;
	b->cost[s] = 0.0;
	b->queue[tail++] = s;
	while (head < tail) {
		int64_t v = b->queue[head++];
		for (int64_t e = t->adj_ptr[v]; e < t->adj_ptr[v + 1]; e++) {
			const tm_adj_t *x = &t->adj[e];
			if (b->dist[x->nbr] >= 0)
				continue;
			b->dist[x->nbr] = b->dist[v] + 1;
			b->plink[x->nbr] = x->link;
			b->parent[x->nbr] = v;
			b->cost[x->nbr] = b->cost[v] + x->cost;
			b->queue[tail++] = x->nbr;
		}
	}
}

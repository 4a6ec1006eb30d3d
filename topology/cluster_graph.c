/*
 * cluster_graph.c - dragonfly and general graph networks into the core
 * model: one graph of switches, nodes and the nodes' hardware levels,
 * whose distances are shortest paths.  Vertices: the switches first, then
 * node after node its own tree (node vertex, hardware levels, PUs last),
 * so that PUs come in node order as the core numbers compute vertices.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

#include <stdlib.h>

#define MAX_GRAPH_VERTICES (INT64_C(1) << 28)

/* Links as COO triplets (a, b, cost): the core's growable array. */
static int add_link(tm_coo_t *l, int64_t a, int64_t b, double cost)
{
	return tm_coo_push(l, a, b, cost, INT64_MAX);
}

/* ------------------------------------------------------------- dragonfly */

/* The m-th global port of a group that leads to the group at `offset`
 * among its g - 1 targets, as a router index; -1 past the last port. */
static int64_t port_router(const tm_cluster_desc_t *d, int64_t offset, int64_t m)
{
	int64_t j = offset + m * (d->df_groups - 1);
	return j < d->df_routers * d->df_global ? j / d->df_global : -1;
}

/*
 * Global links (Kim et al., "Technology-driven, highly-scalable dragonfly
 * topology", ISCA 2008): a group's a x h global ports, numbered router by
 * router, go round its g - 1 peer groups.  consecutive: the peers in
 * increasing group order; circulant: group G's k-th peer is G + 1 + k
 * (mod g).  Ports past a multiple of g - 1 give parallel links.
 */
static int df_global(const tm_cluster_desc_t *d, tm_coo_t *l)
{
	int64_t g = d->df_groups, a = d->df_routers;
	for (int64_t G = 0; G < g; G++)
		for (int64_t H = G + 1; H < g; H++) {
			int64_t oG = H - 1, oH = G; /* consecutive */
			if (d->df_layout == TM_DF_CIRCULANT) {
				oG = (H - G - 1 + g) % g;
				oH = (G - H - 1 + g) % g;
			}
			for (int64_t m = 0;; m++) {
				int64_t rG = port_router(d, oG, m), rH = port_router(d, oH, m);
				if (rG < 0 || rH < 0)
					break;
				if (add_link(l, G * a + rG, H * a + rH, d->global_cost))
					return TOPOMATCH_ENOMEM;
			}
		}
	return TOPOMATCH_OK;
}

static int df_switches(topomatch_cluster_t *c, tm_coo_t *l, int64_t *nsw, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	int64_t a = d->df_routers, routers = d->df_groups * a;
	if (routers * d->nodes_per_router != d->nnodes)
		return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_EPARSE,
				      "groups: %lld groups x %lld routers x %d nodes per router = "
				      "%lld nodes, but the node groups list %lld",
				      (long long)d->df_groups, (long long)a, d->nodes_per_router,
				      (long long)(routers * d->nodes_per_router),
				      (long long)d->nnodes);
	for (int64_t G = 0; G < d->df_groups; G++)
		for (int64_t r = 0; r < a; r++)
			for (int64_t s = r + 1; s < a; s++)
				if (add_link(l, G * a + r, G * a + s, d->link_cost))
					return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	if (df_global(d, l))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	*nsw = routers;
	for (int64_t i = 0; i < d->nnodes; i++)
		c->slot[i] = i / d->nodes_per_router;
	return TOPOMATCH_OK;
}

/* ----------------------------------------------------------------- graph */

static int graph_switches(topomatch_cluster_t *c, tm_coo_t *l, int64_t *nsw, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	char name[TM_HOSTLIST_MAX_NAME + 1];
	for (int64_t k = 0; k < d->nlinks; k++)
		if (add_link(l, d->link[k].a, d->link[k].b, d->link[k].cost))
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; k < d->nattach; k++) {
		const tm_attach_desc_t *at = &d->attach[k];
		for (int64_t j = 0; j < tm_hostlist_count(at->nodes); j++) {
			tm_hostlist_name(at->nodes, j, name, sizeof(name));
			int64_t i = tm_hostlist_find(d->all, name);
			if (i < 0)
				return tm_cluster_err(d, at->pos, err, TOPOMATCH_EPARSE,
						      "unknown node %s (not in any node group)",
						      name);
			if (c->slot[i] >= 0)
				return tm_cluster_err(d, at->pos, err, TOPOMATCH_EPARSE,
						      "node %s is attached to two switches", name);
			c->slot[i] = at->sw;
		}
	}
	*nsw = tm_hostlist_count(d->switches);
	return TOPOMATCH_OK;
}

/* ------------------------------------------------ switch trees, exactly */

/* A switch tree whose nodes hang at different depths: as a graph, so that
 * every distance stays what the cables give (an embedding into a regular
 * tree would lengthen the paths of the nodes attached higher up). */
static int swtree_switches(topomatch_cluster_t *c, tm_coo_t *l, int64_t *nsw, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	const tm_swtree_t *t = &d->sw;
	char name[TM_HOSTLIST_MAX_NAME + 1];
	for (int64_t s = 0; s < t->n; s++) {
		const tm_switch_t *sw = &t->sw[s];
		for (int64_t k = 0; k < sw->nchild; k++)
			if (add_link(l, s, sw->child[k], d->cost[sw->depth]))
				return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		for (int64_t j = 0; sw->nodes && j < tm_hostlist_count(sw->nodes); j++) {
			tm_hostlist_name(sw->nodes, j, name, sizeof(name));
			int64_t i = tm_hostlist_find(d->all, name);
			if (i < 0)
				return tm_err(err, TOPOMATCH_EPARSE,
					      "%s:%lld: switch '%s': unknown node %s (not in any "
					      "node group)", t->file, (long long)sw->nodes_line,
					      sw->name, name);
			c->slot[i] = s;
		}
	}
	*nsw = t->n;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------ node trees */

/* Vertices of one node's tree: the node, its hardware levels, its PUs. */
static int64_t tree_vertices(const tm_node_hw_t *shape)
{
	int64_t n = 1, width = 1;
	for (int k = 0; k < shape->nlevels; k++) {
		width *= shape->arity[k];
		n += width;
	}
	return n;
}

/* Node i's tree from vertex v0 (breadth-first, so its PUs come last), its
 * node vertex linked to switch sw. */
static int add_node_tree(const tm_node_hw_t *shape, int64_t v0, int64_t sw, tm_coo_t *l)
{
	if (add_link(l, sw, v0, 1))
		return TOPOMATCH_ENOMEM;
	int64_t first = v0, width = 1; /* first vertex of the current level */
	for (int k = 0; k < shape->nlevels; k++) {
		int64_t next = first + width;
		for (int64_t p = 0; p < width; p++)
			for (int64_t q = 0; q < shape->arity[k]; q++)
				if (add_link(l, first + p, next + p * shape->arity[k] + q, 1))
					return TOPOMATCH_ENOMEM;
		first = next;
		width *= shape->arity[k];
	}
	return TOPOMATCH_OK;
}

static int make_graph(topomatch_cluster_t *c, tm_coo_t *l, int64_t nsw, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	int64_t per = tree_vertices(&c->shape), nvert;
	if (!tm_mul_ok(per, d->nnodes, &nvert) || !tm_add_ok(nvert, nsw, &nvert) ||
	    nvert > MAX_GRAPH_VERTICES)
		return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_ELIMIT,
				      "the network and the nodes' hardware make more than %lld "
				      "graph vertices", (long long)MAX_GRAPH_VERTICES);
	for (int64_t i = 0; i < d->nnodes; i++)
		if (add_node_tree(&c->shape, nsw + i * per, c->slot[i], l))
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	unsigned char *compute = tm_zalloc(nvert, 1);
	if (!compute)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < d->nnodes; i++)
		for (int64_t k = per - c->slot_pus; k < per; k++)
			compute[nsw + i * per + k] = 1;
	char why[TOPOMATCH_ERRLEN];
	int rc = topomatch_topology_graph(nvert, l->n, l->src, l->dst, l->w, compute, &c->topo,
					  why);
	free(compute);
	if (rc)
		return tm_cluster_err(d, d->shape_pos, err, rc, "%s", why);
	c->nslots = d->nnodes;
	for (int64_t i = 0; i < d->nnodes; i++)
		c->slot[i] = i;
	return TOPOMATCH_OK;
}

int tm_cluster_check_attached(const topomatch_cluster_t *c, char *err)
{
	char name[TM_HOSTLIST_MAX_NAME + 1];
	for (int64_t i = 0; i < c->d.nnodes; i++)
		if (c->slot[i] < 0) {
			tm_hostlist_name(c->d.all, i, name, sizeof(name));
			return tm_cluster_err(&c->d, c->d.shape_pos, err, TOPOMATCH_EPARSE,
					      "node %s is not attached to any switch", name);
		}
	return TOPOMATCH_OK;
}

int tm_cluster_build_graph(topomatch_cluster_t *c, char *err)
{
	tm_coo_t l;
	int64_t nsw = 0;
	int rc;
	tm_coo_init(&l);
	for (int64_t i = 0; i < c->d.nnodes; i++)
		c->slot[i] = -1; /* the switch of node i, until make_graph */
	if (c->d.net == TM_NET_DRAGONFLY)
		rc = df_switches(c, &l, &nsw, err);
	else if (c->d.net == TM_NET_GRAPH)
		rc = graph_switches(c, &l, &nsw, err);
	else
		rc = swtree_switches(c, &l, &nsw, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_cluster_check_attached(c, err);
	if (rc == TOPOMATCH_OK)
		rc = make_graph(c, &l, nsw, err);
	tm_coo_free(&l);
	return rc;
}

/*
 * cluster_grid.c - torus and mesh networks into the core model: a grid of
 * routers with closed-form distances, each router holding its nodes and
 * each node its hardware levels as a balanced tree below the router.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

/*
 * Node i sits on router i / nodes_per_router (the nodes of one router are
 * consecutive), routers counted along node_order (its first letter the
 * fastest-varying dimension); the core numbers routers x fastest.
 */
static int64_t router_of(const tm_cluster_desc_t *d, int64_t r)
{
	int64_t id = 0, stride[TOPOMATCH_MAX_DIMS], s = 1;
	for (int k = 0; k < d->ndims; k++) {
		stride[k] = s;
		s *= d->dims[k];
	}
	for (int k = 0; k < d->ndims; k++) {
		int dim = d->order[k];
		id += (r % d->dims[dim]) * stride[dim];
		r /= d->dims[dim];
	}
	return id;
}

int tm_cluster_build_grid(topomatch_cluster_t *c, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	int64_t routers = 1, slots;
	for (int k = 0; k < d->ndims; k++)
		if (!tm_mul_ok(routers, d->dims[k], &routers) || routers > TM_CLUSTER_MAX_NODES)
			return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_ELIMIT,
					      "dims: more than %lld routers",
					      (long long)TM_CLUSTER_MAX_NODES);
	if (!tm_mul_ok(routers, d->nodes_per_router, &slots) || slots != d->nnodes)
		return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_EPARSE,
				      "dims: %lld routers x %d node%s per router = %lld nodes, but "
				      "the node groups list %lld",
				      (long long)routers, d->nodes_per_router,
				      d->nodes_per_router > 1 ? "s" : "",
				      (long long)routers * d->nodes_per_router,
				      (long long)d->nnodes);
	int ar[TOPOMATCH_MAX_LEVELS], L = 0;
	if (d->nodes_per_router > 1)
		ar[L++] = d->nodes_per_router;
	if (L + c->shape.nlevels > TOPOMATCH_MAX_LEVELS)
		return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_ELIMIT,
				      "too many node levels");
	for (int k = 0; k < c->shape.nlevels; k++)
		ar[L++] = c->shape.arity[k];
	char why[TOPOMATCH_ERRLEN];
	int rc = topomatch_topology_grid_tree(d->ndims, d->dims, d->wrap, L, ar, NULL,
					      d->link_cost, &c->topo, why);
	if (rc)
		return tm_cluster_err(d, d->shape_pos, err, rc, "%s", why);
	c->nslots = slots;
	for (int64_t i = 0; i < d->nnodes; i++)
		c->slot[i] = router_of(d, i / d->nodes_per_router) * d->nodes_per_router +
			     i % d->nodes_per_router;
	return TOPOMATCH_OK;
}

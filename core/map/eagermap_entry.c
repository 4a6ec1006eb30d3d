/*
 * eagermap_entry.c - the EagerMap mapper (tm_map_eagermap): the request
 * checked, trees to EagerMap's Alg. 1-7 (eagermap.c), other topologies to
 * its §3.6 cluster form (eagermap_cluster.c), both on c->threads (Alg. 8).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "eagermap_internal.h"
#include "topology/topology_internal.h"

#include <stdlib.h>
#include <string.h>

static int check_ctx(const tm_map_ctx_t *c, char *err)
{
	int64_t cap;
	if (!c || !c->a || !c->t || !c->allowed || c->m < 1 || c->f < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "eagermap: incomplete request");
	if (c->ntasks != topomatch_affinity_ntasks(c->a) || !tm_mul_ok(c->m, c->f, &cap) ||
	    c->ntasks > cap)
		return tm_err(err, TOPOMATCH_EINVAL, "eagermap: %lld tasks do not fit %lld PUs x %d",
			      (long long)c->ntasks, (long long)c->m, c->f);
	return TOPOMATCH_OK;
}

static int map_tree(const tm_map_ctx_t *c, tm_pool_t *pool, int64_t *pu, char *err)
{
	topomatch_csr_t a = topomatch_affinity_symmetric(c->a);
	tm_wgraph_t g = { a.n, a.rowptr, a.col, a.w, NULL };
	int64_t *pus = tm_alloc(c->m, sizeof(*pus));
	if (!pus)
		return tm_err(err, TOPOMATCH_ENOMEM, "eagermap: out of memory");
	memcpy(pus, c->allowed, (size_t)c->m * sizeof(*pus));
	qsort(pus, (size_t)c->m, sizeof(*pus), tm_cmp_i64);
	int rc = em_tree(c, pool, &g, topomatch_affinity_loads(c->a), pus, c->m, c->t->nlevels,
			 c->t->below, c->f, pu, err);
	free(pus);
	return rc;
}

/* EagerMap: Alg. 1-7 on trees, §3.6 elsewhere; Alg. 8 on c->threads. */
int tm_map_eagermap(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	tm_pool_t *pool = NULL;
	int rc = check_ctx(c, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (c->args && c->args[0])
		return tm_err(err, TOPOMATCH_EINVAL, "eagermap takes no options (got '%s')",
			      c->args);
	if (c->threads > 1 && c->ntasks >= EM_PAR_MIN &&
	    (rc = tm_pool_create(c->threads, &pool, err)) != TOPOMATCH_OK)
		return rc;
	if (c->t->kind == TOPOMATCH_TOPO_TREE)
		rc = map_tree(c, pool, pu, err);
	else
		rc = em_cluster(c, pool, pu, err);
	tm_pool_destroy(pool);
	return rc;
}

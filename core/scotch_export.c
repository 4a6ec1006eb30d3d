/*
 * scotch_export.c - a topology written as a Scotch target file
 * (`topomatch topo export --scotch`): the target the Scotch mapper maps
 * onto, saved with SCOTCH_archSave, except where that target trades
 * exactness for speed (a large grid with node trees below its routers is
 * mapped through an approximating tleaf).  Those grids are written from
 * their explicit machine graph instead: our exact distance table up to
 * 2048 PUs, Scotch's own type-2 "deco" of the graph beyond (Scotch then
 * estimates the distances of far-apart PUs itself).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "scotch_internal.h"

#include <stdlib.h>

/* Router r's neighbours one step up each dimension (once, so a wrapped
 * dimension of 2 gets one link, not two). */
static void grid_links(const topomatch_topology_t *t, int64_t routers, tm_coo_t *l)
{
	for (int64_t r = 0; r < routers; r++) {
		int64_t rest = r, stride = 1;
		for (int k = 0; k < t->ndims; k++) {
			int64_t x = rest % t->dims[k];
			rest /= t->dims[k];
			if (x + 1 < t->dims[k])
				tm_coo_push(l, r, r + stride, t->grid_cost, l->cap);
			else if (t->wrap[k] && t->dims[k] > 2)
				tm_coo_push(l, r, r - x * stride, t->grid_cost, l->cap);
			stride *= t->dims[k];
		}
	}
}

/*
 * Vertices: the routers, then router after router its local tree level by
 * level, PUs last, so that the graph's compute vertices come in PU order
 * (PU = router x lpus + local).
 */
static int grid_as_graph(const topomatch_topology_t *t, topomatch_topology_t **g, char *err)
{
	int64_t routers = t->npu / t->lpus, per = 0, width = 1;
	for (int k = 0; k < t->nlevels; k++)
		per += (width *= t->arity[k]);
	int64_t nv = routers * (per + 1), nl = routers * (t->ndims + per);
	tm_coo_t l; /* reserved whole: the pushes below cannot fail */
	tm_coo_init(&l);
	unsigned char *compute = tm_zalloc(nv, 1);
	int rc = compute && tm_coo_reserve(&l, nl) == TOPOMATCH_OK
			 ? TOPOMATCH_OK
			 : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t r = 0; rc == TOPOMATCH_OK && r < routers; r++) {
		int64_t first = r, next = routers + r * per; /* level start, next level */
		width = 1;
		for (int k = 0; k < t->nlevels; k++) {
			for (int64_t p = 0; p < width; p++)
				for (int q = 0; q < t->arity[k]; q++)
					tm_coo_push(&l, first + p, next + p * t->arity[k] + q,
						    t->cost[k], nl);
			first = next;
			next += width * t->arity[k];
			width *= t->arity[k];
		}
		for (int64_t p = 0; p < width; p++)
			compute[first + p] = 1;
	}
	if (rc == TOPOMATCH_OK) {
		grid_links(t, routers, &l);
		rc = topomatch_topology_graph(routers + routers * per, l.n, l.src, l.dst, l.w,
					      compute, g, err);
	}
	free(compute);
	tm_coo_free(&l);
	return rc;
}

int topomatch_topology_write_scotch(const topomatch_topology_t *t, FILE *out, char *err)
{
	if (!t || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_topology_write_scotch: NULL argument");
	topomatch_topology_t *g = NULL;
	bool local_grid = t->kind != TOPOMATCH_TOPO_TREE && t->kind != TOPOMATCH_TOPO_GRAPH &&
			  t->nlevels > 0;
	if (local_grid) {
		int rc = grid_as_graph(t, &g, err);
		if (rc)
			return rc;
	}
	tm_starget_t x = { 0 };
	int rc = tm_starget_build(&x, g ? g : t, NULL, t->npu, err);
	if (rc == TOPOMATCH_OK &&
	    (SCOTCH_archSave(tm_starget_arch(&x), out) != 0 || fflush(out) || ferror(out)))
		rc = tm_err(err, TOPOMATCH_EIO, "writing the Scotch target failed");
	tm_starget_free(&x);
	topomatch_topology_destroy(g);
	return rc;
}

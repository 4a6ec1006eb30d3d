/*
 * affinity_blocks.c - a pattern's tasks in blocks, one vertex per block:
 * how a job of more tasks than are mapped one by one (topomatch.conf's
 * MaxTasks) is mapped node by node (issue 20, point 5), the blocks
 * placed like tasks of as many CPUs as a block has tasks.
 *
 * Which tasks share a block: consecutive ones, in the order that cuts
 * less weight between blocks of the given order (Slurm's block
 * distribution: an application numbered with locality) and the pattern's
 * breadth-first order (GreedyMap's BFS list, Glantz et al., ICS 2017
 * §4.5: Cuthill-McKee, which orders a shuffled stencil back into slabs).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "mapper_internal.h"

#include <stdlib.h>
#include <string.h>

/* Weight of C between different blocks when order[] is cut into blocks
 * of b; blk[] gets each task's block. */
static double blocks_cut(const topomatch_csr_t *c, const int64_t *order, int64_t b, int64_t *blk)
{
	double cut = 0;
	for (int64_t k = 0; k < c->n; k++)
		blk[order[k]] = k / b;
	for (int64_t i = 0; i < c->n; i++)
		for (int64_t e = c->rowptr[i]; e < c->rowptr[i + 1]; e++)
			if (blk[i] != blk[c->col[e]])
				cut += c->w[e];
	return cut;
}

/* The quotient pattern of blk[] (nb blocks): C summed between blocks. */
static int quotient(const topomatch_affinity_t *a, const int64_t *blk, int64_t nb,
		    topomatch_affinity_t **out, char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	const double *load = topomatch_affinity_loads(a);
	double *qload = load ? tm_zalloc(nb, sizeof(*qload)) : NULL;
	tm_coo_t coo;
	int rc = TOPOMATCH_OK;
	tm_coo_init(&coo);
	if (load && !qload)
		rc = TOPOMATCH_ENOMEM;
	for (int64_t i = 0; load && qload && i < c.n; i++)
		qload[blk[i]] += load[i];
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < c.n; i++)
		for (int64_t e = c.rowptr[i]; rc == TOPOMATCH_OK && e < c.rowptr[i + 1]; e++)
			if (blk[i] != blk[c.col[e]])
				rc = tm_coo_push(&coo, blk[i], blk[c.col[e]], c.w[e], INT64_MAX);
	if (rc == TOPOMATCH_OK)
		rc = tm_affinity_from_coo(nb, &coo, qload, out, err);
	else
		tm_err(err, rc, "blocks: out of memory");
	tm_coo_free(&coo);
	free(qload);
	return rc;
}

int topomatch_affinity_blocks(const topomatch_affinity_t *a, int64_t block, int64_t *order,
			      topomatch_affinity_t **out, char *err)
{
	if (out)
		*out = NULL;
	if (!a || !order || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "blocks: NULL argument");
	int64_t n = topomatch_affinity_ntasks(a);
	if (block < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "blocks of %lld tasks: must be at least 1",
			      (long long)block);
	if (block > n)
		block = n;
	int64_t nb = (n + block - 1) / block;
	int64_t *bfs = tm_alloc(n, sizeof(*bfs)), *blk = tm_alloc(n, sizeof(*blk));
	int rc = bfs && blk ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	topomatch_csr_t sym = topomatch_affinity_symmetric(a);
	if (rc == TOPOMATCH_OK)
		rc = tm_order_bfs(&sym, bfs, err);
	if (rc == TOPOMATCH_OK) {
		for (int64_t k = 0; k < n; k++)
			order[k] = k;
		/* A counts each pair both ways, the same in both orders */
		if (blocks_cut(&sym, bfs, block, blk) < blocks_cut(&sym, order, block, blk))
			memcpy(order, bfs, (size_t)n * sizeof(*order));
		for (int64_t k = 0; k < n; k++)
			blk[order[k]] = k / block;
		rc = quotient(a, blk, nb, out, err);
	} else if (rc == TOPOMATCH_ENOMEM) {
		tm_err(err, rc, "blocks: out of memory (%lld tasks)", (long long)n);
	}
	free(bfs);
	free(blk);
	return rc;
}

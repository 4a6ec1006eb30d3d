/*
 * affinity_blocks.c - a pattern's tasks in blocks, one vertex per block:
 * how a job of more tasks than are mapped one by one (topomatch.conf's
 * MaxTasks) is mapped node by node (issue 20, point 5), the blocks
 * placed like tasks of as many CPUs as a block has tasks.
 *
 * Which tasks share a block: of three candidates, the one that cuts the
 * least weight between blocks:
 *  - the given order (Slurm's block distribution: an application that
 *    numbers its ranks with locality);
 *  - the pattern's breadth-first order (GreedyMap's BFS list, Glantz et
 *    al., ICS 2017 §4.5: Cuthill-McKee), cheap;
 *  - blocks grown one after the other from the heaviest attachment, the
 *    greedy partitioner of TopoMatch (JPDC 2022, §4.2.2) without its
 *    refinement pass.
 * Measured on the bench's shuffled stencils (faces 1000/500/100): at
 * 4,096 tasks in blocks of 32, the breadth-first blocks cut 12.1 M, the
 * grown ones 2.77 M (in 3.5 ms; 6 ms with the refinement, the same
 * cut); at 16,384 in blocks of 16, 50.6 M against 19.8 M (17 ms; the
 * refinement doubled that for 0.3 %).  The select plugin maps such a
 * job's blocks within its time budget, hence no refinement, and the
 * deadline: past it the grown blocks are left out.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "mapper_internal.h"
#include "pattern/pattern_internal.h"
#include "affinity_blocks.h"

#include <limits.h>
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

/*
 * The quotient pattern (nb blocks of b tasks, block p the tasks
 * order[p * b ..], blk[] each task's): C summed between blocks, a block's
 * row at a time into a sparse accumulator, so that only the distinct
 * pairs of blocks are stored (600 for a 4,096-task stencil in 128
 * blocks, against 23,000 entries crossing blocks).
 */
static int quotient(const topomatch_affinity_t *a, const int64_t *order, const int64_t *blk,
		    int64_t b, int64_t nb, topomatch_affinity_t **out, char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	const double *load = topomatch_affinity_loads(a);
	double *qload = load ? tm_zalloc(nb, sizeof(*qload)) : NULL, *acc = tm_zalloc(nb, sizeof(*acc));
	unsigned char *in_row = tm_zalloc(nb, 1);
	int64_t *touched = tm_alloc(nb, sizeof(*touched));
	tm_coo_t coo;
	tm_coo_init(&coo);
	int rc = acc && in_row && touched && (qload || !load) ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	for (int64_t p = 0; rc == TOPOMATCH_OK && p < nb; p++) {
		int64_t nt = 0;
		for (int64_t k = p * b; k < (p + 1) * b && k < c.n; k++) {
			int64_t i = order[k];
			if (qload)
				qload[p] += load[i];
			for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++) {
				int64_t q = blk[c.col[e]];
				if (q == p)
					continue;
				if (!in_row[q]) {
					in_row[q] = 1;
					touched[nt++] = q;
				}
				acc[q] += c.w[e];
			}
		}
		for (int64_t t = 0; t < nt; t++) {
			int64_t q = touched[t];
			if (rc == TOPOMATCH_OK)
				rc = tm_coo_push(&coo, p, q, acc[q], INT64_MAX);
			acc[q] = 0;
			in_row[q] = 0;
		}
	}
	if (rc == TOPOMATCH_OK)
		rc = tm_affinity_from_coo(nb, &coo, qload, out, err);
	else
		tm_err(err, rc, "blocks: out of memory");
	tm_coo_free(&coo);
	free(qload);
	free(acc);
	free(in_row);
	free(touched);
	return rc;
}

/* The tasks in nb blocks of block tasks (the last of n - (nb - 1) x
 * block) grown one after the other (tm_partition_grow), by block and in
 * task order within one: into order[]. */
static int grown_order(const topomatch_csr_t *sym, int64_t block, int64_t nb, double deadline,
		       int64_t *order, char *err)
{
	int64_t n = sym->n;
	int64_t *size = tm_alloc(nb, sizeof(*size)), *part = tm_alloc(n, sizeof(*part));
	int64_t *at = tm_zalloc(nb + 1, sizeof(*at));
	int rc = size && part && at ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK && nb > INT_MAX)
		rc = tm_err(err, TOPOMATCH_ELIMIT, "blocks: %lld blocks are too many", (long long)nb);
	if (rc == TOPOMATCH_OK) {
		for (int64_t p = 0; p < nb; p++)
			size[p] = p < nb - 1 ? block : n - (nb - 1) * block;
		tm_wgraph_t g = { .n = n, .rowptr = sym->rowptr, .col = sym->col, .w = sym->w };
		rc = tm_partition_grow(&g, (int)nb, size, deadline, part, err);
	}
	if (rc == TOPOMATCH_OK) {
		for (int64_t i = 0; i < n; i++)
			at[part[i] + 1]++;
		for (int64_t p = 0; p < nb; p++)
			at[p + 1] += at[p];
		for (int64_t i = 0; i < n; i++)
			order[at[part[i]]++] = i;
	}
	free(size);
	free(part);
	free(at);
	return rc;
}

int tm_affinity_blocks(const topomatch_affinity_t *a, int64_t block, double deadline,
		       int64_t *order, bool *cut, topomatch_affinity_t **out, char *err)
{
	if (out)
		*out = NULL;
	if (cut)
		*cut = false;
	if (!a || !order || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "blocks: NULL argument");
	int64_t n = topomatch_affinity_ntasks(a);
	if (block < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "blocks of %lld tasks: must be at least 1",
			      (long long)block);
	if (block > n)
		block = n;
	int64_t nb = (n + block - 1) / block;
	int64_t *cand = tm_alloc(n, sizeof(*cand)), *blk = tm_alloc(n, sizeof(*blk));
	if (!cand || !blk) {
		free(cand);
		free(blk);
		return tm_err(err, TOPOMATCH_ENOMEM, "blocks: out of memory (%lld tasks)",
			      (long long)n);
	}
	topomatch_csr_t sym = topomatch_affinity_symmetric(a);
	for (int64_t k = 0; k < n; k++)
		order[k] = k;
	/* the lowest cut wins, the earlier candidate on ties (A counts
	 * each pair both ways, the same in every order); a candidate that
	 * fails (memory, the deadline) is left out */
	double best = blocks_cut(&sym, order, block, blk), c;
	char why[TOPOMATCH_ERRLEN];
	int rc = tm_order_bfs(&sym, cand, why);
	if (rc == TOPOMATCH_OK && (c = blocks_cut(&sym, cand, block, blk)) < best) {
		best = c;
		memcpy(order, cand, (size_t)n * sizeof(*order));
	}
	rc = grown_order(&sym, block, nb, deadline, cand, why);
	if (rc == TOPOMATCH_EBUDGET && cut)
		*cut = true;
	if (rc == TOPOMATCH_OK && blocks_cut(&sym, cand, block, blk) < best)
		memcpy(order, cand, (size_t)n * sizeof(*order));
	for (int64_t k = 0; k < n; k++)
		blk[order[k]] = k / block;
	rc = quotient(a, order, blk, block, nb, out, err);
	free(cand);
	free(blk);
	return rc;
}

int topomatch_affinity_blocks(const topomatch_affinity_t *a, int64_t block, int64_t *order,
			      topomatch_affinity_t **out, char *err)
{
	return tm_affinity_blocks(a, block, 0, order, NULL, out, err);
}

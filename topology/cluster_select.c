/*
 * cluster_select.c - node selection for a job (the select plugin and the
 * simulator call the same function, so the simulator predicts the
 * plugin): map the job's tasks onto the free PUs of the candidate nodes
 * (TopoMatch §4.4 and Fig. 3: TOPOMATCHCONST on trees, Scotch on a
 * sub-architecture otherwise, §6 "job scheduler" use), and return the
 * nodes that received tasks.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

int topomatch_cluster_select(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			     const topomatch_map_opts_t *opts, int64_t *pu, int64_t *nodes,
			     int64_t *nnodes, topomatch_map_result_t *res, char *err)
{
	if (!c || !a || !opts || !opts->allowed || !pu || !nodes || !nnodes)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_select: NULL argument "
			      "(the free PUs are opts->allowed)");
	int rc = topomatch_cluster_map(c, a, opts, pu, res, err);
	if (rc)
		return rc;
	unsigned char *used = tm_zalloc(c->d.nnodes, 1);
	if (!used)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	int64_t n = topomatch_affinity_ntasks(a);
	for (int64_t i = 0; i < n; i++)
		used[topomatch_cluster_pu_node(c, pu[i], NULL)] = 1;
	*nnodes = 0;
	for (int64_t k = 0; k < c->d.nnodes; k++)
		if (used[k])
			nodes[(*nnodes)++] = k;
	free(used);
	return TOPOMATCH_OK;
}

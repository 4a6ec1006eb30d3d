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

/*
 * Free PUs beyond this many times the tasks are narrowed to a region
 * first: the mapping's work grows with the PUs it is offered, and on a
 * 32,768-node cluster 60 % free is 314,000 PUs for a job of 64 tasks.
 */
#define REGION_SLACK 4

/*
 * The candidate region (issue 18: "map onto a candidate region found from
 * the topology first"): from the root of the tree down, the child subtree
 * with the fewest free PUs that still has REGION_SLACK x n of them (best
 * fit, as Slurm's topology/tree picks switches: the large free blocks
 * stay for large jobs), until no child has that many.  The slack leaves
 * the mapper a choice: with only n, the region was the fullest fragments
 * of one switch, and small jobs lost up to 24 % of hop-bytes on
 * bench/plugin_scale.  Only the node levels are walked, and only on tree
 * networks: on the tree of a torus, dragonfly or graph (cluster_abstract.c)
 * the subtrees are approximations, and regions of them lost 6-15 % on
 * small jobs for a few ms.  *out gets the region's free PUs (in the
 * order given), *m their number; *out NULL when nothing is narrowed.
 */
static int region(const topomatch_cluster_t *c, const int64_t *allowed, int64_t m0, int64_t n,
		  int64_t **out, int64_t *m, char *err)
{
	const topomatch_topology_t *t = c->topo;
	int arity[TOPOMATCH_MAX_LEVELS];
	*out = NULL;
	*m = m0;
	if (topomatch_topology_kind(t) != TOPOMATCH_TOPO_TREE || m0 <= REGION_SLACK * n)
		return TOPOMATCH_OK;
	int L = topomatch_topology_tree_shape(t, arity, NULL) - c->shape.nlevels;
	int64_t *leaf = tm_alloc(m0, sizeof(*leaf)), *keep = tm_alloc(m0, sizeof(*keep));
	int64_t *count = NULL, below = topomatch_topology_npu(t), lo = 0;
	if (!leaf || !keep) {
		free(leaf);
		free(keep);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t k = 0; k < m0; k++) {
		leaf[k] = topomatch_cluster_pu_to_topology(c, allowed[k]);
		keep[k] = k;
	}
	int64_t nk = m0;
	for (int d = 0; d < L && nk > REGION_SLACK * n; d++) {
		int64_t sub = below / arity[d], best = -1;
		free(count);
		if (!(count = tm_zalloc(arity[d], sizeof(*count))))
			break;
		for (int64_t k = 0; k < nk; k++)
			count[(leaf[keep[k]] - lo) / sub]++;
		for (int64_t ch = 0; ch < arity[d]; ch++)
			if (count[ch] >= REGION_SLACK * n && (best < 0 || count[ch] < count[best]))
				best = ch;
		if (best < 0)
			break;
		int64_t w = 0;
		for (int64_t k = 0; k < nk; k++)
			if ((leaf[keep[k]] - lo) / sub == best)
				keep[w++] = keep[k];
		nk = w;
		lo += best * sub;
		below = sub;
	}
	free(count);
	free(leaf);
	if (nk < m0) {
		for (int64_t k = 0; k < nk; k++)
			keep[k] = allowed[keep[k]];
		*out = keep;
		*m = nk;
	} else {
		free(keep);
	}
	return TOPOMATCH_OK;
}

int topomatch_cluster_select(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			     const topomatch_map_opts_t *opts, int64_t *pu, int64_t *nodes,
			     int64_t *nnodes, topomatch_map_result_t *res, char *err)
{
	if (!c || !a || !opts || !opts->allowed || !pu || !nodes || !nnodes)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_select: NULL argument "
			      "(the free PUs are opts->allowed)");
	topomatch_map_opts_t o = *opts;
	int64_t *in_region = NULL;
	int rc = region(c, opts->allowed, opts->nallowed, topomatch_affinity_ntasks(a), &in_region,
			&o.nallowed, err);
	if (in_region)
		o.allowed = in_region;
	if (rc == TOPOMATCH_OK)
		rc = topomatch_cluster_map(c, a, &o, pu, res, err);
	free(in_region);
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

/*
 * Tasks of several CPUs (--cpus-per-task): each needs per_slot PUs of one
 * node.  Cluster PUs are numbered node by node along each node's hardware
 * tree, so per_slot consecutive free PUs of a node are as close as the
 * node allows (the threads of a core, then the cores of a socket).
 */
int topomatch_cluster_slots(const topomatch_cluster_t *c, const int64_t *pus, int64_t npus,
			    int64_t per_slot, int64_t *slot_pus, int64_t *nslots, char *err)
{
	if (!c || (npus && (!pus || !slot_pus)) || !nslots || npus < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_slots: NULL argument");
	if (per_slot < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "%lld PUs per task: must be at least 1",
			      (long long)per_slot);
	int64_t *sorted = tm_alloc(npus, sizeof(*sorted));
	if (!sorted)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	memcpy(sorted, pus, (size_t)npus * sizeof(*sorted));
	qsort(sorted, (size_t)npus, sizeof(*sorted), tm_cmp_i64);
	int64_t run = 0, node = -1, out = 0;
	*nslots = 0;
	for (int64_t i = 0; i < npus; i++) {
		int64_t p = sorted[i], pn = topomatch_cluster_pu_node(c, p, NULL);
		if (pn < 0) {
			free(sorted);
			return tm_err(err, TOPOMATCH_EINVAL, "PU %lld is not in the cluster",
				      (long long)p);
		}
		if (i && p == sorted[i - 1])
			continue;
		if (pn != node) {
			out -= run; /* a node's incomplete last slot is left out */
			node = pn;
			run = 0;
		}
		slot_pus[out++] = p;
		if (++run == per_slot) {
			(*nslots)++;
			run = 0;
		}
	}
	free(sorted);
	return TOPOMATCH_OK;
}

int tm_cluster_slot_firsts(const topomatch_cluster_t *c, int64_t ntasks, const int64_t *pus,
			   int64_t npus, int64_t per_slot, int64_t *slot_pus, int64_t *first,
			   int64_t *nslots, char *err)
{
	int rc = topomatch_cluster_slots(c, pus, npus, per_slot, slot_pus, nslots, err);
	if (rc)
		return rc;
	if (*nslots < ntasks)
		return tm_err(err, TOPOMATCH_ELIMIT, "%lld tasks of %lld CPU%s do not fit on %lld CPUs",
			      (long long)ntasks, (long long)per_slot, per_slot == 1 ? "" : "s",
			      (long long)npus);
	for (int64_t s = 0; s < *nslots; s++)
		first[s] = slot_pus[s * per_slot];
	return TOPOMATCH_OK;
}

/* srun's layout onto the slots of pus[]: one by one, or node by node in
 * at most max_blocks blocks (max_blocks > 0). */
static int map_slots(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
		     const int64_t *pus, int64_t npus, int64_t per_slot, const char *mapper,
		     int64_t max_blocks, int64_t *slot_pus, int64_t *first, int64_t *nslots,
		     int64_t *pu, topomatch_map_result_t *res, char *err)
{
	if (!c || !a || !first || !pu || !res)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_map_slots%s: NULL argument",
			      max_blocks > 0 ? "_blocks" : "");
	int rc = tm_cluster_slot_firsts(c, topomatch_affinity_ntasks(a), pus, npus, per_slot,
					slot_pus, first, nslots, err);
	if (rc)
		return rc;
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o); /* seed 1, no time budget: deterministic */
	o.mapper = mapper;
	o.allowed = first;
	o.nallowed = *nslots;
	if (max_blocks <= 0)
		return topomatch_cluster_map(c, a, &o, pu, res, err);
	int64_t *nodes = tm_alloc(c->d.nnodes, sizeof(*nodes)), nn, b;
	if (!nodes)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	rc = topomatch_cluster_select_blocks(c, a, &o, 1, max_blocks, NULL, 0, pu, nodes, &nn, &b,
					     res, NULL, err);
	free(nodes);
	return rc;
}

int topomatch_cluster_map_slots(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
				const int64_t *pus, int64_t npus, int64_t per_slot,
				const char *mapper, int64_t *slot_pus, int64_t *first,
				int64_t *nslots, int64_t *pu, topomatch_map_result_t *res, char *err)
{
	return map_slots(c, a, pus, npus, per_slot, mapper, 0, slot_pus, first, nslots, pu, res,
			 err);
}

int topomatch_cluster_map_slots_blocks(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
				       const int64_t *pus, int64_t npus, int64_t per_slot,
				       const char *mapper, int64_t max_blocks, int64_t *slot_pus,
				       int64_t *first, int64_t *nslots, int64_t *pu,
				       topomatch_map_result_t *res, char *err)
{
	if (max_blocks < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "at most %lld blocks: must be at least 1",
			      (long long)max_blocks);
	return map_slots(c, a, pus, npus, per_slot, mapper, max_blocks, slot_pus, first, nslots,
			 pu, res, err);
}

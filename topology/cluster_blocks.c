/*
 * cluster_blocks.c - node selection for a job of more tasks than are
 * mapped one by one (topomatch.conf's MaxTasks; issue 20, point 5): its
 * tasks in blocks (topomatch_affinity_blocks), each block placed as one
 * task of a node's worth of PUs (topomatch_cluster_slots), so that the
 * mapping's size is the job's node count, not its task count: a
 * 16,384-task job on 16-core nodes maps as 1,024 vertices.  The select
 * plugin, srun's layout and the simulator call the same functions.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"
#include "map/affinity_blocks.h"

#include <math.h>
#include <stdlib.h>

int64_t topomatch_cluster_block_size(const topomatch_cluster_t *c, const int64_t *pus,
				     int64_t npus, int64_t per_task, int64_t ntasks)
{
	if (!c || !pus || npus < 1 || per_task < 1 || ntasks < 1)
		return 0;
	int64_t *count = tm_zalloc(c->d.nnodes, sizeof(*count)), most = 0, b = 0;
	if (!count)
		return 0;
	for (int64_t k = 0; k < npus; k++) {
		int64_t node = topomatch_cluster_pu_node(c, pus[k], NULL);
		if (node >= 0 && ++count[node] > most)
			most = count[node];
	}
	/* the largest blocks that hold the job: the fewest nodes */
	for (b = most / per_task < ntasks ? most / per_task : ntasks; b >= 1; b--) {
		int64_t blocks = 0;
		for (int64_t i = 0; i < c->d.nnodes && blocks * b < ntasks; i++)
			blocks += count[i] / (b * per_task);
		if (blocks * b >= ntasks)
			break;
	}
	free(count);
	return b;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Each block's tasks (order[p * b ..]) onto the PUs of the slot that
 * starts at bpu[p], per_task apart. */
static int expand(const int64_t *slot_pus, const int64_t *first, int64_t nslots, int64_t per_slot,
		  int64_t per_task, const int64_t *order, int64_t n, int64_t b,
		  const int64_t *bpu, int64_t *pu, char *err)
{
	for (int64_t p = 0; p * b < n; p++) {
		const int64_t *f = bsearch(&bpu[p], first, (size_t)nslots, sizeof(*first), cmp_i64);
		if (!f)
			return tm_err(err, TOPOMATCH_EINVAL, "blocks: block %lld mapped onto PU %lld, "
				      "which starts no slot", (long long)p, (long long)bpu[p]);
		int64_t s = f - first;
		for (int64_t j = 0; j < b && p * b + j < n; j++)
			pu[order[p * b + j]] = slot_pus[s * per_slot + j * per_task];
	}
	return TOPOMATCH_OK;
}

int topomatch_cluster_select_blocks(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
				    const topomatch_map_opts_t *opts, int64_t per_task,
				    int64_t max_blocks, topomatch_link_load_t *ll, double weight,
				    int64_t *pu, int64_t *nodes, int64_t *nnodes, int64_t *block,
				    topomatch_map_result_t *res, topomatch_loaded_choice_t *info,
				    char *err)
{
	if (!c || !a || !opts || !opts->allowed || !pu || !nodes || !nnodes || !block || !res)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_select_blocks: NULL "
			      "argument (the free PUs are opts->allowed)");
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t b = topomatch_cluster_block_size(c, opts->allowed, opts->nallowed, per_task, n);
	*block = b;
	if (b < 1)
		return tm_err(err, TOPOMATCH_ELIMIT, "%lld tasks of %lld PU%s do not fit on the "
			      "%lld free PUs", (long long)n, (long long)per_task,
			      per_task == 1 ? "" : "s", (long long)opts->nallowed);
	int64_t nb = (n + b - 1) / b, per_slot = b * per_task;
	if (max_blocks > 0 && nb > max_blocks)
		return tm_err(err, TOPOMATCH_ELIMIT, "%lld tasks in blocks of %lld are %lld blocks, "
			      "more than %lld", (long long)n, (long long)b, (long long)nb,
			      (long long)max_blocks);
	int64_t *order = tm_alloc(n, sizeof(*order)), *bpu = tm_alloc(nb, sizeof(*bpu));
	int64_t *slot_pus = tm_alloc(opts->nallowed, sizeof(*slot_pus)), nslots = 0;
	int64_t *first = tm_alloc(opts->nallowed / per_slot + 1, sizeof(*first));
	topomatch_affinity_t *q = NULL;
	topomatch_map_opts_t o = *opts;
	bool cut = false;
	double t0 = tm_now();
	int rc = order && bpu && slot_pus && first ? TOPOMATCH_OK
						   : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	if (rc == TOPOMATCH_OK)
		rc = tm_affinity_blocks(a, b, opts->time_budget_s > 0 ? t0 + opts->time_budget_s : 0,
					order, &cut, &q, err);
	if (rc == TOPOMATCH_OK) /* the block size leaves slots for every block */
		rc = tm_cluster_slot_firsts(c, nb, opts->allowed, opts->nallowed, per_slot,
					    slot_pus, first, &nslots, err);
	if (rc == TOPOMATCH_OK) {
		o.allowed = first;
		o.nallowed = nslots;
		if (opts->time_budget_s > 0) /* what is left; spent: the guard's at once */
			o.time_budget_s = fmax(opts->time_budget_s - (tm_now() - t0), 1e-9);
		rc = topomatch_cluster_select_loaded(c, q, &o, ll, weight, bpu, nodes, nnodes, res,
						     info, err);
		/* the blocks cut short by the budget: not the unbudgeted result */
		res->fell_back |= cut;
	}
	if (rc == TOPOMATCH_OK)
		rc = expand(slot_pus, first, nslots, per_slot, per_task, order, n, b, bpu, pu, err);
	topomatch_affinity_destroy(q);
	free(order);
	free(bpu);
	free(slot_pus);
	free(first);
	return rc;
}

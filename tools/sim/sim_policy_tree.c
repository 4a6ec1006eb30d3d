/*
 * sim_policy_tree.c - the slurm-tree policy: what Slurm 22.05's cons_tres
 * does with topology/tree for a job of k whole nodes, followed line by
 * line from src/plugins/select/cons_tres/job_test.c (_eval_nodes_topo,
 * _topo_choose_best_switch, _topo_compare_switches, _topo_add_dist),
 * for the case the simulator has: no required nodes, one node weight,
 * no GRES, every core of a free node available (exclusive nodes).
 *
 *  1. The top switch: the highest-level switch with at least k candidate
 *     nodes (later switches win ties of level, as Slurm's >= does); only
 *     nodes below it are considered.
 *  2. Leaf switches one at a time: each round, among the leaves that
 *     still have candidates, _topo_choose_best_switch keeps the first
 *     that is closer (switches_dist summed over the leaves already used)
 *     and fits at least as well, or as close and fits better, where
 *     _topo_compare_switches prefers a leaf that holds the remaining
 *     nodes, the smallest such (best fit); when neither of two does, it
 *     climbs to their parents while those differ and compares there;
 *     then more nodes; then the lower level.
 *  3. The chosen leaf's candidate nodes are taken in node order until the
 *     job has k; the leaf's count drops to 0.  Counts of upper switches
 *     are not updated between rounds (as in Slurm).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct tree_ctx {
	const sim_machine_t *m;
	unsigned char *cand; /* candidate nodes below the top switch */
	int64_t *cnt;        /* switch_node_cnt */
	int64_t *dist;       /* switches_dist summed over the leaves used */
} tree_ctx_t;

/* Slurm's switch table is zeroed memory: the root's parent is switch 0. */
static int64_t slurm_parent(const sim_machine_t *m, int64_t s)
{
	return m->sw[s].parent < 0 ? 0 : m->sw[s].parent;
}

/* _topo_compare_switches(): > 0 when switch i suits rem nodes better. */
static int compare_switches(const tree_ctx_t *x, int64_t i, int64_t j, int64_t rem)
{
	const sim_machine_t *m = x->m;
	for (;;) {
		bool i_fit = x->cnt[i] >= rem, j_fit = x->cnt[j] >= rem;
		if (i_fit && j_fit) {
			if (x->cnt[i] != x->cnt[j])
				return x->cnt[i] < x->cnt[j] ? 1 : -1;
			break;
		}
		if (i_fit || j_fit)
			return i_fit ? 1 : -1;
		int64_t pi = slurm_parent(m, i), pj = slurm_parent(m, j);
		if ((pi == i && pj == j) || pi == pj)
			break;
		i = pi;
		j = pj;
	}
	if (x->cnt[i] != x->cnt[j])
		return x->cnt[i] > x->cnt[j] ? 1 : -1;
	if (m->sw[i].level != m->sw[j].level)
		return m->sw[i].level < m->sw[j].level ? 1 : -1;
	return 0;
}

/* _topo_choose_best_switch() for leaf i (distances are never INFINITE in
 * a tree). */
static void choose_best(const tree_ctx_t *x, int64_t i, int64_t rem, int64_t *best)
{
	if (*best == -1 || !x->cnt[i]) {
		if (x->cnt[i])
			*best = i;
		return;
	}
	int tcs = compare_switches(x, i, *best, rem);
	if ((x->dist[i] < x->dist[*best] && tcs >= 0) ||
	    (x->dist[i] == x->dist[*best] && tcs > 0))
		*best = i;
}

/* Step 1: the top switch, and the candidates and counts below it. */
static int64_t top_switch(tree_ctx_t *x, int64_t k)
{
	const sim_machine_t *m = x->m;
	int64_t top = -1;
	for (int64_t s = 0; s < m->nsw; s++)
		if (x->cnt[s] >= k && (top == -1 || m->sw[s].level >= m->sw[top].level))
			top = s;
	if (top < 0)
		return -1;
	int lt = m->sw[top].level;
	memset(x->cnt, 0, (size_t)m->nsw * sizeof(*x->cnt));
	for (int64_t i = 0; i < m->nnodes; i++) {
		if (x->cand[i] && m->node_sw[i * m->levels + lt] != top)
			x->cand[i] = 0;
		for (int l = 0; x->cand[i] && l < m->levels; l++)
			x->cnt[m->node_sw[i * m->levels + l]]++;
	}
	return top;
}

/* Step 3: take leaf s's candidates in node order; the remaining count. */
static int64_t take_leaf(tree_ctx_t *x, int64_t s, int64_t rem, int64_t *nodes, int64_t *got)
{
	const sim_machine_t *m = x->m;
	for (int64_t e = m->sw_first[s]; e < m->sw_first[s + 1] && rem > 0; e++) {
		int64_t i = m->sw_nodes[e];
		if (!x->cand[i])
			continue;
		x->cand[i] = 0;
		nodes[(*got)++] = i;
		rem--;
	}
	x->cnt[s] = 0;
	return rem;
}

/* Step 2: leaves until the job has its k nodes. */
static int64_t leaf_rounds(tree_ctx_t *x, int64_t k, int64_t *nodes)
{
	const sim_machine_t *m = x->m;
	int64_t rem = k, prev = k + 1, got = 0;
	while (rem > 0 && prev != rem) {
		int64_t best = -1;
		prev = rem;
		for (int64_t s = 0; s < m->nsw && m->sw[s].level == 0; s++)
			choose_best(x, s, rem, &best);
		if (best < 0)
			break;
		for (int64_t s = 0; s < m->nsw && m->sw[s].level == 0; s++)
			x->dist[s] += sim_switch_dist(m, best, s);
		rem = take_leaf(x, best, rem, nodes, &got);
	}
	return got;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t select_nodes(tree_ctx_t *x, const sim_free_t *f, const unsigned char *cand,
			    int64_t k, int64_t *nodes)
{
	const sim_machine_t *m = x->m;
	for (int64_t i = 0; i < m->nnodes; i++) {
		x->cand[i] = f->free[i] && (!cand || cand[i]);
		for (int l = 0; x->cand[i] && l < m->levels; l++)
			x->cnt[m->node_sw[i * m->levels + l]]++;
	}
	if (top_switch(x, k) < 0)
		return 0;
	int64_t got = leaf_rounds(x, k, nodes);
	qsort(nodes, (size_t)got, sizeof(*nodes), cmp_i64);
	return got;
}

int sim_slurm_tree(const sim_machine_t *m, const sim_free_t *f, const unsigned char *cand,
		   int64_t k, int64_t *nodes, char *err)
{
	if (m->levels < 1) {
		return sim_err(err, TOPOMATCH_EINVAL, "slurm-tree needs a tree network (fattree, or "
						"a tree whose nodes all hang at one depth)");
	}
	tree_ctx_t x = { .m = m };
	x.cand = malloc((size_t)m->nnodes + 1);
	x.cnt = calloc((size_t)m->nsw + 1, sizeof(*x.cnt));
	x.dist = calloc((size_t)m->nsw + 1, sizeof(*x.dist));
	int rc = TOPOMATCH_OK;
	if (!x.cand || !x.cnt || !x.dist) {
		rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	} else if (select_nodes(&x, f, cand, k, nodes) != k) {
		rc = sim_err(err, TOPOMATCH_EINVAL, "slurm-tree: no %lld candidate nodes below one "
			 "switch", (long long)k);
	}
	free(x.cand);
	free(x.cnt);
	free(x.dist);
	return rc;
}

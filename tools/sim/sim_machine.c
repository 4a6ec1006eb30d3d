/*
 * sim_machine.c - the simulated cluster as the node-selection policies see
 * it: whole nodes of `cpn` cores for the SWF's processors, Slurm's switch
 * table on trees, and the free nodes of a run with per-switch counts.
 *
 * The switch table is what Slurm's topology/tree plugin builds from a
 * topology.conf describing the same tree (src/plugins/topology/tree/
 * topology_tree.c, Slurm 22.05: switch_record_table with level 0 for
 * leaf switches, a parent's level one more than its children's, the
 * parent index, and switches_dist = links between switches).  Its order
 * is the one admins write and `topomatch topo import-slurm` reads: leaf
 * switches first, in node order, then each level up to the root.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

static int oom(char *err)
{
	return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
}

/* The fewest cores of any node: every k-node allocation then has room
 * for k x cpn tasks, whatever nodes it gets. */
static int64_t fewest_cores(const topomatch_cluster_t *cl)
{
	int64_t best = -1;
	for (int64_t i = 0; i < topomatch_cluster_nnodes(cl); i++) {
		int cores;
		if (topomatch_cluster_node_hw(cl, i, NULL, &cores, NULL) == TOPOMATCH_OK &&
		    (best < 0 || cores < best))
			best = cores;
	}
	return best;
}

typedef struct vkey {
	int64_t vertex, node;
} vkey_t;

static int by_vertex(const void *x, const void *y)
{
	const vkey_t *a = x, *b = y;
	if (a->vertex != b->vertex)
		return a->vertex < b->vertex ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* Vertex of node i's switch at tree depth d (root 0). */
static int64_t vertex_at(const sim_machine_t *m, const int *arity, int64_t i, int d)
{
	int64_t pos = topomatch_cluster_node_position(m->cl, i, NULL);
	for (int k = m->levels - 1; k >= d; k--)
		pos /= arity[k];
	return pos;
}

/* The switches of one level, numbered from `base` in vertex order; each
 * node's switch of that level into node_sw. */
static int64_t number_level(sim_machine_t *m, const int *arity, int level, int64_t base,
			    vkey_t *key)
{
	int d = m->levels - 1 - level;
	for (int64_t i = 0; i < m->nnodes; i++)
		key[i] = (vkey_t){ vertex_at(m, arity, i, d), i };
	qsort(key, (size_t)m->nnodes, sizeof(*key), by_vertex);
	int64_t s = base - 1;
	for (int64_t k = 0; k < m->nnodes; k++) {
		if (k == 0 || key[k].vertex != key[k - 1].vertex) {
			s++;
			m->sw[s] = (sim_switch_t){ .level = level, .vertex = key[k].vertex,
						   .parent = -1 };
		}
		m->node_sw[key[k].node * m->levels + level] = s;
	}
	return s + 1;
}

/* Nodes of each leaf switch, in node order (CSR). */
static int leaf_lists(sim_machine_t *m)
{
	int64_t nleaf = 0;
	while (nleaf < m->nsw && m->sw[nleaf].level == 0)
		nleaf++;
	m->sw_first = calloc((size_t)nleaf + 2, sizeof(*m->sw_first));
	m->sw_nodes = malloc((size_t)m->nnodes * sizeof(*m->sw_nodes) + 1);
	if (!m->sw_first || !m->sw_nodes)
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < m->nnodes; i++)
		m->sw_first[m->node_leaf[i] + 1]++;
	for (int64_t s = 0; s < nleaf; s++)
		m->sw_first[s + 1] += m->sw_first[s];
	int64_t *fill = calloc((size_t)nleaf + 1, sizeof(*fill));
	if (!fill)
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < m->nnodes; i++) {
		int64_t s = m->node_leaf[i];
		m->sw_nodes[m->sw_first[s] + fill[s]++] = i;
	}
	free(fill);
	return TOPOMATCH_OK;
}

static int build_switches(sim_machine_t *m)
{
	int arity[TOPOMATCH_MAX_LEVELS];
	topomatch_topology_tree_shape(topomatch_cluster_topology(m->cl), arity, NULL);
	m->sw = malloc((size_t)(m->nnodes * m->levels) * sizeof(*m->sw) + 1);
	m->node_sw = malloc((size_t)(m->nnodes * m->levels) * sizeof(*m->node_sw) + 1);
	m->node_leaf = malloc((size_t)m->nnodes * sizeof(*m->node_leaf) + 1);
	vkey_t *key = malloc((size_t)m->nnodes * sizeof(*key) + 1);
	if (!m->sw || !m->node_sw || !m->node_leaf || !key) {
		free(key);
		return TOPOMATCH_ENOMEM;
	}
	m->nsw = 0;
	for (int level = 0; level < m->levels; level++)
		m->nsw = number_level(m, arity, level, m->nsw, key);
	free(key);
	for (int64_t i = 0; i < m->nnodes; i++) {
		const int64_t *up = &m->node_sw[i * m->levels];
		m->node_leaf[i] = up[0];
		for (int level = 0; level + 1 < m->levels; level++)
			m->sw[up[level]].parent = up[level + 1];
	}
	return leaf_lists(m);
}

/* Nodes by network position: on a tree the first k fill the first leaf
 * switches, the compact placement the model compares with. */
static int compact_order(sim_machine_t *m)
{
	vkey_t *key = malloc((size_t)m->nnodes * sizeof(*key) + 1);
	if (!key || !(m->compact = malloc((size_t)m->nnodes * sizeof(*m->compact) + 1))) {
		free(key);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t i = 0; i < m->nnodes; i++)
		key[i] = (vkey_t){ topomatch_cluster_node_position(m->cl, i, NULL), i };
	qsort(key, (size_t)m->nnodes, sizeof(*key), by_vertex);
	for (int64_t i = 0; i < m->nnodes; i++)
		m->compact[i] = key[i].node;
	free(key);
	return TOPOMATCH_OK;
}

int sim_machine_init(sim_machine_t *m, const topomatch_cluster_t *cl, int64_t cpn, char *err)
{
	memset(m, 0, sizeof(*m));
	m->cl = cl;
	m->nnodes = topomatch_cluster_nnodes(cl);
	m->cpn = cpn > 0 ? cpn : fewest_cores(cl);
	if (m->cpn <= 0) {
		return sim_err(err, TOPOMATCH_EINVAL, "the cluster's nodes have no cores");
	}
	topomatch_cluster_node_position(cl, 0, &m->levels);
	if (compact_order(m)) {
		sim_machine_free(m);
		return oom(err);
	}
	if (m->levels < 1) {
		m->levels = -1; /* not a tree: no switch table */
		return TOPOMATCH_OK;
	}
	if (build_switches(m)) {
		sim_machine_free(m);
		return oom(err);
	}
	return TOPOMATCH_OK;
}

void sim_machine_free(sim_machine_t *m)
{
	free(m->sw);
	free(m->node_sw);
	free(m->node_leaf);
	free(m->sw_first);
	free(m->sw_nodes);
	free(m->compact);
	free(m->link_intra);
	memset(m, 0, sizeof(*m));
}

/* Links on the tree path between two switches (Slurm computes the same
 * with Floyd-Warshall over parent-child links of length 1). */
int64_t sim_switch_dist(const sim_machine_t *m, int64_t a, int64_t b)
{
	int64_t d = 0;
	while (a != b) {
		if (m->sw[a].level <= m->sw[b].level)
			a = m->sw[a].parent;
		else
			b = m->sw[b].parent;
		d++;
	}
	return d;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

int64_t sim_switches_spanned(const sim_machine_t *m, const int64_t *nodes, int64_t n)
{
	if (m->levels < 1)
		return -1;
	int64_t *leaf = malloc((size_t)n * sizeof(*leaf) + 1), count = 0;
	if (!leaf)
		return -1;
	for (int64_t k = 0; k < n; k++)
		leaf[k] = m->node_leaf[nodes[k]];
	qsort(leaf, (size_t)n, sizeof(*leaf), cmp_i64);
	for (int64_t k = 0; k < n; k++)
		count += k == 0 || leaf[k] != leaf[k - 1];
	free(leaf);
	return count;
}

/* ------------------------------------------------------------ free nodes */

int sim_free_init(sim_free_t *f, const sim_machine_t *m)
{
	f->free = malloc((size_t)m->nnodes + 1);
	f->sw_free = calloc((size_t)m->nsw + 1, sizeof(*f->sw_free));
	if (!f->free || !f->sw_free) {
		sim_free_free(f);
		return TOPOMATCH_ENOMEM;
	}
	memset(f->free, 1, (size_t)m->nnodes);
	f->nfree = m->nnodes;
	for (int64_t i = 0; i < m->nnodes && m->levels > 0; i++)
		for (int level = 0; level < m->levels; level++)
			f->sw_free[m->node_sw[i * m->levels + level]]++;
	return TOPOMATCH_OK;
}

void sim_free_free(sim_free_t *f)
{
	free(f->free);
	free(f->sw_free);
	memset(f, 0, sizeof(*f));
}

static void change(sim_free_t *f, const sim_machine_t *m, const int64_t *nodes, int64_t n,
		   int to)
{
	for (int64_t k = 0; k < n; k++) {
		f->free[nodes[k]] = (unsigned char)to;
		f->nfree += to ? 1 : -1;
		for (int level = 0; level < m->levels; level++)
			f->sw_free[m->node_sw[nodes[k] * m->levels + level]] += to ? 1 : -1;
	}
}

void sim_free_take(sim_free_t *f, const sim_machine_t *m, const int64_t *nodes, int64_t n)
{
	change(f, m, nodes, n, 0);
}

void sim_free_give(sim_free_t *f, const sim_machine_t *m, const int64_t *nodes, int64_t n)
{
	change(f, m, nodes, n, 1);
}

int sim_nodes_pus(const sim_machine_t *m, const int64_t *nodes, int64_t n, int64_t **pus,
		  int64_t *npus, char *err)
{
	int64_t total = 0, count;
	for (int64_t k = 0; k < n; k++) {
		topomatch_cluster_node_pus(m->cl, nodes[k], &count);
		total += count;
	}
	if (!(*pus = malloc((size_t)total * sizeof(**pus) + 1)))
		return oom(err);
	*npus = 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t first = topomatch_cluster_node_pus(m->cl, nodes[k], &count);
		for (int64_t j = 0; j < count; j++)
			(*pus)[(*npus)++] = first + j;
	}
	return TOPOMATCH_OK;
}

/*
 * cluster_tree.c - tree networks into the core model: a fat tree is a
 * balanced tree already; an irregular switch tree (YAML `tree`, Slurm
 * topology.conf) is embedded into the enclosing regular tree, whose
 * empty positions the mappers then avoid (TopoMatch §3.2 and §4.2.1: a
 * tree that is not balanced is a tleaf plus constraints, §4.4).  The node
 * shape hangs below the network's last level in both cases.  A switch
 * tree whose nodes hang at different depths is a graph instead
 * (cluster_graph.c), which keeps its distances exact.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message at a place of the switch tree's own file (the YAML, or the
 * topology.conf a `slurm` network names). */
static int sw_err(const topomatch_cluster_t *c, int64_t line, int64_t col, char *err,
		  const char *what, const char *name)
{
	const char *f = c->d.sw.file ? c->d.sw.file : "cluster";
	if (col > 0)
		return tm_err(err, TOPOMATCH_EPARSE, "%s:%lld:%lld: %s%s", f, (long long)line,
			      (long long)col, what, name);
	return tm_err(err, TOPOMATCH_EPARSE, "%s:%lld: %s%s", f, (long long)line, what, name);
}

/* Network levels + node levels -> the core's balanced tree. */
static int make_tree(topomatch_cluster_t *c, int nnet, const int *arity, const double *cost,
		     char *err)
{
	int ar[TOPOMATCH_MAX_LEVELS];
	double co[TOPOMATCH_MAX_LEVELS];
	int L = nnet + c->shape.nlevels;
	if (L > TOPOMATCH_MAX_LEVELS)
		return tm_cluster_err(&c->d, c->d.shape_pos, err, TOPOMATCH_ELIMIT,
				      "%d network levels and %d node levels exceed %d levels",
				      nnet, c->shape.nlevels, TOPOMATCH_MAX_LEVELS);
	for (int k = 0; k < L; k++) {
		ar[k] = k < nnet ? arity[k] : c->shape.arity[k - nnet];
		co[k] = k < nnet ? cost[k] : 1;
	}
	char why[TOPOMATCH_ERRLEN];
	int rc = topomatch_topology_tree(L, ar, co, &c->topo, why);
	if (rc)
		return tm_cluster_err(&c->d, c->d.shape_pos, err, rc, "%s", why);
	return TOPOMATCH_OK;
}

int tm_cluster_build_fattree(topomatch_cluster_t *c, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	int64_t slots = 1;
	for (int k = 0; k < d->nlevels; k++)
		if (!tm_mul_ok(slots, d->arity[k], &slots) || slots > TM_CLUSTER_MAX_NODES)
			return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_ELIMIT,
					      "levels: more than %lld node positions",
					      (long long)TM_CLUSTER_MAX_NODES);
	if (slots != d->nnodes)
		return tm_cluster_err(d, d->shape_pos, err, TOPOMATCH_EPARSE,
				      "levels: the arities give %lld node positions, but the node "
				      "groups list %lld nodes (an irregular tree is type: tree)",
				      (long long)slots, (long long)d->nnodes);
	c->nslots = slots;
	for (int64_t i = 0; i < d->nnodes; i++)
		c->slot[i] = i;
	return make_tree(c, d->nlevels, d->arity, d->cost, err);
}

/* ------------------------------------------------------- irregular trees */

static int64_t nodes_at(const tm_switch_t *s)
{
	return s->nodes ? tm_hostlist_count(s->nodes) : 0;
}

/* Switches from the root down, parents before children. */
static int64_t *top_down(const tm_swtree_t *t)
{
	int64_t *q = tm_alloc(t->n, sizeof(*q)), head = 0, tail = 0;
	if (!q)
		return NULL;
	q[tail++] = t->root;
	while (head < tail) {
		const tm_switch_t *s = &t->sw[q[head++]];
		for (int64_t k = 0; k < s->nchild; k++)
			q[tail++] = s->child[k];
	}
	return q;
}

/* Arity of the enclosing tree at each switch depth: the most children
 * (switches, or nodes at the last level) any switch of that depth has. */
static int enclosing_arity(const topomatch_cluster_t *c, int *arity, char *err)
{
	const tm_swtree_t *t = &c->d.sw;
	int H = (int)t->height + 1;
	if (H + c->shape.nlevels > TOPOMATCH_MAX_LEVELS)
		return tm_cluster_err(&c->d, c->d.shape_pos, err, TOPOMATCH_ELIMIT,
				      "the switch tree is %d levels deep; with %d node levels "
				      "that exceeds %d", H, c->shape.nlevels, TOPOMATCH_MAX_LEVELS);
	for (int k = 0; k < H; k++)
		arity[k] = 1;
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		int64_t n = s->nchild + nodes_at(s);
		if (n > 65536)
			return sw_err(c, s->line, s->col, err, "more than 65536 children at switch ",
				      s->name);
		arity[s->depth] = n > arity[s->depth] ? (int)n : arity[s->depth];
	}
	return TOPOMATCH_OK;
}

/* Place the nodes attached to switch s (a last-level switch), whose
 * position among the switches of its depth is pos. */
static int place_nodes(topomatch_cluster_t *c, const tm_switch_t *s, int64_t pos,
		       const int *arity, char *err)
{
	char name[300];
	for (int64_t j = 0; j < nodes_at(s); j++) {
		int64_t slot = pos * arity[s->depth] + j;
		tm_hostlist_name(s->nodes, j, name, sizeof(name) - 32); /* room for the note */
		int64_t i = tm_hostlist_find(c->d.all, name);
		if (i < 0) {
			char what[600];
			snprintf(what, sizeof(what), "switch '%s': unknown node ", s->name);
			return sw_err(c, s->nodes_line, s->nodes_col, err, what,
				      strcat(name, " (not in any node group)"));
		}
		c->slot[i] = slot;
	}
	return TOPOMATCH_OK;
}

static int place_all(topomatch_cluster_t *c, const int *arity, char *err)
{
	const tm_swtree_t *t = &c->d.sw;
	int64_t *order = top_down(t), *pos = tm_alloc(t->n, sizeof(*pos));
	int rc = order && pos ? TOPOMATCH_OK : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < c->d.nnodes; i++)
		c->slot[i] = -1;
	if (rc == TOPOMATCH_OK)
		pos[t->root] = 0;
	for (int64_t k = 0; rc == TOPOMATCH_OK && k < t->n; k++) {
		const tm_switch_t *s = &t->sw[order[k]];
		for (int64_t j = 0; j < s->nchild; j++)
			pos[s->child[j]] = pos[order[k]] * arity[s->depth] + j;
		rc = place_nodes(c, s, pos[order[k]], arity, err);
	}
	free(order);
	free(pos);
	return rc ? rc : tm_cluster_check_attached(c, err);
}

/* Every node at the same depth: the embedding keeps all distances. */
static bool uniform_depth(const tm_swtree_t *t)
{
	for (int64_t i = 0; i < t->n; i++)
		if (nodes_at(&t->sw[i]) && t->sw[i].depth != t->height)
			return false;
	return true;
}

int tm_cluster_build_tree(topomatch_cluster_t *c, char *err)
{
	if (!uniform_depth(&c->d.sw))
		return tm_cluster_build_graph(c, err);
	int arity[TOPOMATCH_MAX_LEVELS];
	int rc = enclosing_arity(c, arity, err);
	if (rc)
		return rc;
	int H = (int)c->d.sw.height + 1;
	if (c->d.ncosts > H)
		return tm_cluster_err(&c->d, c->d.shape_pos, err, TOPOMATCH_EPARSE,
				      "costs: %d values for a switch tree of %d levels",
				      c->d.ncosts, H);
	c->nslots = 1;
	for (int k = 0; k < H; k++)
		if (!tm_mul_ok(c->nslots, arity[k], &c->nslots) ||
		    c->nslots > TM_CLUSTER_MAX_NODES)
			return tm_cluster_err(&c->d, c->d.shape_pos, err, TOPOMATCH_ELIMIT,
					      "the enclosing regular tree of this switch tree has "
					      "more than %lld node positions",
					      (long long)TM_CLUSTER_MAX_NODES);
	rc = place_all(c, arity, err);
	return rc ? rc : make_tree(c, H, arity, c->d.cost, err);
}

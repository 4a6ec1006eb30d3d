/*
 * cluster_slurm.c - the cluster description next to Slurm's own files:
 * a cross-check of the nodes against slurm.conf (`topomatch topo check
 * --slurm-conf`), and a cluster description written from a topology.conf
 * (`topomatch topo import-slurm`).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"
#include "slurm_conf.h"
#include "slurm_topo.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ slurm.conf check */

static int64_t check_node(const topomatch_cluster_t *c, const tm_slurm_conf_t *sc, int64_t i,
			  FILE *report)
{
	char name[TM_HOSTLIST_MAX_NAME + 1];
	int s, cores, t;
	topomatch_cluster_node_name(c, i, name, sizeof(name));
	topomatch_cluster_node_hw(c, i, &s, &cores, &t);
	const tm_node_group_t *g = &c->d.group[c->node_group[i]];
	const char *f = c->d.doc->name;
	int64_t k = tm_slurm_conf_find(sc, name);
	if (k < 0) {
		fprintf(report, "%s:%lld:%lld: node %s is not in %s\n", f, (long long)g->pos.line,
			(long long)g->pos.col, name, sc->files[0]);
		return 1;
	}
	const tm_slurm_node_t *n = &sc->node[k];
	int scores = n->sockets * n->cores_per_socket;
	if (n->sockets == s && scores == cores && n->threads_per_core == t)
		return 0;
	fprintf(report,
		"%s:%lld:%lld: node %s: %d sockets, %d cores, %d threads per core here, but %d, "
		"%d, %d in %s:%lld\n",
		f, (long long)g->pos.line, (long long)g->pos.col, name, s, cores, t, n->sockets,
		scores, n->threads_per_core, n->file, (long long)n->line);
	return 1;
}

/* slurm.conf nodes the cluster description lacks */
static int64_t check_reverse(const topomatch_cluster_t *c, const tm_slurm_conf_t *sc,
			     FILE *report)
{
	char name[TM_HOSTLIST_MAX_NAME + 1];
	int64_t bad = 0;
	for (int64_t k = 0; k < sc->n; k++) {
		const tm_slurm_node_t *n = &sc->node[k];
		for (int64_t j = 0; j < tm_hostlist_count(n->hosts); j++) {
			tm_hostlist_name(n->hosts, j, name, sizeof(name));
			if (topomatch_cluster_node_find(c, name) >= 0)
				continue;
			fprintf(report, "%s:%lld:%lld: node %s is not in %s\n", n->file,
				(long long)n->line, (long long)n->col, name, c->d.doc->name);
			bad++;
		}
	}
	return bad;
}

int64_t topomatch_cluster_check_slurm_conf(const topomatch_cluster_t *c,
					   const char *slurm_conf, FILE *report, char *err)
{
	tm_slurm_conf_t sc;
	int rc = tm_slurm_conf_read(slurm_conf, &sc, err);
	if (rc)
		return -rc;
	int64_t bad = 0;
	for (int64_t i = 0; i < c->d.nnodes; i++)
		bad += check_node(c, &sc, i, report);
	bad += check_reverse(c, &sc, report);
	tm_slurm_conf_free(&sc);
	return bad;
}

/* ------------------------------------------------------------ import */

/* Nodes in tree order: the switches depth first, children as written. */
static int tree_order(const tm_swtree_t *t, int64_t **out_sw, int64_t *nsw)
{
	int64_t *stack = tm_alloc(t->n, sizeof(*stack)), *order = tm_alloc(t->n, sizeof(*order));
	int64_t top = 0, n = 0;
	if (!stack || !order) {
		free(stack);
		free(order);
		return TOPOMATCH_ENOMEM;
	}
	stack[top++] = t->root;
	while (top > 0) {
		const tm_switch_t *s = &t->sw[stack[--top]];
		order[n++] = s - t->sw;
		for (int64_t k = s->nchild - 1; k >= 0; k--)
			stack[top++] = s->child[k];
	}
	free(stack);
	*out_sw = order;
	*nsw = n;
	return TOPOMATCH_OK;
}

/* The hwloc synthetic string of a slurm.conf node, or a placeholder. */
static void hardware_of(const tm_slurm_conf_t *sc, const char *name, char *buf, size_t len)
{
	int64_t k = sc ? tm_slurm_conf_find(sc, name) : -1;
	if (k < 0) {
		snprintf(buf, len, "core:1 pu:1");
		return;
	}
	const tm_slurm_node_t *n = &sc->node[k];
	snprintf(buf, len, "pack:%d core:%d pu:%d", n->sockets, n->cores_per_socket,
		 n->threads_per_core);
}

struct group_writer {
	FILE *out;
	char **names;
	int64_t n, cap;
	char hw[128];
};

static int flush_group(struct group_writer *w)
{
	if (w->n == 0)
		return TOPOMATCH_OK;
	char *list;
	char why[TOPOMATCH_ERRLEN];
	int rc = tm_hostlist_compress((const char *const *)w->names, w->n, &list, why);
	if (rc)
		return rc;
	fprintf(w->out, "  - names: %s\n    hardware: \"%s\"\n", list, w->hw);
	free(list);
	for (int64_t k = 0; k < w->n; k++)
		free(w->names[k]);
	w->n = 0;
	return TOPOMATCH_OK;
}

/* Node groups: runs of nodes in tree order with the same hardware. */
static int write_groups(const tm_swtree_t *t, const tm_slurm_conf_t *sc, FILE *out)
{
	struct group_writer w = { .out = out };
	int64_t *order = NULL, nsw = 0;
	int rc = tree_order(t, &order, &nsw);
	char name[TM_HOSTLIST_MAX_NAME + 1], hw[128];
	for (int64_t k = 0; rc == TOPOMATCH_OK && k < nsw; k++) {
		const tm_switch_t *s = &t->sw[order[k]];
		for (int64_t j = 0; rc == TOPOMATCH_OK && s->nodes &&
				    j < tm_hostlist_count(s->nodes); j++) {
			tm_hostlist_name(s->nodes, j, name, sizeof(name));
			hardware_of(sc, name, hw, sizeof(hw));
			if (w.n && strcmp(hw, w.hw))
				rc = flush_group(&w);
			if (rc == TOPOMATCH_OK && w.n == w.cap) {
				int64_t cap = w.cap ? 2 * w.cap : 256;
				char **p = realloc(w.names, (size_t)cap * sizeof(*p));
				rc = p ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
				w.names = p ? p : w.names;
				w.cap = p ? cap : w.cap;
			}
			if (rc == TOPOMATCH_OK && !(w.names[w.n++] = strdup(name)))
				rc = TOPOMATCH_ENOMEM;
			strcpy(w.hw, hw);
		}
	}
	if (rc == TOPOMATCH_OK)
		rc = flush_group(&w);
	for (int64_t k = 0; k < w.n; k++)
		free(w.names[k]);
	free(w.names);
	free(order);
	return rc;
}

static void write_switches(const tm_swtree_t *t, FILE *out)
{
	fprintf(out, "network:\n  type: tree\n  switches:\n");
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		fprintf(out, "    - name: %s\n", s->name);
		if (s->switches_text)
			fprintf(out, "      switches: %s\n", s->switches_text);
		if (s->nodes_text)
			fprintf(out, "      nodes: %s\n", s->nodes_text);
		if (s->link_speed > 0)
			fprintf(out, "      bandwidth: %.17g\n", s->link_speed);
	}
}

int topomatch_cluster_import_slurm(const char *topology_conf, const char *slurm_conf,
				   const char *name, FILE *out, char *err)
{
	tm_swtree_t t;
	tm_slurm_conf_t sc;
	int rc = tm_slurm_topology_read(topology_conf, &t, err);
	if (rc)
		return rc;
	if (slurm_conf && (rc = tm_slurm_conf_read(slurm_conf, &sc, err))) {
		tm_swtree_free(&t);
		return rc;
	}
	if (!name)
		name = slurm_conf && sc.cluster_name ? sc.cluster_name : "cluster";
	fprintf(out, "# Cluster description made by 'topomatch topo import-slurm' from %s%s%s.\n",
		topology_conf, slurm_conf ? " and " : "", slurm_conf ? slurm_conf : "");
	if (!slurm_conf)
		fprintf(out, "# Set each node group's hardware (an hwloc synthetic string such as\n"
			     "# \"pack:2 core:12 pu:1\"): topology.conf does not say it.\n");
	fprintf(out, "cluster: %s\nnodes:\n", name);
	rc = write_groups(&t, slurm_conf ? &sc : NULL, out);
	if (rc == TOPOMATCH_OK)
		write_switches(&t, out);
	if (rc == TOPOMATCH_OK && (ferror(out) || fflush(out)))
		rc = tm_err(err, TOPOMATCH_EIO, "write failed");
	else if (rc)
		rc = tm_err(err, rc, "out of memory");
	if (slurm_conf)
		tm_slurm_conf_free(&sc);
	tm_swtree_free(&t);
	return rc;
}

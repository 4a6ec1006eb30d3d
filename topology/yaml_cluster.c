/*
 * yaml_cluster.c - the cluster schema of topomatch.yaml(5): cluster name,
 * node groups (hostlist + hwloc hardware), and one network section per
 * type (fattree, tree, torus, mesh, dragonfly, graph, slurm).  Every
 * error names FILE:LINE:COL of what is wrong.  Checks that need the whole
 * picture (shape against node count, attachments) are the builders'.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"
#include "slurm_topo.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARITY 65536
#define MAX_DIM 65536

typedef const tm_ynode_t ynode;

static tm_pos_t pos_of(ynode *n)
{
	return (tm_pos_t){ n ? n->line : 0, n ? n->col : 0 };
}

int tm_cluster_err(const tm_cluster_desc_t *d, tm_pos_t pos, char *err, int status,
		   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = tm_vyerr_at(d->doc, pos.line, pos.col, err, status, fmt, ap);
	va_end(ap);
	return rc;
}

/* The value of a required key, or an error at the mapping that lacks it. */
static int need(const tm_cluster_desc_t *d, ynode *m, const char *key, const char *what, ynode **v,
		char *err)
{
	*v = tm_ymap_get(m, key);
	if (*v)
		return TOPOMATCH_OK;
	return tm_yerr(d->doc, m, err, TOPOMATCH_EPARSE, "%s: missing '%s'", what, key);
}

static int expect_seq(const tm_cluster_desc_t *d, ynode *s, const char *what, char *err)
{
	if (s->kind == TM_Y_SEQ && s->n > 0)
		return TOPOMATCH_OK;
	return tm_yerr(d->doc, s, err, TOPOMATCH_EPARSE, "%s: expected a non-empty list", what);
}

static int get_int(const tm_cluster_desc_t *d, ynode *m, const char *key, int64_t min,
		   int64_t max, int64_t dflt, int64_t *v, char *err)
{
	ynode *s = tm_ymap_get(m, key);
	if (!s) {
		*v = dflt;
		return TOPOMATCH_OK;
	}
	return tm_ynode_int(d->doc, s, key, min, max, v, err);
}

/* A positive cost or bandwidth (0 = not given). */
static int get_pos(const tm_cluster_desc_t *d, ynode *m, const char *key, double *v, char *err)
{
	ynode *s = tm_ymap_get(m, key);
	*v = 0;
	if (!s)
		return TOPOMATCH_OK;
	int rc = tm_ynode_double(d->doc, s, key, 0, 1e12, v, err);
	if (rc == TOPOMATCH_OK && *v <= 0)
		rc = tm_yerr(d->doc, s, err, TOPOMATCH_EPARSE, "%s: must be above 0", key);
	return rc;
}

static int parse_hostlist(const tm_cluster_desc_t *d, ynode *s, const char *what,
			  tm_hostlist_t **out, char *err)
{
	const char *text;
	char why[TOPOMATCH_ERRLEN];
	int rc = tm_ynode_str(d->doc, s, what, &text, err);
	if (rc)
		return rc;
	rc = tm_hostlist_parse(text, TM_CLUSTER_MAX_NODES, out, why);
	if (rc)
		return tm_yerr(d->doc, s, err, rc, "%s: %s", what, why);
	if (tm_hostlist_count(*out) == 0) {
		tm_hostlist_destroy(*out);
		*out = NULL;
		return tm_yerr(d->doc, s, err, TOPOMATCH_EPARSE, "%s: no names", what);
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------ node groups */

static char *path_in(const char *dir, const char *p)
{
	if (p[0] == '/' || !dir || !dir[0])
		return strdup(p);
	size_t n = strlen(dir) + strlen(p) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, p);
	return s;
}

static int read_hardware(tm_cluster_desc_t *d, tm_node_group_t *g, ynode *m, char *err)
{
	static const char *const keys[] = { "names", "hardware", "hardware_xml", NULL };
	int rc = tm_ymap_check_keys(d->doc, m, "node group", keys, err);
	if (rc)
		return rc;
	ynode *syn = tm_ymap_get(m, "hardware"), *xml = tm_ymap_get(m, "hardware_xml");
	if (!syn == !xml)
		return tm_yerr(d->doc, syn && xml ? xml : m, err, TOPOMATCH_EPARSE,
			       "node group: give exactly one of 'hardware' (an hwloc synthetic "
			       "string such as \"pack:2 core:12 pu:1\") and 'hardware_xml'");
	ynode *h = syn ? syn : xml;
	const char *text;
	char why[TOPOMATCH_ERRLEN];
	rc = tm_ynode_str(d->doc, h, syn ? "hardware" : "hardware_xml", &text, err);
	if (rc)
		return rc;
	g->is_xml = xml != NULL;
	g->hardware = g->is_xml ? path_in(d->dir, text) : strdup(text);
	if (!g->hardware)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	/* Generated files often repeat one node type per group: load it once
	 * (hwloc takes ~30 ms for a 4096-PU node). */
	for (tm_node_group_t *o = d->group; o < g; o++)
		if (o->is_xml == g->is_xml && strcmp(o->hardware, g->hardware) == 0)
			return tm_node_hw_copy(&o->hw, &g->hw) ? TOPOMATCH_OK
				: tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	rc = g->is_xml ? tm_node_hw_xml(g->hardware, &g->hw, why)
		       : tm_node_hw_synthetic(g->hardware, &g->hw, why);
	if (rc)
		return tm_yerr(d->doc, h, err, rc, "%s", why);
	return TOPOMATCH_OK;
}

static int read_group(tm_cluster_desc_t *d, tm_node_group_t *g, ynode *m, char *err)
{
	ynode *names = NULL;
	int rc = read_hardware(d, g, m, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, m, "names", "node group", &names, err);
	if (rc == TOPOMATCH_OK)
		rc = parse_hostlist(d, names, "names", &g->hosts, err);
	if (rc == TOPOMATCH_OK && !(g->names = strdup(names->str)))
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	g->pos = pos_of(names);
	return rc;
}

/* Every node once, in PU order: the groups' lists joined into one. */
static int join_groups(tm_cluster_desc_t *d, char *err)
{
	size_t len = 1;
	for (int64_t i = 0; i < d->ngroups; i++)
		len += strlen(d->group[i].names) + 1;
	char *all = malloc(len), why[TOPOMATCH_ERRLEN];
	if (!all)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	all[0] = 0;
	for (int64_t i = 0; i < d->ngroups; i++) {
		d->group[i].first = d->nnodes;
		d->nnodes += tm_hostlist_count(d->group[i].hosts);
		strcat(all, i ? "," : "");
		strcat(all, d->group[i].names);
	}
	int rc = tm_hostlist_parse(all, TM_CLUSTER_MAX_NODES, &d->all, why);
	free(all);
	if (rc)
		return tm_cluster_err(d, d->group[0].pos, err, rc, "nodes: %s", why);
	int64_t a, b;
	int dup = tm_hostlist_duplicate(d->all, &a, &b);
	if (dup < 0)
		return tm_err(err, -dup, "nodes: cannot check for duplicate names");
	if (dup == 0)
		return TOPOMATCH_OK;
	char name[TM_HOSTLIST_MAX_NAME + 1];
	tm_hostlist_name(d->all, b, name, sizeof(name));
	int64_t ga = 0, gb = 0;
	for (int64_t i = 0; i < d->ngroups; i++) {
		ga = d->group[i].first <= a ? i : ga;
		gb = d->group[i].first <= b ? i : gb;
	}
	return tm_cluster_err(d, d->group[gb].pos, err, TOPOMATCH_EPARSE,
			      "node %s is listed twice (also at line %lld)", name,
			      (long long)d->group[ga].pos.line);
}

static int read_nodes(tm_cluster_desc_t *d, ynode *root, char *err)
{
	ynode *s = NULL;
	int rc = need(d, root, "nodes", "cluster", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, s, "nodes", err);
	if (rc)
		return rc;
	if (!(d->group = tm_zalloc(s->n, sizeof(*d->group))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < s->n && rc == TOPOMATCH_OK; i++, d->ngroups++)
		rc = read_group(d, &d->group[i], s->items[i], err);
	return rc ? rc : join_groups(d, err);
}

/* --------------------------------------------------------------- fattree */

/* Costs from bandwidths: the fastest link costs 1, a link half as fast 2. */
static void costs_from_bandwidth(double *cost, const double *bw, int64_t n)
{
	double top = 0;
	for (int64_t k = 0; k < n; k++)
		top = bw[k] > top ? bw[k] : top;
	for (int64_t k = 0; k < n; k++)
		if (cost[k] == 0)
			cost[k] = bw[k] > 0 ? top / bw[k] : 1;
}

static int read_fattree(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "levels", NULL };
	static const char *const lkeys[] = { "arity", "cost", "bandwidth", NULL };
	ynode *lv = NULL;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "levels", "network", &lv, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, lv, "levels", err);
	if (rc == TOPOMATCH_OK && lv->n > TOPOMATCH_MAX_LEVELS - TM_NODE_MAX_LEVELS)
		rc = tm_yerr(d->doc, lv, err, TOPOMATCH_ELIMIT, "levels: at most %d levels",
			     TOPOMATCH_MAX_LEVELS - TM_NODE_MAX_LEVELS);
	if (rc)
		return rc;
	d->shape_pos = pos_of(lv);
	double bw[TOPOMATCH_MAX_LEVELS] = { 0 };
	for (int64_t k = 0; k < lv->n && rc == TOPOMATCH_OK; k++) {
		ynode *l = lv->items[k], *a;
		int64_t v = 0;
		rc = tm_ymap_check_keys(d->doc, l, "level", lkeys, err);
		if (rc == TOPOMATCH_OK)
			rc = need(d, l, "arity", "level", &a, err);
		if (rc == TOPOMATCH_OK)
			rc = tm_ynode_int(d->doc, a, "arity", 1, MAX_ARITY, &v, err);
		if (rc == TOPOMATCH_OK)
			rc = get_pos(d, l, "cost", &d->cost[k], err);
		if (rc == TOPOMATCH_OK)
			rc = get_pos(d, l, "bandwidth", &bw[k], err);
		d->arity[k] = (int)v;
	}
	d->nlevels = (int)lv->n;
	if (rc == TOPOMATCH_OK)
		costs_from_bandwidth(d->cost, bw, d->nlevels);
	return rc;
}

/* ------------------------------------------------------------ tree/slurm */

static int read_costs(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *c = tm_ymap_get(net, "costs");
	for (int k = 0; k < TOPOMATCH_MAX_LEVELS; k++)
		d->cost[k] = 1;
	if (!c)
		return TOPOMATCH_OK;
	int rc = expect_seq(d, c, "costs", err);
	if (rc == TOPOMATCH_OK && c->n > TOPOMATCH_MAX_LEVELS)
		rc = tm_yerr(d->doc, c, err, TOPOMATCH_ELIMIT, "costs: at most %d values",
			     TOPOMATCH_MAX_LEVELS);
	for (int64_t k = 0; k < c->n && rc == TOPOMATCH_OK; k++) {
		rc = tm_ynode_double(d->doc, c->items[k], "cost", 0, 1e12, &d->cost[k], err);
		if (rc == TOPOMATCH_OK && d->cost[k] <= 0)
			rc = tm_yerr(d->doc, c->items[k], err, TOPOMATCH_EPARSE,
				     "cost: must be above 0");
	}
	d->ncosts = (int)c->n;
	return rc;
}

static const char *opt_str(ynode *m, const char *key, tm_pos_t *pos)
{
	ynode *s = tm_ymap_get(m, key);
	*pos = pos_of(s);
	return s && s->kind == TM_Y_SCALAR ? s->str : NULL;
}

static int read_switch(tm_cluster_desc_t *d, ynode *m, char *err)
{
	static const char *const keys[] = { "name", "switches", "nodes", "bandwidth", NULL };
	ynode *name = NULL;
	double bw;
	int rc = tm_ymap_check_keys(d->doc, m, "switch", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, m, "name", "switch", &name, err);
	if (rc == TOPOMATCH_OK && name->kind != TM_Y_SCALAR)
		rc = tm_yerr(d->doc, name, err, TOPOMATCH_EPARSE, "name: expected a string");
	if (rc == TOPOMATCH_OK)
		rc = get_pos(d, m, "bandwidth", &bw, err);
	for (const char *k = "switches"; rc == TOPOMATCH_OK && k; k = k[0] == 's' ? "nodes" : 0) {
		ynode *v = tm_ymap_get(m, k);
		if (v && v->kind != TM_Y_SCALAR)
			rc = tm_yerr(d->doc, v, err, TOPOMATCH_EPARSE,
				     "%s: expected a host list such as 'n[001-016]'", k);
	}
	if (rc)
		return rc;
	tm_pos_t sp, np;
	const char *sw = opt_str(m, "switches", &sp), *nodes = opt_str(m, "nodes", &np);
	return tm_swtree_add(&d->sw, name->str, name->line, name->col, sw, sp.line, sp.col, nodes,
			     np.line, np.col, bw, err);
}

static int read_tree(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "switches", "costs", NULL };
	ynode *s = NULL;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "switches", "network", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, s, "switches", err);
	if (rc == TOPOMATCH_OK)
		rc = read_costs(d, net, err);
	d->shape_pos = pos_of(s);
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < s->n; i++)
		rc = read_switch(d, s->items[i], err);
	return rc ? rc : tm_swtree_resolve(&d->sw, TM_CLUSTER_MAX_NODES, err);
}

static int read_slurm(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "file", "costs", NULL };
	ynode *f = NULL;
	const char *p;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "file", "network", &f, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_str(d->doc, f, "file", &p, err);
	if (rc == TOPOMATCH_OK)
		rc = read_costs(d, net, err);
	if (rc)
		return rc;
	d->shape_pos = pos_of(f);
	if (!(d->slurm_file = path_in(d->dir, p)))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	/* the switch tree's messages name topology.conf, which outlives them */
	rc = tm_slurm_topology_read(d->slurm_file, &d->sw, err);
	return rc;
}

/* ------------------------------------------------------------ torus/mesh */

static int read_dims(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *s = NULL;
	int rc = need(d, net, "dims", "network", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, s, "dims", err);
	if (rc == TOPOMATCH_OK && s->n > TOPOMATCH_MAX_DIMS)
		rc = tm_yerr(d->doc, s, err, TOPOMATCH_ELIMIT, "dims: at most %d dimensions",
			     TOPOMATCH_MAX_DIMS);
	if (rc) /* s is NULL when 'dims' is missing */
		return rc;
	d->shape_pos = pos_of(s);
	for (int64_t k = 0; rc == TOPOMATCH_OK && k < s->n; k++) {
		int64_t v = 0;
		rc = tm_ynode_int(d->doc, s->items[k], "dims", 1, MAX_DIM, &v, err);
		d->dims[k] = (int)v;
	}
	d->ndims = (int)s->n;
	return rc;
}

/* wrap: one boolean for every dimension, or a list of one per dimension. */
static int read_wrap(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *w = tm_ymap_get(net, "wrap");
	int v = d->net == TM_NET_TORUS, rc = TOPOMATCH_OK;
	if (w && w->kind != TM_Y_SEQ)
		rc = tm_ynode_bool(d->doc, w, "wrap", &v, err);
	for (int k = 0; k < d->ndims; k++)
		d->wrap[k] = (unsigned char)v;
	if (rc || !w || w->kind != TM_Y_SEQ)
		return rc;
	if (w->n != d->ndims)
		return tm_yerr(d->doc, w, err, TOPOMATCH_EPARSE,
			       "wrap: %lld values for %d dimensions", (long long)w->n, d->ndims);
	for (int k = 0; k < d->ndims && rc == TOPOMATCH_OK; k++) {
		rc = tm_ynode_bool(d->doc, w->items[k], "wrap", &v, err);
		d->wrap[k] = (unsigned char)v;
	}
	return rc;
}

/* node_order: the dimensions from the fastest-varying, "xyz" by default;
 * letters x y z w then v u ... for more than 4 dimensions. */
static int dim_of(char ch, int ndims)
{
	static const char letters[] = "xyzwvutsrqponmlk";
	const char *p = ch ? strchr(letters, ch) : NULL;
	return p && p - letters < ndims ? (int)(p - letters) : -1;
}

static int read_order(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *o = tm_ymap_get(net, "node_order");
	for (int k = 0; k < d->ndims; k++)
		d->order[k] = k;
	if (!o)
		return TOPOMATCH_OK;
	const char *s;
	int rc = tm_ynode_str(d->doc, o, "node_order", &s, err), seen = 0;
	if (rc)
		return rc;
	bool ok = (int)strlen(s) == d->ndims;
	for (int k = 0; ok && k < d->ndims; k++) {
		d->order[k] = dim_of(s[k], d->ndims);
		ok = d->order[k] >= 0 && !(seen & (1 << d->order[k]));
		seen |= ok ? 1 << d->order[k] : 0;
	}
	if (!ok)
		return tm_yerr(d->doc, o, err, TOPOMATCH_EPARSE,
			       "node_order: expected each of the %d dimension letters once, the "
			       "fastest-varying first (e.g. '%.*s'), got '%s'",
			       d->ndims, d->ndims, "xyzwvutsrqponmlk", s);
	return TOPOMATCH_OK;
}

static int read_grid(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "dims", "wrap", "nodes_per_router",
					    "node_order", "cost", NULL };
	int64_t npr = 1;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = read_dims(d, net, err);
	if (rc == TOPOMATCH_OK)
		rc = read_wrap(d, net, err);
	if (rc == TOPOMATCH_OK)
		rc = read_order(d, net, err);
	if (rc == TOPOMATCH_OK)
		rc = get_int(d, net, "nodes_per_router", 1, MAX_ARITY, 1, &npr, err);
	if (rc == TOPOMATCH_OK)
		rc = get_pos(d, net, "cost", &d->link_cost, err);
	d->nodes_per_router = (int)npr;
	d->link_cost = d->link_cost > 0 ? d->link_cost : 1;
	return rc;
}

/* ------------------------------------------------------------- dragonfly */

static int read_layout(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *l = tm_ymap_get(net, "layout");
	const char *s = "consecutive";
	int rc = l ? tm_ynode_str(d->doc, l, "layout", &s, err) : TOPOMATCH_OK;
	if (rc)
		return rc;
	if (!strcmp(s, "consecutive"))
		d->df_layout = TM_DF_CONSECUTIVE;
	else if (!strcmp(s, "circulant"))
		d->df_layout = TM_DF_CIRCULANT;
	else
		return tm_yerr(d->doc, l, err, TOPOMATCH_EPARSE,
			       "layout: expected 'consecutive' or 'circulant', got '%s'", s);
	return TOPOMATCH_OK;
}

/*
 * The dragonfly's links, bounded before they are built: every group is a
 * clique of a routers, and its a x h global ports give at most a x h / 2
 * links per group.  Without the bound, 2 groups of 65536 routers ask for
 * 2^32 local links (100 GB).
 */
static int df_links_fit(const tm_cluster_desc_t *d, ynode *g, char *err)
{
	int64_t a = d->df_routers, local, ports, links;
	if (!tm_mul_ok(d->df_groups, a * (a - 1) / 2, &local) ||
	    !tm_mul_ok(d->df_groups * a, d->df_global, &ports) ||
	    !tm_add_ok(local, ports / 2, &links) || links > TM_CLUSTER_MAX_LINKS)
		return tm_yerr(d->doc, g, err, TOPOMATCH_ELIMIT,
			       "%lld groups of %lld routers with %lld global links per router "
			       "ask for more than the limit of %lld links",
			       (long long)d->df_groups, (long long)a, (long long)d->df_global,
			       (long long)TM_CLUSTER_MAX_LINKS);
	return TOPOMATCH_OK;
}

static int read_dragonfly(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "groups", "routers_per_group",
					    "nodes_per_router", "global_links_per_router",
					    "layout", "local_cost", "global_cost", NULL };
	ynode *g = NULL, *r = NULL, *h = NULL;
	int64_t npr;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "groups", "network", &g, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "routers_per_group", "network", &r, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "global_links_per_router", "network", &h, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_int(d->doc, g, "groups", 2, MAX_DIM, &d->df_groups, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_int(d->doc, r, "routers_per_group", 1, MAX_ARITY, &d->df_routers,
				  err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_int(d->doc, h, "global_links_per_router", 1, MAX_ARITY,
				  &d->df_global, err);
	if (rc == TOPOMATCH_OK)
		rc = get_int(d, net, "nodes_per_router", 1, MAX_ARITY, 1, &npr, err);
	if (rc == TOPOMATCH_OK)
		rc = read_layout(d, net, err);
	if (rc == TOPOMATCH_OK)
		rc = get_pos(d, net, "local_cost", &d->link_cost, err);
	if (rc == TOPOMATCH_OK)
		rc = get_pos(d, net, "global_cost", &d->global_cost, err);
	if (rc)
		return rc;
	d->shape_pos = pos_of(g);
	d->nodes_per_router = (int)npr;
	d->link_cost = d->link_cost > 0 ? d->link_cost : 1;
	d->global_cost = d->global_cost > 0 ? d->global_cost : 1;
	/* every group must reach every other one directly (Kim et al.'s
	 * dragonfly: one global hop between any two groups) */
	if (d->df_routers * d->df_global < d->df_groups - 1)
		return tm_yerr(d->doc, g, err, TOPOMATCH_EPARSE,
			       "%lld groups need at least %lld global links per group, but "
			       "routers_per_group x global_links_per_router = %lld",
			       (long long)d->df_groups, (long long)d->df_groups - 1,
			       (long long)(d->df_routers * d->df_global));
	return df_links_fit(d, g, err);
}

/* ----------------------------------------------------------------- graph */

static int switch_index(tm_cluster_desc_t *d, ynode *s, int64_t *v, char *err)
{
	const char *name;
	int rc = tm_ynode_str(d->doc, s, "switch", &name, err);
	if (rc)
		return rc;
	*v = tm_hostlist_find(d->switches, name);
	if (*v < 0)
		return tm_yerr(d->doc, s, err, TOPOMATCH_EPARSE,
			       "unknown switch '%s' (not in 'switches')", name);
	return TOPOMATCH_OK;
}

/* "- [s0, s1]" or "- {ends: [s0, s1], cost: 2, bandwidth: 100}" */
static int read_link(tm_cluster_desc_t *d, ynode *l, tm_link_desc_t *k, double *bw, char *err)
{
	static const char *const keys[] = { "ends", "cost", "bandwidth", NULL };
	ynode *ends = l;
	int rc = TOPOMATCH_OK;
	k->pos = pos_of(l);
	if (l->kind == TM_Y_MAP) {
		rc = tm_ymap_check_keys(d->doc, l, "link", keys, err);
		if (rc == TOPOMATCH_OK)
			rc = need(d, l, "ends", "link", &ends, err);
		if (rc == TOPOMATCH_OK)
			rc = get_pos(d, l, "cost", &k->cost, err);
		if (rc == TOPOMATCH_OK)
			rc = get_pos(d, l, "bandwidth", bw, err);
	}
	if (rc == TOPOMATCH_OK && (ends->kind != TM_Y_SEQ || ends->n != 2))
		rc = tm_yerr(d->doc, ends, err, TOPOMATCH_EPARSE,
			     "link: expected the two switches it joins, e.g. [s0, s1]");
	if (rc == TOPOMATCH_OK)
		rc = switch_index(d, ends->items[0], &k->a, err);
	if (rc == TOPOMATCH_OK)
		rc = switch_index(d, ends->items[1], &k->b, err);
	if (rc == TOPOMATCH_OK && k->a == k->b)
		rc = tm_yerr(d->doc, ends, err, TOPOMATCH_EPARSE,
			     "link: joins switch '%s' to itself", ends->items[0]->str);
	return rc;
}

static int read_links(tm_cluster_desc_t *d, ynode *net, char *err)
{
	ynode *s = NULL;
	int rc = need(d, net, "links", "network", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, s, "links", err);
	if (rc == TOPOMATCH_OK && s->n > TM_CLUSTER_MAX_LINKS)
		rc = tm_yerr(d->doc, s, err, TOPOMATCH_ELIMIT, "links: more than %lld",
			     (long long)TM_CLUSTER_MAX_LINKS);
	if (rc)
		return rc;
	double *bw = tm_zalloc(s->n, sizeof(*bw));
	d->link = tm_zalloc(s->n, sizeof(*d->link));
	if (!bw || !d->link) {
		free(bw);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t i = 0; i < s->n && rc == TOPOMATCH_OK; i++, d->nlinks++)
		rc = read_link(d, s->items[i], &d->link[i], &bw[i], err);
	if (rc == TOPOMATCH_OK) {
		double *cost = tm_alloc(s->n, sizeof(*cost));
		if (!cost) {
			free(bw);
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		}
		for (int64_t i = 0; i < s->n; i++)
			cost[i] = d->link[i].cost;
		costs_from_bandwidth(cost, bw, s->n);
		for (int64_t i = 0; i < s->n; i++)
			d->link[i].cost = cost[i];
		free(cost);
	}
	free(bw);
	return rc;
}

static int read_attach(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "switch", "nodes", NULL };
	ynode *s = NULL;
	int rc = need(d, net, "attach", "network", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = expect_seq(d, s, "attach", err);
	if (rc)
		return rc;
	if (!(d->attach = tm_zalloc(s->n, sizeof(*d->attach))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < s->n && rc == TOPOMATCH_OK; i++) {
		ynode *m = s->items[i], *sw = NULL, *nodes = NULL;
		tm_attach_desc_t *a = &d->attach[i];
		rc = tm_ymap_check_keys(d->doc, m, "attachment", keys, err);
		if (rc == TOPOMATCH_OK)
			rc = need(d, m, "switch", "attachment", &sw, err);
		if (rc == TOPOMATCH_OK)
			rc = need(d, m, "nodes", "attachment", &nodes, err);
		if (rc == TOPOMATCH_OK)
			rc = switch_index(d, sw, &a->sw, err);
		if (rc == TOPOMATCH_OK)
			rc = parse_hostlist(d, nodes, "nodes", &a->nodes, err);
		a->pos = pos_of(nodes);
		d->nattach += rc == TOPOMATCH_OK;
	}
	return rc;
}

static int read_graph(tm_cluster_desc_t *d, ynode *net, char *err)
{
	static const char *const keys[] = { "type", "switches", "links", "attach", NULL };
	ynode *s = NULL;
	int rc = tm_ymap_check_keys(d->doc, net, "network", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "switches", "network", &s, err);
	if (rc == TOPOMATCH_OK)
		rc = parse_hostlist(d, s, "switches", &d->switches, err);
	if (rc)
		return rc;
	d->shape_pos = pos_of(s);
	int64_t a, b;
	int dup = tm_hostlist_duplicate(d->switches, &a, &b);
	if (dup > 0) {
		char name[TM_HOSTLIST_MAX_NAME + 1];
		tm_hostlist_name(d->switches, b, name, sizeof(name));
		return tm_yerr(d->doc, s, err, TOPOMATCH_EPARSE, "switch %s is listed twice",
			       name);
	}
	if (dup < 0)
		return tm_err(err, -dup, "switches: cannot check for duplicate names");
	rc = read_links(d, net, err);
	return rc ? rc : read_attach(d, net, err);
}

/* ------------------------------------------------------------------ top */

static const struct {
	const char *name;
	int net;
	int (*read)(tm_cluster_desc_t *d, ynode *net, char *err);
} net_types[] = {
	{ "fattree", TM_NET_FATTREE, read_fattree },
	{ "tree", TM_NET_TREE, read_tree },
	{ "torus", TM_NET_TORUS, read_grid },
	{ "mesh", TM_NET_MESH, read_grid },
	{ "dragonfly", TM_NET_DRAGONFLY, read_dragonfly },
	{ "graph", TM_NET_GRAPH, read_graph },
	{ "slurm", TM_NET_SLURM, read_slurm },
};

static int read_network(tm_cluster_desc_t *d, ynode *root, char *err)
{
	ynode *net = NULL, *type = NULL;
	const char *t;
	int rc = need(d, root, "network", "cluster", &net, err);
	if (rc == TOPOMATCH_OK && net->kind != TM_Y_MAP)
		rc = tm_yerr(d->doc, net, err, TOPOMATCH_EPARSE, "network: expected a mapping");
	if (rc == TOPOMATCH_OK)
		rc = need(d, net, "type", "network", &type, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_str(d->doc, type, "type", &t, err);
	if (rc)
		return rc;
	d->net_pos = pos_of(net);
	for (size_t i = 0; i < sizeof(net_types) / sizeof(net_types[0]); i++)
		if (!strcmp(t, net_types[i].name)) {
			d->net = net_types[i].net;
			return net_types[i].read(d, net, err);
		}
	return tm_yerr(d->doc, type, err, TOPOMATCH_EPARSE,
		       "type: unknown network type '%s' (known: fattree, tree, torus, mesh, "
		       "dragonfly, graph, slurm)",
		       t);
}

int tm_cluster_desc_read(tm_ydoc_t *doc, const char *dir, tm_cluster_desc_t *d, char *err)
{
	static const char *const keys[] = { "cluster", "nodes", "network", NULL };
	memset(d, 0, sizeof(*d));
	d->doc = doc;
	tm_swtree_init(&d->sw, doc->name);
	if (!(d->dir = strdup(dir ? dir : "")))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	ynode *root = doc->root, *name = NULL;
	const char *text;
	if (!root)
		return tm_yerr(doc, NULL, err, TOPOMATCH_EPARSE,
			       "empty file: expected 'cluster', 'nodes' and 'network'");
	int rc = tm_ymap_check_keys(doc, root, "cluster description", keys, err);
	if (rc == TOPOMATCH_OK)
		rc = need(d, root, "cluster", "cluster description", &name, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_ynode_str(doc, name, "cluster", &text, err);
	if (rc == TOPOMATCH_OK && !(d->name = strdup(text)))
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	if (rc == TOPOMATCH_OK)
		rc = read_nodes(d, root, err);
	return rc ? rc : read_network(d, root, err);
}

void tm_cluster_desc_free(tm_cluster_desc_t *d)
{
	for (int64_t i = 0; i < d->ngroups; i++) {
		free(d->group[i].names);
		free(d->group[i].hardware);
		free(d->group[i].embed);
		tm_hostlist_destroy(d->group[i].hosts);
		tm_node_hw_free(&d->group[i].hw);
	}
	free(d->group);
	tm_hostlist_destroy(d->all);
	tm_swtree_free(&d->sw);
	free(d->slurm_file);
	tm_hostlist_destroy(d->switches);
	free(d->link);
	for (int64_t i = 0; i < d->nattach; i++)
		tm_hostlist_destroy(d->attach[i].nodes);
	free(d->attach);
	free(d->name);
	free(d->dir);
	tm_ydoc_free(d->doc);
	memset(d, 0, sizeof(*d));
}

/*
 * cluster.c - a cluster description turned into the core model: the
 * enclosing node shape (nodes of different hardware embedded level by
 * level), the network builder of the file's type, and the two PU
 * numberings of topomatch_cluster.h with the translations between them.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"
#include "topology/topology_internal.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------- enclosing node shape */

/* A node's levels padded at the top with single-child levels to depth L,
 * so that the PU level of every node lines up. */
static void padded(const tm_node_hw_t *hw, int L, int *arity)
{
	int pad = L - hw->nlevels;
	for (int k = 0; k < L; k++)
		arity[k] = k < pad ? 1 : hw->arity[k - pad];
}

static int64_t mixed_radix(const int *from, const int *to, int L, int64_t k)
{
	int64_t out = 0, scale = 1;
	for (int l = L - 1; l >= 0; l--) {
		out += (k % from[l]) * scale;
		k /= from[l];
		scale *= to[l];
	}
	return out;
}

static int build_shape(topomatch_cluster_t *c, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	int L = 0, ar[TM_NODE_MAX_LEVELS];
	for (int64_t g = 0; g < d->ngroups; g++)
		L = d->group[g].hw.nlevels > L ? d->group[g].hw.nlevels : L;
	c->shape.nlevels = L;
	for (int k = 0; k < L; k++)
		c->shape.arity[k] = 1;
	for (int64_t g = 0; g < d->ngroups; g++) {
		padded(&d->group[g].hw, L, ar);
		for (int k = 0; k < L; k++)
			c->shape.arity[k] = ar[k] > c->shape.arity[k] ? ar[k] : c->shape.arity[k];
	}
	c->slot_pus = 1;
	for (int k = 0; k < L; k++)
		if (!tm_mul_ok(c->slot_pus, c->shape.arity[k], &c->slot_pus) ||
		    c->slot_pus > TOPOMATCH_MAX_PUS)
			return tm_cluster_err(d, d->group[0].pos, err, TOPOMATCH_ELIMIT,
					      "the node groups' hardware does not fit one shape");
	if (!(c->unembed = tm_zalloc(d->ngroups, sizeof(*c->unembed))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t g = 0; g < d->ngroups; g++) {
		tm_node_group_t *gr = &d->group[g];
		padded(&gr->hw, L, ar);
		gr->embed = tm_alloc(gr->hw.npu, sizeof(*gr->embed));
		c->unembed[g] = tm_alloc(c->slot_pus, sizeof(**c->unembed));
		if (!gr->embed || !c->unembed[g])
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		for (int64_t e = 0; e < c->slot_pus; e++)
			c->unembed[g][e] = -1;
		for (int64_t k = 0; k < gr->hw.npu; k++) {
			gr->embed[k] = mixed_radix(ar, c->shape.arity, L, k);
			c->unembed[g][gr->embed[k]] = k;
		}
	}
	return TOPOMATCH_OK;
}

static int index_nodes(topomatch_cluster_t *c, char *err)
{
	tm_cluster_desc_t *d = &c->d;
	c->pu_base = tm_alloc(d->nnodes + 1, sizeof(*c->pu_base));
	c->node_group = tm_alloc(d->nnodes, sizeof(*c->node_group));
	c->slot = tm_alloc(d->nnodes, sizeof(*c->slot));
	if (!c->pu_base || !c->node_group || !c->slot)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld nodes)",
			      (long long)d->nnodes);
	int64_t i = 0, base = 0;
	for (int64_t g = 0; g < d->ngroups; g++)
		for (int64_t k = 0; k < tm_hostlist_count(d->group[g].hosts); k++, i++) {
			c->node_group[i] = (int32_t)g;
			c->pu_base[i] = base;
			base += d->group[g].hw.npu;
		}
	c->pu_base[i] = base;
	c->npu = base;
	c->node_npu = d->nnodes ? d->group[0].hw.npu : 0;
	for (int64_t g = 1; g < d->ngroups; g++)
		if (d->group[g].hw.npu != c->node_npu)
			c->node_npu = 0;
	if (base > TOPOMATCH_MAX_PUS)
		return tm_cluster_err(d, d->group[0].pos, err, TOPOMATCH_ELIMIT,
				      "%lld PUs in all, more than %lld", (long long)base,
				      (long long)TOPOMATCH_MAX_PUS);
	return TOPOMATCH_OK;
}

/* position -> node, and a check that the builder placed every node once */
static int index_slots(topomatch_cluster_t *c, char *err)
{
	int64_t total;
	if (!tm_mul_ok(c->nslots, c->slot_pus, &total) ||
	    total != topomatch_topology_npu(c->topo))
		return tm_err(err, TOPOMATCH_EINVAL, "internal error: %lld node positions of %lld "
			      "PUs do not make the topology's %lld PUs", (long long)c->nslots,
			      (long long)c->slot_pus, (long long)topomatch_topology_npu(c->topo));
	if (!(c->slot_node = tm_alloc(c->nslots, sizeof(*c->slot_node))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t s = 0; s < c->nslots; s++)
		c->slot_node[s] = -1;
	for (int64_t i = 0; i < c->d.nnodes; i++) {
		int64_t s = c->slot[i];
		if (s < 0 || s >= c->nslots || c->slot_node[s] >= 0)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "internal error: node %lld placed at position %lld",
				      (long long)i, (long long)s);
		c->slot_node[s] = i;
	}
	return TOPOMATCH_OK;
}

static int build(topomatch_cluster_t *c, char *err)
{
	int rc = build_shape(c, err);
	if (rc == TOPOMATCH_OK)
		rc = index_nodes(c, err);
	if (rc)
		return rc;
	switch (c->d.net) {
	case TM_NET_FATTREE:
		rc = tm_cluster_build_fattree(c, err);
		break;
	case TM_NET_TREE:
	case TM_NET_SLURM:
		rc = tm_cluster_build_tree(c, err);
		break;
	case TM_NET_TORUS:
	case TM_NET_MESH:
		rc = tm_cluster_build_grid(c, err);
		break;
	default:
		rc = tm_cluster_build_graph(c, err);
	}
	if (rc == TOPOMATCH_OK)
		rc = index_slots(c, err);
	return rc ? rc : tm_cluster_build_abstract(c, err);
}

/* ------------------------------------------------------------ load/free */

static int load_doc(tm_ydoc_t *doc, const char *dir, topomatch_cluster_t **out, char *err)
{
	topomatch_cluster_t *c = tm_zalloc(1, sizeof(*c));
	if (!c) {
		tm_ydoc_free(doc);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	int rc = tm_cluster_desc_read(doc, dir, &c->d, err);
	if (rc == TOPOMATCH_OK)
		rc = build(c, err);
	if (rc) {
		topomatch_cluster_destroy(c); /* the description owns doc from the start */
		return rc;
	}
	*out = c;
	return TOPOMATCH_OK;
}

int topomatch_cluster_load(const char *path, topomatch_cluster_t **out, char *err)
{
	tm_ydoc_t *doc;
	if (!path || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_load: NULL argument");
	*out = NULL;
	int rc = tm_ydoc_load_file(path, NULL, &doc, err);
	if (rc)
		return rc;
	char *copy = strdup(path);
	if (!copy) {
		tm_ydoc_free(doc);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	rc = load_doc(doc, strcmp(path, "-") ? dirname(copy) : ".", out, err);
	free(copy);
	return rc;
}

int topomatch_cluster_load_buffer(const char *buf, size_t len, const char *name,
				  const char *dir, topomatch_cluster_t **out, char *err)
{
	tm_ydoc_t *doc;
	if (!buf || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_load_buffer: NULL argument");
	*out = NULL;
	int rc = tm_ydoc_load_buffer(buf, len, name ? name : "cluster", NULL, &doc, err);
	return rc ? rc : load_doc(doc, dir ? dir : ".", out, err);
}

void topomatch_cluster_destroy(topomatch_cluster_t *c)
{
	if (!c)
		return;
	for (int64_t g = 0; c->unembed && g < c->d.ngroups; g++)
		free(c->unembed[g]);
	free(c->unembed);
	free(c->pu_base);
	free(c->slot);
	free(c->slot_node);
	free(c->node_group);
	free(c->abs_of_slot);
	free(c->slot_of_abs);
	topomatch_topology_destroy(c->abs);
	topomatch_topology_destroy(c->topo);
	tm_cluster_desc_free(&c->d);
	free(c);
}

_Static_assert(TOPOMATCH_CLUSTER_TABLE_SWITCHES == TM_CORE_TABLE_MAX,
	       "the public limit is the core's");

int topomatch_cluster_precompute(topomatch_cluster_t *c, char *err)
{
	if (!c)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_precompute: NULL argument");
	if (tm_graph_core_table(c->topo))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for the switches' hop table");
	return TOPOMATCH_OK;
}

size_t topomatch_cluster_table_bytes(const topomatch_cluster_t *c)
{
	const topomatch_topology_t *t = c->topo;
	size_t pair = sizeof(*t->core_hops) + sizeof(*t->core_parent);
	return t->core_hops ? (size_t)t->ncore * (size_t)t->ncore * pair : 0;
}

/* -------------------------------------------------------------- queries */

const char *topomatch_cluster_name(const topomatch_cluster_t *c)
{
	return c->d.name;
}

const char *topomatch_cluster_network(const topomatch_cluster_t *c)
{
	static const char *const names[] = { "", "fattree", "tree", "torus", "mesh",
					     "dragonfly", "graph", "slurm" };
	return names[c->d.net];
}

const topomatch_topology_t *topomatch_cluster_topology(const topomatch_cluster_t *c)
{
	return c->topo;
}

int64_t topomatch_cluster_nnodes(const topomatch_cluster_t *c)
{
	return c->d.nnodes;
}

int64_t topomatch_cluster_npu(const topomatch_cluster_t *c)
{
	return c->npu;
}

int topomatch_cluster_node_name(const topomatch_cluster_t *c, int64_t node, char *buf,
				size_t len)
{
	return tm_hostlist_name(c->d.all, node, buf, len);
}

int64_t topomatch_cluster_node_find(const topomatch_cluster_t *c, const char *name)
{
	return name ? tm_hostlist_find(c->d.all, name) : -1;
}

int64_t topomatch_cluster_node_pus(const topomatch_cluster_t *c, int64_t node, int64_t *count)
{
	if (node < 0 || node >= c->d.nnodes)
		return -1;
	if (count)
		*count = c->pu_base[node + 1] - c->pu_base[node];
	return c->pu_base[node];
}

int topomatch_cluster_node_hw(const topomatch_cluster_t *c, int64_t node, int *sockets,
			      int *cores, int *threads_per_core)
{
	if (node < 0 || node >= c->d.nnodes)
		return TOPOMATCH_EINVAL;
	const tm_node_hw_t *hw = &c->d.group[c->node_group[node]].hw;
	if (sockets)
		*sockets = hw->sockets;
	if (cores)
		*cores = hw->cores;
	if (threads_per_core)
		*threads_per_core = hw->threads_per_core;
	return TOPOMATCH_OK;
}

int64_t topomatch_cluster_node_position(const topomatch_cluster_t *c, int64_t node, int *levels)
{
	if (levels) /* every tree builder puts the node shape below the switch levels */
		*levels = topomatch_topology_kind(c->topo) == TOPOMATCH_TOPO_TREE
				  ? topomatch_topology_tree_shape(c->topo, NULL, NULL) -
					    c->shape.nlevels
				  : -1;
	if (node < 0 || node >= c->d.nnodes)
		return -1;
	return c->slot[node];
}

int64_t topomatch_cluster_pu_node(const topomatch_cluster_t *c, int64_t pu, int64_t *local)
{
	if (pu < 0 || pu >= c->npu)
		return -1;
	if (c->node_npu > 0) { /* every node has as many PUs */
		if (local)
			*local = pu % c->node_npu;
		return pu / c->node_npu;
	}
	int64_t lo = 0, hi = c->d.nnodes - 1; /* last node whose base <= pu */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (c->pu_base[mid] <= pu)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (local)
		*local = pu - c->pu_base[lo];
	return lo;
}

int topomatch_cluster_pu_os_index(const topomatch_cluster_t *c, int64_t pu)
{
	int64_t k, node = topomatch_cluster_pu_node(c, pu, &k);
	return node < 0 ? -1 : c->d.group[c->node_group[node]].hw.os_index[k];
}

int topomatch_cluster_pu_place(const topomatch_cluster_t *c, int64_t pu, int *socket,
			       int *core, int *thread)
{
	int64_t k, node = topomatch_cluster_pu_node(c, pu, &k);
	if (node < 0)
		return TOPOMATCH_EINVAL;
	const tm_node_hw_t *hw = &c->d.group[c->node_group[node]].hw;
	int tpc = hw->pu_is_thread ? hw->threads_per_core : 1;
	int per_socket = hw->cores / (hw->sockets > 0 ? hw->sockets : 1);
	int64_t core_no = k / tpc; /* hwloc logical: PUs of a core are consecutive */
	if (socket)
		*socket = (int)(core_no / per_socket);
	if (core)
		*core = (int)(core_no % per_socket);
	if (thread)
		*thread = (int)(k % tpc);
	return TOPOMATCH_OK;
}

int topomatch_cluster_hostlist_pus(const topomatch_cluster_t *c, const char *hostlist,
				   int64_t **pus, int64_t *npus, char *err)
{
	tm_hostlist_t *h;
	char why[TOPOMATCH_ERRLEN], name[TM_HOSTLIST_MAX_NAME + 1];
	if (!hostlist || !pus || !npus)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_hostlist_pus: NULL argument");
	int rc = tm_hostlist_parse(hostlist, TM_CLUSTER_MAX_NODES, &h, why);
	if (rc)
		return tm_err(err, rc, "node list '%.200s': %s", hostlist, why);
	int64_t total = 0, n = tm_hostlist_count(h);
	for (int64_t j = 0; j < n && rc == TOPOMATCH_OK; j++) {
		tm_hostlist_name(h, j, name, sizeof(name));
		int64_t i = tm_hostlist_find(c->d.all, name);
		if (i < 0)
			rc = tm_err(err, TOPOMATCH_EINVAL, "node %s is not in cluster %s", name,
				    c->d.name);
		else
			total += c->pu_base[i + 1] - c->pu_base[i];
	}
	*pus = rc ? NULL : tm_alloc(total + 1, sizeof(**pus));
	if (!rc && !*pus)
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	*npus = 0;
	for (int64_t j = 0; j < n && rc == TOPOMATCH_OK; j++) {
		tm_hostlist_name(h, j, name, sizeof(name));
		int64_t i = tm_hostlist_find(c->d.all, name);
		for (int64_t p = c->pu_base[i]; p < c->pu_base[i + 1]; p++)
			(*pus)[(*npus)++] = p;
	}
	tm_hostlist_destroy(h);
	return rc;
}

int64_t topomatch_cluster_pu_to_topology(const topomatch_cluster_t *c, int64_t pu)
{
	int64_t k, node = topomatch_cluster_pu_node(c, pu, &k);
	if (node < 0)
		return -1;
	return c->slot[node] * c->slot_pus + c->d.group[c->node_group[node]].embed[k];
}

int64_t topomatch_cluster_pu_from_topology(const topomatch_cluster_t *c, int64_t tpu)
{
	if (tpu < 0 || tpu >= c->nslots * c->slot_pus)
		return -1;
	int64_t node = c->slot_node[tpu / c->slot_pus];
	if (node < 0)
		return -1;
	int64_t k = c->unembed[c->node_group[node]][tpu % c->slot_pus];
	return k < 0 ? -1 : c->pu_base[node] + k;
}

/* ------------------------------------------------------------- describe */

static void network_shape(const topomatch_cluster_t *c, char *buf, size_t len)
{
	const tm_cluster_desc_t *d = &c->d;
	size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	switch (d->net) {
	case TM_NET_FATTREE:
		PUT("switch levels");
		for (int k = 0; k < d->nlevels; k++)
			PUT("%s%d", k ? " x " : " ", d->arity[k]);
		PUT(" (from the root)");
		break;
	case TM_NET_TREE:
	case TM_NET_SLURM:
		PUT("%lld switches, %lld levels deep", (long long)d->sw.n,
		    (long long)d->sw.height + 1);
		if (topomatch_topology_kind(c->topo) != TOPOMATCH_TOPO_TREE)
			PUT(", nodes at different depths: kept as a graph");
		else if (c->nslots != d->nnodes)
			PUT(", %lld of %lld node positions of the enclosing tree used",
			    (long long)d->nnodes, (long long)c->nslots);
		break;
	case TM_NET_TORUS:
	case TM_NET_MESH:
		PUT("dims");
		for (int k = 0; k < d->ndims; k++)
			PUT("%s%d", k ? " x " : " ", d->dims[k]);
		PUT(", wrap");
		for (int k = 0; k < d->ndims; k++)
			PUT(" %s", d->wrap[k] ? "yes" : "no");
		PUT(", %d node%s per router, node order ", d->nodes_per_router,
		    d->nodes_per_router > 1 ? "s" : "");
		for (int k = 0; k < d->ndims; k++)
			PUT("%c", "xyzwvutsrqponmlk"[d->order[k]]);
		break;
	case TM_NET_DRAGONFLY:
		PUT("%lld groups x %lld routers x %d nodes, %lld global links per router (%s)",
		    (long long)d->df_groups, (long long)d->df_routers, d->nodes_per_router,
		    (long long)d->df_global,
		    d->df_layout == TM_DF_CIRCULANT ? "circulant" : "consecutive");
		break;
	default:
		PUT("%lld switches, %lld links", (long long)tm_hostlist_count(d->switches),
		    (long long)d->nlinks);
	}
#undef PUT
}

int topomatch_cluster_describe(const topomatch_cluster_t *c, char *buf, size_t len)
{
	if (!buf || len == 0)
		return TOPOMATCH_EINVAL;
	char net[512], node[256] = "";
	size_t n = 0;
	network_shape(c, net, sizeof(net));
	for (int k = 0; k < c->shape.nlevels; k++) {
		const char *type = "level";
		for (int64_t g = 0; g < c->d.ngroups; g++) {
			const tm_node_hw_t *hw = &c->d.group[g].hw;
			int pad = c->shape.nlevels - hw->nlevels;
			if (k >= pad && hw->arity[k - pad] == c->shape.arity[k])
				type = hw->type[k - pad];
		}
		n += (size_t)snprintf(node + n, n < sizeof(node) ? sizeof(node) - n : 0, "%s%d %s",
				      k ? " x " : "", c->shape.arity[k], type);
	}
	bool mixed = false;
	for (int64_t g = 0; g < c->d.ngroups; g++)
		mixed |= c->d.group[g].hw.npu != c->slot_pus;
	int w = snprintf(buf, len, "%s; each node %s%s", net, n ? node : "1 PU",
			 mixed ? " (the enclosing shape of the node groups)" : "");
	return w >= 0 && (size_t)w < len ? TOPOMATCH_OK : TOPOMATCH_ELIMIT;
}

/* ----------------------------------------------------------------- map */

/* The allowed list in topology PUs: the caller's, or every PU that exists
 * when some positions are empty (NULL then when all are real). */
static int topology_allowed(const topomatch_cluster_t *c, const topomatch_map_opts_t *o,
			    int64_t **out, int64_t *n, char *err)
{
	*out = NULL;
	*n = 0;
	bool all = !o->allowed;
	if (all && c->npu == topomatch_topology_npu(c->topo))
		return TOPOMATCH_OK;
	*n = all ? c->npu : o->nallowed;
	if (*n <= 0)
		return tm_err(err, TOPOMATCH_EINVAL, "the constraint list is empty");
	if (!(*out = tm_alloc(*n, sizeof(**out))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; k < *n; k++) {
		int64_t p = all ? k : o->allowed[k];
		if (((*out)[k] = topomatch_cluster_pu_to_topology(c, p)) < 0)
			return tm_err(err, TOPOMATCH_EINVAL, "allowed PU %lld is out of range "
				      "[0, %lld)", (long long)p, (long long)c->npu);
	}
	return TOPOMATCH_OK;
}

int topomatch_cluster_map(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			  const topomatch_map_opts_t *opts, int64_t *pu,
			  topomatch_map_result_t *res, char *err)
{
	topomatch_map_opts_t o;
	if (opts)
		o = *opts;
	else
		topomatch_map_opts_init(&o);
	int64_t *allowed, n;
	int rc = topology_allowed(c, &o, &allowed, &n, err);
	if (rc == TOPOMATCH_OK) {
		bool given = o.allowed != NULL;
		if (allowed) {
			o.allowed = allowed;
			o.nallowed = n;
		}
		if (c->abs && given && (!o.mapper || !strcmp(o.mapper, "auto")))
			rc = tm_cluster_map_abstract(c, a, &o, pu, res, err);
		else
			rc = topomatch_map(a, c->topo, &o, pu, res, err);
	}
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < topomatch_affinity_ntasks(a); i++)
		if ((pu[i] = topomatch_cluster_pu_from_topology(c, pu[i])) < 0)
			rc = tm_err(err, TOPOMATCH_EINVAL,
				    "internal error: task %lld mapped where there is no PU",
				    (long long)i);
	free(allowed);
	return rc;
}

/*
 * cluster_internal.h - a cluster description as read from YAML
 * (yaml_cluster.c), and the model built from it (cluster.c and the
 * per-network builders).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_CLUSTER_INTERNAL_H
#define TM_CLUSTER_INTERNAL_H

#include "hostlist.h"
#include "node_hw.h"
#include "swtree.h"
#include "base/tm_internal.h"
#include "topomatch_cluster.h"
#include "yaml_doc.h"

/* Bounds on what an admin's file may ask for. */
#define TM_CLUSTER_MAX_NODES (INT64_C(1) << 22)
#define TM_CLUSTER_MAX_SWITCHES (INT64_C(1) << 22)
#define TM_CLUSTER_MAX_LINKS (INT64_C(1) << 24)

enum tm_net_type {
	TM_NET_FATTREE = 1,
	TM_NET_TREE,
	TM_NET_TORUS,
	TM_NET_MESH,
	TM_NET_DRAGONFLY,
	TM_NET_GRAPH,
	TM_NET_SLURM
};

/* Where something was written, for messages. */
typedef struct tm_pos {
	int64_t line, col;
} tm_pos_t;

typedef struct tm_node_group {
	char *names;          /* hostlist as written */
	tm_hostlist_t *hosts;
	tm_pos_t pos;         /* of the names value */
	char *hardware;       /* synthetic string or XML path, as written */
	int is_xml;
	tm_node_hw_t hw;
	int64_t first;        /* index of the group's first node */
	int64_t *embed;       /* node PU k -> index in the enclosing node shape */
} tm_node_group_t;

typedef struct tm_link_desc {
	int64_t a, b; /* switch indices */
	double cost;
	tm_pos_t pos;
} tm_link_desc_t;

typedef struct tm_attach_desc {
	int64_t sw; /* switch index */
	tm_hostlist_t *nodes;
	tm_pos_t pos; /* of the nodes value */
} tm_attach_desc_t;

enum tm_df_layout { TM_DF_CONSECUTIVE = 1, TM_DF_CIRCULANT };

typedef struct tm_cluster_desc {
	tm_ydoc_t *doc; /* the YAML, kept for messages */
	char *dir;      /* directory of the YAML file, for relative paths */
	char *name;
	int64_t ngroups;
	tm_node_group_t *group;
	tm_hostlist_t *all; /* every node, in PU order (the groups joined) */
	int64_t nnodes;
	int net;
	tm_pos_t net_pos;   /* of the network mapping */
	tm_pos_t shape_pos; /* of the key that sets the shape (levels, dims, ...) */

	/* fattree: levels from the root down */
	int nlevels;
	int arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];

	/* tree / slurm: switches; cost[k] for links from depth k to k+1 */
	tm_swtree_t sw;
	int ncosts; /* costs given (others are 1) */
	char *slurm_file;

	/* torus / mesh */
	int ndims;
	int dims[TOPOMATCH_MAX_DIMS];
	unsigned char wrap[TOPOMATCH_MAX_DIMS];
	int order[TOPOMATCH_MAX_DIMS]; /* order[0]: fastest-varying dimension */
	int nodes_per_router;
	double link_cost;

	/* dragonfly: nodes_per_router and link_cost (local) above */
	int64_t df_groups, df_routers, df_global;
	int df_layout;
	double global_cost;

	/* graph */
	tm_hostlist_t *switches;
	int64_t nlinks;
	tm_link_desc_t *link;
	int64_t nattach;
	tm_attach_desc_t *attach;
} tm_cluster_desc_t;

/* yaml_cluster.c: read and check the schema (not yet the network shape
 * against the nodes: that is the builders' job). */
int tm_cluster_desc_read(tm_ydoc_t *doc, const char *dir, tm_cluster_desc_t *d, char *err);
void tm_cluster_desc_free(tm_cluster_desc_t *d);

/* Message at a position of the description's file. */
int tm_cluster_err(const tm_cluster_desc_t *d, tm_pos_t pos, char *err, int status,
		   const char *fmt, ...) TM_PRINTF(5, 6);

struct topomatch_cluster {
	tm_cluster_desc_t d;
	topomatch_topology_t *topo;
	int64_t npu;       /* cluster PUs */
	int64_t nslots;    /* node positions in the topology */
	int64_t slot_pus;  /* topology PUs per position (the enclosing node shape) */
	int64_t *pu_base;  /* node -> first cluster PU; nnodes + 1 entries */
	int64_t node_npu;  /* PUs of every node when all have as many, else 0 */
	int64_t *slot;     /* node -> position */
	int64_t *slot_node; /* position -> node, -1 when empty */
	int32_t *node_group;
	tm_node_hw_t shape; /* enclosing node shape (levels only) */
	int64_t **unembed; /* per group: enclosing index -> node PU, -1 */
	/* torus, mesh, dragonfly, graph: the network as a balanced tree over the
	 * positions (cluster_abstract.c); NULL elsewhere */
	topomatch_topology_t *abs;
	int64_t *abs_of_slot; /* position -> the tree's position */
	int64_t *slot_of_abs; /* the tree's position -> position, -1 where no node is */
};

/* Builders: set c->topo, c->nslots and c->slot[] from c->d (nodes and
 * the enclosing node shape are ready). */
int tm_cluster_build_fattree(topomatch_cluster_t *c, char *err);
int tm_cluster_build_tree(topomatch_cluster_t *c, char *err);
int tm_cluster_build_grid(topomatch_cluster_t *c, char *err);
int tm_cluster_build_graph(topomatch_cluster_t *c, char *err);
/* cluster_abstract.c: c->abs for torus, mesh, dragonfly and graph networks. */
int tm_cluster_build_abstract(topomatch_cluster_t *c, char *err);
/* `auto` with constraints on c->abs: o->allowed and pu[] in topology PUs. */
int tm_cluster_map_abstract(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			    const topomatch_map_opts_t *o, int64_t *pu,
			    topomatch_map_result_t *res, char *err);
/* "node X is not attached to any switch" for the first node with slot -1. */
int tm_cluster_check_attached(const topomatch_cluster_t *c, char *err);
/* cluster_select.c: topomatch_cluster_slots of pus[], first[s] each
 * slot's first PU; ELIMIT (saying so) when they hold fewer than ntasks. */
int tm_cluster_slot_firsts(const topomatch_cluster_t *c, int64_t ntasks, const int64_t *pus,
			   int64_t npus, int64_t per_slot, int64_t *slot_pus, int64_t *first,
			   int64_t *nslots, char *err);

#endif /* TM_CLUSTER_INTERNAL_H */

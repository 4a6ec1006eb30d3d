/*
 * topomatch_cluster.h - public API of cluster descriptions: a site's
 * YAML file (topomatch.yaml(5)) turned into the core topology model, with
 * node names mapped to processing units and back.  Part of libtopomatch.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Two numberings of processing units (PUs):
 *  - cluster PUs, the one users see (topomatch.yaml(5)): nodes in the
 *    order the node groups are listed, each hostlist in its own order;
 *    inside a node, its PUs in hwloc logical order (a PU is a core, or a
 *    hardware thread when the hardware has pu:N with N > 1).  Only PUs
 *    that exist are numbered: 0 .. topomatch_cluster_npu() - 1.
 *  - topology PUs, the positions in topomatch_cluster_topology(), which
 *    the mappers work on.  An irregular tree is embedded into the
 *    enclosing regular tree (TopoMatch §3.2) and nodes of different
 *    hardware into the enclosing node shape, so some positions hold no
 *    PU; topomatch_cluster_map() keeps tasks off them.
 */
#ifndef TOPOMATCH_CLUSTER_H
#define TOPOMATCH_CLUSTER_H

#include "topomatch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct topomatch_cluster topomatch_cluster_t;

/*
 * Read and check a cluster description ("-" = stdin).  Errors read
 * "FILE:LINE:COL: what is wrong".  A `slurm` network's topology.conf path
 * is taken relative to the YAML file's directory.
 */
TOPOMATCH_API int topomatch_cluster_load(const char *path, topomatch_cluster_t **out,
					 char *err);
/* The same from memory; `name` is used in messages, `dir` resolves relative
 * paths (NULL: the current directory). */
TOPOMATCH_API int topomatch_cluster_load_buffer(const char *buf, size_t len, const char *name,
						const char *dir, topomatch_cluster_t **out,
						char *err);
TOPOMATCH_API void topomatch_cluster_destroy(topomatch_cluster_t *c);
/*
 * For a long-lived user that evaluates many placements (select/topomatch
 * in slurmctld, at load and reconfigure): tables that make hop counts
 * and routes O(1) where they otherwise take a search, today the hops and
 * routes between the switches of a dragonfly or graph network of at most
 * 8,192 of them (3 bytes a pair of switches: 48 MiB and 0.4 s to build
 * at 4,096 switches of 40 links, 192 MiB and 2 s at 8,192).  Results are
 * the same with or without; ENOMEM leaves the cluster as it was.
 */
TOPOMATCH_API int topomatch_cluster_precompute(topomatch_cluster_t *c, char *err);
/* The bytes those tables hold: 0 before topomatch_cluster_precompute, on
 * networks that need none (trees, grids), and on a graph over their
 * limits (TOPOMATCH_CLUSTER_TABLE_SWITCHES switches, 254 hops), where
 * every hop count searches. */
TOPOMATCH_API size_t topomatch_cluster_table_bytes(const topomatch_cluster_t *c);
#define TOPOMATCH_CLUSTER_TABLE_SWITCHES 8192

TOPOMATCH_API const char *topomatch_cluster_name(const topomatch_cluster_t *c);
/* "fattree", "tree", "torus", "mesh", "dragonfly", "graph" or "slurm". */
TOPOMATCH_API const char *topomatch_cluster_network(const topomatch_cluster_t *c);
TOPOMATCH_API const topomatch_topology_t *topomatch_cluster_topology(const topomatch_cluster_t *c);
/* The shape in words: the network's levels, dims, groups or switches, then
 * the node levels ("switch levels 4 x 22 (from the root); each node 2
 * Package x 2 NUMANode x 6 Core").  0, or ELIMIT when truncated. */
TOPOMATCH_API int topomatch_cluster_describe(const topomatch_cluster_t *c, char *buf,
					     size_t len);

TOPOMATCH_API int64_t topomatch_cluster_nnodes(const topomatch_cluster_t *c);
/* Cluster PUs (those that exist). */
TOPOMATCH_API int64_t topomatch_cluster_npu(const topomatch_cluster_t *c);

/* Name of node i into buf: 0, ELIMIT when it does not fit, EINVAL out of range. */
TOPOMATCH_API int topomatch_cluster_node_name(const topomatch_cluster_t *c, int64_t node,
					      char *buf, size_t len);
/* Index of a node name, -1 when the cluster has no such node. */
TOPOMATCH_API int64_t topomatch_cluster_node_find(const topomatch_cluster_t *c,
						  const char *name);
/* First cluster PU of node i and, in *count, how many it has; -1 out of range. */
TOPOMATCH_API int64_t topomatch_cluster_node_pus(const topomatch_cluster_t *c, int64_t node,
						 int64_t *count);
/* Hardware of node i: sockets (hwloc packages), cores, hardware threads per
 * core.  EINVAL out of range. */
TOPOMATCH_API int topomatch_cluster_node_hw(const topomatch_cluster_t *c, int64_t node,
					    int *sockets, int *cores, int *threads_per_core);

/*
 * Where node i hangs in the network (Slurm's topology/tree needs the
 * switch tree, and the simulator counts the switches a job spans): its
 * position among the node positions of topomatch_cluster_topology(), and
 * in *levels (may be NULL) the number of switch levels above the node
 * positions when that topology is a tree (fattree; tree and slurm
 * networks whose nodes all hang at one depth), else -1.  On a tree the
 * position's ancestors are the switches: at depth d < *levels, the switch
 * position / (arity[d] x ... x arity[*levels - 1]) of that depth
 * (topomatch_topology_tree_shape).  -1 out of range.
 */
TOPOMATCH_API int64_t topomatch_cluster_node_position(const topomatch_cluster_t *c,
						      int64_t node, int *levels);
/* Node of cluster PU p, its index inside the node in *local (may be NULL);
 * -1 out of range. */
TOPOMATCH_API int64_t topomatch_cluster_pu_node(const topomatch_cluster_t *c, int64_t pu,
						int64_t *local);
/*
 * Where cluster PU p sits in its node, in hwloc logical numbers: its
 * socket (package), its core inside that socket, its hardware thread
 * inside that core (0 when PUs are cores).  EINVAL out of range.
 */
TOPOMATCH_API int topomatch_cluster_pu_place(const topomatch_cluster_t *c, int64_t pu,
					     int *socket, int *core, int *thread);
/*
 * Every PU of the nodes a Slurm host list names ("n[01-04],n09", as in
 * SLURM_JOB_NODELIST), node by node in the list's order: *pus is
 * malloc'd.  EINVAL naming the first node the cluster does not have.
 */
TOPOMATCH_API int topomatch_cluster_hostlist_pus(const topomatch_cluster_t *c,
						 const char *hostlist, int64_t **pus,
						 int64_t *npus, char *err);
/* OS (Linux) CPU number of cluster PU p, the one to bind to; -1 out of range. */
TOPOMATCH_API int topomatch_cluster_pu_os_index(const topomatch_cluster_t *c, int64_t pu);
/* Cluster PU <-> topology PU; -1 when out of range or (topology side) when
 * the position holds no PU. */
TOPOMATCH_API int64_t topomatch_cluster_pu_to_topology(const topomatch_cluster_t *c,
						       int64_t pu);
TOPOMATCH_API int64_t topomatch_cluster_pu_from_topology(const topomatch_cluster_t *c,
							 int64_t tpu);

/*
 * topomatch_map() on the cluster: opts->allowed (NULL = every PU) and the
 * result pu[] are cluster PUs.  Topology positions that hold no PU are
 * never used.
 */
TOPOMATCH_API int topomatch_cluster_map(const topomatch_cluster_t *c,
					const topomatch_affinity_t *a,
					const topomatch_map_opts_t *opts, int64_t *pu,
					topomatch_map_result_t *res, char *err);

/*
 * Node selection for a job, as the select plugin and the simulator do it:
 * the job's tasks mapped onto opts->allowed, the free PUs of the candidate
 * nodes (cluster PUs, required), pu[] the PU of each task.  nodes[] (room
 * for topomatch_cluster_nnodes() entries) gets the nodes that received
 * tasks, in increasing order, *nnodes how many.
 */
TOPOMATCH_API int topomatch_cluster_select(const topomatch_cluster_t *c,
					   const topomatch_affinity_t *a,
					   const topomatch_map_opts_t *opts, int64_t *pu,
					   int64_t *nodes, int64_t *nnodes,
					   topomatch_map_result_t *res, char *err);

/*
 * Contention-aware node choice (topomatch.h, "Link loads of running
 * jobs"; topomatch-sim(1), "CONTENTION-AWARE NODE CHOICE").  A scheduler
 * keeps one table per cluster: created here (nodes are the cluster's
 * node positions), each pattern job added at its start with its tasks'
 * cluster PUs and removed at its end (topomatch_link_load_remove).
 */
TOPOMATCH_API int topomatch_cluster_link_load_create(const topomatch_cluster_t *c,
						     int64_t max_entries,
						     topomatch_link_load_t **out, char *err);
TOPOMATCH_API int topomatch_cluster_link_load_add(const topomatch_cluster_t *c,
						  topomatch_link_load_t *ll, uint64_t job,
						  const topomatch_affinity_t *a, const int64_t *pu,
						  double activity, char *err);

/* topomatch_link_load_score of a placement given in cluster PUs (pu[k]:
 * task k's), e.g. of another scheduler's choice to compare with
 * topomatch_cluster_select_loaded's; reads ll only, as that does.  EINVAL
 * for a NULL argument or a PU outside the cluster (naming it). */
TOPOMATCH_API int topomatch_cluster_link_load_score(const topomatch_cluster_t *c,
						    const topomatch_link_load_t *ll,
						    const topomatch_affinity_t *a, const int64_t *pu,
						    double weight, topomatch_link_score_t *out,
						    char *err);

/* What topomatch_cluster_select_loaded compared. */
typedef struct topomatch_loaded_choice {
	int candidates;   /* node sets mapped (0: the table was not consulted) */
	int chosen_index; /* 0: topomatch_cluster_select's own choice */
	topomatch_link_score_t first, chosen; /* their scores */
} topomatch_loaded_choice_t;

/*
 * topomatch_cluster_select (same arguments and results) that compares
 * candidate node sets by topomatch_link_load_score with `weight`: its
 * own choice first; when that meets load (CL > 0), other node sets are
 * mapped the same way.  On trees: the free PUs of the first choice's
 * region on nodes whose way up to the region's switch carries no load,
 * the free PUs on nodes whose way up to the root carries none, then the
 * least loaded on that way up to twice the tasks, and up to 3 switch
 * subtrees (those below the region that hold the job alone, then the
 * siblings with room that its best-fit walk passed over).  On other
 * networks: the free PUs of the nodes whose switch carries no load
 * (topomatch_link_load_attach), then the least loaded nodes up to twice
 * the tasks.  The lowest score wins, the first on ties.  weight 0, ll NULL or empty: exactly
 * topomatch_cluster_select.  The options' time budget (> 0) is the whole
 * call's, as a scheduler holding its locks needs: each candidate's
 * mapping gets what is left of it, and none starts once it is spent
 * (the best so far is kept; info->candidates says how many were
 * mapped).  info (may be NULL) gets what was compared.
 */
TOPOMATCH_API int topomatch_cluster_select_loaded(const topomatch_cluster_t *c,
						  const topomatch_affinity_t *a,
						  const topomatch_map_opts_t *opts,
						  topomatch_link_load_t *ll, double weight,
						  int64_t *pu, int64_t *nodes, int64_t *nnodes,
						  topomatch_map_result_t *res,
						  topomatch_loaded_choice_t *info, char *err);

/*
 * Node selection for a job of more tasks than are mapped one by one
 * (topomatch.conf's MaxTasks): the tasks in blocks of *block
 * (topomatch_affinity_blocks), each block mapped as one task of *block x
 * per_task PUs of one node (topomatch_cluster_slots) with
 * topomatch_cluster_select_loaded (ll NULL: topomatch_cluster_select),
 * then its tasks onto its slot's PUs in order, per_task apart.  The
 * blocks are as large as the free PUs allow while holding the job
 * (topomatch_cluster_block_size): a node's worth on free nodes.  pu[],
 * nodes[], *nnodes as topomatch_cluster_select's; res's hop-bytes are
 * those between blocks; info (may be NULL) what
 * topomatch_cluster_select_loaded compared, the blocks' node sets.
 * ELIMIT when the tasks do not fit or make more than max_blocks blocks
 * (> 0).
 */
TOPOMATCH_API int topomatch_cluster_select_blocks(const topomatch_cluster_t *c,
						  const topomatch_affinity_t *a,
						  const topomatch_map_opts_t *opts, int64_t per_task,
						  int64_t max_blocks, topomatch_link_load_t *ll,
						  double weight, int64_t *pu, int64_t *nodes,
						  int64_t *nnodes, int64_t *block,
						  topomatch_map_result_t *res,
						  topomatch_loaded_choice_t *info, char *err);
/* srun's layout of a job mapped node by node: topomatch_cluster_map_slots
 * (same arguments, the same slots), the tasks placed on the slots' first
 * PUs by topomatch_cluster_select_blocks (per_task 1, at most max_blocks
 * blocks) instead of one by one. */
TOPOMATCH_API int topomatch_cluster_map_slots_blocks(
	const topomatch_cluster_t *c, const topomatch_affinity_t *a, const int64_t *pus,
	int64_t npus, int64_t per_slot, const char *mapper, int64_t max_blocks, int64_t *slot_pus,
	int64_t *first, int64_t *nslots, int64_t *pu, topomatch_map_result_t *res, char *err);
/* The most tasks of per_task PUs a block can take such that pus[] (free
 * PUs of the cluster) hold ntasks in blocks of that many, each block on
 * one node; 0 when even single tasks do not fit (or on a bad argument). */
TOPOMATCH_API int64_t topomatch_cluster_block_size(const topomatch_cluster_t *c,
						   const int64_t *pus, int64_t npus,
						   int64_t per_task, int64_t ntasks);

/*
 * Slots for tasks of per_slot PUs each (a job's --cpus-per-task): the
 * distinct PUs of pus[0..npus-1], node by node in cluster order, cut into
 * runs of per_slot PUs of one node; a node's last run of fewer is left
 * out.  slot_pus (room for npus) receives slot s's PUs at
 * [s * per_slot, (s + 1) * per_slot), *nslots how many.  Map the tasks
 * onto the slots' first PUs (opts->allowed), then each task owns its
 * slot.  EINVAL for a PU outside the cluster or per_slot < 1.
 */
TOPOMATCH_API int topomatch_cluster_slots(const topomatch_cluster_t *c, const int64_t *pus,
					  int64_t npus, int64_t per_slot, int64_t *slot_pus,
					  int64_t *nslots, char *err);

/*
 * A step's rank placement as srun makes it (the SPANK plugin; `topomatch
 * explain` shows the same one): the tasks of a, per_slot PUs each, mapped
 * onto the slots of pus[0..npus-1] (topomatch_cluster_slots) with
 * topomatch_map_opts_init's options (seed 1, no time budget: the same
 * inputs give the same placement wherever it is computed) and mapper
 * (NULL: auto).  slot_pus (room for npus) and *nslots as
 * topomatch_cluster_slots, first (room for npus / per_slot) each slot's
 * first PU, in increasing order; pu[r] the first PU of rank r's slot.
 * TOPOMATCH_ELIMIT when the tasks do not fit in the slots.
 */
TOPOMATCH_API int topomatch_cluster_map_slots(const topomatch_cluster_t *c,
					      const topomatch_affinity_t *a, const int64_t *pus,
					      int64_t npus, int64_t per_slot, const char *mapper,
					      int64_t *slot_pus, int64_t *first, int64_t *nslots,
					      int64_t *pu, topomatch_map_result_t *res, char *err);

/* ------------------------------------------------------------------ */
/* Next to Slurm's files                                               */
/* ------------------------------------------------------------------ */

/*
 * Compare the cluster's nodes with those of a slurm.conf: every node of
 * either must be in the other, with the same sockets, cores and threads
 * per core.  Each mismatch is one line "FILE:LINE:COL: ..." on `report`.
 * Returns the number of mismatches, or minus a topomatch_status when
 * slurm.conf cannot be read (err says why).
 */
TOPOMATCH_API int64_t topomatch_cluster_check_slurm_conf(const topomatch_cluster_t *c,
							 const char *slurm_conf, FILE *report,
							 char *err);

/*
 * Write a cluster description (YAML, network type `tree`) of a Slurm
 * topology.conf on `out`: node groups in tree order, with their hardware
 * from slurm_conf when given (else a placeholder the admin must set), the
 * cluster named `name`, else slurm.conf's ClusterName, else "cluster".
 */
TOPOMATCH_API int topomatch_cluster_import_slurm(const char *topology_conf,
						 const char *slurm_conf, const char *name,
						 FILE *out, char *err);

#ifdef __cplusplus
}
#endif

#endif /* TOPOMATCH_CLUSTER_H */

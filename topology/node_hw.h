/*
 * node_hw.h - the inside of a compute node, from an hwloc synthetic string
 * ("pack:2 numa:2 core:6 pu:1") or an hwloc XML file, as the levels of a
 * balanced tree below the node and the order of its processing units.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_NODE_HW_H
#define TM_NODE_HW_H

#include <stdint.h>

#define TM_NODE_MAX_LEVELS 8

/*
 * A node as TopoMatch sees it (§4.2.1: the hwloc tree of a node): levels
 * from the node down to the PUs, each with its arity and hwloc type name
 * ("Package", "NUMANode", "L3Cache", "Core", "PU").  A PU is a core, or a
 * hardware thread when the node has more than one per core (the YAML PU
 * numbering of the cluster man page).  PUs are numbered in hwloc logical
 * order; os_index[k] is the OS (Linux) CPU number of PU k, the one
 * sched_setaffinity and TOPOMATCH_CPUS use (of its first thread when a PU
 * is a core).
 */
typedef struct tm_node_hw {
	int nlevels;                          /* levels below the node */
	int arity[TM_NODE_MAX_LEVELS];
	char type[TM_NODE_MAX_LEVELS][16];
	int npu;                              /* product of the arities */
	int sockets, cores, threads_per_core; /* per node, for slurm.conf checks */
	int pu_is_thread;                     /* 1 when PUs are hardware threads */
	int *os_index;                        /* npu entries, malloc'd */
} tm_node_hw_t;

/* From an hwloc synthetic description.  err: "what is wrong" (the caller
 * adds file:line:col). */
int tm_node_hw_synthetic(const char *desc, tm_node_hw_t *out, char *err);
/* From an hwloc XML file (e.g. `lstopo node.xml`). */
int tm_node_hw_xml(const char *path, tm_node_hw_t *out, char *err);
/* A deep copy; 0 when out of memory (dst then holds nothing to free). */
int tm_node_hw_copy(const tm_node_hw_t *src, tm_node_hw_t *dst);
void tm_node_hw_free(tm_node_hw_t *hw);

#endif /* TM_NODE_HW_H */

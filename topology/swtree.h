/*
 * swtree.h - a switch tree as admins write it: named switches, each with
 * child switches or attached nodes (or both), irregular shapes allowed.
 * The YAML `tree` network type and Slurm's topology.conf (topology/tree)
 * both read into it; cluster.c embeds it into the enclosing regular tree
 * (TopoMatch §3.2) and the export/import commands write it back.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SWTREE_H
#define TM_SWTREE_H

#include <stdint.h>
#include <stdio.h>

#include "hostlist.h"

typedef struct tm_switch {
	char *name;
	int64_t line, col;    /* where the switch is defined (col 0: unknown) */
	char *switches_text;  /* child switch names as written (hostlist), or NULL */
	char *nodes_text;     /* attached node names as written (hostlist), or NULL */
	int64_t switches_line, switches_col; /* where each list is written */
	int64_t nodes_line, nodes_col;
	tm_hostlist_t *nodes; /* parsed nodes_text, or NULL */
	double link_speed;    /* topology.conf LinkSpeed / YAML bandwidth; 0 = unset */
	/* filled by tm_swtree_resolve(): */
	int64_t parent;       /* index of the parent switch, -1 for the root */
	int64_t depth;        /* root 0 */
	int64_t nchild;
	int64_t *child;       /* indices of the child switches, in written order */
} tm_switch_t;

typedef struct tm_swtree {
	const char *file;     /* file name for messages (not owned) */
	int64_t n, cap;
	tm_switch_t *sw;
	int64_t root;         /* after resolve */
	int64_t height;       /* after resolve: largest depth of a switch with nodes */
} tm_swtree_t;

void tm_swtree_init(tm_swtree_t *t, const char *file);
void tm_swtree_free(tm_swtree_t *t);

/*
 * Append a switch (copies the strings; switches/nodes may be NULL).
 * Parses nodes with tm_hostlist_parse; a bad list gives
 * "FILE:LINE:COL: nodes: column C: ..." with the position of the list.
 */
int tm_swtree_add(tm_swtree_t *t, const char *name, int64_t line, int64_t col,
		  const char *switches, int64_t sline, int64_t scol, const char *nodes,
		  int64_t nline, int64_t ncol, double link_speed, char *err);

/*
 * Link switches to their children and check the shape.  Errors, each
 * "FILE:LINE:COL: ..." at the offending switch or list:
 *  - switch 's1' is defined twice (first at LINE:COL);
 *  - switch 's0' lists unknown switch 'sx';
 *  - switch 's3' has two parents ('s0' and 's1');
 *  - the switches form a cycle through 's2';
 *  - no root switch / two root switches 's0' and 's9' (the tree must be
 *    connected: one switch without a parent);
 *  - switch 's4' has neither switches nor nodes;
 *  - node n017 is attached to two switches ('s0' at LINE:COL and 's1').
 * Depths use no recursion (a chain of 1e6 switches is fine).
 */
int tm_swtree_resolve(tm_swtree_t *t, int64_t max_nodes, char *err);

#endif /* TM_SWTREE_H */

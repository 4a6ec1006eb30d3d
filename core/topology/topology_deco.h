/*
 * topology_deco.h - Scotch "deco" targets read as topologies
 * (topology_deco.c), for the target parser (topology_parse.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_TOPOLOGY_DECO_H
#define TM_TOPOLOGY_DECO_H

#include "base/textscan.h"
#include "topology_internal.h"

/*
 * The rest of a "deco" target, the keyword (on line kwline) just read
 * from sc: a type-2 target (what `topo export --scotch` writes for graphs,
 * SCOTCH_archBuild2's) becomes the graph topology of its first level, PU
 * p on the vertex of terminal p.  Types 0 and 1 (a distance for every
 * pair of terminals) are read only when a type-2 target of the same
 * machine follows them, as `topo export` writes it, and refused
 * (TOPOMATCH_EUNSUPPORTED) with the way out otherwise.  Messages read
 * "NAME:LINE: deco: ...".  Leaves sc after the target.
 */
int tm_topology_parse_deco(tm_scan_t *sc, int64_t kwline, topomatch_topology_t **out,
			   char *err);

#endif /* TM_TOPOLOGY_DECO_H */

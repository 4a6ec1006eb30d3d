/*
 * scotch_arch.h - Scotch targets built from our topologies (scotch_arch.c,
 * TopoMatch §4.3.1): what the Scotch mapper and partitioner
 * (map/scotch_internal.h) map onto and topomatch topo export writes; and
 * the Scotch sessions they all run in (scotch_context.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Numbering (checked by tests/unit/test_scotch.c): terminal t of a full
 * target is our PU t on every kind (tleaf: root level most significant;
 * torus/mesh: first dimension fastest, with a local tree router x L +
 * local; hcub: the vertex number; deco: compute vertices in increasing
 * vertex order) but one: the tleaf of a large grid with a local tree,
 * only ever used through a sub-architecture; terminal j of a
 * sub-architecture, or of a "deco" target built on a list of PUs, is the
 * j-th PU of the list.
 */
#ifndef TM_SCOTCH_ARCH_H
#define TM_SCOTCH_ARCH_H

#include <stdio.h> /* scotch.h uses FILE without including it */

#include <scotch.h>

#include "topology_internal.h"

/* "Scotch: WHAT failed" into err; TOPOMATCH_EINVAL (scotch_context.c). */
int tm_scotch_fail(char *err, const char *what);

/*
 * A deterministic context (SCOTCH_OPTIONNUMDETERMINISTIC, a fixed random
 * seed from `seed`, a fixed thread count) bound to g: *bound is the graph
 * to hand to Scotch.  Release with tm_scotch_unbind(); one session at a
 * time in the process, from bind to unbind (scotch_context.c).
 */
int tm_scotch_bind(SCOTCH_Context *ctx, SCOTCH_Graph *bound, const SCOTCH_Graph *g,
		   uint64_t seed, char *err);
void tm_scotch_unbind(SCOTCH_Context *ctx, SCOTCH_Graph *bound);

/*
 * A Scotch target: the target of the whole topology and, when only some
 * PUs may be used, the sub-architecture on them (Scotch keeps a pointer
 * to the full target inside the sub-architecture, so both live here).
 * Graph topologies (and meshes of more than 3 dimensions, and grids with
 * a local tree or only some dimensions wrapping, up to 2048 usable PUs)
 * have "deco" targets that are built on the usable PUs directly: no
 * sub-architecture.  Larger grids with a local tree map onto a tleaf
 * through a sub-architecture on the usable PUs, even all of them (it
 * renumbers the tleaf's terminals as our PUs).
 * dmax bounds the distance between two terminals, in Scotch's units.
 */
struct tm_arch_job;

typedef struct tm_starget {
	SCOTCH_Arch full;
	SCOTCH_Arch sub;
	bool has_full;
	bool has_sub;
	/* "deco" targets: loaded where the load can be abandoned (it takes
	 * up to seconds: tm_starget_build_until), the target inside */
	struct tm_arch_job *job;
	SCOTCH_Num dmax;
	SCOTCH_Num nterm; /* terminals of tm_starget_arch() */
} tm_starget_t;

/*
 * Build the target of t restricted to the m PUs cand[0..m-1] (distinct,
 * any order; cand == NULL: all PUs in order, no sub-architecture).
 */
int tm_starget_build(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
		     int64_t m, char *err);
/* The same, given up at deadline (a tm_now() value, 0 = none): EBUDGET.
 * The exact distances of a "deco" target look at the clock between rows;
 * Scotch's loading of it (SCOTCH_archLoad, SCOTCH_archBuild2: 0.2 s for
 * 1,152 PUs of a dragonfly, seconds at 2,048) runs where it can be
 * abandoned (tm_run_abandonable). */
int tm_starget_build_until(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
			   int64_t m, double deadline, char *err);
void tm_starget_free(tm_starget_t *x);
/* The target to map onto: the sub-architecture when there is one. */
SCOTCH_Arch *tm_starget_arch(tm_starget_t *x);

/*
 * The Scotch graph of a graph topology, as its "deco" targets see it: the
 * vertices that PU 0 reaches, in vertex order (nv), parallel links merged,
 * CSR vert/edge, edlo the link costs made integers (the cheapest 1, 10 or
 * 100; NULL when they are all equal), list[p] the vertex of PU p.
 */
typedef struct tm_tgraph {
	SCOTCH_Num nv;
	SCOTCH_Num *vert, *edge, *edlo, *list;
} tm_tgraph_t;

int tm_target_graph(const topomatch_topology_t *t, tm_tgraph_t *g, char *err);
/* The exact "deco 0" text of all the PUs of t (2 to 2048 PUs; graphs and
 * grids with node trees): what the mapper's targets load, our distances
 * and a balanced decomposition (malloc'd, *len bytes). */
int tm_exact_deco_text(const topomatch_topology_t *t, char **text, size_t *len, char *err);
void tm_target_graph_free(tm_tgraph_t *g);

#endif /* TM_SCOTCH_ARCH_H */

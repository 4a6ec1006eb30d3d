/*
 * analytical_internal.h - what the two stages of the analytical torus
 * mapper share (Wu, Xiong, Lan et al., "Analytical topology mapping",
 * J. Supercomput. 2016, §3): the grid of routers, sparse symmetric
 * systems and their conjugate-gradient solver.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_ANALYTICAL_INTERNAL_H
#define TM_ANALYTICAL_INTERNAL_H

#include "mapper_internal.h"

/* Largest number of grid dimensions the mapper takes (the paper's 3). */
#define AN_MAX_DIMS 3

/* The routers of a mesh or torus: router r has coordinates
 * (r / rstride[k]) % dims[k]. */
typedef struct an_grid {
	int nd;
	int dims[AN_MAX_DIMS];
	int wrap[AN_MAX_DIMS];
	int64_t rstride[AN_MAX_DIMS];
	int64_t nr;
} an_grid_t;

static inline int an_coord(const an_grid_t *g, int64_t r, int k)
{
	return (int)(r / g->rstride[k] % g->dims[k]);
}

/* The distinct neighbours of router r, at most 2 x nd (a dimension of 2
 * that wraps reaches the same router both ways; one of 1 has none). */
int an_grid_nbrs(const an_grid_t *g, int64_t r, int64_t *out);

/* Router-to-router hops (shortest way round a wrapping dimension). */
int64_t an_hops(const an_grid_t *g, int64_t r, int64_t s);

/*
 * A symmetric positive (semi-)definite system: diag[i] on the diagonal,
 * off-diagonal entries -w[e] at (i, col[e]) for e in rowptr[i]..rowptr[i+1].
 */
typedef struct an_sys {
	int64_t n;
	const int64_t *rowptr, *col;
	const double *w;
	const double *diag;
} an_sys_t;

/*
 * Solve A x = b by conjugate gradients with a Jacobi preconditioner,
 * from the x given, for at most maxit iterations or until the residual
 * is below tol x |b|.  Counted work, no clock: the same inputs always
 * give the same x.  Returns the iterations done, -1 out of memory.
 */
int64_t an_cg(const an_sys_t *a, const double *b, double *x, int64_t maxit, double tol);

/* The mapper's state, shared by the driver (analytical.c) and the global
 * stage (analytical_global.c). */
typedef enum an_spreading {
	AN_SPREAD_ANCHOR, /* look-ahead targets and growing anchors (default) */
	AN_SPREAD_PAPER,  /* §3.3.2 shifting, §3.3.3 boundary forces (Eq. 6-9) */
} an_spreading_t;

typedef struct an {
	const tm_map_ctx_t *c;
	an_grid_t g;
	an_spreading_t spreading;
	int64_t np;          /* groups = routers */
	int64_t *grp;        /* task -> group */
	tm_wgraph_t q;       /* the groups' graph */
	int64_t *qrp, *qcol;
	double *qw;
	unsigned char *silent; /* group -> no traffic (or empty) */
	int64_t *fixed;      /* group -> corner router, -1 when free */
	int64_t *mov;        /* group -> index among the moving ones, -1 */
	int64_t nm;
	int64_t *mgrp;       /* index -> group */
	double *pos;         /* group -> coordinates (nd each) */
	double *target;      /* moving index -> where spreading sends it (nd each) */
	double *beta, *fake; /* moving index -> spring to its fake process */
	int64_t *bin;        /* group -> router of its bin */
	int64_t *load;       /* router -> groups in its bin */
	int64_t *ahead;      /* group -> router, the best look-ahead mapping */
	double ahead_hb;     /* its hop-bytes between groups (HUGE_VAL: none) */
	char *err;
} an_t;

static inline double *an_pos(const an_t *s, int64_t p)
{
	return s->pos + p * s->g.nd;
}

int an_oom(an_t *s);

/* Hop-bytes between the groups placed on where[] (silent ones excluded). */
double an_group_hb(const an_t *s, const int64_t *where);

/*
 * Stage 1, global mapping (§3.3, Fig. 2 lines 1-5), from the start
 * positions: leaves the groups' coordinates in pos, their bins in bin and
 * load, and (anchor spreading) the best legal look-ahead mapping in
 * ahead.  TOPOMATCH_OK, ENOMEM, EBUDGET.
 */
int an_global_mapping(an_t *s);

/*
 * Stage 2, legalization (§3.4, Fig. 4): nodes of processes from the
 * global mapping, node[p] for p < np (np == g->nr, some processes may be
 * dummies without edges), become one process per router, by the
 * diffusion-like migration.  The coarse graph q (np vertices) decides
 * which process leaves a node.  TOPOMATCH_OK, TOPOMATCH_ENOMEM.
 */
int an_legalize(const an_grid_t *g, const tm_wgraph_t *q, int64_t *node, double deadline,
		char *err);

#endif /* TM_ANALYTICAL_INTERNAL_H */

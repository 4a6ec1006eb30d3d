/*
 * scotch_arch.c - Scotch targets built from our topologies (TopoMatch
 * §4.3.1), for the Scotch mapper (TopoMatch Alg. 2 and 4, map/scotch_map.c)
 * and topomatch topo export (scotch_export.c); the source graphs and
 * contexts they map with are in map/scotch_graph.c.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What Scotch 7.0.3 does, as checked by experiment (tests/unit/test_scotch.c
 * keeps the checks):
 *  - tleaf terminals are numbered root level most significant, like our
 *    PUs, and the distance of two leaves is the sum of the link values
 *    from their lowest common ancestor down: half our route cost, so the
 *    link values are our per-level costs made integers;
 *  - torusXD, mesh2D and mesh3D number the first dimension fastest, like
 *    us; hcub numbers vertices like us;
 *  - meshXD (from SCOTCH_archMeshX and from a target file alike) measures
 *    distances with wrap-around, like a torus: meshes of more than three
 *    dimensions therefore become "deco" targets built from the mesh graph;
 *  - SCOTCH_archBuild0 ("deco" type 1) bipartitions the graph induced by
 *    the listed vertices only, which has no edges when PUs hang off
 *    switches; listing the switches too makes them terminals, and
 *    SCOTCH_archSub refuses type-1 "deco" targets: not used.  Graph targets are
 *    "deco" texts of our own (exact distances, a balanced decomposition)
 *    up to DECO_MAX_TERMS PUs, SCOTCH_archBuild2 ("deco" type 2: the whole
 *    graph, switches included, terminals in list order) beyond;
 *  - SCOTCH_archDomTerm() picks the wrong domain of "deco" targets (one
 *    slot off); the mapping itself only reports SCOTCH_archDomNum(), the
 *    label, which is right;
 *  - SCOTCH_archSub numbers its terminals in the order of its list.
 *
 * Grids with a tree below each router, or with only some dimensions
 * wrapping, have no Scotch class: up to DECO_MAX_TERMS PUs they take our
 * exact "deco" text, as graph topologies do (distances from the closed
 * forms); beyond, a tleaf that splits the router grid and then the local
 * tree (see build_grid_tleaf: archBuild2's target of the same machine as
 * a graph was 10 to 100 times slower to map onto and mapped worse).
 */
#include "config.h"
#include "scotch_arch.h"
#include "base/tm_pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest integer link value: keeps dmax, and so the weight budget, sane. */
#define MAX_LINK_VALUE 65536

/* ---------------------------------------------------------------- costs */

/* round(x) within [1, MAX_LINK_VALUE] */
static SCOTCH_Num link_value(double x)
{
	double v = floor(x + 0.5);
	if (!(v >= 1.0))
		return 1;
	return v > MAX_LINK_VALUE ? MAX_LINK_VALUE : (SCOTCH_Num)v;
}

/*
 * The factor that makes costs integer link values: the smallest cost
 * becomes 1, 10 or 100, the least that rounds every cost to within 2%,
 * so that "100 10 1" stays "100 10 1" and "1.5 1" becomes "15 10".
 */
static double cost_scale(const double *cost, int64_t n)
{
	double cmin = INFINITY, mult = 1.0;
	for (int64_t k = 0; k < n; k++)
		cmin = fmin(cmin, cost[k]);
	for (; mult < 100.0; mult *= 10.0) {
		bool exact = true;
		for (int64_t k = 0; k < n && exact; k++) {
			double x = cost[k] / cmin * mult;
			exact = fabs(link_value(x) - x) <= 0.02 * x;
		}
		if (exact)
			break;
	}
	return mult / cmin;
}

static void int_costs(const double *cost, int64_t n, SCOTCH_Num *out)
{
	double s = cost_scale(cost, n);
	for (int64_t k = 0; k < n; k++)
		out[k] = link_value(cost[k] * s);
}

/* ---------------------------------------------------------------- targets */

/* Router levels at most of the tleaf of a large grid with a local tree:
 * each splits a dimension by a prime factor, and the routers number at
 * most 2^26. */
#define GRID_SPLITS 26
#define GRID_TLEAF_LEVELS (GRID_SPLITS + TOPOMATCH_MAX_LEVELS)

/* A tleaf of n <= GRID_TLEAF_LEVELS levels (sizes, link costs made
 * integers); dmax is the longest distance. */
static int tleaf_arch(tm_starget_t *x, const SCOTCH_Num *size, const double *cost, int n,
		      const char *what, char *err)
{
	SCOTCH_Num link[GRID_TLEAF_LEVELS];
	int_costs(cost, n, link);
	x->dmax = 0;
	for (int k = 0; k < n; k++)
		x->dmax += link[k]; /* at most 58 x 65536 */
	if (SCOTCH_archTleaf(&x->full, n, (SCOTCH_Num *)size, link))
		return tm_scotch_fail(err, what);
	return TOPOMATCH_OK;
}

/*
 * tleaf: levels of arity 1 split nothing and Scotch's target files refuse
 * them, so they are left out; their cost is the same for every pair of
 * PUs below them, so the distances keep their order.
 */
static int build_tleaf(tm_starget_t *x, const topomatch_topology_t *t, char *err)
{
	SCOTCH_Num size[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS] = { 0 };
	int n = 0;
	for (int k = 0; k < t->nlevels; k++) {
		if (t->arity[k] < 2)
			continue;
		size[n] = t->arity[k];
		cost[n++] = t->cost[k];
	}
	return tleaf_arch(x, size, cost, n, "SCOTCH_archTleaf", err);
}

struct deco;

/*
 * Loading a "deco" target, the one step of building a target that can
 * take long (seconds) and cannot look at the clock: everything it touches
 * is owned here, so that under a time budget it runs where it can be
 * abandoned (tm_run_abandonable); the target it loads stays here and
 * tm_starget_t points to it.  Either the text of an exact deco target
 * (SCOTCH_archLoad) or a Scotch graph whose archBuild2 target is built.
 */
struct tm_arch_job {
	SCOTCH_Arch arch;
	bool has_arch;
	struct deco *deco; /* owned: exact distances to decompose, write, load */
	char *text;
	size_t len;
	SCOTCH_Num nv, nlist;
	SCOTCH_Num *vert, *edge, *edlo, *list; /* owned copies */
	double deadline;
	char err[TOPOMATCH_ERRLEN];
};

static void deco_free(struct deco *d);

static void arch_job_drop(void *arg)
{
	struct tm_arch_job *j = arg;
	if (!j)
		return;
	if (j->has_arch)
		SCOTCH_archExit(&j->arch);
	deco_free(j->deco);
	free(j->text);
	free(j->vert);
	free(j->edge);
	free(j->edlo);
	free(j->list);
	free(j);
}

static int arch_job_load_text(struct tm_arch_job *j)
{
	FILE *f = fmemopen(j->text, j->len, "r");
	int rc = TOPOMATCH_OK;
	if (!f)
		rc = tm_err(j->err, TOPOMATCH_ENOMEM, "out of memory (deco target stream)");
	else if (SCOTCH_archLoad(&j->arch, f))
		rc = tm_scotch_fail(j->err, "SCOTCH_archLoad (deco target)");
	if (f)
		fclose(f);
	free(j->text); /* the distances go as soon as they are loaded */
	j->text = NULL;
	return rc;
}

static int arch_job_build_graph(struct tm_arch_job *j)
{
	SCOTCH_Graph g, bound;
	SCOTCH_Context ctx;
	if (SCOTCH_graphInit(&g))
		return tm_scotch_fail(j->err, "SCOTCH_graphInit");
	int rc = TOPOMATCH_OK;
	if (SCOTCH_graphBuild(&g, 0, j->nv, j->vert, j->vert + 1, NULL, NULL, j->vert[j->nv],
			      j->edge, j->edlo)) {
		rc = tm_scotch_fail(j->err, "SCOTCH_graphBuild (target graph)");
	} else {
		/* the coarsening draws random numbers: the target must not vary */
		rc = tm_scotch_bind(&ctx, &bound, &g, 0, j->err);
		if (rc == TOPOMATCH_OK) {
			/* one Scotch session at a time: an abandoned step that
			 * gets its turn late does no work */
			if (j->deadline > 0 && tm_now() > j->deadline)
				rc = TOPOMATCH_EBUDGET;
			else if (SCOTCH_archBuild2(&j->arch, &bound, j->nlist, j->list))
				rc = tm_scotch_fail(j->err, "SCOTCH_archBuild2");
			tm_scotch_unbind(&ctx, &bound);
		}
	}
	SCOTCH_graphExit(&g); /* the target keeps its own copy */
	return rc;
}

static int deco_write(struct tm_arch_job *j);

static int arch_job_run(void *arg)
{
	struct tm_arch_job *j = arg;
	if (j->deadline > 0 && tm_now() > j->deadline)
		return TOPOMATCH_EBUDGET;
	if (SCOTCH_archInit(&j->arch))
		return tm_scotch_fail(j->err, "SCOTCH_archInit");
	j->has_arch = true;
	if (j->deco) {
		int rc = deco_write(j);
		return rc == TOPOMATCH_OK ? arch_job_load_text(j) : rc;
	}
	return arch_job_build_graph(j);
}

/* Run the job (x takes it, and its target, on success); work: its size
 * in distances or vertices + arcs, small ones run as plain calls. */
static int arch_job_start(tm_starget_t *x, struct tm_arch_job *j, int64_t work,
			  double deadline, char *err)
{
	j->deadline = deadline;
	bool small = work <= TM_ABANDON_MIN_WORK;
	int rc = tm_run_abandonable(small ? 0 : deadline, arch_job_run, arch_job_drop, j);
	if (rc == TOPOMATCH_EBUDGET && !small) /* j is the abandoned thread's now */
		return tm_err(err, rc, "Scotch target: time budget exceeded");
	if (rc != TOPOMATCH_OK) {
		tm_err(err, rc, "%s", rc == TOPOMATCH_EBUDGET ? "Scotch target: time budget exceeded"
							      : j->err);
		arch_job_drop(j);
		return rc;
	}
	x->job = j;
	return TOPOMATCH_OK;
}

static SCOTCH_Num *num_copy(const SCOTCH_Num *a, int64_t n, bool *oom)
{
	SCOTCH_Num *c = a ? tm_alloc(n, sizeof(*c)) : NULL;
	*oom = *oom || (a && !c);
	if (c)
		memcpy(c, a, (size_t)n * sizeof(*c));
	return c;
}

/*
 * Build a "deco" type-2 target from a Scotch graph (base 0, connected)
 * whose terminals are list[0..nlist-1] (NULL: every vertex, in order).
 * The arrays stay the caller's (the job takes copies).
 */
static int build_deco(tm_starget_t *x, SCOTCH_Num nv, SCOTCH_Num *vert, SCOTCH_Num *edge,
		      SCOTCH_Num *edlo, SCOTCH_Num nlist, SCOTCH_Num *list, double deadline,
		      char *err)
{
	struct tm_arch_job *j = calloc(1, sizeof(*j));
	bool oom = !j;
	if (j) {
		j->nv = nv;
		j->nlist = nlist;
		j->vert = num_copy(vert, nv + 1, &oom);
		j->edge = num_copy(edge, vert[nv], &oom);
		j->edlo = num_copy(edlo, vert[nv], &oom);
		j->list = num_copy(list, nlist, &oom);
	}
	if (oom) {
		arch_job_drop(j);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (deco target)");
	}
	return arch_job_start(x, j, (int64_t)nv + vert[nv], deadline, err);
}

/* SCOTCH_Num copy of a PU list (NULL stays NULL). */
static SCOTCH_Num *num_list(const int64_t *cand, int64_t m, bool *oom)
{
	SCOTCH_Num *l = cand ? tm_alloc(m, sizeof(*l)) : NULL;
	*oom = cand && !l;
	for (int64_t j = 0; l && j < m; j++)
		l[j] = (SCOTCH_Num)cand[j];
	return l;
}

/*
 * Mesh of more than 3 dimensions: archBuild2's target of the mesh graph
 * (first dimension fastest), its terminals the m PUs of cand (NULL: all).
 */
static int build_mesh_deco(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
			   int64_t m, double deadline, char *err)
{
	int64_t n = t->npu, narcs = 0;
	for (int k = 0; k < t->ndims; k++)
		narcs += 2 * (n / t->dims[k]) * (t->dims[k] - 1);
	if (n > SCOTCH_NUMMAX - 1 || narcs > SCOTCH_NUMMAX)
		return tm_err(err, TOPOMATCH_ELIMIT, "Scotch: mesh too large for 32-bit Scotch");
	SCOTCH_Num *vert = tm_alloc(n + 1, sizeof(*vert));
	SCOTCH_Num *edge = tm_alloc(narcs, sizeof(*edge));
	if (!vert || !edge) {
		free(vert);
		free(edge);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (mesh target)");
	}
	SCOTCH_Num e = 0;
	for (int64_t p = 0; p < n; p++) {
		vert[p] = e;
		for (int k = t->ndims - 1; k >= 0; k--) /* - neighbours, far to near */
			if (tm_grid_coord(t, k, p) > 0)
				edge[e++] = (SCOTCH_Num)(p - t->stride[k]);
		for (int k = 0; k < t->ndims; k++) /* + neighbours, near to far */
			if (tm_grid_coord(t, k, p) < t->dims[k] - 1)
				edge[e++] = (SCOTCH_Num)(p + t->stride[k]);
	}
	vert[n] = e;
	bool oom;
	SCOTCH_Num *list = num_list(cand, m, &oom);
	int rc = oom ? tm_err(err, TOPOMATCH_ENOMEM, "out of memory (mesh target)")
		     : build_deco(x, (SCOTCH_Num)n, vert, edge, NULL, (SCOTCH_Num)m, list, deadline,
				  err);
	free(list);
	free(vert);
	free(edge);
	return rc;
}

static int build_grid(tm_starget_t *x, const topomatch_topology_t *t, char *err)
{
	SCOTCH_Num dims[TOPOMATCH_MAX_DIMS];
	x->dmax = 0;
	for (int k = 0; k < t->ndims; k++) {
		dims[k] = t->dims[k];
		x->dmax += t->wrap[k] ? dims[k] / 2 : dims[k] - 1;
	}
	if (t->kind == TOPOMATCH_TOPO_HCUB) {
		if (SCOTCH_archHcub(&x->full, t->ndims))
			return tm_scotch_fail(err, "SCOTCH_archHcub");
	} else if (t->kind == TOPOMATCH_TOPO_TORUS) {
		if (SCOTCH_archTorusX(&x->full, t->ndims, dims))
			return tm_scotch_fail(err, "SCOTCH_archTorusX");
	} else if (t->ndims <= 2) {
		if (SCOTCH_archMesh2(&x->full, dims[0], t->ndims == 2 ? dims[1] : 1))
			return tm_scotch_fail(err, "SCOTCH_archMesh2");
	} else if (t->ndims == 3) {
		if (SCOTCH_archMesh3(&x->full, dims[0], dims[1], dims[2]))
			return tm_scotch_fail(err, "SCOTCH_archMesh3");
	} else {
		return build_mesh_deco(x, t, NULL, t->npu, 0, err); /* export only */
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------ exact "deco" targets */

/*
 * Graph topologies, and meshes of more than three dimensions, with up to
 * this many PUs to map onto get a "deco" target that we write out: our
 * exact distances and a balanced decomposition, read back with
 * SCOTCH_archLoad.  Scotch keeps a distance for every pair of domain
 * numbers (< 4 n), twice while loading: about 70 MB at 2048 PUs.  Beyond,
 * archBuild2's target, whose distances are approximate (9 hops for 5 on a
 * 4D mesh of 72 PUs), whose decomposition can be lopsided (4 switches of
 * 4 PUs split 15 + 1, which ruins the recursive bipartitioning of the
 * mapping), and whose distance queries are slow: 4.8 s against 0.4 s for
 * 2048 PUs behind 128 switches (16 per switch, cliques of 16 tasks).
 */
#define DECO_MAX_TERMS 2048

/* Largest distance written: Scotch sums them into 32-bit domain averages. */
#define DECO_MAX_DIST 65536

struct deco {
	const topomatch_topology_t *t;
	int64_t n;           /* terminals: label j is PU cand[j] */
	const int64_t *cand; /* NULL: PU j */
	SCOTCH_Num *dist;    /* n x n */
	int64_t *dom;        /* terminal -> domain: root 1, halves 2d and 2d + 1 */
	int64_t dommax;
};

static int64_t deco_pu(const struct deco *d, int64_t j)
{
	return d->cand ? d->cand[j] : j;
}

/* Grids with a local tree: the costs of its levels and of router links. */
static void grid_cost_scale(const topomatch_topology_t *t, double *scale)
{
	double c[TOPOMATCH_MAX_LEVELS + 1];
	bool uniform = true;
	int n = 0;
	for (int k = 0; k < t->nlevels; k++)
		c[n++] = t->cost[k];
	c[n++] = t->grid_cost;
	for (int k = 1; k < n; k++)
		uniform = uniform && c[k] == c[0];
	if (!uniform)
		*scale = cost_scale(c, n);
}

/* Integer units of the route costs; 0 when every link costs the same
 * (hops then).  Plain meshes and grids have unit links. */
static int graph_cost_scale(const topomatch_topology_t *t, double *scale)
{
	*scale = 0.0;
	if (tm_grid_tree(t)) {
		grid_cost_scale(t, scale);
		return TOPOMATCH_OK;
	}
	if (t->kind != TOPOMATCH_TOPO_GRAPH || t->nedges == 0)
		return TOPOMATCH_OK;
	double *c = tm_alloc(t->nedges, sizeof(*c));
	if (!c)
		return TOPOMATCH_ENOMEM;
	bool uniform = true;
	for (int64_t v = 0; v < t->nvert; v++)
		for (int64_t k = t->adj_ptr[v]; k < t->adj_ptr[v + 1]; k++)
			c[t->adj[k].link / 2] = t->adj[k].cost;
	for (int64_t k = 1; k < t->nedges; k++)
		uniform = uniform && c[k] == c[0];
	if (!uniform)
		*scale = cost_scale(c, t->nedges);
	free(c);
	return TOPOMATCH_OK;
}

static SCOTCH_Num deco_value(topomatch_router_t *r, int64_t q, double scale)
{
	double x = scale > 0.0 ? floor(topomatch_router_cost(r, q) * scale + 0.5)
			       : (double)topomatch_router_hops(r, q);
	return x < 1.0 ? 1 : x > DECO_MAX_DIST ? DECO_MAX_DIST : (SCOTCH_Num)x;
}

/* All pairs; the router runs one BFS per source on graphs. */
static int deco_distances(struct deco *d, SCOTCH_Num *dmax, double deadline, char *err)
{
	double scale;
	topomatch_router_t *r;
	if (graph_cost_scale(d->t, &scale))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	int rc = topomatch_router_create(d->t, &r, err);
	if (rc)
		return rc;
	*dmax = 1;
	for (int64_t i = 0; i < d->n; i++) {
		/* a row is a BFS of the topology graph and n queries */
		if (deadline > 0 && tm_now() > deadline) {
			topomatch_router_destroy(r);
			return tm_err(err, TOPOMATCH_EBUDGET, "Scotch target: time budget exceeded");
		}
		topomatch_router_source(r, deco_pu(d, i));
		for (int64_t j = 0; j < d->n; j++) {
			SCOTCH_Num v = i == j ? 0 : deco_value(r, deco_pu(d, j), scale);
			d->dist[i * d->n + j] = v;
			*dmax = v > *dmax ? v : *dmax;
		}
	}
	topomatch_router_destroy(r);
	return TOPOMATCH_OK;
}

struct split_key {
	int64_t side; /* d(p, a) - d(p, b): the a side first */
	int64_t da;
	int64_t j;
};

static int cmp_split(const void *p, const void *q)
{
	const struct split_key *a = p, *b = q;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->da != b->da)
		return a->da < b->da ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

static int64_t farthest(const struct deco *d, const int64_t *set, int64_t s, int64_t from)
{
	int64_t best = set[0];
	for (int64_t q = 1; q < s; q++)
		if (d->dist[from * d->n + set[q]] > d->dist[from * d->n + best])
			best = set[q];
	return best;
}

/*
 * Where to cut the sorted set[0..s-1] of a subtree `h` levels high: both
 * parts must fit in h - 1 levels, so that the tree keeps the height of a
 * balanced one (Scotch sizes its tables by the largest domain number).
 * Within that range, the cut nearest to the middle that falls between two
 * keys, so that the PUs behind one switch (same distances) stay together.
 */
static int64_t cut_point(const struct split_key *k, int64_t s, int h)
{
	int64_t half = INT64_C(1) << (h - 1);
	int64_t lo = s - half > 1 ? s - half : 1, hi = half < s - 1 ? half : s - 1;
	int64_t best = -1, mid = s / 2;
	for (int64_t c = lo; c <= hi; c++) {
		bool boundary = k[c - 1].side != k[c].side || k[c - 1].da != k[c].da;
		if (boundary && (best < 0 || llabs(c - mid) < llabs(best - mid)))
			best = c;
	}
	return best >= 0 ? best : (mid < lo ? lo : mid > hi ? hi : mid);
}

/*
 * Split set[0..s-1] (domain dom, h levels available) around two far-apart
 * terminals a and b: first the PUs closer to a, by d(p, a) - d(p, b).
 */
static void bisect(struct deco *d, int64_t *set, int64_t s, int64_t dom, int h,
		   struct split_key *tmp)
{
	if (s == 1) {
		d->dom[set[0]] = dom;
		d->dommax = dom > d->dommax ? dom : d->dommax;
		return;
	}
	int64_t a = farthest(d, set, s, set[0]);
	int64_t b = farthest(d, set, s, a);
	for (int64_t q = 0; q < s; q++) {
		int64_t p = set[q], da = d->dist[p * d->n + a];
		tmp[q] = (struct split_key){ da - d->dist[p * d->n + b], da, p };
	}
	qsort(tmp, (size_t)s, sizeof(*tmp), cmp_split);
	int64_t c = cut_point(tmp, s, h);
	for (int64_t q = 0; q < s; q++)
		set[q] = tmp[q].j;
	bisect(d, set, c, 2 * dom, h - 1, tmp);
	bisect(d, set + c, s - c, 2 * dom + 1, h - 1, tmp);
}

/* Levels of a balanced binary tree over n leaves. */
static int tree_height(int64_t n)
{
	int h = 0;
	while ((INT64_C(1) << h) < n)
		h++;
	return h;
}

/* Scotch's "deco 0" text: terminals (label, weight, domain), then the
 * lower triangle of the distances. */
static char *deco_text(const struct deco *d, size_t *len)
{
	size_t cap = 64 + (size_t)d->n * 64 + (size_t)(d->n * (d->n - 1) / 2) * 12, pos;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	pos = (size_t)snprintf(buf, cap, "deco\n0\n%lld %lld\n", (long long)d->n,
			       (long long)d->dommax);
	for (int64_t j = 0; j < d->n; j++)
		pos += (size_t)snprintf(buf + pos, cap - pos, "%lld 1 %lld\n", (long long)j,
					(long long)d->dom[j]);
	for (int64_t i = 1; i < d->n; i++) {
		for (int64_t j = 0; j < i; j++)
			pos += (size_t)snprintf(buf + pos, cap - pos, "%d ",
						(int)d->dist[i * d->n + j]);
		pos += (size_t)snprintf(buf + pos, cap - pos, "\n");
	}
	*len = pos;
	return buf;
}

static void deco_free(struct deco *d)
{
	if (!d)
		return;
	free(d->dist);
	free(d->dom);
	free(d);
}

/* In the job (no topology there): the balanced decomposition of the
 * terminals, then the target as text; the distances go as soon as they
 * are text, Scotch needs room too. */
static int deco_write(struct tm_arch_job *j)
{
	struct deco *d = j->deco;
	int64_t m = d->n, *set = tm_alloc(m, sizeof(*set));
	struct split_key *tmp = tm_alloc(m, sizeof(*tmp));
	if (set && tmp) {
		for (int64_t k = 0; k < m; k++)
			set[k] = k;
		bisect(d, set, m, 1, tree_height(m), tmp);
		j->text = deco_text(d, &j->len);
	}
	free(set);
	free(tmp);
	deco_free(d);
	j->deco = NULL;
	return j->text ? TOPOMATCH_OK
		       : tm_err(j->err, TOPOMATCH_ENOMEM, "out of memory (deco target)");
}

/* The exact distances here (they need the topology), the rest in a job:
 * decomposing them, writing them out (0.05 s for 1,152 PUs) and Scotch's
 * loading (0.2 s). */
static int build_exact_deco(tm_starget_t *x, const topomatch_topology_t *t,
			    const int64_t *cand, int64_t m, double deadline, char *err)
{
	struct tm_arch_job *j = calloc(1, sizeof(*j));
	struct deco *d = calloc(1, sizeof(*d));
	if (j)
		j->deco = d;
	if (d) {
		*d = (struct deco){ .t = t, .n = m, .cand = cand };
		d->dist = tm_alloc(m * m, sizeof(*d->dist));
		d->dom = tm_alloc(m, sizeof(*d->dom));
	}
	if (!j || !d || !d->dist || !d->dom) {
		if (!j)
			deco_free(d);
		arch_job_drop(j);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	int rc = deco_distances(d, &x->dmax, deadline, err);
	if (rc != TOPOMATCH_OK) {
		arch_job_drop(j);
		return rc;
	}
	d->t = NULL; /* the job must not touch the caller's topology */
	d->cand = NULL;
	return arch_job_start(x, j, m * m, deadline, err);
}

int tm_exact_deco_text(const topomatch_topology_t *t, char **text, size_t *len, char *err)
{
	*text = NULL;
	*len = 0;
	if (t->npu < 2 || t->npu > DECO_MAX_TERMS)
		return tm_err(err, TOPOMATCH_ELIMIT, "Scotch: exact deco targets take 2 to %d PUs "
			      "(not %lld)", DECO_MAX_TERMS, (long long)t->npu);
	int64_t m = t->npu;
	struct tm_arch_job j = { 0 };
	struct deco *d = calloc(1, sizeof(*d));
	if (d) {
		*d = (struct deco){ .t = t, .n = m };
		d->dist = tm_alloc(m * m, sizeof(*d->dist));
		d->dom = tm_alloc(m, sizeof(*d->dom));
	}
	if (!d || !d->dist || !d->dom) {
		deco_free(d);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	SCOTCH_Num dmax;
	int rc = deco_distances(d, &dmax, 0, err);
	if (rc != TOPOMATCH_OK) {
		deco_free(d);
		return rc;
	}
	j.deco = d; /* deco_write frees it */
	rc = deco_write(&j);
	if (rc != TOPOMATCH_OK)
		return tm_err(err, rc, "%s", j.err);
	*text = j.text;
	*len = j.len;
	return TOPOMATCH_OK;
}

/* Targets that Scotch has no algorithmic class for. */
static bool graph_like(const topomatch_topology_t *t)
{
	return t->npu > 1 && (t->kind == TOPOMATCH_TOPO_GRAPH || tm_grid_tree(t) ||
			      (t->kind == TOPOMATCH_TOPO_MESH && t->ndims > 3));
}

/* ------------------------------------------------------- graph topologies */

/* Scotch graph of a topology graph: the connected part that holds the PUs
 * (deco targets want a connected graph), parallel links merged. */
struct topo_graph {
	int64_t nv;
	int64_t *id; /* topology vertex -> Scotch vertex, -1 when left out */
	SCOTCH_Num *vert;
	SCOTCH_Num *edge;
	SCOTCH_Num *edlo; /* NULL when every link costs the same */
	SCOTCH_Num *list; /* PU p -> Scotch vertex */
	int64_t ecc;      /* hops from PU 0 to the farthest vertex kept */
};

static void topo_graph_free(struct topo_graph *g)
{
	free(g->id);
	free(g->vert);
	free(g->edge);
	free(g->edlo);
	free(g->list);
}

/* Keep the vertices that PU 0 reaches, numbered in vertex order. */
static int topo_graph_vertices(struct topo_graph *g, const topomatch_topology_t *t)
{
	tm_bfs_t b;
	if (tm_bfs_init(&b, t->nvert))
		return TOPOMATCH_ENOMEM;
	tm_bfs_run(&b, t, t->pu_vert[0]);
	g->nv = 0;
	g->ecc = 0;
	for (int64_t v = 0; v < t->nvert; v++) {
		g->id[v] = b.dist[v] >= 0 ? g->nv++ : -1;
		if (b.dist[v] > g->ecc)
			g->ecc = b.dist[v];
	}
	tm_bfs_free(&b);
	return TOPOMATCH_OK;
}

/* Adjacency of the kept vertices; rows come sorted by neighbour, so
 * parallel links are neighbours in a row: the cheapest one stays. */
static void topo_graph_edges(struct topo_graph *g, const topomatch_topology_t *t,
			     const SCOTCH_Num *lcost)
{
	SCOTCH_Num e = 0;
	for (int64_t v = 0; v < t->nvert; v++) {
		if (g->id[v] < 0)
			continue;
		g->vert[g->id[v]] = e;
		for (int64_t k = t->adj_ptr[v]; k < t->adj_ptr[v + 1]; k++) {
			SCOTCH_Num c = lcost[t->adj[k].link / 2];
			SCOTCH_Num u = (SCOTCH_Num)g->id[t->adj[k].nbr];
			if (e > g->vert[g->id[v]] && g->edge[e - 1] == u) {
				if (g->edlo && c < g->edlo[e - 1])
					g->edlo[e - 1] = c;
				continue;
			}
			if (g->edlo)
				g->edlo[e] = c;
			g->edge[e++] = u;
		}
	}
	g->vert[g->nv] = e;
}

/* Integer link costs, one per undirected link; all 1 when equal. */
static SCOTCH_Num *topo_link_costs(const topomatch_topology_t *t, bool *uniform,
				   SCOTCH_Num *cmax)
{
	SCOTCH_Num *lc = tm_alloc(t->nedges, sizeof(*lc));
	double *c = tm_alloc(t->nedges, sizeof(*c));
	if (!lc || !c) {
		free(lc);
		free(c);
		return NULL;
	}
	for (int64_t v = 0; v < t->nvert; v++)
		for (int64_t k = t->adj_ptr[v]; k < t->adj_ptr[v + 1]; k++)
			c[t->adj[k].link / 2] = t->adj[k].cost;
	int_costs(c, t->nedges, lc);
	free(c);
	*uniform = true;
	*cmax = 1;
	for (int64_t k = 0; k < t->nedges; k++) {
		*uniform = *uniform && lc[k] == lc[0];
		if (lc[k] > *cmax)
			*cmax = lc[k];
	}
	return lc;
}

static int topo_graph_build(struct topo_graph *g, const topomatch_topology_t *t,
			    SCOTCH_Num *dmax)
{
	bool uniform = true;
	SCOTCH_Num cmax = 1;
	SCOTCH_Num *lc = topo_link_costs(t, &uniform, &cmax);
	g->id = tm_alloc(t->nvert, sizeof(*g->id));
	g->vert = tm_alloc(t->nvert + 1, sizeof(*g->vert));
	g->edge = tm_alloc(2 * t->nedges, sizeof(*g->edge));
	g->edlo = uniform ? NULL : tm_alloc(2 * t->nedges, sizeof(*g->edlo));
	g->list = tm_alloc(t->npu, sizeof(*g->list));
	if (!lc || !g->id || !g->vert || !g->edge || (!uniform && !g->edlo) || !g->list ||
	    topo_graph_vertices(g, t)) {
		free(lc);
		return TOPOMATCH_ENOMEM;
	}
	topo_graph_edges(g, t, lc);
	free(lc);
	for (int64_t p = 0; p < t->npu; p++)
		g->list[p] = (SCOTCH_Num)g->id[t->pu_vert[p]];
	/* any two vertices are within 2 x ecc hops of each other */
	double d = 2.0 * (double)g->ecc * (double)(uniform ? 1 : cmax);
	*dmax = d < SCOTCH_NUMMAX ? (SCOTCH_Num)d : SCOTCH_NUMMAX;
	return TOPOMATCH_OK;
}

int tm_target_graph(const topomatch_topology_t *t, tm_tgraph_t *out, char *err)
{
	memset(out, 0, sizeof(*out));
	if (t->kind != TOPOMATCH_TOPO_GRAPH || t->npu < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "Scotch: no graph topology");
	if (t->nvert > SCOTCH_NUMMAX - 1 || 2 * t->nedges > SCOTCH_NUMMAX)
		return tm_err(err, TOPOMATCH_ELIMIT, "Scotch: topology graph too large for 32-bit "
			      "Scotch (%lld vertices, %lld links)",
			      (long long)t->nvert, (long long)t->nedges);
	struct topo_graph g = { 0 };
	SCOTCH_Num dmax;
	int rc = topo_graph_build(&g, t, &dmax);
	if (rc) {
		topo_graph_free(&g);
		return tm_err(err, rc, "out of memory (Scotch target of a %lld-vertex graph)",
			      (long long)t->nvert);
	}
	*out = (tm_tgraph_t){ .nv = (SCOTCH_Num)g.nv, .vert = g.vert, .edge = g.edge,
			      .edlo = g.edlo, .list = g.list };
	free(g.id);
	return TOPOMATCH_OK;
}

void tm_target_graph_free(tm_tgraph_t *g)
{
	free(g->vert);
	free(g->edge);
	free(g->edlo);
	free(g->list);
	memset(g, 0, sizeof(*g));
}

/* archBuild2's target of a topology graph, its terminals the m PUs of
 * cand (NULL: all, in order). */
static int build_graph(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
		       int64_t m, double deadline, char *err)
{
	if (t->nvert > SCOTCH_NUMMAX - 1 || 2 * t->nedges > SCOTCH_NUMMAX)
		return tm_err(err, TOPOMATCH_ELIMIT, "Scotch: topology graph too large for 32-bit "
			      "Scotch (%lld vertices, %lld links)",
			      (long long)t->nvert, (long long)t->nedges);
	struct topo_graph g = { 0 };
	int rc = topo_graph_build(&g, t, &x->dmax);
	if (rc) {
		topo_graph_free(&g);
		return tm_err(err, rc, "out of memory (Scotch target of a %lld-vertex graph)",
			      (long long)t->nvert);
	}
	SCOTCH_Num *list = cand ? tm_alloc(m, sizeof(*list)) : g.list;
	for (int64_t j = 0; cand && list && j < m; j++) /* PUs to Scotch vertices */
		list[j] = g.list[cand[j]];
	/* without switches, every vertex is a PU: all of them need no list */
	bool all = !cand && g.nv == t->npu;
	if (!list)
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	else
		rc = build_deco(x, (SCOTCH_Num)g.nv, g.vert, g.edge, g.edlo, (SCOTCH_Num)m,
				all ? NULL : list, deadline, err);
	if (cand)
		free(list);
	topo_graph_free(&g);
	return rc;
}

/* ------------------------------------------ large grids with a local tree */


/*
 * The router grid as a tree: each level splits the dimension of largest
 * extent by its smallest factor, as Scotch's own torus bipartitions do.
 * Two routers first apart at a level are about the extent s left in
 * that dimension apart, s x grid_cost; a tleaf distance is half a route
 * cost and sums the link values from there down, which halve level by
 * level: a link value of s x grid_cost / 4 gives about that.  (The
 * mapping was the same with 1/2 and 1, at 2048 to 8192 PUs.)
 */
struct grid_split {
	int n;
	int dim[GRID_SPLITS];
	SCOTCH_Num arity[GRID_SPLITS];
	double cost[GRID_SPLITS];
};

static void grid_splits(const topomatch_topology_t *t, struct grid_split *g)
{
	int ext[TOPOMATCH_MAX_DIMS];
	for (int k = 0; k < t->ndims; k++)
		ext[k] = t->dims[k];
	for (g->n = 0; g->n < GRID_SPLITS; g->n++) {
		int k = -1, f = 2;
		for (int i = 0; i < t->ndims; i++)
			if (ext[i] > 1 && (k < 0 || ext[i] > ext[k]))
				k = i;
		if (k < 0)
			break;
		while (ext[k] % f)
			f++;
		ext[k] /= f;
		g->dim[g->n] = k;
		g->arity[g->n] = f;
		g->cost[g->n] = t->grid_cost * ext[k] / 4.0;
	}
}

/* Terminal of the tleaf for PU p: the router's child taken at each split
 * (root most significant), then the local number. */
static SCOTCH_Num grid_tleaf_term(const topomatch_topology_t *t, const struct grid_split *g,
				  int64_t p)
{
	int64_t code = 0, ext[TOPOMATCH_MAX_DIMS];
	for (int k = 0; k < t->ndims; k++)
		ext[k] = t->dims[k];
	for (int l = 0; l < g->n; l++) {
		int k = g->dim[l];
		int64_t sub = ext[k] / g->arity[l];
		code = code * g->arity[l] + tm_grid_coord(t, k, p) % ext[k] / sub;
		ext[k] = sub;
	}
	return (SCOTCH_Num)(code * t->lpus + p % t->lpus);
}

/*
 * The tleaf: router splits, then the local levels.  Scotch refuses levels
 * of arity 1; a route crosses one exactly when it crosses the level
 * above, so its cost joins that level's (none above: every route is
 * under it, it changes nothing).  Under one router the distances are
 * then half our costs, to the rounding of int_costs.
 */
static int grid_tleaf_arch(tm_starget_t *x, const topomatch_topology_t *t,
			   const struct grid_split *g, char *err)
{
	SCOTCH_Num size[GRID_TLEAF_LEVELS];
	double cost[GRID_TLEAF_LEVELS] = { 0 };
	int n = 0;
	for (int l = 0; l < g->n; l++) {
		size[n] = g->arity[l];
		cost[n++] = g->cost[l];
	}
	for (int k = 0; k < t->nlevels; k++) {
		if (t->arity[k] < 2) {
			if (n > 0)
				cost[n - 1] += t->cost[k];
			continue;
		}
		size[n] = t->arity[k];
		cost[n++] = t->cost[k];
	}
	return tleaf_arch(x, size, cost, n, "SCOTCH_archTleaf (grid with a local tree)", err);
}

/*
 * Beyond DECO_MAX_TERMS PUs a grid with a local tree (or a mixed wrap)
 * is mapped onto that tleaf, its terminals renumbered as our PUs by a
 * sub-architecture on the m PUs of cand (NULL: all, in order).  The
 * distances are approximate across routers, exact under one.
 */
static int build_grid_tleaf(tm_starget_t *x, const topomatch_topology_t *t,
			    const int64_t *cand, int64_t m, char *err)
{
	struct grid_split g;
	grid_splits(t, &g);
	int rc = grid_tleaf_arch(x, t, &g, err);
	if (rc)
		return rc;
	SCOTCH_Num *list = tm_alloc(m, sizeof(*list));
	if (!list)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld PUs)", (long long)m);
	for (int64_t j = 0; j < m; j++)
		list[j] = grid_tleaf_term(t, &g, cand ? cand[j] : j);
	if (SCOTCH_archInit(&x->sub)) {
		rc = tm_scotch_fail(err, "SCOTCH_archInit");
	} else {
		x->has_sub = true;
		if (SCOTCH_archSub(&x->sub, x->job ? &x->job->arch : &x->full, (SCOTCH_Num)m, list))
			rc = tm_scotch_fail(err, "SCOTCH_archSub (grid with a local tree)");
	}
	free(list);
	return rc;
}

static int build_full(tm_starget_t *x, const topomatch_topology_t *t, char *err)
{
	if (t->npu == 1) { /* nothing to map onto but one PU */
		x->dmax = 1;
		return SCOTCH_archCmplt(&x->full, 1) ? tm_scotch_fail(err, "SCOTCH_archCmplt")
						     : TOPOMATCH_OK;
	}
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return build_tleaf(x, t, err);
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
	case TOPOMATCH_TOPO_HCUB:
		return build_grid(x, t, err);
	case TOPOMATCH_TOPO_GRAPH:
		return build_graph(x, t, NULL, t->npu, 0, err); /* export only */
	default:
		return tm_err(err, TOPOMATCH_EINVAL, "Scotch: unknown topology kind %d", t->kind);
	}
}

/* TopoMatch Alg. 4 lines 1-2: the sub-architecture of the allowed PUs. */
static int build_sub(tm_starget_t *x, const int64_t *cand, int64_t m, char *err)
{
	SCOTCH_Num *list = tm_alloc(m, sizeof(*list));
	if (!list)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld allowed PUs)",
			      (long long)m);
	for (int64_t j = 0; j < m; j++)
		list[j] = (SCOTCH_Num)cand[j];
	int rc = TOPOMATCH_OK;
	if (SCOTCH_archInit(&x->sub)) {
		rc = tm_scotch_fail(err, "SCOTCH_archInit");
	} else {
		x->has_sub = true;
		if (SCOTCH_archSub(&x->sub, x->job ? &x->job->arch : &x->full, (SCOTCH_Num)m, list))
			rc = tm_scotch_fail(err, "SCOTCH_archSub");
	}
	free(list);
	return rc;
}

/* The list is the whole target, in order: no sub-architecture needed. */
static bool is_identity(const int64_t *cand, int64_t m, int64_t npu)
{
	if (!cand)
		return true;
	if (m != npu)
		return false;
	for (int64_t j = 0; j < m; j++)
		if (cand[j] != j)
			return false;
	return true;
}

int tm_starget_build(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
		     int64_t m, char *err)
{
	return tm_starget_build_until(x, t, cand, m, 0, err);
}

int tm_starget_build_until(tm_starget_t *x, const topomatch_topology_t *t, const int64_t *cand,
			   int64_t m, double deadline, char *err)
{
	memset(x, 0, sizeof(*x));
	if (t->npu > SCOTCH_NUMMAX)
		return tm_err(err, TOPOMATCH_ELIMIT, "Scotch: %lld PUs are too many for 32-bit "
			      "Scotch", (long long)t->npu);
	if (SCOTCH_archInit(&x->full))
		return tm_scotch_fail(err, "SCOTCH_archInit");
	x->has_full = true;
	int rc;
	int64_t nterm = cand ? m : t->npu;
	if (!graph_like(t)) {
		rc = build_full(x, t, err);
		if (rc == TOPOMATCH_OK && !is_identity(cand, m, t->npu))
			rc = build_sub(x, cand, m, err);
	} else if (nterm <= DECO_MAX_TERMS) { /* the restriction is built in */
		rc = build_exact_deco(x, t, cand, nterm, deadline, err);
	} else if (t->kind == TOPOMATCH_TOPO_GRAPH) {
		/* archBuild2 restricts by itself (archSub of its target took 256 MB) */
		rc = build_graph(x, t, cand, nterm, deadline, err);
	} else if (tm_grid_tree(t)) {
		rc = build_grid_tleaf(x, t, cand, nterm, err);
	} else {
		rc = build_mesh_deco(x, t, cand, nterm, deadline, err);
	}
	if (rc) {
		tm_starget_free(x);
		return rc;
	}
	x->nterm = SCOTCH_archSize(tm_starget_arch(x));
	if (x->dmax < 1)
		x->dmax = 1;
	return TOPOMATCH_OK;
}

void tm_starget_free(tm_starget_t *x)
{
	if (x->has_sub) /* first: it points to the full target */
		SCOTCH_archExit(&x->sub);
	if (x->has_full)
		SCOTCH_archExit(&x->full);
	arch_job_drop(x->job);
	x->job = NULL;
	x->has_sub = x->has_full = false;
}

SCOTCH_Arch *tm_starget_arch(tm_starget_t *x)
{
	return x->has_sub ? &x->sub : x->job ? &x->job->arch : &x->full;
}

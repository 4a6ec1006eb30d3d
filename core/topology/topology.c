/*
 * topology.c - the target topology model: balanced trees (Scotch tleaf),
 * torus and mesh grids, hypercubes and general graphs; PU numbering,
 * shapes, canonical text and point-to-point distances.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "topology_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static topomatch_topology_t *topo_new(int kind)
{
	topomatch_topology_t *t = calloc(1, sizeof(*t));
	if (t)
		t->kind = kind;
	return t;
}

void topomatch_topology_destroy(topomatch_topology_t *t)
{
	if (!t)
		return;
	free(t->adj_ptr);
	free(t->adj);
	free(t->pu_vert);
	free(t->vert_pu);
	tm_graph_hang_free(t);
	free(t);
}

/* ---------------------------------------------------------------- trees */

/* Level k of a tree or of a grid's local tree ("tree level", "grid: local
 * level" in messages): arity >= 1, a finite positive link cost. */
static int level_check(const char *what, int k, const int *arity, const double *cost,
		       char *err)
{
	if (arity[k] < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "%s %d: arity must be >= 1 (got %d)", what,
			      k + 1, arity[k]);
	if (cost && (!isfinite(cost[k]) || cost[k] <= 0.0))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "%s %d: link cost must be finite and > 0 (got %g)", what, k + 1,
			      cost[k]);
	return TOPOMATCH_OK;
}

static int tree_check(int nlevels, const int *arity, const double *cost, int64_t *npu,
		      char *err)
{
	if (nlevels < 1 || nlevels > TOPOMATCH_MAX_LEVELS)
		return tm_err(err, nlevels < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "a tree needs 1 to %d levels (got %d)", TOPOMATCH_MAX_LEVELS,
			      nlevels);
	if (!arity)
		return tm_err(err, TOPOMATCH_EINVAL, "tree: no arity array");
	double sum = 0.0;
	*npu = 1;
	for (int k = 0; k < nlevels; k++) {
		int rc = level_check("tree level", k, arity, cost, err);
		if (rc)
			return rc;
		sum += cost ? cost[k] : 1.0;
		/* arity >= 1 keeps the product monotone: checking each step is enough */
		if (!tm_mul_ok(*npu, arity[k], npu) || *npu > TOPOMATCH_MAX_PUS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "tree has more than %lld PUs (the limit)",
				      (long long)TOPOMATCH_MAX_PUS);
	}
	/* the longest route costs twice the sum: keep every B finite */
	if (!isfinite(2.0 * sum))
		return tm_err(err, TOPOMATCH_EINVAL, "tree: link costs too large (sum %g)", sum);
	return TOPOMATCH_OK;
}

int topomatch_topology_tree(int nlevels, const int *arity, const double *cost,
			    topomatch_topology_t **out, char *err)
{
	int64_t npu;
	*out = NULL;
	int rc = tree_check(nlevels, arity, cost, &npu, err);
	if (rc)
		return rc;
	topomatch_topology_t *t = topo_new(TOPOMATCH_TOPO_TREE);
	if (!t)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	t->npu = npu;
	t->nlevels = nlevels;
	t->maxhops = 2 * nlevels;
	t->below[nlevels] = 1;
	t->costsum[nlevels] = 0.0;
	for (int k = nlevels - 1; k >= 0; k--) {
		t->arity[k] = arity[k];
		t->cost[k] = cost ? cost[k] : 1.0;
		t->below[k] = t->below[k + 1] * arity[k];
		t->costsum[k] = t->costsum[k + 1] + t->cost[k];
	}
	/* non-root nodes, depth by depth; depth k has npu / below[k] of them
	 * (at most nlevels * npu in all, far from overflowing) */
	t->node_off[0] = 0;
	t->node_off[1] = 0;
	for (int k = 1; k < nlevels; k++)
		t->node_off[k + 1] = t->node_off[k] + npu / t->below[k];
	t->nlinks = 2 * (t->node_off[nlevels] + npu);
	*out = t;
	return TOPOMATCH_OK;
}

int tm_tree_lca(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	int k = 0;
	while (k < t->nlevels && p / t->below[k + 1] == q / t->below[k + 1])
		k++;
	return k;
}

int64_t tm_tree_node(const topomatch_topology_t *t, int k, int64_t p)
{
	return t->node_off[k] + p / t->below[k];
}

/* ---------------------------------------------------------------- grids */

/* Routers: dimension sizes, PU count (lpus below each router) and the
 * longest router-router route. */
static int grid_dims(topomatch_topology_t *t, int ndims, const int *dims, char *err)
{
	int64_t npu = t->lpus;
	t->ndims = ndims;
	t->grid_maxhops = 0;
	for (int k = 0; k < ndims; k++) {
		if (dims[k] < 1)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "dimension %d: size must be >= 1 (got %d)", k + 1, dims[k]);
		t->dims[k] = dims[k];
		t->stride[k] = npu;
		if (!tm_mul_ok(npu, dims[k], &npu) || npu > TOPOMATCH_MAX_PUS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "grid has more than %lld PUs (the limit)",
				      (long long)TOPOMATCH_MAX_PUS);
		/* a wrapping dimension of 1 or 2 has nothing to wrap: X/2 is then exact */
		t->grid_maxhops += t->wrap[k] ? dims[k] / 2 : dims[k] - 1;
	}
	t->npu = npu;
	return TOPOMATCH_OK;
}

/* The local tree below every router: arities, link costs, PUs per router. */
static int grid_local(topomatch_topology_t *t, int nlevels, const int *arity,
		      const double *cost, char *err)
{
	if (nlevels < 0 || nlevels > TOPOMATCH_MAX_LEVELS)
		return tm_err(err, nlevels < 0 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "grid: a local tree has 0 to %d levels (got %d)",
			      TOPOMATCH_MAX_LEVELS, nlevels);
	if (nlevels > 0 && !arity)
		return tm_err(err, TOPOMATCH_EINVAL, "grid: no arity array for %d local levels",
			      nlevels);
	t->nlevels = nlevels;
	t->lpus = 1;
	for (int k = 0; k < nlevels; k++) {
		int rc = level_check("grid: local level", k, arity, cost, err);
		if (rc)
			return rc;
		/* arity >= 1 keeps the product monotone: checking each step is enough */
		if (!tm_mul_ok(t->lpus, arity[k], &t->lpus) || t->lpus > TOPOMATCH_MAX_PUS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "grid has more than %lld PUs (the limit)",
				      (long long)TOPOMATCH_MAX_PUS);
		t->arity[k] = arity[k];
		t->cost[k] = cost ? cost[k] : 1.0;
	}
	t->below[nlevels] = 1;
	t->costsum[nlevels] = 0.0;
	for (int k = nlevels - 1; k >= 0; k--) {
		t->below[k] = t->below[k + 1] * t->arity[k];
		t->costsum[k] = t->costsum[k + 1] + t->cost[k];
	}
	return TOPOMATCH_OK;
}

/*
 * Link ids (router.c): the local tree links first, numbered as a tree's
 * over all routers (node_off counts the non-root local nodes of every
 * router depth by depth), then a + and a - link per router and dimension.
 */
static void grid_links(topomatch_topology_t *t)
{
	int64_t nrouters = t->npu / t->lpus, local = 0;
	t->node_off[0] = 0;
	t->node_off[1] = 0;
	for (int k = 1; k < t->nlevels; k++)
		t->node_off[k + 1] = t->node_off[k] + t->npu / t->below[k];
	if (t->nlevels > 0)
		local = 2 * (t->node_off[t->nlevels] + t->npu);
	/* mesh borders leave some grid ids unused */
	t->nlinks = local + 2 * nrouters * t->ndims;
	t->maxhops = t->grid_maxhops + 2 * (int64_t)t->nlevels;
}

static int grid_args(int ndims, const int *dims, topomatch_topology_t **out, char *err)
{
	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "grid: no output pointer");
	*out = NULL;
	if (ndims < 1 || ndims > TOPOMATCH_MAX_DIMS)
		return tm_err(err, ndims < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "a grid needs 1 to %d dimensions (got %d)", TOPOMATCH_MAX_DIMS,
			      ndims);
	if (!dims)
		return tm_err(err, TOPOMATCH_EINVAL, "grid: no dimension array");
	return TOPOMATCH_OK;
}

/* The longest route must have a finite cost, as on trees and graphs. */
static int grid_costs(topomatch_topology_t *t, double grid_cost, char *err)
{
	if (!isfinite(grid_cost) || grid_cost <= 0.0)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "grid: router link cost must be finite and > 0 (got %g)", grid_cost);
	t->grid_cost = grid_cost;
	double longest = (double)t->grid_maxhops * grid_cost + 2.0 * t->costsum[0];
	if (!isfinite(longest))
		return tm_err(err, TOPOMATCH_EINVAL, "grid: link costs too large (a route of %g)",
			      longest);
	return TOPOMATCH_OK;
}

int topomatch_topology_grid_tree(int ndims, const int *dims, const unsigned char *wrap,
				 int nlevels, const int *arity, const double *cost,
				 double grid_cost, topomatch_topology_t **out, char *err)
{
	int rc = grid_args(ndims, dims, out, err);
	if (rc)
		return rc;
	topomatch_topology_t *t = topo_new(TOPOMATCH_TOPO_TORUS);
	if (!t)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int k = 0; k < ndims; k++) {
		t->wrap[k] = wrap && wrap[k] ? 1 : 0;
		if (!t->wrap[k])
			t->kind = TOPOMATCH_TOPO_MESH;
	}
	rc = grid_local(t, nlevels, arity, cost, err);
	if (!rc)
		rc = grid_dims(t, ndims, dims, err);
	if (!rc)
		rc = grid_costs(t, grid_cost, err);
	if (rc) {
		free(t);
		return rc;
	}
	grid_links(t);
	*out = t;
	return TOPOMATCH_OK;
}

int topomatch_topology_grid(int ndims, const int *dims, int wrap, topomatch_topology_t **out,
			    char *err)
{
	unsigned char w[TOPOMATCH_MAX_DIMS];
	memset(w, wrap ? 1 : 0, sizeof(w));
	return topomatch_topology_grid_tree(ndims, dims, w, 0, NULL, NULL, 1.0, out, err);
}

/*
 * A hypercube is a mesh of d dimensions of size 2 for the shape queries,
 * so it obeys TOPOMATCH_MAX_DIMS; its links are numbered on their own
 * (one per node and bit, see router.c).
 */
int topomatch_topology_hcub(int d, topomatch_topology_t **out, char *err)
{
	*out = NULL;
	if (d < 1 || d > TOPOMATCH_MAX_DIMS)
		return tm_err(err, d < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "a hypercube needs 1 to %d dimensions (got %d)", TOPOMATCH_MAX_DIMS,
			      d);
	topomatch_topology_t *t = topo_new(TOPOMATCH_TOPO_HCUB);
	if (!t)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	t->ndims = d;
	t->npu = INT64_C(1) << d;
	t->lpus = 1;
	t->below[0] = 1;
	t->grid_cost = 1.0;
	t->grid_maxhops = d;
	t->maxhops = d;
	t->nlinks = t->npu * d;
	for (int k = 0; k < d; k++) {
		t->dims[k] = 2;
		t->stride[k] = INT64_C(1) << k;
	}
	*out = t;
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- graphs */

static int graph_check(int64_t nvert, int64_t nlinks, const int64_t *a, const int64_t *b,
		       const double *cost, char *err)
{
	if (nvert < 1 || nvert > TM_MAX_GRAPH_VERTICES)
		return tm_err(err, nvert < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "a graph needs 1 to %lld vertices (got %lld)",
			      (long long)TM_MAX_GRAPH_VERTICES, (long long)nvert);
	if (nlinks < 0 || nlinks > TM_MAX_GRAPH_LINKS)
		return tm_err(err, nlinks < 0 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "a graph has 0 to %lld links (got %lld)",
			      (long long)TM_MAX_GRAPH_LINKS, (long long)nlinks);
	double sum = 0.0;
	if (nlinks > 0 && (!a || !b))
		return tm_err(err, TOPOMATCH_EINVAL, "graph: no link arrays");
	for (int64_t k = 0; k < nlinks; k++) {
		if (a[k] < 0 || a[k] >= nvert || b[k] < 0 || b[k] >= nvert)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "graph link %lld: vertex out of range [0, %lld)",
				      (long long)k, (long long)nvert);
		if (a[k] == b[k])
			return tm_err(err, TOPOMATCH_EINVAL,
				      "graph link %lld connects vertex %lld to itself",
				      (long long)k, (long long)a[k]);
		if (cost && (!isfinite(cost[k]) || cost[k] <= 0.0))
			return tm_err(err, TOPOMATCH_EINVAL,
				      "graph link %lld: cost must be finite and > 0 (got %g)",
				      (long long)k, cost[k]);
		sum += cost ? cost[k] : 1.0;
	}
	/* a routed path is simple, so it costs at most the sum of all links */
	if (!isfinite(sum))
		return tm_err(err, TOPOMATCH_EINVAL, "graph: link costs too large (sum %g)", sum);
	return TOPOMATCH_OK;
}

static int cmp_adj(const void *x, const void *y)
{
	const tm_adj_t *p = x, *q = y;
	if (p->nbr != q->nbr)
		return p->nbr < q->nbr ? -1 : 1;
	return (p->link > q->link) - (p->link < q->link);
}

/* CSR adjacency, each row in increasing neighbour order (the BFS order);
 * parallel links keep link order, so the lowest-numbered one routes. */
static int graph_adjacency(topomatch_topology_t *t, const int64_t *a, const int64_t *b,
			   const double *cost)
{
	int64_t n = t->nvert, m = t->nedges;
	t->adj_ptr = tm_zalloc(n + 1, sizeof(*t->adj_ptr));
	t->adj = tm_alloc(2 * m, sizeof(*t->adj));
	int64_t *fill = tm_alloc(n, sizeof(*fill));
	if (!t->adj_ptr || !t->adj || !fill) {
		free(fill);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t k = 0; k < m; k++) {
		t->adj_ptr[a[k] + 1]++;
		t->adj_ptr[b[k] + 1]++;
	}
	for (int64_t v = 0; v < n; v++)
		t->adj_ptr[v + 1] += t->adj_ptr[v];
	memcpy(fill, t->adj_ptr, (size_t)n * sizeof(*fill));
	for (int64_t k = 0; k < m; k++) {
		double c = cost ? cost[k] : 1.0;
		t->adj[fill[a[k]]++] = (tm_adj_t){ b[k], 2 * k, c };
		t->adj[fill[b[k]]++] = (tm_adj_t){ a[k], 2 * k + 1, c };
	}
	free(fill);
	for (int64_t v = 0; v < n; v++)
		qsort(t->adj + t->adj_ptr[v], (size_t)(t->adj_ptr[v + 1] - t->adj_ptr[v]),
		      sizeof(*t->adj), cmp_adj);
	return TOPOMATCH_OK;
}

static int graph_pus(topomatch_topology_t *t, const unsigned char *compute, char *err)
{
	int64_t n = t->nvert, npu = 0;
	t->vert_pu = tm_alloc(n, sizeof(*t->vert_pu));
	if (!t->vert_pu)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t v = 0; v < n; v++)
		t->vert_pu[v] = (!compute || compute[v]) ? npu++ : -1;
	if (npu == 0)
		return tm_err(err, TOPOMATCH_EINVAL, "graph has no compute vertex");
	if (npu > TOPOMATCH_MAX_PUS)
		return tm_err(err, TOPOMATCH_ELIMIT, "graph has more than %lld PUs (the limit)",
			      (long long)TOPOMATCH_MAX_PUS);
	t->npu = npu;
	t->pu_vert = tm_alloc(npu, sizeof(*t->pu_vert));
	if (!t->pu_vert)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t v = 0; v < n; v++)
		if (t->vert_pu[v] >= 0)
			t->pu_vert[t->vert_pu[v]] = v;
	return TOPOMATCH_OK;
}

/* Every PU must reach every other one: one BFS from PU 0 decides it. */
static int graph_connected(const topomatch_topology_t *t, char *err)
{
	tm_bfs_t b;
	if (tm_bfs_init(&b, t->nvert))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	tm_bfs_run(&b, t, t->pu_vert[0]);
	int rc = TOPOMATCH_OK;
	for (int64_t p = 1; p < t->npu; p++) {
		if (b.dist[t->pu_vert[p]] < 0) {
			rc = tm_err(err, TOPOMATCH_EINVAL,
				    "graph is not connected: PU %lld (vertex %lld) cannot "
				    "reach PU 0 (vertex %lld)",
				    (long long)p, (long long)t->pu_vert[p],
				    (long long)t->pu_vert[0]);
			break;
		}
	}
	tm_bfs_free(&b);
	return rc;
}

int topomatch_topology_graph(int64_t nvert, int64_t nlinks, const int64_t *a, const int64_t *b,
			     const double *cost, const unsigned char *compute,
			     topomatch_topology_t **out, char *err)
{
	*out = NULL;
	int rc = graph_check(nvert, nlinks, a, b, cost, err);
	if (rc)
		return rc;
	topomatch_topology_t *t = topo_new(TOPOMATCH_TOPO_GRAPH);
	if (!t)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	t->nvert = nvert;
	t->nedges = nlinks;
	t->nlinks = 2 * nlinks;
	t->maxhops = nvert - 1;
	rc = graph_adjacency(t, a, b, cost);
	if (rc)
		tm_err(err, rc, "out of memory building a %lld-vertex graph", (long long)nvert);
	if (!rc)
		rc = graph_pus(t, compute, err);
	if (!rc)
		rc = graph_connected(t, err);
	if (!rc && tm_graph_hang_build(t))
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory building a %lld-vertex graph",
			    (long long)nvert);
	if (rc) {
		topomatch_topology_destroy(t);
		return rc;
	}
	*out = t;
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- queries */

int topomatch_topology_kind(const topomatch_topology_t *t)
{
	return t->kind;
}

int64_t topomatch_topology_npu(const topomatch_topology_t *t)
{
	return t->npu;
}

int topomatch_topology_tree_shape(const topomatch_topology_t *t, int *arity, double *cost)
{
	if (t->kind != TOPOMATCH_TOPO_TREE)
		return -1;
	for (int k = 0; k < t->nlevels; k++) {
		if (arity)
			arity[k] = t->arity[k];
		if (cost)
			cost[k] = t->cost[k];
	}
	return t->nlevels;
}

static bool is_grid(const topomatch_topology_t *t)
{
	return t->kind == TOPOMATCH_TOPO_TORUS || t->kind == TOPOMATCH_TOPO_MESH ||
	       t->kind == TOPOMATCH_TOPO_HCUB;
}

int topomatch_topology_grid_shape(const topomatch_topology_t *t, int *dims)
{
	if (!is_grid(t))
		return -1;
	if (dims)
		memcpy(dims, t->dims, (size_t)t->ndims * sizeof(*dims));
	return t->ndims;
}

int topomatch_topology_grid_wrap(const topomatch_topology_t *t, unsigned char *wrap)
{
	if (!is_grid(t))
		return -1;
	if (wrap)
		memcpy(wrap, t->wrap, (size_t)t->ndims * sizeof(*wrap));
	return t->ndims;
}

int topomatch_topology_grid_local(const topomatch_topology_t *t, int *arity, double *cost,
				  double *grid_cost)
{
	if (!is_grid(t))
		return -1;
	for (int k = 0; k < t->nlevels; k++) {
		if (arity)
			arity[k] = t->arity[k];
		if (cost)
			cost[k] = t->cost[k];
	}
	if (grid_cost)
		*grid_cost = t->grid_cost;
	return t->nlevels;
}

/* Append to buf at *pos like snprintf would, remembering truncation. */
static void put(char *buf, size_t len, size_t *pos, const char *fmt, ...) TM_PRINTF(4, 5);

static void put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*pos < len ? buf + *pos : NULL, *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

/* Shortest text that reads back to the same double (costs are usually
 * small integers: "100", not "100.00000000000000"). */
static void put_double(char *buf, size_t len, size_t *pos, double x)
{
	char s[32];
	snprintf(s, sizeof(s), "%.15g", x);
	if (strtod(s, NULL) != x)
		snprintf(s, sizeof(s), "%.17g", x);
	put(buf, len, pos, "%s", s);
}

/* " n a1 c1 ... an cn": the level count, then arity and cost per level. */
static void describe_levels(const topomatch_topology_t *t, char *buf, size_t len, size_t *pos)
{
	put(buf, len, pos, " %d", t->nlevels);
	for (int k = 0; k < t->nlevels; k++) {
		put(buf, len, pos, " %d ", t->arity[k]);
		put_double(buf, len, pos, t->cost[k]);
	}
}

/*
 * The Scotch string of the router grid, then only the clauses that differ
 * from a plain grid, in a fixed order, so that the text is canonical:
 * "wrap w1 .. wn" when only some dimensions wrap (the base is then
 * "mesh"), "local n a1 c1 .. an cn" for a local tree, "cost c" for router
 * links that do not cost 1.
 */
static void describe_grid(const topomatch_topology_t *t, char *buf, size_t len, size_t *pos)
{
	const char *base = t->kind == TOPOMATCH_TOPO_TORUS ? "torus" : "mesh";
	bool mixed = false;
	if (t->ndims == 2 || t->ndims == 3)
		put(buf, len, pos, "%s%dD", base, t->ndims);
	else
		put(buf, len, pos, "%sXD %d", base, t->ndims);
	for (int k = 0; k < t->ndims; k++) {
		put(buf, len, pos, " %d", t->dims[k]);
		mixed = mixed || t->wrap[k] != t->wrap[0];
	}
	if (mixed) {
		put(buf, len, pos, " wrap");
		for (int k = 0; k < t->ndims; k++)
			put(buf, len, pos, " %d", t->wrap[k]);
	}
	if (t->nlevels > 0) {
		put(buf, len, pos, " local");
		describe_levels(t, buf, len, pos);
	}
	if (t->grid_cost != 1.0) {
		put(buf, len, pos, " cost ");
		put_double(buf, len, pos, t->grid_cost);
	}
}

int topomatch_topology_describe(const topomatch_topology_t *t, char *buf, size_t len)
{
	size_t pos = 0;
	if (!t || !buf || len == 0)
		return TOPOMATCH_EINVAL;
	buf[0] = '\0';
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		put(buf, len, &pos, "tleaf");
		describe_levels(t, buf, len, &pos);
		break;
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		describe_grid(t, buf, len, &pos);
		break;
	case TOPOMATCH_TOPO_HCUB:
		put(buf, len, &pos, "hcub %d", t->ndims);
		break;
	default:
		put(buf, len, &pos, "graph %lld vertices, %lld links, %lld PUs",
		    (long long)t->nvert, (long long)t->nedges, (long long)t->npu);
		break;
	}
	return pos < len ? TOPOMATCH_OK : TOPOMATCH_ELIMIT;
}

/* ---------------------------------------------------------------- distances */

static int64_t tree_hops(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	return 2 * (int64_t)(t->nlevels - tm_tree_lca(t, p, q));
}

/* Hops between the routers of PUs p and q: per dimension the shorter
 * way, round the wrap where the dimension has one. */
static int64_t grid_hops(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	int64_t h = 0;
	for (int k = 0; k < t->ndims; k++) {
		int64_t dx = llabs(tm_grid_coord(t, k, p) - tm_grid_coord(t, k, q));
		if (t->wrap[k] && t->dims[k] - dx < dx)
			dx = t->dims[k] - dx;
		h += dx;
	}
	return h;
}

/* Under one router, as in a tree; else up, across the grid and down. */
static int64_t grid_tree_hops(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	if (p / t->lpus == q / t->lpus)
		return 2 * (int64_t)(t->nlevels - tm_tree_lca(t, p, q));
	return grid_hops(t, p, q) + 2 * (int64_t)t->nlevels;
}

static double grid_tree_cost(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	if (p / t->lpus == q / t->lpus)
		return 2.0 * t->costsum[tm_tree_lca(t, p, q)];
	return (double)grid_hops(t, p, q) * t->grid_cost + 2.0 * t->costsum[0];
}

static int64_t hcub_hops(int64_t p, int64_t q)
{
	return __builtin_popcountll((unsigned long long)(p ^ q));
}

/* Graph distances from scratch: one BFS per call (slow; see router.c). */
static int graph_pair(const topomatch_topology_t *t, int64_t p, int64_t q, int64_t *hops,
		      double *cost)
{
	tm_bfs_t b;
	if (tm_bfs_init(&b, t->nvert))
		return TOPOMATCH_ENOMEM;
	tm_bfs_run(&b, t, t->pu_vert[p]);
	*hops = b.dist[t->pu_vert[q]];
	*cost = b.cost[t->pu_vert[q]];
	tm_bfs_free(&b);
	return TOPOMATCH_OK;
}

static bool pu_ok(const topomatch_topology_t *t, int64_t p)
{
	return p >= 0 && p < t->npu;
}

/* -1 for PUs out of range (or no memory for a graph BFS). */
int64_t topomatch_topology_hops(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	int64_t h;
	double c;
	if (!pu_ok(t, p) || !pu_ok(t, q))
		return -1;
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return tree_hops(t, p, q);
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return grid_tree_hops(t, p, q);
	case TOPOMATCH_TOPO_HCUB:
		return hcub_hops(p, q);
	default:
		return graph_pair(t, p, q, &h, &c) ? -1 : h;
	}
}

double tm_topology_cost_bound(const topomatch_topology_t *t)
{
	double local = t->nlevels > 0 ? 2.0 * t->costsum[0] : 0.0, link = 0.0;
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return local;
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return (double)t->grid_maxhops * t->grid_cost + local;
	case TOPOMATCH_TOPO_GRAPH:
		for (int64_t k = 0; k < t->adj_ptr[t->nvert]; k++)
			link = t->adj[k].cost > link ? t->adj[k].cost : link;
		return (double)t->maxhops * link;
	default:
		return (double)t->maxhops;
	}
}

/* Hypercube links cost 1, so the cost is the hop count; trees sum the
 * per-level costs of both branches under the LCA, grids add the router
 * links to both whole branches of the local tree. */
double topomatch_topology_cost(const topomatch_topology_t *t, int64_t p, int64_t q)
{
	int64_t h;
	double c;
	if (!pu_ok(t, p) || !pu_ok(t, q))
		return -1.0;
	switch (t->kind) {
	case TOPOMATCH_TOPO_TREE:
		return 2.0 * t->costsum[tm_tree_lca(t, p, q)];
	case TOPOMATCH_TOPO_TORUS:
	case TOPOMATCH_TOPO_MESH:
		return grid_tree_cost(t, p, q);
	case TOPOMATCH_TOPO_GRAPH:
		return graph_pair(t, p, q, &h, &c) ? -1.0 : c;
	default:
		return (double)topomatch_topology_hops(t, p, q);
	}
}

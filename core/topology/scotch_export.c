/*
 * scotch_export.c - a topology written as a Scotch target file
 * (`topomatch topo export --scotch`), which `topomatch map -t` and Scotch's
 * own tools both read.  Trees, tori, meshes of up to three dimensions and
 * hypercubes are Scotch's own algorithmic targets (tleaf, torusXD,
 * mesh2D/3D, hcub), saved with SCOTCH_archSave.  Everything else (graphs,
 * grids with node trees below their routers or with only some dimensions
 * wrapping, meshes of more than three dimensions) is written as its
 * machine graph, switches included: a type-2 "deco" target whose first
 * level is that graph (topology_deco.c reads it back as the same graph),
 * written here with a decomposition of our own (see write_deco2).  It
 * grows with the links: 559 kB for the 4096 PUs of conf/bgp-torus.yaml,
 * 9.9 MB for a dragonfly of 67,584 PUs.  Up to 2048 PUs our exact
 * distances come first, as the "deco 0" text the Scotch mapper loads
 * (scotch_arch.c): Scotch reads that target and stops, so that its tools
 * see the exact distances; the type 2 follows for us (conf/dragonfly.yaml,
 * 1,152 PUs: 1.5 MB in all, where SCOTCH_archSave's type 1 of the same
 * distances took 16.8 MB).  Beyond, Scotch estimates the distances of
 * far-apart PUs from the type 2's coarser levels.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "scotch_arch.h"

#include <stdlib.h>

/* Router r's neighbours one step up each dimension (once, so a wrapped
 * dimension of 2 gets one link, not two). */
static void grid_links(const topomatch_topology_t *t, int64_t routers, tm_coo_t *l)
{
	for (int64_t r = 0; r < routers; r++) {
		int64_t rest = r, stride = 1;
		for (int k = 0; k < t->ndims; k++) {
			int64_t x = rest % t->dims[k];
			rest /= t->dims[k];
			if (x + 1 < t->dims[k])
				tm_coo_push(l, r, r + stride, t->grid_cost, l->cap);
			else if (t->wrap[k] && t->dims[k] > 2)
				tm_coo_push(l, r, r - x * stride, t->grid_cost, l->cap);
			stride *= t->dims[k];
		}
	}
}

/*
 * Vertices: the routers, then router after router its local tree level by
 * level, PUs last, so that the graph's compute vertices come in PU order
 * (PU = router x lpus + local).
 */
static int grid_as_graph(const topomatch_topology_t *t, topomatch_topology_t **g, char *err)
{
	int64_t routers = t->npu / t->lpus, per = 0, width = 1;
	for (int k = 0; k < t->nlevels; k++)
		per += (width *= t->arity[k]);
	int64_t nv = routers * (per + 1), nl = routers * (t->ndims + per);
	tm_coo_t l; /* reserved whole: the pushes below cannot fail */
	tm_coo_init(&l);
	unsigned char *compute = tm_zalloc(nv, 1);
	int rc = compute && tm_coo_reserve(&l, nl) == TOPOMATCH_OK
			 ? TOPOMATCH_OK
			 : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t r = 0; rc == TOPOMATCH_OK && r < routers; r++) {
		int64_t first = r, next = routers + r * per; /* level start, next level */
		width = 1;
		for (int k = 0; k < t->nlevels; k++) {
			for (int64_t p = 0; p < width; p++)
				for (int q = 0; q < t->arity[k]; q++)
					tm_coo_push(&l, first + p, next + p * t->arity[k] + q,
						    t->cost[k], nl);
			first = next;
			next += width * t->arity[k];
			width *= t->arity[k];
		}
		for (int64_t p = 0; p < width; p++)
			compute[first + p] = 1;
	}
	if (rc == TOPOMATCH_OK) {
		grid_links(t, routers, &l);
		rc = topomatch_topology_graph(routers + routers * per, l.n, l.src, l.dst, l.w,
					      compute, g, err);
	}
	free(compute);
	tm_coo_free(&l);
	return rc;
}

/* ------------------------------------------- a type-2 "deco" of a graph */

/*
 * Scotch 7.0.3's own type-2 target of these graphs (SCOTCH_archBuild2)
 * peels them a node at a time: the dragonfly's decomposition was more
 * than 31 levels deep, its domain numbers (2^depth) overflowed, and
 * Scotch could not load what it had saved (gmap: "archDeco2ArchLoad2: bad
 * input (3)", then a crash).  So the target is written here, in the format
 * of Scotch's arch_deco2.c, with a decomposition that is balanced by
 * construction: the vertices in depth-first order from PU 0 (a node's
 * PUs, a switch's nodes come together), level l+1 pairs consecutive
 * vertices of level l.  A level's graph is the quotient of the one below,
 * as Scotch builds its own: an edge's load is the cheapest link it
 * stands for, a vertex's load the loads of what it merged (its links
 * counted once each way).  The domains are the nodes of that pairing
 * tree that hold terminals from both halves, numbered as Scotch numbers
 * them (depth-first, root 1, sons 2d and 2d + 1); vertex slots list, for
 * every node that holds a terminal, its vertex at its level, in the same
 * depth-first order, so that the slots just before a domain's are its
 * vertices at the levels above it, up to its father's.
 */

/* Largest vertex load or diameter written: Scotch sums them in 32 bits. */
#define DECO2_MAX_LOAD (INT64_C(1) << 28)

/* A level's graph; level 0 in vertex numbers, the others in positions. */
struct qgraph {
	int64_t n, *vert, *edge, *edlo, *velo; /* edlo, velo: NULL for none */
};

struct deco2 {
	FILE *out;
	int64_t nv;     /* level-0 vertices */
	int nlev;       /* level l pairs up 2^l consecutive positions */
	int64_t *order; /* position -> level-0 vertex */
	int64_t *pos;   /* level-0 vertex -> position */
	int64_t *pref;  /* pref[i]: terminals at positions < i */
	int64_t *term;  /* level-0 vertex -> terminal, -1: none */
	int64_t *tmin[33]; /* tmin[l][j]: smallest terminal of node (l, j) */
	int64_t *leafdom;  /* terminal -> its domain */
	int64_t nslot;
};

static int64_t level_size(const struct deco2 *d, int l)
{
	return ((d->nv - 1) >> l) + 1;
}

/* Terminals of node (l, j): positions [j 2^l, (j + 1) 2^l). */
static int64_t node_terms(const struct deco2 *d, int l, int64_t j)
{
	if (j >= level_size(d, l))
		return 0;
	int64_t lo = j << l, hi = (j + 1) << l;
	return d->pref[hi < d->nv ? hi : d->nv] - d->pref[lo];
}

/*
 * The subtree of node (l, j) (which holds a terminal) as domain idx,
 * number num, father fat: phase 0 counts slots and finds each terminal's
 * domain, 1 writes the domains, 2 the slots.  Returns the next domain
 * index.  Depth: the levels, at most 32.
 */
static int64_t deco2_walk(struct deco2 *d, int l, int64_t j, int64_t num, int64_t idx,
			  int64_t fat, int phase)
{
	int64_t slot = d->nslot++;
	if (phase == 2)
		fprintf(d->out, "%lld\n", (long long)(l == 0 ? d->order[j] : j));
	int64_t c0 = l > 0 ? node_terms(d, l - 1, 2 * j) : 0;
	int64_t c1 = l > 0 ? node_terms(d, l - 1, 2 * j + 1) : 0;
	if (l > 0 && (c0 == 0 || c1 == 0)) /* one half only: no domain here */
		return deco2_walk(d, l - 1, c0 ? 2 * j : 2 * j + 1, num, idx, fat, phase);
	if (l == 0) {
		int64_t t = d->term[d->order[j]];
		if (phase == 0)
			d->leafdom[t] = idx;
		else if (phase == 1)
			fprintf(d->out, "%lld\t1\t1\t%lld\t%lld\t-1\t-1\t0\t%lld\n", (long long)num,
				(long long)t, (long long)fat, (long long)slot);
		return idx + 1;
	}
	if (phase == 1)
		fprintf(d->out, "%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%d\t%lld\n",
			(long long)num, (long long)(c0 + c1), (long long)(c0 + c1),
			(long long)d->tmin[l][j], (long long)fat, (long long)(idx + 1),
			(long long)(idx + 2 * c0), l, (long long)slot);
	int64_t next = deco2_walk(d, l - 1, 2 * j, 2 * num, idx + 1, idx, phase);
	return deco2_walk(d, l - 1, 2 * j + 1, 2 * num + 1, next, idx, phase);
}

/* Depth-first preorder of the (connected) level-0 graph from vertex s. */
static int dfs_order(const struct qgraph *g, int64_t s, int64_t *order)
{
	int64_t *stack = tm_alloc(g->n, sizeof(*stack));
	int64_t *next = tm_alloc(g->n, sizeof(*next));
	unsigned char *seen = tm_zalloc(g->n, 1);
	int rc = stack && next && seen ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	int64_t n = 0, top = 0;
	if (!rc) {
		stack[top++] = s;
		seen[s] = 1;
		order[n++] = s;
		next[s] = g->vert[s];
	}
	while (!rc && top > 0) {
		int64_t v = stack[top - 1];
		if (next[v] == g->vert[v + 1]) {
			top--;
			continue;
		}
		int64_t u = g->edge[next[v]++];
		if (seen[u])
			continue;
		seen[u] = 1;
		order[n++] = u;
		next[u] = g->vert[u];
		stack[top++] = u;
	}
	free(stack);
	free(next);
	free(seen);
	return rc;
}

/* Terminals, prefix counts and smallest terminals of every node. */
static int deco2_tree(struct deco2 *d, const struct qgraph *g, const SCOTCH_Num *list,
		      int64_t nterm)
{
	d->order = tm_alloc(d->nv, sizeof(*d->order));
	d->pref = tm_alloc(d->nv + 1, sizeof(*d->pref));
	d->pos = tm_alloc(d->nv, sizeof(*d->pos));
	d->term = tm_alloc(d->nv, sizeof(*d->term));
	d->leafdom = tm_alloc(nterm, sizeof(*d->leafdom));
	if (!d->order || !d->pref || !d->pos || !d->term || !d->leafdom ||
	    dfs_order(g, list[0], d->order))
		return TOPOMATCH_ENOMEM;
	for (int64_t v = 0; v < d->nv; v++)
		d->term[v] = -1;
	for (int64_t i = 0; i < d->nv; i++)
		d->pos[d->order[i]] = i;
	for (int64_t t = 0; t < nterm; t++)
		d->term[list[t]] = t;
	for (d->nlev = 1; level_size(d, d->nlev - 1) > 1; d->nlev++)
		;
	d->pref[0] = 0;
	for (int l = 0; l < d->nlev; l++) {
		int64_t n = level_size(d, l);
		if (!(d->tmin[l] = tm_alloc(n, sizeof(*d->tmin[l]))))
			return TOPOMATCH_ENOMEM;
		for (int64_t j = 0; j < n; j++) {
			int64_t a = l ? d->tmin[l - 1][2 * j] : d->term[d->order[j]];
			int64_t b = l && 2 * j + 1 < level_size(d, l - 1) ? d->tmin[l - 1][2 * j + 1] : -1;
			if (l == 0)
				d->pref[j + 1] = d->pref[j] + (a >= 0);
			d->tmin[l][j] = a < 0 || (b >= 0 && b < a) ? b : a;
		}
	}
	return TOPOMATCH_OK;
}

static void deco2_free(struct deco2 *d)
{
	free(d->order);
	free(d->pos);
	free(d->pref);
	free(d->term);
	free(d->leafdom);
	for (int l = 0; l < 33; l++)
		free(d->tmin[l]);
}

/* A level's graph in Scotch's format (velo NULL: no vertex loads, edlo
 * NULL: no edge loads), then an upper bound of its diameter, which Scotch
 * 7.0.3 reads and never uses. */
static void write_level(FILE *out, int64_t nv, const int64_t *vert, const int64_t *edge,
			const int64_t *edlo, const int64_t *velo)
{
	int64_t emax = 1;
	fprintf(out, "0\n%lld\t%lld\n0\t0%d%d\n", (long long)nv, (long long)vert[nv],
		edlo != NULL, velo != NULL);
	for (int64_t v = 0; v < nv; v++) {
		if (velo)
			fprintf(out, "%lld\t", (long long)velo[v]);
		fprintf(out, "%lld", (long long)(vert[v + 1] - vert[v]));
		for (int64_t e = vert[v]; e < vert[v + 1]; e++) {
			if (edlo) {
				fprintf(out, "\t%lld", (long long)edlo[e]);
				emax = edlo[e] > emax ? edlo[e] : emax;
			}
			fprintf(out, "\t%lld", (long long)edge[e]);
		}
		fputc('\n', out);
	}
	double diam = (double)(nv - 1) * (double)emax;
	fprintf(out, "%lld\n", (long long)(diam < 1 ? 1 : diam < DECO2_MAX_LOAD ? diam
									   : DECO2_MAX_LOAD));
}

/* Level l >= 1 of the pairing, from level l - 1. */
static void qgraph_free(struct qgraph *q)
{
	free(q->vert);
	free(q->edge);
	free(q->edlo);
	free(q->velo);
}

static int quotient(const struct deco2 *d, int l, const struct qgraph *f, struct qgraph *q)
{
	int64_t nc = level_size(d, l);
	q->n = nc;
	q->vert = tm_alloc(nc + 1, sizeof(*q->vert));
	q->edge = tm_alloc(f->vert[f->n], sizeof(*q->edge));
	q->edlo = tm_alloc(f->vert[f->n], sizeof(*q->edlo));
	q->velo = tm_alloc(nc, sizeof(*q->velo));
	int64_t *mark = tm_alloc(nc, sizeof(*mark)), *at = tm_alloc(nc, sizeof(*at));
	if (!q->vert || !q->edge || !q->edlo || !q->velo || !mark || !at) {
		free(mark);
		free(at);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t c = 0; c < nc; c++)
		mark[c] = -1;
	int64_t e = 0;
	for (int64_t c = 0; c < nc; c++) {
		int64_t load = 0;
		q->vert[c] = e;
		for (int64_t p = 2 * c; p < 2 * c + 2 && p < f->n; p++) {
			int64_t v = l == 1 ? d->order[p] : p;
			load += f->velo ? f->velo[v] : 0;
			for (int64_t a = f->vert[v]; a < f->vert[v + 1]; a++) {
				int64_t u = f->edge[a], w = f->edlo ? f->edlo[a] : 1;
				int64_t cu = (l == 1 ? d->pos[u] : u) / 2;
				if (cu == c) {
					load += w;
				} else if (mark[cu] == c) {
					q->edlo[at[cu]] = w < q->edlo[at[cu]] ? w : q->edlo[at[cu]];
				} else {
					mark[cu] = c;
					at[cu] = e;
					q->edge[e] = cu;
					q->edlo[e++] = w;
				}
			}
		}
		q->velo[c] = load < DECO2_MAX_LOAD ? load : DECO2_MAX_LOAD;
	}
	q->vert[nc] = e;
	free(mark);
	free(at);
	return TOPOMATCH_OK;
}

/* Level 0: the target graph in 64-bit arrays. */
static int level0(const tm_tgraph_t *g, struct qgraph *f)
{
	int64_t na = g->vert[g->nv];
	f->n = g->nv;
	f->vert = tm_alloc(f->n + 1, sizeof(*f->vert));
	f->edge = tm_alloc(na, sizeof(*f->edge));
	f->edlo = g->edlo ? tm_alloc(na, sizeof(*f->edlo)) : NULL;
	if (!f->vert || !f->edge || (g->edlo && !f->edlo))
		return TOPOMATCH_ENOMEM;
	for (int64_t v = 0; v <= f->n; v++)
		f->vert[v] = g->vert[v];
	for (int64_t e = 0; e < na; e++) {
		f->edge[e] = g->edge[e];
		if (f->edlo)
			f->edlo[e] = g->edlo[e];
	}
	return TOPOMATCH_OK;
}

/* The header, terminals and domains (the tree is built). */
static void deco2_head(struct deco2 *d, const SCOTCH_Num *list, int64_t nterm)
{
	d->nslot = 0;
	deco2_walk(d, d->nlev - 1, 0, 1, 0, -1, 0);
	fprintf(d->out, "deco\n2\n%lld\t%d\t%lld\n", (long long)nterm, d->nlev,
		(long long)d->nslot);
	for (int64_t t = 0; t < nterm; t++)
		fprintf(d->out, "%lld\t%lld\n", (long long)d->leafdom[t], (long long)list[t]);
	d->nslot = 0;
	deco2_walk(d, d->nlev - 1, 0, 1, 0, -1, 1);
}

/* Scotch's type-2 "deco" target of the graph topology t (2 PUs or more). */
static int write_deco2(const topomatch_topology_t *t, FILE *out, char *err)
{
	tm_tgraph_t g;
	int rc = tm_target_graph(t, &g, err);
	if (rc)
		return rc;
	struct deco2 d = { .out = out, .nv = g.nv };
	struct qgraph f = { 0 }, q = { 0 };
	rc = level0(&g, &f);
	if (!rc)
		rc = deco2_tree(&d, &f, g.list, t->npu);
	if (!rc) {
		deco2_head(&d, g.list, t->npu);
		write_level(out, f.n, f.vert, f.edge, f.edlo, NULL);
	}
	for (int l = 1; !rc && l < d.nlev; l++) {
		rc = quotient(&d, l, &f, &q);
		if (!rc)
			write_level(out, q.n, q.vert, q.edge, q.edlo, q.velo);
		qgraph_free(&f);
		f = q;
		q = (struct qgraph){ 0 };
	}
	if (!rc) {
		d.nslot = 0;
		deco2_walk(&d, d.nlev - 1, 0, 1, 0, -1, 2);
	}
	qgraph_free(&f);
	qgraph_free(&q);
	deco2_free(&d);
	tm_target_graph_free(&g);
	return rc ? tm_err(err, rc, "out of memory (Scotch target of a %lld-vertex graph)",
			   (long long)t->nvert)
		  : TOPOMATCH_OK;
}

/* Exact distances for Scotch up to this many PUs (DECO_MAX_TERMS of
 * scotch_arch.c, the mapper's own limit for them). */
#define EXACT_MAX_PUS 2048

/* Up to EXACT_MAX_PUS PUs our exact "deco 0" first (Scotch reads it and
 * stops there: the mapper's own target), then the type-2 target of the
 * graph (topomatch_topology_parse reads that one). */
static int write_graph_target(const topomatch_topology_t *t, FILE *out, char *err)
{
	if (t->npu <= EXACT_MAX_PUS) {
		char *text;
		size_t len;
		int rc = tm_exact_deco_text(t, &text, &len, err);
		if (rc)
			return rc;
		rc = fwrite(text, 1, len, out) == len
			     ? TOPOMATCH_OK
			     : tm_err(err, TOPOMATCH_EIO, "writing the Scotch target failed");
		free(text);
		if (rc)
			return rc;
	}
	return write_deco2(t, out, err);
}

/* Targets that Scotch has no algorithmic class for: written as a graph. */
static bool as_graph(const topomatch_topology_t *t)
{
	return t->npu > 1 && (t->kind == TOPOMATCH_TOPO_GRAPH || tm_grid_tree(t) ||
			      (t->kind == TOPOMATCH_TOPO_MESH && t->ndims > 3));
}

int topomatch_topology_write_scotch(const topomatch_topology_t *t, FILE *out, char *err)
{
	if (!t || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_topology_write_scotch: NULL argument");
	topomatch_topology_t *g = NULL;
	bool graph = as_graph(t);
	if (graph && t->kind != TOPOMATCH_TOPO_GRAPH) {
		int rc = grid_as_graph(t, &g, err);
		if (rc)
			return rc;
	}
	int rc;
	if (graph) {
		rc = write_graph_target(g ? g : t, out, err);
	} else {
		tm_starget_t x = { 0 };
		rc = tm_starget_build(&x, t, NULL, t->npu, err);
		if (rc == TOPOMATCH_OK && SCOTCH_archSave(tm_starget_arch(&x), out) != 0)
			rc = tm_err(err, TOPOMATCH_EIO, "writing the Scotch target failed");
		tm_starget_free(&x);
	}
	if (rc == TOPOMATCH_OK && (fflush(out) || ferror(out)))
		rc = tm_err(err, TOPOMATCH_EIO, "writing the Scotch target failed");
	topomatch_topology_destroy(g);
	return rc;
}

/*
 * topology_deco.c - Scotch "deco" (decomposition-defined) targets read as
 * topologies: the type-2 targets that `topomatch topo export --scotch`
 * writes for graphs (in the format in which Scotch 7.0.3's arch_deco2.c
 * saves SCOTCH_archBuild2's), read back as the graph they carry.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A type-2 target, after "deco" and its type "2":
 *
 *   T L V                        terminals, levels, vertex-number slots
 *   T x (domain index, vertex)   terminal t: its domain, its vertex in
 *                                the level-0 graph (from 0)
 *   (2T - 1) x 9 values          the domains: number, size, weight,
 *                                smallest terminal, father, two sons
 *                                (-1: none), level, vertex-number slot
 *   L x (graph, diameter)        level 0 is the machine graph, switches
 *                                included, in Scotch's source graph
 *                                format; the others coarsen it
 *   V values                     the vertex of each slot
 *
 * Only level 0 and the terminals make the topology: the graph's edge
 * loads are the link costs (1 without loads), PU p is the vertex of
 * terminal p.  The rest is checked for the ranges Scotch's loader checks
 * (archDeco2ArchLoad2, graphLoad) and not kept: memory is linear
 * in the file's values, and a count is believed only when the bytes left
 * can hold that many values (a corrupt header cannot ask for gigabytes).
 * Types 0 and 1 store a distance for every pair of terminals or domains
 * (Scotch's type 1 of the 1,152 PUs of conf/dragonfly.yaml: 16.8 MB); no
 * dense table is built from them here (DESIGN.md).  Up to 2048 PUs `topo
 * export` writes our exact distances as type 0, for Scotch, then the
 * type 2 of the same machine, for us (Scotch stops reading at the end of
 * the first): the distances are skipped, the graph is read.  Without a
 * graph after them they are refused (TOPOMATCH_EUNSUPPORTED, at the line
 * of their "deco"), naming the way out.
 */
#include "config.h"
#include "topology_deco.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct dreader {
	tm_scan_t *sc;
	int64_t line; /* of the last value read */
	char *err;
} dreader_t;

static int derr(dreader_t *r, int status, const char *fmt, ...) TM_PRINTF(3, 4);

static int derr(dreader_t *r, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(r->err, status, "%s:%lld: deco: %s", r->sc->name, (long long)r->line, msg);
}

/* "what" or "what N" for messages. */
static const char *label(char *buf, size_t len, const char *what, int64_t idx)
{
	if (idx < 0)
		return what;
	snprintf(buf, len, "%s %lld", what, (long long)idx);
	return buf;
}

/* The next value, an integer in [min, max]; what (idx >= 0: "what idx")
 * names it in messages. */
static int dint(dreader_t *r, const char *what, int64_t idx, int64_t min, int64_t max,
		int64_t *v)
{
	tm_token_t tok;
	char s[40], w[96];
	if (!tm_scan_skip_empty(r->sc) || !tm_scan_token(r->sc, &tok))
		return derr(r, TOPOMATCH_EPARSE, "truncated: the file ends before %s",
			    label(w, sizeof(w), what, idx));
	r->line = tok.line;
	if (!tm_tok_int64(&tok, v))
		return derr(r, TOPOMATCH_EPARSE, "%s: '%s' is not an integer",
			    label(w, sizeof(w), what, idx), tm_tok_str(&tok, s, sizeof(s)));
	if (*v < min || *v > max)
		return derr(r, TOPOMATCH_EPARSE, "%s must be in [%lld, %lld] (got %lld)",
			    label(w, sizeof(w), what, idx), (long long)min, (long long)max,
			    (long long)*v);
	return TOPOMATCH_OK;
}

/* n records of k values each fit in the bytes left (a value takes a digit
 * and a separator): else the header lies, or the file was cut. */
static int room_for(dreader_t *r, int64_t n, int64_t k, const char *what)
{
	int64_t left = (int64_t)(r->sc->end - r->sc->p);
	if (n > (left + 1) / 2 / k)
		return derr(r, TOPOMATCH_EPARSE,
			    "truncated or corrupt: %lld %s cannot fit in the %lld bytes left",
			    (long long)n, what, (long long)left);
	return TOPOMATCH_OK;
}

/* A level's graph: kept (level 0) or only checked (the others). */
typedef struct lgraph {
	int64_t nv, narcs, base;
	int64_t *vert; /* nv + 1, from 0 */
	int64_t *edge; /* narcs, vertex numbers from 0 */
	int64_t *load; /* narcs, NULL: all 1 */
} lgraph_t;

static void lgraph_free(lgraph_t *g)
{
	free(g->vert);
	free(g->edge);
	free(g->load);
	memset(g, 0, sizeof(*g));
}

/* Header "0 vertnbr edgenbr baseval flags" of Scotch's graph format. */
static int graph_header(dreader_t *r, int64_t level, lgraph_t *g, bool *labels, bool *vloads,
			bool *eloads)
{
	int64_t ver, flags;
	char w[64];
	snprintf(w, sizeof(w), "level %lld graph: format version", (long long)level);
	int rc = dint(r, w, -1, 0, 0, &ver);
	snprintf(w, sizeof(w), "level %lld graph: vertex count", (long long)level);
	if (!rc)
		rc = dint(r, w, -1, 1, INT32_MAX, &g->nv);
	snprintf(w, sizeof(w), "level %lld graph: arc count", (long long)level);
	if (!rc)
		rc = dint(r, w, -1, 0, INT32_MAX, &g->narcs);
	snprintf(w, sizeof(w), "level %lld graph: base", (long long)level);
	if (!rc)
		rc = dint(r, w, -1, 0, 1, &g->base);
	snprintf(w, sizeof(w), "level %lld graph: flags", (long long)level);
	if (!rc)
		rc = dint(r, w, -1, 0, 111, &flags);
	if (rc)
		return rc;
	if (flags % 10 > 1 || flags / 10 % 10 > 1)
		return derr(r, TOPOMATCH_EPARSE, "%s must be 3 digits of 0 or 1 (got %lld)", w,
			    (long long)flags);
	*labels = flags / 100;
	*eloads = flags / 10 % 10;
	*vloads = flags % 10;
	snprintf(w, sizeof(w), "level-%lld vertices", (long long)level);
	rc = room_for(r, g->nv, 1 + *labels + *vloads, w);
	snprintf(w, sizeof(w), "level-%lld arcs", (long long)level);
	return rc ? rc : room_for(r, g->narcs, 1 + *eloads, w);
}

/* One vertex's label, load and arcs; e: arcs so far. */
static int graph_vertex(dreader_t *r, lgraph_t *g, bool keep, bool labels, bool vloads,
			bool eloads, int64_t v, int64_t *e)
{
	int64_t x, deg;
	int rc = TOPOMATCH_OK;
	if (labels) {
		rc = dint(r, "label of vertex", v, 0, INT32_MAX, &x);
		/* level 0's vertices are numbered by position, as terminals name them */
		if (!rc && keep && x != v + g->base)
			return derr(r, TOPOMATCH_EUNSUPPORTED,
				    "level 0 graph: vertex labels other than the vertex numbers are "
				    "not read (vertex %lld has label %lld)",
				    (long long)v, (long long)x);
	}
	if (!rc && vloads)
		rc = dint(r, "load of vertex", v, 0, INT32_MAX, &x);
	if (!rc)
		rc = dint(r, "degree of vertex", v, 0, g->narcs - *e, &deg);
	if (keep && !rc)
		g->vert[v] = *e;
	for (int64_t k = 0; k < deg && !rc; k++, (*e)++) {
		if (eloads) /* a link cost of 0 would be no link */
			rc = dint(r, "load of arc", *e, keep ? 1 : 0, INT32_MAX, &x);
		if (!rc && keep && g->load)
			g->load[*e] = x;
		/* a coarser level may number its ends by labels */
		if (!rc)
			rc = dint(r, "end of arc", *e, labels && !keep ? 0 : g->base,
				  labels && !keep ? INT32_MAX : g->base + g->nv - 1, &x);
		if (!rc && keep)
			g->edge[*e] = x - g->base;
	}
	return rc;
}

/* A graph in Scotch's format and the diameter that follows it. */
static int read_graph(dreader_t *r, int64_t level, bool keep, lgraph_t *g)
{
	bool labels = false, vloads = false, eloads = false;
	int64_t e = 0, diam;
	int rc = graph_header(r, level, g, &labels, &vloads, &eloads);
	if (rc)
		return rc;
	if (keep) {
		g->vert = tm_alloc(g->nv + 1, sizeof(*g->vert));
		g->edge = tm_alloc(g->narcs, sizeof(*g->edge));
		g->load = eloads ? tm_alloc(g->narcs, sizeof(*g->load)) : NULL;
		if (!g->vert || !g->edge || (eloads && !g->load))
			return derr(r, TOPOMATCH_ENOMEM, "out of memory (a graph of %lld vertices)",
				    (long long)g->nv);
	}
	for (int64_t v = 0; v < g->nv && !rc; v++)
		rc = graph_vertex(r, g, keep, labels, vloads, eloads, v, &e);
	if (rc)
		return rc;
	if (e != g->narcs)
		return derr(r, TOPOMATCH_EPARSE, "level %lld graph: %lld arcs declared, %lld given",
			    (long long)level, (long long)g->narcs, (long long)e);
	if (keep)
		g->vert[g->nv] = e;
	return dint(r, "diameter of level", level, 0, INT32_MAX, &diam);
}

/* The parts of a type-2 target that make the topology. */
typedef struct deco2 {
	int64_t nterm, nlevel, nvnum;
	int64_t *term_vert; /* terminal -> level-0 vertex */
	lgraph_t g0;
} deco2_t;

static int read_terminals(dreader_t *r, deco2_t *d)
{
	int64_t ndom = 2 * d->nterm - 1, dom;
	int rc = room_for(r, d->nterm, 2, "terminals");
	if (rc)
		return rc;
	d->term_vert = tm_alloc(d->nterm, sizeof(*d->term_vert));
	if (!d->term_vert)
		return derr(r, TOPOMATCH_ENOMEM, "out of memory (%lld terminals)",
			    (long long)d->nterm);
	for (int64_t t = 0; t < d->nterm && !rc; t++) {
		rc = dint(r, "domain of terminal", t, 0, ndom - 1, &dom);
		if (!rc)
			rc = dint(r, "vertex of terminal", t, 0, INT32_MAX, &d->term_vert[t]);
	}
	return rc;
}

/* The domain table, checked as Scotch's loader checks it, not kept. */
static int read_domains(dreader_t *r, deco2_t *d)
{
	static const char *const what[9] = {
		"number of domain", "size of domain", "weight of domain",
		"terminal of domain", "father of domain", "first son of domain",
		"second son of domain", "level of domain", "vertex slot of domain",
	};
	int64_t ndom = 2 * d->nterm - 1;
	int rc = room_for(r, ndom, 9, "domains");
	for (int64_t i = 0; i < ndom && !rc; i++) {
		const int64_t lo[9] = { 0, 1, 1, 0, -1, -1, -1, 0, 0 };
		const int64_t hi[9] = { INT32_MAX, INT32_MAX, INT32_MAX, d->nterm - 1, ndom - 1,
					ndom - 1, ndom - 1, d->nlevel - 1, d->nvnum - 1 };
		int64_t x;
		for (int k = 0; k < 9 && !rc; k++)
			rc = dint(r, what[k], i, lo[k], hi[k], &x);
	}
	return rc;
}

/* Level 0 kept, the coarser ones checked; then the vertex slots. */
static int read_levels(dreader_t *r, deco2_t *d)
{
	int rc = TOPOMATCH_OK;
	for (int64_t l = 0; l < d->nlevel && !rc; l++) {
		lgraph_t g = { 0 };
		rc = read_graph(r, l, l == 0, l == 0 ? &d->g0 : &g);
	}
	if (!rc)
		rc = room_for(r, d->nvnum, 1, "vertex slots");
	for (int64_t i = 0; i < d->nvnum && !rc; i++) {
		int64_t x;
		rc = dint(r, "vertex slot", i, 0, d->g0.nv - 1, &x);
	}
	return rc;
}

/* Terminals on distinct vertices of level 0; *sorted: in vertex order. */
static int mark_compute(dreader_t *r, const deco2_t *d, unsigned char *compute, bool *sorted)
{
	*sorted = true;
	for (int64_t t = 0; t < d->nterm; t++) {
		int64_t v = d->term_vert[t];
		if (v >= d->g0.nv)
			return derr(r, TOPOMATCH_EPARSE,
				    "terminal %lld is on vertex %lld, but the level-0 graph has %lld "
				    "vertices", (long long)t, (long long)v, (long long)d->g0.nv);
		if (compute[v])
			return derr(r, TOPOMATCH_EPARSE, "two terminals on vertex %lld", (long long)v);
		compute[v] = 1;
		*sorted = *sorted && (t == 0 || v > d->term_vert[t - 1]);
	}
	return TOPOMATCH_OK;
}

static int cmp_i64(const void *p, const void *q)
{
	int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
	return (a > b) - (a < b);
}

/*
 * Our PUs are the compute vertices in vertex order: when the terminals
 * are not, the k-th smallest terminal vertex takes terminal k's place
 * (the other vertices keep theirs), so that PU p is terminal p.
 */
static int64_t *renumber(const deco2_t *d)
{
	int64_t *id = tm_alloc(d->g0.nv, sizeof(*id));
	int64_t *s = tm_alloc(d->nterm, sizeof(*s));
	if (id && s) {
		memcpy(s, d->term_vert, (size_t)d->nterm * sizeof(*s));
		qsort(s, (size_t)d->nterm, sizeof(*s), cmp_i64);
		for (int64_t v = 0; v < d->g0.nv; v++)
			id[v] = v;
		for (int64_t t = 0; t < d->nterm; t++)
			id[d->term_vert[t]] = s[t];
	} else {
		free(id);
		id = NULL;
	}
	free(s);
	return id;
}

/* Links of level 0: the arcs u -> v with u < v (Scotch graphs hold both
 * directions; a count that differs says one is missing). */
static int deco_links(dreader_t *r, const deco2_t *d, const int64_t *id, tm_coo_t *l)
{
	const lgraph_t *g = &d->g0;
	int64_t up = 0, down = 0;
	for (int64_t u = 0; u < g->nv; u++) {
		for (int64_t e = g->vert[u]; e < g->vert[u + 1]; e++) {
			int64_t v = g->edge[e];
			if (v == u)
				return derr(r, TOPOMATCH_EPARSE, "level-0 vertex %lld has an arc to "
					    "itself", (long long)u);
			up += v > u;
			down += v < u;
		}
	}
	if (up != down)
		return derr(r, TOPOMATCH_EPARSE, "the level-0 graph is not symmetric: arcs to "
			    "higher-numbered vertices %lld, back %lld", (long long)up,
			    (long long)down);
	if (tm_coo_reserve(l, up))
		return derr(r, TOPOMATCH_ENOMEM, "out of memory (%lld links)", (long long)up);
	for (int64_t u = 0; u < g->nv; u++)
		for (int64_t e = g->vert[u]; e < g->vert[u + 1]; e++)
			if (g->edge[e] > u)
				tm_coo_push(l, id ? id[u] : u, id ? id[g->edge[e]] : g->edge[e],
					    g->load ? (double)g->load[e] : 1.0, up);
	return TOPOMATCH_OK;
}

static int deco_topology(dreader_t *r, const deco2_t *d, topomatch_topology_t **out)
{
	bool sorted;
	char msg[TOPOMATCH_ERRLEN];
	tm_coo_t l;
	tm_coo_init(&l);
	unsigned char *compute = tm_zalloc(d->g0.nv, 1);
	if (!compute)
		return derr(r, TOPOMATCH_ENOMEM, "out of memory");
	int64_t *id = NULL;
	int rc = mark_compute(r, d, compute, &sorted);
	if (!rc && !sorted && !(id = renumber(d)))
		rc = derr(r, TOPOMATCH_ENOMEM, "out of memory");
	if (!rc)
		rc = deco_links(r, d, id, &l);
	if (!rc && (rc = topomatch_topology_graph(d->g0.nv, l.n, l.src, l.dst, l.w, compute, out,
						  msg)))
		rc = derr(r, rc, "%s", msg);
	free(compute);
	free(id);
	tm_coo_free(&l);
	return rc;
}

static int read_deco2(dreader_t *r, topomatch_topology_t **out)
{
	deco2_t d = { 0 };
	int rc = dint(r, "terminal count", -1, 1, INT32_MAX, &d.nterm);
	if (!rc)
		rc = dint(r, "level count", -1, 1, INT32_MAX, &d.nlevel);
	if (!rc)
		rc = dint(r, "vertex slot count", -1, 1, INT32_MAX, &d.nvnum);
	if (!rc)
		rc = read_terminals(r, &d);
	if (!rc)
		rc = read_domains(r, &d);
	if (!rc)
		rc = read_levels(r, &d);
	if (!rc)
		rc = deco_topology(r, &d, out);
	free(d.term_vert);
	lgraph_free(&d.g0);
	return rc;
}

/*
 * Types 0 and 1 hold a distance for every pair of terminals (type 0) or
 * of domains (type 1).  Up to 2048 PUs `topo export` writes the type 2 of
 * the same machine after them (Scotch stops reading at the end of the
 * distances): the values are skipped to the next "deco", which must be
 * that type 2.  Scotch checks the distances it reads; these are not used.
 */
static int graph_after_dense(dreader_t *r, int64_t type, int64_t kwline,
			     topomatch_topology_t **out)
{
	tm_token_t tok;
	int64_t nterm = -1, t2;
	bool found = false;
	if (tm_scan_skip_empty(r->sc) && tm_scan_token(r->sc, &tok) && !tm_tok_int64(&tok, &nterm))
		nterm = -1;
	while (!found && tm_scan_skip_empty(r->sc) && tm_scan_token(r->sc, &tok))
		found = tok.len == 4 && memcmp(tok.s, "deco", 4) == 0;
	if (!found) {
		return tm_err(r->err, TOPOMATCH_EUNSUPPORTED,
			      "%s:%lld: 'deco' type-%lld targets (a distance for every pair of "
			      "terminals) are read only with the machine graph that topomatch "
			      "topo export --scotch writes after the distances (none here: "
			      "another writer, or a truncated file): give the cluster description "
			      "it was exported from (-t FILE.yaml)",
			      r->sc->name, (long long)kwline, (long long)type);
	}
	r->line = tok.line;
	int rc = dint(r, "type of the target after the distances", -1, 2, 2, &t2);
	if (!rc)
		rc = read_deco2(r, out);
	if (!rc && topomatch_topology_npu(*out) != nterm) {
		rc = derr(r, TOPOMATCH_EPARSE, "the graph after the distances has %lld PUs, the "
			  "distances %lld", (long long)topomatch_topology_npu(*out),
			  (long long)nterm);
		topomatch_topology_destroy(*out);
		*out = NULL;
	}
	return rc;
}

int tm_topology_parse_deco(tm_scan_t *sc, int64_t kwline, topomatch_topology_t **out,
			   char *err)
{
	dreader_t r = { .sc = sc, .line = kwline, .err = err };
	int64_t type;
	*out = NULL;
	int rc = dint(&r, "type", -1, 0, 2, &type);
	if (rc)
		return rc;
	return type == 2 ? read_deco2(&r, out) : graph_after_dense(&r, type, kwline, out);
}

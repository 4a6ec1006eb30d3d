/*
 * affinity_grf.c - reader of Scotch source graphs (.grf):
 *   0                       version
 *   vertnbr edgenbr         edgenbr = number of arcs = sum of degrees
 *   baseval flagval         flag digits: labels, edge loads, vertex loads
 *   then per vertex: [label] [load] degree { [edge load] neighbour }
 * Scotch reads a stream of tokens, so line breaks may fall anywhere; each
 * message still names the line of the offending token.  Each arc v -> u is
 * the directed entry C(v,u) = its load (1 without edge loads): a Scotch
 * graph lists every edge from both ends, which gives a symmetric C.
 * Vertex loads become the task loads.  With labels, neighbours are given
 * by label (Scotch's convention), so labels must be unique.  Edge loads
 * may be real numbers here, a harmless extension of Scotch's integers.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_formats.h"

#include <stdlib.h>

struct grf_hdr {
	int64_t vertnbr;
	int64_t edgenbr;
	int64_t baseval;
	int64_t edge_line; /* where edgenbr was, for messages */
	bool labels, eloads, vloads;
};

struct grf_label {
	int64_t label;
	int64_t vert;
	int64_t line;
};

/*
 * One pass over the vertices.  A labelled graph takes two: the first
 * (collect) records the labels, since neighbours may be named before
 * their vertex; the second resolves neighbours and stores the arcs.
 */
struct grf_pass {
	const struct grf_hdr *h;
	struct grf_label *lbl; /* vertnbr entries, sorted after pass 1 */
	bool collect;
};

/* Next token of the stream, across line breaks. */
static bool grf_tok(tm_scan_t *sc, tm_token_t *t)
{
	while (!tm_scan_token(sc, t))
		if (!tm_scan_next_line(sc))
			return false;
	return true;
}

static int grf_need(struct tm_rd *rd, tm_scan_t *sc, tm_token_t *t, const char *what)
{
	if (grf_tok(sc, t))
		return TOPOMATCH_OK;
	return tm_rd_fail(rd, tm_rd_eof_line(rd, sc), TOPOMATCH_EPARSE,
			  "unexpected end of file: missing the %s", what);
}

static int grf_int(struct tm_rd *rd, tm_scan_t *sc, tm_token_t *t, const char *what, int64_t *v)
{
	int rc = grf_need(rd, sc, t, what);
	return rc != TOPOMATCH_OK ? rc : tm_rd_int(rd, t, what, v);
}

static int grf_flag(struct tm_rd *rd, const tm_token_t *t, int64_t flag, struct grf_hdr *h)
{
	char s[64];

	if (flag < 0 || flag > 111 || flag % 10 > 1 || flag / 10 % 10 > 1)
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE,
				  "bad flag value '%s': expected 3 digits 0 or 1 "
				  "(labels, edge loads, vertex loads)",
				  tm_tok_str(t, s, sizeof(s)));
	h->labels = flag / 100 == 1;
	h->eloads = flag / 10 % 10 == 1;
	h->vloads = flag % 10 == 1;
	return TOPOMATCH_OK;
}

static int grf_header(struct tm_rd *rd, tm_scan_t *sc, struct grf_hdr *h)
{
	tm_token_t t;
	int64_t flag;
	char s[64];
	int rc;

	if (!grf_tok(sc, &t))
		return tm_rd_fail(rd, tm_rd_eof_line(rd, sc), TOPOMATCH_EPARSE,
				  "empty pattern: no grf header");
	if (t.len != 1 || t.s[0] != '0')
		return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE,
				  "grf version '%s' is not supported (expected 0)",
				  tm_tok_str(&t, s, sizeof(s)));
	rc = grf_int(rd, sc, &t, "vertex count", &h->vertnbr);
	if (rc == TOPOMATCH_OK)
		rc = tm_rd_check_tasks(rd, t.line, h->vertnbr);
	if (rc == TOPOMATCH_OK)
		rc = grf_int(rd, sc, &t, "arc count", &h->edgenbr);
	if (rc != TOPOMATCH_OK)
		return rc;
	h->edge_line = t.line;
	if (h->edgenbr < 0)
		return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE, "negative arc count %lld",
				  (long long)h->edgenbr);
	if (h->edgenbr > rd->lim.max_nnz)
		return tm_rd_fail(rd, t.line, TOPOMATCH_ELIMIT, "more than %lld non-zeros (limit)",
				  (long long)rd->lim.max_nnz);
	rc = grf_int(rd, sc, &t, "base value", &h->baseval);
	if (rc == TOPOMATCH_OK && h->baseval != 0 && h->baseval != 1)
		return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE,
				  "base value must be 0 or 1, not %lld", (long long)h->baseval);
	if (rc == TOPOMATCH_OK)
		rc = grf_int(rd, sc, &t, "flag value", &flag);
	return rc != TOPOMATCH_OK ? rc : grf_flag(rd, &t, flag, h);
}

static int label_cmp(const void *a, const void *b)
{
	const struct grf_label *x = a, *y = b;

	if (x->label != y->label)
		return x->label < y->label ? -1 : 1;
	return (x->vert > y->vert) - (x->vert < y->vert);
}

/* Sort labels for lookup; a duplicate is reported where it reappears. */
static int labels_index(struct tm_rd *rd, struct grf_label *lbl, int64_t n)
{
	qsort(lbl, (size_t)n, sizeof(*lbl), label_cmp);
	for (int64_t k = 1; k < n; k++)
		if (lbl[k].label == lbl[k - 1].label)
			return tm_rd_fail(rd, lbl[k].line, TOPOMATCH_EPARSE,
					  "duplicate vertex label %lld (also on line %lld)",
					  (long long)lbl[k].label, (long long)lbl[k - 1].line);
	return TOPOMATCH_OK;
}

static int resolve(struct tm_rd *rd, const struct grf_pass *ps, const tm_token_t *t, int64_t nb,
		   int64_t *u)
{
	const struct grf_hdr *h = ps->h;

	if (h->labels) {
		struct grf_label key = { .label = nb, .vert = -1 };
		int64_t lo = 0, hi = h->vertnbr;
		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;
			if (ps->lbl[mid].label < key.label)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == h->vertnbr || ps->lbl[lo].label != nb)
			return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE,
					  "neighbour %lld is not the label of any vertex",
					  (long long)nb);
		*u = ps->lbl[lo].vert;
		return TOPOMATCH_OK;
	}
	if (nb < h->baseval || nb - h->baseval >= h->vertnbr)
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE,
				  "neighbour %lld out of range [%lld, %lld]",
				  (long long)nb, (long long)h->baseval,
				  (long long)(h->baseval + h->vertnbr - 1));
	*u = nb - h->baseval;
	return TOPOMATCH_OK;
}

static int grf_arcs(struct tm_rd *rd, tm_scan_t *sc, const struct grf_pass *ps, int64_t v,
		    int64_t deg)
{
	tm_token_t t;
	int64_t nb, u = 0;
	double w = 1.0;
	int rc = TOPOMATCH_OK;

	for (int64_t k = 0; k < deg && rc == TOPOMATCH_OK; k++) {
		if (ps->h->eloads) {
			rc = grf_need(rd, sc, &t, "edge load");
			if (rc == TOPOMATCH_OK)
				rc = tm_rd_weight(rd, &t, "edge load", &w);
		}
		if (rc == TOPOMATCH_OK)
			rc = grf_int(rd, sc, &t, "neighbour", &nb);
		if (rc == TOPOMATCH_OK && !ps->collect) {
			rc = resolve(rd, ps, &t, nb, &u);
			if (rc == TOPOMATCH_OK)
				rc = tm_rd_push(rd, t.line, v, u, w);
		}
	}
	return rc;
}

static int grf_vertex(struct tm_rd *rd, tm_scan_t *sc, const struct grf_pass *ps, int64_t v,
		      int64_t *arcs_left)
{
	const struct grf_hdr *h = ps->h;
	tm_token_t t;
	int64_t label, deg;
	double load;
	int rc = TOPOMATCH_OK;

	if (h->labels) {
		rc = grf_int(rd, sc, &t, "vertex label", &label);
		if (rc == TOPOMATCH_OK && ps->collect)
			ps->lbl[v] = (struct grf_label){ .label = label, .vert = v,
							 .line = t.line };
	}
	if (rc == TOPOMATCH_OK && h->vloads) {
		rc = grf_need(rd, sc, &t, "vertex load");
		if (rc == TOPOMATCH_OK)
			rc = tm_rd_weight(rd, &t, "vertex load", &load);
		if (rc == TOPOMATCH_OK)
			rd->loads[v] = load;
	}
	if (rc == TOPOMATCH_OK)
		rc = grf_int(rd, sc, &t, "degree", &deg);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (deg < 0 || deg > *arcs_left)
		return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE,
				  "vertex %lld has degree %lld, but %lld of the %lld arcs declared "
				  "on line %lld remain",
				  (long long)(v + h->baseval), (long long)deg,
				  (long long)*arcs_left, (long long)h->edgenbr,
				  (long long)h->edge_line);
	*arcs_left -= deg;
	return grf_arcs(rd, sc, ps, v, deg);
}

static int grf_vertices(struct tm_rd *rd, tm_scan_t *sc, const struct grf_pass *ps)
{
	const struct grf_hdr *h = ps->h;
	int64_t arcs_left = h->edgenbr;
	tm_token_t t;
	char s[64];
	int rc = TOPOMATCH_OK;

	for (int64_t v = 0; v < h->vertnbr && rc == TOPOMATCH_OK; v++)
		rc = grf_vertex(rd, sc, ps, v, &arcs_left);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (arcs_left > 0)
		return tm_rd_fail(rd, tm_rd_eof_line(rd, sc), TOPOMATCH_EPARSE,
				  "the vertices have %lld arcs, but line %lld declares %lld",
				  (long long)(h->edgenbr - arcs_left), (long long)h->edge_line,
				  (long long)h->edgenbr);
	if (grf_tok(sc, &t))
		return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE,
				  "unexpected '%s' after the last of the %lld vertices",
				  tm_tok_str(&t, s, sizeof(s)), (long long)h->vertnbr);
	return TOPOMATCH_OK;
}

static int grf_labelled(struct tm_rd *rd, tm_scan_t *sc, struct grf_pass *ps)
{
	tm_scan_t again = *sc;
	int rc;

	ps->lbl = tm_alloc(ps->h->vertnbr, sizeof(*ps->lbl));
	if (!ps->lbl)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_ENOMEM,
				  "out of memory for %lld vertex labels",
				  (long long)ps->h->vertnbr);
	ps->collect = true;
	rc = grf_vertices(rd, sc, ps);
	if (rc == TOPOMATCH_OK)
		rc = labels_index(rd, ps->lbl, ps->h->vertnbr);
	ps->collect = false;
	if (rc == TOPOMATCH_OK)
		rc = grf_vertices(rd, &again, ps);
	free(ps->lbl);
	return rc;
}

int tm_read_grf(struct tm_rd *rd)
{
	struct grf_hdr h = { 0 };
	struct grf_pass ps = { .h = &h };
	tm_scan_t sc;
	int rc;

	tm_scan_init(&sc, rd->buf, rd->len, rd->name, "#");
	rc = grf_header(rd, &sc, &h);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (h.vloads) {
		rd->loads = tm_alloc(h.vertnbr, sizeof(*rd->loads));
		if (!rd->loads)
			return tm_rd_fail(rd, sc.line, TOPOMATCH_ENOMEM,
					  "out of memory for %lld vertex loads",
					  (long long)h.vertnbr);
	}
	rc = h.labels ? grf_labelled(rd, &sc, &ps) : grf_vertices(rd, &sc, &ps);
	if (rc == TOPOMATCH_OK)
		rd->ntasks = h.vertnbr;
	return rc;
}

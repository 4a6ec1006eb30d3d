/*
 * partition.c - graph partitioning with exact part sizes, the k_partition
 * step of TOPOMATCHCONST (TopoMatch Alg. 3 line 4, §4.4): "the cut is
 * minimized using either a greedy algorithm enriched with a balancing phase
 * or the Scotch k-way partitioner".  Both run here and the lower cut wins
 * (with tm_part_opts_t.scotch_first, Scotch's alone when it gives one):
 *
 *  - Scotch's k-way partition (scotch_part.c; not on large graphs that are
 *    mostly isolated vertices, see SCOTCH_PADDED_MAX) may miss the target
 *    sizes by a few vertices; tm_partition_rebalance() moves vertices from
 *    over-full to under-full parts, always the move that costs the least
 *    cut;
 *  - the greedy partitioner grows the parts one after the other from a
 *    seed, each to its exact size;
 *  - both end with a short size-preserving refinement: swaps of two
 *    vertices between two parts when the swap lowers the cut
 *    (Kernighan-Lin pairs of moves, chosen from Fiduccia-Mattheyses gains
 *    with locking; only improving swaps are kept, so the cut never grows).
 *
 * Everything is sparse (O(n + k + nnz) memory) and deterministic: every
 * choice breaks ties on vertex and part numbers, never on addresses.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "ipq.h"
#include "partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Refinement passes: each one is O(nnz log nnz); later passes gain little,
 * so refinement also stops after a pass that lowered the cut by less than
 * REFINE_MIN_GAIN of it. */
#define REFINE_PASSES 8
#define REFINE_MIN_GAIN 1e-3
/* Swap partners examined per move wish: from the pair list, and among the
 * loosest vertices of the target part (locked ones included). */
#define PAIR_CANDIDATES 8
#define LOOSE_CANDIDATES 4

/* ---------------------------------------------------------------- heap */

/* Max-heap item: larger k1, then larger k2, then smaller v, then smaller q
 * come first.  stamp lets callers skip entries that went stale. */
typedef struct pq_item {
	double k1, k2;
	int64_t v, q, stamp;
} pq_item_t;

typedef struct pq {
	pq_item_t *a;
	int64_t n, cap;
} pq_t;

static bool pq_before(const pq_item_t *x, const pq_item_t *y)
{
	if (x->k1 != y->k1)
		return x->k1 > y->k1;
	if (x->k2 != y->k2)
		return x->k2 > y->k2;
	if (x->v != y->v)
		return x->v < y->v;
	return x->q < y->q;
}

static void pq_swap(pq_item_t *a, int64_t i, int64_t j)
{
	pq_item_t t = a[i];
	a[i] = a[j];
	a[j] = t;
}

static int pq_push(pq_t *h, double k1, double k2, int64_t v, int64_t q, int64_t stamp)
{
	if (h->n == h->cap) {
		int64_t cap = h->cap ? 2 * h->cap : 64;
		pq_item_t *a = tm_alloc(cap, sizeof(*a));
		if (!a)
			return TOPOMATCH_ENOMEM;
		if (h->n)
			memcpy(a, h->a, (size_t)h->n * sizeof(*a));
		free(h->a);
		h->a = a;
		h->cap = cap;
	}
	int64_t i = h->n++;
	h->a[i] = (pq_item_t){ k1, k2, v, q, stamp };
	while (i > 0 && pq_before(&h->a[i], &h->a[(i - 1) / 2])) {
		pq_swap(h->a, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return TOPOMATCH_OK;
}

static pq_item_t pq_pop(pq_t *h)
{
	pq_item_t top = h->a[0];
	h->a[0] = h->a[--h->n];
	int64_t i = 0;
	for (;;) {
		int64_t b = i, l = 2 * i + 1, r = l + 1;
		if (l < h->n && pq_before(&h->a[l], &h->a[b]))
			b = l;
		if (r < h->n && pq_before(&h->a[r], &h->a[b]))
			b = r;
		if (b == i)
			return top;
		pq_swap(h->a, i, b);
		i = b;
	}
}

static void pq_free(pq_t *h)
{
	free(h->a);
	memset(h, 0, sizeof(*h));
}

/* ---------------------------------------------------- per-part weights */

/* Weight from one vertex to each part, gathered from its row: O(degree). */
typedef struct pconn {
	double *w;      /* k entries, 0 outside `touched` */
	int64_t *n;     /* k: the edges towards each part */
	int64_t *touched;
	unsigned char *mark;
	int64_t nt;
} pconn_t;

static int pconn_init(pconn_t *c, int k)
{
	c->w = tm_zalloc(k, sizeof(*c->w));
	c->n = tm_zalloc(k, sizeof(*c->n));
	c->touched = tm_alloc(k, sizeof(*c->touched));
	c->mark = tm_zalloc(k, 1);
	c->nt = 0;
	return c->w && c->n && c->touched && c->mark ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
}

static void pconn_free(pconn_t *c)
{
	free(c->w);
	free(c->n);
	free(c->touched);
	free(c->mark);
}

static void pconn_gather(pconn_t *c, const tm_wgraph_t *g, const int64_t *part, int64_t v)
{
	for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
		int64_t q = part[g->col[e]];
		if (!c->mark[q]) {
			c->mark[q] = 1;
			c->touched[c->nt++] = q;
		}
		c->w[q] += g->w[e];
		c->n[q]++;
	}
}

static void pconn_clear(pconn_t *c)
{
	for (int64_t t = 0; t < c->nt; t++) {
		c->w[c->touched[t]] = 0.0;
		c->n[c->touched[t]] = 0;
		c->mark[c->touched[t]] = 0;
	}
	c->nt = 0;
}

/* ------------------------------------------------------------ checks */

static int check_sizes(const tm_wgraph_t *g, int k, const int64_t *size, char *err)
{
	if (!g || g->n < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "partition: no graph");
	if (k < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "partition: need at least 1 part (got %d)", k);
	int64_t sum = 0;
	for (int i = 0; i < k; i++) {
		if (size[i] < 0)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "partition: part %d has a negative size (%lld)", i,
				      (long long)size[i]);
		if (!tm_add_ok(sum, size[i], &sum))
			return tm_err(err, TOPOMATCH_EINVAL, "partition: part sizes overflow");
	}
	if (sum != g->n)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "partition: part sizes sum to %lld, not to the %lld vertices",
			      (long long)sum, (long long)g->n);
	return TOPOMATCH_OK;
}

static int check_parts(const tm_wgraph_t *g, int k, const int64_t *part, char *err)
{
	for (int64_t v = 0; v < g->n; v++)
		if (part[v] < 0 || part[v] >= k)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "partition: vertex %lld is in part %lld, outside [0, %d)",
				      (long long)v, (long long)part[v], k);
	return TOPOMATCH_OK;
}

double tm_partition_cut(const tm_wgraph_t *g, const int64_t *part)
{
	double cut = 0.0;
	for (int64_t v = 0; v < g->n; v++)
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			if (g->col[e] > v && part[g->col[e]] != part[v])
				cut += g->w[e];
	return cut;
}

/* -------------------------------------------------------- refinement */

/*
 * Size-preserving refinement.  A pass lists, for every vertex v of part p
 * next to part q, the wish "move v to q" with gain W(v,q) - W(v,p); the
 * wishes are served by decreasing gain, each paired with the partner u of
 * q that makes the best swap: u wishes to go to p, or u is one of the
 * loosest vertices of q (least weight inside q: isolated vertices such as
 * the dummies of topomatch_const.c cost nothing to move).  A swap happens
 * only when its exact gain, recomputed on the current partition, is
 * positive, and locks both vertices for the rest of the pass; so the cut
 * never grows and a pass does at most n/2 swaps.
 */
typedef struct wish {
	double gain;
	int64_t v, p, q;
} wish_t;

typedef struct refine {
	const tm_wgraph_t *g;
	int k;
	int64_t *part;
	double *inner;   /* weight to its own part at the start of the pass */
	unsigned char *locked;
	wish_t *wish;    /* sorted by (p, q, gain desc, v) */
	int64_t nwish;
	int64_t *order;  /* wish indices by gain desc */
	int64_t *seg;    /* start of each (p, q) segment of wish[], plus end */
	int64_t *segkey; /* p x k + q of each segment, increasing */
	int64_t *rev;    /* the segment q -> p of each segment p -> q, or -1 */
	int64_t *wseg;   /* the segment of each wish */
	int64_t nseg;
	int64_t *segcur;
	int64_t *loose;  /* vertices by (part, inner, v) */
	int64_t *loff;   /* k + 1 offsets into loose[] */
	int64_t *lcur;
	double *ub;      /* k: best gain any vertex of the part could bring */
	double gained;   /* by the swaps of this pass */
	/* each vertex's weight to the parts next to it, kept up to date
	 * through the swaps: the entries of v are cptr[v] .. cptr[v] + clen[v],
	 * at most min(degree, k) of them (a part leaves the list when its
	 * last neighbour of v does) */
	int64_t *cptr, *clen, *cpart, *ccnt;
	double *cw;
	double *deg;     /* v's weight in all (the scale of rounding noise) */
	double *wv;      /* n: the row of the vertex whose wish is served */
} refine_t;

static int cmp_wish_pair(const void *a, const void *b)
{
	const wish_t *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

/* qsort has no context argument: sort (gain, v, q, index) records instead */
typedef struct wkey {
	double gain;
	int64_t v, q, idx;
} wkey_t;

static int cmp_wkey(const void *a, const void *b)
{
	const wkey_t *x = a, *y = b;
	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->q > y->q) - (x->q < y->q);
}

typedef struct lkey {
	int64_t part;
	double inner;
	int64_t v;
} lkey_t;

static int cmp_lkey(const void *a, const void *b)
{
	const lkey_t *x = a, *y = b;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->inner != y->inner)
		return x->inner < y->inner ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static void refine_free(refine_t *r)
{
	free(r->inner);
	free(r->locked);
	free(r->wish);
	free(r->order);
	free(r->seg);
	free(r->segkey);
	free(r->rev);
	free(r->wseg);
	free(r->segcur);
	free(r->loose);
	free(r->loff);
	free(r->lcur);
	free(r->ub);
	free(r->cptr);
	free(r->clen);
	free(r->cpart);
	free(r->ccnt);
	free(r->cw);
	free(r->deg);
	free(r->wv);
}

static int refine_alloc(refine_t *r)
{
	const tm_wgraph_t *g = r->g;
	int64_t nnz = g->rowptr[g->n];
	r->inner = tm_alloc(g->n, sizeof(*r->inner));
	r->locked = tm_alloc(g->n, 1);
	r->wish = tm_alloc(nnz, sizeof(*r->wish));
	r->order = tm_alloc(nnz, sizeof(*r->order));
	r->seg = tm_alloc(nnz + 1, sizeof(*r->seg));
	r->segcur = tm_alloc(nnz, sizeof(*r->segcur));
	r->segkey = tm_alloc(nnz, sizeof(*r->segkey));
	r->rev = tm_alloc(nnz, sizeof(*r->rev));
	r->wseg = tm_alloc(nnz, sizeof(*r->wseg));
	r->loose = tm_alloc(g->n, sizeof(*r->loose));
	r->loff = tm_alloc((int64_t)r->k + 1, sizeof(*r->loff));
	r->lcur = tm_alloc(r->k, sizeof(*r->lcur));
	r->ub = tm_alloc(r->k, sizeof(*r->ub));
	r->cptr = tm_alloc(g->n, sizeof(*r->cptr));
	r->clen = tm_alloc(g->n, sizeof(*r->clen));
	r->cpart = tm_alloc(nnz, sizeof(*r->cpart));
	r->ccnt = tm_alloc(nnz, sizeof(*r->ccnt));
	r->cw = tm_alloc(nnz, sizeof(*r->cw));
	r->deg = tm_alloc(g->n, sizeof(*r->deg));
	r->wv = tm_zalloc(g->n, sizeof(*r->wv));
	if (!r->inner || !r->locked || !r->wish || !r->order || !r->seg || !r->segcur ||
	    !r->segkey || !r->rev || !r->wseg || !r->loose || !r->loff || !r->lcur || !r->ub ||
	    !r->cptr || !r->clen || !r->cpart || !r->ccnt || !r->cw || !r->deg || !r->wv)
		return TOPOMATCH_ENOMEM;
	for (int64_t v = 0, at = 0; v < g->n; v++) {
		int64_t d = g->rowptr[v + 1] - g->rowptr[v];
		r->cptr[v] = at;
		at += d < r->k ? d : r->k;
		r->deg[v] = 0.0;
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			r->deg[v] += g->w[e];
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------- weights to the parts */

/* W(v, q): v's entry for part q, 0 when no neighbour of v is in q. */
static double conn(const refine_t *r, int64_t v, int64_t q)
{
	for (int64_t i = r->cptr[v], end = i + r->clen[v]; i < end; i++)
		if (r->cpart[i] == q)
			return r->cw[i];
	return 0.0;
}

/* A neighbour of v, joined to it by weight w, enters (dir 1) or leaves
 * (dir -1) part q. */
static void conn_move(refine_t *r, int64_t v, int64_t q, double w, int dir)
{
	int64_t lo = r->cptr[v], end = lo + r->clen[v], i = lo;
	while (i < end && r->cpart[i] != q)
		i++;
	if (i == end) { /* dir is 1: a part new to v */
		r->cpart[i] = q;
		r->cw[i] = 0.0;
		r->ccnt[i] = 0;
		r->clen[v]++;
	}
	r->cw[i] += dir * w;
	r->ccnt[i] += dir;
	if (r->ccnt[i] == 0) { /* exactly 0: no rounding left behind */
		r->clen[v]--;
		r->cpart[i] = r->cpart[end - 1];
		r->cw[i] = r->cw[end - 1];
		r->ccnt[i] = r->ccnt[end - 1];
	}
}

/* v moved from part p to part q: its neighbours' entries follow. */
static void conn_moved(refine_t *r, int64_t v, int64_t p, int64_t q)
{
	const tm_wgraph_t *g = r->g;
	for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
		conn_move(r, g->col[e], p, g->w[e], -1);
		conn_move(r, g->col[e], q, g->w[e], 1);
	}
}

/* The wishes of this pass, and each vertex's weight inside its part. */
static void collect_wishes(refine_t *r, pconn_t *pc)
{
	const tm_wgraph_t *g = r->g;
	r->nwish = 0;
	for (int q = 0; q < r->k; q++)
		r->ub[q] = -INFINITY;
	for (int64_t v = 0; v < g->n; v++) {
		int64_t p = r->part[v];
		pconn_gather(pc, g, r->part, v);
		r->inner[v] = pc->w[p];
		r->ub[p] = fmax(r->ub[p], -pc->w[p]);
		r->clen[v] = pc->nt;
		for (int64_t t = 0; t < pc->nt; t++) {
			int64_t q = pc->touched[t], i = r->cptr[v] + t;
			double gain = pc->w[q] - pc->w[p];
			r->cpart[i] = q;
			r->cw[i] = pc->w[q];
			r->ccnt[i] = pc->n[q];
			if (q == p)
				continue;
			r->wish[r->nwish++] = (wish_t){ gain, v, p, q };
			r->ub[p] = fmax(r->ub[p], gain);
		}
		pconn_clear(pc);
	}
}

/*
 * Drop the wishes that no partner can make worth a swap: a partner from q
 * gains at most ub[q] (its best wish, or leaving q for a part it does not
 * touch).  On graphs where most vertices are well inside their part this
 * leaves few wishes to sort.
 */
static void prune_wishes(refine_t *r)
{
	int64_t kept = 0;
	for (int64_t i = 0; i < r->nwish; i++)
		if (r->wish[i].gain + r->ub[r->wish[i].q] > 0.0)
			r->wish[kept++] = r->wish[i];
	r->nwish = kept;
}

/* Segment of the wishes p -> q, or -1 (segkey[] is sorted). */
static int64_t find_seg(const refine_t *r, int64_t p, int64_t q)
{
	int64_t key = p * r->k + q, lo = 0, hi = r->nseg;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (r->segkey[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nseg && r->segkey[lo] == key ? lo : -1;
}

static int index_wishes(refine_t *r)
{
	qsort(r->wish, (size_t)r->nwish, sizeof(*r->wish), cmp_wish_pair);
	r->nseg = 0;
	for (int64_t i = 0; i < r->nwish; i++) {
		const wish_t *w = &r->wish[i];
		if (i == 0 || w->p != w[-1].p || w->q != w[-1].q) {
			r->segcur[r->nseg] = i;
			r->segkey[r->nseg] = w->p * r->k + w->q;
			r->seg[r->nseg++] = i;
		}
		r->wseg[i] = r->nseg - 1;
	}
	r->seg[r->nseg] = r->nwish;
	for (int64_t s = 0; s < r->nseg; s++) {
		const wish_t *w = &r->wish[r->seg[s]];
		r->rev[s] = find_seg(r, w->q, w->p);
	}
	wkey_t *key = tm_alloc(r->nwish, sizeof(*key));
	if (!key)
		return TOPOMATCH_ENOMEM;
	for (int64_t i = 0; i < r->nwish; i++)
		key[i] = (wkey_t){ r->wish[i].gain, r->wish[i].v, r->wish[i].q, i };
	qsort(key, (size_t)r->nwish, sizeof(*key), cmp_wkey);
	for (int64_t i = 0; i < r->nwish; i++)
		r->order[i] = key[i].idx;
	free(key);
	return TOPOMATCH_OK;
}

/*
 * loose[] in (part, inner, v) order: a counting sort by part (vertices in
 * increasing v), then each part's run sorted by (inner, v): what one sort
 * of all n keys gave, in O(n + sum of p log p) instead of O(n log n) (a
 * refinement pass of 65,536 vertices in 4,096 parts sorted 5 % of
 * TreeMatch's time there).
 */
static int index_loose(refine_t *r)
{
	int64_t n = r->g->n;
	lkey_t *key = tm_alloc(n, sizeof(*key));
	if (!key)
		return TOPOMATCH_ENOMEM;
	memset(r->loff, 0, ((size_t)r->k + 1) * sizeof(*r->loff));
	for (int64_t v = 0; v < n; v++)
		r->loff[r->part[v] + 1]++;
	for (int q = 0; q < r->k; q++) {
		r->loff[q + 1] += r->loff[q];
		r->lcur[q] = r->loff[q];
	}
	for (int64_t v = 0; v < n; v++)
		key[r->lcur[r->part[v]]++] = (lkey_t){ r->part[v], r->inner[v], v };
	for (int q = 0; q < r->k; q++) {
		int64_t lo = r->loff[q], len = r->loff[q + 1] - lo;
		if (len > 1)
			qsort(key + lo, (size_t)len, sizeof(*key), cmp_lkey);
		r->lcur[q] = lo;
	}
	for (int64_t i = 0; i < n; i++)
		r->loose[i] = key[i].v;
	free(key);
	return TOPOMATCH_OK;
}

/*
 * Gain of swapping v (in p) and u (in q) on the current partition, from
 * the weights to the parts (W(v,q) - W(v,p) + W(u,p) - W(u,q), less twice
 * the edge between them, which stays cut); wv[] holds v's row.  *scale
 * gets the weight involved, to judge rounding noise.
 */
static double swap_gain(const refine_t *r, int64_t v, int64_t u, double *scale)
{
	int64_t p = r->part[v], q = r->part[u];
	*scale = r->deg[v] + r->deg[u];
	return conn(r, v, q) - conn(r, v, p) + conn(r, u, p) - conn(r, u, q) - 2.0 * r->wv[u];
}

/* Skip the locked vertices at the head of a candidate list. */
static void skip_locked_wishes(refine_t *r, int64_t s)
{
	while (r->segcur[s] < r->seg[s + 1] && r->locked[r->wish[r->segcur[s]].v])
		r->segcur[s]++;
}

static void skip_locked_loose(refine_t *r, int64_t q)
{
	while (r->lcur[q] < r->loff[q + 1] && r->locked[r->loose[r->lcur[q]]])
		r->lcur[q]++;
}

/* Best swap partner's gain as it stood at the start of the pass. */
static double partner_bound(refine_t *r, int64_t s, int64_t q)
{
	double b = -INFINITY;
	if (s >= 0) {
		skip_locked_wishes(r, s);
		if (r->segcur[s] < r->seg[s + 1])
			b = r->wish[r->segcur[s]].gain;
	}
	skip_locked_loose(r, q);
	if (r->lcur[q] < r->loff[q + 1])
		b = fmax(b, -r->inner[r->loose[r->lcur[q]]]);
	return b;
}

static void try_partner(const refine_t *r, int64_t v, int64_t u, double *best, int64_t *bu)
{
	double scale, gain;
	if (r->locked[u])
		return;
	gain = swap_gain(r, v, u, &scale);
	if (!(gain > 1e-12 * scale))
		return;
	if (gain > *best || (gain == *best && u < *bu)) {
		*best = gain;
		*bu = u;
	}
}

/* Serve wish wi; returns true when a swap was made. */
static bool serve_wish(refine_t *r, int64_t wi)
{
	const wish_t *w = &r->wish[wi];
	int64_t v = w->v, p = w->p, q = w->q;
	if (r->locked[v])
		return false;
	int64_t s = r->rev[r->wseg[wi]];
	if (!(w->gain + partner_bound(r, s, q) > 0.0))
		return false;
	/* the heads of both lists are unlocked; a few locked entries further
	 * on are skipped, within a bound so that a pass stays O(nnz) */
	const tm_wgraph_t *g = r->g;
	double best = -INFINITY;
	int64_t bu = -1;
	int64_t end = s >= 0 ? r->seg[s + 1] : 0;
	for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
		r->wv[g->col[e]] += g->w[e];
	for (int64_t i = s >= 0 ? r->segcur[s] : 0, m = 0; i < end && m < PAIR_CANDIDATES;
	     i++, m++)
		try_partner(r, v, r->wish[i].v, &best, &bu);
	for (int64_t i = r->lcur[q], m = 0; i < r->loff[q + 1] && m < LOOSE_CANDIDATES; i++, m++)
		try_partner(r, v, r->loose[i], &best, &bu);
	for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
		r->wv[g->col[e]] = 0.0;
	if (bu < 0)
		return false;
	r->part[v] = q;
	r->part[bu] = p;
	conn_moved(r, v, p, q);
	conn_moved(r, bu, q, p);
	r->locked[v] = r->locked[bu] = 1;
	r->gained += best;
	return true;
}

static int refine_pass(refine_t *r, pconn_t *pc, int64_t *swaps)
{
	collect_wishes(r, pc);
	prune_wishes(r);
	int rc = index_wishes(r);
	if (rc == TOPOMATCH_OK)
		rc = index_loose(r);
	if (rc != TOPOMATCH_OK)
		return rc;
	memset(r->locked, 0, (size_t)r->g->n);
	*swaps = 0;
	r->gained = 0.0;
	for (int64_t i = 0; i < r->nwish; i++)
		if (serve_wish(r, r->order[i]))
			(*swaps)++;
	return TOPOMATCH_OK;
}

static bool expired(double deadline)
{
	return deadline > 0 && tm_now() > deadline;
}

static int refine(const tm_wgraph_t *g, int k, int64_t *part, double deadline)
{
	if (k < 2 || g->n < 2 || g->rowptr[g->n] == 0)
		return TOPOMATCH_OK;
	refine_t r = { .g = g, .k = k, .part = part };
	pconn_t pc;
	int rc = pconn_init(&pc, k);
	if (rc == TOPOMATCH_OK)
		rc = refine_alloc(&r);
	double cut = tm_partition_cut(g, part);
	for (int pass = 0; rc == TOPOMATCH_OK && pass < REFINE_PASSES; pass++) {
		int64_t swaps = 0;
		if (expired(deadline)) {
			rc = TOPOMATCH_EBUDGET;
			break;
		}
		rc = refine_pass(&r, &pc, &swaps);
		if (swaps == 0 || r.gained < REFINE_MIN_GAIN * cut)
			break;
		cut -= r.gained;
	}
	refine_free(&r);
	pconn_free(&pc);
	return rc;
}

/* -------------------------------------------------------- rebalancing */

/* Heap pops between two looks at the clock (a pop may requeue a row). */
#define REBALANCE_CHECK_POPS 1024

typedef struct rebal {
	const tm_wgraph_t *g;
	int k;
	const int64_t *size;
	int64_t *part;
	int64_t *cnt;
	int64_t *stamp;
	int64_t under; /* lowest under-full part: parts only fill up */
	pconn_t pc;
	pq_t h;
} rebal_t;

static bool over(const rebal_t *r, int64_t p)
{
	return r->cnt[p] > r->size[p];
}

static int64_t first_under(rebal_t *r)
{
	while (r->under < r->k && r->cnt[r->under] >= r->size[r->under])
		r->under++;
	return r->under;
}

/*
 * Queue v (in an over-full part) with its best move: the under-full part
 * it is most attached to, or the lowest-numbered under-full part when it
 * is attached to none (every such move costs the same, W(v,p)).
 */
static int queue_best(rebal_t *r, int64_t v)
{
	int64_t p = r->part[v], bq = first_under(r);
	if (bq >= r->k)
		return TOPOMATCH_OK; /* nothing left to fill */
	pconn_gather(&r->pc, r->g, r->part, v);
	double in = r->pc.w[p], bg = r->pc.w[bq] - in;
	for (int64_t t = 0; t < r->pc.nt; t++) {
		int64_t q = r->pc.touched[t];
		double gain = r->pc.w[q] - in;
		if (q == p || r->cnt[q] >= r->size[q])
			continue;
		if (gain > bg || (gain == bg && q < bq)) {
			bg = gain;
			bq = q;
		}
	}
	pconn_clear(&r->pc);
	return pq_push(&r->h, bg, 0.0, v, bq, ++r->stamp[v]);
}

/* Move v to q and requeue its neighbours that still have to move. */
static int move_vertex(rebal_t *r, int64_t v, int64_t q)
{
	r->cnt[r->part[v]]--;
	r->cnt[q]++;
	r->part[v] = q;
	r->stamp[v]++;
	for (int64_t e = r->g->rowptr[v]; e < r->g->rowptr[v + 1]; e++) {
		int64_t u = r->g->col[e];
		if (over(r, r->part[u])) {
			int rc = queue_best(r, u);
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	}
	return TOPOMATCH_OK;
}

/* Lazy greedy: an entry is used only when still current (stamp), its
 * vertex still has to move and its target still has room. */
static int rebalance_moves(rebal_t *r, int64_t moves, double deadline)
{
	int rc = TOPOMATCH_OK;
	for (int64_t v = 0; v < r->g->n && rc == TOPOMATCH_OK; v++)
		if (over(r, r->part[v]))
			rc = queue_best(r, v);
	for (int64_t pops = 0; rc == TOPOMATCH_OK && moves > 0 && r->h.n > 0; pops++) {
		if (pops % REBALANCE_CHECK_POPS == REBALANCE_CHECK_POPS - 1 && expired(deadline)) {
			rc = TOPOMATCH_EBUDGET;
			break;
		}
		pq_item_t it = pq_pop(&r->h);
		if (it.stamp != r->stamp[it.v] || !over(r, r->part[it.v]))
			continue;
		if (r->cnt[it.q] >= r->size[it.q]) {
			rc = queue_best(r, it.v);
			continue;
		}
		rc = move_vertex(r, it.v, it.q);
		moves--;
	}
	return rc;
}

static int rebalance(const tm_wgraph_t *g, int k, const int64_t *size, int64_t *part,
		     double deadline, char *err)
{
	int rc = check_sizes(g, k, size, err);
	if (rc == TOPOMATCH_OK)
		rc = check_parts(g, k, part, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	rebal_t r = { .g = g, .k = k, .size = size, .part = part };
	r.cnt = tm_zalloc(k, sizeof(*r.cnt));
	r.stamp = tm_zalloc(g->n, sizeof(*r.stamp));
	rc = pconn_init(&r.pc, k);
	if (!r.cnt || !r.stamp)
		rc = TOPOMATCH_ENOMEM;
	int64_t moves = 0;
	for (int64_t v = 0; rc == TOPOMATCH_OK && v < g->n; v++)
		r.cnt[part[v]]++;
	for (int p = 0; rc == TOPOMATCH_OK && p < k; p++)
		moves += r.cnt[p] > size[p] ? r.cnt[p] - size[p] : 0;
	if (rc == TOPOMATCH_OK && moves > 0)
		rc = rebalance_moves(&r, moves, deadline);
	pq_free(&r.h);
	pconn_free(&r.pc);
	free(r.stamp);
	free(r.cnt);
	if (rc == TOPOMATCH_OK)
		rc = refine(g, k, part, deadline);
	if (rc == TOPOMATCH_ENOMEM)
		return tm_err(err, rc, "partition: out of memory (%lld vertices)", (long long)g->n);
	return rc;
}

/* ------------------------------------------------------------- greedy */

/*
 * Greedy graph growing (the "greedy algorithm enriched with a balancing
 * phase" of TopoMatch §4.4): the parts are filled one after the other,
 * largest first, each to its exact size.  A part starts from the free
 * vertex of highest remaining weighted degree (the centre of a heavy
 * cluster) and then takes the free vertex most attached to it; between
 * equally attached vertices, the one with the least weight to the other
 * free vertices, so that cutting it off costs least.  When nothing free is
 * attached to the part any more, it takes the loosest free vertex (isolated
 * vertices first) rather than break into a new cluster.
 */
/* Indexed heaps over the free vertices (ipq.h): a vertex sits at most once
 * in each, and moves when its key changes, so the dense patterns that
 * TopoMatch often sees (nnz ~ n^2) cost O(nnz log n) sift steps and no
 * stale entries. */
/*
 * Greedy graph growing (the "greedy algorithm enriched with a balancing
 * phase" of TopoMatch §4.4): the parts are filled one after the other,
 * largest first, each to its exact size.  A part starts from the free
 * vertex of highest remaining weighted degree (the centre of a heavy
 * cluster) and then takes the free vertex most attached to it; between
 * equally attached vertices, the one with the least weight to the other
 * free vertices, so that cutting it off costs least.  When nothing free is
 * attached to the part any more, it takes the loosest free vertex (isolated
 * vertices first) rather than break into a new cluster.
 */
typedef struct grow {
	const tm_wgraph_t *g;
	int64_t *part;
	double *att;  /* weight to the part being grown */
	double *rdeg; /* weight to free vertices */
	tm_ipq_t grow, seed, loose;
} grow_t;

static void grow_free(grow_t *s)
{
	free(s->att);
	free(s->rdeg);
	tm_ipq_free(&s->grow);
	tm_ipq_free(&s->seed);
	tm_ipq_free(&s->loose);
}

static int grow_init(grow_t *s)
{
	int64_t n = s->g->n;
	s->att = tm_zalloc(n, sizeof(*s->att));
	s->rdeg = tm_zalloc(n, sizeof(*s->rdeg));
	int rc = s->att && s->rdeg ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK)
		rc = tm_ipq_init(&s->grow, n, TM_IPQ_GROW, s->att, s->rdeg);
	if (rc == TOPOMATCH_OK)
		rc = tm_ipq_init(&s->seed, n, TM_IPQ_SEED, s->att, s->rdeg);
	if (rc == TOPOMATCH_OK)
		rc = tm_ipq_init(&s->loose, n, TM_IPQ_LOOSE, s->att, s->rdeg);
	for (int64_t v = 0; v < n && rc == TOPOMATCH_OK; v++) {
		s->part[v] = -1;
		for (int64_t e = s->g->rowptr[v]; e < s->g->rowptr[v + 1]; e++)
			s->rdeg[v] += s->g->w[e];
		tm_ipq_fix(&s->seed, v);
		tm_ipq_fix(&s->loose, v);
	}
	return rc;
}

static void take(grow_t *s, int64_t v, int64_t p)
{
	s->part[v] = p;
	tm_ipq_remove(&s->grow, v);
	tm_ipq_remove(&s->seed, v);
	tm_ipq_remove(&s->loose, v);
	for (int64_t e = s->g->rowptr[v]; e < s->g->rowptr[v + 1]; e++) {
		int64_t u = s->g->col[e];
		if (s->part[u] >= 0)
			continue;
		s->att[u] += s->g->w[e];
		s->rdeg[u] -= s->g->w[e];
		tm_ipq_fix(&s->grow, u);
		tm_ipq_fix(&s->seed, u);
		tm_ipq_fix(&s->loose, u);
	}
}

static void grow_part(grow_t *s, int64_t p, int64_t size)
{
	for (int64_t filled = 0; filled < size; filled++) {
		tm_ipq_t *h = s->grow.n ? &s->grow : filled == 0 ? &s->seed : &s->loose;
		take(s, h->heap[0], p); /* sizes were checked: never empty */
	}
	/* the next part grows from scratch */
	for (int64_t i = 0; i < s->grow.n; i++) {
		s->att[s->grow.heap[i]] = 0.0;
		s->grow.pos[s->grow.heap[i]] = -1;
	}
	s->grow.n = 0;
}

typedef struct psize {
	int64_t size;
	int p;
} psize_t;

static int cmp_psize(const void *a, const void *b)
{
	const psize_t *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

/* The parts grown one after the other, largest first (no refinement). */
static int grow_parts(const tm_wgraph_t *g, int k, const int64_t *size, double deadline,
		      int64_t *part)
{
	grow_t s = { .g = g, .part = part };
	psize_t *ord = tm_alloc(k, sizeof(*ord));
	int rc = ord ? grow_init(&s) : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK) {
		for (int p = 0; p < k; p++)
			ord[p] = (psize_t){ size[p], p };
		qsort(ord, (size_t)k, sizeof(*ord), cmp_psize);
		for (int i = 0; i < k && rc == TOPOMATCH_OK; i++) {
			/* O(nnz log n) in all: a dense pattern of 4,096 tasks
			 * takes seconds, so the guard looks between parts */
			if (expired(deadline))
				rc = TOPOMATCH_EBUDGET;
			else
				grow_part(&s, ord[i].p, ord[i].size);
		}
	}
	free(ord);
	grow_free(&s);
	return rc;
}

static int partition_greedy(const tm_wgraph_t *g, int k, const int64_t *size, double deadline,
			    int64_t *part)
{
	int rc = grow_parts(g, k, size, deadline, part);
	return rc == TOPOMATCH_OK ? refine(g, k, part, deadline) : rc;
}

/* ---------------------------------------------------------------- API */

int tm_partition_grow(const tm_wgraph_t *g, int k, const int64_t *size, double deadline,
		      int64_t *part, char *err)
{
	int rc = check_sizes(g, k, size, err);
	if (rc == TOPOMATCH_OK)
		rc = grow_parts(g, k, size, deadline, part);
	if (rc == TOPOMATCH_ENOMEM)
		return tm_err(err, rc, "partition: out of memory (%lld vertices)", (long long)g->n);
	if (rc == TOPOMATCH_EBUDGET)
		return tm_err(err, rc, "partition: time budget exceeded");
	return rc;
}

int tm_partition_rebalance(const tm_wgraph_t *g, int k, const int64_t *size, int64_t *part,
			   char *err)
{
	return rebalance(g, k, size, part, 0, err);
}

/*
 * Graphs that are half isolated vertices (TOPOMATCHCONST's padding with
 * dummy tasks) are left to the greedy partitioner from this size up:
 * Scotch's coarsening matches vertices along edges and cannot shrink the
 * dummies, and on the padded splits of 2,000 jobs of the CEA Curie trace
 * (tools/sim, 4096-node fat tree) its cuts from 256 vertices up were 14%
 * (256-4095) and 17% (4096+) above the greedy's in total, lower in only a
 * third of the cases, for 4x the time.  Below it Scotch still won.
 */
#define SCOTCH_PADDED_MAX 256

static bool mostly_isolated(const tm_wgraph_t *g)
{
	int64_t isolated = 0;
	for (int64_t v = 0; v < g->n; v++)
		isolated += g->rowptr[v + 1] == g->rowptr[v];
	return 2 * isolated >= g->n;
}

/*
 * Scotch's balance tolerance: 0.01 by default, tight, since every vertex
 * off is a later move.  A wider one lets Scotch's bipartitioning
 * refinement find tilings that 0.01
 * misses (a shuffled 16x8x8 stencil, faces 2000/1000/200, in 32 parts of
 * 32: 563,200, 16x2x1 tiles, at 0.01 with every strategy; 435,200, 8x4x1
 * tiles, at 0.05, the parts still exactly 32), which TOPOMATCHCONST asks
 * for (issue 19, point 3); it is not better everywhere (LAMMPS's 128-rank
 * profile on 146 free PUs, bench lj-128-f30, lost 2 % with it; GreedyMap's
 * GPART order on tree-4k 3.7 %, which is why the default stays), so
 * with also_tight graphs of up to this many vertices, where a Scotch
 * run costs well under a millisecond, are partitioned at both and the
 * lower cut is kept.
 */
#define SCOTCH_BOTH_BALANCES_MAX 256
#define SCOTCH_TIGHT_BALANCE 0.01

void tm_part_opts_init(tm_part_opts_t *o, uint64_t seed, double deadline)
{
	*o = (tm_part_opts_t){ .seed = seed, .deadline = deadline,
			       .balance = SCOTCH_TIGHT_BALANCE };
}

int tm_partition_scotch(const tm_wgraph_t *g, int k, const int64_t *size, uint64_t seed,
			int64_t *part, char *err)
{
	tm_part_opts_t o;
	tm_part_opts_init(&o, seed, 0);
	return tm_partition_scotch_opts(g, k, size, &o, part, err);
}

/* Scotch's partition at one balance, made exact; false when Scotch gave none. */
static bool scotch_at(const tm_wgraph_t *g, int k, const int64_t *size,
		      const tm_part_opts_t *o, double balance, int64_t *part)
{
	char serr[TOPOMATCH_ERRLEN];
	tm_part_opts_t at = *o;
	at.balance = balance;
	if (tm_partition_scotch_opts(g, k, size, &at, part, serr) != TOPOMATCH_OK)
		return false;
	/* a bad part number is Scotch's failure, not the caller's: use greedy */
	if (check_parts(g, k, part, NULL) != TOPOMATCH_OK)
		return false;
	return rebalance(g, k, size, part, o->deadline, serr) == TOPOMATCH_OK;
}

/* Scotch's partition made exact (at the options' balance, the better of
 * it and the tight one on small graphs when asked); false when Scotch
 * gave none. */
static bool scotch_candidate(const tm_wgraph_t *g, int k, const int64_t *size,
			     const tm_part_opts_t *o, int64_t *part)
{
	if (g->n >= SCOTCH_PADDED_MAX && mostly_isolated(g))
		return false;
	bool have = scotch_at(g, k, size, o, o->balance, part);
	if (!o->also_tight || o->balance == SCOTCH_TIGHT_BALANCE ||
	    g->n > SCOTCH_BOTH_BALANCES_MAX)
		return have;
	int64_t *tight = tm_alloc(g->n, sizeof(*tight));
	if (!tight)
		return have;
	if (scotch_at(g, k, size, o, SCOTCH_TIGHT_BALANCE, tight) &&
	    (!have || tm_partition_cut(g, tight) < tm_partition_cut(g, part))) {
		memcpy(part, tight, (size_t)g->n * sizeof(*part));
		have = true;
	}
	free(tight);
	return have;
}

int tm_partition_exact(const tm_wgraph_t *g, int k, const int64_t *size, uint64_t seed,
		       double deadline, int64_t *part, char *err)
{
	tm_part_opts_t o;
	tm_part_opts_init(&o, seed, deadline);
	return tm_partition_exact_opts(g, k, size, &o, part, err);
}

static int partition_exact(const tm_wgraph_t *g, int k, const int64_t *size,
			   const tm_part_opts_t *o, int64_t *part, char *err);

/* The memo's key for a partition with these options. */
static tm_part_key_t memo_key(const tm_wgraph_t *g, int k, const int64_t *size,
			      const tm_part_opts_t *o)
{
	return (tm_part_key_t){ .g = g, .k = k, .size = size, .seed = o->seed,
				.balance = o->balance,
				.flags = o->also_tight | o->scotch_first << 1 | (int)o->strategy << 2 };
}

int tm_partition_exact_opts(const tm_wgraph_t *g, int k, const int64_t *size,
			    const tm_part_opts_t *o, int64_t *part, char *err)
{
	if (!o->memo || check_sizes(g, k, size, err) != TOPOMATCH_OK)
		return partition_exact(g, k, size, o, part, err);
	tm_part_key_t key = memo_key(g, k, size, o);
	uint64_t h = tm_part_key_hash(&key);
	if (tm_part_memo_get(o->memo, &key, h, part))
		return TOPOMATCH_OK;
	int rc = partition_exact(g, k, size, o, part, err);
	/* kept only when no step can have been cut short (partition_exact
	 * would have failed, or Scotch's step been abandoned, past it) */
	if (rc == TOPOMATCH_OK && !expired(o->deadline))
		tm_part_memo_put(o->memo, &key, h, part);
	return rc;
}

static int partition_exact(const tm_wgraph_t *g, int k, const int64_t *size,
			   const tm_part_opts_t *o, int64_t *part, char *err)
{
	double deadline = o->deadline;
	int rc = check_sizes(g, k, size, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	int nonempty = 0, last = 0;
	for (int p = 0; p < k; p++)
		if (size[p] > 0) {
			nonempty++;
			last = p;
		}
	if (nonempty <= 1) { /* k == 1, n == 0, or one part takes all */
		for (int64_t v = 0; v < g->n; v++)
			part[v] = last;
		return TOPOMATCH_OK;
	}
	int64_t *cand = tm_alloc(g->n, sizeof(*cand));
	if (!cand)
		return tm_err(err, TOPOMATCH_ENOMEM, "partition: out of memory (%lld vertices)",
			      (long long)g->n);
	bool have_scotch = scotch_candidate(g, k, size, o, cand);
	if (have_scotch && o->scotch_first) {
		memcpy(part, cand, (size_t)g->n * sizeof(*part));
		free(cand);
		return TOPOMATCH_OK;
	}
	rc = expired(deadline) ? TOPOMATCH_EBUDGET : partition_greedy(g, k, size, deadline, part);
	if (rc == TOPOMATCH_EBUDGET) {
		free(cand);
		return tm_err(err, rc, "partition: time budget exceeded");
	}
	/* the lower cut wins; Scotch on ties */
	if (rc == TOPOMATCH_OK && have_scotch &&
	    tm_partition_cut(g, cand) <= tm_partition_cut(g, part))
		memcpy(part, cand, (size_t)g->n * sizeof(*part));
	if (rc != TOPOMATCH_OK && have_scotch) {
		memcpy(part, cand, (size_t)g->n * sizeof(*part));
		rc = TOPOMATCH_OK;
	}
	free(cand);
	if (rc == TOPOMATCH_ENOMEM)
		return tm_err(err, rc, "partition: out of memory (%lld vertices)", (long long)g->n);
	return rc;
}

/*
 * pattern_blob.c - the communication pattern as printable strings in a
 * job's spank_job_env (topomatch_blob_*): encoded by sbatch as the user,
 * decoded by slurmctld, which must treat the strings as hostile.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * FORMAT, version 2, or 3 for a pattern in groups (the decoder reads 1 too).
 * One binary payload of L bytes, split over N >= 1 strings (entries), each
 *
 *	"TMP1" VV IIII NNNN LLLLLLLL HHHHHHHHHHHHHHHH DATA
 *
 * with fixed-width lowercase hex fields: VV the format version (02), IIII
 * this entry's index (0-based), NNNN the entry count, LLLLLLLL the payload
 * length L in bytes, H... the 64-bit FNV-1a hash of the payload.  Every
 * entry repeats N, L and H, so that a missing, extra, reordered or foreign
 * entry is caught before anything is decoded.  DATA is the entry's part of
 * the payload in base64url ([A-Za-z0-9-_], RFC 4648 section 5) without
 * padding: no '=' to confuse with NAME=VALUE, nothing a shell expands.
 * Every part but the last is a multiple of 4 characters, so that each
 * decodes on its own; together they are exactly ceil(4L/3) characters, and
 * the unused low bits of a final partial group are 0 (one payload has one
 * spelling).  The encoder fills each entry to the limit before the next.
 *
 * Payload (varints: unsigned LEB128, minimal; doubles: IEEE 754 binary64,
 * little-endian):
 *
 *	varint ntasks          1 .. max_tasks
 *	varint group           version 3 only: 2 .. TOPOMATCH_BLOB_MAX_GROUP;
 *	                       each of the ntasks vertices below is that many
 *	                       consecutive tasks of the pattern (below)
 *	varint nnz             edges (i, j), i < j, of A = C + C^T in the blob
 *	varint nnz_input       edges before sparsification (*)
 *	double wmax            the largest weight; codes are relative to it
 *	double weight_input    total weight before sparsification (*)
 *	double weight_kept     total weight of the nnz edges (*)
 *	double sparse_factor   the factor actually applied (*)
 *	rows i = 0 .. ntasks-1, each either written out or repeated:
 *		varint (count << 1 | 0), then the row's count edges (i, j),
 *		               j > i, each a varint (gap << 1 | same): j =
 *		               previous j + 1 + gap, the previous j starting at
 *		               i; unless `same`, a varint weight code q follows,
 *		               which must differ from the predicted one; `same`:
 *		               q = the prediction
 *		varint (r << 1 | 1): this row and the r after it have the edges
 *		               of the row before them, shifted: the same offsets
 *		               j - i, the same weights (not at row 0)
 *	(version 1: varint count, then the edges; no repeats)
 *
 * (*) what the encoder reports (topomatch_blob_info_t), for the warning
 * "x% of the communication weight dropped"; checked only for sanity.
 *
 * The predicted code of an edge is the code of the last edge whose offset
 * d = j - i fell in the same slot, (d x 0x9E3779B97F4A7C15 mod 2^64) >> 54,
 * of a 1024-entry table that starts all 0 and is updated after every
 * edge written out (repeated rows leave it alone).  In a stencil the
 * weight is a function of the offset, so weights cost nothing after the
 * first rows, whatever their spread.
 *
 * Repeated rows are what a pattern numbered with locality looks like: a
 * stencil's rows inside the grid, the rows of Bruck's all-to-all (i sends
 * to i + 2^k) between the powers of two.  A run costs a byte or two
 * however long it is, so the decoder bounds the edges by max_edges, not
 * by the bytes.
 *
 * Columns increase and stay above the diagonal by construction; the
 * decoder only checks that they stay below ntasks.
 *
 * Weights.  Mappers only care about relative weights, so an edge stores a
 * code q in 0..65535 of r = w / wmax, a small float: q = 0 is r = 1 (a
 * blob with edges has one of code 0 at least: wmax is its largest weight);
 * otherwise, with o = (q - 1) / 1024 and m = 1024 - (q - 1024 o),
 * r = 2^-(o+1) (1 + m / 1024).  That is 11 significant bits (relative
 * error <= 2^-11) over 64 octaves; lighter edges are raised to the
 * smallest code (2^-64 wmax), which no mapper can tell from zero.  Codes
 * are computed with a division, frexp and exact arithmetic, decoded with
 * ldexp and a multiplication: all exact or correctly rounded in IEEE 754,
 * so the strings do not depend on the machine's libm (no log2/exp2).
 * Codes grow as weights fall: weights within a factor 1.07 of the largest
 * take one byte, within 2^16 two bytes, when not predicted.
 *
 * Sizes, strings included (default limits): stencils numbered along
 * their grid repeat their rows but at the faces, whatever their weights:
 * 7-point 16x16x16 (4096 tasks, 11,520 edges) 3.3 KiB, 32x32x64 (65,536
 * tasks, 191,488 edges) 26.4 KiB, periodic 64x64x16 with three face
 * weights 21.7 KiB, a 16x16x16 27-point stencil 11.5 KiB; Bruck's
 * all-to-all 0.8 KiB on 8,192 tasks (102,400 edges), 1.3 KiB on 65,536
 * (1,015,808), all in one entry, nothing dropped (version 1: 2.25 bytes
 * per stencil edge, 419 KiB for the 32x32x64 stencil).  Without locality
 * in the numbering rows do not repeat: a shuffled 16x16x16 stencil takes
 * 3 bytes per edge (33.6 KiB); random patterns pay for column gaps of
 * thousands and unpredictable codes, 5.3 bytes per edge (4096 tasks,
 * degree 6, weights 1..10^6; 8,449 of 24,549 edges fit in 48 KiB, 43 % of
 * the weight dropped), 2.75 with equal weights; at 65,536 tasks and
 * degree 6, 73k of 393k edges fit in 512 KiB (66 % of the weight
 * dropped, every task keeping its heaviest edge).
 *
 * Sparsification, when the limits demand it: the kept edges are the
 * forced ones (each task's heaviest) and the K first of the others by
 * weight; among equal weights the shortest in task numbers first (on the
 * ring 0 .. ntasks-1, so that wrap-around counts as short), then in a
 * fixed pseudo-random order (a hash of i and j) so that the losses spread
 * instead of hitting the last rows.  K is found by bisection on the exact
 * encoded size (repeats make the size grow unevenly with K: the K found
 * fits, a larger one may too).
 *
 * Groups (version 3).  A pattern whose tasks do not fit even with one edge
 * each (a random or shuffled pattern of some 16,000 tasks in 48 KiB: its
 * column gaps do not compress), or that has more than max_tasks tasks,
 * has no blob one task a vertex; a node choice needs less than that.  With
 * lim->max_group the encoder then puts its tasks in groups of g
 * consecutive tasks, g dividing the task count (powers of two first:
 * they divide the usual cores per node, so that whole groups fill a
 * node), and encodes the groups' pattern as above, the smallest g that
 * fits.  The traffic inside a group is left out: a group's tasks are
 * placed on one node (select/topomatch maps a vertex onto a slot of g x
 * cpus-per-task PUs of a node), where it crosses no network link.
 * nnz_input, the weights and the sparse factor are the groups' pattern's.
 *
 * Why FNV-1a 64 is enough.  The hash is for integrity: a string cut by
 * some layer, a stale or mixed-up entry, a flipped bit; random damage
 * passes it with probability about 2^-64, and L, N and the indices catch
 * truncation and reordering outright.  It authenticates nothing (anyone
 * can compute it), so the decoder checks every field as if there were no
 * hash: string lengths against the limits (strnlen, never past them),
 * the payload length against the characters actually present before
 * allocating it, ntasks and nnz against the bytes left (each row and each
 * edge takes at least one byte, so the arrays sized from them are bounded
 * by the input), every index, count, code and total against its range,
 * minimal varints, no trailing bytes.  Time and memory are linear in the
 * input.  Mixing entries of two patterns needs the same L and H, which
 * two different payloads have with probability 2^-64.
 */
#include "config.h"
#include "base/tm_internal.h"
#include "pattern_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_MAGIC "TMP1"
#define BLOB_VERSION 3	    /* the highest read; written: 2, or 3 for groups */
#define HDR_LEN 38	    /* magic 4, version 2, index 4, count 4, L 8, hash 16 */
#define QSTEPS 1024	    /* weight codes per octave */
#define QMAX 65535u	    /* largest weight code */
#define MIN_WMAX 0x1p-958   /* keeps 2^-64 wmax a normal double */
#define MAX_PAYLOAD UINT32_MAX /* what 8 hex digits hold */
#define PRED_BITS 10	    /* weight prediction table: 1024 codes */

/* Weight prediction slot of an edge of offset d = j - i > 0. */
static unsigned pred_slot(int64_t d)
{
	return (unsigned)(((uint64_t)d * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - PRED_BITS));
}

/* ---------------------------------------------------------------- shared */

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static topomatch_blob_limits_t blob_defaults(void)
{
	topomatch_blob_limits_t l = { TOPOMATCH_BLOB_MAX_ENTRY, TOPOMATCH_BLOB_MAX_TOTAL,
				      TOPOMATCH_BLOB_MAX_TASKS, TOPOMATCH_BLOB_MAX_EDGES, 1 };
	return l;
}

/* User limits with 0 fields replaced by the defaults. */
static int blob_limits(const topomatch_blob_limits_t *in, topomatch_blob_limits_t *out,
		       char *err)
{
	*out = blob_defaults();
	if (in) {
		if (in->max_entry)
			out->max_entry = in->max_entry;
		if (in->max_total)
			out->max_total = in->max_total;
		if (in->max_tasks)
			out->max_tasks = in->max_tasks;
		if (in->max_edges)
			out->max_edges = in->max_edges;
		if (in->max_group)
			out->max_group = in->max_group;
	}
	/* an entry must hold its header, one base64 group and the NUL */
	if (out->max_entry < HDR_LEN + 5)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "pattern blob: max_entry %zu is below %d bytes", out->max_entry,
			      HDR_LEN + 5);
	if (out->max_tasks < 0 || out->max_edges < 0 || out->max_group < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "pattern blob: negative max_%s %lld",
			      out->max_tasks < 0 ? "tasks" : out->max_edges < 0 ? "edges" : "group",
			      (long long)(out->max_tasks < 0   ? out->max_tasks
					  : out->max_edges < 0 ? out->max_edges
							       : out->max_group));
	return TOPOMATCH_OK;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* Unpadded base64 length of n bytes. */
static uint64_t b64_len(uint64_t n)
{
	return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
}

/* Code of r = w / wmax in (0, 1]; see the format comment. */
static unsigned weight_code(double r)
{
	if (r >= 1.0)
		return 0;
	if (r <= 0.0) /* w / wmax underflowed: far below 2^-64 */
		return QMAX;
	int e;
	double f = frexp(r, &e); /* r = f 2^e, f in [0.5, 1), so o = -e */
	int64_t o = -(int64_t)e;
	if (o >= 64)
		return QMAX;
	/* f 2048 - 1024 and + 0.5 are exact: multiples of 2^-42 below 2048 */
	int64_t m = (int64_t)(f * 2048.0 - 1024.0 + 0.5);
	if (m == QSTEPS) { /* rounds up to the bottom of the octave above */
		if (o == 0)
			return 0;
		o--;
		m = 0;
	}
	int64_t q = o * QSTEPS + (QSTEPS - m);
	return q > (int64_t)QMAX ? QMAX : (unsigned)q;
}

/* r of a code q <= QMAX. */
static double weight_ratio(unsigned q)
{
	if (q == 0)
		return 1.0;
	unsigned o = (q - 1) / QSTEPS;
	unsigned m = QSTEPS - (q - o * QSTEPS);
	return ldexp(1.0 + m / (double)QSTEPS, -(int)(o + 1));
}

/* ---------------------------------------------------------------- encoder */

/* Payload writer; with buf == NULL it only counts bytes. */
struct wr {
	uint8_t *buf;
	size_t len;
};

static void put_byte(struct wr *w, uint8_t b)
{
	if (w->buf)
		w->buf[w->len] = b;
	w->len++;
}

static void put_varint(struct wr *w, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put_byte(w, (uint8_t)v);
}

static void put_double(struct wr *w, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	for (int k = 0; k < 8; k++)
		put_byte(w, (uint8_t)(u >> (8 * k)));
}

/*
 * Encoder.  The candidates are the edges (i < j) of A that the sparse
 * factor keeps.  Each task's heaviest edge is forced (rank -1); the other
 * candidates are ranked 0, 1, ... by priority and the blob holds the edges
 * of rank < K, for a K that fits.  At most max_edges edges can be kept,
 * so only the first max_edges ranked candidates matter: a partial
 * selection finds them, and the search for K runs on a compact CSR of
 * those (base, col, w, q, rank), in time linear in the output however
 * dense the input.
 */
struct enc {
	int64_t n;
	int64_t group;	/* tasks per vertex, 1: a task each (version 2) */
	int64_t m;	/* edges of A (i < j) */
	double wmax;
	double win;	/* their total weight */
	double sf;	/* the requested factor */
	double wout;	/* heaviest candidate left out of the CSR, -1: none */
	int64_t nforced;
	int64_t ncand;	/* ranked candidates in the CSR, at most max_edges - nforced */
	bool sorted;	/* ranked by priority (else in row order, all kept) */
	int64_t *base;	/* n + 1 */
	int64_t *col;
	double *w;
	uint16_t *q;
	int64_t *rank;
};

/* Edge count, largest weight and total weight of A's upper triangle. */
static void enc_scan(struct enc *E, const topomatch_csr_t *a)
{
	E->n = a->n;
	E->m = 0;
	E->wmax = 0.0;
	E->win = 0.0;
	for (int64_t i = 0; i < a->n; i++)
		for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
			if (a->col[p] <= i)
				continue;
			E->m++;
			E->win += a->w[p];
			if (a->w[p] > E->wmax)
				E->wmax = a->w[p];
		}
}

/*
 * Distance of tasks i and j on the ring of task numbers.  Applications
 * number their neighbours close (a stencil's rows, Bruck's i + 2^k), so
 * among equal weights the short edges carry the structure a mapper needs,
 * and cost fewer bytes.  Measured on Bruck's all-to-all of 8,192 tasks,
 * 21 % of its edges kept (48 KiB, version 1), mapped in blocks onto 512
 * free Curie nodes: 745,040 hop-bytes with equal weights in hash order,
 * 676,280 shortest first (652,482 in rank order, 627,904 whole).
 */
static int64_t ring_dist(int64_t i, int64_t j, int64_t n)
{
	int64_t d = j > i ? j - i : i - j;

	return n - d < d ? n - d : d;
}

/* Each task's heaviest neighbour in A (ties: the nearest on the ring, then
 * the lowest column), -1: none. */
static int64_t *heaviest_neighbours(const topomatch_csr_t *a)
{
	int64_t *best = tm_alloc(a->n, sizeof(*best));

	if (!best)
		return NULL;
	for (int64_t i = 0; i < a->n; i++) {
		best[i] = -1;
		double bw = -1.0;
		int64_t bd = INT64_MAX;
		for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
			int64_t d = ring_dist(i, a->col[p], a->n);
			if (a->w[p] > bw || (a->w[p] == bw && d < bd)) {
				bw = a->w[p];
				bd = d;
				best[i] = a->col[p];
			}
		}
	}
	return best;
}

/* Spread ties over the pattern: a fixed mix of the edge's ends. */
static uint64_t edge_hash(int64_t i, int64_t j)
{
	uint64_t x = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)j;

	x ^= x >> 30;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 27;
	x *= UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

struct prio {
	double w;
	int64_t d; /* ring_dist */
	uint64_t h;
	int64_t e;
};

/* Heaviest first; equal weights the nearest first, then in hash order,
 * then edge order (total). */
static inline int prio_cmp(const void *x, const void *y)
{
	const struct prio *a = x, *b = y;

	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

static void prio_swap(struct prio *v, int64_t a, int64_t b)
{
	struct prio t = v[a];

	v[a] = v[b];
	v[b] = t;
}

/*
 * Put v[k] where a full sort would, smaller ones before and larger after
 * (Hoare's selection with a median of three; keys are distinct).
 */
static void prio_select(struct prio *v, int64_t n, int64_t k)
{
	int64_t lo = 0, hi = n - 1;

	while (hi > lo) {
		int64_t mid = lo + (hi - lo) / 2;
		if (prio_cmp(&v[mid], &v[lo]) < 0)
			prio_swap(v, mid, lo);
		if (prio_cmp(&v[hi], &v[lo]) < 0)
			prio_swap(v, hi, lo);
		if (prio_cmp(&v[hi], &v[mid]) < 0)
			prio_swap(v, hi, mid);
		struct prio p = v[mid];
		int64_t i = lo, j = hi;
		while (i <= j) {
			while (prio_cmp(&v[i], &p) < 0)
				i++;
			while (prio_cmp(&v[j], &p) > 0)
				j--;
			if (i <= j)
				prio_swap(v, i++, j--);
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

static bool prio_before(const struct prio *a, const struct prio *b)
{
	return prio_cmp(a, b) < 0;
}

/*
 * v[0..n) in prio_cmp's order: a bottom-up merge sort through tmp (n
 * entries) with the comparison inlined.  The order is total, so this is
 * the order qsort gave, which took 14 % of a replay's time on jobs of
 * 4,096+ tasks (its comparisons through a pointer and element copies by
 * size); false when tmp cannot be had (then qsort).
 */
static bool prio_sort(struct prio *v, int64_t n)
{
	struct prio *tmp = n > 1 ? tm_alloc(n, sizeof(*tmp)) : NULL, *src = v, *dst = tmp;
	if (n > 1 && !tmp)
		return false;
	for (int64_t width = 1; width < n; width *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * width) {
			int64_t mid = lo + width < n ? lo + width : n;
			int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			int64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = prio_before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct prio *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, (size_t)n * sizeof(*v));
	free(tmp);
	return true;
}

/*
 * rank[e] for every edge e of A's upper triangle (row order): -1 when it
 * is a task's heaviest, INT64_MAX otherwise; the candidates of the sparse
 * factor go to order[].  Returns their number.
 */
static int64_t enc_candidates(struct enc *E, const topomatch_csr_t *a, const int64_t *best,
			      int64_t *rank, struct prio *order)
{
	double cut = E->wmax * E->sf;
	int64_t e = 0, nc = 0;

	E->nforced = 0;
	for (int64_t i = 0; i < a->n; i++)
		for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
			int64_t j = a->col[p];
			if (j <= i)
				continue;
			rank[e] = INT64_MAX;
			if (best[i] == j || best[j] == i) {
				rank[e] = -1;
				E->nforced++;
			} else if (a->w[p] > cut || a->w[p] == E->wmax) {
				order[nc++] = (struct prio){ a->w[p], ring_dist(i, j, a->n),
							     edge_hash(i, j), e };
			}
			e++;
		}
	return nc;
}

/*
 * Rank the candidates 0 .. ncand-1 by priority, at most `room` of them
 * (the rest can never fit: rank stays INT64_MAX, the heaviest in wout).
 * Unless `sort`, candidates that all fit room are ranked in row order
 * instead: when the payload holds every one of them, their order changes
 * nothing, and sorting them took most of the encoder's time (E->sorted
 * says which was done).
 */
static int enc_rank(struct enc *E, const topomatch_csr_t *a, int64_t room, bool sort,
		    int64_t *rank)
{
	int64_t *best = heaviest_neighbours(a);
	struct prio *order = tm_alloc(E->m, sizeof(*order));

	if (!best || !order) {
		free(best);
		free(order);
		return TOPOMATCH_ENOMEM;
	}
	int64_t nc = enc_candidates(E, a, best, rank, order);
	free(best);
	room = room - E->nforced > 0 ? room - E->nforced : 0;
	E->wout = -1.0;
	E->ncand = nc;
	E->sorted = sort || nc > room;
	if (!E->sorted) {
		for (int64_t k = 0; k < nc; k++)
			rank[order[k].e] = k;
		free(order);
		return TOPOMATCH_OK;
	}
	if (nc > room) {
		prio_select(order, nc, room);
		E->wout = order[room].w;
		E->ncand = room;
	}
	if (!prio_sort(order, E->ncand))
		qsort(order, (size_t)E->ncand, sizeof(*order), prio_cmp);
	for (int64_t k = 0; k < E->ncand; k++)
		rank[order[k].e] = k;
	free(order);
	return TOPOMATCH_OK;
}

/* The CSR of the edges that can be kept (rank < INT64_MAX). */
static int enc_compact(struct enc *E, const topomatch_csr_t *a, const int64_t *rank)
{
	int64_t c = E->nforced + E->ncand, e = 0;

	E->base = tm_alloc(E->n + 1, sizeof(*E->base));
	E->col = tm_alloc(c, sizeof(*E->col));
	E->w = tm_alloc(c, sizeof(*E->w));
	E->q = tm_alloc(c, sizeof(*E->q));
	E->rank = tm_alloc(c, sizeof(*E->rank));
	if (!E->base || !E->col || !E->w || !E->q || !E->rank)
		return TOPOMATCH_ENOMEM;
	c = 0;
	for (int64_t i = 0; i < a->n; i++) {
		E->base[i] = c;
		for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
			if (a->col[p] <= i || rank[e++] == INT64_MAX)
				continue;
			E->col[c] = a->col[p];
			E->w[c] = a->w[p];
			E->q[c] = (uint16_t)weight_code(a->w[p] / E->wmax);
			E->rank[c] = rank[e - 1];
			c++;
		}
	}
	E->base[a->n] = c;
	return TOPOMATCH_OK;
}

/* Edges of row i kept at cut K. */
static uint64_t row_count(const struct enc *E, int64_t i, int64_t K)
{
	uint64_t c = 0;

	for (int64_t e = E->base[i]; e < E->base[i + 1]; e++)
		c += E->rank[e] < K;
	return c;
}

/* Total weight kept at cut K, summed in the order of E->win (so <= it). */
static double kept_weight(const struct enc *E, int64_t K)
{
	double s = 0.0;

	for (int64_t e = 0; e < E->base[E->n]; e++)
		if (E->rank[e] < K)
			s += E->w[e];
	return s;
}

/* Weight of the heaviest edge dropped at cut K (-1: none but the factor's). */
static double heaviest_dropped(const struct enc *E, int64_t K)
{
	if (K >= E->ncand)
		return E->wout;
	for (int64_t e = 0; e < E->base[E->n]; e++)
		if (E->rank[e] == K)
			return E->w[e];
	return -1.0;
}

/* Next edge of row i at or after e kept at cut K (E->base[i + 1]: none). */
static int64_t next_kept(const struct enc *E, int64_t i, int64_t e, int64_t K)
{
	while (e < E->base[i + 1] && E->rank[e] >= K)
		e++;
	return e;
}

/* Does row i (> 0) keep the edges of row i - 1 at cut K, shifted by one? */
static bool row_repeats(const struct enc *E, int64_t i, int64_t K)
{
	int64_t e = next_kept(E, i, E->base[i], K), f = next_kept(E, i - 1, E->base[i - 1], K);

	for (; e < E->base[i + 1] && f < E->base[i]; e = next_kept(E, i, e + 1, K),
						      f = next_kept(E, i - 1, f + 1, K))
		if (E->col[e] - i != E->col[f] - (i - 1) || E->q[e] != E->q[f])
			return false;
	return e == E->base[i + 1] && f == E->base[i];
}

/* Write (or, with w->buf NULL, measure) the payload at cut K. */
static void emit(const struct enc *E, int64_t K, double wkept, double sf, struct wr *w)
{
	uint16_t pred[1 << PRED_BITS] = { 0 };

	put_varint(w, (uint64_t)E->n);
	if (E->group > 1)
		put_varint(w, (uint64_t)E->group);
	put_varint(w, (uint64_t)(E->nforced + (K < E->ncand ? K : E->ncand)));
	put_varint(w, (uint64_t)E->m);
	put_double(w, E->wmax > 0.0 ? E->wmax : 1.0);
	put_double(w, E->win);
	put_double(w, wkept);
	put_double(w, sf);
	for (int64_t i = 0; i < E->n; i++) {
		int64_t run = 0;
		while (i + run > 0 && i + run < E->n && row_repeats(E, i + run, K))
			run++;
		if (run > 0) {
			put_varint(w, (uint64_t)(run - 1) << 1 | 1);
			i += run - 1;
			continue;
		}
		put_varint(w, row_count(E, i, K) << 1);
		int64_t prev = i;
		for (int64_t e = E->base[i]; e < E->base[i + 1]; e++) {
			if (E->rank[e] >= K)
				continue;
			int64_t j = E->col[e];
			uint16_t *pq = &pred[pred_slot(j - i)];
			unsigned same = E->q[e] == *pq;
			put_varint(w, (uint64_t)(j - prev - 1) << 1 | same);
			if (!same)
				put_varint(w, E->q[e]);
			*pq = E->q[e];
			prev = j;
		}
	}
}

static size_t payload_len(const struct enc *E, int64_t K)
{
	struct wr w = { NULL, 0 };

	emit(E, K, 0.0, 0.0, &w);
	return w.len;
}

/* Base64 characters per entry (a multiple of 4). */
static size_t entry_room(const topomatch_blob_limits_t *lim)
{
	return (lim->max_entry - 1 - HDR_LEN) / 4 * 4;
}

/* Does a payload of L bytes fit?  *nent: how many entries it takes. */
static bool fits(size_t L, const topomatch_blob_limits_t *lim, int *nent)
{
	if ((uint64_t)L > MAX_PAYLOAD)
		return false;
	uint64_t chars = b64_len(L), room = entry_room(lim);
	uint64_t n = chars ? (chars + room - 1) / room : 1;
	if (n > TOPOMATCH_BLOB_MAX_ENTRIES)
		return false;
	*nent = (int)n;
	return chars + n * (HDR_LEN + 1) <= (uint64_t)lim->max_total;
}

/* A cut K in [0, ncand] whose payload fits (K = 0 does), the largest
 * when sizes grow with K. */
static int64_t choose_cut(const struct enc *E, const topomatch_blob_limits_t *lim)
{
	int nent;

	if (fits(payload_len(E, E->ncand), lim, &nent))
		return E->ncand;
	/* sizes grow with K but where an edge completes a repeated row */
	int64_t lo = 0, hi = E->ncand;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (fits(payload_len(E, mid), lim, &nent))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void b64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		size_t nc = n - i >= 3 ? 4 : n - i + 1;
		for (size_t c = 0; c < nc; c++)
			out[k++] = b64_alphabet[(v >> (18 - 6 * c)) & 63];
	}
	out[k] = '\0';
}

void topomatch_blob_free(char **entries, int nentries)
{
	if (!entries)
		return;
	for (int k = 0; k < nentries; k++)
		free(entries[k]);
	free(entries);
}

/* nd lowercase hex digits of v, no NUL. */
static void put_hex(char *s, int nd, uint64_t v)
{
	for (int k = nd - 1; k >= 0; k--, v >>= 4)
		s[k] = "0123456789abcdef"[v & 15];
}

/* Split the base64 text into nent self-describing entries. */
static int make_entries(const char *text, size_t chars, size_t L, uint64_t sum, int ver,
			int nent, size_t room, char ***out)
{
	char **v = calloc((size_t)nent, sizeof(*v));

	if (!v)
		return TOPOMATCH_ENOMEM;
	for (int k = 0; k < nent; k++) {
		size_t off = (size_t)k * room;
		size_t len = chars - off < room ? chars - off : room;
		v[k] = malloc(HDR_LEN + len + 1);
		if (!v[k]) {
			topomatch_blob_free(v, nent);
			return TOPOMATCH_ENOMEM;
		}
		memcpy(v[k], BLOB_MAGIC, 4);
		put_hex(v[k] + 4, 2, (uint64_t)ver);
		put_hex(v[k] + 6, 4, (uint64_t)k);
		put_hex(v[k] + 10, 4, (uint64_t)nent);
		put_hex(v[k] + 14, 8, L);
		put_hex(v[k] + 22, 16, sum);
		memcpy(v[k] + HDR_LEN, text + off, len);
		v[k][HDR_LEN + len] = '\0';
	}
	*out = v;
	return TOPOMATCH_OK;
}

/* Payload at cut K -> entries. */
static int enc_write(const struct enc *E, int64_t K, double sf, const topomatch_blob_limits_t *lim,
		     char ***entries, int *nentries, size_t *bytes)
{
	size_t L = payload_len(E, K);
	uint8_t *buf = malloc(L);
	char *text = malloc((size_t)b64_len(L) + 1);
	int rc = TOPOMATCH_ENOMEM;

	if (buf && text) {
		struct wr w = { buf, 0 };
		emit(E, K, kept_weight(E, K), sf, &w);
		b64_encode(buf, L, text);
		size_t chars = (size_t)b64_len(L);
		fits(L, lim, nentries);
		rc = make_entries(text, chars, L, fnv1a64(buf, L), E->group > 1 ? 3 : 2, *nentries,
				  entry_room(lim), entries);
		*bytes = chars + (size_t)*nentries * (HDR_LEN + 1);
	}
	if (rc != TOPOMATCH_OK)
		*nentries = 0;
	free(buf);
	free(text);
	return rc;
}

static void enc_free(struct enc *E)
{
	free(E->base);
	free(E->col);
	free(E->w);
	free(E->q);
	free(E->rank);
	E->base = E->col = E->rank = NULL;
	E->w = NULL;
	E->q = NULL;
}

static int enc_check(const topomatch_affinity_t *a, double sf, const topomatch_blob_limits_t *lim,
		     char ***entries, int *nentries, char *err)
{
	if (!a || !entries || !nentries)
		return tm_err(err, TOPOMATCH_EINVAL, "pattern blob: NULL argument");
	if (!(sf >= 0.0 && sf <= 1.0))
		return tm_err(err, TOPOMATCH_EINVAL, "pattern blob: sparse factor %g not in [0, 1]",
			      sf);
	if (topomatch_affinity_ntasks(a) > lim->max_tasks)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "pattern blob: %lld tasks, more than the limit of %lld",
			      (long long)topomatch_affinity_ntasks(a), (long long)lim->max_tasks);
	return TOPOMATCH_OK;
}

/* The candidates ranked (sorted by priority or not, enc_rank) into the
 * compact CSR. */
static int enc_ranked(struct enc *E, const topomatch_csr_t *a, int64_t room, bool sort)
{
	int64_t *rank = tm_alloc(E->m, sizeof(*rank));
	int rc = rank ? enc_rank(E, a, room, sort, rank) : TOPOMATCH_ENOMEM;

	enc_free(E); /* a compact CSR of an earlier ranking */
	if (rc == TOPOMATCH_OK)
		rc = enc_compact(E, a, rank);
	free(rank);
	return rc;
}

/* Rank, compact, sparsify to fit, write; fills info. */
static int enc_run(struct enc *E, const topomatch_csr_t *a, const topomatch_blob_limits_t *lim,
		   char ***entries, int *nentries, topomatch_blob_info_t *info, char *err)
{
	int nent;
	int rc = enc_ranked(E, a, lim->max_edges, false);

	if (rc != TOPOMATCH_OK)
		return tm_err(err, rc, "pattern blob: out of memory");
	if (E->nforced > lim->max_edges)
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "pattern blob: %lld tasks need %lld edges (one per task), more than "
			      "the limit of %lld",
			      (long long)E->n, (long long)E->nforced, (long long)lim->max_edges);
	/* the forced edges alone (whatever the ranking) must fit: else no
	 * cut does, and the candidates need no sorting to find that out */
	if (!fits(payload_len(E, 0), lim, &nent))
		return tm_err(err, TOPOMATCH_ELIMIT,
			      "pattern blob: %lld tasks do not fit in %zu bytes (entries of %zu) "
			      "even with one edge per task",
			      (long long)E->n, lim->max_total, lim->max_entry);
	/* every candidate kept: no order needed; else rank them to cut */
	if (!E->sorted && !fits(payload_len(E, E->ncand), lim, &nent) &&
	    (rc = enc_ranked(E, a, lim->max_edges, true)) != TOPOMATCH_OK)
		return tm_err(err, rc, "pattern blob: out of memory");
	int64_t K = !E->sorted ? E->ncand : choose_cut(E, lim);
	/* every dropped edge weighs <= sf x wmax */
	double sf = E->sf, wd = heaviest_dropped(E, K);
	if (wd > 0.0 && wd / E->wmax > sf)
		sf = wd / E->wmax;
	size_t bytes = 0;
	rc = enc_write(E, K, sf, lim, entries, nentries, &bytes);
	if (rc != TOPOMATCH_OK)
		return tm_err(err, rc, "pattern blob: out of memory");
	info->ntasks = E->n * E->group;
	info->group = E->group;
	info->nnz_input = E->m;
	info->nnz_kept = E->nforced + K;
	info->weight_input = E->win;
	info->weight_kept = kept_weight(E, K);
	info->sparse_factor = sf;
	info->bytes = bytes;
	return TOPOMATCH_OK;
}

/* One blob of a, each vertex `group` tasks (1: a's tasks themselves). */
static int encode_as(const topomatch_affinity_t *a, int64_t group, double sf,
		     const topomatch_blob_limits_t *l, char ***entries, int *nentries,
		     topomatch_blob_info_t *info, char *err)
{
	int rc = enc_check(a, sf, l, entries, nentries, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	topomatch_csr_t A = topomatch_affinity_symmetric(a);
	struct enc E = { .sf = sf, .group = group };
	enc_scan(&E, &A);
	if (E.m > 0 && E.wmax < MIN_WMAX)
		/* weights this small would decode to subnormals or zero */
		rc = tm_err(err, TOPOMATCH_EINVAL,
			    "pattern blob: the largest weight %g is below 2^-958; scale the pattern",
			    E.wmax);
	else
		rc = enc_run(&E, &A, l, entries, nentries, info, err);
	enc_free(&E);
	return rc;
}

/* The group sizes tried after g (0 when none is left): the powers of two
 * dividing n, then its other divisors, each up to most. */
static int64_t next_group(int64_t n, int64_t g, int64_t most)
{
	bool pow2 = !(g & (g - 1));
	for (int64_t h = pow2 ? 2 * g : g + 1; pow2 && h <= most && h <= n; h *= 2)
		if (n % h == 0)
			return h;
	for (int64_t h = pow2 ? 3 : g + 1; h <= most && h <= n; h++)
		if (n % h == 0 && (h & (h - 1)))
			return h;
	return 0;
}

/* The pattern in the smallest groups that fit (lim->max_group); rc and
 * err the one-by-one attempt's when none does. */
static int encode_groups(const topomatch_affinity_t *a, double sf,
			 const topomatch_blob_limits_t *l, char ***entries, int *nentries,
			 topomatch_blob_info_t *info, int rc, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t most = l->max_group < TOPOMATCH_BLOB_MAX_GROUP ? l->max_group
							       : TOPOMATCH_BLOB_MAX_GROUP;
	char gerr[TOPOMATCH_ERRLEN], first[TOPOMATCH_ERRLEN];
	snprintf(first, sizeof(first), "%s", err ? err : "");
	for (int64_t g = next_group(n, 1, most); g > 0; g = next_group(n, g, most)) {
		topomatch_affinity_t *q = NULL;
		int grc = tm_affinity_groups(a, g, &q, gerr);
		if (grc == TOPOMATCH_OK)
			grc = encode_as(q, g, sf, l, entries, nentries, info, gerr);
		topomatch_affinity_destroy(q);
		if (grc != TOPOMATCH_ELIMIT)
			return grc == TOPOMATCH_OK ? grc : tm_err(err, grc, "%s", gerr);
	}
	return tm_err(err, rc, "%s, nor in groups of consecutive tasks (up to %lld dividing %lld)",
		      first, (long long)most, (long long)n);
}

int topomatch_blob_encode(const topomatch_affinity_t *a, double sparse_factor,
			  const topomatch_blob_limits_t *lim, char ***entries, int *nentries,
			  topomatch_blob_info_t *info, char *err)
{
	topomatch_blob_limits_t l;
	topomatch_blob_info_t dummy;
	int rc = blob_limits(lim, &l, err);

	if (entries)
		*entries = NULL;
	if (nentries)
		*nentries = 0;
	if (rc != TOPOMATCH_OK)
		return rc;
	rc = encode_as(a, 1, sparse_factor, &l, entries, nentries, info ? info : &dummy, err);
	if (rc == TOPOMATCH_ELIMIT && l.max_group > 1)
		rc = encode_groups(a, sparse_factor, &l, entries, nentries, info ? info : &dummy,
				   rc, err);
	return rc;
}

/* ---------------------------------------------------------------- decoder */

/* What an entry header says. */
struct hdr {
	uint64_t ver;
	uint64_t idx;
	uint64_t count;
	uint64_t len;
	uint64_t sum;
};

/* nd lowercase hex digits (the one spelling the encoder writes). */
static bool parse_hex(const char *s, int nd, uint64_t *v)
{
	*v = 0;
	for (int k = 0; k < nd; k++) {
		int d;
		if (s[k] >= '0' && s[k] <= '9')
			d = s[k] - '0';
		else if (s[k] >= 'a' && s[k] <= 'f')
			d = s[k] - 'a' + 10;
		else
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	return true;
}

/* Parse the header of entry k (len characters, not counting the NUL). */
static int entry_header(const char *s, size_t len, int k, struct hdr *h, char *err)
{
	size_t nm = len < 4 ? len : 4;

	if (memcmp(s, BLOB_MAGIC, nm) != 0 || len == 0)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: not a topomatch pattern (bad magic)", k);
	if (len < HDR_LEN)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: truncated header (%zu of %d characters)", k, len,
			      HDR_LEN);
	if (!parse_hex(s + 4, 2, &h->ver))
		return tm_err(err, TOPOMATCH_EPARSE, "pattern entry %d: malformed header", k);
	if (h->ver < 1 || h->ver > BLOB_VERSION)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: unsupported format version %u (this build reads "
			      "1 to %d)",
			      k, (unsigned)h->ver, BLOB_VERSION);
	if (!parse_hex(s + 6, 4, &h->idx) || !parse_hex(s + 10, 4, &h->count) ||
	    !parse_hex(s + 14, 8, &h->len) || !parse_hex(s + 22, 16, &h->sum))
		return tm_err(err, TOPOMATCH_EPARSE, "pattern entry %d: malformed header", k);
	return TOPOMATCH_OK;
}

/* Entry k's header against entry 0's and its place. */
static int entry_place(const struct hdr *h, const struct hdr *h0, int k, int n, char *err)
{
	if (h->count != (uint64_t)n)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: part of a %u-entry pattern, but %d entries were given",
			      k, (unsigned)h->count, n);
	if (h->idx != (uint64_t)k)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: holds part %u (entries missing or out of order)",
			      k, (unsigned)h->idx);
	if (h->len != h0->len || h->sum != h0->sum || h->ver != h0->ver)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern entry %d: belongs to another pattern (version, length or "
			      "checksum differs from entry 0)",
			      k);
	return TOPOMATCH_OK;
}

/*
 * Lengths (bounded by the limits: strnlen never looks further) and
 * headers of all entries; *h0 gets the common header.
 */
static int check_entries(const char *const *v, int n, const topomatch_blob_limits_t *lim,
			 size_t *len, struct hdr *h0, char *err)
{
	uint64_t total = 0, chars = 0;

	for (int k = 0; k < n; k++) {
		if (!v[k])
			return tm_err(err, TOPOMATCH_EINVAL, "pattern entry %d is NULL", k);
		len[k] = strnlen(v[k], lim->max_entry);
		if (len[k] >= lim->max_entry)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "pattern entry %d: longer than the limit of %zu bytes", k,
				      lim->max_entry);
		total += len[k] + 1;
		if (total > lim->max_total)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "pattern entries: more than the limit of %zu bytes in all",
				      lim->max_total);
		struct hdr h;
		int rc = entry_header(v[k], len[k], k, k ? &h : h0, err);
		if (rc == TOPOMATCH_OK)
			rc = entry_place(k ? &h : h0, h0, k, n, err);
		if (rc != TOPOMATCH_OK)
			return rc;
		size_t d = len[k] - HDR_LEN;
		if (d == 0)
			return tm_err(err, TOPOMATCH_EPARSE, "pattern entry %d: no data", k);
		if (k < n - 1 && d % 4)
			return tm_err(err, TOPOMATCH_EPARSE,
				      "pattern entry %d: %zu data characters, not a multiple of 4",
				      k, d);
		chars += d;
	}
	if (chars != b64_len(h0->len))
		return tm_err(err, TOPOMATCH_EPARSE,
			      "pattern data: %llu characters where the header announces %llu bytes "
			      "(%llu characters): truncated or extended",
			      (unsigned long long)chars, (unsigned long long)h0->len,
			      (unsigned long long)b64_len(h0->len));
	return TOPOMATCH_OK;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

/*
 * Decode d characters of entry k into out at *pos.  Groups of 4 give 3
 * bytes; a final group of 2 or 3 gives 1 or 2, its unused bits must be 0.
 */
static int b64_part(const char *s, size_t d, int k, uint8_t *out, size_t *pos, char *err)
{
	for (size_t i = 0; i < d; i += 4) {
		size_t nc = d - i < 4 ? d - i : 4;
		uint32_t v = 0;
		for (size_t c = 0; c < 4; c++) {
			int x = c < nc ? b64_value((unsigned char)s[i + c]) : 0;
			if (x < 0)
				return tm_err(err, TOPOMATCH_EPARSE,
					      "pattern entry %d: invalid character at offset %zu",
					      k, HDR_LEN + i + c);
			v = v << 6 | (uint32_t)x;
		}
		/* nc == 1 cannot happen: check_entries matched the length */
		size_t nb = nc - 1;
		if (nc < 4 && (v & (0xffffffu >> (8 * nb))))
			return tm_err(err, TOPOMATCH_EPARSE,
				      "pattern entry %d: non-zero padding bits at the end", k);
		for (size_t b = 0; b < nb; b++)
			out[(*pos)++] = (uint8_t)(v >> (16 - 8 * b));
	}
	return TOPOMATCH_OK;
}

/* Payload reader: errors name the byte offset. */
struct rd {
	const uint8_t *base;
	const uint8_t *p;
	const uint8_t *end;
	char *err;
};

static size_t rd_off(const struct rd *r)
{
	return (size_t)(r->p - r->base);
}

static int rd_varint(struct rd *r, const char *what, uint64_t *v)
{
	size_t at = rd_off(r);
	uint64_t x = 0;

	for (int shift = 0;; shift += 7) {
		if (r->p == r->end)
			return tm_err(r->err, TOPOMATCH_EPARSE, "pattern byte %zu: %s: truncated",
				      at, what);
		uint8_t b = *r->p++;
		if (shift == 63 && b > 1)
			break;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (b == 0 && shift > 0)
				return tm_err(r->err, TOPOMATCH_EPARSE,
					      "pattern byte %zu: %s: non-minimal number", at, what);
			*v = x;
			return TOPOMATCH_OK;
		}
		if (shift == 63)
			break;
	}
	return tm_err(r->err, TOPOMATCH_EPARSE, "pattern byte %zu: %s: number too large", at,
		      what);
}

static int rd_double(struct rd *r, const char *what, double *d)
{
	if (r->end - r->p < 8)
		return tm_err(r->err, TOPOMATCH_EPARSE, "pattern byte %zu: %s: truncated",
			      rd_off(r), what);
	uint64_t u = 0;
	for (int k = 0; k < 8; k++)
		u |= (uint64_t)r->p[k] << (8 * k);
	r->p += 8;
	memcpy(d, &u, sizeof(*d));
	return TOPOMATCH_OK;
}

/* Header of the payload, as read. */
struct phdr {
	uint64_t ver; /* of the entries */
	uint64_t n;
	uint64_t group; /* 1 before version 3 */
	uint64_t nnz;
	uint64_t nnz_input;
	double wmax;
	double win;
	double wkept;
	double sf;
};

static int rd_phdr(struct rd *r, struct phdr *h)
{
	int rc = rd_varint(r, "task count", &h->n);

	h->group = 1;
	if (rc == TOPOMATCH_OK && h->ver >= 3)
		rc = rd_varint(r, "group size", &h->group);
	if (rc == TOPOMATCH_OK)
		rc = rd_varint(r, "edge count", &h->nnz);
	if (rc == TOPOMATCH_OK)
		rc = rd_varint(r, "input edge count", &h->nnz_input);
	if (rc == TOPOMATCH_OK)
		rc = rd_double(r, "largest weight", &h->wmax);
	if (rc == TOPOMATCH_OK)
		rc = rd_double(r, "input weight", &h->win);
	if (rc == TOPOMATCH_OK)
		rc = rd_double(r, "kept weight", &h->wkept);
	if (rc == TOPOMATCH_OK)
		rc = rd_double(r, "sparse factor", &h->sf);
	return rc;
}

/*
 * Ranges of the payload header.  In version 1 each row and each edge
 * takes at least a byte, so n + nnz <= the bytes left; in version 2
 * repeated rows take none, and the limits bound n and nnz.  Either way
 * every allocation is bounded before it is made.
 */
static int check_phdr(const struct rd *r, const struct phdr *h, const topomatch_blob_limits_t *lim)
{
	uint64_t left = (uint64_t)(r->end - r->p);

	if (h->n == 0)
		return tm_err(r->err, TOPOMATCH_EPARSE, "pattern: no task");
	if (h->n > (uint64_t)lim->max_tasks)
		return tm_err(r->err, TOPOMATCH_ELIMIT,
			      "pattern: %llu tasks, more than the limit of %lld",
			      (unsigned long long)h->n, (long long)lim->max_tasks);
	if (h->ver >= 3 && (h->group < 2 || h->group > TOPOMATCH_BLOB_MAX_GROUP))
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: group of %llu tasks (version 3 holds 2 to %d)",
			      (unsigned long long)h->group, TOPOMATCH_BLOB_MAX_GROUP);
	if (h->n > (uint64_t)INT64_MAX / h->group)
		return tm_err(r->err, TOPOMATCH_EPARSE, "pattern: %llu groups of %llu tasks",
			      (unsigned long long)h->n, (unsigned long long)h->group);
	if (h->ver == 1 && (h->n > left || h->nnz > left - h->n))
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: %llu tasks and %llu edges cannot fit in the %llu bytes left",
			      (unsigned long long)h->n, (unsigned long long)h->nnz,
			      (unsigned long long)left);
	if (h->nnz > (uint64_t)lim->max_edges)
		return tm_err(r->err, TOPOMATCH_ELIMIT,
			      "pattern: %llu edges, more than the limit of %lld",
			      (unsigned long long)h->nnz, (long long)lim->max_edges);
	uint64_t pairs = h->n >> 32 ? UINT64_MAX : h->n * (h->n - 1) / 2;
	if (h->nnz > h->nnz_input || h->nnz_input > pairs)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: edge counts %llu kept of %llu out of range for %llu tasks",
			      (unsigned long long)h->nnz, (unsigned long long)h->nnz_input,
			      (unsigned long long)h->n);
	if (!(isfinite(h->wmax) && h->wmax >= MIN_WMAX))
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: largest weight %g is not a finite number >= 2^-958",
			      h->wmax);
	if (!(isfinite(h->win) && isfinite(h->wkept) && h->wkept >= 0 && h->wkept <= h->win))
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: inconsistent weight totals (%g kept of %g)", h->wkept,
			      h->win);
	if (!(h->sf >= 0.0 && h->sf <= 1.0))
		return tm_err(r->err, TOPOMATCH_EPARSE, "pattern: sparse factor %g not in [0, 1]",
			      h->sf);
	return TOPOMATCH_OK;
}

/* Directed entries for topomatch_affinity_create: C(i,j) = C(j,i) = A/2;
 * room for cap, grown up to the edges the rows actually hold. */
struct dcoo {
	int64_t n;
	int64_t cap;
	int64_t *src;
	int64_t *dst;
	double *w;
};

/* Room for `need` entries (<= most, else false): the capacity doubled,
 * or more. */
static bool dcoo_reserve(struct dcoo *c, int64_t need, int64_t most)
{
	if (need <= c->cap)
		return true;
	if (need > most)
		return false;
	int64_t cap = c->cap * 2 > need ? c->cap * 2 : need;
	cap = cap < most ? cap : most;
	int64_t *s = realloc(c->src, (size_t)cap * sizeof(*s));
	if (s)
		c->src = s;
	int64_t *d = realloc(c->dst, (size_t)cap * sizeof(*d));
	if (d)
		c->dst = d;
	double *w = realloc(c->w, (size_t)cap * sizeof(*w));
	if (w)
		c->w = w;
	if (!s || !d || !w)
		return false;
	c->cap = cap;
	return true;
}

/* Push (i, j) and (j, i) of half weight h; room for them was made. */
static void dcoo_pair(struct dcoo *c, int64_t i, int64_t j, double h)
{
	c->src[c->n] = i;
	c->dst[c->n] = j;
	c->w[c->n++] = h;
	c->src[c->n] = j;
	c->dst[c->n] = i;
	c->w[c->n++] = h;
}

/* One edge of row i after column prev; pred: the weight predictions. */
static int rd_edge(struct rd *r, const struct phdr *h, int64_t i, int64_t *prev,
		   uint16_t *pred, struct dcoo *c)
{
	uint64_t v, q;
	size_t at = rd_off(r);
	int rc = rd_varint(r, "column", &v);

	if (rc != TOPOMATCH_OK)
		return rc;
	uint64_t gap = v >> 1, room = h->n - (uint64_t)*prev - 1;
	if (gap >= room)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: row %lld: column out of range (gap %llu after "
			      "column %lld, %llu tasks)",
			      at, (long long)i, (unsigned long long)gap, (long long)*prev,
			      (unsigned long long)h->n);
	*prev += 1 + (int64_t)gap;
	uint16_t *pq = &pred[pred_slot(*prev - i)];
	q = *pq;
	if (!(v & 1)) {
		at = rd_off(r);
		rc = rd_varint(r, "weight code", &q);
		if (rc != TOPOMATCH_OK)
			return rc;
		/* the predicted code would have been written as `same` */
		if (q > QMAX || q == *pq)
			return tm_err(r->err, TOPOMATCH_EPARSE,
				      "pattern byte %zu: row %lld: invalid weight code %llu", at,
				      (long long)i, (unsigned long long)q);
	}
	*pq = (uint16_t)q;
	dcoo_pair(c, i, *prev, h->wmax * weight_ratio((unsigned)q) / 2);
	return TOPOMATCH_OK;
}

/*
 * Rows i .. i + rows - 1 as copies of the row whose entries start at
 * c->src[from] (cnt edges, offsets increasing); *seen counts the edges
 * against the header's.
 */
static int rd_repeat(struct rd *r, const struct phdr *h, int64_t i, uint64_t rows, int64_t from,
		     uint64_t cnt, uint64_t *seen, struct dcoo *c, size_t at)
{
	if (i == 0)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: row 0 repeats the row before it", at);
	if (rows > h->n - (uint64_t)i)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: row %lld: %llu repeated rows, past the last task",
			      at, (long long)i, (unsigned long long)rows);
	if (cnt == 0)
		return TOPOMATCH_OK;
	if (rows > (h->nnz - *seen) / cnt)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: row %lld: %llu repeated rows of %llu edges, more "
			      "than the %llu the header announces",
			      at, (long long)i, (unsigned long long)rows, (unsigned long long)cnt,
			      (unsigned long long)h->nnz);
	int64_t last = from + 2 * ((int64_t)cnt - 1), dmax = c->dst[last] - c->src[last];
	if ((uint64_t)(i + dmax) + rows - 1 >= h->n)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: row %lld: a repeated edge of offset %lld goes past "
			      "the last task",
			      at, (long long)i, (long long)dmax);
	*seen += rows * cnt;
	/* c->n + 2 rows cnt <= 2 nnz, the header's, bounded by the limits */
	if (!dcoo_reserve(c, c->n + 2 * (int64_t)(rows * cnt), 2 * (int64_t)h->nnz))
		return tm_err(r->err, TOPOMATCH_ENOMEM, "pattern: out of memory for %llu edges",
			      (unsigned long long)h->nnz);
	for (uint64_t k = 0; k < rows; k++)
		for (int64_t e = from; e <= last; e += 2)
			dcoo_pair(c, i + (int64_t)k, i + (int64_t)k + c->dst[e] - c->src[e], c->w[e]);
	return TOPOMATCH_OK;
}

/* The rows; the edges they hold must be exactly h->nnz. */
static int rd_rows(struct rd *r, const struct phdr *h, struct dcoo *c)
{
	uint16_t pred[1 << PRED_BITS] = { 0 };
	uint64_t seen = 0, last_cnt = 0;
	int64_t last = 0; /* where the last row written out starts in c */

	for (int64_t i = 0; i < (int64_t)h->n; i++) {
		uint64_t cnt;
		size_t at = rd_off(r);
		int rc = rd_varint(r, "row length", &cnt);
		if (rc != TOPOMATCH_OK)
			return rc;
		if (h->ver >= 2 && (cnt & 1)) {
			rc = rd_repeat(r, h, i, (cnt >> 1) + 1, last, last_cnt, &seen, c, at);
			if (rc != TOPOMATCH_OK)
				return rc;
			i += (int64_t)(cnt >> 1);
			continue;
		}
		if (h->ver >= 2)
			cnt >>= 1;
		if (cnt > h->nnz - seen)
			return tm_err(r->err, TOPOMATCH_EPARSE,
				      "pattern byte %zu: row %lld: %llu edges, more than the %llu "
				      "the header announces",
				      at, (long long)i, (unsigned long long)cnt,
				      (unsigned long long)h->nnz);
		seen += cnt;
		last = c->n;
		last_cnt = cnt;
		/* each edge takes a byte: cnt <= the bytes left */
		if (cnt > (uint64_t)(r->end - r->p))
			return tm_err(r->err, TOPOMATCH_EPARSE,
				      "pattern byte %zu: row %lld: %llu edges cannot fit in the %zu "
				      "bytes left",
				      at, (long long)i, (unsigned long long)cnt,
				      (size_t)(r->end - r->p));
		if (!dcoo_reserve(c, c->n + 2 * (int64_t)cnt, 2 * (int64_t)h->nnz))
			return tm_err(r->err, TOPOMATCH_ENOMEM, "pattern: out of memory for %llu edges",
				      (unsigned long long)h->nnz);
		int64_t prev = i;
		for (uint64_t k = 0; k < cnt && rc == TOPOMATCH_OK; k++)
			rc = rd_edge(r, h, i, &prev, pred, c);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	if (seen != h->nnz)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern: rows hold %llu edges, the header announces %llu",
			      (unsigned long long)seen, (unsigned long long)h->nnz);
	if (r->p != r->end)
		return tm_err(r->err, TOPOMATCH_EPARSE,
			      "pattern byte %zu: %zu bytes of trailing garbage after the last row",
			      rd_off(r), (size_t)(r->end - r->p));
	return TOPOMATCH_OK;
}

static void dcoo_free(struct dcoo *c)
{
	free(c->src);
	free(c->dst);
	free(c->w);
}

/* Does an edge have weight wmax (code 0), or are there none? */
static bool has_wmax(const struct dcoo *c, double wmax)
{
	for (int64_t k = 0; k < c->n; k++)
		if (c->w[k] == wmax / 2)
			return true;
	return c->n == 0;
}

/* Payload of version ver -> affinity. */
static int parse_payload(const uint8_t *buf, size_t L, uint64_t ver,
			 const topomatch_blob_limits_t *lim, topomatch_affinity_t **out,
			 struct phdr *h, char *err)
{
	struct rd r = { buf, buf, buf + L, err };
	h->ver = ver;
	int rc = rd_phdr(&r, h);

	if (rc == TOPOMATCH_OK)
		rc = check_phdr(&r, h, lim);
	if (rc != TOPOMATCH_OK)
		return rc;
	/* room for the edges written out (a byte each at least); repeated
	 * rows grow it up to the header's nnz, bounded by the limits */
	int64_t m = 2 * (int64_t)(h->nnz < L ? h->nnz : L);
	struct dcoo c = { 0 };
	if (!dcoo_reserve(&c, m > 0 ? m : 2, 2 * (int64_t)h->nnz + 2))
		rc = tm_err(err, TOPOMATCH_ENOMEM, "pattern: out of memory for %lld edges",
			    (long long)h->nnz);
	if (rc == TOPOMATCH_OK)
		rc = rd_rows(&r, h, &c);
	if (rc == TOPOMATCH_OK && !has_wmax(&c, h->wmax))
		/* the encoder keeps the heaviest edge (it is its task's):
		 * without it every weight could lie below what encodes */
		rc = tm_err(err, TOPOMATCH_EPARSE,
			    "pattern: no edge has the largest weight (weight code 0)");
	if (rc == TOPOMATCH_OK) {
		char e2[TOPOMATCH_ERRLEN];
		rc = topomatch_affinity_create((int64_t)h->n, c.n, c.src, c.dst, c.w, NULL, out,
					       e2);
		/* only ENOMEM, or weights summing past DBL_MAX: a bad blob */
		if (rc != TOPOMATCH_OK)
			rc = tm_err(err, rc == TOPOMATCH_ENOMEM ? rc : TOPOMATCH_EPARSE,
				    "pattern: %s", e2);
	}
	dcoo_free(&c);
	return rc;
}

/* Entries -> payload bytes (*buf malloc'd, hash checked). */
static int gather(const char *const *v, int n, const size_t *len, const struct hdr *h0,
		  uint8_t **buf, char *err)
{
	size_t pos = 0;
	int rc = TOPOMATCH_OK;

	*buf = malloc(h0->len ? (size_t)h0->len : 1);
	if (!*buf)
		return tm_err(err, TOPOMATCH_ENOMEM, "pattern: out of memory");
	for (int k = 0; k < n && rc == TOPOMATCH_OK; k++)
		rc = b64_part(v[k] + HDR_LEN, len[k] - HDR_LEN, k, *buf, &pos, err);
	if (rc == TOPOMATCH_OK && fnv1a64(*buf, pos) != h0->sum)
		rc = tm_err(err, TOPOMATCH_EPARSE,
			    "pattern: checksum mismatch (corrupted or truncated data)");
	if (rc != TOPOMATCH_OK) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

static void decoded_info(const struct phdr *h, const size_t *len, int n,
			 topomatch_blob_info_t *info)
{
	info->ntasks = (int64_t)(h->n * h->group); /* checked: no overflow */
	info->group = (int64_t)h->group;
	info->nnz_input = (int64_t)h->nnz_input;
	info->nnz_kept = (int64_t)h->nnz;
	info->weight_input = h->win;
	info->weight_kept = h->wkept;
	info->sparse_factor = h->sf;
	info->bytes = 0;
	for (int k = 0; k < n; k++)
		info->bytes += len[k] + 1;
}

int topomatch_blob_decode(const char *const *entries, int nentries,
			  const topomatch_blob_limits_t *lim, topomatch_affinity_t **out,
			  topomatch_blob_info_t *info, char *err)
{
	topomatch_blob_limits_t l;
	int rc = blob_limits(lim, &l, err);

	if (out)
		*out = NULL;
	if (info)
		memset(info, 0, sizeof(*info));
	if (rc != TOPOMATCH_OK)
		return rc;
	if (!entries || !out || nentries < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "pattern blob: no entries to decode");
	if (nentries > TOPOMATCH_BLOB_MAX_ENTRIES)
		return tm_err(err, TOPOMATCH_ELIMIT, "pattern blob: %d entries, more than %d",
			      nentries, TOPOMATCH_BLOB_MAX_ENTRIES);
	size_t *len = malloc((size_t)nentries * sizeof(*len));
	struct hdr h0;
	uint8_t *buf = NULL;
	struct phdr ph = { 0 };
	if (!len)
		return tm_err(err, TOPOMATCH_ENOMEM, "pattern: out of memory");
	rc = check_entries(entries, nentries, &l, len, &h0, err);
	if (rc == TOPOMATCH_OK)
		rc = gather(entries, nentries, len, &h0, &buf, err);
	if (rc == TOPOMATCH_OK)
		rc = parse_payload(buf, (size_t)h0.len, h0.ver, &l, out, &ph, err);
	if (rc == TOPOMATCH_OK && info)
		decoded_info(&ph, len, nentries, info);
	if (rc == TOPOMATCH_ELIMIT && info) { /* which limit the header passes */
		info->ntasks = (int64_t)ph.n;
		info->nnz_kept = (int64_t)ph.nnz;
	}
	free(buf);
	free(len);
	return rc;
}

/* ------------------------------------------------------ environment arrays */

/*
 * The index of "PREFIX<k>=value" (canonical decimal, < the entry bound),
 * *value set; -1 when the name lacks the prefix, -2 when it has it but
 * is not one of ours.
 */
static long env_index(const char *s, const char *prefix, size_t plen, const char **value)
{
	if (strncmp(s, prefix, plen) != 0)
		return -1;
	const char *p = s + plen;
	long k = 0;
	int nd = 0;
	for (; *p >= '0' && *p <= '9' && nd < 6; p++, nd++)
		k = k * 10 + (*p - '0');
	if (*p != '=' || nd == 0 || (nd > 1 && s[plen] == '0') ||
	    k >= TOPOMATCH_BLOB_MAX_ENTRIES)
		return -2;
	*value = p + 1;
	return k;
}

/* Count the names with the prefix, and check them. */
static int env_count(const char *const *env, size_t nenv, const char *prefix, int *count,
		     char *err)
{
	size_t plen = strlen(prefix);
	const char *val;

	*count = 0;
	for (size_t i = 0; i < nenv; i++) {
		long k = env[i] ? env_index(env[i], prefix, plen, &val) : -1;
		if (k == -2)
			return tm_err(err, TOPOMATCH_EPARSE,
				      "pattern: environment entry %zu: a %s name without a valid "
				      "index",
				      i, prefix);
		if (k >= 0 && ++*count > TOPOMATCH_BLOB_MAX_ENTRIES)
			return tm_err(err, TOPOMATCH_ELIMIT, "pattern: more than %d %s entries",
				      TOPOMATCH_BLOB_MAX_ENTRIES, prefix);
	}
	return TOPOMATCH_OK;
}

/* Place each value at its index; duplicates and gaps are errors. */
static int env_collect(const char *const *env, size_t nenv, const char *prefix, int count,
		       const char **v, char *err)
{
	size_t plen = strlen(prefix);
	const char *val = NULL;

	for (int k = 0; k < count; k++)
		v[k] = NULL;
	for (size_t i = 0; i < nenv; i++) {
		long k = env[i] ? env_index(env[i], prefix, plen, &val) : -1;
		if (k < 0)
			continue;
		if (k >= count) /* then some index below count is missing */
			return tm_err(err, TOPOMATCH_EPARSE,
				      "pattern: %s%ld set, but %d entries are not numbered 0..%d",
				      prefix, k, count, count - 1);
		if (v[k])
			return tm_err(err, TOPOMATCH_EPARSE, "pattern: %s%ld set twice", prefix, k);
		v[k] = val;
	}
	return TOPOMATCH_OK;
}

int topomatch_blob_decode_env(const char *const *env, size_t nenv, const char *prefix,
			      const topomatch_blob_limits_t *lim, topomatch_affinity_t **out,
			      topomatch_blob_info_t *info, char *err)
{
	int count;

	if (out)
		*out = NULL;
	if (info)
		memset(info, 0, sizeof(*info));
	if (!out || (!env && nenv))
		return tm_err(err, TOPOMATCH_EINVAL, "pattern blob: NULL argument");
	if (!prefix)
		prefix = TOPOMATCH_PATTERN_ENV;
	int rc = env_count(env, nenv, prefix, &count, err);
	if (rc != TOPOMATCH_OK || count == 0)
		return rc;
	const char **v = malloc((size_t)count * sizeof(*v));
	if (!v)
		return tm_err(err, TOPOMATCH_ENOMEM, "pattern: out of memory");
	rc = env_collect(env, nenv, prefix, count, v, err);
	if (rc == TOPOMATCH_OK)
		rc = topomatch_blob_decode(v, count, lim, out, info, err);
	free(v);
	return rc;
}

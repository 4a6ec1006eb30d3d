/*
 * refine.c - local search applied after any mapper (Mapping engine II,
 * item 4): swap two tasks, or move a task into a free PU slot, whenever
 * that lowers the hop-bytes.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Hop-bytes are 1/2 sum over the entries of A = C + C^T of
 * A(i,j) d(s(i), s(j)), d in hops: the metric of metrics.c.
 *
 * Two kinds of steps, both keeping every task on an allowed PU with at
 * most f tasks per PU, and both applied only when they lower hop-bytes:
 *
 *  - blocks (trees, grids, hypercubes): the tasks of two blocks of PUs -
 *    subtrees, aligned boxes of a grid (of whole routers when a tree
 *    hangs below each), subtrees under one router - trade places, each
 *    task going to the same spot in the other block, so that distances
 *    inside a block stay.  Levels go from blocks of half the job down to 2 PUs.
 *    A mapper that placed groups of tasks well but put the groups in the
 *    wrong places (Scotch on a sparsified graph does) is fixed here, which
 *    single swaps cannot do: taking one task out of its group costs more
 *    than it brings.
 *  - tasks: a task u on PU p considers the PUs of its heaviest
 *    neighbours, the PUs next to them, and on grids the PU that minimises
 *    its own cost; on each such PU q, a move into a free slot and a swap
 *    with each task there.  The best one is made even at a loss, then the
 *    task it displaced does the same, and so on up to RF_DEPTH steps (an
 *    ejection chain, which can shift a row of tasks by one); the chain is
 *    kept up to its most profitable step when that gains, undone
 *    otherwise.  Gains come from the sparse rows of the two tasks only,
 *    with cur[] caching each task's own cost; the tasks around a change
 *    go back into a FIFO.
 *
 * The budget counts work, not time, so that the result depends only on
 * the inputs and the seed: one unit per matrix entry read (weighing a
 * candidate costs the row lengths involved + 1), which keeps the time
 * proportional to the budget on dense patterns as on sparse ones.  The
 * wall-clock guard only stops the search early, with the mapping valid
 * and improved so far: refinement is anytime, never an error.
 *
 * Memory is O(ntasks x (ndims + tree levels) + m) words and npu / 4
 * bytes (the allowed PUs as a bitmap with ranks), no n x n array;
 * general graphs add an m x m table of hops among the allowed PUs, and
 * are left alone above RF_GRAPH_MAX allowed PUs.
 */
#include "config.h"
#include "mapper_internal.h"
#include "topology/topology_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Heaviest neighbours of a task (or a block) whose places give candidates. */
#define RF_NBRS 8
/* Steps of an ejection chain. */
#define RF_DEPTH 8
/* Allowed PUs next in number, each side, looked at when some PUs are not. */
#define RF_RANK_NEAR 2
/* PUs (or blocks) looked at under one tree switch. */
#define RF_TREE_NEAR 4
/* Nearest allowed PUs remembered per allowed PU of a general graph. */
#define RF_GRAPH_NEAR 8
/* A graph gets a hop table (m x m uint16) only up to this many PUs... */
#define RF_GRAPH_MAX 2048
/* ...and only when building it visits at most this many vertices + arcs. */
#define RF_GRAPH_BFS_MAX (INT64_C(1) << 28)
/* Candidates of one task: each neighbour's place, what is near it, an optimum. */
#define RF_NEAR_MAX (2 * TOPOMATCH_MAX_DIMS + RF_TREE_NEAR)
#define RF_MAX_CAND ((RF_NBRS + 1) * (1 + RF_NEAR_MAX + 2 * RF_RANK_NEAR))
/* Where a PU is: grid coordinates, then the digits of its tree levels. */
#define RF_MAX_COORDS (TOPOMATCH_MAX_DIMS + TOPOMATCH_MAX_LEVELS)
/* Levels of blocks at most (a grid of 2^26 PUs halves 26 times). */
#define RF_MAX_LEVELS 64
/* Work between two looks at the clock. */
#define RF_GUARD_WORK (INT64_C(1) << 16)
/* Another pass over a level of blocks only after one that gained this much... */
#define RF_PASS_GAIN 0.01
/* ...and another round of all levels and tasks only after one that gained this. */
#define RF_ROUND_GAIN 0.001
/* Gains below this fraction of the costs involved are rounding noise. */
#define RF_EPS 1e-10

/*
 * Blocks of PUs that trade places: subtrees of a tree; on grids, aligned
 * boxes of routers times lsize PUs under each router: the router's whole
 * local tree (lsize = lpus), or one subtree of it when the box is one
 * router (lsize < lpus).
 */
typedef struct rf_level {
	int64_t size;               /* PUs per block */
	int64_t lsize;              /* grids: PUs per block under one router */
	int depth;                  /* trees: the blocks are the subtrees at it */
	int bd[TOPOMATCH_MAX_DIMS]; /* grids: block extent in each dimension */
	int cd[TOPOMATCH_MAX_DIMS]; /* grids: blocks along each dimension */
} rf_level_t;

/* A PU prepared for many distance queries. */
typedef struct rf_at {
	int64_t p;
	int64_t j;                 /* graphs: index among the allowed PUs */
	int x[RF_MAX_COORDS];      /* grid coordinates, then tree digits */
	uint64_t key;              /* trees with keys: the digits packed */
} rf_at_t;

typedef struct rf_move {
	int64_t q;   /* target PU, -1 for none */
	int64_t v;   /* task swapped with, -1 for a move into a free slot */
	double gain;
} rf_move_t;

typedef struct rf {
	const tm_map_ctx_t *c;
	const topomatch_topology_t *t;
	topomatch_csr_t a;
	int64_t n, m;
	int ng;          /* grid dimensions (0 on trees) */
	int nl;          /* tree levels: a tree's, or the local tree's of a grid */
	int nd;          /* ng + nl: coordinates of a PU */
	int64_t *pu;
	/* allowed PUs and the tasks on them */
	uint64_t *bits;  /* allowed PUs as a bitmap over npu */
	int64_t *rank0;  /* allowed PUs below bit 64k: the index of a PU is its rank */
	int64_t *where;  /* index -> PU */
	int64_t *head;   /* index -> first task there, -1 when none */
	int *cnt;        /* index -> tasks there */
	int64_t *next;   /* the tasks of one PU, doubly linked */
	int64_t *prev;
	int *xy;         /* task -> coordinates and digits of its PU (nd each) */
	/* Trees whose digits fit in 63 bits keep one key per task instead:
	 * digit k at bit kshift[k], the root's highest, so that the first
	 * level where two PUs differ is the field of the highest bit of their
	 * XOR (klevel[bit]): a distance is an XOR and a count of leading
	 * zeros, where comparing digits one by one took 12 % of a replay */
	uint64_t *key;
	int kshift[TOPOMATCH_MAX_LEVELS];
	unsigned char klevel[64];
	int64_t *tj;     /* graphs: task -> index of its PU */
	uint16_t *hop;   /* graphs: m x m hops by index */
	int64_t *gnear;  /* graphs: RF_GRAPH_NEAR nearest allowed PUs per index, -1 pads */
	double *cur;     /* task u -> sum_w A(u,w) d(s(u), s(w)) */
	/* work */
	int64_t budget, used;
	int64_t check_at; /* work at the next look at the clock */
	bool expired;
	int64_t *order;  /* every task, in a seeded random order */
	/* task steps */
	int64_t *fifo;   /* ring of n tasks to weigh */
	unsigned char *queued;
	int64_t fhead, flen;
	int64_t *stamp;  /* index -> candidate round that listed it */
	int64_t round;
	int64_t *lock;   /* task -> chain that moved it */
	int64_t chain;
	int depth;       /* steps of a chain: RF_DEPTH, 1 on trees */
	int64_t top[RF_NBRS]; /* heaviest neighbours of the task weighed */
	double topw[RF_NBRS];
	int ntop;
	int64_t cand[RF_MAX_CAND];
	int ncand;
	/* block steps */
	rf_level_t lv[RF_MAX_LEVELS]; /* finest first */
	int nlv;
	const rf_level_t *L;  /* the level searched */
	int64_t *bp1, *bp2;   /* PUs of two blocks, in corresponding order */
	rf_at_t o1, o2;       /* their origins */
	int64_t *seen;        /* task -> block pass that weighed it */
	int64_t pass;
} rf_t;

/* ------------------------------------------------------------ PU index */

static bool rf_allowed(const rf_t *r, int64_t p)
{
	return p >= 0 && p < r->t->npu && (r->bits[p >> 6] >> (p & 63) & 1);
}

/* Index of an allowed PU: its rank among the allowed PUs. */
static int64_t rf_index(const rf_t *r, int64_t p)
{
	uint64_t below = r->bits[p >> 6] & ((UINT64_C(1) << (p & 63)) - 1);
	return r->rank0[p >> 6] + __builtin_popcountll(below);
}

/* Bitmap and ranks of the allowed PUs; EINVAL for a PU out of range or
 * listed twice (mapper.c has checked, but a bad list would write astray). */
static int rf_index_build(rf_t *r)
{
	int64_t words = r->t->npu / 64 + 1;
	r->bits = tm_zalloc(words, sizeof(*r->bits));
	r->rank0 = tm_alloc(words, sizeof(*r->rank0));
	r->where = tm_alloc(r->m, sizeof(*r->where));
	if (!r->bits || !r->rank0 || !r->where)
		return TOPOMATCH_ENOMEM;
	for (int64_t k = 0; k < r->m; k++) {
		int64_t p = r->c->allowed[k];
		if (p < 0 || p >= r->t->npu || rf_allowed(r, p))
			return TOPOMATCH_EINVAL;
		r->bits[p >> 6] |= UINT64_C(1) << (p & 63);
	}
	int64_t sum = 0;
	for (int64_t k = 0; k < words; k++) {
		r->rank0[k] = sum;
		for (uint64_t b = r->bits[k]; b; b &= b - 1)
			r->where[sum++] = 64 * k + __builtin_ctzll(b);
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------ distances */

/* Prepare PU p: its grid coordinates, then its digits in the tree (the
 * child taken at each depth; on grids, in the tree below its router), or
 * its index on a graph. */
static void rf_at(const rf_t *r, int64_t p, rf_at_t *a)
{
	const topomatch_topology_t *t = r->t;
	a->p = p;
	if (t->kind == TOPOMATCH_TOPO_GRAPH) {
		a->j = rf_index(r, p);
		return;
	}
	if (r->key) {
		a->key = 0;
		for (int k = 0; k < t->nlevels; k++)
			a->key |= (uint64_t)(p / t->below[k + 1] % t->arity[k]) << r->kshift[k];
		return;
	}
	for (int k = 0; k < r->ng; k++)
		a->x[k] = (int)tm_grid_coord(t, k, p);
	for (int k = 0; k < r->nl; k++)
		a->x[r->ng + k] = (int)(p / t->below[k + 1] % t->arity[k]);
}

/* The PU of task u prepared, from what rf_link stored: no division. */
static void rf_at_task(const rf_t *r, int64_t u, rf_at_t *a)
{
	a->p = r->pu[u];
	if (r->t->kind == TOPOMATCH_TOPO_GRAPH)
		a->j = r->tj[u];
	else if (r->key)
		a->key = r->key[u];
	else
		memcpy(a->x, r->xy + u * r->nd, (size_t)r->nd * sizeof(int));
}

/*
 * The PU at q of block `to` that sits where the prepared PU a sits in
 * block `from` (grids and trees).  Blocks are aligned (a subtree, a box
 * of routers, a part of a router's tree), so each coordinate moves by the
 * origins' difference with no carry into the next.
 */
static void rf_at_moved(const rf_t *r, const rf_at_t *a, int64_t q, const rf_at_t *from,
			const rf_at_t *to, rf_at_t *out)
{
	out->p = q;
	if (r->key)
		out->key = a->key - from->key + to->key;
	for (int k = 0; k < r->nd; k++)
		out->x[k] = a->x[k] - from->x[k] + to->x[k];
}

static int64_t rf_grid_hops(const rf_t *r, const int *x, const int *y)
{
	int64_t h = 0;
	for (int k = 0; k < r->ng; k++) {
		int d = abs(x[k] - y[k]);
		if (r->t->wrap[k] && r->t->dims[k] - d < d)
			d = r->t->dims[k] - d;
		h += d;
	}
	return h;
}

/* 2 x the levels below the first depth where the digits differ. */
static int64_t rf_tree_hops(const rf_t *r, const int *x, const int *y)
{
	for (int k = 0; k < r->nl; k++)
		if (x[k] != y[k])
			return 2 * (int64_t)(r->nl - k);
	return 0;
}

static inline int64_t rf_key_hops(const rf_t *r, uint64_t x, uint64_t y)
{
	uint64_t d = x ^ y;
	return d ? 2 * (int64_t)(r->nl - r->klevel[63 - __builtin_clzll(d)]) : 0;
}

/* Grids: under one router as in a tree, else up, across and down. */
static int64_t rf_xy_hops(const rf_t *r, const int *x, const int *y)
{
	int64_t h = rf_grid_hops(r, x, y);
	if (h > 0)
		return h + 2 * (int64_t)r->nl;
	return rf_tree_hops(r, x + r->ng, y + r->ng);
}

/* Hops from PU a to the PU of task w. */
static int64_t rf_hops(const rf_t *r, const rf_at_t *a, int64_t w)
{
	switch (r->t->kind) {
	case TOPOMATCH_TOPO_TREE:
		if (r->key)
			return rf_key_hops(r, a->key, r->key[w]);
		return rf_tree_hops(r, a->x, r->xy + w * r->nd);
	case TOPOMATCH_TOPO_GRAPH:
		return r->hop[a->j * r->m + r->tj[w]];
	default: /* torus, mesh; a hypercube is a mesh of 2 x 2 x ... */
		return rf_xy_hops(r, a->x, r->xy + w * r->nd);
	}
}

/* Hops between two prepared PUs. */
static int64_t rf_hops2(const rf_t *r, const rf_at_t *a, const rf_at_t *b)
{
	switch (r->t->kind) {
	case TOPOMATCH_TOPO_TREE:
		if (r->key)
			return rf_key_hops(r, a->key, b->key);
		return rf_tree_hops(r, a->x, b->x);
	case TOPOMATCH_TOPO_GRAPH:
		return r->hop[a->j * r->m + b->j];
	default:
		return rf_xy_hops(r, a->x, b->x);
	}
}

/* ------------------------------------------------------------ tasks on PUs */

/* Put task u on PU p (prepared as a), in p's list (index j). */
static void rf_link(rf_t *r, int64_t u, const rf_at_t *a, int64_t j)
{
	r->pu[u] = a->p;
	if (r->tj)
		r->tj[u] = j;
	if (r->xy)
		memcpy(r->xy + u * r->nd, a->x, (size_t)r->nd * sizeof(int));
	if (r->key)
		r->key[u] = a->key;
	r->prev[u] = -1;
	r->next[u] = r->head[j];
	if (r->head[j] >= 0)
		r->prev[r->head[j]] = u;
	r->head[j] = u;
	r->cnt[j]++;
}

static void rf_unlink(rf_t *r, int64_t u)
{
	int64_t j = rf_index(r, r->pu[u]);
	if (r->prev[u] >= 0)
		r->next[r->prev[u]] = r->next[u];
	else
		r->head[j] = r->next[u];
	if (r->next[u] >= 0)
		r->prev[r->next[u]] = r->prev[u];
	r->cnt[j]--;
}

static void rf_put(rf_t *r, int64_t u, const rf_at_t *a)
{
	rf_unlink(r, u);
	rf_link(r, u, a, rf_index(r, a->p));
}

/* Index the tasks by PU; false when pu[] is not a valid mapping. */
static bool rf_place(rf_t *r)
{
	rf_at_t a;
	for (int64_t j = 0; j < r->m; j++)
		r->head[j] = -1;
	for (int64_t u = 0; u < r->n; u++) {
		int64_t p = r->pu[u];
		if (!rf_allowed(r, p))
			return false;
		int64_t j = rf_index(r, p);
		if (r->cnt[j] >= r->c->f)
			return false;
		rf_at(r, p, &a);
		rf_link(r, u, &a, j);
	}
	return true;
}

/* ------------------------------------------------------------ graphs */

/* Nearest allowed PUs of one BFS, in BFS order (hops, then vertex order). */
static void rf_graph_near(rf_t *r, const tm_bfs_t *b, int64_t j)
{
	const topomatch_topology_t *t = r->t;
	int64_t reached = 0, found = 0;
	for (int64_t v = 0; v < t->nvert; v++)
		reached += b->dist[v] >= 0;
	for (int64_t i = 1; i < reached && found < RF_GRAPH_NEAR; i++) {
		int64_t p = t->vert_pu[b->queue[i]];
		if (p >= 0 && rf_allowed(r, p))
			r->gnear[j * RF_GRAPH_NEAR + found++] = p;
	}
	while (found < RF_GRAPH_NEAR)
		r->gnear[j * RF_GRAPH_NEAR + found++] = -1;
}

/*
 * Hop table among the allowed PUs, one BFS from each.  false: too big,
 * out of memory, past the guard, or hops beyond uint16; the mapping is
 * then left as it is.
 */
static bool rf_graph_build(rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	int64_t visit;
	if (r->m > RF_GRAPH_MAX || !tm_mul_ok(r->m, t->nvert + t->adj_ptr[t->nvert], &visit) ||
	    visit > RF_GRAPH_BFS_MAX)
		return false;
	tm_bfs_t b;
	r->hop = tm_alloc(r->m * r->m, sizeof(*r->hop));
	r->gnear = tm_alloc(r->m * RF_GRAPH_NEAR, sizeof(*r->gnear));
	if (!r->hop || !r->gnear || tm_bfs_init(&b, t->nvert))
		return false;
	bool ok = true;
	for (int64_t j = 0; j < r->m && ok; j++) {
		tm_bfs_run(&b, t, t->pu_vert[r->where[j]]);
		for (int64_t k = 0; k < r->m && ok; k++) {
			int64_t h = b.dist[t->pu_vert[r->where[k]]];
			ok = h >= 0 && h <= UINT16_MAX;
			r->hop[j * r->m + k] = (uint16_t)h;
		}
		rf_graph_near(r, &b, j);
		ok = ok && !tm_ctx_expired(r->c);
	}
	tm_bfs_free(&b);
	return ok;
}

/* ------------------------------------------------------------ costs */

/* Out of work, or past the guard (looked at every RF_GUARD_WORK units). */
static bool rf_stop(rf_t *r)
{
	if (r->used >= r->budget)
		return true;
	if (!r->expired && r->used >= r->check_at) {
		r->check_at = r->used + RF_GUARD_WORK;
		r->expired = tm_ctx_expired(r->c);
	}
	return r->expired;
}

/* sum_w A(u,w) d(q, s(w)), u's neighbours where they are now. */
static double rf_cost(rf_t *r, int64_t u, const rf_at_t *q)
{
	const topomatch_csr_t *a = &r->a;
	double s = 0.0;
	if (r->key) /* the loop of the hot case without a call per entry */
		for (int64_t e = a->rowptr[u]; e < a->rowptr[u + 1]; e++)
			s += a->w[e] * (double)rf_key_hops(r, q->key, r->key[a->col[e]]);
	else
		for (int64_t e = a->rowptr[u]; e < a->rowptr[u + 1]; e++)
			s += a->w[e] * (double)rf_hops(r, q, a->col[e]);
	r->used += a->rowptr[u + 1] - a->rowptr[u] + 1;
	return s;
}

static double rf_cost_here(rf_t *r, int64_t u)
{
	rf_at_t a;
	rf_at_task(r, u, &a);
	return rf_cost(r, u, &a);
}

/* A(u,v), 0 when they do not communicate (rows are sorted by column). */
static double rf_weight(const rf_t *r, int64_t u, int64_t v)
{
	int64_t lo = r->a.rowptr[u], hi = r->a.rowptr[u + 1];
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (r->a.col[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->a.rowptr[u + 1] && r->a.col[lo] == v ? r->a.w[lo] : 0.0;
}

/* ------------------------------------------------------------ candidates */

/* Keep w among the RF_NBRS heaviest seen (ties: the first seen). */
static void rf_top_insert(rf_t *r, int64_t w, double wt)
{
	int k;
	if (r->ntop < RF_NBRS)
		k = r->ntop++;
	else if (wt > r->topw[RF_NBRS - 1])
		k = RF_NBRS - 1;
	else
		return;
	for (; k > 0 && r->topw[k - 1] < wt; k--) {
		r->topw[k] = r->topw[k - 1];
		r->top[k] = r->top[k - 1];
	}
	r->topw[k] = wt;
	r->top[k] = w;
}

static void rf_top(rf_t *r, int64_t u)
{
	const topomatch_csr_t *a = &r->a;
	r->ntop = 0;
	for (int64_t e = a->rowptr[u]; e < a->rowptr[u + 1]; e++)
		rf_top_insert(r, a->col[e], a->w[e]);
	r->used += a->rowptr[u + 1] - a->rowptr[u];
}

static void rf_add(rf_t *r, int64_t q, int64_t p)
{
	if (q == p || !rf_allowed(r, q) || r->ncand >= RF_MAX_CAND)
		return;
	int64_t j = rf_index(r, q);
	if (r->stamp[j] == r->round)
		return;
	r->stamp[j] = r->round;
	r->cand[r->ncand++] = q;
}

/* s and its grid neighbours, +-1 in each dimension (a hypercube: each
 * bit); with a local tree, the same spot under the neighbouring routers. */
static void rf_near_grid(rf_t *r, int64_t s, int64_t p)
{
	const topomatch_topology_t *t = r->t;
	for (int k = 0; k < t->ndims; k++) {
		int64_t x = tm_grid_coord(t, k, s), d = t->dims[k], st = t->stride[k];
		if (x + 1 < d)
			rf_add(r, s + st, p);
		else if (t->wrap[k] && d > 2)
			rf_add(r, s - x * st, p);
		if (x > 0)
			rf_add(r, s - st, p);
		else if (t->wrap[k] && d > 2)
			rf_add(r, s + (d - 1) * st, p);
	}
}

/* The PUs under the lowest switch above s that has more than one (on
 * grids, up to s's router). */
static void rf_near_tree(rf_t *r, int64_t s, int64_t p)
{
	const topomatch_topology_t *t = r->t;
	int k = t->nlevels - 1;
	while (k > 0 && t->below[k] == 1)
		k--;
	int64_t size = t->below[k], base = s - s % size;
	int64_t lim = size < RF_TREE_NEAR ? size : RF_TREE_NEAR;
	for (int64_t i = 1; i < lim; i++)
		rf_add(r, base + (s - base + i) % size, p);
}

/*
 * s and the PUs near it.  When not every PU is allowed, the neighbours in
 * the topology may all be forbidden: the allowed PUs next in number are
 * then near too on trees (numbered by subtree) and along x on grids.
 */
static void rf_near(rf_t *r, int64_t s, int64_t p)
{
	rf_add(r, s, p);
	if (r->m < r->t->npu) {
		int64_t j = rf_index(r, s);
		for (int64_t k = j - RF_RANK_NEAR; k <= j + RF_RANK_NEAR; k++)
			if (k >= 0 && k < r->m)
				rf_add(r, r->where[k], p);
	}
	switch (r->t->kind) {
	case TOPOMATCH_TOPO_TREE:
		rf_near_tree(r, s, p);
		break;
	case TOPOMATCH_TOPO_GRAPH: {
		const int64_t *near = r->gnear + rf_index(r, s) * RF_GRAPH_NEAR;
		for (int i = 0; i < RF_GRAPH_NEAR && near[i] >= 0; i++)
			rf_add(r, near[i], p);
		break;
	}
	default:
		rf_near_grid(r, s, p);
		if (r->nl > 0)
			rf_near_tree(r, s, p);
		break;
	}
}

/*
 * On a grid, the PU where the task would cost least next to its heaviest
 * neighbours: the distance splits by dimension, and in each one the
 * optimum of a sum of (circular) |x - x_w| lies at one of the x_w.  With
 * a local tree, the first PU of that router (the grid part dominates).
 */
static int64_t rf_optimum(const rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	int64_t best_pu = 0;
	for (int k = 0; k < r->ng; k++) {
		int bx = 0;
		double best = -1.0;
		for (int i = 0; i < r->ntop; i++) {
			int x = r->xy[r->top[i] * r->nd + k];
			double s = 0.0;
			for (int l = 0; l < r->ntop; l++) {
				int d = abs(x - r->xy[r->top[l] * r->nd + k]);
				if (t->wrap[k] && t->dims[k] - d < d)
					d = t->dims[k] - d;
				s += r->topw[l] * (double)d;
			}
			if (best < 0 || s < best) {
				best = s;
				bx = x;
			}
		}
		best_pu += bx * t->stride[k];
	}
	return best_pu;
}

static void rf_candidates(rf_t *r, int64_t u)
{
	int64_t p = r->pu[u];
	r->round++;
	r->ncand = 0;
	rf_top(r, u);
	if (r->t->kind != TOPOMATCH_TOPO_TREE && r->t->kind != TOPOMATCH_TOPO_GRAPH && r->ntop > 1)
		rf_near(r, rf_optimum(r), p);
	for (int i = 0; i < r->ntop; i++)
		rf_near(r, r->pu[r->top[i]], p);
}

/* ------------------------------------------------------------ task steps */

/*
 * Best move of u among its candidates that gains more than `floor`,
 * partners already moved by the current chain aside; q = -1 when none.
 * Swap of u (on p) and v (on q): cur[u] + cur[v] minus their costs on
 * the other PU, each counted with the other still in place (so at
 * distance 0), minus the edge u-v, counted twice there and unchanged.
 */
static rf_move_t rf_best(rf_t *r, int64_t u, double floor)
{
	rf_move_t best = { -1, -1, floor };
	rf_at_t ap, aq;
	rf_at_task(r, u, &ap);
	rf_candidates(r, u);
	for (int i = 0; i < r->ncand && !rf_stop(r); i++) {
		int64_t q = r->cand[i], j = rf_index(r, q);
		rf_at(r, q, &aq);
		double gu = r->cur[u] - rf_cost(r, u, &aq);
		if (r->cnt[j] < r->c->f && gu > best.gain)
			best = (rf_move_t){ q, -1, gu };
		for (int64_t v = r->head[j]; v >= 0; v = r->next[v]) {
			/* v's side gains at most cur[v]: skip what cannot win */
			if (r->lock[v] == r->chain || gu + r->cur[v] <= best.gain)
				continue;
			double g = gu + r->cur[v] - rf_cost(r, v, &ap) -
				   2.0 * rf_weight(r, u, v) * (double)rf_hops2(r, &ap, &aq);
			if (g > best.gain)
				best = (rf_move_t){ q, v, g };
		}
	}
	return best;
}

static void rf_push(rf_t *r, int64_t u)
{
	if (r->queued[u])
		return;
	r->queued[u] = 1;
	r->fifo[(r->fhead + r->flen++) % r->n] = u;
}

static void rf_push_around(rf_t *r, int64_t x)
{
	for (int64_t e = r->a.rowptr[x]; e < r->a.rowptr[x + 1]; e++)
		rf_push(r, r->a.col[e]);
	rf_push(r, x);
}

/* Task x went from PU `from` to where it is: its neighbours' costs follow. */
static void rf_moved(rf_t *r, int64_t x, const rf_at_t *from)
{
	const topomatch_csr_t *a = &r->a;
	rf_at_t to;
	rf_at_task(r, x, &to);
	for (int64_t e = a->rowptr[x]; e < a->rowptr[x + 1]; e++) {
		int64_t w = a->col[e];
		r->cur[w] += a->w[e] * (double)(rf_hops(r, &to, w) - rf_hops(r, from, w));
	}
	r->used += a->rowptr[x + 1] - a->rowptr[x];
}

static void rf_apply(rf_t *r, int64_t u, const rf_move_t *mv)
{
	rf_at_t ap, aq;
	rf_at_task(r, u, &ap);
	rf_at(r, mv->q, &aq);
	rf_put(r, u, &aq);
	if (mv->v >= 0)
		rf_put(r, mv->v, &ap);
	rf_moved(r, u, &ap);
	if (mv->v >= 0)
		rf_moved(r, mv->v, &aq);
	/* the movers' own costs afresh, which also stops any drift */
	r->cur[u] = rf_cost(r, u, &aq);
	if (mv->v >= 0)
		r->cur[mv->v] = rf_cost(r, mv->v, &ap);
}

/*
 * Ejection chain from u (see the top of the file).  The gains add up
 * from cur[], which rf_apply keeps exact for the movers; a chain counts
 * only above RF_EPS of the costs involved, far above rounding noise.
 */
static void rf_chain(rf_t *r, int64_t u)
{
	int64_t who[RF_DEPTH], from[RF_DEPTH];
	rf_move_t log[RF_DEPTH];
	double total = 0.0, best = 0.0, scale = r->cur[u];
	int len = 0, keep = 0;
	r->chain++;
	for (int64_t x = u; len < r->depth && x >= 0 && !rf_stop(r);) {
		r->lock[x] = r->chain;
		/* the last step must beat the best prefix; the others may lose */
		rf_move_t mv = rf_best(r, x, len == r->depth - 1 ? best - total : -HUGE_VAL);
		if (mv.q < 0)
			break;
		scale += mv.v >= 0 ? r->cur[mv.v] : 0.0;
		who[len] = x;
		from[len] = r->pu[x];
		log[len++] = mv;
		rf_apply(r, x, &mv);
		total += mv.gain;
		if (total > best && total > RF_EPS * scale) {
			best = total;
			keep = len;
		}
		x = mv.v;
	}
	while (len > keep) {
		len--;
		rf_move_t back = { from[len], log[len].v, 0.0 };
		rf_apply(r, who[len], &back);
	}
	for (int i = 0; i < keep; i++) {
		rf_push_around(r, who[i]);
		if (log[i].v >= 0)
			rf_push_around(r, log[i].v);
	}
}

/* Chains from each task, then from those around a change, until none gains. */
static void rf_task_level(rf_t *r)
{
	memcpy(r->fifo, r->order, (size_t)r->n * sizeof(*r->fifo));
	memset(r->queued, 1, (size_t)r->n);
	r->fhead = 0;
	r->flen = r->n;
	while (r->flen > 0 && !rf_stop(r)) {
		int64_t u = r->fifo[r->fhead];
		r->fhead = (r->fhead + 1) % r->n;
		r->flen--;
		r->queued[u] = 0;
		rf_chain(r, u);
	}
	memset(r->queued, 0, (size_t)r->n);
}

/* Hop-bytes, from the cached costs. */
static double rf_total(const rf_t *r)
{
	double s = 0.0;
	for (int64_t u = 0; u < r->n; u++)
		s += r->cur[u];
	return s / 2;
}

/* ------------------------------------------------------------ block levels */

static int rf_smallest_factor(int x)
{
	for (int f = 2; f * f <= x; f++)
		if (x % f == 0)
			return f;
	return x;
}

/* One router of a grid: blocks of that many PUs under it (lsize). */
static rf_level_t rf_router_level(const topomatch_topology_t *t, int64_t lsize)
{
	rf_level_t L = { .size = lsize, .lsize = lsize };
	for (int k = 0; k < t->ndims; k++) {
		L.bd[k] = 1;
		L.cd[k] = t->dims[k];
	}
	return L;
}

/*
 * Grid levels: the finest blocks have 2 routers, and each level splits
 * the dimension with the most blocks by its smallest factor, as a
 * bisection would; blocks stay within half the tasks and half the PUs.
 */
static void rf_levels_grid(rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	rf_level_t L = rf_router_level(t, t->lpus);
	while (r->nlv < RF_MAX_LEVELS) {
		int k = -1;
		for (int i = 0; i < t->ndims; i++)
			if (L.cd[i] > 1 && (k < 0 || L.cd[i] > L.cd[k]))
				k = i;
		if (k < 0)
			break;
		int f = rf_smallest_factor(L.cd[k]);
		L.bd[k] *= f;
		L.cd[k] /= f;
		L.size *= f;
		if (L.size > t->npu / 2 || L.size > r->n / 2)
			break;
		r->lv[r->nlv++] = L;
	}
}

/* Local levels of a grid: the subtrees under one router, lowest first,
 * up to the whole router; finer than any grid level. */
static void rf_levels_local(rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	for (int k = t->nlevels - 1; k >= 0 && r->nlv < RF_MAX_LEVELS; k--) {
		int64_t size = t->below[k];
		if (size > t->below[k + 1] && size <= r->n / 2 && size <= t->npu / 2)
			r->lv[r->nlv++] = rf_router_level(t, size);
	}
}

/* Tree levels: the subtrees under each switch, lowest first. */
static void rf_levels_tree(rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	for (int k = t->nlevels - 1; k >= 1 && r->nlv < RF_MAX_LEVELS; k--) {
		int64_t size = t->below[k];
		if (size > t->below[k + 1] && size <= r->n / 2)
			r->lv[r->nlv++] = (rf_level_t){ .size = size, .depth = k };
	}
}

/* Origin (lowest PU) of the block that holds PU p. */
static int64_t rf_block_of(const rf_t *r, int64_t p)
{
	const topomatch_topology_t *t = r->t;
	if (t->kind == TOPOMATCH_TOPO_TREE)
		return p - p % r->L->size;
	int64_t loc = p % t->lpus, o = loc - loc % r->L->lsize;
	for (int k = 0; k < r->ng; k++) {
		int64_t x = tm_grid_coord(t, k, p);
		o += (x - x % r->L->bd[k]) * t->stride[k];
	}
	return o;
}

/* Is task w in the block with origin o? */
static bool rf_in_block(const rf_t *r, const rf_at_t *o, int64_t w)
{
	const topomatch_topology_t *t = r->t;
	if (t->kind == TOPOMATCH_TOPO_TREE)
		return (uint64_t)(r->pu[w] - o->p) < (uint64_t)r->L->size;
	const int *x = r->xy + w * r->nd;
	for (int k = 0; k < r->ng; k++)
		if ((unsigned)(x[k] - o->x[k]) >= (unsigned)r->L->bd[k])
			return false;
	if (r->L->lsize == t->lpus) /* whole routers */
		return true;
	return (uint64_t)(r->pu[w] % t->lpus - o->p % t->lpus) < (uint64_t)r->L->lsize;
}

/* The PUs of the block with origin o, in an order a translation keeps:
 * router by router through the box, lsize PUs under each. */
static void rf_block_pus(const rf_t *r, int64_t o, int64_t *out)
{
	const topomatch_topology_t *t = r->t;
	const rf_level_t *L = r->L;
	if (t->kind == TOPOMATCH_TOPO_TREE) {
		for (int64_t i = 0; i < L->size; i++)
			out[i] = o + i;
		return;
	}
	int idx[TOPOMATCH_MAX_DIMS] = { 0 };
	int64_t p = o, i = 0;
	for (int64_t b = 0; b < L->size / L->lsize; b++) {
		for (int64_t j = 0; j < L->lsize; j++)
			out[i++] = p + j;
		for (int k = 0; k < r->ng; k++) {
			if (++idx[k] < L->bd[k]) {
				p += t->stride[k];
				break;
			}
			p -= (int64_t)(idx[k] - 1) * t->stride[k];
			idx[k] = 0;
		}
	}
}

static void rf_block_add(rf_t *r, int64_t o)
{
	if (o == r->o1.p || r->ncand >= RF_MAX_CAND)
		return;
	for (int i = 0; i < r->ncand; i++)
		if (r->cand[i] == o)
			return;
	r->cand[r->ncand++] = o;
}

/* Subtrees of `size` PUs next to the one at o, under the same switch. */
static void rf_block_near_tree(rf_t *r, int64_t o, int64_t size)
{
	const topomatch_topology_t *t = r->t;
	int k = t->nlevels;
	while (k > 0 && t->below[k] <= size)
		k--;
	int64_t span = t->below[k], base = o - o % span, nsib = span / size;
	int64_t lim = nsib < RF_TREE_NEAR ? nsib : RF_TREE_NEAR;
	for (int64_t i = 1; i < lim; i++)
		rf_block_add(r, base + (o - base + i * size) % span);
}

/* Boxes next to the one at o, +-1 box in each dimension. */
static void rf_block_near_grid(rf_t *r, int64_t o)
{
	const topomatch_topology_t *t = r->t;
	const rf_level_t *L = r->L;
	for (int k = 0; k < r->ng; k++) {
		int64_t x = tm_grid_coord(t, k, o), d = t->dims[k], st = L->bd[k] * t->stride[k];
		if (x + L->bd[k] < d)
			rf_block_add(r, o + st);
		else if (t->wrap[k] && L->cd[k] > 2)
			rf_block_add(r, o - x * t->stride[k]);
		if (x > 0)
			rf_block_add(r, o - st);
		else if (t->wrap[k] && L->cd[k] > 2)
			rf_block_add(r, o + (d - L->bd[k]) * t->stride[k]);
	}
}

/* Block o and the blocks next to it: under the same switch on trees; on
 * grids the neighbouring boxes, and for a part of a router's tree also
 * the parts next to it under that router. */
static void rf_block_near(rf_t *r, int64_t o)
{
	rf_block_add(r, o);
	if (r->t->kind == TOPOMATCH_TOPO_TREE) {
		rf_block_near_tree(r, o, r->L->size);
		return;
	}
	rf_block_near_grid(r, o);
	if (r->L->lsize < r->t->lpus)
		rf_block_near_tree(r, o, r->L->lsize);
}

/* Candidate blocks: where the heaviest outside partners of the tasks of
 * block o1 are, and next to them. */
static void rf_block_candidates(rf_t *r)
{
	const topomatch_csr_t *a = &r->a;
	r->ntop = 0;
	r->ncand = 0;
	for (int64_t i = 0; i < r->L->size; i++) {
		if (!rf_allowed(r, r->bp1[i]))
			continue;
		for (int64_t x = r->head[rf_index(r, r->bp1[i])]; x >= 0; x = r->next[x]) {
			for (int64_t e = a->rowptr[x]; e < a->rowptr[x + 1]; e++)
				if (!rf_in_block(r, &r->o1, a->col[e]))
					rf_top_insert(r, a->col[e], a->w[e]);
			r->used += a->rowptr[x + 1] - a->rowptr[x];
		}
	}
	for (int i = 0; i < r->ntop; i++)
		rf_block_near(r, rf_block_of(r, r->pu[r->top[i]]));
}

/* The two blocks' tasks can trade places: a PU that has tasks faces an
 * allowed one.  false also when both are empty (nothing to gain). */
static bool rf_block_legal(const rf_t *r)
{
	bool any = false;
	for (int64_t i = 0; i < r->L->size; i++) {
		bool a1 = rf_allowed(r, r->bp1[i]), a2 = rf_allowed(r, r->bp2[i]);
		int c1 = a1 ? r->cnt[rf_index(r, r->bp1[i])] : 0;
		int c2 = a2 ? r->cnt[rf_index(r, r->bp2[i])] : 0;
		if ((c1 && !a2) || (c2 && !a1))
			return false;
		any = any || c1 || c2;
	}
	return any;
}

/*
 * Gain of the tasks of one block going to the same spot of the other:
 * edges inside the block keep their length; edges between the two
 * blocks are counted from the first one only.
 */
static void rf_block_side(rf_t *r, bool first, double *g, double *scale)
{
	const topomatch_csr_t *a = &r->a;
	const int64_t *pus = first ? r->bp1 : r->bp2, *img = first ? r->bp2 : r->bp1;
	const rf_at_t *own = first ? &r->o1 : &r->o2, *other = first ? &r->o2 : &r->o1;
	int64_t delta = first ? r->o2.p - r->o1.p : r->o1.p - r->o2.p;
	rf_at_t ap, an, as, aw;
	for (int64_t i = 0; i < r->L->size; i++) {
		if (!rf_allowed(r, pus[i]) || r->head[rf_index(r, pus[i])] < 0)
			continue;
		rf_at_task(r, r->head[rf_index(r, pus[i])], &ap);
		rf_at_moved(r, &ap, img[i], own, other, &an);
		for (int64_t x = r->head[rf_index(r, pus[i])]; x >= 0; x = r->next[x]) {
			for (int64_t e = a->rowptr[x]; e < a->rowptr[x + 1]; e++) {
				int64_t w = a->col[e], d0, d1;
				if (rf_in_block(r, own, w))
					continue;
				d0 = rf_hops(r, &ap, w);
				if (!rf_in_block(r, other, w)) {
					d1 = rf_hops(r, &an, w);
				} else if (first) {
					rf_at_task(r, w, &aw);
					rf_at_moved(r, &aw, r->pu[w] - delta, other, own, &as);
					d1 = rf_hops2(r, &an, &as);
				} else {
					continue;
				}
				*g += a->w[e] * (double)(d0 - d1);
				*scale += a->w[e] * (double)(d0 + d1);
			}
			r->used += a->rowptr[x + 1] - a->rowptr[x] + 1;
		}
	}
}

/*
 * rf_block_side on a tree with keys, the same sums: the hottest loop of a
 * replay on a fat tree, without a call per matrix entry.  A PU is in a
 * block when its key agrees with the block's above the block's levels
 * (from bit kshift[depth - 1] up), so that an entry reads one key and
 * not the PU too.
 */
static void rf_block_side_keyed(rf_t *r, bool first, double *g, double *scale)
{
	const topomatch_csr_t *a = &r->a;
	const int64_t *pus = first ? r->bp1 : r->bp2;
	const rf_at_t *own = first ? &r->o1 : &r->o2, *other = first ? &r->o2 : &r->o1;
	int sh = r->kshift[r->L->depth - 1];
	double sg = *g, ss = *scale; /* in registers: stores through g and
				      * scale could alias everything read */
	for (int64_t i = 0; i < r->L->size; i++) {
		if (!rf_allowed(r, pus[i]) || r->head[rf_index(r, pus[i])] < 0)
			continue;
		int64_t x = r->head[rf_index(r, pus[i])];
		uint64_t kp = r->key[x], kn = kp - own->key + other->key;
		for (; x >= 0; x = r->next[x]) {
			for (int64_t e = a->rowptr[x]; e < a->rowptr[x + 1]; e++) {
				uint64_t kw = r->key[a->col[e]], x0 = kp ^ kw, x1 = kn ^ kw;
				int64_t d0, d1;
				if (!(x0 >> sh))
					continue; /* in this block */
				d0 = rf_key_hops(r, kp, kw);
				if (x1 >> sh)
					d1 = rf_key_hops(r, kn, kw);
				else if (first) /* in the other block: it comes here */
					d1 = rf_key_hops(r, kn, kw - other->key + own->key);
				else
					continue;
				sg += a->w[e] * (double)(d0 - d1);
				ss += a->w[e] * (double)(d0 + d1);
			}
			r->used += a->rowptr[x + 1] - a->rowptr[x] + 1;
		}
	}
	*g = sg;
	*scale = ss;
}

/* Gain of trading the tasks of blocks o1 and o2 (bp2 gets o2's PUs). */
static double rf_block_gain(rf_t *r, int64_t o2)
{
	double g = 0.0, scale = 0.0;
	rf_at(r, o2, &r->o2);
	rf_block_pus(r, o2, r->bp2);
	r->used += r->L->size;
	if (!rf_block_legal(r))
		return 0.0;
	if (r->key) {
		rf_block_side_keyed(r, true, &g, &scale);
		rf_block_side_keyed(r, false, &g, &scale);
	} else {
		rf_block_side(r, true, &g, &scale);
		rf_block_side(r, false, &g, &scale);
	}
	return g > RF_EPS * scale ? g : 0.0;
}

/* Trade the tasks of PUs p and q (both allowed) wholesale. */
static void rf_trade(rf_t *r, int64_t p, int64_t q)
{
	int64_t jp = rf_index(r, p), jq = rf_index(r, q);
	int64_t on_p = r->head[jp], on_q = r->head[jq];
	rf_at_t ap, aq;
	rf_at(r, p, &ap);
	rf_at(r, q, &aq);
	r->head[jp] = r->head[jq] = -1;
	r->cnt[jp] = r->cnt[jq] = 0;
	for (int64_t x = on_p, nx; x >= 0; x = nx) {
		nx = r->next[x];
		rf_link(r, x, &aq, jq);
	}
	for (int64_t x = on_q, nx; x >= 0; x = nx) {
		nx = r->next[x];
		rf_link(r, x, &ap, jp);
	}
}

/* Trade blocks o1 and o2 (bp1, bp2 filled); the costs follow. */
static void rf_block_apply(rf_t *r)
{
	int64_t size = r->L->size;
	rf_at_t from;
	for (int64_t i = 0; i < size; i++)
		if (rf_allowed(r, r->bp1[i]) && rf_allowed(r, r->bp2[i]))
			rf_trade(r, r->bp1[i], r->bp2[i]);
	/* legal: of a pair with a PU not allowed, the other one is empty */
	for (int side = 0; side < 2; side++) {
		const int64_t *pus = side ? r->bp2 : r->bp1, *img = side ? r->bp1 : r->bp2;
		for (int64_t i = 0; i < size; i++) {
			if (!rf_allowed(r, pus[i]))
				continue;
			rf_at(r, img[i], &from);
			for (int64_t x = r->head[rf_index(r, pus[i])]; x >= 0; x = r->next[x]) {
				rf_moved(r, x, &from);
				r->seen[x] = r->pass;
			}
		}
	}
	/* the movers' own costs afresh, which also stops any drift */
	for (int side = 0; side < 2; side++) {
		const int64_t *pus = side ? r->bp2 : r->bp1;
		for (int64_t i = 0; i < size; i++) {
			if (!rf_allowed(r, pus[i]))
				continue;
			for (int64_t x = r->head[rf_index(r, pus[i])]; x >= 0; x = r->next[x])
				r->cur[x] = rf_cost_here(r, x);
		}
	}
}

/* Weigh trading block o1 with each candidate block; make the best trade. */
static void rf_block_step(rf_t *r, int64_t o1)
{
	int64_t best = -1;
	double best_gain = 0.0;
	rf_at(r, o1, &r->o1);
	rf_block_pus(r, o1, r->bp1);
	rf_block_candidates(r);
	for (int i = 0; i < r->ncand && !rf_stop(r); i++) {
		double g = rf_block_gain(r, r->cand[i]);
		if (g > best_gain) {
			best_gain = g;
			best = r->cand[i];
		}
	}
	if (best < 0)
		return;
	rf_block_gain(r, best);
	rf_block_apply(r);
}

/* The blocks that hold tasks, in the order of their first task; again
 * while a pass gains at least RF_PASS_GAIN. */
static void rf_block_level(rf_t *r)
{
	double before = HUGE_VAL;
	for (double now = rf_total(r); now < before * (1.0 - RF_PASS_GAIN); now = rf_total(r)) {
		before = now;
		r->pass++;
		for (int64_t k = 0; k < r->n; k++) {
			int64_t u = r->order[k];
			if (r->seen[u] == r->pass)
				continue;
			if (rf_stop(r))
				return;
			rf_block_step(r, rf_block_of(r, r->pu[u]));
			/* bp1 still lists the block weighed, which holds u or its trade */
			for (int64_t i = 0; i < r->L->size; i++)
				if (rf_allowed(r, r->bp1[i]))
					for (int64_t x = r->head[rf_index(r, r->bp1[i])]; x >= 0;
					     x = r->next[x])
						r->seen[x] = r->pass;
		}
	}
}

/* ------------------------------------------------------------ driver */

static void rf_free(rf_t *r)
{
	free(r->bits);
	free(r->rank0);
	free(r->where);
	free(r->head);
	free(r->cnt);
	free(r->next);
	free(r->prev);
	free(r->xy);
	free(r->key);
	free(r->tj);
	free(r->hop);
	free(r->gnear);
	free(r->cur);
	free(r->order);
	free(r->fifo);
	free(r->queued);
	free(r->stamp);
	free(r->lock);
	free(r->bp1);
	free(r->bp2);
	free(r->seen);
}

/* Bit fields of a tree's keys (see rf_t); false when they take more than
 * 63 bits (a block's test shifts by the bits below it, which must stay
 * under 64). */
static bool rf_key_layout(rf_t *r)
{
	const topomatch_topology_t *t = r->t;
	int bits = 0;
	for (int k = t->nlevels - 1; k >= 0; k--) {
		int b = 0;
		while (b < 63 && (INT64_C(1) << b) < t->arity[k])
			b++;
		if (bits + b > 63)
			return false;
		r->kshift[k] = bits;
		for (int i = bits; i < bits + b; i++)
			r->klevel[i] = (unsigned char)k;
		bits += b;
	}
	return true;
}

static bool rf_alloc(rf_t *r)
{
	int kind = r->t->kind;
	int64_t bmax = 1;
	if (kind == TOPOMATCH_TOPO_TREE) {
		rf_levels_tree(r);
	} else if (kind != TOPOMATCH_TOPO_GRAPH) {
		rf_levels_local(r); /* finest first */
		rf_levels_grid(r);
	}
	for (int i = 0; i < r->nlv; i++)
		bmax = r->lv[i].size > bmax ? r->lv[i].size : bmax;
	if (kind != TOPOMATCH_TOPO_GRAPH) {
		r->ng = kind == TOPOMATCH_TOPO_TREE ? 0 : r->t->ndims;
		r->nl = r->t->nlevels;
		r->nd = r->ng + r->nl;
		if (kind == TOPOMATCH_TOPO_TREE && rf_key_layout(r)) {
			r->nd = 0;
			r->key = tm_alloc(r->n, sizeof(*r->key));
			if (!r->key)
				return false;
		}
		r->xy = tm_alloc(r->n * r->nd, sizeof(*r->xy));
	}
	if (kind == TOPOMATCH_TOPO_GRAPH)
		r->tj = tm_alloc(r->n, sizeof(*r->tj));
	r->head = tm_alloc(r->m, sizeof(*r->head));
	r->cnt = tm_zalloc(r->m, sizeof(*r->cnt));
	r->stamp = tm_zalloc(r->m, sizeof(*r->stamp));
	r->next = tm_alloc(r->n, sizeof(*r->next));
	r->prev = tm_alloc(r->n, sizeof(*r->prev));
	r->cur = tm_alloc(r->n, sizeof(*r->cur));
	r->order = tm_alloc(r->n, sizeof(*r->order));
	r->fifo = tm_alloc(r->n, sizeof(*r->fifo));
	r->queued = tm_zalloc(r->n, 1);
	r->lock = tm_zalloc(r->n, sizeof(*r->lock));
	r->seen = tm_zalloc(r->n, sizeof(*r->seen));
	r->bp1 = tm_alloc(bmax, sizeof(*r->bp1));
	r->bp2 = tm_alloc(bmax, sizeof(*r->bp2));
	return (r->xy || !r->nd) && (r->tj || kind != TOPOMATCH_TOPO_GRAPH) && r->head &&
	       r->cnt && r->stamp && r->next && r->prev && r->cur && r->order && r->fifo &&
	       r->queued && r->lock && r->seen && r->bp1 && r->bp2;
}

/* Every task in a seeded random order: no bias from the task numbering. */
static void rf_shuffle(rf_t *r)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, r->c->seed);
	for (int64_t u = 0; u < r->n; u++)
		r->order[u] = u;
	for (int64_t u = r->n - 1; u > 0; u--) {
		int64_t k = (int64_t)topomatch_rng_below(&rng, (uint64_t)u + 1);
		int64_t x = r->order[u];
		r->order[u] = r->order[k];
		r->order[k] = x;
	}
}

/* Rounds of blocks, largest first, then tasks, while a round gains at
 * least RF_ROUND_GAIN. */
static void rf_search(rf_t *r)
{
	double before;
	for (int64_t u = 0; u < r->n; u++)
		r->cur[u] = rf_cost_here(r, u);
	rf_shuffle(r);
	r->check_at = r->used + RF_GUARD_WORK;
	/* tree distances are too coarse for chains to pay: single moves there */
	r->depth = r->t->kind == TOPOMATCH_TOPO_TREE ? 1 : RF_DEPTH;
	do {
		before = rf_total(r);
		for (int i = r->nlv - 1; i >= 0 && !rf_stop(r); i--) {
			r->L = &r->lv[i];
			rf_block_level(r);
		}
		rf_task_level(r);
	} while (!rf_stop(r) && rf_total(r) < before * (1.0 - RF_ROUND_GAIN));
}

/*
 * Improve the valid mapping pu[] in place, keeping it valid, with at most
 * about `work` units of work (see the top of the file); work <= 0 leaves
 * it alone.  TOPOMATCH_OK also when the guard stops the search or when
 * the topology is a graph too large for a hop table (pu[] unchanged);
 * TOPOMATCH_ENOMEM with pu[] unchanged; TOPOMATCH_EINVAL when the request
 * or pu[] is not valid on entry (pu[] unchanged).
 */
int tm_refine(const tm_map_ctx_t *c, int64_t *pu, int64_t work, char *err)
{
	if (!c || !pu || c->ntasks <= 0 || work <= 0)
		return TOPOMATCH_OK;
	if (!c->a || !c->t || !c->allowed || c->m <= 0 || c->f < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "refine: incomplete mapping request");
	rf_t r = { .c = c, .t = c->t, .n = c->ntasks, .m = c->m, .pu = pu, .budget = work,
		   .chain = 1 };
	r.a = topomatch_affinity_symmetric(c->a);
	int rc = rf_index_build(&r);
	if (rc == TOPOMATCH_EINVAL)
		tm_err(err, rc, "refine: the allowed PUs are out of range or repeated");
	else if (rc == TOPOMATCH_OK && !rf_alloc(&r))
		rc = TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_ENOMEM)
		tm_err(err, rc, "refine: out of memory for %lld tasks", (long long)r.n);
	else if (rc == TOPOMATCH_OK && !rf_place(&r))
		rc = tm_err(err, TOPOMATCH_EINVAL, "refine: the mapping to refine is not valid");
	else if (rc == TOPOMATCH_OK && (c->t->kind != TOPOMATCH_TOPO_GRAPH || rf_graph_build(&r)))
		rf_search(&r);
	rf_free(&r);
	return rc;
}

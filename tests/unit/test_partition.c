/*
 * test_partition.c - unit tests of the exact-size graph partitioning used
 * by TOPOMATCHCONST (TopoMatch Alg. 3 line 4, §4.4): part sizes are always
 * exact, rebalancing moves the cheapest vertices, obvious cuts are found,
 * results are deterministic, and bad requests are refused with a message.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "map/mapper_internal.h"

#include <math.h>

#define TOL 1e-9

/* A graph from undirected edges {a, b, w} (both directions stored). */
typedef struct tgraph {
	tm_wgraph_t g;
	topomatch_affinity_t *a;
} tgraph_t;

static tgraph_t from_edges(int64_t n, int m, const double (*e)[3])
{
	int64_t src[64], dst[64];
	double w[64];
	tgraph_t t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_le(m, 64);
	for (int i = 0; i < m; i++) {
		src[i] = (int64_t)e[i][0];
		dst[i] = (int64_t)e[i][1];
		/* one direction in C: A = C + C^T has e[i][2] both ways */
		w[i] = e[i][2];
	}
	ck_assert_msg(topomatch_affinity_create(n, m, src, dst, w, NULL, &t.a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	topomatch_csr_t s = topomatch_affinity_symmetric(t.a);
	t.g = (tm_wgraph_t){ s.n, s.rowptr, s.col, s.w, NULL };
	return t;
}

static tgraph_t random_graph(int64_t n, int64_t degree, uint64_t seed)
{
	tgraph_t t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_gen_random(n, degree, 100, seed, &t.a, err) == TOPOMATCH_OK, "%s",
		      err);
	topomatch_csr_t s = topomatch_affinity_symmetric(t.a);
	t.g = (tm_wgraph_t){ s.n, s.rowptr, s.col, s.w, NULL };
	return t;
}

static void tgraph_free(tgraph_t *t)
{
	topomatch_affinity_destroy(t->a);
}

/* Two cliques {0..h-1} and {h..2h-1} of edge weight 10 joined by 1 on
 * the edge (h-1, h), plus `isolated` vertices without edges. */
static tgraph_t two_cliques(int h, int isolated)
{
	double e[64][3];
	int m = 0;
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < h; i++)
			for (int j = i + 1; j < h; j++) {
				e[m][0] = c * h + i;
				e[m][1] = c * h + j;
				e[m++][2] = 10;
			}
	e[m][0] = h - 1;
	e[m][1] = h;
	e[m++][2] = 1;
	return from_edges(2 * h + isolated, m, (const double(*)[3])e);
}

static void assert_sizes(const tm_wgraph_t *g, int k, const int64_t *size, const int64_t *part)
{
	int64_t cnt[512] = { 0 };
	ck_assert_int_le(k, 512);
	for (int64_t v = 0; v < g->n; v++) {
		ck_assert_msg(part[v] >= 0 && part[v] < k, "vertex %lld in part %lld",
			      (long long)v, (long long)part[v]);
		cnt[part[v]]++;
	}
	for (int p = 0; p < k; p++)
		ck_assert_msg(cnt[p] == size[p], "part %d has %lld vertices, want %lld", p,
			      (long long)cnt[p], (long long)size[p]);
}

static void exact(const tm_wgraph_t *g, int k, const int64_t *size, int64_t *part)
{
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_partition_exact(g, k, size, 7, 0, part, err) == TOPOMATCH_OK, "%s", err);
	assert_sizes(g, k, size, part);
}

START_TEST(exact_sizes_random)
{
	/* random graphs, k from 1 to 9, sizes drawn unevenly with some 0 */
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 42);
	int64_t part[400], size[16];
	for (int trial = 0; trial < 60; trial++) {
		int64_t n = 1 + (int64_t)topomatch_rng_below(&rng, 300);
		int64_t deg = (int64_t)topomatch_rng_below(&rng, n < 6 ? (uint64_t)n : 6);
		int k = 1 + (int)topomatch_rng_below(&rng, 9);
		tgraph_t t = random_graph(n, deg, (uint64_t)trial);
		int64_t left = n;
		for (int p = 0; p < k; p++) {
			bool zero = topomatch_rng_below(&rng, 4) == 0;
			if (p == k - 1)
				size[p] = left;
			else if (zero)
				size[p] = 0;
			else
				size[p] = (int64_t)topomatch_rng_below(&rng, (uint64_t)left + 1);
			left -= size[p];
		}
		exact(&t.g, k, size, part);
		tgraph_free(&t);
	}
}
END_TEST

START_TEST(exact_k1_and_k_n)
{
	tgraph_t t = random_graph(40, 3, 5);
	int64_t part[40], size[40];
	size[0] = 40;
	exact(&t.g, 1, size, part);
	for (int v = 0; v < 40; v++)
		ck_assert_int_eq(part[v], 0);
	for (int p = 0; p < 40; p++)
		size[p] = 1;
	exact(&t.g, 40, size, part);
	/* k == n: a permutation */
	int seen[40] = { 0 };
	for (int v = 0; v < 40; v++)
		seen[part[v]]++;
	for (int p = 0; p < 40; p++)
		ck_assert_int_eq(seen[p], 1);
	tgraph_free(&t);
}
END_TEST

START_TEST(exact_zero_sizes_and_empty)
{
	tgraph_t t = random_graph(30, 4, 9);
	int64_t part[30];
	const int64_t size[] = { 0, 10, 0, 0, 20, 0 };
	exact(&t.g, 6, size, part);
	/* only one non-empty part: everything goes there */
	const int64_t one[] = { 0, 0, 30 };
	exact(&t.g, 3, one, part);
	for (int v = 0; v < 30; v++)
		ck_assert_int_eq(part[v], 2);
	tgraph_free(&t);
	/* no vertex at all */
	tm_wgraph_t e = { 0, (const int64_t[]){ 0 }, NULL, NULL, NULL };
	const int64_t zero[] = { 0, 0 };
	ck_assert_int_eq(tm_partition_exact(&e, 2, zero, 1, 0, part, NULL), TOPOMATCH_OK);
}
END_TEST

START_TEST(cliques_split_on_light_edge)
{
	/* cut 1 along the light edge; any other split cuts >= 3 x 10 */
	tgraph_t t = two_cliques(4, 0);
	int64_t part[8];
	const int64_t size[] = { 4, 4 };
	exact(&t.g, 2, size, part);
	for (int v = 1; v < 4; v++) {
		ck_assert_int_eq(part[v], part[0]);
		ck_assert_int_eq(part[v + 4], part[4]);
	}
	ck_assert_int_ne(part[0], part[4]);
	ck_assert_double_eq_tol(tm_partition_cut(&t.g, part), 1.0, TOL);
	tgraph_free(&t);
}
END_TEST

START_TEST(cliques_with_isolated_vertex)
{
	/*
	 * Sizes {5, 4} with one isolated vertex 8: the best partition puts a
	 * clique and vertex 8 together (cut 1).  Greedy growth first takes
	 * vertex 4 through the light edge; the refinement must swap it with
	 * the isolated vertex.
	 */
	tgraph_t t = two_cliques(4, 1);
	int64_t part[9];
	const int64_t size[] = { 5, 4 };
	exact(&t.g, 2, size, part);
	ck_assert_double_eq_tol(tm_partition_cut(&t.g, part), 1.0, TOL);
	ck_assert_int_eq(part[8], 0);
	tgraph_free(&t);
}
END_TEST

START_TEST(rebalance_path_by_hand)
{
	/*
	 * Path 0-1-2-3-4-5, weights 5 4 1 4 5; start {0,0,0,0,0,1}, sizes {3,3}.
	 * Two moves are needed.  Moving 4 costs 4 and saves 5 (gain +1), then
	 * moving 3 costs 1 and saves 4 (gain +3): the cut goes 5 -> 4 -> 1, the
	 * optimum.  Moving 2 or 3 first would cost more.
	 */
	static const double e[][3] = { { 0, 1, 5 }, { 1, 2, 4 }, { 2, 3, 1 }, { 3, 4, 4 },
				       { 4, 5, 5 } };
	tgraph_t t = from_edges(6, 5, e);
	int64_t part[] = { 0, 0, 0, 0, 0, 1 };
	const int64_t size[] = { 3, 3 };
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_double_eq_tol(tm_partition_cut(&t.g, part), 5.0, TOL);
	ck_assert_msg(tm_partition_rebalance(&t.g, 2, size, part, err) == TOPOMATCH_OK, "%s", err);
	const int64_t want[] = { 0, 0, 0, 1, 1, 1 };
	for (int v = 0; v < 6; v++)
		ck_assert_int_eq(part[v], want[v]);
	ck_assert_double_eq_tol(tm_partition_cut(&t.g, part), 1.0, TOL);
	tgraph_free(&t);
}
END_TEST

START_TEST(rebalance_lopsided_cliques)
{
	/*
	 * Everything in part 0, sizes {4, 4}: four vertices must move.  The
	 * cheapest first move is vertex 0 (-30, ties to the lowest vertex);
	 * then 1 (-10), 2 (+10), 3 (+29) follow their clique: cut 1.
	 */
	tgraph_t t = two_cliques(4, 0);
	int64_t part[8] = { 0 };
	const int64_t size[] = { 4, 4 };
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_partition_rebalance(&t.g, 2, size, part, err) == TOPOMATCH_OK, "%s", err);
	assert_sizes(&t.g, 2, size, part);
	for (int v = 0; v < 4; v++) {
		ck_assert_int_eq(part[v], 1);
		ck_assert_int_eq(part[v + 4], 0);
	}
	ck_assert_double_eq_tol(tm_partition_cut(&t.g, part), 1.0, TOL);
	tgraph_free(&t);
}
END_TEST

START_TEST(rebalance_random_exact_and_no_worse)
{
	/* from random starts: exact sizes; from an exact start: cut never grows */
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 3);
	int64_t part[200];
	const int64_t size[] = { 50, 0, 70, 30, 50 };
	for (int trial = 0; trial < 20; trial++) {
		tgraph_t t = random_graph(200, 4, (uint64_t)trial + 100);
		for (int v = 0; v < 200; v++)
			part[v] = trial % 2 ? 0 : (int64_t)topomatch_rng_below(&rng, 5);
		ck_assert_int_eq(tm_partition_rebalance(&t.g, 5, size, part, NULL), TOPOMATCH_OK);
		assert_sizes(&t.g, 5, size, part);
		double before = tm_partition_cut(&t.g, part);
		ck_assert_int_eq(tm_partition_rebalance(&t.g, 5, size, part, NULL), TOPOMATCH_OK);
		assert_sizes(&t.g, 5, size, part);
		ck_assert(tm_partition_cut(&t.g, part) <= before);
		tgraph_free(&t);
	}
}
END_TEST

START_TEST(deterministic)
{
	tgraph_t t = random_graph(500, 5, 77);
	int64_t a[500], b[500];
	const int64_t size[] = { 100, 37, 200, 163 };
	exact(&t.g, 4, size, a);
	exact(&t.g, 4, size, b);
	ck_assert_mem_eq(a, b, sizeof(a));
	for (int v = 0; v < 500; v++)
		a[v] = b[v] = v % 4;
	ck_assert_int_eq(tm_partition_rebalance(&t.g, 4, size, a, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(tm_partition_rebalance(&t.g, 4, size, b, NULL), TOPOMATCH_OK);
	ck_assert_mem_eq(a, b, sizeof(a));
	tgraph_free(&t);
}
END_TEST

START_TEST(better_than_random)
{
	/* a 2D stencil 16 x 16 in 4 parts: the cut must be far below random */
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_gen_stencil(2, (const int[]){ 16, 16 }, 5, 0, NULL, &a, err),
			 TOPOMATCH_OK);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	int64_t part[256];
	const int64_t size[] = { 64, 64, 64, 64 };
	exact(&g, 4, size, part);
	/* optimum: 4 quadrants, 32 edges of weight 2 (both directions) = 64;
	 * a random split cuts about 3/4 of 480 edges x 2 = 720 */
	double cut = tm_partition_cut(&g, part);
	ck_assert_msg(cut <= 96.0, "cut %g", cut);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * TOPOMATCHCONST's options: strategies kept across calls give the same
 * partitions as strategies parsed at each call (k, sizes and balances
 * varied, so that several strategies are kept and reused), and Scotch's
 * partition alone (scotch_first) still has exact sizes and finds the
 * quadrants of a 2D stencil.
 */
START_TEST(part_opts)
{
	tgraph_t t = random_graph(300, 5, 11);
	int64_t a[300], b[300];
	const int64_t sizes[][4] = { { 150, 150, 0, 0 }, { 100, 37, 163, 0 }, { 75, 75, 75, 75 } };
	const int ks[] = { 2, 3, 4 };
	char err[TOPOMATCH_ERRLEN] = "";
	tm_part_opts_t plain, kept;
	tm_part_opts_init(&plain, 5, 0);
	kept = plain;
	kept.strats = tm_scotch_strats_new();
	ck_assert_ptr_nonnull(kept.strats);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3; i++)
			for (int bal = 0; bal < 2; bal++) {
				plain.balance = kept.balance = bal ? 0.05 : 0.01;
				plain.also_tight = kept.also_tight = bal;
				ck_assert_int_eq(tm_partition_exact_opts(&t.g, ks[i], sizes[i], &plain,
									 a, err), TOPOMATCH_OK);
				ck_assert_int_eq(tm_partition_exact_opts(&t.g, ks[i], sizes[i], &kept,
									 b, err), TOPOMATCH_OK);
				ck_assert_mem_eq(a, b, sizeof(a));
			}
	tm_scotch_strats_free(kept.strats);
	tgraph_free(&t);

	topomatch_affinity_t *st;
	ck_assert_int_eq(topomatch_gen_stencil(2, (const int[]){ 16, 16 }, 5, 0, NULL, &st, err),
			 TOPOMATCH_OK);
	topomatch_csr_t s = topomatch_affinity_symmetric(st);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	int64_t part[256];
	const int64_t size[] = { 64, 64, 64, 64 };
	tm_part_opts_t o;
	tm_part_opts_init(&o, 1, 0);
	o.balance = 0.05;
	o.scotch_first = true;
	ck_assert_int_eq(tm_partition_exact_opts(&g, 4, size, &o, part, err), TOPOMATCH_OK);
	assert_sizes(&g, 4, size, part);
	ck_assert_msg(tm_partition_cut(&g, part) <= 96.0, "cut %g", tm_partition_cut(&g, part));
	topomatch_affinity_destroy(st);
}
END_TEST

/* A deadline already past stops the partition with EBUDGET, not a result. */
START_TEST(deadline_passed)
{
	tgraph_t t = random_graph(200, 4, 3);
	int64_t part[200];
	const int64_t size[] = { 50, 50, 50, 50 };
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_partition_exact(&t.g, 4, size, 1, 1e-9, part, err),
			 TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "time budget exceeded");
	ck_assert_int_eq(tm_partition_exact(&t.g, 4, size, 1, tm_now() + 3600, part, err),
			 TOPOMATCH_OK);
	tgraph_free(&t);
}
END_TEST

/* A memo's counters. */
static topomatch_memo_stats_t memo_stats(topomatch_memo_t *m)
{
	topomatch_memo_stats_t st;
	topomatch_memo_stats(m, &st);
	return st;
}

static void part_with(const tm_wgraph_t *g, int k, const int64_t *size, const tm_part_opts_t *o,
		      int64_t *part)
{
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_partition_exact_opts(g, k, size, o, part, err) == TOPOMATCH_OK, "%s", err);
}

/*
 * The memo (partition_memo.c) gives back what a partition without it
 * gives; any change of the input (a weight, the seed, the sizes, the
 * options) is a miss; the same graph at another offset in its arrays is a
 * hit; a partition cut short by its deadline is not kept.
 */
START_TEST(memo_same_partitions)
{
	tgraph_t t = random_graph(300, 5, 21);
	const int64_t size[] = { 100, 37, 163 }, size2[] = { 100, 38, 162 };
	int64_t plain[300], got[300];
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_memo_t *m;
	ck_assert_int_eq(topomatch_memo_create(1 << 20, &m, err), TOPOMATCH_OK);
	tm_part_opts_t o, om;
	tm_part_opts_init(&o, 4, 0);
	om = o;
	om.memo = m;
	part_with(&t.g, 3, size, &o, plain);
	part_with(&t.g, 3, size, &om, got);
	ck_assert_mem_eq(plain, got, sizeof(plain));
	memset(got, 0xff, sizeof(got));
	part_with(&t.g, 3, size, &om, got);
	ck_assert_mem_eq(plain, got, sizeof(plain));
	topomatch_memo_stats_t st = memo_stats(m);
	ck_assert_uint_eq(st.hits, 1);
	ck_assert_uint_eq(st.misses, 1);
	ck_assert_uint_eq(st.entries, 1);
	ck_assert_uint_gt(st.bytes, 300 * 8);

	/* one weight changed; then the seed, the sizes, the options */
	int64_t nnz = t.g.rowptr[300];
	double *w = malloc((size_t)nnz * sizeof(*w));
	ck_assert_ptr_nonnull(w);
	memcpy(w, t.g.w, (size_t)nnz * sizeof(*w));
	w[nnz / 2] += 1;
	tm_wgraph_t g2 = t.g;
	g2.w = w;
	part_with(&g2, 3, size, &om, got);
	tm_part_opts_t o2 = om;
	o2.seed = 5;
	part_with(&t.g, 3, size, &o2, got);
	part_with(&t.g, 3, size2, &om, got);
	o2 = om;
	o2.scotch_first = true;
	part_with(&t.g, 3, size, &o2, got);
	o2 = om;
	o2.balance = 0.05;
	part_with(&t.g, 3, size, &o2, got);
	st = memo_stats(m);
	ck_assert_uint_eq(st.hits, 1);
	ck_assert_uint_eq(st.misses, 6);
	ck_assert_uint_eq(st.entries, 6);
	free(w);

	/* the same graph 7 entries into longer arrays */
	int64_t *rp = malloc(301 * sizeof(*rp)), *col = malloc((size_t)(nnz + 7) * sizeof(*col));
	double *w7 = malloc((size_t)(nnz + 7) * sizeof(*w7));
	ck_assert(rp && col && w7);
	for (int v = 0; v <= 300; v++)
		rp[v] = t.g.rowptr[v] + 7;
	memcpy(col + 7, t.g.col, (size_t)nnz * sizeof(*col));
	memcpy(w7 + 7, t.g.w, (size_t)nnz * sizeof(*w7));
	tm_wgraph_t g7 = { 300, rp, col, w7, NULL };
	memset(got, 0xff, sizeof(got));
	part_with(&g7, 3, size, &om, got);
	ck_assert_mem_eq(plain, got, sizeof(plain));
	ck_assert_uint_eq(memo_stats(m).hits, 2);
	free(rp);
	free(col);
	free(w7);

	/* past its deadline: EBUDGET, nothing kept */
	o2 = om;
	o2.seed = 99;
	o2.deadline = 1e-9;
	ck_assert_int_eq(tm_partition_exact_opts(&t.g, 3, size, &o2, got, err), TOPOMATCH_EBUDGET);
	ck_assert_uint_eq(memo_stats(m).entries, 6);
	topomatch_memo_destroy(m);
	tgraph_free(&t);
}
END_TEST

/* max_bytes bounds the memo: the least recently used entry leaves first,
 * and an entry larger than the memo is not kept. */
START_TEST(memo_bounded)
{
	tgraph_t t = random_graph(200, 4, 8);
	const int64_t size[] = { 100, 100 };
	int64_t part[200];
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_memo_t *m;
	ck_assert_int_eq(topomatch_memo_create(1 << 20, &m, err), TOPOMATCH_OK);
	tm_part_opts_t o;
	tm_part_opts_init(&o, 1, 0);
	o.memo = m;
	part_with(&t.g, 2, size, &o, part);
	uint64_t one = memo_stats(m).bytes;
	topomatch_memo_destroy(m);

	/* room for two: seeds 1, 2, then 1 used again, then 3 pushes 2 out */
	ck_assert_int_eq(topomatch_memo_create(2 * one, &m, err), TOPOMATCH_OK);
	o.memo = m;
	for (uint64_t seed = 1; seed <= 2; seed++) {
		o.seed = seed;
		part_with(&t.g, 2, size, &o, part);
	}
	o.seed = 1;
	part_with(&t.g, 2, size, &o, part);
	o.seed = 3;
	part_with(&t.g, 2, size, &o, part);
	topomatch_memo_stats_t st = memo_stats(m);
	ck_assert_uint_eq(st.entries, 2);
	ck_assert_uint_eq(st.bytes, 2 * one);
	ck_assert_uint_eq(st.hits, 1);
	o.seed = 1;
	part_with(&t.g, 2, size, &o, part);
	ck_assert_uint_eq(memo_stats(m).hits, 2);
	o.seed = 2;
	part_with(&t.g, 2, size, &o, part);
	ck_assert_uint_eq(memo_stats(m).hits, 2);
	topomatch_memo_destroy(m);

	ck_assert_int_eq(topomatch_memo_create(one - 1, &m, err), TOPOMATCH_OK);
	o.memo = m;
	part_with(&t.g, 2, size, &o, part);
	part_with(&t.g, 2, size, &o, part);
	st = memo_stats(m);
	ck_assert_uint_eq(st.entries, 0);
	ck_assert_uint_eq(st.hits, 0);
	topomatch_memo_destroy(m);
	topomatch_memo_destroy(NULL);
	tgraph_free(&t);
}
END_TEST

START_TEST(errors)
{
	tgraph_t t = random_graph(10, 2, 1);
	int64_t part[10] = { 0 };
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_partition_exact(&t.g, 2, (const int64_t[]){ 4, 5 }, 1, 0, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "sum to 9, not to the 10 vertices");
	ck_assert_int_eq(tm_partition_exact(&t.g, 2, (const int64_t[]){ -1, 11 }, 1, 0, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "part 0 has a negative size (-1)");
	ck_assert_int_eq(tm_partition_exact(&t.g, 0, (const int64_t[]){ 10 }, 1, 0, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "at least 1 part");
	ck_assert_int_eq(tm_partition_rebalance(&t.g, 2, (const int64_t[]){ 3, 3 }, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "sum to 6");
	part[3] = 2;
	ck_assert_int_eq(tm_partition_rebalance(&t.g, 2, (const int64_t[]){ 5, 5 }, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "vertex 3 is in part 2, outside [0, 2)");
	tgraph_free(&t);
}
END_TEST

static Suite *partition_suite(void)
{
	Suite *s = suite_create("partition");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, exact_sizes_random);
	tcase_add_test(tc, exact_k1_and_k_n);
	tcase_add_test(tc, exact_zero_sizes_and_empty);
	tcase_add_test(tc, cliques_split_on_light_edge);
	tcase_add_test(tc, cliques_with_isolated_vertex);
	tcase_add_test(tc, rebalance_path_by_hand);
	tcase_add_test(tc, rebalance_lopsided_cliques);
	tcase_add_test(tc, rebalance_random_exact_and_no_worse);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, part_opts);
	tcase_add_test(tc, better_than_random);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, deadline_passed);
	tcase_add_test(tc, memo_same_partitions);
	tcase_add_test(tc, memo_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(partition_suite());
}

/*
 * test_gen.c - pattern generators (stencil, hierarchical, random,
 * all-to-all) and transforms (shuffle, noise).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include <math.h>

/* ---------------------------------------------------------------- helpers */

/* C(i, j) of the directed matrix (0 when not stored). */
static double cw(const topomatch_affinity_t *a, int64_t i, int64_t j)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);

	for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
		if (c.col[p] == j)
			return c.w[p];
	return 0.0;
}

static int64_t row_len(const topomatch_affinity_t *a, int64_t i)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);

	return c.rowptr[i + 1] - c.rowptr[i];
}

static void assert_symmetric(const topomatch_affinity_t *a)
{
	int64_t n = topomatch_affinity_ntasks(a);

	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < n; j++)
			ck_assert_msg(cw(a, i, j) == cw(a, j, i), "C(%lld,%lld) != C(%lld,%lld)",
				      (long long)i, (long long)j, (long long)j, (long long)i);
}

static void assert_no_self_loop(const topomatch_affinity_t *a)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);

	for (int64_t i = 0; i < c.n; i++)
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
			ck_assert_int_ne(c.col[p], i);
}

static topomatch_affinity_t *stencil(int ndims, const int *dims, int points, int periodic,
				     const double *weight)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_gen_stencil(ndims, dims, points, periodic, weight, &a, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "stencil failed: %s", err);
	return a;
}

/* ---------------------------------------------------------------- stencil */

/*
 * 3x3 grid, ids   6 7 8     weights x = 2, y = 3.  Non-periodic 5 points:
 *                 3 4 5     x pairs: 2 per row x 3 rows = 6, y pairs 6;
 *                 0 1 2     both directions: 24 entries, 12*2 + 12*3 = 60.
 */
START_TEST(stencil_2d_5_open)
{
	int dims[2] = { 3, 3 };
	double w[2] = { 2, 3 };
	topomatch_affinity_t *a = stencil(2, dims, 5, 0, w);

	ck_assert_int_eq(topomatch_affinity_ntasks(a), 9);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 24);
	ck_assert_double_eq(topomatch_affinity_total(a), 60.0);
	ck_assert_double_eq(cw(a, 4, 3), 2.0);
	ck_assert_double_eq(cw(a, 4, 5), 2.0);
	ck_assert_double_eq(cw(a, 4, 1), 3.0);
	ck_assert_double_eq(cw(a, 4, 7), 3.0);
	ck_assert_double_eq(cw(a, 4, 0), 0.0); /* diagonal: not in 5 points */
	ck_assert_double_eq(cw(a, 0, 2), 0.0); /* no wrap */
	ck_assert_double_eq(cw(a, 0, 6), 0.0);
	ck_assert_int_eq(row_len(a, 0), 2);     /* corner */
	ck_assert_int_eq(row_len(a, 1), 3);     /* edge */
	ck_assert_int_eq(row_len(a, 4), 4);     /* centre */
	assert_symmetric(a);
	assert_no_self_loop(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Periodic 3x3: 4 distinct neighbours each, 36 entries, 9 * (2*2 + 2*3) = 90. */
START_TEST(stencil_2d_5_periodic)
{
	int dims[2] = { 3, 3 };
	double w[2] = { 2, 3 };
	topomatch_affinity_t *a = stencil(2, dims, 5, 1, w);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 36);
	ck_assert_double_eq(topomatch_affinity_total(a), 90.0);
	ck_assert_double_eq(cw(a, 0, 2), 2.0); /* x wraps 0 -> 2 */
	ck_assert_double_eq(cw(a, 0, 6), 3.0); /* y wraps 0 -> 6 */
	ck_assert_double_eq(cw(a, 8, 6), 2.0);
	ck_assert_double_eq(cw(a, 0, 8), 0.0);
	for (int i = 0; i < 9; i++)
		ck_assert_int_eq(row_len(a, i), 4);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * 9 points, 3x3 open, weights {2, 3}: the 4 cells of 2x2 tasks hold
 * 2 diagonal pairs each = 8 pairs = 16 entries of min(2, 3) = 2.
 * nnz = 24 + 16 = 40, total = 60 + 32 = 92.
 */
START_TEST(stencil_2d_9_open)
{
	int dims[2] = { 3, 3 };
	double w[2] = { 2, 3 };
	topomatch_affinity_t *a = stencil(2, dims, 9, 0, w);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 40);
	ck_assert_double_eq(topomatch_affinity_total(a), 92.0);
	ck_assert_double_eq(cw(a, 4, 0), 2.0);
	ck_assert_double_eq(cw(a, 4, 8), 2.0);
	ck_assert_double_eq(cw(a, 4, 2), 2.0);
	ck_assert_double_eq(cw(a, 0, 4), 2.0);
	ck_assert_double_eq(cw(a, 2, 6), 0.0); /* two steps away */
	ck_assert_int_eq(row_len(a, 4), 8);
	ck_assert_int_eq(row_len(a, 0), 3);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * 2x2x2, weights {1, 2, 4}, 7 points.  Open: 3 neighbours each, 24 entries,
 * 8 * (1 + 2 + 4) = 56.  Periodic: size 2 means +1 and -1 reach the same
 * task, both messages counted: the same 24 entries, doubled: 112.
 */
START_TEST(stencil_3d_7)
{
	int dims[3] = { 2, 2, 2 };
	double w[3] = { 1, 2, 4 };
	topomatch_affinity_t *a = stencil(3, dims, 7, 0, w);

	ck_assert_int_eq(topomatch_affinity_ntasks(a), 8);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 24);
	ck_assert_double_eq(topomatch_affinity_total(a), 56.0);
	ck_assert_double_eq(cw(a, 0, 1), 1.0);
	ck_assert_double_eq(cw(a, 0, 2), 2.0);
	ck_assert_double_eq(cw(a, 0, 4), 4.0);
	ck_assert_double_eq(cw(a, 7, 3), 4.0); /* (1,1,1) -> (1,1,0) */
	ck_assert_double_eq(cw(a, 0, 3), 0.0);
	ck_assert_double_eq(cw(a, 0, 7), 0.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);

	a = stencil(3, dims, 7, 1, w);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 24);
	ck_assert_double_eq(topomatch_affinity_total(a), 112.0);
	ck_assert_double_eq(cw(a, 0, 1), 2.0);
	ck_assert_double_eq(cw(a, 0, 2), 4.0);
	ck_assert_double_eq(cw(a, 0, 4), 8.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * 27 points, 3x3x3 periodic, weights {1, 2, 4}: all 26 directions reach
 * distinct tasks, so every pair communicates: 27 * 26 = 702 entries.
 * Per task: faces 2(1+2+4) = 14; edges xy 4*1 + xz 4*1 + yz 4*2 = 16;
 * corners 8*1 = 8; 38 in all, total 27 * 38 = 1026.
 */
START_TEST(stencil_3d_27_periodic)
{
	int dims[3] = { 3, 3, 3 };
	double w[3] = { 1, 2, 4 };
	topomatch_affinity_t *a = stencil(3, dims, 27, 1, w);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 702);
	ck_assert_double_eq(topomatch_affinity_total(a), 1026.0);
	/* centre 13 = (1,1,1) */
	ck_assert_double_eq(cw(a, 13, 0), 1.0);  /* corner */
	ck_assert_double_eq(cw(a, 13, 1), 2.0);  /* (1,0,0): crosses y, z */
	ck_assert_double_eq(cw(a, 13, 10), 2.0); /* (1,0,1): face y */
	ck_assert_double_eq(cw(a, 13, 4), 4.0);  /* (1,1,0): face z */
	ck_assert_double_eq(cw(a, 13, 12), 1.0); /* (0,1,1): face x */
	ck_assert_double_eq(cw(a, 13, 9), 1.0);  /* (0,0,1): crosses x, y */
	ck_assert_double_eq(cw(a, 0, 26), 1.0);  /* wraps in all three */
	ck_assert_double_eq(cw(a, 0, 18), 4.0);  /* (0,0,2): z wrap face */
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * 27 points, 3x3x3 open: a direction crossing c dimensions has
 * 2^c 3^(3-c) sources, and there are C(3,c) 2^c such directions:
 * 3*2*18 + 3*4*12 + 1*8*8 = 108 + 144 + 64 = 316 entries.
 */
START_TEST(stencil_3d_27_open)
{
	int dims[3] = { 3, 3, 3 };
	topomatch_affinity_t *a = stencil(3, dims, 27, 0, NULL);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 316);
	ck_assert_double_eq(topomatch_affinity_total(a), 316.0);
	ck_assert_int_eq(row_len(a, 13), 26);
	ck_assert_int_eq(row_len(a, 0), 7);
	ck_assert_int_eq(row_len(a, 1), 11); /* edge of the cube: 3*3*2 - 1 - 6 */
	ck_assert_double_eq(cw(a, 0, 26), 0.0);
	ck_assert_double_eq(cw(a, 0, 13), 1.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * A dimension of size 1 has no neighbour even when periodic: 4x1 periodic
 * is a ring of 4 (8 entries, 2 each) for 5 and 9 points alike (diagonals
 * cross y).  2x3 periodic, 5 points: x has size 2, +1 and -1 are the same
 * task: C(0,1) = 2 w_x; y has size 3: C(0,2) = C(0,4) = w_y.  3 distinct
 * neighbours each: 18 entries; total 6 * (2 w_x + 2 w_y) = 6 * 10 = 60.
 */
START_TEST(stencil_small_dims)
{
	int ring[2] = { 4, 1 };
	double w[2] = { 2, 3 };
	topomatch_affinity_t *a = stencil(2, ring, 5, 1, w);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 8);
	ck_assert_double_eq(topomatch_affinity_total(a), 16.0);
	ck_assert_double_eq(cw(a, 0, 3), 2.0);
	ck_assert_double_eq(cw(a, 0, 2), 0.0);
	topomatch_affinity_destroy(a);
	a = stencil(2, ring, 9, 1, w);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 8);
	ck_assert_double_eq(topomatch_affinity_total(a), 16.0);
	topomatch_affinity_destroy(a);

	int two[2] = { 2, 3 };
	a = stencil(2, two, 5, 1, w);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 18);
	ck_assert_double_eq(topomatch_affinity_total(a), 60.0);
	ck_assert_double_eq(cw(a, 0, 1), 4.0);
	ck_assert_double_eq(cw(a, 0, 2), 3.0);
	ck_assert_double_eq(cw(a, 0, 4), 3.0);
	ck_assert_double_eq(cw(a, 5, 4), 4.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);

	/* same grid, open: x pairs 3, y pairs 2 per column * 2 = 4:
	 * 14 entries, 6*2 + 8*3 = 36 */
	a = stencil(2, two, 5, 0, w);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 14);
	ck_assert_double_eq(topomatch_affinity_total(a), 36.0);
	ck_assert_double_eq(cw(a, 0, 1), 2.0);
	topomatch_affinity_destroy(a);

	int one[3] = { 1, 1, 1 };
	a = stencil(3, one, 27, 1, NULL);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 1);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
	topomatch_affinity_destroy(a);
}
END_TEST

/* A zero weight switches a dimension off; its diagonals get min = 0 too. */
START_TEST(stencil_zero_weight)
{
	int dims[2] = { 3, 3 };
	double w[2] = { 1, 0 };
	topomatch_affinity_t *a = stencil(2, dims, 9, 0, w);

	ck_assert_int_eq(topomatch_affinity_nnz(a), 12); /* x only */
	ck_assert_double_eq(topomatch_affinity_total(a), 12.0);
	topomatch_affinity_destroy(a);
}
END_TEST

static void stencil_refused(int ndims, const int *dims, int points, const double *w, int want,
			    const char *msg)
{
	topomatch_affinity_t *a = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_stencil(ndims, dims, points, 0, w, &a, err), want);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, msg);
}

START_TEST(stencil_errors)
{
	int d2[2] = { 3, 3 }, d3[3] = { 3, 3, 3 }, zero[2] = { 3, 0 }, neg[2] = { -1, 3 };
	int huge[3] = { 100000, 100000, 1 };
	double wneg[3] = { 1, -1, 1 }, wnan[3] = { 1, 1, NAN }, winf[2] = { INFINITY, 1 };

	stencil_refused(1, d2, 5, NULL, TOPOMATCH_EINVAL, "ndims must be 2 or 3");
	stencil_refused(4, d3, 7, NULL, TOPOMATCH_EINVAL, "ndims must be 2 or 3");
	stencil_refused(2, d2, 7, NULL, TOPOMATCH_EINVAL, "5 or 9 points");
	stencil_refused(3, d3, 9, NULL, TOPOMATCH_EINVAL, "7 or 27 points");
	stencil_refused(3, d3, 5, NULL, TOPOMATCH_EINVAL, "7 or 27 points");
	stencil_refused(2, zero, 5, NULL, TOPOMATCH_EINVAL, "dimension 1 has size 0");
	stencil_refused(2, neg, 5, NULL, TOPOMATCH_EINVAL, "dimension 0 has size -1");
	stencil_refused(2, NULL, 5, NULL, TOPOMATCH_EINVAL, "no dimensions");
	stencil_refused(3, d3, 7, wneg, TOPOMATCH_EINVAL, "weight of dimension 1");
	stencil_refused(3, d3, 7, wnan, TOPOMATCH_EINVAL, "weight of dimension 2");
	stencil_refused(2, d2, 5, winf, TOPOMATCH_EINVAL, "weight of dimension 0");
	stencil_refused(3, huge, 7, NULL, TOPOMATCH_ELIMIT, "tasks");
}
END_TEST

/* ------------------------------------------------------------ hierarchical */

/* Level of the smallest common group for arity {2,2,2}: pairs, quads, all. */
static int level222(int i, int j)
{
	if (i / 2 == j / 2)
		return 1;
	return i / 4 == j / 4 ? 2 : 3;
}

/*
 * arity {2,2,2}, base 100, ratio 4, jitter 0.2: (1-0.2)*4 = 3.2 > 1.2.
 * Bands: level 1 [80, 120], level 2 [20, 30], level 3 [5, 7.5].
 * Task 0 has 1 level-1, 2 level-2 and 4 level-3 partners: 56 entries.
 */
START_TEST(hier_bands)
{
	int arity[3] = { 2, 2, 2 };
	double lo[4] = { 0, 80, 20, 5 }, hi[4] = { 0, 120, 30, 7.5 };
	double min[4] = { 0, INFINITY, INFINITY, INFINITY }, max[4] = { 0 };
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 100, 4, 0.2, 42, &a, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 8);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 56);
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 8; j++) {
			if (i == j)
				continue;
			int l = level222(i, j);
			double w = cw(a, i, j);
			ck_assert_msg(w >= lo[l] && w <= hi[l],
				      "C(%d,%d) = %g not in level %d band", i, j, w, l);
			min[l] = fmin(min[l], w);
			max[l] = fmax(max[l], w);
		}
	}
	ck_assert_double_lt(max[2], min[1]);
	ck_assert_double_lt(max[3], min[2]);
	/* the jitter does something: not all level-1 weights are equal */
	ck_assert_double_lt(min[1], max[1]);
	assert_symmetric(a);
	assert_no_self_loop(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/* No jitter: exact weights; per task 100 + 2*25 + 4*6.25 = 175, total 1400. */
START_TEST(hier_exact)
{
	int arity[3] = { 2, 2, 2 };
	topomatch_affinity_t *a = NULL;

	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 100, 4, 0, 1, &a, NULL),
			 TOPOMATCH_OK);
	ck_assert_double_eq(cw(a, 0, 1), 100.0);
	ck_assert_double_eq(cw(a, 6, 7), 100.0);
	ck_assert_double_eq(cw(a, 0, 3), 25.0);
	ck_assert_double_eq(cw(a, 5, 6), 25.0); /* both in quad 4..7 */
	ck_assert_double_eq(cw(a, 1, 6), 6.25);
	ck_assert_double_eq(cw(a, 3, 4), 6.25);
	ck_assert_double_eq(topomatch_affinity_total(a), 1400.0);
	topomatch_affinity_destroy(a);

	/* arity listed innermost first: {3, 2} = 2 groups of 3 */
	int a32[2] = { 3, 2 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, a32, 10, 2, 0, 1, &a, NULL),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 6);
	ck_assert_double_eq(cw(a, 0, 2), 10.0);
	ck_assert_double_eq(cw(a, 2, 3), 5.0);
	topomatch_affinity_destroy(a);

	/* one task: a valid, empty pattern */
	int one = 1;
	ck_assert_int_eq(topomatch_gen_hierarchical(1, &one, 10, 2, 0, 1, &a, NULL),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(hier_seed)
{
	int arity[3] = { 2, 2, 2 };
	topomatch_affinity_t *a = NULL, *b = NULL, *c = NULL;

	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 100, 4, 0.2, 7, &a, NULL), 0);
	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 100, 4, 0.2, 7, &b, NULL), 0);
	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 100, 4, 0.2, 8, &c, NULL), 0);
	ck_assert(tm_same_matrix(a, b));
	ck_assert(!tm_same_matrix(a, c));
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(c);
}
END_TEST

static void hier_refused(int nlevels, const int *arity, double base, double ratio,
			 double jitter, int want, const char *msg)
{
	topomatch_affinity_t *a = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_hierarchical(nlevels, arity, base, ratio, jitter, 1, &a,
						    err),
			 want);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, msg);
}

START_TEST(hier_errors)
{
	int arity[3] = { 2, 2, 2 }, zero[2] = { 2, 0 }, big = 20000;

	hier_refused(0, arity, 1, 2, 0, TOPOMATCH_EINVAL, "nlevels");
	hier_refused(33, arity, 1, 2, 0, TOPOMATCH_EINVAL, "nlevels");
	hier_refused(2, zero, 1, 2, 0, TOPOMATCH_EINVAL, "arity of level 2 is 0");
	hier_refused(3, arity, 0, 2, 0, TOPOMATCH_EINVAL, "base");
	hier_refused(3, arity, NAN, 2, 0, TOPOMATCH_EINVAL, "base");
	hier_refused(3, arity, 1, 1, 0, TOPOMATCH_EINVAL, "ratio");
	hier_refused(3, arity, 1, NAN, 0, TOPOMATCH_EINVAL, "ratio");
	hier_refused(3, arity, 1, 2, 1, TOPOMATCH_EINVAL, "jitter");
	hier_refused(3, arity, 1, 2, -0.1, TOPOMATCH_EINVAL, "jitter");
	/* ratio 2: need jitter < 1/3; 0.5 * 2 = 1 is not > 1.5 */
	hier_refused(3, arity, 1, 2, 0.5, TOPOMATCH_EINVAL, "overlap");
	hier_refused(3, arity, 1, 2, 0.34, TOPOMATCH_EINVAL, "overlap"); /* 1.32 < 1.34 */
	hier_refused(3, arity, 1e-300, 1e10, 0, TOPOMATCH_EINVAL, "range of doubles");
	/* 20000 * 19999 = 399,980,000 > 2^28 */
	hier_refused(1, &big, 1, 2, 0, TOPOMATCH_ELIMIT, "dense");
}
END_TEST

/* ------------------------------------------------------------------ random */

START_TEST(random_rows)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_random(50, 5, 10, 3, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 50);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 250);
	topomatch_csr_t c = topomatch_affinity_directed(a);
	for (int64_t i = 0; i < 50; i++) {
		ck_assert_int_eq(row_len(a, i), 5); /* distinct: no duplicate merged */
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++) {
			ck_assert_double_ge(c.w[p], 1.0);
			ck_assert_double_le(c.w[p], 10.0);
			ck_assert_double_eq(c.w[p], (double)(int64_t)c.w[p]); /* whole */
		}
	}
	assert_no_self_loop(a);
	topomatch_affinity_destroy(a);
}
END_TEST

/* degree = n - 1 is a complete graph; maxw = 1 makes every weight 1. */
START_TEST(random_full)
{
	topomatch_affinity_t *a = NULL;

	ck_assert_int_eq(topomatch_gen_random(10, 9, 1, 5, &a, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 90);
	ck_assert_double_eq(topomatch_affinity_total(a), 90.0);
	assert_no_self_loop(a);
	topomatch_affinity_destroy(a);

	ck_assert_int_eq(topomatch_gen_random(1, 0, 1, 5, &a, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(random_seed)
{
	topomatch_affinity_t *a = NULL, *b = NULL, *c = NULL;

	ck_assert_int_eq(topomatch_gen_random(100, 4, 8, 11, &a, NULL), 0);
	ck_assert_int_eq(topomatch_gen_random(100, 4, 8, 11, &b, NULL), 0);
	ck_assert_int_eq(topomatch_gen_random(100, 4, 8, 12, &c, NULL), 0);
	ck_assert(tm_same_matrix(a, b));
	ck_assert(!tm_same_matrix(a, c));
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(c);
}
END_TEST

/* With 2000 tasks and degree 3, targets must spread over the whole range
 * (a sampler stuck on low ids would leave most columns empty). */
START_TEST(random_spread)
{
	topomatch_affinity_t *a = NULL;

	ck_assert_int_eq(topomatch_gen_random(2000, 3, 5, 1, &a, NULL), 0);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	int64_t isolated = 0;
	for (int64_t i = 0; i < 2000; i++)
		isolated += s.rowptr[i + 1] == s.rowptr[i];
	ck_assert_int_eq(isolated, 0); /* every task sends 3 at least */
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t hi = 0;
	for (int64_t p = 0; p < c.rowptr[c.n]; p++)
		hi += c.col[p] >= 1000;
	/* about half of the 6000 targets are >= 1000 */
	ck_assert_int_gt(hi, 2500);
	ck_assert_int_lt(hi, 3500);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(random_errors)
{
	topomatch_affinity_t *a = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_random(0, 0, 1, 1, &a, err), TOPOMATCH_EINVAL);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(topomatch_gen_random(10, 10, 1, 1, &a, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "degree");
	ck_assert_int_eq(topomatch_gen_random(10, -1, 1, 1, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_random(10, 2, 0.5, 1, &a, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "maxw");
	ck_assert_int_eq(topomatch_gen_random(10, 2, NAN, 1, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_random(10, 2, INFINITY, 1, &a, err), TOPOMATCH_EINVAL);
	/* 2^22 * 100 = 419,430,400 > 2^28 */
	ck_assert_int_eq(topomatch_gen_random(INT64_C(1) << 22, 100, 1, 1, &a, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_int_eq(topomatch_gen_random((INT64_C(1) << 22) + 1, 1, 1, 1, &a, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(a);
}
END_TEST

/* -------------------------------------------------------------- all-to-all */

START_TEST(alltoall)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	/* 5 tasks: 5 * 4 = 20 entries of 2 */
	ck_assert_int_eq(topomatch_gen_alltoall(5, 2, 0, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 20);
	ck_assert_double_eq(topomatch_affinity_total(a), 40.0);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert_double_eq(cw(a, i, j), i == j ? 0.0 : 2.0);
	topomatch_affinity_destroy(a);

	ck_assert_int_eq(topomatch_gen_alltoall(5, 2, 20, &a, err), TOPOMATCH_OK);
	topomatch_affinity_destroy(a);
	ck_assert_int_eq(topomatch_gen_alltoall(5, 2, 19, &a, err), TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, "limit of 19");
	/* default limit 2^28 < 20000 * 19999 */
	ck_assert_int_eq(topomatch_gen_alltoall(20000, 1, 0, &a, err), TOPOMATCH_ELIMIT);
	ck_assert_int_eq(topomatch_gen_alltoall(INT64_MAX, 1, 0, &a, err), TOPOMATCH_ELIMIT);

	ck_assert_int_eq(topomatch_gen_alltoall(1, 2, 0, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
	topomatch_affinity_destroy(a);

	ck_assert_int_eq(topomatch_gen_alltoall(0, 2, 0, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_alltoall(5, 0, 0, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_alltoall(5, -1, 0, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_alltoall(5, NAN, 0, &a, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "weight");
}
END_TEST

/* ----------------------------------------------------------------- shuffle */

/*
 * 6 tasks, task i sends 10 i + j + 1 to j = i+1 and i+3 (mod 6): every
 * weight names its pair.  load[i] = i names the task, so after the
 * shuffle perm[i] is the task whose load is i.
 */
static topomatch_affinity_t *labelled(void)
{
	int64_t src[12], dst[12];
	double w[12], loads[6];
	topomatch_affinity_t *a = NULL;

	for (int i = 0; i < 6; i++) {
		loads[i] = i;
		src[2 * i] = src[2 * i + 1] = i;
		dst[2 * i] = (i + 1) % 6;
		dst[2 * i + 1] = (i + 3) % 6;
		w[2 * i] = 10.0 * i + dst[2 * i] + 1;
		w[2 * i + 1] = 10.0 * i + dst[2 * i + 1] + 1;
	}
	ck_assert_int_eq(topomatch_affinity_create(6, 12, src, dst, w, loads, &a, NULL), 0);
	return a;
}

/* Recover perm from the loads; asserts that it is a bijection. */
static void perm_of(const topomatch_affinity_t *b, int64_t *perm)
{
	const double *l = topomatch_affinity_loads(b);
	int hits[6] = { 0 };

	ck_assert_ptr_nonnull(l);
	for (int i = 0; i < 6; i++)
		perm[i] = -1;
	for (int p = 0; p < 6; p++) {
		int i = (int)l[p];
		ck_assert_double_eq(l[p], i);
		ck_assert(i >= 0 && i < 6);
		perm[i] = p;
		hits[i]++;
	}
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(hits[i], 1);
}

START_TEST(shuffle_moves)
{
	topomatch_affinity_t *a = labelled(), *b = NULL, *c = NULL;
	int64_t perm[6];
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_affinity_shuffle(a, 3, &b, err), TOPOMATCH_OK);
	perm_of(b, perm);
	int moved = 0;
	for (int i = 0; i < 6; i++) {
		moved += perm[i] != i;
		for (int j = 0; j < 6; j++)
			ck_assert_double_eq(cw(b, perm[i], perm[j]), cw(a, i, j));
	}
	ck_assert_int_gt(moved, 0);
	ck_assert_int_eq(topomatch_affinity_nnz(b), 12);
	ck_assert_double_eq(topomatch_affinity_total(b), topomatch_affinity_total(a));

	ck_assert_int_eq(topomatch_affinity_shuffle(a, 3, &c, err), TOPOMATCH_OK);
	ck_assert(tm_same_matrix(b, c));
	ck_assert_mem_eq(topomatch_affinity_loads(b), topomatch_affinity_loads(c),
			 6 * sizeof(double));
	topomatch_affinity_destroy(c);
	ck_assert_int_eq(topomatch_affinity_shuffle(a, 4, &c, err), TOPOMATCH_OK);
	ck_assert(!tm_same_matrix(b, c));
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(c);
}
END_TEST

/* Without loads the result has none; a stencil keeps its volume and degree. */
START_TEST(shuffle_no_loads)
{
	int dims[2] = { 4, 4 };
	topomatch_affinity_t *a = stencil(2, dims, 5, 1, NULL), *b = NULL;

	ck_assert_int_eq(topomatch_affinity_shuffle(a, 9, &b, NULL), TOPOMATCH_OK);
	ck_assert_ptr_null(topomatch_affinity_loads(b));
	ck_assert_int_eq(topomatch_affinity_nnz(b), 64);
	ck_assert_double_eq(topomatch_affinity_total(b), 64.0);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(row_len(b, i), 4);
	assert_symmetric(b);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);

	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_affinity_shuffle(NULL, 1, &b, err), TOPOMATCH_EINVAL);
	ck_assert_ptr_null(b);
}
END_TEST

/* ------------------------------------------------------------------- noise */

/* 6 tasks, sparse: 0->1 100, 1->0 50, 2->3 10, 4->5 1, 5->2 7 (5 of 30). */
static topomatch_affinity_t *sparse6(void)
{
	int64_t src[5] = { 0, 1, 2, 4, 5 }, dst[5] = { 1, 0, 3, 5, 2 };
	double w[5] = { 100, 50, 10, 1, 7 }, loads[6] = { 1, 2, 3, 4, 5, 6 };
	topomatch_affinity_t *a = NULL;

	ck_assert_int_eq(topomatch_affinity_create(6, 5, src, dst, w, loads, &a, NULL), 0);
	return a;
}

static topomatch_affinity_t *noisy(const topomatch_affinity_t *a, int model, double k,
				   uint64_t seed)
{
	topomatch_affinity_t *b = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_affinity_noise(a, model, k, seed, 0, &b, err) == 0,
		      "noise failed: %s", err);
	ck_assert_mem_eq(topomatch_affinity_loads(b), topomatch_affinity_loads(a),
			 6 * sizeof(double));
	return b;
}

static void assert_positive(const topomatch_affinity_t *a)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);

	for (int64_t p = 0; p < c.rowptr[c.n]; p++)
		ck_assert_double_gt(c.w[p], 0.0);
}

START_TEST(noise_k0)
{
	topomatch_affinity_t *a = sparse6();

	for (int model = TOPOMATCH_NOISE_GA; model <= TOPOMATCH_NOISE_UM; model++) {
		topomatch_affinity_t *b = noisy(a, model, 0, 5);
		ck_assert_msg(tm_same_matrix(a, b), "model %d with k = 0 changed the matrix", model);
		topomatch_affinity_destroy(b);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

/* m + m U(-k, k) with k = 0.5 stays in [m/2, 3m/2]; never a new entry. */
START_TEST(noise_multiplicative)
{
	topomatch_affinity_t *a = sparse6();

	for (int model = TOPOMATCH_NOISE_GM; model <= TOPOMATCH_NOISE_UM; model += 2) {
		topomatch_affinity_t *b = noisy(a, model, 0.5, 5);
		topomatch_csr_t c = topomatch_affinity_directed(b);
		for (int64_t i = 0; i < 6; i++) {
			for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++) {
				double m = cw(a, i, c.col[p]);
				ck_assert_double_gt(m, 0.0);
				if (model == TOPOMATCH_NOISE_UM) {
					ck_assert_double_ge(c.w[p], 0.5 * m);
					ck_assert_double_le(c.w[p], 1.5 * m);
				}
			}
		}
		ck_assert_int_le(topomatch_affinity_nnz(b), 5);
		ck_assert(!tm_same_matrix(a, b));
		assert_positive(b);
		topomatch_affinity_destroy(b);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * Gaussian multiplicative with k = 3 on 210 entries: P(1 + N(0,3) < 0) =
 * P(N < -1/3) ~ 0.37, so many are truncated: the pattern shrinks, and no
 * weight is ever negative.
 */
START_TEST(noise_truncates)
{
	topomatch_affinity_t *a = NULL, *b = NULL;

	ck_assert_int_eq(topomatch_gen_alltoall(15, 1, 0, &a, NULL), 0); /* 210 entries */
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_GM, 3, 1, 0, &b, NULL), 0);
	ck_assert_int_lt(topomatch_affinity_nnz(b), 180);
	ck_assert_int_gt(topomatch_affinity_nnz(b), 90);
	assert_positive(b);
	topomatch_affinity_destroy(b);
	/* additive on a full matrix: 1 + U(-3, 3) < 0 with probability 1/3 */
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UA, 3, 1, 0, &b, NULL), 0);
	ck_assert_int_lt(topomatch_affinity_nnz(b), 180);
	ck_assert_int_gt(topomatch_affinity_nnz(b), 100);
	assert_positive(b);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * Uniform additive k = 1 on sparse6: the 25 zeros become U(-1, 1), about
 * half of them positive (all in (0, 1)); the 5 entries move by < 1.
 */
START_TEST(noise_additive_fills)
{
	topomatch_affinity_t *a = sparse6();

	for (int model = TOPOMATCH_NOISE_GA; model <= TOPOMATCH_NOISE_UA; model += 2) {
		topomatch_affinity_t *b = noisy(a, model, 1, 5);
		int64_t fresh = 0;
		for (int64_t i = 0; i < 6; i++) {
			for (int64_t j = 0; j < 6; j++) {
				double m = cw(a, i, j), v = cw(b, i, j);
				ck_assert_double_ge(v, 0.0);
				if (model == TOPOMATCH_NOISE_UA && m >= 1.0)
					ck_assert_double_le(fabs(v - m), 1.0);
				if (m == 0.0 && v > 0.0)
					fresh++;
				if (model == TOPOMATCH_NOISE_UA && m == 0.0)
					ck_assert_double_lt(v, 1.0);
			}
		}
		ck_assert_double_eq(cw(b, 2, 2), 0.0);
		ck_assert_int_gt(fresh, 3);
		ck_assert_int_lt(fresh, 22);
		ck_assert_int_gt(topomatch_affinity_nnz(b), topomatch_affinity_nnz(a));
		assert_no_self_loop(b);
		assert_positive(b);
		topomatch_affinity_destroy(b);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(noise_seed)
{
	topomatch_affinity_t *a = sparse6();

	for (int model = TOPOMATCH_NOISE_GA; model <= TOPOMATCH_NOISE_UM; model++) {
		topomatch_affinity_t *b = noisy(a, model, 0.3, 21);
		topomatch_affinity_t *c = noisy(a, model, 0.3, 21);
		topomatch_affinity_t *d = noisy(a, model, 0.3, 22);
		ck_assert(tm_same_matrix(b, c));
		ck_assert(!tm_same_matrix(b, d));
		topomatch_affinity_destroy(b);
		topomatch_affinity_destroy(c);
		topomatch_affinity_destroy(d);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(noise_limits)
{
	topomatch_affinity_t *a = sparse6(), *big = NULL, *b = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	/* 6 * 5 = 30 possible entries */
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UA, 1, 1, 29, &b, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(b);
	ck_assert_contains(err, "multiplicative");
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UA, 1, 1, 30, &b, err), 0);
	topomatch_affinity_destroy(b);
	/* multiplicative ignores the limit: it never adds entries */
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UM, 1, 1, 2, &b, err), 0);
	topomatch_affinity_destroy(b);

	/* 20000 tasks, sparse: 20000 * 19999 > 2^28 for additive only */
	ck_assert_int_eq(topomatch_gen_random(20000, 1, 1, 1, &big, NULL), 0);
	ck_assert_int_eq(topomatch_affinity_noise(big, TOPOMATCH_NOISE_GA, 1, 1, 0, &b, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "multiplicative");
	ck_assert_int_eq(topomatch_affinity_noise(big, TOPOMATCH_NOISE_GM, 1, 1, 0, &b, err), 0);
	ck_assert_int_le(topomatch_affinity_nnz(b), 20000);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(big);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(noise_errors)
{
	topomatch_affinity_t *a = sparse6(), *b = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_GA, -1, 1, 0, &b, err),
			 TOPOMATCH_EINVAL);
	ck_assert_ptr_null(b);
	ck_assert_contains(err, "k must be");
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_GA, NAN, 1, 0, &b, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UM, INFINITY, 1, 0, &b,
						  err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_affinity_noise(a, 0, 1, 1, 0, &b, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown model");
	ck_assert_int_eq(topomatch_affinity_noise(a, 5, 1, 1, 0, &b, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_affinity_noise(a, -1, 1, 1, 0, &b, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_affinity_noise(NULL, 1, 1, 1, 0, &b, err), TOPOMATCH_EINVAL);
	ck_assert_ptr_null(b);
	topomatch_affinity_destroy(a);

	/* 1e308 (1 + N(0, 1e6)) overflows whenever N > 1e-6, about one seed in
	 * two; among 10 seeds, some overflow and the others succeed. */
	int64_t zero = 0, one = 1;
	double huge = 1e308;
	int overflows = 0;
	ck_assert_int_eq(topomatch_affinity_create(2, 1, &zero, &one, &huge, NULL, &a, NULL), 0);
	for (uint64_t seed = 1; seed <= 10; seed++) {
		int rc = topomatch_affinity_noise(a, TOPOMATCH_NOISE_GM, 1e6, seed, 0, &b, err);
		if (rc == TOPOMATCH_EINVAL) {
			overflows++;
			ck_assert_contains(err, "overflows");
			ck_assert_ptr_null(b);
		} else {
			ck_assert_int_eq(rc, TOPOMATCH_OK);
			topomatch_affinity_destroy(b);
		}
	}
	ck_assert_int_gt(overflows, 0);
	ck_assert_int_lt(overflows, 10);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(noise_names)
{
	ck_assert_int_eq(topomatch_noise_from_name("ga"), TOPOMATCH_NOISE_GA);
	ck_assert_int_eq(topomatch_noise_from_name("GA"), TOPOMATCH_NOISE_GA);
	ck_assert_int_eq(topomatch_noise_from_name("Gaussian-Additive"), TOPOMATCH_NOISE_GA);
	ck_assert_int_eq(topomatch_noise_from_name("gm"), TOPOMATCH_NOISE_GM);
	ck_assert_int_eq(topomatch_noise_from_name("gaussian-multiplicative"),
			 TOPOMATCH_NOISE_GM);
	ck_assert_int_eq(topomatch_noise_from_name("ua"), TOPOMATCH_NOISE_UA);
	ck_assert_int_eq(topomatch_noise_from_name("UNIFORM-ADDITIVE"), TOPOMATCH_NOISE_UA);
	ck_assert_int_eq(topomatch_noise_from_name("Um"), TOPOMATCH_NOISE_UM);
	ck_assert_int_eq(topomatch_noise_from_name("uniform-multiplicative"),
			 TOPOMATCH_NOISE_UM);
	ck_assert_int_eq(topomatch_noise_from_name(""), -1);
	ck_assert_int_eq(topomatch_noise_from_name("g"), -1);
	ck_assert_int_eq(topomatch_noise_from_name("gax"), -1);
	ck_assert_int_eq(topomatch_noise_from_name("gaussian"), -1);
	ck_assert_int_eq(topomatch_noise_from_name("uniform-additive "), -1);
	ck_assert_int_eq(topomatch_noise_from_name(NULL), -1);
}
END_TEST

/* -------------------------------------------------------------------- main */

/* ---------------------------------------------------------------- NAS kernels */

static topomatch_affinity_t *nas(int kernel, int64_t n, char cls)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_gen_nas(kernel, n, cls, &a, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "nas %d on %lld: %s", kernel, (long long)n, err);
	assert_no_self_loop(a);
	return a;
}

static void nas_fails(int kernel, int64_t n, char cls, int status, const char *msg)
{
	topomatch_affinity_t *a = (topomatch_affinity_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_nas(kernel, n, cls, &a, err), status);
	ck_assert(a == NULL);
	ck_assert_contains(err, msg);
}

START_TEST(nas_names)
{
	const char *names[] = { "cg", "lu", "mg", "ft", "bt", "sp" };
	for (int k = 0; k < 6; k++)
		ck_assert_int_eq(topomatch_nas_from_name(names[k]), TOPOMATCH_NAS_CG + k);
	ck_assert_int_eq(topomatch_nas_from_name("ep"), -1);
	ck_assert_int_eq(topomatch_nas_from_name("CG"), -1);
	ck_assert_int_eq(topomatch_nas_from_name(NULL), -1);
}
END_TEST

/*
 * CG class A (na 14000, 15 outer iterations of 25 + 1 products) on 64 = 8 x
 * 8: rows of 8 (EagerMap Fig. 1b), 3 recursive-doubling partners each,
 * plus the transpose (row, col) <-> (col, row).  m = 14000 / 8 = 1750:
 * vector 8 x 1750 x 26 x 15 = 5460000, scalars 8 x 54 x 15 = 6480.
 */
START_TEST(nas_cg)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_CG, 64, 'A');

	ck_assert_int_eq(topomatch_affinity_nnz(a), 64 * 3 + 56);
	/* task 10 = row 1, col 2: partners cols 3, 0, 6; transpose (2, 1) = 17 */
	ck_assert_double_eq(cw(a, 10, 11), 5466480.0);
	ck_assert_double_eq(cw(a, 10, 8), 5466480.0);
	ck_assert_double_eq(cw(a, 10, 14), 5466480.0);
	ck_assert_double_eq(cw(a, 10, 17), 5460000.0);
	ck_assert_int_eq(row_len(a, 10), 4);
	ck_assert_int_eq(row_len(a, 9), 3); /* (1, 1): its own transpose */
	for (int i = 0; i < 64; i++) {
		topomatch_csr_t c = topomatch_affinity_directed(a);
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
			ck_assert(c.col[p] / 8 == i / 8 || c.col[p] == (i % 8) * 8 + i / 8);
	}
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
	/* 32 = 4 rows x 8 columns: exch_proc = 2 ((me/2) % 4 * 4 + me/2/4) + me % 2 */
	a = nas(TOPOMATCH_NAS_CG, 32, 'A');
	ck_assert_double_eq(cw(a, 2, 8), 5460000.0);
	ck_assert_double_eq(cw(a, 8, 2), 5460000.0);
	ck_assert_double_eq(cw(a, 2, 3), 5466480.0);  /* col 2 ^ 1 */
	ck_assert_double_eq(cw(a, 2, 6), 5466480.0);  /* col 2 ^ 4 */
	ck_assert_int_eq(topomatch_affinity_nnz(a), 32 * 3 + 24);
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_CG, 1, 'S');
	ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
	topomatch_affinity_destroy(a);
	nas_fails(TOPOMATCH_NAS_CG, 48, 'A', TOPOMATCH_EINVAL,
		  "cg runs on a power-of-two number of processes (NPB): 48 is not one (32 or 64 are)");
	nas_fails(TOPOMATCH_NAS_CG, 4194304, 'S', TOPOMATCH_EINVAL,
		  "cg class S: 4194304 processes need 2048 columns, more than its 1400 rows");
}
END_TEST

/*
 * LU class A (64^3, 250 iterations): 40 x face x (3 x 64 - 2) x 250 bytes
 * to each mesh neighbour, face = the sender's extent along the other axis.
 */
START_TEST(nas_lu)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_LU, 16, 'A');

	ck_assert_int_eq(topomatch_affinity_nnz(a), 48); /* 4 x 4 mesh, not periodic */
	ck_assert_double_eq(cw(a, 0, 1), 40.0 * 16 * 190 * 250);
	ck_assert_double_eq(cw(a, 5, 9), 40.0 * 16 * 190 * 250);
	ck_assert_double_eq(cw(a, 0, 3), 0.0);
	ck_assert_double_eq(cw(a, 0, 12), 0.0);
	ck_assert_double_eq(cw(a, 0, 5), 0.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
	/* 8 = xdim 4 x ydim 2: along x the face is 64 / 2 = 32, along y 64 / 4 */
	a = nas(TOPOMATCH_NAS_LU, 8, 'A');
	ck_assert_double_eq(cw(a, 0, 1), 40.0 * 32 * 190 * 250);
	ck_assert_double_eq(cw(a, 0, 4), 40.0 * 16 * 190 * 250);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 2 * (3 * 2 + 4));
	topomatch_affinity_destroy(a);
	/* class B: 102 = 26 + 26 + 25 + 25 over 4 */
	a = nas(TOPOMATCH_NAS_LU, 16, 'B');
	ck_assert_double_eq(cw(a, 0, 1), 40.0 * 26 * 304 * 250);
	ck_assert_double_eq(cw(a, 12, 13), 40.0 * 25 * 304 * 250);
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_LU, 256, 'B');
	topomatch_affinity_destroy(a);
	/* TopoMatch footnote 9: class B on at most 256 processes */
	nas_fails(TOPOMATCH_NAS_LU, 512, 'B', TOPOMATCH_EINVAL,
		  "lu class B (102^3) on 512 processes: a 32 x 16 grid leaves fewer than 4 "
		  "points per process, which NPB's LU refuses (at most 256 processes for this "
		  "class)");
	nas_fails(TOPOMATCH_NAS_LU, 12, 'A', TOPOMATCH_EINVAL, "power-of-two");
}
END_TEST

/*
 * MG class S (32^3, 4 iterations, 4 exchanges per level and iteration).
 * 8 = 2 x 2 x 2, all periodic: the +1 and -1 partners coincide, the two
 * faces add up; level k has 2^(k-1) points per process and axis:
 * 2 x 8 x 16 x (1 + 4 + 16 + 64 + 256) = 87296.
 */
START_TEST(nas_mg)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_MG, 8, 'S');

	ck_assert_int_eq(topomatch_affinity_nnz(a), 8 * 3);
	ck_assert_double_eq(cw(a, 0, 1), 87296.0);
	ck_assert_double_eq(cw(a, 0, 2), 87296.0);
	ck_assert_double_eq(cw(a, 0, 4), 87296.0);
	topomatch_affinity_destroy(a);
	/* 64 = 4 x 4 x 4: levels 5..2 at distance 1 (8 x 16 x (1+4+16+64)),
	 * level 1 (2 points per axis) only on even coordinates, at distance 2,
	 * both directions to the same process: 2 x 8 x 16 */
	a = nas(TOPOMATCH_NAS_MG, 64, 'S');
	ck_assert_double_eq(cw(a, 0, 1), 10880.0);
	ck_assert_double_eq(cw(a, 0, 3), 10880.0); /* wraps */
	ck_assert_double_eq(cw(a, 0, 2), 256.0);   /* the distant partner */
	ck_assert_double_eq(cw(a, 0, 32), 256.0);
	ck_assert_double_eq(cw(a, 1, 3), 0.0);     /* odd x: no point at level 1 */
	ck_assert_int_eq(row_len(a, 0), 9);
	ck_assert_int_eq(row_len(a, 1), 6);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
	/* 16 = 2 x 2 x 4 (px = 2^floor(4/3), py = 2^floor(3/2)) */
	a = nas(TOPOMATCH_NAS_MG, 16, 'S');
	ck_assert(cw(a, 0, 1) > 0 && cw(a, 0, 2) > 0 && cw(a, 0, 4) > 0 && cw(a, 0, 12) > 0);
	ck_assert_double_eq(cw(a, 0, 3), 0.0);
	topomatch_affinity_destroy(a);
	nas_fails(TOPOMATCH_NAS_MG, 65536, 'S', TOPOMATCH_EINVAL,
		  "mg class S (32^3) on 65536 processes: a 32 x 32 x 64 grid has more "
		  "processes than points along an axis");
}
END_TEST

/*
 * FT class S (64^3 complex, 6 + 1 FFTs).  4 processes: one all-to-all,
 * 16 x 64^3 / (4 x 4) x 7 per pair.  128 > nz = 64: a 64 x 2 grid,
 * rows of 2 (16 x 64^3 / (128 x 2) x 7) and columns of 64 (stride 2).
 */
START_TEST(nas_ft)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_FT, 4, 'S');

	ck_assert_int_eq(topomatch_affinity_nnz(a), 12);
	ck_assert_double_eq(cw(a, 3, 1), 1835008.0);
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_FT, 128, 'S');
	ck_assert_int_eq(topomatch_affinity_nnz(a), 128 * (1 + 63));
	ck_assert_double_eq(cw(a, 0, 1), 114688.0);
	ck_assert_double_eq(cw(a, 0, 2), 3584.0);
	ck_assert_double_eq(cw(a, 0, 126), 3584.0);
	ck_assert_double_eq(cw(a, 0, 3), 0.0);
	ck_assert_double_eq(cw(a, 1, 127), 3584.0);
	assert_symmetric(a);
	topomatch_affinity_destroy(a);
	nas_fails(TOPOMATCH_NAS_FT, 8192, 'S', TOPOMATCH_EINVAL,
		  "ft class S (64x64x64) on 8192 processes: at most 4096 (n2 x n3)");
	/* class E fits 2^22 processes, but 2^22 x 4094 partners do not */
	nas_fails(TOPOMATCH_NAS_FT, INT64_C(1) << 22, 'E', TOPOMATCH_ELIMIT,
		  "ft on 4194304 processes: more than 268435456 entries (limit)");
}
END_TEST

/*
 * BT class S (12^3, 60 steps) on 4 = 2 x 2: cells of 6^3, faces of 36
 * points; each process has one cell at the start and one at the end of
 * every direction: 36 x 8 x 60 x ((10 + 30) + (10 + 5)) to each partner.
 * SP: 100 steps, 22 and 10.
 */
START_TEST(nas_bt_sp)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_BT, 4, 'S');

	ck_assert_int_eq(topomatch_affinity_nnz(a), 12);
	ck_assert_double_eq(cw(a, 0, 1), 36.0 * 8 * 60 * 55);
	ck_assert_double_eq(cw(a, 0, 3), 36.0 * 8 * 60 * 55); /* z: (i-1, j+1) */
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_SP, 4, 'S');
	ck_assert_double_eq(cw(a, 2, 0), 36.0 * 8 * 100 * 52);
	topomatch_affinity_destroy(a);
	/* 9 = 3 x 3: x (i +- 1, j), y (i, j +- 1), z (i - 1, j + 1) and
	 * (i + 1, j - 1): task 0 = (0, 0) -> 1, 2, 3, 6, 5 = (2, 1), 7 = (1, 2) */
	a = nas(TOPOMATCH_NAS_BT, 9, 'S');
	ck_assert_int_eq(topomatch_affinity_nnz(a), 54);
	const int partners[6] = { 1, 2, 3, 6, 5, 7 };
	for (int k = 0; k < 6; k++)
		ck_assert_msg(cw(a, 0, partners[k]) > 0, "0 -> %d", partners[k]);
	ck_assert_double_eq(cw(a, 0, 4), 0.0);
	ck_assert_double_eq(cw(a, 0, 8), 0.0);
	/* along x a process has one cell at each x: cells 0 and 1 send to
	 * the successor (10 + 30), cells 1 and 2 to the predecessor (10 + 5):
	 * C(i, succ) : C(succ, i) = 80 : 30 (cells of 4^3, faces of 16) */
	double succ = 0, pred = 0;
	for (int i = 0; i < 9; i++) {
		succ += cw(a, i, (i % 3 + 1) % 3 + 3 * (i / 3));
		pred += cw(a, (i % 3 + 1) % 3 + 3 * (i / 3), i);
	}
	ck_assert_double_eq(succ, 9 * 80.0 * 16 * 8 * 60);
	ck_assert_double_eq(pred, 9 * 30.0 * 16 * 8 * 60);
	topomatch_affinity_destroy(a);
	nas_fails(TOPOMATCH_NAS_BT, 8, 'A', TOPOMATCH_EINVAL,
		  "bt runs on a square number of processes (NPB): 8 is not one (4 or 9 are)");
	nas_fails(TOPOMATCH_NAS_SP, 169, 'S', TOPOMATCH_EINVAL,
		  "sp class S (12^3) on 169 processes: 13 cells per axis, more than its 12 points");
}
END_TEST

START_TEST(nas_errors)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	nas_fails(0, 4, 'A', TOPOMATCH_EINVAL, "nas: unknown kernel 0");
	nas_fails(TOPOMATCH_NAS_SP + 1, 4, 'A', TOPOMATCH_EINVAL, "unknown kernel");
	nas_fails(TOPOMATCH_NAS_CG, 4, 'a', TOPOMATCH_EINVAL,
		  "cg: class 'a' is not one of S, W, A, B, C, D, E");
	nas_fails(TOPOMATCH_NAS_CG, 4, '\n', TOPOMATCH_EINVAL, "class '?'");
	nas_fails(TOPOMATCH_NAS_MG, 0, 'A', TOPOMATCH_EINVAL, "mg: 0 processes: must be in");
	nas_fails(TOPOMATCH_NAS_MG, INT64_C(1) << 23, 'A', TOPOMATCH_ELIMIT, "must be in");
	ck_assert_int_eq(topomatch_gen_nas(TOPOMATCH_NAS_CG, 4, 'A', NULL, err), TOPOMATCH_EINVAL);
	/* every kernel and class on a small valid count, whole bytes; one
	 * process talks to nobody */
	for (int k = TOPOMATCH_NAS_CG; k <= TOPOMATCH_NAS_SP; k++) {
		ck_assert_int_eq(topomatch_gen_nas(k, 1, 'S', &a, err), 0);
		ck_assert_int_eq(topomatch_affinity_ntasks(a), 1);
		ck_assert_int_eq(topomatch_affinity_nnz(a), 0);
		topomatch_affinity_destroy(a);
	}
	for (int k = TOPOMATCH_NAS_CG; k <= TOPOMATCH_NAS_SP; k++)
		for (const char *c = "SWABCDE"; *c; c++) {
			ck_assert_msg(topomatch_gen_nas(k, 4, *c, &a, err) == 0, "%d %c: %s", k, *c, err);
			topomatch_csr_t m = topomatch_affinity_directed(a);
			for (int64_t p = 0; p < m.rowptr[m.n]; p++)
				ck_assert(m.w[p] > 0 && m.w[p] == floor(m.w[p]) && m.w[p] < 0x1p53);
			topomatch_affinity_destroy(a);
		}
}
END_TEST

/* ---------------------------------------------------------------- stencil shapes */

START_TEST(shape_mixed_wrap)
{
	topomatch_stencil_shape_t s = { .ndims = 2, .dims = { 3, 3 }, .points = 5,
					.periodic = { 1, 0 }, .weight = { 2, 3 } };
	topomatch_affinity_t *a = NULL, *b;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_gen_stencil_shape(&s, &a, err), 0);
	ck_assert_double_eq(cw(a, 0, 2), 2.0); /* x wraps */
	ck_assert_double_eq(cw(a, 0, 6), 0.0); /* y does not */
	ck_assert_int_eq(topomatch_affinity_nnz(a), 18 + 12);
	topomatch_affinity_destroy(a);
	/* all wrapping = topomatch_gen_stencil's periodic */
	s.periodic[1] = 1;
	ck_assert_int_eq(topomatch_gen_stencil_shape(&s, &a, err), 0);
	b = stencil(2, s.dims, 5, 1, s.weight);
	ck_assert(tm_same_matrix(a, b));
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	s.periodic[0] = 2;
	ck_assert_int_eq(topomatch_gen_stencil_shape(&s, &a, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "periodic[0] must be 0 or 1 (got 2)");
	s.periodic[0] = 0;
	s.ndims = 4;
	ck_assert_int_eq(topomatch_gen_stencil_shape(&s, &a, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "ndims must be 2 or 3");
	ck_assert_int_eq(topomatch_gen_stencil_shape(NULL, &a, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_gen_stencil_shape(&s, NULL, err), TOPOMATCH_EINVAL);
}
END_TEST

static topomatch_affinity_t *shape_gen(const topomatch_stencil_shape_t *s)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_gen_stencil_shape(s, &a, err) == 0, "%s", err);
	return a;
}

static topomatch_stencil_shape_t detect_ok(const topomatch_affinity_t *a, double tol)
{
	topomatch_stencil_shape_t s;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_stencil_detect(a, tol, &s, err) == 0, "%s", err);
	return s;
}

static void detect_fails(const topomatch_affinity_t *a, double tol, const char *msg)
{
	topomatch_stencil_shape_t s;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_stencil_detect(a, tol, &s, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, msg);
}

static const topomatch_stencil_shape_t round_trip_shapes[] = {
	{ 2, { 8, 4, 0 }, 5, { 0, 0, 0 }, { 1000, 500, 0 } },
	{ 2, { 8, 4, 0 }, 5, { 1, 1, 0 }, { 1000, 500, 0 } },
	{ 2, { 5, 7, 0 }, 5, { 1, 0, 0 }, { 3, 9, 0 } },
	{ 2, { 6, 6, 0 }, 9, { 0, 0, 0 }, { 4, 8, 0 } },
	{ 2, { 6, 3, 0 }, 9, { 1, 1, 0 }, { 4, 8, 0 } },
	{ 2, { 2, 8, 0 }, 5, { 1, 1, 0 }, { 7, 1, 0 } },  /* size 2 wraps like y */
	{ 2, { 2, 8, 0 }, 5, { 0, 0, 0 }, { 7, 1, 0 } },
	{ 2, { 2, 8, 0 }, 5, { 1, 0, 0 }, { 7, 1, 0 } },  /* read as not wrapping, 14 */
	{ 2, { 2, 2, 0 }, 5, { 0, 0, 0 }, { 1, 2, 0 } },
	{ 3, { 4, 6, 5 }, 7, { 0, 0, 0 }, { 10, 20, 30 } },
	{ 3, { 4, 4, 4 }, 7, { 1, 1, 1 }, { 1, 1, 1 } },
	{ 3, { 4, 4, 2 }, 27, { 1, 1, 1 }, { 10, 20, 30 } },
	{ 3, { 3, 5, 4 }, 27, { 0, 0, 0 }, { 5, 5, 6 } },
	{ 3, { 3, 4, 5 }, 7, { 1, 0, 1 }, { 2, 3, 4 } },
	{ 3, { 2, 2, 2 }, 7, { 0, 0, 0 }, { 1, 2, 3 } },
};

/* detect(gen(s)) regenerates gen(s) to the bit, whatever s; where the
 * shape is not ambiguous it is s itself. */
START_TEST(detect_round_trip)
{
	const topomatch_stencil_shape_t *s = &round_trip_shapes[_i];
	topomatch_affinity_t *a = shape_gen(s);
	topomatch_stencil_shape_t d = detect_ok(a, 0.0);
	topomatch_affinity_t *b = shape_gen(&d);

	ck_assert_msg(tm_same_matrix(a, b), "shape %d", _i);
	ck_assert_int_eq(d.ndims, s->ndims);
	ck_assert_int_eq(d.points, s->points);
	for (int k = 0; k < s->ndims; k++) {
		ck_assert_int_eq(d.dims[k], s->dims[k]);
		if (s->dims[k] != 2) { /* size 2: the wrap cannot be seen */
			ck_assert_int_eq(d.periodic[k], s->periodic[k]);
			ck_assert_double_eq(d.weight[k], s->weight[k]);
		}
	}
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* A pattern from its directed entries plus extra ones. */
static topomatch_affinity_t *with_extra(const topomatch_affinity_t *a, int64_t nx,
					const int64_t *xs, const int64_t *xd, const double *xw,
					int64_t drop_i, int64_t drop_j)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t m = c.rowptr[c.n], k = 0;
	int64_t *s = malloc(sizeof(*s) * (size_t)(m + nx)), *d = malloc(sizeof(*d) * (size_t)(m + nx));
	double *w = malloc(sizeof(*w) * (size_t)(m + nx));
	ck_assert(s && d && w);
	for (int64_t i = 0; i < c.n; i++)
		for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
			if (!(i == drop_i && c.col[p] == drop_j)) {
				s[k] = i;
				d[k] = c.col[p];
				w[k++] = c.w[p];
			}
	for (int64_t x = 0; x < nx; x++) {
		s[k] = xs[x];
		d[k] = xd[x];
		w[k++] = xw[x];
	}
	topomatch_affinity_t *b = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(c.n, k, s, d, w, NULL, &b, err) == 0, "%s", err);
	free(s);
	free(d);
	free(w);
	return b;
}

/* What a recorded run looks like: noise on the faces, small collectives
 * (recursive doubling partners, 8 bytes), 27-point corners far lighter
 * than the rule: recognised as the 7-point stencil within the tolerance. */
START_TEST(detect_recorded_like)
{
	int dims[3] = { 4, 4, 4 };
	double w[3] = { 1000, 1000, 1000 };
	topomatch_affinity_t *a = stencil(3, dims, 7, 1, w), *b, *c;
	int64_t xs[64 * 6], xd[64 * 6];
	double xw[64 * 6];
	int nx = 0;
	for (int i = 0; i < 64; i++)
		for (int bit = 1; bit < 64; bit *= 2) {
			xs[nx] = i;
			xd[nx] = i ^ bit;
			xw[nx++] = 8;
		}
	b = with_extra(a, nx, xs, xd, xw, -1, -1);
	topomatch_stencil_shape_t s = detect_ok(b, 0.05);
	ck_assert_int_eq(s.points, 7);
	ck_assert_int_eq(s.dims[0] * s.dims[1] * s.dims[2], 64);
	ck_assert_int_eq(s.periodic[0] + s.periodic[1] + s.periodic[2], 3);
	ck_assert(s.weight[0] >= 1000 && s.weight[0] < 1020); /* + an 8-byte partner */
	/* tolerance 0: the collectives are too much */
	detect_fails(b, 0.0, "links off the stencil weigh");
	topomatch_affinity_destroy(b);
	/* multiplicative noise of 10% */
	ck_assert_int_eq(topomatch_affinity_noise(a, TOPOMATCH_NOISE_UM, 0.1, 5, 0, &c, NULL), 0);
	s = detect_ok(c, 0.0);
	ck_assert_int_eq(s.dims[0], 4);
	ck_assert(fabs(s.weight[2] - 1000) < 100);
	topomatch_affinity_destroy(c);
	topomatch_affinity_destroy(a);
	/* 27 points whose edges and corners weigh 0.1, far below the rule's
	 * 1000: the 7-point stencil, the rest off-stencil (0.1% of the weight) */
	a = stencil(3, dims, 7, 0, w);
	c = stencil(3, dims, 27, 0, NULL);
	topomatch_csr_t m = topomatch_affinity_directed(c);
	int64_t *ds = malloc(sizeof(*ds) * (size_t)m.rowptr[64]);
	int64_t *dd = malloc(sizeof(*dd) * (size_t)m.rowptr[64]);
	double *dw = malloc(sizeof(*dw) * (size_t)m.rowptr[64]);
	int nd = 0;
	ck_assert(ds && dd && dw);
	for (int64_t i = 0; i < 64; i++)
		for (int64_t p = m.rowptr[i]; p < m.rowptr[i + 1]; p++) {
			int64_t j = m.col[p];
			int moved = (i % 4 != j % 4) + (i / 4 % 4 != j / 4 % 4) + (i / 16 != j / 16);
			if (moved > 1) {
				ds[nd] = i;
				dd[nd] = j;
				dw[nd++] = 0.1;
			}
		}
	b = with_extra(a, nd, ds, dd, dw, -1, -1);
	s = detect_ok(b, 0.01);
	ck_assert_int_eq(s.points, 7);
	ck_assert_int_eq(s.periodic[0], 0);
	ck_assert_double_eq(s.weight[1], 1000.0);
	/* the same corners at the rule's weight: a 27-point stencil */
	for (int k = 0; k < nd; k++)
		dw[k] = 1000;
	topomatch_affinity_destroy(b);
	b = with_extra(a, nd, ds, dd, dw, -1, -1);
	s = detect_ok(b, 0.0);
	ck_assert_int_eq(s.points, 27);
	free(ds);
	free(dd);
	free(dw);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(c);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(detect_failures)
{
	int dims[2] = { 8, 8 };
	topomatch_affinity_t *a = stencil(2, dims, 5, 0, NULL), *b;
	topomatch_stencil_shape_t s;
	char err[TOPOMATCH_ERRLEN] = "";

	/* one face link missing */
	b = with_extra(a, 0, NULL, NULL, NULL, 9, 10);
	detect_fails(b, 0.05, "the closest grid, 8x8, fails: 1 of the 112 face links along x "
			      "are missing");
	topomatch_affinity_destroy(b);
	/* one link three times heavier than the others */
	int64_t xs = 9, xd = 17;
	double xw = 2;
	b = with_extra(a, 1, &xs, &xd, &xw, -1, -1);
	detect_fails(b, 0.05, "8x8, fails: the face links along y weigh from 1 to 3, more than "
			      "a factor of 2 from their mean");
	topomatch_affinity_destroy(b);
	/* partial wrap links are off-stencil weight */
	int64_t ws[8], wd[8];
	double ww[8];
	for (int k = 0; k < 8; k++) {
		ws[k] = 8 * k;
		wd[k] = 8 * k + 7;
		ww[k] = 1;
	}
	b = with_extra(a, 8, ws, wd, ww, -1, -1);
	detect_fails(b, 0.02, "links off the stencil weigh 3.45% of the total (tolerance 2%)");
	s = detect_ok(b, 0.05);
	ck_assert_int_eq(s.periodic[0], 0);
	topomatch_affinity_destroy(b);
	/* shuffled tasks */
	ck_assert_int_eq(topomatch_affinity_shuffle(a, 3, &b, NULL), 0);
	ck_assert_int_eq(topomatch_stencil_detect(b, 0.05, &s, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "not recognised as a 2D/3D stencil");
	topomatch_affinity_destroy(b);
	/* 0 -> 1 absent */
	b = with_extra(a, 0, NULL, NULL, NULL, 0, 1);
	detect_fails(b, 0.05, "task 0 does not send to task 1 (tasks must be numbered first "
			      "dimension fastest)");
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(a);
	/* a ring has no 2D grid; all-to-all is too dense; tiny; empty */
	ck_assert_int_eq(topomatch_gen_alltoall(100, 1, 0, &a, NULL), 0);
	detect_fails(a, 0.05, "task 0 sends to 99 tasks (a stencil has at most 26 neighbours)");
	topomatch_affinity_destroy(a);
	int64_t rs[7], rd[7];
	double rw[7];
	for (int k = 0; k < 7; k++) {
		rs[k] = k;
		rd[k] = (k + 1) % 7;
		rw[k] = 1;
	}
	ck_assert_int_eq(topomatch_affinity_create(7, 7, rs, rd, rw, NULL, &a, NULL), 0);
	detect_fails(a, 0.05, "no grid of 7 tasks fits the neighbours of task 0");
	topomatch_affinity_destroy(a);
	int64_t ts[3] = { 0, 1, 2 }, td[3] = { 1, 2, 0 };
	ck_assert_int_eq(topomatch_affinity_create(3, 3, ts, td, rw, NULL, &a, NULL), 0);
	detect_fails(a, 0.05, "3 tasks (a grid of at least 2x2 is needed)");
	topomatch_affinity_destroy(a);
	ck_assert_int_eq(topomatch_affinity_create(9, 0, NULL, NULL, NULL, NULL, &a, NULL), 0);
	detect_fails(a, 0.05, "the pattern has no communication");
	detect_fails(a, -0.1, "tolerance must be in [0, 1] (got -0.1)");
	detect_fails(a, NAN, "tolerance must be in [0, 1]");
	ck_assert_int_eq(topomatch_stencil_detect(NULL, 0, &s, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_stencil_detect(a, 0, NULL, err), TOPOMATCH_EINVAL);
	topomatch_affinity_destroy(a);
}
END_TEST

/* The NAS shapes that are stencils are recognised, the others are not. */
START_TEST(detect_nas)
{
	topomatch_affinity_t *a = nas(TOPOMATCH_NAS_LU, 64, 'A');
	topomatch_stencil_shape_t s = detect_ok(a, 0.0);
	ck_assert_int_eq(s.dims[0], 8);
	ck_assert_int_eq(s.periodic[0] + s.periodic[1], 0);
	ck_assert_double_eq(s.weight[0], 40.0 * 8 * 190 * 250);
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_CG, 64, 'A');
	detect_fails(a, 0.05, "not recognised as a 2D/3D stencil");
	topomatch_affinity_destroy(a);
	a = nas(TOPOMATCH_NAS_FT, 16, 'A');
	detect_fails(a, 0.05, "not recognised");
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(rescale)
{
	topomatch_stencil_shape_t s = { .ndims = 2, .dims = { 8, 4 } };
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(topomatch_stencil_rescale(&s, 128, err), 0);
	ck_assert_int_eq(s.dims[0], 16);
	ck_assert_int_eq(s.dims[1], 8);
	s = (topomatch_stencil_shape_t){ .ndims = 3, .dims = { 4, 4, 2 } };
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 256, err), 0);
	ck_assert(s.dims[0] == 8 && s.dims[1] == 8 && s.dims[2] == 4);
	/* ties: the first in lexicographic order */
	s = (topomatch_stencil_shape_t){ .ndims = 2, .dims = { 4, 4 } };
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 32, err), 0);
	ck_assert(s.dims[0] == 4 && s.dims[1] == 8);
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 7, err), 0);
	ck_assert(s.dims[0] == 1 && s.dims[1] == 7);
	s = (topomatch_stencil_shape_t){ .ndims = 3, .dims = { 16, 4, 1 } };
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 64, err), 0);
	ck_assert(s.dims[0] == 16 && s.dims[1] == 4 && s.dims[2] == 1);
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 0, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "0 tasks: must be in [1, 4194304]");
	ck_assert_int_eq(topomatch_stencil_rescale(&s, INT64_C(1) << 23, err), TOPOMATCH_ELIMIT);
	s.dims[1] = 0;
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 8, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "dimension 1 has size 0");
	s.ndims = 1;
	ck_assert_int_eq(topomatch_stencil_rescale(&s, 8, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_stencil_rescale(NULL, 8, err), TOPOMATCH_EINVAL);
}
END_TEST

static Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *st = tcase_create("stencil"), *hi = tcase_create("hierarchical");
	TCase *ra = tcase_create("random"), *tr = tcase_create("transform");

	tcase_add_test(st, stencil_2d_5_open);
	tcase_add_test(st, stencil_2d_5_periodic);
	tcase_add_test(st, stencil_2d_9_open);
	tcase_add_test(st, stencil_3d_7);
	tcase_add_test(st, stencil_3d_27_periodic);
	tcase_add_test(st, stencil_3d_27_open);
	tcase_add_test(st, stencil_small_dims);
	tcase_add_test(st, stencil_zero_weight);
	tcase_add_test(st, stencil_errors);
	tcase_add_test(hi, hier_bands);
	tcase_add_test(hi, hier_exact);
	tcase_add_test(hi, hier_seed);
	tcase_add_test(hi, hier_errors);
	tcase_add_test(ra, random_rows);
	tcase_add_test(ra, random_full);
	tcase_add_test(ra, random_seed);
	tcase_add_test(ra, random_spread);
	tcase_add_test(ra, random_errors);
	tcase_add_test(ra, alltoall);
	tcase_add_test(tr, shuffle_moves);
	tcase_add_test(tr, shuffle_no_loads);
	tcase_add_test(tr, noise_k0);
	tcase_add_test(tr, noise_multiplicative);
	tcase_add_test(tr, noise_truncates);
	tcase_add_test(tr, noise_additive_fills);
	tcase_add_test(tr, noise_seed);
	tcase_add_test(tr, noise_limits);
	tcase_add_test(tr, noise_errors);
	tcase_add_test(tr, noise_names);
	suite_add_tcase(s, st);
	suite_add_tcase(s, hi);
	suite_add_tcase(s, ra);
	TCase *na = tcase_create("nas"), *sh = tcase_create("shape");
	tcase_add_test(na, nas_names);
	tcase_add_test(na, nas_cg);
	tcase_add_test(na, nas_lu);
	tcase_add_test(na, nas_mg);
	tcase_add_test(na, nas_ft);
	tcase_add_test(na, nas_bt_sp);
	tcase_add_test(na, nas_errors);
	tcase_set_timeout(na, 60);
	tcase_add_test(sh, shape_mixed_wrap);
	tcase_add_loop_test(sh, detect_round_trip, 0,
			    (int)(sizeof(round_trip_shapes) / sizeof(round_trip_shapes[0])));
	tcase_add_test(sh, detect_recorded_like);
	tcase_add_test(sh, detect_failures);
	tcase_add_test(sh, detect_nas);
	tcase_add_test(sh, rescale);
	suite_add_tcase(s, tr);
	suite_add_tcase(s, na);
	suite_add_tcase(s, sh);
	return s;
}

int main(void)
{
	return tm_run_suite(gen_suite());
}

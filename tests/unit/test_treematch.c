/*
 * test_treematch.c - unit tests of TreeMatch on trees (Euro-Par 2010,
 * Alg. 1) with TopoMatch's adaptive grouping (JPDC 2022, Alg. 1 and §4.5):
 * the worked example of TreeMatch Fig. 1, optimality on hierarchical
 * patterns through every grouping strategy, artificial groups, over- and
 * undersubscription, determinism and a large smoke test.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "topology/topology_internal.h"
#include "map/treematch_internal.h"

#include <math.h>

/* A pattern from an n x n row-major matrix (C(i, j) = m[i * n + j]). */
static topomatch_affinity_t *dense_pattern(int n, const double *m)
{
	int64_t src[256], dst[256];
	double w[256];
	int k = 0;
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_le(n * n, 256);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			if (m[i * n + j] == 0.0)
				continue;
			src[k] = i;
			dst[k] = j;
			w[k++] = m[i * n + j];
		}
	}
	ck_assert_msg(topomatch_affinity_create(n, k, src, dst, w, NULL, &a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	return a;
}

static topomatch_affinity_t *hierarchical(int nlevels, const int *arity)
{
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_gen_hierarchical(nlevels, arity, 1000.0, 10.0, 0.1, 5, &a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	return a;
}

static topomatch_affinity_t *stencil(int x, int y, int z)
{
	const int dims[3] = { x, y, z };
	const double w[3] = { 1000, 500, 100 };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_gen_stencil(3, dims, 7, 0, w, &a, err) == TOPOMATCH_OK, "%s", err);
	return a;
}

/* The request as mapper.c hands it over without constraints. */
typedef struct req {
	tm_map_ctx_t c;
	int64_t *allowed;
} req_t;

static req_t request(const topomatch_affinity_t *a, const topomatch_topology_t *t, int f,
		     double tau, uint64_t seed)
{
	req_t r = { .c = { .a = a, .t = t, .f = f, .seed = seed, .tau = tau,
			   .sparse_factor = TOPOMATCH_DEFAULT_SPARSE_FACTOR } };

	r.c.ntasks = topomatch_affinity_ntasks(a);
	r.c.m = topomatch_topology_npu(t);
	r.allowed = malloc((size_t)r.c.m * sizeof(*r.allowed));
	ck_assert_ptr_nonnull(r.allowed);
	for (int64_t p = 0; p < r.c.m; p++)
		r.allowed[p] = p;
	r.c.allowed = r.allowed;
	return r;
}

/* Map with TreeMatch, check validity with at most f tasks per PU. */
static int64_t *map_tm(const topomatch_affinity_t *a, const topomatch_topology_t *t, int f,
		       double tau, uint64_t seed)
{
	req_t r = request(a, t, f, tau, seed);
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t *pu = malloc((size_t)n * sizeof(*pu));
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_ptr_nonnull(pu);
	ck_assert_msg(tm_map_treematch(&r.c, pu, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(topomatch_mapping_check(t, n, pu, NULL, 0, f, err) == TOPOMATCH_OK, "%s",
		      err);
	free(r.allowed);
	return pu;
}

static void assert_same(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: hop-bytes %.17g, optimum %.17g",
		      what, got, want);
}

/* ------------------------------------------------------------------ */

START_TEST(binomial_and_strategy_choice)
{
	ck_assert_double_eq(tm_binomial(8, 2), 28.0);   /* TreeMatch §3: 8 by 2 */
	ck_assert_double_eq(tm_binomial(12, 2), 66.0);  /* TopoMatch §4.2.2: 66 */
	ck_assert_double_eq(tm_binomial(6, 3), 20.0);   /* ... and 20 */
	ck_assert_double_eq(tm_binomial(64, 4), 635376.0);
	ck_assert_double_eq(tm_binomial(5, 7), 0.0);
	ck_assert(isinf(tm_binomial(INT64_C(1) << 40, 1000)));
	/* TopoMatch Alg. 1 with tau = 30000 */
	ck_assert_int_eq(tm_group_choose(245, 2, 30000), TM_GROUP_EXHAUSTIVE); /* 29890 */
	ck_assert_int_eq(tm_group_choose(256, 2, 30000), TM_GROUP_BUCKET);     /* 32640 */
	ck_assert_int_eq(tm_group_choose(4096, 4, 30000), TM_GROUP_FAST);
	ck_assert_int_eq(tm_group_choose(4096, 5, 30000), TM_GROUP_FAST);
	ck_assert_int_eq(tm_group_choose(4096, 16, 30000), TM_GROUP_KPART);
	ck_assert_int_eq(tm_group_choose(128, 128, 30000), TM_GROUP_TRIVIAL);
	ck_assert_int_eq(tm_group_choose(128, 1, 30000), TM_GROUP_TRIVIAL);
	/* tau = 1 forces the fast strategies, tau = 1e30 the exhaustive one
	 * where the enumeration is feasible */
	ck_assert_int_eq(tm_group_choose(8, 2, 1), TM_GROUP_BUCKET);
	ck_assert_int_eq(tm_group_choose(6, 3, 1), TM_GROUP_FAST);
	ck_assert_int_eq(tm_group_choose(64, 8, 1), TM_GROUP_KPART);
	ck_assert_int_eq(tm_group_choose(64, 4, 1e30), TM_GROUP_EXHAUSTIVE);
	ck_assert_int_eq(tm_group_choose(512, 4, 1e30), TM_GROUP_FAST);
	ck_assert_int_eq(tm_group_choose(5000, 2, 1e30), TM_GROUP_BUCKET);
}
END_TEST

/*
 * TreeMatch Fig. 1(a), reconstructed: the text gives the row sums of
 * processes 0 and 1 (1114, 2104), their mutual 1000 (grouping them saves
 * 2000), r[(0,1), (2,3)] = 1012 after aggregation, 1 between 0 and 5, and
 * that 4, 5 talk a lot to 6, 7; this matrix has all of that.  Its optimum
 * on the 12 cores of Fig. 1(b) (tleaf 3 2 1 3 1 2 1), found by brute force
 * over the 12!/4! placements, is 37136: pairs (0,1), (2,3), (4,5), (6,7) on
 * a socket each, 0-3 on one node and 4-7 on the other.
 */
static const double fig1[64] = {
	0,    1000, 10,   1,    100,  1,    1,    1,
	1000, 0,    1000, 1,    1,    100,  1,    1,
	10,   1000, 0,    1000, 1,    1,    100,  1,
	1,    1,    1000, 0,    1,    1,    1,    100,
	100,  1,    1,    1,    0,    1000, 10,   1,
	1,    100,  1,    1,    1000, 0,    1000, 1,
	1,    1,    100,  1,    10,   1000, 0,    1000,
	1,    1,    1,    100,  1,    1,    1000, 0,
};

START_TEST(fig1_grouping_matches_the_paper)
{
	/* C is symmetric: A = 2 C, so values are twice the paper's */
	topomatch_affinity_t *a = dense_pattern(8, fig1);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	topomatch_topology_t *t = tm_topo("tleaf 3 2 1 3 1 2 1");
	req_t r = request(a, t, 1, TOPOMATCH_DEFAULT_TAU, 1);
	int64_t memb[8];
	int strategy = -1;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(tm_group(&r.c, &g, 2, 1, memb, &strategy, err), TOPOMATCH_OK);
	ck_assert_int_eq(strategy, TM_GROUP_EXHAUSTIVE);
	const int64_t want[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }; /* {(0,1),(2,3),(4,5),(6,7)} */
	for (int k = 0; k < 8; k++)
		ck_assert_int_eq(memb[k], want[k]);
	/* each group is valued 3218 - 2000 = 1218 in the paper's units */
	ck_assert_double_eq_tol(tm_group_outside(&g, 2, memb), 2.0 * 4 * 1218, 1e-9);

	/* AggregateComMatrix, Fig. 2(a): r[0,1] = 1012, the rest by hand */
	tm_tmmat_t m;
	ck_assert_int_eq(tm_treematch_aggregate(&r.c, &g, 2, memb, &m, err), TOPOMATCH_OK);
	ck_assert_int_eq(m.g.n, 4);
	const double r4[4][4] = { { 0, 1012, 202, 4 },
				  { 1012, 0, 4, 202 },
				  { 202, 4, 0, 1012 },
				  { 4, 202, 1012, 0 } };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(m.g.rowptr[i + 1] - m.g.rowptr[i], 3);
		for (int64_t e = m.g.rowptr[i]; e < m.g.rowptr[i + 1]; e++) {
			if (e > m.g.rowptr[i]) /* sorted */
				ck_assert_int_lt(m.g.col[e - 1], m.g.col[e]);
			ck_assert_double_eq(m.g.w[e], 2.0 * r4[i][m.g.col[e]]);
		}
	}

	/* ExtendComMatrix, Fig. 2(b): two artificial groups; then the paper's
	 * grouping by 3, {(0,1,4),(2,3,5)}, and r = 202 + 4 + 4 + 202 */
	int64_t rp6[7];
	for (int i = 0; i < 7; i++)
		rp6[i] = m.g.rowptr[i < 4 ? i : 4];
	tm_wgraph_t g6 = { 6, rp6, m.g.col, m.g.w, NULL };
	int64_t memb6[6];
	ck_assert_int_eq(tm_group(&r.c, &g6, 3, 1, memb6, &strategy, err), TOPOMATCH_OK);
	ck_assert_int_eq(strategy, TM_GROUP_EXHAUSTIVE);
	const int64_t want6[6] = { 0, 1, 4, 2, 3, 5 };
	for (int k = 0; k < 6; k++)
		ck_assert_int_eq(memb6[k], want6[k]);
	tm_tmmat_t m2;
	ck_assert_int_eq(tm_treematch_aggregate(&r.c, &g6, 3, memb6, &m2, err), TOPOMATCH_OK);
	ck_assert_int_eq(m2.g.n, 2);
	ck_assert_int_eq(m2.g.rowptr[2], 2);
	ck_assert_double_eq(m2.g.w[0], 2.0 * 412);
	ck_assert_double_eq(m2.g.w[1], 2.0 * 412);
	tm_tmmat_free(&m2);
	tm_tmmat_free(&m);
	free(r.allowed);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(fig1_mapping_is_optimal)
{
	topomatch_affinity_t *a = dense_pattern(8, fig1);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 1 3 1 2 1");
	const double taus[] = { TOPOMATCH_DEFAULT_TAU, 1e30, 1 };

	for (int k = 0; k < 3; k++) {
		int64_t *pu = map_tm(a, t, 1, taus[k], 1);
		for (int i = 0; i < 8; i += 2) /* the pairs share a socket */
			ck_assert_int_eq(pu[i] / 2, pu[i + 1] / 2);
		for (int i = 1; i < 4; i++) { /* the artificial groups kept 0-3, 4-7 apart */
			ck_assert_int_eq(pu[i] / 6, pu[0] / 6);
			ck_assert_int_eq(pu[4 + i] / 6, pu[4] / 6);
		}
		ck_assert_int_ne(pu[0] / 6, pu[4] / 6);
		ck_assert_double_eq_tol(tm_hop_bytes(a, t, pu), 37136.0, 1e-9);
		free(pu);
	}
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

/* A hierarchical pattern, shuffled: TreeMatch §3 says the algorithm is
 * optimal on it; the optimum is the natural placement of the unshuffled
 * pattern. */
static void check_hierarchical(int nlevels, const int *arity, const char *tree, double tau,
			       int want_bottom)
{
	topomatch_affinity_t *h = hierarchical(nlevels, arity);
	topomatch_affinity_t *s = tm_shuffled(h, 11);
	topomatch_topology_t *t = tm_topo(tree);
	int64_t n = topomatch_affinity_ntasks(h);
	char what[160];

	snprintf(what, sizeof(what), "%s, tau %g", tree, tau);
	ck_assert_int_eq(tm_group_choose(n, arity[0], tau), want_bottom);
	int64_t *pu = map_tm(s, t, 1, tau, 3);
	assert_same(tm_hop_bytes(s, t, pu), tm_natural_hop_bytes(h, t, 1), what);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(h);
}

START_TEST(hierarchical_8_is_optimal)
{
	const int ar[] = { 2, 2, 2 };

	check_hierarchical(3, ar, "tleaf 3 2 1 2 1 2 1", TOPOMATCH_DEFAULT_TAU,
			   TM_GROUP_EXHAUSTIVE);
	check_hierarchical(3, ar, "tleaf 3 2 1 2 1 2 1", 1, TM_GROUP_BUCKET);
}
END_TEST

START_TEST(hierarchical_64_every_strategy)
{
	const int a4[] = { 4, 4, 4 }, a2[] = { 2, 2, 2, 2, 2, 2 }, a8[] = { 8, 8 };
	const char *t4 = "tleaf 3 4 100 4 10 4 1";
	const char *t2 = "tleaf 6 2 32 2 16 2 8 2 4 2 2 2 1";

	check_hierarchical(3, a4, t4, 1e30, TM_GROUP_EXHAUSTIVE);
	check_hierarchical(3, a4, t4, 1, TM_GROUP_FAST);
	check_hierarchical(3, a4, t4, TOPOMATCH_DEFAULT_TAU, TM_GROUP_FAST);
	check_hierarchical(6, a2, t2, TOPOMATCH_DEFAULT_TAU, TM_GROUP_EXHAUSTIVE);
	check_hierarchical(6, a2, t2, 1, TM_GROUP_BUCKET);
	check_hierarchical(2, a8, "tleaf 2 8 10 8 1", 1, TM_GROUP_KPART);
}
END_TEST

START_TEST(hierarchical_512_every_strategy)
{
	const int a8[] = { 8, 8, 8 }, a2[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	const int a4[] = { 4, 4, 4, 8 }, a3[] = { 3, 3, 3, 3, 3 };
	const char *t2 = "tleaf 9 2 9 2 8 2 7 2 6 2 5 2 4 2 3 2 2 2 1";
	const char *t4 = "tleaf 4 8 1000 4 100 4 10 4 1";

	check_hierarchical(3, a8, "tleaf 3 8 100 8 10 8 1", 1, TM_GROUP_KPART);
	check_hierarchical(3, a8, "tleaf 3 8 100 8 10 8 1", 1e30, TM_GROUP_KPART);
	check_hierarchical(9, a2, t2, 1, TM_GROUP_BUCKET);
	check_hierarchical(9, a2, t2, TOPOMATCH_DEFAULT_TAU, TM_GROUP_BUCKET);
	check_hierarchical(4, a4, t4, 1, TM_GROUP_FAST);
	check_hierarchical(4, a4, t4, 1e30, TM_GROUP_FAST); /* exhaustive from 32 up */
	/* and 243 = 3^5 tasks for the fast grouping by 3 */
	check_hierarchical(5, a3, "tleaf 5 3 5 3 4 3 3 3 2 3 1", 1, TM_GROUP_FAST);
}
END_TEST

/* Tasks 2k and 2k+1 exchange `heavy`, neighbouring pairs `light`. */
static topomatch_affinity_t *pairs(int n, double heavy, double light)
{
	double m[256] = { 0 };

	ck_assert_int_le(n, 16);
	for (int i = 0; i + 1 < n; i++) {
		double w = i % 2 == 0 ? heavy : light;
		m[i * n + i + 1] = w;
		m[(i + 1) * n + i] = w;
	}
	return dense_pattern(n, m);
}

START_TEST(artificial_groups_six_on_arity_four)
{
	/* 6 tasks on sockets of 4: ExtendComMatrix adds 2 artificial
	 * processes; the 6 tasks fill 2 sockets and no pair is split. */
	topomatch_affinity_t *a = pairs(6, 100, 1);
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	const double taus[] = { TOPOMATCH_DEFAULT_TAU, 1 };

	for (int k = 0; k < 2; k++) {
		int64_t *pu = map_tm(a, t, 1, taus[k], 1);
		int used[4] = { 0 };
		for (int i = 0; i < 6; i += 2)
			ck_assert_int_eq(pu[i] / 4, pu[i + 1] / 4);
		for (int i = 0; i < 6; i++)
			used[pu[i] / 4]++;
		int sockets = 0;
		for (int s = 0; s < 4; s++)
			sockets += used[s] > 0;
		ck_assert_int_eq(sockets, 2);
		free(pu);
	}
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(oversubscription_heavy_pairs_share_a_pu)
{
	/* §4.5: f = 2 adds two leaves per PU; 16 tasks on 8 PUs */
	topomatch_affinity_t *p = pairs(16, 1000, 10);
	topomatch_affinity_t *s = tm_shuffled(p, 2);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 10 2 5 2 1");
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t *pu = map_tm(s, t, 2, TOPOMATCH_DEFAULT_TAU, 1);
	topomatch_csr_t c = topomatch_affinity_symmetric(s);

	for (int64_t i = 0; i < c.n; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			if (c.w[e] >= 1000)
				ck_assert_int_eq(pu[i], pu[c.col[e]]);
	/* every PU is full: 2 tasks each, so f = 1 must refuse it */
	ck_assert_int_eq(topomatch_mapping_check(t, 16, pu, NULL, 0, 1, err), TOPOMATCH_EINVAL);
	assert_same(tm_hop_bytes(s, t, pu), tm_natural_hop_bytes(p, t, 2), "pairs, f = 2");
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

START_TEST(oversubscription_four_per_pu)
{
	/* 64 hierarchical tasks by 4 on the 16 PUs of tleaf 2 4 10 4 1 */
	const int ar[] = { 4, 4, 4 };
	topomatch_affinity_t *h = hierarchical(3, ar);
	topomatch_affinity_t *s = tm_shuffled(h, 4);
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	const double taus[] = { TOPOMATCH_DEFAULT_TAU, 1 };

	for (int k = 0; k < 2; k++) {
		int64_t *pu = map_tm(s, t, 4, taus[k], 1); /* checks <= 4 per PU */
		assert_same(tm_hop_bytes(s, t, pu), tm_natural_hop_bytes(h, t, 4), "f = 4");
		free(pu);
	}
	/* fewer tasks than slots: 10 tasks, f = 4, still at most 4 per PU */
	topomatch_affinity_t *p = pairs(10, 100, 1);
	int64_t *pu = map_tm(p, t, 4, TOPOMATCH_DEFAULT_TAU, 1);
	for (int i = 0; i < 10; i += 2)
		ck_assert_int_eq(pu[i], pu[i + 1]);
	free(pu);
	topomatch_affinity_destroy(p);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(h);
}
END_TEST

START_TEST(undersubscription_gathers_heavy_groups)
{
	/* 10 tasks on 64 PUs: cliques {0-3}, {4-7} and the pair {8, 9} talk
	 * heavily inside, lightly between them */
	double m[100] = { 0 };
	for (int i = 0; i < 10; i++) {
		for (int j = 0; j < 10; j++) {
			int gi = i < 4 ? 0 : i < 8 ? 1 : 2, gj = j < 4 ? 0 : j < 8 ? 1 : 2;
			if (i != j)
				m[i * 10 + j] = gi == gj ? 100 : 1;
		}
	}
	topomatch_affinity_t *p = dense_pattern(10, m);
	topomatch_affinity_t *s = tm_shuffled(p, 9);
	topomatch_topology_t *t = tm_topo("tleaf 3 4 100 4 10 4 1");
	const double taus[] = { TOPOMATCH_DEFAULT_TAU, 1 };

	for (int k = 0; k < 2; k++) {
		int64_t *pu = map_tm(s, t, 1, taus[k], 1); /* checks distinct PUs */
		int64_t *ref = map_tm(p, t, 1, taus[k], 1);
		/* on the unshuffled labels: each clique on one socket of 4 */
		for (int i = 1; i < 4; i++) {
			ck_assert_int_eq(ref[i] / 4, ref[0] / 4);
			ck_assert_int_eq(ref[4 + i] / 4, ref[4] / 4);
		}
		ck_assert_int_eq(ref[8] / 4, ref[9] / 4);
		/* all ten under one depth-1 node of 16 PUs */
		for (int i = 1; i < 10; i++)
			ck_assert_int_eq(ref[i] / 16, ref[0] / 16);
		/* the shuffled pattern is mapped as well */
		assert_same(tm_hop_bytes(s, t, pu), tm_hop_bytes(p, t, ref), "10 on 64");
		free(pu);
		free(ref);
	}
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

START_TEST(group_strategies_direct)
{
	/* a path 0 -5- 1 -9- 2 -5- 3, 4 and 5 isolated */
	static const double e[][3] = { { 0, 1, 5 }, { 1, 2, 9 }, { 2, 3, 5 } };
	int64_t src[3], dst[3];
	double w[3];
	for (int k = 0; k < 3; k++) {
		src[k] = (int64_t)e[k][0];
		dst[k] = (int64_t)e[k][1];
		w[k] = e[k][2];
	}
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_affinity_create(6, 3, src, dst, w, NULL, &a, err), 0);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	topomatch_topology_t *t = tm_topo("tleaf 1 6 1");
	req_t r = request(a, t, 1, 1, 1);
	int64_t memb[6];

	/* bucket: (1,2) first; 0 and 3 have no free partner left, so they
	 * are paired with the isolated ones in index order */
	ck_assert_int_eq(tm_group_bucket(&r.c, &g, 1, memb, err), TOPOMATCH_OK);
	const int64_t wb[6] = { 0, 3, 1, 2, 4, 5 };
	for (int k = 0; k < 6; k++)
		ck_assert_int_eq(memb[k], wb[k]);
	ck_assert_double_eq_tol(tm_group_outside(&g, 2, memb), 2.0 * 2 * 5, 1e-12);
	/* exhaustive: round robin {0,1},{2,3},{4,5} leaves 2 x 9 outside and
	 * no grouping does better */
	ck_assert_int_eq(tm_group_exhaustive(&r.c, &g, 2, memb, err), TOPOMATCH_OK);
	ck_assert_double_eq_tol(tm_group_outside(&g, 2, memb), 2.0 * 9, 1e-12);
	/* by 3: the path {0,1,2} + {3,4,5} leaves 5, as do {1,2,3} + {0,4,5} */
	ck_assert_int_eq(tm_group_exhaustive(&r.c, &g, 3, memb, err), TOPOMATCH_OK);
	ck_assert_double_eq_tol(tm_group_outside(&g, 3, memb), 2.0 * 5, 1e-12);
	ck_assert_int_eq(tm_group_fast(&r.c, &g, 3, memb, err), TOPOMATCH_OK);
	ck_assert_double_eq_tol(tm_group_outside(&g, 3, memb), 2.0 * 5, 1e-12);
	/* k-way partition into 2 parts of 3: the best cut is 5 */
	ck_assert_int_eq(tm_group_kpart(&r.c, &g, 3, 1, memb, err), TOPOMATCH_OK);
	ck_assert_double_eq_tol(tm_group_outside(&g, 3, memb), 2.0 * 5, 1e-12);
	for (int k = 0; k < 6; k++) /* a permutation, groups sorted */
		ck_assert_int_eq(memb[k] >= 0 && memb[k] < 6, 1);
	ck_assert_int_lt(memb[0], memb[3]);
	/* a does not divide n */
	ck_assert_int_eq(tm_group(&r.c, &g, 4, 1, memb, NULL, err), TOPOMATCH_EINVAL);
	free(r.allowed);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(deterministic_for_a_seed)
{
	topomatch_affinity_t *st = stencil(16, 16, 16);
	topomatch_affinity_t *s = tm_shuffled(st, 7);
	const char *trees[] = { "tleaf 3 128 100 2 10 16 1", "tleaf 6 4 32 4 16 4 8 4 4 4 2 4 1" };

	for (int k = 0; k < 2; k++) {
		topomatch_topology_t *t = tm_topo(trees[k]);
		int64_t *p1 = map_tm(s, t, 1, TOPOMATCH_DEFAULT_TAU, 42);
		int64_t *p2 = map_tm(s, t, 1, TOPOMATCH_DEFAULT_TAU, 42);
		for (int64_t i = 0; i < 4096; i++)
			ck_assert_int_eq(p1[i], p2[i]);
		free(p1);
		free(p2);
		topomatch_topology_destroy(t);
	}
	/* no ties in a jittered hierarchical pattern: the seed changes nothing */
	const int ar[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	topomatch_affinity_t *h0 = hierarchical(9, ar);
	topomatch_affinity_t *h = tm_shuffled(h0, 3);
	topomatch_topology_t *t = tm_topo("tleaf 9 2 9 2 8 2 7 2 6 2 5 2 4 2 3 2 2 2 1");
	int64_t *p1 = map_tm(h, t, 1, TOPOMATCH_DEFAULT_TAU, 1);
	int64_t *p2 = map_tm(h, t, 1, TOPOMATCH_DEFAULT_TAU, 2);
	ck_assert_double_eq(tm_hop_bytes(h, t, p1), tm_hop_bytes(h, t, p2));
	free(p1);
	free(p2);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(h);
	topomatch_affinity_destroy(h0);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

START_TEST(refuses_what_it_does_not_do)
{
	topomatch_affinity_t *a = pairs(4, 10, 1);
	topomatch_topology_t *torus = tm_topo("torus2D 2 2");
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	int64_t pu[4];
	char err[TOPOMATCH_ERRLEN] = "";

	req_t r = request(a, torus, 1, TOPOMATCH_DEFAULT_TAU, 1);
	ck_assert_int_eq(tm_map_treematch(&r.c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "tree");
	free(r.allowed);
	r = request(a, t, 1, TOPOMATCH_DEFAULT_TAU, 1);
	r.c.constrained = 1;
	ck_assert_int_eq(tm_map_treematch(&r.c, pu, err), TOPOMATCH_EINVAL);
	r.c.constrained = 0;
	r.c.deadline = 1e-300; /* long passed */
	ck_assert_int_eq(tm_map_treematch(&r.c, pu, err), TOPOMATCH_EBUDGET);
	free(r.allowed);
	topomatch_topology_destroy(t);
	topomatch_topology_destroy(torus);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(stencil_4096_within_target_of_scotch)
{
	/*
	 * The benchmark's tree-4k case (shuffle seed 1) and its target:
	 * treematch within 1.08 x Scotch at its best (bench/README.md).  That
	 * Scotch value, 35,150,400, is recorded from tm_bench --case tree-4k
	 * (Scotch 7.0.3, quality strategy, balance 0.05, 6 tasks moved off
	 * PUs it doubled up; issue 19), since the unit tests do not run
	 * Scotch; tm_bench --check holds the same target against the value of
	 * its own run.  treematch has 35,358,800 there (1.006 x), the natural
	 * placement of the unshuffled stencil 38,912,000 (1.107 x).  The bound
	 * this test had before, 1.08 x that natural placement, was 1.196 x
	 * Scotch.
	 */
	const double scotch_best = 35150400.0;
	topomatch_affinity_t *st = stencil(16, 16, 16);
	topomatch_affinity_t *s = tm_shuffled(st, 1);
	topomatch_topology_t *t = tm_topo("tleaf 3 128 100 2 10 16 1");
	int64_t *pu = map_tm(s, t, 1, TOPOMATCH_DEFAULT_TAU, 1);
	double hb = tm_hop_bytes(s, t, pu), nat = tm_natural_hop_bytes(st, t, 1);

	ck_assert_msg(hb <= 1.08 * scotch_best, "hop-bytes %g, 1.08 x Scotch's best %g (natural %g)",
		      hb, 1.08 * scotch_best, nat);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

START_TEST(big_smoke_16384)
{
	topomatch_affinity_t *st = stencil(32, 32, 16);
	topomatch_affinity_t *s = tm_shuffled(st, 7);
	topomatch_topology_t *t = tm_topo("tleaf 3 512 100 2 10 16 1");
	int64_t *pu = map_tm(s, t, 1, TOPOMATCH_DEFAULT_TAU, 1);
	/* on the shuffled labels the natural placement is a random one */
	double hb = tm_hop_bytes(s, t, pu), rnd = tm_natural_hop_bytes(s, t, 1);

	ck_assert_msg(hb < 0.6 * rnd, "hop-bytes %g, random %g", hb, rnd);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("treematch");
	TCase *tc = tcase_create("treematch");
	tcase_add_test(tc, binomial_and_strategy_choice);
	tcase_add_test(tc, fig1_grouping_matches_the_paper);
	tcase_add_test(tc, fig1_mapping_is_optimal);
	tcase_add_test(tc, hierarchical_8_is_optimal);
	tcase_add_test(tc, artificial_groups_six_on_arity_four);
	tcase_add_test(tc, oversubscription_heavy_pairs_share_a_pu);
	tcase_add_test(tc, oversubscription_four_per_pu);
	tcase_add_test(tc, undersubscription_gathers_heavy_groups);
	tcase_add_test(tc, group_strategies_direct);
	tcase_add_test(tc, refuses_what_it_does_not_do);
	suite_add_tcase(s, tc);
	TCase *tb = tcase_create("large");
	tcase_set_timeout(tb, 300);
	tcase_add_test(tb, hierarchical_64_every_strategy);
	tcase_add_test(tb, hierarchical_512_every_strategy);
	tcase_add_test(tb, deterministic_for_a_seed);
	tcase_add_test(tb, stencil_4096_within_target_of_scotch);
	tcase_add_test(tb, big_smoke_16384);
	suite_add_tcase(s, tb);
	return tm_run_suite(s);
}

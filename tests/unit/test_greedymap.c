/*
 * test_greedymap.c - unit tests of GreedyMap and ParMapper (Galvez, Jain,
 * Kale, ICS 2017): Alg. 1's packNodeFirst and Delta, the task lists of
 * §4.5 (OO, BFS, BFS-DFS, GPART), known-optimal small cases, a shuffled
 * stencil on a torus, the Pareto / alpha choice of §4.2, the work budget,
 * valid assignments on random requests with constraints and
 * oversubscription, the same result whatever the thread count, and the
 * error messages of bad options.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "map/greedymap_internal.h"

#include <math.h>

/* Undirected weighted edges (a, b, w) of n tasks. */
static topomatch_affinity_t *edges(int n, int ne, const double (*e)[3])
{
	int64_t src[64], dst[64];
	double w[64];
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_le(ne, 64);
	for (int k = 0; k < ne; k++) {
		src[k] = (int64_t)e[k][0];
		dst[k] = (int64_t)e[k][1];
		w[k] = e[k][2];
	}
	ck_assert_msg(topomatch_affinity_create(n, ne, src, dst, w, NULL, &a, err) == 0, "%s",
		      err);
	return a;
}

/* topomatch_map, checked: allowed PUs only, at most f per PU. */
static int64_t *map_with(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const char *mapper, int f, const int64_t *allowed, int64_t nallowed,
			 int threads, uint64_t seed)
{
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu));
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	char err[TOPOMATCH_ERRLEN] = "";

	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	o.oversub = f;
	o.allowed = allowed;
	o.nallowed = nallowed;
	o.threads = threads;
	o.seed = seed;
	ck_assert_msg(topomatch_map(a, t, &o, pu, &r, err) == TOPOMATCH_OK, "%s: %s", mapper, err);
	ck_assert_int_eq(r.fell_back, 0);
	ck_assert_msg(topomatch_mapping_check(t, n, pu, allowed, nallowed, f, err) == TOPOMATCH_OK,
		      "%s: %s", mapper, err);
	return pu;
}

static int64_t *map1(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		     const char *mapper)
{
	return map_with(a, t, mapper, 1, NULL, 0, 1, 1);
}

/* A request as mapper.c builds it, every PU allowed. */
typedef struct req {
	tm_map_ctx_t c;
	int64_t *allowed;
} req_t;

static req_t request(const topomatch_affinity_t *a, const topomatch_topology_t *t, int f)
{
	req_t r = { .c = { .a = a, .t = t, .f = f, .seed = 1, .threads = 1 } };
	r.c.ntasks = topomatch_affinity_ntasks(a);
	r.c.m = topomatch_topology_npu(t);
	r.allowed = malloc((size_t)r.c.m * sizeof(*r.allowed));
	for (int64_t p = 0; p < r.c.m; p++)
		r.allowed[p] = p;
	r.c.allowed = r.allowed;
	return r;
}

/* ------------------------------------------------------------------ */

/* §4.5's lists on a small graph: 5 -1- 0, 0 -5- 1 -2- 3 and 0 -9- 2 -2- 4.
 * BFS and BFS-DFS start from task 5, the least connected (Cuthill-McKee). */
START_TEST(task_lists)
{
	static const double e[5][3] = { { 5, 0, 1 }, { 0, 1, 5 }, { 0, 2, 9 }, { 1, 3, 2 },
					{ 2, 4, 2 } };
	topomatch_affinity_t *a = edges(6, 5, e);
	topomatch_topology_t *t = tm_topo("tleaf 1 6 1");
	req_t r = request(a, t, 1);
	gm_shared_t sh;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(gm_shared_init(&sh, &r.c, err), TOPOMATCH_OK);
	static const int64_t oo[6] = { 0, 1, 2, 3, 4, 5 }, bfs[6] = { 5, 0, 2, 1, 4, 3 },
			     bfsdfs[6] = { 5, 0, 2, 4, 1, 3 };
	const int64_t *want[3] = { oo, bfs, bfsdfs };
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(gm_shared_order(&sh, k, err), TOPOMATCH_OK);
		for (int i = 0; i < 6; i++)
			ck_assert_msg(sh.order[k][i] == want[k][i], "%s[%d] = %lld", gm_order_name(k),
				      i, (long long)sh.order[k][i]);
	}
	/* 6 tasks on a single node of 6 PUs: no parts to make */
	ck_assert_int_eq(gm_gpart_parts(&sh), 0);
	gm_shared_free(&sh);
	free(r.allowed);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

/* GPART: two 4-cliques on even and odd tasks, 2 nodes of 4 PUs: the
 * parts are the cliques, listed one after the other, task 0's first. */
START_TEST(gpart_lists_parts_together)
{
	double e[13][3];
	int k = 0;
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 4; i++)
			for (int j = i + 1; j < 4; j++)
				e[k][0] = 2 * i + c, e[k][1] = 2 * j + c, e[k++][2] = 10;
	e[k][0] = 0, e[k][1] = 1, e[k++][2] = 1;
	topomatch_affinity_t *a = edges(8, k, (const double(*)[3])e);
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 4 1");
	req_t r = request(a, t, 1);
	gm_shared_t sh;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(gm_shared_init(&sh, &r.c, err), TOPOMATCH_OK);
	ck_assert_int_eq(gm_gpart_parts(&sh), 2);
	ck_assert_int_eq(gm_shared_order(&sh, GM_GPART, err), TOPOMATCH_OK);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(sh.order[GM_GPART][i] % 2, i < 4 ? 0 : 1);
	gm_shared_free(&sh);
	/* and GreedyMap on that list puts each clique on one node */
	int64_t *pu = map1(a, t, "greedymap:order=gpart");
	for (int i = 2; i < 8; i++)
		ck_assert_int_eq(pu[i] / 4, pu[i % 2] / 4);
	free(pu);
	free(r.allowed);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Alg. 1 lines 5-6: with packNodeFirst, tasks fill the node used last;
 * without communication, nodes are taken in order of distance. */
START_TEST(pack_node_first_and_delta)
{
	static const double e[1][3] = { { 0, 15, 1 } };
	topomatch_affinity_t *a = edges(16, 1, e);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 100 2 10 4 1");
	int64_t *pu = map1(a, t, "greedymap:order=oo,pack=1");
	for (int i = 0; i < 15; i++)
		ck_assert_int_eq(pu[i] / 4, i / 4);
	free(pu);
	/* delta=1, no packing: each task goes to the closest node with room,
	 * that is the same node while it has room */
	pu = map1(a, t, "greedymap:order=oo,pack=0,delta=1");
	for (int i = 0; i < 15; i++)
		ck_assert_int_eq(pu[i] / 4, i / 4);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

/* 8 tasks in 4 heavy pairs, shuffled, on 4 leaves of 2 PUs: pairs share
 * a leaf (GreedyMap with GPART, and ParMapper), at the optimum. */
START_TEST(pairs_share_a_leaf)
{
	double e[7][3];
	for (int i = 0; i < 7; i++)
		e[i][0] = i, e[i][1] = i + 1, e[i][2] = i % 2 ? 1 : 100;
	topomatch_affinity_t *p = edges(8, 7, (const double(*)[3])e), *s = tm_shuffled(p, 5);
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 2 1");
	static const char *const mappers[] = { "greedymap", "parmapper" };
	for (int k = 0; k < 2; k++) {
		int64_t *pu = map1(s, t, mappers[k]);
		ck_assert_msg(fabs(tm_hop_bytes(s, t, pu) - (4 * 100 * 2 + 3 * 1 * 4)) < 1e-9,
			      "%s: %g", mappers[k], tm_hop_bytes(s, t, pu));
		free(pu);
	}
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

/* Oversubscription: pairs share a PU when f = 2 (distance 0). */
START_TEST(oversubscribed_pairs_share_a_pu)
{
	double e[15][3];
	for (int i = 0; i < 15; i++)
		e[i][0] = i, e[i][1] = i + 1, e[i][2] = i % 2 ? 1 : 1000;
	topomatch_affinity_t *p = edges(16, 15, (const double(*)[3])e), *s = tm_shuffled(p, 9);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 10 2 5 2 1");
	int64_t *pu = map_with(s, t, "parmapper", 2, NULL, 0, 2, 1);
	topomatch_csr_t c = topomatch_affinity_symmetric(s);
	for (int64_t i = 0; i < 16; i++)
		for (int64_t e2 = c.rowptr[i]; e2 < c.rowptr[i + 1]; e2++)
			if (c.w[e2] >= 2000)
				ck_assert_int_eq(pu[i], pu[c.col[e2]]);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

/*
 * A shuffled 8x8x8 stencil on the torus (and the mesh) of the same shape
 * comes back to the natural placement, 1 hop per byte: measured exactly
 * 1.000 for both mappers, with the project's 1000/500/100 faces and with
 * equal faces (BFS from the least connected task as Cuthill-McKee, every
 * node explored, equal costs settled from the heaviest placed neighbour).
 */
START_TEST(torus_stencil_close_to_natural)
{
	const double aniso[3] = { 1000, 500, 100 };
	static const char *const shapes[] = { "torus3D 8 8 8", "mesh3D 8 8 8" };
	static const char *const mappers[] = { "greedymap", "parmapper" };
	for (int k = 0; k < 8; k++) {
		topomatch_topology_t *t = tm_topo(shapes[k / 4]);
		topomatch_affinity_t *st = tm_stencil3(8, 8, 8, k % 2 ? NULL : aniso);
		topomatch_affinity_t *s = tm_shuffled(st, 1);
		ck_assert_double_eq(tm_natural_hop_bytes(st, t, 1), topomatch_affinity_total(st));
		int64_t *pu = map1(s, t, mappers[k / 2 % 2]);
		double hpb = tm_hop_bytes(s, t, pu) / topomatch_affinity_total(s);
		ck_assert_msg(hpb <= 1.1, "%s on %s, %s faces: %g hops per byte", mappers[k / 2 % 2],
			      shapes[k / 4], k % 2 ? "equal" : "1000/500/100", hpb);
		free(pu);
		topomatch_affinity_destroy(s);
		topomatch_affinity_destroy(st);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/* §4.2's rule on made-up results. */
START_TEST(pareto_alpha_choice)
{
	const double avg[] = { 10, 10.4, 12, 9.9, 11 }, max[] = { 50, 20, 10, 60, 55 };
	bool ok[] = { true, true, true, true, true };
	ck_assert_int_eq(tm_parmapper_select(avg, max, ok, 5, 1.05), 0);
	ck_assert_int_eq(tm_parmapper_select(avg, max, ok, 5, 1.1), 1);
	ck_assert_int_eq(tm_parmapper_select(avg, max, ok, 5, 1.0), 3);
	ck_assert_int_eq(tm_parmapper_select(avg, max, ok, 5, 2.0), 2);
	ok[3] = false; /* h0 becomes 10 */
	ck_assert_int_eq(tm_parmapper_select(avg, max, ok, 5, 1.0), 0);
	/* (11, 55) is dominated by (10, 50): never chosen */
	const double a2[] = { 11, 10 }, m2[] = { 55, 50 };
	bool ok2[] = { true, true };
	ck_assert_int_eq(tm_parmapper_select(a2, m2, ok2, 2, 10.0), 1);
	ok2[0] = ok2[1] = false;
	ck_assert_int_eq(tm_parmapper_select(a2, m2, ok2, 2, 1.0), -1);
}
END_TEST

/* A work budget of one unit runs the first configuration only, which is
 * greedymap's default. */
START_TEST(work_budget_bounds_the_configurations)
{
	const double aniso[3] = { 1000, 500, 100 };
	topomatch_affinity_t *st = tm_stencil3(8, 8, 4, aniso), *s = tm_shuffled(st, 3);
	topomatch_topology_t *t = tm_topo("tleaf 3 4 100 4 10 16 1");
	int64_t *g = map1(s, t, "greedymap"), *p = map1(s, t, "parmapper:work=1");
	int64_t *full = map1(s, t, "parmapper");
	ck_assert(!memcmp(g, p, 256 * sizeof(*g)));
	ck_assert_double_le(tm_hop_bytes(s, t, full), 1.05 * tm_hop_bytes(s, t, g));
	free(g);
	free(p);
	free(full);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

/* A random configuration string. */
static void random_config(topomatch_rng_t *rng, char *buf, size_t len)
{
	static const char *const orders[] = { "oo", "bfs", "bfs-dfs", "gpart" };
	snprintf(buf, len, "greedymap:order=%s,pack=%d,delta=%d,wrap=%d,cost=%s,ties=%s",
		 orders[topomatch_rng_below(rng, 4)], (int)topomatch_rng_below(rng, 2),
		 (int)topomatch_rng_below(rng, 5), (int)topomatch_rng_below(rng, 2),
		 topomatch_rng_below(rng, 2) ? "max-hop-bytes" : "hop-bytes",
		 topomatch_rng_below(rng, 2) ? "random" : "first");
}

/* Random requests: every configuration gives a valid assignment, the
 * same for the same seed; ParMapper the same on 1 and 3 threads. */
START_TEST(random_requests_valid)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 11);
	for (int iter = 0; iter < 120; iter++) {
		topomatch_topology_t *t = tm_random_topology(&rng);
		int64_t npu = topomatch_topology_npu(t), *allowed = malloc((size_t)npu * 8);
		bool constrained = topomatch_rng_below(&rng, 2);
		int64_t m = constrained ? tm_allowed_each(&rng, npu, allowed) : npu;
		int f = 1 + (int)topomatch_rng_below(&rng, 3);
		int64_t n = 1 + (int64_t)topomatch_rng_below(&rng, (uint64_t)(m * f));
		topomatch_affinity_t *a;
		char cfg[128], err[TOPOMATCH_ERRLEN] = "";
		ck_assert_int_eq(topomatch_gen_random(n, n > 4 ? 3 : n - 1, 50,
						      topomatch_rng_next(&rng), &a, err), 0);
		const int64_t *al = constrained ? allowed : NULL;
		int64_t na = constrained ? m : 0;
		random_config(&rng, cfg, sizeof(cfg));
		int64_t *g1 = map_with(a, t, cfg, f, al, na, 1, (uint64_t)iter);
		int64_t *g2 = map_with(a, t, cfg, f, al, na, 1, (uint64_t)iter);
		ck_assert_msg(!memcmp(g1, g2, (size_t)n * 8), "iter %d %s: not deterministic", iter,
			      cfg);
		int64_t *p1 = map_with(a, t, "parmapper", f, al, na, 1, (uint64_t)iter);
		int64_t *p3 = map_with(a, t, "parmapper", f, al, na, 3, (uint64_t)iter);
		ck_assert_msg(!memcmp(p1, p3, (size_t)n * 8), "iter %d: threads differ", iter);
		free(g1);
		free(g2);
		free(p1);
		free(p3);
		free(allowed);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/* The bench's fat tree at 4096 ranks: ParMapper on 1 and 4 threads. */
START_TEST(fat_tree_4096_threads)
{
	const double aniso[3] = { 1000, 500, 100 };
	topomatch_affinity_t *st = tm_stencil3(16, 16, 16, aniso), *s = tm_shuffled(st, 1);
	topomatch_topology_t *t = tm_topo("tleaf 3 128 100 2 10 16 1");
	int64_t *p1 = map_with(s, t, "parmapper", 1, NULL, 0, 1, 1);
	int64_t *p4 = map_with(s, t, "parmapper", 1, NULL, 0, 4, 1);
	ck_assert(!memcmp(p1, p4, 4096 * sizeof(*p1)));
	double hb = tm_hop_bytes(s, t, p1), nat = tm_natural_hop_bytes(st, t, 1);
	ck_assert_msg(hb <= 1.1 * nat, "hop-bytes %g, natural %g", hb, nat);
	free(p1);
	free(p4);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

static void expect_error(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const char *mapper, const char *msg)
{
	topomatch_map_opts_t o;
	int64_t pu[8];
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, msg);
}

START_TEST(bad_options_are_explained)
{
	static const double e[1][3] = { { 0, 1, 1 } };
	topomatch_affinity_t *a = edges(4, 1, e);
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	expect_error(a, t, "greedymap:order=dfs", "order must be oo, bfs, bfs-dfs or gpart (got 'dfs')");
	expect_error(a, t, "greedymap:speed=2", "unknown option 'speed' (known: order, pack, delta");
	expect_error(a, t, "greedymap:delta=-3", "delta must be an integer >= 0");
	expect_error(a, t, "greedymap:pack=maybe", "pack must be 0 or 1 (got 'maybe')");
	expect_error(a, t, "greedymap:order", "option 'order' needs a value");
	expect_error(a, t, "greedymap:cost=time", "cost must be hop-bytes or max-hop-bytes");
	expect_error(a, t, "greedymap:ties=last", "ties must be first or random");
	expect_error(a, t, "parmapper:alpha=0.5", "alpha must be a number >= 1 (got '0.5')");
	expect_error(a, t, "parmapper:work=0", "work must be a number >= 1");
	expect_error(a, t, "parmapper:threads=4", "unknown option 'threads' (known: alpha, work)");
	/* a good option string is taken */
	int64_t *pu = map1(a, t, "greedymap:order=bfs,pack=1,delta=0,wrap=0,cost=max,ties=random");
	free(pu);
	pu = map1(a, t, "parmapper:alpha=1.2,work=1e6");
	free(pu);
	/* a deadline long past: EBUDGET inside, round-robin outside */
	topomatch_affinity_t *big;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_gen_random(8192, 4, 9, 1, &big, err), TOPOMATCH_OK);
	topomatch_topology_t *bt = tm_topo("tleaf 2 64 10 128 1");
	req_t r = request(big, bt, 1);
	int64_t *bpu = malloc(8192 * sizeof(*bpu));
	r.c.deadline = 1e-300;
	ck_assert_int_eq(tm_map_greedymap(&r.c, bpu, err), TOPOMATCH_EBUDGET);
	ck_assert_int_eq(tm_map_parmapper(&r.c, bpu, err), TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "time budget");
	free(bpu);
	free(r.allowed);
	topomatch_topology_destroy(bt);
	topomatch_affinity_destroy(big);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("greedymap");
	TCase *tc = tcase_create("greedymap");
	tcase_add_test(tc, task_lists);
	tcase_add_test(tc, gpart_lists_parts_together);
	tcase_add_test(tc, pack_node_first_and_delta);
	tcase_add_test(tc, pairs_share_a_leaf);
	tcase_add_test(tc, oversubscribed_pairs_share_a_pu);
	tcase_add_test(tc, pareto_alpha_choice);
	tcase_add_test(tc, bad_options_are_explained);
	suite_add_tcase(s, tc);
	TCase *tl = tcase_create("large");
	tcase_set_timeout(tl, 600);
	tcase_add_test(tl, torus_stencil_close_to_natural);
	tcase_add_test(tl, work_budget_bounds_the_configurations);
	tcase_add_test(tl, random_requests_valid);
	tcase_add_test(tl, fat_tree_4096_threads);
	suite_add_tcase(s, tl);
	return tm_run_suite(s);
}

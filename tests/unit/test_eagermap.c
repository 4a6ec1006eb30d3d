/*
 * test_eagermap.c - unit tests of EagerMap (Cruz et al., ACM TOPC 2019):
 * the worked example of §3.2 (Fig. 2-4), GenerateGroup and RecreateMatrix
 * (Alg. 3-4) directly, optimality on pairs and hierarchical patterns,
 * the load-aware variant (Alg. 6-7), non-tree topologies (§3.6) with a
 * shuffled stencil on a torus, valid assignments on random requests with
 * constraints and oversubscription, the same result whatever the thread
 * count (Alg. 8), and the error paths.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "map/eagermap_internal.h"
#include "topology/topology_internal.h"

#include <math.h>

/* A pattern from an n x n row-major matrix, with optional loads. */
static topomatch_affinity_t *dense(int n, const double *m, const double *loads)
{
	int64_t *src = malloc((size_t)(n * n + 1) * sizeof(*src));
	int64_t *dst = malloc((size_t)(n * n + 1) * sizeof(*dst));
	double *w = malloc((size_t)(n * n + 1) * sizeof(*w));
	int64_t k = 0;
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (m[i * n + j] != 0.0) {
				src[k] = i;
				dst[k] = j;
				w[k++] = m[i * n + j];
			}
	ck_assert_msg(topomatch_affinity_create(n, k, src, dst, w, loads, &a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	free(src);
	free(dst);
	free(w);
	return a;
}

/* topomatch_map with the given mapper; the result is checked. */
static int64_t *map_with(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const char *mapper, int f, const int64_t *allowed, int64_t nallowed,
			 int threads)
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
	ck_assert_msg(topomatch_map(a, t, &o, pu, &r, err) == TOPOMATCH_OK, "%s: %s", mapper, err);
	ck_assert_int_eq(r.fell_back, 0);
	ck_assert_msg(topomatch_mapping_check(t, n, pu, allowed, nallowed, f, err) == TOPOMATCH_OK,
		      "%s: %s", mapper, err);
	return pu;
}

static int64_t *eagermap(const topomatch_affinity_t *a, const topomatch_topology_t *t, int f)
{
	return map_with(a, t, "eagermap", f, NULL, 0, 1);
}

/* ------------------------------------------------------------------ */

/*
 * §3.2, Fig. 2-4: 16 tasks on 2 machines x 2 L3 x 2 cores (8 PUs, so 2
 * tasks per PU); task 0 sends 8, 4, 2, 1 to tasks 1, 2, 3, 4 (Fig. 4),
 * and so does every task to the next ones.  "Tasks x and x+1, where x is
 * even, will be mapped to core x/2."
 */
START_TEST(paper_example_section_3_2)
{
	double m[256] = { 0 };
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			int d = abs(i - j);
			if (d >= 1 && d <= 4)
				m[i * 16 + j] = (double)(1 << (4 - d));
		}
	topomatch_affinity_t *a = dense(16, m, NULL);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 1 2 1 2 1");
	int64_t *pu = eagermap(a, t, 2);

	for (int x = 0; x < 16; x++)
		ck_assert_int_eq(pu[x], x / 2);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Fig. 4: GenerateGroup's first group is [0, 1]; Alg. 4 sums the
 * communication between the groups. */
START_TEST(generate_group_and_recreate_matrix)
{
	double m[64] = { 0 };
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			int d = abs(i - j);
			if (d >= 1 && d <= 4)
				m[i * 8 + j] = (double)(1 << (4 - d));
		}
	topomatch_affinity_t *a = dense(8, m, NULL);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	tm_map_ctx_t c = { .a = a };
	em_level_t lv = { &c, NULL, &g, NULL, 1, NULL };
	int64_t nptr[5] = { 0, 1, 2, 3, 4 }, cnt[4] = { 2, 2, 2, 2 };
	int32_t ty[4] = { 0, 0, 0, 0 };
	em_need_t nd = { 4, nptr, ty, cnt, NULL };
	em_groups_t gr;
	em_graph_t q;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_int_eq(em_generate(&lv, &nd, &gr, err), TOPOMATCH_OK);
	for (int k = 0; k < 8; k++) /* [0, 1], [2, 3], [4, 5], [6, 7] */
		ck_assert_int_eq(gr.memb[k], k);
	ck_assert_int_eq(em_recreate(&g, &gr, &q, err), TOPOMATCH_OK);
	ck_assert_int_eq(q.g.n, 4);
	/* groups 0 and 1: 1-2 (8), 0-2 and 1-3 (4 each), 0-3 (2): 18, both
	 * ways in A = C + C^T */
	for (int64_t e = q.g.rowptr[0]; e < q.g.rowptr[1]; e++) {
		double want = q.g.col[e] == 1 ? 18 : q.g.col[e] == 2 ? 4 : 0;
		ck_assert_double_eq_tol(q.g.w[e], 2 * want, 1e-12);
		ck_assert_int_ne(q.g.col[e], 0);
	}
	ck_assert_int_eq(q.g.rowptr[1] - q.g.rowptr[0], 2); /* 0-4 is 4 apart: 1 */
	em_graph_free(&q);
	em_groups_free(&gr);
	topomatch_affinity_destroy(a);
}
END_TEST

/* 8 tasks in 4 heavy pairs, shuffled, on 4 leaves of 2 PUs: the pairs
 * share a leaf, and the hop-bytes are the optimum 4 x 2 x 100 x 2. */
START_TEST(pairs_share_a_leaf)
{
	double m[64] = { 0 };
	for (int i = 0; i < 8; i += 2) {
		m[i * 8 + i + 1] = 100;
		m[(i + 1) * 8 + i] = 100;
	}
	for (int i = 1; i + 1 < 8; i += 2) { /* light links between pairs */
		m[i * 8 + i + 1] = 1;
		m[(i + 1) * 8 + i] = 1;
	}
	topomatch_affinity_t *p = dense(8, m, NULL), *s = tm_shuffled(p, 5);
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 2 1");
	int64_t *pu = eagermap(s, t, 1);
	topomatch_csr_t c = topomatch_affinity_symmetric(s);

	for (int64_t i = 0; i < 8; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			if (c.w[e] >= 200)
				ck_assert_int_eq(pu[i] / 2, pu[c.col[e]] / 2);
	/* heavy pairs 2 hops apart, light links 4 hops */
	ck_assert_double_eq_tol(tm_hop_bytes(s, t, pu), 4 * 2 * 100 * 2 + 3 * 2 * 1 * 4, 1e-9);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

/* TreeMatch §5.1 patterns, shuffled: the greedy groups are the pattern's
 * groups, so the result is the optimum (the unshuffled natural one). */
START_TEST(hierarchical_is_optimal)
{
	static const struct {
		const char *tree;
		int nl, arity[4];
	} cases[] = {
		{ "tleaf 3 2 100 2 10 2 1", 3, { 2, 2, 2 } },
		{ "tleaf 3 4 100 4 10 4 1", 3, { 4, 4, 4 } },
		{ "tleaf 4 2 1000 4 100 2 10 8 1", 4, { 8, 2, 4, 2 } },
		{ "tleaf 3 8 100 8 10 8 1", 3, { 8, 8, 8 } },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		topomatch_affinity_t *h, *s;
		char err[TOPOMATCH_ERRLEN] = "";
		ck_assert_int_eq(topomatch_gen_hierarchical(cases[k].nl, cases[k].arity, 1000, 10, 0.1,
							    3, &h, err), TOPOMATCH_OK);
		s = tm_shuffled(h, 11);
		topomatch_topology_t *t = tm_topo(cases[k].tree);
		int64_t *pu = eagermap(s, t, 1);
		double got = tm_hop_bytes(s, t, pu), best = tm_natural_hop_bytes(h, t, 1);
		ck_assert_msg(fabs(got - best) <= 1e-9 * best, "%s: %.17g, optimum %.17g",
			      cases[k].tree, got, best);
		free(pu);
		topomatch_topology_destroy(t);
		topomatch_affinity_destroy(s);
		topomatch_affinity_destroy(h);
	}
}
END_TEST

/* Oversubscription: 16 tasks in pairs on 8 PUs, f = 2 -> pairs share a
 * PU; undersubscription: 10 tasks on 64 PUs stay under one socket pair. */
START_TEST(over_and_under_subscription)
{
	double m[256] = { 0 };
	for (int i = 0; i < 16; i += 2) {
		m[i * 16 + i + 1] = 1000;
		m[(i + 1) * 16 + i] = 1000;
		if (i + 2 < 16) {
			m[(i + 1) * 16 + i + 2] = 10;
			m[(i + 2) * 16 + i + 1] = 10;
		}
	}
	topomatch_affinity_t *p = dense(16, m, NULL), *s = tm_shuffled(p, 2);
	topomatch_topology_t *t = tm_topo("tleaf 3 2 10 2 5 2 1");
	int64_t *pu = eagermap(s, t, 2);
	topomatch_csr_t c = topomatch_affinity_symmetric(s);
	for (int64_t i = 0; i < 16; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			if (c.w[e] >= 2000)
				ck_assert_int_eq(pu[i], pu[c.col[e]]);
	free(pu);
	topomatch_topology_destroy(t);

	/* 10 tasks on tleaf 3 4 100 4 10 4 1: packed into 16 PUs of a node */
	double m10[100] = { 0 };
	for (int i = 0; i + 1 < 10; i++) {
		m10[i * 10 + i + 1] = i % 2 ? 10 : 1000;
		m10[(i + 1) * 10 + i] = i % 2 ? 10 : 1000;
	}
	topomatch_affinity_t *q = dense(10, m10, NULL);
	t = tm_topo("tleaf 3 4 100 4 10 4 1");
	pu = eagermap(q, t, 1);
	for (int i = 1; i < 10; i++)
		ck_assert_int_eq(pu[i] / 16, pu[0] / 16);
	for (int i = 0; i < 10; i += 2) /* the 1000 pairs on one socket */
		ck_assert_int_eq(pu[i] / 4, pu[i + 1] / 4);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(q);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(p);
}
END_TEST

/* Constraints: the allowed PUs of a fragmented job, pairs still share
 * sockets and only allowed PUs are used. */
START_TEST(constraints_on_a_tree)
{
	double m[144] = { 0 };
	for (int i = 0; i < 12; i += 2) {
		m[i * 12 + i + 1] = 100;
		m[(i + 1) * 12 + i] = 100;
	}
	topomatch_affinity_t *a = dense(12, m, NULL), *s = tm_shuffled(a, 3);
	topomatch_topology_t *t = tm_topo("tleaf 3 4 100 4 10 4 1");
	/* node 0: 3 free PUs on socket 0, 2 on socket 1; node 2: 8 free */
	const int64_t allowed[] = { 1, 2, 3, 4, 6, 32, 33, 34, 35, 40, 41, 42, 43 };
	int64_t *pu = map_with(s, t, "eagermap", 1, allowed, 13, 1);
	topomatch_csr_t c = topomatch_affinity_symmetric(s);
	int pairs_together = 0;
	for (int64_t i = 0; i < 12; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			pairs_together += pu[i] / 4 == pu[c.col[e]] / 4;
	ck_assert_int_ge(pairs_together, 2 * 5); /* at most one pair split */
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * Alg. 6-7: 12 tasks, 4 heavy (30) then 8 light (5), on 4 PUs taking up
 * to 4 each.  By count (q = 3 per PU) a PU gets 3 heavy tasks (90); by
 * load the groups close when they reach their share: no PU above 60, and
 * the light tasks fill the last PUs.
 */
START_TEST(load_aware_groups)
{
	double m[144] = { 0 }, loads[12];
	for (int i = 0; i < 12; i++)
		loads[i] = i < 4 ? 30 : 5;
	topomatch_affinity_t *a = dense(12, m, loads), *nl = dense(12, m, NULL);
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	int64_t *pu = eagermap(a, t, 4), *pc = eagermap(nl, t, 4);
	double with[4] = { 0 }, without[4] = { 0 }, mw = 0, mo = 0;
	for (int i = 0; i < 12; i++) {
		with[pu[i]] += loads[i];
		without[pc[i]] += loads[i];
	}
	for (int p = 0; p < 4; p++) {
		mw = fmax(mw, with[p]);
		mo = fmax(mo, without[p]);
	}
	ck_assert_double_eq(mo, 90);
	ck_assert_double_le(mw, 60);
	ck_assert(em_load_mode(loads, 12, 4));
	ck_assert(!em_load_mode(loads, 4, 4));  /* one task per PU: counts only */
	ck_assert(!em_load_mode(NULL, 12, 4));
	free(pu);
	free(pc);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(nl);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * §3.6: a shuffled 8x8x8 stencil on the torus (and the mesh) of the same
 * shape comes back to the natural placement, 1 hop per byte: measured
 * exactly 1.000 with the project's 1000/500/100 faces and with equal
 * faces (the placement starts from the least connected task, a corner,
 * and settles equal costs in a fixed order).
 */
START_TEST(torus_stencil_close_to_natural)
{
	const double aniso[3] = { 1000, 500, 100 };
	static const char *const shapes[] = { "torus3D 8 8 8", "mesh3D 8 8 8" };
	for (int k = 0; k < 4; k++) {
		topomatch_topology_t *t = tm_topo(shapes[k / 2]);
		topomatch_affinity_t *st = tm_stencil3(8, 8, 8, k % 2 ? NULL : aniso);
		topomatch_affinity_t *s = tm_shuffled(st, 1);
		int64_t *pu = eagermap(s, t, 1);
		double total = topomatch_affinity_total(s), hb = tm_hop_bytes(s, t, pu);
		ck_assert_msg(hb / total <= 1.1, "%s, %s faces: %g hops per byte", shapes[k / 2],
			      k % 2 ? "equal" : "1000/500/100", hb / total);
		ck_assert_double_eq(tm_natural_hop_bytes(st, t, 1) / total, 1.0);
		free(pu);
		topomatch_affinity_destroy(s);
		topomatch_affinity_destroy(st);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/* §3.6 with machines: routers of 8 PUs on a 4x4x4 torus, and a mesh,
 * both against the natural placement of the unshuffled stencil. */
START_TEST(grid_with_local_trees)
{
	const double aniso[3] = { 1000, 500, 100 };
	static const char *const grids[] = { "torus3D 4 4 4 local 2 2 10 4 1",
					     "mesh3D 8 8 8", "hcub 9" };
	topomatch_affinity_t *st = tm_stencil3(8, 8, 8, aniso), *s = tm_shuffled(st, 4);
	for (int k = 0; k < 3; k++) {
		topomatch_topology_t *t = tm_topo(grids[k]);
		int64_t *pu = eagermap(s, t, 1);
		double hb = tm_hop_bytes(s, t, pu), nat = tm_natural_hop_bytes(st, t, 1);
		ck_assert_msg(hb <= 1.25 * nat, "%s: %g, natural %g", grids[k], hb, nat);
		free(pu);
		topomatch_topology_destroy(t);
	}
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

/* Random patterns (some with loads), random constraints and f: always a
 * valid assignment, the same for the same seed and for 1 or 3 threads. */
START_TEST(random_requests_valid)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 7);
	for (int iter = 0; iter < 150; iter++) {
		topomatch_topology_t *t = tm_random_topology(&rng);
		int64_t npu = topomatch_topology_npu(t), *allowed = malloc((size_t)npu * 8);
		bool constrained = topomatch_rng_below(&rng, 2);
		int64_t m = constrained ? tm_allowed_each(&rng, npu, allowed) : npu;
		int f = 1 + (int)topomatch_rng_below(&rng, 3);
		int64_t n = 1 + (int64_t)topomatch_rng_below(&rng, (uint64_t)(m * f));
		topomatch_affinity_t *a, *b;
		char err[TOPOMATCH_ERRLEN] = "";
		ck_assert_int_eq(topomatch_gen_random(n, n > 4 ? 3 : n - 1, 50,
						      topomatch_rng_next(&rng), &a, err), 0);
		if (topomatch_rng_below(&rng, 2)) { /* with loads */
			topomatch_csr_t d = topomatch_affinity_directed(a);
			int64_t *src = malloc((size_t)(d.rowptr[n] + 1) * 8);
			double *ld = malloc((size_t)n * 8);
			for (int64_t i = 0; i < n; i++) {
				ld[i] = (double)topomatch_rng_below(&rng, 10);
				for (int64_t e = d.rowptr[i]; e < d.rowptr[i + 1]; e++)
					src[e] = i;
			}
			ck_assert_int_eq(topomatch_affinity_create(n, d.rowptr[n], src, d.col, d.w, ld,
								   &b, err), 0);
			topomatch_affinity_destroy(a);
			a = b;
			free(src);
			free(ld);
		}
		const int64_t *al = constrained ? allowed : NULL;
		int64_t *p1 = map_with(a, t, "eagermap", f, al, constrained ? m : 0, 1);
		int64_t *p2 = map_with(a, t, "eagermap", f, al, constrained ? m : 0, 3);
		ck_assert_msg(!memcmp(p1, p2, (size_t)n * sizeof(*p1)), "iter %d: threads differ",
			      iter);
		free(p1);
		free(p2);
		free(allowed);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/* Alg. 8: the parallel search picks the sequential winner, so the
 * mapping is the same on 1 and 4 threads, on a pattern dense enough for
 * the search to be split (touched lists past EM_PAR_MIN). */
START_TEST(threads_give_the_same_mapping)
{
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_gen_random(4096, 200, 20, 3, &a, err), TOPOMATCH_OK);
	static const char *const shapes[] = { "tleaf 3 16 100 4 10 64 1", "torus3D 16 16 16" };
	for (int k = 0; k < 2; k++) {
		topomatch_topology_t *t = tm_topo(shapes[k]);
		int64_t *p1 = map_with(a, t, "eagermap", 1, NULL, 0, 1);
		int64_t *p4 = map_with(a, t, "eagermap", 1, NULL, 0, 4);
		ck_assert_msg(!memcmp(p1, p4, 4096 * sizeof(*p1)), "%s: threads differ", shapes[k]);
		free(p1);
		free(p4);
		topomatch_topology_destroy(t);
	}
	/* and GenerateGroup itself, with and without the pool */
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	tm_map_ctx_t c = { .a = a };
	tm_pool_t *pool;
	ck_assert_int_eq(tm_pool_create(4, &pool, err), TOPOMATCH_OK);
	int64_t nptr[2] = { 0, 1 }, cnt[1] = { 4096 };
	int32_t ty[1] = { 0 };
	em_need_t nd = { 1, nptr, ty, cnt, NULL };
	em_level_t seq = { &c, NULL, &g, NULL, 1, NULL }, par = { &c, pool, &g, NULL, 1, NULL };
	em_groups_t g1, g4;
	ck_assert_int_eq(em_generate(&seq, &nd, &g1, err), TOPOMATCH_OK);
	ck_assert_int_eq(em_generate(&par, &nd, &g4, err), TOPOMATCH_OK);
	ck_assert(!memcmp(g1.memb, g4.memb, 4096 * sizeof(*g1.memb)));
	em_groups_free(&g1);
	em_groups_free(&g4);
	tm_pool_destroy(pool);
	topomatch_affinity_destroy(a);
}
END_TEST

/* The bench's fat tree: a shuffled 16x16x16 stencil, well grouped. */
START_TEST(fat_tree_4096)
{
	const double aniso[3] = { 1000, 500, 100 };
	topomatch_affinity_t *st = tm_stencil3(16, 16, 16, aniso), *s = tm_shuffled(st, 1);
	topomatch_topology_t *t = tm_topo("tleaf 3 128 100 2 10 16 1");
	int64_t *pu = eagermap(s, t, 1);
	double hb = tm_hop_bytes(s, t, pu), nat = tm_natural_hop_bytes(st, t, 1);
	ck_assert_msg(hb <= 1.1 * nat, "hop-bytes %g, natural %g", hb, nat);
	free(pu);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

START_TEST(errors_are_clear)
{
	double m[16] = { 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0 };
	topomatch_affinity_t *a = dense(4, m, NULL);
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	int64_t pu[4];
	char err[TOPOMATCH_ERRLEN] = "";

	topomatch_map_opts_init(&o);
	o.mapper = "eagermap:fast";
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "mapper 'eagermap' takes no options (got 'fast')");
	o.mapper = "eagermap";
	o.threads = 1000;
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "thread count 1000 is out of range [0, 256]");
	o.threads = 0;
	const int64_t two[] = { 0, 3 };
	o.allowed = two;
	o.nallowed = 2;
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "4 tasks do not fit on 2 PUs");
	o.allowed = NULL;
	o.nallowed = 0;
	o.mapper = "eagermapx";
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown mapper 'eagermapx'");
	ck_assert_contains(err, "eagermap, greedymap, parmapper");
	/* a deadline long past: the internal call reports it, the public
	 * one falls back to round-robin */
	int64_t allowed[4] = { 0, 1, 2, 3 };
	tm_map_ctx_t c = { .a = a, .t = t, .ntasks = 4, .allowed = allowed, .m = 4, .f = 1,
			   .threads = 1, .deadline = 1e-300 };
	topomatch_affinity_t *big;
	ck_assert_int_eq(topomatch_gen_random(20000, 4, 9, 1, &big, err), TOPOMATCH_OK);
	topomatch_topology_t *bt = tm_topo("tleaf 2 20 10 1000 1");
	int64_t *bpu = malloc(20000 * sizeof(*bpu)), *ball = malloc(20000 * sizeof(*ball));
	for (int64_t p = 0; p < 20000; p++)
		ball[p] = p;
	c = (tm_map_ctx_t){ .a = big, .t = bt, .ntasks = 20000, .allowed = ball, .m = 20000,
			    .f = 1, .threads = 1, .deadline = 1e-300 };
	ck_assert_int_eq(tm_map_eagermap(&c, bpu, err), TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "time budget");
	o.mapper = "eagermap";
	o.time_budget_s = 1e-9;
	ck_assert_int_eq(topomatch_map(big, bt, &o, bpu, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(r.fell_back, 1);
	ck_assert_str_eq(r.mapper, "round-robin");
	free(bpu);
	free(ball);
	topomatch_topology_destroy(bt);
	topomatch_affinity_destroy(big);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eagermap");
	TCase *tc = tcase_create("eagermap");
	tcase_add_test(tc, paper_example_section_3_2);
	tcase_add_test(tc, generate_group_and_recreate_matrix);
	tcase_add_test(tc, pairs_share_a_leaf);
	tcase_add_test(tc, hierarchical_is_optimal);
	tcase_add_test(tc, over_and_under_subscription);
	tcase_add_test(tc, constraints_on_a_tree);
	tcase_add_test(tc, load_aware_groups);
	tcase_add_test(tc, errors_are_clear);
	suite_add_tcase(s, tc);
	TCase *tl = tcase_create("large");
	tcase_set_timeout(tl, 300);
	tcase_add_test(tl, torus_stencil_close_to_natural);
	tcase_add_test(tl, grid_with_local_trees);
	tcase_add_test(tl, random_requests_valid);
	tcase_add_test(tl, threads_give_the_same_mapping);
	tcase_add_test(tl, fat_tree_4096);
	suite_add_tcase(s, tl);
	return tm_run_suite(s);
}

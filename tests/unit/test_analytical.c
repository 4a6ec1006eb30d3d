/*
 * test_analytical.c - unit tests of the analytical torus mapper (Wu,
 * Xiong, Lan et al., J. Supercomput. 2016, §3): known-optimal cases (a
 * line on a line, shuffled stencils on the grid of their own shape, with
 * one group per router and with several tasks per router), both
 * spreadings, valid and deterministic assignments on random requests
 * (1-3D, mesh or torus, several PUs per router, oversubscription, fewer
 * tasks than PUs, isolated tasks), the error messages, the time guard,
 * and auto's use of the grid candidates.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "map/mapper_internal.h"

/* topomatch_map, checked valid; r (may be NULL) gets the result. */
static int64_t *map_f(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		      const char *mapper, int f, topomatch_map_result_t *r)
{
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu));
	topomatch_map_opts_t o;
	topomatch_map_result_t rr;
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	o.oversub = f;
	ck_assert_msg(topomatch_map(a, t, &o, pu, r ? r : &rr, err) == TOPOMATCH_OK, "%s: %s",
		      mapper, err);
	ck_assert_msg(topomatch_mapping_check(t, n, pu, NULL, 0, f, err) == TOPOMATCH_OK, "%s: %s",
		      mapper, err);
	return pu;
}

static double hops_per_byte(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			    const char *mapper, int f)
{
	int64_t *pu = map_f(a, t, mapper, f, NULL);
	double h = tm_hop_bytes(a, t, pu) / topomatch_affinity_total(a);
	free(pu);
	return h;
}

static topomatch_topology_t *grid(int nd, const int *dims, int wrap)
{
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_grid(nd, dims, wrap, &t, err) == TOPOMATCH_OK, "%s", err);
	return t;
}

/* n tasks in a line (a ring when closed), weight 10 a link, shuffled. */
static topomatch_affinity_t *chain(int n, bool closed)
{
	int64_t src[16], dst[16];
	double w[16];
	int ne = closed ? n : n - 1;
	for (int i = 0; i < ne; i++) {
		src[i] = i;
		dst[i] = (i + 1) % n;
		w[i] = 10;
	}
	topomatch_affinity_t *a, *s;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_affinity_create(n, ne, src, dst, w, NULL, &a, err), 0);
	s = tm_shuffled(a, 7);
	topomatch_affinity_destroy(a);
	return s;
}

/*
 * A line of 12 tasks on a line of 12 routers: 1 hop per byte.  A ring on
 * a ring: the analytical mapper places on a mesh, where a ring folds in
 * two (measured 1.83 hops per byte, the paper's Eq. 2 does not see the
 * wrap-around link); auto's other grid candidate, GreedyMap, closes it
 * (1 hop per byte).
 */
START_TEST(lines_and_rings)
{
	const int dims[1] = { 12 };
	topomatch_topology_t *line = grid(1, dims, 0), *ring = grid(1, dims, 1);
	topomatch_affinity_t *path = chain(12, false), *cycle = chain(12, true);
	double h = hops_per_byte(path, line, "analytical", 1);
	ck_assert_msg(h == 1.0, "line: %g hops per byte", h);
	h = hops_per_byte(cycle, ring, "analytical", 1);
	ck_assert_msg(h > 1.5 && h < 2.0, "ring, analytical: %g hops per byte", h);
	h = hops_per_byte(cycle, ring, "auto", 1);
	ck_assert_msg(h == 1.0, "ring, auto: %g hops per byte", h);
	topomatch_affinity_destroy(cycle);
	topomatch_affinity_destroy(path);
	topomatch_topology_destroy(ring);
	topomatch_topology_destroy(line);
}
END_TEST

/*
 * A shuffled 3D stencil on the mesh and the torus of its own shape comes
 * back to the natural placement, 1 hop per byte (measured: exactly, for
 * equal faces; the 2D stencil too).  The paper's spreading is far from
 * it (measured 1.88 to 1.89) but better than the shuffled order.
 */
START_TEST(stencil_on_its_grid_is_natural)
{
	const int d3[3] = { 8, 8, 8 }, d2[2] = { 16, 16 };
	for (int wrap = 0; wrap < 2; wrap++) {
		topomatch_topology_t *t = grid(3, d3, wrap);
		topomatch_affinity_t *st = tm_stencil3(8, 8, 8, NULL), *s = tm_shuffled(st, 1);
		ck_assert_double_eq(tm_natural_hop_bytes(st, t, 1), topomatch_affinity_total(st));
		double h = hops_per_byte(s, t, "analytical", 1);
		ck_assert_msg(h == 1.0, "wrap %d: %g hops per byte", wrap, h);
		h = hops_per_byte(s, t, "analytical:spreading=paper", 1);
		double rr = hops_per_byte(s, t, "round-robin", 1);
		ck_assert_msg(h < 2.0 && h < rr / 2, "paper, wrap %d: %g hops per byte, shuffled %g",
			      wrap, h, rr);
		topomatch_affinity_destroy(s);
		topomatch_affinity_destroy(st);
		topomatch_topology_destroy(t);
	}
	topomatch_topology_t *t = grid(2, d2, 0);
	topomatch_affinity_t *st = tm_stencil3(16, 16, 1, NULL), *s = tm_shuffled(st, 2);
	double h = hops_per_byte(s, t, "analytical", 1);
	ck_assert_msg(h == 1.0, "2D: %g hops per byte", h);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Several tasks per router (§3.6's pre-partition into one group per
 * router): an 8x8x2 stencil, shuffled, on a 4x4x2 torus with 4 PUs per
 * router, within 1.25 x Scotch's hop-bytes.  At 2 tasks per PU on a grid
 * of single PUs, the groups' graph is less regular and the result is
 * behind Scotch (measured: 16x8x8 on torus3D 8 8 8, 8022 against 5296;
 * auto keeps Scotch there): here only better than the shuffled order.
 */
START_TEST(several_tasks_per_router)
{
	const int dims[3] = { 4, 4, 2 }, arity[2] = { 2, 2 };
	const unsigned char wrap[3] = { 1, 1, 1 };
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_topology_t *t;
	ck_assert_msg(topomatch_topology_grid_tree(3, dims, wrap, 2, arity, NULL, 10, &t, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	topomatch_affinity_t *st = tm_stencil3(8, 8, 2, NULL), *s = tm_shuffled(st, 4);
	double an = hops_per_byte(s, t, "analytical", 1), sc = hops_per_byte(s, t, "scotch", 1);
	ck_assert_msg(an <= 1.25 * sc, "analytical %g, scotch %g hops per byte", an, sc);
	topomatch_topology_destroy(t);
	topomatch_topology_t *g = grid(3, dims, 1);
	topomatch_affinity_t *st2 = tm_stencil3(8, 4, 2, NULL), *s2 = tm_shuffled(st2, 5);
	an = hops_per_byte(s2, g, "analytical", 2);
	double rr = hops_per_byte(s2, g, "round-robin", 2);
	ck_assert_msg(an < rr, "oversubscribed: analytical %g, shuffled order %g", an, rr);
	topomatch_topology_destroy(g);
	topomatch_affinity_destroy(s2);
	topomatch_affinity_destroy(st2);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
}
END_TEST

/* Random requests: valid, and the same twice. */
START_TEST(random_requests_valid_and_deterministic)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 7);
	char err[TOPOMATCH_ERRLEN] = "";
	for (int iter = 0; iter < 40; iter++) {
		int nd = 1 + (int)topomatch_rng_below(&rng, 3), dims[3];
		unsigned char wrap[3];
		for (int k = 0; k < nd; k++) {
			dims[k] = 1 + (int)topomatch_rng_below(&rng, nd == 1 ? 12 : 5);
			wrap[k] = (unsigned char)topomatch_rng_below(&rng, 2);
		}
		int local = (int)topomatch_rng_below(&rng, 3), arity[1] = { 1 + local };
		topomatch_topology_t *t;
		ck_assert_msg(topomatch_topology_grid_tree(nd, dims, wrap, local ? 1 : 0, arity, NULL,
							   1, &t, err) == TOPOMATCH_OK,
			      "%s", err);
		int f = 1 + (int)topomatch_rng_below(&rng, 2);
		int64_t cap = topomatch_topology_npu(t) * f;
		int64_t n = 1 + (int64_t)topomatch_rng_below(&rng, (uint64_t)cap);
		topomatch_affinity_t *a;
		/* degree 0 now and then: isolated tasks, nothing to place */
		int64_t degree = n > 1 ? (int64_t)topomatch_rng_below(&rng, 4) : 0;
		ck_assert_int_eq(topomatch_gen_random(n, degree > n - 1 ? n - 1 : degree, 9,
						      topomatch_rng_next(&rng), &a, err),
				 TOPOMATCH_OK);
		const char *m = iter % 3 ? "analytical" : "analytical:spreading=paper";
		int64_t *p1 = map_f(a, t, m, f, NULL), *p2 = map_f(a, t, m, f, NULL);
		ck_assert_msg(!memcmp(p1, p2, (size_t)n * sizeof(*p1)), "iter %d: not deterministic",
			      iter);
		free(p1);
		free(p2);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

static void expect_error(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const char *mapper, const int64_t *allowed, int64_t nallowed,
			 const char *msg)
{
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu));
	topomatch_map_opts_t o;
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	o.allowed = allowed;
	o.nallowed = nallowed;
	ck_assert_int_ne(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_OK);
	ck_assert_contains(err, msg);
	free(pu);
}

START_TEST(errors_are_explained)
{
	topomatch_affinity_t *a = tm_stencil3(2, 2, 2, NULL);
	topomatch_topology_t *tree = tm_topo("tleaf 2 2 10 4 1"), *t3 = tm_topo("torus3D 2 2 2");
	const int d4[4] = { 2, 2, 2, 1 };
	topomatch_topology_t *t4 = grid(4, d4, 1);
	expect_error(a, tree, "analytical", NULL, 0, "analytical needs a mesh or torus");
	expect_error(a, t4, "analytical", NULL, 0, "1 to 3 dimensions");
	expect_error(a, t3, "analytical:spreading=fast", NULL, 0,
		     "analytical: unknown options 'spreading=fast' (known: spreading=anchor|paper)");
	const int64_t allowed[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	expect_error(a, t3, "analytical", allowed, 8, "constraints");
	/* a deadline long past: EBUDGET inside */
	const int dims[3] = { 8, 8, 8 };
	topomatch_topology_t *g = grid(3, dims, 1);
	topomatch_affinity_t *st = tm_stencil3(8, 8, 8, NULL);
	tm_map_ctx_t c = { .a = st, .t = g, .ntasks = 512, .m = 512, .f = 1, .seed = 1,
			   .threads = 1, .deadline = 1e-300 };
	int64_t *all = malloc(512 * sizeof(*all)), *pu = malloc(512 * sizeof(*pu));
	for (int i = 0; i < 512; i++)
		all[i] = i;
	c.allowed = all;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_map_analytical(&c, pu, err), TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "analytical: time budget exceeded");
	free(all);
	free(pu);
	topomatch_affinity_destroy(st);
	topomatch_topology_destroy(g);
	topomatch_topology_destroy(t4);
	topomatch_topology_destroy(t3);
	topomatch_topology_destroy(tree);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * auto on a whole torus takes the analytical mapper when it beats Scotch
 * (a shuffled 12^3 stencil on torus3D 12 12 12: the analytical mapper
 * finds the natural placement, 1 hop per byte, Scotch measured 1.70; a
 * GreedyMap result as good does not displace it), and keeps Scotch under
 * constraints, where the grid candidates do not run.
 */
START_TEST(auto_takes_the_grid_candidates)
{
	const int dims[3] = { 12, 12, 12 };
	topomatch_topology_t *t = grid(3, dims, 1);
	topomatch_affinity_t *st = tm_stencil3(12, 12, 12, NULL), *s = tm_shuffled(st, 3);
	topomatch_map_result_t r;
	int64_t *pu = map_f(s, t, "auto", 1, &r), *spu = map_f(s, t, "scotch", 1, NULL);
	double got = tm_hop_bytes(s, t, pu), sc = tm_hop_bytes(s, t, spu);
	free(spu);
	ck_assert_str_eq(r.mapper, "analytical");
	ck_assert_msg(got == topomatch_affinity_total(s) && got < sc, "auto %g, scotch %g", got,
		      sc);
	free(pu);
	/* constrained: every PU, in reverse order */
	int64_t n = topomatch_affinity_ntasks(s), *allowed = malloc((size_t)n * sizeof(*allowed));
	for (int64_t i = 0; i < n; i++)
		allowed[i] = n - 1 - i;
	topomatch_map_opts_t o;
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = n;
	pu = malloc((size_t)n * sizeof(*pu));
	ck_assert_msg(topomatch_map(s, t, &o, pu, &r, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_str_eq(r.mapper, "scotch");
	free(pu);
	free(allowed);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(st);
	topomatch_topology_destroy(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analytical");
	TCase *tc = tcase_create("analytical");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, lines_and_rings);
	tcase_add_test(tc, stencil_on_its_grid_is_natural);
	tcase_add_test(tc, several_tasks_per_router);
	tcase_add_test(tc, random_requests_valid_and_deterministic);
	tcase_add_test(tc, errors_are_explained);
	tcase_add_test(tc, auto_takes_the_grid_candidates);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}

/*
 * test_metrics.c - unit tests of the mapping metrics (TopoMatch §3.5,
 * TopoMapping Eq. 1-5) and of the mapping check.  Every expected value is
 * worked out by hand in the comments; link ids follow router.c.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "base/tm_internal.h"
#include "metrics/metrics_internal.h"

#include <math.h>

#define TOL 1e-9

/* A pattern from n directed entries {src, dst, w}. */
static topomatch_affinity_t *pattern(int64_t ntasks, int n, const double (*e)[3])
{
	int64_t src[16], dst[16];
	double w[16];
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	for (int k = 0; k < n; k++) {
		src[k] = (int64_t)e[k][0];
		dst[k] = (int64_t)e[k][1];
		w[k] = e[k][2];
	}
	ck_assert_msg(topomatch_affinity_create(ntasks, n, src, dst, w, NULL, &a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	return a;
}

typedef struct want {
	double hop_bytes, sum_com, max_com, avg, max, link;
} want_t;

/* Compute the metrics and the per-task hop-bytes; compare both. */
static void check_metrics(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			  const int64_t *pu, want_t w, const double *thb)
{
	topomatch_metrics_t m;
	char err[TOPOMATCH_ERRLEN] = "";
	double out[16];
	ck_assert_msg(topomatch_metrics_compute(a, t, pu, &m, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_double_eq_tol(m.hop_bytes, w.hop_bytes, TOL);
	ck_assert_double_eq_tol(m.sum_com, w.sum_com, TOL);
	ck_assert_double_eq_tol(m.max_com, w.max_com, TOL);
	ck_assert_double_eq_tol(m.avg_task_hop_bytes, w.avg, TOL);
	ck_assert_double_eq_tol(m.max_task_hop_bytes, w.max, TOL);
	ck_assert_double_eq_tol(m.max_link_load, w.link, TOL);
	ck_assert_int_eq(topomatch_metrics_task_hop_bytes(a, t, pu, out, err), TOPOMATCH_OK);
	for (int64_t i = 0; i < topomatch_affinity_ntasks(a); i++)
		ck_assert_msg(fabs(out[i] - thb[i]) < TOL, "task %lld: %g, want %g", (long long)i,
			      out[i], thb[i]);
}

START_TEST(golden_two_tasks)
{
	/*
	 * "0 5 / 5 0" on tleaf 1 2 1, pu = {0, 1}: d = 2 x (1 - 0) = 2 and
	 * B = 2 x 1 = 2 for both entries.  hop_bytes = 5*2 + 5*2 = 20,
	 * sum_com = 20, max_com = 10.  A(0,1) = 10: each task 10*2 = 20.
	 * Links: 0 -> 1 uses up 0 (node 0) and down 3 (node 1), 1 -> 0 uses 2
	 * and 1; 5 on each.
	 */
	static const double e[][3] = { { 0, 1, 5 }, { 1, 0, 5 } };
	topomatch_affinity_t *a = pattern(2, 2, e);
	topomatch_topology_t *t = tm_topo("tleaf 1 2 1");
	const int64_t pu[] = { 0, 1 };
	check_metrics(a, t, pu, (want_t){ 20, 20, 10, 20, 20, 5 }, (const double[]){ 20, 20 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(tree_costs_asymmetric)
{
	/*
	 * tleaf 2 2 10 3 1 (PUs 0-2 under node 0, 3-5 under node 1; link
	 * ids: node n up 2n, down 2n+1; depth-1 nodes 0, 1; PU p's leaf 2+p).
	 * pu = {0, 1, 3, 0}; directed C:
	 *   0->1 w4: PU 0->1, d 2, B 2x1 = 2:   hb 8,  sc 8,  links 4, 7
	 *   1->0 w1: PU 1->0, d 2, B 2:         hb 2,  sc 2,  links 6, 5
	 *   0->2 w2: PU 0->3, d 4, B 2x11 = 22: hb 8,  sc 44, links 4, 0, 3, 11
	 *   2->3 w3: PU 3->0, d 4, B 22:        hb 12, sc 66, links 10, 2, 1, 5
	 *   3->0 w6: same PU: 0
	 * hop_bytes 30, sum_com 120, max_com 66 (a symmetric view would see
	 * 2<->3 as one weight 3 pair and 0<->1 as 5).
	 * A: (0,1) 5, (0,2) 2, (0,3) 6, (2,3) 3:
	 *   task 0: 5*2 + 2*4 + 6*0 = 18, task 1: 5*2 = 10,
	 *   task 2: 2*4 + 3*4 = 20,       task 3: 6*0 + 3*4 = 12
	 *   avg 60/4 = 15, max 20.
	 * Loads: link 4 = 4 + 2 = 6 (the busiest), 5 = 1 + 3 = 4, 7 = 4.
	 */
	static const double e[][3] = {
		{ 0, 1, 4 }, { 1, 0, 1 }, { 0, 2, 2 }, { 2, 3, 3 }, { 3, 0, 6 },
	};
	topomatch_affinity_t *a = pattern(4, 5, e);
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 3 1");
	const int64_t pu[] = { 0, 1, 3, 0 };
	check_metrics(a, t, pu, (want_t){ 30, 120, 66, 15, 20, 6 },
		      (const double[]){ 18, 10, 20, 12 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(torus_wrap)
{
	/*
	 * torus2D 4 3 (PU = x + 4y; node v's + link in dim k 2(2v + k), -
	 * link 2(2v + k) + 1), pu = {0, 3, 10} = (0,0), (3,0), (2,2):
	 *   0->1 w2: (0,0)->(3,0) 1 back over the wrap, link 1; d 1
	 *   1->2 w1: x 3->2 back from node 3 (13); y 0->2 back over the
	 *            wrap from node 2 (11); d 2
	 *   2->0 w4: x 2->0 is a tie: + from 10 (40) and 11 (44) to 8;
	 *            y 2->0 + over the wrap from 8 (34); d 3
	 * hop_bytes = 2 + 2 + 12 = 16 = sum_com (unit links); max_com 12.
	 * A: (0,1) 2, (1,2) 1, (0,2) 4: tasks 2 + 12 = 14, 2 + 2 = 4,
	 * 2 + 12 = 14; avg 32/3, max 14.  Loads: 2, 1, 1, 4, 4, 4: max 4.
	 */
	static const double e[][3] = { { 0, 1, 2 }, { 1, 2, 1 }, { 2, 0, 4 } };
	topomatch_affinity_t *a = pattern(3, 3, e);
	topomatch_topology_t *t = tm_topo("torus2D 4 3");
	const int64_t pu[] = { 0, 3, 10 };
	check_metrics(a, t, pu, (want_t){ 16, 16, 12, 32.0 / 3.0, 14, 4 },
		      (const double[]){ 14, 4, 14 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(mesh_shared_links)
{
	/*
	 * The same tasks on mesh2D 4 3 plus 0->2 w5:
	 *   0->1 w2: x + from 0, 1, 2 (links 0, 4, 8); d 3, hb 6
	 *   1->2 w1: x - from 3 (13); y + from 2, 6 (10, 26); d 3, hb 3
	 *   2->0 w4: x - from 10, 9 (41, 37); y - from 8, 4 (35, 19); d 4, hb 16
	 *   0->2 w5: x + from 0, 1 (0, 4); y + from 2, 6 (10, 26); d 4, hb 20
	 * hop_bytes = sum_com = 45, max_com 20.
	 * A: (0,1) 2, (1,2) 1, (0,2) 9: tasks 6 + 36 = 42, 6 + 3 = 9,
	 * 3 + 36 = 39; avg 90/3 = 30, max 42.
	 * Loads: links 0 and 4 carry 2 + 5 = 7 (max), 10 and 26 carry 6.
	 */
	static const double e[][3] = { { 0, 1, 2 }, { 1, 2, 1 }, { 2, 0, 4 }, { 0, 2, 5 } };
	topomatch_affinity_t *a = pattern(3, 4, e);
	topomatch_topology_t *t = tm_topo("mesh2D 4 3");
	const int64_t pu[] = { 0, 3, 10 };
	check_metrics(a, t, pu, (want_t){ 45, 45, 20, 30, 42, 7 }, (const double[]){ 42, 9, 39 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(hypercube)
{
	/*
	 * hcub 3 (link v*3 + b flips bit b of v), pu = {5, 2, 4}:
	 *   0->1 w3: 101 -> 010, links 15, 13, 20; d 3, hb 9
	 *   1->0 w1: 010 -> 101, links 6, 10, 5;   d 3, hb 3
	 *   0->2 w2: 101 -> 100, link 15;          d 1, hb 2
	 * hop_bytes = sum_com = 14, max_com 9.
	 * A: (0,1) 4, (0,2) 2: tasks 12 + 2 = 14, 12, 2; avg 28/3, max 14.
	 * Loads: link 15 carries 3 + 2 = 5.
	 */
	static const double e[][3] = { { 0, 1, 3 }, { 1, 0, 1 }, { 0, 2, 2 } };
	topomatch_affinity_t *a = pattern(3, 3, e);
	topomatch_topology_t *t = tm_topo("hcub 3");
	const int64_t pu[] = { 5, 2, 4 };
	check_metrics(a, t, pu, (want_t){ 14, 14, 9, 28.0 / 3.0, 14, 5 },
		      (const double[]){ 14, 12, 2 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(graph_routes)
{
	/*
	 * Vertices 0-5 (all PUs), links k: 0-1 (1), 0-2 (10), 1-4 (1),
	 * 2-3 (10), 3-5 (10), 4-5 (1).  BFS from 0 routes 0-1-4-5 (cost 3),
	 * BFS from 5 routes 5-3-2-0 (cost 30): both 3 hops.
	 * Tasks 0, 1 on PUs 0, 5; C 0->1 w2, 1->0 w3; task 2 on PU 1 with
	 * 2->0 w1 (1 -> 0 by link k0 backwards, id 1, d 1, cost 1).
	 *   hop_bytes = 2*3 + 3*3 + 1*1 = 16
	 *   sum_com = 2*3 + 3*30 + 1*1 = 97, max_com = 90
	 * A: (0,1) 5, (0,2) 1: tasks 15 + 1 = 16, 15, 1; avg 32/3, max 16.
	 * Loads: every link of both routes carries its one entry: max 3.
	 */
	static const int64_t la[] = { 0, 0, 1, 2, 3, 4 };
	static const int64_t lb[] = { 1, 2, 4, 3, 5, 5 };
	static const double lc[] = { 1, 10, 1, 10, 10, 1 };
	static const double e[][3] = { { 0, 1, 2 }, { 1, 0, 3 }, { 2, 0, 1 } };
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_graph(6, 6, la, lb, lc, NULL, &t, err), TOPOMATCH_OK);
	topomatch_affinity_t *a = pattern(3, 3, e);
	const int64_t pu[] = { 0, 5, 1 };
	check_metrics(a, t, pu, (want_t){ 16, 97, 90, 32.0 / 3.0, 16, 3 },
		      (const double[]){ 16, 15, 1 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(oversubscribed)
{
	/*
	 * tleaf 1 2 1, pu = {0, 0, 1}: tasks 0 and 1 share PU 0.
	 *   0->1 w4: same PU, d 0
	 *   1->2 w1: PU 0->1, d 2, B 2, links 0 (up), 3 (down)
	 *   2->0 w2: PU 1->0, d 2, B 2, links 2, 1
	 * hop_bytes = sum_com = 2 + 4 = 6, max_com 4.
	 * A: (0,1) 4, (1,2) 1, (0,2) 2: tasks 0 + 4 = 4, 0 + 2 = 2,
	 * 2 + 4 = 6; avg 12/3 = 4, max 6.  Loads 1, 1, 2, 2: max 2.
	 */
	static const double e[][3] = { { 0, 1, 4 }, { 1, 2, 1 }, { 2, 0, 2 } };
	topomatch_affinity_t *a = pattern(3, 3, e);
	topomatch_topology_t *t = tm_topo("tleaf 1 2 1");
	const int64_t pu[] = { 0, 0, 1 };
	check_metrics(a, t, pu, (want_t){ 6, 6, 4, 4, 6, 2 }, (const double[]){ 4, 2, 6 });
	/* everything on one PU: all zero */
	const int64_t same[] = { 1, 1, 1 };
	check_metrics(a, t, same, (want_t){ 0, 0, 0, 0, 0, 0 }, (const double[]){ 0, 0, 0 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(no_entries)
{
	/* a pattern without communication: every metric is 0 */
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_affinity_create(3, 0, NULL, NULL, NULL, NULL, &a, err),
			 TOPOMATCH_OK);
	topomatch_topology_t *t = tm_topo("torus2D 2 2");
	const int64_t pu[] = { 0, 1, 3 };
	check_metrics(a, t, pu, (want_t){ 0, 0, 0, 0, 0, 0 }, (const double[]){ 0, 0, 0 });
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(invalid_pu)
{
	static const double e[][3] = { { 0, 1, 1 } };
	topomatch_affinity_t *a = pattern(2, 1, e);
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	topomatch_metrics_t m;
	double out[2];
	char err[TOPOMATCH_ERRLEN];
	const int64_t bad[] = { 0, 4 }, neg[] = { -1, 0 };
	ck_assert_int_eq(topomatch_metrics_compute(a, t, bad, &m, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 1 is on PU 4, outside [0, 4)");
	ck_assert_int_eq(topomatch_metrics_task_hop_bytes(a, t, neg, out, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 0 is on PU -1");
	ck_assert_int_eq(topomatch_metrics_compute(a, t, NULL, &m, err), TOPOMATCH_EINVAL);
	topomatch_topology_destroy(t);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(matches_pairwise_sum)
{
	/*
	 * Cross-check on a larger case: a ring of 12 tasks (i -> i+1 weight
	 * i+1, i -> i+5 weight 2) scattered on torus3D 3 2 4 and on a binary
	 * tleaf; hop_bytes must equal sum C(i,j) topology_hops(s(i), s(j)).
	 */
	int64_t src[24], dst[24], pu[12];
	double w[24];
	for (int i = 0; i < 12; i++) {
		src[2 * i] = src[2 * i + 1] = i;
		dst[2 * i] = (i + 1) % 12;
		w[2 * i] = i + 1;
		dst[2 * i + 1] = (i + 5) % 12;
		w[2 * i + 1] = 2;
		pu[i] = (7 * i + 3) % 24;
	}
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_affinity_create(12, 24, src, dst, w, NULL, &a, err),
			 TOPOMATCH_OK);
	static const char *const targets[] = { "torus3D 3 2 4", "tleaf 3 2 7 3 5 4 1",
					       "mesh3D 3 2 4" };
	for (int k = 0; k < 3; k++) {
		topomatch_topology_t *t = tm_topo(targets[k]);
		topomatch_metrics_t m;
		double hb = 0.0, sc = 0.0;
		for (int e = 0; e < 24; e++) {
			hb += w[e] * (double)topomatch_topology_hops(t, pu[src[e]], pu[dst[e]]);
			sc += w[e] * topomatch_topology_cost(t, pu[src[e]], pu[dst[e]]);
		}
		ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), TOPOMATCH_OK);
		ck_assert_double_eq_tol(m.hop_bytes, hb, TOL);
		ck_assert_double_eq_tol(m.sum_com, sc, TOL);
		ck_assert_double_eq_tol(m.avg_task_hop_bytes * 12, 2 * hb, TOL);
		topomatch_topology_destroy(t);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

/* ---------------------------------------------------------------- check */

START_TEST(mapping_check)
{
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1"); /* PUs 0-3 */
	char err[TOPOMATCH_ERRLEN];
	const int64_t one_each[] = { 0, 1, 2, 3 };
	ck_assert_int_eq(topomatch_mapping_check(t, 4, one_each, NULL, 0, 1, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_mapping_check(t, 0, NULL, NULL, 0, 1, err), TOPOMATCH_OK);

	/* PU 1 gets tasks 1 and 2: task 2 is the first too many */
	const int64_t twice[] = { 0, 1, 1, 3 };
	ck_assert_int_eq(topomatch_mapping_check(t, 4, twice, NULL, 0, 1, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 2: PU 1 holds 2 tasks (at most 1 allowed)");
	ck_assert_int_eq(topomatch_mapping_check(t, 4, twice, NULL, 0, 2, err), TOPOMATCH_OK);
	/* three on PU 1 with oversub 2: task 3 overfills, final count 3 */
	const int64_t thrice[] = { 1, 0, 1, 1 };
	ck_assert_int_eq(topomatch_mapping_check(t, 4, thrice, NULL, 0, 2, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 3: PU 1 holds 3 tasks (at most 2 allowed)");

	/* allowed PUs 0, 2, 3: task 2 on PU 1 is the first outside */
	const int64_t allowed[] = { 3, 0, 2 };
	const int64_t out[] = { 0, 2, 1, 1 };
	ck_assert_int_eq(topomatch_mapping_check(t, 4, out, allowed, 3, 4, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 2 is on PU 1, which is not allowed");
	ck_assert_int_eq(topomatch_mapping_check(t, 2, out, allowed, 3, 1, err), TOPOMATCH_OK);
	/* an empty allowed list allows nothing */
	ck_assert_int_eq(topomatch_mapping_check(t, 1, out, allowed, 0, 1, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 0 is on PU 0, which is not allowed");

	/* the allowed ids themselves must be PUs */
	const int64_t bad_allowed[] = { 0, 9 };
	ck_assert_int_eq(topomatch_mapping_check(t, 1, out, bad_allowed, 2, 1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 9 (entry 1) is outside [0, 4)");

	/* out-of-range PU, bad oversubscription */
	const int64_t range[] = { 0, 4 };
	ck_assert_int_eq(topomatch_mapping_check(t, 2, range, NULL, 0, 1, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 1 is on PU 4, outside [0, 4)");
	ck_assert_int_eq(topomatch_mapping_check(t, 4, one_each, NULL, 0, 0, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "oversubscription must be >= 1");
	ck_assert_int_eq(topomatch_mapping_check(t, -1, one_each, NULL, 0, 1, err),
			 TOPOMATCH_EINVAL);
	topomatch_topology_destroy(t);
}
END_TEST

/* The topology of text, or with NULL a graph of 6 vertices and 6 links. */
static topomatch_topology_t *text_or_graph(const char *text)
{
	static const int64_t la[] = { 0, 0, 1, 2, 3, 4 };
	static const int64_t lb[] = { 1, 2, 4, 3, 5, 5 };
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t;
	if (text)
		return tm_topo(text);
	ck_assert_int_eq(topomatch_topology_graph(6, 6, la, lb, NULL, NULL, &t, err), TOPOMATCH_OK);
	return t;
}

/*
 * The hop-bytes-only walk (used by auto to compare candidates) gives
 * metrics_compute's hop_bytes to the bit: non-integer weights, shared PUs,
 * and every kind of topology, a graph included.
 */
START_TEST(hop_bytes_only_is_exact)
{
	static const char *const texts[] = { "tleaf 3 4 100 2 10 4 1", "torus3D 4 2 4",
					     "mesh2D 8 4", "hcub 5", NULL };
	char err[TOPOMATCH_ERRLEN];
	for (int k = 0; k < 5; k++) {
		topomatch_topology_t *t = text_or_graph(texts[k]);
		topomatch_affinity_t *r, *a;
		int64_t n = 2 * topomatch_topology_npu(t);
		ck_assert_int_eq(topomatch_gen_random(n, n > 6 ? 5 : 3, 50, k, &r, err), 0);
		ck_assert_int_eq(topomatch_affinity_noise(r, TOPOMATCH_NOISE_GM, 0.3, k, 0, &a,
							  err), 0);
		int64_t *pu = malloc((size_t)n * sizeof(*pu));
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.mapper = "random";
		o.oversub = 2;
		ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_OK);
		topomatch_metrics_t m;
		double hb = -1;
		ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), TOPOMATCH_OK);
		ck_assert_int_eq(tm_metrics_hop_bytes(a, t, pu, &hb, err), TOPOMATCH_OK);
		ck_assert_msg(hb == m.hop_bytes, "topology %d: %.17g != %.17g", k, hb, m.hop_bytes);
		ck_assert_double_gt(hb, 0);
		free(pu);
		topomatch_affinity_destroy(r);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/*
 * topomatch_metrics_edge_hops: every entry's hop count is the topology's
 * between its tasks' PUs, on a tree, a torus and a graph (whose senders
 * it takes by PU), tasks placed at random; NULL arguments refused.
 */
START_TEST(edge_hops_per_entry)
{
	static const char *const texts[] = { "tleaf 3 4 100 2 10 4 1", "torus3D 4 2 4", NULL };
	char err[TOPOMATCH_ERRLEN];
	for (int k = 0; k < 3; k++) {
		topomatch_topology_t *t = text_or_graph(texts[k]);
		topomatch_affinity_t *a;
		int64_t n = topomatch_topology_npu(t);
		ck_assert_int_eq(topomatch_gen_random(n, n > 6 ? 5 : 3, 50, k, &a, err), 0);
		int64_t *pu = malloc((size_t)n * sizeof(*pu));
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.mapper = "random";
		ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_OK);
		topomatch_csr_t c = topomatch_affinity_directed(a);
		int64_t *hops = malloc((size_t)c.rowptr[c.n] * sizeof(*hops));
		topomatch_router_t *r;
		ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
		ck_assert_int_eq(topomatch_metrics_edge_hops(t, r, a, pu, hops, err), TOPOMATCH_OK);
		for (int64_t i = 0; i < c.n; i++)
			for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
				ck_assert_int_eq(hops[e], topomatch_topology_hops(t, pu[i],
										  pu[c.col[e]]));
		ck_assert_int_eq(topomatch_metrics_edge_hops(t, r, a, NULL, hops, err),
				 TOPOMATCH_EINVAL);
		ck_assert_str_eq(err, "edge hops: NULL argument");
		topomatch_router_destroy(r);
		free(hops);
		free(pu);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

static Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");
	tcase_add_test(tc, golden_two_tasks);
	tcase_add_test(tc, tree_costs_asymmetric);
	tcase_add_test(tc, torus_wrap);
	tcase_add_test(tc, mesh_shared_links);
	tcase_add_test(tc, hypercube);
	tcase_add_test(tc, graph_routes);
	tcase_add_test(tc, oversubscribed);
	tcase_add_test(tc, no_entries);
	tcase_add_test(tc, invalid_pu);
	tcase_add_test(tc, matches_pairwise_sum);
	tcase_add_test(tc, hop_bytes_only_is_exact);
	tcase_add_test(tc, edge_hops_per_entry);
	suite_add_tcase(s, tc);
	tc = tcase_create("check");
	tcase_add_test(tc, mapping_check);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(metrics_suite());
}

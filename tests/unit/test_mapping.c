/*
 * test_mapping.c - mappers (round-robin, random, auto), option checks and
 * the PU-id list reader.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "map/mapper_internal.h"
#include "base/tm_pool.h"
#include <stdatomic.h>

#include <stdbool.h>
#include <unistd.h>

/* 8 tasks: pairs (2i, 2i+1) exchange 100, pairs of pairs 10 (TreeMatch Fig. 1 style) */
static topomatch_affinity_t *pairs8(void)
{
	int64_t s[32], d[32];
	double w[32];
	int k = 0;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			if (i == j || i / 4 != j / 4)
				continue;
			s[k] = i;
			d[k] = j;
			w[k] = (i / 2 == j / 2) ? 100 : 10;
			k++;
		}
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_affinity_create(8, k, s, d, w, NULL, &a, err) == 0, "%s", err);
	return a;
}

static char *tmpfile_with(const char *text)
{
	static char path[64];
	strcpy(path, "/tmp/tm_test_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

START_TEST(round_robin_is_identity)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 4 1");
	topomatch_affinity_t *a = pairs8();
	topomatch_map_opts_t o = { .mapper = "round-robin" };
	topomatch_map_result_t r;
	int64_t pu[8];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, &r, err), TOPOMATCH_OK);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pu[i], i);
	ck_assert_str_eq(r.mapper, "round-robin");
	ck_assert_int_eq(r.fell_back, 0);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(round_robin_follows_constraints_and_wraps)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 4 1");
	topomatch_affinity_t *a = pairs8();
	int64_t allowed[] = { 7, 2, 5, 0 };
	topomatch_map_opts_t o = { .mapper = "round-robin", .allowed = allowed, .nallowed = 4,
				   .oversub = 2 };
	int64_t pu[8];
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, NULL), TOPOMATCH_OK);
	const int64_t want[] = { 7, 2, 5, 0, 7, 2, 5, 0 };
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pu[i], want[i]);
	ck_assert_int_eq(topomatch_mapping_check(t, 8, pu, allowed, 4, 2, NULL), TOPOMATCH_OK);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(random_is_valid_and_seeded)
{
	topomatch_topology_t *t = tm_topo("tleaf 3 4 100 2 10 4 1"); /* 32 PUs */
	topomatch_affinity_t *a = pairs8();
	int64_t allowed[] = { 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21 };
	int64_t p1[8], p2[8], p3[8];
	topomatch_map_opts_t o = { .mapper = "random", .seed = 5, .allowed = allowed,
				   .nallowed = 11 };
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_map(a, t, &o, p1, NULL, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_map(a, t, &o, p2, NULL, err), TOPOMATCH_OK);
	o.seed = 6;
	ck_assert_int_eq(topomatch_map(a, t, &o, p3, NULL, err), TOPOMATCH_OK);
	ck_assert_mem_eq(p1, p2, sizeof(p1));
	ck_assert_msg(memcmp(p1, p3, sizeof(p1)) != 0, "seeds 5 and 6 gave the same mapping");
	ck_assert_int_eq(topomatch_mapping_check(t, 8, p1, allowed, 11, 1, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_mapping_check(t, 8, p3, allowed, 11, 1, err), TOPOMATCH_OK);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(random_oversubscribed_fills_every_slot)
{
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	topomatch_affinity_t *a = pairs8();
	topomatch_map_opts_t o = { .mapper = "random", .seed = 3, .oversub = 2 };
	int64_t pu[8];
	int per[4] = { 0 };
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, NULL), TOPOMATCH_OK);
	for (int i = 0; i < 8; i++)
		per[pu[i]]++;
	for (int p = 0; p < 4; p++)
		ck_assert_int_eq(per[p], 2);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(auto_never_worse_than_natural)
{
	/* round-robin is optimal here (each group of 4 on one node), so auto
	 * must match it and, on the tie, report the natural placement */
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 4 1");
	topomatch_affinity_t *a = pairs8();
	int64_t pu[8], rr[8];
	topomatch_map_opts_t o = { .seed = 1 }, orr = { .mapper = "round-robin" };
	topomatch_map_result_t r;
	topomatch_metrics_t m, mrr;
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, &r, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_map(a, t, &orr, rr, NULL, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, NULL), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_metrics_compute(a, t, rr, &mrr, NULL), TOPOMATCH_OK);
	ck_assert_double_le(m.hop_bytes, mrr.hop_bytes);
	/* all traffic inside a node (2 hops); directed weight per group:
	 * 4 x 100 + 8 x 10 = 480, two groups: 960 x 2 hops = 1920 */
	ck_assert_double_eq(mrr.hop_bytes, 1920);
	ck_assert_double_eq(m.hop_bytes, 1920);
	ck_assert_str_eq(r.mapper, "round-robin");
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(option_errors)
{
	topomatch_topology_t *t = tm_topo("tleaf 1 4 1");
	topomatch_affinity_t *a = pairs8();
	int64_t pu[8];
	char err[TOPOMATCH_ERRLEN];
	topomatch_map_opts_t o = { .mapper = "round-robin" };
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "8 tasks do not fit on 4 PUs with at most 1 task per PU");
	o.mapper = "nosuch";
	o.oversub = 2;
	ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown mapper 'nosuch'");
	int64_t bad[] = { 0, 4 };
	topomatch_map_opts_t ob = { .allowed = bad, .nallowed = 2, .oversub = 4 };
	ck_assert_int_eq(topomatch_map(a, t, &ob, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 4 is out of range [0, 4)");
	int64_t dup[] = { 1, 1, 2 };
	topomatch_map_opts_t od = { .allowed = dup, .nallowed = 3, .oversub = 4 };
	ck_assert_int_eq(topomatch_map(a, t, &od, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 1 is listed twice");
	topomatch_map_opts_t oo = { .oversub = 5000 };
	ck_assert_int_eq(topomatch_map(a, t, &oo, pu, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "oversubscription factor 5000");
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Weights whose hop-bytes would overflow (each 1e307: 4e307 in all, 220
 * the longest route cost) map as if they were small, by every mapper. */
START_TEST(overflowing_weights)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 100 2 10");
	int64_t s[] = { 0, 1, 2, 3, 0 }, d[] = { 2, 3, 0, 1, 1 }, pu[4], want[4];
	double w[] = { 1e307, 1e307, 1e307, 1e307, 1e305 }, w1[] = { 100, 100, 100, 100, 1 };
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a, *a1;
	ck_assert_msg(topomatch_affinity_create(4, 5, s, d, w, NULL, &a, err) == 0, "%s", err);
	ck_assert_msg(topomatch_affinity_create(4, 5, s, d, w1, NULL, &a1, err) == 0, "%s", err);
	static const char *const mappers[] = { "auto", "portfolio", "treematch", "scotch",
					       "greedymap", "eagermap" };
	for (int k = 0; k < 6; k++) {
		topomatch_map_opts_t o = { .mapper = mappers[k] };
		ck_assert_msg(topomatch_map(a1, t, &o, want, NULL, err) == 0, "%s", err);
		ck_assert_msg(topomatch_map(a, t, &o, pu, NULL, err) == 0, "%s: %s", mappers[k], err);
		for (int i = 0; i < 4; i++)
			ck_assert_msg(pu[i] == want[i], "%s: task %d on PU %lld, not %lld",
				      mappers[k], i, (long long)pu[i], (long long)want[i]);
	}
	/* 0-2 and 1-3 talk most: each pair shares a leaf switch */
	ck_assert_int_eq(want[0] / 2, want[2] / 2);
	ck_assert_int_eq(want[1] / 2, want[3] / 2);
	topomatch_metrics_t m;
	ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), 0);
	/* 4 x 1e307 bytes 2 hops, 1e305 bytes 4 hops */
	ck_assert_double_eq_tol(m.hop_bytes, 8.04e307, 1e293);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(a1);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(id_list_reader)
{
	int64_t *ids, n;
	char err[TOPOMATCH_ERRLEN];
	char *p = tmpfile_with("# allowed PUs\n3 4\t5\n\n 7 # trailing comment\n9\n");
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 1, 0, &ids, &n, err), TOPOMATCH_OK);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(ids[0], 3);
	ck_assert_int_eq(ids[3], 7);
	ck_assert_int_eq(ids[4], 9);
	free(ids);
	ck_assert_int_eq(topomatch_read_id_list(p, 8, 1, 0, &ids, &n, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, ":5: PU id 9 out of range [0, 8)");
	unlink(p);
	p = tmpfile_with("1 2\n3 x\n");
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 0, 0, &ids, &n, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, ":2: not a PU id: 'x'");
	unlink(p);
	p = tmpfile_with("1 2\n2\n");
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 1, 0, &ids, &n, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, ":2: PU id 2 listed twice");
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 0, 0, &ids, &n, err), TOPOMATCH_OK);
	ck_assert_int_eq(n, 3);
	free(ids);
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 0, 2, &ids, &n, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, ":2: more ids than expected (2)");
	unlink(p);
	p = tmpfile_with("# nothing\n\n");
	ck_assert_int_eq(topomatch_read_id_list(p, 10, 0, 0, &ids, &n, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "no PU ids");
	unlink(p);
	ck_assert_int_eq(topomatch_read_id_list("/nonexistent/x", 10, 0, 0, &ids, &n, err),
			 TOPOMATCH_EIO);
	ck_assert_contains(err, "/nonexistent/x");
}
END_TEST

/* A random balanced tree: 1-3 levels of arity 2-5, often a few hundred PUs. */
static topomatch_topology_t *random_tree(topomatch_rng_t *rng)
{
	int nl = 1 + (int)topomatch_rng_below(rng, 3), arity[3];
	double cost[3];
	for (int k = 0; k < nl; k++) {
		arity[k] = 2 + (int)topomatch_rng_below(rng, 4);
		cost[k] = (double)(1 + topomatch_rng_below(rng, 100));
	}
	topomatch_topology_t *t;
	ck_assert_int_eq(topomatch_topology_tree(nl, arity, cost, &t, NULL), TOPOMATCH_OK);
	return t;
}

static topomatch_topology_t *random_topology(topomatch_rng_t *rng)
{
	static const char *const grids[] = { "torus2D 4 5", "mesh3D 3 3 2", "hcub 4",
					     "torus3D 2 3 4" };
	if (topomatch_rng_below(rng, 3))
		return random_tree(rng);
	return tm_topo(grids[topomatch_rng_below(rng, 4)]);
}

/* Up to m x f tasks communicating at random. */
static topomatch_affinity_t *random_pattern(topomatch_rng_t *rng, int64_t cap)
{
	int64_t n = 1 + (int64_t)topomatch_rng_below(rng, (uint64_t)cap);
	topomatch_affinity_t *a;
	int64_t degree = n > 4 ? 3 : n - 1;
	ck_assert_int_eq(topomatch_gen_random(n, degree, 50, topomatch_rng_next(rng), &a, NULL),
			 TOPOMATCH_OK);
	return a;
}

static bool applicable(const char *mapper, const topomatch_topology_t *t, bool constrained)
{
	bool tree = topomatch_topology_kind(t) == TOPOMATCH_TOPO_TREE;
	if (!strcmp(mapper, "treematch"))
		return tree && !constrained;
	if (!strcmp(mapper, "topomatch-const"))
		return tree;
	if (!strcmp(mapper, "analytical"))
		return tm_analytical_fits(t) && !constrained;
	return true;
}

/*
 * Every mapper, over random topologies, constraint sets, oversubscription
 * factors and patterns: a valid assignment (allowed PUs, at most f tasks
 * per PU) and the same result for the same seed.
 */
START_TEST(property_valid_and_deterministic)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 20261122);
	char err[TOPOMATCH_ERRLEN];
	int runs = 0;
	for (int iter = 0; iter < 60; iter++) {
		topomatch_topology_t *t = random_topology(&rng);
		int64_t npu = topomatch_topology_npu(t);
		int64_t *allowed = malloc((size_t)npu * sizeof(*allowed));
		bool constrained = topomatch_rng_below(&rng, 2);
		int64_t m = constrained ? tm_allowed_each(&rng, npu, allowed) : npu;
		int f = 1 + (int)topomatch_rng_below(&rng, 3);
		topomatch_affinity_t *a = random_pattern(&rng, m * f);
		int64_t n = topomatch_affinity_ntasks(a);
		int64_t *p1 = malloc((size_t)n * sizeof(*p1)), *p2 = malloc((size_t)n * sizeof(*p2));
		for (const char *const *name = topomatch_mapper_names(); *name; name++) {
			if (!applicable(*name, t, constrained))
				continue;
			topomatch_map_opts_t o;
			topomatch_map_opts_init(&o);
			o.mapper = *name;
			o.oversub = f;
			o.seed = iter;
			o.allowed = constrained ? allowed : NULL;
			o.nallowed = constrained ? m : 0;
			ck_assert_msg(topomatch_map(a, t, &o, p1, NULL, err) == TOPOMATCH_OK,
				      "iter %d %s: %s", iter, *name, err);
			ck_assert_msg(topomatch_mapping_check(t, n, p1, o.allowed, o.nallowed, f,
							      err) == TOPOMATCH_OK,
				      "iter %d %s: %s", iter, *name, err);
			ck_assert_int_eq(topomatch_map(a, t, &o, p2, NULL, err), TOPOMATCH_OK);
			ck_assert_msg(!memcmp(p1, p2, (size_t)n * sizeof(*p1)),
				      "iter %d %s: not deterministic", iter, *name);
			runs++;
		}
		free(p1);
		free(p2);
		free(allowed);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
	ck_assert_int_ge(runs, 250);
}
END_TEST

/*
 * TreeMatch §5.1 / Fig. 1: pairs talk most, then pairs of pairs, ...;
 * with shuffled ranks, auto must find the optimum, which is the natural
 * placement of the unshuffled pattern.
 */
START_TEST(hierarchical_shuffled_is_optimal)
{
	static const struct {
		const char *tree;
		int nl, arity[4];
	} cases[] = {
		{ "tleaf 3 2 100 2 10 2 1", 3, { 2, 2, 2 } },
		{ "tleaf 3 4 100 4 10 4 1", 3, { 4, 4, 4 } },
		{ "tleaf 4 2 1000 4 100 2 10 8 1", 4, { 8, 2, 4, 2 } },
	};
	char err[TOPOMATCH_ERRLEN];
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		topomatch_topology_t *t = tm_topo(cases[k].tree);
		topomatch_affinity_t *h, *s;
		ck_assert_int_eq(topomatch_gen_hierarchical(cases[k].nl, cases[k].arity, 1000, 10,
							    0.1, 3, &h, err), TOPOMATCH_OK);
		ck_assert_int_eq(topomatch_affinity_shuffle(h, 11, &s, err), TOPOMATCH_OK);
		int64_t n = topomatch_affinity_ntasks(h), *pu = malloc((size_t)n * sizeof(*pu));
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.mapper = "round-robin";
		topomatch_metrics_t best, got, shuffled_rr;
		ck_assert_int_eq(topomatch_map(h, t, &o, pu, NULL, err), TOPOMATCH_OK);
		ck_assert_int_eq(topomatch_metrics_compute(h, t, pu, &best, err), TOPOMATCH_OK);
		ck_assert_int_eq(topomatch_metrics_compute(s, t, pu, &shuffled_rr, err), 0);
		o.mapper = NULL;
		topomatch_map_result_t r;
		ck_assert_int_eq(topomatch_map(s, t, &o, pu, &r, err), TOPOMATCH_OK);
		ck_assert_int_eq(topomatch_metrics_compute(s, t, pu, &got, err), TOPOMATCH_OK);
		ck_assert_msg(got.hop_bytes <= best.hop_bytes * (1 + 1e-12),
			      "%s: auto (%s) %.17g, optimum %.17g", cases[k].tree, r.mapper,
			      got.hop_bytes, best.hop_bytes);
		/* the shuffle must have made the natural placement worse */
		ck_assert_double_gt(shuffled_rr.hop_bytes, best.hop_bytes);
		ck_assert_str_eq(r.mapper, "treematch");
		free(pu);
		topomatch_affinity_destroy(h);
		topomatch_affinity_destroy(s);
		topomatch_topology_destroy(t);
	}
}
END_TEST

static double hop_bytes_with(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			     topomatch_map_opts_t *o, topomatch_map_result_t *r)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu));
	topomatch_metrics_t m;
	ck_assert_msg(topomatch_map(a, t, o, pu, r, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(topomatch_metrics_compute(a, t, pu, &m, err) == TOPOMATCH_OK, "%s", err);
	free(pu);
	return m.hop_bytes;
}

/*
 * --refine after a named mapper: never worse than the mapper alone; a
 * random placement of a shuffled hierarchical pattern gets strictly
 * better; constraints still hold; the same result twice.
 */
START_TEST(refine_after_named_mappers)
{
	topomatch_topology_t *t = tm_topo("tleaf 3 4 100 4 10 4 1");
	topomatch_affinity_t *h, *a;
	char err[TOPOMATCH_ERRLEN];
	const int arity[3] = { 4, 4, 4 };
	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 1000, 10, 0.1, 1, &h, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(h, 7, &a, err), 0);
	static const char *const names[] = { "random", "eagermap", "greedymap", "scotch",
					      "treematch" };
	topomatch_map_result_t r;
	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.mapper = names[k];
		double plain = hop_bytes_with(a, t, &o, &r);
		o.refine = 1;
		double refined = hop_bytes_with(a, t, &o, &r);
		ck_assert_msg(refined <= plain, "%s: refined %g > %g", names[k], refined, plain);
		ck_assert_double_eq(refined, hop_bytes_with(a, t, &o, &r));
		if (!strcmp(names[k], "random"))
			ck_assert_msg(refined < 0.75 * plain, "random: refined %g, plain %g",
				      refined, plain);
	}
	/* constraints: the PUs of the second and fourth 16-PU subtrees only */
	int64_t allowed[32], pu[64];
	for (int i = 0; i < 16; i++) {
		allowed[i] = 16 + i;
		allowed[16 + i] = 48 + i;
	}
	topomatch_affinity_t *h32, *a32;
	const int arity2[2] = { 4, 8 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, arity2, 1000, 10, 0.1, 1, &h32, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(h32, 3, &a32, err), 0);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.mapper = "random";
	o.refine = 1;
	o.allowed = allowed;
	o.nallowed = 32;
	ck_assert_msg(topomatch_map(a32, t, &o, pu, &r, err) == TOPOMATCH_OK, "%s", err);
	for (int i = 0; i < 32; i++)
		ck_assert_msg((pu[i] >= 16 && pu[i] < 32) || (pu[i] >= 48 && pu[i] < 64),
			      "task %d on PU %lld", i, (long long)pu[i]);
	topomatch_affinity_destroy(h32);
	topomatch_affinity_destroy(a32);
	topomatch_affinity_destroy(h);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * portfolio: never worse than any of its candidates alone (the natural
 * placement, auto, eagermap and greedymap refined), the winner named, the
 * same mapping on 1 and 3 threads, constraints kept.
 */
START_TEST(portfolio_best_of_its_candidates)
{
	static const char *const topos[] = { "tleaf 3 4 100 4 10 4 1", "torus3D 4 4 4",
					     "mesh2D 8 8" };
	char err[TOPOMATCH_ERRLEN];
	for (size_t t = 0; t < sizeof(topos) / sizeof(*topos); t++) {
		topomatch_topology_t *tp = tm_topo(topos[t]);
		topomatch_affinity_t *s3, *a;
		const int dims[3] = { 4, 4, 4 };
		const double w[3] = { 1000, 500, 100 };
		ck_assert_int_eq(topomatch_gen_stencil(3, dims, 7, 1, w, &s3, err), 0);
		ck_assert_int_eq(topomatch_affinity_shuffle(s3, 11, &a, err), 0);
		topomatch_map_result_t r;
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.mapper = "portfolio";
		double best = hop_bytes_with(a, tp, &o, &r);
		ck_assert_msg(!strncmp(r.mapper, "portfolio:", 10), "%s", r.mapper);
		int64_t n = topomatch_affinity_ntasks(a), pu1[64], pu3[64];
		ck_assert_int_eq(topomatch_map(a, tp, &o, pu1, &r, err), TOPOMATCH_OK);
		o.threads = 3;
		ck_assert_int_eq(topomatch_map(a, tp, &o, pu3, &r, err), TOPOMATCH_OK);
		ck_assert_mem_eq(pu1, pu3, (size_t)n * sizeof(*pu1));
		static const char *const alone[] = { "round-robin", "auto", "eagermap",
						     "greedymap" };
		for (size_t k = 0; k < sizeof(alone) / sizeof(*alone); k++) {
			topomatch_map_opts_init(&o);
			o.mapper = alone[k];
			o.refine = strcmp(alone[k], "auto") && strcmp(alone[k], "round-robin");
			double hb = hop_bytes_with(a, tp, &o, &r);
			ck_assert_msg(best <= hb, "%s: portfolio %g > %s %g", topos[t], best,
				      alone[k], hb);
		}
		topomatch_affinity_destroy(s3);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(tp);
	}
	/* constraints: half the PUs of a tree */
	topomatch_topology_t *tp = tm_topo("tleaf 2 8 10 8 1");
	topomatch_affinity_t *h;
	const int arity[2] = { 4, 8 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, arity, 1000, 10, 0.1, 1, &h, err), 0);
	int64_t allowed[32], pu[32];
	for (int i = 0; i < 32; i++)
		allowed[i] = 2 * i;
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.mapper = "portfolio";
	o.allowed = allowed;
	o.nallowed = 32;
	o.threads = 2;
	topomatch_map_result_t r;
	ck_assert_msg(topomatch_map(h, tp, &o, pu, &r, err) == TOPOMATCH_OK, "%s", err);
	for (int i = 0; i < 32; i++)
		ck_assert_msg(pu[i] % 2 == 0, "task %d on PU %lld", i, (long long)pu[i]);
	topomatch_affinity_destroy(h);
	topomatch_topology_destroy(tp);
}
END_TEST

/*
 * Scotch keeps state outside its contexts: two threads running Scotch at
 * once (portfolio's auto and greedymap candidates both partition with
 * it) gave a different winner from run to run at this size before
 * libtopomatch let one thread at a time into Scotch.
 */
START_TEST(portfolio_same_map_whatever_the_threads)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *tp = tm_topo("tleaf 3 128 100 2 10 16 1");
	topomatch_affinity_t *s3, *a;
	const int dims[3] = { 16, 16, 16 };
	const double w[3] = { 1000, 500, 100 };
	ck_assert_int_eq(topomatch_gen_stencil(3, dims, 7, 0, w, &s3, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(s3, 1, &a, err), 0);
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t *pu1 = malloc((size_t)n * sizeof(*pu1)), *pu2 = malloc((size_t)n * sizeof(*pu2));
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	topomatch_map_opts_init(&o);
	o.mapper = "portfolio";
	ck_assert_msg(topomatch_map(a, tp, &o, pu1, &r, err) == TOPOMATCH_OK, "%s", err);
	char first[sizeof(r.mapper)];
	strcpy(first, r.mapper);
	o.threads = 2;
	for (int k = 0; k < 3; k++) {
		ck_assert_msg(topomatch_map(a, tp, &o, pu2, &r, err) == TOPOMATCH_OK, "%s", err);
		ck_assert_str_eq(r.mapper, first);
		ck_assert_mem_eq(pu1, pu2, (size_t)n * sizeof(*pu1));
	}
	free(pu1);
	free(pu2);
	topomatch_affinity_destroy(s3);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(tp);
}
END_TEST

/*
 * A stencil whose faces weigh 1000/500/100 on a torus: the default sparse
 * factor keeps only the x faces, and Scotch then scatters y and z
 * neighbours.  auto must do as well as Scotch on the whole graph; with
 * GreedyMap among its grid candidates it finds the unshuffled stencil's
 * natural placement (measured: exactly).
 */
START_TEST(auto_on_torus_keeps_every_direction)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t = tm_topo("torus3D 8 8 8");
	topomatch_affinity_t *st, *sh;
	const int dims[3] = { 8, 8, 8 };
	const double w[3] = { 1000, 500, 100 };
	ck_assert_int_eq(topomatch_gen_stencil(3, dims, 7, 0, w, &st, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_shuffle(st, 1, &sh, err), TOPOMATCH_OK);
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	topomatch_map_opts_init(&o);
	o.mapper = "round-robin";
	double natural = hop_bytes_with(st, t, &o, NULL);
	o.mapper = "scotch";
	double sparse = hop_bytes_with(sh, t, &o, NULL);
	o.sparse_factor = 0;
	double whole = hop_bytes_with(sh, t, &o, NULL);
	topomatch_map_opts_init(&o);
	double got = hop_bytes_with(sh, t, &o, &r);
	ck_assert_str_eq(r.mapper, "greedymap");
	ck_assert_msg(got <= whole, "auto %.17g, scotch on the whole graph %.17g", got, whole);
	ck_assert_msg(got < 0.5 * sparse, "auto %.17g, scotch at sparse factor 0.5 %.17g", got,
		      sparse);
	ck_assert_msg(got <= natural, "auto %.17g, natural %.17g", got, natural);
	topomatch_affinity_destroy(st);
	topomatch_affinity_destroy(sh);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * auto on a tree of up to 4,096 tasks runs TreeMatch on GreedyMap's BFS
 * renumbering (mapper.c): on a shuffled 16^3 stencil (faces 1000/500/100) on
 * bench/'s tree-4k fat tree it reaches 34,816,000 hop-bytes, the optimum
 * for blocks of 8x4x1 tasks per node (computed by hand: 4 x (W + socket
 * cut + node cut) = 4 x (6.144 M + 1.536 M + 1.024 M)), which TreeMatch
 * on the shuffled numbering misses (measured 35,358,800).
 */
START_TEST(auto_renumbers_for_treematch)
{
	const double w[3] = { 1000, 500, 100 };
	topomatch_topology_t *t = tm_topo("tleaf 3 128 100 2 10 16 1");
	topomatch_affinity_t *st = tm_stencil3(16, 16, 16, w), *sh = tm_shuffled(st, 1);
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	topomatch_map_opts_init(&o);
	o.mapper = "treematch";
	double tm = hop_bytes_with(sh, t, &o, NULL);
	topomatch_map_opts_init(&o);
	double got = hop_bytes_with(sh, t, &o, &r);
	ck_assert_str_eq(r.mapper, "treematch");
	ck_assert_double_eq(got, 34816000);
	ck_assert_msg(tm > got, "treematch alone %.17g", tm);
	topomatch_affinity_destroy(sh);
	topomatch_affinity_destroy(st);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Time budgets (issue 19, point 5).  tm_run_abandonable: a step that ends
 * in time gives its status and stays the caller's; one still running at
 * the deadline is left to its thread, which drops it when it ends.
 */
static atomic_int dropped;

static int sleeper(void *job)
{
	usleep((useconds_t)*(int *)job);
	return 7;
}

static void drop_job(void *job)
{
	free(job);
	atomic_fetch_add(&dropped, 1);
}

START_TEST(abandonable_steps)
{
	int *j = malloc(sizeof(*j));
	*j = 1000; /* 1 ms: ends in time */
	ck_assert_int_eq(tm_run_abandonable(tm_now() + 60, sleeper, drop_job, j), 7);
	ck_assert_int_eq(atomic_load(&dropped), 0);
	ck_assert_int_eq(tm_run_abandonable(0, sleeper, drop_job, j), 7); /* no budget */
	free(j);
	j = malloc(sizeof(*j));
	*j = 2000000; /* 2 s: abandoned at 20 ms, returns while it still runs */
	ck_assert_int_eq(tm_run_abandonable(tm_now() + 0.02, sleeper, drop_job, j),
			 TOPOMATCH_EBUDGET);
	ck_assert_int_eq(atomic_load(&dropped), 0);
	for (int k = 0; k < 600 && atomic_load(&dropped) == 0; k++)
		usleep(10000);
	ck_assert_int_eq(atomic_load(&dropped), 1); /* the thread freed it */
	j = malloc(sizeof(*j));
	*j = 0; /* a deadline already past: not run, dropped at once */
	ck_assert_int_eq(tm_run_abandonable(tm_now() - 1, sleeper, drop_job, j),
			 TOPOMATCH_EBUDGET);
	ck_assert_int_eq(atomic_load(&dropped), 2);
}
END_TEST

/*
 * topomatch_map cut short: the library's Scotch mapper on a shuffled
 * 32x32x16 stencil takes about a second of Scotch calls, which cannot
 * look at the clock; with a 50 ms budget the call returns long before
 * (a generous bound: timings belong to bench/budget.sh) with a valid
 * mapping no worse than the natural placement, marked fell_back.  auto
 * likewise on the tree, where TreeMatch's Scotch partition is cut.
 */
START_TEST(budget_cuts_scotch_short)
{
	const double w[3] = { 1000, 500, 100 };
	topomatch_affinity_t *st = tm_stencil3(32, 32, 16, w), *sh = tm_shuffled(st, 1);
	const char *topo[] = { "torus3D 32 32 16", "tleaf 3 512 100 2 10 16 1" };
	const char *mapper[] = { "scotch", "auto" };
	int64_t n = topomatch_affinity_ntasks(sh), *pu = malloc((size_t)n * sizeof(*pu));
	char err[TOPOMATCH_ERRLEN];
	for (int k = 0; k < 2; k++) {
		topomatch_topology_t *t = tm_topo(topo[k]);
		topomatch_map_opts_t o;
		topomatch_map_result_t r;
		topomatch_map_opts_init(&o);
		o.mapper = mapper[k];
		o.time_budget_s = 0.05;
		double t0 = tm_cpu_now();
		ck_assert_int_eq(topomatch_map(sh, t, &o, pu, &r, err), TOPOMATCH_OK);
		tm_assert_within(t0, 0.6, mapper[k]); /* a budget of 0.05 s */
		ck_assert_int_eq(r.fell_back, 1);
		ck_assert_int_eq(topomatch_mapping_check(t, n, pu, NULL, 0, 1, err), TOPOMATCH_OK);
		double hb, hb_rr;
		topomatch_map_opts_init(&o);
		o.mapper = "round-robin";
		hb_rr = hop_bytes_with(sh, t, &o, NULL);
		ck_assert_int_eq(topomatch_metrics_hop_bytes(sh, t, pu, &hb, err), TOPOMATCH_OK);
		ck_assert_msg(hb <= hb_rr, "%s: %.17g over natural %.17g", mapper[k], hb, hb_rr);
		topomatch_topology_destroy(t);
	}
	free(pu);
	topomatch_affinity_destroy(sh);
	topomatch_affinity_destroy(st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mapping");
	TCase *tc = tcase_create("mappers");
	tcase_add_test(tc, round_robin_is_identity);
	tcase_add_test(tc, round_robin_follows_constraints_and_wraps);
	tcase_add_test(tc, random_is_valid_and_seeded);
	tcase_add_test(tc, random_oversubscribed_fills_every_slot);
	tcase_add_test(tc, auto_never_worse_than_natural);
	tcase_add_test(tc, option_errors);
	tcase_add_test(tc, overflowing_weights);
	tcase_add_test(tc, id_list_reader);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("properties");
	tcase_set_timeout(tp, 120);
	tcase_add_test(tp, property_valid_and_deterministic);
	tcase_add_test(tp, hierarchical_shuffled_is_optimal);
	tcase_add_test(tp, auto_on_torus_keeps_every_direction);
	tcase_add_test(tp, auto_renumbers_for_treematch);
	tcase_add_test(tp, refine_after_named_mappers);
	tcase_add_test(tp, portfolio_best_of_its_candidates);
	tcase_add_test(tp, portfolio_same_map_whatever_the_threads);
	tcase_add_test(tp, abandonable_steps);
	tcase_add_test(tp, budget_cuts_scotch_short);
	suite_add_tcase(s, tp);
	return tm_run_suite(s);
}

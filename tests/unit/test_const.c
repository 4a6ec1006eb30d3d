/*
 * test_const.c - unit tests of TOPOMATCHCONST (TopoMatch Alg. 3, §4.4)
 * with constraints, over- and undersubscription (§4.5): where groups of
 * tasks land on a small tree with holes, the optimum on a hierarchical
 * pattern, and a seeded property test over random trees, constraint sets,
 * oversubscription factors and patterns.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "map/mapper_internal.h"

#include <math.h>

/* Cliques of `size` tasks (weight `heavy` each way) over n tasks, and a
 * ring of weight `light` from the last task of each clique to the next
 * clique (no ring when light == 0). */
static topomatch_affinity_t *cliques(int64_t n, int size, double heavy, double light)
{
	int64_t src[1024], dst[1024];
	double w[1024];
	int64_t m = 0;
	for (int64_t g = 0; g < n / size; g++) {
		for (int i = 0; i < size; i++)
			for (int j = 0; j < size; j++)
				if (i != j) {
					src[m] = g * size + i;
					dst[m] = g * size + j;
					w[m++] = heavy;
				}
		if (light > 0 && n / size > 1) {
			src[m] = g * size + size - 1;
			dst[m] = (g + 1) % (n / size) * size;
			w[m++] = light;
		}
	}
	ck_assert_int_le(m, 1024);
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(n, m, src, dst, w, NULL, &a, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	return a;
}

static tm_map_ctx_t ctx(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			const int64_t *allowed, int64_t m, int f)
{
	return (tm_map_ctx_t){ .a = a,
			       .t = t,
			       .ntasks = topomatch_affinity_ntasks(a),
			       .allowed = allowed,
			       .m = m,
			       .constrained = 1,
			       .f = f,
			       .seed = 1,
			       .tau = TOPOMATCH_DEFAULT_TAU,
			       .sparse_factor = TOPOMATCH_DEFAULT_SPARSE_FACTOR };
}

/* Map, check validity (allowed PUs, at most f per PU) and determinism. */
static void map_ok(const tm_map_ctx_t *c, int64_t *pu)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t n = c->ntasks;
	int64_t *again = malloc((size_t)(n ? n : 1) * sizeof(*again));
	ck_assert_ptr_nonnull(again);
	ck_assert_msg(tm_map_topomatch_const(c, pu, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(topomatch_mapping_check(c->t, n, pu, c->allowed, c->m, c->f, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	ck_assert_int_eq(tm_map_topomatch_const(c, again, err), TOPOMATCH_OK);
	for (int64_t i = 0; i < n; i++)
		ck_assert_msg(pu[i] == again[i], "task %lld: %lld then %lld", (long long)i,
			      (long long)pu[i], (long long)again[i]);
	free(again);
}

/* How many tasks of [lo, hi) sit on node `node` (PUs node*w .. node*w+w-1). */
static int on_node(const int64_t *pu, int lo, int hi, int w, int node)
{
	int c = 0;
	for (int i = lo; i < hi; i++)
		c += pu[i] / w == node;
	return c;
}

START_TEST(groups_whole_when_possible)
{
	/* nodes 0 and 2 fully allowed: each clique of 4 takes one whole node */
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	topomatch_affinity_t *a = cliques(8, 4, 100, 1);
	const int64_t allowed[] = { 0, 1, 2, 3, 8, 9, 10, 11 };
	tm_map_ctx_t c = ctx(a, t, allowed, 8, 1);
	int64_t pu[8];
	map_ok(&c, pu);
	for (int g = 0; g < 2; g++)
		ck_assert_int_eq(on_node(pu, 4 * g, 4 * g + 4, 4, (int)(pu[4 * g] / 4)), 4);
	ck_assert_int_ne(pu[0] / 4, pu[4] / 4);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(groups_split_minimally)
{
	/*
	 * allowed = {1,2,3 | 5,6 | 8,9,10}: nodes hold 3, 2 and 3 tasks, so no
	 * clique of 4 fits in a node.  The least cut splits each clique 3 + 1
	 * (3 heavy edges) rather than 2 + 2 (4): one clique fills node 0, the
	 * other node 2, and their fourth tasks share node 1.
	 */
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	topomatch_affinity_t *a = cliques(8, 4, 100, 1);
	const int64_t allowed[] = { 1, 2, 3, 5, 6, 8, 9, 10 };
	tm_map_ctx_t c = ctx(a, t, allowed, 8, 1);
	int64_t pu[8];
	map_ok(&c, pu);
	for (int g = 0; g < 2; g++) {
		int n0 = on_node(pu, 4 * g, 4 * g + 4, 4, 0);
		int n1 = on_node(pu, 4 * g, 4 * g + 4, 4, 1);
		int n2 = on_node(pu, 4 * g, 4 * g + 4, 4, 2);
		ck_assert_int_eq(n1, 1);
		ck_assert_msg((n0 == 3 && n2 == 0) || (n0 == 0 && n2 == 3), "group %d: %d %d %d",
			      g, n0, n1, n2);
	}
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(oversubscribed_pairs_share_pu)
{
	/*
	 * f = 2 on half the PUs (8 of 16): 16 tasks in 8 heavy pairs linked in
	 * a light ring.  Each pair must share a PU (the extra leaf level of
	 * §4.5), and the ring must not spread pairs over more nodes than needed.
	 */
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	topomatch_affinity_t *a = cliques(16, 2, 100, 1);
	const int64_t allowed[] = { 0, 2, 5, 7, 8, 9, 13, 15 };
	tm_map_ctx_t c = ctx(a, t, allowed, 8, 2);
	int64_t pu[16];
	map_ok(&c, pu);
	for (int i = 0; i < 16; i += 2)
		ck_assert_int_eq(pu[i], pu[i + 1]);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(undersubscribed_one_node)
{
	/* 4 communicating tasks on 16 allowed PUs: 4 PUs of one node */
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1");
	topomatch_affinity_t *a = cliques(4, 4, 10, 0);
	int64_t allowed[16], pu[4];
	for (int p = 0; p < 16; p++)
		allowed[p] = 15 - p; /* any order */
	tm_map_ctx_t c = ctx(a, t, allowed, 16, 1);
	map_ok(&c, pu);
	ck_assert_int_eq(on_node(pu, 0, 4, 4, (int)(pu[0] / 4)), 4);
	/* fragmented: nodes offer 2, 4 and 1 PUs: the 4-PU node */
	const int64_t frag[] = { 0, 1, 4, 5, 6, 7, 8 };
	c = ctx(a, t, frag, 7, 1);
	map_ok(&c, pu);
	ck_assert_int_eq(on_node(pu, 0, 4, 4, 1), 4);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(undersubscribed_padding)
{
	/*
	 * Two independent cliques of 4 on nodes offering 6, 4 and 4 PUs.
	 * Packing the biggest nodes first would give 6 + 2 and cut a clique;
	 * the dummy padding lets the partition keep both whole (cut 0).
	 */
	topomatch_topology_t *t = tm_topo("tleaf 2 3 10 6 1");
	topomatch_affinity_t *a = cliques(8, 4, 10, 0);
	const int64_t allowed[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15 };
	tm_map_ctx_t c = ctx(a, t, allowed, 14, 1);
	int64_t pu[8];
	map_ok(&c, pu);
	for (int g = 0; g < 2; g++)
		ck_assert_int_eq(on_node(pu, 4 * g, 4 * g + 4, 6, (int)(pu[4 * g] / 6)), 4);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Map a shuffled hierarchical pattern whose groups match the tree; the
 * hop-bytes must equal round-robin's on the unshuffled pattern. */
static void check_hierarchical(const char *tree, const int *arity, uint64_t seed)
{
	topomatch_topology_t *t = tm_topo(tree);
	topomatch_affinity_t *h, *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 1000, 10, 0.2, seed, &h, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_shuffle(h, seed + 11, &a, err), TOPOMATCH_OK);
	int64_t allowed[64], rr[64], pu[64];
	for (int p = 0; p < 64; p++)
		allowed[p] = rr[p] = p;
	double best = tm_hop_bytes(h, t, rr);
	tm_map_ctx_t c = ctx(a, t, allowed, 64, 1);
	map_ok(&c, pu);
	double got = tm_hop_bytes(a, t, pu);
	ck_assert_msg(fabs(got - best) <= 1e-9 * best, "%s seed %llu: hop-bytes %.17g, best %.17g",
		      tree, (unsigned long long)seed, got, best);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(h);
	topomatch_topology_destroy(t);
}

START_TEST(hierarchical_optimal)
{
	/*
	 * Hierarchical arities are listed from the innermost group, tree
	 * arities from the root: {4, 4, 4} matches "tleaf 3 4 100 4 10 4 1" and
	 * {8, 4, 2} matches "tleaf 3 2 100 4 10 8 1".  Task i on PU i is then
	 * optimal; after a shuffle, TOPOMATCHCONST must find it again.
	 */
	for (uint64_t seed = 1; seed <= 3; seed++) {
		check_hierarchical("tleaf 3 4 100 4 10 4 1", (const int[]){ 4, 4, 4 }, seed);
		check_hierarchical("tleaf 3 2 100 4 10 8 1", (const int[]){ 8, 4, 2 }, seed);
	}
}
END_TEST

START_TEST(errors)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 4 10 4 1"), *g = tm_topo("torus2D 4 4");
	topomatch_affinity_t *a = cliques(4, 4, 10, 0);
	int64_t allowed[] = { 0, 1, 2, 3 }, pu[4];
	char err[TOPOMATCH_ERRLEN] = "";
	tm_map_ctx_t c = ctx(a, g, allowed, 4, 1);
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "needs a tree topology");
	c = ctx(a, t, allowed, 4, 1);
	allowed[2] = 16;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 16 is not a PU of the tree");
	allowed[2] = 1;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 1 is listed twice");
	allowed[2] = 2;
	c.m = 3;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "4 tasks do not fit on 3 PUs");
	/* a deadline already passed */
	c = ctx(a, t, allowed, 4, 1);
	c.deadline = 1e-9;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "time budget");
	/* a tree too large for sorting the PUs by bitmap: qsort, same checks */
	topomatch_topology_t *big = tm_topo("tleaf 3 64 100 32 10 4 1");
	int64_t far[] = { 8000, 3, 4100, 7 };
	c = ctx(a, big, far, 4, 1);
	ck_assert_msg(tm_map_topomatch_const(&c, pu, err) == TOPOMATCH_OK, "%s", err);
	for (int i = 0; i < 4; i++)
		ck_assert(pu[i] == 8000 || pu[i] == 3 || pu[i] == 4100 || pu[i] == 7);
	far[1] = 8192;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 8192 is not a PU of the tree [0, 8192)");
	far[1] = 7;
	ck_assert_int_eq(tm_map_topomatch_const(&c, pu, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "allowed PU 7 is listed twice");
	topomatch_topology_destroy(big);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(g);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------------ property test */

static topomatch_topology_t *random_tree(topomatch_rng_t *r)
{
	int nl = 1 + (int)topomatch_rng_below(r, 4), arity[4];
	double cost[4];
	for (int k = 0; k < nl; k++) {
		arity[k] = 1 + (int)topomatch_rng_below(r, 5);
		cost[k] = (double)(1 + topomatch_rng_below(r, 100));
	}
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_tree(nl, arity, cost, &t, err) == TOPOMATCH_OK, "%s",
		      err);
	return t;
}

static topomatch_affinity_t *random_pattern(topomatch_rng_t *r, int64_t n, uint64_t seed)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int kind = (int)topomatch_rng_below(r, 4);
	int rc;
	if (kind == 0 || n < 2) {
		rc = topomatch_affinity_create(n, 0, NULL, NULL, NULL, NULL, &a, err);
	} else if (kind == 2 && n <= 200) {
		rc = topomatch_gen_alltoall(n, 3, 0, &a, err);
	} else if (kind <= 2) {
		uint64_t maxdeg = (uint64_t)(n - 1 < 4 ? n - 1 : 4);
		int64_t deg = 1 + (int64_t)topomatch_rng_below(r, maxdeg);
		rc = topomatch_gen_random(n, deg, 1000, seed, &a, err);
	} else {
		/* a 2D stencil on n x 1, shuffled */
		topomatch_affinity_t *s;
		rc = topomatch_gen_stencil(2, (const int[]){ (int)n, 1 }, 5, 1, NULL, &s, err);
		if (rc == TOPOMATCH_OK) {
			rc = topomatch_affinity_shuffle(s, seed, &a, err);
			topomatch_affinity_destroy(s);
		}
	}
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	return a;
}

/* Mapped with the memo m twice: both times pu[] (a mapping without it). */
static void same_with_memo(tm_map_ctx_t c, topomatch_memo_t *m, const int64_t *pu)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t *again = malloc((size_t)(c.ntasks ? c.ntasks : 1) * sizeof(*again));
	ck_assert_ptr_nonnull(again);
	c.memo = m;
	for (int round = 0; round < 2; round++) {
		ck_assert_msg(tm_map_topomatch_const(&c, again, err) == TOPOMATCH_OK, "%s", err);
		for (int64_t i = 0; i < c.ntasks; i++)
			ck_assert_msg(pu[i] == again[i], "task %lld: %lld, with the memo %lld",
				      (long long)i, (long long)pu[i], (long long)again[i]);
	}
	free(again);
}

/* Random trees, constraints, oversubscription and patterns: valid,
 * deterministic mappings, the same with a memo shared by all trials. */
START_TEST(property_random)
{
	topomatch_rng_t r;
	topomatch_rng_seed(&r, 2026);
	int64_t allowed[1024], pu[4096];
	topomatch_memo_t *memo;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_memo_create((size_t)64 << 20, &memo, err), TOPOMATCH_OK);
	for (int trial = 0; trial < 200; trial++) {
		topomatch_topology_t *t = random_tree(&r);
		int64_t npu = topomatch_topology_npu(t);
		int64_t m = tm_allowed_count(&r, npu, allowed);
		int f = 1 + (int)topomatch_rng_below(&r, 3);
		int64_t n = 1 + (int64_t)topomatch_rng_below(&r, (uint64_t)(m * f));
		topomatch_affinity_t *a = random_pattern(&r, n, (uint64_t)trial);
		tm_map_ctx_t c = ctx(a, t, allowed, m, f);
		c.seed = (uint64_t)trial;
		map_ok(&c, pu);
		same_with_memo(c, memo, pu);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
	topomatch_memo_stats_t st;
	topomatch_memo_stats(memo, &st);
	ck_assert_uint_gt(st.hits, st.misses);
	topomatch_memo_destroy(memo);
}
END_TEST

/*
 * The regrouping's placement of parts (tm_const_place_parts): four parts
 * of 32 tasks on two switches of two nodes each (2 x 2 more hops across
 * the switches), parts 0-2 and 1-3 heavy, 0-1 light.  The parts start on
 * nodes 0, 1 (switch A) and 2, 3 (switch B): the swaps put the heavy
 * pairs together.
 */
static const int64_t place_d[16] = { 0, 4, 6, 6, 4, 0, 6, 6, 6, 6, 0, 4, 6, 6, 4, 0 };
static const double place_w[16] = { 0, 1, 10, 0, 1, 0, 0, 10, 10, 0, 0, 0, 0, 10, 0, 0 };

static bool same_switch(int64_t x, int64_t y)
{
	return x / 2 == y / 2;
}

START_TEST(place_parts_pairs)
{
	int64_t size[4] = { 32, 32, 32, 32 }, at[4] = { 0, 1, 2, 3 };
	tm_const_place_parts(4, size, place_w, place_d, at);
	ck_assert(same_switch(at[0], at[2]));
	ck_assert(same_switch(at[1], at[3]));
	ck_assert(!same_switch(at[0], at[1]));
	/* a permutation of the places */
	ck_assert_int_eq(at[0] + at[1] + at[2] + at[3], 6);
	ck_assert(at[0] != at[1] && at[0] != at[2] && at[0] != at[3] && at[1] != at[2] &&
		  at[1] != at[3] && at[2] != at[3]);
	/* a local optimum stays as it is */
	int64_t again[4] = { at[0], at[1], at[2], at[3] };
	tm_const_place_parts(4, size, place_w, place_d, again);
	for (int j = 0; j < 4; j++)
		ck_assert_int_eq(again[j], at[j]);
}
END_TEST

/* Only parts of equal size trade places (a part fills its node's share):
 * part 2 (a partial node's 20 tasks) stays, and part 0 joins it. */
START_TEST(place_parts_sizes)
{
	int64_t size[4] = { 32, 32, 20, 32 }, at[4] = { 0, 1, 2, 3 };
	tm_const_place_parts(4, size, place_w, place_d, at);
	ck_assert_int_eq(at[2], 2);
	ck_assert(same_switch(at[0], 2));
	ck_assert(same_switch(at[1], at[3]));
	/* all sizes distinct: nothing moves */
	int64_t distinct[4] = { 1, 2, 3, 4 }, fixed[4] = { 0, 1, 2, 3 };
	tm_const_place_parts(4, distinct, place_w, place_d, fixed);
	for (int j = 0; j < 4; j++)
		ck_assert_int_eq(fixed[j], j);
}
END_TEST

/*
 * TOPOMATCHCONST on a fragmented allocation: bench/tm_bench's frag3-10
 * (the same draw: 10 % of the 320 nodes of 32 PUs under 16 switches, seed
 * 310, a quarter of them with only their last PUs free, more nodes until
 * the 1,024 tasks fit) with its shuffled 16x8x8 stencil.  The mapping is
 * valid, the same for any thread count, and within the regrouped
 * candidate's hop-bytes, 7,525,600: the top-down one alone gives
 * 7,582,000 (and 7,793,600 with Scotch's partitions at balance 0.01).
 */
#define FRAG_STENCIL_HB 7525600.0

static int64_t frag_draw(int64_t *allowed)
{
	int64_t node[320], m = 0, want = 32, k;
	topomatch_rng_t r;
	topomatch_rng_seed(&r, 310);
	for (int i = 0; i < 320; i++)
		node[i] = i;
	for (k = 0; k < 320 && (k < want || m < 1024); k++) {
		int64_t j = k + (int64_t)topomatch_rng_below(&r, (uint64_t)(320 - k)), first = 0;
		int64_t x = node[k];
		node[k] = node[j];
		node[j] = x;
		if (k < want && topomatch_rng_below(&r, 4) == 0)
			first = 1 + (int64_t)topomatch_rng_below(&r, 31);
		for (int64_t p = first; p < 32; p++)
			allowed[m++] = node[k] * 32 + p;
	}
	return m;
}

START_TEST(fragmented_stencil)
{
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_topology_t *t;
	topomatch_affinity_t *s, *a;
	ck_assert_int_eq(topomatch_topology_parse("tleaf 3 16 1000 20 100 32 1", NULL, &t, err),
			 0);
	ck_assert_int_eq(topomatch_gen_stencil(3, (const int[]){ 16, 8, 8 }, 7, 0,
					       (const double[]){ 1000, 500, 100 }, &s, err),
			 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(s, 1, &a, err), 0);
	static int64_t allowed[10240], pu[1024], pu2[1024];
	int64_t m = frag_draw(allowed);
	ck_assert_int_eq(m, 1033);
	qsort(allowed, (size_t)m, sizeof(*allowed), tm_cmp_i64);
	tm_map_ctx_t c = ctx(a, t, allowed, m, 1);
	map_ok(&c, pu);
	c.threads = 2;
	map_ok(&c, pu2);
	for (int i = 0; i < 1024; i++)
		ck_assert_int_eq(pu[i], pu2[i]);
	topomatch_memo_t *memo;
	ck_assert_int_eq(topomatch_memo_create((size_t)64 << 20, &memo, err), TOPOMATCH_OK);
	same_with_memo(c, memo, pu);
	topomatch_memo_destroy(memo);
	double hb;
	ck_assert_int_eq(topomatch_metrics_hop_bytes(a, t, pu, &hb, err), 0);
	ck_assert_msg(hb <= FRAG_STENCIL_HB, "hop-bytes %.0f above %.0f", hb, FRAG_STENCIL_HB);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(s);
	topomatch_topology_destroy(t);
}
END_TEST

static Suite *const_suite(void)
{
	Suite *s = suite_create("topomatch-const");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, groups_whole_when_possible);
	tcase_add_test(tc, groups_split_minimally);
	tcase_add_test(tc, oversubscribed_pairs_share_pu);
	tcase_add_test(tc, undersubscribed_one_node);
	tcase_add_test(tc, undersubscribed_padding);
	tcase_add_test(tc, hierarchical_optimal);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, property_random);
	tcase_add_test(tc, place_parts_pairs);
	tcase_add_test(tc, place_parts_sizes);
	tcase_add_test(tc, fragmented_stencil);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(const_suite());
}

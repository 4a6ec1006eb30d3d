/*
 * test_link_load.c - the link loads of running jobs and the contention
 * score (core/metrics/link_load.c), and the node choice that uses them
 * (topomatch_cluster_select_loaded, topology/cluster_contention.c), on
 * hand-computed cases.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "topomatch_cluster.h"

#include <math.h>

/* Every ordered pair of n tasks with weight 1 (all-to-all). */
static topomatch_affinity_t *alltoall(int64_t n)
{
	int64_t src[64], dst[64], k = 0;
	double w[64];
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < n; j++)
			if (i != j) {
				src[k] = i;
				dst[k] = j;
				w[k++] = 1;
			}
	ck_assert_msg(topomatch_affinity_create(n, k, src, dst, w, NULL, &a, err) == 0, "%s", err);
	return a;
}

/*
 * tleaf 3 2 1 2 1 4 1: 2 groups x 2 leaf switches x 4 PUs (one PU per
 * node): leaves L0 = 0-3, L1 = 4-7 (group 0), L2 = 8-11, L3 = 12-15.
 * Hops: 2 inside a leaf, 4 inside a group, 6 across.
 */
static const char tree16[] = "tleaf 3 2 1 2 1 4 1";

static topomatch_link_load_t *table(topomatch_topology_t *t, int64_t node_pus, int64_t max)
{
	topomatch_link_load_t *ll;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_link_load_create(t, node_pus, max, &ll, err) == 0, "%s", err);
	return ll;
}

/*
 * Job A (2 tasks, 1 each way) on PUs 0 and 4 crosses L0's and L1's
 * uplinks: 8 directed links at x = 1, u = 1, so L = its activity there.
 * Job B (4 tasks, all-to-all, 1 per message):
 *   X = {1, 2, 3, 5}: 6 messages inside L0 (2 hops), 6 between L0 and L1
 *       (4 hops): HB = 12 + 24 = 36; each crossing message meets 2 of A's
 *       links (leaf up, group down; its own node links are idle):
 *       CL = 6 x 2 x L = 12 with activity 1, 6 with 0.5;
 *   Y = {8, 9, 12, 13}: 4 messages inside leaves, 8 between L2 and L3:
 *       HB = 8 + 32 = 40, CL = 0.
 * So X is the cheapest by hop-bytes and shares A's loaded uplinks; Y wins
 * from weight 4 / 12 = 1/3 on (activity 1).
 */
START_TEST(score_loaded_uplink)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t = tm_topo(tree16);
	topomatch_link_load_t *ll = table(t, 1, 0);
	topomatch_affinity_t *a2 = alltoall(2), *b4 = alltoall(4);
	const int64_t pa[] = { 0, 4 }, x[] = { 1, 2, 3, 5 }, y[] = { 8, 9, 12, 13 };
	topomatch_link_score_t s;

	/* empty table: hop-bytes only */
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0);
	ck_assert(s.hop_bytes == 36 && s.contention == 0 && s.score == 36);

	ck_assert_msg(topomatch_link_load_add(ll, 7, a2, pa, 1, err) == 0, "%s", err);
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 1);
	ck_assert_int_eq(topomatch_link_load_entries(ll), 8);
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0);
	ck_assert_msg(s.hop_bytes == 36 && s.contention == 12 && s.score == 48, "%g %g %g",
		      s.hop_bytes, s.contention, s.score);
	ck_assert(topomatch_link_load_score(ll, b4, y, 1, &s, err) == 0);
	ck_assert(s.hop_bytes == 40 && s.contention == 0 && s.score == 40);
	/* 1 -> 5 hop by hop: its node link, L0 up, group 0 down to L1, 5's link */
	double met[8];
	ck_assert_int_eq(topomatch_link_load_route(ll, 1, 5, met, 8), 4);
	ck_assert(met[0] == 0 && met[1] == 1 && met[2] == 1 && met[3] == 0);
	ck_assert_int_eq(topomatch_link_load_route(ll, 1, 5, NULL, 0), 4);
	ck_assert_int_eq(topomatch_link_load_route(ll, 1, 16, met, 8), -1);
	ck_assert_int_eq(topomatch_link_load_route(NULL, 1, 5, met, 8), -1);
	/* weight 0: hop-bytes decide (X); 0.25: X (39 < 40); 1: Y (40 < 48) */
	ck_assert(topomatch_link_load_score(ll, b4, x, 0, &s, err) == 0 && s.score == 36);
	ck_assert(topomatch_link_load_score(ll, b4, x, 0.25, &s, err) == 0 && s.score == 39);

	/* a second job on the same links with activity 0.5: L = 1.5 there */
	ck_assert(topomatch_link_load_add(ll, 8, a2, pa, 0.5, err) == 0);
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0 && s.contention == 18);
	/* A ends: 0.5 left, CL = 6 */
	ck_assert(topomatch_link_load_remove(ll, 7, err) == 0);
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0 && s.contention == 6);
	/* the last one ends: no residue anywhere */
	ck_assert(topomatch_link_load_remove(ll, 8, err) == 0);
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 0);
	ck_assert_int_eq(topomatch_link_load_entries(ll), 0);
	for (int64_t l = 0; l < 64; l++)
		ck_assert(topomatch_link_load_get(ll, l) == 0);
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0 && s.contention == 0);

	topomatch_affinity_destroy(a2);
	topomatch_affinity_destroy(b4);
	topomatch_link_load_destroy(ll);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Disjoint jobs: A on {0, 4} (group 0), B anywhere in group 1 meets no
 * load.  A job inside one node (node_pus 4: every leaf is one node of 4
 * PUs) loads no link: the links inside a node are its own.
 */
START_TEST(disjoint_and_intra_node)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t = tm_topo(tree16);
	topomatch_link_load_t *ll = table(t, 1, 0), *nodes4 = table(t, 4, 0);
	topomatch_affinity_t *a2 = alltoall(2), *b4 = alltoall(4);
	const int64_t pa[] = { 0, 4 }, y[] = { 8, 9, 12, 13 }, inside[] = { 0, 1 };
	topomatch_link_score_t s;
	ck_assert(topomatch_link_load_add(ll, 1, a2, pa, 1, err) == 0);
	ck_assert(topomatch_link_load_score(ll, b4, y, 5, &s, err) == 0);
	ck_assert(s.contention == 0 && s.score == 40);

	/* nodes of 4 PUs: A's links inside nodes 0 and 1 are left out, its
	 * leaf uplinks stay: 4 directed links (L0 up and down, L1 up and down) */
	ck_assert(topomatch_link_load_add(nodes4, 1, a2, pa, 1, err) == 0);
	ck_assert_int_eq(topomatch_link_load_entries(nodes4), 4);
	ck_assert(topomatch_link_load_add(nodes4, 2, a2, inside, 1, err) == 0);
	ck_assert_int_eq(topomatch_link_load_entries(nodes4), 4);
	/* B on {1, 2, 3, 5}: the 6 crossing messages meet L0/L1 up and down
	 * (leaf up, group down): 2 each */
	const int64_t x[] = { 1, 2, 3, 5 };
	ck_assert(topomatch_link_load_score(nodes4, b4, x, 1, &s, err) == 0);
	ck_assert_msg(s.contention == 12, "%g", s.contention);

	topomatch_affinity_destroy(a2);
	topomatch_affinity_destroy(b4);
	topomatch_link_load_destroy(ll);
	topomatch_link_load_destroy(nodes4);
	topomatch_topology_destroy(t);
}
END_TEST

/* Many jobs in and out: the id table survives growth and deletions. */
START_TEST(many_jobs)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t = tm_topo(tree16);
	topomatch_link_load_t *ll = table(t, 1, 0);
	topomatch_affinity_t *a2 = alltoall(2);
	const int64_t pa[] = { 0, 4 };
	for (uint64_t j = 0; j < 200; j++)
		ck_assert(topomatch_link_load_add(ll, j * 1000003u, a2, pa, 0.01, err) == 0);
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 200);
	for (uint64_t j = 0; j < 200; j += 2)
		ck_assert_msg(topomatch_link_load_remove(ll, j * 1000003u, err) == 0, "%s", err);
	for (uint64_t j = 1; j < 200; j += 2)
		ck_assert_msg(topomatch_link_load_remove(ll, j * 1000003u, err) == 0, "%s", err);
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 0);
	for (int64_t l = 0; l < 64; l++)
		ck_assert(topomatch_link_load_get(ll, l) == 0);
	topomatch_affinity_destroy(a2);
	topomatch_link_load_destroy(ll);
	topomatch_topology_destroy(t);
}
END_TEST

/* Every error path: a clear message, the table unchanged. */
START_TEST(bad_input)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_topology_t *t = tm_topo(tree16);
	topomatch_link_load_t *ll = NULL;
	topomatch_affinity_t *a2 = alltoall(2), *b4 = alltoall(4);
	const int64_t pa[] = { 0, 4 }, out_of_range[] = { 0, 16 }, x[] = { 1, 2, 3, 5 };
	topomatch_link_score_t s;

	ck_assert_int_eq(topomatch_link_load_create(t, 3, 0, &ll, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "3 PUs per node do not divide the topology's 16 PUs");
	ck_assert(ll == NULL);
	ck_assert_int_eq(topomatch_link_load_create(t, 0, 0, &ll, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_create(t, 1, -1, &ll, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "max_entries -1 is negative");
	ck_assert_int_eq(topomatch_link_load_create(NULL, 1, 0, &ll, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "NULL argument");

	ll = table(t, 1, 10);
	ck_assert_int_eq(topomatch_link_load_add(ll, 1, a2, out_of_range, 1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 1 is on PU 16, outside the topology's 16");
	ck_assert_int_eq(topomatch_link_load_add(ll, 1, a2, pa, 1.5, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "activity 1.5 is not between 0 and 1");
	ck_assert_int_eq(topomatch_link_load_add(ll, 1, a2, pa, NAN, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_add(ll, 1, NULL, pa, 1, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_add(NULL, 1, a2, pa, 1, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 0);

	ck_assert(topomatch_link_load_add(ll, 1, a2, pa, 1, err) == 0);
	ck_assert_int_eq(topomatch_link_load_add(ll, 1, a2, pa, 1, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "job 1 is already in the table");
	/* 8 entries in use, the limit 10: another 8 do not fit */
	ck_assert_int_eq(topomatch_link_load_add(ll, 2, a2, pa, 1, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "job 2 would load 8 links, past the table's limit of 10 "
			   "entries (8 in use)");
	ck_assert_int_eq(topomatch_link_load_jobs(ll), 1);
	ck_assert_int_eq(topomatch_link_load_entries(ll), 8);
	ck_assert(topomatch_link_load_score(ll, b4, x, 1, &s, err) == 0 && s.contention == 12);

	ck_assert_int_eq(topomatch_link_load_remove(ll, 2, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "job 2 is not in the table");
	ck_assert_int_eq(topomatch_link_load_remove(NULL, 2, err), TOPOMATCH_EINVAL);

	ck_assert_int_eq(topomatch_link_load_score(ll, b4, x, -1, &s, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "contention weight -1 is not a finite number >= 0");
	ck_assert_int_eq(topomatch_link_load_score(ll, b4, x, INFINITY, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_score(ll, b4, x, 1, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_link_load_score(ll, a2, out_of_range, 1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "link loads: score: task 1 is on PU 16");
	ck_assert(topomatch_link_load_get(ll, -1) == 0 && topomatch_link_load_get(NULL, 0) == 0);
	ck_assert_int_eq(topomatch_link_load_jobs(NULL), 0);
	topomatch_link_load_destroy(NULL);

	topomatch_affinity_destroy(a2);
	topomatch_affinity_destroy(b4);
	topomatch_link_load_destroy(ll);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------- on a cluster */

/* The tree16 case as a cluster: 16 one-PU nodes n01-n16. */
static const char c16_yaml[] = "cluster: c16\nnodes:\n  - names: n[01-16]\n"
			       "    hardware: \"core:1 pu:1\"\nnetwork:\n  type: fattree\n"
			       "  levels:\n    - arity: 2\n    - arity: 2\n    - arity: 4\n";

static topomatch_cluster_t *cluster(const char *yaml)
{
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "t.yaml", NULL, &c, err) ==
		      TOPOMATCH_OK, "%s", err);
	return c;
}

/* Select 4 all-to-all tasks among the free PUs with `weight`. */
static void pick(const topomatch_cluster_t *c, topomatch_link_load_t *ll, double weight,
		 const int64_t *free_pus, int64_t nfree, int64_t *nodes, int64_t *nn,
		 topomatch_loaded_choice_t *info)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *b4 = alltoall(4);
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	int64_t pu[4];
	topomatch_map_opts_init(&o);
	o.allowed = free_pus;
	o.nallowed = nfree;
	ck_assert_msg(topomatch_cluster_select_loaded(c, b4, &o, ll, weight, pu, nodes, nn, &res,
						      info, err) == 0, "%s", err);
	topomatch_affinity_destroy(b4);
}

/*
 * Job A runs on n01 and n05 (PUs 0 and 4); n11, n12, n15, n16 are busy
 * without traffic.  Free: L0 1-3, L1 5-7, L2 8-9, L3 12-13.  B's best
 * placement by hop-bytes is 3 + 1 tasks in L0 and L1 (HB 36, across A's
 * uplinks: CL 12 at activity 1); 2 + 2 in L2 and L3 has HB 40, CL 0.
 * Weight 0 and 0.25 keep the first choice (36, 39 < 40); weight 1 moves
 * B to group 1 (40 < 48).
 */
START_TEST(select_avoids_loaded_uplink)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(c16_yaml);
	topomatch_link_load_t *ll;
	topomatch_affinity_t *a2 = alltoall(2);
	const int64_t pa[] = { 0, 4 }, free_pus[] = { 1, 2, 3, 5, 6, 7, 8, 9, 12, 13 };
	int64_t nodes[16], nn, old[16], nold;
	topomatch_loaded_choice_t info;
	ck_assert_msg(topomatch_cluster_link_load_create(c, 0, &ll, err) == 0, "%s", err);

	/* empty table: the old choice, nothing compared */
	pick(c, ll, 1, free_pus, 10, old, &nold, &info);
	ck_assert_int_eq(info.candidates, 0);
	ck_assert_int_eq(nold, 4);
	ck_assert_int_lt(old[3], 8); /* in group 0 */

	ck_assert_msg(topomatch_cluster_link_load_add(c, ll, 1, a2, pa, 1, err) == 0, "%s", err);
	pick(c, ll, 0, free_pus, 10, nodes, &nn, &info);
	ck_assert_int_eq(info.candidates, 0);
	ck_assert(nn == nold && !memcmp(nodes, old, sizeof(*old) * 4));

	pick(c, ll, 0.25, free_pus, 10, nodes, &nn, &info);
	ck_assert_msg(info.first.hop_bytes == 36 && info.first.contention == 12, "%g %g",
		      info.first.hop_bytes, info.first.contention);
	ck_assert_int_ge(info.candidates, 2);
	ck_assert_int_eq(info.chosen_index, 0);
	ck_assert(nn == nold && !memcmp(nodes, old, sizeof(*old) * 4));

	pick(c, ll, 1, free_pus, 10, nodes, &nn, &info);
	ck_assert_int_gt(info.chosen_index, 0);
	ck_assert_int_ge(info.candidates, 2); /* no budget: every candidate */
	ck_assert(info.chosen.hop_bytes == 40 && info.chosen.contention == 0);

	/* a budget spent by the first choice: no other candidate is mapped
	 * (slurmctld's locks are held around the whole call) */
	{
		topomatch_affinity_t *b4 = alltoall(4);
		topomatch_map_opts_t o;
		topomatch_map_result_t res;
		int64_t pu[4], nb[16], nnb;
		topomatch_map_opts_init(&o);
		o.allowed = free_pus;
		o.nallowed = 10;
		o.time_budget_s = 1e-12;
		ck_assert_msg(topomatch_cluster_select_loaded(c, b4, &o, ll, 1, pu, nb, &nnb, &res,
							      &info, err) == 0, "%s", err);
		ck_assert_msg(info.first.contention > 0, "%g", info.first.contention);
		ck_assert_int_eq(info.candidates, 1); /* met load, compared nothing */
		ck_assert_int_eq(info.chosen_index, 0);
		topomatch_affinity_destroy(b4);
	}
	ck_assert_int_eq(nn, 4);
	ck_assert(nodes[0] == 8 && nodes[1] == 9 && nodes[2] == 12 && nodes[3] == 13);

	/* A ends: the old choice again */
	ck_assert(topomatch_link_load_remove(ll, 1, err) == 0);
	pick(c, ll, 1, free_pus, 10, nodes, &nn, &info);
	ck_assert(nn == nold && !memcmp(nodes, old, sizeof(*old) * 4));

	ck_assert_int_eq(topomatch_cluster_link_load_add(c, ll, 2, a2, (const int64_t[]){ 0, 99 },
							 1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 1 is on PU 99, not one of the cluster's 16");
	ck_assert_int_eq(topomatch_cluster_link_load_create(NULL, 0, &ll, err), TOPOMATCH_EINVAL);
	{
		topomatch_affinity_t *b4 = alltoall(4);
		topomatch_map_opts_t o;
		int64_t pu[4];
		topomatch_map_opts_init(&o);
		o.allowed = free_pus;
		o.nallowed = 10;
		ck_assert_int_eq(topomatch_cluster_select_loaded(c, b4, &o, ll, -2, pu, nodes, &nn,
								 NULL, NULL, err),
				 TOPOMATCH_EINVAL);
		ck_assert_contains(err, "contention weight -2 is not a finite number >= 0");
		topomatch_affinity_destroy(b4);
	}
	topomatch_affinity_destroy(a2);
	topomatch_link_load_destroy(ll);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * Ranked nodes on a tree: 4 groups of 2 leaves of 4 one-PU nodes (group
 * g, leaf l, node i: PU 8g + 4l + i; hops 2 in a leaf, 4 in a group, 6
 * across).  A (activity 1) on PUs 0 and 4 loads both leaves of group 0 at
 * their uplinks, C (0.5) on 8 and 12 those of group 1.  Free: 1, 5 (group
 * 0), 9 (group 1), 17 (group 2), 25 (group 3).  B, 2 tasks (1 each way):
 * first choice 1 and 5 (HB 8, the only pair inside a group), meeting
 * load 1 on two links each way: CL 4.  The nodes' load on their way up
 * to the root: 1 and 5: 2, 9: 1, 17 and 25: 0.  Candidates besides the
 * first: the quiet nodes 17 and 25 (HB 12, CL 0), the least loaded up to
 * 4 PUs (17, 25, 9, 1; the mapper keeps HB 12 there, CL >= 0), and group
 * 0, the one subtree with room (1 and 5 again).  Weight 1: 12 against
 * 12, the first choice stays; weight 2: 16 against 12, B moves to 17 and
 * 25 (the quiet set, the first that scores lower).
 */
static const char c32_yaml[] = "cluster: c32\nnodes:\n  - names: n[01-32]\n"
			       "    hardware: \"core:1 pu:1\"\nnetwork:\n  type: fattree\n"
			       "  levels:\n    - arity: 4\n    - arity: 2\n    - arity: 4\n";

START_TEST(tree_ranked_nodes)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(c32_yaml);
	topomatch_link_load_t *ll;
	topomatch_affinity_t *a2 = alltoall(2);
	const int64_t free_pus[] = { 1, 5, 9, 17, 25 };
	int64_t pu[2], nodes[32], nn;
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	topomatch_loaded_choice_t info;
	ck_assert_msg(topomatch_cluster_link_load_create(c, 0, &ll, err) == 0, "%s", err);
	ck_assert(topomatch_cluster_link_load_add(c, ll, 1, a2, (const int64_t[]){ 0, 4 }, 1, err) ==
		  0);
	ck_assert(topomatch_cluster_link_load_add(c, ll, 2, a2, (const int64_t[]){ 8, 12 }, 0.5,
						  err) == 0);
	ck_assert(topomatch_link_load_attach(ll, 1) == 0); /* trees: walked, not attached */
	topomatch_map_opts_init(&o);
	o.allowed = free_pus;
	o.nallowed = 5;
	ck_assert_msg(topomatch_cluster_select_loaded(c, a2, &o, ll, 1, pu, nodes, &nn, &res, &info,
						      err) == 0, "%s", err);
	ck_assert_msg(info.first.hop_bytes == 8 && info.first.contention == 4, "%g %g",
		      info.first.hop_bytes, info.first.contention);
	ck_assert_int_eq(info.candidates, 4);
	ck_assert_int_eq(info.chosen_index, 0);
	ck_assert(nn == 2 && nodes[0] == 1 && nodes[1] == 5);

	ck_assert(topomatch_cluster_select_loaded(c, a2, &o, ll, 2, pu, nodes, &nn, &res, &info,
						  err) == 0);
	ck_assert_int_eq(info.candidates, 4);
	ck_assert_int_eq(info.chosen_index, 1);
	ck_assert_msg(info.chosen.hop_bytes == 12 && info.chosen.contention == 0, "%g %g",
		      info.chosen.hop_bytes, info.chosen.contention);
	ck_assert(nn == 2 && nodes[0] == 17 && nodes[1] == 25);
	topomatch_affinity_destroy(a2);
	topomatch_link_load_destroy(ll);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * topomatch_cluster_link_load_score scores a placement given in cluster
 * PUs, as select/topomatch scores cons_tres' own choice: A (n01, n05) at
 * activity 1 loads the uplinks of L0 and L1; 4 all-to-all tasks on n02,
 * n03, n04, n06 have HB 36 and meet load 12 (the select test's first
 * choice), on n09, n10, n13, n14 HB 40 and no load.  Its error paths.
 */
START_TEST(score_cluster_pus)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(c16_yaml);
	topomatch_link_load_t *ll;
	topomatch_affinity_t *a2 = alltoall(2), *b4 = alltoall(4);
	const int64_t pa[] = { 0, 4 }, loaded[] = { 1, 2, 3, 5 }, quiet[] = { 8, 9, 12, 13 };
	topomatch_link_score_t s;
	ck_assert_msg(topomatch_cluster_link_load_create(c, 0, &ll, err) == 0, "%s", err);
	ck_assert_msg(topomatch_cluster_link_load_add(c, ll, 1, a2, pa, 1, err) == 0, "%s", err);
	ck_assert_msg(topomatch_cluster_link_load_score(c, ll, b4, loaded, 2, &s, err) == 0, "%s",
		      err);
	ck_assert_msg(s.hop_bytes == 36 && s.contention == 12 && s.score == 60, "%g %g %g",
		      s.hop_bytes, s.contention, s.score);
	ck_assert_msg(topomatch_cluster_link_load_score(c, ll, b4, quiet, 2, &s, err) == 0, "%s",
		      err);
	ck_assert_msg(s.hop_bytes == 40 && s.contention == 0 && s.score == 40, "%g %g %g",
		      s.hop_bytes, s.contention, s.score);
	/* errors: NULL arguments, a PU outside the cluster, a bad weight */
	ck_assert_int_eq(topomatch_cluster_link_load_score(NULL, ll, b4, quiet, 1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "topomatch_cluster_link_load_score: NULL argument");
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, NULL, b4, quiet, 1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, ll, NULL, quiet, 1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, ll, b4, NULL, 1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, ll, b4, quiet, 1, NULL, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, ll, b4, (const int64_t[]){ 8, 9, 12,
											   16 },
							   1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "task 3 is on PU 16, not one of the cluster's 16");
	ck_assert_int_eq(topomatch_cluster_link_load_score(c, ll, b4, quiet, -1, &s, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "contention weight -1 is not a finite number >= 0");
	topomatch_affinity_destroy(a2);
	topomatch_affinity_destroy(b4);
	topomatch_link_load_destroy(ll);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * Off trees the candidates are the nodes whose switch carries no load.
 * A ring of 8 routers, one node of 2 PUs each (node k: PUs 2k, 2k + 1).
 * A (2 tasks, 1 each way, activity 1) on nodes 0 and 3 loads the links
 * between routers 0-1-2-3 both ways at L = 1.  Nodes 4 and 6 are busy
 * without traffic; free: 1, 2, 5, 7.  B (4 tasks, all-to-all, 1 per
 * message) on nodes 1 and 2: 4 messages inside nodes (2 hops) and 8
 * between them (3 hops, across A's link 1-2): HB 32, CL 8; on nodes 5
 * and 7 (2 router hops, via 6): HB 8 + 8 x 4 = 40, CL 0.  The links at
 * router 1 and 2 carry 4 x L, at 0 2 x L, at 5 and 7 nothing: the quiet
 * nodes are 5 and 7.  Weight 0.5 keeps 1 and 2 (36 < 40), weight 2
 * moves B there (48 > 40).
 */
static const char ring_yaml[] = "cluster: ring\nnodes:\n  - names: r[0-7]\n"
				"    hardware: \"core:2 pu:1\"\nnetwork:\n  type: torus\n"
				"  dims: [8]\n  wrap: true\n  nodes_per_router: 1\n";

START_TEST(off_trees_quiet_nodes)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(ring_yaml);
	topomatch_link_load_t *ll;
	topomatch_affinity_t *a2 = alltoall(2), *b4 = alltoall(4);
	const int64_t pa[] = { 0, 6 }, free_pus[] = { 2, 3, 4, 5, 10, 11, 14, 15 };
	int64_t pu[4], old_pu[4], nodes[8], old[8], nn, nold;
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	topomatch_loaded_choice_t info;
	ck_assert_msg(topomatch_cluster_link_load_create(c, 0, &ll, err) == 0, "%s", err);
	ck_assert_msg(topomatch_cluster_link_load_add(c, ll, 1, a2, pa, 1, err) == 0, "%s", err);
	const double at[8] = { 2, 4, 4, 2, 0, 0, 0, 0 };
	for (int64_t k = 0; k < 8; k++) /* cluster PU 2k is topology PU 2k here */
		ck_assert_msg(topomatch_link_load_attach(ll, 2 * k) == at[k], "node %lld: %g",
			      (long long)k, topomatch_link_load_attach(ll, 2 * k));
	ck_assert(topomatch_link_load_attach(ll, 16) == -1 && topomatch_link_load_attach(NULL, 0) == -1);
	topomatch_map_opts_init(&o);
	o.allowed = free_pus;
	o.nallowed = 8;
	ck_assert(topomatch_cluster_select(c, b4, &o, old_pu, old, &nold, &res, err) == 0);
	ck_assert(nold == 2 && old[0] == 1 && old[1] == 2);

	ck_assert_msg(topomatch_cluster_select_loaded(c, b4, &o, ll, 0.5, pu, nodes, &nn, &res,
						      &info, err) == 0, "%s", err);
	ck_assert_msg(info.first.hop_bytes == 32 && info.first.contention == 8, "%g %g",
		      info.first.hop_bytes, info.first.contention);
	ck_assert_int_eq(info.candidates, 2);
	ck_assert_int_eq(info.chosen_index, 0);
	ck_assert(nn == nold && !memcmp(nodes, old, (size_t)nn * sizeof(*nodes)));
	ck_assert(!memcmp(pu, old_pu, sizeof(pu)));

	ck_assert_msg(topomatch_cluster_select_loaded(c, b4, &o, ll, 2, pu, nodes, &nn, &res, &info,
						      err) == 0, "%s", err);
	ck_assert_int_eq(info.chosen_index, 1);
	ck_assert_msg(info.chosen.hop_bytes == 40 && info.chosen.contention == 0, "%g %g",
		      info.chosen.hop_bytes, info.chosen.contention);
	ck_assert(nn == 2 && nodes[0] == 5 && nodes[1] == 7);
	/* NULL arguments */
	ck_assert_int_eq(topomatch_cluster_link_load_add(c, ll, 2, NULL, pa, 1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "topomatch_cluster_link_load_add: NULL argument");
	ck_assert_int_eq(topomatch_cluster_link_load_add(NULL, ll, 2, a2, pa, 1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_cluster_select_loaded(c, b4, NULL, ll, 1, pu, nodes, &nn, NULL,
							 NULL, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "NULL argument");
	topomatch_affinity_destroy(a2);
	topomatch_affinity_destroy(b4);
	topomatch_link_load_destroy(ll);
	topomatch_cluster_destroy(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("link_load");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, score_loaded_uplink);
	tcase_add_test(tc, disjoint_and_intra_node);
	tcase_add_test(tc, many_jobs);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, select_avoids_loaded_uplink);
	tcase_add_test(tc, off_trees_quiet_nodes);
	tcase_add_test(tc, tree_ranked_nodes);
	tcase_add_test(tc, score_cluster_pus);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(suite());
}

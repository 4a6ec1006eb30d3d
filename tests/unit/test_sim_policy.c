/*
 * test_sim_policy.c - the simulator's view of a cluster (Slurm's switch
 * table, free-node counts) and each policy's node choice on small trees
 * with exact node lists: slurm-linear (best fit among runs of free
 * nodes), slurm-tree (best fit, the larger
 * leaf when none fits, distance to the leaves already used, the climb to
 * the parents, candidates), random, and topomatch (the same nodes as
 * topomatch_cluster_select, the plugin's fallbacks).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "sim.h"

/* 2 pods x 2 leaf switches x 2 nodes of 2 cores: n1-n2 on leaf 0, n3-n4
 * on leaf 1 (pod 0), n5-n6 on leaf 2, n7-n8 on leaf 3 (pod 1). */
static const char pods_yaml[] = "cluster: pods\n"
				"nodes:\n  - names: n[1-8]\n    hardware: \"core:2 pu:1\"\n"
				"network:\n  type: fattree\n  levels:\n"
				"    - arity: 2\n    - arity: 2\n    - arity: 2\n";

/* One root above 4 leaf switches of 4 nodes of 2 cores: n1-n4 on leaf 0,
 * n5-n8 on 1, n9-n12 on 2, n13-n16 on 3. */
static const char leaves_yaml[] = "cluster: leaves\n"
				  "nodes:\n  - names: n[1-16]\n    hardware: \"core:2 pu:1\"\n"
				  "network:\n  type: fattree\n  levels:\n"
				  "    - arity: 4\n    - arity: 4\n";

typedef struct world {
	topomatch_cluster_t *cl;
	sim_machine_t m;
	sim_free_t f;
} world_t;

static void world_open(world_t *w, const char *yaml)
{
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "test.yaml", NULL, &w->cl,
						    err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(sim_machine_init(&w->m, w->cl, 0, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(sim_free_init(&w->f, &w->m), TOPOMATCH_OK);
}

static void world_file(world_t *w, const char *conf_name)
{
	char path[4096], err[TOPOMATCH_ERRLEN];
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/conf/%s", top ? top : ".", conf_name);
	ck_assert_msg(topomatch_cluster_load(path, &w->cl, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(sim_machine_init(&w->m, w->cl, 0, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(sim_free_init(&w->f, &w->m), TOPOMATCH_OK);
}

static void world_close(world_t *w)
{
	sim_free_free(&w->f);
	sim_machine_free(&w->m);
	topomatch_cluster_destroy(w->cl);
}

/* Mark nodes busy, given by 1-based name number. */
static void busy(world_t *w, const int *numbers, int n)
{
	for (int k = 0; k < n; k++) {
		int64_t i = numbers[k] - 1;
		sim_free_take(&w->f, &w->m, &i, 1);
	}
}

/* "0,2,3" of node indices */
static const char *list(const int64_t *nodes, int64_t n)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	for (int64_t k = 0; k < n; k++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld", k ? "," : "",
					(long long)nodes[k]);
	return buf;
}

static const char *tree_pick(world_t *w, const unsigned char *cand, int64_t k)
{
	int64_t nodes[64];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(sim_slurm_tree(&w->m, &w->f, cand, k, nodes, err) == TOPOMATCH_OK, "%s",
		      err);
	return list(nodes, k);
}

/* ------------------------------------------------------------ machine */

START_TEST(switch_table)
{
	world_t w;
	world_open(&w, pods_yaml);
	ck_assert_int_eq(w.m.levels, 3);
	ck_assert_int_eq(w.m.cpn, 2);
	ck_assert_int_eq(w.m.nsw, 7); /* 4 leaves, 2 pods, the root: Slurm's order */
	const int level[] = { 0, 0, 0, 0, 1, 1, 2 }, parent[] = { 4, 4, 5, 5, 6, 6, -1 };
	for (int s = 0; s < 7; s++) {
		ck_assert_int_eq(w.m.sw[s].level, level[s]);
		ck_assert_int_eq(w.m.sw[s].parent, parent[s]);
	}
	for (int64_t i = 0; i < 8; i++)
		ck_assert_int_eq(w.m.node_leaf[i], i / 2);
	ck_assert_int_eq(sim_switch_dist(&w.m, 0, 1), 2);
	ck_assert_int_eq(sim_switch_dist(&w.m, 0, 2), 4);
	ck_assert_int_eq(sim_switch_dist(&w.m, 0, 5), 3);
	ck_assert_int_eq(sim_switch_dist(&w.m, 3, 3), 0);
	const int64_t spread[] = { 0, 1, 4, 7 };
	ck_assert_int_eq(sim_switches_spanned(&w.m, spread, 4), 3);
	ck_assert_int_eq(w.f.nfree, 8);
	ck_assert_int_eq(w.f.sw_free[6], 8);
	busy(&w, (int[]){ 3, 4, 8 }, 3);
	ck_assert_int_eq(w.f.nfree, 5);
	const int64_t want[] = { 2, 0, 2, 1, 2, 3, 5 };
	for (int s = 0; s < 7; s++)
		ck_assert_int_eq(w.f.sw_free[s], want[s]);
	const int64_t back = 7;
	sim_free_give(&w.f, &w.m, &back, 1);
	ck_assert_int_eq(w.f.sw_free[3], 2);
	ck_assert_int_eq(w.f.sw_free[6], 6);
	world_close(&w);
}
END_TEST

START_TEST(switch_tables_of_conf_examples)
{
	world_t w;
	/* a `tree` network: leaf0 (tm1-2), leaf1 (tm3-4), top */
	world_file(&w, "local-test-cluster.yaml");
	ck_assert_int_eq(w.m.levels, 2);
	ck_assert_int_eq(w.m.nsw, 3);
	ck_assert_int_eq(w.m.cpn, 4);
	ck_assert_int_eq(w.m.node_leaf[2], 1);
	world_close(&w);
	/* irregular leaves of 16, 12 and 8 nodes, embedded in 3 x 16 */
	world_file(&w, "irregular-tree.yaml");
	ck_assert_int_eq(w.m.levels, 2);
	ck_assert_int_eq(w.m.nsw, 4);
	ck_assert_int_eq(w.m.node_leaf[topomatch_cluster_node_find(w.cl, "cpu17")], 1);
	ck_assert_int_eq(w.m.node_leaf[topomatch_cluster_node_find(w.cl, "gpu1")], 2);
	ck_assert_int_eq(w.m.sw_first[2] - w.m.sw_first[1], 12);
	ck_assert_int_eq(w.m.compact[28], topomatch_cluster_node_find(w.cl, "gpu1"));
	world_close(&w);
	/* a torus has no switch table; slurm-tree says so */
	world_file(&w, "bgp-torus.yaml");
	ck_assert_int_eq(w.m.levels, -1);
	ck_assert_int_eq(w.m.nsw, 0);
	int64_t nodes[4];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(sim_slurm_tree(&w.m, &w.f, NULL, 2, nodes, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "slurm-tree needs a tree network");
	ck_assert_int_eq(sim_switches_spanned(&w.m, nodes, 0), -1);
	world_close(&w);
}
END_TEST

START_TEST(node_position)
{
	world_t w;
	int levels;
	world_file(&w, "plafrim2-fattree.yaml");
	ck_assert_int_eq(topomatch_cluster_node_position(w.cl, 30, &levels), 30);
	ck_assert_int_eq(levels, 2);
	ck_assert_int_eq(topomatch_cluster_node_position(w.cl, 88, NULL), -1);
	world_close(&w);
	world_file(&w, "dragonfly.yaml");
	topomatch_cluster_node_position(w.cl, 0, &levels);
	ck_assert_int_eq(levels, -1);
	world_close(&w);
}
END_TEST

/* --------------------------------------------------------- slurm-tree */

START_TEST(tree_best_fit)
{
	/* free per leaf: 3 (n1 n3 n4), 1 (n7), 2 (n10 n12), 4 (n13-n16) */
	world_t w;
	world_open(&w, leaves_yaml);
	busy(&w, (int[]){ 2, 5, 6, 8, 9, 11 }, 6);
	ck_assert_str_eq(tree_pick(&w, NULL, 1), "6");          /* the leaf of 1 */
	ck_assert_str_eq(tree_pick(&w, NULL, 2), "9,11");       /* the leaf of 2 */
	ck_assert_str_eq(tree_pick(&w, NULL, 3), "0,2,3");      /* the leaf of 3 */
	ck_assert_str_eq(tree_pick(&w, NULL, 4), "12,13,14,15");
	/* 5: no leaf holds them: the largest (4), then the last one goes to
	 * the best fit among leaves at equal distance (the leaf of 1) */
	ck_assert_str_eq(tree_pick(&w, NULL, 5), "6,12,13,14,15");
	/* 9: 4, then 3 (largest, none fits 5), then the leaf that holds 2 */
	ck_assert_str_eq(tree_pick(&w, NULL, 9), "0,2,3,9,11,12,13,14,15");
	int64_t nodes[16];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(sim_slurm_tree(&w.m, &w.f, NULL, 11, nodes, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "no 11 candidate nodes");
	world_close(&w);
}
END_TEST

START_TEST(tree_climbs_to_parents)
{
	/*
	 * Free: n1 n2 (leaf 0), n5 n6 (leaf 2), n7 (leaf 3).  3 nodes: no
	 * leaf holds them; leaf 2 beats leaf 0 at the pods (pod 1 holds 3),
	 * then leaf 3 is the closest to leaf 2.
	 */
	world_t w;
	world_open(&w, pods_yaml);
	busy(&w, (int[]){ 3, 4, 8 }, 3);
	ck_assert_str_eq(tree_pick(&w, NULL, 3), "4,5,6");
	ck_assert_str_eq(tree_pick(&w, NULL, 2), "0,1"); /* equal fits: the first */
	ck_assert_str_eq(tree_pick(&w, NULL, 1), "6");
	ck_assert_str_eq(tree_pick(&w, NULL, 5), "0,1,4,5,6");
	world_close(&w);
}
END_TEST

START_TEST(tree_among_candidates)
{
	world_t w;
	world_open(&w, leaves_yaml);
	unsigned char cand[16] = { 0 };
	cand[1] = cand[4] = cand[5] = cand[6] = 1; /* n2, n5, n6, n7 */
	ck_assert_str_eq(tree_pick(&w, cand, 2), "4,5");
	ck_assert_str_eq(tree_pick(&w, cand, 4), "1,4,5,6");
	world_close(&w);
}
END_TEST

/* ------------------------------------------------ the other policies */

static int pick(world_t *w, int policy, const topomatch_affinity_t *a, int64_t ntasks,
		int64_t k, uint64_t seed, int64_t *nodes, int64_t *pu, sim_tm_stats_t *st)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_rng_t rng;
	sim_tm_opts_t tm = { .seed = 1, .max_tasks = SIM_PLUGIN_MAX_TASKS };
	sim_tm_stats_t local = { 0 };
	topomatch_rng_seed(&rng, seed);
	sim_pick_t p = { .policy = policy, .m = &w->m, .f = &w->f, .a = a, .ntasks = ntasks,
			 .k = k, .rng = &rng, .tm = &tm, .stats = st ? st : &local };
	int rc = sim_policy_select(&p, nodes, pu, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	return rc;
}

START_TEST(linear_best_fit)
{
	/* cons_tres without topology (_eval_nodes): free runs n1, n3-n4,
	 * n7, n10 and n12-n16 (indices 0, 2-3, 6, 9, 11-15) */
	world_t w;
	int64_t nodes[16], pu[32];
	world_open(&w, leaves_yaml);
	busy(&w, (int[]){ 2, 5, 6, 8, 9, 11 }, 6);
	pick(&w, SIM_LINEAR, NULL, 1, 1, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 1), "0"); /* the first of the tightest runs */
	pick(&w, SIM_LINEAR, NULL, 4, 2, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 2), "2,3"); /* not 0 and 2: the run that fits */
	ck_assert_str_eq(list(pu, 4), "4,5,6,7"); /* block order over their PUs */
	pick(&w, SIM_LINEAR, NULL, 5, 3, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 3), "11,12,13"); /* from the start of the run */
	pick(&w, SIM_LINEAR, NULL, 14, 7, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 7), "2,3,11,12,13,14,15"); /* the largest, then fit */
	pick(&w, SIM_LINEAR, NULL, 20, 10, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 10), "0,2,3,6,9,11,12,13,14,15");
	int64_t k11[11];
	char err[TOPOMATCH_ERRLEN];
	topomatch_rng_t rng;
	sim_tm_opts_t tm = { .seed = 1, .max_tasks = SIM_PLUGIN_MAX_TASKS };
	sim_tm_stats_t st = { 0 };
	sim_pick_t p = { .policy = SIM_LINEAR, .m = &w.m, .f = &w.f, .ntasks = 11, .k = 11,
			 .rng = &rng, .tm = &tm, .stats = &st };
	ck_assert_int_eq(sim_policy_select(&p, k11, pu, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "11 nodes wanted, 10 free");
	world_close(&w);
}
END_TEST

START_TEST(random_nodes)
{
	world_t w;
	int64_t nodes[16], again[16], pu[32];
	int seen[16] = { 0 };
	world_open(&w, leaves_yaml);
	busy(&w, (int[]){ 2, 5, 6, 8, 9, 11 }, 6);
	for (uint64_t seed = 1; seed <= 200; seed++) {
		pick(&w, SIM_RANDOM_NODES, NULL, 8, 4, seed, nodes, pu, NULL);
		pick(&w, SIM_RANDOM_NODES, NULL, 8, 4, seed, again, pu, NULL);
		ck_assert(!memcmp(nodes, again, sizeof(nodes[0]) * 4)); /* seeded */
		for (int k = 0; k < 4; k++) {
			ck_assert(w.f.free[nodes[k]]);
			ck_assert(k == 0 || nodes[k] > nodes[k - 1]); /* distinct, sorted */
			seen[nodes[k]]++;
		}
	}
	/* 800 draws over 10 free nodes: each about 80 times, busy ones never */
	for (int i = 0; i < 16; i++)
		ck_assert_msg(w.f.free[i] ? seen[i] > 40 && seen[i] < 120 : seen[i] == 0,
			      "node %d drawn %d times", i, seen[i]);
	world_close(&w);
}
END_TEST

static topomatch_affinity_t *alltoall(int64_t n)
{
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	ck_assert(topomatch_gen_alltoall(n, 1, 0, &a, err) == TOPOMATCH_OK);
	return a;
}

/* topomatch_cluster_select itself on every free PU (2 a node), with the
 * default options: the nodes it used (their count), the tasks' PUs. */
static int64_t direct_select(world_t *w, const topomatch_affinity_t *a, int64_t *pu,
			     int64_t *nodes)
{
	int64_t pus[64], np = 0, nd = 0;
	char err[TOPOMATCH_ERRLEN];
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	for (int64_t i = 0; i < w->m.nnodes; i++)
		for (int64_t c = 0; w->f.free[i] && c < 2; c++)
			pus[np++] = 2 * i + c;
	topomatch_map_opts_init(&o);
	o.allowed = pus;
	o.nallowed = np;
	ck_assert_msg(topomatch_cluster_select(w->cl, a, &o, pu, nodes, &nd, &res, err) == 0,
		      "%s", err);
	return nd;
}

START_TEST(topomatch_chooses_like_the_plugin)
{
	/*
	 * Free: n4 (leaf 1), n5 (leaf 2), n7 n8 (leaf 3).  A 4-task
	 * all-to-all on 2 nodes: slurm-linear takes the first of the two
	 * runs of 2 free nodes, n4 and n5 across pods; topomatch the two
	 * nodes under one leaf, the nodes that
	 * topomatch_cluster_select itself returns on the free PUs.
	 */
	world_t w;
	int64_t nodes[8], pu[4], direct[8], dpu[4], nd;
	sim_tm_stats_t st = { 0 };
	world_open(&w, pods_yaml);
	busy(&w, (int[]){ 1, 2, 3, 6 }, 4);
	topomatch_affinity_t *a = alltoall(4);
	pick(&w, SIM_LINEAR, a, 4, 2, 1, nodes, pu, NULL);
	ck_assert_str_eq(list(nodes, 2), "3,4");
	pick(&w, SIM_TOPOMATCH, a, 4, 2, 1, nodes, pu, &st);
	ck_assert_str_eq(list(nodes, 2), "6,7");
	ck_assert_int_eq(st.narrowed, 1);
	nd = direct_select(&w, a, dpu, direct);
	ck_assert_str_eq(list(direct, nd), "6,7");
	for (int t = 0; t < 4; t++)
		ck_assert(pu[t] >= 12 && pu[t] < 16); /* its tasks on those nodes' PUs */
	topomatch_affinity_destroy(a);
	world_close(&w);
}
END_TEST

START_TEST(node_choice_best_fit)
{
	/* Free: n2 (leaf 0) and n3 (leaf 1) in pod 0, n5 n6 (leaf 2) in pod
	 * 1.  Both pods hold the 4 tasks; TOPOMATCHCONST fills the one where
	 * they sit deepest, two nodes under one leaf (it took pod 0, the
	 * first, when it filled the largest first). */
	world_t w;
	int64_t direct[8], dpu[4];
	world_open(&w, pods_yaml);
	busy(&w, (int[]){ 1, 4, 7, 8 }, 4);
	topomatch_affinity_t *a = alltoall(4);
	ck_assert_int_eq(direct_select(&w, a, dpu, direct), 2);
	ck_assert_str_eq(list(direct, 2), "4,5");
	topomatch_affinity_destroy(a);
	world_close(&w);
}
END_TEST

START_TEST(topomatch_falls_back)
{
	/* No pattern, or one of more blocks than MaxTasks: cons_tres with
	 * topology/tree chooses, tasks in block order; a pattern over
	 * MaxTasks in few enough blocks is mapped node by node. */
	world_t w;
	int64_t nodes[8], pu[8];
	sim_tm_stats_t st = { 0 };
	world_open(&w, pods_yaml);
	busy(&w, (int[]){ 3, 4, 8 }, 3);
	pick(&w, SIM_TOPOMATCH, NULL, 6, 3, 1, nodes, pu, &st);
	ck_assert_str_eq(list(nodes, 3), "4,5,6");
	ck_assert_str_eq(list(pu, 6), "8,9,10,11,12,13");
	ck_assert_int_eq(st.fallback, 1);
	ck_assert_int_eq(st.no_pattern, 1);
	char err[TOPOMATCH_ERRLEN];
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 1);
	sim_tm_opts_t tm = { .seed = 1, .max_tasks = 1 };
	topomatch_affinity_t *a = alltoall(4);
	sim_pick_t p = { .policy = SIM_TOPOMATCH, .m = &w.m, .f = &w.f, .a = a, .ntasks = 4,
			 .k = 2, .rng = &rng, .tm = &tm, .stats = &st };
	ck_assert(sim_policy_select(&p, nodes, pu, err) == TOPOMATCH_OK);
	ck_assert_str_eq(list(nodes, 2), "0,1");
	ck_assert_int_eq(st.fallback, 2);
	ck_assert_int_eq(st.over_max, 1); /* 2 blocks of 2 tasks: more than 1 */
	ck_assert_int_eq(st.no_pattern + st.over_budget + st.map_failed + st.over_kib, 1);
	ck_assert_int_eq(st.narrowed + st.blocked, 0);
	tm.max_tasks = 2; /* 2 blocks: mapped node by node, a node's 2 PUs each */
	ck_assert(sim_policy_select(&p, nodes, pu, err) == TOPOMATCH_OK);
	ck_assert_int_eq(st.fallback, 2);
	ck_assert_int_eq(st.narrowed, 1);
	ck_assert_int_eq(st.blocked, 1);
	ck_assert_int_eq(pu[0] / 2, pu[1] / 2); /* tasks 0 and 1 share a node */
	ck_assert_int_eq(pu[2] / 2, pu[3] / 2);
	ck_assert_int_ne(pu[0] / 2, pu[2] / 2);
	topomatch_affinity_destroy(a);
	world_close(&w);
}
END_TEST

/* A 4 x 4 torus, one node of 2 cores per router: n1-n4 the first row. */
static const char torus_yaml[] = "cluster: torus\n"
				 "nodes:\n  - names: n[1-16]\n    hardware: \"core:2 pu:1\"\n"
				 "network:\n  type: torus\n  dims: [4, 4]\n  wrap: true\n"
				 "  nodes_per_router: 1\n";

START_TEST(topomatch_keeps_cons_tres_nodes)
{
	/*
	 * n5, n7 and n12 busy; a 2 x 3 stencil on 3 nodes.  The node choice
	 * off trees (Scotch on the free nodes) does worse than cons_tres'
	 * best fit, n1-n3 along a row, and the plugin's last check keeps
	 * those (tm_map): the pattern mapped there has the lower hop-bytes.
	 * --comm-wait's yardstick on an empty cluster has no such check.
	 */
	world_t w;
	int64_t nodes[16], pu[6], direct[16], dpu[6];
	char err[TOPOMATCH_ERRLEN];
	double hb, hb_direct;
	world_open(&w, torus_yaml);
	busy(&w, (int[]){ 5, 7, 12 }, 3);
	topomatch_affinity_t *a;
	ck_assert(topomatch_gen_stencil(2, (int[]){ 2, 3 }, 5, 0, NULL, &a, err) == 0);
	ck_assert_int_eq(direct_select(&w, a, dpu, direct), 3);
	char chosen[64]; /* list() reuses its buffer */
	snprintf(chosen, sizeof(chosen), "%s", list(direct, 3));
	ck_assert_str_ne(chosen, "0,1,2");
	ck_assert(sim_hop_bytes(w.cl, a, dpu, &hb_direct, err) == 0);
	for (int check = 1; check >= 0; check--) {
		topomatch_rng_t rng;
		sim_tm_opts_t tm = { .seed = 1, .max_tasks = SIM_PLUGIN_MAX_TASKS };
		sim_tm_stats_t st = { 0 };
		sim_pick_t p = { .policy = SIM_TOPOMATCH, .m = &w.m, .f = &w.f, .a = a,
				 .ntasks = 6, .k = 3, .rng = &rng, .tm = &tm, .stats = &st,
				 .no_check = !check };
		topomatch_rng_seed(&rng, 1);
		ck_assert_msg(sim_policy_select(&p, nodes, pu, err) == TOPOMATCH_OK, "%s", err);
		ck_assert(sim_hop_bytes(w.cl, a, pu, &hb, err) == 0);
		if (!check) { /* --comm-wait's yardstick: the node choice's own */
			ck_assert_str_eq(list(nodes, 3), chosen);
			ck_assert_int_eq(st.narrowed, 1);
			ck_assert(hb == hb_direct);
			continue;
		}
		ck_assert_str_eq(list(nodes, 3), "0,1,2");
		ck_assert_int_eq(st.cons_better, 1);
		ck_assert_int_eq(st.narrowed + st.fallback + st.overflow + st.underflow, 0);
		ck_assert_msg(hb < hb_direct, "%g against %g", hb, hb_direct);
	}
	topomatch_affinity_destroy(a);
	world_close(&w);
}
END_TEST

START_TEST(policy_names)
{
	int ids[8], n;
	char err[TOPOMATCH_ERRLEN];
	ck_assert(sim_policy_parse("topomatch,slurm-linear", ids, &n, err) == TOPOMATCH_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(ids[0], SIM_TOPOMATCH);
	ck_assert_int_eq(ids[1], SIM_LINEAR);
	ck_assert_str_eq(sim_policy_name(SIM_SLURM_TREE), "slurm-tree");
	ck_assert_int_eq(sim_policy_parse("slurm-tree,best", ids, &n, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "--policy: unknown policy 'best' (slurm-linear, slurm-tree, "
			      "topomatch, random)");
	ck_assert_int_eq(sim_policy_parse("random,random", ids, &n, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "--policy: 'random' is listed twice");
	ck_assert_int_eq(sim_policy_parse("", ids, &n, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(sim_policy_parse("topomatch,", ids, &n, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "--policy: unknown policy '' (slurm-linear, slurm-tree, "
			      "topomatch, random)");
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("topomatch-sim-policy");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, switch_table);
	tcase_add_test(tc, switch_tables_of_conf_examples);
	tcase_add_test(tc, node_position);
	tcase_add_test(tc, tree_best_fit);
	tcase_add_test(tc, tree_climbs_to_parents);
	tcase_add_test(tc, tree_among_candidates);
	tcase_add_test(tc, linear_best_fit);

	tcase_add_test(tc, random_nodes);
	tcase_add_test(tc, topomatch_chooses_like_the_plugin);
	tcase_add_test(tc, node_choice_best_fit);
	tcase_add_test(tc, topomatch_falls_back);
	tcase_add_test(tc, topomatch_keeps_cons_tres_nodes);
	tcase_add_test(tc, policy_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(policy_suite());
}

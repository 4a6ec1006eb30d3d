/*
 * test_cluster.c - cluster descriptions (topomatch_cluster.h): the conf/
 * examples, node <-> PU numbering, each network type's distances, the
 * topology.conf import, mapping on irregular clusters, and one test per
 * error class.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "topomatch_cluster.h"

#include <unistd.h>

static topomatch_cluster_t *load(const char *path)
{
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load(path, &c, err) == TOPOMATCH_OK, "%s: %s", path, err);
	return c;
}

static const char *conf(const char *name)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof(buf), "%s/conf/%s", top ? top : ".", name);
	return buf;
}

/* Hops between the first PUs of two nodes given by name. */
static int64_t node_hops(const topomatch_cluster_t *c, const char *a, const char *b)
{
	int64_t i = topomatch_cluster_node_find(c, a), j = topomatch_cluster_node_find(c, b);
	ck_assert_msg(i >= 0 && j >= 0, "%s or %s unknown", a, b);
	int64_t p = topomatch_cluster_pu_to_topology(c, topomatch_cluster_node_pus(c, i, NULL));
	int64_t q = topomatch_cluster_pu_to_topology(c, topomatch_cluster_node_pus(c, j, NULL));
	return topomatch_topology_hops(topomatch_cluster_topology(c), p, q);
}

/* ----------------------------------------------------------- examples */

START_TEST(every_example_loads)
{
	static const struct {
		const char *file, *net;
		int64_t nodes, pus;
	} ex[] = {
		{ "plafrim2-fattree.yaml", "fattree", 88, 2112 },
		{ "bgp-torus.yaml", "torus", 1024, 4096 },
		{ "irregular-tree.yaml", "tree", 36, 576 },
		{ "dragonfly.yaml", "dragonfly", 72, 1152 },
		{ "graph-example.yaml", "graph", 8, 32 },
		{ "local-test-cluster.yaml", "tree", 4, 16 },
		{ "local-slurm-topology.yaml", "slurm", 4, 16 },
	};
	for (size_t k = 0; k < sizeof(ex) / sizeof(ex[0]); k++) {
		topomatch_cluster_t *c = load(conf(ex[k].file));
		ck_assert_str_eq(topomatch_cluster_network(c), ex[k].net);
		ck_assert_int_eq(topomatch_cluster_nnodes(c), ex[k].nodes);
		ck_assert_int_eq(topomatch_cluster_npu(c), ex[k].pus);
		topomatch_cluster_destroy(c);
	}
}
END_TEST

START_TEST(fattree_numbering)
{
	topomatch_cluster_t *c = load(conf("plafrim2-fattree.yaml"));
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	char text[256], name[64];
	topomatch_topology_describe(t, text, sizeof(text));
	ck_assert_str_eq(text, "tleaf 5 4 1 22 1 2 1 2 1 6 1");
	int64_t n, i = topomatch_cluster_node_find(c, "miriel017");
	ck_assert_int_eq(i, 16);
	ck_assert_int_eq(topomatch_cluster_node_pus(c, i, &n), 16 * 24);
	ck_assert_int_eq(n, 24);
	int64_t local;
	ck_assert_int_eq(topomatch_cluster_pu_node(c, 16 * 24 + 23, &local), 16);
	ck_assert_int_eq(local, 23);
	ck_assert_int_eq(topomatch_cluster_node_name(c, 87, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "miriel088");
	ck_assert_int_eq(topomatch_cluster_node_find(c, "miriel089"), -1);
	ck_assert_int_eq(topomatch_cluster_pu_node(c, 2112, NULL), -1);
	for (int64_t p = 0; p < topomatch_cluster_npu(c); p++)
		ck_assert_int_eq(topomatch_cluster_pu_from_topology(c,
				 topomatch_cluster_pu_to_topology(c, p)), p);
	int s, co, th;
	ck_assert_int_eq(topomatch_cluster_node_hw(c, 0, &s, &co, &th), 0);
	ck_assert_int_eq(s, 2);
	ck_assert_int_eq(co, 24);
	ck_assert_int_eq(th, 1);
	/* same leaf switch: up to it and down, 2 x 4 levels; across: 2 x 5 */
	ck_assert_int_eq(node_hops(c, "miriel001", "miriel022"), 8);
	ck_assert_int_eq(node_hops(c, "miriel022", "miriel023"), 10);
	topomatch_cluster_destroy(c);
}
END_TEST

/* ------------------------------------------------------ irregular trees */

START_TEST(irregular_tree_is_embedded)
{
	topomatch_cluster_t *c = load(conf("irregular-tree.yaml"));
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	char text[256];
	topomatch_topology_describe(t, text, sizeof(text));
	/* 3 leaf switches x the widest (16 nodes), costs 4 then 1 */
	ck_assert_str_eq(text, "tleaf 4 3 4 16 1 2 1 8 1");
	ck_assert_int_eq(topomatch_topology_npu(t), 768);
	ck_assert_int_eq(node_hops(c, "cpu01", "cpu16"), 6);
	ck_assert_int_eq(node_hops(c, "cpu16", "cpu17"), 8);
	ck_assert_int_eq(node_hops(c, "cpu28", "gpu1"), 8);
	/* gpu1 is the first node under leaf3: position 32 of the 48 */
	int64_t g = topomatch_cluster_node_find(c, "gpu1");
	ck_assert_int_eq(topomatch_cluster_pu_to_topology(c, topomatch_cluster_node_pus(c, g,
							   NULL)), 32 * 16);
	ck_assert_int_eq(topomatch_cluster_pu_from_topology(c, 28 * 16), -1);
	topomatch_cluster_destroy(c);
}
END_TEST

/* An 8 x 8 stencil on the irregular tree: only real PUs, deterministic,
 * fewer hop-bytes than the natural placement. */
START_TEST(map_avoids_empty_positions)
{
	topomatch_cluster_t *c = load(conf("irregular-tree.yaml"));
	topomatch_affinity_t *st, *sh;
	char err[TOPOMATCH_ERRLEN];
	const int dims[2] = { 16, 32 };
	ck_assert_int_eq(topomatch_gen_stencil(2, dims, 5, 0, NULL, &st, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_shuffle(st, 3, &sh, err), TOPOMATCH_OK);
	int64_t n = 512, pu[512], again[512], tpu[512];
	topomatch_map_result_t r;
	ck_assert_msg(topomatch_cluster_map(c, sh, NULL, pu, &r, err) == 0, "%s", err);
	ck_assert_int_eq(topomatch_cluster_map(c, sh, NULL, again, NULL, err), 0);
	ck_assert_mem_eq(pu, again, sizeof(pu));
	ck_assert_str_eq(r.mapper, "topomatch-const");
	unsigned char used[576] = { 0 };
	for (int64_t i = 0; i < n; i++) {
		ck_assert(pu[i] >= 0 && pu[i] < 576);
		ck_assert(!used[pu[i]]);
		used[pu[i]] = 1;
		tpu[i] = topomatch_cluster_pu_to_topology(c, pu[i]);
	}
	topomatch_metrics_t m, mrr;
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	ck_assert_int_eq(topomatch_metrics_compute(sh, t, tpu, &m, err), 0);
	for (int64_t i = 0; i < n; i++)
		tpu[i] = topomatch_cluster_pu_to_topology(c, i);
	ck_assert_int_eq(topomatch_metrics_compute(sh, t, tpu, &mrr, err), 0);
	ck_assert_double_lt(m.hop_bytes, mrr.hop_bytes);
	/* constraints are cluster PUs too: the last node only */
	int64_t allowed[16];
	for (int k = 0; k < 16; k++)
		allowed[k] = 560 + k;
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = 16;
	topomatch_affinity_t *small;
	const int d4[2] = { 4, 4 };
	ck_assert_int_eq(topomatch_gen_stencil(2, d4, 5, 0, NULL, &small, err), 0);
	ck_assert_int_eq(topomatch_cluster_map(c, small, &o, pu, NULL, err), 0);
	for (int k = 0; k < 16; k++)
		ck_assert(pu[k] >= 560 && pu[k] < 576);
	topomatch_affinity_destroy(small);
	topomatch_affinity_destroy(st);
	topomatch_affinity_destroy(sh);
	topomatch_cluster_destroy(c);
}
END_TEST

START_TEST(heterogeneous_nodes)
{
	topomatch_cluster_t *c = load(tm_data("cluster/hetero.yaml"));
	ck_assert_int_eq(topomatch_cluster_npu(c), 2 * 8 + 2 * 16);
	ck_assert_int_eq(topomatch_topology_npu(topomatch_cluster_topology(c)), 4 * 16);
	int64_t n;
	ck_assert_int_eq(topomatch_cluster_node_pus(c, 2, &n), 16);
	ck_assert_int_eq(n, 16);
	/* small1's PU 4 is its second socket's first core: position 8 */
	ck_assert_int_eq(topomatch_cluster_pu_to_topology(c, 4), 8);
	ck_assert_int_eq(topomatch_cluster_pu_from_topology(c, 4), -1);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * The topology.conf import keeps the switch tree's node-to-node distances:
 * expected = the switch path between the nodes' switches (a parent table
 * written here by hand) + 2 links node-switch + 2 x 2 node levels.
 */
static int64_t switch_dist(const int *parent, int a, int b)
{
	int depth[8], da = 0, db = 0;
	for (int s = 0; s < 8; s++) {
		depth[s] = 0;
		for (int p = s; parent[p] >= 0; p = parent[p])
			depth[s]++;
	}
	int64_t d = 0;
	for (da = a, db = b; da != db; d++) {
		if (depth[da] >= depth[db])
			da = parent[da];
		else
			db = parent[db];
	}
	return d;
}

START_TEST(slurm_import_keeps_distances)
{
	static const struct {
		const char *yaml;
		int parent[8];         /* switch -> parent switch */
		const char *node[8];   /* the nodes, */
		int sw[8];             /* each with its switch */
		const char *maps_as;
	} cases[] = {
		/* switches: 0 top, 1 mid, 2 l1, 3 l2, 4 l3 */
		{ "cluster/depth.yaml", { -1, 0, 1, 1, 0 },
		  { "a1", "a3", "a4", "a5", "b1", "b2", NULL }, { 2, 2, 3, 3, 4, 4 }, "graph" },
		/* switches: 0 root, 1 m1, 2 m2, 3 s1, 4 s2, 5 s3 */
		{ "cluster/fanout.yaml", { -1, 0, 0, 1, 1, 2 },
		  { "c1", "c3", "c4", "c5", "c6", NULL }, { 3, 3, 4, 5, 5 }, "tree" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		topomatch_cluster_t *c = load(tm_data(cases[k].yaml));
		int kind = topomatch_topology_kind(topomatch_cluster_topology(c));
		ck_assert_int_eq(kind, strcmp(cases[k].maps_as, "tree") ? TOPOMATCH_TOPO_GRAPH
									 : TOPOMATCH_TOPO_TREE);
		/* the YAML import-slurm writes gives the same distances again */
		char path[] = "/tmp/tm_import_XXXXXX";
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");
		char conf_path[4096], err[TOPOMATCH_ERRLEN];
		snprintf(conf_path, sizeof(conf_path), "%s", tm_data(cases[k].yaml));
		strcpy(strrchr(conf_path, '.'), ".conf");
		ck_assert_msg(topomatch_cluster_import_slurm(conf_path, NULL, "imp", f, err) == 0,
			      "%s", err);
		fclose(f);
		/* the placeholder hardware has one PU: compare node to node */
		topomatch_cluster_t *imp;
		char yaml[64];
		snprintf(yaml, sizeof(yaml), "%s.yaml", path);
		ck_assert_int_eq(rename(path, yaml), 0);
		ck_assert_msg(topomatch_cluster_load(yaml, &imp, err) == 0, "%s", err);
		unlink(yaml);
		for (int i = 0; cases[k].node[i]; i++)
			for (int j = 0; cases[k].node[j]; j++) {
				const char *a = cases[k].node[i], *b = cases[k].node[j];
				int64_t sd = switch_dist(cases[k].parent, cases[k].sw[i],
							 cases[k].sw[j]);
				int64_t want = i == j ? 0 : sd + 2 + 4;
				ck_assert_msg(node_hops(c, a, b) == want, "%s: %s-%s %lld, want %lld",
					      cases[k].yaml, a, b, (long long)node_hops(c, a, b),
					      (long long)want);
				ck_assert_int_eq(node_hops(imp, a, b), i == j ? 0 : sd + 2);
			}
		topomatch_cluster_destroy(imp);
		topomatch_cluster_destroy(c);
	}
}
END_TEST

/* --------------------------------------------------------- grids, graphs */

START_TEST(mesh_node_order)
{
	topomatch_cluster_t *c = load(tm_data("cluster/mesh-order.yaml"));
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_MESH);
	/* node_order yx: m1 is one step along y (router 4), m2 along x */
	ck_assert_int_eq(topomatch_cluster_pu_to_topology(c, 2), 4 * 2);
	ck_assert_int_eq(topomatch_cluster_pu_to_topology(c, 4), 1 * 2);
	ck_assert_int_eq(node_hops(c, "m0", "m1"), 1 + 2);
	ck_assert_int_eq(node_hops(c, "m0", "m7"), 4 + 2); /* (3,1): no wrap */
	topomatch_cluster_destroy(c);
}
END_TEST

START_TEST(torus_wraps)
{
	topomatch_cluster_t *c = load(conf("bgp-torus.yaml"));
	ck_assert_int_eq(topomatch_topology_kind(topomatch_cluster_topology(c)),
			 TOPOMATCH_TOPO_TORUS);
	/* bgp0007 is x = 7: one hop from x = 0 around the ring */
	ck_assert_int_eq(node_hops(c, "bgp0000", "bgp0007"), 1 + 2);
	ck_assert_int_eq(node_hops(c, "bgp0000", "bgp0004"), 4 + 2);
	topomatch_cluster_destroy(c);
}
END_TEST

START_TEST(dragonfly_one_global_hop)
{
	topomatch_cluster_t *c = load(conf("dragonfly.yaml"));
	int64_t n = topomatch_cluster_nnodes(c), worst = 0;
	char a[32], b[32];
	for (int64_t i = 0; i < n; i += 2)
		for (int64_t j = i + 2; j < n; j += 2) {
			topomatch_cluster_node_name(c, i, a, sizeof(a));
			topomatch_cluster_node_name(c, j, b, sizeof(b));
			int64_t h = node_hops(c, a, b);
			worst = h > worst ? h : worst;
		}
	/* local, global, local between routers; the node links; one node
	 * level (hwloc drops the single package) */
	ck_assert_int_eq(worst, 3 + 2 + 2);
	/* d001/d002 share a router; d003 is on the next router of the group */
	ck_assert_int_eq(node_hops(c, "d001", "d002"), 2 + 2);
	ck_assert_int_eq(node_hops(c, "d001", "d003"), 1 + 2 + 2);
	/* the switches' tables: none before, 3 bytes a pair of its 36
	 * routers after, the same hops */
	char err[TOPOMATCH_ERRLEN];
	ck_assert_uint_eq(topomatch_cluster_table_bytes(c), 0);
	ck_assert_int_eq(topomatch_cluster_precompute(c, err), 0);
	ck_assert_uint_eq(topomatch_cluster_table_bytes(c), 36 * 36 * 3);
	ck_assert_int_eq(node_hops(c, "d001", "d003"), 1 + 2 + 2);
	topomatch_cluster_destroy(c);
	/* a tree needs none */
	c = load(conf("curie-fattree.yaml"));
	ck_assert_int_eq(topomatch_cluster_precompute(c, err), 0);
	ck_assert_uint_eq(topomatch_cluster_table_bytes(c), 0);
	topomatch_cluster_destroy(c);
}
END_TEST

START_TEST(graph_costs)
{
	topomatch_cluster_t *c = load(conf("graph-example.yaml"));
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	/* the chord sw0-sw2 is one hop; the node links; one node level */
	ck_assert_int_eq(node_hops(c, "r1", "r5"), 1 + 2 + 2);
	int64_t p = topomatch_cluster_pu_to_topology(c, 0);
	int64_t q = topomatch_cluster_pu_to_topology(c, 16);
	/* over sw1 (two links of cost 1) or the chord (cost 2): 2 either way */
	ck_assert_double_eq(topomatch_topology_cost(t, p, q), 2 + 2 + 2);
	topomatch_cluster_destroy(c);
}
END_TEST

/* Groups that repeat a node type share its description (loaded once):
 * each node still gets its own PUs, OS numbers and shape. */
START_TEST(repeated_hardware)
{
	static const char yaml[] =
		"cluster: rep\nnodes:\n"
		"  - names: a[1-2]\n    hardware: \"pack:2 core:2 pu:2\"\n"
		"  - names: b1\n    hardware: \"pack:1 core:3 pu:1\"\n"
		"  - names: c[1-2]\n    hardware: \"pack:2 core:2 pu:2\"\n"
		"network:\n  type: tree\n  switches:\n"
		"    - {name: top, nodes: \"a[1-2],b1,c[1-2]\"}\n";
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "rep.yaml", NULL, &c,
						    err) == 0, "%s", err);
	ck_assert_int_eq(topomatch_cluster_npu(c), 8 + 8 + 3 + 8 + 8);
	static const char *const names[] = { "a2", "b1", "c1", "c2" };
	static const int want_pus[] = { 8, 3, 8, 8 }, want_threads[] = { 2, 1, 2, 2 };
	for (int k = 0; k < 4; k++) {
		int64_t node = topomatch_cluster_node_find(c, names[k]), cnt;
		int64_t first = topomatch_cluster_node_pus(c, node, &cnt);
		int s, co, th;
		ck_assert_int_eq(cnt, want_pus[k]);
		ck_assert_int_eq(topomatch_cluster_node_hw(c, node, &s, &co, &th), 0);
		ck_assert_int_eq(th, want_threads[k]);
		unsigned char seen[8] = { 0 };
		for (int64_t p = first; p < first + cnt; p++) {
			int os = topomatch_cluster_pu_os_index(c, p);
			ck_assert(os >= 0 && os < cnt && !seen[os]);
			seen[os] = 1;
		}
	}
	topomatch_cluster_destroy(c);
}
END_TEST

/* hardware_xml, relative to the YAML file; PUs are hardware threads */
START_TEST(xml_hardware_threads)
{
	topomatch_cluster_t *c = load(tm_data("cluster/xml-smt.yaml"));
	int s, co, th;
	ck_assert_int_eq(topomatch_cluster_node_hw(c, 1, &s, &co, &th), 0);
	ck_assert_int_eq(s, 2);
	ck_assert_int_eq(co, 16);
	ck_assert_int_eq(th, 2);
	ck_assert_int_eq(topomatch_cluster_npu(c), 2 * 32);
	/* every OS CPU of a node once */
	unsigned char seen[32] = { 0 };
	for (int64_t p = 32; p < 64; p++) {
		int os = topomatch_cluster_pu_os_index(c, p);
		ck_assert(os >= 0 && os < 32 && !seen[os]);
		seen[os] = 1;
	}
	/* hwloc logical order: the threads of a core, then the next core */
	int so, cr, t;
	ck_assert_int_eq(topomatch_cluster_pu_place(c, 32 + 1, &so, &cr, &t), 0);
	ck_assert(so == 0 && cr == 0 && t == 1);
	ck_assert_int_eq(topomatch_cluster_pu_place(c, 32 + 17, &so, &cr, &t), 0);
	ck_assert(so == 1 && cr == 0 && t == 1);
	ck_assert_int_eq(topomatch_cluster_pu_place(c, 64, NULL, NULL, NULL), TOPOMATCH_EINVAL);
	/* an allocation's PUs, node by node in the list's order */
	int64_t *pus, npus;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_cluster_hostlist_pus(c, "h2,h1", &pus, &npus, err), 0);
	ck_assert_int_eq(npus, 64);
	ck_assert_int_eq(pus[0], 32);
	ck_assert_int_eq(pus[32], 0);
	free(pus);
	ck_assert_int_eq(topomatch_cluster_hostlist_pus(c, "h[1-3]", &pus, &npus, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "node h3 is not in cluster smt");
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * The scheduler's case: 16 nodes of 16 cores under 4 leaf switches, 10
 * of them free, scattered: only s2 (n05-n08) has 4 free nodes.  Their PUs
 * in free_pus (room for 160); returns the cluster.
 */
static topomatch_cluster_t *sched_case(int64_t *free_pus, int64_t *n)
{
	static const char yaml[] =
		"cluster: sel\nnodes:\n  - names: n[01-16]\n    hardware: \"pack:2 core:8 pu:1\"\n"
		"network:\n  type: tree\n  switches:\n    - {name: top, switches: \"s[1-4]\"}\n"
		"    - {name: s1, nodes: \"n[01-04]\"}\n    - {name: s2, nodes: \"n[05-08]\"}\n"
		"    - {name: s3, nodes: \"n[09-12]\"}\n    - {name: s4, nodes: \"n[13-16]\"}\n";
	static const char *const free_nodes[] = { "n01", "n02", "n05", "n06", "n07",
						  "n08", "n09", "n14", "n15", "n16" };
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "sel.yaml", NULL, &c,
						    err) == 0, "%s", err);
	*n = 0;
	for (int k = 0; k < 10; k++) {
		int64_t cnt, first = topomatch_cluster_node_pus(
				     c, topomatch_cluster_node_find(c, free_nodes[k]), &cnt);
		for (int64_t j = 0; j < cnt; j++)
			free_pus[(*n)++] = first + j;
	}
	return c;
}

/*
 * A 64-task job that fills 4 nodes and whose groups of 16 talk most: the
 * only leaf switch with 4 free nodes takes the whole job; the first free
 * nodes in order (what a topology-blind choice takes) span two switches.
 */
START_TEST(select_gathers_under_one_switch)
{
	int64_t allowed[160], n;
	topomatch_cluster_t *c = sched_case(allowed, &n);
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *h, *sh;
	const int arity[2] = { 16, 4 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, arity, 1000, 10, 0.1, 1, &h, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(h, 5, &sh, err), 0);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = n;
	int64_t pu[64], nodes[16], nn;
	ck_assert_msg(topomatch_cluster_select(c, sh, &o, pu, nodes, &nn, NULL, err) == 0, "%s",
		      err);
	ck_assert_int_eq(nn, 4);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(nodes[k], 4 + k); /* n05-n08, under s2 */
	o.allowed = NULL;
	ck_assert_int_eq(topomatch_cluster_select(c, sh, &o, pu, nodes, &nn, NULL, err),
			 TOPOMATCH_EINVAL);
	topomatch_affinity_destroy(h);
	topomatch_affinity_destroy(sh);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * --cpus-per-task: slots of per_slot PUs of one node, in cluster order,
 * from free PUs listed in any order (duplicates once); a node's short
 * last run is left out; then a 16-task job of 4 CPUs per task whose
 * groups of 4 talk most still fills one switch's free nodes.
 */
START_TEST(slots_for_cpus_per_task)
{
	static const char yaml[] =
		"cluster: sl\nnodes:\n  - names: n[1-4]\n    hardware: \"pack:2 core:2 pu:2\"\n"
		"network:\n  type: fattree\n  levels:\n    - {arity: 4, cost: 10}\n";
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "sl.yaml", NULL, &c,
						    err) == 0, "%s", err);
	const int64_t pus[] = { 7, 6, 5, 4, 3, 2, 1, 0, 0, 15, 12, 11, 9, 8, 16, 17 };
	int64_t slot[16], ns = -1;
	ck_assert_msg(topomatch_cluster_slots(c, pus, 16, 3, slot, &ns, err) == 0, "%s", err);
	ck_assert_int_eq(ns, 3);
	const int64_t want[] = { 0, 1, 2, 3, 4, 5, 8, 9, 11 };
	for (int k = 0; k < 9; k++)
		ck_assert_int_eq(slot[k], want[k]);
	ck_assert_int_eq(topomatch_cluster_slots(c, pus, 16, 1, slot, &ns, err), 0);
	ck_assert_int_eq(ns, 15); /* 0 listed twice */
	ck_assert_int_eq(topomatch_cluster_slots(c, pus, 0, 2, slot, &ns, err), 0);
	ck_assert_int_eq(ns, 0);
	ck_assert_int_eq(topomatch_cluster_slots(c, pus, 16, 0, slot, &ns, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "0 PUs per task");
	const int64_t bad[] = { 1, 32 };
	ck_assert_int_eq(topomatch_cluster_slots(c, bad, 2, 1, slot, &ns, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "PU 32 is not in the cluster");
	topomatch_cluster_destroy(c);
}
END_TEST

START_TEST(select_slots_gather_under_one_switch)
{
	int64_t free_pus[160], n, slot[160], ns, first[40];
	topomatch_cluster_t *c = sched_case(free_pus, &n);
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_cluster_slots(c, free_pus, n, 4, slot, &ns, err), 0);
	ck_assert_int_eq(ns, 40);
	for (int64_t s = 0; s < ns; s++)
		first[s] = slot[4 * s];
	topomatch_affinity_t *h, *sh;
	const int arity[2] = { 4, 4 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, arity, 1000, 10, 0.1, 1, &h, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(h, 3, &sh, err), 0);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = first;
	o.nallowed = ns;
	int64_t pu[16], nodes[16], nn;
	ck_assert_msg(topomatch_cluster_select(c, sh, &o, pu, nodes, &nn, NULL, err) == 0, "%s",
		      err);
	ck_assert_int_eq(nn, 4);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(nodes[k], 4 + k); /* n05-n08, under s2 */
	topomatch_affinity_destroy(h);
	topomatch_affinity_destroy(sh);
	topomatch_cluster_destroy(c);
}
END_TEST

/* Weight of the pattern between tasks on different nodes of pu[]. */
static double node_cut(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
		       const int64_t *pu)
{
	topomatch_csr_t d = topomatch_affinity_directed(a);
	double cut = 0;
	for (int64_t i = 0; i < d.n; i++)
		for (int64_t e = d.rowptr[i]; e < d.rowptr[i + 1]; e++)
			if (topomatch_cluster_pu_node(c, pu[i], NULL) !=
			    topomatch_cluster_pu_node(c, pu[d.col[e]], NULL))
				cut += d.w[e];
	return cut;
}

/*
 * A job mapped in blocks, node by node (MaxTasks; issue 20, point 5): a
 * 4x4x4 stencil of 64 tasks on the scheduler's case goes in blocks of a
 * node's 16 PUs to the 4 free nodes under s2, each task on its own PU.
 * Its blocks are grown (4x2x2 bricks: 2 x 16 links of 1 between nodes,
 * both ways, 64, where the grid order's 4x4 planes cut 96), in grid
 * order and shuffled alike, far below the shuffled order's own blocks.
 */
START_TEST(select_blocks_node_by_node)
{
	int64_t allowed[160], n;
	topomatch_cluster_t *c = sched_case(allowed, &n);
	char err[TOPOMATCH_ERRLEN];
	const int dims[3] = { 4, 4, 4 };
	const double w[3] = { 1, 1, 1 };
	topomatch_affinity_t *s, *sh, *q;
	ck_assert_int_eq(topomatch_gen_stencil(3, dims, 7, 0, w, &s, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(s, 7, &sh, err), 0);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = n;
	int64_t pu[64], nodes[16], nn, b, order[64];
	topomatch_map_result_t res;
	ck_assert_int_eq(topomatch_cluster_block_size(c, allowed, n, 1, 64), 16);
	ck_assert_int_eq(topomatch_cluster_block_size(c, allowed, n, 2, 64), 8);
	ck_assert_int_eq(topomatch_cluster_block_size(c, allowed, n, 1, 161), 0);
	for (int shuffled = 0; shuffled < 2; shuffled++) {
		const topomatch_affinity_t *a = shuffled ? sh : s;
		ck_assert_msg(topomatch_cluster_select_blocks(c, a, &o, 1, 0, NULL, 0, pu, nodes,
							      &nn, &b, &res, NULL, err) == 0, "%s", err);
		ck_assert_int_eq(b, 16);
		ck_assert_int_eq(nn, 4);
		for (int k = 0; k < 4; k++)
			ck_assert_int_eq(nodes[k], 4 + k); /* n05-n08, under s2 */
		unsigned char seen[256] = { 0 };
		for (int t = 0; t < 64; t++) {
			ck_assert_msg(pu[t] >= 64 && pu[t] < 128, "task %d on PU %lld", t,
				      (long long)pu[t]);
			ck_assert_msg(!seen[pu[t]]++, "PU %lld twice", (long long)pu[t]);
		}
		double cut = node_cut(c, a, pu);
		ck_assert_double_eq(cut, 64);
		if (shuffled) {
			ck_assert_int_eq(topomatch_affinity_blocks(sh, 16, order, &q, err), 0);
			ck_assert_int_eq(topomatch_affinity_ntasks(q), 4);
			ck_assert_double_eq(topomatch_affinity_total(q), cut);
			topomatch_affinity_destroy(q);
			int64_t given[64];
			for (int t = 0; t < 64; t++)
				given[t] = 64 + t; /* the shuffled order's blocks */
			ck_assert_double_gt(node_cut(c, sh, given), 2 * cut);
		}
	}
	o.nallowed = 32; /* two free nodes: 64 tasks do not fit */
	ck_assert_int_eq(topomatch_cluster_select_blocks(c, s, &o, 1, 0, NULL, 0, pu, nodes, &nn,
							 &b, &res, NULL, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "64 tasks of 1 PU do not fit on the 32 free PUs");
	o.nallowed = n;
	ck_assert_int_eq(topomatch_cluster_select_blocks(c, s, &o, 1, 3, NULL, 0, pu, nodes, &nn,
							 &b, &res, NULL, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "64 tasks in blocks of 16 are 4 blocks, more than 3");
	/* srun's layout of it: the same tasks on the same PUs */
	int64_t spu[64], slot[160], first[160], ns;
	ck_assert_msg(topomatch_cluster_map_slots_blocks(c, s, allowed, n, 1, NULL, 64, slot, first,
							 &ns, spu, &res, err) == 0, "%s", err);
	ck_assert_int_eq(topomatch_cluster_select_blocks(c, s, &o, 1, 0, NULL, 0, pu, nodes, &nn,
							 &b, &res, NULL, err), 0);
	for (int t = 0; t < 64; t++)
		ck_assert_int_eq(spu[t], pu[t]);
	ck_assert_int_eq(topomatch_cluster_map_slots_blocks(c, s, allowed, n, 1, NULL, 0, slot,
							    first, &ns, spu, &res, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "at most 0 blocks: must be at least 1");
	ck_assert_int_eq(topomatch_affinity_blocks(s, 0, order, &q, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "blocks of 0 tasks");
	ck_assert_int_eq(topomatch_affinity_blocks(s, 100, order, &q, err), 0);
	ck_assert_int_eq(topomatch_affinity_ntasks(q), 1); /* one block of all 64 */
	topomatch_affinity_destroy(q);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(sh);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * srun's layout (topomatch_cluster_map_slots): the same 16 tasks of 4
 * CPUs each land on whole slots of n05-n08; 64 such tasks do not fit in
 * the 40 slots and the error says so.
 */
START_TEST(map_slots_as_srun)
{
	int64_t free_pus[160], n, slot[160], first[40], ns = -1, pu[64];
	topomatch_cluster_t *c = sched_case(free_pus, &n);
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *h, *sh, *big;
	topomatch_map_result_t res;
	const int arity[3] = { 4, 4, 4 };
	ck_assert_int_eq(topomatch_gen_hierarchical(2, arity, 1000, 10, 0.1, 1, &h, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(h, 3, &sh, err), 0);
	ck_assert_msg(topomatch_cluster_map_slots(c, sh, free_pus, n, 4, NULL, slot, first, &ns,
						  pu, &res, err) == 0, "%s", err);
	ck_assert_int_eq(ns, 40);
	for (int64_t s = 0; s < ns; s++)
		ck_assert_int_eq(first[s], slot[4 * s]);
	for (int k = 0; k < 16; k++) {
		ck_assert_int_ge(topomatch_cluster_pu_node(c, pu[k], NULL), 4);
		ck_assert_int_le(topomatch_cluster_pu_node(c, pu[k], NULL), 7);
		int64_t s = 0;
		while (s < ns && slot[4 * s] != pu[k])
			s++;
		ck_assert_msg(s < ns, "rank %d on PU %lld, not a slot's first", k, (long long)pu[k]);
	}
	ck_assert_int_eq(topomatch_gen_hierarchical(3, arity, 1000, 10, 0.1, 1, &big, err), 0);
	ck_assert_int_eq(topomatch_cluster_map_slots(c, big, free_pus, n, 4, NULL, slot, first, &ns,
						     pu, &res, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "64 tasks of 4 CPUs do not fit on 160 CPUs");
	topomatch_affinity_destroy(h);
	topomatch_affinity_destroy(sh);
	topomatch_affinity_destroy(big);
	topomatch_cluster_destroy(c);
}
END_TEST

/*
 * A torus, a dragonfly and a graph with a third of their nodes free
 * (every third node): `auto` maps a shuffled 8x4x4 stencil of 128 tasks on the
 * network's tree (cluster_abstract.c) onto the fewest nodes (8 of 16
 * PUs), with hop-bytes on the real network no higher than those of the
 * scotch mapper (default strategy) on the same free PUs, nor than the
 * floor measured when this was written: torus 961,600 (scotch 1,230,400),
 * dragonfly 980,800 (scotch 1,384,600), graph 1,003,200 (scotch 1,386,800).
 */
static void abstract_case(const char *yaml, double floor_hb)
{
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "net.yaml", NULL, &c,
						    err) == 0, "%s", err);
	int64_t nn = topomatch_cluster_nnodes(c), *allowed = malloc(sizeof(int64_t) * 16 * nn);
	int64_t m = 0;
	for (int64_t i = 0; i < nn; i += 3) {
		int64_t cnt, first = topomatch_cluster_node_pus(c, i, &cnt);
		for (int64_t k = 0; k < cnt; k++)
			allowed[m++] = first + k;
	}
	const int dims[3] = { 8, 4, 4 };
	const double w[3] = { 1000, 500, 100 };
	topomatch_affinity_t *st, *a;
	ck_assert_int_eq(topomatch_gen_stencil(3, dims, 7, 0, w, &st, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(st, 1, &a, err), 0);
	double hb[2];
	for (int v = 0; v < 2; v++) {
		topomatch_map_opts_t o;
		topomatch_map_opts_init(&o);
		o.allowed = allowed;
		o.nallowed = m;
		o.mapper = v ? "scotch" : NULL;
		int64_t pu[128], nodes[128], nused, tpu[128];
		topomatch_map_result_t res;
		topomatch_metrics_t met;
		ck_assert_msg(topomatch_cluster_select(c, a, &o, pu, nodes, &nused, &res, err) == 0,
			      "%s", err);
		for (int k = 0; k < 128; k++)
			tpu[k] = topomatch_cluster_pu_to_topology(c, pu[k]);
		ck_assert_int_eq(topomatch_metrics_compute(a, topomatch_cluster_topology(c), tpu,
							   &met, err), 0);
		hb[v] = met.hop_bytes;
		if (!v) {
			ck_assert_str_eq(res.mapper, "topomatch-const");
			ck_assert_int_eq(nused, 8);
		}
	}
	ck_assert_msg(hb[0] <= hb[1], "the network's tree: %g hop-bytes, Scotch %g", hb[0], hb[1]);
	ck_assert_msg(hb[0] <= floor_hb, "%g hop-bytes (Scotch %g), more than the floor %g", hb[0],
		      hb[1], floor_hb);
	free(allowed);
	topomatch_affinity_destroy(st);
	topomatch_affinity_destroy(a);
	topomatch_cluster_destroy(c);
}

START_TEST(auto_on_the_network_tree)
{
	abstract_case("cluster: t\nnodes:\n  - names: n[000-063]\n    hardware: \"pack:2 core:8 pu:1\"\n"
		      "network:\n  type: torus\n  dims: [4, 4, 4]\n", 961600);
	abstract_case("cluster: d\nnodes:\n  - names: n[000-063]\n    hardware: \"pack:2 core:8 pu:1\"\n"
		      "network:\n  type: dragonfly\n  groups: 4\n  routers_per_group: 4\n"
		      "  nodes_per_router: 4\n  global_links_per_router: 1\n", 980800);
	/* 16 switches of 4 nodes: a ring with chords to the switch 5 ahead */
	char yaml[4096];
	int n = snprintf(yaml, sizeof(yaml), "cluster: g\nnodes:\n  - names: n[000-063]\n"
			 "    hardware: \"pack:2 core:8 pu:1\"\nnetwork:\n  type: graph\n"
			 "  switches: s[00-15]\n  links:\n");
	for (int k = 0; k < 16; k++)
		n += snprintf(yaml + n, sizeof(yaml) - (size_t)n,
			      "    - [s%02d, s%02d]\n    - [s%02d, s%02d]\n", k, (k + 1) % 16, k,
			      (k + 5) % 16);
	n += snprintf(yaml + n, sizeof(yaml) - (size_t)n, "  attach:\n");
	for (int k = 0; k < 16; k++)
		n += snprintf(yaml + n, sizeof(yaml) - (size_t)n,
			      "    - {switch: s%02d, nodes: \"n[%03d-%03d]\"}\n", k, 4 * k, 4 * k + 3);
	abstract_case(yaml, 1003200);
}
END_TEST

/*
 * Many free PUs for a small job: the mapping works on the best-fit
 * subtree with room for 4 times the job (topomatch_cluster_select's
 * region), as Slurm's topology/tree picks switches, so that the whole
 * free switch s1 stays for a large job: a 4-task job goes under s3, the
 * free switch with the fewest free PUs that still has 16; with fewer free
 * PUs than 4 times the job, nothing is narrowed (s1 holds all of them).
 */
START_TEST(select_region_best_fit)
{
	static const char yaml[] =
		"cluster: r\nnodes:\n  - names: n[01-32]\n    hardware: \"core:4 pu:1\"\n"
		"network:\n  type: fattree\n  levels:\n    - {arity: 4}\n    - {arity: 8}\n";
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "r.yaml", NULL, &c, err) ==
		      0, "%s", err);
	/* s1 (n01-n08) all free, s2 none, s3 (n17-n24) 5 nodes, s4 3 nodes */
	int64_t allowed[128], m = 0;
	for (int i = 0; i < 32; i++) {
		int free_node = i < 8 || (i >= 16 && i < 21) || (i >= 24 && i < 27);
		for (int k = 0; free_node && k < 4; k++)
			allowed[m++] = 4 * i + k;
	}
	topomatch_affinity_t *a;
	ck_assert_int_eq(topomatch_gen_alltoall(4, 1, 0, &a, err), 0);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = m;
	int64_t pu[4], nodes[4], nn;
	ck_assert_msg(topomatch_cluster_select(c, a, &o, pu, nodes, &nn, NULL, err) == 0, "%s",
		      err);
	ck_assert_int_eq(nn, 1);
	ck_assert_int_ge(nodes[0], 16);
	ck_assert_int_le(nodes[0], 20);
	/* only s1's 32 PUs free: fewer than 4 x 16 for a 16-task job */
	topomatch_affinity_t *b;
	ck_assert_int_eq(topomatch_gen_alltoall(16, 1, 0, &b, err), 0);
	o.nallowed = 32;
	int64_t pu16[16], nodes16[16];
	ck_assert_msg(topomatch_cluster_select(c, b, &o, pu16, nodes16, &nn, NULL, err) == 0, "%s",
		      err);
	ck_assert_int_eq(nn, 4);
	ck_assert_int_lt(nodes16[3], 8);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_cluster_destroy(c);
}
END_TEST

/* --------------------------------------------------------------- errors */

static void expect_error(const char *yaml, const char *want)
{
	topomatch_cluster_t *c = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_cluster_load_buffer(yaml, strlen(yaml), "c.yaml", NULL, &c, err);
	ck_assert_msg(rc != TOPOMATCH_OK, "accepted: %s", yaml);
	ck_assert_ptr_null(c);
	ck_assert_contains(err, want);
}

#define HEAD "cluster: x\nnodes:\n  - names: n[01-04]\n    hardware: \"core:2 pu:1\"\n"

START_TEST(error_classes)
{
	expect_error(HEAD "network:\n  type: fattree\n  levels:\n    - arty: 4\n",
		     "c.yaml:8:7: unknown key 'arty' (did you mean 'arity'?)");
	expect_error(HEAD "network:\n  type: fattree\n  levels:\n    - arity: 3\n",
		     "c.yaml:8:5: levels: the arities give 3 node positions, but the node "
		     "groups list 4 nodes");
	expect_error(HEAD "network:\n  type: torus\n  dims: [3, 3]\n",
		     "c.yaml:7:9: dims: 9 routers x 1 node per router = 9 nodes, but the node "
		     "groups list 4");
	expect_error(HEAD "network:\n  type: tree\n  switches:\n"
			  "    - {name: top, switches: \"s[0-1]\"}\n"
			  "    - {name: s0, nodes: \"n[01-03]\"}\n"
			  "    - {name: s1, nodes: \"n[03-04]\"}\n",
		     "node n03 is attached to two switches");
	expect_error(HEAD "network:\n  type: tree\n  switches:\n"
			  "    - {name: top, nodes: \"n[01-03]\"}\n",
		     "node n04 is not attached to any switch");
	expect_error(HEAD "network:\n  type: tree\n  switches:\n"
			  "    - {name: top, nodes: \"n[01-05]\"}\n",
		     "unknown node n05 (not in any node group)");
	expect_error("cluster: x\nnodes:\n  - names: n[01-04]\n    hardware: \"core:2 pu:1\"\n"
		     "  - names: n[04-05]\n    hardware: \"core:2 pu:1\"\n"
		     "network:\n  type: fattree\n  levels:\n    - arity: 5\n",
		     "c.yaml:5:12: node n04 is listed twice (also at line 3)");
	expect_error("cluster: x\nnodes:\n  - names: n[01-0x]\n    hardware: \"core:2 pu:1\"\n",
		     "c.yaml:3:12: names: column");
	expect_error(HEAD "network:\n  type: fatree\n", "unknown network type 'fatree'");
	expect_error(HEAD "network:\n  levels: []\n", "c.yaml:6:3: network: missing 'type'");
	expect_error("cluster: x\nnodes:\n  - names: n1\n    hardware: \"core:2\"\n",
		     "c.yaml:4:15:");
	expect_error("cluster: x\nnodes:\n  - names: n1\n",
		     "give exactly one of 'hardware'");
	expect_error(HEAD "network:\n  type: torus\n  dims: [2, 2]\n  wrap: [true]\n",
		     "wrap: 1 values for 2 dimensions");
	expect_error(HEAD "network:\n  type: mesh\n  dims: [2, 2]\n  node_order: xx\n",
		     "node_order: expected each of the 2 dimension letters once");
	expect_error(HEAD "network:\n  type: dragonfly\n  groups: 4\n  routers_per_group: 1\n"
			  "  global_links_per_router: 1\n",
		     "4 groups need at least 3 global links per group");
	expect_error(HEAD "network:\n  type: graph\n  switches: s[0-1]\n  links:\n"
			  "    - [s0, s2]\n  attach:\n    - {switch: s0, nodes: \"n[01-04]\"}\n",
		     "c.yaml:9:12: unknown switch 's2'");
	expect_error(HEAD "network:\n  type: graph\n  switches: s[0-1]\n  links:\n"
			  "    - [s0, s0]\n  attach:\n    - {switch: s0, nodes: \"n[01-04]\"}\n",
		     "joins switch 's0' to itself");
	expect_error(HEAD "network:\n  type: tree\n  costs: [1, 2, 3]\n  switches:\n"
			  "    - {name: top, nodes: \"n[01-04]\"}\n",
		     "costs: 3 values for a switch tree of 1 levels");
	expect_error(HEAD "network:\n  type: slurm\n  file: /nonexistent/topology.conf\n",
		     "/nonexistent/topology.conf");
	expect_error(HEAD "network:\n  type: fattree\n  levels:\n    - {arity: 4, cost: -1}\n",
		     "cost: ");
	/* found by tests/fuzz/fuzz_cluster: a grid without dims crashed */
	expect_error(HEAD "network:\n  type: torus\n  nodes_per_router: 1\n",
		     "c.yaml:6:3: network: missing 'dims'");
	expect_error(HEAD "network:\n  type: mesh\n  dims: 4\n", "dims");
	expect_error("", "c.yaml: empty file");
	expect_error("cluster: x\nnodes: [\n", "c.yaml:");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cluster");
	TCase *tc = tcase_create("cluster");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_example_loads);
	tcase_add_test(tc, fattree_numbering);
	tcase_add_test(tc, irregular_tree_is_embedded);
	tcase_add_test(tc, map_avoids_empty_positions);
	tcase_add_test(tc, heterogeneous_nodes);
	tcase_add_test(tc, slurm_import_keeps_distances);
	tcase_add_test(tc, mesh_node_order);
	tcase_add_test(tc, torus_wraps);
	tcase_add_test(tc, dragonfly_one_global_hop);
	tcase_add_test(tc, graph_costs);
	tcase_add_test(tc, xml_hardware_threads);
	tcase_add_test(tc, repeated_hardware);
	tcase_add_test(tc, select_gathers_under_one_switch);
	tcase_add_test(tc, slots_for_cpus_per_task);
	tcase_add_test(tc, select_slots_gather_under_one_switch);
	tcase_add_test(tc, select_blocks_node_by_node);
	tcase_add_test(tc, map_slots_as_srun);
	tcase_add_test(tc, auto_on_the_network_tree);
	tcase_add_test(tc, select_region_best_fit);
	tcase_add_test(tc, error_classes);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}

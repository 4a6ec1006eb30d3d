/*
 * test_sim_model.c - the simulator's arithmetic: the run-time model, the
 * kill at the requested time, bounded slowdown, mean and nearest-rank
 * percentile, hop-bytes of a placement (against topomatch_metrics), the
 * pattern kinds and their sizes, the mix and its errors, host lists, and
 * a whole replay's summary on a stream worked out by hand.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "sim.h"

#include <math.h>
#include <unistd.h>

START_TEST(runtime_model)
{
	int killed;
	/* s = 0.2, HB 1.5 x the reference: 1000 x (0.8 + 0.2 x 1.5) = 1100 */
	ck_assert_double_eq_tol(sim_model_runtime(1000, 0.2, 150, 100, 5000, &killed), 1100,
				1e-9);
	ck_assert_int_eq(killed, 0);
	/* better than the reference: 1000 x (0.8 + 0.2 x 0.5) = 900 */
	ck_assert_double_eq_tol(sim_model_runtime(1000, 0.2, 50, 100, -1, &killed), 900, 1e-9);
	/* no communication: unchanged, whatever HB */
	ck_assert_double_eq(sim_model_runtime(1000, 0.2, 0, 0, -1, &killed), 1000);
	/* s = 0: unchanged; s = 1: proportional to hop-bytes */
	ck_assert_double_eq(sim_model_runtime(1000, 0, 300, 100, -1, &killed), 1000);
	ck_assert_double_eq_tol(sim_model_runtime(1000, 1, 300, 100, -1, &killed), 3000, 1e-9);
	/* killed at the requested time, as Slurm does */
	ck_assert_double_eq(sim_model_runtime(1000, 0.5, 300, 100, 1500, &killed), 1500);
	ck_assert_int_eq(killed, 1);
	/* a trace run already past its requested time is cut too */
	ck_assert_double_eq(sim_model_runtime(1200, 0.2, 100, 100, 1000, &killed), 1000);
	ck_assert_int_eq(killed, 1);
}
END_TEST

START_TEST(statistics)
{
	ck_assert_double_eq(sim_bounded_slowdown(0, 5), 1);      /* max(1, 5/10) */
	ck_assert_double_eq(sim_bounded_slowdown(90, 10), 10);   /* 100/10 */
	ck_assert_double_eq(sim_bounded_slowdown(30, 60), 1.5);  /* 90/60 */
	ck_assert_double_eq(sim_bounded_slowdown(15, 2), 1.7);   /* 17/10 */
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 20 - i; /* 20, 19, ..., 1: percentile copies and sorts */
	ck_assert_double_eq(sim_percentile(x, 20, 95), 19);  /* rank ceil(19) */
	ck_assert_double_eq(sim_percentile(x, 20, 100), 20);
	ck_assert_double_eq(sim_percentile(x, 20, 50), 10);
	ck_assert_double_eq(sim_percentile(x, 20, 0), 1);
	ck_assert_double_eq(x[0], 20); /* not sorted in place */
	ck_assert_double_eq(sim_percentile(x, 1, 95), 20);
	ck_assert_double_eq(sim_percentile(x, 0, 95), 0);
	ck_assert_double_eq(sim_mean(x, 20), 10.5);
	ck_assert_double_eq(sim_mean(x, 0), 0);
}
END_TEST

static topomatch_cluster_t *cluster(const char *yaml)
{
	topomatch_cluster_t *c;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_msg(topomatch_cluster_load_buffer(yaml, strlen(yaml), "t.yaml", NULL, &c, err) ==
		      TOPOMATCH_OK, "%s", err);
	return c;
}

/* 2 leaf switches x 2 nodes x (2 sockets x 2 cores): 16 PUs */
static const char small_yaml[] = "cluster: small\n"
				 "nodes:\n  - names: s[1-4]\n    hardware: \"pack:2 core:2 pu:1\"\n"
				 "network:\n  type: fattree\n  levels:\n"
				 "    - arity: 2\n    - arity: 2\n";

START_TEST(hop_bytes_of_placements)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(small_yaml);
	/* 0 -> 1 weighs 3, 1 -> 0 weighs 2, 2 -> 3 weighs 1 */
	int64_t src[] = { 0, 1, 2 }, dst[] = { 1, 0, 3 };
	double w[] = { 3, 2, 1 }, hb, hb_lib;
	topomatch_affinity_t *a;
	ck_assert(topomatch_affinity_create(4, 3, src, dst, w, NULL, &a, err) == 0);
	/* same socket (2 hops), then other leaf switch (2 x 4 levels = 8) */
	int64_t pu[] = { 0, 1, 4, 8 };
	ck_assert(sim_hop_bytes(c, a, pu, &hb, err) == TOPOMATCH_OK);
	ck_assert_double_eq(hb, 5 * 2 + 1 * 8);
	topomatch_metrics_t m;
	int64_t tpu[4];
	for (int i = 0; i < 4; i++)
		tpu[i] = topomatch_cluster_pu_to_topology(c, pu[i]);
	ck_assert(topomatch_metrics_compute(a, topomatch_cluster_topology(c), tpu, &m, err) == 0);
	hb_lib = m.hop_bytes;
	ck_assert_double_eq(hb, hb_lib);
	int64_t bad[] = { 0, 1, 4, 99 };
	ck_assert_int_eq(sim_hop_bytes(c, a, bad, &hb, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "task 3 on PU 99, not in the cluster");
	topomatch_affinity_destroy(a);
	topomatch_cluster_destroy(c);
}
END_TEST

/* ------------------------------------------------------------ patterns */

static topomatch_affinity_t *make(const sim_mix_t *mix, const char *kind, int64_t n,
				  int64_t id)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a;
	int e = -1;
	for (int i = 0; i < mix->n; i++)
		if (!strcmp(mix->e[i].name, kind))
			e = i;
	ck_assert_int_ge(e, 0);
	ck_assert_msg(sim_pattern_make(mix, e, n, 7, id, &a, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), n);
	return a;
}

static int64_t nnz_of(const sim_mix_t *mix, const char *kind, int64_t n)
{
	topomatch_affinity_t *a = make(mix, kind, n, 1);
	int64_t nnz = topomatch_affinity_nnz(a);
	topomatch_affinity_destroy(a);
	return nnz;
}

START_TEST(pattern_kinds)
{
	sim_mix_t mix;
	char err[TOPOMATCH_ERRLEN];
	ck_assert(sim_mix_parse(SIM_DEFAULT_MIX, NULL, &mix, err) == TOPOMATCH_OK);
	ck_assert_int_eq(mix.n, 5);
	/* 12 tasks: a 3 x 4 grid, 9 + 8 neighbour pairs, both ways */
	ck_assert_int_eq(nnz_of(&mix, "stencil2d", 12), 34);
	/* 13 tasks (prime): a 1 x 13 line */
	ck_assert_int_eq(nnz_of(&mix, "stencil2d", 13), 24);
	/* 24 tasks: 2 x 3 x 4, (1x3x4 + 2x2x4 + 2x3x3) pairs = 12 + 16 + 18 */
	ck_assert_int_eq(nnz_of(&mix, "stencil3d", 24), 2 * 46);
	ck_assert_int_eq(nnz_of(&mix, "alltoall", 5), 20);
	ck_assert_int_eq(nnz_of(&mix, "alltoall", 256), 256 * 255);
	/* beyond 256: Bruck's 9 partners (2^0 .. 2^8) each for 300 tasks */
	ck_assert_int_eq(nnz_of(&mix, "alltoall", 300), 300 * 9);
	ck_assert_int_eq(nnz_of(&mix, "tree", 8), 7);
	ck_assert_int_eq(nnz_of(&mix, "random", 20), 20 * SIM_RANDOM_DEGREE);
	ck_assert_int_eq(nnz_of(&mix, "random", 5), 5 * 4);
	ck_assert_int_eq(nnz_of(&mix, "stencil3d", 1), 0);
	/* the reduction tree: i sends to i with its lowest set bit cleared */
	topomatch_affinity_t *t = make(&mix, "tree", 8, 1);
	topomatch_csr_t c = topomatch_affinity_directed(t);
	const int64_t parent[8] = { -1, 0, 0, 2, 0, 4, 4, 6 };
	for (int64_t i = 1; i < 8; i++) {
		ck_assert_int_eq(c.rowptr[i + 1] - c.rowptr[i], 1);
		ck_assert_int_eq(c.col[c.rowptr[i]], parent[i]);
	}
	topomatch_affinity_destroy(t);
	/* random: the same job gets the same pattern, another job another */
	topomatch_affinity_t *r1 = make(&mix, "random", 64, 5), *r2 = make(&mix, "random", 64, 5),
			     *r3 = make(&mix, "random", 64, 6);
	topomatch_csr_t c1 = topomatch_affinity_directed(r1), c2 = topomatch_affinity_directed(r2),
			c3 = topomatch_affinity_directed(r3);
	ck_assert(!memcmp(c1.col, c2.col, (size_t)c1.rowptr[64] * sizeof(int64_t)));
	ck_assert(memcmp(c1.col, c3.col, (size_t)c1.rowptr[64] * sizeof(int64_t)) != 0);
	topomatch_affinity_destroy(r1);
	topomatch_affinity_destroy(r2);
	topomatch_affinity_destroy(r3);
	sim_mix_free(&mix);
}
END_TEST

START_TEST(mix_draws)
{
	sim_mix_t mix;
	char err[TOPOMATCH_ERRLEN], path[] = "/tmp/tm-sim-patXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "0 1 5\n1 2 5\n2 3 5\n3 0 5\n"); /* a 4-task ring, triplets */
	fclose(f);
	char spec[256];
	snprintf(spec, sizeof(spec), "stencil2d=3,tree=1,file:%s=0.5", path);
	ck_assert_msg(sim_mix_parse(spec, NULL, &mix, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(mix.n, 3);
	ck_assert_str_eq(mix.e[2].name + strlen(mix.e[2].name) - 6, path + strlen(path) - 6);
	int count[3] = { 0 };
	for (int64_t id = 0; id < 4500; id++) {
		int e = sim_mix_draw(&mix, 1, id, 4);
		ck_assert_int_eq(e, sim_mix_draw(&mix, 1, id, 4)); /* from the seed */
		count[e]++;
		ck_assert_int_ne(sim_mix_draw(&mix, 1, id, 5), 2); /* file: 4 tasks only */
	}
	/* weights 3 : 1 : 0.5 of 4500 draws: 3000, 1000, 500 */
	ck_assert_msg(count[0] > 2800 && count[0] < 3200 && count[1] > 850 && count[1] < 1150 &&
		      count[2] > 400 && count[2] < 600, "%d %d %d", count[0], count[1], count[2]);
	topomatch_affinity_t *a = make(&mix, mix.e[2].name, 4, 3);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 4);
	ck_assert_double_eq(topomatch_affinity_total(a), 20);
	topomatch_affinity_destroy(a);
	sim_mix_free(&mix);
	/* none: a share of the jobs without a pattern */
	ck_assert(sim_mix_parse("none=1,tree=3", NULL, &mix, err) == TOPOMATCH_OK);
	int without = 0;
	for (int64_t id = 0; id < 2000; id++)
		without += sim_mix_draw(&mix, 1, id, 64) == -1;
	ck_assert_msg(without > 400 && without < 600, "%d of 2000 without", without);
	sim_mix_free(&mix);
	/* only a file: other sizes get no pattern */
	snprintf(spec, sizeof(spec), "file:%s", path);
	ck_assert(sim_mix_parse(spec, NULL, &mix, err) == TOPOMATCH_OK);
	ck_assert_int_eq(sim_mix_draw(&mix, 1, 9, 4), 0);
	ck_assert_int_eq(sim_mix_draw(&mix, 1, 9, 8), -1);
	sim_mix_free(&mix);
	unlink(path);
}
END_TEST

START_TEST(shuffled_kinds)
{
	/* shuffled:stencil2d: the natural stencil's weights on other ranks,
	 * the same for a job under every policy (seed, id), another job
	 * another order */
	sim_mix_t mix;
	char err[TOPOMATCH_ERRLEN];
	ck_assert(sim_mix_parse("stencil2d,shuffled:stencil2d", NULL, &mix, err) == TOPOMATCH_OK);
	ck_assert_str_eq(mix.e[1].name, "shuffled:stencil2d");
	topomatch_affinity_t *n, *a, *b, *c;
	ck_assert(sim_pattern_make(&mix, 0, 36, 1, 7, &n, err) == TOPOMATCH_OK);
	ck_assert(sim_pattern_make(&mix, 1, 36, 1, 7, &a, err) == TOPOMATCH_OK);
	ck_assert(sim_pattern_make(&mix, 1, 36, 1, 7, &b, err) == TOPOMATCH_OK);
	ck_assert(sim_pattern_make(&mix, 1, 36, 1, 8, &c, err) == TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_nnz(a), topomatch_affinity_nnz(n));
	ck_assert_double_eq(topomatch_affinity_total(a), topomatch_affinity_total(n));
	topomatch_csr_t cn = topomatch_affinity_directed(n), ca = topomatch_affinity_directed(a),
			cb = topomatch_affinity_directed(b), cc = topomatch_affinity_directed(c);
	int64_t m = cn.rowptr[36];
	ck_assert(memcmp(ca.col, cn.col, (size_t)m * sizeof(int64_t)) != 0);
	ck_assert(!memcmp(ca.col, cb.col, (size_t)m * sizeof(int64_t)));
	ck_assert(memcmp(ca.col, cc.col, (size_t)m * sizeof(int64_t)) != 0);
	topomatch_affinity_destroy(n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_affinity_destroy(c);
	sim_mix_free(&mix);
}
END_TEST

static void mix_error(const char *spec, int status, const char *want)
{
	sim_mix_t mix;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(sim_mix_parse(spec, NULL, &mix, err), status);
	ck_assert_str_eq(err, want);
}

START_TEST(mix_errors)
{
	mix_error("stencil2d,ring", TOPOMATCH_EINVAL,
		  "--patterns: unknown kind 'ring' (stencil2d, stencil3d, alltoall, tree, "
		  "random, none, file:PATH, scaled:PATH, profiles:DIR, shuffled:KIND)");
	mix_error("tree,shuffled:tree,shuffled:tree", TOPOMATCH_EINVAL,
		  "--patterns: 'shuffled:tree' is listed twice");
	mix_error("tree=x", TOPOMATCH_EINVAL, "--patterns: weight 'x' is not a number >= 0");
	mix_error("tree=-1", TOPOMATCH_EINVAL, "--patterns: weight '-1' is not a number >= 0");
	mix_error("tree,tree=2", TOPOMATCH_EINVAL, "--patterns: 'tree' is listed twice");
	mix_error("tree=0,random=0", TOPOMATCH_EINVAL, "--patterns: no kind has a positive weight");
	mix_error("", TOPOMATCH_EINVAL, "--patterns: the list is empty");
	mix_error("file:/nonexistent.mtx", TOPOMATCH_EIO,
		  "/nonexistent.mtx: cannot open: No such file or directory");
}
END_TEST

/* -------------------------------------------------------- host lists */

static const char *hostlist(const topomatch_cluster_t *c, const int64_t *nodes, int64_t n)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	sim_hostlist(c, nodes, n, f);
	fclose(f);
	return buf;
}

START_TEST(host_lists)
{
	topomatch_cluster_t *c = cluster("cluster: h\nnodes:\n"
					 "  - names: cpu[01-12]\n    hardware: \"core:2 pu:1\"\n"
					 "  - names: gpu[1-3]\n    hardware: \"core:2 pu:1\"\n"
					 "  - names: login\n    hardware: \"core:2 pu:1\"\n"
					 "network:\n  type: fattree\n  levels:\n    - arity: 16\n");
	ck_assert_str_eq(hostlist(c, (int64_t[]){ 0, 1, 2, 4, 9 }, 5), "cpu[01-03,05,10]");
	ck_assert_str_eq(hostlist(c, (int64_t[]){ 6 }, 1), "cpu07");
	ck_assert_str_eq(hostlist(c, (int64_t[]){ 11, 12, 13, 15 }, 4), "cpu12,gpu[1-2],login");
	ck_assert_str_eq(hostlist(c, (int64_t[]){ 3, 5 }, 2), "cpu[04,06]");
	topomatch_cluster_destroy(c);
}
END_TEST

/* ------------------------------------------------------- a whole run */

START_TEST(replay_summary)
{
	/*
	 * small_yaml (4 nodes of 4 cores), slurm-linear, s = 0.5.  J1: 2
	 * nodes at 0, run 100, no pattern; J2: 4 nodes at 10 waits for J1
	 * (starts 100); J3: 1 node, 4-task all-to-all at 20, backfilled at
	 * 20 (ends by 20 + 50 <= 100) on s3, its block placement the
	 * compact reference one's shape: run 40 unchanged.
	 */
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(small_yaml);
	sim_machine_t m;
	sim_mix_t mix;
	ck_assert(sim_machine_init(&m, c, 0, err) == TOPOMATCH_OK);
	ck_assert(sim_mix_parse("alltoall", NULL, &mix, err) == TOPOMATCH_OK);
	sim_job_t jobs[] = {
		{ .id = 1, .submit = 0, .run = 100, .req = 100, .procs = 1, .nodes = 2 },
		{ .id = 2, .submit = 10, .run = 30, .req = 60, .procs = 16, .nodes = 4 },
		{ .id = 3, .submit = 20, .run = 40, .req = 50, .procs = 4, .nodes = 1 },
	};
	sim_stream_t s = { .job = jobs, .n = 3 };
	sim_config_t cfg = { .m = &m, .s = &s, .mix = &mix, .seed = 1, .share = 0.5,
			     .tm = { .seed = 1, .max_tasks = SIM_PLUGIN_MAX_TASKS } };
	ck_assert(sim_reference(&cfg, jobs, 0, 3, err) == TOPOMATCH_OK);
	ck_assert_int_eq(jobs[0].kind, 0);
	ck_assert_double_eq(jobs[0].hb_ref, 0); /* one task */
	ck_assert_double_gt(jobs[2].hb_ref, 0);
	sim_result_t r;
	ck_assert_msg(sim_run(&cfg, SIM_LINEAR, &r, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_double_eq(r.start[0], 0);
	ck_assert_double_eq(r.start[1], 100);
	ck_assert_double_eq(r.start[2], 20);
	ck_assert_double_eq(r.run[2], 40);
	ck_assert_double_eq(r.hb[2], jobs[2].hb_ref);
	ck_assert_int_eq(r.nodes[r.node_off[2]], 2); /* s3: s1 s2 are J1's */
	ck_assert_int_eq(r.switches[1], 2);
	sim_summary_t u;
	sim_summarize(&cfg, &r, &u);
	ck_assert_double_eq(u.makespan, 130);
	ck_assert_double_eq(u.mean_wait, 30);                   /* (0 + 90 + 0) / 3 */
	ck_assert_double_eq(u.p95_wait, 90);
	ck_assert_double_eq_tol(u.mean_bsld, (1 + 4 + 1) / 3.0, 1e-12); /* 120/30 */
	ck_assert_double_eq_tol(u.utilization, (2 * 100 + 4 * 30 + 40) / (4 * 130.0), 1e-12);
	ck_assert_double_eq(u.mean_hop_bytes_ratio, 1);
	ck_assert_double_eq(u.mean_switches, (1 + 2 + 1) / 3.0);
	ck_assert_int_eq(u.killed, 0);
	sim_result_free(&r);
	sim_mix_free(&mix);
	sim_machine_free(&m);
	topomatch_cluster_destroy(c);
}
END_TEST

/* ------------------------------------------------------- contention */

/* Two leaf switches of two one-PU nodes: n1 n2 | n3 n4 (tleaf 2 2 1 2 1):
 * 2 hops inside a leaf, 4 across. */
static const char c4_yaml[] = "cluster: c4\nnodes:\n  - names: n[1-4]\n"
			      "    hardware: \"core:1 pu:1\"\nnetwork:\n  type: fattree\n"
			      "  levels:\n    - arity: 2\n    - arity: 2\n";

/* A replay of jobs[] (alltoall patterns) with slurm-linear under model. */
static void replay_c4(sim_job_t *jobs, int64_t n, int model, double share, sim_result_t *r)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = cluster(c4_yaml);
	sim_machine_t m;
	sim_mix_t mix;
	ck_assert(sim_machine_init(&m, c, 0, err) == TOPOMATCH_OK);
	ck_assert_msg(sim_net_links(&m, err) == TOPOMATCH_OK, "%s", err);
	ck_assert(sim_mix_parse("alltoall", NULL, &mix, err) == TOPOMATCH_OK);
	sim_stream_t s = { .job = jobs, .n = n };
	sim_config_t cfg = { .m = &m, .s = &s, .mix = &mix, .seed = 1, .share = share,
			     .model = model, .tm = { .seed = 1, .max_tasks = SIM_PLUGIN_MAX_TASKS } };
	ck_assert(sim_reference(&cfg, jobs, 0, n, err) == TOPOMATCH_OK);
	ck_assert_msg(sim_run(&cfg, SIM_LINEAR, r, err) == TOPOMATCH_OK, "%s", err);
	sim_mix_free(&mix);
	sim_machine_free(&m);
	topomatch_cluster_destroy(c);
}

START_TEST(contention_shared_uplink)
{
	/*
	 * s = 0.5.  J0 holds n1 from 0 to 100 (one task: no traffic).  J1
	 * (2 tasks) gets n2 n3 at 0: across the leaves, HB = 2 x 4 against
	 * HB_ref = 2 x 2 on n1 n2, r = 2, alone T = 1000 x (0.5 + 0.5 x 2)
	 * = 1500.  J2 waits for 2 nodes and gets n1 n4 at 100: the four
	 * switch-to-switch links carry both jobs, each at its full rate
	 * (u = 1 on every link of both); sigma = 0.5 x 2 / 1.5 = 2/3, so
	 * each meets rho = 1 + 2/3 on every message's route: HB_c = 5/3 HB,
	 * T = 1000 x (0.5 + 0.5 x 2 x 5/3) = 13000/6.  J1 did 100/1500 =
	 * 1/15 alone, the rest shared: ends 100 + 14/15 x 13000/6 =
	 * 2122.2; J2 then did 14/15 and ends alone 1/15 x 1500 = 100 later.
	 */
	sim_job_t jobs[] = {
		{ .id = 1, .submit = 0, .run = 100, .req = 10000, .procs = 1, .nodes = 1 },
		{ .id = 2, .submit = 0, .run = 1000, .req = 10000, .procs = 2, .nodes = 2 },
		{ .id = 3, .submit = 0, .run = 1000, .req = 10000, .procs = 2, .nodes = 2 },
	};
	sim_result_t r;
	replay_c4(jobs, 3, SIM_MODEL_CONTENTION, 0.5, &r);
	ck_assert_double_eq(jobs[1].hb_ref * 2, r.hb[1]);
	ck_assert_int_eq(r.nodes[r.node_off[1]], 1); /* n2 n3 */
	ck_assert_int_eq(r.nodes[r.node_off[1] + 1], 2);
	ck_assert_int_eq(r.nodes[r.node_off[2]], 0); /* n1 n4 */
	ck_assert_int_eq(r.nodes[r.node_off[2] + 1], 3);
	ck_assert_double_eq(r.end[0], 100);
	ck_assert_double_eq(r.start[2], 100);
	ck_assert_double_eq_tol(r.end[1], 100 + 14.0 / 15 * 13000 / 6, 1e-9);
	ck_assert_double_eq_tol(r.end[2], 200 + 14.0 / 15 * 13000 / 6, 1e-9);
	ck_assert_double_eq_tol(r.run[1], 100 + 14.0 / 15 * 13000 / 6, 1e-9);
	/* HB_c averaged over progress: 1/15 at HB, 14/15 at 5/3 HB */
	ck_assert_double_eq_tol(r.hbc[1] / r.hb[1], 1.0 / 15 + 14.0 / 15 * 5 / 3, 1e-12);
	ck_assert_double_eq_tol(r.hbc[2] / r.hb[2], 14.0 / 15 * 5 / 3 + 1.0 / 15, 1e-12);
	sim_result_free(&r);
	/* the hop-bytes model: 1500 each, J2 from 100 */
	replay_c4(jobs, 3, SIM_MODEL_HOP_BYTES, 0.5, &r);
	ck_assert_double_eq(r.end[1], 1500);
	ck_assert_double_eq(r.end[2], 1600);
	ck_assert_double_eq(r.hbc[1], r.hb[1]);
	sim_result_free(&r);
}
END_TEST

START_TEST(contention_disjoint_and_kill)
{
	/* J1 on n1 n2, J2 on n3 n4 from 0: no link in common, r = 1, both
	 * end at 1000 as alone. */
	sim_job_t jobs[] = {
		{ .id = 1, .submit = 0, .run = 1000, .req = 10000, .procs = 2, .nodes = 2 },
		{ .id = 2, .submit = 0, .run = 1000, .req = 10000, .procs = 2, .nodes = 2 },
	};
	sim_result_t r;
	replay_c4(jobs, 2, SIM_MODEL_CONTENTION, 0.5, &r);
	ck_assert_double_eq(r.end[0], 1000);
	ck_assert_double_eq(r.end[1], 1000);
	ck_assert_double_eq(r.hbc[0], r.hb[0]);
	ck_assert_int_eq(r.nkilled, 0);
	sim_result_free(&r);
	/* the shared case with J1 and J2 limited to 2000 s: J1 (would end at
	 * 2122.2) is killed at 2000; J2 then goes on alone: by 2000 it did
	 * 1900 / (13000/6) = 0.8769, the rest at 1500: ends 2184.6 */
	sim_job_t k[] = {
		{ .id = 1, .submit = 0, .run = 100, .req = 10000, .procs = 1, .nodes = 1 },
		{ .id = 2, .submit = 0, .run = 1000, .req = 2000, .procs = 2, .nodes = 2 },
		{ .id = 3, .submit = 0, .run = 1000, .req = 3000, .procs = 2, .nodes = 2 },
	};
	replay_c4(k, 3, SIM_MODEL_CONTENTION, 0.5, &r);
	ck_assert_double_eq(r.end[1], 2000);
	ck_assert_int_eq(r.killed[1], 1);
	ck_assert_int_eq(r.killed[2], 0);
	ck_assert_int_eq(r.nkilled, 1);
	ck_assert_double_eq_tol(r.end[2], 2000 + (1 - 1900 / (13000.0 / 6)) * 1500, 1e-9);
	sim_result_free(&r);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("topomatch-sim-model");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runtime_model);
	tcase_add_test(tc, statistics);
	tcase_add_test(tc, hop_bytes_of_placements);
	tcase_add_test(tc, pattern_kinds);
	tcase_add_test(tc, mix_draws);
	tcase_add_test(tc, mix_errors);
	tcase_add_test(tc, shuffled_kinds);
	tcase_add_test(tc, host_lists);
	tcase_add_test(tc, replay_summary);
	tcase_add_test(tc, contention_shared_uplink);
	tcase_add_test(tc, contention_disjoint_and_kill);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(model_suite());
}

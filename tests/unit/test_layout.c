/*
 * test_layout.c - the SPANK plugin's layout helpers (plugin/spank/
 * tm_layout.c): TOPOMATCH_MAP in both versions (arbitrary layout: rank by
 * rank; reorder: the j-th task of a node), the rejection of malformed or
 * forged maps, the task counts of Slurm's block distribution, the
 * distribution and CR_Pack_Nodes checks, srun's command line, cpulists.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include <stdint.h>
#include <unistd.h>

#include "../../plugin/spank/tm_layout.h"

static const char *const names3[] = { "n1", "n2", "n3" };

/* ------------------------------------------------------------ version 1 */

START_TEST(v1_roundtrip)
{
	int64_t node[6] = { 0, 0, 0, 1, 1, 0 };
	int cpu[6] = { 4, 5, 6, 0, 2, 9 };
	char *map = tm_map_encode(77, 6, names3, 2, node, cpu);
	ck_assert_str_eq(map, "1;77;6;n1,n2;0.4+2,1.0,1.2,0.9");
	ck_assert_int_eq(tm_map_version(map), TM_MAP_ARBITRARY);
	for (int r = 0; r < 6; r++) {
		char name[16];
		tm_cpus_t c = { .n = 0 };
		ck_assert_int_eq(tm_map_lookup(map, 77, 6, r, name, sizeof(name), &c), 0);
		ck_assert_str_eq(name, names3[node[r]]);
		ck_assert_int_eq(c.n, 1);
		ck_assert_int_eq(c.cpu[0], cpu[r]);
	}
	char name[16];
	tm_cpus_t c;
	ck_assert_int_eq(tm_map_lookup(map, 77, 6, 6, name, sizeof(name), &c), -1);
	ck_assert_int_eq(tm_map_lookup(map, 77, 6, -1, name, sizeof(name), &c), -1);
	ck_assert_int_eq(tm_map_lookup(map, 78, 6, 0, name, sizeof(name), &c), -1);
	ck_assert_int_eq(tm_map_lookup(map, 77, 5, 0, name, sizeof(name), &c), -1);
	ck_assert_int_eq(tm_map_lookup(map, 77, 6, 0, name, 2, &c), -1); /* too short */
	free(map);
}
END_TEST

/* --cpus-per-task 3: every rank lists its CPUs, in any order */
START_TEST(several_cpus_per_rank)
{
	int64_t node[3] = { 1, 0, 1 };
	int cpu[9] = { 4, 5, 6, 0, 2, 1, 9, 8, 12 };
	char *map = tm_map_encode_v(TM_MAP_ARBITRARY, 7, 3, names3, 2, node, cpu, 3);
	ck_assert_str_eq(map, "1;7;3;n1,n2;1.4:5:6,0.0:2:1,1.9:8:12");
	for (int r = 0; r < 3; r++) {
		char name[16];
		tm_cpus_t c = { .n = 0 };
		ck_assert_int_eq(tm_map_lookup(map, 7, 3, r, name, sizeof(name), &c), 0);
		ck_assert_str_eq(name, names3[node[r]]);
		ck_assert_int_eq(c.n, 3);
		for (int k = 0; k < 3; k++)
			ck_assert_int_eq(c.cpu[k], cpu[3 * r + k]);
	}
	free(map);
	/* reorder maps too: the second task Slurm starts on n2 is rank 2 */
	map = tm_map_encode_v(TM_MAP_REORDER, 7, 3, names3, 2, node, cpu, 3);
	int64_t rank;
	tm_cpus_t c;
	ck_assert_int_eq(tm_map_lookup_local(map, 7, 3, "n2", 1, 2, 2, &rank, &c), 0);
	ck_assert_int_eq(rank, 2);
	ck_assert_int_eq(c.n, 3);
	ck_assert_int_eq(c.cpu[2], 12);
	free(map);
	/* malformed lists */
	static const char *const bad[] = { "1;7;2;n1;0.0:,0.1", "1;7;2;n1;0.0:1+1",
					   "1;7;2;n1;0.0::1,0.2", "1;7;2;n1;0.0:-1,0.2",
					   "1;7;2;n1;0.0:01,0.2", "1;7;2;n1;0.0:1:,0.2" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
		char name[16];
		ck_assert_msg(tm_map_lookup(bad[k], 7, 2, 1, name, sizeof(name), &c) == -1,
			      "accepted '%s'", bad[k]);
	}
	/* at most TM_MAP_MAX_CPUS CPUs per rank */
	char *big = malloc(16 + 8 * (TM_MAP_MAX_CPUS + 1));
	int len = sprintf(big, "1;7;1;n1;0.0");
	for (int k = 1; k < TM_MAP_MAX_CPUS; k++)
		len += sprintf(big + len, ":%d", k);
	char name[16];
	ck_assert_int_eq(tm_map_lookup(big, 7, 1, 0, name, sizeof(name), &c), 0);
	ck_assert_int_eq(c.n, TM_MAP_MAX_CPUS);
	sprintf(big + len, ":%d", TM_MAP_MAX_CPUS);
	ck_assert_int_eq(tm_map_lookup(big, 7, 1, 0, name, sizeof(name), &c), -1);
	free(big);
}
END_TEST

/* A map of TM_MAP_MAX_BYTES (what srun publishes at most) is read; one
 * byte longer is refused by every reader.  The second node's long name
 * pads it: "1;7;1;n1,xxx...;0.0". */
START_TEST(map_bytes_limit)
{
	char *map = malloc(TM_MAP_MAX_BYTES + 2), name[16];
	tm_cpus_t c;
	for (size_t len = TM_MAP_MAX_BYTES; len <= TM_MAP_MAX_BYTES + 1; len++) {
		memcpy(map, "1;7;1;n1,", 9);
		memset(map + 9, 'x', len - 13);
		memcpy(map + len - 4, ";0.0", 5);
		ck_assert_uint_eq(strlen(map), len);
		int want = len <= TM_MAP_MAX_BYTES ? 0 : -1;
		ck_assert_int_eq(tm_map_version(map), want ? -1 : TM_MAP_ARBITRARY);
		ck_assert_int_eq(tm_map_lookup(map, 7, 1, 0, name, sizeof(name), &c), want);
		if (!want)
			ck_assert_str_eq(name, "n1");
		map[0] = '2'; /* the same as a version 2 map */
		ck_assert_int_eq(tm_map_version(map), want ? -1 : TM_MAP_REORDER);
	}
	free(map);
}
END_TEST

/* ------------------------------------------------------------ version 2 */

/* 8 ranks on 3 nodes: n1 gets ranks 1, 3, 7; n2 0, 4, 5; n3 2, 6. */
static const int64_t rnode[8] = { 1, 0, 2, 0, 1, 1, 2, 0 };
static const int rcpu[8] = { 3, 0, 0, 1, 4, 5, 1, 7 };

static char *reorder_map(void)
{
	return tm_map_encode_v(TM_MAP_REORDER, 5, 8, names3, 3, rnode, rcpu, 1);
}

START_TEST(v2_encode)
{
	char *map = reorder_map();
	ck_assert_str_eq(map, "2;5;8;n1,n2,n3;1.3,0.0,2.0,0.1,1.4+1,2.1,0.7");
	ck_assert_int_eq(tm_map_version(map), TM_MAP_REORDER);
	free(map);
}
END_TEST

/* Slurm's block layout of 3, 3, 2 tasks: global ids 0-2 on n1, 3-5 on
 * n2, 6-7 on n3; every task gets its node's ranks in order. */
START_TEST(v2_lookup_block)
{
	char *map = reorder_map();
	static const int nlocal[3] = { 3, 3, 2 };
	static const int64_t want[8] = { 1, 3, 7, 0, 4, 5, 2, 6 };
	int seen[8] = { 0 };
	int64_t g = 0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < nlocal[i]; j++, g++) {
			int64_t rank = -1;
			tm_cpus_t cpu = { .n = 0 };
			ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, names3[i], j, nlocal[i], g,
							     &rank, &cpu),
					 0);
			ck_assert_int_eq(rank, want[g]);
			ck_assert_int_eq(cpu.cpu[0], rcpu[rank]);
			ck_assert_int_eq(rnode[rank], i);
			seen[rank]++;
		}
	for (int r = 0; r < 8; r++)
		ck_assert_int_eq(seen[r], 1);
	free(map);
}
END_TEST

START_TEST(v2_lookup_mismatch)
{
	char *map = reorder_map();
	int64_t rank;
	tm_cpus_t cpu;
	/* another count on the node */
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n1", 0, 4, 0, &rank, &cpu),
			 TM_MAP_MISMATCH);
	/* the node's first task is not global task 3: the nodes before differ */
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n2", 0, 3, 4, &rank, &cpu),
			 TM_MAP_MISMATCH);
	/* a node the map does not list, a prefix of one, an empty name */
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n4", 0, 3, 0, &rank, &cpu),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n", 0, 3, 0, &rank, &cpu),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "", 0, 3, 0, &rank, &cpu),
			 TM_MAP_MISMATCH);
	/* a local id out of range */
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n3", 2, 2, 8, &rank, &cpu),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 8, "n3", -1, 2, 5, &rank, &cpu),
			 TM_MAP_MISMATCH);
	/* another job, another task count */
	ck_assert_int_eq(tm_map_lookup_local(map, 6, 8, "n1", 0, 3, 0, &rank, &cpu), TM_MAP_BAD);
	ck_assert_int_eq(tm_map_lookup_local(map, 5, 7, "n1", 0, 3, 0, &rank, &cpu), TM_MAP_BAD);
	free(map);
}
END_TEST

START_TEST(versions_do_not_mix)
{
	char *v2 = reorder_map();
	int64_t node[2] = { 0, 1 };
	int cpu[2] = { 0, 0 };
	char *v1 = tm_map_encode(5, 2, names3, 2, node, cpu);
	char name[16];
	tm_cpus_t c;
	int64_t rank;
	ck_assert_int_eq(tm_map_lookup(v2, 5, 8, 0, name, sizeof(name), &c), -1);
	ck_assert_int_eq(tm_map_lookup_local(v1, 5, 2, "n1", 0, 1, 0, &rank, &c), TM_MAP_BAD);
	ck_assert_int_eq(tm_map_version("3;5;2;n1;0.0+1"), -1);
	free(v1);
	free(v2);
}
END_TEST

/* Maps a forger could put in the environment: none is ever used. */
START_TEST(hostile_maps)
{
	static const char *const bad[] = {
		NULL, "", "2", "2;", "2;5;", "2;5;2", "2;5;2;", "2;5;2;n1", "2;5;2;n1;",
		"2;5;2;;0.0+1", "2;5;2;,n1;0.0+1", "2;5;2;n1,;0.0+1", "2;5;2;n1,,n2;0.0+1",
		"2;5;2;n1;0.0+1,", "2;5;2;n1;,0.0+1", "2;5;2;n1;0.0,,0.1", "2;5;2;n1;1.0+1",
		"2;5;2;n1;-0.0+1", "2;5;2;n1;0.-1+1", "2;5;2;n1;0.0+-1", "2;5;2;n1;0.0+",
		"2;5;2;n1;0.0+1x", "2;5;2;n1;0.0 +1", "2;5;2;n1; 0.0+1", "2;5;2;n1;+0.0+1",
		"2;5;2;n1;0.0", "2;5;2;n1;0.0+2", "2;5;2;n1;0.0,0.1,0.2", "2;5;2;n1;0.0.1",
		"2;5;2;n1;0.99999999+1", "2;5;2;n1;0.0+99999999", "2;5;2;n1;0.4194305+1",
		"2;99999999999999999999;2;n1;0.0+1", "2;5;99999999999999999999;n1;0.0+1",
		"2;5;0;n1;", "02;5;2;n1;0.0+1x", "2;-5;2;n1;0.0+1", "2 ;5;2;n1;0.0+1",
		"2;5;2;n1;0.0+1;", "2;5;2;n1;00000000000000000000000000.0+1",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
		int64_t rank = -7;
		tm_cpus_t cpu = { .n = 0 };
		char name[16];
		ck_assert_msg(tm_map_lookup_local(bad[k], 5, 2, "n1", 0, 2, 0, &rank, &cpu) ==
				      TM_MAP_BAD,
			      "accepted '%s'", bad[k] ? bad[k] : "(null)");
		const char *v1 = bad[k] && bad[k][0] == '2' ? bad[k] + 1 : NULL;
		char buf[128];
		if (v1) { /* the same as version 1 */
			snprintf(buf, sizeof(buf), "1%s", v1);
			ck_assert_msg(tm_map_lookup(buf, 5, 2, 1, name, sizeof(name), &cpu) == -1,
				      "accepted '%s'", buf);
		}
	}
	/* the good one these are made from */
	int64_t rank;
	tm_cpus_t cpu;
	ck_assert_int_eq(tm_map_lookup_local("2;5;2;n1;0.0+1", 5, 2, "n1", 1, 2, 1, &rank, &cpu),
			 0);
	ck_assert_int_eq(rank, 1);
	ck_assert_int_eq(cpu.cpu[0], 1);
	ck_assert_int_eq(tm_map_lookup_local("2;5;2;n1;0.4194303+1", 5, 2, "n1", 1, 2, 1, &rank,
					     &cpu),
			 0);
	ck_assert_int_eq(cpu.cpu[0], 4194304);
}
END_TEST

/* Random mutations of a good map: no crash (ASan), and whatever is
 * accepted is within bounds. */
START_TEST(fuzz_maps)
{
	char *good = reorder_map();
	size_t len = strlen(good);
	static const char alphabet[] = "0123456789.,;+-xn ";
	unsigned seed = 12345;
	for (int it = 0; it < 20000; it++) {
		char buf[128];
		memcpy(buf, good, len + 1);
		int nmut = 1 + it % 4;
		for (int m = 0; m < nmut; m++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
		}
		if (it % 7 == 0)
			buf[(seed >> 4) % len] = 0; /* truncated */
		for (int j = 0; j < 3; j++) {
			int64_t rank = -1;
			tm_cpus_t cpu = { .n = 0 };
			if (tm_map_lookup_local(buf, 5, 8, "n1", j, 3, j, &rank, &cpu) == 0)
				ck_assert(rank >= 0 && rank < 8 && cpu.n >= 1 && cpu.cpu[0] >= 0);
		}
		buf[0] = '1';
		char name[16];
		tm_cpus_t cpu = { .n = 0 };
		if (tm_map_lookup(buf, 5, 8, it % 8, name, sizeof(name), &cpu) == 0)
			ck_assert(cpu.n >= 1 && cpu.cpu[0] >= 0 && strlen(name) > 0);
	}
	free(good);
}
END_TEST

/* Slurm's CPU lists (bit_fmt): "0-3,8" */
START_TEST(cpulist_parse)
{
	unsigned char set[16];
	ck_assert_int_eq(tm_cpulist_parse("0-3,8,10-11", set, sizeof(set)), 0);
	static const unsigned char want[16] = { 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1 };
	ck_assert_mem_eq(set, want, sizeof(set));
	ck_assert_int_eq(tm_cpulist_parse("", set, sizeof(set)), 0);
	ck_assert_int_eq(set[0] + set[8], 0);
	ck_assert_int_eq(tm_cpulist_parse("15", set, sizeof(set)), 0);
	ck_assert_int_eq(set[15], 1);
	static const char *const bad[] = { NULL, "16", "0-16", "3-1", "1,", ",1", "1,,2", "a",
					   "1 ", "-1", "1-", "01", "0-3x" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++)
		ck_assert_msg(tm_cpulist_parse(bad[k], set, sizeof(set)) == -1, "accepted '%s'",
			      bad[k] ? bad[k] : "(null)");
	/* what tm_cpulist writes, read back */
	int cpus[5] = { 9, 2, 3, 4, 7 };
	char buf[64];
	ck_assert_int_eq(tm_cpulist(cpus, 5, buf, sizeof(buf)), 0);
	ck_assert_int_eq(tm_cpulist_parse(buf, set, sizeof(set)), 0);
	ck_assert_int_eq(set[2] + set[3] + set[4] + set[7] + set[9], 5);
	ck_assert_int_eq(set[5] + set[8], 0);
}
END_TEST

/* --------------------------------------------------- block distribution */

static void counts_eq(const char *cpn, int64_t nnodes, int64_t ntasks, int64_t cap,
		      const int64_t *want)
{
	int64_t got[16];
	ck_assert_int_eq(tm_block_counts(cpn, nnodes, ntasks, 1, cap, got), 0);
	for (int64_t i = 0; i < nnodes; i++)
		ck_assert_msg(got[i] == want[i], "%s, %lld tasks: node %lld gets %lld, not %lld",
			      cpn, (long long)ntasks, (long long)i, (long long)got[i],
			      (long long)want[i]);
}

START_TEST(block_counts)
{
	counts_eq("16(x4)", 4, 64, 0, (const int64_t[]){ 16, 16, 16, 16 });
	/* not filled node by node: round by round (Slurm's non-pack block) */
	counts_eq("16(x4)", 4, 60, 0, (const int64_t[]){ 15, 15, 15, 15 });
	counts_eq("16(x4)", 4, 62, 0, (const int64_t[]){ 16, 16, 15, 15 });
	counts_eq("16(x4),8", 5, 72, 0, (const int64_t[]){ 16, 16, 16, 16, 8 });
	counts_eq("16(x4),8", 5, 40, 0, (const int64_t[]){ 8, 8, 8, 8, 8 });
	counts_eq("16(x4),8", 5, 45, 0, (const int64_t[]){ 10, 9, 9, 9, 8 });
	counts_eq("16,8", 2, 20, 0, (const int64_t[]){ 12, 8 });
	counts_eq("8,16", 2, 20, 0, (const int64_t[]){ 8, 12 });
	counts_eq("16,8", 2, 30, 0, (const int64_t[]){ 19, 11 });
	/* more tasks than CPUs: once no CPU is left, one more per node */
	counts_eq("2,1", 2, 5, 0, (const int64_t[]){ 3, 2 });
	counts_eq("1(x3)", 3, 7, 0, (const int64_t[]){ 3, 2, 2 });
	/* --ntasks-per-node caps the CPUs */
	counts_eq("16(x4)", 4, 32, 8, (const int64_t[]){ 8, 8, 8, 8 });
	counts_eq("4,16", 2, 12, 8, (const int64_t[]){ 4, 8 });
	counts_eq("3(x2),5(x2),2", 5, 17, 0, (const int64_t[]){ 3, 3, 5, 4, 2 });
	/* --cpus-per-task: room per node in tasks, at least one (Slurm's
	 * _init_task_layout rounds 0 up to 1) */
	int64_t c4[4];
	ck_assert_int_eq(tm_block_counts("16(x4)", 4, 16, 4, 0, c4), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(c4[i], 4);
	ck_assert_int_eq(tm_block_counts("16,8,2", 3, 7, 4, 0, c4), 0);
	ck_assert_int_eq(c4[0], 4);
	ck_assert_int_eq(c4[1], 2);
	ck_assert_int_eq(c4[2], 1);
	ck_assert_int_eq(tm_block_counts("16(x4)", 4, 16, 0, 0, c4), -1);
	int64_t sum = 0, got[16];
	ck_assert_int_eq(tm_block_counts("7(x3),5,9", 5, 33, 1, 0, got), 0);
	for (int i = 0; i < 5; i++)
		sum += got[i];
	ck_assert_int_eq(sum, 33);
}
END_TEST

/* _task_layout_block of Slurm 22.05 without packing, as written there */
static void slurm_block(const int64_t *cpus, int64_t nnodes, int64_t ntasks, int64_t *tasks)
{
	int64_t task_id = 0;
	int over_subscribe = 0;
	for (int64_t i = 0; i < nnodes; i++)
		tasks[i] = 0;
	for (int64_t j = 0; task_id < ntasks; j++) {
		int space_remaining = 0;
		for (int64_t i = 0; i < nnodes && task_id < ntasks; i++) {
			if (j < cpus[i] || over_subscribe) {
				tasks[i]++;
				task_id++;
				if (j + 1 < cpus[i])
					space_remaining = 1;
			}
		}
		if (!space_remaining)
			over_subscribe = 1;
	}
}

/* Random CPU lists in SLURM_JOB_CPUS_PER_NODE's format, random task
 * counts and caps: the same counts as the transcription above. */
START_TEST(block_counts_random)
{
	unsigned seed = 777;
	for (int it = 0; it < 5000; it++) {
		int64_t cpus[12], capped[12], want[12], got[12], nnodes = 0, sum = 0;
		char list[256] = "";
		size_t used = 0;
		seed = seed * 1103515245u + 12345u;
		int64_t groups = 1 + (seed >> 8) % 5;
		for (int64_t g = 0; g < groups && nnodes < 12; g++) {
			seed = seed * 1103515245u + 12345u;
			int64_t c = 1 + (seed >> 8) % 20, reps = 1 + (seed >> 16) % 3;
			if (reps > 12 - nnodes)
				reps = 12 - nnodes;
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%lld",
						 used ? "," : "", (long long)c);
			if (reps > 1)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "(x%lld)",
							 (long long)reps);
			for (int64_t k = 0; k < reps; k++, nnodes++)
				cpus[nnodes] = c, sum += c;
		}
		seed = seed * 1103515245u + 12345u;
		int64_t ntasks = nnodes + (int64_t)((seed >> 8) % (unsigned)(2 * sum));
		int64_t cap = (seed >> 20) % 3 ? 0 : 1 + (seed >> 24) % 12;
		for (int64_t i = 0; i < nnodes; i++)
			capped[i] = cap && cpus[i] > cap ? cap : cpus[i];
		slurm_block(capped, nnodes, ntasks, want);
		ck_assert_int_eq(tm_block_counts(list, nnodes, ntasks, 1, cap, got), 0);
		for (int64_t i = 0; i < nnodes; i++)
			ck_assert_msg(got[i] == want[i], "%s, %lld tasks, cap %lld: node %lld gets %lld, not %lld",
				      list, (long long)ntasks, (long long)cap, (long long)i,
				      (long long)got[i], (long long)want[i]);
	}
}
END_TEST

START_TEST(block_counts_reject)
{
	static const char *const bad[] = { NULL, "", "16(x4", "16(x0)", "0", "0(x4)",
					   "16(x5)", "16,", ",16", "16(y4)", "-1", "70000",
					   "16(x4)8", "16 (x4)", "16(x2),16(x3)", "16(x2)," };
	int64_t got[8];
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++)
		ck_assert_msg(tm_block_counts(bad[k], 4, 64, 1, 0, got) == -1, "accepted '%s'",
			      bad[k] ? bad[k] : "(null)");
	ck_assert_int_eq(tm_block_counts("16(x3)", 4, 64, 1, 0, got), -1); /* 3 nodes, not 4 */
	ck_assert_int_eq(tm_block_counts("16(x4)", 0, 64, 1, 0, got), -1);
}
END_TEST

START_TEST(distribution)
{
	static const char *const yes[] = { NULL,	  "",	      "block",	   "Block",
					   "block:cyclic", "*:block", "block,NoPack", "*" };
	static const char *const no[] = { "cyclic",	"plane=4",	"block,Pack", "arbitrary",
					  "blockx",	"cyclic:block", "block:block,pack" };
	for (size_t k = 0; k < sizeof(yes) / sizeof(*yes); k++)
		ck_assert_msg(tm_dist_is_default(yes[k]) == 1, "'%s'", yes[k] ? yes[k] : "(null)");
	for (size_t k = 0; k < sizeof(no) / sizeof(*no); k++)
		ck_assert_msg(tm_dist_is_default(no[k]) == 0, "'%s'", no[k]);
}
END_TEST

static int pack_of(const char *text)
{
	char path[] = "/tmp/test_layout.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	int rc = tm_conf_pack_nodes(path);
	unlink(path);
	return rc;
}

START_TEST(pack_nodes)
{
	ck_assert_int_eq(pack_of("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"), 0);
	ck_assert_int_eq(pack_of("selecttypeparameters=CR_Core,cr_pack_nodes\n"), 1);
	ck_assert_int_eq(pack_of("SelectType=x SelectTypeParameters=CR_Pack_Nodes # y\n"), 1);
	ck_assert_int_eq(pack_of("#SelectTypeParameters=CR_Pack_Nodes\n"), 0);
	ck_assert_int_eq(pack_of("SelectTypeParameters=CR_Core # CR_Pack_Nodes\n"), 0);
	ck_assert_int_eq(pack_of("SelectTypeParameters=CR_Pack_NodesX\n"), 0);
	ck_assert_int_eq(pack_of("SelectTypeParameters=CR_Pack_Nodes\nSelectTypeParameters=CR_Core\n"),
			 0);
	ck_assert_int_eq(tm_conf_pack_nodes("/nonexistent/slurm.conf"), -1);
}
END_TEST

/* ------------------------------------------------------ srun, cpulists */

static tm_srun_args_t scan(int argc, const char **argv)
{
	tm_srun_args_t a;
	tm_srun_args_scan(argc, (char **)argv, &a);
	return a;
}

START_TEST(srun_nodes)
{
	unsetenv("SLURM_NTASKS");
	unsetenv("SLURM_NPROCS");
	unsetenv("SRUN_CPUS_PER_TASK");
	tm_srun_args_t a = scan(3, (const char *[]){ "srun", "-n64", "hostname" });
	ck_assert_int_eq(a.nodes, -1);
	ck_assert_int_eq(a.ntasks, 64);
	a = scan(5, (const char *[]){ "srun", "-N", "4", "-n64", "hostname" });
	ck_assert_int_eq(a.nodes, 4);
	ck_assert_str_eq(a.layout_opt, ""); /* -N alone is not a layout */
	a = scan(3, (const char *[]){ "srun", "--nodes=2-4", "hostname" });
	ck_assert_int_eq(a.nodes, 0);
	a = scan(3, (const char *[]){ "srun", "-N2", "hostname" });
	ck_assert_int_eq(a.nodes, 2);
	a = scan(4, (const char *[]){ "srun", "--nodes", "3", "hostname" });
	ck_assert_int_eq(a.nodes, 3);
	a = scan(4, (const char *[]){ "srun", "hostname", "-N", "3" }); /* the command's */
	ck_assert_int_eq(a.nodes, -1);
}
END_TEST

/* --cpu-bind: srun's command line, else SLURM_CPU_BIND; --overlap */
START_TEST(srun_cpu_bind)
{
	unsetenv("SLURM_CPU_BIND");
	unsetenv("SLURM_OVERLAP");
	tm_srun_args_t a = scan(3, (const char *[]){ "srun", "-n4", "a.out" });
	ck_assert_str_eq(a.cpu_bind, "");
	ck_assert_int_eq(a.overlap, 0);
	a = scan(4, (const char *[]){ "srun", "--cpu-bind=map_cpu:1,0", "--overlap", "a.out" });
	ck_assert_str_eq(a.cpu_bind, "map_cpu:1,0");
	ck_assert_int_eq(a.overlap, 1);
	a = scan(4, (const char *[]){ "srun", "--cpu_bind", "none", "a.out" });
	ck_assert_str_eq(a.cpu_bind, "none");
	setenv("SLURM_CPU_BIND", "verbose,cores", 1); /* sbatch --cpu-bind sets it */
	setenv("SLURM_OVERLAP", "1", 1);
	a = scan(2, (const char *[]){ "srun", "a.out" });
	ck_assert_str_eq(a.cpu_bind, "verbose,cores");
	ck_assert_int_eq(a.overlap, 1);
	a = scan(3, (const char *[]){ "srun", "--cpu-bind=quiet", "a.out" }); /* the last wins */
	ck_assert_str_eq(a.cpu_bind, "quiet");
	unsetenv("SLURM_CPU_BIND");
	unsetenv("SLURM_OVERLAP");

	static const struct {
		const char *v;
		int chooses;
	} cases[] = {
		{ "", 0 },		{ "quiet", 0 },	   { "verbose", 0 },	   { "v,q", 0 },
		{ "VERBOSE", 0 },	{ "none", 1 },	   { "no", 1 },		   { "cores", 1 },
		{ "verbose,none", 1 }, { "map_cpu:1,0", 1 }, { "mask_cpu:0x3", 1 }, { "rank", 1 },
		{ "quiet,sockets", 1 }, { "ldoms", 1 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++)
		ck_assert_msg(tm_cpu_bind_chooses(cases[k].v) == cases[k].chooses, "'%s'",
			      cases[k].v);
	ck_assert_int_eq(tm_cpu_bind_chooses(NULL), 0);
}
END_TEST

static void allowed_of(const char *list, unsigned char *set, size_t n)
{
	ck_assert_int_eq(tm_cpulist_parse(list, set, n), 0);
}

/* A rank's CPUs inside the step's cpuset: its own when the node's ranks
 * all fit, else the node's ranks in the order of their mapped CPUs */
START_TEST(fit_cpus)
{
	/* ranks 0-3 on n1 (CPUs 4, 5, 0, 1), ranks 4-5 on n2 (CPUs 0, 1) */
	int64_t node[6] = { 0, 0, 0, 0, 1, 1 };
	int cpu[6] = { 4, 5, 0, 1, 0, 1 };
	char *map = tm_map_encode(9, 6, names3, 2, node, cpu);
	unsigned char set[16];
	tm_cpus_t c;
	allowed_of("0-7", set, sizeof(set)); /* the step got them all: the mapping */
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n1", r, set, sizeof(set), &c), 0);
		ck_assert_int_eq(c.n, 1);
		ck_assert_int_eq(c.cpu[0], cpu[r]);
	}
	/* the step got CPUs 8-11 (another step holds 0-7): order kept,
	 * rank 2 (CPU 0) first, then 3 (1), 0 (4), 1 (5) */
	allowed_of("8-11", set, sizeof(set));
	static const int moved[4] = { 10, 11, 8, 9 };
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n1", r, set, sizeof(set), &c), 1);
		ck_assert_int_eq(c.n, 1);
		ck_assert_int_eq(c.cpu[0], moved[r]);
	}
	/* one CPU outside moves them all (each keeps its own order) */
	allowed_of("0-1,4,6", set, sizeof(set));
	static const int moved2[4] = { 4, 6, 0, 1 };
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n1", r, set, sizeof(set), &c), 1);
		ck_assert_int_eq(c.cpu[0], moved2[r]);
	}
	/* n2's ranks are checked against n2's CPUs only */
	allowed_of("0-1", set, sizeof(set));
	ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n2", 5, set, sizeof(set), &c), 0);
	ck_assert_int_eq(c.cpu[0], 1);
	/* four ranks do not fit in three CPUs; a rank of another node; bad maps */
	allowed_of("8-10", set, sizeof(set));
	ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n1", 0, set, sizeof(set), &c),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n2", 0, set, sizeof(set), &c),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_fit_cpus(map, 9, 6, "n3", 0, set, sizeof(set), &c),
			 TM_MAP_MISMATCH);
	ck_assert_int_eq(tm_map_fit_cpus(map, 8, 6, "n1", 0, set, sizeof(set), &c), TM_MAP_BAD);
	ck_assert_int_eq(tm_map_fit_cpus(map, 9, 5, "n1", 0, set, sizeof(set), &c), TM_MAP_BAD);
	ck_assert_int_eq(tm_map_fit_cpus("1;9;6;n1;0.0+9", 9, 6, "n1", 0, set, sizeof(set), &c),
			 TM_MAP_BAD);
	free(map);

	/* ranks of 2 CPUs (--cpus-per-task 2), a reorder map: groups of 2 */
	int cpu2[4] = { 6, 7, 2, 3 };
	int64_t node2[2] = { 0, 0 };
	map = tm_map_encode_v(TM_MAP_REORDER, 3, 2, names3, 1, node2, cpu2, 2);
	allowed_of("0-3", set, sizeof(set));
	ck_assert_int_eq(tm_map_fit_cpus(map, 3, 2, "n1", 0, set, sizeof(set), &c), 1);
	ck_assert_int_eq(c.n, 2);
	ck_assert_int_eq(c.cpu[0], 2);
	ck_assert_int_eq(c.cpu[1], 3);
	ck_assert_int_eq(tm_map_fit_cpus(map, 3, 2, "n1", 1, set, sizeof(set), &c), 1);
	ck_assert_int_eq(c.cpu[0], 0);
	ck_assert_int_eq(c.cpu[1], 1);
	free(map);
}
END_TEST

/* Where a task's cpuset lists its CPUs, from /proc/self/mountinfo */
START_TEST(cpuset_file)
{
	static const char hybrid[] =
		"23 1 0:21 / /sys rw - sysfs sysfs rw\n"
		"30 23 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs ro,mode=755\n"
		"31 30 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n"
		"35 30 0:31 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
		"36 30 0:32 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n";
	static const char v2[] = "31 30 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	static const char sub[] = /* a container: the hierarchy mounted from /docker/x */
		"36 30 0:32 /docker/x /sys/fs/cgroup/cpuset ro - cgroup cgroup rw,cpuset\n";
	char path[256];
	ck_assert_int_eq(tm_cpuset_file(hybrid, "/slurm_n001/uid_0/job_4/step_0\n", path,
					sizeof(path)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/cpuset/slurm_n001/uid_0/job_4/step_0/cpuset.cpus");
	ck_assert_int_eq(tm_cpuset_file(hybrid, "/", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/cpuset/cpuset.cpus");
	ck_assert_int_eq(tm_cpuset_file(v2, "/system.slice/slurmd.service/job_4/step_0", path,
					sizeof(path)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/system.slice/slurmd.service/job_4/step_0/"
			       "cpuset.cpus.effective");
	ck_assert_int_eq(tm_cpuset_file(sub, "/docker/x/slurm/job_1", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/cpuset/slurm/job_1/cpuset.cpus");
	/* a cgroup the mount does not show; no cgroup hierarchy; too long */
	ck_assert_int_eq(tm_cpuset_file(sub, "/docker/xy/slurm", path, sizeof(path)), -1);
	ck_assert_int_eq(tm_cpuset_file(hybrid + 0, "/a", path, 20), -1);
	ck_assert_int_eq(tm_cpuset_file("23 1 0:21 / /sys rw - sysfs sysfs rw\n", "/", path,
					sizeof(path)), -1);
	ck_assert_int_eq(tm_cpuset_file("", "/", path, sizeof(path)), -1);
	ck_assert_int_eq(tm_cpuset_file("garbage without fields\n", "/", path, sizeof(path)), -1);
}
END_TEST

/* heterogeneous jobs: --het-group=N is one component (its task count by
 * default), several are a het step */
START_TEST(srun_het_group)
{
	unsetenv("SLURM_NTASKS");
	unsetenv("SLURM_NPROCS");
	setenv("SLURM_HET_SIZE", "2", 1);
	setenv("SLURM_NTASKS_HET_GROUP_0", "2", 1);
	setenv("SLURM_NTASKS_HET_GROUP_1", "4", 1);
	tm_srun_args_t a = scan(3, (const char *[]){ "srun", "--het-group=1", "a.out" });
	ck_assert_int_eq(a.het_group, 1);
	ck_assert_int_eq(a.het, 0);
	ck_assert_int_eq(a.ntasks, 4);
	a = scan(2, (const char *[]){ "srun", "a.out" }); /* component 0 */
	ck_assert_int_eq(a.het_group, -1);
	ck_assert_int_eq(a.ntasks, 2);
	a = scan(4, (const char *[]){ "srun", "--het-group=1", "-n3", "a.out" });
	ck_assert_int_eq(a.ntasks, 3);
	a = scan(3, (const char *[]){ "srun", "--het-group=0,1", "a.out" });
	ck_assert_int_eq(a.het, 1);
	a = scan(4, (const char *[]){ "srun", "--het-group", "0-1", "a.out" });
	ck_assert_int_eq(a.het, 1);
	a = scan(5, (const char *[]){ "srun", "a.out", ":", "-n2", "b.out" });
	ck_assert_int_eq(a.het, 1);
	unsetenv("SLURM_HET_SIZE");
	setenv("SLURM_NTASKS", "8", 1); /* not a het job: the job's count */
	a = scan(2, (const char *[]){ "srun", "a.out" });
	ck_assert_int_eq(a.ntasks, 8);
	unsetenv("SLURM_NTASKS");
	unsetenv("SLURM_NTASKS_HET_GROUP_0");
	unsetenv("SLURM_NTASKS_HET_GROUP_1");
}
END_TEST

/* a whole small file, whatever its size, with its length */
START_TEST(read_text)
{
	char path[] = "/tmp/tm-test-layout-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	char *big = malloc(20000);
	memset(big, 'a', 20000);
	big[5] = 0; /* NULs inside are kept (cmdline) */
	ck_assert_int_eq(write(fd, big, 20000), 20000);
	close(fd);
	size_t len = 0;
	char *t = tm_read_text(path, &len);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(len, 20000);
	ck_assert_int_eq(memcmp(t, big, 20000), 0);
	ck_assert_int_eq(t[20000], 0);
	free(t);
	unlink(path);
	ck_assert_ptr_null(tm_read_text(path, &len));
	free(big);
}
END_TEST

START_TEST(cpulist)
{
	char buf[64];
	ck_assert_int_eq(tm_cpulist((const int[]){ 3, 0, 1, 2, 8, 8 }, 6, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0-3,8");
	ck_assert_int_eq(tm_cpulist((const int[]){ 5 }, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "5");
	ck_assert_int_eq(tm_cpulist((const int[]){ 1, 3 }, 2, buf, 3), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout");
	TCase *map = tcase_create("map");
	TCase *blk = tcase_create("block");
	TCase *misc = tcase_create("misc");
	tcase_add_test(map, v1_roundtrip);
	tcase_add_test(map, several_cpus_per_rank);
	tcase_add_test(map, map_bytes_limit);
	tcase_add_test(map, cpulist_parse);
	tcase_add_test(map, v2_encode);
	tcase_add_test(map, v2_lookup_block);
	tcase_add_test(map, v2_lookup_mismatch);
	tcase_add_test(map, versions_do_not_mix);
	tcase_add_test(map, hostile_maps);
	tcase_add_test(map, fuzz_maps);
	tcase_add_test(blk, block_counts);
	tcase_add_test(blk, block_counts_random);
	tcase_add_test(blk, block_counts_reject);
	tcase_add_test(blk, distribution);
	tcase_add_test(blk, pack_nodes);
	tcase_add_test(misc, srun_nodes);
	tcase_add_test(misc, cpulist);
	tcase_add_test(misc, srun_cpu_bind);
	tcase_add_test(map, fit_cpus);
	tcase_add_test(misc, cpuset_file);
	tcase_add_test(misc, read_text);
	tcase_add_test(misc, srun_het_group);
	tcase_set_timeout(map, 120); /* the fuzz case under valgrind */
	suite_add_tcase(s, map);
	suite_add_tcase(s, blk);
	suite_add_tcase(s, misc);
	return tm_run_suite(s);
}

/*
 * fuzz_cluster.c - libFuzzer harness of cluster descriptions
 * (topomatch_cluster_load_buffer: topology/yaml_cluster.c over
 * yaml_doc.c, host lists, hwloc synthetic node strings, and the network
 * builders of topology/cluster*.c).  Relative paths resolve in a private
 * directory holding a small topology.conf, so that `network: {type: slurm,
 * file: topology.conf}` reaches the Slurm topology reader too.  A cluster
 * that loads answers a few queries, which must agree with each other.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <unistd.h>

#include "topomatch_cluster.h"

static char dir[4096];

static void cleanup(void)
{
	char p[sizeof(dir) + 32];
	snprintf(p, sizeof(p), "%s/topology.conf", dir);
	unlink(p);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char conf[] = "SwitchName=s0 Switches=s[1-2]\n"
				   "SwitchName=s1 Nodes=n[0-1]\n"
				   "SwitchName=s2 Nodes=n[2-3]\n";
	char p[sizeof(dir) + 32];
	(void)argc;
	(void)argv;
	fz_tmpdir(dir, sizeof(dir), "cluster");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	snprintf(p, sizeof(p), "%s/topology.conf", dir);
	FILE *f = fopen(p, "w");
	if (!f || fputs(conf, f) < 0 || fclose(f) != 0)
		abort();
	return 0;
}

static void queries(const topomatch_cluster_t *c)
{
	char buf[1024], err[TOPOMATCH_ERRLEN];
	int64_t nn = topomatch_cluster_nnodes(c), npu = topomatch_cluster_npu(c), count;
	int s, co, th;

	FZ_ASSERT(nn >= 1 && npu >= nn);
	FZ_ASSERT(topomatch_cluster_name(c) && topomatch_cluster_network(c));
	FZ_ASSERT(topomatch_cluster_topology(c) != NULL);
	FZ_ASSERT(topomatch_topology_npu(topomatch_cluster_topology(c)) >= npu);
	int rc = topomatch_cluster_describe(c, buf, sizeof(buf));
	FZ_ASSERT(rc == TOPOMATCH_OK || rc == TOPOMATCH_ELIMIT);
	int64_t nodes[] = { 0, nn / 2, nn - 1 };
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		int64_t node = nodes[i];
		FZ_ASSERT(topomatch_cluster_node_name(c, node, buf, sizeof(buf)) == TOPOMATCH_OK);
		FZ_ASSERT(topomatch_cluster_node_find(c, buf) == node);
		int64_t first = topomatch_cluster_node_pus(c, node, &count);
		FZ_ASSERT(first >= 0 && count >= 1 && first + count <= npu);
		FZ_ASSERT(topomatch_cluster_node_hw(c, node, &s, &co, &th) == TOPOMATCH_OK);
		int64_t local;
		FZ_ASSERT(topomatch_cluster_pu_node(c, first + count - 1, &local) == node);
		FZ_ASSERT(local == count - 1);
		FZ_ASSERT(topomatch_cluster_pu_place(c, first, &s, &co, &th) == TOPOMATCH_OK);
		FZ_ASSERT(topomatch_cluster_pu_os_index(c, first) >= 0);
		int64_t tpu = topomatch_cluster_pu_to_topology(c, first);
		FZ_ASSERT(tpu >= 0 && topomatch_cluster_pu_from_topology(c, tpu) == first);
		int levels;
		FZ_ASSERT(topomatch_cluster_node_position(c, node, &levels) >= 0);
		int64_t *pus = NULL, npus = 0;
		fz_err_init(err);
		rc = topomatch_cluster_hostlist_pus(c, buf, &pus, &npus, err);
		fz_check_err(rc, err);
		FZ_ASSERT(rc == TOPOMATCH_OK && npus == count && pus[0] == first);
		free(pus);
	}
	FZ_ASSERT(topomatch_cluster_pu_node(c, npu, NULL) == -1);
	FZ_ASSERT(topomatch_cluster_node_pus(c, nn, &count) == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_cluster_t *c = NULL;
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	fz_err_init(err);
	int rc = topomatch_cluster_load_buffer(buf, size, "fuzz.yaml", dir, &c, err);
	fz_check_err(rc, err);
	FZ_ASSERT((rc == TOPOMATCH_OK) == (c != NULL));
	if (c) {
		queries(c);
		topomatch_cluster_destroy(c);
	}
	free(buf);
	return 0;
}

/*
 * fuzz_slurm_conf.c - libFuzzer harness of the slurm.conf reader
 * (topology/slurm_conf.c: NodeName lines, continuations, escapes,
 * defaults, Include, the node-name index).  The reader takes a path, so
 * the input is written to a file in a private directory first; Include
 * lines resolve there (the directory also holds "nodes.conf", a small
 * included file).  Every node name of a file that reads must be found in
 * the index.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <unistd.h>

#include "slurm_conf.h"

static char dir[4096];
static char path[sizeof(dir) + 32], inc[sizeof(dir) + 32];

static void cleanup(void)
{
	unlink(path);
	unlink(inc);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char conf[] = "NodeName=m[0-3] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1\n";
	(void)argc;
	(void)argv;
	fz_tmpdir(dir, sizeof(dir), "slurmconf");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	snprintf(inc, sizeof(inc), "%s/nodes.conf", dir);
	FILE *f = fopen(inc, "w");
	if (!f || fputs(conf, f) < 0 || fclose(f) != 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN], name[256];
	tm_slurm_conf_t c;
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	fz_err_init(err);
	int rc = tm_slurm_conf_read(path, &c, err);
	fz_check_err(rc, err);
	if (rc == TOPOMATCH_OK) {
		FZ_ASSERT(c.n >= 0 && c.nfiles >= 1 && c.nnames >= 0);
		int64_t seen = 0;
		for (int64_t i = 0; i < c.n; i++) {
			const tm_slurm_node_t *nd = &c.node[i];
			FZ_ASSERT(nd->names && nd->hosts && nd->file);
			FZ_ASSERT(nd->sockets >= 1 && nd->cores_per_socket >= 1 &&
				  nd->threads_per_core >= 1 && nd->cpus >= 1);
			int64_t k = tm_hostlist_count(nd->hosts);
			seen += k;
			int64_t pick[] = { 0, k - 1 };
			for (int j = 0; j < 2 && seen < 100000; j++) {
				if (tm_hostlist_name(nd->hosts, pick[j], name, sizeof(name)))
					continue;
				FZ_ASSERT(tm_slurm_conf_find(&c, name) == i);
			}
		}
		FZ_ASSERT(seen == c.nnames);
		FZ_ASSERT(tm_slurm_conf_find(&c, "") == -1);
		tm_slurm_conf_free(&c);
	}
	return 0;
}

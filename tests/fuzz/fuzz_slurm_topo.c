/*
 * fuzz_slurm_topo.c - libFuzzer harness of the Slurm topology.conf reader
 * (topology/slurm_topo.c and the switch tree of topology/swtree.c, as
 * `topomatch topo import` and `network: {type: slurm}` use them).  A file
 * that reads is written back as topology.conf, which must read back to a
 * tree of the same shape.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include "slurm_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	tm_swtree_t t, u;
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	fz_err_init(err);
	int rc = tm_slurm_topology_parse(buf, size, "fuzz.conf", &t, err);
	fz_check_err(rc, err);
	if (rc == TOPOMATCH_OK) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		FZ_ASSERT(f != NULL);
		int wrc = tm_swtree_write_topology_conf(&t, f);
		fclose(f);
		/* a switch with both switches and nodes has no topology.conf spelling */
		FZ_ASSERT(wrc == TOPOMATCH_OK || wrc == TOPOMATCH_EUNSUPPORTED);
		if (wrc != TOPOMATCH_OK) {
			tm_swtree_free(&t);
			free(text);
			free(buf);
			return 0;
		}
		fz_err_init(err);
		rc = tm_slurm_topology_parse(text, len, "written.conf", &u, err);
		if (rc != TOPOMATCH_OK)
			fprintf(stderr, "fuzz: written topology.conf does not read back: %s\n%s",
				err, text);
		FZ_ASSERT(rc == TOPOMATCH_OK);
		FZ_ASSERT(t.n == u.n && t.height == u.height);
		for (int64_t i = 0; i < t.n; i++)
			FZ_ASSERT(t.sw[i].depth == u.sw[i].depth &&
				  t.sw[i].nchild == u.sw[i].nchild);
		for (int64_t i = 0; i < t.n; i++)
			FZ_ASSERT((t.sw[i].nodes ? tm_hostlist_count(t.sw[i].nodes) : 0) ==
				  (u.sw[i].nodes ? tm_hostlist_count(u.sw[i].nodes) : 0));
		tm_swtree_free(&u);
		tm_swtree_free(&t);
		free(text);
	}
	free(buf);
	return 0;
}

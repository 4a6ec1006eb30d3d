/*
 * fuzz_topology.c - libFuzzer harness of the Scotch target strings
 * (core/topology/topology_parse.c: "tleaf ...", "torus3D ...", "meshXD ... wrap ...
 * local ... cost ...", "hcub d"), as topomatch_topology_load() reads them
 * from a file (not NUL-terminated, any bytes), type-2 "deco" targets
 * (core/topology/topology_deco.c) included.  A target that parses must describe
 * itself in text that parses back to the same description (a graph, read
 * from a "deco", has no such text: its Scotch export must read back to the
 * same distances instead), and answer distance queries and the Scotch
 * export without trouble.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <math.h>

#include "topology/topology_internal.h"

static void queries(const topomatch_topology_t *t)
{
	int64_t n = topomatch_topology_npu(t);
	FZ_ASSERT(n >= 1 && n <= TOPOMATCH_MAX_PUS);
	int64_t pick[] = { 0, 1, n / 2, n - 2, n - 1 };
	for (size_t i = 0; i < sizeof(pick) / sizeof(pick[0]); i++) {
		for (size_t j = 0; j < sizeof(pick) / sizeof(pick[0]); j++) {
			int64_t p = pick[i], q = pick[j];
			if (p < 0 || q < 0 || p >= n || q >= n)
				continue;
			int64_t h = topomatch_topology_hops(t, p, q);
			double c = topomatch_topology_cost(t, p, q);
			FZ_ASSERT(h >= 0 && (h == 0) == (p == q));
			FZ_ASSERT(h == topomatch_topology_hops(t, q, p));
			FZ_ASSERT(c >= 0 && !isnan(c));
		}
	}
	FZ_ASSERT(topomatch_topology_hops(t, -1, 0) == -1);
	FZ_ASSERT(topomatch_topology_hops(t, 0, n) == -1);
	/* the Scotch export, on small targets only: for shapes Scotch lacks it
	 * has Scotch build a decomposition of every PU (milliseconds for a few
	 * thousand PUs, seconds for millions: Scotch's cost, not the parser's) */
	FILE *f = n <= 256 ? fopen("/dev/null", "w") : NULL;
	if (f) {
		char err[TOPOMATCH_ERRLEN];
		fz_err_init(err);
		int rc = topomatch_topology_write_scotch(t, f, err);
		fz_check_err(rc, err);
		fclose(f);
	}
}

/* A graph (from a "deco") exported as Scotch's target and read back:
 * same PUs, same distances between the queried ones (small graphs only,
 * as the export in queries(); a graph of one PU is exported as "cmplt 1",
 * which only Scotch reads). */
static void graph_round_trip(const topomatch_topology_t *t)
{
	int64_t n = topomatch_topology_npu(t);
	char *text = NULL, err[TOPOMATCH_ERRLEN];
	size_t len = 0;
	if (n < 2 || n > 256)
		return;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	fz_err_init(err);
	int rc = topomatch_topology_write_scotch(t, f, err);
	fz_check_err(rc, err);
	fclose(f);
	topomatch_topology_t *u = NULL;
	if (rc == TOPOMATCH_OK) {
		fz_err_init(err);
		rc = tm_topology_parse_buf(text, len, "exported", &u, err);
		if (rc != TOPOMATCH_OK)
			fprintf(stderr, "fuzz: a graph's export does not read back: %s\n", err);
		FZ_ASSERT(rc == TOPOMATCH_OK);
		FZ_ASSERT(topomatch_topology_npu(u) == n);
		int64_t pick[] = { 0, 1, n / 2, n - 1 };
		for (size_t i = 0; i < 4; i++)
			for (size_t j = 0; j < 4; j++)
				if (pick[i] < n && pick[j] < n)
					FZ_ASSERT(topomatch_topology_hops(t, pick[i], pick[j]) ==
						  topomatch_topology_hops(u, pick[i], pick[j]));
		topomatch_topology_destroy(u);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN], desc[4096], desc2[4096];
	topomatch_topology_t *t = NULL, *u = NULL;
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	fz_err_init(err);
	int rc = tm_topology_parse_buf(buf, size, "fuzz", &t, err);
	fz_check_err(rc, err);
	FZ_ASSERT((rc == TOPOMATCH_OK) == (t != NULL));
	if (t && topomatch_topology_kind(t) == TOPOMATCH_TOPO_GRAPH) {
		queries(t);
		graph_round_trip(t);
		topomatch_topology_destroy(t);
	} else if (t) {
		rc = topomatch_topology_describe(t, desc, sizeof(desc));
		FZ_ASSERT(rc == TOPOMATCH_OK);
		fz_err_init(err);
		rc = topomatch_topology_parse(desc, "described", &u, err);
		if (rc != TOPOMATCH_OK)
			fprintf(stderr, "fuzz: '%s' does not parse back: %s\n", desc, err);
		FZ_ASSERT(rc == TOPOMATCH_OK);
		FZ_ASSERT(topomatch_topology_describe(u, desc2, sizeof(desc2)) == TOPOMATCH_OK);
		if (strcmp(desc, desc2) != 0)
			fprintf(stderr, "fuzz: '%s' reads back as '%s'\n", desc, desc2);
		FZ_ASSERT(strcmp(desc, desc2) == 0);
		FZ_ASSERT(topomatch_topology_npu(t) == topomatch_topology_npu(u));
		FZ_ASSERT(topomatch_topology_kind(t) == topomatch_topology_kind(u));
		queries(t);
		topomatch_topology_destroy(u);
		topomatch_topology_destroy(t);
	}
	free(buf);
	return 0;
}

/*
 * fuzz_ompi.c - libFuzzer harness of the Open MPI monitoring reader
 * (core/pattern/affinity_ompi.c, topomatch convert): the input is cut at NUL bytes
 * into up to 8 files PREFIX.RANK.prof, each added from a stream
 * (fmemopen) with its rank taken from its lines; then the pattern is
 * built and checked.  A failed add must leave the accumulator usable.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <math.h>

#define MAX_FILES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	char *piece[MAX_FILES];
	size_t len[MAX_FILES];
	topomatch_ompi_t *m = NULL;
	/* every kind, so that every line is used; a rank count that keeps runs fast */
	topomatch_ompi_opts_t o = { .kinds = TOPOMATCH_OMPI_ALL,
				    .metric = size % 2 ? TOPOMATCH_OMPI_MSGS : TOPOMATCH_OMPI_BYTES,
				    .limits = { .max_tasks = 1 << 16, .max_nnz = 1 << 20 } };

	int rc = topomatch_ompi_create(&o, &m, err);
	FZ_ASSERT(rc == TOPOMATCH_OK);
	int n = fz_split(data, size, '\0', MAX_FILES, 0, piece, len);
	for (int k = 0; k < n; k++) {
		char name[32];
		snprintf(name, sizeof(name), "fuzz.%d.prof", k);
		/* fmemopen refuses an empty buffer in some libcs: /dev/null then */
		FILE *f = len[k] ? fmemopen(piece[k], len[k], "r") : fopen("/dev/null", "r");
		FZ_ASSERT(f != NULL);
		fz_err_init(err);
		rc = topomatch_ompi_add(m, f, name, -1, err);
		fz_check_err(rc, err);
		fclose(f);
		free(piece[k]);
	}
	topomatch_affinity_t *a = NULL;
	topomatch_ompi_info_t info;
	fz_err_init(err);
	rc = topomatch_ompi_finish(m, &a, &info, err);
	fz_check_err(rc, err);
	FZ_ASSERT((rc == TOPOMATCH_OK) == (a != NULL));
	if (a) {
		topomatch_csr_t c = topomatch_affinity_directed(a);
		FZ_ASSERT(c.n == info.nranks && c.n >= 1 && c.n <= o.limits.max_tasks);
		FZ_ASSERT(info.files >= 1 && info.files <= n);
		for (int64_t k = 0; k < c.rowptr[c.n]; k++)
			FZ_ASSERT(c.col[k] >= 0 && c.col[k] < c.n && isfinite(c.w[k]) && c.w[k] > 0);
		topomatch_affinity_destroy(a);
	}
	topomatch_ompi_destroy(m);
	return 0;
}

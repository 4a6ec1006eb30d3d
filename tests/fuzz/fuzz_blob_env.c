/*
 * fuzz_blob_env.c - libFuzzer harness of topomatch_blob_decode_env(), the
 * call by which slurmctld's select plugin (plugin/select/
 * select_topomatch.c) decodes the pattern from a job's spank_job_env,
 * which any user controls.  The input is cut at newlines into up to 64
 * "NAME=VALUE" strings (NUL-terminated, as in the job record); one in
 * eight strings also passes through topomatch_blob_decode() directly.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <math.h>

#define MAX_ENV 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	char *env[MAX_ENV];
	size_t len[MAX_ENV];
	topomatch_affinity_t *a = NULL;
	topomatch_blob_info_t info;
	/* smaller limits than the defaults, so that the limit checks are reached */
	topomatch_blob_limits_t lim = { .max_entry = 4096, .max_total = 16384,
					.max_tasks = 1 << 16 };

	int n = fz_split(data, size, '\n', MAX_ENV, 1, env, len);
	fz_err_init(err);
	int rc = topomatch_blob_decode_env((const char *const *)env, (size_t)n, NULL,
					   size % 2 ? &lim : NULL, &a, &info, err);
	fz_check_err(rc, err);
	FZ_ASSERT(rc == TOPOMATCH_OK || a == NULL);
	if (a) {
		topomatch_csr_t c = topomatch_affinity_symmetric(a);
		FZ_ASSERT(c.n == info.ntasks && c.rowptr[c.n] == 2 * info.nnz_kept);
		for (int64_t k = 0; k < c.rowptr[c.n]; k++)
			FZ_ASSERT(c.col[k] >= 0 && c.col[k] < c.n && isfinite(c.w[k]) && c.w[k] > 0);
		topomatch_affinity_destroy(a);
	}
	/* the values as a raw entry list */
	if (n > 0 && size % 8 == 0) {
		fz_err_init(err);
		rc = topomatch_blob_decode((const char *const *)env, n, NULL, &a, &info, err);
		fz_check_err(rc, err);
		topomatch_affinity_destroy(a);
	}
	for (int k = 0; k < n; k++)
		free(env[k]);
	return 0;
}

/*
 * fuzz_affinity.h - body of the pattern-reader harnesses fuzz_dense,
 * fuzz_mm, fuzz_triplets and fuzz_grf: each defines FUZZ_FORMAT and
 * includes this file.
 *
 * The input is read with topomatch_affinity_read_buffer() in that format
 * (exact-size buffer, not NUL-terminated), the auto-detection runs on it
 * too, and a pattern that reads is checked (CSR invariants) and written
 * back in the same format, which must read back to the same pattern.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <math.h>

#include "pattern/affinity_formats.h"

/* Round trips only on small patterns (a dense write is n^2 numbers). */
#define FZ_RT_MAX_TASKS 256

static void check_csr(topomatch_csr_t c, int64_t n)
{
	FZ_ASSERT(c.n == n && c.rowptr[0] == 0);
	for (int64_t i = 0; i < n; i++) {
		FZ_ASSERT(c.rowptr[i] <= c.rowptr[i + 1]);
		for (int64_t k = c.rowptr[i]; k < c.rowptr[i + 1]; k++) {
			FZ_ASSERT(c.col[k] >= 0 && c.col[k] < n && c.col[k] != i);
			FZ_ASSERT(k == c.rowptr[i] || c.col[k - 1] < c.col[k]);
			FZ_ASSERT(isfinite(c.w[k]) && c.w[k] > 0.0);
		}
	}
}

static void round_trip(const topomatch_affinity_t *a)
{
	char *text = NULL, err[TOPOMATCH_ERRLEN];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	int rc = topomatch_affinity_write(a, f, FUZZ_FORMAT, err);
	fclose(f);
	if (rc != TOPOMATCH_OK) { /* grf holds only integer weights and loads */
		FZ_ASSERT(FUZZ_FORMAT == TOPOMATCH_FORMAT_GRF && rc == TOPOMATCH_EINVAL);
		free(text);
		return;
	}
	topomatch_affinity_t *b = NULL;
	fz_err_init(err);
	rc = topomatch_affinity_read_buffer(text, len, "written", FUZZ_FORMAT, NULL, &b, err);
	if (rc != TOPOMATCH_OK)
		fprintf(stderr, "fuzz: written pattern does not read back: %s\n%s\n", err, text);
	FZ_ASSERT(rc == TOPOMATCH_OK);
	topomatch_csr_t x = topomatch_affinity_directed(a), y = topomatch_affinity_directed(b);
	FZ_ASSERT(x.n == y.n && x.rowptr[x.n] == y.rowptr[y.n]);
	for (int64_t i = 0; i <= x.n; i++)
		FZ_ASSERT(x.rowptr[i] == y.rowptr[i]);
	for (int64_t k = 0; k < x.rowptr[x.n]; k++)
		FZ_ASSERT(x.col[k] == y.col[k] && x.w[k] == y.w[k]);
	topomatch_affinity_destroy(b);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a = NULL;
	/* the default limits, but a task count that keeps every run fast */
	topomatch_limits_t lim = { .max_tasks = 1 << 16, .max_nnz = 1 << 20, .max_bytes = 0 };
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	int f = tm_affinity_detect(buf, size);
	FZ_ASSERT(f >= TOPOMATCH_FORMAT_DENSE && f <= TOPOMATCH_FORMAT_GRF);
	fz_err_init(err);
	int rc = topomatch_affinity_read_buffer(buf, size, "fuzz", FUZZ_FORMAT, &lim, &a, err);
	fz_check_err(rc, err);
	FZ_ASSERT((rc == TOPOMATCH_OK) == (a != NULL));
	if (a) {
		int64_t n = topomatch_affinity_ntasks(a);
		FZ_ASSERT(n >= 1 && n <= lim.max_tasks);
		FZ_ASSERT(topomatch_affinity_nnz(a) <= lim.max_nnz);
		check_csr(topomatch_affinity_directed(a), n);
		check_csr(topomatch_affinity_symmetric(a), n);
		FZ_ASSERT(topomatch_affinity_total(a) >= 0.0);
		if (n <= FZ_RT_MAX_TASKS)
			round_trip(a);
		topomatch_affinity_destroy(a);
	}
	free(buf);
	return 0;
}

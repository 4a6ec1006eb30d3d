/*
 * fuzz_blob.c - libFuzzer harness of the pattern blob's payload decoder
 * (core/pattern/pattern_blob.c, what slurmctld's select plugin decodes from a
 * job's spank_job_env).  The input is the binary payload: the harness
 * wraps it in valid entries (header, FNV-1a hash, base64url, split into
 * entries of at most 256 characters), so that the fuzzer reaches the
 * varints, rows and weight codes behind the checksum, once as format
 * version 1, once as version 2 (repeated rows; with limits that keep
 * what a few bytes repeat into small) and once as version 3 (groups).  fuzz_blob_env covers the strings
 * themselves.  A payload that decodes must give a consistent pattern,
 * which encodes and decodes again to the same shape.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include <math.h>

#define HDR_LEN 38
#define ROOM 256 /* data characters per entry, a multiple of 4 */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void put_hex(char *s, int nd, uint64_t v)
{
	for (int k = nd - 1; k >= 0; k--, v >>= 4)
		s[k] = "0123456789abcdef"[v & 15];
}

static char *base64(const uint8_t *in, size_t n, size_t *chars)
{
	char *out = malloc(n / 3 * 4 + 5);
	size_t k = 0;
	if (!out)
		abort();
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		size_t nc = n - i >= 3 ? 4 : n - i + 1;
		for (size_t c = 0; c < nc; c++)
			out[k++] = b64[(v >> (18 - 6 * c)) & 63];
	}
	out[k] = '\0';
	*chars = k;
	return out;
}

static void check_pattern(const topomatch_affinity_t *a, const topomatch_blob_info_t *info)
{
	topomatch_csr_t c = topomatch_affinity_symmetric(a);
	FZ_ASSERT(info->group >= 1 && info->group <= TOPOMATCH_BLOB_MAX_GROUP);
	FZ_ASSERT(c.n * info->group == info->ntasks && c.n >= 1 && c.n <= TOPOMATCH_BLOB_MAX_TASKS);
	FZ_ASSERT(c.rowptr[c.n] == 2 * info->nnz_kept);
	for (int64_t i = 0; i < c.n; i++)
		for (int64_t k = c.rowptr[i]; k < c.rowptr[i + 1]; k++)
			FZ_ASSERT(c.col[k] >= 0 && c.col[k] < c.n && c.col[k] != i &&
				  isfinite(c.w[k]) && c.w[k] > 0);
}

static void decode_as(const uint8_t *data, size_t size, int ver,
		      const topomatch_blob_limits_t *lim)
{
	char err[TOPOMATCH_ERRLEN], **v = NULL;
	size_t chars;
	char *text = base64(data, size, &chars);

	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (size_t i = 0; i < size; i++) {
		h ^= data[i];
		h *= UINT64_C(0x100000001b3);
	}
	int n = (int)((chars + ROOM - 1) / ROOM);
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		abort();
	for (int k = 0; k < n; k++) {
		size_t off = (size_t)k * ROOM, len = chars - off < ROOM ? chars - off : ROOM;
		v[k] = malloc(HDR_LEN + len + 1);
		if (!v[k])
			abort();
		memcpy(v[k], "TMP1", 4);
		put_hex(v[k] + 4, 2, (uint64_t)ver);
		put_hex(v[k] + 6, 4, (uint64_t)k);
		put_hex(v[k] + 10, 4, (uint64_t)n);
		put_hex(v[k] + 14, 8, size);
		put_hex(v[k] + 22, 16, h);
		memcpy(v[k] + HDR_LEN, text + off, len);
		v[k][HDR_LEN + len] = '\0';
	}
	free(text);
	topomatch_affinity_t *a = NULL;
	topomatch_blob_info_t info;
	fz_err_init(err);
	int rc = topomatch_blob_decode((const char *const *)v, n, lim, &a, &info, err);
	fz_check_err(rc, err);
	FZ_ASSERT((rc == TOPOMATCH_OK) == (a != NULL));
	/* the entries are well formed: only the payload can be wrong */
	FZ_ASSERT(rc == TOPOMATCH_OK || rc == TOPOMATCH_EPARSE || rc == TOPOMATCH_ELIMIT);
	topomatch_blob_free(v, n);
	if (a) {
		check_pattern(a, &info);
		char **e2 = NULL;
		int n2 = 0;
		topomatch_blob_info_t i2, i3;
		fz_err_init(err);
		rc = topomatch_blob_encode(a, 0.0, NULL, &e2, &n2, &i2, err);
		fz_check_err(rc, err);
		FZ_ASSERT(rc == TOPOMATCH_OK || rc == TOPOMATCH_ELIMIT);
		if (rc == TOPOMATCH_OK) {
			topomatch_affinity_t *b = NULL;
			fz_err_init(err);
			rc = topomatch_blob_decode((const char *const *)e2, n2, NULL, &b, &i3, err);
			if (rc != TOPOMATCH_OK)
				fprintf(stderr, "fuzz: re-encoded pattern does not decode: %s\n", err);
			FZ_ASSERT(rc == TOPOMATCH_OK);
			check_pattern(b, &i3);
			FZ_ASSERT(i3.ntasks == info.ntasks / info.group); /* re-encoded one by one */
			FZ_ASSERT(i2.nnz_kept <= info.nnz_kept && i3.nnz_kept == i2.nnz_kept);
			topomatch_affinity_destroy(b);
		}
		topomatch_blob_free(e2, n2);
		topomatch_affinity_destroy(a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const topomatch_blob_limits_t small = { .max_tasks = 1 << 16, .max_edges = 1 << 18 };

	if (size == 0 || size > 65536)
		return 0;
	decode_as(data, size, 1, NULL);
	decode_as(data, size, 2, &small);
	decode_as(data, size, 3, &small);
	return 0;
}

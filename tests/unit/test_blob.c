/*
 * test_blob.c - the pattern blob of spank_job_env (topomatch_blob_*):
 * round trips, sparsification to fit the limits, every rejection of the
 * hostile-input decoder, environment collection, determinism, and a
 * mutation fuzz (run it under ASan and valgrind).
 *
 * The helpers below re-implement the format's outer layers (base64url,
 * FNV-1a, the entry header) from the description in core/pattern/pattern_blob.c,
 * independently of the library: they check that the encoder follows the
 * description, and they re-seal hand-made or mutated payloads so that
 * the payload parser is reached past the checksum.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define HDR 38 /* "TMP1" VV IIII NNNN LLLLLLLL HHHHHHHHHHHHHHHH */

/* ------------------------------------------------------------ format side */

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64v(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Payload bytes of valid entries (data parts concatenated). */
static uint8_t *unseal(char *const *v, int n, size_t *L)
{
	size_t chars = 0;

	for (int k = 0; k < n; k++)
		chars += strlen(v[k]) - HDR;
	uint8_t *out = malloc(chars + 1);
	uint32_t acc = 0;
	int bits = 0;
	*L = 0;
	for (int k = 0; k < n; k++)
		for (const char *c = v[k] + HDR; *c; c++) {
			acc = acc << 6 | (uint32_t)b64v(*c);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out[(*L)++] = (uint8_t)(acc >> bits);
			}
		}
	return out;
}

/* Entries of a payload of format version ver, `room` data characters (a
 * multiple of 4) each. */
static char **reseal_v(const uint8_t *p, size_t L, size_t room, int ver, int *n)
{
	size_t chars = L / 3 * 4 + (L % 3 ? L % 3 + 1 : 0);
	char *text = malloc(chars + 1);
	size_t t = 0;

	for (size_t i = 0; i < L; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < L ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < L ? p[i + 2] : 0);
		for (size_t c = 0; c < (L - i >= 3 ? 4 : L - i + 1); c++)
			text[t++] = b64[(v >> (18 - 6 * c)) & 63];
	}
	*n = chars ? (int)((chars + room - 1) / room) : 1;
	char **v = calloc((size_t)*n, sizeof(*v));
	for (int k = 0; k < *n; k++) {
		size_t off = (size_t)k * room, len = chars - off < room ? chars - off : room;
		char h[64];
		snprintf(h, sizeof(h), "TMP1%02x%04x%04x%08x%016llx", (unsigned)ver, (unsigned)k,
			 (unsigned)*n, (unsigned)L, (unsigned long long)fnv(p, L));
		ck_assert_uint_eq(strlen(h), HDR);
		v[k] = malloc(HDR + len + 1);
		memcpy(v[k], h, HDR);
		memcpy(v[k] + HDR, text + off, len);
		v[k][HDR + len] = '\0';
	}
	free(text);
	return v;
}

/* Version 1: the hand-made payloads below that have no repeated rows
 * spell rows as version 1 did (the decoder reads both). */
static char **reseal(const uint8_t *p, size_t L, size_t room, int *n)
{
	return reseal_v(p, L, room, 1, n);
}

/* A payload under construction (see the format comment); ver 2 when it
 * uses version 2's row headers. */
struct pl {
	uint8_t b[8192];
	size_t n;
	int ver;
};

static void pv(struct pl *p, uint64_t v)
{
	do {
		p->b[p->n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pd(struct pl *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	for (int k = 0; k < 8; k++)
		p->b[p->n++] = (uint8_t)(u >> (8 * k));
}

/* Payload header: n tasks, nnz (input too), wmax, totals, factor. */
static void phead(struct pl *p, uint64_t n, uint64_t nnz, double wmax, double total)
{
	p->n = 0;
	p->ver = 1;
	pv(p, n);
	pv(p, nnz);
	pv(p, nnz);
	pd(p, wmax);
	pd(p, total);
	pd(p, total);
	pd(p, 0.0);
}

/* The 3-task pattern A(0,1) = 10, A(1,2) = 5 as format version 1
 * spells it. */
static void three_tasks(struct pl *p)
{
	phead(p, 3, 2, 10.0, 15.0);
	pv(p, 1);    /* row 0: one edge */
	pv(p, 1);    /* to 1 (gap 0), code predicted (0: w = wmax) */
	pv(p, 1);    /* row 1: one edge */
	pv(p, 0);    /* to 2, offset 1 predicted 0 but ... */
	pv(p, 1024); /* ... the code is 1024: r = 1/2 */
	pv(p, 0);    /* row 2: none above the diagonal */
}

/* The same in version 2: row headers count << 1, no repeat (row 1's
 * weight differs from row 0's). */
static void three_tasks_v2(struct pl *p)
{
	phead(p, 3, 2, 10.0, 15.0);
	p->ver = 2;
	pv(p, 1 << 1);
	pv(p, 1);
	pv(p, 1 << 1);
	pv(p, 0);
	pv(p, 1024);
	pv(p, 0 << 1);
}

/* ---------------------------------------------------------------- helpers */

static topomatch_blob_limits_t limits(size_t entry, size_t total, int64_t tasks)
{
	topomatch_blob_limits_t l = { entry, total, tasks, 0, 0 };
	return l;
}

static char **enc(const topomatch_affinity_t *a, double sf, const topomatch_blob_limits_t *lim,
		  int *n, topomatch_blob_info_t *info)
{
	char **v = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_blob_encode(a, sf, lim, &v, n, info, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "encode: %s", err);
	return v;
}

static topomatch_affinity_t *dec(char *const *v, int n, const topomatch_blob_limits_t *lim,
				 topomatch_blob_info_t *info)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_blob_decode((const char *const *)v, n, lim, &a, info, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "decode: %s", err);
	return a;
}

/* Decode expecting failure `status` with `msg` in the message. */
static void reject(char *const *v, int n, const topomatch_blob_limits_t *lim, int status,
		   const char *msg)
{
	topomatch_affinity_t *a = (topomatch_affinity_t *)&a; /* must be reset */
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_blob_decode((const char *const *)v, n, lim, &a, NULL, err);

	ck_assert_msg(rc == status, "status %d (%s), expected %d", rc, err, status);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, msg);
	ck_assert_ptr_null(strchr(err, '\n'));
}

/* A hand-made payload must be rejected with `msg`. */
static void reject_payload(const struct pl *p, int status, const char *msg)
{
	int n;
	char **v = reseal_v(p->b, p->n, 1024, p->ver, &n);

	reject(v, n, NULL, status, msg);
	topomatch_blob_free(v, n);
}

static topomatch_affinity_t *stencil(int nx, int ny, int nz, int points, int periodic,
				     const double *w)
{
	const int dims[3] = { nx, ny, nz };
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];

	ck_assert_msg(topomatch_gen_stencil(3, dims, points, periodic, w, &a, err) == 0, "%s",
		      err);
	return a;
}

static topomatch_affinity_t *random_pattern(int64_t n, int64_t degree, double maxw,
					    uint64_t seed)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];

	ck_assert_msg(topomatch_gen_random(n, degree, maxw, seed, &a, err) == 0, "%s", err);
	return a;
}

/* A(i,j), 0 when absent. */
static double aw(const topomatch_affinity_t *a, int64_t i, int64_t j)
{
	topomatch_csr_t s = topomatch_affinity_symmetric(a);

	for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; p++)
		if (s.col[p] == j)
			return s.w[p];
	return 0.0;
}

static double a_max(const topomatch_affinity_t *a)
{
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	double m = 0;

	for (int64_t p = 0; p < s.rowptr[s.n]; p++)
		m = s.w[p] > m ? s.w[p] : m;
	return m;
}

/*
 * b has a's sparsity and a's weights within the quantisation: relative
 * error 2^-11 (plus two roundings), or raised to the smallest code.
 */
static void assert_same_pattern(const topomatch_affinity_t *a, const topomatch_affinity_t *b)
{
	topomatch_csr_t x = topomatch_affinity_symmetric(a), y = topomatch_affinity_symmetric(b);
	double floor_w = ldexp(a_max(a), -64);

	ck_assert_int_eq(x.n, y.n);
	ck_assert_int_eq(x.rowptr[x.n], y.rowptr[y.n]);
	for (int64_t i = 0; i <= x.n; i++)
		ck_assert_int_eq(x.rowptr[i], y.rowptr[i]);
	for (int64_t p = 0; p < x.rowptr[x.n]; p++) {
		ck_assert_int_eq(x.col[p], y.col[p]);
		double tol = ldexp(x.w[p], -11) * (1 + 1e-12);
		bool raised = x.w[p] < floor_w && y.w[p] >= x.w[p];
		ck_assert_msg(fabs(y.w[p] - x.w[p]) <= tol || raised,
			      "entry %lld: %.17g decoded as %.17g", (long long)p, x.w[p], y.w[p]);
	}
}

/* The decoded directed matrix is A / 2 both ways. */
static void assert_halves(const topomatch_affinity_t *b)
{
	topomatch_csr_t c = topomatch_affinity_directed(b), s = topomatch_affinity_symmetric(b);

	ck_assert_int_eq(c.rowptr[c.n], s.rowptr[s.n]);
	for (int64_t p = 0; p < c.rowptr[c.n]; p++)
		ck_assert(c.w[p] * 2 == s.w[p] && c.col[p] == s.col[p]);
}

/* Indices in range, rows increasing, weights positive and finite. */
static void assert_sane(const topomatch_affinity_t *b, int64_t max_tasks)
{
	topomatch_csr_t s = topomatch_affinity_symmetric(b);

	ck_assert(s.n >= 1 && s.n <= max_tasks);
	ck_assert_int_eq(s.rowptr[0], 0);
	for (int64_t i = 0; i < s.n; i++) {
		ck_assert(s.rowptr[i] <= s.rowptr[i + 1]);
		for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; p++) {
			ck_assert(s.col[p] >= 0 && s.col[p] < s.n && s.col[p] != i);
			ck_assert(p == s.rowptr[i] || s.col[p - 1] < s.col[p]);
			ck_assert(isfinite(s.w[p]) && s.w[p] > 0);
		}
	}
}

static void assert_no_isolated(const topomatch_affinity_t *orig, const topomatch_affinity_t *b)
{
	topomatch_csr_t x = topomatch_affinity_symmetric(orig), y = topomatch_affinity_symmetric(b);

	for (int64_t i = 0; i < x.n; i++)
		if (x.rowptr[i + 1] > x.rowptr[i])
			ck_assert_msg(y.rowptr[i + 1] > y.rowptr[i], "task %lld isolated",
				      (long long)i);
}

static size_t strings_size(char *const *v, int n)
{
	size_t s = 0;

	for (int k = 0; k < n; k++)
		s += strlen(v[k]) + 1;
	return s;
}

static void assert_printable(char *const *v, int n, size_t max_entry)
{
	for (int k = 0; k < n; k++) {
		ck_assert_uint_le(strlen(v[k]) + 1, max_entry);
		for (const char *c = v[k]; *c; c++)
			ck_assert_msg(strchr(b64, *c) != NULL, "entry %d: character %d", k, *c);
	}
}

/* ------------------------------------------------------------- round trip */

START_TEST(roundtrip_stencil_4096)
{
	topomatch_affinity_t *a = stencil(16, 16, 16, 7, 0, NULL), *b;
	topomatch_blob_info_t ie, id;
	int n;
	char **v = enc(a, 0.0, NULL, &n, &ie);

	/* the design aim: a 4096-rank 7-point stencil in one or two entries */
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(ie.bytes, strings_size(v, n));
	ck_assert_uint_lt(ie.bytes, 32 * 1024);
	ck_assert_int_eq(ie.ntasks, 4096);
	ck_assert_int_eq(ie.nnz_input, 3 * 15 * 16 * 16);
	ck_assert_int_eq(ie.nnz_kept, ie.nnz_input);
	ck_assert(ie.weight_kept == ie.weight_input && ie.sparse_factor == 0.0);
	assert_printable(v, n, TOPOMATCH_BLOB_MAX_ENTRY);
	b = dec(v, n, NULL, &id);
	ck_assert_mem_eq(&ie, &id, sizeof(ie));
	/* uniform weights are the largest: code 0, decoded exactly */
	assert_same_pattern(a, b);
	topomatch_csr_t x = topomatch_affinity_symmetric(a), y = topomatch_affinity_symmetric(b);
	ck_assert_mem_eq(x.w, y.w, (size_t)x.rowptr[x.n] * sizeof(double));
	assert_halves(b);
	ck_assert(topomatch_affinity_total(b) == topomatch_affinity_total(a));
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(roundtrip_65536_fits)
{
	/* 65,536 ranks, periodic, three face weights: nothing dropped */
	const double w[3] = { 1000, 500, 100 };
	topomatch_affinity_t *a = stencil(64, 64, 16, 7, 1, w), *b;
	topomatch_blob_info_t ie;
	int n;
	char **v = enc(a, 0.0, NULL, &n, &ie);

	ck_assert_int_eq(ie.nnz_kept, ie.nnz_input);
	ck_assert_uint_le(ie.bytes, TOPOMATCH_BLOB_MAX_TOTAL);
	assert_printable(v, n, TOPOMATCH_BLOB_MAX_ENTRY);
	b = dec(v, n, NULL, NULL);
	assert_same_pattern(a, b);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(roundtrip_random_weights)
{
	topomatch_affinity_t *a = random_pattern(1000, 8, 1e6, 7), *b;
	topomatch_blob_info_t ie, id;
	int n;
	char **v = enc(a, 0.0, NULL, &n, &ie);

	b = dec(v, n, NULL, &id);
	assert_same_pattern(a, b);
	assert_halves(b);
	ck_assert_mem_eq(&ie, &id, sizeof(ie));
	ck_assert(fabs(ie.weight_input - topomatch_affinity_total(a)) <=
		  1e-12 * topomatch_affinity_total(a));
	ck_assert(fabs(topomatch_affinity_total(b) - ie.weight_kept) <= ldexp(ie.weight_kept, -11));
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* Weights over more than 64 octaves: the lightest are raised, not lost. */
START_TEST(roundtrip_weight_range)
{
	int64_t s[4] = { 0, 1, 2, 3 }, d[4] = { 1, 2, 3, 0 };
	double w[4] = { 1e300, 1e10, 1e-3, 1e-250 };
	topomatch_affinity_t *a, *b;
	char err[TOPOMATCH_ERRLEN];
	int n;

	ck_assert_int_eq(topomatch_affinity_create(4, 4, s, d, w, NULL, &a, err), 0);
	char **v = enc(a, 0.0, NULL, &n, NULL);
	b = dec(v, n, NULL, NULL);
	assert_same_pattern(a, b);
	ck_assert(aw(b, 0, 3) == ldexp(1e300, -64) * (1 + 1.0 / 1024));
	ck_assert(aw(b, 0, 1) == 1e300);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(roundtrip_no_edges)
{
	topomatch_affinity_t *a, *b;
	char err[TOPOMATCH_ERRLEN];
	topomatch_blob_info_t id;
	int n;

	ck_assert_int_eq(topomatch_affinity_create(5, 0, NULL, NULL, NULL, NULL, &a, err), 0);
	char **v = enc(a, 0.5, NULL, &n, NULL);
	b = dec(v, n, NULL, &id);
	ck_assert_int_eq(topomatch_affinity_ntasks(b), 5);
	ck_assert_int_eq(topomatch_affinity_nnz(b), 0);
	ck_assert_int_eq(id.nnz_input, 0);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	ck_assert_int_eq(topomatch_affinity_create(1, 0, NULL, NULL, NULL, NULL, &a, err), 0);
	v = enc(a, 0.0, NULL, &n, NULL);
	b = dec(v, n, NULL, NULL);
	ck_assert_int_eq(topomatch_affinity_ntasks(b), 1);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* The encoder writes what the format comment says, to the byte. */
START_TEST(format_as_documented)
{
	int64_t s[3] = { 0, 1, 2 }, d[3] = { 1, 2, 1 };
	double w[3] = { 10, 2, 3 };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	struct pl p;
	int n, m;

	ck_assert_int_eq(topomatch_affinity_create(3, 3, s, d, w, NULL, &a, err), 0);
	char **v = enc(a, 0.0, NULL, &n, NULL);
	three_tasks_v2(&p);
	char **u = reseal_v(p.b, p.n, 1024, 2, &m);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(m, 1);
	ck_assert_str_eq(v[0], u[0]);
	ck_assert_str_eq(v[0], "TMP102000000010000002a61fc95d4ed8ca17b"
			       "AwICAAAAAAAAJEAAAAAAAAAuQAAAAAAAAC5AAAAAAAAAAAACAQIAgAgA");
	topomatch_blob_free(u, m);
	/* version 1's spelling still decodes, to the same pattern */
	three_tasks(&p);
	u = reseal(p.b, p.n, 1024, &m);
	topomatch_affinity_t *b1 = dec(u, m, NULL, NULL), *b2 = dec(v, n, NULL, NULL);
	assert_same_pattern(b2, b1);
	ck_assert(aw(b1, 0, 1) == 10 && aw(b1, 1, 2) == 5);
	topomatch_affinity_destroy(b1);
	topomatch_affinity_destroy(b2);
	topomatch_blob_free(v, n);
	topomatch_blob_free(u, m);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Mapping the decoded pattern ranks the mappers as the original does. */
START_TEST(roundtrip_mapping_order)
{
	const int ar[3] = { 4, 4, 4 };
	topomatch_affinity_t *a, *b;
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	const char *mappers[] = { "round-robin", "random", "treematch", "scotch" };
	double ha[4], hb[4];
	int64_t pu[64];
	int n;

	ck_assert_int_eq(topomatch_gen_hierarchical(3, ar, 1e6, 7.3, 0.2, 3, &a, err), 0);
	ck_assert_int_eq(topomatch_affinity_shuffle(a, 5, &b, err), 0);
	topomatch_affinity_destroy(a);
	a = b;
	ck_assert_int_eq(topomatch_topology_parse("tleaf 3 4 100 4 10 4 1", NULL, &t, err), 0);
	char **v = enc(a, 0.0, NULL, &n, NULL);
	b = dec(v, n, NULL, NULL);
	for (int k = 0; k < 4; k++) {
		topomatch_map_opts_t o;
		topomatch_metrics_t m;
		topomatch_map_opts_init(&o);
		o.mapper = mappers[k];
		ck_assert_int_eq(topomatch_map(a, t, &o, pu, NULL, err), 0);
		ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), 0);
		ha[k] = m.hop_bytes;
		ck_assert_int_eq(topomatch_map(b, t, &o, pu, NULL, err), 0);
		ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), 0);
		hb[k] = m.hop_bytes;
		/* judged on the original pattern, as good as from the original */
		ck_assert_msg(hb[k] <= ha[k] * 1.01, "%s: %g from the blob, %g", mappers[k],
			      hb[k], ha[k]);
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (ha[i] < ha[j] * 0.99)
				ck_assert_msg(hb[i] < hb[j], "%s vs %s", mappers[i], mappers[j]);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(deterministic)
{
	topomatch_affinity_t *a = random_pattern(3000, 12, 1e4, 11), *b;
	topomatch_blob_limits_t l = limits(4096, 64 * 1024, 0);
	int n1, n2, n3;
	char **v1 = enc(a, 0.0, &l, &n1, NULL), **v2 = enc(a, 0.0, &l, &n2, NULL);

	ck_assert_int_eq(n1, n2);
	for (int k = 0; k < n1; k++)
		ck_assert_str_eq(v1[k], v2[k]);
	topomatch_blob_free(v1, n1);
	topomatch_blob_free(v2, n2);
	topomatch_affinity_destroy(a);
	/* one pattern, one spelling: re-encoding a decoded stencil is the same */
	const double w[3] = { 8, 4, 1 };
	a = stencil(12, 10, 8, 7, 1, w);
	v1 = enc(a, 0.0, NULL, &n1, NULL);
	b = dec(v1, n1, NULL, NULL);
	v2 = enc(b, 0.0, NULL, &n3, NULL);
	ck_assert_int_eq(n1, n3);
	for (int k = 0; k < n1; k++)
		ck_assert_str_eq(v1[k], v2[k]);
	topomatch_blob_free(v1, n1);
	topomatch_blob_free(v2, n3);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* ----------------------------------------------------------- sparsifying */

/* Every dropped edge is at most sparse_factor x max; kept ones above it
 * unless they are a task's heaviest. */
static void assert_cut(const topomatch_affinity_t *a, const topomatch_affinity_t *b, double sf)
{
	topomatch_csr_t x = topomatch_affinity_symmetric(a);
	double cut = sf * a_max(a);

	for (int64_t i = 0; i < x.n; i++) {
		double rowmax = 0;
		for (int64_t p = x.rowptr[i]; p < x.rowptr[i + 1]; p++)
			rowmax = fmax(rowmax, x.w[p]);
		for (int64_t p = x.rowptr[i]; p < x.rowptr[i + 1]; p++) {
			bool kept = aw(b, i, x.col[p]) > 0;
			if (!kept)
				ck_assert_msg(x.w[p] <= cut * (1 + 1e-15), "dropped %g > %g",
					      x.w[p], cut);
			else if (x.w[p] < cut * (1 - 1e-15)) {
				/* a task's heaviest: this row's or the other end's */
				int64_t j = x.col[p];
				double jmax = 0;
				for (int64_t q = x.rowptr[j]; q < x.rowptr[j + 1]; q++)
					jmax = fmax(jmax, x.w[q]);
				ck_assert(x.w[p] == rowmax || x.w[p] == jmax);
			}
		}
	}
}

START_TEST(sparse_factor_keeps_heavy)
{
	const int ar[3] = { 4, 4, 4 };
	topomatch_affinity_t *a, *b;
	topomatch_blob_info_t ie;
	char err[TOPOMATCH_ERRLEN];
	int n;

	/* groups exchange 1000, then 1000/8, 1000/64: factor 0.5 keeps groups */
	ck_assert_int_eq(topomatch_gen_hierarchical(3, ar, 1000, 8, 0.1, 1, &a, err), 0);
	char **v = enc(a, 0.5, NULL, &n, &ie);
	b = dec(v, n, NULL, NULL);
	ck_assert(ie.sparse_factor == 0.5);
	assert_no_isolated(a, b);
	assert_cut(a, b, 0.5);
	/* exactly the 3 partners of each task's group of 4 */
	ck_assert_int_eq(ie.nnz_kept, 64 * 3 / 2);
	ck_assert_int_eq(topomatch_affinity_nnz(b), 2 * ie.nnz_kept);
	ck_assert(ie.weight_kept < ie.weight_input);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(limits_force_sparsification)
{
	topomatch_affinity_t *a = random_pattern(2048, 16, 1000, 3), *b;
	topomatch_blob_limits_t l = limits(8192, 64 * 1024, 0);
	topomatch_blob_info_t ie, id;
	int n;
	char **v = enc(a, 0.0, &l, &n, &ie);

	ck_assert_uint_le(ie.bytes, l.max_total);
	ck_assert_uint_eq(ie.bytes, strings_size(v, n));
	assert_printable(v, n, l.max_entry);
	ck_assert_int_lt(ie.nnz_kept, ie.nnz_input);
	ck_assert(ie.weight_kept < ie.weight_input);
	ck_assert(ie.sparse_factor > 0 && ie.sparse_factor < 1);
	double dropped = 100 * (1 - ie.weight_kept / ie.weight_input);
	ck_assert(dropped > 1 && dropped < 90);
	/* twice the room keeps more */
	l.max_total *= 2;
	topomatch_blob_info_t i2;
	int n2;
	char **v2 = enc(a, 0.0, &l, &n2, &i2);
	ck_assert_int_gt(i2.nnz_kept, ie.nnz_kept);
	ck_assert(i2.sparse_factor < ie.sparse_factor);
	topomatch_blob_free(v2, n2);
	b = dec(v, n, &l, &id);
	ck_assert_mem_eq(&ie, &id, sizeof(ie));
	assert_sane(b, 2048);
	assert_no_isolated(a, b);
	assert_cut(a, b, ie.sparse_factor);
	ck_assert_int_eq(topomatch_affinity_nnz(b), 2 * ie.nnz_kept);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* Equal weights without locality in the task numbers (a shuffled stencil,
 * whose rows do not repeat): the drops spread, the factor says 1, no task
 * isolated. */
START_TEST(limits_uniform_ties)
{
	topomatch_affinity_t *s = stencil(16, 16, 16, 27, 0, NULL), *a, *b;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_affinity_shuffle(s, 5, &a, err), TOPOMATCH_OK);
	topomatch_affinity_destroy(s);
	topomatch_blob_limits_t l = limits(0, 48 * 1024, 0);
	topomatch_blob_info_t ie;
	int n;
	char **v = enc(a, 0.0, &l, &n, &ie);

	ck_assert_int_lt(ie.nnz_kept, ie.nnz_input);
	ck_assert(ie.sparse_factor == 1.0);
	b = dec(v, n, &l, NULL);
	assert_no_isolated(a, b);
	/* spread: no row keeps all its 13 upper edges while most keep several */
	topomatch_csr_t y = topomatch_affinity_symmetric(b);
	int64_t lonely = 0;
	for (int64_t i = 0; i < y.n; i++)
		lonely += y.rowptr[i + 1] - y.rowptr[i] == 1;
	ck_assert_int_lt(lonely, y.n / 10);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* Among equal weights the nearest in task numbers are kept first: a
 * chain i - i+1 plus one long edge per task, all of weight 1, keeps the
 * whole chain and, of the long edges, the shortest. */
START_TEST(limits_uniform_nearest)
{
	enum { N = 4000 };
	int64_t src[2 * N], dst[2 * N], m = 0;
	double w[2 * N];
	topomatch_affinity_t *a, *b;
	char err[TOPOMATCH_ERRLEN];
	uint64_t x = 99;
	for (int64_t i = 0; i < N; i++) {
		if (i + 1 < N) {
			src[m] = i;
			dst[m] = i + 1;
			w[m++] = 1;
		}
		x = x * 6364136223846793005u + 1442695040888963407u;
		src[m] = i;
		dst[m] = (i + 2 + (int64_t)(x >> 33) % (N - 3)) % N;
		w[m++] = 1;
	}
	ck_assert_int_eq(topomatch_affinity_create(N, m, src, dst, w, NULL, &a, err), 0);
	topomatch_blob_limits_t l = limits(0, 16 * 1024, 0);
	topomatch_blob_info_t ie;
	int n;
	char **v = enc(a, 0.0, &l, &n, &ie);
	ck_assert_int_lt(ie.nnz_kept, ie.nnz_input);
	ck_assert_int_gt(ie.nnz_kept, N);
	b = dec(v, n, &l, NULL);
	for (int64_t i = 0; i + 1 < N; i++)
		ck_assert_msg(aw(b, i, i + 1) == 1, "chain edge %lld dropped", (long long)i);
	/* the longest kept edge (on the ring) is no longer than the shortest
	 * dropped one (<=: ties in hash order) */
	topomatch_csr_t y = topomatch_affinity_symmetric(b), z = topomatch_affinity_symmetric(a);
	int64_t kept = 0, dropped = N;
	for (int64_t i = 0; i < N; i++)
		for (int64_t q = z.rowptr[i]; q < z.rowptr[i + 1]; q++) {
			int64_t j = z.col[q], d = j > i ? j - i : i - j;
			d = N - d < d ? N - d : d;
			if (aw(b, i, j) > 0)
				kept = d > kept ? d : kept;
			else
				dropped = d < dropped ? d : dropped;
		}
	ck_assert_int_le(kept, dropped);
	ck_assert_int_eq(y.n, N);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(limits_too_small)
{
	/* shuffled: no repeated rows, a few bytes per task */
	topomatch_affinity_t *s = stencil(16, 16, 16, 7, 0, NULL), *a;
	topomatch_blob_limits_t l = limits(0, 4096, 0);
	char **v = (char **)&v;
	char err[TOPOMATCH_ERRLEN];
	int n = -1;

	ck_assert_int_eq(topomatch_affinity_shuffle(s, 3, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "even with one edge per task");
	ck_assert_ptr_null(v);
	ck_assert_int_eq(n, 0);
	l = limits(0, 0, 1000);
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "4096 tasks, more than the limit of 1000");
	/* max_edges: fewer than one per task is refused, more sparsifies */
	l = limits(0, 0, 0);
	l.max_edges = 1000;
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "pattern blob: 4096 tasks need ");
	ck_assert_contains(err, " edges (one per task), more than the limit of 1000");
	l.max_edges = 6000;
	topomatch_blob_info_t ie;
	v = enc(a, 0.0, &l, &n, &ie);
	ck_assert_int_eq(ie.nnz_kept, 6000);
	ck_assert_int_eq(ie.nnz_input, 3 * 15 * 16 * 16);
	topomatch_blob_free(v, n);
	l.max_edges = -1;
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "pattern blob: negative max_edges -1");
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(many_small_entries)
{
	topomatch_affinity_t *a = random_pattern(500, 6, 100, 2), *b;
	topomatch_blob_limits_t l = limits(128, 0, 0);
	int n;
	char **v = enc(a, 0.0, &l, &n, NULL);

	ck_assert_int_gt(n, 50);
	assert_printable(v, n, 128);
	for (int k = 0; k < n - 1; k++)
		ck_assert_uint_eq(strlen(v[k]), HDR + (128 - 1 - HDR) / 4 * 4);
	b = dec(v, n, &l, NULL);
	assert_same_pattern(a, b);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

START_TEST(encode_errors)
{
	topomatch_affinity_t *a = random_pattern(10, 2, 10, 1);
	topomatch_blob_limits_t l = limits(HDR + 4, 0, 0);
	char **v;
	char err[TOPOMATCH_ERRLEN];
	int n;

	ck_assert_int_eq(topomatch_blob_encode(a, -0.1, NULL, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "sparse factor -0.1 not in [0, 1]");
	ck_assert_int_eq(topomatch_blob_encode(a, NAN, NULL, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_blob_encode(a, 1.5, NULL, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_blob_encode(NULL, 0, NULL, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_blob_encode(a, 0, NULL, NULL, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_blob_encode(a, 0, &l, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "max_entry 42 is below 43 bytes");
	l = limits(0, 0, -1);
	ck_assert_int_eq(topomatch_blob_encode(a, 0, &l, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	topomatch_affinity_destroy(a);
	int64_t s = 0, d = 1;
	double w = 1e-300;
	ck_assert_int_eq(topomatch_affinity_create(2, 1, &s, &d, &w, NULL, &a, err), 0);
	ck_assert_int_eq(topomatch_blob_encode(a, 0, NULL, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "below 2^-958");
	topomatch_affinity_destroy(a);
	topomatch_blob_free(NULL, 3);
}
END_TEST

/* ------------------------------------------------- rejections: the strings */

/* Three entries of a small pattern, as fresh copies with room to edit. */
static char **three_entries(uint64_t seed, double sf, int *n)
{
	topomatch_affinity_t *a = random_pattern(40, 3, 100, seed);
	topomatch_blob_limits_t l = limits(HDR + 1 + 4 * 30, 0, 0);
	char **v = enc(a, sf, &l, n, NULL);

	ck_assert_int_ge(*n, 3);
	topomatch_affinity_destroy(a);
	for (int k = 0; k < *n; k++) {
		char *c = malloc(strlen(v[k]) + 16);
		strcpy(c, v[k]);
		free(v[k]);
		v[k] = c;
	}
	return v;
}

START_TEST(reject_header)
{
	int n;
	char **v = three_entries(1, 0.0, &n);
	char save[HDR + 1];

	memcpy(save, v[1], HDR);
	v[1][0] = 'X';
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 1: not a topomatch pattern (bad magic)");
	memcpy(v[1], save, HDR);
	v[1][5] = '4';
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 1: unsupported format version 4 (this build reads 1 to 3)");
	v[1][5] = '0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "unsupported format version 0");
	v[1][5] = '1'; /* a version 1 entry among version 2 ones */
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 1: belongs to another pattern (version, length or checksum");
	memcpy(v[1], save, HDR);
	v[1][16] = 'A'; /* upper case is not the spelling */
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: malformed header");
	memcpy(v[1], save, HDR);
	v[1][30] = 'g';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: malformed header");
	memcpy(v[1], save, HDR);
	char keep = v[1][20];
	v[1][20] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: truncated header (20 of 38");
	v[1][20] = keep;
	v[1][HDR] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: no data");
	v[1][2] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: truncated header (2 of 38");
	v[1][0] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 1: not a topomatch pattern");
	topomatch_blob_free(v, n);
}
END_TEST

START_TEST(reject_order_and_count)
{
	int n, m;
	/* the same edges under another recorded factor: same length, other hash */
	char **v = three_entries(1, 0.0, &n), **u = three_entries(1, 1e-4, &m);
	char *t = v[0];

	v[0] = v[1];
	v[1] = t;
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 0: holds part 1 (entries missing or out of order)");
	v[1] = v[0];
	v[0] = t;
	char msg[128];
	snprintf(msg, sizeof(msg), "pattern entry 0: part of a %d-entry pattern, but %d entries",
		 n, n - 1);
	reject(v, n - 1, NULL, TOPOMATCH_EPARSE, msg);
	ck_assert_int_eq(m, n);
	ck_assert_str_ne(u[1], v[1]);
	t = v[1];
	v[1] = u[1];
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 1: belongs to another pattern (version, length or checksum");
	v[1] = t;
	/* a repeated entry */
	t = v[2];
	v[2] = v[1];
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 2: holds part 1");
	v[2] = t;
	topomatch_blob_free(v, n);
	topomatch_blob_free(u, m);
}
END_TEST

START_TEST(reject_data)
{
	int n;
	char **v = three_entries(3, 0.0, &n);
	size_t len0 = strlen(v[0]), last = strlen(v[n - 1]);
	char c = v[0][HDR + 5];

	v[0][HDR + 5] = c == 'A' ? 'B' : 'A';
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern: checksum mismatch (corrupted or truncated data)");
	v[0][HDR + 5] = '=';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "pattern entry 0: invalid character at offset 43");
	v[0][HDR + 5] = '+';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "invalid character");
	v[0][HDR + 5] = c;
	/* truncated: the last entry loses a group */
	v[n - 1][last - 4] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE, "truncated or extended");
	strcpy(v[n - 1] + last - 4, "AAAAAAAA");
	reject(v, n, NULL, TOPOMATCH_EPARSE, "truncated or extended");
	v[n - 1][last] = '\0';
	/* only the last part may end in a partial group */
	v[0][len0 - 1] = '\0';
	reject(v, n, NULL, TOPOMATCH_EPARSE,
	       "pattern entry 0: 119 data characters, not a multiple of 4");
	topomatch_blob_free(v, n);
	/* non-zero unused bits in the final group: 3 bytes + 1 = 2 characters */
	uint8_t p[4] = { 1, 2, 3, 4 };
	int m;
	char **u = reseal(p, 4, 1024, &m);
	char *end = u[0] + strlen(u[0]) - 1;
	ck_assert(*end == 'A' || *end == 'Q' || *end == 'g' || *end == 'w');
	*end = *end == 'A' ? 'B' : 'A';
	reject(u, m, NULL, TOPOMATCH_EPARSE, "pattern entry 0: non-zero padding bits at the end");
	topomatch_blob_free(u, m);
}
END_TEST

START_TEST(reject_limits)
{
	int n;
	char **v = three_entries(4, 0.0, &n);
	size_t len = strlen(v[0]);
	topomatch_blob_limits_t l = limits(len, 0, 0);

	reject(v, n, &l, TOPOMATCH_ELIMIT, "pattern entry 0: longer than the limit of");
	l = limits(len + 1, 0, 0);
	topomatch_affinity_t *a = dec(v, n, &l, NULL);
	topomatch_affinity_destroy(a);
	l = limits(0, strings_size(v, n) - 1, 0);
	reject(v, n, &l, TOPOMATCH_ELIMIT, "pattern entries: more than the limit of");
	l = limits(0, 0, 39);
	reject(v, n, &l, TOPOMATCH_ELIMIT, "pattern: 40 tasks, more than the limit of 39");
	/* a string without its NUL is never read past the entry limit */
	char *big = malloc(70000);
	memset(big, 'A', 70000);
	memcpy(big, v[0], HDR);
	char *w[1] = { big };
	l = limits(1000, 0, 0);
	reject(w, 1, &l, TOPOMATCH_ELIMIT, "pattern entry 0: longer than the limit of 1000");
	free(big);
	/* argument errors */
	topomatch_affinity_t *out;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_blob_decode((const char *const *)v, 0, NULL, &out, NULL, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_blob_decode(NULL, 1, NULL, &out, NULL, err), TOPOMATCH_EINVAL);
	char *t = v[1];
	v[1] = NULL;
	reject(v, n, NULL, TOPOMATCH_EINVAL, "pattern entry 1 is NULL");
	v[1] = t;
	ck_assert_int_eq(topomatch_blob_decode((const char *const *)v, 70000, NULL, &out, NULL,
					       err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "70000 entries, more than 65535");
	l = limits(10, 0, 0);
	reject(v, n, &l, TOPOMATCH_EINVAL, "max_entry 10 is below");
	topomatch_blob_free(v, n);
}
END_TEST

/* SECURITY.md's blob limits at their defaults (NULL limits), just past
 * each: one entry of 64 KiB, 512 KiB in all, 65,535 entries. */
START_TEST(reject_default_limits)
{
	/* one entry of 65,536 bytes with its NUL */
	char *big = malloc(TOPOMATCH_BLOB_MAX_ENTRY + 1);
	int n;
	char **v = three_entries(4, 0.0, &n);
	memset(big, 'A', TOPOMATCH_BLOB_MAX_ENTRY);
	memcpy(big, v[0], HDR);
	big[TOPOMATCH_BLOB_MAX_ENTRY] = '\0';
	char *w[1] = { big };
	reject(w, 1, NULL, TOPOMATCH_ELIMIT, "pattern entry 0: longer than the limit of 65536 bytes");
	/* with its NUL, 65,535 bytes pass the length check (the data then do not) */
	big[TOPOMATCH_BLOB_MAX_ENTRY - 1] = '\0';
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_ne(topomatch_blob_decode((const char *const *)w, 1, NULL, &a, NULL, err),
			 TOPOMATCH_OK);
	ck_assert_ptr_null(strstr(err, "limit"));
	free(big);
	topomatch_blob_free(v, n);

	/* 9 full entries of 65,535 bytes: 8 are 524,280 bytes, the 9th goes past */
	size_t room = (TOPOMATCH_BLOB_MAX_ENTRY - 1 - HDR) / 4 * 4, L = 9 * room / 4 * 3;
	uint8_t *p = calloc(L, 1);
	v = reseal(p, L, room, &n);
	ck_assert_int_eq(n, 9);
	ck_assert_uint_eq(strlen(v[8]) + 1, TOPOMATCH_BLOB_MAX_ENTRY - 1);
	reject(v, n, NULL, TOPOMATCH_ELIMIT,
	       "pattern entries: more than the limit of 524288 bytes in all");
	/* 8 of them are in the limit: refused for what they hold, not their size */
	ck_assert_int_ne(topomatch_blob_decode((const char *const *)v, 8, NULL, &a, NULL, err),
			 TOPOMATCH_OK);
	ck_assert_ptr_null(strstr(err, "limit"));
	topomatch_blob_free(v, n);
	free(p);

	/* 65,536 entries, as an array and as environment names (duplicates) */
	const char **many = malloc(65536 * sizeof(*many));
	for (int k = 0; k < 65536; k++)
		many[k] = "TOPOMATCH_PATTERN_0=x";
	ck_assert_int_eq(topomatch_blob_decode(many, 65536, NULL, &a, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "pattern blob: 65536 entries, more than 65535");
	ck_assert_int_ne(topomatch_blob_decode(many, 65535, NULL, &a, NULL, err), TOPOMATCH_OK);
	ck_assert_ptr_null(strstr(err, "65535"));
	ck_assert_int_eq(topomatch_blob_decode_env(many, 65536, NULL, NULL, &a, NULL, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "pattern: more than 65535 TOPOMATCH_PATTERN_ entries");
	ck_assert_int_eq(topomatch_blob_decode_env(many, 65535, NULL, NULL, &a, NULL, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "set twice");
	/* the last index is 65534 */
	many[0] = "TOPOMATCH_PATTERN_65535=x";
	ck_assert_int_eq(topomatch_blob_decode_env(many, 1, NULL, NULL, &a, NULL, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "name without a valid index");
	many[0] = "TOPOMATCH_PATTERN_65534=x";
	ck_assert_int_eq(topomatch_blob_decode_env(many, 1, NULL, NULL, &a, NULL, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "TOPOMATCH_PATTERN_65534 set, but 1 entries are not numbered 0..0");
	free(many);
}
END_TEST

/* 2^20 tasks (TOPOMATCH_BLOB_MAX_TASKS) travel when the bytes allow it;
 * one more is refused by the encoder and the decoder. */
START_TEST(tasks_at_default_limit)
{
	topomatch_affinity_t *a = stencil(1 << 20, 1, 1, 7, 0, NULL), *b;
	topomatch_blob_limits_t l = limits(0, 8 << 20, 0);
	int n;
	char **v = enc(a, 0.0, &l, &n, NULL);

	b = dec(v, n, &l, NULL);
	ck_assert_int_eq(topomatch_affinity_ntasks(b), TOPOMATCH_BLOB_MAX_TASKS);
	ck_assert_int_eq(topomatch_affinity_nnz(b), topomatch_affinity_nnz(a));
	topomatch_affinity_destroy(b);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	a = stencil((1 << 20) + 1, 1, 1, 7, 0, NULL);
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "pattern blob: 1048577 tasks, more than the limit of 1048576");
	topomatch_affinity_destroy(a);
}
END_TEST

/* ------------------------------------------------ rejections: the payload */

START_TEST(payload_valid_baseline)
{
	struct pl p;
	int n;

	three_tasks(&p);
	char **v = reseal(p.b, p.n, 1024, &n);
	topomatch_affinity_t *a = dec(v, n, NULL, NULL);
	ck_assert(aw(a, 0, 1) == 10 && aw(a, 1, 2) == 5 && aw(a, 0, 2) == 0);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(reject_payload_header)
{
	struct pl p;

	phead(&p, 0, 0, 1, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: no task");
	phead(&p, TOPOMATCH_BLOB_MAX_TASKS + 1, 0, 1, 0);
	reject_payload(&p, TOPOMATCH_ELIMIT,
		       "pattern: 1048577 tasks, more than the limit of 1048576");
	/* sizes the bytes cannot justify: nothing is allocated for them */
	phead(&p, 1000000, 0, 1, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "1000000 tasks and 0 edges cannot fit in the 0 bytes");
	phead(&p, 3, 100, 1, 0);
	pv(&p, 0);
	pv(&p, 0);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "3 tasks and 100 edges cannot fit in the 3 bytes left");
	/* edges past max_edges (version 2: bytes do not bound them): refused
	 * before anything is allocated */
	phead(&p, 3, UINT64_C(1) << 40, 1, 0);
	p.ver = 2;
	reject_payload(&p, TOPOMATCH_ELIMIT,
		       "pattern: 1099511627776 edges, more than the limit of 2097152");
	three_tasks(&p);
	p.b[2] = 1; /* nnz_input 1 < nnz 2 */
	reject_payload(&p, TOPOMATCH_EPARSE, "edge counts 2 kept of 1 out of range for 3 tasks");
	three_tasks(&p);
	p.b[2] = 4; /* more than 3 x 2 / 2 */
	reject_payload(&p, TOPOMATCH_EPARSE, "edge counts 2 kept of 4 out of range");
	const double bad[] = { NAN, -1.0, 0.0, INFINITY, 1e-300 };
	for (int k = 0; k < 5; k++) {
		phead(&p, 2, 0, bad[k], 0);
		pv(&p, 0);
		pv(&p, 0);
		reject_payload(&p, TOPOMATCH_EPARSE, "is not a finite number >= 2^-958");
	}
	three_tasks(&p);
	double nan = NAN, big = 20, neg = -1;
	memcpy(p.b + 11, &nan, 8);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: inconsistent weight totals");
	three_tasks(&p);
	memcpy(p.b + 19, &big, 8); /* kept 20 > input 15 */
	reject_payload(&p, TOPOMATCH_EPARSE, "inconsistent weight totals (20 kept of 15)");
	three_tasks(&p);
	memcpy(p.b + 27, &neg, 8);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: sparse factor -1 not in [0, 1]");
	p.n = 20;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 19: kept weight: truncated");
	p.n = 0;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern entry 0: no data");
}
END_TEST

/* The info of a refused blob: the header's counts when they passed a
 * limit (slurmctld names JobBudgetMs for the edges), zeros otherwise. */
static topomatch_blob_info_t refused_info(const struct pl *p, const topomatch_blob_limits_t *lim,
					  int status)
{
	int n;
	char **v = reseal_v(p->b, p->n, 1024, p->ver, &n);
	topomatch_affinity_t *a = NULL;
	topomatch_blob_info_t info;
	char err[TOPOMATCH_ERRLEN];
	memset(&info, 0xff, sizeof(info));
	int rc = topomatch_blob_decode((const char *const *)v, n, lim, &a, &info, err);
	ck_assert_msg(rc == status, "status %d (%s), expected %d", rc, err, status);
	topomatch_blob_free(v, n);
	return info;
}

START_TEST(refused_blob_info)
{
	struct pl p;
	topomatch_blob_limits_t l = limits(0, 0, 0);

	phead(&p, 3, UINT64_C(1) << 40, 1, 0);
	p.ver = 2;
	topomatch_blob_info_t i = refused_info(&p, NULL, TOPOMATCH_ELIMIT);
	ck_assert(i.nnz_kept == INT64_C(1) << 40 && i.ntasks == 3);
	ck_assert(i.nnz_input == 0 && i.weight_kept == 0 && i.bytes == 0);
	three_tasks(&p); /* 3 tasks, 2 edges */
	l.max_edges = 1;
	i = refused_info(&p, &l, TOPOMATCH_ELIMIT);
	ck_assert(i.nnz_kept == 2 && i.ntasks == 3);
	l = limits(0, 0, 2);
	i = refused_info(&p, &l, TOPOMATCH_ELIMIT);
	ck_assert(i.ntasks == 3 && i.nnz_kept == 2);
	l = limits(HDR + 5, 0, 0); /* the least allowed: refused before the header */
	i = refused_info(&p, &l, TOPOMATCH_ELIMIT);
	ck_assert(i.ntasks == 0 && i.nnz_kept == 0);
	p.b[2] = 1; /* malformed: zeros */
	i = refused_info(&p, NULL, TOPOMATCH_EPARSE);
	ck_assert(i.ntasks == 0 && i.nnz_kept == 0 && i.bytes == 0);
	/* through the environment: a bad name leaves zeros too */
	const char *env[] = { TOPOMATCH_PATTERN_ENV "x=1" };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	memset(&i, 0xff, sizeof(i));
	ck_assert_int_eq(topomatch_blob_decode_env(env, 1, NULL, NULL, &a, &i, err),
			 TOPOMATCH_EPARSE);
	ck_assert(i.ntasks == 0 && i.nnz_kept == 0);
}
END_TEST

START_TEST(reject_payload_varints)
{
	struct pl p;

	three_tasks(&p);
	memmove(p.b + 1, p.b, p.n);
	p.b[0] = 0x83; /* 3 as 0x83 0x00 */
	p.b[1] = 0x00;
	p.n++;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 0: task count: non-minimal number");
	p.n = 0;
	for (int k = 0; k < 10; k++)
		p.b[p.n++] = 0xff;
	p.b[p.n++] = 0x01;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 0: task count: number too large");
	p.n = 0;
	for (int k = 0; k < 9; k++)
		p.b[p.n++] = 0x80;
	p.b[p.n++] = 0x02; /* 2^64 */
	reject_payload(&p, TOPOMATCH_EPARSE, "number too large");
	p.n = 1;
	p.b[0] = 0x80;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 0: task count: truncated");
}
END_TEST

START_TEST(reject_payload_rows)
{
	struct pl p;

	/* row 1's edge points past the last task */
	phead(&p, 3, 2, 10, 15);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 1 << 1 | 1);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 38: row 1: column out of range (gap 1 after column 1, 3 tasks)");
	/* the last row cannot have an edge above the diagonal */
	phead(&p, 3, 1, 10, 15);
	pv(&p, 0);
	pv(&p, 0);
	pv(&p, 1);
	pv(&p, 1);
	reject_payload(&p, TOPOMATCH_EPARSE, "row 2: column out of range");
	/* a row with more edges than announced */
	phead(&p, 3, 1, 10, 15);
	pv(&p, 2);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 35: row 0: 2 edges, more than the 1 the header announces");
	/* rows holding fewer edges than announced */
	phead(&p, 3, 3, 10, 15);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 0); /* so that the sizes pass the first check */
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: rows hold 2 edges, the header announces 3");
	/* trailing garbage */
	three_tasks(&p);
	pv(&p, 7);
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 42: 1 bytes of trailing garbage after the last row");
	/* truncated in the middle of the rows */
	three_tasks(&p);
	p.n -= 2;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 39: weight code: truncated");
}
END_TEST

START_TEST(reject_payload_weights)
{
	struct pl p;

	/* a code beyond 65535 */
	phead(&p, 2, 1, 10, 10);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 70000);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 37: row 0: invalid weight code 70000");
	/* the predicted code spelled out: not the canonical form */
	phead(&p, 2, 1, 10, 10);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 0);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "row 0: invalid weight code 0");
	/* no edge of the largest weight (code 0): every weight below wmax,
	 * a pattern the encoder never writes (fuzzing found one whose weights
	 * all fell below what encodes) */
	phead(&p, 2, 1, 10, 10);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 1024);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: no edge has the largest weight (weight code 0)");
	/* weights that sum past DBL_MAX */
	phead(&p, 3, 2, DBL_MAX, DBL_MAX);
	pv(&p, 2);
	pv(&p, 1);
	pv(&p, 1);
	pv(&p, 0);
	pv(&p, 0);
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern: weights sum to more than the largest double");
}
END_TEST

/* Version 2's repeated rows: the chain 0 - 1 - ... - (n-1) of weight 1
 * is row 0 written out, rows 1 .. n-2 repeating it, row n-1 empty. */
static void chain_v2(struct pl *p, uint64_t n)
{
	phead(p, n, n - 1, 1.0, (double)(n - 1));
	p->ver = 2;
	pv(p, 1 << 1);		 /* row 0: one edge */
	pv(p, 0 << 1 | 1);	 /* to 1 (gap 0), same: the predicted code 0 */
	pv(p, (n - 3) << 1 | 1); /* rows 1 .. n-2: row 0's edges, shifted */
	pv(p, 0 << 1);		 /* row n-1: none */
}

/* a encodes within lim with every edge, and decodes to itself; freed. */
static void fits_whole(topomatch_affinity_t *a, const topomatch_blob_limits_t *lim)
{
	topomatch_blob_info_t ie;
	int n;
	char **v = enc(a, 0.0, lim, &n, &ie);

	ck_assert_int_eq(ie.nnz_kept, ie.nnz_input);
	topomatch_affinity_t *b = dec(v, n, NULL, NULL);
	assert_same_pattern(a, b);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_blob_free(v, n);
}

START_TEST(repeated_rows)
{
	struct pl p;
	int64_t s[5] = { 0, 1, 2, 3 }, d[5] = { 1, 2, 3, 4 };
	double w[5] = { 1, 1, 1, 1 };
	topomatch_affinity_t *a, *b;
	char err[TOPOMATCH_ERRLEN];
	int n, m;

	/* the encoder writes a chain so */
	ck_assert_int_eq(topomatch_affinity_create(5, 4, s, d, w, NULL, &a, err), 0);
	char **v = enc(a, 0.0, NULL, &n, NULL);
	chain_v2(&p, 5);
	char **u = reseal_v(p.b, p.n, 1024, 2, &m);
	ck_assert_str_eq(v[0], u[0]);
	b = dec(u, m, NULL, NULL);
	assert_same_pattern(a, b);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	topomatch_blob_free(v, n);
	topomatch_blob_free(u, m);
	/* 100,000 tasks in 47 bytes; max_edges bounds what they decode to */
	chain_v2(&p, 100000);
	ck_assert_uint_lt(p.n, 48);
	u = reseal_v(p.b, p.n, 1024, 2, &m);
	b = dec(u, m, NULL, NULL);
	ck_assert_int_eq(topomatch_affinity_nnz(b), 2 * 99999);
	ck_assert(aw(b, 99998, 99999) == 1 && aw(b, 5000, 5001) == 1 && aw(b, 0, 2) == 0);
	topomatch_affinity_destroy(b);
	topomatch_blob_limits_t l = limits(0, 0, 0);
	l.max_edges = 99998;
	reject(u, m, &l, TOPOMATCH_ELIMIT, "pattern: 99999 edges, more than the limit of 99998");
	topomatch_blob_free(u, m);
	/* big structured patterns fit the plugin's 48 KiB whole: a 65,536-task
	 * 7-point stencil, Bruck's all-to-all on 8,192 tasks */
	l = limits(0, 48 * 1024, 0);
	fits_whole(stencil(32, 32, 64, 7, 0, NULL), &l);
	int64_t *bs = malloc(8192 * 13 * sizeof(*bs)), *bd = malloc(8192 * 13 * sizeof(*bd)), k = 0;
	double *bw = malloc(8192 * 13 * sizeof(*bw));
	for (int64_t i = 0; i < 8192; i++)
		for (int e = 0; e < 13; e++) {
			bs[k] = i;
			bd[k] = (i + (INT64_C(1) << e)) % 8192;
			bw[k++] = 1;
		}
	ck_assert_int_eq(topomatch_affinity_create(8192, k, bs, bd, bw, NULL, &a, err), 0);
	free(bs);
	free(bd);
	free(bw);
	fits_whole(a, &l);
}
END_TEST

START_TEST(reject_repeated_rows)
{
	struct pl p;

	/* row 0 has no row before it */
	phead(&p, 3, 0, 1, 0);
	p.ver = 2;
	pv(&p, 0 << 1 | 1);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern byte 35: row 0 repeats the row before it");
	/* chain_v2(5): bytes 35, 36 row 0, 37 the repeat of rows 1 .. 3, 38
	 * row 4; more rows than tasks left */
	chain_v2(&p, 5);
	p.b[37] = 4 << 1 | 1; /* rows 1 .. 5 */
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 37: row 1: 5 repeated rows, past the last task");
	/* row 4 repeating row 3: more edges than announced, then past the
	 * last task (edge 4 - 5) */
	chain_v2(&p, 5);
	p.b[38] = 0 << 1 | 1;
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 38: row 4: 1 repeated rows of 1 edges, more than the 4 the "
		       "header announces");
	p.b[1] = 5; /* nnz 5 of 5 */
	p.b[2] = 5;
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 38: row 4: a repeated edge of offset 1 goes past the last task");
	/* repeated rows holding fewer edges than announced */
	chain_v2(&p, 5);
	p.b[37] = 1 << 1 | 1; /* rows 1 .. 2 */
	p.n--;
	pv(&p, 0 << 1);
	pv(&p, 0 << 1);
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: rows hold 3 edges, the header announces 4");
	/* a row announcing more edges than bytes left (version 2 only: version
	 * 1's sizes say so before) */
	phead(&p, 100, 200, 1, 0);
	p.ver = 2;
	pv(&p, 200 << 1);
	reject_payload(&p, TOPOMATCH_EPARSE,
		       "pattern byte 37: row 0: 200 edges cannot fit in the 0 bytes left");
}
END_TEST

/* ------------------------------------------------------------ environment */

/* An environment with the n entries reversed, other variables, a NULL. */
static char **make_env(char *const *v, int n, size_t *ne)
{
	char **env = calloc((size_t)n + 3, sizeof(*env));

	*ne = (size_t)n + 3;
	env[0] = strdup("FOO=bar");
	env[1] = NULL;
	env[2] = strdup("TOPOMATCH_PATTERNS=x");
	for (int k = 0; k < n; k++) {
		env[3 + k] = malloc(strlen(v[n - 1 - k]) + 32);
		sprintf(env[3 + k], "TOPOMATCH_PATTERN_%d=%s", n - 1 - k, v[n - 1 - k]);
	}
	return env;
}

static void free_env(char **env, size_t ne)
{
	for (size_t k = 0; k < ne; k++)
		free(env[k]);
	free(env);
}

static int decode_env(char **env, size_t ne, const char *prefix,
		      const topomatch_blob_limits_t *l, topomatch_affinity_t **b, char *err)
{
	return topomatch_blob_decode_env((const char *const *)env, ne, prefix, l, b, NULL, err);
}

START_TEST(env_collects)
{
	topomatch_affinity_t *a = random_pattern(200, 4, 50, 9), *b;
	topomatch_blob_limits_t l = limits(256, 0, 0);
	char err[TOPOMATCH_ERRLEN];
	size_t ne;
	int n;
	char **v = enc(a, 0.0, &l, &n, NULL), **env = make_env(v, n, &ne);

	ck_assert_int_gt(n, 3);
	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), 0);
	assert_same_pattern(a, b);
	topomatch_affinity_destroy(b);
	/* the same under another prefix: not found, no pattern */
	b = (topomatch_affinity_t *)&b;
	ck_assert_int_eq(decode_env(env, ne, "SPANK_TP_", &l, &b, err), 0);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(decode_env(NULL, 0, NULL, &l, &b, err), 0);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(decode_env(NULL, 1, NULL, &l, &b, err), TOPOMATCH_EINVAL);
	free_env(env, ne);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(env_rejects)
{
	topomatch_affinity_t *a = random_pattern(200, 4, 50, 9), *b;
	topomatch_blob_limits_t l = limits(256, 0, 0);
	char err[TOPOMATCH_ERRLEN];
	size_t ne;
	int n;
	char **v = enc(a, 0.0, &l, &n, NULL), **env = make_env(v, n, &ne);
	char *keep = env[0];

	/* a duplicate */
	env[0] = env[4];
	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "set twice");
	/* a gap */
	env[0] = "TOPOMATCH_PATTERN_900=x";
	char *gone = env[5];
	env[5] = NULL;
	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "TOPOMATCH_PATTERN_900 set, but");
	env[5] = gone;
	/* names that look like ours but are not */
	const char *odd[] = { "TOPOMATCH_PATTERN_01=x", "TOPOMATCH_PATTERN_=x",
			      "TOPOMATCH_PATTERN_1x=y", "TOPOMATCH_PATTERN_70000=y",
			      "TOPOMATCH_PATTERN_3" };
	for (int k = 0; k < 5; k++) {
		env[0] = (char *)odd[k];
		ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_EPARSE);
		ck_assert_contains(err, "name without a valid index");
		ck_assert_ptr_null(b);
	}
	/* a broken entry is reported as the decoder reports it */
	env[0] = keep;
	env[4][30] = '#';
	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "malformed header");
	free_env(env, ne);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
}
END_TEST

/* slurmctld decodes with topomatch.conf's MaxTasks (default 4096) as
 * max_tasks (select_topomatch.c, tm_pattern): 4096 tasks are mapped,
 * 4097 refused with the reason it logs. */
START_TEST(max_tasks_of_slurmctld)
{
	topomatch_blob_limits_t l = limits(0, 0, 4096);
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = stencil(4096, 1, 1, 7, 0, NULL), *b;
	size_t ne;
	int n;
	char **v = enc(a, 0.0, NULL, &n, NULL), **env = make_env(v, n, &ne);

	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_affinity_ntasks(b), 4096);
	topomatch_affinity_destroy(b);
	free_env(env, ne);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	a = stencil(4097, 1, 1, 7, 0, NULL);
	v = enc(a, 0.0, NULL, &n, NULL);
	env = make_env(v, n, &ne);
	b = (topomatch_affinity_t *)&b;
	ck_assert_int_eq(decode_env(env, ne, NULL, &l, &b, err), TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(b);
	ck_assert_str_eq(err, "pattern: 4097 tasks, more than the limit of 4096");
	free_env(env, ne);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
}
END_TEST

/* ------------------------------------------------------------------- fuzz */

/* Everything a successful decode returns must be usable as is. */
static void fuzz_decode(char *const *v, int n, const topomatch_blob_limits_t *lim, int *ok)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];
	int rc = topomatch_blob_decode((const char *const *)v, n, lim, &a, NULL, err);

	if (rc == TOPOMATCH_OK) {
		assert_sane(a, lim->max_tasks);
		topomatch_affinity_destroy(a);
		(*ok)++;
	} else {
		ck_assert_ptr_null(a);
		ck_assert(rc == TOPOMATCH_EPARSE || rc == TOPOMATCH_ELIMIT ||
			  (rc == TOPOMATCH_EINVAL && n == 0));
		ck_assert(err[0] != '\0');
	}
}

/* Copies of v in buffers with room to grow. */
static char **copy_entries(char *const *v, int n, int extra)
{
	char **c = calloc((size_t)n + (size_t)extra, sizeof(*c));

	for (int k = 0; k < n; k++) {
		c[k] = malloc(strlen(v[k]) + 64);
		strcpy(c[k], v[k]);
	}
	return c;
}

/* A text-level mutation: flip, cut, insert, swap, drop, repeat. */
static int mutate_text(char **c, int n, topomatch_rng_t *r)
{
	int k = (int)topomatch_rng_below(r, (uint64_t)n);
	size_t len = strlen(c[k]);
	size_t at = (size_t)topomatch_rng_below(r, len + 1);
	int j = (int)topomatch_rng_below(r, (uint64_t)n);
	char *t;

	switch (topomatch_rng_below(r, 6)) {
	case 0:
		if (at < len)
			c[k][at] ^= (char)(1 << topomatch_rng_below(r, 8));
		break;
	case 1:
		c[k][at] = '\0';
		break;
	case 2:
		memmove(c[k] + at + 1, c[k] + at, len - at + 1);
		c[k][at] = (char)(1 + topomatch_rng_below(r, 255));
		break;
	case 3:
		t = c[k];
		c[k] = c[j];
		c[j] = t;
		break;
	case 4:
		free(c[k]);
		memmove(c + k, c + k + 1, (size_t)(n - k - 1) * sizeof(*c));
		return n - 1;
	default:
		c[n] = malloc(strlen(c[j]) + 64);
		strcpy(c[n], c[j]);
		return n + 1;
	}
	return n;
}

/* A payload-level mutation, re-sealed so that the checksum holds. */
static char **mutate_payload(const uint8_t *p, size_t L, size_t room, topomatch_rng_t *r,
			     int *n)
{
	uint8_t *b = malloc(L + 16);
	size_t at = (size_t)topomatch_rng_below(r, L);

	memcpy(b, p, L);
	switch (topomatch_rng_below(r, 5)) {
	case 0:
		b[at] ^= (uint8_t)(1 << topomatch_rng_below(r, 8));
		break;
	case 1:
		L = at;
		break;
	case 2:
		memmove(b + at + 1, b + at, L - at);
		b[at] = (uint8_t)topomatch_rng_next(r);
		L++;
		break;
	case 3:
		for (size_t k = at; k < L && k < at + 4; k++)
			b[k] = (uint8_t)topomatch_rng_next(r);
		break;
	default:
		b[at] = (uint8_t)(b[at] + 1 - 2 * (int)topomatch_rng_below(r, 2));
		break;
	}
	char **v = reseal(b, L, room, n);
	free(b);
	return v;
}

static void fuzz_one(char *const *v, int n, const topomatch_blob_limits_t *lim, size_t room,
		     topomatch_rng_t *r, int rounds, int *ok)
{
	size_t L;
	uint8_t *p = unseal(v, n, &L);

	for (int it = 0; it < rounds; it++) {
		int m;
		char **c;
		if (it % 2) {
			c = copy_entries(v, n, 2);
			m = mutate_text(c, n, r);
			if (topomatch_rng_below(r, 4) == 0 && m > 1)
				m = mutate_text(c, m, r);
		} else {
			c = mutate_payload(p, L, room, r, &m);
		}
		fuzz_decode(c, m, lim, ok);
		topomatch_blob_free(c, m);
	}
	free(p);
}

START_TEST(fuzz_mutations)
{
	topomatch_affinity_t *a = random_pattern(64, 3, 1000, 17);
	topomatch_affinity_t *s = stencil(4, 4, 4, 7, 1, NULL);
	topomatch_blob_limits_t l = limits(HDR + 1 + 4 * 40, 0, 200);
	topomatch_rng_t r;
	int n1, n2, ok = 0;
	char **v1 = enc(a, 0.0, &l, &n1, NULL), **v2 = enc(s, 0.0, &l, &n2, NULL);

	int rounds = tm_under_valgrind() ? 100 : 10000;

	topomatch_rng_seed(&r, 2026);
	fuzz_one(v1, n1, &l, 4 * 40, &r, rounds, &ok);
	fuzz_one(v2, n2, &l, 4 * 40, &r, rounds, &ok);
	/* some payload mutations still decode (a bit of a total, a weight) */
	ck_assert_int_gt(ok, 0);
	topomatch_blob_free(v1, n1);
	topomatch_blob_free(v2, n2);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(s);
}
END_TEST

/* ----------------------------------------------------------------- groups */

/* The pattern of groups of g consecutive tasks, computed here from A:
 * dense, (n / g)^2 entries. */
static double *groups_dense(const topomatch_affinity_t *a, int64_t g)
{
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	int64_t m = s.n / g;
	double *d = calloc((size_t)(m * m), sizeof(*d));

	ck_assert_ptr_nonnull(d);
	for (int64_t i = 0; i < s.n; i++)
		for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; p++)
			if (i / g != s.col[p] / g)
				d[i / g * m + s.col[p] / g] += s.w[p];
	return d;
}

/*
 * A shuffled 8 x 8 x 8 stencil (512 tasks, about 3 bytes a pair) in 1.5
 * KiB: not one edge per task, so the encoder puts the tasks in groups.
 * The blob is format version 3, decodes to the groups' pattern (the
 * traffic between groups, summed; nothing dropped at that size) and says
 * the group and the task count; without max_group, or with too small a
 * one, the encoder refuses as before and says so.
 */
START_TEST(groups_when_tasks_do_not_fit)
{
	topomatch_affinity_t *s = stencil(8, 8, 8, 7, 0, NULL), *a, *b;
	topomatch_blob_limits_t l = limits(0, 1200, 0);
	topomatch_blob_info_t ie, id;
	char **v = NULL, err[TOPOMATCH_ERRLEN];
	int n = 0;

	ck_assert_int_eq(topomatch_affinity_shuffle(s, 5, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "even with one edge per task");
	l.max_group = 64;
	v = enc(a, 0.0, &l, &n, &ie);
	ck_assert_int_eq(ie.ntasks, 512);
	int64_t g = ie.group; /* the smallest that fits */
	ck_assert_int_eq(g, 2);
	ck_assert_uint_le(strings_size(v, n), 1200);
	ck_assert(!strncmp(v[0], "TMP103", 6));
	b = dec(v, n, NULL, &id);
	ck_assert_int_eq(id.ntasks, 512);
	ck_assert_int_eq(id.group, g);
	ck_assert_int_eq(id.nnz_kept, ie.nnz_kept);
	ck_assert_int_eq(topomatch_affinity_ntasks(b), 512 / g);
	assert_sane(b, 512);
	/* the pairs kept are the groups' pattern's, the heaviest first */
	double *want = groups_dense(a, g), total = 0, lightest_kept = INFINITY, heaviest_out = 0;
	int64_t m = 512 / g, pairs = 0, kept = 0;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++) {
			double w = want[i * m + j], got = aw(b, i, j);
			pairs += w > 0;
			total += w / 2;
			kept += got > 0;
			if (got > 0)
				lightest_kept = fmin(lightest_kept, w);
			else
				heaviest_out = fmax(heaviest_out, w);
			ck_assert_msg(got == 0 || fabs(got - w) <= ldexp(w, -11) * (1 + 1e-12),
				      "groups %lld, %lld: %.17g decoded as %.17g", (long long)i,
				      (long long)j, w, got);
		}
	ck_assert_int_eq(pairs, 2 * ie.nnz_input);
	ck_assert_int_eq(kept, 2 * ie.nnz_kept);
	ck_assert_int_lt(ie.nnz_kept, ie.nnz_input); /* 1,200 bytes: the lightest left out */
	ck_assert_double_le(heaviest_out, lightest_kept);
	ck_assert_double_eq_tol(ie.weight_input, total, 1e-9 * total);
	free(want);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(b);
	/* groups of at most 4 in 100 bytes: none fits */
	l.max_total = 100;
	l.max_group = 4;
	v = (char **)&v;
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(v);
	ck_assert_contains(err, "even with one edge per task, nor in groups of consecutive tasks "
				"(up to 4 dividing 512)");
	/* so are more tasks than max_tasks */
	l = limits(0, 0, 100);
	l.max_group = 8;
	v = enc(a, 0.0, &l, &n, &ie);
	ck_assert_int_eq(ie.group, 8);
	ck_assert_int_eq(ie.ntasks, 512);
	topomatch_blob_free(v, n);
	l.max_group = -1;
	ck_assert_int_eq(topomatch_blob_encode(a, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "pattern blob: negative max_group -1");
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Group sizes: powers of two first, then the other divisors (a group
 * must divide the task count); none for a prime count. */
START_TEST(groups_divide_the_tasks)
{
	char err[TOPOMATCH_ERRLEN], **v = NULL;
	int n = 0;
	topomatch_blob_info_t ie;
	/* 1,500 tasks = 4 x 375 in 3,000 bytes: groups of 2 do not fit, of 3
	 * would, but 4 comes first; 4 and 3 do not fit 600 bytes, 15 does */
	topomatch_affinity_t *a = random_pattern(1500, 4, 1000, 7), *p = random_pattern(1499, 4, 1000, 7);
	topomatch_blob_limits_t l = limits(0, 3000, 0);
	const struct {
		size_t total;
		int64_t max_group, group;
	} c[] = { { 3000, 64, 4 }, { 3000, 3, 3 }, { 600, 64, 15 } };
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		l.max_total = c[k].total;
		l.max_group = c[k].max_group;
		v = enc(a, 0.0, &l, &n, &ie);
		ck_assert_int_eq(ie.ntasks, 1500);
		ck_assert_int_eq(ie.group, c[k].group);
		topomatch_blob_free(v, n);
	}
	l.max_group = 64;
	ck_assert_int_eq(topomatch_blob_encode(p, 0.0, &l, &v, &n, NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "nor in groups of consecutive tasks (up to 64 dividing 1499)");
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(p);
}
END_TEST

/* A hand-made version 3 payload: three_tasks' pattern as 3 groups of 2
 * tasks; the group's range and its place are checked. */
START_TEST(groups_payload)
{
	struct pl p;
	topomatch_blob_info_t info;
	int n;

	three_tasks_v2(&p);
	memmove(p.b + 2, p.b + 1, p.n - 1); /* the group after the task count */
	p.b[1] = 2;
	p.n++;
	p.ver = 3;
	char **v = reseal_v(p.b, p.n, 1024, 3, &n);
	topomatch_affinity_t *a = dec(v, n, NULL, &info);
	ck_assert_int_eq(info.ntasks, 6);
	ck_assert_int_eq(info.group, 2);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 3);
	ck_assert(aw(a, 0, 1) == 10 && aw(a, 1, 2) == 5);
	topomatch_blob_free(v, n);
	topomatch_affinity_destroy(a);
	p.b[1] = 1;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: group of 1 tasks (version 3 holds 2 to 4096)");
	memmove(p.b + 3, p.b + 2, p.n - 2); /* 4097: two varint bytes */
	p.b[1] = 0x81;
	p.b[2] = 0x20;
	p.n++;
	reject_payload(&p, TOPOMATCH_EPARSE, "pattern: group of 4097 tasks");
	/* a version 2 payload read as version 3: its edge count taken for the
	 * group, the counts after it do not hold */
	three_tasks_v2(&p);
	p.ver = 3;
	reject_payload(&p, TOPOMATCH_EPARSE, "edge counts 2 kept of 0 out of range for 3 tasks");
}
END_TEST

/* -------------------------------------------------------------------- main */

int main(void)
{
	Suite *s = suite_create("blob");
	TCase *rt = tcase_create("roundtrip");
	TCase *sp = tcase_create("sparsify");
	TCase *rj = tcase_create("reject");
	TCase *fz = tcase_create("fuzz");

	tcase_add_test(rt, roundtrip_stencil_4096);
	tcase_add_test(rt, roundtrip_65536_fits);
	tcase_add_test(rt, roundtrip_random_weights);
	tcase_add_test(rt, roundtrip_weight_range);
	tcase_add_test(rt, roundtrip_no_edges);
	tcase_add_test(rt, format_as_documented);
	tcase_add_test(rt, roundtrip_mapping_order);
	tcase_add_test(rt, deterministic);
	tcase_add_test(rt, env_collects);
	tcase_add_test(rj, env_rejects);
	tcase_add_test(sp, sparse_factor_keeps_heavy);
	tcase_add_test(sp, limits_force_sparsification);
	tcase_add_test(sp, limits_uniform_ties);
	tcase_add_test(sp, limits_uniform_nearest);
	tcase_add_test(sp, limits_too_small);
	tcase_add_test(sp, many_small_entries);
	tcase_add_test(sp, encode_errors);
	tcase_add_test(rj, reject_header);
	tcase_add_test(rj, reject_order_and_count);
	tcase_add_test(rj, reject_data);
	tcase_add_test(rj, reject_limits);
	tcase_add_test(rj, reject_default_limits);
	tcase_add_test(rj, tasks_at_default_limit);
	tcase_add_test(rj, max_tasks_of_slurmctld);
	tcase_add_test(rj, payload_valid_baseline);
	tcase_add_test(rj, reject_payload_header);
	tcase_add_test(rj, refused_blob_info);
	tcase_add_test(rj, reject_payload_varints);
	tcase_add_test(rj, reject_payload_rows);
	tcase_add_test(rj, reject_payload_weights);
	tcase_add_test(rt, repeated_rows);
	tcase_add_test(rj, reject_repeated_rows);
	tcase_add_test(sp, groups_when_tasks_do_not_fit);
	tcase_add_test(sp, groups_divide_the_tasks);
	tcase_add_test(rj, groups_payload);
	tcase_add_test(fz, fuzz_mutations);
	/* valgrind runs the fuzz case slowly */
	tcase_set_timeout(rt, 120);
	tcase_set_timeout(sp, 120);
	tcase_set_timeout(fz, 600);
	suite_add_tcase(s, rt);
	suite_add_tcase(s, sp);
	suite_add_tcase(s, rj);
	suite_add_tcase(s, fz);
	return tm_run_suite(s);
}

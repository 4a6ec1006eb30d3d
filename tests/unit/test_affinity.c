/*
 * test_affinity.c - pattern readers and writers: golden files in every
 * format, one test per kind of bad input, pipes, and write/read round
 * trips.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "pattern/affinity_formats.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#define NO_LIMITS { 0, 0, 0 }

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static topomatch_affinity_t *read_ok(const char *rel, int format)
{
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = NULL;
	int rc = topomatch_affinity_read_file(tm_data(rel), format, NULL, &a, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "%s: rc %d: %s", rel, rc, err);
	ck_assert_ptr_nonnull(a);
	return a;
}

/* Whole file in memory (NUL-terminated), for detection and buffers. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char *buf = malloc(1 << 16);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* CSR equals the n x n dense matrix m (zeros absent, entries exact). */
static void assert_csr(topomatch_csr_t c, int64_t n, const double *m, const char *what)
{
	ck_assert_int_eq(c.n, n);
	ck_assert_int_eq(c.rowptr[0], 0);
	for (int64_t i = 0; i < n; i++) {
		int64_t k = c.rowptr[i];
		for (int64_t j = 0; j < n; j++) {
			if (m[i * n + j] == 0.0)
				continue;
			ck_assert_msg(k < c.rowptr[i + 1] && c.col[k] == j,
				      "%s: row %lld lacks column %lld", what, (long long)i,
				      (long long)j);
			ck_assert_msg(c.w[k] == m[i * n + j], "%s: (%lld,%lld) = %.17g, want %.17g",
				      what, (long long)i, (long long)j, c.w[k], m[i * n + j]);
			k++;
		}
		ck_assert_msg(k == c.rowptr[i + 1], "%s: row %lld has extra entries", what,
			      (long long)i);
	}
}

/* Check C against m, A against m + m^T off the diagonal, and the loads. */
static void assert_pattern(const topomatch_affinity_t *a, int64_t n, const double *m,
			   const double *loads, const char *what)
{
	double *sym = calloc((size_t)(n * n), sizeof(double));
	int64_t nnz = 0;

	ck_assert_ptr_nonnull(sym);
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < n; j++)
			if (i != j) {
				sym[i * n + j] = m[i * n + j] + m[j * n + i];
				nnz += m[i * n + j] != 0.0;
			}
	ck_assert_int_eq(topomatch_affinity_ntasks(a), n);
	ck_assert_int_eq(topomatch_affinity_nnz(a), nnz);
	assert_csr(topomatch_affinity_directed(a), n, m, what);
	assert_csr(topomatch_affinity_symmetric(a), n, sym, what);
	free(sym);
	const double *l = topomatch_affinity_loads(a);
	if (!loads) {
		ck_assert_ptr_null(l);
		return;
	}
	ck_assert_ptr_nonnull(l);
	for (int64_t i = 0; i < n; i++)
		ck_assert_msg(l[i] == loads[i], "%s: load %lld = %g, want %g", what, (long long)i,
			      l[i], loads[i]);
}

/* Same n, same directed CSR, bit for bit; same loads. */
static void assert_same(const topomatch_affinity_t *x, const topomatch_affinity_t *y,
			const char *what)
{
	topomatch_csr_t a = topomatch_affinity_directed(x), b = topomatch_affinity_directed(y);

	ck_assert_msg(a.n == b.n, "%s: %lld vs %lld tasks", what, (long long)a.n, (long long)b.n);
	ck_assert_msg(memcmp(a.rowptr, b.rowptr, (size_t)(a.n + 1) * sizeof(int64_t)) == 0,
		      "%s: rowptr differs", what);
	ck_assert_msg(memcmp(a.col, b.col, (size_t)a.rowptr[a.n] * sizeof(int64_t)) == 0,
		      "%s: columns differ", what);
	ck_assert_msg(memcmp(a.w, b.w, (size_t)a.rowptr[a.n] * sizeof(double)) == 0,
		      "%s: weights differ", what);
	const double *la = topomatch_affinity_loads(x), *lb = topomatch_affinity_loads(y);
	ck_assert_msg((la == NULL) == (lb == NULL), "%s: loads present in one only", what);
	if (la)
		ck_assert_msg(memcmp(la, lb, (size_t)a.n * sizeof(double)) == 0,
			      "%s: loads differ", what);
}

/* ------------------------------------------------------------------ */
/* Golden files                                                        */
/* ------------------------------------------------------------------ */

static const double dense3_c[] = {
	0, 1, 2,
	3, 0, 0.5,
	4, 0, 0,
};
static const double mm_general_c[] = {
	0, 1.5, 0,
	2.5, 0, 0,
	100, 0, 0,
};
static const double mm_sym_c[] = {
	0, 3, 0, 0,
	3, 0, 0, 5,
	0, 0, 0, 0,
	0, 5, 0, 0,
};
static const double mm_pattern_c[] = {
	0, 2, 0,
	0, 0, 1,
	0, 0, 0,
};
static const double mm_pattern_sym_c[] = {
	0, 1, 0,
	1, 0, 1,
	0, 1, 0,
};
static const double tri_c[] = {
	0, 3, 0, 0, 0,
	1, 0, 0, 0, 0,
	0, 0, 0, 4, 0,
	0, 0, 0, 0, 0,
	0, 0, 0, 0, 0,
};
static const double tri_plain_c[] = {
	0, 0, 1, 0,
	0, 0, 0, 0.25,
	1, 0, 0, 0,
	0, 0.75, 0, 0,
};
static const double grf_vload_c[] = {
	0, 1, 0,
	1, 0, 1,
	0, 1, 0,
};
static const double grf_vload_l[] = { 2, 1, 3 };
static const double grf_eload_c[] = {
	0, 5, 0,
	5, 0, 3,
	0, 3, 0,
};
static const double grf_label_c[] = {
	0, 0, 2,
	0, 0, 4,
	2, 4, 0,
};
static const double grf_label_l[] = { 7, 5, 6 };
static const double same4_c[] = {
	0, 5, 0, 1,
	2, 0, 3, 0,
	0, 0, 0, 4,
	7, 0, 0, 0,
};

static const struct golden {
	const char *file;
	int format; /* what detection must find */
	int64_t n;
	const double *c;
	const double *loads;
} goldens[] = {
	{ "affinity/dense3.mat", TOPOMATCH_FORMAT_DENSE, 3, dense3_c, NULL },
	{ "affinity/same4.mat", TOPOMATCH_FORMAT_DENSE, 4, same4_c, NULL },
	{ "affinity/mm_general.mtx", TOPOMATCH_FORMAT_MM, 3, mm_general_c, NULL },
	{ "affinity/mm_sym.mtx", TOPOMATCH_FORMAT_MM, 4, mm_sym_c, NULL },
	{ "affinity/mm_pattern.mtx", TOPOMATCH_FORMAT_MM, 3, mm_pattern_c, NULL },
	{ "affinity/mm_pattern_sym.mtx", TOPOMATCH_FORMAT_MM, 3, mm_pattern_sym_c, NULL },
	{ "affinity/same4.mtx", TOPOMATCH_FORMAT_MM, 4, same4_c, NULL },
	{ "affinity/tri.txt", TOPOMATCH_FORMAT_TRIPLETS, 5, tri_c, NULL },
	{ "affinity/tri_plain.txt", TOPOMATCH_FORMAT_TRIPLETS, 4, tri_plain_c, NULL },
	{ "affinity/same4.tri", TOPOMATCH_FORMAT_TRIPLETS, 4, same4_c, NULL },
	{ "affinity/grf_vload.grf", TOPOMATCH_FORMAT_GRF, 3, grf_vload_c, grf_vload_l },
	{ "affinity/grf_eload.grf", TOPOMATCH_FORMAT_GRF, 3, grf_eload_c, NULL },
	{ "affinity/grf_label.grf", TOPOMATCH_FORMAT_GRF, 3, grf_label_c, grf_label_l },
	{ "affinity/same4.grf", TOPOMATCH_FORMAT_GRF, 4, same4_c, NULL },
};

#define NGOLDEN ((int)(sizeof(goldens) / sizeof(goldens[0])))

/* Forced format and auto-detection both give the expected pattern. */
START_TEST(test_golden)
{
	const struct golden *g = &goldens[_i];
	size_t len;
	char *buf = slurp(tm_data(g->file), &len);

	ck_assert_msg(tm_affinity_detect(buf, len) == g->format, "%s detected as %s", g->file,
		      topomatch_format_name(tm_affinity_detect(buf, len)));
	free(buf);
	topomatch_affinity_t *forced = read_ok(g->file, g->format);
	topomatch_affinity_t *detected = read_ok(g->file, TOPOMATCH_FORMAT_AUTO);
	assert_pattern(forced, g->n, g->c, g->loads, g->file);
	assert_same(forced, detected, g->file);
	topomatch_affinity_destroy(forced);
	topomatch_affinity_destroy(detected);
}
END_TEST

/* Spot checks written out by hand, in case assert_pattern were wrong. */
START_TEST(test_golden_by_hand)
{
	topomatch_affinity_t *a = read_ok("affinity/dense3.mat", TOPOMATCH_FORMAT_AUTO);
	topomatch_csr_t c = topomatch_affinity_directed(a);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	static const int64_t crow[] = { 0, 2, 4, 5 }, ccol[] = { 1, 2, 0, 2, 0 };
	static const double cw[] = { 1, 2, 3, 0.5, 4 };
	static const int64_t srow[] = { 0, 2, 4, 6 }, scol[] = { 1, 2, 0, 2, 0, 1 };
	static const double sw[] = { 4, 6, 4, 0.5, 6, 0.5 };

	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(c.rowptr[i], crow[i]);
		ck_assert_int_eq(s.rowptr[i], srow[i]);
	}
	for (int k = 0; k < 5; k++) {
		ck_assert_int_eq(c.col[k], ccol[k]);
		ck_assert_double_eq(c.w[k], cw[k]);
	}
	for (int k = 0; k < 6; k++) {
		ck_assert_int_eq(s.col[k], scol[k]);
		ck_assert_double_eq(s.w[k], sw[k]);
	}
	ck_assert_double_eq(topomatch_affinity_total(a), 10.5);
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(test_same_matrix_all_formats)
{
	static const char *const files[] = { "affinity/same4.mat", "affinity/same4.mtx",
					     "affinity/same4.tri", "affinity/same4.grf" };
	topomatch_affinity_t *ref = read_ok(files[0], TOPOMATCH_FORMAT_AUTO);

	assert_pattern(ref, 4, same4_c, NULL, files[0]);
	for (int f = 1; f < 4; f++) {
		topomatch_affinity_t *a = read_ok(files[f], TOPOMATCH_FORMAT_AUTO);
		assert_same(ref, a, files[f]);
		topomatch_affinity_destroy(a);
	}
	topomatch_affinity_destroy(ref);
}
END_TEST

static int detect(const char *text)
{
	return tm_affinity_detect(text, strlen(text));
}

START_TEST(test_detect_rules)
{
	ck_assert_int_eq(detect("\n  %%matrixmarket matrix coordinate real general\n"),
			 TOPOMATCH_FORMAT_MM);
	ck_assert_int_eq(detect("0\n4 8\n0 000\n"), TOPOMATCH_FORMAT_GRF);
	ck_assert_int_eq(detect("0\n4 8\n1 111\n"), TOPOMATCH_FORMAT_GRF);
	/* not a 3-digit 0/1 flag: a (ragged) dense matrix */
	ck_assert_int_eq(detect("0\n4 8\n0 0\n"), TOPOMATCH_FORMAT_DENSE);
	ck_assert_int_eq(detect("0\n"), TOPOMATCH_FORMAT_DENSE);
	/* three triplet-shaped lines are a 3 x 3 matrix ... */
	ck_assert_int_eq(detect("0 1 5\n1 2 3\n2 0 1\n"), TOPOMATCH_FORMAT_DENSE);
	/* ... unless "# tasks N" says otherwise, anywhere */
	ck_assert_int_eq(detect("0 1 5\n1 2 3\n2 0 1\n  #  tasks 3 \n"),
			 TOPOMATCH_FORMAT_TRIPLETS);
	ck_assert_int_eq(detect("0 1 5\n1 2 3\n"), TOPOMATCH_FORMAT_TRIPLETS);
	ck_assert_int_eq(detect("# c\n0 1 5\n\n1 2 3\n2 0 1\n3 0 1 # c\n"),
			 TOPOMATCH_FORMAT_TRIPLETS);
	/* not an exact directive: just a comment */
	ck_assert_int_eq(detect("# tasks talk\n0 1 5\n1 2 3\n2 0 1\n"), TOPOMATCH_FORMAT_DENSE);
	ck_assert_int_eq(detect("0 1.5 5\n1 2 3\n"), TOPOMATCH_FORMAT_DENSE);
	ck_assert_int_eq(detect("0 1\n1 0\n"), TOPOMATCH_FORMAT_DENSE);
	ck_assert_int_eq(detect(""), TOPOMATCH_FORMAT_DENSE);
}
END_TEST

START_TEST(test_format_names)
{
	static const char *const names[] = { "auto", "dense", "mm", "triplets", "grf" };

	for (int f = 0; f < 5; f++) {
		ck_assert_int_eq(topomatch_format_from_name(names[f]), f);
		ck_assert_str_eq(topomatch_format_name(f), names[f]);
	}
	ck_assert_int_eq(topomatch_format_from_name("scotch"), -1);
	ck_assert_int_eq(topomatch_format_from_name(NULL), -1);
	ck_assert_str_eq(topomatch_format_name(42), "unknown");
	ck_assert_str_eq(topomatch_format_name(-1), "unknown");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input: one entry per kind, status and "file:line: message"      */
/* ------------------------------------------------------------------ */

static const struct bad {
	const char *file;
	int format;
	topomatch_limits_t lim;
	int status;
	const char *msg;
} bads[] = {
	{ "bad_nonnum.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_nonnum.mat:3: not a number: 'abc'" },
	{ "bad_negative.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_negative.mat:2: negative weight: '-3'" },
	{ "bad_nan.tri", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_nan.tri:3: weight must be finite: 'nan'" },
	{ "bad_inf.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_inf.mtx:4: weight must be finite: 'inf'" },
	{ "bad_ragged.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_ragged.mat:2: row 2 has 2 numbers, but the first row (line 1) has 3" },
	{ "bad_ragged_long.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_ragged_long.mat:2: row 2 has 4 numbers, but the first row (line 1) has 2" },
	/* two lines of "i j w" shape: auto-detection would say triplets */
	{ "bad_rows_few.mat", TOPOMATCH_FORMAT_DENSE, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_rows_few.mat:2: too few rows: 2, but the first row (line 1) has 3 numbers" },
	{ "bad_rows_many.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_rows_many.mat:4: too many rows: the first row (line 1) has 2 numbers, "
	  "so the matrix has 2 rows" },
	{ "bad_fields.tri", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_fields.tri:3: expected 'i j w', got 2 fields" },
	{ "bad_index.tri", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index.tri:3: task index 3 out of range [0, 3) set by '# tasks 3' on line 1" },
	{ "bad_index_late.tri", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index_late.tri:2: task index 7 out of range [0, 3) set by '# tasks 3' on line 3" },
	{ "bad_index_neg.tri", TOPOMATCH_FORMAT_TRIPLETS, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index_neg.tri:2: negative task index -1" },
	{ "bad_index_float.tri", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index_float.tri:2: task index must be an integer: '1.5'" },
	{ "bad_index_huge.tri", 0, NO_LIMITS, TOPOMATCH_ELIMIT,
	  "bad_index_huge.tri:2: task index '99999999999999999999' is out of range" },
	{ "bad_index_limit.tri", 0, NO_LIMITS, TOPOMATCH_ELIMIT,
	  "bad_index_limit.tri:2: task index 5000000: more than the limit of 4194304 tasks" },
	{ "bad_index.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index.mtx:4: row index 4 out of range [1, 3]" },
	{ "bad_index.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_index.grf:5: neighbour 2 out of range [0, 1]" },
	{ "bad_label.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_label.grf:5: neighbour 7 is not the label of any vertex" },
	{ "bad_duplabel.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_duplabel.grf:6: duplicate vertex label 5 (also on line 4)" },
	{ "empty.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE, "empty.mat:1: empty pattern" },
	{ "empty.mat", TOPOMATCH_FORMAT_MM, NO_LIMITS, TOPOMATCH_EPARSE,
	  "empty.mat:1: empty pattern" },
	{ "empty.mat", TOPOMATCH_FORMAT_TRIPLETS, NO_LIMITS, TOPOMATCH_EPARSE,
	  "empty.mat:1: empty pattern" },
	{ "empty.mat", TOPOMATCH_FORMAT_GRF, NO_LIMITS, TOPOMATCH_EPARSE,
	  "empty.mat:1: empty pattern" },
	{ "comments_only.mat", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "comments_only.mat:2: empty pattern" },
	/* limits: tasks, non-zeros, bytes, in each format */
	{ "same4.mat", 0, { 3, 0, 0 }, TOPOMATCH_ELIMIT,
	  "same4.mat:1: 4 tasks: more than the limit of 3 tasks" },
	{ "same4.mtx", 0, { 3, 0, 0 }, TOPOMATCH_ELIMIT,
	  "same4.mtx:2: 4 tasks: more than the limit of 3 tasks" },
	{ "same4.tri", 0, { 3, 0, 0 }, TOPOMATCH_ELIMIT,
	  "same4.tri:1: 4 tasks: more than the limit of 3 tasks" },
	{ "tri_plain.txt", 0, { 3, 0, 0 }, TOPOMATCH_ELIMIT,
	  "tri_plain.txt:3: task index 3: more than the limit of 3 tasks" },
	{ "same4.grf", 0, { 3, 0, 0 }, TOPOMATCH_ELIMIT,
	  "same4.grf:2: 4 tasks: more than the limit of 3 tasks" },
	{ "same4.mat", 0, { 0, 5, 0 }, TOPOMATCH_ELIMIT,
	  "same4.mat:4: more than 5 non-zeros (limit)" },
	{ "same4.mtx", 0, { 0, 5, 0 }, TOPOMATCH_ELIMIT,
	  "same4.mtx:2: more than 5 non-zeros (limit)" },
	{ "mm_sym.mtx", 0, { 0, 3, 0 }, TOPOMATCH_ELIMIT,
	  "mm_sym.mtx:4: more than 3 non-zeros (limit)" },
	{ "same4.tri", 0, { 0, 5, 0 }, TOPOMATCH_ELIMIT,
	  "same4.tri:7: more than 5 non-zeros (limit)" },
	{ "same4.grf", 0, { 0, 5, 0 }, TOPOMATCH_ELIMIT,
	  "same4.grf:2: more than 5 non-zeros (limit)" },
	{ "same4.mat", 0, { 0, 0, 10 }, TOPOMATCH_ELIMIT,
	  "same4.mat:2: larger than the limit of 10 bytes" },
	/* Matrix Market structure */
	{ "bad_mm_few.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_mm_few.mtx:4: only 2 of the 3 entries declared on line 2" },
	{ "bad_mm_many.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_mm_many.mtx:5: more entries than the 2 declared on line 2" },
	{ "bad_mm_square.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_mm_square.mtx:2: a pattern is square, this matrix is 3 x 4" },
	{ "bad_mm_huge.mtx", 0, NO_LIMITS, TOPOMATCH_ELIMIT,
	  "bad_mm_huge.mtx:2: 4000000000000 tasks: more than the limit of 4194304 tasks" },
	{ "bad_mm_overflow.mtx", 0, NO_LIMITS, TOPOMATCH_ELIMIT,
	  "bad_mm_overflow.mtx:2: row count '99999999999999999999' is out of range" },
	{ "bad_mm_nnz.mtx", 0, NO_LIMITS, TOPOMATCH_ELIMIT,
	  "bad_mm_nnz.mtx:2: more than 268435456 non-zeros (limit)" },
	{ "bad_mm_banner.mtx", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_mm_banner.mtx:1: expected '%%MatrixMarket matrix coordinate FIELD SYMMETRY'" },
	{ "same4.mat", TOPOMATCH_FORMAT_MM, NO_LIMITS, TOPOMATCH_EPARSE,
	  "same4.mat:1: not a Matrix Market file" },
	{ "mm_array.mtx", 0, NO_LIMITS, TOPOMATCH_EUNSUPPORTED,
	  "mm_array.mtx:1: Matrix Market 'array' is not supported (use coordinate)" },
	{ "mm_complex.mtx", 0, NO_LIMITS, TOPOMATCH_EUNSUPPORTED,
	  "mm_complex.mtx:1: Matrix Market 'complex' is not supported" },
	{ "mm_hermitian.mtx", 0, NO_LIMITS, TOPOMATCH_EUNSUPPORTED,
	  "mm_hermitian.mtx:1: Matrix Market 'hermitian' is not supported" },
	{ "mm_skew.mtx", 0, NO_LIMITS, TOPOMATCH_EUNSUPPORTED,
	  "mm_skew.mtx:1: Matrix Market 'skew-symmetric' is not supported" },
	/* grf structure */
	{ "bad_grf_few.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_few.grf:6: the vertices have 2 arcs, but line 2 declares 4" },
	{ "bad_grf_many.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_many.grf:5: vertex 1 has degree 2, but 1 of the 2 arcs declared on line 2" },
	{ "bad_grf_flag.grf", TOPOMATCH_FORMAT_GRF, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_flag.grf:3: bad flag value '020'" },
	{ "bad_grf_trailing.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_trailing.grf:6: unexpected '7' after the last of the 2 vertices" },
	{ "bad_grf_eof.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_eof.grf:5: unexpected end of file: missing the neighbour" },
	{ "bad_grf_version.grf", TOPOMATCH_FORMAT_GRF, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_version.grf:1: grf version '1' is not supported" },
	{ "bad_grf_vload.grf", 0, NO_LIMITS, TOPOMATCH_EPARSE,
	  "bad_grf_vload.grf:4: negative vertex load: '-2'" },
};

#define NBAD ((int)(sizeof(bads) / sizeof(bads[0])))

START_TEST(test_bad_input)
{
	const struct bad *b = &bads[_i];
	char rel[256], err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = (topomatch_affinity_t *)&a; /* must be reset */

	snprintf(rel, sizeof(rel), "affinity/%s", b->file);
	int rc = topomatch_affinity_read_file(tm_data(rel), b->format, &b->lim, &a, err);
	ck_assert_msg(rc == b->status, "%s: rc %d (%s), want %d", b->file, rc, err, b->status);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, b->msg);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* SECURITY.md's pattern limits at their value: the same4 files (4 tasks,
 * 6 non-zeros) read in every format, one less is refused (bads[]). */
START_TEST(test_limits_at)
{
	static const char *const files[] = { "same4.mat", "same4.mtx", "same4.tri", "same4.grf" };
	char rel[64], err[TOPOMATCH_ERRLEN] = "";

	for (int f = 0; f < 4; f++) {
		snprintf(rel, sizeof(rel), "affinity/%s", files[f]);
		FILE *in = fopen(tm_data(rel), "rb");
		ck_assert_ptr_nonnull(in);
		ck_assert_int_eq(fseek(in, 0, SEEK_END), 0);
		topomatch_limits_t lim = { 4, 6, ftell(in) };
		fclose(in);
		topomatch_affinity_t *a;
		int rc = topomatch_affinity_read_file(tm_data(rel), 0, &lim, &a, err);
		ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", files[f], err);
		assert_pattern(a, 4, same4_c, NULL, files[f]);
		topomatch_affinity_destroy(a);
		lim.max_bytes--;
		rc = topomatch_affinity_read_file(tm_data(rel), 0, &lim, &a, err);
		ck_assert_int_eq(rc, TOPOMATCH_ELIMIT);
		ck_assert_contains(err, "bytes");
	}
}
END_TEST

/* The default limits, just past them; sizes in the text are refused
 * before memory is sized from them. */
static const struct {
	const char *text;
	const char *msg;
} past_defaults[] = {
	{ "# tasks 4194305\n0 1 1\n", "p:1: 4194305 tasks: more than the limit of 4194304 tasks" },
	{ "0 1 1\n0 4194304 1\n", "p:2: task index 4194304: more than the limit of 4194304 tasks" },
	{ "%%MatrixMarket matrix coordinate real general\n4194305 4194305 1\n1 2 1\n",
	  "p:2: 4194305 tasks: more than the limit of 4194304 tasks" },
	{ "%%MatrixMarket matrix coordinate real general\n4 4 268435457\n1 2 1\n",
	  "p:2: more than 268435456 non-zeros (limit)" },
	{ "0\n4194305 2\n0 000\n1 1\n1 0\n", "p:2: 4194305 tasks: more than the limit of 4194304 tasks" },
	{ "0\n2 268435457\n0 000\n1 1\n1 0\n", "p:2: more than 268435456 non-zeros (limit)" },
};

START_TEST(test_limits_past_defaults)
{
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = (topomatch_affinity_t *)&a;
	const char *text = past_defaults[_i].text;

	int rc = topomatch_affinity_read_buffer(text, strlen(text), "p", 0, NULL, &a, err);
	ck_assert_msg(rc == TOPOMATCH_ELIMIT, "rc %d: %s", rc, err);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(err, past_defaults[_i].msg);
}
END_TEST

/* At the default task limit: the last task index is 4194303. */
START_TEST(test_limits_tasks_at_default)
{
	static const char text[] = "0 4194303 1\n";
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a;

	int rc = topomatch_affinity_read_buffer(text, strlen(text), "p", 0, NULL, &a, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(topomatch_affinity_ntasks(a), TOPOMATCH_DEFAULT_MAX_TASKS);
	topomatch_affinity_destroy(a);
}
END_TEST

/* Limits raised to INT64_MAX (the CLI allows it): sizes stay checked, the
 * task count INT64_MAX is out of memory, never an overflow. */
START_TEST(test_limits_raised_to_max)
{
	static const char text[] = "0 9223372036854775806 1\n";
	topomatch_limits_t lim = { INT64_MAX, INT64_MAX, INT64_MAX };
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = (topomatch_affinity_t *)&a;

	int rc = topomatch_affinity_read_buffer(text, strlen(text), "p", 0, &lim, &a, err);
	ck_assert_int_eq(rc, TOPOMATCH_ENOMEM);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, "out of memory building a 9223372036854775807-task pattern");
}
END_TEST

/* The buffer entry point enforces max_bytes itself and names the line. */
START_TEST(test_bytes_limit_buffer)
{
	static const char text[] = "0 5 0 1\n2 0 3 0\n0 0 0 4\n7 0 0 0\n";
	topomatch_limits_t lim = { 0, 0, 10 };
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a;

	int rc = topomatch_affinity_read_buffer(text, strlen(text), "blob", 0, &lim, &a, err);
	ck_assert_int_eq(rc, TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(a);
	ck_assert_contains(err, "blob:2: larger than the limit of 10 bytes");
	lim.max_bytes = (int64_t)strlen(text);
	rc = topomatch_affinity_read_buffer(text, strlen(text), "blob", 0, &lim, &a, err);
	ck_assert_int_eq(rc, TOPOMATCH_OK);
	assert_pattern(a, 4, same4_c, NULL, "blob");
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(test_bad_arguments)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a;

	ck_assert_int_eq(topomatch_affinity_read_buffer("0 1\n1 0\n", 8, "x", 9, NULL, &a, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "x: unknown format 9");
	ck_assert_int_eq(topomatch_affinity_read_file("/nonexistent/pat.mat", 0, NULL, &a, err),
			 TOPOMATCH_EIO);
	ck_assert_contains(err, "/nonexistent/pat.mat: cannot open");
	ck_assert_ptr_null(a);
	ck_assert_int_eq(topomatch_affinity_read_buffer(NULL, 0, NULL, 0, NULL, &a, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "buffer:1: empty pattern");
	ck_assert_int_eq(topomatch_affinity_write(NULL, stdout, 0, err), TOPOMATCH_EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Pipes and stdin                                                     */
/* ------------------------------------------------------------------ */

static topomatch_affinity_t *read_popen(const char *cmd, const char *name)
{
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = NULL;
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(p);
	int rc = topomatch_affinity_read(p, name, TOPOMATCH_FORMAT_AUTO, NULL, &a, err);
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", cmd, err);
	return a;
}

START_TEST(test_pipe)
{
	static const char *const files[] = { "affinity/same4.mat", "affinity/same4.mtx",
					     "affinity/same4.tri", "affinity/same4.grf" };
	char cmd[4200];

	for (int f = 0; f < 4; f++) {
		snprintf(cmd, sizeof(cmd), "cat '%s'", tm_data(files[f]));
		topomatch_affinity_t *a = read_popen(cmd, files[f]);
		assert_pattern(a, 4, same4_c, NULL, files[f]);
		topomatch_affinity_destroy(a);
	}
}
END_TEST

/* More than a pipe buffer, so that the reader must loop on short reads. */
START_TEST(test_pipe_large)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];
	int64_t n = 3000, m = 0;
	int64_t *src = malloc(3 * (size_t)n * sizeof(int64_t));
	int64_t *dst = malloc(3 * (size_t)n * sizeof(int64_t));
	double *w = malloc(3 * (size_t)n * sizeof(double));

	for (int64_t i = 0; i < n; i++)
		for (int64_t d = 1; d <= 3; d++, m++) {
			src[m] = i;
			dst[m] = (i * 7 + d * 131) % n;
			w[m] = 0.1 * (double)(i % 17) + 1.0 / (double)d;
		}
	ck_assert_int_eq(topomatch_affinity_create(n, m, src, dst, w, NULL, &a, err),
			 TOPOMATCH_OK);
	char path[] = "/tmp/test_affinity_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_int_eq(topomatch_affinity_write(a, f, TOPOMATCH_FORMAT_MM, err), TOPOMATCH_OK);
	ck_assert_int_gt(ftell(f), 70000);
	fclose(f);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "cat %s", path);
	topomatch_affinity_t *b = read_popen(cmd, "big");
	unlink(path);
	assert_same(a, b, "pipe");
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
	free(src);
	free(dst);
	free(w);
}
END_TEST

START_TEST(test_stdin_dash)
{
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = NULL;
	int fd = open(tm_data("affinity/same4.tri"), O_RDONLY);
	int saved = dup(0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, 0), 0);
	close(fd);
	int rc = topomatch_affinity_read_file("-", 0, NULL, &a, err);
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	assert_pattern(a, 4, same4_c, NULL, "stdin");
	topomatch_affinity_destroy(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Write, then read back                                               */
/* ------------------------------------------------------------------ */

static char *write_mem(const topomatch_affinity_t *a, int format, size_t *len, int *rc,
		       char *err)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	*rc = topomatch_affinity_write(a, f, format, err);
	fclose(f);
	return buf;
}

/* Written in `format`, read back forced and detected: the same C. */
static void round_trip(const topomatch_affinity_t *a, int format, const char *what)
{
	char err[TOPOMATCH_ERRLEN] = "", name[64];
	size_t len;
	int rc;
	char *buf = write_mem(a, format, &len, &rc, err);

	snprintf(name, sizeof(name), "%s.%s", what, topomatch_format_name(format));
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: write: %s", name, err);
	int want = format == TOPOMATCH_FORMAT_AUTO ? TOPOMATCH_FORMAT_TRIPLETS : format;
	ck_assert_msg(tm_affinity_detect(buf, len) == want, "%s: detected as %s:\n%s", name,
		      topomatch_format_name(tm_affinity_detect(buf, len)), buf);
	for (int pass = 0; pass < 2; pass++) {
		topomatch_affinity_t *b = NULL;
		rc = topomatch_affinity_read_buffer(buf, len, name, pass ? want : 0, NULL, &b, err);
		ck_assert_msg(rc == TOPOMATCH_OK, "%s: read: %s\n%s", name, err, buf);
		assert_same(a, b, name);
		topomatch_affinity_destroy(b);
	}
	free(buf);
}

/* Loads only survive grf: compare C alone for the other formats. */
static topomatch_affinity_t *without_loads(const topomatch_affinity_t *a)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t m = c.rowptr[c.n];
	int64_t *src = malloc((size_t)(m + 1) * sizeof(int64_t));
	topomatch_affinity_t *b = NULL;
	char err[TOPOMATCH_ERRLEN];

	for (int64_t i = 0; i < c.n; i++)
		for (int64_t k = c.rowptr[i]; k < c.rowptr[i + 1]; k++)
			src[k] = i;
	ck_assert_int_eq(topomatch_affinity_create(c.n, m, src, c.col, c.w, NULL, &b, err),
			 TOPOMATCH_OK);
	free(src);
	return b;
}

START_TEST(test_round_trip_real)
{
	/* awkward doubles; tasks 5 and 6 talk to nobody */
	static const int64_t src[] = { 0, 1, 2, 3, 4, 0, 2, 1 };
	static const int64_t dst[] = { 1, 0, 3, 4, 0, 2, 1, 3 };
	static const double w[] = { 0.1, 1.0 / 3.0, 1e-300, 1.7976931348623157e308,
				    5e-324, 123456789.125, 2, 6.02214076e23 };
	static const int formats[] = { TOPOMATCH_FORMAT_AUTO, TOPOMATCH_FORMAT_DENSE,
				       TOPOMATCH_FORMAT_MM, TOPOMATCH_FORMAT_TRIPLETS };
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];

	ck_assert_int_eq(topomatch_affinity_create(7, 8, src, dst, w, NULL, &a, err),
			 TOPOMATCH_OK);
	for (int f = 0; f < 4; f++)
		round_trip(a, formats[f], "real");
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(test_round_trip_integer)
{
	static const int64_t src[] = { 0, 1, 1, 2, 3, 3 };
	static const int64_t dst[] = { 1, 0, 2, 1, 0, 2 };
	static const double w[] = { 5, 2, 3, 4, 9007199254740992.0, 1 };
	static const double loads[] = { 1, 0, 17, 4503599627370496.0, 2 };
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];

	ck_assert_int_eq(topomatch_affinity_create(5, 6, src, dst, w, loads, &a, err),
			 TOPOMATCH_OK);
	round_trip(a, TOPOMATCH_FORMAT_GRF, "int");
	topomatch_affinity_t *b = without_loads(a);
	for (int f = 0; f <= TOPOMATCH_FORMAT_GRF; f++)
		round_trip(b, f, "int");
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(b);
}
END_TEST

/* Degenerate shapes: one task, no communication at all. */
START_TEST(test_round_trip_degenerate)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];

	for (int64_t n = 1; n <= 4; n++) {
		ck_assert_int_eq(topomatch_affinity_create(n, 0, NULL, NULL, NULL, NULL, &a, err),
				 TOPOMATCH_OK);
		for (int f = 0; f <= TOPOMATCH_FORMAT_GRF; f++)
			round_trip(a, f, "empty");
		topomatch_affinity_destroy(a);
	}
}
END_TEST

START_TEST(test_write_golden_text)
{
	topomatch_affinity_t *a = read_ok("affinity/same4.mat", 0);
	char err[TOPOMATCH_ERRLEN];
	size_t len;
	int rc;
	char *buf = write_mem(a, TOPOMATCH_FORMAT_TRIPLETS, &len, &rc, err);

	ck_assert_int_eq(rc, TOPOMATCH_OK);
	ck_assert_str_eq(buf, "# tasks 4\n0 1 5\n0 3 1\n1 0 2\n1 2 3\n2 3 4\n3 0 7\n");
	free(buf);
	buf = write_mem(a, TOPOMATCH_FORMAT_GRF, &len, &rc, err);
	ck_assert_int_eq(rc, TOPOMATCH_OK);
	ck_assert_str_eq(buf, "0\n4 6\n0 010\n2 5 1 1 3\n2 2 0 3 2\n1 4 3\n1 7 0\n");
	free(buf);
	buf = write_mem(a, TOPOMATCH_FORMAT_MM, &len, &rc, err);
	ck_assert_int_eq(rc, TOPOMATCH_OK);
	ck_assert_str_eq(buf, "%%MatrixMarket matrix coordinate real general\n4 4 6\n"
			      "1 2 5\n1 4 1\n2 1 2\n2 3 3\n3 4 4\n4 1 7\n");
	free(buf);
	buf = write_mem(a, TOPOMATCH_FORMAT_DENSE, &len, &rc, err);
	ck_assert_int_eq(rc, TOPOMATCH_OK);
	ck_assert_str_eq(buf, "0 5 0 1\n2 0 3 0\n0 0 0 4\n7 0 0 0\n");
	free(buf);
	ck_assert_int_eq(topomatch_affinity_write(a, stdout, 99, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown format 99");
	topomatch_affinity_destroy(a);
}
END_TEST

START_TEST(test_grf_refuses_non_integers)
{
	static const int64_t src[] = { 0, 1 }, dst[] = { 1, 0 };
	static const double w[] = { 2, 0.5 }, wi[] = { 2, 3 }, loads[] = { 1, 1.5 };
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN];
	size_t len;
	int rc;

	ck_assert_int_eq(topomatch_affinity_create(2, 2, src, dst, w, NULL, &a, err),
			 TOPOMATCH_OK);
	char *buf = write_mem(a, TOPOMATCH_FORMAT_GRF, &len, &rc, err);
	ck_assert_int_eq(rc, TOPOMATCH_EINVAL);
	ck_assert_contains(err, "grf needs integer weights, but C(1,0) = 0.5");
	ck_assert_contains(err, "--format mm");
	ck_assert_uint_eq(len, 0); /* nothing half-written */
	free(buf);
	topomatch_affinity_destroy(a);

	ck_assert_int_eq(topomatch_affinity_create(2, 2, src, dst, wi, loads, &a, err),
			 TOPOMATCH_OK);
	buf = write_mem(a, TOPOMATCH_FORMAT_GRF, &len, &rc, err);
	ck_assert_int_eq(rc, TOPOMATCH_EINVAL);
	ck_assert_contains(err, "grf needs integer loads, but task 1 has 1.5");
	free(buf);
	topomatch_affinity_destroy(a);
}
END_TEST

static Suite *affinity_suite(void)
{
	Suite *s = suite_create("affinity");
	TCase *tc = tcase_create("formats");

	tcase_add_loop_test(tc, test_golden, 0, NGOLDEN);
	tcase_add_test(tc, test_golden_by_hand);
	tcase_add_test(tc, test_same_matrix_all_formats);
	tcase_add_test(tc, test_detect_rules);
	tcase_add_test(tc, test_format_names);
	tcase_add_loop_test(tc, test_bad_input, 0, NBAD);
	tcase_add_test(tc, test_bytes_limit_buffer);
	tcase_add_test(tc, test_limits_at);
	tcase_add_loop_test(tc, test_limits_past_defaults, 0,
			    (int)(sizeof(past_defaults) / sizeof(past_defaults[0])));
	tcase_add_test(tc, test_limits_tasks_at_default);
	tcase_add_test(tc, test_limits_raised_to_max);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_pipe);
	tcase_add_test(tc, test_pipe_large);
	tcase_add_test(tc, test_stdin_dash);
	tcase_add_test(tc, test_round_trip_real);
	tcase_add_test(tc, test_round_trip_integer);
	tcase_add_test(tc, test_round_trip_degenerate);
	tcase_add_test(tc, test_write_golden_text);
	tcase_add_test(tc, test_grf_refuses_non_integers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(affinity_suite());
}

/*
 * test_ompi.c - Open MPI monitoring output to a pattern (affinity_ompi.c):
 * the recorded 4-rank ring of tests/data/ompi_monitoring against the
 * bytes tests/mpi/convert_ring.c sends, the kinds and metrics, and every
 * error path of the parser.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include <errno.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static double cw(const topomatch_affinity_t *a, int64_t i, int64_t j)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);

	for (int64_t p = c.rowptr[i]; p < c.rowptr[i + 1]; p++)
		if (c.col[p] == j)
			return c.w[p];
	return 0.0;
}

static topomatch_ompi_t *mk(unsigned kinds, int metric, int64_t nranks)
{
	topomatch_ompi_opts_t o = { .kinds = kinds, .metric = metric, .nranks = nranks };
	topomatch_ompi_t *m = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_ompi_create(&o, &m, err) == TOPOMATCH_OK, "%s", err);
	return m;
}

/* Add one rank's text of len bytes (NULs included) through a real file;
 * returns the status, err gets the message. */
static int add_bytes(topomatch_ompi_t *m, const char *text, size_t len, const char *name,
		     int64_t rank, char *err)
{
	FILE *f = tmpfile();
	ck_assert(f != NULL);
	ck_assert(fwrite(text, 1, len, f) == len);
	rewind(f);
	int rc = topomatch_ompi_add(m, f, name, rank, err);
	fclose(f);
	return rc;
}

static int add_text(topomatch_ompi_t *m, const char *text, const char *name, int64_t rank,
		    char *err)
{
	return add_bytes(m, text, strlen(text), name, rank, err);
}

static topomatch_affinity_t *finish_ok(topomatch_ompi_t *m, topomatch_ompi_info_t *info)
{
	topomatch_affinity_t *a = NULL;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_msg(topomatch_ompi_finish(m, &a, info, err) == TOPOMATCH_OK, "%s", err);
	return a;
}

static topomatch_affinity_t *from_prefix(const char *prefix, unsigned kinds, int metric)
{
	topomatch_ompi_t *m = mk(kinds, metric, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t nfiles = -1;

	ck_assert_msg(topomatch_ompi_add_prefix(m, tm_data(prefix), &nfiles, err) == 0, "%s", err);
	ck_assert_int_eq(nfiles, 4);
	topomatch_affinity_t *a = finish_ok(m, NULL);
	topomatch_ompi_destroy(m);
	return a;
}

/* The exact traffic of tests/mpi/convert_ring.c on 4 ranks. */
static void assert_ring(const topomatch_affinity_t *a, int msgs)
{
	ck_assert_int_eq(topomatch_affinity_ntasks(a), 4);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 8);
	for (int r = 0; r < 4; r++) {
		double right = msgs ? 10 : 10 * 1000.0 * (r + 1);
		double left = msgs ? 5 : 5 * 100.0 * (r + 1);
		ck_assert_double_eq(cw(a, r, (r + 1) % 4), right);
		ck_assert_double_eq(cw(a, r, (r + 3) % 4), left);
	}
}

/* ---------------------------------------------------------------- recorded runs */

START_TEST(ring_exact_bytes_and_messages)
{
	topomatch_affinity_t *a = from_prefix("ompi_monitoring/ring_e1", 0, TOPOMATCH_OMPI_BYTES);
	assert_ring(a, 0);
	topomatch_affinity_destroy(a);
	a = from_prefix("ompi_monitoring/ring_e1", 0, TOPOMATCH_OMPI_MSGS);
	assert_ring(a, 1);
	topomatch_affinity_destroy(a);
	/* enable 2: E alone is the user's ring, even with collectives */
	a = from_prefix("ompi_monitoring/ring_e2_coll", TOPOMATCH_OMPI_E, TOPOMATCH_OMPI_BYTES);
	assert_ring(a, 0);
	topomatch_affinity_destroy(a);
	a = from_prefix("ompi_monitoring/ring_e2_coll", TOPOMATCH_OMPI_E, TOPOMATCH_OMPI_MSGS);
	assert_ring(a, 1);
	topomatch_affinity_destroy(a);
}
END_TEST

/* The default kinds give the same matrix whatever pml_monitoring_enable was:
 * E of enable 1 = E + I of enable 2 (the reason E,I is the default). */
START_TEST(default_kinds_independent_of_enable_mode)
{
	for (int metric = 0; metric < 2; metric++) {
		topomatch_affinity_t *a = from_prefix("ompi_monitoring/ring_e1_coll", 0, metric);
		topomatch_affinity_t *b = from_prefix("ompi_monitoring/ring_e2_coll", 0, metric);
		ck_assert_msg(tm_same_matrix(a, b), "metric %d", metric);
		/* the allreduce's 4 bytes on top of the ring: C(0,1) = 10000 + 4 */
		if (metric == TOPOMATCH_OMPI_BYTES) {
			ck_assert_double_eq(cw(a, 0, 1), 10004.0);
			ck_assert_double_eq(cw(a, 0, 2), 4.0);
		} else {
			ck_assert_double_eq(cw(a, 0, 1), 12.0);
			ck_assert_double_eq(cw(a, 0, 3), 6.0); /* 5 + a 0-byte barrier message */
		}
		topomatch_affinity_destroy(a);
		topomatch_affinity_destroy(b);
	}
}
END_TEST

START_TEST(kind_c_and_info)
{
	topomatch_ompi_t *m = mk(TOPOMATCH_OMPI_C, TOPOMATCH_OMPI_BYTES, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t nfiles;
	ck_assert_msg(topomatch_ompi_add_prefix(m, tm_data("ompi_monitoring/ring_e2_coll"), &nfiles,
						err) == 0, "%s", err);
	topomatch_ompi_info_t info;
	topomatch_affinity_t *a = finish_ok(m, &info);
	ck_assert_int_eq(info.nranks, 4);
	ck_assert_int_eq(info.files, 4);
	ck_assert_int_eq(info.lines[0], 8);  /* E */
	ck_assert_int_eq(info.lines[1], 10); /* I */
	ck_assert_int_eq(info.lines[2], 12); /* C */
	ck_assert_int_eq(info.lines[3] + info.lines[4], 0);
	/* the coll component books 4 bytes to each peer */
	ck_assert_int_eq(topomatch_affinity_nnz(a), 12);
	ck_assert_double_eq(topomatch_affinity_total(a), 48.0);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
}
END_TEST

/* Files one by one, in any order, give what the prefix gives. */
START_TEST(files_in_any_order)
{
	topomatch_ompi_t *m = mk(0, TOPOMATCH_OMPI_BYTES, 4);
	char err[TOPOMATCH_ERRLEN] = "", path[64];
	const int order[4] = { 2, 0, 3, 1 };
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "ompi_monitoring/ring_e1.%d.prof", order[i]);
		ck_assert_msg(topomatch_ompi_add_file(m, tm_data(path), err) == 0, "%s", err);
	}
	topomatch_affinity_t *a = finish_ok(m, NULL);
	assert_ring(a, 0);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
}
END_TEST

/* ---------------------------------------------------------------- syntax accepted */

START_TEST(lenient_syntax)
{
	/* spaces for tabs, CRLF, no final newline, comments, blank lines,
	 * histograms on any data line, R reversed, S forward, self and
	 * zero-byte entries dropped (the latter counted as messages) */
	const char *r0 = "# POINT TO POINT\r\n"
			 "E 0 1 100 bytes 2 msgs sent 0,1,1\r\n"
			 "\n"
			 "  E\t0\t0\t7 bytes\t1 msgs sent\n"
			 "I\t0\t1\t0 bytes\t3 msgs sent\n"
			 "# OSC\n"
			 "S\t0\t1\t40 bytes\t1 msgs sent\n"
			 "R\t0\t1\t12 bytes\t1 msgs sent\n"
			 "D\tMPI COMMUNICATOR 3 SPLIT FROM 0\tprocs: 0,1\n"
			 "O2A\t0\t0 bytes\t0 msgs sent\n"
			 "A2O\t0\t0 bytes\t0 msgs sent\n"
			 "A2A\t0\t32 bytes\t1 msgs sent";
	const char *r1 = "E\t1\t0\t5 bytes\t1 msgs sent\n";
	char err[TOPOMATCH_ERRLEN] = "";

	topomatch_ompi_t *m = mk(TOPOMATCH_OMPI_ALL, TOPOMATCH_OMPI_BYTES, 0);
	ck_assert_msg(add_text(m, r0, "r0", -1, err) == 0, "%s", err);
	ck_assert_msg(add_text(m, r1, "r1", -1, err) == 0, "%s", err);
	topomatch_affinity_t *a = finish_ok(m, NULL);
	ck_assert_double_eq(cw(a, 0, 1), 140.0); /* E 100 + I 0 + S 40 */
	ck_assert_double_eq(cw(a, 1, 0), 17.0);  /* E 5 + R 12 */
	ck_assert_int_eq(topomatch_affinity_nnz(a), 2);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);

	m = mk(TOPOMATCH_OMPI_E | TOPOMATCH_OMPI_I, TOPOMATCH_OMPI_MSGS, 0);
	ck_assert_msg(add_text(m, r0, "r0", -1, err) == 0, "%s", err);
	ck_assert_msg(add_text(m, r1, "r1", -1, err) == 0, "%s", err);
	a = finish_ok(m, NULL);
	ck_assert_double_eq(cw(a, 0, 1), 5.0); /* 2 + 3 zero-byte messages */
	ck_assert_double_eq(cw(a, 1, 0), 1.0);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
}
END_TEST

/* A communicator line as long as a 200,000-rank MPI_COMM_WORLD is skipped
 * through the bounded buffer; the line count stays right after it. */
START_TEST(long_communicator_line)
{
	size_t cap = 2000000, n = 0;
	char *text = malloc(cap);
	ck_assert(text != NULL);
	n += (size_t)snprintf(text + n, cap - n, "D\tMPI_COMM_WORLD\tprocs: 0");
	for (int r = 1; r < 200000; r++)
		n += (size_t)snprintf(text + n, cap - n, ",%d", r);
	n += (size_t)snprintf(text + n, cap - n, "\nO2A\t0\t0 bytes\t0 msgs sent\nX\n");
	ck_assert(n > 1000000 && n < cap);
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(add_text(m, text, "big", 0, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "big:3: unknown line type 'X'");
	free(text);
	topomatch_ompi_destroy(m);
}
END_TEST

/* ---------------------------------------------------------------- errors */

static const struct bad_line {
	const char *text;
	int64_t rank; /* the rank the caller gives, -1: from the lines */
	int64_t nranks;
	int status;
	const char *msg;
} bad_lines[] = {
	{ "E\t0\t1\t1 bytes\t1 msgs sent\nZ\t0\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:2: unknown line type 'Z'" },
	{ "E\t0\t1\t1 bytes\t1 msgs\n", -1, 0, TOPOMATCH_EPARSE, "f:1: an E line has 8 fields" },
	{ "C\t0\t1\t1 bytes\n", -1, 0, TOPOMATCH_EPARSE, "f:1: a C line has 8 fields (C SRC DST" },
	{ "E\t0\t1\t1 bytes\t1 msgs sent\t1,2\tx\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: trailing text after the histogram: 'x'" },
	{ "E\t0\t1\t1 bytes\t1 msgs sent\t1,,2\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: '1,,2' is not a histogram" },
	{ "E\t0\t1\t1 bytes\t1 msgs sent\t1,2,\n", -1, 0, TOPOMATCH_EPARSE, "is not a histogram" },
	{ "E\t-1\t1\t1 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: rank '-1' is not a rank" },
	{ "E\t0\tx\t1 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: peer rank 'x' is not a rank" },
	{ "E\t0\t4\t1 bytes\t1 msgs sent\n", -1, 4, TOPOMATCH_EPARSE,
	  "f:1: peer rank 4 is out of range: the run has 4 ranks (0 to 3)" },
	{ "E\t0\t99999999999999999999999\t1 bytes\t1 msgs sent\n", -1, 4, TOPOMATCH_EPARSE,
	  "out of range" },
	{ "E\t0\t5000000\t1 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_ELIMIT,
	  "f:1: peer rank 5000000 is beyond the limit of 4194304 ranks" },
	{ "E\t0\t99999999999999999999999\t1 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_ELIMIT,
	  "beyond the limit" },
	{ "E\t0\t1\t1.5 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: byte count '1.5' is not a non-negative integer" },
	{ "E\t0\t1\t18446744073709551616 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_ELIMIT,
	  "f:1: byte count '18446744073709551616' does not fit in 64 bits" },
	{ "E\t0\t1\t18446744073709551615 bytes\t-1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: message count '-1' is not a non-negative integer" },
	{ "E\t0\t1\t1 byte\t1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: expected 'bytes' after the byte count, got 'byte'" },
	{ "E\t0\t1\t1 bytes\t1 msgs recv\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:1: expected 'msgs sent' after the message count" },
	{ "E\t0\t1\t1 bytes\t1 msgs sent\nI\t1\t0\t1 bytes\t1 msgs sent\n", -1, 0,
	  TOPOMATCH_EPARSE,
	  "f:2: a line of rank 1 in the output of rank 0 (line 1): one file per rank" },
	{ "E\t1\t0\t1 bytes\t1 msgs sent\n", 0, 0, TOPOMATCH_EPARSE,
	  "f:1: a line of rank 1 in the file of rank 0" },
	{ "E\t0\t1\t1 bytes\t1 msgs sent\nC\t0\t2\t1 bytes\t1 msgs sent\n"
	  "E\t0\t2\t1 bytes\t1 msgs sent\nE\t0\t1\t9 bytes\t1 msgs sent\n"
	  "E\t0\t2\t1 bytes\t1 msgs sent\n", -1, 0, TOPOMATCH_EPARSE,
	  "f:4: a second E line for 0 -> 1 (first at line 1)" },
	{ "D\tMPI_COMM_WORLD\n", 0, 0, TOPOMATCH_EPARSE, "f:1: a D line is 'D NAME procs: LIST'" },
	{ "O2A\t0\t0 bytes\t0 msgs\n", 0, 0, TOPOMATCH_EPARSE, "f:1: an O2A line has 7 fields" },
	{ "A2A\t0\t0 bytes\t0 msgs sent 1 2 3 4 5\n", 0, 0, TOPOMATCH_EPARSE,
	  "this one more than 10" },
	{ "A2O\t1\t0 bytes\t0 msgs sent\n", 0, 0, TOPOMATCH_EPARSE,
	  "f:1: a line of rank 1 in the file of rank 0" },
	{ "A2O\t0\t0 bytes\t0 parcels sent\n", 0, 0, TOPOMATCH_EPARSE, "expected 'msgs sent'" },
	{ "# POINT TO POINT\n# OSC\n# COLLECTIVES\n", -1, 0, TOPOMATCH_EPARSE,
	  "f: cannot tell which rank wrote it: no data line, and its name does not end in "
	  ".RANK.prof" },
	{ "", 7, 4, TOPOMATCH_EPARSE, "f: rank 7 is out of range: the run has 4 ranks" },
	{ "", 5000000, 0, TOPOMATCH_ELIMIT, "f: rank 5000000 is beyond the limit" },
};

START_TEST(bad_line)
{
	const struct bad_line *b = &bad_lines[_i];
	topomatch_ompi_t *m = mk(0, 0, b->nranks);
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = add_text(m, b->text, "f", b->rank, err);
	ck_assert_msg(rc == b->status, "case %d: status %d (%s), want %d", _i, rc, err,
		      b->status);
	ck_assert_contains(err, b->msg);
	/* a failed add leaves nothing behind */
	topomatch_affinity_t *a = NULL;
	ck_assert_int_eq(topomatch_ompi_finish(m, &a, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "no monitoring file was read");
	ck_assert(a == NULL);
	topomatch_ompi_destroy(m);
}
END_TEST

START_TEST(nul_byte)
{
	static const char text[] = "# x\nE\t0\t1\t1 bytes\t1 msgs\0 sent\n";
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(add_bytes(m, text, sizeof(text) - 1, "f", -1, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "f:2: a NUL byte: not a monitoring file");
	topomatch_ompi_destroy(m);
}
END_TEST

START_TEST(line_too_long)
{
	char *text = malloc(40000);
	ck_assert(text != NULL);
	int n = snprintf(text, 40000, "E\t0\t1\t1 bytes\t1 msgs sent\t0");
	while (n < 20000)
		n += snprintf(text + n, (size_t)(40000 - n), ",0");
	snprintf(text + n, (size_t)(40000 - n), "\n");
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(add_text(m, text, "f", -1, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "f:1: line longer than 16384 bytes");
	topomatch_ompi_destroy(m);
	/* 16384 bytes before the newline fit, one more does not (the last
	 * count of the histogram gets a digit more) */
	memcpy(text + 16383, "0\n", 3);
	m = mk(0, 0, 0);
	ck_assert_msg(add_text(m, text, "f", -1, err) == 0, "%s", err);
	topomatch_ompi_destroy(m);
	memcpy(text + 16384, "0\n", 3);
	m = mk(0, 0, 0);
	ck_assert_int_eq(add_text(m, text, "f", -1, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "f:1: line longer than 16384 bytes");
	free(text);
	topomatch_ompi_destroy(m);
}
END_TEST

START_TEST(file_byte_limit)
{
	static const char two[] = "E\t0\t1\t1 bytes\t1 msgs sent\nE\t0\t2\t1 bytes\t1 msgs sent\n";
	topomatch_ompi_opts_t o = { .limits = { .max_bytes = 40 } };
	topomatch_ompi_t *m;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), 0);
	/* byte 41 is on line 2: named as the pattern readers name it */
	ck_assert_int_eq(add_text(m, two, "f", -1, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "f:2: larger than the limit of 40 bytes");
	topomatch_ompi_destroy(m);
	/* at the limit it reads */
	o.limits.max_bytes = (int64_t)strlen(two);
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), 0);
	ck_assert_int_eq(add_text(m, two, "f", -1, err), 0);
	topomatch_ompi_destroy(m);
	/* past the first 64 KiB block: lines of 100 bytes, the 65601st byte
	 * on line 657 */
	char *text = malloc(70001);
	ck_assert_ptr_nonnull(text);
	for (int i = 0; i < 700; i++) {
		memset(text + 100 * i, '#', 99);
		text[100 * i + 99] = '\n';
	}
	text[70000] = '\0';
	o.limits.max_bytes = 65600;
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), 0);
	ck_assert_int_eq(add_text(m, text, "f", 0, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "f:657: larger than the limit of 65600 bytes");
	topomatch_ompi_destroy(m);
	free(text);
}
END_TEST

START_TEST(entry_limits)
{
	topomatch_ompi_opts_t o = { .limits = { .max_nnz = 2 } };
	topomatch_ompi_t *m;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), 0);
	/* the 2 entries of rank 0 fit; rank 1's first goes over, all of
	 * rank 1 is refused and rank 0's stay */
	ck_assert_int_eq(add_text(m, "E\t0\t1\t1 bytes\t1 msgs sent\nE\t0\t2\t1 bytes\t1 msgs sent\n",
				  "r0", -1, err), 0);
	ck_assert_int_eq(add_text(m, "E\t1\t0\t1 bytes\t1 msgs sent\n", "r1", -1, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "r1:1: more than 2 entries in all (limit)");
	ck_assert_int_eq(add_text(m, "", "r2", 2, err), 0);
	ck_assert_int_eq(add_text(m, "# nothing sent\n", "r1", 1, err), 0);
	topomatch_affinity_t *a = finish_ok(m, NULL);
	ck_assert_int_eq(topomatch_affinity_nnz(a), 2);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
	/* per file: 3 distinct lines over a limit of 2 */
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), 0);
	ck_assert_int_eq(add_text(m, "E\t0\t1\t1 bytes\t1 msgs sent\nE\t0\t2\t1 bytes\t1 msgs sent\n"
				  "E\t0\t3\t1 bytes\t1 msgs sent\n", "r0", -1, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "r0:3: more than 2 entries (limit)");
	topomatch_ompi_destroy(m);
}
END_TEST

/* A rank given twice; then the same rank again after a failed add. */
START_TEST(duplicate_rank_file)
{
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(add_text(m, "E\t0\t1\t1 bytes\t1 msgs sent\n", "a.0.prof", 0, err), 0);
	ck_assert_int_eq(add_text(m, "E\t0\t1\t1 bytes\t1 msgs sent\n", "b", -1, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "b: a second output of rank 0 (the first: a.0.prof)");
	/* bad rank 1, then good rank 1: accepted */
	ck_assert_int_eq(add_text(m, "E\t1\t0\t1 bytes\n", "c", 1, err), TOPOMATCH_EPARSE);
	ck_assert_int_eq(add_text(m, "E\t1\t0\t3 bytes\t1 msgs sent\n", "d", 1, err), 0);
	topomatch_affinity_t *a = finish_ok(m, NULL);
	ck_assert_double_eq(cw(a, 1, 0), 3.0);
	ck_assert_double_eq(topomatch_affinity_total(a), 4.0);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
}
END_TEST

START_TEST(missing_ranks)
{
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_affinity_t *a = NULL;
	ck_assert_int_eq(add_text(m, "E\t0\t1\t1 bytes\t1 msgs sent\n", "r0", -1, err), 0);
	ck_assert_int_eq(add_text(m, "E\t3\t0\t1 bytes\t1 msgs sent\n", "r3", -1, err), 0);
	ck_assert_int_eq(topomatch_ompi_finish(m, &a, NULL, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "no monitoring file for ranks 1, 2 (2 of 4 ranks missing)");
	/* a peer beyond the last file: named where it first appeared */
	ck_assert_int_eq(add_text(m, "\nE\t2\t9\t1 bytes\t1 msgs sent\nE\t2\t1\t1 bytes\t1 msgs "
				  "sent\n", "r2", -1, err), 0);
	ck_assert_int_eq(add_text(m, "E\t1\t9\t1 bytes\t1 msgs sent\n", "r1", -1, err), 0);
	ck_assert_int_eq(topomatch_ompi_finish(m, &a, NULL, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "r2:2: rank 9 has no monitoring file (the files are those of "
			   "ranks up to 3): missing files?");
	topomatch_ompi_destroy(m);
	/* --ranks: a missing last rank is found too; more than 8 listed short */
	m = mk(0, 0, 20);
	ck_assert_int_eq(add_text(m, "", "r0", 0, err), 0);
	ck_assert_int_eq(topomatch_ompi_finish(m, &a, NULL, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "no monitoring file for ranks 1, 2, 3, 4, 5, 6, 7, 8 and 11 more "
			   "(19 of 20 ranks missing)");
	topomatch_ompi_destroy(m);
	m = mk(0, 0, 2);
	ck_assert_int_eq(add_text(m, "", "r0", 0, err), 0);
	ck_assert_int_eq(topomatch_ompi_finish(m, &a, NULL, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "no monitoring file for rank 1 (1 of 2 ranks missing)");
	topomatch_ompi_destroy(m);
}
END_TEST

START_TEST(files_and_prefixes)
{
	topomatch_ompi_t *m = mk(0, 0, 0);
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t nfiles = 7;
	ck_assert_int_eq(topomatch_ompi_add_file(m, "/nonexistent/x.0.prof", err), TOPOMATCH_EIO);
	ck_assert_contains(err, "/nonexistent/x.0.prof: No such file or directory");
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, "/nonexistent/x", &nfiles, err),
			 TOPOMATCH_EIO);
	ck_assert_contains(err, "/nonexistent/x: cannot list /nonexistent/");
	ck_assert_int_eq(nfiles, 0);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, tm_data("ompi_monitoring/ring"), NULL, err),
			 TOPOMATCH_EIO);
	ck_assert_contains(err, "ompi_monitoring/ring: no monitoring files");
	ck_assert_contains(err, "ompi_monitoring/ring.RANK.prof");
	/* a directory opens but does not read */
	ck_assert_int_eq(topomatch_ompi_add_file(m, tm_data("ompi_monitoring"), err), TOPOMATCH_EIO);
	ck_assert_contains(err, "read error: Is a directory");
	/* a dangling link named like a monitoring file: listed, not opened */
	char dir[] = "/tmp/tm_ompi_XXXXXX", link[64];
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(link, sizeof(link), "%s/run.0.prof", dir);
	ck_assert(symlink("/nonexistent/target", link) == 0);
	snprintf(link, sizeof(link), "%s/run", dir);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, link, &nfiles, err), TOPOMATCH_EIO);
	ck_assert_contains(err, "/run.0.prof: No such file or directory");
	snprintf(link, sizeof(link), "%s/run.0.prof", dir);
	unlink(link);
	rmdir(dir);
	/* the prefix's files after one of them: the second output of rank 2 */
	ck_assert_int_eq(topomatch_ompi_add_file(m, tm_data("ompi_monitoring/ring_e1.2.prof"), err),
			 0);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, tm_data("ompi_monitoring/ring_e1"), &nfiles,
						   err), TOPOMATCH_EPARSE);
	ck_assert_int_eq(nfiles, 2); /* ranks 0 and 1 went in */
	ck_assert_contains(err, "ring_e1.2.prof: a second output of rank 2");
	topomatch_ompi_destroy(m);
}
END_TEST

/* A file whose name does not say its rank gets it from its lines; the
 * name's rank must agree with the lines. */
START_TEST(rank_from_name)
{
	char dir[] = "/tmp/tm_ompi_XXXXXX", path[128], err[TOPOMATCH_ERRLEN] = "";
	ck_assert(mkdtemp(dir) != NULL);
	const char *names[] = { "run.03.prof", "run.1.prof.bak", "run.2.prof" };
	const char *texts[] = { "E\t0\t1\t1 bytes\t1 msgs sent\n", "E\t1\t0\t2 bytes\t1 msgs sent\n",
				"E\t0\t1\t1 bytes\t1 msgs sent\n" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		ck_assert(f != NULL);
		fputs(texts[i], f);
		fclose(f);
	}
	topomatch_ompi_t *m = mk(0, 0, 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ck_assert_msg(topomatch_ompi_add_file(m, path, err) == 0, "%s", err);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, names[2]);
	ck_assert_int_eq(topomatch_ompi_add_file(m, path, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "run.2.prof:1: a line of rank 0 in the file of rank 2");
	topomatch_affinity_t *a = finish_ok(m, NULL);
	ck_assert_double_eq(cw(a, 1, 0), 2.0);
	topomatch_affinity_destroy(a);
	topomatch_ompi_destroy(m);
	/* the prefix takes only canonical PREFIX.RANK.prof: run.2.prof, and
	 * without it nothing */
	m = mk(0, 0, 0);
	snprintf(path, sizeof(path), "%s/run", dir);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, path, NULL, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "run.2.prof:1: a line of rank 0 in the file of rank 2");
	snprintf(path, sizeof(path), "%s/%s", dir, names[2]);
	unlink(path);
	snprintf(path, sizeof(path), "%s/run", dir);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, path, NULL, err), TOPOMATCH_EIO);
	ck_assert_contains(err, "/run: no monitoring files");
	topomatch_ompi_destroy(m);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

START_TEST(kinds_parse)
{
	unsigned k = 0;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_ompi_kinds_parse("E,I", &k, err), 0);
	ck_assert_uint_eq(k, TOPOMATCH_OMPI_E | TOPOMATCH_OMPI_I);
	ck_assert_int_eq(topomatch_ompi_kinds_parse("c,s,R,e", &k, err), 0);
	ck_assert_uint_eq(k, TOPOMATCH_OMPI_C | TOPOMATCH_OMPI_S | TOPOMATCH_OMPI_R |
				     TOPOMATCH_OMPI_E);
	ck_assert_int_eq(topomatch_ompi_kinds_parse("ALL", &k, err), 0);
	ck_assert_uint_eq(k, TOPOMATCH_OMPI_ALL);
	const char *bad[] = { "", "X", "E,,I", "EI", "E,", "D" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(topomatch_ompi_kinds_parse(bad[i], &k, err), TOPOMATCH_EINVAL);
		ck_assert_contains(err, "is not one of E, I, C, S, R (or 'all')");
	}
	ck_assert_int_eq(topomatch_ompi_kinds_parse(NULL, &k, err), TOPOMATCH_EINVAL);
}
END_TEST

START_TEST(bad_arguments)
{
	topomatch_ompi_t *m = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_ompi_opts_t o = { .kinds = 0x20 };
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown kind bits 0x20");
	o = (topomatch_ompi_opts_t){ .metric = 2 };
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "unknown metric 2");
	o = (topomatch_ompi_opts_t){ .nranks = -1 };
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), TOPOMATCH_EINVAL);
	o = (topomatch_ompi_opts_t){ .nranks = 9, .limits = { .max_tasks = 8 } };
	ck_assert_int_eq(topomatch_ompi_create(&o, &m, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "9 ranks: must be in [1, 8]");
	ck_assert(m == NULL);
	ck_assert_int_eq(topomatch_ompi_create(NULL, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_create(NULL, &m, err), 0);
	ck_assert_int_eq(topomatch_ompi_add(m, NULL, "x", 0, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_add(NULL, stdin, "x", 0, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_add_file(m, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_add_prefix(m, "", NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_finish(m, NULL, NULL, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(topomatch_ompi_finish(NULL, NULL, NULL, err), TOPOMATCH_EINVAL);
	/* a NULL name is fine: messages say "monitoring output" */
	ck_assert_int_eq(add_text(m, "Q\n", NULL, 0, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "monitoring output:1: unknown line type 'Q'");
	topomatch_ompi_destroy(m);
	topomatch_ompi_destroy(NULL);
}
END_TEST

static Suite *ompi_suite(void)
{
	Suite *s = suite_create("ompi");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ring_exact_bytes_and_messages);
	tcase_add_test(tc, default_kinds_independent_of_enable_mode);
	tcase_add_test(tc, kind_c_and_info);
	tcase_add_test(tc, files_in_any_order);
	tcase_add_test(tc, lenient_syntax);
	tcase_add_test(tc, long_communicator_line);
	tcase_add_loop_test(tc, bad_line, 0, (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
	tcase_add_test(tc, nul_byte);
	tcase_add_test(tc, line_too_long);
	tcase_add_test(tc, file_byte_limit);
	tcase_add_test(tc, entry_limits);
	tcase_add_test(tc, duplicate_rank_file);
	tcase_add_test(tc, missing_ranks);
	tcase_add_test(tc, files_and_prefixes);
	tcase_add_test(tc, rank_from_name);
	tcase_add_test(tc, kinds_parse);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(ompi_suite());
}

/*
 * test_sim_swf.c - the simulator's SWF reader and job streams: header
 * fields, comments and blank lines, each malformed-line error with its
 * line number, gzip-compressed files (written here and the real Curie
 * trace), the conversion of records to whole-node jobs with its skip
 * counts, --jobs, and the generated stream.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "sim.h"

#include <unistd.h>
#include <zlib.h>

static const char header[] =
	"; Version: 2.2\n"
	"; Computer: Test cluster (tc)\n"
	"; Installation: Somewhere\n"
	";\n"
	"; MaxNodes: 128\n"
	"; MaxProcs: 1024\n"
	"; Note: mixed nodes: see the site\n"
	"; UnixStartTime: 1296571124\n";

/* header (8 lines) then these records: lines 9.. */
static const char records[] =
	"1 0 10 100 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n"
	"\n"
	"; a comment between records\n"
	"2 5 0 -1 16 -1 -1 16 600 -1 5 3 1 -1 1 1 -1 -1\n"
	"  3   7   1  50.5  -1 12.5 -1 4 60 -1 1 4 1 -1 1 2 -1 -1\n"
	"4 9 2 3600 2048 -1 -1 2048 7200 -1 1 4 1 -1 1 2 -1 -1";

static char *write_tmp(const char *text, bool gz)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/tm-sim-swfXXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
		ck_assert_int_eq(gzclose(g), Z_OK);
	} else {
		ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
	}
	return path;
}

static char *trace_text(void)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf), "%s%s", header, records);
	return buf;
}

/* Every record of the test trace, read from a plain or gzip file. */
static void read_all(bool gz)
{
	char err[TOPOMATCH_ERRLEN], *path = write_tmp(trace_text(), gz);
	sim_swf_t *s;
	sim_swf_rec_t r[8];
	int got, n = 0;
	ck_assert_msg(sim_swf_open(path, &s, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_str_eq(sim_swf_header(s, "Computer"), "Test cluster (tc)");
	ck_assert_str_eq(sim_swf_header(s, "computer"), "Test cluster (tc)");
	ck_assert_int_eq(sim_swf_header_int(s, "MaxNodes"), 128);
	ck_assert_int_eq(sim_swf_header_int(s, "MaxProcs"), 1024);
	ck_assert_int_eq(sim_swf_header_int(s, "UnixStartTime"), 1296571124);
	ck_assert_str_eq(sim_swf_header(s, "Note"), "mixed nodes: see the site");
	ck_assert_ptr_null(sim_swf_header(s, "MaxJobs"));
	ck_assert_int_eq(sim_swf_header_int(s, "MaxJobs"), -1);
	ck_assert_int_eq(sim_swf_header_int(s, "Computer"), -1); /* not a number */
	ck_assert_int_eq(sim_swf_header_count(s), 7);
	while (sim_swf_next(s, &r[n], &got, err) == TOPOMATCH_OK && got)
		n++;
	sim_swf_close(s);
	unlink(path);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(r[0].line, 9);
	ck_assert_int_eq(r[0].id, 1);
	ck_assert_int_eq(r[0].alloc_procs, 8);
	ck_assert(r[0].req_time == 200 && r[0].run == 100 && r[0].wait == 10);
	ck_assert_int_eq(r[1].line, 12);
	ck_assert(r[1].run == -1 && r[1].status == 5);
	ck_assert_int_eq(r[2].line, 13);
	ck_assert(r[2].run == 50.5 && r[2].alloc_procs == -1 && r[2].req_procs == 4);
	ck_assert_int_eq(r[2].partition, 2);
	ck_assert_int_eq(r[3].line, 14); /* last line without a newline */
	ck_assert_int_eq(r[3].alloc_procs, 2048);
}

START_TEST(plain_file)
{
	read_all(false);
}
END_TEST

START_TEST(gzip_file)
{
	read_all(true);
}
END_TEST

/* The first error of `bad` appended after the header, as line 9 + k. */
static void bad_line(const char *bad, const char *want)
{
	char text[2048], err[TOPOMATCH_ERRLEN] = "", expect[512];
	snprintf(text, sizeof(text), "%s%s", header, bad);
	char *path = write_tmp(text, false);
	sim_swf_t *s;
	sim_swf_rec_t r;
	int got = 1, rc = sim_swf_open(path, &s, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	while ((rc = sim_swf_next(s, &r, &got, err)) == TOPOMATCH_OK && got)
		;
	sim_swf_close(s);
	ck_assert_int_eq(rc, TOPOMATCH_EPARSE);
	snprintf(expect, sizeof(expect), "%s:%s", path, want);
	ck_assert_str_eq(err, expect);
	unlink(path);
}

START_TEST(malformed_lines)
{
	bad_line("1 0 10 100 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1\n",
		 "9: 17 fields, an SWF record has 18");
	bad_line("1 0 10 100 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n"
		 "2 0 10 100 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1 7\n",
		 "10: more than 18 fields");
	bad_line("; fine\n1 0 10 abc 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n",
		 "10: field 4 (run time): 'abc' is not a number");
	bad_line("1 0 10 100 4.5 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n",
		 "9: field 5 (allocated processors): '4.5' is not a whole number");
	bad_line("1 0 10 100 8 -1 -1 8 200x -1 1 3 1 -1 1 1 -1 -1\n",
		 "9: field 9 (requested time): '200x' is not a number");
	bad_line("1 -5 10 100 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n",
		 "9: field 2 (submit time): -5 is negative");
	bad_line("1 0 10 1e999 8 -1 -1 8 200 -1 1 3 1 -1 1 1 -1 -1\n",
		 "9: field 4 (run time): '1e999' is not a number");
}
END_TEST

START_TEST(open_errors)
{
	char err[TOPOMATCH_ERRLEN];
	sim_swf_t *s = (sim_swf_t *)&err;
	ck_assert_int_eq(sim_swf_open("/nonexistent/trace.swf", &s, err), TOPOMATCH_EIO);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err, "/nonexistent/trace.swf: No such file or directory");
	/* a truncated gzip file: a read error with its line, never a crash */
	char *path = write_tmp(trace_text(), true);
	FILE *f = fopen(path, "r+");
	ck_assert_int_eq(ftruncate(fileno(f), 40), 0);
	fclose(f);
	int got = 1, rc = sim_swf_open(path, &s, err);
	sim_swf_rec_t r;
	while (rc == TOPOMATCH_OK && got)
		rc = sim_swf_next(s, &r, &got, err);
	if (s && rc == TOPOMATCH_OK)
		sim_swf_close(s);
	ck_assert_int_ne(rc, TOPOMATCH_OK);
	ck_assert_contains(err, path);
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------ streams */

START_TEST(records_to_jobs)
{
	char err[TOPOMATCH_ERRLEN], *path = write_tmp(trace_text(), true);
	sim_stream_t s;
	/* 4 cores per node, 64 nodes: job 2 never ran, job 4 (2048
	 * processors = 512 nodes) does not fit */
	ck_assert_msg(sim_stream_swf(path, 0, 4, 64, &s, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(s.records, 4);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.never_ran, 1);
	ck_assert_int_eq(s.too_big, 1);
	ck_assert_int_eq(s.max_nodes, 128);
	ck_assert_int_eq(s.max_procs, 1024);
	ck_assert_contains(s.source, "(Somewhere)");
	ck_assert_int_eq(s.job[0].id, 1);
	ck_assert(s.job[0].submit == 0 && s.job[0].run == 100 && s.job[0].req == 200);
	ck_assert_int_eq(s.job[0].procs, 8);
	ck_assert_int_eq(s.job[0].nodes, 2);
	ck_assert_int_eq(s.job[1].id, 3);
	ck_assert(s.job[1].submit == 7 && s.job[1].run == 50.5 && s.job[1].req == 60);
	ck_assert_int_eq(s.job[1].procs, 4); /* the requested ones: none allocated */
	ck_assert_int_eq(s.job[1].nodes, 1);
	ck_assert_int_eq(s.job[1].line, 13);
	sim_stream_free(&s);
	/* --jobs 1 stops after the first job */
	ck_assert(sim_stream_swf(path, 1, 4, 64, &s, err) == TOPOMATCH_OK);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.records, 1);
	sim_stream_free(&s);
	/* 3 cores per node: 8 processors need 3 nodes */
	ck_assert(sim_stream_swf(path, 0, 3, 1000, &s, err) == TOPOMATCH_OK);
	ck_assert_int_eq(s.job[0].nodes, 3);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.job[2].nodes, 683);
	ck_assert(s.job[2].submit == 9);
	sim_stream_free(&s);
	unlink(path);
}
END_TEST

START_TEST(unsorted_submits)
{
	char err[TOPOMATCH_ERRLEN];
	char *path = write_tmp("1 100 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 1 -1 -1\n"
			       "2 40 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 1 -1 -1\n"
			       "3 40 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n", false);
	sim_stream_t s;
	ck_assert_msg(sim_stream_swf(path, 0, 1, 4, &s, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.job[0].id, 2); /* by submit time, file order on ties */
	ck_assert_int_eq(s.job[1].id, 3);
	ck_assert_int_eq(s.job[2].id, 1);
	ck_assert(s.job[0].submit == 0 && s.job[2].submit == 60);
	ck_assert(s.job[1].req == -1); /* no requested time */
	sim_stream_free(&s);
	unlink(path);
}
END_TEST

static const char *trace(const char *name)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof(buf), "%s/../shared/traces/%s", top ? top : ".", name);
	return buf;
}

/* The real Curie trace (gzip, 29 MB unpacked): its header and first jobs,
 * checked against zcat | sed -n 75,77p. */
START_TEST(real_curie_trace)
{
	char err[TOPOMATCH_ERRLEN];
	const char *path = trace("CEA-Curie-2011-2.1-cln.swf.gz");
	if (access(path, R_OK) != 0) {
		printf("skip: %s not here\n", path);
		return;
	}
	sim_swf_t *s;
	ck_assert_msg(sim_swf_open(path, &s, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_str_eq(sim_swf_header(s, "Installation"), "CEA Curie Cluster");
	ck_assert_int_eq(sim_swf_header_int(s, "MaxNodes"), 5544);
	ck_assert_int_eq(sim_swf_header_int(s, "MaxProcs"), 93312);
	sim_swf_close(s);
	sim_stream_t st;
	ck_assert(sim_stream_swf(path, 3, 16, 5040, &st, err) == TOPOMATCH_OK);
	ck_assert_int_eq(st.n, 3);
	ck_assert_int_eq(st.records, 4); /* 272395 was cancelled before it ran */
	ck_assert_int_eq(st.never_ran, 1);
	ck_assert_int_eq(st.job[0].id, 272393);
	ck_assert_int_eq(st.job[0].line, 75);
	ck_assert_int_eq(st.job[0].procs, 256);
	ck_assert_int_eq(st.job[0].nodes, 16);
	ck_assert(st.job[0].run == 86395 && st.job[0].req == 86400);
	ck_assert_int_eq(st.job[2].id, 272396);
	ck_assert(st.job[2].submit == 31673946 - 31656837);
	sim_stream_free(&st);
}
END_TEST

START_TEST(generated_stream)
{
	char err[TOPOMATCH_ERRLEN];
	sim_stream_t a, b;
	ck_assert(sim_stream_generate(500, 0.9, 16, 256, 7, &a, err) == TOPOMATCH_OK);
	ck_assert(sim_stream_generate(500, 0.9, 16, 256, 7, &b, err) == TOPOMATCH_OK);
	ck_assert_int_eq(a.n, 500);
	double work = 0;
	for (int64_t j = 0; j < a.n; j++) {
		const sim_job_t *x = &a.job[j];
		ck_assert(x->id == j + 1 && x->nodes >= 1 && x->nodes <= 32);
		ck_assert_int_eq(x->procs, x->nodes * 16);
		ck_assert(x->run >= 60 && x->run <= 36000);
		ck_assert(x->req >= x->run && x->req <= 3 * x->run + 60);
		ck_assert(j == 0 || x->submit >= a.job[j - 1].submit);
		ck_assert(!memcmp(x, &b.job[j], sizeof(*x))); /* same seed, same stream */
		work += (double)x->nodes * x->run;
	}
	/* offered load: node-seconds over the arrival span x nodes, about 0.9 */
	double load = work / (a.job[a.n - 1].submit * 256);
	ck_assert_msg(load > 0.6 && load < 1.3, "load %g", load);
	sim_stream_free(&a);
	sim_stream_free(&b);
}
END_TEST

static Suite *swf_suite(void)
{
	Suite *s = suite_create("topomatch-sim-swf");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, plain_file);
	tcase_add_test(tc, gzip_file);
	tcase_add_test(tc, malformed_lines);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, records_to_jobs);
	tcase_add_test(tc, unsorted_submits);
	tcase_add_test(tc, real_curie_trace);
	tcase_add_test(tc, generated_stream);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(swf_suite());
}

/*
 * test_sim_sched.c - FCFS with EASY backfill on tiny job streams whose
 * start times are worked out by hand in the comments: plain FCFS, a
 * backfill that ends before the shadow time, one that uses the extra
 * nodes, reservations by requested time when jobs end early, jobs
 * without a requested time, equal event times, a failing start, and
 * streams the scheduler refuses; and Slurm's backfill (--sched slurm):
 * a second queued job protected where EASY lets a later one delay it,
 * its depth (bf_max_job_test) and window (bf_window).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "sim.h"

/* The job's trace run time; started/finished counts; fail_at: the start
 * that fails (-1: none). */
typedef struct fake {
	const sim_job_t *job;
	int64_t running, max_running, fail_at, starts;
	int64_t order[16];
	double slow; /* > 0: jobs without a requested time run that many times
		      * their run time (as contention may make them) */
} fake_t;

static int fake_start(void *ctx, int64_t j, double now, double *run, char *err)
{
	fake_t *f = ctx;
	(void)now;
	if (f->starts == f->fail_at)
		return sim_err(err, TOPOMATCH_EINVAL, "start %lld refused", (long long)j);
	f->order[f->starts++] = j;
	*run = f->job[j].run * (f->slow > 0 && f->job[j].req <= 0 ? f->slow : 1);
	f->running++;
	f->max_running = f->running > f->max_running ? f->running : f->max_running;
	return TOPOMATCH_OK;
}

static void fake_finish(void *ctx, int64_t j)
{
	fake_t *f = ctx;
	(void)j;
	f->running--;
}

#define JOB(sub, nodes_, run_, req_) \
	{ .id = 0, .submit = (sub), .nodes = (nodes_), .run = (run_), .req = (req_), .kind = -1 }

/* Run jobs on nnodes nodes, EASY (depth 0) or Slurm's backfill planning
 * `depth` jobs at most `window` s ahead; check start[j] == want[j]. */
static void expect_starts_bf(sim_job_t *jobs, int64_t n, int64_t nnodes, int64_t depth,
			     double window, const double *want)
{
	double start[16], end[16];
	char err[TOPOMATCH_ERRLEN] = "";
	fake_t f = { .job = jobs, .fail_at = -1 };
	sim_sched_ops_t ops = { fake_start, fake_finish, &f, NULL, depth, window };
	for (int64_t j = 0; j < n; j++)
		jobs[j].id = j;
	ck_assert_msg(sim_sched_run(jobs, n, nnodes, &ops, start, end, err) == TOPOMATCH_OK, "%s",
		      err);
	ck_assert_int_eq(f.starts, n);
	ck_assert_int_eq(f.running, 0);
	for (int64_t j = 0; j < n; j++) {
		ck_assert_msg(start[j] == want[j], "job %lld starts at %g, not %g", (long long)j,
			      start[j], want[j]);
		ck_assert(end[j] == start[j] + jobs[j].run);
	}
}

static void expect_starts(sim_job_t *jobs, int64_t n, int64_t nnodes, const double *want)
{
	expect_starts_bf(jobs, n, nnodes, 0, 0, want);
}

START_TEST(fcfs)
{
	/* 4 nodes: J0 takes all until 10; J1 and J2 (2 nodes each) start then. */
	sim_job_t jobs[] = { JOB(0, 4, 10, 10), JOB(1, 2, 5, 5), JOB(2, 2, 5, 5) };
	const double want[] = { 0, 10, 10 };
	expect_starts(jobs, 3, 4, want);
}
END_TEST

START_TEST(backfill_before_shadow)
{
	/*
	 * 4 nodes.  J0 (3 nodes, 0-10).  J1 (4 nodes) waits: shadow 10, no
	 * extra node.  J2 (1 node, req 5) at 2 ends by 7 <= 10: backfilled
	 * at 2.  J3 (1 node, req 20) at 3: no free node; at 7 (J2 ends)
	 * 7 + 20 > 10 and no extra node: waits.  J1 starts at 10 (all
	 * nodes, until 20), J3 at 20.
	 */
	sim_job_t jobs[] = { JOB(0, 3, 10, 10), JOB(1, 4, 10, 10), JOB(2, 1, 5, 5),
			     JOB(3, 1, 20, 20) };
	const double want[] = { 0, 10, 2, 20 };
	expect_starts(jobs, 4, 4, want);
}
END_TEST

START_TEST(backfill_on_extra_nodes)
{
	/*
	 * 4 nodes.  J0 (2 nodes, 0-10).  J1 (3 nodes) waits: shadow 10,
	 * 4 - 3 = 1 extra node.  J2 (1 node, req 100) at 2 runs past the
	 * shadow but fits the extra node: starts at 2 and uses it up.  J3
	 * (1 node, req 100) at 3: one free node, but it would delay J1:
	 * waits.  J1 starts at 10 (3 nodes, until 20); J3 at 20.
	 */
	sim_job_t jobs[] = { JOB(0, 2, 10, 10), JOB(1, 3, 10, 10), JOB(2, 1, 100, 100),
			     JOB(3, 1, 100, 100) };
	const double want[] = { 0, 10, 2, 20 };
	expect_starts(jobs, 4, 4, want);
}
END_TEST

START_TEST(reservation_by_requested_time)
{
	/*
	 * 3 nodes.  J0 (2 nodes, run 50, req 100).  J1 (3 nodes) waits:
	 * shadow 100 by J0's requested time, no extra.  J2 (1 node, run 60,
	 * req 90) at 2: 2 + 90 <= 100, backfilled.  J0 ends early at 50:
	 * 2 free, J1 still waits (new shadow 92 = J2's requested end).  J3
	 * (1 node, req 200) cannot delay J1: waits.  J2 ends at 62: J1
	 * starts (until 72), then J3 at 72.
	 */
	sim_job_t jobs[] = { JOB(0, 2, 50, 100), JOB(1, 3, 10, 10), JOB(2, 1, 60, 90),
			     JOB(3, 1, 5, 200) };
	const double want[] = { 0, 62, 2, 72 };
	expect_starts(jobs, 4, 3, want);
}
END_TEST

START_TEST(no_requested_time)
{
	/*
	 * The run time is the estimate: J0 (3 of 4 nodes, 0-10), J1 (4) at 1
	 * waits for 10, J2 (1 node, run 8) at 2 ends by 10 <= 10: backfilled
	 * at 2; J3 (1 node, run 9) at 3: no free node.  At 10 J0 and J2 end:
	 * J1 10-30 first (FCFS), J3 at 30.
	 */
	sim_job_t jobs[] = { JOB(0, 3, 10, -1), JOB(1, 4, 20, -1), JOB(2, 1, 8, -1),
			     JOB(3, 1, 9, -1) };
	const double want[] = { 0, 10, 2, 30 };
	expect_starts(jobs, 4, 4, want);
}
END_TEST

START_TEST(equal_times)
{
	/*
	 * 2 nodes, everything at time 0 or at the same end times: J0 and J1
	 * (1 node each, 0-10), J2 (2 nodes) at 10 once both have left, J3 (1
	 * node, req 5) submitted at 0 would end by 5 but no node is free
	 * before 10, and at 10 J2 comes first (FCFS): J3 at 20.
	 */
	sim_job_t jobs[] = { JOB(0, 1, 10, 10), JOB(0, 1, 10, 10), JOB(0, 2, 10, 10),
			     JOB(0, 1, 5, 5) };
	const double want[] = { 0, 0, 10, 20 };
	expect_starts(jobs, 4, 2, want);
}
END_TEST

START_TEST(start_order_and_queue)
{
	/* A longer stream: never more nodes than the machine, FCFS order of
	 * the head, and every job started once. */
	sim_job_t jobs[12];
	double start[12], end[12];
	char err[TOPOMATCH_ERRLEN];
	for (int j = 0; j < 12; j++)
		jobs[j] = (sim_job_t)JOB(j, 1 + j % 4, 10 + 7 * (j % 3), 30);
	fake_t f = { .job = jobs, .fail_at = -1 };
	sim_sched_ops_t ops = { fake_start, fake_finish, &f, NULL, 0, 0 };
	ck_assert(sim_sched_run(jobs, 12, 4, &ops, start, end, err) == TOPOMATCH_OK);
	ck_assert_int_eq(f.starts, 12);
	for (int j = 0; j < 12; j++) {
		int64_t busy = 0;
		for (int k = 0; k < 12; k++)
			if (start[k] <= start[j] && start[j] < end[k])
				busy += jobs[k].nodes;
		ck_assert_msg(busy <= 4, "%lld nodes busy at %g", (long long)busy, start[j]);
		ck_assert(start[j] >= jobs[j].submit);
	}
}
END_TEST

START_TEST(failing_start)
{
	sim_job_t jobs[] = { JOB(0, 1, 10, 10), JOB(1, 1, 10, 10) };
	double start[2], end[2];
	char err[TOPOMATCH_ERRLEN];
	fake_t f = { .job = jobs, .fail_at = 1 };
	sim_sched_ops_t ops = { fake_start, fake_finish, &f, NULL, 0, 0 };
	ck_assert_int_eq(sim_sched_run(jobs, 2, 2, &ops, start, end, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "start 1 refused");
}
END_TEST

/* --comm-wait: job `picky` refuses to start (SIM_NOT_NOW) while job 0
 * runs, for `wait` s from its submission; its tries counted. */
typedef struct picky {
	fake_t f;
	int64_t picky, tries;
	double wait;
	bool j0_running;
} picky_t;

static int picky_start(void *ctx, int64_t j, double now, double *run, char *err)
{
	picky_t *p = ctx;
	double until = p->f.job[j].submit + p->wait;
	p->tries += j == p->picky;
	if (j == p->picky && p->j0_running && now < until) {
		*run = until;
		return SIM_NOT_NOW;
	}
	p->j0_running |= j == 0;
	return fake_start(&p->f, j, now, run, err);
}

static void picky_finish(void *ctx, int64_t j)
{
	picky_t *p = ctx;
	p->j0_running &= j != 0;
	fake_finish(&p->f, j);
}

static void expect_picky(sim_job_t *jobs, int64_t n, double wait, const double *want,
			 int64_t tries)
{
	double start[16], end[16];
	char err[TOPOMATCH_ERRLEN] = "";
	picky_t p = { .f = { .job = jobs, .fail_at = -1 }, .picky = 1, .wait = wait };
	sim_sched_ops_t ops = { picky_start, picky_finish, &p, NULL, 0, 0 };
	ck_assert_msg(sim_sched_run(jobs, n, 4, &ops, start, end, err) == TOPOMATCH_OK, "%s", err);
	for (int64_t j = 0; j < n; j++)
		ck_assert_msg(start[j] == want[j], "job %lld starts at %g, not %g", (long long)j,
			      start[j], want[j]);
	ck_assert_int_eq(p.tries, tries);
}

START_TEST(comm_wait_passed_over)
{
	/*
	 * 4 nodes.  J0 (2 nodes, 0-10).  J1 (2 nodes) at 1 is put off: no
	 * reservation, so J2 (2 nodes, 20 s) starts at 2 on the nodes J1
	 * would have had, without trying J1 again (no job ended).  J0's end
	 * at 10 frees 2 nodes: J1 tried again, starts.
	 */
	sim_job_t jobs[] = { JOB(0, 2, 10, 10), JOB(1, 2, 5, 5), JOB(2, 2, 20, 20) };
	jobs[1].submit = 1;
	jobs[2].submit = 2;
	const double want[] = { 0, 10, 2 };
	expect_picky(jobs, 3, 100, want, 2);
}
END_TEST

START_TEST(comm_wait_time_up)
{
	/* J0 (2 nodes, 0-1000); J1 at 1 put off for 50 s: nothing else
	 * happens, it starts at 51 when its time is up (a wake-up event). */
	sim_job_t jobs[] = { JOB(0, 2, 1000, 1000), JOB(1, 2, 5, 5) };
	jobs[1].submit = 1;
	const double want[] = { 0, 51 };
	expect_picky(jobs, 2, 50, want, 2);
}
END_TEST

/*
 * 10 nodes.  J0 (5 nodes, 0-100) and J1 (3 nodes, 0-50) run.  J2 (10
 * nodes, 10 s) at 1 waits for 100.  J3 (5 nodes, 40 s) at 2 and J4 (2
 * nodes, 60 s) at 3.
 * EASY protects J2 only: J4 fits the 2 free nodes and ends at 63 <= 100,
 * so it starts at 3; at 50 J3 finds 3 free nodes, at 63 five, but it would
 * end at 103 > 100 with no extra node: it waits for J2 (100-110), 110.
 * Slurm's backfill plans every job: J2 at 100 (100-110), J3 at 50 (50-90:
 * 5 nodes free once J1 ends), and J4 does not fit beside J3 before 90
 * nor for 60 s before J2: reserved at 110.  At 50 J3 starts as planned;
 * J4 at 110.
 */
static sim_job_t protect_jobs[] = { JOB(0, 5, 100, 100), JOB(0, 3, 50, 50), JOB(1, 10, 10, 10),
				    JOB(2, 5, 40, 40), JOB(3, 2, 60, 60) };

START_TEST(slurm_backfill_protects_planned_jobs)
{
	const double easy[] = { 0, 0, 100, 110, 3 }, slurm[] = { 0, 0, 100, 50, 110 };
	expect_starts(protect_jobs, 5, 10, easy);
	expect_starts_bf(protect_jobs, 5, 10, SIM_BF_MAX_JOB_TEST, 86400, slurm);
	/* 2 jobs planned (J2, J3): J4 is never tried by backfill, the plan
	 * is the same */
	expect_starts_bf(protect_jobs, 5, 10, 2, 86400, slurm);
}
END_TEST

START_TEST(slurm_backfill_depth)
{
	/* One job planned (J2): J3 and J4 wait for the queue to reach them
	 * after J2 ends, at 110, both then. */
	const double want[] = { 0, 0, 100, 110, 110 };
	expect_starts_bf(protect_jobs, 5, 10, 1, 86400, want);
}
END_TEST

START_TEST(slurm_backfill_window)
{
	/*
	 * Nothing reserved more than 40 s ahead: at 3, J2 (100) and J3 (50)
	 * are too far to be planned, so J4 starts on the 2 free nodes (3-63),
	 * as with EASY.  At 63 J2 is 37 s ahead and reserved (100-110); J3
	 * would overlap it, and its next chance, 110, is 47 s ahead: not
	 * planned.  J2 at 100, J3 at 110.
	 */
	const double want[] = { 0, 0, 100, 110, 3 };
	expect_starts_bf(protect_jobs, 5, 10, SIM_BF_MAX_JOB_TEST, 40, want);
}
END_TEST

START_TEST(slurm_backfill_agrees_with_easy)
{
	/* backfill_before_shadow's stream: J3 (1 node, 20 s) is planned at 20,
	 * after J1, as EASY has it; J2 starts at 2 either way. */
	sim_job_t jobs[] = { JOB(0, 3, 10, 10), JOB(1, 4, 10, 10), JOB(2, 1, 5, 5),
			     JOB(3, 1, 20, 20) };
	const double want[] = { 0, 10, 2, 20 };
	expect_starts_bf(jobs, 4, 4, SIM_BF_MAX_JOB_TEST, 86400, want);
}
END_TEST

START_TEST(slurm_backfill_past_estimate)
{
	/*
	 * 4 nodes.  J0 (3 nodes, no requested time, run 10) runs 20.  J1 (2
	 * nodes) at 12, past J0's estimate: 1 node free, J0 expected to end
	 * at any moment, so J1 is planned for then and starts when J0 ends,
	 * at 20, as with EASY; not at 12 on nodes J0 still holds.
	 */
	sim_job_t jobs[] = { JOB(0, 3, 10, 0), JOB(12, 2, 5, 5) };
	double start[2], end[2];
	char err[TOPOMATCH_ERRLEN] = "";
	for (int64_t depth = 0; depth <= 1; depth++) {
		fake_t f = { .job = jobs, .fail_at = -1, .slow = 2 };
		sim_sched_ops_t ops = { fake_start, fake_finish, &f, NULL, depth, 86400 };
		ck_assert_msg(sim_sched_run(jobs, 2, 4, &ops, start, end, err) == TOPOMATCH_OK, "%s",
			      err);
		ck_assert_msg(start[0] == 0 && end[0] == 20 && start[1] == 20,
			      "depth %lld: J0 %g-%g, J1 at %g", (long long)depth, start[0], end[0],
			      start[1]);
	}
}
END_TEST

START_TEST(refused_streams)
{
	double start[2], end[2];
	char err[TOPOMATCH_ERRLEN];
	fake_t f = { .fail_at = -1 };
	sim_sched_ops_t ops = { fake_start, fake_finish, &f, NULL, 0, 0 };
	sim_job_t big[] = { JOB(0, 5, 10, 10) };
	big[0].id = 42;
	f.job = big;
	ck_assert_int_eq(sim_sched_run(big, 1, 4, &ops, start, end, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "job 42: 5 nodes of 4");
	sim_job_t unsorted[] = { JOB(5, 1, 10, 10), JOB(1, 1, 10, 10) };
	f.job = unsorted;
	ck_assert_int_eq(sim_sched_run(unsorted, 2, 4, &ops, start, end, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "not schedulable in order");
	ck_assert_int_eq(f.starts, 0);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("topomatch-sim-sched");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, fcfs);
	tcase_add_test(tc, backfill_before_shadow);
	tcase_add_test(tc, backfill_on_extra_nodes);
	tcase_add_test(tc, reservation_by_requested_time);
	tcase_add_test(tc, no_requested_time);
	tcase_add_test(tc, equal_times);
	tcase_add_test(tc, start_order_and_queue);
	tcase_add_test(tc, failing_start);
	tcase_add_test(tc, refused_streams);
	tcase_add_test(tc, comm_wait_passed_over);
	tcase_add_test(tc, comm_wait_time_up);
	tcase_add_test(tc, slurm_backfill_protects_planned_jobs);
	tcase_add_test(tc, slurm_backfill_depth);
	tcase_add_test(tc, slurm_backfill_window);
	tcase_add_test(tc, slurm_backfill_agrees_with_easy);
	tcase_add_test(tc, slurm_backfill_past_estimate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(sched_suite());
}

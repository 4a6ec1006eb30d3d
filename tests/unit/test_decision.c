/*
 * test_decision.c - select/topomatch's decision cache and per-cycle
 * budget (plugin/select/tm_decision.c), which decide whether slurmctld
 * maps a job again or reuses what it decided, and when a cycle has spent
 * its mapping time; topomatch.conf's MaxTasks, the largest pattern it
 * maps (plugin/common/tm_plugin_conf.c); the repair of a job's
 * spank_job_env that keeps slurmctld 22.05 alive (tm_spank_env.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "../../plugin/common/tm_plugin_conf.h"
#include "../../plugin/select/tm_decision.h"
#include "../../plugin/select/tm_spank_env.h"

#include <unistd.h>

START_TEST(hash_separates_inputs)
{
	int64_t a[] = { 0, 1, 2, 3 }, b[] = { 0, 1, 2, 4 };
	uint64_t ha = tm_hash(TM_HASH_INIT, a, sizeof(a));

	ck_assert_uint_eq(ha, tm_hash(TM_HASH_INIT, a, sizeof(a)));
	ck_assert_uint_ne(ha, tm_hash(TM_HASH_INIT, b, sizeof(b)));
	ck_assert_uint_ne(ha, tm_hash(TM_HASH_INIT, a, sizeof(a) - sizeof(a[0])));
	ck_assert_uint_eq(tm_hash(TM_HASH_INIT, a, 0), TM_HASH_INIT);
	/* the FNV-1a 64 test vector for "a" */
	ck_assert_uint_eq(tm_hash(TM_HASH_INIT, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
}
END_TEST

START_TEST(store_and_find)
{
	tm_decision_cache_t c;
	int64_t nodes[] = { 4, 5, 7 }, tasks[] = { 16, 2, 14 };
	const tm_decision_t *d;
	char note[TM_DECISION_NOTE + 10];

	ck_assert_int_eq(tm_decision_cache_init(&c, 8), 0);
	ck_assert_ptr_null(tm_decision_find(&c, 12, 99));
	ck_assert_int_eq(tm_decision_store(&c, 12, 99, TM_DECISION_NODES, nodes, tasks, 3, NULL,
					   "auto, 120 hop-bytes"), 0);
	nodes[0] = tasks[2] = -1; /* the cache holds its own copy */
	d = tm_decision_find(&c, 12, 99);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->kind, TM_DECISION_NODES);
	ck_assert_int_eq(d->nnodes, 3);
	ck_assert_int_eq(d->nodes[0], 4);
	ck_assert_int_eq(d->nodes[2], 7);
	ck_assert_int_eq(d->tasks[0], 16);
	ck_assert_int_eq(d->tasks[2], 14);
	ck_assert_str_eq(d->note, "auto, 120 hop-bytes");
	/* no tasks given; a note too long is cut */
	memset(note, 'x', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	ck_assert_int_eq(tm_decision_store(&c, 14, 99, TM_DECISION_NODES, nodes, NULL, 3, NULL, note),
			 0);
	d = tm_decision_find(&c, 14, 99);
	ck_assert_ptr_null(d->tasks);
	ck_assert_uint_eq(strlen(d->note), TM_DECISION_NOTE - 1);
	/* another job with the same key, the same job with another key */
	ck_assert_ptr_null(tm_decision_find(&c, 13, 99));
	ck_assert_ptr_null(tm_decision_find(&c, 12, 98));
	/* a new decision for the same job and key replaces the old one */
	ck_assert_int_eq(tm_decision_store(&c, 12, 99, TM_DECISION_KEEP, NULL, NULL, 0, NULL, NULL), 0);
	d = tm_decision_find(&c, 12, 99);
	ck_assert_int_eq(d->kind, TM_DECISION_KEEP);
	ck_assert_int_eq(d->nnodes, 0);
	ck_assert_ptr_null(d->tasks);
	ck_assert_str_eq(d->note, "");
	ck_assert_uint_eq(c.used, 2);
	tm_decision_cache_clear(&c);
	ck_assert_ptr_null(tm_decision_find(&c, 12, 99));
	tm_decision_cache_fini(&c);
}
END_TEST

/* SystemComment: the plugin's one line, last; Slurm's lines kept in order. */
START_TEST(comment_merge)
{
	static const struct {
		const char *old, *msg, *want;
	} cases[] = {
		{ NULL, "auto mapped 4 tasks", "topomatch: auto mapped 4 tasks" },
		{ "", "x", "topomatch: x" },
		{ "11/26/26 10:00:00 burst_buffer/lua: setup: failed", "y",
		  "11/26/26 10:00:00 burst_buffer/lua: setup: failed\ntopomatch: y" },
		/* the earlier decision is replaced wherever it stands, once */
		{ "a\ntopomatch: old\nb\ntopomatch: older", "new", "a\nb\ntopomatch: new" },
		/* a line that only mentions the plugin is Slurm's */
		{ "note on topomatch: z", "w", "note on topomatch: z\ntopomatch: w" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *c = tm_comment_merge(cases[k].old, cases[k].msg);
		ck_assert_str_eq(c, cases[k].want);
		free(c);
	}
}
END_TEST

START_TEST(evicts_least_recently_used)
{
	tm_decision_cache_t c;
	int64_t n = 1;

	ck_assert_int_eq(tm_decision_cache_init(&c, 3), 0);
	for (uint32_t job = 1; job <= 3; job++)
		ck_assert_int_eq(tm_decision_store(&c, job, 7, TM_DECISION_NODES, &n, NULL, 1, NULL, NULL), 0);
	ck_assert_ptr_nonnull(tm_decision_find(&c, 1, 7)); /* 2 is now the oldest */
	ck_assert_int_eq(tm_decision_store(&c, 4, 7, TM_DECISION_NODES, &n, NULL, 1, NULL, NULL), 0);
	ck_assert_uint_eq(c.used, 3);
	ck_assert_ptr_null(tm_decision_find(&c, 2, 7));
	ck_assert_ptr_nonnull(tm_decision_find(&c, 1, 7));
	ck_assert_ptr_nonnull(tm_decision_find(&c, 3, 7));
	ck_assert_ptr_nonnull(tm_decision_find(&c, 4, 7));
	tm_decision_cache_fini(&c);
}
END_TEST

START_TEST(store_rejects_bad_lists)
{
	tm_decision_cache_t c;

	ck_assert_int_eq(tm_decision_cache_init(&c, 2), 0);
	ck_assert_int_eq(tm_decision_store(&c, 1, 1, TM_DECISION_NODES, NULL, NULL, 2, NULL, NULL), -1);
	ck_assert_int_eq(tm_decision_store(&c, 1, 1, TM_DECISION_NODES, NULL, NULL, -1, NULL, NULL), -1);
	ck_assert_uint_eq(c.used, 0);
	tm_decision_cache_fini(&c);
	/* a finished cache stores and finds nothing, and does not crash */
	ck_assert_int_eq(tm_decision_store(&c, 1, 1, TM_DECISION_KEEP, NULL, NULL, 0, NULL, NULL), -1);
	ck_assert_ptr_null(tm_decision_find(&c, 1, 1));
}
END_TEST

/* AdminComment's copy of the line: nothing slurmdbd 22.05 would put
 * unescaped into its SQL (a quote there fails the job's record) */
START_TEST(comment_sql_safe)
{
	char s[] = "the pattern's 9 KiB; \"x\" \\ tab\there\n";

	tm_comment_sql_safe(s);
	ck_assert_str_eq(s, "the patterns 9 KiB; x  tabhere");
	char e[] = "";
	tm_comment_sql_safe(e);
	ck_assert_str_eq(e, "");
}
END_TEST

START_TEST(cycle_budget_per_counter)
{
	tm_cycle_t w = { 0 };

	ck_assert_double_eq(tm_cycle_left(&w, 5, 100.0, 50.0), 50.0);
	tm_cycle_charge(&w, 7, 30.0);
	ck_assert_double_eq(tm_cycle_left(&w, 5, 110.0, 50.0), 20.0);
	tm_cycle_charge(&w, 7, 25.0);
	ck_assert(tm_cycle_left(&w, 5, 120.0, 50.0) < 0); /* used up */
	tm_cycle_charge(&w, 7, -3.0);                      /* never gives time back */
	ck_assert(tm_cycle_left(&w, 5, 121.0, 50.0) < 0);
	/* the next cycle (slurmctld's counter moved) starts afresh */
	ck_assert_double_eq(tm_cycle_left(&w, 6, 125.0, 50.0), 50.0);
}
END_TEST

START_TEST(cycle_window_ages)
{
	tm_cycle_t w = { 0 };

	tm_cycle_left(&w, 1, 0.0, 10.0);
	tm_cycle_charge(&w, 7, 10.0);
	ck_assert(tm_cycle_left(&w, 1, TM_CYCLE_MAX_AGE_MS, 10.0) <= 0);
	/* decisions outside cycles: a window lasts at most TM_CYCLE_MAX_AGE_MS */
	ck_assert_double_eq(tm_cycle_left(&w, 1, TM_CYCLE_MAX_AGE_MS + 1, 10.0), 10.0);
	/* a clock that went backwards opens a new window too */
	tm_cycle_charge(&w, 7, 10.0);
	ck_assert_double_eq(tm_cycle_left(&w, 1, 5.0, 10.0), 10.0);
}
END_TEST

/*
 * Fair shares of a cycle's budget (500 ms, decisions of 50 ms at least):
 * alone, user 1 may use it all; once user 2 has a decision, each has half,
 * so user 1, who spent 300 ms, has nothing left while user 2 has 250; in
 * the next cycle the two users of the previous one still halve it from the
 * start; more users than counted one by one share the last slot; a share
 * never falls below one decision's budget.
 */
START_TEST(cycle_fair_share_per_user)
{
	tm_cycle_t w = { 0 };

	tm_cycle_left(&w, 1, 0.0, 500.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 1, 500.0, 50.0, 0), 500.0);
	tm_cycle_charge(&w, 1, 300.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 1, 500.0, 50.0, 0), 200.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 2, 500.0, 50.0, 0), 250.0);
	tm_cycle_charge(&w, 2, 20.0);
	ck_assert(tm_cycle_user_left(&w, 1, 500.0, 50.0, 0) < 0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 2, 500.0, 50.0, 0), 230.0);
	ck_assert_double_eq(tm_cycle_left(&w, 1, 10.0, 500.0), 180.0);
	/* the next cycle remembers that two users had decisions */
	tm_cycle_left(&w, 2, 20.0, 500.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 1, 500.0, 50.0, 0), 250.0);
	/* 100 users: 5 ms each would not hold a decision, they get 50 */
	for (uint32_t u = 100; u < 200; u++)
		tm_cycle_charge(&w, u, 1.0);
	ck_assert_int_eq(w.nusers, TM_CYCLE_USERS);
	/* users 163-199 share the last slot: 37 ms spent there */
	ck_assert_double_eq(tm_cycle_user_left(&w, 180, 500.0, 50.0, 0), 50.0 - 37.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 100, 500.0, 50.0, 0), 49.0);
}
END_TEST

/*
 * With the users of pending pattern jobs known (4), the first user's jobs
 * get a quarter of the cycle from its first decision: user 1 spends its
 * 125 ms and has nothing left, while user 2, whose job comes last in
 * priority order, still finds its 125 ms in the same cycle.
 */
START_TEST(cycle_share_of_waiting_users)
{
	tm_cycle_t w = { 0 };

	tm_cycle_left(&w, 1, 0.0, 500.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 1, 500.0, 50.0, 4), 125.0);
	tm_cycle_charge(&w, 1, 125.0);
	ck_assert(tm_cycle_user_left(&w, 1, 500.0, 50.0, 4) <= 0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 2, 500.0, 50.0, 4), 125.0);
	/* fewer waiting users than had decisions: those count */
	tm_cycle_charge(&w, 2, 10.0);
	tm_cycle_charge(&w, 3, 10.0);
	ck_assert_double_eq(tm_cycle_user_left(&w, 3, 500.0, 50.0, 1), 500.0 / 3 - 10.0);
}
END_TEST

/* topomatch.conf holding text, read into c; the status, err filled. */
static int read_conf(const char *text, tm_plugin_conf_t *c, char *err, char *path)
{
	strcpy(path, "/tmp/tm_conf_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	int rc = tm_plugin_conf_read(path, c, err, TOPOMATCH_ERRLEN);
	unlink(path);
	return rc;
}

/* Each of the four lines bad[] is refused with "FILE:1: why". */
static void expect_refused(const char *const bad[4], const char *why)
{
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32], want[TOPOMATCH_ERRLEN + 32];

	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(read_conf(bad[k], &c, err, path), -1);
		snprintf(want, sizeof(want), "%s:1: %s", path, why);
		ck_assert_str_eq(err, want);
	}
}

/* MaxTasks: 4096 by default, at most 2^20 (the blob's limit), a clear
 * error past it (slurmctld then logs it and maps nothing). */
START_TEST(conf_max_tasks)
{
	static const char *const bad[] = { "MaxTasks=1048577\n", "MaxTasks=0\n",
					   "MaxTasks=4096.5\n", "MaxTasks=many\n" };
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32];

	ck_assert_int_eq(read_conf("ClusterYAML=/etc/slurm/c.yaml\n", &c, err, path), 0);
	ck_assert_int_eq(c.max_tasks, 4096);
	ck_assert_int_eq(read_conf("MaxTasks=1048576\n", &c, err, path), 0);
	ck_assert_int_eq(c.max_tasks, TOPOMATCH_BLOB_MAX_TASKS);
	expect_refused(bad, "MaxTasks: expected a whole number of tasks from 1 to 1048576");
}
END_TEST

/* PatternKiB: 48 by default (10,000 pending jobs at the cap within 512
 * MiB of slurmctld memory), 1 to 512 (the decoder's limit), whole KiB. */
START_TEST(conf_pattern_kib)
{
	static const char *const bad[] = { "PatternKiB=513\n", "PatternKiB=0\n",
					   "PatternKiB=47.5\n", "PatternKiB=big\n" };
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32];

	ck_assert_int_eq(read_conf("ClusterYAML=/etc/slurm/c.yaml\n", &c, err, path), 0);
	ck_assert_int_eq(c.pattern_kib, 48);
	ck_assert_int_eq(read_conf("patternkib = 512\n", &c, err, path), 0);
	ck_assert_int_eq(c.pattern_kib * 1024, (int)TOPOMATCH_BLOB_MAX_TOTAL);
	expect_refused(bad, "PatternKiB: expected a whole number of KiB from 1 to 512");
}
END_TEST

START_TEST(conf_node_weight_gain)
{
	static const char *const bad[] = { "NodeWeightGain=-1\n", "NodeWeightGain=100.5\n",
					   "NodeWeightGain=nan\n", "NodeWeightGain=10%\n" };
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32];

	ck_assert_int_eq(read_conf("ClusterYAML=/etc/slurm/c.yaml\n", &c, err, path), 0);
	ck_assert(c.node_weight_gain == 10);
	ck_assert_int_eq(read_conf("nodeweightgain = 0\n", &c, err, path), 0);
	ck_assert(c.node_weight_gain == 0);
	ck_assert_int_eq(read_conf("NodeWeightGain=2.5\n", &c, err, path), 0);
	ck_assert(c.node_weight_gain == 2.5);
	expect_refused(bad, "NodeWeightGain: expected a percentage from 0 to 100");
}
END_TEST

/* The contention settings: the simulator's measured defaults (weight 1,
 * share 0.2), 10^6 entries; each refused out of its range. */
START_TEST(conf_contention)
{
	static const char *const bad_w[] = { "ContentionWeight=-0.5\n", "ContentionWeight=inf\n",
					     "ContentionWeight=1000001\n", "ContentionWeight=x\n" };
	static const char *const bad_s[] = { "ContentionShare=0\n", "ContentionShare=1.01\n",
					     "ContentionShare=-1\n", "ContentionShare=\n" };
	static const char *const bad_e[] = { "ContentionEntries=0\n", "ContentionEntries=2.5\n",
					     "ContentionEntries=1073741825\n",
					     "ContentionEntries=lots\n" };
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32];

	ck_assert_int_eq(read_conf("ClusterYAML=/etc/slurm/c.yaml\n", &c, err, path), 0);
	ck_assert(c.contention_weight == 1 && c.contention_share == 0.2);
	ck_assert_int_eq(c.contention_entries, 1000000);
	ck_assert_int_eq(read_conf("contentionweight = 0\nContentionShare=1\n"
				   "ContentionEntries=1073741824\n", &c, err, path), 0);
	ck_assert(c.contention_weight == 0 && c.contention_share == 1);
	ck_assert_int_eq(c.contention_entries, INT64_C(1) << 30);
	ck_assert_int_eq(read_conf("ContentionWeight=2.5\n", &c, err, path), 0);
	ck_assert(c.contention_weight == 2.5);
	expect_refused(bad_w, "ContentionWeight: expected a number from 0 to 1000000");
	expect_refused(bad_s, "ContentionShare: expected a share above 0, at most 1");
	expect_refused(bad_e, "ContentionEntries: expected a whole number from 1 to 1073741824");
}
END_TEST

/* --comm-wait's bounds: 300 s at most and 1.2 x by default, as Slurm's
 * max_switch_wait; each refused out of its range. */
START_TEST(conf_comm_wait)
{
	static const char *const bad_m[] = { "CommWaitMax=-1\n", "CommWaitMax=1.5\n",
					     "CommWaitMax=31536001\n", "CommWaitMax=5m\n" };
	static const char *const bad_r[] = { "CommWaitRatio=0.99\n", "CommWaitRatio=1001\n",
					     "CommWaitRatio=nan\n", "CommWaitRatio=\n" };
	tm_plugin_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[32];

	ck_assert_int_eq(read_conf("ClusterYAML=/etc/slurm/c.yaml\n", &c, err, path), 0);
	ck_assert(c.comm_wait_max == 300 && c.comm_wait_ratio == 1.2);
	ck_assert_int_eq(read_conf("commwaitmax = 0\nCommWaitRatio=1\n", &c, err, path), 0);
	ck_assert(c.comm_wait_max == 0 && c.comm_wait_ratio == 1);
	ck_assert_int_eq(read_conf("CommWaitMax=31536000\nCommWaitRatio=2.5\n", &c, err, path), 0);
	ck_assert(c.comm_wait_max == 31536000 && c.comm_wait_ratio == 2.5);
	expect_refused(bad_m, "CommWaitMax: expected whole seconds from 0 to 31536000");
	expect_refused(bad_r, "CommWaitRatio: expected a ratio from 1 to 1000");
}
END_TEST

/* How long a job may still wait, and which placements it waits out. */
START_TEST(comm_wait_rules)
{
	/* asked 600 s, the admin allows 300: 300 from eligibility */
	ck_assert_int_eq(tm_comm_wait_left(600, 300, 1000, 1000), 300);
	ck_assert_int_eq(tm_comm_wait_left(600, 300, 1000, 1250), 50);
	ck_assert_int_eq(tm_comm_wait_left(600, 300, 1000, 1300), 0);
	ck_assert_int_eq(tm_comm_wait_left(60, 300, 1000, 1059), 1);
	ck_assert_int_eq(tm_comm_wait_left(60, 300, 1000, 1060), 0);
	/* none asked, none allowed, a clock set back */
	ck_assert_int_eq(tm_comm_wait_left(0, 300, 1000, 1000), 0);
	ck_assert_int_eq(tm_comm_wait_left(-5, 300, 1000, 1000), 0);
	ck_assert_int_eq(tm_comm_wait_left(60, 0, 1000, 1000), 0);
	ck_assert_int_eq(tm_comm_wait_left(60, 300, 1000, 900), 60);
	/* 1.2 x the empty cluster's 1000 hop-bytes: 1200 is accepted */
	ck_assert(!tm_comm_wait_worse(1200, 1000, 1.2));
	ck_assert(tm_comm_wait_worse(1201, 1000, 1.2));
	ck_assert(!tm_comm_wait_worse(5000, 0, 1.2));  /* no reference */
	ck_assert(!tm_comm_wait_worse(5000, -1, 1.2));
	ck_assert(!tm_comm_wait_worse(-1, 1000, 1.2)); /* not measured */
}
END_TEST

/* A decision's cost: -1 when stored, set afterwards, kept by find. */
START_TEST(decision_cost)
{
	tm_decision_cache_t c;
	int64_t nodes[] = { 3, 4 };

	ck_assert_int_eq(tm_decision_cache_init(&c, 4), 0);
	ck_assert_int_eq(tm_decision_store(&c, 7, 11, TM_DECISION_NODES, nodes, NULL, 2, NULL,
					   "n"), 0);
	ck_assert(tm_decision_find(&c, 7, 11)->cost == -1);
	tm_decision_set_cost(&c, 7, 11, 1234.5);
	tm_decision_set_cost(&c, 7, 12, 99); /* none there: nothing */
	ck_assert(tm_decision_find(&c, 7, 11)->cost == 1234.5);
	ck_assert_ptr_null(tm_decision_find(&c, 7, 12));
	/* stored again: unknown again */
	ck_assert_int_eq(tm_decision_store(&c, 7, 11, TM_DECISION_KEEP, NULL, NULL, 0, NULL,
					   NULL), 0);
	ck_assert(tm_decision_find(&c, 7, 11)->cost == -1);
	tm_decision_cache_fini(&c);
}
END_TEST

/* entries env_array_merge drops or merges are moved behind the kept ones */
START_TEST(spank_env_repair)
{
	char *long_name = malloc(TM_SPANK_ENV_NAME_MAX + 8), *long_value = malloc(300 * 1024);
	char *ok_name = malloc(TM_SPANK_ENV_NAME_MAX + 8), *ok_value = malloc(300 * 1024);
	memset(long_name, 'N', TM_SPANK_ENV_NAME_MAX + 1);
	strcpy(long_name + TM_SPANK_ENV_NAME_MAX + 1, "=v"); /* a name of 256 */
	memset(ok_name, 'M', TM_SPANK_ENV_NAME_MAX);
	strcpy(ok_name + TM_SPANK_ENV_NAME_MAX, "=v"); /* a name of 255 */
	memcpy(long_value, "BIG=", 4);
	memset(long_value + 4, 'x', TM_SPANK_ENV_VALUE_MAX + 1);
	long_value[4 + TM_SPANK_ENV_VALUE_MAX + 1] = 0;
	memcpy(ok_value, "FIT=", 4);
	memset(ok_value + 4, 'x', TM_SPANK_ENV_VALUE_MAX);
	ok_value[4 + TM_SPANK_ENV_VALUE_MAX] = 0;
	char *env[] = { "A=1", "noequals", "B=2", "A=3", NULL, long_name, ok_name,
			long_value, ok_value, "=empty", "A=4", "AB=5" };
	const char *kept[] = { "B=2", ok_name, ok_value, "=empty", "A=4", "AB=5" };
	int64_t n = sizeof(env) / sizeof(*env), k = tm_spank_env_repair(env, n, 100, 1 << 30);
	ck_assert_int_eq(k, 6);
	for (int64_t i = 0; i < k; i++)
		ck_assert_ptr_eq(env[i], kept[i]);
	/* the dropped ones are all there, behind, for the caller to free */
	int seen = 0;
	for (int64_t i = k; i < n; i++)
		seen += (env[i] == NULL) + (env[i] && !strcmp(env[i], "noequals")) +
			(env[i] == long_name) + (env[i] == long_value) +
			(env[i] && (!strcmp(env[i], "A=1") || !strcmp(env[i], "A=3")));
	ck_assert_int_eq(seen, 6);
	/* nothing to drop: unchanged */
	char *clean[] = { "X=1", "Y=2" };
	ck_assert_int_eq(tm_spank_env_repair(clean, 2, 100, 100), 2);
	ck_assert_str_eq(clean[0], "X=1");
	ck_assert_str_eq(clean[1], "Y=2");
	ck_assert_int_eq(tm_spank_env_repair(NULL, 0, 100, 100), 0);
	ck_assert_int_eq(tm_spank_env_repair(clean, 0, 100, 100), 0);
	/* the caps: the first entries that fit, in order */
	char *many[] = { "A=1", "B=22", "C=3", "D=4" };
	ck_assert_int_eq(tm_spank_env_repair(many, 4, 3, 100), 3);
	ck_assert_str_eq(many[2], "C=3");
	ck_assert_str_eq(many[3], "D=4");
	char *big[] = { "A=1", "B=22", "C=3" };
	ck_assert_int_eq(tm_spank_env_repair(big, 3, 100, 9), 2); /* 4 + 5 bytes */
	ck_assert_str_eq(big[1], "B=22");
	ck_assert_str_eq(big[2], "C=3");
	free(long_name);
	free(long_value);
	free(ok_name);
	free(ok_value);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decision");
	TCase *tc = tcase_create("decision");

	tcase_add_test(tc, hash_separates_inputs);
	tcase_add_test(tc, store_and_find);
	tcase_add_test(tc, comment_merge);
	tcase_add_test(tc, evicts_least_recently_used);
	tcase_add_test(tc, store_rejects_bad_lists);
	tcase_add_test(tc, cycle_budget_per_counter);
	tcase_add_test(tc, cycle_window_ages);
	tcase_add_test(tc, cycle_fair_share_per_user);
	tcase_add_test(tc, cycle_share_of_waiting_users);
	tcase_add_test(tc, comment_sql_safe);
	tcase_add_test(tc, conf_max_tasks);
	tcase_add_test(tc, conf_pattern_kib);
	tcase_add_test(tc, conf_node_weight_gain);
	tcase_add_test(tc, conf_contention);
	tcase_add_test(tc, spank_env_repair);
	tcase_add_test(tc, conf_comm_wait);
	tcase_add_test(tc, comm_wait_rules);
	tcase_add_test(tc, decision_cost);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}

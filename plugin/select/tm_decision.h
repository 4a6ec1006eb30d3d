/*
 * tm_decision.h - what select/topomatch remembers between calls of its
 * choose_nodes wrapper: the decisions already computed (a cache, so that
 * cons_tres' retries, the main scheduler and every backfill cycle do not
 * decode and map an unchanged job again) and the time spent in the
 * current scheduling cycle (the per-cycle budget of topomatch.conf).
 *
 * Free of Slurm calls so that it is unit-tested on its own
 * (tests/unit/test_decision.c).  Not thread-safe: the caller serialises
 * (slurmctld's job and node write locks are held around job tests, and
 * the plugin adds its own mutex).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_DECISION_H
#define TM_DECISION_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- keys */

/* FNV-1a 64 of n bytes, continuing from h (start with TM_HASH_INIT). */
#define TM_HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t tm_hash(uint64_t h, const void *data, size_t n);

/* ---------------------------------------------------------------- cache */

typedef enum {
	TM_DECISION_KEEP = 0,  /* cons_tres chooses among all the candidates */
	TM_DECISION_NODES = 1, /* cons_tres chooses within `nodes` */
} tm_decision_kind_t;

#define TM_DECISION_NOTE 224

/* The free resources a decision was made on: the candidate nodes and the
 * CPUs they could give the job. */
typedef struct tm_extent {
	int64_t nodes, cpus;
} tm_extent_t;

typedef struct tm_decision {
	uint32_t job_id;
	uint64_t key;         /* everything the decision depends on */
	tm_decision_kind_t kind;
	int64_t *nodes;       /* TM_DECISION_NODES: cluster node indices */
	int64_t *tasks;       /* and the tasks mapped onto each (or NULL) */
	int64_t nnodes;
	tm_extent_t extent;   /* what the node choice was made on */
	char note[TM_DECISION_NOTE]; /* what the job's SystemComment says of it */
	double cost;          /* TM_DECISION_NODES: the placement's hop-bytes;
			       * under TM_KEY_* marks, their value; -1 unknown */
	uint64_t last_use;    /* for least-recently-used eviction */
} tm_decision_t;

typedef struct tm_decision_cache {
	tm_decision_t *slot;
	size_t cap, used;
	uint64_t tick;
} tm_decision_cache_t;

/* An empty cache of at most cap decisions; -1 when out of memory. */
int tm_decision_cache_init(tm_decision_cache_t *c, size_t cap);
void tm_decision_cache_fini(tm_decision_cache_t *c);
/* Forget every decision (the cluster or the configuration changed). */
void tm_decision_cache_clear(tm_decision_cache_t *c);
/* The decision stored for (job_id, key), or NULL. */
const tm_decision_t *tm_decision_find(tm_decision_cache_t *c, uint32_t job_id, uint64_t key);
/*
 * Store a decision (nodes and tasks copied, tasks may be NULL; nnodes 0
 * for TM_DECISION_KEEP; extent and note may be NULL, the note cut to
 * TM_DECISION_NOTE - 1 bytes), replacing the one of the same (job_id, key)
 * or else the least recently used one when the cache is full.  -1 when
 * out of memory (nothing stored: a cache only saves time).
 */
int tm_decision_store(tm_decision_cache_t *c, uint32_t job_id, uint64_t key,
		      tm_decision_kind_t kind, const int64_t *nodes, const int64_t *tasks,
		      int64_t nnodes, const tm_extent_t *extent, const char *note);

/* Set the cost of the stored decision (job_id, key), when there is one. */
void tm_decision_set_cost(tm_decision_cache_t *c, uint32_t job_id, uint64_t key, double cost);
/* ------------------------------------------------------------ --comm-wait */
/*
 * The seconds a job may still wait for a better placement at `now`: what
 * it asked (sbatch --comm-wait, seconds; <= 0: none), at most max_s
 * (CommWaitMax), counted from `since` (when it became eligible); 0 once
 * the time is up.
 */
long tm_comm_wait_left(long asked_s, long max_s, long since, long now);
/*
 * Is a placement of hb hop-bytes worth waiting out: more than ratio
 * (CommWaitRatio) x ref, the job's hop-bytes on an empty cluster?  Never
 * with a reference unknown (<= 0) or a placement not measured (< 0).
 */
int tm_comm_wait_worse(double hb, double ref, double ratio);
/* ---------------------------------------------------------- SystemComment */

/*
 * A job's SystemComment with the plugin's line: `old` (may be NULL) without
 * its lines that start with "topomatch: " (Slurm's own lines, which burst
 * buffers append '\n'-separated, are kept in order), then
 * "topomatch: msg" as the last line.  malloc'd; NULL when out of memory.
 */
char *tm_comment_merge(const char *old, const char *msg);

/*
 * Drop from s, in place, what slurmdbd 22.05 would put unescaped into SQL
 * (it writes AdminComment into its job completion query as '%s'): quotes,
 * backslashes, control characters.  "cons_tres' choice" becomes
 * "cons_tres choice".
 */
void tm_comment_sql_safe(char *s);

/* ---------------------------------------------------------------- budget */

/*
 * The time spent mapping in one scheduling cycle.  A cycle is identified
 * by a counter that slurmctld increments at the end of each one (the main
 * scheduler's and backfill's cycle counters); decisions made outside
 * cycles (a job's submission) would otherwise accumulate until the next
 * one ends, so a window also closes after max_age_ms.
 */
#define TM_CYCLE_USERS 64 /* users counted one by one; the rest share a slot */

typedef struct tm_cycle {
	int open;
	uint32_t counter;
	double start_ms, used_ms;
	/* the users this window's decisions were for, and what each spent;
	 * prev_users: how many the previous window had */
	int nusers, prev_users;
	uint32_t uid[TM_CYCLE_USERS];
	double user_ms[TM_CYCLE_USERS];
	int next_pass_asked; /* a job of this window waits for the next pass */
} tm_cycle_t;

#define TM_CYCLE_MAX_AGE_MS 1000.0

/* Milliseconds left of budget_ms in the window of `counter` at now_ms
 * (a new window when the counter moved or the window has aged). */
double tm_cycle_left(tm_cycle_t *w, uint32_t counter, double now_ms, double budget_ms);
/*
 * Milliseconds left of user uid's share of the window's budget_ms: an
 * equal share for each user whose jobs had decisions, in this window or,
 * when it had more, the previous one, or for each of the `waiting` users
 * with pending pattern jobs when there are more (0: not known), so that no
 * user's jobs take a whole cycle while another user's wait; never less
 * than floor_ms (one decision's budget).  Call after tm_cycle_left.
 */
double tm_cycle_user_left(const tm_cycle_t *w, uint32_t uid, double budget_ms, double floor_ms,
			  int waiting);
/* Count ms spent in the current window for user uid. */
void tm_cycle_charge(tm_cycle_t *w, uint32_t uid, double ms);

#endif /* TM_DECISION_H */

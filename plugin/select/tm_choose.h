/*
 * tm_choose.h - select/topomatch's decision for one job test: the pattern
 * the job carries, mapped onto the free PUs of the candidate nodes within
 * what cons_tres says each node can give the job, compared with cons_tres'
 * own choice, remembered in a cache, within the job and cycle budgets.
 *
 * select_topomatch.c calls it from its choose_nodes wrapper inside
 * slurmctld; bench/plugin_scale.c calls the same functions with Slurm's
 * bitmaps, core arrays and avail_res_t built for generated clusters, so
 * that the benchmark times the plugin's own code.  Include Slurm's headers
 * (slurmctld.h, cons_common.h) first.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_CHOOSE_H
#define TM_CHOOSE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tm_decision.h"
#include "tm_plugin_conf.h"
#include "topomatch.h"
#include "topomatch_cluster.h"

/* cons_tres' choose_nodes (cons_common_callbacks.choose_nodes). */
typedef int (*tm_choose_nodes_fn)(job_record_t *job_ptr, bitstr_t *node_map,
				  bitstr_t **avail_core, uint32_t min_nodes,
				  uint32_t max_nodes, uint32_t req_nodes,
				  avail_res_t **avail_res_array, uint16_t cr_type,
				  bool prefer_alloc_nodes,
				  gres_mc_data_t *tres_mc_ptr);

/* Decisions remembered at most (least recently used ones go). */
#define TM_CACHE_DECISIONS 1024

/*
 * Who runs the job test, which says whose budget window it counts in
 * (tm_choose.c, tm_cycle_now): each loop that holds slurmctld's locks
 * around many job tests has its own.
 */
typedef enum {
	TM_CALLER_OTHER = 0,	/* RPC threads: submissions, srun and salloc,
				 * --test-only; windows of at most a second */
	TM_CALLER_MAIN,		/* the main scheduler's pass (sched_agent,
				 * RUN_NOW): a job it cannot map waits */
	TM_CALLER_BACKFILL,	/* backfill's starts (bckfl, RUN_NOW) */
	TM_CALLERS
} tm_caller_t;

/*
 * The link loads of the running pattern jobs (libtopomatch's
 * topomatch_link_load_*, tm_contention.c), which the node choice scores
 * candidate node sets against (topomatch_cluster_select_loaded, as the
 * simulator does).  A job joins the table when slurmctld starts it
 * (select_p_select_nodeinfo_set after the job test that allowed it),
 * leaves it at select_p_job_fini, and the table is built again from the
 * running jobs at each select_p_reconfigure (slurmctld's start, after
 * its state is restored, and scontrol reconfigure).
 */
typedef struct tm_loads {
	topomatch_link_load_t *ll; /* NULL: not kept (no cluster,
				    * ContentionWeight=0, no memory) */
	bool full_said;		   /* over ContentionEntries: said once */
	uint32_t starting;	   /* the job whose RUN_NOW test just passed */
	uint32_t stash_job;	   /* the job whose ranks' PUs stash_pu holds: */
	int64_t stash_n, *stash_pu; /* the last node choice's placement */
	unsigned long long added, removed, refused, blocked;
} tm_loads_t;

/*
 * Everything a decision reads besides the job test: the settings
 * (topomatch.conf) and the cluster, loaded once in slurmctld (nothing is
 * narrowed without them); the decisions already computed; the time spent
 * in the current window of each caller; counters for the log.  slurmctld holds its job and node write locks around job
 * tests; the mutex makes the chooser safe without relying on that.
 */
typedef struct tm_chooser {
	tm_plugin_conf_t conf;
	topomatch_cluster_t *cluster;
	tm_choose_nodes_fn cons_tres; /* for cons_tres' own choice; NULL: none */
	void (*next_pass)(bool full_queue); /* slurmctld's schedule(); NULL: none */
	pthread_mutex_t mutex;
	tm_decision_cache_t cache;
	tm_cycle_t cycles[TM_CALLERS];
	unsigned long long reused, computed, fallbacks, tests, deferred;
	time_t waiting_at; /* when the waiting users were counted */
	int waiting_users; /* select_topomatch.c, tm_waiting_users */
	double test_ms; /* the time of those job tests, in all */
	/* Slurm's node index <-> cluster node (tm_choose.c, tm_node_index) */
	int64_t *cl_of, *slurm_of;
	int index_count;
	void *index_table;  /* the node_record_table_ptr they were made for */
	void **index_node;  /* and the node records it held */
	tm_loads_t loads;   /* running pattern jobs' link loads */
	topomatch_memo_t *memo; /* partitions of earlier decisions (NULL: none) */
} tm_chooser_t;

/* Bytes of partitions kept for the next decisions (topomatch_memo_t:
 * decisions unchanged, repeated partitions not recomputed). */
#define TM_MEMO_BYTES ((size_t) 32 << 20)

/* One job test as cons_tres hands it to choose_nodes. */
typedef struct {
	tm_chooser_t *ch;
	job_record_t *job;
	bitstr_t *node_map;		/* the candidate nodes */
	bitstr_t **avail_core;		/* their free cores (may be NULL) */
	avail_res_t **avail_res;	/* what each can give the job */
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t cr_type;
	bool prefer_alloc_nodes;
	gres_mc_data_t *tres_mc;
	bool check_only;		/* only check the pattern, note why it is
					 * refused (at submission: TEST_ONLY) */
	tm_caller_t caller;		/* whose window the test counts in */
	bool may_wait;			/* a start now (RUN_NOW) that --comm-wait may put off */
	bool plan;			/* backfill's plan (WILL_RUN) of a job that waits
					 * (--comm-wait): judged as a start, not noted */
	int waiting_users;		/* users with pending pattern jobs (0: unknown) */
	double start_ms;		/* set by topomatch_narrow: the budget's start */
	size_t pattern_bytes;		/* set by topomatch_narrow: the pattern's size */
	tm_extent_t extent;		/* set by tm_decide: the candidates' size */
	int64_t group;			/* set by tm_compute: the pattern's tasks per
					 * vertex (a pattern in groups, format 3) */
} tm_test_t;

typedef enum {
	TOPOMATCH_KEEP = 0,	/* no subset: cons_tres chooses among all */
	TOPOMATCH_NARROWED = 1,	/* *narrowed is the subset to choose in */
	TOPOMATCH_DEFER = 2,	/* not now: the main pass's budget is used up,
				 * the job waits for the next pass */
	TOPOMATCH_WAIT = 3,	/* not now: the job waits for a better placement
				 * (sbatch --comm-wait, tm_comm_wait) */
} topomatch_narrow_t;

/* What topomatch_narrow() hands to cons_tres. */
typedef struct {
	bitstr_t *nodes;	/* Slurm node indices to choose within */
	uint16_t *cpus;		/* per Slurm node index: the CPUs of the tasks mapped there */
	char note[TM_DECISION_NOTE]; /* the decision, for SystemComment */
} tm_narrowed_t;

double tm_now_ms(void);

/* Read topomatch.conf (beside slurm.conf) and the cluster YAML it names,
 * into ch (logged; ch->cluster stays NULL on any problem). */
void tm_chooser_load(tm_chooser_t *ch);
/* How much the cache saved and how often cons_tres refused a narrowed
 * set, for the log. */
void tm_chooser_stats(tm_chooser_t *ch, const char *when);
/* Forget the cluster, its node index and every decision (reconfigure,
 * shutdown); the settings stay until the next tm_chooser_load. */
void tm_chooser_unload(tm_chooser_t *ch);

/*
 * libtopomatch's node selection (topomatch_cluster_select: TOPOMATCHCONST
 * on trees and on the tree of a torus, mesh or dragonfly, Scotch on a
 * sub-architecture of other graphs) over the free cores of the candidate
 * nodes, within what cons_tres says each can give the job.  The job
 * budget counts from the call: the work before the mapping (the pattern's
 * key, the free PUs) is in it.
 * OUT nar - on TOPOMATCH_NARROWED, the nodes and CPUs per node (free them
 *	     with tm_narrowed_free)
 * Called with slurmctld's locks held: bounded time (the job and cycle
 * budgets), no I/O, no RPC.  Any failure keeps cons_tres' choice and says
 * why (tm_comment).
 */
topomatch_narrow_t topomatch_narrow(const tm_test_t *t, tm_narrowed_t *nar);
void tm_narrowed_free(tm_narrowed_t *nar);

/* Does the job carry a pattern (a TOPOMATCH_PATTERN_ entry among the
 * spank_job_env entries a pattern is looked for in)? */
bool tm_job_has_pattern(const job_record_t *job_ptr);

/* Is the job waiting for a better placement (--comm-wait: its last start
 * was put off, its time is not up)?  Then backfill plans it only on node
 * sets that suit it (tm_test_t.plan), never on cons_tres' choice: no
 * nodes are held back for a start it would refuse. */
bool tm_job_waiting(tm_chooser_t *ch, job_record_t *job_ptr);

/* The job's SystemComment gets the line "topomatch: msg", replacing its
 * earlier one (Slurm's own lines are kept). */
void tm_comment(job_record_t *job_ptr, const char *msg);
/* The same in its AdminComment (an admin's lines kept), which slurmdbd
 * stores: sacct's view of the decision. */
void tm_admin_comment(job_record_t *job_ptr, const char *msg);

/* Slurm's node index <-> cluster node (cl_of, slurm_of) made current;
 * -1 when out of memory. */
int tm_node_index(tm_chooser_t *ch);
/* The mapper the job asked for (TOPOMATCH_MAPPER), else topomatch.conf's. */
const char *tm_job_mapper(const tm_chooser_t *ch, job_record_t *job_ptr);
/* A job of ntasks tasks is mapped node by node, in blocks: more tasks
 * than MaxTasks or than JobBudgetMs maps one by one (tm_choose.c). */
bool tm_by_blocks(const tm_chooser_t *ch, int64_t ntasks);

/* tm_contention.c: the table of running pattern jobs' link loads. */
/* A new empty table for ch->cluster (none when ContentionWeight=0). */
void tm_loads_reset(tm_chooser_t *ch);
/* The table and the stash freed. */
void tm_loads_free(tm_chooser_t *ch);
/* The node choice's placement for job_id (n cluster PUs, srun's), used
 * when that job starts on those nodes. */
void tm_loads_stash(tm_chooser_t *ch, uint32_t job_id, const int64_t *pu, int64_t n);
/* A running job joins the table: its pattern (decoded again from its
 * spank_job_env), its ranks' PUs (the stash, else mapped onto its
 * allocated cores within budget_ms, else Slurm's block order).  Any
 * failure leaves it out, said at debug (info once when the table is
 * full).  Call with ch->mutex held. */
void tm_loads_job_start(tm_chooser_t *ch, job_record_t *job_ptr, double budget_ms);
/* The job leaves the table (nothing when it is not there). */
void tm_loads_job_end(tm_chooser_t *ch, job_record_t *job_ptr);
/* Is the table to be consulted (jobs in it, a weight above 0)? */
bool tm_loads_active(const tm_chooser_t *ch);

#endif /* TM_CHOOSE_H */

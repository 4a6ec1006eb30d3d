/*
 * sim.h - the scheduler simulator behind `topomatch sim` (topomatch-sim(1)):
 * a job stream (an SWF trace or a generated one) replayed with FCFS and
 * EASY backfill on a described cluster, once per node-selection policy,
 * each job's run time stretched by the hop-bytes of its placement and
 * (contention model) by the traffic of the running jobs on its links.
 *
 * Modules, one responsibility each:
 *   sim_err.c          error messages
 *   sim_swf.c          Standard Workload Format reader (plain or .gz)
 *   sim_stream.c       SWF records -> jobs, or a generated stream
 *   sim_pattern.c      the communication pattern of each job (kind mix)
 *   sim_machine.c      the cluster as policies see it: Slurm's switch
 *                      table, free nodes
 *   sim_policy.c       slurm-linear, topomatch, random
 *   sim_policy_tree.c  slurm-tree (cons_tres' _eval_nodes_topo)
 *   sim_model.c        hop-bytes, the run-time model, statistics
 *   sim_net.c          contention: running jobs' traffic on the links
 *   sim_sched.c        FCFS + EASY backfill, or Slurm's backfill
 *   sim_run.c          one policy over the stream
 *   sim_report.c       text summary, JSON, per-job CSV
 *   sim_plot.c         gnuplot data, script and images
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SIM_H
#define TM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topomatch.h"
#include "topomatch_cluster.h"

/* One-line messages into err (TOPOMATCH_ERRLEN bytes, may be NULL),
 * truncated to fit; the _prefix form puts its text in front of what err
 * holds.  Both return status. */
int sim_err(char *err, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sim_err_prefix(char *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ SWF */

/* The fields of one SWF record that the simulator uses (SWF field numbers
 * in brackets, Feitelson's definition of the format, version 2.2). */
typedef struct sim_swf_rec {
	int64_t line;        /* line in the file */
	int64_t id;          /* [1] job number */
	double submit;       /* [2] submit time, s */
	double wait;         /* [3] wait time, s */
	double run;          /* [4] run time, s */
	int64_t alloc_procs; /* [5] allocated processors */
	int64_t req_procs;   /* [8] requested processors */
	double req_time;     /* [9] requested time, s */
	int status;          /* [11] 1 completed, 0 failed, 5 cancelled, ... */
	int64_t user;        /* [12] */
	int64_t partition;   /* [16] */
} sim_swf_rec_t;

#define SIM_SWF_FIELDS 18

typedef struct sim_swf sim_swf_t;

/* Open a trace (gzip-compressed or not: zlib reads both) and read its
 * header, the "; Key: value" comment lines before the first record. */
int sim_swf_open(const char *path, sim_swf_t **out, char *err);
/* The next record: *got = 1, or 0 at the end.  A malformed line gives
 * TOPOMATCH_EPARSE and "FILE:LINE: what is wrong". */
int sim_swf_next(sim_swf_t *s, sim_swf_rec_t *r, int *got, char *err);
void sim_swf_close(sim_swf_t *s);
/* A header field's value ("MaxProcs", "Installation", ...; keys compare
 * without case), NULL when absent; repeated keys: the first. */
const char *sim_swf_header(const sim_swf_t *s, const char *key);
/* The same as an integer; -1 when absent or not a whole number. */
int64_t sim_swf_header_int(const sim_swf_t *s, const char *key);
int64_t sim_swf_header_count(const sim_swf_t *s);
/* One record line: 18 numbers, -1 where unknown.  name/line for messages. */
int sim_swf_parse(const char *text, const char *name, int64_t line, sim_swf_rec_t *r,
		  char *err);

/* ---------------------------------------------------------------- jobs */

typedef struct sim_job {
	int64_t id;      /* SWF job number, or 1, 2, ... when generated */
	int64_t line;    /* trace line, 0 when generated */
	double submit;   /* s after the first job's submission */
	double run;      /* the trace's run time, s */
	double req;      /* requested time, s (the kill limit); <= 0: none */
	int64_t procs;   /* processors = tasks */
	int64_t nodes;   /* whole nodes: ceil(procs / cores per node) */
	int kind;        /* entry of the pattern mix, -1: no pattern */
	double hb_ref;   /* hop-bytes on the compact reference placement */
	int warm;        /* 1: a warm-up job before the window (replayed, not
			  * counted in the statistics) */
} sim_job_t;

typedef struct sim_stream {
	sim_job_t *job;
	int64_t n, cap;
	int64_t records;   /* SWF records read */
	int64_t never_ran; /* skipped: no run time */
	int64_t no_procs;  /* skipped: ran, but no processor count (fields 5
			    * and 8 both missing) */
	int64_t too_big;   /* skipped: more nodes than the cluster has */
	int64_t max_nodes, max_procs; /* SWF header, -1 when absent */
	char source[512];  /* "FILE (Installation)" or "generated ..." */
	int64_t warm;      /* warm-up jobs (job[0 .. warm), before the window) */
	double win_first, win_last; /* the window's first and last submission,
				     * trace seconds (before --time-scale) */
	double time_scale; /* inter-arrival factor applied (1: none) */
	double offered;    /* the window's offered load: node-seconds of its
			    * jobs over the cluster's between its first and
			    * last (scaled) submission; 0 for one instant */
} sim_stream_t;

/*
 * Which part of a trace to replay.  The window is the jobs that ran and
 * fit, submitted in [from, until) (trace seconds, the SWF submit field),
 * after the first `skip` of them, at most max_jobs (0: all).  The jobs
 * submitted in the `warmup` seconds before the window's first one are
 * replayed first (the cluster is then as busy as the trace had it when
 * the window opens) and left out of the statistics.  time_scale (> 0)
 * multiplies every gap between submissions.
 */
typedef struct sim_window {
	double from, until;   /* until <= from: no end */
	bool has_from, has_until;
	int64_t skip, max_jobs;
	double warmup;        /* s; 0: no warm-up */
	double time_scale;    /* 1: as recorded */
} sim_window_t;

#define SIM_DEFAULT_WARMUP 86400.0
/* Slurm 22.05's defaults of bf_max_job_test and bf_window (minutes),
 * slurm.conf(5) */
#define SIM_BF_MAX_JOB_TEST 500
#define SIM_BF_WINDOW_MIN 1440

/* Jobs of an SWF trace: the first max_jobs (0: all) that ran and fit. */
int sim_stream_swf(const char *path, int64_t max_jobs, int64_t cores_per_node,
		   int64_t nnodes, sim_stream_t *s, char *err);
/* The same for a window (w NULL: the whole trace).  A window without a
 * job is an error that says what the trace holds. */
int sim_stream_swf_window(const char *path, const sim_window_t *w, int64_t cores_per_node,
			  int64_t nnodes, sim_stream_t *s, char *err);
/* Multiply the gaps between submissions by f (> 0); offered load again. */
void sim_stream_scale(sim_stream_t *s, double f, int64_t nnodes);
/* A generated stream of njobs jobs offering `load` (0..) of the cluster:
 * see sim_stream.c for the distributions. */
int sim_stream_generate(int64_t njobs, double load, int64_t cores_per_node, int64_t nnodes,
			uint64_t seed, sim_stream_t *s, char *err);
void sim_stream_free(sim_stream_t *s);

/* ------------------------------------------------------------ patterns */

enum sim_kind {
	SIM_STENCIL2D,
	SIM_STENCIL3D,
	SIM_ALLTOALL,
	SIM_TREE,
	SIM_RANDOM,
	SIM_NONE, /* no pattern: users who do not give --comm-pattern */
	SIM_FILE,
	SIM_NKINDS
};

/* Dense all-to-all up to this many tasks; beyond, Bruck's log2(n)
 * partners per task (sim_pattern.c says why). */
#define SIM_ALLTOALL_DENSE 256
/* Partners of each task in the random sparse kind. */
#define SIM_RANDOM_DEGREE 8

/* A file is rescaled to other job sizes when topomatch_stencil_detect
 * recognises it with at most this share of its weight off the stencil
 * (the default of `topomatch gen --from-profile`). */
#define SIM_STENCIL_TOLERANCE 0.05

typedef struct sim_mix_entry {
	int kind;
	double weight;
	char *path;                /* SIM_FILE */
	topomatch_affinity_t *file;
	int stencil;               /* SIM_FILE: 1 when a stencil */
	int rescale;               /* 1: rescaled to other sizes (scaled:, profiles:) */
	topomatch_stencil_shape_t shape; /* its shape then */
	char why[TOPOMATCH_ERRLEN]; /* why it is not a stencil */
	int shuffled;              /* ranks in a random order, per job */
	char name[64];             /* "stencil2d", "file:NAME", "shuffled:..." */
} sim_mix_entry_t;

typedef struct sim_mix {
	sim_mix_entry_t *e;
	int n;
} sim_mix_t;

#define SIM_DEFAULT_MIX "stencil2d,stencil3d,alltoall,tree,random"

/* "stencil2d=2,alltoall,file:app.mtx=0.5": kinds with weights (default
 * 1); "file:PATH" for the jobs of its size, "scaled:PATH" a stencil file
 * rescaled to every size, "profiles:DIR" every DIR/\*.sum.mat sharing the
 * weight (rescaled when stencils), "shuffled:KIND" any
 * of them with ranks in a random order.  Files are read here.  EINVAL with
 * a message for a bad list, the file's errors for a bad file. */
int sim_mix_parse(const char *spec, const topomatch_limits_t *lim, sim_mix_t *mix, char *err);
void sim_mix_free(sim_mix_t *mix);
/* The entry of job `id` with `ntasks` tasks, drawn from the seed: a file
 * only for jobs of its size; -1 when no entry fits or `none` is drawn. */
int sim_mix_draw(const sim_mix_t *mix, uint64_t seed, int64_t id, int64_t ntasks);
/* Job `id`'s pattern of entry e (same seed and id: same pattern). */
int sim_pattern_make(const sim_mix_t *mix, int e, int64_t ntasks, uint64_t seed, int64_t id,
		     topomatch_affinity_t **out, char *err);

/* ------------------------------------------------------------- machine */

/*
 * The cluster as the policies see it.  On a tree, the switch table as
 * Slurm's topology/tree builds it from topology.conf
 * (src/plugins/topology/tree/topology_tree.c): level 0 = leaf switches,
 * a parent's level one more than its children's; leaves listed first, in
 * node order, then each level up, the root last.
 */
typedef struct sim_switch {
	int level;       /* 0: leaf */
	int64_t parent;  /* -1 for the root */
	int64_t vertex;  /* its vertex at its depth of the cluster's tree */
} sim_switch_t;

typedef struct sim_machine {
	const topomatch_cluster_t *cl;
	int64_t nnodes;
	int64_t cpn;        /* cores per node, for SWF processors -> nodes */
	int levels;         /* switch levels; -1: not a tree */
	int64_t nsw;
	sim_switch_t *sw;
	int64_t *node_leaf; /* node -> its leaf switch (index into sw) */
	int64_t *node_sw;   /* node i's switch of level l: node_sw[i * levels + l] */
	int64_t *sw_nodes;  /* nodes of leaf s: sw_nodes[sw_first[s] .. sw_first[s+1]) */
	int64_t *sw_first;
	int64_t *compact;   /* nodes in network order (node position): the
			     * first k are the reference placement's */
	int64_t nlinks;     /* the router's directed links (sim_net_links) */
	unsigned char *link_intra; /* 1: a link inside a node */
} sim_machine_t;

/* cpn <= 0: the fewest cores any node has. */
int sim_machine_init(sim_machine_t *m, const topomatch_cluster_t *cl, int64_t cpn, char *err);
void sim_machine_free(sim_machine_t *m);
/* Hops between switches a and b in Slurm's switches_dist (one per link). */
int64_t sim_switch_dist(const sim_machine_t *m, int64_t a, int64_t b);
/* Leaf switches that nodes[0..n-1] hang from; -1 off trees. */
int64_t sim_switches_spanned(const sim_machine_t *m, const int64_t *nodes, int64_t n);

/* Free nodes during one run, with per-switch counts. */
typedef struct sim_free {
	unsigned char *free;
	int64_t nfree;
	int64_t *sw_free;
} sim_free_t;

int sim_free_init(sim_free_t *f, const sim_machine_t *m);
void sim_free_free(sim_free_t *f);
void sim_free_take(sim_free_t *f, const sim_machine_t *m, const int64_t *nodes, int64_t n);
void sim_free_give(sim_free_t *f, const sim_machine_t *m, const int64_t *nodes, int64_t n);
/* PUs of nodes[0..n-1], node by node (malloc'd). */
int sim_nodes_pus(const sim_machine_t *m, const int64_t *nodes, int64_t n, int64_t **pus,
		  int64_t *npus, char *err);

/* ------------------------------------------------------------ policies */

enum sim_policy {
	SIM_LINEAR,
	SIM_SLURM_TREE,
	SIM_TOPOMATCH,
	SIM_RANDOM_NODES,
	SIM_NPOLICIES
};

const char *sim_policy_name(int p);
/* "slurm-linear,topomatch" -> ids (no repeats); EINVAL naming the bad one. */
int sim_policy_parse(const char *list, int *ids, int *n, char *err);

/* What the topomatch policy passes to topomatch_cluster_select. */
typedef struct sim_tm_opts {
	const char *mapper;   /* NULL: auto, as topomatch.conf's default */
	uint64_t seed;
	double time_budget_s; /* <= 0: none (deterministic) */
	int64_t max_tasks;    /* topomatch.conf MaxTasks: larger patterns ignored */
	int64_t pattern_kib;  /* topomatch.conf PatternKiB (0: its default) */
	double contention_weight; /* topomatch_cluster_select_loaded's weight;
				   * 0: topomatch_cluster_select */
	double comm_wait;     /* --comm-wait: seconds a pattern job may wait for a
			       * better placement (0: none) */
	double comm_wait_ratio; /* topomatch.conf CommWaitRatio: worse than this x
				 * the empty cluster's hop-bytes, it waits */
} sim_tm_opts_t;

/* topomatch.conf's default MaxTasks (plugin/common/tm_plugin_conf.c). */
#define SIM_PLUGIN_MAX_TASKS 4096
/* and its default CommWaitRatio */
#define SIM_PLUGIN_COMM_WAIT_RATIO 1.2

/* Counters of the topomatch policy (what select/topomatch would log). */
typedef struct sim_tm_stats {
	int64_t narrowed;    /* the mapping chose exactly the job's nodes */
	int64_t blocked;     /* mapped node by node: more tasks than MaxTasks */
	int64_t grouped;     /* with the pattern in groups of tasks (sbatch could
			      * not store it one task a vertex) */
	int64_t overflow;    /* it spread over more: cons_tres chose among all free */
	int64_t underflow;   /* fewer: the same */
	int64_t cons_better; /* exactly k, but the pattern mapped on cons_tres'
			      * own nodes scored lower: those kept */
	int64_t fallback;    /* no mapping, cons_tres chose: the sum of */
	int64_t no_pattern;  /*   the job has none */
	int64_t over_kib;    /*   sbatch cannot store it within PatternKiB */
	int64_t over_max;    /*   more blocks than MaxTasks (or not room
			      *   for blocks): not mapped */
	int64_t over_budget; /*   the mapping ran past --time-budget */
	int64_t map_failed;  /*   the mapping failed */
	int64_t loaded;      /* the first choice met load */
	int64_t compared;    /* and other node sets were mapped */
	int64_t moved;       /* and one of them won */
	int64_t waited;      /* --comm-wait: jobs put off for a better placement */
	int64_t wait_expired; /* of which started when their time was up */
} sim_tm_stats_t;

/*
 * Choose k free nodes for a job of `a`'s tasks (a may be NULL: no
 * pattern) and place its tasks: nodes[] gets k nodes in increasing
 * order, pu[] (ntasks entries) each task's cluster PU.  The free set is
 * not changed.  rng: the random policy's state.
 */
typedef struct sim_pick {
	int policy;
	const sim_machine_t *m;
	const sim_free_t *f;
	const topomatch_affinity_t *a;
	int64_t ntasks, k;
	topomatch_rng_t *rng;
	const sim_tm_opts_t *tm;
	sim_tm_stats_t *stats;
	topomatch_link_load_t *ll; /* running pattern jobs' link loads (topomatch
				    * with a contention weight), or NULL */
	bool no_check;             /* topomatch: without the plugin's check of
				    * cons_tres' nodes, as --comm-wait's
				    * yardstick on an empty cluster */
	int *spare;                /* threads idle now, one of which the check
				    * may borrow (atomic; NULL: none) */
	topomatch_memo_t *memo;    /* the run's partitions, or NULL */
} sim_pick_t;

/* Bytes of partitions a topomatch run keeps to map its next jobs with
 * (topomatch_memo_t: results unchanged). */
#define SIM_MEMO_BYTES ((size_t)64 << 20)

/* Jobs of fewer nodes do all their work on the replay's thread: for
 * them a thread costs more than it saves (the Curie trace's first 10,000
 * jobs: the checks of jobs under 32 nodes took 1 s of 113). */
#define SIM_SPARE_MIN_NODES 32
/* One of the spare threads (*spare counts them; NULL: none) taken, or
 * false; and one given (back, or by a replay that has finished). */
bool sim_spare_take(int *spare);
void sim_spare_give(int *spare);

int sim_policy_select(const sim_pick_t *p, int64_t *nodes, int64_t *pu, char *err);
/* cons_tres' _eval_nodes_topo for k whole nodes among cand[] (NULL: the
 * free nodes): nodes[] gets them in increasing order.  EINVAL off trees. */
int sim_slurm_tree(const sim_machine_t *m, const sim_free_t *f, const unsigned char *cand,
		   int64_t k, int64_t *nodes, char *err);
/* Tasks in block order over the PUs of nodes[] (Slurm's block layout). */
int sim_place_block(const sim_machine_t *m, const int64_t *nodes, int64_t k, int64_t ntasks,
		    int64_t *pu, char *err);

/* --------------------------------------------------------------- model */

#define SIM_DEFAULT_COMM_SHARE 0.2
/* Bounded slowdown's threshold (Feitelson et al., JSSPP 1997): 10 s. */
#define SIM_BSLD_TAU 10.0

/* Hop-bytes of a placement (cluster PUs): sum over C(i,j) d(pu_i, pu_j). */
int sim_hop_bytes(const topomatch_cluster_t *cl, const topomatch_affinity_t *a,
		  const int64_t *pu, double *hb, char *err);
/* run x (1 - s + s x hb / hb_ref), 1 when hb_ref is 0; cut at req
 * (> 0) with *killed = 1. */
double sim_model_runtime(double run, double s, double hb, double hb_ref, double req,
			 int *killed);
double sim_bounded_slowdown(double wait, double run);
double sim_mean(const double *x, int64_t n);
/* Nearest-rank percentile p (0..100) of x[0..n-1] (copied, not sorted). */
double sim_percentile(const double *x, int64_t n, double p);

/* ---------------------------------------------------------- contention */

enum sim_model {
	SIM_MODEL_HOP_BYTES, /* run time from the job's own hop-bytes */
	SIM_MODEL_CONTENTION /* and from the load of the running jobs (sim_net.c) */
};

/* The links inside nodes (m->nlinks, m->link_intra): once per machine,
 * before runs with the contention model. */
int sim_net_links(sim_machine_t *m, char *err);

/* One run's link loads (not shared between threads). */
typedef struct sim_net sim_net_t;
int sim_net_create(const sim_machine_t *m, double share, int64_t njobs, sim_net_t **out,
		   char *err);
void sim_net_destroy(sim_net_t *n);
/* Job j (stream index) starts with pattern a on cluster PUs pu[] (its
 * reference hop-bytes hb_ref): its traffic joins the links; *hb gets its
 * hop-bytes (those of sim_hop_bytes, routed once for both). */
int sim_net_start(sim_net_t *n, int64_t j, const topomatch_affinity_t *a, const int64_t *pu,
		  double hb_ref, double *hb, char *err);
void sim_net_finish(sim_net_t *n, int64_t j);
/* HB_c: job j's hop-bytes, each message stretched by the most loaded link
 * of its route (sim_net.c gives the equations). */
double sim_net_hop_bytes(const sim_net_t *n, int64_t j);
/* Running jobs whose HB_c may have changed since the last call. */
const int64_t *sim_net_dirty(sim_net_t *n, int64_t *count);

/* ----------------------------------------------------------- scheduler */

/* start(): put job j on the machine at `now` and return its run time;
 * or SIM_NOT_NOW: the job waits for a better placement (--comm-wait)
 * until *run at the latest, and is tried again when a job has ended or
 * then; finish(): take it off.  Other non-zero from start() stops the run.
 * retime() (NULL: run times are fixed at the start) is called after the
 * starts and ends of each event time: it may move the end[] of running
 * jobs (to now or later) and lists them in changed[], *nchanged of them
 * (room for every job). */
#define SIM_NOT_NOW (-1)
typedef struct sim_sched_ops {
	int (*start)(void *ctx, int64_t j, double now, double *run, char *err);
	void (*finish)(void *ctx, int64_t j);
	void *ctx;
	int (*retime)(void *ctx, double now, double *end, int64_t *changed, int64_t *nchanged,
		      char *err);
	/* bf_depth > 0: Slurm's sched/backfill instead of EASY (sim_sched.c):
	 * the first bf_depth queued jobs planned at every pass
	 * (bf_max_job_test), none reserved further than bf_window s ahead */
	int64_t bf_depth;
	double bf_window;
} sim_sched_ops_t;

/*
 * FCFS with EASY backfill (Lifka 1995; Mu'alem and Feitelson, IEEE TPDS
 * 12(6), 2001), or with Slurm's backfill (ops->bf_depth), of
 * jobs[0..n-1] (in submit order) on nnodes nodes.  Reservations use the
 * requested time (the trace's run time when there is none).  start[j],
 * end[j] get the times.
 */
int sim_sched_run(const sim_job_t *jobs, int64_t n, int64_t nnodes, const sim_sched_ops_t *ops,
		  double *start, double *end, char *err);

/* ------------------------------------------------------- a policy's run */

typedef struct sim_config {
	const sim_machine_t *m;
	const sim_stream_t *s;
	const sim_mix_t *mix;
	uint64_t seed;
	double share;        /* communication share s of the model */
	int model;           /* enum sim_model */
	sim_tm_opts_t tm;
	const char *dump_dir; /* write each job's pattern there (NULL: no) */
	int64_t bf_depth;     /* 0: EASY; else sim_sched_ops_t's */
	double bf_window;     /* s */
	volatile int64_t *progress; /* reference pass: jobs done (atomic) */
	volatile int64_t *run_progress; /* per policy id (SIM_NPOLICIES
					 * entries, may be NULL): jobs its run
					 * started so far (atomic) */
	int *spare;          /* --threads not busy with a replay (atomic; may
			      * be NULL): the topomatch policy's check of
			      * cons_tres' nodes runs on one beside the node
			      * choice, which changes no result */
} sim_config_t;

typedef struct sim_result {
	int policy;
	double *start, *end, *run, *hb;
	double *hbc;        /* hop-bytes under contention, averaged over the
			     * job's progress (= hb with the hop-bytes model) */
	int64_t *switches;
	unsigned char *killed;
	int64_t *node_off;  /* job j's nodes: nodes[node_off[j] .. + job j's nodes) */
	int64_t *nodes;
	int64_t nodes_len, nodes_cap;
	sim_tm_stats_t tm;
	int64_t nkilled;
} sim_result_t;

/* The compact reference hop-bytes of jobs [from, to). */
int sim_reference(const sim_config_t *c, sim_job_t *jobs, int64_t from, int64_t to, char *err);
int sim_run(const sim_config_t *c, int policy, sim_result_t *r, char *err);
void sim_result_free(sim_result_t *r);

/* ------------------------------------------------------------- reports */

typedef struct sim_summary {
	double mean_hop_bytes, mean_hop_bytes_ratio, mean_wait, p95_wait;
	double mean_contention; /* mean HB_c / HB of the jobs with traffic */
	double mean_bsld, p95_bsld, utilization, makespan, mean_switches;
	double work_utilization; /* the trace's run times instead of the model's */
	int64_t killed;
} sim_summary_t;

void sim_summarize(const sim_config_t *c, const sim_result_t *r, sim_summary_t *out);
/* Mean hop-bytes and bounded slowdown of the counted jobs that drew mix
 * entry `kind` (c->mix->n: no pattern) under one policy; *n how many. */
void sim_kind_means(const sim_config_t *c, const sim_result_t *r, int kind, double *hb,
		    double *bsld, int64_t *n);
void sim_report_text(FILE *out, const sim_config_t *c, const sim_result_t *r,
		     const sim_summary_t *sum, int nres);
void sim_report_json(FILE *out, const sim_config_t *c, const sim_result_t *r,
		     const sim_summary_t *sum, int nres);
int sim_report_csv(const char *path, const sim_config_t *c, const sim_result_t *r, int nres,
		   char *err);
/* Node names of nodes[0..n-1] as a Slurm host list ("n[01-04],m7"). */
void sim_hostlist(const topomatch_cluster_t *cl, const int64_t *nodes, int64_t n, FILE *out);

/* Data files and a gnuplot script under `prefix`, then gnuplot if it is
 * on PATH (*drawn = 1).  Images: PREFIX-{hopbytes,wait,util}.{png,svg}. */
int sim_plot(const char *prefix, const sim_config_t *c, const sim_result_t *r, int nres,
	     int *drawn, char *err);

#endif /* TM_SIM_H */

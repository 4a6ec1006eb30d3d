/*
 * tm_plugin_conf.h - topomatch.conf, the plugins' settings, read from
 * Slurm's configuration directory (topomatch.conf(5)): Key=Value lines
 * like Slurm's own files, keys in any case, '#' comments.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_PLUGIN_CONF_H
#define TM_PLUGIN_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "topomatch.h"

typedef struct tm_plugin_conf {
	char cluster_yaml[4096]; /* ClusterYAML: the cluster description */
	double job_budget_ms;    /* JobBudgetMs: per decision (50) */
	double cycle_budget_ms;  /* CycleBudgetMs: per scheduling cycle (500) */
	int64_t max_tasks;       /* MaxTasks: larger patterns mapped node by node (4096) */
	char mapper[32];         /* Mapper: default mapper (auto) */
	int pattern_kib;         /* PatternKiB: cap of a job's pattern (48) */
	double node_weight_gain; /* NodeWeightGain: % of hop-bytes a heavier node must save (10) */
	int enabled;             /* Enabled: yes/no (yes): off switch for admins */
	double contention_weight;   /* ContentionWeight: W of hop-bytes + W x load met (1) */
	double contention_share;    /* ContentionShare: a running job's activity (0.2) */
	int64_t contention_entries; /* ContentionEntries: (job, link) entries at most (10^6) */
	long comm_wait_max;         /* CommWaitMax: seconds a job's --comm-wait gets at most (300) */
	double comm_wait_ratio;     /* CommWaitRatio: x the empty cluster's hop-bytes worth a wait (1.2) */
} tm_plugin_conf_t;

/* The defaults of every setting (topomatch.conf(5)). */
void tm_plugin_conf_defaults(tm_plugin_conf_t *c);

/* Defaults, then the file's settings.  A missing file is ENOENT-like:
 * returns 1 with err "PATH: no such file" and the defaults; a bad line
 * returns -1 with err "PATH:LINE: what is wrong".  0 on success. */
int tm_plugin_conf_read(const char *path, tm_plugin_conf_t *c, char *err, size_t errlen);

/*
 * The most tasks a decision maps one by one: MaxTasks, and no more than
 * 1,024 tasks per 50 ms of JobBudgetMs (bench/plugin_scale: a 4,096-task
 * stencil on 10,240 nodes took 72-79 ms to fall back at 50 ms; with 200
 * ms it maps in 100-160 ms on 32,768 nodes).  A job of more tasks is
 * mapped node by node, in at most that many blocks of a node's worth of
 * tasks (topomatch_cluster_select_blocks), by slurmctld and srun alike.
 */
int64_t tm_plugin_task_limit(const tm_plugin_conf_t *c);
/*
 * The most pairs (edges i < j) of a pattern slurmctld decodes: 65,536,
 * and as many per 50 ms of a larger JobBudgetMs; sbatch keeps the
 * pattern within it as within PatternKiB.  Format 2 of the pattern blob
 * repeats rows, so its bytes no longer bound its pairs: Bruck's
 * all-to-all on 65,536 tasks is 1.3 KiB for 1,015,808 pairs, which took
 * 160-240 ms to decode on one core of the bench machine (102,400 pairs:
 * 15 ms); format 1's 64 KiB (the bytes a decision maps per 50 ms) held no
 * more pairs than this, at a byte each at least.
 */
int64_t tm_plugin_pattern_edges(const tm_plugin_conf_t *c);
/* Largest pattern file sbatch and srun read (a dense 4096 x 4096 matrix
 * of short numbers is ~100 MB); beyond, the job needs a sparse format. */
#define TM_PLUGIN_PATTERN_MAX_BYTES (INT64_C(1) << 30)
/* sbatch --comm-pattern's sparse factor: everything the file says travels
 * to slurmctld, unless it does not fit the job record (the mappers apply
 * their own sparse factor). */
#define TM_PLUGIN_SPARSE_FACTOR 0.0
/* The largest group of consecutive tasks sbatch makes one vertex of when
 * a pattern does not fit one task a vertex (pattern blob format 3): a
 * group's tasks go on one node, in a slot of its CPUs, so groups stay
 * well within a node's cores. */
#define TM_PLUGIN_MAX_GROUP 64
/* The limits sbatch encodes a job's pattern within (PatternKiB, and the
 * pairs of tm_plugin_pattern_edges; groups of up to TM_PLUGIN_MAX_GROUP
 * tasks), for sbatch, the simulator and topomatch explain alike. */
topomatch_blob_limits_t tm_plugin_encode_limits(const tm_plugin_conf_t *c);
/* The limits slurmctld decodes the pattern of a job of ntasks tasks with
 * (tm_plugin_pattern_tasks, tm_plugin_pattern_edges). */
topomatch_blob_limits_t tm_plugin_decode_limits(const tm_plugin_conf_t *c, int64_t ntasks);
/* The most tasks the pattern of a job (or step) of ntasks tasks is read
 * or decoded with: MaxTasks, or for one mapped node by node its task
 * count, at most 2^20 (slurmctld, srun and topomatch explain alike). */
int64_t tm_plugin_pattern_tasks(const tm_plugin_conf_t *c, int64_t ntasks);

/* The path of topomatch.conf next to the given slurm.conf path. */
void tm_plugin_conf_path(const char *slurm_conf, char *buf, size_t len);

#endif /* TM_PLUGIN_CONF_H */

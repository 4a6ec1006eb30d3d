/*
 * tm_layout.h - helpers of the SPANK plugin's rank layout (srun side and
 * slurmstepd side), free of Slurm calls so that they can be tested alone:
 * srun's command line as far as the layout is concerned, the per-rank map
 * passed to the tasks in TOPOMATCH_MAP, Linux cpulists.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_LAYOUT_H
#define TM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* What srun's own options say about the step's layout. */
typedef struct tm_srun_args {
	int64_t ntasks;        /* -n/--ntasks, else SLURM_NTASKS/SLURM_NPROCS; -1 unknown */
	int64_t cpus_per_task; /* -c/--cpus-per-task, else SRUN_CPUS_PER_TASK; 1 */
	char layout_opt[32];   /* first layout option the user gave ("-w", "-m", ...) */
	int het;               /* ':' separator or --het-group */
	int npattern;          /* --comm-pattern occurrences on the command line */
	char mapper[32];       /* last --comm-mapper on the command line, "" none */
	int strict;            /* --comm-strict on the command line */
} tm_srun_args_t;

/* Scan srun's argv (up to the command) and its environment (getenv). */
void tm_srun_args_scan(int argc, char **argv, tm_srun_args_t *a);
/* The same from /proc/self/cmdline; -1 when it cannot be read. */
int tm_srun_args_scan_self(tm_srun_args_t *a);

/*
 * TOPOMATCH_MAP = "1;JOBID;NTASKS;NODE,NODE,...;ENTRIES": ENTRIES lists
 * the ranks in order, "i.c" = node i (in the node list), OS CPU c, and
 * "i.c+k" = k more ranks on node i with CPUs c+1 .. c+k.  node[r], cpu[r]
 * for each rank.  Returns a malloc'd string, NULL when out of memory.
 */
char *tm_map_encode(uint32_t jobid, int64_t ntasks, const char *const *names, int64_t nnames,
		    const int64_t *node, const int *cpu);
/* Rank `rank` of an encoded map: its node name (into name) and OS CPU.
 * 0, or -1 when the map is malformed, of another job or task count,
 * or has no such rank. */
int tm_map_lookup(const char *map, uint32_t jobid, int64_t ntasks, int64_t rank, char *name,
		  size_t namelen, int *cpu);

/* Linux cpulist ("0-3,8") of ncpu CPU numbers (any order, duplicates
 * allowed) into buf; -1 when it does not fit. */
int tm_cpulist(const int *cpus, int ncpu, char *buf, size_t len);

#endif /* TM_LAYOUT_H */

/*
 * tm_layout.h - helpers of the SPANK plugin's rank layout (srun side and
 * slurmstepd side), free of Slurm calls so that they can be tested alone:
 * srun's command line as far as the layout is concerned, the per-rank map
 * passed to the tasks in TOPOMATCH_MAP, the task counts of Slurm's block
 * distribution, Linux cpulists.
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
	int het;               /* a step over several het components: ':' or --het-group=0,1 */
	int64_t het_group;     /* --het-group=N (one component), else -1 */
	int npattern;          /* --comm-pattern occurrences on the command line */
	char mapper[32];       /* last --comm-mapper on the command line, "" none */
	int strict;            /* --comm-strict on the command line */
	int64_t nodes;         /* -N/--nodes: its value, 0 a range or other, -1 none */
	char cpu_bind[64];     /* last --cpu-bind, else SLURM_CPU_BIND; "" none */
	int overlap;           /* --overlap: the step may share CPUs with others */
} tm_srun_args_t;

/* Scan srun's argv (up to the command) and its environment (getenv). */
void tm_srun_args_scan(int argc, char **argv, tm_srun_args_t *a);
/* The same from /proc/self/cmdline; -1 when it cannot be read. */
int tm_srun_args_scan_self(tm_srun_args_t *a);

/* The whole of a small file (/proc) into a malloc'd NUL-terminated string,
 * its length in *len (may be NULL); NULL when it cannot be read or holds
 * more than TM_READ_TEXT_MAX bytes. */
#define TM_READ_TEXT_MAX (16u << 20)
char *tm_read_text(const char *path, size_t *len);

/* Whether a --cpu-bind value (SLURM_CPU_BIND's format) chooses a binding:
 * 1 when it names a type (none, map_cpu:..., cores, ...), 0 when it only
 * sets verbosity (verbose, quiet) or is empty. */
int tm_cpu_bind_chooses(const char *value);

/*
 * TOPOMATCH_MAP = "V;JOBID;NTASKS;NODE,NODE,...;ENTRIES": ENTRIES lists
 * the pattern's ranks in order, "i.c" = node i (in the node list), OS CPU
 * c, "i.c+k" = k more ranks on node i with CPUs c+1 .. c+k, and
 * "i.c:d:e" = one rank of several CPUs (--cpus-per-task), c, d and e.
 * V says how Slurm lays the tasks out:
 *  1 (TM_MAP_ARBITRARY): srun starts rank r on its node (SLURM_HOSTFILE),
 *    so task r is pattern rank r;
 *  2 (TM_MAP_REORDER): Slurm's block distribution over NODE,... in that
 *    order; the j-th task Slurm starts on node X is the j-th pattern rank
 *    (in rank order) of X.
 * Readers check everything: a malformed map, or one of another job or
 * task count, is never used.
 */
#define TM_MAP_ARBITRARY 1
#define TM_MAP_REORDER 2

/* node[r] and the cpt CPUs cpu[r * cpt ..] of each rank; version
 * TM_MAP_*.  Returns a malloc'd string, NULL when out of memory. */
char *tm_map_encode_v(int version, uint32_t jobid, int64_t ntasks, const char *const *names,
		      int64_t nnames, const int64_t *node, const int *cpu, int cpt);
/* The same, version TM_MAP_ARBITRARY, one CPU per rank. */
char *tm_map_encode(uint32_t jobid, int64_t ntasks, const char *const *names, int64_t nnames,
		    const int64_t *node, const int *cpu);
/* Version of a map (its first field): TM_MAP_*, or -1 when unknown. */
int tm_map_version(const char *map);
/* Largest TOPOMATCH_MAP: srun publishes none longer (one environment
 * string must stay well under the kernel's 128 KiB, SLURM-NOTES.md), and
 * the readers refuse one. */
#define TM_MAP_MAX_BYTES (64 * 1024)
/* A rank's OS CPUs. */
#define TM_MAP_MAX_CPUS 1024
typedef struct {
	int n;
	int cpu[TM_MAP_MAX_CPUS];
} tm_cpus_t;

/* TM_MAP_ARBITRARY: rank `rank` of an encoded map: its node name (into
 * name) and OS CPUs.  0, or -1 when the map is malformed, of another
 * version, job or task count, or has no such rank. */
int tm_map_lookup(const char *map, uint32_t jobid, int64_t ntasks, int64_t rank, char *name,
		  size_t namelen, tm_cpus_t *cpus);

#define TM_MAP_BAD (-1)      /* malformed, another version, job or task count */
#define TM_MAP_MISMATCH (-2) /* well-formed, but Slurm's layout is not the one mapped */
/*
 * TM_MAP_REORDER: the task Slurm started as local task `local` of
 * `nlocal` on node `node`, global task id `global`: its pattern rank and
 * OS CPUs.  The map must put exactly nlocal ranks on node, and as many
 * ranks on the nodes listed before it as Slurm's block layout started
 * there (global - local); TM_MAP_MISMATCH otherwise (a step whose layout
 * the map did not predict).  0, TM_MAP_BAD or TM_MAP_MISMATCH.
 */
int tm_map_lookup_local(const char *map, uint32_t jobid, int64_t ntasks, const char *node,
			int64_t local, int64_t nlocal, int64_t global, int64_t *rank,
			tm_cpus_t *cpus);

/*
 * The CPUs of rank `rank`, which the map puts on node `node`, when the
 * step holds only the OS CPUs i with allowed[i] != 0 (i < nallowed) there
 * (the step's cpuset: concurrent steps, --exact, a node shared with other
 * steps).  When every rank the map puts on that node is inside, the
 * rank's own CPUs (returns 0).  Otherwise those ranks, ordered by their
 * first mapped CPU, take the allowed CPUs in increasing order, as many
 * each as they were mapped to (returns 1): ranks the mapper put on
 * neighbouring CPUs stay neighbours, and the placement equals the mapping
 * whenever the step got the CPUs that were mapped.  TM_MAP_BAD, or
 * TM_MAP_MISMATCH when the node's ranks do not fit in the allowed CPUs.
 */
int tm_map_fit_cpus(const char *map, uint32_t jobid, int64_t ntasks, const char *node,
		    int64_t rank, const unsigned char *allowed, size_t nallowed, tm_cpus_t *cpus);

/*
 * The file that lists the CPUs of cpuset cgroup `cg` (the text of
 * /proc/PID/cpuset) into path, from the text of /proc/PID/mountinfo: in a
 * cgroup v1 hierarchy with the cpuset controller, cpuset.cpus; else in
 * the cgroup v2 hierarchy, cpuset.cpus.effective.  0, or -1 when no
 * mounted hierarchy shows that cgroup (or the path does not fit).
 */
int tm_cpuset_file(const char *mountinfo, const char *cg, char *path, size_t len);

/*
 * Tasks per node of Slurm 22.05's block distribution of a step (the
 * default; _init_task_layout and _task_layout_block in
 * src/common/slurm_step_layout.c, without CR_Pack_Nodes): each node holds
 * its CPUs (`cpus_per_node`, in the format of SLURM_JOB_CPUS_PER_NODE,
 * "16(x4),8") divided by cpus_per_task tasks, at least one, at most
 * max_per_node when > 0 (--ntasks-per-node); nodes are filled round by
 * round, one task per node with room left, then round by round over all
 * nodes.  count[] gets nnodes entries.  0, or -1 when the list is
 * malformed or does not describe exactly nnodes nodes.
 */
int tm_block_counts(const char *cpus_per_node, int64_t nnodes, int64_t ntasks,
		    int64_t cpus_per_task, int64_t max_per_node, int64_t *count);

/* A distribution (-m, SLURM_DISTRIBUTION) that lays tasks out across
 * nodes as the default does: NULL, "", "block" or "*", with any
 * in-node part (":cyclic") and no ",Pack".  1 yes, 0 no. */
int tm_dist_is_default(const char *dist);

/* Whether slurm.conf's SelectTypeParameters has CR_Pack_Nodes (which
 * packs the block distribution's nodes): 1 yes, 0 no, -1 unreadable. */
int tm_conf_pack_nodes(const char *slurm_conf);

/* Linux cpulist ("0-3,8") of ncpu CPU numbers (any order, duplicates
 * allowed) into buf; -1 when it does not fit. */
int tm_cpulist(const int *cpus, int ncpu, char *buf, size_t len);
/* The numbers of a list in that format ("0-3,8", as Slurm's bit_fmt
 * writes them): set[i] = 1 for each i < n listed, 0 for the others.
 * 0, or -1 when malformed or naming a number >= n. */
int tm_cpulist_parse(const char *list, unsigned char *set, size_t n);

#endif /* TM_LAYOUT_H */

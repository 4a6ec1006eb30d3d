/*
 * slurm_conf.h - the node definitions of a Slurm 22.05 slurm.conf, so that
 * `topomatch topo check` can compare the cluster YAML with what slurmctld
 * will use: every NodeName line with its effective socket, core, thread,
 * board and CPU counts (NodeName=DEFAULT lines and Slurm's inference
 * applied), plus ClusterName.  Other lines are accepted and ignored.
 *
 * What is read as Slurm 22.05 reads it (src/common/parse_config.c and
 * read_config.c of 22.05.8):
 *  - keys are case-insensitive, "Key=Value" or Key="quoted value", blanks
 *    allowed around '='; '#' starts a comment unless escaped ("\#");
 *    a line ending in an odd number of backslashes continues on the next
 *    one; "\x" stands for x;
 *  - "Include FILE" (a path relative to the including file's directory,
 *    "%c" replaced by the lower-cased ClusterName); unlike Slurm, nesting
 *    is bounded (TM_SLURM_MAX_INCLUDE_DEPTH);
 *  - NodeName=DEFAULT sets defaults for the following NodeName lines, each
 *    DEFAULT line adding to or replacing the earlier ones;
 *  - Sockets is the node's total; absent, it is Boards x SocketsPerBoard
 *    when SocketsPerBoard is set, else CPUs / (CoresPerSocket x
 *    ThreadsPerCore) when that divides exactly (so "CPUs=48" alone gives 48
 *    sockets of one core), else Boards.  CPUs (or its old name Procs)
 *    defaults to Sockets x CoresPerSocket x ThreadsPerCore.  Counts read
 *    like strtoul(..., 0): "010" is 8, as in Slurm.
 * What slurmctld logs as an error and then patches (a count of 0, Sockets
 * with SocketsPerBoard, Sockets < Boards, CPUs matching none of Sockets,
 * Sockets x CoresPerSocket, Sockets x CoresPerSocket x ThreadsPerCore) is
 * an error here, as are what it refuses: unknown keys on a NodeName line,
 * NodeName=ALL, NodeHostname/NodeAddr/BcastAddr on DEFAULT, and a node
 * defined twice (slurmctld: "Duplicated NodeHostName ... in config file").
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SLURM_CONF_H
#define TM_SLURM_CONF_H

#include <stdint.h>

#include "hostlist.h"

/* Bounds on input an admin could not mean (a loop of Includes, a stray binary). */
#define TM_SLURM_MAX_FILE_BYTES (INT64_C(16) << 20)  /* one file */
#define TM_SLURM_MAX_TOTAL_BYTES (INT64_C(64) << 20) /* all files together */
#define TM_SLURM_MAX_INCLUDE_DEPTH 16                /* Include inside Include ... */
#define TM_SLURM_MAX_FILES 1024                      /* files read in all */
#define TM_SLURM_MAX_NODES (INT64_C(1) << 20)        /* node names in all */

typedef struct tm_slurm_node {
	char *names;           /* the NodeName value as written */
	tm_hostlist_t *hosts;  /* the same, parsed */
	const char *file;      /* where defined (one of tm_slurm_conf_t.files) */
	int64_t line, col;     /* of the NodeName value */
	int sockets;           /* total on the node, all boards */
	int cores_per_socket, threads_per_core, boards;
	int cpus;              /* effective CPUs */
} tm_slurm_node_t;

struct tm_slurm_index; /* private: name -> entry hash */

typedef struct tm_slurm_conf {
	char *cluster_name;    /* lower-cased as Slurm does; NULL when absent */
	int64_t n;             /* NodeName lines other than DEFAULT */
	tm_slurm_node_t *node;
	int64_t nfiles;        /* files read: the main one first, then Includes */
	char **files;
	int64_t nnames;        /* node names in all (duplicates are refused) */
	struct tm_slurm_index *index;
} tm_slurm_conf_t;

/*
 * Read path and the files it includes.  On failure *out is left empty (no
 * need to free it) and err (TOPOMATCH_ERRLEN) reads "FILE:LINE:COL: what is
 * wrong", FILE being the file where it is wrong (an included one when it
 * is there).  Returns a topomatch_status: EIO (cannot open or read), EPARSE,
 * ELIMIT (the bounds above), ENOMEM, EINVAL (NULL arguments).
 */
int tm_slurm_conf_read(const char *path, tm_slurm_conf_t *out, char *err);
void tm_slurm_conf_free(tm_slurm_conf_t *c);

/*
 * Index of the NodeName entry defining `name` (the last one if several,
 * which cannot happen since duplicates are refused), -1 if none.  Names
 * are exact: "n7" is not in n[001-128].  O(1) expected: a hash of every
 * name built by tm_slurm_conf_read.
 */
int64_t tm_slurm_conf_find(const tm_slurm_conf_t *c, const char *name);

#endif /* TM_SLURM_CONF_H */

/*
 * cli.h - helpers shared by the topomatch subcommands.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_CLI_H
#define TM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json.h>

#include "topomatch.h"
#include "topomatch_cluster.h"

/* Exit codes: 0 success, 1 bad input or failed run, 2 bad usage. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Long options shared by map and eval (values above 255, no short form). */
enum {
	OPT_FORMAT = 256,
	OPT_MAX_TASKS,
	OPT_MAX_NNZ,
	OPT_MAX_BYTES,
	OPT_JSON,
	OPT_MAPPER,
	OPT_SEED,
	OPT_BUDGET,
	OPT_OUT,
	OPT_HELP,
	OPT_TAU,
	OPT_SPARSE,
	OPT_FIRST_PRIVATE /* subcommands number their own options from here */
};

/* getopt_long entries of the options cli_common_opt() handles, plus -t/-c. */
#define CLI_INPUT_LONGOPTS                                              \
	{ "topology", required_argument, NULL, 't' },                   \
	{ "pattern", required_argument, NULL, 'c' },                    \
	{ "format", required_argument, NULL, OPT_FORMAT },              \
	{ "json", no_argument, NULL, OPT_JSON },                        \
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },        \
	{ "max-nnz", required_argument, NULL, OPT_MAX_NNZ },            \
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },        \
	{ "quiet", no_argument, NULL, 'q' },                            \
	{ "help", no_argument, NULL, 'h' }

/* Inputs common to map and eval. */
struct cli_inputs {
	const char *topo;
	const char *pattern;
	int format;
	topomatch_limits_t limits;
	bool json;
	bool quiet; /* -q: no "pattern: ..." line on stderr */
};

/* "topomatch CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "topomatch CMD: warning: message" on stderr. */
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Usage error: message plus "Try 'topomatch CMD --help'."; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict number parsing of option values; false (and a message) when bad. */
bool cli_int64(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
	       int64_t *v);
bool cli_uint64(const char *cmd, const char *opt, const char *s, uint64_t *v);
bool cli_double(const char *cmd, const char *opt, const char *s, double min, double max,
		double *v);

/* Handle an option shared by map/eval (--format, --max-*, --json, -q);
 * returns 1 when handled, 0 when not one of them, -1 on a bad value. */
int cli_common_opt(const char *cmd, int c, const char *arg, struct cli_inputs *in);

/*
 * What -t names: a cluster description (a file ending in .yaml or .yml,
 * topomatch.yaml(5)), whose PUs are numbered as that page says, or a
 * Scotch target.  t is the topology either way.
 */
struct cli_target {
	topomatch_cluster_t *cl; /* NULL for a Scotch target */
	topomatch_topology_t *own;
	const topomatch_topology_t *t;
};

/* PUs the user numbers (the cluster's, or the topology's). */
int64_t cli_target_npu(const struct cli_target *tg);
/* Topology PU of a user PU id (identity without a cluster). */
int64_t cli_target_topology_pu(const struct cli_target *tg, int64_t pu);
void cli_target_free(struct cli_target *tg);

/*
 * Read all of path ("-": stdin; pipes, <(...), gzip-compressed files) into
 * a NUL-terminated buffer of at most max_bytes (decompressed); errors are
 * printed as cmd's.  CLI_OK or CLI_FAIL.
 */
int cli_read_input(const char *cmd, const char *path, int64_t max_bytes, char **buf,
		   size_t *len);

/* -t: a file (or pipe, or .gz) holding a Scotch target or a cluster
 * description (by its .yaml/.yml name or its "key:" first line), or the
 * target text itself.  Prints the error and returns CLI_FAIL on failure. */
int cli_load_target(const char *cmd, const struct cli_inputs *in, struct cli_target *tg);

/* -c: the pattern, with "pattern: FILE: FORMAT (why), N tasks, M entries"
 * on stderr unless in->quiet; ambiguous files are refused. */
int cli_read_pattern(const char *cmd, const struct cli_inputs *in, topomatch_affinity_t **a);

/* Both; prints the error and returns CLI_FAIL on failure. */
int cli_load(const char *cmd, const struct cli_inputs *in, struct cli_target *tg,
	     topomatch_affinity_t **a);

/* A mapping's report (map, eval). */
struct cli_report {
	const char *mapper;
	const char *reason;                 /* why this mapper; NULL: none */
	int64_t ntasks;
	const struct cli_target *tg;
	const topomatch_metrics_t *m;
	const topomatch_metrics_t *natural; /* NULL: no comparison */
	double time_s;
	const int64_t *pu;                  /* non-NULL: JSON has "mapping" */
};

/* Text to f, or JSON (pretty, one object) to stdout.  CLI_OK or CLI_FAIL. */
int cli_report_print(const char *cmd, FILE *f, const struct cli_report *r, bool json);

/* JSON helpers: every --json output is printed by cli_json_print
 * (indented, one key a line; takes o's reference).  NULL (JSON null) for
 * a number that is not finite. */
int cli_json_print(const char *cmd, json_object *o);
json_object *cli_json_double(double x);
json_object *cli_json_topology(const struct cli_target *tg);

/* A mapper name for --mapper (options after a colon allowed); else a
 * usage error listing the known names, and false. */
bool cli_mapper_ok(const char *cmd, const char *name);

/* --format of an output (dense, mm, triplets, grf; not auto) into
 * *format: CLI_OK, or a usage error's exit status. */
int cli_output_format(const char *cmd, const char *arg, int *format);

/* Write pattern a to out ("-" or NULL: stdout) in format (0: from out's
 * suffix: .mat dense, .mtx/.mm mm, .grf grf, else triplets), through a
 * temporary file renamed at the end; errors are printed as cmd's.
 * CLI_OK or CLI_FAIL. */
int cli_write_pattern(const char *cmd, const char *out, int format,
		      const topomatch_affinity_t *a);

#endif /* TM_CLI_H */

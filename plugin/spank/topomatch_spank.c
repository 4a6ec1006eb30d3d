/*
 * topomatch_spank.c - the SPANK plugin: `--comm-pattern=FILE`,
 * `--comm-mapper=NAME` and `--comm-strict` for sbatch, salloc and srun.
 *
 * In sbatch/salloc/srun (which run as the submitting user) it reads the
 * pattern file, checks it, and stores it as TOPOMATCH_PATTERN_0, 1, ...
 * in the job's spank_job_env (topomatch_blob_encode: each value under
 * 64 KiB, all under 512 KiB, sparsified further when needed, with a
 * warning saying how much communication weight was dropped).  slurmctld's
 * select/topomatch decodes it; the daemons never open the user's path
 * (DESIGN.md, Security).  A bad file is refused only with --comm-strict;
 * otherwise the job gets a warning and Slurm's default placement.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h> /* spank.h uses uint32_t without including it */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm_version.h>
#include <slurm/spank.h>

#include "topomatch.h"

#define TM_EXPORT __attribute__((visibility("default")))

/* SPANK_PLUGIN(topomatch, 1), with the symbols Slurm looks up exported. */
TM_EXPORT extern const char plugin_name[];
TM_EXPORT extern const char plugin_type[];
TM_EXPORT extern const unsigned int plugin_version;
TM_EXPORT extern const unsigned int spank_plugin_version;
TM_EXPORT const char plugin_name[] = "topomatch";
TM_EXPORT const char plugin_type[] = "spank";
TM_EXPORT const unsigned int plugin_version = SLURM_VERSION_NUMBER;
TM_EXPORT const unsigned int spank_plugin_version = 1;

/* Largest pattern file read in sbatch (a dense 4096 x 4096 matrix of
 * short numbers is ~100 MB); beyond, the job needs a sparse format. */
#define MAX_PATTERN_BYTES (INT64_C(1) << 30)

/* Everything the file says travels to slurmctld, unless it does not fit
 * the job record: the mappers apply their own sparse factor. */
#define SPARSE_FACTOR 0.0

/* Option values: SPANK calls back into a plugin instance per process, so
 * static state is the plugin's own, never shared with Slurm's. */
static char *pattern_path;
static char *mapper_name;
static int strict;

static int opt_pattern(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	if (!arg || !*arg) {
		slurm_error("--comm-pattern needs a file name");
		return -1;
	}
	free(pattern_path);
	pattern_path = strdup(arg);
	return pattern_path ? 0 : -1;
}

static int opt_mapper(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	for (const char *const *m = topomatch_mapper_names(); arg && *m; m++)
		if (!strcmp(*m, arg)) {
			free(mapper_name);
			mapper_name = strdup(arg);
			return mapper_name ? 0 : -1;
		}
	slurm_error("--comm-mapper: unknown mapper '%s' (auto, treematch, topomatch-const, "
		    "scotch, round-robin, random)",
		    arg ? arg : "");
	return -1;
}

static int opt_strict(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	strict = 1;
	return 0;
}

static struct spank_option options[] = {
	{ "comm-pattern", "FILE",
	  "communication pattern of the job's ranks (TopoMatch matrix, Matrix Market or "
	  "'i j w' triplets): place the job on nodes and cores that suit it",
	  1, 0, opt_pattern },
	{ "comm-mapper", "NAME",
	  "mapping algorithm for --comm-pattern (default auto; see topomatch-map(1))", 1, 0,
	  opt_mapper },
	{ "comm-strict", NULL,
	  "refuse the submission when --comm-pattern cannot be used (default: warn and "
	  "use Slurm's placement)",
	  0, 0, opt_strict },
	SPANK_OPTIONS_TABLE_END
};

TM_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	for (struct spank_option *o = options; o->name; o++)
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("topomatch: cannot register --%s", o->name);
			return -1;
		}
	return 0;
}

/* A problem with the pattern: fatal with --comm-strict, a warning otherwise. */
static int pattern_problem(const char *msg)
{
	if (strict) {
		slurm_error("%s", msg);
		return -1;
	}
	slurm_info("warning: %s; the job keeps Slurm's default placement", msg);
	return 0;
}

static int store(spank_t sp, char **entries, int n)
{
	char name[64];
	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "%s%d", TOPOMATCH_PATTERN_ENV, k);
		if (spank_job_control_setenv(sp, name, entries[k], 1) != ESPANK_SUCCESS)
			return -1;
	}
	if (mapper_name && spank_job_control_setenv(sp, "TOPOMATCH_MAPPER", mapper_name, 1) !=
				   ESPANK_SUCCESS)
		return -1;
	return 0;
}

/* Read, check and encode the pattern as the submitting user. */
static int submit_pattern(spank_t sp)
{
	char err[TOPOMATCH_ERRLEN], msg[TOPOMATCH_ERRLEN + 64];
	topomatch_limits_t lim = { .max_bytes = MAX_PATTERN_BYTES };
	topomatch_affinity_t *a = NULL;
	char **entries = NULL;
	int n = 0, rc = 0;
	topomatch_blob_info_t info;
	if (topomatch_affinity_read_file(pattern_path, TOPOMATCH_FORMAT_AUTO, &lim, &a, err) ||
	    topomatch_blob_encode(a, SPARSE_FACTOR, NULL, &entries, &n, &info, err)) {
		snprintf(msg, sizeof(msg), "--comm-pattern: %s", err);
		rc = pattern_problem(msg);
	} else if (store(sp, entries, n)) {
		rc = pattern_problem("--comm-pattern: cannot store the pattern in the job");
	} else if (info.weight_kept < info.weight_input * (1 - 1e-9)) {
		slurm_info("--comm-pattern: %lld tasks; kept %lld of %lld pairs, dropped %.1f%% "
			   "of the communication weight to fit the job record",
			   (long long)info.ntasks, (long long)info.nnz_kept,
			   (long long)info.nnz_input,
			   100.0 * (1 - info.weight_kept / info.weight_input));
	}
	topomatch_blob_free(entries, n);
	topomatch_affinity_destroy(a);
	return rc;
}

TM_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	spank_context_t ctx = spank_context();
	if (!pattern_path || (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL))
		return 0;
	return submit_pattern(sp);
}

TM_EXPORT int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	free(pattern_path);
	free(mapper_name);
	pattern_path = mapper_name = NULL;
	return 0;
}

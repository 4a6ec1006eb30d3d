/*
 * slurm_load.c - submit a stream of batch jobs to a (test) cluster through
 * the Slurm API, some with a communication pattern in their spank_job_env
 * exactly as `sbatch --comm-pattern` leaves it (topomatch_blob_encode
 * under the same size cap), for bench/slurm_scale.sh: the scheduler's
 * throughput with and without select/topomatch (issue 18, point 4) and
 * slurmctld's memory with many pending pattern jobs (point 3).  Through
 * the API, not sbatch, so that submission (a fork and a SPANK plugin per
 * sbatch) is not what is measured.
 *
 *   slurm_load [--jobs N] [--pattern-share F] [--sizes LIST] [--pattern FILE]
 *              [--pattern-kib K] [--hold] [--sleep SEC] [--seed S]
 *              [--partition P] [--name NAME]
 *
 * Job k (0-based) gets its task count from LIST (default 2,4,8,16,32,64)
 * and a pattern with probability F (default 0.5), both drawn from a
 * generator seeded with S (default 1): the same arguments give the same
 * stream.  The pattern is FILE's (whose task count then sets the job's)
 * or a shuffled 3D 7-point stencil of the job's size.  Prints the job ids,
 * one per line, then on stderr what was submitted and how fast.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "topomatch.h"

#define MAX_SIZES 32

typedef struct {
	char **env; /* "TOPOMATCH_PATTERN_k=..." strings */
	int n;
	size_t bytes;
	int64_t ntasks;
} blob_t;

static void die(const char *what)
{
	fprintf(stderr, "slurm_load: %s\n", what);
	exit(1);
}

static uint64_t next(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* The near-cubic box of n tasks: the stencil of a job of n tasks. */
static void box(int n, int dims[3])
{
	dims[0] = dims[1] = dims[2] = 1;
	for (int d = 0; n > 1; d = (d + 1) % 3) {
		int f = 2;
		while (n % f)
			f++;
		dims[d] *= f;
		n /= f;
	}
}

static void encode(const topomatch_affinity_t *a, size_t cap, blob_t *b)
{
	char err[TOPOMATCH_ERRLEN], **entries = NULL;
	topomatch_blob_limits_t lim = { .max_total = cap };
	topomatch_blob_info_t info;
	if (topomatch_blob_encode(a, 0.0, &lim, &entries, &b->n, &info, err))
		die(err);
	b->env = calloc((size_t)b->n + 1, sizeof(char *));
	if (!b->env)
		die("out of memory");
	b->bytes = 0;
	for (int k = 0; k < b->n; k++) {
		size_t len = strlen(entries[k]) + 32;
		if (!(b->env[k] = malloc(len)))
			die("out of memory");
		snprintf(b->env[k], len, "%s%d=%s", TOPOMATCH_PATTERN_ENV, k, entries[k]);
		b->bytes += strlen(b->env[k]) + 1;
	}
	b->ntasks = topomatch_affinity_ntasks(a);
	topomatch_blob_free(entries, b->n);
}

static void stencil_blob(int n, size_t cap, blob_t *b)
{
	char err[TOPOMATCH_ERRLEN];
	const double w[3] = { 1000, 500, 100 };
	int dims[3];
	topomatch_affinity_t *s = NULL, *a = NULL;
	box(n, dims);
	if (topomatch_gen_stencil(3, dims, 7, 0, w, &s, err) ||
	    topomatch_affinity_shuffle(s, (uint64_t)n, &a, err))
		die(err);
	encode(a, cap, b);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(a);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: slurm_load [--jobs N] [--pattern-share F] [--sizes LIST] "
		   "[--pattern FILE]\n"
		   "                  [--pattern-kib K] [--hold] [--sleep SEC] [--seed S]\n"
		   "                  [--partition P] [--name NAME]\n");
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", 1, 0, 'j' },	 { "pattern-share", 1, 0, 'f' }, { "sizes", 1, 0, 'z' },
		{ "pattern", 1, 0, 'p' }, { "pattern-kib", 1, 0, 'k' },  { "hold", 0, 0, 'H' },
		{ "sleep", 1, 0, 's' },	 { "seed", 1, 0, 'r' },		 { "partition", 1, 0, 'P' },
		{ "name", 1, 0, 'J' },	 { "help", 0, 0, 'h' },		 { 0, 0, 0, 0 }
	};
	long jobs = 5000, secs = 0;
	double share = 0.5;
	int sizes[MAX_SIZES] = { 2, 4, 8, 16, 32, 64 }, nsizes = 6, hold = 0, opt;
	size_t cap = 48 * 1024; /* PatternKiB's default */
	uint64_t seed = 1;
	const char *pattern = NULL, *partition = NULL, *name = "load";
	char *end;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		errno = 0;
		switch (opt) {
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 1000000)
				die("--jobs: expected a count from 1 to 1000000");
			break;
		case 'f':
			share = strtod(optarg, &end);
			if (*end || !(share >= 0 && share <= 1))
				die("--pattern-share: expected a fraction from 0 to 1");
			break;
		case 'z':
			nsizes = 0;
			for (char *p = optarg; *p; p = *end ? end + 1 : end) {
				long v = strtol(p, &end, 10);
				if (end == p || (*end && *end != ',') || v < 1 || v > 65536 ||
				    nsizes == MAX_SIZES)
					die("--sizes: expected up to 32 task counts, e.g. 2,4,8");
				sizes[nsizes++] = (int)v;
			}
			if (!nsizes)
				die("--sizes: expected up to 32 task counts, e.g. 2,4,8");
			break;
		case 'p':
			pattern = optarg;
			break;
		case 'k': {
			long k = strtol(optarg, &end, 10);
			if (*end || k < 1 || k > 512)
				die("--pattern-kib: expected KiB from 1 to 512");
			cap = (size_t)k * 1024;
			break;
		}
		case 'H':
			hold = 1;
			break;
		case 's':
			secs = strtol(optarg, &end, 10);
			if (*end || secs < 0 || secs > 86400)
				die("--sleep: expected seconds from 0 to 86400");
			break;
		case 'r':
			seed = strtoull(optarg, &end, 10);
			if (*end)
				die("--seed: expected an integer");
			break;
		case 'P':
			partition = optarg;
			break;
		case 'J':
			name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	/* the patterns, encoded once: one per size, or the file's */
	blob_t blobs[MAX_SIZES] = { 0 }, fixed = { 0 };
	if (pattern) {
		char err[TOPOMATCH_ERRLEN];
		topomatch_affinity_t *a = NULL;
		if (topomatch_affinity_read_file(pattern, TOPOMATCH_FORMAT_AUTO, NULL, &a, err))
			die(err);
		encode(a, cap, &fixed);
		topomatch_affinity_destroy(a);
	} else if (share > 0) {
		for (int k = 0; k < nsizes; k++)
			if (sizes[k] > 1)
				stencil_blob(sizes[k], cap, &blobs[k]);
	}

	slurm_init(NULL);
	char cwd[4096], script[64];
	snprintf(script, sizeof(script), "#!/bin/sh\n%s\n", secs ? "sleep $TM_LOAD_SLEEP" : "true");
	char sleepenv[64];
	snprintf(sleepenv, sizeof(sleepenv), "TM_LOAD_SLEEP=%ld", secs);
	char *envs[] = { "PATH=/usr/bin:/bin", sleepenv, NULL };
	long with = 0, failed = 0;
	double kib = 0, t0 = now();
	for (long k = 0; k < jobs; k++) {
		int z = (int)(next(&seed) % (uint64_t)nsizes);
		int pat = (double)(next(&seed) >> 11) * 0x1p-53 < share;
		const blob_t *b = pattern ? &fixed : &blobs[z];
		job_desc_msg_t job;
		submit_response_msg_t *resp = NULL;
		slurm_init_job_desc_msg(&job);
		job.name = (char *)name;
		job.script = script;
		job.num_tasks = (uint32_t)(pat && pattern ? b->ntasks : sizes[z]);
		job.min_cpus = job.num_tasks;
		job.user_id = getuid();
		job.group_id = getgid();
		job.work_dir = getcwd(cwd, sizeof(cwd));
		job.std_out = "/dev/null";
		job.std_err = "/dev/null";
		job.environment = envs;
		job.env_size = 2;
		job.partition = (char *)partition;
		if (hold)
			job.priority = 0;
		if (pat && b->n) {
			job.spank_job_env = b->env;
			job.spank_job_env_size = (uint32_t)b->n;
			with++;
			kib += (double)b->bytes / 1024;
		}
		if (slurm_submit_batch_job(&job, &resp) || !resp) {
			if (++failed == 1) {
				fprintf(stderr, "slurm_load: job %ld: ", k);
				slurm_perror("slurm_submit_batch_job");
			}
			continue;
		}
		printf("%u\n", resp->job_id);
		slurm_free_submit_response_response_msg(resp);
	}
	fflush(stdout);
	double dt = now() - t0;
	fprintf(stderr,
		"slurm_load: %ld jobs submitted (%ld with a pattern, %.0f KiB of patterns), "
		"%ld failed, in %.1f s (%.0f/s)\n",
		jobs - failed, with, kib, failed, dt, (double)(jobs - failed) / (dt > 0 ? dt : 1));
	for (int k = 0; k <= nsizes; k++) {
		blob_t *b = k < nsizes ? &blobs[k] : &fixed;
		for (int e = 0; e < b->n; e++)
			free(b->env[e]);
		free(b->env);
	}
	slurm_fini();
	return failed ? 1 : 0;
}

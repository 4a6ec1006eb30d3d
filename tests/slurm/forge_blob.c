/*
 * forge_blob.c - submit a batch job whose spank_job_env carries a forged
 * or corrupted pattern, as any user can through the Slurm API (DESIGN.md,
 * Security).  Used by tests/slurm/placement.sh:
 *   forge_blob MODE NTASKS PATTERN   MODE: garbage | flip | huge
 * prints the job id.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "topomatch.h"

static char **blob_env(const char *mode, const char *pattern, int *n)
{
	static char *env[4];
	char err[TOPOMATCH_ERRLEN], **entries;
	topomatch_affinity_t *a;
	int k;

	*n = 1;
	if (!strcmp(mode, "garbage")) {
		env[0] = strdup("TOPOMATCH_PATTERN_0=TMP101zzzz-not-a-blob");
		return env;
	}
	if (!strcmp(mode, "huge")) { /* a header that claims a huge pattern */
		env[0] = strdup("TOPOMATCH_PATTERN_0=TMP1010000000100ffffffff0123456789abcdefAAAA");
		return env;
	}
	if (topomatch_affinity_read_file(pattern, TOPOMATCH_FORMAT_AUTO, NULL, &a, err) ||
	    topomatch_blob_encode(a, 0, NULL, &entries, &k, NULL, err)) {
		fprintf(stderr, "forge_blob: %s\n", err);
		exit(1);
	}
	size_t len = strlen(entries[0]);
	entries[0][len / 2] = entries[0][len / 2] == 'A' ? 'B' : 'A'; /* one character */
	env[0] = malloc(len + 32);
	sprintf(env[0], "TOPOMATCH_PATTERN_0=%s", entries[0]);
	topomatch_blob_free(entries, k);
	topomatch_affinity_destroy(a);
	return env;
}

int main(int argc, char **argv)
{
	job_desc_msg_t job;
	submit_response_msg_t *resp = NULL;
	char cwd[4096], *envp[] = { "PATH=/usr/bin:/bin", NULL };

	if (argc != 4) {
		fprintf(stderr, "usage: forge_blob garbage|flip|huge NTASKS PATTERN\n");
		return 2;
	}
	slurm_init(NULL);
	slurm_init_job_desc_msg(&job);
	job.name = "forged";
	job.script = "#!/bin/sh\nsleep 5\n";
	job.num_tasks = (uint32_t)atoi(argv[2]);
	job.min_cpus = job.num_tasks;
	job.user_id = getuid();
	job.group_id = getgid();
	job.work_dir = getcwd(cwd, sizeof(cwd));
	job.std_out = "/dev/null";
	job.environment = envp;
	job.env_size = 1;
	int n;
	job.spank_job_env = blob_env(argv[1], argv[3], &n);
	job.spank_job_env_size = (uint32_t)n;
	if (slurm_submit_batch_job(&job, &resp) || !resp) {
		slurm_perror("forge_blob: slurm_submit_batch_job");
		return 1;
	}
	printf("%u\n", resp->job_id);
	slurm_free_submit_response_response_msg(resp);
	return 0;
}

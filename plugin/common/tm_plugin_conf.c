/*
 * tm_plugin_conf.c - topomatch.conf reader (see tm_plugin_conf.h).  The
 * file is the admin's, in Slurm's configuration directory; still, lines
 * are bounded and every value is checked, and nothing here aborts.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tm_plugin_conf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LINE 4096

void tm_plugin_conf_defaults(tm_plugin_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->job_budget_ms = 50;
	c->cycle_budget_ms = 500;
	/* Larger mappings take more than 0.1 s (0.1 to 0.26 s for 4096 tasks
	 * on a 4096-node fat tree, 2-core machine of 2026): far past
	 * JobBudgetMs, and a mapping cut short is not remembered, so each
	 * pass would spend the budget again before falling back. */
	c->max_tasks = 4096;
	strcpy(c->mapper, "auto");
	/* 10,000 pending jobs at the cap keep slurmctld within 512 MiB more
	 * (bench/slurm_scale.sh memory: 461 MiB, 47.2 KiB a job) */
	c->pattern_kib = 48;
	/* slurm.conf's Weight is the admin's order of use: a heavier node
	 * for a gain in the noise would waste it (tm_choose.c, tm_weigh) */
	c->node_weight_gain = 10;
	c->enabled = 1;
	/* TOPOMATCH_CONTENTION_WEIGHT and the simulator's defaults
	 * (--contention-weight 1, --comm-share 0.2), measured there
	 * (topomatch-sim(1), "CONTENTION-AWARE NODE CHOICE") */
	c->contention_weight = 1;
	c->contention_share = 0.2;
	/* 16 bytes an entry: 16 MiB at most in slurmctld; a job loads a few
	 * links per node it spans, so 10^6 holds thousands of large jobs */
	c->contention_entries = 1000000;
	/* as Slurm's max_switch_wait (SchedulerParameters) for --switches */
	c->comm_wait_max = 300;
	/* a fifth more hop-bytes than on an empty cluster: at 1.05 the
	 * simulator's loaded streams had 3-10 % more bounded slowdown
	 * (bench/README.md, issue 20 point 4) */
	c->comm_wait_ratio = 1.2;
}

void tm_plugin_conf_path(const char *slurm_conf, char *buf, size_t len)
{
	const char *slash = slurm_conf ? strrchr(slurm_conf, '/') : NULL;
	if (!slash)
		snprintf(buf, len, "/etc/slurm/topomatch.conf");
	else
		snprintf(buf, len, "%.*s/topomatch.conf", (int)(slash - slurm_conf), slurm_conf);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int number(const char *v, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(x) || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

static int string(const char *v, char *dst, size_t len)
{
	if (strlen(v) >= len)
		return -1;
	strcpy(dst, v);
	return 0;
}

static int boolean(const char *v, int *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* One Key=Value; 0, or -1 with what is wrong in why. */
static int setting(tm_plugin_conf_t *c, const char *key, const char *v, const char **why)
{
	double x;
	*why = "bad value";
	if (!strcasecmp(key, "ClusterYAML"))
		return v[0] == '/' ? string(v, c->cluster_yaml, sizeof(c->cluster_yaml))
				   : (*why = "ClusterYAML must be an absolute path", -1);
	if (!strcasecmp(key, "JobBudgetMs")) {
		*why = "JobBudgetMs: expected milliseconds from 1 to 60000";
		return number(v, 1, 60000, &c->job_budget_ms);
	}
	if (!strcasecmp(key, "CycleBudgetMs")) {
		*why = "CycleBudgetMs: expected milliseconds from 1 to 600000";
		return number(v, 1, 600000, &c->cycle_budget_ms);
	}
	if (!strcasecmp(key, "MaxTasks")) {
		/* the blob carries at most 2^20 tasks (TOPOMATCH_BLOB_MAX_TASKS) */
		*why = "MaxTasks: expected a whole number of tasks from 1 to 1048576";
		if (number(v, 1, 1 << 20, &x) || x != floor(x))
			return -1;
		c->max_tasks = (int64_t)x;
		return 0;
	}
	if (!strcasecmp(key, "PatternKiB")) {
		/* the decoder's limit on all of a job's entries: 512 KiB */
		*why = "PatternKiB: expected a whole number of KiB from 1 to 512";
		if (number(v, 1, 512, &x) || x != floor(x))
			return -1;
		c->pattern_kib = (int)x;
		return 0;
	}
	if (!strcasecmp(key, "NodeWeightGain")) {
		*why = "NodeWeightGain: expected a percentage from 0 to 100";
		return number(v, 0, 100, &c->node_weight_gain);
	}
	if (!strcasecmp(key, "ContentionWeight")) {
		*why = "ContentionWeight: expected a number from 0 to 1000000";
		return number(v, 0, 1e6, &c->contention_weight);
	}
	if (!strcasecmp(key, "ContentionShare")) {
		/* 0 would add jobs that load nothing */
		*why = "ContentionShare: expected a share above 0, at most 1";
		if (number(v, 0, 1, &x) || x <= 0)
			return -1;
		c->contention_share = x;
		return 0;
	}
	if (!strcasecmp(key, "ContentionEntries")) {
		/* 2^30 entries are 16 GiB: past any slurmctld host */
		*why = "ContentionEntries: expected a whole number from 1 to 1073741824";
		if (number(v, 1, 1 << 30, &x) || x != floor(x))
			return -1;
		c->contention_entries = (int64_t)x;
		return 0;
	}
	if (!strcasecmp(key, "CommWaitMax")) {
		*why = "CommWaitMax: expected whole seconds from 0 to 31536000";
		if (number(v, 0, 31536000, &x) || x != floor(x))
			return -1;
		c->comm_wait_max = (long)x;
		return 0;
	}
	if (!strcasecmp(key, "CommWaitRatio")) {
		*why = "CommWaitRatio: expected a ratio from 1 to 1000";
		return number(v, 1, 1000, &c->comm_wait_ratio);
	}
	if (!strcasecmp(key, "Mapper"))
		return string(v, c->mapper, sizeof(c->mapper));
	if (!strcasecmp(key, "Enabled"))
		return boolean(v, &c->enabled);
	*why = "unknown key (known: ClusterYAML, JobBudgetMs, CycleBudgetMs, MaxTasks, "
	       "PatternKiB, NodeWeightGain, ContentionWeight, ContentionShare, "
	       "ContentionEntries, CommWaitMax, CommWaitRatio, Mapper, Enabled)";
	return -1;
}

static int line_setting(tm_plugin_conf_t *c, char *line, const char **why)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = trim(line);
	if (!*s)
		return 0;
	char *eq = strchr(s, '=');
	if (!eq) {
		*why = "expected Key=Value";
		return -1;
	}
	*eq = 0;
	return setting(c, trim(s), trim(eq + 1), why);
}

int tm_plugin_conf_read(const char *path, tm_plugin_conf_t *c, char *err, size_t errlen)
{
	tm_plugin_conf_defaults(c);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return 1;
	}
	char line[MAX_LINE];
	int rc = 0;
	for (long n = 1; rc == 0 && fgets(line, sizeof(line), f); n++) {
		const char *why = "";
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%ld: line longer than %d bytes", path, n, MAX_LINE);
			rc = -1;
		} else if (line_setting(c, line, &why)) {
			snprintf(err, errlen, "%s:%ld: %s", path, n, why);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

int64_t tm_plugin_task_limit(const tm_plugin_conf_t *c)
{
	double per_budget = 1024.0 * (c->job_budget_ms > 50 ? c->job_budget_ms / 50 : 1);
	return per_budget < (double)c->max_tasks ? (int64_t)per_budget : c->max_tasks;
}

int64_t tm_plugin_pattern_edges(const tm_plugin_conf_t *c)
{
	return (int64_t)(65536.0 * (c->job_budget_ms > 50 ? c->job_budget_ms / 50 : 1));
}

int64_t tm_plugin_pattern_tasks(const tm_plugin_conf_t *c, int64_t ntasks)
{
	const int64_t most = INT64_C(1) << 20;
	if (ntasks <= tm_plugin_task_limit(c))
		return c->max_tasks;
	return ntasks < most ? ntasks : most;
}

topomatch_blob_limits_t tm_plugin_encode_limits(const tm_plugin_conf_t *c)
{
	topomatch_blob_limits_t lim = { .max_total = (size_t)c->pattern_kib * 1024,
					.max_edges = tm_plugin_pattern_edges(c),
					.max_group = TM_PLUGIN_MAX_GROUP };
	return lim;
}

topomatch_blob_limits_t tm_plugin_decode_limits(const tm_plugin_conf_t *c, int64_t ntasks)
{
	topomatch_blob_limits_t lim = { .max_tasks = tm_plugin_pattern_tasks(c, ntasks),
					.max_edges = tm_plugin_pattern_edges(c) };
	return lim;
}

/*
 * cli.c - helpers shared by the topomatch subcommands.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "topomatch %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "topomatch %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'topomatch %s --help'.\n", cmd);
	return CLI_USAGE;
}

bool cli_int64(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
	       int64_t *v)
{
	char *e;
	errno = 0;
	long long x = strtoll(s, &e, 10);
	if (errno || e == s || *e != '\0' || x < min || x > max) {
		cli_usage_error(cmd, "%s: '%s' is not an integer in [%lld, %lld]", opt, s,
				(long long)min, (long long)max);
		return false;
	}
	*v = x;
	return true;
}

bool cli_uint64(const char *cmd, const char *opt, const char *s, uint64_t *v)
{
	char *e;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 10);
	if (errno || e == s || *e != '\0' || s[0] == '-') {
		cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s);
		return false;
	}
	*v = x;
	return true;
}

bool cli_double(const char *cmd, const char *opt, const char *s, double min, double max,
		double *v)
{
	char *e;
	errno = 0;
	double x = strtod(s, &e);
	if (errno || e == s || *e != '\0' || !isfinite(x) || x < min || x > max) {
		cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]", opt, s, min, max);
		return false;
	}
	*v = x;
	return true;
}

int cli_common_opt(const char *cmd, int c, const char *arg, struct cli_inputs *in)
{
	int64_t v;
	switch (c) {
	case OPT_FORMAT:
		in->format = topomatch_format_from_name(arg);
		if (in->format < 0) {
			cli_usage_error(cmd, "--format: unknown format '%s' "
					     "(dense, mm, triplets, grf or auto)", arg);
			return -1;
		}
		return 1;
	case OPT_MAX_TASKS:
		if (!cli_int64(cmd, "--max-tasks", arg, 1, INT64_MAX, &v))
			return -1;
		in->limits.max_tasks = v;
		return 1;
	case OPT_MAX_NNZ:
		if (!cli_int64(cmd, "--max-nnz", arg, 1, INT64_MAX, &v))
			return -1;
		in->limits.max_nnz = v;
		return 1;
	case OPT_MAX_BYTES:
		if (!cli_int64(cmd, "--max-bytes", arg, 1, INT64_MAX, &v))
			return -1;
		in->limits.max_bytes = v;
		return 1;
	case OPT_JSON:
		in->json = true;
		return 1;
	default:
		return 0;
	}
}

static bool is_yaml(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"));
}

int64_t cli_target_npu(const struct cli_target *tg)
{
	return tg->cl ? topomatch_cluster_npu(tg->cl) : topomatch_topology_npu(tg->t);
}

int64_t cli_target_topology_pu(const struct cli_target *tg, int64_t pu)
{
	return tg->cl ? topomatch_cluster_pu_to_topology(tg->cl, pu) : pu;
}

void cli_target_free(struct cli_target *tg)
{
	topomatch_cluster_destroy(tg->cl);
	topomatch_topology_destroy(tg->own);
	memset(tg, 0, sizeof(*tg));
}

static int load_target(const char *arg, struct cli_target *tg, char *err)
{
	memset(tg, 0, sizeof(*tg));
	if (!is_yaml(arg)) {
		int rc = topomatch_topology_load(arg, &tg->own, err);
		tg->t = tg->own;
		return rc;
	}
	int rc = topomatch_cluster_load(arg, &tg->cl, err);
	if (rc == TOPOMATCH_OK)
		tg->t = topomatch_cluster_topology(tg->cl);
	return rc;
}

int cli_load(const char *cmd, const struct cli_inputs *in, struct cli_target *tg,
	     topomatch_affinity_t **a)
{
	char err[TOPOMATCH_ERRLEN];
	*a = NULL;
	if (load_target(in->topo, tg, err) != TOPOMATCH_OK) {
		cli_error(cmd, "%s", err);
		return CLI_FAIL;
	}
	if (topomatch_affinity_read_file(in->pattern, in->format, &in->limits, a, err) !=
	    TOPOMATCH_OK) {
		cli_error(cmd, "%s", err);
		cli_target_free(tg);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* JSON has no inf/nan; the metrics are finite, but never print invalid JSON. */
static void json_number(double x)
{
	if (isfinite(x))
		printf("%.17g", x);
	else
		printf("null");
}

void cli_print_metrics(const char *mapper, int64_t ntasks, const topomatch_topology_t *t,
		       const topomatch_metrics_t *m, double time_s, bool json)
{
	const struct {
		const char *key;
		double v;
	} f[] = {
		{ "hop_bytes", m->hop_bytes },
		{ "sum_com", m->sum_com },
		{ "max_com", m->max_com },
		{ "avg_task_hop_bytes", m->avg_task_hop_bytes },
		{ "max_task_hop_bytes", m->max_task_hop_bytes },
		{ "max_link_load", m->max_link_load },
		{ "time_s", time_s },
	};
	if (json) {
		/* mapper is one of our own names: no escaping needed */
		printf("{\"mapper\": \"%s\", \"tasks\": %lld", mapper, (long long)ntasks);
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			printf(", \"%s\": ", f[i].key);
			json_number(f[i].v);
		}
		printf("}\n");
		return;
	}
	char desc[256];
	topomatch_topology_describe(t, desc, sizeof(desc));
	printf("mapper              %s\n", mapper);
	printf("tasks               %lld\n", (long long)ntasks);
	printf("topology            %s (%lld PUs)\n", desc, (long long)topomatch_topology_npu(t));
	for (size_t i = 0; i + 1 < sizeof(f) / sizeof(f[0]); i++)
		printf("%-20s%.15g\n", f[i].key, f[i].v);
	printf("%-20s%.6f\n", "time_s", time_s);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int output_format(const char *out, int format)
{
	if (format > 0)
		return format;
	if (!out)
		return TOPOMATCH_FORMAT_TRIPLETS;
	if (has_suffix(out, ".mat"))
		return TOPOMATCH_FORMAT_DENSE;
	if (has_suffix(out, ".mtx") || has_suffix(out, ".mm"))
		return TOPOMATCH_FORMAT_MM;
	if (has_suffix(out, ".grf"))
		return TOPOMATCH_FORMAT_GRF;
	return TOPOMATCH_FORMAT_TRIPLETS;
}

/* Write to a temporary file next to the target and rename it, so that a
 * failed run never leaves a truncated pattern behind. */
int cli_write_pattern(const char *cmd, const char *out, int format,
		      const topomatch_affinity_t *a)
{
	char err[TOPOMATCH_ERRLEN] = "";
	if (!out || !strcmp(out, "-")) {
		if (topomatch_affinity_write(a, stdout, output_format(out, format), err) !=
		    TOPOMATCH_OK) {
			cli_error(cmd, "stdout: %s", err);
			return CLI_FAIL;
		}
		if (fflush(stdout) != 0) {
			cli_error(cmd, "stdout: %s", strerror(errno));
			return CLI_FAIL;
		}
		return CLI_OK;
	}
	size_t len = strlen(out) + 16;
	char *tmp = malloc(len);
	if (!tmp) {
		cli_error(cmd, "out of memory");
		return CLI_FAIL;
	}
	snprintf(tmp, len, "%s.tmpXXXXXX", out);
	int fd = mkstemp(tmp);
	/* mkstemp makes 0600; the pattern is an ordinary output: the umask's
	 * mode, as fopen would give (the CLI is single-threaded) */
	mode_t mask = umask(0);
	umask(mask);
	if (fd >= 0)
		(void)fchmod(fd, 0666 & ~mask);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int rc = CLI_FAIL;
	if (!f)
		cli_error(cmd, "%s: %s", out, strerror(errno));
	else if (topomatch_affinity_write(a, f, output_format(out, format), err) != TOPOMATCH_OK)
		cli_error(cmd, "%s: %s", out, err);
	else
		rc = CLI_OK;
	if (f && fclose(f) != 0 && rc == CLI_OK) {
		cli_error(cmd, "%s: %s", out, strerror(errno));
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK && rename(tmp, out) != 0) {
		cli_error(cmd, "%s: %s", out, strerror(errno));
		rc = CLI_FAIL;
	}
	if (rc != CLI_OK && fd >= 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int cli_output_format(const char *cmd, const char *arg, int *format)
{
	*format = topomatch_format_from_name(arg);
	if (*format < 0 || *format == TOPOMATCH_FORMAT_AUTO)
		return cli_usage_error(cmd, "--format: '%s' is not one of dense, mm, triplets, grf",
				       arg);
	return CLI_OK;
}

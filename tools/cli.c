/*
 * cli.c - helpers shared by the topomatch subcommands.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* "topomatch CMD: KIND<message>" on stderr, without the newline */
static void cli_vsay(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "topomatch %s: %s", cmd, kind);
	vfprintf(stderr, fmt, ap);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vsay(cmd, "", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vsay(cmd, "warning: ", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vsay(cmd, "", fmt, ap);
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
	case 'q':
		in->quiet = true;
		return 1;
	default:
		return 0;
	}
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static bool is_yaml(const char *path)
{
	return has_suffix(path, ".yaml") || has_suffix(path, ".yml") ||
	       has_suffix(path, ".yaml.gz") || has_suffix(path, ".yml.gz");
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

/*
 * The whole of path ("-": stdin) through zlib, which reads gzip-compressed
 * and plain input alike (sim reads .swf.gz the same way), from any file
 * the kernel opens: regular files, pipes and <(...) process substitutions.
 * At most max_bytes once decompressed: a small .gz cannot expand into an
 * unbounded buffer.
 */
int cli_read_input(const char *cmd, const char *path, int64_t max_bytes, char **out,
		   size_t *outlen)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	struct stat st;
	*out = NULL;
	*outlen = 0;
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_error(cmd, "%s: is a directory", name);
		return CLI_FAIL;
	}
	int fd = strcmp(path, "-") ? open(path, O_RDONLY) : dup(STDIN_FILENO);
	gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
	if (!gz) {
		cli_error(cmd, "%s: cannot open: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CLI_FAIL;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	int rc = buf ? CLI_OK : CLI_FAIL;
	if (!buf)
		cli_error(cmd, "%s: out of memory", name);
	while (rc == CLI_OK) {
		if (len == cap) {
			size_t ncap = (uint64_t)cap * 2 > (uint64_t)max_bytes + 1
					      ? (size_t)((uint64_t)max_bytes + 1) : 2 * cap;
			char *nb = cap < SIZE_MAX / 4 ? realloc(buf, ncap + 1) : NULL;
			if (!nb) {
				cli_error(cmd, "%s: out of memory after %zu bytes", name, len);
				rc = CLI_FAIL;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		/* never more than one byte past the limit: a 4 GiB limit must not
		 * mean an 8 GiB buffer */
		uint64_t left = (uint64_t)max_bytes + 1 - len;
		size_t want = cap - len > (1u << 30) ? (1u << 30) : cap - len;
		want = (uint64_t)want > left ? (size_t)left : want;
		int got = gzread(gz, buf + len, (unsigned)want);
		if (got < 0) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);
			cli_error(cmd, "%s: read error: %s", name,
				  zerr == Z_ERRNO ? strerror(errno) : msg);
			rc = CLI_FAIL;
		} else if (got == 0) {
			/* a truncated gzip stream ends without an error from gzread */
			int zerr;
			const char *msg = gzerror(gz, &zerr);
			if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
				cli_error(cmd, "%s: read error: %s", name, msg);
				rc = CLI_FAIL;
			} else if (zerr == Z_BUF_ERROR) {
				cli_error(cmd, "%s: truncated gzip data", name);
				rc = CLI_FAIL;
			}
			break;
		} else if ((uint64_t)(len += (size_t)got) > (uint64_t)max_bytes) {
			/* the line that holds the first byte beyond the limit */
			long long line = 1;
			for (size_t i = 0; i < (size_t)max_bytes; i++)
				line += buf[i] == '\n';
			cli_error(cmd, "%s:%lld: larger than the limit of %lld bytes (--max-bytes)",
				  name, line, (long long)max_bytes);
			rc = CLI_FAIL;
		}
	}
	gzclose(gz);
	if (rc != CLI_OK) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return CLI_OK;
}

/* A cluster description's first key ("cluster:", "name:", "---"): Scotch
 * targets start with a keyword that never has a colon. */
static bool looks_like_yaml(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p < end && *p == '#') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	if (end - p >= 3 && !memcmp(p, "---", 3))
		return true;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != ':')
		p++;
	return p < end && *p == ':';
}

static int64_t max_bytes_of(const topomatch_limits_t *lim)
{
	return lim->max_bytes > 0 ? lim->max_bytes : TOPOMATCH_DEFAULT_MAX_BYTES;
}

/*
 * -t ARG: "-" or the name of something that exists (a file, a pipe,
 * /dev/fd/N from <(...)) is read, else ARG is the target text itself.
 */
static int load_target(const char *cmd, const char *arg, const topomatch_limits_t *lim,
		       struct cli_target *tg)
{
	char err[TOPOMATCH_ERRLEN];
	struct stat st;
	memset(tg, 0, sizeof(*tg));
	if (strcmp(arg, "-") && stat(arg, &st) != 0) {
		if (topomatch_topology_load(arg, &tg->own, err) != TOPOMATCH_OK) {
			cli_error(cmd, "%s", err);
			return CLI_FAIL;
		}
		tg->t = tg->own;
		return CLI_OK;
	}
	char *buf;
	size_t len;
	const char *name = strcmp(arg, "-") ? arg : "<stdin>";
	if (cli_read_input(cmd, arg, max_bytes_of(lim), &buf, &len) != CLI_OK)
		return CLI_FAIL;
	int rc;
	if (is_yaml(arg) || looks_like_yaml(buf, len)) {
		/* relative paths in the description are relative to its file */
		char *copy = strdup(arg);
		const char *dir = copy && strcmp(arg, "-") ? dirname(copy) : NULL;
		rc = topomatch_cluster_load_buffer(buf, len, name, dir, &tg->cl, err);
		free(copy);
		if (rc == TOPOMATCH_OK)
			tg->t = topomatch_cluster_topology(tg->cl);
	} else {
		rc = topomatch_topology_parse_buffer(buf, len, name, &tg->own, err);
		tg->t = tg->own;
	}
	free(buf);
	if (rc != TOPOMATCH_OK) {
		cli_error(cmd, "%s", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_load_target(const char *cmd, const struct cli_inputs *in, struct cli_target *tg)
{
	return load_target(cmd, in->topo, &in->limits, tg);
}

int cli_read_pattern(const char *cmd, const struct cli_inputs *in, topomatch_affinity_t **a)
{
	char err[TOPOMATCH_ERRLEN], *buf;
	size_t len;
	const char *name = strcmp(in->pattern, "-") ? in->pattern : "<stdin>";
	*a = NULL;
	if (cli_read_input(cmd, in->pattern, max_bytes_of(&in->limits), &buf, &len) != CLI_OK)
		return CLI_FAIL;
	const char *why = "--format";
	int ambiguous = 0, format = in->format;
	if (format == TOPOMATCH_FORMAT_AUTO)
		format = topomatch_affinity_detect(buf, len, &why, &ambiguous);
	/* the reader under auto refuses an ambiguous file, naming it */
	int rc = topomatch_affinity_read_buffer(buf, len, name, ambiguous ? TOPOMATCH_FORMAT_AUTO
									 : format,
						&in->limits, a, err);
	free(buf);
	if (rc != TOPOMATCH_OK) {
		cli_error(cmd, "%s", err);
		return CLI_FAIL;
	}
	/* say what was read: a file of another shape than the user thought
	 * shows here (issue 21: a 2 x 3 matrix silently read as triplets) */
	if (!in->quiet)
		fprintf(stderr, "pattern: %s: %s (%s), %lld tasks, %lld entries\n", name,
			topomatch_format_name(format), why,
			(long long)topomatch_affinity_ntasks(*a),
			(long long)topomatch_affinity_nnz(*a));
	return CLI_OK;
}

int cli_load(const char *cmd, const struct cli_inputs *in, struct cli_target *tg,
	     topomatch_affinity_t **a)
{
	*a = NULL;
	if (!strcmp(in->topo, "-") && !strcmp(in->pattern, "-"))
		return cli_usage_error(cmd, "-t - and -c - cannot both read stdin");
	if (cli_load_target(cmd, in, tg) != CLI_OK)
		return CLI_FAIL;
	if (cli_read_pattern(cmd, in, a) != CLI_OK) {
		cli_target_free(tg);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* JSON has no inf/nan; the metrics are finite, but never print invalid JSON. */
json_object *cli_json_double(double x)
{
	/* %.17g as before (an integer stays "120000": scripts that read the
	 * number with sed see what they saw), not json-c's "120000.0" */
	char s[40];
	if (!isfinite(x))
		return NULL;
	snprintf(s, sizeof(s), "%.17g", x);
	return json_object_new_double_s(x, s);
}

/* The one style of every --json output: indented by 2, one key a line. */
int cli_json_print(const char *cmd, json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;
	int rc = CLI_FAIL;
	if (!s)
		cli_error(cmd, "out of memory");
	else if (printf("%s\n", s) < 0 || fflush(stdout))
		cli_error(cmd, "stdout: write failed");
	else
		rc = CLI_OK;
	json_object_put(o);
	return rc;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case TOPOMATCH_TOPO_TREE: return "tree";
	case TOPOMATCH_TOPO_TORUS: return "torus";
	case TOPOMATCH_TOPO_MESH: return "mesh";
	case TOPOMATCH_TOPO_HCUB: return "hypercube";
	default: return "graph";
	}
}

json_object *cli_json_topology(const struct cli_target *tg)
{
	char desc[4096];
	json_object *o = json_object_new_object();
	topomatch_topology_describe(tg->t, desc, sizeof(desc));
	json_object_object_add(o, "description", json_object_new_string(desc));
	json_object_object_add(o, "kind", json_object_new_string(kind_name(
						  topomatch_topology_kind(tg->t))));
	json_object_object_add(o, "pus", json_object_new_int64(cli_target_npu(tg)));
	json_object_object_add(o, "positions",
			       json_object_new_int64(topomatch_topology_npu(tg->t)));
	if (tg->cl) {
		json_object_object_add(o, "cluster",
				       json_object_new_string(topomatch_cluster_name(tg->cl)));
		json_object_object_add(o, "network",
				       json_object_new_string(topomatch_cluster_network(tg->cl)));
		json_object_object_add(o, "nodes",
				       json_object_new_int64(topomatch_cluster_nnodes(tg->cl)));
	}
	return o;
}

static const char *const metric_keys[] = { "hop_bytes", "sum_com", "max_com",
					   "avg_task_hop_bytes", "max_task_hop_bytes",
					   "max_link_load" };

static void metric_values(const topomatch_metrics_t *m, double v[6])
{
	v[0] = m->hop_bytes;
	v[1] = m->sum_com;
	v[2] = m->max_com;
	v[3] = m->avg_task_hop_bytes;
	v[4] = m->max_task_hop_bytes;
	v[5] = m->max_link_load;
}

/* The mapping's hop-bytes over the natural placement's (1 when both are
 * 0: a pattern without traffic between PUs is as good either way). */
static double vs_natural(const struct cli_report *r)
{
	double a = r->m->hop_bytes, b = r->natural->hop_bytes;
	return b > 0 ? a / b : a > 0 ? INFINITY : 1.0;
}

int cli_report_print(const char *cmd, FILE *f, const struct cli_report *r, bool json)
{
	double v[6];
	metric_values(r->m, v);
	if (json) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "mapper", json_object_new_string(r->mapper));
		if (r->reason)
			json_object_object_add(o, "reason", json_object_new_string(r->reason));
		json_object_object_add(o, "tasks", json_object_new_int64(r->ntasks));
		json_object_object_add(o, "topology", cli_json_topology(r->tg));
		for (int i = 0; i < 6; i++)
			json_object_object_add(o, metric_keys[i], cli_json_double(v[i]));
		if (r->natural) {
			json_object_object_add(o, "natural_hop_bytes",
					       cli_json_double(r->natural->hop_bytes));
			json_object_object_add(o, "hop_bytes_vs_natural",
					       cli_json_double(vs_natural(r)));
		}
		json_object_object_add(o, "time_s", cli_json_double(r->time_s));
		if (r->pu) {
			json_object *a = json_object_new_array_ext((int)r->ntasks);
			for (int64_t i = 0; i < r->ntasks; i++)
				json_object_array_add(a, json_object_new_int64(r->pu[i]));
			json_object_object_add(o, "mapping", a);
		}
		return cli_json_print(cmd, o);
	}
	char desc[256];
	topomatch_topology_describe(r->tg->t, desc, sizeof(desc));
	fprintf(f, "mapper              %s\n", r->mapper);
	if (r->reason)
		fprintf(f, "why                 %s\n", r->reason);
	fprintf(f, "tasks               %lld\n", (long long)r->ntasks);
	fprintf(f, "topology            %s (%lld PUs)\n", desc, (long long)cli_target_npu(r->tg));
	for (int i = 0; i < 6; i++)
		fprintf(f, "%-20s%.15g\n", metric_keys[i], v[i]);
	if (r->natural) {
		fprintf(f, "%-20s%.15g\n", "natural_hop_bytes", r->natural->hop_bytes);
		fprintf(f, "%-20s%.4f (hop-bytes / the natural placement's, task i on the "
			   "i-th PU; below 1 is better)\n",
			"vs_natural", vs_natural(r));
	}
	fprintf(f, "%-20s%.6f\n", "time_s", r->time_s);
	return fflush(f) ? CLI_FAIL : CLI_OK;
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

bool cli_mapper_ok(const char *cmd, const char *name)
{
	size_t len = strcspn(name, ":");
	char known[512] = "";
	for (const char *const *n = topomatch_mapper_names(); *n; n++) {
		if (strlen(*n) == len && !strncmp(*n, name, len))
			return true;
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 known[0] ? ", " : "", *n);
	}
	cli_usage_error(cmd, "unknown mapper '%.*s' (known: %s)", (int)len, name, known);
	return false;
}

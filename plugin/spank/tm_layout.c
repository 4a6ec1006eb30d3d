/*
 * tm_layout.c - see tm_layout.h.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tm_layout.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The options of Slurm 22.05 (src/common/slurm_opt.c) that take a value
 * (required_argument), so that `--opt value` and `-x value` skip their
 * value, plus this plugin's.  Options with an optional value take it
 * only as `--opt=value`.
 */
static const char short_with_arg[] = "ABCDFGJLMNSTWabcdeimnopqrtwx";
static const char *const long_with_arg[] = {
	"accel-bind", "account", "acctg-freq", "argv", "array", "batch", "bb", "bbf",
	"bcast-exclude", "begin", "chdir", "cluster", "cluster-constraint", "clusters",
	"comment", "constraint", "container", "context", "core-spec", "cores-per-socket",
	"cpu-bind", "cpu-freq", "cpu_bind", "cpus-per-gpu", "cpus-per-task", "deadline",
	"delay-boot", "dependency", "distribution", "environment", "epilog", "error",
	"exclude", "export", "export-file", "extra-node-info", "gid", "gpu-bind", "gpu-freq",
	"gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags",
	"het-group", "hint", "input", "job-name", "jobid", "kill-on-invalid-dep", "licenses",
	"mail-type", "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu",
	"mincpus", "mpi", "msg-timeout", "network", "nodefile", "nodelist", "nodes", "ntasks",
	"ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket",
	"ntasks-per-tres", "open-mode", "output", "pack-group", "partition", "power", "prefer",
	"priority", "profile", "prolog", "qos", "relative", "reservation", "signal",
	"slurmd-debug", "sockets-per-node", "switches", "task-epilog", "task-prolog",
	"tasks-per-node", "thread-spec", "threads", "threads-per-core", "time", "time-min",
	"tmp", "uid", "wait", "wait-all-nodes", "wckey", "wrap",
	"comm-pattern", "comm-mapper", NULL
};

/* Options that choose where ranks go: the user's layout wins over ours. */
static const char *layout_name(const char *name)
{
	static const char *const layout[] = { "nodelist", "nodefile", "distribution",
					      "ntasks-per-node", "tasks-per-node", "relative",
					      "exclude", "arbitrary", NULL };
	for (const char *const *l = layout; *l; l++)
		if (!strcmp(*l, name))
			return *l;
	return NULL;
}

/* Full name of a long option given as `name` (exact, else a unique prefix
 * among the options with a value); NULL when unknown or ambiguous. */
static const char *long_full(const char *name, size_t len)
{
	const char *found = NULL;
	int n = 0;
	for (const char *const *o = long_with_arg; *o; o++) {
		if (strlen(*o) == len && !strncmp(*o, name, len))
			return *o;
		if (!strncmp(*o, name, len))
			found = *o, n++;
	}
	return n == 1 ? found : NULL;
}

static int64_t number(const char *s)
{
	char *end;
	long long v = s ? strtoll(s, &end, 10) : -1;
	return s && end != s && *end == 0 && v > 0 ? v : -1;
}

static void apply(tm_srun_args_t *a, const char *name, const char *val)
{
	if (!strcmp(name, "ntasks"))
		a->ntasks = number(val);
	else if (!strcmp(name, "cpus-per-task"))
		a->cpus_per_task = number(val);
	else if (!strcmp(name, "het-group") || !strcmp(name, "pack-group"))
		a->het = 1;
	else if (!strcmp(name, "comm-pattern"))
		a->npattern++;
	else if (!strcmp(name, "comm-mapper"))
		snprintf(a->mapper, sizeof(a->mapper), "%s", val ? val : "");
	else if (!strcmp(name, "comm-strict"))
		a->strict = 1;
	else if (layout_name(name) && !a->layout_opt[0])
		snprintf(a->layout_opt, sizeof(a->layout_opt), "--%s", name);
}

static const char *short_long(char c)
{
	switch (c) {
	case 'n': return "ntasks";
	case 'c': return "cpus-per-task";
	case 'w': return "nodelist";
	case 'F': return "nodefile";
	case 'm': return "distribution";
	case 'r': return "relative";
	case 'x': return "exclude";
	default: return "";
	}
}

void tm_srun_args_scan(int argc, char **argv, tm_srun_args_t *a)
{
	memset(a, 0, sizeof(*a));
	a->ntasks = number(getenv("SLURM_NTASKS"));
	if (a->ntasks < 0)
		a->ntasks = number(getenv("SLURM_NPROCS"));
	a->cpus_per_task = getenv("SRUN_CPUS_PER_TASK") ? number(getenv("SRUN_CPUS_PER_TASK")) : 1;
	int i = 1;
	for (; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] != '-' || !s[1])
			break; /* the command: srun's options end here ("+" in getopt) */
		if (s[1] == '-') {
			const char *eq = strchr(s + 2, '=');
			size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
			const char *full = long_full(s + 2, len);
			char bare[64];
			snprintf(bare, sizeof(bare), "%.*s", (int)len, s + 2);
			if (full) {
				const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
				apply(a, full, val);
			} else {
				apply(a, bare, eq ? eq + 1 : NULL);
			}
			continue;
		}
		for (const char *p = s + 1; *p; p++) {
			if (!strchr(short_with_arg, *p))
				continue;
			const char *val = p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
			const char *name = short_long(*p);
			int had = a->layout_opt[0] != 0;
			if (*name)
				apply(a, name, val);
			if (!had && a->layout_opt[0])
				snprintf(a->layout_opt, sizeof(a->layout_opt), "-%c", *p);
			break;
		}
	}
	/* heterogeneous step: "srun A : B" */
	for (; i < argc; i++)
		if (!strcmp(argv[i], ":"))
			a->het = 1;
}

int tm_srun_args_scan_self(tm_srun_args_t *a)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (!f) {
		tm_srun_args_scan(0, NULL, a);
		return -1;
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf) {
		tm_srun_args_scan(0, NULL, a);
		return -1;
	}
	buf[len] = 0;
	int argc = 0;
	for (size_t k = 0; k < len; k++)
		if (!buf[k])
			argc++;
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		free(buf);
		tm_srun_args_scan(0, NULL, a);
		return -1;
	}
	for (size_t k = 0, n = 0; k < len && (int)n < argc; n++) {
		argv[n] = buf + k;
		k += strlen(buf + k) + 1;
	}
	tm_srun_args_scan(argc, argv, a);
	free(argv);
	free(buf);
	return 0;
}

/* ------------------------------------------------------------------ */

typedef struct {
	char *s;
	size_t len, cap;
	int bad;
} sbuf_t;

static void put(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(sbuf_t *b, const char *fmt, ...)
{
	if (b->bad)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->bad = 1;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		char *ns = realloc(b->s, 2 * b->cap + (size_t)n);
		if (!ns) {
			b->bad = 1;
			return;
		}
		b->s = ns;
		b->cap = 2 * b->cap + (size_t)n;
	}
}

char *tm_map_encode(uint32_t jobid, int64_t ntasks, const char *const *names, int64_t nnames,
		    const int64_t *node, const int *cpu)
{
	sbuf_t b = { malloc(256), 0, 256, 0 };
	if (!b.s)
		return NULL;
	b.s[0] = 0;
	put(&b, "1;%" PRIu32 ";%" PRId64 ";", jobid, ntasks);
	for (int64_t i = 0; i < nnames; i++)
		put(&b, "%s%s", i ? "," : "", names[i]);
	put(&b, ";");
	for (int64_t r = 0; r < ntasks;) {
		int64_t k = 0;
		while (r + k + 1 < ntasks && node[r + k + 1] == node[r] &&
		       cpu[r + k + 1] == cpu[r] + (int)(k + 1))
			k++;
		put(&b, "%s%" PRId64 ".%d", r ? "," : "", node[r], cpu[r]);
		if (k)
			put(&b, "+%" PRId64, k);
		r += k + 1;
	}
	if (b.bad) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

int tm_map_lookup(const char *map, uint32_t jobid, int64_t ntasks, int64_t rank, char *name,
		  size_t namelen, int *cpu)
{
	unsigned long long j;
	long long n;
	int off = 0;
	if (!map || sscanf(map, "1;%llu;%lld;%n", &j, &n, &off) != 2 || !off || j != jobid ||
	    n != ntasks || rank < 0 || rank >= ntasks)
		return -1;
	const char *names = map + off, *entries = strchr(names, ';');
	if (!entries)
		return -1;
	entries++;
	int64_t r = 0, nodei = -1;
	int c = -1;
	for (const char *p = entries; *p;) {
		char *end;
		long long ni = strtoll(p, &end, 10);
		if (end == p || *end != '.')
			return -1;
		p = end + 1;
		long cc = strtol(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
		long long k = 0;
		if (*p == '+') {
			k = strtoll(p + 1, &end, 10);
			if (end == p + 1 || k < 0)
				return -1;
			p = end;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
		if (rank <= r + k) {
			nodei = ni;
			c = (int)(cc + (rank - r));
			break;
		}
		r += k + 1;
	}
	if (nodei < 0 || c < 0)
		return -1;
	/* node name number nodei */
	const char *s = names;
	for (int64_t i = 0; i < nodei; i++) {
		s = strpbrk(s, ",;");
		if (!s || *s == ';')
			return -1;
		s++;
	}
	size_t len = strcspn(s, ",;");
	if (!len || len >= namelen)
		return -1;
	memcpy(name, s, len);
	name[len] = 0;
	*cpu = c;
	return 0;
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

int tm_cpulist(const int *cpus, int ncpu, char *buf, size_t len)
{
	int *s = malloc((size_t)ncpu * sizeof(*s) + 1);
	size_t used = 0;
	if (!s || !len)
		return free(s), -1;
	memcpy(s, cpus, (size_t)ncpu * sizeof(*s));
	qsort(s, (size_t)ncpu, sizeof(*s), cmp_int);
	buf[0] = 0;
	for (int i = 0; i < ncpu;) {
		int j = i;
		while (j + 1 < ncpu && (s[j + 1] == s[j] || s[j + 1] == s[j] + 1))
			j++;
		int n = s[i] == s[j] ? snprintf(buf + used, len - used, "%s%d", used ? "," : "", s[i])
				     : snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "",
						s[i], s[j]);
		if (n < 0 || (size_t)n >= len - used)
			return free(s), -1;
		used += (size_t)n;
		i = j + 1;
	}
	free(s);
	return 0;
}

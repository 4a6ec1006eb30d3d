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
#include <strings.h>

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

/* --het-group=N: that component; several ("0,1", "0-1") make a het step */
static void het_group(tm_srun_args_t *a, const char *val)
{
	char *end;
	long long g = val ? strtoll(val, &end, 10) : -1;
	if (val && end != val && !*end && g >= 0 && g < 128)
		a->het_group = g;
	else
		a->het = 1;
}

static void apply(tm_srun_args_t *a, const char *name, const char *val)
{
	if (!strcmp(name, "ntasks"))
		a->ntasks = number(val);
	else if (!strcmp(name, "cpus-per-task"))
		a->cpus_per_task = number(val);
	else if (!strcmp(name, "het-group") || !strcmp(name, "pack-group"))
		het_group(a, val);
	else if (!strcmp(name, "comm-pattern"))
		a->npattern++;
	else if (!strcmp(name, "comm-mapper"))
		snprintf(a->mapper, sizeof(a->mapper), "%s", val ? val : "");
	else if (!strcmp(name, "comm-strict"))
		a->strict = 1;
	else if (!strcmp(name, "nodes"))
		a->nodes = number(val) > 0 ? number(val) : 0;
	else if (!strcmp(name, "cpu-bind") || !strcmp(name, "cpu_bind"))
		snprintf(a->cpu_bind, sizeof(a->cpu_bind), "%s", val ? val : "");
	else if (!strcmp(name, "overlap"))
		a->overlap = 1;
	else if (layout_name(name) && !a->layout_opt[0])
		snprintf(a->layout_opt, sizeof(a->layout_opt), "--%s", name);
}

static const char *short_long(char c)
{
	switch (c) {
	case 'n': return "ntasks";
	case 'N': return "nodes";
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
	a->nodes = -1;
	a->het_group = -1;
	a->ntasks = number(getenv("SLURM_NTASKS"));
	if (a->ntasks < 0)
		a->ntasks = number(getenv("SLURM_NPROCS"));
	a->cpus_per_task = getenv("SRUN_CPUS_PER_TASK") ? number(getenv("SRUN_CPUS_PER_TASK")) : 1;
	/* srun takes --cpu-bind from SLURM_CPU_BIND (sbatch --cpu-bind sets it) */
	snprintf(a->cpu_bind, sizeof(a->cpu_bind), "%s",
		 getenv("SLURM_CPU_BIND") ? getenv("SLURM_CPU_BIND") : "");
	a->overlap = getenv("SLURM_OVERLAP") != NULL;
	int64_t env_ntasks = a->ntasks;
	a->ntasks = INT64_MIN; /* none given on the command line yet */
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
	if (a->ntasks == INT64_MIN) {
		/* in a heterogeneous job, srun runs on component 0 by default,
		 * with that component's task count */
		char key[64];
		snprintf(key, sizeof(key), "SLURM_NTASKS_HET_GROUP_%lld",
			 (long long)(a->het_group >= 0 ? a->het_group : 0));
		a->ntasks = getenv("SLURM_HET_SIZE") && getenv(key) ? number(getenv(key))
								     : env_ntasks;
	}
}

char *tm_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 8192, n = 0, got;
	char *buf = f ? malloc(cap + 1) : NULL;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = cap < TM_READ_TEXT_MAX ? realloc(buf, 2 * cap + 1) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (f)
		fclose(f);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = n;
	}
	return buf;
}

int tm_srun_args_scan_self(tm_srun_args_t *a)
{
	size_t len = 0;
	char *buf = tm_read_text("/proc/self/cmdline", &len);
	if (!buf) {
		tm_srun_args_scan(0, NULL, a);
		return -1;
	}
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

char *tm_map_encode_v(int version, uint32_t jobid, int64_t ntasks, const char *const *names,
		      int64_t nnames, const int64_t *node, const int *cpu, int cpt)
{
	sbuf_t b = { malloc(256), 0, 256, 0 };
	if (!b.s)
		return NULL;
	b.s[0] = 0;
	put(&b, "%d;%" PRIu32 ";%" PRId64 ";", version, jobid, ntasks);
	for (int64_t i = 0; i < nnames; i++)
		put(&b, "%s%s", i ? "," : "", names[i]);
	put(&b, ";");
	for (int64_t r = 0; cpt > 1 && r < ntasks; r++) {
		put(&b, "%s%" PRId64 ".%d", r ? "," : "", node[r], cpu[r * cpt]);
		for (int k = 1; k < cpt; k++)
			put(&b, ":%d", cpu[r * cpt + k]);
	}
	for (int64_t r = 0; cpt == 1 && r < ntasks;) {
		int64_t k = 0;
		while (r + k + 1 < ntasks && node[r + k + 1] == node[r] &&
		       cpu[r + k + 1] == cpu[r] + (int)(k + 1))
			k++;
		put(&b, "%s%" PRId64 ".%d", r ? "," : "", node[r], cpu[r]);
		if (k)
			put(&b, "+%" PRId64, k);
		r += k + 1;
	}
	if (b.bad || cpt < 1) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

char *tm_map_encode(uint32_t jobid, int64_t ntasks, const char *const *names, int64_t nnames,
		    const int64_t *node, const int *cpu)
{
	return tm_map_encode_v(TM_MAP_ARBITRARY, jobid, ntasks, names, nnames, node, cpu, 1);
}

/* Largest number a map may hold where an OS CPU or a run length goes:
 * far above any machine, far below INT_MAX, so that c + k cannot wrap. */
#define MAX_CPU (1 << 22)
/* Largest task count or job id read from a map. */
#define MAX_FIELD (INT64_C(1) << 40)

/* A map's fixed fields, and where its node names and entries start. */
typedef struct {
	int version;
	int64_t jobid, ntasks, nnames;
	const char *names, *entries;
} map_head_t;

/* A decimal number of at most `max` at *p (digits only: no sign, no
 * blanks), *p moved past it; -1 when there is none or it is too large. */
static int64_t decimal(const char **p, int64_t max)
{
	int64_t v = 0;
	const char *s = *p;
	if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1; /* not a digit, or a leading zero the encoder never writes */
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	*p = s;
	return v;
}

/* "V;JOBID;NTASKS;NAMES;" of a map of at most TM_MAP_MAX_BYTES, NAMES
 * non-empty and without empty names; 0 or -1. */
static int map_head(const char *map, map_head_t *h)
{
	const char *p = map;
	int64_t v;
	if (!p || strnlen(map, TM_MAP_MAX_BYTES + 1) > TM_MAP_MAX_BYTES ||
	    (v = decimal(&p, 9)) < 0 || *p++ != ';' ||
	    (h->jobid = decimal(&p, MAX_FIELD)) < 0 || *p++ != ';' ||
	    (h->ntasks = decimal(&p, MAX_FIELD)) < 0 || *p++ != ';')
		return -1;
	h->version = (int)v;
	h->names = p;
	h->nnames = 1;
	if (*p == ';')
		return -1;
	for (; *p != ';'; p++) {
		if (!*p || (*p == ',' && (p == h->names || p[1] == ',' || p[1] == ';')))
			return -1;
		h->nnames += *p == ',';
	}
	h->entries = p + 1;
	return 0;
}

/* One run of ENTRIES: ranks r .. r + k on node `node`, CPUs cpu .. cpu + k;
 * or one rank (k = 0) of the CPUs cpu and those listed at `more`. */
typedef struct {
	int64_t node, cpu, k;
	const char *more; /* ":d:e", NULL when none */
} map_run_t;

/* The run at *p (then past its ','); 0, 1 at the end, -1 when malformed
 * or naming a node the map does not list. */
static int next_run(const char **p, int64_t nnames, map_run_t *run)
{
	const char *s = *p;
	if (!*s)
		return 1;
	if ((run->node = decimal(&s, nnames - 1)) < 0 || *s++ != '.' ||
	    (run->cpu = decimal(&s, MAX_CPU)) < 0)
		return -1;
	run->k = 0;
	run->more = NULL;
	if (*s == '+') {
		s++;
		if ((run->k = decimal(&s, MAX_CPU)) < 0)
			return -1;
	} else if (*s == ':') {
		run->more = s;
		for (int n = 1; *s == ':'; n++) {
			s++;
			if (n >= TM_MAP_MAX_CPUS || decimal(&s, MAX_CPU) < 0)
				return -1;
		}
	}
	if (*s == ',' && s[1])
		s++;
	else if (*s)
		return -1;
	*p = s;
	return 0;
}

/* The CPUs of rank r + off of a run (next_run checked them). */
static void run_cpus(const map_run_t *run, int64_t off, tm_cpus_t *cpus)
{
	cpus->n = 1;
	cpus->cpu[0] = (int)(run->cpu + off);
	for (const char *s = run->more; s && *s == ':';) {
		s++;
		cpus->cpu[cpus->n++] = (int)decimal(&s, MAX_CPU);
	}
}

/* Name number i of a map into name; 0 or -1 when it does not fit. */
static int map_name(const map_head_t *h, int64_t i, char *name, size_t namelen)
{
	const char *s = h->names;
	for (int64_t k = 0; k < i; k++)
		s = strchr(s, ',') + 1; /* map_head counted them */
	size_t len = strcspn(s, ",;");
	if (len >= namelen)
		return -1;
	memcpy(name, s, len);
	name[len] = 0;
	return 0;
}

/* Index of node `node` in a map's names, -1 when absent. */
static int64_t map_find(const map_head_t *h, const char *node)
{
	size_t nl = strlen(node);
	const char *s = h->names;
	for (int64_t i = 0; i < h->nnames; i++) {
		size_t len = strcspn(s, ",;");
		if (len == nl && !strncmp(s, node, nl))
			return i;
		s += len + 1;
	}
	return -1;
}

int tm_map_version(const char *map)
{
	map_head_t h;
	if (map_head(map, &h) ||
	    (h.version != TM_MAP_ARBITRARY && h.version != TM_MAP_REORDER))
		return -1;
	return h.version;
}

/* The header of a map of this version, job and task count; 0 or -1. */
static int map_open(const char *map, int version, uint32_t jobid, int64_t ntasks,
		    map_head_t *h)
{
	if (map_head(map, h) || h->version != version || h->jobid != (int64_t)jobid ||
	    h->ntasks != ntasks || ntasks < 1)
		return -1;
	return 0;
}

int tm_map_lookup(const char *map, uint32_t jobid, int64_t ntasks, int64_t rank, char *name,
		  size_t namelen, tm_cpus_t *cpus)
{
	map_head_t h;
	map_run_t run;
	if (map_open(map, TM_MAP_ARBITRARY, jobid, ntasks, &h) || rank < 0 || rank >= ntasks)
		return -1;
	const char *p = h.entries;
	int64_t r = 0, node = -1;
	int rc;
	for (; (rc = next_run(&p, h.nnames, &run)) == 0; r += run.k + 1) {
		if (r + run.k >= ntasks)
			return -1; /* more ranks than the map says */
		if (rank >= r && rank <= r + run.k) {
			node = run.node;
			run_cpus(&run, rank - r, cpus);
		}
	}
	/* the whole map is checked, not only up to this rank */
	if (rc < 0 || r != ntasks || node < 0 || map_name(&h, node, name, namelen))
		return -1;
	return 0;
}

int tm_map_lookup_local(const char *map, uint32_t jobid, int64_t ntasks, const char *node,
			int64_t local, int64_t nlocal, int64_t global, int64_t *rank,
			tm_cpus_t *cpus)
{
	map_head_t h;
	map_run_t run;
	if (map_open(map, TM_MAP_REORDER, jobid, ntasks, &h))
		return TM_MAP_BAD;
	int64_t me = map_find(&h, node), here = 0, before = 0, r = 0;
	const char *p = h.entries;
	int rc;
	*rank = -1;
	for (; (rc = next_run(&p, h.nnames, &run)) == 0; r += run.k + 1) {
		if (r + run.k >= ntasks)
			return TM_MAP_BAD;
		if (run.node < me)
			before += run.k + 1;
		if (run.node != me)
			continue;
		if (local >= here && local <= here + run.k) {
			*rank = r + (local - here);
			run_cpus(&run, local - here, cpus);
		}
		here += run.k + 1;
	}
	if (rc < 0 || r != ntasks)
		return TM_MAP_BAD;
	if (me < 0 || here != nlocal || before != global - local || *rank < 0)
		return TM_MAP_MISMATCH;
	return 0;
}

/* A rank of the node being fitted: its first mapped CPU and its rank. */
typedef struct {
	int64_t cpu, rank;
} fit_rank_t;

static int cmp_fit(const void *x, const void *y)
{
	const fit_rank_t *a = x, *b = y;
	if (a->cpu != b->cpu)
		return (a->cpu > b->cpu) - (a->cpu < b->cpu);
	return (a->rank > b->rank) - (a->rank < b->rank);
}

int tm_map_fit_cpus(const char *map, uint32_t jobid, int64_t ntasks, const char *node,
		    int64_t rank, const unsigned char *allowed, size_t nallowed, tm_cpus_t *cpus)
{
	map_head_t h;
	map_run_t run;
	int v = tm_map_version(map);
	if (v < 0 || map_open(map, v, jobid, ntasks, &h))
		return TM_MAP_BAD;
	fit_rank_t *on = malloc((size_t)ntasks * sizeof(*on));
	int64_t me = map_find(&h, node), non = 0, r = 0, cpt = 0, outside = 0, pos = -1;
	const char *p = h.entries;
	int rc;
	tm_cpus_t c;
	if (!on)
		return TM_MAP_BAD;
	for (; (rc = next_run(&p, h.nnames, &run)) == 0; r += run.k + 1) {
		if (r + run.k >= ntasks) {
			rc = -1;
			break;
		}
		if (run.node != me)
			continue;
		for (int64_t off = 0; off <= run.k; off++) {
			run_cpus(&run, off, &c);
			if (cpt && c.n != cpt) {
				rc = -1; /* every rank of a step has the same CPU count */
				break;
			}
			cpt = c.n;
			for (int k = 0; k < c.n; k++)
				outside += (size_t)c.cpu[k] >= nallowed || !allowed[c.cpu[k]];
			if (r + off == rank)
				*cpus = c;
			on[non].cpu = c.cpu[0];
			on[non++].rank = r + off;
		}
		if (rc)
			break;
	}
	if (rc < 0 || r != ntasks) {
		free(on);
		return TM_MAP_BAD;
	}
	qsort(on, (size_t)non, sizeof(*on), cmp_fit);
	for (int64_t i = 0; i < non; i++)
		if (on[i].rank == rank)
			pos = i;
	free(on);
	if (pos < 0)
		return TM_MAP_MISMATCH; /* the map does not put the rank there */
	if (!outside)
		return 0;
	int64_t seen = 0, room = 0;
	for (size_t i = 0; i < nallowed; i++)
		room += allowed[i] != 0;
	if (room < non * cpt)
		return TM_MAP_MISMATCH;
	/* the pos-th group of cpt allowed CPUs */
	cpus->n = 0;
	for (size_t i = 0; i < nallowed && cpus->n < cpt; i++)
		if (allowed[i] && seen++ >= pos * cpt)
			cpus->cpu[cpus->n++] = (int)i;
	return cpus->n == cpt ? 1 : TM_MAP_MISMATCH;
}

int tm_cpu_bind_chooses(const char *value)
{
	static const char *const verbosity[] = { "quiet", "q", "verbose", "v", "" };
	const char *s = value ? value : "";
	while (*s) {
		size_t len = strcspn(s, ",");
		int only_verbosity = 0;
		for (size_t k = 0; k < sizeof(verbosity) / sizeof(*verbosity); k++)
			if (strlen(verbosity[k]) == len && !strncasecmp(s, verbosity[k], len))
				only_verbosity = 1;
		if (!only_verbosity)
			return 1;
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Whether comma-separated `opts` (up to its first blank) has `word`. */
static int has_option(const char *opts, const char *word)
{
	size_t wl = strlen(word);
	for (const char *s = opts; *s && *s != ' ' && *s != '\n';) {
		size_t len = strcspn(s, ", \n");
		if (len == wl && !strncmp(s, word, wl))
			return 1;
		s += len + (s[len] == ',');
	}
	return 0;
}

int tm_cpuset_file(const char *mountinfo, const char *cg, char *path, size_t len)
{
	char best[2][4096] = { "", "" }; /* [0] v1 cpuset, [1] v2 */
	size_t cglen = strcspn(cg, "\n");
	for (const char *line = mountinfo; line && *line;) {
		const char *end = strchr(line, '\n');
		char root[4096], mnt[4096], type[64];
		const char *dash = strstr(line, " - ");
		/* id parent major:minor root mountpoint options ... - type source super */
		if (dash && (!end || dash < end) &&
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 &&
		    sscanf(dash + 3, "%63s", type) == 1) {
			int v = !strcmp(type, "cgroup2")	? 1
				: !strcmp(type, "cgroup") ? 0
							  : -1;
			const char *super = dash + 3;
			for (int f = 0; f < 2 && super; f++) /* past type and source */
				super = strchr(super + 1, ' ');
			size_t rl = strcmp(root, "/") ? strlen(root) : 0;
			size_t sl = cglen - rl; /* the cgroup below the mount's root */
			if (sl == 1 && cg[rl] == '/')
				sl = 0;
			if (v >= 0 && (v == 1 || (super && has_option(super + 1, "cpuset"))) &&
			    !best[v][0] && !strncmp(cg, root, rl) && (cg[rl] == '/' || rl == cglen) &&
			    snprintf(best[v], sizeof(best[v]), "%s%.*s/%s", mnt, (int)sl, cg + rl,
				     v ? "cpuset.cpus.effective" : "cpuset.cpus") >=
				    (int)sizeof(best[v]))
				return -1;
		}
		line = end ? end + 1 : NULL;
	}
	const char *f = best[0][0] ? best[0] : best[1];
	if (!f[0] || strlen(f) >= len)
		return -1;
	strcpy(path, f);
	return 0;
}

/* ------------------------------------------------------------------ */

/* CPUs of each node from "16(x4),8" (SLURM_JOB_CPUS_PER_NODE); 0 or -1
 * when malformed or not exactly nnodes nodes. */
static int parse_cpus(const char *s, int64_t nnodes, int64_t *cpus)
{
	int64_t n = 0;
	while (s && *s) {
		/* Slurm keeps CPUs per node in 16 bits */
		int64_t c = decimal(&s, 65535), reps = 1;
		if (c < 1)
			return -1;
		if (*s == '(') {
			s++;
			if (*s++ != 'x' || (reps = decimal(&s, nnodes)) < 1 || *s++ != ')')
				return -1;
		}
		if (reps > nnodes - n)
			return -1;
		for (int64_t i = 0; i < reps; i++)
			cpus[n++] = c;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	return s && n == nnodes ? 0 : -1;
}

int tm_block_counts(const char *cpus_per_node, int64_t nnodes, int64_t ntasks,
		    int64_t cpus_per_task, int64_t max_per_node, int64_t *count)
{
	if (nnodes < 1 || ntasks < 0 || cpus_per_task < 1)
		return -1;
	int64_t *cpus = malloc((size_t)nnodes * sizeof(*cpus));
	int64_t *active = malloc((size_t)nnodes * sizeof(*active)), nactive = 0, t = 0;
	if (!cpus || !active || parse_cpus(cpus_per_node, nnodes, cpus)) {
		free(cpus);
		free(active);
		return -1;
	}
	for (int64_t i = 0; i < nnodes; i++) {
		cpus[i] /= cpus_per_task; /* from here on: room in tasks */
		if (cpus[i] < 1)
			cpus[i] = 1;
		if (max_per_node > 0 && cpus[i] > max_per_node)
			cpus[i] = max_per_node;
		count[i] = 0;
		active[nactive++] = i;
	}
	/* Slurm's rounds: in round j, every node with more than j CPUs gets a
	 * task, in node order; `active` keeps those nodes, so that the rounds
	 * cost what they place */
	for (int64_t j = 0; t < ntasks && nactive; j++) {
		int64_t next = 0;
		for (int64_t a = 0; a < nactive && t < ntasks; a++, t++) {
			int64_t i = active[a];
			count[i]++;
			if (j + 1 < cpus[i])
				active[next++] = i;
		}
		nactive = next;
	}
	/* once a round leaves no CPU free, every round gives every node one */
	for (int64_t i = 0, rest = ntasks - t; i < nnodes; i++)
		count[i] += rest / nnodes + (i < rest % nnodes);
	free(cpus);
	free(active);
	return 0;
}

int tm_dist_is_default(const char *dist)
{
	if (!dist || !*dist)
		return 1;
	size_t len = strcspn(dist, ":,");
	if (!((len == 5 && !strncasecmp(dist, "block", 5)) || (len == 1 && *dist == '*')))
		return 0;
	for (const char *f = strchr(dist, ','); f; f = strchr(f + 1, ','))
		if (!strncasecmp(f + 1, "pack", 4) && (!f[5] || f[5] == ','))
			return 0;
	return 1;
}

int tm_conf_pack_nodes(const char *slurm_conf)
{
	static const char key[] = "selecttypeparameters=";
	FILE *f = fopen(slurm_conf, "r");
	char line[4096];
	int pack = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#\n")] = 0;
		for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w;
		     w = strtok_r(NULL, " \t\r", &save)) {
			if (strncasecmp(w, key, sizeof(key) - 1))
				continue;
			pack = 0; /* the last setting wins */
			char *save2 = NULL;
			for (char *v = strtok_r(w + sizeof(key) - 1, ",", &save2); v;
			     v = strtok_r(NULL, ",", &save2))
				pack |= !strcasecmp(v, "CR_Pack_Nodes");
		}
	}
	fclose(f);
	return pack;
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

int tm_cpulist_parse(const char *list, unsigned char *set, size_t n)
{
	const char *p = list;
	if (!p)
		return -1;
	memset(set, 0, n);
	while (*p) {
		int64_t lo = decimal(&p, MAX_CPU), hi = lo;
		if (lo >= 0 && *p == '-') {
			p++;
			hi = decimal(&p, MAX_CPU);
		}
		if (lo < 0 || hi < lo || (size_t)hi >= n || (*p && *p != ','))
			return -1;
		for (int64_t i = lo; i <= hi; i++)
			set[i] = 1;
		if (*p == ',' && !*++p)
			return -1; /* a trailing comma */
	}
	return 0;
}

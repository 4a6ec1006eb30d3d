/*
 * plugin_scale.c - select/topomatch's decision at the scale of a large
 * site (issue 18): the plugin's own code (plugin/select/tm_choose.c, the
 * functions select_topomatch.c's choose_nodes wrapper calls, compiled
 * from the same source) driven with Slurm's bitmaps, core arrays and
 * avail_res_t on generated clusters of 1,024 to 32,768 nodes, and timed.
 *
 * Per case (network, nodes, free fraction, pattern, tasks), over R
 * fragmentations of the free nodes, it prints p50 / p99 / max of
 *   first   a decision for a job not seen before (pattern decoded, free
 *           PUs collected and hashed, mapped, compared with the stand-in
 *           for cons_tres' own choice: all the work of a job test);
 *   hit     the same job test again (the cache);
 *   change  the same job after a job started elsewhere (a free node far
 *           from the job taken): its node choice stands, checked on the
 *           candidates' CPU counts and its own nodes, not mapped again;
 *           jobs whose first decision kept cons_tres' choice are not
 *           counted (they are decided again);
 * how many first decisions kept cons_tres' choice (over budget or
 * failed), the hop-bytes of the decision against the unbudgeted mapper
 * on the same free PUs, and the bytes a pending job carries in
 * slurmctld (its spank_job_env pattern).  Targets (issue 18) are marked
 * PASS or FAIL: first decisions within the budget at p99, none falling
 * back, for 1,024 tasks on 10,240 nodes (50 ms) and 4,096 tasks on 32,768
 * nodes (200 ms), "(target)"; elsewhere the first decisions are measured
 * for the sizing table ("first:--"); every case: cache hits and
 * decisions after a change <= 1 ms at p99, hop-bytes within 5 % of the
 * unbudgeted mapper.  Exit status 1 when
 * a target fails.
 *
 * cons_tres itself is not linked (it needs slurmctld's node and partition
 * tables): its choose_nodes is replaced by a stand-in that takes the
 * candidate nodes in index order, as cons_tres does without topology or
 * node weights.  Its own time is Slurm's, not the plugin's.
 *
 * Usage: plugin_scale [--quick] [--reps R] [--net NAME] [--nodes N]
 *                     [--free PCT] [--tasks N] [--pattern NAME] [--budget MS]
 *                     [--scotch] [--loss KIB]
 * --loss KIB prints instead the hop-bytes a pattern loses when sbatch
 * reduces it to PatternKiB=KIB (run_loss).  The jobs carry their patterns
 * as sbatch stores them under the plugin's default PatternKiB.
 * Progress goes to stderr, the table to stdout.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Slurm's config.h (found first through -iquote SLURM_SOURCE_DIR). */
#include "config.h"

#include "tm_slurm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_choose.h"

/* slurmctld's statistics (the cycle counters the budget follows), the
 * plugin's name (Slurm's log macros print it) and cons_common's globals
 * its core arrays read: what slurmctld and the plugin define there.
 * cons_tres' core arrays hold one bitmap per node (is_cons_tres). */
diag_stats_t slurmctld_diag_stats;
const char plugin_type[] = "select/topomatch";
int core_array_size;
bool is_cons_tres = true;

#define CORES 16   /* per node: 2 sockets x 8 cores, 1 PU each */
#define SOCKETS 2
#define MAX_REPS 200

/* -------------------------------------------------------------- clusters */

typedef struct {
	char *yaml;
	size_t len;
} text_t;

static void put(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_t *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	t->yaml = realloc(t->yaml, t->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(t->yaml + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/*
 * The networks of the issue: a 3-level fat tree, a 3D torus, a dragonfly
 * and a general graph (switches of 16 nodes, each linked to the next two
 * and to 4 pseudo-random others: a random regular-like core, as
 * Jellyfish-style networks are).  Nodes of 2 x 8 cores.
 */
static topomatch_cluster_t *make_cluster(const char *net, int nodes)
{
	text_t t = { 0 };
	char err[TOPOMATCH_ERRLEN];
	put(&t, "cluster: %s%d\nnodes:\n  - names: n[00000-%05d]\n"
		"    hardware: \"pack:%d core:%d pu:1\"\nnetwork:\n", net, nodes, nodes - 1, SOCKETS,
	    CORES / SOCKETS);
	if (!strcmp(net, "fattree")) {
		int top = nodes / 1024, mid = nodes == 1024 ? 16 : 32, leaf = nodes / top / mid;
		if (nodes == 1024)
			top = 4, leaf = 16;
		put(&t, "  type: fattree\n  levels:\n    - {arity: %d, cost: 10}\n"
			"    - {arity: %d, cost: 10}\n    - {arity: %d, cost: 10}\n", top, mid, leaf);
	} else if (!strcmp(net, "torus")) {
		const char *d = nodes == 1024 ? "[8, 8, 16]" : nodes == 10240 ? "[16, 20, 32]"
								 : "[32, 32, 32]";
		put(&t, "  type: torus\n  dims: %s\n  wrap: true\n  nodes_per_router: 1\n", d);
	} else if (!strcmp(net, "dragonfly")) {
		int g = nodes == 1024 ? 16 : nodes == 10240 ? 40 : 64;
		int a = nodes == 1024 ? 16 : nodes == 10240 ? 32 : 64;
		put(&t, "  type: dragonfly\n  groups: %d\n  routers_per_group: %d\n"
			"  nodes_per_router: %d\n  global_links_per_router: 2\n  local_cost: 1\n"
			"  global_cost: 2\n", g, a, nodes / (g * a));
	} else {
		int sw = nodes / 16;
		put(&t, "  type: graph\n  switches: s[0000-%04d]\n  links:\n", sw - 1);
		uint64_t x = 12345;
		for (int s = 0; s < sw; s++) {
			put(&t, "    - [s%04d, s%04d]\n", s, (s + 1) % sw);
			for (int k = 0; k < 2; k++) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				int o = (int)((x >> 33) % (uint64_t)sw);
				if (o != s)
					put(&t, "    - [s%04d, s%04d]\n", s, o);
			}
		}
		put(&t, "  attach:\n");
		for (int s = 0; s < sw; s++)
			put(&t, "    - {switch: s%04d, nodes: \"n[%05d-%05d]\"}\n", s, 16 * s,
			    16 * s + 15);
	}
	topomatch_cluster_t *c = NULL;
	double t0 = tm_now_ms();
	if (topomatch_cluster_load_buffer(t.yaml, t.len, net, NULL, &c, err) ||
	    topomatch_cluster_precompute(c, err)) { /* as slurmctld at load */
		fprintf(stderr, "plugin_scale: %s %d: %s\n", net, nodes, err);
		exit(1);
	}
	fprintf(stderr, "plugin_scale: %s, %d nodes: loaded and precomputed in %.0f ms\n", net,
		nodes, tm_now_ms() - t0);
	free(t.yaml);
	return c;
}

/* ------------------------------------------------------- Slurm's tables */

/* Slurm's node table for the cluster's nodes, in the cluster's order. */
static void make_node_table(const topomatch_cluster_t *c)
{
	int n = (int)topomatch_cluster_nnodes(c);
	node_record_count = core_array_size = n;
	node_record_table_ptr = xcalloc(n, sizeof(node_record_t *));
	for (int i = 0; i < n; i++) {
		char name[64];
		topomatch_cluster_node_name(c, i, name, sizeof(name));
		node_record_t *nr = xcalloc(1, sizeof(*nr));
		nr->name = xstrdup(name);
		nr->index = i;
		nr->tot_cores = CORES;
		nr->tot_sockets = SOCKETS;
		nr->cores = CORES / SOCKETS;
		nr->threads = 1;
		nr->cpus = CORES;
		node_record_table_ptr[i] = nr;
	}
}

static void free_node_table(void)
{
	for (int i = 0; i < node_record_count; i++) {
		xfree(node_record_table_ptr[i]->name);
		xfree(node_record_table_ptr[i]);
	}
	xfree(node_record_table_ptr);
	node_record_count = 0;
}

/*
 * One state of the cluster as cons_tres hands it to choose_nodes: the
 * candidate nodes (those with a free core), their free cores and what
 * each can give the job.  free_cores[i]: a bitmask of node i's free cores.
 */
typedef struct {
	bitstr_t *node_map;
	bitstr_t **avail_core;
	avail_res_t **avail_res;
} state_t;

static void state_build(state_t *s, const uint32_t *free_cores)
{
	int n = node_record_count;
	s->node_map = bit_alloc(n);
	s->avail_core = xcalloc(n, sizeof(bitstr_t *));
	s->avail_res = xcalloc(n, sizeof(avail_res_t *));
	for (int i = 0; i < n; i++) {
		if (!free_cores[i])
			continue;
		bit_set(s->node_map, i);
		s->avail_core[i] = bit_alloc(CORES);
		avail_res_t *r = xcalloc(1, sizeof(*r));
		r->sock_cnt = SOCKETS;
		r->avail_cores_per_sock = xcalloc(SOCKETS, sizeof(uint16_t));
		r->tpc = 1;
		for (int k = 0; k < CORES; k++) {
			if (!(free_cores[i] >> k & 1))
				continue;
			bit_set(s->avail_core[i], k);
			r->avail_cores_per_sock[k / (CORES / SOCKETS)]++;
			r->avail_cpus++;
		}
		r->avail_res_cnt = r->max_cpus = r->avail_cpus;
		s->avail_res[i] = r;
	}
}

static void state_free(state_t *s)
{
	for (int i = 0; i < node_record_count; i++) {
		if (s->avail_res[i])
			xfree(s->avail_res[i]->avail_cores_per_sock);
		xfree(s->avail_res[i]);
	}
	xfree(s->avail_res);
	free_core_array(&s->avail_core);
	FREE_NULL_BITMAP(s->node_map);
}

/*
 * The stand-in for cons_tres' choose_nodes: the candidate nodes in index
 * order until the job's CPUs are met (cons_tres' order without topology
 * or node weights); node_map keeps the chosen ones.
 */
static int stand_in_choose(job_record_t *job, bitstr_t *node_map, bitstr_t **avail_core,
			   uint32_t min_nodes, uint32_t max_nodes, uint32_t req_nodes,
			   avail_res_t **avail_res, uint16_t cr_type, bool prefer_alloc_nodes,
			   gres_mc_data_t *tres_mc)
{
	(void)avail_core, (void)max_nodes, (void)req_nodes, (void)cr_type;
	(void)prefer_alloc_nodes, (void)tres_mc;
	int64_t want = (int64_t)job->details->num_tasks, got = 0;
	uint32_t nodes = 0;
	for (int i = 0; i < node_record_count; i++) {
		if (!bit_test(node_map, i))
			continue;
		if (got >= want && nodes >= min_nodes) {
			bit_clear(node_map, i);
			continue;
		}
		got += avail_res[i] ? avail_res[i]->avail_cpus : 0;
		nodes++;
	}
	return got >= want ? SLURM_SUCCESS : SLURM_ERROR;
}

/* --------------------------------------------------------------- patterns */

static topomatch_affinity_t *make_pattern(const char *name, int tasks)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a = NULL, *s = NULL;
	int dims[3] = { 4, 4, 4 };
	if (tasks == 1024)
		dims[0] = 16, dims[1] = 8, dims[2] = 8;
	else if (tasks == 4096)
		dims[0] = dims[1] = dims[2] = 16;
	else if (tasks == 32768)
		dims[0] = dims[1] = dims[2] = 32;
	const double w[3] = { 1000, 500, 100 };
	int rc;
	if (!strcmp(name, "alltoall")) {
		rc = topomatch_gen_alltoall(tasks, 1, 0, &a, err);
	} else if (!strcmp(name, "stencil27")) { /* 3D 27-point, shuffled */
		rc = topomatch_gen_stencil(3, dims, 27, 0, w, &s, err);
		if (!rc)
			rc = topomatch_affinity_shuffle(s, 1, &a, err);
	} else if (!strcmp(name, "profile")) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/lammps-melt-%d.sum.mat", TM_BENCH_PROFILES_DIR,
			 tasks);
		rc = topomatch_affinity_read_file(path, TOPOMATCH_FORMAT_AUTO, NULL, &a, err);
	} else {
		rc = topomatch_gen_stencil(3, dims, 7, 0, w, &s, err);
		if (!rc && !strcmp(name, "stencil"))
			rc = topomatch_affinity_shuffle(s, 1, &a, err);
		else if (!rc) {
			a = s;
			s = NULL;
		}
	}
	topomatch_affinity_destroy(s);
	if (rc) {
		fprintf(stderr, "plugin_scale: pattern %s of %d tasks: %s\n", name, tasks, err);
		return NULL;
	}
	return a;
}

/* A pending job with the pattern in its spank_job_env, as sbatch leaves
 * it under pc (tm_plugin_encode_limits: PatternKiB, and the pairs
 * slurmctld decodes within JobBudgetMs); info may be NULL. */
static job_record_t *make_job(uint32_t id, const topomatch_affinity_t *a,
			      const tm_plugin_conf_t *pc, size_t *bytes, topomatch_blob_info_t *info)
{
	char err[TOPOMATCH_ERRLEN], **entries = NULL;
	int n = 0;
	topomatch_blob_info_t own;
	topomatch_blob_limits_t lim = tm_plugin_encode_limits(pc);
	if (topomatch_blob_encode(a, TM_PLUGIN_SPARSE_FACTOR, &lim, &entries, &n,
				  info ? info : &own, err)) {
		fprintf(stderr, "plugin_scale: %s\n", err);
		exit(1);
	}
	job_record_t *job = xcalloc(1, sizeof(*job));
	job->job_id = id;
	job->details = xcalloc(1, sizeof(*job->details));
	job->details->num_tasks = (uint32_t)topomatch_affinity_ntasks(a);
	job->details->cpus_per_task = 1;
	job->spank_job_env = xcalloc(n + 1, sizeof(char *));
	*bytes = 0;
	for (int k = 0; k < n; k++) {
		job->spank_job_env[k] = xstrdup_printf("%s%d=%s", TOPOMATCH_PATTERN_ENV, k,
						       entries[k]);
		*bytes += strlen(job->spank_job_env[k]) + 1;
	}
	job->spank_job_env_size = n;
	topomatch_blob_free(entries, n);
	return job;
}

static void free_job(job_record_t *job);

/* a as a job carries it under pc, decoded as slurmctld decodes it, or
 * NULL */
static topomatch_affinity_t *stored_pattern(const topomatch_affinity_t *a,
					    const tm_plugin_conf_t *pc)
{
	char err[TOPOMATCH_ERRLEN];
	size_t bytes;
	topomatch_affinity_t *out = NULL;
	job_record_t *job = make_job(0, a, pc, &bytes, NULL);
	topomatch_blob_limits_t lim = tm_plugin_decode_limits(pc, topomatch_affinity_ntasks(a));
	if (topomatch_blob_decode_env((const char *const *)job->spank_job_env,
				      job->spank_job_env_size, NULL, &lim, &out, NULL, err))
		fprintf(stderr, "plugin_scale: %s\n", err);
	free_job(job);
	return out;
}

static void free_job(job_record_t *job)
{
	for (uint32_t k = 0; k < job->spank_job_env_size; k++)
		xfree(job->spank_job_env[k]);
	xfree(job->spank_job_env);
	xfree(job->details);
	xfree(job->system_comment);
	xfree(job);
}

/* ------------------------------------------------------------------ runs */

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

typedef struct {
	double v[MAX_REPS];
	int n;
} series_t;

static double pct(series_t *s, double p)
{
	if (!s->n)
		return NAN;
	qsort(s->v, (size_t)s->n, sizeof(double), cmp_d);
	int k = (int)ceil(p * s->n) - 1;
	return s->v[k < 0 ? 0 : k];
}

/* Fragmented free nodes: each node free with probability frac, a quarter
 * of those with only some of their cores free. */
static void fragment(uint32_t *free_cores, int n, double frac, topomatch_rng_t *rng)
{
	for (int i = 0; i < n; i++) {
		free_cores[i] = 0;
		if (topomatch_rng_below(rng, 1000) >= (uint64_t)(frac * 1000))
			continue;
		free_cores[i] = (1u << CORES) - 1;
		if (topomatch_rng_below(rng, 4) == 0)
			free_cores[i] &= (uint32_t)topomatch_rng_below(rng, 1u << CORES) | 1u;
	}
}

/* The hop-bytes in the job's SystemComment ("...: H hop-bytes"), or -1. */
static double comment_hb(const job_record_t *job)
{
	const char *s = job->system_comment ? strstr(job->system_comment, " hop-bytes") : NULL;
	if (!s)
		return -1;
	const char *b = s;
	while (b > job->system_comment && b[-1] != ' ')
		b--;
	return strtod(b, NULL);
}

/* The hop-bytes of a mapped without a budget (mapper NULL: the job's,
 * auto) onto the free PUs, or with nar onto the first free PUs of the
 * nodes it chose, as many on each as it gives the job there (where srun
 * lays the ranks out). */
static double unbudgeted_hb(const topomatch_cluster_t *c, const topomatch_affinity_t *a,
			    const uint32_t *free_cores, const tm_narrowed_t *nar,
			    const char *mapper)
{
	int64_t npu = topomatch_cluster_npu(c), *allowed = malloc(sizeof(int64_t) * (size_t)npu);
	int64_t m = 0, n = topomatch_affinity_ntasks(a);
	for (int i = 0; i < node_record_count; i++) {
		int64_t cnt, first = topomatch_cluster_node_pus(c, i, &cnt), take = cnt;
		if (nar)
			take = bit_test(nar->nodes, i) ? nar->cpus[i] : 0;
		for (int k = 0; k < cnt && take > 0; k++)
			if (free_cores[i] >> k & 1) {
				allowed[m++] = first + k;
				take--;
			}
	}
	int64_t *pu = malloc(sizeof(int64_t) * (size_t)n), *tpu = malloc(sizeof(int64_t) * (size_t)n);
	topomatch_map_opts_t o;
	topomatch_map_opts_init(&o);
	o.allowed = allowed;
	o.nallowed = m;
	o.mapper = mapper;
	topomatch_map_result_t res;
	topomatch_metrics_t met;
	char err[TOPOMATCH_ERRLEN];
	double hb = -1;
	if (m >= n && !topomatch_cluster_map(c, a, &o, pu, &res, err)) {
		for (int64_t k = 0; k < n; k++)
			tpu[k] = topomatch_cluster_pu_to_topology(c, pu[k]);
		if (!topomatch_metrics_compute(a, topomatch_cluster_topology(c), tpu, &met, err))
			hb = met.hop_bytes;
	}
	free(allowed);
	free(pu);
	free(tpu);
	return hb;
}

typedef struct {
	const char *net, *pattern;
	int nodes, tasks;
	double free_frac, budget_ms;
	bool target; /* the time target applies to its first decisions */
} bcase_t;

typedef struct {
	int reps;
	bool scotch; /* also the scotch mapper unbudgeted (slow on big graphs) */
	int64_t max_tasks; /* topomatch.conf's MaxTasks, 0: the default */
} bopts_t;

/* One job test; its time in ms.  keep: the narrowed set, when wanted
 * (the caller frees it). */
static double test_in_cycle(tm_chooser_t *ch, job_record_t *job, const uint32_t *free_cores,
			    int waiting_users, topomatch_narrow_t *how, tm_narrowed_t *keep)
{
	state_t s;
	tm_narrowed_t nar;
	state_build(&s, free_cores);
	tm_test_t t = { .ch = ch, .job = job, .node_map = s.node_map, .avail_core = s.avail_core,
			.avail_res = s.avail_res, .min_nodes = 1,
			.max_nodes = job->details->num_tasks, .req_nodes = 1, .cr_type = CR_CORE,
			.waiting_users = waiting_users, .caller = TM_CALLER_BACKFILL };
	double t0 = tm_now_ms();
	*how = topomatch_narrow(&t, &nar);
	double ms = tm_now_ms() - t0;
	if (*how == TOPOMATCH_NARROWED) /* what the wrapper then writes */
		tm_comment(job, nar.note);
	if (keep && *how == TOPOMATCH_NARROWED)
		*keep = nar;
	else
		tm_narrowed_free(&nar);
	state_free(&s);
	return ms;
}

/* A job test in the current cycle; true when it made a decision (mapped,
 * or over its own budget), false when it was refused one (a cycle's or a
 * user's budget used up, or a decision remembered). */
static bool test_decides(tm_chooser_t *ch, job_record_t *job, const uint32_t *free_cores,
			 int waiting_users, topomatch_narrow_t *how)
{
	unsigned long long computed = ch->computed;
	test_in_cycle(ch, job, free_cores, waiting_users, how, NULL);
	return ch->computed != computed;
}

static const char *decided_what(bool decided, topomatch_narrow_t how)
{
	return !decided ? "NOT decided" : how == TOPOMATCH_NARROWED ? "decided (mapped)" :
		"decided (over its own budget)";
}

/* one_decision: a job test in a scheduling cycle of its own */
static double one_decision(tm_chooser_t *ch, job_record_t *job, const uint32_t *free_cores,
			   topomatch_narrow_t *how, tm_narrowed_t *keep)
{
	slurmctld_diag_stats.bf_cycle_counter++;
	return test_in_cycle(ch, job, free_cores, 0, how, keep);
}

/* One job test that must (or must not) map again; 1 with a message when
 * it does not do as it must.  *ms (may be NULL): its time. */
static int expect_mapping(tm_chooser_t *ch, job_record_t *job, const uint32_t *free_cores,
			  bool must_map, const char *what, topomatch_narrow_t *how,
			  tm_narrowed_t *nar, double *ms)
{
	unsigned long long computed = ch->computed;
	double t = one_decision(ch, job, free_cores, how, nar);

	if (ms)
		*ms = t;
	if ((ch->computed != computed) == must_map)
		return 0;
	fprintf(stderr, "  job %u: %smapped again when %s\n", job->job_id, must_map ? "not " : "",
		what);
	return 1;
}

/*
 * 1 when a node choice does not stand as it should (0 otherwise), mine
 * being the job's choice: a free node taken by another job must leave it
 * as it is, not mapped again (that job test's time goes to change); a
 * node freed elsewhere must make it again; one of its nodes taken must
 * make it again, without that node.  free_cores is as it was after.
 */
static int stand_check(tm_chooser_t *ch, job_record_t *job, uint32_t *free_cores,
		       const tm_narrowed_t *mine, series_t *change)
{
	int n = node_record_count, other = -1, freed = -1, taken, bad;
	tm_narrowed_t nar = { 0 };
	topomatch_narrow_t how;
	double ms;

	/* the free node and the busy node farthest in index order, the free
	 * one not the job's */
	for (int i = n - 1; i >= 0 && (other < 0 || freed < 0); i--) {
		if (free_cores[i] && other < 0 && !bit_test(mine->nodes, i))
			other = i;
		if (!free_cores[i] && freed < 0)
			freed = i;
	}
	if (other < 0)
		return 0; /* nothing to take */
	uint32_t was = free_cores[other];
	free_cores[other] = 0;
	bad = expect_mapping(ch, job, free_cores, false, "a job took a node elsewhere", &how, &nar,
			     &ms);
	change->v[change->n++] = ms;
	if (!bad && (how != TOPOMATCH_NARROWED || !bit_equal(mine->nodes, nar.nodes) ||
		     memcmp(mine->cpus, nar.cpus, sizeof(*nar.cpus) * (size_t)n))) {
		fprintf(stderr, "  job %u: its node choice changed when a job took a node "
			"elsewhere\n", job->job_id);
		bad = 1;
	}
	if (how == TOPOMATCH_NARROWED)
		tm_narrowed_free(&nar);
	free_cores[other] = was;
	if (bad || freed < 0)
		return bad; /* or nothing to free */
	free_cores[freed] = (1u << CORES) - 1;
	bad = expect_mapping(ch, job, free_cores, true, "a node was freed elsewhere", &how, &nar,
			     NULL);
	free_cores[freed] = 0;
	if (bad || how != TOPOMATCH_NARROWED) {
		if (how == TOPOMATCH_NARROWED)
			tm_narrowed_free(&nar);
		return bad;
	}
	taken = (int)bit_ffs(nar.nodes);
	tm_narrowed_free(&nar);
	free_cores[freed] = (1u << CORES) - 1;
	was = free_cores[taken];
	free_cores[taken] = 0;
	bad = expect_mapping(ch, job, free_cores, true, "a node of its choice was taken", &how,
			     &nar, NULL);
	if (how == TOPOMATCH_NARROWED) {
		if (!bad && bit_test(nar.nodes, taken)) {
			fprintf(stderr, "  job %u: its node choice still has node %d, taken since\n",
				job->job_id, taken);
			bad = 1;
		}
		tm_narrowed_free(&nar);
	}
	free_cores[taken] = was;
	free_cores[freed] = 0;
	return bad;
}

/* The chooser's partitions forgotten (tm_chooser_load's memo, empty): a
 * first decision is timed as that of a pattern no decision has seen. */
static int memo_fresh(tm_chooser_t *ch)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_memo_destroy(ch->memo);
	return topomatch_memo_create(TM_MEMO_BYTES, &ch->memo, err) ? -1 : 0;
}

/* A chooser on cluster c with the default settings but the budgets; 0 or
 * -1 (out of memory).  chooser_fini leaves the cluster to the caller. */
static int chooser_init(tm_chooser_t *ch, topomatch_cluster_t *c, double job_ms, double cycle_ms)
{
	char err[TOPOMATCH_ERRLEN];
	*ch = (tm_chooser_t){ .mutex = PTHREAD_MUTEX_INITIALIZER, .cluster = c,
			      .cons_tres = stand_in_choose };
	tm_plugin_conf_read("/nonexistent/topomatch.conf", &ch->conf, err, sizeof(err));
	ch->conf.job_budget_ms = job_ms;
	ch->conf.cycle_budget_ms = cycle_ms;
	if (memo_fresh(ch))
		return -1;
	return tm_decision_cache_init(&ch->cache, TM_CACHE_DECISIONS);
}

static void chooser_fini(tm_chooser_t *ch)
{
	ch->cluster = NULL;
	tm_chooser_unload(ch);
	tm_decision_cache_fini(&ch->cache);
}

/*
 * The cycle's budget shared between users (tm_choose.c tm_compute,
 * tm_cycle_user_left; backfill's starts and RPCs: the main scheduler's
 * pass goes in priority order, its jobs beyond the budget wait for the
 * next pass, tests/slurm/placement.sh (f)): in one backfill cycle, user 1's pattern jobs
 * are tested, then user 2's one.  With two users waiting each has half
 * the cycle, so user 1's jobs are cut off at its half and user 2's job
 * still gets a decision; the next cycle, user 1's first job cut off gets
 * one (a cycle's refusal is not remembered).  The budgets follow this
 * machine's speed, so that the outcome does not depend on it: JobBudgetMs the
 * default, doubled until the job maps within it, and CycleBudgetMs 20
 * times a decision's time (a half holds about 10 of user 1's 60), at most
 * 1.6 windows of a cycle (a half within one).  1
 * with a message when not so.
 */
static int fair_check(topomatch_cluster_t *c)
{
	enum { JOBS = 60 };
	topomatch_affinity_t *a = make_pattern("stencil", 1024);
	tm_chooser_t ch;
	if (!a || chooser_init(&ch, c, 50, 1e9)) /* no cycle limit while calibrating */
		return 1;
	int n = node_record_count, mapped = 0, cut = -1, bad = 0;
	uint32_t *free_cores = xcalloc(n, sizeof(uint32_t));
	job_record_t *jobs[JOBS + 1];
	topomatch_narrow_t how, other, again = TOPOMATCH_KEEP;
	topomatch_rng_t rng;
	size_t bytes;
	series_t cal = { .n = 0 };

	topomatch_rng_seed(&rng, 7);
	fragment(free_cores, n, 0.3, &rng);
	/* the job budget at which this machine maps the job (the mapper does
	 * more with more time, so its time is measured at that budget) */
	uint32_t cal_id = 4000; /* a new job each time: over-budget ones are remembered */
	for (double job_ms = 50; cal.n < 3 && job_ms <= 12800; job_ms *= 2) {
		ch.conf.job_budget_ms = job_ms;
		for (cal.n = 0; cal.n < 3; cal.n++) {
			job_record_t *job = make_job(cal_id++, a, &ch.conf, &bytes, NULL);
			cal.v[cal.n] = one_decision(&ch, job, free_cores, &how, NULL);
			free_job(job);
			if (how != TOPOMATCH_NARROWED)
				break;
		}
	}
	double d = fmax(pct(&cal, 0.5), 0.1);
	/* a cycle's window lasts at most TM_CYCLE_MAX_AGE_MS: a user's half
	 * must end within it, or the window starts afresh before the cut
	 * (under ASan, 136 ms decisions and a 2.7 s cycle were never cut) */
	ch.conf.cycle_budget_ms = fmax(2 * ch.conf.job_budget_ms,
				       fmin(20 * d, 1.6 * TM_CYCLE_MAX_AGE_MS));
	slurmctld_diag_stats.bf_cycle_counter++;
	for (int k = 0; k < JOBS; k++) {
		jobs[k] = make_job(5000 + (uint32_t)k, a, &ch.conf, &bytes, NULL);
		jobs[k]->user_id = 1;
		test_in_cycle(&ch, jobs[k], free_cores, 2, &how, NULL);
		if (how == TOPOMATCH_NARROWED)
			mapped++;
		else if (cut < 0 && jobs[k]->system_comment &&
			 strstr(jobs[k]->system_comment, "user 1's share"))
			cut = k;
	}
	if (cut < 0) {
		fprintf(stderr, "  fair: user 1's %d jobs were never cut off at its share of the "
			"cycle\n", JOBS);
		bad = 1;
	}
	/* a decision, mapped or not (on a loaded machine a mapping may run
	 * past its own budget: not what is checked here) */
	jobs[JOBS] = make_job(5000 + JOBS, a, &ch.conf, &bytes, NULL);
	jobs[JOBS]->user_id = 2;
	bool decided = test_decides(&ch, jobs[JOBS], free_cores, 2, &other), again_decided = false;
	if (!decided) {
		fprintf(stderr, "  fair: user 2's job got no decision after user 1's: %s\n",
			jobs[JOBS]->system_comment ? jobs[JOBS]->system_comment : "(no note)");
		bad = 1;
	}
	if (cut >= 0) {
		slurmctld_diag_stats.bf_cycle_counter++;
		again_decided = test_decides(&ch, jobs[cut], free_cores, 2, &again);
		if (!again_decided) {
			fprintf(stderr, "  fair: user 1's job cut off got no decision the next "
				"cycle: %s\n", jobs[cut]->system_comment);
			bad = 1;
		}
	}
	printf("# fair share (fat tree, %d nodes, 30 %% free, 1,024-task stencils, a decision "
	       "%.1f ms, JobBudgetMs=%.0f, CycleBudgetMs=%.0f, 2 users): user 1 mapped %d of %d "
	       "jobs in the cycle, user 2's job %s, user 1's first job cut off %s the next cycle: "
	       "fair:%s\n", n, d, ch.conf.job_budget_ms, ch.conf.cycle_budget_ms, mapped, JOBS,
	       decided_what(decided, other), decided_what(again_decided, again),
	       bad ? "FAIL" : "PASS");
	fflush(stdout);
	for (int k = 0; k <= JOBS; k++)
		free_job(jobs[k]);
	xfree(free_cores);
	chooser_fini(&ch);
	topomatch_affinity_destroy(a);
	return bad;
}

static int run_case(const bcase_t *bc, topomatch_cluster_t *c, const bopts_t *opt)
{
	topomatch_affinity_t *a = make_pattern(bc->pattern, bc->tasks);
	if (!a)
		return 1;
	tm_chooser_t ch;
	if (chooser_init(&ch, c, bc->budget_ms, 10 * bc->budget_ms))
		return 1;
	if (opt->max_tasks > 0)
		ch.conf.max_tasks = opt->max_tasks;
	/* the pattern as the job carries it (reduced to PatternKiB), which
	 * SystemComment's hop-bytes are of: the unbudgeted mappers map it too */
	topomatch_affinity_t *stored = stored_pattern(a, &ch.conf);
	if (!stored)
		return 1;
	int n = node_record_count;
	uint32_t *free_cores = xcalloc(n, sizeof(uint32_t));
	series_t first = { .n = 0 }, hit = { .n = 0 }, change = { .n = 0 };
	double ratio_max = 0, ratio_sc = 0, hb_sum = 0;
	int kept = 0, cons = 0, ratios = 0, sc_n = 0, unstable = 0;
	size_t bytes = 0;
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 42);
	for (int r = 0; r < opt->reps; r++) {
		topomatch_narrow_t how;
		fragment(free_cores, n, bc->free_frac, &rng);
		job_record_t *job = make_job(1000 + (uint32_t)r, a, &ch.conf, &bytes, NULL);
		if (memo_fresh(&ch))
			return 1;
		first.v[first.n++] = one_decision(&ch, job, free_cores, &how, NULL);
		double hb = comment_hb(job);
		/* cons_tres' nodes may win on hop-bytes (the job then runs
		 * there, its ranks mapped): a decision, not a fallback */
		bool by_cons = how != TOPOMATCH_NARROWED && job->system_comment &&
			       strstr(job->system_comment, "cons_tres chooses");
		cons += by_cons;
		if (how != TOPOMATCH_NARROWED && !by_cons) {
			kept++;
			if (kept == 1)
				fprintf(stderr, "  kept cons_tres' choice: %s\n",
					job->system_comment ? job->system_comment : "(no note)");
		} else if (hb >= 0 && r < 3) {
			/* the decision's quality, on the first fragmentations */
			double ub = unbudgeted_hb(c, stored, free_cores, NULL, NULL);
			if (ub > 0) {
				ratio_max = fmax(ratio_max, hb / ub);
				ratios++;
			}
			if (opt->scotch) {
				double sc = unbudgeted_hb(c, stored, free_cores, NULL, "scotch");
				if (sc > 0) {
					ratio_sc += hb / sc;
					sc_n++;
				}
			}
			hb_sum += hb;
		}
		if (getenv("PLUGIN_SCALE_VERBOSE"))
			fprintf(stderr, "  rep %d: first %.2f ms (%s) %s\n", r, first.v[first.n - 1],
				how == TOPOMATCH_NARROWED ? "narrowed" : "kept",
				job->system_comment ? job->system_comment : "");
		bool narrowed = how == TOPOMATCH_NARROWED;
		tm_narrowed_t mine = { 0 };
		hit.v[hit.n++] = one_decision(&ch, job, free_cores, &how, narrowed ? &mine : NULL);
		if (narrowed) { /* (cons_tres' choice is made again, its time in `first`) */
			unstable += stand_check(&ch, job, free_cores, &mine, &change);
			tm_narrowed_free(&mine);
		}
		free_job(job);
	}
	double f99 = pct(&first, 0.99), h99 = pct(&hit, 0.99);
	bool ok_first = f99 <= bc->budget_ms && kept == 0;
	/* a decision that stands: within 1 ms, also after a job started
	 * elsewhere */
	bool ok_hit = h99 <= 1.0 && (!change.n || pct(&change, 0.99) <= 1.0);
	bool ok_stand = unstable == 0;
	/* against the unbudgeted decision; a job mapped node by node at this
	 * budget (tm_by_blocks) is compared with one mapped task by task,
	 * shown but not held to it: the blocks' price, not the budget's */
	bool blocks = tm_by_blocks(&ch, bc->tasks);
	bool ok_hb = ratios == 0 || ratio_max <= 1.05 || blocks;
	printf("%-9s %6d %3.0f%% %-9s %5d %5.0f | %7.2f %7.2f %7.2f | %6.3f %6.3f | %7.2f %7.2f |"
	       " %3d %3d/%-3d | %6.3f %6s | %6.1f | %s%s%s%s%s\n",
	       bc->net, bc->nodes, bc->free_frac * 100, bc->pattern, bc->tasks, bc->budget_ms,
	       pct(&first, 0.5), f99, pct(&first, 1.0), pct(&hit, 0.5), h99,
	       pct(&change, 0.5), pct(&change, 0.99), cons, kept, opt->reps,
	       ratios ? ratio_max : NAN, sc_n ? "" : "-", (double)bytes / 1024.0,
	       !bc->target ? "first:--  " : ok_first ? "first:PASS" : "first:FAIL",
	       ok_hit ? " hit:PASS" : " hit:FAIL",
	       blocks ? " hb:--  " : ok_hb ? " hb:PASS" : " hb:FAIL",
	       ok_stand ? " stand:PASS" : " stand:FAIL", bc->target ? " (target)" : "");
	if (sc_n)
		printf("%-9s %6s      %-9s       mean hop-bytes / scotch's (unbudgeted, same free "
		       "PUs): %.3f\n", "", "", "", ratio_sc / sc_n);
	fflush(stdout);
	(void)hb_sum;
	xfree(free_cores);
	chooser_fini(&ch);
	topomatch_affinity_destroy(stored);
	topomatch_affinity_destroy(a);
	return !((ok_first || !bc->target) && ok_hit && ok_hb && ok_stand);
}

/* The nodes stand_in_choose gives a job of ntasks one-CPU tasks, and the
 * CPUs it uses on each. */
static void stand_in_nodes(const uint32_t *free_cores, int64_t ntasks, tm_narrowed_t *nar)
{
	nar->nodes = bit_alloc(node_record_count);
	nar->cpus = xcalloc(node_record_count, sizeof(uint16_t));
	for (int i = 0; i < node_record_count && ntasks > 0; i++) {
		int64_t k = MIN(ntasks, __builtin_popcount(free_cores[i]));
		if (k > 0) {
			bit_set(nar->nodes, i);
			nar->cpus[i] = (uint16_t)k;
			ntasks -= k;
		}
	}
}

/*
 * The hop-bytes a pattern loses when sbatch reduces it to PatternKiB=kib
 * (issue 18, point 3): on each fragmentation the node choice is made with
 * the pattern as sbatch stores it under that cap, then with all of it
 * (512 KiB, the decoder's limit), both without a time limit, and on each
 * choice the whole pattern's ranks are laid out as srun lays them out
 * (from the user's file); the ratio of the two hop-bytes.  Target: <= 1.02
 * on stencils and recorded profiles, on the geometric mean over the
 * fragmentations (single ones go both ways: the mappers are heuristics).
 */
static int run_loss(const char *net, topomatch_cluster_t *c, const char *pat, int tasks, int kib,
		    int reps)
{
	topomatch_affinity_t *a = make_pattern(pat, tasks);
	if (!a)
		return 1;
	tm_chooser_t ch;
	if (chooser_init(&ch, c, 60000, 600000))
		return 1;
	ch.conf.pattern_kib = 512;
	uint32_t *free_cores = xcalloc(node_record_count, sizeof(uint32_t));
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 42);
	topomatch_blob_info_t info = { 0 };
	size_t full_bytes = 0, bytes = 0;
	double worst = 0, best = INFINITY, logs = 0;
	int n = 0, missed = 0;
	for (int r = 0; r < reps; r++) {
		double hb[2] = { -1, -1 };
		fragment(free_cores, node_record_count, 0.3, &rng);
		for (int f = 0; f < 2; f++) {
			/* the reduced form as sbatch stores it at a site that
			 * keeps the default JobBudgetMs (its pairs limit) */
			tm_plugin_conf_t pc = ch.conf;
			if (f)
				tm_plugin_conf_defaults(&pc);
			pc.pattern_kib = f ? kib : 512;
			job_record_t *job = make_job(2000 + 2 * (uint32_t)r + (uint32_t)f, a, &pc,
						     f ? &bytes : &full_bytes, f ? &info : NULL);
			tm_narrowed_t nar;
			topomatch_narrow_t how;
			one_decision(&ch, job, free_cores, &how, &nar);
			if (how != TOPOMATCH_NARROWED && job->system_comment &&
			    strstr(job->system_comment, "cons_tres chooses")) {
				/* the job runs on cons_tres' nodes: the stand-in's */
				how = TOPOMATCH_NARROWED;
				stand_in_nodes(free_cores, tasks, &nar);
			}
			if (how == TOPOMATCH_NARROWED) {
				hb[f] = unbudgeted_hb(c, a, free_cores, &nar, NULL);
				tm_narrowed_free(&nar);
			} else {
				fprintf(stderr, "  %s %d, %s pattern: %s\n", pat, tasks,
					f ? "reduced" : "whole",
					job->system_comment ? job->system_comment : "(no note)");
			}
			free_job(job);
		}
		if (hb[0] > 0 && hb[1] > 0) {
			worst = fmax(worst, hb[1] / hb[0]);
			best = fmin(best, hb[1] / hb[0]);
			logs += log(hb[1] / hb[0]);
			n++;
		} else {
			missed++;
		}
	}
	bool target = strcmp(pat, "alltoall") != 0;
	bool ok = n > 0 && !missed && exp(logs / n) <= 1.02;
	printf("%-9s %6d %-9s %5d | %7.1f %7.1f | %7lld/%-8lld %6.1f%% | %6.3f %6.3f %6.3f %2d/%-2d |"
	       " %s\n",
	       net, node_record_count, pat, tasks, full_bytes / 1024.0, bytes / 1024.0,
	       (long long)info.nnz_kept, (long long)info.nnz_input,
	       info.weight_input > 0 ? 100.0 * (1 - info.weight_kept / info.weight_input) : 0.0,
	       n ? exp(logs / n) : NAN, n ? best : NAN, n ? worst : NAN, n, reps,
	       !target ? "--" : ok ? "PASS" : "FAIL");
	fflush(stdout);
	xfree(free_cores);
	chooser_fini(&ch);
	topomatch_affinity_destroy(a);
	return target && !ok;
}

/* run_loss over the patterns, on each network of the given size */
static int loss_table(const char *const *nets, int nnets, const char *only_net, int nodes, int kib,
		      int reps)
{
	static const struct {
		const char *pat;
		int tasks;
	} cases[] = { { "stencil", 1024 },   { "stencil", 4096 }, { "natural", 4096 },
		      { "stencil27", 4096 }, { "profile", 64 },	  { "profile", 128 },
		      { "alltoall", 1024 }, { "natural", 32768 } };
	int fails = 0;
	printf("# hop-bytes of the node choice with the pattern as sbatch stores it under "
	       "PatternKiB=%d, / with all of it (ranks laid out with all of it on both; 30 %% "
	       "free, %d fragmentations, no time limit)\n", kib, reps);
	printf("%-9s %6s %-9s %5s | %-15s | %-24s | %-26s |\n", "network", "nodes", "pattern",
	       "tasks", "KiB all  capped", "pairs kept      dropped", "ratio geo  min    max   n");
	for (int ni = 0; ni < nnets; ni++) {
		if (only_net && strcmp(only_net, nets[ni]))
			continue;
		fprintf(stderr, "plugin_scale: %s, %d nodes...\n", nets[ni], nodes);
		topomatch_cluster_t *c = make_cluster(nets[ni], nodes);
		make_node_table(c);
		for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++)
			fails += run_loss(nets[ni], c, cases[k].pat, cases[k].tasks, kib, reps);
		free_node_table();
		topomatch_cluster_destroy(c);
	}
	printf("# %d case%s FAIL\n", fails, fails == 1 ? "" : "s");
	return fails ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: plugin_scale [--quick] [--reps R] [--net fattree|torus|dragonfly|graph]\n"
		"                    [--nodes N] [--free PCT] [--tasks N]\n"
		"                    [--pattern stencil|natural|alltoall|profile] [--budget MS]\n"
		"                    [--scotch] [--loss KIB] [--max-tasks N]\n");
}

int main(int argc, char **argv)
{
	const char *only_net = NULL, *only_pat = NULL;
	int only_nodes = 0, only_tasks = 0, quick = 0, loss = 0;
	double only_free = -1, budget = 50;
	bopts_t opt = { .reps = 20, .scotch = false };
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--scotch"))
			opt.scotch = true;
		else if (v && !strcmp(argv[i], "--reps"))
			opt.reps = atoi(argv[++i]);
		else if (v && !strcmp(argv[i], "--net"))
			only_net = argv[++i];
		else if (v && !strcmp(argv[i], "--nodes"))
			only_nodes = atoi(argv[++i]);
		else if (v && !strcmp(argv[i], "--free"))
			only_free = atof(argv[++i]) / 100;
		else if (v && !strcmp(argv[i], "--tasks"))
			only_tasks = atoi(argv[++i]);
		else if (v && !strcmp(argv[i], "--pattern"))
			only_pat = argv[++i];
		else if (v && !strcmp(argv[i], "--budget"))
			budget = atof(argv[++i]);
		else if (v && !strcmp(argv[i], "--loss"))
			loss = atoi(argv[++i]);
		else if (v && !strcmp(argv[i], "--max-tasks"))
			opt.max_tasks = atoll(argv[++i]);
		else {
			usage();
			return 2;
		}
	}
	if (opt.reps < 1 || opt.reps > MAX_REPS) {
		fprintf(stderr, "plugin_scale: --reps between 1 and %d\n", MAX_REPS);
		return 2;
	}
	log_options_t lo = LOG_OPTS_STDERR_ONLY;
	lo.stderr_level = LOG_LEVEL_ERROR;
	log_init("plugin_scale", lo, 0, NULL);
	const char *nets[] = { "fattree", "torus", "dragonfly", "graph" };
	const int sizes[] = { 1024, 10240, 32768 };
	if (loss) {
		if (loss < 1 || loss > 512) {
			fprintf(stderr, "plugin_scale: --loss between 1 and 512 KiB\n");
			return 2;
		}
		return loss_table(nets, 4, only_net, only_nodes ? only_nodes : 10240, loss,
				  MIN(opt.reps, 5));
	}
	const double fracs[] = { 0.1, 0.3, 0.6 };
	printf("# select/topomatch decisions (bench/plugin_scale.c): ms per job test, %d "
	       "fragmentations per case\n", opt.reps);
	printf("%-9s %6s %4s %-9s %5s %5s | %-23s | %-13s | %-15s | %-11s | %-13s | %-6s |\n",
	       "network", "nodes", "free", "pattern", "tasks", "budg", "first p50 p99 max",
	       "hit p50 p99", "change p50 p99", "cons kept", "hb/unbudg", "KiB");
	int fails = 0;
	for (size_t ni = 0; ni < sizeof(nets) / sizeof(*nets); ni++) {
		if (only_net && strcmp(only_net, nets[ni]))
			continue;
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			int nodes = sizes[si];
			if ((only_nodes && nodes != only_nodes) || (quick && nodes > 1024))
				continue;
			fprintf(stderr, "plugin_scale: %s, %d nodes...\n", nets[ni], nodes);
			topomatch_cluster_t *c = make_cluster(nets[ni], nodes);
			make_node_table(c);
			/* the grid: 1,024 tasks at every size and fraction;
			 * 4,096 tasks on 32,768 nodes with a 200 ms budget; 64 tasks
			 * and the other patterns at 10,240 nodes, 30 % free */
			for (size_t fi = 0; fi < sizeof(fracs) / sizeof(*fracs); fi++) {
				const char *pats[] = { "stencil", "natural", "alltoall", "profile" };
				const int tasks[] = { 64, 1024, 4096 };
				for (size_t pi = 0; pi < 4; pi++)
					for (size_t ti = 0; ti < 3; ti++) {
						bcase_t bc = { nets[ni], pats[pi], nodes, tasks[ti],
							       fracs[fi], budget, false };
						bool grid = !strcmp(pats[pi], "stencil") &&
							    tasks[ti] == 1024;
						bool big = tasks[ti] == 4096 && nodes == 32768 &&
							   !strcmp(pats[pi], "stencil") &&
							   fracs[fi] == 0.3;
						bool side = nodes == 10240 && fracs[fi] == 0.3 &&
							    !(pi == 0 && ti == 1) &&
							    !(pi == 3 && ti != 0) &&
							    !(pi == 2 && ti == 2);
						if (only_pat || only_tasks || only_free >= 0) {
							grid = (!only_pat || !strcmp(only_pat, pats[pi])) &&
							       (!only_tasks || only_tasks == tasks[ti]) &&
							       (only_free < 0 ||
								fabs(only_free - fracs[fi]) < 1e-9) &&
							       /* profiles recorded: 64 ranks */
							       !(pi == 3 && tasks[ti] != 64);
							big = side = false;
						}
						if (quick && !(grid && fracs[fi] == 0.3))
							continue;
						if (!grid && !big && !side)
							continue;
						if (big)
							bc.budget_ms = 200;
						bc.target = (nodes == 32768 && tasks[ti] == 4096 &&
							     fracs[fi] == 0.3 && bc.budget_ms == 200 &&
							     pi == 0) ||
							    (nodes == 10240 && tasks[ti] == 1024 &&
							     pi == 0 && bc.budget_ms == 50);
						fails += run_case(&bc, c, &opt);
					}
			}
			if (!strcmp(nets[ni], "fattree") && nodes == 1024 && !only_pat &&
			    !only_tasks && only_free < 0)
				fails += fair_check(c);
			free_node_table();
			topomatch_cluster_destroy(c);
		}
	}
	printf("# %d case%s FAIL\n", fails, fails == 1 ? "" : "s");
	return fails ? 1 : 0;
}

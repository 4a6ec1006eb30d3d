/*
 * cmd_sim.c - `topomatch sim`: replay a job stream on a described cluster
 * under several node-selection policies and compare them
 * (topomatch-sim(1); the simulator's modules are listed in sim.h).
 *
 * Policies are independent replays, so they run in parallel threads; the
 * results do not depend on the thread count.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"
#include "sim/sim.h"
#include "tm_plugin_conf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cmd_sim(int argc, char **argv);

#define SIM_STR(x) #x
#define SIM_XSTR(x) SIM_STR(x)

static const char help[] =
	"Usage: topomatch sim -t CLUSTER.yaml (--trace FILE | --generate N) [OPTIONS]\n"
	"Replay a job stream on a cluster with FCFS and EASY backfill (or Slurm's),\n"
	"once per node-selection policy, and compare waits, slowdowns and hop-bytes.\n"
	"\n"
	"  -t, --topology FILE     cluster description (topomatch.yaml(5))\n"
	"      --trace FILE        job trace in the Standard Workload Format\n"
	"                          (.swf, or gzip-compressed .swf.gz)\n"
	"      --generate N        a generated stream of N jobs instead of a trace\n"
	"      --load L            offered load of the generated stream (default 0.9)\n"
	"      --jobs N            the first N jobs that ran and fit the cluster\n"
	"                          (of the window; default: all)\n"
	"      --from SEC, --until SEC\n"
	"                          replay the jobs submitted in [FROM, UNTIL), in\n"
	"                          the trace's seconds (its submit field)\n"
	"      --skip N            the window starts after the first N jobs that\n"
	"                          ran and fit\n"
	"      --warmup SEC        jobs submitted in the SEC seconds before the\n"
	"                          window are replayed first and not counted\n"
	"                          (default 86400; 0: none)\n"
	"      --time-scale F      multiply the gaps between submissions by F\n"
	"                          (F < 1 raises the offered load; default 1)\n"
	"      --policy LIST       comma-separated, from slurm-linear, slurm-tree,\n"
	"                          topomatch, random (default: all four; slurm-tree\n"
	"                          only on tree networks)\n"
	"      --patterns MIX      pattern kinds and weights, e.g. stencil2d=2,random\n"
	"                          (kinds: stencil2d, stencil3d, alltoall, tree,\n"
	"                          random, none, file:PATH (jobs of its size),\n"
	"                          scaled:PATH (a stencil, rescaled to each job),\n"
	"                          profiles:DIR (every DIR/*.sum.mat), and\n"
	"                          shuffled:KIND (ranks in random order); default\n"
	"                          " SIM_DEFAULT_MIX ")\n"
	"      --model NAME        contention (default): the running jobs' traffic\n"
	"                          shares the links; hop-bytes: each job alone\n"
	"      --comm-share S      share of a job's run time spent communicating on\n"
	"                          the compact placement, 0 to 1 (default 0.2)\n"
	"      --sched NAME        easy (default): EASY backfill, the first queued job\n"
	"                          protected; slurm: Slurm's sched/backfill, the first\n"
	"                          --bf-max-job-test jobs planned and protected\n"
	"      --bf-max-job-test N with --sched slurm: queued jobs planned per pass\n"
	"                          (default 500, Slurm's)\n"
	"      --bf-window MIN     with --sched slurm: no reservation further ahead\n"
	"                          (default 1440, Slurm's)\n"
	"      --cores-per-node N  the trace's processors per node (default: the\n"
	"                          fewest cores of a node of the cluster)\n"
	"      --mapper NAME       topomatch policy's mapper (default auto)\n"
	"      --max-tasks N       topomatch: patterns of more tasks are mapped node by\n"
	"                          node, in at most N blocks of a node's worth of tasks,\n"
	"                          as topomatch.conf's MaxTasks (default 4096)\n"
	"      --pattern-kib N     topomatch: the KiB a job's pattern is stored in, as\n"
	"                          topomatch.conf's PatternKiB (1 to 512, default 48)\n"
	"      --contention-weight W  topomatch: weight of the load the job's traffic\n"
	"                          would meet on running jobs' links against its\n"
	"                          hop-bytes when node sets are compared (default\n"
	"                          " SIM_XSTR(TOPOMATCH_CONTENTION_WEIGHT) "; 0: hop-bytes only)\n"
	"      --comm-wait SEC     topomatch: each pattern job waits up to SEC for a\n"
	"                          placement within --comm-wait-ratio of its\n"
	"                          hop-bytes on the empty machine, as sbatch\n"
	"                          --comm-wait (default 0: none)\n"
	"      --comm-wait-ratio R topomatch.conf's CommWaitRatio (default 1.2)\n"
	"      --time-budget SEC   topomatch: wall-clock guard per mapping, as the\n"
	"                          plugin's (default none: results then depend only\n"
	"                          on the inputs)\n"
	"      --seed N            seed of the patterns and of the random policy\n"
	"                          (default 1)\n"
	"      --out PREFIX        write PREFIX-jobs.csv, PREFIX-summary.txt,\n"
	"                          PREFIX.json and the plots (PREFIX-*.png, .svg)\n"
	"      --no-plots          with --out: no plots\n"
	"      --dump-patterns DIR write each job's pattern to DIR/job-ID.mtx\n"
	"      --threads N         policies replayed in parallel, and a thread no\n"
	"                          replay has helps the topomatch one (default: CPUs)\n"
	"      --json              print only the JSON summary on stdout\n"
	"      --quiet             no progress line on stderr\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 bad input or failed run, 2 bad usage.\n"
	"See topomatch-sim(1).\n";

enum {
	S_TRACE = OPT_FIRST_PRIVATE,
	S_GENERATE,
	S_LOAD,
	S_JOBS,
	S_POLICY,
	S_PATTERNS,
	S_SHARE,
	S_CPN,
	S_NO_PLOTS,
	S_DUMP,
	S_THREADS,
	S_QUIET,
	S_MAX_TASKS,
	S_PATTERN_KIB,
	S_FROM,
	S_UNTIL,
	S_SKIP,
	S_WARMUP,
	S_SCALE,
	S_MODEL,
	S_CWEIGHT,
	S_CWAIT,
	S_CWAIT_RATIO,
	S_SCHED,
	S_BF_DEPTH,
	S_BF_WINDOW,
};

struct sim_args {
	const char *topo, *trace, *policies, *patterns, *out, *dump;
	int64_t generate, jobs, cpn, threads, bf_depth;
	double load, bf_window_min;
	bool slurm_sched, bf_given;
	sim_window_t win;
	bool json, no_plots, quiet;
	sim_config_t cfg;
};

static const struct option longopts[] = {
	{ "topology", required_argument, NULL, 't' },
	{ "trace", required_argument, NULL, S_TRACE },
	{ "generate", required_argument, NULL, S_GENERATE },
	{ "load", required_argument, NULL, S_LOAD },
	{ "jobs", required_argument, NULL, S_JOBS },
	{ "from", required_argument, NULL, S_FROM },
	{ "until", required_argument, NULL, S_UNTIL },
	{ "skip", required_argument, NULL, S_SKIP },
	{ "warmup", required_argument, NULL, S_WARMUP },
	{ "time-scale", required_argument, NULL, S_SCALE },
	{ "policy", required_argument, NULL, S_POLICY },
	{ "patterns", required_argument, NULL, S_PATTERNS },
	{ "comm-share", required_argument, NULL, S_SHARE },
	{ "model", required_argument, NULL, S_MODEL },
	{ "sched", required_argument, NULL, S_SCHED },
	{ "bf-max-job-test", required_argument, NULL, S_BF_DEPTH },
	{ "bf-window", required_argument, NULL, S_BF_WINDOW },
	{ "cores-per-node", required_argument, NULL, S_CPN },
	{ "mapper", required_argument, NULL, OPT_MAPPER },
	{ "max-tasks", required_argument, NULL, S_MAX_TASKS },
	{ "pattern-kib", required_argument, NULL, S_PATTERN_KIB },
	{ "contention-weight", required_argument, NULL, S_CWEIGHT },
	{ "comm-wait", required_argument, NULL, S_CWAIT },
	{ "comm-wait-ratio", required_argument, NULL, S_CWAIT_RATIO },
	{ "time-budget", required_argument, NULL, OPT_BUDGET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "no-plots", no_argument, NULL, S_NO_PLOTS },
	{ "dump-patterns", required_argument, NULL, S_DUMP },
	{ "threads", required_argument, NULL, S_THREADS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, S_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options with a number; false after the message. */
static bool number_opt(int c, const char *v, struct sim_args *a)
{
	switch (c) {
	case S_GENERATE: return cli_int64("sim", "--generate", v, 1, 100000000, &a->generate);
	case S_JOBS: return cli_int64("sim", "--jobs", v, 1, INT64_MAX, &a->jobs);
	case S_CPN: return cli_int64("sim", "--cores-per-node", v, 1, 1 << 20, &a->cpn);
	case S_THREADS: return cli_int64("sim", "--threads", v, 1, 1024, &a->threads);
	case S_MAX_TASKS:
		return cli_int64("sim", "--max-tasks", v, 1, TOPOMATCH_BLOB_MAX_TASKS,
				 &a->cfg.tm.max_tasks);
	case S_PATTERN_KIB:
		return cli_int64("sim", "--pattern-kib", v, 1, 512, &a->cfg.tm.pattern_kib);
	case S_LOAD: return cli_double("sim", "--load", v, 0.001, 100, &a->load);
	case S_BF_DEPTH:
		a->bf_given = true;
		return cli_int64("sim", "--bf-max-job-test", v, 1, 1000000, &a->bf_depth);
	case S_BF_WINDOW:
		a->bf_given = true;
		return cli_double("sim", "--bf-window", v, 1, 43200, &a->bf_window_min);
	case S_FROM:
		a->win.has_from = true;
		return cli_double("sim", "--from", v, 0, 1e12, &a->win.from);
	case S_UNTIL:
		a->win.has_until = true;
		return cli_double("sim", "--until", v, 0, 1e12, &a->win.until);
	case S_SKIP: return cli_int64("sim", "--skip", v, 0, INT64_MAX, &a->win.skip);
	case S_WARMUP: return cli_double("sim", "--warmup", v, 0, 1e12, &a->win.warmup);
	case S_SCALE: return cli_double("sim", "--time-scale", v, 1e-6, 1e6, &a->win.time_scale);
	case S_SHARE: return cli_double("sim", "--comm-share", v, 0, 1, &a->cfg.share);
	case S_CWEIGHT:
		return cli_double("sim", "--contention-weight", v, 0, 1e6,
				  &a->cfg.tm.contention_weight);
	case S_CWAIT: return cli_double("sim", "--comm-wait", v, 0, 31536000, &a->cfg.tm.comm_wait);
	case S_CWAIT_RATIO:
		return cli_double("sim", "--comm-wait-ratio", v, 1, 1000, &a->cfg.tm.comm_wait_ratio);
	case OPT_SEED: return cli_uint64("sim", "--seed", v, &a->cfg.seed);
	default:
		return cli_double("sim", "--time-budget", v, 0, 1e9, &a->cfg.tm.time_budget_s);
	}
}

static int one_opt(int c, const char *v, struct sim_args *a, char **argv)
{
	switch (c) {
	case 't': a->topo = v; break;
	case S_TRACE: a->trace = v; break;
	case S_POLICY: a->policies = v; break;
	case S_MODEL:
		if (!strcmp(v, "contention"))
			a->cfg.model = SIM_MODEL_CONTENTION;
		else if (!strcmp(v, "hop-bytes"))
			a->cfg.model = SIM_MODEL_HOP_BYTES;
		else
			return cli_usage_error("sim", "--model: unknown model '%s' (contention, "
					       "hop-bytes)", v);
		break;
	case S_SCHED:
		if (strcmp(v, "easy") && strcmp(v, "slurm"))
			return cli_usage_error("sim", "--sched: unknown scheduler '%s' (easy, slurm)",
					       v);
		a->slurm_sched = !strcmp(v, "slurm");
		break;
	case S_PATTERNS: a->patterns = v; break;
	case OPT_MAPPER: a->cfg.tm.mapper = v; break;
	case OPT_OUT: a->out = v; break;
	case S_DUMP: a->dump = v; break;
	case S_NO_PLOTS: a->no_plots = true; break;
	case OPT_JSON: a->json = true; break;
	case S_QUIET: a->quiet = true; break;
	case 'h': fputs(help, stdout); exit(CLI_OK);
	case ':': return cli_usage_error("sim", "option '%s' needs a value", argv[optind - 1]);
	case '?': return cli_usage_error("sim", "unknown option '%s'", argv[optind - 1]);
	default: return number_opt(c, v, a) ? CLI_OK : CLI_USAGE;
	}
	return CLI_OK;
}

static bool mapper_known(const char *name)
{
	for (const char *const *n = topomatch_mapper_names(); *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

static int check_args(const struct sim_args *a)
{
	if (!a->topo)
		return cli_usage_error("sim", "-t CLUSTER.yaml is needed");
	if (!a->trace == !a->generate)
		return cli_usage_error("sim", "give one job stream: --trace FILE or --generate N");
	if (a->cfg.tm.mapper && !mapper_known(a->cfg.tm.mapper))
		return cli_usage_error("sim", "--mapper: unknown mapper '%s'", a->cfg.tm.mapper);
	if (a->no_plots && !a->out)
		return cli_usage_error("sim", "--no-plots goes with --out PREFIX");
	if (!a->slurm_sched && a->bf_given)
		return cli_usage_error("sim", "--bf-max-job-test and --bf-window go with "
				       "--sched slurm");
	if (!a->trace && (a->win.has_from || a->win.has_until || a->win.skip))
		return cli_usage_error("sim", "--from, --until and --skip choose a part of a --trace");
	if (a->win.has_from && a->win.has_until && a->win.until <= a->win.from)
		return cli_usage_error("sim", "--until %g is not after --from %g: an empty window",
				       a->win.until, a->win.from);
	return CLI_OK;
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:h", longopts, NULL)) != -1) {
		int rc = one_opt(c, optarg, a, argv);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument '%s'", argv[optind]);
	return check_args(a);
}

/* ------------------------------------------------------------- setup */

struct sim_world {
	topomatch_cluster_t *cl;
	sim_machine_t m;
	sim_mix_t mix;
	sim_stream_t s;
	int policy[SIM_NPOLICIES], npol;
};

static void world_free(struct sim_world *w)
{
	sim_stream_free(&w->s);
	sim_mix_free(&w->mix);
	sim_machine_free(&w->m);
	topomatch_cluster_destroy(w->cl);
}

static int policies(const struct sim_args *a, struct sim_world *w)
{
	char err[TOPOMATCH_ERRLEN];
	if (a->policies) {
		if (sim_policy_parse(a->policies, w->policy, &w->npol, err))
			return cli_usage_error("sim", "%s", err);
		for (int k = 0; k < w->npol; k++)
			if (w->policy[k] == SIM_SLURM_TREE && w->m.levels < 1) {
				cli_error("sim", "slurm-tree: %s has a %s network, not a tree",
					  a->topo, topomatch_cluster_network(w->cl));
				return CLI_FAIL;
			}
		return CLI_OK;
	}
	for (int p = 0; p < SIM_NPOLICIES; p++)
		if (p != SIM_SLURM_TREE || w->m.levels > 0)
			w->policy[w->npol++] = p;
	return CLI_OK;
}

static int stream(const struct sim_args *a, struct sim_world *w)
{
	char err[TOPOMATCH_ERRLEN];
	sim_window_t win = a->win;
	win.max_jobs = a->jobs;
	int rc = a->trace ? sim_stream_swf_window(a->trace, &win, w->m.cpn, w->m.nnodes, &w->s, err)
			  : sim_stream_generate(a->generate, a->load, w->m.cpn, w->m.nnodes,
						a->cfg.seed, &w->s, err);
	if (!rc && !a->trace && a->win.time_scale != 1)
		sim_stream_scale(&w->s, a->win.time_scale, w->m.nnodes);
	if (rc) {
		cli_error("sim", "%s", err);
		return CLI_FAIL;
	}
	if (w->s.n == 0) {
		cli_error("sim", "%s: no job to simulate (%lld records; %lld never ran, %lld without "
				 "a processor count, %lld larger than the cluster's %lld nodes)",
			  a->trace ? a->trace : "stream", (long long)w->s.records,
			  (long long)w->s.never_ran, (long long)w->s.no_procs,
			  (long long)w->s.too_big, (long long)w->m.nnodes);
		return CLI_FAIL;
	}
	return CLI_OK;
}

static int setup(const struct sim_args *a, struct sim_world *w)
{
	char err[TOPOMATCH_ERRLEN];
	int rc;
	/* the switches' hop table, as slurmctld builds it at load: without
	 * it, on a dragonfly or graph of thousands of nodes every hop count
	 * of the node choice and the link loads ran a BFS */
	if (topomatch_cluster_load(a->topo, &w->cl, err) ||
	    topomatch_cluster_precompute(w->cl, err) ||
	    sim_machine_init(&w->m, w->cl, a->cpn, err)) {
		cli_error("sim", "%s", err);
		return CLI_FAIL;
	}
	if ((rc = policies(a, w)))
		return rc;
	if (a->cfg.model == SIM_MODEL_CONTENTION && sim_net_links(&w->m, err)) {
		cli_error("sim", "%s", err);
		return CLI_FAIL;
	}
	if ((rc = sim_mix_parse(a->patterns ? a->patterns : SIM_DEFAULT_MIX, NULL, &w->mix, err))) {
		if (rc == TOPOMATCH_EINVAL)
			return cli_usage_error("sim", "%s", err);
		cli_error("sim", "%s", err);
		return CLI_FAIL;
	}
	return stream(a, w);
}

/* ----------------------------------------------------------- threads */

struct work {
	const sim_config_t *cfg;
	sim_job_t *jobs;
	sim_result_t *res;
	const int *policy;
	int nitems;           /* reference chunks, or policies */
	int64_t chunk;
	int next, failed;     /* atomic */
	int done;             /* atomic: workers finished */
	int *spare;           /* atomic, may be NULL: threads idle, one more as
			       * each worker finishes */
	char err[TOPOMATCH_ERRLEN];
	pthread_mutex_t lock; /* err */
};

static int do_item(struct work *w, int i, char *err)
{
	if (!w->res) {
		int64_t from = (int64_t)i * w->chunk, to = from + w->chunk;
		return sim_reference(w->cfg, w->jobs, from, to < w->cfg->s->n ? to : w->cfg->s->n,
				     err);
	}
	return sim_run(w->cfg, w->policy[i], &w->res[i], err);
}

static void *worker(void *arg)
{
	struct work *w = arg;
	char err[TOPOMATCH_ERRLEN];
	int i;
	while (!__atomic_load_n(&w->failed, __ATOMIC_RELAXED) &&
	       (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nitems) {
		if (do_item(w, i, err)) {
			pthread_mutex_lock(&w->lock);
			if (!w->failed)
				snprintf(w->err, sizeof(w->err), "%s", err);
			__atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
			pthread_mutex_unlock(&w->lock);
		}
	}
	sim_spare_give(w->spare);
	__atomic_fetch_add(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The progress line, in jobs: the reference pass, then each policy's
 * replay (jobs started of the stream's), with the time elapsed and an
 * estimate of the time left (the slowest replay at its pace so far).
 * Rewritten in place on a terminal, a line every ten seconds otherwise
 * (logs). */
struct prog {
	const struct sim_args *a;
	const sim_config_t *c;
	const int *pol;   /* the replays' policies, npol of them */
	int npol;
	int64_t n;        /* jobs in the stream */
	double t0, t_runs, last; /* start, start of the replays, last line */
	bool replay;
};

/* "42 s", "3 min 05 s", "1 h 02 min" */
static void fmt_dur(char *buf, size_t len, double s)
{
	long v = s > 0 ? (long)(s + 0.5) : 0;
	if (v < 60)
		snprintf(buf, len, "%ld s", v);
	else if (v < 3600)
		snprintf(buf, len, "%ld min %02ld s", v / 60, v % 60);
	else
		snprintf(buf, len, "%ld h %02ld min", v / 3600, v / 60 % 60);
}

static void progress(struct prog *p, bool final)
{
	bool tty = isatty(STDERR_FILENO);
	double t = now_s();
	if (p->a->quiet || (!final && t - p->last < (tty ? 0.5 : 10)) ||
	    (final && !tty && t - p->t0 < 10))
		return;
	char line[1024], el[32], left[64] = "";
	size_t o = 0;
	fmt_dur(el, sizeof(el), t - p->t0);
	if (!p->replay) {
		int64_t d = __atomic_load_n(p->c->progress, __ATOMIC_RELAXED);
		o += (size_t)snprintf(line, sizeof(line), "reference placements %lld of %lld jobs",
				      (long long)d, (long long)p->n);
	} else {
		double eta = 0;
		bool known = true;
		o += (size_t)snprintf(line, sizeof(line), "jobs started:");
		for (int k = 0; k < p->npol && o < sizeof(line); k++) {
			int64_t d = __atomic_load_n(&p->c->run_progress[p->pol[k]], __ATOMIC_RELAXED);
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s %lld/%lld",
					      k ? "," : "", sim_policy_name(p->pol[k]),
					      (long long)d, (long long)p->n);
			if (d >= p->n)
				continue;
			if (d == 0) {
				known = false;
				continue;
			}
			double rest = (t - p->t_runs) * (double)(p->n - d) / (double)d;
			eta = rest > eta ? rest : eta;
		}
		if (!final && known && eta >= 0.5) {
			char e[32];
			fmt_dur(e, sizeof(e), eta);
			snprintf(left, sizeof(left), ", about %s left", e);
		} else if (!final && known && eta > 0) {
			snprintf(left, sizeof(left), ", less than a second left");
		} else if (!final && !known) {
			snprintf(left, sizeof(left), ", time left not known yet");
		}
	}
	fprintf(stderr, "%stopomatch sim: %s; %s elapsed%s%s", tty ? "\r\033[K" : "", line, el,
		left, final || !tty ? "\n" : "");
	p->last = t;
}

static int run_threads(const struct sim_args *a, struct work *w, struct prog *p)
{
	int64_t nt = a->threads > 0 ? a->threads : sysconf(_SC_NPROCESSORS_ONLN);
	nt = nt < 1 ? 1 : nt > w->nitems ? w->nitems : nt;
	pthread_t th[1024];
	int started = 0;
	pthread_mutex_init(&w->lock, NULL);
	for (; started < nt; started++)
		if (pthread_create(&th[started], NULL, worker, w))
			break;
	if (started == 0)
		worker(w); /* no thread: do it here */
	while (started && __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) < started) {
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		progress(p, false);
	}
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&w->lock);
	if (w->failed)
		cli_error("sim", "%s", w->err);
	return w->failed ? CLI_FAIL : CLI_OK;
}

/* Reference hop-bytes, then one replay per policy (the longest first:
 * topomatch maps every job, the others only place blocks). */
static int simulate(const struct sim_args *a, struct sim_world *wd, sim_config_t *c,
		    sim_result_t *res)
{
	struct prog p = { .a = a, .c = c, .n = wd->s.n, .t0 = now_s() };
	p.last = p.t0;
	int64_t nt = a->threads > 0 ? a->threads : sysconf(_SC_NPROCESSORS_ONLN);
	int64_t chunk = (wd->s.n + (nt > 0 ? nt : 1) * 8 - 1) / ((nt > 0 ? nt : 1) * 8);
	struct work ref = { .cfg = c, .jobs = wd->s.job, .chunk = chunk > 0 ? chunk : 1 };
	ref.nitems = (int)((wd->s.n + ref.chunk - 1) / ref.chunk);
	int rc = run_threads(a, &ref, &p);
	if (rc)
		return rc;
	int order[SIM_NPOLICIES], n = 0;
	for (int k = 0; k < wd->npol; k++)
		if (wd->policy[k] == SIM_TOPOMATCH)
			order[n++] = k;
	for (int k = 0; k < wd->npol; k++)
		if (wd->policy[k] != SIM_TOPOMATCH)
			order[n++] = k;
	int pol[SIM_NPOLICIES];
	for (int k = 0; k < n; k++)
		pol[k] = wd->policy[order[k]];
	sim_result_t tmp[SIM_NPOLICIES];
	memset(tmp, 0, sizeof(tmp)); /* a run that never started frees as empty */
	/* the threads no replay has, and each one's as it finishes: the
	 * topomatch replay's check borrows them */
	int spare = nt > n ? (int)(nt - n) : 0;
	c->spare = &spare;
	struct work runs = { .cfg = c, .res = tmp, .policy = pol, .nitems = n, .spare = &spare };
	p.replay = true;
	p.pol = wd->policy;
	p.npol = wd->npol;
	p.t_runs = now_s();
	rc = run_threads(a, &runs, &p);
	c->spare = NULL;
	for (int k = 0; k < n; k++) /* back in the order asked */
		res[order[k]] = tmp[k];
	progress(&p, true);
	if (rc)
		for (int k = 0; k < n; k++)
			sim_result_free(&res[k]);
	return rc;
}

/* ----------------------------------------------------------- outputs */

static FILE *open_prefixed(const char *prefix, const char *suffix, char *path, size_t len)
{
	snprintf(path, len, "%s%s", prefix, suffix);
	FILE *f = fopen(path, "w");
	if (!f)
		cli_error("sim", "%s: %s", path, strerror(errno));
	return f;
}

static int write_summaries(const struct sim_args *a, const sim_config_t *c,
			   const sim_result_t *r, const sim_summary_t *u, int n)
{
	char path[4096];
	FILE *f = open_prefixed(a->out, "-summary.txt", path, sizeof(path));
	if (!f)
		return CLI_FAIL;
	sim_report_text(f, c, r, u, n);
	if (fclose(f) || !(f = open_prefixed(a->out, ".json", path, sizeof(path))))
		return CLI_FAIL;
	sim_report_json(f, c, r, u, n);
	return fclose(f) ? CLI_FAIL : CLI_OK;
}

static int write_files(const struct sim_args *a, const sim_config_t *c, const sim_result_t *r,
		       const sim_summary_t *u, int n)
{
	char err[TOPOMATCH_ERRLEN], path[4096];
	int drawn;
	snprintf(path, sizeof(path), "%s-jobs.csv", a->out);
	if (sim_report_csv(path, c, r, n, err) ||
	    (!a->no_plots && sim_plot(a->out, c, r, n, &drawn, err))) {
		cli_error("sim", "%s", err);
		return CLI_FAIL;
	}
	if (write_summaries(a, c, r, u, n))
		return CLI_FAIL;
	if (!a->no_plots && !drawn)
		fprintf(stderr, "topomatch sim: gnuplot is not on PATH: no images; the data and "
				"%s.gp are written (install gnuplot-nox)\n", a->out);
	return CLI_OK;
}

static int report(const struct sim_args *a, const sim_config_t *c, const sim_result_t *r,
		  int n)
{
	sim_summary_t u[SIM_NPOLICIES];
	for (int k = 0; k < n; k++)
		sim_summarize(c, &r[k], &u[k]);
	if (a->json)
		sim_report_json(stdout, c, r, u, n);
	else
		sim_report_text(stdout, c, r, u, n);
	int rc = a->out ? write_files(a, c, r, u, n) : CLI_OK;
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("sim", "write error on stdout");
		rc = CLI_FAIL;
	}
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_args a = { .load = 0.9, .bf_depth = SIM_BF_MAX_JOB_TEST,
			      .bf_window_min = SIM_BF_WINDOW_MIN,
			      .win = { .warmup = SIM_DEFAULT_WARMUP, .time_scale = 1 },
			      .cfg = { .seed = 1, .share = SIM_DEFAULT_COMM_SHARE,
				       .model = SIM_MODEL_CONTENTION,
				       .tm.max_tasks = SIM_PLUGIN_MAX_TASKS,
				       .tm.contention_weight = TOPOMATCH_CONTENTION_WEIGHT,
				       .tm.comm_wait_ratio = SIM_PLUGIN_COMM_WAIT_RATIO } };
	struct sim_world w = { 0 };
	tm_plugin_conf_t defaults; /* PatternKiB's, unless --pattern-kib */
	tm_plugin_conf_defaults(&defaults);
	a.cfg.tm.pattern_kib = defaults.pattern_kib;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	if (a.generate && a.jobs && a.jobs < a.generate)
		a.generate = a.jobs;
	if ((rc = setup(&a, &w))) {
		world_free(&w);
		return rc;
	}
	volatile int64_t done = 0, started[SIM_NPOLICIES] = { 0 };
	a.cfg.m = &w.m;
	if (a.slurm_sched) {
		a.cfg.bf_depth = a.bf_depth;
		a.cfg.bf_window = 60 * a.bf_window_min;
	}
	a.cfg.s = &w.s;
	a.cfg.mix = &w.mix;
	a.cfg.dump_dir = a.dump;
	a.cfg.tm.seed = 1; /* the plugin's: topomatch_map_opts_init's default */
	a.cfg.progress = &done;
	a.cfg.run_progress = started;
	sim_result_t res[SIM_NPOLICIES];
	rc = simulate(&a, &w, &a.cfg, res);
	if (rc == CLI_OK) {
		rc = report(&a, &a.cfg, res, w.npol);
		for (int k = 0; k < w.npol; k++)
			sim_result_free(&res[k]);
	}
	world_free(&w);
	return rc;
}

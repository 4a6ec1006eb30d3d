/*
 * cmd_map.c - `topomatch map`: compute a mapping and report its metrics.
 * Option letters follow TopoMatch's `mapping` tool (-t, -c, -b), and the
 * habits of Slurm users (-w/--nodelist a host list) and of most tools
 * (-o/--output the output file; oversubscription is --oversub, issue 21).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_map(int argc, char **argv);

static const char help[] =
	"Usage: topomatch map -t TOPOLOGY -c PATTERN [OPTIONS]\n"
	"Map the tasks of a communication pattern onto the processing units (PUs)\n"
	"of a topology and print the mapping's metrics.\n"
	"\n"
	"  -t, --topology TOPO     Scotch target string (\"tleaf 2 16 10 8 1\",\n"
	"                          \"torus3D 8 8 8\", \"mesh2D 4 4\", \"hcub 6\") or a file\n"
	"                          holding one, or a cluster description (a\n"
	"                          .yaml file, topomatch.yaml(5)) whose PU ids\n"
	"                          -b and --out then use\n"
	"                          ('-' = stdin, a pipe or <(...), .gz read too)\n"
	"  -c, --pattern FILE      communication pattern ('-' = stdin, a pipe or\n"
	"                          <(...), .gz read too); stderr says what was read\n"
	"      --format FMT        force the pattern format: dense, mm, triplets, grf\n"
	"  -b, --constraints FILE  allowed PU ids, whitespace-separated\n"
	"  -w, --nodelist HOSTLIST with a cluster description: only the PUs of\n"
	"                          these nodes (an allocation, e.g. n[005-008];\n"
	"                          --nodes: deprecated alias)\n"
	"      --cpus-per-task N   with a cluster description: each task takes N\n"
	"                          PUs of one node (srun -c N); --out gives the\n"
	"                          first PU of each task's N\n"
	"      --oversub F         at most F tasks per PU (default 1; was -o)\n"
	"      --mapper NAME       auto (default: TopoMatch's choice for the\n"
	"                          topology, refined by local search, kept when\n"
	"                          it beats round-robin),\n"
	"                          portfolio (round-robin, auto's choice,\n"
	"                          eagermap and greedymap, each refined, on\n"
	"                          threads; the lowest hop-bytes wins),\n"
	"                          treematch, topomatch-const, scotch,\n"
	"                          eagermap (EagerMap, TOPC 2019),\n"
	"                          greedymap (GreedyMap, ICS 2017; options as\n"
	"                          greedymap:order=oo|bfs|bfs-dfs|gpart,pack=0|1,\n"
	"                          delta=N,wrap=0|1,cost=hop-bytes|max-hop-bytes,\n"
	"                          ties=first|random),\n"
	"                          parmapper (ParMapper, ICS 2017: many GreedyMap\n"
	"                          configurations; parmapper:alpha=A,work=W),\n"
	"                          analytical (J. Supercomput. 2016, 1-3D mesh or\n"
	"                          torus; analytical:spreading=anchor|paper),\n"
	"                          round-robin, random\n"
	"      --tau N             treematch: enumerate all candidate groups when\n"
	"                          there are at most N (default 30000)\n"
	"      --sparse-factor F   scotch: keep only weights above F x the largest\n"
	"                          (0 to 1, default 0.5; auto also tries 0 on\n"
	"                          sparse patterns)\n"
	"      --refine            after a named mapper, the local search auto\n"
	"                          runs after its own (never raises hop-bytes)\n"
	"      --seed N            seed of the randomised mappers (default 1)\n"
	"      --threads N         threads for portfolio, eagermap and parmapper\n"
	"                          (default 1;\n"
	"                          0: one per online CPU); the mapping does not\n"
	"                          depend on it\n"
	"      --time-budget SEC   wall-clock limit on the mapping (default: none):\n"
	"                          the mapping returns within SEC x 1.1 + 10 ms\n"
	"                          (every mapper, Scotch included; reading the\n"
	"                          inputs is not counted) with the best mapping\n"
	"                          found so far, never worse than the natural\n"
	"                          placement, and a note on stderr; a run that\n"
	"                          ends within SEC gives what it gives without\n"
	"                          a budget\n"
	"  -o, --output, --out FILE  write the mapping: one line per task, its PU\n"
	"                          id ('-' = stdout: the metrics then go to stderr)\n"
	"      --json              print only one JSON object on stdout (metrics,\n"
	"                          topology, why this mapper)\n"
	"      --json-mapping      --json with the mapping in it (\"mapping\")\n"
	"  -q, --quiet             no \"pattern: ...\" line on stderr\n"
	"      --max-tasks N, --max-nnz N, --max-bytes N\n"
	"                          limits on the pattern (defaults 4194304 tasks,\n"
	"                          268435456 non-zeros, 4 GiB; --max-bytes also\n"
	"                          bounds a target file)\n"
	"  -h, --help              this text\n"
	"\n"
	"\n"
	"The metrics end with the natural placement's hop-bytes (task i on the\n"
	"i-th PU, what Slurm and mpirun do) and the ratio to it.\n"
	"Exit status: 0 success, 1 bad input or failed mapping, 2 bad usage.\n"
	"See topomatch-map(1).\n";

struct map_args {
	struct cli_inputs in;
	const char *constraints;
	const char *nodes;
	int64_t cpus_per_task;
	const char *out;
	bool json_mapping;
	/* options given, for the warning on those the mapper ignores */
	bool tau, sparse, threads;
	topomatch_map_opts_t opts;
};

enum {
	OPT_NODELIST = OPT_FIRST_PRIVATE,
	OPT_CPT,
	OPT_THREADS,
	OPT_REFINE,
	OPT_NODES_OLD,
	OPT_OVERSUB,
	OPT_JSON_MAPPING,
};

/*
 * -o was the oversubscription factor (TopoMatch's letter) until users,
 * who type `-o out.map`, asked for the usual meaning (issue 21).  A
 * number after -o is most likely an old command line: refused with the
 * new spelling rather than writing a file called "2".
 */
static int old_oversub(const char *arg)
{
	if (arg[0] && strspn(arg, "0123456789") == strlen(arg))
		return cli_usage_error("map", "-o is the output file now: for at most %s tasks "
					      "per PU, --oversub %s (a file named '%s': --out ./%s)",
				       arg, arg, arg, arg);
	return CLI_OK;
}

/* --threads 0: one thread per online CPU, within the library's bound. */
static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

static int parse_args(int argc, char **argv, struct map_args *m)
{
	static const struct option longopts[] = {
		CLI_INPUT_LONGOPTS,
		{ "constraints", required_argument, NULL, 'b' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "nodes", required_argument, NULL, OPT_NODES_OLD },
		{ "cpus-per-task", required_argument, NULL, OPT_CPT },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "refine", no_argument, NULL, OPT_REFINE },
		{ "oversub", required_argument, NULL, OPT_OVERSUB },
		{ "mapper", required_argument, NULL, OPT_MAPPER },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "time-budget", required_argument, NULL, OPT_BUDGET },
		{ "tau", required_argument, NULL, OPT_TAU },
		{ "sparse-factor", required_argument, NULL, OPT_SPARSE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "output", required_argument, NULL, OPT_OUT },
		{ "json-mapping", no_argument, NULL, OPT_JSON_MAPPING },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	int64_t v;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:b:w:o:qh", longopts, NULL)) != -1) {
		int r = cli_common_opt("map", c, optarg, &m->in);
		if (r < 0)
			return CLI_USAGE;
		if (r > 0)
			continue;
		switch (c) {
		case 't': m->in.topo = optarg; break;
		case 'c': m->in.pattern = optarg; break;
		case 'b': m->constraints = optarg; break;
		case OPT_NODES_OLD:
			cli_warn("map", "--nodes is deprecated (in Slurm it is a node count): "
					"use -w/--nodelist");
			/* fall through */
		case 'w': m->nodes = optarg; break;
		case OPT_CPT:
			if (!cli_int64("map", "--cpus-per-task", optarg, 1, 1024, &m->cpus_per_task))
				return CLI_USAGE;
			break;
		case OPT_THREADS:
			if (!cli_int64("map", "--threads", optarg, 0, 256, &v))
				return CLI_USAGE;
			m->opts.threads = v > 0 ? (int)v : online_cpus();
			m->threads = true;
			break;
		case OPT_REFINE: m->opts.refine = 1; break;
		case OPT_OVERSUB:
			if (!cli_int64("map", "--oversub", optarg, 1, 1024, &v))
				return CLI_USAGE;
			m->opts.oversub = (int)v;
			break;
		case OPT_MAPPER: m->opts.mapper = optarg; break;
		case OPT_SEED:
			if (!cli_uint64("map", "--seed", optarg, &m->opts.seed))
				return CLI_USAGE;
			break;
		case OPT_BUDGET:
			if (!cli_double("map", "--time-budget", optarg, 0, 1e9,
					&m->opts.time_budget_s))
				return CLI_USAGE;
			break;
		case OPT_TAU:
			if (!cli_double("map", "--tau", optarg, 1, 1e15, &m->opts.tau))
				return CLI_USAGE;
			m->tau = true;
			break;
		case OPT_SPARSE:
			if (!cli_double("map", "--sparse-factor", optarg, 0, 1,
					&m->opts.sparse_factor))
				return CLI_USAGE;
			m->sparse = true;
			break;
		case 'o':
			if (old_oversub(optarg) != CLI_OK)
				return CLI_USAGE;
			m->out = optarg;
			break;
		case OPT_OUT: m->out = optarg; break;
		case OPT_JSON_MAPPING: m->json_mapping = m->in.json = true; break;
		case 'h': fputs(help, stdout); exit(CLI_OK);
		case ':': return cli_usage_error("map", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("map", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("map", "unexpected argument '%s'", argv[optind]);
	if (!m->in.topo || !m->in.pattern)
		return cli_usage_error("map", "both -t TOPOLOGY and -c PATTERN are needed");
	return CLI_OK;
}

static int write_mapping(const char *path, const int64_t *pu, int64_t n)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!f) {
		cli_error("map", "%s: %s", path, strerror(errno));
		return CLI_FAIL;
	}
	for (int64_t i = 0; i < n; i++)
		fprintf(f, "%lld\n", (long long)pu[i]);
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f);
	else
		bad |= fflush(f);
	if (bad) {
		cli_error("map", "%s: write failed", path);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Metrics of a mapping in the user's PU ids. */
static int metrics_of(const struct cli_target *tg, const topomatch_affinity_t *a,
		      const int64_t *pu, topomatch_metrics_t *met, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), *tpu = malloc((size_t)n * sizeof(*tpu) + 1);
	if (!tpu) {
		snprintf(err, TOPOMATCH_ERRLEN, "out of memory");
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t i = 0; i < n; i++)
		tpu[i] = cli_target_topology_pu(tg, pu[i]);
	int rc = topomatch_metrics_compute(a, tg->t, tpu, met, err);
	free(tpu);
	return rc;
}

static int map(const struct cli_target *tg, const topomatch_affinity_t *a,
	       const topomatch_map_opts_t *o, int64_t *pu, topomatch_map_result_t *res,
	       char *err)
{
	if (tg->cl)
		return topomatch_cluster_map(tg->cl, a, o, pu, res, err);
	return topomatch_map(a, tg->t, o, pu, res, err);
}

/*
 * --cpus-per-task: the allowed PUs (all of the cluster's when none are
 * given) become the first PUs of slots of that many PUs of one node, as
 * srun's SPANK plugin and select/topomatch make them.
 */
static int oom(char *err)
{
	snprintf(err, TOPOMATCH_ERRLEN, "out of memory");
	return TOPOMATCH_ENOMEM;
}

static int use_slots(const struct cli_target *tg, int64_t per, int64_t **allowed,
		     int64_t *nallowed, char *err)
{
	if (!*allowed) {
		*nallowed = topomatch_cluster_npu(tg->cl);
		if (!(*allowed = malloc((size_t)*nallowed * sizeof(**allowed) + 1)))
			return oom(err);
		for (int64_t p = 0; p < *nallowed; p++)
			(*allowed)[p] = p;
	}
	int64_t *slot = malloc((size_t)*nallowed * sizeof(*slot) + 1), ns;
	if (!slot)
		return oom(err);
	int rc = topomatch_cluster_slots(tg->cl, *allowed, *nallowed, per, slot, &ns, err);
	for (int64_t s = 0; rc == TOPOMATCH_OK && s < ns; s++)
		(*allowed)[s] = slot[s * per];
	if (rc == TOPOMATCH_OK)
		*nallowed = ns;
	free(slot);
	return rc;
}

/*
 * Why the mapper that produced the mapping did, for the report: auto
 * follows TopoMatch's Fig. 3 (mapper.c, map_auto), tries more candidates
 * on small whole trees and whole grids, and keeps the natural placement
 * unless something beats it; saying which of these happened is what a
 * user needs to judge the result (issue 21).
 */
static void reason(const struct map_args *m, const struct cli_target *tg,
		   const topomatch_map_result_t *res, char *buf, size_t len)
{
	const char *name = m->opts.mapper ? m->opts.mapper : "auto";
	if (strcmp(name, "auto")) {
		if (!strncmp(res->mapper, "portfolio:", 10))
			snprintf(buf, len, "--mapper portfolio: %s had the lowest hop-bytes of "
					   "round-robin, auto's choice, eagermap and greedymap",
				 res->mapper + 10);
		else
			snprintf(buf, len, "--mapper %s", name);
		return;
	}
	bool tree = topomatch_topology_kind(tg->t) == TOPOMATCH_TOPO_TREE;
	bool constrained = m->opts.allowed ||
			   (tg->cl && topomatch_topology_npu(tg->t) != cli_target_npu(tg));
	const char *fig3 = !tree ? "scotch" : constrained ? "topomatch-const" : "treematch";
	const char *where = !tree ? "not a tree"
			    : constrained ? "a tree with constraints (allowed PUs)"
					  : "a tree, every PU allowed";
	int k = snprintf(buf, len, "auto: %s, so TopoMatch's Fig. 3 runs %s (refined); ", where,
			 fig3);
	if (k < 0 || (size_t)k >= len)
		return;
	if (!strcmp(res->mapper, "round-robin"))
		snprintf(buf + k, len - (size_t)k, "it did not beat the natural placement "
						     "(task i on the i-th PU), which is kept");
	else if (!strcmp(res->mapper, fig3))
		snprintf(buf + k, len - (size_t)k, "it had the lowest hop-bytes%s",
			 tree && !constrained ? " (topomatch-const and scotch are also "
						"tried on small jobs)" : "");
	else
		snprintf(buf + k, len - (size_t)k, "%s, also tried on %s, had lower hop-bytes",
			 res->mapper, tree ? "small whole trees" : "whole meshes and tori");
}

/* Options the chosen mapper does not read: said, not silently dropped. */
static void warn_ignored(const struct map_args *m, const struct cli_target *tg)
{
	const char *name = m->opts.mapper ? m->opts.mapper : "auto";
	size_t len = strcspn(name, ":");
	bool combined = !strncmp(name, "auto", len) || !strncmp(name, "portfolio", len);
	bool tree = topomatch_topology_kind(tg->t) == TOPOMATCH_TOPO_TREE;
	if (m->tau && !(len == 9 && !strncmp(name, "treematch", 9)) && !(combined && tree))
		cli_warn("map", "--tau is ignored by %.*s%s (it tunes treematch, which auto and "
				"portfolio run on trees only)",
			 (int)len, name, combined ? " on this topology" : "");
	if (m->sparse && !(len == 6 && !strncmp(name, "scotch", 6)) && !combined)
		cli_warn("map", "--sparse-factor is ignored by %.*s (it tunes scotch, auto and "
				"portfolio)", (int)len, name);
	if (m->threads && !(len == 9 && !strncmp(name, "portfolio", 9)) &&
	    !(len == 8 && !strncmp(name, "eagermap", 8)) &&
	    !(len == 9 && !strncmp(name, "parmapper", 9)))
		cli_warn("map", "--threads is ignored by %.*s (portfolio, eagermap and parmapper "
				"use threads)", (int)len, name);
	if (m->opts.refine && combined)
		cli_warn("map", "--refine is ignored by %.*s, which always refines", (int)len, name);
}

/* The natural placement under the same constraints: what Slurm and
 * mpirun do without a pattern, the yardstick of the report. */
static int natural(const struct cli_target *tg, const topomatch_affinity_t *a,
		   const topomatch_map_opts_t *o, topomatch_metrics_t *met, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu) + 1);
	if (!pu)
		return oom(err);
	topomatch_map_opts_t rr = *o;
	topomatch_map_result_t res;
	rr.mapper = "round-robin";
	rr.refine = 0;
	int rc = map(tg, a, &rr, pu, &res, err);
	if (rc == TOPOMATCH_OK)
		rc = metrics_of(tg, a, pu, met, err);
	free(pu);
	return rc;
}

static int run(struct map_args *m, const struct cli_target *tg, topomatch_affinity_t *a)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t *allowed = NULL, nallowed = 0;
	if (m->nodes && !tg->cl) {
		return cli_usage_error("map", "-w/--nodelist needs a cluster description "
					      "(-t FILE.yaml)");
	} else if (m->nodes && m->constraints) {
		return cli_usage_error("map", "-w/--nodelist and -b both restrict the PUs: "
					      "give one");
	} else if (m->constraints || m->nodes) {
		int rc = m->nodes ? topomatch_cluster_hostlist_pus(tg->cl, m->nodes, &allowed,
								   &nallowed, err)
				  : topomatch_read_id_list(m->constraints, cli_target_npu(tg), 1,
							   0, &allowed, &nallowed, err);
		if (rc != TOPOMATCH_OK) {
			cli_error("map", "%s", err);
			return CLI_FAIL;
		}
	}
	if (m->cpus_per_task > 1) {
		if (!tg->cl)
			return cli_usage_error("map", "--cpus-per-task needs a cluster description "
						      "(-t FILE.yaml)");
		if (use_slots(tg, m->cpus_per_task, &allowed, &nallowed, err) != TOPOMATCH_OK ||
		    (nallowed < n && snprintf(err, sizeof(err), "%lld tasks of %lld PUs: room for "
					      "%lld on these nodes", (long long)n,
					      (long long)m->cpus_per_task, (long long)nallowed))) {
			cli_error("map", "%s", err);
			free(allowed);
			return CLI_FAIL;
		}
	}
	if (allowed) {
		m->opts.allowed = allowed;
		m->opts.nallowed = nallowed;
	}
	warn_ignored(m, tg);
	int64_t *pu = malloc((size_t)n * sizeof(*pu) + 1);
	topomatch_map_result_t res;
	topomatch_metrics_t met, nat;
	int rc = CLI_FAIL;
	bool to_stdout = m->out && !strcmp(m->out, "-");
	if (!pu)
		cli_error("map", "out of memory");
	else if (map(tg, a, &m->opts, pu, &res, err) != TOPOMATCH_OK ||
		 metrics_of(tg, a, pu, &met, err) != TOPOMATCH_OK ||
		 natural(tg, a, &m->opts, &nat, err) != TOPOMATCH_OK)
		cli_error("map", "%s", err);
	else if (!m->out || (rc = write_mapping(m->out, pu, n)) == CLI_OK) {
		char why[512];
		reason(m, tg, &res, why, sizeof(why));
		if (res.fell_back)
			fprintf(stderr, "topomatch map: time budget of %g s exceeded; "
					"kept the best mapping found so far (%s)\n",
				m->opts.time_budget_s, res.mapper);
		struct cli_report r = { .mapper = res.mapper, .reason = why, .ntasks = n,
					.tg = tg, .m = &met, .natural = &nat,
					.time_s = res.time_s,
					.pu = m->json_mapping ? pu : NULL };
		/* with --out - the mapping owns stdout: the metrics go to stderr */
		rc = cli_report_print("map", to_stdout ? stderr : stdout, &r, m->in.json);
	}
	free(pu);
	free(allowed);
	return rc;
}

int cmd_map(int argc, char **argv)
{
	struct map_args m = { .in = { .format = TOPOMATCH_FORMAT_AUTO } };
	topomatch_map_opts_init(&m.opts);
	int rc = parse_args(argc, argv, &m);
	if (rc != CLI_OK)
		return rc;
	if (m.opts.mapper && !cli_mapper_ok("map", m.opts.mapper))
		return CLI_USAGE;
	if (m.in.json && m.out && !strcmp(m.out, "-"))
		return cli_usage_error("map", "--json and --out - both want stdout "
					      "(--json-mapping puts the mapping in the JSON)");
	struct cli_target tg;
	topomatch_affinity_t *a;
	rc = cli_load("map", &m.in, &tg, &a);
	if (rc != CLI_OK)
		return rc;
	rc = run(&m, &tg, a);
	topomatch_affinity_destroy(a);
	cli_target_free(&tg);
	return rc;
}

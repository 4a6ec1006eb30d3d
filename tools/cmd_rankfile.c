/*
 * cmd_rankfile.c - `topomatch rankfile`: an Open MPI rankfile that places
 * the ranks of a pattern on the cores of an allocation, for mpirun users
 * inside a Slurm job (the same engine as the plugins: topomatch_cluster_map
 * restricted to the allocation's PUs).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_rankfile(int argc, char **argv);

static const char help[] =
	"Usage: topomatch rankfile -t CLUSTER.yaml -c PATTERN [-w HOSTLIST] [OPTIONS]\n"
	"Write an Open MPI rankfile that maps the pattern's ranks onto the cores of\n"
	"the given nodes (default: $SLURM_JOB_NODELIST), for `mpirun --rankfile`.\n"
	"\n"
	"  -t, --topology FILE     the cluster description (topomatch.yaml(5))\n"
	"  -c, --pattern FILE      communication pattern ('-' = stdin, a pipe or\n"
	"                          <(...), .gz read too)\n"
	"  -w, --nodelist HOSTLIST the allocation's nodes, e.g. n[05-08] (--nodes:\n"
	"                          deprecated alias)\n"
	"      --format FMT        force the pattern format: dense, mm, triplets, grf\n"
	"      --mapper NAME       as for topomatch map (default auto)\n"
	"      --oversub F         at most F ranks per core (default 1)\n"
	"      --seed N            seed of the randomised mappers (default 1)\n"
	"  -o, --output, --out FILE  the rankfile (default: stdout)\n"
	"      --json              the summary as one JSON object on stdout (ranks,\n"
	"                          nodes, mapper, hop-bytes); needs -o FILE\n"
	"  -q, --quiet             no \"pattern: ...\" and summary lines on stderr\n"
	"      --max-tasks N, --max-nnz N, --max-bytes N   pattern limits\n"
	"  -h, --help              this text\n"
	"\n"
	"\n"
	"A summary line goes to stderr: ranks, nodes, hop-bytes and those of the\n"
	"natural placement (rank i on the i-th core, mpirun's default).\n"
	"Exit status: 0 success, 1 bad input, 2 bad usage. See topomatch-rankfile(1).\n";

enum { OPT_NODES = OPT_FIRST_PRIVATE, OPT_OVERSUB };

struct rf_args {
	struct cli_inputs in;
	const char *nodes, *out;
	topomatch_map_opts_t opts;
};

static int parse_args(int argc, char **argv, struct rf_args *r)
{
	static const struct option longopts[] = {
		CLI_INPUT_LONGOPTS,
		{ "nodelist", required_argument, NULL, 'w' },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "mapper", required_argument, NULL, OPT_MAPPER },
		{ "oversub", required_argument, NULL, OPT_OVERSUB },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "output", required_argument, NULL, OPT_OUT },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:w:o:qh", longopts, NULL)) != -1) {
		int k = cli_common_opt("rankfile", c, optarg, &r->in);
		if (k < 0)
			return CLI_USAGE;
		if (k > 0)
			continue;
		switch (c) {
		case 't': r->in.topo = optarg; break;
		case 'c': r->in.pattern = optarg; break;
		case OPT_NODES:
			cli_warn("rankfile", "--nodes is deprecated (in Slurm it is a node count): "
					     "use -w/--nodelist");
			/* fall through */
		case 'w': r->nodes = optarg; break;
		case OPT_MAPPER:
			if (!cli_mapper_ok("rankfile", optarg))
				return CLI_USAGE;
			r->opts.mapper = optarg;
			break;
		case OPT_OVERSUB: {
			int64_t v;
			if (!cli_int64("rankfile", "--oversub", optarg, 1, 1024, &v))
				return CLI_USAGE;
			r->opts.oversub = (int)v;
			break;
		}
		case OPT_SEED:
			if (!cli_uint64("rankfile", "--seed", optarg, &r->opts.seed))
				return CLI_USAGE;
			break;
		case 'o':
		case OPT_OUT: r->out = optarg; break;
		case 'h': fputs(help, stdout); return -1;
		case ':':
			return cli_usage_error("rankfile", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("rankfile", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("rankfile", "unexpected argument '%s'", argv[optind]);
	if (!r->in.topo || !r->in.pattern)
		return cli_usage_error("rankfile", "-t CLUSTER.yaml and -c PATTERN are needed");
	if (!r->nodes && !(r->nodes = getenv("SLURM_JOB_NODELIST")))
		return cli_usage_error("rankfile", "-w/--nodelist is needed outside a Slurm job");
	if (r->in.json && (!r->out || !strcmp(r->out, "-")))
		return cli_usage_error("rankfile", "--json and the rankfile both want stdout: "
						   "give -o FILE");
	return CLI_OK;
}

static int write_rankfile(FILE *f, const topomatch_cluster_t *c, const int64_t *pu, int64_t n)
{
	char host[256];
	for (int64_t r = 0; r < n; r++) {
		int socket, core;
		int64_t node = topomatch_cluster_pu_node(c, pu[r], NULL);
		topomatch_cluster_node_name(c, node, host, sizeof(host));
		topomatch_cluster_pu_place(c, pu[r], &socket, &core, NULL);
		fprintf(f, "rank %lld=%s slot=%d:%d\n", (long long)r, host, socket, core);
	}
	return ferror(f) ? CLI_FAIL : CLI_OK;
}

/* Hop-bytes of pu[] (cluster PU ids). */
static int hop_bytes(const struct cli_target *tg, const topomatch_affinity_t *a,
		     const int64_t *pu, double *hb, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), *tpu = malloc((size_t)n * sizeof(*tpu) + 1);
	topomatch_metrics_t m;
	if (!tpu) {
		snprintf(err, TOPOMATCH_ERRLEN, "out of memory");
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t i = 0; i < n; i++)
		tpu[i] = cli_target_topology_pu(tg, pu[i]);
	int rc = topomatch_metrics_compute(a, tg->t, tpu, &m, err);
	free(tpu);
	*hb = rc == TOPOMATCH_OK ? m.hop_bytes : 0;
	return rc;
}

/* Distinct nodes of the mapping. */
static int64_t nodes_used(const topomatch_cluster_t *c, const int64_t *pu, int64_t n)
{
	int64_t nn = topomatch_cluster_nnodes(c), used = 0;
	unsigned char *seen = calloc((size_t)nn + 1, 1);
	if (!seen)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t k = topomatch_cluster_pu_node(c, pu[i], NULL);
		if (k >= 0 && k < nn && !seen[k]) {
			seen[k] = 1;
			used++;
		}
	}
	free(seen);
	return used;
}

/*
 * What was written, for the user to judge it (issue 21: say how far the
 * mapping is from the natural placement, mpirun's default): a line on
 * stderr, or one JSON object on stdout.
 */
static int summary(const struct rf_args *r, const struct cli_target *tg,
		   const topomatch_affinity_t *a, const int64_t *pu,
		   const topomatch_map_result_t *res)
{
	char err[TOPOMATCH_ERRLEN] = "out of memory";
	int64_t n = topomatch_affinity_ntasks(a), *nat = malloc((size_t)n * sizeof(*nat) + 1);
	topomatch_map_opts_t o = r->opts;
	topomatch_map_result_t rr;
	double hb = 0, hbn = 0;
	int rc = nat ? TOPOMATCH_OK : TOPOMATCH_ENOMEM;
	o.mapper = "round-robin";
	if (rc == TOPOMATCH_OK)
		rc = topomatch_cluster_map(tg->cl, a, &o, nat, &rr, err);
	if (rc == TOPOMATCH_OK)
		rc = hop_bytes(tg, a, pu, &hb, err);
	if (rc == TOPOMATCH_OK)
		rc = hop_bytes(tg, a, nat, &hbn, err);
	free(nat);
	if (rc != TOPOMATCH_OK) {
		cli_error("rankfile", "%s", err);
		return CLI_FAIL;
	}
	int64_t used = nodes_used(tg->cl, pu, n);
	double ratio = hbn > 0 ? hb / hbn : 1.0;
	if (r->in.json) {
		json_object *j = json_object_new_object();
		json_object_object_add(j, "rankfile", json_object_new_string(r->out));
		json_object_object_add(j, "ranks", json_object_new_int64(n));
		json_object_object_add(j, "nodelist", json_object_new_string(r->nodes));
		json_object_object_add(j, "nodes_used", json_object_new_int64(used));
		json_object_object_add(j, "mapper", json_object_new_string(res->mapper));
		json_object_object_add(j, "topology", cli_json_topology(tg));
		json_object_object_add(j, "hop_bytes", cli_json_double(hb));
		json_object_object_add(j, "natural_hop_bytes", cli_json_double(hbn));
		json_object_object_add(j, "hop_bytes_vs_natural", cli_json_double(ratio));
		return cli_json_print("rankfile", j);
	}
	if (!r->in.quiet)
		fprintf(stderr, "rankfile: %lld ranks on %lld nodes of %s, mapper %s, hop-bytes "
				"%.15g (%.4f x the natural placement's %.15g)\n",
			(long long)n, (long long)used, r->nodes, res->mapper, hb, ratio, hbn);
	return CLI_OK;
}

static int run(struct rf_args *r, const struct cli_target *tg, topomatch_affinity_t *a)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t n = topomatch_affinity_ntasks(a), *allowed = NULL, nallowed = 0;
	int64_t *pu = malloc((size_t)n * sizeof(*pu) + 1);
	topomatch_map_result_t res;
	int rc = CLI_FAIL;
	if (!pu) {
		cli_error("rankfile", "out of memory");
	} else if (topomatch_cluster_hostlist_pus(tg->cl, r->nodes, &allowed, &nallowed, err) ||
		   (r->opts.allowed = allowed, r->opts.nallowed = nallowed,
		    topomatch_cluster_map(tg->cl, a, &r->opts, pu, &res, err))) {
		cli_error("rankfile", "%s", err);
	} else {
		FILE *f = r->out && strcmp(r->out, "-") ? fopen(r->out, "w") : stdout;
		if (!f) {
			cli_error("rankfile", "%s: cannot write: %s", r->out, strerror(errno));
		} else {
			fprintf(f, "# topomatch rankfile: %lld ranks on %s (cluster %s), mapper %s\n",
				(long long)n, r->nodes, topomatch_cluster_name(tg->cl), res.mapper);
			rc = write_rankfile(f, tg->cl, pu, n);
			if ((f != stdout && fclose(f)) || (f == stdout && fflush(f)))
				rc = CLI_FAIL;
			if (rc)
				cli_error("rankfile", "%s: write failed", r->out ? r->out : "stdout");
			else
				rc = summary(r, tg, a, pu, &res);
		}
	}
	free(pu);
	free(allowed);
	return rc;
}

int cmd_rankfile(int argc, char **argv)
{
	struct rf_args r = { .in = { .format = TOPOMATCH_FORMAT_AUTO } };
	topomatch_map_opts_init(&r.opts);
	int rc = parse_args(argc, argv, &r);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	struct cli_target tg;
	topomatch_affinity_t *a;
	rc = cli_load("rankfile", &r.in, &tg, &a);
	if (rc != CLI_OK)
		return rc;
	if (!tg.cl)
		rc = cli_usage_error("rankfile", "-t must be a cluster description (.yaml)");
	else
		rc = run(&r, &tg, a);
	topomatch_affinity_destroy(a);
	cli_target_free(&tg);
	return rc;
}

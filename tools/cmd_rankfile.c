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

#include <stdlib.h>
#include <string.h>

int cmd_rankfile(int argc, char **argv);

static const char help[] =
	"Usage: topomatch rankfile -t CLUSTER.yaml -c PATTERN [--nodes HOSTLIST] [OPTIONS]\n"
	"Write an Open MPI rankfile that maps the pattern's ranks onto the cores of\n"
	"the given nodes (default: $SLURM_JOB_NODELIST), for `mpirun --rankfile`.\n"
	"\n"
	"  -t, --topology FILE     the cluster description (topomatch.yaml(5))\n"
	"  -c, --pattern FILE      communication pattern ('-' = stdin)\n"
	"      --nodes HOSTLIST    the allocation's nodes, e.g. n[05-08]\n"
	"      --format FMT        force the pattern format: dense, mm, triplets, grf\n"
	"      --mapper NAME       as for topomatch map (default auto)\n"
	"      --seed N            seed of the randomised mappers (default 1)\n"
	"      --out FILE          output file (default: stdout)\n"
	"      --max-tasks N, --max-nnz N, --max-bytes N   pattern limits\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 bad input, 2 bad usage. See topomatch-rankfile(1).\n";

enum { OPT_NODES = OPT_FIRST_PRIVATE };

struct rf_args {
	struct cli_inputs in;
	const char *nodes, *out;
	topomatch_map_opts_t opts;
};

static int parse_args(int argc, char **argv, struct rf_args *r)
{
	static const struct option longopts[] = {
		CLI_INPUT_LONGOPTS,
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "mapper", required_argument, NULL, OPT_MAPPER },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "out", required_argument, NULL, OPT_OUT },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:h", longopts, NULL)) != -1) {
		int k = cli_common_opt("rankfile", c, optarg, &r->in);
		if (k < 0)
			return CLI_USAGE;
		if (k > 0)
			continue;
		switch (c) {
		case 't': r->in.topo = optarg; break;
		case 'c': r->in.pattern = optarg; break;
		case OPT_NODES: r->nodes = optarg; break;
		case OPT_MAPPER: r->opts.mapper = optarg; break;
		case OPT_SEED:
			if (!cli_uint64("rankfile", "--seed", optarg, &r->opts.seed))
				return CLI_USAGE;
			break;
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
		return cli_usage_error("rankfile", "--nodes is needed outside a Slurm job");
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
			cli_error("rankfile", "%s: cannot write", r->out);
		} else {
			fprintf(f, "# topomatch rankfile: %lld ranks on %s (cluster %s), mapper %s\n",
				(long long)n, r->nodes, topomatch_cluster_name(tg->cl), res.mapper);
			rc = write_rankfile(f, tg->cl, pu, n);
			if ((f != stdout && fclose(f)) || (f == stdout && fflush(f)))
				rc = CLI_FAIL;
			if (rc)
				cli_error("rankfile", "%s: write failed", r->out ? r->out : "stdout");
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

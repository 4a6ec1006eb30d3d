/*
 * cmd_eval.c - `topomatch eval`: metrics of a given mapping.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_eval(int argc, char **argv);

static const char help[] =
	"Usage: topomatch eval -t TOPOLOGY -c PATTERN -s MAPFILE [OPTIONS]\n"
	"Print the metrics of a given mapping (MAPFILE: the PU id of each task in\n"
	"task order, whitespace-separated, as `topomatch map --out` writes it).\n"
	"\n"
	"  -t, --topology TOPO     Scotch target string or a file holding one, or a\n"
	"                          cluster description (.yaml, topomatch.yaml(5))\n"
	"  -c, --pattern FILE      communication pattern ('-' = stdin, a pipe or\n"
	"                          <(...), .gz read too); stderr says what was read\n"
	"  -s, --mapping FILE      the mapping to evaluate\n"
	"      --format FMT        force the pattern format: dense, mm, triplets, grf\n"
	"      --oversub F         refuse mappings with more than F tasks on a PU\n"
	"                          (default: any number; was -o)\n"
	"      --json              print only one JSON object on stdout\n"
	"  -q, --quiet             no \"pattern: ...\" line on stderr\n"
	"      --max-tasks N, --max-nnz N, --max-bytes N   pattern limits\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 bad input, 2 bad usage. See topomatch-eval(1).\n";

int cmd_eval(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_INPUT_LONGOPTS,
		{ "mapping", required_argument, NULL, 's' },
		{ "oversub", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_inputs in = { .format = TOPOMATCH_FORMAT_AUTO };
	const char *mapfile = NULL;
	int64_t oversub = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:s:o:qh", longopts, NULL)) != -1) {
		int r = cli_common_opt("eval", c, optarg, &in);
		if (r < 0)
			return CLI_USAGE;
		if (r > 0)
			continue;
		switch (c) {
		case 't': in.topo = optarg; break;
		case 'c': in.pattern = optarg; break;
		case 's': mapfile = optarg; break;
		case 'O':
			if (!cli_int64("eval", "--oversub", optarg, 1, INT32_MAX, &oversub))
				return CLI_USAGE;
			break;
		case 'o': /* map's -o is its output now: one meaning for -o */
			return cli_usage_error("eval", "-o is no longer the oversubscription "
						       "factor: --oversub %s", optarg);
		case 'h': fputs(help, stdout); return CLI_OK;
		case ':': return cli_usage_error("eval", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
	if (!in.topo || !in.pattern || !mapfile)
		return cli_usage_error("eval", "-t TOPOLOGY, -c PATTERN and -s MAPFILE are needed");

	struct cli_target tg;
	topomatch_affinity_t *a;
	int rc = cli_load("eval", &in, &tg, &a);
	if (rc != CLI_OK)
		return rc;
	char err[TOPOMATCH_ERRLEN];
	int64_t n = topomatch_affinity_ntasks(a), *pu = NULL, count = 0;
	topomatch_metrics_t m;
	rc = CLI_FAIL;
	if (topomatch_read_id_list(mapfile, cli_target_npu(&tg), 0, n, &pu, &count, err))
		cli_error("eval", "%s", err);
	else if (count != n)
		cli_error("eval", "%s: %lld PU ids for %lld tasks", mapfile, (long long)count,
			  (long long)n);
	else {
		for (int64_t i = 0; i < n; i++)
			pu[i] = cli_target_topology_pu(&tg, pu[i]);
		if (oversub && topomatch_mapping_check(tg.t, n, pu, NULL, 0, (int)oversub, err))
			cli_error("eval", "%s: %s", mapfile, err);
		else if (topomatch_metrics_compute(a, tg.t, pu, &m, err))
			cli_error("eval", "%s", err);
		else {
			struct cli_report rep = { .mapper = "given", .ntasks = n, .tg = &tg,
						  .m = &m };
			rc = cli_report_print("eval", stdout, &rep, in.json);
		}
	}
	free(pu);
	topomatch_affinity_destroy(a);
	cli_target_free(&tg);
	return rc;
}

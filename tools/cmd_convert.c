/*
 * cmd_convert.c - `topomatch convert`: Open MPI's communication
 * monitoring output to a pattern (the parsing is libtopomatch's,
 * core/pattern/affinity_ompi.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cmd_convert(int argc, char **argv);
/* cmd_gen.c */

static const char help[] =
	"Usage: topomatch convert [OPTIONS] INPUT...\n"
	"Convert Open MPI's communication monitoring output into a pattern.\n"
	"\n"
	"Record it with (Open MPI 4.x):\n"
	"  mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \\\n"
	"         --mca pml_monitoring_filename PREFIX ./app\n"
	"which writes PREFIX.RANK.prof for every rank.  Each INPUT is such a\n"
	"PREFIX (all its PREFIX.RANK.prof are read) or one file (its rank from a\n"
	"name ending in .RANK.prof, else from its lines; '-' is standard input).\n"
	"Every rank of the run needs exactly one file.\n"
	"\n"
	"Options:\n"
	"      --kinds LIST        lines to count, comma-separated (default E,I):\n"
	"                          E  point-to-point with user tags (with\n"
	"                             pml_monitoring_enable 1: all point-to-point)\n"
	"                          I  point-to-point that collectives sent\n"
	"                          C  collectives as the coll component books them\n"
	"                             (the same traffic as I: do not add both)\n"
	"                          S  one-sided puts/accumulates; R one-sided gets\n"
	"                          all  every kind\n"
	"                          E,I is every message the run sent, whatever\n"
	"                          pml_monitoring_enable was\n"
	"      --metric M          bytes (default) or msgs (message counts)\n"
	"      --ranks N           the run's number of ranks (default: the highest\n"
	"                          rank with a file + 1)\n"
	"  -o, --output, --out FILE  output file (default: stdout)\n"
	"      --format FMT        dense, mm, triplets or grf; default from the\n"
	"                          --out suffix (.mat dense, .mtx/.mm mm, .grf grf),\n"
	"                          else triplets\n"
	"      --max-tasks N       refuse runs of more ranks (default 4194304)\n"
	"      --max-nnz N         refuse more entries (default 268435456)\n"
	"      --max-bytes N       refuse larger files (default 4 GiB each)\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 bad input, 2 bad usage. See topomatch-convert(1).\n";

enum { C_KINDS = OPT_FIRST_PRIVATE, C_METRIC, C_RANKS };

struct convert_args {
	topomatch_ompi_opts_t opts;
	const char *out;
	int format;
};

static int parse_opt(int c, const char *arg, struct convert_args *a)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t v;

	switch (c) {
	case C_KINDS:
		if (topomatch_ompi_kinds_parse(arg, &a->opts.kinds, err) != TOPOMATCH_OK)
			return cli_usage_error("convert", "--%s", err);
		return CLI_OK;
	case C_METRIC:
		if (!strcmp(arg, "bytes"))
			a->opts.metric = TOPOMATCH_OMPI_BYTES;
		else if (!strcmp(arg, "msgs"))
			a->opts.metric = TOPOMATCH_OMPI_MSGS;
		else
			return cli_usage_error("convert", "--metric: '%s' is not bytes or msgs",
					       arg);
		return CLI_OK;
	case C_RANKS:
		if (!cli_int64("convert", "--ranks", arg, 1, TOPOMATCH_DEFAULT_MAX_TASKS, &v))
			return CLI_USAGE;
		a->opts.nranks = v;
		return CLI_OK;
	case OPT_MAX_TASKS:
	case OPT_MAX_NNZ:
	case OPT_MAX_BYTES: {
		const char *name = c == OPT_MAX_TASKS ? "--max-tasks"
				   : c == OPT_MAX_NNZ ? "--max-nnz" : "--max-bytes";
		if (!cli_int64("convert", name, arg, 1, INT64_MAX, &v))
			return CLI_USAGE;
		int64_t *field = c == OPT_MAX_TASKS ? &a->opts.limits.max_tasks
				 : c == OPT_MAX_NNZ ? &a->opts.limits.max_nnz
						    : &a->opts.limits.max_bytes;
		*field = v;
		return CLI_OK;
	}
	case OPT_OUT: a->out = arg; return CLI_OK;
	case OPT_FORMAT: return cli_output_format("convert", arg, &a->format);
	default: return cli_usage_error("convert", "unknown option");
	}
}

static int parse_args(int argc, char **argv, struct convert_args *a)
{
	static const struct option longopts[] = {
		{ "kinds", required_argument, NULL, C_KINDS },
		{ "metric", required_argument, NULL, C_METRIC },
		{ "ranks", required_argument, NULL, C_RANKS },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "output", required_argument, NULL, OPT_OUT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
		{ "max-nnz", required_argument, NULL, OPT_MAX_NNZ },
		{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == 'o') /* -o, as --out: one meaning of -o in every command */
			c = OPT_OUT;
		if (c == 'h') {
			fputs(help, stdout);
			exit(CLI_OK);
		}
		if (c == ':')
			return cli_usage_error("convert", "option '%s' needs a value",
					       argv[optind - 1]);
		if (c == '?')
			return cli_usage_error("convert", "unknown option '%s'", argv[optind - 1]);
		int rc = parse_opt(c, optarg, a);
		if (rc != CLI_OK)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error("convert", "no INPUT: give the monitoring PREFIX or its "
						  ".prof files");
	return CLI_OK;
}

/* An existing non-directory is a file; anything else a PREFIX (whose
 * files are PREFIX.RANK.prof, so PREFIX itself need not exist). */
static int add_input(topomatch_ompi_t *m, const char *arg, char *err)
{
	struct stat st;

	if (!strcmp(arg, "-"))
		return topomatch_ompi_add(m, stdin, "stdin", -1, err);
	if (stat(arg, &st) == 0 && !S_ISDIR(st.st_mode))
		return topomatch_ompi_add_file(m, arg, err);
	return topomatch_ompi_add_prefix(m, arg, NULL, err);
}

/* The kinds that count the same messages twice. */
static void warn_double_counting(unsigned kinds, const topomatch_ompi_info_t *info)
{
	if (!(kinds & TOPOMATCH_OMPI_C) || info->lines[2] == 0)
		return;
	if ((kinds & TOPOMATCH_OMPI_I) && info->lines[1] > 0)
		cli_error("convert", "warning: C and I lines book the same collectives: "
				     "they count twice");
	else if ((kinds & TOPOMATCH_OMPI_E) && info->lines[1] == 0)
		cli_error("convert", "warning: no I lines: if the run had "
				     "pml_monitoring_enable 1, its E lines hold the collectives' "
				     "messages too and C counts them again");
}

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = { .opts = { 0 } };
	int rc = parse_args(argc, argv, &a);
	if (rc != CLI_OK)
		return rc;
	char err[TOPOMATCH_ERRLEN];
	topomatch_ompi_t *m = NULL;
	topomatch_affinity_t *pat = NULL;
	topomatch_ompi_info_t info;
	if (topomatch_ompi_create(&a.opts, &m, err) != TOPOMATCH_OK) {
		cli_error("convert", "%s", err);
		return CLI_FAIL;
	}
	rc = TOPOMATCH_OK;
	for (int i = optind; i < argc && rc == TOPOMATCH_OK; i++)
		rc = add_input(m, argv[i], err);
	if (rc == TOPOMATCH_OK)
		rc = topomatch_ompi_finish(m, &pat, &info, err);
	if (rc != TOPOMATCH_OK) {
		cli_error("convert", "%s", err);
		topomatch_ompi_destroy(m);
		return CLI_FAIL;
	}
	warn_double_counting(a.opts.kinds ? a.opts.kinds : TOPOMATCH_OMPI_DEFAULT_KINDS, &info);
	rc = cli_write_pattern("convert", a.out, a.format, pat);
	topomatch_affinity_destroy(pat);
	topomatch_ompi_destroy(m);
	return rc;
}

/*
 * cmd_gen.c - `topomatch gen`: synthetic communication patterns.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_gen(int argc, char **argv);

static const char help[] =
	"Usage: topomatch gen KIND [OPTIONS]\n"
	"       topomatch gen --from-profile FILE (--tasks N | --dims AxB[xC]) [OPTIONS]\n"
	"Write a synthetic communication pattern.\n"
	"\n"
	"Kinds and their options:\n"
	"  stencil2d, stencil3d    --dims 16x16[x16]  --points 5|9 (2D), 7|27 (3D)\n"
	"                          --periodic  --weights WX,WY[,WZ] (default 1 each)\n"
	"  hierarchical            --arity A1,A2,... (innermost group first; tasks =\n"
	"                          product)  --base W (1000)  --ratio R (10)\n"
	"                          --jitter J (0.1)  (TreeMatch §5.1)\n"
	"  random                  --tasks N  --degree D (6)  --max-weight W (100)\n"
	"  alltoall                --tasks N  --weight W (1)\n"
	"  cg, lu, mg, ft, bt, sp  models of the NAS Parallel Benchmarks' MPI kernels:\n"
	"                          --tasks N (a power of two; a square for bt, sp)\n"
	"                          --class S|W|A|B|C|D|E (A): the problem size that\n"
	"                          sets the bytes (see topomatch-gen(1))\n"
	"\n"
	"From a recorded pattern:\n"
	"      --from-profile FILE recognise FILE as a 2D/3D Cartesian stencil (its\n"
	"                          grid, face weights, wrap-around; printed on\n"
	"                          stderr) and write it again on --tasks N tasks\n"
	"                          (the same proportions) or on --dims AxB[xC]\n"
	"      --tolerance F       share of FILE's weight that may lie off the\n"
	"                          stencil (default 0.05)\n"
	"\n"
	"Common options:\n"
	"      --seed N            seed of random kinds and of the noise (default 1)\n"
	"      --noise MODEL:K     add noise (TopoMatch §5.5): ga, gm, ua, um\n"
	"                          (gaussian/uniform, additive/multiplicative)\n"
	"      --shuffle SEED      relabel the tasks with a random permutation\n"
	"                          (applied after the noise)\n"
	"  -o, --output, --out FILE  output file (default: stdout)\n"
	"      --format FMT        dense, mm, triplets or grf; default from the\n"
	"                          --out suffix (.mat dense, .mtx/.mm mm, .grf grf),\n"
	"                          else triplets\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 failure, 2 bad usage. See topomatch-gen(1).\n";

enum {
	G_DIMS = OPT_FIRST_PRIVATE,
	G_POINTS,
	G_PERIODIC,
	G_WEIGHTS,
	G_ARITY,
	G_BASE,
	G_RATIO,
	G_JITTER,
	G_TASKS,
	G_DEGREE,
	G_MAXW,
	G_WEIGHT,
	G_NOISE,
	G_SHUFFLE,
	G_CLASS,
	G_FROM,
	G_TOL,
};

struct gen_args {
	const char *kind;
	int dims[3], ndims_given, points, periodic;
	double weights[3];
	int nweights;
	int arity[TOPOMATCH_MAX_LEVELS], narity;
	double base, ratio, jitter, maxw, weight;
	int64_t tasks, degree;
	uint64_t seed, shuffle_seed;
	bool shuffle;
	int noise_model;
	double noise_k;
	const char *out;
	int format;
	char nas_class;
	const char *from; /* --from-profile */
	double tolerance;
};

/* "16x16x8" -> dims; returns the count or -1. */
static int parse_dims(const char *s, int *dims, int max)
{
	int n = 0;
	const char *p = s;
	for (;;) {
		char *e;
		errno = 0;
		long v = strtol(p, &e, 10);
		if (errno || e == p || v < 1 || v > (1L << 24) || n == max)
			return -1;
		dims[n++] = (int)v;
		if (*e == '\0')
			return n;
		if (*e != 'x' && *e != 'X')
			return -1;
		p = e + 1;
	}
}

/* "1000,500,100" -> numbers; returns the count or -1. */
static int parse_list(const char *s, double *v, int max)
{
	int n = 0;
	const char *p = s;
	for (;;) {
		char *e;
		errno = 0;
		double x = strtod(p, &e);
		if (errno || e == p || n == max)
			return -1;
		v[n++] = x;
		if (*e == '\0')
			return n;
		if (*e != ',')
			return -1;
		p = e + 1;
	}
}

static bool parse_noise(const char *s, struct gen_args *g)
{
	const char *colon = strchr(s, ':');
	char model[64];
	if (!colon || (size_t)(colon - s) >= sizeof(model)) {
		cli_usage_error("gen", "--noise: expected MODEL:K, e.g. gm:0.2 (got '%s')", s);
		return false;
	}
	memcpy(model, s, (size_t)(colon - s));
	model[colon - s] = '\0';
	g->noise_model = topomatch_noise_from_name(model);
	if (g->noise_model < 0) {
		cli_usage_error("gen", "--noise: unknown model '%s' (ga, gm, ua, um)", model);
		return false;
	}
	return cli_double("gen", "--noise", colon + 1, 0, 1e300, &g->noise_k);
}

static int parse_opt(int c, const char *arg, struct gen_args *g)
{
	double list[TOPOMATCH_MAX_LEVELS];
	int n;
	switch (c) {
	case G_DIMS:
		if ((g->ndims_given = parse_dims(arg, g->dims, 3)) < 2)
			return cli_usage_error("gen", "--dims: expected AxB or AxBxC, got '%s'", arg);
		return CLI_OK;
	case G_POINTS: {
		int64_t v;
		if (!cli_int64("gen", "--points", arg, 5, 27, &v))
			return CLI_USAGE;
		g->points = (int)v;
		return CLI_OK;
	}
	case G_PERIODIC: g->periodic = 1; return CLI_OK;
	case G_WEIGHTS:
		if ((g->nweights = parse_list(arg, g->weights, 3)) < 1)
			return cli_usage_error("gen", "--weights: expected W1,W2[,W3], got '%s'", arg);
		return CLI_OK;
	case G_ARITY:
		if ((n = parse_list(arg, list, TOPOMATCH_MAX_LEVELS)) < 1)
			return cli_usage_error("gen", "--arity: expected A1,A2,..., got '%s'", arg);
		for (int i = 0; i < n; i++) {
			if (list[i] < 2 || list[i] > 65536 || list[i] != (int)list[i])
				return cli_usage_error("gen", "--arity: '%s': each arity must be "
							      "an integer in [2, 65536]", arg);
			g->arity[i] = (int)list[i];
		}
		g->narity = n;
		return CLI_OK;
	case G_BASE: return cli_double("gen", "--base", arg, 1e-300, 1e300, &g->base) ? 0 : 2;
	case G_RATIO: return cli_double("gen", "--ratio", arg, 1, 1e300, &g->ratio) ? 0 : 2;
	case G_JITTER: return cli_double("gen", "--jitter", arg, 0, 0.999, &g->jitter) ? 0 : 2;
	case G_MAXW: return cli_double("gen", "--max-weight", arg, 1, 0x1p53, &g->maxw) ? 0 : 2;
	case G_WEIGHT: return cli_double("gen", "--weight", arg, 0, 1e300, &g->weight) ? 0 : 2;
	case G_TASKS:
		return cli_int64("gen", "--tasks", arg, 1, TOPOMATCH_DEFAULT_MAX_TASKS, &g->tasks)
			       ? 0 : 2;
	case G_DEGREE: return cli_int64("gen", "--degree", arg, 0, INT32_MAX, &g->degree) ? 0 : 2;
	case OPT_SEED: return cli_uint64("gen", "--seed", arg, &g->seed) ? 0 : 2;
	case G_SHUFFLE:
		g->shuffle = true;
		return cli_uint64("gen", "--shuffle", arg, &g->shuffle_seed) ? 0 : 2;
	case G_NOISE: return parse_noise(arg, g) ? 0 : 2;
	case G_CLASS:
		if (strlen(arg) != 1 || !strchr("SWABCDEswabcde", arg[0]))
			return cli_usage_error("gen", "--class: '%s' is not one of S, W, A, B, C, D, E",
					       arg);
		g->nas_class = (char)(arg[0] & ~0x20); /* upper case */
		return CLI_OK;
	case G_FROM: g->from = arg; return CLI_OK;
	case G_TOL: return cli_double("gen", "--tolerance", arg, 0, 1, &g->tolerance) ? 0 : 2;
	case OPT_OUT: g->out = arg; return CLI_OK;
	case OPT_FORMAT: return cli_output_format("gen", arg, &g->format);
	default: return cli_usage_error("gen", "unknown option");
	}
}

static int parse_args(int argc, char **argv, struct gen_args *g)
{
	static const struct option longopts[] = {
		{ "dims", required_argument, NULL, G_DIMS },
		{ "points", required_argument, NULL, G_POINTS },
		{ "periodic", no_argument, NULL, G_PERIODIC },
		{ "weights", required_argument, NULL, G_WEIGHTS },
		{ "arity", required_argument, NULL, G_ARITY },
		{ "base", required_argument, NULL, G_BASE },
		{ "ratio", required_argument, NULL, G_RATIO },
		{ "jitter", required_argument, NULL, G_JITTER },
		{ "tasks", required_argument, NULL, G_TASKS },
		{ "degree", required_argument, NULL, G_DEGREE },
		{ "max-weight", required_argument, NULL, G_MAXW },
		{ "weight", required_argument, NULL, G_WEIGHT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "noise", required_argument, NULL, G_NOISE },
		{ "shuffle", required_argument, NULL, G_SHUFFLE },
		{ "class", required_argument, NULL, G_CLASS },
		{ "from-profile", required_argument, NULL, G_FROM },
		{ "tolerance", required_argument, NULL, G_TOL },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "output", required_argument, NULL, OPT_OUT },
		{ "format", required_argument, NULL, OPT_FORMAT },
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
			return cli_usage_error("gen", "option '%s' needs a value", argv[optind - 1]);
		if (c == '?')
			return cli_usage_error("gen", "unknown option '%s'", argv[optind - 1]);
		int rc = parse_opt(c, optarg, g);
		if (rc != CLI_OK)
			return rc;
	}
	if (g->from) {
		if (optind < argc)
			return cli_usage_error("gen", "--from-profile takes no KIND (got '%s')",
					       argv[optind]);
		return CLI_OK;
	}
	if (optind != argc - 1)
		return cli_usage_error("gen", optind >= argc ? "which KIND of pattern?"
							      : "more than one KIND given");
	g->kind = argv[optind];
	return CLI_OK;
}

/* Options a kind needs; usage errors exit 2 before anything is generated. */
static int check_kind(const struct gen_args *g)
{
	const char *k = g->kind;
	if (g->from) {
		if (!g->tasks == !g->ndims_given)
			return cli_usage_error("gen", "--from-profile needs --tasks N or --dims "
						      "AxB[xC] (one of them)");
		return CLI_OK;
	}
	if (topomatch_nas_from_name(k) > 0)
		return g->tasks ? CLI_OK : cli_usage_error("gen", "%s needs --tasks N", k);
	if (!strcmp(k, "stencil2d") || !strcmp(k, "stencil3d")) {
		int nd = k[7] - '0';
		if (g->ndims_given != nd)
			return cli_usage_error("gen", "%s needs --dims with %d sizes", k, nd);
		if (g->nweights && g->nweights != nd)
			return cli_usage_error("gen", "%s needs %d --weights values", k, nd);
		return CLI_OK;
	}
	if (!strcmp(k, "hierarchical"))
		return g->narity ? CLI_OK
				 : cli_usage_error("gen", "hierarchical needs --arity A1,A2,...");
	if (!strcmp(k, "random") || !strcmp(k, "alltoall"))
		return g->tasks ? CLI_OK : cli_usage_error("gen", "%s needs --tasks N", k);
	return cli_usage_error("gen", "unknown KIND '%s' (stencil2d, stencil3d, hierarchical, "
				      "random, alltoall, cg, lu, mg, ft, bt, sp)", k);
}

/* "8x8x4" */
static void dims_str(const topomatch_stencil_shape_t *s, char *buf, size_t len)
{
	if (s->ndims == 2)
		snprintf(buf, len, "%dx%d", s->dims[0], s->dims[1]);
	else
		snprintf(buf, len, "%dx%dx%d", s->dims[0], s->dims[1], s->dims[2]);
}

/* --from-profile: recognise, resize, regenerate; says what it saw. */
static int from_profile(const struct gen_args *g, topomatch_affinity_t **a, char *err)
{
	topomatch_affinity_t *rec = NULL;
	topomatch_stencil_shape_t s;
	char was[64], now[64], w[128];
	char *buf;
	size_t len;
	/* as map -c reads a pattern: pipes, stdin and .gz too; its errors are
	 * printed there, err stays empty (the caller prints nothing more) */
	if (cli_read_input("gen", g->from, TOPOMATCH_DEFAULT_MAX_BYTES, &buf, &len) != CLI_OK) {
		err[0] = '\0';
		return TOPOMATCH_EIO;
	}
	int rc = topomatch_affinity_read_buffer(buf, len, strcmp(g->from, "-") ? g->from : "<stdin>",
						TOPOMATCH_FORMAT_AUTO, NULL, &rec, err);
	free(buf);
	if (rc != TOPOMATCH_OK)
		return rc;
	rc = topomatch_stencil_detect(rec, g->tolerance, &s, err);
	topomatch_affinity_destroy(rec);
	if (rc != TOPOMATCH_OK) {
		char msg[TOPOMATCH_ERRLEN];
		memcpy(msg, err, sizeof(msg));
		snprintf(err, TOPOMATCH_ERRLEN, "%.150s: %.350s", g->from, msg);
		return rc;
	}
	dims_str(&s, was, sizeof(was));
	if (g->ndims_given) {
		if (g->ndims_given != s.ndims) {
			snprintf(err, TOPOMATCH_ERRLEN, "%s is a %dD stencil (%s): --dims needs %d "
				 "sizes", g->from, s.ndims, was, s.ndims);
			return TOPOMATCH_EINVAL;
		}
		memcpy(s.dims, g->dims, sizeof(s.dims));
	} else if ((rc = topomatch_stencil_rescale(&s, g->tasks, err)) != TOPOMATCH_OK) {
		return rc;
	}
	dims_str(&s, now, sizeof(now));
	if (s.ndims == 2)
		snprintf(w, sizeof(w), "weights %.15g,%.15g, wrap %d,%d", s.weight[0], s.weight[1],
			 s.periodic[0], s.periodic[1]);
	else
		snprintf(w, sizeof(w), "weights %.15g,%.15g,%.15g, wrap %d,%d,%d", s.weight[0],
			 s.weight[1], s.weight[2], s.periodic[0], s.periodic[1], s.periodic[2]);
	fprintf(stderr, "topomatch gen: %s: %dD %d-point stencil %s, %s; writing %s\n", g->from,
		s.ndims, s.points, was, w, now);
	return topomatch_gen_stencil_shape(&s, a, err);
}

static int generate(const struct gen_args *g, topomatch_affinity_t **a, char *err)
{
	const char *k = g->kind;
	if (g->from)
		return from_profile(g, a, err);
	int kernel = topomatch_nas_from_name(k);
	if (kernel > 0)
		return topomatch_gen_nas(kernel, g->tasks, g->nas_class, a, err);
	if (!strncmp(k, "stencil", 7)) {
		int nd = k[7] - '0';
		int points = g->points ? g->points : (nd == 2 ? 5 : 7);
		return topomatch_gen_stencil(nd, g->dims, points, g->periodic,
					     g->nweights ? g->weights : NULL, a, err);
	}
	if (!strcmp(k, "hierarchical"))
		return topomatch_gen_hierarchical(g->narity, g->arity, g->base, g->ratio,
						  g->jitter, g->seed, a, err);
	if (!strcmp(k, "random"))
		return topomatch_gen_random(g->tasks, g->degree, g->maxw, g->seed, a, err);
	return topomatch_gen_alltoall(g->tasks, g->weight, 0, a, err);
}

/* Noise, then shuffle: each step replaces the pattern. */
static int transform(const struct gen_args *g, topomatch_affinity_t **a, char *err)
{
	topomatch_affinity_t *b;
	if (g->noise_model > 0) {
		int rc = topomatch_affinity_noise(*a, g->noise_model, g->noise_k, g->seed, 0, &b,
						  err);
		if (rc != TOPOMATCH_OK)
			return rc;
		topomatch_affinity_destroy(*a);
		*a = b;
	}
	if (g->shuffle) {
		int rc = topomatch_affinity_shuffle(*a, g->shuffle_seed, &b, err);
		if (rc != TOPOMATCH_OK)
			return rc;
		topomatch_affinity_destroy(*a);
		*a = b;
	}
	return TOPOMATCH_OK;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_args g = { .base = 1000, .ratio = 10, .jitter = 0.1, .maxw = 100,
			      .weight = 1, .degree = 6, .seed = 1, .nas_class = 'A',
			      .tolerance = 0.05 };
	int rc = parse_args(argc, argv, &g);
	if (rc == CLI_OK)
		rc = check_kind(&g);
	if (rc != CLI_OK)
		return rc;
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *a = NULL;
	if (generate(&g, &a, err) != TOPOMATCH_OK || transform(&g, &a, err) != TOPOMATCH_OK) {
		if (err[0])
			cli_error("gen", "%s", err);
		topomatch_affinity_destroy(a);
		return CLI_FAIL;
	}
	rc = cli_write_pattern("gen", g.out, g.format, a);
	topomatch_affinity_destroy(a);
	return rc;
}

/*
 * tm_study.c - two studies of the TopoMatch paper (JPDC 2022) redone on
 * libtopomatch, printed as tables (or one JSON object with --json):
 *
 *  - noise (§5.5): the four noise models (Gaussian/uniform, additive/
 *    multiplicative) over a sweep of their intensity k; the mapping is
 *    computed from the noisy matrix and its hop-bytes are taken on the
 *    clean one, the mean over --seeds noise draws;
 *  - sparse (§5.1): Scotch mapping (TopoMatch Alg. 2) with the sparse
 *    factor from 0 to 0.9: its time and the hop-bytes on the full matrix.
 *
 * The pattern is bench/tm_bench's tree-1k case: a 16x8x8 7-point stencil
 * with face weights 1000/500/100, ranks shuffled (seed 1), on
 * "tleaf 3 32 100 2 10 16 1"; the sparse study adds a dense pattern
 * (TreeMatch §5.1's hierarchical generator, groups 16 x 2 x 32, shuffled),
 * where the sparse factor decides most.  Hop-bytes are deterministic;
 * times belong to the machine that printed them.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topomatch.h"

#define TARGET "tleaf 3 32 100 2 10 16 1"
#define SEED 1

static const int dims[3] = { 16, 8, 8 };
static const double face_weight[3] = { 1000.0, 500.0, 100.0 };

/* Intensities of §5.5: additive k in the matrix's units (A = C + C^T:
 * 2000, 1000 and 200 on the faces), multiplicative k relative. */
static const double k_add[] = { 0, 30, 100, 300, 1000, 3000, 10000 };
static const double k_mul[] = { 0, 0.1, 0.3, 1, 3, 10, 30 };
#define NK (sizeof(k_add) / sizeof(k_add[0]))

static const char *const models[] = { "ga", "gm", "ua", "um" };

static const double factors[] = { 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9 };
#define NF (sizeof(factors) / sizeof(factors[0]))

struct inputs {
	topomatch_topology_t *t;
	topomatch_affinity_t *stencil; /* shuffled */
	topomatch_affinity_t *dense;   /* hierarchical, shuffled */
	int64_t *pu;
};

static void die(const char *what, const char *err)
{
	fprintf(stderr, "tm_study: %s: %s\n", what, err);
	exit(1);
}

static double hop_bytes(const topomatch_affinity_t *clean, const topomatch_topology_t *t,
			const int64_t *pu)
{
	topomatch_metrics_t m;
	char err[TOPOMATCH_ERRLEN];
	if (topomatch_metrics_compute(clean, t, pu, &m, err) != TOPOMATCH_OK)
		die("metrics", err);
	return m.hop_bytes;
}

/* Map a with mapper (sparse factor sf < 0: the default); the time. */
static double map(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		  const char *mapper, double sf, int64_t *pu)
{
	topomatch_map_opts_t o;
	topomatch_map_result_t r;
	char err[TOPOMATCH_ERRLEN];
	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	o.seed = SEED;
	if (sf >= 0)
		o.sparse_factor = sf;
	if (topomatch_map(a, t, &o, pu, &r, err) != TOPOMATCH_OK)
		die(mapper, err);
	return r.time_s;
}

static void inputs_make(struct inputs *in)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_affinity_t *s, *h;
	const int arity[3] = { 16, 2, 32 };
	if (topomatch_topology_parse(TARGET, "tm_study", &in->t, err) ||
	    topomatch_gen_stencil(3, dims, 7, 0, face_weight, &s, err) ||
	    topomatch_affinity_shuffle(s, SEED, &in->stencil, err) ||
	    topomatch_gen_hierarchical(3, arity, 1000, 10, 0.1, SEED, &h, err) ||
	    topomatch_affinity_shuffle(h, SEED, &in->dense, err))
		die("inputs", err);
	topomatch_affinity_destroy(s);
	topomatch_affinity_destroy(h);
	in->pu = malloc((size_t)topomatch_affinity_ntasks(in->stencil) * sizeof(*in->pu));
	if (!in->pu)
		die("inputs", "out of memory");
}

/* ------------------------------------------------------------- noise */

struct noise_row {
	const char *model;
	double k, hb, ratio;
};

static int noise_study(const struct inputs *in, int seeds, struct noise_row *rows,
		       double *clean_hb, double *rr_hb)
{
	char err[TOPOMATCH_ERRLEN];
	int n = 0;
	map(in->stencil, in->t, "auto", -1, in->pu);
	*clean_hb = hop_bytes(in->stencil, in->t, in->pu);
	map(in->stencil, in->t, "round-robin", -1, in->pu);
	*rr_hb = hop_bytes(in->stencil, in->t, in->pu);
	for (size_t m = 0; m < 4; m++) {
		int model = topomatch_noise_from_name(models[m]);
		const double *ks = models[m][1] == 'a' ? k_add : k_mul;
		for (size_t i = 0; i < NK; i++) {
			double sum = 0.0;
			for (int sd = 1; sd <= seeds; sd++) {
				topomatch_affinity_t *noisy;
				if (topomatch_affinity_noise(in->stencil, model, ks[i], (uint64_t)sd, 0,
							     &noisy, err) != TOPOMATCH_OK)
					die("noise", err);
				map(noisy, in->t, "auto", -1, in->pu);
				sum += hop_bytes(in->stencil, in->t, in->pu);
				topomatch_affinity_destroy(noisy);
			}
			rows[n] = (struct noise_row){ models[m], ks[i], sum / seeds,
						      sum / seeds / *clean_hb };
			fprintf(stderr, "tm_study: noise %s k=%g done\n", models[m], ks[i]);
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------ sparse */

struct sparse_row {
	const char *pattern;
	double factor, time_s, hb, ratio;
};

static int sparse_study(const struct inputs *in, struct sparse_row *rows)
{
	const topomatch_affinity_t *pats[2] = { in->stencil, in->dense };
	const char *names[2] = { "stencil", "hierarchical" };
	int n = 0;
	for (int p = 0; p < 2; p++) {
		double base = 0.0;
		for (size_t i = 0; i < NF; i++) {
			double t = map(pats[p], in->t, "scotch", factors[i], in->pu);
			double hb = hop_bytes(pats[p], in->t, in->pu);
			base = i == 0 ? hb : base;
			rows[n++] = (struct sparse_row){ names[p], factors[i], t, hb, hb / base };
			fprintf(stderr, "tm_study: sparse %s %g done\n", names[p], factors[i]);
		}
	}
	return n;
}

/* ------------------------------------------------------------ output */

static void usage(FILE *f)
{
	fprintf(f, "Usage: tm_study [--study noise|sparse|all] [--seeds N] [--json]\n"
		   "TopoMatch's noise (§5.5) and sparse-factor (§5.1) studies on libtopomatch.\n"
		   "  --study S   which study (default all)\n"
		   "  --seeds N   noise draws per point (default 3)\n"
		   "  --json      one JSON object on stdout\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "study", required_argument, NULL, 's' },
					       { "seeds", required_argument, NULL, 'n' },
					       { "json", no_argument, NULL, 'j' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	const char *study = "all";
	int seeds = 3, json = 0, c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 's':
			study = optarg;
			break;
		case 'n':
			seeds = (int)strtol(optarg, &end, 10);
			if (*end || seeds < 1 || seeds > 100) {
				fprintf(stderr, "tm_study: --seeds wants 1 to 100\n");
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (strcmp(study, "noise") && strcmp(study, "sparse") &&
			      strcmp(study, "all"))) {
		usage(stderr);
		return 2;
	}
	struct inputs in;
	inputs_make(&in);
	struct noise_row nr[4 * NK];
	struct sparse_row sr[2 * NF];
	int nn = 0, ns = 0;
	double clean = 0, rr = 0;
	if (strcmp(study, "sparse"))
		nn = noise_study(&in, seeds, nr, &clean, &rr);
	if (strcmp(study, "noise"))
		ns = sparse_study(&in, sr);
	if (json) {
		printf("{\"target\": \"%s\", \"seeds\": %d, \"noise\": {\"clean_hop_bytes\": %.17g, "
		       "\"round_robin_hop_bytes\": %.17g, \"rows\": [",
		       TARGET, seeds, clean, rr);
		for (int i = 0; i < nn; i++)
			printf("%s{\"model\": \"%s\", \"k\": %.17g, \"hop_bytes\": %.17g, "
			       "\"ratio\": %.17g}",
			       i ? ", " : "", nr[i].model, nr[i].k, nr[i].hb, nr[i].ratio);
		printf("]}, \"sparse\": [");
		for (int i = 0; i < ns; i++)
			printf("%s{\"pattern\": \"%s\", \"factor\": %.17g, \"time_s\": %.17g, "
			       "\"hop_bytes\": %.17g, \"ratio\": %.17g}",
			       i ? ", " : "", sr[i].pattern, sr[i].factor, sr[i].time_s, sr[i].hb,
			       sr[i].ratio);
		printf("]}\n");
	} else {
		if (nn) {
			printf("# noise (TopoMatch §5.5): auto on the noisy matrix, hop-bytes on "
			       "the clean one, mean of %d draws\n", seeds);
			printf("# clean mapping %.0f, round-robin %.0f (ratio %.3f)\n", clean, rr,
			       rr / clean);
			printf("%-6s %10s %14s %8s\n", "model", "k", "hop-bytes", "/clean");
			for (int i = 0; i < nn; i++)
				printf("%-6s %10g %14.0f %8.3f\n", nr[i].model, nr[i].k, nr[i].hb,
				       nr[i].ratio);
		}
		if (ns) {
			printf("# sparse factor (TopoMatch §5.1): scotch mapper\n");
			printf("%-13s %6s %10s %14s %8s\n", "pattern", "factor", "time(s)",
			       "hop-bytes", "/sf=0");
			for (int i = 0; i < ns; i++)
				printf("%-13s %6.1f %10.4f %14.0f %8.3f\n", sr[i].pattern,
				       sr[i].factor, sr[i].time_s, sr[i].hb, sr[i].ratio);
		}
	}
	topomatch_topology_destroy(in.t);
	topomatch_affinity_destroy(in.stencil);
	topomatch_affinity_destroy(in.dense);
	free(in.pu);
	return 0;
}

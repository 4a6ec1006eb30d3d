/*
 * sim_model.c - the simulator's communication model and statistics.
 *
 * Model (one for every policy, topomatch-sim(1) "COMMUNICATION MODEL"):
 *   run = trace run x (1 - s + s x HB / HB_ref)
 * s is the share of the run spent communicating on the compact reference
 * placement (the job's tasks in block order on the cluster's first nodes,
 * which fill the first leaf switches), HB the hop-bytes of the policy's
 * placement and HB_ref those of the reference.  Communication time is
 * taken proportional to hop-bytes: the volume times the links it crosses,
 * the load a placement puts on the network (TopoMatch §3.5; the usual
 * proxy when links are not saturated).  A job without communication
 * (HB_ref = 0) keeps its run time.  Slurm kills a job at its time limit:
 * the run is cut at the requested time.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Hop-bytes from the directed pattern; a router answers distances in
 * closed form on trees and grids, from one BFS per source on graphs. */
int sim_hop_bytes(const topomatch_cluster_t *cl, const topomatch_affinity_t *a,
		  const int64_t *pu, double *hb, char *err)
{
	const topomatch_topology_t *t = topomatch_cluster_topology(cl);
	topomatch_csr_t c = topomatch_affinity_directed(a);
	topomatch_router_t *r = NULL;
	int64_t *tpu = malloc((size_t)c.n * sizeof(*tpu) + 1);
	int64_t *hops = malloc((size_t)c.rowptr[c.n] * sizeof(*hops) + 1);
	*hb = 0;
	int rc = tpu && hops ? topomatch_router_create(t, &r, err)
			     : sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; !rc && i < c.n; i++)
		if ((tpu[i] = topomatch_cluster_pu_to_topology(cl, pu[i])) < 0) {
			rc = sim_err(err, TOPOMATCH_EINVAL, "task %lld on PU %lld, not in the cluster",
				 (long long)i, (long long)pu[i]);
		}
	if (!rc) /* the sum in task order, whatever order the hops came in */
		rc = topomatch_metrics_edge_hops(t, r, a, tpu, hops, err);
	for (int64_t i = 0; !rc && i < c.n; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			*hb += c.w[e] * (double)hops[e];
	topomatch_router_destroy(r);
	free(tpu);
	free(hops);
	return rc;
}

double sim_model_runtime(double run, double s, double hb, double hb_ref, double req,
			 int *killed)
{
	double t = hb_ref > 0 ? run * (1 - s + s * hb / hb_ref) : run;
	*killed = req > 0 && t > req;
	return *killed ? req : t;
}

/* max(1, (wait + run) / max(run, tau)) */
double sim_bounded_slowdown(double wait, double run)
{
	double b = (wait + run) / (run > SIM_BSLD_TAU ? run : SIM_BSLD_TAU);
	return b > 1 ? b : 1;
}

double sim_mean(const double *x, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of the values at or
 * below it (rank ceil(p/100 x n)). */
double sim_percentile(const double *x, int64_t n, double p)
{
	if (n <= 0)
		return 0;
	double *c = malloc((size_t)n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, x, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	int64_t rank = (int64_t)ceil(p / 100 * (double)n);
	double v = c[rank < 1 ? 0 : rank - 1];
	free(c);
	return v;
}

/*
 * scotch_part.c - Scotch's k-way partitioning with target part sizes, the
 * "Scotch k-way partitioner" that TOPOMATCHCONST (TopoMatch Alg. 3 line
 * 4, §4.4) uses when it is available.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Equal sizes go to SCOTCH_graphPart; unequal ones map the graph onto a
 * weighted complete graph (SCOTCH_archCmpltw) whose terminal weights are
 * the sizes, since Scotch balances the vertex load of every terminal in
 * proportion to its weight.  Parts of size 0 are left out of the target.
 * Sizes count vertices: vertex weights (g->vw) are not used.  Scotch only
 * balances to within its tolerance, so sizes may be off by a few; the
 * caller (tm_partition_exact) makes them exact.
 */
#include "config.h"
#include "scotch_internal.h"
#include "base/tm_pool.h"

#include <stdlib.h>

/*
 * Strategies kept by tm_scotch_strats_t, one per (parts, balance, flags):
 * TOPOMATCHCONST asks for 2 to a tree node's arity of parts, at one or two
 * balances; past STRATS_MAX of them, each call parses its own.  Scotch
 * only reads a strategy while it maps, so the partitions are the same
 * with and without the cache.  Measured on a 16-vertex stencil in 2
 * parts: 40 us a call, 40 % of it the parse (scotchyyparse, scotchyylex,
 * strtod); bench/plugin_scale's 1,024-task decisions on 10,240 nodes took
 * 11 % less time with the cache.
 */
#define STRATS_MAX 16

struct tm_scotch_strats {
	int n;
	struct {
		int nz, flags;
		double balance;
		SCOTCH_Strat strat;
	} e[STRATS_MAX];
};

tm_scotch_strats_t *tm_scotch_strats_new(void)
{
	return calloc(1, sizeof(tm_scotch_strats_t));
}

void tm_scotch_strats_free(tm_scotch_strats_t *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		SCOTCH_stratExit(&s->e[i].strat);
	free(s);
}

/* The mapping strategy into nz parts at balance in *use: one kept in s,
 * else built in *own, which the caller exits when *use is own. */
static int strat_get(tm_scotch_strats_t *s, int nz, double balance,
		     tm_part_strategy_t strategy, SCOTCH_Strat *own, SCOTCH_Strat **use,
		     char *err)
{
	static const int flag_of[] = {
		[TM_PART_BALANCED] = SCOTCH_STRATBALANCE,
		[TM_PART_LEAN] = SCOTCH_STRATSAFETY,
		[TM_PART_RECURSIVE] = SCOTCH_STRATRECURSIVE | SCOTCH_STRATBALANCE,
	};
	int flags = flag_of[strategy];
	for (int i = 0; s && i < s->n; i++)
		if (s->e[i].nz == nz && s->e[i].balance == balance && s->e[i].flags == flags) {
			*use = &s->e[i].strat;
			return TOPOMATCH_OK;
		}
	bool keep = s && s->n < STRATS_MAX;
	SCOTCH_Strat *st = keep ? &s->e[s->n].strat : own;
	if (SCOTCH_stratInit(st))
		return tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_stratInit failed");
	if (SCOTCH_stratGraphMapBuild(st, flags, nz, balance)) {
		SCOTCH_stratExit(st);
		return tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_stratGraphMapBuild failed");
	}
	if (keep) {
		s->e[s->n].nz = nz;
		s->e[s->n].flags = flags;
		s->e[s->n++].balance = balance;
	}
	*use = st;
	return TOPOMATCH_OK;
}

static int check_sizes(const tm_wgraph_t *g, int k, const int64_t *size, int *nz, char *err)
{
	int64_t sum = 0;
	*nz = 0;
	if (k < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "partition: k must be >= 1 (got %d)", k);
	for (int p = 0; p < k; p++) {
		if (size[p] < 0 || !tm_add_ok(sum, size[p], &sum))
			return tm_err(err, TOPOMATCH_EINVAL, "partition: bad size %lld for part %d",
				      (long long)size[p], p);
		*nz += size[p] > 0;
	}
	if (sum != g->n)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "partition: part sizes add up to %lld, not to the %lld vertices",
			      (long long)sum, (long long)g->n);
	if (g->n > SCOTCH_NUMMAX - 1)
		return tm_err(err, TOPOMATCH_ELIMIT, "partition: %lld vertices are too many for "
			      "32-bit Scotch", (long long)g->n);
	return TOPOMATCH_OK;
}

static bool equal_sizes(const int64_t *size, int k)
{
	int64_t s = 0;
	for (int p = 0; p < k; p++) {
		if (size[p] == 0)
			continue;
		if (s && size[p] != s)
			return false;
		s = size[p];
	}
	return true;
}

/* Partition the bound graph into the nz non-empty parts: part[v] in [0, nz). */
static int run_part(SCOTCH_Graph *bound, int nz, const SCOTCH_Num *wsize, bool equal,
		    double balance, tm_part_strategy_t strategy, tm_scotch_strats_t *strats,
		    SCOTCH_Num *part, char *err)
{
	SCOTCH_Strat own, *strat = &own;
	SCOTCH_Arch arch;
	int rc = strat_get(strats, nz, balance, strategy, &own, &strat, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (equal) {
		if (SCOTCH_graphPart(bound, nz, strat, part))
			rc = tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_graphPart failed into "
				    "%d parts (Scotch's own message is on stderr)", nz);
	} else if (SCOTCH_archInit(&arch)) {
		rc = tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_archInit failed");
	} else {
		if (SCOTCH_archCmpltw(&arch, nz, wsize))
			rc = tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_archCmpltw failed");
		else if (SCOTCH_graphMap(bound, &arch, strat, part))
			rc = tm_err(err, TOPOMATCH_EINVAL, "Scotch: SCOTCH_graphMap failed into "
				    "%d parts (Scotch's own message is on stderr)", nz);
		SCOTCH_archExit(&arch);
	}
	if (strat == &own)
		SCOTCH_stratExit(&own);
	return rc;
}

/*
 * One Scotch partitioning, everything it touches owned here: under a time
 * budget it runs where it can be abandoned (tm_run_abandonable), since a
 * Scotch call cannot look at the clock (a shuffled 64^2 x 32 stencil in
 * 4,096 parts takes about a second).
 */
struct part_job {
	tm_sgraph_t sg;
	SCOTCH_Num *spart;
	SCOTCH_Num *wsize;
	int nz;
	bool equal;
	double balance;
	tm_part_strategy_t strategy;
	uint64_t seed;
	double deadline;
	tm_scotch_strats_t *strats; /* only in a run that cannot be abandoned */
	char err[TOPOMATCH_ERRLEN];
};

static void part_job_drop(void *arg)
{
	struct part_job *j = arg;
	tm_sgraph_free(&j->sg);
	free(j->spart);
	free(j->wsize);
	free(j);
}

static int part_job_run(void *arg)
{
	struct part_job *j = arg;
	SCOTCH_Context ctx;
	SCOTCH_Graph bound;
	int rc = tm_scotch_bind(&ctx, &bound, &j->sg.g, j->seed, j->err);
	if (rc == TOPOMATCH_OK) {
		/* one Scotch session at a time (tm_scotch_bind): a step
		 * abandoned while it waited for its turn does no work */
		if (j->deadline > 0 && tm_now() > j->deadline)
			rc = TOPOMATCH_EBUDGET;
		else
			rc = run_part(&bound, j->nz, j->wsize, j->equal, j->balance, j->strategy,
				      j->strats, j->spart, j->err);
		tm_scotch_unbind(&ctx, &bound);
	}
	return rc;
}

/* Scotch's part j is the j-th non-empty part of size[]. */
static int partition(const tm_wgraph_t *g, int k, const int64_t *size, int nz,
		     const tm_part_opts_t *o, int64_t *part, char *err)
{
	struct part_job *j = calloc(1, sizeof(*j));
	int *orig = tm_alloc(nz, sizeof(*orig));
	if (j) {
		j->spart = tm_alloc(g->n, sizeof(*j->spart));
		j->wsize = tm_alloc(nz, sizeof(*j->wsize));
	}
	if (!j || !j->spart || !j->wsize || !orig) {
		if (j)
			part_job_drop(j);
		free(orig);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (partition)");
	}
	j->nz = nz;
	j->equal = equal_sizes(size, k);
	j->balance = o->balance;
	j->strategy = o->strategy;
	j->seed = o->seed;
	j->deadline = o->deadline;
	for (int p = 0, q = 0; p < k; p++) {
		if (size[p] > 0) {
			j->wsize[q] = (SCOTCH_Num)size[p];
			orig[q++] = p;
		}
	}
	/* complete graph: every distance is 1 */
	int rc = tm_sgraph_build(&j->sg, g->n, g->rowptr, g->col, g->w, 0.0, 0,
				 tm_scotch_weight_budget(1), err);
	if (rc != TOPOMATCH_OK) {
		part_job_drop(j);
		free(orig);
		return rc;
	}
	double deadline = o->deadline;
	bool small = (int64_t)j->sg.nvert + j->sg.narcs <= TM_ABANDON_MIN_WORK;
	/* an abandoned run would outlive the caller's strategies */
	j->strats = small ? o->strats : NULL;
	if (small && deadline > 0 && tm_now() > deadline)
		rc = TOPOMATCH_EBUDGET; /* not started: the job is still ours */
	else
		rc = tm_run_abandonable(small ? 0 : deadline, part_job_run, part_job_drop, j);
	if (small && rc == TOPOMATCH_EBUDGET) {
		part_job_drop(j);
		free(orig);
		return tm_err(err, rc, "partition: time budget exceeded");
	}
	if (rc == TOPOMATCH_EBUDGET) { /* j is the abandoned thread's now */
		free(orig);
		return tm_err(err, rc, "partition: time budget exceeded in Scotch");
	}
	if (rc != TOPOMATCH_OK)
		tm_err(err, rc, "%s", j->err);
	for (int64_t v = 0; rc == TOPOMATCH_OK && v < g->n; v++)
		part[v] = j->spart[v] >= 0 && j->spart[v] < nz ? orig[j->spart[v]] : orig[0];
	part_job_drop(j);
	free(orig);
	return rc;
}

int tm_partition_scotch_opts(const tm_wgraph_t *g, int k, const int64_t *size,
			     const tm_part_opts_t *o, int64_t *part, char *err)
{
	int nz;
	int rc = check_sizes(g, k, size, &nz, err);
	if (rc != TOPOMATCH_OK || g->n == 0)
		return rc;
	if (nz == 1) { /* one part takes everything */
		int p = 0;
		while (size[p] == 0)
			p++;
		for (int64_t v = 0; v < g->n; v++)
			part[v] = p;
		return TOPOMATCH_OK;
	}
	return partition(g, k, size, nz, o, part, err);
}

/*
 * portfolio.c - several mappers on the same request, on threads; the best
 * result wins (issue "Mapping engine II", point 5: the lowest hop-bytes,
 * ties to the lower maximum task hop-bytes).  Which mappers run is
 * mapper.c's choice; this file only runs them and chooses.
 *
 * Every candidate writes into its own slot and the choice walks the slots
 * in candidate order, so the winner depends neither on the number of
 * threads nor on which candidate finished first.  Candidates count their
 * own work (the refinement's moves, the mappers' iterations); the shared
 * wall-clock guard only makes a candidate give up, and the others still
 * compete.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "mapper_internal.h"
#include "base/tm_pool.h"
#include "metrics/metrics_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int rc;
	double hb;
	char err[TOPOMATCH_ERRLEN];
} slot_t;

typedef struct {
	const tm_map_ctx_t *c;
	tm_map_ctx_t one; /* c with one thread: candidates do not nest pools */
	const tm_candidate_t *cand;
	int n;
	int64_t *pus; /* n x ntasks */
	slot_t *slot;
	atomic_int next;
} run_t;

static void run_one(run_t *r, int k)
{
	slot_t *s = &r->slot[k];
	int64_t *pu = r->pus + (size_t)k * (size_t)r->c->ntasks;
	/* past the deadline a candidate is not started: a mapper's set-up
	 * may run for tens of ms before it first looks at the clock */
	if (tm_ctx_expired(r->c)) {
		s->rc = tm_err(s->err, TOPOMATCH_EBUDGET, "time budget exceeded");
		return;
	}
	s->rc = r->cand[k].run(&r->one, pu, s->err);
	if (s->rc == TOPOMATCH_OK)
		s->rc = tm_metrics_hop_bytes(r->c->a, r->c->t, pu, &s->hb, s->err);
}

static void worker(void *arg, int tid, int nthreads)
{
	run_t *r = arg;
	(void)tid;
	(void)nthreads;
	for (int k; (k = atomic_fetch_add(&r->next, 1)) < r->n;)
		run_one(r, k);
}

/* Maximum task hop-bytes of a candidate's mapping (for ties). */
static double max_task_hb(const run_t *r, int k, int *rc, char *err)
{
	topomatch_metrics_t m;
	*rc = topomatch_metrics_compute(r->c->a, r->c->t,
					r->pus + (size_t)k * (size_t)r->c->ntasks, &m, err);
	return m.max_task_hop_bytes;
}

/* The winner in candidate order into *best; when no candidate
 * succeeded, the first failure (its status and message). */
static int choose(const run_t *r, int *best, char *err)
{
	int rc = TOPOMATCH_OK;
	*best = -1;
	for (int k = 0; k < r->n && rc == TOPOMATCH_OK; k++) {
		if (r->slot[k].rc != TOPOMATCH_OK)
			continue;
		if (*best < 0 || r->slot[k].hb < r->slot[*best].hb) {
			*best = k;
		} else if (r->slot[k].hb == r->slot[*best].hb) {
			double mk = max_task_hb(r, k, &rc, err);
			if (rc == TOPOMATCH_OK && mk < max_task_hb(r, *best, &rc, err))
				*best = k;
		}
	}
	for (int k = 0; rc == TOPOMATCH_OK && *best < 0 && k < r->n; k++)
		if (r->slot[k].rc != TOPOMATCH_OK)
			rc = tm_err(err, r->slot[k].rc, "%s: %s", r->cand[k].name, r->slot[k].err);
	return rc;
}

int tm_portfolio(const tm_map_ctx_t *c, const tm_candidate_t *cand, int n, int64_t *pu,
		 int *winner, bool *cut, char *err)
{
	run_t r = { .c = c, .one = *c, .cand = cand, .n = n };
	r.one.threads = 1;
	r.pus = tm_alloc((int64_t)n * c->ntasks, sizeof(*r.pus));
	r.slot = calloc((size_t)n, sizeof(*r.slot));
	tm_pool_t *pool = NULL;
	int rc = r.pus && r.slot ? TOPOMATCH_OK : tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	int nth = c->threads < n ? c->threads : n;
	if (rc == TOPOMATCH_OK && nth > 1)
		rc = tm_pool_create(nth, &pool, err);
	if (rc == TOPOMATCH_OK) {
		atomic_init(&r.next, 0);
		tm_pool_run(pool, worker, &r);
		int k;
		*cut = false;
		for (int i = 0; i < n; i++)
			*cut |= r.slot[i].rc == TOPOMATCH_EBUDGET;
		rc = choose(&r, &k, err);
		if (rc == TOPOMATCH_OK) {
			memcpy(pu, r.pus + (size_t)k * (size_t)c->ntasks,
			       (size_t)c->ntasks * sizeof(*pu));
			*winner = k;
		}
	}
	tm_pool_destroy(pool);
	free(r.pus);
	free(r.slot);
	return rc;
}

/*
 * mapper.c - mapper entry point: option checks, the baseline mappers
 * (round-robin, random) and `auto`.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the random mapper's slot array (PUs x oversubscription) bounded. */
#define MAX_OVERSUB 1024

/* What a mapper sees: the PU slots it may use, in PU-list order. */
struct slots {
	const int64_t *allowed; /* NULL: PU k is allowed[k] = k */
	int64_t m;              /* number of allowed PUs */
	int f;                  /* tasks per PU at most */
	double deadline;        /* tm_now() value; 0 = none */
};

static int64_t slot_pu(const struct slots *s, int64_t k)
{
	return s->allowed ? s->allowed[k] : k;
}

/* Task i on the i-th allowed PU, wrapping around when oversubscribed:
 * the natural placement that Slurm and mpirun use by default. */
static int map_round_robin(int64_t n, const struct slots *s, int64_t *pu)
{
	for (int64_t i = 0; i < n; i++)
		pu[i] = slot_pu(s, i % s->m);
	return TOPOMATCH_OK;
}

/* A uniformly random choice of n of the m x f slots (partial Fisher-Yates). */
static int map_random(int64_t n, const struct slots *s, uint64_t seed, int64_t *pu,
		      char *err)
{
	int64_t total = s->m * s->f; /* fits: checked by check_opts */
	int64_t *slot = tm_alloc(total, sizeof(*slot));
	if (!slot)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld PU slots)",
			      (long long)total);
	for (int64_t k = 0; k < total; k++)
		slot[k] = k;
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, seed);
	for (int64_t i = 0; i < n; i++) {
		if ((i & 0xffff) == 0 && s->deadline > 0 && tm_now() > s->deadline) {
			free(slot);
			return tm_err(err, TOPOMATCH_EBUDGET, "random mapper: time budget exceeded");
		}
		int64_t j = i + (int64_t)topomatch_rng_below(&rng, (uint64_t)(total - i));
		int64_t t = slot[i];
		slot[i] = slot[j];
		slot[j] = t;
		pu[i] = slot_pu(s, slot[i] % s->m);
	}
	free(slot);
	return TOPOMATCH_OK;
}

static double hop_bytes_of(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			   const int64_t *pu, char *err, int *rc)
{
	topomatch_metrics_t m;
	*rc = topomatch_metrics_compute(a, t, pu, &m, err);
	return m.hop_bytes;
}

/*
 * auto: every mapper of this build that uses the pattern competes and the
 * lowest hop-bytes wins, ties to the natural placement — TopoMatch keeps the
 * round-robin mapping when it is not beaten (§5.5).  The tree and graph
 * algorithms of TopoMatch Fig. 3 join this list as they are implemented.
 */
static int map_auto(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		    const struct slots *s, uint64_t seed, int64_t *pu, char *name, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a);
	int rc = map_round_robin(n, s, pu);
	double best = hop_bytes_of(a, t, pu, err, &rc);
	if (rc != TOPOMATCH_OK)
		return rc;
	strcpy(name, "round-robin");
	int64_t *cand = tm_alloc(n, sizeof(*cand));
	if (!cand)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	rc = map_random(n, s, seed, cand, err);
	if (rc == TOPOMATCH_OK) {
		double hb = hop_bytes_of(a, t, cand, err, &rc);
		if (rc == TOPOMATCH_OK && hb < best) {
			memcpy(pu, cand, (size_t)n * sizeof(*pu));
			strcpy(name, "random");
		}
	}
	free(cand);
	/* the natural placement is already in pu[]: a guard hit keeps it */
	return rc == TOPOMATCH_EBUDGET ? TOPOMATCH_OK : rc;
}

static const char *const mapper_names[] = { "auto", "round-robin", "random", NULL };

const char *const *topomatch_mapper_names(void)
{
	return mapper_names;
}

static int check_allowed(const topomatch_map_opts_t *o, int64_t npu, char *err)
{
	unsigned char *seen = tm_zalloc(npu / 8 + 1, 1);
	if (!seen)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	int rc = TOPOMATCH_OK;
	for (int64_t k = 0; k < o->nallowed && rc == TOPOMATCH_OK; k++) {
		int64_t p = o->allowed[k];
		if (p < 0 || p >= npu)
			rc = tm_err(err, TOPOMATCH_EINVAL,
				    "allowed PU %lld is out of range [0, %lld)", (long long)p,
				    (long long)npu);
		else if (seen[p / 8] & (1u << (p % 8)))
			rc = tm_err(err, TOPOMATCH_EINVAL, "allowed PU %lld is listed twice",
				    (long long)p);
		else
			seen[p / 8] |= (unsigned char)(1u << (p % 8));
	}
	free(seen);
	return rc;
}

static int check_opts(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		      const topomatch_map_opts_t *o, struct slots *s, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), npu = topomatch_topology_npu(t);
	s->f = o->oversub > 0 ? o->oversub : 1;
	if (o->oversub < 0 || s->f > MAX_OVERSUB)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "oversubscription factor %d out of range [1, %d]", o->oversub,
			      MAX_OVERSUB);
	if (o->allowed) {
		if (o->nallowed <= 0)
			return tm_err(err, TOPOMATCH_EINVAL, "the constraint list is empty");
		int rc = check_allowed(o, npu, err);
		if (rc != TOPOMATCH_OK)
			return rc;
		s->allowed = o->allowed;
		s->m = o->nallowed;
	} else {
		s->allowed = NULL;
		s->m = npu;
	}
	int64_t cap;
	if (!tm_mul_ok(s->m, s->f, &cap) || n > cap)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "%lld tasks do not fit on %lld PUs with at most %d task%s per PU "
			      "(raise the oversubscription factor)",
			      (long long)n, (long long)s->m, s->f, s->f > 1 ? "s" : "");
	if (!isfinite(o->time_budget_s))
		return tm_err(err, TOPOMATCH_EINVAL, "the time budget must be a finite number");
	s->deadline = o->time_budget_s > 0 ? tm_now() + o->time_budget_s : 0;
	return TOPOMATCH_OK;
}

int topomatch_map(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		  const topomatch_map_opts_t *opts, int64_t *pu, topomatch_map_result_t *res,
		  char *err)
{
	static const topomatch_map_opts_t defaults = { .seed = 1 };
	const topomatch_map_opts_t *o = opts ? opts : &defaults;
	topomatch_map_result_t r = { .mapper = "" };
	double t0 = tm_now();
	struct slots s;
	int rc = check_opts(a, t, o, &s, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	const char *name = o->mapper ? o->mapper : "auto";
	int64_t n = topomatch_affinity_ntasks(a);
	if (strcmp(name, "round-robin") == 0) {
		rc = map_round_robin(n, &s, pu);
		strcpy(r.mapper, name);
	} else if (strcmp(name, "random") == 0) {
		rc = map_random(n, &s, o->seed, pu, err);
		strcpy(r.mapper, name);
		if (rc == TOPOMATCH_EBUDGET) {
			rc = map_round_robin(n, &s, pu);
			r.fell_back = 1;
			strcpy(r.mapper, "round-robin");
		}
	} else if (strcmp(name, "auto") == 0) {
		rc = map_auto(a, t, &s, o->seed, pu, r.mapper, err);
		r.fell_back = s.deadline > 0 && tm_now() > s.deadline;
	} else {
		return tm_err(err, TOPOMATCH_EINVAL,
			      "unknown mapper '%s' (known: auto, round-robin, random)", name);
	}
	if (rc != TOPOMATCH_OK)
		return rc;
	r.time_s = tm_now() - t0;
	if (res)
		*res = r;
	return TOPOMATCH_OK;
}

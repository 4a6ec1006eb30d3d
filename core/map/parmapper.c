/*
 * parmapper.c - ParMapper (Galvez, Jain, Kale, ICS 2017, §4.2): many
 * configurations of GreedyMap (§4.5) run side by side on threads, and the
 * winner is chosen on the Pareto front of the average and maximum task
 * hop-bytes (Eq. 2-3): with h0 the least average on the front, the
 * solution of least maximum among those whose average is at most
 * alpha x h0.
 *
 * Determinism: the list of configurations depends only on the request
 * (topology, sizes, options), never on time.  Its length is bounded by a
 * work budget: each configuration has an estimated cost in work units
 * (processor costs weighed, neighbours read) and is run only while the
 * budget holds.  Threads take configurations from a counter and store
 * each result in that configuration's own slot; the choice is then made
 * over the slots in configuration order, so neither the thread count nor
 * the speed of the machine changes the outcome.  The wall-clock guard
 * only aborts the whole run (mapper.c then falls back).  Mappings are not
 * kept: the winner is computed once more at the end.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "greedymap_internal.h"
#include "base/tm_pool.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* At most this many configurations (the paper: fewer than 100). */
#define PM_MAX_CONFIGS 96
/* Default work budget, in units of estimate(): for 4096 tasks on one
 * thread, measured 0.15 s on a fat tree and about 1 s on a 3D torus. */
#define PM_DEFAULT_WORK (INT64_C(1) << 24)
/* Default alpha of the selection rule (§4.2: alpha >= 1). */
#define PM_DEFAULT_ALPHA 1.05
/* Repetitions of each configuration with other seeds (§4.5: "a given
 * configuration will also run on multiple processors to exploit
 * randomness"). */
#define PM_REPEATS 2

typedef struct pm_opts {
	double alpha;
	int64_t work;
} pm_opts_t;

typedef struct pm_result {
	int rc;
	double avg, max;
	char err[TOPOMATCH_ERRLEN];
} pm_result_t;

typedef struct pm {
	const tm_map_ctx_t *c;
	gm_shared_t sh;
	gm_config_t cfg[PM_MAX_CONFIGS];
	int ncfg;
	pm_result_t res[PM_MAX_CONFIGS];
	atomic_int next;
	atomic_int abort;
} pm_t;

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "parmapper: out of memory");
}

/* ---------------------------------------------------------------- options */

static int parse_num(const char *key, const char *v, double lo, double *out, char *err)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < lo)
		return tm_err(err, TOPOMATCH_EINVAL, "parmapper: %s must be a number >= %g (got '%s')",
			      key, lo, v);
	*out = d;
	return TOPOMATCH_OK;
}

static int parse_item(char *item, pm_opts_t *o, char *err)
{
	char *eq = strchr(item, '=');
	double d;
	if (!eq)
		return tm_err(err, TOPOMATCH_EINVAL, "parmapper: option '%s' needs a value (key=value)",
			      item);
	*eq = '\0';
	if (!strcmp(item, "alpha"))
		return parse_num("alpha", eq + 1, 1.0, &o->alpha, err);
	if (!strcmp(item, "work")) {
		int rc = parse_num("work", eq + 1, 1.0, &d, err);
		if (rc == TOPOMATCH_OK)
			o->work = d < 9e18 ? (int64_t)d : INT64_MAX;
		return rc;
	}
	return tm_err(err, TOPOMATCH_EINVAL, "parmapper: unknown option '%s' (known: alpha, work)",
		      item);
}

static int parse_opts(const char *args, pm_opts_t *o, char *err)
{
	char buf[256];
	o->alpha = PM_DEFAULT_ALPHA;
	o->work = PM_DEFAULT_WORK;
	if (!args || !*args)
		return TOPOMATCH_OK;
	if (strlen(args) >= sizeof(buf))
		return tm_err(err, TOPOMATCH_EINVAL, "parmapper: options too long");
	strcpy(buf, args);
	int rc = TOPOMATCH_OK;
	for (char *save = NULL, *it = strtok_r(buf, ",", &save); it && rc == TOPOMATCH_OK;
	     it = strtok_r(NULL, ",", &save))
		rc = parse_item(it, o, err);
	return rc;
}

/* ---------------------------------------------------------------- configurations */

/* Estimated work of one configuration: reading the pattern (list and
 * metrics), and for every step that explores Delta nodes, the free PUs
 * and neighbours weighed there (§4.4.1: O(T Delta d), O(T + N Delta d)
 * with packNodeFirst). */
static double estimate(const pm_t *p, const gm_config_t *cfg)
{
	const tm_nodes_t *nd = &p->sh.nd;
	double n = (double)p->c->ntasks, nnz = (double)p->sh.a.rowptr[p->c->ntasks];
	double deg = nnz / (n > 0 ? n : 1), ppn = (double)nd->m / (double)nd->n;
	/* every node: the bounded walk weighs a few nodes per neighbour when
	 * the list follows the pattern, up to GM_WALK_MAX when it does not */
	double delta = cfg->delta > 0 && cfg->delta < nd->n ? (double)cfg->delta
		       : cfg->order == GM_OO ? GM_WALK_MAX : 4.0 * (deg + 1.0);
	if (delta > (double)nd->n)
		delta = (double)nd->n;
	double steps = cfg->pack ? n / (ppn * p->c->f) + 1 : n;
	/* a ring walk off trees enumerates shells and looks routers up:
	 * measured about 4 times the cost of a tree's walk per node */
	double walk = p->c->t->kind == TOPOMATCH_TOPO_TREE ? 1.0 : 4.0;
	return 2.0 * (n + nnz) + steps * delta * (ppn + deg + 1.0) * walk +
	       (cfg->pack ? n * (ppn + deg) : 0);
}

static bool is_torus(const topomatch_topology_t *t)
{
	if (t->kind != TOPOMATCH_TOPO_TORUS && t->kind != TOPOMATCH_TOPO_MESH)
		return false;
	for (int k = 0; k < t->ndims; k++)
		if (t->wrap[k] && t->dims[k] > 2)
			return true;
	return false;
}

typedef struct space {
	int orders[GM_NORDERS], norders;
	int64_t deltas[2];
	int ndeltas;
	bool packs[2];
	int npacks;
	bool wraps[2];
	int nwraps;
} space_t;

/* The values of each parameter worth trying on this request. */
static space_t config_space(const pm_t *p)
{
	const tm_nodes_t *nd = &p->sh.nd;
	space_t s = { .norders = 0 };
	int64_t root = (int64_t)ceil(sqrt((double)nd->n));
	if (gm_gpart_parts(&p->sh) > 0)
		s.orders[s.norders++] = GM_GPART;
	s.orders[s.norders++] = GM_BFSDFS;
	s.orders[s.norders++] = GM_BFS;
	s.orders[s.norders++] = GM_OO;
	s.deltas[s.ndeltas++] = 0; /* every node */
	if (root < nd->n)
		s.deltas[s.ndeltas++] = root < 1 ? 1 : root; /* §4.4.1's sqrt(N) */
	s.packs[s.npacks++] = false;
	if (nd->maxcap * p->c->f > 1)
		s.packs[s.npacks++] = true;
	s.wraps[s.nwraps++] = true;
	if (is_torus(p->c->t))
		s.wraps[s.nwraps++] = false;
	return s;
}

/* Seed of repetition r of configuration number k. */
static uint64_t config_seed(uint64_t seed, int k, int r)
{
	return seed ^ (UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(1 + k + 1000 * r));
}

static void admit(pm_t *p, gm_config_t cfg, double *left)
{
	double w = estimate(p, &cfg);
	if (p->ncfg >= PM_MAX_CONFIGS || (p->ncfg > 0 && w > *left))
		return;
	cfg.seed = config_seed(p->c->seed, p->ncfg, 0);
	p->cfg[p->ncfg++] = cfg;
	*left -= w;
}

/* Repetitions, then (Delta, cost) tiers, then orders, packNodeFirst and
 * wrap: the cheap, usually good configurations first; each is admitted
 * while the work budget holds. */
static void make_configs(pm_t *p, int64_t work)
{
	space_t s = config_space(p);
	double left = (double)work;
	for (int r = 0; r < PM_REPEATS; r++) {
		for (int tier = 0; tier < 3; tier++) {
			int di = tier == 1 ? 1 : 0;
			if (di >= s.ndeltas)
				continue;
			gm_config_t cfg = { .delta = s.deltas[di],
					    .cost = tier == 2 ? GM_COST_MAXHB : GM_COST_HB,
					    .random_ties = r > 0 };
			for (int o = 0; o < s.norders; o++) {
				cfg.order = s.orders[o];
				for (int pk = 0; pk < s.npacks; pk++) {
					cfg.pack = s.packs[pk];
					for (int wr = 0; wr < s.nwraps; wr++) {
						cfg.wrap = s.wraps[wr];
						admit(p, cfg, &left);
					}
				}
			}
		}
	}
}

/* ---------------------------------------------------------------- running */

static void run_one(pm_t *p, gm_run_t *r, int64_t *slot, int k)
{
	pm_result_t *res = &p->res[k];
	res->rc = gm_map(r, &p->cfg[k], slot, res->err);
	if (res->rc == TOPOMATCH_OK)
		gm_task_hop_bytes(r, slot, &res->avg, &res->max);
	else
		atomic_store(&p->abort, 1);
}

/* §4.2: instances of GreedyMap run simultaneously; a thread takes
 * configurations from the counter until none is left. */
static void worker(void *arg, int tid, int nthreads)
{
	pm_t *p = arg;
	gm_run_t *r = NULL;
	int64_t *slot = tm_alloc(p->c->ntasks, sizeof(*slot));
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = slot ? gm_run_create(&p->sh, &r, err) : oom(err);
	(void)tid;
	(void)nthreads;
	for (int k; (k = atomic_fetch_add(&p->next, 1)) < p->ncfg;) {
		if (rc != TOPOMATCH_OK) {
			p->res[k].rc = rc;
			strcpy(p->res[k].err, err);
			continue;
		}
		if (atomic_load(&p->abort)) {
			p->res[k].rc = TOPOMATCH_EBUDGET;
			strcpy(p->res[k].err, "parmapper: stopped");
			continue;
		}
		run_one(p, r, slot, k);
	}
	gm_run_destroy(r);
	free(slot);
}

/* The first failure in configuration order (a budget failure wins over
 * the "stopped" entries it caused). */
static int first_failure(const pm_t *p, char *err)
{
	for (int k = 0; k < p->ncfg; k++)
		if (p->res[k].rc == TOPOMATCH_EBUDGET && strcmp(p->res[k].err, "parmapper: stopped"))
			return tm_err(err, TOPOMATCH_EBUDGET, "%s", p->res[k].err);
	for (int k = 0; k < p->ncfg; k++)
		if (p->res[k].rc != TOPOMATCH_OK)
			return tm_err(err, p->res[k].rc, "%s", p->res[k].err);
	return TOPOMATCH_OK;
}

static int run_all(pm_t *p, char *err)
{
	tm_pool_t *pool = NULL;
	int nth = p->c->threads < p->ncfg ? p->c->threads : p->ncfg;
	int rc = nth > 1 ? tm_pool_create(nth, &pool, err) : TOPOMATCH_OK;
	if (rc != TOPOMATCH_OK)
		return rc;
	atomic_store(&p->next, 0);
	atomic_store(&p->abort, 0);
	tm_pool_run(pool, worker, p);
	tm_pool_destroy(pool);
	return first_failure(p, err);
}

/* ---------------------------------------------------------------- choice */

/*
 * §4.2: the Pareto front of (average, maximum) task hop-bytes, h0 its
 * least average, then the least maximum among the front's solutions with
 * average <= alpha x h0 (ties: lower average, then first configuration).
 * Returns the index of the winner, -1 when none is ok.
 */
int tm_parmapper_select(const double *avg, const double *max, const bool *ok, int64_t n,
			double alpha)
{
	double h0 = INFINITY;
	int best = -1;
	for (int64_t i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		bool dominated = false;
		for (int64_t j = 0; j < n && !dominated; j++)
			dominated = ok[j] && avg[j] <= avg[i] && max[j] <= max[i] &&
				    (avg[j] < avg[i] || max[j] < max[i]);
		if (!dominated && avg[i] < h0)
			h0 = avg[i];
	}
	for (int64_t i = 0; i < n; i++) {
		if (!ok[i] || avg[i] > alpha * h0)
			continue;
		if (best < 0 || max[i] < max[best] || (max[i] == max[best] && avg[i] < avg[best]))
			best = (int)i;
	}
	return best;
}

static int pick_winner(const pm_t *p, double alpha)
{
	double avg[PM_MAX_CONFIGS], max[PM_MAX_CONFIGS];
	bool ok[PM_MAX_CONFIGS];
	for (int k = 0; k < p->ncfg; k++) {
		ok[k] = p->res[k].rc == TOPOMATCH_OK;
		avg[k] = p->res[k].avg;
		max[k] = p->res[k].max;
	}
	return tm_parmapper_select(avg, max, ok, p->ncfg, alpha);
}

static int build_orders(pm_t *p, char *err)
{
	for (int k = 0; k < p->ncfg; k++) {
		int rc = gm_shared_order(&p->sh, p->cfg[k].order, err);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* The winner once more, into pu[] as PU ids. */
static int rerun(pm_t *p, int k, int64_t *pu, char *err)
{
	gm_run_t *r;
	int rc = gm_run_create(&p->sh, &r, err);
	if (rc == TOPOMATCH_OK)
		rc = gm_map(r, &p->cfg[k], pu, err);
	for (int64_t t = 0; rc == TOPOMATCH_OK && t < p->c->ntasks; t++)
		pu[t] = p->sh.nd.pus[pu[t]];
	gm_run_destroy(r);
	return rc;
}

/* ParMapper (§4.2): configurations, their runs, the choice, the winner. */
int tm_map_parmapper(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	pm_opts_t o;
	pm_t *p = calloc(1, sizeof(*p));
	int rc = p ? parse_opts(c->args, &o, err) : oom(err);
	if (rc != TOPOMATCH_OK) {
		free(p);
		return rc;
	}
	p->c = c;
	rc = gm_shared_init(&p->sh, c, err);
	if (rc == TOPOMATCH_OK) {
		make_configs(p, o.work);
		rc = build_orders(p, err);
	}
	if (rc == TOPOMATCH_OK)
		rc = run_all(p, err);
	if (rc == TOPOMATCH_OK) {
		int k = pick_winner(p, o.alpha);
		rc = k < 0 ? tm_err(err, TOPOMATCH_EINVAL, "parmapper: no configuration succeeded")
			   : rerun(p, k, pu, err);
	}
	gm_shared_free(&p->sh);
	free(p);
	return rc;
}

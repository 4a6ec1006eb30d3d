/*
 * mapper.c - the mapping entry point: checks the request, picks the
 * algorithm (TopoMatch Fig. 3 for `auto`), runs it under the wall-clock
 * guard, verifies what it returns, and holds the baseline mappers
 * (round-robin, random).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "mapper_internal.h"
#include "topology/topology_internal.h"
#include "pattern/pattern_internal.h"
#include "metrics/metrics_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the random mapper's slot array (PUs x oversubscription) bounded. */
#define MAX_OVERSUB 1024
/* Threads a mapper may be given (tm_pool.h's bound). */
#define MAX_THREADS 256

typedef int (*mapper_fn)(const tm_map_ctx_t *c, int64_t *pu, char *err);

/* Task i on the i-th allowed PU, wrapping around when oversubscribed:
 * the natural placement that Slurm and mpirun use by default. */
static int map_round_robin(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	(void)err;
	for (int64_t i = 0; i < c->ntasks; i++)
		pu[i] = c->allowed[i % c->m];
	return TOPOMATCH_OK;
}

/* A uniformly random choice of ntasks of the m x f slots (partial Fisher-Yates). */
static int map_random(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int64_t total = c->m * c->f; /* fits: checked by check_opts */
	int64_t *slot = tm_alloc(total, sizeof(*slot));
	if (!slot)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld PU slots)",
			      (long long)total);
	for (int64_t k = 0; k < total; k++)
		slot[k] = k;
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, c->seed);
	for (int64_t i = 0; i < c->ntasks; i++) {
		if ((i & 0xffff) == 0 && tm_ctx_expired(c)) {
			free(slot);
			return tm_err(err, TOPOMATCH_EBUDGET, "random mapper: time budget exceeded");
		}
		int64_t j = i + (int64_t)topomatch_rng_below(&rng, (uint64_t)(total - i));
		int64_t t = slot[i];
		slot[i] = slot[j];
		slot[j] = t;
		pu[i] = c->allowed[slot[i] % c->m];
	}
	free(slot);
	return TOPOMATCH_OK;
}

static const struct mapper {
	const char *name;
	mapper_fn run;
	bool tree_only;
	bool no_constraints;
	bool takes_args; /* "name:options" */
} mappers[] = {
	{ "round-robin", map_round_robin, false, false, false },
	{ "random", map_random, false, false, false },
	{ "treematch", tm_map_treematch, true, true, false },
	{ "topomatch-const", tm_map_topomatch_const, true, false, false },
	{ "scotch", tm_map_scotch, false, false, false },
	{ "eagermap", tm_map_eagermap, false, false, false },
	{ "greedymap", tm_map_greedymap, false, false, true },
	{ "parmapper", tm_map_parmapper, false, false, true },
	{ "analytical", tm_map_analytical, false, true, true },
};

static const char *const mapper_names[] = { "auto",	     "portfolio", "round-robin",
					    "random",	     "treematch", "topomatch-const",
					    "scotch",	     "eagermap",  "greedymap",
					    "parmapper",    "analytical", NULL };

const char *const *topomatch_mapper_names(void)
{
	return mapper_names;
}

/* The mapper a name ("name" or "name:options") stands for. */
static const struct mapper *find_mapper(const char *name)
{
	size_t len = strcspn(name, ":");
	for (size_t i = 0; i < sizeof(mappers) / sizeof(mappers[0]); i++)
		if (strlen(mappers[i].name) == len && !strncmp(mappers[i].name, name, len))
			return &mappers[i];
	return NULL;
}

/* TopoMatch Fig. 3: tree -> TreeMatch, or TOPOMATCHCONST under
 * constraints; any other topology -> Scotch (Alg. 2, or Alg. 4). */
static const struct mapper *fig3_choice(const tm_map_ctx_t *c)
{
	if (topomatch_topology_kind(c->t) == TOPOMATCH_TOPO_TREE)
		return find_mapper(c->constrained ? "topomatch-const" : "treematch");
	return find_mapper("scotch");
}

void topomatch_map_opts_init(topomatch_map_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->oversub = 1;
	o->tau = TOPOMATCH_DEFAULT_TAU;
	o->sparse_factor = TOPOMATCH_DEFAULT_SPARSE_FACTOR;
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

/* The allowed PU list as mappers see it: the user's, or 0..npu-1. */
static int set_allowed(const topomatch_map_opts_t *o, tm_map_ctx_t *c, int64_t **owned,
		       char *err)
{
	int64_t npu = topomatch_topology_npu(c->t);
	*owned = NULL;
	if (o->allowed) {
		if (o->nallowed <= 0)
			return tm_err(err, TOPOMATCH_EINVAL, "the constraint list is empty");
		int rc = check_allowed(o, npu, err);
		if (rc != TOPOMATCH_OK)
			return rc;
		c->allowed = o->allowed;
		c->m = o->nallowed;
		c->constrained = 1;
		return TOPOMATCH_OK;
	}
	if (!(*owned = tm_alloc(npu, sizeof(int64_t))))
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory (%lld PUs)", (long long)npu);
	for (int64_t p = 0; p < npu; p++)
		(*owned)[p] = p;
	c->allowed = *owned;
	c->m = npu;
	c->constrained = 0;
	return TOPOMATCH_OK;
}

static int check_opts(const topomatch_map_opts_t *o, tm_map_ctx_t *c, char *err)
{
	c->f = o->oversub > 0 ? o->oversub : 1;
	if (o->oversub < 0 || c->f > MAX_OVERSUB)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "oversubscription factor %d out of range [1, %d]", o->oversub,
			      MAX_OVERSUB);
	int64_t cap;
	if (!tm_mul_ok(c->m, c->f, &cap) || c->ntasks > cap)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "%lld tasks do not fit on %lld PUs with at most %d task%s per PU "
			      "(raise the oversubscription factor)",
			      (long long)c->ntasks, (long long)c->m, c->f, c->f > 1 ? "s" : "");
	if (!isfinite(o->time_budget_s))
		return tm_err(err, TOPOMATCH_EINVAL, "the time budget must be a finite number");
	if (!(o->sparse_factor >= 0.0 && o->sparse_factor <= 1.0))
		return tm_err(err, TOPOMATCH_EINVAL, "the sparse factor must be in [0, 1]");
	if (isnan(o->tau))
		return tm_err(err, TOPOMATCH_EINVAL, "tau must be a number");
	if (o->threads < 0 || o->threads > MAX_THREADS)
		return tm_err(err, TOPOMATCH_EINVAL, "the thread count %d is out of range [0, %d]",
			      o->threads, MAX_THREADS);
	c->threads = o->threads > 0 ? o->threads : 1;
	c->seed = o->seed;
	c->memo = o->memo;
	c->tau = o->tau > 0 ? o->tau : TOPOMATCH_DEFAULT_TAU;
	c->sparse_factor = o->sparse_factor;
	c->deadline = o->time_budget_s > 0 ? tm_now() + o->time_budget_s : 0;
	return TOPOMATCH_OK;
}

/*
 * Costs sum weight x route cost over both directions and the refinement
 * adds and subtracts them: past DBL_MAX every mapping would cost inf and
 * compare equal.  Such a pattern (weights near DBL_MAX read and decode
 * fine) is mapped scaled down by a power of two, which keeps every
 * comparison as it was: only weights under 2^-1022 times the factor lose
 * bits.  *scaled: the copy to free, NULL when the weights fit.
 */
#define WEIGHT_ROUTE_MAX_EXP 1000 /* total x route under 2^1000, 8x under DBL_MAX */

static int fit_weights(tm_map_ctx_t *c, topomatch_affinity_t **scaled, char *err)
{
	double total = topomatch_affinity_total(c->a), route = tm_topology_cost_bound(c->t);
	*scaled = NULL;
	if (!(total > 0 && route > 0))
		return TOPOMATCH_OK;
	int e = ilogb(total) + 1 + ilogb(route) + 1 - WEIGHT_ROUTE_MAX_EXP;
	if (e <= 0)
		return TOPOMATCH_OK;
	int rc = tm_affinity_scale(c->a, ldexp(1.0, -e), scaled, err);
	if (rc == TOPOMATCH_OK)
		c->a = *scaled;
	return rc;
}

static int check_applicable(const struct mapper *mp, const tm_map_ctx_t *c, char *err)
{
	if (mp->tree_only && topomatch_topology_kind(c->t) != TOPOMATCH_TOPO_TREE)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "mapper '%s' needs a tree topology (use scotch or auto)", mp->name);
	if (mp->no_constraints && c->constrained)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "mapper '%s' takes no constraints (use topomatch-const or auto)",
			      mp->name);
	if (c->args && !mp->takes_args)
		return tm_err(err, TOPOMATCH_EINVAL, "mapper '%s' takes no options (got '%s')",
			      mp->name, c->args);
	return TOPOMATCH_OK;
}

/* Insist on a valid result: a bug must surface as an error, never as two
 * tasks on a PU or a task on a forbidden PU. */
static int verify(const tm_map_ctx_t *c, const char *who, const int64_t *pu, char *err)
{
	char why[TOPOMATCH_ERRLEN];
	if (topomatch_mapping_check(c->t, c->ntasks, pu, c->constrained ? c->allowed : NULL,
				    c->m, c->f, why) != TOPOMATCH_OK)
		return tm_err(err, TOPOMATCH_EINVAL, "internal error: %s: %s", who, why);
	return TOPOMATCH_OK;
}

static int run_checked(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = mp->run(c, pu, err);
	return rc == TOPOMATCH_OK ? verify(c, mp->name, pu, err) : rc;
}

/* pu[] takes alt[] when alt's hop-bytes are lower: ties keep pu[], so
 * the caller's order of candidates settles them.  *taken (may be NULL)
 * says which. */
static int take_if_lower(const tm_map_ctx_t *c, int64_t *pu, const int64_t *alt, bool *taken,
			 char *err)
{
	double hb = 0, hb_alt = 0;
	int rc = tm_metrics_hop_bytes(c->a, c->t, pu, &hb, err);
	if (rc == TOPOMATCH_OK)
		rc = tm_metrics_hop_bytes(c->a, c->t, alt, &hb_alt, err);
	bool lower = rc == TOPOMATCH_OK && hb_alt < hb;
	if (lower)
		memcpy(pu, alt, (size_t)c->ntasks * sizeof(*pu));
	if (taken)
		*taken = lower;
	return rc;
}

/*
 * Work units of the refinement (counted, not timed): 256 per task and
 * per matrix entry, enough for the local search to converge on the bench
 * cases (tens of ms at 4096 tasks), and never more than REFINE_WORK_MAX,
 * which all of them stay under (a 4096-task 3D stencil needs 7.3 million).
 * Larger jobs gain little more: after TOPOMATCHCONST, uncapped refinement
 * lowered the hop-bytes of 2,000 jobs of the CEA Curie trace on a
 * 4096-node fat tree (tools/sim) by 0.03% for 45% of the replay's time,
 * and a 16384-task random pattern by 0.02% in 0.7 s.
 */
#define REFINE_WORK_PER_ENTRY 256
#define REFINE_WORK_MAX (INT64_C(1) << 23)

static int64_t refine_work(const tm_map_ctx_t *c)
{
	int64_t nnz = topomatch_affinity_symmetric(c->a).rowptr[c->ntasks], w;
	if (!tm_add_ok(nnz, c->ntasks, &w) || !tm_mul_ok(w, REFINE_WORK_PER_ENTRY, &w))
		return REFINE_WORK_MAX;
	return w < REFINE_WORK_MAX ? w : REFINE_WORK_MAX;
}

/*
 * Refinement only ever improves a valid mapping; running short of memory
 * just leaves it as the mapper made it.  tm_refine stops quietly at the
 * guard, but a result cut short by the clock would depend on machine
 * speed: that is a budget failure (EBUDGET), with pu[] still valid and
 * refined so far, which topomatch_map returns marked fell_back when it
 * beats the natural placement (DESIGN.md: the budget only cuts work
 * short).
 */
static int refine(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = tm_refine(c, pu, refine_work(c), err);
	if (rc == TOPOMATCH_OK && tm_ctx_expired(c))
		return tm_err(err, TOPOMATCH_EBUDGET, "refinement: time budget exceeded");
	if (rc == TOPOMATCH_ENOMEM)
		return TOPOMATCH_OK;
	return rc == TOPOMATCH_OK ? verify(c, "refinement", pu, err) : rc;
}

/*
 * The sparse factor (TopoMatch §4.3.2) buys Scotch time on dense matrices
 * (§5.1: 4x at 0.5).  On a matrix that is already sparse it saves little
 * and can drop whole directions of a stencil whose faces carry unequal
 * weights (1000/500/100: only x is above half the largest).  auto then
 * also maps the whole graph and keeps the better of the two.
 */
#define FULL_GRAPH_MAX_DEGREE 64

static bool wants_full_graph(const tm_map_ctx_t *c)
{
	int64_t nnz = topomatch_affinity_symmetric(c->a).rowptr[c->ntasks];
	return c->sparse_factor > 0 && nnz <= FULL_GRAPH_MAX_DEGREE * c->ntasks;
}

/*
 * TreeMatch groups greedily and settles ties by task number: on a
 * pattern whose numbering says nothing of its locality (a shuffled
 * stencil) it builds ragged groups.  A run on the tasks renumbered in
 * GreedyMap's BFS order (Cuthill-McKee, ICS 2017 §4.5) gives its ties a
 * coherent order; its result does not depend on how the tasks were
 * numbered.  Measured on tree-4k's shuffled 16^3 stencil (seeds 1-4):
 * 35.01 to 35.63 M hop-bytes in the given order, 34.816 M, the optimum
 * for blocks of 8x4x1 tasks, renumbered.  TOPOMATCHCONST gained 0.15% on
 * frag-1k for twice its time, which the plugin's job budget cannot spare:
 * it runs once.
 *
 * Which orders run (issue 19, point 5: each run costs a Scotch k-way
 * partition, the grouping of the leaves, TopoMatch JPDC 2022 Alg. 1
 * line 9 and §4.2.2: 70 % of TreeMatch's time), measured with the bench's
 * stencils (faces 1000/500/100 on the 3-level trees of 16-core sockets),
 * shuffled with seeds 1-8 and in grid order, when that partition still
 * used Scotch's balanced strategy (tm_group_kpart's comment):
 *  - up to RENUMBER_ONLY_MAX tasks the renumbered order alone: it was
 *    never worse than the given one (1,024 tasks: 8.2432 M, 9 cases of
 *    9; 4,096: 34.816 M, 9 of 9), which halves auto's time there;
 *  - up to RENUMBER_MAX tasks both, the better kept (ties: the given
 *    order): at 16,384 either won, by up to 1.9 %;
 *  - above, the given order alone: at 65,536 tasks the renumbered run
 *    cost as much as the first (1.1 s, half of auto's time), and would
 *    have gained 0.2 to 0.8 % on 4 shuffles of 6, nothing on the other
 *    two (the given order 0.7 and 1.7 % better) nor on the grid order
 *    (3.1 % better); the bench's scale-64k is shuffle 1.
 * Out of memory only skips the renumbered run (the given order runs).
 */
#define RENUMBER_ONLY_MAX 4096
#define RENUMBER_MAX 32768

/* TreeMatch on the tasks renumbered in BFS order, mapped back: alt[] (a
 * valid mapping) on TOPOMATCH_OK; ENOMEM when memory ran out (the caller
 * then keeps or runs the given order). */
static int run_bfs_order(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *alt, char *err)
{
	int64_t n = c->ntasks;
	int64_t *list = tm_alloc(n, sizeof(*list)), *pos = tm_alloc(n, sizeof(*pos));
	int64_t *tmp = tm_alloc(n, sizeof(*tmp));
	topomatch_affinity_t *ra = NULL;
	topomatch_csr_t a = topomatch_affinity_symmetric(c->a);
	int rc = list && pos && tmp ? tm_order_bfs(&a, list, err) : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK) {
		for (int64_t k = 0; k < n; k++)
			pos[list[k]] = k;
		rc = tm_affinity_relabel(c->a, pos, &ra, err);
	}
	if (rc == TOPOMATCH_OK) {
		tm_map_ctx_t rn = *c;
		rn.a = ra;
		rc = run_checked(mp, &rn, tmp, err);
	}
	if (rc == TOPOMATCH_OK)
		for (int64_t v = 0; v < n; v++) /* back to the given numbering */
			alt[v] = tmp[pos[v]];
	topomatch_affinity_destroy(ra);
	free(list);
	free(pos);
	free(tmp);
	return rc;
}

/* The second run of 4,096 < n <= RENUMBER_MAX tasks: pu[] (the given
 * order's) takes the renumbered result when it is better. */
static int run_renumbered(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *pu,
			  char *err)
{
	if (c->ntasks <= RENUMBER_ONLY_MAX || c->ntasks > RENUMBER_MAX)
		return TOPOMATCH_OK; /* one order only: the first run was it */
	int64_t *alt = tm_alloc(c->ntasks, sizeof(*alt));
	int rc = alt ? run_bfs_order(mp, c, alt, err) : TOPOMATCH_ENOMEM;
	if (rc == TOPOMATCH_OK)
		rc = take_if_lower(c, pu, alt, NULL, err);
	free(alt);
	return rc == TOPOMATCH_ENOMEM ? TOPOMATCH_OK : rc;
}

/* The Fig. 3 mapper's first result in pu[]: TreeMatch's first order. */
static int run_fig3_first(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *pu,
			  char *err)
{
	if (mp->run == tm_map_treematch && c->ntasks <= RENUMBER_ONLY_MAX) {
		int rc = run_bfs_order(mp, c, pu, err);
		if (rc != TOPOMATCH_ENOMEM)
			return rc;
	}
	return run_checked(mp, c, pu, err);
}

/* After the Fig. 3 mapper's first result in pu[] (valid): its second
 * run, the better one kept in pu[]. */
static int run_fig3_more(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = TOPOMATCH_OK;
	if (mp->run == tm_map_treematch)
		return run_renumbered(mp, c, pu, err);
	if (mp->run != tm_map_scotch || !wants_full_graph(c))
		return rc;
	int64_t *full = tm_alloc(c->ntasks, sizeof(*full));
	if (!full)
		return TOPOMATCH_OK; /* the first result stands */
	tm_map_ctx_t whole = *c;
	whole.sparse_factor = 0;
	rc = run_checked(mp, &whole, full, err);
	if (rc == TOPOMATCH_OK)
		rc = take_if_lower(c, pu, full, NULL, err);
	free(full);
	return rc;
}

/* The Fig. 3 mapper's result in pu[]. */
static int run_fig3(const struct mapper *mp, const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = run_fig3_first(mp, c, pu, err);
	return rc == TOPOMATCH_OK ? run_fig3_more(mp, c, pu, err) : rc;
}

/*
 * On a whole mesh or torus, two more candidates beside Scotch: the
 * analytical mapper (J. Supercomput. 2016; the issue: "instead of Scotch
 * on mesh/torus when it does better") and GreedyMap, whose paper (ICS
 * 2017) targets tori.  Measured on the bench's torus case (a shuffled
 * 16^3 stencil with faces of 1000/500/100 on torus3D 16 16 16), in hops
 * a byte travels: GreedyMap 1.00 (the natural placement), analytical
 * 1.54, Scotch 1.74; on shuffled stencils with equal faces, a random
 * graph and a 1024-router torus of 4-core nodes the analytical mapper is
 * the best of the three, and GreedyMap also follows wrap-around links,
 * which the analytical placement (on a mesh) does not see: a ring on a
 * ring.  The lowest hop-bytes win, ties to Scotch, then to the analytical
 * mapper.  Not under constraints, which the analytical mapper does not
 * take (and where the plugin's budget is short), nor on dense patterns:
 * their partitions into groups cost what Scotch's does there (27 s and
 * 75 s against 0.07 s on a dense 4096-task pattern on a 1024-router
 * torus).
 */
#define GRID_CANDIDATES_MAX_DEGREE 64

static bool wants_grid_candidates(const tm_map_ctx_t *c)
{
	int64_t nnz = topomatch_affinity_symmetric(c->a).rowptr[c->ntasks];
	return !c->constrained && tm_analytical_fits(c->t) &&
	       nnz <= GRID_CANDIDATES_MAX_DEGREE * c->ntasks;
}

/* Mapper `name`, refined, in pu[] when its hop-bytes are lower.  Out of
 * memory only skips it. */
static int try_candidate(const char *name, const tm_map_ctx_t *c, int64_t *pu, bool *taken,
			 char *err)
{
	int64_t *alt = tm_alloc(c->ntasks, sizeof(*alt));
	*taken = false;
	if (!alt)
		return TOPOMATCH_OK;
	int rc = run_checked(find_mapper(name), c, alt, err);
	if (rc == TOPOMATCH_OK)
		rc = refine(c, alt, err);
	if (rc == TOPOMATCH_EBUDGET) { /* cut short, alt valid: it may still be better */
		char why[TOPOMATCH_ERRLEN];
		take_if_lower(c, pu, alt, taken, why);
	} else if (rc == TOPOMATCH_OK) {
		rc = take_if_lower(c, pu, alt, taken, err);
	}
	free(alt);
	return rc == TOPOMATCH_ENOMEM ? TOPOMATCH_OK : rc;
}

/*
 * On a whole tree, TopoMatch's Fig. 3 (§4.1) runs TreeMatch, which
 * groups bottom-up and greedily: on GROMACS's profiles, whose PME ranks
 * are interleaved among the others, its first groups pair ranks that the
 * refinement cannot separate again.  §4.1 lets the user run the generic
 * algorithms on a tree instead; on small jobs auto runs two of them
 * beside TreeMatch, each refined, and keeps the lowest hop-bytes (ties:
 * TreeMatch's result, then in this order):
 *  - TOPOMATCHCONST (Alg. 3, §4.4) with every PU allowed: top-down, the
 *    least cut at each level;
 *  - Scotch (Alg. 2, with auto's sparse factor).
 * On issue 19's machines (bench/README.md, recorded profiles) TreeMatch
 * alone was 1.00002 to 1.091 x min(fair Scotch, natural) on the nodes of
 * 2 x 4 cores (lj-128, meep-64, gmx-64, gmx-128, foam-64);
 * TOPOMATCHCONST reaches that bound on four of them and 1.00008 on
 * gmx-128-c8, where Scotch's mapping, refined, is 0.9983 x it.
 *
 * Each costs 1 to 5 times what TreeMatch and the refinement cost, so they
 * run only on small jobs, chosen by size (counted, never timed: the
 * result does not depend on the machine): up to EXTRA_CAND_MAX_TASKS
 * tasks and EXTRA_CAND_MAX_NNZ matrix entries (a dense 128-task pattern,
 * which every recorded profile is).  Measured on 2 loaded CPUs, both
 * together: +0.01 to +0.015 s on the 64- and 128-rank profiles, +0.02 s
 * on a shuffled 512-task stencil, +0.11 s on a dense 128-task pattern of
 * uniformly random weights (the worst seen: the refinement of their
 * results takes long); at 1,024 tasks +0.05 s, at 4,096 +0.28 s against
 * auto's 0.05 s target (issue 19, point 5), hence the bound.  Under a
 * time budget they look at the clock like the rest: cut short, auto
 * returns its best so far, fell_back set.
 */
#define EXTRA_CAND_MAX_TASKS 512
#define EXTRA_CAND_MAX_NNZ (INT64_C(1) << 14)

static bool wants_tree_candidates(const tm_map_ctx_t *c)
{
	int64_t nnz = topomatch_affinity_symmetric(c->a).rowptr[c->ntasks];
	return !c->constrained && topomatch_topology_kind(c->t) == TOPOMATCH_TOPO_TREE &&
	       c->ntasks <= EXTRA_CAND_MAX_TASKS && nnz <= EXTRA_CAND_MAX_NNZ;
}

/*
 * auto: the TopoMatch Fig. 3 algorithm, refined by local search (on a
 * mesh or torus, the analytical mapper or GreedyMap instead when one of
 * them does better; on a small whole tree, TOPOMATCHCONST or Scotch when
 * one of them does better), and
 * kept only when it beats the natural placement — TopoMatch's Alg. 1
 * starts from round-robin for the same reason, and falls back to it when
 * the pattern says too little (§5.5).
 */
static int map_auto(const tm_map_ctx_t *c, int64_t *pu, char *name, bool *valid, char *err)
{
	const struct mapper *mp = fig3_choice(c);
	int64_t *rr = tm_alloc(c->ntasks, sizeof(*rr));
	if (!rr)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	/* from here on pu[] is valid, the best so far: what a budget cut
	 * short returns (topomatch_map), with its mapper's name */
	int rc = run_fig3_first(mp, c, pu, err);
	*valid = rc == TOPOMATCH_OK;
	strcpy(name, mp->name);
	if (rc == TOPOMATCH_OK)
		rc = run_fig3_more(mp, c, pu, err);
	if (rc == TOPOMATCH_OK)
		rc = refine(c, pu, err);
	const char *grid[] = { "analytical", "greedymap" }, *won = mp->name;
	bool taken = false;
	const char *tree[] = { "topomatch-const", "scotch" };
	for (int i = 0; i < 2 && rc == TOPOMATCH_OK && wants_tree_candidates(c); i++) {
		rc = try_candidate(tree[i], c, pu, &taken, err);
		won = taken ? tree[i] : won;
		strcpy(name, won);
	}
	for (int i = 0; i < 2 && rc == TOPOMATCH_OK && wants_grid_candidates(c); i++) {
		rc = try_candidate(grid[i], c, pu, &taken, err);
		won = taken ? grid[i] : won;
		strcpy(name, won);
	}
	if (rc == TOPOMATCH_OK) { /* round-robin wins ties */
		map_round_robin(c, rr, err);
		rc = take_if_lower(c, rr, pu, &taken, err);
	}
	if (rc == TOPOMATCH_OK) {
		memcpy(pu, rr, (size_t)c->ntasks * sizeof(*pu));
		strcpy(name, taken ? won : "round-robin");
	}
	free(rr);
	return rc;
}

/* The portfolio's candidates: each mapper followed by the refinement. */
static int refined(const char *name, const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = run_checked(find_mapper(name), c, pu, err);
	return rc == TOPOMATCH_OK ? refine(c, pu, err) : rc;
}

static int cand_fig3(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = run_fig3(fig3_choice(c), c, pu, err);
	return rc == TOPOMATCH_OK ? refine(c, pu, err) : rc;
}

static int cand_eagermap(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	return refined("eagermap", c, pu, err);
}

static int cand_greedymap(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	return refined("greedymap", c, pu, err);
}

/*
 * portfolio: the natural placement, TopoMatch's Fig. 3 choice (as auto
 * runs it), EagerMap and GreedyMap, each refined, on threads; the best
 * wins (portfolio.c).  name gets "portfolio:" and the winner's name.
 */
static int map_portfolio(const tm_map_ctx_t *c, int64_t *pu, char *name, bool *cut, char *err)
{
	const tm_candidate_t cand[] = {
		{ "round-robin", map_round_robin },
		{ fig3_choice(c)->name, cand_fig3 },
		{ "eagermap", cand_eagermap },
		{ "greedymap", cand_greedymap },
	};
	int k = 0;
	int rc = tm_portfolio(c, cand, (int)(sizeof(cand) / sizeof(cand[0])), pu, &k, cut, err);
	if (rc == TOPOMATCH_OK)
		snprintf(name, sizeof(((topomatch_map_result_t *)0)->mapper), "portfolio:%s",
			 cand[k].name);
	return rc;
}

/*
 * The time budget ran out (EBUDGET): pu[] gets the best mapping found so
 * far when there is one (valid: auto's result so far, a named mapper's
 * result whose refinement was cut short), or the natural placement when
 * that is better or nothing was found; name says which.  Every step
 * looks at the clock or runs where it can be abandoned (Scotch), so this
 * happens within a few milliseconds of the deadline.
 */
static int cut_short(const tm_map_ctx_t *c, int64_t *pu, bool valid, char *name, char *err)
{
	int64_t *rr = valid ? tm_alloc(c->ntasks, sizeof(*rr)) : NULL;
	bool taken = false;
	int rc = TOPOMATCH_OK;
	if (rr) { /* round-robin wins ties, as in auto */
		map_round_robin(c, rr, err);
		rc = take_if_lower(c, rr, pu, &taken, err);
	}
	if (rc == TOPOMATCH_OK && !taken)
		map_round_robin(c, pu, err);
	if (rc == TOPOMATCH_OK && !taken)
		strcpy(name, "round-robin");
	free(rr);
	return rc;
}

int topomatch_map(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		  const topomatch_map_opts_t *opts, int64_t *pu, topomatch_map_result_t *res,
		  char *err)
{
	topomatch_map_opts_t defaults;
	topomatch_map_opts_init(&defaults);
	const topomatch_map_opts_t *o = opts ? opts : &defaults;
	topomatch_map_result_t r = { .mapper = "" };
	double t0 = tm_now();
	const char *name = o->mapper ? o->mapper : "auto";
	bool combined = !strcmp(name, "auto") || !strcmp(name, "portfolio");
	const struct mapper *mp = combined ? NULL : find_mapper(name);
	if (!combined && !mp)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "unknown mapper '%s' (known: auto, portfolio, round-robin, random, "
			      "treematch, topomatch-const, scotch, eagermap, greedymap, parmapper, "
			      "analytical)",
			      name);
	tm_map_ctx_t c = { .a = a, .t = t, .ntasks = topomatch_affinity_ntasks(a) };
	if (mp && strchr(name, ':'))
		c.args = strchr(name, ':') + 1;
	int64_t *owned;
	int rc = set_allowed(o, &c, &owned, err);
	if (rc == TOPOMATCH_OK)
		rc = check_opts(o, &c, err);
	topomatch_affinity_t *scaled = NULL;
	if (rc == TOPOMATCH_OK)
		rc = fit_weights(&c, &scaled, err);
	if (rc == TOPOMATCH_OK && mp)
		rc = check_applicable(mp, &c, err);
	if (rc == TOPOMATCH_OK) {
		bool valid = false, cut = false;
		if (mp) {
			rc = run_checked(mp, &c, pu, err);
			valid = rc == TOPOMATCH_OK;
			if (rc == TOPOMATCH_OK && o->refine)
				rc = refine(&c, pu, err);
			strcpy(r.mapper, mp->name);
		} else if (!strcmp(name, "auto")) {
			rc = map_auto(&c, pu, r.mapper, &valid, err);
		} else {
			rc = map_portfolio(&c, pu, r.mapper, &cut, err);
		}
		if (rc == TOPOMATCH_EBUDGET) {
			/* the guard only ever cuts a run short: to the best
			 * mapping so far, never worse than the natural placement */
			rc = cut_short(&c, pu, valid, r.mapper, err);
			r.fell_back = 1;
		}
		r.fell_back |= cut; /* a portfolio candidate gave up */
	}
	free(owned);
	topomatch_affinity_destroy(scaled);
	if (rc != TOPOMATCH_OK)
		return rc;
	r.time_s = tm_now() - t0;
	if (res)
		*res = r;
	return TOPOMATCH_OK;
}

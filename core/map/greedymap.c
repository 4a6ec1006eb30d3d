/*
 * greedymap.c - GreedyMap (Galvez, Jain, Kale, ICS 2017, §4.4, Alg. 1):
 * tasks are taken in the order of a task list and each goes to the free
 * processor of least cost, that is the hop-bytes (or maximum task
 * hop-bytes) of the partial solution, among the Delta nodes closest to
 * the node used last, or on that node while it has room when
 * packNodeFirst is set; line 10 breaks ties at random.
 *
 * Nodes are pu_nodes.h's (parents of the PUs on trees, routers on grids,
 * PUs elsewhere); a "free processor" is an allowed PU holding fewer than
 * f tasks.  Cost of a processor p: the sum over the task's placed
 * neighbours w of A(t, w) hops(p, s(w)).  A neighbour outside p's node is
 * at the same distance from every PU of the node, so each candidate node
 * costs O(degree) plus O(neighbours inside) per free PU.
 *
 * Two additions, both configurable:
 *  - Delta = every node (delta=0) is evaluated without weighing every
 *    node: rings around the heaviest placed neighbour's node, until a
 *    ring r cannot hold anything cheaper than sum_w A(t, w) max(0, r -
 *    d(c, w)) (the triangle inequality), which is exact, or until
 *    GM_WALK_MAX nodes were visited (scattered neighbours);
 *  - ties=first (the default) takes the first tie met walking from that
 *    neighbour's node instead of a random one: on a grid, where costs are
 *    sums of Manhattan distances, random ties turn rows into staircases.
 *    ties=random is the paper's line 10.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "greedymap_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A placed neighbour of the task being placed. */
typedef struct nbr {
	int64_t task, j, node;
	double w;
	int64_t dc; /* distance of its node from the centre of a bounded walk */
} nbr_t;

struct gm_run {
	const gm_shared_t *sh;
	const gm_config_t *cfg;
	tm_near_t near;
	int64_t *slot;   /* the caller's: task -> allowed index, -1 */
	int *load;       /* allowed index -> tasks on it */
	int64_t *nfree;  /* node -> free slots */
	int64_t *cand;   /* candidate nodes of a step */
	int64_t ncand;
	int64_t *tie;    /* processors of equal least cost */
	int64_t ntie;
	double best1, best2;
	nbr_t *nb;       /* placed neighbours of the current task */
	int64_t nnb;
	double *hb;      /* GM_COST_MAXHB: each task's hop-bytes so far */
	double maxhb;
	uint64_t *tmark; /* node -> epoch when it holds a tie */
	uint64_t tepoch;
	int64_t tnode;   /* the first node holding a tie, met from the partner */
	int64_t ring;    /* bounded walks: the ring being visited... */
	int64_t visits;  /* ...and the nodes visited */
	topomatch_rng_t rng;
};

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "greedymap: out of memory");
}

/* ---------------------------------------------------------------- shared */

int gm_shared_init(gm_shared_t *sh, const tm_map_ctx_t *c, char *err)
{
	memset(sh, 0, sizeof(*sh));
	sh->c = c;
	sh->a = topomatch_affinity_symmetric(c->a);
	return tm_nodes_build(&sh->nd, c->t, c->allowed, c->m, err);
}

void gm_shared_free(gm_shared_t *sh)
{
	for (int k = 0; k < GM_NORDERS; k++)
		free(sh->order[k]);
	tm_nodes_free(&sh->nd);
	memset(sh, 0, sizeof(*sh));
}

/* ---------------------------------------------------------------- scratch */

void gm_run_destroy(gm_run_t *r)
{
	if (!r)
		return;
	tm_near_free(&r->near);
	free(r->load);
	free(r->nfree);
	free(r->cand);
	free(r->tie);
	free(r->nb);
	free(r->hb);
	free(r->tmark);
	free(r);
}

int gm_run_create(const gm_shared_t *sh, gm_run_t **out, char *err)
{
	int64_t n = sh->c->ntasks, maxdeg = 0;
	gm_run_t *r = calloc(1, sizeof(*r));
	*out = NULL;
	if (!r)
		return oom(err);
	for (int64_t t = 0; t < n; t++)
		if (sh->a.rowptr[t + 1] - sh->a.rowptr[t] > maxdeg)
			maxdeg = sh->a.rowptr[t + 1] - sh->a.rowptr[t];
	r->sh = sh;
	r->load = tm_alloc(sh->nd.m, sizeof(*r->load));
	r->nfree = tm_alloc(sh->nd.n, sizeof(*r->nfree));
	r->cand = tm_alloc(sh->nd.n, sizeof(*r->cand));
	r->tie = tm_alloc(sh->nd.m, sizeof(*r->tie));
	r->nb = tm_alloc(maxdeg, sizeof(*r->nb));
	r->hb = tm_alloc(n, sizeof(*r->hb));
	r->tmark = tm_zalloc(sh->nd.n, sizeof(*r->tmark));
	if (!r->load || !r->nfree || !r->cand || !r->tie || !r->nb || !r->hb || !r->tmark) {
		gm_run_destroy(r);
		return oom(err);
	}
	int rc = tm_near_init(&r->near, &sh->nd, err);
	if (rc != TOPOMATCH_OK) {
		gm_run_destroy(r);
		return rc;
	}
	*out = r;
	return TOPOMATCH_OK;
}

static void run_reset(gm_run_t *r, const gm_config_t *cfg, int64_t *slot)
{
	const tm_nodes_t *nd = &r->sh->nd;
	r->cfg = cfg;
	r->slot = slot;
	for (int64_t t = 0; t < r->sh->c->ntasks; t++) {
		slot[t] = -1;
		r->hb[t] = 0.0;
	}
	for (int64_t j = 0; j < nd->m; j++)
		r->load[j] = 0;
	for (int64_t x = 0; x < nd->n; x++)
		r->nfree[x] = (nd->ptr[x + 1] - nd->ptr[x]) * (int64_t)r->sh->c->f;
	r->maxhb = 0.0;
	topomatch_rng_seed(&r->rng, cfg->seed);
}

/* ---------------------------------------------------------------- Alg. 1 */

/* Task t's neighbours that already have a processor. */
static void placed_neighbours(gm_run_t *r, int64_t t)
{
	const topomatch_csr_t *a = &r->sh->a;
	r->nnb = 0;
	for (int64_t e = a->rowptr[t]; e < a->rowptr[t + 1]; e++) {
		int64_t w = a->col[e], j = r->slot[w];
		if (j >= 0)
			r->nb[r->nnb++] = (nbr_t){ w, j, r->sh->nd.node[j], a->w[e], 0 };
	}
}

static bool collect(void *arg, int64_t node, int64_t dist)
{
	gm_run_t *r = arg;
	(void)dist;
	if (r->nfree[node] > 0)
		r->cand[r->ncand++] = node;
	return r->ncand < r->cfg->delta;
}

/* Keep processor j if its cost (c1, then c2) is the least so far. */
static void offer(gm_run_t *r, int64_t j, double c1, double c2)
{
	if (r->ntie > 0 && (c1 > r->best1 || (c1 == r->best1 && c2 > r->best2)))
		return;
	if (r->ntie == 0 || c1 < r->best1 || c2 < r->best2) {
		r->ntie = 0;
		r->best1 = c1;
		r->best2 = c2;
	}
	r->tie[r->ntie++] = j;
}

/* Alg. 1 line 8: the cost of the partial solution (§4.4: hop-bytes, or
 * maximum task hop-bytes) for each free processor of node x. */
static void weigh_node(gm_run_t *r, int64_t x)
{
	const tm_nodes_t *nd = &r->sh->nd;
	double sum = 0.0, mx = r->maxhb;
	bool maxcost = r->cfg->cost == GM_COST_MAXHB, inside = false;
	for (int64_t i = 0; i < r->nnb; i++) {
		if (r->nb[i].node == x) {
			inside = true;
			continue;
		}
		double d = r->nb[i].w * (double)tm_near_hops(&r->near, nd->ptr[x], r->nb[i].j);
		sum += d;
		if (maxcost && r->hb[r->nb[i].task] + d > mx)
			mx = r->hb[r->nb[i].task] + d;
	}
	for (int64_t j = nd->ptr[x]; j < nd->ptr[x + 1]; j++) {
		if (r->load[j] >= r->sh->c->f)
			continue;
		double s = sum, m = mx;
		for (int64_t i = 0; inside && i < r->nnb; i++) {
			if (r->nb[i].node != x)
				continue;
			double d = r->nb[i].w * (double)tm_near_hops(&r->near, j, r->nb[i].j);
			s += d;
			if (maxcost && r->hb[r->nb[i].task] + d > m)
				m = r->hb[r->nb[i].task] + d;
		}
		if (maxcost)
			offer(r, j, s > m ? s : m, s);
		else
			offer(r, j, s, 0.0);
	}
}

/* The node of the task's heaviest placed neighbour (first in row order),
 * or `last` when it has none. */
static int64_t heaviest(const gm_run_t *r, int64_t last)
{
	int64_t from = last;
	double w = 0.0;
	for (int64_t i = 0; i < r->nnb; i++)
		if (r->nb[i].w > w) {
			w = r->nb[i].w;
			from = r->nb[i].node;
		}
	return from;
}

/* No node in ring `dist` of the bounded walk costs less than this. */
static double ring_bound(const gm_run_t *r, int64_t dist)
{
	double lb = 0.0;
	for (int64_t i = 0; i < r->nnb; i++)
		if (dist > r->nb[i].dc)
			lb += r->nb[i].w * (double)(dist - r->nb[i].dc);
	return lb;
}

static bool visit_bounded(void *arg, int64_t node, int64_t dist)
{
	gm_run_t *r = arg;
	if (++r->visits > GM_WALK_MAX && r->ntie > 0)
		return false;
	if (dist != r->ring) {
		r->ring = dist;
		if (r->ntie > 0 && ring_bound(r, dist) > r->best1)
			return false;
	}
	if (r->nfree[node] > 0)
		weigh_node(r, node);
	/* no placed neighbour: every free PU costs 0, the first will do
	 * unless ties are drawn at random */
	return r->nnb > 0 || r->ntie == 0 || r->cfg->random_ties;
}

/* Lines 5-9 and 8's costs: the node used last while it has room
 * (packNodeFirst), else the Delta closest nodes with room, else (Delta
 * = every node) a bounded walk. */
static void evaluate(gm_run_t *r, int64_t last)
{
	const tm_nodes_t *nd = &r->sh->nd;
	r->ntie = 0;
	if (r->cfg->pack && r->nfree[last] > 0) {
		weigh_node(r, last);
		return;
	}
	if (r->cfg->delta > 0 && r->cfg->delta < nd->n) {
		r->ncand = 0;
		tm_near_walk(&r->near, last, r->cfg->wrap, collect, r);
		for (int64_t k = 0; k < r->ncand; k++)
			weigh_node(r, r->cand[k]);
		return;
	}
	int64_t from = heaviest(r, last);
	for (int64_t i = 0; i < r->nnb; i++)
		r->nb[i].dc = tm_near_dist(&r->near, from, r->nb[i].node);
	r->ring = 0;
	r->visits = 0;
	tm_near_walk(&r->near, from, true, visit_bounded, r);
}

/* Lines 11-13: task t on processor j. */
static void assign(gm_run_t *r, int64_t t, int64_t j)
{
	r->slot[t] = j;
	r->load[j]++;
	r->nfree[r->sh->nd.node[j]]--; /* free slots of the node */
	if (r->cfg->cost != GM_COST_MAXHB)
		return;
	for (int64_t i = 0; i < r->nnb; i++) {
		double d = r->nb[i].w * (double)tm_near_hops(&r->near, j, r->nb[i].j);
		r->hb[t] += d;
		r->hb[r->nb[i].task] += d;
		if (r->hb[r->nb[i].task] > r->maxhb)
			r->maxhb = r->hb[r->nb[i].task];
	}
	if (r->hb[t] > r->maxhb)
		r->maxhb = r->hb[t];
}

static bool find_tie(void *arg, int64_t node, int64_t dist)
{
	gm_run_t *r = arg;
	(void)dist;
	if (r->tmark[node] != r->tepoch)
		return true;
	r->tnode = node;
	return false;
}

/* Line 10.  The paper draws a tie at random; the deterministic choice
 * (ties=first) takes the first tie met walking from the node of the
 * task's heaviest placed neighbour (of the node used last when it has
 * none), so that equal costs are settled the same way everywhere: the
 * rows of a grid stay straight. */
static int64_t pick_tie(gm_run_t *r, int64_t last)
{
	if (r->cfg->random_ties)
		return r->tie[topomatch_rng_below(&r->rng, (uint64_t)r->ntie)];
	if (r->ntie == 1)
		return r->tie[0];
	int64_t from = heaviest(r, last);
	r->tepoch++;
	for (int64_t i = 0; i < r->ntie; i++)
		r->tmark[r->sh->nd.node[r->tie[i]]] = r->tepoch;
	r->tnode = -1;
	tm_near_walk(&r->near, from, r->cfg->wrap, find_tie, r);
	for (int64_t i = 0; i < r->ntie; i++)
		if (r->sh->nd.node[r->tie[i]] == r->tnode)
			return r->tie[i];
	return r->tie[0];
}

/* One iteration of Alg. 1's loop; returns the node now used last. */
static int64_t place(gm_run_t *r, int64_t t, int64_t last)
{
	placed_neighbours(r, t);
	evaluate(r, last);
	int64_t j = pick_tie(r, last);
	assign(r, t, j);
	return r->sh->nd.node[j];
}

/* GreedyMap (Alg. 1) under one configuration (§4.5). */
int gm_map(gm_run_t *r, const gm_config_t *cfg, int64_t *slot, char *err)
{
	const int64_t *order = r->sh->order[cfg->order];
	int64_t n = r->sh->c->ntasks, last = 0; /* line 3: the node of p_0 */
	if (!order)
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: task list %s not built",
			      gm_order_name(cfg->order));
	run_reset(r, cfg, slot);
	for (int64_t i = 0; i < n; i++) {
		if (i % GM_CHECK_TASKS == GM_CHECK_TASKS - 1 && tm_ctx_expired(r->sh->c))
			return tm_err(err, TOPOMATCH_EBUDGET, "greedymap: time budget exceeded");
		last = place(r, order[i], last);
	}
	return TOPOMATCH_OK;
}

/* Eq. 1-3: hopbytes(S, t), its average and its maximum. */
void gm_task_hop_bytes(gm_run_t *r, const int64_t *slot, double *avg, double *max)
{
	const topomatch_csr_t *a = &r->sh->a;
	double sum = 0.0;
	*max = 0.0;
	for (int64_t t = 0; t < a->n; t++) {
		double h = 0.0;
		for (int64_t e = a->rowptr[t]; e < a->rowptr[t + 1]; e++)
			h += a->w[e] * (double)tm_near_hops(&r->near, slot[t], slot[a->col[e]]);
		sum += h;
		if (h > *max)
			*max = h;
	}
	*avg = a->n > 0 ? sum / (double)a->n : 0.0;
}

/* ---------------------------------------------------------------- options */

const char *gm_order_name(int order)
{
	static const char *const names[GM_NORDERS] = { "oo", "bfs", "bfs-dfs", "gpart" };
	return order >= 0 && order < GM_NORDERS ? names[order] : "?";
}

/* GPART, as on fat trees (§5.4), when the nodes hold several tasks;
 * BFS (Cuthill-McKee's order) otherwise.  packNodeFirst off (§5.4: best
 * on fat trees); every node explored (the bounded walk makes it cheap). */
gm_config_t gm_default_config(const gm_shared_t *sh)
{
	gm_config_t cfg = { .order = gm_gpart_parts(sh) > 0 ? GM_GPART : GM_BFS,
			    .pack = false,
			    .delta = 0,
			    .wrap = true,
			    .cost = GM_COST_HB,
			    .seed = sh->c->seed };
	return cfg;
}

static int parse_bool(const char *key, const char *v, bool *out, char *err)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		*out = false;
	else
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: %s must be 0 or 1 (got '%s')", key,
			      v);
	return TOPOMATCH_OK;
}

static int parse_order(const char *v, int *out, char *err)
{
	for (int k = 0; k < GM_NORDERS; k++) {
		if (!strcmp(v, gm_order_name(k))) {
			*out = k;
			return TOPOMATCH_OK;
		}
	}
	return tm_err(err, TOPOMATCH_EINVAL,
		      "greedymap: order must be oo, bfs, bfs-dfs or gpart (got '%s')", v);
}

static int parse_delta(const char *v, int64_t *out, char *err)
{
	char *end;
	errno = 0;
	long long d = strtoll(v, &end, 10);
	if (errno || end == v || *end || d < 0)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "greedymap: delta must be an integer >= 0, 0 for all nodes (got '%s')",
			      v);
	*out = d;
	return TOPOMATCH_OK;
}

static int parse_cost(const char *v, int *out, char *err)
{
	if (!strcmp(v, "hop-bytes") || !strcmp(v, "sum"))
		*out = GM_COST_HB;
	else if (!strcmp(v, "max-hop-bytes") || !strcmp(v, "max"))
		*out = GM_COST_MAXHB;
	else
		return tm_err(err, TOPOMATCH_EINVAL,
			      "greedymap: cost must be hop-bytes or max-hop-bytes (got '%s')", v);
	return TOPOMATCH_OK;
}

static int parse_ties(const char *v, bool *out, char *err)
{
	if (!strcmp(v, "random") || !strcmp(v, "first"))
		*out = !strcmp(v, "random");
	else
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: ties must be first or random (got '%s')",
			      v);
	return TOPOMATCH_OK;
}

static int parse_one(char *item, gm_config_t *cfg, char *err)
{
	char *eq = strchr(item, '=');
	if (!eq)
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: option '%s' needs a value (key=value)",
			      item);
	*eq = '\0';
	const char *v = eq + 1;
	if (!strcmp(item, "order"))
		return parse_order(v, &cfg->order, err);
	if (!strcmp(item, "pack"))
		return parse_bool("pack", v, &cfg->pack, err);
	if (!strcmp(item, "wrap"))
		return parse_bool("wrap", v, &cfg->wrap, err);
	if (!strcmp(item, "delta"))
		return parse_delta(v, &cfg->delta, err);
	if (!strcmp(item, "cost"))
		return parse_cost(v, &cfg->cost, err);
	if (!strcmp(item, "ties"))
		return parse_ties(v, &cfg->random_ties, err);
	return tm_err(err, TOPOMATCH_EINVAL,
		      "greedymap: unknown option '%s' (known: order, pack, delta, wrap, cost, ties)", item);
}

int gm_parse(const char *args, gm_config_t *cfg, char *err)
{
	char buf[256];
	if (!args || !*args)
		return TOPOMATCH_OK;
	if (strlen(args) >= sizeof(buf))
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: options too long");
	strcpy(buf, args);
	int rc = TOPOMATCH_OK;
	for (char *save = NULL, *it = strtok_r(buf, ",", &save); it && rc == TOPOMATCH_OK;
	     it = strtok_r(NULL, ",", &save))
		rc = parse_one(it, cfg, err);
	return rc;
}

/* ---------------------------------------------------------------- entry */

/* Slots (allowed indices) to PU ids. */
static void to_pus(const tm_nodes_t *nd, const int64_t *slot, int64_t n, int64_t *pu)
{
	for (int64_t t = 0; t < n; t++)
		pu[t] = nd->pus[slot[t]];
}

int tm_map_greedymap(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	gm_shared_t sh;
	gm_run_t *r = NULL;
	int rc = gm_shared_init(&sh, c, err);
	gm_config_t cfg;
	if (rc == TOPOMATCH_OK) {
		cfg = gm_default_config(&sh);
		rc = gm_parse(c->args, &cfg, err);
	}
	if (rc == TOPOMATCH_OK)
		rc = gm_shared_order(&sh, cfg.order, err);
	if (rc == TOPOMATCH_OK)
		rc = gm_run_create(&sh, &r, err);
	if (rc == TOPOMATCH_OK)
		rc = gm_map(r, &cfg, pu, err); /* slots in pu[], then PU ids */
	if (rc == TOPOMATCH_OK)
		to_pus(&sh.nd, pu, c->ntasks, pu);
	gm_run_destroy(r);
	gm_shared_free(&sh);
	return rc;
}

/*
 * cluster_contention.c - contention-aware node choice on a cluster: the
 * link-load table of core/metrics/link_load.c on the cluster's topology (cluster
 * PUs in, topology PUs inside), and a node selection that compares
 * candidate node sets by hop-bytes plus the load their traffic would
 * meet (topomatch_cluster.h; topomatch-sim(1), "CONTENTION-AWARE NODE
 * CHOICE").
 *
 * The first candidate is topomatch_cluster_select's own choice (its
 * best-fit region, cluster_select.c), so weight 0, an empty table or a
 * first choice that meets no load give exactly the old nodes.  The others
 * are node sets where the job's traffic would stay off the loaded links
 * of the first one: the quiet nodes (no load on their way up) of the
 * first region, then of the whole tree and, when those are few, the
 * least loaded after them, chosen among as topomatch_cluster_select
 * chooses; then regions of the switch tree:
 * (a) below the first region, its
 * child subtrees that hold the job alone (fewer free PUs than the
 * region's slack asks for, so the old walk stopped above them), fewest
 * free PUs first; (b) beside it, the sibling subtrees the walk passed
 * over that had room too (best fit again below them), the deepest level
 * first.  Each is mapped as the first one was and scored; the lowest
 * score wins, the first on ties.  Networks without a switch tree (torus,
 * dragonfly, graph) rank the free nodes by the load at their switch
 * instead: the quiet ones, then the least loaded.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cluster_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Free PUs beyond this many times the tasks: a region (cluster_select.c). */
#define REGION_SLACK 4
/* Candidates compared besides the first. */
#define MAX_ALTERNATIVES 3

int topomatch_cluster_link_load_create(const topomatch_cluster_t *c, int64_t max_entries,
				       topomatch_link_load_t **out, char *err)
{
	if (!c)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_link_load_create: NULL "
			      "argument");
	return topomatch_link_load_create(c->topo, c->slot_pus, max_entries, out, err);
}

/* Cluster PUs -> topology PUs (malloc'd); EINVAL naming a bad one. */
static int to_topology(const topomatch_cluster_t *c, const int64_t *pu, int64_t n,
		       int64_t **out, char *err)
{
	int64_t *t = tm_alloc(n, sizeof(*t));
	*out = NULL;
	if (!t)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < n; i++)
		if ((t[i] = topomatch_cluster_pu_to_topology(c, pu[i])) < 0) {
			free(t);
			return tm_err(err, TOPOMATCH_EINVAL, "task %lld is on PU %lld, not one of "
				      "the cluster's %lld", (long long)i, (long long)pu[i],
				      (long long)c->npu);
		}
	*out = t;
	return TOPOMATCH_OK;
}

int topomatch_cluster_link_load_add(const topomatch_cluster_t *c, topomatch_link_load_t *ll,
				    uint64_t job, const topomatch_affinity_t *a,
				    const int64_t *pu, double activity, char *err)
{
	if (!c || !ll || !a || !pu)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_link_load_add: NULL "
			      "argument");
	int64_t *t;
	int rc = to_topology(c, pu, topomatch_affinity_ntasks(a), &t, err);
	if (!rc)
		rc = topomatch_link_load_add(ll, job, a, t, activity, err);
	free(t);
	return rc;
}

static int score_of(const topomatch_cluster_t *c, const topomatch_link_load_t *ll,
		    const topomatch_affinity_t *a, const int64_t *pu, double weight,
		    topomatch_link_score_t *s, char *err)
{
	int64_t *t;
	int rc = to_topology(c, pu, topomatch_affinity_ntasks(a), &t, err);
	if (!rc)
		rc = topomatch_link_load_score(ll, a, t, weight, s, err);
	free(t);
	return rc;
}

int topomatch_cluster_link_load_score(const topomatch_cluster_t *c,
				      const topomatch_link_load_t *ll,
				      const topomatch_affinity_t *a, const int64_t *pu,
				      double weight, topomatch_link_score_t *out, char *err)
{
	if (!c || !ll || !a || !pu || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_cluster_link_load_score: NULL "
			      "argument");
	return score_of(c, ll, a, pu, weight, out, err);
}

/* ------------------------------------------------------- candidates */

typedef struct cand {
	int kind;       /* 0: below the first region, 1: beside it */
	int depth;      /* of the subtree's root */
	int64_t lo;     /* its first topology PU */
	int64_t free;   /* free PUs below it */
} cand_t;

typedef struct walk {
	const int64_t *tpu; /* topology PU of each allowed PU */
	int64_t m;
	int L;              /* switch levels */
	int arity[TOPOMATCH_MAX_LEVELS];
	int64_t span[TOPOMATCH_MAX_LEVELS + 1]; /* topology PUs below a vertex of depth d */
	int64_t n;          /* tasks */
} walk_t;

/* Free PUs of the children of the depth-d vertex whose subtree starts at
 * lo, into count[] (arity[d] of them). */
static void child_counts(const walk_t *w, int d, int64_t lo, int64_t *count)
{
	memset(count, 0, (size_t)w->arity[d] * sizeof(*count));
	for (int64_t k = 0; k < w->m; k++)
		if (w->tpu[k] >= lo && w->tpu[k] < lo + w->span[d])
			count[(w->tpu[k] - lo) / w->span[d + 1]]++;
}

static int cmp_cand(const void *x, const void *y)
{
	const cand_t *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->depth != b->depth) /* deeper first */
		return a->depth < b->depth ? 1 : -1;
	if (a->free != b->free) /* then best fit */
		return a->free < b->free ? -1 : 1;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

static int push(cand_t **v, int64_t *n, int64_t *cap, cand_t c, char *err)
{
	if (*n == *cap) {
		int64_t nc = 2 * *cap + 16;
		cand_t *p = realloc(*v, (size_t)nc * sizeof(*p));
		if (!p)
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = c;
	return TOPOMATCH_OK;
}

/*
 * The walk of cluster_select.c's region() (from the root, the child with
 * the fewest free PUs that still has REGION_SLACK x n, while the current
 * region has more than that), collecting on the way the alternatives:
 * siblings of the walk's child with that room (kind 1), and, below where
 * the walk stops, the switch subtrees that hold the job alone (kind 0).
 * The first MAX_ALTERNATIVES in cmp_cand's order.
 */
static int alternatives(const walk_t *w, cand_t *out, int *nout, int *root_depth,
			int64_t *root_lo, char *err)
{
	int64_t *count = NULL, lo = 0, cur = w->m, n = 0, cap = 0;
	cand_t *v = NULL;
	int rc = TOPOMATCH_OK, d = 0;
	for (; !rc && d < w->L; d++) {
		free(count);
		if (!(count = tm_alloc(w->arity[d], sizeof(*count)))) {
			rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
			break;
		}
		child_counts(w, d, lo, count);
		int64_t best = -1;
		if (cur > REGION_SLACK * w->n)
			for (int64_t ch = 0; ch < w->arity[d]; ch++)
				if (count[ch] >= REGION_SLACK * w->n &&
				    (best < 0 || count[ch] < count[best]))
					best = ch;
		for (int64_t ch = 0; !rc && ch < w->arity[d]; ch++) {
			cand_t c = { best < 0 ? 0 : 1, d + 1, lo + ch * w->span[d + 1], count[ch] };
			if (best < 0 ? d + 1 < w->L && count[ch] >= w->n
				     : ch != best && count[ch] >= REGION_SLACK * w->n)
				rc = push(&v, &n, &cap, c, err);
		}
		if (best < 0)
			break; /* the walk stops here */
		cur = count[best];
		lo += best * w->span[d + 1];
	}
	*root_depth = d;
	*root_lo = lo;
	free(count);
	if (!rc && n)
		qsort(v, (size_t)n, sizeof(*v), cmp_cand);
	*nout = 0;
	for (int64_t i = 0; !rc && i < n && *nout < MAX_ALTERNATIVES; i++)
		out[(*nout)++] = v[i];
	free(v);
	return rc;
}

/* The allowed PUs (cluster numbering, their order kept) of candidate cd:
 * below its subtree, and best fit further down for a sibling region. */
static int cand_region(const walk_t *w, const int64_t *allowed, const cand_t *cd,
		       int64_t *region, int64_t *nr, char *err)
{
	int64_t lo = cd->lo, cur = cd->free;
	int d = cd->depth;
	while (cd->kind == 1 && d < w->L && cur > REGION_SLACK * w->n) {
		int64_t *count = tm_alloc(w->arity[d], sizeof(*count)), best = -1;
		if (!count)
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		child_counts(w, d, lo, count);
		for (int64_t ch = 0; ch < w->arity[d]; ch++)
			if (count[ch] >= REGION_SLACK * w->n && (best < 0 || count[ch] < count[best]))
				best = ch;
		if (best >= 0) {
			cur = count[best];
			lo += best * w->span[d + 1];
		}
		free(count);
		if (best < 0)
			break;
		d++;
	}
	*nr = 0;
	for (int64_t k = 0; k < w->m; k++)
		if (w->tpu[k] >= lo && w->tpu[k] < lo + w->span[d])
			region[(*nr)++] = allowed[k];
	return TOPOMATCH_OK;
}

/*
 * The load on the links between node position `pos` and the switch of
 * depth d above it (whose subtree starts at lo), both ways: the first
 * half of the route from the node to a PU under another child of that
 * switch climbs to it, the second half of the route back comes down
 * (routes on trees go up to the lowest common ancestor and down); -1
 * when a route does not fit.
 */
static double way_up(topomatch_link_load_t *ll, const walk_t *w, int64_t node_pus, int d,
		     int64_t lo, int64_t pos)
{
	double met[2 * TOPOMATCH_MAX_LEVELS + 8], sum = 0;
	int64_t cap = (int64_t)(sizeof(met) / sizeof(met[0]));
	if (d >= w->L || w->arity[d] < 2)
		return 0;
	int64_t p = pos * node_pus, ch = (p - lo) / w->span[d + 1];
	int64_t q = lo + ((ch + 1) % w->arity[d]) * w->span[d + 1];
	int64_t h = topomatch_link_load_route(ll, p, q, met, cap);
	if (h < 0 || h > cap)
		return -1;
	for (int64_t i = 0; i < h / 2; i++)
		sum += met[i];
	int64_t back = topomatch_link_load_route(ll, q, p, met, cap);
	if (back < 0 || back > cap)
		return -1;
	for (int64_t i = back / 2; i < back; i++)
		sum += met[i];
	return sum;
}

/* The allowed PUs below the depth-d switch at lo whose nodes are quiet
 * up to it, into out (their order kept). */
static int64_t quiet_pus(topomatch_link_load_t *ll, const walk_t *w, int64_t node_pus,
			 const int64_t *allowed, int d, int64_t lo, int64_t *out)
{
	int64_t n = 0, last = -1;
	int ok = 0;
	for (int64_t k = 0; k < w->m; k++) {
		if (w->tpu[k] < lo || w->tpu[k] >= lo + w->span[d])
			continue;
		int64_t pos = w->tpu[k] / node_pus;
		if (pos != last)
			ok = way_up(ll, w, node_pus, d, lo, pos) == 0;
		last = pos;
		if (ok)
			out[n++] = allowed[k];
	}
	return n;
}

static void used_nodes(const topomatch_cluster_t *c, const int64_t *pu, int64_t n,
		       unsigned char *used, int64_t *nodes, int64_t *nnodes)
{
	memset(used, 0, (size_t)c->d.nnodes);
	for (int64_t i = 0; i < n; i++)
		used[topomatch_cluster_pu_node(c, pu[i], NULL)] = 1;
	*nnodes = 0;
	for (int64_t k = 0; k < c->d.nnodes; k++)
		if (used[k])
			nodes[(*nnodes)++] = k;
}

/* ----------------------------------------------------------- select */

/*
 * What is left of the call's time budget (opts', from t0) into o for the
 * next candidate: false when it is spent (no budget: always true).
 * slurmctld holds its locks around the whole call.
 */
static bool budget_left(const topomatch_map_opts_t *opts, double t0, topomatch_map_opts_t *o)
{
	double left = opts->time_budget_s - (tm_now() - t0);
	if (!(opts->time_budget_s > 0))
		return true;
	if (left <= 0)
		return false;
	o->time_budget_s = left;
	return true;
}

/* The candidates of one call, and the best so far. */
typedef struct trial {
	const topomatch_cluster_t *c;
	const topomatch_affinity_t *a;
	const topomatch_map_opts_t *opts;
	topomatch_link_load_t *ll;
	double weight, t0;
	topomatch_loaded_choice_t *info;
	int64_t *alt, *best, *nscr; /* a candidate's PUs, the best's, scratch nodes */
	topomatch_map_result_t best_res; /* info->chosen_index > 0: best is a move */
	bool spent; /* the time budget: no more candidates */
} trial_t;

/*
 * Map the job onto the allowed PUs region[0..nr) (topomatch_cluster_select's
 * node choice inside them when `select`, else all of them as the target)
 * and keep it when it scores lower than the best so far; one that did not
 * map fully (fell_back) or cannot be scored is passed over.  Nothing once
 * the call's time budget is spent (tr->spent).
 */
static void try_set(trial_t *tr, const int64_t *region, int64_t nr, bool select)
{
	topomatch_map_opts_t o = *tr->opts;
	topomatch_map_result_t r;
	topomatch_link_score_t s;
	char why[TOPOMATCH_ERRLEN];
	int64_t n = topomatch_affinity_ntasks(tr->a), nn;
	if (!budget_left(tr->opts, tr->t0, &o)) {
		tr->spent = true;
		return;
	}
	o.allowed = region;
	o.nallowed = nr;
	tr->info->candidates++;
	if (nr < n || (select ? topomatch_cluster_select(tr->c, tr->a, &o, tr->alt, tr->nscr, &nn,
							 &r, why)
			      : topomatch_cluster_map(tr->c, tr->a, &o, tr->alt, &r, why)) ||
	    r.fell_back || score_of(tr->c, tr->ll, tr->a, tr->alt, tr->weight, &s, why) ||
	    !(s.score < tr->info->chosen.score))
		return;
	tr->info->chosen = s;
	tr->info->chosen_index = tr->info->candidates - 1;
	memcpy(tr->best, tr->alt, (size_t)n * sizeof(*tr->best));
	tr->best_res = r;
}

/* A free node and the load its traffic would meet first; least first. */
typedef struct exposed {
	double load;
	int64_t node;
} exposed_t;

static int cmp_exposed(const void *x, const void *y)
{
	const exposed_t *a = x, *b = y;
	if (a->load != b->load)
		return a->load < b->load ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/*
 * The free nodes ranked by the load their traffic would meet first: on
 * a tree (w given) on their way up to the root, elsewhere on the links
 * at their switch (topomatch_link_load_attach: all of a node's traffic
 * leaves and enters through them).  Candidates, each with
 * topomatch_cluster_select's node choice inside: the free PUs of the
 * nodes with no load, then, when those hold fewer than twice the tasks,
 * the least loaded nodes up to that many.
 */
static int ranked_candidates(trial_t *tr, const walk_t *w, const int64_t *tpu, int64_t *region,
			     char *err)
{
	const topomatch_cluster_t *c = tr->c;
	const int64_t *allowed = tr->opts->allowed;
	int64_t n = topomatch_affinity_ntasks(tr->a), m = tr->opts->nallowed, nx = 0, nq = 0;
	int64_t *node = tm_alloc(m, sizeof(*node)), *room = tm_zalloc(c->d.nnodes, sizeof(*room));
	exposed_t *x = tm_alloc(c->d.nnodes, sizeof(*x));
	unsigned char *take = tm_zalloc(c->d.nnodes, 1);
	int rc = TOPOMATCH_OK;
	if (!node || !room || !x || !take)
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; !rc && k < m; k++) {
		int64_t v = node[k] = topomatch_cluster_pu_node(c, allowed[k], NULL);
		if (room[v]++)
			continue;
		double load = w ? way_up(tr->ll, w, c->slot_pus, 0, 0, tpu[k] / c->slot_pus)
				: topomatch_link_load_attach(tr->ll, tpu[k]);
		x[nx++] = (exposed_t){ load < 0 ? INFINITY : load, v };
	}
	if (!rc)
		qsort(x, (size_t)nx, sizeof(*x), cmp_exposed);
	/* take: 1 the quiet nodes, 2 the least loaded after them up to 2n PUs */
	int64_t want = 0;
	for (int64_t i = 0; !rc && i < nx && (x[i].load == 0 || want < 2 * n); i++) {
		take[x[i].node] = x[i].load == 0 ? 1 : 2;
		want += room[x[i].node];
		nq += x[i].load == 0 ? room[x[i].node] : 0;
	}
	for (int64_t pass = 0; !rc && pass < 2 && !tr->spent; pass++) {
		int64_t size = pass ? want : nq;
		if (size < n || size == m || (pass && size == nq))
			continue; /* no room, all of them, or the same set again */
		int64_t nr = 0;
		for (int64_t k = 0; k < m; k++)
			if (take[node[k]] == 1 || (pass && take[node[k]]))
				region[nr++] = allowed[k];
		try_set(tr, region, nr, true);
	}
	free(node);
	free(room);
	free(x);
	free(take);
	return rc;
}

/*
 * Switch trees: the quiet nodes of the first choice's region, then those
 * of the whole tree and the least loaded (ranked_candidates; node choice
 * inside them as topomatch_cluster_select makes it), then the switch
 * subtrees of alternatives().
 */
static int tree_candidates(trial_t *tr, const int64_t *tpu, int64_t *region, char *err)
{
	const topomatch_cluster_t *c = tr->c;
	int64_t n = topomatch_affinity_ntasks(tr->a), m = tr->opts->nallowed;
	walk_t w = { .m = m, .n = n, .tpu = tpu };
	w.L = topomatch_topology_tree_shape(c->topo, w.arity, NULL) - c->shape.nlevels;
	w.span[0] = topomatch_topology_npu(c->topo);
	for (int d = 0; d < w.L; d++)
		w.span[d + 1] = w.span[d] / w.arity[d];
	cand_t cd[MAX_ALTERNATIVES];
	int ncd = 0, root_d = 0;
	int64_t root_lo = 0, nreg = 0;
	int rc = alternatives(&w, cd, &ncd, &root_d, &root_lo, err);
	for (int64_t k = 0; k < m; k++)
		nreg += tpu[k] >= root_lo && tpu[k] < root_lo + w.span[root_d];
	if (!rc && root_d > 0) { /* the quiet nodes of the region */
		int64_t nr = quiet_pus(tr->ll, &w, c->slot_pus, tr->opts->allowed, root_d, root_lo,
				       region);
		if (nr >= n && nr < nreg)
			try_set(tr, region, nr, true);
	}
	if (!rc && !tr->spent) /* of the tree, and the least loaded */
		rc = ranked_candidates(tr, &w, tpu, region, err);
	for (int i = 0; !rc && i < ncd && !tr->spent; i++) {
		int64_t nr = 0;
		if (!(rc = cand_region(&w, tr->opts->allowed, &cd[i], region, &nr, err)))
			try_set(tr, region, nr, false);
	}
	return rc;
}

int topomatch_cluster_select_loaded(const topomatch_cluster_t *c,
				    const topomatch_affinity_t *a,
				    const topomatch_map_opts_t *opts, topomatch_link_load_t *ll,
				    double weight, int64_t *pu, int64_t *nodes, int64_t *nnodes,
				    topomatch_map_result_t *res, topomatch_loaded_choice_t *info,
				    char *err)
{
	topomatch_loaded_choice_t dummy;
	trial_t tr = { .c = c, .a = a, .opts = opts, .ll = ll, .weight = weight, .t0 = tm_now(),
		       .info = info ? info : &dummy };
	memset(tr.info, 0, sizeof(*tr.info));
	if (!(weight >= 0) || isinf(weight))
		return tm_err(err, TOPOMATCH_EINVAL, "contention weight %g is not a finite number "
			      ">= 0", weight);
	int rc = topomatch_cluster_select(c, a, opts, pu, nodes, nnodes, res, err);
	if (rc || !ll || weight == 0 || topomatch_link_load_jobs(ll) == 0)
		return rc;
	tr.info->candidates = 1;
	if ((rc = score_of(c, ll, a, pu, weight, &tr.info->first, err)))
		return rc;
	tr.info->chosen = tr.info->first;
	if (!(tr.info->first.contention > 0))
		return TOPOMATCH_OK; /* nothing to avoid */

	int64_t n = topomatch_affinity_ntasks(a), m = opts->nallowed;
	int64_t *tpu = tm_alloc(m, sizeof(*tpu)), *region = tm_alloc(m, sizeof(*region));
	tr.alt = tm_alloc(n, sizeof(*tr.alt));
	tr.best = tm_alloc(n, sizeof(*tr.best));
	tr.nscr = tm_alloc(c->d.nnodes, sizeof(*tr.nscr));
	if (!tpu || !region || !tr.alt || !tr.best || !tr.nscr)
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; !rc && k < m; k++)
		tpu[k] = topomatch_cluster_pu_to_topology(c, opts->allowed[k]);
	if (!rc && topomatch_topology_kind(c->topo) == TOPOMATCH_TOPO_TREE)
		rc = tree_candidates(&tr, tpu, region, err);
	else if (!rc)
		rc = ranked_candidates(&tr, NULL, tpu, region, err);
	if (!rc && tr.info->chosen_index > 0) {
		unsigned char *used = tm_alloc(c->d.nnodes, 1);
		if (!used) {
			rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		} else {
			memcpy(pu, tr.best, (size_t)n * sizeof(*pu));
			used_nodes(c, pu, n, used, nodes, nnodes);
			if (res)
				*res = tr.best_res;
			free(used);
		}
	}
	free(tpu);
	free(region);
	free(tr.alt);
	free(tr.best);
	free(tr.nscr);
	return rc;
}

/*
 * link_load.c - the load that running jobs put on the network's links,
 * and the contention score of a candidate placement against it
 * (topomatch.h, "Link loads of running jobs"; topomatch-sim(1),
 * "CONTENTION-AWARE NODE CHOICE").
 *
 * The per-link load is the link load of TopoMapping (ICS 2017, Eq. 5:
 * the traffic of the messages whose route crosses the link) per job,
 * normalised by the job's busiest link and weighted by its activity, the
 * load term of the simulator's contention model (tools/sim/sim_net.c), so
 * that the node choice avoids what the model charges for.  The score
 * adds to a placement's hop-bytes its traffic times the load it would
 * meet, a linear stand-in for the bottleneck share of the model that is
 * cheap to evaluate for several candidates.
 *
 * Layout: a dense load per router link id (the router's numbering,
 * O(links)); per job the sparse list of (link, contribution) it added,
 * subtracted again at its end; jobs found by id in an open-addressing
 * table.  Messages are summed per pair of nodes and each pair routed
 * once (all messages between two nodes follow one network route on trees
 * and grids).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/tm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ll_job {
	uint64_t id;
	int64_t n;     /* links it loads */
	int64_t *link; /* their ids */
	double *val;   /* its sigma u on each */
} ll_job_t;

/* A router and the scratch of one route: one per caller that routes, so
 * that scores, which only read the loads, can run side by side. */
typedef struct ll_walk {
	topomatch_router_t *r;
	int64_t *route, cap;
} ll_walk_t;

typedef struct ll_pair {
	int64_t key;  /* node a * nnodes + node b; -1: empty */
	int64_t p, q; /* a message's topology PUs */
	double w;
} ll_pair_t;

struct topomatch_link_load {
	const topomatch_topology_t *t;
	ll_walk_t w;              /* the router and a route's scratch */
	int64_t npu, node_pus, nnodes, nlinks, max_entries;
	int kind, levels, nloc;
	double cost[TOPOMATCH_MAX_LEVELS], grid_cost;
	double *load;             /* L(l) */
	int32_t *users;           /* jobs with an entry on l */
	unsigned char *intra;     /* 1: a link inside a node */
	ll_job_t *job;            /* the jobs, dense */
	int64_t njobs, jobs_cap, entries;
	int64_t *slot, nslots;    /* id -> index into job[], -1 empty */
	/* scratch of one job's routing */
	double *x;
	int64_t *lidx, *touched, ntouched;
};

/* ------------------------------------------------------------ create */

static int grow_route(ll_walk_t *w, int64_t len, char *err)
{
	if (len <= w->cap)
		return TOPOMATCH_OK;
	int64_t *p = realloc(w->route, (size_t)len * sizeof(*p));
	if (!p)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	w->route = p;
	w->cap = len;
	return TOPOMATCH_OK;
}

/* Route source -> q into w->route; *h its length. */
static int route_to(ll_walk_t *w, int64_t q, int64_t *h, char *err)
{
	int64_t len = topomatch_router_hops(w->r, q);
	if (len < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "no route to PU %lld", (long long)q);
	int rc = grow_route(w, len, err);
	if (rc)
		return rc;
	*h = topomatch_router_route(w->r, q, w->route, w->cap);
	return TOPOMATCH_OK;
}

/* Links on the routes between the first PU of each node and its others,
 * both ways: on trees and grids they are every link inside the node. */
static int mark_intra(topomatch_link_load_t *ll, char *err)
{
	for (int64_t v = 0; ll->node_pus > 1 && v < ll->nnodes; v++) {
		int64_t p0 = v * ll->node_pus;
		for (int64_t k = 1; k < ll->node_pus; k++)
			for (int dir = 0; dir < 2; dir++) {
				int64_t h = 0;
				topomatch_router_source(ll->w.r, dir ? p0 + k : p0);
				int rc = route_to(&ll->w, dir ? p0 : p0 + k, &h, err);
				if (rc)
					return rc;
				for (int64_t i = 0; i < h; i++)
					if (ll->w.route[i] >= 0 && ll->w.route[i] < ll->nlinks)
						ll->intra[ll->w.route[i]] = 1;
			}
	}
	return TOPOMATCH_OK;
}

void topomatch_link_load_destroy(topomatch_link_load_t *ll)
{
	if (!ll)
		return;
	for (int64_t j = 0; j < ll->njobs; j++) {
		free(ll->job[j].link);
		free(ll->job[j].val);
	}
	topomatch_router_destroy(ll->w.r);
	free(ll->load);
	free(ll->users);
	free(ll->intra);
	free(ll->job);
	free(ll->slot);
	free(ll->x);
	free(ll->lidx);
	free(ll->touched);
	free(ll->w.route);
	free(ll);
}

int topomatch_link_load_create(const topomatch_topology_t *t, int64_t node_pus,
			       int64_t max_entries, topomatch_link_load_t **out, char *err)
{
	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_link_load_create: NULL argument");
	*out = NULL;
	if (!t)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_link_load_create: NULL argument");
	int64_t npu = topomatch_topology_npu(t);
	if (node_pus < 1 || npu % node_pus)
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: %lld PUs per node do not divide "
			      "the topology's %lld PUs", (long long)node_pus, (long long)npu);
	if (max_entries < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: max_entries %lld is negative",
			      (long long)max_entries);
	topomatch_link_load_t *ll = calloc(1, sizeof(*ll));
	if (!ll)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	ll->t = t;
	ll->npu = npu;
	ll->node_pus = node_pus;
	ll->nnodes = npu / node_pus;
	ll->max_entries = max_entries;
	int rc = topomatch_router_create(t, &ll->w.r, err);
	if (rc) {
		free(ll);
		return rc;
	}
	ll->nlinks = topomatch_router_nlinks(ll->w.r);
	ll->kind = topomatch_topology_kind(t);
	ll->grid_cost = 1;
	if (ll->kind == TOPOMATCH_TOPO_TREE)
		ll->levels = topomatch_topology_tree_shape(t, NULL, ll->cost);
	else if (ll->kind == TOPOMATCH_TOPO_TORUS || ll->kind == TOPOMATCH_TOPO_MESH)
		ll->nloc = topomatch_topology_grid_local(t, NULL, ll->cost, &ll->grid_cost);
	ll->load = tm_zalloc(ll->nlinks + 1, sizeof(*ll->load));
	ll->users = tm_zalloc(ll->nlinks + 1, sizeof(*ll->users));
	ll->intra = tm_zalloc(ll->nlinks + 1, 1);
	ll->x = tm_zalloc(ll->nlinks + 1, sizeof(*ll->x));
	ll->lidx = tm_alloc(ll->nlinks + 1, sizeof(*ll->lidx));
	ll->touched = tm_alloc(ll->nlinks + 1, sizeof(*ll->touched));
	ll->nslots = 16;
	ll->slot = tm_alloc(ll->nslots, sizeof(*ll->slot));
	if (!ll->load || !ll->users || !ll->intra || !ll->x || !ll->lidx || !ll->touched ||
	    !ll->slot)
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t l = 0; !rc && l <= ll->nlinks; l++)
		ll->lidx[l] = -1;
	for (int64_t s = 0; !rc && s < ll->nslots; s++)
		ll->slot[s] = -1;
	if (!rc)
		rc = grow_route(&ll->w, 64, err);
	if (!rc)
		rc = mark_intra(ll, err);
	if (rc) {
		topomatch_link_load_destroy(ll);
		return rc;
	}
	*out = ll;
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------- job ids */

static int64_t id_hash(uint64_t id, int64_t mask)
{
	uint64_t z = id * UINT64_C(0x9E3779B97F4A7C15);
	return (int64_t)((z ^ (z >> 31)) & (uint64_t)mask);
}

/* Slot of id, or of the empty slot where it would go. */
static int64_t find_slot(const topomatch_link_load_t *ll, uint64_t id)
{
	int64_t s = id_hash(id, ll->nslots - 1);
	while (ll->slot[s] >= 0 && ll->job[ll->slot[s]].id != id)
		s = (s + 1) & (ll->nslots - 1);
	return s;
}

static int rehash(topomatch_link_load_t *ll, int64_t nslots, char *err)
{
	int64_t *slot = tm_alloc(nslots, sizeof(*slot));
	if (!slot)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	free(ll->slot);
	ll->slot = slot;
	ll->nslots = nslots;
	for (int64_t s = 0; s < nslots; s++)
		slot[s] = -1;
	for (int64_t j = 0; j < ll->njobs; j++)
		slot[find_slot(ll, ll->job[j].id)] = j;
	return TOPOMATCH_OK;
}

/* Take slot s out, moving later entries of its probe run back (linear
 * probing's deletion without tombstones). */
static void unslot(topomatch_link_load_t *ll, int64_t s)
{
	int64_t mask = ll->nslots - 1, i = s;
	ll->slot[s] = -1;
	for (int64_t k = (s + 1) & mask; ll->slot[k] >= 0; k = (k + 1) & mask) {
		int64_t h = id_hash(ll->job[ll->slot[k]].id, mask);
		/* move k to the hole i when its home h is not in (i, k] */
		bool stays = i <= k ? (h > i && h <= k) : (h > i || h <= k);
		if (!stays) {
			ll->slot[i] = ll->slot[k];
			ll->slot[k] = -1;
			i = k;
		}
	}
}

/* ------------------------------------------------ a job's messages */

static int check_placement(const topomatch_link_load_t *ll, const topomatch_affinity_t *a,
			   const int64_t *pu, const char *what, char *err)
{
	if (!a || !pu)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: NULL argument", what);
	int64_t n = topomatch_affinity_ntasks(a);
	for (int64_t i = 0; i < n; i++)
		if (pu[i] < 0 || pu[i] >= ll->npu)
			return tm_err(err, TOPOMATCH_EINVAL, "%s: task %lld is on PU %lld, outside "
				      "the topology's %lld", what, (long long)i, (long long)pu[i],
				      (long long)ll->npu);
	return TOPOMATCH_OK;
}

static int64_t pair_hash(int64_t key, int64_t mask)
{
	return id_hash((uint64_t)key, mask);
}

static int by_key(const void *x, const void *y)
{
	const ll_pair_t *a = x, *b = y;
	return (a->key > b->key) - (a->key < b->key);
}

/* Radix digits of the pair keys, and the pairs below which qsort is as quick. */
#define PAIR_RADIX_BITS 11
#define PAIR_RADIX_MIN 512

/*
 * h[0..k) by key (keys are distinct and below `bound`): least significant
 * digit first through a buffer, the order qsort by_key gives, where
 * qsort's comparisons through a pointer took 4 % of a replay's time on
 * the scores of large jobs.  qsort for few pairs or without memory.
 */
static void sort_pairs(ll_pair_t *h, int64_t k, int64_t bound)
{
	ll_pair_t *tmp = k >= PAIR_RADIX_MIN ? tm_alloc(k, sizeof(*tmp)) : NULL;
	if (!tmp) {
		qsort(h, (size_t)k, sizeof(*h), by_key);
		return;
	}
	int64_t cnt[(1 << PAIR_RADIX_BITS) + 1];
	ll_pair_t *src = h, *dst = tmp;
	for (int sh = 0; sh < 63 && (bound - 1) >> sh; sh += PAIR_RADIX_BITS) {
		memset(cnt, 0, sizeof(cnt));
		for (int64_t i = 0; i < k; i++)
			cnt[((src[i].key >> sh) & ((1 << PAIR_RADIX_BITS) - 1)) + 1]++;
		for (int d = 0; d < 1 << PAIR_RADIX_BITS; d++)
			cnt[d + 1] += cnt[d];
		for (int64_t i = 0; i < k; i++)
			dst[cnt[(src[i].key >> sh) & ((1 << PAIR_RADIX_BITS) - 1)]++] = src[i];
		ll_pair_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != h)
		memcpy(h, src, (size_t)k * sizeof(*h));
	free(tmp);
}

/*
 * The messages between different nodes summed per directed node pair, in
 * key order (deterministic, and one source per run of pairs), and *hb
 * the hop-bytes of every message (hb NULL: not wanted, no hop counted).
 */
static int node_pairs(const topomatch_link_load_t *ll, topomatch_router_t *r,
		      const topomatch_affinity_t *a, const int64_t *pu, ll_pair_t **out,
		      int64_t *np, double *hb, char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t m = c.rowptr[c.n], cap = 16;
	while (cap < 2 * m)
		cap *= 2;
	ll_pair_t *h = tm_alloc(cap, sizeof(*h));
	int64_t *hops = hb ? tm_alloc(m, sizeof(*hops)) : NULL;
	int rc = TOPOMATCH_OK;
	if (!h || (hb && !hops))
		rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	else if (hb)
		rc = topomatch_metrics_edge_hops(ll->t, r, a, pu, hops, err);
	if (rc) {
		free(h);
		free(hops);
		return rc;
	}
	for (int64_t k = 0; k < cap; k++)
		h[k].key = -1;
	if (hb)
		*hb = 0;
	for (int64_t i = 0; i < c.n; i++) {
		int64_t ni = pu[i] / ll->node_pus;
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++) {
			int64_t b = c.col[e], nb = pu[b] / ll->node_pus;
			double w = c.w[e];
			if (!(w > 0) || pu[b] == pu[i])
				continue;
			if (hb)
				*hb += w * (double)hops[e];
			if (ni == nb)
				continue;
			int64_t key = ni * ll->nnodes + nb, s = pair_hash(key, cap - 1);
			while (h[s].key != -1 && h[s].key != key)
				s = (s + 1) & (cap - 1);
			if (h[s].key == -1)
				h[s] = (ll_pair_t){ key, pu[i], pu[b], 0 };
			h[s].w += w;
		}
	}
	free(hops);
	int64_t k = 0;
	for (int64_t s = 0; s < cap; s++)
		if (h[s].key != -1)
			h[k++] = h[s];
	sort_pairs(h, k, ll->nnodes * ll->nnodes);
	*out = h;
	*np = k;
	return TOPOMATCH_OK;
}

/*
 * Capacity of the i-th link of an h-hop route, 1 / its cost, from the
 * link's place on the route (the router gives ids, not costs): on a tree
 * the route climbs h/2 links to the lowest common ancestor and goes down
 * as many (a link from depth k+1 to k costs cost[k]); on a grid with a
 * local tree it climbs the local tree, crosses h - 2 x levels router
 * links, goes down.  The same rule as tools/sim/sim_net.c.
 */
static double capacity(const topomatch_link_load_t *ll, int64_t i, int64_t h)
{
	bool grid = ll->kind == TOPOMATCH_TOPO_TORUS || ll->kind == TOPOMATCH_TOPO_MESH;
	int L = ll->kind == TOPOMATCH_TOPO_TREE ? ll->levels : ll->nloc;
	double c = 1;
	if (ll->kind == TOPOMATCH_TOPO_TREE || (grid && h <= 2 * L)) {
		int64_t up = h / 2;
		if (L > 0)
			c = i < up ? ll->cost[L - i - 1] : ll->cost[L - up + (i - up)];
	} else if (grid) {
		int64_t g = h - 2 * L;
		c = i < L ? ll->cost[L - i - 1] : i < L + g ? ll->grid_cost : ll->cost[i - L - g];
	}
	return c > 0 ? 1 / c : 1;
}

/* ------------------------------------------------------ add, remove */

static void free_job(ll_job_t *j)
{
	free(j->link);
	free(j->val);
	j->link = NULL;
	j->val = NULL;
	j->n = 0;
}

/* x(l) of the pairs into the scratch (touched links listed). */
static int route_pairs(topomatch_link_load_t *ll, const ll_pair_t *pr, int64_t np, char *err)
{
	int64_t last = -1;
	for (int64_t p = 0; p < np; p++) {
		int64_t h = 0;
		if (pr[p].p != last)
			topomatch_router_source(ll->w.r, last = pr[p].p);
		int rc = route_to(&ll->w, pr[p].q, &h, err);
		if (rc)
			return rc;
		for (int64_t i = 0; i < h; i++) {
			int64_t l = ll->w.route[i];
			if (l < 0 || l >= ll->nlinks || ll->intra[l])
				continue;
			if (ll->lidx[l] < 0) {
				ll->lidx[l] = ll->ntouched;
				ll->touched[ll->ntouched++] = l;
			}
			ll->x[l] += pr[p].w / capacity(ll, i, h);
		}
	}
	return TOPOMATCH_OK;
}

static void clear_scratch(topomatch_link_load_t *ll)
{
	for (int64_t k = 0; k < ll->ntouched; k++) {
		ll->x[ll->touched[k]] = 0;
		ll->lidx[ll->touched[k]] = -1;
	}
	ll->ntouched = 0;
}

int topomatch_link_load_add(topomatch_link_load_t *ll, uint64_t job,
			    const topomatch_affinity_t *a, const int64_t *pu, double activity,
			    char *err)
{
	if (!ll)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_link_load_add: NULL argument");
	int rc = check_placement(ll, a, pu, "link loads: add", err);
	if (rc)
		return rc;
	if (!(activity >= 0 && activity <= 1))
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: job %llu: activity %g is not "
			      "between 0 and 1", (unsigned long long)job, activity);
	if (ll->slot[find_slot(ll, job)] >= 0)
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: job %llu is already in the "
			      "table", (unsigned long long)job);
	if (ll->njobs == ll->jobs_cap) {
		int64_t cap = 2 * ll->jobs_cap + 8;
		ll_job_t *p = realloc(ll->job, (size_t)cap * sizeof(*p));
		if (!p)
			return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
		ll->job = p;
		ll->jobs_cap = cap;
	}
	if (2 * (ll->njobs + 1) > ll->nslots && (rc = rehash(ll, 2 * ll->nslots, err)))
		return rc;
	ll_pair_t *pr = NULL;
	int64_t np = 0;
	ll_job_t j = { .id = job };
	rc = node_pairs(ll, ll->w.r, a, pu, &pr, &np, NULL, err);
	if (!rc)
		rc = route_pairs(ll, pr, np, err);
	free(pr);
	if (!rc && ll->max_entries && ll->entries + ll->ntouched > ll->max_entries)
		rc = tm_err(err, TOPOMATCH_ELIMIT, "link loads: job %llu would load %lld links, "
			    "past the table's limit of %lld entries (%lld in use)",
			    (unsigned long long)job, (long long)ll->ntouched,
			    (long long)ll->max_entries, (long long)ll->entries);
	if (!rc) {
		j.link = tm_alloc(ll->ntouched, sizeof(*j.link));
		j.val = tm_alloc(ll->ntouched, sizeof(*j.val));
		if (!j.link || !j.val)
			rc = tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	if (rc) {
		free_job(&j);
		clear_scratch(ll);
		return rc;
	}
	/* u = x / max x; links in the order the routes first met them */
	double most = 0;
	for (int64_t k = 0; k < ll->ntouched; k++)
		most = fmax(most, ll->x[ll->touched[k]]);
	j.n = ll->ntouched;
	for (int64_t k = 0; k < j.n; k++) {
		int64_t l = ll->touched[k];
		j.link[k] = l;
		j.val[k] = most > 0 ? activity * ll->x[l] / most : 0;
		ll->load[l] += j.val[k];
		ll->users[l]++;
	}
	clear_scratch(ll);
	ll->entries += j.n;
	ll->job[ll->njobs] = j;
	ll->slot[find_slot(ll, job)] = ll->njobs++;
	return TOPOMATCH_OK;
}

int topomatch_link_load_remove(topomatch_link_load_t *ll, uint64_t job, char *err)
{
	if (!ll)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_link_load_remove: NULL argument");
	int64_t s = find_slot(ll, job);
	if (ll->slot[s] < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: job %llu is not in the table",
			      (unsigned long long)job);
	int64_t idx = ll->slot[s];
	ll_job_t *j = &ll->job[idx];
	for (int64_t k = 0; k < j->n; k++) {
		int64_t l = j->link[k];
		ll->load[l] -= j->val[k];
		if (--ll->users[l] == 0 || ll->load[l] < 0)
			ll->load[l] = 0; /* no rounding residue on idle links */
	}
	ll->entries -= j->n;
	free_job(j);
	unslot(ll, s);
	if (idx != --ll->njobs) { /* the last job fills the gap */
		ll->job[idx] = ll->job[ll->njobs];
		ll->slot[find_slot(ll, ll->job[idx].id)] = idx;
	}
	return TOPOMATCH_OK;
}

/* ----------------------------------------------------------- score */

/* L(l) / c(l) of the i-th link l of a route of h links; 0 for a link off
 * the table or unloaded. */
static double met_at(const topomatch_link_load_t *ll, int64_t l, int64_t i, int64_t h)
{
	return l >= 0 && l < ll->nlinks && ll->load[l] > 0 ? ll->load[l] / capacity(ll, i, h) : 0;
}

/* Reads ll only (its own router and route): callers may score side by side. */
int topomatch_link_load_score(const topomatch_link_load_t *ll, const topomatch_affinity_t *a,
			      const int64_t *pu, double weight, topomatch_link_score_t *out,
			      char *err)
{
	if (!ll || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_link_load_score: NULL argument");
	int rc = check_placement(ll, a, pu, "link loads: score", err);
	if (rc)
		return rc;
	if (!(weight >= 0) || isinf(weight))
		return tm_err(err, TOPOMATCH_EINVAL, "link loads: contention weight %g is not a "
			      "finite number >= 0", weight);
	ll_pair_t *pr = NULL;
	int64_t np = 0, last = -1;
	double hb = 0, cl = 0;
	ll_walk_t w = { 0 };
	rc = topomatch_router_create(ll->t, &w.r, err);
	if (!rc)
		rc = node_pairs(ll, w.r, a, pu, &pr, &np, &hb, err);
	for (int64_t p = 0; !rc && p < np; p++) {
		int64_t h = 0;
		if (pr[p].p != last)
			topomatch_router_source(w.r, last = pr[p].p);
		rc = route_to(&w, pr[p].q, &h, err);
		double met = 0; /* sum over the route of L(l) / c(l) */
		for (int64_t i = 0; !rc && i < h; i++)
			met += met_at(ll, w.route[i], i, h);
		cl += pr[p].w * met;
	}
	free(pr);
	free(w.route);
	topomatch_router_destroy(w.r);
	if (rc)
		return rc;
	out->hop_bytes = hb;
	out->contention = cl;
	out->score = hb + weight * cl;
	return TOPOMATCH_OK;
}

int64_t topomatch_link_load_route(topomatch_link_load_t *ll, int64_t p, int64_t q, double *met,
				  int64_t cap)
{
	int64_t h = 0;
	if (!ll || p < 0 || q < 0 || p >= ll->npu || q >= ll->npu || (cap > 0 && !met))
		return -1;
	topomatch_router_source(ll->w.r, p);
	if (route_to(&ll->w, q, &h, NULL))
		return -1;
	for (int64_t i = 0; i < h && i < cap; i++)
		met[i] = met_at(ll, ll->w.route[i], i, h);
	return h;
}

double topomatch_link_load_attach(topomatch_link_load_t *ll, int64_t p)
{
	int64_t h = ll ? topomatch_router_attach_links(ll->w.r, p, NULL, 0) : -1;
	if (h < 0 || grow_route(&ll->w, h, NULL))
		return -1;
	topomatch_router_attach_links(ll->w.r, p, ll->w.route, ll->w.cap);
	double sum = 0;
	for (int64_t i = 0; i < h; i++)
		if (ll->w.route[i] >= 0 && ll->w.route[i] < ll->nlinks)
			sum += ll->load[ll->w.route[i]];
	return sum;
}

double topomatch_link_load_get(const topomatch_link_load_t *ll, int64_t link)
{
	return ll && link >= 0 && link < ll->nlinks ? ll->load[link] : 0;
}

int64_t topomatch_link_load_jobs(const topomatch_link_load_t *ll)
{
	return ll ? ll->njobs : 0;
}

int64_t topomatch_link_load_entries(const topomatch_link_load_t *ll)
{
	return ll ? ll->entries : 0;
}

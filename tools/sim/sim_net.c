/*
 * sim_net.c - the contention model of `topomatch sim` (topomatch-sim(1),
 * "COMMUNICATION MODEL"): the traffic of every running job routed on the
 * cluster's links, and each job's communication slowed by the load that
 * the running jobs put on the links its traffic crosses.
 *
 * For a running job j with pattern C placed at pi, per directed message
 * (task a -> task b, volume w = C(a,b), hops h between their PUs):
 *   network links N(a,b): the links of the route pi(a) -> pi(b) (the
 *     router of the metrics, topomatch_router_route) outside nodes;
 *     inside a node the links are the node's own (nodes are allocated
 *     whole), never shared with another job;
 *   x_j(l)  = sum of w over the messages crossing l (the link load of
 *             TopoMapping, ICS 2017, Eq. 5, per job), / c(l), the link's
 *             capacity (1 / its cost: the YAML's bandwidths, the fastest
 *             link 1; equal on graphs);
 *   u_j(l)  = x_j(l) / max_l' x_j(l'): the job alone drives its busiest
 *             link at full rate while it communicates (bandwidth-bound
 *             communication), the others in proportion;
 *   sigma_j = s r / (1 - s + s r), r = HB / HB_ref: the share of its time
 *             the job communicates (s on the compact placement, more
 *             when spread), the chance that it loads its links when
 *             another job looks;
 *   rho_j(l) = u_j(l) + sum over the other running jobs k of
 *             sigma_k u_k(l): the load j meets on l while it
 *             communicates;
 *   phi(a,b) = max(1, max over l in N(a,b) of rho_j(l)): a message goes
 *             at the pace of the most loaded link on its route (fair
 *             sharing of the bottleneck);
 *   HB_c    = sum of w h phi(a,b): hop-bytes stretched by contention;
 *   run     = trace run x (1 - s + s HB_c / HB_ref).
 * A job alone (or beside jobs on other links) has rho <= 1, phi = 1,
 * HB_c = HB: the hop-bytes model.  The loads change when jobs start and
 * end; sim_run.c then moves the running jobs' ends (their progress so far
 * kept).  First-order model: a job slowed by contention is not taken to
 * load its links longer (sigma is fixed at its start).
 *
 * Cost: a job's messages are routed once, at its start, by pairs of nodes
 * (all messages between two nodes follow one network route on trees and
 * grids), and kept as a sparse list of (link, u) and of node pairs with
 * their links; a start or an end recomputes only the jobs that share a
 * link with it.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ machine-wide: links */

/* Links inside nodes: those on the routes between the PUs of one node
 * (from its first PU to every other and back cover them all on trees and
 * grids).  Shared, read-only, by every run. */
int sim_net_links(sim_machine_t *m, char *err)
{
	const topomatch_topology_t *t = topomatch_cluster_topology(m->cl);
	topomatch_router_t *r = NULL;
	int rc = topomatch_router_create(t, &r, err);
	if (rc)
		return rc;
	m->nlinks = topomatch_router_nlinks(r);
	int64_t hops = 2 * (TOPOMATCH_MAX_LEVELS + 4) + 64, *links = NULL;
	m->link_intra = calloc((size_t)m->nlinks + 1, 1);
	if (!m->link_intra || !(links = malloc((size_t)hops * sizeof(*links))))
		rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t n = 0; !rc && n < m->nnodes; n++) {
		int64_t npus, first = topomatch_cluster_node_pus(m->cl, n, &npus);
		int64_t p0 = topomatch_cluster_pu_to_topology(m->cl, first);
		for (int64_t k = 1; !rc && k < npus; k++)
			for (int dir = 0; !rc && dir < 2; dir++) {
				int64_t pk = topomatch_cluster_pu_to_topology(m->cl, first + k);
				int64_t q = dir ? p0 : pk;
				topomatch_router_source(r, dir ? pk : p0);
				int64_t h = topomatch_router_hops(r, q);
				if (h > hops) {
					int64_t *p = realloc(links, (size_t)h * sizeof(*p));
					if (!p) {
						rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
						break;
					}
					links = p;
					hops = h;
				}
				h = topomatch_router_route(r, q, links, hops);
				for (int64_t i = 0; i < h; i++)
					if (links[i] >= 0 && links[i] < m->nlinks)
						m->link_intra[links[i]] = 1;
			}
	}
	free(links);
	topomatch_router_destroy(r);
	return rc;
}

/* ------------------------------------------------------------ per run */

typedef struct net_job {
	int64_t nl;      /* network links it uses */
	int64_t *link;   /* their ids */
	double *u;       /* u_j(l) */
	int64_t np;      /* node pairs that exchange messages */
	double *pwh;     /* sum of w h of the pair's messages */
	int64_t *poff;   /* the pair's links: plink[poff[p] .. poff[p+1]) */
	int64_t *plink;  /* indices into link[] / u[] */
	double hb_local; /* w h of messages inside nodes: never slowed */
	double sigma;
	int active;
} net_job_t;

typedef struct link_jobs {
	int64_t *j;
	int64_t n, cap;
} link_jobs_t;

struct sim_net {
	const sim_machine_t *m;
	topomatch_router_t *r;
	int kind, levels, nloc;
	double cost[TOPOMATCH_MAX_LEVELS], grid_cost;
	double share;
	double *load;        /* S(l) = sum over running jobs of sigma u */
	link_jobs_t *users;  /* running jobs on each link */
	net_job_t *job;      /* by stream index */
	int64_t njobs;
	int64_t *dirty, ndirty;
	unsigned char *is_dirty;
	/* scratch of one job's build */
	double *x;
	int64_t *lidx, *touched, ntouched;
	int64_t *route, route_cap;
};

void sim_net_destroy(sim_net_t *n)
{
	if (!n)
		return;
	for (int64_t j = 0; j < n->njobs; j++) {
		net_job_t *b = &n->job[j];
		free(b->link);
		free(b->u);
		free(b->pwh);
		free(b->poff);
		free(b->plink);
	}
	for (int64_t l = 0; n->users && l < n->m->nlinks; l++)
		free(n->users[l].j);
	topomatch_router_destroy(n->r);
	free(n->users);
	free(n->load);
	free(n->job);
	free(n->dirty);
	free(n->is_dirty);
	free(n->x);
	free(n->lidx);
	free(n->touched);
	free(n->route);
	free(n);
}

int sim_net_create(const sim_machine_t *m, double share, int64_t njobs, sim_net_t **out,
		   char *err)
{
	const topomatch_topology_t *t = topomatch_cluster_topology(m->cl);
	sim_net_t *n = calloc(1, sizeof(*n));
	*out = NULL;
	if (!n)
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	n->m = m;
	n->share = share;
	n->njobs = njobs;
	int rc = topomatch_router_create(t, &n->r, err);
	if (rc) {
		free(n);
		return rc;
	}
	n->kind = topomatch_topology_kind(t);
	n->grid_cost = 1;
	if (n->kind == TOPOMATCH_TOPO_TREE)
		n->levels = topomatch_topology_tree_shape(t, NULL, n->cost);
	else if (n->kind == TOPOMATCH_TOPO_TORUS || n->kind == TOPOMATCH_TOPO_MESH)
		n->nloc = topomatch_topology_grid_local(t, NULL, n->cost, &n->grid_cost);
	size_t nl = (size_t)m->nlinks + 1;
	n->load = calloc(nl, sizeof(*n->load));
	n->users = calloc(nl, sizeof(*n->users));
	n->job = calloc((size_t)njobs + 1, sizeof(*n->job));
	n->dirty = malloc(((size_t)njobs + 1) * sizeof(*n->dirty));
	n->is_dirty = calloc((size_t)njobs + 1, 1);
	n->x = calloc(nl, sizeof(*n->x));
	n->lidx = malloc(nl * sizeof(*n->lidx));
	n->touched = malloc(nl * sizeof(*n->touched));
	n->route_cap = 64;
	n->route = malloc((size_t)n->route_cap * sizeof(*n->route));
	if (!m->link_intra || !n->load || !n->users || !n->job || !n->dirty || !n->is_dirty ||
	    !n->x || !n->lidx || !n->touched || !n->route) {
		sim_net_destroy(n);
		return sim_err(err, m->link_intra ? TOPOMATCH_ENOMEM : TOPOMATCH_EINVAL,
			       m->link_intra ? "out of memory" : "internal error: no link table "
			       "(sim_net_links)");
	}
	for (size_t l = 0; l < nl; l++)
		n->lidx[l] = -1;
	*out = n;
	return TOPOMATCH_OK;
}

/*
 * Capacity of the i-th link of an h-hop route, 1 / its cost.  The public
 * router gives link ids, not costs; the cost follows from the link's
 * place on the route: on a tree the route climbs h/2 links to the lowest
 * common ancestor and goes down as many (link from depth k+1 to k costs
 * cost[k]); on a grid with local trees it climbs the local tree, crosses
 * h - 2 x local levels router links, goes down (topomatch.h, router).
 */
static double capacity(const sim_net_t *n, int64_t i, int64_t h)
{
	int L = n->kind == TOPOMATCH_TOPO_TREE ? n->levels : n->nloc;
	double c = 1;
	if (n->kind == TOPOMATCH_TOPO_TREE || ((n->kind == TOPOMATCH_TOPO_TORUS ||
						n->kind == TOPOMATCH_TOPO_MESH) && h <= 2 * L)) {
		int64_t up = h / 2;
		if (L > 0)
			c = i < up ? n->cost[L - i - 1] : n->cost[L - up + (i - up)];
	} else if (n->kind == TOPOMATCH_TOPO_TORUS || n->kind == TOPOMATCH_TOPO_MESH) {
		int64_t g = h - 2 * L;
		c = i < L ? n->cost[L - i - 1] : i < L + g ? n->grid_cost : n->cost[i - L - g];
	}
	return c > 0 ? 1 / c : 1;
}

/* ------------------------------------------------------ building a job */

typedef struct pair {
	int64_t key;    /* node a * nnodes + node b, -1: empty */
	int64_t p, q;   /* the first message's topology PUs */
	double w, wh;
} pair_t;

static int64_t hash_of(int64_t key, int64_t mask)
{
	uint64_t z = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);
	return (int64_t)((z ^ (z >> 29)) & (uint64_t)mask);
}

static int by_source(const void *x, const void *y)
{
	const pair_t *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

/* Messages between different nodes, summed per node pair. */
static int collect_pairs(sim_net_t *n, const topomatch_affinity_t *a, const int64_t *tpu,
			 const int64_t *node, pair_t **out, int64_t *np, double *local,
			 char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t m = c.rowptr[c.n], cap = 16;
	while (cap < 2 * m)
		cap *= 2;
	pair_t *h = malloc((size_t)cap * sizeof(*h));
	int64_t *hops = malloc((size_t)m * sizeof(*hops) + 1);
	const topomatch_topology_t *t = topomatch_cluster_topology(n->m->cl);
	int rc = h && hops ? topomatch_metrics_edge_hops(t, n->r, a, tpu, hops, err)
			   : sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	if (rc) {
		free(h);
		free(hops);
		return rc;
	}
	for (int64_t k = 0; k < cap; k++)
		h[k].key = -1;
	*local = 0;
	for (int64_t i = 0; i < c.n; i++) {
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++) {
			int64_t b = c.col[e];
			double w = c.w[e], wh = w * (double)hops[e];
			if (node[i] == node[b] || !(w > 0)) {
				*local += wh;
				continue;
			}
			int64_t key = node[i] * n->m->nnodes + node[b], s = hash_of(key, cap - 1);
			while (h[s].key != -1 && h[s].key != key)
				s = (s + 1) & (cap - 1);
			if (h[s].key == -1)
				h[s] = (pair_t){ key, tpu[i], tpu[b], 0, 0 };
			h[s].w += w;
			h[s].wh += wh;
		}
	}
	free(hops);
	int64_t k = 0;
	for (int64_t s = 0; s < cap; s++)
		if (h[s].key != -1)
			h[k++] = h[s];
	if (n->kind == TOPOMATCH_TOPO_GRAPH) /* a BFS per source: one per node */
		qsort(h, (size_t)k, sizeof(*h), by_source);
	*out = h;
	*np = k;
	return TOPOMATCH_OK;
}

static int route_of(sim_net_t *n, int64_t q, int64_t *h, char *err)
{
	int64_t len = topomatch_router_hops(n->r, q);
	if (len < 0)
		return sim_err(err, TOPOMATCH_EINVAL, "internal error: no route to PU %lld",
			       (long long)q);
	if (len > n->route_cap) {
		int64_t *p = realloc(n->route, (size_t)len * sizeof(*p));
		if (!p)
			return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
		n->route = p;
		n->route_cap = len;
	}
	*h = topomatch_router_route(n->r, q, n->route, n->route_cap);
	return TOPOMATCH_OK;
}

/* Route each pair once: x(l) and the pairs' link lists. */
static int route_pairs(sim_net_t *n, net_job_t *b, const pair_t *pr, int64_t np, char *err)
{
	int64_t cap = 4 * np + 16, len = 0, last_src = -1;
	b->np = np;
	b->pwh = malloc(((size_t)np + 1) * sizeof(*b->pwh));
	b->poff = malloc(((size_t)np + 1) * sizeof(*b->poff));
	b->plink = malloc((size_t)cap * sizeof(*b->plink));
	if (!b->pwh || !b->poff || !b->plink)
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	n->ntouched = 0;
	for (int64_t p = 0; p < np; p++) {
		int64_t h = 0;
		if (pr[p].p != last_src)
			topomatch_router_source(n->r, last_src = pr[p].p);
		int rc = route_of(n, pr[p].q, &h, err);
		if (rc)
			return rc;
		b->pwh[p] = pr[p].wh;
		b->poff[p] = len;
		if (len + h > cap) {
			cap = 2 * (len + h);
			int64_t *q = realloc(b->plink, (size_t)cap * sizeof(*q));
			if (!q)
				return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
			b->plink = q;
		}
		for (int64_t i = 0; i < h; i++) {
			int64_t l = n->route[i];
			if (l < 0 || l >= n->m->nlinks || n->m->link_intra[l])
				continue;
			if (n->lidx[l] < 0) {
				n->lidx[l] = n->ntouched;
				n->touched[n->ntouched++] = l;
			}
			n->x[l] += pr[p].w / capacity(n, i, h);
			b->plink[len++] = n->lidx[l];
		}
	}
	b->poff[np] = len;
	return TOPOMATCH_OK;
}

/* u = x / max x over the touched links, into the job; scratch cleared. */
static int keep_links(sim_net_t *n, net_job_t *b, char *err)
{
	double most = 0;
	for (int64_t k = 0; k < n->ntouched; k++)
		most = n->x[n->touched[k]] > most ? n->x[n->touched[k]] : most;
	b->nl = n->ntouched;
	b->link = malloc(((size_t)b->nl + 1) * sizeof(*b->link));
	b->u = malloc(((size_t)b->nl + 1) * sizeof(*b->u));
	int rc = b->link && b->u ? TOPOMATCH_OK : sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; k < n->ntouched; k++) {
		int64_t l = n->touched[k];
		if (!rc) {
			b->link[k] = l;
			b->u[k] = most > 0 ? n->x[l] / most : 0;
		}
		n->x[l] = 0;
		n->lidx[l] = -1;
	}
	n->ntouched = 0;
	return rc;
}

static void free_job(net_job_t *b)
{
	free(b->link);
	free(b->u);
	free(b->pwh);
	free(b->poff);
	free(b->plink);
	memset(b, 0, sizeof(*b));
}

static void mark(sim_net_t *n, int64_t j)
{
	if (!n->is_dirty[j]) {
		n->is_dirty[j] = 1;
		n->dirty[n->ndirty++] = j;
	}
}

/* Every running job on j's links needs a new HB_c. */
static void mark_neighbours(sim_net_t *n, const net_job_t *b)
{
	for (int64_t k = 0; k < b->nl; k++) {
		const link_jobs_t *u = &n->users[b->link[k]];
		for (int64_t i = 0; i < u->n; i++)
			mark(n, u->j[i]);
	}
}

static int add_user(link_jobs_t *u, int64_t j, char *err)
{
	if (u->n == u->cap) {
		int64_t cap = 2 * u->cap + 2;
		int64_t *p = realloc(u->j, (size_t)cap * sizeof(*p));
		if (!p)
			return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
		u->j = p;
		u->cap = cap;
	}
	u->j[u->n++] = j;
	return TOPOMATCH_OK;
}

int sim_net_start(sim_net_t *n, int64_t j, const topomatch_affinity_t *a, const int64_t *pu,
		  double hb_ref, double *hb, char *err)
{
	net_job_t *b = &n->job[j];
	int64_t nt = topomatch_affinity_ntasks(a), np = 0;
	int64_t *tpu = malloc(2 * ((size_t)nt + 1) * sizeof(*tpu)), *node = tpu + nt + 1;
	pair_t *pr = NULL;
	free_job(b);
	if (!tpu)
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t i = 0; i < nt; i++) {
		tpu[i] = topomatch_cluster_pu_to_topology(n->m->cl, pu[i]);
		node[i] = topomatch_cluster_pu_node(n->m->cl, pu[i], NULL);
	}
	int rc = collect_pairs(n, a, tpu, node, &pr, &np, &b->hb_local, err);
	if (!rc)
		rc = route_pairs(n, b, pr, np, err);
	if (!rc)
		rc = keep_links(n, b, err);
	else
		keep_links(n, b, NULL); /* clears the scratch */
	free(pr);
	free(tpu);
	*hb = b->hb_local; /* the messages' w h, as sim_hop_bytes adds them */
	for (int64_t p = 0; !rc && p < b->np; p++)
		*hb += b->pwh[p];
	double r = hb_ref > 0 ? *hb / hb_ref : 1, s = n->share;
	b->sigma = 1 - s + s * r > 0 ? s * r / (1 - s + s * r) : 0;
	for (int64_t k = 0; !rc && k < b->nl; k++) {
		n->load[b->link[k]] += b->sigma * b->u[k];
		rc = add_user(&n->users[b->link[k]], j, err);
	}
	if (rc) {
		free_job(b);
		return rc;
	}
	b->active = 1;
	mark_neighbours(n, b); /* j itself among them when it has links */
	mark(n, j);
	return TOPOMATCH_OK;
}

void sim_net_finish(sim_net_t *n, int64_t j)
{
	net_job_t *b = &n->job[j];
	if (!b->active)
		return;
	for (int64_t k = 0; k < b->nl; k++) {
		link_jobs_t *u = &n->users[b->link[k]];
		n->load[b->link[k]] -= b->sigma * b->u[k];
		for (int64_t i = 0; i < u->n; i++)
			if (u->j[i] == j) {
				u->j[i] = u->j[--u->n];
				break;
			}
		if (u->n == 0)
			n->load[b->link[k]] = 0; /* no rounding residue on idle links */
	}
	mark_neighbours(n, b);
	free_job(b);
}

/* HB_c of running job j under the current loads. */
double sim_net_hop_bytes(const sim_net_t *n, int64_t j)
{
	const net_job_t *b = &n->job[j];
	double hbc = b->hb_local;
	for (int64_t p = 0; p < b->np; p++) {
		double phi = 1;
		for (int64_t e = b->poff[p]; e < b->poff[p + 1]; e++) {
			int64_t k = b->plink[e];
			double rho = b->u[k] + n->load[b->link[k]] - b->sigma * b->u[k];
			phi = rho > phi ? rho : phi;
		}
		hbc += b->pwh[p] * phi;
	}
	return hbc;
}

/* The running jobs whose HB_c may have changed since the last call
 * (finished ones left out); the list is valid until the next call. */
const int64_t *sim_net_dirty(sim_net_t *n, int64_t *count)
{
	int64_t k = 0;
	for (int64_t i = 0; i < n->ndirty; i++) {
		int64_t j = n->dirty[i];
		n->is_dirty[j] = 0;
		if (n->job[j].active)
			n->dirty[k++] = j;
	}
	*count = k;
	n->ndirty = 0;
	return n->dirty;
}

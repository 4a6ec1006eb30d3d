/*
 * analytical_legal.c - the legalization stage of the analytical torus
 * mapper (Wu, Xiong, Lan et al., J. Supercomput. 2016, §3.4 and Fig. 4:
 * "diffusion-like migration", after Hu, Blake and Emerson 1998), and the
 * conjugate-gradient solver both stages use (§3.3.1, §3.5; the paper
 * uses CHOLMOD, an iterative solver keeps the work bounded and sparse).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "analytical_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of Fig. 4 before the nearest-free-router fallback. */
#define LEG_MAX_ROUNDS 64
/* Conjugate-gradient iterations per solve of L lambda = b. */
#define LEG_CG_MAXIT 500
#define LEG_CG_TOL 1e-8

int64_t an_hops(const an_grid_t *g, int64_t r, int64_t s)
{
	int64_t h = 0;
	for (int k = 0; k < g->nd; k++) {
		int d = abs(an_coord(g, r, k) - an_coord(g, s, k));
		if (g->wrap[k] && g->dims[k] - d < d)
			d = g->dims[k] - d;
		h += d;
	}
	return h;
}

static void an_mul(const an_sys_t *a, const double *x, double *y)
{
	for (int64_t i = 0; i < a->n; i++) {
		double s = a->diag[i] * x[i];
		for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
			s -= a->w[e] * x[a->col[e]];
		y[i] = s;
	}
}

static double dot(const double *x, const double *y, int64_t n)
{
	double s = 0.0;
	for (int64_t i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

int64_t an_cg(const an_sys_t *a, const double *b, double *x, int64_t maxit, double tol)
{
	int64_t n = a->n, it = 0;
	double *r = tm_alloc(n, sizeof(*r)), *z = tm_alloc(n, sizeof(*z));
	double *p = tm_alloc(n, sizeof(*p)), *ap = tm_alloc(n, sizeof(*ap));
	if (!r || !z || !p || !ap) {
		free(r);
		free(z);
		free(p);
		free(ap);
		return -1;
	}
	an_mul(a, x, ap);
	for (int64_t i = 0; i < n; i++) {
		r[i] = b[i] - ap[i];
		z[i] = a->diag[i] > 0 ? r[i] / a->diag[i] : r[i];
		p[i] = z[i];
	}
	double rz = dot(r, z, n), bnorm = sqrt(dot(b, b, n));
	double stop = tol * (bnorm > 0 ? bnorm : 1.0);
	for (; it < maxit && sqrt(dot(r, r, n)) > stop; it++) {
		an_mul(a, p, ap);
		double pap = dot(p, ap, n);
		if (!(pap > 0))
			break; /* no descent left (a singular direction) */
		double alpha = rz / pap;
		for (int64_t i = 0; i < n; i++) {
			x[i] += alpha * p[i];
			r[i] -= alpha * ap[i];
			z[i] = a->diag[i] > 0 ? r[i] / a->diag[i] : r[i];
		}
		double rz2 = dot(r, z, n);
		for (int64_t i = 0; i < n; i++)
			p[i] = z[i] + rz2 / rz * p[i];
		rz = rz2;
	}
	free(r);
	free(z);
	free(p);
	free(ap);
	return it;
}

/* ------------------------------------------------------------ migration */

typedef struct leg {
	const an_grid_t *g;
	const tm_wgraph_t *q;
	int64_t *node;          /* process -> router */
	int64_t *head, *next;   /* the processes of each router (singly linked) */
	int64_t *cnt;
	int64_t *nbr;           /* 2 x nd neighbours per router, -1 pads */
	int nn;                 /* neighbours per router (2 x nd) */
	int64_t *rp, *col;      /* the grid's Laplacian L (§3.4 Eq. 10) */
	double *w, *diag;
	double *lam, *b;
	int64_t *ord;
} leg_t;

static void leg_free(leg_t *l)
{
	free(l->head);
	free(l->next);
	free(l->cnt);
	free(l->nbr);
	free(l->rp);
	free(l->col);
	free(l->w);
	free(l->diag);
	free(l->lam);
	free(l->b);
	free(l->ord);
}

int an_grid_nbrs(const an_grid_t *g, int64_t r, int64_t *out)
{
	int m = 0;
	for (int k = 0; k < g->nd; k++) {
		int x = an_coord(g, r, k), d = g->dims[k];
		for (int s = -1; s <= 1; s += 2) {
			int y = x + s;
			if (y < 0 || y >= d) {
				if (!g->wrap[k])
					continue;
				y = (y + d) % d;
			}
			if (y == x)
				continue;
			int64_t v = r + (int64_t)(y - x) * g->rstride[k];
			bool dup = false;
			for (int i = 0; i < m; i++)
				dup = dup || out[i] == v;
			if (!dup)
				out[m++] = v;
		}
	}
	return m;
}

static bool leg_alloc(leg_t *l)
{
	int64_t nr = l->g->nr;
	l->nn = 2 * l->g->nd;
	l->head = tm_alloc(nr, sizeof(*l->head));
	l->next = tm_alloc(nr, sizeof(*l->next));
	l->cnt = tm_zalloc(nr, sizeof(*l->cnt));
	l->nbr = tm_alloc(nr * l->nn, sizeof(*l->nbr));
	l->rp = tm_alloc(nr + 1, sizeof(*l->rp));
	l->col = tm_alloc(nr * l->nn, sizeof(*l->col));
	l->w = tm_alloc(nr * l->nn, sizeof(*l->w));
	l->diag = tm_alloc(nr, sizeof(*l->diag));
	l->lam = tm_alloc(nr, sizeof(*l->lam));
	l->b = tm_alloc(nr, sizeof(*l->b));
	l->ord = tm_alloc(nr, sizeof(*l->ord));
	if (!l->head || !l->next || !l->cnt || !l->nbr || !l->rp || !l->col || !l->w ||
	    !l->diag || !l->lam || !l->b || !l->ord)
		return false;
	l->rp[0] = 0;
	for (int64_t r = 0; r < nr; r++) {
		int64_t *nb = l->nbr + r * l->nn;
		int m = an_grid_nbrs(l->g, r, nb);
		for (int i = m; i < l->nn; i++)
			nb[i] = -1;
		for (int i = 0; i < m; i++) {
			l->col[l->rp[r] + i] = nb[i];
			l->w[l->rp[r] + i] = 1.0;
		}
		l->rp[r + 1] = l->rp[r] + m;
		l->diag[r] = m;
	}
	for (int64_t r = 0; r < nr; r++)
		l->head[r] = -1;
	for (int64_t p = nr - 1; p >= 0; p--) { /* lists in process order */
		int64_t r = l->node[p];
		l->next[p] = l->head[r];
		l->head[r] = p;
		l->cnt[r]++;
	}
	return true;
}

/* Hop-bytes that moving process p from router i to router j adds. */
static double move_cost(const leg_t *l, int64_t p, int64_t i, int64_t j)
{
	const tm_wgraph_t *q = l->q;
	double d = 0.0;
	for (int64_t e = q->rowptr[p]; e < q->rowptr[p + 1]; e++) {
		int64_t s = l->node[q->col[e]];
		d += q->w[e] * (double)(an_hops(l->g, j, s) - an_hops(l->g, i, s));
	}
	return d;
}

/* Move the process of router i whose move to j costs least (ties: the
 * lowest process). */
static void move_one(leg_t *l, int64_t i, int64_t j)
{
	int64_t best = -1, bprev = -1;
	double bc = 0.0;
	for (int64_t p = l->head[i], prev = -1; p >= 0; prev = p, p = l->next[p]) {
		double c = move_cost(l, p, i, j);
		if (best < 0 || c < bc || (c == bc && p < best)) {
			best = p;
			bprev = prev;
			bc = c;
		}
	}
	if (bprev < 0)
		l->head[i] = l->next[best];
	else
		l->next[bprev] = l->next[best];
	l->cnt[i]--;
	l->node[best] = j;
	l->next[best] = l->head[j];
	l->head[j] = best;
	l->cnt[j]++;
}

static bool overloaded(const leg_t *l)
{
	for (int64_t r = 0; r < l->g->nr; r++)
		if (l->cnt[r] > 1)
			return true;
	return false;
}

/* Routers by non-increasing lambda, ties to the lower id. */
typedef struct lkey {
	double lam;
	int64_t r;
} lkey_t;

static int cmp_lkey_desc(const void *a, const void *b)
{
	const lkey_t *x = a, *y = b;
	if (x->lam != y->lam)
		return x->lam > y->lam ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

/* Does neighbour j come before k: a larger fractional part of the flow
 * from i (ties: the lower router)? */
static bool frac_before(const leg_t *l, int64_t i, int64_t j, int64_t k)
{
	double fj = l->lam[i] - l->lam[j], fk = l->lam[i] - l->lam[k];
	fj -= floor(fj);
	fk -= floor(fk);
	return fj != fk ? fj > fk : j < k;
}

/* One round of Fig. 4 (lines 2-4). false when out of memory. */
static bool leg_round(leg_t *l)
{
	int64_t nr = l->g->nr;
	an_sys_t L = { nr, l->rp, l->col, l->w, l->diag };
	lkey_t *key = tm_alloc(nr, sizeof(*key));
	if (!key)
		return false;
	for (int64_t r = 0; r < nr; r++) {
		l->b[r] = (double)(l->cnt[r] - 1);
		l->lam[r] = 0.0;
	}
	if (an_cg(&L, l->b, l->lam, LEG_CG_MAXIT, LEG_CG_TOL) < 0) {
		free(key);
		return false;
	}
	for (int64_t r = 0; r < nr; r++)
		key[r] = (lkey_t){ l->lam[r], r };
	qsort(key, (size_t)nr, sizeof(*key), cmp_lkey_desc);
	for (int64_t k = 0; k < nr; k++) {
		int64_t i = key[k].r;
		const int64_t *nb = l->nbr + i * l->nn;
		/* whole parts of the flows lambda_i - lambda_j first */
		for (int t = 0; t < l->nn && nb[t] >= 0 && l->cnt[i] > 1; t++) {
			double f = l->lam[i] - l->lam[nb[t]];
			for (int64_t m = f > 0 ? (int64_t)floor(f) : 0; m > 0 && l->cnt[i] > 1; m--)
				move_one(l, i, nb[t]);
		}
		/* then one process to each neighbour downhill, the largest
		 * fractional parts first */
		int cand[2 * AN_MAX_DIMS], nc = 0;
		for (int t = 0; t < l->nn && nb[t] >= 0; t++)
			if (l->lam[i] > l->lam[nb[t]])
				cand[nc++] = t;
		for (int x = 1; x < nc; x++) /* insertion sort: at most 6 */
			for (int y = x; y > 0 && frac_before(l, i, nb[cand[y]], nb[cand[y - 1]]); y--) {
				int tmp = cand[y];
				cand[y] = cand[y - 1];
				cand[y - 1] = tmp;
			}
		for (int x = 0; x < nc && l->cnt[i] > 1; x++)
			move_one(l, i, nb[cand[x]]);
	}
	free(key);
	return true;
}

/* What Fig. 4 left overloaded goes to the nearest free router (breadth
 * first over the grid from the router, neighbours in order). */
static bool leg_nearest(leg_t *l)
{
	int64_t nr = l->g->nr;
	int64_t *queue = tm_alloc(nr, sizeof(*queue)), *seen = tm_alloc(nr, sizeof(*seen));
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return false;
	}
	int64_t mark = 0;
	for (int64_t r = 0; r < nr; r++)
		seen[r] = -1;
	for (int64_t i = 0; i < nr; i++) {
		while (l->cnt[i] > 1) {
			int64_t qh = 0, qt = 0, to = -1;
			queue[qt++] = i;
			seen[i] = ++mark;
			while (qh < qt && to < 0) {
				int64_t r = queue[qh++];
				const int64_t *nb = l->nbr + r * l->nn;
				for (int t = 0; t < l->nn && nb[t] >= 0 && to < 0; t++) {
					if (seen[nb[t]] == mark)
						continue;
					seen[nb[t]] = mark;
					if (l->cnt[nb[t]] == 0)
						to = nb[t];
					queue[qt++] = nb[t];
				}
			}
			move_one(l, i, to); /* one process per router: a free one exists */
		}
	}
	free(queue);
	free(seen);
	return true;
}

int an_legalize(const an_grid_t *g, const tm_wgraph_t *q, int64_t *node, double deadline,
		char *err)
{
	leg_t l = { .g = g, .q = q, .node = node };
	bool ok = leg_alloc(&l), late = false;
	/* a round solves a system of the routers (up to LEG_CG_MAXIT
	 * conjugate-gradient steps): the clock is looked at between rounds */
	for (int round = 0; ok && !late && round < LEG_MAX_ROUNDS && overloaded(&l); round++) {
		ok = leg_round(&l);
		late = deadline > 0 && tm_now() > deadline;
	}
	if (ok && !late && overloaded(&l))
		ok = leg_nearest(&l);
	leg_free(&l);
	if (late)
		return tm_err(err, TOPOMATCH_EBUDGET, "analytical: time budget exceeded");
	return ok ? TOPOMATCH_OK
		  : tm_err(err, TOPOMATCH_ENOMEM, "analytical: out of memory (legalization)");
}

/*
 * treematch_group.c - the grouping step of TreeMatch (GroupProcesses,
 * Euro-Par 2010 §3) made adaptive as in TopoMatch Alg. 1 (JPDC 2022,
 * §4.2.2): n (virtual) processes are split into n / a groups of a, the
 * arity of the tree level being built, so that the communication left
 * between the groups is small.
 *
 *   C(n, a) <= tau      round robin, then every candidate group and three
 *                       greedy maximal independent sets (Alg. 1, l. 11-18)
 *   C(n, a) > tau, a=2  bucket grouping (l. 4)
 *   a <= 5              fast grouping (l. 7)
 *   a > 5               k-way partition into parts of exactly a (l. 9)
 *
 * Every strategy returns group ids; to_memb() turns them into the layout
 * of tm_group() (members increasing, groups by smallest member), so that
 * the result does not depend on how a strategy numbered its groups.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "ipq.h"
#include "treematch_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* TopoMatch §4.2.2: "we greedily built 10 possible ones". */
#define FAST_TRIES 10

/* Bucket grouping draws r = 2^k <= n samples (k <= log2 n); past 2^20 it
 * draws 2^20, which only changes where the geometric pivots fall. */
#define BUCKET_MAX_SAMPLES (INT64_C(1) << 20)

static int budget_hit(const tm_map_ctx_t *c, int64_t step, char *err)
{
	if (step % TM_BUDGET_STEPS == 0 && tm_ctx_expired(c))
		return tm_err(err, TOPOMATCH_EBUDGET, "treematch: time budget exceeded");
	return TOPOMATCH_OK;
}

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "treematch: out of memory while grouping");
}

/* A sort key: smaller value first, then smaller index (deterministic ties). */
struct key {
	double v;
	int64_t i;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *x = pa, *y = pb;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

double tm_binomial(int64_t n, int64_t k)
{
	if (k < 0 || k > n)
		return 0.0;
	if (k > n - k)
		k = n - k;
	double r = 1.0;
	/* each partial product is C(n - k + i, i): exact while it fits */
	for (int64_t i = 1; i <= k && isfinite(r); i++)
		r = r * (double)(n - k + i) / (double)i;
	return r;
}

int tm_group_choose(int64_t n, int a, double tau)
{
	if (a <= 1 || n <= a)
		return TM_GROUP_TRIVIAL;
	double ng = tm_binomial(n, a); /* TopoMatch Alg. 1, line 1 */
	if (ng <= tau && ng <= (double)TM_EXHAUSTIVE_MAX_GROUPS && n <= TM_EXHAUSTIVE_MAX_N)
		return TM_GROUP_EXHAUSTIVE;
	if (a == 2)
		return TM_GROUP_BUCKET;
	return a <= 5 ? TM_GROUP_FAST : TM_GROUP_KPART;
}

/* Group ids grp[v] in [0, n / a), a members each -> tm_group()'s layout. */
static int to_memb(int64_t n, int a, const int64_t *grp, int64_t *memb, char *err)
{
	int64_t m = n / a, next = 0;
	int64_t *id = tm_alloc(m, sizeof(*id));
	int64_t *cnt = tm_zalloc(m, sizeof(*cnt));
	int rc = TOPOMATCH_OK;

	if (!id || !cnt) {
		rc = oom(err);
		goto out;
	}
	for (int64_t h = 0; h < m; h++)
		id[h] = -1;
	for (int64_t v = 0; v < n; v++) {
		int64_t h = grp[v];
		if (h < 0 || h >= m || (id[h] < 0 && next == m) ||
		    (id[h] >= 0 && cnt[id[h]] == a)) {
			rc = tm_err(err, TOPOMATCH_EINVAL,
				    "treematch: internal error: process %lld in group %lld of %lld "
				    "breaks the group sizes", (long long)v, (long long)h,
				    (long long)m);
			goto out;
		}
		if (id[h] < 0)
			id[h] = next++;
		memb[id[h] * a + cnt[id[h]]++] = v;
	}
out:
	free(id);
	free(cnt);
	return rc;
}

static double *weighted_degrees(const tm_wgraph_t *g)
{
	double *deg = tm_alloc(g->n, sizeof(*deg));

	for (int64_t v = 0; deg && v < g->n; v++) {
		double s = 0.0;
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			s += g->w[e];
		deg[v] = s;
	}
	return deg;
}

double tm_group_outside(const tm_wgraph_t *g, int a, const int64_t *memb)
{
	int64_t *grp = tm_alloc(g->n, sizeof(*grp));
	double out = 0.0;

	if (!grp)
		return NAN;
	for (int64_t k = 0; k < g->n; k++)
		grp[memb[k]] = k / a;
	for (int64_t v = 0; v < g->n; v++)
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			if (grp[g->col[e]] != grp[v])
				out += g->w[e];
	free(grp);
	return out;
}

/* ------------------------------------------------------------------ */
/* Exhaustive: TopoMatch Alg. 1, lines 11-18 (TreeMatch GroupProcesses) */
/* ------------------------------------------------------------------ */

/* Every candidate group (the vertices of TreeMatch's incompatibility graph). */
struct cand {
	int64_t n, ng;
	int a;
	const double *dense; /* n x n copy of the matrix: n <= TM_EXHAUSTIVE_MAX_N */
	const double *deg;
	int32_t *mem;        /* ng x a members, increasing */
	double *val;         /* TreeMatch's valuation: communication left outside */
};

static double *dense_copy(const tm_wgraph_t *g)
{
	double *d = tm_zalloc(g->n * g->n, sizeof(*d));

	for (int64_t v = 0; d && v < g->n; v++)
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			d[v * g->n + g->col[e]] += g->w[e];
	return d;
}

/*
 * TreeMatch §3: "the sum of communication of process 0 is 1114 and process
 * 1 is 2104 for a total of 3218.  If we group them together, we will reduce
 * the communication volume by 2000": value = sum of degrees - internal (both
 * directions, so twice the weight of the symmetric matrix A).
 */
static double group_value(const struct cand *x, const int32_t *mem)
{
	double v = 0.0;

	for (int i = 0; i < x->a; i++) {
		const double *row = x->dense + (int64_t)mem[i] * x->n;
		v += x->deg[mem[i]];
		for (int j = i + 1; j < x->a; j++)
			v -= 2.0 * row[mem[j]];
	}
	return v;
}

/* ListOfAllPossibleGroups: combinations in lexicographic order. */
static int enumerate(const tm_map_ctx_t *c, struct cand *x, char *err)
{
	int a = x->a;
	int32_t *cur = x->mem; /* the first slot holds the first combination */

	for (int i = 0; i < a; i++)
		cur[i] = i;
	for (int64_t k = 0; k < x->ng; k++) {
		int rc = budget_hit(c, k, err);
		if (rc != TOPOMATCH_OK)
			return rc;
		int32_t *mem = x->mem + k * a;
		if (k > 0) {
			/* next combination after the previous one */
			memcpy(mem, mem - a, (size_t)a * sizeof(*mem));
			int i = a - 1;
			while (i >= 0 && mem[i] == x->n - a + i)
				i--;
			if (i < 0)
				return tm_err(err, TOPOMATCH_EINVAL,
					      "treematch: internal error enumerating groups");
			mem[i]++;
			for (int j = i + 1; j < a; j++)
				mem[j] = mem[j - 1] + 1;
		}
		x->val[k] = group_value(x, mem);
	}
	return TOPOMATCH_OK;
}

/*
 * try_improve_sol: scan the candidates in `order`, keep each one that
 * shares no process with those kept.  As a divides n, every maximal
 * independent set of this (complement of a Kneser) graph is maximum
 * (TreeMatch §3), so the scan always ends with n / a groups.
 */
static double select_greedy(const struct cand *x, const struct key *order,
			    unsigned char *used, int64_t *grp)
{
	int64_t m = x->n / x->a, got = 0;
	double total = 0.0;

	memset(used, 0, (size_t)x->n);
	for (int64_t k = 0; k < x->ng && got < m; k++) {
		const int32_t *mem = x->mem + order[k].i * x->a;
		int i = 0;
		while (i < x->a && !used[mem[i]])
			i++;
		if (i < x->a)
			continue;
		for (i = 0; i < x->a; i++) {
			used[mem[i]] = 1;
			grp[mem[i]] = got;
		}
		total += x->val[order[k].i];
		got++;
	}
	return got == m ? total : INFINITY;
}

/*
 * "Decreasing weighted degree: the average amount of communication outside
 * of all groups that are not independent" (TopoMatch §4.2.2).  Every group
 * meets the same number of others (counted with multiplicity), so the sum
 * sum_{p in G} sum_{H contains p, H != G} val(H) ranks them as the average
 * does; for a = 2 no two groups share two processes, so it is exact.
 */
static void order_weighted_degree(const struct cand *x, double *s, struct key *order)
{
	memset(s, 0, (size_t)x->n * sizeof(*s));
	for (int64_t k = 0; k < x->ng; k++)
		for (int i = 0; i < x->a; i++)
			s[x->mem[k * x->a + i]] += x->val[k];
	for (int64_t k = 0; k < x->ng; k++) {
		double wd = -(double)x->a * x->val[k];
		for (int i = 0; i < x->a; i++)
			wd += s[x->mem[k * x->a + i]];
		order[k] = (struct key){ -wd, k };
	}
	qsort(order, (size_t)x->ng, sizeof(*order), key_cmp);
}

/* Round robin (Alg. 1, line 11): consecutive processes together. */
static double round_robin(const struct cand *x, int64_t *grp)
{
	double total = 0.0;

	for (int64_t v = 0; v < x->n; v++)
		grp[v] = v / x->a;
	for (int64_t p = 0; p < x->n; p++) {
		total += x->deg[p];
		for (int64_t q = p + 1; q < (p / x->a + 1) * x->a; q++)
			total -= 2.0 * x->dense[p * x->n + q];
	}
	return total;
}

/* Try the three orders of Alg. 1 (lines 13-18); keep the best in best[]. */
static int improve(const tm_map_ctx_t *c, const struct cand *x, int64_t *best, char *err)
{
	struct key *order = tm_alloc(x->ng, sizeof(*order));
	int64_t *grp = tm_alloc(x->n, sizeof(*grp));
	unsigned char *used = tm_alloc(x->n, 1);
	double *s = tm_alloc(x->n, sizeof(*s));
	int rc = TOPOMATCH_OK;

	if (!order || !grp || !used || !s) {
		rc = oom(err);
		goto out;
	}
	double bestval = round_robin(x, best);
	for (int pass = 0; pass < 3 && rc == TOPOMATCH_OK; pass++) {
		if (pass < 2) {
			/* group_list_asc, then group_list_dsc (ties: enumeration order) */
			for (int64_t k = 0; k < x->ng; k++)
				order[k] = (struct key){ pass == 0 ? x->val[k] : -x->val[k], k };
			qsort(order, (size_t)x->ng, sizeof(*order), key_cmp);
		} else {
			order_weighted_degree(x, s, order);
		}
		double v = select_greedy(x, order, used, grp);
		if (v < bestval) {
			bestval = v;
			memcpy(best, grp, (size_t)x->n * sizeof(*grp));
		}
		if (tm_ctx_expired(c))
			rc = tm_err(err, TOPOMATCH_EBUDGET, "treematch: time budget exceeded");
	}
out:
	free(order);
	free(grp);
	free(used);
	free(s);
	return rc;
}

int tm_group_exhaustive(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, int64_t *memb,
			char *err)
{
	struct cand x = { .n = g->n, .a = a };
	double ng = tm_binomial(g->n, a);

	if (a < 1 || g->n % a != 0 || g->n > TM_EXHAUSTIVE_MAX_N ||
	    ng > (double)TM_EXHAUSTIVE_MAX_GROUPS)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "treematch: %lld processes by %d are too many to enumerate",
			      (long long)g->n, a);
	x.ng = (int64_t)ng;
	double *dense = dense_copy(g);
	double *deg = weighted_degrees(g);
	int64_t *grp = tm_alloc(g->n, sizeof(*grp));
	x.dense = dense;
	x.deg = deg;
	x.mem = tm_alloc(x.ng * a, sizeof(*x.mem));
	x.val = tm_alloc(x.ng, sizeof(*x.val));
	int rc = TOPOMATCH_OK;
	if (!dense || !deg || !grp || !x.mem || !x.val)
		rc = oom(err);
	if (rc == TOPOMATCH_OK)
		rc = enumerate(c, &x, err);
	if (rc == TOPOMATCH_OK)
		rc = improve(c, &x, grp, err);
	if (rc == TOPOMATCH_OK)
		rc = to_memb(g->n, a, grp, memb, err);
	free(dense);
	free(deg);
	free(grp);
	free(x.mem);
	free(x.val);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Bucket grouping: TopoMatch Alg. 1, line 4 (§4.2.2, footnotes 5-6)    */
/* ------------------------------------------------------------------ */

struct pair {
	double w;
	int64_t i, j;
};

/* Decreasing affinity; ties by (i, j) so that the order is total. */
static int pair_cmp(const void *pa, const void *pb)
{
	const struct pair *x = pa, *y = pb;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Footnote 5: k, the number of buckets, is the largest power of two not
 * above log2(n). */
static int bucket_count(int64_t n)
{
	int lg = 0, k = 1;

	while ((n >> (lg + 1)) > 0)
		lg++;
	while (2 * k <= lg)
		k *= 2;
	return k;
}

/*
 * Pivots p_0 = +inf, p_i = sample[2^i] (samples sorted decreasing), p_k = 0:
 * geometric, so the first buckets hold few but high affinities.  The
 * samples are stored entries of the matrix: a sparse matrix sampled
 * uniformly over all n^2 entries would give zero pivots.
 */
static int bucket_pivots(const tm_wgraph_t *g, int k, uint64_t seed, double *piv)
{
	int64_t r = k >= 20 ? BUCKET_MAX_SAMPLES : INT64_C(1) << k;
	int64_t nnz = g->rowptr[g->n];
	struct key *s = tm_alloc(r, sizeof(*s));
	topomatch_rng_t rng;

	if (!s)
		return TOPOMATCH_ENOMEM;
	topomatch_rng_seed(&rng, seed);
	for (int64_t q = 0; q < r; q++)
		s[q] = (struct key){ -g->w[topomatch_rng_below(&rng, (uint64_t)nnz)], q };
	qsort(s, (size_t)r, sizeof(*s), key_cmp);
	piv[0] = INFINITY;
	for (int i = 1; i < k; i++)
		piv[i] = -s[(INT64_C(1) << i) < r ? INT64_C(1) << i : r - 1].v;
	piv[k] = 0.0;
	free(s);
	return TOPOMATCH_OK;
}

/* Bucket b (1..k) holds the affinities in [p_b, p_{b-1}). */
static int bucket_of(double w, int k, const double *piv)
{
	int b = 1;

	while (b < k && w < piv[b])
		b++;
	return b;
}

/* The non-zero pairs (i < j), in bucket order; off[b] starts bucket b. */
static struct pair *bucket_fill(const tm_wgraph_t *g, int k, const double *piv, int64_t *off)
{
	memset(off, 0, (size_t)(k + 2) * sizeof(*off));
	for (int64_t i = 0; i < g->n; i++)
		for (int64_t e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
			if (g->col[e] > i)
				off[bucket_of(g->w[e], k, piv) + 1]++;
	for (int b = 1; b <= k; b++)
		off[b + 1] += off[b];
	struct pair *p = tm_alloc(off[k + 1], sizeof(*p));
	if (!p)
		return NULL;
	for (int64_t i = 0; i < g->n; i++)
		for (int64_t e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
			if (g->col[e] > i)
				p[off[bucket_of(g->w[e], k, piv)]++] =
					(struct pair){ g->w[e], i, g->col[e] };
	/* the fill moved each start to the next one: shift back */
	for (int b = k + 1; b >= 2; b--)
		off[b] = off[b - 1];
	off[1] = 0;
	return p;
}

/*
 * Lazy consumption (footnote 6): a bucket is sorted only when the groups
 * picked from the previous ones leave some process unpaired.
 */
static int bucket_select(const tm_map_ctx_t *c, struct pair *p, const int64_t *off, int k,
			 int64_t *grp, int64_t m, int64_t *got, char *err)
{
	int64_t step = 0;

	for (int b = 1; b <= k && *got < m; b++) {
		qsort(p + off[b], (size_t)(off[b + 1] - off[b]), sizeof(*p), pair_cmp);
		for (int64_t q = off[b]; q < off[b + 1] && *got < m; q++) {
			int rc = budget_hit(c, ++step, err);
			if (rc != TOPOMATCH_OK)
				return rc;
			if (grp[p[q].i] < 0 && grp[p[q].j] < 0) {
				grp[p[q].i] = *got;
				grp[p[q].j] = *got;
				(*got)++;
			}
		}
	}
	return TOPOMATCH_OK;
}

int tm_group_bucket(const tm_map_ctx_t *c, const tm_wgraph_t *g, uint64_t seed,
		    int64_t *memb, char *err)
{
	int64_t n = g->n, m = n / 2, got = 0;
	int k = bucket_count(n);
	int64_t *grp = tm_alloc(n, sizeof(*grp));
	int64_t *off = tm_alloc(k + 2, sizeof(*off));
	double piv[66];
	struct pair *p = NULL;
	int rc = TOPOMATCH_OK;

	if (n % 2 != 0)
		return tm_err(err, TOPOMATCH_EINVAL, "treematch: bucket grouping of an odd count");
	if (!grp || !off) {
		rc = oom(err);
		goto out;
	}
	for (int64_t v = 0; v < n; v++)
		grp[v] = -1;
	if (g->rowptr[n] > 0) {
		if (bucket_pivots(g, k, seed, piv) != TOPOMATCH_OK ||
		    !(p = bucket_fill(g, k, piv, off))) {
			rc = oom(err);
			goto out;
		}
		rc = bucket_select(c, p, off, k, grp, m, &got, err);
	}
	/* what is left has no affinity inside: pair it in index order */
	for (int64_t v = 0, half = 0; rc == TOPOMATCH_OK && v < n; v++) {
		if (grp[v] >= 0)
			continue;
		grp[v] = got;
		got += half;
		half ^= 1;
	}
	if (rc == TOPOMATCH_OK)
		rc = to_memb(n, 2, grp, memb, err);
out:
	free(grp);
	free(off);
	free(p);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Fast grouping: TopoMatch Alg. 1, line 7                              */
/* ------------------------------------------------------------------ */

/*
 * The unassigned processes sit in an indexed heap (ipq.h) on their remaining
 * weighted degree (affinity towards the unassigned ones), smallest first
 * (TM_IPQ_LOOSE), ties to the smaller index.  heap_first() gives the first
 * `cnt` in heap order without changing the heap.
 */
static int heap_first(tm_ipq_t *q, int64_t *out, int cnt)
{
	int got = 0;

	while (got < cnt && q->n > 0) {
		out[got] = q->heap[0];
		tm_ipq_remove(q, out[got++]);
	}
	for (int i = 0; i < got; i++)
		tm_ipq_fix(q, out[i]);
	return got;
}

/* Working state of the fast grouping. */
struct fast {
	const tm_wgraph_t *g;
	int a;
	double *rdeg;         /* remaining weighted degree */
	tm_ipq_t q;
	double *acc;          /* affinity to the group being grown */
	unsigned char *state; /* ST_* bits */
	int64_t *touched;     /* processes with acc[] set */
	int64_t ntouched;
	int64_t *iso;         /* processes without any affinity, increasing */
	int64_t niso, iso_at; /* iso[iso_at..] may still be unassigned */
	int64_t seeds[FAST_TRIES]; /* the first of the heap */
	int nseeds;
};

#define ST_DONE 1 /* in a group already */
#define ST_IN 2   /* in the candidate being grown */
#define ST_SEEN 4 /* acc[] is valid */

static void fast_scatter(struct fast *x, int64_t v)
{
	const tm_wgraph_t *g = x->g;

	for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
		int64_t u = g->col[e];
		if (x->state[u] & (ST_DONE | ST_IN))
			continue;
		if (!(x->state[u] & ST_SEEN)) {
			x->state[u] |= ST_SEEN;
			x->acc[u] = 0.0;
			x->touched[x->ntouched++] = u;
		}
		x->acc[u] += g->w[e];
	}
}

/* The touched process with the most affinity to the group (-1: none);
 * ties to the heap order (fewer partners left, then the smaller id). */
static int64_t fast_best_touched(const struct fast *x)
{
	int64_t best = -1;

	for (int64_t t = 0; t < x->ntouched; t++) {
		int64_t u = x->touched[t];
		if (x->state[u] & ST_IN)
			continue;
		if (best < 0 || x->acc[u] > x->acc[best] ||
		    (x->acc[u] == x->acc[best] && tm_ipq_before(&x->q, u, best)))
			best = u;
	}
	return best;
}

/*
 * Nothing unassigned talks to the group: take the process with the fewest
 * partners left, which spoils the fewest future groups: the first of the
 * heap not in the group yet, i.e. of the seeds (FAST_TRIES > a of them).
 */
static int64_t fast_filler(const struct fast *x)
{
	for (int i = 0; i < x->nseeds; i++)
		if (!(x->state[x->seeds[i]] & ST_IN))
			return x->seeds[i];
	return -1;
}

/* An unassigned process without any affinity (an artificial one of
 * ExtendComMatrix, or an idle task) not in the group yet; -1: none. */
static int64_t fast_isolated(struct fast *x)
{
	while (x->iso_at < x->niso && (x->state[x->iso[x->iso_at]] & ST_DONE))
		x->iso_at++;
	for (int64_t k = x->iso_at; k < x->niso; k++)
		if (!(x->state[x->iso[k]] & (ST_DONE | ST_IN)))
			return x->iso[k];
	return -1;
}

/*
 * Grow a group greedily from `seed` by the process with the most affinity
 * to it.  An isolated process is taken instead when that one would cut
 * more of its remaining communication than it brings in (TreeMatch's
 * valuation grows): this is what ExtendComMatrix's artificial groups are
 * for, TreeMatch §3 groups {(0,1,4),(2,3,5)} rather than 0-2 together.
 * Returns the group's value: the communication it leaves towards the
 * unassigned processes (sum of remaining degrees - 2 x internal weight).
 */
static double fast_grow(struct fast *x, int64_t seed, int64_t *mem)
{
	double value = x->rdeg[seed];

	x->ntouched = 0;
	mem[0] = seed;
	x->state[seed] |= ST_IN;
	fast_scatter(x, seed);
	for (int i = 1; i < x->a; i++) {
		int64_t u = fast_best_touched(x), z = fast_isolated(x);
		double cost = u >= 0 ? x->rdeg[u] - 2.0 * x->acc[u] : 0.0;
		if (u < 0 || (z >= 0 && cost > 0.0)) {
			u = z >= 0 ? z : fast_filler(x);
			cost = x->rdeg[u];
		}
		value += cost;
		mem[i] = u;
		x->state[u] |= ST_IN;
		fast_scatter(x, u);
	}
	for (int64_t t = 0; t < x->ntouched; t++)
		x->state[x->touched[t]] &= (unsigned char)~ST_SEEN;
	for (int i = 0; i < x->a; i++)
		x->state[mem[i]] &= (unsigned char)~ST_IN;
	return value;
}

/* Take the group out: its processes leave the heap, their partners lose
 * the affinity they had towards it. */
static void fast_commit(struct fast *x, const int64_t *mem, int64_t h, int64_t *grp)
{
	const tm_wgraph_t *g = x->g;

	for (int i = 0; i < x->a; i++) {
		x->state[mem[i]] |= ST_DONE;
		grp[mem[i]] = h;
		tm_ipq_remove(&x->q, mem[i]);
	}
	for (int i = 0; i < x->a; i++) {
		for (int64_t e = g->rowptr[mem[i]]; e < g->rowptr[mem[i] + 1]; e++) {
			int64_t u = g->col[e];
			if (x->state[u] & ST_DONE)
				continue;
			x->rdeg[u] -= g->w[e];
			tm_ipq_fix(&x->q, u);
		}
	}
}

static int fast_init(struct fast *x, const tm_wgraph_t *g, int a)
{
	memset(x, 0, sizeof(*x));
	x->g = g;
	x->a = a;
	x->rdeg = weighted_degrees(g);
	x->acc = tm_alloc(g->n, sizeof(*x->acc));
	x->state = tm_zalloc(g->n, 1);
	x->touched = tm_alloc(g->n, sizeof(*x->touched));
	x->iso = tm_alloc(g->n, sizeof(*x->iso));
	if (!x->rdeg || !x->acc || !x->state || !x->touched || !x->iso ||
	    tm_ipq_init(&x->q, g->n, TM_IPQ_LOOSE, NULL, x->rdeg) != TOPOMATCH_OK)
		return TOPOMATCH_ENOMEM;
	for (int64_t v = 0; v < g->n; v++)
		if (g->rowptr[v] == g->rowptr[v + 1])
			x->iso[x->niso++] = v;
	for (int64_t v = 0; v < g->n; v++)
		tm_ipq_fix(&x->q, v);
	return TOPOMATCH_OK;
}

static void fast_free(struct fast *x)
{
	free(x->rdeg);
	free(x->acc);
	free(x->state);
	free(x->touched);
	free(x->iso);
	tm_ipq_free(&x->q);
}

/*
 * TopoMatch §4.2.2: "build the m groups one after the other.  To select one
 * group, we greedily built 10 possible ones [...] and choose the best one in
 * terms of communication reduction."  The 10 seeds are the unassigned
 * processes with the smallest remaining weighted degree (those about to
 * lose their last partners, so the groups grow as a front instead of
 * leaving orphans behind: on shuffled 3D stencils this gives 0.85-0.95 x
 * the natural placement's hop-bytes where the largest degrees first give
 * 1.27-1.31 x); each grows by fast_grow(); the candidate that leaves the
 * least communication outside (TreeMatch's valuation) wins, ties to the
 * earlier seed.  O(a x FAST_TRIES x touched) per group, near-linear in nnz.
 */
int tm_group_fast(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, int64_t *memb,
		  char *err)
{
	struct fast x;
	int64_t m = g->n / a, mem[8], best[8];
	int64_t *grp = tm_alloc(g->n, sizeof(*grp));
	int rc = TOPOMATCH_OK;

	if (a < 1 || a > 5 || g->n % a != 0) {
		free(grp);
		return tm_err(err, TOPOMATCH_EINVAL, "treematch: fast grouping needs a <= 5");
	}
	if (fast_init(&x, g, a) != TOPOMATCH_OK || !grp) {
		rc = oom(err);
		goto out;
	}
	for (int64_t h = 0; h < m; h++) {
		rc = budget_hit(c, h + 1, err);
		if (rc != TOPOMATCH_OK)
			break;
		x.nseeds = heap_first(&x.q, x.seeds, FAST_TRIES);
		double bestval = INFINITY;
		for (int s = 0; s < x.nseeds; s++) {
			double v = fast_grow(&x, x.seeds[s], mem);
			if (v < bestval) {
				bestval = v;
				memcpy(best, mem, (size_t)a * sizeof(*mem));
			}
		}
		fast_commit(&x, best, h, grp);
	}
	if (rc == TOPOMATCH_OK)
		rc = to_memb(g->n, a, grp, memb, err);
out:
	fast_free(&x);
	free(grp);
	return rc;
}

/* ------------------------------------------------------------------ */
/* k-way partition grouping: TopoMatch Alg. 1, line 9                  */
/* ------------------------------------------------------------------ */

/* "a k-way partitioning strategy that uses either Scotch or a greedy
 * partitioner that minimizes the cut" (§4.2.2), with parts of exactly a.
 *
 * Scotch's strategy (issue 19, point 5: auto's 4,096 ranks in 0.05 s,
 * 65,536 in 1.5 s; this partition is 70 to 80 % of their time): the
 * balanced multilevel k-way one spends most of it in k-way refinement
 * passes that keep the many parts balanced, although the parts are made
 * exact afterwards (tm_partition_exact_opts).  Measured with auto on the
 * bench's stencils (faces 1000/500/100, 3-level trees of 16-core
 * sockets), shuffle seeds 1-8 and the grid order, pinned to one CPU,
 * against the balanced strategy:
 *  - up to LEAN_KPART_MAX vertices the lean one (no diffusion, no
 *    balance passes): at 4,096 ranks the same hop-bytes on 9 of 9
 *    (34.816 M, the optimum for blocks of 8x4x1) in 0.66 x the time
 *    (median 0.046 s against 0.070); at 16,384 it lost 0.9 % on the
 *    geometric mean (up to 1.7 %), at 65,536 0.7 % better to 0.9 % worse;
 *  - above, recursive bisection, each bisection exact: 0.9999 to 1.0004 x
 *    the hop-bytes at 16,384 and 65,536 ranks (geometric means 1.0002
 *    and 1.0001) in 0.88 and 0.83 x the time; at 4,096, 0.77 x.
 * The other partitions (TOPOMATCHCONST, GreedyMap's node fill, the
 * analytical mapper's groups) keep the balanced strategy: with the lean
 * one here, of tm_bench's cases only the treematch mapper's own row
 * changed (tree-4k, given order: +1.0 %; auto's unchanged).
 */
#define LEAN_KPART_MAX 4096

int tm_group_kpart(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, uint64_t seed,
		   int64_t *memb, char *err)
{
	int64_t m = g->n / a;

	if (a < 1 || g->n % a != 0 || m > INT_MAX)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "treematch: cannot partition %lld processes into groups of %d",
			      (long long)g->n, a);
	int64_t *size = tm_alloc(m, sizeof(*size));
	int64_t *part = tm_alloc(g->n, sizeof(*part));
	int rc = TOPOMATCH_OK;
	if (!size || !part) {
		rc = oom(err);
		goto out;
	}
	for (int64_t h = 0; h < m; h++)
		size[h] = a;
	tm_part_opts_t o;
	tm_part_opts_init(&o, seed, c->deadline);
	o.strategy = g->n <= LEAN_KPART_MAX ? TM_PART_LEAN : TM_PART_RECURSIVE;
	o.memo = c->memo;
	rc = tm_partition_exact_opts(g, (int)m, size, &o, part, err);
	if (rc == TOPOMATCH_OK && tm_ctx_expired(c))
		rc = tm_err(err, TOPOMATCH_EBUDGET, "treematch: time budget exceeded");
	if (rc == TOPOMATCH_OK)
		rc = to_memb(g->n, a, part, memb, err);
out:
	free(size);
	free(part);
	return rc;
}

/* ------------------------------------------------------------------ */
/* TopoMatch Alg. 1                                                    */
/* ------------------------------------------------------------------ */

static int group_trivial(int64_t n, int64_t *memb)
{
	for (int64_t v = 0; v < n; v++)
		memb[v] = v;
	return TOPOMATCH_OK;
}

int tm_group(const tm_map_ctx_t *c, const tm_wgraph_t *g, int a, uint64_t seed,
	     int64_t *memb, int *strategy, char *err)
{
	if (a < 1 || g->n < 1 || g->n % a != 0)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "treematch: cannot group %lld processes by %d", (long long)g->n, a);
	int s = tm_group_choose(g->n, a, c->tau);
	if (strategy)
		*strategy = s;
	switch (s) {
	case TM_GROUP_EXHAUSTIVE:
		return tm_group_exhaustive(c, g, a, memb, err);
	case TM_GROUP_BUCKET:
		return tm_group_bucket(c, g, seed, memb, err);
	case TM_GROUP_FAST:
		return tm_group_fast(c, g, a, memb, err);
	case TM_GROUP_KPART:
		return tm_group_kpart(c, g, a, seed, memb, err);
	default:
		return group_trivial(g->n, memb);
	}
}

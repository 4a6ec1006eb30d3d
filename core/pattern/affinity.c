/*
 * affinity.c - the affinity object: directed C and symmetric A = C + C^T,
 * both in CSR, built from collected (src, dst, w) entries.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/tm_internal.h"
#include "pattern_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct csr {
	int64_t *rowptr;
	int64_t *col;
	double *w;
};

struct topomatch_affinity {
	int64_t n;
	struct csr c; /* directed, as read */
	struct csr a; /* symmetric */
	double *loads;
	double total;
};

static void csr_free(struct csr *m)
{
	free(m->rowptr);
	free(m->col);
	free(m->w);
	memset(m, 0, sizeof(*m));
}

/* Sort each row's (col, w) pairs by column: insertion sort for short rows,
 * heap sort otherwise (no recursion, no allocation, deterministic). */
static void sift(int64_t *col, double *w, int64_t root, int64_t end)
{
	while (2 * root + 1 < end) {
		int64_t child = 2 * root + 1;
		if (child + 1 < end && col[child + 1] > col[child])
			child++;
		if (col[root] >= col[child])
			return;
		int64_t tc = col[root];
		col[root] = col[child];
		col[child] = tc;
		double tw = w[root];
		w[root] = w[child];
		w[child] = tw;
		root = child;
	}
}

static bool row_sorted(const int64_t *col, int64_t len)
{
	for (int64_t i = 1; i < len; i++)
		if (col[i - 1] > col[i])
			return false;
	return true;
}

static void sort_row(int64_t *col, double *w, int64_t len)
{
	/* readers and generators mostly emit rows in order already */
	if (row_sorted(col, len))
		return;
	if (len <= 32) {
		for (int64_t i = 1; i < len; i++) {
			int64_t c = col[i];
			double x = w[i];
			int64_t j = i;
			for (; j > 0 && col[j - 1] > c; j--) {
				col[j] = col[j - 1];
				w[j] = w[j - 1];
			}
			col[j] = c;
			w[j] = x;
		}
		return;
	}
	for (int64_t i = len / 2 - 1; i >= 0; i--)
		sift(col, w, i, len);
	for (int64_t e = len - 1; e > 0; e--) {
		int64_t tc = col[0];
		col[0] = col[e];
		col[e] = tc;
		double tw = w[0];
		w[0] = w[e];
		w[e] = tw;
		sift(col, w, 0, e);
	}
}

/*
 * Counting-sort entries into rows (dropping diagonal and zero weights),
 * sort each row, sum duplicate columns, compact.  With `both`, each entry
 * is also stored transposed (this builds A = C + C^T).
 */
static int csr_build(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
		     const double *w, bool both, struct csr *out)
{
	int64_t rows; /* n + 1, and n may be anything a caller's limits allow */
	int64_t *rowptr = tm_add_ok(n, 1, &rows) ? tm_zalloc(rows, sizeof(*rowptr)) : NULL;
	if (!rowptr)
		return TOPOMATCH_ENOMEM;
	for (int64_t k = 0; k < m; k++) {
		if (src[k] == dst[k] || w[k] == 0.0)
			continue;
		rowptr[src[k] + 1]++;
		if (both)
			rowptr[dst[k] + 1]++;
	}
	for (int64_t i = 0; i < n; i++)
		rowptr[i + 1] += rowptr[i];
	int64_t nnz = rowptr[n];
	int64_t *col = tm_alloc(nnz, sizeof(*col));
	double *ww = tm_alloc(nnz, sizeof(*ww));
	int64_t *fill = tm_alloc(n, sizeof(*fill));
	if (!col || !ww || !fill) {
		free(rowptr);
		free(col);
		free(ww);
		free(fill);
		return TOPOMATCH_ENOMEM;
	}
	memcpy(fill, rowptr, (size_t)n * sizeof(*fill));
	for (int64_t k = 0; k < m; k++) {
		if (src[k] == dst[k] || w[k] == 0.0)
			continue;
		int64_t p = fill[src[k]]++;
		col[p] = dst[k];
		ww[p] = w[k];
		if (both) {
			p = fill[dst[k]]++;
			col[p] = src[k];
			ww[p] = w[k];
		}
	}
	free(fill);
	/* sort rows and merge duplicates in place */
	int64_t outp = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t b = rowptr[i], e = rowptr[i + 1];
		sort_row(col + b, ww + b, e - b);
		rowptr[i] = outp;
		for (int64_t k = b; k < e; k++) {
			if (outp > rowptr[i] && col[outp - 1] == col[k]) {
				ww[outp - 1] += ww[k];
			} else {
				col[outp] = col[k];
				ww[outp] = ww[k];
				outp++;
			}
		}
	}
	rowptr[n] = outp;
	out->rowptr = rowptr;
	out->col = col;
	out->w = ww;
	return TOPOMATCH_OK;
}

/* A's weights are sums of C's in both directions: checking A covers C. */
static bool csr_finite(int64_t n, const struct csr *m)
{
	for (int64_t k = 0; k < m->rowptr[n]; k++)
		if (!isfinite(m->w[k]))
			return false;
	return true;
}

int tm_affinity_from_coo(int64_t ntasks, const tm_coo_t *coo, const double *loads,
			 topomatch_affinity_t **out, char *err)
{
	return topomatch_affinity_create(ntasks, coo->n, coo->src, coo->dst, coo->w, loads,
					 out, err);
}

int topomatch_affinity_create(int64_t ntasks, int64_t nentries, const int64_t *src,
			      const int64_t *dst, const double *w, const double *loads,
			      topomatch_affinity_t **out, char *err)
{
	*out = NULL;
	if (ntasks <= 0)
		return tm_err(err, TOPOMATCH_EINVAL, "a pattern needs at least one task (got %lld)",
			      (long long)ntasks);
	if (nentries < 0 || (nentries > 0 && (!src || !dst || !w)))
		return tm_err(err, TOPOMATCH_EINVAL, "invalid entry arrays");
	double total = 0.0;
	for (int64_t k = 0; k < nentries; k++) {
		if (src[k] < 0 || src[k] >= ntasks || dst[k] < 0 || dst[k] >= ntasks)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "entry %lld: task index out of range [0, %lld)",
				      (long long)k, (long long)ntasks);
		if (!isfinite(w[k]) || w[k] < 0.0)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "entry %lld: weight must be finite and >= 0", (long long)k);
		if (src[k] != dst[k])
			total += w[k];
	}
	if (loads)
		for (int64_t i = 0; i < ntasks; i++)
			if (!isfinite(loads[i]) || loads[i] < 0.0)
				return tm_err(err, TOPOMATCH_EINVAL,
					      "task %lld: load must be finite and >= 0",
					      (long long)i);
	topomatch_affinity_t *a = calloc(1, sizeof(*a));
	if (!a)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	a->n = ntasks;
	a->total = total;
	int rc = csr_build(ntasks, nentries, src, dst, w, false, &a->c);
	if (rc == TOPOMATCH_OK)
		rc = csr_build(ntasks, nentries, src, dst, w, true, &a->a);
	if (rc == TOPOMATCH_OK && loads) {
		a->loads = tm_alloc(ntasks, sizeof(double));
		if (!a->loads)
			rc = TOPOMATCH_ENOMEM;
		else
			memcpy(a->loads, loads, (size_t)ntasks * sizeof(double));
	}
	if (rc != TOPOMATCH_OK) {
		topomatch_affinity_destroy(a);
		return tm_err(err, rc, "out of memory building a %lld-task pattern",
			      (long long)ntasks);
	}
	/* every weight is finite, but duplicates and C + C^T add them up */
	if (!isfinite(total) || !csr_finite(ntasks, &a->a)) {
		topomatch_affinity_destroy(a);
		return tm_err(err, TOPOMATCH_EINVAL, "weights sum to more than the largest double");
	}
	*out = a;
	return TOPOMATCH_OK;
}

void topomatch_affinity_destroy(topomatch_affinity_t *a)
{
	if (!a)
		return;
	csr_free(&a->c);
	csr_free(&a->a);
	free(a->loads);
	free(a);
}

int64_t topomatch_affinity_ntasks(const topomatch_affinity_t *a)
{
	return a->n;
}

int64_t topomatch_affinity_nnz(const topomatch_affinity_t *a)
{
	return a->c.rowptr[a->n];
}

const double *topomatch_affinity_loads(const topomatch_affinity_t *a)
{
	return a->loads;
}

double topomatch_affinity_total(const topomatch_affinity_t *a)
{
	return a->total;
}

static topomatch_csr_t view(int64_t n, const struct csr *m)
{
	topomatch_csr_t v = { n, m->rowptr, m->col, m->w };
	return v;
}

topomatch_csr_t topomatch_affinity_directed(const topomatch_affinity_t *a)
{
	return view(a->n, &a->c);
}

topomatch_csr_t topomatch_affinity_symmetric(const topomatch_affinity_t *a)
{
	return view(a->n, &a->a);
}

/*
 * ipq.h - an indexed binary heap of vertices 0..n-1: each vertex sits in
 * it at most once and is moved in place when its key changes, so frequent
 * key updates cost O(log n) sift steps and leave no stale entries.  Shared
 * by the greedy partitioner (partition.c) and TreeMatch's fast grouping
 * (treematch_group.c); the functions are inline because they are the inner
 * loops of both.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_IPQ_H
#define TM_IPQ_H

#include "base/tm_internal.h"

#include <stdbool.h>
#include <stdlib.h>

/*
 * Orders, ties always to the lower vertex:
 *  GROW   largest att[], then smallest rdeg[]
 *  SEED   largest rdeg[]
 *  LOOSE  smallest rdeg[]
 * The heap reads the key arrays it was given; after changing a vertex's
 * key, call tm_ipq_fix() on it.
 */
enum { TM_IPQ_GROW, TM_IPQ_SEED, TM_IPQ_LOOSE };

typedef struct tm_ipq {
	int64_t *heap;
	int64_t *pos; /* index in heap[], or -1 */
	int64_t n;
	int order;
	const double *att, *rdeg;
} tm_ipq_t;

static inline bool tm_ipq_before(const tm_ipq_t *h, int64_t a, int64_t b)
{
	if (h->order == TM_IPQ_GROW && h->att[a] != h->att[b])
		return h->att[a] > h->att[b];
	if (h->rdeg[a] != h->rdeg[b])
		return h->order == TM_IPQ_SEED ? h->rdeg[a] > h->rdeg[b] : h->rdeg[a] < h->rdeg[b];
	return a < b;
}

static inline void tm_ipq_place(tm_ipq_t *h, int64_t i, int64_t v)
{
	h->heap[i] = v;
	h->pos[v] = i;
}

static inline void tm_ipq_up(tm_ipq_t *h, int64_t i)
{
	int64_t v = h->heap[i];
	while (i > 0 && tm_ipq_before(h, v, h->heap[(i - 1) / 2])) {
		tm_ipq_place(h, i, h->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	tm_ipq_place(h, i, v);
}

static inline void tm_ipq_down(tm_ipq_t *h, int64_t i)
{
	int64_t v = h->heap[i];
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && tm_ipq_before(h, h->heap[c + 1], h->heap[c]))
			c++;
		if (!tm_ipq_before(h, h->heap[c], v))
			break;
		tm_ipq_place(h, i, h->heap[c]);
		i = c;
	}
	tm_ipq_place(h, i, v);
}

/* Insert v, or restore the order after its key changed. */
static inline void tm_ipq_fix(tm_ipq_t *h, int64_t v)
{
	if (h->pos[v] < 0) {
		tm_ipq_place(h, h->n++, v);
		tm_ipq_up(h, h->n - 1);
		return;
	}
	tm_ipq_up(h, h->pos[v]);
	tm_ipq_down(h, h->pos[v]);
}

static inline void tm_ipq_remove(tm_ipq_t *h, int64_t v)
{
	int64_t i = h->pos[v];
	if (i < 0)
		return;
	h->pos[v] = -1;
	int64_t last = h->heap[--h->n];
	if (i == h->n)
		return;
	tm_ipq_place(h, i, last);
	tm_ipq_fix(h, last);
}

static inline int tm_ipq_init(tm_ipq_t *h, int64_t n, int order, const double *att,
			      const double *rdeg)
{
	*h = (tm_ipq_t){ .order = order, .att = att, .rdeg = rdeg };
	h->heap = tm_alloc(n, sizeof(*h->heap));
	h->pos = tm_alloc(n, sizeof(*h->pos));
	if (!h->heap || !h->pos)
		return TOPOMATCH_ENOMEM;
	for (int64_t v = 0; v < n; v++)
		h->pos[v] = -1;
	return TOPOMATCH_OK;
}

static inline void tm_ipq_free(tm_ipq_t *h)
{
	free(h->heap);
	free(h->pos);
}

#endif /* TM_IPQ_H */

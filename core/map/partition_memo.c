/*
 * partition_memo.c - partitions computed once, given again
 * (topomatch_memo_t, topomatch.h).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * TOPOMATCHCONST (TopoMatch Alg. 3 line 4) partitions the tasks below
 * every tree node it walks, and a scheduler maps the same patterns again
 * and again: the node choice, the mapping on the nodes chosen, the check
 * on cons_tres' nodes, the next job of the same kind and size.  On the
 * Curie trace's first 3,000 jobs, 123,342 of 153,818 partitions had the
 * input of an earlier one (16.4 of the 30.8 s partitioning took), 3.6 s
 * of them within one mapping and 12.5 s across mappings.
 *
 * A partition is a pure function of its input (graph, part sizes, seed
 * and options; Scotch runs with the seed in its own context), so the
 * memo changes no result: an entry is the whole input, compared in full
 * on a lookup (the hash only finds it), and a partition is kept only when
 * no deadline cut a step short (tm_partition_exact_opts decides).  The
 * least recently used entries leave once max_bytes is reached.  One mutex:
 * mappings on several threads may share a memo.
 */
#include "config.h"
#include "partition.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_entry {
	struct memo_entry *chain; /* same bucket */
	struct memo_entry *older, *newer; /* by last use */
	uint64_t hash;
	size_t bytes;
	tm_part_key_t key;	  /* arrays point into this entry's block */
	int64_t *part;
} memo_entry_t;

struct topomatch_memo {
	pthread_mutex_t mu;
	size_t max_bytes, bytes;
	memo_entry_t **bucket;
	size_t nbuckets, count;
	memo_entry_t *oldest, *newest;
	uint64_t hits, misses;
};

#define MEMO_MIN_BUCKETS 1024

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_ints(uint64_t h, const int64_t *v, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		h = mix(h, (uint64_t)v[i]);
	return h;
}

static uint64_t mix_doubles(uint64_t h, const double *v, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		uint64_t x;
		memcpy(&x, &v[i], sizeof(x));
		h = mix(h, x);
	}
	return h;
}

static int64_t key_nnz(const tm_part_key_t *k)
{
	return k->g->rowptr[k->g->n] - k->g->rowptr[0];
}

uint64_t tm_part_key_hash(const tm_part_key_t *k)
{
	const tm_wgraph_t *g = k->g;
	int64_t nnz = key_nnz(k);
	uint64_t h = mix(mix(mix(0, (uint64_t)g->n), (uint64_t)k->k), (uint64_t)nnz);
	h = mix(mix(h, k->seed), (uint64_t)k->flags);
	h = mix_doubles(h, &k->balance, 1);
	h = mix_ints(h, k->size, k->k);
	for (int64_t v = 0; v <= g->n; v++)
		h = mix(h, (uint64_t)(g->rowptr[v] - g->rowptr[0]));
	h = mix_ints(h, g->col + g->rowptr[0], nnz);
	h = mix_doubles(h, g->w + g->rowptr[0], nnz);
	h = mix(h, g->vw != NULL);
	return g->vw ? mix_doubles(h, g->vw, g->n) : h;
}

static bool same(const void *a, const void *b, size_t bytes)
{
	return bytes == 0 || memcmp(a, b, bytes) == 0;
}

static bool key_equal(const tm_part_key_t *a, const tm_part_key_t *b)
{
	const tm_wgraph_t *x = a->g, *y = b->g;
	int64_t nnz = key_nnz(a);
	if (x->n != y->n || a->k != b->k || nnz != key_nnz(b) || a->seed != b->seed ||
	    a->flags != b->flags || memcmp(&a->balance, &b->balance, sizeof(a->balance)) ||
	    (x->vw == NULL) != (y->vw == NULL))
		return false;
	/* rowptr compared as offsets from its first entry: a graph's rows may
	 * start anywhere in its arrays */
	for (int64_t v = 0; v <= x->n; v++)
		if (x->rowptr[v] - x->rowptr[0] != y->rowptr[v] - y->rowptr[0])
			return false;
	return same(a->size, b->size, (size_t)a->k * sizeof(int64_t)) &&
	       same(x->col + x->rowptr[0], y->col + y->rowptr[0], (size_t)nnz * sizeof(int64_t)) &&
	       same(x->w + x->rowptr[0], y->w + y->rowptr[0], (size_t)nnz * sizeof(double)) &&
	       (!x->vw || same(x->vw, y->vw, (size_t)x->n * sizeof(double)));
}

int topomatch_memo_create(size_t max_bytes, topomatch_memo_t **out, char *err)
{
	*out = NULL;
	topomatch_memo_t *m = calloc(1, sizeof(*m));
	if (m)
		m->bucket = calloc(MEMO_MIN_BUCKETS, sizeof(*m->bucket));
	if (!m || !m->bucket) {
		free(m);
		return tm_err(err, TOPOMATCH_ENOMEM, "memo: out of memory");
	}
	if (pthread_mutex_init(&m->mu, NULL)) {
		free(m->bucket);
		free(m);
		return tm_err(err, TOPOMATCH_ENOMEM, "memo: cannot create its mutex");
	}
	m->nbuckets = MEMO_MIN_BUCKETS;
	m->max_bytes = max_bytes;
	*out = m;
	return TOPOMATCH_OK;
}

void topomatch_memo_destroy(topomatch_memo_t *m)
{
	if (!m)
		return;
	for (memo_entry_t *e = m->oldest, *next; e; e = next) {
		next = e->newer;
		free(e);
	}
	pthread_mutex_destroy(&m->mu);
	free(m->bucket);
	free(m);
}

void topomatch_memo_stats(topomatch_memo_t *m, topomatch_memo_stats_t *out)
{
	pthread_mutex_lock(&m->mu);
	*out = (topomatch_memo_stats_t){ .hits = m->hits, .misses = m->misses,
					 .entries = m->count, .bytes = m->bytes };
	pthread_mutex_unlock(&m->mu);
}

static memo_entry_t *find(const topomatch_memo_t *m, const tm_part_key_t *k, uint64_t h)
{
	for (memo_entry_t *e = m->bucket[h & (m->nbuckets - 1)]; e; e = e->chain)
		if (e->hash == h && key_equal(&e->key, k))
			return e;
	return NULL;
}

static void list_unlink(topomatch_memo_t *m, memo_entry_t *e)
{
	*(e->older ? &e->older->newer : &m->oldest) = e->newer;
	*(e->newer ? &e->newer->older : &m->newest) = e->older;
}

static void list_push(topomatch_memo_t *m, memo_entry_t *e)
{
	e->older = m->newest;
	e->newer = NULL;
	*(m->newest ? &m->newest->newer : &m->oldest) = e;
	m->newest = e;
}

bool tm_part_memo_get(topomatch_memo_t *m, const tm_part_key_t *k, uint64_t h, int64_t *part)
{
	pthread_mutex_lock(&m->mu);
	memo_entry_t *e = find(m, k, h);
	if (e) {
		memcpy(part, e->part, (size_t)k->g->n * sizeof(*part));
		list_unlink(m, e);
		list_push(m, e);
	}
	m->hits += e != NULL;
	m->misses += e == NULL;
	pthread_mutex_unlock(&m->mu);
	return e != NULL;
}

static void unlink_oldest(topomatch_memo_t *m)
{
	memo_entry_t *e = m->oldest, **p = &m->bucket[e->hash & (m->nbuckets - 1)];
	while (*p != e)
		p = &(*p)->chain;
	*p = e->chain;
	list_unlink(m, e);
	m->bytes -= e->bytes;
	m->count--;
	free(e);
}

/* Twice the buckets once entries outnumber them; left as it is when
 * memory is short (chains only grow longer). */
static void grow(topomatch_memo_t *m)
{
	size_t nb = 2 * m->nbuckets;
	memo_entry_t **b = calloc(nb, sizeof(*b));
	if (!b)
		return;
	for (memo_entry_t *e = m->oldest; e; e = e->newer) {
		e->chain = b[e->hash & (nb - 1)];
		b[e->hash & (nb - 1)] = e;
	}
	free(m->bucket);
	m->bucket = b;
	m->nbuckets = nb;
}

/* One block: the entry, its graph, then the arrays 8-byte aligned. */
static memo_entry_t *entry_new(const tm_part_key_t *k, uint64_t h, const int64_t *part)
{
	const tm_wgraph_t *g = k->g;
	int64_t n = g->n, nnz = key_nnz(k), nvw = g->vw ? n : 0;
	size_t words = (size_t)(k->k + (n + 1) + nnz + nnz + nvw + n);
	size_t bytes = sizeof(memo_entry_t) + sizeof(tm_wgraph_t) + words * 8;
	memo_entry_t *e = malloc(bytes);
	if (!e)
		return NULL;
	tm_wgraph_t *eg = (tm_wgraph_t *)(e + 1);
	int64_t *size = (int64_t *)(eg + 1), *rowptr = size + k->k, *col = rowptr + n + 1;
	double *w = (double *)(col + nnz), *vw = w + nnz;
	int64_t *epart = (int64_t *)(vw + nvw);
	memcpy(size, k->size, (size_t)k->k * sizeof(*size));
	for (int64_t v = 0; v <= n; v++)
		rowptr[v] = g->rowptr[v] - g->rowptr[0];
	memcpy(col, g->col + g->rowptr[0], (size_t)nnz * sizeof(*col));
	memcpy(w, g->w + g->rowptr[0], (size_t)nnz * sizeof(*w));
	if (g->vw)
		memcpy(vw, g->vw, (size_t)n * sizeof(*vw));
	memcpy(epart, part, (size_t)n * sizeof(*epart));
	*eg = (tm_wgraph_t){ .n = n, .rowptr = rowptr, .col = col, .w = w,
			     .vw = g->vw ? vw : NULL };
	*e = (memo_entry_t){ .hash = h, .bytes = bytes, .key = *k, .part = epart };
	e->key.g = eg;
	e->key.size = size;
	return e;
}

void tm_part_memo_put(topomatch_memo_t *m, const tm_part_key_t *k, uint64_t h,
		      const int64_t *part)
{
	memo_entry_t *e = entry_new(k, h, part);
	if (!e)
		return; /* a memo only saves time: nothing is lost */
	pthread_mutex_lock(&m->mu);
	if (e->bytes > m->max_bytes || find(m, k, h)) {
		pthread_mutex_unlock(&m->mu);
		free(e);
		return;
	}
	while (m->oldest && m->bytes + e->bytes > m->max_bytes)
		unlink_oldest(m);
	if (m->count >= m->nbuckets)
		grow(m);
	e->chain = m->bucket[h & (m->nbuckets - 1)];
	m->bucket[h & (m->nbuckets - 1)] = e;
	list_push(m, e);
	m->bytes += e->bytes;
	m->count++;
	pthread_mutex_unlock(&m->mu);
}

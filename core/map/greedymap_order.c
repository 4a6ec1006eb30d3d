/*
 * greedymap_order.c - the task lists of GreedyMap (Galvez, Jain, Kale,
 * ICS 2017, §4.5): "the order in which GreedyMap processes the tasks".
 *
 *  OO       tasks in application order;
 *  BFS      breadth-first (a bandwidth reduction of the task graph, as
 *           Cuthill-McKee [22]: from a peripheral task, the one of least
 *           weighted degree); neighbours heaviest first, ties to the lower
 *           task; the next component from its least connected task;
 *  BFS-DFS  depth-first along the heaviest edge to an unlisted task;
 *           when none is left, breadth-first: the earliest discovered
 *           task not listed yet;
 *  GPART    a min edge-cut partition into as many parts as the tasks
 *           fill nodes (Scotch, made exact: tm_partition_exact); tasks of
 *           one part consecutive, parts in greedy order of communication
 *           with the parts already listed, tasks of a part in BFS order.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "eagermap_internal.h"
#include "greedymap_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct wnb {
	double w;
	int64_t v;
} wnb_t;

static int oom(char *err)
{
	return tm_err(err, TOPOMATCH_ENOMEM, "greedymap: out of memory for a task list");
}

static int cmp_wnb(const void *x, const void *y)
{
	const wnb_t *a = x, *b = y;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

/* v's neighbours whose flag is 0, heaviest first. */
static int64_t fresh_neighbours(const topomatch_csr_t *a, int64_t v, const unsigned char *flag,
				wnb_t *buf)
{
	int64_t k = 0;
	for (int64_t e = a->rowptr[v]; e < a->rowptr[v + 1]; e++)
		if (!flag[a->col[e]])
			buf[k++] = (wnb_t){ a->w[e], a->col[e] };
	qsort(buf, (size_t)k, sizeof(*buf), cmp_wnb);
	return k;
}

/* Tasks by weighted degree, least first (ties: lower task), and a
 * cursor: Cuthill-McKee's starts. */
typedef struct starts {
	wnb_t *by; /* w = degree, v = task */
	int64_t next;
} starts_t;

static int cmp_wnb_asc(const void *x, const void *y)
{
	const wnb_t *a = x, *b = y;
	if (a->w != b->w)
		return a->w < b->w ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

static wnb_t *by_degree(const topomatch_csr_t *a)
{
	wnb_t *by = tm_alloc(a->n, sizeof(*by));
	for (int64_t v = 0; by && v < a->n; v++) {
		by[v] = (wnb_t){ 0.0, v };
		for (int64_t e = a->rowptr[v]; e < a->rowptr[v + 1]; e++)
			by[v].w += a->w[e];
	}
	if (by)
		qsort(by, (size_t)a->n, sizeof(*by), cmp_wnb_asc);
	return by;
}

/* The least connected task whose flag is 0. */
static int64_t peripheral(starts_t *st, const unsigned char *flag)
{
	while (flag[st->by[st->next].v])
		st->next++;
	return st->by[st->next].v;
}

static int64_t max_degree(const topomatch_csr_t *a)
{
	int64_t d = 0;
	for (int64_t v = 0; v < a->n; v++)
		if (a->rowptr[v + 1] - a->rowptr[v] > d)
			d = a->rowptr[v + 1] - a->rowptr[v];
	return d;
}

/* §4.5 (1) OO: "tasks in original (application) order". */
static void order_oo(int64_t n, int64_t *out)
{
	for (int64_t t = 0; t < n; t++)
		out[t] = t;
}

/* §4.5 (2) BFS: "starting from one of the tasks, tasks are inserted in
 * the list by performing a breadth-first traversal"; the queue is the
 * list. */
static void order_bfs(const topomatch_csr_t *a, starts_t *st, unsigned char *seen, wnb_t *buf,
		      int64_t *q)
{
	int64_t head = 0, tail = 0;
	while (tail < a->n) {
		if (head == tail) { /* a new component */
			int64_t s = peripheral(st, seen);
			seen[s] = 1;
			q[tail++] = s;
		}
		int64_t v = q[head++], k = fresh_neighbours(a, v, seen, buf);
		for (int64_t i = 0; i < k; i++) {
			seen[buf[i].v] = 1;
			q[tail++] = buf[i].v;
		}
	}
}

/* §4.5 (3) BFS-DFS: "paths in the task graph are explored in a
 * depth-first manner.  When the depth-first search cannot progress,
 * breadth-first search is used to pick the next task": follow the
 * heaviest edge; at a dead end, the oldest task discovered and not
 * listed. */
static void order_bfsdfs(const topomatch_csr_t *a, starts_t *st, unsigned char *listed,
			 unsigned char *queued, wnb_t *buf, int64_t *fifo, int64_t *out)
{
	int64_t head = 0, tail = 0, cur = peripheral(st, listed);
	for (int64_t i = 0; i < a->n; i++) {
		out[i] = cur;
		listed[cur] = 1;
		int64_t k = fresh_neighbours(a, cur, listed, buf);
		for (int64_t j = 0; j < k; j++)
			if (!queued[buf[j].v]) {
				queued[buf[j].v] = 1;
				fifo[tail++] = buf[j].v;
			}
		if (i + 1 == a->n)
			break;
		if (k > 0) {
			cur = buf[0].v;
			continue;
		}
		while (head < tail && listed[fifo[head]])
			head++;
		if (head < tail) {
			cur = fifo[head++];
			continue;
		}
		cur = peripheral(st, listed);
	}
}

static int build_simple(const topomatch_csr_t *a, int order, int64_t *out, char *err)
{
	int64_t n = a->n;
	unsigned char *f1 = tm_zalloc(n, 1), *f2 = tm_zalloc(n, 1);
	wnb_t *buf = tm_alloc(max_degree(a), sizeof(*buf));
	int64_t *fifo = tm_alloc(n, sizeof(*fifo));
	starts_t st = { by_degree(a), 0 };
	int rc = TOPOMATCH_OK;
	if (!f1 || !f2 || !buf || !fifo || !st.by)
		rc = oom(err);
	else if (order == GM_BFS)
		order_bfs(a, &st, f1, buf, out);
	else
		order_bfsdfs(a, &st, f1, f2, buf, fifo, out);
	free(st.by);
	free(f1);
	free(f2);
	free(buf);
	free(fifo);
	return rc;
}

/* ---------------------------------------------------------------- GPART */

int64_t gm_gpart_parts(const gm_shared_t *sh)
{
	const tm_map_ctx_t *c = sh->c;
	double per_node = (double)c->m * (double)c->f / (double)sh->nd.n;
	double k = (double)c->ntasks / per_node;
	int64_t parts = (int64_t)k + ((double)(int64_t)k < k);
	if (parts < 2 || 2 * parts > c->ntasks || parts > INT32_MAX)
		return 0;
	return parts;
}

/* Parts in greedy order: from the part of the first task of `first`,
 * the part that communicates most with those listed (ties: lower part). */
static void order_parts(const tm_wgraph_t *q, int64_t start, double *pw, unsigned char *done,
			int64_t *rank)
{
	int64_t k = q->n, cur = start, lowest = 0;
	for (int64_t r = 0; r < k; r++) {
		rank[cur] = r;
		done[cur] = 1;
		for (int64_t e = q->rowptr[cur]; e < q->rowptr[cur + 1]; e++)
			pw[q->col[e]] += q->w[e];
		int64_t best = -1;
		for (int64_t p = 0; p < k; p++)
			if (!done[p] && pw[p] > 0 && (best < 0 || pw[p] > pw[best]))
				best = p;
		if (best < 0) {
			while (lowest < k && done[lowest])
				lowest++;
			best = lowest;
		}
		cur = best;
	}
}

/* The parts as EagerMap groups, for RecreateMatrix (Alg. 4 of EagerMap:
 * the same sparse aggregation). */
static int part_groups(const int64_t *part, int64_t n, int64_t k, em_groups_t *gr)
{
	memset(gr, 0, sizeof(*gr));
	gr->ng = k;
	gr->gptr = tm_zalloc(k + 1, sizeof(*gr->gptr));
	gr->memb = tm_alloc(n, sizeof(*gr->memb));
	int64_t *fill = tm_alloc(k, sizeof(*fill));
	if (!gr->gptr || !gr->memb || !fill) {
		free(fill);
		em_groups_free(gr);
		return TOPOMATCH_ENOMEM;
	}
	for (int64_t t = 0; t < n; t++)
		gr->gptr[part[t] + 1]++;
	for (int64_t p = 0; p < k; p++) {
		gr->gptr[p + 1] += gr->gptr[p];
		fill[p] = gr->gptr[p];
	}
	for (int64_t t = 0; t < n; t++)
		gr->memb[fill[part[t]]++] = t;
	free(fill);
	return TOPOMATCH_OK;
}

/* The BFS list, stably sorted by the rank of each task's part. */
static int sort_by_part(const int64_t *bfs, const int64_t *part, const int64_t *rank,
			int64_t n, int64_t k, int64_t *out)
{
	int64_t *pos = tm_zalloc(k + 1, sizeof(*pos));
	if (!pos)
		return TOPOMATCH_ENOMEM;
	for (int64_t t = 0; t < n; t++)
		pos[rank[part[t]] + 1]++;
	for (int64_t r = 0; r < k; r++)
		pos[r + 1] += pos[r];
	for (int64_t i = 0; i < n; i++)
		out[pos[rank[part[bfs[i]]]]++] = bfs[i];
	free(pos);
	return TOPOMATCH_OK;
}

static int rank_parts(const gm_shared_t *sh, const int64_t *part, int64_t k, int64_t *rank,
		      char *err)
{
	tm_wgraph_t g = { sh->a.n, sh->a.rowptr, sh->a.col, sh->a.w, NULL };
	em_groups_t gr;
	em_graph_t q;
	if (part_groups(part, sh->a.n, k, &gr) != TOPOMATCH_OK)
		return oom(err);
	int rc = em_recreate(&g, &gr, &q, err);
	em_groups_free(&gr);
	if (rc != TOPOMATCH_OK)
		return rc;
	double *pw = tm_zalloc(k, sizeof(*pw));
	unsigned char *done = tm_zalloc(k, 1);
	if (pw && done)
		order_parts(&q.g, part[sh->order[GM_BFS][0]], pw, done, rank);
	else
		rc = oom(err);
	free(pw);
	free(done);
	em_graph_free(&q);
	return rc;
}

/* §4.5 (4) GPART: "partitioned into a set of N (the number of allocated
 * nodes) partitions that minimize edge-cut ... tasks that are in the same
 * partition into consecutive positions". */
static int build_gpart(gm_shared_t *sh, int64_t *out, char *err)
{
	const tm_map_ctx_t *c = sh->c;
	int64_t n = c->ntasks, k = gm_gpart_parts(sh);
	int rc = gm_shared_order(sh, GM_BFS, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (k == 0) { /* parts of one task: nothing to gather */
		memcpy(out, sh->order[GM_BFS], (size_t)n * sizeof(*out));
		return TOPOMATCH_OK;
	}
	int64_t *size = tm_alloc(k, sizeof(*size)), *part = tm_alloc(n, sizeof(*part));
	int64_t *rank = tm_alloc(k, sizeof(*rank));
	tm_wgraph_t g = { n, sh->a.rowptr, sh->a.col, sh->a.w, NULL };
	if (!size || !part || !rank) {
		rc = oom(err);
		goto out;
	}
	for (int64_t p = 0; p < k; p++)
		size[p] = n / k + (p < n % k);
	rc = tm_partition_exact(&g, (int)k, size, c->seed, c->deadline, part, err);
	if (rc == TOPOMATCH_OK)
		rc = rank_parts(sh, part, k, rank, err);
	if (rc == TOPOMATCH_OK && sort_by_part(sh->order[GM_BFS], part, rank, n, k, out) != 0)
		rc = oom(err);
out:
	free(size);
	free(part);
	free(rank);
	return rc;
}

int tm_order_bfs(const topomatch_csr_t *a, int64_t *out, char *err)
{
	return build_simple(a, GM_BFS, out, err);
}

int gm_shared_order(gm_shared_t *sh, int order, char *err)
{
	if (order < 0 || order >= GM_NORDERS)
		return tm_err(err, TOPOMATCH_EINVAL, "greedymap: no task list %d", order);
	if (sh->order[order])
		return TOPOMATCH_OK;
	int64_t *out = tm_alloc(sh->c->ntasks, sizeof(*out));
	int rc = TOPOMATCH_OK;
	if (!out)
		return oom(err);
	if (order == GM_OO)
		order_oo(sh->c->ntasks, out);
	else if (order == GM_GPART)
		rc = build_gpart(sh, out, err);
	else
		rc = build_simple(&sh->a, order, out, err);
	if (rc != TOPOMATCH_OK) {
		free(out);
		return rc;
	}
	sh->order[order] = out;
	return TOPOMATCH_OK;
}

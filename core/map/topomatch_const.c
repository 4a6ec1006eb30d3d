/*
 * topomatch_const.c - TOPOMATCHCONST, TopoMatch Alg. 3 (§4.4): mapping on
 * the allowed PUs of a tree, with over- and under-subscription (§4.5).
 *
 * The tree is walked from the root.  At a node, every child subtree i can
 * take n[i] = (allowed PUs under i) x f tasks (Alg. 3 line 3; the factor f
 * is the extra leaf level of §4.5: each allowed PU holds up to f tasks).
 * The node's tasks are partitioned into parts of those sizes with the
 * least cut (line 4, tm_partition_exact: Scotch or greedy, then made
 * exact), the affinity is split accordingly (line 5: the sub-graph induced
 * by each part, kept sparse) and each child is mapped recursively with its
 * own tasks and allowed PUs (lines 6-10).  A PU takes the (at most f)
 * tasks that reach it (line 12).
 *
 * Undersubscription (§4.5, fewer tasks than sum n[i]: Slurm's usual case,
 * a job on part of its nodes' PUs) leaves a choice of how many tasks each
 * child gets.  At one node, only the cut between children matters, and
 * the rule is to gather the tasks under as few subtrees as their
 * communication justifies.  Two candidates are partitioned and the lower
 * cut wins, ties to the one that uses fewer children, then to the first
 * (the second only for jobs of up to CONST_THOROUGH_MAX_TASKS tasks):
 *
 *  1. packing: the children are filled in best-fit order (order_children:
 *     one that holds all the tasks, deepest and tightest, else the most
 *     allowed PUs first; ties: lower child number), so the tasks use as
 *     few subtrees as can hold them;
 *  2. padding (TopoMatch's zero-affinity dummy tasks): the child sizes stay
 *     n[i], clipped to the number of tasks, over the children in that
 *     order until they offer twice as many slots as there are tasks, and
 *     dummy tasks without any affinity fill the slack.  A min-cut
 *     partition then decides itself how many real tasks each child gets:
 *     for example two independent groups of 4 tasks and children of
 *     sizes 6, 4, 4 go to two children whole, where packing would cut
 *     one of them.
 *
 * Only children with at least one allowed PU are considered, so the work
 * at a node is O(allowed PUs + tasks + their edges) and memory stays
 * O(ntasks + nnz + m) (no dense matrix).  Under a leaf-parent with f = 1
 * every PU is at the same distance from the others and from the rest of
 * the tree, so tasks simply take the PUs in order.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "mapper_internal.h"
#include "topology/topology_internal.h"
#include "metrics/metrics_internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * Scotch's balance tolerance for the k_partition (Alg. 3 line 4): 0.05,
 * not the default 0.01, which ties Scotch's bipartitioning refinement to
 * the cheapest first cuts: a shuffled 16x8x8 stencil in 32 parts of 32
 * gets the 16x2x1 tiling (cut 563,200) at 0.01 and 8x4x1 (435,200) at
 * 0.05 (partition.c); on the bench's frag3-10 it took the mapping from
 * 7,793,600 hop-bytes to 7,564,800.
 */
#define CONST_BALANCE 0.05
/*
 * Jobs of up to this many tasks get every candidate partition: the
 * padded one beside the packed one (top comment), Scotch at 0.01 as well
 * as 0.05 where a graph has at most 256 vertices, and the greedy
 * partitioner beside Scotch (partition.c), the lower cut kept each time.
 * Without padding and the second balance LAMMPS's 128-rank profile lost
 * 2.2 % (bench lj-128-f30).  Larger jobs take Scotch's packed partition at
 * 0.05, the greedy one only when Scotch gives none, which §4.4 allows
 * ("either a greedy algorithm ... or the Scotch k-way partitioner"): each
 * candidate multiplies hundreds of partitions (a node's 16 tasks into 2
 * sockets cost Scotch's per-call overhead, the padded graph of a 1,024-task
 * split twice the packed one), and a 1,024-task decision on 10,240
 * torus nodes (bench/plugin_scale) took 1.5 x the time with them, past the
 * plugin's budget.  On the fragmented 1,024-task cases of tm_bench
 * (frag3-*, frag4-*, frag-1k, shuffled and natural) the greedy partitions
 * and the second balance never won; without padding the hop-bytes of
 * auto's mapping moved by -1.9 % to +0.2 % (geometric mean 0.998).
 */
#define CONST_THOROUGH_MAX_TASKS 256
/* The padding offers this many slots per task over all children. */
#define PAD_SLOTS_PER_TASK 2
/* ...and is tried only when the slack is at least 1 / PAD_MIN_SLACK of the tasks */
#define PAD_MIN_SLACK 16

typedef struct cmap {
	const tm_map_ctx_t *c;
	const topomatch_topology_t *t;
	topomatch_csr_t a;  /* A = C + C^T */
	int64_t *allowed;   /* sorted copy of c->allowed */
	int64_t *tasks;     /* permuted so that a node's tasks are contiguous */
	int64_t *loc;       /* task -> local index while a node is split, else -1 */
	int64_t *pu;
	tm_part_opts_t part; /* how every k_partition is computed */
	bool thorough;       /* ntasks <= CONST_THOROUGH_MAX_TASKS */
	char *err;
} cmap_t;

/* A child subtree that holds allowed PUs. */
typedef struct child {
	int64_t idx;      /* child number under its parent */
	int64_t alo, ahi; /* its allowed PUs: allowed[alo..ahi) */
	int64_t cap;      /* (ahi - alo) x f */
	int64_t ntask;    /* tasks given to it */
} child_t;

/* The sub-graph induced by a node's tasks, maybe followed by dummies. */
typedef struct subg {
	tm_wgraph_t g;
	int64_t *rowptr, *col;
	double *w;
	int64_t nreal;
} subg_t;

static int oom(cmap_t *s)
{
	return tm_err(s->err, TOPOMATCH_ENOMEM, "topomatch-const: out of memory");
}

/* ----------------------------------------------------- split_com_mat */

static void subg_free(subg_t *sg)
{
	free(sg->rowptr);
	free(sg->col);
	free(sg->w);
	memset(sg, 0, sizeof(*sg));
}

/* Edges of task t towards the node's tasks, appended at col/w (when not
 * NULL); returns how many. */
static int64_t induced_row(const cmap_t *s, int64_t t, int64_t *col, double *w)
{
	int64_t m = 0;
	for (int64_t e = s->a.rowptr[t]; e < s->a.rowptr[t + 1]; e++) {
		int64_t l = s->loc[s->a.col[e]];
		if (l < 0)
			continue;
		if (col) {
			col[m] = l;
			w[m] = s->a.w[e];
		}
		m++;
	}
	return m;
}

/* TopoMatch Alg. 3 line 5 (split_com_mat), sparse: the affinity among
 * tasks[0..n), with local vertex ids. */
static int subg_build(cmap_t *s, const int64_t *tasks, int64_t n, subg_t *sg)
{
	memset(sg, 0, sizeof(*sg));
	sg->nreal = n;
	sg->rowptr = tm_alloc(n + 1, sizeof(*sg->rowptr));
	if (!sg->rowptr)
		return oom(s);
	for (int64_t r = 0; r < n; r++)
		s->loc[tasks[r]] = r;
	sg->rowptr[0] = 0;
	for (int64_t r = 0; r < n; r++)
		sg->rowptr[r + 1] = sg->rowptr[r] + induced_row(s, tasks[r], NULL, NULL);
	sg->col = tm_alloc(sg->rowptr[n], sizeof(*sg->col));
	sg->w = tm_alloc(sg->rowptr[n], sizeof(*sg->w));
	for (int64_t r = 0; sg->col && sg->w && r < n; r++)
		induced_row(s, tasks[r], sg->col + sg->rowptr[r], sg->w + sg->rowptr[r]);
	for (int64_t r = 0; r < n; r++)
		s->loc[tasks[r]] = -1;
	if (!sg->col || !sg->w) {
		subg_free(sg);
		return oom(s);
	}
	sg->g = (tm_wgraph_t){ n, sg->rowptr, sg->col, sg->w, NULL };
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------- child sizes */

typedef struct ckey {
	int64_t fits, deep, cap, idx, i;
} ckey_t;

/* Sufficient children first, the deepest holder, then the tightest;
 * the others by decreasing capacity; ties to the lower child number. */
static int cmp_ckey(const void *a, const void *b)
{
	const ckey_t *x = a, *y = b;
	if (x->fits != y->fits)
		return x->fits ? -1 : 1;
	if (x->deep != y->deep)
		return x->deep > y->deep ? -1 : 1;
	if (x->cap != y->cap)
		return (x->cap > y->cap) == !x->fits ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The deepest level below the child (from depth + 1) at which one of its
 * subtrees holds n tasks: the deeper, the closer its tasks can be. */
static int64_t child_depth_holding(const cmap_t *s, int depth, const child_t *c, int64_t n)
{
	int64_t deep = depth + 1;
	for (int d = depth + 2; d <= s->t->nlevels; d++) {
		int64_t width = s->t->below[d], run = 0, prev = -1, most = 0;
		for (int64_t j = c->alo; j < c->ahi && most * s->c->f < n; j++) {
			int64_t g = s->allowed[j] / width;
			run = g == prev ? run + 1 : 1;
			prev = g;
			most = run > most ? run : most;
		}
		if (most * s->c->f < n)
			break;
		deep = d;
	}
	return deep;
}

/*
 * The order in which children are filled when they offer more room than
 * the node's n tasks (TopoMatch §4.5: "selects the best resources";
 * split_under's packing and padding): best fit, as Slurm's topology/tree
 * chooses switches (_topo_choose_best_switch):
 * among the children that hold all n tasks, the one where they can sit
 * deepest (under one switch, one node), then the one with the least room,
 * which leaves the larger free areas whole for other jobs; when none holds
 * them, the largest first.  Filling the largest first took, of two pods
 * with 2 free nodes each, the first, whose nodes hang from two leaves,
 * over two nodes under one leaf.  On tm_bench's fragmented cases (frag*,
 * *-f30, *-f60) auto's hop-bytes moved by -0.1 % to 0; on generated
 * Curie streams (topomatch sim, 3 seeds) the jobs' mean hop-bytes by
 * -0.8 % to +0.3 %, and cons_tres' own nodes beat the node choice 6 to
 * 14 % less often.
 */
static int order_children(cmap_t *s, int depth, const child_t *ch, int64_t kc, int64_t n,
			  int64_t *ord)
{
	ckey_t *key = tm_alloc(kc, sizeof(*key));
	if (!key)
		return oom(s);
	int64_t total = 0;
	for (int64_t i = 0; i < kc; i++)
		total += ch[i].cap;
	bool spare = kc > 1 && total > n; /* else the order does not matter */
	for (int64_t i = 0; i < kc; i++) {
		bool fits = ch[i].cap >= n;
		key[i] = (ckey_t){ fits, fits && spare ? child_depth_holding(s, depth, &ch[i], n) : 0,
				   ch[i].cap, ch[i].idx, i };
	}
	qsort(key, (size_t)kc, sizeof(*key), cmp_ckey);
	for (int64_t i = 0; i < kc; i++)
		ord[i] = key[i].i;
	free(key);
	return TOPOMATCH_OK;
}

/* Packing: the children in order_children's order, each filled up. */
static void sizes_packed(const child_t *ch, const int64_t *ord, int64_t kc, int64_t n,
			 int64_t *size)
{
	for (int64_t i = 0; i < kc; i++) {
		int64_t c = ord[i], take = ch[c].cap < n ? ch[c].cap : n;
		size[c] = take;
		n -= take;
	}
}

/* Padding: clipped capacities of the children in that order up to
 * PAD_SLOTS_PER_TASK x n slots; returns the number of dummies. */
static int64_t sizes_padded(const child_t *ch, const int64_t *ord, int64_t kc, int64_t n,
			    int64_t *size)
{
	int64_t slots = 0;
	for (int64_t i = 0; i < kc; i++) {
		int64_t c = ord[i];
		size[c] = 0;
		if (slots < PAD_SLOTS_PER_TASK * n) {
			size[c] = ch[c].cap < n ? ch[c].cap : n;
			slots += size[c];
		}
	}
	return slots - n;
}

static int64_t parts_used(const int64_t *part, int64_t n, int64_t kc, unsigned char *mark)
{
	int64_t used = 0;
	memset(mark, 0, (size_t)kc);
	for (int64_t v = 0; v < n; v++)
		if (!mark[part[v]]) {
			mark[part[v]] = 1;
			used++;
		}
	return used;
}

/* ------------------------------------------------------------- split */

typedef struct split {
	child_t *ch;
	int64_t kc;
	int64_t *ord;
	int64_t *size;
	int64_t *part; /* n + dummies: the child of each task */
	int64_t *alt;
	unsigned char *mark;
} split_t;

static int partition(cmap_t *s, const subg_t *sg, const split_t *sp, int64_t *part)
{
	int rc = tm_partition_exact_opts(&sg->g, (int)sp->kc, sp->size, &s->part, part, s->err);
	if (rc == TOPOMATCH_ENOMEM)
		return oom(s);
	return rc;
}

/* Append `pad` isolated dummy vertices to the sub-graph. */
static int subg_pad(cmap_t *s, subg_t *sg, int64_t pad)
{
	int64_t n = sg->nreal;
	int64_t *rp = tm_alloc(n + pad + 1, sizeof(*rp));
	if (!rp)
		return oom(s);
	memcpy(rp, sg->rowptr, ((size_t)n + 1) * sizeof(*rp));
	for (int64_t r = n; r < n + pad; r++)
		rp[r + 1] = rp[n];
	free(sg->rowptr);
	sg->rowptr = rp;
	sg->g = (tm_wgraph_t){ n + pad, rp, sg->col, sg->w, NULL };
	return TOPOMATCH_OK;
}

/* Undersubscribed node: packing against padding (see the top comment). */
static int split_under(cmap_t *s, subg_t *sg, split_t *sp)
{
	int64_t n = sg->nreal;
	sizes_packed(sp->ch, sp->ord, sp->kc, n, sp->size);
	int rc = partition(s, sg, sp, sp->part);
	if (rc != TOPOMATCH_OK)
		return rc;
	double cut = tm_partition_cut(&sg->g, sp->part);
	int64_t pad = sizes_padded(sp->ch, sp->ord, sp->kc, n, sp->size);
	/* little choice, packing is perfect, or a large job (CONST_THOROUGH_MAX_TASKS) */
	if (!s->thorough || pad * PAD_MIN_SLACK < n || cut == 0.0)
		return TOPOMATCH_OK;
	rc = subg_pad(s, sg, pad);
	if (rc == TOPOMATCH_OK)
		rc = partition(s, sg, sp, sp->alt);
	if (rc != TOPOMATCH_OK)
		return rc;
	/* dummies have no edge: the cut is the real tasks' cut */
	double padcut = tm_partition_cut(&sg->g, sp->alt);
	int64_t used = parts_used(sp->part, n, sp->kc, sp->mark);
	if (padcut < cut || (padcut == cut && parts_used(sp->alt, n, sp->kc, sp->mark) < used))
		memcpy(sp->part, sp->alt, (size_t)n * sizeof(*sp->part));
	return TOPOMATCH_OK;
}

/* Tasks that do not communicate: any split is as good, so pack them. */
static void split_silent(int64_t n, split_t *sp)
{
	int64_t r = 0;
	sizes_packed(sp->ch, sp->ord, sp->kc, n, sp->size);
	for (int64_t i = 0; i < sp->kc; i++)
		for (int64_t j = 0; j < sp->size[i]; j++)
			sp->part[r++] = i;
}

/* Choose the child of each of the node's n tasks into sp->part. */
static int split_tasks(cmap_t *s, const int64_t *tasks, int64_t n, split_t *sp)
{
	int64_t total = 0;
	for (int64_t i = 0; i < sp->kc; i++)
		total += sp->ch[i].cap; /* <= m x f, which check_ctx() bounds */
	subg_t sg;
	int rc = subg_build(s, tasks, n, &sg);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (sg.rowptr[n] == 0) {
		split_silent(n, sp);
	} else if (total == n) { /* Alg. 3 line 3: n[i] exactly */
		for (int64_t i = 0; i < sp->kc; i++)
			sp->size[i] = sp->ch[i].cap;
		rc = partition(s, &sg, sp, sp->part);
	} else {
		rc = split_under(s, &sg, sp);
	}
	subg_free(&sg);
	return rc;
}

/* ---------------------------------------------------------- recursion */

/* The children of a node that hold allowed PUs (allowed[] is sorted, so
 * each child's PUs are a contiguous run). */
static int64_t list_children(const cmap_t *s, int depth, int64_t first_pu, int64_t alo,
			     int64_t ahi, child_t *ch)
{
	int64_t width = s->t->below[depth + 1], kc = 0;
	for (int64_t j = alo; j < ahi; j++) {
		int64_t idx = (s->allowed[j] - first_pu) / width;
		if (kc == 0 || ch[kc - 1].idx != idx)
			ch[kc++] = (child_t){ idx, j, j, 0, 0 };
		ch[kc - 1].ahi = j + 1;
		ch[kc - 1].cap += s->c->f;
	}
	return kc;
}

/* Group tasks[0..n) by child (stable counting sort on part). */
static int regroup(cmap_t *s, int64_t *tasks, int64_t n, split_t *sp)
{
	int64_t *tmp = tm_alloc(n, sizeof(*tmp));
	int64_t *pos = tm_zalloc(sp->kc + 1, sizeof(*pos));
	if (!tmp || !pos) {
		free(tmp);
		free(pos);
		return oom(s);
	}
	for (int64_t r = 0; r < n; r++)
		pos[sp->part[r] + 1]++;
	for (int64_t i = 0; i < sp->kc; i++) {
		sp->ch[i].ntask = pos[i + 1];
		pos[i + 1] += pos[i];
	}
	for (int64_t r = 0; r < n; r++)
		tmp[pos[sp->part[r]]++] = tasks[r];
	memcpy(tasks, tmp, (size_t)n * sizeof(*tasks));
	free(tmp);
	free(pos);
	return TOPOMATCH_OK;
}

/* Everything but the children list, which the recursion still needs: the
 * scratch of one node is gone before its children allocate theirs. */
static void split_drop_scratch(split_t *sp)
{
	free(sp->ord);
	free(sp->size);
	free(sp->part);
	free(sp->alt);
	free(sp->mark);
	sp->ord = sp->size = sp->part = sp->alt = NULL;
	sp->mark = NULL;
}

static void split_free(split_t *sp)
{
	split_drop_scratch(sp);
	free(sp->ch);
}

/* kmax: the most children that can hold allowed PUs */
static int split_alloc(cmap_t *s, int64_t kmax, int64_t n, split_t *sp)
{
	/* dummies: at most PAD_SLOTS_PER_TASK x n slots plus one child's n */
	int64_t slots = (PAD_SLOTS_PER_TASK + 1) * n;
	memset(sp, 0, sizeof(*sp));
	sp->ch = tm_alloc(kmax, sizeof(*sp->ch));
	sp->ord = tm_alloc(kmax, sizeof(*sp->ord));
	sp->size = tm_alloc(kmax, sizeof(*sp->size));
	sp->mark = tm_alloc(kmax, 1);
	sp->part = tm_alloc(slots, sizeof(*sp->part));
	sp->alt = tm_alloc(slots, sizeof(*sp->alt));
	if (sp->ch && sp->ord && sp->size && sp->mark && sp->part && sp->alt)
		return TOPOMATCH_OK;
	split_free(sp);
	return oom(s);
}

static int map_node(cmap_t *s, int depth, int64_t first_pu, int64_t alo, int64_t ahi,
		    int64_t tlo, int64_t thi);

/* Alg. 3 lines 1-10 at an inner node. */
static int map_children(cmap_t *s, int depth, int64_t first_pu, int64_t alo, int64_t ahi,
			int64_t tlo, int64_t thi)
{
	int64_t n = thi - tlo;
	split_t sp;
	int64_t kmax = s->t->arity[depth] < ahi - alo ? s->t->arity[depth] : ahi - alo;
	int rc = split_alloc(s, kmax, n, &sp);
	if (rc != TOPOMATCH_OK)
		return rc;
	sp.kc = list_children(s, depth, first_pu, alo, ahi, sp.ch);
	rc = order_children(s, depth, sp.ch, sp.kc, n, sp.ord);
	if (rc != TOPOMATCH_OK) {
		split_free(&sp);
		return rc;
	}
	if (sp.kc == 1) {
		sp.ch[0].ntask = n;
	} else {
		rc = split_tasks(s, s->tasks + tlo, n, &sp);
		if (rc == TOPOMATCH_OK)
			rc = regroup(s, s->tasks + tlo, n, &sp);
	}
	split_drop_scratch(&sp);
	int64_t width = s->t->below[depth + 1], t0 = tlo;
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < sp.kc; i++) {
		const child_t *c = &sp.ch[i];
		rc = map_node(s, depth + 1, first_pu + c->idx * width, c->alo, c->ahi, t0,
			      t0 + c->ntask);
		t0 += c->ntask;
	}
	split_free(&sp);
	return rc;
}

static int map_node(cmap_t *s, int depth, int64_t first_pu, int64_t alo, int64_t ahi,
		    int64_t tlo, int64_t thi)
{
	if (tlo == thi)
		return TOPOMATCH_OK;
	if (tm_ctx_expired(s->c))
		return tm_err(s->err, TOPOMATCH_EBUDGET, "topomatch-const: time budget exceeded");
	if (depth == s->t->nlevels) { /* a PU: Alg. 3 line 12 */
		for (int64_t r = tlo; r < thi; r++)
			s->pu[s->tasks[r]] = first_pu;
		return TOPOMATCH_OK;
	}
	if (depth == s->t->nlevels - 1 && s->c->f == 1) { /* equivalent PUs */
		for (int64_t r = tlo; r < thi; r++)
			s->pu[s->tasks[r]] = s->allowed[alo + (r - tlo)];
		return TOPOMATCH_OK;
	}
	return map_children(s, depth, first_pu, alo, ahi, tlo, thi);
}

/* ------------------------------------------------------- node regroup */

/*
 * Top-down splitting settles the cut between the root's children first
 * and only then the cuts below it, yet hop-bytes weigh every level the
 * same (2 hops each): on a fragmented allocation of 1,024 tasks over 16
 * switches (bench frag3-10), the switch cut came out at 0.32 M and the
 * node cut at 0.58 M, where the node tiling alone allows 0.44 M.  A
 * second candidate therefore regroups bottom-up, the multilevel view of
 * TreeMatch (Euro-Par 2010, §3: groups of the leaves' size first, then
 * the groups placed as units) and of TopoMatch's grouping (JPDC 2022,
 * Alg. 1):
 *
 *  1. the tasks are partitioned straight into the nodes (subtrees at
 *     depth 2) that the top-down run used, each part as large as that
 *     node's share (Alg. 3 line 4's k_partition with n[i] the nodes'
 *     counts: the least node cut, whatever the switches);
 *  2. the parts are placed on those nodes as units: a coarse graph of
 *     the parts (the weight between two parts) and swaps of two parts of
 *     equal size between their nodes while a swap lowers the coarse
 *     hop-bytes (the cut between switches);
 *  3. each part is mapped inside its node by Alg. 3 from that node down.
 *
 * The lower hop-bytes of the two candidates win (ties: top-down), so
 * the regrouped mapping is kept only when it is better.  The parts
 * number at most REGROUP_MAX_PARTS (a k x k coarse matrix); beyond, or
 * with fewer than 3 nodes or a single switch used, the top-down mapping
 * stands.  Work: one more k-way partition of the tasks and the
 * per-node splits, about the top-down run's again, so only for jobs of
 * up to REGROUP_MAX_TASKS tasks.  Depth 2 is the nodes of the bench's
 * trees (switches, nodes, sockets, cores), where the candidate won up
 * to 2.4 % on 1,024-task fragmented cases (tm_bench frag*); on the
 * cluster trees of the select plugin it is a switch or router level, and
 * on bench/plugin_scale's clusters the candidate never won, at 1,024 nor
 * at 4,096 tasks, while 4,096 tasks on 32,768 dragonfly nodes took 1.8 x
 * the time with it (122 against 68 ms), past the 200 ms budget's margin.
 */
#define REGROUP_DEPTH 2
#define REGROUP_MAX_PARTS 256
#define REGROUP_MAX_TASKS 1024
/* Sweeps of part swaps at most; they stop when none gains.  A sweep weighs
 * k^2 / 2 swaps of O(k) each: the sweeps are also held to about
 * REGROUP_PLACE_WORK steps in all (counted, so the result does not depend
 * on the machine; a few ms), at least one. */
#define REGROUP_MAX_SWEEPS 64
#define REGROUP_PLACE_WORK (INT64_C(1) << 24)

typedef struct regroup {
	int64_t k;        /* nodes used = parts */
	int64_t *node;    /* part j's node (subtree number at REGROUP_DEPTH), sorted */
	int64_t *size;    /* tasks of the top-down run on that node */
	int64_t *alo, *ahi; /* the node's allowed PUs: allowed[alo..ahi) */
	int64_t *part;    /* task -> part */
	int64_t *at;      /* part -> the node (index into node[]) it is placed on */
	double *w;        /* k x k: weight between parts */
	int64_t *d;       /* k x k: hops between nodes */
} regroup_t;

static void regroup_free(regroup_t *r)
{
	free(r->node);
	free(r->size);
	free(r->alo);
	free(r->ahi);
	free(r->part);
	free(r->at);
	free(r->w);
	free(r->d);
}

/* The nodes the mapping pu[] uses and its task count on each; false when
 * the candidate does not apply (see above). */
static bool regroup_nodes(cmap_t *s, const int64_t *pu, regroup_t *r)
{
	const topomatch_topology_t *t = s->t;
	int64_t n = s->c->ntasks, width = t->below[REGROUP_DEPTH], top = t->below[1];
	int64_t *key = tm_alloc(n, sizeof(*key));
	if (!key)
		return false;
	for (int64_t i = 0; i < n; i++)
		key[i] = pu[i] / width;
	qsort(key, (size_t)n, sizeof(*key), tm_cmp_i64);
	int64_t k = 0, tops = 0;
	for (int64_t i = 0; i < n; i++)
		if (i == 0 || key[i] != key[i - 1]) {
			k++;
			tops += i == 0 || key[i] * width / top != key[i - 1] * width / top;
		}
	if (k < 3 || k > REGROUP_MAX_PARTS || tops < 2) {
		free(key);
		return false;
	}
	r->k = k;
	r->node = tm_alloc(k, sizeof(*r->node));
	r->size = tm_zalloc(k, sizeof(*r->size));
	r->alo = tm_alloc(k, sizeof(*r->alo));
	r->ahi = tm_alloc(k, sizeof(*r->ahi));
	r->part = tm_alloc(n, sizeof(*r->part));
	r->at = tm_alloc(k, sizeof(*r->at));
	r->w = tm_zalloc(k * k, sizeof(*r->w));
	r->d = tm_alloc(k * k, sizeof(*r->d));
	bool ok = r->node && r->size && r->alo && r->ahi && r->part && r->at && r->w && r->d;
	for (int64_t i = 0, j = -1; ok && i < n; i++) {
		if (i == 0 || key[i] != key[i - 1])
			r->node[++j] = key[i];
		r->size[j]++;
	}
	free(key);
	/* allowed[] is sorted: each node's PUs are one run */
	for (int64_t j = 0, a = 0; ok && j < k; j++) {
		while (s->allowed[a] / width < r->node[j])
			a++;
		r->alo[j] = a;
		while (a < s->c->m && s->allowed[a] / width == r->node[j])
			a++;
		r->ahi[j] = a;
	}
	for (int64_t j = 0; ok && j < k; j++)
		for (int64_t l = 0; l < k; l++)
			r->d[j * k + l] = topomatch_topology_hops(t, r->node[j] * width,
								   r->node[l] * width);
	return ok;
}

/* Coarse hop-bytes that swapping the places of parts j and l saves. */
static double place_gain(int64_t k, const double *w, const int64_t *d, const int64_t *at,
			 int64_t j, int64_t l)
{
	int64_t aj = at[j], al = at[l];
	double g = 0.0;
	for (int64_t m = 0; m < k; m++) {
		if (m == j || m == l)
			continue;
		int64_t am = at[m];
		g += (w[j * k + m] - w[l * k + m]) * (double)(d[aj * k + am] - d[al * k + am]);
	}
	return g;
}

void tm_const_place_parts(int64_t k, const int64_t *size, const double *w, const int64_t *d,
			  int64_t *at)
{
	double total = 0.0;
	for (int64_t j = 0; j < k * k; j++)
		total += w[j];
	int64_t per_sweep = k * k * k / 2 + 1, sweeps = REGROUP_PLACE_WORK / per_sweep;
	sweeps = sweeps < 1 ? 1 : sweeps > REGROUP_MAX_SWEEPS ? REGROUP_MAX_SWEEPS : sweeps;
	for (int64_t sweep = 0; sweep < sweeps; sweep++) {
		bool gained = false;
		for (int64_t j = 0; j < k; j++)
			for (int64_t l = j + 1; l < k; l++) {
				if (size[j] != size[l])
					continue;
				/* gains below rounding noise of the total would cycle */
				if (place_gain(k, w, d, at, j, l) > 1e-12 * total) {
					int64_t x = at[j];
					at[j] = at[l];
					at[l] = x;
					gained = true;
				}
			}
		if (!gained)
			break;
	}
}

/* Steps 1-3 into pu[] (the top-down mapping is in s->pu). */
static int regroup_map(cmap_t *s, regroup_t *r, int64_t *pu)
{
	int64_t n = s->c->ntasks, k = r->k, width = s->t->below[REGROUP_DEPTH];
	tm_wgraph_t g = { n, s->a.rowptr, s->a.col, s->a.w, NULL };
	int rc = tm_partition_exact_opts(&g, (int)k, r->size, &s->part, r->part, s->err);
	if (rc != TOPOMATCH_OK)
		return rc == TOPOMATCH_ENOMEM ? oom(s) : rc;
	for (int64_t u = 0; u < n; u++)
		for (int64_t e = s->a.rowptr[u]; e < s->a.rowptr[u + 1]; e++)
			if (r->part[u] != r->part[s->a.col[e]])
				r->w[r->part[u] * k + r->part[s->a.col[e]]] += s->a.w[e];
	for (int64_t j = 0; j < k; j++)
		r->at[j] = j; /* part j has node j's size */
	tm_const_place_parts(k, r->size, r->w, r->d, r->at);
	/* tasks grouped by the node their part is on, nodes in order */
	int64_t *first = tm_zalloc(k + 1, sizeof(*first)), *onto = tm_alloc(k, sizeof(*onto));
	if (!first || !onto) {
		free(first);
		free(onto);
		return oom(s);
	}
	for (int64_t j = 0; j < k; j++)
		onto[r->at[j]] = j;
	for (int64_t u = 0; u < n; u++)
		first[r->at[r->part[u]] + 1]++;
	for (int64_t x = 0; x < k; x++)
		first[x + 1] += first[x];
	for (int64_t u = 0; u < n; u++)
		s->tasks[first[r->at[r->part[u]]]++] = u;
	int64_t *out = s->pu;
	s->pu = pu;
	for (int64_t x = 0, t0 = 0; rc == TOPOMATCH_OK && x < k; x++) {
		int64_t cnt = r->size[onto[x]];
		rc = map_node(s, REGROUP_DEPTH, r->node[x] * width, r->alo[x], r->ahi[x], t0,
			      t0 + cnt);
		t0 += cnt;
	}
	s->pu = out;
	free(first);
	free(onto);
	return rc;
}

/* The regrouped candidate when it applies, in pu[] when it is better. */
static int regroup_candidate(cmap_t *s, int64_t *pu)
{
	const topomatch_topology_t *t = s->t;
	regroup_t r;
	memset(&r, 0, sizeof(r));
	if (t->nlevels <= REGROUP_DEPTH || s->c->f != 1 || s->c->ntasks > REGROUP_MAX_TASKS ||
	    !regroup_nodes(s, pu, &r)) {
		regroup_free(&r);
		return TOPOMATCH_OK;
	}
	int64_t *alt = tm_alloc(s->c->ntasks, sizeof(*alt));
	int rc = alt ? regroup_map(s, &r, alt) : TOPOMATCH_ENOMEM;
	double hb = 0, hb_alt = 0;
	if (rc == TOPOMATCH_OK)
		rc = tm_metrics_hop_bytes(s->c->a, t, pu, &hb, s->err);
	if (rc == TOPOMATCH_OK)
		rc = tm_metrics_hop_bytes(s->c->a, t, alt, &hb_alt, s->err);
	if (rc == TOPOMATCH_OK && hb_alt < hb)
		memcpy(pu, alt, (size_t)s->c->ntasks * sizeof(*pu));
	free(alt);
	regroup_free(&r);
	/* out of memory only leaves the top-down mapping */
	return rc == TOPOMATCH_ENOMEM ? TOPOMATCH_OK : rc;
}

/* ------------------------------------------------------------- entry */

static int check_ctx(const tm_map_ctx_t *c, char *err)
{
	const topomatch_topology_t *t = c->t;
	int64_t cap;
	if (topomatch_topology_kind(t) != TOPOMATCH_TOPO_TREE)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch-const needs a tree topology");
	if (c->ntasks != topomatch_affinity_ntasks(c->a))
		return tm_err(err, TOPOMATCH_EINVAL,
			      "topomatch-const: %lld tasks requested, the pattern has %lld",
			      (long long)c->ntasks, (long long)topomatch_affinity_ntasks(c->a));
	if (c->f < 1 || c->m < 1 || !c->allowed)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "topomatch-const: need allowed PUs and an oversubscription >= 1");
	if (!tm_mul_ok(c->m, c->f, &cap) || c->ntasks > cap)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "topomatch-const: %lld tasks do not fit on %lld PUs x %d",
			      (long long)c->ntasks, (long long)c->m, c->f);
	return TOPOMATCH_OK;
}

static int bad_allowed(cmap_t *s, int64_t p, bool twice)
{
	if (twice)
		return tm_err(s->err, TOPOMATCH_EINVAL,
			      "topomatch-const: allowed PU %lld is listed twice", (long long)p);
	return tm_err(s->err, TOPOMATCH_EINVAL,
		      "topomatch-const: allowed PU %lld is not a PU of the tree [0, %lld)",
		      (long long)p, (long long)s->t->npu);
}

/*
 * Sorted by a bitmap of the tree's PUs, read word by word, where it has at
 * most SORT_WORDS_PER_PU words per allowed PU: the plugin hands 98,000
 * free PUs of a 10,240-node cluster, which qsort took 8 ms to order (a
 * sixth of the decision's budget); qsort otherwise.
 */
#define SORT_WORDS_PER_PU 16

static int sort_bitmap(cmap_t *s)
{
	const tm_map_ctx_t *c = s->c;
	int64_t words = s->t->npu / 64 + 1, j = 0;
	uint64_t *bit = tm_zalloc(words, sizeof(*bit));
	if (!bit)
		return oom(s);
	for (int64_t k = 0; k < c->m; k++) {
		int64_t p = c->allowed[k];
		int rc = p < 0 || p >= s->t->npu ? bad_allowed(s, p, false)
		       : bit[p / 64] >> (p % 64) & 1 ? bad_allowed(s, p, true) : TOPOMATCH_OK;
		if (rc != TOPOMATCH_OK) {
			free(bit);
			return rc;
		}
		bit[p / 64] |= UINT64_C(1) << (p % 64);
	}
	for (int64_t w = 0; w < words; w++)
		for (uint64_t b = bit[w]; b; b &= b - 1)
			s->allowed[j++] = w * 64 + __builtin_ctzll(b);
	free(bit);
	return TOPOMATCH_OK;
}

/* Sorted copy of the constraints, which must be distinct PUs of the tree. */
static int sort_allowed(cmap_t *s)
{
	const tm_map_ctx_t *c = s->c;
	s->allowed = tm_alloc(c->m, sizeof(*s->allowed));
	if (!s->allowed)
		return oom(s);
	if (s->t->npu / 64 <= SORT_WORDS_PER_PU * c->m)
		return sort_bitmap(s);
	memcpy(s->allowed, c->allowed, (size_t)c->m * sizeof(*s->allowed));
	qsort(s->allowed, (size_t)c->m, sizeof(*s->allowed), tm_cmp_i64);
	for (int64_t j = 0; j < c->m; j++) {
		int64_t p = s->allowed[j];
		if (p < 0 || p >= s->t->npu)
			return bad_allowed(s, p, false);
		if (j > 0 && s->allowed[j - 1] == p)
			return bad_allowed(s, p, true);
	}
	return TOPOMATCH_OK;
}

int tm_map_topomatch_const(const tm_map_ctx_t *c, int64_t *pu, char *err)
{
	int rc = check_ctx(c, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	cmap_t s = { .c = c, .t = c->t, .a = topomatch_affinity_symmetric(c->a), .pu = pu,
		     .err = err };
	int64_t n = c->ntasks;
	tm_part_opts_init(&s.part, c->seed, c->deadline);
	s.part.balance = CONST_BALANCE;
	s.thorough = n <= CONST_THOROUGH_MAX_TASKS;
	s.part.also_tight = s.thorough;
	s.part.scotch_first = !s.thorough;
	s.part.strats = tm_scotch_strats_new(); /* NULL: parsed at every call */
	s.part.memo = c->memo;
	rc = sort_allowed(&s);
	if (rc == TOPOMATCH_OK) {
		s.tasks = tm_alloc(n, sizeof(*s.tasks));
		s.loc = tm_alloc(n, sizeof(*s.loc));
		if (!s.tasks || !s.loc)
			rc = oom(&s);
	}
	for (int64_t i = 0; rc == TOPOMATCH_OK && i < n; i++) {
		s.tasks[i] = i;
		s.loc[i] = -1;
	}
	if (rc == TOPOMATCH_OK)
		rc = map_node(&s, 0, 0, 0, c->m, 0, n);
	if (rc == TOPOMATCH_OK)
		rc = regroup_candidate(&s, pu);
	tm_scotch_strats_free(s.part.strats);
	free(s.allowed);
	free(s.tasks);
	free(s.loc);
	return rc;
}

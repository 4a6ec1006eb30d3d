/*
 * test_scotch.c - the Scotch mapper (TopoMatch Alg. 2 and 4, §4.5), the
 * Scotch targets and their numbering (grids with a local tree too), the
 * repair pass and the Scotch k-way partitioner.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "map/scotch_internal.h"

#include <math.h>

/* ---------------------------------------------------------------- helpers */

/* 4 switches in a ring, 4 compute vertices each; switches interleaved with
 * their PUs in vertex order (switch s = 5s, PUs 5s+1..5s+4) so that PU
 * numbers and vertex numbers differ. */
static topomatch_topology_t *switch_ring(void)
{
	int64_t a[20], b[20];
	unsigned char compute[20];
	int k = 0;
	for (int s = 0; s < 4; s++) {
		a[k] = 5 * s;
		b[k++] = 5 * ((s + 1) % 4);
		for (int c = 1; c <= 4; c++) {
			a[k] = 5 * s;
			b[k++] = 5 * s + c;
		}
	}
	for (int v = 0; v < 20; v++)
		compute[v] = v % 5 != 0;
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_graph(20, k, a, b, NULL, compute, &t, err) == 0, "%s",
		      err);
	ck_assert_int_eq(topomatch_topology_npu(t), 16);
	return t;
}

static topomatch_affinity_t *stencil(int x, int y, int z, int periodic, int shuffle)
{
	int dims[3] = { x, y, z };
	double w[3] = { 1000, 500, 100 };
	topomatch_affinity_t *a, *s;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_gen_stencil(3, dims, 7, periodic, w, &a, err) == 0, "%s", err);
	if (!shuffle)
		return a;
	ck_assert_msg(topomatch_affinity_shuffle(a, 1, &s, err) == 0, "%s", err);
	topomatch_affinity_destroy(a);
	return s;
}

static int gcd(int a, int b)
{
	return b ? gcd(b, a % b) : a;
}

/*
 * Groups of `size` tasks, all-to-all w inside, `between` (0: nothing)
 * for every pair of tasks in consecutive groups.  Task ids are spread
 * (i -> i * mult mod n, mult prime to n) so that groups are not blocks of
 * ids; group[] (may be NULL) receives the group of every task.
 */

static topomatch_affinity_t *cliques2(int ngroups, int size, double w, double between,
				      int *group)
{
	int n = ngroups * size, k = 0, mult = 7;
	size_t cap = (size_t)n * (size_t)(3 * size);
	while (gcd(n, mult) != 1)
		mult++;
	int64_t *s = malloc(sizeof(*s) * cap);
	int64_t *d = malloc(sizeof(*d) * cap);
	double *ww = malloc(sizeof(*ww) * cap);
	for (int i = 0; i < n; i++) {
		if (group)
			group[(i * mult) % n] = i / size;
		for (int j = 0; j < n; j++) {
			if (i == j || (i / size != j / size &&
				       (abs(i / size - j / size) != 1 || between == 0.0)))
				continue;
			s[k] = (i * mult) % n;
			d[k] = (j * mult) % n;
			ww[k++] = i / size == j / size ? w : between;
		}
	}
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(n, k, s, d, ww, NULL, &a, err) == 0, "%s", err);
	free(s);
	free(d);
	free(ww);
	return a;
}

static topomatch_affinity_t *cliques(int ngroups, int size, double w, int *group)
{
	return cliques2(ngroups, size, w, 1.0, group);
}

/* Tasks of a group share the PUs' block (pu / block). */
static void assert_groups_together(const int64_t *pu, const int *group, int n, int64_t block)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (group[i] == group[j])
				ck_assert_msg(pu[i] / block == pu[j] / block,
					      "tasks %d and %d (group %d) on PUs %lld, %lld", i,
					      j, group[i], (long long)pu[i], (long long)pu[j]);
}

/* Every task on an allowed PU (allowed == NULL: any), at most f per PU. */
static void assert_valid(const topomatch_topology_t *t, int64_t n, const int64_t *pu,
			 const int64_t *allowed, int64_t m, int f)
{
	int64_t npu = topomatch_topology_npu(t);
	int *count = calloc((size_t)npu, sizeof(*count));
	char *ok = calloc((size_t)npu, 1);
	for (int64_t j = 0; j < m; j++)
		ok[allowed ? allowed[j] : j] = 1;
	for (int64_t i = 0; i < n; i++) {
		ck_assert_msg(pu[i] >= 0 && pu[i] < npu, "task %lld on PU %lld", (long long)i,
			      (long long)pu[i]);
		ck_assert_msg(ok[pu[i]], "task %lld on PU %lld, not allowed", (long long)i,
			      (long long)pu[i]);
		ck_assert_msg(++count[pu[i]] <= f, "PU %lld has more than %d tasks",
			      (long long)pu[i], f);
	}
	free(count);
	free(ok);
}

/* A mapping request on all PUs or on `allowed`. */
static tm_map_ctx_t request(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			    const int64_t *allowed, int64_t m, int f, double sf)
{
	return (tm_map_ctx_t){ .a = a, .t = t, .ntasks = topomatch_affinity_ntasks(a),
			       .allowed = allowed, .m = m, .constrained = allowed != NULL,
			       .f = f, .seed = 1, .tau = TOPOMATCH_DEFAULT_TAU,
			       .sparse_factor = sf };
}

/* 0..n-1 (mapper.c materialises this list when there are no constraints). */
static int64_t *iota(int64_t n)
{
	int64_t *v = malloc(sizeof(*v) * (size_t)n);
	for (int64_t i = 0; i < n; i++)
		v[i] = i;
	return v;
}

/* Map, check validity, return a malloc'd pu[]. */
static int64_t *map_ok(const tm_map_ctx_t *c)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t *pu = malloc(sizeof(*pu) * (size_t)(c->ntasks + 1));
	ck_assert_msg(tm_map_scotch(c, pu, err) == TOPOMATCH_OK, "%s", err);
	assert_valid(c->t, c->ntasks, pu, c->allowed, c->m, c->f);
	return pu;
}

/* Mean hop-bytes of 8 uniformly random one-to-one mappings (as many
 * tasks as PUs). */
static double random_hop_bytes(const topomatch_affinity_t *a, const topomatch_topology_t *t)
{
	int64_t npu = topomatch_topology_npu(t);
	int64_t *slot = iota(npu);
	topomatch_rng_t r;
	double sum = 0.0;
	topomatch_rng_seed(&r, 42);
	for (int rep = 0; rep < 8; rep++) {
		for (int64_t i = 0; i < npu - 1; i++) {
			int64_t j = i + (int64_t)topomatch_rng_below(&r, (uint64_t)(npu - i));
			int64_t x = slot[i];
			slot[i] = slot[j];
			slot[j] = x;
		}
		sum += tm_hop_bytes(a, t, slot);
	}
	free(slot);
	return sum / 8;
}

/*
 * The terminal domains of an architecture, indexed by their number, found
 * by bipartitioning from the root: SCOTCH_archDomTerm() of Scotch 7.0.3
 * returns the wrong domain on "deco" targets (one slot off).
 */
static void walk(SCOTCH_Arch *arch, SCOTCH_ArchDom *dom, SCOTCH_ArchDom *term, char *seen,
		 SCOTCH_Num n)
{
	SCOTCH_ArchDom d0, d1;
	if (SCOTCH_archDomSize(arch, dom) == 1) {
		SCOTCH_Num t = SCOTCH_archDomNum(arch, dom);
		ck_assert_msg(t >= 0 && t < n, "terminal number %d", (int)t);
		if (term)
			term[t] = *dom;
		if (seen)
			seen[t] = 1;
		return;
	}
	ck_assert_int_eq(SCOTCH_archDomBipart(arch, dom, &d0, &d1), 0);
	walk(arch, &d0, term, seen, n);
	walk(arch, &d1, term, seen, n);
}

static SCOTCH_ArchDom *terminals(SCOTCH_Arch *arch)
{
	SCOTCH_Num n = SCOTCH_archSize(arch);
	SCOTCH_ArchDom root, *term = calloc((size_t)n, sizeof(*term));
	ck_assert_int_eq(SCOTCH_archDomFrst(arch, &root), 0);
	ck_assert_int_eq(SCOTCH_archDomSize(arch, &root), n);
	char *seen = calloc((size_t)n, 1);
	walk(arch, &root, term, seen, n);
	for (SCOTCH_Num t = 0; t < n; t++)
		ck_assert_msg(seen[t], "terminal %d not found", (int)t);
	free(seen);
	return term;
}

static SCOTCH_Num sdist(SCOTCH_Arch *arch, SCOTCH_ArchDom *term, SCOTCH_Num p, SCOTCH_Num q)
{
	return SCOTCH_archDomDist(arch, &term[p], &term[q]);
}

/* --------------------------------------------------- targets, numbering */

/*
 * Distances are invariant under the target's automorphisms only, so equal
 * distances for every pair on shapes without symmetry between dimensions
 * (2 x 3 x 5 ...) pin the numbering down: x fastest.
 */
static void assert_same_distances(const char *text)
{
	topomatch_topology_t *t = tm_topo(text);
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s: %s", text, err);
	int64_t npu = topomatch_topology_npu(t);
	ck_assert_int_eq(x.nterm, npu);
	SCOTCH_ArchDom *term = terminals(tm_starget_arch(&x));
	for (SCOTCH_Num p = 0; p < npu; p++)
		for (SCOTCH_Num q = 0; q < npu; q++)
			ck_assert_msg(sdist(tm_starget_arch(&x), term, p, q) ==
					      topomatch_topology_hops(t, p, q),
				      "%s: d(%d, %d) = %d, hops %lld", text, (int)p, (int)q,
				      (int)sdist(tm_starget_arch(&x), term, p, q),
				      (long long)topomatch_topology_hops(t, p, q));
	ck_assert_int_ge(x.dmax, 1);
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);
}

START_TEST(grid_numbering_matches)
{
	assert_same_distances("torus3D 2 3 5");
	assert_same_distances("torus2D 3 5");
	assert_same_distances("torusXD 4 2 3 4 5");
	assert_same_distances("mesh2D 3 5");
	assert_same_distances("mesh3D 2 3 5");
	assert_same_distances("meshXD 1 7");
	/* Scotch's meshXD wraps around; ours is a deco target of the mesh */
	assert_same_distances("meshXD 4 2 3 2 3");
	assert_same_distances("hcub 4");
}
END_TEST

/*
 * tleaf: Scotch's distance is the sum of the link values from the lowest
 * common ancestor down, i.e. half our route cost, with the same numbering
 * (root level most significant).
 */
START_TEST(tleaf_numbering_matches)
{
	topomatch_topology_t *t = tm_topo("tleaf 3 2 100 3 10 2 1");
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 12);
	ck_assert_int_eq(x.dmax, 111);
	SCOTCH_ArchDom *term = terminals(tm_starget_arch(&x));
	for (int p = 0; p < 12; p++)
		for (int q = 0; q < 12; q++)
			ck_assert_msg(2.0 * sdist(tm_starget_arch(&x), term, p, q) ==
					      topomatch_topology_cost(t, p, q),
				      "d(%d, %d)", p, q);
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);
}
END_TEST

/* Fractional costs keep their ratio; arity-1 levels are dropped and the
 * order of the distances stays. */
START_TEST(tleaf_costs_and_arity_one)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 1.5 2 1");
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s", err);
	SCOTCH_ArchDom *term = terminals(tm_starget_arch(&x));
	ck_assert_int_eq(sdist(tm_starget_arch(&x), term, 0, 1), 10);
	ck_assert_int_eq(sdist(tm_starget_arch(&x), term, 0, 2), 25);
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);

	t = tm_topo("tleaf 3 4 10 1 5 2 1");
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 8);
	term = terminals(tm_starget_arch(&x));
	for (int p = 0; p < 8; p++) {
		for (int q = 0; q < 8; q++) {
			for (int r = 0; r < 8; r++) {
				SCOTCH_Num dq = sdist(tm_starget_arch(&x), term, p, q);
				bool closer = dq < sdist(tm_starget_arch(&x), term, p, r);
				ck_assert(closer == (topomatch_topology_hops(t, p, q) <
						     topomatch_topology_hops(t, p, r)));
			}
		}
	}
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);
}
END_TEST

/* Two heavy triples on two nodes of three cores each: Scotch must put
 * each triple on one node, which our numbering calls {0,1,2}, {3,4,5}. */
START_TEST(tleaf_mapping_lands_on_our_pus)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 3 1");
	int group[6];
	topomatch_affinity_t *a = cliques(2, 3, 100, group);
	int64_t *all = iota(6);
	tm_map_ctx_t c = request(a, t, NULL, 6, 1, 0.0);
	c.allowed = all;
	int64_t *pu = map_ok(&c);
	assert_groups_together(pu, group, 6, 3);
	free(pu);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Sub-architecture terminal j is cand[j], whatever the list order. */
START_TEST(sub_numbering_follows_list)
{
	static const int64_t cand[] = { 29, 3, 17, 0, 8, 22, 11, 5 };
	topomatch_topology_t *t = tm_topo("torus3D 2 3 5");
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, cand, 8, err) == 0, "%s", err);
	ck_assert(x.has_sub);
	ck_assert_int_eq(x.nterm, 8);
	SCOTCH_ArchDom *term = terminals(&x.sub);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			ck_assert_int_eq(sdist(&x.sub, term, i, j),
					 topomatch_topology_hops(t, cand[i], cand[j]));
	free(term);
	tm_starget_free(&x);
	/* the whole list in order needs no sub-architecture */
	int64_t *all = iota(30);
	ck_assert_msg(tm_starget_build(&x, t, all, 30, err) == 0, "%s", err);
	ck_assert(!x.has_sub);
	tm_starget_free(&x);
	free(all);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Deco target of a graph with switches: terminals are PUs, distances
 * hops, the first halving puts two neighbouring switches on each side;
 * restricted to a scattered list, terminal j is the j-th PU of the list.
 */
START_TEST(graph_deco_numbering)
{
	topomatch_topology_t *t = switch_ring();
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 16);
	SCOTCH_ArchDom *term = terminals(tm_starget_arch(&x));
	for (int p = 0; p < 16; p++)
		for (int q = 0; q < 16; q++)
			ck_assert_int_eq(sdist(tm_starget_arch(&x), term, p, q),
					 topomatch_topology_hops(t, p, q));
	ck_assert_int_eq(x.dmax, 4);
	SCOTCH_ArchDom root, d0, d1;
	char half[16] = { 0 };
	SCOTCH_archDomFrst(tm_starget_arch(&x), &root);
	ck_assert_int_eq(SCOTCH_archDomBipart(tm_starget_arch(&x), &root, &d0, &d1), 0);
	ck_assert_int_eq(SCOTCH_archDomSize(tm_starget_arch(&x), &d0), 8);
	walk(tm_starget_arch(&x), &d0, NULL, half, 16);
	int sw[4] = { 0 };
	for (int p = 0; p < 16; p++)
		sw[p / 4] += half[p];
	/* whole switches, next to each other on the ring */
	ck_assert((sw[0] == 4 && sw[1] == 4) || (sw[1] == 4 && sw[2] == 4) ||
		  (sw[2] == 4 && sw[3] == 4) || (sw[3] == 4 && sw[0] == 4));
	free(term);
	tm_starget_free(&x);

	static const int64_t cand[] = { 15, 2, 9, 4, 12 };
	ck_assert_msg(tm_starget_build(&x, t, cand, 5, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 5);
	term = terminals(tm_starget_arch(&x));
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert_int_eq(sdist(tm_starget_arch(&x), term, i, j),
					 topomatch_topology_hops(t, cand[i], cand[j]));
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------------------- task graph */

static SCOTCH_Num arcs_with(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			    double sf, int64_t nfill)
{
	tm_map_ctx_t c = request(a, t, NULL, topomatch_topology_npu(t), 1, sf);
	tm_sgraph_t g;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_scotch_task_graph(&c, nfill, tm_scotch_weight_budget(6), &g, err) == 0,
		      "%s", err);
	ck_assert_int_eq(SCOTCH_graphCheck(&g.g), 0);
	SCOTCH_Num nv, ne;
	SCOTCH_graphSize(&g.g, &nv, &ne);
	ck_assert_int_eq(nv, topomatch_affinity_ntasks(a) + nfill);
	ck_assert_int_eq(ne, g.narcs);
	for (SCOTCH_Num v = g.nreal; v < g.nvert; v++) /* fillers: no edge */
		ck_assert_int_eq(g.vert[v + 1] - g.vert[v], 0);
	SCOTCH_Num arcs = g.narcs;
	tm_sgraph_free(&g);
	return arcs;
}

/*
 * Open 4x4x4 stencil: 48 edges per dimension; A = 2000 (x), 1000 (y),
 * 200 (z).  sf keeps w > 2000 sf, and the 2000 edges always.
 */
START_TEST(sparse_factor_filters_edges)
{
	topomatch_topology_t *t = tm_topo("torus3D 4 4 4");
	topomatch_affinity_t *a = stencil(4, 4, 4, 0, 1);
	ck_assert_int_eq(arcs_with(a, t, 0.0, 0), 2 * 144);
	ck_assert_int_eq(arcs_with(a, t, 0.05, 0), 2 * 144);
	ck_assert_int_eq(arcs_with(a, t, 0.4, 0), 2 * 96);
	ck_assert_int_eq(arcs_with(a, t, 0.5, 0), 2 * 48);
	ck_assert_int_eq(arcs_with(a, t, 1.0, 0), 2 * 48);
	ck_assert_int_eq(arcs_with(a, t, 0.0, 10), 2 * 144);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Weights spanning 15 orders of magnitude: integers >= 1, the same both
 * ways, their total within the budget. */
START_TEST(weights_scaled_within_budget)
{
	int64_t s[] = { 0, 1, 2, 3, 0 };
	int64_t d[] = { 1, 2, 3, 0, 2 };
	double w[] = { 1e15, 3e14, 1.0, 0.5, 7.0 };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(4, 5, s, d, w, NULL, &a, err) == 0, "%s", err);
	topomatch_csr_t c = topomatch_affinity_symmetric(a);
	SCOTCH_Num budget = tm_scotch_weight_budget(1000);
	tm_sgraph_t g;
	ck_assert_msg(tm_sgraph_build(&g, c.n, c.rowptr, c.col, c.w, 0.0, 2, budget, err) == 0,
		      "%s", err);
	ck_assert_int_eq(SCOTCH_graphCheck(&g.g), 0);
	int64_t total = 0;
	for (SCOTCH_Num e = 0; e < g.narcs; e++) {
		ck_assert_int_ge(g.edlo[e], 1);
		total += g.edlo[e];
	}
	ck_assert_int_le(total, budget);
	ck_assert_int_eq(g.narcs, 10);
	ck_assert_int_gt(g.edlo[0], 1000); /* the heavy edge keeps its resolution */
	tm_sgraph_free(&g);
	topomatch_affinity_destroy(a);
	ck_assert_int_ge(tm_scotch_weight_budget(SCOTCH_NUMMAX), 1);
}
END_TEST

/* ----------------------------------------------------------------- mapping */

/*
 * Shuffled periodic stencil on the matching torus: the natural placement
 * of the unshuffled stencil is optimal (every message one hop).
 */
START_TEST(stencil_on_torus)
{
	topomatch_topology_t *t = tm_topo("torus3D 4 4 4");
	topomatch_affinity_t *a = stencil(4, 4, 4, 1, 1), *a0 = stencil(4, 4, 4, 1, 0);
	int64_t *all = iota(64);
	tm_map_ctx_t c = request(a, t, NULL, 64, 1, 0.0);
	c.allowed = all;
	int64_t *pu = map_ok(&c);
	double hb = tm_hop_bytes(a, t, pu), natural = tm_hop_bytes(a0, t, all);
	double rnd = random_hop_bytes(a, t);
	ck_assert_msg(hb < 0.5 * rnd, "scotch %g, random %g", hb, rnd);
	ck_assert_msg(hb <= 1.1 * natural, "scotch %g, natural %g", hb, natural);
	free(pu);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_affinity_destroy(a0);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(deterministic)
{
	topomatch_topology_t *t = tm_topo("torus3D 8 8 4");
	topomatch_affinity_t *a = stencil(8, 8, 4, 0, 1);
	int64_t *all = iota(256);
	tm_map_ctx_t c = request(a, t, NULL, 256, 1, 0.0);
	c.allowed = all;
	c.seed = 12345;
	int64_t *p1 = map_ok(&c), *p2 = map_ok(&c);
	ck_assert_mem_eq(p1, p2, 256 * sizeof(*p1));
	free(p1);
	free(p2);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* A fragmented allowed set, not sorted (TopoMatch Alg. 4). */
/* Every 5th PU from the top, in decreasing order (distinct for m <= npu
 * when 5 is prime to npu, else for m <= npu / 5). */
static int64_t *fragmented(int64_t npu, int64_t m)
{
	int64_t *v = malloc(sizeof(*v) * (size_t)m);
	for (int64_t j = 0; j < m; j++)
		v[j] = npu - 1 - (5 * j) % npu;
	return v;
}

static void constrained_case(const char *text, int64_t ntasks_side)
{
	topomatch_topology_t *t = tm_topo(text);
	int64_t npu = topomatch_topology_npu(t);
	int64_t m = npu / 5;
	int64_t *allowed = fragmented(npu, m);
	topomatch_affinity_t *a = stencil((int)ntasks_side, 2, 2, 0, 1);
	ck_assert_int_le(topomatch_affinity_ntasks(a), m);
	tm_map_ctx_t c = request(a, t, allowed, m, 1, 0.0);
	int64_t *pu = map_ok(&c);
	free(pu);
	/* exactly full */
	topomatch_affinity_destroy(a);
	a = cliques((int)(m / 4), 4, 50, NULL);
	c = request(a, t, allowed, m, 1, 0.0);
	ck_assert_int_le(c.ntasks, m);
	pu = map_ok(&c);
	free(pu);
	topomatch_affinity_destroy(a);
	free(allowed);
	topomatch_topology_destroy(t);
}

START_TEST(constrained_tleaf_and_torus)
{
	constrained_case("tleaf 3 8 100 2 10 8 1", 6);   /* 128 PUs, 25 allowed, 24 tasks */
	constrained_case("torus3D 6 6 6", 10);           /* 216 PUs, 43 allowed, 40 tasks */
	constrained_case("mesh2D 13 11", 7);             /* 143 PUs, 28 allowed */
}
END_TEST

/* Allowed PUs in two far-apart blocks: the clique pairs stay in a block. */
START_TEST(constrained_blocks)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 8 10 4 1");
	int64_t allowed[] = { 31, 30, 29, 28, 4, 5, 6, 7 };
	int group[8];
	topomatch_affinity_t *a = cliques(2, 4, 100, group);
	tm_map_ctx_t c = request(a, t, allowed, 8, 1, 0.0);
	int64_t *pu = map_ok(&c);
	assert_groups_together(pu, group, 8, 4);
	free(pu);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(oversubscribed)
{
	topomatch_topology_t *t = tm_topo("torus3D 4 4 4");
	topomatch_affinity_t *a = stencil(8, 4, 4, 0, 1); /* 128 tasks, 64 PUs */
	int64_t *all = iota(64);
	tm_map_ctx_t c = request(a, t, all, 64, 2, 0.0);
	c.constrained = 0;
	int64_t *pu = map_ok(&c);
	free(pu);
	/* constrained, f = 3, 100 tasks on 40 PUs */
	topomatch_affinity_destroy(a);
	a = stencil(5, 5, 4, 0, 1);
	int64_t *allowed = fragmented(64, 40);
	c = request(a, t, allowed, 40, 3, 0.0);
	pu = map_ok(&c);
	free(pu);
	free(allowed);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Largest hop distance among the PUs of a mapping. */
static int64_t spread(const topomatch_topology_t *t, const int64_t *pu, int64_t n)
{
	int64_t d = 0;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < n; j++)
			if (topomatch_topology_hops(t, pu[i], pu[j]) > d)
				d = topomatch_topology_hops(t, pu[i], pu[j]);
	return d;
}

/* 10 tasks in a chain on 64 PUs (fillers), then on 4096 (preselection). */
START_TEST(undersubscribed)
{
	int64_t s[9], d[9];
	double w[9];
	for (int k = 0; k < 9; k++) {
		s[k] = (k * 3) % 10;
		d[k] = ((k + 1) * 3) % 10;
		w[k] = 100;
	}
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(10, 9, s, d, w, NULL, &a, err) == 0, "%s", err);
	const char *topos[] = { "torus3D 4 4 4", "tleaf 3 4 100 4 10 4 1", "torus3D 16 16 16",
				"tleaf 3 16 100 16 10 16 1" };
	for (int k = 0; k < 4; k++) {
		topomatch_topology_t *t = tm_topo(topos[k]);
		int64_t npu = topomatch_topology_npu(t);
		int64_t *all = iota(npu);
		tm_map_ctx_t c = request(a, t, all, npu, 1, 0.0);
		c.constrained = 0;
		int64_t *pu = map_ok(&c);
		/* compact: a chain of 10 fits within 6 hops on these targets */
		ck_assert_msg(spread(t, pu, 10) <= 6, "%s: spread %lld", topos[k],
			      (long long)spread(t, pu, 10));
		ck_assert_msg(tm_hop_bytes(a, t, pu) <= 9 * 100 * 2.5, "%s: %g", topos[k],
			      tm_hop_bytes(a, t, pu));
		free(pu);
		free(all);
		topomatch_topology_destroy(t);
	}
	topomatch_affinity_destroy(a);
}
END_TEST

/* Graph topology with switches: the 4-cliques each go to one switch. */
START_TEST(graph_topology_maps)
{
	topomatch_topology_t *t = switch_ring();
	topomatch_affinity_t *a = cliques(4, 4, 100, NULL);
	int64_t *all = iota(16);
	tm_map_ctx_t c = request(a, t, all, 16, 1, 0.0);
	c.constrained = 0;
	int64_t *pu = map_ok(&c);
	/* the optimum: each clique behind one switch (12 x 100 x 2 hops each),
	 * consecutive cliques on neighbouring switches (3 x 32 x 1 x 3 hops) */
	double hb = tm_hop_bytes(a, t, pu);
	ck_assert_msg(hb <= 1.02 * 9888, "%g, random %g", hb, random_hop_bytes(a, t));
	free(pu);
	/* constrained: two PUs per switch */
	int64_t allowed[] = { 0, 1, 4, 5, 8, 9, 12, 13 };
	topomatch_affinity_destroy(a);
	int group[8];
	a = cliques(4, 2, 100, group);
	c = request(a, t, allowed, 8, 1, 0.0);
	pu = map_ok(&c);
	assert_groups_together(pu, group, 8, 4);
	free(pu);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * More PUs than the exact deco target takes: archBuild2's target, of all
 * PUs and of a list.  Cliques of 16 on 136 switches of
 * 16 PUs: the natural placement, clique g behind switch g, is optimal.
 */
START_TEST(graph_large_deco2)
{
	topomatch_topology_t *t = tm_ring_of_switches(136, 16);
	int group[2176];
	topomatch_affinity_t *a = cliques2(136, 16, 100, 0.0, group);
	int64_t *all = iota(2176), natural[2176], rank[136] = { 0 };
	for (int i = 0; i < 2176; i++)
		natural[i] = group[i] * 16 + rank[group[i]]++;
	tm_map_ctx_t c = request(a, t, all, 2176, 1, 0.0);
	c.constrained = 0;
	int64_t *pu = map_ok(&c), *again = map_ok(&c);
	ck_assert_mem_eq(pu, again, sizeof(*pu) * 2176);
	double hb = tm_hop_bytes(a, t, pu), best = tm_hop_bytes(a, t, natural);
	ck_assert_msg(hb <= 1.1 * best, "%g, natural %g", hb, best);
	free(pu);
	free(again);
	topomatch_affinity_destroy(a);
	/* three switches out, the list backwards: 2128 allowed PUs, 133 cliques */
	int64_t *allowed = malloc(sizeof(*allowed) * 2176), m = 0;
	for (int64_t p = 2175; p >= 0; p--)
		if (p / 16 != 5 && p / 16 != 30 && p / 16 != 31)
			allowed[m++] = p;
	a = cliques2(133, 16, 100, 0.0, NULL);
	c = request(a, t, allowed, m, 1, 0.0);
	pu = map_ok(&c);
	ck_assert_msg(tm_hop_bytes(a, t, pu) <= 1.1 * best * 133 / 136, "%g", tm_hop_bytes(a, t, pu));
	free(pu);
	free(allowed);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* Scattered constraints on the exact deco target: whole switches stay
 * together even when the PU count is no power of two. */
START_TEST(graph_exact_deco_constrained)
{
	topomatch_topology_t *t = tm_ring_of_switches(64, 16);
	int64_t *allowed = malloc(sizeof(*allowed) * 1024), m = 0;
	for (int64_t p = 0; p < 1024; p++)
		if (p / 16 != 5 && p / 16 != 30 && p / 16 != 31)
			allowed[m++] = p;
	int group[976];
	topomatch_affinity_t *a = cliques(61, 16, 100, group);
	tm_map_ctx_t c = request(a, t, allowed, m, 1, 0.0);
	int64_t *pu = map_ok(&c);
	/* intra-clique: 61 x 240 x 100 x 2 hops at best; allow a tenth more */
	ck_assert_msg(tm_hop_bytes(a, t, pu) <= 1.1 * (61 * 240 * 200 + 60 * 512 * 4), "%g",
		      tm_hop_bytes(a, t, pu));
	free(pu);
	free(allowed);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(mesh4d_and_hcub_map)
{
	const char *topos[] = { "meshXD 4 2 2 3 2", "hcub 5", "torus2D 5 5" };
	for (int k = 0; k < 3; k++) {
		topomatch_topology_t *t = tm_topo(topos[k]);
		int64_t npu = topomatch_topology_npu(t);
		topomatch_affinity_t *a = stencil((int)npu / 4, 2, 2, 0, 1);
		int64_t *all = iota(npu);
		tm_map_ctx_t c = request(a, t, all, npu, 1, 0.5);
		free(map_ok(&c));
		free(all);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

START_TEST(trivial_requests)
{
	topomatch_topology_t *t = tm_topo("torus2D 4 4");
	topomatch_affinity_t *a = stencil(3, 1, 1, 0, 0);
	int64_t one[] = { 9 }, pu[3] = { -1, -1, -1 };
	char err[TOPOMATCH_ERRLEN] = "";
	tm_map_ctx_t c = request(a, t, one, 1, 3, 0.0);
	ck_assert_int_eq(tm_map_scotch(&c, pu, err), TOPOMATCH_OK);
	ck_assert(pu[0] == 9 && pu[1] == 9 && pu[2] == 9);
	c.ntasks = 0;
	ck_assert_int_eq(tm_map_scotch(&c, pu, err), TOPOMATCH_OK);
	/* a deadline already past: the guard */
	int64_t *all = iota(16);
	c = request(a, t, all, 16, 1, 0.0);
	c.deadline = tm_now() - 1.0;
	ck_assert_int_eq(tm_map_scotch(&c, pu, err), TOPOMATCH_EBUDGET);
	ck_assert_contains(err, "time budget");
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------------ grids with trees */

/*
 * Grids with a local tree (or a mixed wrap) get our exact "deco" text:
 * terminal p is PU p, the distance the route cost in integer units (here
 * the costs are whole: the cost itself; with equal costs, the hops).
 */
START_TEST(grid_tree_exact_deco)
{
	assert_same_distances("mesh3D 2 3 5 wrap 1 0 1");
	assert_same_distances("torus2D 3 3 local 1 4 1");
	assert_same_distances("meshXD 1 4 local 2 2 1 2 1");
	topomatch_topology_t *t = tm_topo("mesh2D 3 4 wrap 1 0 local 2 2 10 2 1 cost 100");
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, NULL, 0, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 48);
	ck_assert(!x.has_sub);
	SCOTCH_ArchDom *term = terminals(tm_starget_arch(&x));
	for (int p = 0; p < 48; p++)
		for (int q = 0; q < 48; q++)
			ck_assert_msg(sdist(tm_starget_arch(&x), term, p, q) ==
					      topomatch_topology_cost(t, p, q),
				      "d(%d, %d) = %d, cost %g", p, q,
				      (int)sdist(tm_starget_arch(&x), term, p, q),
				      topomatch_topology_cost(t, p, q));
	/* 2 x (10 + 1) up and down, 1 + 3 router links */
	ck_assert_int_eq(x.dmax, 22 + 400);
	free(term);
	tm_starget_free(&x);
	/* on a list, terminal j is the j-th PU of the list */
	static const int64_t cand[] = { 47, 3, 17, 0, 8, 22, 11, 5, 2 };
	ck_assert_msg(tm_starget_build(&x, t, cand, 9, err) == 0, "%s", err);
	ck_assert_int_eq(x.nterm, 9);
	term = terminals(tm_starget_arch(&x));
	for (int i = 0; i < 9; i++)
		for (int j = 0; j < 9; j++)
			ck_assert(sdist(tm_starget_arch(&x), term, i, j) ==
				  topomatch_topology_cost(t, cand[i], cand[j]));
	free(term);
	tm_starget_free(&x);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Beyond the exact text's size: a tleaf that splits the router grid, then
 * the local tree, renumbered as our PUs by a sub-architecture.  Under one
 * router its distances are ours (half the route cost, in one unit for all
 * pairs); across routers they are larger than any under one router.
 */
static void assert_grid_tleaf(const topomatch_topology_t *t, int64_t L, const int64_t *cand,
			      int64_t m)
{
	tm_starget_t x;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_starget_build(&x, t, cand, cand ? m : 0, err) == 0, "%s", err);
	ck_assert(x.has_sub);
	ck_assert_int_eq(x.nterm, m);
	SCOTCH_Arch *arch = tm_starget_arch(&x);
	SCOTCH_ArchDom *term = terminals(arch);
	double unit = 0.0;
	SCOTCH_Num near = 0, far = x.dmax;
	/* rows spread over the routers, at varied offsets within one (97 is
	 * prime to the router sizes); one in 7 took 7 s natively, 5 minutes
	 * under valgrind, in Scotch's distance function */
	for (int64_t i = 0; i < m; i += 97) {
		for (int64_t j = 0; j < m; j++) {
			int64_t p = cand ? cand[i] : i, q = cand ? cand[j] : j;
			SCOTCH_Num d = sdist(arch, term, (SCOTCH_Num)i, (SCOTCH_Num)j);
			ck_assert_int_le(d, x.dmax);
			if (p == q) {
				ck_assert_int_eq(d, 0);
			} else if (p / L == q / L) {
				double c = topomatch_topology_cost(t, p, q);
				if (unit == 0.0)
					unit = d / c;
				ck_assert_msg(fabs(d - unit * c) < 1e-9,
					      "d(%lld, %lld) = %d, cost %g", (long long)p,
					      (long long)q, (int)d, c);
				near = d > near ? d : near;
			} else {
				far = d < far ? d : far;
			}
		}
	}
	ck_assert_int_gt(far, near);
	free(term);
	tm_starget_free(&x);
}

START_TEST(grid_tree_large_target)
{
	topomatch_topology_t *t = tm_topo("mesh3D 4 4 4 wrap 1 0 1 local 2 4 1 10 1");
	ck_assert_int_eq(topomatch_topology_npu(t), 2560);
	assert_grid_tleaf(t, 40, NULL, 2560);
	/* every PU but one in 6, backwards */
	int64_t list[2560], m = 0;
	for (int64_t p = 2559; p >= 0; p--)
		if (p % 6 != 1)
			list[m++] = p;
	assert_grid_tleaf(t, 40, list, m);
	topomatch_topology_destroy(t);
	/* arity 1 levels, uneven costs, arities of 3, routers 5 x 3 x 8 */
	t = tm_topo("torus3D 4 4 4 local 3 4 10 1 3 12 1 cost 20");
	assert_grid_tleaf(t, 48, NULL, 3072);
	topomatch_topology_destroy(t);
	t = tm_topo("mesh3D 5 3 8 wrap 0 1 0 local 3 3 2 1 7 6 1");
	assert_grid_tleaf(t, 18, NULL, 120 * 18);
	topomatch_topology_destroy(t);
}
END_TEST

/* topomatch_map with `mapper`: valid (with `allowed` when given), the
 * same twice; returns the malloc'd mapping. */
static int64_t *gt_map(const topomatch_affinity_t *a, const topomatch_topology_t *t,
		       const char *mapper, const int64_t *allowed, int64_t m)
{
	int64_t n = topomatch_affinity_ntasks(a);
	int64_t *pu = malloc(sizeof(*pu) * (size_t)n), *again = malloc(sizeof(*pu) * (size_t)n);
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	char err[TOPOMATCH_ERRLEN] = "";
	topomatch_map_opts_init(&o);
	o.mapper = mapper;
	o.allowed = allowed;
	o.nallowed = m;
	ck_assert_msg(topomatch_map(a, t, &o, pu, &res, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_msg(topomatch_mapping_check(t, n, pu, allowed, m, 1, err) == TOPOMATCH_OK,
		      "%s", err);
	ck_assert(!res.fell_back);
	ck_assert_msg(topomatch_map(a, t, &o, again, NULL, err) == TOPOMATCH_OK, "%s", err);
	ck_assert_mem_eq(pu, again, sizeof(*pu) * (size_t)n);
	free(again);
	return pu;
}

/*
 * 16 routers of 8 PUs (two sockets of four cores), router links far
 * dearer than the rest: cliques of 8 tasks each belong on one router,
 * whole machine or every other router (the list backwards).
 */
START_TEST(grid_tree_maps)
{
	topomatch_topology_t *t = tm_topo("torus2D 4 4 local 2 2 10 4 1 cost 100");
	static const char *const mappers[] = { "scotch", "auto" };
	int group[128];
	topomatch_affinity_t *a = cliques(16, 8, 100, group);
	for (int k = 0; k < 2; k++) {
		int64_t *pu = gt_map(a, t, mappers[k], NULL, 0);
		assert_groups_together(pu, group, 128, 8);
		free(pu);
	}
	topomatch_affinity_destroy(a);
	int64_t allowed[64], m = 0;
	for (int64_t p = 127; p >= 0; p--)
		if ((p / 8) % 2 == 1)
			allowed[m++] = p;
	a = cliques(8, 8, 100, group);
	for (int k = 0; k < 2; k++) {
		int64_t *pu = gt_map(a, t, mappers[k], allowed, m);
		assert_groups_together(pu, group, 64, 8);
		free(pu);
	}
	topomatch_affinity_destroy(a);
	/* a mixed wrap without a local tree; a scattered list */
	topomatch_topology_destroy(t);
	t = tm_topo("mesh3D 4 3 5 wrap 0 1 1");
	a = stencil(3, 4, 5, 0, 1);
	int64_t list[60];
	for (int64_t j = 0; j < 60; j++) /* 7 is prime to 60: a permutation */
		list[j] = (7 * j + 3) % 60;
	for (int k = 0; k < 2; k++) {
		free(gt_map(a, t, mappers[k], NULL, 0));
		free(gt_map(a, t, mappers[k], list, 60));
	}
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Past the exact target: 2560 PUs.  Cliques of 40 tasks, one router's
 * worth: whole cliques under one router; a shuffled stencil on every PU,
 * which does not fit the machine, well below random.  Then a chain of 10
 * tasks on 8192 PUs (preselection keeps it compact).
 */
START_TEST(grid_tree_large_maps)
{
	topomatch_topology_t *t = tm_topo("mesh3D 4 4 4 wrap 1 0 1 local 2 4 1 10 1");
	static int group[2560];
	topomatch_affinity_t *a = cliques(64, 40, 100, group);
	int64_t *pu = gt_map(a, t, "scotch", NULL, 0);
	assert_groups_together(pu, group, 2560, 40);
	free(pu);
	topomatch_affinity_destroy(a);
	a = stencil(16, 16, 10, 0, 1);
	for (int k = 0; k < 2; k++) {
		pu = gt_map(a, t, k ? "auto" : "scotch", NULL, 0);
		double hb = tm_hop_bytes(a, t, pu), rnd = random_hop_bytes(a, t);
		ck_assert_msg(hb < 0.6 * rnd, "hop-bytes %g, random %g", hb, rnd);
		free(pu);
	}
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);

	int64_t s[9], d[9];
	double w[9];
	for (int k = 0; k < 9; k++) {
		s[k] = (k * 3) % 10;
		d[k] = ((k + 1) * 3) % 10;
		w[k] = 100;
	}
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(10, 9, s, d, w, NULL, &a, err) == 0, "%s", err);
	t = tm_topo("torus3D 8 8 8 local 2 2 10 8 1");
	pu = gt_map(a, t, "scotch", NULL, 0);
	/* 10 tasks fit under 1 router (16 PUs): within 4 hops of each other */
	ck_assert_msg(spread(t, pu, 10) <= 4, "spread %lld", (long long)spread(t, pu, 10));
	free(pu);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------------------------ repair */

/* A doubled map: every slot of 0..3 twice, slots 4..7 free. */
START_TEST(repair_undoubles)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 4 1");
	topomatch_affinity_t *a = cliques(2, 4, 100, NULL);
	int64_t *all = iota(8);
	int64_t loc[8] = { 0, 0, 1, 1, 2, 2, 3, 3 }, moved = -1, pu[8];
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_scotch_repair(a, t, all, 8, 1, 0, loc, &moved, err), 0);
	ck_assert_int_eq(moved, 4);
	for (int i = 0; i < 8; i++)
		pu[i] = all[loc[i]];
	assert_valid(t, 8, pu, all, 8, 1);
	/* a valid map stays as it is */
	int64_t before[8];
	memcpy(before, loc, sizeof(loc));
	ck_assert_int_eq(tm_scotch_repair(a, t, all, 8, 1, 0, loc, &moved, err), 0);
	ck_assert_int_eq(moved, 0);
	ck_assert_mem_eq(before, loc, sizeof(loc));
	/* tasks without a PU, or on an unknown slot, get one */
	int64_t bad[8] = { -1, 8, 99, 0, 1, 2, 3, 4 };
	ck_assert_int_eq(tm_scotch_repair(a, t, all, 8, 1, 0, bad, &moved, err), 0);
	ck_assert_int_eq(moved, 3);
	for (int i = 0; i < 8; i++)
		pu[i] = all[bad[i]];
	assert_valid(t, 8, pu, all, 8, 1);
	free(all);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/*
 * Tasks 0 and 1 exchange a lot and share slot 0 of "tleaf 2 2 10 2 1";
 * task 2 is alone on slot 2.  The task that moves must go next door (slot
 * 1, same node), not to slot 3 across the root.
 */
START_TEST(repair_moves_to_nearest)
{
	topomatch_topology_t *t = tm_topo("tleaf 2 2 10 2 1");
	int64_t s[] = { 0, 1 }, d[] = { 1, 2 };
	double w[] = { 100, 1 };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_create(3, 2, s, d, w, NULL, &a, err) == 0, "%s", err);
	int64_t cand[] = { 0, 1, 2, 3 }, loc[3] = { 0, 0, 2 }, moved;
	ck_assert_int_eq(tm_scotch_repair(a, t, cand, 4, 1, 0, loc, &moved, err), 0);
	ck_assert_int_eq(moved, 1);
	ck_assert(loc[0] <= 1 && loc[1] <= 1 && loc[0] != loc[1]);
	ck_assert_int_eq(loc[2], 2);
	/* f = 2: three tasks on a slot, one leaves, the least attached (task 2) */
	int64_t loc2[3] = { 1, 1, 1 };
	ck_assert_int_eq(tm_scotch_repair(a, t, cand, 4, 2, 0, loc2, &moved, err), 0);
	ck_assert_int_eq(moved, 1);
	ck_assert(loc2[0] == 1 && loc2[1] == 1 && loc2[2] != 1);
	topomatch_affinity_destroy(a);
	topomatch_topology_destroy(t);
}
END_TEST

/* -------------------------------------------------------------- partition */

static double cut_of(const tm_wgraph_t *g, const int64_t *part)
{
	double c = 0.0;
	for (int64_t v = 0; v < g->n; v++)
		for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++)
			if (part[v] != part[g->col[e]] && v < g->col[e])
				c += g->w[e];
	return c;
}

static void check_partition(const tm_wgraph_t *g, int k, const int64_t *size, double tol)
{
	int64_t *part = malloc(sizeof(*part) * (size_t)g->n);
	int64_t *got = calloc((size_t)k, sizeof(*got));
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_partition_scotch(g, k, size, 7, part, err) == 0, "%s", err);
	for (int64_t v = 0; v < g->n; v++) {
		ck_assert(part[v] >= 0 && part[v] < k);
		got[part[v]]++;
	}
	for (int p = 0; p < k; p++)
		ck_assert_msg(fabs((double)(got[p] - size[p])) <= tol * (double)size[p] + 2,
			      "part %d: %lld, want %lld", p, (long long)got[p], (long long)size[p]);
	/* a random partition with the same sizes */
	int64_t *rnd = malloc(sizeof(*rnd) * (size_t)g->n);
	for (int64_t v = 0, p = 0, used = 0; v < g->n; v++) {
		while (used == size[p]) {
			p++;
			used = 0;
		}
		rnd[(v * 389) % g->n] = p; /* 389 is prime to the sizes used */
		used++;
	}
	double c = cut_of(g, part), cr = cut_of(g, rnd);
	ck_assert_msg(c < 0.3 * cr || c == 0.0, "cut %g, random %g", c, cr);
	int64_t *again = malloc(sizeof(*again) * (size_t)g->n);
	ck_assert_int_eq(tm_partition_scotch(g, k, size, 7, again, err), 0);
	ck_assert_mem_eq(part, again, sizeof(*part) * (size_t)g->n);
	free(again);
	free(rnd);
	free(part);
	free(got);
}

START_TEST(partition_sizes_and_cut)
{
	topomatch_affinity_t *a = stencil(8, 8, 8, 0, 1);
	topomatch_csr_t s = topomatch_affinity_symmetric(a);
	tm_wgraph_t g = { s.n, s.rowptr, s.col, s.w, NULL };
	check_partition(&g, 4, (const int64_t[]){ 128, 128, 128, 128 }, 0.03);
	check_partition(&g, 4, (const int64_t[]){ 100, 300, 0, 112 }, 0.03);
	check_partition(&g, 3, (const int64_t[]){ 0, 512, 0 }, 0.0);
	check_partition(&g, 8, (const int64_t[]){ 64, 64, 64, 64, 64, 64, 64, 64 }, 0.03);
	/* errors */
	int64_t part[512];
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_partition_scotch(&g, 2, (const int64_t[]){ 1, 2 }, 1, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "add up");
	ck_assert_int_eq(tm_partition_scotch(&g, 2, (const int64_t[]){ -1, 513 }, 1, part, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(tm_partition_scotch(&g, 0, NULL, 1, part, err), TOPOMATCH_EINVAL);
	topomatch_affinity_destroy(a);
}
END_TEST

/*
 * topomatch topo export --scotch: what topomatch_topology_write_scotch
 * writes loads back into Scotch with the same distances.  Beyond 2048 PUs
 * a grid with node trees is Scotch's own type-2 "deco" of the machine
 * graph, whose distances Scotch estimates: only its size is checked.
 */
START_TEST(export_keeps_distances)
{
	static const char *const texts[] = { "tleaf 3 4 10 2 5 3 1", "torus3D 3 4 5",
					     "mesh2D 3 2 local 2 2 1 2 1", "torus3D 4 4 4 local 1 4 1",
					     "torus3D 8 8 9 local 1 4 1" };
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		topomatch_topology_t *t = tm_topo(texts[k]);
		char err[TOPOMATCH_ERRLEN] = "";
		FILE *f = tmpfile();
		ck_assert_msg(topomatch_topology_write_scotch(t, f, err) == 0, "%s", err);
		rewind(f);
		SCOTCH_Arch arch;
		SCOTCH_archInit(&arch);
		ck_assert_msg(SCOTCH_archLoad(&arch, f) == 0, "%s: Scotch cannot load it", texts[k]);
		fclose(f);
		int64_t npu = topomatch_topology_npu(t);
		ck_assert_int_eq(SCOTCH_archSize(&arch), npu);
		if (npu > 2048) {
			SCOTCH_archExit(&arch);
			topomatch_topology_destroy(t);
			continue;
		}
		SCOTCH_ArchDom *term = terminals(&arch);
		bool tree = topomatch_topology_kind(t) == TOPOMATCH_TOPO_TREE;
		for (SCOTCH_Num p = 0; p < npu; p++)
			for (SCOTCH_Num q = 0; q < npu; q++) {
				/* a tleaf's distance sums the link values from the
				 * common ancestor down one side; others count hops */
				double want = tree ? topomatch_topology_cost(t, p, q) / 2
						   : (double)topomatch_topology_hops(t, p, q);
				ck_assert_msg(sdist(&arch, term, p, q) == (SCOTCH_Num)want,
					      "%s: d(%d, %d) = %d, want %g", texts[k], (int)p,
					      (int)q, (int)sdist(&arch, term, p, q), want);
			}
		free(term);
		SCOTCH_archExit(&arch);
		topomatch_topology_destroy(t);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("scotch");
	TCase *ta = tcase_create("targets");
	tcase_add_test(ta, grid_numbering_matches);
	tcase_add_test(ta, tleaf_numbering_matches);
	tcase_add_test(ta, tleaf_costs_and_arity_one);
	tcase_add_test(ta, tleaf_mapping_lands_on_our_pus);
	tcase_add_test(ta, sub_numbering_follows_list);
	tcase_add_test(ta, graph_deco_numbering);
	suite_add_tcase(s, ta);
	TCase *tg = tcase_create("graph");
	tcase_add_test(tg, sparse_factor_filters_edges);
	tcase_add_test(tg, weights_scaled_within_budget);
	suite_add_tcase(s, tg);
	TCase *tm = tcase_create("map");
	tcase_set_timeout(tm, 60);
	tcase_add_test(tm, stencil_on_torus);
	tcase_add_test(tm, deterministic);
	tcase_add_test(tm, constrained_tleaf_and_torus);
	tcase_add_test(tm, constrained_blocks);
	tcase_add_test(tm, oversubscribed);
	tcase_add_test(tm, undersubscribed);
	tcase_add_test(tm, graph_topology_maps);
	tcase_add_test(tm, graph_large_deco2);
	tcase_add_test(tm, graph_exact_deco_constrained);
	tcase_add_test(tm, mesh4d_and_hcub_map);
	tcase_add_test(tm, trivial_requests);
	suite_add_tcase(s, tm);
	TCase *tt = tcase_create("grid_tree");
	tcase_set_timeout(tt, 120);
	tcase_add_test(tt, grid_tree_exact_deco);
	tcase_add_test(tt, grid_tree_large_target);
	tcase_add_test(tt, grid_tree_maps);
	tcase_add_test(tt, grid_tree_large_maps);
	tcase_add_test(tt, export_keeps_distances);
	suite_add_tcase(s, tt);
	TCase *tr = tcase_create("repair");
	tcase_add_test(tr, repair_undoubles);
	tcase_add_test(tr, repair_moves_to_nearest);
	suite_add_tcase(s, tr);
	TCase *tp = tcase_create("partition");
	tcase_set_timeout(tp, 60);
	tcase_add_test(tp, partition_sizes_and_cut);
	suite_add_tcase(s, tp);
	return tm_run_suite(s);
}

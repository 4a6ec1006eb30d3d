/*
 * tmtest.h - helpers shared by the Check unit tests.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TMTEST_H
#define TMTEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topomatch.h"

/* Path of a file under tests/data (top_srcdir comes from the harness). */
static inline const char *tm_data(const char *rel)
{
	static char buf[4096]; /* test code only: single-threaded */
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof(buf), "%s/tests/data/%s", top ? top : ".", rel);
	return buf;
}

/* Assert that `hay` contains `needle`, showing both on failure. */
#define ck_assert_contains(hay, needle)                                                 \
	ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), \
		      (needle))

/*
 * Under tests/unit/run_valgrind.sh (TM_UVG_BUILD set): loops that repeat one
 * code path many times (the mutation loops) run fewer rounds there, where
 * each costs 50x; the normal and ASan+UBSan suites run them all.
 */
static inline int tm_under_valgrind(void)
{
	return getenv("TM_UVG_BUILD") != NULL;
}

/* The CPU time this process has used, all threads, in seconds. */
static inline double tm_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * Guard against an algorithm gone quadratic or expanding (minutes instead of
 * milliseconds): fails when the process used more than `limit` seconds of
 * CPU since t0 (tm_cpu_now()).  CPU time, not the wall clock, so that a
 * suite run at nice 19 behind other work (check.sh's distcheck) gets the
 * same verdict as on an idle machine.  Off under run_valgrind.sh, where the
 * 20-50x slowdown makes any bound a coin toss and its 20-minute limit per
 * suite still stands.
 */
#define tm_assert_within(t0, limit, what)                                                  \
	do {                                                                               \
		double tm_took_ = tm_cpu_now() - (t0);                                     \
		if (!tm_under_valgrind())                                                  \
			ck_assert_msg(tm_took_ < (limit), "%s took %.3f s of CPU (limit %g s)", \
				      (what), tm_took_, (double)(limit));                  \
	} while (0)

/*
 * Check's per-test timeout, 4 s by default, is a guard against hangs, not
 * a measure (time limits are CPU-time asserts, tm_assert_within): 60 s for
 * every test case that sets none, unless CK_DEFAULT_TIMEOUT says
 * otherwise, so that a loaded machine does not fail a test that takes
 * 0.4 s alone (test_topology's graph_hanging_trees_vs_bfs ran past 4 s
 * beside two simulations and a make).  Before main: Check reads it when
 * the test cases are created.
 */
__attribute__((constructor)) static void tm_default_timeout(void)
{
	setenv("CK_DEFAULT_TIMEOUT", "60", 0);
}

/* Run one suite; exit status for the automake harness. */
static inline int tm_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* A topology from its text, or a failed test. */
static inline topomatch_topology_t *tm_topo(const char *text)
{
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_parse(text, NULL, &t, err) == TOPOMATCH_OK, "%s: %s",
		      text, err);
	return t;
}

/* ns switches in a ring, `per` compute vertices behind each; switch s is
 * vertex s (per + 1), its PUs follow it. */
static inline topomatch_topology_t *tm_ring_of_switches(int ns, int per)
{
	int nv = ns * (per + 1), k = 0;
	int64_t *a = malloc(sizeof(*a) * (size_t)nv), *b = malloc(sizeof(*b) * (size_t)nv);
	unsigned char *compute = calloc((size_t)nv, 1);
	ck_assert(a && b && compute);
	for (int s = 0; s < ns; s++) {
		int sv = s * (per + 1);
		a[k] = sv;
		b[k++] = ((s + 1) % ns) * (per + 1);
		for (int c = 1; c <= per; c++) {
			a[k] = sv;
			b[k++] = sv + c;
			compute[sv + c] = 1;
		}
	}
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_graph(nv, k, a, b, NULL, compute, &t, err) == 0, "%s",
		      err);
	free(a);
	free(b);
	free(compute);
	return t;
}

/* A small topology of every kind: trees, tori, meshes, a hypercube, grids
 * with local trees, a general graph (4 switches x 4 PUs in a ring). */
static inline topomatch_topology_t *tm_random_topology(topomatch_rng_t *rng)
{
	static const char *const shapes[] = {
		"tleaf 2 4 10 4 1", "tleaf 3 2 100 3 10 4 1", "tleaf 1 12 1",
		"torus2D 4 5", "mesh3D 3 3 2", "hcub 4", "torus3D 2 3 4",
		"torus2D 3 3 local 2 2 10 2 1", "mesh2D 2 3 local 1 4 1",
	};
	uint64_t k = topomatch_rng_below(rng, 10);
	return k == 9 ? tm_ring_of_switches(4, 4) : tm_topo(shapes[k]);
}

static inline void tm_shuffle_i64(topomatch_rng_t *rng, int64_t *v, int64_t n)
{
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)topomatch_rng_below(rng, (uint64_t)i + 1), x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

/* Each PU allowed with probability 2/3 (at least one), in random order. */
static inline int64_t tm_allowed_each(topomatch_rng_t *rng, int64_t npu, int64_t *allowed)
{
	int64_t m = 0;
	for (int64_t p = 0; p < npu; p++)
		if (topomatch_rng_below(rng, 3))
			allowed[m++] = p;
	if (m == 0)
		allowed[m++] = (int64_t)topomatch_rng_below(rng, (uint64_t)npu);
	tm_shuffle_i64(rng, allowed, m);
	return m;
}

/* A random subset of m of the npu PUs (m uniform in 1..npu), in random
 * order. */
static inline int64_t tm_allowed_count(topomatch_rng_t *r, int64_t npu, int64_t *allowed)
{
	int64_t m = 1 + (int64_t)topomatch_rng_below(r, (uint64_t)npu);
	for (int64_t p = 0; p < npu; p++)
		allowed[p] = p;
	for (int64_t i = 0; i < m; i++) {
		int64_t j = i + (int64_t)topomatch_rng_below(r, (uint64_t)(npu - i));
		int64_t x = allowed[i];
		allowed[i] = allowed[j];
		allowed[j] = x;
	}
	return m;
}

/* The pattern with its tasks relabelled at random. */
static inline topomatch_affinity_t *tm_shuffled(const topomatch_affinity_t *a, uint64_t seed)
{
	topomatch_affinity_t *s;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_affinity_shuffle(a, seed, &s, err) == TOPOMATCH_OK, "%s", err);
	return s;
}

/* An x x y x z 7-point stencil, not periodic, face weights w (NULL: 1). */
static inline topomatch_affinity_t *tm_stencil3(int x, int y, int z, const double *w)
{
	const int dims[3] = { x, y, z };
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_gen_stencil(3, dims, 7, 0, w, &a, err) == TOPOMATCH_OK, "%s", err);
	return a;
}

static inline double tm_hop_bytes(const topomatch_affinity_t *a, const topomatch_topology_t *t,
				  const int64_t *pu)
{
	topomatch_metrics_t m;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_metrics_compute(a, t, pu, &m, err) == TOPOMATCH_OK, "%s", err);
	return m.hop_bytes;
}

/* Hop-bytes of task i on PU i / f (the natural placement). */
static inline double tm_natural_hop_bytes(const topomatch_affinity_t *a,
					  const topomatch_topology_t *t, int f)
{
	int64_t n = topomatch_affinity_ntasks(a), *pu = malloc((size_t)n * sizeof(*pu));
	ck_assert_ptr_nonnull(pu);
	for (int64_t i = 0; i < n; i++)
		pu[i] = i / f;
	double hb = tm_hop_bytes(a, t, pu);
	free(pu);
	return hb;
}

/* Same tasks, same pattern, bit-identical weights. */
static inline int tm_same_matrix(const topomatch_affinity_t *a, const topomatch_affinity_t *b)
{
	topomatch_csr_t x = topomatch_affinity_directed(a), y = topomatch_affinity_directed(b);

	if (x.n != y.n || x.rowptr[x.n] != y.rowptr[y.n])
		return 0;
	for (int64_t i = 0; i <= x.n; i++)
		if (x.rowptr[i] != y.rowptr[i])
			return 0;
	for (int64_t p = 0; p < x.rowptr[x.n]; p++)
		if (x.col[p] != y.col[p] || x.w[p] != y.w[p])
			return 0;
	return 1;
}

#endif /* TMTEST_H */

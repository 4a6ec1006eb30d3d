/*
 * test_topology.c - unit tests of the topology model, the Scotch target
 * parser, distances and the router, and of grids of routers with a tree
 * below each (checked against a BFS of the same machine built as a
 * graph).  Expected values are worked out by
 * hand in the comments.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "topology/topology_internal.h"

#include <math.h>
#include <unistd.h>

static topomatch_topology_t *must_parse(const char *text)
{
	topomatch_topology_t *t = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_topology_parse(text, NULL, &t, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "'%s': %s", text, err);
	ck_assert_ptr_nonnull(t);
	return t;
}

static void check_describe(const topomatch_topology_t *t, const char *want)
{
	char buf[256];
	ck_assert_int_eq(topomatch_topology_describe(t, buf, sizeof(buf)), TOPOMATCH_OK);
	ck_assert_str_eq(buf, want);
}

/* Parse `text` (named `name`), expect `status` and `needle` in the message. */
static void parse_fails(const char *text, const char *name, int status, const char *needle)
{
	topomatch_topology_t *t = (topomatch_topology_t *)&t; /* must be reset */
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_topology_parse(text, name, &t, err);
	ck_assert_msg(rc == status, "'%s': status %d, want %d (%s)", text, rc, status, err);
	ck_assert_ptr_null(t);
	ck_assert_contains(err, needle);
}

/* ---------------------------------------------------------------- parsing */

START_TEST(parse_tleaf)
{
	/* 16 x 2 x 16 = 512 PUs; costs 100 (top), 10, 1 (cores) */
	topomatch_topology_t *t = must_parse("tleaf 3 16 100 2 10 16 1");
	int arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_TREE);
	ck_assert_int_eq(topomatch_topology_npu(t), 512);
	ck_assert_int_eq(topomatch_topology_tree_shape(t, arity, cost), 3);
	ck_assert_int_eq(arity[0], 16);
	ck_assert_int_eq(arity[1], 2);
	ck_assert_int_eq(arity[2], 16);
	ck_assert_double_eq(cost[0], 100.0);
	ck_assert_double_eq(cost[1], 10.0);
	ck_assert_double_eq(cost[2], 1.0);
	ck_assert_int_eq(topomatch_topology_grid_shape(t, NULL), -1);
	check_describe(t, "tleaf 3 16 100 2 10 16 1");
	topomatch_topology_destroy(t);

	/* fractional costs are kept and printed back exactly */
	t = must_parse("tleaf 1 4 2.5");
	check_describe(t, "tleaf 1 4 2.5");
	topomatch_topology_destroy(t);

	/* Scotch's complete graph: one switch above its PUs, 1 PU included
	 * (what topo export writes for one PU: Scotch reads no "tleaf 1 1 1") */
	t = must_parse("cmplt 6");
	check_describe(t, "tleaf 1 6 1");
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 5), 2);
	topomatch_topology_destroy(t);
	t = must_parse("cmplt\n1\n");
	ck_assert_int_eq(topomatch_topology_npu(t), 1);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(parse_grids)
{
	static const struct {
		const char *in, *canon;
		int kind;
		int64_t npu;
		int ndims;
		int dims[4];
	} cases[] = {
		{ "torus2D 4 3", "torus2D 4 3", TOPOMATCH_TOPO_TORUS, 12, 2, { 4, 3 } },
		{ "torus3D 8 8 8", "torus3D 8 8 8", TOPOMATCH_TOPO_TORUS, 512, 3, { 8, 8, 8 } },
		{ "torusXD 4 2 2 2 2", "torusXD 4 2 2 2 2", TOPOMATCH_TOPO_TORUS, 16, 4,
		  { 2, 2, 2, 2 } },
		/* an XD target of 2 or 3 dimensions is written in its short form */
		{ "torusXD 2 5 6", "torus2D 5 6", TOPOMATCH_TOPO_TORUS, 30, 2, { 5, 6 } },
		{ "torusXD 1 7", "torusXD 1 7", TOPOMATCH_TOPO_TORUS, 7, 1, { 7 } },
		{ "mesh2D 4 4", "mesh2D 4 4", TOPOMATCH_TOPO_MESH, 16, 2, { 4, 4 } },
		{ "mesh3D 2 3 4", "mesh3D 2 3 4", TOPOMATCH_TOPO_MESH, 24, 3, { 2, 3, 4 } },
		{ "meshXD 1 5", "meshXD 1 5", TOPOMATCH_TOPO_MESH, 5, 1, { 5 } },
		{ "hcub 4", "hcub 4", TOPOMATCH_TOPO_HCUB, 16, 4, { 2, 2, 2, 2 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		topomatch_topology_t *t = must_parse(cases[i].in);
		int dims[TOPOMATCH_MAX_DIMS];
		ck_assert_int_eq(topomatch_topology_kind(t), cases[i].kind);
		ck_assert_int_eq(topomatch_topology_npu(t), cases[i].npu);
		ck_assert_int_eq(topomatch_topology_grid_shape(t, dims), cases[i].ndims);
		for (int k = 0; k < cases[i].ndims; k++)
			ck_assert_int_eq(dims[k], cases[i].dims[k]);
		ck_assert_int_eq(topomatch_topology_tree_shape(t, NULL, NULL), -1);
		check_describe(t, cases[i].canon);
		topomatch_topology_destroy(t);
	}
}
END_TEST

START_TEST(parse_layout)
{
	/* several lines, comments, tabs: the same target */
	topomatch_topology_t *t = must_parse("# cluster\ntleaf\t2\n  2 10 # nodes\n\n3 1\n");
	check_describe(t, "tleaf 2 2 10 3 1");
	ck_assert_int_eq(topomatch_topology_npu(t), 6);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(parse_errors)
{
	parse_fails("tleef 2 2 10 3 1", "topo.tgt", TOPOMATCH_EPARSE,
		    "topo.tgt:1: unknown target 'tleef' (expected tleaf, cmplt, torus2D, "
		    "torus3D, torusXD, mesh2D, mesh3D, meshXD, hcub, deco)");
	parse_fails("cmplt", NULL, TOPOMATCH_EPARSE,
		    "topology:1: cmplt needs 1 value, got 0 (missing terminal count)");
	parse_fails("cmplt 0", NULL, TOPOMATCH_EPARSE,
		    "topology:1: cmplt: terminal count must be >= 1 (got 0)");
	parse_fails("", NULL, TOPOMATCH_EPARSE, "topology:1: empty target");
	parse_fails("# nothing\n\n", NULL, TOPOMATCH_EPARSE, "topology:1: empty target");
	/* too few values: 2 sizes due, 1 given */
	parse_fails("torus2D 4", NULL, TOPOMATCH_EPARSE,
		    "topology:1: torus2D needs 2 values, got 1 (missing size of dimension 2)");
	/* tleaf 2 takes 1 + 2 x 2 = 5 values; the error is on the last line read */
	parse_fails("tleaf 2\n2 10\n3", NULL, TOPOMATCH_EPARSE,
		    "topology:3: tleaf needs 5 values, got 4 (missing link cost of level 2)");
	parse_fails("torusXD", NULL, TOPOMATCH_EPARSE,
		    "topology:1: torusXD: missing dimension count");
	parse_fails("hcub", NULL, TOPOMATCH_EPARSE, "hcub needs 1 value, got 0");
	/* too many values */
	parse_fails("torus2D 4 4 4", NULL, TOPOMATCH_EPARSE,
		    "topology:1: trailing garbage '4' after the torus2D target");
	parse_fails("mesh2D 4 4\n\nxyz", "m.tgt", TOPOMATCH_EPARSE,
		    "m.tgt:3: trailing garbage 'xyz'");
	/* not integers */
	parse_fails("torus2D 4 4.5", NULL, TOPOMATCH_EPARSE,
		    "topology:1: torus2D: size of dimension 2 '4.5' is not an integer");
	parse_fails("mesh3D 2 x 2", NULL, TOPOMATCH_EPARSE, "'x' is not an integer");
	parse_fails("tleaf 2 2 ten 3 1", NULL, TOPOMATCH_EPARSE,
		    "tleaf: link cost of level 1 'ten' is not a number");
	/* zero or negative sizes, bad costs */
	parse_fails("tleaf 2 0 10 3 1", NULL, TOPOMATCH_EPARSE,
		    "topology:1: tleaf: arity of level 1 must be >= 1 (got 0)");
	parse_fails("tleaf 0", NULL, TOPOMATCH_EPARSE, "level count must be >= 1 (got 0)");
	parse_fails("mesh2D 4 -1", NULL, TOPOMATCH_EPARSE, "must be >= 1 (got -1)");
	parse_fails("hcub 0", NULL, TOPOMATCH_EPARSE, "hcub: dimension must be >= 1");
	parse_fails("tleaf 1 2 0", NULL, TOPOMATCH_EPARSE, "must be finite and > 0 (got '0')");
	parse_fails("tleaf 1 2 1e400", NULL, TOPOMATCH_EPARSE,
		    "must be finite and > 0 (got '1e400')");
	parse_fails("tleaf 1 2 nan", NULL, TOPOMATCH_EPARSE, "'nan' is not a number");
	parse_fails("tleaf 1 2 0x10", NULL, TOPOMATCH_EPARSE, "'0x10' is not a number");
	parse_fails("tleaf 1 2 -3", NULL, TOPOMATCH_EPARSE, "must be finite and > 0");
	/* Scotch's decomposition-defined targets come later */
	parse_fails("deco 0 2 2 1 1", "d.tgt", TOPOMATCH_EUNSUPPORTED, "d.tgt:1: 'deco'");
	/* a NUL byte inside a file is refused with its line */
	topomatch_topology_t *t = NULL;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(tm_topology_parse_buf("hcub\n2\0", 7, "n.tgt", &t, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "n.tgt:2: NUL byte");
}
END_TEST

START_TEST(parse_limits)
{
	/* 100000^2 = 1e10 PUs > 2^26 */
	parse_fails("tleaf 2 100000 1 100000 1", NULL, TOPOMATCH_ELIMIT,
		    "topology:1: tleaf: tree has more than 67108864 PUs");
	parse_fails("tleaf 2 99999999999 1 2 1", NULL, TOPOMATCH_ELIMIT, "too large");
	parse_fails("tleaf 33", NULL, TOPOMATCH_ELIMIT, "tleaf: 33 levels (at most 32)");
	/* 1024^3 = 2^30 > 2^26 */
	parse_fails("torus3D 1024 1024 1024", NULL, TOPOMATCH_ELIMIT, "more than 67108864 PUs");
	parse_fails("torusXD 17", NULL, TOPOMATCH_ELIMIT, "17 dimensions (at most 16)");
	parse_fails("hcub 17", NULL, TOPOMATCH_ELIMIT, "hcub");
	/* 2^26 exactly is accepted */
	topomatch_topology_t *t = must_parse("tleaf 2 8192 1 8192 1");
	ck_assert_int_eq(topomatch_topology_npu(t), INT64_C(1) << 26);
	topomatch_topology_destroy(t);
	/* so are 32 levels and 16 dimensions */
	char levels[300];
	int len = snprintf(levels, sizeof(levels), "tleaf 32");
	for (int k = 0; k < 32; k++)
		len += snprintf(levels + len, sizeof(levels) - (size_t)len, " %d 1", k < 2 ? 2 : 1);
	t = must_parse(levels);
	ck_assert_int_eq(topomatch_topology_npu(t), 4);
	topomatch_topology_destroy(t);
	t = must_parse("hcub 16");
	ck_assert_int_eq(topomatch_topology_npu(t), 65536);
	topomatch_topology_destroy(t);

	/* the API refuses the same */
	int big[2] = { 1 << 20, 1 << 20 };
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_tree(2, big, NULL, &t, err), TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(topomatch_topology_grid(2, big, 1, &t, err), TOPOMATCH_ELIMIT);
	ck_assert_int_eq(topomatch_topology_tree(33, big, NULL, &t, err), TOPOMATCH_ELIMIT);
	ck_assert_int_eq(topomatch_topology_tree(0, big, NULL, &t, err), TOPOMATCH_EINVAL);
	int zero[2] = { 2, 0 };
	ck_assert_int_eq(topomatch_topology_grid(2, zero, 0, &t, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "dimension 2: size must be >= 1");
	double bad[2] = { 1.0, INFINITY };
	int ar[2] = { 2, 2 };
	ck_assert_int_eq(topomatch_topology_tree(2, ar, bad, &t, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "tree level 2: link cost");
	ck_assert_int_eq(topomatch_topology_grid(17, ar, 1, &t, err), TOPOMATCH_ELIMIT);
	/* each cost is finite, but a route (2 x (1e308 + 1e308)) would not be */
	double huge[2] = { 1e308, 1e308 };
	ck_assert_int_eq(topomatch_topology_tree(2, ar, huge, &t, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "link costs too large");
	static const int64_t ga[] = { 0, 1 }, gb[] = { 1, 2 };
	ck_assert_int_eq(topomatch_topology_graph(3, 2, ga, gb, huge, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "graph: link costs too large");
}
END_TEST

START_TEST(describe_truncates)
{
	topomatch_topology_t *t = must_parse("tleaf 3 16 100 2 10 16 1");
	char buf[8];
	ck_assert_int_eq(topomatch_topology_describe(t, buf, sizeof(buf)), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(buf, "tleaf 3");
	topomatch_topology_destroy(t);
}
END_TEST

/* ---------------------------------------------------------------- loading */

static char *temp_file(const char *content)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/tm_topo_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(content, f);
	fclose(f);
	return path;
}

START_TEST(load_file_vs_literal)
{
	topomatch_topology_t *a, *b;
	char err[TOPOMATCH_ERRLEN];
	char *path = temp_file("# two levels\ntleaf 2\n2 10\n3 1\n");
	ck_assert_int_eq(topomatch_topology_load(path, &a, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_load("tleaf 2 2 10 3 1", &b, err), TOPOMATCH_OK);
	check_describe(a, "tleaf 2 2 10 3 1");
	check_describe(b, "tleaf 2 2 10 3 1");
	topomatch_topology_destroy(a);
	topomatch_topology_destroy(b);
	unlink(path);

	/* a file's messages carry its path and line */
	path = temp_file("\n\ntleef 1 2 1\n");
	ck_assert_int_eq(topomatch_topology_load(path, &a, err), TOPOMATCH_EPARSE);
	ck_assert_ptr_null(a);
	char want[128];
	snprintf(want, sizeof(want), "%s:3: unknown target 'tleef'", path);
	ck_assert_contains(err, want);
	unlink(path);

	/* a literal gets "topology"; a lone unknown word may have been a path */
	ck_assert_int_eq(topomatch_topology_load("torus2D 4", &a, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "topology:1: torus2D needs 2 values");
	ck_assert_int_eq(topomatch_topology_load("/nonexistent/x.tgt", &a, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "unknown target '/nonexistent/x.tgt', and no file of that name");
	/* a directory is not a target file */
	ck_assert_int_eq(topomatch_topology_load("/tmp", &a, err), TOPOMATCH_EPARSE);
}
END_TEST

START_TEST(load_data_files)
{
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_load(tm_data("topology/cluster-tleaf.tgt"), &t, err),
			 TOPOMATCH_OK);
	check_describe(t, "tleaf 3 16 100 2 10 16 1");
	topomatch_topology_destroy(t);
	ck_assert_int_eq(topomatch_topology_load(tm_data("topology/torus-4x3.tgt"), &t, err),
			 TOPOMATCH_OK);
	check_describe(t, "torus2D 4 3");
	topomatch_topology_destroy(t);
	ck_assert_int_eq(topomatch_topology_load(tm_data("topology/bad-name.tgt"), &t, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "bad-name.tgt:2: unknown target 'tleef'");
	ck_assert_int_eq(topomatch_topology_load(tm_data("topology/bad-garbage.tgt"), &t, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "bad-garbage.tgt:3: trailing garbage '4' after the mesh2D target");
}
END_TEST

/* ---------------------------------------------------------------- distances */

START_TEST(tree_numbering_and_distances)
{
	/*
	 * tleaf 2 2 10 3 1: root -> 2 nodes (links cost 10) -> 3 PUs each
	 * (links cost 1).  PU p sits under node p / 3: PUs 0-2 and 3-5.
	 * Same node: LCA at depth 1, d = 2 x (2 - 1) = 2, B = 2 x 1 = 2.
	 * Different nodes: LCA = root, d = 4, B = 2 x (10 + 1) = 22.
	 */
	topomatch_topology_t *t = must_parse("tleaf 2 2 10 3 1");
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 0), 0);
	ck_assert_double_eq(topomatch_topology_cost(t, 4, 4), 0.0);
	/* LCA depths: 2 for the same PU, 1 under one node, 0 = root */
	ck_assert_int_eq(tm_tree_lca(t, 4, 4), 2);
	ck_assert_int_eq(tm_tree_lca(t, 3, 5), 1);
	ck_assert_int_eq(tm_tree_lca(t, 2, 3), 0);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 1), 2);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 2), 2);
	ck_assert_int_eq(topomatch_topology_hops(t, 2, 3), 4); /* 2/3 = 0, 3/3 = 1 */
	ck_assert_int_eq(topomatch_topology_hops(t, 3, 5), 2);
	ck_assert_double_eq(topomatch_topology_cost(t, 0, 1), 2.0);
	ck_assert_double_eq(topomatch_topology_cost(t, 0, 3), 22.0);
	ck_assert_double_eq(topomatch_topology_cost(t, 5, 1), 22.0);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 6), -1);
	ck_assert_int_eq(topomatch_topology_hops(t, -1, 0), -1);
	topomatch_topology_destroy(t);

	/*
	 * tleaf 3 2 1 2 1 2 1, 8 PUs; PU digits (depth 0, 1, 2) of 5 = 1 0 1
	 * and of 4 = 1 0 0: LCA depth 2, d = 2.  5 vs 7 (1 1 1): depth 1,
	 * d = 4.  5 vs 2 (0 1 0): root, d = 6, B = 6.
	 */
	t = must_parse("tleaf 3 2 1 2 1 2 1");
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 4), 2);
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 7), 4);
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 2), 6);
	ck_assert_double_eq(topomatch_topology_cost(t, 5, 2), 6.0);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(grid_numbering_and_distances)
{
	/* torus 4 x 3: PU = x + 4y, so PU 5 = (1, 1) and PU 10 = (2, 2) */
	topomatch_topology_t *t = must_parse("torus2D 4 3");
	ck_assert_int_eq(tm_grid_coord(t, 0, 5), 1);
	ck_assert_int_eq(tm_grid_coord(t, 1, 5), 1);
	ck_assert_int_eq(tm_grid_coord(t, 0, 10), 2);
	ck_assert_int_eq(tm_grid_coord(t, 1, 10), 2);
	/* (0,0)-(1,1): 1 + 1 */
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 5), 2);
	/* (0,0)-(3,0): |dx| = 3 but the wrap link makes it 1 */
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 3), 1);
	/* (0,0)-(2,2): x min(2, 2) = 2, y min(2, 1) = 1 */
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 10), 3);
	ck_assert_double_eq(topomatch_topology_cost(t, 0, 10), 3.0);
	topomatch_topology_destroy(t);

	/* the same shape as a mesh: no wrap */
	t = must_parse("mesh2D 4 3");
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 3), 3);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 10), 4);
	ck_assert_int_eq(topomatch_topology_hops(t, 11, 0), 5);
	topomatch_topology_destroy(t);

	/* torus 3D 4 4 4: PU 63 = (3,3,3) is one wrap hop away in each dim */
	t = must_parse("torus3D 4 4 4");
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 63), 3);
	topomatch_topology_destroy(t);

	/* hypercube: popcount of the XOR; 5 = 101, 2 = 010 */
	t = must_parse("hcub 3");
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 2), 3);
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 4), 1);
	ck_assert_double_eq(topomatch_topology_cost(t, 6, 0), 2.0);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(degenerate_torus_dims)
{
	/* dims of 1 and 2: the wrap adds nothing; 2 PUs, 1 hop either way */
	int dims[2] = { 2, 1 };
	topomatch_topology_t *t;
	topomatch_router_t *r;
	int64_t links[4];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_grid(2, dims, 1, &t, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_npu(t), 2);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 1), 1);
	ck_assert_int_eq(topomatch_topology_hops(t, 1, 0), 1);
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	/* 0 -> 1: tie (1 each way) goes +: link 2(0*2 + 0) + 0 = 0;
	 * 1 -> 0: also +, over the wrap: link 2(1*2 + 0) = 4 */
	topomatch_router_source(r, 0);
	ck_assert_int_eq(topomatch_router_route(r, 1, links, 4), 1);
	ck_assert_int_eq(links[0], 0);
	topomatch_router_source(r, 1);
	ck_assert_int_eq(topomatch_router_route(r, 0, links, 4), 1);
	ck_assert_int_eq(links[0], 4);
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);

	/* a single-PU torus */
	int one = 1;
	ck_assert_int_eq(topomatch_topology_grid(1, &one, 1, &t, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 0), 0);
	topomatch_topology_destroy(t);
}
END_TEST

/* ---------------------------------------------------------------- graphs */

/*
 * Two paths from 0 to 5: 0-1-4-5 (links of cost 1) and 0-2-3-5 (cost 10).
 * Link k is 2k from a[k] to b[k], 2k+1 back.
 */
static const int64_t g6_a[] = { 0, 0, 1, 2, 3, 4 };
static const int64_t g6_b[] = { 1, 2, 4, 3, 5, 5 };
static const double g6_c[] = { 1, 10, 1, 10, 10, 1 };

START_TEST(graph_bfs_ties)
{
	topomatch_topology_t *t;
	topomatch_router_t *r;
	int64_t links[8];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_graph(6, 6, g6_a, g6_b, g6_c, NULL, &t, err),
			 TOPOMATCH_OK);
	check_describe(t, "graph 6 vertices, 6 links, 6 PUs");
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_GRAPH);
	ck_assert_int_eq(topomatch_topology_grid_shape(t, NULL), -1);
	/*
	 * BFS from 0 takes neighbour 1 before 2, so 4 (via 1) is dequeued
	 * before 3 (via 2) and finds 5: route 0 -> 1 -> 4 -> 5, links
	 * 0 (k0 forward), 4 (k2 forward), 10 (k5 forward), cost 3.
	 * BFS from 5 takes 3 before 4, so 2 (via 3) comes before 1 (via 4)
	 * and finds 0: route 5 -> 3 -> 2 -> 0, links 9, 7, 3, cost 30.
	 */
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 5), 3);
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 0), 3);
	ck_assert_double_eq(topomatch_topology_cost(t, 0, 5), 3.0);
	ck_assert_double_eq(topomatch_topology_cost(t, 5, 0), 30.0);
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_nlinks(r), 12);
	topomatch_router_source(r, 0);
	ck_assert_int_eq(topomatch_router_route(r, 5, links, 8), 3);
	ck_assert_int_eq(links[0], 0);
	ck_assert_int_eq(links[1], 4);
	ck_assert_int_eq(links[2], 10);
	ck_assert_double_eq(topomatch_router_cost(r, 5), 3.0);
	topomatch_router_source(r, 5);
	ck_assert_int_eq(topomatch_router_route(r, 0, links, 8), 3);
	ck_assert_int_eq(links[0], 9);
	ck_assert_int_eq(links[1], 7);
	ck_assert_int_eq(links[2], 3);
	ck_assert_double_eq(topomatch_router_cost(r, 0), 30.0);
	/* 5 -> 2: via 3, links 9, 7, cost 20 */
	ck_assert_int_eq(topomatch_router_hops(r, 2), 2);
	ck_assert_double_eq(topomatch_router_cost(r, 2), 20.0);
	/* a short buffer gets the first links; the count is still the length */
	int64_t one[1] = { -7 };
	ck_assert_int_eq(topomatch_router_route(r, 0, one, 1), 3);
	ck_assert_int_eq(one[0], 9);
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);
}
END_TEST

/* The links at PU p's switch, as topomatch_router_attach_links gives them
 * (a NULL, short buffer first: the count alone). */
static void check_attach(const topomatch_topology_t *t, int64_t p, int64_t n,
			 const int64_t *want)
{
	topomatch_router_t *r;
	int64_t links[16] = { 0 }, one = -7;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_attach_links(r, p, NULL, 0), n);
	ck_assert_int_eq(topomatch_router_attach_links(r, p, &one, 1), n);
	ck_assert_int_eq(one, n ? want[0] : -7);
	ck_assert_int_eq(topomatch_router_attach_links(r, p, links, 16), n);
	for (int64_t i = 0; i < n; i++)
		ck_assert_msg(links[i] == want[i], "PU %lld: link %lld is %lld, not %lld",
			      (long long)p, (long long)i, (long long)links[i], (long long)want[i]);
	topomatch_router_destroy(r);
}

/*
 * Mesh of 3 routers in a line: router v's link to v + 1 is 2v, to v - 1
 * 2v + 1 (router.c), each given with the neighbour's link back; the
 * border routers have one neighbour.  Hypercube of 4: PU 1's links are
 * 1 x 2 + b, back (1 ^ 2^b) x 2 + b.  Graph g6: vertex 0's links to 1
 * (link 0, back 1) and to 2 (2, back 3).  Trees: none.  The links are
 * those the routes take.
 */
START_TEST(attach_links)
{
	int three = 3;
	topomatch_topology_t *t;
	topomatch_router_t *r;
	int64_t links[4];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_grid(1, &three, 0, &t, err), TOPOMATCH_OK);
	check_attach(t, 0, 2, (const int64_t[]){ 0, 3 });
	check_attach(t, 1, 4, (const int64_t[]){ 2, 5, 3, 0 });
	check_attach(t, 2, 2, (const int64_t[]){ 5, 2 });
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	topomatch_router_source(r, 1);
	ck_assert(topomatch_router_route(r, 2, links, 4) == 1 && links[0] == 2);
	ck_assert(topomatch_router_route(r, 0, links, 4) == 1 && links[0] == 3);
	ck_assert_int_eq(topomatch_router_attach_links(r, 3, links, 4), -1);
	ck_assert_int_eq(topomatch_router_attach_links(r, -1, links, 4), -1);
	ck_assert_int_eq(topomatch_router_attach_links(NULL, 0, links, 4), -1);
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);

	t = must_parse("hcub 2");
	check_attach(t, 1, 4, (const int64_t[]){ 2, 0, 3, 7 });
	topomatch_topology_destroy(t);

	ck_assert_int_eq(topomatch_topology_graph(6, 6, g6_a, g6_b, g6_c, NULL, &t, err),
			 TOPOMATCH_OK);
	check_attach(t, 0, 4, (const int64_t[]){ 0, 1, 2, 3 });
	topomatch_topology_destroy(t);

	t = must_parse("tleaf 2 2 1 2 1");
	check_attach(t, 0, 0, NULL);
	topomatch_topology_destroy(t);
}
END_TEST

/* Every PU pair's hops, cost and route from r are those of a BFS of the
 * whole graph (full: tm_bfs_init'ed for its vertices). */
static void same_as_bfs(const topomatch_topology_t *t, topomatch_router_t *r, tm_bfs_t *full,
			int round, const char *what)
{
	int64_t links[512], want[512];
	for (int64_t p = 0; p < t->npu; p++) {
		topomatch_router_source(r, p);
		tm_bfs_run(full, t, t->pu_vert[p]);
		for (int64_t q = 0; q < t->npu; q++) {
			int64_t w = t->pu_vert[q], h = full->dist[w];
			for (int64_t i = h - 1, v = w; i >= 0; i--, v = full->parent[v])
				want[i] = full->plink[v];
			ck_assert_int_eq(topomatch_router_hops(r, q), h);
			ck_assert_double_eq_tol(topomatch_router_cost(r, q), full->cost[w], 1e-9);
			ck_assert_int_le(h, 512);
			ck_assert_int_eq(topomatch_router_route(r, q, links, 512), h);
			for (int64_t i = 0; i < h; i++)
				ck_assert_msg(links[i] == want[i], "%sround %d, %lld -> %lld: link %lld "
					      "is %lld, BFS %lld", what, round, (long long)p,
					      (long long)q, (long long)i, (long long)links[i],
					      (long long)want[i]);
		}
	}
}

/*
 * The router's BFS over the core with hanging trees (graph_hang.c) gives
 * the hops, costs and routes of a BFS over the whole graph: random
 * graphs of a cyclic core (with chords and a parallel link) and trees
 * hung off it; PUs on core vertices, inner tree vertices and leaves;
 * every pair of PUs compared.
 */
START_TEST(graph_hanging_trees_vs_bfs)
{
	topomatch_rng_t rng;
	topomatch_rng_seed(&rng, 11);
	for (int round = 0; round < 30; round++) {
		int64_t ncore = 3 + (int64_t)topomatch_rng_below(&rng, 8);
		int64_t nv = ncore + 20 + (int64_t)topomatch_rng_below(&rng, 40), m = 0;
		int64_t a[400], b[400];
		double c[400];
		unsigned char compute[128];
		for (int64_t v = 0; v < ncore; v++) { /* a ring with chords */
			a[m] = v, b[m] = (v + 1) % ncore, c[m++] = 1 + (double)(v % 3);
			if (topomatch_rng_below(&rng, 3) == 0)
				a[m] = v, b[m] = (v + 2) % ncore, c[m++] = 2;
		}
		a[m] = 0, b[m] = 1, c[m++] = 5; /* a parallel link */
		for (int64_t v = ncore; v < nv; v++) { /* each hangs off an earlier vertex */
			a[m] = (int64_t)topomatch_rng_below(&rng, (uint64_t)v);
			b[m] = v;
			c[m++] = 1 + (double)topomatch_rng_below(&rng, 4);
		}
		for (int64_t v = 0; v < nv; v++)
			compute[v] = topomatch_rng_below(&rng, 3) != 0;
		compute[nv - 1] = 1;
		topomatch_topology_t *t;
		char err[TOPOMATCH_ERRLEN];
		ck_assert_msg(topomatch_topology_graph(nv, m, a, b, c, compute, &t, err) == 0, "%s",
			      err);
		ck_assert_int_le(t->ncore, ncore);
		topomatch_router_t *r;
		tm_bfs_t full;
		ck_assert_int_eq(topomatch_router_create(t, &r, err), 0);
		ck_assert_int_eq(tm_bfs_init(&full, t->nvert), 0);
		same_as_bfs(t, r, &full, round, "");
		/* the core's hop and parent tables (topomatch_cluster_precompute)
		 * give the same hops, and routes (parallel links included) and
		 * costs stay those of the BFS */
		ck_assert_int_eq(tm_graph_core_table(t), 0);
		ck_assert_ptr_nonnull(t->core_hops);
		ck_assert_ptr_nonnull(t->core_parent);
		same_as_bfs(t, r, &full, round, "with the tables, ");
		tm_bfs_free(&full);
		topomatch_router_destroy(r);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/*
 * The tables hold hops in a byte: a ring of 508 switches (254 hops
 * across) gets them, one of 510 (255) does not; with or without, hops
 * and routes are the ring's (from a few sources: every pair would take
 * a minute).
 */
START_TEST(graph_table_hop_limit)
{
	static int64_t a[510], b[510], links[512];
	for (int64_t n = 508; n <= 510; n += 2) {
		for (int64_t v = 0; v < n; v++)
			a[v] = v, b[v] = (v + 1) % n;
		topomatch_topology_t *t;
		topomatch_router_t *r;
		char err[TOPOMATCH_ERRLEN];
		ck_assert_msg(topomatch_topology_graph(n, n, a, b, NULL, NULL, &t, err) == 0, "%s",
			      err);
		ck_assert_int_eq(t->ncore, n);
		ck_assert_int_eq(tm_graph_core_table(t), 0);
		ck_assert_int_eq(t->core_hops != NULL, n == 508);
		ck_assert_int_eq(t->core_parent != NULL, n == 508);
		ck_assert_int_eq(topomatch_router_create(t, &r, err), 0);
		for (int64_t p = 0; p < n; p += 101) {
			topomatch_router_source(r, p);
			for (int64_t q = 0; q < n; q++) {
				int64_t d = q > p ? q - p : p - q;
				d = d < n - d ? d : n - d;
				ck_assert_int_eq(topomatch_router_hops(r, q), d);
				ck_assert_int_eq(topomatch_router_route(r, q, links, 512), d);
			}
		}
		topomatch_router_destroy(r);
		topomatch_topology_destroy(t);
	}
}
END_TEST

START_TEST(graph_switches)
{
	/*
	 * Star: vertex 0 is a switch, vertices 1-3 are compute (PUs 0-2),
	 * vertex 4 is a switch hanging off vertex 3.  Links listed out of
	 * order; parallel links 1-0 (k3) and 0-1 (k0): the lower id routes.
	 */
	static const int64_t a[] = { 0, 0, 3, 1, 0 };
	static const int64_t b[] = { 1, 2, 4, 0, 3 };
	static const unsigned char comp[] = { 0, 1, 1, 1, 0 };
	topomatch_topology_t *t;
	topomatch_router_t *r;
	int64_t links[4];
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_graph(5, 5, a, b, NULL, comp, &t, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_npu(t), 3);
	check_describe(t, "graph 5 vertices, 5 links, 3 PUs");
	/* PU 0 = vertex 1, PU 2 = vertex 3: 1 -> 0 -> 3 */
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 2), 2);
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	topomatch_router_source(r, 0);
	/* vertex 1 reaches 0 by k0 backwards (id 1) before k3 forwards (6);
	 * then 0 -> 3 is k4 forwards (8) */
	ck_assert_int_eq(topomatch_router_route(r, 2, links, 4), 2);
	ck_assert_int_eq(links[0], 1);
	ck_assert_int_eq(links[1], 8);
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(graph_errors)
{
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	/* 0-1 and 2-3: PU 2 cannot reach PU 0 */
	static const int64_t a[] = { 0, 2 }, b[] = { 1, 3 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, b, NULL, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_contains(err, "graph is not connected: PU 2 (vertex 2)");
	/* the same with 2 and 3 as switches is fine: only PUs must connect */
	static const unsigned char comp[] = { 1, 1, 0, 0 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, b, NULL, comp, &t, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_npu(t), 2);
	topomatch_topology_destroy(t);
	/* no PU at all */
	static const unsigned char none[] = { 0, 0, 0, 0 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, b, NULL, none, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "no compute vertex");
	/* out of range, self loop, bad cost */
	static const int64_t bad_b[] = { 1, 4 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, bad_b, NULL, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "graph link 1: vertex out of range [0, 4)");
	static const int64_t loop_b[] = { 0, 3 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, loop_b, NULL, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "connects vertex 0 to itself");
	static const double c[] = { 1.0, -2.0 };
	ck_assert_int_eq(topomatch_topology_graph(4, 2, a, b, c, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "graph link 1: cost must be finite and > 0");
	ck_assert_int_eq(topomatch_topology_graph(0, 0, NULL, NULL, NULL, NULL, &t, err),
			 TOPOMATCH_EINVAL);
	/* a single vertex without links is a 1-PU graph */
	ck_assert_int_eq(topomatch_topology_graph(1, 0, NULL, NULL, NULL, NULL, &t, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 0), 0);
	topomatch_topology_destroy(t);
}
END_TEST

/* ---------------------------------------------------------------- routes */

static void check_route(topomatch_router_t *r, int64_t p, int64_t q, int n,
			const int64_t *want)
{
	int64_t links[16];
	topomatch_router_source(r, p);
	ck_assert_int_eq(topomatch_router_route(r, q, links, 16), n);
	ck_assert_int_eq(topomatch_router_hops(r, q), n);
	for (int i = 0; i < n; i++)
		ck_assert_msg(links[i] == want[i], "route %lld->%lld link %d: %lld, want %lld",
			      (long long)p, (long long)q, i, (long long)links[i],
			      (long long)want[i]);
}

START_TEST(route_tree)
{
	/*
	 * tleaf 2 2 10 3 1: non-root nodes are 0, 1 (depth 1) and 2 + p
	 * (depth 2, above PU p); node n: up link 2n, down link 2n+1.
	 * 0 -> 4: up from node 2 (4), up from node 0 (0), down to node 1 (3),
	 * down to node 6 (13).  1 -> 2: up from node 3 (6), down to node 4 (9).
	 */
	topomatch_topology_t *t = must_parse("tleaf 2 2 10 3 1");
	topomatch_router_t *r;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_nlinks(r), 16);
	check_route(r, 0, 4, 4, (const int64_t[]){ 4, 0, 3, 13 });
	ck_assert_double_eq(topomatch_router_cost(r, 4), 22.0);
	check_route(r, 1, 2, 2, (const int64_t[]){ 6, 9 });
	check_route(r, 5, 5, 0, NULL);
	/* no source selected / out of range */
	topomatch_router_source(r, 6);
	ck_assert_int_eq(topomatch_router_hops(r, 0), -1);
	ck_assert_int_eq(topomatch_router_route(r, 0, NULL, 0), -1);
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(route_grid)
{
	/*
	 * torus 4 x 3 (ndims 2): node v's + link in dim k is 2(2v + k), its
	 * - link 2(2v + k) + 1.
	 */
	topomatch_topology_t *t = must_parse("torus2D 4 3");
	topomatch_router_t *r;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_nlinks(r), 48);
	/* 0 -> 3: x 0 -> 3 is 1 step back over the wrap: link 1 */
	check_route(r, 0, 3, 1, (const int64_t[]){ 1 });
	/* 0 -> 2: exactly half-way (2 either way): + through nodes 0, 1 */
	check_route(r, 0, 2, 2, (const int64_t[]){ 0, 4 });
	/* 0 -> 10 = (2,2): x + + (links 0, 4) to node 2, then y 0 -> 2 is
	 * 1 step back: link 2(2*2 + 1) + 1 = 11 */
	check_route(r, 0, 10, 3, (const int64_t[]){ 0, 4, 11 });
	/* 10 -> 0: x tie, + from 10 (40) and 11 (44) to 8 = (0,2); y 2 -> 0
	 * is 1 step + over the wrap from node 8: 2(8*2 + 1) = 34 */
	check_route(r, 10, 0, 3, (const int64_t[]){ 40, 44, 34 });
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);

	t = must_parse("mesh2D 4 3");
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	/* 0 -> 10: x + from 0, 1 (0, 4); y + from 2, 6 (2*5 = 10, 2*13 = 26) */
	check_route(r, 0, 10, 4, (const int64_t[]){ 0, 4, 10, 26 });
	/* 10 -> 0: x - from 10, 9 (41, 37); y - from 8, 4 (35, 19) */
	check_route(r, 10, 0, 4, (const int64_t[]){ 41, 37, 35, 19 });
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(route_hcub)
{
	/* hcub 3: link v*3 + b flips bit b of v.  5 -> 2: bit 0 from 5
	 * (15), bit 1 from 4 (13), bit 2 from 6 (20). */
	topomatch_topology_t *t = must_parse("hcub 3");
	topomatch_router_t *r;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_nlinks(r), 24);
	check_route(r, 5, 2, 3, (const int64_t[]){ 15, 13, 20 });
	check_route(r, 2, 5, 3, (const int64_t[]){ 6, 10, 5 });
	topomatch_router_destroy(r);
	topomatch_topology_destroy(t);
}
END_TEST

/* Every route: length = hops = topology_hops <= maxhops, ids in range,
 * the router's cost = the topology's. */
static void check_all_routes(topomatch_topology_t *t)
{
	topomatch_router_t *r;
	char err[TOPOMATCH_ERRLEN];
	int64_t links[64], n = topomatch_topology_npu(t);
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	for (int64_t p = 0; p < n; p++) {
		topomatch_router_source(r, p);
		for (int64_t q = 0; q < n; q++) {
			int64_t h = topomatch_router_route(r, q, links, 64);
			ck_assert_int_eq(h, topomatch_topology_hops(t, p, q));
			ck_assert_int_le(h, t->maxhops); /* the metrics' route buffer */
			ck_assert_int_eq(h, topomatch_router_hops(r, q));
			ck_assert_double_eq_tol(topomatch_router_cost(r, q),
						topomatch_topology_cost(t, p, q), 1e-12);
			for (int64_t i = 0; i < h; i++)
				ck_assert(links[i] >= 0 && links[i] < topomatch_router_nlinks(r));
		}
	}
	topomatch_router_destroy(r);
}

START_TEST(routes_consistent)
{
	static const char *const targets[] = { "tleaf 3 2 5 3 2 2 1", "torus2D 5 4",
					       "torus3D 2 3 4", "mesh3D 3 2 3", "hcub 4",
					       "torusXD 1 6" };
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		topomatch_topology_t *t = must_parse(targets[i]);
		check_all_routes(t);
		topomatch_topology_destroy(t);
	}
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_graph(6, 6, g6_a, g6_b, g6_c, NULL, &t, err),
			 TOPOMATCH_OK);
	check_all_routes(t);
	topomatch_topology_destroy(t);
}
END_TEST

/* ------------------------------------------------------ grids with trees */

/* A grid of routers with a local tree, as topomatch_topology_grid_tree
 * takes it. */
typedef struct gt_shape {
	int ndims;
	int dims[3];
	unsigned char wrap[3];
	int nlevels;
	int arity[3];
	double cost[3];
	double grid_cost;
} gt_shape_t;

static const gt_shape_t gt_shapes[] = {
	/* plain grids: nlevels 0, 1-D, all or no wrap */
	{ 1, { 5 }, { 0 }, 0, { 0 }, { 0 }, 1.0 },
	{ 2, { 4, 3 }, { 1, 1 }, 0, { 0 }, { 0 }, 1.0 },
	/* mixed wrap without a local tree; a wrap of 2 */
	{ 2, { 2, 3 }, { 1, 0 }, 0, { 0 }, { 0 }, 3.0 },
	{ 3, { 3, 4, 2 }, { 1, 0, 1 }, 1, { 3 }, { 2.0 }, 1.0 },
	/* 1-D torus with two levels, uneven costs */
	{ 1, { 5 }, { 1 }, 2, { 2, 3 }, { 10.0, 1.0 }, 100.0 },
	/* three levels, arity 1 in the middle */
	{ 2, { 4, 3 }, { 0, 1 }, 3, { 2, 1, 2 }, { 10.0, 5.0, 1.0 }, 100.0 },
	/* arities all 1: one PU per router, three links up */
	{ 2, { 3, 3 }, { 1, 0 }, 3, { 1, 1, 1 }, { 1.0, 2.0, 3.0 }, 0.5 },
	/* a 1 x 5 grid, a torus with a tree */
	{ 2, { 1, 5 }, { 1, 1 }, 2, { 2, 2 }, { 1.0, 1.0 }, 1.0 },
	{ 3, { 3, 3, 2 }, { 1, 1, 1 }, 1, { 2 }, { 1.5 }, 2.5 },
};

static topomatch_topology_t *gt_make(const gt_shape_t *s)
{
	topomatch_topology_t *t = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_topology_grid_tree(s->ndims, s->dims, s->wrap, s->nlevels, s->arity,
					      s->cost, s->grid_cost, &t, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s", err);
	return t;
}

/* Links of an explicit graph under construction. */
typedef struct gt_links {
	int64_t n, *a, *b;
	double *c;
} gt_links_t;

static void gt_link(gt_links_t *l, int64_t a, int64_t b, double c)
{
	l->a[l->n] = a;
	l->b[l->n] = b;
	l->c[l->n++] = c;
}

/*
 * The local tree of one router, depth first: internal nodes take the next
 * vertex numbers (*next), leaves the PU vertices pu0 + (*leaf)++, so that
 * leaves come out in tleaf order.  Returns the vertex of the subtree root.
 */
static int64_t gt_subtree(const gt_shape_t *s, int depth, int64_t *next, int64_t pu0,
			  int64_t *leaf, gt_links_t *l)
{
	if (depth == s->nlevels)
		return pu0 + (*leaf)++;
	int64_t v = (*next)++;
	for (int c = 0; c < s->arity[depth]; c++)
		gt_link(l, v, gt_subtree(s, depth + 1, next, pu0, leaf, l), s->cost[depth]);
	return v;
}

/*
 * The same machine built independently as a graph topology: the routers
 * first (x fastest), the internal tree nodes, then the PUs last (compute
 * vertices in order = PU order).  A wrap of 2 adds a parallel link.
 */
static topomatch_topology_t *gt_graph(const gt_shape_t *s)
{
	int64_t nr = 1, L = 1, inner = 0, per = 1;
	for (int k = 0; k < s->ndims; k++)
		nr *= s->dims[k];
	for (int k = 0; k < s->nlevels; k++) {
		if (k > 0)
			inner += per;
		per *= s->arity[k];
	}
	L = per;
	int64_t npu = nr * L, nv = nr + nr * inner + (s->nlevels ? npu : 0);
	int64_t pu0 = s->nlevels ? nr + nr * inner : 0, cap = 2 * nv + 2 * nr * s->ndims;
	gt_links_t l = { 0, malloc((size_t)cap * 8), malloc((size_t)cap * 8),
			 malloc((size_t)cap * 8) };
	unsigned char *compute = calloc((size_t)nv, 1);
	int64_t next = nr, leaf = 0;
	for (int64_t r = 0; r < nr; r++) {
		if (s->nlevels == 0)
			continue;
		for (int c = 0; c < s->arity[0]; c++)
			gt_link(&l, r, gt_subtree(s, 1, &next, pu0, &leaf, &l), s->cost[0]);
	}
	for (int64_t v = pu0; v < nv; v++)
		compute[v] = 1;
	for (int64_t r = 0, st; r < nr; r++) {
		st = 1;
		for (int k = 0; k < s->ndims; st *= s->dims[k], k++) {
			int64_t x = r / st % s->dims[k];
			if (x + 1 < s->dims[k])
				gt_link(&l, r, r + st, s->grid_cost);
			else if (s->wrap[k] && s->dims[k] > 1)
				gt_link(&l, r, r - x * st, s->grid_cost);
		}
	}
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(topomatch_topology_graph(nv, l.n, l.a, l.b, l.c, compute, &t, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	ck_assert_int_eq(topomatch_topology_npu(t), npu);
	free(l.a);
	free(l.b);
	free(l.c);
	free(compute);
	return t;
}

/* Hops and costs of every pair against a BFS of the explicit graph. */
START_TEST(grid_tree_vs_bfs)
{
	char err[TOPOMATCH_ERRLEN];
	for (size_t i = 0; i < sizeof(gt_shapes) / sizeof(gt_shapes[0]); i++) {
		topomatch_topology_t *t = gt_make(&gt_shapes[i]), *g = gt_graph(&gt_shapes[i]);
		topomatch_router_t *r;
		int64_t n = topomatch_topology_npu(t);
		ck_assert_int_eq(topomatch_topology_npu(g), n);
		ck_assert_int_eq(topomatch_router_create(g, &r, err), TOPOMATCH_OK);
		for (int64_t p = 0; p < n; p++) {
			topomatch_router_source(r, p);
			for (int64_t q = 0; q < n; q++) {
				ck_assert_msg(topomatch_topology_hops(t, p, q) ==
						      topomatch_router_hops(r, q),
					      "shape %zu: hops(%lld, %lld) = %lld, BFS %lld", i,
					      (long long)p, (long long)q,
					      (long long)topomatch_topology_hops(t, p, q),
					      (long long)topomatch_router_hops(r, q));
				ck_assert_double_eq_tol(topomatch_topology_cost(t, p, q),
							topomatch_router_cost(r, q), 1e-9);
			}
		}
		topomatch_router_destroy(r);
		topomatch_topology_destroy(g);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/*
 * meshXD 1 3 with one local level of 2: PU p = 2 x router + local.  Costs
 * 3 (PU to router) and 10 (router to router).  Same router: up and down,
 * 2 hops, cost 6; PUs 1 and 4 (routers 0 and 2): 2 + 2 hops, cost
 * 2 x 3 + 2 x 10 = 26.
 */
START_TEST(grid_tree_hand_worked)
{
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_grid_tree(1, (const int[]){ 3 }, NULL, 1,
						      (const int[]){ 2 }, (const double[]){ 3 },
						      10.0, &t, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_MESH);
	ck_assert_int_eq(topomatch_topology_npu(t), 6);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, 1), 2);
	ck_assert_double_eq(topomatch_topology_cost(t, 0, 1), 6.0);
	ck_assert_int_eq(topomatch_topology_hops(t, 1, 4), 4);
	ck_assert_double_eq(topomatch_topology_cost(t, 1, 4), 26.0);
	ck_assert_int_eq(topomatch_topology_hops(t, 5, 0), 4);
	ck_assert_int_eq(topomatch_topology_hops(t, 3, 3), 0);
	ck_assert_double_eq(topomatch_topology_cost(t, 3, 3), 0.0);
	/*
	 * Links: the PU-router links first, PU p up 2p and down 2p + 1 (12
	 * ids), then router v's + link 12 + 2v and - link 12 + 2v + 1.
	 * 1 -> 4: up (2), + from router 0 (12) and 1 (14), down to 4 (9).
	 */
	topomatch_router_t *r;
	ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_router_nlinks(r), 18);
	check_route(r, 1, 4, 4, (const int64_t[]){ 2, 12, 14, 9 });
	ck_assert_double_eq(topomatch_router_cost(r, 4), 26.0);
	/* 5 -> 0: up (10), - from router 2 (17) and 1 (15), down to 0 (1) */
	check_route(r, 5, 0, 4, (const int64_t[]){ 10, 17, 15, 1 });
	check_route(r, 0, 1, 2, (const int64_t[]){ 0, 3 });
	topomatch_router_destroy(r);
	check_describe(t, "meshXD 1 3 local 1 2 3 cost 10");
	topomatch_topology_destroy(t);
}
END_TEST

/* Every route of every shape: length = hops, ids in range, costs. */
START_TEST(grid_tree_routes)
{
	for (size_t i = 0; i < sizeof(gt_shapes) / sizeof(gt_shapes[0]); i++) {
		topomatch_topology_t *t = gt_make(&gt_shapes[i]);
		check_all_routes(t);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/*
 * Link loads follow the routes: the metric's maximum link load is the
 * largest sum over links of the volumes routed through them, and
 * hop-bytes and SumCom use the closed forms.
 */
START_TEST(grid_tree_link_loads)
{
	char err[TOPOMATCH_ERRLEN];
	for (size_t i = 0; i < sizeof(gt_shapes) / sizeof(gt_shapes[0]); i++) {
		topomatch_topology_t *t = gt_make(&gt_shapes[i]);
		int64_t npu = topomatch_topology_npu(t), n = npu < 20 ? npu : 20;
		topomatch_affinity_t *a;
		ck_assert_int_eq(topomatch_gen_random(n, n > 3 ? 3 : n - 1, 50, 9, &a, err),
				 TOPOMATCH_OK);
		int64_t *pu = malloc((size_t)n * sizeof(*pu));
		for (int64_t k = 0; k < n; k++)
			pu[k] = (k * 7) % npu; /* spread, some PUs shared */
		topomatch_metrics_t m;
		ck_assert_int_eq(topomatch_metrics_compute(a, t, pu, &m, err), TOPOMATCH_OK);
		topomatch_router_t *r;
		ck_assert_int_eq(topomatch_router_create(t, &r, err), TOPOMATCH_OK);
		int64_t nl = topomatch_router_nlinks(r), links[64];
		double *load = calloc((size_t)nl, sizeof(*load)), hb = 0, sc = 0, lmax = 0;
		topomatch_csr_t c = topomatch_affinity_directed(a);
		for (int64_t u = 0; u < n; u++) {
			topomatch_router_source(r, pu[u]);
			for (int64_t e = c.rowptr[u]; e < c.rowptr[u + 1]; e++) {
				int64_t q = pu[c.col[e]];
				int64_t h = topomatch_router_route(r, q, links, 64);
				hb += c.w[e] * (double)topomatch_topology_hops(t, pu[u], q);
				sc += c.w[e] * topomatch_topology_cost(t, pu[u], q);
				for (int64_t k = 0; k < h; k++)
					load[links[k]] += c.w[e];
			}
		}
		for (int64_t k = 0; k < nl; k++)
			lmax = load[k] > lmax ? load[k] : lmax;
		ck_assert_double_eq_tol(m.hop_bytes, hb, 1e-9 * hb);
		ck_assert_double_eq_tol(m.sum_com, sc, 1e-9 * sc);
		ck_assert_double_eq(m.max_link_load, lmax);
		free(load);
		free(pu);
		topomatch_router_destroy(r);
		topomatch_affinity_destroy(a);
		topomatch_topology_destroy(t);
	}
}
END_TEST

/* describe, parse it back: the same text, shape and distances. */
static void round_trip(const topomatch_topology_t *t)
{
	char text[512], again[512];
	ck_assert_int_eq(topomatch_topology_describe(t, text, sizeof(text)), TOPOMATCH_OK);
	topomatch_topology_t *u = must_parse(text);
	ck_assert_int_eq(topomatch_topology_describe(u, again, sizeof(again)), TOPOMATCH_OK);
	ck_assert_str_eq(text, again);
	ck_assert_int_eq(topomatch_topology_kind(u), topomatch_topology_kind(t));
	int64_t n = topomatch_topology_npu(t);
	ck_assert_int_eq(topomatch_topology_npu(u), n);
	for (int64_t p = 0; p < n; p++) {
		for (int64_t q = 0; q < n; q++) {
			ck_assert_int_eq(topomatch_topology_hops(u, p, q),
					 topomatch_topology_hops(t, p, q));
			ck_assert_double_eq(topomatch_topology_cost(u, p, q),
					    topomatch_topology_cost(t, p, q));
		}
	}
	topomatch_topology_destroy(u);
}

START_TEST(grid_tree_describe_parse)
{
	static const char *const want[] = {
		"meshXD 1 5",
		"torus2D 4 3",
		"mesh2D 2 3 wrap 1 0 cost 3",
		"mesh3D 3 4 2 wrap 1 0 1 local 1 3 2",
		"torusXD 1 5 local 2 2 10 3 1 cost 100",
		"mesh2D 4 3 wrap 0 1 local 3 2 10 1 5 2 1 cost 100",
		"mesh2D 3 3 wrap 1 0 local 3 1 1 1 2 1 3 cost 0.5",
		"torus2D 1 5 local 2 2 1 2 1",
		"torus3D 3 3 2 local 1 2 1.5 cost 2.5",
	};
	for (size_t i = 0; i < sizeof(gt_shapes) / sizeof(gt_shapes[0]); i++) {
		topomatch_topology_t *t = gt_make(&gt_shapes[i]);
		check_describe(t, want[i]);
		round_trip(t);
		topomatch_topology_destroy(t);
	}
	/* the brief's example: 8 x 8 x 16 routers, z open, 2 x 4 PUs each */
	topomatch_topology_t *t;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(topomatch_topology_grid_tree(3, (const int[]){ 8, 8, 16 },
						      (const unsigned char[]){ 1, 1, 0 }, 2,
						      (const int[]){ 2, 4 }, NULL, 1.0, &t, err),
			 TOPOMATCH_OK);
	check_describe(t, "mesh3D 8 8 16 wrap 1 1 0 local 2 2 1 4 1");
	ck_assert_int_eq(topomatch_topology_npu(t), 8 * 8 * 16 * 8);
	topomatch_topology_destroy(t);
	/* clauses in any order, over lines, with comments; "wrap" all 1 is a torus */
	t = must_parse("mesh2D 4 3\n  cost 5 # routers\n local 1 2 1\nwrap 0 1\n");
	check_describe(t, "mesh2D 4 3 wrap 0 1 local 1 2 1 cost 5");
	topomatch_topology_destroy(t);
	t = must_parse("mesh2D 4 4 wrap 1 1");
	check_describe(t, "torus2D 4 4");
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_TORUS);
	topomatch_topology_destroy(t);
	/* the XD forms of 2 and 3 dimensions keep their short names */
	t = must_parse("meshXD 2 5 6 wrap 0 1 local 1 4 1");
	check_describe(t, "mesh2D 5 6 wrap 0 1 local 1 4 1");
	topomatch_topology_destroy(t);
}
END_TEST

/* The shape accessors: routers, wraps, local levels. */
START_TEST(grid_tree_shape)
{
	topomatch_topology_t *t = gt_make(&gt_shapes[5]);
	int dims[TOPOMATCH_MAX_DIMS], arity[TOPOMATCH_MAX_LEVELS];
	unsigned char wrap[TOPOMATCH_MAX_DIMS];
	double cost[TOPOMATCH_MAX_LEVELS], gc = 0;
	ck_assert_int_eq(topomatch_topology_kind(t), TOPOMATCH_TOPO_MESH);
	ck_assert_int_eq(topomatch_topology_npu(t), 12 * 4);
	ck_assert_int_eq(topomatch_topology_grid_shape(t, dims), 2);
	ck_assert(dims[0] == 4 && dims[1] == 3);
	ck_assert_int_eq(topomatch_topology_grid_wrap(t, wrap), 2);
	ck_assert(wrap[0] == 0 && wrap[1] == 1);
	ck_assert_int_eq(topomatch_topology_grid_local(t, arity, cost, &gc), 3);
	ck_assert(arity[0] == 2 && arity[1] == 1 && arity[2] == 2);
	ck_assert(cost[0] == 10.0 && cost[1] == 5.0 && cost[2] == 1.0);
	ck_assert_double_eq(gc, 100.0);
	ck_assert_int_eq(topomatch_topology_grid_local(t, NULL, NULL, NULL), 3);
	ck_assert_int_eq(topomatch_topology_tree_shape(t, NULL, NULL), -1);
	topomatch_topology_destroy(t);
	/* plain grids: no local level, unit router links; a hypercube too */
	t = must_parse("torus3D 2 3 4");
	ck_assert_int_eq(topomatch_topology_grid_wrap(t, wrap), 3);
	ck_assert(wrap[0] && wrap[1] && wrap[2]);
	ck_assert_int_eq(topomatch_topology_grid_local(t, arity, cost, &gc), 0);
	ck_assert_double_eq(gc, 1.0);
	topomatch_topology_destroy(t);
	t = must_parse("hcub 3");
	ck_assert_int_eq(topomatch_topology_grid_wrap(t, wrap), 3);
	ck_assert(!wrap[0] && !wrap[1] && !wrap[2]);
	ck_assert_int_eq(topomatch_topology_grid_local(t, NULL, NULL, &gc), 0);
	topomatch_topology_destroy(t);
	t = must_parse("tleaf 2 2 1 2 1");
	ck_assert_int_eq(topomatch_topology_grid_wrap(t, wrap), -1);
	ck_assert_int_eq(topomatch_topology_grid_local(t, NULL, NULL, NULL), -1);
	topomatch_topology_destroy(t);
}
END_TEST

/* grid_tree(...) must fail with `status` and `needle`, *out reset. */
static void gt_fails(int ndims, const int *dims, const unsigned char *wrap, int nlevels,
		     const int *arity, const double *cost, double gc, int status,
		     const char *needle)
{
	topomatch_topology_t *t = (topomatch_topology_t *)&t;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = topomatch_topology_grid_tree(ndims, dims, wrap, nlevels, arity, cost, gc, &t,
					      err);
	ck_assert_msg(rc == status, "status %d, want %d (%s)", rc, status, err);
	ck_assert_ptr_null(t);
	ck_assert_contains(err, needle);
}

START_TEST(grid_tree_errors)
{
	const int d2[] = { 4, 4 }, a2[] = { 2, 8 };
	const double c2[] = { 1, 1 };
	gt_fails(0, d2, NULL, 0, NULL, NULL, 1, TOPOMATCH_EINVAL,
		 "a grid needs 1 to 16 dimensions (got 0)");
	gt_fails(17, d2, NULL, 0, NULL, NULL, 1, TOPOMATCH_ELIMIT, "(got 17)");
	gt_fails(2, NULL, NULL, 0, NULL, NULL, 1, TOPOMATCH_EINVAL, "grid: no dimension array");
	gt_fails(2, (const int[]){ 4, 0 }, NULL, 0, NULL, NULL, 1, TOPOMATCH_EINVAL,
		 "dimension 2: size must be >= 1 (got 0)");
	/* 2^12 x 2^12 routers x 8 PUs = 2^27 PUs */
	gt_fails(2, (const int[]){ 4096, 4096 }, NULL, 1, (const int[]){ 8 }, NULL, 1,
		 TOPOMATCH_ELIMIT, "grid has more than 67108864 PUs (the limit)");
	gt_fails(1, (const int[]){ 2 }, NULL, 2, (const int[]){ 1 << 20, 1 << 20 }, NULL, 1,
		 TOPOMATCH_ELIMIT, "more than 67108864 PUs");
	gt_fails(2, d2, NULL, 33, a2, NULL, 1, TOPOMATCH_ELIMIT,
		 "grid: a local tree has 0 to 32 levels (got 33)");
	gt_fails(2, d2, NULL, -1, a2, NULL, 1, TOPOMATCH_EINVAL, "(got -1)");
	gt_fails(2, d2, NULL, 2, NULL, NULL, 1, TOPOMATCH_EINVAL,
		 "grid: no arity array for 2 local levels");
	gt_fails(2, d2, NULL, 2, (const int[]){ 2, 0 }, NULL, 1, TOPOMATCH_EINVAL,
		 "grid: local level 2: arity must be >= 1 (got 0)");
	gt_fails(2, d2, NULL, 2, a2, (const double[]){ 1, NAN }, 1, TOPOMATCH_EINVAL,
		 "grid: local level 2: link cost must be finite and > 0 (got nan)");
	gt_fails(2, d2, NULL, 2, a2, (const double[]){ 0, 1 }, 1, TOPOMATCH_EINVAL,
		 "local level 1: link cost must be finite and > 0 (got 0)");
	gt_fails(2, d2, NULL, 2, a2, (const double[]){ -1, 1 }, 1, TOPOMATCH_EINVAL,
		 "(got -1)");
	gt_fails(2, d2, NULL, 2, a2, c2, NAN, TOPOMATCH_EINVAL,
		 "grid: router link cost must be finite and > 0 (got nan)");
	gt_fails(2, d2, NULL, 2, a2, c2, 0.0, TOPOMATCH_EINVAL, "router link cost");
	gt_fails(2, d2, NULL, 2, a2, c2, -2.0, TOPOMATCH_EINVAL, "(got -2)");
	gt_fails(2, d2, NULL, 2, a2, c2, INFINITY, TOPOMATCH_EINVAL, "(got inf)");
	/* each cost finite, the longest route (6 x 1e308 ...) not */
	gt_fails(2, d2, NULL, 2, a2, c2, 1e308, TOPOMATCH_EINVAL, "grid: link costs too large");
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(topomatch_topology_grid_tree(2, d2, NULL, 0, NULL, NULL, 1, NULL, err),
			 TOPOMATCH_EINVAL);
	ck_assert_contains(err, "grid: no output pointer");
	ck_assert_int_eq(topomatch_topology_grid(2, d2, 1, NULL, err), TOPOMATCH_EINVAL);
	/* 2^26 PUs exactly is accepted */
	topomatch_topology_t *t;
	ck_assert_int_eq(topomatch_topology_grid_tree(2, (const int[]){ 1024, 1024 }, NULL, 1,
						      (const int[]){ 64 }, NULL, 1, &t, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(topomatch_topology_npu(t), INT64_C(1) << 26);
	ck_assert_int_eq(topomatch_topology_hops(t, 0, (INT64_C(1) << 26) - 1), 1023 + 1023 + 2);
	topomatch_topology_destroy(t);
}
END_TEST

START_TEST(grid_tree_parse_errors)
{
	parse_fails("torus2D 4 4 wrap 1 0", "g.tgt", TOPOMATCH_EPARSE,
		    "g.tgt:1: torus2D: 'wrap' only follows a mesh target");
	parse_fails("mesh2D 4 4 wrap 1 2", NULL, TOPOMATCH_EPARSE,
		    "mesh2D: wrap of dimension 2 must be 0 or 1 (got 2)");
	parse_fails("mesh2D 4 4 wrap 1 -1", NULL, TOPOMATCH_EPARSE,
		    "wrap of dimension 2 must be >= 0 (got -1)");
	parse_fails("mesh2D 4 4 wrap 1", NULL, TOPOMATCH_EPARSE,
		    "mesh2D: missing wrap of dimension 2");
	parse_fails("mesh2D 4 4 local 0", NULL, TOPOMATCH_EPARSE,
		    "mesh2D: local level count must be >= 1 (got 0)");
	parse_fails("mesh2D 4 4 local 33", NULL, TOPOMATCH_ELIMIT,
		    "mesh2D: 33 local levels (at most 32)");
	parse_fails("mesh2D 4 4 local 1 2", NULL, TOPOMATCH_EPARSE,
		    "mesh2D: missing local link cost of level 1");
	parse_fails("mesh2D 4 4 local 1 2 nan", NULL, TOPOMATCH_EPARSE,
		    "local link cost of level 1 'nan' is not a number");
	parse_fails("mesh2D 4 4 local 2 2 1 0 1", NULL, TOPOMATCH_EPARSE,
		    "local arity of level 2 must be >= 1 (got 0)");
	parse_fails("mesh2D 4 4 cost 0", NULL, TOPOMATCH_EPARSE,
		    "router link cost must be finite and > 0 (got '0')");
	parse_fails("mesh2D 4 4 cost", NULL, TOPOMATCH_EPARSE, "missing router link cost");
	parse_fails("mesh2D 4 4\ncost 1\ncost 2", "g.tgt", TOPOMATCH_EPARSE,
		    "g.tgt:3: mesh2D: 'cost' given twice");
	parse_fails("mesh2D 4 4 foo", NULL, TOPOMATCH_EPARSE,
		    "trailing garbage 'foo' after the mesh2D target");
	parse_fails("mesh2D 4 4 local 1 2 1 7", NULL, TOPOMATCH_EPARSE,
		    "trailing garbage '7' after the mesh2D target");
	/* only grids take clauses */
	parse_fails("hcub 3 local 1 2 1", NULL, TOPOMATCH_EPARSE,
		    "trailing garbage 'local' after the hcub target");
	parse_fails("tleaf 1 2 1 cost 3", NULL, TOPOMATCH_EPARSE,
		    "trailing garbage 'cost' after the tleaf target");
	/* the model's limits, located */
	parse_fails("mesh2D 4096 4096 local 1 8 1", NULL, TOPOMATCH_ELIMIT,
		    "topology:1: mesh2D: grid has more than 67108864 PUs");
	parse_fails("mesh2D 4 4 local 2 2 1e308 2 1e308", NULL, TOPOMATCH_EINVAL,
		    "link costs too large");
}
END_TEST

static Suite *topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, parse_tleaf);
	tcase_add_test(tc, parse_grids);
	tcase_add_test(tc, parse_layout);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, parse_limits);
	tcase_add_test(tc, describe_truncates);
	tcase_add_test(tc, load_file_vs_literal);
	tcase_add_test(tc, load_data_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("distances");
	tcase_add_test(tc, tree_numbering_and_distances);
	tcase_add_test(tc, grid_numbering_and_distances);
	tcase_add_test(tc, degenerate_torus_dims);
	tcase_add_test(tc, graph_bfs_ties);
	tcase_add_test(tc, attach_links);
	tcase_add_test(tc, graph_hanging_trees_vs_bfs);
	tcase_add_test(tc, graph_switches);
	tcase_add_test(tc, graph_table_hop_limit);
	tcase_add_test(tc, graph_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("router");
	tcase_add_test(tc, route_tree);
	tcase_add_test(tc, route_grid);
	tcase_add_test(tc, route_hcub);
	tcase_add_test(tc, routes_consistent);
	suite_add_tcase(s, tc);
	tc = tcase_create("grid_tree");
	tcase_add_test(tc, grid_tree_vs_bfs);
	tcase_add_test(tc, grid_tree_hand_worked);
	tcase_add_test(tc, grid_tree_routes);
	tcase_add_test(tc, grid_tree_link_loads);
	tcase_add_test(tc, grid_tree_describe_parse);
	tcase_add_test(tc, grid_tree_shape);
	tcase_add_test(tc, grid_tree_errors);
	tcase_add_test(tc, grid_tree_parse_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(topology_suite());
}

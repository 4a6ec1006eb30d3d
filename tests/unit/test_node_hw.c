/*
 * test_node_hw.c - unit tests of the node internals read from hwloc
 * synthetic strings and XML files (topology/node_hw.c).
 *
 * The XML files under tests/data/node_hw/ were written by hwloc 2.9
 * itself (hwloc_topology_set_synthetic + hwloc_topology_export_xml):
 *   pack2-numa2-core6.xml      "pack:2 numa:2 core:6 pu:1"
 *   pack2-core8-pu2.xml        "pack:2 core:8 pu:2"
 *   asym-pack2-core2-1.xml     "pack:2 core:2 pu:1" restricted to PUs 0-2,
 *                              so package 1 keeps a single core
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"
#include "node_hw.h"

#include <hwloc.h>

static void must_synth(const char *desc, tm_node_hw_t *hw)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_node_hw_synthetic(desc, hw, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "'%s': %s", desc, err);
	ck_assert_ptr_nonnull(hw->os_index);
}

static void must_xml(const char *rel, tm_node_hw_t *hw)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_node_hw_xml(tm_data(rel), hw, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "'%s': %s", rel, err);
	ck_assert_ptr_nonnull(hw->os_index);
}

/* Levels as "Type(arity) ..." for compact comparisons. */
static void check_levels(const tm_node_hw_t *hw, const char *want)
{
	char buf[256] = "";
	size_t len = 0;
	for (int i = 0; i < hw->nlevels; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s(%d)", i ? " " : "",
					hw->type[i], hw->arity[i]);
	ck_assert_str_eq(buf, want);
}

/* Expect failure with `status` and `needle` in the message; out zeroed. */
static void synth_fails(const char *desc, int status, const char *needle)
{
	tm_node_hw_t hw;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_node_hw_synthetic(desc, &hw, err);
	ck_assert_msg(rc == status, "'%s': status %d, want %d (%s)", desc, rc, status, err);
	ck_assert_contains(err, needle);
	ck_assert_ptr_null(hw.os_index);
	ck_assert_int_eq(hw.nlevels, 0);
	ck_assert_int_eq(hw.npu, 0);
	tm_node_hw_free(&hw);
}

/* The os_index of every PU agrees with hwloc's own logical -> OS map. */
static void check_os_like_hwloc(const char *desc, const tm_node_hw_t *hw)
{
	hwloc_topology_t t;
	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_set_synthetic(t, desc), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	ck_assert_int_eq(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), hw->npu);
	for (int k = 0; k < hw->npu; k++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)k);
		ck_assert_int_eq(hw->os_index[k], (int)pu->os_index);
	}
	hwloc_topology_destroy(t);
}

START_TEST(numa_splits_packages)
{
	tm_node_hw_t hw;
	must_synth("pack:2 numa:2 core:6 pu:1", &hw);
	/* hwloc hangs each NUMA node off a Group of 6 cores: named NUMANode */
	ck_assert_int_eq(hw.nlevels, 3);
	check_levels(&hw, "Package(2) NUMANode(2) Core(6)");
	ck_assert_int_eq(hw.npu, 24);
	ck_assert_int_eq(hw.sockets, 2);
	ck_assert_int_eq(hw.cores, 24);
	ck_assert_int_eq(hw.threads_per_core, 1);
	ck_assert_int_eq(hw.pu_is_thread, 0);
	for (int k = 0; k < 24; k++)
		ck_assert_int_eq(hw.os_index[k], k);
	tm_node_hw_free(&hw);
	ck_assert_ptr_null(hw.os_index);
}
END_TEST

START_TEST(numa_splits_machine)
{
	tm_node_hw_t hw;
	must_synth("numa:2 core:4 pu:1", &hw);
	check_levels(&hw, "NUMANode(2) Core(4)");
	ck_assert_int_eq(hw.npu, 8);
	ck_assert_int_eq(hw.sockets, 1);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(one_numa_per_package)
{
	tm_node_hw_t hw;
	/* NUMA nodes equal to packages add no level and keep the name */
	must_synth("pack:2 numa:1 core:4 pu:1", &hw);
	check_levels(&hw, "Package(2) Core(4)");
	ck_assert_int_eq(hw.npu, 8);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(threads)
{
	tm_node_hw_t hw;
	must_synth("pack:2 core:8 pu:2", &hw);
	check_levels(&hw, "Package(2) Core(8) PU(2)");
	ck_assert_int_eq(hw.npu, 32);
	ck_assert_int_eq(hw.pu_is_thread, 1);
	ck_assert_int_eq(hw.sockets, 2);
	ck_assert_int_eq(hw.cores, 16);
	ck_assert_int_eq(hw.threads_per_core, 2);
	ck_assert_int_eq(hw.os_index[0], 0);
	ck_assert_int_eq(hw.os_index[1], 1);
	ck_assert_int_eq(hw.os_index[31], 31);
	check_os_like_hwloc("pack:2 core:8 pu:2", &hw);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(threads_linux_numbering)
{
	/* Linux numbers the second threads after all first threads */
	const char *desc = "pack:2 core:8 pu:2(indexes=2*16:1*2)";
	tm_node_hw_t hw;
	must_synth(desc, &hw);
	check_levels(&hw, "Package(2) Core(8) PU(2)");
	ck_assert_int_eq(hw.os_index[0], 0);  /* core 0, thread 0 */
	ck_assert_int_eq(hw.os_index[1], 16); /* core 0, thread 1 */
	ck_assert_int_eq(hw.os_index[2], 1);  /* core 1, thread 0 */
	ck_assert_int_eq(hw.os_index[17], 24); /* core 8 (package 1), thread 1 */
	ck_assert_int_eq(hw.os_index[31], 31);
	check_os_like_hwloc(desc, &hw);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(cores_permuted)
{
	/* PUs are cores: os_index is the core's only thread */
	const char *desc = "pack:1 core:2 pu:2(indexes=0,2,1,3)";
	tm_node_hw_t hw;
	must_synth(desc, &hw);
	ck_assert_int_eq(hw.os_index[1], 2);
	ck_assert_int_eq(hw.os_index[2], 1);
	check_os_like_hwloc(desc, &hw);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(single_level)
{
	tm_node_hw_t hw;
	must_synth("pack:1 core:4 pu:1", &hw);
	ck_assert_int_eq(hw.nlevels, 1);
	check_levels(&hw, "Core(4)");
	ck_assert_int_eq(hw.npu, 4);
	ck_assert_int_eq(hw.sockets, 1);
	ck_assert_int_eq(hw.cores, 4);
	ck_assert_int_eq(hw.threads_per_core, 1);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(arity_one_dropped)
{
	tm_node_hw_t hw;
	must_synth("pack:2 l3:1 core:4 pu:1", &hw);
	check_levels(&hw, "Package(2) Core(4)");
	ck_assert_int_eq(hw.npu, 8);
	tm_node_hw_free(&hw);
	/* an L3 shared by half the cores is a level of its own */
	must_synth("pack:2 l3:2 core:4 pu:1", &hw);
	check_levels(&hw, "Package(2) L3Cache(2) Core(4)");
	ck_assert_int_eq(hw.npu, 16);
	ck_assert_int_eq(hw.cores, 16);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(single_pu)
{
	tm_node_hw_t hw;
	must_synth("pack:1 core:1 pu:1", &hw);
	ck_assert_int_eq(hw.nlevels, 0);
	ck_assert_int_eq(hw.npu, 1);
	ck_assert_int_eq(hw.os_index[0], 0);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(bad_strings)
{
	synth_fails("pack:2 nuam:2 core:6 pu:1", TOPOMATCH_EPARSE,
		    "not a valid hwloc synthetic description: "
		    "'pack:2 nuam:2 core:6 pu:1' (hwloc: ");
	synth_fails("pack:0 core:2 pu:1", TOPOMATCH_EPARSE, "'pack:0 core:2 pu:1'");
	synth_fails("", TOPOMATCH_EPARSE, "not a valid hwloc synthetic description: ''");
	synth_fails("pack:two core:2 pu:1", TOPOMATCH_EPARSE, "'pack:two core:2 pu:1'");
	/* the hint only when the PU level is missing */
	synth_fails("pack:2 numa:2 core:6", TOPOMATCH_EPARSE, "wants the PU level spelled out");
	{
		tm_node_hw_t hw;
		char err[TOPOMATCH_ERRLEN] = "";
		tm_node_hw_synthetic("pack:2 nuam:2 core:6 pu:1", &hw, err);
		ck_assert_msg(strstr(err, "PU level") == NULL, "unexpected hint: %s", err);
	}
	synth_fails(NULL, TOPOMATCH_EINVAL, "no hwloc synthetic description");
	ck_assert_int_eq(tm_node_hw_synthetic("pack:1 core:1 pu:1", NULL, NULL), TOPOMATCH_EINVAL);
}
END_TEST

START_TEST(limits)
{
	/* refused before hwloc builds 2^30 objects */
	synth_fails("pack:1024 core:1024 pu:1024", TOPOMATCH_ELIMIT, "more than 4096 PUs");
	/* bare arities count too (found by tests/fuzz/fuzz_cluster: hwloc spent
	 * seconds building "6489606" PUs) */
	synth_fails("6489606", TOPOMATCH_ELIMIT, "more than 4096 PUs");
	synth_fails("pack:2 1024 pu:1024", TOPOMATCH_ELIMIT, "more than 4096 PUs");
	/* 8192 PUs under NUMA nodes took hwloc 2.5 s, 65536 30 s (fuzz_cluster) */
	synth_fails("pack:2 numa:4 core:1024 pu:1", TOPOMATCH_ELIMIT, "more than 4096 PUs");
	/* nine levels of arity 2 (512 PUs) exceed TM_NODE_MAX_LEVELS */
	synth_fails("group:2 group:2 group:2 group:2 group:2 group:2 pack:2 core:2 pu:2",
		    TOPOMATCH_ELIMIT, "more than 8 levels");
	/* eight are fine */
	tm_node_hw_t hw;
	must_synth("group:2 group:2 group:2 group:2 group:2 pack:2 core:2 pu:2", &hw);
	ck_assert_int_eq(hw.nlevels, 8);
	ck_assert_int_eq(hw.npu, 256);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(xml_same_as_synthetic)
{
	static const struct {
		const char *xml, *desc;
	} cases[] = {
		{ "node_hw/pack2-numa2-core6.xml", "pack:2 numa:2 core:6 pu:1" },
		{ "node_hw/pack2-core8-pu2.xml", "pack:2 core:8 pu:2" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		tm_node_hw_t x, s;
		must_xml(cases[c].xml, &x);
		must_synth(cases[c].desc, &s);
		ck_assert_int_eq(x.nlevels, s.nlevels);
		for (int i = 0; i < s.nlevels; i++) {
			ck_assert_int_eq(x.arity[i], s.arity[i]);
			ck_assert_str_eq(x.type[i], s.type[i]);
		}
		ck_assert_int_eq(x.npu, s.npu);
		ck_assert_int_eq(x.sockets, s.sockets);
		ck_assert_int_eq(x.cores, s.cores);
		ck_assert_int_eq(x.threads_per_core, s.threads_per_core);
		ck_assert_int_eq(x.pu_is_thread, s.pu_is_thread);
		for (int k = 0; k < s.npu; k++)
			ck_assert_int_eq(x.os_index[k], s.os_index[k]);
		tm_node_hw_free(&x);
		tm_node_hw_free(&s);
	}
	tm_node_hw_t hw;
	must_xml("node_hw/pack2-numa2-core6.xml", &hw);
	check_levels(&hw, "Package(2) NUMANode(2) Core(6)");
	ck_assert_int_eq(hw.npu, 24);
	tm_node_hw_free(&hw);
}
END_TEST

START_TEST(xml_errors)
{
	tm_node_hw_t hw;
	char err[TOPOMATCH_ERRLEN] = "";
	const char *missing = tm_data("node_hw/no-such-node.xml");
	int rc = tm_node_hw_xml(missing, &hw, err);
	ck_assert_int_eq(rc, TOPOMATCH_EIO);
	ck_assert_contains(err, missing);
	ck_assert_ptr_null(hw.os_index);

	/* not XML at all: a file of another kind */
	const char *notxml = tm_data("topology/torus-4x3.tgt");
	rc = tm_node_hw_xml(notxml, &hw, err);
	ck_assert_msg(rc == TOPOMATCH_EPARSE, "status %d (%s)", rc, err);
	ck_assert_contains(err, notxml);
	ck_assert_ptr_null(hw.os_index);

	rc = tm_node_hw_xml(tm_data("node_hw/asym-pack2-core2-1.xml"), &hw, err);
	ck_assert_msg(rc == TOPOMATCH_EINVAL, "status %d (%s)", rc, err);
	ck_assert_contains(err, "asymmetric node at level Package");
	ck_assert_ptr_null(hw.os_index);
	ck_assert_int_eq(hw.nlevels, 0);

	ck_assert_int_eq(tm_node_hw_xml(NULL, &hw, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(tm_node_hw_xml("", &hw, NULL), TOPOMATCH_EINVAL);
	tm_node_hw_free(NULL);
}
END_TEST

static Suite *node_hw_suite(void)
{
	Suite *s = suite_create("node_hw");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, numa_splits_packages);
	tcase_add_test(tc, numa_splits_machine);
	tcase_add_test(tc, one_numa_per_package);
	tcase_add_test(tc, threads);
	tcase_add_test(tc, threads_linux_numbering);
	tcase_add_test(tc, cores_permuted);
	tcase_add_test(tc, single_level);
	tcase_add_test(tc, arity_one_dropped);
	tcase_add_test(tc, single_pu);
	tcase_add_test(tc, bad_strings);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, xml_same_as_synthetic);
	tcase_add_test(tc, xml_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(node_hw_suite());
}

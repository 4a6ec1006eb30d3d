/*
 * test_swtree.c - unit tests of the switch tree and of Slurm's
 * topology.conf reader/writer: regular and irregular trees, every error
 * of tm_swtree_add/resolve and of the reader with its exact message and
 * position, deep chains (no recursion), 100,000 nodes, mixed-case keys,
 * comments, quotes and continuation lines, and parse -> write -> parse
 * round trips.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "slurm_topo.h"
#include "swtree.h"
#include "base/tm_internal.h"

#include <stdint.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* A switch given by the API, at line `line` column 1 of "t.yaml". */
static int add(tm_swtree_t *t, const char *name, int64_t line, const char *switches,
	       const char *nodes, char *err)
{
	return tm_swtree_add(t, name, line, 1, switches, line, 20, nodes, line, 40, 0, err);
}

static void add_ok(tm_swtree_t *t, const char *name, int64_t line, const char *switches,
		   const char *nodes)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = add(t, name, line, switches, nodes, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "add %s: %s", name, err);
}

static void resolve_ok(tm_swtree_t *t)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_swtree_resolve(t, 0, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "resolve: %s", err);
}

/* resolve() fails with rc and exactly the message want, and leaves no links. */
static void resolve_fails(tm_swtree_t *t, int64_t max_nodes, int rc, const char *want)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int got = tm_swtree_resolve(t, max_nodes, err);
	ck_assert_msg(got == rc, "status %d, want %d (%s)", got, rc, err);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(t->root, -1);
	for (int64_t i = 0; i < t->n; i++) {
		ck_assert_int_eq(t->sw[i].parent, -1);
		ck_assert_int_eq(t->sw[i].nchild, 0);
		ck_assert_ptr_null(t->sw[i].child);
	}
}

static int64_t find(const tm_swtree_t *t, const char *name)
{
	for (int64_t i = 0; i < t->n; i++)
		if (strcmp(t->sw[i].name, name) == 0)
			return i;
	ck_abort_msg("no switch %s", name);
	return -1;
}

/* Switch `name` has parent `parent` (NULL: root), depth, and these children. */
static void check_sw(const tm_swtree_t *t, const char *name, const char *parent, int64_t depth,
		     const char *children)
{
	const tm_switch_t *s = &t->sw[find(t, name)];
	char list[1024] = "";

	if (parent)
		ck_assert_str_eq(t->sw[s->parent].name, parent);
	else
		ck_assert_int_eq(s->parent, -1);
	ck_assert_int_eq(s->depth, depth);
	for (int64_t k = 0; k < s->nchild; k++) {
		ck_assert_int_eq(t->sw[s->child[k]].parent, find(t, name));
		strcat(list, k ? "," : "");
		strcat(list, t->sw[s->child[k]].name);
	}
	ck_assert_str_eq(list, children);
}

static int64_t nnodes(const tm_swtree_t *t, const char *name)
{
	return tm_hostlist_count(t->sw[find(t, name)].nodes);
}

static void parse_ok(const char *text, tm_swtree_t *t)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_slurm_topology_parse(text, strlen(text), "t.conf", t, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s\n%s", err, text);
}

/* The text must fail with status rc and exactly message want. */
static void parse_fails(const char *text, int rc, const char *want)
{
	char err[TOPOMATCH_ERRLEN] = "";
	tm_swtree_t t;
	int got = tm_slurm_topology_parse(text, strlen(text), "t.conf", &t, err);
	ck_assert_msg(got == rc, "'%s': status %d, want %d (%s)", text, got, rc, err);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(t.n, 0); /* left empty */
	tm_swtree_free(&t);
}

static void read_ok(const char *rel, tm_swtree_t *t)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_slurm_topology_read(tm_data(rel), t, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", rel, err);
}

/* t written as topology.conf into a malloc'd string. */
static char *write_conf(const tm_swtree_t *t, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	*rc = tm_swtree_write_topology_conf(t, f);
	fclose(f);
	return buf;
}

/* Same switches, lists, speeds, links and depths. */
static void assert_same_tree(const tm_swtree_t *a, const tm_swtree_t *b)
{
	ck_assert_int_eq(a->n, b->n);
	ck_assert_int_eq(a->root, b->root);
	ck_assert_int_eq(a->height, b->height);
	for (int64_t i = 0; i < a->n; i++) {
		const tm_switch_t *x = &a->sw[i], *y = &b->sw[i];
		ck_assert_str_eq(x->name, y->name);
		ck_assert_pstr_eq(x->switches_text, y->switches_text);
		ck_assert_pstr_eq(x->nodes_text, y->nodes_text);
		ck_assert_int_eq(tm_hostlist_count(x->nodes), tm_hostlist_count(y->nodes));
		ck_assert_double_eq(x->link_speed, y->link_speed);
		ck_assert_int_eq(x->parent, y->parent);
		ck_assert_int_eq(x->depth, y->depth);
		ck_assert_int_eq(x->nchild, y->nchild);
		for (int64_t k = 0; k < x->nchild; k++)
			ck_assert_int_eq(x->child[k], y->child[k]);
	}
}

/* parse -> write -> parse gives the same tree, and writing again the same text. */
static void round_trip(const tm_swtree_t *a)
{
	char err[TOPOMATCH_ERRLEN] = "";
	tm_swtree_t b, c;
	int rc;
	char *text = write_conf(a, &rc);

	ck_assert_int_eq(rc, TOPOMATCH_OK);
	rc = tm_slurm_topology_parse(text, strlen(text), "written.conf", &b, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s\n%s", err, text);
	assert_same_tree(a, &b);
	char *again = write_conf(&b, &rc);
	ck_assert_str_eq(again, text);
	parse_ok(again, &c);
	assert_same_tree(&b, &c);
	tm_swtree_free(&b);
	tm_swtree_free(&c);
	free(text);
	free(again);
}

/* ------------------------------------------------------------------ */
/* The switch tree through its API                                     */
/* ------------------------------------------------------------------ */

START_TEST(api_two_level)
{
	tm_swtree_t t;

	tm_swtree_init(&t, "t.yaml");
	ck_assert_int_eq(t.root, -1);
	add_ok(&t, "core", 1, "leaf[0-2]", NULL);
	add_ok(&t, "leaf0", 2, NULL, "n[00-15]");
	add_ok(&t, "leaf1", 3, NULL, "n[16-31]");
	add_ok(&t, "leaf2", 4, NULL, "n[32-47]");
	resolve_ok(&t);
	ck_assert_int_eq(t.root, 0);
	ck_assert_int_eq(t.height, 1);
	check_sw(&t, "core", NULL, 0, "leaf0,leaf1,leaf2");
	check_sw(&t, "leaf1", "core", 1, "");
	ck_assert_int_eq(nnodes(&t, "leaf2"), 16);
	/* resolving again gives the same links, nothing leaks */
	resolve_ok(&t);
	check_sw(&t, "core", NULL, 0, "leaf0,leaf1,leaf2");
	tm_swtree_free(&t);
	ck_assert_int_eq(t.n, 0);
	ck_assert_str_eq(t.file, "t.yaml");
	tm_swtree_free(&t); /* twice is harmless */
}
END_TEST

/* Children before parents, a switch with both switches and nodes (YAML). */
START_TEST(api_irregular)
{
	tm_swtree_t t;

	tm_swtree_init(&t, "t.yaml");
	add_ok(&t, "l0", 1, NULL, "a[1-4]");
	add_ok(&t, "l1", 2, NULL, "a[5-6]");
	add_ok(&t, "deep", 3, NULL, "d1");
	add_ok(&t, "mid", 4, "deep", "m[1-3]");
	add_ok(&t, "agg", 5, "l[0-1],mid", NULL);
	add_ok(&t, "top", 6, "agg", "t1,t2");
	resolve_ok(&t);
	ck_assert_int_eq(t.root, find(&t, "top"));
	check_sw(&t, "top", NULL, 0, "agg");
	check_sw(&t, "agg", "top", 1, "l0,l1,mid");
	check_sw(&t, "mid", "agg", 2, "deep");
	check_sw(&t, "deep", "mid", 3, "");
	/* nodes at depths 0, 2 and 3: the height is the deepest of them */
	ck_assert_int_eq(t.height, 3);
	ck_assert_int_eq(nnodes(&t, "l1"), 2);
	tm_swtree_free(&t);
}
END_TEST

START_TEST(api_add_errors)
{
	char err[TOPOMATCH_ERRLEN] = "";
	tm_swtree_t t;

	tm_swtree_init(&t, "t.yaml");
	ck_assert_int_eq(add(&t, "s0", 3, NULL, "n[1-", err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:3:40: nodes: column 2: unbalanced bracket '['");
	ck_assert_int_eq(add(&t, "s0", 4, "a,,b", NULL, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:4:20: switches: column 3: empty item");
	ck_assert_int_eq(add(&t, "s 0", 5, NULL, "n1", err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:5:1: switch name 's 0': bad character 0x20 "
			      "(names use A-Z a-z 0-9 . _ -)");
	ck_assert_int_eq(add(&t, "s[0]", 6, NULL, "n1", err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "t.yaml:6:1: switch name 's[0]': bad character '['");
	ck_assert_int_eq(add(&t, "", 7, NULL, "n1", err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:7:1: empty switch name");
	char longname[300];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(add(&t, longname, 8, NULL, "n1", err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, "longer than 255 characters");
	ck_assert_int_eq(tm_swtree_add(&t, "s0", 9, 0, NULL, 0, 0, "n1", 0, 0, -1, err),
			 TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "t.yaml:9: switch 's0': link speed must be a finite number >= 0");
	/* column 0: "FILE:LINE: ..." */
	ck_assert_int_eq(tm_swtree_add(&t, "s0", 9, 0, NULL, 0, 0, "n]", 9, 0, 0, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:9: nodes: column 2: unbalanced bracket ']'");
	ck_assert_int_eq(tm_swtree_add(&t, NULL, 1, 1, NULL, 0, 0, "n1", 0, 0, 0, err),
			 TOPOMATCH_EINVAL);
	ck_assert_int_eq(t.n, 0); /* nothing was added */
	tm_swtree_free(&t);
}
END_TEST

START_TEST(api_resolve_errors)
{
	tm_swtree_t t;

	tm_swtree_init(&t, "t.yaml");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE, "t.yaml: no switch defined");

	add_ok(&t, "s0", 1, NULL, "n[0-3]");
	add_ok(&t, "s1", 2, NULL, "n[4-7]");
	add_ok(&t, "s1", 3, NULL, "n[8-9]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:3:1: switch 's1' is defined twice (first at 2:1)");
	tm_swtree_free(&t);

	add_ok(&t, "top", 1, "s[0-1]", NULL);
	add_ok(&t, "s0", 2, NULL, "n[0-3]");
	add_ok(&t, "s1", 3, NULL, NULL);
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:3:1: switch 's1' has neither switches nor nodes");
	tm_swtree_free(&t);

	add_ok(&t, "top", 1, "s0,sx", NULL);
	add_ok(&t, "s0", 2, NULL, "n[0-3]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:1:20: switch 'top' lists unknown switch 'sx'");
	tm_swtree_free(&t);

	/* a huge range stops at its first unknown name */
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(add(&t, "top", 1, "s[0-999999999999]", NULL, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "t.yaml:1:20: switches: column 3: more than 16777216 names");
	add_ok(&t, "top", 1, "s[0-9999999]", NULL);
	add_ok(&t, "s0", 2, NULL, "n[0-3]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:1:20: switch 'top' lists unknown switch 's1'");
	tm_swtree_free(&t);

	add_ok(&t, "top", 1, "s0,s0", NULL);
	add_ok(&t, "s0", 2, NULL, "n[0-3]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE, "t.yaml:1:20: switch 'top' lists switch 's0' twice");
	tm_swtree_free(&t);

	add_ok(&t, "top", 1, "a0,a1", NULL);
	add_ok(&t, "a0", 2, "s3", NULL);
	add_ok(&t, "a1", 3, "s3", NULL);
	add_ok(&t, "s3", 4, NULL, "n1");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:3:20: switch 's3' has two parents ('a0' and 'a1')");
	tm_swtree_free(&t);

	add_ok(&t, "s0", 1, NULL, "n[0-3]");
	add_ok(&t, "s9", 2, NULL, "n[4-7]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:2:1: two root switches 's0' and 's9' (the tree must be connected: "
		      "one switch without a parent)");
	tm_swtree_free(&t);
	tm_swtree_init(&t, "t.yaml");
	ck_assert_int_eq(t.n, 0);
}
END_TEST

START_TEST(api_cycles)
{
	tm_swtree_t t;

	/* every switch has a parent: no root */
	tm_swtree_init(&t, "t.yaml");
	add_ok(&t, "s0", 1, "s1", "n0");
	add_ok(&t, "s1", 2, "s2", NULL);
	add_ok(&t, "s2", 3, "s0", NULL);
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:3:20: no root switch: the switches form a cycle through 's0'");
	tm_swtree_free(&t);

	/* a root, and a cycle beside it */
	add_ok(&t, "top", 1, "leaf", NULL);
	add_ok(&t, "leaf", 2, NULL, "n[0-3]");
	add_ok(&t, "x", 3, "y", NULL);
	add_ok(&t, "y", 4, "x", "m1");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:4:20: the switches form a cycle through 'x'");
	tm_swtree_free(&t);

	/* a switch that lists itself */
	add_ok(&t, "top", 1, NULL, "n[0-3]");
	add_ok(&t, "me", 2, "me", "m1");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:2:20: the switches form a cycle through 'me'");
	tm_swtree_free(&t);
}
END_TEST

START_TEST(api_nodes_twice)
{
	tm_swtree_t t;

	tm_swtree_init(&t, "t.yaml");
	add_ok(&t, "top", 1, "s[0-1]", NULL);
	add_ok(&t, "s0", 2, NULL, "n[001-020]");
	add_ok(&t, "s1", 3, NULL, "n[021-040],n017");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:3:40: node n017 is attached to two switches ('s0' at 2:40 and 's1')");
	tm_swtree_free(&t);

	add_ok(&t, "top", 1, "s[0-1]", "n[5-6]");
	add_ok(&t, "s0", 2, NULL, "n[1-20]");
	add_ok(&t, "s1", 3, NULL, "m[1-9]");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:2:40: node n5 is attached to two switches ('top' at 1:40 and 's0')");
	tm_swtree_free(&t);

	add_ok(&t, "s0", 1, NULL, "n[1-8],x,n3");
	resolve_fails(&t, 0, TOPOMATCH_EPARSE,
		      "t.yaml:1:40: node n3 is listed twice by switch 's0'");
	tm_swtree_free(&t);

	/* the node limit counts every list */
	add_ok(&t, "top", 1, "s[0-1]", NULL);
	add_ok(&t, "s0", 2, NULL, "n[1-8]");
	add_ok(&t, "s1", 3, NULL, "m[1-8]");
	resolve_fails(&t, 15, TOPOMATCH_ELIMIT, "t.yaml:3:40: more than 15 nodes");
	resolve_ok(&t);
	tm_swtree_free(&t);
}
END_TEST

/* 200,000 switches in a chain: depths without recursion, in linear time. */
START_TEST(api_deep_chain)
{
	const int64_t n = 200000;
	char name[32], child[32];
	tm_swtree_t t;

	tm_swtree_init(&t, "chain");
	for (int64_t i = n - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "c%lld", (long long)i);
		snprintf(child, sizeof(child), "c%lld", (long long)i + 1);
		add_ok(&t, name, i + 1, i + 1 < n ? child : NULL, i + 1 < n ? NULL : "n0");
	}
	double t0 = tm_cpu_now();
	resolve_ok(&t);
	tm_assert_within(t0, 5.0, "resolve");
	ck_assert_int_eq(t.height, n - 1);
	ck_assert_int_eq(t.sw[t.root].depth, 0);
	ck_assert_str_eq(t.sw[t.root].name, "c0");
	ck_assert_int_eq(t.sw[0].depth, n - 1);
	tm_swtree_free(&t);
}
END_TEST

/*
 * 100,000 nodes written one by one on 1,000 switches: the duplicate check
 * sorts, it never compares every pair.
 */
START_TEST(api_many_nodes)
{
	const int nsw = 1000, per = 100;
	size_t cap = (size_t)per * 8 + 16;
	char *list = malloc(cap), name[32];
	tm_swtree_t t;

	tm_swtree_init(&t, "big");
	for (int pass = 0; pass < 2; pass++) {
		add_ok(&t, "top", 1, "s[0-999]", NULL);
		for (int s = 0; s < nsw; s++) {
			size_t len = 0;
			for (int k = 0; k < per; k++)
				len += (size_t)snprintf(list + len, cap - len, "%sn%d",
							k ? "," : "", s * per + k);
			/* the second pass attaches n4242 again, on the last switch */
			if (pass && s == nsw - 1)
				snprintf(list + len, cap - len, ",n4242");
			snprintf(name, sizeof(name), "s%d", s);
			add_ok(&t, name, s + 2, NULL, list);
		}
		double t0 = tm_cpu_now();
		if (pass == 0) {
			resolve_ok(&t);
			ck_assert_int_eq(t.height, 1);
		} else {
			resolve_fails(&t, 0, TOPOMATCH_EPARSE,
				      "big:1001:40: node n4242 is attached to two switches "
				      "('s42' at 44:40 and 's999')");
		}
		tm_assert_within(t0, 5.0, "resolve");
		tm_swtree_free(&t);
	}
	free(list);
}
END_TEST

/* ------------------------------------------------------------------ */
/* topology.conf                                                       */
/* ------------------------------------------------------------------ */

START_TEST(conf_two_level)
{
	tm_swtree_t t;

	read_ok("slurm_topo/two_level.conf", &t);
	ck_assert_str_eq(t.file, tm_data("slurm_topo/two_level.conf"));
	ck_assert_int_eq(t.n, 5);
	ck_assert_int_eq(t.height, 1);
	check_sw(&t, "core", NULL, 0, "s0,s1,s2,s3");
	for (int i = 0; i < 4; i++) {
		char nm[16];
		snprintf(nm, sizeof(nm), "s%d", i);
		check_sw(&t, nm, "core", 1, "");
		ck_assert_int_eq(nnodes(&t, nm), 4);
		ck_assert_double_eq(t.sw[find(&t, nm)].link_speed, 100);
	}
	const tm_switch_t *s = &t.sw[find(&t, "s2")];
	ck_assert_str_eq(s->nodes_text, "tux[8-11]");
	ck_assert_int_eq(tm_hostlist_find(s->nodes, "tux10"), 2);
	/* positions: the SwitchName value and the list values */
	ck_assert_int_eq(s->line, 5);
	ck_assert_int_eq(s->col, 12);
	ck_assert_int_eq(s->nodes_line, 5);
	ck_assert_int_eq(s->nodes_col, 21);
	ck_assert_ptr_null(s->switches_text);
	s = &t.sw[find(&t, "core")];
	ck_assert_int_eq(s->switches_line, 7);
	ck_assert_int_eq(s->switches_col, 26);
	ck_assert_double_eq(s->link_speed, 400);
	round_trip(&t);
	tm_swtree_free(&t);
}
END_TEST

START_TEST(conf_irregular)
{
	tm_swtree_t t;

	read_ok("slurm_topo/irregular.conf", &t);
	ck_assert_int_eq(t.n, 7);
	check_sw(&t, "top", NULL, 0, "agg0,agg1,leafbig");
	check_sw(&t, "agg0", "top", 1, "l0,l1");
	check_sw(&t, "agg1", "top", 1, "l2");
	check_sw(&t, "l1", "agg0", 2, "");
	check_sw(&t, "leafbig", "top", 1, "");
	ck_assert_int_eq(nnodes(&t, "l0"), 4);
	ck_assert_int_eq(nnodes(&t, "l1"), 3);
	ck_assert_int_eq(nnodes(&t, "l2"), 8);
	ck_assert_int_eq(nnodes(&t, "leafbig"), 3);
	ck_assert_int_eq(t.height, 2);
	ck_assert_double_eq(t.sw[find(&t, "top")].link_speed, 0);
	ck_assert_double_eq(t.sw[find(&t, "leafbig")].link_speed, 50);
	round_trip(&t);
	tm_swtree_free(&t);
}
END_TEST

/* Mixed-case keys, blanks around '=', quotes, comments, CRLF, continuations. */
START_TEST(conf_syntax)
{
	tm_swtree_t t;

	read_ok("slurm_topo/continued.conf", &t);
	ck_assert_int_eq(t.n, 5);
	check_sw(&t, "spine", NULL, 0, "leaf0,leaf1,leaf2,leaf3");
	ck_assert_int_eq(t.height, 1);
	ck_assert_int_eq(nnodes(&t, "leaf0"), 8);
	ck_assert_int_eq(nnodes(&t, "leaf1"), 8);
	ck_assert_int_eq(nnodes(&t, "leaf2"), 4);
	ck_assert_int_eq(nnodes(&t, "leaf3"), 1);
	const tm_switch_t *s = &t.sw[find(&t, "leaf1")];
	ck_assert_double_eq(s->link_speed, 25);
	/* positions inside continued lines point at the physical line */
	ck_assert_int_eq(s->line, 4);
	ck_assert_int_eq(s->col, 12);
	ck_assert_int_eq(s->nodes_line, 5);
	ck_assert_int_eq(s->nodes_col, 11);
	s = &t.sw[find(&t, "leaf2")];
	ck_assert_str_eq(s->nodes_text, "cn[17-20]");
	ck_assert_int_eq(s->col, 14);
	ck_assert_int_eq(s->nodes_col, 29); /* inside the quotes, after a tab */
	ck_assert_str_eq(t.sw[find(&t, "leaf3")].nodes_text, "cn21");
	/* "leaf[0-\" + "3]" joined as Slurm joins them */
	s = &t.sw[find(&t, "spine")];
	ck_assert_str_eq(s->switches_text, "leaf[0-3]");
	ck_assert_int_eq(s->switches_line, 11);
	ck_assert_int_eq(s->switches_col, 27);
	ck_assert_double_eq(s->link_speed, 100);
	round_trip(&t);
	tm_swtree_free(&t);

	/* a trailing backslash on the last line continues into nothing */
	parse_ok("SwitchName=s0 Nodes=a[1-2] \\", &t);
	ck_assert_int_eq(t.n, 1);
	tm_swtree_free(&t);
	/* an empty file has no switch; "\\\\" is an escaped backslash, not a continuation */
	parse_fails("# nothing\n\n", TOPOMATCH_EPARSE, "t.conf: no switch defined");
	parse_fails("SwitchName=s0 Nodes=a \\\\\nSwitchName=s1", TOPOMATCH_EPARSE,
		    "t.conf:1:23: unexpected backslash (one may only end a line, to continue it)");
}
END_TEST

/* 1,000 switches in a chain from a generated file, and its round trip. */
START_TEST(conf_chain_1000)
{
	const int n = 1000;
	size_t cap = (size_t)n * 64, len = 0;
	char *text = malloc(cap);
	tm_swtree_t t;

	for (int i = 0; i < n; i++) {
		if (i + 1 < n)
			len += (size_t)snprintf(text + len, cap - len,
						"SwitchName=c%d Switches=c%d\n", i, i + 1);
		else
			len += (size_t)snprintf(text + len, cap - len,
						"SwitchName=c%d Nodes=n[1-4]\n", i);
	}
	parse_ok(text, &t);
	ck_assert_int_eq(t.n, n);
	ck_assert_int_eq(t.root, 0);
	ck_assert_int_eq(t.height, n - 1);
	ck_assert_int_eq(t.sw[n - 1].depth, n - 1);
	check_sw(&t, "c500", "c499", 500, "c501");
	round_trip(&t);
	tm_swtree_free(&t);
	free(text);
}
END_TEST

START_TEST(conf_key_errors)
{
	parse_fails("SwitchName=s0 Nodez=tux[0-3]\n", TOPOMATCH_EPARSE,
		    "t.conf:1:15: unknown key 'Nodez' (did you mean 'Nodes'?)");
	parse_fails("SwitchName=s0 switchs=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:15: unknown key 'switchs' (did you mean 'Switches'?)");
	parse_fails("SwitchNam=s0 Nodes=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:1: unknown key 'SwitchNam' (did you mean 'SwitchName'?)");
	parse_fails("SwitchName=s0 Nodes=a Weight=3\n", TOPOMATCH_EPARSE,
		    "t.conf:1:23: unknown key 'Weight' (topology.conf keys: SwitchName, Switches, "
		    "Nodes, LinkSpeed)");
	parse_fails("\n  Nodes=a SwitchName=s0\n", TOPOMATCH_EPARSE,
		    "t.conf:2:3: a switch line starts with SwitchName=, not Nodes=");
	parse_fails("SwitchName=s0 Nodes=a SwitchName=s1\n", TOPOMATCH_EPARSE,
		    "t.conf:1:23: second SwitchName on one line (one switch per line)");
	parse_fails("SwitchName=s0 Nodes=a \\\n  NODES=b\n", TOPOMATCH_EPARSE,
		    "t.conf:2:3: Nodes given twice (first at 1:15)");
	parse_fails("SwitchName=s0 Nodes=a Switches=s1\n", TOPOMATCH_EPARSE,
		    "t.conf:1:23: switch 's0' has both Switches and Nodes (Slurm's topology/tree "
		    "takes one of them)");
	parse_fails("SwitchName=s0 LinkSpeed=10\n", TOPOMATCH_EPARSE,
		    "t.conf:1:1: switch 's0' has neither Switches nor Nodes");
	parse_fails("Include /etc/slurm/more.conf\n", TOPOMATCH_EUNSUPPORTED,
		    "t.conf:1:1: Include is not supported: put the switches in this file");
	/* a bad key in a file, through read() */
	char err[TOPOMATCH_ERRLEN];
	tm_swtree_t t;
	ck_assert_int_eq(tm_slurm_topology_read(tm_data("slurm_topo/bad_key.conf"), &t, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "bad_key.conf:3:15: unknown key 'Nodez' (did you mean 'Nodes'?)");
	ck_assert_int_eq(t.n, 0);
	tm_swtree_free(&t);
}
END_TEST

START_TEST(conf_value_errors)
{
	parse_fails("SwitchName=s0 Nodes=\n", TOPOMATCH_EPARSE,
		    "t.conf:1:21: empty value for Nodes");
	parse_fails("SwitchName=s0 Nodes= Switches=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:21: empty value for Nodes");
	parse_fails("SwitchName=s0 Nodes=\"\"\n", TOPOMATCH_EPARSE,
		    "t.conf:1:21: empty value for Nodes");
	parse_fails("SwitchName= Nodes=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:12: empty value for SwitchName");
	parse_fails("SwitchName=s0 Nodes=\"a[1-2]\n", TOPOMATCH_EPARSE,
		    "t.conf:1:21: unterminated quote");
	parse_fails("SwitchName=s0 Nodes=\"a\"b\n", TOPOMATCH_EPARSE,
		    "t.conf:1:24: expected a blank after the closing quote");
	parse_fails("SwitchName=s0 Nodes+=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:20: operator '+=' is not allowed in topology.conf (use '=')");
	parse_fails("SwitchName=s0 Nodes a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:21: expected '=' after 'Nodes'");
	parse_fails("SwitchName=s0 , Nodes=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:15: expected KEY=VALUE, got ','");
	parse_fails("SwitchName=s0 Nodes=a\\#b\n", TOPOMATCH_EPARSE,
		    "t.conf:1:22: unexpected backslash (one may only end a line, to continue it)");
	parse_fails("SwitchName=s0 Nodes=a LinkSpeed=fast\n", TOPOMATCH_EPARSE,
		    "t.conf:1:33: LinkSpeed: expected an integer in [0, 4294967295], got 'fast'");
	parse_fails("SwitchName=s0 Nodes=a LinkSpeed=4294967296\n", TOPOMATCH_EPARSE,
		    "t.conf:1:33: LinkSpeed: expected an integer in [0, 4294967295], "
		    "got '4294967296'");
	parse_fails("SwitchName=s0 Nodes=a LinkSpeed=-1\n", TOPOMATCH_EPARSE,
		    "t.conf:1:33: LinkSpeed: expected an integer in [0, 4294967295], got '-1'");
	/* a list error, at the list's position, over a continuation */
	parse_fails("SwitchName=s0 \\\n   Nodes=tux[0-3,x]\n", TOPOMATCH_EPARSE,
		    "t.conf:2:10: nodes: column 9: bad character 'x'");
	parse_fails("SwitchName=s0 Switches=a[2-1]\n", TOPOMATCH_EPARSE,
		    "t.conf:1:24: switches: column 3: range 2-1 goes backwards");
	parse_fails("SwitchName=s/0 Nodes=a\n", TOPOMATCH_EPARSE,
		    "t.conf:1:12: switch name 's/0': bad character '/' "
		    "(names use A-Z a-z 0-9 . _ -)");

	tm_swtree_t t;
	parse_ok("SwitchName=s0 Nodes=a LinkSpeed=INFINITE\n", &t);
	ck_assert_double_eq(t.sw[0].link_speed, 4294967295.0);
	tm_swtree_free(&t);
}
END_TEST

/* The tree's own errors, positioned in the file. */
START_TEST(conf_tree_errors)
{
	parse_fails("SwitchName=s0 Nodes=n[1-4]\nSwitchName=s0 Nodes=n[5-8]\n", TOPOMATCH_EPARSE,
		    "t.conf:2:12: switch 's0' is defined twice (first at 1:12)");
	parse_fails("SwitchName=top Switches=s[0-1]\nSwitchName=s0 Nodes=n[1-4]\n",
		    TOPOMATCH_EPARSE, "t.conf:1:25: switch 'top' lists unknown switch 's1'");
	parse_fails("SwitchName=a Switches=s0\nSwitchName=b Switches=s0\n"
		    "SwitchName=s0 Nodes=n1\nSwitchName=top Switches=a,b\n",
		    TOPOMATCH_EPARSE, "t.conf:2:23: switch 's0' has two parents ('a' and 'b')");
	parse_fails("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", TOPOMATCH_EPARSE,
		    "t.conf:2:23: no root switch: the switches form a cycle through 'a'");
	parse_fails("SwitchName=s0 Nodes=n[1-4]\nSwitchName=s9 Nodes=n[5-8]\n", TOPOMATCH_EPARSE,
		    "t.conf:2:12: two root switches 's0' and 's9' (the tree must be connected: one "
		    "switch without a parent)");
	parse_fails("SwitchName=s0 Nodes=n[001-020]\nSwitchName=s1 Nodes=n[017-030]\n"
		    "SwitchName=top Switches=s[0-1]\n",
		    TOPOMATCH_EPARSE,
		    "t.conf:2:21: node n017 is attached to two switches ('s0' at 1:21 and 's1')");
}
END_TEST

START_TEST(conf_input_limits)
{
	char err[TOPOMATCH_ERRLEN] = "";
	tm_swtree_t t;

	ck_assert_int_eq(tm_slurm_topology_parse("SwitchName=s0 Nodes=a\n\nx\0y", 26, "t.conf", &t,
						 err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.conf:3:2: NUL byte (not a text file?)");

	size_t big = (size_t)TM_SLURM_TOPO_MAX_BYTES + 1;
	char *buf = malloc(big);
	memset(buf, '#', big);
	for (size_t i = 99; i < big; i += 100)
		buf[i] = '\n';
	ck_assert_int_eq(tm_slurm_topology_parse(buf, big, "t.conf", &t, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "t.conf:167773: larger than the limit of 16777216 bytes");
	/* the same through read(), from a file */
	char path[] = "/tmp/test_swtree_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_uint_eq(fwrite(buf, 1, big, f), big);
	fclose(f);
	ck_assert_int_eq(tm_slurm_topology_read(path, &t, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "larger than the limit of 16777216 bytes");
	unlink(path);
	free(buf);

	ck_assert_int_eq(tm_slurm_topology_read("/nonexistent/topology.conf", &t, err),
			 TOPOMATCH_EIO);
	ck_assert_str_eq(err, "/nonexistent/topology.conf: cannot open: No such file or directory");
	tm_swtree_free(&t);
	ck_assert_int_eq(tm_slurm_topology_parse(NULL, 3, NULL, &t, err), TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "topology.conf: invalid arguments");
	/* found by tests/fuzz/fuzz_slurm_topo: 40 bytes naming 17.8M nodes
	 * whose names cut several ways made the duplicate check hash them all
	 * (seconds, 256 MiB); a topology.conf attaches at most a cluster's nodes */
	static const char many[] = "SwitchName=leaf Nodes=I-J8[0-17778861]\n";
	double t0 = tm_cpu_now();
	ck_assert_int_eq(tm_slurm_topology_parse(many, strlen(many), "t.conf", &t, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "more than 4194304 nodes");
	tm_assert_within(t0, 1.0, "refusing 17.8M nodes");
	/* one node past TM_SLURM_TOPO_MAX_NODES, named where it is */
	static const char over[] = "SwitchName=leaf Nodes=n[0000000-4194304]\n";
	ck_assert_int_eq(tm_slurm_topology_parse(over, strlen(over), "t.conf", &t, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "t.conf:1:23: more than 4194304 nodes");
}
END_TEST

START_TEST(conf_write)
{
	tm_swtree_t t;
	int rc;

	/* LinkSpeed rounded to Slurm's uint32, at least 1 once set */
	tm_swtree_init(&t, "t.yaml");
	ck_assert_int_eq(tm_swtree_add(&t, "top", 1, 1, "l[0-1]", 1, 2, NULL, 0, 0, 12.5, NULL),
			 TOPOMATCH_OK);
	ck_assert_int_eq(tm_swtree_add(&t, "l0", 2, 1, NULL, 0, 0, "a[1-2]", 2, 2, 0.2, NULL),
			 TOPOMATCH_OK);
	ck_assert_int_eq(tm_swtree_add(&t, "l1", 3, 1, NULL, 0, 0, "b1", 3, 2, 0, NULL),
			 TOPOMATCH_OK);
	char *text = write_conf(&t, &rc);
	ck_assert_int_eq(rc, TOPOMATCH_OK);
	ck_assert_str_eq(text, "# topology.conf for topology/tree, written by slurm-topomatch\n"
			       "SwitchName=top Switches=l[0-1] LinkSpeed=13\n"
			       "SwitchName=l0 Nodes=a[1-2] LinkSpeed=1\n"
			       "SwitchName=l1 Nodes=b1\n");
	free(text);
	/* a switch with both switches and nodes cannot be written: nothing is */
	ck_assert_int_eq(tm_swtree_add(&t, "mix", 4, 1, "x", 4, 2, "c1", 4, 5, 0, NULL),
			 TOPOMATCH_OK);
	text = write_conf(&t, &rc);
	ck_assert_int_eq(rc, TOPOMATCH_EUNSUPPORTED);
	ck_assert_str_eq(text, "");
	free(text);
	tm_swtree_free(&t);
	ck_assert_int_eq(tm_swtree_add(&t, "bare", 1, 1, NULL, 0, 0, NULL, 0, 0, 0, NULL),
			 TOPOMATCH_OK);
	text = write_conf(&t, &rc);
	ck_assert_int_eq(rc, TOPOMATCH_EINVAL);
	free(text);
	tm_swtree_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topomatch-swtree");
	TCase *tc = tcase_create("swtree");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, api_two_level);
	tcase_add_test(tc, api_irregular);
	tcase_add_test(tc, api_add_errors);
	tcase_add_test(tc, api_resolve_errors);
	tcase_add_test(tc, api_cycles);
	tcase_add_test(tc, api_nodes_twice);
	tcase_add_test(tc, api_deep_chain);
	tcase_add_test(tc, api_many_nodes);
	tcase_add_test(tc, conf_two_level);
	tcase_add_test(tc, conf_irregular);
	tcase_add_test(tc, conf_syntax);
	tcase_add_test(tc, conf_chain_1000);
	tcase_add_test(tc, conf_key_errors);
	tcase_add_test(tc, conf_value_errors);
	tcase_add_test(tc, conf_tree_errors);
	tcase_add_test(tc, conf_input_limits);
	tcase_add_test(tc, conf_write);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}

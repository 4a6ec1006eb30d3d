/*
 * test_yaml_doc.c - unit tests of the YAML node tree: kinds, text and
 * positions of a nested file (block and flow styles), every getter's
 * success and message, unknown keys with and without a suggestion,
 * duplicate keys, refused aliases, tags and second documents, syntax
 * errors with their position, the byte, depth and node limits, empty
 * input, a missing file, and buffers with a name.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "base/tm_internal.h"
#include "yaml_doc.h"

#include <stdint.h>

/* Parse text that must be valid; the name in messages is "t.yaml". */
static tm_ydoc_t *load_ok(const char *text)
{
	tm_ydoc_t *d = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_ydoc_load_buffer(text, strlen(text), "t.yaml", NULL, &d, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", text, err);
	ck_assert_ptr_nonnull(d);
	return d;
}

/* Parse text that must fail with status rc and exactly message want. */
static void load_fails(const char *text, const tm_ylimits_t *lim, int rc, const char *want)
{
	tm_ydoc_t *d = (tm_ydoc_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";
	int got = tm_ydoc_load_buffer(text, strlen(text), "t.yaml", lim, &d, err);
	ck_assert_msg(got == rc, "'%s': status %d, want %d (%s)", text, got, rc, err);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err, want);
}

static void check_node(const tm_ynode_t *nd, int kind, int64_t line, int64_t col,
		       const char *str)
{
	ck_assert_ptr_nonnull(nd);
	ck_assert_int_eq(nd->kind, kind);
	ck_assert_int_eq(nd->line, line);
	ck_assert_int_eq(nd->col, col);
	if (str)
		ck_assert_str_eq(nd->str, str);
}

START_TEST(nested_file)
{
	tm_ydoc_t *d = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	const char *path = tm_data("yaml_doc/cluster.yaml");
	const tm_ynode_t *r, *net, *lv, *l0, *l1, *rt;

	ck_assert_int_eq(tm_ydoc_load_file(path, NULL, &d, err), TOPOMATCH_OK);
	ck_assert_str_eq(d->name, path);
	r = d->root;
	check_node(r, TM_Y_MAP, 2, 1, NULL);
	ck_assert_int_eq(r->n, 3);
	check_node(r->keys[0], TM_Y_SCALAR, 2, 1, "name");
	check_node(r->items[0], TM_Y_SCALAR, 2, 7, "tiny cluster");
	check_node(r->keys[1], TM_Y_SCALAR, 3, 1, "network");
	check_node(r->keys[2], TM_Y_SCALAR, 10, 1, "enabled");
	net = tm_ymap_get(r, "network");
	check_node(net, TM_Y_MAP, 4, 3, NULL);
	lv = tm_ymap_get(net, "levels");
	check_node(lv, TM_Y_SEQ, 5, 5, NULL);
	ck_assert_int_eq(lv->n, 2);
	l0 = lv->items[0]; /* flow style */
	check_node(l0, TM_Y_MAP, 5, 7, NULL);
	ck_assert_int_eq(l0->n, 3);
	check_node(l0->keys[0], TM_Y_SCALAR, 5, 8, "name");
	check_node(tm_ymap_get(l0, "name"), TM_Y_SCALAR, 5, 14, "node");
	check_node(tm_ymap_get(l0, "arity"), TM_Y_SCALAR, 5, 27, "2");
	check_node(tm_ymap_get(l0, "latency"), TM_Y_SCALAR, 5, 39, "0.5");
	l1 = lv->items[1]; /* block style */
	check_node(l1, TM_Y_MAP, 6, 7, NULL);
	check_node(tm_ymap_get(l1, "name"), TM_Y_SCALAR, 6, 13, "switch");
	check_node(tm_ymap_get(l1, "arity"), TM_Y_SCALAR, 7, 14, "4");
	check_node(tm_ymap_get(l1, "latency"), TM_Y_SCALAR, 8, 16, "2.5");
	rt = tm_ymap_get(net, "routing");
	check_node(rt, TM_Y_SEQ, 9, 12, NULL);
	ck_assert_int_eq(rt->n, 2);
	ck_assert_ptr_null(rt->keys);
	check_node(rt->items[0], TM_Y_SCALAR, 9, 13, "up");
	check_node(rt->items[1], TM_Y_SCALAR, 9, 17, "down");
	check_node(tm_ymap_get(r, "enabled"), TM_Y_SCALAR, 10, 10, "yes");
	/* lookups that find nothing */
	ck_assert_ptr_null(tm_ymap_get(r, "missing"));
	ck_assert_ptr_null(tm_ymap_get(lv, "name"));
	ck_assert_ptr_null(tm_ymap_get(NULL, "name"));
	tm_ydoc_free(d);
}
END_TEST

START_TEST(getters_ok)
{
	tm_ydoc_t *d = load_ok("i: 42\nneg: -7\nplus: '+3'\nbig: 9223372036854775807\n"
			       "small: -9223372036854775808\nx: 1.5e3\ny: -2\n"
			       "b1: TRUE\nb2: off\nb3: Yes\nb4: no\ns: hello world\nq: ''\n");
	char err[TOPOMATCH_ERRLEN] = "";
	const tm_ynode_t *r = d->root;
	int64_t v;
	double x;
	int b;
	const char *s;

	ck_assert_int_eq(tm_ynode_int(d, tm_ymap_get(r, "i"), "i", 1, 100, &v, err), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(tm_ynode_int(d, tm_ymap_get(r, "neg"), "neg", -10, 0, &v, err), 0);
	ck_assert_int_eq(v, -7);
	ck_assert_int_eq(tm_ynode_int(d, tm_ymap_get(r, "plus"), "plus", 0, 9, &v, err), 0);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(tm_ynode_int(d, tm_ymap_get(r, "big"), "big", 0, INT64_MAX, &v, err),
			 0);
	ck_assert(v == INT64_MAX);
	ck_assert_int_eq(
		tm_ynode_int(d, tm_ymap_get(r, "small"), "small", INT64_MIN, 0, &v, err), 0);
	ck_assert(v == INT64_MIN);
	ck_assert_int_eq(tm_ynode_double(d, tm_ymap_get(r, "x"), "x", 0, 1e4, &x, err), 0);
	ck_assert_double_eq(x, 1500.0);
	ck_assert_int_eq(tm_ynode_double(d, tm_ymap_get(r, "y"), "y", -5, 5, &x, err), 0);
	ck_assert_double_eq(x, -2.0);
	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b1"), "b1", &b, err), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b2"), "b2", &b, err), 0);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b3"), "b3", &b, err), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b4"), "b4", &b, err), 0);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(tm_ynode_str(d, tm_ymap_get(r, "s"), "s", &s, err), 0);
	ck_assert_str_eq(s, "hello world");
	ck_assert_int_eq(tm_ynode_str(d, tm_ymap_get(r, "q"), "q", &s, err), 0);
	ck_assert_str_eq(s, "");
	tm_ydoc_free(d);
}
END_TEST

/* Getter on key `key` of doc d must fail with message want. */
static void int_fails(const tm_ydoc_t *d, const char *key, int64_t min, int64_t max,
		      const char *want)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int64_t v = 12345;
	int rc = tm_ynode_int(d, tm_ymap_get(d->root, key), key, min, max, &v, err);
	ck_assert_int_eq(rc, TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(v, 12345);
}

START_TEST(int_errors)
{
	tm_ydoc_t *d = load_ok("a: two\nb: 1.5\nc: 0x10\nd: ''\ne: 9223372036854775808\n"
			       "f: 70000\ng: [1]\nh: {k: 1}\ni: ' 5'\nj: '-'\nk: 1_000\n");

	int_fails(d, "a", 1, 65536, "t.yaml:1:4: a: expected an integer in [1, 65536], got 'two'");
	int_fails(d, "b", 0, 9, "t.yaml:2:4: b: expected an integer in [0, 9], got '1.5'");
	int_fails(d, "c", 0, 99, "t.yaml:3:4: c: expected an integer in [0, 99], got '0x10'");
	int_fails(d, "d", 0, 9, "t.yaml:4:4: d: expected an integer in [0, 9], got ''");
	int_fails(d, "e", INT64_MIN, INT64_MAX,
		  "t.yaml:5:4: e: expected an integer in [-9223372036854775808, "
		  "9223372036854775807], got '9223372036854775808'");
	int_fails(d, "f", 1, 65536,
		  "t.yaml:6:4: f: expected an integer in [1, 65536], got '70000'");
	int_fails(d, "g", 0, 9, "t.yaml:7:4: g: expected an integer in [0, 9], got a sequence");
	int_fails(d, "h", 0, 9, "t.yaml:8:4: h: expected an integer in [0, 9], got a mapping");
	int_fails(d, "i", 0, 9, "t.yaml:9:4: i: expected an integer in [0, 9], got ' 5'");
	int_fails(d, "j", 0, 9, "t.yaml:10:4: j: expected an integer in [0, 9], got '-'");
	int_fails(d, "k", 0, 9999, "t.yaml:11:4: k: expected an integer in [0, 9999], got '1_000'");
	int_fails(d, "arity", 1, 8, "t.yaml: missing arity");
	tm_ydoc_free(d);
}
END_TEST

START_TEST(other_getter_errors)
{
	tm_ydoc_t *d = load_ok("x: abc\ninf: .inf\ninf2: inf\nnan: nan\nhex: 0x1p3\n"
			       "big: 1e400\nout: 12.5\nb: maybe\nb2: 1\ns: [a]\n");
	char err[TOPOMATCH_ERRLEN] = "";
	const tm_ynode_t *r = d->root;
	double x = 7;
	int b = 7;
	const char *s = NULL;
	static const struct {
		const char *key, *want;
	} dbl[] = {
		{ "x", "t.yaml:1:4: x: expected a number in [0, 100], got 'abc'" },
		{ "inf", "t.yaml:2:6: inf: expected a number in [0, 100], got '.inf'" },
		{ "inf2", "t.yaml:3:7: inf2: expected a number in [0, 100], got 'inf'" },
		{ "nan", "t.yaml:4:6: nan: expected a number in [0, 100], got 'nan'" },
		{ "hex", "t.yaml:5:6: hex: expected a number in [0, 100], got '0x1p3'" },
		{ "big", "t.yaml:6:6: big: expected a number in [0, 100], got '1e400'" },
		{ "out", "t.yaml:7:6: out: expected a number in [0, 10], got '12.5'" },
	};

	for (size_t i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++) {
		double max = strcmp(dbl[i].key, "out") ? 100 : 10;
		int rc = tm_ynode_double(d, tm_ymap_get(r, dbl[i].key), dbl[i].key, 0, max, &x,
					 err);
		ck_assert_int_eq(rc, TOPOMATCH_EPARSE);
		ck_assert_str_eq(err, dbl[i].want);
	}
	ck_assert_double_eq(x, 7);
	ck_assert_int_eq(tm_ynode_double(d, NULL, "latency", 0, 1, &x, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml: missing latency");

	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b"), "b", &b, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err,
			 "t.yaml:8:4: b: expected a boolean (true/false, yes/no, on/off), "
			 "got 'maybe'");
	ck_assert_int_eq(tm_ynode_bool(d, tm_ymap_get(r, "b2"), "b2", &b, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err,
			 "t.yaml:9:5: b2: expected a boolean (true/false, yes/no, on/off), "
			 "got '1'");
	ck_assert_int_eq(b, 7);

	ck_assert_int_eq(tm_ynode_str(d, tm_ymap_get(r, "s"), "s", &s, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:10:4: s: expected a string, got a sequence");
	ck_assert_int_eq(tm_ynode_str(d, NULL, "name", &s, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml: missing name");
	ck_assert_ptr_null(s);

	/* tm_yerr on its own, with and without a node */
	ck_assert_int_eq(tm_yerr(d, tm_ymap_get(r, "b"), err, TOPOMATCH_EINVAL, "bad %d", 5),
			 TOPOMATCH_EINVAL);
	ck_assert_str_eq(err, "t.yaml:8:4: bad 5");
	ck_assert_int_eq(tm_yerr(d, NULL, err, TOPOMATCH_ELIMIT, "too %s", "big"),
			 TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "t.yaml: too big");
	ck_assert_int_eq(tm_yerr(d, NULL, NULL, TOPOMATCH_ELIMIT, "x"), TOPOMATCH_ELIMIT);
	tm_ydoc_free(d);
}
END_TEST

START_TEST(unknown_keys)
{
	static const char *const allowed[] = { "name", "arity", "levels", "latency", NULL };
	tm_ydoc_t *d = load_ok("name: a\narity: 2\nlevels: []\n"
			       "bad1: {arty: 2}\nbad2: {name: x, levls: []}\nbad3:\n  zzz: 1\n"
			       "seq: [1]\n");
	char err[TOPOMATCH_ERRLEN] = "";
	const tm_ynode_t *r = d->root;

	/* the first three keys are known; the rest of the root is not */
	ck_assert_int_eq(tm_ymap_check_keys(d, r, "level", allowed, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:4:1: unknown key 'bad1'");
	ck_assert_int_eq(tm_ymap_check_keys(d, tm_ymap_get(r, "bad1"), "level", allowed, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:4:8: unknown key 'arty' (did you mean 'arity'?)");
	ck_assert_int_eq(tm_ymap_check_keys(d, tm_ymap_get(r, "bad2"), "level", allowed, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:5:17: unknown key 'levls' (did you mean 'levels'?)");
	ck_assert_int_eq(tm_ymap_check_keys(d, tm_ymap_get(r, "bad3"), "level", allowed, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:7:3: unknown key 'zzz'");
	ck_assert_int_eq(tm_ymap_check_keys(d, tm_ymap_get(r, "seq"), "network", allowed, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:8:6: network: expected a mapping, got a sequence");
	ck_assert_int_eq(tm_ymap_check_keys(d, NULL, "network", allowed, err), TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml: missing network");
	ck_assert_int_eq(tm_ymap_check_keys(d, tm_ymap_get(r, "levels"), "x", allowed, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err, "t.yaml:3:9: x: expected a mapping, got a sequence");
	tm_ydoc_free(d);

	d = load_ok("{name: a, latency: 1}");
	ck_assert_int_eq(tm_ymap_check_keys(d, d->root, "level", allowed, err), TOPOMATCH_OK);
	tm_ydoc_free(d);
}
END_TEST

START_TEST(edit_distance)
{
	ck_assert_int_eq(tm_edit_distance("arty", "arity", 2), 1);
	ck_assert_int_eq(tm_edit_distance("levls", "levels", 2), 1);
	ck_assert_int_eq(tm_edit_distance("kitten", "sitting", 5), 3);
	ck_assert_int_eq(tm_edit_distance("", "", 2), 0);
	ck_assert_int_eq(tm_edit_distance("abc", "", 5), 3);
	ck_assert_int_eq(tm_edit_distance("same", "same", 0), 0);
	/* capped at cap + 1, both by length and by the rows */
	ck_assert_int_eq(tm_edit_distance("zzz", "arity", 1), 2);
	ck_assert_int_eq(tm_edit_distance("abcdef", "uvwxyz", 2), 3);
	ck_assert_int_eq(tm_edit_distance("a", "abcdefgh", 2), 3);
	ck_assert_int_eq(tm_edit_distance("x", "y", -4), 1);
	/* longer than the stack row */
	char a[200], b[200];
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[100] = 'b';
	ck_assert_int_eq(tm_edit_distance(a, b, 3), 1);
}
END_TEST

START_TEST(duplicates)
{
	load_fails("name: a\nnetwork:\n  x: 1\n  levels: 2\n  y: 3\n  levels: 4\n", NULL,
		   TOPOMATCH_EPARSE, "t.yaml:6:3: duplicate key 'levels' (first on line 4)");
	/* the earliest repeat in the file is reported, not the first in order */
	load_fails("b: 1\na: 1\na: 2\nb: 2\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:3:1: duplicate key 'a' (first on line 2)");
	load_fails("{a: 1, a: 2}", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:8: duplicate key 'a' (first on line 1)");
	/* quoting does not make a key different */
	load_fails("k: 1\n'k': 2\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:1: duplicate key 'k' (first on line 1)");
	/* same key in sibling mappings is fine */
	tm_ydoc_free(load_ok("- {a: 1}\n- {a: 2}\n"));
}
END_TEST

START_TEST(refused_features)
{
	load_fails("a: &x 1\nb: 2\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:4: anchors and aliases are not supported");
	load_fails("a: 1\nb: *x\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:4: anchors and aliases are not supported");
	load_fails("base: &b {x: 1}\nc: *b\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:7: anchors and aliases are not supported");
	load_fails("a: !!int 3\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:4: tags are not supported ('tag:yaml.org,2002:int')");
	load_fails("a: !custom [1]\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:4: tags are not supported ('!custom')");
	load_fails("a: 1\n---\nb: 2\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:1: a second document is not supported (one per file)");
	load_fails("? [a, b]\n: 1\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:3: mapping keys must be scalars, not a sequence");
	load_fails("{{a: 1}: 2}", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:2: mapping keys must be scalars, not a mapping");
}
END_TEST

START_TEST(syntax_errors)
{
	tm_ydoc_t *d = (tm_ydoc_t *)1;
	char err[TOPOMATCH_ERRLEN] = "";
	const char *path = tm_data("yaml_doc/bad_indent.yaml");
	char want[4200];

	ck_assert_int_eq(tm_ydoc_load_file(path, NULL, &d, err), TOPOMATCH_EPARSE);
	ck_assert_ptr_null(d);
	snprintf(want, sizeof(want), "%s:4:5: mapping values are not allowed in this context",
		 path);
	ck_assert_str_eq(err, want);

	load_fails("a: [1, 2\nb: 3\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:2: did not find expected ',' or ']' "
		   "(while parsing a flow sequence started at line 1, column 4)");
	load_fails("a: 'open\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:1: found unexpected end of stream "
		   "(while scanning a quoted scalar started at line 1, column 4)");
	load_fails("a: 1\n\tb: 2\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:2:1: found a tab character that violates indentation "
		   "(while scanning a plain scalar started at line 1, column 4)");
	load_fails("a: \xff\n", NULL, TOPOMATCH_EPARSE,
		   "t.yaml:1:4: invalid leading UTF-8 octet (#xFF)");
}
END_TEST

START_TEST(limits)
{
	tm_ylimits_t lim = { 0, 3, 0 };
	tm_ydoc_t *d;
	char err[TOPOMATCH_ERRLEN] = "";

	/* three levels fit, a fourth does not */
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer("a: [[1]]", 8, "t.yaml", &lim, &d, err), 0);
	tm_ydoc_free(d);
	load_fails("a:\n  b: [[1]]\n", &lim, TOPOMATCH_ELIMIT,
		   "t.yaml:2:7: nested deeper than the limit of 3 levels");

	/* the default depth limit (64) stops a deep flow nest */
	char deep[300];
	memset(deep, '[', 100);
	deep[100] = '\0';
	load_fails(deep, NULL, TOPOMATCH_ELIMIT,
		   "t.yaml:1:65: nested deeper than the limit of 64 levels");

	/* every scalar, key and container counts as a node */
	lim = (tm_ylimits_t){ 0, 0, 5 };
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer("a: [1, 2]", 9, "t.yaml", &lim, &d, err), 0);
	tm_ydoc_free(d);
	load_fails("a: [1, 2]\nb: 3\n", &lim, TOPOMATCH_ELIMIT,
		   "t.yaml:2:1: more than the limit of 5 nodes");

	/* the default node limit (1,000,000): a flow sequence of 999,999
	 * scalars fits, one more does not */
	char *many = malloc(2000002);
	ck_assert_ptr_nonnull(many);
	many[0] = '[';
	for (int i = 0; i < 1000000; i++)
		memcpy(many + 1 + 2 * i, "0,", 2);
	many[2 * 999999] = ']';
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer(many, 2 * 999999 + 1, "t.yaml", NULL, &d, err), 0);
	ck_assert_int_eq(d->root->n, 999999);
	tm_ydoc_free(d);
	many[2 * 999999] = ',';
	many[2 * 1000000] = ']';
	many[2 * 1000000 + 1] = '\0';
	load_fails(many, NULL, TOPOMATCH_ELIMIT, "t.yaml:1:2000000: more than the limit of 1000000 nodes");
	free(many);

	/* bytes: both from a buffer and from a file */
	lim = (tm_ylimits_t){ 10, 0, 0 };
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer("a: 1\nb: 22\n", 10, "t.yaml", &lim, &d, err), 0);
	tm_ydoc_free(d);
	load_fails("a: 1\nb: 2\nc: 3\n", &lim, TOPOMATCH_ELIMIT,
		   "t.yaml:3: larger than the limit of 10 bytes");
	lim = (tm_ylimits_t){ 50, 0, 0 };
	d = (tm_ydoc_t *)1;
	const char *path = tm_data("yaml_doc/cluster.yaml");
	ck_assert_int_eq(tm_ydoc_load_file(path, &lim, &d, err), TOPOMATCH_ELIMIT);
	ck_assert_ptr_null(d);
	ck_assert_contains(err, "cluster.yaml:2: larger than the limit of 50 bytes");
}
END_TEST

START_TEST(empty_and_missing)
{
	tm_ydoc_t *d = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	char path[4200];

	ck_assert_int_eq(tm_ydoc_load_file(tm_data("yaml_doc/empty.yaml"), NULL, &d, err), 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_null(d->root);
	tm_ydoc_free(d);
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_file(tm_data("yaml_doc/comment_only.yaml"), NULL, &d, err),
			 0);
	ck_assert_ptr_null(d->root);
	tm_ydoc_free(d);
	d = load_ok("--- # nothing\n");
	ck_assert_ptr_null(d->root);
	tm_ydoc_free(d);
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer(NULL, 0, "none", NULL, &d, err), 0);
	ck_assert_ptr_null(d->root);
	tm_ydoc_free(d);
	/* a lone scalar is a document too */
	d = load_ok("'just text'");
	check_node(d->root, TM_Y_SCALAR, 1, 1, "just text");
	tm_ydoc_free(d);

	snprintf(path, sizeof(path), "%s", tm_data("yaml_doc/no-such-file.yaml"));
	d = (tm_ydoc_t *)1;
	ck_assert_int_eq(tm_ydoc_load_file(path, NULL, &d, err), TOPOMATCH_EIO);
	ck_assert_ptr_null(d);
	ck_assert_contains(err, path);
	ck_assert_contains(err, "No such file or directory");
	tm_ydoc_free(NULL);
}
END_TEST

START_TEST(named_buffer)
{
	const char text[] = "cluster:\n  nodes: 4\n  ratio: x\n";
	tm_ydoc_t *d = NULL;
	char err[TOPOMATCH_ERRLEN] = "";
	double x;

	ck_assert_int_eq(tm_ydoc_load_buffer(text, sizeof(text) - 1, "site/cluster.yaml", NULL,
					     &d, err),
			 0);
	ck_assert_str_eq(d->name, "site/cluster.yaml");
	const tm_ynode_t *c = tm_ymap_get(d->root, "cluster");
	ck_assert_int_eq(tm_ynode_double(d, tm_ymap_get(c, "ratio"), "ratio", 0, 1, &x, err),
			 TOPOMATCH_EPARSE);
	ck_assert_str_eq(err,
			 "site/cluster.yaml:3:10: ratio: expected a number in [0, 1], got 'x'");
	tm_ydoc_free(d);

	/* a length shorter than the text: only that prefix is read */
	d = NULL;
	ck_assert_int_eq(tm_ydoc_load_buffer("a: 1\nb: [", 5, "p", NULL, &d, err), 0);
	ck_assert_int_eq(d->root->n, 1);
	tm_ydoc_free(d);

	/* a long value is shortened in the message */
	char big[400];
	memset(big, 'q', sizeof(big));
	memcpy(big, "k: ", 3);
	big[sizeof(big) - 1] = '\0';
	d = load_ok(big);
	int64_t v;
	ck_assert_int_eq(tm_ynode_int(d, tm_ymap_get(d->root, "k"), "k", 0, 1, &v, err),
			 TOPOMATCH_EPARSE);
	ck_assert_contains(err, "got 'qqqq");
	ck_assert_contains(err, "...'");
	ck_assert_int_lt(strlen(err), 160);
	tm_ydoc_free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topomatch-yaml-doc");
	TCase *tc = tcase_create("yaml_doc");

	tcase_add_test(tc, nested_file);
	tcase_add_test(tc, getters_ok);
	tcase_add_test(tc, int_errors);
	tcase_add_test(tc, other_getter_errors);
	tcase_add_test(tc, unknown_keys);
	tcase_add_test(tc, edit_distance);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, refused_features);
	tcase_add_test(tc, syntax_errors);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, empty_and_missing);
	tcase_add_test(tc, named_buffer);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}

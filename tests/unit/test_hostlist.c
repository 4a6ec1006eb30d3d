/*
 * test_hostlist.c - unit tests of the Slurm-style host lists: expansion
 * order and padding, suffixes, find, duplicates, compression round trips,
 * every parse error with its column, the name limit, and a 100,000-name
 * list that must never be expanded.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "hostlist.h"
#include "base/tm_internal.h"

static tm_hostlist_t *parse(const char *text)
{
	tm_hostlist_t *h;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_hostlist_parse(text, 0, &h, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", text, err);
	return h;
}

/* Name i of h, written into the caller's buffer. */
static const char *name_at(const tm_hostlist_t *h, int64_t i, char *buf, size_t len)
{
	ck_assert_int_eq(tm_hostlist_name(h, i, buf, len), TOPOMATCH_OK);
	return buf;
}

/* `text` expands to exactly the comma-separated names in `want`. */
static void expands_to(const char *text, const char *want)
{
	tm_hostlist_t *h = parse(text);
	char copy[1024], buf[128];
	int64_t k = 0;
	snprintf(copy, sizeof(copy), "%s", want);
	for (char *save, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		ck_assert_int_lt(k, tm_hostlist_count(h));
		ck_assert_str_eq(name_at(h, k, buf, sizeof(buf)), w);
		ck_assert_int_eq(tm_hostlist_find(h, w), k);
		k++;
	}
	ck_assert_int_eq(tm_hostlist_count(h), k);
	tm_hostlist_destroy(h);
}

START_TEST(expand_lists)
{
	expands_to("n[1-3]", "n1,n2,n3");
	expands_to("a[1-3,5],login2", "a1,a2,a3,a5,login2");
	expands_to("login2,a[5,1-2]", "login2,a5,a1,a2");
	expands_to("rack1-n[01-03]", "rack1-n01,rack1-n02,rack1-n03");
	expands_to("n[8-11]", "n8,n9,n10,n11");
	expands_to("[1-2],x", "1,2,x");
	expands_to("host.a_b-c", "host.a_b-c");
	expands_to("n0", "n0");
	expands_to("n[0]", "n0");

	tm_hostlist_t *h = parse("n[001-128]");
	char buf[32];
	ck_assert_int_eq(tm_hostlist_count(h), 128);
	ck_assert_str_eq(name_at(h, 0, buf, sizeof(buf)), "n001");
	ck_assert_str_eq(name_at(h, 9, buf, sizeof(buf)), "n010");
	ck_assert_str_eq(name_at(h, 127, buf, sizeof(buf)), "n128");
	ck_assert_int_eq(tm_hostlist_name(h, 128, buf, sizeof(buf)), TOPOMATCH_EINVAL);
	ck_assert_int_eq(tm_hostlist_name(h, -1, buf, sizeof(buf)), TOPOMATCH_EINVAL);
	/* "n128" needs 5 bytes */
	ck_assert_int_eq(tm_hostlist_name(h, 127, buf, 4), TOPOMATCH_ELIMIT);
	ck_assert_int_eq(tm_hostlist_name(h, 127, buf, 5), TOPOMATCH_OK);
	tm_hostlist_destroy(h);
}
END_TEST

START_TEST(zero_padding)
{
	expands_to("n[098-101]", "n098,n099,n100,n101");
	/* inconsistent widths: the lower bound's digits decide (Slurm) */
	tm_hostlist_t *h = parse("n[08-100]");
	char buf[32];
	ck_assert_int_eq(tm_hostlist_count(h), 93);
	ck_assert_str_eq(name_at(h, 0, buf, sizeof(buf)), "n08");
	ck_assert_str_eq(name_at(h, 2, buf, sizeof(buf)), "n10");
	ck_assert_int_eq(tm_hostlist_find(h, "n99"), 91);
	ck_assert_str_eq(name_at(h, 92, buf, sizeof(buf)), "n100");
	tm_hostlist_destroy(h);
	h = parse("n[9-0011]");
	ck_assert_int_eq(tm_hostlist_count(h), 3);
	ck_assert_str_eq(name_at(h, 2, buf, sizeof(buf)), "n11");
	tm_hostlist_destroy(h);
	expands_to("n[0-2,007]", "n0,n1,n2,n007");
}
END_TEST

START_TEST(suffixes)
{
	expands_to("n[1-4]-ib", "n1-ib,n2-ib,n3-ib,n4-ib");
	expands_to("r[01-02]x.e,y[3]z", "r01x.e,r02x.e,y3z");
	expands_to("c[1-2]-ib0", "c1-ib0,c2-ib0");
	tm_hostlist_t *h = parse("n[1-4]-ib");
	ck_assert_int_eq(tm_hostlist_find(h, "n3"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n3-ib"), 2);
	ck_assert_int_eq(tm_hostlist_find(h, "n3-i"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n-ib"), -1);
	tm_hostlist_destroy(h);
}
END_TEST

START_TEST(find)
{
	tm_hostlist_t *h = parse("n[001-010],m[1-20],login,x[5]");
	ck_assert_int_eq(tm_hostlist_count(h), 32);
	ck_assert_int_eq(tm_hostlist_find(h, "n001"), 0);
	ck_assert_int_eq(tm_hostlist_find(h, "n010"), 9);
	ck_assert_int_eq(tm_hostlist_find(h, "m1"), 10);
	ck_assert_int_eq(tm_hostlist_find(h, "m20"), 29);
	ck_assert_int_eq(tm_hostlist_find(h, "login"), 30);
	ck_assert_int_eq(tm_hostlist_find(h, "x5"), 31);
	/* absent */
	ck_assert_int_eq(tm_hostlist_find(h, "n011"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "m0"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "m21"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "login2"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "q1"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, ""), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n0x1"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, NULL), -1);
	/* widths: n01 is not n001, m01 is not m1 */
	ck_assert_int_eq(tm_hostlist_find(h, "n01"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n1"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n0001"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "m01"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "x05"), -1);
	ck_assert_int_eq(tm_hostlist_find(h, "n9999999999999999999999"), -1);
	tm_hostlist_destroy(h);

	/* a width-1 range holds n1 and n10 but not n01 */
	h = parse("n[1-12]");
	ck_assert_int_eq(tm_hostlist_find(h, "n1"), 0);
	ck_assert_int_eq(tm_hostlist_find(h, "n10"), 9);
	ck_assert_int_eq(tm_hostlist_find(h, "n01"), -1);
	tm_hostlist_destroy(h);
	/* the first occurrence wins */
	h = parse("a,b[1-3],b2");
	ck_assert_int_eq(tm_hostlist_find(h, "b2"), 2);
	tm_hostlist_destroy(h);
}
END_TEST

/* Duplicate pair of `text`: want 0 for none, else the pair (i, j). */
static void dup_is(const char *text, int want, int64_t wi, int64_t wj)
{
	tm_hostlist_t *h = parse(text);
	int64_t i = -1, j = -1;
	int rc = tm_hostlist_duplicate(h, &i, &j);
	ck_assert_msg(rc == want, "%s: got %d want %d", text, rc, want);
	if (want) {
		ck_assert_msg(i == wi && j == wj, "%s: got (%lld,%lld) want (%lld,%lld)", text,
			      (long long)i, (long long)j, (long long)wi, (long long)wj);
		char a[64], b[64];
		ck_assert_str_eq(name_at(h, i, a, sizeof(a)), name_at(h, j, b, sizeof(b)));
	}
	tm_hostlist_destroy(h);
}

START_TEST(duplicates)
{
	dup_is("n[1-3,2]", 1, 1, 3);
	dup_is("n[1-4],n3", 1, 2, 4);
	dup_is("n3,n[1-4]", 1, 0, 3);
	dup_is("a,b,a", 1, 0, 2);
	dup_is("n[1-4]-ib,n2-ib", 1, 1, 4);
	dup_is("n[1-10],n[10-20]", 1, 9, 10);
	/* widths: n[1-100] holds n10, and so does n[01-10]; n001 is nobody's */
	dup_is("n[1-100],n[01-09],n001", 0, 0, 0);
	dup_is("n[1-100],n[01-10]", 1, 9, 109);
	dup_is("rack1-n[01-16],rack2-n[01-16],rack1-n16", 1, 15, 32);
	/* the smallest j wins, paired with the earliest copy */
	dup_is("x[5-9],y1,x7,y1,x7", 1, 2, 6);
	/* none */
	dup_is("n[1-3],n[4-6],m[1-3]", 0, 0, 0);
	dup_is("n[1-4],n[1-4]-ib,login", 0, 0, 0);
	dup_is("n[01-10],n[1-9]", 0, 0, 0);
	dup_is("a", 0, 0, 0);
	/* names cut in several ways: the hashed fallback */
	dup_is("n1[0-9],n[10-19]", 1, 0, 10);
	dup_is("n[1-4]-ib2,n3-ib2", 1, 2, 4);
	dup_is("r[1-2]-n5,r1-n[1-9]", 1, 0, 6);
	dup_is("n1[0-9],n[20-29]", 0, 0, 0);

	/* the fallback refuses to expand 10^8 names */
	tm_hostlist_t *h = parse("n1[00000000-99999999]");
	int64_t i, j;
	ck_assert_int_eq(tm_hostlist_duplicate(h, &i, &j), -TOPOMATCH_ELIMIT);
	ck_assert_int_eq(tm_hostlist_duplicate(h, NULL, &j), -TOPOMATCH_EINVAL);
	tm_hostlist_destroy(h);
}
END_TEST

/* compress(expand(text)) equals `want` and expands to the same names. */
static void round_trip(const char *text, const char *want)
{
	tm_hostlist_t *h = parse(text);
	int64_t n = tm_hostlist_count(h);
	char **names = calloc((size_t)n, sizeof(*names));
	ck_assert_ptr_nonnull(names);
	for (int64_t k = 0; k < n; k++) {
		names[k] = malloc(64);
		name_at(h, k, names[k], 64);
	}
	char *out, err[TOPOMATCH_ERRLEN] = "";
	ck_assert_msg(tm_hostlist_compress((const char *const *)names, n, &out, err) ==
			      TOPOMATCH_OK,
		      "%s", err);
	if (want)
		ck_assert_str_eq(out, want);
	tm_hostlist_t *g = parse(out);
	ck_assert_int_eq(tm_hostlist_count(g), n);
	char buf[64];
	for (int64_t k = 0; k < n; k++)
		ck_assert_str_eq(name_at(g, k, buf, sizeof(buf)), names[k]);
	tm_hostlist_destroy(g);
	for (int64_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	free(out);
	tm_hostlist_destroy(h);
}

START_TEST(compress)
{
	round_trip("n1,n2,n3,n5,m1", "n[1-3,5],m1");
	round_trip("n[001-003,007]", "n[001-003,007]");
	round_trip("n[8-11]", "n[8-11]");
	round_trip("n[08-11]", "n[08-11]");
	round_trip("n[9,010]", "n[9,010]");
	round_trip("a[1-3,5],login2", "a[1-3,5],login2");
	round_trip("login,n1,login", "login,n1,login");
	round_trip("rack1-n[01-16],rack2-n[01-16]", "rack1-n[01-16],rack2-n[01-16]");
	round_trip("n[1-4]-ib,n[5-6]", "n[1-4]-ib,n[5-6]");
	round_trip("n[3,1-2,2]", "n[3,1-2,2]");
	round_trip("[1-3]", "[1-3]");
	round_trip("x12345678901234567890,x12345678901234567891", NULL);
	round_trip("n[0-1000]", "n[0-1000]");

	char *out;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_hostlist_compress(NULL, 0, &out, err), TOPOMATCH_OK);
	ck_assert_str_eq(out, "");
	free(out);
	const char *bad[] = { "n1", "n 2" };
	ck_assert_int_eq(tm_hostlist_compress(bad, 2, &out, err), TOPOMATCH_EINVAL);
	ck_assert_contains(err, "name 1: bad character");
	const char *empty[] = { "" };
	ck_assert_int_eq(tm_hostlist_compress(empty, 1, &out, err), TOPOMATCH_EINVAL);
}
END_TEST

/* Parsing `text` fails with `status` and a message containing `needle`. */
static void fails(const char *text, int status, const char *needle)
{
	tm_hostlist_t *h = (tm_hostlist_t *)&h;
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = tm_hostlist_parse(text, 0, &h, err);
	ck_assert_msg(rc == status, "%s: got %d (%s)", text, rc, err);
	ck_assert_ptr_null(h);
	ck_assert_contains(err, needle);
}

START_TEST(errors)
{
	fails("", TOPOMATCH_EPARSE, "column 1: empty item");
	fails("a,,b", TOPOMATCH_EPARSE, "column 3: empty item");
	fails(",a", TOPOMATCH_EPARSE, "column 1: empty item");
	fails("a,", TOPOMATCH_EPARSE, "column 3: empty item");
	fails("n[1-3", TOPOMATCH_EPARSE, "column 2: unbalanced bracket '['");
	fails("n[1-3,", TOPOMATCH_EPARSE, "column 2: unbalanced bracket '['");
	fails("n1-3]", TOPOMATCH_EPARSE, "column 5: unbalanced bracket ']'");
	fails("n[1-3]]", TOPOMATCH_EPARSE, "column 7: unbalanced bracket ']'");
	fails("n[1-[2]]", TOPOMATCH_EPARSE, "column 5: nested bracket");
	fails("n[[1]]", TOPOMATCH_EPARSE, "column 3: nested bracket");
	fails("n[1,[2]]", TOPOMATCH_EPARSE, "column 5: nested bracket");
	fails("n[1][2]", TOPOMATCH_EPARSE, "column 5: more than one bracket group");
	fails("n 1", TOPOMATCH_EPARSE, "column 2: bad character 0x20");
	fails("a,b*", TOPOMATCH_EPARSE, "column 4: bad character '*'");
	fails("n[1-3x]", TOPOMATCH_EPARSE, "column 6: bad character 'x'");
	fails("n[a-3]", TOPOMATCH_EPARSE, "column 3: bad character 'a'");
	fails("n[9-3]", TOPOMATCH_EPARSE, "column 3: range 9-3 goes backwards");
	fails("a,n[1,10-09]", TOPOMATCH_EPARSE, "column 7: range 10-09 goes backwards");
	fails("n[1234567890123456789]", TOPOMATCH_EPARSE, "column 3: number too large");
	fails("n[1-1234567890123456789]", TOPOMATCH_EPARSE, "column 5: number too large");
	fails("n[]", TOPOMATCH_EPARSE, "column 2: empty range list");
	fails("n[1,]", TOPOMATCH_EPARSE, "column 5: expected a number before ']'");
	fails("n[,1]", TOPOMATCH_EPARSE, "column 3: expected a number before ','");
	fails("n[-1]", TOPOMATCH_EPARSE, "column 3: expected a number before '-'");
	fails("n[1-]", TOPOMATCH_EPARSE, "column 5: expected a number after '-'");

	tm_hostlist_t *h;
	char err[TOPOMATCH_ERRLEN];
	ck_assert_int_eq(tm_hostlist_parse(NULL, 0, &h, err), TOPOMATCH_EINVAL);
	ck_assert_int_eq(tm_hostlist_parse("a", 0, NULL, err), TOPOMATCH_EINVAL);
	/* a NULL err buffer is allowed */
	ck_assert_int_eq(tm_hostlist_parse("n[", 0, &h, NULL), TOPOMATCH_EPARSE);
}
END_TEST

START_TEST(limit)
{
	tm_hostlist_t *h;
	char err[TOPOMATCH_ERRLEN] = "";
	ck_assert_int_eq(tm_hostlist_parse("n[1-10]", 10, &h, err), TOPOMATCH_OK);
	ck_assert_int_eq(tm_hostlist_count(h), 10);
	tm_hostlist_destroy(h);
	ck_assert_int_eq(tm_hostlist_parse("n[1-10],m", 10, &h, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "column 9: more than 10 names");
	ck_assert_int_eq(tm_hostlist_parse("a,n[1-5,6-11]", 10, &h, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "column 9: more than 10 names");
	/* no bound given: only int64 overflow stops the count */
	ck_assert_int_eq(tm_hostlist_parse("n[0-999999999999999999],m[0-999999999999999999]"
					   ",k[0-999999999999999999]"
					   ",j[0-999999999999999999]"
					   ",i[0-999999999999999999]"
					   ",h[0-999999999999999999]"
					   ",g[0-999999999999999999]"
					   ",f[0-999999999999999999]"
					   ",e[0-999999999999999999]"
					   ",d[0-999999999999999999]",
					   0, &h, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "column 219: more than");
}
END_TEST

/* Names of up to TM_HOSTLIST_MAX_NAME characters, plain or from a range
 * whose widest number sets the length; one more is refused at its item. */
START_TEST(name_length)
{
	tm_hostlist_t *h;
	char err[TOPOMATCH_ERRLEN] = "", text[1024], buf[TM_HOSTLIST_MAX_NAME + 1];
	char pre[TM_HOSTLIST_MAX_NAME + 2];
	memset(pre, 'a', sizeof(pre));
	pre[TM_HOSTLIST_MAX_NAME] = '\0';
	ck_assert_int_eq(tm_hostlist_parse(pre, 0, &h, err), TOPOMATCH_OK);
	ck_assert_str_eq(name_at(h, 0, buf, sizeof(buf)), pre);
	tm_hostlist_destroy(h);
	pre[TM_HOSTLIST_MAX_NAME] = 'a';
	pre[TM_HOSTLIST_MAX_NAME + 1] = '\0';
	snprintf(text, sizeof(text), "n1,%s", pre);
	ck_assert_int_eq(tm_hostlist_parse(text, 0, &h, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "column 4: a name longer than 255 characters");
	/* 250 + "[1-10]" + 3: the last name, "a...a10xyz", is 255 characters */
	pre[250] = '\0';
	snprintf(text, sizeof(text), "%s[1-10]xyz", pre);
	ck_assert_int_eq(tm_hostlist_parse(text, 0, &h, err), TOPOMATCH_OK);
	ck_assert_int_eq(strlen(name_at(h, 9, buf, sizeof(buf))), TM_HOSTLIST_MAX_NAME);
	ck_assert_int_eq(tm_hostlist_find(h, buf), 9);
	tm_hostlist_destroy(h);
	snprintf(text, sizeof(text), "m,%s[1-9,100]xyz", pre);
	ck_assert_int_eq(tm_hostlist_parse(text, 0, &h, err), TOPOMATCH_ELIMIT);
	ck_assert_str_eq(err, "column 3: a name longer than 255 characters");
	/* the width, not the value, can make it long too */
	snprintf(text, sizeof(text), "%s[001-002]xyz", pre);
	ck_assert_int_eq(tm_hostlist_parse(text, 0, &h, err), TOPOMATCH_ELIMIT);
}
END_TEST

START_TEST(huge_list_not_expanded)
{
	tm_hostlist_t *h;
	char err[TOPOMATCH_ERRLEN] = "", buf[32];
	/* a limit of 100000 proves the names are counted, not stored */
	ck_assert_int_eq(tm_hostlist_parse("n[000001-100000]", 100000, &h, err), TOPOMATCH_OK);
	ck_assert_int_eq(tm_hostlist_count(h), 100000);
	for (int64_t k = 0; k < 100000; k++) {
		snprintf(buf, sizeof(buf), "n%06lld", (long long)(k + 1));
		ck_assert_int_eq(tm_hostlist_find(h, buf), k);
	}
	ck_assert_str_eq(name_at(h, 99999, buf, sizeof(buf)), "n100000");
	int64_t i, j;
	ck_assert_int_eq(tm_hostlist_duplicate(h, &i, &j), 0);
	tm_hostlist_destroy(h);

	/* 10^17 names: anything that expanded would never finish */
	ck_assert_int_eq(tm_hostlist_parse("n[0-99999999999999999],n5", 0, &h, err),
			 TOPOMATCH_OK);
	ck_assert_int_eq(tm_hostlist_count(h), INT64_C(100000000000000001));
	ck_assert_int_eq(tm_hostlist_find(h, "n99999999999999999"), INT64_C(99999999999999999));
	ck_assert_int_eq(tm_hostlist_duplicate(h, &i, &j), 1);
	ck_assert_int_eq(i, 5);
	ck_assert_int_eq(j, INT64_C(100000000000000000));
	tm_hostlist_destroy(h);
}
END_TEST

/* Deterministic generator for the property test (no shared state). */
static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* A random list over few prefixes and suffixes so that names collide. */
static void random_list(uint64_t *s, char *text, size_t len)
{
	static const char *const pre[] = { "n", "n1", "a-", "", "r1-n" };
	static const char *const suf[] = { "", "-ib", "x2", "0" };
	size_t n = 0;
	int items = 1 + (int)(next_rand(s) % 4);
	for (int it = 0; it < items; it++) {
		const char *p = pre[next_rand(s) % 5], *x = suf[next_rand(s) % 4];
		int w = 1 + (int)(next_rand(s) % 3);
		n += (size_t)snprintf(text + n, len - n, "%s%s", it ? "," : "", p);
		if (next_rand(s) % 4 == 0) {
			n += (size_t)snprintf(text + n, len - n, "%0*d%s", w,
					      (int)(next_rand(s) % 30), x);
			continue;
		}
		int ranges = 1 + (int)(next_rand(s) % 3);
		n += (size_t)snprintf(text + n, len - n, "[");
		for (int r = 0; r < ranges; r++) {
			int lo = (int)(next_rand(s) % 25), hi = lo + (int)(next_rand(s) % 12);
			n += (size_t)snprintf(text + n, len - n, "%s%0*d-%d", r ? "," : "", w, lo,
					      hi);
		}
		n += (size_t)snprintf(text + n, len - n, "]%s", x);
	}
}

/* Duplicate, find and compress agree with brute force on the expansion. */
static void check_against_expansion(const char *text)
{
	tm_hostlist_t *h = parse(text);
	int64_t n = tm_hostlist_count(h);
	char(*nm)[64] = calloc((size_t)n, sizeof(*nm));
	ck_assert_ptr_nonnull(nm);
	for (int64_t k = 0; k < n; k++)
		name_at(h, k, nm[k], sizeof(nm[k]));
	int64_t wi = -1, wj = -1;
	for (int64_t j = 0; j < n && wj < 0; j++)
		for (int64_t i = 0; i < j; i++)
			if (!strcmp(nm[i], nm[j])) {
				wi = i;
				wj = j;
				break;
			}
	int64_t i = -1, j = -1;
	int rc = tm_hostlist_duplicate(h, &i, &j);
	ck_assert_msg(rc == (wj >= 0), "%s: duplicate %d", text, rc);
	if (rc)
		ck_assert_msg(i == wi && j == wj, "%s: (%lld,%lld) want (%lld,%lld)", text,
			      (long long)i, (long long)j, (long long)wi, (long long)wj);
	for (int64_t k = 0; k < n; k++) {
		int64_t first = 0;
		while (strcmp(nm[first], nm[k]))
			first++;
		ck_assert_msg(tm_hostlist_find(h, nm[k]) == first, "%s: find %s", text, nm[k]);
	}
	free(nm);
	tm_hostlist_destroy(h);
}

START_TEST(property_random)
{
	uint64_t s = 12345;
	char text[512];
	for (int trial = 0; trial < 2000; trial++) {
		random_list(&s, text, sizeof(text));
		check_against_expansion(text);
		round_trip(text, NULL);
	}
}
END_TEST

static Suite *hostlist_suite(void)
{
	Suite *s = suite_create("topomatch-hostlist");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, expand_lists);
	tcase_add_test(tc, zero_padding);
	tcase_add_test(tc, suffixes);
	tcase_add_test(tc, find);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, compress);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, limit);
	tcase_add_test(tc, name_length);
	tcase_add_test(tc, huge_list_not_expanded);
	tcase_add_test(tc, property_random);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tm_run_suite(hostlist_suite());
}

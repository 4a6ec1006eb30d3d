/*
 * safety_forge.c - submit batch jobs whose spank_job_env carries a
 * crafted TOPOMATCH_PATTERN_* blob, as any user can through the Slurm API
 * (DESIGN.md, Security).  Test-only; used by tests/slurm/safety.sh.
 *
 *   safety_forge [-T] [-n NTASKS] [-J PREFIX] [-s SECONDS] [-g N] [-r SEED] CASE...
 *
 * submits one job per CASE (NTASKS tasks, default 4, named PREFIX CASE,
 * running `sleep SECONDS`, default 0) and prints "CASE JOBID" per line.
 * With -T nothing is submitted: each job is only tested as `sbatch
 * --test-only` does (slurm_job_will_run2: select's will-run test, through
 * the plugin), and the lines say "CASE NODELIST JOBID" (the id the test had
 * in slurmctld's log).  -g: the size of `giant` (N MiB, default 16) and
 * `wide` (N x 2^20 entries); -r: the seed of the random cases.
 * `safety_forge -l` lists the cases.  Exit status 1 when a submission
 * failed (its line then says "CASE -").
 *
 * The blobs are built here from the format description at the top of
 * core/pattern/pattern_blob.c (entry header, base64url, FNV-1a 64, LEB128 varints,
 * little-endian doubles), independently of libtopomatch's encoder: the
 * envelope cases break the strings, the payload cases carry a correct
 * envelope and checksum around a payload that is wrong inside (overflowing
 * counts, NaN or negative weights, out-of-range columns, ...), so that
 * every check of the decoder is reached.  `valid` and `valid8` are
 * correct patterns (a chain of NTASKS or 8 tasks): positive controls.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#define PFX "TOPOMATCH_PATTERN_"

/* In libslurm and named by slurm.h's comment on slurm_job_will_run2, but
 * declared only in Slurm's internal slurm_protocol_defs.h. */
extern void slurm_free_will_run_response_msg(will_run_response_msg_t *msg);

/* ------------------------------------------------------------ buffers */

typedef struct {
	unsigned char *p;
	size_t n, cap;
} buf_t;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		perror("safety_forge");
		exit(1);
	}
	return p;
}

static void put(buf_t *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("safety_forge");
			exit(1);
		}
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_byte(buf_t *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(b, &c, 1);
}

/* unsigned LEB128, minimal */
static void put_varint(buf_t *b, uint64_t v)
{
	do {
		unsigned c = v & 0x7f;
		v >>= 7;
		put_byte(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void put_double(buf_t *b, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	for (int k = 0; k < 8; k++)
		put_byte(b, (unsigned)(u >> (8 * k)));
}

/* ------------------------------------------------------------ envelope */

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url without padding; malloc'd */
static char *b64url(const unsigned char *in, size_t n)
{
	char *out = xmalloc(n / 3 * 4 + 5), *o = out;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		for (int k = 3; k >= 0; k--)
			*o++ = b64[(v >> (6 * k)) & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		*o++ = b64[v >> 18];
		*o++ = b64[(v >> 12) & 63];
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*o++ = b64[v >> 18];
		*o++ = b64[(v >> 12) & 63];
		*o++ = b64[(v >> 6) & 63];
	}
	*o = 0;
	return out;
}

/* "NAME=TMP1 VV IIII NNNN LLLLLLLL H16 DATA" (no spaces), malloc'd */
static char *entry(const char *name, unsigned ver, unsigned idx, unsigned count, uint64_t len,
		   uint64_t sum, const char *data, size_t dlen)
{
	size_t nl = strlen(name);
	char *e = xmalloc(nl + 1 + 38 + dlen + 1);
	int h = sprintf(e, "%s=TMP1%02x%04x%04x%08llx%016llx", name, ver & 0xff, idx & 0xffff,
			count & 0xffff, (unsigned long long)(len & 0xffffffffu),
			(unsigned long long)sum);
	memcpy(e + h, data, dlen);
	e[h + dlen] = 0;
	return e;
}

/* Payload -> one well-formed entry TOPOMATCH_PATTERN_0. */
static char *wrap(const buf_t *pl)
{
	char *d = b64url(pl->p, pl->n);
	char *e = entry(PFX "0", 1, 0, 1, pl->n, fnv1a64(pl->p, pl->n), d, strlen(d));
	free(d);
	return e;
}

/* ------------------------------------------------------------ payloads */

typedef struct {
	uint64_t n, nnz, nnz_input;
	double wmax, win, wkept, sf;
} phdr_t;

static void put_phdr(buf_t *b, const phdr_t *h)
{
	put_varint(b, h->n);
	put_varint(b, h->nnz);
	put_varint(b, h->nnz_input);
	put_double(b, h->wmax);
	put_double(b, h->win);
	put_double(b, h->wkept);
	put_double(b, h->sf);
}

/* The header of a chain 0-1-...-(n-1) of weight 1. */
static phdr_t chain_hdr(uint64_t n)
{
	phdr_t h = { n, n - 1, n - 1, 1.0, (double)(n - 1), (double)(n - 1), 0.0 };
	return h;
}

/*
 * Rows of the chain: row i < n-1 has one edge (i, i+1), gap 0, weight
 * code 0 = the prediction (the table starts at 0): varint 1 ("same").
 */
static void put_chain_rows(buf_t *b, uint64_t n)
{
	for (uint64_t i = 0; i + 1 < n; i++) {
		put_varint(b, 1);
		put_varint(b, 0 << 1 | 1);
	}
	put_varint(b, 0);
}

static buf_t chain(uint64_t n)
{
	buf_t b = { 0 };
	phdr_t h = chain_hdr(n);
	put_phdr(&b, &h);
	put_chain_rows(&b, n);
	return b;
}

/* A chain of 4 tasks whose header is changed by f. */
static char *chain4_with(void (*f)(phdr_t *))
{
	buf_t b = { 0 };
	phdr_t h = chain_hdr(4);
	f(&h);
	put_phdr(&b, &h);
	put_chain_rows(&b, 4);
	char *e = wrap(&b);
	free(b.p);
	return e;
}

static void h_ntasks0(phdr_t *h) { h->n = 0; }
static void h_nnz_over_input(phdr_t *h) { h->nnz_input = 1; }
static void h_input_over_pairs(phdr_t *h) { h->nnz_input = 7; } /* 4 tasks: 6 pairs */
/* more edges than slurmctld decodes at JobBudgetMs=50 (tm_plugin_pattern_edges) */
static void h_edges_over(phdr_t *h) { h->nnz = h->nnz_input = 70000; }
static void h_wmax_nan(phdr_t *h) { h->wmax = NAN; }
static void h_wmax_neg(phdr_t *h) { h->wmax = -1.0; }
static void h_wmax_inf(phdr_t *h) { h->wmax = INFINITY; }
static void h_wmax_zero(phdr_t *h) { h->wmax = 0.0; }
static void h_win_nan(phdr_t *h) { h->win = NAN; }
static void h_wkept_neg(phdr_t *h) { h->wkept = -3.0; }
static void h_wkept_over(phdr_t *h) { h->wkept = 1e9; }
static void h_sf_nan(phdr_t *h) { h->sf = NAN; }
static void h_sf_big(phdr_t *h) { h->sf = 2.0; }

/* Hand-built payloads (bytes after the header). */
static char *raw(const unsigned char *bytes, size_t n)
{
	buf_t b = { 0 };
	put(&b, bytes, n);
	char *e = wrap(&b);
	free(b.p);
	return e;
}

/* 4 tasks, the given header counts, then `rows` as given. */
static char *custom(uint64_t n, uint64_t nnz, const unsigned char *rows, size_t nrows)
{
	buf_t b = { 0 };
	phdr_t h = { n, nnz, nnz, 1.0, (double)nnz, (double)nnz, 0.0 };
	put_phdr(&b, &h);
	put(&b, rows, nrows);
	char *e = wrap(&b);
	free(b.p);
	return e;
}

/* ------------------------------------------------------------ cases */

static uint64_t rng = 88172645463325252ull;
static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int ntasks = 4;
static size_t giant_mib = 16;

typedef struct {
	char **v;
	int n, cap;
} env_t;

static void add(env_t *e, char *s)
{
	if (e->n + 2 > e->cap) {
		e->cap = 2 * e->cap + 16;
		e->v = realloc(e->v, (size_t)e->cap * sizeof(*e->v));
		if (!e->v) {
			perror("safety_forge");
			exit(1);
		}
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

static char *dupf(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		perror("safety_forge");
		exit(1);
	}
	return d;
}

/*
 * Entry idx of count whose value has exactly `len` characters: a
 * well-formed header (the same L and checksum in every entry) and filler
 * data, so that only the sizes are wrong.
 */
static char *long_entry(unsigned idx, unsigned count, size_t len)
{
	char name[64], *d, *e;

	snprintf(name, sizeof(name), PFX "%u", idx);
	d = xmalloc(len - 38 + 1);
	memset(d, 'A', len - 38);
	e = entry(name, 1, idx, count, 3 * (uint64_t)len, 0x5afe5afe5afe5afeull, d, len - 38);
	free(d);
	return e;
}

static const struct {
	const char *name, *what;
} cases[] = {
	{ "none", "no pattern at all (Slurm's own placement)" },
	{ "valid", "a correct chain of NTASKS tasks (positive control)" },
	{ "valid8", "a correct chain of 8 tasks (mismatch when NTASKS != 8)" },
	{ "empty", "TOPOMATCH_PATTERN_0= (empty value)" },
	{ "magic", "bad magic XMP1" },
	{ "trunc-header", "the first 20 characters of an entry" },
	{ "truncated", "a valid entry cut in the middle of its data" },
	{ "extended", "a valid entry with 4 more data characters" },
	{ "version", "format version 04" },
	{ "header-hex", "uppercase hex digits in the header" },
	{ "count", "entry says 2 entries, 1 given" },
	{ "index", "entry 0 says it is part 1" },
	{ "gap", "only TOPOMATCH_PATTERN_1" },
	{ "dup", "TOPOMATCH_PATTERN_0 twice" },
	{ "badname", "TOPOMATCH_PATTERN_x" },
	{ "leading-zero", "TOPOMATCH_PATTERN_00" },
	{ "mixed", "entries 0 and 1 of two different patterns" },
	{ "flip", "one data character changed (checksum)" },
	{ "badchar", "a '+' in the data" },
	{ "padding", "non-zero unused bits in the last group (checksum correct)" },
	{ "declared-huge", "the header announces 4 GiB of payload" },
	{ "no-data", "a header without data" },
	{ "ntasks0", "payload: 0 tasks" },
	{ "ntasks-huge", "payload: 2^62 tasks" },
	{ "ntasks-u64max", "payload: 2^64-1 tasks (10-byte varint)" },
	{ "ntasks-over", "payload: a valid chain of 4097 tasks (topomatch.conf's MaxTasks: 4096)" },
	{ "varint-overflow", "payload: an 11-byte varint" },
	{ "varint-nonminimal", "payload: 0x80 0x00" },
	{ "nnz-overflow", "payload: 2^64-1 edges" },
	{ "nnz-over-input", "payload: more kept edges than input edges" },
	{ "input-over-pairs", "payload: 7 input edges for 4 tasks" },
	{ "edges-over", "version 2 payload: 70000 edges, more than JobBudgetMs=50 decodes (65536)" },
	{ "wmax-nan", "payload: largest weight NaN" },
	{ "wmax-negative", "payload: largest weight -1" },
	{ "wmax-inf", "payload: largest weight +inf" },
	{ "wmax-zero", "payload: largest weight 0" },
	{ "win-nan", "payload: input weight NaN" },
	{ "wkept-negative", "payload: kept weight -3" },
	{ "wkept-over", "payload: kept weight above input weight" },
	{ "sf-nan", "payload: sparse factor NaN" },
	{ "sf-big", "payload: sparse factor 2" },
	{ "column", "payload: a column beyond the last task" },
	{ "row-over", "payload: a row with more edges than announced" },
	{ "rows-under", "payload: fewer edges than announced" },
	{ "code-big", "payload: weight code 70000" },
	{ "code-same", "payload: a written code equal to the prediction" },
	{ "trailing", "payload: bytes after the last row" },
	{ "truncated-payload", "payload: ends inside a double (checksum correct)" },
	{ "weight-overflow", "payload: weights summing past DBL_MAX" },
	{ "random-text", "random printable text after TOPOMATCH_PATTERN_0= (seeded)" },
	{ "random-payload", "a correct envelope around 64 random bytes (seeded)" },
	{ "random-rows", "a correct header and random rows (seeded)" },
	{ "entry-over", "one entry of 65536 characters (limit: 65535 + NUL)" },
	{ "total-over", "9 entries of 60002 characters (limit: 524288 bytes in all)" },
	{ "many", "65535 small entries (2.9 MB in all)" },
	{ "too-many", "70000 entries (the format holds 65535)" },
	{ "crowded", "4000 entries A=1, then a valid chain of NTASKS tasks (control)" },
	{ "decision", "TOPOMATCH_DECISION=topomatch: forged (the plugin's line for sacct), then a valid chain" },
	{ "giant", "one entry of N MiB (-g N, default 16)" },
	{ "wide", "N x 2^20 entries A=1 (-g N), then a valid chain of NTASKS tasks" },
	{ "huge-weights", "payload: a valid chain of NTASKS tasks of weight DBL_MAX / (NTASKS + 1)" },
	{ "tiny-weights", "payload: a valid chain of NTASKS tasks, its first pair of weight 2^-958, the others 2^-1022" },
	{ NULL, NULL },
};

static int build(const char *c, env_t *e)
{
	if (!strcmp(c, "none")) {
		e->n = 0;
	} else if (!strcmp(c, "valid") || !strcmp(c, "valid8")) {
		buf_t b = chain(!strcmp(c, "valid") ? (uint64_t)ntasks : 8);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "empty")) {
		add(e, dupf(PFX "0="));
	} else if (!strcmp(c, "magic") || !strcmp(c, "trunc-header") ||
		   !strcmp(c, "truncated") || !strcmp(c, "extended") ||
		   !strcmp(c, "version") || !strcmp(c, "header-hex") || !strcmp(c, "flip") ||
		   !strcmp(c, "badchar")) {
		buf_t b = chain(64);
		char *s = wrap(&b), *v = strchr(s, '=') + 1;
		size_t len = strlen(v);
		free(b.p);
		if (!strcmp(c, "magic"))
			v[0] = 'X';
		else if (!strcmp(c, "trunc-header"))
			v[20] = 0;
		else if (!strcmp(c, "truncated"))
			v[38 + (len - 38) / 2] = 0;
		else if (!strcmp(c, "extended")) {
			char *t = xmalloc(strlen(s) + 5);
			sprintf(t, "%sAAAA", s);
			free(s);
			s = t;
		} else if (!strcmp(c, "version"))
			v[5] = '4';
		else if (!strcmp(c, "header-hex"))
			v[14] = 'A'; /* L's first digit: hex, but not lowercase */
		else if (!strcmp(c, "flip")) {
			char *m = v + 38 + (len - 38) / 2;
			*m = *m == 'A' ? 'B' : 'A';
		} else if (!strcmp(c, "badchar"))
			v[38 + (len - 38) / 2] = '+';
		add(e, s);
	} else if (!strcmp(c, "count") || !strcmp(c, "index")) {
		buf_t b = chain(4);
		char *d = b64url(b.p, b.n);
		add(e, entry(PFX "0", 1, !strcmp(c, "index"), !strcmp(c, "count") ? 2 : 1, b.n,
			     fnv1a64(b.p, b.n), d, strlen(d)));
		free(d);
		free(b.p);
	} else if (!strcmp(c, "gap") || !strcmp(c, "dup") || !strcmp(c, "badname") ||
		   !strcmp(c, "leading-zero")) {
		buf_t b = chain(4);
		char *s = wrap(&b), *v = strchr(s, '=') + 1, *t = xmalloc(strlen(s) + 8);
		free(b.p);
		if (!strcmp(c, "gap")) {
			sprintf(t, PFX "1=%s", v);
			add(e, t);
		} else if (!strcmp(c, "dup")) {
			add(e, dupf(s));
			free(t);
		} else {
			sprintf(t, PFX "%s=%s", !strcmp(c, "badname") ? "x" : "00", v);
			add(e, t);
		}
		if (strcmp(c, "gap") && strcmp(c, "badname") && strcmp(c, "leading-zero"))
			add(e, s);
		else
			free(s);
	} else if (!strcmp(c, "mixed")) {
		/* two 2-entry patterns, entry 0 of one and entry 1 of the other */
		buf_t a = chain(100), b = chain(101);
		char *da = b64url(a.p, a.n), *db = b64url(b.p, b.n);
		add(e, entry(PFX "0", 1, 0, 2, a.n, fnv1a64(a.p, a.n), da, 100));
		add(e, entry(PFX "1", 1, 1, 2, b.n, fnv1a64(b.p, b.n), db + 100, strlen(db) - 100));
		free(da);
		free(db);
		free(a.p);
		free(b.p);
	} else if (!strcmp(c, "padding")) {
		/* a 1-byte payload: 2 characters, the second's low 4 bits unused */
		unsigned char p[1] = { 0x40 };
		char d[3] = { b64[0x40 >> 2], b64[((0x40 & 3) << 4) | 1], 0 };
		add(e, entry(PFX "0", 1, 0, 1, 1, fnv1a64(p, 1), d, 2));
	} else if (!strcmp(c, "declared-huge")) {
		add(e, entry(PFX "0", 1, 0, 1, 0xffffffffu, 0x0123456789abcdefull, "AAAAAAAA", 8));
	} else if (!strcmp(c, "no-data")) {
		add(e, entry(PFX "0", 1, 0, 1, 0, fnv1a64(NULL, 0), "", 0));
	} else if (!strcmp(c, "ntasks0")) {
		add(e, chain4_with(h_ntasks0));
	} else if (!strcmp(c, "ntasks-huge") || !strcmp(c, "ntasks-u64max") ||
		   !strcmp(c, "nnz-overflow")) {
		buf_t b = { 0 };
		phdr_t h = chain_hdr(4);
		if (!strcmp(c, "ntasks-huge"))
			h.n = UINT64_C(1) << 62;
		else if (!strcmp(c, "ntasks-u64max"))
			h.n = UINT64_MAX;
		else
			h.nnz = h.nnz_input = UINT64_MAX;
		put_phdr(&b, &h);
		put_chain_rows(&b, 4);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "ntasks-over")) {
		buf_t b = chain(4097);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "varint-overflow")) {
		unsigned char p[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
		add(e, raw(p, sizeof(p)));
	} else if (!strcmp(c, "varint-nonminimal")) {
		unsigned char p[] = { 0x84, 0x00, 3, 3 };
		add(e, raw(p, sizeof(p)));
	} else if (!strcmp(c, "nnz-over-input")) {
		add(e, chain4_with(h_nnz_over_input));
	} else if (!strcmp(c, "input-over-pairs")) {
		add(e, chain4_with(h_input_over_pairs));
	} else if (!strcmp(c, "edges-over")) {
		/* version 2, whose repeated rows make the edges no longer
		 * bounded by the bytes: the pairs limit is what refuses it */
		char *s = chain4_with(h_edges_over);
		strchr(s, '=')[6] = '2';
		add(e, s);
	} else if (!strcmp(c, "wmax-nan")) {
		add(e, chain4_with(h_wmax_nan));
	} else if (!strcmp(c, "wmax-negative")) {
		add(e, chain4_with(h_wmax_neg));
	} else if (!strcmp(c, "wmax-inf")) {
		add(e, chain4_with(h_wmax_inf));
	} else if (!strcmp(c, "wmax-zero")) {
		add(e, chain4_with(h_wmax_zero));
	} else if (!strcmp(c, "win-nan")) {
		add(e, chain4_with(h_win_nan));
	} else if (!strcmp(c, "wkept-negative")) {
		add(e, chain4_with(h_wkept_neg));
	} else if (!strcmp(c, "wkept-over")) {
		add(e, chain4_with(h_wkept_over));
	} else if (!strcmp(c, "sf-nan")) {
		add(e, chain4_with(h_sf_nan));
	} else if (!strcmp(c, "sf-big")) {
		add(e, chain4_with(h_sf_big));
	} else if (!strcmp(c, "column")) {
		/* row 0: one edge with gap 5 (column 6 of 4 tasks); rows 1-3 empty */
		unsigned char r[] = { 1, 5 << 1 | 1, 0, 0, 0 };
		add(e, custom(4, 1, r, sizeof(r)));
	} else if (!strcmp(c, "row-over")) {
		unsigned char r[] = { 3, 1, 1, 1, 0, 0, 0 }; /* 3 edges where 1 is announced */
		add(e, custom(4, 1, r, sizeof(r)));
	} else if (!strcmp(c, "rows-under")) {
		/* 1 edge where 3 are announced (2 more bytes: room for 3 edges) */
		unsigned char r[] = { 1, 1, 0, 0, 0, 0, 0 };
		add(e, custom(4, 3, r, sizeof(r)));
	} else if (!strcmp(c, "code-big")) {
		/* edge (0,1) not `same`, code 70000 = varint f0 a2 04 */
		unsigned char r[] = { 1, 0, 0xf0, 0xa2, 0x04, 0, 0, 0 };
		add(e, custom(4, 1, r, sizeof(r)));
	} else if (!strcmp(c, "code-same")) {
		unsigned char r[] = { 1, 0, 0, 0, 0, 0 }; /* code 0 written, predicted 0 */
		add(e, custom(4, 1, r, sizeof(r)));
	} else if (!strcmp(c, "trailing")) {
		buf_t b = chain(4);
		put_byte(&b, 0);
		put_byte(&b, 7);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "truncated-payload")) {
		buf_t b = chain(4);
		b.n = 10; /* 3 varints, then 7 bytes of the 8 of wmax */
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "weight-overflow")) {
		/* wmax near DBL_MAX, 3 edges of r = 1: their total is infinite */
		buf_t b = { 0 };
		phdr_t h = chain_hdr(4);
		h.wmax = 1.7e308;
		h.win = h.wkept = 1.7e308;
		put_phdr(&b, &h);
		put_chain_rows(&b, 4);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "huge-weights") || !strcmp(c, "tiny-weights")) {
		/* they decode: the mapper gets weights at the ends of the range */
		buf_t b = { 0 };
		phdr_t h = chain_hdr((uint64_t)ntasks);
		int tiny = !strcmp(c, "tiny-weights");
		h.wmax = tiny ? 0x1p-958 : 1.7976931348623157e308 / (ntasks + 1);
		h.win = h.wkept = tiny ? h.wmax : h.wmax * (ntasks - 1);
		put_phdr(&b, &h);
		for (int i = 0; i + 1 < ntasks; i++) {
			put_varint(&b, 1);
			if (!tiny || i == 0) {
				/* code 0: r = 1 (a blob has one of wmax at least) */
				put_varint(&b, 0 << 1 | 1);
			} else if (i == 1) {
				put_varint(&b, 0); /* written: the smallest code, 65535 */
				put_varint(&b, 65535);
			} else {
				put_varint(&b, 0 << 1 | 1); /* then predicted */
			}
		}
		put_varint(&b, 0);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "random-text")) {
		size_t len = 100 + xorshift() % 3000;
		char *s = xmalloc(len + sizeof(PFX "0="));
		strcpy(s, PFX "0=");
		char *v = s + strlen(s);
		for (size_t k = 0; k < len; k++)
			v[k] = (char)(33 + xorshift() % 94); /* printable, no space */
		if (xorshift() % 2)
			memcpy(v, "TMP101", 6); /* half of them get past the magic */
		v[len] = 0;
		add(e, s);
	} else if (!strcmp(c, "random-payload")) {
		buf_t b = { 0 };
		for (int k = 0; k < 64; k++)
			put_byte(&b, (unsigned)xorshift());
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "random-rows")) {
		buf_t b = { 0 };
		phdr_t h = chain_hdr(16);
		put_phdr(&b, &h);
		for (int k = 0; k < 40; k++)
			put_byte(&b, (unsigned)(xorshift() % 8)); /* small varints */
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "entry-over")) {
		add(e, long_entry(0, 1, 65536));
	} else if (!strcmp(c, "total-over")) {
		/* 8 entries fit (480,016 bytes with their NULs), the 9th does not */
		for (unsigned k = 0; k < 9; k++)
			add(e, long_entry(k, 9, 60002));
	} else if (!strcmp(c, "many") || !strcmp(c, "too-many")) {
		int n = !strcmp(c, "many") ? 65535 : 70000;
		char d[5] = "AAAA";
		for (int k = 0; k < n; k++) {
			char name[64];
			snprintf(name, sizeof(name), PFX "%d", k);
			add(e, entry(name, 1, (unsigned)k, (unsigned)n, 3 * (uint64_t)n, 0, d, 4));
		}
	} else if (!strcmp(c, "decision")) {
		add(e, dupf("TOPOMATCH_DECISION=topomatch: forged by the user"));
		buf_t b = chain((uint64_t)ntasks);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "crowded")) {
		for (int k = 0; k < 4000; k++)
			add(e, dupf("A=1"));
		buf_t b = chain((uint64_t)ntasks);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "wide")) {
		for (size_t k = 0; k < giant_mib << 20; k++)
			add(e, dupf("A=1"));
		buf_t b = chain((uint64_t)ntasks);
		add(e, wrap(&b));
		free(b.p);
	} else if (!strcmp(c, "giant")) {
		add(e, long_entry(0, 1, giant_mib << 20));
	} else {
		return -1;
	}
	return 0;
}

static int test_only;

static int submit(const char *c, const char *name, int secs, env_t *e, uint32_t *id)
{
	job_desc_msg_t job;
	submit_response_msg_t *resp = NULL;
	will_run_response_msg_t *wr = NULL;
	char cwd[4096], script[64], jname[256], *envp[] = { "PATH=/usr/bin:/bin", NULL };

	slurm_init_job_desc_msg(&job);
	snprintf(jname, sizeof(jname), "%s%s", name, c);
	snprintf(script, sizeof(script), "#!/bin/sh\nsleep %d\n", secs);
	job.name = jname;
	job.script = script;
	job.num_tasks = (uint32_t)ntasks;
	job.min_cpus = (uint32_t)ntasks;
	job.user_id = getuid();
	job.group_id = getgid();
	job.work_dir = getcwd(cwd, sizeof(cwd));
	job.std_out = "/dev/null";
	job.std_err = "/dev/null";
	job.environment = envp;
	job.env_size = 1;
	job.spank_job_env = e->v;
	job.spank_job_env_size = (uint32_t)e->n;
	if (test_only) { /* sbatch --test-only: the nodes the job would get now */
		if (slurm_job_will_run2(&job, &wr) || !wr) {
			fprintf(stderr, "safety_forge: %s: ", c);
			slurm_perror("slurm_job_will_run2");
			return -1;
		}
		printf("%s %s %u\n", c, wr->node_list ? wr->node_list : "-", wr->job_id);
		slurm_free_will_run_response_msg(wr);
		return 1;
	}
	if (slurm_submit_batch_job(&job, &resp) || !resp) {
		fprintf(stderr, "safety_forge: %s: ", c);
		slurm_perror("slurm_submit_batch_job");
		return -1;
	}
	*id = resp->job_id;
	slurm_free_submit_response_response_msg(resp);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = "forged-";
	int secs = 0, opt, rc = 0;

	while ((opt = getopt(argc, argv, "n:J:s:g:r:Tl")) != -1) {
		switch (opt) {
		case 'n':
			ntasks = atoi(optarg);
			break;
		case 'J':
			name = optarg;
			break;
		case 's':
			secs = atoi(optarg);
			break;
		case 'g':
			giant_mib = (size_t)atoi(optarg);
			break;
		case 'r':
			rng = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'T':
			test_only = 1;
			break;
		case 'l':
			for (int k = 0; cases[k].name; k++)
				printf("%-18s %s\n", cases[k].name, cases[k].what);
			return 0;
		default:
			fprintf(stderr, "usage: safety_forge [-T] [-n NTASKS] [-J PREFIX] [-s SECONDS] [-g N] "
					"[-r SEED] CASE...\n"
					"       safety_forge -l\n");
			return 2;
		}
	}
	if (optind >= argc || ntasks < 1) {
		fprintf(stderr, "safety_forge: no case given (-l lists them)\n");
		return 2;
	}
	slurm_init(NULL);
	for (int a = optind; a < argc; a++) {
		env_t e = { 0 };
		uint32_t id;
		if (build(argv[a], &e)) {
			fprintf(stderr, "safety_forge: unknown case '%s' (-l lists them)\n", argv[a]);
			return 2;
		}
		int r = submit(argv[a], name, secs, &e, &id);
		if (r < 0) {
			printf("%s -\n", argv[a]);
			rc = 1;
		} else if (r == 0) {
			printf("%s %u\n", argv[a], id);
		}
		fflush(stdout);
		for (int k = 0; k < e.n; k++)
			free(e.v[k]);
		free(e.v);
	}
	return rc;
}

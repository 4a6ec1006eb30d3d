/*
 * hostlist.c - Slurm-style host lists kept as ranges: parsing with
 * column-accurate messages, name <-> index without expansion, duplicate
 * detection by sorting ranges, and compression of name lists.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "hostlist.h"
#include "base/tm_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 18 digits always fit an int64_t, so numbers never need a bignum. */
#define HL_MAXDIGITS 18
/* Most names the duplicate check expands when it cannot sort ranges. */
#define HL_MAXHASHED (INT64_C(1) << 26)

/*
 * One range of names: prefix + number (lo..hi, zero-padded to width) +
 * suffix.  A plain name is a segment of width 0 whose text is the prefix.
 * Prefix and suffix point into the hostlist's own copy of the text, so a
 * bracket of many ranges costs no string copies.
 */
typedef struct hl_seg {
	int64_t start; /* index of the segment's first name */
	int64_t lo, hi;
	size_t pre, npre; /* prefix: offset and length in text */
	size_t suf, nsuf;
	int width; /* 0: plain name */
} hl_seg_t;

struct tm_hostlist {
	char *text;
	hl_seg_t *seg;
	int64_t nseg, cap;
	int64_t count;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '.' ||
	       c == '_' || c == '-';
}

static int ndigits(int64_t v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Characters the number v takes when written with at least w digits. */
static int numlen(int64_t v, int w)
{
	int d = ndigits(v);
	return d > w ? d : w;
}

static int64_t pow10_i64(int e)
{
	int64_t p = 1;
	while (e-- > 0)
		p *= 10;
	return p;
}

/* Value of n (<= HL_MAXDIGITS) digits at s. */
static int64_t digits_value(const char *s, size_t n)
{
	int64_t v = 0;
	for (size_t k = 0; k < n; k++)
		v = v * 10 + (s[k] - '0');
	return v;
}

/* Length of the name of value v in segment sg. */
static size_t seg_name_len(const hl_seg_t *sg, int64_t v)
{
	return sg->npre + (sg->width ? (size_t)numlen(v, sg->width) + sg->nsuf : 0);
}

/* Shows a bad character readably in a one-line message. */
static void char_repr(char c, char *buf, size_t len)
{
	if (c > ' ' && c < 127 && c != '\'')
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "0x%02x", (unsigned)(unsigned char)c);
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

typedef struct hl_parser {
	const char *s;
	size_t pos;
	int64_t max;
	tm_hostlist_t *h;
	char *err;
} hl_parser_t;

static int perr(hl_parser_t *p, size_t at, int status, const char *fmt, ...) TM_PRINTF(4, 5);

/* Every message starts with the 1-based column of the culprit. */
static int perr(hl_parser_t *p, size_t at, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(p->err, status, "column %zu: %s", at + 1, msg);
}

static int bad_char(hl_parser_t *p, size_t at)
{
	char c[8];
	char_repr(p->s[at], c, sizeof(c));
	return perr(p, at, TOPOMATCH_EPARSE, "bad character %s", c);
}

/* Every name must fit the callers' TM_HOSTLIST_MAX_NAME + 1 buffers: a longer
 * one was truncated there and then not found (fuzz_cluster found it). */
static int name_too_long(hl_parser_t *p, size_t item)
{
	return perr(p, item, TOPOMATCH_ELIMIT, "a name longer than %d characters",
		    TM_HOSTLIST_MAX_NAME);
}

/* Appends a segment and accounts its names against the limit. */
static int push_seg(hl_parser_t *p, const hl_seg_t *sg, size_t at)
{
	tm_hostlist_t *h = p->h;
	int64_t total;
	if (!tm_add_ok(h->count, sg->hi - sg->lo + 1, &total) || total > p->max)
		return perr(p, at, TOPOMATCH_ELIMIT, "more than %lld names", (long long)p->max);
	if (h->nseg == h->cap) {
		int64_t cap = h->cap ? h->cap * 2 : 8;
		int64_t bytes;
		if (!tm_mul_ok(cap, (int64_t)sizeof(*h->seg), &bytes) ||
		    (uint64_t)bytes > SIZE_MAX)
			return tm_err(p->err, TOPOMATCH_ENOMEM, "host list too large");
		hl_seg_t *n = realloc(h->seg, (size_t)bytes);
		if (!n)
			return tm_err(p->err, TOPOMATCH_ENOMEM, "out of memory");
		h->seg = n;
		h->cap = cap;
	}
	h->seg[h->nseg] = *sg;
	h->seg[h->nseg].start = h->count;
	h->nseg++;
	h->count = total;
	return TOPOMATCH_OK;
}

/* Digits at p->pos; *ndig is their count. `open` is the bracket's column. */
static int parse_number(hl_parser_t *p, size_t open, int64_t *v, size_t *ndig)
{
	size_t at = p->pos;
	char c = p->s[at];
	if (!is_digit(c)) {
		if (c == '\0')
			return perr(p, open, TOPOMATCH_EPARSE, "unbalanced bracket '['");
		if (c == '[')
			return perr(p, at, TOPOMATCH_EPARSE, "nested bracket");
		if (c == ',' || c == ']' || c == '-')
			return perr(p, at, TOPOMATCH_EPARSE, "expected a number before %s",
				    c == '-' ? "'-'" : c == ',' ? "','" : "']'");
		return bad_char(p, at);
	}
	while (is_digit(p->s[p->pos]))
		p->pos++;
	*ndig = p->pos - at;
	if (*ndig > HL_MAXDIGITS)
		return perr(p, at, TOPOMATCH_EPARSE, "number too large (more than %d digits)",
			    HL_MAXDIGITS);
	*v = digits_value(p->s + at, *ndig);
	return TOPOMATCH_OK;
}

/* One "N" or "N-M" inside brackets; the segment's suffix is set later. */
static int parse_range(hl_parser_t *p, size_t open, hl_seg_t *sg)
{
	size_t at = p->pos, nlo, nhi;
	int rc = parse_number(p, open, &sg->lo, &nlo);
	if (rc)
		return rc;
	/* Slurm: the lower bound's digits set the width ("001-128") */
	sg->width = (int)nlo;
	sg->hi = sg->lo;
	if (p->s[p->pos] == '-') {
		size_t hat = ++p->pos;
		if (p->s[hat] == ',' || p->s[hat] == ']')
			return perr(p, hat, TOPOMATCH_EPARSE, "expected a number after '-'");
		rc = parse_number(p, open, &sg->hi, &nhi);
		if (rc)
			return rc;
		if (sg->hi < sg->lo)
			return perr(p, at, TOPOMATCH_EPARSE, "range %.*s-%.*s goes backwards",
				    (int)nlo, p->s + at, (int)nhi, p->s + hat);
	}
	return push_seg(p, sg, at);
}

/* "[ranges]" at p->pos; pushes one segment per range. */
static int parse_bracket(hl_parser_t *p, size_t item)
{
	size_t open = p->pos++;
	hl_seg_t sg = { .pre = item, .npre = open - item };
	if (p->s[p->pos] == ']')
		return perr(p, open, TOPOMATCH_EPARSE, "empty range list");
	for (;;) {
		int rc = parse_range(p, open, &sg);
		if (rc)
			return rc;
		char c = p->s[p->pos];
		if (c == ']') {
			p->pos++;
			return TOPOMATCH_OK;
		}
		if (c == '\0')
			return perr(p, open, TOPOMATCH_EPARSE, "unbalanced bracket '['");
		if (c == '[')
			return perr(p, p->pos, TOPOMATCH_EPARSE, "nested bracket");
		if (c != ',')
			return bad_char(p, p->pos);
		p->pos++;
	}
}

/* One comma-separated item: a name or prefix[ranges]suffix. */
static int parse_item(hl_parser_t *p)
{
	size_t item = p->pos, close = 0;
	int64_t first = p->h->nseg;
	bool bracket = false;
	for (;;) {
		char c = p->s[p->pos];
		if (c == ',' || c == '\0')
			break;
		if (is_name_char(c)) {
			p->pos++;
		} else if (c == '[') {
			if (bracket)
				return perr(p, p->pos, TOPOMATCH_EPARSE,
					    "more than one bracket group in an item");
			int rc = parse_bracket(p, item);
			if (rc)
				return rc;
			bracket = true;
			close = p->pos;
		} else if (c == ']') {
			return perr(p, p->pos, TOPOMATCH_EPARSE, "unbalanced bracket ']'");
		} else {
			return bad_char(p, p->pos);
		}
	}
	if (p->pos == item)
		return perr(p, item, TOPOMATCH_EPARSE, "empty item");
	if (!bracket) {
		hl_seg_t sg = { .pre = item, .npre = p->pos - item };
		if (sg.npre > TM_HOSTLIST_MAX_NAME)
			return name_too_long(p, item);
		return push_seg(p, &sg, item);
	}
	for (int64_t k = first; k < p->h->nseg; k++) {
		hl_seg_t *sg = &p->h->seg[k];
		sg->suf = close;
		sg->nsuf = p->pos - close;
		if (seg_name_len(sg, sg->hi) > TM_HOSTLIST_MAX_NAME) /* hi is the longest */
			return name_too_long(p, item);
	}
	return TOPOMATCH_OK;
}

int tm_hostlist_parse(const char *text, int64_t max_names, tm_hostlist_t **out, char *err)
{
	if (!text || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "tm_hostlist_parse: NULL argument");
	*out = NULL;
	tm_hostlist_t *h = calloc(1, sizeof(*h));
	size_t n = strlen(text);
	if (!h || !(h->text = malloc(n + 1))) {
		free(h);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	memcpy(h->text, text, n + 1);
	hl_parser_t p = { .s = h->text, .max = max_names > 0 ? max_names : INT64_MAX, .h = h,
			  .err = err };
	for (;;) {
		int rc = parse_item(&p);
		if (rc) {
			tm_hostlist_destroy(h);
			return rc;
		}
		if (p.s[p.pos] == '\0')
			break;
		p.pos++; /* the comma */
	}
	*out = h;
	return TOPOMATCH_OK;
}

void tm_hostlist_destroy(tm_hostlist_t *h)
{
	if (!h)
		return;
	free(h->seg);
	free(h->text);
	free(h);
}

/* ------------------------------------------------------------------ */
/* Names and indexes                                                   */
/* ------------------------------------------------------------------ */

int64_t tm_hostlist_count(const tm_hostlist_t *h)
{
	return h ? h->count : 0;
}

/* Segment holding index i (binary search on the start indexes). */
static const hl_seg_t *seg_of(const tm_hostlist_t *h, int64_t i)
{
	int64_t a = 0, b = h->nseg - 1;
	while (a < b) {
		int64_t m = a + (b - a + 1) / 2;
		if (h->seg[m].start <= i)
			a = m;
		else
			b = m - 1;
	}
	return &h->seg[a];
}

/* Writes the name of value v of segment sg; buf must be large enough. */
static size_t seg_name(const tm_hostlist_t *h, const hl_seg_t *sg, int64_t v, char *buf)
{
	size_t n = sg->npre;
	memcpy(buf, h->text + sg->pre, sg->npre);
	if (sg->width) {
		n += (size_t)sprintf(buf + n, "%0*lld", sg->width, (long long)v);
		memcpy(buf + n, h->text + sg->suf, sg->nsuf);
		n += sg->nsuf;
	}
	buf[n] = '\0';
	return n;
}

int tm_hostlist_name(const tm_hostlist_t *h, int64_t i, char *buf, size_t len)
{
	if (!h || !buf || i < 0 || i >= h->count)
		return TOPOMATCH_EINVAL;
	const hl_seg_t *sg = seg_of(h, i);
	int64_t v = sg->lo + (i - sg->start);
	if (seg_name_len(sg, v) >= len) {
		if (len)
			buf[0] = '\0';
		return TOPOMATCH_ELIMIT;
	}
	seg_name(h, sg, v, buf);
	return TOPOMATCH_OK;
}

/* Value of `name` in the range sg, or -1 when it is not one of its names. */
static int64_t seg_match(const tm_hostlist_t *h, const hl_seg_t *sg, const char *name, size_t n)
{
	if (!sg->width)
		return n == sg->npre && !memcmp(name, h->text + sg->pre, n) ? 0 : -1;
	if (n < sg->npre + sg->nsuf + 1 || memcmp(name, h->text + sg->pre, sg->npre) ||
	    memcmp(name + n - sg->nsuf, h->text + sg->suf, sg->nsuf))
		return -1;
	const char *d = name + sg->npre;
	size_t nd = n - sg->npre - sg->nsuf;
	if (nd > HL_MAXDIGITS)
		return -1;
	for (size_t k = 0; k < nd; k++)
		if (!is_digit(d[k]))
			return -1;
	int64_t v = digits_value(d, nd);
	/* the padding must be exactly the range's: "n01" is not in n[001-009] */
	if (v < sg->lo || v > sg->hi || nd != (size_t)numlen(v, sg->width))
		return -1;
	return v;
}

int64_t tm_hostlist_find(const tm_hostlist_t *h, const char *name)
{
	if (!h || !name)
		return -1;
	size_t n = strlen(name);
	for (int64_t k = 0; k < h->nseg; k++) {
		const hl_seg_t *sg = &h->seg[k];
		int64_t v = seg_match(h, sg, name, n);
		if (v >= 0)
			return sg->start + (v - sg->lo);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Duplicates                                                          */
/* ------------------------------------------------------------------ */

/*
 * A piece is part of a segment whose names all have the same length, cut
 * at their last digit run: prefix + L digits (values lo..hi) + suffix.
 * Two names are equal exactly when their pieces have the same key
 * (prefix, suffix, L) and value, so sorting pieces by key finds overlaps.
 * L == 0 is a name without a usable number, compared whole.
 */
typedef struct hl_piece {
	const char *pre, *suf;
	size_t npre, nsuf;
	int len;
	int64_t lo, hi;
	int64_t start; /* index of value lo */
	int64_t order; /* position in written order */
} hl_piece_t;

static int piece_keycmp(const hl_piece_t *a, const hl_piece_t *b)
{
	if (a->npre != b->npre)
		return a->npre < b->npre ? -1 : 1;
	if (a->nsuf != b->nsuf)
		return a->nsuf < b->nsuf ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	int c = memcmp(a->pre, b->pre, a->npre);
	return c ? c : memcmp(a->suf, b->suf, a->nsuf);
}

static int piece_cmp(const void *x, const void *y)
{
	const hl_piece_t *a = x, *b = y;
	int c = piece_keycmp(a, b);
	if (c)
		return c;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Pieces of a plain name: cut at its last digit run when it has one. */
static void plain_piece(const tm_hostlist_t *h, const hl_seg_t *sg, hl_piece_t *pc)
{
	const char *s = h->text + sg->pre;
	size_t e = sg->npre, b;
	while (e > 0 && !is_digit(s[e - 1]))
		e--;
	b = e;
	while (b > 0 && is_digit(s[b - 1]))
		b--;
	*pc = (hl_piece_t){ .pre = s, .npre = sg->npre, .suf = s, .start = sg->start };
	if (e > b && e - b <= HL_MAXDIGITS) {
		pc->npre = b;
		pc->suf = s + e;
		pc->nsuf = sg->npre - e;
		pc->len = (int)(e - b);
		pc->lo = pc->hi = digits_value(s + b, e - b);
	}
}

/*
 * Cuts every segment into pieces.  Returns false when some range's number
 * is not the last digit run of its names ("n1[0-9]", "n[1-4]-ib2"): then
 * names could be cut differently and keys would miss equal names.
 */
static bool make_pieces(const tm_hostlist_t *h, hl_piece_t *pc, int64_t *np)
{
	int64_t n = 0;
	for (int64_t k = 0; k < h->nseg; k++) {
		const hl_seg_t *sg = &h->seg[k];
		if (!sg->width) {
			plain_piece(h, sg, &pc[n]);
			pc[n].order = n;
			n++;
			continue;
		}
		const char *pre = h->text + sg->pre, *suf = h->text + sg->suf;
		if (sg->npre && is_digit(pre[sg->npre - 1]))
			return false;
		for (size_t c = 0; c < sg->nsuf; c++)
			if (is_digit(suf[c]))
				return false;
		for (int len = sg->width; len <= HL_MAXDIGITS; len++) {
			int64_t lo = len == sg->width ? sg->lo : pow10_i64(len - 1);
			int64_t top = pow10_i64(len) - 1;
			int64_t hi = sg->hi < top ? sg->hi : top;
			if (lo < sg->lo)
				lo = sg->lo;
			if (lo > hi)
				continue;
			pc[n] = (hl_piece_t){ .pre = pre, .npre = sg->npre, .suf = suf,
					      .nsuf = sg->nsuf, .len = len, .lo = lo, .hi = hi,
					      .start = sg->start + (lo - sg->lo), .order = n };
			n++;
		}
	}
	*np = n;
	return true;
}

/* Do the pieces of order <= t (sorted in pc) share a name? */
static bool overlap_upto(const hl_piece_t *pc, int64_t n, int64_t t)
{
	const hl_piece_t *prev = NULL;
	int64_t maxhi = 0;
	for (int64_t k = 0; k < n; k++) {
		if (pc[k].order > t)
			continue;
		if (prev && !piece_keycmp(prev, &pc[k])) {
			if (pc[k].lo <= maxhi)
				return true;
			if (pc[k].hi > maxhi)
				maxhi = pc[k].hi;
		} else {
			maxhi = pc[k].hi;
		}
		prev = &pc[k];
	}
	return false;
}

/*
 * Piece order t is the first that repeats an earlier name: its smallest
 * such value gives j.  The pieces before t share no name (else t would be
 * earlier), so exactly one of them holds that value and gives i.
 */
static void first_pair(const hl_piece_t *pc, int64_t n, int64_t t, int64_t *i, int64_t *j)
{
	const hl_piece_t *b = NULL;
	for (int64_t k = 0; k < n && !b; k++)
		if (pc[k].order == t)
			b = &pc[k];
	int64_t v = INT64_MAX;
	for (int64_t k = 0; k < n; k++) {
		const hl_piece_t *a = &pc[k];
		if (a->order >= t || piece_keycmp(a, b))
			continue;
		int64_t lo = a->lo > b->lo ? a->lo : b->lo;
		int64_t hi = a->hi < b->hi ? a->hi : b->hi;
		if (lo <= hi && lo < v)
			v = lo;
	}
	for (int64_t k = 0; k < n; k++) {
		const hl_piece_t *a = &pc[k];
		if (a->order < t && !piece_keycmp(a, b) && a->lo <= v && v <= a->hi) {
			*i = a->start + (v - a->lo);
			break;
		}
	}
	*j = b->start + (v - b->lo);
}

/* Sorted pieces: binary search for the first piece that repeats a name. */
static int dup_sorted(hl_piece_t *pc, int64_t n, int64_t *i, int64_t *j)
{
	qsort(pc, (size_t)n, sizeof(*pc), piece_cmp);
	if (!overlap_upto(pc, n, n - 1))
		return 0;
	int64_t a = 0, b = n - 1;
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		if (overlap_upto(pc, n, m))
			b = m;
		else
			a = m + 1;
	}
	first_pair(pc, n, a, i, j);
	return 1;
}

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t x = 14695981039346656037ULL; /* FNV-1a */
	for (size_t k = 0; k < n; k++)
		x = (x ^ (unsigned char)s[k]) * 1099511628211ULL;
	return x;
}

static size_t max_name_len(const tm_hostlist_t *h)
{
	size_t m = 0;
	for (int64_t k = 0; k < h->nseg; k++) {
		size_t l = seg_name_len(&h->seg[k], h->seg[k].hi);
		if (l > m)
			m = l;
	}
	return m;
}

/*
 * Fallback for lists whose names can be cut in several ways: a hash set
 * of indexes over the expanded names (the names are regenerated, not
 * stored, so a name costs 16 bytes).  Beyond HL_MAXHASHED names this
 * would exhaust memory, which a host list without max_names could ask.
 */
static int dup_hashed(const tm_hostlist_t *h, int64_t *i, int64_t *j)
{
	if (h->count > HL_MAXHASHED)
		return -TOPOMATCH_ELIMIT;
	int64_t size = 16;
	while (size / 2 < h->count)
		size *= 2;
	int64_t *tab = tm_alloc(size, sizeof(*tab));
	size_t ml = max_name_len(h) + 1;
	char *a = malloc(ml), *b = malloc(ml);
	int rc = tab && a && b ? 0 : -TOPOMATCH_ENOMEM;
	if (tab)
		memset(tab, 0xff, (size_t)size * sizeof(*tab));
	for (int64_t k = 0; k < h->nseg && !rc; k++) {
		const hl_seg_t *sg = &h->seg[k];
		for (int64_t v = sg->lo; v <= sg->hi && !rc; v++) {
			size_t n = seg_name(h, sg, v, a);
			uint64_t s = hash_name(a, n) & (uint64_t)(size - 1);
			for (; tab[s] >= 0; s = (s + 1) & (uint64_t)(size - 1)) {
				const hl_seg_t *o = seg_of(h, tab[s]);
				seg_name(h, o, o->lo + (tab[s] - o->start), b);
				if (!strcmp(a, b)) {
					*i = tab[s];
					*j = sg->start + (v - sg->lo);
					rc = 1;
					break;
				}
			}
			tab[s] = sg->start + (v - sg->lo);
		}
	}
	free(tab);
	free(a);
	free(b);
	return rc;
}

int tm_hostlist_duplicate(const tm_hostlist_t *h, int64_t *i, int64_t *j)
{
	if (!h || !i || !j)
		return -TOPOMATCH_EINVAL;
	int64_t cap;
	if (!tm_mul_ok(h->nseg, HL_MAXDIGITS + 1, &cap))
		return -TOPOMATCH_ENOMEM;
	hl_piece_t *pc = tm_alloc(cap, sizeof(*pc));
	if (!pc)
		return -TOPOMATCH_ENOMEM;
	int64_t n;
	int rc = make_pieces(h, pc, &n) ? dup_sorted(pc, n, i, j) : dup_hashed(h, i, j);
	free(pc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Compression                                                         */
/* ------------------------------------------------------------------ */

/* Growing output string; `fail` sticks after the first failed growth. */
typedef struct hl_buf {
	char *p;
	size_t n, cap;
	bool fail;
} hl_buf_t;

static void buf_add(hl_buf_t *b, const char *s, size_t n)
{
	if (b->fail)
		return;
	if (n >= b->cap - b->n) {
		size_t cap = b->cap;
		while (n >= cap - b->n) {
			if (cap > SIZE_MAX / 2) {
				b->fail = true;
				return;
			}
			cap *= 2;
		}
		char *q = realloc(b->p, cap);
		if (!q) {
			b->fail = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_num(hl_buf_t *b, int64_t v, int w)
{
	char t[32];
	int n = snprintf(t, sizeof(t), "%0*lld", w, (long long)v);
	buf_add(b, t, (size_t)n);
}

/* A name cut at its last digit run (nd == 0: no usable number). */
typedef struct hl_cut {
	const char *s;
	size_t npre, nd, n;
	int64_t v;
} hl_cut_t;

static int cut_name(const char *s, int64_t k, hl_cut_t *c, char *err)
{
	if (!s || !*s)
		return tm_err(err, TOPOMATCH_EINVAL, "name %lld: empty", (long long)k);
	size_t n = strlen(s), e = n, b;
	for (size_t q = 0; q < n; q++)
		if (!is_name_char(s[q])) {
			char r[8];
			char_repr(s[q], r, sizeof(r));
			return tm_err(err, TOPOMATCH_EINVAL, "name %lld: bad character %s",
				      (long long)k, r);
		}
	while (e > 0 && !is_digit(s[e - 1]))
		e--;
	b = e;
	while (b > 0 && is_digit(s[b - 1]))
		b--;
	*c = (hl_cut_t){ .s = s, .n = n, .npre = b, .nd = e - b };
	if (c->nd > HL_MAXDIGITS)
		c->nd = 0; /* too long for a range: kept as a plain name */
	c->v = digits_value(s + b, c->nd);
	return TOPOMATCH_OK;
}

/* Same prefix and suffix, both with a number: may share a bracket. */
static bool same_group(const hl_cut_t *a, const hl_cut_t *b)
{
	size_t as = a->npre + a->nd, bs = b->npre + b->nd;
	return a->nd && b->nd && a->npre == b->npre && a->n - as == b->n - bs &&
	       !memcmp(a->s, b->s, a->npre) && !memcmp(a->s + as, b->s + bs, a->n - as);
}

/* Does b's number continue the range lo..a (width w) written the same way? */
static bool continues(const hl_cut_t *a, const hl_cut_t *b, int w)
{
	return a->v < INT64_MAX && b->v == a->v + 1 && b->nd == (size_t)numlen(b->v, w);
}

/* Writes names c[0..n) (one group) as a plain name or prefix[ranges]suffix. */
static void emit_group(hl_buf_t *out, const hl_cut_t *c, int64_t n)
{
	if (n == 1) {
		buf_add(out, c[0].s, c[0].n);
		return;
	}
	buf_add(out, c[0].s, c[0].npre);
	buf_add(out, "[", 1);
	for (int64_t k = 0; k < n;) {
		int w = (int)c[k].nd;
		int64_t e = k;
		while (e + 1 < n && continues(&c[e], &c[e + 1], w))
			e++;
		if (k)
			buf_add(out, ",", 1);
		buf_num(out, c[k].v, w);
		if (e > k) {
			buf_add(out, "-", 1);
			buf_num(out, c[e].v, w);
		}
		k = e + 1;
	}
	buf_add(out, "]", 1);
	size_t s = c[0].npre + c[0].nd;
	buf_add(out, c[0].s + s, c[0].n - s);
}

int tm_hostlist_compress(const char *const *names, int64_t n, char **out, char *err)
{
	if (!out || n < 0 || (n > 0 && !names))
		return tm_err(err, TOPOMATCH_EINVAL, "tm_hostlist_compress: bad argument");
	*out = NULL;
	hl_cut_t *c = tm_alloc(n, sizeof(*c));
	hl_buf_t b = { .p = malloc(64), .cap = 64 };
	if (!c || !b.p) {
		free(c);
		free(b.p);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	b.p[0] = '\0';
	for (int64_t k = 0; k < n; k++) {
		int rc = cut_name(names[k], k, &c[k], err);
		if (rc) {
			free(c);
			free(b.p);
			return rc;
		}
	}
	for (int64_t k = 0; k < n;) {
		int64_t e = k + 1;
		while (e < n && same_group(&c[k], &c[e]))
			e++;
		if (k)
			buf_add(&b, ",", 1);
		emit_group(&b, c + k, e - k);
		k = e;
	}
	free(c);
	if (b.fail) {
		free(b.p);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	*out = b.p;
	return TOPOMATCH_OK;
}

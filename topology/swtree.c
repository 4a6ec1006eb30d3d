/*
 * swtree.c - switch trees as admins write them (YAML `tree` networks,
 * Slurm's topology.conf): definitions are copied as they come, then
 * resolve() links children by name through a hash index, checks the
 * shape with loops only (a chain of a million switches needs no stack),
 * and finds a node attached twice by sorting host ranges rather than
 * expanding them.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "swtree.h"
#include "base/tm_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A million switches is the stated need; the cap only stops runaway input. */
#define SW_MAX_SWITCHES (INT64_C(1) << 24)
/* Slurm keeps switch names under HOST_NAME_MAX (64); leave room for YAML. */
#define SW_MAX_NAME 255
/* One list cannot hold more nodes than a topology has PUs. */
#define SW_MAX_LIST_NODES TOPOMATCH_MAX_PUS
/* Names longer than this are shortened in messages. */
#define SW_QUOTE 64

typedef char sw_quote_t[SW_QUOTE + 4];

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static int sw_err(const tm_swtree_t *t, int64_t line, int64_t col, char *err, int status,
		  const char *fmt, ...) TM_PRINTF(6, 7);

/* "FILE:LINE:COL: msg", or "FILE:LINE: msg" when the column is unknown. */
static int sw_err(const tm_swtree_t *t, int64_t line, int64_t col, char *err, int status,
		  const char *fmt, ...)
{
	const char *file = t->file ? t->file : "topology";
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line <= 0)
		return tm_err(err, status, "%s: %s", file, msg);
	if (col <= 0)
		return tm_err(err, status, "%s:%lld: %s", file, (long long)line, msg);
	return tm_err(err, status, "%s:%lld:%lld: %s", file, (long long)line, (long long)col,
		      msg);
}

/* "LINE:COL", or "line LINE" without a column, for "first at ..." parts. */
static const char *sw_where(int64_t line, int64_t col, char *buf, size_t len)
{
	if (line <= 0)
		snprintf(buf, len, "an unknown line");
	else if (col <= 0)
		snprintf(buf, len, "line %lld", (long long)line);
	else
		snprintf(buf, len, "%lld:%lld", (long long)line, (long long)col);
	return buf;
}

/* A name for a message: generated names may be long. */
static const char *sw_quote(const char *s, sw_quote_t buf)
{
	if (strlen(s) <= SW_QUOTE)
		return s;
	snprintf(buf, sizeof(sw_quote_t), "%.*s...", SW_QUOTE, s);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Life cycle and definitions                                          */
/* ------------------------------------------------------------------ */

void tm_swtree_init(tm_swtree_t *t, const char *file)
{
	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->file = file;
	t->root = -1;
	t->height = -1;
}

/* Forget what resolve() computed, so that it can run again. */
static void sw_unlink(tm_swtree_t *t)
{
	for (int64_t i = 0; i < t->n; i++) {
		tm_switch_t *s = &t->sw[i];
		free(s->child);
		s->child = NULL;
		s->nchild = 0;
		s->parent = -1;
		s->depth = -1;
	}
	t->root = -1;
	t->height = -1;
}

void tm_swtree_free(tm_swtree_t *t)
{
	if (!t)
		return;
	sw_unlink(t);
	for (int64_t i = 0; i < t->n; i++) {
		tm_switch_t *s = &t->sw[i];
		free(s->name);
		free(s->switches_text);
		free(s->nodes_text);
		tm_hostlist_destroy(s->nodes);
	}
	free(t->sw);
	tm_swtree_init(t, t->file);
}

static bool sw_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/*
 * Child lists are host lists, so a switch whose name a host list cannot
 * spell could never be anyone's child: refuse it where it is defined.
 */
static int sw_check_name(const tm_swtree_t *t, const char *name, int64_t line, int64_t col,
			 char *err)
{
	size_t n = strlen(name);
	sw_quote_t q;

	if (n == 0)
		return sw_err(t, line, col, err, TOPOMATCH_EPARSE, "empty switch name");
	if (n > SW_MAX_NAME)
		return sw_err(t, line, col, err, TOPOMATCH_EPARSE,
			      "switch name '%s' longer than %d characters", sw_quote(name, q),
			      SW_MAX_NAME);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		char shown[8];
		if (sw_name_char((char)c))
			continue;
		if (c > ' ' && c < 127 && c != '\'')
			snprintf(shown, sizeof(shown), "'%c'", c);
		else
			snprintf(shown, sizeof(shown), "0x%02x", c);
		return sw_err(t, line, col, err, TOPOMATCH_EPARSE,
			      "switch name '%s': bad character %s (names use A-Z a-z 0-9 . _ -)",
			      sw_quote(name, q), shown);
	}
	return TOPOMATCH_OK;
}

/* Parse a list, or give "FILE:LINE:COL: what: column C: ..." at the list. */
static int sw_parse_list(const tm_swtree_t *t, const char *what, const char *text,
			 int64_t line, int64_t col, int64_t max, tm_hostlist_t **out, char *err)
{
	char sub[TOPOMATCH_ERRLEN];
	int rc = tm_hostlist_parse(text, max, out, sub);

	if (rc)
		return sw_err(t, line, col, err, rc, "%s: %s", what, sub);
	return TOPOMATCH_OK;
}

static int sw_grow(tm_swtree_t *t, char *err)
{
	int64_t cap, bytes;
	tm_switch_t *sw;

	if (t->n < t->cap)
		return TOPOMATCH_OK;
	cap = t->cap ? t->cap * 2 : 16;
	if (!tm_mul_ok(cap, (int64_t)sizeof(*sw), &bytes) || (uint64_t)bytes > SIZE_MAX)
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	sw = realloc(t->sw, (size_t)bytes);
	if (!sw)
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	t->sw = sw;
	t->cap = cap;
	return TOPOMATCH_OK;
}

/* strdup of an optional string; false when memory runs out. */
static bool sw_dup(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return true;
	size_t n = strlen(s) + 1;
	*out = malloc(n);
	if (*out)
		memcpy(*out, s, n);
	return *out != NULL;
}

/* Arguments a caller can get wrong, before anything is parsed. */
static int sw_check_args(const tm_swtree_t *t, const char *name, int64_t line, int64_t col,
			 double link_speed, char *err)
{
	int rc = sw_check_name(t, name, line, col, err);
	sw_quote_t q;

	if (rc)
		return rc;
	if (!isfinite(link_speed) || link_speed < 0)
		return sw_err(t, line, col, err, TOPOMATCH_EINVAL,
			      "switch '%s': link speed must be a finite number >= 0",
			      sw_quote(name, q));
	if (t->n >= SW_MAX_SWITCHES)
		return sw_err(t, line, col, err, TOPOMATCH_ELIMIT, "more than %lld switches",
			      (long long)SW_MAX_SWITCHES);
	return TOPOMATCH_OK;
}

int tm_swtree_add(tm_swtree_t *t, const char *name, int64_t line, int64_t col,
		  const char *switches, int64_t sline, int64_t scol, const char *nodes,
		  int64_t nline, int64_t ncol, double link_speed, char *err)
{
	tm_hostlist_t *hl = NULL;
	tm_switch_t s = { 0 };
	int rc;

	if (!t || !name)
		return tm_err(err, TOPOMATCH_EINVAL, "tm_swtree_add: NULL argument");
	rc = sw_check_args(t, name, line, col, link_speed, err);
	/* child names are checked now for syntax, and looked up by resolve() */
	if (!rc && switches)
		rc = sw_parse_list(t, "switches", switches, sline, scol, SW_MAX_SWITCHES, &hl,
				   err);
	tm_hostlist_destroy(hl);
	if (!rc && nodes)
		rc = sw_parse_list(t, "nodes", nodes, nline, ncol, SW_MAX_LIST_NODES, &s.nodes,
				   err);
	if (!rc)
		rc = sw_grow(t, err);
	if (!rc && (!sw_dup(name, &s.name) || !sw_dup(switches, &s.switches_text) ||
		    !sw_dup(nodes, &s.nodes_text)))
		rc = sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	if (rc) {
		tm_hostlist_destroy(s.nodes);
		free(s.name);
		free(s.switches_text);
		free(s.nodes_text);
		return rc;
	}
	s.line = line;
	s.col = col;
	s.switches_line = sline;
	s.switches_col = scol;
	s.nodes_line = nline;
	s.nodes_col = ncol;
	s.link_speed = link_speed;
	s.parent = -1;
	s.depth = -1;
	t->sw[t->n++] = s;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Name index: open addressing over switch indexes                     */
/* ------------------------------------------------------------------ */

typedef struct sw_index {
	int64_t *slot; /* switch index, or -1 */
	uint64_t mask;
} sw_index_t;

static uint64_t sw_hash(const char *s)
{
	uint64_t x = 14695981039346656037ULL; /* FNV-1a */
	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211ULL;
	return x;
}

/* Slot holding `name`, or the empty slot where it would go. */
static uint64_t sw_slot(const tm_swtree_t *t, const sw_index_t *ix, const char *name)
{
	uint64_t h = sw_hash(name) & ix->mask;
	while (ix->slot[h] >= 0 && strcmp(t->sw[ix->slot[h]].name, name) != 0)
		h = (h + 1) & ix->mask;
	return h;
}

static int64_t sw_find(const tm_swtree_t *t, const sw_index_t *ix, const char *name)
{
	return ix->slot[sw_slot(t, ix, name)];
}

/* Index every switch; a name defined twice is reported at its second definition. */
static int sw_index_build(const tm_swtree_t *t, sw_index_t *ix, char *err)
{
	int64_t size = 16;
	char where[64];
	sw_quote_t q;

	while (size / 2 < t->n)
		size *= 2;
	ix->mask = (uint64_t)size - 1;
	ix->slot = tm_alloc(size, sizeof(*ix->slot));
	if (!ix->slot)
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	memset(ix->slot, 0xff, (size_t)size * sizeof(*ix->slot));
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		uint64_t h = sw_slot(t, ix, s->name);
		if (ix->slot[h] >= 0) {
			const tm_switch_t *f = &t->sw[ix->slot[h]];
			return sw_err(t, s->line, s->col, err, TOPOMATCH_EPARSE,
				      "switch '%s' is defined twice (first at %s)",
				      sw_quote(s->name, q),
				      sw_where(f->line, f->col, where, sizeof(where)));
		}
		ix->slot[h] = i;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Linking                                                             */
/* ------------------------------------------------------------------ */

static int sw_check_nonempty(const tm_swtree_t *t, char *err)
{
	sw_quote_t q;

	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		if (!s->switches_text && !s->nodes_text)
			return sw_err(t, s->line, s->col, err, TOPOMATCH_EPARSE,
				      "switch '%s' has neither switches nor nodes",
				      sw_quote(s->name, q));
	}
	return TOPOMATCH_OK;
}

/* Make child j of switch i, or say why it cannot be. */
static int sw_adopt(tm_swtree_t *t, int64_t i, int64_t j, const char *cname, char *err)
{
	tm_switch_t *s = &t->sw[i];
	sw_quote_t q1, q2, q3;

	if (j < 0)
		return sw_err(t, s->switches_line, s->switches_col, err, TOPOMATCH_EPARSE,
			      "switch '%s' lists unknown switch '%s'", sw_quote(s->name, q1),
			      sw_quote(cname, q2));
	if (t->sw[j].parent == i)
		return sw_err(t, s->switches_line, s->switches_col, err, TOPOMATCH_EPARSE,
			      "switch '%s' lists switch '%s' twice", sw_quote(s->name, q1),
			      sw_quote(cname, q2));
	if (t->sw[j].parent >= 0)
		return sw_err(t, s->switches_line, s->switches_col, err, TOPOMATCH_EPARSE,
			      "switch '%s' has two parents ('%s' and '%s')", sw_quote(cname, q1),
			      sw_quote(t->sw[t->sw[j].parent].name, q2), sw_quote(s->name, q3));
	t->sw[j].parent = i;
	s->child[s->nchild++] = j;
	return TOPOMATCH_OK;
}

/*
 * Children of switch i in written order.  Lists stay unexpanded until
 * here, and the walk stops at the first bad name, so "s[0-999999999]"
 * costs as many lookups as there are switches, not a billion.
 */
static int sw_link_one(tm_swtree_t *t, const sw_index_t *ix, int64_t i, char *err)
{
	tm_switch_t *s = &t->sw[i];
	tm_hostlist_t *hl;
	int64_t cnt, cap;
	size_t blen;
	char *name;
	int rc;

	rc = sw_parse_list(t, "switches", s->switches_text, s->switches_line, s->switches_col,
			   0, &hl, err);
	if (rc)
		return rc;
	cnt = tm_hostlist_count(hl);
	/* each adopted child is a distinct switch: never more than n */
	cap = cnt < t->n ? cnt : t->n;
	/* a generated name is at most its text plus an 18-digit number */
	blen = strlen(s->switches_text) + 32;
	s->child = tm_alloc(cap, sizeof(*s->child));
	name = malloc(blen);
	if (!s->child || !name)
		rc = sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	for (int64_t k = 0; k < cnt && !rc; k++) {
		rc = tm_hostlist_name(hl, k, name, blen);
		if (rc)
			rc = sw_err(t, s->switches_line, s->switches_col, err, rc,
				    "switch '%s': cannot spell child %lld", s->name, (long long)k);
		else
			rc = sw_adopt(t, i, sw_find(t, ix, name), name, err);
	}
	free(name);
	tm_hostlist_destroy(hl);
	return rc;
}

/* Names first (a switch defined twice), then lists, each in file order. */
static int sw_link(tm_swtree_t *t, char *err)
{
	sw_index_t ix = { 0 };
	int rc = sw_index_build(t, &ix, err);

	if (!rc)
		rc = sw_check_nonempty(t, err);
	for (int64_t i = 0; i < t->n && !rc; i++)
		if (t->sw[i].switches_text)
			rc = sw_link_one(t, &ix, i, err);
	free(ix.slot);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Shape: root, depths, cycles                                         */
/* ------------------------------------------------------------------ */

/*
 * Start from a switch that the walk from the root did not reach (depth
 * -1) and follow parents.  Such a walk never meets a reached switch
 * (their children are all reached), and every switch on it has a parent,
 * so it comes back to a switch it marked: that one is on a cycle.
 */
static int sw_cycle(tm_swtree_t *t, int64_t start, const char *what, char *err)
{
	int64_t u = start;
	sw_quote_t q;

	while (t->sw[u].depth == -1) {
		t->sw[u].depth = -2;
		u = t->sw[u].parent;
	}
	const tm_switch_t *p = &t->sw[t->sw[u].parent];
	return sw_err(t, p->switches_line, p->switches_col, err, TOPOMATCH_EPARSE,
		      "%sthe switches form a cycle through '%s'", what,
		      sw_quote(t->sw[u].name, q));
}

static int sw_find_root(tm_swtree_t *t, char *err)
{
	sw_quote_t q1, q2;

	t->root = -1;
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		if (s->parent >= 0)
			continue;
		if (t->root >= 0)
			return sw_err(t, s->line, s->col, err, TOPOMATCH_EPARSE,
				      "two root switches '%s' and '%s' (the tree must be "
				      "connected: one switch without a parent)",
				      sw_quote(t->sw[t->root].name, q1), sw_quote(s->name, q2));
		t->root = i;
	}
	/* n >= 1 switches that all have a parent always close a cycle */
	if (t->root < 0)
		return sw_cycle(t, 0, "no root switch: ", err);
	return TOPOMATCH_OK;
}

/* Breadth-first from the root with an explicit queue: no recursion. */
static int sw_depths(tm_swtree_t *t, char *err)
{
	int64_t *queue = tm_alloc(t->n, sizeof(*queue));
	int64_t head = 0, tail = 0;

	if (!queue)
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	t->sw[t->root].depth = 0;
	queue[tail++] = t->root;
	while (head < tail) {
		const tm_switch_t *s = &t->sw[queue[head++]];
		for (int64_t k = 0; k < s->nchild; k++) {
			t->sw[s->child[k]].depth = s->depth + 1;
			queue[tail++] = s->child[k];
		}
	}
	free(queue);
	if (tail == t->n)
		return TOPOMATCH_OK;
	for (int64_t i = 0; i < t->n; i++)
		if (t->sw[i].depth == -1)
			return sw_cycle(t, i, "", err);
	return TOPOMATCH_OK; /* not reached: tail < n leaves a switch unvisited */
}

/* ------------------------------------------------------------------ */
/* Nodes                                                               */
/* ------------------------------------------------------------------ */

/* All node lists joined into one, with where each switch's names start. */
typedef struct sw_nodes {
	int64_t nlists;
	int64_t *owner; /* switch of each list */
	int64_t *start; /* index of its first name in the joined list */
	tm_hostlist_t *all;
	size_t maxlen;  /* longest list text */
} sw_nodes_t;

static void sw_nodes_free(sw_nodes_t *a)
{
	free(a->owner);
	free(a->start);
	tm_hostlist_destroy(a->all);
}

/* Counts nodes against max_nodes and sizes the joined text. */
static int sw_count_nodes(const tm_swtree_t *t, int64_t max_nodes, sw_nodes_t *a,
			  size_t *textlen, char *err)
{
	int64_t total = 0;

	*textlen = 1;
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		if (!s->nodes)
			continue;
		if (!tm_add_ok(total, tm_hostlist_count(s->nodes), &total) || total > max_nodes)
			return sw_err(t, s->nodes_line, s->nodes_col, err, TOPOMATCH_ELIMIT,
				      "more than %lld nodes", (long long)max_nodes);
		size_t len = strlen(s->nodes_text);
		if (len > a->maxlen)
			a->maxlen = len;
		*textlen += len + 1;
		a->nlists++;
	}
	return TOPOMATCH_OK;
}

/* Join the lists ("a[1-4],b2" + "c[0-9]" -> "a[1-4],b2,c[0-9]") and parse once. */
static int sw_join_nodes(const tm_swtree_t *t, sw_nodes_t *a, size_t textlen, char *err)
{
	char *text = malloc(textlen), *p = text;
	int64_t k = 0, first = 0;
	int rc;

	a->owner = tm_alloc(a->nlists, sizeof(*a->owner));
	a->start = tm_alloc(a->nlists, sizeof(*a->start));
	if (!text || !a->owner || !a->start) {
		free(text);
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		if (!s->nodes)
			continue;
		size_t len = strlen(s->nodes_text);
		if (p != text)
			*p++ = ',';
		memcpy(p, s->nodes_text, len);
		p += len;
		a->owner[k] = i;
		a->start[k++] = first;
		first += tm_hostlist_count(s->nodes);
	}
	*p = '\0';
	rc = sw_parse_list(t, "nodes", text, 0, 0, 0, &a->all, err);
	free(text);
	return rc;
}

/* Which list holds joined index x (binary search on the starts). */
static int64_t sw_list_of(const sw_nodes_t *a, int64_t x)
{
	int64_t lo = 0, hi = a->nlists - 1;
	while (lo < hi) {
		int64_t m = lo + (hi - lo + 1) / 2;
		if (a->start[m] <= x)
			lo = m;
		else
			hi = m - 1;
	}
	return lo;
}

/* The message for joined names x < y that are the same node. */
static int sw_dup_node(const tm_swtree_t *t, const sw_nodes_t *a, int64_t x, int64_t y,
		       char *err)
{
	const tm_switch_t *f = &t->sw[a->owner[sw_list_of(a, x)]];
	const tm_switch_t *s = &t->sw[a->owner[sw_list_of(a, y)]];
	size_t blen = a->maxlen + 32;
	char *name = malloc(blen), where[64];
	sw_quote_t q1, q2, q3;
	int rc;

	if (!name)
		return sw_err(t, 0, 0, err, TOPOMATCH_ENOMEM, "out of memory");
	tm_hostlist_name(a->all, y, name, blen);
	if (f == s)
		rc = sw_err(t, s->nodes_line, s->nodes_col, err, TOPOMATCH_EPARSE,
			    "node %s is listed twice by switch '%s'", sw_quote(name, q1),
			    sw_quote(s->name, q2));
	else
		rc = sw_err(t, s->nodes_line, s->nodes_col, err, TOPOMATCH_EPARSE,
			    "node %s is attached to two switches ('%s' at %s and '%s')",
			    sw_quote(name, q1), sw_quote(f->name, q2),
			    sw_where(f->nodes_line, f->nodes_col, where, sizeof(where)),
			    sw_quote(s->name, q3));
	free(name);
	return rc;
}

/*
 * One node on two switches would make the tree a graph.  The lists are
 * joined and checked by tm_hostlist_duplicate, which sorts ranges: 100,000
 * nodes written as a few ranges cost a few comparisons, and written one
 * by one cost a sort.
 */
static int sw_check_nodes(const tm_swtree_t *t, int64_t max_nodes, char *err)
{
	sw_nodes_t a = { 0 };
	size_t textlen;
	int64_t x, y;
	int rc;

	if (max_nodes <= 0)
		max_nodes = INT64_MAX;
	rc = sw_count_nodes(t, max_nodes, &a, &textlen, err);
	if (!rc && a.nlists > 0)
		rc = sw_join_nodes(t, &a, textlen, err);
	if (!rc && a.nlists > 0) {
		int d = tm_hostlist_duplicate(a.all, &x, &y);
		if (d < 0)
			rc = sw_err(t, 0, 0, err, -d, "cannot check the nodes for duplicates: %s",
				    topomatch_strstatus(-d));
		else if (d > 0)
			rc = sw_dup_node(t, &a, x, y, err);
	}
	sw_nodes_free(&a);
	return rc;
}

/* ------------------------------------------------------------------ */
/* resolve                                                             */
/* ------------------------------------------------------------------ */

static void sw_height(tm_swtree_t *t)
{
	t->height = -1;
	for (int64_t i = 0; i < t->n; i++)
		if (t->sw[i].nodes && t->sw[i].depth > t->height)
			t->height = t->sw[i].depth;
}

int tm_swtree_resolve(tm_swtree_t *t, int64_t max_nodes, char *err)
{
	int rc;

	if (!t)
		return tm_err(err, TOPOMATCH_EINVAL, "tm_swtree_resolve: NULL argument");
	sw_unlink(t);
	if (t->n == 0)
		return sw_err(t, 0, 0, err, TOPOMATCH_EPARSE, "no switch defined");
	rc = sw_link(t, err);
	if (!rc)
		rc = sw_find_root(t, err);
	if (!rc)
		rc = sw_depths(t, err);
	if (!rc)
		rc = sw_check_nodes(t, max_nodes, err);
	if (rc) {
		sw_unlink(t);
		return rc;
	}
	sw_height(t);
	return TOPOMATCH_OK;
}

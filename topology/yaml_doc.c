/*
 * yaml_doc.c - a YAML file as a small node tree built from libyaml's event
 * stream, with positions on every node, limits on bytes, depth and nodes,
 * and typed getters whose messages read "FILE:LINE:COL: what is wrong".
 *
 * The tree is built without recursion (an explicit stack of open
 * containers) because its input comes from admins and, later, a fuzzer.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "yaml_doc.h"
#include "base/textscan.h"
#include "base/tm_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define YD_DEF_MAX_BYTES (INT64_C(16) << 20)
#define YD_DEF_MAX_DEPTH 64
#define YD_DEF_MAX_NODES INT64_C(1000000)
/* Freeing recurses once per level, so no limit may allow more than this. */
#define YD_HARD_MAX_DEPTH 10000
/* Longest piece of a value quoted in a message; keeps messages one line. */
#define YD_QUOTE_MAX 64

/* One open sequence or mapping, with the capacity of its arrays. */
typedef struct yd_frame {
	tm_ynode_t *node;
	int64_t cap;
} yd_frame_t;

typedef struct yd_build {
	yaml_parser_t parser;
	const char *buf; /* the input, to place reader errors (byte offsets) */
	size_t len;
	tm_ydoc_t *doc;
	tm_ylimits_t lim;
	int64_t nodes;
	int docs;
	bool root_plain_empty; /* root is "" written plainly: "---" alone */
	yd_frame_t *stack;
	int depth;
	int stack_cap;
	char *err;
} yd_build_t;

/* ------------------------------------------------------------------ */
/* Nodes                                                               */
/* ------------------------------------------------------------------ */

static void yd_node_free(tm_ynode_t *nd)
{
	if (!nd)
		return;
	for (int64_t i = 0; i < nd->n; i++) {
		yd_node_free(nd->items[i]);
		if (nd->keys)
			yd_node_free(nd->keys[i]);
	}
	free(nd->items);
	free(nd->keys);
	free(nd->str);
	free(nd);
}

void tm_ydoc_free(tm_ydoc_t *d)
{
	if (!d)
		return;
	yd_node_free(d->root);
	free((char *)d->name);
	free(d);
}

static const char *yd_name(const tm_ydoc_t *d)
{
	return d && d->name ? d->name : "input";
}

int tm_vyerr_at(const tm_ydoc_t *d, int64_t line, int64_t col, char *err, int status,
		const char *fmt, va_list ap)
{
	char msg[TOPOMATCH_ERRLEN];

	if (!err)
		return status;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line <= 0)
		return tm_err(err, status, "%s: %s", yd_name(d), msg);
	return tm_err(err, status, "%s:%lld:%lld: %s", yd_name(d), (long long)line,
		      (long long)col, msg);
}

int tm_yerr(const tm_ydoc_t *d, const tm_ynode_t *s, char *err, int status, const char *fmt,
	    ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = tm_vyerr_at(d, s ? s->line : 0, s ? s->col : 0, err, status, fmt, ap);
	va_end(ap);
	return rc;
}

/* Error at a libyaml mark (0-based) rather than at a node. */
static int yd_err_at(yd_build_t *b, yaml_mark_t m, int status, const char *fmt, ...)
	TM_PRINTF(4, 5);

static int yd_err_at(yd_build_t *b, yaml_mark_t m, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(b->err, status, "%s:%llu:%llu: %s", yd_name(b->doc),
		      (unsigned long long)m.line + 1, (unsigned long long)m.column + 1, msg);
}

/* A value for a message: truncated, so one odd scalar cannot fill it. */
static const char *yd_quote(const char *s, char *buf, size_t len)
{
	if (strlen(s) <= YD_QUOTE_MAX)
		return s;
	snprintf(buf, len, "%.*s...", YD_QUOTE_MAX, s);
	return buf;
}

static const char *yd_kind_name(int kind)
{
	return kind == TM_Y_MAP ? "a mapping" : kind == TM_Y_SEQ ? "a sequence" : "a scalar";
}

/* ------------------------------------------------------------------ */
/* Building the tree from events                                       */
/* ------------------------------------------------------------------ */

static tm_ynode_t *yd_node_new(int kind, yaml_mark_t m)
{
	tm_ynode_t *nd = calloc(1, sizeof(*nd));
	if (!nd)
		return NULL;
	nd->kind = kind;
	nd->line = (int64_t)m.line + 1;
	nd->col = (int64_t)m.column + 1;
	return nd;
}

/* Grow a container's arrays so that one more child fits. */
static int yd_reserve(yd_frame_t *f)
{
	tm_ynode_t *nd = f->node;
	int64_t cap;
	tm_ynode_t **items, **keys;

	if (nd->n < f->cap)
		return TOPOMATCH_OK;
	if (!tm_mul_ok(f->cap ? f->cap : 4, 2, &cap))
		return TOPOMATCH_ENOMEM;
	items = tm_alloc(cap, sizeof(*items));
	keys = nd->kind == TM_Y_MAP ? tm_alloc(cap, sizeof(*keys)) : NULL;
	if (!items || (nd->kind == TM_Y_MAP && !keys)) {
		free(items);
		free(keys);
		return TOPOMATCH_ENOMEM;
	}
	/* copy rather than realloc: both arrays change together or not at all */
	if (nd->n) {
		memcpy(items, nd->items, (size_t)nd->n * sizeof(*items));
		if (keys)
			memcpy(keys, nd->keys, (size_t)nd->n * sizeof(*keys));
	}
	free(nd->items);
	free(nd->keys);
	nd->items = items;
	nd->keys = keys;
	f->cap = cap;
	return TOPOMATCH_OK;
}

/*
 * Hang a new node under the innermost open container (or make it the
 * root).  A mapping takes a key and then its value; a key is stored with
 * a NULL value so that the tree owns it at once and frees it on error.
 * On failure nd is freed here.
 */
static int yd_attach(yd_build_t *b, tm_ynode_t *nd)
{
	yd_frame_t *f;
	tm_ynode_t *p;

	if (b->depth == 0) {
		b->doc->root = nd;
		return TOPOMATCH_OK;
	}
	f = &b->stack[b->depth - 1];
	p = f->node;
	if (p->kind == TM_Y_MAP && p->n > 0 && !p->items[p->n - 1]) {
		p->items[p->n - 1] = nd; /* the value of the pending key */
		return TOPOMATCH_OK;
	}
	if (p->kind == TM_Y_MAP && nd->kind != TM_Y_SCALAR) {
		int rc = tm_yerr(b->doc, nd, b->err, TOPOMATCH_EPARSE,
				 "mapping keys must be scalars, not %s", yd_kind_name(nd->kind));
		yd_node_free(nd);
		return rc;
	}
	if (yd_reserve(f)) {
		yd_node_free(nd);
		return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory", yd_name(b->doc));
	}
	if (p->kind == TM_Y_MAP) {
		p->keys[p->n] = nd;
		p->items[p->n] = NULL;
	} else {
		p->items[p->n] = nd;
	}
	p->n++;
	return TOPOMATCH_OK;
}

/* Anchors, aliases and tags have no use in an admin's file: say so. */
static int yd_check_props(yd_build_t *b, const yaml_event_t *ev, const yaml_char_t *anchor,
			  const yaml_char_t *tag)
{
	if (anchor)
		return yd_err_at(b, ev->start_mark, TOPOMATCH_EPARSE,
				 "anchors and aliases are not supported");
	if (tag)
		return yd_err_at(b, ev->start_mark, TOPOMATCH_EPARSE,
				 "tags are not supported ('%s')", (const char *)tag);
	return TOPOMATCH_OK;
}

static int yd_count_node(yd_build_t *b, const yaml_event_t *ev)
{
	if (++b->nodes > b->lim.max_nodes)
		return yd_err_at(b, ev->start_mark, TOPOMATCH_ELIMIT,
				 "more than the limit of %lld nodes",
				 (long long)b->lim.max_nodes);
	return TOPOMATCH_OK;
}

static int yd_on_scalar(yd_build_t *b, const yaml_event_t *ev)
{
	int rc = yd_check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	size_t len = ev->data.scalar.length;
	tm_ynode_t *nd;

	if (rc || (rc = yd_count_node(b, ev)))
		return rc;
	nd = yd_node_new(TM_Y_SCALAR, ev->start_mark);
	if (nd)
		nd->str = tm_alloc((int64_t)len + 1, 1);
	if (!nd || !nd->str) {
		yd_node_free(nd);
		return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory", yd_name(b->doc));
	}
	memcpy(nd->str, ev->data.scalar.value, len);
	nd->str[len] = '\0';
	if (b->depth == 0)
		b->root_plain_empty = len == 0 && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return yd_attach(b, nd);
}

static int yd_push(yd_build_t *b, tm_ynode_t *nd)
{
	if (b->depth == b->stack_cap) {
		int cap = b->stack_cap ? b->stack_cap * 2 : 16;
		yd_frame_t *st = realloc(b->stack, (size_t)cap * sizeof(*st));
		if (!st)
			return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory",
				      yd_name(b->doc));
		b->stack = st;
		b->stack_cap = cap;
	}
	b->stack[b->depth].node = nd;
	b->stack[b->depth].cap = 0;
	b->depth++;
	return TOPOMATCH_OK;
}

static int yd_on_open(yd_build_t *b, const yaml_event_t *ev, int kind)
{
	const yaml_char_t *anchor, *tag;
	tm_ynode_t *nd;
	int rc;

	if (kind == TM_Y_SEQ) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	rc = yd_check_props(b, ev, anchor, tag);
	if (rc || (rc = yd_count_node(b, ev)))
		return rc;
	if (b->depth >= b->lim.max_depth)
		return yd_err_at(b, ev->start_mark, TOPOMATCH_ELIMIT,
				 "nested deeper than the limit of %d levels", b->lim.max_depth);
	nd = yd_node_new(kind, ev->start_mark);
	if (!nd)
		return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory", yd_name(b->doc));
	rc = yd_attach(b, nd);
	return rc ? rc : yd_push(b, nd);
}

/* Order keys by text, then by position, so duplicates sit together. */
static int yd_key_cmp(const void *pa, const void *pb)
{
	const tm_ynode_t *a = *(const tm_ynode_t *const *)pa;
	const tm_ynode_t *b = *(const tm_ynode_t *const *)pb;
	int c = strcmp(a->str, b->str);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->col > b->col) - (a->col < b->col);
}

static bool yd_before(const tm_ynode_t *a, const tm_ynode_t *b)
{
	return a->line < b->line || (a->line == b->line && a->col < b->col);
}

/*
 * Duplicate keys, found by sorting once the mapping is complete (a scan
 * per key would be quadratic on a fuzzer's 500,000-key mapping).  The
 * message names the earliest repeat in the file, as a reader would.
 */
static int yd_check_dups(yd_build_t *b, const tm_ynode_t *m)
{
	const tm_ynode_t *dup = NULL, *first = NULL, *grp;
	tm_ynode_t **k;
	char q[YD_QUOTE_MAX + 4];

	if (m->n < 2)
		return TOPOMATCH_OK;
	k = tm_alloc(m->n, sizeof(*k));
	if (!k)
		return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory", yd_name(b->doc));
	memcpy(k, m->keys, (size_t)m->n * sizeof(*k));
	qsort(k, (size_t)m->n, sizeof(*k), yd_key_cmp);
	grp = k[0];
	for (int64_t i = 1; i < m->n; i++) {
		if (strcmp(k[i]->str, grp->str)) {
			grp = k[i];
			continue;
		}
		if (!dup || yd_before(k[i], dup)) {
			dup = k[i];
			first = grp;
		}
	}
	free(k);
	if (!dup)
		return TOPOMATCH_OK;
	return tm_yerr(b->doc, dup, b->err, TOPOMATCH_EPARSE,
		       "duplicate key '%s' (first on line %lld)", yd_quote(dup->str, q, sizeof(q)),
		       (long long)first->line);
}

static int yd_on_close(yd_build_t *b)
{
	tm_ynode_t *nd;

	if (b->depth == 0) /* libyaml balances events; never trust it blindly */
		return tm_err(b->err, TOPOMATCH_EPARSE, "%s: unbalanced YAML events",
			      yd_name(b->doc));
	nd = b->stack[--b->depth].node;
	return nd->kind == TM_Y_MAP ? yd_check_dups(b, nd) : TOPOMATCH_OK;
}

static int yd_on_event(yd_build_t *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++ > 0)
			return yd_err_at(b, ev->start_mark, TOPOMATCH_EPARSE,
					 "a second document is not supported (one per file)");
		return TOPOMATCH_OK;
	case YAML_DOCUMENT_END_EVENT:
		/* "---" alone (or with comments) is as empty as an empty file */
		if (b->root_plain_empty) {
			yd_node_free(b->doc->root);
			b->doc->root = NULL;
		}
		return TOPOMATCH_OK;
	case YAML_ALIAS_EVENT:
		return yd_err_at(b, ev->start_mark, TOPOMATCH_EPARSE,
				 "anchors and aliases are not supported");
	case YAML_SCALAR_EVENT:
		return yd_on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return yd_on_open(b, ev, TM_Y_SEQ);
	case YAML_MAPPING_START_EVENT:
		return yd_on_open(b, ev, TM_Y_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return yd_on_close(b);
	default:
		return TOPOMATCH_OK;
	}
}

/* Line and column of a byte offset, for libyaml's reader errors. */
static void yd_offset_pos(const yd_build_t *b, size_t off, yaml_mark_t *m)
{
	size_t bol = 0;

	m->line = 0;
	if (off > b->len)
		off = b->len;
	for (size_t i = 0; i < off; i++) {
		if (b->buf[i] == '\n') {
			m->line++;
			bol = i + 1;
		}
	}
	m->column = off - bol;
}

static int yd_syntax_err(yd_build_t *b)
{
	const yaml_parser_t *p = &b->parser;
	const char *prob = p->problem ? p->problem : "malformed YAML";
	yaml_mark_t m = p->problem_mark;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return tm_err(b->err, TOPOMATCH_ENOMEM, "%s: out of memory", yd_name(b->doc));
	case YAML_READER_ERROR:
		yd_offset_pos(b, p->problem_offset, &m);
		if (p->problem_value >= 0)
			return yd_err_at(b, m, TOPOMATCH_EPARSE, "%s (#x%X)", prob,
					 (unsigned)p->problem_value);
		return yd_err_at(b, m, TOPOMATCH_EPARSE, "%s", prob);
	default:
		break;
	}
	if (p->context)
		return yd_err_at(b, m, TOPOMATCH_EPARSE,
				 "%s (%s started at line %llu, column %llu)", prob, p->context,
				 (unsigned long long)p->context_mark.line + 1,
				 (unsigned long long)p->context_mark.column + 1);
	return yd_err_at(b, m, TOPOMATCH_EPARSE, "%s", prob);
}

static int yd_run(yd_build_t *b)
{
	for (;;) {
		yaml_event_t ev;
		bool end;
		int rc;

		if (!yaml_parser_parse(&b->parser, &ev))
			return yd_syntax_err(b);
		rc = yd_on_event(b, &ev);
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (rc || end)
			return rc;
	}
}

/* NULL or non-positive fields take the defaults; depth has a hard cap. */
static tm_ylimits_t yd_limits(const tm_ylimits_t *l)
{
	tm_ylimits_t r = { YD_DEF_MAX_BYTES, YD_DEF_MAX_DEPTH, YD_DEF_MAX_NODES };

	if (l) {
		if (l->max_bytes > 0)
			r.max_bytes = l->max_bytes;
		if (l->max_depth > 0)
			r.max_depth = l->max_depth;
		if (l->max_nodes > 0)
			r.max_nodes = l->max_nodes;
	}
	if (r.max_depth > YD_HARD_MAX_DEPTH)
		r.max_depth = YD_HARD_MAX_DEPTH;
	return r;
}

static int yd_new_doc(const char *name, tm_ydoc_t **out, char *err)
{
	tm_ydoc_t *d = calloc(1, sizeof(*d));
	char *nm = strdup(name ? name : "input");

	if (!d || !nm) {
		free(d);
		free(nm);
		return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", name ? name : "input");
	}
	d->name = nm;
	*out = d;
	return TOPOMATCH_OK;
}

/* Parse len bytes already checked against max_bytes. */
static int yd_parse(const char *buf, size_t len, const char *name, const tm_ylimits_t *lim,
		    tm_ydoc_t **out, char *err)
{
	yd_build_t b;
	int rc;

	memset(&b, 0, sizeof(b));
	b.buf = buf;
	b.len = len;
	b.lim = *lim;
	b.err = err;
	rc = yd_new_doc(name, &b.doc, err);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&b.parser)) {
		tm_ydoc_free(b.doc);
		return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", name);
	}
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)buf, len);
	rc = yd_run(&b);
	yaml_parser_delete(&b.parser);
	free(b.stack);
	if (rc) {
		tm_ydoc_free(b.doc);
		return rc;
	}
	*out = b.doc;
	return TOPOMATCH_OK;
}

int tm_ydoc_load_buffer(const char *buf, size_t len, const char *name,
			const tm_ylimits_t *limits, tm_ydoc_t **out, char *err)
{
	tm_ylimits_t lim = yd_limits(limits);

	if (!name)
		name = "input";
	if (!out || (!buf && len))
		return tm_err(err, TOPOMATCH_EINVAL, "%s: invalid arguments", name);
	*out = NULL;
	if ((uint64_t)len > (uint64_t)lim.max_bytes) {
		/* name the line where the limit falls, as tm_read_all does */
		int64_t line = 1;
		for (int64_t i = 0; i < lim.max_bytes; i++)
			line += buf[i] == '\n';
		return tm_err(err, TOPOMATCH_ELIMIT, "%s:%lld: larger than the limit of %lld bytes",
			      name, (long long)line, (long long)lim.max_bytes);
	}
	return yd_parse(buf ? buf : "", len, name, &lim, out, err);
}

int tm_ydoc_load_file(const char *path, const tm_ylimits_t *limits, tm_ydoc_t **out,
		      char *err)
{
	tm_ylimits_t lim = yd_limits(limits);
	bool is_stdin;
	const char *name;
	FILE *f;
	char *buf;
	size_t len;
	int rc;

	if (!path || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "yaml: invalid arguments");
	*out = NULL;
	is_stdin = strcmp(path, "-") == 0;
	name = is_stdin ? "<stdin>" : path;
	f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return tm_err(err, TOPOMATCH_EIO, "%s: cannot open: %s", path, strerror(errno));
	rc = tm_read_all(f, name, lim.max_bytes, &buf, &len, err);
	if (!is_stdin)
		fclose(f);
	if (rc)
		return rc;
	rc = yd_parse(buf, len, name, &lim, out, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Lookups and typed getters                                           */
/* ------------------------------------------------------------------ */

const tm_ynode_t *tm_ymap_get(const tm_ynode_t *m, const char *key)
{
	if (!m || m->kind != TM_Y_MAP || !key)
		return NULL;
	for (int64_t i = 0; i < m->n; i++)
		if (strcmp(m->keys[i]->str, key) == 0)
			return m->items[i];
	return NULL;
}

int tm_edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int small[64], *row = small, res;

	if (cap < 0)
		cap = 0;
	if (cap > INT_MAX - 1)
		cap = INT_MAX - 1;
	/* the lengths alone already put them too far apart */
	if ((la > lb ? la - lb : lb - la) > (size_t)cap)
		return cap + 1;
	if (lb >= INT_MAX)
		return cap + 1;
	if (lb + 1 > sizeof(small) / sizeof(small[0])) {
		row = tm_alloc((int64_t)lb + 1, sizeof(*row));
		if (!row)
			return cap + 1;
	}
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	res = -1;
	for (size_t i = 1; i <= la && res < 0; i++) {
		int diag = row[0], best;

		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		/* every later row is at least this row's minimum */
		if (best > cap)
			res = cap + 1;
	}
	if (res < 0)
		res = row[lb] > cap ? cap + 1 : row[lb];
	if (row != small)
		free(row);
	return res;
}

/* Closest allowed key close enough to be the one meant, or NULL. */
static const char *yd_suggest(const char *key, const char *const *allowed)
{
	int cap = strlen(key) <= 4 ? 1 : 2, best = cap + 1;
	const char *pick = NULL;

	for (size_t i = 0; allowed[i]; i++) {
		int dist = tm_edit_distance(key, allowed[i], cap);
		if (dist < best) {
			best = dist;
			pick = allowed[i];
		}
	}
	return pick;
}

int tm_ymap_check_keys(const tm_ydoc_t *d, const tm_ynode_t *m, const char *what,
		       const char *const *allowed, char *err)
{
	char q[YD_QUOTE_MAX + 4];

	if (!what)
		what = "value";
	if (!m)
		return tm_yerr(d, NULL, err, TOPOMATCH_EPARSE, "missing %s", what);
	if (m->kind != TM_Y_MAP)
		return tm_yerr(d, m, err, TOPOMATCH_EPARSE, "%s: expected a mapping, got %s", what,
			       yd_kind_name(m->kind));
	for (int64_t i = 0; i < m->n; i++) {
		const tm_ynode_t *k = m->keys[i];
		const char *hint;
		bool known = false;

		for (size_t j = 0; allowed && allowed[j] && !known; j++)
			known = strcmp(k->str, allowed[j]) == 0;
		if (known)
			continue;
		hint = allowed ? yd_suggest(k->str, allowed) : NULL;
		if (hint)
			return tm_yerr(d, k, err, TOPOMATCH_EPARSE,
				       "unknown key '%s' (did you mean '%s'?)",
				       yd_quote(k->str, q, sizeof(q)), hint);
		return tm_yerr(d, k, err, TOPOMATCH_EPARSE, "unknown key '%s'",
			       yd_quote(k->str, q, sizeof(q)));
	}
	return TOPOMATCH_OK;
}

/*
 * Common start of every getter: a present scalar, or the message.  `want`
 * is the expectation as it reads in the message ("an integer in [1, 8]").
 */
static int yd_scalar(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what,
		     const char *want, char *err)
{
	if (!s)
		return tm_yerr(d, NULL, err, TOPOMATCH_EPARSE, "missing %s", what);
	if (s->kind != TM_Y_SCALAR)
		return tm_yerr(d, s, err, TOPOMATCH_EPARSE, "%s: expected %s, got %s", what, want,
			       yd_kind_name(s->kind));
	return TOPOMATCH_OK;
}

/* Strict decimal: optional sign, digits only, no overflow. */
static bool yd_parse_int(const char *p, int64_t *v)
{
	bool neg = false;
	uint64_t acc = 0, lim;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		return false;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (acc > (lim - (uint64_t)(*p - '0')) / 10)
			return false;
		acc = acc * 10 + (uint64_t)(*p - '0');
	}
	*v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return true;
}

int tm_ynode_int(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, int64_t min,
		 int64_t max, int64_t *v, char *err)
{
	char want[96], q[YD_QUOTE_MAX + 4];
	int64_t x;
	int rc;

	if (!what)
		what = "value";
	snprintf(want, sizeof(want), "an integer in [%lld, %lld]", (long long)min,
		 (long long)max);
	rc = yd_scalar(d, s, what, want, err);
	if (rc)
		return rc;
	if (!yd_parse_int(s->str, &x) || x < min || x > max)
		return tm_yerr(d, s, err, TOPOMATCH_EPARSE, "%s: expected %s, got '%s'", what, want,
			       yd_quote(s->str, q, sizeof(q)));
	*v = x;
	return TOPOMATCH_OK;
}

/* A finite decimal number; no hex, inf, nan, or blanks strtod would take. */
static bool yd_parse_double(const char *p, double *v)
{
	char *end;
	double x;

	if (!*p || strpbrk(p, "xX \t\r\n\f\v"))
		return false;
	errno = 0;
	x = strtod(p, &end);
	if (*end || !isfinite(x))
		return false;
	*v = x;
	return true;
}

int tm_ynode_double(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, double min,
		    double max, double *v, char *err)
{
	char want[96], q[YD_QUOTE_MAX + 4];
	double x;
	int rc;

	if (!what)
		what = "value";
	snprintf(want, sizeof(want), "a number in [%g, %g]", min, max);
	rc = yd_scalar(d, s, what, want, err);
	if (rc)
		return rc;
	if (!yd_parse_double(s->str, &x) || !(x >= min && x <= max))
		return tm_yerr(d, s, err, TOPOMATCH_EPARSE, "%s: expected %s, got '%s'", what, want,
			       yd_quote(s->str, q, sizeof(q)));
	*v = x;
	return TOPOMATCH_OK;
}

int tm_ynode_bool(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, int *v,
		  char *err)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *want = "a boolean (true/false, yes/no, on/off)";
	char q[YD_QUOTE_MAX + 4];
	int rc;

	if (!what)
		what = "value";
	rc = yd_scalar(d, s, what, want, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(s->str, yes[i]) == 0 || strcasecmp(s->str, no[i]) == 0) {
			*v = strcasecmp(s->str, yes[i]) == 0;
			return TOPOMATCH_OK;
		}
	}
	return tm_yerr(d, s, err, TOPOMATCH_EPARSE, "%s: expected %s, got '%s'", what, want,
		       yd_quote(s->str, q, sizeof(q)));
}

int tm_ynode_str(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, const char **v,
		 char *err)
{
	int rc;

	if (!what)
		what = "value";
	rc = yd_scalar(d, s, what, "a string", err);
	if (rc)
		return rc;
	*v = s->str;
	return TOPOMATCH_OK;
}

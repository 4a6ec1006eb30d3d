/*
 * slurm_topo.c - topology.conf (Slurm 22.05, topology/tree) to a switch
 * tree and back.  Lines are read the way Slurm's parse_config.c reads
 * them (comment stripped first, then a trailing odd run of backslashes
 * joins the next line as it is), so that a file reads here as it reads
 * in slurmctld; each piece of a joined line keeps its source line and
 * column, so messages point into the file, not into the joined text.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "slurm_topo.h"
#include "slurm_syntax.h"
#include "base/textscan.h"
#include "base/tm_internal.h"
#include "yaml_doc.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's LinkSpeed is a uint32 (S_P_UINT32). */
#define ST_MAX_SPEED 4294967295.0
/* Longest piece of input quoted in a message. */
#define ST_QUOTE 64

enum { ST_NAME, ST_SWITCHES, ST_NODES, ST_SPEED, ST_NKEYS };

/* The keys of topology/tree's switch lines, spelt as Slurm documents them. */
static const char *const st_keys[ST_NKEYS + 1] = { "SwitchName", "Switches", "Nodes",
						   "LinkSpeed", NULL };

/* Where a piece of a joined line comes from. */
typedef struct st_seg {
	size_t off;        /* offset of its first character in the joined line */
	int64_t line, col; /* position of that character in the file */
} st_seg_t;

/* One logical line: physical lines joined at trailing backslashes. */
typedef struct st_line {
	char *s;
	size_t n, cap;
	st_seg_t *seg;
	size_t nseg, segcap;
} st_line_t;

typedef struct st_parser {
	const char *buf;
	size_t len, pos; /* pos: start of the next physical line */
	int64_t lineno;  /* physical lines consumed */
	const char *name;
	st_line_t l;
	tm_swtree_t *t;
	char *err;
} st_parser_t;

/* key=value as offsets into the joined line. */
typedef struct st_pair {
	size_t key, klen;
	size_t val, vlen;
} st_pair_t;

/* The pairs of one switch line, by key. */
typedef struct st_switch {
	st_pair_t kv[ST_NKEYS];
	bool seen[ST_NKEYS];
} st_switch_t;

/* ------------------------------------------------------------------ */
/* Characters and messages                                             */
/* ------------------------------------------------------------------ */

/* isspace() in the C locale, without the newline that ends lines. */
static bool st_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Slurm's key pattern is [[:alnum:]_.]+. */
static bool st_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

static char st_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Does s[0..n) spell word, ignoring ASCII case?  (Slurm's keys ignore it.) */
static bool st_ieq(const char *s, size_t n, const char *word)
{
	if (strlen(word) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (st_lower(s[i]) != st_lower(word[i]))
			return false;
	return true;
}

/* Length of s[0..n) to quote in a message. */
static int st_qlen(size_t n)
{
	return n > ST_QUOTE ? ST_QUOTE : (int)n;
}

/* File position of offset off of the joined line (binary search on pieces). */
static void st_pos(const st_line_t *l, size_t off, int64_t *line, int64_t *col)
{
	size_t lo = 0, hi = l->nseg - 1;

	while (lo < hi) {
		size_t m = lo + (hi - lo + 1) / 2;
		if (l->seg[m].off <= off)
			lo = m;
		else
			hi = m - 1;
	}
	*line = l->seg[lo].line;
	*col = l->seg[lo].col + (int64_t)(off - l->seg[lo].off);
}

static int st_err(const st_parser_t *p, size_t off, int status, const char *fmt, ...)
	TM_PRINTF(4, 5);

/* "NAME:LINE:COL: msg" at offset off of the current joined line. */
static int st_err(const st_parser_t *p, size_t off, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	int64_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	st_pos(&p->l, off, &line, &col);
	return tm_err(p->err, status, "%s:%lld:%lld: %s", p->name, (long long)line,
		      (long long)col, msg);
}

/* ------------------------------------------------------------------ */
/* Logical lines                                                       */
/* ------------------------------------------------------------------ */

/*
 * A line is continued when, blanks after it aside, it ends with an odd
 * run of backslashes; the last one is cut and everything before it is
 * kept, blanks included, as Slurm's _strip_continuation() does.
 */
static bool st_continued(const char *s, size_t b, size_t e, size_t *cut)
{
	size_t k;

	while (e > b && st_blank(s[e - 1]))
		e--;
	for (k = e; k > b && s[k - 1] == '\\'; k--)
		;
	if ((e - k) % 2 == 0)
		return false;
	*cut = e - 1;
	return true;
}

/* Room for `more` bytes (and a NUL) and one more piece. */
static int st_reserve(st_parser_t *p, size_t more)
{
	st_line_t *l = &p->l;

	if (l->cap - l->n <= more) {
		size_t cap = l->cap ? l->cap : 256;
		while (cap - l->n <= more)
			cap *= 2; /* bounded: the whole file is at most 16 MiB */
		char *s = realloc(l->s, cap);
		if (!s)
			return tm_err(p->err, TOPOMATCH_ENOMEM, "%s: out of memory", p->name);
		l->s = s;
		l->cap = cap;
	}
	if (l->nseg == l->segcap) {
		size_t cap = l->segcap ? l->segcap * 2 : 8;
		st_seg_t *seg = realloc(l->seg, cap * sizeof(*seg));
		if (!seg)
			return tm_err(p->err, TOPOMATCH_ENOMEM, "%s: out of memory", p->name);
		l->seg = seg;
		l->segcap = cap;
	}
	return TOPOMATCH_OK;
}

/* Append buf[b, e) of physical line `line` (it starts at column 1). */
static int st_append(st_parser_t *p, size_t b, size_t e, int64_t line)
{
	st_line_t *l = &p->l;
	int rc = st_reserve(p, e - b);

	if (rc)
		return rc;
	l->seg[l->nseg++] = (st_seg_t){ .off = l->n, .line = line, .col = 1 };
	memcpy(l->s + l->n, p->buf + b, e - b);
	l->n += e - b;
	l->s[l->n] = '\0';
	return TOPOMATCH_OK;
}

/* The next logical line into p->l; *got is false at the end of the input. */
static int st_next_line(st_parser_t *p, bool *got)
{
	p->l.n = 0;
	p->l.nseg = 0;
	*got = p->pos < p->len;
	while (p->pos < p->len) {
		size_t b = p->pos, e, c, cut;
		const char *nl = memchr(p->buf + b, '\n', p->len - b);
		int64_t line = ++p->lineno;
		bool more;
		int rc;

		e = nl ? (size_t)(nl - p->buf) : p->len;
		p->pos = nl ? e + 1 : p->len;
		c = tm_slurm_cut_comment(p->buf, b, e);
		more = st_continued(p->buf, b, c, &cut);
		rc = st_append(p, b, more ? cut : c, line);
		/* a backslash on the last line continues into nothing, as in Slurm */
		if (rc || !more)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* key=value pairs                                                     */
/* ------------------------------------------------------------------ */

static size_t st_skip(const st_line_t *l, size_t i)
{
	while (i < l->n && st_blank(l->s[i]))
		i++;
	return i;
}

/* Index of a known key, ignoring case, or -1. */
static int st_key_kind(const char *s, size_t n)
{
	for (int k = 0; k < ST_NKEYS; k++)
		if (st_ieq(s, n, st_keys[k]))
			return k;
	return -1;
}

/* The known key an unknown one was probably meant to be, or NULL. */
static const char *st_suggest(const char *s, size_t n)
{
	char low[64], cand[64];
	int cap = n <= 4 ? 1 : 2, best = cap + 1;
	const char *pick = NULL;

	if (n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		low[i] = i < n ? st_lower(s[i]) : '\0';
	for (int k = 0; k < ST_NKEYS; k++) {
		size_t m = strlen(st_keys[k]);
		for (size_t i = 0; i <= m; i++)
			cand[i] = st_lower(st_keys[k][i]);
		int d = tm_edit_distance(low, cand, cap);
		if (d < best) {
			best = d;
			pick = st_keys[k];
		}
	}
	return pick;
}

static int st_unknown_key(const st_parser_t *p, const st_pair_t *kv)
{
	const char *s = p->l.s + kv->key;
	const char *hint = st_suggest(s, kv->klen);

	if (hint)
		return st_err(p, kv->key, TOPOMATCH_EPARSE,
			      "unknown key '%.*s' (did you mean '%s'?)", st_qlen(kv->klen), s,
			      hint);
	return st_err(p, kv->key, TOPOMATCH_EPARSE,
		      "unknown key '%.*s' (topology.conf keys: SwitchName, Switches, Nodes, "
		      "LinkSpeed)",
		      st_qlen(kv->klen), s);
}

static int st_empty_value(const st_parser_t *p, size_t at, const st_pair_t *kv)
{
	return st_err(p, at, TOPOMATCH_EPARSE, "empty value for %.*s", st_qlen(kv->klen),
		      p->l.s + kv->key);
}

/* A value in double quotes (blanks allowed inside, as in Slurm). */
static int st_quoted(const st_parser_t *p, size_t i, size_t *end, st_pair_t *kv)
{
	const st_line_t *l = &p->l;
	const char *q = memchr(l->s + i + 1, '"', l->n - i - 1);

	if (!q)
		return st_err(p, i, TOPOMATCH_EPARSE, "unterminated quote");
	kv->val = i + 1;
	kv->vlen = (size_t)(q - (l->s + i + 1));
	*end = (size_t)(q - l->s) + 1;
	if (kv->vlen == 0)
		return st_empty_value(p, i, kv);
	if (*end < l->n && !st_blank(l->s[*end]))
		return st_err(p, *end, TOPOMATCH_EPARSE,
			      "expected a blank after the closing quote");
	return TOPOMATCH_OK;
}

/*
 * The value after '=' (at i).  Slurm skips blanks after '=', so in
 * "Nodes= Switches=s1" it would take "Switches=s1" as the nodes: a value
 * that only follows blanks and holds a '=' is the next pair, and the
 * value is reported empty instead.
 */
static int st_value(const st_parser_t *p, size_t i, size_t *end, st_pair_t *kv)
{
	const st_line_t *l = &p->l;
	size_t v = st_skip(l, i), e = v;

	if (v == l->n)
		return st_empty_value(p, i, kv);
	if (l->s[v] == '"')
		return st_quoted(p, v, end, kv);
	while (e < l->n && !st_blank(l->s[e]))
		e++;
	if (v > i && memchr(l->s + v, '=', e - v))
		return st_empty_value(p, i, kv);
	kv->val = v;
	kv->vlen = e - v;
	*end = e;
	return TOPOMATCH_OK;
}

/* key [blanks] = [blanks] value, from *at; *at moves past the value. */
static int st_pair(const st_parser_t *p, size_t *at, st_pair_t *kv)
{
	const st_line_t *l = &p->l;
	const char *s = l->s;
	size_t i = *at, e = i;

	while (i < l->n && st_key_char(s[i]))
		i++;
	kv->key = *at;
	kv->klen = i - *at;
	if (kv->klen == 0) {
		while (e < l->n && !st_blank(s[e]))
			e++;
		return st_err(p, *at, TOPOMATCH_EPARSE, "expected KEY=VALUE, got '%.*s'",
			      st_qlen(e - *at), s + *at);
	}
	i = st_skip(l, i);
	if (i + 1 < l->n && strchr("+-*/", s[i]) && s[i + 1] == '=')
		return st_err(p, i, TOPOMATCH_EPARSE,
			      "operator '%c=' is not allowed in topology.conf (use '=')", s[i]);
	if (i == l->n || s[i] != '=')
		return st_err(p, i, TOPOMATCH_EPARSE, "expected '=' after '%.*s'",
			      st_qlen(kv->klen), s + kv->key);
	return st_value(p, i + 1, at, kv);
}

/* File it under its key: SwitchName first, once; every other key once. */
static int st_take(const st_parser_t *p, st_switch_t *sw, const st_pair_t *kv, bool first)
{
	const char *key = p->l.s + kv->key;
	int k = st_key_kind(key, kv->klen);
	int64_t line, col;

	if (k < 0)
		return st_unknown_key(p, kv);
	if (first && k != ST_NAME)
		return st_err(p, kv->key, TOPOMATCH_EPARSE,
			      "a switch line starts with SwitchName=, not %.*s=", st_qlen(kv->klen),
			      key);
	if (!first && k == ST_NAME)
		return st_err(p, kv->key, TOPOMATCH_EPARSE,
			      "second SwitchName on one line (one switch per line)");
	if (sw->seen[k]) {
		st_pos(&p->l, sw->kv[k].key, &line, &col);
		return st_err(p, kv->key, TOPOMATCH_EPARSE, "%s given twice (first at %lld:%lld)",
			      st_keys[k], (long long)line, (long long)col);
	}
	sw->seen[k] = true;
	sw->kv[k] = *kv;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Switch lines                                                        */
/* ------------------------------------------------------------------ */

/* LinkSpeed: Slurm's uint32, INFINITE/UNLIMITED meaning its largest value. */
static int st_speed(const st_parser_t *p, const st_pair_t *kv, double *v)
{
	const char *s = p->l.s + kv->val;
	size_t n = kv->vlen, i;

	if (st_ieq(s, n, "INFINITE") || st_ieq(s, n, "UNLIMITED")) {
		*v = ST_MAX_SPEED;
		return TOPOMATCH_OK;
	}
	*v = 0;
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9' && *v <= ST_MAX_SPEED; i++)
		*v = *v * 10 + (s[i] - '0');
	if (i == n && *v <= ST_MAX_SPEED)
		return TOPOMATCH_OK;
	return st_err(p, kv->val, TOPOMATCH_EPARSE,
		      "LinkSpeed: expected an integer in [0, 4294967295], got '%.*s'", st_qlen(n),
		      s);
}

/* topology/tree takes exactly one of Switches= and Nodes= (_parse_switches()). */
static int st_children(const st_parser_t *p, const st_switch_t *sw)
{
	const st_pair_t *name = &sw->kv[ST_NAME];
	const char *s = p->l.s + name->val;

	if (sw->seen[ST_SWITCHES] && sw->seen[ST_NODES]) {
		const st_pair_t *a = &sw->kv[ST_SWITCHES], *b = &sw->kv[ST_NODES];
		return st_err(p, a->key > b->key ? a->key : b->key, TOPOMATCH_EPARSE,
			      "switch '%.*s' has both Switches and Nodes (Slurm's topology/tree "
			      "takes one of them)",
			      st_qlen(name->vlen), s);
	}
	if (!sw->seen[ST_SWITCHES] && !sw->seen[ST_NODES])
		return st_err(p, name->key, TOPOMATCH_EPARSE,
			      "switch '%.*s' has neither Switches nor Nodes", st_qlen(name->vlen),
			      s);
	return TOPOMATCH_OK;
}

/* NUL-terminated value of key k in place (the character after it is a blank,
 * a quote or the end), with its position; NULL when absent. */
static const char *st_val(const st_parser_t *p, const st_switch_t *sw, int k, int64_t *line,
			  int64_t *col)
{
	*line = *col = 0;
	if (!sw->seen[k])
		return NULL;
	p->l.s[sw->kv[k].val + sw->kv[k].vlen] = '\0';
	st_pos(&p->l, sw->kv[k].val, line, col);
	return p->l.s + sw->kv[k].val;
}

static int st_add_switch(st_parser_t *p, const st_switch_t *sw)
{
	int64_t l, c, sl, sc, nl, nc;
	const char *name, *switches, *nodes;
	double speed = 0;
	int rc = st_children(p, sw);

	if (!rc && sw->seen[ST_SPEED])
		rc = st_speed(p, &sw->kv[ST_SPEED], &speed);
	if (rc)
		return rc;
	name = st_val(p, sw, ST_NAME, &l, &c);
	switches = st_val(p, sw, ST_SWITCHES, &sl, &sc);
	nodes = st_val(p, sw, ST_NODES, &nl, &nc);
	return tm_swtree_add(p->t, name, l, c, switches, sl, sc, nodes, nl, nc, speed, p->err);
}

/* Slurm would open an Include'd file; a tree read here must be one file. */
static bool st_is_include(const st_line_t *l, size_t i)
{
	return l->n - i > 7 && st_ieq(l->s + i, 7, "include") && st_blank(l->s[i + 7]);
}

static int st_parse_line(st_parser_t *p)
{
	const st_line_t *l = &p->l;
	st_switch_t sw = { 0 };
	size_t i = st_skip(l, 0);
	const char *bs;
	int rc = TOPOMATCH_OK;

	if (i == l->n)
		return TOPOMATCH_OK; /* blank or comment */
	bs = memchr(l->s, '\\', l->n);
	if (bs)
		return st_err(p, (size_t)(bs - l->s), TOPOMATCH_EPARSE,
			      "unexpected backslash (one may only end a line, to continue it)");
	if (st_is_include(l, i))
		return st_err(p, i, TOPOMATCH_EUNSUPPORTED,
			      "Include is not supported: put the switches in this file");
	for (bool first = true; i < l->n && !rc; first = false) {
		st_pair_t kv;
		rc = st_pair(p, &i, &kv);
		if (!rc)
			rc = st_take(p, &sw, &kv, first);
		i = st_skip(l, i);
	}
	return rc ? rc : st_add_switch(p, &sw);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

/* Refuse what cannot be a topology.conf before reading lines. */
static int st_check_buffer(const char *buf, size_t len, const char *name, char *err)
{
	const char *nul = len ? memchr(buf, '\0', len) : NULL;
	int64_t line = 1;
	size_t bol = 0;

	if ((uint64_t)len > (uint64_t)TM_SLURM_TOPO_MAX_BYTES) {
		for (int64_t i = 0; i < TM_SLURM_TOPO_MAX_BYTES; i++)
			line += buf[i] == '\n';
		return tm_err(err, TOPOMATCH_ELIMIT, "%s:%lld: larger than the limit of %lld bytes",
			      name, (long long)line, (long long)TM_SLURM_TOPO_MAX_BYTES);
	}
	if (!nul)
		return TOPOMATCH_OK;
	for (size_t i = 0; buf + i < nul; i++)
		if (buf[i] == '\n') {
			line++;
			bol = i + 1;
		}
	return tm_err(err, TOPOMATCH_EPARSE, "%s:%lld:%lld: NUL byte (not a text file?)", name,
		      (long long)line, (long long)((size_t)(nul - buf) - bol + 1));
}

int tm_slurm_topology_parse(const char *buf, size_t len, const char *name, tm_swtree_t *out,
			    char *err)
{
	st_parser_t p = { .buf = buf, .len = len, .t = out, .err = err };
	bool got = true;
	int rc;

	if (!name)
		name = "topology.conf";
	p.name = name;
	if (!out || (!buf && len))
		return tm_err(err, TOPOMATCH_EINVAL, "%s: invalid arguments", name);
	tm_swtree_init(out, name);
	rc = st_check_buffer(buf, len, name, err);
	while (!rc && got) {
		rc = st_next_line(&p, &got);
		if (!rc && got)
			rc = st_parse_line(&p);
	}
	free(p.l.s);
	free(p.l.seg);
	if (!rc)
		rc = tm_swtree_resolve(out, TM_SLURM_TOPO_MAX_NODES, err);
	if (rc)
		tm_swtree_free(out);
	return rc;
}

int tm_slurm_topology_read(const char *path, tm_swtree_t *out, char *err)
{
	bool is_stdin;
	const char *name;
	char *buf;
	size_t len;
	FILE *f;
	int rc;

	if (!path || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "tm_slurm_topology_read: NULL argument");
	is_stdin = strcmp(path, "-") == 0;
	name = is_stdin ? "<stdin>" : path;
	tm_swtree_init(out, name);
	f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return tm_err(err, TOPOMATCH_EIO, "%s: cannot open: %s", path, strerror(errno));
	rc = tm_read_all(f, name, TM_SLURM_TOPO_MAX_BYTES, &buf, &len, err);
	if (!is_stdin)
		fclose(f);
	if (rc)
		return rc;
	rc = tm_slurm_topology_parse(buf, len, name, out, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* A LinkSpeed Slurm can read: a uint32, at least 1 when it was set. */
static long long st_speed_out(double v)
{
	if (v >= ST_MAX_SPEED)
		return (long long)ST_MAX_SPEED;
	long long r = llround(v);
	return r < 1 ? 1 : r;
}

int tm_swtree_write_topology_conf(const tm_swtree_t *t, FILE *out)
{
	if (!t || !out)
		return TOPOMATCH_EINVAL;
	/* check everything first, so that a refused tree writes nothing */
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		if (s->switches_text && s->nodes_text)
			return TOPOMATCH_EUNSUPPORTED;
		if (!s->switches_text && !s->nodes_text)
			return TOPOMATCH_EINVAL;
	}
	if (fprintf(out, "# topology.conf for topology/tree, written by slurm-topomatch\n") < 0)
		return TOPOMATCH_EIO;
	for (int64_t i = 0; i < t->n; i++) {
		const tm_switch_t *s = &t->sw[i];
		int w = fprintf(out, "SwitchName=%s %s=%s", s->name,
				s->switches_text ? "Switches" : "Nodes",
				s->switches_text ? s->switches_text : s->nodes_text);
		if (w >= 0 && s->link_speed > 0)
			w = fprintf(out, " LinkSpeed=%lld", st_speed_out(s->link_speed));
		if (w < 0 || fputc('\n', out) == EOF)
			return TOPOMATCH_EIO;
	}
	return fflush(out) == 0 && !ferror(out) ? TOPOMATCH_OK : TOPOMATCH_EIO;
}

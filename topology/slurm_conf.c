/*
 * slurm_conf.c - the NodeName lines of a Slurm 22.05 slurm.conf (and of
 * the files it includes) with their effective counts, and a hash of every
 * node name for lookups.  The lexical rules mirror Slurm's own parser
 * (src/common/parse_config.c), the defaults and inference its
 * _parse_nodename() (src/common/read_config.c), both of 22.05.8.
 *
 * A "logical line" is what Slurm parses: physical lines joined at a
 * continuation, comments cut, escapes resolved.  Each of its characters
 * keeps the file offset it came from, so that every message can point at
 * the physical line and column.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "slurm_conf.h"
#include "slurm_syntax.h"
#include "base/textscan.h"
#include "base/tm_internal.h"
#include "yaml_doc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest piece of a value quoted in a message; keeps messages one line. */
#define SC_QUOTE_MAX 64
/* Slurm keeps these counts in uint16_t. */
#define SC_COUNT_MAX 65535

/* ------------------------------------------------------------------ */
/* The keys of a NodeName line                                         */
/* ------------------------------------------------------------------ */

/* The counts this reader uses; every other key is accepted and ignored. */
enum { SC_BOARDS, SC_CORES, SC_CPUS, SC_PROCS, SC_SOCKETS, SC_SPB, SC_THREADS, SC_NCOUNTS };

typedef struct sc_key {
	const char *name;
	int count;        /* SC_BOARDS ..., or -1 for a key whose value is unused */
	bool not_default; /* refused on NodeName=DEFAULT, as slurmctld does */
} sc_key_t;

/*
 * What slurmctld 22.05 accepts after NodeName= (_nodename_options in
 * read_config.c): the keys slurm.conf(5) documents in NODE CONFIGURATION
 * plus two it accepts undocumented, Feature (the old spelling of Features)
 * and TRESWeights.  Refusing those would fail files slurmctld runs with.
 */
static const sc_key_t sc_keys[] = {
	{ "BcastAddr", -1, true },
	{ "Boards", SC_BOARDS, false },
	{ "CoreSpecCount", -1, false },
	{ "CoresPerSocket", SC_CORES, false },
	{ "CPUs", SC_CPUS, false },
	{ "CPUSpecList", -1, false },
	{ "CpuBind", -1, false },
	{ "Feature", -1, false },
	{ "Features", -1, false },
	{ "Gres", -1, false },
	{ "MemSpecLimit", -1, false },
	{ "NodeAddr", -1, true },
	{ "NodeHostname", -1, true },
	{ "Port", -1, false },
	{ "Procs", SC_PROCS, false },
	{ "RealMemory", -1, false },
	{ "Reason", -1, false },
	{ "Sockets", SC_SOCKETS, false },
	{ "SocketsPerBoard", SC_SPB, false },
	{ "State", -1, false },
	{ "ThreadsPerCore", SC_THREADS, false },
	{ "TmpDisk", -1, false },
	{ "TRESWeights", -1, false },
	{ "Weight", -1, false },
};
#define SC_NKEYS (sizeof(sc_keys) / sizeof(sc_keys[0]))

/* Counts written on one NodeName line (or accumulated DEFAULT ones). */
typedef struct sc_counts {
	int v[SC_NCOUNTS];
	bool set[SC_NCOUNTS];
} sc_counts_t;

/* ------------------------------------------------------------------ */
/* Reader state                                                        */
/* ------------------------------------------------------------------ */

typedef struct sc_file {
	const char *name; /* owned by the conf's files */
	const char *buf;
	size_t len;
	int depth;        /* 0 for the main file */
	/* where sc_where last stopped: node positions come in file order */
	size_t cur, cur_lstart;
	int64_t cur_line;
} sc_file_t;

typedef struct sc_line {
	char *s;     /* text; comments, continuations, escapes resolved */
	size_t *off; /* file offset of each character of s */
	size_t n, cap;
	size_t end;  /* file offset just past the line, for "missing" messages */
} sc_line_t;

/* One Key=Value of a line; positions index the line's text. */
typedef struct sc_pair {
	size_t kpos, nkey;
	char op;     /* '+', '-', '*', '/' written before '=', else 0 */
	size_t vpos, nval;
} sc_pair_t;

typedef struct sc_reader {
	tm_slurm_conf_t *c;
	sc_counts_t dflt; /* NodeName=DEFAULT values so far */
	int64_t cap;      /* of c->node */
	int64_t files_cap;
	int64_t total_bytes;
	char *err;
} sc_reader_t;

struct tm_slurm_index {
	int64_t size;   /* slots, a power of two above twice the names */
	int64_t *slot;  /* global name number, or -1 */
	int64_t *first; /* n + 1: entry e holds names first[e] .. first[e + 1] - 1 */
	size_t maxlen;  /* longest name */
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* Line and column (1-based) of byte off of f. */
static void sc_where(sc_file_t *f, size_t off, int64_t *line, int64_t *col)
{
	if (off < f->cur) {
		f->cur = 0;
		f->cur_lstart = 0;
		f->cur_line = 1;
	}
	for (; f->cur < off; f->cur++) {
		if (f->buf[f->cur] == '\n') {
			f->cur_line++;
			f->cur_lstart = f->cur + 1;
		}
	}
	*line = f->cur_line;
	*col = (int64_t)(off - f->cur_lstart) + 1;
}

static int sc_err(sc_reader_t *r, sc_file_t *f, size_t off, int status, const char *fmt, ...)
	TM_PRINTF(5, 6);

/* "FILE:LINE:COL: message" at byte off of f; returns status. */
static int sc_err(sc_reader_t *r, sc_file_t *f, size_t off, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	int64_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sc_where(f, off, &line, &col);
	return tm_err(r->err, status, "%s:%lld:%lld: %s", f->name, (long long)line,
		      (long long)col, msg);
}

/* File offset of character i of the line (its end when past it). */
static size_t sc_at(const sc_line_t *ln, size_t i)
{
	return i < ln->n ? ln->off[i] : ln->end;
}

/* n characters of s for a message: truncated, so one odd value cannot fill it. */
static const char *sc_quote(const char *s, size_t n, char *buf, size_t len)
{
	if (n > SC_QUOTE_MAX)
		snprintf(buf, len, "%.*s...", SC_QUOTE_MAX, s);
	else
		snprintf(buf, len, "%.*s", (int)n, s);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Logical lines                                                       */
/* ------------------------------------------------------------------ */

static bool sc_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * When [b, e) ends (blanks aside) in an odd number of backslashes, the
 * line continues: the offset of the last backslash, which is dropped.
 * Otherwise e.
 */
static size_t sc_continuation(const char *s, size_t b, size_t e)
{
	size_t i = e, bs = 0;

	while (i > b && sc_blank(s[i - 1]))
		i--;
	while (i > b && s[i - 1] == '\\') {
		i--;
		bs++;
	}
	return bs % 2 ? i + bs - 1 : e;
}

static int sc_push(sc_line_t *ln, char c, size_t off)
{
	if (ln->n + 1 >= ln->cap) {
		size_t cap = ln->cap ? ln->cap * 2 : 256;
		char *s = realloc(ln->s, cap);
		if (s)
			ln->s = s;
		size_t *o = s ? realloc(ln->off, cap * sizeof(*o)) : NULL;
		if (!o)
			return TOPOMATCH_ENOMEM;
		ln->off = o;
		ln->cap = cap;
	}
	ln->off[ln->n] = off;
	ln->s[ln->n++] = c;
	ln->s[ln->n] = '\0';
	return TOPOMATCH_OK;
}

/* Append [b, e) of s resolving escapes: "\x" stands for x, as in Slurm. */
static int sc_append(sc_line_t *ln, const char *s, size_t b, size_t e)
{
	for (size_t i = b; i < e; i++) {
		if (s[i] == '\\' && ++i >= e)
			break;
		if (sc_push(ln, s[i], i))
			return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

/* The logical line starting at *pos (< f->len); *pos moves past it. */
static int sc_next_line(const sc_file_t *f, size_t *pos, sc_line_t *ln)
{
	ln->n = 0;
	while (*pos < f->len) {
		size_t b = *pos, e = b;

		while (e < f->len && f->buf[e] != '\n')
			e++;
		*pos = e < f->len ? e + 1 : e;
		size_t cut = tm_slurm_cut_comment(f->buf, b, e);
		size_t cont = sc_continuation(f->buf, b, cut);
		if (sc_append(ln, f->buf, b, cont))
			return TOPOMATCH_ENOMEM;
		ln->end = cont;
		if (cont == cut)
			break;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Key=Value pairs                                                     */
/* ------------------------------------------------------------------ */

static bool sc_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

static size_t sc_skip_blanks(const sc_line_t *ln, size_t p)
{
	while (p < ln->n && sc_blank(ln->s[p]))
		p++;
	return p;
}

static bool sc_key_is(const sc_line_t *ln, const sc_pair_t *kv, const char *name)
{
	return strlen(name) == kv->nkey && !strncasecmp(ln->s + kv->kpos, name, kv->nkey);
}

/* A malloc'd copy of the pair's value. */
static char *sc_value(const sc_line_t *ln, const sc_pair_t *kv)
{
	char *v = malloc(kv->nval + 1);

	if (v) {
		memcpy(v, ln->s + kv->vpos, kv->nval);
		v[kv->nval] = '\0';
	}
	return v;
}

/*
 * The value at p: "quoted text" when the closing quote ends a word, else
 * the run of non-blanks (quotes included), as Slurm's key=value regex
 * reads it.  Empty only when quoted ("").
 */
static void sc_scan_value(const sc_line_t *ln, size_t p, sc_pair_t *kv, size_t *next)
{
	if (ln->s[p] == '"') {
		const char *q = memchr(ln->s + p + 1, '"', ln->n - p - 1);
		size_t close = q ? (size_t)(q - ln->s) : ln->n;
		if (q && (close + 1 == ln->n || sc_blank(ln->s[close + 1]))) {
			kv->vpos = p + 1;
			kv->nval = close - p - 1;
			*next = close + 1;
			return;
		}
	}
	kv->vpos = p;
	while (p < ln->n && !sc_blank(ln->s[p]))
		p++;
	kv->nval = p - kv->vpos;
	*next = p;
}

/* The Key=Value at *p (after blanks); *p moves past it. */
static int sc_pair(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, size_t *p, sc_pair_t *kv)
{
	char q[SC_QUOTE_MAX + 4];
	size_t i = sc_skip_blanks(ln, *p), w;

	memset(kv, 0, sizeof(*kv));
	kv->kpos = i;
	while (i < ln->n && sc_key_char(ln->s[i]))
		i++;
	kv->nkey = i - kv->kpos;
	if (!kv->nkey) {
		for (w = i; w < ln->n && !sc_blank(ln->s[w]); w++)
			;
		return sc_err(r, f, sc_at(ln, i), TOPOMATCH_EPARSE, "expected Key=Value, got '%s'",
			      sc_quote(ln->s + i, w - i, q, sizeof(q)));
	}
	i = sc_skip_blanks(ln, i);
	if (i < ln->n && strchr("+-*/", ln->s[i]) && i + 1 < ln->n && ln->s[i + 1] == '=')
		kv->op = ln->s[i++];
	if (i >= ln->n || ln->s[i] != '=')
		return sc_err(r, f, sc_at(ln, i), TOPOMATCH_EPARSE, "expected '=' after '%s'",
			      sc_quote(ln->s + kv->kpos, kv->nkey, q, sizeof(q)));
	i = sc_skip_blanks(ln, i + 1);
	if (i >= ln->n)
		return sc_err(r, f, sc_at(ln, i), TOPOMATCH_EPARSE, "missing value after '%s='",
			      sc_quote(ln->s + kv->kpos, kv->nkey, q, sizeof(q)));
	sc_scan_value(ln, i, kv, p);
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Counts                                                              */
/* ------------------------------------------------------------------ */

static int sc_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * A count as Slurm's s_p_handle_uint16 reads it, strtoul(s, 0): "0x10" is
 * 16 and "010" is 8.  Value in [0, 65535], or -1.
 */
static int sc_count_value(const char *s)
{
	int base = 10;
	long v = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && sc_digit(s[2]) < 16) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d = sc_digit(*s);
		if (d >= base)
			return -1;
		v = v * base + d;
		if (v > SC_COUNT_MAX)
			return -1;
	}
	return (int)v;
}

/* The value of count k on a line, else from the defaults: false when neither has it. */
static bool sc_pick(const sc_counts_t *line, const sc_counts_t *dflt, int k, int64_t *v)
{
	if (line->set[k])
		*v = line->v[k];
	else if (dflt->set[k])
		*v = dflt->v[k];
	else
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* NodeName lines                                                      */
/* ------------------------------------------------------------------ */

static const sc_key_t *sc_lookup(const sc_line_t *ln, const sc_pair_t *kv)
{
	for (size_t i = 0; i < SC_NKEYS; i++)
		if (sc_key_is(ln, kv, sc_keys[i].name))
			return &sc_keys[i];
	return NULL;
}

/* The known key close enough to be the one meant, or NULL (yaml_doc's rule). */
static const char *sc_suggest(const sc_line_t *ln, const sc_pair_t *kv)
{
	char key[SC_QUOTE_MAX + 1], name[32];
	int cap = kv->nkey <= 4 ? 1 : 2, best = cap + 1;
	const char *pick = NULL;

	if (kv->nkey > SC_QUOTE_MAX)
		return NULL;
	/* case does not count: compare lower-cased spellings */
	for (size_t i = 0; i < kv->nkey; i++)
		key[i] = (char)tolower((unsigned char)ln->s[kv->kpos + i]);
	key[kv->nkey] = '\0';
	for (size_t i = 0; i < SC_NKEYS; i++) {
		size_t j;
		for (j = 0; sc_keys[i].name[j]; j++)
			name[j] = (char)tolower((unsigned char)sc_keys[i].name[j]);
		name[j] = '\0';
		int d = tm_edit_distance(key, name, cap);
		if (d < best) {
			best = d;
			pick = sc_keys[i].name;
		}
	}
	return pick;
}

static int sc_unknown_key(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *kv)
{
	char q[SC_QUOTE_MAX + 4];
	const char *hint;
	size_t at = sc_at(ln, kv->kpos);

	if (sc_key_is(ln, kv, "NodeName"))
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "a second NodeName on one line (one NodeName per line)");
	sc_quote(ln->s + kv->kpos, kv->nkey, q, sizeof(q));
	hint = sc_suggest(ln, kv);
	if (hint)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "unknown NodeName key '%s' (did you mean '%s'?)", q, hint);
	return sc_err(r, f, at, TOPOMATCH_EPARSE, "unknown NodeName key '%s'", q);
}

/* One Key=Value after NodeName=...: checked, and kept in cnt when it is a count. */
static int sc_option(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *kv,
		     bool is_default, sc_counts_t *cnt)
{
	char q[SC_QUOTE_MAX + 4];
	const sc_key_t *k = sc_lookup(ln, kv);
	size_t at = sc_at(ln, kv->vpos);

	if (!k)
		return sc_unknown_key(r, f, ln, kv);
	if (kv->op)
		return sc_err(r, f, sc_at(ln, kv->kpos), TOPOMATCH_EPARSE,
			      "'%s%c=': operators have no meaning on a NodeName line", k->name,
			      kv->op);
	if (is_default && k->not_default)
		return sc_err(r, f, sc_at(ln, kv->kpos), TOPOMATCH_EPARSE,
			      "%s is not allowed with NodeName=DEFAULT", k->name);
	if (k->count < 0)
		return TOPOMATCH_OK;
	sc_quote(ln->s + kv->vpos, kv->nval, q, sizeof(q));
	char *v = sc_value(ln, kv);
	if (!v)
		return tm_err(r->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	int x = sc_count_value(v);
	free(v);
	if (x == 0)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "%s=0 is invalid (slurmctld logs an error and uses 1)", k->name);
	if (x < 0)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "%s: expected a count in [1, %d], got '%s'", k->name, SC_COUNT_MAX,
			      q);
	cnt->v[k->count] = x;
	cnt->set[k->count] = true;
	return TOPOMATCH_OK;
}

/* Sockets when not written, as read_config.c infers it. */
static int64_t sc_infer_sockets(bool has_spb, int64_t spb, bool has_cpus, int64_t cpus,
				int64_t boards, int64_t cores, int64_t threads)
{
	if (has_spb)
		return boards * spb;
	if (has_cpus && cpus >= cores * threads && cpus % (cores * threads) == 0)
		return cpus / (cores * threads);
	return boards; /* one socket per board */
}

/*
 * The node's effective counts from its line and the defaults, as
 * _parse_nodename() computes them; what it would patch is an error here.
 */
static int sc_effective(sc_reader_t *r, sc_file_t *f, size_t at, const char *names,
			const sc_counts_t *cnt, tm_slurm_node_t *nd)
{
	const sc_counts_t *d = &r->dflt;
	char q[SC_QUOTE_MAX + 4];
	int64_t boards = 1, cores = 1, threads = 1, spb = 1, sockets = 0, cpus = 0;
	bool has_cpus, has_sockets, has_spb;

	sc_quote(names, strlen(names), q, sizeof(q));
	sc_pick(cnt, d, SC_BOARDS, &boards);
	sc_pick(cnt, d, SC_CORES, &cores);
	sc_pick(cnt, d, SC_THREADS, &threads);
	/* Slurm's order: CPUs of the line, of DEFAULT, then Procs likewise */
	has_cpus = sc_pick(cnt, d, SC_CPUS, &cpus) || sc_pick(cnt, d, SC_PROCS, &cpus);
	has_sockets = sc_pick(cnt, d, SC_SOCKETS, &sockets);
	has_spb = sc_pick(cnt, d, SC_SPB, &spb);
	if (has_sockets && has_spb)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "NodeName=%s: Sockets and SocketsPerBoard are mutually exclusive "
			      "(slurmctld logs an error and uses Boards x SocketsPerBoard)", q);
	if (!has_sockets)
		sockets = sc_infer_sockets(has_spb, spb, has_cpus, cpus, boards, cores, threads);
	if (sockets > SC_COUNT_MAX)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "NodeName=%s: Boards x SocketsPerBoard is %lld sockets, more than %d",
			      q, (long long)sockets, SC_COUNT_MAX);
	if (!has_cpus)
		cpus = sockets * cores * threads;
	if (cpus > SC_COUNT_MAX)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "NodeName=%s: Sockets x CoresPerSocket x ThreadsPerCore is %lld "
			      "CPUs, more than Slurm's %d", q, (long long)cpus, SC_COUNT_MAX);
	if (sockets < boards)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "NodeName=%s: Sockets (%lld) < Boards (%lld) (slurmctld logs an "
			      "error and uses Boards=1)", q, (long long)sockets, (long long)boards);
	if (cpus != sockets && cpus != sockets * cores && cpus != sockets * cores * threads)
		return sc_err(r, f, at, TOPOMATCH_EPARSE,
			      "NodeName=%s: CPUs=%lld matches none of Sockets (%lld), "
			      "Sockets x CoresPerSocket (%lld), Sockets x CoresPerSocket x "
			      "ThreadsPerCore (%lld)", q, (long long)cpus, (long long)sockets,
			      (long long)(sockets * cores), (long long)(sockets * cores * threads));
	nd->boards = (int)boards;
	nd->sockets = (int)sockets;
	nd->cores_per_socket = (int)cores;
	nd->threads_per_core = (int)threads;
	nd->cpus = (int)cpus;
	return TOPOMATCH_OK;
}

/* Parse the NodeName value; hostlist messages ("column C: ...") become file positions. */
static int sc_hosts(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *nm,
		    const char *names, tm_hostlist_t **out)
{
	char herr[TOPOMATCH_ERRLEN] = "", q[SC_QUOTE_MAX + 4];
	int64_t left = TM_SLURM_MAX_NODES - r->c->nnames;
	size_t col = 1;
	const char *msg = herr;
	int rc;

	sc_quote(names, strlen(names), q, sizeof(q));
	/* a bound of 0 would mean "no bound" to tm_hostlist_parse */
	rc = left > 0 ? tm_hostlist_parse(names, left, out, herr) : TOPOMATCH_ELIMIT;
	if (rc == TOPOMATCH_OK) {
		r->c->nnames += tm_hostlist_count(*out);
		return TOPOMATCH_OK;
	}
	/* the count limit, told as the file's limit rather than what was left */
	if (rc == TOPOMATCH_ELIMIT && (left <= 0 || strstr(herr, ": more than ")))
		return sc_err(r, f, sc_at(ln, nm->vpos), rc,
			      "NodeName=%s: more than %lld node names in all", q,
			      (long long)TM_SLURM_MAX_NODES);
	if (sscanf(herr, "column %zu: ", &col) == 1 && strstr(herr, ": "))
		msg = strstr(herr, ": ") + 2;
	if (col < 1 || col > nm->nval + 1)
		col = 1;
	return sc_err(r, f, sc_at(ln, nm->vpos + col - 1), rc, "NodeName=%s: %s", q, msg);
}

static int sc_grow_nodes(sc_reader_t *r)
{
	tm_slurm_conf_t *c = r->c;

	if (c->n < r->cap)
		return TOPOMATCH_OK;
	int64_t cap = r->cap ? r->cap * 2 : 16;
	tm_slurm_node_t *nn = tm_alloc(cap, sizeof(*nn));
	if (!nn)
		return TOPOMATCH_ENOMEM;
	if (c->n)
		memcpy(nn, c->node, (size_t)c->n * sizeof(*nn));
	free(c->node);
	c->node = nn;
	r->cap = cap;
	return TOPOMATCH_OK;
}

/* A NodeName line other than DEFAULT: its counts, names and place. */
static int sc_add_node(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *nm,
		       const sc_counts_t *cnt)
{
	tm_slurm_node_t nd = { 0 };
	size_t at = sc_at(ln, nm->vpos);
	int rc;

	nd.names = sc_value(ln, nm);
	if (!nd.names || sc_grow_nodes(r)) {
		free(nd.names);
		return tm_err(r->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	}
	rc = sc_effective(r, f, at, nd.names, cnt, &nd);
	if (!rc)
		rc = sc_hosts(r, f, ln, nm, nd.names, &nd.hosts);
	if (rc) {
		free(nd.names);
		return rc;
	}
	nd.file = f->name;
	sc_where(f, at, &nd.line, &nd.col);
	r->c->node[r->c->n++] = nd;
	return TOPOMATCH_OK;
}

/* A DEFAULT line adds to or replaces the earlier defaults, key by key. */
static void sc_merge_default(sc_reader_t *r, const sc_counts_t *cnt)
{
	for (int k = 0; k < SC_NCOUNTS; k++) {
		if (cnt->set[k]) {
			r->dflt.v[k] = cnt->v[k];
			r->dflt.set[k] = true;
		}
	}
}

/* NodeName=... and the Key=Value pairs after it (from p). */
static int sc_nodename(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *nm,
		       size_t p)
{
	sc_counts_t cnt = { { 0 }, { false } };
	const char *v = ln->s + nm->vpos;
	bool is_default = nm->nval == 7 && !strncasecmp(v, "DEFAULT", 7);
	sc_pair_t kv;
	int rc;

	if (nm->op)
		return sc_err(r, f, sc_at(ln, nm->kpos), TOPOMATCH_EPARSE,
			      "'NodeName%c=': operators have no meaning here", nm->op);
	if (nm->nval == 3 && !strncasecmp(v, "ALL", 3))
		return sc_err(r, f, sc_at(ln, nm->vpos), TOPOMATCH_EPARSE,
			      "'%.3s' is a reserved word disallowed for use with NodeName", v);
	for (p = sc_skip_blanks(ln, p); p < ln->n; p = sc_skip_blanks(ln, p)) {
		rc = sc_pair(r, f, ln, &p, &kv);
		if (!rc)
			rc = sc_option(r, f, ln, &kv, is_default, &cnt);
		if (rc)
			return rc;
	}
	if (!is_default)
		return sc_add_node(r, f, ln, nm, &cnt);
	sc_merge_default(r, &cnt);
	return TOPOMATCH_OK;
}

/* ClusterName: lower-cased, as slurmctld stores it; the last one wins. */
static int sc_cluster_name(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, const sc_pair_t *kv)
{
	char *v = sc_value(ln, kv);

	if (!v)
		return tm_err(r->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	for (char *s = v; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	free(r->c->cluster_name);
	r->c->cluster_name = v;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Files and Include                                                   */
/* ------------------------------------------------------------------ */

static int sc_read_file(sc_reader_t *r, const char *path, int depth, sc_file_t *from,
			size_t at);

/* The include path with "%c" replaced by the cluster name; malloc'd. */
static char *sc_expand_modifiers(const char *name, const char *cluster)
{
	size_t n = strlen(name), nc = cluster ? strlen(cluster) : 0, k = 0;
	char *out = malloc(n * (nc + 1) + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '%' && name[i + 1] == 'c') {
			memcpy(out + k, cluster, nc);
			k += nc;
			i++;
		} else {
			out[k++] = name[i];
		}
	}
	out[k] = '\0';
	return out;
}

/* name relative to the directory of the including file (Slurm's _add_full_path). */
static char *sc_include_path(const char *including, const char *name)
{
	const char *slash = strrchr(including, '/');
	size_t nd = name[0] == '/' || !slash ? 0 : (size_t)(slash - including) + 1;
	size_t n = strlen(name);
	char *path = malloc(nd + n + 1);

	if (path) {
		memcpy(path, including, nd);
		memcpy(path + nd, name, n + 1);
	}
	return path;
}

/* "Include FILE" with p just after the word. */
static int sc_include(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln, size_t p)
{
	char q[SC_QUOTE_MAX + 4];
	size_t b = sc_skip_blanks(ln, p), e = b;
	int rc;

	while (e < ln->n && !sc_blank(ln->s[e]))
		e++;
	if (e == b)
		return sc_err(r, f, sc_at(ln, b), TOPOMATCH_EPARSE, "Include: missing file name");
	sc_quote(ln->s + b, e - b, q, sizeof(q));
	if (sc_skip_blanks(ln, e) < ln->n)
		return sc_err(r, f, sc_at(ln, sc_skip_blanks(ln, e)), TOPOMATCH_EPARSE,
			      "Include '%s': one file name per Include", q);
	if (memmem(ln->s + b, e - b, "%c", 2) && !r->c->cluster_name)
		return sc_err(r, f, sc_at(ln, b), TOPOMATCH_EPARSE,
			      "Include '%s': %%c needs a ClusterName line before it", q);
	if (f->depth >= TM_SLURM_MAX_INCLUDE_DEPTH)
		return sc_err(r, f, sc_at(ln, b), TOPOMATCH_ELIMIT,
			      "Include '%s': nested more than %d deep "
			      "(does a file include itself?)", q, TM_SLURM_MAX_INCLUDE_DEPTH);
	char *written = strndup(ln->s + b, e - b);
	char *name = written ? sc_expand_modifiers(written, r->c->cluster_name) : NULL;
	free(written);
	char *path = name ? sc_include_path(f->name, name) : NULL;
	if (!path)
		rc = tm_err(r->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	else
		rc = sc_read_file(r, path, f->depth + 1, f, sc_at(ln, b));
	free(name);
	free(path);
	return rc;
}

static bool sc_is_include(const sc_line_t *ln, size_t p)
{
	/* Slurm: the word, then blanks (a key like IncludeX=... is not one) */
	return ln->n - p >= 7 && !strncasecmp(ln->s + p, "include", 7) &&
	       (ln->n - p == 7 || sc_blank(ln->s[p + 7]));
}

/* One logical line: Include, NodeName, ClusterName, or a line to ignore. */
static int sc_line(sc_reader_t *r, sc_file_t *f, const sc_line_t *ln)
{
	size_t p = sc_skip_blanks(ln, 0);
	sc_pair_t kv;
	int rc;

	if (p == ln->n)
		return TOPOMATCH_OK;
	if (sc_is_include(ln, p))
		return sc_include(r, f, ln, p + 7);
	rc = sc_pair(r, f, ln, &p, &kv);
	if (rc)
		return rc;
	if (sc_key_is(ln, &kv, "NodeName"))
		return sc_nodename(r, f, ln, &kv, p);
	if (sc_key_is(ln, &kv, "ClusterName"))
		return sc_cluster_name(r, f, ln, &kv);
	return TOPOMATCH_OK; /* PartitionName, SlurmctldHost, ...: not ours */
}

static int sc_parse_buffer(sc_reader_t *r, sc_file_t *f)
{
	sc_line_t ln = { 0 };
	size_t pos = 0;
	int rc = TOPOMATCH_OK;
	const char *nul = memchr(f->buf, '\0', f->len);

	if (nul)
		return sc_err(r, f, (size_t)(nul - f->buf), TOPOMATCH_EPARSE,
			      "NUL byte (not a text file?)");
	while (!rc && pos < f->len) {
		rc = sc_next_line(f, &pos, &ln);
		if (rc)
			rc = tm_err(r->err, rc, "%s: out of memory", f->name);
		else
			rc = sc_line(r, f, &ln);
	}
	free(ln.s);
	free(ln.off);
	return rc;
}

/* Keep a copy of path in the conf (node entries point to it). */
static const char *sc_add_file(sc_reader_t *r, const char *path)
{
	tm_slurm_conf_t *c = r->c;

	if (c->nfiles == r->files_cap) {
		int64_t cap = r->files_cap ? r->files_cap * 2 : 8;
		char **nf = tm_alloc(cap, sizeof(*nf));
		if (!nf)
			return NULL;
		if (c->nfiles)
			memcpy(nf, c->files, (size_t)c->nfiles * sizeof(*nf));
		free(c->files);
		c->files = nf;
		r->files_cap = cap;
	}
	char *copy = strdup(path);
	if (copy)
		c->files[c->nfiles++] = copy;
	return copy;
}

/* Cannot open path: said at the Include (from, at) or about the main file. */
static int sc_open_error(sc_reader_t *r, const char *path, sc_file_t *from, size_t at, int e)
{
	if (!from)
		return tm_err(r->err, TOPOMATCH_EIO, "%s: cannot open: %s", path, strerror(e));
	return sc_err(r, from, at, TOPOMATCH_EIO, "Include: cannot open %s: %s", path,
		      strerror(e));
}

static int sc_read_file(sc_reader_t *r, const char *path, int depth, sc_file_t *from, size_t at)
{
	sc_file_t f = { .depth = depth, .cur_line = 1 };
	char *buf = NULL;
	FILE *fp;
	int rc;

	if (r->c->nfiles >= TM_SLURM_MAX_FILES)
		return sc_err(r, from, at, TOPOMATCH_ELIMIT,
			      "Include: more than %d files read in all", TM_SLURM_MAX_FILES);
	f.name = sc_add_file(r, path);
	if (!f.name)
		return tm_err(r->err, TOPOMATCH_ENOMEM, "%s: out of memory", path);
	fp = fopen(path, "rb");
	if (!fp)
		return sc_open_error(r, path, from, at, errno);
	rc = tm_read_all(fp, f.name, TM_SLURM_MAX_FILE_BYTES, &buf, &f.len, r->err);
	fclose(fp);
	if (rc)
		return rc;
	f.buf = buf;
	r->total_bytes += (int64_t)f.len;
	/* only an Include can go past (one file is at most a quarter of it):
	 * named there, as the other limits on files are */
	if (r->total_bytes > TM_SLURM_MAX_TOTAL_BYTES && from)
		rc = sc_err(r, from, at, TOPOMATCH_ELIMIT,
			    "Include: %s: the files read exceed the limit of %lld bytes in all",
			    f.name, (long long)TM_SLURM_MAX_TOTAL_BYTES);
	else if (r->total_bytes > TM_SLURM_MAX_TOTAL_BYTES)
		rc = tm_err(r->err, TOPOMATCH_ELIMIT,
			    "%s: the files read exceed the limit of %lld bytes in all", f.name,
			    (long long)TM_SLURM_MAX_TOTAL_BYTES);
	else
		rc = sc_parse_buffer(r, &f);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The name index                                                      */
/* ------------------------------------------------------------------ */

static uint64_t sc_hash(const char *s)
{
	uint64_t x = 14695981039346656037ULL; /* FNV-1a */

	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211ULL;
	return x;
}

/* Entry holding global name number g (binary search on first). */
static int64_t sc_entry_of(const tm_slurm_conf_t *c, int64_t g)
{
	int64_t a = 0, b = c->n - 1;

	while (a < b) {
		int64_t m = a + (b - a + 1) / 2;
		if (c->index->first[m] <= g)
			a = m;
		else
			b = m - 1;
	}
	return a;
}

/* Whether name number g is `name` (len chars); buf holds len + 2 bytes. */
static bool sc_is_name(const tm_slurm_conf_t *c, int64_t g, const char *name, size_t len,
		       char *buf)
{
	int64_t e = sc_entry_of(c, g);

	/* a name that does not fit is longer than `name` */
	if (tm_hostlist_name(c->node[e].hosts, g - c->index->first[e], buf, len + 2))
		return false;
	return !strcmp(buf, name);
}

/* slurmctld refuses a name defined twice ("Duplicated NodeHostName"). */
static int sc_duplicate(const tm_slurm_conf_t *c, int64_t g_old, int64_t e, const char *name,
			char *err)
{
	const tm_slurm_node_t *a = &c->node[sc_entry_of(c, g_old)], *b = &c->node[e];
	char q[SC_QUOTE_MAX + 4];

	sc_quote(name, strlen(name), q, sizeof(q));
	if (a == b)
		return tm_err(err, TOPOMATCH_EPARSE,
			      "%s:%lld:%lld: node '%s' is listed twice on this NodeName line "
			      "(slurmctld refuses duplicated nodes)", b->file, (long long)b->line,
			      (long long)b->col, q);
	return tm_err(err, TOPOMATCH_EPARSE,
		      "%s:%lld:%lld: node '%s' is already defined at %s:%lld:%lld "
		      "(slurmctld refuses duplicated nodes)", b->file, (long long)b->line,
		      (long long)b->col, q, a->file, (long long)a->line, (long long)a->col);
}

/* Insert name number g (entry e, text name) unless it is already there. */
static int sc_insert(tm_slurm_conf_t *c, int64_t g, int64_t e, const char *name, char *cmp,
		     char *err)
{
	struct tm_slurm_index *x = c->index;
	size_t len = strlen(name);
	uint64_t mask = (uint64_t)x->size - 1, s = sc_hash(name) & mask;

	for (; x->slot[s] >= 0; s = (s + 1) & mask)
		if (sc_is_name(c, x->slot[s], name, len, cmp))
			return sc_duplicate(c, x->slot[s], e, name, err);
	x->slot[s] = g;
	if (len > x->maxlen)
		x->maxlen = len;
	return TOPOMATCH_OK;
}

static int sc_index_alloc(tm_slurm_conf_t *c)
{
	struct tm_slurm_index *x = calloc(1, sizeof(*x));

	if (!x)
		return TOPOMATCH_ENOMEM;
	c->index = x;
	x->size = 16;
	while (x->size / 2 < c->nnames)
		x->size *= 2;
	x->slot = tm_alloc(x->size, sizeof(*x->slot));
	x->first = tm_alloc(c->n + 1, sizeof(*x->first));
	if (!x->slot || !x->first)
		return TOPOMATCH_ENOMEM;
	memset(x->slot, 0xff, (size_t)x->size * sizeof(*x->slot));
	x->first[0] = 0;
	for (int64_t e = 0; e < c->n; e++)
		x->first[e + 1] = x->first[e] + tm_hostlist_count(c->node[e].hosts);
	return TOPOMATCH_OK;
}

/* Insert the names of entry e. */
static int sc_index_entry(tm_slurm_conf_t *c, int64_t e, char *err)
{
	/* the host list parser refuses longer names */
	char name[TM_HOSTLIST_MAX_NAME + 1], cmp[TM_HOSTLIST_MAX_NAME + 2];
	int64_t cnt = tm_hostlist_count(c->node[e].hosts);

	for (int64_t i = 0; i < cnt; i++) {
		if (tm_hostlist_name(c->node[e].hosts, i, name, sizeof(name)))
			return tm_err(err, TOPOMATCH_EINVAL, "internal error: node name %lld of entry %lld is too long",
				      (long long)i, (long long)e);
		int rc = sc_insert(c, c->index->first[e] + i, e, name, cmp, err);
		if (rc)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* Hash every name once (O(names)), refusing duplicates, so lookups are O(1). */
static int sc_index_build(tm_slurm_conf_t *c, char *err)
{
	int rc = sc_index_alloc(c);

	for (int64_t e = 0; e < c->n && !rc; e++)
		rc = sc_index_entry(c, e, err);
	if (rc == TOPOMATCH_ENOMEM)
		return tm_err(err, rc, "out of memory");
	return rc;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */
/* ------------------------------------------------------------------ */

void tm_slurm_conf_free(tm_slurm_conf_t *c)
{
	if (!c)
		return;
	for (int64_t i = 0; i < c->n; i++) {
		free(c->node[i].names);
		tm_hostlist_destroy(c->node[i].hosts);
	}
	free(c->node);
	for (int64_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->cluster_name);
	if (c->index) {
		free(c->index->slot);
		free(c->index->first);
		free(c->index);
	}
	memset(c, 0, sizeof(*c));
}

int tm_slurm_conf_read(const char *path, tm_slurm_conf_t *out, char *err)
{
	sc_reader_t r = { .c = out, .err = err };
	int rc;

	if (!path || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "slurm.conf: invalid arguments");
	memset(out, 0, sizeof(*out));
	rc = sc_read_file(&r, path, 0, NULL, 0);
	if (!rc)
		rc = sc_index_build(out, err);
	if (rc)
		tm_slurm_conf_free(out);
	return rc;
}

int64_t tm_slurm_conf_find(const tm_slurm_conf_t *c, const char *name)
{
	char buf[TM_HOSTLIST_MAX_NAME + 2];

	if (!c || !c->index || !name)
		return -1;
	struct tm_slurm_index *x = c->index;
	size_t len = strlen(name);
	if (len > x->maxlen) /* at most TM_HOSTLIST_MAX_NAME */
		return -1;
	uint64_t mask = (uint64_t)x->size - 1;
	for (uint64_t s = sc_hash(name) & mask; x->slot[s] >= 0; s = (s + 1) & mask)
		if (sc_is_name(c, x->slot[s], name, len, buf))
			return sc_entry_of(c, x->slot[s]);
	return -1;
}

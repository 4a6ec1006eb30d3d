/*
 * topology_parse.c - Scotch target strings and target files ("tleaf",
 * "cmplt", "torus2D/3D/XD", "mesh2D/3D/XD", "hcub", type-2 "deco" through
 * topology_deco.c), grids with the clauses of our own ("wrap", "local",
 * "cost": grids of routers with a tree below each), with messages that
 * name the file and line.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/textscan.h"
#include "topology_deco.h"
#include "topology_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TARGETS "tleaf, cmplt, torus2D, torus3D, torusXD, mesh2D, mesh3D, meshXD, hcub, deco"

/* Parser state: Scotch files may spread a target over several lines. */
typedef struct tparse {
	tm_scan_t sc;
	const char *kw;  /* target name, for messages */
	int64_t line;    /* line of the last token read */
	int64_t got;     /* values read after the keyword */
	char *err;
} tparse_t;

static int perr(tparse_t *ps, int status, const char *fmt, ...) TM_PRINTF(3, 4);

static int perr(tparse_t *ps, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(ps->err, status, "%s:%lld: %s", ps->sc.name, (long long)ps->line, msg);
}

static bool next_token(tparse_t *ps, tm_token_t *tok)
{
	if (!tm_scan_skip_empty(&ps->sc) || !tm_scan_token(&ps->sc, tok))
		return false;
	ps->line = tok->line;
	return true;
}

/* Next value, or a "wrong number of values" error naming what was due
 * (want: how many values the target takes, 0 while still unknown). */
static int next_value(tparse_t *ps, tm_token_t *tok, const char *what, int64_t want)
{
	if (next_token(ps, tok)) {
		ps->got++;
		return TOPOMATCH_OK;
	}
	if (want <= 0)
		return perr(ps, TOPOMATCH_EPARSE, "%s: missing %s", ps->kw, what);
	return perr(ps, TOPOMATCH_EPARSE, "%s needs %lld value%s, got %lld (missing %s)",
		    ps->kw, (long long)want, want == 1 ? "" : "s", (long long)ps->got, what);
}

/* An integer size in [min, INT_MAX]; larger ones cannot fit the limits. */
static int read_int(tparse_t *ps, const char *what, int64_t want, int min, int *v)
{
	tm_token_t tok;
	char s[40];
	int64_t x;
	int rc = next_value(ps, &tok, what, want);
	if (rc)
		return rc;
	if (!tm_tok_int64(&tok, &x))
		return perr(ps, TOPOMATCH_EPARSE, "%s: %s '%s' is not an integer", ps->kw, what,
			    tm_tok_str(&tok, s, sizeof(s)));
	if (x < min)
		return perr(ps, TOPOMATCH_EPARSE, "%s: %s must be >= %d (got %lld)", ps->kw, what,
			    min, (long long)x);
	if (x > INT_MAX)
		return perr(ps, TOPOMATCH_ELIMIT, "%s: %s %lld is too large", ps->kw, what,
			    (long long)x);
	*v = (int)x;
	return TOPOMATCH_OK;
}

static bool decimal(const tm_token_t *tok)
{
	for (size_t i = 0; i < tok->len; i++)
		if (!strchr("0123456789+-.eE", tok->s[i]) || tok->s[i] == '\0')
			return false;
	return true;
}

/* A link cost: Scotch writes integers, any finite number > 0 is taken. */
static int read_cost(tparse_t *ps, const char *what, int64_t want, double *v)
{
	tm_token_t tok;
	char s[40];
	int rc = next_value(ps, &tok, what, want);
	if (rc)
		return rc;
	/* plain decimal only: strtod's hex floats are no Scotch syntax */
	if (!decimal(&tok) || !tm_tok_double(&tok, v))
		return perr(ps, TOPOMATCH_EPARSE, "%s: %s '%s' is not a number", ps->kw, what,
			    tm_tok_str(&tok, s, sizeof(s)));
	if (!isfinite(*v) || *v <= 0.0)
		return perr(ps, TOPOMATCH_EPARSE, "%s: %s must be finite and > 0 (got '%s')",
			    ps->kw, what, tm_tok_str(&tok, s, sizeof(s)));
	return TOPOMATCH_OK;
}

/* A model constructor's message gets the location of the target. */
static int model_err(tparse_t *ps, int rc, const char *msg)
{
	return perr(ps, rc, "%s: %s", ps->kw, msg);
}

/* "n a1 c1 ... an cn" of tleaf (pre "") and of a grid's "local" clause
 * (pre "local "), pre naming the values in messages. */
static int parse_levels(tparse_t *ps, const char *pre, int *n, int *arity, double *cost)
{
	char what[48];
	snprintf(what, sizeof(what), "%slevel count", pre);
	int rc = read_int(ps, what, 0, 1, n);
	if (rc)
		return rc;
	if (*n > TOPOMATCH_MAX_LEVELS)
		return perr(ps, TOPOMATCH_ELIMIT, "%s: %d %slevels (at most %d)", ps->kw, *n, pre,
			    TOPOMATCH_MAX_LEVELS);
	/* "tleaf needs N values" counts them all; a clause follows the grid's
	 * own values, so there only "missing ..." is said */
	int64_t want = *pre ? 0 : 1 + 2 * (int64_t)*n;
	for (int k = 0; k < *n && !rc; k++) {
		snprintf(what, sizeof(what), "%sarity of level %d", pre, k + 1);
		rc = read_int(ps, what, want, 1, &arity[k]);
		snprintf(what, sizeof(what), "%slink cost of level %d", pre, k + 1);
		if (!rc)
			rc = read_cost(ps, what, want, &cost[k]);
	}
	return rc;
}

static int parse_tleaf(tparse_t *ps, topomatch_topology_t **out)
{
	int n, arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];
	char msg[TOPOMATCH_ERRLEN];
	int rc = parse_levels(ps, "", &n, arity, cost);
	if (!rc && (rc = topomatch_topology_tree(n, arity, cost, out, msg)))
		rc = model_err(ps, rc, msg);
	return rc;
}

/* Scotch's complete graph of n terminals: one switch above n PUs, a tree
 * of one level (what `topo export --scotch` writes for one PU, where
 * Scotch reads no tleaf).  Distances count the switch's two links, as on
 * every tree here: 2 hops where Scotch counts 1, the same mappings. */
static int parse_cmplt(tparse_t *ps, topomatch_topology_t **out)
{
	int n;
	double cost = 1.0;
	char msg[TOPOMATCH_ERRLEN];
	int rc = read_int(ps, "terminal count", 1, 1, &n);
	if (!rc && (rc = topomatch_topology_tree(1, &n, &cost, out, msg)))
		rc = model_err(ps, rc, msg);
	return rc;
}

/* What a torus or mesh target says: the router grid and its clauses. */
typedef struct grid_spec {
	int ndims;
	int dims[TOPOMATCH_MAX_DIMS];
	unsigned char wrap[TOPOMATCH_MAX_DIMS];
	int nlevels;
	int arity[TOPOMATCH_MAX_LEVELS];
	double cost[TOPOMATCH_MAX_LEVELS];
	double grid_cost;
	unsigned seen; /* clauses read, one bit each */
} grid_spec_t;

/* Sizes of ndims dimensions (ndims read first when `explicit`). */
static int parse_dims(tparse_t *ps, bool explicit, grid_spec_t *g)
{
	char what[48];
	int rc;
	if (explicit) {
		rc = read_int(ps, "dimension count", 0, 1, &g->ndims);
		if (rc)
			return rc;
		if (g->ndims > TOPOMATCH_MAX_DIMS)
			return perr(ps, TOPOMATCH_ELIMIT, "%s: %d dimensions (at most %d)", ps->kw,
				    g->ndims, TOPOMATCH_MAX_DIMS);
	}
	for (int k = 0; k < g->ndims; k++) {
		snprintf(what, sizeof(what), "size of dimension %d", k + 1);
		rc = read_int(ps, what, g->ndims + (explicit ? 1 : 0), 1, &g->dims[k]);
		if (rc)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* "wrap w1 ... wn": 0 or 1 per dimension, after a mesh only (a torus
 * wraps everywhere: a clause that could contradict its name is refused). */
static int parse_wrap(tparse_t *ps, grid_spec_t *g)
{
	char what[48];
	int w;
	if (g->wrap[0])
		return perr(ps, TOPOMATCH_EPARSE, "%s: 'wrap' only follows a mesh target "
			    "(every dimension of a torus wraps)", ps->kw);
	for (int k = 0; k < g->ndims; k++) {
		snprintf(what, sizeof(what), "wrap of dimension %d", k + 1);
		int rc = read_int(ps, what, 0, 0, &w);
		if (rc)
			return rc;
		if (w > 1)
			return perr(ps, TOPOMATCH_EPARSE, "%s: %s must be 0 or 1 (got %d)", ps->kw,
				    what, w);
		g->wrap[k] = (unsigned char)w;
	}
	return TOPOMATCH_OK;
}

enum { CLAUSE_WRAP = 1, CLAUSE_LOCAL = 2, CLAUSE_COST = 4 };

/* One clause after the grid, named by kw; false when kw names none. */
static bool parse_clause(tparse_t *ps, const tm_token_t *kw, grid_spec_t *g, int *rc)
{
	static const struct {
		const char *name;
		unsigned bit;
	} clauses[] = {
		{ "wrap", CLAUSE_WRAP },
		{ "local", CLAUSE_LOCAL },
		{ "cost", CLAUSE_COST },
	};
	for (size_t i = 0; i < sizeof(clauses) / sizeof(clauses[0]); i++) {
		const char *name = clauses[i].name;
		if (kw->len != strlen(name) || memcmp(kw->s, name, kw->len) != 0)
			continue;
		if (g->seen & clauses[i].bit)
			*rc = perr(ps, TOPOMATCH_EPARSE, "%s: '%s' given twice", ps->kw, name);
		else if (clauses[i].bit == CLAUSE_WRAP)
			*rc = parse_wrap(ps, g);
		else if (clauses[i].bit == CLAUSE_LOCAL)
			*rc = parse_levels(ps, "local ", &g->nlevels, g->arity, g->cost);
		else
			*rc = read_cost(ps, "router link cost", 0, &g->grid_cost);
		g->seen |= clauses[i].bit;
		return true;
	}
	return false;
}

/* Clauses until the end; anything else is trailing garbage. */
static int parse_clauses(tparse_t *ps, grid_spec_t *g)
{
	tm_token_t kw;
	char s[40];
	int rc = TOPOMATCH_OK;
	while (!rc && next_token(ps, &kw)) {
		if (!parse_clause(ps, &kw, g, &rc))
			return perr(ps, TOPOMATCH_EPARSE,
				    "trailing garbage '%s' after the %s target",
				    tm_tok_str(&kw, s, sizeof(s)), ps->kw);
	}
	return rc;
}

static int parse_grid(tparse_t *ps, int ndims, bool explicit, int wrap,
		      topomatch_topology_t **out)
{
	grid_spec_t g = { .ndims = ndims, .grid_cost = 1.0 };
	char msg[TOPOMATCH_ERRLEN];
	memset(g.wrap, wrap ? 1 : 0, sizeof(g.wrap));
	int rc = parse_dims(ps, explicit, &g);
	if (!rc)
		rc = parse_clauses(ps, &g);
	if (!rc && (rc = topomatch_topology_grid_tree(g.ndims, g.dims, g.wrap, g.nlevels,
						      g.arity, g.cost, g.grid_cost, out, msg)))
		rc = model_err(ps, rc, msg);
	return rc;
}

static int parse_hcub(tparse_t *ps, topomatch_topology_t **out)
{
	int d;
	char msg[TOPOMATCH_ERRLEN];
	int rc = read_int(ps, "dimension", 1, 1, &d);
	if (!rc && (rc = topomatch_topology_hcub(d, out, msg)))
		rc = model_err(ps, rc, msg);
	return rc;
}

static bool tok_is(const tm_token_t *tok, const char *s)
{
	return tok->len == strlen(s) && memcmp(tok->s, s, tok->len) == 0;
}

static int parse_target(tparse_t *ps, const tm_token_t *kw, topomatch_topology_t **out)
{
	static const struct {
		const char *name;
		int ndims; /* 0: tleaf, -1: hcub, -2: XD (count given), -3: cmplt */
		int wrap;
	} targets[] = {
		{ "tleaf", 0, 0 },    { "torus2D", 2, 1 }, { "torus3D", 3, 1 },
		{ "torusXD", -2, 1 }, { "mesh2D", 2, 0 },  { "mesh3D", 3, 0 },
		{ "meshXD", -2, 0 },  { "hcub", -1, 0 },   { "cmplt", -3, 0 },
	};
	char s[40];
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		if (!tok_is(kw, targets[i].name))
			continue;
		ps->kw = targets[i].name;
		if (targets[i].ndims == 0)
			return parse_tleaf(ps, out);
		if (targets[i].ndims == -1)
			return parse_hcub(ps, out);
		if (targets[i].ndims == -3)
			return parse_cmplt(ps, out);
		return parse_grid(ps, targets[i].ndims, targets[i].ndims < 0, targets[i].wrap,
				  out);
	}
	if (tok_is(kw, "deco")) {
		/* what topo export writes for graphs and grids of multi-core
		 * nodes: type 2, read as the graph it carries */
		ps->kw = "deco";
		int rc = tm_topology_parse_deco(&ps->sc, kw->line, out, ps->err);
		ps->line = ps->sc.line;
		return rc;
	}
	return perr(ps, TOPOMATCH_EPARSE, "unknown target '%s' (expected %s)",
		    tm_tok_str(kw, s, sizeof(s)), TARGETS);
}

int tm_topology_parse_buf(const char *buf, size_t len, const char *name,
			  topomatch_topology_t **out, char *err)
{
	tparse_t ps = { .err = err, .line = 1 };
	tm_token_t kw, extra;
	char s[40];
	const char *nul = memchr(buf, '\0', len);
	*out = NULL;
	tm_scan_init(&ps.sc, buf, len, name ? name : "topology", "#");
	if (nul) {
		for (const char *c = buf; c < nul; c++)
			ps.line += *c == '\n';
		return perr(&ps, TOPOMATCH_EPARSE, "NUL byte in the target text");
	}
	if (!next_token(&ps, &kw))
		return perr(&ps, TOPOMATCH_EPARSE, "empty target (expected %s)", TARGETS);
	int rc = parse_target(&ps, &kw, out);
	if (rc)
		return rc;
	if (next_token(&ps, &extra)) {
		topomatch_topology_destroy(*out);
		*out = NULL;
		return perr(&ps, TOPOMATCH_EPARSE, "trailing garbage '%s' after the %s target",
			    tm_tok_str(&extra, s, sizeof(s)), ps.kw);
	}
	return TOPOMATCH_OK;
}

int topomatch_topology_parse(const char *text, const char *name, topomatch_topology_t **out,
			     char *err)
{
	if (!text) {
		*out = NULL;
		return tm_err(err, TOPOMATCH_EINVAL, "no target text");
	}
	return tm_topology_parse_buf(text, strlen(text), name, out, err);
}

int topomatch_topology_parse_buffer(const char *buf, size_t len, const char *name,
				    topomatch_topology_t **out, char *err)
{
	if (!buf) {
		*out = NULL;
		return tm_err(err, TOPOMATCH_EINVAL, "no target text");
	}
	return tm_topology_parse_buf(buf, len, name, out, err);
}

static int load_file(const char *path, topomatch_topology_t **out, char *err)
{
	char *buf;
	size_t len;
	FILE *f = fopen(path, "r");
	if (!f)
		return tm_err(err, TOPOMATCH_EIO, "%s: cannot open: %s", path, strerror(errno));
	/* not TM_MAX_TOPOLOGY_BYTES (1 MiB, enough for a target string): the
	 * "deco" of a large machine is megabytes, and the command line reads
	 * up to --max-bytes (default this) */
	int rc = tm_read_all(f, path, TOPOMATCH_DEFAULT_MAX_BYTES, &buf, &len, err);
	fclose(f);
	if (rc)
		return rc;
	rc = tm_topology_parse_buf(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* A path of a regular file wins over the literal reading of `arg`. */
int topomatch_topology_load(const char *arg, topomatch_topology_t **out, char *err)
{
	struct stat st;
	*out = NULL;
	if (!arg)
		return tm_err(err, TOPOMATCH_EINVAL, "no topology given");
	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return load_file(arg, out, err);
	int rc = topomatch_topology_parse(arg, "topology", out, err);
	/* one word that is no target was most likely meant as a file name */
	if (rc == TOPOMATCH_EPARSE && err && !strpbrk(arg, " \t\r\n") &&
	    strstr(err, "unknown target"))
		tm_err(err, rc, "topology:1: unknown target '%.200s', and no file of that name "
			       "(expected %s)", arg, TARGETS);
	return rc;
}

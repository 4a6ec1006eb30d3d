/*
 * affinity_reader.c - the helpers every pattern reader (affinity_dense.c,
 * affinity_mm.c, affinity_triplets.c, affinity_grf.c) shares: the same
 * "NAME:LINE: what is wrong" messages, checked numbers and task counts,
 * the entries collected; and the triplets' "# tasks N" line, which format
 * detection (affinity_read.c) recognises too.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_reader.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Messages and token helpers shared by the readers                    */
/* ------------------------------------------------------------------ */

int tm_rd_fail(const struct tm_rd *rd, int64_t line, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(rd->err, status, "%s:%lld: %s", rd->name, (long long)line, msg);
}

int64_t tm_rd_eof_line(const struct tm_rd *rd, const tm_scan_t *sc)
{
	if (tm_scan_at_eof(sc) && sc->end > rd->buf && sc->end[-1] == '\n' && sc->line > 1)
		return sc->line - 1;
	return sc->line;
}

int tm_rd_weight(const struct tm_rd *rd, const tm_token_t *t, const char *what, double *w)
{
	char s[64];
	double x;

	if (!tm_tok_double(t, &x))
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "not a number: '%s'",
				  tm_tok_str(t, s, sizeof(s)));
	if (!isfinite(x))
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "%s must be finite: '%s'", what,
				  tm_tok_str(t, s, sizeof(s)));
	if (x < 0.0)
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "negative %s: '%s'", what,
				  tm_tok_str(t, s, sizeof(s)));
	*w = x;
	return TOPOMATCH_OK;
}

static bool tok_is_integer(const tm_token_t *t)
{
	size_t i = (t->len > 0 && (t->s[0] == '-' || t->s[0] == '+')) ? 1 : 0;

	if (i == t->len)
		return false;
	for (; i < t->len; i++)
		if (t->s[i] < '0' || t->s[i] > '9')
			return false;
	return true;
}

int tm_rd_int(const struct tm_rd *rd, const tm_token_t *t, const char *what, int64_t *v)
{
	char s[64];
	double x;

	if (tm_tok_int64(t, v))
		return TOPOMATCH_OK;
	tm_tok_str(t, s, sizeof(s));
	/* digits that do not fit in 64 bits are beyond any limit */
	if (tok_is_integer(t))
		return tm_rd_fail(rd, t->line, TOPOMATCH_ELIMIT, "%s '%s' is out of range", what,
				  s);
	if (tm_tok_double(t, &x))
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "%s must be an integer: '%s'",
				  what, s);
	return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "not a number: '%s'", s);
}

int tm_rd_check_tasks(const struct tm_rd *rd, int64_t line, int64_t ntasks)
{
	if (ntasks < 1)
		return tm_rd_fail(rd, line, TOPOMATCH_EPARSE,
				  "a pattern needs at least one task (got %lld)",
				  (long long)ntasks);
	if (ntasks > rd->lim.max_tasks)
		return tm_rd_fail(rd, line, TOPOMATCH_ELIMIT,
				  "%lld tasks: more than the limit of %lld tasks",
				  (long long)ntasks, (long long)rd->lim.max_tasks);
	return TOPOMATCH_OK;
}

int tm_rd_push(struct tm_rd *rd, int64_t line, int64_t src, int64_t dst, double w)
{
	if (src == dst || w == 0.0)
		return TOPOMATCH_OK;
	int rc = tm_coo_push(&rd->coo, src, dst, w, rd->lim.max_nnz);
	if (rc == TOPOMATCH_ELIMIT)
		return tm_rd_fail(rd, line, rc, "more than %lld non-zeros (limit)",
				  (long long)rd->lim.max_nnz);
	if (rc != TOPOMATCH_OK)
		return tm_rd_fail(rd, line, rc, "out of memory after %lld non-zeros",
				  (long long)rd->coo.n);
	return TOPOMATCH_OK;
}

/* Exact form: '#', "tasks", one unsigned integer, nothing else. */
bool tm_triplets_directive(const char *p, const char *end, int64_t *n)
{
	p = tm_skip_blank(p, end);
	if (p == end || *p != '#')
		return false;
	p = tm_skip_blank(p + 1, end);
	if (end - p < 5 || memcmp(p, "tasks", 5) != 0)
		return false;
	const char *q = tm_skip_blank(p + 5, end);
	if (q == p + 5 || q == end || *q < '0' || *q > '9')
		return false;
	int64_t v = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		int d = *q - '0';
		v = v > (INT64_MAX - d) / 10 ? INT64_MAX : v * 10 + d;
	}
	q = tm_skip_blank(q, end);
	if (q < end && *q != '\n')
		return false;
	*n = v;
	return true;
}

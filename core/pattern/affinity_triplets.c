/*
 * affinity_triplets.c - reader of "i j w" lines: task i sends w to task j,
 * 0-based, '#' comments, blank lines allowed, duplicates summed.
 *
 * The number of tasks is the largest index + 1, which loses tasks that
 * communicate with nobody at the end of the range.  A comment line of the
 * exact form "# tasks N" (anywhere, usually first; at most one) sets it
 * to N instead, and then an index >= N is an error.  The writer always
 * emits that line, so a round trip keeps isolated trailing tasks.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_formats.h"

struct tri_state {
	int64_t declared;   /* N of "# tasks N", or -1 */
	int64_t decl_line;
	int64_t maxidx;     /* largest index seen, or -1 */
	int64_t max_line;   /* where it was first seen */
};

static int out_of_declared(struct tm_rd *rd, int64_t line, int64_t idx,
			   const struct tri_state *st)
{
	return tm_rd_fail(rd, line, TOPOMATCH_EPARSE,
			  "task index %lld out of range [0, %lld) set by '# tasks %lld' "
			  "on line %lld",
			  (long long)idx, (long long)st->declared, (long long)st->declared,
			  (long long)st->decl_line);
}

static int tri_directive(struct tm_rd *rd, struct tri_state *st, int64_t line, int64_t n)
{
	if (st->declared >= 0)
		return tm_rd_fail(rd, line, TOPOMATCH_EPARSE,
				  "second '# tasks' line (the first is line %lld)",
				  (long long)st->decl_line);
	int rc = tm_rd_check_tasks(rd, line, n);
	if (rc != TOPOMATCH_OK)
		return rc;
	st->declared = n;
	st->decl_line = line;
	/* entries before the directive were not checked against it */
	if (st->maxidx >= n)
		return out_of_declared(rd, st->max_line, st->maxidx, st);
	return TOPOMATCH_OK;
}

static int tri_index(struct tm_rd *rd, const tm_token_t *t, struct tri_state *st, int64_t *v)
{
	int rc = tm_rd_int(rd, t, "task index", v);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (*v < 0)
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "negative task index %lld",
				  (long long)*v);
	if (st->declared >= 0 && *v >= st->declared)
		return out_of_declared(rd, t->line, *v, st);
	if (*v >= rd->lim.max_tasks)
		return tm_rd_fail(rd, t->line, TOPOMATCH_ELIMIT,
				  "task index %lld: more than the limit of %lld tasks",
				  (long long)*v, (long long)rd->lim.max_tasks);
	if (*v > st->maxidx) {
		st->maxidx = *v;
		st->max_line = t->line;
	}
	return TOPOMATCH_OK;
}

static int tri_line(struct tm_rd *rd, tm_scan_t *sc, struct tri_state *st)
{
	int64_t got = tm_scan_count_line(sc), i, j;
	tm_token_t t;
	double w;
	int rc;

	if (got == 0)
		return TOPOMATCH_OK;
	if (got != 3)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE,
				  "expected 'i j w', got %lld fields", (long long)got);
	tm_scan_token(sc, &t);
	rc = tri_index(rd, &t, st, &i);
	if (rc != TOPOMATCH_OK)
		return rc;
	tm_scan_token(sc, &t);
	rc = tri_index(rd, &t, st, &j);
	if (rc != TOPOMATCH_OK)
		return rc;
	tm_scan_token(sc, &t);
	rc = tm_rd_weight(rd, &t, "weight", &w);
	return rc != TOPOMATCH_OK ? rc : tm_rd_push(rd, t.line, i, j, w);
}

int tm_read_triplets(struct tm_rd *rd)
{
	struct tri_state st = { .declared = -1, .maxidx = -1 };
	tm_scan_t sc;
	int64_t n;
	int rc;

	tm_scan_init(&sc, rd->buf, rd->len, rd->name, "#");
	do {
		if (tm_triplets_directive(sc.p, sc.end, &n))
			rc = tri_directive(rd, &st, sc.line, n);
		else
			rc = tri_line(rd, &sc, &st);
		if (rc != TOPOMATCH_OK)
			return rc;
	} while (tm_scan_next_line(&sc));
	if (st.declared < 0 && st.maxidx < 0)
		return tm_rd_fail(rd, tm_rd_eof_line(rd, &sc), TOPOMATCH_EPARSE,
				  "empty pattern: no 'i j w' lines");
	rd->ntasks = st.declared >= 0 ? st.declared : st.maxidx + 1;
	return TOPOMATCH_OK;
}

/*
 * affinity_dense.c - reader of TopoMatch's dense format: n lines of n
 * numbers, row i = what task i sends to every task.  Blank lines and '#'
 * comments are allowed.  Rows stream into the entry list with zeros
 * skipped, so a big sparse matrix never costs n x n memory.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_formats.h"

struct dense_shape {
	int64_t n;     /* numbers per row, from the first row */
	int64_t first; /* line of the first row */
};

static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

static int ragged(struct tm_rd *rd, int64_t line, int64_t row, int64_t count,
		  const struct dense_shape *sh)
{
	return tm_rd_fail(rd, line, TOPOMATCH_EPARSE,
			  "row %lld has %lld number%s, but the first row (line %lld) has %lld",
			  (long long)row + 1, (long long)count, plural(count),
			  (long long)sh->first, (long long)sh->n);
}

/* A single "0" or "1" first line is more often a Scotch graph header. */
static int too_many_rows(struct tm_rd *rd, int64_t line, const struct dense_shape *sh)
{
	return tm_rd_fail(rd, line, TOPOMATCH_EPARSE,
			  "too many rows: the first row (line %lld) has %lld number%s, so the "
			  "matrix has %lld row%s%s",
			  (long long)sh->first, (long long)sh->n, plural(sh->n),
			  (long long)sh->n, plural(sh->n),
			  sh->n == 1 ? " (if this is a Scotch graph, read it as grf)" : "");
}

static int dense_row(struct tm_rd *rd, tm_scan_t *sc, int64_t row, const struct dense_shape *sh)
{
	tm_token_t t;
	int64_t j = 0;
	double w;
	int rc;

	while (tm_scan_token(sc, &t)) {
		if (j == sh->n)
			return ragged(rd, t.line, row, sh->n + 1 + tm_scan_count_line(sc), sh);
		rc = tm_rd_weight(rd, &t, "weight", &w);
		if (rc == TOPOMATCH_OK)
			rc = tm_rd_push(rd, t.line, row, j, w);
		if (rc != TOPOMATCH_OK)
			return rc;
		j++;
	}
	if (j != sh->n)
		return ragged(rd, sc->line, row, j, sh);
	return TOPOMATCH_OK;
}

int tm_read_dense(struct tm_rd *rd)
{
	struct dense_shape sh;
	tm_scan_t sc;
	int64_t row = 0, last;
	int rc;

	tm_scan_init(&sc, rd->buf, rd->len, rd->name, "#");
	if (!tm_scan_skip_empty(&sc))
		return tm_rd_fail(rd, tm_rd_eof_line(rd, &sc), TOPOMATCH_EPARSE,
				  "empty pattern: no rows");
	sh.first = sc.line;
	sh.n = tm_scan_count_line(&sc);
	rc = tm_rd_check_tasks(rd, sc.line, sh.n);
	if (rc != TOPOMATCH_OK)
		return rc;
	do {
		if (row == sh.n)
			return too_many_rows(rd, sc.line, &sh);
		last = sc.line;
		rc = dense_row(rd, &sc, row++, &sh);
		if (rc != TOPOMATCH_OK)
			return rc;
	} while (tm_scan_next_line(&sc) && tm_scan_skip_empty(&sc));
	if (row < sh.n)
		return tm_rd_fail(rd, last, TOPOMATCH_EPARSE,
				  "too few rows: %lld, but the first row (line %lld) has "
				  "%lld numbers",
				  (long long)row, (long long)sh.first, (long long)sh.n);
	rd->ntasks = sh.n;
	return TOPOMATCH_OK;
}

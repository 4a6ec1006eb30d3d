/*
 * affinity_mm.c - reader of Matrix Market coordinate files:
 *   %%MatrixMarket matrix coordinate real|integer|pattern general|symmetric
 *   % comments
 *   M N NNZ
 *   i j [w]      (NNZ lines, 1-based; pattern entries weigh 1)
 * A symmetric file lists one triangle; each off-diagonal entry is
 * mirrored, so C(j,i) = C(i,j).  Duplicates are summed like everywhere.
 * "integer" and "real" are read alike (any finite number >= 0).  The
 * banner words are refused when the definition has them but a pattern
 * cannot use them (array, complex, hermitian, skew-symmetric).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_formats.h"

#include <string.h>
#include <strings.h>

struct mm_info {
	bool pattern;
	bool symmetric;
	int64_t n;
	int64_t nnz;
	int64_t size_line;
};

/* Banner words are case-insensitive in the Matrix Market definition. */
static bool tok_is(const tm_token_t *t, const char *word)
{
	size_t len = strlen(word);
	return t->len == len && strncasecmp(t->s, word, len) == 0;
}

/*
 * A banner word we do not take: the ones the Matrix Market definition
 * has ("array", "complex", ...) are valid files this reader does not
 * support; anything else is a malformed banner.
 */
static int mm_refuse(struct tm_rd *rd, const tm_token_t *t, const char *const *known,
		     const char *use)
{
	char s[64];

	tm_tok_str(t, s, sizeof(s));
	for (; *known; known++)
		if (tok_is(t, *known))
			return tm_rd_fail(rd, t->line, TOPOMATCH_EUNSUPPORTED,
					  "Matrix Market '%s' is not supported (use %s)", s, use);
	return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE,
			  "unknown Matrix Market banner word '%s' (expected %s)", s, use);
}

static int mm_banner_words(struct tm_rd *rd, const tm_token_t *t, struct mm_info *mi)
{
	static const char *const objects[] = { "vector", NULL };
	static const char *const layouts[] = { "array", NULL };
	static const char *const fields[] = { "complex", NULL };
	static const char *const symmetries[] = { "hermitian", "skew-symmetric", NULL };

	if (!tok_is(&t[1], "matrix"))
		return mm_refuse(rd, &t[1], objects, "matrix");
	if (!tok_is(&t[2], "coordinate"))
		return mm_refuse(rd, &t[2], layouts, "coordinate");
	mi->pattern = tok_is(&t[3], "pattern");
	if (!mi->pattern && !tok_is(&t[3], "real") && !tok_is(&t[3], "integer"))
		return mm_refuse(rd, &t[3], fields, "real, integer or pattern");
	mi->symmetric = tok_is(&t[4], "symmetric");
	if (!mi->symmetric && !tok_is(&t[4], "general"))
		return mm_refuse(rd, &t[4], symmetries, "general or symmetric");
	return TOPOMATCH_OK;
}

static int mm_banner(struct tm_rd *rd, tm_scan_t *sc, struct mm_info *mi)
{
	tm_token_t t[5];
	int n = 0;

	if (!tm_scan_skip_empty(sc))
		return tm_rd_fail(rd, tm_rd_eof_line(rd, sc), TOPOMATCH_EPARSE,
				  "empty pattern: no %%%%MatrixMarket banner");
	while (n < 5 && tm_scan_token(sc, &t[n]))
		n++;
	if (n == 0 || !tok_is(&t[0], "%%MatrixMarket"))
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE,
				  "not a Matrix Market file: the first line must start with "
				  "%%%%MatrixMarket");
	if (n < 5 || tm_scan_count_line(sc) != 0)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE,
				  "expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
	return mm_banner_words(rd, t, mi);
}

static int mm_size(struct tm_rd *rd, tm_scan_t *sc, struct mm_info *mi)
{
	static const char *const what[3] = { "row count", "column count", "entry count" };
	int64_t v[3];
	tm_token_t t;
	int rc;

	mi->size_line = sc->line;
	if (tm_scan_count_line(sc) != 3)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE,
				  "expected the size line 'M N NNZ', got %lld fields",
				  (long long)tm_scan_count_line(sc));
	for (int k = 0; k < 3; k++) {
		tm_scan_token(sc, &t);
		rc = tm_rd_int(rd, &t, what[k], &v[k]);
		if (rc != TOPOMATCH_OK)
			return rc;
		if (v[k] < 0)
			return tm_rd_fail(rd, t.line, TOPOMATCH_EPARSE, "negative %s %lld", what[k],
					  (long long)v[k]);
	}
	if (v[0] != v[1])
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE,
				  "a pattern is square, this matrix is %lld x %lld",
				  (long long)v[0], (long long)v[1]);
	rc = tm_rd_check_tasks(rd, sc->line, v[0]);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (v[2] > rd->lim.max_nnz)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_ELIMIT,
				  "more than %lld non-zeros (limit)", (long long)rd->lim.max_nnz);
	mi->n = v[0];
	mi->nnz = v[2];
	return TOPOMATCH_OK;
}

static int mm_index(struct tm_rd *rd, const tm_token_t *t, const char *what,
		    const struct mm_info *mi, int64_t *v)
{
	int rc = tm_rd_int(rd, t, what, v);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (*v < 1 || *v > mi->n)
		return tm_rd_fail(rd, t->line, TOPOMATCH_EPARSE, "%s %lld out of range [1, %lld]",
				  what, (long long)*v, (long long)mi->n);
	(*v)--;
	return TOPOMATCH_OK;
}

static int mm_entry(struct tm_rd *rd, tm_scan_t *sc, const struct mm_info *mi)
{
	int64_t want = mi->pattern ? 2 : 3, got = tm_scan_count_line(sc), i, j;
	double w = 1.0;
	tm_token_t t;
	int rc;

	if (got != want)
		return tm_rd_fail(rd, sc->line, TOPOMATCH_EPARSE, "expected '%s', got %lld fields",
				  mi->pattern ? "i j" : "i j w", (long long)got);
	tm_scan_token(sc, &t);
	rc = mm_index(rd, &t, "row index", mi, &i);
	if (rc != TOPOMATCH_OK)
		return rc;
	tm_scan_token(sc, &t);
	rc = mm_index(rd, &t, "column index", mi, &j);
	if (rc == TOPOMATCH_OK && !mi->pattern) {
		tm_scan_token(sc, &t);
		rc = tm_rd_weight(rd, &t, "weight", &w);
	}
	if (rc == TOPOMATCH_OK)
		rc = tm_rd_push(rd, t.line, i, j, w);
	if (rc == TOPOMATCH_OK && mi->symmetric)
		rc = tm_rd_push(rd, t.line, j, i, w);
	return rc;
}

/* Next line with data (after the current one); false at end of input. */
static bool next_data_line(tm_scan_t *sc)
{
	return tm_scan_next_line(sc) && tm_scan_skip_empty(sc);
}

int tm_read_mm(struct tm_rd *rd)
{
	struct mm_info mi = { 0 };
	tm_scan_t sc;
	int64_t k = 0, last;
	int rc;

	/* the banner starts with '%': comments only begin after it */
	tm_scan_init(&sc, rd->buf, rd->len, rd->name, "");
	rc = mm_banner(rd, &sc, &mi);
	if (rc != TOPOMATCH_OK)
		return rc;
	sc.comments = "%";
	if (!next_data_line(&sc))
		return tm_rd_fail(rd, tm_rd_eof_line(rd, &sc), TOPOMATCH_EPARSE,
				  "missing the size line 'M N NNZ'");
	rc = mm_size(rd, &sc, &mi);
	last = sc.line;
	while (rc == TOPOMATCH_OK && next_data_line(&sc)) {
		if (k == mi.nnz)
			return tm_rd_fail(rd, sc.line, TOPOMATCH_EPARSE,
					  "more entries than the %lld declared on line %lld",
					  (long long)mi.nnz, (long long)mi.size_line);
		rc = mm_entry(rd, &sc, &mi);
		last = sc.line;
		k++;
	}
	if (rc != TOPOMATCH_OK)
		return rc;
	if (k < mi.nnz)
		return tm_rd_fail(rd, last, TOPOMATCH_EPARSE,
				  "only %lld of the %lld entries declared on line %lld",
				  (long long)k, (long long)mi.nnz, (long long)mi.size_line);
	rd->ntasks = mi.n;
	return TOPOMATCH_OK;
}

/*
 * affinity_read.c - front end of the pattern readers: bounded input,
 * format names and detection, and the reader of each format
 * (affinity_dense.c, ...; their shared helpers are affinity_reader.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "affinity_formats.h"
#include "pattern_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const format_names[] = {
	[TOPOMATCH_FORMAT_AUTO] = "auto",
	[TOPOMATCH_FORMAT_DENSE] = "dense",
	[TOPOMATCH_FORMAT_MM] = "mm",
	[TOPOMATCH_FORMAT_TRIPLETS] = "triplets",
	[TOPOMATCH_FORMAT_GRF] = "grf",
};

#define NFORMATS ((int)(sizeof(format_names) / sizeof(format_names[0])))

int topomatch_format_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int f = 0; f < NFORMATS; f++)
		if (strcmp(name, format_names[f]) == 0)
			return f;
	return -1;
}

/* Never NULL, so that callers can print it without checking. */
const char *topomatch_format_name(int format)
{
	if (format < 0 || format >= NFORMATS)
		return "unknown";
	return format_names[format];
}

/* ------------------------------------------------------------------ */
/* Format detection                                                    */
/* ------------------------------------------------------------------ */

static bool tok_nonneg_int(const tm_token_t *t)
{
	int64_t v;
	return tm_tok_int64(t, &v) && v >= 0;
}

static bool starts_mm_banner(const char *buf, size_t len)
{
	static const char banner[] = "%%MatrixMarket";
	const char *p, *end = buf + len;

	for (p = tm_skip_blank(buf, end); p < end && *p == '\n'; p = tm_skip_blank(p + 1, end))
		;
	return (size_t)(end - p) >= sizeof(banner) - 1 &&
	       strncasecmp(p, banner, sizeof(banner) - 1) == 0;
}

/* Next non-empty line has `ntok` tokens; leaves sc on it with toks read. */
static bool grf_line(tm_scan_t *sc, int ntok, tm_token_t *toks)
{
	if (!tm_scan_skip_empty(sc) || tm_scan_count_line(sc) != ntok)
		return false;
	for (int i = 0; i < ntok; i++)
		tm_scan_token(sc, &toks[i]);
	tm_scan_next_line(sc);
	return true;
}

static bool looks_like_grf(const char *buf, size_t len)
{
	tm_scan_t sc;
	tm_token_t t[2];

	tm_scan_init(&sc, buf, len, NULL, "#");
	if (!grf_line(&sc, 1, t) || t[0].len != 1 || t[0].s[0] != '0')
		return false;
	if (!grf_line(&sc, 2, t) || !tok_nonneg_int(&t[0]) || !tok_nonneg_int(&t[1]))
		return false;
	if (!grf_line(&sc, 2, t) || !tok_nonneg_int(&t[0]) || t[1].len != 3)
		return false;
	for (int i = 0; i < 3; i++)
		if (t[1].s[i] != '0' && t[1].s[i] != '1')
			return false;
	return true;
}

/* A line with 3 tokens, the first two non-negative integers; *zero: its
 * token `col` is the number 0 (a dense row's diagonal entry, see below). */
static bool triplet_shaped(tm_scan_t *sc, bool *data, int col, bool *zero)
{
	tm_token_t t[3];
	int n = 0;
	double x;

	while (n < 3 && tm_scan_token(sc, &t[n]))
		n++;
	*data = n > 0;
	if (n == 0)
		return true;
	*zero = col < n && tm_tok_double(&t[col], &x) && x == 0.0;
	return n == 3 && tm_scan_count_line(sc) == 0 && tok_nonneg_int(&t[0]) &&
	       tok_nonneg_int(&t[1]);
}

/*
 * Auto-detection, first rule that matches:
 *  1. the first non-blank line starts with "%%MatrixMarket" -> mm;
 *  2. the first three data lines are "0", two non-negative integers, and a
 *     non-negative integer with a 3-digit 0/1 flag ("0 000", "1 011")
 *     -> grf (Scotch writes its header this way);
 *  3. a "# tasks N" line anywhere -> triplets;
 *  4. every data line has exactly 3 tokens, the first two non-negative
 *     integers, and there are not exactly 3 data lines -> triplets;
 *     3 such lines are the one shape that is also a valid dense matrix
 *     (3 x 3), and there dense wins: write "# tasks N" to say otherwise;
 *     but when the first lines have a zero where a dense row has its
 *     diagonal (line k's token k, k < 3) the file is as likely a dense
 *     matrix that is not square (a 3-column matrix, a stray row: issue
 *     21 saw "0 1 2 / 1 0 3" read as 2 tasks without a word): ambiguous,
 *     refused by the readers under auto-detection;
 *  5. otherwise dense (whose reader then says what is wrong, if anything).
 * Data lines are lines with a token outside '#' comments.
 */
int tm_affinity_detect_why(const char *buf, size_t len, const char **why, bool *ambiguous)
{
	tm_scan_t sc;
	int64_t n, datalines = 0;
	bool shaped = true, data, zero = false, diag = true;
	const char *dummy;

	why = why ? why : &dummy;
	if (ambiguous)
		*ambiguous = false;
	if (starts_mm_banner(buf, len)) {
		*why = "a %%MatrixMarket banner";
		return TOPOMATCH_FORMAT_MM;
	}
	if (looks_like_grf(buf, len)) {
		*why = "a Scotch graph header";
		return TOPOMATCH_FORMAT_GRF;
	}
	tm_scan_init(&sc, buf, len, NULL, "#");
	do {
		if (tm_triplets_directive(sc.p, sc.end, &n)) {
			*why = "a '# tasks N' line";
			return TOPOMATCH_FORMAT_TRIPLETS;
		}
		if (shaped) {
			shaped = triplet_shaped(&sc, &data, (int)datalines, &zero);
			if (data && datalines < 3)
				diag = diag && zero;
			datalines += data;
		}
	} while (tm_scan_next_line(&sc));
	if (shaped && datalines > 0 && datalines != 3) {
		if (ambiguous)
			*ambiguous = datalines >= 2 && diag;
		*why = "every line 'i j w', no '# tasks N' line";
		return TOPOMATCH_FORMAT_TRIPLETS;
	}
	*why = shaped && datalines == 3 ? "3 lines of 3 numbers: a 3 x 3 matrix" : "rows of numbers";
	return TOPOMATCH_FORMAT_DENSE;
}

int tm_affinity_detect(const char *buf, size_t len)
{
	return tm_affinity_detect_why(buf, len, NULL, NULL);
}

int topomatch_affinity_detect(const char *buf, size_t len, const char **why, int *ambiguous)
{
	bool amb;
	int f = tm_affinity_detect_why(buf ? buf : "", buf ? len : 0, why, &amb);
	if (ambiguous)
		*ambiguous = amb;
	return f;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

static int run_reader(struct tm_rd *rd, int format, topomatch_affinity_t **out)
{
	int rc;

	switch (format) {
	case TOPOMATCH_FORMAT_DENSE: rc = tm_read_dense(rd); break;
	case TOPOMATCH_FORMAT_MM: rc = tm_read_mm(rd); break;
	case TOPOMATCH_FORMAT_TRIPLETS: rc = tm_read_triplets(rd); break;
	case TOPOMATCH_FORMAT_GRF: rc = tm_read_grf(rd); break;
	default:
		return tm_err(rd->err, TOPOMATCH_EINVAL, "%s: unknown format %d", rd->name,
			      format);
	}
	if (rc == TOPOMATCH_OK) {
		char msg[TOPOMATCH_ERRLEN];
		rc = tm_affinity_from_coo(rd->ntasks, &rd->coo, rd->loads, out, msg);
		if (rc != TOPOMATCH_OK)
			tm_err(rd->err, rc, "%s: %s", rd->name, msg);
	}
	return rc;
}

/* Line holding the first byte past the limit, for the message. */
static int64_t line_at(const char *buf, size_t off)
{
	int64_t line = 1;
	for (size_t i = 0; i < off; i++)
		line += buf[i] == '\n';
	return line;
}

int topomatch_affinity_read_buffer(const char *buf, size_t len, const char *name, int format,
				   const topomatch_limits_t *limits, topomatch_affinity_t **out,
				   char *err)
{
	struct tm_rd rd = { .buf = buf, .len = len, .name = name ? name : "buffer",
			    .lim = tm_limits(limits), .err = err };

	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: no place for the result", rd.name);
	*out = NULL;
	if (!buf && len > 0)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: no buffer", rd.name);
	if (!buf)
		rd.buf = "";
	if (format < TOPOMATCH_FORMAT_AUTO || format > TOPOMATCH_FORMAT_GRF)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: unknown format %d", rd.name, format);
	if ((uint64_t)len > (uint64_t)rd.lim.max_bytes)
		return tm_rd_fail(&rd, line_at(buf, (size_t)rd.lim.max_bytes), TOPOMATCH_ELIMIT,
				  "larger than the limit of %lld bytes",
				  (long long)rd.lim.max_bytes);
	if (format == TOPOMATCH_FORMAT_AUTO) {
		bool ambiguous;
		format = tm_affinity_detect_why(rd.buf, len, NULL, &ambiguous);
		if (ambiguous)
			return tm_rd_fail(&rd, 1, TOPOMATCH_EPARSE, "%s", TM_AMBIGUOUS_MSG);
	}
	tm_coo_init(&rd.coo);
	int rc = run_reader(&rd, format, out);
	tm_coo_free(&rd.coo);
	free(rd.loads);
	return rc;
}

int topomatch_affinity_read(FILE *in, const char *name, int format,
			    const topomatch_limits_t *limits, topomatch_affinity_t **out, char *err)
{
	topomatch_limits_t lim = tm_limits(limits);
	char *buf;
	size_t len;

	if (out)
		*out = NULL;
	if (!name)
		name = "input";
	if (!in || !out)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "%s: no input stream or no place for the result", name);
	int rc = tm_read_all(in, name, lim.max_bytes, &buf, &len, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	rc = topomatch_affinity_read_buffer(buf, len, name, format, &lim, out, err);
	free(buf);
	return rc;
}

int topomatch_affinity_read_file(const char *path, int format,
				 const topomatch_limits_t *limits, topomatch_affinity_t **out,
				 char *err)
{
	if (out)
		*out = NULL;
	if (!path)
		return tm_err(err, TOPOMATCH_EINVAL, "no pattern file given");
	if (strcmp(path, "-") == 0)
		return topomatch_affinity_read(stdin, "<stdin>", format, limits, out, err);
	FILE *f = fopen(path, "r");
	if (!f)
		return tm_err(err, TOPOMATCH_EIO, "%s: cannot open: %s", path, strerror(errno));
	int rc = topomatch_affinity_read(f, path, format, limits, out, err);
	fclose(f);
	return rc;
}

/*
 * textscan.c - line-aware tokenizer and bounded stream reader.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "textscan.h"
#include "tm_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tm_scan_init(tm_scan_t *sc, const char *buf, size_t len, const char *name,
		  const char *comments)
{
	sc->p = buf;
	sc->end = buf + len;
	sc->name = name ? name : "input";
	sc->line = 1;
	sc->lstart = buf;
	sc->comments = comments ? comments : "";
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

const char *tm_skip_blank(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static bool is_comment(const tm_scan_t *sc, char c)
{
	return c != '\0' && strchr(sc->comments, c) != NULL;
}

/* Skip blanks and a trailing comment, stop at '\n' or end. */
static void skip_blanks(tm_scan_t *sc)
{
	sc->p = tm_skip_blank(sc->p, sc->end);
	if (sc->p < sc->end && is_comment(sc, *sc->p))
		while (sc->p < sc->end && *sc->p != '\n')
			sc->p++;
}

bool tm_scan_token(tm_scan_t *sc, tm_token_t *tok)
{
	skip_blanks(sc);
	if (sc->p >= sc->end || *sc->p == '\n')
		return false;
	const char *s = sc->p;
	while (sc->p < sc->end && *sc->p != '\n' && !is_blank(*sc->p) && !is_comment(sc, *sc->p))
		sc->p++;
	tok->s = s;
	tok->len = (size_t)(sc->p - s);
	tok->line = sc->line;
	tok->line_start = sc->lstart;
	tok->col = (int64_t)(s - sc->lstart) + 1;
	return true;
}

bool tm_scan_next_line(tm_scan_t *sc)
{
	while (sc->p < sc->end && *sc->p != '\n')
		sc->p++;
	if (sc->p >= sc->end)
		return false;
	sc->p++;
	sc->line++;
	sc->lstart = sc->p;
	return sc->p < sc->end;
}

bool tm_scan_skip_empty(tm_scan_t *sc)
{
	for (;;) {
		skip_blanks(sc);
		if (sc->p >= sc->end)
			return false;
		if (*sc->p != '\n')
			return true;
		sc->p++;
		sc->line++;
		sc->lstart = sc->p;
	}
}

int64_t tm_scan_count_line(const tm_scan_t *sc)
{
	tm_scan_t copy = *sc;
	tm_token_t t;
	int64_t n = 0;
	while (tm_scan_token(&copy, &t))
		n++;
	return n;
}

bool tm_scan_at_eof(const tm_scan_t *sc)
{
	return sc->p >= sc->end;
}

/* Tokens are not NUL-terminated: copy into buf for strto*(); numbers longer
 * than any valid spelling are refused. */
static bool tok_cstr(const tm_token_t *t, char *buf, size_t len)
{
	if (t->len == 0 || t->len >= len)
		return false;
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	return true;
}

bool tm_tok_int64(const tm_token_t *t, int64_t *v)
{
	char buf[128], *e;
	if (!tok_cstr(t, buf, sizeof(buf)))
		return false;
	errno = 0;
	long long x = strtoll(buf, &e, 10);
	if (errno || *e != '\0')
		return false;
	*v = x;
	return true;
}

bool tm_tok_double(const tm_token_t *t, double *v)
{
	char buf[128], *e;
	if (!tok_cstr(t, buf, sizeof(buf)))
		return false;
	double x = strtod(buf, &e);
	if (*e != '\0')
		return false;
	/* ERANGE on underflow is harmless (x is 0 or denormal); overflow gives inf,
	 * which the callers refuse as non-finite */
	*v = x;
	return true;
}

const char *tm_tok_str(const tm_token_t *t, char *buf, size_t len)
{
	size_t n = t->len < len - 1 ? t->len : len - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t->s[i];
		buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[n] = '\0';
	if (n < t->len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

static int too_large(const char *name, int64_t line, int64_t max_bytes, char *err)
{
	return tm_err(err, TOPOMATCH_ELIMIT, "%s:%lld: larger than the limit of %lld bytes", name,
		      (long long)line, (long long)max_bytes);
}

/*
 * A regular file already known to be too large: its line at the limit,
 * counted through a small buffer, not the gigabytes the limit allows
 * (sbatch would otherwise hold 2 GiB before refusing a 5 GiB file).
 */
static int too_large_file(FILE *in, const char *name, int64_t max_bytes, char *err)
{
	char chunk[65536];
	int64_t line = 1, left = max_bytes;
	while (left > 0) {
		size_t want = left < (int64_t)sizeof(chunk) ? (size_t)left : sizeof(chunk);
		size_t got = fread(chunk, 1, want, in);
		for (size_t i = 0; i < got; i++)
			line += chunk[i] == '\n';
		if (got < want)
			break;
		left -= (int64_t)got;
	}
	return too_large(name, line, max_bytes, err);
}

int tm_read_all(FILE *in, const char *name, int64_t max_bytes, char **buf, size_t *len,
		char *err)
{
	*buf = NULL;
	*len = 0;
	struct stat st;
	off_t at = ftello(in);
	if (at >= 0 && fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size - at > max_bytes)
		return too_large_file(in, name, max_bytes, err);

	size_t cap = 65536, n = 0;
	char *b = malloc(cap);
	if (!b)
		return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", name);
	for (;;) {
		if (cap - n < 2) {
			if (cap > SIZE_MAX / 2) {
				free(b);
				return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", name);
			}
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", name);
			}
			b = nb;
			cap *= 2;
		}
		size_t got = fread(b + n, 1, cap - n - 1, in);
		n += got;
		if ((int64_t)n > max_bytes) {
			/* name the line where the limit falls, as other messages do */
			int64_t line = 1;
			for (int64_t i = 0; i < max_bytes; i++)
				line += b[i] == '\n';
			free(b);
			return too_large(name, line, max_bytes, err);
		}
		if (got == 0) {
			if (ferror(in)) {
				int e = errno;
				free(b);
				return tm_err(err, TOPOMATCH_EIO, "%s: read error: %s", name,
					      strerror(e));
			}
			break;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return TOPOMATCH_OK;
}

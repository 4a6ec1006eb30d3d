/*
 * textscan.h - line-aware tokenizer over an in-memory text, shared by the
 * pattern readers, the topology parser and the id-list reader, so that
 * every message can name its file and line.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_TEXTSCAN_H
#define TM_TEXTSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tm_scan {
	const char *p;    /* current position */
	const char *end;
	const char *name; /* for messages */
	int64_t line;     /* 1-based line of p */
	const char *lstart; /* start of that line */
	const char *comments; /* characters that start a comment to end of line */
} tm_scan_t;

typedef struct tm_token {
	const char *s;
	size_t len;
	int64_t line;
	int64_t col; /* 1-based */
	const char *line_start;
} tm_token_t;

void tm_scan_init(tm_scan_t *sc, const char *buf, size_t len, const char *name,
		  const char *comments);
/* Next token on the current line (blanks and comments skipped; newline not
 * crossed). false at end of line or file. */
bool tm_scan_token(tm_scan_t *sc, tm_token_t *tok);
/* Skip the rest of the current line (tokens included); false at EOF. */
bool tm_scan_next_line(tm_scan_t *sc);
/* Skip blank and comment-only lines; false when only those remain. */
bool tm_scan_skip_empty(tm_scan_t *sc);
/* Number of tokens left on the current line (does not move). */
int64_t tm_scan_count_line(const tm_scan_t *sc);
bool tm_scan_at_eof(const tm_scan_t *sc);

/* The first character of [p, end) that is not a blank (space, tab, CR,
 * VT, FF; not a newline), or end. */
const char *tm_skip_blank(const char *p, const char *end);

/* Strict conversions of a whole token; false when it is not one number. */
bool tm_tok_int64(const tm_token_t *t, int64_t *v);
bool tm_tok_double(const tm_token_t *t, double *v);
/* Token as a printable, truncated, NUL-terminated string for messages. */
const char *tm_tok_str(const tm_token_t *t, char *buf, size_t len);

/*
 * Read a whole stream (pipe or file) into a NUL-terminated buffer, refusing
 * more than max_bytes.  Returns a topomatch_status; *buf is malloc'd.
 */
int tm_read_all(FILE *in, const char *name, int64_t max_bytes, char **buf, size_t *len,
		char *err);

#endif /* TM_TEXTSCAN_H */

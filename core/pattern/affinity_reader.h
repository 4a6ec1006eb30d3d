/*
 * affinity_reader.h - one pattern read in progress, and the helpers every
 * format's reader shares (affinity_reader.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_AFFINITY_READER_H
#define TM_AFFINITY_READER_H

#include "base/textscan.h"
#include "base/tm_internal.h"

/*
 * One read in progress.  The front end fills the input fields; a format
 * reader fills ntasks, coo and (optionally) loads, or returns an error
 * that it has already written to err.  The front end frees coo and loads.
 */
struct tm_rd {
	const char *buf; /* whole input, not necessarily NUL-terminated */
	size_t len;
	const char *name;
	topomatch_limits_t lim; /* resolved: no zero fields */
	char *err;

	int64_t ntasks;
	tm_coo_t coo;
	double *loads; /* malloc'd, ntasks entries, or NULL */
};

/*
 * Recognise a triplets "# tasks N" line starting at p (the beginning of a
 * line).  Returns true and sets *n (saturated at INT64_MAX) when it is one.
 */
bool tm_triplets_directive(const char *p, const char *end, int64_t *n);

/* "NAME:LINE: message" into rd->err; returns status. */
int tm_rd_fail(const struct tm_rd *rd, int64_t line, int status, const char *fmt, ...)
	TM_PRINTF(4, 5);

/* Line to name when the input ended early: the last line, not the empty
 * "line" after a final newline. */
int64_t tm_rd_eof_line(const struct tm_rd *rd, const tm_scan_t *sc);

/* Token as a weight or load (`what` names it): a number, finite, >= 0. */
int tm_rd_weight(const struct tm_rd *rd, const tm_token_t *t, const char *what, double *w);

/* Token as an integer; `what` names it in messages ("row index", ...).
 * Integers too large for int64 are an ELIMIT error. */
int tm_rd_int(const struct tm_rd *rd, const tm_token_t *t, const char *what, int64_t *v);

/* ntasks against the limit (ELIMIT naming `line`) and >= 1. */
int tm_rd_check_tasks(const struct tm_rd *rd, int64_t line, int64_t ntasks);

/* Append C(src,dst) = w; drops diagonal and zero entries, which the
 * affinity object would drop anyway, so that they do not count against
 * max_nnz.  `line` locates the entry in the nnz-limit message. */
int tm_rd_push(struct tm_rd *rd, int64_t line, int64_t src, int64_t dst, double w);

#endif /* TM_AFFINITY_READER_H */

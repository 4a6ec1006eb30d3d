/*
 * affinity_formats.h - the readers of each pattern format, and format
 * detection, for the front end (affinity_read.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_AFFINITY_FORMATS_H
#define TM_AFFINITY_FORMATS_H

#include "affinity_reader.h"

/* Readers, one per format. */
int tm_read_dense(struct tm_rd *rd);
int tm_read_mm(struct tm_rd *rd);
int tm_read_triplets(struct tm_rd *rd);
int tm_read_grf(struct tm_rd *rd);

/* Format of a text by the rules in affinity_read.c; never AUTO. */
int tm_affinity_detect(const char *buf, size_t len);
/* The same, with a phrase saying why (static) and whether the file is as
 * likely a dense matrix that is not square (refused under auto). */
int tm_affinity_detect_why(const char *buf, size_t len, const char **why, bool *ambiguous);
#define TM_AMBIGUOUS_MSG                                                              \
	"ambiguous pattern: lines of 3 numbers with zeros where a dense matrix has its " \
	"diagonal: a dense matrix that is not square, or 'i j w' triplets? Add a "       \
	"'# tasks N' line or give the format (--format dense|triplets)"

#endif /* TM_AFFINITY_FORMATS_H */

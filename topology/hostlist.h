/*
 * hostlist.h - Slurm-style host lists ("n[001-128]", "a[1-3,7],login2"),
 * kept as ranges so that 100,000 nodes cost a few bytes: expansion to
 * names, the index of a name (the plugins map node names to PU ranges and
 * back), and compression of a list of names.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_HOSTLIST_H
#define TM_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct tm_hostlist tm_hostlist_t;

/* Longest name accepted (Linux allows 64 for a host name, DNS 253 for a
 * full one); callers hold a name in TM_HOSTLIST_MAX_NAME + 1 bytes. */
#define TM_HOSTLIST_MAX_NAME 255

/*
 * Parse `text`.  Syntax (Slurm's): comma-separated items; an item is a
 * name, or prefix[ranges]suffix where ranges is a comma-separated list of
 * N or N-M with N <= M (leading zeros set the width: "n[001-128]" gives
 * n001..n128; at most 18 digits).  One bracket group per item.  Names are
 * [A-Za-z0-9._-], at most TM_HOSTLIST_MAX_NAME characters (ELIMIT).
 * Names keep the order written.  On error returns a topomatch_status and
 * err (TOPOMATCH_ERRLEN bytes) reads "column C: what is wrong", C 1-based
 * in text.  max_names bounds the expanded count (ELIMIT above it; <= 0
 * means no bound but int64 overflow).  Ranges stay unexpanded.
 */
int tm_hostlist_parse(const char *text, int64_t max_names, tm_hostlist_t **out, char *err);
void tm_hostlist_destroy(tm_hostlist_t *h);

/* Number of names. */
int64_t tm_hostlist_count(const tm_hostlist_t *h);
/* The i-th name into buf: 0, ELIMIT when it does not fit, EINVAL when i is not in [0, count). */
int tm_hostlist_name(const tm_hostlist_t *h, int64_t i, char *buf, size_t len);
/* Index of the first `name`, or -1 when absent (no expansion: O(ranges)). */
int64_t tm_hostlist_find(const tm_hostlist_t *h, const char *name);
/*
 * First name listed twice (the smallest j that repeats an earlier name, i
 * its first index): 1 with the pair (i < j), 0 when all distinct, or
 * -TOPOMATCH_ENOMEM / -TOPOMATCH_EINVAL.  Sorts ranges instead of expanding
 * them, except when a range's number is not the last digit run of its
 * names ("n1[0-9]", "n[1-4]-ib2"): then the names are hashed one by one,
 * and more than 2^26 of them give -TOPOMATCH_ELIMIT.
 */
int tm_hostlist_duplicate(const tm_hostlist_t *h, int64_t *i, int64_t *j);

/*
 * Compress n names into Slurm hostlist syntax, keeping their order
 * ("n001,n002,n003,n007" -> "n[001-003,007]"); *out is malloc'd.
 */
int tm_hostlist_compress(const char *const *names, int64_t n, char **out, char *err);

#endif /* TM_HOSTLIST_H */

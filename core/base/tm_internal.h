/*
 * tm_internal.h - the base every layer of libtopomatch uses: error
 * messages, checked sizes and allocation, edge lists, limits, the clock.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_INTERNAL_H
#define TM_INTERNAL_H

#include "topomatch.h"

#include <stdarg.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define TM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TM_PRINTF(a, b)
#endif

/* Fill err (may be NULL) with a formatted one-line message; returns status. */
int tm_err(char *err, int status, const char *fmt, ...) TM_PRINTF(3, 4);

/* Overflow-checked size arithmetic: return false on overflow/negative. */
bool tm_mul_ok(int64_t a, int64_t b, int64_t *out);
bool tm_add_ok(int64_t a, int64_t b, int64_t *out);

/* malloc/calloc of n elements of size sz with overflow check (NULL on
 * failure or n < 0; n == 0 returns a valid 1-byte block). */
void *tm_alloc(int64_t n, size_t sz);
void *tm_zalloc(int64_t n, size_t sz);

/* qsort/bsearch comparator of int64_t values, ascending. */
int tm_cmp_i64(const void *a, const void *b);

/* Resolve user limits (NULL or zero fields -> defaults). */
topomatch_limits_t tm_limits(const topomatch_limits_t *l);

/*
 * Directed entries collected by the readers before the CSR is built.
 * Append keeps amortised doubling with overflow checks and the nnz limit.
 */
typedef struct tm_coo {
	int64_t n;     /* number of entries */
	int64_t cap;
	int64_t *src;
	int64_t *dst;
	double *w;
} tm_coo_t;

void tm_coo_init(tm_coo_t *c);
void tm_coo_free(tm_coo_t *c);
/* Room for exactly cap entries (cap >= c->n), keeping the entries: OK,
 * ENOMEM (c unchanged) or EINVAL. */
int tm_coo_reserve(tm_coo_t *c, int64_t cap);
/* Returns TOPOMATCH_OK, ENOMEM or ELIMIT (more than max_nnz entries). */
int tm_coo_push(tm_coo_t *c, int64_t src, int64_t dst, double w, int64_t max_nnz);

/* Monotonic clock in seconds. */
double tm_now(void);

#endif /* TM_INTERNAL_H */

/*
 * util.c - error messages, checked arithmetic, allocation, clock.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tm_err(char *err, int status, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, TOPOMATCH_ERRLEN, fmt, ap);
		va_end(ap);
		/* messages are one line: fold any newline a value brought in */
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	}
	return status;
}

const char *topomatch_strstatus(int status)
{
	switch (status) {
	case TOPOMATCH_OK: return "success";
	case TOPOMATCH_EINVAL: return "invalid argument";
	case TOPOMATCH_ENOMEM: return "out of memory";
	case TOPOMATCH_EIO: return "input/output error";
	case TOPOMATCH_EPARSE: return "parse error";
	case TOPOMATCH_ELIMIT: return "limit exceeded";
	case TOPOMATCH_EBUDGET: return "time budget exceeded";
	case TOPOMATCH_EUNSUPPORTED: return "unsupported";
	default: return "unknown error";
	}
}

const char *topomatch_version(void)
{
	return PACKAGE_VERSION;
}

bool tm_mul_ok(int64_t a, int64_t b, int64_t *out)
{
	if (a < 0 || b < 0)
		return false;
	if (a != 0 && b > INT64_MAX / a)
		return false;
	*out = a * b;
	return true;
}

bool tm_add_ok(int64_t a, int64_t b, int64_t *out)
{
	if (a < 0 || b < 0 || a > INT64_MAX - b)
		return false;
	*out = a + b;
	return true;
}

void *tm_alloc(int64_t n, size_t sz)
{
	int64_t bytes;
	if (!tm_mul_ok(n, (int64_t)sz, &bytes) || (uint64_t)bytes > SIZE_MAX)
		return NULL;
	return malloc(bytes ? (size_t)bytes : 1);
}

void *tm_zalloc(int64_t n, size_t sz)
{
	int64_t bytes;
	/* calloc checks n x sz too, but sanitizers abort on it instead of
	 * returning NULL: the library's own check comes first */
	if (!tm_mul_ok(n, (int64_t)sz, &bytes) || (uint64_t)bytes > SIZE_MAX)
		return NULL;
	return calloc(n ? (size_t)n : 1, sz);
}

topomatch_limits_t tm_limits(const topomatch_limits_t *l)
{
	topomatch_limits_t r = { TOPOMATCH_DEFAULT_MAX_TASKS, TOPOMATCH_DEFAULT_MAX_NNZ,
				 TOPOMATCH_DEFAULT_MAX_BYTES };
	if (l) {
		if (l->max_tasks > 0)
			r.max_tasks = l->max_tasks;
		if (l->max_nnz > 0)
			r.max_nnz = l->max_nnz;
		if (l->max_bytes > 0)
			r.max_bytes = l->max_bytes;
	}
	return r;
}

double tm_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int tm_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

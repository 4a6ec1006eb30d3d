/*
 * coo.c - edge lists collected entry by entry (tm_coo_t), before they
 * become a pattern's or a graph's compressed rows: the pattern readers,
 * the generators and the topology parsers fill them alike.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_internal.h"

#include <stdlib.h>
#include <string.h>

void tm_coo_init(tm_coo_t *c)
{
	memset(c, 0, sizeof(*c));
}

void tm_coo_free(tm_coo_t *c)
{
	free(c->src);
	free(c->dst);
	free(c->w);
	tm_coo_init(c);
}

int tm_coo_reserve(tm_coo_t *c, int64_t cap)
{
	if (cap < c->n)
		return TOPOMATCH_EINVAL;
	int64_t *s = tm_alloc(cap, sizeof(*s));
	int64_t *d = tm_alloc(cap, sizeof(*d));
	double *ww = tm_alloc(cap, sizeof(*ww));
	if (!s || !d || !ww) {
		free(s);
		free(d);
		free(ww);
		return TOPOMATCH_ENOMEM;
	}
	if (c->n) {
		memcpy(s, c->src, (size_t)c->n * sizeof(*s));
		memcpy(d, c->dst, (size_t)c->n * sizeof(*d));
		memcpy(ww, c->w, (size_t)c->n * sizeof(*ww));
	}
	free(c->src);
	free(c->dst);
	free(c->w);
	c->src = s;
	c->dst = d;
	c->w = ww;
	c->cap = cap;
	return TOPOMATCH_OK;
}

int tm_coo_push(tm_coo_t *c, int64_t src, int64_t dst, double w, int64_t max_nnz)
{
	if (c->n >= max_nnz)
		return TOPOMATCH_ELIMIT;
	if (c->n == c->cap) {
		int64_t cap = c->cap ? c->cap * 2 : 1024;
		int rc = tm_coo_reserve(c, cap > max_nnz ? max_nnz : cap);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	c->src[c->n] = src;
	c->dst[c->n] = dst;
	c->w[c->n] = w;
	c->n++;
	return TOPOMATCH_OK;
}

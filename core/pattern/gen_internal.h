/*
 * gen_internal.h - helpers shared by the pattern generators and the
 * affinity transforms (gen_*.c, affinity_transform.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef GEN_INTERNAL_H
#define GEN_INTERNAL_H

#include "base/tm_internal.h"
#include "pattern_internal.h"

/*
 * The generators know how many entries they will emit before emitting the
 * first, so they reserve exactly that: tm_coo_push's doubling would hold up
 * to three times the final size for a moment, which matters for big
 * stencils.  Pushing with max_nnz == cap afterwards never reallocates, and
 * a miscount shows up as ELIMIT instead of an overrun.
 */
static inline int gen_coo_reserve(tm_coo_t *c, int64_t cap)
{
	tm_coo_init(c);
	return tm_coo_reserve(c, cap);
}

/* Build the affinity object from c, and free c whatever the outcome. */
static inline int gen_coo_finish(int64_t ntasks, tm_coo_t *c, const double *loads,
				 topomatch_affinity_t **out, char *err)
{
	int rc = tm_affinity_from_coo(ntasks, c, loads, out, err);

	tm_coo_free(c);
	return rc;
}

#endif /* GEN_INTERNAL_H */

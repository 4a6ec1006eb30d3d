/*
 * pattern_internal.h - what the pattern files share beyond the public
 * API: building a pattern from an edge list, renaming its tasks, scaling
 * its weights (the mappers use the last two).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_PATTERN_INTERNAL_H
#define TM_PATTERN_INTERNAL_H

#include "base/tm_internal.h"

/*
 * Build the affinity object from collected entries (consumes nothing; the
 * caller frees coo).  loads: NULL or ntasks entries (copied).
 */
int tm_affinity_from_coo(int64_t ntasks, const tm_coo_t *coo, const double *loads,
			 topomatch_affinity_t **out, char *err);

/* The pattern with task i renamed perm[i] (a permutation of 0..n-1):
 * C'(perm[i], perm[j]) = C(i, j), loads likewise (affinity_transform.c). */
int tm_affinity_relabel(const topomatch_affinity_t *a, const int64_t *perm,
			topomatch_affinity_t **out, char *err);
/* The pattern with every weight multiplied by scale (> 0), loads kept. */
int tm_affinity_scale(const topomatch_affinity_t *a, double scale, topomatch_affinity_t **out,
		      char *err);

/* The pattern of the groups of g consecutive tasks (g >= 1; the last
 * group has fewer when g does not divide n): C'(I, J) the sum of C(i, j)
 * over i / g = I, j / g = J, I != J; the traffic inside a group left out,
 * loads summed.  What a pattern blob holds when the pattern's tasks do
 * not fit it one by one (pattern_blob.c). */
int tm_affinity_groups(const topomatch_affinity_t *a, int64_t g, topomatch_affinity_t **out,
		       char *err);

#endif /* TM_PATTERN_INTERNAL_H */

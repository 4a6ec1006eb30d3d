/*
 * affinity_blocks.h - a pattern's tasks in blocks (affinity_blocks.c),
 * for the cluster's node-by-node selection (topology/cluster_blocks.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_AFFINITY_BLOCKS_H
#define TM_AFFINITY_BLOCKS_H

#include "base/tm_internal.h"

/* topomatch_affinity_blocks with a deadline (a tm_now() value, 0 =
 * none): past it the grown blocks are left out, *cut (may be NULL) set
 * (affinity_blocks.c). */
int tm_affinity_blocks(const topomatch_affinity_t *a, int64_t block, double deadline,
		       int64_t *order, bool *cut, topomatch_affinity_t **out, char *err);

#endif /* TM_AFFINITY_BLOCKS_H */

/*
 * metrics_internal.h - the metrics' entry point for the mappers.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_METRICS_INTERNAL_H
#define TM_METRICS_INTERNAL_H

#include "base/tm_internal.h"

/* hop_bytes of topomatch_metrics_compute, the same to the bit, without the
 * routes and link loads the other metrics need (metrics.c). */
int tm_metrics_hop_bytes(const topomatch_affinity_t *a, const topomatch_topology_t *t,
			 const int64_t *pu, double *hop_bytes, char *err);

#endif /* TM_METRICS_INTERNAL_H */

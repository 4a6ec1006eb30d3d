/*
 * tm_slurm.h - the Slurm 22.05 internal headers select/topomatch's files
 * use (slurmctld's job and node records, cons_common's avail_res_t and core
 * arrays, bitstrings, the log), under Slurm's own config.h, which each file
 * includes first (found through -iquote SLURM_SOURCE_DIR, never the
 * project's: Slurm's structures depend on it).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SLURM_H
#define TM_SLURM_H

#include <stdbool.h>
#include <stdint.h>

/* Slurm's internal headers are not written for this project's warnings. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/run_in_daemon.h"
#include "src/slurmctld/slurmctld.h"
#include "src/plugins/select/cons_common/cons_common.h"
#include "src/plugins/select/cons_common/core_array.h"
#pragma GCC diagnostic pop

#endif /* TM_SLURM_H */

/*
 * fuzz_grf.c - libFuzzer harness of the grf pattern reader (fuzz_affinity.h).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FUZZ_FORMAT TOPOMATCH_FORMAT_GRF
#include "fuzz_affinity.h"

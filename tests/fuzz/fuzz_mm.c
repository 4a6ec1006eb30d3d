/*
 * fuzz_mm.c - libFuzzer harness of the mm pattern reader (fuzz_affinity.h).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FUZZ_FORMAT TOPOMATCH_FORMAT_MM
#include "fuzz_affinity.h"

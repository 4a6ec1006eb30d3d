/*
 * scotch_export.c - a topology written as a Scotch target file, the one
 * the Scotch mapper itself maps onto (`topomatch topo export --scotch`):
 * the same builder, saved with SCOTCH_archSave, so the two cannot drift.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "scotch_internal.h"

int topomatch_topology_write_scotch(const topomatch_topology_t *t, FILE *out, char *err)
{
	if (!t || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "topomatch_topology_write_scotch: NULL argument");
	tm_starget_t x = { 0 };
	int rc = tm_starget_build(&x, t, NULL, t->npu, err);
	if (rc == TOPOMATCH_OK && (SCOTCH_archSave(tm_starget_arch(&x), out) != 0 ||
				   fflush(out) || ferror(out)))
		rc = tm_err(err, TOPOMATCH_EIO, "writing the Scotch target failed");
	tm_starget_free(&x);
	return rc;
}

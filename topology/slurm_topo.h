/*
 * slurm_topo.h - Slurm's topology.conf (topology/tree plugin, 22.05
 * format) read into a switch tree, and a switch tree written back.
 *
 *   # comment
 *   SwitchName=s0 Nodes=tux[0-3] LinkSpeed=100
 *   SwitchName=s2 Switches=s[0-1]
 *
 * What Slurm's parser (src/common/parse_config.c) accepts is accepted:
 * keys in any case, blanks around '=', values in double quotes, '#'
 * comments, a line continued by a trailing backslash (the next line is
 * appended as it is, after its comment is stripped).  What Slurm would
 * warn about or misread is refused with "FILE:LINE:COL: ..." at the key
 * or value: unknown keys (with a suggestion), empty values, a key given
 * twice, a line that does not start with SwitchName, both or neither of
 * Switches and Nodes on one switch (topology/tree refuses both), a
 * LinkSpeed that is not a uint32, operators such as "+=", backslash
 * escapes, Include lines, NUL bytes, files over 16 MiB.  The tree is then
 * checked by tm_swtree_resolve(), which is stricter than Slurm: one root,
 * no node on two switches.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SLURM_TOPO_H
#define TM_SLURM_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "swtree.h"

/* Largest topology.conf read (bytes). */
#define TM_SLURM_TOPO_MAX_BYTES (INT64_C(16) << 20)
/* Most nodes a topology.conf may attach: as many as a cluster may have
 * (TM_CLUSTER_MAX_NODES).  Checking 2^26 names for duplicates took seconds
 * and 1 GiB for a 40-byte file (found by tests/fuzz/fuzz_slurm_topo). */
#define TM_SLURM_TOPO_MAX_NODES (INT64_C(1) << 22)

/*
 * Read a file ("-" = stdin) into *out: out is initialised here, filled
 * with tm_swtree_add() for each switch line, then tm_swtree_resolve()d.
 * out->file points to path (or "<stdin>"): keep path alive while out is
 * used.  On error out is left empty (tm_swtree_free() is still safe) and
 * err reads "FILE:LINE:COL: what is wrong".  Free with tm_swtree_free().
 */
int tm_slurm_topology_read(const char *path, tm_swtree_t *out, char *err);

/* Same from memory; `name` (NULL: "topology.conf") is used in messages. */
int tm_slurm_topology_parse(const char *buf, size_t len, const char *name, tm_swtree_t *out,
			    char *err);

/*
 * Write t as topology.conf lines in definition order, lists as written
 * ("SwitchName=s0 Nodes=tux[0-3] LinkSpeed=100").  LinkSpeed is written
 * when set, rounded to a uint32 (Slurm's type; the plugin does not use
 * it).  Returns TOPOMATCH_EUNSUPPORTED, writing nothing, when a switch
 * has both child switches and nodes (topology/tree cannot say it), and
 * TOPOMATCH_EIO when the stream fails.
 */
int tm_swtree_write_topology_conf(const tm_swtree_t *t, FILE *out);

#endif /* TM_SLURM_TOPO_H */

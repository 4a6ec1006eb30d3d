/*
 * node_hw.c - the inside of a compute node from hwloc: a synthetic string
 * or an XML file becomes the balanced levels of tm_node_hw_t (see
 * node_hw.h) and the OS numbering of its PUs.
 *
 * Every call owns its hwloc topology, so this file keeps no state and is
 * reentrant.  hwloc reports failures through its return value and errno
 * only; each one becomes a message here, nothing aborts.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "node_hw.h"
#include "base/tm_internal.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PUs of one node.  hwloc's synthetic loader is superlinear: 4096 PUs load
 * in at most about 1 s whatever the shape, 65536 took 30 s and 2^20 many
 * minutes (tests/fuzz/fuzz_cluster); no Slurm node has more than 4096. */
#define TM_NODE_MAX_PU (1 << 12)

/* One level of the CPU tree before arity-1 levels are dropped. */
struct raw_level {
	int arity;        /* children per object of the level above */
	const char *type; /* hwloc type name of the objects of this level */
};

static const char *errno_text(int e)
{
	/* hwloc does not always set errno; do not print "Success" */
	return e ? strerror(e) : "unknown error";
}

/*
 * Product of the counts of a synthetic string, so that an absurd node
 * ("pack:100000 core:100000 pu:1") is refused before hwloc tries to build
 * it.  Only a rough scan: the real parsing is hwloc's, so anything odd
 * here is left for hwloc to reject.
 */
static int64_t synthetic_product(const char *desc)
{
	int64_t prod = 1;
	int nest = 0;

	for (const char *p = desc; *p; p++) {
		if (*p == '(' || *p == '{' || *p == '[')
			nest++;
		else if ((*p == ')' || *p == '}' || *p == ']') && nest > 0)
			nest--;
		else if (nest == 0 && isdigit((unsigned char)*p) &&
			 (p == desc || isspace((unsigned char)p[-1]) || p[-1] == ':')) {
			/* "type:N", or a bare "N", which hwloc reads as an arity too */
			char *end;
			long long v = strtoll(p, &end, 10);
			if (!tm_mul_ok(prod, v, &prod) || prod > INT64_C(1) << 40)
				return INT64_MAX;
			p = end - 1;
		}
	}
	return prod;
}

/* Does the string name a PU level?  hwloc 2.9 refuses strings without it. */
static int synthetic_has_pu(const char *desc)
{
	for (const char *p = desc; *p; p++) {
		if ((p == desc || isspace((unsigned char)p[-1])) && strncasecmp(p, "pu:", 3) == 0)
			return 1;
	}
	return 0;
}

/*
 * The objects of each CPU depth above the PUs must all have the same
 * number of children, all one depth below: otherwise the node is not the
 * balanced tree the mappers assume (§4.2.1: tleaf "implies that the tree
 * is balanced and symmetric").
 */
static int check_symmetric(hwloc_topology_t topo, int pudepth, char *err)
{
	for (int d = 0; d < pudepth; d++) {
		hwloc_obj_t first = hwloc_get_obj_by_depth(topo, d, 0);
		int n = hwloc_get_nbobjs_by_depth(topo, d);

		for (int i = 0; i < n; i++) {
			hwloc_obj_t o = hwloc_get_obj_by_depth(topo, d, i);
			if (o->arity != first->arity)
				return tm_err(err, TOPOMATCH_EINVAL,
					      "asymmetric node at level %s: "
					      "%s #%u has %u children, %s #%u has %u",
					      hwloc_obj_type_string(o->type),
					      hwloc_obj_type_string(first->type),
					      first->logical_index, first->arity,
					      hwloc_obj_type_string(o->type), o->logical_index,
					      o->arity);
			for (unsigned c = 0; c < o->arity; c++) {
				if (o->children[c]->depth != d + 1)
					return tm_err(err, TOPOMATCH_EINVAL,
						      "asymmetric node at level %s: the children "
						      "of %s #%u are not all of one level",
						      hwloc_obj_type_string(o->type),
						      hwloc_obj_type_string(o->type),
						      o->logical_index);
			}
		}
		if (first->arity == 0)
			return tm_err(err, TOPOMATCH_EINVAL, "node has no PUs below level %s",
				      hwloc_obj_type_string(first->type));
	}
	return TOPOMATCH_OK;
}

/*
 * Distinct non-empty NUMA cpusets.  Memory-only nodes (empty cpuset) and
 * several memories of the same cores (DDR + HBM) do not split the PUs.
 */
static int numa_sets(hwloc_topology_t topo, hwloc_const_cpuset_t *sets, int max)
{
	int n = 0;
	hwloc_obj_t m = NULL;

	while ((m = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, m)) != NULL) {
		int dup = 0;
		if (!m->cpuset || hwloc_bitmap_iszero(m->cpuset))
			continue;
		for (int i = 0; i < n && !dup; i++)
			dup = hwloc_bitmap_isequal(sets[i], m->cpuset);
		if (!dup && n < max)
			sets[n++] = m->cpuset;
	}
	return n;
}

/* Index of the NUMA set that contains cs, or -1. */
static int numa_of(hwloc_const_cpuset_t cs, hwloc_const_cpuset_t *sets, int n)
{
	for (int i = 0; i < n; i++)
		if (hwloc_bitmap_isincluded(cs, sets[i]))
			return i;
	return -1;
}

/* Does every object of depth d lie inside one NUMA set? */
static int depth_inside_numa(hwloc_topology_t topo, int d, hwloc_const_cpuset_t *sets, int n)
{
	int nobj = hwloc_get_nbobjs_by_depth(topo, d);

	for (int i = 0; i < nobj; i++)
		if (numa_of(hwloc_get_obj_by_depth(topo, d, i)->cpuset, sets, n) < 0)
			return 0;
	return 1;
}

/* Does every NUMA set lie inside one object of depth d? */
static int numa_inside_depth(hwloc_topology_t topo, int d, hwloc_const_cpuset_t *sets, int n)
{
	for (int i = 0; i < n; i++) {
		/* the deepest object holding the set; its ancestor at d holds it too */
		hwloc_obj_t o = hwloc_get_obj_covering_cpuset(topo, sets[i]);
		if (!o || o->depth < d)
			return 0;
	}
	return 1;
}

/*
 * Put the NUMA nodes into the levels.  hwloc 2 hangs them off the CPU
 * tree as memory children, usually of a Group made for them, so a NUMA
 * level is either a CPU level with the same cpusets (named "NUMANode"
 * when hwloc only made it a Group) or, when nothing matches, a level
 * inserted between depth e and e + 1 from the cpusets.  raw[] has room
 * for one more level; *nraw grows when one is inserted.
 */
static int place_numa(hwloc_topology_t topo, int pudepth, struct raw_level *raw, int *nraw,
		      char *err)
{
	hwloc_const_cpuset_t sets[256];
	int n = numa_sets(topo, sets, 256);
	int e, k, nparent;

	if (n <= 1)
		return TOPOMATCH_OK;
	/* the shallowest boundary with the NUMA nodes between both sides */
	for (e = 0; e < pudepth; e++)
		if (numa_inside_depth(topo, e, sets, n) && depth_inside_numa(topo, e + 1, sets, n))
			break;
	if (e == pudepth)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "NUMA nodes do not follow the levels of the node (%d NUMA nodes)", n);
	nparent = hwloc_get_nbobjs_by_depth(topo, e);
	k = n / nparent;
	if (k * nparent != n || raw[e].arity % k)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "asymmetric node at level NUMANode: "
			      "%d NUMA nodes in %d %s objects of %d children",
			      n, nparent, hwloc_obj_type_string(hwloc_get_depth_type(topo, e)),
			      raw[e].arity);
	if (k == raw[e].arity) {
		/* the NUMA nodes are the objects of depth e + 1 */
		if (hwloc_get_depth_type(topo, e + 1) == HWLOC_OBJ_GROUP)
			raw[e].type = hwloc_obj_type_string(HWLOC_OBJ_NUMANODE);
		return TOPOMATCH_OK;
	}
	/* each NUMA node must get the same number of children of depth e */
	int per = raw[e].arity / k;
	for (int i = 0; i < n; i++) {
		int cnt = 0;
		int nchild = hwloc_get_nbobjs_by_depth(topo, e + 1);
		for (int c = 0; c < nchild; c++)
			if (numa_of(hwloc_get_obj_by_depth(topo, e + 1, c)->cpuset, sets, n) == i)
				cnt++;
		if (cnt != per)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "asymmetric node at level NUMANode: "
				      "NUMA node #%d holds %d %s objects, another %d",
				      i, cnt,
				      hwloc_obj_type_string(hwloc_get_depth_type(topo, e + 1)),
				      per);
	}
	memmove(&raw[e + 1], &raw[e], (size_t)(*nraw - e) * sizeof(raw[0]));
	raw[e].arity = k;
	raw[e].type = hwloc_obj_type_string(HWLOC_OBJ_NUMANODE);
	raw[e + 1].arity = per;
	(*nraw)++;
	return TOPOMATCH_OK;
}

/* Keep the levels of arity > 1; a node of one PU keeps none. */
static int keep_levels(const struct raw_level *raw, int nraw, tm_node_hw_t *out, char *err)
{
	int64_t npu = 1;

	for (int i = 0; i < nraw; i++) {
		if (raw[i].arity <= 1)
			continue;
		if (out->nlevels == TM_NODE_MAX_LEVELS)
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "node has more than %d levels of arity > 1",
				      TM_NODE_MAX_LEVELS);
		out->arity[out->nlevels] = raw[i].arity;
		snprintf(out->type[out->nlevels], sizeof(out->type[0]), "%s", raw[i].type);
		out->nlevels++;
		if (!tm_mul_ok(npu, raw[i].arity, &npu) || npu > TM_NODE_MAX_PU)
			return tm_err(err, TOPOMATCH_ELIMIT, "node has more than %d PUs",
				      TM_NODE_MAX_PU);
	}
	out->npu = (int)npu;
	return TOPOMATCH_OK;
}

/* Sockets, cores and threads for the slurm.conf checks. */
static int count_hw(hwloc_topology_t topo, int npu_total, tm_node_hw_t *out, char *err)
{
	int sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);

	/* a topology without packages or cores: one socket, a PU per core */
	if (sockets <= 0)
		sockets = 1;
	if (cores <= 0)
		cores = npu_total;
	if (npu_total % cores || cores % sockets)
		return tm_err(err, TOPOMATCH_EINVAL,
			      "asymmetric node: %d PUs, %d cores and %d sockets do not divide",
			      npu_total, cores, sockets);
	out->sockets = sockets;
	out->cores = cores;
	out->threads_per_core = npu_total / cores;
	out->pu_is_thread = out->threads_per_core > 1;
	return TOPOMATCH_OK;
}

/*
 * PU k of the levels is hwloc's PU of logical index k: logical order is
 * tree order, and when PUs are cores each core has exactly one PU.
 */
static int fill_os_index(hwloc_topology_t topo, tm_node_hw_t *out, char *err)
{
	out->os_index = tm_alloc(out->npu, sizeof(int));
	if (!out->os_index)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for %d PUs", out->npu);
	for (int k = 0; k < out->npu; k++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)k);
		if (!pu || pu->os_index > INT_MAX)
			return tm_err(err, TOPOMATCH_EINVAL, "PU #%d has no OS index", k);
		out->os_index[k] = (int)pu->os_index;
	}
	return TOPOMATCH_OK;
}

/* From a loaded topology to out (left zeroed by the caller). */
static int derive(hwloc_topology_t topo, tm_node_hw_t *out, char *err)
{
	int pudepth = hwloc_get_type_depth(topo, HWLOC_OBJ_PU);
	int npu_total = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	struct raw_level *raw;
	int nraw, rc;

	if (pudepth < 1 || npu_total < 1)
		return tm_err(err, TOPOMATCH_EINVAL, "node has no PUs");
	if (npu_total > TM_NODE_MAX_PU)
		return tm_err(err, TOPOMATCH_ELIMIT, "node has %d PUs, more than %d",
			      npu_total, TM_NODE_MAX_PU);
	rc = check_symmetric(topo, pudepth, err);
	if (rc)
		return rc;
	raw = tm_alloc(pudepth + 1, sizeof(*raw));
	if (!raw)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory");
	nraw = pudepth;
	for (int d = 0; d < pudepth; d++) {
		raw[d].arity = (int)hwloc_get_obj_by_depth(topo, d, 0)->arity;
		raw[d].type = hwloc_obj_type_string(hwloc_get_depth_type(topo, d + 1));
	}
	rc = place_numa(topo, pudepth, raw, &nraw, err);
	if (!rc)
		rc = keep_levels(raw, nraw, out, err);
	free(raw);
	if (!rc && out->npu != npu_total)
		rc = tm_err(err, TOPOMATCH_EINVAL, "levels give %d PUs, hwloc has %d",
			    out->npu, npu_total);
	if (!rc)
		rc = count_hw(topo, npu_total, out, err);
	if (!rc)
		rc = fill_os_index(topo, out, err);
	return rc;
}

/* Load, derive, destroy; on failure out is zeroed again. */
static int load_and_derive(hwloc_topology_t topo, const char *what, tm_node_hw_t *out,
			   char *err)
{
	int rc;

	errno = 0;
	if (hwloc_topology_load(topo) < 0) {
		int e = errno;
		rc = tm_err(err, TOPOMATCH_EPARSE, "hwloc cannot load %s (hwloc: %s)", what,
			    errno_text(e));
	} else {
		rc = derive(topo, out, err);
	}
	hwloc_topology_destroy(topo);
	if (rc) {
		tm_node_hw_free(out);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

int tm_node_hw_synthetic(const char *desc, tm_node_hw_t *out, char *err)
{
	static const char pu_hint[] =
		"; hwloc 2.9 wants the PU level spelled out, e.g. '... core:6 pu:1'";
	hwloc_topology_t topo;
	char what[300];

	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "no output for the node description");
	memset(out, 0, sizeof(*out));
	if (!desc)
		return tm_err(err, TOPOMATCH_EINVAL, "no hwloc synthetic description");
	if (synthetic_product(desc) > TM_NODE_MAX_PU)
		return tm_err(err, TOPOMATCH_ELIMIT, "'%.200s' has more than %d PUs", desc,
			      TM_NODE_MAX_PU);
	if (hwloc_topology_init(&topo) < 0)
		return tm_err(err, TOPOMATCH_ENOMEM, "hwloc_topology_init failed (hwloc: %s)",
			      errno_text(errno));
	errno = 0;
	if (hwloc_topology_set_synthetic(topo, desc) < 0) {
		int e = errno;
		hwloc_topology_destroy(topo);
		return tm_err(err, TOPOMATCH_EPARSE,
			      "not a valid hwloc synthetic description: '%.200s' (hwloc: %s)%s",
			      desc, errno_text(e), synthetic_has_pu(desc) ? "" : pu_hint);
	}
	snprintf(what, sizeof(what), "synthetic description '%.200s'", desc);
	return load_and_derive(topo, what, out, err);
}

int tm_node_hw_xml(const char *path, tm_node_hw_t *out, char *err)
{
	hwloc_topology_t topo;
	char what[300];

	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "no output for the node description");
	memset(out, 0, sizeof(*out));
	if (!path || !*path)
		return tm_err(err, TOPOMATCH_EINVAL, "no hwloc XML path");
	/* hwloc's message for a missing file is vague: say it ourselves */
	FILE *f = fopen(path, "r");
	if (!f)
		return tm_err(err, TOPOMATCH_EIO, "cannot open hwloc XML '%.200s': %s", path,
			      strerror(errno));
	fclose(f);
	if (hwloc_topology_init(&topo) < 0)
		return tm_err(err, TOPOMATCH_ENOMEM, "hwloc_topology_init failed (hwloc: %s)",
			      errno_text(errno));
	errno = 0;
	if (hwloc_topology_set_xml(topo, path) < 0) {
		int e = errno;
		hwloc_topology_destroy(topo);
		return tm_err(err, TOPOMATCH_EPARSE,
			      "not a valid hwloc XML file: '%.200s' (hwloc: %s)", path,
			      errno_text(e));
	}
	snprintf(what, sizeof(what), "XML file '%.200s'", path);
	return load_and_derive(topo, what, out, err);
}

int tm_node_hw_copy(const tm_node_hw_t *src, tm_node_hw_t *dst)
{
	*dst = *src;
	dst->os_index = malloc((size_t)src->npu * sizeof(*dst->os_index));
	if (!dst->os_index)
		return 0;
	memcpy(dst->os_index, src->os_index, (size_t)src->npu * sizeof(*dst->os_index));
	return 1;
}

void tm_node_hw_free(tm_node_hw_t *hw)
{
	if (!hw)
		return;
	free(hw->os_index);
	hw->os_index = NULL;
}

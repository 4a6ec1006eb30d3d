/*
 * commprof.c - a PMPI profiling library that writes communication
 * matrices for slurm-topomatch (libcommprof.so: LD_PRELOAD it, or link it
 * before the MPI libraries).  See README.md and commprof(7).
 *
 * After TopoMapping's CommProfiler (Galvez, Jain, Kale, "Automatic
 * Topology Mapping of Diverse Large-scale Parallel Applications", ICS'17,
 * section 4.1): the bytes sent between ranks are recorded per communication
 * type (point-to-point and each collective), with the time spent in the
 * calls of each type; at MPI_Finalize rank 0 writes one matrix per type,
 * the Sum of them, and the Weighted-sum whose weights are each type's
 * share of the time.  The paper leaves out large (global) collectives,
 * which mapping can hardly improve: TOPOMATCH_PROF_EXCLUDE=global does so.
 *
 * What is counted, and why so:
 *  - The sender counts (count * MPI_Type_size_x(type)) towards the
 *    MPI_COMM_WORLD rank of the destination.  Receives are only timed, so
 *    MPI_ANY_SOURCE never needs resolving; MPI_PROC_NULL sends nothing.
 *  - Persistent sends (MPI_Send_init & co.) count at each MPI_Start /
 *    MPI_Startall, from a table keyed by the request (Open MPI 4.1's own
 *    monitoring component misses these).
 *  - A collective cannot be watched from outside, so its volume is
 *    decomposed into the pairs that the usual algorithms move it over (the
 *    table in README.md): binomial trees for bcast and reduce, recursive
 *    doubling for allreduce (Open MPI's ompi_coll_base_allreduce_intra_
 *    recursivedoubling), rings for allgather(v), direct exchanges for the
 *    rest.  Each rank counts the edges it sends on, so no rank needs
 *    anything but its own arguments.  Nonblocking collectives count as
 *    their blocking type.
 *  - Communicator ranks become MPI_COMM_WORLD ranks by
 *    MPI_Group_translate_ranks once per communicator, cached in an
 *    attribute (freed with the communicator by the delete callback).  On an
 *    intercommunicator, point-to-point goes to the remote group;
 *    collectives on intercommunicators are skipped and counted in one
 *    warning at the end.
 *  - Fortran: Open MPI's mpif.h / `use mpi` entry points (mpi_send_ ...)
 *    and the ompi_*_f functions that `use mpi_f08` calls do not go through
 *    the C MPI_ symbols.  We define those names too; each records, then
 *    calls Open MPI's own Fortran PMPI entry (pmpi_send_ ...), which does
 *    every conversion (MPI_IN_PLACE, MPI_BOTTOM, statuses, error codes)
 *    exactly as without the profiler.  They are weak references: a C
 *    program does not load libmpi_mpifh, and never reaches these wrappers.
 *  - Every wrapper calls the PMPI function first and records only when it
 *    succeeded, so arguments the profiler reads (datatypes, communicators)
 *    have been checked by MPI: an erroneous call behaves as without us.
 *
 * Cost per call: two MPI_Wtime, an attribute lookup for communicators other
 * than MPI_COMM_WORLD, one array update per edge (log2 n for trees).
 * Memory per rank: two arrays of n 64-bit counters (bytes, messages) per
 * type that was used, n = size of MPI_COMM_WORLD, limited to
 * COMMPROF_MAX_RANKS.  At MPI_Finalize, rank 0 receives the rows one rank
 * at a time and writes them at once: it never holds n x n numbers.
 *
 * Threads: counters are plain; under MPI_THREAD_MULTIPLE a mutex guards
 * them (taken only then).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this, rank 0's text files (n x n numbers) stop being useful. */
#define COMMPROF_MAX_RANKS 16384

enum cp_type {
	T_P2P,
	T_BCAST,
	T_REDUCE,
	T_ALLREDUCE,
	T_ALLTOALL,
	T_ALLTOALLV,
	T_ALLTOALLW,
	T_ALLGATHER,
	T_ALLGATHERV,
	T_GATHER,
	T_GATHERV,
	T_SCATTER,
	T_SCATTERV,
	T_REDUCE_SCATTER,
	T_REDUCE_SCATTER_BLOCK,
	T_SCAN,
	T_EXSCAN,
	T_BARRIER, /* time only: moves no data, so no matrix */
	NTYPES
};

static const char *const type_name[NTYPES] = {
	[T_P2P] = "p2p",
	[T_BCAST] = "bcast",
	[T_REDUCE] = "reduce",
	[T_ALLREDUCE] = "allreduce",
	[T_ALLTOALL] = "alltoall",
	[T_ALLTOALLV] = "alltoallv",
	[T_ALLTOALLW] = "alltoallw",
	[T_ALLGATHER] = "allgather",
	[T_ALLGATHERV] = "allgatherv",
	[T_GATHER] = "gather",
	[T_GATHERV] = "gatherv",
	[T_SCATTER] = "scatter",
	[T_SCATTERV] = "scatterv",
	[T_REDUCE_SCATTER] = "reduce_scatter",
	[T_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
	[T_SCAN] = "scan",
	[T_EXSCAN] = "exscan",
	[T_BARRIER] = "barrier",
};

/* A communicator as the profiler sees it: world[i] = MPI_COMM_WORLD rank of
 * rank i of the group that sends address (the remote group of an
 * intercommunicator), MPI_UNDEFINED when outside MPI_COMM_WORLD (spawned). */
struct comm_info {
	int size; /* of that group */
	int rank; /* ours in the local group */
	bool inter;
	bool global; /* an intracommunicator as large as MPI_COMM_WORLD */
	int world[];
};

/* A persistent send: what each MPI_Start of it moves. */
struct pers {
	uint64_t key; /* the MPI_Request's bits; 0 = empty slot */
	int dst;      /* MPI_COMM_WORLD rank */
	uint64_t bytes;
};

static struct {
	bool on;     /* recording */
	bool locked; /* MPI_THREAD_MULTIPLE: take mtx around updates */
	bool done;   /* the output was made (or refused) */
	int rank, size;
	int keyval;
	MPI_Group world_group;
	struct comm_info *world_info;
	unsigned excluded; /* bit per type, TOPOMATCH_PROF_EXCLUDE */
	bool exclude_global;
	unsigned used; /* bit per type called (and not excluded) */
	uint64_t *bytes[NTYPES], *msgs[NTYPES];
	double time[NTYPES];
	double calls[NTYPES];
	double skipped_inter, skipped_outside, nomem;
	struct pers *pers;
	size_t pers_cap, pers_len;
} cp;

static pthread_once_t cp_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cp_mtx = PTHREAD_MUTEX_INITIALIZER;

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "request handle fits a key");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int");

__attribute__((format(printf, 1, 2))) static void warn0(const char *fmt, ...)
{
	va_list ap;

	if (cp.rank != 0)
		return;
	va_start(ap, fmt);
	fputs("commprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void lock(void)
{
	if (cp.locked)
		pthread_mutex_lock(&cp_mtx);
}

static void unlock(void)
{
	if (cp.locked)
		pthread_mutex_unlock(&cp_mtx);
}

/* ------------------------------------------------------------------ */
/* Start-up (at the first intercepted call: no collective is allowed   */
/* here, the processes do not all come through the same call)          */
/* ------------------------------------------------------------------ */

static int info_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	free(val);
	return MPI_SUCCESS;
}

/* TOPOMATCH_PROF_EXCLUDE: comma-separated type names and "global". */
static void parse_exclude(void)
{
	const char *v = getenv("TOPOMATCH_PROF_EXCLUDE");

	while (v && *v) {
		size_t len = strcspn(v, ",");
		bool known = len == 0;

		if (len == 6 && strncmp(v, "global", 6) == 0) {
			cp.exclude_global = true;
			known = true;
		}
		for (int t = 0; t < NTYPES && !known; t++)
			if (strlen(type_name[t]) == len && strncmp(v, type_name[t], len) == 0) {
				cp.excluded |= 1u << t;
				known = true;
			}
		if (!known)
			warn0("TOPOMATCH_PROF_EXCLUDE: unknown type '%.*s' ignored (types: p2p, "
			      "bcast, reduce, allreduce, alltoall, ..., barrier, or global)",
			      (int)len, v);
		v += len + (v[len] == ',');
	}
}

static void cp_init(void)
{
	int flag = 0, level = MPI_THREAD_SINGLE;

	/* Only erroneous programs make MPI calls outside MPI_Init..Finalize. */
	PMPI_Initialized(&flag);
	if (!flag)
		return;
	PMPI_Finalized(&flag);
	if (flag)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &cp.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &cp.size);
	if (cp.size > COMMPROF_MAX_RANKS) {
		warn0("%d ranks: more than the %d this profiler handles; nothing recorded", cp.size,
		      COMMPROF_MAX_RANKS);
		return;
	}
	PMPI_Query_thread(&level);
	cp.locked = level == MPI_THREAD_MULTIPLE;
	parse_exclude();
	cp.world_info = malloc(sizeof(*cp.world_info) + (size_t)cp.size * sizeof(int));
	if (!cp.world_info) {
		warn0("out of memory at start-up; nothing recorded");
		return;
	}
	cp.world_info->size = cp.size;
	cp.world_info->rank = cp.rank;
	cp.world_info->inter = false;
	cp.world_info->global = true;
	for (int i = 0; i < cp.size; i++)
		cp.world_info->world[i] = i;
	PMPI_Comm_group(MPI_COMM_WORLD, &cp.world_group);
	/* Not copied on MPI_Comm_dup: the copy gets its own at first use. */
	PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, info_delete, &cp.keyval, NULL);
	cp.on = true;
}

static bool cp_active(void)
{
	pthread_once(&cp_once, cp_init);
	return cp.on && !cp.done;
}

/* The call's start time, or NaN when it is not recorded (off, or its
 * type excluded): MPI_Wtime may be any number, NaN it is not. */
static double t_begin(int t)
{
	if (!cp_active() || (cp.excluded >> t & 1))
		return NAN;
	return PMPI_Wtime();
}

static bool off(double t0)
{
	return isnan(t0);
}

/* ------------------------------------------------------------------ */
/* Communicators                                                       */
/* ------------------------------------------------------------------ */

static struct comm_info *build_info(MPI_Comm comm)
{
	struct comm_info *ci = NULL;
	MPI_Group g = MPI_GROUP_NULL;
	int inter = 0, n = 0, *ranks = NULL;

	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_group(comm, &g);
	else
		PMPI_Comm_group(comm, &g);
	PMPI_Group_size(g, &n);
	ci = malloc(sizeof(*ci) + (size_t)n * sizeof(int));
	ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
	if (!ci || !ranks) {
		free(ci);
		free(ranks);
		PMPI_Group_free(&g);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		ranks[i] = i;
	PMPI_Group_translate_ranks(g, n, ranks, cp.world_group, ci->world);
	free(ranks);
	PMPI_Group_free(&g);
	ci->size = n;
	PMPI_Comm_rank(comm, &ci->rank);
	ci->inter = inter != 0;
	ci->global = !inter && n == cp.size;
	return ci;
}

/* Called with the lock held, after a successful call on comm. */
static const struct comm_info *comm_info(MPI_Comm comm)
{
	struct comm_info *ci = NULL;
	int flag = 0;

	if (comm == MPI_COMM_WORLD)
		return cp.world_info;
	PMPI_Comm_get_attr(comm, cp.keyval, &ci, &flag);
	if (flag && ci)
		return ci;
	ci = build_info(comm);
	if (!ci) {
		cp.nomem++;
		return NULL;
	}
	PMPI_Comm_set_attr(comm, cp.keyval, ci);
	return ci;
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

static uint64_t tsize(MPI_Datatype type)
{
	MPI_Count s = 0;

	if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &s) != MPI_SUCCESS || s < 0)
		return 0;
	return (uint64_t)s;
}

static uint64_t vol(int count, MPI_Datatype type)
{
	return count > 0 ? (uint64_t)count * tsize(type) : 0;
}

static void add_world(int t, int dst, uint64_t bytes, uint64_t nmsg)
{
	if (!cp.bytes[t]) {
		cp.bytes[t] = calloc((size_t)cp.size, sizeof(uint64_t));
		cp.msgs[t] = calloc((size_t)cp.size, sizeof(uint64_t));
		if (!cp.bytes[t] || !cp.msgs[t]) {
			free(cp.bytes[t]);
			free(cp.msgs[t]);
			cp.bytes[t] = cp.msgs[t] = NULL;
			cp.nomem++;
			return;
		}
	}
	cp.bytes[t][dst] += bytes;
	cp.msgs[t][dst] += nmsg;
}

/* An edge of a collective's decomposition, to rank `to` of ci; a rank's
 * copies to itself are not network traffic and are left out. */
static void edge(int t, const struct comm_info *ci, int to, uint64_t bytes, uint64_t nmsg)
{
	int w;

	if (to == ci->rank || to < 0 || to >= ci->size)
		return;
	w = ci->world[to];
	if (w == MPI_UNDEFINED) {
		cp.skipped_outside++;
		return;
	}
	add_world(t, w, bytes, nmsg);
}

static void account(int t, double t0)
{
	cp.time[t] += PMPI_Wtime() - t0;
	cp.calls[t] += 1;
	cp.used |= 1u << t;
}

/* Time only: receives, waits, tests, probes (counted as p2p). */
static void timed(int t, double t0, int rc)
{
	if (off(t0) || rc != MPI_SUCCESS)
		return;
	lock();
	account(t, t0);
	unlock();
}

/* World rank of dest in comm (point-to-point), or -1. */
static int p2p_dest(int dest, MPI_Comm comm)
{
	const struct comm_info *ci;

	if (dest == MPI_PROC_NULL)
		return -1;
	ci = comm_info(comm);
	if (!ci || dest < 0 || dest >= ci->size)
		return -1;
	if (ci->world[dest] == MPI_UNDEFINED)
		cp.skipped_outside++;
	return ci->world[dest] == MPI_UNDEFINED ? -1 : ci->world[dest];
}

static void p2p_done(double t0, int rc, int count, MPI_Datatype type, int dest, MPI_Comm comm)
{
	int w;

	if (off(t0) || rc != MPI_SUCCESS)
		return;
	lock();
	account(T_P2P, t0);
	w = p2p_dest(dest, comm);
	if (w >= 0)
		add_world(T_P2P, w, vol(count, type), 1);
	unlock();
}

/* A collective's communicator, or NULL when the call is not recorded; the
 * lock is held on success. */
static const struct comm_info *coll_begin(int t, double t0, int rc, MPI_Comm comm)
{
	const struct comm_info *ci;

	if (off(t0) || rc != MPI_SUCCESS)
		return NULL;
	lock();
	ci = comm_info(comm);
	if (ci && ci->inter)
		cp.skipped_inter++;
	if (!ci || ci->inter || (cp.exclude_global && ci->global)) {
		unlock();
		return NULL;
	}
	account(t, t0);
	return ci;
}

/* ------------------------------------------------------------------ */
/* Persistent sends: request -> (destination, bytes)                   */
/* ------------------------------------------------------------------ */

static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;

	memcpy(&k, &r, sizeof(r));
	return k;
}

static size_t pers_slot(uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15u;
	return (size_t)(h >> 17) & (cp.pers_cap - 1);
}

static struct pers *pers_find(uint64_t key)
{
	if (!cp.pers_len || !key)
		return NULL;
	for (size_t i = pers_slot(key);; i = (i + 1) & (cp.pers_cap - 1)) {
		if (cp.pers[i].key == key)
			return &cp.pers[i];
		if (!cp.pers[i].key)
			return NULL;
	}
}

static bool pers_grow(void)
{
	size_t cap = cp.pers_cap ? 2 * cp.pers_cap : 64;
	struct pers *old = cp.pers, *p = calloc(cap, sizeof(*p));
	size_t oldcap = cp.pers_cap;

	if (!p)
		return false;
	cp.pers = p;
	cp.pers_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key) {
			size_t j = pers_slot(old[i].key);
			while (p[j].key)
				j = (j + 1) & (cap - 1);
			p[j] = old[i];
		}
	free(old);
	return true;
}

static void pers_add(MPI_Request r, int dst, uint64_t bytes)
{
	uint64_t key = req_key(r);
	struct pers *e = pers_find(key);

	if (!key)
		return;
	if (!e) {
		if (2 * (cp.pers_len + 1) > cp.pers_cap && !pers_grow()) {
			cp.nomem++;
			return;
		}
		size_t i = pers_slot(key);
		while (cp.pers[i].key)
			i = (i + 1) & (cp.pers_cap - 1);
		e = &cp.pers[i];
		e->key = key;
		cp.pers_len++;
	}
	e->dst = dst;
	e->bytes = bytes;
}

/* Linear probing: move the following entries back into the hole. */
static void pers_remove(uint64_t key)
{
	struct pers *e = pers_find(key);
	size_t i, j, k, mask = cp.pers_cap - 1;

	if (!e)
		return;
	i = (size_t)(e - cp.pers);
	cp.pers[i].key = 0;
	cp.pers_len--;
	for (j = (i + 1) & mask; cp.pers[j].key; j = (j + 1) & mask) {
		k = pers_slot(cp.pers[j].key);
		/* j's entry may stay unless its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		cp.pers[i] = cp.pers[j];
		cp.pers[j].key = 0;
		i = j;
	}
}

/* req is read only after the call succeeded (it may be NULL otherwise). */
static void init_done(double t0, int rc, int count, MPI_Datatype type, int dest, MPI_Comm comm,
		      const MPI_Request *req)
{
	int w;

	if (off(t0) || rc != MPI_SUCCESS)
		return;
	lock();
	account(T_P2P, t0);
	w = p2p_dest(dest, comm);
	if (w >= 0)
		pers_add(*req, w, vol(count, type));
	unlock();
}

/* After a successful start of n requests (lock held). */
static void started(MPI_Request r)
{
	struct pers *e = pers_find(req_key(r));

	if (e)
		add_world(T_P2P, e->dst, e->bytes, 1);
}

static void freed(double t0, int rc, MPI_Request r)
{
	if (off(t0) || rc != MPI_SUCCESS)
		return;
	lock();
	pers_remove(req_key(r));
	unlock();
}

/* ------------------------------------------------------------------ */
/* Collective decompositions (README.md has the table)                 */
/* ------------------------------------------------------------------ */

/* Binomial tree rooted at root (MPICH / Open MPI "binomial"): relative
 * rank v receives from v minus its lowest set bit and sends to v + m for
 * each power of two m below that bit (below n for the root). */
static void rec_bcast_tree(int t, const struct comm_info *ci, int root, uint64_t bytes)
{
	int n = ci->size, v = (ci->rank - root + n) % n;
	long mask = 1;

	while (mask < n && !(v & mask))
		mask <<= 1;
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n)
			edge(t, ci, (int)((v + mask + root) % n), bytes, 1);
}

/* The same tree, leaves to root: v sends to v minus its lowest set bit. */
static void rec_reduce_tree(int t, const struct comm_info *ci, int root, uint64_t bytes)
{
	int n = ci->size, v = (ci->rank - root + n) % n;

	if (v != 0)
		edge(t, ci, ((v - (v & -v)) + root) % n, bytes, 1);
}

/* Recursive doubling, as Open MPI's ompi_coll_base_allreduce_intra_
 * recursivedoubling: with p2 the largest power of two <= n and
 * rem = n - p2, even ranks below 2*rem hand their data to the next odd
 * rank and get the result back from it; the p2 others exchange the full
 * vector with partner newrank ^ mask for mask = 1, 2, .. p2/2. */
static void rec_allreduce(int t, const struct comm_info *ci, uint64_t bytes)
{
	int n = ci->size, r = ci->rank, p2 = 1, rem, nr;

	while (p2 * 2 <= n)
		p2 *= 2;
	rem = n - p2;
	if (r < 2 * rem) {
		if (r % 2 == 0) {
			edge(t, ci, r + 1, bytes, 1);
			return;
		}
		nr = r / 2;
	} else {
		nr = r - rem;
	}
	for (int mask = 1; mask < p2; mask <<= 1) {
		int nd = nr ^ mask;
		edge(t, ci, nd < rem ? nd * 2 + 1 : nd + rem, bytes, 1);
	}
	if (r < 2 * rem)
		edge(t, ci, r - 1, bytes, 1);
}

/* Ring: at step s (0 .. n-2) rank r passes block (r - s) mod n to r + 1. */
static void rec_allgather_ring(int t, const struct comm_info *ci, const int *counts, int count,
			       MPI_Datatype type)
{
	int n = ci->size, r = ci->rank;
	uint64_t sz = tsize(type), bytes = 0;

	if (n < 2)
		return;
	for (int s = 0; s < n - 1; s++) {
		int c = counts ? counts[(r - s + n) % n] : count;
		bytes += c > 0 ? (uint64_t)c * sz : 0;
	}
	edge(t, ci, (r + 1) % n, bytes, (uint64_t)n - 1);
}

/* Block i of a reduce_scatter: counts[i], or count for the _block form. */
static uint64_t block(const int *counts, int count, int i)
{
	int c = counts ? counts[i] : count;
	return c > 0 ? (uint64_t)c : 0;
}

/* Reduce of the whole vector to rank 0 (binomial), then rank 0 scatters
 * block i to rank i: Open MPI's basic reduce_scatter. */
static void rec_reduce_scatter(int t, const struct comm_info *ci, const int *counts, int count,
			       MPI_Datatype type)
{
	uint64_t sz = tsize(type), total = 0;

	for (int i = 0; i < ci->size; i++)
		total += block(counts, count, i);
	rec_reduce_tree(t, ci, 0, total * sz);
	if (ci->rank == 0)
		for (int i = 1; i < ci->size; i++)
			edge(t, ci, i, block(counts, count, i) * sz, 1);
}

/* Linear chain: rank r passes its partial result to r + 1. */
static void rec_scan(int t, const struct comm_info *ci, int count, MPI_Datatype type)
{
	if (ci->rank + 1 < ci->size)
		edge(t, ci, ci->rank + 1, vol(count, type), 1);
}

/* To every other rank j: counts[j] elements of types[j] (or of type when
 * types is NULL; Fortran handles in ftypes). */
static void rec_to_all(int t, const struct comm_info *ci, const int *counts, int count,
		       MPI_Datatype type, const MPI_Datatype *types, const MPI_Fint *ftypes)
{
	uint64_t sz = tsize(type);

	for (int j = 0; j < ci->size; j++) {
		if (j == ci->rank)
			continue;
		if (types)
			sz = tsize(types[j]);
		else if (ftypes)
			sz = tsize(PMPI_Type_f2c(ftypes[j]));
		int c = counts ? counts[j] : count;
		edge(t, ci, j, c > 0 ? (uint64_t)c * sz : 0, 1);
	}
}

/* ------------------------------------------------------------------ */
/* Output at MPI_Finalize                                              */
/* ------------------------------------------------------------------ */

struct out_file {
	char name[48]; /* "p2p", "p2p.count", "sum", "wsum", ... */
	int type;      /* enum cp_type, or -1 for sum/wsum */
	bool counts, weighted;
	char *path;
	FILE *f;
	int err; /* errno of the first failure */
};

static char *u64str(char *p, uint64_t v)
{
	char tmp[24];
	int k = 0;

	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		*p++ = tmp[--k];
	return p;
}

/* One row: n numbers (doubles when weighted). */
static void write_row(struct out_file *o, const uint64_t *row, int n, char *line)
{
	char *p = line;

	if (!o->f)
		return;
	for (int j = 0; j < n; j++) {
		if (j)
			*p++ = ' ';
		if (o->weighted) {
			double d;
			memcpy(&d, &row[j], sizeof(d));
			if (d == 0)
				*p++ = '0';
			else
				p += snprintf(p, 32, "%.15g", d);
		} else {
			p = u64str(p, row[j]);
		}
	}
	*p++ = '\n';
	errno = 0; /* so that a short write without errno reads as EIO */
	if (fwrite(line, 1, (size_t)(p - line), o->f) != (size_t)(p - line) && !o->err)
		o->err = errno ? errno : EIO;
}

static void close_file(struct out_file *o)
{
	if (!o->f)
		return;
	if (ferror(o->f) && !o->err)
		o->err = EIO;
	errno = 0;
	if (fclose(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	o->f = NULL;
	if (o->err)
		fprintf(stderr, "commprof: cannot write %s: %s\n", o->path, strerror(o->err));
}

/* This rank's row of each output. */
static void fill_rows(const struct out_file *outs, int nout, const double *share, uint64_t *buf)
{
	int n = cp.size;

	memset(buf, 0, (size_t)nout * (size_t)n * sizeof(uint64_t));
	for (int k = 0; k < nout; k++) {
		const struct out_file *o = &outs[k];
		uint64_t *row = buf + (size_t)k * (size_t)n;

		if (o->type >= 0) {
			const uint64_t *src = o->counts ? cp.msgs[o->type] : cp.bytes[o->type];
			if (src)
				memcpy(row, src, (size_t)n * sizeof(uint64_t));
			continue;
		}
		for (int t = 0; t < T_BARRIER; t++) {
			const uint64_t *src = o->counts ? cp.msgs[t] : cp.bytes[t];
			if (!src || share[t] < 0)
				continue;
			for (int j = 0; j < n; j++) {
				if (!o->weighted) {
					row[j] += src[j];
				} else if (src[j]) {
					double d;
					memcpy(&d, &row[j], sizeof(d));
					d += share[t] * (double)src[j];
					memcpy(&row[j], &d, sizeof(d));
				}
			}
		}
	}
}

static void write_header(struct out_file *o, const double *gtime, const double *gcalls,
			 const double *share, unsigned used)
{
	FILE *f = o->f;
	int t = o->type;
	const char *what = o->counts ? "messages" : o->weighted ? "weighted bytes" : "bytes";

	fprintf(f, "# commprof (slurm-topomatch) %s: %s sent by MPI_COMM_WORLD rank i (row) "
		   "to rank j (column), %d ranks\n",
		o->name, what, cp.size);
	if (t >= 0) {
		fprintf(f, "# %s: %.0f calls, %.6g s in them over all ranks, %.4f of the time "
			   "of the written types\n",
			type_name[t], gcalls[t], gtime[t], share[t]);
		return;
	}
	fprintf(f, "# %s of:", o->weighted ? "sum of share x bytes" : "sum");
	for (int u = 0; u < T_BARRIER; u++)
		if (share[u] >= 0)
			fprintf(f, " %s (share %.4f, %.6g s)", type_name[u], share[u], gtime[u]);
	fputc('\n', f);
	if (used >> T_BARRIER & 1)
		fprintf(f, "# barrier: %.0f calls, %.6g s (no data, not in the shares)\n",
			gcalls[T_BARRIER], gtime[T_BARRIER]);
}

static void cp_output(void)
{
	enum { NSTAT = 2 * NTYPES + 3 };
	double loc[NSTAT], glob[NSTAT], share[NTYPES], total = 0;
	struct out_file outs[2 * NTYPES + 3];
	int go[2] = { 0, 0 }, nout = 0, n;
	unsigned used = 0;
	const char *prefix = NULL;
	uint64_t *buf = NULL;
	char *line = NULL;
	MPI_Comm c;

	if (!cp_active())
		return;
	lock();
	cp.done = true; /* our own calls below go through PMPI anyway */
	unlock();
	n = cp.size;
	PMPI_Comm_dup(MPI_COMM_WORLD, &c);
	if (cp.rank == 0) {
		const char *cnt = getenv("TOPOMATCH_PROF_COUNTS");
		prefix = getenv("TOPOMATCH_PROF_OUT");
		go[0] = prefix && *prefix;
		go[1] = cnt && *cnt && strcmp(cnt, "0") != 0;
	}
	PMPI_Bcast(go, 2, MPI_INT, 0, c);
	if (!go[0]) {
		warn0("TOPOMATCH_PROF_OUT is not set: no profile written (set it to a path "
		      "prefix, e.g. TOPOMATCH_PROF_OUT=/tmp/prof)");
		PMPI_Comm_free(&c);
		return;
	}
	PMPI_Allreduce(&cp.used, &used, 1, MPI_UNSIGNED, MPI_BOR, c);
	memcpy(loc, cp.time, sizeof(cp.time));
	memcpy(loc + NTYPES, cp.calls, sizeof(cp.calls));
	loc[2 * NTYPES] = cp.skipped_inter;
	loc[2 * NTYPES + 1] = cp.skipped_outside;
	loc[2 * NTYPES + 2] = cp.nomem;
	PMPI_Allreduce(loc, glob, NSTAT, MPI_DOUBLE, MPI_SUM, c);

	/* The matrices: each type used, then sum, wsum; counts on request.
	 * share[t] < 0: no matrix of type t. */
	for (int t = 0; t < NTYPES; t++) {
		share[t] = -1;
		if (t == T_BARRIER || !(used >> t & 1))
			continue;
		share[t] = 0;
		total += glob[t];
		for (int k = 0; k <= go[1]; k++) {
			struct out_file *o = &outs[nout++];
			memset(o, 0, sizeof(*o));
			snprintf(o->name, sizeof(o->name), "%s%s", type_name[t], k ? ".count" : "");
			o->type = t;
			o->counts = k;
		}
	}
	for (int t = 0; t < T_BARRIER; t++)
		if (share[t] >= 0)
			share[t] = total > 0 ? glob[t] / total : 1.0;
	for (int k = 0; k < 2 + go[1]; k++) {
		struct out_file *o = &outs[nout++];
		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "%s",
			 k == 0 ? "sum" : k == 1 ? "wsum" : "sum.count");
		o->type = -1;
		o->weighted = k == 1;
		o->counts = k == 2;
	}

	buf = malloc((size_t)nout * (size_t)n * sizeof(uint64_t));
	if (buf)
		fill_rows(outs, nout, share, buf);
	if (cp.rank != 0) {
		/* Always sent, even empty, so that rank 0 never waits forever. */
		PMPI_Send(buf, buf ? nout * n : 0, MPI_UINT64_T, 0, 0, c);
		free(buf);
		PMPI_Comm_free(&c);
		return;
	}

	/* Rank 0: a row's text is at most n * 24 bytes (20 digits or a %.15g
	 * double of at most 23 characters, and a blank). */
	line = malloc((size_t)n * 24 + 40);
	if (!buf || !line) {
		fprintf(stderr,
			"commprof: out of memory for %d x %d matrices: no profile written\n", n,
			n);
		nout = 0;
	}
	for (int k = 0; k < nout; k++) {
		struct out_file *o = &outs[k];
		size_t len = strlen(prefix) + strlen(o->name) + 6;
		o->path = malloc(len);
		if (!o->path) {
			o->err = ENOMEM;
			continue;
		}
		snprintf(o->path, len, "%s.%s.mat", prefix, o->name);
		o->f = fopen(o->path, "w");
		if (!o->f) {
			o->err = errno;
			fprintf(stderr, "commprof: cannot write %s: %s\n", o->path,
				strerror(o->err));
			continue;
		}
		write_header(o, glob, glob + NTYPES, share, used);
	}
	for (int i = 0; i < n; i++) {
		int got = nout * n;
		if (i > 0) {
			MPI_Status st;
			/* A rank that had no memory sends nothing: a zero row. */
			PMPI_Recv(buf, buf ? nout * n : 0, MPI_UINT64_T, i, 0, c, &st);
			PMPI_Get_count(&st, MPI_UINT64_T, &got);
			if (got != nout * n && buf) {
				memset(buf, 0, (size_t)nout * (size_t)n * sizeof(uint64_t));
				glob[2 * NTYPES + 2] += 1;
			}
		}
		for (int k = 0; k < nout; k++)
			write_row(&outs[k], buf + (size_t)k * (size_t)n, n, line);
	}
	for (int k = 0; k < nout; k++) {
		close_file(&outs[k]);
		free(outs[k].path);
	}
	if (glob[2 * NTYPES] > 0)
		warn0("%.0f collective calls on intercommunicators were not recorded",
		      glob[2 * NTYPES]);
	if (glob[2 * NTYPES + 1] > 0)
		warn0("%.0f sends to processes outside MPI_COMM_WORLD were not recorded",
		      glob[2 * NTYPES + 1]);
	if (glob[2 * NTYPES + 2] > 0)
		warn0("out of memory %.0f times while recording: the matrices are incomplete",
		      glob[2 * NTYPES + 2]);
	free(line);
	free(buf);
	PMPI_Comm_free(&c);
}

/* ------------------------------------------------------------------ */
/* C entry points                                                      */
/* ------------------------------------------------------------------ */

int MPI_Finalize(void)
{
	cp_output();
	return PMPI_Finalize();
}

#define C_SEND(NAME)                                                                            \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,        \
		       MPI_Comm comm)                                                           \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                        \
		p2p_done(t0, rc, count, type, dest, comm);                                      \
		return rc;                                                                      \
	}
C_SEND(Send)
C_SEND(Bsend)
C_SEND(Ssend)
C_SEND(Rsend)

#define C_ISEND(NAME)                                                                           \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,        \
		       MPI_Comm comm, MPI_Request *req)                                         \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                   \
		p2p_done(t0, rc, count, type, dest, comm);                                      \
		return rc;                                                                      \
	}
C_ISEND(Isend)
C_ISEND(Ibsend)
C_ISEND(Issend)
C_ISEND(Irsend)

#define C_SEND_INIT(NAME)                                                                       \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,        \
		       MPI_Comm comm, MPI_Request *req)                                         \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                   \
		init_done(t0, rc, count, type, dest, comm, req);                                \
		return rc;                                                                      \
	}
C_SEND_INIT(Send_init)
C_SEND_INIT(Bsend_init)
C_SEND_INIT(Ssend_init)
C_SEND_INIT(Rsend_init)

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
		 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
		 MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
			       comm, status);
	p2p_done(t0, rc, scount, stype, dest, comm);
	return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
			 int rtag, MPI_Comm comm, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
	p2p_done(t0, rc, count, type, dest, comm);
	return rc;
}

int MPI_Start(MPI_Request *req)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Start(req);

	if (!off(t0) && rc == MPI_SUCCESS) {
		lock();
		account(T_P2P, t0);
		started(*req);
		unlock();
	}
	return rc;
}

int MPI_Startall(int count, MPI_Request reqs[])
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Startall(count, reqs);

	if (!off(t0) && rc == MPI_SUCCESS) {
		lock();
		account(T_P2P, t0);
		for (int i = 0; i < count; i++)
			started(reqs[i]);
		unlock();
	}
	return rc;
}

int MPI_Request_free(MPI_Request *req)
{
	double t0 = t_begin(T_P2P);
	MPI_Request r = req ? *req : MPI_REQUEST_NULL; /* NULL: MPI says what is wrong */
	int rc = PMPI_Request_free(req);

	freed(t0, rc, r);
	return rc;
}

/* Time only. */
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Mrecv(buf, count, type, msg, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Probe(source, tag, comm, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Wait(req, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Waitall(count, reqs, statuses);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Waitany(count, reqs, index, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Test(req, flag, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Testall(count, reqs, flag, statuses);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Testany(count, reqs, index, flag, status);
	timed(T_P2P, t0, rc);
	return rc;
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	double t0 = t_begin(T_P2P);
	int rc = PMPI_Testsome(incount, reqs, outcount, indices, statuses);
	timed(T_P2P, t0, rc);
	return rc;
}


/* ------------------------------------------------------------------ */
/* Collectives: one recorder per type, shared by C and Fortran; each   */
/* runs with the lock held, on a recorded intracommunicator ci         */
/* ------------------------------------------------------------------ */

static void rec_bcast(const struct comm_info *ci, int root, int count, MPI_Datatype type)
{
	rec_bcast_tree(T_BCAST, ci, root, vol(count, type));
}

static void rec_reduce(const struct comm_info *ci, int root, int count, MPI_Datatype type)
{
	rec_reduce_tree(T_REDUCE, ci, root, vol(count, type));
}

/* alltoall: the receive side (always significant, MPI_IN_PLACE or not)
 * equals what this rank sends to each (matching type signatures). */
static void rec_alltoall(const struct comm_info *ci, int rcount, MPI_Datatype rtype)
{
	rec_to_all(T_ALLTOALL, ci, NULL, rcount, rtype, NULL, NULL);
}

/* In place, a rank sends j as much as it receives from j. */
static void rec_alltoallv(const struct comm_info *ci, bool inplace, const int *scounts,
			  MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype)
{
	if (inplace)
		rec_to_all(T_ALLTOALLV, ci, rcounts, 0, rtype, NULL, NULL);
	else
		rec_to_all(T_ALLTOALLV, ci, scounts, 0, stype, NULL, NULL);
}

static void rec_gather(int t, const struct comm_info *ci, int root, int scount,
		       MPI_Datatype stype)
{
	if (ci->rank != root)
		edge(t, ci, root, vol(scount, stype), 1);
}

/* The root sends each other rank its block (scounts NULL: scount each). */
static void rec_scatter(int t, const struct comm_info *ci, int root, const int *scounts,
			int scount, MPI_Datatype stype)
{
	if (ci->rank == root)
		rec_to_all(t, ci, scounts, scount, stype, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* C collectives                                                       */
/* ------------------------------------------------------------------ */

/* The body of every collective wrapper: CALL is the PMPI call, RECORD runs
 * with `ci` set when the call is recorded. */
#define COLL_BODY(T, CALL, COMM, RECORD)                                                        \
	double t0 = t_begin(T);                                                                 \
	int rc = CALL;                                                                          \
	const struct comm_info *ci = coll_begin(T, t0, rc, COMM);                               \
	if (ci) {                                                                               \
		RECORD;                                                                         \
		unlock();                                                                       \
	}                                                                                       \
	return rc

int MPI_Barrier(MPI_Comm comm)
{
	COLL_BODY(T_BARRIER, PMPI_Barrier(comm), comm, (void)ci);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_BARRIER, PMPI_Ibarrier(comm, req), comm, (void)ci);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	COLL_BODY(T_BCAST, PMPI_Bcast(buf, count, type, root, comm), comm,
		  rec_bcast(ci, root, count, type));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
	       MPI_Request *req)
{
	COLL_BODY(T_BCAST, PMPI_Ibcast(buf, count, type, root, comm, req), comm,
		  rec_bcast(ci, root, count, type));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
	       MPI_Comm comm)
{
	COLL_BODY(T_REDUCE, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm), comm,
		  rec_reduce(ci, root, count, type));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
		MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_REDUCE, PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req), comm,
		  rec_reduce(ci, root, count, type));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		  MPI_Comm comm)
{
	COLL_BODY(T_ALLREDUCE, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm), comm,
		  rec_allreduce(T_ALLREDUCE, ci, vol(count, type)));
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		   MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_ALLREDUCE, PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req), comm,
		  rec_allreduce(T_ALLREDUCE, ci, vol(count, type)));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		 MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_BODY(T_ALLTOALL, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), comm,
		  rec_alltoall(ci, rcount, rtype));
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_ALLTOALL,
		  PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), comm,
		  rec_alltoall(ci, rcount, rtype));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
		  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
		  MPI_Comm comm)
{
	COLL_BODY(T_ALLTOALLV,
		  PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
				 comm),
		  comm, rec_alltoallv(ci, sbuf == MPI_IN_PLACE, scounts, stype, rcounts, rtype));
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		   MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
		   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_ALLTOALLV,
		  PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
				  comm, req),
		  comm, rec_alltoallv(ci, sbuf == MPI_IN_PLACE, scounts, stype, rcounts, rtype));
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		  const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
		  const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	bool inplace = sbuf == MPI_IN_PLACE;
	COLL_BODY(T_ALLTOALLW,
		  PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
				 comm),
		  comm,
		  rec_to_all(T_ALLTOALLW, ci, inplace ? rcounts : scounts, 0, MPI_DATATYPE_NULL,
			     inplace ? rtypes : stypes, NULL));
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		   const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
		   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
		   MPI_Request *req)
{
	bool inplace = sbuf == MPI_IN_PLACE;
	COLL_BODY(T_ALLTOALLW,
		  PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
				  comm, req),
		  comm,
		  rec_to_all(T_ALLTOALLW, ci, inplace ? rcounts : scounts, 0, MPI_DATATYPE_NULL,
			     inplace ? rtypes : stypes, NULL));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		  MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_BODY(T_ALLGATHER, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm),
		  comm, rec_allgather_ring(T_ALLGATHER, ci, NULL, rcount, rtype));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_ALLGATHER,
		  PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), comm,
		  rec_allgather_ring(T_ALLGATHER, ci, NULL, rcount, rtype));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_BODY(T_ALLGATHERV,
		  PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), comm,
		  rec_allgather_ring(T_ALLGATHERV, ci, rcounts, 0, rtype));
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
		    MPI_Request *req)
{
	COLL_BODY(T_ALLGATHERV,
		  PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req),
		  comm, rec_allgather_ring(T_ALLGATHERV, ci, rcounts, 0, rtype));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	       MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_BODY(T_GATHER, PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
		  comm, rec_gather(T_GATHER, ci, root, scount, stype));
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_GATHER,
		  PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), comm,
		  rec_gather(T_GATHER, ci, root, scount, stype));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		MPI_Comm comm)
{
	COLL_BODY(T_GATHERV,
		  PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
		  comm, rec_gather(T_GATHERV, ci, root, scount, stype));
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		 const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		 MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_GATHERV,
		  PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm,
				req),
		  comm, rec_gather(T_GATHERV, ci, root, scount, stype));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_BODY(T_SCATTER, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
		  comm, rec_scatter(T_SCATTER, ci, root, NULL, scount, stype));
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_SCATTER,
		  PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), comm,
		  rec_scatter(T_SCATTER, ci, root, NULL, scount, stype));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
		 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_BODY(T_SCATTERV,
		  PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
		  comm, rec_scatter(T_SCATTERV, ci, root, scounts, 0, stype));
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
		  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
		  MPI_Request *req)
{
	COLL_BODY(T_SCATTERV,
		  PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
				 req),
		  comm, rec_scatter(T_SCATTERV, ci, root, scounts, 0, stype));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
		       MPI_Op op, MPI_Comm comm)
{
	COLL_BODY(T_REDUCE_SCATTER, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm),
		  comm, rec_reduce_scatter(T_REDUCE_SCATTER, ci, rcounts, 0, type));
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
			MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_REDUCE_SCATTER,
		  PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req), comm,
		  rec_reduce_scatter(T_REDUCE_SCATTER, ci, rcounts, 0, type));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
			     MPI_Op op, MPI_Comm comm)
{
	COLL_BODY(T_REDUCE_SCATTER_BLOCK,
		  PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm), comm,
		  rec_reduce_scatter(T_REDUCE_SCATTER_BLOCK, ci, NULL, rcount, type));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
			      MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_REDUCE_SCATTER_BLOCK,
		  PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req), comm,
		  rec_reduce_scatter(T_REDUCE_SCATTER_BLOCK, ci, NULL, rcount, type));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
	     MPI_Comm comm)
{
	COLL_BODY(T_SCAN, PMPI_Scan(sbuf, rbuf, count, type, op, comm), comm,
		  rec_scan(T_SCAN, ci, count, type));
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
	      MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_SCAN, PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req), comm,
		  rec_scan(T_SCAN, ci, count, type));
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
	       MPI_Comm comm)
{
	COLL_BODY(T_EXSCAN, PMPI_Exscan(sbuf, rbuf, count, type, op, comm), comm,
		  rec_scan(T_EXSCAN, ci, count, type));
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		MPI_Comm comm, MPI_Request *req)
{
	COLL_BODY(T_EXSCAN, PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req), comm,
		  rec_scan(T_EXSCAN, ci, count, type));
}

/* ------------------------------------------------------------------ */
/* Fortran entry points (mpif.h, `use mpi`, and `use mpi_f08` through   */
/* Open MPI's ompi_*_f)                                                */
/* ------------------------------------------------------------------ */

/* Every spelling a Fortran compiler may look for, and the ompi_*_f that
 * Open MPI's mpi_f08 module calls. */
#define F_ALIASES(lc, UC, fn, PARAMS)                                                           \
	void mpi_##lc PARAMS __attribute__((alias(#fn)));                                       \
	void mpi_##lc##_ PARAMS __attribute__((alias(#fn)));                                    \
	void mpi_##lc##__ PARAMS __attribute__((alias(#fn)));                                   \
	void MPI_##UC PARAMS __attribute__((alias(#fn)));                                       \
	void ompi_##lc##_f PARAMS __attribute__((alias(#fn)));

/* Open MPI's own Fortran entry, the same code as mpi_*_ without us. */
#define F_PMPI(lc, PARAMS) extern void pmpi_##lc##_ PARAMS __attribute__((weak));

/* Unreachable in practice: Fortran code that calls mpi_x_ has loaded
 * libmpi_mpifh, which defines pmpi_x_. */
static void no_fortran(const char *name, MPI_Fint *ierr)
{
	fprintf(stderr, "commprof: mpi_%s_ called, but Open MPI's pmpi_%s_ is not loaded\n", name,
		name);
	*ierr = MPI_ERR_INTERN;
}

#define F_CALL(lc, ARGS)                                                                        \
	do {                                                                                    \
		if (!pmpi_##lc##_) {                                                            \
			no_fortran(#lc, ierr);                                                  \
			return;                                                                 \
		}                                                                               \
		pmpi_##lc##_ ARGS;                                                              \
	} while (0)

/* Fortran's MPI_IN_PLACE is the address of this common block (Open MPI's
 * OMPI_IS_FORTRAN_IN_PLACE); weak so that other builds still link. */
extern int mpi_fortran_in_place_ __attribute__((weak));

static bool f_in_place(const void *buf)
{
	return &mpi_fortran_in_place_ && buf == (const void *)&mpi_fortran_in_place_;
}

#define F_SEND(lc, UC)                                                                          \
	F_PMPI(lc, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,  \
		    MPI_Fint *comm, MPI_Fint *ierr))                                            \
	static void f_##lc(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest,          \
			   MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr)                       \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		F_CALL(lc, (buf, count, type, dest, tag, comm, ierr));                          \
		if (!off(t0) && *ierr == MPI_SUCCESS)                                           \
			p2p_done(t0, MPI_SUCCESS, *count, PMPI_Type_f2c(*type), *dest,          \
				 PMPI_Comm_f2c(*comm));                                         \
	}                                                                                       \
	F_ALIASES(lc, UC, f_##lc,                                                               \
		  (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,   \
		   MPI_Fint *comm, MPI_Fint *ierr))
F_SEND(send, SEND)
F_SEND(bsend, BSEND)
F_SEND(ssend, SSEND)
F_SEND(rsend, RSEND)

/* Nonblocking sends (INIT 0) and persistent ones (INIT 1). */
#define F_ISEND(lc, UC, INIT)                                                                   \
	F_PMPI(lc, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,  \
		    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))                             \
	static void f_##lc(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest,          \
			   MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)        \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		F_CALL(lc, (buf, count, type, dest, tag, comm, req, ierr));                     \
		if (off(t0) || *ierr != MPI_SUCCESS)                                            \
			return;                                                                 \
		if (INIT) {                                                                     \
			MPI_Request r = PMPI_Request_f2c(*req);                                 \
			init_done(t0, MPI_SUCCESS, *count, PMPI_Type_f2c(*type), *dest,         \
				  PMPI_Comm_f2c(*comm), &r);                                    \
		} else {                                                                        \
			p2p_done(t0, MPI_SUCCESS, *count, PMPI_Type_f2c(*type), *dest,          \
				 PMPI_Comm_f2c(*comm));                                         \
		}                                                                               \
	}                                                                                       \
	F_ALIASES(lc, UC, f_##lc,                                                               \
		  (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,   \
		   MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))
F_ISEND(isend, ISEND, 0)
F_ISEND(ibsend, IBSEND, 0)
F_ISEND(issend, ISSEND, 0)
F_ISEND(irsend, IRSEND, 0)
F_ISEND(send_init, SEND_INIT, 1)
F_ISEND(bsend_init, BSEND_INIT, 1)
F_ISEND(ssend_init, SSEND_INIT, 1)
F_ISEND(rsend_init, RSEND_INIT, 1)

#define SENDRECV_PARAMS                                                                         \
	(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, MPI_Fint *dest, MPI_Fint *stag,         \
	 void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *source, MPI_Fint *rtag,       \
	 MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
F_PMPI(sendrecv, SENDRECV_PARAMS)
static void f_sendrecv SENDRECV_PARAMS
{
	double t0 = t_begin(T_P2P);
	F_CALL(sendrecv, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
			  status, ierr));
	if (!off(t0) && *ierr == MPI_SUCCESS)
		p2p_done(t0, MPI_SUCCESS, *scount, PMPI_Type_f2c(*stype), *dest,
			 PMPI_Comm_f2c(*comm));
}
F_ALIASES(sendrecv, SENDRECV, f_sendrecv, SENDRECV_PARAMS)

#define SENDRECV_REPLACE_PARAMS                                                                 \
	(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *stag,            \
	 MPI_Fint *source, MPI_Fint *rtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
F_PMPI(sendrecv_replace, SENDRECV_REPLACE_PARAMS)
static void f_sendrecv_replace SENDRECV_REPLACE_PARAMS
{
	double t0 = t_begin(T_P2P);
	F_CALL(sendrecv_replace, (buf, count, type, dest, stag, source, rtag, comm, status, ierr));
	if (!off(t0) && *ierr == MPI_SUCCESS)
		p2p_done(t0, MPI_SUCCESS, *count, PMPI_Type_f2c(*type), *dest,
			 PMPI_Comm_f2c(*comm));
}
F_ALIASES(sendrecv_replace, SENDRECV_REPLACE, f_sendrecv_replace, SENDRECV_REPLACE_PARAMS)

F_PMPI(start, (MPI_Fint *req, MPI_Fint *ierr))
static void f_start(MPI_Fint *req, MPI_Fint *ierr)
{
	double t0 = t_begin(T_P2P);
	F_CALL(start, (req, ierr));
	if (!off(t0) && *ierr == MPI_SUCCESS) {
		lock();
		account(T_P2P, t0);
		started(PMPI_Request_f2c(*req));
		unlock();
	}
}
F_ALIASES(start, START, f_start, (MPI_Fint *req, MPI_Fint *ierr))

F_PMPI(startall, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr))
static void f_startall(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr)
{
	double t0 = t_begin(T_P2P);
	F_CALL(startall, (count, reqs, ierr));
	if (!off(t0) && *ierr == MPI_SUCCESS) {
		lock();
		account(T_P2P, t0);
		for (int i = 0; i < *count; i++)
			started(PMPI_Request_f2c(reqs[i]));
		unlock();
	}
}
F_ALIASES(startall, STARTALL, f_startall, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr))

F_PMPI(request_free, (MPI_Fint *req, MPI_Fint *ierr))
static void f_request_free(MPI_Fint *req, MPI_Fint *ierr)
{
	double t0 = t_begin(T_P2P);
	MPI_Request r = PMPI_Request_f2c(*req);
	F_CALL(request_free, (req, ierr));
	freed(t0, *ierr, r);
}
F_ALIASES(request_free, REQUEST_FREE, f_request_free, (MPI_Fint *req, MPI_Fint *ierr))

/* Time only, as p2p. */
#define F_TIMED(lc, UC, PARAMS, ARGS)                                                           \
	F_PMPI(lc, PARAMS)                                                                      \
	static void f_##lc PARAMS                                                               \
	{                                                                                       \
		double t0 = t_begin(T_P2P);                                                     \
		F_CALL(lc, ARGS);                                                               \
		timed(T_P2P, t0, *ierr);                                                        \
	}                                                                                       \
	F_ALIASES(lc, UC, f_##lc, PARAMS)
F_TIMED(recv, RECV,
	(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
	 MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr),
	(buf, count, type, source, tag, comm, status, ierr))
F_TIMED(irecv, IRECV,
	(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
	 MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
	(buf, count, type, source, tag, comm, req, ierr))
F_TIMED(mrecv, MRECV,
	(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *msg, MPI_Fint *status,
	 MPI_Fint *ierr),
	(buf, count, type, msg, status, ierr))
F_TIMED(probe, PROBE,
	(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr),
	(source, tag, comm, status, ierr))
F_TIMED(wait, WAIT, (MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr), (req, status, ierr))
F_TIMED(waitall, WAITALL,
	(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr),
	(count, reqs, statuses, ierr))
F_TIMED(waitany, WAITANY,
	(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr),
	(count, reqs, index, status, ierr))
F_TIMED(waitsome, WAITSOME,
	(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
	 MPI_Fint *statuses, MPI_Fint *ierr),
	(incount, reqs, outcount, indices, statuses, ierr))
F_TIMED(test, TEST, (MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
	(req, flag, status, ierr))
F_TIMED(testall, TESTALL,
	(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr),
	(count, reqs, flag, statuses, ierr))
F_TIMED(testany, TESTANY,
	(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
	 MPI_Fint *ierr),
	(count, reqs, index, flag, status, ierr))
F_TIMED(testsome, TESTSOME,
	(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
	 MPI_Fint *statuses, MPI_Fint *ierr),
	(incount, reqs, outcount, indices, statuses, ierr))

/* A collective: RECORD runs with `ci` when the call is recorded. */
#define F_COLL(lc, UC, T, PARAMS, ARGS, RECORD)                                                 \
	F_PMPI(lc, PARAMS)                                                                      \
	static void f_##lc PARAMS                                                               \
	{                                                                                       \
		double t0 = t_begin(T);                                                         \
		const struct comm_info *ci;                                                     \
		F_CALL(lc, ARGS);                                                               \
		if (off(t0) || *ierr != MPI_SUCCESS)                                            \
			return;                                                                 \
		ci = coll_begin(T, t0, MPI_SUCCESS, PMPI_Comm_f2c(*comm));                      \
		if (ci) {                                                                       \
			RECORD;                                                                 \
			unlock();                                                               \
		}                                                                               \
	}                                                                                       \
	F_ALIASES(lc, UC, f_##lc, PARAMS)

#define TY(x) PMPI_Type_f2c(*(x))

F_COLL(barrier, BARRIER, T_BARRIER, (MPI_Fint *comm, MPI_Fint *ierr), (comm, ierr), (void)ci)
F_COLL(ibarrier, IBARRIER, T_BARRIER, (MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (comm, req, ierr), (void)ci)

F_COLL(bcast, BCAST, T_BCAST,
       (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
	MPI_Fint *ierr),
       (buf, count, type, root, comm, ierr), rec_bcast(ci, *root, *count, TY(type)))
F_COLL(ibcast, IBCAST, T_BCAST,
       (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
	MPI_Fint *req, MPI_Fint *ierr),
       (buf, count, type, root, comm, req, ierr), rec_bcast(ci, *root, *count, TY(type)))

F_COLL(reduce, REDUCE, T_REDUCE,
       (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
	MPI_Fint *comm, MPI_Fint *ierr),
       (sbuf, rbuf, count, type, op, root, comm, ierr), rec_reduce(ci, *root, *count, TY(type)))
F_COLL(ireduce, IREDUCE, T_REDUCE,
       (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
	MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (sbuf, rbuf, count, type, op, root, comm, req, ierr),
       rec_reduce(ci, *root, *count, TY(type)))

F_COLL(allreduce, ALLREDUCE, T_ALLREDUCE,
       (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
	MPI_Fint *ierr),
       (sbuf, rbuf, count, type, op, comm, ierr),
       rec_allreduce(T_ALLREDUCE, ci, vol(*count, TY(type))))
F_COLL(iallreduce, IALLREDUCE, T_ALLREDUCE,
       (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
	MPI_Fint *req, MPI_Fint *ierr),
       (sbuf, rbuf, count, type, op, comm, req, ierr),
       rec_allreduce(T_ALLREDUCE, ci, vol(*count, TY(type))))

/* alltoall, allgather, gather, scatter: the same parameters (gather and
 * scatter add root). */
#define F_SR_PARAMS                                                                             \
	void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,            \
		MPI_Fint *rtype
#define F_SR_ARGS sbuf, scount, stype, rbuf, rcount, rtype
F_COLL(alltoall, ALLTOALL, T_ALLTOALL, (F_SR_PARAMS, MPI_Fint *comm, MPI_Fint *ierr),
       (F_SR_ARGS, comm, ierr), rec_alltoall(ci, *rcount, TY(rtype)))
F_COLL(ialltoall, IALLTOALL, T_ALLTOALL,
       (F_SR_PARAMS, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_SR_ARGS, comm, req, ierr), rec_alltoall(ci, *rcount, TY(rtype)))
F_COLL(allgather, ALLGATHER, T_ALLGATHER, (F_SR_PARAMS, MPI_Fint *comm, MPI_Fint *ierr),
       (F_SR_ARGS, comm, ierr), rec_allgather_ring(T_ALLGATHER, ci, NULL, *rcount, TY(rtype)))
F_COLL(iallgather, IALLGATHER, T_ALLGATHER,
       (F_SR_PARAMS, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_SR_ARGS, comm, req, ierr),
       rec_allgather_ring(T_ALLGATHER, ci, NULL, *rcount, TY(rtype)))
F_COLL(gather, GATHER, T_GATHER,
       (F_SR_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
       (F_SR_ARGS, root, comm, ierr), rec_gather(T_GATHER, ci, *root, *scount, TY(stype)))
F_COLL(igather, IGATHER, T_GATHER,
       (F_SR_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_SR_ARGS, root, comm, req, ierr), rec_gather(T_GATHER, ci, *root, *scount, TY(stype)))
F_COLL(scatter, SCATTER, T_SCATTER,
       (F_SR_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
       (F_SR_ARGS, root, comm, ierr),
       rec_scatter(T_SCATTER, ci, *root, NULL, *scount, TY(stype)))
F_COLL(iscatter, ISCATTER, T_SCATTER,
       (F_SR_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_SR_ARGS, root, comm, req, ierr),
       rec_scatter(T_SCATTER, ci, *root, NULL, *scount, TY(stype)))

#define F_V_PARAMS                                                                              \
	void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,          \
		MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm
#define F_V_ARGS sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm
F_COLL(alltoallv, ALLTOALLV, T_ALLTOALLV, (F_V_PARAMS, MPI_Fint *ierr), (F_V_ARGS, ierr),
       rec_alltoallv(ci, f_in_place(sbuf), scounts, TY(stype), rcounts, TY(rtype)))
F_COLL(ialltoallv, IALLTOALLV, T_ALLTOALLV, (F_V_PARAMS, MPI_Fint *req, MPI_Fint *ierr),
       (F_V_ARGS, req, ierr),
       rec_alltoallv(ci, f_in_place(sbuf), scounts, TY(stype), rcounts, TY(rtype)))
/* alltoallw: the same names, but arrays of types */
F_COLL(alltoallw, ALLTOALLW, T_ALLTOALLW, (F_V_PARAMS, MPI_Fint *ierr), (F_V_ARGS, ierr),
       rec_to_all(T_ALLTOALLW, ci, f_in_place(sbuf) ? rcounts : scounts, 0, MPI_DATATYPE_NULL,
		  NULL, f_in_place(sbuf) ? rtype : stype))
F_COLL(ialltoallw, IALLTOALLW, T_ALLTOALLW, (F_V_PARAMS, MPI_Fint *req, MPI_Fint *ierr),
       (F_V_ARGS, req, ierr),
       rec_to_all(T_ALLTOALLW, ci, f_in_place(sbuf) ? rcounts : scounts, 0, MPI_DATATYPE_NULL,
		  NULL, f_in_place(sbuf) ? rtype : stype))

#define F_GV_PARAMS                                                                             \
	void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,           \
		MPI_Fint *displs, MPI_Fint *rtype
#define F_GV_ARGS sbuf, scount, stype, rbuf, rcounts, displs, rtype
F_COLL(allgatherv, ALLGATHERV, T_ALLGATHERV, (F_GV_PARAMS, MPI_Fint *comm, MPI_Fint *ierr),
       (F_GV_ARGS, comm, ierr), rec_allgather_ring(T_ALLGATHERV, ci, rcounts, 0, TY(rtype)))
F_COLL(iallgatherv, IALLGATHERV, T_ALLGATHERV,
       (F_GV_PARAMS, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_GV_ARGS, comm, req, ierr), rec_allgather_ring(T_ALLGATHERV, ci, rcounts, 0, TY(rtype)))
F_COLL(gatherv, GATHERV, T_GATHERV,
       (F_GV_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
       (F_GV_ARGS, root, comm, ierr), rec_gather(T_GATHERV, ci, *root, *scount, TY(stype)))
F_COLL(igatherv, IGATHERV, T_GATHERV,
       (F_GV_PARAMS, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr),
       (F_GV_ARGS, root, comm, req, ierr), rec_gather(T_GATHERV, ci, *root, *scount, TY(stype)))

#define F_SV_PARAMS                                                                             \
	void *sbuf, MPI_Fint *scounts, MPI_Fint *displs, MPI_Fint *stype, void *rbuf,           \
		MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm
#define F_SV_ARGS sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm
F_COLL(scatterv, SCATTERV, T_SCATTERV, (F_SV_PARAMS, MPI_Fint *ierr), (F_SV_ARGS, ierr),
       rec_scatter(T_SCATTERV, ci, *root, scounts, 0, TY(stype)))
F_COLL(iscatterv, ISCATTERV, T_SCATTERV, (F_SV_PARAMS, MPI_Fint *req, MPI_Fint *ierr),
       (F_SV_ARGS, req, ierr), rec_scatter(T_SCATTERV, ci, *root, scounts, 0, TY(stype)))

/* reduce_scatter (counts array), reduce_scatter_block, scan, exscan:
 * sbuf, rbuf, count(s), type, op, comm. */
#define F_RED_PARAMS                                                                            \
	void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm
#define F_RED_ARGS sbuf, rbuf, count, type, op, comm
F_COLL(reduce_scatter, REDUCE_SCATTER, T_REDUCE_SCATTER, (F_RED_PARAMS, MPI_Fint *ierr),
       (F_RED_ARGS, ierr), rec_reduce_scatter(T_REDUCE_SCATTER, ci, count, 0, TY(type)))
F_COLL(ireduce_scatter, IREDUCE_SCATTER, T_REDUCE_SCATTER,
       (F_RED_PARAMS, MPI_Fint *req, MPI_Fint *ierr), (F_RED_ARGS, req, ierr),
       rec_reduce_scatter(T_REDUCE_SCATTER, ci, count, 0, TY(type)))
F_COLL(reduce_scatter_block, REDUCE_SCATTER_BLOCK, T_REDUCE_SCATTER_BLOCK,
       (F_RED_PARAMS, MPI_Fint *ierr), (F_RED_ARGS, ierr),
       rec_reduce_scatter(T_REDUCE_SCATTER_BLOCK, ci, NULL, *count, TY(type)))
F_COLL(ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, T_REDUCE_SCATTER_BLOCK,
       (F_RED_PARAMS, MPI_Fint *req, MPI_Fint *ierr), (F_RED_ARGS, req, ierr),
       rec_reduce_scatter(T_REDUCE_SCATTER_BLOCK, ci, NULL, *count, TY(type)))
F_COLL(scan, SCAN, T_SCAN, (F_RED_PARAMS, MPI_Fint *ierr), (F_RED_ARGS, ierr),
       rec_scan(T_SCAN, ci, *count, TY(type)))
F_COLL(iscan, ISCAN, T_SCAN, (F_RED_PARAMS, MPI_Fint *req, MPI_Fint *ierr),
       (F_RED_ARGS, req, ierr), rec_scan(T_SCAN, ci, *count, TY(type)))
F_COLL(exscan, EXSCAN, T_EXSCAN, (F_RED_PARAMS, MPI_Fint *ierr), (F_RED_ARGS, ierr),
       rec_scan(T_EXSCAN, ci, *count, TY(type)))
F_COLL(iexscan, IEXSCAN, T_EXSCAN, (F_RED_PARAMS, MPI_Fint *req, MPI_Fint *ierr),
       (F_RED_ARGS, req, ierr), rec_scan(T_EXSCAN, ci, *count, TY(type)))

F_PMPI(finalize, (MPI_Fint *ierr))
static void f_finalize(MPI_Fint *ierr)
{
	cp_output();
	F_CALL(finalize, (ierr));
}
F_ALIASES(finalize, FINALIZE, f_finalize, (MPI_Fint *ierr))

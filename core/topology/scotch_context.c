/*
 * scotch_context.c - Scotch sessions: deterministic contexts, one at a
 * time, for the targets built here and for the mappers' and
 * partitioner's graphs (map/scotch_map.c, map/scotch_part.c).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "scotch_arch.h"

#include <pthread.h>

int tm_scotch_fail(char *err, const char *what)
{
	return tm_err(err, TOPOMATCH_EINVAL,
		      "Scotch: %s failed (Scotch's own message is on stderr)", what);
}

/*
 * Threads of every Scotch context, fixed so that no machine's core count
 * can change a map (DESIGN.md).  7.0.3 gave the same 4096-task map with
 * 1, 2 and 4 threads, one thread 4 times faster (0.08 s against 0.27 s or
 * more); later releases are reported to differ between 1 and 2+ threads.
 */
#define SCOTCH_THREADS 1

/*
 * Scotch seeds are non-negative SCOTCH_Nums, and Scotch 7.0.3 gives the
 * same map for seeds 2k and 2k+1: mix all 64 bits (splitmix64's
 * finaliser) before keeping 31, so that neighbouring seeds differ.
 */
static SCOTCH_Num fold_seed(uint64_t seed)
{
	uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return (SCOTCH_Num)(z & 0x7fffffffu);
}

/*
 * Scotch 7 is threaded and, by default, neither reproducible nor
 * independent of the machine's core count: DESIGN.md "Key choices".
 */
static int scotch_bind(SCOTCH_Context *ctx, SCOTCH_Graph *bound, const SCOTCH_Graph *g,
		   uint64_t seed, char *err)
{
	if (SCOTCH_contextInit(ctx))
		return tm_scotch_fail(err, "SCOTCH_contextInit");
	if (SCOTCH_contextOptionSetNum(ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) ||
	    SCOTCH_contextOptionSetNum(ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1)) {
		SCOTCH_contextExit(ctx);
		return tm_scotch_fail(err, "SCOTCH_contextOptionSetNum");
	}
	SCOTCH_contextRandomSeed(ctx, fold_seed(seed));
	if (SCOTCH_contextThreadSpawn(ctx, SCOTCH_THREADS, NULL)) {
		SCOTCH_contextExit(ctx);
		return tm_scotch_fail(err, "SCOTCH_contextThreadSpawn");
	}
	if (SCOTCH_graphInit(bound)) {
		SCOTCH_contextExit(ctx);
		return tm_scotch_fail(err, "SCOTCH_graphInit");
	}
	if (SCOTCH_contextBindGraph(ctx, g, bound)) {
		SCOTCH_graphExit(bound);
		SCOTCH_contextExit(ctx);
		return tm_scotch_fail(err, "SCOTCH_contextBindGraph");
	}
	return TOPOMATCH_OK;
}

/*
 * Concurrent Scotch sessions, each with its own context and graph, still
 * gave different maps from run to run (Scotch 7.0.3: portfolio on 2
 * threads, whose auto and greedymap candidates both partition with
 * Scotch, picked different winners; test_mapping.c): Scotch keeps state
 * outside its contexts.  So only one thread at a time runs Scotch, from
 * the context's creation to its end.
 */
static pthread_mutex_t scotch_lock = PTHREAD_MUTEX_INITIALIZER;

int tm_scotch_bind(SCOTCH_Context *ctx, SCOTCH_Graph *bound, const SCOTCH_Graph *g,
		   uint64_t seed, char *err)
{
	pthread_mutex_lock(&scotch_lock);
	int rc = scotch_bind(ctx, bound, g, seed, err);
	if (rc != TOPOMATCH_OK)
		pthread_mutex_unlock(&scotch_lock);
	return rc;
}

void tm_scotch_unbind(SCOTCH_Context *ctx, SCOTCH_Graph *bound)
{
	SCOTCH_graphExit(bound); /* before its context */
	SCOTCH_contextExit(ctx);
	pthread_mutex_unlock(&scotch_lock);
}

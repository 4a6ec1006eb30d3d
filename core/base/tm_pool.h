/*
 * tm_pool.h - a small fork-join pool of POSIX threads for the mappers that
 * split independent work (EagerMap's parallel GenerateGroup, ParMapper's
 * configurations).  The pool never decides anything itself: callers give
 * each thread a fixed share of the work, or hand out items through an
 * atomic counter and store every item's result in its own slot, and
 * combine the results in a fixed order afterwards, so that the outcome
 * does not depend on the number of threads or on their speed.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_POOL_H
#define TM_POOL_H

#include "tm_internal.h"

/* At most this many threads in one pool (the caller's thread included). */
#define TM_POOL_MAX 256

typedef struct tm_pool tm_pool_t;

/* fn(arg, tid, nthreads) runs once on every thread, tid 0 being the caller. */
typedef void (*tm_pool_fn)(void *arg, int tid, int nthreads);

/*
 * A pool of nthreads threads (the caller plus nthreads - 1 workers),
 * nthreads clamped to [1, TM_POOL_MAX].  With 1 no thread is started.
 * ENOMEM (with a message) when the threads cannot be created.
 */
int tm_pool_create(int nthreads, tm_pool_t **out, char *err);
void tm_pool_destroy(tm_pool_t *p);
int tm_pool_size(const tm_pool_t *p);

/* Run fn on every thread of the pool and wait until all have returned. */
void tm_pool_run(tm_pool_t *p, tm_pool_fn fn, void *arg);

/* The share [*lo, *hi) of [0, n) that thread tid of nthreads takes:
 * contiguous, in thread order, sizes differing by at most one. */
static inline void tm_pool_share(int64_t n, int tid, int nthreads, int64_t *lo, int64_t *hi)
{
	int64_t q = n / nthreads, r = n % nthreads;
	*lo = tid * q + (tid < r ? tid : r);
	*hi = *lo + q + (tid < r ? 1 : 0);
}

/*
 * A step that cannot look at the clock itself (a Scotch call), run where
 * it can be abandoned: fn(job) on a thread of its own while the caller
 * waits until it returns or the deadline (a tm_now() value) passes.
 *
 *  - fn returned in time: its status; the caller still owns job;
 *  - the deadline passed first (or had passed already): TOPOMATCH_EBUDGET
 *    and job is no longer the caller's: the thread, detached, runs fn to
 *    its end and then drop(job), which frees everything fn touched.  So fn
 *    must only touch memory that job owns, never the caller's.
 *  - deadline 0 (no budget), or no thread could be started: fn(job) runs
 *    on the caller's thread, as a plain call.
 *
 * The result of fn does not depend on where it runs, so a step that ends
 * within the budget gives what the plain call gives (DESIGN.md: budgets
 * only ever cut work short).  An abandoned step keeps its CPU until it
 * ends; what it computes is dropped.  Scotch runs one session at a time
 * (tm_scotch_bind), so Scotch steps look at the deadline once their turn
 * comes and do no work when it has passed: abandoned steps cannot queue
 * up behind each other.
 */
int tm_run_abandonable(double deadline, int (*fn)(void *job), void (*drop)(void *job),
		       void *job);

/*
 * Steps whose work (a Scotch graph's vertices + arcs) is at most this run
 * as plain calls even under a budget: they take a few milliseconds (a
 * 1,024-task stencil, 7,168, about 5 ms of Scotch partitioning), within
 * the budget's slack, and a thread's start and wake-up cost as much on a
 * loaded machine (TOPOMATCHCONST makes dozens of small Scotch calls).
 */
#define TM_ABANDON_MIN_WORK 8192

#endif /* TM_POOL_H */

/*
 * tm_pool.c - fork-join thread pool (see tm_pool.h): workers sleep on a
 * condition variable until tm_pool_run() publishes a new generation of
 * work, run it, and count themselves done.  Also the abandonable steps
 * of a time budget (tm_run_abandonable): one detached thread per step.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tm_pool {
	int n;            /* threads, the caller included */
	int started;      /* workers actually running */
	pthread_t *tid;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen;     /* bumped for every run */
	int pending;      /* workers still running the current generation */
	int quit;
	tm_pool_fn fn;
	void *arg;
};

struct worker_arg {
	tm_pool_t *p;
	int id;
};

static void *worker(void *v)
{
	struct worker_arg wa = *(struct worker_arg *)v;
	tm_pool_t *p = wa.p;
	uint64_t seen = 0;

	free(v);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		tm_pool_fn fn = p->fn;
		void *arg = p->arg;
		pthread_mutex_unlock(&p->mu);
		fn(arg, wa.id, p->n);
		pthread_mutex_lock(&p->mu);
		if (--p->pending == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int start_workers(tm_pool_t *p)
{
	for (int k = 1; k < p->n; k++) {
		struct worker_arg *wa = malloc(sizeof(*wa));
		if (!wa)
			return TOPOMATCH_ENOMEM;
		wa->p = p;
		wa->id = k;
		if (pthread_create(&p->tid[k - 1], NULL, worker, wa) != 0) {
			free(wa);
			return TOPOMATCH_ENOMEM;
		}
		p->started++;
	}
	return TOPOMATCH_OK;
}

int tm_pool_create(int nthreads, tm_pool_t **out, char *err)
{
	tm_pool_t *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for a thread pool");
	p->n = nthreads < 1 ? 1 : nthreads > TM_POOL_MAX ? TM_POOL_MAX : nthreads;
	p->tid = tm_alloc(p->n, sizeof(*p->tid));
	if (!p->tid) {
		free(p);
		return tm_err(err, TOPOMATCH_ENOMEM, "out of memory for a thread pool");
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	if (start_workers(p) != TOPOMATCH_OK) {
		int want = p->n;
		p->n = p->started + 1; /* only these exist; stop them */
		tm_pool_destroy(p);
		return tm_err(err, TOPOMATCH_ENOMEM, "cannot start %d threads", want - 1);
	}
	*out = p;
	return TOPOMATCH_OK;
}

void tm_pool_destroy(tm_pool_t *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int k = 0; k < p->started; k++)
		pthread_join(p->tid[k], NULL);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p->tid);
	free(p);
}

int tm_pool_size(const tm_pool_t *p)
{
	return p ? p->n : 1;
}

void tm_pool_run(tm_pool_t *p, tm_pool_fn fn, void *arg)
{
	if (!p || p->n == 1) {
		fn(arg, 0, 1);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->pending = p->n - 1;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	fn(arg, 0, p->n);
	pthread_mutex_lock(&p->mu);
	while (p->pending > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* --------------------------------------------------- abandonable steps */

struct detached {
	pthread_mutex_t mu;
	pthread_cond_t done_cv;
	int (*fn)(void *);
	void (*drop)(void *);
	void *job;
	int rc;
	bool done;      /* fn returned */
	bool abandoned; /* the caller left: the thread cleans up */
};

static void detached_free(struct detached *d)
{
	pthread_cond_destroy(&d->done_cv);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

static void *detached_main(void *arg)
{
	struct detached *d = arg;
	int rc = d->fn(d->job);
	pthread_mutex_lock(&d->mu);
	d->rc = rc;
	d->done = true;
	bool left = d->abandoned;
	pthread_cond_signal(&d->done_cv);
	pthread_mutex_unlock(&d->mu);
	if (left) { /* nobody waits: the result goes with the job */
		d->drop(d->job);
		detached_free(d);
	}
	return NULL;
}

/* The monotonic clock's time at deadline (a tm_now() value). */
static struct timespec abs_deadline(double deadline)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double left = deadline - tm_now();
	if (left < 0)
		left = 0;
	double s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + left;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

int tm_run_abandonable(double deadline, int (*fn)(void *job), void (*drop)(void *job),
		       void *job)
{
	if (deadline <= 0)
		return fn(job);
	if (tm_now() > deadline) {
		drop(job);
		return TOPOMATCH_EBUDGET;
	}
	struct detached *d = calloc(1, sizeof(*d));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	if (!d)
		return fn(job);
	d->fn = fn;
	d->drop = drop;
	d->job = job;
	pthread_mutex_init(&d->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_t tid;
	int started = pthread_create(&tid, &ta, detached_main, d) == 0;
	pthread_attr_destroy(&ta);
	if (!started) {
		detached_free(d);
		return fn(job);
	}
	struct timespec until = abs_deadline(deadline);
	pthread_mutex_lock(&d->mu);
	while (!d->done)
		if (pthread_cond_timedwait(&d->done_cv, &d->mu, &until) == ETIMEDOUT)
			break;
	bool done = d->done;
	int rc = d->rc;
	d->abandoned = !done;
	pthread_mutex_unlock(&d->mu);
	if (!done)
		return TOPOMATCH_EBUDGET; /* the thread frees d and job */
	detached_free(d);
	return rc;
}

/*
 * tm_pool.c - fork-join thread pool (see tm_pool.h): workers sleep on a
 * condition variable until tm_pool_run() publishes a new generation of
 * work, run it, and count themselves done.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tm_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

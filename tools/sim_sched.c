/*
 * sim_sched.c - FCFS with EASY backfilling (D. Lifka, "The ANL/IBM SP
 * scheduling system", JSSPP 1995; A. Mu'alem and D. Feitelson, IEEE TPDS
 * 12(6), 2001, §2):
 *   1. start queued jobs in arrival order while the first one fits;
 *   2. the first job that does not fit gets a reservation: the shadow
 *      time, when enough running jobs will have ended (by their requested
 *      times) for it to fit, and the extra nodes it leaves then;
 *   3. a later job starts now if it fits the free nodes and either ends
 *      (by its requested time) before the shadow time, or uses no more
 *      than the extra nodes (which it then takes from them).
 * The pass runs after every event time, once the jobs that end then have
 * left and those submitted then have joined the queue.  Events at equal
 * times: lower job index first, so runs are reproducible.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct sched {
	const sim_job_t *job;
	int64_t n, nnodes, nfree;
	const sim_sched_ops_t *ops;
	double *start, *end;
	int64_t *queue, qlen; /* waiting jobs, arrival order */
	int64_t *heap, hlen;  /* running jobs, by end time */
	int64_t *run, rlen;   /* running jobs, for reservations */
} sched_t;

/* Requested time: the reservation length (the trace's run time when the
 * job asked for none, i.e. a perfect estimate). */
static double estimate(const sim_job_t *j)
{
	return j->req > 0 ? j->req : j->run;
}

/* ---------------------------------------------------- completion heap */

static bool before(const sched_t *s, int64_t a, int64_t b)
{
	return s->end[a] < s->end[b] || (s->end[a] == s->end[b] && a < b);
}

static void heap_push(sched_t *s, int64_t j)
{
	int64_t i = s->hlen++;
	while (i > 0 && before(s, j, s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = j;
}

static int64_t heap_pop(sched_t *s)
{
	int64_t top = s->heap[0], last = s->heap[--s->hlen], i = 0;
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= s->hlen)
			break;
		if (c + 1 < s->hlen && before(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!before(s, s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

/* ------------------------------------------------------------- starts */

static int start_job(sched_t *s, int64_t j, double now, char *err)
{
	double run;
	int rc = s->ops->start(s->ops->ctx, j, now, &run, err);
	if (rc)
		return rc;
	s->start[j] = now;
	s->end[j] = now + run;
	s->nfree -= s->job[j].nodes;
	heap_push(s, j);
	s->run[s->rlen++] = j;
	return TOPOMATCH_OK;
}

static void finish_job(sched_t *s, int64_t j)
{
	s->ops->finish(s->ops->ctx, j);
	s->nfree += s->job[j].nodes;
	for (int64_t k = 0; k < s->rlen; k++)
		if (s->run[k] == j) {
			s->run[k] = s->run[--s->rlen];
			break;
		}
}

/* ------------------------------------------------------- reservations */

typedef struct ends {
	double t;
	int64_t nodes, j;
} ends_t;

static int by_end(const void *x, const void *y)
{
	const ends_t *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* Step 2: the shadow time of job `head` and the extra nodes then.  A job
 * past its estimate (possible only without a requested time) is expected
 * to end now. */
static int shadow(const sched_t *s, int64_t head, double now, ends_t *e, double *when,
		  int64_t *extra)
{
	for (int64_t k = 0; k < s->rlen; k++) {
		int64_t j = s->run[k];
		double t = s->start[j] + estimate(&s->job[j]);
		e[k] = (ends_t){ t > now ? t : now, s->job[j].nodes, j };
	}
	qsort(e, (size_t)s->rlen, sizeof(*e), by_end);
	int64_t avail = s->nfree;
	for (int64_t k = 0; k < s->rlen; k++) {
		avail += e[k].nodes;
		if (avail >= s->job[head].nodes) {
			*when = e[k].t;
			*extra = avail - s->job[head].nodes;
			return 0;
		}
	}
	return -1; /* cannot happen: every job fits the empty machine */
}

/* Step 3 over the queue behind the head; started jobs leave the queue. */
static int backfill(sched_t *s, double now, double when, int64_t extra, char *err)
{
	int64_t kept = 1;
	for (int64_t q = 1; q < s->qlen; q++) {
		int64_t j = s->queue[q], nodes = s->job[j].nodes;
		bool by_end_time = nodes <= s->nfree && now + estimate(&s->job[j]) <= when;
		bool on_extra = !by_end_time && nodes <= s->nfree && nodes <= extra;
		if (by_end_time || on_extra) {
			int rc = start_job(s, j, now, err);
			if (rc)
				return rc;
			extra -= on_extra ? nodes : 0;
		} else {
			s->queue[kept++] = j;
		}
	}
	s->qlen = kept;
	return TOPOMATCH_OK;
}

static int pass(sched_t *s, double now, ends_t *scratch, char *err)
{
	int64_t started = 0;
	int rc = TOPOMATCH_OK;
	while (!rc && started < s->qlen && s->job[s->queue[started]].nodes <= s->nfree)
		rc = start_job(s, s->queue[started++], now, err);
	memmove(s->queue, s->queue + started, (size_t)(s->qlen - started) * sizeof(*s->queue));
	s->qlen -= started;
	if (rc || s->qlen == 0 || s->nfree == 0)
		return rc;
	double when;
	int64_t extra;
	if (shadow(s, s->queue[0], now, scratch, &when, &extra))
		return TOPOMATCH_OK;
	return backfill(s, now, when, extra, err);
}

/* ------------------------------------------------------------- events */

static int events(sched_t *s, ends_t *scratch, char *err)
{
	int64_t next = 0;
	int rc = TOPOMATCH_OK;
	while (!rc && (next < s->n || s->hlen > 0)) {
		double now = next < s->n ? s->job[next].submit : s->end[s->heap[0]];
		if (s->hlen > 0 && s->end[s->heap[0]] < now)
			now = s->end[s->heap[0]];
		while (s->hlen > 0 && s->end[s->heap[0]] <= now)
			finish_job(s, heap_pop(s));
		while (next < s->n && s->job[next].submit <= now)
			s->queue[s->qlen++] = next++;
		rc = pass(s, now, scratch, err);
	}
	if (!rc && s->qlen > 0) {
		rc = sim_err(err, TOPOMATCH_EINVAL, "internal error: %lld jobs never started",
			 (long long)s->qlen);
	}
	return rc;
}

static int check_jobs(const sim_job_t *jobs, int64_t n, int64_t nnodes, char *err)
{
	for (int64_t j = 0; j < n; j++) {
		if (jobs[j].nodes < 1 || jobs[j].nodes > nnodes || jobs[j].run < 0 ||
		    (j > 0 && jobs[j].submit < jobs[j - 1].submit)) {
			return sim_err(err, TOPOMATCH_EINVAL, "job %lld: %lld nodes of %lld, run %g s, "
				 "submitted at %g s: not schedulable in order",
				 (long long)jobs[j].id, (long long)jobs[j].nodes,
				 (long long)nnodes, jobs[j].run, jobs[j].submit);
		}
	}
	return TOPOMATCH_OK;
}

int sim_sched_run(const sim_job_t *jobs, int64_t n, int64_t nnodes, const sim_sched_ops_t *ops,
		  double *start, double *end, char *err)
{
	int rc = check_jobs(jobs, n, nnodes, err);
	if (rc)
		return rc;
	sched_t s = { .job = jobs, .n = n, .nnodes = nnodes, .nfree = nnodes, .ops = ops,
		      .start = start, .end = end };
	size_t sz = (size_t)n * sizeof(int64_t) + 1;
	s.queue = malloc(sz);
	s.heap = malloc(sz);
	s.run = malloc(sz);
	ends_t *scratch = malloc((size_t)n * sizeof(*scratch) + 1);
	if (!s.queue || !s.heap || !s.run || !scratch) {
		rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory for %lld jobs", (long long)n);
	} else {
		rc = events(&s, scratch, err);
	}
	free(s.queue);
	free(s.heap);
	free(s.run);
	free(scratch);
	return rc;
}

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
 * A job that waits for a better placement (the start returns SIM_NOT_NOW:
 * sbatch --comm-wait) is passed over in steps 1-3 and gets no
 * reservation (Slurm's backfill plans it only on node sets that suit it,
 * select_topomatch.c; here only the head has one) until a job has ended
 * (more nodes free) or its time is up.
 * The pass runs after every event time, once the jobs that end then have
 * left and those submitted then have joined the queue.  Events at equal
 * times: lower job index first, so runs are reproducible.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sched {
	const sim_job_t *job;
	int64_t n, nnodes, nfree;
	const sim_sched_ops_t *ops;
	double *start, *end;
	int64_t *queue, qlen; /* waiting jobs, arrival order */
	struct ev { double t; int64_t j; } *heap; /* running jobs, by end time */
	int64_t hlen, hcap;
	int64_t *run, rlen;   /* running jobs, for reservations */
	unsigned char *running;
	int64_t *changed;     /* retime()'s output */
	double *until;        /* a waiting job's last wait; 0: none */
	int64_t *tried, ends; /* ends counted when it was put off; all ends */
} sched_t;

/* Requested time: the reservation length (the trace's run time when the
 * job asked for none, i.e. a perfect estimate). */
static double estimate(const sim_job_t *j)
{
	return j->req > 0 ? j->req : j->run;
}

/* ---------------------------------------------------- completion heap */

/* Entries are (end time, job); when a model moves a running job's end
 * (contention: other jobs started or ended), a new entry is pushed and
 * the old one, whose time no longer matches, is dropped when it comes
 * up (lazy deletion). */
static bool before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->j < b->j);
}

static int heap_push(sched_t *s, int64_t j, char *err)
{
	if (s->hlen == s->hcap) {
		int64_t cap = 2 * s->hcap + 16;
		struct ev *p = realloc(s->heap, (size_t)cap * sizeof(*p));
		if (!p)
			return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
		s->heap = p;
		s->hcap = cap;
	}
	struct ev e = { s->end[j], j };
	int64_t i = s->hlen++;
	while (i > 0 && before(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
	return TOPOMATCH_OK;
}

static int64_t heap_pop(sched_t *s)
{
	int64_t top = s->heap[0].j, i = 0;
	struct ev last = s->heap[--s->hlen];
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= s->hlen)
			break;
		if (c + 1 < s->hlen && before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

/* Drop stale entries from the top: the next end is then heap[0]. */
static bool heap_ready(sched_t *s)
{
	while (s->hlen > 0 && (!s->running[s->heap[0].j] || s->heap[0].t != s->end[s->heap[0].j]))
		heap_pop(s);
	return s->hlen > 0;
}

/* ------------------------------------------------------------- starts */

/* Put off at its last try, and nothing has changed since? */
static bool waiting(const sched_t *s, int64_t j, double now)
{
	return s->until[j] > now && s->tried[j] == s->ends;
}

static int start_job(sched_t *s, int64_t j, double now, char *err)
{
	double run;
	int rc = s->ops->start(s->ops->ctx, j, now, &run, err);
	if (rc == SIM_NOT_NOW) {
		s->until[j] = run;
		s->tried[j] = s->ends;
	}
	if (rc)
		return rc;
	s->start[j] = now;
	s->end[j] = now + run;
	s->nfree -= s->job[j].nodes;
	s->running[j] = 1;
	s->run[s->rlen++] = j;
	return heap_push(s, j, err);
}

static void finish_job(sched_t *s, int64_t j)
{
	s->ops->finish(s->ops->ctx, j);
	s->running[j] = 0;
	s->nfree += s->job[j].nodes;
	s->ends++;
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

/* Step 3 over the queue behind the head, queue[head]; started jobs leave
 * the queue. */
static int backfill(sched_t *s, int64_t head, double now, double when, int64_t extra,
		    char *err)
{
	int64_t kept = head + 1;
	for (int64_t q = head + 1; q < s->qlen; q++) {
		int64_t j = s->queue[q], nodes = s->job[j].nodes;
		bool fits = nodes <= s->nfree && !waiting(s, j, now);
		bool by_end_time = fits && now + estimate(&s->job[j]) <= when;
		bool on_extra = !by_end_time && fits && nodes <= extra;
		int rc = by_end_time || on_extra ? start_job(s, j, now, err) : SIM_NOT_NOW;
		if (rc == SIM_NOT_NOW) {
			s->queue[kept++] = j;
		} else if (rc) {
			return rc;
		} else {
			extra -= on_extra ? nodes : 0;
		}
	}
	s->qlen = kept;
	return TOPOMATCH_OK;
}

static int pass(sched_t *s, double now, ends_t *scratch, char *err)
{
	int64_t kept = 0, q = 0;
	int rc = TOPOMATCH_OK;
	for (; q < s->qlen; q++) {
		int64_t j = s->queue[q];
		bool put_off = waiting(s, j, now);
		if (!put_off && s->job[j].nodes > s->nfree)
			break; /* the head */
		rc = put_off ? SIM_NOT_NOW : start_job(s, j, now, err);
		if (rc == SIM_NOT_NOW)
			s->queue[kept++] = j;
		else if (rc)
			return rc;
	}
	memmove(s->queue + kept, s->queue + q, (size_t)(s->qlen - q) * sizeof(*s->queue));
	s->qlen -= q - kept;
	if (kept == s->qlen || s->nfree == 0)
		return TOPOMATCH_OK;
	double when;
	int64_t extra;
	if (shadow(s, s->queue[kept], now, scratch, &when, &extra))
		return TOPOMATCH_OK;
	return backfill(s, kept, now, when, extra, err);
}

/* The next time a waiting job's wait is up (INFINITY: none). */
static double next_wake(const sched_t *s, double now)
{
	double t = INFINITY;
	for (int64_t q = 0; q < s->qlen; q++) {
		double u = s->until[s->queue[q]];
		if (u > now && u < t)
			t = u;
	}
	return t;
}

/* ------------------------------------------------------------- events */

/* The model moved the ends of running jobs (never before now). */
static int retime(sched_t *s, double now, char *err)
{
	int64_t n = 0;
	int rc = s->ops->retime(s->ops->ctx, now, s->end, s->changed, &n, err);
	for (int64_t k = 0; !rc && k < n; k++) {
		int64_t j = s->changed[k];
		if (s->end[j] < now)
			s->end[j] = now;
		rc = heap_push(s, j, err);
	}
	return rc;
}

static int events(sched_t *s, ends_t *scratch, char *err)
{
	int64_t next = 0;
	int rc = TOPOMATCH_OK;
	double wake = INFINITY;
	while (!rc && (next < s->n || heap_ready(s) || wake < INFINITY)) {
		double now = next < s->n ? s->job[next].submit : INFINITY;
		if (heap_ready(s) && s->heap[0].t < now)
			now = s->heap[0].t;
		if (wake < now)
			now = wake;
		while (heap_ready(s) && s->heap[0].t <= now)
			finish_job(s, heap_pop(s));
		while (next < s->n && s->job[next].submit <= now)
			s->queue[s->qlen++] = next++;
		rc = pass(s, now, scratch, err);
		if (!rc && s->ops->retime)
			rc = retime(s, now, err);
		wake = next_wake(s, now);
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
	s.run = malloc(sz);
	s.changed = malloc(sz);
	s.tried = malloc(sz);
	s.until = calloc((size_t)n + 1, sizeof(*s.until));
	s.running = calloc((size_t)n + 1, 1);
	ends_t *scratch = malloc((size_t)n * sizeof(*scratch) + 1);
	if (!s.queue || !s.run || !s.changed || !s.tried || !s.until || !s.running || !scratch) {
		rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory for %lld jobs", (long long)n);
	} else {
		rc = events(&s, scratch, err);
	}
	free(s.queue);
	free(s.heap);
	free(s.run);
	free(s.changed);
	free(s.tried);
	free(s.until);
	free(s.running);
	free(scratch);
	return rc;
}

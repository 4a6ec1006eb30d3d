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
 * select_topomatch.c; here it gets none) until a job has ended
 * (more nodes free) or its time is up.
 * With ops->bf_depth, steps 2 and 3 are Slurm's sched/backfill instead
 * (src/plugins/sched/backfill/backfill.c, _attempt_backfill; Mu'alem and
 * Feitelson's conservative backfilling, §2, cut to a depth and a window):
 * the first bf_depth queued jobs (bf_max_job_test) are planned in order
 * on the free nodes over time (the running jobs' requested ends and the
 * reservations made so far in the pass); a job that fits now without
 * moving any reservation starts, the others are reserved the earliest
 * time they fit, unless that is more than bf_window ahead.  Every job
 * planned is then protected, where EASY protects the first.  Slurm runs
 * it every bf_interval (30 s); here it runs with every pass, so a job
 * Slurm would start at its next cycle starts at once.
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
	/* sched/backfill's plan: pfree[k] nodes in [pt[k], pt[k + 1]), the last
	 * step for ever; room for 3 n + 2 steps (the running jobs' ends and
	 * two per job planned) */
	double *pt;
	int64_t *pfree, np;
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

/* The running jobs in e[], by the end their requested times give; a job
 * past it (possible only without a requested time, when contention
 * slowed it) is expected to end at `past`. */
static void running_ends(const sched_t *s, double now, double past, ends_t *e)
{
	for (int64_t k = 0; k < s->rlen; k++) {
		int64_t j = s->run[k];
		double t = s->start[j] + estimate(&s->job[j]);
		e[k] = (ends_t){ t > now ? t : past, s->job[j].nodes, j };
	}
	qsort(e, (size_t)s->rlen, sizeof(*e), by_end);
}

/* Step 2: the shadow time of job `head` and the extra nodes then (a job
 * past its estimate is expected to end now: step 3 starts jobs on the
 * free nodes only). */
static int shadow(const sched_t *s, int64_t head, double now, ends_t *e, double *when,
		  int64_t *extra)
{
	running_ends(s, now, now, e);
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

/* ------------------------------------------------- Slurm's backfill */

/* The step that holds time x, split there when it starts earlier: the
 * index of the step that starts at x. */
static int64_t plan_split(sched_t *s, double x)
{
	int64_t k = s->np - 1;
	while (k > 0 && s->pt[k] > x)
		k--;
	if (s->pt[k] == x)
		return k;
	memmove(s->pt + k + 2, s->pt + k + 1, (size_t)(s->np - k - 1) * sizeof(*s->pt));
	memmove(s->pfree + k + 2, s->pfree + k + 1, (size_t)(s->np - k - 1) * sizeof(*s->pfree));
	s->pt[k + 1] = x;
	s->pfree[k + 1] = s->pfree[k];
	s->np++;
	return k + 1;
}

/* nodes taken from the plan over [from, from + dur). */
static void plan_take(sched_t *s, double from, double dur, int64_t nodes)
{
	int64_t a = plan_split(s, from);
	int64_t b = plan_split(s, from + dur);
	for (int64_t k = a; k < b; k++)
		s->pfree[k] -= nodes;
}

/* The first step from which `nodes` stay free for dur s. */
static int64_t plan_earliest(const sched_t *s, int64_t nodes, double dur)
{
	int64_t k = 0;
	while (k < s->np - 1) {
		int64_t j = k;
		while (j < s->np && s->pfree[j] >= nodes && (j == k || s->pt[j] < s->pt[k] + dur))
			j++;
		if (j > k && (j == s->np || s->pt[j] >= s->pt[k] + dur))
			return k;
		k = j + 1; /* step j lacks nodes: no start before its end */
	}
	return s->np - 1; /* the last step: the empty machine, where every job fits */
}

/* The free nodes over time from now: now's, then as the running jobs end
 * by their requested times.  A job past it is expected to end at the
 * next instant: its nodes are not free now (the plan starts jobs on what
 * it holds free now), but nothing is planned to wait for them. */
static void plan_init(sched_t *s, double now, ends_t *e)
{
	running_ends(s, now, nextafter(now, INFINITY), e);
	s->pt[0] = now;
	s->pfree[0] = s->nfree;
	s->np = 1;
	for (int64_t k = 0; k < s->rlen; k++) {
		if (e[k].t > s->pt[s->np - 1]) {
			s->pt[s->np] = e[k].t;
			s->pfree[s->np] = s->pfree[s->np - 1];
			s->np++;
		}
		s->pfree[s->np - 1] += e[k].nodes;
	}
}

/* Steps 2-3 as sched/backfill, from the head, queue[head]: started jobs
 * leave the queue. */
static int plan(sched_t *s, int64_t head, double now, ends_t *e, char *err)
{
	int64_t kept = head, tested = 0;
	plan_init(s, now, e);
	for (int64_t q = head; q < s->qlen; q++) {
		int64_t j = s->queue[q], nodes = s->job[j].nodes;
		double dur = estimate(&s->job[j]);
		if (tested >= s->ops->bf_depth || waiting(s, j, now)) {
			s->queue[kept++] = j;
			continue;
		}
		tested++;
		double at = s->pt[plan_earliest(s, nodes, dur)];
		int rc = at == now ? start_job(s, j, now, err) : SIM_NOT_NOW;
		if (rc == SIM_NOT_NOW) {
			s->queue[kept++] = j;
			if (at > now && at - now <= s->ops->bf_window)
				plan_take(s, at, dur, nodes);
		} else if (rc) {
			return rc;
		} else {
			plan_take(s, now, dur, nodes);
		}
	}
	s->qlen = kept;
	return TOPOMATCH_OK;
}

/* ---------------------------------------------------------------- pass */

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
	if (s->ops->bf_depth > 0)
		return plan(s, kept, now, scratch, err);
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
	if (ops->bf_depth > 0) {
		s.pt = malloc((3 * (size_t)n + 2) * sizeof(*s.pt));
		s.pfree = malloc((3 * (size_t)n + 2) * sizeof(*s.pfree));
	}
	if (!s.queue || !s.run || !s.changed || !s.tried || !s.until || !s.running || !scratch ||
	    (ops->bf_depth > 0 && (!s.pt || !s.pfree))) {
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
	free(s.pt);
	free(s.pfree);
	free(scratch);
	return rc;
}

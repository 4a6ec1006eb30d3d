/*
 * sim_stream.c - the job stream of a simulation: the jobs of an SWF
 * trace converted to whole-node requests on the simulated cluster, or a
 * generated stream.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int push(sim_stream_t *s, const sim_job_t *j, char *err)
{
	if (s->n == s->cap) {
		int64_t cap = s->cap ? 2 * s->cap : 1024;
		sim_job_t *p = realloc(s->job, (size_t)cap * sizeof(*p));
		if (!p) {
			return sim_err(err, TOPOMATCH_ENOMEM, "out of memory for %lld jobs",
				 (long long)cap);
		}
		s->job = p;
		s->cap = cap;
	}
	s->job[s->n++] = *j;
	return TOPOMATCH_OK;
}

void sim_stream_free(sim_stream_t *s)
{
	free(s->job);
	memset(s, 0, sizeof(*s));
}

static int by_submit(const void *x, const void *y)
{
	const sim_job_t *a = x, *b = y;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line); /* file order on ties */
}

/* Times from the first submission; the scheduler wants submit order (SWF
 * files are sorted by submit time, but nothing forces it). */
static void normalize(sim_stream_t *s)
{
	if (s->n == 0)
		return; /* no array to sort */
	qsort(s->job, (size_t)s->n, sizeof(*s->job), by_submit);
	double t0 = s->job[0].submit;
	for (int64_t i = 0; i < s->n; i++)
		s->job[i].submit -= t0;
}

/*
 * One record -> a job, or a skip: a job that never ran (cancelled while
 * waiting: no run time) or has no processor count cannot be replayed; one
 * larger than the cluster could never start.  Processors are the
 * allocated ones when known (what the job really held), else the
 * requested ones; whole nodes of cores_per_node cores each (the
 * simulator allocates nodes exclusively).
 */
static int convert(const sim_swf_rec_t *r, int64_t cpn, int64_t nnodes, sim_stream_t *s,
		   char *err)
{
	int64_t procs = r->alloc_procs > 0 ? r->alloc_procs : r->req_procs;
	if (r->run <= 0 || procs <= 0) {
		s->never_ran += r->run <= 0;
		s->no_procs += r->run > 0;
		return TOPOMATCH_OK;
	}
	int64_t nodes = (procs + cpn - 1) / cpn;
	if (nodes > nnodes) {
		s->too_big++;
		return TOPOMATCH_OK;
	}
	sim_job_t j = {
		.id = r->id, .line = r->line, .submit = r->submit, .run = r->run,
		.req = r->req_time > 0 ? r->req_time : -1, .procs = procs, .nodes = nodes,
		.kind = -1,
	};
	return push(s, &j, err);
}

static void describe_source(sim_stream_t *s, const char *path, const sim_swf_t *swf)
{
	const char *who = sim_swf_header(swf, "Installation");
	if (!who)
		who = sim_swf_header(swf, "Computer");
	snprintf(s->source, sizeof(s->source), "%s%s%.200s%s", path, who ? " (" : "",
		 who ? who : "", who ? ")" : "");
	s->max_nodes = sim_swf_header_int(swf, "MaxNodes");
	s->max_procs = sim_swf_header_int(swf, "MaxProcs");
}

/* Is eligible job number k (0-based, in file order), submitted at t,
 * in the window?  -1: before it, 0: in it, 1: after it. */
static int where(const sim_window_t *w, int64_t k, double t)
{
	if (w->has_until && t >= w->until)
		return 1;
	if (k < w->skip || (w->has_from && t < w->from))
		return -1;
	return 0;
}

static int empty_window(const char *path, const sim_window_t *w, int64_t eligible, double lo, double hi, char *err)
{
	char what[200] = "", skip[64] = "";
	if (w->has_from || w->has_until) {
		char until[64] = "end";
		if (w->has_until)
			snprintf(until, sizeof(until), "%.17g", w->until);
		snprintf(what, sizeof(what), " [%.17g, %s)", w->has_from ? w->from : 0.0, until);
	}
	if (w->skip)
		snprintf(skip, sizeof(skip), " after the first %lld jobs", (long long)w->skip);
	return sim_err(err, TOPOMATCH_EINVAL, "%s: no job in the window%s%s: the trace's %lld "
		       "jobs that ran and fit were submitted from %.17g to %.17g s", path, what,
		       skip, (long long)eligible, lo, hi);
}

/* Keep the window's jobs and those of the warm-up before it; times from
 * the first kept submission, gaps scaled. */
static void cut_window(sim_stream_t *s, const unsigned char *in, const sim_window_t *w,
		       double first)
{
	int64_t kept = 0;
	for (int64_t i = 0; i < s->n; i++) {
		if (!in[i] && !(w->warmup > 0 && s->job[i].submit >= first - w->warmup))
			continue;
		s->job[kept] = s->job[i];
		s->job[kept++].warm = !in[i];
	}
	s->n = kept;
	normalize(s);
	s->warm = 0;
	for (int64_t i = 0; i < s->n; i++)
		s->warm += s->job[i].warm;
}

/* Jobs before the window are read too (the warm-up is chosen once the
 * window's first submission is known); reading stops once max_jobs are
 * in the window, as traces are in submit order. */
static int read_window(sim_swf_t *swf, const sim_window_t *w, int64_t cpn, int64_t nnodes,
		       sim_stream_t *s, unsigned char **in, int64_t *eligible, double *lo,
		       double *hi, char *err)
{
	int64_t inwin = 0, cap = 0;
	int rc = TOPOMATCH_OK, got = 1;
	while (rc == TOPOMATCH_OK && (w->max_jobs <= 0 || inwin < w->max_jobs)) {
		sim_swf_rec_t r;
		if ((rc = sim_swf_next(swf, &r, &got, err)) || !got)
			break;
		s->records++;
		int64_t before = s->n;
		if ((rc = convert(&r, cpn, nnodes, s, err)) || s->n == before)
			continue;
		double t = r.submit;
		*lo = *eligible == 0 || t < *lo ? t : *lo;
		*hi = *eligible == 0 || t > *hi ? t : *hi;
		int at = where(w, (*eligible)++, t);
		if (at > 0) {
			s->n--; /* past the window: not replayed */
			continue;
		}
		if (s->n > cap) {
			cap = s->cap;
			unsigned char *p = realloc(*in, (size_t)cap);
			if (!p)
				return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
			*in = p;
		}
		(*in)[s->n - 1] = at == 0;
		inwin += at == 0;
	}
	return rc;
}

int sim_stream_swf_window(const char *path, const sim_window_t *w, int64_t cpn, int64_t nnodes,
			  sim_stream_t *s, char *err)
{
	static const sim_window_t all = { .time_scale = 1 };
	sim_swf_t *swf;
	unsigned char *in = NULL;
	int64_t eligible = 0;
	double lo = 0, hi = 0, first = 0;
	if (!w)
		w = &all;
	memset(s, 0, sizeof(*s));
	int rc = sim_swf_open(path, &swf, err);
	if (rc)
		return rc;
	describe_source(s, path, swf);
	rc = read_window(swf, w, cpn, nnodes, s, &in, &eligible, &lo, &hi, err);
	sim_swf_close(swf);
	int64_t inwin = 0;
	for (int64_t i = 0; !rc && i < s->n; i++)
		if (in[i]) {
			double t = s->job[i].submit;
			first = inwin == 0 || t < first ? t : first;
			s->win_last = inwin == 0 || t > s->win_last ? t : s->win_last;
			inwin++;
		}
	if (!rc && inwin == 0 && eligible > 0) /* none at all: the caller says why */
		rc = empty_window(path, w, eligible, lo, hi, err);
	if (rc) {
		free(in);
		sim_stream_free(s);
		return rc;
	}
	s->win_first = first;
	cut_window(s, in, w, first);
	free(in);
	sim_stream_scale(s, w->time_scale > 0 ? w->time_scale : 1, nnodes);
	return TOPOMATCH_OK;
}

int sim_stream_swf(const char *path, int64_t max_jobs, int64_t cpn, int64_t nnodes,
		   sim_stream_t *s, char *err)
{
	sim_window_t w = { .max_jobs = max_jobs, .time_scale = 1 };
	return sim_stream_swf_window(path, &w, cpn, nnodes, s, err);
}

/*
 * Compressed arrivals (the usual way to raise a trace's load, e.g.
 * Feitelson, "Workload Modeling for Computer Systems Performance
 * Evaluation", 2015, on manipulating load): every gap between
 * submissions times f, run times unchanged.  Offered load of the counted jobs: their node-seconds
 * over the cluster's from their first to their last submission.
 */
void sim_stream_scale(sim_stream_t *s, double f, int64_t nnodes)
{
	double first = 0, last = 0, work = 0;
	int64_t n = 0;
	s->time_scale = f;
	for (int64_t i = 0; i < s->n; i++) {
		sim_job_t *j = &s->job[i];
		j->submit *= f; /* times start at 0: gaps scale with them */
		if (j->warm)
			continue;
		first = n == 0 || j->submit < first ? j->submit : first;
		last = n == 0 || j->submit > last ? j->submit : last;
		work += (double)j->nodes * j->run;
		n++;
	}
	s->offered = last > first ? work / ((double)nnodes * (last - first)) : 0;
}

/* ------------------------------------------------------------ generated */

/*
 * A generated stream, for clusters without a trace.  Its distributions
 * follow what logs show (Lublin and Feitelson, JPDC 63(11), 2003: sizes
 * mostly powers of two, run times spread over orders of magnitude,
 * Poisson arrivals), simplified to three parameters:
 *  - nodes: a power of two 2^u, u uniform in 0..log2(M), with probability
 *    3/4, else uniform in 1..M, M = max(1, nodes / 8);
 *  - run time: log-uniform in [60 s, 10 h]; requested time: the run time
 *    x U(1, 3), rounded up to a minute (users overestimate);
 *  - arrivals: exponential gaps whose mean makes the offered load (node
 *    seconds asked per node second) equal to `load`.
 */
#define GEN_RUN_MIN 60.0
#define GEN_RUN_MAX 36000.0

static int64_t gen_nodes(topomatch_rng_t *r, int64_t maxn)
{
	if (topomatch_rng_below(r, 4) < 3) {
		int top = 0;
		while ((INT64_C(2) << top) <= maxn)
			top++;
		return INT64_C(1) << topomatch_rng_below(r, (uint64_t)top + 1);
	}
	return 1 + (int64_t)topomatch_rng_below(r, (uint64_t)maxn);
}

static double mean_nodes(int64_t maxn)
{
	int top = 0;
	double pow_sum = 1;
	while ((INT64_C(2) << top) <= maxn)
		pow_sum += (double)(INT64_C(2) << top++);
	return 0.75 * pow_sum / (top + 1) + 0.25 * (double)(maxn + 1) / 2;
}

int sim_stream_generate(int64_t njobs, double load, int64_t cpn, int64_t nnodes, uint64_t seed,
			sim_stream_t *s, char *err)
{
	topomatch_rng_t r;
	memset(s, 0, sizeof(*s));
	topomatch_rng_seed(&r, seed);
	int64_t maxn = nnodes / 8 > 1 ? nnodes / 8 : 1;
	double mean_run = (GEN_RUN_MAX - GEN_RUN_MIN) / log(GEN_RUN_MAX / GEN_RUN_MIN);
	double gap = mean_nodes(maxn) * mean_run / (load * (double)nnodes), t = 0;
	for (int64_t i = 0; i < njobs; i++) {
		sim_job_t j = { .id = i + 1, .submit = t, .kind = -1 };
		j.nodes = gen_nodes(&r, maxn);
		j.procs = j.nodes * cpn;
		j.run = floor(GEN_RUN_MIN * pow(GEN_RUN_MAX / GEN_RUN_MIN, topomatch_rng_uniform(&r)));
		j.req = 60 * ceil(j.run * (1 + 2 * topomatch_rng_uniform(&r)) / 60);
		if (push(s, &j, err)) {
			sim_stream_free(s);
			return TOPOMATCH_ENOMEM;
		}
		t += floor(-gap * log(1 - topomatch_rng_uniform(&r)));
		s->records++;
	}
	s->max_nodes = s->max_procs = -1;
	sim_stream_scale(s, 1, nnodes);
	snprintf(s->source, sizeof(s->source), "generated: %lld jobs, load %g, seed %llu",
		 (long long)njobs, load, (unsigned long long)seed);
	return TOPOMATCH_OK;
}

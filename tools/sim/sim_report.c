/*
 * sim_report.c - what a simulation reports: per-policy summaries (text
 * and JSON) and the per-job CSV.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ summary */

static void hop_bytes_means(const sim_config_t *c, const sim_result_t *r, sim_summary_t *o)
{
	double hb = 0, ratio = 0, con = 0;
	int64_t nhb = 0, nratio = 0, ncon = 0;
	for (int64_t j = 0; j < c->s->n; j++) {
		const sim_job_t *job = &c->s->job[j];
		if (job->kind < 0 || job->warm)
			continue; /* no pattern: nothing to measure; warm-up: not counted */
		hb += r->hb[j];
		nhb++;
		if (r->hb[j] > 0 && r->hbc) {
			con += r->hbc[j] / r->hb[j];
			ncon++;
		}
		if (job->hb_ref > 0) {
			ratio += r->hb[j] / job->hb_ref;
			nratio++;
		}
	}
	o->mean_hop_bytes = nhb ? hb / (double)nhb : 0;
	o->mean_hop_bytes_ratio = nratio ? ratio / (double)nratio : 1;
	o->mean_contention = ncon ? con / (double)ncon : 1;
}

/* Utilization: node-seconds of the jobs over the cluster's node-seconds
 * from the first counted submission to the last counted end (without a
 * window: from time 0 to the makespan).  Warm-up jobs count for the part
 * of their run inside that interval: they held the nodes then.  Work
 * utilization: the counted jobs' node-seconds at the trace's run times
 * over the same: the work the window offers, done in that span; it does
 * not fall when a placement shortens the jobs, as utilization does. */
static void usage_of(const sim_config_t *c, const sim_result_t *r, sim_summary_t *o)
{
	double busy = 0, last = 0, w0 = 0, w1 = 0, sw = 0, work = 0;
	int64_t n = 0;
	for (int64_t j = 0; j < c->s->n; j++) {
		last = r->end[j] > last ? r->end[j] : last;
		if (c->s->job[j].warm)
			continue;
		w0 = n == 0 || c->s->job[j].submit < w0 ? c->s->job[j].submit : w0;
		w1 = n == 0 || r->end[j] > w1 ? r->end[j] : w1;
		sw += (double)r->switches[j];
		work += (double)c->s->job[j].nodes * c->s->job[j].run;
		n++;
	}
	for (int64_t j = 0; j < c->s->n; j++) {
		double a = r->start[j] > w0 ? r->start[j] : w0, b = r->end[j] < w1 ? r->end[j] : w1;
		busy += b > a ? (double)c->s->job[j].nodes * (b - a) : 0;
	}
	o->makespan = last;
	o->utilization = w1 > w0 ? busy / ((double)c->m->nnodes * (w1 - w0)) : 0;
	o->work_utilization = w1 > w0 ? work / ((double)c->m->nnodes * (w1 - w0)) : 0;
	o->mean_switches = c->m->levels > 0 && n ? sw / (double)n : -1;
}

void sim_summarize(const sim_config_t *c, const sim_result_t *r, sim_summary_t *o)
{
	int64_t n = c->s->n;
	double *wait = malloc((size_t)n * sizeof(*wait) + 1);
	double *bsld = malloc((size_t)n * sizeof(*bsld) + 1);
	memset(o, 0, sizeof(*o));
	hop_bytes_means(c, r, o);
	usage_of(c, r, o);
	for (int64_t j = 0; j < n; j++)
		o->killed += !c->s->job[j].warm && r->killed[j];
	if (!wait || !bsld) {
		o->mean_wait = o->p95_wait = o->mean_bsld = o->p95_bsld = NAN;
	} else {
		int64_t m = 0; /* the counted jobs: warm-up ones left out */
		for (int64_t j = 0; j < n; j++) {
			if (c->s->job[j].warm)
				continue;
			wait[m] = r->start[j] - c->s->job[j].submit;
			bsld[m++] = sim_bounded_slowdown(r->start[j] - c->s->job[j].submit, r->run[j]);
		}
		o->mean_wait = sim_mean(wait, m);
		o->p95_wait = sim_percentile(wait, m, 95);
		o->mean_bsld = sim_mean(bsld, m);
		o->p95_bsld = sim_percentile(bsld, m, 95);
	}
	free(wait);
	free(bsld);
}

void sim_kind_means(const sim_config_t *c, const sim_result_t *r, int kind, double *hb,
		       double *bsld, int64_t *n)
{
	double h = 0, b = 0;
	*n = 0;
	for (int64_t j = 0; j < c->s->n; j++) {
		const sim_job_t *job = &c->s->job[j];
		if (job->warm || (job->kind >= 0 ? job->kind : c->mix->n) != kind)
			continue;
		h += r->hb[j];
		b += sim_bounded_slowdown(r->start[j] - job->submit, r->run[j]);
		++*n;
	}
	*hb = *n ? h / (double)*n : 0;
	*bsld = *n ? b / (double)*n : 0;
}

/* --------------------------------------------------------------- text */

static void mix_names(FILE *out, const sim_mix_t *mix)
{
	for (int i = 0; i < mix->n; i++)
		fprintf(out, "%s%s=%g", i ? "," : "", mix->e[i].name, mix->e[i].weight);
}

/* How a file entry is used: "stencil 4 x 4 x 4 (7 points, periodic):
 * rescaled to other sizes" or "64 tasks only (not a stencil: why)". */
static void file_use(const sim_mix_entry_t *e, char *buf, size_t len)
{
	const topomatch_stencil_shape_t *s = &e->shape;
	if (!e->stencil) {
		snprintf(buf, len, "%lld tasks only (not a stencil: %.400s)",
			 (long long)topomatch_affinity_ntasks(e->file), e->why);
		return;
	}
	if (!e->rescale) {
		snprintf(buf, len, "%lld tasks only (a stencil: scaled:PATH rescales it)",
			 (long long)topomatch_affinity_ntasks(e->file));
		return;
	}
	char dims[80];
	if (s->ndims == 2)
		snprintf(dims, sizeof(dims), "%d x %d", s->dims[0], s->dims[1]);
	else
		snprintf(dims, sizeof(dims), "%d x %d x %d", s->dims[0], s->dims[1], s->dims[2]);
	snprintf(buf, len, "stencil %s (%d points%s): rescaled to other sizes", dims, s->points,
		 s->periodic[0] || s->periodic[1] || s->periodic[2] ? ", wraps around" : "");
}

/* Jobs (counted ones) per entry of the mix; [mix->n]: without a pattern. */
static void mix_counts(const sim_config_t *c, int64_t *count)
{
	for (int i = 0; i <= c->mix->n; i++)
		count[i] = 0;
	for (int64_t j = 0; j < c->s->n; j++)
		if (!c->s->job[j].warm)
			count[c->s->job[j].kind >= 0 ? c->s->job[j].kind : c->mix->n]++;
}

static void mix_lines(FILE *out, const sim_config_t *c)
{
	int64_t *count = malloc(((size_t)c->mix->n + 1) * sizeof(*count));
	if (!count)
		return;
	mix_counts(c, count);
	fprintf(out, "mix        ");
	for (int i = 0; i < c->mix->n; i++)
		fprintf(out, "%s%s %lld", i ? ", " : "", c->mix->e[i].name, (long long)count[i]);
	fprintf(out, "%sno pattern %lld (jobs of the window)\n", c->mix->n ? ", " : "",
		(long long)count[c->mix->n]);
	for (int i = 0; i < c->mix->n; i++)
		if (c->mix->e[i].kind == SIM_FILE) {
			char use[TOPOMATCH_ERRLEN + 128];
			file_use(&c->mix->e[i], use, sizeof(use));
			fprintf(out, "           %s: %s\n", c->mix->e[i].name, use);
		}
	free(count);
}

static void text_head(FILE *out, const sim_config_t *c)
{
	const sim_stream_t *s = c->s;
	char desc[512];
	topomatch_cluster_describe(c->m->cl, desc, sizeof(desc));
	fprintf(out, "trace      %s\n", s->source);
	char noprocs[64] = "";
	if (s->no_procs)
		snprintf(noprocs, sizeof(noprocs), "%lld without a processor count, ",
			 (long long)s->no_procs);
	fprintf(out, "jobs       %lld simulated (%lld records read; skipped: %lld never ran, "
		     "%s%lld larger than the cluster)\n", (long long)s->n, (long long)s->records,
		(long long)s->never_ran, noprocs, (long long)s->too_big);
	if (s->warm || s->win_first > 0)
		fprintf(out, "window     %lld jobs submitted from %.0f to %.0f s (trace time), "
			     "after %lld warm-up jobs (not counted); inter-arrival times x %g; "
			     "offered load %.4f\n", (long long)(s->n - s->warm), s->win_first,
			s->win_last, (long long)s->warm, s->time_scale, s->offered);
	else
		fprintf(out, "load       offered %.4f (node-seconds asked over the cluster's "
			     "between the first and last submission); inter-arrival times x %g\n",
			s->offered, s->time_scale);
	if (s->max_nodes > 0 || s->max_procs > 0)
		fprintf(out, "header     MaxNodes %lld, MaxProcs %lld\n", (long long)s->max_nodes,
			(long long)s->max_procs);
	fprintf(out, "cluster    %s: %lld nodes, %lld cores per node for the trace's "
		     "processors; %s\n", topomatch_cluster_name(c->m->cl),
		(long long)c->m->nnodes, (long long)c->m->cpn, desc);
	if (c->model == SIM_MODEL_CONTENTION)
		fprintf(out, "model      contention: run = trace run x (1 - s + s x HB_c / HB_ref), "
			     "HB_c = hop-bytes, each message's x max(1, load of the most loaded "
			     "link on its route) (topomatch-sim(1)), s = %g; seed %llu; patterns ",
			c->share, (unsigned long long)c->seed);
	else
		fprintf(out, "model      hop-bytes: run = trace run x (1 - s + s x HB / HB_ref), "
			     "s = %g; seed %llu; patterns ", c->share, (unsigned long long)c->seed);
	mix_names(out, c->mix);
	fprintf(out, "\n");
	if (c->bf_depth > 0)
		fprintf(out, "scheduler  Slurm's backfill: the first %lld queued jobs planned, none "
			     "reserved more than %g min ahead\n", (long long)c->bf_depth,
			c->bf_window / 60);
	mix_lines(out, c);
	fprintf(out, "\n%-13s %13s %8s %7s %11s %11s %9s %9s %6s %6s %12s %8s %6s\n", "policy",
		"mean_HB", "HB/ref", "HBc/HB", "mean_wait_s", "p95_wait_s", "mean_bsld", "p95_bsld", "util",
		"work", "makespan_s", "switches", "killed");
}

/* Per mix entry: its jobs, each policy's mean hop-bytes and bounded
 * slowdown on them (natural against shuffled orders, profiles against
 * generated kinds). */
static void kind_lines(FILE *out, const sim_config_t *c, const sim_result_t *r, int nres)
{
	int w = 12; /* the longest name: files and shuffled ones are long */
	for (int i = 0; i < c->mix->n; i++)
		w = (int)strlen(c->mix->e[i].name) > w ? (int)strlen(c->mix->e[i].name) : w;
	fprintf(out, "\nper pattern kind (window jobs): mean hop-bytes / mean bounded slowdown\n"
		     "%-*s %7s", w, "kind", "jobs");
	for (int k = 0; k < nres; k++)
		fprintf(out, " %25s", sim_policy_name(r[k].policy));
	fprintf(out, "\n");
	for (int i = 0; i <= c->mix->n; i++) {
		double hb, bsld;
		int64_t n;
		sim_kind_means(c, &r[0], i, &hb, &bsld, &n);
		if (n == 0)
			continue;
		fprintf(out, "%-*s %7lld", w, i < c->mix->n ? c->mix->e[i].name : "(no pattern)",
			(long long)n);
		for (int k = 0; k < nres; k++) {
			sim_kind_means(c, &r[k], i, &hb, &bsld, &n);
			fprintf(out, " %15.6g / %7.3f", hb, bsld);
		}
		fprintf(out, "\n");
	}
}

void sim_report_text(FILE *out, const sim_config_t *c, const sim_result_t *r,
		     const sim_summary_t *sum, int nres)
{
	text_head(out, c);
	for (int k = 0; k < nres; k++) {
		const sim_summary_t *u = &sum[k];
		char sw[32] = "-"; /* no switches off trees */
		if (u->mean_switches >= 0)
			snprintf(sw, sizeof(sw), "%.2f", u->mean_switches);
		fprintf(out, "%-13s %13.6g %8.4f %7.4f %11.1f %11.1f %9.3f %9.3f %6.4f %6.4f %12.0f "
			     "%8s %6lld\n", sim_policy_name(r[k].policy), u->mean_hop_bytes,
			u->mean_hop_bytes_ratio, u->mean_contention,
			u->mean_wait, u->p95_wait, u->mean_bsld, u->p95_bsld, u->utilization,
			u->work_utilization, u->makespan, sw, (long long)u->killed);
	}
	kind_lines(out, c, r, nres);
	for (int k = 0; k < nres; k++)
		if (r[k].policy == SIM_TOPOMATCH)
			fprintf(out, "\ntopomatch: the mapping chose the job's nodes for %lld jobs "
				     "(%lld of them over MaxTasks, mapped node by node, %lld with "
				     "the pattern in groups of tasks); "
				     "cons_tres chose among all free nodes for %lld (the mapping "
				     "used more nodes) and %lld (fewer), its own nodes scored lower "
				     "for %lld, and without a mapping for %lld: "
				     "%lld without a pattern, %lld whose pattern sbatch cannot store "
				     "within PatternKiB (%d), %lld over MaxTasks (%lld) in blocks "
				     "too, %lld over the time budget, %lld whose mapping failed\n",
				(long long)r[k].tm.narrowed, (long long)r[k].tm.blocked,
				(long long)r[k].tm.grouped,
				(long long)r[k].tm.overflow,
				(long long)r[k].tm.underflow, (long long)r[k].tm.cons_better,
				(long long)r[k].tm.fallback, (long long)r[k].tm.no_pattern,
				(long long)r[k].tm.over_kib,
				(int)c->tm.pattern_kib,
				(long long)r[k].tm.over_max,
				(long long)c->tm.max_tasks, (long long)r[k].tm.over_budget,
				(long long)r[k].tm.map_failed);
	for (int k = 0; k < nres; k++)
		if (r[k].policy == SIM_TOPOMATCH && c->tm.contention_weight > 0)
			fprintf(out, "topomatch: contention weight %g: the first choice met running "
				     "jobs' link loads for %lld jobs, other node sets were mapped for "
				     "%lld, another node set won for %lld\n",
				c->tm.contention_weight, (long long)r[k].tm.loaded,
				(long long)r[k].tm.compared, (long long)r[k].tm.moved);
		else if (r[k].policy == SIM_TOPOMATCH)
			fprintf(out, "topomatch: contention weight 0: node sets compared by "
				     "hop-bytes only\n");
	for (int k = 0; k < nres; k++)
		if (r[k].policy == SIM_TOPOMATCH && c->tm.comm_wait > 0)
			fprintf(out, "topomatch: --comm-wait %g s: %lld jobs waited for a placement "
				     "within x%g of their hop-bytes on the empty machine, %lld of them "
				     "until their time was up\n", c->tm.comm_wait,
				(long long)r[k].tm.waited, c->tm.comm_wait_ratio,
				(long long)r[k].tm.wait_expired);
}

/* --------------------------------------------------------------- JSON */

static void jnum(FILE *out, const char *key, double v, bool comma)
{
	if (isfinite(v))
		fprintf(out, "\"%s\": %.17g%s", key, v, comma ? ", " : "");
	else
		fprintf(out, "\"%s\": null%s", key, comma ? ", " : "");
}

static void json_policy(FILE *out, const sim_result_t *r, const sim_summary_t *u, bool last)
{
	fprintf(out, "    \"%s\": {", sim_policy_name(r->policy));
	jnum(out, "mean_hop_bytes", u->mean_hop_bytes, true);
	jnum(out, "mean_hop_bytes_ratio", u->mean_hop_bytes_ratio, true);
	jnum(out, "mean_contention", u->mean_contention, true);
	jnum(out, "mean_wait_s", u->mean_wait, true);
	jnum(out, "p95_wait_s", u->p95_wait, true);
	jnum(out, "mean_bounded_slowdown", u->mean_bsld, true);
	jnum(out, "p95_bounded_slowdown", u->p95_bsld, true);
	jnum(out, "utilization", u->utilization, true);
	jnum(out, "work_utilization", u->work_utilization, true);
	jnum(out, "makespan_s", u->makespan, true);
	if (u->mean_switches >= 0)
		jnum(out, "mean_switches", u->mean_switches, true);
	if (r->policy == SIM_TOPOMATCH)
		fprintf(out, "\"narrowed\": %lld, \"blocked\": %lld, \"grouped\": %lld, "
			     "\"overflow\": %lld, "
			     "\"underflow\": %lld, \"cons_better\": %lld, \"fallback\": %lld, "
			     "\"fallback_no_pattern\": %lld, "
			     "\"fallback_over_pattern_kib\": %lld, \"fallback_over_max_tasks\": %lld, "
			     "\"fallback_over_budget\": %lld, "
			     "\"fallback_map_failed\": %lld, \"contention_loaded\": %lld, "
			     "\"contention_compared\": %lld, "
			     "\"contention_moved\": %lld, \"comm_waited\": %lld, "
			     "\"comm_wait_expired\": %lld, ", (long long)r->tm.narrowed,
			(long long)r->tm.blocked, (long long)r->tm.grouped, (long long)r->tm.overflow,
			(long long)r->tm.underflow,
			(long long)r->tm.cons_better, (long long)r->tm.fallback,
			(long long)r->tm.no_pattern,
			(long long)r->tm.over_kib, (long long)r->tm.over_max, (long long)r->tm.over_budget,
			(long long)r->tm.map_failed, (long long)r->tm.loaded,
			(long long)r->tm.compared, (long long)r->tm.moved,
			(long long)r->tm.waited, (long long)r->tm.wait_expired);
	fprintf(out, "\"killed\": %lld}%s\n", (long long)u->killed, last ? "" : ",");
}

/* "by_policy": {"POLICY": {"mean_hop_bytes", "mean_bounded_slowdown"}}
 * of mix entry i's jobs. */
static void json_kind(FILE *out, const sim_config_t *c, const sim_result_t *r, int nres, int i)
{
	fprintf(out, "\"by_policy\": {");
	for (int k = 0; k < nres; k++) {
		double hb, bsld;
		int64_t n;
		sim_kind_means(c, &r[k], i, &hb, &bsld, &n);
		fprintf(out, "%s\"%s\": {", k ? ", " : "", sim_policy_name(r[k].policy));
		jnum(out, "mean_hop_bytes", hb, true);
		jnum(out, "mean_bounded_slowdown", bsld, false);
		fprintf(out, "}");
	}
	fprintf(out, "}");
}

static void json_mix(FILE *out, const sim_config_t *c, const sim_result_t *r, int nres)
{
	int64_t *count = malloc(((size_t)c->mix->n + 1) * sizeof(*count));
	if (!count)
		return;
	mix_counts(c, count);
	fprintf(out, "\"patterns\": [");
	for (int i = 0; i < c->mix->n; i++) {
		const sim_mix_entry_t *e = &c->mix->e[i];
		fprintf(out, "%s{\"name\": \"", i ? ", " : "");
		for (const char *p = e->name; *p; p++) /* JSON string: escape */
			fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : (unsigned char)*p < 32 ?
				"?" : "%c", *p);
		fprintf(out, "\", ");
		jnum(out, "weight", e->weight, true);
		fprintf(out, "\"jobs\": %lld, \"shuffled\": %s", (long long)count[i],
			e->shuffled ? "true" : "false");
		if (e->kind == SIM_FILE)
			fprintf(out, ", \"rescaled\": %s", e->rescale ? "true" : "false");
		if (e->kind == SIM_FILE && e->stencil)
			fprintf(out, ", \"stencil_dims\": [%d, %d, %d]", e->shape.dims[0],
				e->shape.dims[1], e->shape.ndims > 2 ? e->shape.dims[2] : 1);
		else if (e->kind == SIM_FILE)
			fprintf(out, ", \"stencil_dims\": null");
		fprintf(out, ", ");
		json_kind(out, c, r, nres, i);
		fprintf(out, "}");
	}
	fprintf(out, "], \"no_pattern_jobs\": %lld, ", (long long)count[c->mix->n]);
	free(count);
}

void sim_report_json(FILE *out, const sim_config_t *c, const sim_result_t *r,
		     const sim_summary_t *sum, int nres)
{
	const sim_stream_t *s = c->s;
	fprintf(out, "{\n  \"policies\": {\n");
	for (int k = 0; k < nres; k++)
		json_policy(out, &r[k], &sum[k], k + 1 == nres);
	fprintf(out, "  },\n  \"jobs\": {\"simulated\": %lld, \"records\": %lld, "
		     "\"never_ran\": %lld, \"no_procs\": %lld, \"too_big\": %lld, "
		     "\"warm_up\": %lld, \"counted\": %lld, ", (long long)s->n,
		(long long)s->records, (long long)s->never_ran, (long long)s->no_procs,
		(long long)s->too_big, (long long)s->warm,
		(long long)(s->n - s->warm));
	jnum(out, "window_first_submit_s", s->win_first, true);
	jnum(out, "window_last_submit_s", s->win_last, true);
	jnum(out, "time_scale", s->time_scale, true);
	jnum(out, "offered_load", s->offered, false);
	fprintf(out, "},\n");
	fprintf(out, "  \"nodes\": %lld, \"cores_per_node\": %lld, ", (long long)c->m->nnodes,
		(long long)c->m->cpn);
	fprintf(out, "\"model\": \"%s\", ",
		c->model == SIM_MODEL_CONTENTION ? "contention" : "hop-bytes");
	jnum(out, "comm_share", c->share, true);
	if (c->bf_depth > 0) {
		fprintf(out, "\"scheduler\": \"slurm\", \"bf_max_job_test\": %lld, ",
			(long long)c->bf_depth);
		jnum(out, "bf_window_min", c->bf_window / 60, true);
	} else {
		fprintf(out, "\"scheduler\": \"easy\", ");
	}
	jnum(out, "contention_weight", c->tm.contention_weight, true);
	json_mix(out, c, r, nres);
	fprintf(out, "\"seed\": %llu\n}\n", (unsigned long long)c->seed);
}

/* --------------------------------------------------------- host lists */

typedef struct hname {
	char prefix[256];
	long long num;
	int width; /* digits as written, 0: no number */
} hname_t;

static void split_name(const char *name, hname_t *h)
{
	size_t n = strlen(name), d = n;
	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	snprintf(h->prefix, sizeof(h->prefix), "%.*s", (int)d, name);
	h->width = d < n && n - d < 18 ? (int)(n - d) : 0;
	h->num = h->width ? strtoll(name + d, NULL, 10) : 0;
	if (!h->width)
		snprintf(h->prefix, sizeof(h->prefix), "%s", name);
}

static void node_hname(const topomatch_cluster_t *cl, int64_t node, hname_t *h)
{
	char name[256];
	if (topomatch_cluster_node_name(cl, node, name, sizeof(name)) != TOPOMATCH_OK)
		snprintf(name, sizeof(name), "node%lld", (long long)node);
	split_name(name, h);
}

static bool same_group(const hname_t *a, const hname_t *b)
{
	return a->width && b->width && a->width == b->width && !strcmp(a->prefix, b->prefix);
}

/* One group of names sharing prefix and width: "p[1-3,7]" or "p5". */
static int64_t write_group(const topomatch_cluster_t *cl, const int64_t *nodes, int64_t n,
			   FILE *out)
{
	hname_t first, cur;
	node_hname(cl, nodes[0], &first);
	int64_t end = 1;
	for (; end < n; end++) {
		node_hname(cl, nodes[end], &cur);
		if (!same_group(&first, &cur))
			break;
	}
	if (!first.width || end == 1) {
		fprintf(out, "%s", first.prefix);
		if (first.width)
			fprintf(out, "%0*lld", first.width, first.num);
		return end;
	}
	fprintf(out, "%s[", first.prefix);
	long long prev = 0;
	for (int64_t k = 0; k < end; k++) {
		hname_t next;
		node_hname(cl, nodes[k], &cur);
		bool starts = k == 0 || cur.num != prev + 1, ends = k + 1 == end;
		if (!ends) {
			node_hname(cl, nodes[k + 1], &next);
			ends = next.num != cur.num + 1;
		}
		if (starts)
			fprintf(out, "%s%0*lld", k ? "," : "", cur.width, cur.num);
		if (ends && !starts)
			fprintf(out, "-%0*lld", cur.width, cur.num);
		prev = cur.num;
	}
	fprintf(out, "]");
	return end;
}

void sim_hostlist(const topomatch_cluster_t *cl, const int64_t *nodes, int64_t n, FILE *out)
{
	for (int64_t k = 0; k < n;) {
		if (k)
			fputc(',', out);
		k += write_group(cl, nodes + k, n - k, out);
	}
}

/* ---------------------------------------------------------------- CSV */

static void csv_job(FILE *f, const sim_config_t *c, const sim_result_t *r, int64_t j)
{
	const sim_job_t *job = &c->s->job[j];
	fprintf(f, "%s,%lld,%.0f,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,%s,%.17g,%.17g,%lld,%d,"
		   "%.17g,%d,\"",
		sim_policy_name(r->policy), (long long)job->id, job->submit, r->start[j], r->end[j],
		r->start[j] - job->submit, r->run[j], job->run, job->req, (long long)job->procs,
		(long long)job->nodes, job->kind >= 0 ? c->mix->e[job->kind].name : "none",
		r->hb[j], job->hb_ref, (long long)r->switches[j], r->killed[j], r->hbc[j],
		job->warm);
	sim_hostlist(c->m->cl, r->nodes + r->node_off[j], job->nodes, f);
	fprintf(f, "\"\n");
}

int sim_report_csv(const char *path, const sim_config_t *c, const sim_result_t *r, int nres,
		   char *err)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		return sim_err(err, TOPOMATCH_EIO, "%s: %s", path, strerror(errno));
	}
	fprintf(f, "policy,job,submit_s,start_s,end_s,wait_s,run_s,trace_run_s,requested_s,"
		   "procs,nodes,pattern,hop_bytes,hop_bytes_ref,switches,killed,"
		   "hop_bytes_contention,warm_up,node_list\n");
	for (int k = 0; k < nres; k++)
		for (int64_t j = 0; j < c->s->n; j++)
			csv_job(f, c, &r[k], j);
	int bad = ferror(f);
	bad |= fclose(f);
	if (bad) {
		return sim_err(err, TOPOMATCH_EIO, "%s: write failed", path);
	}
	return TOPOMATCH_OK;
}

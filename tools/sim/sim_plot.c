/*
 * sim_plot.c - plots of a simulation with gnuplot: the CDF of each job's
 * hop-bytes relative to its compact reference placement, the CDF of wait
 * times, and the cluster's utilization over time, one curve per policy,
 * and each pattern kind's mean hop-bytes under each policy relative to
 * the first policy's (bars), as PNG and SVG.  The data files and the script stay next to the images
 * (PREFIX-*.dat, PREFIX.gp): rerun `gnuplot PREFIX.gp` after editing the
 * script, or draw them elsewhere when this machine has no gnuplot.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Points per CDF curve and bins of the utilization curve: enough for a
 * smooth line, small files whatever the job count. */
#define CDF_POINTS 1000
#define UTIL_BINS 400
/* The CDFs' x axes span the data from this percentile of the policy
 * lowest there to 100 minus it of the highest: one job far out does not
 * squeeze every curve against an edge. */
#define AXIS_CUT_PCT 1.0
/* A CDF's x axis is logarithmic when its span covers this factor. */
#define LOG_SPAN 20.0

/* The x range of one chart and whether it is logarithmic. */
typedef struct axis {
	double lo, hi;
	int logx;
} axis_t;

static FILE *open_out(const char *prefix, const char *suffix, char *path, size_t len,
		      char *err)
{
	snprintf(path, len, "%s%s", prefix, suffix);
	FILE *f = fopen(path, "w");
	if (!f)
		sim_err(err, TOPOMATCH_EIO, "%s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path, char *err)
{
	int bad = ferror(f);
	bad |= fclose(f);
	if (!bad)
		return TOPOMATCH_OK;
	return sim_err(err, TOPOMATCH_EIO, "%s: write failed", path);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One gnuplot data block: quantiles of v[0..n-1] against their fraction. */
static void cdf_block(FILE *f, double *v, int64_t n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	int64_t points = n < CDF_POINTS ? n : CDF_POINTS;
	for (int64_t q = 1; q <= points; q++) {
		int64_t rank = (int64_t)ceil((double)q / (double)points * (double)n);
		fprintf(f, "%.9g %.6f\n", v[rank - 1], (double)rank / (double)n);
	}
	fprintf(f, "\n\n");
}

/* Nearest-rank percentile p of sorted v[0..n-1]. */
static double sorted_pct(const double *v, int64_t n, double p)
{
	int64_t rank = (int64_t)ceil(p / 100 * (double)n);
	return v[rank < 1 ? 0 : rank > n ? n - 1 : rank - 1];
}

/*
 * The x axis that fits the curves: from the lowest policy's AXIS_CUT_PCT
 * percentile (0 for waits) to the highest one's 100 - AXIS_CUT_PCT, with
 * a margin (waits: up to the longest when that percentile is 0);
 * logarithmic for hop-bytes ratios that span LOG_SPAN or more
 * (the ratios are > 0), linear otherwise, so that curves within a few
 * per cent of each other are not pressed into one line.
 */
static void fit_axis(axis_t *ax, int what, double lo, double hi, double most)
{
	if (what == 1) {
		lo = 0;
		hi = hi > 0 ? hi : most > 0 ? most : 1; /* the longest wait; none: one hour */
	} else if (!(hi > lo)) {
		lo = lo > 0 ? lo : 1;
		hi = lo;
		lo *= 0.9;
		hi *= 1.1;
	}
	ax->logx = what == 0 && lo > 0 && hi / lo >= LOG_SPAN;
	if (ax->logx) {
		lo /= 1.05;
		hi *= 1.05;
	} else {
		double pad = 0.03 * (hi - lo);
		lo = what == 1 ? 0 : lo - pad;
		hi += pad;
	}
	ax->lo = lo;
	ax->hi = hi;
}

/* what 0: hop-bytes / reference (jobs with communication); 1: wait, h. */
static int cdf_file(const char *prefix, const char *suffix, int what, const sim_config_t *c,
		    const sim_result_t *r, int nres, axis_t *ax, char *err)
{
	double lo = INFINITY, hi = -INFINITY, most = 0;
	char path[4096];
	double *v = malloc((size_t)c->s->n * sizeof(*v) + 1);
	FILE *f = v ? open_out(prefix, suffix, path, sizeof(path), err) : NULL;
	if (!f) {
		free(v);
		return v ? TOPOMATCH_EIO : TOPOMATCH_ENOMEM;
	}
	for (int k = 0; k < nres; k++) {
		int64_t n = 0;
		for (int64_t j = 0; j < c->s->n; j++) {
			const sim_job_t *job = &c->s->job[j];
			if (job->warm)
				continue; /* the window's jobs, as the summary */
			if (what == 1)
				v[n++] = (r[k].start[j] - job->submit) / 3600;
			else if (job->hb_ref > 0)
				v[n++] = r[k].hb[j] / job->hb_ref;
		}
		if (n == 0)
			v[n++] = what == 1 ? 0 : 1; /* keep the block: gnuplot's index counts */
		cdf_block(f, v, n);
		lo = fmin(lo, sorted_pct(v, n, AXIS_CUT_PCT));
		hi = fmax(hi, sorted_pct(v, n, 100 - AXIS_CUT_PCT));
		most = fmax(most, v[n - 1]);
	}
	fit_axis(ax, what, lo, hi, most);
	free(v);
	return close_out(f, path, err);
}

/* Busy nodes / nodes, averaged over UTIL_BINS bins of the longest run. */
static void util_block(FILE *f, const sim_config_t *c, const sim_result_t *r, double span,
		       double *bin)
{
	double w = span / UTIL_BINS;
	memset(bin, 0, UTIL_BINS * sizeof(*bin));
	for (int64_t j = 0; j < c->s->n; j++) {
		double s = r->start[j], e = r->end[j], nodes = (double)c->s->job[j].nodes;
		for (int64_t b = (int64_t)(s / w); b < UTIL_BINS && b * w < e; b++) {
			double lo = fmax(s, (double)b * w), hi = fmin(e, (double)(b + 1) * w);
			if (hi > lo)
				bin[b] += nodes * (hi - lo);
		}
	}
	for (int b = 0; b < UTIL_BINS; b++)
		fprintf(f, "%.6g %.6f\n", ((double)b + 0.5) * w / 3600,
			bin[b] / (w * (double)c->m->nnodes));
	fprintf(f, "\n\n");
}

static int util_file(const char *prefix, const sim_config_t *c, const sim_result_t *r,
		     int nres, char *err)
{
	char path[4096];
	double span = 0, bin[UTIL_BINS];
	for (int k = 0; k < nres; k++)
		for (int64_t j = 0; j < c->s->n; j++)
			span = fmax(span, r[k].end[j]);
	FILE *f = open_out(prefix, "-util.dat", path, sizeof(path), err);
	if (!f)
		return TOPOMATCH_EIO;
	for (int k = 0; k < nres; k++)
		util_block(f, c, &r[k], span > 0 ? span : 1, bin);
	return close_out(f, path, err);
}

/* Per mix entry with jobs: its name (quoted, '"' made '?') and each
 * policy's mean hop-bytes over the first policy's; *ymax the largest. */
static int kinds_file(const char *prefix, const sim_config_t *c, const sim_result_t *r,
		      int nres, double *ymax, char *err)
{
	*ymax = 1;
	char path[4096];
	FILE *f = open_out(prefix, "-kinds.dat", path, sizeof(path), err);
	if (!f)
		return TOPOMATCH_EIO;
	fprintf(f, "# kind, then each policy's mean hop-bytes / %s's\n",
		sim_policy_name(r[0].policy));
	for (int i = 0; i < c->mix->n; i++) {
		double hb0, hb, bsld;
		int64_t n;
		sim_kind_means(c, &r[0], i, &hb0, &bsld, &n);
		if (n == 0 || !(hb0 > 0))
			continue;
		fputc('"', f);
		for (const char *p = c->mix->e[i].name; *p; p++)
			fputc(*p == '"' || (unsigned char)*p < 32 ? '?' : *p, f);
		fputc('"', f);
		for (int k = 0; k < nres; k++) {
			sim_kind_means(c, &r[k], i, &hb, &bsld, &n);
			fprintf(f, " %.6g", hb / hb0);
			*ymax = hb / hb0 > *ymax ? hb / hb0 : *ymax;
		}
		fputc('\n', f);
	}
	return close_out(f, path, err);
}

/* gnuplot string literal of a path (single quotes, doubled inside). */
static void gp_quote(FILE *f, const char *prefix, const char *suffix)
{
	fputc('\'', f);
	for (const char *p = prefix; *p; p++)
		fputs(*p == '\'' ? "''" : (char[]){ *p, 0 }, f);
	fprintf(f, "%s'", suffix);
}

static const struct chart {
	const char *name, *data, *setup;
	int bars; /* a cluster of bars per line of data, else a curve per index */
} charts[] = {
	{ "hopbytes", "-hopbytes.dat",
	  "set title 'Hop-bytes of each job relative to its compact placement'\n"
	  "set xlabel 'hop-bytes / hop-bytes of the compact reference placement'\n"
	  "set ylabel 'fraction of jobs'\nset yrange [0:1.02]\nset key default\n"
	  "set key bottom right\n", 0 },
	{ "wait", "-wait.dat",
	  "set title 'Wait times'\nset xlabel 'wait (hours)'\nset ylabel 'fraction of jobs'\n"
	  "set yrange [0:1.02]\nset key default\nset key bottom right\n", 0 },
	{ "util", "-util.dat",
	  "set title 'Utilization'\nset xlabel 'time since the first submission (hours)'\n"
	  "set ylabel 'busy nodes / nodes'\nunset logscale x\nset autoscale xfix\n"
	  "set yrange [0:1.05]\nset key below horizontal\n", 0 },
	{ "kinds", "-kinds.dat",
	  "set title 'Mean hop-bytes per pattern kind, relative to the first policy'\n"
	  "set xlabel ''\nset ylabel 'mean hop-bytes / first policy'\nunset logscale x\n"
	  "set style data histograms\nset style histogram clustered\n"
	  "set style fill solid 0.8 border -1\nset xtics rotate by -90 left font ',9'\n"
	  "set key default\nset key tmargin horizontal\nset bmargin 16\n", 1 },
};

/* One curve per policy (index k of the data file) or, for bars, one bar
 * per policy (column k + 2) in each cluster. */
static void gp_plot(FILE *f, const char *prefix, const struct chart *ch, const sim_result_t *r,
		    int nres)
{
	fprintf(f, "plot ");
	for (int k = 0; k < nres; k++) {
		gp_quote(f, prefix, ch->data);
		if (ch->bars)
			fprintf(f, " using %d%s", k + 2, k ? "" : ":xtic(1)");
		else
			fprintf(f, " index %d with lines lw 2", k);
		fprintf(f, " title '%s'%s", sim_policy_name(r[k].policy),
			k + 1 < nres ? ", \\\n     " : "\n");
	}
}

/* The CDFs' x ranges (set after the chart's setup). */
static void gp_axis(FILE *f, const axis_t *ax)
{
	fprintf(f, "%s x\nset xrange [%.6g:%.6g]\n", ax->logx ? "set logscale" : "unset logscale",
		ax->lo, ax->hi);
	fprintf(f, "set label 1 'x axis: %g to %g %% of the jobs of each policy' right at graph "
		   "0.98, graph 0.32 front\n", AXIS_CUT_PCT, 100 - AXIS_CUT_PCT);
}

static int script(const char *prefix, const sim_result_t *r, int nres, const axis_t *ax,
		  double kinds_ymax, char *path, size_t len, char *err)
{
	static const char *const term[2][2] = { { "png", "pngcairo size 960,640" },
						{ "svg", "svg size 960,640" } };
	FILE *f = open_out(prefix, ".gp", path, len, err);
	if (!f)
		return TOPOMATCH_EIO;
	fprintf(f, "# topomatch sim: plots (gnuplot %s)\n", path);
	for (int t = 0; t < 2; t++) {
		/* pngcairo when gnuplot has it, the libgd png terminal otherwise */
		if (t == 0)
			fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
				   "{ set terminal pngcairo size 960,640 } "
				   "else { set terminal png size 960,640 }\n");
		else
			fprintf(f, "set terminal %s\n", term[t][1]);
		for (size_t k = 0; k < sizeof(charts) / sizeof(charts[0]); k++) {
			char name[64];
			snprintf(name, sizeof(name), "-%s.%s", charts[k].name, term[t][0]);
			fprintf(f, "set output ");
			gp_quote(f, prefix, name);
			fprintf(f, "\nset autoscale\nunset label 1\nset style data lines\n"
				   "set xtics norotate font ''\nset bmargin\n%s", charts[k].setup);
			if (k < 2)
				gp_axis(f, &ax[k]);
			else if (charts[k].bars) /* room above the bars */
				fprintf(f, "set yrange [0:%.3g]\n", kinds_ymax * 1.1);
			gp_plot(f, prefix, &charts[k], r, nres);
		}
	}
	fprintf(f, "unset output\n");
	return close_out(f, path, err);
}

/* The gnuplot on PATH, or 0. */
static int find_gnuplot(char *out, size_t len)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/gnuplot", (int)n, n ? path : ".");
		if (access(out, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

/* gnuplot SCRIPT with stdout on /dev/null (stdout may hold the JSON). */
static int run_gnuplot(const char *exe, const char *gp, char *err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;
	char *argv[] = { (char *)"gnuplot", (char *)gp, NULL };
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		return sim_err(err, TOPOMATCH_EIO, "%s: %s", exe, strerror(rc));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			return sim_err(err, TOPOMATCH_EIO, "waitpid: %s", strerror(errno));
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return TOPOMATCH_OK;
	return sim_err(err, TOPOMATCH_EIO, "gnuplot %s failed (%s %d)", gp,
		 WIFEXITED(status) ? "exit status" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int sim_plot(const char *prefix, const sim_config_t *c, const sim_result_t *r, int nres,
	     int *drawn, char *err)
{
	char gp[4096], exe[4096];
	*drawn = 0;
	axis_t ax[2];
	int rc = cdf_file(prefix, "-hopbytes.dat", 0, c, r, nres, &ax[0], err);
	if (!rc)
		rc = cdf_file(prefix, "-wait.dat", 1, c, r, nres, &ax[1], err);
	if (!rc)
		rc = util_file(prefix, c, r, nres, err);
	double kinds_ymax = 1;
	if (!rc)
		rc = kinds_file(prefix, c, r, nres, &kinds_ymax, err);
	if (!rc)
		rc = script(prefix, r, nres, ax, kinds_ymax, gp, sizeof(gp), err);
	if (rc || !find_gnuplot(exe, sizeof(exe)))
		return rc;
	rc = run_gnuplot(exe, gp, err);
	*drawn = rc == TOPOMATCH_OK;
	return rc;
}

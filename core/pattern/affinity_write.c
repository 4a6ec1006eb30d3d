/*
 * affinity_write.c - write the directed matrix C in each pattern format,
 * so that reading the output back gives the same C (weights round-trip
 * exactly).  Only grf carries task loads; the other formats have no
 * place for them.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/tm_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for "%.17g" of any double. */
#define WBUF 32

/*
 * Shortest of %.15g .. %.17g that reads back as the same double: exact
 * round trip without printing 0.1 as 0.10000000000000001.
 */
static const char *fmt_weight(char *buf, double w)
{
	for (int prec = 15; prec < 17; prec++) {
		snprintf(buf, WBUF, "%.*g", prec, w);
		if (strtod(buf, NULL) == w)
			return buf;
	}
	snprintf(buf, WBUF, "%.17g", w);
	return buf;
}

static void write_dense(const topomatch_csr_t *c, FILE *out)
{
	char buf[WBUF];

	for (int64_t i = 0; i < c->n; i++) {
		int64_t k = c->rowptr[i], end = c->rowptr[i + 1];
		for (int64_t j = 0; j < c->n; j++) {
			if (j > 0)
				putc(' ', out);
			if (k < end && c->col[k] == j)
				fputs(fmt_weight(buf, c->w[k++]), out);
			else
				putc('0', out);
		}
		putc('\n', out);
	}
}

static void write_mm(const topomatch_csr_t *c, FILE *out)
{
	char buf[WBUF];

	fputs("%%MatrixMarket matrix coordinate real general\n", out);
	fprintf(out, "%lld %lld %lld\n", (long long)c->n, (long long)c->n,
		(long long)c->rowptr[c->n]);
	for (int64_t i = 0; i < c->n; i++)
		for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
			fprintf(out, "%lld %lld %s\n", (long long)i + 1, (long long)c->col[k] + 1,
				fmt_weight(buf, c->w[k]));
}

static void write_triplets(const topomatch_csr_t *c, FILE *out)
{
	char buf[WBUF];

	/* keeps tasks that communicate with nobody at the end of the range */
	fprintf(out, "# tasks %lld\n", (long long)c->n);
	for (int64_t i = 0; i < c->n; i++)
		for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
			fprintf(out, "%lld %lld %s\n", (long long)i, (long long)c->col[k],
				fmt_weight(buf, c->w[k]));
}

/* Scotch loads are integers; beyond 2^53 doubles skip integers. */
static bool grf_integer(double x)
{
	return x == floor(x) && x <= 9007199254740992.0;
}

static int grf_check(const topomatch_csr_t *c, const double *loads, char *err)
{
	char buf[WBUF];

	for (int64_t i = 0; i < c->n; i++) {
		for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
			if (!grf_integer(c->w[k]))
				return tm_err(err, TOPOMATCH_EINVAL,
					      "grf needs integer weights, but C(%lld,%lld) = %s: "
					      "use --format mm or triplets",
					      (long long)i, (long long)c->col[k],
					      fmt_weight(buf, c->w[k]));
		if (loads && !grf_integer(loads[i]))
			return tm_err(err, TOPOMATCH_EINVAL,
				      "grf needs integer loads, but task %lld has %s: "
				      "use --format mm or triplets (without loads)",
				      (long long)i, fmt_weight(buf, loads[i]));
	}
	return TOPOMATCH_OK;
}

/*
 * Version 0, base 0, edge loads, and vertex loads when there are some.
 * Arcs are C as it is: Scotch itself wants both arcs of every edge with
 * equal loads, which holds when C is symmetric.
 */
static int write_grf(const topomatch_csr_t *c, const double *loads, FILE *out, char *err)
{
	int rc = grf_check(c, loads, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	fprintf(out, "0\n%lld %lld\n0 %s\n", (long long)c->n, (long long)c->rowptr[c->n],
		loads ? "011" : "010");
	for (int64_t i = 0; i < c->n; i++) {
		if (loads)
			fprintf(out, "%.0f ", loads[i]);
		fprintf(out, "%lld", (long long)(c->rowptr[i + 1] - c->rowptr[i]));
		for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
			fprintf(out, " %.0f %lld", c->w[k], (long long)c->col[k]);
		putc('\n', out);
	}
	return TOPOMATCH_OK;
}

int topomatch_affinity_write(const topomatch_affinity_t *a, FILE *out, int format, char *err)
{
	int64_t cells;
	int rc = TOPOMATCH_OK;

	if (!a || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "no pattern or no output stream to write");
	topomatch_csr_t c = topomatch_affinity_directed(a);
	switch (format) {
	case TOPOMATCH_FORMAT_DENSE:
		if (!tm_mul_ok(c.n, c.n, &cells))
			return tm_err(err, TOPOMATCH_ELIMIT,
				      "%lld tasks are too many for the dense format: use mm",
				      (long long)c.n);
		write_dense(&c, out);
		break;
	case TOPOMATCH_FORMAT_MM:
		write_mm(&c, out);
		break;
	case TOPOMATCH_FORMAT_AUTO:
	case TOPOMATCH_FORMAT_TRIPLETS:
		write_triplets(&c, out);
		break;
	case TOPOMATCH_FORMAT_GRF:
		rc = write_grf(&c, topomatch_affinity_loads(a), out, err);
		break;
	default:
		return tm_err(err, TOPOMATCH_EINVAL, "unknown format %d", format);
	}
	if (rc != TOPOMATCH_OK)
		return rc;
	if (fflush(out) != 0 || ferror(out))
		return tm_err(err, TOPOMATCH_EIO, "cannot write the pattern: %s", strerror(errno));
	return TOPOMATCH_OK;
}

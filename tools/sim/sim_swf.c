/*
 * sim_swf.c - reader of the Standard Workload Format (SWF) of the
 * Parallel Workloads Archive (D. G. Feitelson, "Standard Workload Format",
 * https://www.cs.huji.ac.il/labs/parallel/workload/swf.html, version 2.2):
 * one job per line, 18 whitespace-separated numbers, -1 where unknown;
 * lines starting with ';' are comments, and those of the header carry
 * "Key: value" fields (MaxNodes, MaxProcs, UnixStartTime, ...).
 *
 * Traces come gzip-compressed (the PWA's .swf.gz); zlib's gzread reads a
 * plain file unchanged, so one code path serves both.  The file is read
 * once, line by line: a 29 MB trace never sits in memory.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* Header fields kept; real headers have a few dozen. */
#define MAX_FIELDS 256
/* Longest line accepted: SWF lines are ~100 bytes, headers a few hundred. */
#define MAX_LINE (1 << 16)

typedef struct field {
	char *key, *value;
} field_t;

struct sim_swf {
	gzFile gz;
	char *name;
	int64_t line;
	char *buf;      /* the current line */
	size_t cap;
	int pending;    /* buf holds a record read while reading the header */
	field_t field[MAX_FIELDS];
	int64_t nfields;
};

static int swf_err(char *err, int status, const sim_swf_t *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int swf_err(char *err, int status, const sim_swf_t *s, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return status;
	va_start(ap, fmt);
	vsnprintf(err, TOPOMATCH_ERRLEN, fmt, ap);
	va_end(ap);
	return sim_err_prefix(err, status, "%s:%lld: ", s->name, (long long)s->line);
}

/*
 * The next line into s->buf without its newline: 1, or 0 at the end.
 * gzgets stops at a newline or a full buffer, so a long line is read in
 * pieces and joined.
 */
static int read_line(sim_swf_t *s, char *err, int *rc)
{
	size_t len = 0;
	*rc = TOPOMATCH_OK;
	for (;;) {
		if (!gzgets(s->gz, s->buf + len, (int)(s->cap - len))) {
			int zerr;
			const char *msg = gzerror(s->gz, &zerr);
			if (zerr != Z_OK) { /* Z_BUF_ERROR: a truncated gzip file */
				s->line++;
				*rc = swf_err(err, TOPOMATCH_EIO, s, "read error: %s", msg);
				return 0;
			}
			if (len == 0)
				return 0;
			break; /* last line without a newline */
		}
		len += strlen(s->buf + len);
		if (len > 0 && s->buf[len - 1] == '\n')
			break;
		if (len + 1 >= MAX_LINE) {
			s->line++;
			*rc = swf_err(err, TOPOMATCH_ELIMIT, s, "line longer than %d bytes", MAX_LINE);
			return 0;
		}
		if (len + 1 >= s->cap) {
			char *b = realloc(s->buf, s->cap * 2);
			if (!b) {
				*rc = swf_err(err, TOPOMATCH_ENOMEM, s, "out of memory");
				return 0;
			}
			s->buf = b;
			s->cap *= 2;
		}
	}
	while (len > 0 && (s->buf[len - 1] == '\n' || s->buf[len - 1] == '\r'))
		s->buf[--len] = '\0';
	s->line++;
	return 1;
}

static char *trim(char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		p[--n] = '\0';
	return p;
}

/* "; Key: value" -> a header field; other comment lines are prose. */
static int header_line(sim_swf_t *s, char *text, char *err)
{
	char *p = trim(text + 1), *colon = strchr(p, ':');
	if (!colon || colon == p || s->nfields >= MAX_FIELDS)
		return TOPOMATCH_OK;
	for (char *q = p; q < colon; q++)
		if (!isalnum((unsigned char)*q))
			return TOPOMATCH_OK; /* "Note: see http://..." has none; "a b: c" is prose */
	*colon = '\0';
	field_t *f = &s->field[s->nfields];
	f->key = strdup(p);
	f->value = strdup(trim(colon + 1));
	if (!f->key || !f->value) {
		free(f->key);
		free(f->value);
		return swf_err(err, TOPOMATCH_ENOMEM, s, "out of memory");
	}
	s->nfields++;
	return TOPOMATCH_OK;
}

static bool blank(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0';
}

static bool comment(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return *p == ';';
}

/* Comment lines up to the first record, which stays in s->buf. */
static int read_header(sim_swf_t *s, char *err)
{
	int rc;
	while (read_line(s, err, &rc)) {
		if (blank(s->buf))
			continue;
		if (!comment(s->buf)) {
			s->pending = 1;
			return TOPOMATCH_OK;
		}
		if ((rc = header_line(s, strchr(s->buf, ';'), err)))
			return rc;
	}
	return rc;
}

int sim_swf_open(const char *path, sim_swf_t **out, char *err)
{
	sim_swf_t *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s || !(s->name = strdup(path)) || !(s->buf = malloc(s->cap = 4096))) {
		sim_swf_close(s);
		return sim_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", path);
	}
	errno = 0;
	if (!(s->gz = gzopen(path, "rb"))) {
		sim_err(err, TOPOMATCH_EIO, "%s: %s", path, errno ? strerror(errno) : "cannot open");
		sim_swf_close(s);
		return TOPOMATCH_EIO;
	}
	int rc = read_header(s, err);
	if (rc) {
		sim_swf_close(s);
		return rc;
	}
	*out = s;
	return TOPOMATCH_OK;
}

void sim_swf_close(sim_swf_t *s)
{
	if (!s)
		return;
	if (s->gz)
		gzclose(s->gz);
	for (int64_t i = 0; i < s->nfields; i++) {
		free(s->field[i].key);
		free(s->field[i].value);
	}
	free(s->name);
	free(s->buf);
	free(s);
}

const char *sim_swf_header(const sim_swf_t *s, const char *key)
{
	for (int64_t i = 0; i < s->nfields; i++)
		if (!strcasecmp(s->field[i].key, key))
			return s->field[i].value;
	return NULL;
}

int64_t sim_swf_header_int(const sim_swf_t *s, const char *key)
{
	const char *v = sim_swf_header(s, key);
	char *end;
	if (!v)
		return -1;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || end == v || !blank(end) || x < 0)
		return -1;
	return x;
}

int64_t sim_swf_header_count(const sim_swf_t *s)
{
	return s->nfields;
}

/* The SWF fields by number, for messages. */
static const char *const field_name[SIM_SWF_FIELDS] = {
	"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time",
	"requested memory", "status", "user", "group", "executable", "queue", "partition",
	"preceding job", "think time",
};

/* Whole fields must hold whole numbers: job ids, processor counts, ... */
static bool whole_field(int k)
{
	return k == 0 || k == 4 || k == 7 || k == 10 || k == 11 || k == 15;
}

static int parse_fields(const char *text, double *v, int *nv, char *msg, size_t len)
{
	const char *p = text;
	*nv = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		char *end;
		errno = 0;
		double x = strtod(p, &end);
		const char *tok_end = end;
		while (*tok_end && !isspace((unsigned char)*tok_end))
			tok_end++;
		if (*nv >= SIM_SWF_FIELDS) {
			snprintf(msg, len, "more than %d fields", SIM_SWF_FIELDS);
			return -1;
		}
		if (end == p || end != tok_end || errno == ERANGE || !isfinite(x) ||
		    (whole_field(*nv) && x != floor(x))) {
			snprintf(msg, len, "field %d (%s): '%.*s' is not %s", *nv + 1,
				 field_name[*nv], (int)(tok_end - p > 40 ? 40 : tok_end - p), p,
				 whole_field(*nv) ? "a whole number" : "a number");
			return -1;
		}
		v[(*nv)++] = x;
		p = tok_end;
	}
}

int sim_swf_parse(const char *text, const char *name, int64_t line, sim_swf_rec_t *r,
		  char *err)
{
	double v[SIM_SWF_FIELDS];
	int nv;
	char msg[256];
	sim_swf_t where = { .name = (char *)name, .line = line };
	if (parse_fields(text, v, &nv, msg, sizeof(msg)))
		return swf_err(err, TOPOMATCH_EPARSE, &where, "%s", msg);
	if (nv != SIM_SWF_FIELDS)
		return swf_err(err, TOPOMATCH_EPARSE, &where,
			       "%d fields, an SWF record has %d", nv, SIM_SWF_FIELDS);
	if (v[1] < 0)
		return swf_err(err, TOPOMATCH_EPARSE, &where,
			       "field 2 (submit time): %g is negative", v[1]);
	*r = (sim_swf_rec_t){
		.line = line, .id = (int64_t)v[0], .submit = v[1], .wait = v[2], .run = v[3],
		.alloc_procs = (int64_t)v[4], .req_procs = (int64_t)v[7], .req_time = v[8],
		.status = (int)v[10], .user = (int64_t)v[11], .partition = (int64_t)v[15],
	};
	return TOPOMATCH_OK;
}

int sim_swf_next(sim_swf_t *s, sim_swf_rec_t *r, int *got, char *err)
{
	int rc = TOPOMATCH_OK;
	*got = 0;
	for (;;) {
		if (s->pending)
			s->pending = 0;
		else if (!read_line(s, err, &rc))
			return rc;
		if (blank(s->buf) || comment(s->buf))
			continue;
		if ((rc = sim_swf_parse(s->buf, s->name, s->line, r, err)))
			return rc;
		*got = 1;
		return TOPOMATCH_OK;
	}
}

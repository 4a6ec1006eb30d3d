/*
 * affinity_ompi.c - Open MPI's communication monitoring output to a
 * pattern (topomatch convert).
 *
 * What Open MPI 4.1 writes (ompi/mca/common/monitoring, checked on runs
 * recorded on this project's machines, tests/data/ompi_monitoring): one
 * file per MPI_COMM_WORLD rank, named PREFIX.RANK.prof, with
 *   # POINT TO POINT
 *   E<T>src<T>dst<T>N bytes<T>M msgs sent<T>h0,h1,...,h65
 *   I<T>src<T>dst<T>N bytes<T>M msgs sent[<T>histogram]
 *   # OSC
 *   S<T>src<T>dst<T>N bytes<T>M msgs sent
 *   R<T>src<T>dst<T>N bytes<T>M msgs sent
 *   # COLLECTIVES
 *   C<T>src<T>dst<T>N bytes<T>M msgs sent
 *   D<T>communicator name<T>procs: 0,1,2,...
 *   O2A<T>src<T>N bytes<T>M msgs sent      (and A2O, A2A: per communicator)
 * src is always the file's rank; a (kind, dst) pair appears at most once.
 * The histogram (message sizes by powers of two, over E and I together)
 * follows the first of E/I printed for a peer.  Older releases swapped
 * the letters E and I; the default kinds E + I are the same matrix either
 * way, and with pml_monitoring_enable 1 or 2 (measured: E of a run with 1
 * equals E + I of the same run with 2, bytes and messages).
 *
 * Safety: files are streamed through a fixed 64 KiB block and a bounded
 * line buffer, so memory is bounded by the entries kept (at most one per
 * kind and peer per file, and max_nnz overall) whatever the input; the
 * only lines that may exceed the bound are D lines, whose process list
 * (as long as the communicator is large) is skipped unread.  Counts are
 * parsed as unsigned 64-bit integers with overflow checks (Open MPI
 * prints size_t); weights are doubles, exact up to 2^53.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/tm_internal.h"
#include "pattern_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_BYTES 16384 /* a 66-bucket histogram of 20-digit counts is ~1.4 KB */
#define BLOCK_BYTES 65536
#define NKINDS 5

static const char kind_letter[NKINDS] = { 'E', 'I', 'C', 'S', 'R' };

struct ompi_rank {
	char *name; /* the file that gave this rank, NULL while none did */
};

struct topomatch_ompi {
	unsigned kinds;
	int metric;
	int64_t nranks; /* 0: inferred */
	topomatch_limits_t lim;

	struct ompi_rank *rank; /* by rank, cap entries */
	int64_t cap;
	int64_t files;
	int64_t max_file_rank;
	/* the largest peer named so far and where it first appeared, for the
	 * "out of range" message when n is inferred */
	int64_t max_peer;
	const char *max_peer_file; /* points into rank[].name */
	int64_t max_peer_line;
	int64_t lines[NKINDS];
	tm_coo_t coo;
};

/* ------------------------------------------------------------------ */
/* Kinds                                                               */
/* ------------------------------------------------------------------ */

static int kind_index(char c)
{
	for (int k = 0; k < NKINDS; k++)
		if (c == kind_letter[k])
			return k;
	return -1;
}

int topomatch_ompi_kinds_parse(const char *s, unsigned *kinds, char *err)
{
	unsigned m = 0;

	if (!s || !kinds)
		return tm_err(err, TOPOMATCH_EINVAL, "kinds: no list given");
	if (!strcasecmp(s, "all")) {
		*kinds = TOPOMATCH_OMPI_ALL;
		return TOPOMATCH_OK;
	}
	for (const char *p = s;; p++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int k = len == 1 ? kind_index((char)toupper((unsigned char)*p)) : -1;
		if (k < 0)
			return tm_err(err, TOPOMATCH_EINVAL,
				      "kinds: '%.*s' in '%s' is not one of E, I, C, S, R (or 'all')",
				      (int)(len > 32 ? 32 : len), p, s);
		m |= 1u << k;
		if (!e)
			break;
		p = e;
	}
	*kinds = m;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Object                                                              */
/* ------------------------------------------------------------------ */

int topomatch_ompi_create(const topomatch_ompi_opts_t *opts, topomatch_ompi_t **out, char *err)
{
	topomatch_ompi_opts_t o = { 0 };

	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no result pointer");
	*out = NULL;
	if (opts)
		o = *opts;
	if (o.kinds & ~TOPOMATCH_OMPI_ALL)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: unknown kind bits 0x%x",
			      o.kinds & ~TOPOMATCH_OMPI_ALL);
	if (o.metric != TOPOMATCH_OMPI_BYTES && o.metric != TOPOMATCH_OMPI_MSGS)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: unknown metric %d", o.metric);
	topomatch_limits_t lim = tm_limits(&o.limits);
	if (o.nranks < 0 || o.nranks > lim.max_tasks)
		return tm_err(err, o.nranks < 0 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "ompi: %lld ranks: must be in [1, %lld] (0: from the files)",
			      (long long)o.nranks, (long long)lim.max_tasks);
	topomatch_ompi_t *m = calloc(1, sizeof(*m));
	if (!m)
		return tm_err(err, TOPOMATCH_ENOMEM, "ompi: out of memory");
	m->kinds = o.kinds ? o.kinds : TOPOMATCH_OMPI_DEFAULT_KINDS;
	m->metric = o.metric;
	m->nranks = o.nranks;
	m->lim = lim;
	m->max_file_rank = -1;
	m->max_peer = -1;
	tm_coo_init(&m->coo);
	*out = m;
	return TOPOMATCH_OK;
}

void topomatch_ompi_destroy(topomatch_ompi_t *m)
{
	if (!m)
		return;
	for (int64_t r = 0; r < m->cap; r++)
		free(m->rank[r].name);
	free(m->rank);
	tm_coo_free(&m->coo);
	free(m);
}

/* Room for rank r in m->rank (doubling, zero-filled). */
static int rank_reserve(topomatch_ompi_t *m, int64_t r)
{
	if (r < m->cap)
		return TOPOMATCH_OK;
	int64_t cap = m->cap ? m->cap : 64;
	while (cap <= r)
		cap = cap > INT64_MAX / 2 ? r + 1 : cap * 2;
	struct ompi_rank *p = tm_alloc(cap, sizeof(*p));
	if (!p)
		return TOPOMATCH_ENOMEM;
	if (m->cap)
		memcpy(p, m->rank, (size_t)m->cap * sizeof(*p));
	memset(p + m->cap, 0, (size_t)(cap - m->cap) * sizeof(*p));
	free(m->rank);
	m->rank = p;
	m->cap = cap;
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* Bounded line reader                                                 */
/* ------------------------------------------------------------------ */

struct lr {
	FILE *in;
	int64_t max_bytes;
	int64_t bytes; /* read so far */
	char blk[BLOCK_BYTES];
	size_t pos, len;
	bool eof;
	int ioerr; /* errno of a read error, else 0 */
	char line[LINE_MAX_BYTES + 1];
	size_t n;       /* bytes kept in line[] */
	bool truncated; /* the line had more than LINE_MAX_BYTES */
	int64_t lineno;
	int64_t over_line; /* past max_bytes: the line of the first byte past it */
};

static bool lr_fill(struct lr *r)
{
	if (r->eof)
		return false;
	r->len = fread(r->blk, 1, sizeof(r->blk), r->in);
	r->pos = 0;
	if (r->len == 0) {
		r->eof = true;
		if (ferror(r->in))
			r->ioerr = errno ? errno : EIO;
		return false;
	}
	r->bytes += (int64_t)r->len;
	return true;
}

/*
 * The block just read went past max_bytes (lr_next checks after each
 * fill, so r->pos is 0 and r->lineno the line at its start): the line of
 * the first byte past the limit, named as tm_read_all names it.  false.
 */
static bool lr_over(struct lr *r)
{
	int64_t start = r->bytes - (int64_t)r->len;
	r->over_line = r->lineno;
	for (int64_t i = r->pos; i < r->max_bytes - start; i++)
		r->over_line += r->blk[i] == '\n';
	return false;
}

/* Next line (without '\n' or a final '\r') into r->line; false at the end
 * of input (or on a read error, or past max_bytes: the caller checks). */
static bool lr_next(struct lr *r)
{
	r->n = 0;
	r->truncated = false;
	if (r->pos == r->len && !lr_fill(r))
		return false;
	r->lineno++;
	for (;;) {
		if (r->bytes > r->max_bytes)
			return lr_over(r);
		char *nl = memchr(r->blk + r->pos, '\n', r->len - r->pos);
		size_t take = (nl ? (size_t)(nl - r->blk) : r->len) - r->pos;
		size_t room = LINE_MAX_BYTES - r->n;
		if (take > room) {
			r->truncated = true;
			take = room;
		}
		memcpy(r->line + r->n, r->blk + r->pos, take);
		r->n += take;
		if (nl) {
			r->pos = (size_t)(nl - r->blk) + 1;
			break;
		}
		r->pos = r->len;
		if (!lr_fill(r))
			break; /* last line without a newline */
	}
	if (!r->truncated && r->n > 0 && r->line[r->n - 1] == '\r')
		r->n--;
	r->line[r->n] = '\0';
	return true;
}

/* ------------------------------------------------------------------ */
/* One file                                                            */
/* ------------------------------------------------------------------ */

/* An entry of the file being read, kept until the whole file is good. */
struct fent {
	int kind;
	int64_t peer;
	int64_t line;
	uint64_t bytes, msgs;
};

struct fread_state {
	topomatch_ompi_t *m;
	const char *name;
	char *err;
	int64_t rank; /* -1 until known */
	int64_t rank_line; /* line that told the rank (0: the caller did) */
	struct fent *ent;
	int64_t nent, capent;
	int64_t lines[NKINDS];
	int64_t max_peer, max_peer_line;
};

static int ffail(const struct fread_state *f, int64_t line, int status, const char *fmt, ...)
	TM_PRINTF(4, 5);
static int ffail(const struct fread_state *f, int64_t line, int status, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tm_err(f->err, status, "%s:%lld: %s", f->name, (long long)line, msg);
}

/* Fields are separated by blanks (Open MPI writes tabs; spaces are taken
 * too so that hand-made files work).  A field is [s, s + len). */
struct field {
	const char *s;
	size_t len;
};

static int split(const char *line, struct field *fld, int max)
{
	int n = 0;
	const char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		fld[n].s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		fld[n].len = (size_t)(p - fld[n].s);
		n++;
	}
}

static bool field_is(const struct field *f, const char *word)
{
	return f->len == strlen(word) && !memcmp(f->s, word, f->len);
}

/* Printable excerpt of a field for messages. */
static const char *fstr(const struct field *f, char *buf, size_t len)
{
	size_t n = f->len < len - 1 ? f->len : len - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = isprint((unsigned char)f->s[i]) ? f->s[i] : '?';
	buf[n] = '\0';
	return buf;
}

/* Unsigned decimal; 0 ok, 1 not a number, 2 overflow. */
static int parse_u64(const struct field *f, uint64_t *v)
{
	uint64_t x = 0;

	if (f->len == 0)
		return 1;
	for (size_t i = 0; i < f->len; i++) {
		unsigned d = (unsigned)(f->s[i] - '0');
		if (d > 9)
			return 1;
		if (x > (UINT64_MAX - d) / 10)
			return 2;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int get_count(const struct fread_state *f, int64_t line, const struct field *fld,
		     const char *what, uint64_t *v)
{
	char s[48];
	int rc = parse_u64(fld, v);

	if (rc == 1)
		return ffail(f, line, TOPOMATCH_EPARSE, "%s '%s' is not a non-negative integer",
			     what, fstr(fld, s, sizeof(s)));
	if (rc == 2)
		return ffail(f, line, TOPOMATCH_ELIMIT, "%s '%s' does not fit in 64 bits", what,
			     fstr(fld, s, sizeof(s)));
	return TOPOMATCH_OK;
}

/* A rank field: below the rank limit (or the given rank count). */
static int get_rank(const struct fread_state *f, int64_t line, const struct field *fld,
		    const char *what, int64_t *r)
{
	const topomatch_ompi_t *m = f->m;
	char s[48];
	uint64_t v;
	int rc = parse_u64(fld, &v);

	if (rc == 1)
		return ffail(f, line, TOPOMATCH_EPARSE, "%s '%s' is not a rank (a non-negative "
			     "integer)", what, fstr(fld, s, sizeof(s)));
	if (m->nranks > 0 && (rc == 2 || v >= (uint64_t)m->nranks))
		return ffail(f, line, TOPOMATCH_EPARSE, "%s %s is out of range: the run has %lld "
			     "ranks (0 to %lld)", what, fstr(fld, s, sizeof(s)),
			     (long long)m->nranks, (long long)m->nranks - 1);
	if (rc == 2 || v >= (uint64_t)m->lim.max_tasks)
		return ffail(f, line, TOPOMATCH_ELIMIT, "%s %s is beyond the limit of %lld ranks",
			     what, fstr(fld, s, sizeof(s)), (long long)m->lim.max_tasks);
	*r = (int64_t)v;
	return TOPOMATCH_OK;
}

/* The line's own rank must be the file's (the first data line sets it
 * when the caller did not know it). */
static int check_src(struct fread_state *f, int64_t line, int64_t src)
{
	if (f->rank < 0) {
		f->rank = src;
		f->rank_line = line;
		return TOPOMATCH_OK;
	}
	if (src == f->rank)
		return TOPOMATCH_OK;
	if (f->rank_line > 0)
		return ffail(f, line, TOPOMATCH_EPARSE, "a line of rank %lld in the output of rank "
			     "%lld (line %lld): one file per rank", (long long)src,
			     (long long)f->rank, (long long)f->rank_line);
	return ffail(f, line, TOPOMATCH_EPARSE, "a line of rank %lld in the file of rank %lld: "
		     "one file per rank", (long long)src, (long long)f->rank);
}

/* "N bytes M msgs sent" at fld[0..4]. */
static int get_volume(const struct fread_state *f, int64_t line, const struct field *fld,
		      uint64_t *bytes, uint64_t *msgs)
{
	char s[48];
	int rc = get_count(f, line, &fld[0], "byte count", bytes);

	if (rc != TOPOMATCH_OK)
		return rc;
	if (!field_is(&fld[1], "bytes"))
		return ffail(f, line, TOPOMATCH_EPARSE, "expected 'bytes' after the byte count, "
			     "got '%s'", fstr(&fld[1], s, sizeof(s)));
	rc = get_count(f, line, &fld[2], "message count", msgs);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (!field_is(&fld[3], "msgs") || !field_is(&fld[4], "sent"))
		return ffail(f, line, TOPOMATCH_EPARSE, "expected 'msgs sent' after the message "
			     "count, got '%s'", fstr(&fld[3], s, sizeof(s)));
	return TOPOMATCH_OK;
}

/* Open MPI's size histogram: counts separated by commas. */
static bool is_histogram(const struct field *fld)
{
	bool digit = false;

	for (size_t i = 0; i < fld->len; i++) {
		char c = fld->s[i];
		if (c >= '0' && c <= '9')
			digit = true;
		else if (c == ',' && digit)
			digit = false;
		else
			return false;
	}
	return digit;
}

static int push_entry(struct fread_state *f, int kind, int64_t peer, int64_t line,
		      uint64_t bytes, uint64_t msgs)
{
	/* duplicates are found only at the end of the file: bound the
	 * entries held until then by the limit on the pattern's */
	if (f->nent >= f->m->lim.max_nnz)
		return ffail(f, line, TOPOMATCH_ELIMIT, "more than %lld entries (limit)",
			     (long long)f->m->lim.max_nnz);
	if (f->nent == f->capent) {
		int64_t cap = f->capent ? f->capent * 2 : 256;
		struct fent *p = tm_alloc(cap, sizeof(*p));
		if (!p)
			return ffail(f, line, TOPOMATCH_ENOMEM, "out of memory");
		if (f->nent)
			memcpy(p, f->ent, (size_t)f->nent * sizeof(*p));
		free(f->ent);
		f->ent = p;
		f->capent = cap;
	}
	f->ent[f->nent++] = (struct fent){ kind, peer, line, bytes, msgs };
	return TOPOMATCH_OK;
}

/* E, I, C, S, R: KIND SRC DST N bytes M msgs sent [HISTOGRAM] */
static int data_line(struct fread_state *f, int64_t line, int kind, struct field *fld, int nf)
{
	int64_t src, dst;
	uint64_t bytes, msgs;
	char s[48];

	if (nf < 8)
		return ffail(f, line, TOPOMATCH_EPARSE, "%s %c line has 8 fields (%c SRC DST N bytes "
			     "M msgs sent), this one %d", kind_letter[kind] == 'C' ? "a" : "an",
			     kind_letter[kind], kind_letter[kind], nf);
	/* nf == 11: split() stopped at 10 fields */
	if (nf > 9)
		return ffail(f, line, TOPOMATCH_EPARSE, "trailing text after the histogram: '%s'",
			     fstr(&fld[9], s, sizeof(s)));
	int rc = get_rank(f, line, &fld[1], "rank", &src);
	if (rc == TOPOMATCH_OK)
		rc = check_src(f, line, src);
	if (rc == TOPOMATCH_OK)
		rc = get_rank(f, line, &fld[2], "peer rank", &dst);
	if (rc == TOPOMATCH_OK)
		rc = get_volume(f, line, &fld[3], &bytes, &msgs);
	if (rc != TOPOMATCH_OK)
		return rc;
	if (nf == 9 && !is_histogram(&fld[8]))
		return ffail(f, line, TOPOMATCH_EPARSE, "'%s' is not a histogram (counts separated "
			     "by commas)", fstr(&fld[8], s, sizeof(s)));
	if (dst > f->max_peer) {
		f->max_peer = dst;
		f->max_peer_line = line;
	}
	return push_entry(f, kind, dst, line, bytes, msgs);
}

/* O2A, A2O, A2A: per-communicator totals, no peer: checked, not used. */
static int comm_total_line(struct fread_state *f, int64_t line, struct field *fld, int nf)
{
	int64_t src;
	uint64_t bytes, msgs;
	char s[48];

	if (nf != 7)
		return ffail(f, line, TOPOMATCH_EPARSE, "an %s line has 7 fields (%s RANK N bytes M "
			     "msgs sent), this one %s%d", fstr(&fld[0], s, sizeof(s)), s,
			     nf > 10 ? "more than " : "", nf > 10 ? 10 : nf);
	int rc = get_rank(f, line, &fld[1], "rank", &src);
	if (rc == TOPOMATCH_OK)
		rc = check_src(f, line, src);
	if (rc == TOPOMATCH_OK)
		rc = get_volume(f, line, &fld[2], &bytes, &msgs);
	return rc;
}

static int parse_line(struct fread_state *f, struct lr *r)
{
	struct field fld[10];
	char s[48];
	int64_t line = r->lineno;

	if (memchr(r->line, '\0', r->n))
		return ffail(f, line, TOPOMATCH_EPARSE, "a NUL byte: not a monitoring file");
	const char *p = r->line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#')
		return TOPOMATCH_OK;
	/* "D<TAB>name<TAB>procs: list": the name may hold blanks and the list
	 * may be as long as the communicator; only the prefix is checked */
	if (p[0] == 'D' && (p[1] == '\t' || p[1] == ' ')) {
		if (!strstr(p, "procs:"))
			return ffail(f, line, TOPOMATCH_EPARSE, "a D line is 'D NAME procs: LIST', "
				     "this one has no 'procs:'");
		return TOPOMATCH_OK;
	}
	if (r->truncated)
		return ffail(f, line, TOPOMATCH_ELIMIT, "line longer than %d bytes",
			     LINE_MAX_BYTES);
	int nf = split(r->line, fld, 10);
	int kind = fld[0].len == 1 ? kind_index(fld[0].s[0]) : -1;
	if (kind >= 0) {
		int rc = data_line(f, line, kind, fld, nf);
		if (rc == TOPOMATCH_OK)
			f->lines[kind]++;
		return rc;
	}
	if (field_is(&fld[0], "O2A") || field_is(&fld[0], "A2O") || field_is(&fld[0], "A2A"))
		return comm_total_line(f, line, fld, nf);
	return ffail(f, line, TOPOMATCH_EPARSE, "unknown line type '%s' (monitoring lines start "
		     "with E, I, C, S, R, D, O2A, A2O, A2A or #)", fstr(&fld[0], s, sizeof(s)));
}

static int cmp_fent(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* Open MPI prints a (kind, peer) once: a repeat is a concatenation or an
 * edit; name the earliest repeated line. */
static int check_duplicates(struct fread_state *f)
{
	int64_t best = -1;

	if (f->nent < 2)
		return TOPOMATCH_OK; /* and qsort must not see a NULL array */
	qsort(f->ent, (size_t)f->nent, sizeof(*f->ent), cmp_fent);
	for (int64_t i = 1; i < f->nent; i++)
		if (f->ent[i].kind == f->ent[i - 1].kind && f->ent[i].peer == f->ent[i - 1].peer &&
		    (best < 0 || f->ent[i].line < f->ent[best].line))
			best = i;
	if (best < 0)
		return TOPOMATCH_OK;
	const struct fent *e = &f->ent[best];
	int64_t first = e->line;
	for (int64_t i = best - 1; i >= 0 && f->ent[i].kind == e->kind && f->ent[i].peer == e->peer;
	     i--)
		first = f->ent[i].line;
	return ffail(f, e->line, TOPOMATCH_EPARSE, "a second %c line for %lld -> %lld (first at "
		     "line %lld)", kind_letter[e->kind], (long long)f->rank, (long long)e->peer,
		     (long long)first);
}

/* Everything of the file is good: make it part of m. */
static int commit(struct fread_state *f)
{
	topomatch_ompi_t *m = f->m;
	int64_t n0 = m->coo.n;

	if (rank_reserve(m, f->rank) != TOPOMATCH_OK)
		return tm_err(f->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	char *name = strdup(f->name);
	if (!name)
		return tm_err(f->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	for (int64_t i = 0; i < f->nent; i++) {
		const struct fent *e = &f->ent[i];
		if (!(m->kinds & (1u << e->kind)) || e->peer == f->rank)
			continue;
		/* R lines: data that came from the peer */
		int64_t src = e->kind == 4 ? e->peer : f->rank;
		int64_t dst = e->kind == 4 ? f->rank : e->peer;
		double w = (double)(m->metric == TOPOMATCH_OMPI_MSGS ? e->msgs : e->bytes);
		if (w == 0.0)
			continue;
		int rc = tm_coo_push(&m->coo, src, dst, w, m->lim.max_nnz);
		if (rc != TOPOMATCH_OK) {
			m->coo.n = n0; /* all of the file or nothing */
			free(name);
			if (rc == TOPOMATCH_ELIMIT)
				return ffail(f, e->line, rc, "more than %lld entries in all (limit)",
					     (long long)m->lim.max_nnz);
			return ffail(f, e->line, rc, "out of memory");
		}
	}
	m->rank[f->rank].name = name;
	m->files++;
	if (f->rank > m->max_file_rank)
		m->max_file_rank = f->rank;
	if (f->max_peer > m->max_peer) {
		m->max_peer = f->max_peer;
		m->max_peer_file = name;
		m->max_peer_line = f->max_peer_line;
	}
	for (int k = 0; k < NKINDS; k++)
		m->lines[k] += f->lines[k];
	return TOPOMATCH_OK;
}

static int read_lines(struct fread_state *f, FILE *in)
{
	struct lr *r = calloc(1, sizeof(*r)); /* 80 KiB: not on the stack */
	int rc = TOPOMATCH_OK;

	if (!r)
		return tm_err(f->err, TOPOMATCH_ENOMEM, "%s: out of memory", f->name);
	r->in = in;
	r->max_bytes = f->m->lim.max_bytes;
	while (rc == TOPOMATCH_OK && lr_next(r))
		rc = parse_line(f, r);
	if (rc == TOPOMATCH_OK && r->bytes > r->max_bytes)
		rc = tm_err(f->err, TOPOMATCH_ELIMIT, "%s:%lld: larger than the limit of %lld bytes",
			    f->name, (long long)r->over_line, (long long)r->max_bytes);
	else if (rc == TOPOMATCH_OK && r->ioerr)
		rc = tm_err(f->err, TOPOMATCH_EIO, "%s: read error: %s", f->name,
			    strerror(r->ioerr));
	free(r);
	return rc;
}

int topomatch_ompi_add(topomatch_ompi_t *m, FILE *in, const char *name, int64_t rank, char *err)
{
	if (!m || !in)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no accumulator or no stream");
	if (!name)
		name = "monitoring output";
	if (m->nranks > 0 && rank >= m->nranks)
		return tm_err(err, TOPOMATCH_EPARSE, "%s: rank %lld is out of range: the run has "
			      "%lld ranks (0 to %lld)", name, (long long)rank,
			      (long long)m->nranks, (long long)m->nranks - 1);
	if (rank >= m->lim.max_tasks)
		return tm_err(err, TOPOMATCH_ELIMIT, "%s: rank %lld is beyond the limit of %lld "
			      "ranks", name, (long long)rank, (long long)m->lim.max_tasks);
	struct fread_state f = { .m = m, .name = name, .err = err, .rank = rank < 0 ? -1 : rank,
				 .max_peer = -1 };
	int rc = read_lines(&f, in);
	if (rc == TOPOMATCH_OK && f.rank < 0)
		rc = tm_err(err, TOPOMATCH_EPARSE, "%s: cannot tell which rank wrote it: no data "
			    "line, and its name does not end in .RANK.prof", name);
	if (rc == TOPOMATCH_OK)
		rc = check_duplicates(&f);
	if (rc == TOPOMATCH_OK && f.rank < m->cap && m->rank[f.rank].name)
		rc = tm_err(err, TOPOMATCH_EPARSE, "%s: a second output of rank %lld (the first: "
			    "%s)", name, (long long)f.rank, m->rank[f.rank].name);
	if (rc == TOPOMATCH_OK)
		rc = commit(&f);
	free(f.ent);
	return rc;
}

/* RANK of a name ending in ".RANK.prof" (canonical decimal), else -1. */
static int64_t rank_of_name(const char *path)
{
	size_t n = strlen(path);

	if (n < 7 || strcmp(path + n - 5, ".prof") != 0)
		return -1;
	size_t end = n - 5, b = end;
	while (b > 0 && path[b - 1] >= '0' && path[b - 1] <= '9')
		b--;
	if (b == end || b == 0 || path[b - 1] != '.' || end - b > 18 ||
	    (path[b] == '0' && end - b > 1))
		return -1;
	int64_t r = 0;
	for (size_t i = b; i < end; i++)
		r = r * 10 + (path[i] - '0');
	return r;
}

int topomatch_ompi_add_file(topomatch_ompi_t *m, const char *path, char *err)
{
	if (!m || !path)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no accumulator or no path");
	FILE *in = fopen(path, "rb");
	if (!in)
		return tm_err(err, TOPOMATCH_EIO, "%s: %s", path, strerror(errno));
	int rc = topomatch_ompi_add(m, in, path, rank_of_name(path), err);
	fclose(in);
	return rc;
}

struct pfile {
	int64_t rank;
	char *path;
};

static int cmp_pfile(const void *a, const void *b)
{
	const struct pfile *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void free_pfiles(struct pfile *p, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		free(p[i].path);
	free(p);
}

/* The files PREFIX.RANK.prof of dir (sorted by rank). */
static int list_prefix(const char *prefix, struct pfile **out, int64_t *count, char *err)
{
	const char *slash = strrchr(prefix, '/');
	const char *base = slash ? slash + 1 : prefix;
	size_t dlen = slash ? (size_t)(slash - prefix) + 1 : 0, blen = strlen(base);
	char *dir = strndup(slash ? prefix : ".", slash ? dlen : 1);
	struct pfile *p = NULL;
	int64_t n = 0, cap = 0;
	int rc = TOPOMATCH_OK;

	if (!dir)
		return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", prefix);
	DIR *d = opendir(dir);
	if (!d) {
		rc = tm_err(err, TOPOMATCH_EIO, "%s: cannot list %s: %s", prefix, dir,
			    strerror(errno));
		free(dir);
		return rc;
	}
	for (struct dirent *e; rc == TOPOMATCH_OK && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= blen || strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.')
			continue;
		int64_t r = rank_of_name(e->d_name + blen);
		/* rank_of_name saw ".RANK.prof" with the dot at blen */
		if (r < 0 || strchr(e->d_name + blen + 1, '.') != e->d_name + len - 5)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			struct pfile *q = realloc(p, (size_t)cap * sizeof(*p));
			if (!q) {
				rc = tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", prefix);
				break;
			}
			p = q;
		}
		size_t plen = dlen + len + 1;
		p[n].path = malloc(plen);
		if (!p[n].path) {
			rc = tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", prefix);
			break;
		}
		snprintf(p[n].path, plen, "%.*s%s", (int)dlen, prefix, e->d_name);
		p[n].rank = r;
		n++;
	}
	closedir(d);
	free(dir);
	if (rc == TOPOMATCH_OK && n == 0)
		rc = tm_err(err, TOPOMATCH_EIO, "%s: no monitoring files %s.RANK.prof", prefix,
			    prefix);
	if (rc != TOPOMATCH_OK) {
		free_pfiles(p, n);
		return rc;
	}
	qsort(p, (size_t)n, sizeof(*p), cmp_pfile);
	*out = p;
	*count = n;
	return TOPOMATCH_OK;
}

int topomatch_ompi_add_prefix(topomatch_ompi_t *m, const char *prefix, int64_t *nfiles,
			      char *err)
{
	struct pfile *p = NULL;
	int64_t n = 0;

	if (nfiles)
		*nfiles = 0;
	if (!m || !prefix || !*prefix)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no accumulator or no prefix");
	int rc = list_prefix(prefix, &p, &n, err);
	if (rc != TOPOMATCH_OK)
		return rc;
	for (int64_t i = 0; i < n && rc == TOPOMATCH_OK; i++) {
		FILE *in = fopen(p[i].path, "rb");
		if (!in) {
			rc = tm_err(err, TOPOMATCH_EIO, "%s: %s", p[i].path, strerror(errno));
			break;
		}
		rc = topomatch_ompi_add(m, in, p[i].path, p[i].rank, err);
		fclose(in);
		if (rc == TOPOMATCH_OK && nfiles)
			(*nfiles)++;
	}
	free_pfiles(p, n);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The pattern                                                         */
/* ------------------------------------------------------------------ */

/* "1, 3, 5 and 2 more" into buf: the ranks below n without a file. */
static int64_t missing_ranks(const topomatch_ompi_t *m, int64_t n, char *buf, size_t len)
{
	int64_t count = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (int64_t r = 0; r < n; r++) {
		if (r < m->cap && m->rank[r].name)
			continue;
		if (count < 8 && used < len) {
			int k = snprintf(buf + used, len - used, "%s%lld", count ? ", " : "",
					 (long long)r);
			used += k > 0 ? (size_t)k : 0;
		}
		count++;
	}
	if (count > 8 && used < len)
		snprintf(buf + used, len - used, " and %lld more", (long long)(count - 8));
	return count;
}

int topomatch_ompi_finish(const topomatch_ompi_t *m, topomatch_affinity_t **out,
			  topomatch_ompi_info_t *info, char *err)
{
	char list[160];

	if (!m || !out)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no accumulator or no result pointer");
	*out = NULL;
	if (m->files == 0)
		return tm_err(err, TOPOMATCH_EINVAL, "ompi: no monitoring file was read");
	int64_t n = m->nranks > 0 ? m->nranks : m->max_file_rank + 1;
	/* with n given, add() already refused peers >= n */
	if (m->max_peer >= n)
		return tm_err(err, TOPOMATCH_EPARSE, "%s:%lld: rank %lld has no monitoring file "
			      "(the files are those of ranks up to %lld): missing files?",
			      m->max_peer_file, (long long)m->max_peer_line,
			      (long long)m->max_peer, (long long)m->max_file_rank);
	int64_t missing = missing_ranks(m, n, list, sizeof(list));
	if (missing > 0)
		return tm_err(err, TOPOMATCH_EPARSE, "no monitoring file for %s %s (%lld of %lld "
			      "ranks missing)", missing > 1 ? "ranks" : "rank", list,
			      (long long)missing, (long long)n);
	int rc = tm_affinity_from_coo(n, &m->coo, NULL, out, err);
	if (rc == TOPOMATCH_OK && info) {
		info->nranks = n;
		info->files = m->files;
		memcpy(info->lines, m->lines, sizeof(info->lines));
	}
	return rc;
}

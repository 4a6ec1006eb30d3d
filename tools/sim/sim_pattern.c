/*
 * sim_pattern.c - the communication pattern of each simulated job: a kind
 * drawn from a weighted mix, sized to the job's task count, from the seed
 * and the job's number (the same job gets the same pattern under every
 * policy, on every run).  Every kind is sparse: no job ever materialises
 * an n x n matrix for large n.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_name[SIM_NKINDS] = {
	"stencil2d", "stencil3d", "alltoall", "tree", "random", "none", "file",
};

/* Independent streams per purpose, job and seed (splitmix64's finalizer). */
static uint64_t job_seed(uint64_t seed, int64_t id, uint64_t purpose)
{
	uint64_t z = seed ^ ((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) ^
		     (purpose * UINT64_C(0xD1B54A32D192ED03));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- mix */

void sim_mix_free(sim_mix_t *mix)
{
	for (int i = 0; i < mix->n; i++) {
		free(mix->e[i].path);
		topomatch_affinity_destroy(mix->e[i].file);
	}
	free(mix->e);
	memset(mix, 0, sizeof(*mix));
}


/* "name" or "name=weight" -> e (the name part is cut in place). */
static int parse_weight(char *tok, sim_mix_entry_t *e, char *err)
{
	char *eq = strrchr(tok, '='), *end;
	e->weight = 1;
	if (!eq)
		return TOPOMATCH_OK;
	*eq = '\0';
	e->weight = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !isfinite(e->weight) || e->weight < 0)
		return sim_err(err, TOPOMATCH_EINVAL, "--patterns: weight '%s' is not a number >= 0",
			       eq + 1);
	return TOPOMATCH_OK;
}

/* must_scale: scaled:PATH, an error when not a stencil; rescale: to
 * other sizes when a stencil (scaled:, profiles:; file: keeps the jobs
 * of its size only, as before). */
static int read_file_entry(const char *path, bool must_scale, bool rescale,
			   const topomatch_limits_t *lim, sim_mix_entry_t *e, char *err)
{
	const char *base = strrchr(path, '/');
	e->kind = SIM_FILE;
	snprintf(e->name, sizeof(e->name), "%sfile:%s", e->shuffled ? "shuffled:" : "",
		 base ? base + 1 : path);
	if (!(e->path = strdup(path)))
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	int rc = topomatch_affinity_read_file(e->path, TOPOMATCH_FORMAT_AUTO, lim, &e->file, err);
	if (rc)
		return rc;
	char why[TOPOMATCH_ERRLEN];
	e->stencil = !topomatch_stencil_detect(e->file, SIM_STENCIL_TOLERANCE, &e->shape, why);
	if (!e->stencil)
		snprintf(e->why, sizeof(e->why), "%s", why);
	e->rescale = e->stencil && rescale;
	if (must_scale && !e->stencil)
		return sim_err(err, TOPOMATCH_EUNSUPPORTED, "%s: cannot be rescaled to other job sizes, "
			       "not a stencil: %s (file:%s gives it to the jobs of %lld tasks)",
			       path, why, path, (long long)topomatch_affinity_ntasks(e->file));
	return TOPOMATCH_OK;
}

static int parse_kind(char *tok, const topomatch_limits_t *lim, sim_mix_entry_t *e, char *err)
{
	if (!strncmp(tok, "file:", 5) && tok[5])
		return read_file_entry(tok + 5, false, false, lim, e, err);
	if (!strncmp(tok, "scaled:", 7) && tok[7])
		return read_file_entry(tok + 7, true, true, lim, e, err);
	for (int k = 0; k < SIM_FILE; k++)
		if (!strcmp(tok, kind_name[k])) {
			e->kind = k;
			snprintf(e->name, sizeof(e->name), "%s%s", e->shuffled ? "shuffled:" : "", tok);
			return TOPOMATCH_OK;
		}
	return sim_err(err, TOPOMATCH_EINVAL, "--patterns: unknown kind '%s' (stencil2d, "
		       "stencil3d, alltoall, tree, random, none, file:PATH, scaled:PATH, "
		       "profiles:DIR, shuffled:KIND)", tok);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The recorded profiles of DIR: every NAME.sum.mat (bench/profiles/README.md:
 * all communication types, in bytes), sorted by name. */
static int list_profiles(const char *dir, char ***out, int *n, char *err)
{
	DIR *d = opendir(dir);
	*out = NULL;
	*n = 0;
	if (!d)
		return sim_err(err, TOPOMATCH_EIO, "--patterns: profiles:%s: %s", dir, strerror(errno));
	int cap = 0, rc = TOPOMATCH_OK;
	for (struct dirent *de; !rc && (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len <= 8 || strcmp(de->d_name + len - 8, ".sum.mat"))
			continue;
		if (*n == cap) {
			cap = 2 * cap + 8;
			char **p = realloc(*out, (size_t)cap * sizeof(*p));
			if (!p) {
				rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
				break;
			}
			*out = p;
		}
		size_t sz = strlen(dir) + len + 2;
		if (!((*out)[*n] = malloc(sz)))
			rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
		else
			snprintf((*out)[(*n)++], sz, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (!rc && *n == 0)
		rc = sim_err(err, TOPOMATCH_EIO, "--patterns: profiles:%s: no NAME.sum.mat "
			     "profile in that directory", dir);
	if (!rc)
		qsort(*out, (size_t)*n, sizeof(**out), by_name);
	return rc;
}

static int grow(sim_mix_t *mix, int *cap, char *err)
{
	if (mix->n < *cap)
		return TOPOMATCH_OK;
	int c = 2 * *cap + 8;
	sim_mix_entry_t *p = realloc(mix->e, (size_t)c * sizeof(*p));
	if (!p)
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	memset(p + *cap, 0, (size_t)(c - *cap) * sizeof(*p));
	mix->e = p;
	*cap = c;
	return TOPOMATCH_OK;
}

/* One token of the list: one entry, or one per profile of a directory. */
static int parse_token(char *tok, const topomatch_limits_t *lim, sim_mix_t *mix, int *cap,
		       char *err)
{
	sim_mix_entry_t proto = { 0 };
	int rc = parse_weight(tok, &proto, err);
	while (!rc && !strncmp(tok, "shuffled:", 9)) {
		proto.shuffled = 1;
		tok += 9;
	}
	if (rc)
		return rc;
	if (strncmp(tok, "profiles:", 9) || !tok[9]) {
		if ((rc = grow(mix, cap, err)))
			return rc;
		mix->e[mix->n] = proto;
		return parse_kind(tok, lim, &mix->e[mix->n++], err);
	}
	char **files;
	int nf;
	if ((rc = list_profiles(tok + 9, &files, &nf, err)))
		return rc;
	for (int k = 0; k < nf; k++) {
		if (!rc && !(rc = grow(mix, cap, err))) {
			sim_mix_entry_t *e = &mix->e[mix->n++];
			*e = proto;
			e->weight = proto.weight / nf;
			rc = read_file_entry(files[k], false, true, lim, e, err);
		}
		free(files[k]);
	}
	free(files);
	return rc;
}

static int check_mix(const sim_mix_t *mix, char *err)
{
	double total = 0;
	for (int i = 0; i < mix->n; i++) {
		for (int j = 0; j < i; j++)
			if (!strcmp(mix->e[i].name, mix->e[j].name) &&
			    (mix->e[i].kind != SIM_FILE || !strcmp(mix->e[i].path, mix->e[j].path)))
				return sim_err(err, TOPOMATCH_EINVAL, "--patterns: '%s' is listed twice",
					       mix->e[i].name);
		total += mix->e[i].weight;
	}
	if (!(total > 0))
		return sim_err(err, TOPOMATCH_EINVAL, "--patterns: no kind has a positive weight");
	return TOPOMATCH_OK;
}

int sim_mix_parse(const char *spec, const topomatch_limits_t *lim, sim_mix_t *mix, char *err)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = copy ? TOPOMATCH_OK : sim_err(err, TOPOMATCH_ENOMEM, "out of memory"), cap = 0;
	memset(mix, 0, sizeof(*mix));
	for (char *tok = rc ? NULL : strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save))
		rc = parse_token(tok, lim, mix, &cap, err);
	if (!rc && mix->n == 0)
		rc = sim_err(err, TOPOMATCH_EINVAL, "--patterns: the list is empty");
	if (!rc)
		rc = check_mix(mix, err);
	free(copy);
	if (rc)
		sim_mix_free(mix);
	return rc;
}

static bool fits(const sim_mix_entry_t *e, int64_t ntasks)
{
	return e->weight > 0 && (e->kind != SIM_FILE || e->rescale ||
				 topomatch_affinity_ntasks(e->file) == ntasks);
}

/* A matrix file describes one application size: it goes to the jobs of
 * that many tasks, and (scaled:, profiles:) to the others rescaled when
 * it is a stencil; the
 * jobs that no entry fits draw among the sized kinds; `none` stands for
 * the jobs submitted without a pattern. */
int sim_mix_draw(const sim_mix_t *mix, uint64_t seed, int64_t id, int64_t ntasks)
{
	double total = 0;
	for (int i = 0; i < mix->n; i++)
		total += fits(&mix->e[i], ntasks) ? mix->e[i].weight : 0;
	if (total <= 0)
		return -1;
	topomatch_rng_t r;
	topomatch_rng_seed(&r, job_seed(seed, id, 1));
	double x = topomatch_rng_uniform(&r) * total;
	int last = -1;
	for (int i = 0; i < mix->n; i++) {
		if (!fits(&mix->e[i], ntasks))
			continue;
		last = i;
		if ((x -= mix->e[i].weight) < 0)
			break;
	}
	return last >= 0 && mix->e[last].kind == SIM_NONE ? -1 : last;
}

/* ------------------------------------------------------------ patterns */

/* Largest divisor of n not above n^(1/root): the most even grid. */
static int64_t divisor_below_root(int64_t n, int root)
{
	int64_t best = 1;
	for (int64_t d = 1; d * d <= n; d++) {
		if (n % d)
			continue;
		if (pow((double)d, root) <= (double)n * (1 + 1e-12))
			best = d > best ? d : best;
		int64_t e = n / d;
		if (pow((double)e, root) <= (double)n * (1 + 1e-12))
			best = e > best ? e : best;
	}
	return best;
}

static int stencil(int ndims, int64_t n, topomatch_affinity_t **out, char *err)
{
	int dims[3];
	int64_t a = divisor_below_root(n, ndims), rest = n / a;
	if (ndims == 2) {
		dims[0] = (int)a;
		dims[1] = (int)rest;
	} else {
		int64_t b = divisor_below_root(rest, 2);
		dims[0] = (int)a;
		dims[1] = (int)b;
		dims[2] = (int)(rest / b);
	}
	return topomatch_gen_stencil(ndims, dims, ndims == 2 ? 5 : 7, 0, NULL, out, err);
}

/* Directed unit entries src[k] -> dst[k]. */
static int from_edges(int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
		      topomatch_affinity_t **out, char *err)
{
	double *w = malloc((size_t)m * sizeof(*w) + 1);
	if (!w) {
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t k = 0; k < m; k++)
		w[k] = 1;
	int rc = topomatch_affinity_create(n, m, src, dst, w, NULL, out, err);
	free(w);
	return rc;
}

/*
 * All-to-all: dense while small.  Beyond SIM_ALLTOALL_DENSE tasks, the
 * messages of Bruck's algorithm, which MPI libraries use for all-to-all
 * of short messages (Thakur, Rabenseifner and Gropp, IJHPCA 19(1), 2005):
 * in step k every task i sends to i + 2^k (mod n), log2(n) partners each,
 * so the pattern stays sparse however large the job.
 * Reduction tree: the binomial tree of MPI_Reduce's algorithm (same
 * paper), task i sending to i with its lowest set bit cleared.
 */
static int log_pattern(int kind, int64_t n, topomatch_affinity_t **out, char *err)
{
	int steps = 0;
	while ((INT64_C(1) << steps) < n)
		steps++;
	int64_t cap = kind == SIM_ALLTOALL ? n * steps : n, m = 0;
	int64_t *src = malloc((size_t)cap * sizeof(*src) + 1),
		*dst = malloc((size_t)cap * sizeof(*dst) + 1);
	int rc = sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	if (src && dst) {
		for (int64_t i = 0; i < n; i++) {
			if (kind == SIM_TREE && i > 0) {
				src[m] = i;
				dst[m++] = i & (i - 1);
			}
			for (int k = 0; kind == SIM_ALLTOALL && k < steps; k++) {
				src[m] = i;
				dst[m++] = (i + (INT64_C(1) << k)) % n;
			}
		}
		rc = from_edges(n, m, src, dst, out, err);
	}
	free(src);
	free(dst);
	return rc;
}

/* A copy of a file's pattern (the caller owns what it gets). */
static int copy_of(const topomatch_affinity_t *a, topomatch_affinity_t **out, char *err)
{
	topomatch_csr_t c = topomatch_affinity_directed(a);
	int64_t m = c.rowptr[c.n];
	int64_t *src = malloc((size_t)m * sizeof(*src) + 1);
	if (!src) {
		return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
	}
	for (int64_t i = 0; i < c.n; i++)
		for (int64_t e = c.rowptr[i]; e < c.rowptr[i + 1]; e++)
			src[e] = i;
	int rc = topomatch_affinity_create(c.n, m, src, c.col, c.w,
					   topomatch_affinity_loads(a), out, err);
	free(src);
	return rc;
}

/* ------------------------------------------------- recorded profiles */

/* A recorded stencil on n tasks: the detected shape with the dimensions
 * closest to its proportions (topomatch gen --from-profile's way). */
static int rescaled(const sim_mix_entry_t *e, int64_t n, topomatch_affinity_t **out, char *err)
{
	topomatch_stencil_shape_t s = e->shape;
	int rc = topomatch_stencil_rescale(&s, n, err);
	if (!rc)
		rc = topomatch_gen_stencil_shape(&s, out, err);
	if (rc)
		sim_err_prefix(err, rc, "%s: cannot be rescaled to %lld tasks: ", e->path,
			       (long long)n);
	return rc;
}

/* Ranks in a random order (unstructured-mesh codes number them with
 * little locality): per job from the seed. */
static int shuffle(topomatch_affinity_t **a, uint64_t seed, int64_t id, char *err)
{
	topomatch_affinity_t *b;
	int rc = topomatch_affinity_shuffle(*a, job_seed(seed, id, 3), &b, err);
	if (!rc) {
		topomatch_affinity_destroy(*a);
		*a = b;
	}
	return rc;
}

static int make_kind(const sim_mix_t *mix, int e, int64_t n, uint64_t seed, int64_t id,
		     topomatch_affinity_t **out, char *err)
{
	*out = NULL;
	if (e < 0 || e >= mix->n || n < 1) {
		return sim_err(err, TOPOMATCH_EINVAL, "no pattern entry %d for %lld tasks", e,
			 (long long)n);
	}
	if (n == 1 && (mix->e[e].kind != SIM_FILE || topomatch_affinity_ntasks(mix->e[e].file) != 1))
		return topomatch_affinity_create(1, 0, NULL, NULL, NULL, NULL, out, err);
	switch (mix->e[e].kind) {
	case SIM_STENCIL2D:
		return stencil(2, n, out, err);
	case SIM_STENCIL3D:
		return stencil(3, n, out, err);
	case SIM_ALLTOALL:
		if (n <= SIM_ALLTOALL_DENSE)
			return topomatch_gen_alltoall(n, 1.0, 0, out, err);
		return log_pattern(SIM_ALLTOALL, n, out, err);
	case SIM_TREE:
		return log_pattern(SIM_TREE, n, out, err);
	case SIM_RANDOM:
		return topomatch_gen_random(n, n - 1 < SIM_RANDOM_DEGREE ? n - 1 : SIM_RANDOM_DEGREE,
					    10, job_seed(seed, id, 2), out, err);
	default:
		if (topomatch_affinity_ntasks(mix->e[e].file) == n || !mix->e[e].rescale)
			return copy_of(mix->e[e].file, out, err);
		return rescaled(&mix->e[e], n, out, err);
	}
}

int sim_pattern_make(const sim_mix_t *mix, int e, int64_t n, uint64_t seed, int64_t id,
		     topomatch_affinity_t **out, char *err)
{
	int rc = make_kind(mix, e, n, seed, id, out, err);
	if (!rc && mix->e[e].shuffled && n > 1 && (rc = shuffle(out, seed, id, err))) {
		topomatch_affinity_destroy(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * gen_nas.c - NAS Parallel Benchmarks-like patterns: models of the
 * communication of the NPB 3.x MPI kernels CG, LU, MG, FT, BT and SP.
 *
 * The papers map these kernels without describing their patterns:
 * TopoMatch §5.3 (Fig. 7: BT and SP on square process counts, Fig. 8: CG,
 * FT, LU, MG on powers of two, classes A to D; footnote 9: LU class B runs
 * on at most 256 processes), EagerMap Fig. 1 (the 64-task matrices of
 * BT-MPI, CG-MPI, LU-MPI and MG-MPI, recorded with eztrace; §3 point 2:
 * CG's "subgroups of 8 tasks communicate intensely", §5.2: BT and MG
 * "near and distant tasks communicate"), TreeMatch §5.1 and §5.4 (bt, cg,
 * ft, lu, mg, sp at 16, 32/36 and 64 processes).  The shapes below are
 * the decompositions of the NPB 3.x MPI sources (Bailey et al., NAS-95-020,
 * TopoMatch ref. [39]); the byte counts are estimates from each class's
 * problem size and iteration count, stated per kernel, with small
 * messages (scalar reductions, checksums, set-up) left out unless said.
 * They reproduce the figures' structure (rows of 8 for CG on 64, a 2D
 * mesh for LU, distant partners for MG and BT); they are models, not
 * traces: record a real run with `topomatch convert` for that.
 *
 * Process numbering is NPB's (MPI_COMM_WORLD ranks).  All volumes are
 * whole bytes (every format can hold them), summed when two messages go
 * to the same partner (a grid dimension of 2 that wraps around).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "gen_internal.h"

#include <string.h>

#define NCLASSES 7
static const char class_names[NCLASSES] = { 'S', 'W', 'A', 'B', 'C', 'D', 'E' };

/* NPB 3.x problem sizes (npbparams.h of each kernel, by class S..E). */
static const int64_t cg_na[NCLASSES] = { 1400, 7000, 14000, 75000, 150000, 1500000, 9000000 };
static const int cg_niter[NCLASSES] = { 15, 15, 15, 75, 75, 100, 100 };
#define CG_ITMAX 25 /* cgitmax: CG iterations per outer iteration */
static const int mg_n[NCLASSES] = { 32, 128, 256, 256, 512, 1024, 2048 };
static const int mg_nit[NCLASSES] = { 4, 4, 4, 20, 20, 50, 50 };
static const int ft_n[NCLASSES][3] = { { 64, 64, 64 },     { 128, 128, 32 },
				       { 256, 256, 128 },  { 512, 256, 256 },
				       { 512, 512, 512 },  { 2048, 1024, 1024 },
				       { 4096, 2048, 2048 } };
static const int ft_niter[NCLASSES] = { 6, 6, 6, 20, 20, 25, 25 };
static const int lu_n[NCLASSES] = { 12, 33, 64, 102, 162, 408, 1020 };
static const int lu_itmax[NCLASSES] = { 50, 300, 250, 250, 250, 300, 300 };
static const int bt_n[NCLASSES] = { 12, 24, 64, 102, 162, 408, 1020 };
static const int bt_niter[NCLASSES] = { 60, 200, 200, 200, 200, 250, 250 };
static const int sp_n[NCLASSES] = { 12, 36, 64, 102, 162, 408, 1020 };
static const int sp_niter[NCLASSES] = { 100, 400, 400, 400, 400, 500, 500 };

static const char *const kernel_names[] = { NULL, "cg", "lu", "mg", "ft", "bt", "sp" };

int topomatch_nas_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int k = TOPOMATCH_NAS_CG; k <= TOPOMATCH_NAS_SP; k++)
		if (!strcmp(name, kernel_names[k]))
			return k;
	return -1;
}

/* One pattern in the making. */
struct nas {
	const char *name; /* for messages */
	int64_t n;        /* processes */
	int cls;          /* class index */
	tm_coo_t coo;
	char *err;
};

static int add(struct nas *g, int64_t from, int64_t to, double bytes)
{
	if (from == to || bytes <= 0.0)
		return TOPOMATCH_OK;
	int rc = tm_coo_push(&g->coo, from, to, bytes, TOPOMATCH_DEFAULT_MAX_NNZ);
	if (rc == TOPOMATCH_ELIMIT)
		return tm_err(g->err, rc, "%s: more than %lld entries (limit)", g->name,
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	if (rc != TOPOMATCH_OK)
		return tm_err(g->err, rc, "%s: out of memory", g->name);
	return TOPOMATCH_OK;
}

static int log2_exact(int64_t n)
{
	int l = 0;
	while ((INT64_C(1) << l) < n)
		l++;
	return (INT64_C(1) << l) == n ? l : -1;
}

/* Size of block b of `len` points cut into `parts` (the first len % parts
 * blocks one larger, as the NPB distribute remainders). */
static int64_t block(int64_t len, int64_t parts, int64_t b)
{
	return len / parts + (b < len % parts ? 1 : 0);
}

/* ------------------------------------------------------------------ */
/* CG                                                                  */
/* ------------------------------------------------------------------ */

/*
 * cg.f: nprows x npcols processes, npcols = nprows or 2 nprows (the odd
 * power of two goes to the columns), rank = row * npcols + col.  Each of
 * the cgitmax + 1 sparse matrix-vector products per outer iteration sums
 * the row's partial vectors by recursive doubling (partner col XOR 2^k,
 * k < log2 npcols, each step the process's whole piece of m = na / npcols
 * doubles) and then swaps the piece with the "transpose" process
 * (exch_proc: (row, col) <-> (col, row) on square grids).  Row partners
 * also carry the 2 cgitmax + 4 scalar reductions (8 bytes) of an outer
 * iteration.  On 64 processes: rows of 8 (EagerMap Fig. 1b).
 */
static int gen_cg(struct nas *g)
{
	int l = log2_exact(g->n);
	int64_t npcols = INT64_C(1) << ((l + 1) / 2), nprows = g->n / npcols;
	int64_t na = cg_na[g->cls], iters = cg_niter[g->cls];

	if (na < npcols)
		return tm_err(g->err, TOPOMATCH_EINVAL, "cg class %c: %lld processes need %lld "
			      "columns, more than its %lld rows", class_names[g->cls],
			      (long long)g->n, (long long)npcols, (long long)na);
	for (int64_t me = 0; me < g->n; me++) {
		int64_t row = me / npcols, col = me % npcols;
		double vec = 8.0 * (double)block(na, npcols, col) * (CG_ITMAX + 1) * (double)iters;
		double scalars = 8.0 * (2 * CG_ITMAX + 4) * (double)iters;
		for (int64_t bit = 1; bit < npcols; bit *= 2) {
			int rc = add(g, me, row * npcols + (col ^ bit), vec + scalars);
			if (rc != TOPOMATCH_OK)
				return rc;
		}
		int64_t exch = npcols == nprows
				       ? col * nprows + row
				       : 2 * ((me / 2) % nprows * nprows + me / 2 / nprows) + me % 2;
		int rc = add(g, me, exch, vec);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* LU                                                                  */
/* ------------------------------------------------------------------ */

/*
 * lu (proc_grid, neighbors, exchange_1/3): xdim x ydim processes, xdim =
 * 2^ceil(log2(N) / 2), rank = row + xdim * col, the grid not periodic.
 * Per SSOR iteration every process sends each of its (up to 4) neighbours
 * one wavefront message per interior k-plane (nz - 2 of them: the lower
 * sweep to south and east, the upper one to north and west), 5 doubles
 * per point of the shared face line, and the right-hand side's halo of 2
 * layers of 5 doubles over the face's nz planes: 40 x face x (3 nz - 2)
 * bytes, with face = the sender's extent along the other grid axis.  NPB's
 * LU stops below 4 points per process along x or y ("subdomain size is too
 * small"), which is why class B runs on at most 256 processes (TopoMatch
 * footnote 9).
 */
/* xdim (>= ydim) of NPB LU's grid of 2^l processes. */
static int64_t lu_xdim(int l)
{
	return INT64_C(1) << ((l + 1) / 2);
}

static int gen_lu(struct nas *g)
{
	int l = log2_exact(g->n);
	int64_t xdim = lu_xdim(l), ydim = g->n / xdim;
	int64_t nx = lu_n[g->cls], nz = lu_n[g->cls], iters = lu_itmax[g->cls];

	if (nx / xdim < 4) {
		int max = 0; /* the largest power of two that still fits */
		while (nx / lu_xdim(max + 1) >= 4)
			max++;
		return tm_err(g->err, TOPOMATCH_EINVAL, "lu class %c (%lld^3) on %lld processes: "
			      "a %lld x %lld grid leaves fewer than 4 points per process, which "
			      "NPB's LU refuses (at most %lld processes for this class)",
			      class_names[g->cls], (long long)nx, (long long)g->n, (long long)xdim,
			      (long long)ydim, (long long)(INT64_C(1) << max));
	}
	for (int64_t me = 0; me < g->n; me++) {
		int64_t row = me % xdim, col = me / xdim;
		/* a neighbour along the rows shares a line of the local y extent */
		double perx = 40.0 * (double)block(nx, ydim, col) * (double)(3 * nz - 2) * (double)iters;
		double pery = 40.0 * (double)block(nx, xdim, row) * (double)(3 * nz - 2) * (double)iters;
		int rc = TOPOMATCH_OK;
		if (row > 0)
			rc = add(g, me, me - 1, perx);
		if (rc == TOPOMATCH_OK && row + 1 < xdim)
			rc = add(g, me, me + 1, perx);
		if (rc == TOPOMATCH_OK && col > 0)
			rc = add(g, me, me - xdim, pery);
		if (rc == TOPOMATCH_OK && col + 1 < ydim)
			rc = add(g, me, me + xdim, pery);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* MG                                                                  */
/* ------------------------------------------------------------------ */

/*
 * mg.f (setup): px x py x pz processes, px = 2^floor(l/3), py =
 * 2^floor((l - floor(l/3)) / 2), pz the rest (l = log2 N), rank = x + px
 * (y + py z); every axis periodic.  The V-cycle runs over levels k = lt
 * (n = 2^lt points per axis) down to 1 (2 points); at level k an axis of
 * p processes holds g = 2^k points: with g >= p every process has g / p
 * of them and trades faces with its neighbours at distance 1; with g < p
 * only every s-th process (s = p / g) has a point, and its partners are
 * the active processes at distance s: the distant partners of EagerMap
 * §5.2, with volumes shrinking by 4 per level.  A face message is 8 bytes
 * per point of the face (the product of the other two axes' local
 * extents); each level trades its faces 4 times per iteration
 * (restriction, interpolation, residual, smoother: comm3 after each).
 */
static int mg_level(struct nas *g, const int64_t *p, int64_t pts, double times)
{
	int64_t s[3], loc[3];

	for (int a = 0; a < 3; a++) {
		s[a] = pts >= p[a] ? 1 : p[a] / pts;
		loc[a] = pts >= p[a] ? pts / p[a] : 1;
	}
	for (int64_t me = 0; me < g->n; me++) {
		int64_t c[3] = { me % p[0], me / p[0] % p[1], me / (p[0] * p[1]) };
		if (c[0] % s[0] || c[1] % s[1] || c[2] % s[2])
			continue; /* no point of this level here */
		for (int a = 0; a < 3; a++) {
			double face = 8.0 * (double)(loc[(a + 1) % 3] * loc[(a + 2) % 3]) * times;
			for (int dir = -1; dir <= 1; dir += 2) {
				int64_t d[3] = { c[0], c[1], c[2] };
				d[a] = ((c[a] + dir * s[a]) % p[a] + p[a]) % p[a];
				int rc = add(g, me, d[0] + p[0] * (d[1] + p[1] * d[2]), face);
				if (rc != TOPOMATCH_OK)
					return rc;
			}
		}
	}
	return TOPOMATCH_OK;
}

static int gen_mg(struct nas *g)
{
	int l = log2_exact(g->n), dx = l / 3, dy = (l - dx) / 2;
	int64_t p[3] = { INT64_C(1) << dx, INT64_C(1) << dy, 0 };
	int64_t n = mg_n[g->cls];
	int lt = log2_exact(n);

	p[2] = g->n / (p[0] * p[1]);
	for (int a = 0; a < 3; a++)
		if (p[a] > n)
			return tm_err(g->err, TOPOMATCH_EINVAL, "mg class %c (%lld^3) on %lld "
				      "processes: a %lld x %lld x %lld grid has more processes than "
				      "points along an axis", class_names[g->cls], (long long)n,
				      (long long)g->n, (long long)p[0], (long long)p[1],
				      (long long)p[2]);
	for (int k = lt; k >= 1; k--) {
		int rc = mg_level(g, p, INT64_C(1) << k, 4.0 * mg_nit[g->cls]);
		if (rc != TOPOMATCH_OK)
			return rc;
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */
/* FT                                                                  */
/* ------------------------------------------------------------------ */

/*
 * ft.f: the n1 x n2 x n3 complex array (16 bytes a point) is transposed
 * once per 3D FFT, niter + 1 FFTs (one forward, niter inverse).  With N
 * <= n3 processes (the 1D layout) the transpose is one MPI_Alltoall over
 * all processes; beyond, a np1 x np2 grid with np1 = n3, np2 = N / n3
 * (the 2D layout: rank = me1 np2 + me2) transposes twice per FFT, within
 * each row (same me1, np2 processes) and within each column (same me2,
 * np1 processes).  Each process holds ntotal / N points and sends a g-th
 * of them to each member of a group of g: 16 ntotal / (N g) bytes.  The
 * checksums (one complex per iteration to rank 0) are left out.
 */
static int ft_group(struct nas *g, int64_t first, int64_t stride, int64_t size, double bytes)
{
	for (int64_t i = 0; i < size; i++)
		for (int64_t j = 0; j < size; j++) {
			int rc = add(g, first + i * stride, first + j * stride, bytes);
			if (rc != TOPOMATCH_OK)
				return rc;
		}
	return TOPOMATCH_OK;
}

static int gen_ft(struct nas *g)
{
	const int *d = ft_n[g->cls];
	double ntotal = (double)d[0] * d[1] * d[2], ffts = ft_niter[g->cls] + 1;
	int64_t np1 = g->n <= d[2] ? 1 : d[2], np2 = g->n / np1;

	if (np1 > d[1] || np2 > d[2])
		return tm_err(g->err, TOPOMATCH_EINVAL, "ft class %c (%dx%dx%d) on %lld processes: "
			      "at most %lld (n2 x n3)", class_names[g->cls], d[0], d[1], d[2],
			      (long long)g->n, (long long)d[1] * d[2]);
	int64_t nnz = 0;
	if (!tm_mul_ok(g->n, np2 - 1 + np1 - 1, &nnz) || nnz > TOPOMATCH_DEFAULT_MAX_NNZ)
		return tm_err(g->err, TOPOMATCH_ELIMIT, "ft on %lld processes: more than %lld "
			      "entries (limit)", (long long)g->n,
			      (long long)TOPOMATCH_DEFAULT_MAX_NNZ);
	int rc = tm_coo_reserve(&g->coo, nnz);
	if (rc != TOPOMATCH_OK)
		return tm_err(g->err, rc, "ft: out of memory for %lld entries", (long long)nnz);
	for (int64_t me1 = 0; me1 < np1 && rc == TOPOMATCH_OK; me1++)
		rc = ft_group(g, me1 * np2, 1, np2, 16.0 * ntotal / (double)(g->n * np2) * ffts);
	for (int64_t me2 = 0; me2 < np2 && np1 > 1 && rc == TOPOMATCH_OK; me2++)
		rc = ft_group(g, me2, np2, np1, 16.0 * ntotal / (double)(g->n * np1) * ffts);
	return rc;
}

/* ------------------------------------------------------------------ */
/* BT and SP                                                           */
/* ------------------------------------------------------------------ */

/*
 * bt.f, sp.f (make_set): N = q^2 processes, rank = i + q j, and the grid
 * cut into q^3 cells; process (i, j) owns the q cells ((i + c) mod q,
 * (j - c) mod q, c), c = 0..q-1 (the multi-partition, one cell in every
 * plane of every direction).  The owner of a cell's neighbour is then the
 * same for all its cells: along x (i +- 1, j), along y (i, j +- 1), along
 * z (i -+ 1, j +- 1): the diagonal partners.  Per time step each cell
 * sends, for each direction in which it has a neighbour cell (the grid is
 * not periodic), per point of the shared face: its 2-layer halo of 5
 * doubles (copy_faces) both ways, and in the line solves the forward
 * elimination to the successor (BT: a 5x5 block and 5 right-hand sides =
 * 30 doubles; SP: 22) and the back substitution to the predecessor (BT 5,
 * SP 10).  BT and SP have the same shape (TopoMatch Fig. 7).
 */
static int gen_bt(struct nas *g, int64_t n, int64_t iters, double fwd, double bwd)
{
	int64_t q = 1;

	while (q * q < g->n)
		q++;
	if (q > n)
		return tm_err(g->err, TOPOMATCH_EINVAL, "%s class %c (%lld^3) on %lld processes: "
			      "%lld cells per axis, more than its %lld points", g->name,
			      class_names[g->cls], (long long)n, (long long)g->n, (long long)q,
			      (long long)n);
	for (int64_t me = 0; me < g->n; me++) {
		int64_t i = me % q, j = me / q;
		for (int64_t c = 0; c < q; c++) {
			int64_t cell[3] = { (i + c) % q, ((j - c) % q + q) % q, c };
			int64_t ext[3] = { block(n, q, cell[0]), block(n, q, cell[1]),
					   block(n, q, cell[2]) };
			/* successor per axis: x (i+1, j), y (i, j+1), z (i-1, j+1) */
			const int64_t di[3] = { 1, 0, -1 }, dj[3] = { 0, 1, 1 };
			for (int a = 0; a < 3; a++) {
				double face = (double)(ext[(a + 1) % 3] * ext[(a + 2) % 3]) * 8.0 *
					      (double)iters;
				int64_t si = ((i + di[a]) % q + q) % q, sj = ((j + dj[a]) % q + q) % q;
				int64_t pi = ((i - di[a]) % q + q) % q, pj = ((j - dj[a]) % q + q) % q;
				int rc = TOPOMATCH_OK;
				if (cell[a] + 1 < q)
					rc = add(g, me, si + q * sj, face * (10.0 + fwd));
				if (rc == TOPOMATCH_OK && cell[a] > 0)
					rc = add(g, me, pi + q * pj, face * (10.0 + bwd));
				if (rc != TOPOMATCH_OK)
					return rc;
			}
		}
	}
	return TOPOMATCH_OK;
}

/* ------------------------------------------------------------------ */

static int class_index(char c)
{
	for (int k = 0; k < NCLASSES; k++)
		if (c == class_names[k])
			return k;
	return -1;
}

int topomatch_gen_nas(int kernel, int64_t ntasks, char nas_class, topomatch_affinity_t **out,
		      char *err)
{
	if (!out)
		return tm_err(err, TOPOMATCH_EINVAL, "nas: no result pointer");
	*out = NULL;
	if (kernel < TOPOMATCH_NAS_CG || kernel > TOPOMATCH_NAS_SP)
		return tm_err(err, TOPOMATCH_EINVAL, "nas: unknown kernel %d", kernel);
	const char *name = kernel_names[kernel];
	int cls = class_index(nas_class);
	if (cls < 0)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: class '%c' is not one of S, W, A, B, C, "
			      "D, E", name, nas_class >= 32 && nas_class < 127 ? nas_class : '?');
	if (ntasks < 1 || ntasks > TOPOMATCH_DEFAULT_MAX_TASKS)
		return tm_err(err, ntasks < 1 ? TOPOMATCH_EINVAL : TOPOMATCH_ELIMIT,
			      "%s: %lld processes: must be in [1, %lld]", name, (long long)ntasks,
			      (long long)TOPOMATCH_DEFAULT_MAX_TASKS);
	bool square = kernel == TOPOMATCH_NAS_BT || kernel == TOPOMATCH_NAS_SP;
	int64_t q = 1;
	while (q * q < ntasks)
		q++;
	if (square && q * q != ntasks)
		return tm_err(err, TOPOMATCH_EINVAL, "%s runs on a square number of processes "
			      "(NPB): %lld is not one (%lld or %lld are)", name, (long long)ntasks,
			      (long long)((q - 1) * (q - 1)), (long long)(q * q));
	if (!square && log2_exact(ntasks) < 0) {
		int64_t p = 1;
		while (p * 2 < ntasks)
			p *= 2;
		return tm_err(err, TOPOMATCH_EINVAL, "%s runs on a power-of-two number of processes "
			      "(NPB): %lld is not one (%lld or %lld are)", name, (long long)ntasks,
			      (long long)p, (long long)(2 * p));
	}
	struct nas g = { .name = name, .n = ntasks, .cls = cls, .err = err };
	tm_coo_init(&g.coo);
	int rc;
	switch (kernel) {
	case TOPOMATCH_NAS_CG: rc = gen_cg(&g); break;
	case TOPOMATCH_NAS_LU: rc = gen_lu(&g); break;
	case TOPOMATCH_NAS_MG: rc = gen_mg(&g); break;
	case TOPOMATCH_NAS_FT: rc = gen_ft(&g); break;
	case TOPOMATCH_NAS_BT: rc = gen_bt(&g, bt_n[cls], bt_niter[cls], 30.0, 5.0); break;
	default: rc = gen_bt(&g, sp_n[cls], sp_niter[cls], 22.0, 10.0); break;
	}
	if (rc != TOPOMATCH_OK) {
		tm_coo_free(&g.coo);
		return rc;
	}
	return gen_coo_finish(ntasks, &g.coo, NULL, out, err);
}

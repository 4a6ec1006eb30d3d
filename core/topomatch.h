/*
 * topomatch.h - public API of libtopomatch (slurm-topomatch).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Conventions (after hwloc's API): every name starts with topomatch_ /
 * TOPOMATCH_; objects are opaque handles with explicit create/destroy;
 * functions that can fail return a topomatch_status (0 = success) and,
 * when given an error buffer, fill it with a one-line message that names
 * the file and line of bad input ("pat.mat:3: ...").  Nothing here keeps
 * mutable global state: every function is reentrant, and results depend
 * only on the inputs and the seed.
 */
#ifndef TOPOMATCH_H
#define TOPOMATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TOPOMATCH_BUILDING) && defined(__GNUC__)
#define TOPOMATCH_API __attribute__((visibility("default")))
#else
#define TOPOMATCH_API
#endif

/* ------------------------------------------------------------------ */
/* Status codes and error messages                                     */
/* ------------------------------------------------------------------ */

typedef enum topomatch_status {
	TOPOMATCH_OK = 0,
	TOPOMATCH_EINVAL = 1,      /* bad argument or inconsistent sizes  */
	TOPOMATCH_ENOMEM = 2,      /* allocation failed                   */
	TOPOMATCH_EIO = 3,         /* cannot open/read/write a file       */
	TOPOMATCH_EPARSE = 4,      /* malformed input (message has line)  */
	TOPOMATCH_ELIMIT = 5,      /* input exceeds a configured limit    */
	TOPOMATCH_EBUDGET = 6,     /* wall-clock guard or work budget hit */
	TOPOMATCH_EUNSUPPORTED = 7 /* valid request this build cannot do  */
} topomatch_status;

/*
 * Every `char *err` parameter is either NULL or a buffer of at least
 * TOPOMATCH_ERRLEN bytes; on failure it receives one line without a
 * trailing newline, truncated to fit.
 */
#define TOPOMATCH_ERRLEN 512

/* Short constant name of a status ("parse error", ...). */
TOPOMATCH_API const char *topomatch_strstatus(int status);

/* Library version string, e.g. "0.1.0". */
TOPOMATCH_API const char *topomatch_version(void);

/* ------------------------------------------------------------------ */
/* Affinity (communication pattern)                                    */
/* ------------------------------------------------------------------ */

/*
 * The matrix C as read is directed: C(i,j) = what task i sends to j.
 * The object keeps C (CSR, diagonal dropped, duplicates summed) for the
 * metrics that need direction, and A = C + C^T (CSR, symmetric, diagonal
 * dropped) for the mappers.  Weights are finite doubles >= 0; explicit
 * zeros are not stored.  Optional per-task loads (default: none).
 */
typedef struct topomatch_affinity topomatch_affinity_t;

typedef enum topomatch_format {
	TOPOMATCH_FORMAT_AUTO = 0,
	TOPOMATCH_FORMAT_DENSE,    /* n lines of n numbers (TopoMatch)      */
	TOPOMATCH_FORMAT_MM,       /* Matrix Market coordinate              */
	TOPOMATCH_FORMAT_TRIPLETS, /* "i j w" lines, 0-based, '#' comments  */
	TOPOMATCH_FORMAT_GRF       /* Scotch source graph, one arc = C(i,j) */
} topomatch_format;

/* "dense", "mm", "triplets", "grf", "auto" <-> enum; -1 when unknown. */
TOPOMATCH_API int topomatch_format_from_name(const char *name);
TOPOMATCH_API const char *topomatch_format_name(int format);

/* Limits on what a reader accepts; 0 in a field means "the default". */
typedef struct topomatch_limits {
	int64_t max_tasks; /* default TOPOMATCH_DEFAULT_MAX_TASKS */
	int64_t max_nnz;   /* directed non-zeros; default ..._MAX_NNZ */
	int64_t max_bytes; /* input bytes; default ..._MAX_BYTES */
} topomatch_limits_t;

#define TOPOMATCH_DEFAULT_MAX_TASKS (INT64_C(1) << 22)  /* 4,194,304 */
#define TOPOMATCH_DEFAULT_MAX_NNZ (INT64_C(1) << 28)    /* 268M */
#define TOPOMATCH_DEFAULT_MAX_BYTES (INT64_C(1) << 32)  /* 4 GiB */

/*
 * Read a pattern from a stream (pipes are fine: the input is read once,
 * sequentially).  `name` is used in messages ("pat.mat:3: ...").
 * `format` forces a reader; TOPOMATCH_FORMAT_AUTO detects it.
 * `limits` may be NULL (defaults).
 */
TOPOMATCH_API int topomatch_affinity_read(FILE *in, const char *name, int format,
					  const topomatch_limits_t *limits,
					  topomatch_affinity_t **out, char *err);
/* Same from a path; "-" means stdin. */
TOPOMATCH_API int topomatch_affinity_read_file(const char *path, int format,
					       const topomatch_limits_t *limits,
					       topomatch_affinity_t **out, char *err);
/* Same from memory (the plugins decode blobs this way). */
TOPOMATCH_API int topomatch_affinity_read_buffer(const char *buf, size_t len,
						 const char *name, int format,
						 const topomatch_limits_t *limits,
						 topomatch_affinity_t **out, char *err);

/*
 * Build from directed entries (src[k] -> dst[k], weight w[k]); entries with
 * src == dst are dropped, duplicates summed.  loads may be NULL.
 */
TOPOMATCH_API int topomatch_affinity_create(int64_t ntasks, int64_t nentries,
					    const int64_t *src, const int64_t *dst,
					    const double *w, const double *loads,
					    topomatch_affinity_t **out, char *err);
TOPOMATCH_API void topomatch_affinity_destroy(topomatch_affinity_t *a);

TOPOMATCH_API int64_t topomatch_affinity_ntasks(const topomatch_affinity_t *a);
/* Directed non-zeros of C (off-diagonal). */
TOPOMATCH_API int64_t topomatch_affinity_nnz(const topomatch_affinity_t *a);
/* Loads array (ntasks entries) or NULL when the input had none. */
TOPOMATCH_API const double *topomatch_affinity_loads(const topomatch_affinity_t *a);
/* Sum of all weights of C. */
TOPOMATCH_API double topomatch_affinity_total(const topomatch_affinity_t *a);

/*
 * Read-only CSR views.  Rows are sorted by column, columns unique.
 * directed: C;  symmetric: A = C + C^T.  Pointers stay valid until destroy.
 */
typedef struct topomatch_csr {
	int64_t n;
	const int64_t *rowptr; /* n + 1 entries */
	const int64_t *col;    /* rowptr[n] entries */
	const double *w;       /* rowptr[n] entries */
} topomatch_csr_t;
TOPOMATCH_API topomatch_csr_t topomatch_affinity_directed(const topomatch_affinity_t *a);
TOPOMATCH_API topomatch_csr_t topomatch_affinity_symmetric(const topomatch_affinity_t *a);

/* Write C in a format (TOPOMATCH_FORMAT_AUTO means triplets). */
TOPOMATCH_API int topomatch_affinity_write(const topomatch_affinity_t *a, FILE *out,
					   int format, char *err);

/* ------------------------------------------------------------------ */
/* Deterministic random numbers (explicit state: reentrant)            */
/* ------------------------------------------------------------------ */

typedef struct topomatch_rng {
	uint64_t s[4];
} topomatch_rng_t;

TOPOMATCH_API void topomatch_rng_seed(topomatch_rng_t *r, uint64_t seed);
TOPOMATCH_API uint64_t topomatch_rng_next(topomatch_rng_t *r);
/* Uniform integer in [0, bound), bound > 0, unbiased. */
TOPOMATCH_API uint64_t topomatch_rng_below(topomatch_rng_t *r, uint64_t bound);
/* Uniform double in [0, 1). */
TOPOMATCH_API double topomatch_rng_uniform(topomatch_rng_t *r);
/* Standard normal N(0,1). */
TOPOMATCH_API double topomatch_rng_normal(topomatch_rng_t *r);

/* ------------------------------------------------------------------ */
/* Topology                                                            */
/* ------------------------------------------------------------------ */

/*
 * Processing units (PUs) are numbered 0..npu-1:
 *  - tree (tleaf): lexicographic, root level most significant (Scotch);
 *  - torus/mesh: first dimension fastest, x + X*(y + Y*z) (with a local
 *    tree below each router: router x L + the PU's number under it);
 *  - hypercube: the vertex number;
 *  - graph: compute vertices in increasing vertex order.
 * Distances d are hops: on trees 2 x (levels above the lowest common
 * ancestor), on graphs the shortest path.
 */
typedef struct topomatch_topology topomatch_topology_t;

typedef enum topomatch_topo_kind {
	TOPOMATCH_TOPO_TREE = 1,
	TOPOMATCH_TOPO_TORUS,
	TOPOMATCH_TOPO_MESH,
	TOPOMATCH_TOPO_HCUB,
	TOPOMATCH_TOPO_GRAPH
} topomatch_topo_kind;

#define TOPOMATCH_MAX_LEVELS 32
#define TOPOMATCH_MAX_DIMS 16
#define TOPOMATCH_MAX_PUS (INT64_C(1) << 26)

/*
 * Balanced tree: nlevels levels below the root; arity[k] children for
 * every node at depth k (root depth 0); cost[k] = cost of one link between
 * depth k and depth k+1 (NULL: all 1).  Scotch: "tleaf n a1 v1 ... an vn".
 */
TOPOMATCH_API int topomatch_topology_tree(int nlevels, const int *arity,
					  const double *cost,
					  topomatch_topology_t **out, char *err);
/* Torus (wrap = 1) or mesh (wrap = 0) of ndims dimensions. */
TOPOMATCH_API int topomatch_topology_grid(int ndims, const int *dims, int wrap,
					  topomatch_topology_t **out, char *err);
/*
 * Grid of routers with a balanced tree below each router: ndims dims,
 * wrap[k] != 0 when dimension k wraps around (NULL: none), then nlevels
 * local levels (arity[k] children per vertex at local depth k, the router
 * being local depth 0; cost[k] = cost of one link from local depth k to
 * k+1, NULL = 1) and grid_cost = cost of one router-router link (> 0).
 * nlevels = 0 gives a plain grid.  PUs: pu = router * L + local, with
 * router = x + X*(y + Y*z) (first dimension fastest) and local the tleaf
 * number below the router (L = product of the local arities).  Kind:
 * TOPOMATCH_TOPO_TORUS when every dimension wraps, else TOPOMATCH_TOPO_MESH.
 * Hops: same router: 2 x (nlevels - lca depth) as in a tree; else grid
 * hops (per-dimension shortest way, wrap where allowed) + 2 x nlevels.
 * Cost: the sum of the link costs on that path.
 */
TOPOMATCH_API int topomatch_topology_grid_tree(int ndims, const int *dims,
					       const unsigned char *wrap, int nlevels,
					       const int *arity, const double *cost,
					       double grid_cost, topomatch_topology_t **out,
					       char *err);
/* Hypercube of dimension d (2^d PUs). */
TOPOMATCH_API int topomatch_topology_hcub(int d, topomatch_topology_t **out, char *err);
/*
 * General graph: nvert vertices, nlinks undirected links (a[k], b[k]) with
 * cost[k] > 0 (NULL: all 1), compute[v] != 0 when v holds a PU (NULL: all).
 * Routing and distances: shortest paths in hops, ties broken towards the
 * lower-numbered neighbour (BFS in vertex order).  Self-loops are refused;
 * with parallel links the lowest-numbered one routes; only compute vertices
 * must be connected to each other.
 */
TOPOMATCH_API int topomatch_topology_graph(int64_t nvert, int64_t nlinks,
					   const int64_t *a, const int64_t *b,
					   const double *cost, const unsigned char *compute,
					   topomatch_topology_t **out, char *err);

/*
 * Parse a Scotch target string: "tleaf n a1 v1 ...", "torus2D X Y",
 * "torus3D X Y Z", "torusXD n d1 ... dn", "mesh2D/3D/XD ...", "hcub d".
 * A torus or mesh may be followed by the clauses of
 * topomatch_topology_grid_tree, each at most once, in any order:
 * "wrap w1 ... wn" (mesh only: 1 where the dimension wraps, 0 elsewhere),
 * "local n a1 c1 ... an cn" (the local tree, as tleaf's levels) and
 * "cost c" (router links); what topomatch_topology_describe writes reads
 * back to the same topology.
 * `name` locates the text in messages ("NAME:LINE: ..."; NULL: "topology").
 * The target may span several lines with '#' comments.  A type-2 "deco"
 * target (the machine graph, as `topomatch topo export --scotch` writes
 * it) is read as a graph topology; a "deco" of distances alone (types 0
 * and 1, one value per pair of PUs) gives TOPOMATCH_EUNSUPPORTED.
 */
TOPOMATCH_API int topomatch_topology_parse(const char *text, const char *name,
					   topomatch_topology_t **out, char *err);
/*
 * If `arg` names an existing file, read the target from it; otherwise
 * parse `arg` itself as a target string.
 */
TOPOMATCH_API int topomatch_topology_load(const char *arg, topomatch_topology_t **out,
					  char *err);
TOPOMATCH_API void topomatch_topology_destroy(topomatch_topology_t *t);

TOPOMATCH_API int topomatch_topology_kind(const topomatch_topology_t *t);
TOPOMATCH_API int64_t topomatch_topology_npu(const topomatch_topology_t *t);
/* Tree shape (only for TOPOMATCH_TOPO_TREE): returns nlevels, fills arrays
 * of TOPOMATCH_MAX_LEVELS entries when non-NULL; -1 for other kinds. */
TOPOMATCH_API int topomatch_topology_tree_shape(const topomatch_topology_t *t, int *arity,
						double *cost);
/* Grid shape (torus/mesh/hcub): returns ndims, fills dims; -1 otherwise.
 * dims must have room for TOPOMATCH_MAX_DIMS entries; a hypercube is d
 * dimensions of size 2 (d <= TOPOMATCH_MAX_DIMS).  dims count routers:
 * with a local tree (topomatch_topology_grid_local() > 0) the PUs are
 * product(dims) x product(arity). */
TOPOMATCH_API int topomatch_topology_grid_shape(const topomatch_topology_t *t, int *dims);
/* Wrap per grid dimension (torus/mesh/hcub): returns ndims, fills wrap[k]
 * = 1 when dimension k wraps around, else 0 (room for TOPOMATCH_MAX_DIMS;
 * NULL: only the count); -1 for other kinds.  A hypercube wraps nowhere. */
TOPOMATCH_API int topomatch_topology_grid_wrap(const topomatch_topology_t *t,
					       unsigned char *wrap);
/* Local tree below every router (torus/mesh/hcub): returns nlevels, 0 for
 * a plain grid; fills arity[] and cost[] (room for TOPOMATCH_MAX_LEVELS)
 * and *grid_cost, the cost of one router-router link (1 for plain grids);
 * any of them may be NULL.  -1 for other kinds. */
TOPOMATCH_API int topomatch_topology_grid_local(const topomatch_topology_t *t, int *arity,
						double *cost, double *grid_cost);
/* Canonical text of the topology ("tleaf 2 4 10 2 1", "torus3D 8 8 8";
 * grids with clauses: "mesh3D 8 8 16 wrap 1 1 0 local 2 2 1 4 1 cost 10",
 * see topomatch_topology_parse).
 * Returns 0; TOPOMATCH_ELIMIT when truncated to len-1 characters;
 * TOPOMATCH_EINVAL for a NULL buffer or len 0. */
TOPOMATCH_API int topomatch_topology_describe(const topomatch_topology_t *t, char *buf,
					      size_t len);

/*
 * Write t as a Scotch target file (what SCOTCH_archLoad reads): tleaf,
 * torus or mesh where Scotch has the shape, a decomposition-defined
 * "deco" target otherwise; the target the scotch mapper uses.
 */
TOPOMATCH_API int topomatch_topology_write_scotch(const topomatch_topology_t *t, FILE *out,
						  char *err);

/*
 * Distances between PUs p and q (0 <= p, q < npu).  Hops, and the cost
 * of the routed path (sum of link costs).  These are pure functions of
 * the topology except on general graphs, where they run a BFS: use a
 * topomatch_router for many queries.  -1 when p or q is out of range (or,
 * on graphs, when memory runs out).
 */
TOPOMATCH_API int64_t topomatch_topology_hops(const topomatch_topology_t *t, int64_t p,
					      int64_t q);
TOPOMATCH_API double topomatch_topology_cost(const topomatch_topology_t *t, int64_t p,
					     int64_t q);

/*
 * A router holds per-caller scratch space (one per thread) for distance
 * and route queries from a source PU.  Routing (stated in the man page):
 * trees go up to the lowest common ancestor and down; torus/mesh use
 * dimension order (x first), shortest direction, ties to +, and with a
 * local tree go up to the router first and down from the last; hypercube
 * fixes bits from the lowest; graphs follow the BFS tree of the source.
 * Links are full duplex: each direction is its own link id.
 */
typedef struct topomatch_router topomatch_router_t;
TOPOMATCH_API int topomatch_router_create(const topomatch_topology_t *t,
					  topomatch_router_t **out, char *err);
TOPOMATCH_API void topomatch_router_destroy(topomatch_router_t *r);
/* Number of directed link ids (for sizing load arrays). */
TOPOMATCH_API int64_t topomatch_router_nlinks(const topomatch_router_t *r);
/* Select the source PU; later queries are from it (an out-of-range p
 * deselects the source).  The queries below return -1 without a valid
 * source or for q out of range; route() with links = NULL, cap = 0 gives
 * the length. */
TOPOMATCH_API void topomatch_router_source(topomatch_router_t *r, int64_t p);
TOPOMATCH_API int64_t topomatch_router_hops(topomatch_router_t *r, int64_t q);
TOPOMATCH_API double topomatch_router_cost(topomatch_router_t *r, int64_t q);
/* Directed link ids on the route source -> q, in order; returns how many
 * (at most `cap` written; call with cap >= hops). */
TOPOMATCH_API int64_t topomatch_router_route(topomatch_router_t *r, int64_t q,
					     int64_t *links, int64_t cap);
/* The directed ids of the network links at the switch PU p hangs from,
 * each followed by its other direction: on a torus or mesh its router's
 * links to the neighbouring routers, on a hypercube its own, on a graph
 * those between its attachment vertex and the other core vertices (not
 * the trees hanging from it).  Trees: none (their switches are walked as
 * a tree).  Returns how many (at most cap written), -1 for p out of range. */
TOPOMATCH_API int64_t topomatch_router_attach_links(const topomatch_router_t *r, int64_t p,
						    int64_t *links, int64_t cap);

/* ------------------------------------------------------------------ */
/* Link loads of running jobs: contention-aware node choice            */
/* ------------------------------------------------------------------ */

/*
 * A table of the load that running jobs put on the network's links, kept
 * by a scheduler (slurmctld, `topomatch sim`) as jobs start and end, and
 * the score of a candidate placement against it: the job's hop-bytes
 * plus the load its traffic would meet on links that running jobs
 * already use (topomatch-sim(1), "CONTENTION-AWARE NODE CHOICE").
 * Messages are routed with the router above (the metrics' routes), once
 * per pair of nodes.  For job k in the table, placed at pi_k (topology
 * PUs), with activity sigma_k (0..1: the share of its time it
 * communicates):
 *   x_k(l) = sum of C_k(a,b) / c(l) over k's messages crossing link l,
 *            the link load of TopoMapping (ICS 2017, Eq. 5) over c(l),
 *            the link's capacity, 1 / its cost (route position: trees'
 *            and grids' level costs; 1 on graphs); links inside a node
 *            (on routes between two PUs of one node) are left out
 *   L(l)   = sum over the jobs k of sigma_k x_k(l) / max_l' x_k(l')
 * and a candidate placement pi of a job with pattern C scores
 *   HB(pi) = sum of C(a,b) x hops(pi(a), pi(b))        (hop-bytes)
 *   CL(pi) = sum over links l of x(l) L(l)              (contention)
 *   score  = HB + weight x CL
 * (a message crossing a link that another job drives at full rate costs
 * weight more hops).  L is the load term of the contention model of
 * `topomatch sim`, so the choice and the model agree.
 *
 * node_pus: topology PUs per node (nodes are node_pus consecutive PUs,
 * npu a multiple of it; 1: no node-internal links).  Memory: 8 bytes per
 * link id plus 16 per (job, link) entry; max_entries (0: no limit) caps
 * the entries: an add beyond it fails with TOPOMATCH_ELIMIT and leaves
 * the table as it was.  Deterministic (sums in a fixed order).  Not
 * thread-safe: one table, one lock; add, remove and score cost a routing
 * of the job's node pairs, get and the counters O(1).
 */
typedef struct topomatch_link_load topomatch_link_load_t;

typedef struct topomatch_link_score {
	double hop_bytes;  /* HB */
	double contention; /* CL */
	double score;      /* HB + weight x CL */
} topomatch_link_score_t;

/* Default weight of CL against HB (measured: topomatch-sim(1)). */
#define TOPOMATCH_CONTENTION_WEIGHT 1.0

TOPOMATCH_API int topomatch_link_load_create(const topomatch_topology_t *t, int64_t node_pus,
					     int64_t max_entries, topomatch_link_load_t **out,
					     char *err);
TOPOMATCH_API void topomatch_link_load_destroy(topomatch_link_load_t *ll);
/* Job `job` (an id not in the table) with pattern a placed at pu[] (one
 * topology PU per task) starts: its sigma x / max x joins L. */
TOPOMATCH_API int topomatch_link_load_add(topomatch_link_load_t *ll, uint64_t job,
					  const topomatch_affinity_t *a, const int64_t *pu,
					  double activity, char *err);
/* Job `job` ends: its load leaves L (EINVAL when it is not in the table). */
TOPOMATCH_API int topomatch_link_load_remove(topomatch_link_load_t *ll, uint64_t job,
					     char *err);
/* The score of placing a at pu[] (topology PUs) with weight >= 0.  Reads
 * ll only: scores may run side by side on threads (not beside an add or
 * remove). */
TOPOMATCH_API int topomatch_link_load_score(const topomatch_link_load_t *ll,
					    const topomatch_affinity_t *a, const int64_t *pu,
					    double weight, topomatch_link_score_t *out,
					    char *err);
/* The load a message from topology PU p to q meets, hop by hop: met[i] =
 * L(l) / c(l) of the route's i-th link (0 inside nodes); returns the
 * route's length (at most cap written), -1 for p or q out of range. */
TOPOMATCH_API int64_t topomatch_link_load_route(topomatch_link_load_t *ll, int64_t p, int64_t q,
						double *met, int64_t cap);
/* The sum of L(l) over the links at the switch topology PU p hangs from
 * (topomatch_router_attach_links: both directions; 0 on trees), -1 for p
 * out of range or out of memory. */
TOPOMATCH_API double topomatch_link_load_attach(topomatch_link_load_t *ll, int64_t p);
/* L(l) of router link id l (0 out of range or unused). */
TOPOMATCH_API double topomatch_link_load_get(const topomatch_link_load_t *ll, int64_t link);
/* Jobs in the table, and their (job, link) entries. */
TOPOMATCH_API int64_t topomatch_link_load_jobs(const topomatch_link_load_t *ll);
TOPOMATCH_API int64_t topomatch_link_load_entries(const topomatch_link_load_t *ll);

/* ------------------------------------------------------------------ */
/* Mappings and metrics                                                */
/* ------------------------------------------------------------------ */

/*
 * A mapping: pu[i] = the PU of task i.  Metrics (TopoMatch §3.5 and
 * TopoMapping Eq. 1-5), with C as read and d, B from the topology:
 *   hop_bytes = sum_{i != j} C(i,j) d(s(i), s(j))
 *   sum_com   = sum_{i != j} C(i,j) B(s(i), s(j))
 *   max_com   = max_{i != j} C(i,j) B(s(i), s(j))
 *   task_hop_bytes(t) = sum_j (C(t,j) + C(j,t)) d(s(t), s(j))
 *   avg/max_task_hop_bytes over tasks
 *   max_link_load = max over directed links of the C volume routed on it.
 * On graphs B(s(i), s(j)) is the cost of the sender's route, so it may
 * differ from B(s(j), s(i)).
 */
typedef struct topomatch_metrics {
	double hop_bytes;
	double sum_com;
	double max_com;
	double avg_task_hop_bytes;
	double max_task_hop_bytes;
	double max_link_load;
} topomatch_metrics_t;

TOPOMATCH_API int topomatch_metrics_compute(const topomatch_affinity_t *a,
					    const topomatch_topology_t *t,
					    const int64_t *pu, topomatch_metrics_t *m,
					    char *err);
/* The hop_bytes of topomatch_metrics_compute alone (the same value to the
 * bit), without the routes and link loads the other metrics need: its
 * memory is O(ntasks), whatever the machine's size. */
TOPOMATCH_API int topomatch_metrics_hop_bytes(const topomatch_affinity_t *a,
					      const topomatch_topology_t *t,
					      const int64_t *pu, double *hop_bytes, char *err);
/*
 * hops[e], for every entry e of a's C in topomatch_affinity_directed's
 * order, the hop count between the PUs of its two tasks (task k on PU
 * pu[k]; -1 when unreachable), from r, a router of t.  The senders are
 * taken by PU on graphs, so that a graph without switch tables is
 * searched once per source switch however the tasks are numbered (a
 * search per task took minutes for a job of thousands of tasks on 10,240
 * switches); r's source is left changed.
 */
TOPOMATCH_API int topomatch_metrics_edge_hops(const topomatch_topology_t *t,
					      topomatch_router_t *r,
					      const topomatch_affinity_t *a, const int64_t *pu,
					      int64_t *hops, char *err);
/* Per-task hop-bytes into out[ntasks]. */
TOPOMATCH_API int topomatch_metrics_task_hop_bytes(const topomatch_affinity_t *a,
						   const topomatch_topology_t *t,
						   const int64_t *pu, double *out, char *err);

/* Check that pu[] is a valid assignment: every task on an allowed PU
 * (allowed == NULL: any), at most `oversub` (>= 1, else EINVAL) tasks per
 * PU. */
TOPOMATCH_API int topomatch_mapping_check(const topomatch_topology_t *t, int64_t ntasks,
					  const int64_t *pu, const int64_t *allowed,
					  int64_t nallowed, int oversub, char *err);

/* ------------------------------------------------------------------ */
/* Mappers                                                             */
/* ------------------------------------------------------------------ */

/*
 * Partitions the mappers computed, given again to later calls with the
 * same input (a subgraph of the same tasks with the same weights into
 * parts of the same sizes, with the same seed and options): a scheduler
 * that maps patterns of the same kinds and sizes over and over (the node
 * choice, the mapping on the nodes chosen, the next job like it) saves
 * the partitioning that TOPOMATCHCONST repeats.  Results are the same
 * with and without a memo (a partition depends only on its input, which
 * a lookup compares in full; one cut short by a time budget is not
 * kept).  At most max_bytes of entries; the oldest leave first.  Shared
 * by threads safely (one mutex).  Set topomatch_map_opts_t.memo to use one.
 */
typedef struct topomatch_memo topomatch_memo_t;
typedef struct topomatch_memo_stats {
	uint64_t hits, misses; /* lookups that found a partition, that did not */
	uint64_t entries, bytes;
} topomatch_memo_stats_t;
TOPOMATCH_API int topomatch_memo_create(size_t max_bytes, topomatch_memo_t **out, char *err);
TOPOMATCH_API void topomatch_memo_destroy(topomatch_memo_t *m);
TOPOMATCH_API void topomatch_memo_stats(topomatch_memo_t *m, topomatch_memo_stats_t *out);

typedef struct topomatch_map_opts {
	const char *mapper;     /* NULL = "auto"; see topomatch_mapper_names();
				 * "NAME:OPTIONS" passes options to mappers
				 * that take some (greedymap, parmapper) */
	uint64_t seed;          /* default 1 */
	int oversub;            /* at most this many tasks per PU; 0 = 1 */
	const int64_t *allowed; /* allowed PU ids, or NULL = all */
	int64_t nallowed;
	double time_budget_s;   /* wall-clock guard; <= 0: none.  Past it
				 * the call returns within a few ms (every
				 * step looks at the clock; Scotch calls run
				 * where they can be abandoned) with the best
				 * mapping found so far, or the natural
				 * placement when that is better, and
				 * fell_back set.  A run that ends within it
				 * gives what an unbudgeted run gives. */
	double tau;             /* TopoMatch Alg. 1 threshold; <= 0 = 30000 */
	double sparse_factor;   /* TopoMatch Alg. 2: keep weights > max x this
				 * (and those equal to max); in [0, 1] */
	int threads;            /* threads a mapper may use to split independent
				 * work (eagermap, parmapper); 0 = 1, at most
				 * 256.  The result never depends on it. */
	int refine;             /* 1: the local search auto runs after its
				 * mapper (swaps and moves that lower hop-bytes,
				 * work counted) also after a named mapper */
	topomatch_memo_t *memo; /* partitions to reuse and keep (results
				 * unchanged), or NULL */
} topomatch_map_opts_t;

#define TOPOMATCH_DEFAULT_TAU 30000.0
#define TOPOMATCH_DEFAULT_SPARSE_FACTOR 0.5

/* Fill opts with the defaults: auto, seed 1, 1 task per PU, no constraints,
 * no guard, tau 30000, sparse factor 0.5, 1 thread, named mappers not
 * refined, no memo.  (NULL opts mean the same.) */
TOPOMATCH_API void topomatch_map_opts_init(topomatch_map_opts_t *opts);

typedef struct topomatch_map_result {
	char mapper[32]; /* the mapper that produced pu[] */
	int fell_back;   /* 1 when the guard cut a mapper short: pu[]
			  * is then the best mapping found before the
			  * deadline (never worse than the natural
			  * placement), and depends on the machine's speed */
	double time_s;   /* mapping time */
} topomatch_map_result_t;

/*
 * Names of the mappers this build has, NULL-terminated:
 *  auto            TopoMatch Fig. 3: treematch on trees (topomatch-const
 *                  with constraints), scotch otherwise; on a whole tree
 *                  of at most 512 tasks (16,384 matrix entries) also
 *                  topomatch-const and scotch, the lowest hop-bytes
 *                  kept; the natural placement is kept when it is not
 *                  beaten
 *  portfolio       the natural placement, auto's choice, eagermap and
 *                  greedymap, each refined, on threads; the lowest
 *                  hop-bytes wins (result mapper "portfolio:NAME")
 *  round-robin     task i on the i-th allowed PU (the natural placement)
 *  random          a uniformly random assignment from the seed
 *  treematch       TreeMatch / TopoMatch Alg. 1 (trees, no constraints)
 *  topomatch-const TOPOMATCHCONST, TopoMatch Alg. 3 (trees)
 *  scotch          TopoMatch Alg. 2 (Alg. 4 with constraints), any topology
 *  eagermap        EagerMap (TOPC 2019) Alg. 1-5, Alg. 6-7 with task loads,
 *                  §3.6 off trees; any topology
 *  greedymap       GreedyMap (ICS 2017) Alg. 1, one configuration; options
 *                  "greedymap:order=oo|bfs|bfs-dfs|gpart,pack=0|1,delta=N,
 *                  wrap=0|1,cost=hop-bytes|max-hop-bytes"; any topology
 *  parmapper       ParMapper (ICS 2017 §4.2): GreedyMap configurations on
 *                  threads, Pareto choice on average / maximum task
 *                  hop-bytes; options "parmapper:alpha=A,work=W"
 */
TOPOMATCH_API const char *const *topomatch_mapper_names(void);

/* Map ntasks = topomatch_affinity_ntasks(a) tasks; pu[] gets ntasks ids. */
TOPOMATCH_API int topomatch_map(const topomatch_affinity_t *a, const topomatch_topology_t *t,
				const topomatch_map_opts_t *opts, int64_t *pu,
				topomatch_map_result_t *res, char *err);

/*
 * Read a whitespace-separated list of integers (any layout, '#' comments)
 * in [0, bound): constraint files (allowed PUs) and mapping files.
 * `unique` refuses repeated values.  *out is malloc'd.
 */
TOPOMATCH_API int topomatch_read_id_list(const char *path, int64_t bound, int unique,
					 int64_t max_count, int64_t **out, int64_t *count,
					 char *err);

/* ------------------------------------------------------------------ */
/* Pattern generators (topomatch gen)                                  */
/* ------------------------------------------------------------------ */

/*
 * Stencil on an ndims (2 or 3) grid of dims[] tasks, task id first
 * dimension fastest.  points: 5 or 9 (2D), 7 or 27 (3D).  weight[d] is the
 * volume sent across a face orthogonal to dimension d (NULL: all 1);
 * diagonal neighbours get the smallest weight of the dimensions they
 * cross.  periodic: wrap around.  A dimension of size 1 has no neighbour;
 * with periodic size 2 the +-1 messages go to the same task and are summed.
 * Weights finite and >= 0.
 */
TOPOMATCH_API int topomatch_gen_stencil(int ndims, const int *dims, int points, int periodic,
					const double *weight, topomatch_affinity_t **out,
					char *err);
/*
 * Hierarchical pattern (TreeMatch §5.1): ntasks = prod(arity[0..nlevels-1])
 * tasks, arity listed from the innermost group outwards; tasks in the
 * same level-1 group exchange base, then base/ratio between groups of the
 * next level, and so on; each weight is jittered by up to +-jitter (0..1)
 * from the seed so that the matrix is random but clearly hierarchical.
 * Requires ratio > 1, base > 0, (1-jitter)*ratio > 1+jitter; refused
 * (ELIMIT) when ntasks(ntasks-1) > TOPOMATCH_DEFAULT_MAX_NNZ.
 */
TOPOMATCH_API int topomatch_gen_hierarchical(int nlevels, const int *arity, double base,
					     double ratio, double jitter, uint64_t seed,
					     topomatch_affinity_t **out, char *err);
/* Random sparse: each task sends to `degree` distinct random others
 * (0 <= degree < ntasks), whole weights uniform in [1, floor(maxw)],
 * 1 <= maxw <= 2^53. */
TOPOMATCH_API int topomatch_gen_random(int64_t ntasks, int64_t degree, double maxw,
				       uint64_t seed, topomatch_affinity_t **out, char *err);
/* All-to-all: every ordered pair exchanges w > 0 (refused above max_nnz;
 * max_nnz <= 0 means TOPOMATCH_DEFAULT_MAX_NNZ). */
TOPOMATCH_API int topomatch_gen_alltoall(int64_t ntasks, double w, int64_t max_nnz,
					 topomatch_affinity_t **out, char *err);

/* Relabel tasks with a random permutation from `seed`: task i becomes
 * perm[i], C'(perm[i], perm[j]) = C(i,j); loads follow the tasks. */
TOPOMATCH_API int topomatch_affinity_shuffle(const topomatch_affinity_t *a, uint64_t seed,
					     topomatch_affinity_t **out, char *err);

/*
 * The tasks in blocks of `block` consecutive tasks (the last block may
 * have fewer; block > n is n), of the given order or of the pattern's
 * breadth-first order (Cuthill-McKee), whichever cuts less weight between
 * blocks (ties: the given order).  order[] (n entries) gets the tasks in
 * that order: block p is order[p * block ..].  *out is the pattern of the
 * blocks: C'(p, q) the sum of C(i, j) over i in block p, j in block q,
 * p != q; loads summed.  How a job too large to map task by task is
 * mapped node by node (topomatch_cluster_select_blocks).
 */
TOPOMATCH_API int topomatch_affinity_blocks(const topomatch_affinity_t *a, int64_t block,
					    int64_t *order, topomatch_affinity_t **out,
					    char *err);

/*
 * Noise models of TopoMatch §5.5, applied to every entry m of C, with
 * negative results truncated to 0:
 *   GA: m + N(0,k)   GM: m + m N(0,k)   UA: m + U(-k,k)   UM: m + m U(-k,k)
 * Additive models touch the zero entries too (the paper's definition), so
 * they make the matrix dense: refused when n(n-1) exceeds max_nnz (<= 0:
 * the default).  Multiplicative models change only the stored entries.
 * k >= 0 and finite.
 */
typedef enum topomatch_noise {
	TOPOMATCH_NOISE_GA = 1,
	TOPOMATCH_NOISE_GM,
	TOPOMATCH_NOISE_UA,
	TOPOMATCH_NOISE_UM
} topomatch_noise;
/* "ga"/"gaussian-additive", ... -> enum; -1 when unknown. */
TOPOMATCH_API int topomatch_noise_from_name(const char *name);
TOPOMATCH_API int topomatch_affinity_noise(const topomatch_affinity_t *a, int model,
					   double k, uint64_t seed, int64_t max_nnz,
					   topomatch_affinity_t **out, char *err);

/*
 * NAS Parallel Benchmarks-like patterns (topomatch gen cg|lu|mg|ft|bt|sp):
 * models of the communication structure of the NPB 3.x MPI kernels that
 * TopoMatch §5.3 (Fig. 7, 8), EagerMap Fig. 1 and TreeMatch §5.4 map, with
 * bytes estimated from the class's problem size and iteration count.
 * core/pattern/gen_nas.c and topomatch-gen(1) state each model.  Process counts:
 * a square for bt and sp, a power of two for the others (as the NPB
 * require), and the class's grid must give every process at least one
 * point (LU: four, as NPB's LU checks); otherwise EINVAL saying why.
 */
typedef enum topomatch_nas_kernel {
	TOPOMATCH_NAS_CG = 1,
	TOPOMATCH_NAS_LU,
	TOPOMATCH_NAS_MG,
	TOPOMATCH_NAS_FT,
	TOPOMATCH_NAS_BT,
	TOPOMATCH_NAS_SP
} topomatch_nas_kernel;
/* "cg", "lu", "mg", "ft", "bt", "sp" -> kernel; -1 when unknown. */
TOPOMATCH_API int topomatch_nas_from_name(const char *name);
/* nas_class: one of 'S', 'W', 'A', 'B', 'C', 'D', 'E' (NPB classes). */
TOPOMATCH_API int topomatch_gen_nas(int kernel, int64_t ntasks, char nas_class,
				    topomatch_affinity_t **out, char *err);

/*
 * A Cartesian stencil as topomatch_gen_stencil_shape generates it: the
 * stencil of topomatch_gen_stencil with a wrap-around flag per dimension.
 */
typedef struct topomatch_stencil_shape {
	int ndims;                 /* 2 or 3 */
	int dims[3];               /* first dimension fastest */
	int points;                /* 5, 9 (2D); 7, 27 (3D) */
	unsigned char periodic[3]; /* 1: dimension d wraps around */
	double weight[3];          /* volume across a face orthogonal to d */
} topomatch_stencil_shape_t;

TOPOMATCH_API int topomatch_gen_stencil_shape(const topomatch_stencil_shape_t *s,
					      topomatch_affinity_t **out, char *err);
/*
 * Recognise a (recorded) pattern as a 2D or 3D Cartesian stencil in the
 * task order of topomatch_gen_stencil (first dimension fastest; MPI's
 * Cartesian order is the reverse dimension order), every dimension >= 2:
 * every face-neighbour entry is present, each within a factor of 2 of
 * its dimension's mean (the weight kept), the wrap-around entries are
 * present in a dimension or absent, and the entries off the stencil
 * (collectives, diagonals that do not follow topomatch_gen_stencil's
 * rule) weigh at most `tolerance` (0..1) of the total.  Diagonal
 * neighbours make a 9/27-point stencil when all are present and follow
 * that rule.  A dimension of size 2 cannot show whether it wraps: it
 * takes the other dimensions' answer.  Of several matching grids, the
 * one explaining most weight wins (then fewer dimensions, then the
 * first found).  EINVAL with the reason when no grid matches.
 */
TOPOMATCH_API int topomatch_stencil_detect(const topomatch_affinity_t *a, double tolerance,
					   topomatch_stencil_shape_t *shape, char *err);
/*
 * Give s->ndims dimensions whose product is ntasks and whose proportions
 * are closest to s->dims' (least squares on logarithms; ties: the first
 * in lexicographic order); weights and wrap-around are kept.
 */
TOPOMATCH_API int topomatch_stencil_rescale(topomatch_stencil_shape_t *s, int64_t ntasks,
					    char *err);

/* ------------------------------------------------------------------ */
/* Open MPI monitoring output (topomatch convert)                      */
/* ------------------------------------------------------------------ */

/*
 * Open MPI's "monitoring" components (pml, coll, osc; Open MPI 4.x, run
 * with --mca pml_monitoring_enable 1|2 --mca pml_monitoring_enable_output 3
 * --mca pml_monitoring_filename PREFIX) write at MPI_Finalize one file
 * PREFIX.RANK.prof per MPI_COMM_WORLD rank, with lines like
 *   E<TAB>0<TAB>1<TAB>10000 bytes<TAB>10 msgs sent<TAB>HISTOGRAM
 * (rank 0 sent rank 1 10 messages, 10000 bytes).  Kinds of lines (Open
 * MPI 4.1's meaning, checked on recorded runs):
 */
#define TOPOMATCH_OMPI_E 0x01u /* point-to-point, user tags; with
				* pml_monitoring_enable 1: all point-to-point */
#define TOPOMATCH_OMPI_I 0x02u /* point-to-point that collectives and
				* protocols sent (pml_monitoring_enable 2) */
#define TOPOMATCH_OMPI_C 0x04u /* collectives as the coll component books
				* them per peer (the same traffic as I) */
#define TOPOMATCH_OMPI_S 0x08u /* one-sided puts/accumulates, origin -> target */
#define TOPOMATCH_OMPI_R 0x10u /* one-sided gets: "R me peer" = peer -> me */
#define TOPOMATCH_OMPI_ALL 0x1fu
/* E + I: every message the PML carried, whatever pml_monitoring_enable was
 * (with 1 Open MPI books them all as E, with 2 it splits them into E, I). */
#define TOPOMATCH_OMPI_DEFAULT_KINDS (TOPOMATCH_OMPI_E | TOPOMATCH_OMPI_I)

typedef enum topomatch_ompi_metric {
	TOPOMATCH_OMPI_BYTES = 0,
	TOPOMATCH_OMPI_MSGS = 1
} topomatch_ompi_metric;

typedef struct topomatch_ompi_opts {
	unsigned kinds;            /* TOPOMATCH_OMPI_* bits; 0 = the default */
	int metric;                /* topomatch_ompi_metric */
	int64_t nranks;            /* 0: the highest rank with a file + 1 */
	topomatch_limits_t limits; /* ranks, entries, and bytes per file */
} topomatch_ompi_opts_t;

/* What the files held: data lines per kind (selected or not), E I C S R. */
typedef struct topomatch_ompi_info {
	int64_t nranks;
	int64_t files;
	int64_t lines[5];
} topomatch_ompi_info_t;

/* "E,I,C" (any case), "all" -> kinds; EINVAL with a message when bad. */
TOPOMATCH_API int topomatch_ompi_kinds_parse(const char *s, unsigned *kinds, char *err);

/*
 * Collect the files of one run, then build the pattern C(i,j) = what rank
 * i sent rank j in the selected kinds (bytes or messages).  Each add reads
 * one rank's file as a stream through a bounded line buffer (lines longer
 * than 16 KiB are refused, except the communicator lines "D NAME procs:
 * LIST", whose list is skipped), checks every line (file:line messages)
 * whichever kinds are selected, and either keeps all of the file or
 * nothing: after a failed add, m is as it was.  finish checks that every
 * rank 0..n-1 has exactly one file and every peer is below n.
 */
typedef struct topomatch_ompi topomatch_ompi_t;
TOPOMATCH_API int topomatch_ompi_create(const topomatch_ompi_opts_t *opts,
					topomatch_ompi_t **out, char *err);
/* One rank's output from a stream; rank < 0: the rank its lines name. */
TOPOMATCH_API int topomatch_ompi_add(topomatch_ompi_t *m, FILE *in, const char *name,
				     int64_t rank, char *err);
/* A file; its rank from a name ending in ".RANK.prof", else from its lines. */
TOPOMATCH_API int topomatch_ompi_add_file(topomatch_ompi_t *m, const char *path, char *err);
/* Every file PREFIX.RANK.prof (RANK in canonical decimal), in rank order;
 * *nfiles (may be NULL) gets their count; EIO when there is none. */
TOPOMATCH_API int topomatch_ompi_add_prefix(topomatch_ompi_t *m, const char *prefix,
					    int64_t *nfiles, char *err);
/* The pattern (info may be NULL); m is unchanged and still usable. */
TOPOMATCH_API int topomatch_ompi_finish(const topomatch_ompi_t *m, topomatch_affinity_t **out,
					topomatch_ompi_info_t *info, char *err);
TOPOMATCH_API void topomatch_ompi_destroy(topomatch_ompi_t *m);

/* ------------------------------------------------------------------ */
/* Pattern blobs: the pattern in a job's spank_job_env                 */
/* ------------------------------------------------------------------ */

/*
 * sbatch --comm-pattern (SPANK plugin, running as the user) encodes the
 * symmetric affinity A = C + C^T into a few printable strings that travel
 * in the job's spank_job_env as TOPOMATCH_PATTERN_0, TOPOMATCH_PATTERN_1,
 * ...; slurmctld's select plugin decodes them.  Any user can put anything
 * there, so the decoder treats its input as hostile: it checks every
 * field, reads nothing past the given strings, and its time and memory
 * are proportional to the input size and the pattern it decodes to
 * (bounded by max_tasks and max_edges: repeated rows of a structured
 * pattern cost almost no bytes).  The checksum in the strings
 * catches corruption and truncation, not forgery.  The format is
 * described at the top of core/pattern/pattern_blob.c.
 */
#define TOPOMATCH_PATTERN_ENV "TOPOMATCH_PATTERN_"

#define TOPOMATCH_BLOB_MAX_ENTRY ((size_t)65536)   /* bytes, NUL included */
#define TOPOMATCH_BLOB_MAX_TOTAL ((size_t)524288)  /* all entries, NULs included */
#define TOPOMATCH_BLOB_MAX_TASKS (INT64_C(1) << 20)
#define TOPOMATCH_BLOB_MAX_EDGES (INT64_C(1) << 21) /* 2,097,152: ~100 MB decoded */
#define TOPOMATCH_BLOB_MAX_ENTRIES 65535           /* the format's own bound */
#define TOPOMATCH_BLOB_MAX_GROUP 4096              /* tasks per vertex (below) */

/* Limits on the strings; 0 in a field means the default above.  Sizes
 * count the values only: each NAME= adds about 20 bytes in the env. */
typedef struct topomatch_blob_limits {
	size_t max_entry;  /* one string, NUL included */
	size_t max_total;  /* all strings, NULs included */
	int64_t max_tasks;
	int64_t max_edges; /* edges (i < j) kept by the encoder, read by the decoder */
	/* encoder only: the largest group of consecutive tasks it may make
	 * one vertex of when the tasks do not fit one by one (0 or 1: it
	 * never groups them); the decoder takes groups up to
	 * TOPOMATCH_BLOB_MAX_GROUP */
	int64_t max_group;
} topomatch_blob_limits_t;

/*
 * What the blob holds.  Edges are the undirected entries of A (i < j);
 * weights are A's, so weight_input is the total of C.  Every dropped edge
 * weighs at most sparse_factor x the largest weight (warn with
 * 100 x (1 - weight_kept / weight_input) "% of the communication weight
 * dropped").  After decoding, the *_input fields and sparse_factor are
 * what the encoder recorded (informative only: a hostile blob can lie).
 */
typedef struct topomatch_blob_info {
	int64_t ntasks;       /* the pattern's tasks */
	/* tasks per vertex: 1, or the pattern is held in groups of `group`
	 * consecutive tasks, vertex v the tasks v x group .. v x group +
	 * group - 1, whose traffic inside a group is left out; the edge
	 * and weight fields below are then those of the groups' pattern */
	int64_t group;
	int64_t nnz_input;    /* edges of A before sparsification */
	int64_t nnz_kept;     /* edges in the blob */
	double weight_input;  /* their total weight */
	double weight_kept;
	double sparse_factor; /* the factor actually applied, >= the requested one */
	size_t bytes;         /* size of the strings, NULs included */
} topomatch_blob_info_t;

/*
 * Encode a.  First keep the edges with w > max x sparse_factor (0..1) and
 * those of the largest weight, plus each task's heaviest edge so that no
 * task is isolated; when that does not fit the limits, drop more edges,
 * lightest first (equal weights: in a fixed pseudo-random order, so that
 * the losses spread over the pattern), never a task's heaviest.  Weights
 * are kept to a relative error of 2^-11.  *entries is a malloc'd array of
 * *nentries malloc'd strings of printable ASCII ([A-Za-z0-9_-]), in the
 * order of their names TOPOMATCH_PATTERN_0, 1, ...  Deterministic: the
 * same pattern and arguments give the same strings on every machine.
 * lim and info may be NULL.  ELIMIT when even one edge per task does not
 * fit or the pattern has more than max_tasks tasks, unless lim->max_group
 * allows groups: then the tasks go in groups of g consecutive tasks, g
 * the first of 2, 4, 8, ... then the other divisors of the task count,
 * up to max_group, whose pattern (traffic inside a group left out) fits
 * (info->group; format version 3).  Loads are not kept.
 */
TOPOMATCH_API int topomatch_blob_encode(const topomatch_affinity_t *a, double sparse_factor,
					const topomatch_blob_limits_t *lim, char ***entries,
					int *nentries, topomatch_blob_info_t *info, char *err);
/* Free what topomatch_blob_encode returned (NULL is fine). */
TOPOMATCH_API void topomatch_blob_free(char **entries, int nentries);

/*
 * Decode entries[0..nentries-1] (the values of TOPOMATCH_PATTERN_0, ...
 * in that order).  Malformed input gives TOPOMATCH_EPARSE, input beyond
 * lim TOPOMATCH_ELIMIT, both with a message naming the entry or the
 * payload byte.  The affinity has C(i,j) = C(j,i) = A(i,j) / 2, so A is
 * the encoded one and C's total is weight_kept (up to the rounding of the
 * weights).  A blob of groups (info->group > 1) decodes to the groups'
 * pattern, of ntasks / group vertices.  The caller still checks the task
 * count (info->ntasks) against the job's.
 * info (may be NULL) is zeroed on any error, except that an ELIMIT for a
 * payload header beyond lim leaves the header's ntasks and nnz_kept there
 * (so a caller can tell which limit the blob passed).
 */
TOPOMATCH_API int topomatch_blob_decode(const char *const *entries, int nentries,
					const topomatch_blob_limits_t *lim,
					topomatch_affinity_t **out, topomatch_blob_info_t *info,
					char *err);

/*
 * Same from an environment array of "NAME=VALUE" strings (a job's
 * spank_job_env, NULL elements skipped): collects prefix0, prefix1, ...
 * (prefix NULL: TOPOMATCH_PATTERN_ENV; names with the prefix must end in
 * a canonical decimal index; duplicates and gaps are errors).  Without
 * any such name: TOPOMATCH_OK with *out = NULL (the job has no pattern).
 */
TOPOMATCH_API int topomatch_blob_decode_env(const char *const *env, size_t nenv,
					    const char *prefix,
					    const topomatch_blob_limits_t *lim,
					    topomatch_affinity_t **out,
					    topomatch_blob_info_t *info, char *err);

/*
 * The pattern format auto-detection finds in buf (TOPOMATCH_FORMAT_DENSE,
 * _MM, _TRIPLETS or _GRF), with a phrase saying why in *why (static, may
 * be NULL) and, in *ambiguous (may be NULL), 1 when the text reads as
 * well as a dense matrix that is not square as 'i j w' triplets: the
 * readers refuse it under TOPOMATCH_FORMAT_AUTO.
 */
TOPOMATCH_API int topomatch_affinity_detect(const char *buf, size_t len, const char **why,
					    int *ambiguous);

/* topomatch_topology_parse() of len bytes (not NUL-terminated; a NUL byte
 * is an error): a target read from a file, a pipe or a compressed file. */
TOPOMATCH_API int topomatch_topology_parse_buffer(const char *buf, size_t len, const char *name,
						  topomatch_topology_t **out, char *err);

#ifdef __cplusplus
}
#endif

#endif /* TOPOMATCH_H */

#!/usr/bin/python3
# bench/bound_stencil.py - lower bounds on the hop-bytes of ANY one-to-one
# placement of tm_bench's shuffled-stencil fat-tree cases (tree-1k, frag-1k,
# tree-4k), to tell how far below Scotch at its best a mapper can go at all
# (issue 19: the `fat-trees` target of tm_bench).
#
#   bound_stencil.py [--tm-bench PATH/tm_bench]
#
# Prints per case Scotch's best and auto's hop-bytes (tm_bench's
# scotch-direct and auto rows: recorded below, or measured again with
# --tm-bench, which runs `tm_bench --case NAME` for each case), the lower
# bound, the hop-bytes of an explicit placement built here (an upper bound
# on the optimum), and the ratios; then the geometric means over the three
# cases, the quantity of tm_bench's `fat-trees` target.
#
# The cases (bench/tm_bench.c): the 7-point stencil on an a x b x c grid
# (not periodic; a task sends w = 1000, 500, 100 bytes to each of its x, y,
# z neighbours, C(i,j) directed), all tasks on distinct PUs of a fat tree:
#   tree-1k  16 x 8 x 8    on "tleaf 3 32 100 2 10 16 1"   (every PU used)
#   tree-4k  16 x 16 x 16  on "tleaf 3 128 100 2 10 16 1"  (every PU used)
#   frag-1k  16 x 8 x 8    on "tleaf 4 8 1000 16 100 2 10 16 1", the 32
#            nodes tm_bench's frag_allowed() draws (seed 1; reproduced
#            below), all 1,024 of their PUs used.
#
# 1. Hop-bytes as cuts.  tm_bench scores hop-bytes = sum_{i != j} C(i,j)
# d(s(i), s(j)) with d = 2 x (levels above the lowest common ancestor)
# (core/topomatch.h; the tleaf link costs 100/10/1 are Scotch's, not the
# metric's).  So for tasks i != j, d = 2 x (1 + [other socket] + [other
# node] + [other leaf switch, on the 4-level tree]), and
#   hop-bytes = 2 x (W + cut_socket + cut_node [+ cut_switch]),
# W = sum C (fixed), cut_X = the directed bytes between tasks in different
# subtrees of level X.  Each subtree of level X holds a fixed number of
# tasks (every allowed PU gets a task): sockets 16, nodes 32, and on
# frag-1k the leaf switches 32 x (its free nodes): 4, 2, 3, 3, 6, 6, 4, 4
# nodes, i.e. parts of 128, 64, 96, 96, 192, 192, 128, 128 tasks.  All that
# matters of the free-node set's distances is this grouping (the root is
# the common ancestor of any two switches).  Each cut is bounded below on
# its own, so the bound holds for every placement, whatever the mapper.
#
# 2. A cut as boundaries.  Let w(e) be the face weight of a grid edge (the
# directed bytes on it are 2 w(e)).  For a part P of the grid let B(P) be
# its edge boundary in Z^3: the weight of the cells' faces towards cells
# not in P, the faces on the grid's outer surface included.  Every cut edge
# is counted twice over the parts, every outer face once, so
#   sum_P B(P) = 2 x (undirected cut) + S,   S = B(whole grid),
# and  directed cut = 2 x undirected cut >= sum_P g(|P|) - S,
# with g(m) = min { B(P) : P a set of m cells of the a x b x c box }.
#
# 3. g(m), the edge-isoperimetric problem of a box with a weight per
# direction.  Compression (Bollobas and Leader, "Edge-isoperimetric
# inequalities in the grid", Combinatorica 11(4), 1991; Ahlswede and
# Bezrukov, "Edge isoperimetric theorems for integer point arrays", Appl.
# Math. Lett. 8(2), 1995; Harper, "Global Methods for Combinatorial
# Isoperimetric Problems", CUP 2004, ch. 3): replacing P's cells on every
# x-line by an initial segment of as many cells keeps |P| and does not
# raise B(P) -- on each x-line a non-empty set has >= 2 boundary faces
# (runs have two ends; the box's end faces count), an initial segment
# exactly 2; between two parallel x-lines T1, T2 the y (or z) faces number
# |T1 xor T2| >= ||T1| - |T2||, reached by initial segments; the outer y
# and z faces of a line number |T|, unchanged.  Each direction's faces are
# handled on their own, so per-direction weights change nothing.  A
# compression that changes P lowers the sum of its coordinates, so
# compressing in x, y, z in turn ends at a down-set (x in P, y <= x => y
# in P).  For a down-set D every line it meets is an interval, so
#   B(D) = 2 (w_x |D_yz| + w_y |D_xz| + w_z |D_xy|),
# D_yz etc. its projections.  Write D's layer z (a 2D down-set of the
# x-y plane) as L_z, its x and y extents p_z, q_z: then |D_yz| =
# sum_z q_z, |D_xz| = sum_z p_z, |D_xy| = |L_0| = k, the extents do not
# increase with z, L_z is in L_0 and in the p_z x q_z rectangle, so
#   |D| = sum_z |L_z| <= sum_z min(k, p_z q_z).
# Hence g(m) >= 2 min { sum_z (w_x q_z + w_y p_z) + w_z k :
#                       p_0 >= p_1 >= ... (<= a), q_0 >= q_1 >= ... (<= b),
#                       z < c, 1 <= k <= p_0 q_0,
#                       sum_z min(k, p_z q_z) >= m },
# a relaxation (every down-set of m cells is feasible), which iso_half()
# solves exactly by a dynamic programme over the layers for each k.  It is
# tight on the sizes here: a 4x4x1 box reaches it at 16, 8x4x1 at 32,
# 16x8x1 at 128 and 16x6x2 at 192 (a 13x5 rectangle less a cell at 64).
#
# For tree-1k and tree-4k the socket and node bounds are reached together
# by one placement (sockets 4x4x1 boxes, nodes 8x4x1 boxes, stacked along
# z), which upper_tree() builds and scores: the bound is the optimum.  For
# frag-1k the switch parts (64 to 192 tasks) cannot all take an optimal
# shape together in a 16x8x8 box, so its bound is below the best
# placement known; upper_frag() places the 8x4x1 node tiles on the
# switches by a seeded local search and scores the placement (the socket
# and node cuts optimal, the switch cut what the search finds): the
# optimum lies between the two numbers printed.  A stronger bound there
# would need the parts' shapes coupled, which this script does not attempt
# in general; but it settles the placements whose node cut is at its
# bound (node_optimal_frag()).  The node cut is at its bound
# only if every node's 32 tasks P have B(P) = g(32).  For ANY set P (no
# compression), with s_z, r_z, c_z the cells, y-rows and x-columns of its
# layer z: each x-line (y-row) met has >= 2 boundary faces, and so on, so
#   B(P) / 2 >= sum_z (w_x r_z + w_y c_z) + w_z |P_xy|,
#   s_z <= min(|P_xy|, r_z c_z):
# the relaxation of part 3 without the monotone extents.  Enumerated
# (layer_optima()), its minimum for 32 cells in 16x8x8 is g(32) / 2 and is
# reached only by one layer with r = 4, c = 8, |P_xy| = 32: equality then
# means one layer, 32 = 4 x 8 cells filling the product of 4 rows and 8
# columns, each line an interval: an 8x4x1 box.  So the node cut is at its
# bound only when the 32 nodes are 8x4x1 boxes tiling 16x8x8, i.e. the
# 2 x 2 x 8 grid of tiles of upper_frag() (each layer 16x8 is tiled by
# 8x4 rectangles in one way).  The switch cut is then a partition of that
# tile grid into parts of 4, 2, 3, 3, 6, 6, 4, 4 tiles, and part 2's
# argument on the tile grid
# (faces 4,000 across x and y, 3,200 across z; its g() checked against
# every tile set of those sizes) bounds it by 96,800 bytes one way.  Cuts
# of the tile grid are multiples of 800 (5a + 4b of them), so 96,800 is
# possible only if every part has its optimal shape; no tiling by such
# shapes exists (an exhaustive exact cover), so every such placement has a
# switch cut of at least 97,600 bytes one way, 195,200 directed: the
# script's placement, 8,633,600 hop-bytes, is the best of them, and any
# better placement gives up the node optimum.
#
# Needs numpy (Debian: python3-numpy).
# SPDX-License-Identifier: GPL-2.0-or-later
import itertools
import math
import subprocess
import sys

import numpy as np

FACE = (1000.0, 500.0, 100.0)  # tm_bench's face_weight[]: x, y, z

# tm_bench's scotch-direct (the best of its 15 settings, one-to-one) and
# auto rows, hop-bytes (deterministic): libtopomatch at 6199dae, Scotch
# 7.0.3, 2026-11-27.  --tm-bench measures them again.
RECORDED = {
    'tree-1k': (8243200, 8243200),
    'frag-1k': (8681600, 8665600),
    'tree-4k': (35150400, 34816000),
}

# tm_bench's frag_allowed(): FRAG_PICK = 32 of FRAG_NODES = 128 nodes,
# partial Fisher-Yates from topomatch_rng (xoshiro256** seeded by
# splitmix64, core/base/rng.c) with SEED 1.
M64 = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        x, self.s = seed, []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s

        def rotl(v, k):
            return ((v << k) | (v >> (64 - k))) & M64
        res = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return res

    def below(self, bound):
        if bound <= 1:
            return 0
        limit = M64 - M64 % bound
        while True:
            v = self.next()
            if v < limit:
                return v % bound


def frag_nodes(nodes=128, pick=32, seed=1):
    node = list(range(nodes))
    rng = Rng(seed)
    for i in range(pick):
        j = i + rng.below(nodes - i)
        node[i], node[j] = node[j], node[i]
    return sorted(node[:pick])


# name, grid, tleaf arities (root first), PUs per node, free nodes (None: all)
CASES = (
    ('tree-1k', (16, 8, 8), (32, 2, 16), None),
    ('frag-1k', (16, 8, 8), (8, 16, 2, 16), frag_nodes()),
    ('tree-4k', (16, 16, 16), (128, 2, 16), None),
)


def iso_half(m, box, w=FACE):
    """min of sum_z (w_x q_z + w_y p_z) + w_z k over the relaxation of the
    header (part 3): g(m) >= 2 x this."""
    a, b, c = box
    wx, wy, wz = w
    pp = np.arange(a + 1)[:, None]
    qq = np.arange(b + 1)[None, :]
    lcost = wx * qq + wy * pp
    inf = math.inf
    best = inf
    for k in range(1, min(m, a * b) + 1):
        val = np.minimum(k, pp * qq)
        f = np.full((a + 1, b + 1, m + 1), inf)  # last layer (p, q), volume
        ok = pp * qq >= k
        f[:, :, min(m, k)] = np.where(ok, lcost, inf)
        for _ in range(1, c):
            # the next layer's extents are at most the last one's
            g = np.minimum.accumulate(f[::-1], axis=0)[::-1]
            g = np.minimum.accumulate(g[:, ::-1], axis=1)[:, ::-1]
            nf = np.full_like(f, inf)
            for p in range(a + 1):
                for q in range(b + 1):
                    v = int(val[p, q])
                    if v == 0:  # empty layer, free (a relaxation)
                        nf[p, q] = g[p, q]
                        continue
                    row = g[p, q] + lcost[p, q]
                    sh = np.full(m + 1, inf)
                    sh[v:] = row[:m + 1 - v]
                    sh[m] = min(sh[m], row[m - v:].min())
                    nf[p, q] = sh
            f = nf
        best = min(best, f[:, :, m].min() + wz * k)
    return best


def surface(box, w=FACE):
    a, b, c = box
    return 2.0 * (w[0] * b * c + w[1] * a * c + w[2] * a * b)


def stencil_w(box, w=FACE):
    """W = sum of C(i,j), directed."""
    a, b, c = box
    und = w[0] * (a - 1) * b * c + w[1] * a * (b - 1) * c + w[2] * a * b * (c - 1)
    return 2.0 * und


def level_parts(arity, free):
    """Task counts of the subtrees at each depth below the root (every
    allowed PU used): a list per depth 1 .. L-1."""
    node_pus = arity[-2] * arity[-1]  # nodes are two levels above the PUs
    nnodes = int(np.prod(arity[:-2]))
    free = list(range(nnodes)) if free is None else free
    parts = []
    for depth in range(1, len(arity)):
        if depth <= len(arity) - 2:  # above or at the nodes
            per = int(np.prod(arity[depth:len(arity) - 2]))  # nodes per subtree
            cnt = {}
            for n in free:
                cnt[n // per] = cnt.get(n // per, 0) + node_pus
            parts.append(sorted(cnt.values()))
        else:  # sockets
            parts.append([arity[-1]] * (len(free) * arity[-2]))
    return parts


def lower_bound(box, arity, free, cache):
    """hop-bytes >= 2 (W + sum of the levels' cut bounds); per level the
    directed cut bound sum g - S (part 2)."""
    cuts = []
    for sizes in level_parts(arity, free):
        tot = 0.0
        for s in sizes:
            if (s, box) not in cache:
                cache[(s, box)] = 2.0 * iso_half(s, box)
            tot += cache[(s, box)]
        cuts.append(max(0.0, tot - surface(box)))
    return 2.0 * (stencil_w(box) + sum(cuts)), cuts


def hop_bytes(pu, arity, w=FACE):
    """tm_bench's hop-bytes of the placement pu[x, y, z] on the tree."""
    sizes = [int(np.prod(arity[t:])) for t in range(1, len(arity))] + [1]
    total = 0.0
    for d in range(3):
        n = pu.shape[d]
        u = np.take(pu, range(n - 1), axis=d).ravel()
        v = np.take(pu, range(1, n), axis=d).ravel()
        hops = sum(2 * (u // s != v // s) for s in sizes)
        total += 2.0 * w[d] * hops.sum()  # both directions
    return total


def tile_pu(box, node_of_tile, node_pus):
    """Place the grid in 8x4x1 node tiles, each two 4x4x1 socket tiles:
    node_of_tile[i, j, z] is the node of tile (x // 8, y // 4, z)."""
    a, b, c = box
    x, y, z = np.meshgrid(np.arange(a), np.arange(b), np.arange(c), indexing='ij')
    node = node_of_tile[x // 8, y // 4, z]
    core = ((x % 8) // 4) * 16 + (y % 4) * 4 + (x % 4)
    return node * node_pus + core


def upper_tree(box, arity):
    ti, tj, tz = box[0] // 8, box[1] // 4, box[2]
    node_of_tile = np.arange(ti * tj * tz).reshape(ti, tj, tz)
    return hop_bytes(tile_pu(box, node_of_tile, arity[-2] * arity[-1]), arity)


def upper_frag(box, arity, free, restarts=40, seed=1):
    """The node tiles (a 2 x 2 x 8 grid of them) onto the switches: a
    seeded local search (swaps of tiles of two switches) for the lowest
    switch cut, then the full placement scored."""
    ti, tj, tz = box[0] // 8, box[1] // 4, box[2]
    per = arity[1]
    groups = sorted(set(n // per for n in free))
    label = np.array([n // per for n in free])  # a tile per free node
    # tile adjacency: face weights between tiles
    ids = np.arange(ti * tj * tz).reshape(ti, tj, tz)
    edges = []
    for d, wt in ((0, 4 * FACE[0]), (1, 8 * FACE[1]), (2, 32 * FACE[2])):
        n = ids.shape[d]
        u = np.take(ids, range(n - 1), axis=d).ravel()
        v = np.take(ids, range(1, n), axis=d).ravel()
        edges += [(int(p), int(q), wt) for p, q in zip(u, v)]
    eu = np.array([e[0] for e in edges])
    ev = np.array([e[1] for e in edges])
    ew = np.array([e[2] for e in edges])

    def cut(lab):
        return float((ew * (lab[eu] != lab[ev])).sum())

    rng = np.random.default_rng(seed)
    best_lab, best = None, math.inf
    for _ in range(restarts):
        lab = rng.permutation(label)
        cur = cut(lab)
        improved = True
        while improved:
            improved = False
            for i in range(len(lab)):
                for j in range(i + 1, len(lab)):
                    if lab[i] == lab[j]:
                        continue
                    lab[i], lab[j] = lab[j], lab[i]
                    c2 = cut(lab)
                    if c2 < cur:
                        cur, improved = c2, True
                    else:
                        lab[i], lab[j] = lab[j], lab[i]
        if cur < best:
            best, best_lab = cur, lab.copy()
    # tiles of switch s take that switch's free nodes, in order
    node_of_tile = np.empty(ti * tj * tz, dtype=np.int64)
    avail = {s: [n for n in free if n // per == s] for s in groups}
    for t in range(ti * tj * tz):
        node_of_tile[t] = avail[best_lab[t]].pop(0)
    pu = tile_pu(box, node_of_tile.reshape(ti, tj, tz), arity[-2] * arity[-1])
    return hop_bytes(pu, arity)


def layer_optima(m, box, w, target):
    """The configurations (|P_xy|, the layers' (c_z, r_z)) of the
    relaxation without monotone extents (header, the last paragraph) that
    cost at most target; it bounds B(P) / 2 for any set P of m cells."""
    a, b, c = box
    wx, wy, wz = w
    sols = []
    for k in range(1, min(m, a * b) + 1):
        budget = target - wz * k
        lay = sorted(((wx * q + wy * p, min(k, p * q), p, q)
                      for p in range(1, a + 1) for q in range(1, b + 1)),
                     key=lambda t: (-t[1], t[0]))

        def rec(i, left, vol, cost, acc):
            if vol >= m:
                sols.append((cost + wz * k, k, tuple(acc)))
                return
            for j in range(i, len(lay) if left else i):
                cst, v, p, q = lay[j]
                if cost + cst <= budget:
                    rec(j, left - 1, vol + v, cost + cst, acc + [(p, q)])
        rec(0, c, 0, 0.0, [])
    return sols


def node_optimal_frag(free, per=16):
    """The least switch cut (bytes one way) of the placements of frag-1k
    with the node cut at its bound (header, the last paragraph); None when
    the node's optimal shape is not the one box this relies on."""
    if layer_optima(32, (16, 8, 8), FACE, iso_half(32, (16, 8, 8))) != \
            [(11200.0, 32, ((8, 4),))]:
        return None
    tiles = 32  # 2 x 2 x 8, tile id = i + 2 j + 4 z
    tbox, tw = (2, 2, 8), (4 * FACE[0], 8 * FACE[1], 32 * FACE[2])
    wm = np.zeros((tiles, tiles))
    for t in range(tiles):
        z = t // 4
        for d, (u, wt) in enumerate(((t ^ 1, tw[0]), (t ^ 2, tw[1]), (t + 4, tw[2]))):
            if d < 2 or z < 7:
                wm[t, u] = wm[u, t] = wt
    face = 2.0 * sum(tw)  # all six faces of a tile
    sizes = sorted((sum(1 for n in free if n // per == s) for s in set(n // per for n in free)),
                   reverse=True)
    opt = {}
    for m in set(sizes):
        gm = 2.0 * iso_half(m, tbox, tw)
        combos = np.array(list(itertools.combinations(range(tiles), m)), dtype=np.int64)
        inner = np.zeros(len(combos))
        for x, y in itertools.combinations(range(m), 2):
            inner += wm[combos[:, x], combos[:, y]]
        bnd = face * m - 2.0 * inner
        if bnd.min() < gm:
            sys.exit('bound_stencil.py: a tile set below g(%d): a bug' % m)
        opt[m] = [sum(1 << int(t) for t in c) for c in combos[bnd == gm]]
    lb = (sum(2.0 * iso_half(m, tbox, tw) for m in sizes) - surface(tbox, tw)) / 2

    def cover(used, left):  # a tiling by optimal shapes? lowest free tile first
        if not left:
            return True
        t = next(k for k in range(tiles) if not used >> k & 1)
        for m in set(left):
            rest = list(left)
            rest.remove(m)
            for s in opt[m]:
                if s >> t & 1 and not s & used and cover(used | s, rest):
                    return True
        return False
    if not cover(0, sizes):  # above lb, and a multiple of the faces' gcd
        step = math.gcd(*(int(x) for x in tw))
        lb = (math.floor(lb / step) + 1) * step
    return lb


def measure(tm_bench, name):
    out = subprocess.run([tm_bench, '--case', name], check=True,
                         capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 2 and f[0] == name and f[1] in ('scotch-direct', 'auto'):
            got[f[1]] = int(f[2])
    return got['scotch-direct'], got['auto']


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def main():
    args = sys.argv[1:]
    tm_bench = None
    if args[:1] == ['--tm-bench'] and len(args) == 2:
        tm_bench = args[1]
    elif args:
        sys.exit('usage: bound_stencil.py [--tm-bench PATH/tm_bench]')
    cache = {}
    rows = []
    print('# hop-bytes; the bound holds for any one-to-one placement; "placement": '
          'one built here (an upper bound on the optimum)')
    print('%-8s %10s %10s %10s %10s  %9s %9s %9s %9s' %
          ('case', 'scotch', 'auto', 'bound', 'placement', 'auto/sc', 'bound/sc',
           'place/sc', 'auto/bnd'))
    for name, box, arity, free in CASES:
        sc, au = measure(tm_bench, name) if tm_bench else RECORDED[name]
        lb, cuts = lower_bound(box, arity, free, cache)
        ub = upper_frag(box, arity, free) if free else upper_tree(box, arity)
        if ub < lb - 0.5:
            sys.exit('bound_stencil.py: %s: a placement below the bound: a bug' % name)
        rows.append((sc, au, lb, ub))
        print('%-8s %10d %10d %10d %10d  %9.5f %9.5f %9.5f %9.5f' %
              (name, sc, au, lb, ub, au / sc, lb / sc, ub / sc, au / lb))
        lv = ['switch', 'node', 'socket'][-len(cuts):]
        print('#   W %d; cut bounds (directed bytes): %s' %
              (stencil_w(box), ', '.join('%s %d' % (n, c) for n, c in zip(lv, cuts))))
    print('%-8s %10s %10s %10s %10s  %9.5f %9.5f %9.5f %9.5f' %
          ('geomean', '', '', '', '',
           gmean([r[1] / r[0] for r in rows]), gmean([r[2] / r[0] for r in rows]),
           gmean([r[3] / r[0] for r in rows]), gmean([r[1] / r[2] for r in rows])))
    print('# no placement gets the geometric mean of hop-bytes / scotch below %.5f'
          % gmean([r[2] / r[0] for r in rows]))
    name, box, arity, free = CASES[1]
    lbs, cuts = lower_bound(box, arity, free, cache)
    sw = node_optimal_frag(free, arity[1])
    if sw is not None:
        print('# %s with the node cut at its bound: switch cut >= %d directed, '
              'hop-bytes >= %d' % (name, 2 * sw, lbs + 2.0 * (2 * sw - cuts[0])))


if __name__ == '__main__':
    main()

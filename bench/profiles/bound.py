#!/usr/bin/python3
# bench/profiles/bound.py - a lower bound on the hop-bytes of any one-to-one
# placement of a recorded profile on a 3-level fat tree that it fills, to
# tell whether the natural placement can be beaten at all (issue 19,
# point 4: "where natural order is already optimal, show it").
#
#   bound.py PROFILE.sum.mat NODES SOCKETS CORES
#
# e.g. bound.py gromacs-water-64.sum.mat 8 2 4 for tm_bench's gmx-64-c8
# ("tleaf 3 8 100 2 10 4 1").  Prints the natural placement's hop-bytes
# (rank i on PU i; the same number as tm_bench's natural row), the bound,
# and their ratio: natural / bound = 1 proves natural optimal, and in
# general no mapper can gain more than 1 - bound / natural.
#
# Why it is a bound: with every PU used, two tasks are 2, 4 or 6 hops
# apart (same socket, same node, other node), so
#   hop-bytes = 2 x (W + cut_socket + cut_node),
# W = sum of C(i,j) over i != j (fixed), cut_X = the bytes between tasks in
# different groups of the level X (k groups of m tasks each).  Each cut is
# bounded below on its own, by the larger of:
# - the spectral bound of Donath and Hoffman (IBM J. Res. Dev. 17(5),
#   1973): for the Laplacian L of A = C + C^T, cut >= (m / 2) x (sum of the k
#   smallest eigenvalues of L + diag(d)), for any d summing to 0 (d adds
#   sum(d) = 0 to every partition's cut); d is improved by projected
#   subgradient ascent (the sum of the k smallest eigenvalues is concave);
# - the neighbour bound: a task shares its group with m - 1 others, so at
#   most its m - 1 heaviest weights stay inside: cut >= (1/2) sum_i (deg_i -
#   its m - 1 largest A(i, j)).
# Needs numpy (Debian: python3-numpy).
# SPDX-License-Identifier: GPL-2.0-or-later
import sys

import numpy as np


def read_dense(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            rows.append([float(x) for x in line.split()])
    c = np.array(rows)
    np.fill_diagonal(c, 0.0)  # the readers ignore self-sends
    return c


def spectral(a, k, m, iters=300):
    """Donath-Hoffman with a diagonal shift, by subgradient ascent."""
    lap = np.diag(a.sum(axis=1)) - a
    n = a.shape[0]
    d = np.zeros(n)
    best = 0.0
    scale = np.abs(lap).max() or 1.0
    for t in range(iters):
        w, v = np.linalg.eigh(lap + np.diag(d))
        best = max(best, 0.5 * m * w[:k].sum())
        g = (v[:, :k] ** 2).sum(axis=1)  # d/dd_j of the k smallest
        g -= g.mean()  # stay on sum(d) = 0
        norm = np.linalg.norm(g)
        if norm < 1e-12:
            break
        d += (scale / (t + 1)) * g / norm
    return best


def neighbour(a, m):
    s = -np.sort(-a, axis=1)
    return 0.5 * (a.sum() - s[:, :m - 1].sum())


def main():
    if len(sys.argv) != 5:
        sys.exit('usage: bound.py PROFILE.sum.mat NODES SOCKETS CORES')
    c = read_dense(sys.argv[1])
    nodes, sockets, cores = (int(x) for x in sys.argv[2:5])
    n = c.shape[0]
    if n != nodes * sockets * cores:
        sys.exit('bound.py: %d ranks, %d PUs: the bound needs every PU used'
                 % (n, nodes * sockets * cores))
    a = c + c.T
    # natural: rank i on PU i
    pu = np.arange(n)
    sock = pu // cores
    node = pu // (cores * sockets)
    hops = 2.0 * (1 + (sock[:, None] != sock[None, :])
                  + (node[:, None] != node[None, :]))
    np.fill_diagonal(hops, 0.0)
    natural = float((c * hops).sum())
    total = float(c.sum())
    cuts = []
    for k, m in ((nodes * sockets, cores), (nodes, sockets * cores)):
        if k == 1:
            cuts.append(0.0)
            continue
        cuts.append(max(spectral(a, k, m), neighbour(a, m)))
    bound = 2.0 * (total + sum(cuts))
    print('%s on %d x %d x %d: natural %.0f, lower bound %.0f, natural / bound %.4f'
          % (sys.argv[1], nodes, sockets, cores, natural, bound, natural / bound))


if __name__ == '__main__':
    main()

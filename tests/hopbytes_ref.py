#!/usr/bin/env python3
# tests/hopbytes_ref.py - an independent reference for the metrics, written
# from the definitions only (TopoMatch §3.5): it shares no code with
# libtopomatch.  SPDX-License-Identifier: GPL-2.0-or-later
#
#   hopbytes_ref.py stencil3d X Y Z WX WY WZ TOPO
#       hop-bytes of the round-robin mapping of a non-periodic 7-point
#       stencil (each task sends W_d to each face neighbour across d).
#   hopbytes_ref.py eval PATTERN.mtx MAPFILE TOPO
#       hop_bytes, sum_com, max_com of a mapping, pattern in Matrix Market.
# TOPO: "tleaf n a1 v1 ... an vn", "torus3D X Y Z", "mesh2D X Y", ...
import sys


def tree_dist(levels, p, q):
    """(hops, cost): up to the lowest common ancestor and down."""
    if p == q:
        return 0, 0.0
    digits_p, digits_q = [], []
    for arity, _ in reversed(levels):
        digits_p.append(p % arity)
        digits_q.append(q % arity)
        p //= arity
        q //= arity
    digits_p.reverse()
    digits_q.reverse()
    lca = next(k for k in range(len(levels)) if digits_p[k] != digits_q[k])
    hops = 2 * (len(levels) - lca)
    cost = 2 * sum(c for _, c in levels[lca:])
    return hops, cost


def grid_dist(dims, wrap, p, q):
    h = 0
    for d in dims:
        a, b = p % d, q % d
        p //= d
        q //= d
        delta = abs(a - b)
        h += min(delta, d - delta) if wrap else delta
    return h, float(h)


def topology(text):
    tok = text.split()
    kind = tok[0]
    if kind == "tleaf":
        n = int(tok[1])
        levels = [(int(tok[2 + 2 * k]), float(tok[3 + 2 * k])) for k in range(n)]
        return lambda p, q: tree_dist(levels, p, q)
    if kind.startswith("torus") or kind.startswith("mesh"):
        dims = [int(x) for x in (tok[2:] if kind.endswith("XD") else tok[1:])]
        wrap = kind.startswith("torus")
        return lambda p, q: grid_dist(dims, wrap, p, q)
    raise SystemExit("unsupported topology " + kind)


def stencil3d(x, y, z, w):
    entries = []
    for k in range(z):
        for j in range(y):
            for i in range(x):
                t = i + x * (j + y * k)
                for d, (c, n) in enumerate(((i, x), (j, y), (k, z))):
                    step = (1, x, x * y)[d]
                    if c > 0:
                        entries.append((t, t - step, w[d]))
                    if c < n - 1:
                        entries.append((t, t + step, w[d]))
    return entries


def read_mm(path):
    entries, sym = [], False
    with open(path) as f:
        header = f.readline().lower()
        sym = "symmetric" in header
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        for line in f:
            if not line.strip() or line.startswith("%"):
                continue
            i, j, w = line.split()[:3]
            i, j, w = int(i) - 1, int(j) - 1, float(w)
            entries.append((i, j, w))
            if sym and i != j:
                entries.append((j, i, w))
    return entries


def metrics(entries, mapping, dist):
    hb = sc = mc = 0.0
    for i, j, w in entries:
        if i == j:
            continue
        h, c = dist(mapping[i], mapping[j])
        hb += w * h
        sc += w * c
        mc = max(mc, w * c)
    return hb, sc, mc


def main(argv):
    if argv[1] == "stencil3d":
        x, y, z = (int(v) for v in argv[2:5])
        w = [float(v) for v in argv[5:8]]
        entries = stencil3d(x, y, z, w)
        hb, _, _ = metrics(entries, list(range(x * y * z)), topology(argv[8]))
        print("%.17g" % hb)
    elif argv[1] == "eval":
        entries = read_mm(argv[2])
        with open(argv[3]) as f:
            mapping = [int(v) for v in f.read().split()]
        print(" ".join("%.17g" % v for v in metrics(entries, mapping, topology(argv[4]))))
    else:
        raise SystemExit(__doc__)


main(sys.argv)

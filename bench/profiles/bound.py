#!/usr/bin/python3
# bench/profiles/bound.py - a lower bound on the hop-bytes of any one-to-one
# placement of a recorded profile on a 3-level fat tree that it fills, to
# tell whether the natural placement (or a mapper's) can be beaten at all
# (issue 19, point 4: "where natural order is already optimal, show it").
#
#   bound.py [--map FILE] [--rounds R] PROFILE.sum.mat NODES SOCKETS CORES
#   bound.py --selftest [SEED]
#
# e.g. bound.py gromacs-water-64.sum.mat 8 2 4 for tm_bench's gmx-64-c8
# ("tleaf 3 8 100 2 10 4 1").  Prints the natural placement's hop-bytes
# (rank i on PU i; the same number as tm_bench's natural row and `topomatch
# eval`), the bound and natural / bound: 1 proves natural optimal, and in
# general no mapper can gain more than 1 - bound / natural.  --map FILE (PU
# of each rank, as `topomatch map --out` writes it) also prints that
# placement's hop-bytes and its ratio to the bound.  bounds.sh runs it on
# the 20 cases of the point-4 table.  --selftest compares the bound with the
# exact optimum on small random instances (it must never exceed it): one
# level's cut against every partition (36 graphs of 8 to 12 tasks), and the
# hop-bytes bound against every placement of 8 ranks (16 cases).  Needs numpy and scipy (Debian:
# python3-numpy, python3-scipy; bounds.sh installs them).
#
# The math.  With every PU used, two tasks are 2, 4 or 6 hops apart (same
# socket, same node, other node), so
#   hop-bytes = 2 x (W + cut_s + cut_n),
# W = sum over pairs i < j of A(i,j), A = C + C^T (C(i,j) = bytes i sent to
# j; fixed), cut_X = the weight of the pairs in different groups of level X:
# k groups of m tasks (sockets: k = NODES x SOCKETS, m = CORES; nodes:
# k = NODES, m = SOCKETS x CORES).  cut_s + cut_n >= LB_s + LB_n, a lower
# bound on each level's minimum k-equipartition cut, the best of:
#
# 1. The neighbour bound: a task shares its group with m - 1 others, so at
#    most its m - 1 heaviest weights stay inside:
#    cut >= (1/2) sum_i (deg_i - its m - 1 largest A(i, j)).
# 2. The spectral bound of Donath and Hoffman (IBM J. Res. Dev. 17(5), 1973,
#    "Lower bounds for the partitioning of graphs"): for the Laplacian L of
#    A, cut >= (m / 2) x (sum of the k smallest eigenvalues of L + diag(d))
#    for any d summing to 0, d improved by subgradient ascent.
# 3. A Lagrangian dual of the semidefinite relaxation of k-equipartition
#    with non-negativity and triangle inequalities (Karisch and Rendl,
#    "Semidefinite programming and graph equipartition", Fields Inst.
#    Commun. 18, 1998; Wolkowicz and Zhao, Discrete Appl. Math. 96-97,
#    1999; triangle inequalities as in Karisch, Rendl and Clausen, INFORMS
#    J. Comput. 12(3), 2000), which is the one that closes the gaps.  For a
#    partition, y(i,j) = 1 when i and j share a group, 0 otherwise; the
#    matrix Y (Y(i,i) = 1) is X X^T for the n x k 0/1 assignment X, whose
#    columns hold m ones each: 0 <= Y <= m I (eigenvalues 0 and m),
#    diag(Y) = 1, and
#      cut = sum_{i<j} A(i,j) (1 - y(i,j)).
#    Valid constraints of every partition: row sums sum_j y(i,j) = m - 1;
#    y(i,j) >= 0; triangle inequalities y(i,j) + y(i,l) - y(j,l) <= 1
#    (sharing is transitive); for k = 2, y(i,j) + y(i,l) + y(j,l) >= 1 (of
#    3 tasks, 2 share a side); for any set S of s tasks, the pairs of S
#    sharing a group number at most q m (m-1)/2 + r (r-1)/2, s = q m + r.
#    Weak duality: for multipliers w (free) on the row sums and lambda >= 0
#    on the inequalities g(y) <= 0, every partition has
#      cut >= W - sum A y + sum w (rowsum - (m-1)) + sum lambda g(y)
#          = W + const + sum_{i<j} r(i,j) y(i,j)   (affine in y)
#          >= W + const + min { <R, Y> : 0 <= Y <= m I, diag(Y) = 1 }
#          >= W + const + m x (sum of the k smallest eigenvalues of
#             R + diag(delta)) - sum(delta)     for any delta,
#    R(i,j) = R(j,i) = r(i,j) / 2 (the last step: <R + diag(delta), Y> over
#    {0 <= Y <= m I, trace Y = n = k m} is smallest at m times the projector
#    on the k lowest eigenvectors, Fan's theorem).  So EVERY choice of (w,
#    lambda >= 0, delta) gives a valid bound, whatever the optimiser did;
#    it is evaluated once more exactly at the end (numpy's eigh; a margin of
#    1e-12 x k m sum|M| covers its rounding).  The multipliers are found by
#    L-BFGS-B (scipy) on the dual with the sum of the k smallest eigenvalues
#    smoothed by a Fermi-Dirac entropy of temperature tau (a lower
#    approximation, tau -> 0), in rounds: after each, the inequalities most
#    violated by the relaxed minimiser Y are added (1,000 triangles and up
#    to 1,000 sets, grown greedily from each task), until the bound meets
#    the natural (or --map) placement's cut of that level, which proves
#    that cut optimal, or nothing is violated, or R rounds (--rounds,
#    default 6).
#
# The two levels are bounded separately (coupling them by y_s <= y_n, tried,
# moved nothing on GROMACS); where one placement meets both levels' bounds,
# it is optimal.
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


class Dual:
    """The Lagrangian dual of point 3 for one level (k groups of m)."""

    def __init__(self, a, k, m):
        self.a, self.n, self.k, self.m = a, a.shape[0], k, m
        self.I, self.J = np.triu_indices(self.n, 1)
        self.p = len(self.I)
        self.W = float(np.triu(a, 1).sum())
        self.idx = np.zeros((self.n, self.n), dtype=int)
        self.idx[self.I, self.J] = np.arange(self.p)
        self.idx[self.J, self.I] = np.arange(self.p)
        self.tri = np.zeros((0, 3), dtype=int)  # (i, j, l)
        self.ttype = np.zeros(0, dtype=int)  # 0: transitivity, 1: k = 2
        self.sets, self.setkeys, self.caps = [], set(), np.zeros(0)

    def nvar(self):
        return 2 * self.n + self.p + len(self.tri) + len(self.sets)

    def cap(self, s):
        q, r = divmod(s, self.m)
        return q * self.m * (self.m - 1) / 2 + r * (r - 1) / 2

    def value(self, x, tau=0.0):
        """Dual value (a valid bound when tau = 0), gradient, relaxed Y."""
        n, p, k, m = self.n, self.p, self.k, self.m
        nt = len(self.tri)
        w, d = x[:n], x[n:2 * n]
        nneg = x[2 * n:2 * n + p]
        mu = x[2 * n + p:2 * n + p + nt]
        nu = x[2 * n + p + nt:]
        r = -self.a[self.I, self.J] + w[self.I] + w[self.J] - nneg
        const = -(m - 1) * w.sum()
        if nt:
            e1 = self.idx[self.tri[:, 0], self.tri[:, 1]]
            e2 = self.idx[self.tri[:, 0], self.tri[:, 2]]
            e3 = self.idx[self.tri[:, 1], self.tri[:, 2]]
            t0 = self.ttype == 0
            # type 0: y1 + y2 - y3 - 1 <= 0; type 1: 1 - y1 - y2 - y3 <= 0
            s12 = np.where(t0, 1.0, -1.0)
            np.add.at(r, e1, s12 * mu)
            np.add.at(r, e2, s12 * mu)
            np.add.at(r, e3, -mu)
            const -= (s12 * mu).sum()
        for q, e in enumerate(self.sets):
            r[e] += nu[q]
        const -= (self.caps * nu).sum()
        mat = np.zeros((n, n))
        mat[self.I, self.J] = r / 2
        mat[self.J, self.I] = r / 2
        mat += np.diag(d)
        lam, v = np.linalg.eigh(mat)
        if tau > 0:
            from scipy.optimize import brentq
            from scipy.special import expit
            nu0 = brentq(lambda z: expit((z - lam) / tau).sum() - k,
                         lam[0] - 60 * tau, lam[-1] + 60 * tau,
                         xtol=1e-14 * (1 + abs(lam).max()))
            t = np.clip(expit((nu0 - lam) / tau), 1e-300, 1 - 1e-16)
            ent = (t * np.log(t) + (1 - t) * np.log1p(-t)).sum()
            val = self.W + const + m * (lam * t).sum() + tau * m * ent - d.sum()
            y = m * (v * t) @ v.T
        else:
            val = self.W + const + m * lam[:k].sum() - d.sum()
            val -= k * m * 1e-12 * np.abs(mat).sum()  # eigh's rounding
            y = m * (v[:, :k] @ v[:, :k].T)
        yp = y[self.I, self.J]
        grad = [y.sum(axis=1) - np.diag(y) - (m - 1), np.diag(y) - 1, -yp]
        if nt:
            grad.append(np.where(t0, yp[e1] + yp[e2] - yp[e3] - 1,
                                 1 - yp[e1] - yp[e2] - yp[e3]))
        grad.append(np.array([yp[e].sum() for e in self.sets]) - self.caps)
        return val, np.concatenate(grad), y

    def add_triangles(self, y, most):
        n = self.n
        ar = np.arange(n)
        most = min(most, n ** 3)
        cand = []
        v = y[:, :, None] + y[:, None, :] - y[None, :, :] - 1  # apex i
        v[ar, ar, :] = v[ar, :, ar] = v[:, ar, ar] = -9
        v = np.where(ar[None, :, None] < ar[None, None, :], v, -9)
        top = np.argpartition(v, -most, axis=None)[-most:]
        cand += [(v.flat[f], np.unravel_index(f, v.shape), 0) for f in top]
        if self.k == 2:
            v = 1 - (y[:, :, None] + y[:, None, :] + y[None, :, :])
            v = np.where((ar[:, None, None] < ar[None, :, None])
                         & (ar[None, :, None] < ar[None, None, :]), v, -9)
            top = np.argpartition(v, -most, axis=None)[-most:]
            cand += [(v.flat[f], np.unravel_index(f, v.shape), 1) for f in top]
        cand = sorted((c for c in cand if c[0] > 1e-3), key=lambda c: -c[0])
        have = set(zip(map(tuple, self.tri.tolist()), self.ttype.tolist()))
        new = []
        for _, t, ty in cand:
            key = (tuple(int(q) for q in t), ty)
            if key not in have and len(new) < most:
                have.add(key)
                new.append(key)
        if new:
            self.tri = np.vstack([self.tri, [t for t, _ in new]])
            self.ttype = np.concatenate([self.ttype, [ty for _, ty in new]])
        return len(new)

    def add_sets(self, y, most):
        n, m = self.n, self.m
        cand = []
        for i in range(n):  # grow a set greedily from each task
            s, tot, acc = [i], 0.0, y[i].copy()
            inside = np.zeros(n, dtype=bool)
            inside[i] = True
            for size in range(2, min(n, 2 * m + 2) + 1):
                j = int(np.argmax(np.where(inside, -np.inf, acc)))
                tot += acc[j]
                s.append(j)
                inside[j] = True
                acc += y[j]
                if size > m and tot - self.cap(size) > 1e-3:
                    cand.append(((tot - self.cap(size)) / size,
                                 tuple(sorted(s))))
        cand.sort(key=lambda c: -c[0])
        new = 0
        for _, s in cand:
            if s in self.setkeys or new >= most:
                continue
            self.setkeys.add(s)
            sa = np.array(s)
            ii, jj = np.triu_indices(len(s), 1)
            self.sets.append(self.idx[sa[ii], sa[jj]])
            self.caps = np.append(self.caps, self.cap(len(s)))
            new += 1
        return new


def sdp_bound(a0, k, m, rounds=6, most=1000, target=None,
              taus=(0.03, 0.01, 0.003, 0.001), maxiter=300):
    """Point 3: a lower bound on the k x m equipartition cut of a0."""
    from scipy.optimize import minimize
    if k == 1:
        return 0.0
    scale = a0.max()
    if scale <= 0:
        return 0.0
    dual = Dual(a0 / scale, k, m)
    x = np.zeros(dual.nvar())
    best = -np.inf
    for rnd in range(rounds + 1):
        n, p = dual.n, dual.p
        bnds = [(None, None)] * (2 * n) + [(0, None)] * (dual.nvar() - 2 * n)
        for tau in taus:
            res = minimize(lambda z: tuple(-q for q in dual.value(z, tau)[:2]),
                           x, jac=True, method='L-BFGS-B', bounds=bnds,
                           options={'maxiter': maxiter, 'maxfun': 2 * maxiter})
            x = res.x
            best = max(best, dual.value(x)[0])  # exact, tau = 0
        if rnd == rounds or (target is not None
                             and best * scale >= target * (1 - 1e-7)):
            break
        y = dual.value(x, taus[-1])[2]
        cut = 2 * n + p + len(dual.tri)
        nt = dual.add_triangles(y, most)
        ns = dual.add_sets(y, most)
        if nt + ns == 0:
            break
        x = np.concatenate([x[:cut], np.zeros(nt), x[cut:], np.zeros(ns)])
    return best * scale * (1 - 1e-9)  # the sums' rounding


def level_cut(a, group):
    return float(np.triu(a * (group[:, None] != group[None, :]), 1).sum())


def hop_bytes(c, pu, cores, sockets):
    sock = pu // cores
    node = pu // (cores * sockets)
    hops = 2.0 * (1 + (sock[:, None] != sock[None, :])
                  + (node[:, None] != node[None, :]))
    np.fill_diagonal(hops, 0.0)
    return float((c * hops).sum())


def bound_levels(a, nodes, sockets, cores, rounds=6, targets=(None, None)):
    """[(k, m, neighbour, spectral, sdp)] for the socket and node levels."""
    out = []
    for (k, m), tgt in zip(((nodes * sockets, cores),
                            (nodes, sockets * cores)), targets):
        if k == 1:
            out.append((k, m, 0.0, 0.0, 0.0))
            continue
        out.append((k, m, neighbour(a, m), spectral(a, k, m),
                    sdp_bound(a, k, m, rounds=rounds, target=tgt)))
    return out


def hop_bound(c, nodes, sockets, cores, rounds=6, targets=(None, None)):
    """The bound on hop-bytes = 2 (W + cut_s + cut_n), less 1e-9 of it for
    the rounding of the sums; and the levels' details."""
    levels = bound_levels(c + c.T, nodes, sockets, cores, rounds, targets)
    cuts = sum(max(x[2:]) for x in levels)
    return 2.0 * (float(c.sum()) + cuts) * (1 - 1e-9), levels


def selftest(seed):
    """The bound against the exact optimum, by enumeration, on small graphs:
    one level's cut (every partition), then the hop-bytes of every placement
    of 8 ranks on small trees."""
    import itertools

    def partitions(items, m):
        if not items:
            yield []
            return
        for rest in itertools.combinations(items[1:], m - 1):
            g = (items[0],) + rest
            for p in partitions([x for x in items if x not in g], m):
                yield [g] + p

    rng = np.random.default_rng(seed)
    worst, count = 0.0, 0
    for trial in range(6):
        for n, k, m in ((8, 2, 4), (12, 2, 6), (12, 3, 4), (12, 4, 3),
                        (10, 5, 2), (12, 6, 2)):
            kind = trial % 3
            if kind == 0:
                a = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
            elif kind == 1:
                a = rng.exponential(size=(n, n)) ** 3
            else:  # a ring with chords, over a light all-to-all
                a = 0.05 * rng.random((n, n))
                for i in range(n):
                    a[i, (i + 1) % n] += 5 * rng.random()
                    a[i, (i + 3) % n] += rng.random()
            a = np.triu(a, 1)
            a = a + a.T
            exact = np.inf
            for p in partitions(list(range(n)), m):
                lab = np.zeros(n, dtype=int)
                for q, g in enumerate(p):
                    lab[list(g)] = q
                exact = min(exact, level_cut(a, lab))
            b = max(neighbour(a, m), spectral(a, k, m),
                    sdp_bound(a, k, m, rounds=4, most=200))
            worst = max(worst, b / exact)
            count += 1
            print('n %2d k %d m %d graph %d: exact %.6f bound %.6f ratio %.6f%s'
                  % (n, k, m, kind, exact, b, b / exact,
                     '  ** ABOVE THE OPTIMUM **' if b > exact else ''))
    # the whole hop-bytes bound against every placement of 8 ranks
    perms = np.array(list(itertools.permutations(range(8))))
    for trial in range(4):
        for nodes, sockets, cores in ((2, 2, 2), (4, 2, 1), (2, 4, 1),
                                      (1, 2, 4)):
            c = rng.exponential(size=(8, 8)) ** 2 * (rng.random((8, 8)) < 0.6)
            np.fill_diagonal(c, 0.0)
            pu = np.arange(8)
            sock, node = pu // cores, pu // (cores * sockets)
            hops = 2.0 * (1 + (sock[:, None] != sock[None, :])
                          + (node[:, None] != node[None, :]))
            np.fill_diagonal(hops, 0.0)
            exact = (c[None] * hops[perms[:, :, None],
                                    perms[:, None, :]]).sum(axis=(1, 2)).min()
            b = hop_bound(c, nodes, sockets, cores, rounds=4)[0]
            worst = max(worst, b / exact)
            count += 1
            print('8 ranks on %d x %d x %d: best placement %.6f hop-bytes, '
                  'bound %.6f, ratio %.6f%s'
                  % (nodes, sockets, cores, exact, b, b / exact,
                     '  ** ABOVE THE OPTIMUM **' if b > exact else ''))
    print('%d cases: largest bound / exact optimum %.9f (%s)'
          % (count, worst, 'ok' if worst <= 1 else 'FAIL'))
    return 0 if worst <= 1 else 1


def main():
    args = sys.argv[1:]
    if args[:1] == ['--selftest']:
        sys.exit(selftest(int(args[1]) if len(args) > 1 else 1))
    mapfile, rounds = None, 6
    while args and args[0].startswith('--'):
        if args[0] == '--map' and len(args) > 1:
            mapfile, args = args[1], args[2:]
        elif args[0] == '--rounds' and len(args) > 1:
            rounds, args = int(args[1]), args[2:]
        else:
            args = []
    if len(args) != 4:
        sys.exit('usage: bound.py [--map FILE] [--rounds R] PROFILE.sum.mat '
                 'NODES SOCKETS CORES\n       bound.py --selftest [SEED]')
    c = read_dense(args[0])
    nodes, sockets, cores = (int(x) for x in args[1:4])
    n = c.shape[0]
    if n != nodes * sockets * cores:
        sys.exit('bound.py: %d ranks, %d PUs: the bound needs every PU used'
                 % (n, nodes * sockets * cores))
    a = c + c.T
    total = float(c.sum())
    pu = np.arange(n)
    natural = hop_bytes(c, pu, cores, sockets)
    # the natural placement's cuts: reaching one proves it optimal
    targets = [level_cut(a, pu // cores), level_cut(a, pu // (cores * sockets))]
    other = None
    if mapfile:
        with open(mapfile) as f:
            mp = np.array([int(x) for x in f.read().split()])
        if sorted(mp.tolist()) != list(range(n)):
            sys.exit('bound.py: %s is not one-to-one on PUs 0..%d'
                     % (mapfile, n - 1))
        other = hop_bytes(c, mp, cores, sockets)
        if other < natural:
            targets = [level_cut(a, mp // cores),
                       level_cut(a, mp // (cores * sockets))]
    bound, levels = hop_bound(c, nodes, sockets, cores, rounds, targets)
    cuts = [max(nb, sp, sd) for (_, _, nb, sp, sd) in levels]
    old = 2.0 * (total + sum(max(nb, sp) for (_, _, nb, sp, _) in levels))
    for name, (k, m, nb, sp, sd), cut, tgt in zip(('sockets', 'nodes'),
                                                  levels, cuts, targets):
        print('  %s (%d x %d): cut >= %.0f (neighbour %.0f, spectral %.0f, '
              'SDP dual %.0f); placement %.0f' % (name, k, m, cut, nb, sp, sd,
                                                  tgt))
    line = ('%s on %d x %d x %d: natural %.0f, lower bound %.0f, '
            'natural / bound %.4f (spectral-only bound %.0f, %.4f)'
            % (args[0], nodes, sockets, cores, natural, bound,
               natural / bound, old, natural / old))
    if other is not None:
        line += ', %s %.0f / bound %.4f' % (mapfile, other, other / bound)
    print(line)


if __name__ == '__main__':
    main()

#!/bin/sh
# Quality floors (issue 19): for each mapper, small deterministic cases and
# the hop-bytes it must not exceed.  Hop-bytes do not depend on the machine,
# the thread count or the time, so a floor is an exact bound: a change that
# makes a mapper worse than its floor fails here.
#
# Floors are, in this order of preference:
# - a known optimum (cases 1-3: a lower bound that a placement reaches, the
#   bound derived in the comment and the placement shown to reach it);
# - otherwise the fair Scotch value of the same run (case 4: tm_bench's
#   scotch-direct, the best of Scotch's strategies and balances, issue 19);
# - for a mapper that does not reach those, the value it has today,
#   recorded, with its ratio to the optimum or to Scotch in the comment:
#   that ratio is the mapper's real bound, and the floor only stops it from
#   getting worse.
# TM_FLOOR_SCALE (default 1) multiplies every floor, to check that each can
# fail: at 0.99 all 42 do (the loosest are gmx-128-c8's, 0.17 % above
# auto, and frag-1k's fair Scotch floors, 0.2 to 0.6 % above auto,
# greedymap, parmapper and topomatch-const), at 0.9999 all but those five.
# The benchmark's own targets (bench/README.md) stay in tm_bench --check.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
: "${TM_BENCH:?run through make check (TM_BENCH = the tm_bench binary)}"
scale=${TM_FLOOR_SCALE:-1}

# floor DESC HOP_BYTES FLOOR: HOP_BYTES <= FLOOR x scale
floor() {
	v=$("$PYTHON3" -c 'import sys
hb, lim, s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
try:
    ok = float(hb) <= lim * s
except ValueError:
    ok = False
print("yes" if ok else "%s > %.17g" % (hb, lim * s))' "$2" "$3" "$scale")
	expect_eq "$1 <= $3" yes "$v"
}

# hb TOPO PATTERN MAPPER [map options...]: the mapping's hop-bytes, or the
# error when it failed
hb() {
	topo=$1 pat=$2 m=$3
	shift 3
	run "$tm" map -t "$topo" -c "$pat" --mapper "$m" --json "$@"
	if [ "$rc" -eq 0 ]; then json_get hop_bytes; else echo "failed: $err"; fi
}

# 1. A hierarchical pattern (TreeMatch §5.1 generator, no jitter) of groups
# 8 x 2 x 4 with weights 1000, 100 and 10, shuffled, on a tree of the same
# shape: 4 nodes x 2 sockets x 8 cores, 2, 4 and 6 hops.  Optimum
# 64 x (7 x 1000 x 2 + 8 x 100 x 4 + 48 x 10 x 6) = 1,285,120: the pairs at
# each distance are the same for every placement of 64 tasks on the 64 PUs
# (7, 8 and 48 per task), so the rearrangement inequality bounds the sum
# by the heaviest weights on the shortest distances, and the placement of
# the groups on the subtrees (the unshuffled pattern in order) reaches it.
topo1="tleaf 3 4 100 2 10 8 1"
opt1=1285120
"$tm" gen hierarchical --arity 8,2,4 --jitter 0 --out "$work/h1.mtx"
"$tm" gen hierarchical --arity 8,2,4 --jitter 0 --shuffle 5 --out "$work/h1s.mtx"
expect_eq "hierarchical on its tree: the groups in order reach the bound" $opt1 \
	"$(hb "$topo1" "$work/h1.mtx" round-robin)"
for m in auto portfolio treematch topomatch-const scotch eagermap greedymap parmapper; do
	floor "hierarchical 8x2x4 on its tree, $m (optimum)" \
		"$(hb "$topo1" "$work/h1s.mtx" $m)" $opt1
done

# 2. The same kind of pattern, groups 8 x 2 x 2 x 2 (weights 1000, 100, 10,
# 1), on 4 scattered nodes of a 4-level tree (4 switches x 4 nodes x 2
# sockets x 8 cores; 2, 4, 6, 8 hops): nodes 0 and 7 (PUs 0-15, 112-127,
# in different switches) and 9 and 11 (PUs 144-159, 176-191, one switch).
# The allowed PUs fix the distances again: per ordered pair, 448 at 2 hops,
# 512 at 4, 512 at 6 (within nodes 9 and 11) and the other 2,560 at 8;
# weights: 448 x 1000, 512 x 100, 1,024 x 10, 2,048 x 1.  Heaviest on the
# shortest: 448 x 1000 x 2 + 512 x 100 x 4 + 512 x 10 x 6 + 512 x 10 x 8 +
# 2,048 x 8 = 1,188,864, reached by one half of the pattern on nodes 9 and
# 11 and the other on 0 and 7.  treematch takes no constraints.
topo2="tleaf 4 4 1000 4 100 2 10 8 1"
opt2=1188864
"$tm" gen hierarchical --arity 8,2,2,2 --jitter 0 --shuffle 5 --out "$work/h2s.mtx"
{ seq 0 15; seq 112 127; seq 144 159; seq 176 191; } >"$work/h2.con"
for m in auto portfolio topomatch-const eagermap greedymap parmapper; do
	floor "hierarchical 8x2x2x2 on 4 scattered nodes, $m (optimum)" \
		"$(hb "$topo2" "$work/h2s.mtx" $m -b "$work/h2.con")" $opt2
done
# the library's scotch mapper: 1,198,080 = 1.0078 x the optimum (recorded)
floor "hierarchical 8x2x2x2 on 4 scattered nodes, scotch (recorded; optimum $opt2)" \
	"$(hb "$topo2" "$work/h2s.mtx" scotch -b "$work/h2.con")" 1198080

# 3. A shuffled 8x8x8 7-point stencil (faces 1000, 500, 100) on the torus
# of its shape: every pair is at least 1 hop apart, so the optimum is the
# total weight, 1,433,600, which the grid in order reaches (every halo 1
# hop).  topomatch-const and treematch map onto trees only.
topo3="torus3D 8 8 8"
opt3=1433600
"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --out "$work/t.mtx"
"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --shuffle 1 --out "$work/ts.mtx"
expect_eq "stencil on its torus: the grid in order is 1 hop per byte" $opt3 \
	"$(hb "$topo3" "$work/t.mtx" round-robin)"
for m in auto portfolio eagermap greedymap parmapper; do
	floor "stencil 8x8x8 on torus3D 8 8 8, $m (optimum)" \
		"$(hb "$topo3" "$work/ts.mtx" $m)" $opt3
done
# recorded: analytical 1,982,400 = 1.383 x the optimum; the library's scotch
# mapper (sparse factor 0.5, TopoMatch Alg. 2) 4,201,600 = 2.931 x
floor "stencil 8x8x8 on torus3D 8 8 8, analytical (recorded; optimum $opt3)" \
	"$(hb "$topo3" "$work/ts.mtx" analytical)" 1982400
floor "stencil 8x8x8 on torus3D 8 8 8, scotch (recorded; optimum $opt3)" \
	"$(hb "$topo3" "$work/ts.mtx" scotch)" 4201600

# 4. The benchmark's quick cases (bench/README.md): tree-1k, a shuffled
# 16x8x8 stencil on a 1,024-PU fat tree, and frag-1k, the same on 32
# scattered nodes of a 4,096-PU one.  No optimum is known; the floor is
# Scotch at its best in the same run (scotch-direct).  Recorded floors, for
# the mappers above it, with their ratio to it (Scotch 7.0.3: tree-1k
# 8,243,200, frag-1k 8,681,600, both default strategy, balance 0.05, one
# task per PU as returned).
run "$TM_BENCH" --quick --json
expect_eq "tm_bench --quick --json exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"
# row CASE MAPPER: that row's hop-bytes, or why there is none
row() {
	"$PYTHON3" - "$1" "$2" "$work/quick.json" <<'EOF'
import json, sys
case, mapper, path = sys.argv[1:4]
try:
    doc = json.load(open(path))
    c = next(c for c in doc["cases"] if c["name"] == case)
    r = next(r for r in c["rows"] if r["mapper"] == mapper)
except (OSError, ValueError, StopIteration, KeyError) as e:
    print("no row: %r" % e)
    sys.exit(0)
if not (r["ok"] and r["valid"]):
    print("failed or invalid: %s" % (r.get("error") or r.get("invalid")))
else:
    print(repr(r["hop_bytes"]))
EOF
}
for c in tree-1k frag-1k; do
	fair=$(row $c scotch-direct)
	case $fair in
	[0-9]*) ok "$c: fair Scotch value $fair" ;;
	*) not_ok "$c: no fair Scotch value: $fair" ;;
	esac
	for m in auto greedymap parmapper topomatch-const; do
		floor "$c, $m (fair Scotch)" "$(row $c $m)" "$fair"
	done
done
# tree-1k: treematch 1.0058 x Scotch, eagermap 1.158, the library's
# scotch mapper 1.244 (topomatch-const reaches Scotch since issue 19's
# point 3: 8,243,200, floored above; it was 1.031)
floor "tree-1k, treematch (recorded; fair Scotch $(row tree-1k scotch-direct))" \
	"$(row tree-1k treematch)" 8291200
floor "tree-1k, eagermap (recorded)" "$(row tree-1k eagermap)" 9542400
floor "tree-1k, scotch (recorded)" "$(row tree-1k scotch)" 10252800
# frag-1k: eagermap 1.185 x Scotch, scotch 1.400 (topomatch-const: 0.998
# since issue 19's point 3, floored above; it was 1.024)
floor "frag-1k, eagermap (recorded; fair Scotch $(row frag-1k scotch-direct))" "$(row frag-1k eagermap)" 10284800
floor "frag-1k, scotch (recorded)" "$(row frag-1k scotch)" 12153600

# 5. Fragmented allocations (issue 19, point 3; bench/README.md): the
# family's cases with about as many free PUs as tasks, where Scotch's
# sub-architecture is strongest (with more free PUs it spreads the tasks,
# and auto is at 0.88-0.92 x): frag3-10 (34 random free nodes of a 3-level
# tree, 3 of them partly free, 1,033 PUs) and frag4-10 (37 of a 4-level
# one, 9 partly free, 1,027 PUs), shuffled 16x8x8 stencils.  The target is
# the fair Scotch value (tm_bench's scotch-direct, its best of 30 settings
# and two formulations: frag3-10 7,687,200, frag4-10 9,244,800); auto and
# topomatch-const are below it, so their floors are their values today,
# with the ratio to it: frag3-10 auto 7,513,600 (0.977), topomatch-const
# 7,525,600 (0.979); frag4-10 auto 9,014,400 (0.975), topomatch-const
# 9,033,200 (0.977).  Before point 3: 1.014, 1.014, 0.986 and 0.999;
# frag4-10 was 8,996,000 and 9,031,200 until jobs of more than 256 tasks
# lost TOPOMATCHCONST's padded candidate (2026-11-28, for the select
# plugin's budget: core/map/topomatch_const.c, CONST_THOROUGH_MAX_TASKS).
# bench_case CASE: tm_bench's rows of CASE into $work/quick.json (for
# row), and its fair Scotch value into $fair
bench_case() {
	run "$TM_BENCH" --case "$1" --json
	expect_eq "tm_bench --case $1 --json exits 0" 0 "$rc"
	printf '%s' "$out" >"$work/quick.json"
	fair=$(row "$1" scotch-direct)
	case $fair in
	[0-9]*) ok "$1: fair Scotch value $fair" ;;
	*) not_ok "$1: no fair Scotch value: $fair" ;;
	esac
}
for c in frag3-10 frag4-10; do
	bench_case $c
	case $c in
	frag3-10) fa=7513600 fc=7525600 ;;
	*) fa=9014400 fc=9033200 ;;
	esac
	floor "$c, auto (recorded; fair Scotch $fair)" "$(row $c auto)" $fa
	floor "$c, topomatch-const (recorded; fair Scotch $fair)" "$(row $c topomatch-const)" $fc
done

# 6. Real applications (issue 19, point 4; bench/profiles/README.md): two
# recorded profiles whose natural rank order leaves something to gain, on
# the issue's machines.  foam-64-c32: OpenFOAM's pitzDaily in 16 x 4
# strips on 2 nodes of 2 x 16 cores; auto reaches the fair Scotch value
# (422,546,058 = 0.743 x the natural placement), the floor.  gmx-64-c8 and
# gmx-128-c8: GROMACS's water with its PME ranks interleaved, on 8 and 16
# nodes of 2 x 4 cores, where TreeMatch refined was 1.0017 and 1.091 x
# fair Scotch; auto now also runs TOPOMATCHCONST and Scotch on small whole
# trees (core/map/mapper.c) and is below fair Scotch on both, the floor:
# gmx-64-c8 2,668,199,356 = 0.99995 x 2,668,344,112 (TOPOMATCHCONST),
# gmx-128-c8 8,009,178,862 = 0.9983 x 8,023,051,500 (Scotch, refined).
for c in foam-64-c32 gmx-64-c8 gmx-128-c8; do
	bench_case $c
	floor "$c, auto (fair Scotch)" "$(row $c auto)" "$fair"
done

finish

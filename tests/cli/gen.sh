#!/bin/sh
# topomatch gen: shapes, sizes, reproducibility, shuffle and noise.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"

count() { grep -v '^#' "$1" | grep -c .; } # entries of a triplet file
total() { grep -v '^#' "$1" | awk '{s += $3} END {printf "%.17g", s}'; }

"$tm" gen stencil3d --dims 8x8x8 --out "$work/s7.tri"
# 7-point, not periodic: 3 dimensions x 8x8 lines x 7 links x 2 directions
expect_eq "stencil3d 8x8x8: 2688 directed entries" 2688 "$(count "$work/s7.tri")"
"$tm" gen stencil3d --dims 8x8x8 --periodic --out "$work/s7p.tri"
expect_eq "periodic stencil3d: 6 neighbours each" 3072 "$(count "$work/s7p.tri")"
"$tm" gen stencil3d --dims 4x4x4 --points 27 --periodic --out "$work/s27.tri"
expect_eq "27-point periodic 4x4x4: 26 neighbours each" 1664 "$(count "$work/s27.tri")"
"$tm" gen stencil2d --dims 4x4 --points 9 --out "$work/s9.tri"
# 9-point 4x4: 2*(2*4*3) faces + 2*2*3*3 diagonals = 48 + 36
expect_eq "9-point 4x4: 84 entries" 84 "$(count "$work/s9.tri")"
"$tm" gen stencil2d --dims 3x2 --weights 7,2 --out "$work/w.tri"
# x links: 2 per row x 2 rows x 2 dirs x 7 = 56; y links: 3 x 2 dirs x 2 = 12
expect_eq "stencil weights per dimension: total 68" 68 "$(total "$work/w.tri")"

"$tm" gen hierarchical --arity 2,2,2 --seed 4 --out "$work/h1.tri"
"$tm" gen hierarchical --arity 2,2,2 --seed 4 --out "$work/h2.tri"
expect_eq "hierarchical: 8 tasks all pairs" 56 "$(count "$work/h1.tri")"
expect_eq "hierarchical: reproducible" "$(cat "$work/h1.tri")" "$(cat "$work/h2.tri")"

"$tm" gen random --tasks 100 --degree 4 --seed 2 --out "$work/r.tri"
expect_eq "random: 4 per task" 400 "$(count "$work/r.tri")"
"$tm" gen alltoall --tasks 10 --weight 3 --out "$work/a.tri"
expect_eq "alltoall: total 10*9*3" 270 "$(total "$work/a.tri")"

"$tm" gen stencil3d --dims 8x8x8 --shuffle 42 --out "$work/sh.tri"
expect_eq "shuffle keeps the entry count" 2688 "$(count "$work/sh.tri")"
expect_eq "shuffle keeps the total" "$(total "$work/s7.tri")" "$(total "$work/sh.tri")"
if cmp -s "$work/s7.tri" "$work/sh.tri"; then not_ok "shuffle moves tasks"; else ok "shuffle moves tasks"; fi
# round-robin hop-bytes change when the ranks are shuffled (the point of --shuffle)
t="tleaf 3 16 100 2 10 16 1"
run "$tm" map -t "$t" -c "$work/s7.tri" --mapper round-robin --json
h0=$(json_get hop_bytes)
run "$tm" map -t "$t" -c "$work/sh.tri" --mapper round-robin --json
h1=$(json_get hop_bytes)
expect_eq "shuffled stencil costs more in natural order" 1 "$(echo "$h0 $h1" | awk '{print ($2 > $1)}')"

"$tm" gen stencil2d --dims 8x8 --noise gm:0.5 --seed 3 --out "$work/n.tri"
neg=$(grep -v '^#' "$work/n.tri" | awk '$3 < 0' | wc -l | tr -d ' ')
expect_eq "noise: no negative weight" 0 "$neg"
if cmp -s "$work/n.tri" "$(echo "$work/s7.tri")"; then not_ok "noise changes weights"; else ok "noise changes weights"; fi
"$tm" gen stencil2d --dims 4x4 --noise ua:1 --seed 3 --out "$work/ua.tri"
expect_eq "additive noise fills zero entries (some of 240)" 1 \
	"$(count "$work/ua.tri" | awk '{print ($1 > 48)}')"

# output format from the file suffix
"$tm" gen stencil2d --dims 4x4 --out "$work/x.mtx"
expect_eq ".mtx is Matrix Market" "%%MatrixMarket" "$(head -c 14 "$work/x.mtx")"
"$tm" gen stencil2d --dims 4x4 --out "$work/x.mat"
expect_eq ".mat is dense: 16 lines" 16 "$(grep -c . "$work/x.mat")"
"$tm" gen stencil2d --dims 4x4 --out "$work/x.grf"
expect_eq ".grf is a Scotch graph" 0 "$(head -n 1 "$work/x.grf")"
# a failed generation leaves no file behind
run "$tm" gen alltoall --tasks 100000 --out "$work/big.tri"
expect_eq "failed gen: no output file" no "$([ -e "$work/big.tri" ] && echo yes || echo no)"
finish

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
# NAS-like kernels: exact entry counts and weights (tests/unit/test_gen.c
# derives them), the process-count rules
"$tm" gen cg --tasks 64 --out "$work/cg.tri"
expect_eq "cg 64: rows of 8, 3 partners each + 56 transposes" 248 "$(count "$work/cg.tri")"
expect_eq "cg 64 class A: row partner and transpose of task 10" "10 8 5466480|10 11 5466480|10 14 5466480|10 17 5460000" \
	"$(grep '^10 ' "$work/cg.tri" | tr '\n' '|' | sed 's/|$//')"
"$tm" gen lu --tasks 16 --out "$work/lu.tri"
expect_eq "lu 16: a 4x4 mesh" 48 "$(count "$work/lu.tri")"
expect_eq "lu 16 class A: 40 x 16 x 190 x 250 per neighbour" 30400000 \
	"$(awk '$1 == 5 && $2 == 9 {print $3}' "$work/lu.tri")"
"$tm" gen mg --tasks 8 --class S --out "$work/mg.tri"
expect_eq "mg 8 class S: 3 partners each, 87296 bytes" "24 2095104" \
	"$(grep -v '^#' "$work/mg.tri" | awk '{n++; s += $3} END {print n, s}')"
"$tm" gen mg --tasks 64 --class s --out "$work/mg64.tri"
expect_eq "mg 64: level 1's partner at distance 2" 256 \
	"$(awk '$1 == 0 && $2 == 2 {print $3}' "$work/mg64.tri")"
"$tm" gen ft --tasks 4 --class S --out "$work/ft.tri"
expect_eq "ft 4 class S: one all-to-all" "12 22020096" \
	"$(grep -v '^#' "$work/ft.tri" | awk '{n++; s += $3} END {print n, s}')"
"$tm" gen ft --tasks 128 --class S --out "$work/ft128.tri"
expect_eq "ft 128 class S: rows of 2 and columns of 64" 8192 "$(count "$work/ft128.tri")"
"$tm" gen bt --tasks 4 --class S --out "$work/bt.tri"
expect_eq "bt 4 class S" "12 11404800" \
	"$(grep -v '^#' "$work/bt.tri" | awk '{n++; s += $3} END {print n, s}')"
"$tm" gen sp --tasks 4 --class S --out "$work/sp.tri"
expect_eq "sp 4 class S: the same shape" "12 17971200" \
	"$(grep -v '^#' "$work/sp.tri" | awk '{n++; s += $3} END {print n, s}')"
"$tm" gen bt --tasks 9 --class S --out "$work/bt9.tri"
expect_eq "bt 9: task 0's partners, diagonal ones included" "1 2 3 5 6 7" \
	"$(awk '$1 == 0 {printf "%s%s", sep, $2; sep = " "}' "$work/bt9.tri")"
run "$tm" gen cg --tasks 6
expect_eq "cg on 6: power of two" \
	"1:topomatch gen: cg runs on a power-of-two number of processes (NPB): 6 is not one (4 or 8 are)" \
	"$rc:$err"
run "$tm" gen sp --tasks 8
expect_eq "sp on 8: square" \
	"1:topomatch gen: sp runs on a square number of processes (NPB): 8 is not one (4 or 9 are)" \
	"$rc:$err"
run "$tm" gen lu --tasks 512 --class B
expect_contains "lu class B on 512 (TopoMatch footnote 9)" "at most 256 processes for this class" "$err"
expect_eq "lu class B on 512: exit 1" 1 "$rc"
run "$tm" gen ft --tasks 8192 --class S
expect_contains "ft on more processes than the class allows" "at most 4096 (n2 x n3)" "$err"
run "$tm" gen mg --tasks 8 --class Q
expect_eq "--class Q: usage" 2 "$rc"
run "$tm" gen bt
expect_eq "bt without --tasks: usage" "2:bt needs --tasks N" "$rc:$(echo "$err" | head -n 1 | sed 's/^topomatch gen: //')"

# --from-profile: recognise a stencil, write it at another size
"$tm" gen stencil2d --dims 8x4 --weights 1000,500 --out "$work/p2.tri"
run "$tm" gen --from-profile "$work/p2.tri" --tasks 128 --out "$work/p2x.tri"
expect_eq "from-profile: what it saw, on stderr" \
	"topomatch gen: $work/p2.tri: 2D 5-point stencil 8x4, weights 1000,500, wrap 0,0; writing 16x8" "$err"
"$tm" gen stencil2d --dims 16x8 --weights 1000,500 --out "$work/p2d.tri"
expect_eq "from-profile --tasks 128: the 16x8 stencil" "$(cat "$work/p2d.tri")" "$(cat "$work/p2x.tri")"
"$tm" gen stencil3d --dims 4x4x2 --periodic --points 27 --weights 10,20,30 --out "$work/p3.mtx"
"$tm" gen --from-profile "$work/p3.mtx" --dims 6x5x4 --out "$work/p3x.tri" 2>/dev/null
"$tm" gen stencil3d --dims 6x5x4 --periodic --points 27 --weights 10,20,30 --out "$work/p3d.tri"
expect_eq "from-profile --dims, 27 points, periodic, from Matrix Market" \
	"$(cat "$work/p3d.tri")" "$(cat "$work/p3x.tri")"
run "$tm" gen --from-profile "$work/lu.tri" --tasks 64
expect_contains "lu is a 2D mesh" "2D 5-point stencil 4x4, weights 30400000,30400000, wrap 0,0; writing 8x8" "$err"
run "$tm" gen --from-profile "$work/cg.tri" --tasks 16
expect_eq "cg is not a stencil: exit 1" 1 "$rc"
expect_contains "cg is not a stencil" "$work/cg.tri: not recognised as a 2D/3D stencil: the closest grid" "$err"
"$tm" convert "$data/ompi_monitoring/ring_e1" --out "$work/ring.tri"
run "$tm" gen --from-profile "$work/ring.tri" --tasks 16
expect_contains "a recorded ring is not a 2D/3D stencil" "no grid of 4 tasks fits the neighbours of task 0" "$err"
"$tm" gen stencil2d --dims 8x8 --out "$work/s88.tri"
"$tm" gen random --tasks 64 --degree 1 --max-weight 1 --seed 9 --out "$work/noise.tri"
{ cat "$work/s88.tri"; grep -v "^#" "$work/noise.tri"; } >"$work/mixed.tri"
run "$tm" gen --from-profile "$work/mixed.tri" --tasks 16 --tolerance 0
expect_contains "--tolerance 0: extra links refuse it" "links off the stencil weigh" "$err"
run "$tm" gen --from-profile "$work/mixed.tri" --tasks 16 --tolerance 0.5
expect_eq "--tolerance 0.5: accepted" 0 "$rc"
run "$tm" gen --from-profile "$work/p2.tri" --dims 4x4x4
expect_eq "--dims of the wrong rank" \
	"1:topomatch gen: $work/p2.tri is a 2D stencil (8x4): --dims needs 2 sizes" "$rc:$err"
run "$tm" gen --from-profile "$work/nothing.tri" --tasks 4
expect_eq "missing profile: exit 1" 1 "$rc"
for bad in "--from-profile $work/p2.tri" "--from-profile $work/p2.tri --tasks 4 --dims 2x2" \
	"stencil2d --from-profile $work/p2.tri --tasks 4" "--from-profile $work/p2.tri --tasks 4 --tolerance 2"; do
	# shellcheck disable=SC2086
	run "$tm" gen $bad
	expect_eq "usage error exits 2: $bad" 2 "$rc"
done
run "$tm" gen --help
expect_contains "--help lists the NAS kinds" "cg, lu, mg, ft, bt, sp" "$out"
expect_contains "--help lists --from-profile" "--from-profile FILE" "$out"
finish

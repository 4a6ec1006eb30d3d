#!/bin/sh
# topomatch map with eagermap, greedymap and parmapper: option strings
# (NAME:OPTIONS), --threads (the mapping does not change), constraints, and
# the messages of bad options.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
topo="tleaf 3 4 100 4 10 4 1" # 4 nodes x 4 sockets x 4 cores

"$tm" gen stencil3d --dims 4x4x4 --weights 1000,500,100 --shuffle 3 --out "$work/s.mtx"
"$tm" gen stencil3d --dims 4x4x4 --weights 1000,500,100 --out "$work/n.mtx"
run "$tm" map -t "$topo" -c "$work/n.mtx" --mapper round-robin --json
natural=$(json_get hop_bytes)

for m in eagermap greedymap parmapper "greedymap:order=bfs-dfs,pack=1,delta=0" \
	"parmapper:alpha=1.2,work=100000"; do
	run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper "$m" --out "$work/1.map" --json
	expect_eq "$m: exit 0" 0 "$rc"
	expect_eq "$m: mapper named without its options" "${m%%:*}" "$(json_get mapper)"
	expect_eq "$m: a permutation of the 64 PUs" "$(seq 0 63)" "$(sort -n "$work/1.map")"
	hb=$(json_get hop_bytes)
	expect_eq "$m: within 1.25 x the natural placement" yes \
		"$("$PYTHON3" -c "print('yes' if $hb <= 1.25 * $natural else '$hb vs $natural')")"
	"$tm" map -t "$topo" -c "$work/s.mtx" --mapper "$m" --threads 3 --out "$work/3.map" >/dev/null
	"$tm" map -t "$topo" -c "$work/s.mtx" --mapper "$m" --threads 0 --out "$work/0.map" >/dev/null
	expect_eq "$m: --threads 3, same mapping" "$(cat "$work/1.map")" "$(cat "$work/3.map")"
	expect_eq "$m: --threads 0, same mapping" "$(cat "$work/1.map")" "$(cat "$work/0.map")"
done

# constraints and oversubscription: 64 tasks on 24 allowed PUs, 3 each at most
seq 8 31 >"$work/c.con"
for m in eagermap greedymap parmapper; do
	run "$tm" map -t "$topo" -c "$work/s.mtx" -b "$work/c.con" --oversub 3 --mapper $m \
		--out "$work/c.map"
	expect_eq "$m -b -o 3: exit 0" 0 "$rc"
	expect_eq "$m -b -o 3: allowed PUs only" 0 "$(awk '$1 < 8 || $1 > 31' "$work/c.map" | wc -l | tr -d ' ')"
	expect_eq "$m -b -o 3: at most 3 per PU" 0 \
		"$(sort -n "$work/c.map" | uniq -c | awk '$1 > 3' | wc -l | tr -d ' ')"
done

# on a torus: the shuffled stencil comes back to the natural placement
"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --shuffle 1 --out "$work/t.mtx"
"$tm" gen stencil3d --dims 8x8x8 --shuffle 1 --out "$work/e.mtx"
for m in eagermap greedymap parmapper; do
	run "$tm" map -t "torus3D 8 8 8" -c "$work/t.mtx" --mapper $m --json
	expect_eq "$m on torus3D 8 8 8: 1 hop per byte" 1433600 "$(json_get hop_bytes)"
	run "$tm" map -t "torus3D 8 8 8" -c "$work/e.mtx" --mapper $m --json
	expect_eq "$m on torus3D 8 8 8, equal faces: 1 hop per byte" 2688 "$(json_get hop_bytes)"
done

run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper greedymap:order=random
expect_eq "bad order: exit 1" 1 "$rc"
expect_contains "bad order: says why" \
	"greedymap: order must be oo, bfs, bfs-dfs or gpart (got 'random')" "$err"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper eagermap:fast
expect_eq "eagermap with options: exit 1" 1 "$rc"
expect_contains "eagermap with options: says why" "mapper 'eagermap' takes no options" "$err"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper parmapper:alpha=0.9
expect_contains "alpha below 1: says why" "parmapper: alpha must be a number >= 1" "$err"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper eagermapx
expect_eq "unknown mapper: usage error" 2 "$rc"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper eagermap --threads 300
expect_eq "--threads 300: usage error" 2 "$rc"
expect_contains "--threads 300: says why" "--threads" "$err"
run "$tm" map --help
expect_contains "help lists eagermap" "eagermap (EagerMap, TOPC 2019)" "$out"
expect_contains "help lists --threads" "--threads N" "$out"

finish

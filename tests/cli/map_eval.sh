#!/bin/sh
# topomatch map: mappings are valid, reproducible, respect constraints and
# oversubscription, and eval of the written mapping gives map's metrics.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
topo="tleaf 2 4 10 4 1" # 4 nodes x 4 cores

# TreeMatch's 8-process example (Fig. 1): pairs talk most, then pairs of pairs
"$tm" gen hierarchical --arity 2,2,2 --seed 5 --out "$work/h.mat"
"$tm" gen stencil2d --dims 4x4 --weights 10,1 --out "$work/s.mtx"

run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper round-robin --out "$work/rr.map" --json
expect_eq "round-robin: exit 0" 0 "$rc"
expect_eq "round-robin: task i on PU i" "$(seq 0 15 | tr '\n' ' ')" "$(tr '\n' ' ' <"$work/rr.map")"
expect_eq "round-robin: mapper named" "round-robin" "$(json_get mapper)"
expect_eq "round-robin: tasks" 16 "$(json_get tasks)"
# map's report has what eval's has, and why and the natural placement
map_json=$(json_without time_s mapper reason natural_hop_bytes hop_bytes_vs_natural)
run "$tm" eval -t "$topo" -c "$work/s.mtx" -s "$work/rr.map" --json
expect_eq "eval of map's output = map's metrics" "$map_json" "$(json_without time_s mapper)"
# hand-computed: 4x4 stencil, x neighbours (weight 10) inside a node (2 hops),
# y neighbours (weight 1) across nodes (4 hops): 2*12*10*2 + 2*12*1*4 = 576
expect_eq "round-robin hop-bytes by hand" 576 "$(json_get hop_bytes)"

run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper random --seed 9 --out "$work/r1.map"
"$tm" map -t "$topo" -c "$work/s.mtx" --mapper random --seed 9 --out "$work/r2.map" >/dev/null
"$tm" map -t "$topo" -c "$work/s.mtx" --mapper random --seed 10 --out "$work/r3.map" >/dev/null
expect_eq "random: same seed, same mapping" "$(cat "$work/r1.map")" "$(cat "$work/r2.map")"
if cmp -s "$work/r1.map" "$work/r3.map"; then not_ok "random: other seed, other mapping"
else ok "random: other seed, other mapping"; fi
expect_eq "random: a permutation of the 16 PUs" "$(seq 0 15)" "$(sort -n "$work/r1.map")"

# constraints: only PUs 3..10 and 12 may be used; 8 tasks of the hierarchy
printf '3 4 5\n6 7\n# a comment\n8 9 10 12\n' >"$work/c.con"
for m in round-robin random auto; do
	"$tm" map -t "$topo" -c "$work/h.mat" -b "$work/c.con" --mapper $m --out "$work/c.map" >/dev/null
	bad=$(grep -cvxE '3|4|5|6|7|8|9|10|12' "$work/c.map")
	expect_eq "$m: every task on an allowed PU" 0 "$bad"
	expect_eq "$m: no PU used twice" 8 "$(sort -u "$work/c.map" | wc -l | tr -d ' ')"
done
"$tm" map -t "$topo" -c "$work/h.mat" -b "$work/c.con" --mapper round-robin --out "$work/c.map" >/dev/null
expect_eq "round-robin with constraints: allowed PUs in order" "3 4 5 6 7 8 9 10" \
	"$(tr '\n' ' ' <"$work/c.map" | sed 's/ $//')"

# oversubscription: 16 tasks on 4 PUs with -o 4
"$tm" gen random --tasks 16 --degree 3 --out "$work/r16.tri"
run "$tm" map -t "tleaf 1 4 1" -c "$work/r16.tri" --oversub 4 --mapper random --out "$work/o.map"
expect_eq "oversub 4: exit 0" 0 "$rc"
expect_eq "oversub 4: each PU holds 4 tasks" "4 4 4 4" \
	"$(sort -n "$work/o.map" | uniq -c | awk '{printf "%s ", $1}' | sed 's/ $//')"
run "$tm" map -t "tleaf 1 4 1" -c "$work/r16.tri" --oversub 3
expect_eq "oversub 3 too small for 16 tasks: exit 1" 1 "$rc"

# auto is never worse than round-robin and is reproducible
rr=$("$tm" map -t "$topo" -c "$work/h.mat" --mapper round-robin --json)
run "$tm" map -t "$topo" -c "$work/h.mat" --json
a1=$out
hb_auto=$(json_get hop_bytes)
out=$rr
hb_rr=$(json_get hop_bytes)
expect_eq "auto <= round-robin" 1 "$(echo "$hb_auto $hb_rr" | awk '{print ($1 <= $2)}')"
run "$tm" map -t "$topo" -c "$work/h.mat" --json
a2=$(json_without time_s)
out=$a1
expect_eq "auto: reproducible" "$(json_without time_s)" "$a2"

# the wall-clock guard: past the budget the natural placement is kept, said on stderr
"$tm" gen random --tasks 20000 --degree 2 --out "$work/big.tri"
run "$tm" map -t "tleaf 2 200 10 100 1" -c "$work/big.tri" --mapper random \
	--time-budget 0.000000001 --json
expect_eq "guard: exit 0" 0 "$rc"
expect_eq "guard: fell back to round-robin" round-robin "$(json_get mapper)"
expect_contains "guard: said on stderr" "time budget of 1e-09 s exceeded" "$err"
for m in auto treematch scotch; do
	run "$tm" map -t "tleaf 2 200 10 100 1" -c "$work/big.tri" --mapper $m \
		--time-budget 0.000000001 --json
	expect_eq "guard, $m: falls back to round-robin" "0 round-robin" "$rc $(json_get mapper)"
done
run "$tm" map -t "tleaf 2 200 10 100 1" -c "$work/big.tri" --mapper random --time-budget 60 --json
expect_eq "generous budget: random mapping kept" random "$(json_get mapper)"

# --json prints exactly one JSON object with the documented keys
run "$tm" map -t "$topo" -c "$work/s.mtx" --json
keys=$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(json.load(sys.stdin)))')
expect_eq "JSON keys" "mapper reason tasks topology hop_bytes sum_com max_com avg_task_hop_bytes max_task_hop_bytes max_link_load natural_hop_bytes hop_bytes_vs_natural time_s" "$keys"

# text output, --out - and the pattern from a pipe
run sh -c "cat '$work/s.mtx' | '$tm' map -t '$topo' -c - --mapper round-robin --out -"
expect_eq "--out -: the mapping on stdout" "$(seq 0 15)" "$out"
expect_contains "--out -: the metrics on stderr" "hop_bytes           576" "$err"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper round-robin
expect_contains "text output names the mapper" "round-robin" "$out"
expect_contains "text output has hop_bytes" "hop_bytes           576" "$out"

# a topology given as a file
printf '# 4 nodes of 4 cores\ntleaf 2\n 4 10\n 4 1\n' >"$work/topo.tgt"
run "$tm" map -t "$work/topo.tgt" -c "$work/s.mtx" --mapper round-robin --json
expect_eq "topology from a file" 576 "$(json_get hop_bytes)"

# help for every subcommand
for c in map eval gen; do
	run "$tm" $c --help
	expect_eq "$c --help: exit 0" 0 "$rc"
	expect_contains "$c --help: usage line" "Usage: topomatch $c" "$out"
done
run "$tm" --version
expect_contains "--version" "topomatch (slurm-topomatch)" "$out"
finish

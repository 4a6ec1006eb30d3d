#!/bin/sh
# topomatch eval against the independent reference script (tests/hopbytes_ref.py).
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
ref="$PYTHON3 $top_srcdir/tests/hopbytes_ref.py"
topo="tleaf 3 16 100 2 10 16 1"

# Acceptance: 8x8x8 3D stencil, round-robin mapping, on the Plafrim-like tree.
"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --out "$work/s.mtx"
seq 0 511 >"$work/rr.map"
run "$tm" eval -t "$topo" -c "$work/s.mtx" -s "$work/rr.map" --json
expect_eq "eval exits 0" 0 "$rc"
expected=$($ref stencil3d 8 8 8 1000 500 100 "$topo")
expect_eq "round-robin hop-bytes = independent reference" "$expected" "$(json_get hop_bytes)"
run "$tm" map -t "$topo" -c "$work/s.mtx" --mapper round-robin --json
expect_eq "map round-robin hop-bytes = reference" "$expected" "$(json_get hop_bytes)"

# hop_bytes, sum_com and max_com of random mappings on several topologies
for t in "tleaf 3 16 100 2 10 16 1" "torus3D 8 8 8" "mesh3D 8 8 8" "tleaf 2 32 7 16 3"; do
	for seed in 1 2; do
		"$tm" map -t "$t" -c "$work/s.mtx" --mapper random --seed $seed --out "$work/r.map" >/dev/null
		run "$tm" eval -t "$t" -c "$work/s.mtx" -s "$work/r.map" --json
		got="$(json_get hop_bytes) $(json_get sum_com) $(json_get max_com)"
		want=$($ref eval "$work/s.mtx" "$work/r.map" "$t" | awk '{printf "%.17g %.17g %.17g", $1, $2, $3}')
		got=$(echo "$got" | awk '{printf "%.17g %.17g %.17g", $1, $2, $3}')
		expect_eq "metrics = reference: $t, random seed $seed" "$want" "$got"
	done
done
finish

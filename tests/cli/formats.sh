#!/bin/sh
# The same matrix in dense, Matrix Market, triplet and Scotch .grf form gives
# the same metrics: auto-detected, forced with --format, and read from a pipe.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
topo="tleaf 3 16 100 2 10 16 1"

metrics_of() { # PATTERN [extra args]: eval's JSON without time_s
	p=$1
	shift
	"$tm" eval -t "$topo" -c "$p" -s "$work/map" --json "$@" | sed 's/, "time_s": [^}]*//'
}

# a symmetric stencil and an asymmetric random pattern, integer weights (for .grf)
for kind in stencil random; do
	for fmt in mm dense triplets grf; do
		if [ $kind = stencil ]; then
			"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --format $fmt \
				--out "$work/$kind.$fmt"
		else
			"$tm" gen random --tasks 512 --degree 5 --max-weight 50 --seed 3 \
				--format $fmt --out "$work/$kind.$fmt"
		fi
	done
	"$tm" map -t "$topo" -c "$work/$kind.mm" --mapper random --seed 7 --out "$work/map" >/dev/null
	ref=$(metrics_of "$work/$kind.mm")
	expect_contains "$kind: metrics computed" '"hop_bytes"' "$ref"
	for fmt in dense triplets grf; do
		expect_eq "$kind: $fmt (auto-detected) = mm" "$ref" "$(metrics_of "$work/$kind.$fmt")"
		expect_eq "$kind: $fmt (forced) = mm" "$ref" \
			"$(metrics_of "$work/$kind.$fmt" --format $fmt)"
		expect_eq "$kind: $fmt from a pipe = mm" "$ref" \
			"$(cat "$work/$kind.$fmt" | metrics_of - )"
	done
done

# a forced format that does not match the file is refused, naming a line
run "$tm" eval -t "$topo" -c "$work/stencil.triplets" -s "$work/map" --format dense
expect_eq "triplets read as dense: exit 1" 1 "$rc"
expect_contains "triplets read as dense: names file and line" "stencil.triplets:" "$err"
finish

#!/bin/sh
# Issue 21, point 3: every target `topomatch topo export --scotch` writes for
# the example clusters is read by Scotch's own mapper (scotch_gmap, Debian's
# scotch package, installed by contrib/deps.sh), and by `topomatch map -t`
# when it is a tleaf, torus or mesh; a deco target is refused by map -t with
# the way out.  Skipped (77) without scotch_gmap.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
gmap=$(command -v scotch_gmap || command -v gmap) ||
	{ echo "SKIP: no scotch_gmap (apt-get install scotch, or contrib/deps.sh)"; exit 77; }
"$tm" gen stencil2d --dims 4x4 --format grf --out "$work/s16.grf"
"$tm" gen stencil2d --dims 4x4 --out "$work/s16.mtx"
for c in "$top_srcdir"/conf/*.yaml; do
	b=$(basename "$c" .yaml)
	"$tm" topo export --scotch "$c" -o "$work/$b.tgt" 2>/dev/null
	# scotch_gmap's map file: the vertex count, then "vertex terminal" lines
	"$gmap" "$work/s16.grf" "$work/$b.tgt" "$work/$b.map" 2>"$work/gmap.err"
	expect_eq "$b: Scotch's gmap maps onto the exported target" "0 16 16" \
		"$? $(head -1 "$work/$b.map" 2>/dev/null) $(awk 'NR > 1 && NF == 2' "$work/$b.map" 2>/dev/null | wc -l | tr -d ' ')"
	case $(head -1 "$work/$b.tgt") in
	deco*)
		run "$tm" map -t "$work/$b.tgt" -c "$work/s16.mtx"
		expect_contains "$b: map -t refuses the deco target with the way out" \
			"$b.tgt:1: 'deco' (decomposition-defined) targets are not read here yet: give the cluster description they were exported from (-t FILE.yaml)" "$err"
		;;
	*)
		run "$tm" map -q -t "$work/$b.tgt" -c "$work/s16.mtx" --mapper round-robin --json
		expect_eq "$b: map -t reads the exported $(head -1 "$work/$b.tgt")" 0 "$rc"
		;;
	esac
done
finish

#!/bin/sh
# libtopomatch's layers (core/README.md): tests/layers.py finds no include
# or call that goes the wrong way and no two files of core/ that depend on
# each other, in the sources and in the objects of this build; and it
# finds each kind of fault in a small tree made to have them.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
: "${top_builddir:?run through make check}"
: "${CC:=cc}"
layers=$top_srcdir/tests/layers.py

run "$PYTHON3" "$layers" "$top_srcdir" "$top_builddir"
expect_eq "the project: no fault" "0 layers: 0 faults" "$rc $out"

# A tree with one fault of each kind: pattern includes a header of map; a
# tool includes an internal header; base/x.c and base/y.c call each other;
# topology/t.c calls pattern/p.c.
t=$work/tree
b=$work/build
mkdir -p "$t/core/base" "$t/core/pattern" "$t/core/map" "$t/core/topology" "$t/tools" \
	"$b/core/base" "$b/core/pattern" "$b/core/topology"
printf '#include "map/m.h"\nint p(void) { return 1; }\n' >"$t/core/pattern/p.c"
printf '/* map */\n' >"$t/core/map/m.h"
printf '/* base */\n' >"$t/core/base/b.h"
printf '#include "base/b.h"\n#include "topomatch.h"\n' >"$t/tools/tool.c"
: >"$t/core/topomatch.h"
printf 'int y(int);\nint x(int n) { return n ? y(n - 1) : 0; }\n' >"$t/core/base/x.c"
printf 'int x(int);\nint y(int n) { return n ? x(n - 1) : 1; }\n' >"$t/core/base/y.c"
printf 'int p(void);\nint t(void) { return p(); }\n' >"$t/core/topology/t.c"
for f in base/x base/y pattern/p topology/t; do
	$CC -c -o "$b/core/$(dirname $f)/libtopomatch_la-$(basename $f).o" "$t/core/$f.c" \
		-I"$t/core" || exit 99
done
run "$PYTHON3" "$layers" "$t" "$b"
expect_eq "faults: exit 1" 1 "$rc"
expect_contains "an include into a higher layer" \
	"core/pattern/p.c (pattern) includes core/map/m.h (map): pattern may use only base, pattern" "$out"
expect_contains "an internal header outside the library" \
	"tools/tool.c includes core/base/b.h: outside the library only the installed headers" "$out"
expect_contains "a call into a layer beside" "core/topology/t.c (topology) calls core/pattern/p.c (pattern): p" "$out"
expect_contains "two files that call each other" \
	"files that depend on each other: core/base/x.c -> core/base/y.c (y); core/base/y.c -> core/base/x.c (x)" "$out"
expect_contains "counted" "layers: 4 faults" "$out"

# without objects the check says so instead of passing
run "$PYTHON3" "$layers" "$t" "$work/empty"
expect_eq "no objects: exit 1, said" "1 $work/empty: no libtopomatch objects (build the library first)" \
	"$rc $(printf '%s' "$out" | grep objects)"

finish

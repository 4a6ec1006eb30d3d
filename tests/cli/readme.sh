#!/bin/sh
# Issue 21: the README's "map a matrix in 30 seconds" runs as written.  The
# command lines between its quickstart markers are run (tools/topomatch is
# the build's topomatch) in an empty directory, and what they print, both
# streams, must be the output the README shows, but for the time it took.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
readme=$top_srcdir/README.md
# the lines of the block: everything from "```sh" to "```" after the marker
sed -n '/^<!-- quickstart:begin/,/^<!-- quickstart:end/p' "$readme" |
	sed -n '/^```sh$/,/^```$/p' | grep -v '^```' >"$work/cmds"
sed -n '/^<!-- quickstart:output -->/,/^<!-- quickstart:output-end -->/p' "$readme" |
	sed -n '/^```$/,/^```$/p' | grep -v '^```' | grep -v '^time_s ' >"$work/expected"
expect_eq "README: two quickstart commands found" 2 "$(wc -l <"$work/cmds" | tr -d ' ')"
expect_eq "README: the output shown has the report" 1 "$(grep -c '^vs_natural ' "$work/expected")"
mkdir "$work/run" "$work/run/tools"
# tools/topomatch, as in build/ (a link: under valgrind too, $tm is the wrapper)
ln -s "$tm" "$work/run/tools/topomatch"
(cd "$work/run" && sh -e "$work/cmds") >"$work/got" 2>&1
expect_eq "README: the quickstart commands succeed" 0 "$?"
expect_eq "README: the output is the one shown (but time_s)" "$(cat "$work/expected")" \
	"$(grep -v '^time_s ' "$work/got")"
expect_eq "README: pat.map has a PU for each of the 64 tasks" 64 \
	"$(sort -u "$work/run/pat.map" 2>/dev/null | wc -l | tr -d ' ')"
finish

#!/bin/sh
# Bad input and bad usage: clear messages naming file and line, exit 1 for
# bad input, 2 for bad usage, never a crash.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
topo="tleaf 1 4 1"
printf '0 1 0 0\n1 0 1 0\n0 1 0 1\n0 0 1 0\n' >"$work/ok.mat"

# Acceptance: a non-number on line 3 is refused with a message naming line 3.
run "$tm" map -t "$topo" -c "$data/cli/nonnumber_line3.mat"
expect_eq "non-number: exit 1" 1 "$rc"
expect_contains "non-number: names file and line 3" "nonnumber_line3.mat:3:" "$err"
expect_contains "non-number: quotes the token" "'x'" "$err"
expect_eq "non-number: nothing on stdout" "" "$out"
run "$tm" eval -t "$topo" -c "$data/cli/nonnumber_line3.mat" -s /dev/null
expect_contains "eval: same message" "nonnumber_line3.mat:3:" "$err"

run "$tm" map -t "$topo" -c "$work/missing.mat"
expect_eq "missing pattern: exit 1" 1 "$rc"
expect_contains "missing pattern: names the file" "missing.mat" "$err"

run "$tm" map -t "tleef 1 4 1" -c "$work/ok.mat"
expect_eq "bad topology: exit 1" 1 "$rc"
expect_contains "bad topology: names the word" "tleef" "$err"

run "$tm" map -t "tleaf 1 2 1" -c "$work/ok.mat"
expect_eq "too many tasks: exit 1" 1 "$rc"
expect_contains "too many tasks: says so" "4 tasks do not fit on 2 PUs" "$err"
run "$tm" map -t "tleaf 1 2 1" -c "$work/ok.mat" --oversub 2 --json
expect_eq "oversubscription 2 fits: exit 0" 0 "$rc"

printf '0 1\n5\n' >"$work/bad.con"
run "$tm" map -t "$topo" -c "$work/ok.mat" -b "$work/bad.con"
expect_eq "constraint out of range: exit 1" 1 "$rc"
expect_contains "constraint out of range: file and line" "bad.con:2: PU id 5 out of range" "$err"
printf '0 1 1 2\n' >"$work/dup.con"
run "$tm" map -t "$topo" -c "$work/ok.mat" -b "$work/dup.con"
expect_contains "constraint repeated: file and line" "dup.con:1: PU id 1 listed twice" "$err"
printf '0 1 2\n' >"$work/few.con"
run "$tm" map -t "$topo" -c "$work/ok.mat" -b "$work/few.con"
expect_contains "too few allowed PUs" "4 tasks do not fit on 3 PUs" "$err"

printf '0\n1\n2\n' >"$work/short.map"
run "$tm" eval -t "$topo" -c "$work/ok.mat" -s "$work/short.map"
expect_eq "short mapping: exit 1" 1 "$rc"
expect_contains "short mapping: says how many" "3 PU ids for 4 tasks" "$err"
printf '0\n1\n2\n3\n0\n' >"$work/long.map"
run "$tm" eval -t "$topo" -c "$work/ok.mat" -s "$work/long.map"
expect_contains "long mapping: names line 5" "long.map:5:" "$err"
printf '0\n0\n1\n2\n' >"$work/double.map"
run "$tm" eval -t "$topo" -c "$work/ok.mat" -s "$work/double.map" --oversub 1
expect_eq "doubled PU with -o 1: exit 1" 1 "$rc"
expect_contains "doubled PU with -o 1: names the PU" "PU 0" "$err"

# the pattern limits (SECURITY.md): at each (4 tasks, 6 non-zeros, 32
# bytes), and one past with file and line
run "$tm" map -t "$topo" -c "$work/ok.mat" --max-tasks 4 --max-nnz 6 --max-bytes 32
expect_eq "at the task, non-zero and byte limits: exit 0" 0 "$rc"
run "$tm" map -t "$topo" -c "$work/ok.mat" --max-tasks 3
expect_eq "over the task limit: exit 1" 1 "$rc"
expect_contains "over the task limit: file and line" \
	"ok.mat:1: 4 tasks: more than the limit of 3 tasks" "$err"
run "$tm" map -t "$topo" -c "$work/ok.mat" --max-nnz 5
expect_eq "over the non-zero limit: exit 1" 1 "$rc"
expect_contains "over the non-zero limit: file and line" \
	"ok.mat:4: more than 5 non-zeros (limit)" "$err"
run "$tm" map -t "$topo" -c "$work/ok.mat" --max-bytes 31
expect_eq "over the byte limit: exit 1" 1 "$rc"
expect_contains "over the byte limit: file and line" \
	"ok.mat:4: larger than the limit of 31 bytes" "$err"
run "$tm" map -t "$topo" -c "$work/ok.mat" --max-bytes 10
expect_contains "over the byte limit" "limit of 10 bytes" "$err"

# usage errors: exit 2 with a hint
run "$tm" map -c "$work/ok.mat"
expect_eq "no topology: exit 2" 2 "$rc"
expect_contains "no topology: hint" "topomatch map --help" "$err"
run "$tm" map -t "$topo" -c "$work/ok.mat" --mapper nosuch
expect_eq "unknown mapper: exit 2" 2 "$rc"
expect_contains "unknown mapper: named" "nosuch" "$err"
run "$tm" map -t "$topo" -c "$work/ok.mat" --seed -4
expect_eq "negative seed: exit 2" 2 "$rc"
run "$tm" map -t "$topo" -c "$work/ok.mat" --format csv
expect_eq "unknown format: exit 2" 2 "$rc"
run "$tm" map -t "$topo" -c "$work/ok.mat" --oversub 0
expect_eq "oversub 0: exit 2" 2 "$rc"
run "$tm" frobnicate
expect_eq "unknown command: exit 2" 2 "$rc"
run "$tm" gen stencil3d --dims 8x8
expect_eq "stencil3d with 2 dims: exit 2" 2 "$rc"
run "$tm" gen cubes --tasks 4
expect_contains "unknown kind: named" "cubes" "$err"
run "$tm" gen hierarchical --arity 2,2 --ratio 1.05 --jitter 0.5
expect_eq "jitter breaking the hierarchy: exit 1" 1 "$rc"
run "$tm" gen alltoall --tasks 100000
expect_eq "huge all-to-all refused: exit 1" 1 "$rc"
finish

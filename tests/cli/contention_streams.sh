#!/bin/sh
# bench/contention_streams.sh, issue 20's benchmark, on streams of 40 jobs
# (seconds, not the benchmark's minutes): a row per stream, none failed,
# topomatch's hop-bytes under slurm-linear's on each, the summary of the
# targets, the outputs in TMPDIR, bad arguments refused.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
build=$(cd "$(dirname "$TOPOMATCH")/.." && pwd)
cs=$top_srcdir/bench/contention_streams.sh

run env TMPDIR="$work" BUILD_DIR="$build" sh "$cs" --jobs 40 --windows dragonfly --mix issue
expect_eq "exit 0" 0 "$rc"
expect_eq "a row per stream" 8 "$(printf '%s\n' "$out" | grep -c '^| issue dragonfly512-[1-8] |')"
expect_eq "no stream failed" 0 "$(printf '%s\n' "$out" | grep -c FAILED)"
expect_eq "topomatch's hop-bytes under slurm-linear's on every stream" 8 \
	"$(printf '%s\n' "$out" | awk -F'|' '/^\| issue/ && $4 + 0 > 0 && $4 + 0 < 1' | wc -l)"
# 40 jobs leave the 512 nodes idle most of the time
expect_contains "the summary: no stream loaded" "issue mix: no loaded stream" "$out"
expect_contains "the work directory in TMPDIR" "outputs in $work/contention-streams." "$out"
dir=$(printf '%s\n' "$out" | sed -n 's/.*outputs in //p')
run env BUILD_DIR="$build" sh "$cs" --rows "$dir"
expect_eq "--rows: the same rows again" 8 "$(printf '%s\n' "$out" | grep -c '^| issue')"

run env BUILD_DIR="$build" sh "$cs" --windows jupiter
expect_eq "--windows jupiter: exit 2" 2 "$rc"
expect_contains "--windows jupiter: says what it takes" \
	"--windows: atlas, curie, dragonfly or dragonfly10k" "$err"
finish

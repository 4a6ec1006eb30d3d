#!/bin/bash
# tests/slurm/scale.sh BUILD_DIR - check.sh's small version of
# bench/slurm_scale.sh (issue 18, points 3 and 4) on the test cluster:
#  throughput: 64 nodes, 300 short jobs (half with patterns) released at
#      once, under select/cons_tres and then select/topomatch with its
#      EpilogSlurmctld: every job completes, every pattern job's decision
#      reaches sacct; jobs per minute and scontrol ping / squeue latency
#      are printed (timings on a shared CI machine are not asserted: the
#      full run, bench/slurm_scale.sh throughput, holds the targets);
#  memory: 1,000 held jobs without and then with patterns at PatternKiB:
#      every job pending; slurmctld's memory per job printed.
# Prints "slurm: N passed, M failed".
# Environment: TM_SCALE_DIR (default /tmp/tm-scale-test), TM_SCALE_PORT (32001).
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: scale.sh BUILD_DIR}" && pwd)
dir=${TM_SCALE_DIR:-/tmp/tm-scale-test}
port=${TM_SCALE_PORT:-32001}

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"
need_select_plugin scale.sh

for mode in throughput memory; do
	out=$(BUILD_DIR=$build "$top/bench/slurm_scale.sh" "$mode" --small --dir "$dir" \
		--port-base "$port" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	case $mode in
	throughput) what="300 jobs on 64 nodes, cons_tres then topomatch: every job completes, every pattern job's decision in sacct" ;;
	memory) what="1,000 held jobs, without and with patterns: all pending, memory measured" ;;
	esac
	expect_eq "$mode: $what" 0 "$rc"
	case $mode in
	throughput) expect_contains "throughput: both schedulers measured" "topomatch / cons_tres jobs per minute: " "$out" ;;
	memory) expect_contains "memory: the patterns' cost per job" "KiB per job" "$out" ;;
	esac
done
finish

#!/bin/bash
# tests/slurm/scale.sh BUILD_DIR - check.sh's small version of
# bench/slurm_scale.sh (issue 18, points 3 and 4) on the test cluster:
#  throughput: 64 nodes, 300 short jobs (half with patterns) released at
#      once under select/topomatch: every job completes, every pattern
#      job's decision reaches sacct; jobs per minute and scontrol ping /
#      squeue latency are printed, squeue's also from the login probe
#      (--login-probe), with slurmctld's own time in squeue's requests
#      and its thread count.
#      Not under cons_tres too: timings on a
#      shared CI machine compare nothing (the full run, bench/slurm_scale.sh
#      throughput, holds the targets side by side), and that second stream
#      cost check.sh two of its 30 minutes;
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
	only=
	[ "$mode" = memory ] || only="--only topomatch --login-probe"
	# shellcheck disable=SC2086 # $only: none or three words
	out=$(BUILD_DIR=$build "$top/bench/slurm_scale.sh" "$mode" --small $only --dir "$dir" \
		--port-base "$port" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	case $mode in
	throughput) what="300 jobs on 64 nodes under topomatch: every job completes, every pattern job's decision in sacct" ;;
	memory) what="1,000 held jobs, without and with patterns: all pending, memory measured" ;;
	esac
	expect_eq "$mode: $what" 0 "$rc"
	case $mode in
	throughput)
		expect_contains "throughput: the stream measured" "topomatch: the decisions of " "$out"
		expect_match "throughput: the login probe timed squeue" \
			'squeue from the login probe, p50 / p99 / max ms: [0-9]+ / [0-9]+ / [0-9]+' "$out"
		expect_match "throughput: slurmctld's time in squeue's requests from sdiag" \
			'REQUEST_JOB_INFO mean [0-9]+ ms \([1-9][0-9]* calls\)' "$out"
		expect_match "throughput: slurmctld's threads counted over the stream" \
			'slurmctld threads, median / peak \([1-9][0-9]* samples\): [1-9][0-9]* / [1-9][0-9]*, at the peak [0-9]+ waiting' "$out" ;;
	memory) expect_contains "memory: the patterns' cost per job" "KiB per job" "$out" ;;
	esac
done
finish

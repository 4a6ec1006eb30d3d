#!/bin/sh
# check.sh - install dependencies, build, and run the whole test suite:
# unit and CLI tests in a normal build, the Slurm plugins on a real test
# cluster, the MPI helpers, the CLI and unit tests under valgrind, the
# fuzzing harnesses, unit and CLI tests again under ASan+UBSan, then
# `make distcheck`.  Idempotent; ends with "N passed, N failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
./contrib/deps.sh
# the installed Slurm's source, configured once and cached outside the tree:
# select/topomatch is built from it (plugin/select/README.md)
./contrib/slurm-source.sh >/dev/null

fail=0
t0=$(date +%s)
# "== TITLE [m:ss]": each stage with the time since check.sh began, so that
# the CI log shows where the minutes go (the suite must stay under 30)
stage() {
	el=$(($(date +%s) - t0))
	printf '== %s [%d:%02d]\n' "$1" $((el / 60)) $((el % 60))
}
run_suite() { # NAME DIR [configure args...]
	name=$1
	dir=$2
	shift 2
	stage "$name: build"
	./contrib/build.sh "$dir" "$@"
	stage "$name: make check"
	if ! make -s -C "$dir" -j"$(nproc)" check >"$dir/check.out" 2>&1; then
		fail=1
		cat "$dir/check.out"
		[ -f "$dir/test-suite.log" ] && cat "$dir/test-suite.log"
	fi
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' "$dir/check.out" || true
}

run_suite "normal build" "$top/build"
# run_script TITLE SCRIPT LOG [ARGS...]: a suite script that takes the
# build directory (then ARGS) and prints "slurm:", "mpi:" or "fuzz:"
# counts (summed at the end)
run_script() {
	title=$1
	script=$2
	log=$top/build/$3
	shift 3
	stage "$title"
	if ! "$top/$script" "$top/build" "$@" >"$log" 2>&1; then
		fail=1
	fi
	grep -E '^(FAIL|SKIP|slurm:|mpi:|fuzz:)' "$log" || true
}

# the plugins on a real Slurm test cluster (contrib/testcluster)
for t in placement binding reorder safety scale contention; do
	run_script "Slurm: $t" "tests/slurm/$t.sh" "slurm-$t.log"
done
# topomatch sim's topomatch policy against the real select/topomatch
run_script "Slurm: simulator against the plugin" tests/sim/plugin_match.sh slurm-sim.log
# Open MPI's mpirun: the MPI helper of layout=reorder (contrib/mpi), the
# communication profiler (contrib/commprof), topomatch convert on a live
# monitoring run
run_script "MPI helper" tests/mpi/reorder.sh mpi-reorder.log
run_script "MPI profiler" tests/mpi/commprof.sh mpi-commprof.log
run_script "MPI monitoring convert" tests/mpi/convert.sh mpi-convert.log
# the CLI scripts again with every topomatch run under valgrind memcheck
# (tests/cli/run_valgrind.sh; third-party suppressions in tests/valgrind.supp)
stage "valgrind: CLI tests"
if ! "$top/tests/cli/run_valgrind.sh" "$top/build" >"$top/build/valgrind.out" 2>&1; then
	fail=1
	cat "$top/build/valgrind.out"
fi
grep -E '^(PASS|FAIL|SKIP|valgrind: [0-9]+ runs)' "$top/build/valgrind.out" || true
# the unit suites under valgrind memcheck too (tests/unit/run_valgrind.sh)
stage "valgrind: unit tests"
if ! "$top/tests/unit/run_valgrind.sh" "$top/build" >"$top/build/valgrind-unit.out" 2>&1; then
	fail=1
	cat "$top/build/valgrind-unit.out"
fi
grep -E '^valgrind-unit: ' "$top/build/valgrind-unit.out" || true
# every parser and decoder under libFuzzer with ASan+UBSan: the committed
# corpora and regression inputs, then 100,000 inputs each from a fixed seed,
# so that the same code gets the same verdict (tests/fuzz/run.sh; open-ended
# fuzzing is run by hand before releases, tests/fuzz/README.md)
run_script "fuzzing" tests/fuzz/run.sh fuzz.log --runs 100000
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
# sanitized code runs 2-5x slower: Check's per-test timeouts x 4 (the
# 2 x 10^6-node YAML limit test took 2.4 s of the default 4 under ASan)
export CK_TIMEOUT_MULTIPLIER=4
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
run_suite "ASan+UBSan build" "$top/build-asan" CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined"
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS CK_TIMEOUT_MULTIPLIER

stage "make distcheck"
# -j: distcheck's own build and make check are half of its time
if ! make -s -C "$top/build" -j"$(nproc)" distcheck >"$top/build/distcheck.out" 2>&1; then
	fail=1
	tail -n 60 "$top/build/distcheck.out"
	echo "distcheck: FAILED"
else
	echo "distcheck: passed"
fi

# One closing line over both builds: Check's per-test counts plus the
# assertions of the CLI test scripts.
total=$(cat "$top"/build/tests/*/*.log "$top"/build-asan/tests/*/*.log \
	"$top"/build/valgrind/*.log "$top"/build/valgrind-unit/*.log "$top"/build/slurm-*.log "$top"/build/mpi-*.log \
	"$top"/build/fuzz.log 2>/dev/null | awk '
	/^[0-9]+%: Checks: / { gsub(",", ""); c += $3; f += $5 + $7 }
	/^(cli|slurm|mpi|fuzz): [0-9]+ passed, [0-9]+ failed$/ { c += $2 + $4; f += $4 }
	END { printf "%d %d", c - f, f }')
passed=${total% *}
failed=${total#* }
if [ "$fail" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1 # a build step or distcheck failed outside the counted tests
fi
stage "end"
echo "$passed passed, $failed failed"
[ "$fail" -eq 0 ] && [ "$failed" -eq 0 ]

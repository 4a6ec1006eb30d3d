#!/bin/sh
# check.sh - install dependencies, build, and run the whole test suite:
# unit and CLI tests in a normal build, the Slurm plugins on a real test
# cluster, the MPI helpers, the CLI and unit tests under valgrind, the
# fuzzing harnesses, unit and CLI tests again under ASan+UBSan, then
# `make distcheck`.  Idempotent; ends with "N passed, N failed".
#
# Two lines of work at once, so that the suite fits in CI's 2 cores: the
# Slurm and MPI suites in front (a test cluster that waits on its daemons
# most of the time: 36-55 % of the 2 CPUs busy), and behind them, at nice 19
# on the CPU time the cluster leaves, the stages whose verdict does not
# depend on the wall clock (the ASan+UBSan build, valgrind, fuzzing,
# distcheck; not the two make checks, whose CLI scripts time the mappers'
# budgets).  Measured on the idle 2-core machine: safety.sh took 463 s
# instead of 416 s with valgrind behind it, its slurmctld pings no slower.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

# "== TITLE [m:ss]": each stage with the time since check.sh began, so that
# the CI log shows where the minutes go (the suite must stay under 30)
stage() {
	el=$(($(date +%s) - t0))
	printf '== %s [%d:%02d]\n' "$1" $((el / 60)) $((el % 60))
}
run_suite() { # NAME DIR [configure args...]: build DIR, then make check in it
	name=$1
	dir=$2
	shift 2
	stage "$name: build"
	./contrib/build.sh "$dir" "$@"
	make_check "$name" "$dir"
}
make_check() { # NAME DIR
	stage "$1: make check"
	if ! make -s -C "$2" -j"$(nproc)" check >"$2/check.out" 2>&1; then
		fail=1
		cat "$2/check.out"
		[ -f "$2/test-suite.log" ] && cat "$2/test-suite.log"
	fi
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' "$2/check.out" || true
}
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

# the ASan+UBSan build's flags and its run-time settings
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
asan_env() {
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
	# sanitized code runs 2-5x slower: Check's per-test timeouts x 4 (the
	# 2 x 10^6-node YAML limit test took 2.4 s of the default 4 under ASan)
	export CK_TIMEOUT_MULTIPLIER=4
	export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
}

# check.sh --behind: the stages that check.sh runs at nice 19 behind the
# Slurm suites, those whose verdict does not depend on the wall clock
# (valgrind turns the unit suites' time guards off, and the CLI scripts'
# under TM_VALGRIND; distcheck runs the unit suites only, whose guards
# count CPU time); exit 1 if one failed
if [ "${1-}" = --behind ]; then
	t0=$TM_CHECK_T0
	fail=0
	# first, so that its make check can run in front as soon as the Slurm
	# suites are done: the ASan+UBSan build with its test programs (make
	# check with no tests); then $asan_built says so
	stage "ASan+UBSan build"
	asan_env
	if ./contrib/build.sh "$top/build-asan" CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" &&
		make -s -C "$top/build-asan" -j"$(nproc)" check TESTS= >"$top/build-asan/build-check.out" 2>&1; then
		touch "$asan_built"
	else
		fail=1
		cat "$top/build-asan/build-check.out" 2>/dev/null || true
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS CK_TIMEOUT_MULTIPLIER
	# the unit suites under valgrind memcheck (tests/unit/run_valgrind.sh)
	stage "valgrind: unit tests"
	if ! "$top/tests/unit/run_valgrind.sh" "$top/build" >"$top/build/valgrind-unit.out" 2>&1; then
		fail=1
		cat "$top/build/valgrind-unit.out"
	fi
	grep -E '^valgrind-unit: ' "$top/build/valgrind-unit.out" || true
	# the CLI scripts again with every topomatch run under valgrind memcheck
	# (tests/cli/run_valgrind.sh; third-party suppressions in tests/valgrind.supp)
	stage "valgrind: CLI tests"
	if ! "$top/tests/cli/run_valgrind.sh" "$top/build" >"$top/build/valgrind.out" 2>&1; then
		fail=1
		cat "$top/build/valgrind.out"
	fi
	grep -E '^(PASS|FAIL|SKIP|valgrind: [0-9]+ runs)' "$top/build/valgrind.out" || true
	# every parser and decoder under libFuzzer with ASan+UBSan: the committed
	# corpora and regression inputs, then 100,000 inputs each from a fixed
	# seed, so that the same code gets the same verdict (tests/fuzz/run.sh;
	# open-ended fuzzing is run by hand before releases, tests/fuzz/README.md)
	run_script "fuzzing" tests/fuzz/run.sh fuzz.log --runs 100000
	# the tarball builds, installs and uninstalls cleanly, and its unit
	# suites pass; Check's per-test timeouts x 10 at nice 19.  Its CLI
	# scripts are make check's, run from the same files: the tarball holds
	# every file git tracks (but .gitignore), checked below
	stage "make distcheck"
	if ! CK_TIMEOUT_MULTIPLIER=10 make -s -C "$top/build" -j"$(nproc)" distcheck 'TESTS=$(UNIT_TESTS)' \
		>"$top/build/distcheck.out" 2>&1; then
		fail=1
		tail -n 60 "$top/build/distcheck.out"
		echo "distcheck: FAILED"
	else
		echo "distcheck: passed"
	fi
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files | grep -vx '.gitignore' | sort >"$top/build/dist-git.txt"
		tar tzf "$top"/build/slurm-topomatch-*.tar.gz | sed 's|^[^/]*/||' | sort >"$top/build/dist-tar.txt"
		comm -23 "$top/build/dist-git.txt" "$top/build/dist-tar.txt" >"$top/build/dist-missing.txt"
		if [ -s "$top/build/dist-missing.txt" ]; then
			fail=1
			echo "dist: files git tracks but the tarball lacks (EXTRA_DIST in Makefile.am):"
			head -n 20 "$top/build/dist-missing.txt"
		else
			echo "dist: the tarball holds every file git tracks"
		fi
	fi
	stage "done behind"
	exit "$fail"
fi

./contrib/deps.sh
# the installed Slurm's source, configured once and cached outside the tree:
# select/topomatch is built from it (plugin/select/README.md)
./contrib/slurm-source.sh >/dev/null

fail=0
t0=$(date +%s)
run_suite "normal build" "$top/build"
asan_built=$top/build/asan-built
rm -f "$asan_built"
export asan_built
stage "behind, at nice 19: the ASan+UBSan build, valgrind, fuzzing, distcheck (build/behind.out)"
TM_CHECK_T0=$t0 nice -n 19 "$top/check.sh" --behind >"$top/build/behind.out" 2>&1 &
behind=$!

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

# the ASan+UBSan build's make check, in front (its tests have time guards)
# once the build behind is done
while [ ! -f "$asan_built" ] && kill -0 "$behind" 2>/dev/null; do
	sleep 5
done
if [ -f "$asan_built" ]; then
	asan_env
	make_check "ASan+UBSan build" "$top/build-asan"
	unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS CK_TIMEOUT_MULTIPLIER
fi
stage "waiting for the stages behind"
if ! wait "$behind"; then
	fail=1
fi
cat "$top/build/behind.out"

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

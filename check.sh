#!/bin/sh
# check.sh - install dependencies, build, and run the whole test suite:
# unit and CLI tests in a normal build, the Slurm plugins on a real test
# cluster, the MPI helpers, unit and CLI tests again under ASan+UBSan and
# under valgrind (Makefile.am says which CLI scripts under which), the
# fuzzing harnesses, then `make distcheck`.  Idempotent; ends with "N
# passed, N failed".
#
# Two lines of work at once, so that the suite fits in CI's 2 cores: in
# front the normal build's make check, then the Slurm and MPI suites (a test
# cluster that waits on its daemons most of the time: 36-55 % of the 2 CPUs
# busy); behind them, at nice 19 on the CPU time they leave, the stages whose
# verdict does not depend on the wall clock: the ASan+UBSan build and its
# make check (but Makefile.am's WALL_CLOCK_TESTS, run in front at the end),
# valgrind, fuzzing, distcheck.  The suite's time is CPU-bound: on 2 cores
# every minute of test work cut is about half a minute of check.sh.  Measured on the idle 2-core machine:
# safety.sh took 463 s instead of 416 s with valgrind behind it, its
# slurmctld pings no slower.
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
# make_check NAME DIR [make variables, e.g. TESTS=...]: returns 1 (and
# sets fail) when a test failed
make_check() {
	name=$1
	dir=$2
	shift 2
	stage "$name: make check"
	if ! make -s -C "$dir" -j"$(nproc)" check "$@" >"$dir/check.out" 2>&1; then
		fail=1
		cat "$dir/check.out"
		[ -f "$dir/test-suite.log" ] && cat "$dir/test-suite.log"
		return 1
	fi
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' "$dir/check.out" || true
}
# run_checked TITLE OUT PATTERN CMD...: a stage whose command writes OUT,
# printed whole when the command fails, else its lines matching PATTERN
run_checked() {
	title=$1
	out=$2
	pattern=$3
	shift 3
	stage "$title"
	if ! "$@" >"$out" 2>&1; then
		fail=1
		cat "$out"
	else
		grep -E "$pattern" "$out" || true
	fi
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
	# 2 x 10^6-node YAML limit test took 2.4 s of the default 4 under ASan),
	# x 10 at nice 19
	export CK_TIMEOUT_MULTIPLIER="${1:-4}"
	export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
}

# check.sh --behind: the stages that check.sh runs at nice 19 behind the
# Slurm suites, those whose verdict does not depend on the wall clock
# (Check's time guards count CPU time; valgrind turns them off, and the CLI
# scripts' under TM_VALGRIND); exit 1 if one failed
if [ "${1-}" = --behind ]; then
	t0=$TM_CHECK_T0
	fail=0
	# the ASan+UBSan build and its make check, but Makefile.am's
	# ASAN_SKIP_TESTS and WALL_CLOCK_TESTS (the tests that time the
	# mappers, which check.sh runs in front once $asan_built says so)
	stage "ASan+UBSan build"
	if (asan_env && ./contrib/build.sh "$top/build-asan" CFLAGS="$SAN" \
		LDFLAGS="-fsanitize=address,undefined" &&
		make -s -C "$top/build-asan" -j"$(nproc)" check TESTS= \
			>"$top/build-asan/build-check.out" 2>&1); then
		# shellcheck disable=SC2016 # $(...): make's
		(asan_env 10 && make_check "ASan+UBSan build" "$top/build-asan" \
			'TESTS=$(UNIT_TESTS) $(filter-out $(WALL_CLOCK_TESTS) $(ASAN_SKIP_TESTS),$(CLI_TESTS))') || fail=1
		touch "$asan_built"
	else
		fail=1
		cat "$top/build-asan/build-check.out" 2>/dev/null || true
	fi
	# the unit suites and the CLI scripts of Makefile.am's VALGRIND_CLI_TESTS
	# with every topomatch run under valgrind memcheck (third-party
	# suppressions in tests/valgrind.supp)
	run_checked "valgrind: unit tests" "$top/build/valgrind-unit.out" '^valgrind-unit: ' \
		"$top/tests/unit/run_valgrind.sh" "$top/build"
	run_checked "valgrind: CLI tests" "$top/build/valgrind.out" \
		'^(PASS|FAIL|SKIP|valgrind: [0-9]+ runs)' "$top/tests/cli/run_valgrind.sh" "$top/build"
	# every parser and decoder under libFuzzer with ASan+UBSan: the committed
	# corpora and regression inputs, then 25,000 inputs each from a fixed
	# seed, so that the same code gets the same verdict (tests/fuzz/run.sh;
	# open-ended fuzzing is run by hand before releases, tests/fuzz/README.md)
	run_script "fuzzing" tests/fuzz/run.sh fuzz.log --runs 25000
	# the tarball builds (its test programs too), installs and uninstalls
	# cleanly; its tests are the ones make check ran, from the same files:
	# the tarball holds every file git tracks (but .gitignore), checked below
	stage "make distcheck"
	if ! make -s -C "$top/build" -j"$(nproc)" distcheck TESTS= \
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
stage "normal build"
./contrib/build.sh "$top/build"
asan_built=$top/build/asan-built
rm -f "$asan_built"
export asan_built
stage "behind, at nice 19: the ASan+UBSan build and make check, valgrind, fuzzing, distcheck (build/behind.out)"
TM_CHECK_T0=$t0 nice -n 19 "$top/check.sh" --behind >"$top/build/behind.out" 2>&1 &
behind=$!
make_check "normal build" "$top/build" || true

# the plugins on a real Slurm test cluster (contrib/testcluster)
for t in placement binding reorder safety scale contention comm_wait; do
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

# the ASan+UBSan build's tests that time the mappers, at normal priority
# once its make check behind is done (the two would share build-asan)
while [ ! -f "$asan_built" ] && kill -0 "$behind" 2>/dev/null; do
	sleep 5
done
if [ -f "$asan_built" ]; then
	# shellcheck disable=SC2016
	(asan_env && make_check "ASan+UBSan build, tests on the wall clock" "$top/build-asan" \
		'TESTS=$(filter $(WALL_CLOCK_TESTS),$(CLI_TESTS))') || fail=1
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

#!/bin/sh
# check.sh - install dependencies, build, and run the whole test suite:
# unit and CLI tests in a normal build, the Slurm plugins on a real test
# cluster, unit and CLI tests again under ASan+UBSan, then `make distcheck`.  Idempotent; ends with "N passed, N failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
./contrib/deps.sh
# the installed Slurm's source, configured once and cached outside the tree:
# select/topomatch is built from it (plugin/select/README.md)
./contrib/slurm-source.sh >/dev/null

fail=0
run_suite() { # NAME DIR [configure args...]
	name=$1
	dir=$2
	shift 2
	echo "== $name: build"
	./contrib/build.sh "$dir" "$@"
	echo "== $name: make check"
	if ! make -s -C "$dir" -j"$(nproc)" check >"$dir/check.out" 2>&1; then
		fail=1
		cat "$dir/check.out"
		[ -f "$dir/test-suite.log" ] && cat "$dir/test-suite.log"
	fi
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' "$dir/check.out" || true
}

run_suite "normal build" "$top/build"
# the plugins on a real Slurm test cluster (contrib/testcluster)
echo "== Slurm integration tests"
for t in placement binding reorder; do
	if ! "$top/tests/slurm/$t.sh" "$top/build" >"$top/build/slurm-$t.log" 2>&1; then
		fail=1
	fi
	grep -E '^(FAIL|slurm:)' "$top/build/slurm-$t.log" || true
done
# topomatch sim's topomatch policy against the real select/topomatch
if ! "$top/tests/sim/plugin_match.sh" "$top/build" >"$top/build/slurm-sim.log" 2>&1; then
	fail=1
fi
grep -E '^(FAIL|slurm:)' "$top/build/slurm-sim.log" || true
# the MPI helper of layout=reorder (contrib/mpi) under Open MPI's mpirun
echo "== MPI helper"
rc=0
"$top/tests/mpi/reorder.sh" "$top/build" >"$top/build/mpi-reorder.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail=1
grep -E '^(FAIL|SKIP|mpi:)' "$top/build/mpi-reorder.log" || true
# the communication profiler (contrib/commprof) under Open MPI's mpirun
echo "== MPI profiler"
rc=0
"$top/tests/mpi/commprof.sh" "$top/build" >"$top/build/mpi-commprof.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail=1
grep -E '^(FAIL|SKIP|mpi:)' "$top/build/mpi-commprof.log" || true
# topomatch convert on a live Open MPI monitoring run (tests/mpi/convert.sh)
echo "== MPI monitoring convert"
rc=0
"$top/tests/mpi/convert.sh" "$top/build" >"$top/build/mpi-convert.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail=1
grep -E '^(FAIL|SKIP|mpi:)' "$top/build/mpi-convert.log" || true
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
run_suite "ASan+UBSan build" "$top/build-asan" CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined"
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

echo "== make distcheck"
if ! make -s -C "$top/build" distcheck >"$top/build/distcheck.out" 2>&1; then
	fail=1
	tail -n 60 "$top/build/distcheck.out"
	echo "distcheck: FAILED"
else
	echo "distcheck: passed"
fi

# One closing line over both builds: Check's per-test counts plus the
# assertions of the CLI test scripts.
total=$(cat "$top"/build/tests/*/*.log "$top"/build-asan/tests/*/*.log \
	"$top"/build/slurm-*.log "$top"/build/mpi-*.log 2>/dev/null | awk '
	/^[0-9]+%: Checks: / { gsub(",", ""); c += $3; f += $5 + $7 }
	/^(cli|slurm|mpi): [0-9]+ passed, [0-9]+ failed$/ { c += $2 + $4; f += $4 }
	END { printf "%d %d", c - f, f }')
passed=${total% *}
failed=${total#* }
if [ "$fail" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1 # a build step or distcheck failed outside the counted tests
fi
echo "$passed passed, $failed failed"
[ "$fail" -eq 0 ] && [ "$failed" -eq 0 ]

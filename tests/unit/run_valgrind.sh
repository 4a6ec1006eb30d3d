#!/bin/sh
# tests/unit/run_valgrind.sh BUILD_DIR [tests/unit/test_NAME...] - the unit
# suites (Makefile.am's UNIT_TESTS, or the ones named) under valgrind
# memcheck, in BUILD_DIR (a configured build; brought up to date first).
# Each suite runs in one process (CK_FORK=no, so that valgrind sees every
# test) with make check's environment; its output goes to
# BUILD_DIR/valgrind-unit/NAME.log, valgrind's report to NAME.vg.
#
# A suite fails on a failed check, a memcheck error, a definite or indirect
# leak, or a run past 20 minutes.  Third-party reports are suppressed in
# tests/valgrind.supp, each with its reason.  Output: PASS/FAIL per suite
# (a failure with the end of its valgrind report) and "valgrind-unit: N
# suites, M failed"; exit 0 when all passed.
#
#   JOBS=N        suites in parallel (default: nproc)
#
# Time on the idle 2-core machine (2026-11-27): 28 suites in about 10
# minutes one at a time, test_blob the longest (100 s: its 65,536-rank round
# trip; its mutation loop runs 100 rounds here instead of 10,000,
# tm_under_valgrind, tests/unit/tmtest.h), then test_scotch (69 s).  check.sh
# runs it at nice 19 behind the Slurm suites.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

if [ "${1-}" = --one ]; then
	# internal: one suite, from xargs below (environment already set)
	t=$2
	name=$(basename "$t")
	rc=0
	CK_FORK=no timeout 1200 valgrind -q --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--suppressions="$top_srcdir/tests/valgrind.supp" --log-file="$TM_UVG_LOGS/$name.vg" \
		"$TM_UVG_BUILD/$t" >"$TM_UVG_LOGS/$name.log" 2>&1 || rc=$?
	case $rc in
	0) echo "PASS: $t" ;;
	99)
		echo "FAIL: $t: valgrind errors ($TM_UVG_LOGS/$name.vg)"
		grep -A 12 -m 3 -E '^==[0-9]+== [A-Z]' "$TM_UVG_LOGS/$name.vg" || true
		;;
	124) echo "FAIL: $t: still running after 20 minutes" ;;
	*)
		echo "FAIL: $t (exit status $rc)"
		tail -n 20 "$TM_UVG_LOGS/$name.log"
		;;
	esac
	exit 0
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || {
	echo "usage: $0 BUILD_DIR [tests/unit/test_NAME...]" >&2
	exit 2
}
b=$(cd "$1" && pwd)
shift
command -v valgrind >/dev/null || {
	echo "$0: valgrind is not installed" >&2
	exit 2
}
# make check's environment and list of unit suites, from the build's
# Makefile, made up to date first (make would remake it and restart,
# which it cannot do with the rules below on its standard input); $(...)
# below is make's
make -s -C "$b" Makefile >/dev/null
# shellcheck disable=SC2016
mk=$(printf 'tm-uvg-env:\n\t$(info $(AM_TESTS_ENVIRONMENT))@:\ntm-uvg-tests:\n\t$(info $(UNIT_TESTS))@:\n')
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # the words are wanted
	set -- $(echo "$mk" | make -s -C "$b" -f Makefile -f - tm-uvg-tests)
fi
make -s -C "$b" -j"$(nproc)" "$@" >/dev/null
eval "$(echo "$mk" | make -s -C "$b" -f Makefile -f - tm-uvg-env)"
logs=$b/valgrind-unit
rm -rf "$logs"
mkdir -p "$logs"
TM_UVG_BUILD=$b
TM_UVG_LOGS=$logs
export TM_UVG_BUILD TM_UVG_LOGS top_srcdir

# the two slow suites first, so that they do not end the run alone
first=
rest=
for t in "$@"; do
	case $t in
	*/test_scotch | */test_blob) first="$first $t" ;;
	*) rest="$rest $t" ;;
	esac
done
# shellcheck disable=SC2086 # the words are wanted
printf '%s\n' $first $rest |
	xargs -P "${JOBS:-$(nproc)}" -n 1 "$0" --one >"$logs/summary" 2>&1 || true
cat "$logs/summary"
n=$(grep -cE '^(PASS|FAIL): ' "$logs/summary" || true)
bad=$(grep -cE '^FAIL: ' "$logs/summary" || true)
echo "valgrind-unit: $n suites, $bad failed"
[ "$n" -eq $# ] && [ "$bad" -eq 0 ]

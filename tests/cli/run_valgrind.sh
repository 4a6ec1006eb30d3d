#!/bin/sh
# tests/cli/run_valgrind.sh BUILD_DIR [--all | tests/cli/NAME.sh...] - the
# CLI test scripts (Makefile.am's VALGRIND_CLI_TESTS, all of CLI_TESTS with
# --all, or the ones named) with every topomatch
# run under valgrind memcheck (tests/cli/valgrind.sh), in BUILD_DIR (a
# configured build, e.g. by contrib/build.sh; brought up to date first).
# Only topomatch is wrapped: tm_bench and the other programs the scripts
# run are not.  The scripts get make check's environment (the Makefile's
# AM_TESTS_ENVIRONMENT) plus TM_VALGRIND=1, but their logs go to
# BUILD_DIR/valgrind/, not over the ones of make check.
#
# A script fails on a memcheck error, a definite or indirect leak, or a
# valgrind that did not finish, whether or not it checks topomatch's exit
# code (common.sh's finish scans every log).  Output: PASS/FAIL per script,
# the failed assertions, one line per failed run ("valgrind: errors in:
# COMMAND") and "valgrind: N runs, M failed"; exit 0 when all passed.
# Files: BUILD_DIR/valgrind/NAME.log (the script's output, with the valgrind
# logs of its failed runs) and BUILD_DIR/valgrind/NAME/run.*/vg.PID (every
# valgrind log, one per process).
#
#   JOBS=N        scripts in parallel (default: nproc)
#   TM_VG_OPTS    extra valgrind options, e.g. TM_VG_OPTS=--track-origins=yes
# The same by hand for one script: TM_VALGRIND=1 make check TESTS=tests/cli/gen.sh
# Third-party reports are suppressed in tests/valgrind.supp, each with its reason.
#
# Time, on the idle 2-core machine (2026-11-27), one script at a time:
# VALGRIND_CLI_TESTS' 266 topomatch runs in 4 minutes, --all's 637 in 15
# (valgrind's own start-up is 0.6 s a run; sim.sh, 220 s, is the longest
# script).  check.sh runs the default list at nice 19 behind the Slurm
# suites.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

if [ "${1-}" = --one ]; then
	# internal: one script, from xargs below (environment already set)
	t=$2
	: "${top_srcdir:?set by AM_TESTS_ENVIRONMENT}"
	name=$(basename "$t" .sh)
	rc=0
	(cd "$TM_RVG_BUILD" && TM_VALGRIND=1 TM_VG_DIR=$TM_RVG_LOGS \
		"$top_srcdir/$t") >"$TM_RVG_LOGS/$name.log" 2>&1 || rc=$?
	case $rc in
	0) echo "PASS: $t" ;;
	77) echo "SKIP: $t" ;;
	*) echo "FAIL: $t (exit status: $rc)" ;;
	esac
	exit 0
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || {
	echo "usage: $0 BUILD_DIR [tests/cli/NAME.sh...]" >&2
	exit 2
}
b=$(cd "$1" && pwd)
shift
command -v valgrind >/dev/null || {
	echo "$0: valgrind is not installed" >&2
	exit 2
}
make -s -C "$b" -j"$(nproc)" >/dev/null
list=VALGRIND_CLI_TESTS
if [ "${1-}" = --all ]; then
	list=CLI_TESTS
	shift
fi
# make check's environment and list of scripts, from the build's Makefile;
# $(...) below is make's
# shellcheck disable=SC2016
mk=$(printf 'tm-rvg-env:\n\t$(info $(AM_TESTS_ENVIRONMENT))@:\ntm-rvg-tests:\n\t$(info $(%s))@:\n' "$list")
env_setup=$(echo "$mk" | make -s -C "$b" -f Makefile -f - tm-rvg-env)
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # the words are wanted
	set -- $(echo "$mk" | make -s -C "$b" -f Makefile -f - tm-rvg-tests)
fi
eval "$env_setup"
logs=$b/valgrind
rm -rf "$logs"
mkdir -p "$logs"
TM_RVG_BUILD=$b
TM_RVG_LOGS=$logs
export TM_RVG_BUILD TM_RVG_LOGS

# the longest scripts first, so that they do not end the run alone
first=
rest=
for t in "$@"; do
	case $t in
	*/sim.sh | */topo.sh | */map_eval.sh) first="$first $t" ;;
	*) rest="$rest $t" ;;
	esac
done
# shellcheck disable=SC2086 # the paths have no blanks (make's list)
printf '%s\n' $first $rest |
	xargs -P "${JOBS:-$(nproc)}" -n 1 "$top/tests/cli/run_valgrind.sh" --one >"$logs/results"
sort -k 2 "$logs/results"
rc=0
for t in "$@"; do
	log=$logs/$(basename "$t" .sh).log
	if ! grep -q "^\(PASS\|SKIP\): $t\$" "$logs/results"; then
		rc=1
		grep -H '^FAIL' "$log" || tail -n 20 "$log"
	fi
done
"$top/tests/cli/valgrind.sh" --scan "$logs" >"$logs/scan.out" || rc=1
grep '^valgrind: ' "$logs/scan.out"
exit "$rc"

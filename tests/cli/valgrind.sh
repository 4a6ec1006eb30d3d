#!/bin/sh
# tests/cli/valgrind.sh - run the built topomatch under valgrind memcheck.
#
# As a program, `valgrind.sh ARGS...` stands for `topomatch ARGS...`:
# tests/cli/common.sh puts it in $tm when TM_VALGRIND=1, with
#   TM_VG_BIN   the real binary behind make check's $TOPOMATCH (a libtool
#   TM_VG_LIBPATH wrapper) and the LD_LIBRARY_PATH that finds the
#               uninstalled libtopomatch.so, as libtool's execute mode says
#   TM_VG_DIR   each run writes TM_VG_DIR/run.XXXXXX/vg.PID, a log a process
#   TM_VG_PATH  the PATH to find valgrind and the shell tools, so
#               that a test may run topomatch with PATH=/nonexistent (sim.sh):
#               topomatch itself gets the caller's PATH
#   TM_VG_OPTS  extra valgrind options (e.g. --track-origins=yes)
# Any memcheck error or definite/indirect leak makes valgrind exit 97.
# Tests that compare exit codes see that; every run is also checked
# afterwards by `valgrind.sh --scan DIR` (common.sh's finish), which catches
# the runs whose exit code a test ignores.
#
# `valgrind.sh --scan DIR...` prints one "valgrind: ..." line and the
# log of every failed run under DIR (errors, leaks, a valgrind that did not
# finish, a fatal signal), then "valgrind: N runs, M failed"; exit 1 if M > 0.
#
# The whole CLI suite this way: tests/cli/run_valgrind.sh BUILD_DIR.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u

scan() {
	runs=0
	bad=0
	for d in "$@"; do
		for f in "$d"/run.*/vg.* "$d"/*/run.*/vg.*; do
			[ -f "$f" ] || continue
			case $f in
			*.broken)
				bad=$((bad + 1))
				echo "valgrind: did not finish: $(cat "$f")"
				continue
				;;
			esac
			# a log without a summary is a child that topomatch spawned
			# (gnuplot, posix_spawn) before its exec: fine unless it
			# has a report (a stack) of its own
			if ! grep -q 'ERROR SUMMARY:' "$f"; then
				grep -Eq '^==[0-9]+== +(at|by) ' "$f" || continue
				bad=$((bad + 1))
				echo "valgrind: errors in a child of: $(sed -n 's/^==[0-9]*== Command: //p' "$f" | head -n 1)"
				sed 's/^/    /' "$f"
				continue
			fi
			runs=$((runs + 1))
			why=
			if grep -q 'ERROR SUMMARY: [1-9]' "$f"; then
				why="errors"
			fi
			if grep -Eq '(definitely|indirectly) lost: [1-9]' "$f"; then
				why="${why:+$why, }leaks"
			fi
			if grep 'Process terminating with default action of signal' "$f" |
				grep -vq 'signal 13 '; then
				why="${why:+$why, }fatal signal"
			fi
			[ -n "$why" ] || continue
			bad=$((bad + 1))
			cmd=$(sed -n 's/^==[0-9]*== Command: //p' "$f" | head -n 1)
			echo "valgrind: $why in: $cmd"
			sed 's/^/    /' "$f"
		done
	done
	echo "valgrind: $runs runs, $bad failed"
	[ "$bad" -eq 0 ]
}

if [ "${1-}" = --scan ]; then
	shift
	scan "$@"
	exit
fi

: "${TM_VG_BIN:?the topomatch to run (set by tests/cli/common.sh)}"
: "${TM_VG_DIR:?the log directory (set by tests/cli/common.sh)}"
: "${top_srcdir:?run through make check}"
caller_path=${PATH-}
PATH=${TM_VG_PATH:-${PATH:-/usr/bin:/bin}}
export PATH
vg=$(command -v valgrind) || {
	echo "valgrind.sh: valgrind not found" >&2
	exit 97
}
logs=$(mktemp -d "$TM_VG_DIR/run.XXXXXX") || exit 97
# word splitting of $TM_VG_OPTS is wanted
# shellcheck disable=SC2086
env PATH="$caller_path" LD_LIBRARY_PATH="$TM_VG_LIBPATH" "$vg" \
	--tool=memcheck --error-exitcode=97 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	--num-callers=30 --suppressions="$top_srcdir/tests/valgrind.supp" \
	--log-file="$logs/vg.%p" ${TM_VG_OPTS-} \
	"$TM_VG_BIN" "$@"
rc=$?
# valgrind that did not start or was killed writes no summary: never let
# that pass for topomatch's own exit code
if ! cat "$logs"/vg.* 2>/dev/null | grep -q 'ERROR SUMMARY:'; then
	echo "exit $rc: topomatch $*" >"$logs/vg.broken"
fi
exit $rc

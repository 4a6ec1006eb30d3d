# tests/cli/common.sh - assertions shared by the CLI test scripts (sourced).
# Each script ends with `finish`, which prints "cli: N passed, M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
: "${TOPOMATCH:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${PYTHON3:=python3}"
tm=$TOPOMATCH
data=$top_srcdir/tests/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# TM_VALGRIND=1: every "$tm" runs under valgrind memcheck (valgrind.sh here),
# logs in $TM_VG_DIR/SCRIPT when TM_VG_DIR is set, else in $work (removed)
if [ "${TM_VALGRIND:-0}" = 1 ]; then
	# make check's topomatch, for runs a script keeps out of valgrind
	# (time_budget.sh)
	TM_VG_REAL=$TOPOMATCH
	TM_VG_PATH=$PATH
	# the binary behind libtool's wrapper and its library path, found once
	# here: libtool's execute mode costs 0.3 s a run, half of valgrind's own
	# start-up, over some 600 runs
	tm_vg_lt=$(dirname "$TOPOMATCH")/../libtool
	TM_VG_BIN=$("$tm_vg_lt" --mode=execute sh -c 'printf %s "$1"' sh "$TOPOMATCH") &&
		TM_VG_LIBPATH=$("$tm_vg_lt" --mode=execute sh -c 'printf %s "${LD_LIBRARY_PATH-}"' sh "$TOPOMATCH") &&
		[ -x "$TM_VG_BIN" ] || {
		echo "common.sh: libtool does not say what runs $TOPOMATCH" >&2
		exit 99
	}
	TM_VG_DIR=${TM_VG_DIR:+$TM_VG_DIR/$(basename "$0" .sh)}
	TM_VG_DIR=${TM_VG_DIR:-$work/vg}
	export TM_VG_REAL TM_VG_BIN TM_VG_LIBPATH TM_VG_PATH TM_VG_DIR
	rm -rf "$TM_VG_DIR" && mkdir -p "$TM_VG_DIR" || exit 99
	tm=$top_srcdir/tests/cli/valgrind.sh
fi
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL - $1"; }

# expect_eq DESC EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}

# expect_contains DESC NEEDLE HAYSTACK
expect_contains() {
	case $3 in
	*"$2"*) ok "$1" ;;
	*) not_ok "$1: '$2' not in: $3" ;;
	esac
}

# run CMD...: sets $out (stdout), $err (stderr), $rc
run() {
	"$@" >"$work/.out" 2>"$work/.err"
	rc=$?
	out=$(cat "$work/.out")
	err=$(cat "$work/.err")
}

# json_get KEY: value of a top-level key of the JSON object in $out
json_get() {
	printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(repr(v) if isinstance(v, float) else v)' "$1"
}

# json_without KEY...: the JSON object in $out without those top-level keys,
# on one line with sorted keys (to compare two outputs)
json_without() {
	printf '%s' "$out" | "$PYTHON3" -c 'import json,sys
o = json.load(sys.stdin)
for k in sys.argv[1:]: o.pop(k, None)
print(json.dumps(o, sort_keys=True))' "$@"
}

finish() {
	if [ "${TM_VALGRIND:-0}" = 1 ]; then
		if "$top_srcdir/tests/cli/valgrind.sh" --scan "$TM_VG_DIR"; then
			ok "valgrind: no memcheck error or leak"
		else
			not_ok "valgrind: memcheck errors or leaks (logs above)"
		fi
	fi
	echo "cli: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# tests/mpi/lib.sh - sourced by the tests/mpi scripts: TAP-like counters
# (ok, not_ok, expect_eq, finish prints "mpi: N passed, M failed"),
# need_mpi (skip, exit 77, without Open MPI's tools) and CFLAGS.
# SPDX-License-Identifier: GPL-2.0-or-later
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
finish() {
	echo "mpi: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}
# need_mpi TOOL...: exit 77 (skip) unless every TOOL is on the PATH
need_mpi() {
	for p in "$@"; do
		command -v "$p" >/dev/null ||
			{ echo "SKIP: no $p (apt-get install libopenmpi-dev openmpi-bin)"; exit 77; }
	done
}
# the test programs and the helpers under test: warnings are errors
# shellcheck disable=SC2034
CFLAGS="-std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Werror -g -O2"

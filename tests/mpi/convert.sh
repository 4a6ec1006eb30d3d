#!/bin/bash
# tests/mpi/convert.sh BUILD_DIR - topomatch convert on a live run: builds
# tests/mpi/convert_ring.c with mpicc, runs it on 4 processes under Open
# MPI's monitoring (pml_monitoring_enable 1 and 2, with and without
# collectives), converts the PREFIX.RANK.prof files with BUILD_DIR's
# topomatch and checks the matrix against the exact bytes and message
# counts the ring sends (computed here from convert_ring.c's definition).
# Skips (77) without mpicc, mpirun or Open MPI's monitoring component
# (Debian: libopenmpi-dev openmpi-bin).  Prints "mpi: N passed, M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: convert.sh BUILD_DIR}" && pwd)
out=$build/tests/mpi
tm=$build/tools/topomatch
np=4

# shellcheck source=tests/mpi/lib.sh
. "$top/tests/mpi/lib.sh"
need_mpi mpicc mpirun ompi_info
if ! ompi_info | grep -q 'MCA pml: monitoring'; then
	echo "SKIP: this Open MPI has no pml monitoring component"
	exit 77
fi
[ -x "$tm" ] || { echo "FAIL - no $tm: build first"; failed=1; finish; }
mkdir -p "$out"
# shellcheck disable=SC2086
if mpicc $CFLAGS -o "$out/convert_ring" "$top/tests/mpi/convert_ring.c" 2>"$out/build.err"; then
	ok "convert_ring builds with mpicc, warnings as errors"
else
	cat "$out/build.err"
	not_ok "convert_ring builds with mpicc"
	finish
fi

# The ring as sorted "i j w" lines (convert_ring.c's header).
ring() { # N bytes|msgs
	awk -v n="$1" -v m="$2" 'BEGIN {
		for (r = 0; r < n; r++) {
			rt = (r + 1) % n; lt = (r + n - 1) % n
			w[r, rt] += m == "msgs" ? 10 : 10 * 1000 * (r + 1)
			w[r, lt] += m == "msgs" ? 5 : 5 * 100 * (r + 1)
		}
		for (r = 0; r < n; r++) for (c = 0; c < n; c++)
			if ((r, c) in w) printf "%d %d %d\n", r, c, w[r, c]
	}'
}

record() { # ENABLE PREFIX [coll]
	rm -f "$2".*.prof
	timeout 120 mpirun --allow-run-as-root --oversubscribe -np $np \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		--mca pml_monitoring_enable "$1" --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$2" "$out/convert_ring" ${3:+"$3"} \
		>"$out/mpirun.out" 2>"$out/mpirun.err"
}

convert() { # ARGS...: the entries of the triplet output, or ERROR
	"$tm" convert "$@" 2>"$out/convert.err" | grep -v '^#' || echo ERROR
}

for enable in 1 2; do
	p=$out/ring_e$enable
	if record $enable "$p"; then
		ok "enable $enable: mpirun exits 0"
	else
		cat "$out/mpirun.err"
		not_ok "enable $enable: mpirun exits 0"
		continue
	fi
	expect_eq "enable $enable: one file per rank" $np "$(ls "$p".*.prof 2>/dev/null | wc -l)"
	expect_eq "enable $enable: exact bytes" "$(ring $np bytes)" "$(convert "$p" --ranks $np)"
	expect_eq "enable $enable: exact messages" "$(ring $np msgs)" \
		"$(convert "$p" --ranks $np --metric msgs)"
done

# with collectives: E alone stays the ring (enable 2); the default kinds
# give the same matrix with enable 1 and 2
record 2 "$out/coll_e2" coll && record 1 "$out/coll_e1" coll
expect_eq "collectives recorded" 0 "$?"
expect_eq "enable 2 + collectives, --kinds E: exact bytes" "$(ring $np bytes)" \
	"$(convert "$out/coll_e2" --kinds E)"
e2=$(convert "$out/coll_e2")
expect_eq "enable 2 + collectives: I lines present" 1 \
	"$(grep -q '^I' "$out"/coll_e2.*.prof && echo 1 || echo 0)"
expect_eq "default kinds: enable 1 = enable 2 (E,I)" "$e2" "$(convert "$out/coll_e1")"
total=$(ring $np bytes | awk '{s += $3} END {print s}')
expect_eq "default kinds: more than the ring's $total bytes (the collectives)" 1 \
	"$(echo "$e2" | awk -v t="$total" '{s += $3} END {print (s > t)}')"

# contrib/commprof on the same ring: its point-to-point matrix is the one
# convert reads from Open MPI's monitoring of that ring
# shellcheck disable=SC2086
if mpicc $CFLAGS -shared -fPIC -o "$out/libcommprof.so" "$top/contrib/commprof/commprof.c" \
	2>"$out/commprof.err"; then
	rm -f "$out"/prof_ring.*
	timeout 120 mpirun --allow-run-as-root --oversubscribe -np $np \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		-x LD_PRELOAD="$out/libcommprof.so" -x TOPOMATCH_PROF_OUT="$out/prof_ring" \
		"$out/convert_ring" >"$out/mpirun.out" 2>"$out/mpirun.err"
	prof=$(awk '!/^#/ { for (c = 1; c <= NF; c++) if ($c != 0) printf "%d %d %d\n", r, c - 1, $c; r++ }' \
		"$out/prof_ring.p2p.mat" 2>/dev/null)
	expect_eq "commprof's p2p matrix = convert's on the monitored ring" \
		"$(convert "$out/ring_e2" --ranks $np)" "$prof"
else
	cat "$out/commprof.err"
	not_ok "contrib/commprof builds with mpicc"
fi
finish

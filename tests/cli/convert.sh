#!/bin/sh
# topomatch convert: Open MPI monitoring runs recorded on this project's
# machine (tests/data/ompi_monitoring/README) against the bytes that
# tests/mpi/convert_ring.c sends, computed here from its definition; the
# kinds, metrics, inputs, output formats and the errors.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"

mon=$data/ompi_monitoring
# The ring on n ranks: r sends 10 x 1000 (r+1) bytes to r+1, 5 x 100 (r+1)
# to r-1 (10 and 5 messages), as "i j w" lines sorted like the writer's.
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
entries() { grep -v '^#' "$1"; } # the entries of a triplet file

run "$tm" convert "$mon/ring_e1" --out "$work/e1.tri"
expect_eq "enable 1 ring: exit 0, silent" "0:" "$rc:$err"
expect_eq "enable 1 ring: the exact bytes sent" "$(ring 4 bytes)" "$(entries "$work/e1.tri")"
expect_eq "the task count line" "# tasks 4" "$(grep '^# tasks' "$work/e1.tri")"
"$tm" convert "$mon/ring_e1" --metric msgs --out "$work/e1m.tri"
expect_eq "enable 1 ring: the exact message counts" "$(ring 4 msgs)" "$(entries "$work/e1m.tri")"
"$tm" convert "$mon/ring_e2_coll" --kinds E --out "$work/e2e.tri"
expect_eq "enable 2 with collectives, --kinds E: the ring alone" "$(ring 4 bytes)" \
	"$(entries "$work/e2e.tri")"

# default E,I: the ring plus every byte of the I lines, added up here with
# awk from the files themselves; and the same with enable 1 (E only)
"$tm" convert "$mon/ring_e2_coll" --out "$work/e2.tri"
"$tm" convert "$mon/ring_e1_coll" --out "$work/e1c.tri"
sum_tri() { grep -v '^#' "$1" | awk '{s += $3} END {print s}'; }
sum_prof() { # KIND FILES...: bytes of the KIND lines, self-sends excluded
	k=$1
	shift
	cat "$@" | awk -F'\t' -v k="$k" '$1 == k && $2 != $3 {split($4, b, " "); s += b[1]} END {print s + 0}'
}
expect_eq "default kinds: ring + the I lines' bytes" \
	"$(($(sum_prof E "$mon"/ring_e2_coll.*.prof) + $(sum_prof I "$mon"/ring_e2_coll.*.prof)))" \
	"$(sum_tri "$work/e2.tri")"
expect_eq "default kinds: enable 1 and 2 give the same matrix" "$(cat "$work/e2.tri")" \
	"$(cat "$work/e1c.tri")"
run "$tm" convert "$mon/ring_e2_coll" --kinds c --out "$work/c.tri"
expect_eq "--kinds C: 4 bytes to each of 3 peers from 4 ranks" "12 48" \
	"$(entries "$work/c.tri" | awk '{n++; s += $3} END {print n, s}')"
expect_eq "--kinds C alone: no warning" "" "$err"
run "$tm" convert "$mon/ring_e2_coll" --kinds all --out "$work/all.tri"
expect_contains "C with I: warned" "warning: C and I lines book the same collectives" "$err"
expect_eq "C with I: still converted" 0 "$rc"
run "$tm" convert "$mon/ring_e1_coll" --kinds E,C --out "$work/ec.tri"
expect_contains "C with E and no I lines: warned" "warning: no I lines" "$err"

# inputs: files in any order, mixed with nothing else; stdin; --ranks
run "$tm" convert "$mon"/ring_e1.3.prof "$mon"/ring_e1.1.prof "$mon"/ring_e1.0.prof \
	"$mon"/ring_e1.2.prof --ranks 4
expect_eq "files in any order" "$(cat "$work/e1.tri")" "$out"
cp "$mon/ring_e1.0.prof" "$work/alone.prof"
run "$tm" convert --ranks 1 - <"$work/alone.prof"
expect_eq "stdin has no rank in its name: from its lines, then out of range" \
	"1:topomatch convert: stdin:2: peer rank 1 is out of range: the run has 1 ranks (0 to 0)" \
	"$rc:$err"

expect_eq "the output's mode follows the umask" 644 \
	"$(umask 022 && "$tm" convert "$mon/ring_e1" --out "$work/mode.tri" && stat -c %a "$work/mode.tri")"

# output formats, as gen
"$tm" convert "$mon/ring_e1" --out "$work/r.mtx"
expect_eq ".mtx is Matrix Market" "%%MatrixMarket" "$(head -c 14 "$work/r.mtx")"
"$tm" convert "$mon/ring_e1" --out "$work/r.mat"
expect_eq ".mat: row 3 of the dense matrix" "40000 0 2000 0" "$(sed -n 4p "$work/r.mat")"
"$tm" convert "$mon/ring_e1" --format grf --out "$work/r.out"
expect_eq "--format grf" 0 "$(head -n 1 "$work/r.out")"
run "$tm" map -t "tleaf 1 4 1" -c "$work/r.mtx" --mapper round-robin --json
expect_eq "the converted pattern maps" 0 "$rc"

# errors: bad input exits 1 with file:line, bad usage exits 2
cp "$mon"/ring_e1.[012].prof "$work/"
run "$tm" convert "$work/ring_e1" --out "$work/none.tri"
expect_eq "a rank without a file (rank 0's left neighbour)" \
	"1:topomatch convert: $work/ring_e1.0.prof:3: rank 3 has no monitoring file (the files are those of ranks up to 2): missing files?" \
	"$rc:$err"
expect_eq "failed convert: no output file" no "$([ -e "$work/none.tri" ] && echo yes || echo no)"
run "$tm" convert "$work/ring_e1" --ranks 5
expect_eq "--ranks 5: rank 4's peer range" \
	"1:topomatch convert: no monitoring file for ranks 3, 4 (2 of 5 ranks missing)" "$rc:$err"
run "$tm" convert "$work/ring_e1" "$work/ring_e1.1.prof"
expect_contains "the same rank twice" "ring_e1.1.prof: a second output of rank 1 (the first: $work/ring_e1.1.prof)" "$err"
sed 's/^E\t2\t3\t30000 bytes/E\t2\t3\t30000 byte/' "$mon/ring_e1.2.prof" >"$work/ring_e1.2.prof"
cp "$mon/ring_e1.3.prof" "$work/"
run "$tm" convert "$work/ring_e1"
expect_eq "a malformed line: file:line" \
	"1:topomatch convert: $work/ring_e1.2.prof:3: expected 'bytes' after the byte count, got 'byte'" \
	"$rc:$err"
printf 'E\t3\t0\t40000 bytes\t10 msgs sent\nE\t3\t0\t1 bytes\t1 msgs sent\n' >"$work/ring_e1.3.prof"
cp "$mon/ring_e1.2.prof" "$work/"
run "$tm" convert "$work/ring_e1"
expect_contains "the same peer twice" "ring_e1.3.prof:2: a second E line for 3 -> 0 (first at line 1)" "$err"
run "$tm" convert "$work/nothing"
expect_eq "no such prefix" \
	"1:topomatch convert: $work/nothing: no monitoring files $work/nothing.RANK.prof" "$rc:$err"
run "$tm" convert "$mon/ring_e1" --max-bytes 100
expect_contains "--max-bytes per file" "ring_e1.0.prof:2: larger than the limit of 100 bytes" "$err"
run "$tm" convert "$mon/ring_e1" --max-tasks 3
expect_contains "--max-tasks" "ring_e1.0.prof:3: peer rank 3 is beyond the limit of 3 ranks" "$err"
run "$tm" convert "$mon/ring_e1" --max-nnz 7
expect_contains "--max-nnz" "more than 7 entries in all (limit)" "$err"
run "$tm" convert "$mon/ring_e1" --metric bytes
expect_eq "--metric bytes is the default" "$(cat "$work/e1.tri")" "$out"
run "$tm" convert "$mon/ring_e1" --ranks 10 --max-tasks 5
expect_eq "--ranks above --max-tasks" \
	"1:topomatch convert: ompi: 10 ranks: must be in [1, 5] (0: from the files)" "$rc:$err"
run "$tm" convert "$mon/ring_e1" --out "$work/no/such/dir.tri"
expect_contains "unwritable output: exit 1" "dir.tri: No such file or directory" "$err"
expect_eq "unwritable output: exit 1" 1 "$rc"
if [ -w /dev/full ]; then
	"$tm" convert "$mon/ring_e1" >/dev/full 2>"$work/full.err"
	expect_eq "stdout full: exit 1, said" "1:topomatch convert: stdout: cannot write the pattern: No space left on device" \
		"$?:$(cat "$work/full.err")"
fi
for bad in "--kinds E,X" "--kinds" "--metric bits" "--ranks 0" "--format auto" "--bogus" "" \
	"--max-nnz 0" "--max-tasks x" "--max-bytes -1"; do
	# shellcheck disable=SC2086
	run "$tm" convert $bad
	expect_eq "usage error exits 2: '$bad'" 2 "$rc"
done
run "$tm" convert --kinds E,X x
expect_contains "--kinds message" "--kinds: 'X' in 'E,X' is not one of E, I, C, S, R (or 'all')" "$err"
run "$tm" convert
expect_contains "no INPUT" "no INPUT: give the monitoring PREFIX or its .prof files" "$err"
run "$tm" convert --help
expect_contains "--help" "Usage: topomatch convert [OPTIONS] INPUT..." "$out"
run "$tm" help convert
expect_contains "topomatch help convert" "pml_monitoring_filename PREFIX" "$out"
run "$tm" --help
expect_contains "listed in topomatch --help" "convert   Open MPI monitoring output to a pattern" "$out"
finish

#!/bin/bash
# tests/mpi/commprof.sh BUILD_DIR - contrib/commprof's profiler
# (libcommprof.so) under Open MPI's mpirun, 4 processes on this machine
# (5 and 1 for two runs).  Each matrix written must equal, number for
# number, the one this script computes from what the program does
# (commprof_test.c, commprof_test_f.f90, commprof_test_f08.f90) and the
# documented decompositions (contrib/commprof/README.md):
#  (a) C, LD_PRELOAD: a ring with a derived datatype, MPI_PROC_NULL and
#      MPI_ANY_SOURCE; message counts (TOPOMATCH_PROF_COUNTS); sum = wsum
#      when one type is used; alltoall and alltoallv (normal and in place);
#      bcast from roots 0 and 3 (binomial trees); a persistent halo
#      (MPI_Ssend_init/MPI_Send_init, MPI_Startall and MPI_Start); 600
#      persistent requests, half freed before the others start;
#      reduce, allreduce (recursive doubling, also on 5 ranks), allgather,
#      gather, scatter; the sum of the types; a sub-communicator in
#      reverse order and an intercommunicator (world rank translation);
#      TOPOMATCH_PROF_EXCLUDE (global, a type, an unknown name); 1 rank;
#  (b) the library linked in instead of preloaded (C, and Fortran);
#  (c) Fortran `use mpi` (mpif.h's entry points) and `use mpi_f08`, same
#      matrices as C;
#  (d) errors: an unwritable prefix (one message per file with path and
#      strerror, exit 0, no file), one file that cannot be written (the
#      others are), TOPOMATCH_PROF_OUT unset (one warning from rank 0,
#      exit 0, no file);
#  (e) topomatch eval and map read the output (ring: hop-bytes by hand).
# Builds into BUILD_DIR/tests/mpi/commprof with mpicc/mpif90, warnings as
# errors.  Skips (77) without mpicc or mpirun (Debian: libopenmpi-dev
# openmpi-bin).  Prints "mpi: N passed, M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: commprof.sh BUILD_DIR}" && pwd)
out=$build/tests/mpi/commprof
tm=$build/tools/topomatch
n=4

# shellcheck source=tests/mpi/lib.sh
. "$top/tests/mpi/lib.sh"
need_mpi mpicc mpirun
unset TOPOMATCH_PROF_OUT TOPOMATCH_PROF_EXCLUDE TOPOMATCH_PROF_COUNTS
rm -rf "$out"
mkdir -p "$out"
lib=$out/libcommprof.so
# shellcheck disable=SC2086 # CFLAGS: several words
if mpicc $CFLAGS -fPIC -shared -o "$lib" "$top/contrib/commprof/commprof.c" 2>"$out/build.err" &&
	mpicc $CFLAGS -o "$out/commprof_test" "$top/tests/mpi/commprof_test.c" 2>>"$out/build.err" &&
	mpicc $CFLAGS -o "$out/commprof_test_linked" "$top/tests/mpi/commprof_test.c" \
		-L"$out" -Wl,-rpath,"$out" -lcommprof 2>>"$out/build.err"; then
	ok "libcommprof.so and the C program build with mpicc, warnings as errors"
else
	cat "$out/build.err"
	not_ok "libcommprof.so builds with mpicc"
	finish
fi

# prof NP PREFIX PROGRAM ARGS...: PROGRAM under the preloaded profiler,
# output to PREFIX.*; mpirun's exit code in $rc, its stderr in $out/err.
prof() {
	local np=$1 prefix=$2
	shift 2
	TOPOMATCH_PROF_OUT=$prefix timeout 60 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		-x LD_PRELOAD="$lib" "$@" >"$out/stdout" 2>"$out/err"
	rc=$?
}
# the same, with the profiler linked in (no LD_PRELOAD)
linked() {
	local np=$1 prefix=$2
	shift 2
	TOPOMATCH_PROF_OUT=$prefix timeout 60 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		"$@" >"$out/stdout" 2>"$out/err"
	rc=$?
}
# the numbers of a written matrix (comment lines dropped)
got() { if [ -f "$1.$2.mat" ]; then grep -v '^#' "$1.$2.mat"; else echo "(no $1.$2.mat)"; fi; }

# Expected matrices: M[i,j] = bytes from world rank i to j, on N ranks.
declare -A M
N=$n
new() { M=(); N=${1:-$n}; }
add() { M[$1,$2]=$((${M[$1,$2]:-0} + $3)); }
show() {
	local i j row
	for ((i = 0; i < N; i++)); do
		row=
		for ((j = 0; j < N; j++)); do row+="${row:+ }${M[$i,$j]:-0}"; done
		echo "$row"
	done
}
exp_ring() { new; for ((i = 0; i < N; i++)); do add $i $(((i + 1) % N)) $((1000 * $1)); done; show; }
exp_ring_count() { new; for ((i = 0; i < N; i++)); do add $i $(((i + 1) % N)) "$1"; done; show; }
exp_alltoall() { new; for ((i = 0; i < N; i++)); do for ((j = 0; j < N; j++)); do
	[ $i = $j ] || add $i $j 48; done; done; show; }
# normal + in place: 2 x (i+1)(j+1) ints
exp_alltoallv() { new; for ((i = 0; i < N; i++)); do for ((j = 0; j < N; j++)); do
	[ $i = $j ] || add $i $j $((2 * 4 * (i + 1) * (j + 1))); done; done; show; }
exp_halo() { new; for ((i = 0; i < N; i++)); do
	add $i $(((i + N - 1) % N)) $((100 * $1)); add $i $(((i + 1) % N)) $((200 * $1)); done; show; }
# Binomial tree (Open MPI's ompi_coll_base_topo_build_bmtree): relative
# rank v's parent is v ^ mask for the first mask with v ^ mask < v.
bmtree_edges() { # ROOT: "parent child" world ranks
	local v mask
	for ((v = 1; v < N; v++)); do
		for ((mask = 1; mask < N; mask <<= 1)); do
			if (((v ^ mask) < v)); then
				echo "$((((v ^ mask) + $1) % N)) $(((v + $1) % N))"
				break
			fi
		done
	done
}
exp_bcast() { # ROOT BYTES [NPROCS]
	new "${3:-$n}"
	while read -r p c; do add "$p" "$c" "$2"; done < <(bmtree_edges "$1")
	show
}
exp_reduce() {
	new "${3:-$n}"
	while read -r p c; do add "$c" "$p" "$2"; done < <(bmtree_edges "$1")
	show
}
# Recursive doubling (ompi_coll_base_allreduce_intra_recursivedoubling):
# the first 2*extra ranks pair up (even -> odd before, odd -> even after),
# the remaining power of two exchange with partner newrank ^ mask.
exp_allreduce() { # BYTES NPROCS
	new "$2"
	local p2=1 extra r nr mask peer
	while ((p2 * 2 <= N)); do p2=$((p2 * 2)); done
	extra=$((N - p2))
	for ((r = 0; r < N; r++)); do
		if ((r < 2 * extra)); then
			if ((r % 2 == 0)); then add $r $((r + 1)) "$1"; continue; fi
			add $r $((r - 1)) "$1"
			nr=$((r / 2))
		else
			nr=$((r - extra))
		fi
		for ((mask = 1; mask < p2; mask <<= 1)); do
			peer=$((nr ^ mask))
			if ((peer < extra)); then peer=$((peer * 2 + 1)); else peer=$((peer + extra)); fi
			add $r $peer "$1"
		done
	done
	show
}
exp_allgather() { new "$2"; for ((i = 0; i < N; i++)); do add $i $(((i + 1) % N)) $(((N - 1) * $1)); done; show; }
exp_gather() { new "$3"; for ((i = 0; i < N; i++)); do [ $i = "$1" ] || add $i "$1" "$2"; done; show; }
exp_scatter() { new "$3"; for ((i = 0; i < N; i++)); do [ $i = "$1" ] || add "$1" $i "$2"; done; show; }
# element-wise sum of matrices given as files of numbers
mat_sum() { awk '{ for (j = 1; j <= NF; j++) s[FNR, j] += $j; nf = NF; rows = FNR }
	END { for (i = 1; i <= rows; i++) { l = ""; for (j = 1; j <= nf; j++) l = l (j > 1 ? " " : "") s[i, j]; print l } }' "$@"; }
zeros() { sed 's/[0-9.e+-]*[1-9][0-9.e+-]*/x/g'; } # the zero pattern

p=$out/c
# (a) C under LD_PRELOAD
TOPOMATCH_PROF_COUNTS=1 prof $n "$p-ring" "$out/commprof_test" ring 10
expect_eq "(a) ring: exit 0, nothing on stderr" "0 " "$rc $(cat "$out/err")"
expect_eq "(a) ring: p2p = 1000 bytes x 10 to rank+1 (derived type; MPI_PROC_NULL not counted)" \
	"$(exp_ring 10)" "$(got "$p-ring" p2p)"
expect_eq "(a) ring: p2p.count = 10 messages to rank+1" "$(exp_ring_count 10)" "$(got "$p-ring" p2p.count)"
expect_eq "(a) ring: sum = p2p" "$(exp_ring 10)" "$(got "$p-ring" sum)"
expect_eq "(a) ring: wsum = p2p (the only type: share 1)" "$(exp_ring 10)" "$(got "$p-ring" wsum)"
expect_eq "(a) ring: sum.count" "$(exp_ring_count 10)" "$(got "$p-ring" sum.count)"
expect_eq "(a) ring: the files" "c-ring.p2p.count.mat c-ring.p2p.mat c-ring.sum.count.mat c-ring.sum.mat c-ring.wsum.mat" \
	"$(cd "$out" && echo c-ring.*)"

prof $n "$p-a2a" "$out/commprof_test" alltoall
expect_eq "(a) alltoall: 2 x 3 doubles between every pair" "$(exp_alltoall)" "$(got "$p-a2a" alltoall)"
expect_eq "(a) alltoallv: (i+1)(j+1) ints i -> j, normal + MPI_IN_PLACE" "$(exp_alltoallv)" \
	"$(got "$p-a2a" alltoallv)"
expect_eq "(a) alltoall run: sum = alltoall + alltoallv" \
	"$(mat_sum <(exp_alltoall) <(exp_alltoallv))" "$(got "$p-a2a" sum)"
expect_eq "(a) alltoall run: wsum has sum's zero pattern" "$(got "$p-a2a" sum | zeros)" \
	"$(got "$p-a2a" wsum | zeros)"
expect_eq "(a) alltoall run: no p2p file (no count matrices unless asked)" \
	"c-a2a.alltoall.mat c-a2a.alltoallv.mat c-a2a.sum.mat c-a2a.wsum.mat" "$(cd "$out" && echo c-a2a.*)"

for root in 0 3; do
	prof $n "$p-bcast$root" "$out/commprof_test" bcast $root
	expect_eq "(a) bcast from $root: binomial tree, 400 bytes per edge" "$(exp_bcast $root 400)" \
		"$(got "$p-bcast$root" bcast)"
done

prof $n "$p-halo" "$out/commprof_test" halo 5
expect_eq "(a) persistent halo: 5 x (100 left, 200 right), counted at each start" "$(exp_halo 5)" \
	"$(got "$p-halo" p2p)"

prof $n "$p-persist" "$out/commprof_test" persist
expect_eq "(a) 600 persistent sends, half freed early, handles reused: 300 + 150 + 2 x 300 bytes" \
	"$(exp_ring_count 1050)" "$(got "$p-persist" p2p)"

prof $n "$p-coll" "$out/commprof_test" coll 1
expect_eq "(a) reduce to 1: the binomial tree reversed, 40 bytes" "$(exp_reduce 1 40)" "$(got "$p-coll" reduce)"
expect_eq "(a) allreduce: recursive doubling, 56 bytes" "$(exp_allreduce 56 $n)" "$(got "$p-coll" allreduce)"
expect_eq "(a) allgather: ring, 3 blocks of 20 bytes" "$(exp_allgather 20 $n)" "$(got "$p-coll" allgather)"
expect_eq "(a) gather to 1 (root in place): 12 bytes each" "$(exp_gather 1 12 $n)" "$(got "$p-coll" gather)"
expect_eq "(a) scatter from 1: 8 bytes each" "$(exp_scatter 1 8 $n)" "$(got "$p-coll" scatter)"
expect_eq "(a) coll: sum of the five types" \
	"$(mat_sum <(exp_reduce 1 40) <(exp_allreduce 56 $n) <(exp_allgather 20 $n) \
		<(exp_gather 1 12 $n) <(exp_scatter 1 8 $n))" "$(got "$p-coll" sum)"
expect_eq "(a) coll: barrier has no matrix, its time is in sum's header" "no 1" \
	"$([ -f "$p-coll.barrier.mat" ] && echo yes || echo no) $(grep -c '^# barrier: 4 calls' "$p-coll.sum.mat")"

prof 5 "$p-coll5" "$out/commprof_test" coll 4
expect_eq "(a) 5 ranks: allreduce with one extra rank" "$(exp_allreduce 56 5)" "$(got "$p-coll5" allreduce)"
expect_eq "(a) 5 ranks: reduce to 4" "$(exp_reduce 4 40 5)" "$(got "$p-coll5" reduce)"
expect_eq "(a) 5 ranks: allgather" "$(exp_allgather 20 5)" "$(got "$p-coll5" allgather)"

prof 1 "$p-one" "$out/commprof_test" ring 3
expect_eq "(a) 1 rank: a send to itself stays on the diagonal" "3000" "$(got "$p-one" p2p)"

# Sub-communicators {2, 0} and {3, 1} (reverse order): 77 bytes p2p and a
# 10-byte bcast from sub-rank 0; world bcast of 1000 from 0; over the
# intercommunicator, 2 <-> 3 and 0 <-> 1 send 5 bytes; its barrier is skipped.
split_p2p="0 5 0 0
5 0 0 0
77 0 0 5
0 77 5 0"
split_sub="0 0 0 0
0 0 0 0
10 0 0 0
0 10 0 0"
prof $n "$p-split" "$out/commprof_test" split
expect_eq "(a) split: p2p on the sub- and intercommunicator, in world ranks" "$split_p2p" \
	"$(got "$p-split" p2p)"
expect_eq "(a) split: bcast = world tree + sub-communicator edges" \
	"$(mat_sum <(exp_bcast 0 1000) <(echo "$split_sub"))" "$(got "$p-split" bcast)"
expect_eq "(a) split: one warning for the intercommunicator barrier" \
	"commprof: 4 collective calls on intercommunicators were not recorded" "$(cat "$out/err")"
TOPOMATCH_PROF_EXCLUDE=global prof $n "$p-xglobal" "$out/commprof_test" split
expect_eq "(a) TOPOMATCH_PROF_EXCLUDE=global: only the sub-communicator bcast" "$split_sub" \
	"$(got "$p-xglobal" bcast)"
expect_eq "(a) TOPOMATCH_PROF_EXCLUDE=global: p2p unchanged" "$split_p2p" "$(got "$p-xglobal" p2p)"
TOPOMATCH_PROF_EXCLUDE=bcast,nosuch prof $n "$p-xbcast" "$out/commprof_test" bcast 0
expect_eq "(a) TOPOMATCH_PROF_EXCLUDE=bcast,nosuch: no bcast file, zero sum" \
	"c-xbcast.sum.mat c-xbcast.wsum.mat $(exp_ring 0 | tr '\n' ' ')" \
	"$(cd "$out" && echo c-xbcast.*) $(got "$p-xbcast" sum | tr '\n' ' ')"
expect_eq "(a) unknown excluded type: one warning (rank 0)" 1 \
	"$(grep -c "^commprof: TOPOMATCH_PROF_EXCLUDE: unknown type 'nosuch' ignored" "$out/err")"

# (b) linked in
linked $n "$p-linked" "$out/commprof_test_linked" ring 4
expect_eq "(b) linked (-lcommprof), no LD_PRELOAD: ring" "0 $(exp_ring 4)" "$rc $(got "$p-linked" p2p)"

# (c) Fortran
if command -v mpif90 >/dev/null; then
	for f in f f08; do
		if ! mpif90 -Wall -Werror -o "$out/commprof_test_$f" "$top/tests/mpi/commprof_test_$f.f90" \
			-J "$out" 2>"$out/build.err"; then
			cat "$out/build.err"
			not_ok "(c) commprof_test_$f.f90 builds"
			continue
		fi
		q=$out/$f
		what="(c) Fortran $([ $f = f ] && echo "use mpi" || echo "use mpi_f08")"
		prof $n "$q-ring" "$out/commprof_test_$f" ring 10
		expect_eq "$what: ring" "0 $(exp_ring 10)" "$rc $(got "$q-ring" p2p)"
		prof $n "$q-a2a" "$out/commprof_test_$f" alltoall
		expect_eq "$what: alltoall" "$(exp_alltoall)" "$(got "$q-a2a" alltoall)"
		expect_eq "$what: alltoallv, normal + MPI_IN_PLACE (zero send counts ignored)" \
			"$(exp_alltoallv)" "$(got "$q-a2a" alltoallv)"
		prof $n "$q-bcast" "$out/commprof_test_$f" bcast 3
		expect_eq "$what: bcast from 3" "$(exp_bcast 3 400)" "$(got "$q-bcast" bcast)"
		prof $n "$q-halo" "$out/commprof_test_$f" halo 5
		expect_eq "$what: persistent halo" "$(exp_halo 5)" "$(got "$q-halo" p2p)"
	done
	if mpif90 -Wall -Werror -o "$out/commprof_test_f_linked" "$top/tests/mpi/commprof_test_f.f90" \
		-J "$out" -L"$out" -Wl,-rpath,"$out" -lcommprof 2>"$out/build.err"; then
		linked $n "$out/f-linked" "$out/commprof_test_f_linked" halo 4
		expect_eq "(b) Fortran, linked: persistent halo" "0 $(exp_halo 4)" "$rc $(got "$out/f-linked" p2p)"
	else
		cat "$out/build.err"
		not_ok "(b) the Fortran program links with -lcommprof"
	fi
else
	echo "# no mpif90: Fortran not tested"
fi

# (d) errors
prof $n "/nonexistent-commprof/dir/p" "$out/commprof_test" ring 2
expect_eq "(d) unwritable prefix: exit 0" 0 "$rc"
expect_eq "(d) unwritable prefix: path and strerror, one line per file" \
	"commprof: cannot write /nonexistent-commprof/dir/p.p2p.mat: No such file or directory
commprof: cannot write /nonexistent-commprof/dir/p.sum.mat: No such file or directory
commprof: cannot write /nonexistent-commprof/dir/p.wsum.mat: No such file or directory" "$(cat "$out/err")"
mkdir -p "$out/isdir.p2p.mat"
prof $n "$out/isdir" "$out/commprof_test" ring 2
expect_eq "(d) one file cannot be written (a directory there): message, the others written" \
	"0 commprof: cannot write $out/isdir.p2p.mat: Is a directory $(exp_ring 2 | tr '\n' ' ')" \
	"$rc $(cat "$out/err") $(got "$out/isdir" sum | tr '\n' ' ')"
mkdir -p "$out/unset"
(cd "$out/unset" && timeout 60 mpirun --allow-run-as-root --oversubscribe -np $n \
	--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
	-x LD_PRELOAD="$lib" "$out/commprof_test" ring 2 >/dev/null 2>"$out/err")
rc=$?
expect_eq "(d) TOPOMATCH_PROF_OUT unset: exit 0, one warning, no file" \
	"0 commprof: TOPOMATCH_PROF_OUT is not set: no profile written (set it to a path prefix, e.g. TOPOMATCH_PROF_OUT=/tmp/prof) " \
	"$rc $(cat "$out/err") $(ls -A "$out/unset")"

# (f) what `make` built (configure found mpicc: the build's Makefile names
# it): libcommprof.so and the topomatch-prof wrapper, which each rank runs
# (mpirun never loads the profiler); the same ring matrices as (a)
mpicc_of_build=$(sed -n 's/^MPICC = //p' "$build/Makefile" 2>/dev/null)
if [ -n "$mpicc_of_build" ]; then
	built=$build/contrib/commprof
	mkdir -p "$out/wrap"
	TOPOMATCH_PROF_LIB=$built/libcommprof.so timeout 60 mpirun --allow-run-as-root \
		--oversubscribe -np $n --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		-x TOPOMATCH_PROF_LIB "$built/topomatch-prof" -o "$out/wrap/w" --counts \
		"$out/commprof_test" ring 10 >/dev/null 2>"$out/err"
	rc=$?
	expect_eq "(f) make's libcommprof.so under topomatch-prof: exit 0, nothing on stderr" \
		"0 " "$rc $(cat "$out/err")"
	expect_eq "(f) topomatch-prof: p2p as in (a)" "$(exp_ring 10)" "$(got "$out/wrap/w" p2p)"
	expect_eq "(f) topomatch-prof --counts: p2p.count as in (a)" "$(exp_ring_count 10)" \
		"$(got "$out/wrap/w" p2p.count)"
	TOPOMATCH_PROF_LIB=$out/none.so "$built/topomatch-prof" -o "$out/wrap/x" true 2>"$out/err"
	rc=$?
	expect_eq "(f) topomatch-prof without the library: exit 2, names it" \
		"2 topomatch-prof: $out/none.so: no such library (configure found no MPI compiler? TOPOMATCH_PROF_LIB names another)" \
		"$rc $(head -1 "$out/err")"
	"$built/topomatch-prof" true 2>"$out/err"
	expect_eq "(f) topomatch-prof without -o: exit 2, says so" \
		"2 topomatch-prof: -o PREFIX is needed (where rank 0 writes the matrices)" \
		"$? $(head -1 "$out/err")"
else
	echo "# $build was configured without MPI: make's libcommprof.so not tested"
fi

# (e) the project's reader: ring on 2 nodes x 2 cores, identity mapping:
# 10000 bytes over 2 hops (0->1, 2->3) and 4 hops (1->2, 3->0)
if [ -x "$tm" ]; then
	printf '0 1 2 3\n' >"$out/id.map"
	expect_eq "(e) topomatch eval reads the wsum file: hop-bytes 10000 x (2+4+2+4)" 120000 \
		"$("$tm" eval -t "tleaf 2 2 10 2 1" -c "$p-ring.wsum.mat" -s "$out/id.map" --json |
			sed -n 's/.*"hop_bytes": \([0-9.]*\).*/\1/p')"
	if "$tm" map -t "tleaf 2 2 10 2 1" -c "$p-split.wsum.mat" --out "$out/split.map" >/dev/null &&
		[ "$(wc -w <"$out/split.map")" = 4 ]; then
		ok "(e) topomatch map maps a weighted sum (non-integer weights)"
	else
		not_ok "(e) topomatch map maps a weighted sum"
	fi
else
	echo "# no $tm: the reader not tested"
fi
finish

#!/bin/bash
# tests/mpi/reorder.sh BUILD_DIR - contrib/mpi's helper (topomatch_mpi_comm)
# under Open MPI's mpirun, 4 processes on this machine, each given its
# TOPOMATCH_RANK by a wrapper (as slurmstepd would):
#  (a) a permutation (3,1,0,2), the identity, a reversal: every process's
#      new rank is its TOPOMATCH_RANK, return code 0 everywhere, and the new
#      communicator works (bcast, allreduce);
#  (b) one missing, one duplicate, one out of range, malformed values
#      ("+1", "01", " 1", "1x", "", "-1"), all missing: return code -1
#      (TOPOMATCH_MPI_NOT_REORDERED) on every process, the new communicator
#      in MPI_COMM_WORLD's order; TOPOMATCH_MPI_VERBOSE says why;
#  (c) the Fortran module, when mpif90 is there.
# Builds the helper and the test programs with mpicc/mpif90 into
# BUILD_DIR/tests/mpi.  Skips (77) without mpicc or mpirun (Debian:
# libopenmpi-dev openmpi-bin).  Prints "mpi: N passed, M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: reorder.sh BUILD_DIR}" && pwd)
out=$build/tests/mpi
np=4

# shellcheck source=tests/mpi/lib.sh
. "$top/tests/mpi/lib.sh"
need_mpi mpicc mpirun
mkdir -p "$out"
# shellcheck disable=SC2086
if mpicc $CFLAGS -I"$top/contrib/mpi" -o "$out/reorder_test" "$top/tests/mpi/reorder_test.c" \
	"$top/contrib/mpi/topomatch_mpi.c" 2>"$out/build.err"; then
	ok "the helper builds with mpicc, warnings as errors"
else
	cat "$out/build.err"
	not_ok "the helper builds with mpicc"
	finish
fi

# The wrapper gives process i the i-th value of TM_RANKS (comma-separated;
# "-" leaves TOPOMATCH_RANK unset).
cat >"$out/with_rank.sh" <<'EOW'
#!/bin/bash
IFS=, read -r -a v <<<"$TM_RANKS,"
i=${OMPI_COMM_WORLD_RANK:?not started by Open MPI}
unset TOPOMATCH_RANK
[ "${v[$i]}" = - ] || export TOPOMATCH_RANK="${v[$i]}"
exec "$@"
EOW
chmod +x "$out/with_rank.sh"

run() { # RANKS PROGRAM: the processes' lines, sorted by world rank
	TM_RANKS=$1 timeout 120 mpirun --allow-run-as-root --oversubscribe -np $np \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		"$out/with_rank.sh" "$2" 2>"$out/mpirun.err" | sort -t= -k2 -n
}

# (a) reordered: new rank = TOPOMATCH_RANK, rc 0, the communicator works
for ranks in 3,1,0,2 0,1,2,3 3,2,1,0; do
	got=$(run "$ranks" "$out/reorder_test")
	want=$(IFS=,; i=0; for r in $ranks; do
		echo "world=$i env=$r new=$r rc=0 size=$np same=Y ok=Y"; i=$((i + 1)); done)
	expect_eq "(a) TOPOMATCH_RANK $ranks: new rank = TOPOMATCH_RANK, rc 0" "$want" \
		"$(printf '%s\n' "$got" | sed 's/ w0=.*//')"
	# the process whose TOPOMATCH_RANK is 0 is new rank 0 (broadcast root)
	w0=$(IFS=,; i=0; for r in $ranks; do [ "$r" = 0 ] && echo $i; i=$((i + 1)); done)
	expect_eq "(a) $ranks: new rank 0 is world rank $w0 on every process" "$np" \
		"$(printf '%s\n' "$got" | grep -c " w0=$w0\$")"
done

# (b) not reordered: rc -1 everywhere, MPI_COMM_WORLD's order
for ranks in 3,-,0,2 3,1,1,2 4,1,0,2 +1,0,2,3 01,0,2,3 " 1,0,2,3" 1x,0,2,3 ,0,2,3 \
	-1,0,2,3 2147483648,0,1,2 -,-,-,-; do
	got=$(run "$ranks" "$out/reorder_test" | sed 's/ env=[^=]* new=/ new=/; s/ w0=.*//')
	want=$(for ((i = 0; i < np; i++)); do
		echo "world=$i new=$i rc=-1 size=$np same=Y ok=Y"; done)
	expect_eq "(b) TOPOMATCH_RANK '$ranks': rc -1 everywhere, the same order" "$want" "$got"
done
TOPOMATCH_MPI_VERBOSE=1 run 3,1,1,2 "$out/reorder_test" >/dev/null
expect_eq "(b) TOPOMATCH_MPI_VERBOSE: one line from rank 0 (duplicate)" \
	"topomatch_mpi: TOPOMATCH_RANK values are not distinct; ranks not reordered" \
	"$(grep topomatch_mpi "$out/mpirun.err")"
TOPOMATCH_MPI_VERBOSE=1 run 3,-,0,9 "$out/reorder_test" >/dev/null
expect_eq "(b) TOPOMATCH_MPI_VERBOSE: one line from rank 0 (missing, out of range)" \
	"topomatch_mpi: TOPOMATCH_RANK missing or not in 0 .. size-1 on 2 of 4 processes; ranks not reordered" \
	"$(grep topomatch_mpi "$out/mpirun.err")"
run 3,1,1,2 "$out/reorder_test" >/dev/null
expect_eq "(b) silent without TOPOMATCH_MPI_VERBOSE" "" "$(grep topomatch_mpi "$out/mpirun.err")"

# (c) Fortran
if command -v mpif90 >/dev/null; then
	# shellcheck disable=SC2086 # CFLAGS: several words
	if (cd "$out" && mpicc $CFLAGS -c -o topomatch_mpi.o "$top/contrib/mpi/topomatch_mpi.c" &&
		mpif90 -Wall -Werror -c -o topomatch_mpi_f.o "$top/contrib/mpi/topomatch_mpi_f.f90" &&
		mpif90 -Wall -Werror -o reorder_test_f "$top/tests/mpi/reorder_test_f.f90" \
			topomatch_mpi_f.o topomatch_mpi.o) 2>"$out/build.err"; then
		expect_eq "(c) Fortran: new rank = TOPOMATCH_RANK" "fortran world=0 new=3 rc=0
fortran world=1 new=1 rc=0
fortran world=2 new=0 rc=0
fortran world=3 new=2 rc=0" "$(run 3,1,0,2 "$out/reorder_test_f" | sed 's/^ *//')"
		expect_eq "(c) Fortran: duplicate, rc -1" "fortran world=0 new=0 rc=-1
fortran world=1 new=1 rc=-1
fortran world=2 new=2 rc=-1
fortran world=3 new=3 rc=-1" "$(run 3,1,3,2 "$out/reorder_test_f" | sed 's/^ *//')"
	else
		cat "$out/build.err"
		not_ok "(c) the Fortran module builds"
	fi
else
	echo "# no mpif90: Fortran module not tested"
fi
finish

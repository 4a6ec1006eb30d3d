#!/bin/sh
# bench/record_profiles.sh [OUTDIR] - record the communication profiles of
# real MPI programs that tm_bench maps (bench/profiles/README.md), with the
# project's PMPI profiler (contrib/commprof), and write them to OUTDIR
# (default: bench/profiles next to this script).
#
# Installs what is missing with apt-get (Debian: openmpi-bin,
# libopenmpi-dev, lammps, meep-openmpi; needs root), builds
# libcommprof.so from ../contrib/commprof/commprof.c in a temporary
# directory, then runs each program once under mpirun with the profiler
# preloaded:
#   lammps-melt-64     LAMMPS, examples/melt/in.melt as shipped, 64 ranks
#   lammps-melt-128    the same, 128 ranks
#   lammps-peptide-64  LAMMPS, examples/peptide/in.peptide as shipped, 64 ranks
#   meep-wg2d-64       Meep, a 2D straight waveguide (written below), 64 ranks
# and copies PREFIX.sum.mat, PREFIX.p2p.mat and PREFIX.wsum.mat of each
# to OUTDIR, with OUTDIR/recorded.txt (date, machine, versions, commands).
#
# Run by hand, NOT by CI: it installs packages and takes a few minutes
# (the ranks are oversubscribed: 64 or 128 processes on the cores there
# are).  The sum matrices count bytes and do not depend on timing; the
# wsum matrices do (they weigh each type by its share of the time).
# Environment: MPIRUN (default mpirun), RUN_TIMEOUT (seconds per program,
# default 300).
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/profiles}
src=$here/../contrib/commprof/commprof.c
mpirun=${MPIRUN:-mpirun}
limit=${RUN_TIMEOUT:-300}

if [ ! -f "$src" ]; then
	echo "record_profiles.sh: $src not found (contrib/commprof is on main)" >&2
	exit 1
fi

# --- packages
missing=
for pkg in openmpi-bin libopenmpi-dev lammps meep-openmpi; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $pkg"
done
if [ -n "$missing" ]; then
	echo "record_profiles.sh: installing$missing" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "record_profiles.sh: need root for apt-get install$missing" >&2
		exit 1
	fi
	apt-get update -q
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi
for bin in mpicc "$mpirun" lmp meep; do
	if ! command -v "$bin" >/dev/null 2>&1; then
		echo "record_profiles.sh: $bin not found after the install" >&2
		exit 1
	fi
done
examples=/usr/share/lammps/examples
for f in "$examples/melt/in.melt" "$examples/peptide/in.peptide" \
	"$examples/peptide/data.peptide"; do
	if [ ! -f "$f" ]; then
		echo "record_profiles.sh: $f not found (package lammps-data)" >&2
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/record_profiles.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# --- the profiler, from the repository's sources
mpicc -shared -fPIC -O2 -o "$work/libcommprof.so" "$src"

# Open MPI refuses root unless told; more ranks than cores is the point
root_opt=
[ "$(id -u)" -ne 0 ] || root_opt=--allow-run-as-root

version() {
	dpkg-query -W -f='${Package} ${Version}\n' "$1"
}

{
	echo "# bench/profiles, recorded by bench/record_profiles.sh"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "machine: $(uname -srm); cpu:" \
		"$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//');" \
		"$(nproc) cores"
	echo "os: $(sed -n 's/^PRETTY_NAME="*\([^"]*\)"*$/\1/p' /etc/os-release)"
	echo "versions: $(version openmpi-bin); $(version lammps); $(version meep-openmpi)"
	echo "profiler: contrib/commprof/commprof.c, built with: mpicc -shared -fPIC -O2"
} >"$work/recorded.txt"

# record NAME NP DIR PROGRAM ARGS...: run PROGRAM in DIR with NP ranks under
# the profiler; keep NAME.{sum,p2p,wsum}.mat
record() {
	name=$1
	np=$2
	dir=$3
	shift 3
	echo "record_profiles.sh: $name ($np ranks): $*" >&2
	start=$(date +%s)
	# shellcheck disable=SC2086 # root_opt is empty or one word
	(cd "$dir" && timeout "$limit" "$mpirun" $root_opt --oversubscribe --bind-to none \
		-np "$np" -x LD_PRELOAD="$work/libcommprof.so" -x TOPOMATCH_PROF_OUT="$dir/$name" \
		"$@" >"$dir/$name.out" 2>&1) || {
		echo "record_profiles.sh: $name failed; its output:" >&2
		tail -n 20 "$dir/$name.out" >&2
		exit 1
	}
	for kind in sum p2p wsum; do
		cp "$dir/$name.$kind.mat" "$out/$name.$kind.mat"
	done
	{
		echo
		echo "$name: $np ranks, $(($(date +%s) - start)) s"
		echo "  mpirun $root_opt --oversubscribe --bind-to none -np $np" \
			"-x LD_PRELOAD=libcommprof.so -x TOPOMATCH_PROF_OUT=$name $*"
		grep -h -E 'MPI processor grid|Loop time|Splitting into|Elapsed run time' \
			"$dir/$name.out" "$dir/log.lammps" 2>/dev/null | sed 's/^ */  /' || true
		sed -n 's/^# sum of: /  types: /p' "$dir/$name.sum.mat"
	} >>"$work/recorded.txt"
}

# LAMMPS: the Lennard-Jones melt (4000 atoms, 250 steps), as shipped; a 3D
# processor grid of LAMMPS's choice (4x4x4, 4x4x8), ranks x fastest
for np in 64 128; do
	d=$work/melt-$np
	mkdir -p "$d"
	record "lammps-melt-$np" "$np" "$d" lmp -in "$examples/melt/in.melt" \
		-log log.lammps -screen none
done

# LAMMPS: the solvated peptide (2004 atoms, PPPM long-range, 300 steps), as
# shipped (it reads data.peptide from its directory)
d=$work/peptide-64
mkdir -p "$d"
cp "$examples/peptide/in.peptide" "$examples/peptide/data.peptide" "$d/"
record lammps-peptide-64 64 "$d" lmp -in in.peptide -log log.lammps -screen none

# Meep: a 2D straight dielectric waveguide (its tutorial's first example,
# in a 32 x 16 cell at resolution 10: 320 x 160 pixels, 400 time steps);
# Meep splits the cell into 64 chunks by recursive bisection.  3D cells
# take minutes to set up at 64 oversubscribed ranks.
d=$work/meep-64
mkdir -p "$d"
cat >"$d/wg2d.ctl" <<'EOF'
(set! geometry-lattice (make lattice (size 32 16 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make medium (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -15 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until 20)
EOF
record meep-wg2d-64 64 "$d" meep wg2d.ctl

cp "$work/recorded.txt" "$out/recorded.txt"
echo "record_profiles.sh: profiles in $out" >&2

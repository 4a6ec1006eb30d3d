#!/bin/sh
# bench/record_profiles.sh [OUTDIR] - record the communication profiles of
# real MPI programs that tm_bench maps (bench/profiles/README.md), with the
# project's PMPI profiler (contrib/commprof), and write them to OUTDIR
# (default: bench/profiles next to this script).
#
# Installs what is missing with apt-get (Debian: openmpi-bin,
# libopenmpi-dev, lammps, meep-openmpi, gromacs, openfoam,
# openfoam-examples, cp2k, quantum-espresso, quantum-espresso-data,
# petsc-dev, libpetsc3.18-dev-examples; needs root), builds libcommprof.so
# from
# ../contrib/commprof/commprof.c in a temporary directory, then runs each
# program once under mpirun with the profiler preloaded:
#   lammps-melt-64     LAMMPS, examples/melt/in.melt as shipped, 64 ranks
#   lammps-melt-128    the same, 128 ranks
#   lammps-peptide-64  LAMMPS, examples/peptide/in.peptide as shipped, 64 ranks
#   meep-wg2d-64       Meep, a 2D straight waveguide (written below), 64 ranks
#   gromacs-water-64   GROMACS, a 5 nm box of SPC/E water built from the
#                      package's spc216.gro, PME on separate ranks, 64 ranks
#   gromacs-water-128  the same in a 7 nm box, 128 ranks
#   openfoam-pitzdaily-64  OpenFOAM, the simpleFoam pitzDaily tutorial as
#                      shipped (openfoam-examples), 20 iterations,
#                      hierarchical 16 x 4 decomposition, 64 ranks
#   cp2k-h2o-64        CP2K, its H2O.inp example as shipped (Quickstep,
#                      5 MD steps), 64 ranks
#   qe-diamond-64      Quantum ESPRESSO, the diamond SCF of its EPW
#                      example as shipped, 8 k-point pools, 64 ranks
#   petsc-ex13-64      PETSc, its SNES tutorial ex13 (Poisson on a DMPlex
#                      mesh partitioned by PT-Scotch), 64 ranks
# and copies PREFIX.sum.mat, PREFIX.p2p.mat and PREFIX.wsum.mat of each
# to OUTDIR, with OUTDIR/recorded.txt (date, machine, versions, commands).
# Names given as arguments after OUTDIR record only those (e.g.
# `record_profiles.sh bench/profiles gromacs-water-64`), and their record
# goes after the one in OUTDIR/recorded.txt.
# bench/profiles/bound.py bounds what a mapper can gain on each.
#
# Run by hand, NOT by CI: it installs packages and takes a few minutes
# (the ranks are oversubscribed: 64 or 128 processes on the cores there
# are).  The sum matrices count bytes and do not depend on timing; the
# wsum matrices do (they weigh each type by its share of the time).
# Environment: MPIRUN (default mpirun), RUN_TIMEOUT (seconds per program,
# default 900: alone on 2 cores the longest took 100 s, and beside other
# work three times as long).
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/profiles}
[ $# -eq 0 ] || shift
only=" $* "	# the profiles to record; "  ": all
src=$here/../contrib/commprof/commprof.c
mpirun=${MPIRUN:-mpirun}
limit=${RUN_TIMEOUT:-900}

if [ ! -f "$src" ]; then
	echo "record_profiles.sh: $src not found (contrib/commprof is on main)" >&2
	exit 1
fi

# --- packages
missing=
for pkg in openmpi-bin libopenmpi-dev lammps meep-openmpi gromacs openfoam \
	openfoam-examples cp2k quantum-espresso quantum-espresso-data petsc-dev \
	libpetsc3.18-dev-examples; do
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
for bin in mpicc "$mpirun" lmp meep gmx_mpi blockMesh decomposePar simpleFoam cp2k.popt \
	pw.x; do
	if ! command -v "$bin" >/dev/null 2>&1; then
		echo "record_profiles.sh: $bin not found after the install" >&2
		exit 1
	fi
done
examples=/usr/share/lammps/examples
foam_tutorial=/usr/share/doc/openfoam-examples/examples/incompressible/simpleFoam/pitzDaily
cp2k_example=/usr/share/doc/cp2k/examples/H2O.inp
petsc_example=/usr/share/petsc/3.18/share/petsc/examples/src/snes/tutorials/ex13.c
for f in "$examples/melt/in.melt" "$examples/peptide/in.peptide" \
	"$examples/peptide/data.peptide" /usr/share/gromacs/top/spc216.gro \
	"$foam_tutorial/system/blockMeshDict" "$cp2k_example" \
	/usr/share/doc/quantum-espresso/examples/EPW/diamond/epw/scf.in "$petsc_example"; do
	if [ ! -f "$f" ]; then
		echo "record_profiles.sh: $f not found (packages lammps-data," \
			"gromacs-data, openfoam-examples, cp2k, quantum-espresso-data," \
			"libpetsc3.18-dev-examples)" >&2
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
	echo "versions: $(version openmpi-bin); $(version lammps); $(version meep-openmpi);" \
		"$(version gromacs); $(version openfoam); $(version cp2k);" \
		"$(version quantum-espresso); $(version libpetsc-real3.18-dev)"
	echo "profiler: contrib/commprof/commprof.c, built with: mpicc -shared -fPIC -O2"
} >"$work/recorded.txt"

# wanted NAME: NAME is to be recorded (named on the command line, or none was)
wanted() {
	case $only in
	"  " | *" $1 "*) return 0 ;;
	*) return 1 ;;
	esac
}

# record NAME NP DIR PROGRAM ARGS...: run PROGRAM in DIR with NP ranks under
# the profiler; keep NAME.{sum,p2p,wsum}.mat
record() {
	name=$1
	np=$2
	dir=$3
	shift 3
	wanted "$name" || return 0
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
		# the programs' own words on the decomposition and the run time
		# (LAMMPS, Meep, GROMACS's md.log, CP2K; OpenFOAM's last iteration)
		grep -h -E 'MPI processor grid|Loop time|Splitting into|Elapsed run time|Domain decomposition grid|Total number of message passing|^ CP2K  |K-points division|R & G space division|PWSCF  *:|Linear solve converged|Min/Max of 3-cells' \
			"$dir/$name.out" "$dir/log.lammps" "$dir/md.log" 2>/dev/null |
			sed 's/^ */  /' || true
		grep -h -E '^ExecutionTime' "$dir/$name.out" | tail -n 1 | sed 's/^/  /' || true
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

# GROMACS: SPC/E water (no solute), built with the package's own tools
# from its equilibrated 216-water box (spc216.gro, gromacs-data), minimised
# on one rank, then 200 MD steps (0.4 ps) with PME electrostatics.  mdrun
# splits the ranks itself: at 64 ranks a 4 x 4 x 3 domain grid of 48
# particle-particle ranks and 16 separate PME-mesh ranks (32 of 128 at 128
# ranks), interleaved in the rank order (mdrun's default -ddorder
# interleave).  The mdrun options keep the bytes reproducible (to 1e-6:
# bench/profiles/README.md): -reprod, -dlb no and -notunepme (dynamic load
# balancing and PME tuning follow the timings, which oversubscription
# makes erratic), -nb cpu, -ntomp 1; the seeds of the velocities and the
# thermostat are fixed.  The box is 5 nm
# (4,055 waters) at 64 ranks and 7 nm (11,225) at 128, so that the domains
# stay wider than the 1 nm cut-off.
gromacs_water() { # NAME NP BOX_NM
	wanted "$1" || return 0
	d=$work/$1
	mkdir -p "$d"
	cat >"$d/em.mdp" <<'EOF'
integrator      = steep
nsteps          = 500
emtol           = 1000
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
EOF
	cat >"$d/md.mdp" <<'EOF'
integrator      = md
dt              = 0.002
nsteps          = 200
nstcalcenergy   = 50
nstenergy       = 0
nstlog          = 100
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
fourierspacing  = 0.12
tcoupl          = v-rescale
tc-grps         = System
tau-t           = 0.1
ref-t           = 300
gen-vel         = yes
gen-temp        = 300
gen-seed        = 1
ld-seed         = 1
constraints     = h-bonds
EOF
	(
		cd "$d"
		gmx_mpi -quiet solvate -cs spc216.gro -box "$3" "$3" "$3" -o water.gro
		{
			echo '#include "oplsaa.ff/forcefield.itp"'
			echo '#include "oplsaa.ff/spce.itp"'
			printf '[ system ]\nSPC/E water\n[ molecules ]\n'
			awk 'NR == 2 { print "SOL", $1 / 3 }' water.gro
		} >topol.top
		gmx_mpi -quiet grompp -f em.mdp -c water.gro -p topol.top -o em.tpr
		gmx_mpi -quiet mdrun -s em.tpr -deffnm em -ntomp 1
		gmx_mpi -quiet grompp -f md.mdp -c em.gro -p topol.top -o water.tpr
	) >"$d/setup.log" 2>&1 || {
		echo "record_profiles.sh: $1: GROMACS set-up failed; its output:" >&2
		tail -n 20 "$d/setup.log" >&2
		exit 1
	}
	record "$1" "$2" "$d" gmx_mpi -quiet mdrun -s water.tpr -g md.log -ntomp 1 \
		-reprod -dlb no -notunepme -nb cpu
}
gromacs_water gromacs-water-64 64 5
gromacs_water gromacs-water-128 128 7

# OpenFOAM: the simpleFoam pitzDaily tutorial (2D backward-facing step,
# 12,225 cells) as shipped, 20 iterations instead of 2,000 (each
# exchanges with the same neighbours; beside other work on 2 cores, 64
# oversubscribed ranks did 9 iterations in 6 minutes).  Debian's
# OpenFOAM has no working scotch, metis or kahip decomposition (stubs; its
# ptscotch needs a parallel run), so decomposePar cuts the mesh with the
# hierarchical method, 16 parts along x, then 4 along y: the ranks are
# numbered x fastest.  OpenFOAM's commands find their files through
# WM_PROJECT_DIR; the ranks need Open MPI's Pstream library
# (/usr/lib/openmpi-system: the default one is the serial stub).
d=$work/openfoam-pitzdaily-64
if wanted openfoam-pitzdaily-64; then
	cp -r "$foam_tutorial" "$d"
	chmod -R u+w "$d"
	sed -i 's/^endTime .*/endTime         20;/; s/^writeInterval .*/writeInterval   20;/' \
		"$d/system/controlDict"
	cat >"$d/system/decomposeParDict" <<'EOF'
FoamFile
{
    version     2.0;
    format      ascii;
    class       dictionary;
    object      decomposeParDict;
}
numberOfSubdomains 64;
method          hierarchical;
coeffs
{
    n           (16 4 1);
}
EOF
	(cd "$d" && WM_PROJECT_DIR=/usr/share/openfoam blockMesh &&
		WM_PROJECT_DIR=/usr/share/openfoam decomposePar) >"$d/setup.log" 2>&1 || {
		echo "record_profiles.sh: OpenFOAM set-up failed; its output:" >&2
		tail -n 20 "$d/setup.log" >&2
		exit 1
	}
fi
record openfoam-pitzdaily-64 64 "$d" -x WM_PROJECT_DIR=/usr/share/openfoam \
	-x LD_LIBRARY_PATH=/usr/lib/openmpi-system simpleFoam -parallel

# CP2K: its H2O.inp example as shipped (one water molecule, Quickstep
# DFT with GTH pseudopotentials and a DZVP basis, 200 Ry grids, 5 MD
# steps); pure MPI (cp2k.popt) in CP2K's own grid and matrix layouts
d=$work/cp2k-h2o-64
mkdir -p "$d"
cp "$cp2k_example" "$d/"
record cp2k-h2o-64 64 "$d" -x OMP_NUM_THREADS=1 cp2k.popt -i H2O.inp

# Quantum ESPRESSO: the diamond SCF of its EPW example as shipped (2
# atoms, 60 Ry, an 8 x 8 x 8 k-point mesh: 60 k-points; 7 SCF iterations)
# with the pseudopotential shipped beside it, on 8 k-point pools of 8
# ranks (-nk 8: pools are the level of parallelism QE's user guide puts
# first, and a 24^3 FFT grid has too few planes for 64 ranks)
qe_example=/usr/share/doc/quantum-espresso/examples/EPW/diamond
d=$work/qe-diamond-64
if wanted qe-diamond-64; then
	mkdir -p "$d/epw" "$d/pp"
	cp "$qe_example/epw/scf.in" "$d/epw/"
	gzip -dc "$qe_example/pp/C_3.98148.UPF.gz" >"$d/pp/C_3.98148.UPF"
fi
record qe-diamond-64 64 "$d/epw" -x OMP_NUM_THREADS=1 pw.x -nk 8 -in scf.in

# PETSc: its SNES tutorial ex13 (libpetsc3.18-dev-examples), the Poisson
# problem on a DMPlex unstructured mesh, here a 24^3 box of hexahedra (Q1
# elements) that rank 0 builds and PT-Scotch partitions over the ranks
# (DMPlex's graph partitioner in Debian's build, which has no ParMETIS),
# solved by CG with Jacobi to 1e-8 (30 iterations).  Compiled with mpicc
# against the package's libpetsc_real, as the example's makefile would.
petsc_dir=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real
d=$work/petsc-ex13-64
if wanted petsc-ex13-64; then
	mkdir -p "$d"
	mpicc -O2 -o "$d/ex13" "$petsc_example" -I"$petsc_dir/include" -L"$petsc_dir/lib" \
		-Wl,-rpath,"$petsc_dir/lib" -lpetsc_real -lm
fi
record petsc-ex13-64 64 "$d" ./ex13 -dm_plex_dim 3 -dm_plex_simplex 0 \
	-dm_plex_box_faces 24,24,24 -potential_petscspace_degree 1 \
	-petscpartitioner_type ptscotch -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 \
	-ksp_converged_reason -dm_view

# all of them: a new record; some: their record after the others'
if [ "$only" = "  " ] || [ ! -f "$out/recorded.txt" ]; then
	cp "$work/recorded.txt" "$out/recorded.txt"
else
	{
		echo
		cat "$work/recorded.txt"
	} >>"$out/recorded.txt"
fi
echo "record_profiles.sh: profiles in $out" >&2

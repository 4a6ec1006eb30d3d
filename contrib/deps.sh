#!/bin/sh
# contrib/deps.sh - install what slurm-topomatch needs on Debian bookworm
# (run as root; does nothing when everything is there already).
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

PACKAGES="build-essential autoconf automake libtool pkg-config make gcc \
libhwloc-dev libscotch-dev libyaml-dev libslurm-dev check python3"
# the one-machine Slurm test cluster (contrib/testcluster/start.sh installs
# them too); the test cluster runs its own daemons with its own configuration
PACKAGES="$PACKAGES slurmctld slurmd slurm-client munge"
# the MPI helper of layout=reorder and its test (contrib/mpi, tests/mpi:
# mpicc, mpif90, mpirun)
PACKAGES="$PACKAGES libopenmpi-dev openmpi-bin gfortran"
# topomatch sim: .swf.gz traces (zlib) and its plots (gnuplot)
PACKAGES="$PACKAGES zlib1g-dev gnuplot-nox"
# the CLI tests under valgrind memcheck (tests/cli/run_valgrind.sh)
PACKAGES="$PACKAGES valgrind"
# the libFuzzer harnesses (tests/fuzz/run.sh)
PACKAGES="$PACKAGES clang libclang-rt-14-dev"
# topomatch explain reads squeue's JSON with json-c, as Slurm does
PACKAGES="$PACKAGES libjson-c-dev"
# Scotch's own tools (gmap, gmk_*): tests/cli/scotch_tools.sh checks that
# what `topomatch topo export --scotch` writes is a target they read
PACKAGES="$PACKAGES scotch"
# the test cluster's accounting, as sites run it: slurmdbd on MariaDB
# (contrib/testcluster/start.sh --accounting)
PACKAGES="$PACKAGES slurmdbd mariadb-server"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run this script as root, or: apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null

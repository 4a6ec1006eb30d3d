#!/bin/sh
# demo.sh - install what is needed, build, and run the main job: a local
# Slurm test cluster (16 nodes of 2 x 8 cores under 4 leaf switches, with
# select/topomatch and the SPANK plugin), some nodes busy with background
# jobs, and the same 64-rank 3D-stencil job submitted with and without
# --comm-pattern.  Prints both placements and their hop-bytes, stops the
# cluster.  Idempotent.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
./contrib/deps.sh
echo "demo: fetching and configuring the installed Slurm's source (cached)"
./contrib/slurm-source.sh >/dev/null
echo "demo: building"
./contrib/build.sh "$top/build"
tm="$top/build/tools/topomatch"
dir=/tmp/tm-demo
work=$(mktemp -d)
cleanup() {
	SLURM_CONF=$dir/slurm.conf scancel -u "$(id -un)" 2>/dev/null || true
	"$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

echo "demo: starting the test cluster in $dir"
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base 28001 \
	--select-dir "$top/build/plugin/select/.libs" \
	--spank "$top/build/plugin/spank/.libs/spank_topomatch.so" \
	--topomatch-conf --topomatch "$tm" >"$work/start.log" 2>&1 ||
	{ cat "$work/start.log"; exit 1; }
export SLURM_CONF=$dir/slurm.conf
yaml=$dir/cluster.yaml

busy="n003 n004 n010 n011 n012 n013"
echo "demo: background jobs on $busy"
for n in $busy; do
	sbatch -w "$n" --exclusive -o /dev/null --wrap "sleep 600" >/dev/null
done

"$tm" gen stencil3d --dims 4x4x4 --weights 1000,500,100 --shuffle 7 --out "$work/stencil.mtx"
echo "demo: job: 64 ranks of a 4x4x4 stencil (faces 1000/500/100), ranks numbered at random"

# run_job [sbatch options]: the nodes the job ran on
run_job() {
	id=$(sbatch --parsable -n 64 -o /dev/null "$@" --wrap "sleep 30")
	nodes=
	for _ in $(seq 100); do
		[ "$(squeue -h -j "$id" -o %T)" = RUNNING ] && nodes=$(squeue -h -j "$id" -o %N) && break
		sleep 0.2
	done
	scancel "$id"
	[ -n "$nodes" ] || { echo "demo: job $id did not start" >&2; exit 1; }
	echo "$nodes"
}
hop_bytes() { # NODES MAPPER
	"$tm" map -t "$yaml" -c "$work/stencil.mtx" --nodes "$1" --mapper "$2" --json |
		sed 's/.*"hop_bytes": \([^,]*\),.*/\1/'
}

with=$(run_job --comm-pattern="$work/stencil.mtx")
without=$(run_job)
hb_with=$(hop_bytes "$with" auto)
hb_without=$(hop_bytes "$without" round-robin)
echo "demo: with --comm-pattern:    nodes $with (select/topomatch), ranks placed by the pattern"
echo "demo: without --comm-pattern: nodes $without (Slurm's choice), ranks in block order"
"$tm" topo show "$yaml" | sed -n 's/^shape: */demo: cluster: /p'
printf 'demo: hop-bytes with pattern %.0f, without %.0f\n' "$hb_with" "$hb_without"

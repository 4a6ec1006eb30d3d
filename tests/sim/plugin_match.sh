#!/bin/bash
# tests/sim/plugin_match.sh BUILD_DIR - the simulator predicts the real
# select plugin (issue 6, point 8): a small job stream replayed by
# `topomatch sim --policy topomatch` on the test cluster's own description,
# then run on the real Slurm test cluster (contrib/testcluster: 16 nodes of
# 2 x 8 cores under 4 leaf switches) with select/topomatch and the SPANK
# plugin; every job must get the same nodes in both.
#
# The stream: two waves of whole-node jobs (-N k --exclusive, 16 tasks per
# node, as the simulator converts processors to nodes), each job started
# before the next is submitted, so that both schedulers see the same free
# nodes.  Jobs of 32, 48, 64 and 80 tasks carry a pattern (four different
# kinds); jobs of 16 tasks carry none, so cons_tres with topology/tree
# places them (the simulator's slurm-tree logic).  Wave 1 fills 14 nodes;
# three of its jobs end, leaving 10 free nodes spread over the 4 leaf
# switches, which wave 2 fills.  Then (2) the same stream again with the
# nodes described as a 4 x 4 torus and Slurm's topology/none: the node
# choice off trees, the mappings that use more nodes than their job and
# the plugin's last check (cons_tres' own nodes kept when the pattern
# mapped there costs less) give the simulator's nodes too.
#
# Needs root, a build with the plugins (configure found the Slurm source),
# and ports 27000-27016 (below Linux's ephemeral range, 32768 up, where a
# client's outgoing connection can hold the port: with 35000 slurmctld
# once failed to bind).  Prints "slurm: N passed, M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: plugin_match.sh BUILD_DIR}" && pwd)
dir=/tmp/tm-sim-test

# shellcheck source=../slurm/lib.sh
. "$top/tests/slurm/lib.sh"

need_select_plugin plugin_match.sh
work=$(mktemp -d)
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base 27001 --restart \
	--select-dir "$select_dir" --spank "$spank" --topomatch-conf --topomatch "$tm" \
	>"$work/start.log" 2>&1 || { cat "$work/start.log"; not_ok "test cluster starts"; finish; }
ok "test cluster starts with select/topomatch and the SPANK plugin"
export SLURM_CONF=$dir/slurm.conf
cd "$work" || exit 1

# one pattern per task count
"$tm" gen hierarchical --arity 8,4 --shuffle 2 --out "$work/p32.mtx"
"$tm" gen stencil2d --dims 6x8 --out "$work/p48.mtx"
"$tm" gen stencil3d --dims 4x4x4 --shuffle 4 --out "$work/p64.mtx"
"$tm" gen random --tasks 80 --degree 6 --seed 3 --out "$work/p80.mtx"

# the stream: id nodes run wave (wave-1 jobs of run 100 end before wave 2)
stream="1 1 100 1
2 3 10000 1
3 2 100 1
4 1 10000 1
5 5 100 1
6 2 10000 1
7 4 10000 2
8 1 10000 2
9 3 10000 2
10 2 10000 2"
printf '%s\n' "$stream" | awk '{
	submit = $4 == 1 ? 0 : 200
	printf "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 -1 1 1 -1 -1\n", $1, submit, $3, 16 * $2, 16 * $2, $3 + 50
}' >"$work/stream.swf"
run_sim() {
	"$tm" sim -t "$dir/cluster.yaml" --trace "$work/stream.swf" --policy topomatch \
		--comm-share 0 --no-plots --quiet --out "$work/sim" \
		--patterns "file:$work/p32.mtx,file:$work/p48.mtx,file:$work/p64.mtx,file:$work/p80.mtx"
}
if run_sim >"$work/sim.out" 2>"$work/sim.err"; then
	ok "topomatch sim replays the stream"
else
	not_ok "topomatch sim replays the stream: $(cat "$work/sim.err")"
	finish
fi
expect_eq "sim: 7 jobs with a pattern, 3 without" "7 3" \
	"$(awk -F, 'NR > 1 { if ($12 == "none") n++; else p++ } END { print p + 0, n + 0 }' "$work/sim-jobs.csv")"
grep '^topomatch:' "$work/sim.out"
# the node list: the CSV's last field, quoted (it holds commas)
sim_nodes() { # JOB [OUT]: from the run whose --out was $work/OUT (default sim)
	awk -F, -v j="$1" '$1 == "topomatch" && $2 == j { sub(/^[^"]*"/, ""); sub(/"$/, ""); print }' \
		"$work/${2:-sim}-jobs.csv"
}

# the real cluster: each job waits to run before the next is submitted
compare() { # JOB [OUT]
	local j=$1 real sim
	real=$(squeue -h -j "${slurm_id[$j]}" -o %N)
	sim=$(sim_nodes "$j" "${2:-sim}")
	expect_eq "job $j${2:+ ($2)}: the simulator's nodes are the plugin's" "$real" "$sim"
}
idle_nodes() { sinfo -h -t idle -o %D | awk '{ s += $1 } END { print s + 0 }'; }
# wave W of the stream on the real cluster, each job compared once it
# runs with the simulator's run $work/OUT (default sim)
wave() { # W [OUT]
	local w=$1 j k run wave
	shift
	while read -r j k run wave; do
		[ "$wave" = "$w" ] && submit "$j" "$k"
	done <<<"$stream"
	while read -r j k run wave; do
		[ "$wave" = "$w" ] && compare "$j" "$@"
	done <<<"$stream"
}
# wave 1, its short jobs end, wave 2
two_waves() { # [OUT]
	local j k run wave ended=
	wave 1 "$@"
	while read -r j k run wave; do
		[ "$wave" = 1 ] && [ "$run" = 100 ] && { scancel "${slurm_id[$j]}"; ended="$ended $j"; }
	done <<<"$stream"
	for j in $ended; do
		wait_done "${slurm_id[$j]}" || not_ok "job $j ends"
	done
	for _ in $(seq 100); do
		[ "$(idle_nodes)" -eq 10 ] && break
		sleep 0.2
	done
	expect_eq "${1:+$1: }10 nodes idle after the short jobs" 10 "$(idle_nodes)"
	wave 2 "$@"
}
two_waves
expect_eq "slurmctld: the plugin narrowed the pattern jobs (the outcome lines)" yes \
	"$(grep -qE 'starts on .*; topomatch: .* mapped [0-9]+ tasks onto' "$dir/log/slurmctld.log" && echo yes || echo no)"

# the comparison can tell policies apart: cons_tres without topology (best
# fit among runs of free nodes) would differ
"$tm" sim -t "$dir/cluster.yaml" --trace "$work/stream.swf" --policy slurm-linear \
	--comm-share 0 --no-plots --quiet --out "$work/linear" >/dev/null 2>&1
differ=0
while read -r j k run wave; do
	lin=$(awk -F, -v j="$j" '$2 == j { sub(/^[^"]*"/, ""); sub(/"$/, ""); print }' \
		"$work/linear-jobs.csv")
	[ "$lin" != "$(sim_nodes "$j")" ] && differ=$((differ + 1))
done <<<"$stream"
expect_eq "slurm-linear would have chosen other nodes for some jobs" yes \
	"$([ "$differ" -gt 0 ] && echo yes || echo "no ($differ jobs differ)")"

# (2) the same nodes described as a 4 x 4 torus (one node per router),
# loaded by a restart of slurmctld: the node choice off trees (Scotch on
# the free nodes' sub-architecture, and the link loads of the running
# pattern jobs compared as topomatch_cluster_select_loaded does) gives
# the simulator's nodes too.  Every job carries a pattern here (1-node
# jobs too), since cons_tres keeps placing jobs without one with
# topology/tree, which the torus does not describe; the simulator runs
# with its defaults (the contention model, weight 1, comm share 0.2, the
# plugin's ContentionShare).
scancel -u "$(id -un)"
for _ in $(seq 150); do
	[ "$(idle_nodes)" -eq 16 ] && break
	sleep 0.2
done
expect_eq "torus: all 16 nodes idle again" 16 "$(idle_nodes)"
cp "$dir/cluster.yaml" "$work/tree.yaml"
cat >"$dir/cluster.yaml" <<EOF
cluster: $(sed -n 's/^cluster: //p' "$work/tree.yaml")
nodes:
  - names: n[001-016]
    hardware: "$(sed -n 's/^ *hardware: "\(.*\)"/\1/p' "$work/tree.yaml")"
network:
  type: torus
  dims: [4, 4]
  wrap: true
  nodes_per_router: 1
EOF
"$tm" gen stencil2d --dims 4x4 --out "$work/p16.mtx"
# Slurm's own topology: none, as on a torus site (topology/tree would
# describe switches the network does not have; off trees the simulator's
# cons_tres is the best fit among runs of free nodes, as _eval_nodes)
sed -i 's|^TopologyPlugin=.*|TopologyPlugin=topology/none|' "$dir/slurm.conf"
"$top/contrib/testcluster/restart-controller.sh" --dir "$dir" >"$work/restart.log" 2>&1 ||
	not_ok "torus: slurmctld restarts: $(tail -3 "$work/restart.log")"
loaded=
for _ in $(seq 50); do
	loaded=$(grep -c "torus network" "$dir/log/slurmctld.log")
	[ "$loaded" -gt 0 ] && break
	sleep 0.2
done
expect_eq "torus: slurmctld loaded the torus description" yes \
	"$([ "${loaded:-0}" -gt 0 ] && echo yes || echo "no: $(grep -i topomatch "$dir/log/slurmctld.log" | tail -2)")"
if "$tm" sim -t "$dir/cluster.yaml" --trace "$work/stream.swf" --policy topomatch --no-plots \
	--quiet --out "$work/torus" --patterns \
	"file:$work/p16.mtx,file:$work/p32.mtx,file:$work/p48.mtx,file:$work/p64.mtx,file:$work/p80.mtx" \
	>"$work/torus.out" 2>"$work/torus.err"; then
	ok "torus: topomatch sim replays the stream"
else
	not_ok "torus: topomatch sim replays the stream: $(cat "$work/torus.err")"
	finish
fi
grep '^topomatch:' "$work/torus.out"
# the stream reaches the plugin's last check: a job keeps cons_tres' nodes
kept=$(sed -n 's/.*its own nodes scored lower for \([0-9]*\).*/\1/p' "$work/torus.out")
expect_eq "torus: cons_tres' own nodes scored lower for some job" yes \
	"$([ "${kept:-0}" -gt 0 ] && echo yes || echo "no (${kept:-none})")"
two_waves torus
differ=0
while read -r j k run wave; do
	[ "$(sim_nodes "$j" torus)" != "$(sim_nodes "$j")" ] && differ=$((differ + 1))
done <<<"$stream"
expect_eq "torus: the torus gives other nodes than the tree for some jobs" yes \
	"$([ "$differ" -gt 0 ] && echo yes || echo "no ($differ jobs differ)")"

scancel -u "$(id -un)"
cp "$work/tree.yaml" "$dir/cluster.yaml"
sed -i 's|^TopologyPlugin=.*|TopologyPlugin=topology/tree|' "$dir/slurm.conf"
finish

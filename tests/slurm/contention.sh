#!/bin/bash
# tests/slurm/contention.sh BUILD_DIR - contention-aware node choice on a
# real Slurm test cluster (contrib/testcluster: 16 nodes of 2 x 8 cores,
# leaf switches s1-s4 of 4 nodes under one switch), and the simulator on
# the same cluster and stream choosing the same nodes (issue 20, point 3
# and its validation).
#
# The stream, whole-node jobs (-N k --exclusive, 16 tasks a node, as the
# simulator converts processors to nodes), each started before the next is
# submitted so that both schedulers see the same free nodes:
#   wave 1: job 1, 6 nodes with an 8x12 stencil: n[001-006], s1 and half
#           of s2, its traffic across the uplinks of s1 and s2; jobs 2-6,
#           2 nodes each without a pattern (cons_tres' choice), fill the
#           rest; jobs 2, 3 and 5 end, leaving n[007-010] and n[013-014]
#           free: two nodes under each of s2, s3 and s4;
#   wave 2: job 7, 4 nodes whose pattern is two pairs of nodes (groups of
#           16, 2, 2).  Any two leaves give the same hop-bytes; the
#           hop-bytes-best set (topomatch_cluster_select's own) is
#           n[007-010], whose traffic crosses s2's uplink, which job 1
#           loads.  With the link loads (ContentionWeight=1, default) it
#           gets n[009-010,013-014]; with ContentionWeight=0 n[007-010].
# Asserted from squeue (Slurm's record of where the jobs run), each against
# `topomatch sim` on the cluster's own YAML with the same stream (an SWF
# trace), patterns and weight; also: the table comes back after a
# slurmctld restart (rebuilt from the running jobs), ContentionEntries
# bounds it (said once, the job keeps the hop-bytes choice, nothing
# aborts), a job's end takes its load out.
#
# Needs root, a build with the plugins, ports 22998-23016.  Environment:
# TM_CONTENTION_DIR (default /tmp/tm-contention-test), TM_CONTENTION_PORT
# (23001); keep=1 leaves the cluster running.  Prints "slurm: N passed,
# M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: contention.sh BUILD_DIR}" && pwd)
dir=${TM_CONTENTION_DIR:-/tmp/tm-contention-test}
port=${TM_CONTENTION_PORT:-23001}

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"

need_select_plugin contention.sh
work=$(mktemp -d)
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port" --restart --ctld-debug debug \
	--select-dir "$select_dir" --spank "$spank" --topomatch-conf --topomatch "$tm" \
	>"$work/start.log" 2>&1 || { cat "$work/start.log"; not_ok "test cluster starts"; finish; }
ok "test cluster starts with select/topomatch and the SPANK plugin"
export SLURM_CONF=$dir/slurm.conf
log=$dir/log/slurmctld.log
cd "$work" || exit 1
# the node choice compares its candidate node sets within the job budget
# (slurmctld's locks are held), which the cycle's bounds: 2 s and 5 s
# here, so that a loaded machine does not decide the outcome (job 7's
# choice took 41 ms of the default 50 once, 306 ms of 300 with
# JobBudgetMs=1000 under the default CycleBudgetMs, at nice 19 on a
# machine of load 15); the simulator maps without a budget
printf 'JobBudgetMs=2000\nCycleBudgetMs=5000\n' >>"$dir/topomatch.conf"
scontrol reconfigure

"$tm" gen stencil2d --dims 8x12 --out "$work/p96.mtx"
"$tm" gen hierarchical --arity 16,2,2 --out "$work/p64.mtx"

# id nodes run wave (the wave-1 jobs of run 100 end before wave 2)
stream="1 6 10000 1
2 2 100 1
3 2 100 1
4 2 10000 1
5 2 100 1
6 2 10000 1
7 4 10000 2"
printf '%s\n' "$stream" | awk '{
	submit = $4 == 1 ? $1 - 1 : 200
	printf "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 -1 1 1 -1 -1\n", $1, submit, $3, 16 * $2, 16 * $2, $3 + 50
}' >"$work/stream.swf"

# the simulator with contention weight $1 (the contention model and
# --comm-share at their defaults): its node list of each job in sim$1
run_sim() {
	"$tm" sim -t "$dir/cluster.yaml" --trace "$work/stream.swf" --policy topomatch \
		--contention-weight "$1" --no-plots --quiet --out "$work/sim$1" \
		--patterns "file:$work/p96.mtx,file:$work/p64.mtx" >"$work/sim$1.out" 2>"$work/sim$1.err"
}
sim_nodes() { # WEIGHT JOB: the CSV's last field, quoted (it holds commas)
	awk -F, -v j="$2" '$1 == "topomatch" && $2 == j { sub(/^[^"]*"/, ""); sub(/"$/, ""); print }' \
		"$work/sim$1-jobs.csv"
}
for w in 1 0; do
	if run_sim "$w"; then
		ok "topomatch sim replays the stream with --contention-weight $w"
	else
		not_ok "topomatch sim --contention-weight $w: $(cat "$work/sim$w.err")"
		finish
	fi
done
expect_contains "sim, weight 1: job 7's first choice met load and another node set won" \
	"the first choice met running jobs' link loads for 1 jobs, other node sets were mapped for 1, another node set won for 1" \
	"$(cat "$work/sim1.out")"
expect_eq "sim: the weight decides job 7's nodes" yes \
	"$([ "$(sim_nodes 1 7)" != "$(sim_nodes 0 7)" ] && echo yes || echo "no: $(sim_nodes 1 7)")"

real_nodes() { squeue -h -j "${slurm_id[$1]}" -o %N; }
idle_nodes() { sinfo -h -t idle -o %D | awk '{ s += $1 } END { print s + 0 }'; }
# wave2 WHAT WEIGHT: job 7 submitted, its nodes against the simulator's
# with that weight, then cancelled
wave2() {
	submit 7 4
	expect_eq "$1: job 7 gets the simulator's nodes (weight $2)" "$(sim_nodes "$2" 7)" \
		"$(real_nodes 7)"
	scancel "${slurm_id[7]}"
	wait_done "${slurm_id[7]}" || not_ok "$1: job 7 ends"
	for _ in $(seq 100); do
		[ "$(idle_nodes)" -eq 6 ] && break
		sleep 0.2
	done
}

while read -r j k run wave; do
	[ "$wave" = 1 ] && submit "$j" "$k"
done <<<"$stream"
while read -r j k run wave; do
	[ "$wave" = 1 ] &&
		expect_eq "wave 1, job $j: the simulator's nodes are Slurm's" "$(sim_nodes 1 "$j")" \
			"$(real_nodes "$j")"
done <<<"$stream"
expect_eq "job 1 spans s1 and s2" "n[001-006]" "$(real_nodes 1)"
expect_contains "job 1's traffic joins the link loads as it starts" \
	"JobId=${slurm_id[1]}: its traffic joins the link loads (the node choice's placement" \
	"$(cat "$log")"
while read -r j k run wave; do
	[ "$wave" = 1 ] && [ "$run" = 100 ] && scancel "${slurm_id[$j]}"
done <<<"$stream"
while read -r j k run wave; do
	[ "$wave" = 1 ] && [ "$run" = 100 ] && { wait_done "${slurm_id[$j]}" || not_ok "job $j ends"; }
done <<<"$stream"
for _ in $(seq 100); do
	[ "$(idle_nodes)" -eq 6 ] && break
	sleep 0.2
done
expect_eq "6 nodes idle after the short jobs" 6 "$(idle_nodes)"

# (1) the default weight: job 7 avoids s2's loaded uplink
wave2 "ContentionWeight=1 (default)" 1
expect_eq "ContentionWeight=1: job 7 off s2 (whose uplink job 1 loads)" "n[009-010,013-014]" \
	"$(sim_nodes 1 7)"
expect_contains "ContentionWeight=1: SystemComment says it left the loaded links" \
	"off loaded links" "$(scontrol show job "${slurm_id[7]}" | sed -n 's/^ *SystemComment=//p')"

# (2) slurmctld restarted: the table is rebuilt from the running jobs
"$top/contrib/testcluster/restart-controller.sh" --dir "$dir" >"$work/restart.log" 2>&1 ||
	not_ok "slurmctld restarts: $(tail -5 "$work/restart.log")"
rebuilt=$(grep "link loads rebuilt from the running jobs" "$log" | tail -1)
expect_contains "after the restart: job 1 back in the link loads" "rebuilt from the running jobs: 1 pattern jobs" \
	"$rebuilt"
expect_eq "the rebuild stays within CycleBudgetMs (5000 ms): $rebuilt" yes \
	"$(echo "$rebuilt" | sed -n 's/.* in \([0-9]*\) ms .*/\1/p' | awk '{ print ($1 != "" && $1 <= 5000) ? "yes" : "no" }')"
wave2 "after a slurmctld restart" 1

# (3) ContentionWeight=0: the hop-bytes-best set, through s2's uplink
echo ContentionWeight=0 >>"$dir/topomatch.conf"
scontrol reconfigure
wave2 "ContentionWeight=0" 0
expect_eq "ContentionWeight=0: job 7 on n[007-010]" "n[007-010]" "$(sim_nodes 0 7)"

# (4) ContentionEntries=1: job 1 has no room in the table, said once; job 7
# gets the hop-bytes choice and every job runs
sed -i '/^ContentionWeight=/d' "$dir/topomatch.conf"
echo ContentionEntries=1 >>"$dir/topomatch.conf"
scontrol reconfigure
submit 7 4
expect_eq "ContentionEntries=1: job 7 on the hop-bytes choice (the table holds nothing)" \
	"$(sim_nodes 0 7)" "$(real_nodes 7)"
expect_eq "ContentionEntries=1: said once, at info" 1 \
	"$(grep -v 'debug' "$log" | grep -c "no room for JobId=${slurm_id[1]}'s within ContentionEntries=1")"
scancel "${slurm_id[7]}"
wait_done "${slurm_id[7]}" || not_ok "job 7 ends"
sed -i '/^ContentionEntries=/d' "$dir/topomatch.conf"
scontrol reconfigure

# (5) job 1 ends: its traffic leaves the table
scancel "${slurm_id[1]}"
wait_done "${slurm_id[1]}" || not_ok "job 1 ends"
expect_contains "job 1's end takes its traffic out of the link loads" \
	"JobId=${slurm_id[1]}: its traffic leaves the link loads (0 jobs)" "$(cat "$log")"
expect_eq "slurmctld is alive" yes "$(scontrol ping >/dev/null 2>&1 && echo yes || echo no)"

scancel -u "$(id -un)"
finish

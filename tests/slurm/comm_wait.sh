#!/bin/bash
# tests/slurm/comm_wait.sh BUILD_DIR - sbatch --comm-wait on a real Slurm
# test cluster (contrib/testcluster: 16 nodes of 2 x 8 cores, leaf
# switches s1-s4 of 4 nodes under one switch; backfill every 2 s), issue
# 20 point 4: a job whose best placement now is worse than CommWaitRatio
# x its placement on an empty cluster waits, up to its time, for a better
# one, and backfill is not blocked by it.
#
# Filler jobs of 3 nodes (no pattern) hold three nodes of each leaf, so
# the free nodes are one per leaf; job W, 64 tasks talking all to all on
# 4 nodes (x1.29 the hop-bytes of one leaf, topomatch map on this YAML):
#  (a) W --comm-wait=10:00 stays pending, SystemComment says why and by
#      how much (x1.29 > CommWaitRatio=1.2);
#  (b) job B, behind W (lower priority), 2 nodes, no pattern: it starts
#      (W holds no nodes back, else B would wait for W's end);
#  (c) B and the filler of s3 end: W still waits on one node per leaf,
#      then starts on that leaf, n[009-012], once its nodes are back, and
#      says it waited;
#  (a-c) `topomatch sim --comm-wait` on the same stream (an SWF trace) and
#      YAML: the same nodes for every job, W put off until the leaf is
#      free;
#  (d) W2 --comm-wait=0:15 on one node per leaf: pending at 5 s, running
#      once its 15 s are up, on those nodes;
#  (e) CommWaitMax=0 (topomatch.conf): the same job starts at once;
#  (f) a bad --comm-wait is refused by sbatch; --comm-wait without
#      --comm-pattern is a warning.
# Needs root, a build with the plugins, ports 24998-25016.  Environment:
# TM_COMM_WAIT_DIR (default /tmp/tm-comm-wait-test), TM_COMM_WAIT_PORT
# (25001); keep=1 leaves the cluster running.  Prints "slurm: N passed,
# M failed".
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: comm_wait.sh BUILD_DIR}" && pwd)
dir=${TM_COMM_WAIT_DIR:-/tmp/tm-comm-wait-test}
port=${TM_COMM_WAIT_PORT:-25001}

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"

need_select_plugin comm_wait.sh
work=$(mktemp -d)
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port" --restart --ctld-debug debug \
	--select-dir "$select_dir" --spank "$spank" --topomatch-conf --topomatch "$tm" \
	--sched-params "bf_interval=2" >"$work/start.log" 2>&1 ||
	{ cat "$work/start.log"; not_ok "test cluster starts"; finish; }
ok "test cluster starts with select/topomatch, the SPANK plugin and bf_interval=2"
export SLURM_CONF=$dir/slurm.conf
cd "$work" || exit 1
# the budgets of a loaded machine (contention.sh): the outcome must not
# depend on the time a 64-task mapping takes
printf 'JobBudgetMs=2000\nCycleBudgetMs=5000\n' >>"$dir/topomatch.conf"
scontrol reconfigure

"$tm" gen alltoall --tasks 64 --out "$work/a64.mtx"
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }
state() { squeue -h -j "$1" -o %T; }
nodes_of() { squeue -h -j "$1" -o %N; }
# wait_comment JOBID TEXT SECONDS: the job's SystemComment once it holds TEXT
comment_has() { case $(comment "$1") in *"$2"*) ;; *) return 1 ;; esac; }
wait_comment() {
	wait_for "$3" comment_has "$1" "$2"
	comment "$1"
}
fill() { # NODES: a job without pattern on exactly those nodes; its id
	sbatch --parsable -w "$1" -N "$(scontrol show hostnames "$1" | wc -l)" --exclusive -t 600 \
		-o /dev/null --wrap "sleep 3600"
}
wjob() { # TIME: the all-to-all job with --comm-wait=TIME; its id
	sbatch --parsable -N 4 -n 64 --exclusive -t 600 --comm-pattern="$work/a64.mtx" \
		--comm-wait="$1" -o /dev/null --wrap "sleep 3600"
}

# the stream: fillers 1-4 (3 nodes), W (5, at 10 s), B (6, 2 nodes, at
# 20 s); B and filler 3 end at 30 s
printf '%s\n' "1 0 10000 3" "2 0 10000 3" "3 0 30 3" "4 0 10000 3" "5 10 10000 4" \
	"6 20 10 2" | awk '{
	printf "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 -1 1 1 -1 -1\n", $1, $2, $3, 16 * $4, 16 * $4, $3 + 50
}' >"$work/stream.swf"
if "$tm" sim -t "$dir/cluster.yaml" --trace "$work/stream.swf" --policy topomatch \
	--comm-wait 600 --no-plots --quiet --out "$work/sim" --patterns "file:$work/a64.mtx" \
	>"$work/sim.out" 2>"$work/sim.err"; then
	ok "topomatch sim --comm-wait 600 replays the stream"
else
	not_ok "topomatch sim --comm-wait 600: $(cat "$work/sim.err")"
fi
sim_field() { # JOB FIELD (1-based CSV column; 0: the node list, quoted)
	awk -F, -v j="$1" -v f="$2" '$1 == "topomatch" && $2 == j {
		if (f == 0) { sub(/^[^"]*"/, ""); sub(/"$/, ""); print } else print $f }' \
		"$work/sim-jobs.csv"
}
col() { head -1 "$work/sim-jobs.csv" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
expect_contains "sim: one job waited, not until its time was up" \
	"1 jobs waited for a placement within x1.2 of their hop-bytes on the empty machine, 0 of them" \
	"$(cat "$work/sim.out")"
expect_eq "sim: W starts at 30 s, when the leaf is free" 30 "$(sim_field 5 "$(col start_s)")"
expect_eq "sim: B starts at 20 s, while W waits" 20 "$(sim_field 6 "$(col start_s)")"
expect_eq "sim: W on leaf s3" "n[009-012]" "$(sim_field 5 0)"

fillers=()
for f in 1 2 3 4; do
	id=$(sbatch --parsable -N 3 -n 48 --exclusive -t 600 -o /dev/null --wrap "sleep 3600")
	fillers+=("$id")
	expect_eq "filler $f runs" RUNNING "$(wait_running "$id" 20)"
	expect_eq "filler $f on the simulator's nodes" "$(sim_field "$f" 0)" "$(nodes_of "$id")"
done
expect_eq "the free nodes: one per leaf" "n[004,008,012,016]" \
	"$(sinfo -h -t idle -o %N)"

# (a) W waits, and says why
w=$(wjob 10:00)
c=$(wait_comment "$w" "waits up to" 20)
expect_contains "(a) W's SystemComment: it waits for a better placement" \
	"for a better placement (--comm-wait)" "$c"
expect_match "(a) W's SystemComment: x1.29 an empty cluster's hop-bytes, over 1.2" \
	"on the free nodes, x1\.29 the [0-9.e+]* of an empty cluster \(CommWaitRatio=1\.2\)" "$c"
sleep 5
expect_eq "(a) W still pending after 5 s (backfill ran twice)" PENDING "$(state "$w")"

# (b) B, behind W: it starts on two of the nodes W left (10 minutes:
# over before the fillers' 600, the earliest W could have a leaf, where
# backfill keeps nodes for it)
b=$(sbatch --parsable -N 2 -n 32 --exclusive -t 10 -o /dev/null --wrap "sleep 3600")
expect_eq "(b) B (lower priority) runs while W waits" RUNNING "$(wait_running "$b" 20)"
expect_eq "(b) B on the simulator's nodes" "$(sim_field 6 0)" "$(nodes_of "$b")"
expect_eq "(b) W still pending" PENDING "$(state "$w")"

# (c) B and the filler of s3 end; s3's three nodes come back together
# (drained while the filler ends, then resumed at once), as in the
# simulator, where both end at the same time: W starts on that leaf
scontrol update nodename="n[009-011]" state=drain reason=comm_wait.sh
scancel "${fillers[2]}" "$b"
wait_done "${fillers[2]}" || not_ok "(c) the filler of s3 ends"
wait_done "$b" || not_ok "(c) B ends"
drained_is() { [ "$(sinfo -h -n "$2" -t drained -o %D | awk '{ s += $1 } END { print s + 0 }')" = "$1" ]; }
wait_for 20 drained_is 3 "n[009-011]"
sleep 3 # a backfill cycle
expect_eq "(c) W still waits with one free node per leaf" PENDING "$(state "$w")"
scontrol update nodename="n[009-011]" state=resume
expect_eq "(c) W runs once the leaf is free" RUNNING "$(wait_running "$w" 30)"
expect_eq "(c) W on the simulator's nodes" "$(sim_field 5 0)" "$(nodes_of "$w")"
expect_contains "(c) W's SystemComment: mapped after waiting" \
	"after waiting for a better placement (--comm-wait)" "$(comment "$w")"

# (d) a wait of 15 s on one node per leaf: it runs when its time is up
scancel "$w"
wait_done "$w" || not_ok "(d) W ends"
fillers[2]=$(fill "n[009-011]") # where the filler was
expect_eq "(d) the filler of s3 runs again" RUNNING "$(wait_running "${fillers[2]}" 20)"
t0=$(date +%s)
w2=$(wjob 0:15)
sleep 5
expect_eq "(d) W2 (--comm-wait=0:15) pending at 5 s" PENDING "$(state "$w2")"
expect_eq "(d) W2 runs once its 15 s are up" RUNNING "$(wait_running "$w2" 40)"
waited=$(($(date +%s) - t0))
expect_eq "(d) W2 waited at least 15 s (${waited} s)" yes "$([ "$waited" -ge 15 ] && echo yes || echo no)"
expect_eq "(d) W2 on one node per leaf" "n[004,008,012,016]" "$(nodes_of "$w2")"
scancel "$w2"
wait_done "$w2" || not_ok "(d) W2 ends"

# (e) the admin's maximum: CommWaitMax=0 lets no job wait
echo CommWaitMax=0 >>"$dir/topomatch.conf"
scontrol reconfigure
w3=$(wjob 10:00)
expect_eq "(e) CommWaitMax=0: the job runs at once" RUNNING "$(wait_running "$w3" 20)"
expect_eq "(e) its SystemComment says nothing of waiting" no \
	"$(comment "$w3" | grep -q "wait" && echo yes || echo no)"
scancel "$w3"

# (f) bad values
out=$(sbatch --parsable -N 4 -n 64 --comm-pattern="$work/a64.mtx" --comm-wait=soon \
	--wrap true 2>&1)
rc=$?
expect_eq "(f) sbatch --comm-wait=soon fails" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
expect_contains "(f) and says why" "--comm-wait: 'soon' is not a time" "$out"
out=$(sbatch --parsable -n 1 --comm-wait=5 -o /dev/null --wrap true 2>&1)
expect_contains "(f) --comm-wait without --comm-pattern: a warning" \
	"--comm-wait has no effect without --comm-pattern" "$out"
expect_eq "slurmctld is alive" yes "$(scontrol ping >/dev/null 2>&1 && echo yes || echo no)"

scancel -u "$(id -un)"
finish

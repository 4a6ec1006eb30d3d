#!/bin/bash
# tests/slurm/reorder.sh BUILD_DIR - the SPANK plugin's layout=reorder on a
# real Slurm test cluster (contrib/testcluster): 16 nodes of 2 x 8 cores,
# select/topomatch, the SPANK plugin with "bind=record layout=reorder".
# srun sets no SLURM_HOSTFILE: Slurm starts the tasks with its block
# distribution and every task gets the pattern rank the mapping gives its
# slot (TOPOMATCH_RANK).
#  (a) sbatch -n 64 --comm-pattern: the job's srun runs in Slurm's block
#      layout (SLURM_PROCID in node order, the counts tm_block_counts
#      predicts), TOPOMATCH_RANK is a permutation of 0..63, the j-th task of
#      a node has the j-th rank `topomatch map -b <first k PUs of each node>`
#      puts there, with that rank's CPU; its hop-bytes beat the identity's
#      on the same slots; twice the same; no note, no hostfile;
#  (b) srun -n 60 with a 60-rank pattern in the same job: Slurm's round-robin
#      counts (15 per node, not 16,16,16,12) and the mapping on them;
#  (c) steps whose layout cannot be predicted keep it without TOPOMATCH_RANK,
#      with one note: SLURM_DISTRIBUTION=cyclic, -N 2, -n 2 (pattern size);
#      a forged SLURM_JOB_CPUS_PER_NODE makes srun predict the wrong counts:
#      slurmstepd notices, notes it in the slurmd logs and sets no rank;
#      a step started beside a running one (Slurm lays it out on the CPUs
#      left);
#  (d) srun -n 64 --comm-pattern inside salloc (the option on srun's
#      command line);
#  (e) real binding: 2 nodes of this machine's shape, layout=reorder without
#      bind=record: the kernel runs each task on exactly TOPOMATCH_CPUS, the
#      CPU of its pattern rank.
# Prints "slurm: N passed, M failed"; stops the cluster at the end.
# Environment: TM_REORDER_DIR (default /tmp/tm-reorder-test),
# TM_REORDER_PORT (31001); keep=1 leaves the cluster running.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: reorder.sh BUILD_DIR}" && pwd)
dir=${TM_REORDER_DIR:-/tmp/tm-reorder-test}
port=${TM_REORDER_PORT:-31001}
cores=16 # per node: 2 sockets x 8 cores

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"

work=$(mktemp -d)
sel=()
[ -f "$select_dir/select_topomatch.so" ] && sel=(--select-dir "$select_dir")
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port" --restart "${sel[@]}" \
	--spank "$spank" --bind-record --spank-args "layout=reorder" --topomatch-conf \
	--topomatch "$tm" >"$work/start.log" 2>&1 || {
	cat "$work/start.log"
	not_ok "test cluster starts"
	finish
}
ok "test cluster starts with the SPANK plugin (bind=record layout=reorder)"
expect_contains "plugstack.conf has both arguments" "spank_topomatch.so bind=record layout=reorder" \
	"$(cat "$dir/plugstack.conf")"
export SLURM_CONF=$dir/slurm.conf
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
cd "$work" || exit 1

# the current cluster's nodes in cluster order (PUs per node: $cores)
mapfile -t all_nodes < <(scontrol show hostnames "n[001-016]")
node_index() { # NAME: its position in cluster order
	local i
	for i in "${!all_nodes[@]}"; do [ "${all_nodes[$i]}" = "$1" ] && echo "$i"; done
}

# Slurm 22.05's block distribution without CR_Pack_Nodes, written from
# _task_layout_block (src/common/slurm_step_layout.c), independently of
# tm_block_counts: "NODE COUNT" lines.  CPN as SLURM_JOB_CPUS_PER_NODE.
block_counts() { # NODELIST CPN NTASKS
	local -a step_nodes
	mapfile -t step_nodes < <(scontrol show hostnames "$1")
	echo "$2" | awk -v n="$3" -v names="${step_nodes[*]}" '
		BEGIN { RS = ","; k = 0 }
		{ gsub("\n", ""); c = $0; r = 1
		  if (match($0, /\(x[0-9]+\)/)) { r = substr($0, RSTART + 2, RLENGTH - 3); c = substr($0, 1, RSTART - 1) }
		  for (i = 0; i < r; i++) cpus[k++] = c + 0 }
		END { split(names, nm, " "); t = 0; over = 0
		  for (j = 0; t < n; j++) { room = 0
		    for (i = 0; i < k && t < n; i++)
		      if (j < cpus[i] || over) { cnt[i]++; t++; if (j + 1 < cpus[i]) room = 1 }
		    if (!room) over = 1 }
		  for (i = 0; i < k; i++) print nm[i + 1], cnt[i] + 0 }'
}

# The mapping the plugin must have made: the pattern mapped by topomatch map
# onto the first COUNT PUs of each node; "rank node cpu" lines.
expected() { # COUNTS-FILE PATTERN [CPUS-PER-TASK]
	local name count i base cpt=${3:-1}
	: >allowed.txt
	while read -r name count; do
		base=$(($(node_index "$name") * cores))
		for ((i = 0; i < count * cpt; i++)); do echo $((base + i)) >>allowed.txt; done
	done <"$1"
	"$tm" map -t "$dir/cluster.yaml" -c "$2" -b allowed.txt --cpus-per-task "$cpt" --out - |
		awk -v names="${all_nodes[*]}" -v c="$cores" 'BEGIN { split(names, n, " ") }
			{ printf "%d %s %d\n", NR - 1, n[int($1 / c) + 1], $1 % c }'
}

# Slurm's block layout of a step's output ("node procid localid ..."):
# "node count" in procid order, and whether localid = procid - first procid.
layout_of() { # FILE
	sort -k2,2n "$1" | awk '
		$1 != last { if (last != "") print last, cnt; last = $1; cnt = 0; first = $2 }
		{ cnt++; if ($3 != $2 - first) bad = 1 }
		END { print last, cnt; if (bad) print "localid does not follow procid" }'
}

# hop-bytes of "rank node cpu" lines read as a mapping (PU of each rank)
hop_bytes() { placement_hb "$dir" "$2" "$cores" "$1"; } # RANK-NODE-CPU-FILE PATTERN

"$tm" gen hierarchical --arity 16,4 --shuffle 5 --out "$work/pat.mat"
"$tm" gen hierarchical --arity 15,4 --shuffle 7 --out "$work/pat60.mat"
"$tm" gen hierarchical --arity 16,2 --shuffle 3 --out "$work/pat32.mat"
cat >"$work/job.sh" <<EOF
#!/bin/sh
show='echo \$SLURMD_NODENAME \$SLURM_PROCID \$SLURM_LOCALID \$TOPOMATCH_RANK \$TOPOMATCH_CPUS \$TOPOMATCH_BIND \$TOPOMATCH_NODE'
echo "CPN=\$SLURM_JOB_CPUS_PER_NODE"
srun sh -c "\$show" >step0.out 2>step0.err
srun sh -c "\$show" >step1.out 2>step1.err
srun -n 60 --comm-pattern=$work/pat60.mat sh -c "\$show" >step2.out 2>step2.err
SLURM_DISTRIBUTION=cyclic srun sh -c "\$show" >step3.out 2>step3.err
srun -N 2 -n 32 --comm-pattern=$work/pat32.mat sh -c "\$show" >step4.out 2>step4.err
srun -n 2 sh -c "\$show" >step5.out 2>step5.err
SLURM_JOB_CPUS_PER_NODE=16,16,16,12 srun -n 60 --comm-pattern=$work/pat60.mat sh -c "\$show" >step6.out 2>step6.err
srun -n 32 -c 2 --comm-pattern=$work/pat32.mat sh -c "\$show" >step7.out 2>step7.err
# step 8 holds a CPU (step 9 with the pattern starts beside it, then lets it go)
srun --exact -n 1 sh -c 'touch held; for i in \$(seq 600); do [ -e done9 ] && exit; sleep 0.1; done' &
for i in \$(seq 600); do [ -e held ] && break; sleep 0.1; done
srun --exact -n 60 --comm-pattern=$work/pat60.mat sh -c "\$show" >step9.out 2>step9.err
touch done9
wait
EOF
id=$(sbatch --parsable -n 64 --comm-pattern="$work/pat.mat" -o job.out -e job.err job.sh)
wait_done "$id" || not_ok "(a) the job ends"
nodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
cpn=$(sed -n 's/^CPN=//p' job.out)
echo "# job $id on $nodes, CPUs per node $cpn"

# (a) the job's srun: 64 tasks
block_counts "$nodes" "$cpn" 64 >counts64.txt
expect_eq "(a) Slurm's block layout (SLURM_PROCID in node order)" "$(cat counts64.txt)" \
	"$(layout_of step0.out)"
expect_eq "(a) TOPOMATCH_RANK is a permutation of 0..63" "$(seq 0 63)" \
	"$(awk '{ print $4 }' step0.out | sort -n)"
expected counts64.txt pat.mat >expected64.txt
expect_eq "(a) 64 expected ranks" 64 "$(wc -l <expected64.txt | tr -d ' ')"
got=$(awk '{ print $4, $1, $5 }' step0.out | sort -n)
expect_eq "(a) every rank on the node and CPU of topomatch map -b <first k PUs per node>" \
	"$(cat expected64.txt)" "$got"
# the j-th task of a node is the j-th rank of that node (rank order)
expect_eq "(a) the j-th task of each node has its j-th rank" "" \
	"$(sort -k2,2n step0.out | awk '$1 in prev && $4 <= prev[$1] { print "node " $1 ": rank " $4 " after " prev[$1] } { prev[$1] = $4 }')"
expect_eq "(a) TOPOMATCH_NODE is the task's node, TOPOMATCH_BIND=recorded" 64 \
	"$(awk '$7 == $1 && $6 == "recorded"' step0.out | wc -l | tr -d ' ')"
expect_eq "(a) ranks reordered: TOPOMATCH_RANK is not SLURM_PROCID everywhere" yes \
	"$(awk '$4 != $2 { d = 1 } END { print d ? "yes" : "no" }' step0.out)"
awk '{ print $2, $1, $3 }' step0.out >identity.txt # rank = procid on its slot
awk '{ print $4, $1, $5 }' step0.out >reordered.txt
hb_id=$(hop_bytes identity.txt pat.mat)
hb_re=$(hop_bytes reordered.txt pat.mat)
expect_eq "(a) hop-bytes: reordered $hb_re < identity $hb_id on the same slots" yes \
	"$(awk -v a="$hb_re" -v b="$hb_id" 'BEGIN { print (a + 0 > 0 && a + 0 < b + 0) ? "yes" : "no" }')"
expect_eq "(a) a second step: the same ranks on the same slots" \
	"$(sort -k2,2n step0.out)" "$(sort -k2,2n step1.out)"
expect_eq "(a) no note for the matching steps" "" "$(grep -h 'topomatch' step0.err step1.err)"
expect_eq "(a) no hostfile written" "" "$(ls "$TMPDIR")"

# (b) 60 tasks on 64 CPUs: Slurm's rounds give 15 per node
block_counts "$nodes" "$cpn" 60 >counts60.txt
expect_eq "(b) -n 60: 15 tasks on each of the 4 nodes" "15 15 15 15" \
	"$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }' counts60.txt)"
expect_eq "(b) -n 60: Slurm's block layout" "$(cat counts60.txt)" "$(layout_of step2.out)"
expect_eq "(b) -n 60: every rank on the node and CPU of topomatch map" \
	"$(expected counts60.txt pat60.mat)" "$(awk '{ print $4, $1, $5 }' step2.out | sort -n)"
expect_eq "(b) -n 60: no note" "" "$(grep -h 'topomatch' step2.err)"

# tasks of 2 CPUs: Slurm counts room in tasks (CPUs / 2), each rank gets
# 2 CPUs (first CPU c: c and c+1)
block_counts "$nodes" "$(echo "$cpn" | sed 's/^16/8/')" 32 >counts32.txt
expect_eq "-n 32 -c 2: 8 tasks on each of the 4 nodes" "8 8 8 8" \
	"$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }' counts32.txt)"
expect_eq "-n 32 -c 2: Slurm's block layout" "$(cat counts32.txt)" "$(layout_of step7.out)"
expect_eq "-n 32 -c 2: every rank on its node and 2 CPUs" \
	"$(expected counts32.txt pat32.mat 2 | awk '{ print $1, $2, $3 "-" $3 + 1 }')" \
	"$(awk '{ print $4, $1, $5 }' step7.out | sort -n)"
expect_eq "-n 32 -c 2: no note" "" "$(grep -h 'topomatch' step7.err)"

# (c) unpredictable layouts: the step runs, no rank, one note
no_rank() { awk 'NF > 3' "$1" | wc -l | tr -d ' '; } # TOPOMATCH_* unset: 3 fields
note="ranks are not reordered (no TOPOMATCH_RANK)"
expect_eq "(c) SLURM_DISTRIBUTION=cyclic: 64 tasks, none with a rank" "64 0" \
	"$(wc -l <step3.out | tr -d ' ') $(no_rank step3.out)"
expect_eq "(c) SLURM_DISTRIBUTION=cyclic: one note" \
	"srun: topomatch: SLURM_DISTRIBUTION=cyclic chooses the layout; $note" \
	"$(grep 'topomatch' step3.err)"
expect_eq "(c) -N 2: 32 tasks, none with a rank" "32 0" \
	"$(wc -l <step4.out | tr -d ' ') $(no_rank step4.out)"
expect_eq "(c) -N 2: one note" \
	"srun: topomatch: -N other than the allocation's 4 nodes; $note" "$(grep 'topomatch' step4.err)"
expect_eq "(c) -n 2: one note" \
	"srun: topomatch: the pattern has 64 tasks, the step 2; $note" "$(grep 'topomatch' step5.err)"
expect_eq "(c) forged CPUs per node: 60 tasks, none with a rank" "60 0" \
	"$(wc -l <step6.out | tr -d ' ') $(no_rank step6.out)"
expect_eq "(c) forged CPUs per node: srun says nothing" "" "$(grep 'topomatch' step6.err)"
expect_eq "(c) a step beside a running one: 60 tasks, none with a rank" "60 0" \
	"$(wc -l <step9.out | tr -d ' ') $(no_rank step9.out)"
expect_eq "(c) a step beside a running one: one note" \
	"srun: topomatch: the job's running steps hold CPUs, so Slurm's layout of this step cannot be predicted (layout=reorder); $note" \
	"$(grep 'topomatch' step9.err)"
stepd=$(cat "$dir"/log/slurmd-n*.log |
	grep -c "\[$id\.6\] topomatch: Slurm started 15 tasks from task .* not the layout srun predicted: ranks are not reordered")
expect_eq "(c) forged CPUs per node: slurmstepd notes it once per node" 4 "$stepd"

# (d) srun --comm-pattern inside salloc (no pattern at allocation time)
# shellcheck disable=SC2016 # expanded by the shells of the allocation
out=$(salloc -n 64 sh -c 'echo "NODES=$SLURM_JOB_NODELIST CPN=$SLURM_JOB_CPUS_PER_NODE"
	srun -n 64 --comm-pattern='"$work"'/pat.mat sh -c '\''echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID $TOPOMATCH_RANK $TOPOMATCH_CPUS'\''' 2>salloc.err)
snodes=$(printf '%s\n' "$out" | sed -n 's/^NODES=\([^ ]*\) .*/\1/p')
scpn=$(printf '%s\n' "$out" | sed -n 's/^NODES=.* CPN=//p')
printf '%s\n' "$out" | grep -v '^NODES=' >salloc.out
block_counts "$snodes" "$scpn" 64 >countsd.txt
expect_eq "(d) salloc + srun --comm-pattern: block layout on $snodes" "$(cat countsd.txt)" \
	"$(layout_of salloc.out)"
expect_eq "(d) salloc + srun --comm-pattern: the mapping" "$(expected countsd.txt pat.mat)" \
	"$(awk '{ print $4, $1, $5 }' salloc.out | sort -n)"

expect_contains "slurmctld still answers" "is UP" "$(scontrol ping)"
"$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1

# (e) real binding: two nodes of this machine's shape, no bind=record
rdir=${dir}-real
sockets=$(lscpu -p=SOCKET | grep -v '^#' | sort -u | wc -l)
ncores=$(lscpu -p=SOCKET,CORE | grep -v '^#' | sort -u | wc -l)
cores=$(lscpu -p=CPU | grep -vc '^#') # PUs per node from here on
"$top/contrib/testcluster/start.sh" --dir "$rdir" --port-base $((port + 100)) --restart \
	"${sel[@]}" --spank "$spank" --spank-args "layout=reorder" --topomatch-conf --topomatch "$tm" \
	--nodes 2 --leaf-size 2 --sockets "$sockets" --cores $((ncores / sockets)) \
	--threads $((cores / ncores)) >"$work/start-real.log" 2>&1 || {
	cat "$work/start-real.log"
	not_ok "(e) a cluster of this machine's shape starts"
	finish
}
ok "(e) a cluster of 2 nodes of this machine's shape starts (layout=reorder, binding applied)"
export SLURM_CONF=$rdir/slurm.conf
dir=$rdir
all_nodes=(n001 n002)
"$tm" gen hierarchical --arity "$cores",2 --shuffle 3 --out "$work/real.mat"
cat >"$work/real.sh" <<'EOF'
#!/bin/sh
echo "CPN=$SLURM_JOB_CPUS_PER_NODE"
srun sh -c 'echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID $TOPOMATCH_RANK $TOPOMATCH_CPUS \
	$TOPOMATCH_BIND $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)' >real.out
EOF
id=$(sbatch --parsable -n $((2 * cores)) --comm-pattern="$work/real.mat" -o real.job -e real.err \
	"$work/real.sh")
wait_done "$id" || not_ok "(e) the job ends"
rnodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
block_counts "$rnodes" "$(sed -n 's/^CPN=//p' real.job)" $((2 * cores)) >countse.txt
expect_eq "(e) Slurm's block layout on $rnodes" "$(cat countse.txt)" "$(layout_of real.out)"
expect_eq "(e) every rank on the node and CPU of topomatch map" \
	"$(expected countse.txt real.mat)" "$(awk '{ print $4, $1, $5 }' real.out | sort -n)"
expect_eq "(e) TOPOMATCH_BIND=applied in every task" $((2 * cores)) \
	"$(awk '$6 == "applied"' real.out | wc -l | tr -d ' ')"
expect_eq "(e) the kernel runs each task on exactly TOPOMATCH_CPUS" $((2 * cores)) \
	"$(awk '$5 == $7' real.out | wc -l | tr -d ' ')"
finish

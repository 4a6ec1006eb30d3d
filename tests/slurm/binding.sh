#!/bin/bash
# tests/slurm/binding.sh BUILD_DIR - the ranks' layout inside an allocation
# (SPANK plugin, srun and slurmstepd) on a real Slurm test cluster
# (contrib/testcluster): 16 nodes of 2 x 8 cores, the SPANK plugin with
# bind=record (the virtual nodes claim more cores than this machine has).
#  (a) sbatch -n 64 --comm-pattern: the job's srun (the option reaches it in
#      the job's environment) starts every rank on the node and core that
#      `topomatch map -w <job nodes>` gives, and the task sees
#      TOPOMATCH_RANK, TOPOMATCH_NODE, TOPOMATCH_CPUS, TOPOMATCH_BIND=recorded;
#      twice the same (no dependence on time); the hostfile is removed; a
#      pattern reduced to fit PatternKiB, or stored in groups of ranks, is
#      laid out from the whole file;
#  (b) other steps of the job (-n 2; -n 16 -c 2): default layout and a one-line
#      note; a step of 32 tasks of 2 CPUs with its own pattern is mapped;
#  (c) srun -n 64 --comm-pattern inside salloc (the option on srun's command line);
#  20 arbitrary steps, then a job on every CPU still runs;
#  a node shared with another job: the ranks get the job's own cores;
#  (d) real binding on 2 nodes of this machine's shape (no bind=record) under
#      task/affinity + task/cgroup: the kernel's CPU list of each task is
#      TOPOMATCH_CPUS, inside its step's cpuset; SystemComment's hop-bytes
#      are those of the running placement; an explicit --cpu-bind wins (one
#      line on stderr; --comm-strict refuses); concurrent --exact steps use
#      the free node; a step granted other cores moves its ranks there; an
#      array job and a heterogeneous job's component are laid out.
# Prints "slurm: N passed, M failed".
# Environment: TM_BINDING_DIR (default /tmp/tm-binding-test), TM_BINDING_PORT (29001).
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: binding.sh BUILD_DIR}" && pwd)
dir=${TM_BINDING_DIR:-/tmp/tm-binding-test}
port=${TM_BINDING_PORT:-29001}

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"

work=$(mktemp -d)
sel=()
[ -f "$select_dir/select_topomatch.so" ] && sel=(--select-dir "$select_dir")
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port" --restart "${sel[@]}" \
	--spank "$spank" --bind-record --topomatch-conf --topomatch "$tm" --ctld-debug debug \
	>"$work/start.log" 2>&1 || { cat "$work/start.log"; not_ok "test cluster starts"; finish; }
ok "test cluster starts with the SPANK plugin (bind=record)"
export SLURM_CONF=$dir/slurm.conf
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
cd "$work" || exit 1

# expected "rank node cpu" lines from topomatch map on the job's nodes:
# cluster PU p of these 16-core nodes is core p % 16 (OS CPU) of the
# (p / 16)-th node in cluster order (n001, n002, ...)
expected() { # NODELIST [PATTERN [PUS-PER-NODE [CLUSTER-DIR [CPUS-PER-TASK]]]]
	local per=${3:-16} cdir=${4:-$dir}
	local -a all
	mapfile -t all < <(SLURM_CONF=$cdir/slurm.conf sinfo -h -N -o %N | sort -u)
	"$tm" map -t "$cdir/cluster.yaml" -c "${2:-$work/pat.mat}" -w "$1" \
		--cpus-per-task "${5:-1}" --out - |
		awk -v names="${all[*]}" -v per="$per" 'BEGIN { split(names, n, " ") }
			{ printf "%d %s %d\n", NR - 1, n[int($1 / per) + 1], $1 % per }'
}

"$tm" gen hierarchical --arity 16,4 --shuffle 5 --out "$work/pat.mat"
cat >"$work/job.sh" <<'EOF'
#!/bin/sh
show='echo $TOPOMATCH_RANK $SLURMD_NODENAME $TOPOMATCH_CPUS $TOPOMATCH_BIND $SLURM_PROCID'
srun sh -c "$show" >step0.out 2>step0.err
srun sh -c "$show" >step1.out 2>step1.err
srun -n 2 sh -c 'echo "r=$TOPOMATCH_RANK p=$SLURM_PROCID"' >step2.out 2>step2.err
srun -n 16 -c 2 sh -c 'echo "r=$TOPOMATCH_RANK p=$SLURM_PROCID"' >step3.out 2>step3.err
srun -n 32 -c 2 --comm-pattern="$PAT32" sh -c "$show" >step4.out 2>step4.err
for i in $(seq 20); do
	srun sh -c "echo $i \$TOPOMATCH_RANK \$SLURMD_NODENAME \$TOPOMATCH_CPUS" >>steps20.out 2>>steps20.err
done
EOF
"$tm" gen hierarchical --arity 8,4 --shuffle 9 --out "$work/pat32.mat"
id=$(PAT32=$work/pat32.mat sbatch --parsable -n 64 --comm-pattern="$work/pat.mat" -o job.out \
	-e job.err job.sh)
wait_done "$id" || not_ok "(a) the job ends"
nodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
expected "$nodes" >expected.txt
expect_eq "(a) the expected mapping has 64 ranks" 64 "$(wc -l <expected.txt | tr -d ' ')"
got=$(awk '{ print $1, $2, $3 }' step0.out | sort -n)
expect_eq "(a) every rank on the node and CPU of topomatch map -w $nodes" \
	"$(cat expected.txt)" "$got"
awk '{ print $1, $2, $3 }' step0.out >placed.txt
expect_eq "(a) the placement that runs is slurmctld's: the hop-bytes SystemComment gives" yes \
	"$(same_hb "$(comment_hb "$id")" "$(placement_hb "$dir" "$work/pat.mat" 16 placed.txt)")"
expect_eq "(a) TOPOMATCH_RANK is SLURM_PROCID" 64 "$(awk '$1 == $5' step0.out | wc -l | tr -d ' ')"
expect_eq "(a) TOPOMATCH_BIND=recorded in every task" 64 \
	"$(awk '$4 == "recorded"' step0.out | wc -l | tr -d ' ')"
expect_eq "(a) a second step: the same layout" "$got" "$(awk '{ print $1, $2, $3 }' step1.out | sort -n)"
expect_eq "(a) not Slurm's block layout: ranks 0-15 span several nodes" yes \
	"$(awk '$1 < 16 && !($2 in n) { n[$2] = 1; k++ } END { print (k > 1) ? "yes" : "no" }' step0.out)"
expect_eq "(a) no note for the matching steps" "" "$(grep -h 'topomatch:' step0.err step1.err)"
expect_eq "(a) the hostfiles are removed" "" "$(ls "$TMPDIR")"

# the job's srun lays out the pattern slurmctld mapped, the blob the job
# carries, not the file (changed or gone since the submission)
cp "$work/pat.mat" "$work/gone.mat"
id=$(sbatch --parsable -n 64 --comm-pattern="$work/gone.mat" -o gone.out -e gone.err \
	--wrap "rm -f $work/gone.mat; srun sh -c 'echo \$TOPOMATCH_RANK \$SLURMD_NODENAME \$TOPOMATCH_CPUS'")
wait_done "$id" || not_ok "(a) the job whose pattern file is gone ends"
gnodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
expect_eq "(a) pattern file removed before srun: every rank placed from the job's pattern" \
	"$(expected "$gnodes")" "$(sort -n gone.out)"
expect_eq "(a) pattern file removed before srun: no note" "" "$(grep -h 'topomatch:' gone.err)"

# a pattern reduced to fit PatternKiB: sbatch says so; slurmctld chose the
# nodes with the reduced form, the job's srun lays out the ranks with the
# whole file, which still encodes to what the job carries; a file changed
# since the submission: the job's pattern
echo PatternKiB=1 >>"$dir/topomatch.conf"
scontrol reconfigure
cp "$work/pat.mat" "$work/red.mat"
cp "$work/pat.mat" "$work/red2.mat"
"$tm" gen hierarchical --arity 16,4 --shuffle 6 --out "$work/other.mat"
show_v="srun sh -c 'echo \$TOPOMATCH_RANK \$SLURMD_NODENAME \$TOPOMATCH_CPUS'"
id=$(sbatch --parsable -n 64 --comm-pattern="$work/red.mat" -o red.out -e red.err \
	--wrap "$show_v" 2>red-sbatch.err)
id2=$(sbatch --parsable -n 64 --comm-pattern="$work/red2.mat" -o red2.out -e red2.err \
	--wrap "cp $work/other.mat $work/red2.mat; $show_v")
wait_done "$id" && wait_done "$id2" || not_ok "(a) the jobs of a reduced pattern end"
expect_contains "(a) PatternKiB=1: sbatch says the nodes are chosen with part of the pattern" \
	"of its 2016 pairs" "$(cat red-sbatch.err)"
expect_contains "(a) ... and why" "of the communication weight dropped to fit PatternKiB=1); srun lays out the ranks with all of them from $work/red.mat" \
	"$(cat red-sbatch.err)"
rnodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
expect_eq "(a) reduced pattern: every rank placed from the whole file on the job's nodes" \
	"$(expected "$rnodes" "$work/pat.mat")" "$(sort -n red.out)"
expect_eq "(a) reduced pattern: srun says it used the file" \
	"srun: topomatch: the job carries 265 of 2016 pairs of its pattern; ranks laid out with all of them, from $work/red.mat" \
	"$(grep topomatch: red.err)"
expect_eq "(a) the file changed since: srun lays out the job's pattern, says so" \
	"srun: topomatch: the job carries 265 of 2016 pairs of its pattern; $work/red2.mat is not that pattern now: ranks laid out with the job's" \
	"$(grep topomatch: red2.err)"
expect_eq "(a) the file changed since: every rank placed" 64 "$(wc -l <red2.out | tr -d ' ')"
# a pattern that PatternKiB=1 does not hold even with one pair per rank
# (256 random ranks): sbatch stores it in groups of consecutive ranks,
# slurmctld maps the groups, srun lays out the ranks with the whole file
"$tm" gen random --tasks 256 --degree 6 --out "$work/grp.mat"
id=$(sbatch --parsable -n 256 --comm-pattern="$work/grp.mat" -o grp.out -e grp.err \
	--wrap "$show_v" 2>grp-sbatch.err)
wait_done "$id" || not_ok "(a) the job of a pattern in groups ends"
expect_contains "(a) PatternKiB=1, 256 random ranks: sbatch stores them in groups, says so" \
	"256 tasks do not fit PatternKiB=1 one by one: the nodes are chosen with the pattern in groups of 2 consecutive ranks" \
	"$(cat grp-sbatch.err)"
expect_contains "(a) ... slurmctld maps the groups" "mapped 256 tasks in groups of 2 onto 16 nodes" \
	"$(scontrol show job "$id" | grep SystemComment)"
gnodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
expect_eq "(a) pattern in groups: every rank placed from the whole file" \
	"$(expected "$gnodes" "$work/grp.mat")" "$(sort -n grp.out)"
expect_eq "(a) pattern in groups: no note from srun" "" "$(grep -h 'topomatch:' grp.err)"
sed -i '/^PatternKiB=1$/d' "$dir/topomatch.conf"

# a job of more tasks than a decision maps one by one (MaxTasks=16 here):
# slurmctld maps it node by node, in blocks of a node's 16 cores, and its
# srun lays the ranks out the same way: pat.mat's 4 groups of 16 ranks
# that talk most (about 1000 within, 100 between) each run on one node,
# as the running ranks' nodes show; Slurm's block layout of the shuffled
# ranks would spread every group over the 4 nodes
echo MaxTasks=16 >>"$dir/topomatch.conf"
scontrol reconfigure
id=$(sbatch --parsable -n 64 --comm-pattern="$work/pat.mat" -o blk.out -e blk.err \
	--wrap "$show_v")
wait_done "$id" || not_ok "(a) MaxTasks=16: the job ends"
expect_contains "(a) MaxTasks=16: slurmctld maps the 64 tasks node by node" \
	"mapped 64 tasks onto 4 nodes node by node (in blocks)" \
	"$(scontrol show job "$id" | grep SystemComment)"
# each rank's group: the lowest rank it exchanges over 500 with, or itself
awk 'BEGIN { r = 0 } !/^#/ && NF > 1 { g = r
	for (j = 1; j <= NF; j++) if ($j > 500 && j - 1 < g) g = j - 1
	print r++, g }' "$work/pat.mat" >groups.txt
expect_eq "(a) MaxTasks=16: 64 ranks ran, 16 on each of 4 nodes, each node one whole group" \
	"64 4 4" "$(awk 'NR == FNR { g[$1] = $2; next } { n[$2]++; if (!(($2, g[$1]) in p)) {
		p[$2, g[$1]] = 1; pairs++ } } END { k = 0; for (x in n) if (n[x] == 16) k++
		print FNR, k, pairs }' groups.txt blk.out)"
expect_eq "(a) MaxTasks=16: no note from srun" "" "$(grep -h 'topomatch:' blk.err)"
expect_contains "(a) MaxTasks=16: the job's traffic joins the running jobs' link loads" \
	"JobId=$id: its traffic joins the link loads" "$(cat "$dir/log/slurmctld.log")"
sed -i '/^MaxTasks=16$/d' "$dir/topomatch.conf"
scontrol reconfigure

# 20 more steps with an arbitrary layout (SLURM-NOTES.md: only safe while
# slurmctld runs under its standard name), then the whole cluster again
expect_eq "20 arbitrary steps: each with the same layout" \
	"$(for i in $(seq 20); do sed "s/^/$i /" expected.txt; done)" \
	"$(sort -k1,1n -k2,2n steps20.out)"
id=$(sbatch --parsable -n 256 -o all.out --wrap 'srun sh -c "echo \$SLURMD_NODENAME"')
wait_done "$id" || not_ok "after them, a job on every CPU ends"
expect_eq "after them, a job on every CPU of the 16 nodes runs" "256 16" \
	"$(wc -l <all.out | tr -d ' ') $(sort -u all.out | wc -l | tr -d ' ')"

# (b) other steps: default layout and a note
expect_eq "(b) -n 2: the step runs, no binding" "r= p=0
r= p=1" "$(sort step2.out)"
expect_eq "(b) -n 2: one note" \
	"srun: topomatch: the pattern has 64 tasks, the step 2; the step keeps Slurm's default layout" \
	"$(grep 'topomatch:' step2.err)"
expect_eq "(b) -n 16 -c 2: the step runs, no binding" 16 "$(grep -c '^r= ' step3.out)"
expect_eq "(b) -n 16 -c 2: one note" \
	"srun: topomatch: the pattern has 64 tasks, the step 16; the step keeps Slurm's default layout" \
	"$(grep 'topomatch:' step3.err)"

# tasks of 2 CPUs (-c 2) with a pattern of their own: each rank on the
# node and CPUs of topomatch map --cpus-per-task 2 (first CPU c: c and c+1)
expected "$nodes" "$work/pat32.mat" 16 "$dir" 2 | awk '{ print $1, $2, $3 "-" $3 + 1 }' \
	>expected-c2.txt
expect_eq "(a) -n 32 -c 2 --comm-pattern: every rank on its node and 2 CPUs" \
	"$(cat expected-c2.txt)" "$(awk '{ print $1, $2, $3 }' step4.out | sort -n)"
expect_eq "(a) -n 32 -c 2: no note" "" "$(grep -h 'topomatch:' step4.err)"

# (c) srun --comm-pattern inside salloc (no pattern at allocation time)
out=$(salloc -n 64 sh -c 'echo NODES=$SLURM_JOB_NODELIST; srun -n 64 --comm-pattern='"$work"'/pat.mat sh -c '\''echo $TOPOMATCH_RANK $SLURMD_NODENAME $TOPOMATCH_CPUS'\''' 2>salloc.err)
snodes=$(printf '%s\n' "$out" | sed -n 's/^NODES=//p')
expect_eq "(c) salloc + srun --comm-pattern: the mapping of $snodes" "$(expected "$snodes")" \
	"$(printf '%s\n' "$out" | grep -v '^NODES=' | sort -n)"

# a node shared with another job: the ranks get the job's own cores
other=$(sbatch --parsable -w n016 -n 8 -o /dev/null --wrap "sleep 300")
wait_running "$other" 10 >/dev/null
"$tm" gen hierarchical --arity 4,2 --shuffle 2 --out "$work/pat8.mat"
# shellcheck disable=SC2016 # expanded in the allocation
out=$(salloc -w n016 -n 8 sh -c 'scontrol show job -d $SLURM_JOB_ID | sed -n "s/.* CPU_IDs=\([^ ]*\) .*/IDS=\1/p"
	srun -n 8 --comm-pattern='"$work"'/pat8.mat sh -c '\''echo $TOPOMATCH_RANK $TOPOMATCH_CPUS'\''' 2>shared.err)
ids=$(printf '%s\n' "$out" | sed -n 's/^IDS=//p')
expand() { echo "$1" | tr ',' '\n' | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }' | sort -n; }
expect_eq "shared node: the job holds 8 of n016's cores" 8 "$(expand "$ids" | grep -c .)"
expect_eq "shared node: the 8 ranks on exactly the job's cores ($ids)" "$(expand "$ids")" \
	"$(printf '%s\n' "$out" | grep -v '^IDS=' | awk '{ print $2 }' | sort -n)"
scancel "$other"

expect_contains "slurmctld still answers" "is UP" "$(scontrol ping)"
"$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1

# (d) real binding under the task plugins sites run: two nodes of this
# machine's shape, TaskPlugin=task/affinity,task/cgroup with ConstrainCores
# (the test cluster's default there), the SPANK plugin without bind=record.
# Every check reads what the kernel applied to the running task: its CPU
# list (/proc/self/status) and its cpuset cgroup's CPUs.
rdir=${dir}-real
sockets=$(lscpu -p=SOCKET | grep -v '^#' | sort -u | wc -l)
cores=$(lscpu -p=SOCKET,CORE | grep -v '^#' | sort -u | wc -l)
cpus=$(lscpu -p=CPU | grep -vc '^#')
per=$cpus
real=(--dir "$rdir" --port-base $((port + 100)) --restart "${sel[@]}" --spank "$spank"
	--topomatch-conf --topomatch "$tm" --nodes 2 --leaf-size 2 --sockets "$sockets"
	--cores $((cores / sockets)) --threads $((cpus / cores)) --sched-params bf_interval=1)
"$top/contrib/testcluster/start.sh" "${real[@]}" >"$work/start-real.log" 2>&1 || { cat "$work/start-real.log"; not_ok "(d) a cluster of this machine's shape starts"; finish; }
ok "(d) a cluster of 2 nodes of this machine's shape ($sockets x $((cores / sockets)) x $((cpus / cores))) starts"
expect_eq "(d) the production task plugins: task/affinity,task/cgroup, cores confined" \
	"TaskPlugin=task/affinity,task/cgroup ConstrainCores=yes" \
	"$(grep -h '^TaskPlugin=' "$rdir/slurm.conf") $(grep -sh '^ConstrainCores=' "$rdir/cgroup.conf")"
export SLURM_CONF=$rdir/slurm.conf
# 2 x per ranks in two groups that talk much inside (weight 1024) and
# little across (1), ranks interleaved (group of rank t: t+1 mod 2 x per
# in the first or second half); weights that are powers of two, which the
# job's encoded pattern holds exactly (pattern_blob.c keeps 11 bits), so
# slurmctld's hop-bytes and those of the file agree
awk -v n=$((2 * per)) 'function g(t) { return int(((t + 1) % n) / (n / 2)) }
	BEGIN { for (i = 0; i < n; i++) { for (j = 0; j < n; j++) {
		w = i == j ? 0 : g(i) == g(j) ? 1024 : 1
		printf "%s%d", j ? " " : "", w }
		printf "\n" } }' >"$work/real.mat"
printf '0 10\n10 0\n' >"$work/pair.mat"
printf '0 9 1\n9 0 1\n1 1 0\n' >"$work/three.mat"
# one line a task: rank node TOPOMATCH_CPUS TOPOMATCH_BIND kernel-CPUs
# cgroup-CPUs cgroup procid localid
cat >"$work/rank.sh" <<'EOF'
#!/bin/sh
cg=$(cat /proc/self/cpuset)
echo "${TOPOMATCH_RANK:--} $SLURMD_NODENAME ${TOPOMATCH_CPUS:--} ${TOPOMATCH_BIND:--}" \
	"$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)" \
	"$(cat "/sys/fs/cgroup/cpuset$cg/cpuset.cpus" 2>/dev/null || echo -)" "$cg" "$SLURM_PROCID" \
	"$SLURM_LOCALID"
EOF
chmod +x "$work/rank.sh"
# waits (at most 60 s) until a file exists: steps that must overlap wait
# for each other instead of sleeping a time a slow machine may exceed
cat >"$work/waitfor.sh" <<'EOF'
#!/bin/sh
for _ in $(seq 600); do [ -e "$1" ] && exit 0; sleep 0.1; done
exit 1
EOF
chmod +x "$work/waitfor.sh"
cat >"$work/real.sh" <<'EOF'
#!/bin/bash
r=$WORK/rank.sh
srun $r >d-default.out 2>d-default.err
srun --cpu-bind=none $r >d-none.out 2>d-none.err
srun --cpu-bind=map_cpu:1,0 $r >d-map.out 2>d-map.err
srun --comm-strict --cpu-bind=none $r >d-strict.out 2>d-strict.err
echo $? >d-strict.rc
running() { squeue -h -s -j $SLURM_JOB_ID -o %i | grep -c "^$SLURM_JOB_ID\.[0-9]"; }
until_steps() { for _ in $(seq 100); do [ "$(running)" -ge $1 ] && return; sleep 0.1; done; }
# two concurrent --exact steps of a tight pair each; A runs until B has
# counted (not a fixed time: a slow machine may start B late), or 60 s when
# B cannot start beside it
w=$WORK/waitfor.sh
rm -f d-exB.running d-fit.go d-fit.done
srun --exact -n 2 --comm-pattern=$WORK/pair.mat sh -c "$r; $w d-exB.running" >d-exA.out 2>d-exA.err &
until_steps 1
# (B counts the job's running steps: A and itself)
srun --exact -n 2 --comm-pattern=$WORK/pair.mat sh -c "$r; [ \$SLURM_PROCID != 0 ] || {
	squeue -h -s -j $SLURM_JOB_ID -o %i | grep -c '^$SLURM_JOB_ID\.[0-9]' >d-exB.tmp
	mv d-exB.tmp d-exB.running; }" \
	>d-exB.out 2>d-exB.err
wait
# a step granted other cores than the mapped ones: of the first node,
# CPU 0 is free again and CPU 1 busy when the 3-rank step starts
first=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -1)
srun --exact -n 1 -w $first $w d-fit.go &
x=$!
until_steps 1
srun --exact -n 1 -w $first $w d-fit.done &
until_steps 2
touch d-fit.go
wait $x
# srun returns before slurmctld has ended the step: wait until it has
# (srun maps onto the CPUs that running steps do not hold)
for _ in $(seq 100); do [ "$(running)" -le 1 ] && break; sleep 0.1; done
srun --exact -n 3 --comm-pattern=$WORK/three.mat $r >d-fit.out 2>d-fit.err
touch d-fit.done
wait
EOF
id=$(WORK=$work sbatch --parsable -n $((2 * per)) --comm-pattern="$work/real.mat" -o real.out \
	-e real.err "$work/real.sh")
for _ in $(seq 3); do wait_done "$id" && break; done || not_ok "(d) the job ends"
rnodes=$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
# the kernel's CPUs are TOPOMATCH_CPUS, inside the step's cpuset: lines that are not
applied_bad() { awk '$4 != "applied" || $5 != $3 || $7 !~ /\/step_[0-9]+$/ { print }' "$@"; }
# CPUs of a list inside another ("0-1"): 1 yes
inside() { awk -v a="$1" -v b="$2" 'function set(l, s,   i, n, p, r, k) {
		n = split(l, p, ","); for (i = 1; i <= n; i++) { k = split(p[i], r, "-");
		for (c = r[1]; c <= (k > 1 ? r[2] : r[1]); c++) s[c] = 1 } }
	BEGIN { set(a, x); set(b, y); for (c in x) if (!(c in y)) { print 0; exit } print 1 }'; }
expect_eq "(d) every rank on the node and CPU of topomatch map -w $rnodes" \
	"$(expected "$rnodes" "$work/real.mat" "$per" "$rdir")" "$(awk '{ print $1, $2, $3 }' d-default.out | sort -n)"
expect_eq "(d) the kernel runs each task on exactly TOPOMATCH_CPUS, in its step's cgroup" "" \
	"$(applied_bad d-default.out)"
expect_eq "(d) each task's CPUs inside its step's cpuset" "$(printf '1\n%.0s' $(seq $((2 * per))))" \
	"$(while read -r _ _ _ _ k c _; do inside "$k" "$c"; done <d-default.out)"
expect_eq "(d) no note" "" "$(grep -h 'topomatch:' d-default.err)"
expect_eq "(d) the placement that runs is slurmctld's: the hop-bytes SystemComment gives" yes \
	"$(same_hb "$(comment_hb "$id")" "$(placement_hb "$rdir" "$work/real.mat" "$per" d-default.out)")"

# an explicit --cpu-bind wins, with one line on srun's stderr
expect_eq "(d) --cpu-bind=none: one line on srun's stderr" \
	"srun: topomatch: --cpu-bind=none chooses the CPUs: the pattern's binding is not applied (ranks are still placed on the pattern's nodes)" \
	"$(grep 'topomatch' d-none.err)"
expect_eq "(d) --cpu-bind=none: each task may run on all its step's CPUs (Slurm's none)" "" \
	"$(awk '$4 != "user" || $5 != $6 { print }' d-none.out)"
expect_eq "(d) --cpu-bind=none: ranks still on the pattern's nodes" \
	"$(expected "$rnodes" "$work/real.mat" "$per" "$rdir" | awk '{ print $1, $2 }')" \
	"$(awk '{ print $1, $2 }' d-none.out | sort -n)"
expect_eq "(d) --cpu-bind=map_cpu:1,0: the kernel applies Slurm's map (local task 0 on CPU 1, 1 on 0, ...)" \
	"$((2 * per)) tasks" \
	"$(wc -l <d-map.out | tr -d ' ') tasks$(awk '$4 != "user" || $5 != ($9 % 2 ? 0 : 1) { printf ", not: %s", $0 }' d-map.out)"
expect_eq "(d) --cpu-bind=map_cpu: one line on srun's stderr" 1 "$(grep -c 'topomatch: --cpu-bind=map_cpu:1,0 chooses the CPUs' d-map.err)"
expect_contains "(d) --comm-strict --cpu-bind=none: srun refuses the step" \
	"topomatch: --cpu-bind=none chooses the CPUs, so the pattern's binding cannot be applied (--comm-strict)" \
	"$(cat d-strict.err)"
expect_eq "(d) --comm-strict --cpu-bind=none: srun fails, no task runs" "1 0" \
	"$(cat d-strict.rc) $(wc -l <d-strict.out | tr -d ' ')"

# concurrent --exact steps: the second one takes the free node at once
expect_eq "(d) --exact steps: each pair bound on its own node, while the other runs" \
	"0 0 2 $(scontrol show hostnames "$rnodes" | sort | tr '\n' ' ')" \
	"$(applied_bad d-exA.out | wc -l | tr -d ' ') $(applied_bad d-exB.out | wc -l | tr -d ' ') $(cat d-exB.running) $(cat d-exA.out d-exB.out | awk '{ print $2 }' | sort -u | tr '\n' ' ')"

# a step granted other cores than mapped: ranks moved onto its cpuset
expect_eq "(d) --exact step on a partly busy node: every rank bound inside its cpuset" "" \
	"$(applied_bad d-fit.out)"
expect_eq "(d) ... two ranks on the free node, one on CPU 0 of the other (its step's only CPU)" \
	"2 1 0" \
	"$(awk '{ n[$2]++ } END { for (k in n) print n[k] }' d-fit.out | sort -rn | tr '\n' ' ')$(awk '$6 == "0" { print $3 }' d-fit.out)"
expect_eq "(d) ... no note" "" "$(grep -h 'topomatch:' d-fit.err d-exA.err d-exB.err)"

# an array job: each array task's ranks mapped and bound
id=$(sbatch --parsable --array=1-2 -n 2 --comm-pattern="$work/pair.mat" -o "arr-%a.out" \
	-e "arr-%a.err" --wrap "srun $work/rank.sh")
for _ in $(seq 3); do wait_done "$id" && break; done || not_ok "(d) the array job ends"
expect_eq "(d) array job: 2 tasks of 2 ranks, each pair on one node, bound" "4 0 1 1" \
	"$(cat arr-1.out arr-2.out | wc -l | tr -d ' ') $(applied_bad arr-1.out arr-2.out | wc -l | tr -d ' ') $(awk '{ print $2 }' arr-1.out | sort -u | wc -l | tr -d ' ') $(awk '{ print $2 }' arr-2.out | sort -u | wc -l | tr -d ' ')"
expect_eq "(d) array job: no note" "" "$(grep -h 'topomatch:' arr-1.err arr-2.err)"

# a heterogeneous job (started by backfill): the component whose size is
# the pattern's is placed by slurmctld and laid out by srun --het-group=1;
# the other keeps Slurm's layout, with a note
cat >"$work/het.sh" <<EOF
#!/bin/bash
#SBATCH -n 1
#SBATCH hetjob
#SBATCH -n 2
srun --het-group=1 $work/rank.sh >d-het1.out 2>d-het1.err
srun --het-group=0 $work/rank.sh >d-het0.out 2>d-het0.err
EOF
id=$(sbatch --parsable --comm-pattern="$work/pair.mat" -o het.out -e het.err "$work/het.sh")
for _ in $(seq 3); do wait_done "$id" && break; done || not_ok "(d) the heterogeneous job ends"
expect_contains "(d) het job: component 1 (2 tasks) placed by the pattern in slurmctld" \
	"mapped 2 tasks onto 1 node:" "$(scontrol show job "$((id + 1))" | sed -n 's/^ *SystemComment=//p')"
expect_eq "(d) het job: srun --het-group=1 lays out and binds its 2 ranks, on one node" "2 0 1" \
	"$(wc -l <d-het1.out | tr -d ' ') $(applied_bad d-het1.out | wc -l | tr -d ' ') $(awk '{ print $2 }' d-het1.out | sort -u | wc -l | tr -d ' ')"
expect_eq "(d) het job: component 0 keeps Slurm's layout, with a note" \
	"srun: topomatch: the pattern has 2 tasks, the step 1; the step keeps Slurm's default layout" \
	"$(grep 'topomatch:' d-het0.err)"

# (e) the same cluster with memory a consumable resource (CR_Core_Memory,
# RealMemory=1024 a node): -N, --ntasks-per-node and --mem, each job's
# nodes read from scontrol and its ranks' affinity from the kernel
"$top/contrib/testcluster/start.sh" "${real[@]}" --select-params CR_Core_Memory \
	>"$work/start-mem.log" 2>&1 || { cat "$work/start-mem.log"; not_ok "(e) the cluster restarts with CR_Core_Memory"; finish; }
mapfile -t rn < <(scontrol show hostnames "$rnodes" | sort)
# -N 2 --ntasks-per-node=1: the tight pair is split over the two nodes,
# as the job asks, one rank on each, bound inside its cgroup
id=$(sbatch --parsable -N 2 --ntasks-per-node=1 -n 2 --mem=300 --comm-pattern="$work/pair.mat" \
	-o e-n2.out -e e-n2.err --wrap "srun $work/rank.sh")
for _ in $(seq 3); do wait_done "$id" && break; done || not_ok "(e) the -N 2 job ends"
expect_eq "(e) -N 2 --ntasks-per-node=1 --mem=300: Slurm allocates both nodes, 300 MB on each" \
	"$(IFS=,; echo "${rn[*]}") mem=600M" \
	"$(scontrol show hostnames "$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')" | sort | paste -sd,) $(scontrol show job "$id" | grep -o 'mem=[0-9]*M' | head -1)"
expect_eq "(e) -N 2: one rank on each node, the kernel binds each to TOPOMATCH_CPUS in its cgroup" \
	"2 2 0" \
	"$(wc -l <e-n2.out | tr -d ' ') $(awk '{ print $2 }' e-n2.out | sort -u | wc -l | tr -d ' ') $(applied_bad e-n2.out | wc -l | tr -d ' ')"
expect_contains "(e) -N 2: SystemComment says the mapping over 2 nodes" "mapped 2 tasks onto 2 nodes" \
	"$(scontrol show job "$id" | sed -n 's/^ *SystemComment=//p')"
# --mem decides: the first node keeps a free core but not the memory for
# a task of 300 MB (a job holds 900 of its 1024), so the one-task job goes
# to the second node at once (no fallback), bound there
blocker=$(sbatch --parsable -w "${rn[0]}" -n 1 --mem=900 -o /dev/null --wrap "sleep 120")
wait_running "$blocker" 10 >/dev/null
printf '0\n' >"$work/one.mat"
id=$(sbatch --parsable -n 1 --mem=300 --comm-pattern="$work/one.mat" -o e-mem.out -e e-mem.err \
	--wrap "srun $work/rank.sh")
for _ in $(seq 3); do wait_done "$id" && break; done || not_ok "(e) the --mem job ends"
expect_eq "(e) --mem=300: Slurm allocates the node with the memory (${rn[1]}), the rank bound there" \
	"${rn[1]} ${rn[1]} 0" \
	"$(scontrol show job "$id" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p') $(awk '{ print $2 }' e-mem.out) $(applied_bad e-mem.out | wc -l | tr -d ' ')"
expect_eq "(e) --mem=300: the mapping's node is allocated (no fallback to cons_tres)" \
	"mapped 1 task onto 1 node" \
	"$(scontrol show job "$id" | sed -n 's/^ *SystemComment=//p' | grep -o 'mapped 1 task onto 1 node\|cannot allocate')"
scancel "$blocker"
"$top/contrib/testcluster/stop.sh" --dir "$rdir" >/dev/null 2>&1
finish

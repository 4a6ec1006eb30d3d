#!/bin/bash
# bench/slurm_scale.sh MODE [OPTIONS] - select/topomatch inside a real
# slurmctld at scale, on the test cluster (contrib/testcluster), side by
# side with Slurm's own select/cons_tres (issue 18, points 3 and 4).
# Run as root; it starts and stops its own cluster (--dir, --port-base),
# so it must not run beside the Slurm tests of check.sh.
#
# throughput: N virtual nodes (default 1,024: one slurmd each, 2 sockets
#   x 2 cores, leaf switches of 16, the SPANK plugin with bind=record), a
#   stream of J short batch jobs (default 5,000; 2 to 64 tasks; a share F
#   of them, default half, carry a pattern as sbatch --comm-pattern leaves
#   it), submitted held through the Slurm API (bench/slurm_load) and
#   released at once; then the same with select/topomatch.  Prints, per
#   scheduler, the jobs started per minute (from release to the last start
#   in sacct) and the p50/p99/max latency of `scontrol ping` and `squeue`
#   run every 0.5 s throughout; targets: topomatch >= 0.9 x cons_tres'
#   jobs per minute, every p99 < 1 s.  With select/topomatch it also counts
#   the pattern jobs' decisions in sacct's AdminComment (with --epilog:
#   SystemComment, which the optional EpilogSlurmctld stores, one
#   sacctmgr call per job).  Slurm's default SchedulerParameters; with
#   --epilog both clusters run the main scheduler and backfill every
#   second (sched_interval=1,bf_interval=1): Slurm 22.05 does not
#   schedule again when an EpilogSlurmctld returns, so with its default
#   60 s main loop any such epilog (this project's or a site's) makes the
#   start rate depend on a race between the epilog and the pass that
#   follows a job's end (300-job runs: 16 to 145 s).
#   --cpus split (default): the controller's side (slurmctld, slurmdbd,
#   mariadbd, munged, this script and its probes) on the first CPU, the
#   1,024 slurmds with their slurmstepds and jobs on the others, as on a
#   site where the controller has a host of its own; the slurmds also run
#   at nice 10 (--slurmd-nice).  It prints where the CPU went (slurmctld,
#   slurmdbd, mariadbd, munged, slurmd, the rest) from the release to the
#   queue's end, and slurmctld's thread count (median and peak over the
#   stream, and at the peak how many wait on a peer's socket or on a
#   lock: slurmctld serves at most 256 connections at once).
# memory: slurmctld's resident memory (VmRSS, and its peak VmHWM) with J
#   held jobs (default 10,000) without patterns, then with patterns at the
#   cap (--pattern-kib, default the SPANK plugin's), both under
#   select/topomatch on a fresh controller; target: at most 512 MiB more.
#
# Options:
#   --nodes N         virtual nodes (throughput: 1024; memory: 16)
#   --jobs J          jobs (throughput: 5000; memory: 10000)
#   --share F         share of jobs with a pattern (throughput; default 0.5)
#   --pattern-kib K   the patterns' size cap in KiB (default 48, the SPANK
#                     plugin's default PatternKiB)
#   --small           check.sh's version: 64 nodes, 300 jobs (throughput),
#                     1,000 jobs (memory); the targets are printed, not
#                     enforced (timings on a shared CI machine mean little)
#   --dir DIR         the cluster's directory (default /tmp/tm-slurm-scale)
#   --port-base P     its ports (default 30001)
#   --epilog          select/topomatch with its EpilogSlurmctld (decisions
#                     into SystemComment too)
#   --keep            leave the last cluster running
#   --cpus split|shared   CPUs split between controller and nodes (default
#                     split, on 2 or more CPUs), or all shared
#   --slurmd-nice N   the slurmds' nice value (default 10)
#   --sched-params P  SchedulerParameters added to the clusters' (e.g.
#                     max_sched_time=1,bf_yield_interval=500000)
#   --only S          run the stream with cons_tres or topomatch only
#   --tm-conf "K=V .."  settings added to select/topomatch's topomatch.conf
#                     (e.g. CycleBudgetMs=200), read with scontrol reconfigure
#   --login-probe     a second squeue probe on the last CPU under SCHED_FIFO
#                     (where permitted), standing for a login node (its
#                     client gets a CPU when it wants one; with --cpus split
#                     it takes that CPU from the nodes' side), 0.25 s after
#                     the first
# Environment: BUILD_DIR (default build).
# Exit status: 1 when a job failed or did not run, or (without --small) a
# target failed; 2 on bad usage.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
load=$build/bench/slurm_load
tm=$build/tools/topomatch
select_dir=$build/plugin/select/.libs
spank=$build/plugin/spank/.libs/spank_topomatch.so

mode=${1:-}
case $mode in
throughput | memory) shift ;;
-h | --help) sed -n '2,/^# SPDX/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "slurm_scale.sh: MODE is throughput or memory (see --help)" >&2; exit 2 ;;
esac
nodes= jobs= share=0.5 kib=48 small=0 keep=0 epilog=0 snice=10 cpus=split
sparams= only= tmconf= login=0 ncpu=$(nproc)
dir=/tmp/tm-slurm-scale port_base=30001
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) nodes=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--share) share=$2; shift ;;
	--pattern-kib) kib=$2; shift ;;
	--small) small=1 ;;
	--dir) dir=$2; shift ;;
	--port-base) port_base=$2; shift ;;
	--keep) keep=1 ;;
	--epilog) epilog=1 ;;
	--slurmd-nice) snice=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--sched-params) sparams=,$2; shift ;;
	--only) only=$2; shift ;;
	--tm-conf) tmconf=$2; shift ;;
	--login-probe) login=1 ;;
	-h | --help) sed -n '2,/^# SPDX/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "slurm_scale.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$mode" = throughput ]; then
	[ -n "$nodes" ] || nodes=$([ $small = 1 ] && echo 64 || echo 1024)
	[ -n "$jobs" ] || jobs=$([ $small = 1 ] && echo 300 || echo 5000)
else
	[ -n "$nodes" ] || nodes=16
	[ -n "$jobs" ] || jobs=$([ $small = 1 ] && echo 1000 || echo 10000)
fi
case $only in '' | cons_tres | topomatch) ;; *) echo "slurm_scale.sh: --only is cons_tres or topomatch, not '$only'" >&2; exit 2 ;; esac
case $cpus in split | shared) ;; *) echo "slurm_scale.sh: --cpus is split or shared, not '$cpus'" >&2; exit 2 ;; esac
[ "$ncpu" -ge 2 ] || cpus=shared
for v in nodes jobs kib port_base; do
	case ${!v} in '' | *[!0-9]* | 0*)
		echo "slurm_scale.sh: --${v//_/-} wants a positive integer, not '${!v}'" >&2; exit 2 ;;
	esac
done
for f in "$load" "$tm" "$spank" "$select_dir/select_topomatch.so"; do
	[ -e "$f" ] || { echo "slurm_scale.sh: $f not found: build first (BUILD_DIR=$build)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_scale.sh: run as root (it starts a Slurm cluster)" >&2; exit 1; }

work=$(mktemp -d /tmp/tm-slurm-scale-work.XXXXXX)
# a failure anywhere, subshells included
fail() { echo "slurm_scale.sh: $*" >&2; touch "$work/bad"; }
stop_cluster() { "$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1; }
cleanup() { [ $keep = 1 ] || stop_cluster; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# start SCHEDULER CORES: a fresh cluster with cons_tres or topomatch, nodes
# of 2 sockets x CORES
start() {
	local sel=() base_params=
	# with an EpilogSlurmctld, the main scheduler and backfill every
	# second (see above); without, Slurm's defaults
	[ $epilog = 0 ] || base_params=sched_interval=1,bf_interval=1
	[ "$1" = cons_tres ] || sel=(--select-dir "$select_dir" --topomatch-conf)
	[ "$1" = cons_tres ] || [ $epilog = 1 ] || sel+=(--no-epilog)
	"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port_base" \
		--nodes "$nodes" --sockets 2 --cores "$2" --leaf-size 16 --spank "$spank" \
		--bind-record --max-jobs $((jobs * 2 + 1000)) --topomatch "$tm" --restart \
		--sched-params "$base_params$sparams" --slurmd-nice "$snice" \
		"${sel[@]}" >"$work/start-$1.log" 2>&1 || {
		fail "the $1 cluster did not start:"
		tail -n 20 "$work/start-$1.log" >&2
		touch "$work/start-failed"
		exit 1
	}
	export SLURM_CONF=$dir/slurm.conf
	if [ "$1" != cons_tres ] && [ -n "$tmconf" ]; then
		printf '%s\n' $tmconf >>"$dir/topomatch.conf"
		scontrol reconfigure || fail "scontrol reconfigure with $tmconf"
	fi
	[ $cpus = shared ] || split_cpus
}

# split_cpus: the controller's side (slurmctld, slurmdbd, mariadbd,
# munged, and this script with its clients: probes, squeue, sacct) on
# the first CPU, the virtual nodes (slurmd, and the slurmstepds and jobs
# they start, which inherit it) on the others: at a site the controller
# has a host of its own, and here 1,024 slurmds and their jobs would
# otherwise take most of its CPU (cpu_share: 75 % of the busy time went
# to slurmstepds and jobs, 11 % to slurmctld)
split_cpus() {
	local last=$((ncpu - 1)) p
	for p in $(pgrep -x slurmd); do taskset -a -p -c "1-$last" "$p" >/dev/null || fail "taskset slurmd $p"; done
	for p in $(pgrep -x slurmctld) $(pgrep -x slurmdbd) $(pgrep -x mariadbd) $(pgrep -x munged) $$ $BASHPID; do
		taskset -a -p -c 0 "$p" >/dev/null || fail "taskset $p"
	done
}

ctld_pid() { cat "$dir/run/slurmctld.pid"; }
now() { date +%s.%N; }
# p50 p99 max of the numbers in a file, in ms
pct() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
	i = int(0.5 * NR + 0.5); j = int(0.99 * NR + 0.5); if (i < 1) i = 1; if (j < 1) j = 1
	printf "%.0f %.0f %.0f\n", v[i], v[j], v[NR] }'; }

# cpu_ticks: CPU time so far (clock ticks) of the whole host (busy, not
# idle or iowait), then of slurmctld, slurmdbd, mariadbd, munged and all
# the slurmds, one number each on a line
cpu_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
	local c pids
	for c in slurmctld slurmdbd mariadbd munged slurmd; do
		mapfile -t pids < <(pgrep -x "$c")
		if [ ${#pids[@]} -eq 0 ]; then echo 0; continue; fi
		# comm has no spaces for these: utime and stime are fields 14, 15
		(cd /proc && cat "${pids[@]/%//stat}" 2>/dev/null) | awk '{ t += $14 + $15 } END { print t + 0 }'
	done | paste -sd' '
}

# cpu_share BEFORE AFTER SECONDS: where the host's CPU went in between
cpu_share() {
	awk -v hz="$(getconf CLK_TCK)" -v s="$3" -v n="$ncpu" -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " "); split("slurmctld slurmdbd mariadbd munged slurmd", name, " ")
		busy = (y[1] - x[1]) / hz; left = busy
		printf "%.0f of %.0f CPU s busy:", busy, s * n
		for (i = 1; i <= 5; i++) { d = (y[i + 1] - x[i + 1]) / hz; left -= d; printf " %s %.0f,", name[i], d }
		printf " the rest (slurmstepd, jobs, clients) %.0f\n", left }'
}

# probe OUT-PREFIX [squeue-only]: time scontrol ping and squeue every 0.5 s
# until killed
probe() {
	local t0 t1
	while :; do
		if [ -z "${2:-}" ]; then
			t0=$(now); scontrol ping >/dev/null 2>&1; t1=$(now)
			echo "$t0 $t1" | awk '{ printf "%.1f\n", 1000 * ($2 - $1) }' >>"$1.ping"
		fi
		t0=$(now); squeue -h >/dev/null 2>&1; t1=$(now)
		echo "$t0 $t1" | awk '{ printf "%.1f\n", 1000 * ($2 - $1) }' >>"$1.squeue"
		sleep 0.5
	done
}

# thread_probe OUT: every second, slurmctld's threads by what the kernel
# says they wait in (wchan; no ptrace, slurmctld is not stopped): one
# "threads in-poll in-futex" line each.  slurmctld serves at most 256
# connections at once (MAX_SERVER_THREADS) and stops accepting beyond;
# threads in poll wait on a peer's socket (a slurmd that has not sent or
# read yet, or an agent's message to one), threads in a futex on a lock
# or condition.
thread_probe() {
	local p t w n q f
	while :; do
		p=$(cat "$dir/run/slurmctld.pid" 2>/dev/null)
		if [ -n "$p" ] && [ -d "/proc/$p/task" ]; then
			n=0 q=0 f=0
			for t in /proc/"$p"/task/*; do
				w=
				read -r w 2>/dev/null <"$t/wchan"
				n=$((n + 1))
				case $w in poll_* | do_poll* | do_sys_poll*) q=$((q + 1)) ;; futex*) f=$((f + 1)) ;; esac
			done
			echo "$n $q $f" >>"$1"
		fi
		sleep 1
	done
}

# read_acct SCHEDULER FILE: the jobs of the stream in sacct, one
# "id|state|start|decision" line each (AdminComment, or with --epilog
# SystemComment); a decision line of several (an admin's before it) is
# joined with spaces
read_acct() {
	sacct -X -n -P -a -o "JobIDRaw,State,Start,$([ $epilog = 1 ] && echo SystemComment ||
		echo AdminComment)" --name "load-$1" -S now-1days 2>/dev/null |
		awk -F'|' 'NF >= 4 { if (line != "") print line; line = $0; next }
			{ line = line " " $0 } END { if (line != "") print line }' >"$2"
}

# run_stream SCHEDULER: prints "jobs/min ping-p50 p99 max squeue-p50 p99 max"
run_stream() {
	local s=$1 ids t0 deadline left
	start "$s" 2
	"$load" --jobs "$jobs" --pattern-share "$share" --pattern-kib "$kib" --hold \
		--name "load-$s" >"$work/$s.ids" 2>"$work/$s.load" ||
		fail "$s: submission failed: $(cat "$work/$s.load")"
	sdiag -r >/dev/null 2>&1 # the stream's own RPC and cycle counts
	probe "$work/$s" &
	local pp=$! c0 lp= tp
	thread_probe "$work/$s.threads" &
	tp=$!
	if [ $login = 1 ]; then
		(sleep 0.25
			taskset -p -c $((ncpu - 1)) "$BASHPID" >/dev/null || fail "$s: taskset (login probe)"
			chrt -f -p 10 "$BASHPID" 2>/dev/null || echo "slurm_scale.sh: SCHED_FIFO not" \
				"permitted here: the login probe runs at the default priority" >&2
			probe "$work/$s.login" squeue-only) &
		lp=$!
	fi
	c0=$(cpu_ticks | paste -sd' ')
	t0=$(now)
	scontrol release "$(paste -sd, "$work/$s.ids")"
	deadline=$(($(date +%s) + 3600))
	while :; do
		left=$(squeue -h -t PD,CF,R,CG -o %i 2>/dev/null | wc -l)
		[ "$left" -eq 0 ] && break
		if [ "$(date +%s)" -gt "$deadline" ]; then
			fail "$s: $left jobs still queued after an hour"
			break
		fi
		sleep 1
	done
	kill "$pp" $lp "$tp" 2>/dev/null
	wait "$pp" $lp "$tp" 2>/dev/null
	[ -s "$work/$s.threads" ] && sort -n "$work/$s.threads" | awk -v s="$s" '
		{ v[NR] = $0 } END { split(v[NR], m, " "); split(v[int(0.5 * NR + 0.5)], h, " ")
		printf "%s: slurmctld threads, median / peak (%d samples): %d / %d, at the peak %d" \
			" waiting on a peer'"'"'s socket (poll), %d on a lock or condition (futex)\n",
			s, NR, h[1], m[1], m[2], m[3] }' >&2
	[ -z "$lp" ] || echo "$s: squeue from the login probe, p50 / p99 / max ms:" \
		"$(pct "$work/$s.login.squeue" | sed 's# # / #g')" >&2
	# how long Slurm's own loops held their locks (squeue waits for them),
	# and how long slurmctld spent in squeue's requests from the decoded
	# request on (lock waits included)
	sdiag | awk -v s="$s" '/^Main schedule statistics/ { w = "main" }
		/^Backfilling stats/ { w = "backfill" }
		w && /Max cycle:/ { mx[w] = $3 } w && /Mean cycle:/ { mn[w] = $3 }
		/^[ \t]*REQUEST_JOB_INFO / && !ji { ji = $0; sub(/.*count:/, "", ji); split(ji, f, /[ :]+/) }
		END { printf "%s: sdiag cycles, mean / max ms: main %.0f / %.0f, backfill %.0f / %.0f;" \
			" REQUEST_JOB_INFO mean %.0f ms (%d calls)\n", s, mn["main"] / 1000, mx["main"] / 1000,
			mn["backfill"] / 1000, mx["backfill"] / 1000, f[3] / 1000, f[1] }' >&2
	echo "$s: CPU from the release to the queue's end: $(cpu_share "$c0" \
		"$(cpu_ticks | paste -sd' ')" "$(awk -v t0="$t0" -v t1="$(now)" 'BEGIN { print t1 - t0 }')")" >&2
	# sacct: every job COMPLETED, and its start time
	local acct=$work/$s.acct
	for _ in $(seq 30); do
		read_acct "$s" "$acct"
		[ "$(wc -l <"$acct")" -ge "$jobs" ] && break
		sleep 1
	done
	local done_ok purged=0
	done_ok=$(awk -F'|' '$2 == "COMPLETED"' "$acct" | wc -l)
	# Slurm 22.05's slurmd purges a batch script it is launching when a
	# registration request from slurmctld comes in the same instant
	# (_handle_stray_script; 1,024 slurmd on 2 cores miss pings): the job
	# fails whatever the select plugin, said and not counted against it
	for id in $(awk -F'|' '$2 == "FAILED" { print $1 }' "$acct"); do
		if grep -q "Purging vestigial job script .*/job0*$id/slurm_script" "$dir"/log/slurmd-*.log; then
			echo "$s: job $id failed by Slurm's slurmd (its script purged as it launched: _handle_stray_script)" >&2
			purged=$((purged + 1))
		fi
	done
	done_ok=$((done_ok + purged))
	if [ "$done_ok" -ne "$jobs" ]; then
		fail "$s: $done_ok of $jobs jobs COMPLETED in sacct"
		awk -F'|' '$2 != "COMPLETED" { print "  " $0 }' "$acct" | head -5 >&2
	fi
	if [ "$s" = topomatch ]; then
		# slurmdbd records the decisions with the jobs' end (with
		# --epilog, the epilog stores them in the background, one
		# sacctmgr modification each, 0.1 to 0.3 s of slurmdbd's time on
		# this host): wait for one per pattern job, 20 minutes at most
		local want mapped cons lag
		want=$(sed -n 's/.*(\([0-9]*\) with a pattern.*/\1/p' "$work/$s.load")
		lag=$(date +%s)
		local got=0 still=0
		for _ in $(seq 1200); do
			[ "$(grep -c '|topomatch: ' "$acct")" -ge "${want:-0}" ] && break
			# no progress for a minute: the epilog stopped storing
			if [ "$(grep -c '|topomatch: ' "$acct")" -gt "$got" ]; then
				got=$(grep -c '|topomatch: ' "$acct")
				still=0
			elif [ $((still += 1)) -ge 60 ]; then
				break
			fi
			sleep 1
			read_acct "$s" "$acct"
		done
		mapped=$(grep -c '|topomatch: [^ ]* mapped' "$acct")
		cons=$(grep -c '|topomatch: cons_tres chooses' "$acct")
		echo "$s: the decisions of $(grep -c '|topomatch: ' "$acct") of ${want:-?} pattern" \
			"jobs in sacct $(($(date +%s) - lag)) s after the last job ended: $mapped" \
			"mapped, $cons kept cons_tres' nodes (better)," \
			"$(($(grep -c '|topomatch: ' "$acct") - mapped - cons)) fell back" >&2
		# why, the numbers taken out: the 5 most frequent reasons
		grep '|topomatch: ' "$acct" | grep -v '|topomatch: [^ ]* mapped' |
			grep -v '|topomatch: cons_tres chooses' | sed 's/.*|topomatch: //; s/|.*//' |
			sed 's/[0-9][0-9.e+]*/N/g' | sort | uniq -c | sort -rn | head -n 5 |
			sed "s/^/$s: fell back: /" >&2
		[ "$(grep -c '|topomatch: ' "$acct")" -ge "${want:-0}" ] ||
			fail "$s: not every pattern job's decision reached sacct"
	fi
	local last
	last=$(awk -F'|' '{ print $3 }' "$acct" | sort | tail -n 1)
	awk -v j="$jobs" -v t0="$t0" -v t1="$(date -d "$last" +%s)" \
		'BEGIN { d = t1 - t0; if (d < 1) d = 1; printf "%.0f ", 60 * j / d }'
	echo "$(pct "$work/$s.ping") $(pct "$work/$s.squeue")"
	# the plugin's own count, logged on reconfigure (slurmctld calls no
	# plugin's fini when it stops): its share of slurmctld's time
	if [ "$s" = topomatch ]; then
		local stats
		scontrol reconfigure >/dev/null 2>&1
		for _ in $(seq 20); do
			stats=$(grep -o 'reconfigure: [0-9]* decisions computed.*' "$dir/log/slurmctld.log" | tail -n 1)
			[ -n "$stats" ] && break
			sleep 0.5
		done
		echo "$s: select/topomatch ${stats:-logged no statistics on reconfigure}" \
			"($(awk -v t0="$t0" -v t1="$(date -d "$last" +%s)" -v ms="$(echo "$stats" |
				sed -n 's/.* took \([0-9]*\) ms in all.*/\1/p')" \
				'BEGIN { printf "%.1f %% of the %d s from the release to the last start", 100 * ms / 1000 / ((t1 > t0) ? t1 - t0 : 1), t1 - t0 }'))" >&2
	fi
	stop_cluster
}

verdict() { # NAME OK(0/1)
	if [ "$2" = 1 ]; then echo "  $1: PASS"; else
		echo "  $1: FAIL"
		[ $small = 1 ] || touch "$work/bad"
	fi
}

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//' || true)
echo "slurm_scale $mode: $(uname -srm); ${cpu:-unknown cpu}; $ncpu cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$mode" = throughput ]; then
	echo "slurm_scale throughput: $nodes nodes of 2x2 cores, $jobs jobs of 2-64 tasks" \
		"(share $share with a pattern, at most $kib KiB), released at once;" \
		"SchedulerParameters $(p=$([ $epilog = 1 ] && echo sched_interval=1,bf_interval=1)$sparams
			echo "${p#,}" | sed 's/^$/(defaults)/'); topomatch.conf ${tmconf:-(defaults)}"
	T0=$(date +%s)
	c_rate=0 c_p50=- c_p99=- c_max=- c_q50=- c_q99=- c_qmax=-
	t_rate=0 t_p50=- t_p99=- t_max=- t_q50=- t_q99=- t_qmax=-
	[ "$only" = topomatch ] ||
		read -r c_rate c_p50 c_p99 c_max c_q50 c_q99 c_qmax < <(run_stream cons_tres)
	# a cluster that did not start ends its process substitution only
	[ ! -e "$work/start-failed" ] || exit 1
	[ "$only" = cons_tres ] ||
		read -r t_rate t_p50 t_p99 t_max t_q50 t_q99 t_qmax < <(run_stream topomatch)
	printf '%-10s %10s | %-20s | %-20s\n' scheduler "jobs/min" "ping p50/p99/max ms" \
		"squeue p50/p99/max ms"
	[ "$only" = topomatch ] || printf '%-10s %10s | %-20s | %-20s\n' cons_tres "$c_rate" \
		"$c_p50/$c_p99/$c_max" "$c_q50/$c_q99/$c_qmax"
	[ "$only" = cons_tres ] || printf '%-10s %10s | %-20s | %-20s\n' topomatch "$t_rate" \
		"$t_p50/$t_p99/$t_max" "$t_q50/$t_q99/$t_qmax"
	if [ -n "$only" ]; then # no comparison, no targets
		echo "slurm_scale throughput: $(($(date +%s) - T0)) s"
		[ ! -e "$work/bad" ]
		exit
	fi
	ratio=$(awk -v a="$t_rate" -v b="$c_rate" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	echo "topomatch / cons_tres jobs per minute: $ratio (target >= 0.9)" \
		"$([ $small = 1 ] && echo "; --small: targets not enforced")"
	verdict "jobs per minute" "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9) }')"
	verdict "p99 latency < 1 s" "$(awk -v a="$c_p99" -v b="$c_q99" -v c="$t_p99" -v d="$t_q99" \
		'BEGIN { print (a < 1000 && b < 1000 && c < 1000 && d < 1000) }')"
	# the host itself may not hold the first (1,024 slurmd on 2 cores):
	# select/topomatch must not be slower to answer than cons_tres
	verdict "topomatch's p99 latency <= 1.1 x cons_tres'" "$(awk -v a="$c_p99" -v b="$c_q99" \
		-v c="$t_p99" -v d="$t_q99" 'BEGIN { print (c <= 1.1 * a && d <= 1.1 * b) }')"
	echo "slurm_scale throughput: $(($(date +%s) - T0)) s"
else
	rss() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { print r, h }' "/proc/$(ctld_pid)/status"; }
	# held jobs, RSS once the controller has saved its state
	# the worst case: every pattern at the cap (a 1,024-task all-to-all,
	# sparsified to fit), on nodes of 2 x 32 cores so that the jobs fit
	"$tm" gen alltoall --tasks 1024 >"$work/a2a.mat" || fail "topomatch gen failed"
	held() { # SHARE -> "rss-before rss-after hwm-after" in KiB
		local before after
		start topomatch 32
		sleep 2
		before=$(rss)
		"$load" --jobs "$jobs" --pattern-share "$1" --pattern-kib "$kib" \
			--pattern "$work/a2a.mat" --sizes 1024 --hold \
			--name "mem" >"$work/mem.ids" 2>"$work/mem.load" ||
			fail "submission failed: $(cat "$work/mem.load")"
		cat "$work/mem.load" >&2
		[ "$(squeue -h -t PD -o %i | wc -l)" -eq "$jobs" ] || fail "not all $jobs jobs are pending"
		sleep 15 # a state save or two (the held jobs are written to DIR/state)
		after=$(rss)
		echo "${before% *} $after"
		stop_cluster
	}
	echo "slurm_scale memory: $jobs held jobs of 1,024 tasks, select/topomatch, patterns" \
		"at their cap of $kib KiB"
	read -r n0 n1 nh < <(held 0)
	read -r p0 p1 ph < <(held 1)
	awk -v n0="$n0" -v n1="$n1" -v nh="$nh" -v p0="$p0" -v p1="$p1" -v ph="$ph" -v j="$jobs" 'BEGIN {
		printf "without patterns: slurmctld RSS %.0f -> %.0f MiB (peak %.0f)\n", n0 / 1024, n1 / 1024, nh / 1024
		printf "with patterns:    slurmctld RSS %.0f -> %.0f MiB (peak %.0f)\n", p0 / 1024, p1 / 1024, ph / 1024
		d = (p1 - p0) - (n1 - n0); dh = ph - nh
		printf "patterns cost %.0f MiB (%.1f KiB per job), peak %.0f MiB more\n", d / 1024, d / j, dh / 1024
		printf "at 10,000 jobs: %.0f MiB (target <= 512)\n", d / j * 10000 / 1024 }'
	verdict "RSS at 10,000 jobs <= 512 MiB" "$(awk -v a="$((p1 - p0 - n1 + n0))" -v j="$jobs" \
		'BEGIN { print (a / j * 10000 / 1024 <= 512) }')"
fi
[ ! -e "$work/bad" ]

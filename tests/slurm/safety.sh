#!/bin/bash
# tests/slurm/safety.sh BUILD_DIR - slurmctld's safety with select/topomatch
# on a real Slurm test cluster (contrib/testcluster: 16 nodes of 2 x 8
# cores under 4 leaf switches, select/topomatch, the SPANK plugin) of its
# own (TM_SAFETY_DIR, default /tmp/tm-safety-test; ports TM_SAFETY_PORT-1
# .. TM_SAFETY_PORT+15, default 24000-24016).  issue 9 point 3.
#  (a) corrupted and oversized patterns in spank_job_env, crafted through
#      the Slurm API by safety_forge.c (bad magic, version, header, names,
#      counts and indices; truncated, extended, mixed and flipped data;
#      payloads with overflowing counts and varints, NaN, infinite,
#      negative or zero weights, out-of-range columns, trailing bytes; a
#      task count other than the job's; random text, payloads and rows;
#      entries over the decoder's limits: 65,536 bytes in one, 524,288 in
#      all, 65,535 entries, MaxTasks=4096 tasks; 70,000 entries, more than
#      the plugin reads): each job tested as `sbatch --test-only` gets
#      cons_tres' own nodes (the job without a pattern's) while a correct
#      pattern gets others; each job runs to completion on sane nodes;
#      slurmctld's log and the job's SystemComment give the decoder's
#      reason; a pattern behind 4,000 other entries and patterns of weights
#      near DBL_MAX or 2^-1022 are mapped; slurmctld stays the same process
#      and answers;
#  (b) a burst of TM_SAFETY_BURST (default 1000) `sbatch --comm-pattern`
#      in a tight loop (jobs of 4 and 8 tasks): `scontrol ping` sampled all along
#      answers UP every time, 95 % under 1 s, none over 3 s (ping_ok); every job is accepted, found
#      afterwards (squeue; finished jobs stay MinJobAge=300 s), COMPLETED,
#      and got a decision from the plugin; a 50-task job array with a
#      pattern: all tasks complete, the pattern reaches the plugin;
#  (c) kill -9 of slurmctld after half of 200 submissions with patterns
#      (waiting first until slurmctld has saved a state that holds the
#      first half), restart from its StateSaveLocation, the other half
#      submitted: all 200 jobs and 3 held probe jobs are kept; after the
#      restart the plugin maps each job of the first half (its pattern came
#      back with the job), and each released probe gets the nodes its
#      pattern wants (n[005-008] with n003-n004 and n010-n013 busy),
#      not cons_tres' n[001-002,009,014];
#  (c') kill -9 while a submitter is running: every job acknowledged before
#      the state save that preceded the last one on disk is kept, with its
#      pattern; the jobs acknowledged later and lost are the ones slurmctld
#      itself purged as defunct on restart (Slurm 22.05 saves its job state
#      at most every 5 s, SAVE_MAX_WAIT in src/slurmctld/state_save.c: what
#      it accepted since then dies with a kill -9, the plugin or not), counted;
#  (d) three pending jobs whose TOPOMATCH_PATTERN_0 is 64 MiB and one with
#      2^20 other spank_job_env entries: as they start, the plugin rejects the first,
#      does not read the last (more entries than a pattern comes with,
#      said in its SystemComment), and costs nothing per scheduling attempt
#      (main and backfill cycles under 250 ms; select_topomatch.c once
#      hashed every pattern entry whole at every job test: 1.4 s per
#      backfill cycle; and scanned every entry: 65 ms per job of 2 million),
#      `scontrol ping` answers as in (b), `squeue` in under 1 s, the jobs then run.
# Prints "slurm: N passed, M failed"; exits 77 when Slurm is not installed.
# Environment: TM_SAFETY_DIR, TM_SAFETY_PORT, TM_SAFETY_BURST,
# TM_SAFETY_SEED (the forged cases' seed, default 1 so that check.sh gives the
# same verdict on the same code; another seed explores), keep=1 leaves the
# cluster running.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: safety.sh BUILD_DIR}" && pwd)
dir=${TM_SAFETY_DIR:-/tmp/tm-safety-test}
port=${TM_SAFETY_PORT:-24001}
burst=${TM_SAFETY_BURST:-1000}
seed=${TM_SAFETY_SEED:-1}
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

for p in slurmctld slurmd sbatch scontrol squeue sdiag munged; do
	if ! command -v "$p" >/dev/null 2>&1; then
		echo "SKIP - Slurm is not installed (no $p): safety.sh needs slurmctld slurmd slurm-client munge"
		echo "slurm: 0 passed, 0 failed"
		exit 77
	fi
done

# shellcheck source=lib.sh
. "$top/tests/slurm/lib.sh"
# tc_is_ours, tc_start_ctld: to kill and restart only our own slurmctld
# shellcheck source=../../contrib/testcluster/lib.sh
. "$top/contrib/testcluster/lib.sh"

need_select_plugin safety.sh
work=$(mktemp -d)
bg_pids=()
stopped=0
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	local p
	touch "$work/stop" 2>/dev/null
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ "$stopped" = 0 ] && [ -z "${keep:-}" ]; then
		"$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
t_start=$(date +%s)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base "$port" --restart --ctld-debug debug \
	--sched-params bf_interval=1 --select-dir "$select_dir" --spank "$spank" --topomatch-conf \
	--topomatch "$tm" >"$work/start.log" 2>&1 || {
	cat "$work/start.log"
	not_ok "test cluster starts"
	finish
}
ok "test cluster starts with select/topomatch and the SPANK plugin ($dir, ports $((port - 1))-$((port + 15)))"
export SLURM_CONF=$dir/slurm.conf
unset SLURM_JOB_ID SLURM_JOBID SLURM_HOSTFILE 2>/dev/null
log=$dir/log/slurmctld.log
cd "$work" || exit 1

ctld_pid() { awk '$2 == "slurmctld" { p = $1 } END { print p }' "$dir/pids"; }
ctld=$(ctld_pid)
# the controller: the same process as `ctld`, answering, nothing fatal in its log
healthy() {
	local bad
	bad=$(grep -E 'fatal:|Segmentation|SIGSEGV|SIGABRT|Aborted|assert' "$log" | head -3)
	if tc_is_ours "$ctld" slurmctld "" "$dir" && scontrol ping 2>/dev/null | grep -q 'is UP' &&
		[ -z "$bad" ]; then
		ok "$1: slurmctld (pid $ctld) alive and answering, nothing fatal in its log"
	else
		not_ok "$1: slurmctld pid $ctld: $(scontrol ping 2>&1 | head -1); $bad"
	fi
}

# Sample `scontrol ping` every 0.25 s until $work/stop-ping: "MS UP|DOWN" lines.
ping_start() {
	rm -f "$work/stop-ping"
	(
		while [ ! -e "$work/stop-ping" ] && [ ! -e "$work/stop" ]; do
			s=$(date +%s%N)
			out=$(timeout 20 scontrol ping 2>&1)
			e=$(date +%s%N)
			case $out in *"is UP"*) st=UP ;; *) st=DOWN ;; esac
			echo "$(((e - s) / 1000000)) $st"
			sleep 0.25
		done >"$1"
	) &
	ping_pid=$!
	bg_pids+=("$ping_pid")
}
ping_stop() { touch "$work/stop-ping"; wait "$ping_pid" 2>/dev/null; }
# "N samples, max M ms, mean A ms, D not UP" of a sample file
ping_stats() {
	awk '{ n++; s += $1; if ($1 > m) m = $1; if ($2 != "UP") d++ }
		END { printf "%d samples, max %d ms, mean %.0f ms, %d not UP", n, m, n ? s / n : 0, d }' "$1"
}
# ping_ok FILE: at least 4 samples, every one UP, 95 % of them under 1 s and
# none over 3 s.  `scontrol ping` takes no slurmctld lock: a slow answer is
# the 2 CPUs busy elsewhere (other builds on the machine took a few samples
# of a 1,000-job burst to 1.1-1.5 s), while a controller blocked behind the
# plugin (its RPC threads stuck on the job lock) misses pings or answers
# after seconds.
ping_ok() {
	sort -n "$1" | awk '{ n++; v[n] = $1; if ($2 != "UP") down++ }
		END { if (n < 4 || down || v[n] >= 3000) exit 1; exit !(v[int(0.95 * n)] < 1000) }'
}

# states of jobs by name: "NAME ID STATE NODELIST" (finished ones included)
jobs_named() { squeue -h -t all -o '%j %i %T %N' | awk -v p="$1" 'index($1, p) == 1'; }
# wait until no job whose name starts with $1 is pending, running or completing (S s at most)
names_gone() { [ -z "$(squeue -h -t PD,R,CG,S -o '%j' | awk -v p="$1" 'index($1, p) == 1')" ]; }
wait_names_done() { wait_for "$2" names_gone "$1"; }
ids_gone() { [ -z "$(squeue -h -t PD,R,CG,S -j "$(echo "$@" | tr ' ' ',')" -o %i 2>/dev/null)" ]; }
wait_ids_done() { wait_for 60 ids_gone "$@"; } # ID...
# the log from byte $1 on
log_from() { tail -c +"$1" "$log"; }
log_size() { stat -c %s "$log"; }
# a job of the whole cluster, to keep what follows pending
hold_cluster() {
	local id
	id=$(sbatch --parsable -J blocker -N 16 --exclusive -o /dev/null --wrap "sleep 900")
	wait_for 20 state_is RUNNING "$id"
	echo "$id"
}

"$tm" gen hierarchical --arity 2,2 --out "$work/p4.mat"
"$tm" gen hierarchical --arity 2,4 --out "$work/p8.mat"
"$tm" gen hierarchical --arity 16,4 --shuffle 5 --out "$work/groups.mat"
forge=$work/safety_forge
if ! gcc -std=gnu11 -O1 "$top/tests/slurm/safety_forge.c" -lslurm -lm -o "$forge" 2>"$work/cc.log"; then
	not_ok "safety_forge builds: $(cat "$work/cc.log")"
	forge=
fi

# ---------------------------------------------------------------------- (a)
# case -> what the decoder says (a substring of the job's SystemComment and
# of its slurmctld log line); "MAPPED": a correct pattern, mapped
declare -A why=(
	[valid]=MAPPED [huge-weights]=MAPPED [tiny-weights]=MAPPED
	[valid8]="the pattern has 8 tasks, the job"
	[empty]="pattern entry 0: not a topomatch pattern (bad magic)"
	[magic]="pattern entry 0: not a topomatch pattern (bad magic)"
	[trunc-header]="truncated header (20 of 38 characters)"
	[truncated]="truncated or extended"
	[extended]="truncated or extended"
	[version]="unsupported format version 4"
	[header-hex]="pattern entry 0: malformed header"
	[count]="part of a 2-entry pattern, but 1 entries were given"
	[index]="holds part 1 (entries missing or out of order)"
	[gap]="TOPOMATCH_PATTERN_1 set, but 1 entries are not numbered"
	[dup]="TOPOMATCH_PATTERN_0 set twice"
	[badname]="a TOPOMATCH_PATTERN_ name without a valid index"
	[leading-zero]="a TOPOMATCH_PATTERN_ name without a valid index"
	[mixed]="belongs to another pattern"
	[flip]="checksum mismatch"
	[badchar]="invalid character at offset"
	[padding]="non-zero padding bits"
	[declared-huge]="where the header announces 4294967295 bytes"
	[no-data]="pattern entry 0: no data"
	[ntasks0]="pattern: no task"
	[ntasks-huge]="4611686018427387904 tasks, more than the limit of 4096"
	[ntasks-u64max]="18446744073709551615 tasks, more than the limit of 4096"
	[ntasks-over]="4097 tasks, more than the limit of 4096"
	[varint-overflow]="task count: number too large"
	[varint-nonminimal]="task count: non-minimal number"
	[nnz-overflow]="18446744073709551615 edges cannot fit"
	[nnz-over-input]="edge counts 3 kept of 1 out of range"
	[input-over-pairs]="edge counts 3 kept of 7 out of range"
	[edges-over]="70000 edges, more than the limit of 65536, what JobBudgetMs maps (topomatch.conf)"
	[wmax-nan]="largest weight nan is not a finite number"
	[wmax-negative]="largest weight -1 is not a finite number"
	[wmax-inf]="largest weight inf is not a finite number"
	[wmax-zero]="largest weight 0 is not a finite number"
	[win-nan]="inconsistent weight totals (3 kept of nan)"
	[wkept-negative]="inconsistent weight totals (-3 kept of 3)"
	[wkept-over]="inconsistent weight totals (1e+09 kept of 3)"
	[sf-nan]="sparse factor nan not in [0, 1]"
	[sf-big]="sparse factor 2 not in [0, 1]"
	[column]="column out of range"
	[row-over]="3 edges, more than the 1 the header announces"
	[rows-under]="rows hold 1 edges, the header announces 3"
	[code-big]="invalid weight code 70000"
	[code-same]="invalid weight code 0"
	[trailing]="bytes of trailing garbage after the last row"
	[truncated-payload]="largest weight: truncated"
	[weight-overflow]="weights sum to more than the largest double"
	[random-text]=ANY [random-payload]=ANY [random-rows]=ANY
	[entry-over]="pattern entry 0: longer than the limit of 65536 bytes"
	[total-over]="more than the limit of 524288 bytes in all"
	[many]="more than the limit of 524288 bytes in all"
	[too-many]="spank_job_env has 70000 entries, more than the 69631 a pattern comes with: not read"
	[crowded]=MAPPED
	[decision]=MAPPED
)
cases=(valid valid8 empty magic trunc-header truncated extended version header-hex count index gap
	dup badname leading-zero mixed flip badchar padding declared-huge no-data ntasks0 ntasks-huge
	ntasks-u64max ntasks-over varint-overflow varint-nonminimal nnz-overflow nnz-over-input
	input-over-pairs edges-over wmax-nan wmax-negative wmax-inf wmax-zero win-nan wkept-negative wkept-over
	sf-nan sf-big column row-over rows-under code-big code-same trailing truncated-payload
	weight-overflow huge-weights tiny-weights entry-over total-over many too-many crowded decision
	random-text random-text random-text random-text random-text
	random-payload random-payload random-payload random-payload random-payload
	random-rows random-rows random-rows random-rows random-rows)

# check_reason CASE ID TEXT: TEXT (SystemComment, or the log) says what
# the decoder found; MAPPED cases have a decision in the log instead
reason_ok() {
	local c=$1 id=$2 text=$3 w=${why[$1]}
	case $w in
	MAPPED) grep -qE "JobId=$id: [0-9]+ tasks mapped by |JobId=$id: .*budget" "$log" ;;
	ANY) case $text in *"topomatch: pattern rejected: "* | *"topomatch: the pattern has "*) return 0 ;; esac; return 1 ;;
	*) case $text in *"topomatch: "*"$w"*) return 0 ;; esac; return 1 ;;
	esac
}

if [ -n "$forge" ]; then
	echo "# forged cases with seed $seed (TM_SAFETY_SEED=N for others)"
	# n003, n004, n010-n013 busy: 64 tasks get n[001-002,009,014] from
	# cons_tres, n[005-008] (one switch) from a pattern (tests/slurm/placement.sh)
	blockers=()
	for n in n003 n004 n010 n011 n012 n013; do
		blockers+=("$(sbatch --parsable -J blocker -w "$n" --exclusive -o /dev/null --wrap "sleep 900")")
	done
	wait_for 20 running_is 6 -n blocker
	expect_eq "(a) 6 blocker jobs run" 6 "$(squeue -h -t R -n blocker | wc -l | tr -d ' ')"

	# --test-only (will-run) of each case with 64 tasks
	default=$("$forge" -T -n 64 none | awk '{ print $2 }')
	expect_eq "(a) without a pattern, cons_tres' nodes" "n[001-002,009,014]" "$default"
	"$forge" -T -n 64 -r "$seed" "${cases[@]}" >"$work/a-test.txt" 2>"$work/a-test.err"
	expect_eq "(a) every case tested (will-run)" "${#cases[@]}" "$(grep -cE ' [0-9]+$' "$work/a-test.txt")"
	while read -r c nodes id; do
		# the decision (at debug: the cluster logs them), not the steps after it
		line=$(grep -E "select/topomatch: tm_(note|map): JobId=$id: " "$log" |
			sed 's/.*JobId=[0-9]*: /topomatch: /' | tail -n 1)
		case $c in
		valid | crowded | decision) expect_eq "(a) test-only, $c: a correct pattern (control): the pattern's nodes" "n[005-008]" "$nodes" ;;
		huge-weights | tiny-weights)
			# they decode: mapped, whatever the nodes (a chain over 4 nodes)
			if reason_ok "$c" "$id" "" && [ "$(scontrol show hostnames "$nodes" | grep -cvE '^n0(0[3-4]|1[0-3])$')" -ge 4 ]; then
				ok "(a) test-only, $c: mapped onto $nodes"
			else
				not_ok "(a) test-only, $c: $nodes, log: $line"
			fi
			;;
		*)
			if [ "$nodes" = "$default" ] && reason_ok "$c" "$id" "$line"; then
				ok "(a) test-only, $c: cons_tres' nodes; log: ${line#topomatch: }"
			else
				not_ok "(a) test-only, $c: nodes $nodes (cons_tres: $default); log: ${line:-nothing for JobId=$id}; expected: ${why[$c]}"
			fi
			;;
		esac
	done <"$work/a-test.txt"

	# real jobs of 4 tasks: they run to completion
	"$forge" -n 4 -J a- -r "$seed" "${cases[@]}" >"$work/a-run.txt" 2>"$work/a-run.err"
	expect_eq "(a) every case submitted" "${#cases[@]}" "$(grep -cE ' [0-9]+$' "$work/a-run.txt")"
	# shellcheck disable=SC2046
	wait_ids_done $(awk '$2 != "-" { print $2 }' "$work/a-run.txt") ||
		not_ok "(a) jobs still queued after 60 s: $(squeue -h -n "$(awk '{ printf "a-%s,", $1 }' "$work/a-run.txt")" | head -5)"
	while read -r c id; do
		[ "$id" = - ] && continue
		info=$(scontrol show job -o "$id" 2>&1)
		st=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$info")
		ec=$(sed -n 's/.* ExitCode=\([0-9:]*\) .*/\1/p' <<<"$info")
		nodes=$(sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p' <<<"$info")
		sc=$(sed -n 's/.* SystemComment=\(.*\) StdErr=.*/\1/p; s/.* SystemComment=\(.*\)$/\1/p' <<<"$info" | head -1)
		nn=$(scontrol show hostnames "$nodes" 2>/dev/null | grep -cE '^n0(0[1-9]|1[0-6])$')
		busy=$(scontrol show hostnames "$nodes" 2>/dev/null | grep -cE '^n0(0[3-4]|1[0-3])$')
		logged=$(grep "topomatch.*JobId=$id: " "$log" | grep -cF -- "${why[$c]}")
		case ${why[$c]} in MAPPED | ANY) logged=1 ;; esac
		if [ "$st" = COMPLETED ] && [ "$ec" = 0:0 ] && [ "$nn" -ge 1 ] && [ "$nn" -le 4 ] &&
			[ "$busy" -eq 0 ] && reason_ok "$c" "$id" "$sc" && [ "$logged" -ge 1 ]; then
			ok "(a) $c: job $id COMPLETED on $nodes${sc:+; $sc}"
		else
			not_ok "(a) $c: job $id $st exit $ec on '$nodes'; SystemComment '$sc'; logged $logged; expected: ${why[$c]}"
		fi
	done <"$work/a-run.txt"
	# a user's TOPOMATCH_DECISION never reaches sacct: the plugin's own does
	did=$(awk '$1 == "decision" { print $2 }' "$work/a-run.txt")
	# (SystemComment through EpilogSlurmctld, AdminComment from slurmctld;
	# slurmdbd may take a while with the cluster this busy)
	for field in SystemComment AdminComment; do
		acct=
		for _ in $(seq 150); do
			acct=$(sacct -n -X -P -j "$did" -o "$field" 2>/dev/null)
			case $acct in *topomatch:*) break ;; esac
			sleep 0.2
		done
		expect_contains "(a) decision: sacct -o $field has the plugin's line, not the user's TOPOMATCH_DECISION" \
			"topomatch: " "$(grep -v forged <<<"$acct")"
	done
	# EpilogSlurmctld runs for every job (the test cluster stores decisions
	# for sacct): slurmctld 22.05 crashed building its environment from
	# such entries until select/topomatch dropped them (SECURITY.md)
	expect_eq "(a) entries that would crash slurmctld's script environment are dropped, logged" yes \
		"$(grep -q 'spank_job_env entries dropped' "$log" && echo yes || echo no)"
	healthy "(a) after ${#cases[@]} forged patterns"
	scancel "${blockers[@]}"
	wait_names_done blocker 30
fi

# ---------------------------------------------------------------------- (b)
# a job the plugin decided for: its pattern mapped (and kept, or beaten
# by cons_tres' own nodes), or a budget note
decided='JobId=[0-9]+: ([0-9]+ tasks mapped by|.*budget|cons_tres chooses)'
ping_start "$work/b-ping.txt"
sleep 1
t0=$(now)
# one tight loop, as a user's script would (two at once on this 2-CPU
# machine took the slowest ping from ~0.45 s to ~0.6-0.8 s, the plugin
# on or off alike)
for ((k = 1; k <= burst; k++)); do
	if ((k % 2)); then
		id=$(sbatch --parsable -J "b-$k" -n 4 --comm-pattern="$work/p4.mat" -o /dev/null --wrap true 2>>"$work/b-sub.err") || id=-
	else
		id=$(sbatch --parsable -J "b-$k" -n 8 --comm-pattern="$work/p8.mat" -o /dev/null --wrap true 2>>"$work/b-sub.err") || id=-
	fi
	echo "$k $id"
done >"$work/b-sub.txt"
t_sub=$(since "$t0")
accepted=$(awk '$2 ~ /^[0-9]+$/' "$work/b-sub.txt" | wc -l)
expect_eq "(b) $burst submissions with --comm-pattern in a tight loop accepted (in $t_sub s)" "$burst" "$accepted"
t_started=""
for ((i = 0; i < 600; i++)); do
	left=$(squeue -h -t PD -o %j | grep -c '^b-')
	[ -z "$t_started" ] && [ "$left" -eq 0 ] && t_started=$(since "$t0")
	[ "$left" -eq 0 ] && [ "$(squeue -h -t R,CG -o %j | grep -c '^b-')" -eq 0 ] && break
	sleep 0.5
done
t_done=$(since "$t0")
ping_stop
stats=$(ping_stats "$work/b-ping.txt")
if ping_ok "$work/b-ping.txt"; then
	ok "(b) scontrol ping during the burst, always UP, 95 % under 1 s, none over 3 s: $stats"
else
	not_ok "(b) scontrol ping during the burst: $stats; slowest: $(sort -rn "$work/b-ping.txt" | head -3 | tr '\n' ' ')"
fi
echo "# (b) $burst jobs: submitted in $t_sub s, all started after ${t_started:-?} s, all done after $t_done s"
jobs_named b- >"$work/b-jobs.txt"
dups=$(awk '{ print $1 }' "$work/b-jobs.txt" | sort | uniq -d | wc -l)
found=$(awk '{ print $1 }' "$work/b-jobs.txt" | sort -u | wc -l)
expect_eq "(b) every job found afterwards, once" "$burst 0" "$found $dups"
# every accepted id is the job of that name
bad=$(awk 'NR == FNR { id["b-" $1] = $2; next } id[$1] != $2 { print $1 }' "$work/b-sub.txt" "$work/b-jobs.txt" | head -3)
expect_eq "(b) each job has the id sbatch printed" "" "$bad"
expect_eq "(b) all COMPLETED" "$burst" "$(awk '$3 == "COMPLETED"' "$work/b-jobs.txt" | wc -l | tr -d ' ')"
# the plugin decided for each
grep -oE "$decided" "$log" | sed 's/JobId=\([0-9]*\):.*/\1/' |
	sort -u >"$work/b-decided.txt"
undecided=$(awk '{ print $2 }' "$work/b-jobs.txt" | sort | comm -23 - "$work/b-decided.txt" | wc -l)
budget=$(grep -c 'budget of .* is used up\|exceeded its budget' "$log")
expect_eq "(b) the plugin decided for every job ($budget budget notes in the log)" 0 "$undecided"
# a job array with a pattern: the pattern travels to every task
aid=$(sbatch --parsable -J b-array --array=1-50 -n 4 --comm-pattern="$work/p4.mat" -o /dev/null --wrap true)
wait_names_done b-array 60
expect_eq "(b) a 50-task job array with a pattern: all COMPLETED" 50 \
	"$(squeue -h -t all -j "$aid" -o %T | grep -c COMPLETED)"
# the pending part of an array is one record (JobId=ID_*) until a task
# starts; a decision repeated on the same free PUs comes from the cache
# (logged at debug level only): at least one decision per array
adec=$(grep -cE "JobId=${aid}_([0-9]+|\\*)(\\([0-9]+\\))?: [0-9]+ tasks mapped by" "$log")
if [ "$adec" -ge 1 ]; then
	ok "(b) ... its pattern reached the plugin: $adec decisions for 50 tasks"
else
	not_ok "(b) no decision of the plugin for the job array $aid"
fi
healthy "(b) after the burst"

# ---------------------------------------------------------------------- (c)
# kill -9 slurmctld, restart it from StateSaveLocation (its pid replaced in
# DIR/pids, as restart-controller.sh does after a SIGTERM)
kill9_restart() {
	local old=$ctld
	tc_is_ours "$old" slurmctld "" "$dir" || { not_ok "$1: no slurmctld of ours to kill"; return 1; }
	kill -KILL "$old"
	for _ in $(seq 50); do tc_alive "$old" || break; sleep 0.1; done
	kill_time=$(now)
	state_after_kill=$(stat -c %.9Y "$dir/state/job_state")
	grep -v "^$old slurmctld" "$dir/pids" >"$dir/pids.new"
	mv "$dir/pids.new" "$dir/pids"
	restart_from=$(($(log_size) + 1))
	if ctld=$(tc_start_ctld "$dir" 2>"$work/restart.err"); then
		ok "$1: slurmctld killed (-9, pid $old) and restarted from $dir/state (pid $ctld)"
	else
		not_ok "$1: restart after kill -9: $(cat "$work/restart.err")"
		finish
	fi
	wait_registered
}
# the restarted slurmctld asks every slurmd to register again; a batch
# script launched while its node answers can be purged by Slurm 22.05's
# slurmd (_handle_stray_script: the step's socket is not listening yet),
# so the held jobs are released only once every node has registered (the
# restarted controller's RPC counts, from sdiag, start at zero)
wait_registered() {
	local want got i
	want=$(sinfo -h -N -o %N | sort -u | wc -l)
	for ((i = 0; i < 600; i++)); do
		got=$(sdiag | awk '$1 == "MESSAGE_NODE_REGISTRATION_STATUS" { sub(/.*count:/, ""); print $1 + 0; exit }')
		[ "${got:-0}" -ge "$want" ] && return 0
		sleep 0.1
	done
	echo "# only ${got:-0} of $want nodes registered 60 s after the restart"
}
# wait until slurmctld has saved a job state holding every job accepted so
# far: a save written after now, then the next one (which began after it)
wait_saved() {
	local t m1 i
	t=$(now)
	for ((i = 0; i < 100; i++)); do
		scontrol update jobid="$1" comment="save-$i" 2>/dev/null # a change to save
		m1=$(stat -c %.9Y "$dir/state/job_state")
		awk -v a="$m1" -v b="$t" 'BEGIN { exit !(a > b) }' && break
		sleep 0.5
	done
	for ((i = 0; i < 100; i++)); do
		scontrol update jobid="$1" comment="save2-$i" 2>/dev/null
		awk -v a="$(stat -c %.9Y "$dir/state/job_state")" -v b="$m1" 'BEGIN { exit !(a > b) }' && return 0
		sleep 0.5
	done
	return 1
}
# jobs of the given ids mapped by the plugin in the log after byte $1
mapped_after() { # FROM ID...
	local from=$1
	shift
	log_from "$from" | grep -oE "$decided" |
		sed 's/JobId=\([0-9]*\):.*/\1/' | sort -u >"$work/mapped.txt"
	printf '%s\n' "$@" | sort -u | comm -12 - "$work/mapped.txt" | wc -l
}

blk=$(hold_cluster)
probes=()
for k in 1 2 3; do
	probes+=("$(sbatch --parsable -H -J "c-probe-$k" -n 64 --comm-pattern="$work/groups.mat" -o /dev/null --wrap "sleep 1")")
done
for ((k = 1; k <= 100; k++)); do
	echo "$k $(sbatch --parsable -J "c-$k" -n 4 --comm-pattern="$work/p4.mat" -o /dev/null --wrap true 2>/dev/null || echo -)"
done >"$work/c-first.txt"
t0=$(now)
if wait_saved "$blk"; then
	ok "(c) 100 submissions with patterns, then slurmctld saved its state (after $(since "$t0") s)"
else
	not_ok "(c) slurmctld saved no state in 100 s"
fi
kill9_restart "(c) after 100 of 200 submissions"
for ((k = 101; k <= 200; k++)); do
	echo "$k $(sbatch --parsable -J "c-$k" -n 4 --comm-pattern="$work/p4.mat" -o /dev/null --wrap true 2>/dev/null || echo -)"
done >"$work/c-second.txt"
expect_eq "(c) all 200 submissions accepted" 200 "$(cat "$work/c-first.txt" "$work/c-second.txt" | awk '$2 ~ /^[0-9]+$/' | wc -l | tr -d ' ')"
scancel "$blk"
wait_names_done c- 120
jobs_named c- >"$work/c-jobs.txt"
expect_eq "(c) after kill -9 and restart, all 200 jobs kept, each once, all COMPLETED" "200 0 200" \
	"$(grep -vc '^c-probe' "$work/c-jobs.txt") $(awk '{ print $1 }' "$work/c-jobs.txt" | sort | uniq -d | wc -l) $(awk '$1 !~ /^c-probe/ && $3 == "COMPLETED"' "$work/c-jobs.txt" | wc -l)"
bad=$(awk 'NR == FNR { id["c-" $1] = $2; next } ($1 in id) && id[$1] != $2 { print $1 }' \
	"$work/c-first.txt" "$work/c-jobs.txt" | head -3)
expect_eq "(c) the first 100 kept their ids" "" "$bad"
# shellcheck disable=SC2046
expect_eq "(c) the plugin maps each of the first 100 after the restart: their patterns came back" 100 \
	"$(mapped_after "$restart_from" $(awk '{ print $2 }' "$work/c-first.txt"))"
expect_eq "(c) the 3 held probes kept, still held" "3" \
	"$(squeue -h -t PD -o '%j %r' | grep -c '^c-probe-[123] JobHeld')"
# the probes, one at a time, with n003-n004 and n010-n013 busy: their
# pattern's nodes (one switch), not cons_tres' n[001-002,009,014]
blockers=()
for n in n003 n004 n010 n011 n012 n013; do
	blockers+=("$(sbatch --parsable -J blocker -w "$n" --exclusive -o /dev/null --wrap "sleep 900")")
done
wait_for 20 running_is 6 -n blocker
started() { state_is RUNNING "$1" || state_is COMPLETED "$1"; }
for p in "${probes[@]}"; do
	wait_for 30 scontrol release "$p" # refused while its database index is set
	wait_for 30 started "$p"
	expect_eq "(c) probe $p, submitted before the kill: its pattern's nodes" "n[005-008]" "$(squeue -h -t all -j "$p" -o %N)"
	wait_ids_done "$p"
done
scancel "${blockers[@]}"
wait_names_done blocker 30
healthy "(c) after kill -9 and restart"

# ---------------------------------------------------------------------- (c')
blk=$(hold_cluster)
# the job state file's successive versions (mtime), until $work/stop-saves
(
	last=
	while [ ! -e "$work/stop-saves" ] && [ ! -e "$work/stop" ]; do
		m=$(stat -c %.9Y "$dir/state/job_state" 2>/dev/null)
		[ "$m" != "$last" ] && echo "$m" && last=$m
		sleep 0.1
	done >"$work/saves.txt"
) &
saves_pid=$!
bg_pids+=("$saves_pid")
# a steady stream: 200 submissions, about 10 a second
(
	for ((k = 1; k <= 200; k++)); do
		id=$(sbatch --parsable -J "d-$k" -n 4 --comm-pattern="$work/p4.mat" -o /dev/null --wrap true 2>/dev/null) || id=-
		echo "$k $id $(now)"
		sleep 0.07
	done >"$work/d-sub.txt"
) &
sub=$!
bg_pids+=("$sub")
for _ in $(seq 600); do
	[ "$(wc -l <"$work/d-sub.txt")" -ge 100 ] && break
	sleep 0.1
done
kill9_restart "(c') while a submitter runs ($(wc -l <"$work/d-sub.txt") of 200 submitted)"
wait "$sub"
touch "$work/stop-saves"
wait "$saves_pid"
# the state on disk at the kill, and the save before it: whatever was
# accepted before that one ended is in the state on disk
prev=$(awk -v f="$state_after_kill" '$1 + 0 < f + 0 { p = $1 } END { print p }' "$work/saves.txt")
scancel "$blk"
wait_names_done d- 120
jobs_named d- >"$work/d-jobs.txt"
awk -v k="$kill_time" -v p="${prev:-0}" 'FILENAME == ARGV[1] { have[$1] = 1; next }
	$2 ~ /^[0-9]+$/ {
		name = "d-" $1
		if ($3 < p) { old++; if (!(name in have)) oldlost++ }
		else if ($3 < k) { win++; if (!(name in have)) { winlost++; print $2 > "/dev/stderr" } }
		else { after++; if (!(name in have)) afterlost++ }
	}
	$2 == "-" { failed++ }
	END { printf "%d %d %d %d %d %d %d\n", old, oldlost, win, winlost, after, afterlost, failed }' \
	"$work/d-jobs.txt" "$work/d-sub.txt" >"$work/d-count.txt" 2>"$work/d-lost.txt"
read -r old oldlost win winlost after afterlost subfail <"$work/d-count.txt"
expect_eq "(c') the $old jobs accepted before the second-last state save are all kept" 0 "$oldlost"
expect_eq "(c') the $after jobs accepted after the restart are all kept" 0 "$afterlost"
purged=0
while read -r id; do
	log_from "$restart_from" | grep -q "Purged files for defunct batch JobId=$id\$" && purged=$((purged + 1))
done <"$work/d-lost.txt"
expect_eq "(c') of the $win accepted in the last $(awk -v k="$kill_time" -v p="${prev:-$kill_time}" 'BEGIN { printf "%.1f", k - p }') s before the kill, the $winlost lost are those slurmctld purged as defunct (its unsaved window, not the plugin's)" \
	"$winlost" "$purged"
echo "# (c') kill -9 with a submitter running: $oldlost of $old older jobs lost, $winlost of $win in slurmctld's unsaved window lost, $afterlost of $after later ones lost, $subfail submissions refused while it was down"
# the ids of the kept jobs accepted before the kill
awk -v k="$kill_time" 'FILENAME == ARGV[1] { id[$1] = $2; next }
	$2 ~ /^[0-9]+$/ && $3 < k && ("d-" $1) in id { print id["d-" $1] }' \
	"$work/d-jobs.txt" "$work/d-sub.txt" >"$work/d-kept.txt"
# shellcheck disable=SC2046
expect_eq "(c') each kept job accepted before the kill is mapped after the restart (its pattern is back)" \
	"$(wc -l <"$work/d-kept.txt" | tr -d ' ')" "$(mapped_after "$restart_from" $(cat "$work/d-kept.txt"))"
healthy "(c') after kill -9 and restart"

# ---------------------------------------------------------------------- (d)
if [ -n "$forge" ]; then
	blk=$(hold_cluster)
	sdiag -r >/dev/null
	ping_start "$work/d-ping.txt"
	from=$(($(log_size) + 1))
	"$forge" -n 16 -g 64 -J e- giant giant giant >"$work/e.txt" 2>"$work/e.err"
	"$forge" -n 16 -g 1 -J e- wide >>"$work/e.txt" 2>>"$work/e.err"
	expect_eq "(d) 3 jobs with a 64 MiB TOPOMATCH_PATTERN_0 and one with 1,048,577 entries accepted" 4 \
		"$(grep -cE ' [0-9]+$' "$work/e.txt")"
	# backfill runs only after a change: change the blocker's comment.
	# Pending behind the blocker, the jobs are not mapped (backfill plans
	# with cons_tres; the main scheduler's job test offers the plugin no
	# free cores): their patterns are read when they can start
	for i in $(seq 60); do
		scontrol update jobid="$blk" comment="d-$i" 2>/dev/null
		[ "$(sdiag | sed -n 's/^[[:space:]]*Total cycles: *//p' | sed -n 2p)" -ge 5 ] && break
		sleep 0.5
	done
	sq=0
	for _ in 1 2 3; do
		s=$(date +%s%N)
		squeue >/dev/null
		t=$((($(date +%s%N) - s) / 1000000))
		[ "$t" -gt "$sq" ] && sq=$t
	done
	ping_stop
	main=$(sdiag | sed -n 's/^[[:space:]]*Max cycle: *//p' | sed -n 1p)
	bf=$(sdiag | sed -n 's/^[[:space:]]*Max cycle: *//p' | sed -n 2p)
	bfn=$(sdiag | sed -n 's/^[[:space:]]*Total cycles: *//p' | sed -n 2p)
	if [ "${main:-999999999}" -lt 250000 ] && [ "${bf:-999999999}" -lt 250000 ] && [ "${bfn:-0}" -ge 5 ]; then
		ok "(d) the pending 64 MiB patterns cost nothing per attempt: longest main cycle $((main / 1000)) ms, backfill $((bf / 1000)) ms ($bfn backfill cycles)"
	else
		not_ok "(d) scheduling cycles with 3 pending 64 MiB patterns: main ${main:-?} us, backfill ${bf:-?} us over ${bfn:-?} cycles (limit 250 ms)"
	fi
	stats=$(ping_stats "$work/d-ping.txt")
	if ping_ok "$work/d-ping.txt" && [ "$sq" -lt 1000 ]; then
		ok "(d) scontrol ping meanwhile: $stats; squeue under 1 s (slowest $sq ms)"
	else
		not_ok "(d) scontrol ping meanwhile: $stats; squeue slowest $sq ms"
	fi
	scancel "$blk"
	# shellcheck disable=SC2046
	wait_ids_done $(awk '{ print $2 }' "$work/e.txt")
	expect_eq "(d) when they start, each pattern is rejected, and why" 3 \
		"$(log_from "$from" | grep -c 'starts on .*; topomatch: pattern rejected: pattern entry 0: longer than the limit of 65536 bytes')"
	wid=$(awk '$1 == "wide" { print $2 }' "$work/e.txt")
	expect_contains "(d) the 1,048,577 entries are not read, and the job says so" \
		"topomatch: spank_job_env has 1048577 entries, more than the 69631 a pattern comes with: not read" \
		"$(scontrol show job "$wid")"
	expect_eq "(d) then they run to completion" 4 \
		"$(squeue -h -t all -j "$(awk '{ printf "%s,", $2 }' "$work/e.txt")" -o %T | grep -c COMPLETED)"
	healthy "(d) after the 64 MiB patterns"
fi

echo "# safety.sh ran for $(($(date +%s) - t_start)) s"
stopped=1
finish

# tests/slurm/lib.sh - what the Slurm integration tests share: the build's
# programs, counted assertions, the closing line, waiting for a job.
# Sourced once top, build and dir (the test cluster's directory; rdir a
# second one, keep=1 to leave them running) are set.
# SPDX-License-Identifier: GPL-2.0-or-later
tm=$build/tools/topomatch
select_dir=$build/plugin/select/.libs
spank=$build/plugin/spank/.libs/spank_topomatch.so

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
expect_contains() { case $3 in *"$2"*) ok "$1" ;; *) not_ok "$1: '$2' not in: $3" ;; esac; }
# expect_match TITLE ERE TEXT: a line of TEXT matches ERE
expect_match() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: /$2/ not in: $3"; fi; }

# need_select_plugin NAME: exit with one failure when the build has no
# select_topomatch.so (configure found no Slurm source).
need_select_plugin() {
	[ -f "$select_dir/select_topomatch.so" ] && return 0
	echo "$1: $select_dir/select_topomatch.so was not built (no Slurm source?)" >&2
	echo "slurm: 0 passed, 1 failed"
	exit 1
}

# Stop the test clusters, print "slurm: N passed, M failed", exit.
finish() {
	local d
	if [ -z "${keep:-}" ]; then
		for d in "$dir" ${rdir:+"$rdir"}; do
			"$top/contrib/testcluster/stop.sh" --dir "$d" >/dev/null 2>&1
		done
	fi
	rm -rf "${work:-}"
	echo "slurm: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# submit J K: job J of a two-wave stream (tests/sim/plugin_match.sh,
# contention.sh), K whole nodes of 16 cores running `sleep`, with the
# pattern $work/pN.mtx when there is one of its N = 16 K tasks; returns once
# it runs (20 s at most), its Slurm id in slurm_id[J]
declare -A slurm_id
submit() {
	local j=$1 k=$2 n=$(($2 * 16)) opt=() id
	[ -f "$work/p$n.mtx" ] && opt=(--comm-pattern="$work/p$n.mtx")
	id=$(sbatch --parsable -N "$k" -n "$n" --exclusive -t 600 "${opt[@]}" -o /dev/null \
		--wrap "sleep 3600")
	slurm_id[$j]=$id
	expect_eq "job $j ($k nodes, ${opt[*]:-no pattern}) runs" RUNNING "$(wait_running "$id" 20)"
}

# wait_for SECONDS COMMAND...: 0 once COMMAND succeeds (tried every 0.2
# s), 1 when it has not after SECONDS
wait_for() {
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		"${@:2}" && return 0
		sleep 0.2
	done
	return 1
}
# state_is STATE JOBID: squeue gives the job that state
state_is() { [ "$(squeue -h -j "$2" -o %T)" = "$1" ]; }
# running_is N [SQUEUE-OPTION...]: N jobs (of those the options select) run
running_is() { [ "$(squeue -h -t R "${@:2}" | wc -l)" -eq "$1" ]; }
# queued_is N: N jobs in the queue, whatever their states
queued_is() { [ "$(squeue -h | wc -l)" -eq "$1" ]; }
gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }

# wait_running JOBID SECONDS: print the job's state once it is RUNNING, or
# its last state after SECONDS
wait_running() {
	wait_for "$2" state_is RUNNING "$1"
	squeue -h -j "$1" -o %T
}

# wait_done JOBID: 0 once the job has left the queue (30 s at most).
wait_done() { wait_for 30 gone "$1"; }

# placement_hb CLUSTER-DIR PATTERN PUS-PER-NODE FILE: hop-bytes (topomatch
# eval) of the "rank node cpu" lines of FILE read as a mapping, a node's
# CPU c being PU index * PUS-PER-NODE + c (index: its place among the
# cluster's node names, sorted)
placement_hb() {
	local -a all
	mapfile -t all < <(SLURM_CONF=$1/slurm.conf sinfo -h -N -o %N | sort -u)
	sort -n "$4" | awk -v names="${all[*]}" -v per="$3" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) idx[a[i]] = i - 1 }
		{ if (!($2 in idx)) exit 1; print idx[$2] * per + $3 }' >"$4.pu" || return 1
	"$tm" eval -t "$1/cluster.yaml" -c "$2" -s "$4.pu" --json |
		sed -n 's/.*"hop_bytes": \([0-9.e+]*\).*/\1/p'
}

# comment_hb JOBID: the hop-bytes select/topomatch's SystemComment gives
comment_hb() {
	scontrol show job "$1" |
		sed -n 's/^ *SystemComment=.*topomatch: [^ ]* mapped [0-9]* tasks onto [0-9]* nodes*: \([^ ]*\) hop-bytes.*/\1/p'
}

# same_hb A B: "yes" when two hop-bytes agree to SystemComment's 6 digits
same_hb() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d
		print (a != "" && b != "" && d <= 1e-5 * (a > 0 ? a : 1)) ? "yes" : "no: " a " vs " b }'
}

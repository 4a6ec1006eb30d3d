#!/bin/bash
# contrib/testcluster/run-check.sh - smoke test of the test cluster: start
# it, run a batch job, an srun step, sbatch --test-only, five steps with an
# arbitrary distribution (SLURM_HOSTFILE), check that starting again is a
# no-op and that the controller stays healthy, then stop it and check that
# nothing of it is left.  Prints "testcluster: N passed, M failed"; exits 1
# when something failed.
#   run-check.sh [--keep] [start.sh options]
# Defaults differ from start.sh's so as not to disturb a cluster started with
# the defaults: --dir /tmp/tm-testcluster-check --port-base 25001.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

keep=0
dir=/tmp/tm-testcluster-check
port_base=25001
nodes=16
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--dir) dir=$2; shift ;;
	--dir=*) dir=${1#*=} ;;
	--port-base) port_base=$2; shift ;;
	--port-base=*) port_base=${1#*=} ;;
	--nodes) nodes=$2; shift ;;
	--nodes=*) nodes=${1#*=} ;;
	-h | --help)
		sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) args+=("$1") ;;
	esac
	shift
done
dir=$(tc_abs "$dir")
[ "$nodes" -ge 4 ] 2>/dev/null || { tc_err "run-check needs --nodes 4 or more"; exit 2; }
args+=(--dir "$dir" --port-base "$port_base" --nodes "$nodes")
export SLURM_CONF="$dir/slurm.conf"
unset SLURM_JOB_ID SLURM_JOBID SLURM_HOSTFILE SLURM_DISTRIBUTION 2>/dev/null || true

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

passed=0
failed=0
pass() { passed=$((passed + 1)); tc_say "PASS $*"; }
failc() {
	failed=$((failed + 1))
	tc_say "FAIL $1"
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/    /'
}

# wait_job ID SECONDS: the job's final state (COMPLETED, FAILED, ...) or
# TIMEOUT-WAITING, from scontrol (no accounting database here)
wait_job() {
	local id=$1 t=$2 st i
	for ((i = 0; i < t * 5; i++)); do
		st=$(scontrol show job "$id" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case $st in
		COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
			echo "$st"
			return
			;;
		esac
		sleep 0.2
	done
	echo "TIMEOUT-WAITING(${st:-no state})"
}

node() { printf 'n%03d' "$1"; }
[ ${#nodes} -le 3 ] || node() { printf "n%0${#nodes}d" "$1"; }

# ---- start, and start again ------------------------------------------------------
t0=$(date +%s.%N)
if out=$("$here/start.sh" "${args[@]}" 2>&1); then
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	pass "start ($nodes nodes idle, start.sh took $t s)"
	printf '%s\n' "$out" | grep -E 'idle after|checked|agrees' | sed 's/^/    /'
else
	failc "start" "$out"
	tc_say "$passed passed, $failed failed"
	exit 1
fi
ctld=$(awk '$2 == "slurmctld" { print $1 }' "$dir/pids")
if out=$("$here/start.sh" "${args[@]}" 2>&1) && printf '%s\n' "$out" | grep -q 'already running' &&
	[ "$(awk '$2 == "slurmctld" { print $1 }' "$dir/pids")" = "$ctld" ]; then
	pass "start again: already running, same slurmctld (pid $ctld)"
else
	failc "start again" "$out"
fi

# ---- a 2-node batch job ------------------------------------------------------------
if id=$(sbatch --parsable -N2 -o "$work/job-%j.out" --wrap 'srun hostname' 2>&1); then
	st=$(wait_job "$id" 60)
	if [ "$st" = COMPLETED ] && [ "$(wc -l <"$work/job-$id.out")" -eq 2 ]; then
		pass "sbatch -N2 --wrap: job $id COMPLETED ($(scontrol show job "$id" -o | sed -n 's/.* NodeList=\([^ ]*\).*/\1/p'))"
	else
		failc "sbatch -N2 --wrap: job $id $st" "$(cat "$work/job-$id.out" 2>/dev/null)"
	fi
else
	failc "sbatch -N2 --wrap" "$id"
fi

# ---- srun -N2 -n4 ----------------------------------------------------------------------
if out=$(timeout 60 srun -N2 -n4 hostname 2>&1) && [ "$(printf '%s\n' "$out" | grep -c .)" -eq 4 ]; then
	pass "srun -N2 -n4 hostname (4 lines)"
else
	failc "srun -N2 -n4 hostname" "$out"
fi

# ---- sbatch --test-only -N4 --------------------------------------------------------------
if out=$(sbatch --test-only -N4 --wrap true 2>&1) && printf '%s\n' "$out" | grep -q 'to start at'; then
	pass "sbatch --test-only -N4: $(printf '%s\n' "$out" | sed -n 's/.*\(to start at [^ ]*\) .*using \([0-9]*\) processors on nodes \([^ ]*\).*/\1, nodes \3/p' | head -1)"
else
	failc "sbatch --test-only -N4" "$out"
fi

# ---- arbitrary distribution via SLURM_HOSTFILE, 5 times -------------------------------------
arb_ok=0
for ((r = 1; r <= 5; r++)); do
	# unsorted, with duplicates, different each round
	a=$(node $(((r * 5) % nodes + 1)))
	b=$(node $(((r * 3 + 1) % nodes + 1)))
	c=$(node $(((r * 7 + 2) % nodes + 1)))
	printf '%s\n' "$a" "$b" "$a" "$c" "$b" "$a" >"$work/hostfile.$r"
	expect=$(awk '{ print NR - 1, $1 }' "$work/hostfile.$r")
	# shellcheck disable=SC2016
	got=$(SLURM_HOSTFILE="$work/hostfile.$r" timeout 60 srun -n6 -m arbitrary \
		sh -c 'echo $SLURM_PROCID $SLURMD_NODENAME' 2>&1 | sort -n)
	if [ "$got" = "$expect" ]; then
		arb_ok=$((arb_ok + 1))
	else
		failc "srun -m arbitrary, round $r (hostfile $(tr '\n' ' ' <"$work/hostfile.$r"))" \
			"expected:" "$expect" "got:" "$got"
	fi
done
[ $arb_ok -eq 5 ] && pass "srun -n6 -m arbitrary with SLURM_HOSTFILE: 5 rounds, ranks on the hostfile's nodes"

# ---- the controller after all that -----------------------------------------------------------
for ((i = 0; i < 50; i++)); do
	[ "$(sinfo -h -N -o '%T' 2>/dev/null | sort -u)" = idle ] && break
	sleep 0.2
done
states=$(sinfo -h -N -o '%T' 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ',')
bad=$(grep -E 'underflow|Segmentation|SIGSEGV|io_init_msg_unpack|fatal' "$dir/log/slurmctld.log" | head -5)
if tc_is_ours "$ctld" slurmctld "" "$dir" && scontrol ping 2>/dev/null | grep -q 'is UP' &&
	[ "$(sinfo -h -N -o '%T' 2>/dev/null | sort -u)" = idle ] && [ -z "$bad" ]; then
	pass "controller healthy: same slurmctld (pid $ctld), nodes:$states no underflow/segfault in its log"
else
	failc "controller healthy" "slurmctld pid $ctld, nodes:$states" "$bad"
fi

# ---- stop, twice --------------------------------------------------------------------------
if [ "$keep" = 1 ]; then
	tc_say "--keep: the cluster stays up (export SLURM_CONF=$dir/slurm.conf)"
else
	pids=$(awk '{ print $1 }' "$dir/pids")
	if out=$("$here/stop.sh" --dir "$dir" 2>&1); then
		left=""
		for p in $pids; do tc_alive "$p" && left="$left $p"; done
		stray=$(for p in /proc/[0-9]*; do
			tc_cmdline "${p#/proc/}" 2>/dev/null | grep -qxF -- "$dir/slurm.conf" && echo "${p#/proc/}"
		done)
		if [ -z "$left" ] && [ -z "$stray" ] && [ -z "$(tc_our_stepds "$dir")" ]; then
			pass "stop: no slurmctld/slurmd/slurmstepd of $dir left"
		else
			failc "stop" "still running:$left $stray" "$out"
		fi
	else
		failc "stop" "$out"
	fi
	if out=$("$here/stop.sh" --dir "$dir" 2>&1) && printf '%s\n' "$out" | grep -q 'nothing'; then
		pass "stop again: nothing to do"
	else
		failc "stop again" "$out"
	fi
fi

tc_say "$passed passed, $failed failed"
[ $failed -eq 0 ]

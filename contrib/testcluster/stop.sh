#!/bin/bash
# contrib/testcluster/stop.sh - stop the test cluster that start.sh started:
# only the processes recorded in DIR/pids (each checked to still run the
# expected program with DIR's slurm.conf), the step daemons of that cluster,
# and munged if start.sh started it.  Idempotent: exits 0 when nothing runs.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

dir=${TESTCLUSTER_DIR:-$TC_DEFAULT_DIR}
grace=${TESTCLUSTER_STOP_TIMEOUT:-15}
keep_munge=${TESTCLUSTER_KEEP_MUNGE:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || { tc_err "--dir needs a value"; exit 2; }; dir=$2; shift ;;
	--dir=*) dir=${1#*=} ;;
	--timeout) [ $# -ge 2 ] || { tc_err "--timeout needs a value"; exit 2; }; grace=$2; shift ;;
	--keep-munge) keep_munge=1 ;;
	-h | --help)
		echo "Usage: $0 [--dir DIR] [--timeout SEC] [--keep-munge]"
		echo "Stop the test cluster started by start.sh from DIR (default $TC_DEFAULT_DIR):"
		echo "SIGTERM, then SIGKILL after SEC seconds (default 15)."
		exit 0
		;;
	*) tc_err "unknown option '$1'"; exit 2 ;;
	esac
	shift
done
dir=$(tc_abs "$dir")
dir=${dir%/}

if [ ! -d "$dir" ] || [ ! -e "$dir/$TC_MARKER" ]; then
	tc_say "no test cluster in $dir: nothing to stop"
	exit 0
fi
if [ "${TESTCLUSTER_LOCKED:-}" != "$dir" ]; then
	exec 9>"$dir/lock"
	flock -n 9 || { tc_say "waiting for $dir/lock (another start.sh/stop.sh)"; flock -w 600 9; } || { tc_err "another start.sh/stop.sh holds $dir/lock"; exit 1; }
fi
export SLURM_CONF="$dir/slurm.conf"

entries=()
ctld=""
if [ -s "$dir/pids" ]; then
	while read -r pid prog name; do
		[ -n "$pid" ] || continue
		if tc_is_ours "$pid" "$prog" "${name:-}" "$dir"; then
			entries+=("$pid $prog ${name:-}")
			[ "$prog" = slurmctld ] && ctld=$pid
		fi
	done <"$dir/pids"
fi

stopped=0
if [ ${#entries[@]} -gt 0 ]; then
	# Jobs first, while the controller still runs, so that slurmd and
	# slurmstepd end them the normal way.
	if [ -n "$ctld" ] && jobs=$(squeue -h -o %i 2>/dev/null) && [ -n "$jobs" ]; then
		tc_say "cancelling $(printf '%s\n' "$jobs" | wc -l) job(s)"
		# shellcheck disable=SC2086
		scancel $jobs 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	tc_say "stopping ${#entries[@]} daemon(s) of $dir"
	# Slurm's daemons, then slurmdbd (slurmctld sends it its last records
	# as it stops), then the database under it
	slurm=() dbd=() db=()
	for e in "${entries[@]}"; do
		case $e in
		*" slurmdbd"*) dbd+=("$e") ;;
		*" mariadbd"*) db+=("$e") ;;
		*) slurm+=("$e") ;;
		esac
	done
	tc_kill_pids "$grace" "$dir" "${slurm[@]}"
	tc_kill_pids "$grace" "$dir" "${dbd[@]}"
	tc_kill_pids "$grace" "$dir" "${db[@]}"
	stopped=${#entries[@]}
fi

# Step daemons of our slurmd (they outlive slurmd) and the tasks under them.
mapfile -t stepds < <(tc_our_stepds "$dir")
if [ ${#stepds[@]} -gt 0 ]; then
	mapfile -t tasks < <(tc_descendants "${stepds[@]}")
	tc_say "stopping ${#stepds[@]} slurmstepd(s) and ${#tasks[@]} task process(es) left behind"
	# the tasks first (slurmstepd waits for them and ignores SIGTERM)
	for pid in "${tasks[@]}"; do
		if tc_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
	done
	se=()
	for pid in "${stepds[@]}"; do se+=("$pid slurmstepd"); done
	tc_kill_pids 2 "$dir" "${se[@]}"
fi

# EpilogSlurmctld's background flusher: with slurmdbd gone it would retry
# its lines for a minute, and a cluster started again in this directory
# reuses the same job ids
pkill -f "^/bin/sh $dir/plugins/topomatch-epilog-slurmctld --flush\$" 2>/dev/null || true
rm -rf "$dir/run/topomatch-epilog"

# What is left of ours, whatever the pid file says (should be nothing).
left=0
if [ -s "$dir/pids" ]; then
	while read -r pid prog name; do
		[ -n "$pid" ] || continue
		if tc_is_ours "$pid" "$prog" "${name:-}" "$dir"; then
			tc_err "$prog${name:+ $name} (pid $pid) still runs"
			left=$((left + 1))
		fi
	done <"$dir/pids"
fi
[ $left -eq 0 ] || exit 1
: >"$dir/pids"

# munged, only if start.sh started it, and only if no other Slurm daemon
# on this machine may still need it.
if [ -s "$dir/munged.pid" ] && [ "$keep_munge" = 0 ]; then
	mpid=$(cat "$dir/munged.pid")
	if tc_is_ours "$mpid" munged "" "$dir"; then
		foreign=$(tc_foreign_slurm_daemons "$dir" | wc -l)
		if [ "$foreign" -gt 0 ]; then
			tc_say "leaving munged (pid $mpid) running: $foreign other Slurm daemon(s) on this machine"
			# another test cluster inherits it, so that its stop.sh stops it
			heir=""
			for pid in $(tc_foreign_slurm_daemons "$dir"); do
				conf=$(tc_cmdline "$pid" | grep -A1 -xF -- -f | sed -n 2p)
				other=$(dirname "$conf")
				if [ -n "$conf" ] && [ "$other" != "$dir" ] && [ -e "$other/$TC_MARKER" ] &&
					[ ! -s "$other/munged.pid" ]; then
					heir=$other
					break
				fi
			done
			if [ -n "$heir" ]; then
				echo "$mpid" >"$heir/munged.pid"
				tc_say "the test cluster in $heir takes it over (its stop.sh will stop it)"
			fi
			rm -f "$dir/munged.pid"
		else
			tc_say "stopping munged (pid $mpid, started by start.sh)"
			tc_kill_pids "$grace" "$dir" "$mpid munged"
			rm -f "$dir/munged.pid"
		fi
	else
		rm -f "$dir/munged.pid"
	fi
fi

if [ "$stopped" -eq 0 ] && [ ${#stepds[@]} -eq 0 ]; then
	tc_say "nothing of $dir was running"
else
	tc_say "stopped"
fi

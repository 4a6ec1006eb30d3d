# contrib/testcluster/lib.sh - helpers shared by start.sh, stop.sh and
# run-check.sh (sourced, not run).  Everything here only reads /proc, except
# tc_kill_pids, which signals the pids it is given after checking each one.
# SPDX-License-Identifier: GPL-2.0-or-later

# shellcheck shell=bash disable=SC2034

TC_DEFAULT_DIR=/tmp/tm-testcluster
TC_MARKER=.tm-testcluster
# The daemons are started with this variable in their environment; slurmd
# passes its environment on to slurmstepd, so the step daemons of our cluster
# can be told apart from anybody else's.
TC_ENV_MARK=TM_TESTCLUSTER_DIR

export PATH="/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}"

tc_say() { printf 'testcluster: %s\n' "$*"; }
tc_err() { printf 'testcluster: error: %s\n' "$*" >&2; }

# tc_abs PATH: the canonical absolute form of PATH (no . or .., no symbolic
# links; the file need not exist), so that start.sh and stop.sh name a
# state directory the same way whatever the caller wrote.
tc_abs() {
	realpath -m -- "$1"
}

# tc_real PROG: the file that PROG (a command name) really is, e.g.
# slurmctld -> /usr/sbin/slurmctld-wlm.
tc_real() {
	local p
	p=$(command -v "$1" 2>/dev/null) || return 1
	readlink -f "$p"
}

# tc_exe PID: the program a process runs ("" when it is gone).  A binary
# replaced by a package upgrade shows as "FILE (deleted)".
tc_exe() {
	local e
	e=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
	printf '%s\n' "${e% (deleted)}"
}

# tc_alive PID: the process exists and is not a zombie.
tc_alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# tc_cmdline PID: the command line, arguments separated by newlines.
tc_cmdline() {
	tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null
}

# tc_environ_has PID VAR=VALUE
tc_environ_has() {
	tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -qxF -- "$2"
}

# tc_is_ours PID PROG NAME DIR: PID runs PROG (slurmctld, slurmd, slurmstepd,
# slurmdbd, mariadbd or munged) and belongs to the cluster in DIR: slurmctld
# and slurmd read DIR/slurm.conf (slurmd for node NAME), slurmstepd and
# slurmdbd carry our mark in their environment, mariadbd keeps its data in
# DIR/mysql, munged is simply munged.
tc_is_ours() {
	local pid=$1 prog=$2 name=$3 dir=$4 real cmd
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	tc_alive "$pid" || return 1
	real=$(tc_real "$prog") || return 1
	[ "$(tc_exe "$pid")" = "$real" ] || return 1
	case $prog in
	slurmctld | slurmd)
		cmd=$(tc_cmdline "$pid")
		printf '%s\n' "$cmd" | grep -qxF -- "$dir/slurm.conf" || return 1
		if [ "$prog" = slurmd ]; then
			printf '%s\n' "$cmd" | grep -A1 -xF -- -N | sed -n 2p | grep -qxF -- "$name" ||
				return 1
		fi
		;;
	slurmstepd | slurmdbd)
		tc_environ_has "$pid" "$TC_ENV_MARK=$dir" || return 1
		;;
	mariadbd)
		tc_cmdline "$pid" | grep -qxF -- "--datadir=$dir/mysql" || return 1
		;;
	esac
	return 0
}

# tc_our_stepds DIR: pids of the slurmstepd processes of the cluster in DIR.
tc_our_stepds() {
	local dir=$1 real p pid
	real=$(tc_real slurmstepd) || return 0
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$(tc_exe "$pid" 2>/dev/null)" = "$real" ] || continue
		tc_environ_has "$pid" "$TC_ENV_MARK=$dir" && printf '%s\n' "$pid"
	done
	return 0
}

# tc_descendants PID...: all descendants of the given processes.
tc_descendants() {
	local -A parent=()
	local p pid ppid changed q
	local -A set=()
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		ppid=$(sed 's/^.*) . \([0-9]*\).*/\1/' "$p/stat" 2>/dev/null) || continue
		parent[$pid]=$ppid
	done
	for q in "$@"; do set[$q]=1; done
	changed=1
	while [ $changed = 1 ]; do
		changed=0
		for pid in "${!parent[@]}"; do
			[ -n "${set[$pid]:-}" ] && continue
			if [ -n "${set[${parent[$pid]}]:-}" ]; then
				set[$pid]=1
				changed=1
			fi
		done
	done
	for q in "$@"; do unset "set[$q]"; done
	for pid in "${!set[@]}"; do printf '%s\n' "$pid"; done
}

# tc_foreign_slurm_daemons DIR: pids of Slurm daemons on this machine that do
# not belong to the cluster in DIR (another test cluster, a real one).
tc_foreign_slurm_daemons() {
	local dir=$1 p pid exe ctld slurmd stepd
	ctld=$(tc_real slurmctld) || ctld=/nonexistent
	slurmd=$(tc_real slurmd) || slurmd=/nonexistent
	stepd=$(tc_real slurmstepd) || stepd=/nonexistent
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		exe=$(tc_exe "$pid" 2>/dev/null) || continue
		case $exe in
		"$ctld") tc_is_ours "$pid" slurmctld "" "$dir" || printf '%s\n' "$pid" ;;
		"$slurmd")
			tc_cmdline "$pid" | grep -qxF -- "$dir/slurm.conf" || printf '%s\n' "$pid"
			;;
		"$stepd") tc_is_ours "$pid" slurmstepd "" "$dir" || printf '%s\n' "$pid" ;;
		esac
	done
	return 0
}

# tc_running DIR: 0 when every daemon recorded in DIR/pids still runs and
# is ours; prints the number of live recorded daemons on stdout.
tc_running() {
	local dir=$1 pid prog name total=0 live=0
	[ -s "$dir/pids" ] || { echo 0; return 1; }
	while read -r pid prog name; do
		[ -n "$pid" ] || continue
		total=$((total + 1))
		tc_is_ours "$pid" "$prog" "$name" "$dir" && live=$((live + 1))
	done <"$dir/pids"
	echo "$live"
	[ "$live" -gt 0 ] && [ "$live" -eq "$total" ]
}

# tc_wait_gone TENTHS DIR "PID PROG NAME"...: 0 once none of the listed
# processes is ours any more (zombies count as gone), within TENTHS tenths
# of a second; 1 otherwise.
tc_wait_gone() {
	local tenths=$1 dir=$2 entry pid prog name left i
	shift 2
	for ((i = 0; i < tenths; i++)); do
		left=0
		for entry in "$@"; do
			read -r pid prog name <<<"$entry"
			tc_is_ours "$pid" "$prog" "$name" "$dir" && left=$((left + 1))
		done
		[ $left -eq 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# tc_kill_pids TIMEOUT DIR "PID PROG NAME"...: TERM every listed process that
# is still ours, wait up to TIMEOUT seconds, then KILL what is left (checked
# again first: a pid may have been reused meanwhile) and wait until it is
# gone.
tc_kill_pids() {
	local timeout=$1 dir=$2 entry pid prog name
	shift 2
	local -a mine=()
	for entry in "$@"; do
		read -r pid prog name <<<"$entry"
		if tc_is_ours "$pid" "$prog" "$name" "$dir"; then
			mine+=("$entry")
			kill -TERM "$pid" 2>/dev/null || true
		fi
	done
	[ ${#mine[@]} -gt 0 ] || return 0
	tc_wait_gone $((timeout * 10)) "$dir" "${mine[@]}" && return 0
	for entry in "${mine[@]}"; do
		read -r pid prog name <<<"$entry"
		if tc_is_ours "$pid" "$prog" "$name" "$dir"; then
			tc_say "$prog${name:+ $name} (pid $pid) ignored SIGTERM for ${timeout}s: SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	tc_wait_gone 100 "$dir" "${mine[@]}" || true
	return 0
}

# tc_mem_kb PID...: the memory of the processes, in KiB: the sum of their
# proportional set sizes (shared pages counted once overall), or of their
# resident sizes where smaps_rollup is missing.
tc_mem_kb() {
	local pid sum=0 v
	for pid in "$@"; do
		v=$(awk '/^Pss:/ { print $2; exit }' "/proc/$pid/smaps_rollup" 2>/dev/null) ||
			v=""
		[ -n "$v" ] || v=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || v=0
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# tc_start_ctld DIR SLURMCTLD-OPTION...: start slurmctld on DIR/slurm.conf
# by its standard name (slurmctld decides from argv[0] that it is the
# daemon; slurmctld-wlm would corrupt its node table on steps with an
# arbitrary distribution), record it in DIR/pids and wait until it answers
# scontrol ping.  Prints its pid; on failure says why on stderr, returns 1.
tc_start_ctld() {
	local dir=$1 cpid="" i log_from
	shift
	log_from=$(($(stat -c %s "$dir/log/slurmctld.log" 2>/dev/null || echo 0) + 1))
	ctld_failed() {
		tail -c +"$log_from" "$dir/log/slurmctld.log" 2>/dev/null |
			grep -qE 'fatal:|initialization failed' ||
			grep -qsE 'fatal:|initialization failed' "$dir/log/slurmctld.out"
	}
	(cd "$dir/run" && env "$TC_ENV_MARK=$dir" slurmctld "$@" -f "$dir/slurm.conf" \
		</dev/null >>"$dir/log/slurmctld.out" 2>&1 9>&-) ||
		{ tc_err "slurmctld did not start"; return 1; }
	for ((i = 0; i < 200; i++)); do
		cpid=$(cat "$dir/run/slurmctld.pid" 2>/dev/null || true)
		tc_is_ours "$cpid" slurmctld "" "$dir" && break
		cpid=""
		ctld_failed && { tc_err "slurmctld failed"; return 1; }
		sleep 0.1
	done
	[ -n "$cpid" ] || { tc_err "slurmctld wrote no pid file in 20 s"; return 1; }
	echo "$cpid slurmctld" >>"$dir/pids"
	for ((i = 0; i < 300; i++)); do
		if SLURM_CONF=$dir/slurm.conf scontrol ping 2>/dev/null | grep -q 'is UP'; then
			echo "$cpid"
			return 0
		fi
		tc_is_ours "$cpid" slurmctld "" "$dir" || { tc_err "slurmctld (pid $cpid) died"; return 1; }
		sleep 0.1
	done
	tc_err "slurmctld does not answer scontrol ping"
	return 1
}

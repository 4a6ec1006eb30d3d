#!/bin/bash
# contrib/testcluster/restart-controller.sh - restart the slurmctld of a
# test cluster that start.sh started, keeping its state (jobs, queue,
# spank_job_env): what an admin's `systemctl restart slurmctld` does.
# The slurmd daemons keep running.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

dir=${TESTCLUSTER_DIR:-$TC_DEFAULT_DIR}
while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || { tc_err "--dir needs a value"; exit 2; }; dir=$2; shift ;;
	--dir=*) dir=${1#*=} ;;
	-h | --help)
		echo "Usage: $0 [--dir DIR]"
		echo "Restart the slurmctld of the test cluster in DIR (default $TC_DEFAULT_DIR),"
		echo "keeping its saved state: SIGTERM, wait, start again without -c."
		exit 0
		;;
	*) tc_err "unknown option '$1'"; exit 2 ;;
	esac
	shift
done
dir=$(tc_abs "$dir")
dir=${dir%/}
[ -e "$dir/$TC_MARKER" ] || { tc_err "no test cluster in $dir"; exit 1; }
exec 9>"$dir/lock"
flock -w 600 9 || { tc_err "another start.sh/stop.sh holds $dir/lock"; exit 1; }

old=""
while read -r pid prog _; do
	[ "$prog" = slurmctld ] && tc_is_ours "$pid" slurmctld "" "$dir" && old=$pid
done <"$dir/pids"
[ -n "$old" ] || { tc_err "no slurmctld of $dir runs"; exit 1; }
# SIGTERM makes slurmctld save its state before it exits
tc_kill_pids 30 "$dir" "$old slurmctld"
grep -v "^$old slurmctld" "$dir/pids" >"$dir/pids.new" || true
mv "$dir/pids.new" "$dir/pids"
new=$(tc_start_ctld "$dir") || exit 1
tc_say "slurmctld restarted (pid $old -> $new) with the state of $dir/state"

#!/bin/bash
# contrib/testcluster/start.sh - start a real Slurm test cluster on this one
# machine: munge, one slurmctld and one slurmd per virtual node (each on its
# own port of 127.0.0.1), nodes under a two-level switch tree, and a cluster
# YAML that matches slurm.conf and topology.conf.  Waits until every node is
# idle.  Idempotent: a healthy cluster already running from the same state
# directory with the same configuration is left alone.  See README.md.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

usage() {
	cat <<EOF
Usage: $0 [OPTIONS]
Start a Slurm test cluster on this machine (root; Debian bookworm).

  --nodes N          virtual nodes (default 16)              [TESTCLUSTER_NODES]
  --sockets S        sockets per node (default 2)            [TESTCLUSTER_SOCKETS]
  --cores C          cores per socket (default 8)            [TESTCLUSTER_CORES]
  --threads T        threads per core (default 1)            [TESTCLUSTER_THREADS]
  --leaf-size L      nodes per leaf switch (default 4)       [TESTCLUSTER_LEAF_SIZE]
  --dir DIR          state directory (default $TC_DEFAULT_DIR) [TESTCLUSTER_DIR]
  --port-base P      first slurmd port (default 20001); slurmctld uses P-1
                                                             [TESTCLUSTER_PORT_BASE]
  --spank PATH       SPANK plugin to list in plugstack.conf  [TESTCLUSTER_SPANK]
  --bind-record      pass bind=record to the SPANK plugin
  --spank-args ARGS  more SPANK plugin arguments, space-separated
                     (e.g. "layout=reorder")                 [TESTCLUSTER_SPANK_ARGS]
  --select-dir DIR   directory holding select_topomatch.so: SelectType=select/topomatch
                     (default select/cons_tres)              [TESTCLUSTER_SELECT_DIR]
  --topomatch-conf   write DIR/topomatch.conf (ClusterYAML=DIR/cluster.yaml)
  --no-epilog        with --select-dir and accounting, no EpilogSlurmctld (the
                     decision then reaches sacct as AdminComment only)
  --no-accounting    no slurmdbd: by default the cluster keeps accounting as
                     sites do, slurmdbd on a MariaDB server of its own (data in
                     DIR/mysql), so that sacct works  [TESTCLUSTER_ACCOUNTING=0]
  --sched-params S   SchedulerParameters (e.g. "bf_interval=1"; default none)
  --max-jobs N       MaxJobCount (default Slurm's, 10000)   [TESTCLUSTER_MAX_JOBS]
  --slurmd-nice N    run the slurmds (and so the jobs) at nice N, 0 to 19
                     (default 0): slurmctld then gets the CPU first, as on a
                     site where it has a host of its own  [TESTCLUSTER_SLURMD_NICE]
  --ctld-debug L     SlurmctldDebug (default info; debug shows select/topomatch's
                     decisions)                              [TESTCLUSTER_CTLD_DEBUG]
                                                             [TESTCLUSTER_SCHED_PARAMS]
  --select-params P  SelectTypeParameters (default CR_Core); with memory
                     (CR_Core_Memory) each CPU gets DefMemPerCPU, its share
                     of the nodes' 1024 MB                   [TESTCLUSTER_SELECT_PARAMS]
  --task-plugin P    TaskPlugin; default auto: task/affinity,task/cgroup (with
                     cgroup.conf ConstrainCores=yes, proctrack/cgroup) when a
                     node has no more CPUs than this machine, else task/none
                     (tasks cannot be bound to CPUs the host lacks)
                                                             [TESTCLUSTER_TASK_PLUGIN]
  --timeout SEC      how long to wait for idle nodes (default 120, more for
                     large clusters)                         [TESTCLUSTER_TIMEOUT]
  --topomatch PATH   topomatch binary for the YAML self-check
                     (default build/tools/topomatch, skipped when absent)
  --restart          restart even when an identical cluster is running
  --no-install       do not apt-get install missing packages
  -h, --help         this text
EOF
}

nodes=${TESTCLUSTER_NODES:-16}
sockets=${TESTCLUSTER_SOCKETS:-2}
cores=${TESTCLUSTER_CORES:-8}
threads=${TESTCLUSTER_THREADS:-1}
leaf=${TESTCLUSTER_LEAF_SIZE:-4}
dir=${TESTCLUSTER_DIR:-$TC_DEFAULT_DIR}
port_base=${TESTCLUSTER_PORT_BASE:-20001}
spank=${TESTCLUSTER_SPANK:-}
spank_args=${TESTCLUSTER_SPANK_ARGS:-}
select_dir=${TESTCLUSTER_SELECT_DIR:-}
task_plugin=${TESTCLUSTER_TASK_PLUGIN:-auto}
sched_params=${TESTCLUSTER_SCHED_PARAMS:-}
ctld_debug=${TESTCLUSTER_CTLD_DEBUG:-info}
max_jobs=${TESTCLUSTER_MAX_JOBS:-}
slurmd_nice=${TESTCLUSTER_SLURMD_NICE:-0}
select_params=${TESTCLUSTER_SELECT_PARAMS:-CR_Core}
timeout=${TESTCLUSTER_TIMEOUT:-}
tm=${TESTCLUSTER_TOPOMATCH:-$top/build/tools/topomatch}
tmconf=0
accounting=${TESTCLUSTER_ACCOUNTING:-1}
epilog=1
bind_record=0
restart=0
install=1

need_arg() { [ $# -ge 2 ] || { tc_err "$1 needs a value"; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) need_arg "$@"; nodes=$2; shift ;;
	--sockets) need_arg "$@"; sockets=$2; shift ;;
	--cores) need_arg "$@"; cores=$2; shift ;;
	--threads) need_arg "$@"; threads=$2; shift ;;
	--leaf-size) need_arg "$@"; leaf=$2; shift ;;
	--dir) need_arg "$@"; dir=$2; shift ;;
	--port-base) need_arg "$@"; port_base=$2; shift ;;
	--spank) need_arg "$@"; spank=$2; shift ;;
	--spank-args) need_arg "$@"; spank_args=$2; shift ;;
	--select-dir) need_arg "$@"; select_dir=$2; shift ;;
	--task-plugin) need_arg "$@"; task_plugin=$2; shift ;;
	--sched-params) need_arg "$@"; sched_params=$2; shift ;;
	--ctld-debug) need_arg "$@"; ctld_debug=$2; shift ;;
	--max-jobs) need_arg "$@"; max_jobs=$2; shift ;;
	--slurmd-nice) need_arg "$@"; slurmd_nice=$2; shift ;;
	--select-params) need_arg "$@"; select_params=$2; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift ;;
	--topomatch) need_arg "$@"; tm=$2; shift ;;
	--nodes=* | --sockets=* | --cores=* | --threads=* | --leaf-size=* | --dir=* | \
		--port-base=* | --spank=* | --spank-args=* | --select-dir=* | --task-plugin=* | \
		--timeout=* | --topomatch=* | --sched-params=* | --select-params=* | --ctld-debug=* | \
		--max-jobs=* | --slurmd-nice=*)
		opt=${1%%=*}
		set -- "$opt" "${1#*=}" "${@:2}"
		continue
		;;
	--topomatch-conf) tmconf=1 ;;
	--no-epilog) epilog=0 ;;
	--accounting) accounting=1 ;;
	--no-accounting) accounting=0 ;;
	--bind-record) bind_record=1 ;;
	--restart) restart=1 ;;
	--no-install) install=0 ;;
	-h | --help) usage; exit 0 ;;
	*) tc_err "unknown option '$1' (see --help)"; exit 2 ;;
	esac
	shift
done

# ---- check the options ------------------------------------------------------
for v in nodes sockets cores threads leaf port_base; do
	val=${!v}
	case $val in
	'' | *[!0-9]* | 0*) tc_err "--${v//_/-} wants a positive integer, not '$val'"; exit 2 ;;
	esac
done
case $max_jobs in
*[!0-9]* | 0*) tc_err "--max-jobs wants a positive integer, not '$max_jobs'"; exit 2 ;;
esac
case $slurmd_nice in
[0-9] | 1[0-9]) ;;
*) tc_err "--slurmd-nice wants 0 to 19, not '$slurmd_nice'"; exit 2 ;;
esac
case $ctld_debug in
quiet | fatal | error | info | verbose | debug | debug[2-5]) ;;
*) tc_err "--ctld-debug: one of quiet fatal error info verbose debug debug2..debug5, not '$ctld_debug'"; exit 2 ;;
esac
if [ -n "$timeout" ]; then
	case $timeout in '' | *[!0-9]* | 0*) tc_err "--timeout wants a positive integer"; exit 2 ;; esac
else
	timeout=$((120 + nodes / 8))
fi
if [ "$port_base" -lt 1025 ] || [ $((port_base + nodes - 1)) -gt 65535 ]; then
	tc_err "ports $((port_base - 1))-$((port_base + nodes - 1)) are not all in 1024-65535"
	exit 2
fi
[ "$leaf" -le "$nodes" ] || leaf=$nodes
# The task plugins sites run, task/affinity with task/cgroup, when binding
# can be real: nodes no larger than this machine, and a cgroup v1 cpuset
# hierarchy (Slurm 22.05's cgroup/v2 needs systemd to delegate a scope to
# slurmd, and one slurmd per host: README.md, Limitations).
if [ "$task_plugin" = auto ]; then
	if [ $((sockets * cores * threads)) -gt "$(nproc)" ]; then
		task_plugin=task/none
	elif [ -w /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
		task_plugin=task/affinity,task/cgroup
	else
		tc_say "no writable cgroup v1 cpuset hierarchy (/sys/fs/cgroup/cpuset): task/affinity without task/cgroup"
		task_plugin=task/affinity
	fi
fi
case ,$task_plugin, in
*,task/cgroup,*) cgroups=1 proctrack=proctrack/cgroup ;;
*) cgroups=0 proctrack=proctrack/linuxproc ;;
esac
dir=$(tc_abs "$dir")
dir=${dir%/}
case $dir in
'' | / | /etc* | /usr* | /bin* | /sbin* | /lib* | /var | /run | /proc* | /sys* | /dev* | /boot* | /root | /home)
	tc_err "refusing state directory '$dir'"
	exit 2
	;;
esac
case $dir in *[[:space:]]*) tc_err "the state directory may not contain spaces"; exit 2 ;; esac
if [ -n "$spank" ]; then
	spank=$(tc_abs "$spank")
	[ -f "$spank" ] || { tc_err "--spank: no file $spank"; exit 2; }
fi
if [ -n "$select_dir" ]; then
	select_dir=$(cd "$select_dir" 2>/dev/null && pwd) ||
		{ tc_err "--select-dir: no directory $select_dir"; exit 2; }
	[ -f "$select_dir/select_topomatch.so" ] ||
		{ tc_err "--select-dir: no select_topomatch.so in $select_dir"; exit 2; }
fi
if [ "$bind_record" = 1 ] && [ -z "$spank" ]; then
	tc_err "--bind-record needs --spank"
	exit 2
fi
if [ -n "$spank_args" ]; then
	[ -n "$spank" ] || { tc_err "--spank-args needs --spank"; exit 2; }
	case $spank_args in
	*[!A-Za-z0-9=._,:/+\ -]*) tc_err "--spank-args: only letters, digits, spaces and =._,:/+- please"; exit 2 ;;
	esac
	read -r -a words <<<"$spank_args"
	spank_args="${words[*]}" # one space between arguments
fi
case $sched_params in
*[!A-Za-z0-9=._,:-]*) tc_err "--sched-params: one comma-separated list, no spaces"; exit 2 ;;
esac
case $select_params in
'' | *[!A-Za-z0-9_,]*) tc_err "--select-params: one comma-separated list such as CR_Core_Memory"; exit 2 ;;
esac
defmem=
case $select_params in
*Memory*) defmem="DefMemPerCPU=$((1024 / (sockets * cores * threads) > 0 ? 1024 / (sockets * cores * threads) : 1))" ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	tc_err "run as root (the daemons run as root, munged is started as user munge)"
	exit 1
fi

# ---- packages -----------------------------------------------------------------
PACKAGES="slurmctld slurmd slurm-client munge"
[ "$accounting" = 0 ] || PACKAGES="$PACKAGES slurmdbd mariadb-server"
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$install" = 0 ]; then
		tc_err "missing Debian packages:$missing (apt-get install$missing)"
		exit 1
	fi
	tc_say "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
fi
for p in slurmctld slurmd slurmstepd munged munge unmunge sinfo scontrol \
	$([ "$accounting" = 0 ] || echo slurmdbd sacctmgr mariadbd mariadb mariadb-install-db); do
	command -v "$p" >/dev/null || { tc_err "no '$p' command after installing$PACKAGES"; exit 1; }
done
# the stock plugins, next to auth_munge.so
stock_plugins=""
for f in /usr/lib/*/slurm-wlm/auth_munge.so /usr/lib/slurm/auth_munge.so; do
	[ -f "$f" ] && { stock_plugins=$(dirname "$f"); break; }
done
[ -n "$stock_plugins" ] || { tc_err "cannot find Slurm's plugin directory (auth_munge.so)"; exit 1; }

# ---- state directory and lock ---------------------------------------------------
if [ -d "$dir" ] && [ ! -e "$dir/$TC_MARKER" ] && [ -n "$(ls -A "$dir")" ]; then
	tc_err "$dir exists, is not empty and was not made by this script: choose another --dir"
	exit 1
fi
mkdir -p "$dir"
: >"$dir/$TC_MARKER"
exec 9>"$dir/lock"
# (every daemon is started with 9>&-: a daemon that inherited the lock
# would hold it for ever)
if ! flock -n 9 && { tc_say "waiting for $dir/lock (another start.sh/stop.sh)"; ! flock -w 600 9; }; then
	tc_err "another start.sh/stop.sh holds $dir/lock"
	exit 1
fi
export TESTCLUSTER_LOCKED=$dir
export SLURM_CONF="$dir/slurm.conf"
unset SLURM_JOB_ID SLURM_JOBID 2>/dev/null || true

# ---- the configuration ----------------------------------------------------------
host=$(hostname -s 2>/dev/null || hostname)
width=3
[ ${#nodes} -gt $width ] && width=${#nodes}
node() { printf "n%0${width}d" "$1"; }
# hostlist FIRST LAST PREFIX WIDTH
hostlist() {
	if [ "$1" -eq "$2" ]; then
		printf "%s%0${4}d" "$3" "$1"
	else
		printf "%s[%0${4}d-%0${4}d]" "$3" "$1" "$2"
	fi
}
all_nodes=$(hostlist 1 "$nodes" n "$width")
nleaf=$(((nodes + leaf - 1) / leaf))
all_switches=$(hostlist 1 "$nleaf" s 1)
ctld_port=$((port_base - 1))
# with accounting, slurmdbd and its MariaDB server below slurmctld's port
dbd_port=$((port_base - 2))
db_port=$((port_base - 3))
low_port=$ctld_port
[ "$accounting" = 0 ] || low_port=$db_port
if [ "$nodes" -eq 1 ]; then
	ports=$port_base
else
	ports="[$port_base-$((port_base + nodes - 1))]"
fi
# The plugins are copied into DIR/plugins: Slurm loads every select_*.so of
# PluginDir (a build directory may hold others), and a rebuild while the
# cluster runs does not touch the copy the daemons loaded.
spank_copy=""
[ -z "$spank" ] || spank_copy="$dir/plugins/$(basename "$spank")"
if [ -n "$select_dir" ]; then
	plugindir="$dir/plugins:$stock_plugins"
	select_type=select/topomatch
else
	plugindir=$stock_plugins
	select_type=select/cons_tres
fi

new="$dir/new"
rm -rf "$new"
mkdir -p "$new"
optline="nodes=$nodes sockets=$sockets cores=$cores threads=$threads leaf-size=$leaf port-base=$port_base task-plugin=$task_plugin select-params=$select_params accounting=$accounting slurmd-nice=$slurmd_nice epilog=$epilog"

cat >"$new/slurm.conf" <<EOF
# slurm.conf of the slurm-topomatch test cluster, written by
# contrib/testcluster/start.sh ($optline).
# Clients: export SLURM_CONF=$dir/slurm.conf
ClusterName=tmtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$port_base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
PluginDir=$plugindir
PlugStackConfig=$dir/plugstack.conf
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=$ctld_debug
SlurmdDebug=info
SchedulerType=sched/backfill
${sched_params:+SchedulerParameters=$sched_params
}SelectType=$select_type
SelectTypeParameters=$select_params
${defmem:+$defmem
}TopologyPlugin=topology/tree
ProctrackType=$proctrack
TaskPlugin=$task_plugin
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
$(if [ "$accounting" = 1 ]; then
	echo "AccountingStorageType=accounting_storage/slurmdbd"
	echo "AccountingStorageHost=127.0.0.1"
	echo "AccountingStoragePort=$dbd_port"
	# select/topomatch's decision into the database (Slurm 22.05 does not
	# send SystemComment there)
	[ -z "$select_dir" ] || [ "$epilog" = 0 ] || echo "EpilogSlurmctld=$dir/plugins/epilog-slurmctld"
else
	echo "AccountingStorageType=accounting_storage/none"
fi)
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=20
InactiveLimit=0
KillWait=5
MinJobAge=300
${max_jobs:+MaxJobCount=$max_jobs
}Waittime=0
NodeName=$all_nodes NodeHostname=$host NodeAddr=127.0.0.1 Port=$ports Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

{
	echo "# topology.conf of the slurm-topomatch test cluster ($nleaf leaf switches of up to $leaf nodes)"
	for ((i = 1; i <= nleaf; i++)); do
		first=$(((i - 1) * leaf + 1))
		last=$((i * leaf))
		[ $last -le "$nodes" ] || last=$nodes
		echo "SwitchName=s$i Nodes=$(hostlist "$first" "$last" n "$width")"
	done
	echo "SwitchName=top Switches=$all_switches"
} >"$new/topology.conf"

{
	echo "# The slurm-topomatch test cluster, written by contrib/testcluster/start.sh."
	echo "# Matches $dir/slurm.conf and topology.conf:"
	echo "#   topomatch topo check $dir/cluster.yaml --slurm-conf $dir/slurm.conf"
	echo
	echo "cluster: tmtest"
	echo
	echo "nodes:"
	echo "  - names: $all_nodes"
	echo "    hardware: \"pack:$sockets core:$cores pu:$threads\""
	echo
	echo "network:"
	echo "  type: tree"
	echo "  switches:"
	echo "    - name: top"
	echo "      switches: $all_switches"
	for ((i = 1; i <= nleaf; i++)); do
		first=$(((i - 1) * leaf + 1))
		last=$((i * leaf))
		[ $last -le "$nodes" ] || last=$nodes
		echo "    - name: s$i"
		echo "      nodes: $(hostlist "$first" "$last" n "$width")"
	done
} >"$new/cluster.yaml"

{
	echo "# plugstack.conf of the slurm-topomatch test cluster"
	if [ -n "$spank" ]; then
		args=""
		[ "$bind_record" = 0 ] || args=" bind=record"
		[ -z "$spank_args" ] || args="$args $spank_args"
		echo "required $spank_copy$args"
	fi
} >"$new/plugstack.conf"

# accounting: slurmdbd (its configuration beside slurm.conf, mode 600: it
# holds the database password) on a MariaDB server of the cluster's own
if [ "$accounting" = 1 ]; then
	(
		umask 077
		cat >"$new/slurmdbd.conf" <<EOF
# slurmdbd.conf of the slurm-topomatch test cluster ($optline)
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=tmtest
StorageLoc=slurm_acct_db
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
EOF
	)
fi

# task/cgroup: each step's tasks confined to the step's cores (cpuset), as
# at sites; Slurm reads cgroup.conf beside slurm.conf
if [ "$cgroups" = 1 ]; then
	{
		echo "# cgroup.conf of the slurm-topomatch test cluster: cores confined (cgroup v1)"
		echo "CgroupPlugin=cgroup/v1"
		echo "CgroupAutomount=yes"
		echo "ConstrainCores=yes"
	} >"$new/cgroup.conf"
fi

if [ "$tmconf" = 1 ]; then
	{
		echo "# topomatch.conf of the slurm-topomatch test cluster (key=value)"
		echo "ClusterYAML=$dir/cluster.yaml"
	} >"$new/topomatch.conf"
fi

# What a running cluster must match to be kept: the files above and the
# plugins' contents (a rebuilt plugin needs a restart to be loaded).
{
	echo "$optline"
	for f in "$spank" ${select_dir:+"$select_dir/select_topomatch.so" "$top/plugin/select/topomatch-epilog-slurmctld"}; do
		[ -n "$f" ] && echo "plugin $f $(md5sum <"$f" | cut -d' ' -f1)"
	done
	cat "$new"/*.conf "$new/cluster.yaml"
} >"$new/stamp"

# Self-check: the YAML must agree with slurm.conf (only when a topomatch
# binary with the topo command is at hand).
if [ -x "$tm" ] && "$tm" topo --help >/dev/null 2>&1; then
	if ! out=$("$tm" topo check "$new/cluster.yaml" --slurm-conf "$new/slurm.conf" 2>&1); then
		printf '%s\n' "$out" >&2
		tc_err "cluster.yaml and slurm.conf disagree (topomatch topo check)"
		exit 1
	fi
	# and it must describe the same network as topology.conf
	if ! "$tm" topo import-slurm "$new/topology.conf" --slurm-conf "$new/slurm.conf" \
		>"$new/imported.yaml" 2>"$new/imported.err" ||
		! "$tm" topo show "$new/imported.yaml" >"$new/imported.show" 2>&1 ||
		! "$tm" topo show "$new/cluster.yaml" >"$new/cluster.show" 2>&1 ||
		! cmp -s "$new/imported.show" "$new/cluster.show"; then
		cat "$new/imported.err" >&2
		diff "$new/cluster.show" "$new/imported.show" >&2 || true
		tc_err "cluster.yaml and topology.conf disagree (topomatch topo import-slurm + show)"
		exit 1
	fi
	rm -f "$new"/imported.* "$new/cluster.show"
	selfcheck="cluster.yaml agrees with slurm.conf and topology.conf (checked with $tm)"
else
	selfcheck="cluster.yaml not checked (no topomatch binary with 'topo' at $tm)"
fi

# ---- already running? ---------------------------------------------------------------
print_env() {
	tc_say "use it with:  export SLURM_CONF=$dir/slurm.conf"
	tc_say "stop it with: $here/stop.sh --dir $dir"
}
if live=$(tc_running "$dir"); then
	healthy=0
	if scontrol ping 2>/dev/null | grep -q 'is UP'; then
		states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
		total=$(printf '%s\n' "$states" | grep -c . || true)
		bad=$(printf '%s\n' "$states" | grep -cvE ' (idle|allocated|mixed|completing)$' || true)
		[ "$total" -eq "$(grep -c ' slurmd ' "$dir/pids")" ] && [ "$bad" -eq 0 ] && healthy=1
	fi
	same=0
	cmp -s "$new/stamp" "$dir/stamp" && same=1
	if [ "$healthy" = 1 ] && [ "$restart" = 0 ] && [ "$same" = 1 ]; then
		rm -rf "$new"
		tc_say "already running from $dir ($nodes nodes, $live daemons): nothing to do"
		print_env
		exit 0
	fi
	if [ "$restart" = 1 ]; then
		tc_say "restarting the cluster in $dir (--restart)"
	elif [ "$same" = 0 ]; then
		tc_say "the cluster in $dir runs with another configuration: restarting it"
	else
		tc_say "the cluster in $dir runs but is not healthy (${bad:-?} of ${total:-?} nodes not idle/allocated/mixed, or no controller): restarting it"
	fi
	TESTCLUSTER_KEEP_MUNGE=1 "$here/stop.sh" --dir "$dir"
elif [ "$live" -gt 0 ]; then
	tc_say "part of the cluster in $dir is gone ($live daemons left): restarting it"
	TESTCLUSTER_KEEP_MUNGE=1 "$here/stop.sh" --dir "$dir"
fi

t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- munge ----------------------------------------------------------------------------
munge_ok() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }
if munge_ok; then
	if [ -s "$dir/munged.pid" ] && tc_is_ours "$(cat "$dir/munged.pid")" munged "" "$dir"; then
		tc_say "munged runs (started by an earlier start.sh, pid $(cat "$dir/munged.pid"))"
	else
		rm -f "$dir/munged.pid"
		tc_say "munged runs already (not started by this cluster: its stop.sh leaves it alone)"
	fi
else
	rm -f "$dir/munged.pid"
	if [ ! -s /etc/munge/munge.key ]; then
		tc_say "creating /etc/munge/munge.key"
		mkdir -p /etc/munge
		mungekey --create --keyfile=/etc/munge/munge.key
	fi
	mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
	chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/munge/munge.key
	chmod 0755 /run/munge
	chmod 0700 /etc/munge
	chmod 0600 /etc/munge/munge.key
	rm -f /run/munge/munged.pid
	# --force: a munged that died may have left its socket behind
	if ! runuser -u munge -- munged --force </dev/null >"$dir/munged.out" 2>&1 9>&-; then
		cat "$dir/munged.out" >&2
		tc_err "munged did not start (see /var/log/munge/munged.log)"
		exit 1
	fi
	for ((i = 0; i < 100; i++)); do
		munge_ok && break
		sleep 0.1
	done
	if ! munge_ok; then
		tail -n 20 /var/log/munge/munged.log >&2 2>/dev/null || true
		tc_err "munged started but munge -n | unmunge fails"
		exit 1
	fi
	mpid=$(cat /run/munge/munged.pid 2>/dev/null || true)
	if tc_is_ours "$mpid" munged "" "$dir"; then
		echo "$mpid" >"$dir/munged.pid"
		tc_say "started munged (pid $mpid)"
	else
		tc_say "munged runs, but its pid is unknown: stop.sh will leave it alone"
	fi
fi

# ---- ports -------------------------------------------------------------------------------
# listening TCP ports (IPv4 and IPv6), in decimal
listening=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
	while read -r _ local _ st _; do
		[ "$st" = 0A ] && printf '%d\n' "0x${local##*:}"
	done | sort -un)
busy=""
for p in $listening; do
	[ "$p" -ge "$low_port" ] && [ "$p" -lt $((port_base + nodes)) ] && busy="$busy $p"
done
if [ -n "$busy" ]; then
	tc_err "ports in use:$busy (slurmctld needs $ctld_port, slurmd $port_base-$((port_base + nodes - 1))$([ "$accounting" = 0 ] || echo ", slurmdbd $dbd_port, MariaDB $db_port")): choose --port-base"
	exit 1
fi

# ---- install the configuration, fresh state -----------------------------------------------
for f in slurm.conf topology.conf cluster.yaml plugstack.conf topomatch.conf cgroup.conf slurmdbd.conf stamp; do
	rm -f "$dir/$f"
	[ -f "$new/$f" ] && mv "$new/$f" "$dir/$f"
done
rm -rf "$new" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/plugins" "$dir/mysql"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/plugins"
[ -z "$select_dir" ] || cp "$select_dir/select_topomatch.so" "$dir/plugins/"
if [ -n "$select_dir" ] && [ "$accounting" = 1 ]; then
	cp "$top/plugin/select/topomatch-epilog-slurmctld" "$dir/plugins/"
	# slurmctld gives the epilog no SLURM_CONF; its spool is the cluster's
	printf '#!/bin/sh\nSLURM_CONF=%s TOPOMATCH_EPILOG_SPOOL=%s exec %s\n' "$dir/slurm.conf" \
		"$dir/run/topomatch-epilog" "$dir/plugins/topomatch-epilog-slurmctld" \
		>"$dir/plugins/epilog-slurmctld"
	chmod 755 "$dir/plugins/epilog-slurmctld"
fi
[ -z "$spank" ] || cp "$spank" "$spank_copy"
for ((j = 1; j <= nodes; j++)); do mkdir "$dir/spool/$(node $j)"; done
: >"$dir/pids"
{
	echo "export SLURM_CONF=$dir/slurm.conf"
} >"$dir/env"

fail() {
	local n shown=0
	tc_err "$*"
	for f in "$dir/log/slurmctld.out" "$dir/log/slurmctld.log"; do
		if [ -s "$f" ]; then
			echo "---- tail of $f" >&2
			tail -n 25 "$f" >&2
		fi
	done
	# the logs of the first few nodes that are not idle
	for n in ${not_idle:-$(node 1)}; do
		[ $shown -lt 3 ] || break
		for f in "$dir/log/slurmd-$n.out" "$dir/log/slurmd-$n.log"; do
			if [ -s "$f" ]; then
				echo "---- tail of $f" >&2
				tail -n 15 "$f" >&2
			fi
		done
		shown=$((shown + 1))
	done
	record_strays
	tc_say "stopping what was started"
	"$here/stop.sh" --dir "$dir" >&2 || true
	exit 1
}

# Daemons of ours that are not (yet) in DIR/pids: a pid file written late,
# a daemon that never wrote one.  Recorded so that stop.sh finds them.
record_strays() {
	local p pid exe ctld slurmd name
	ctld=$(tc_real slurmctld)
	slurmd=$(tc_real slurmd)
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		exe=$(tc_exe "$pid" 2>/dev/null) || continue
		case $exe in
		"$ctld") prog=slurmctld; name="" ;;
		"$slurmd")
			prog=slurmd
			name=$(tc_cmdline "$pid" | grep -A1 -xF -- -N | sed -n 2p)
			;;
		*) continue ;;
		esac
		tc_is_ours "$pid" "$prog" "$name" "$dir" || continue
		grep -q "^$pid " "$dir/pids" || echo "$pid $prog${name:+ $name}" >>"$dir/pids"
	done
}
trap 'fail "interrupted"' INT TERM HUP

# ---- accounting: MariaDB, slurmdbd, the cluster registered ----------------------------------------
if [ "$accounting" = 1 ]; then
	sql() { mariadb --no-defaults --socket="$dir/run/mysql.sock" -u root -e "$1"; }
	mariadb-install-db --no-defaults --user=root --datadir="$dir/mysql" \
		--auth-root-authentication-method=socket --skip-test-db \
		>"$dir/log/mysql-install.log" 2>&1 || fail "mariadb-install-db failed (log/mysql-install.log)"
	# Slurm's recommended lock wait timeout; a small buffer pool (slurmdbd
	# warns that it is below its advice for real sites)
	# (setsid -f: not a child of this script, whose `wait`s it would block)
	(cd "$dir/run" && setsid -f env "$TC_ENV_MARK=$dir" mariadbd --no-defaults --user=root \
		--datadir="$dir/mysql" --socket="$dir/run/mysql.sock" --port="$db_port" \
		--bind-address=127.0.0.1 --skip-name-resolve --innodb-lock-wait-timeout=900 \
		--pid-file="$dir/run/mysqld.pid" --log-error="$dir/log/mysqld.log" \
		</dev/null >/dev/null 2>&1 9>&-)
	for ((i = 0; i < 300; i++)); do
		dpid=$(cat "$dir/run/mysqld.pid" 2>/dev/null || true)
		tc_is_ours "$dpid" mariadbd "" "$dir" && sql "SELECT 1" >/dev/null 2>&1 && break
		dpid=""
		sleep 0.1
	done
	[ -n "$dpid" ] || fail "MariaDB did not start (log/mysqld.log)"
	echo "$dpid mariadbd" >>"$dir/pids"
	sql "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'tmtest';
	     GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
		fail "cannot create the database user"
	(cd "$dir/run" && env "$TC_ENV_MARK=$dir" SLURM_CONF="$dir/slurm.conf" slurmdbd \
		</dev/null >>"$dir/log/slurmdbd.out" 2>&1 9>&-) || fail "slurmdbd did not start"
	for ((i = 0; i < 300; i++)); do
		bpid=$(cat "$dir/run/slurmdbd.pid" 2>/dev/null || true)
		tc_is_ours "$bpid" slurmdbd "" "$dir" && sacctmgr -i list cluster >/dev/null 2>&1 && break
		bpid=""
		sleep 0.1
	done
	[ -n "$bpid" ] || fail "slurmdbd did not start or does not answer (log/slurmdbd.log)"
	echo "$bpid slurmdbd" >>"$dir/pids"
	sacctmgr -i add cluster tmtest >/dev/null || fail "sacctmgr cannot register the cluster"
	tc_say "accounting: MariaDB (port $db_port, data in $dir/mysql) and slurmdbd (port $dbd_port) after $(elapsed) s"
fi

# ---- slurmctld ---------------------------------------------------------------------------------
# -c: no state from an earlier run; -i: ignore errors in state files.
cpid=$(tc_start_ctld "$dir" -c -i) || fail "slurmctld did not start"
tc_say "slurmctld up (pid $cpid, port $ctld_port) after $(elapsed) s"

# ---- slurmd, one per virtual node, started in parallel batches ----------------------------------
batch=32
for ((i = 1; i <= nodes; i += batch)); do
	for ((j = i; j < i + batch && j <= nodes; j++)); do
		n=$(node $j)
		(cd "$dir/run" && env "$TC_ENV_MARK=$dir" nice -n "$slurmd_nice" slurmd -N "$n" -f "$dir/slurm.conf" \
			</dev/null >>"$dir/log/slurmd-$n.out" 2>&1 9>&-) &
	done
	wait || true
done
missing_pids=""
pid_deadline=$(($(date +%s) + 30))
for ((j = 1; j <= nodes; j++)); do
	n=$(node $j)
	pid=""
	while :; do
		pid=$(cat "$dir/run/slurmd-$n.pid" 2>/dev/null || true)
		tc_is_ours "$pid" slurmd "$n" "$dir" && break
		pid=""
		grep -qsE 'fatal:|initialization failed' "$dir/log/slurmd-$n.log" "$dir/log/slurmd-$n.out" &&
			break
		[ "$(date +%s)" -lt $pid_deadline ] || break
		sleep 0.1
	done
	if [ -n "$pid" ]; then
		echo "$pid slurmd $n" >>"$dir/pids"
	else
		missing_pids="$missing_pids $n"
	fi
done
if [ -n "$missing_pids" ]; then
	not_idle=$missing_pids
	fail "no running slurmd for:$missing_pids"
fi
tc_say "$nodes slurmd started after $(elapsed) s"

# ---- wait until every node is idle ------------------------------------------------------------------
deadline=$(($(date +%s) + timeout))
last=0
while :; do
	states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u || true)
	idle=$(printf '%s\n' "$states" | grep -c ' idle$' || true)
	[ "$idle" -eq "$nodes" ] && break
	not_idle=$(printf '%s\n' "$states" | awk '$2 != "idle" { print $1 }' | head -n 3)
	tc_is_ours "$cpid" slurmctld "" "$dir" || fail "slurmctld (pid $cpid) died"
	now=$(date +%s)
	[ "$now" -lt "$deadline" ] || fail "after ${timeout}s only $idle of $nodes nodes are idle"
	if [ $((now - last)) -ge 5 ]; then
		summary=$(printf '%s\n' "$states" | awk 'NF == 2 { c[$2]++ } END { for (s in c) printf " %s:%d", s, c[s] }')
		tc_say "waiting for idle nodes: $idle/$nodes idle ($(elapsed) s;${summary:- no answer})"
		last=$now
	fi
	sleep 0.5
done
trap - INT TERM HUP

# shellcheck disable=SC2046
mem=$(tc_mem_kb $(awk '{ print $1 }' "$dir/pids"))
tc_say "$nodes nodes idle after $(elapsed) s ($select_type, $task_plugin; slurmctld + $nodes slurmd use $(awk -v k="$mem" 'BEGIN { printf "%.0f", k / 1024 }') MiB (PSS))"
tc_say "$selfcheck"
tc_say "state in $dir: slurm.conf topology.conf plugstack.conf cluster.yaml$([ "$tmconf" = 1 ] && echo " topomatch.conf")$([ "$cgroups" = 1 ] && echo " cgroup.conf")$([ "$accounting" = 1 ] && echo " slurmdbd.conf mysql/") log/ pids"
print_env

#!/bin/sh
# bench/contention_streams.sh [--mix default|issue|both] [--jobs N] - the
# loaded streams of issue 20's table (bench/README.md, "Allocation on a
# busy cluster"): each replayed by `topomatch sim` with the contention
# model and the plugin's defaults, topomatch against slurm-tree
# (slurm-linear on the dragonfly), two streams at a time.  Prints one row
# per stream and mix (--rows DIR: the rows of an earlier run's outputs,
# without running again): bounded slowdown topomatch / reference, mean
# hop-bytes ratio, utilisation and work utilisation (points), p95 wait,
# the jobs that kept cons_tres' choice (without a mapping, the mapping on
# more or fewer nodes, cons_tres' nodes scoring lower) and the node
# choice's contention counters (met load / other sets mapped / moved);
# then, per mix, issue 20's targets over the loaded streams (the
# reference's utilization 0.75 or more).
# Takes 15 to 25 minutes on 2 cores; the outputs stay in the work
# directory it names.  --windows TRACE replays windows spread over that
# trace instead, each with its arrivals compressed (atlas: --skip 0,
# 2000, ..., 36000; curie: --skip 0, 10000, ..., 70000; --time-scale 0.5):
# how the same measures vary from window to window; --windows dragonfly,
# eight generated streams (--seed 1 to 8, --load 0.93) on the 512 nodes of
# conf/dragonfly-512.yaml against slurm-linear; --windows dragonfly10k,
# four (--seed 1 to 4) on a 10,240-node dragonfly written in the work
# directory (40 groups x 32 routers x 8 nodes of 2 x 8 cores, 2 global
# links a router; about 3 minutes a stream).  --comm-share S: the
# model's share of a job's run spent communicating (topomatch-sim(1);
# default 0.2), for the sensitivity of the results to it; --sched slurm:
# Slurm's backfill instead of EASY (topomatch-sim(1), SCHEDULING).
# Environment: BUILD_DIR (default build): where tools/topomatch is;
# TMPDIR (default /tmp): where the work directory goes.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
tm=$build/tools/topomatch
mixes="default issue"
jobs=2000
rows_of= windows= share= sched=
while [ $# -gt 0 ]; do
	case $1 in
	--mix)
		case ${2:-} in
		default | issue) mixes=$2 ;;
		both) ;;
		*) echo "contention_streams.sh: --mix: default, issue or both" >&2; exit 2 ;;
		esac
		shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--rows) rows_of=$2; shift 2 ;;
	--comm-share) share=$2; shift 2 ;;
	--sched) sched=$2; shift 2 ;;
	--windows)
		case ${2:-} in
		atlas | curie | dragonfly | dragonfly10k) windows=$2 ;;
		*) echo "contention_streams.sh: --windows: atlas, curie, dragonfly or dragonfly10k" >&2
		   exit 2 ;;
		esac
		shift 2 ;;
	-h | --help) sed -n '2,28p' "$0"; exit 0 ;;
	*) echo "contention_streams.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -x "$tm" ] || { echo "contention_streams.sh: no $tm (BUILD_DIR?)" >&2; exit 1; }
traces=$top/../shared/traces
issue_mix=profiles:$top/bench/profiles,shuffled:profiles:$top/bench/profiles,stencil2d,stencil3d,shuffled:stencil3d,alltoall,tree,random
if [ -n "$rows_of" ]; then
	work=$rows_of
	[ -f "$work/list" ] ||
		{ echo "contention_streams.sh: --rows: no $work/list (not a run's output)" >&2; exit 1; }
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/contention-streams.XXXXXX")
	echo "contention_streams.sh: outputs in $work"
fi

# name|cluster|reference policy|stream options
streams="curie-window|curie-fattree.yaml|slurm-tree|--trace $traces/CEA-Curie-2011-2.1-cln.swf.gz --skip 20000 --jobs $jobs --time-scale 0.5
curie-generated|curie-fattree.yaml|slurm-tree|--generate $jobs --load 0.93
atlas-recorded|atlas-fattree.yaml|slurm-tree|--trace $traces/LLNL-Atlas-2006-2.1-cln.swf.gz --skip 10000 --jobs $jobs
atlas-compressed|atlas-fattree.yaml|slurm-tree|--trace $traces/LLNL-Atlas-2006-2.1-cln.swf.gz --skip 10000 --jobs $jobs --time-scale 0.5
dragonfly|dragonfly.yaml|slurm-linear|--generate $jobs --load 0.93"
case $windows in
atlas) streams=$(for k in $(seq 0 2000 36000); do
	echo "atlas-$k|atlas-fattree.yaml|slurm-tree|--trace $traces/LLNL-Atlas-2006-2.1-cln.swf.gz --skip $k --jobs $jobs --time-scale 0.5"
	done) ;;
curie) streams=$(for k in $(seq 0 10000 70000); do
	echo "curie-$k|curie-fattree.yaml|slurm-tree|--trace $traces/CEA-Curie-2011-2.1-cln.swf.gz --skip $k --jobs $jobs --time-scale 0.5"
	done) ;;
dragonfly) streams=$(for k in $(seq 8); do
	echo "dragonfly512-$k|dragonfly-512.yaml|slurm-linear|--generate $jobs --load 0.93 --seed $k"
	done) ;;
dragonfly10k)
	[ -n "$rows_of" ] || cat >"$work/dragonfly-10k.yaml" <<'EOF'
cluster: df10k
nodes:
  - names: d[00001-10240]
    hardware: "pack:2 core:8 pu:1"
network:
  type: dragonfly
  groups: 40
  routers_per_group: 32
  nodes_per_router: 8
  global_links_per_router: 2
  layout: consecutive
  local_cost: 1
  global_cost: 2
EOF
	streams=$(for k in $(seq 4); do
	echo "dragonfly10k-$k|$work/dragonfly-10k.yaml|slurm-linear|--generate $jobs --load 0.93 --seed $k"
	done) ;;
esac

run() { # MIX NAME CLUSTER REF OPTIONS...
	mix=$1 name=$2 cl=$3 ref=$4
	shift 4
	if [ "$mix" = issue ]; then set -- "$@" --patterns "$issue_mix"; fi
	if [ -n "$share" ]; then set -- "$@" --comm-share "$share"; fi
	if [ -n "$sched" ]; then set -- "$@" --sched "$sched"; fi
	# shellcheck disable=SC2068
	case $cl in /*) ;; *) cl=$top/conf/$cl ;; esac
	"$tm" sim -t "$cl" $@ --policy "$ref,topomatch" --threads 1 --quiet \
		--no-plots --out "$work/$mix-$name" >"$work/$mix-$name.out" 2>&1 ||
		echo "FAILED" >>"$work/$mix-$name.out"
}

row() { # MIX NAME REF
	awk -v mix="$1" -v name="$2" -v ref="$3" '
	/^FAILED/ { failed = 1 }
	$1 == ref || $1 == "topomatch" {
		hb[$1] = $2; p95[$1] = $6; bsld[$1] = $7; util[$1] = $9; wk[$1] = $10 }
	/^topomatch: the mapping chose/ {
		for (i = 1; i <= NF; i++) w[i] = $i
		for (i = 1; i <= NF; i++) {
			if (w[i] == "free" && w[i + 1] == "nodes" && w[i + 2] == "for") over = w[i + 3]
			if (w[i] == "(fewer),") under = w[i - 1]
			if (w[i] == "lower" && w[i + 1] == "for") cons = w[i + 2] + 0
			if (w[i] == "mapping" && w[i + 1] == "for") none = w[i + 2] + 0
		}
	}
	/^topomatch: contention weight [0-9.]+: the first/ {
		for (i = 1; i <= NF; i++) w[i] = $i
		for (i = 1; i <= NF; i++) {
			if (w[i] == "loads" && w[i + 1] == "for") met = w[i + 2]
			if (w[i] == "mapped" && w[i + 1] == "for") cmp = w[i + 2] + 0
			if (w[i] == "won" && w[i + 1] == "for") mv = w[i + 2]
		}
	}
	END {
		if (failed || !bsld[ref]) { printf "| %s %s | FAILED |\n", mix, name; exit }
		rb = bsld["topomatch"] / bsld[ref]; rh = hb["topomatch"] / hb[ref]
		du = util["topomatch"] - util[ref]; rp = p95[ref] > 0 ? p95["topomatch"] / p95[ref] : 1
		# for the summary: mix, the reference utilization, the ratios
		printf "%s %s %s %s %s %s\n", mix, util[ref], rb, rh, du, rp >>stats
		printf "| %s %s | %.2f / %.2f = %.3f | %.3f | %+.1f | %+.1f | %+.1f %% | %d + %d + %d + %d | %s / %s / %s |\n",
			mix, name, bsld["topomatch"], bsld[ref], rb, rh, 100 * du,
			100 * (wk["topomatch"] - wk[ref]), 100 * (rp - 1),
			none, over, under, cons, met, cmp, mv
	}' stats="$work/stats" "$work/$1-$2.out"
}

# a run: the list of streams, then two of them at a time
if [ -z "$rows_of" ]; then
	for mix in $mixes; do
		printf '%s\n' "$streams" | while IFS='|' read -r name cl ref opts; do
			echo "$mix|$name|$cl|$ref|$opts"
		done
	done >"$work/list"
	pids=
	n=0
	while IFS='|' read -r mix name cl ref opts; do
		# shellcheck disable=SC2086
		run "$mix" "$name" "$cl" "$ref" $opts &
		pids="$pids $!"
		n=$((n + 1))
		if [ $((n % 2)) -eq 0 ]; then
			for p in $pids; do wait "$p"; done
			pids=
		fi
	done <"$work/list"
	for p in $pids; do wait "$p"; done
fi

echo "| stream | bsld topomatch / reference | HB ratio | util (points) | work (points) | p95 wait | kept cons_tres' choice (none + more + fewer + cons lower) | met load / other sets mapped / moved |"
echo "|---|---|---|---|---|---|---|---|"
: >"$work/stats"
while IFS='|' read -r mix name cl ref opts; do
	row "$mix" "$name" "$ref"
done <"$work/list"
# issue 20's targets over the loaded streams (the reference's utilization
# 0.75 or more), per mix
awk '{ seen[$1] = 1 }
$2 >= 0.75 {
	n[$1]++; lg[$1] += log($3); b[$1] += $3 <= 0.85; h[$1] += $4 <= 0.85
	u[$1] += $5 >= -0.01 && $5 <= 0.01; w[$1] += $6 <= 1.05 }
END {
	for (m in seen)
		if (!(m in n))
			printf "%s mix: no loaded stream\n", m
	for (m in n)
		printf "%s mix, %d loaded streams: bounded slowdown %.3f x in geometric mean, <= 0.85 x on %d; hop-bytes <= 0.85 x on %d; utilization within a point on %d; p95 wait within +5 %% on %d\n",
			m, n[m], exp(lg[m] / n[m]), b[m], h[m], u[m], w[m]
}' "$work/stats"

#!/bin/sh
# demo.sh - install what is needed, build, and run the main job for real: a
# local Slurm test cluster whose nodes have this machine's shape (up to 2
# cores each, so that binding is real) under leaf switches of 16 cores,
# with select/topomatch, the SPANK plugin and the task plugins sites run
# (task/affinity, task/cgroup); some nodes busy with background jobs; the
# same 64-rank 3D-stencil job run with and without --comm-pattern.  Every
# rank reports its node and the CPUs the kernel lets it run on; the demo
# prints the placement read from the running ranks and its hop-bytes
# (topomatch eval), then stops the cluster and waits for its daemons to
# exit.  Idempotent.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
./contrib/deps.sh
echo "demo: fetching and configuring the installed Slurm's source (cached)"
./contrib/slurm-source.sh >/dev/null
echo "demo: building"
./contrib/build.sh "$top/build"
tm="$top/build/tools/topomatch"
dir=/tmp/tm-demo
work=$(mktemp -d)
chmod 755 "$work" # the ranks run the report script from here
cleanup() {
	SLURM_CONF=$dir/slurm.conf scancel -u "$(id -un)" 2>/dev/null || true
	# stop.sh returns once every daemon and step daemon of the cluster is gone
	"$top/contrib/testcluster/stop.sh" --dir "$dir" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# nodes of up to 2 cores (no more than this machine has), 16 cores a switch
per=2
[ "$(nproc)" -ge 2 ] || per=1
nodes=$((128 / per))
leaf=$((16 / per))
echo "demo: starting the test cluster in $dir: $nodes nodes of $per cores, $leaf a leaf switch"
"$top/contrib/testcluster/start.sh" --dir "$dir" --port-base 28001 \
	--nodes "$nodes" --sockets 1 --cores "$per" --threads 1 --leaf-size "$leaf" \
	--select-dir "$top/build/plugin/select/.libs" \
	--spank "$top/build/plugin/spank/.libs/spank_topomatch.so" \
	--topomatch-conf --topomatch "$tm" >"$work/start.log" 2>&1 ||
	{ cat "$work/start.log"; exit 1; }
sed -n 's/^testcluster: \([0-9]* nodes idle.*\)/demo: \1/p' "$work/start.log"
export SLURM_CONF=$dir/slurm.conf
yaml=$dir/cluster.yaml

# one background job on each of a few nodes spread over the switches
busy=$(awk -v n="$nodes" -v l="$leaf" 'BEGIN { for (j = 3; j <= n; j += l + 5) printf "n%03d ", j }')
echo "demo: background jobs on $busy"
for n in $busy; do
	sbatch -w "$n" --exclusive -o /dev/null --wrap "sleep 600" >/dev/null
done

"$tm" gen stencil3d --dims 4x4x4 --weights 1000,500,100 --shuffle 7 --out "$work/stencil.mtx"
echo "demo: job: 64 ranks of a 4x4x4 stencil (faces 1000/500/100), ranks numbered at random"

# What each rank reports: its rank, node, and the CPUs the kernel allows it
cat >"$work/rank.sh" <<'EOF'
#!/bin/sh
echo "$SLURM_PROCID $SLURMD_NODENAME $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
EOF
chmod 755 "$work/rank.sh"

# run_job NAME [sbatch options]: run the 64 ranks; their reports in NAME.out
run_job() {
	name=$1
	shift
	id=$(sbatch --parsable -n 64 -o "$work/$name.out" -e "$work/$name.err" "$@" \
		--wrap "srun $work/rank.sh")
	for _ in $(seq 300); do
		[ -z "$(squeue -h -j "$id")" ] && break
		sleep 0.2
	done
	[ "$(wc -l <"$work/$name.out")" -eq 64 ] ||
		{ echo "demo: job $id did not run its 64 ranks:" >&2; cat "$work/$name.err" >&2; exit 1; }
	scontrol show job "$id" | sed -n 's/^ *SystemComment=\(topomatch: .*\)/demo:   slurmctld: \1/p'
}

# The placement the ranks ran with: the PU (cluster numbering: node index
# x cores + CPU) of each rank in rank order, and per leaf switch the ranks
# it holds.  A rank allowed on several CPUs counts on its first.
placement() { # NAME
	sort -n "$work/$1.out" | awk -v per="$per" '{ split($3, c, "[-,]"); print (substr($2, 2) - 1) * per + c[1] }' \
		>"$work/$1.pu"
	sort -n "$work/$1.out" | awk -v per="$per" -v leaf="$leaf" '
		{ s = int((substr($2, 2) - 1) / leaf) + 1; r[s] = r[s] " " $1; n[s]++
		  if ($3 ~ /[-,]/) unbound++ }
		END { for (s = 1; s in n || s <= 16; s++) if (s in n) printf "demo:   switch s%d: %2d ranks:%s\n", s, n[s], r[s]
		      if (unbound) printf "demo:   (%d ranks not bound to one CPU)\n", unbound }'
}
hop_bytes() { # NAME
	"$tm" eval -q -t "$yaml" -c "$work/stencil.mtx" -s "$work/$1.pu" --json |
		sed -n 's/^ *"hop_bytes": \([^,]*\),.*/\1/p'
}

echo "demo: with --comm-pattern (select/topomatch chooses the nodes, the SPANK plugin places and binds the ranks):"
run_job with --comm-pattern="$work/stencil.mtx"
placement with
echo "demo: without --comm-pattern (Slurm's nodes, block layout, task/affinity binding):"
run_job without
placement without
hb_with=$(hop_bytes with)
hb_without=$(hop_bytes without)
printf 'demo: hop-bytes of the placements that ran: with pattern %.0f, without %.0f (x%.2f)\n' \
	"$hb_with" "$hb_without" "$(awk -v a="$hb_with" -v b="$hb_without" 'BEGIN { print a / b }')"

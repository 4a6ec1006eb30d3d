#!/bin/sh
# topomatch topo: every conf/ example checks and shows as its golden file;
# errors name FILE:LINE:COL and exit 1; the slurm.conf cross-check; the
# topology.conf import; map/eval on a cluster description.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
conf=$top_srcdir/conf

for f in "$conf"/*.yaml; do
	name=$(basename "$f" .yaml)
	run "$tm" topo check "$f"
	expect_eq "check $name: exit 0" 0 "$rc"
	expect_contains "check $name: says valid" "valid: cluster" "$out"
	run "$tm" topo show "$f"
	expect_eq "show $name: golden" "$(cat "$data/topo/$name.show")" "$out"
done

# errors: exit 1, FILE:LINE:COL, a suggestion
cat >"$work/typo.yaml" <<'YAML'
cluster: x
nodes:
  - names: n[01-04]
    hardware: "core:2 pu:1"
network:
  type: fattree
  levels:
    - arty: 4
YAML
run "$tm" topo check "$work/typo.yaml"
expect_eq "typo: exit 1" 1 "$rc"
expect_contains "typo: position and suggestion" \
	"typo.yaml:8:7: unknown key 'arty' (did you mean 'arity'?)" "$err"
expect_eq "typo: nothing on stdout" "" "$out"
sed 's/arty/arity/' "$work/typo.yaml" >"$work/fixed.yaml"
run "$tm" topo check "$work/fixed.yaml"
expect_eq "fixed: exit 0" 0 "$rc"
"$tm" gen stencil2d --dims 4x4 --out "$work/s16.mtx"
run "$tm" map -t "$work/typo.yaml" -c "$work/s16.mtx"
expect_eq "map -t bad yaml: exit 1" 1 "$rc"
expect_contains "map -t bad yaml: same message" "typo.yaml:8:7: unknown key" "$err"

run "$tm" topo check "$work/missing.yaml"
expect_eq "missing file: exit 1" 1 "$rc"
expect_contains "missing file: named" "missing.yaml" "$err"
run "$tm" topo frobnicate "$conf/dragonfly.yaml"
expect_eq "unknown action: exit 2" 2 "$rc"
run "$tm" topo check
expect_eq "no file: exit 2" 2 "$rc"
run "$tm" topo export "$conf/dragonfly.yaml"
expect_eq "export without --scotch: exit 2" 2 "$rc"

# slurm.conf cross-check, both ways
run "$tm" topo check "$conf/local-test-cluster.yaml" --slurm-conf "$data/cluster/slurm.conf"
expect_eq "slurm.conf agrees: exit 0" 0 "$rc"
run "$tm" topo check "$conf/local-test-cluster.yaml" \
	--slurm-conf "$data/cluster/slurm-mismatch.conf"
expect_eq "slurm.conf disagrees: exit 1" 1 "$rc"
expect_contains "slurm.conf: core counts differ" \
	"local-test-cluster.yaml:9:12: node tm4: 2 sockets, 4 cores, 1 threads per core here, but 1, 4, 1 in" "$err"
expect_contains "slurm.conf: node missing from the YAML" \
	"slurm-mismatch.conf:4:10: node tm5 is not in" "$err"
expect_contains "slurm.conf: a count" "disagree on 2 nodes" "$err"

# import-slurm: the local cluster's topology.conf gives the same cluster
run "$tm" topo import-slurm "$conf/local-topology.conf" --slurm-conf "$data/cluster/slurm.conf"
expect_eq "import-slurm: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$work/imported.yaml"
run "$tm" topo show "$work/imported.yaml"
expect_eq "import-slurm: shows as the hand-written description" \
	"$(cat "$data/topo/local-test-cluster.show")" "$out"
run "$tm" topo import-slurm "$work/missing.conf"
expect_eq "import-slurm missing file: exit 1" 1 "$rc"

# export: Scotch's own formats
run "$tm" topo export --scotch "$conf/plafrim2-fattree.yaml"
expect_eq "export fat tree: a tleaf" "tleaf
5 4 1 22 1 2 1 2 1 6 1" "$out"
run "$tm" topo export --scotch "$conf/graph-example.yaml" --out "$work/g.tgt"
expect_eq "export graph: exit 0" 0 "$rc"
expect_eq "export graph: a deco target" "deco" "$(head -n 1 "$work/g.tgt")"

# map and eval on a cluster: PU ids are the cluster's (576 real PUs)
"$tm" gen stencil2d --dims 16x16 --shuffle 2 --out "$work/s.mtx"
run "$tm" map -t "$conf/irregular-tree.yaml" -c "$work/s.mtx" --out "$work/m.txt" --json
expect_eq "map on a cluster: exit 0" 0 "$rc"
hb=$(json_get hop_bytes)
expect_eq "map on a cluster: every PU id exists" 0 \
	"$(awk '$1 < 0 || $1 >= 576' "$work/m.txt" | wc -l | tr -d ' ')"
run "$tm" eval -t "$conf/irregular-tree.yaml" -c "$work/s.mtx" -s "$work/m.txt" --json
expect_eq "eval on a cluster: same hop-bytes" "$hb" "$(json_get hop_bytes)"
echo 600 >"$work/bad.txt"
run "$tm" map -t "$conf/irregular-tree.yaml" -c "$work/s.mtx" -b "$work/bad.txt"
expect_eq "constraint beyond the cluster's PUs: exit 1" 1 "$rc"

# rankfile: ranks onto the allocation's cores, Open MPI syntax
"$tm" gen hierarchical --arity 4,2 --shuffle 3 --out "$work/h8.mtx"
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodes "tm[3-4]"
expect_eq "rankfile: exit 0" 0 "$rc"
expect_eq "rankfile: one line per rank" 8 "$(printf '%s\n' "$out" | grep -c '^rank ')"
expect_eq "rankfile: only the allocation's nodes" 0 \
	"$(printf '%s\n' "$out" | grep '^rank ' | grep -vc '=tm[34] slot=[01]:[01]$')"
expect_eq "rankfile: every slot once" 8 \
	"$(printf '%s\n' "$out" | grep '^rank ' | sed 's/^rank [0-9]*=//' | sort -u | wc -l | tr -d ' ')"
SLURM_JOB_NODELIST="tm[3-4]" run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx"
expect_eq "rankfile: SLURM_JOB_NODELIST by default" 8 "$(printf '%s\n' "$out" | grep -c '=tm[34] ')"
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodes "tm[4-5]"
expect_eq "rankfile unknown node: exit 1" 1 "$rc"
expect_contains "rankfile unknown node: named" "node tm5 is not in cluster tmtest" "$err"
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodes tm4
expect_eq "rankfile too many ranks: exit 1" 1 "$rc"
expect_contains "rankfile too many ranks: says so" "8 tasks do not fit on 4 PUs" "$err"

# map --nodes: an allocation's PUs only; round-robin is the block layout
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodes "tm[3-4]" \
	--mapper round-robin --out -
expect_eq "map --nodes round-robin: tm3's PUs then tm4's" "8 9 10 11 12 13 14 15" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodes "tm[3-4]" --out -
expect_eq "map --nodes: only those nodes' PUs" 0 \
	"$(printf '%s\n' "$out" | awk '$1 < 8 || $1 > 15' | wc -l | tr -d ' ')"
run "$tm" map -t "tleaf 1 8 1" -c "$work/h8.mtx" --nodes "tm[3-4]"
expect_eq "map --nodes without a cluster: exit 2" 2 "$rc"

# map --cpus-per-task (srun -c): each task takes that many PUs of one node;
# the pairs of a 4-task pattern that talk most share a node
printf '0 100 1 1\n100 0 1 1\n1 1 0 100\n1 1 100 0\n' >"$work/pairs.mat"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --nodes "tm[3-4]" \
	--cpus-per-task 2 --out -
expect_eq "map --cpus-per-task 2: exit 0" 0 "$rc"
expect_eq "map --cpus-per-task 2: first PUs of 2-PU slots, pairs on one node" \
	"8 10 12 14" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --cpus-per-task 3 --out -
expect_eq "map --cpus-per-task 3: one slot per 4-core node" "0 4 8 12" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --nodes tm4 \
	--cpus-per-task 2
expect_eq "map --cpus-per-task, no room: exit 1" 1 "$rc"
expect_contains "map --cpus-per-task, no room: says so" "4 tasks of 2 PUs: room for 2" "$err"
run "$tm" map -t "tleaf 1 8 1" -c "$work/pairs.mat" --cpus-per-task 2
expect_eq "map --cpus-per-task without a cluster: exit 2" 2 "$rc"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --cpus-per-task 0
expect_eq "map --cpus-per-task 0: exit 2" 2 "$rc"

finish

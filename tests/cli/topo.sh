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
expect_eq "export graph: golden (exact distances, then the graph)" \
	"$(cat "$data/topo/graph-example.tgt")" "$(cat "$work/g.tgt")"

# export -> map -t -> the same machine (issue 21 pt 3): one mapping, found on
# the cluster description, has the same hop-bytes on the exported target, and
# a mapper gives the same hop-bytes on both: a dragonfly and a graph (deco 0
# then 2; Scotch's mapping), a torus of 4096 PUs (deco 2 alone) and a fat
# tree (tleaf; round-robin on the shuffled stencil, cheap under valgrind)
"$tm" gen stencil2d --dims 16x16 --shuffle 3 --out "$work/rt.mtx"
for c in dragonfly graph-example bgp-torus plafrim2-fattree; do
	"$tm" topo export --scotch "$conf/$c.yaml" -o "$work/$c.tgt"
	# the graph example has 32 PUs: 8 tasks each
	os=1 m=scotch
	[ "$c" = graph-example ] && os=8
	[ "$c" = bgp-torus ] || [ "$c" = plafrim2-fattree ] && m=round-robin
	run "$tm" map -q -t "$conf/$c.yaml" -c "$work/rt.mtx" --oversub $os --mapper $m \
		-o "$work/$c.map" --json
	yhb=$(json_get hop_bytes)
	run "$tm" eval -t "$work/$c.tgt" -c "$work/rt.mtx" -s "$work/$c.map" --oversub $os --json
	expect_eq "round trip $c: eval of the .yaml's $m mapping on the .tgt, the same hop-bytes" \
		"0 $yhb" "$rc $(json_get hop_bytes)"
	run "$tm" map -q -t "$work/$c.tgt" -c "$work/rt.mtx" --oversub $os --mapper $m --json
	expect_eq "round trip $c: map -t .tgt --mapper $m, the same hop-bytes as on the .yaml" \
		"0 $yhb" "$rc $(json_get hop_bytes)"
done
# one PU: Scotch reads no one-leaf tleaf, so the export is Scotch's
# "cmplt 1", which map -t reads too
cat >"$work/one.yaml" <<'EOF'
cluster: one
nodes:
  - names: a1
    hardware: "pack:1 core:1 pu:1"
network:
  type: graph
  switches: sw[0-1]
  links:
    - [sw0, sw1]
  attach:
    - switch: sw0
      nodes: a1
EOF
run "$tm" topo export --scotch "$work/one.yaml" -o "$work/one.tgt"
expect_eq "export of a 1-PU graph: Scotch's cmplt 1" "0 cmplt 1" "$rc $(tr '\n' ' ' <"$work/one.tgt" | sed 's/ $//')"
printf '0\n' >"$work/one.mat"
run "$tm" map -q -t "$work/one.tgt" -c "$work/one.mat" --json
expect_eq "map -t reads it back: 1 PU, hop-bytes 0" "0 1 0" \
	"$rc $(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(j["topology"]["pus"], j["hop_bytes"])')"
# the graph read back is the same graph
run "$tm" map -q -t "$work/dragonfly.tgt" -c "$work/rt.mtx" --mapper round-robin --json
expect_contains "round trip dragonfly: the same graph" \
	'"description": "graph 1260 vertices, 1314 links, 1152 PUs' "$out"

# deco errors name FILE:LINE (map -t, eval -t alike); --max-bytes bounds targets
head -c 500 "$work/g.tgt" >"$work/cut0.tgt"
run "$tm" map -t "$work/cut0.tgt" -c "$work/rt.mtx"
expect_contains "deco cut in its distances: refused with the way out" \
	"cut0.tgt:1: 'deco' type-0 targets (a distance for every pair of terminals) are read only with the machine graph that topomatch topo export --scotch writes after the distances (none here: another writer, or a truncated file): give the cluster description it was exported from (-t FILE.yaml)" \
	"$rc $err"
awk 'f || (/^deco$/ && NR > 1) { f = 1 } f' "$work/g.tgt" >"$work/g2.tgt"
head -n 100 "$work/g2.tgt" >"$work/cut2.tgt"
run "$tm" eval -t "$work/cut2.tgt" -c "$work/rt.mtx" -s "$work/graph-example.map"
expect_eq "deco 2 cut in its graph: exit 1, FILE:LINE" \
	"1 topomatch eval: $work/cut2.tgt:100: deco: truncated: the file ends before level 0 graph: base" \
	"$rc $err"
sed '5s/.*/5 x/' "$work/g2.tgt" >"$work/bad2.tgt"
run "$tm" map -t "$work/bad2.tgt" -c "$work/rt.mtx"
expect_eq "deco 2 with a word for a number: FILE:LINE" \
	"1 topomatch map: $work/bad2.tgt:5: deco: vertex of terminal 1: 'x' is not an integer" "$rc $err"
printf 'deco\n2\n2 1 1\n0 0\n1 1\n1 2 2 0 -1 1 2 0 0\n2 1 1 0 0 -1 -1 0 0\n3 1 1 1 0 -1 -1 0 0\n0\n2 1\n0 000\n1 1\n0\n1\n0\n' >"$work/asym.tgt"
run "$tm" map -t "$work/asym.tgt" -c "$work/rt.mtx"
expect_eq "deco 2 whose graph has one direction of a link: FILE:LINE" \
	"1 topomatch map: $work/asym.tgt:15: deco: the level-0 graph is not symmetric: arcs to higher-numbered vertices 1, back 0" \
	"$rc $err"
run "$tm" map -q -t "$work/g2.tgt" -c "$work/rt.mtx" --oversub 8 --max-bytes 1000
expect_eq "deco over --max-bytes: refused naming the option" \
	"1 topomatch map: $work/g2.tgt:70: larger than the limit of 1000 bytes (--max-bytes)" "$rc $err"
run "$tm" map -q -t "$work/g2.tgt" -c "$work/rt.mtx" --oversub 8 --max-bytes 100000
expect_eq "deco under a raised --max-bytes: read" 0 "$rc"

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
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" -w "tm[3-4]"
expect_eq "rankfile: exit 0" 0 "$rc"
expect_eq "rankfile: one line per rank" 8 "$(printf '%s\n' "$out" | grep -c '^rank ')"
expect_eq "rankfile: only the allocation's nodes" 0 \
	"$(printf '%s\n' "$out" | grep '^rank ' | grep -vc '=tm[34] slot=[01]:[01]$')"
expect_eq "rankfile: every slot once" 8 \
	"$(printf '%s\n' "$out" | grep '^rank ' | sed 's/^rank [0-9]*=//' | sort -u | wc -l | tr -d ' ')"
SLURM_JOB_NODELIST="tm[3-4]" run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx"
expect_eq "rankfile: SLURM_JOB_NODELIST by default" 8 "$(printf '%s\n' "$out" | grep -c '=tm[34] ')"
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" -w "tm[4-5]"
expect_eq "rankfile unknown node: exit 1" 1 "$rc"
expect_contains "rankfile unknown node: named" "node tm5 is not in cluster tmtest" "$err"
run "$tm" rankfile -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" --nodelist tm4
expect_eq "rankfile too many ranks: exit 1" 1 "$rc"
expect_contains "rankfile too many ranks: says so" "8 tasks do not fit on 4 PUs" "$err"

# map --nodes: an allocation's PUs only; round-robin is the block layout
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" -w "tm[3-4]" \
	--mapper round-robin --out -
expect_eq "map --nodes round-robin: tm3's PUs then tm4's" "8 9 10 11 12 13 14 15" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/h8.mtx" -w "tm[3-4]" --out -
expect_eq "map --nodes: only those nodes' PUs" 0 \
	"$(printf '%s\n' "$out" | awk '$1 < 8 || $1 > 15' | wc -l | tr -d ' ')"
run "$tm" map -t "tleaf 1 8 1" -c "$work/h8.mtx" -w "tm[3-4]"
expect_eq "map --nodes without a cluster: exit 2" 2 "$rc"

# map --cpus-per-task (srun -c): each task takes that many PUs of one node;
# the pairs of a 4-task pattern that talk most share a node
printf '0 100 1 1\n100 0 1 1\n1 1 0 100\n1 1 100 0\n' >"$work/pairs.mat"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" -w "tm[3-4]" \
	--cpus-per-task 2 --out -
expect_eq "map --cpus-per-task 2: exit 0" 0 "$rc"
expect_eq "map --cpus-per-task 2: first PUs of 2-PU slots, pairs on one node" \
	"8 10 12 14" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --cpus-per-task 3 --out -
expect_eq "map --cpus-per-task 3: one slot per 4-core node" "0 4 8 12" "$(echo $out)"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --nodelist tm4 \
	--cpus-per-task 2
expect_eq "map --cpus-per-task, no room: exit 1" 1 "$rc"
expect_contains "map --cpus-per-task, no room: says so" "4 tasks of 2 PUs: room for 2" "$err"
run "$tm" map -t "tleaf 1 8 1" -c "$work/pairs.mat" --cpus-per-task 2
expect_eq "map --cpus-per-task without a cluster: exit 2" 2 "$rc"
run "$tm" map -t "$conf/local-test-cluster.yaml" -c "$work/pairs.mat" --cpus-per-task 0
expect_eq "map --cpus-per-task 0: exit 2" 2 "$rc"

# SECURITY.md's limits on a cluster, just past each (exit 1, FILE:LINE:COL)
# and at it where that is cheap.  limit_yaml FILE NAMES HARDWARE: the
# header of a cluster file; the network follows on stdin.
limit_yaml() {
	{ printf 'cluster: x\nnodes:\n  - names: %s\n    hardware: "%s"\n' "$2" "$3"; cat; } >"$work/$1"
}
# limit_fails DESC FILE MESSAGE: topo check refuses it with MESSAGE
limit_fails() {
	run "$tm" topo check "$work/$2"
	expect_eq "$1: exit 1" 1 "$rc"
	expect_contains "$1: says where and why" "$2:$3" "$err"
}
fattree_2048() { printf 'network:\n  type: fattree\n  levels:\n    - arity: 2048\n    - arity: %s\n' "$1"; }
# TM_CLUSTER_MAX_NODES: 2^22 nodes; 2^22 x 16 = 2^26 PUs (TOPOMATCH_MAX_PUS)
fattree_2048 2048 | limit_yaml nodes_at.yaml "n[0000000-4194303]" "core:16 pu:1"
run "$tm" topo check "$work/nodes_at.yaml"
expect_contains "2^22 nodes of 16 PUs: valid" "4194304 nodes, 67108864 PUs" "$out"
fattree_2048 2049 | limit_yaml nodes_over.yaml "n[0000000-4194304]" "pu:1"
limit_fails "2^22 + 1 nodes" nodes_over.yaml "3:12: names: column 3: more than 4194304 names"
fattree_2048 2049 | limit_yaml positions_over.yaml "n[0000000-4194303]" "pu:1"
limit_fails "2^22 + 2048 fat-tree positions" positions_over.yaml \
	"8:5: levels: more than 4194304 node positions"
printf 'network:\n  type: torus\n  dims: [2048, 2049]\n' |
	limit_yaml routers_over.yaml "n[0000000-4194303]" "pu:1"
limit_fails "2^22 + 2048 torus routers" routers_over.yaml "7:9: dims: more than 4194304 routers"
printf 'network:\n  type: graph\n  switches: s[0000000-4194304]\n  links: []\n  attach:\n    - {switch: s0000000, nodes: n1}\n' |
	limit_yaml switches_over.yaml n1 "pu:1"
limit_fails "2^22 + 1 graph switches" switches_over.yaml \
	"7:13: switches: column 3: more than 4194304 names"
# TM_CLUSTER_MAX_LINKS: 2 groups of 4096 routers, 1 global link each, make
# 2 x 4096 x 4095 / 2 + 4096 = 2^24 links; 2 global links each go past
printf 'network:\n  type: dragonfly\n  groups: 2\n  routers_per_group: 4096\n  global_links_per_router: 2\n' |
	limit_yaml links_over.yaml "n[0000-8191]" "pu:1"
limit_fails "dragonfly of 2^24 + 4096 links" links_over.yaml \
	"7:11: 2 groups of 4096 routers with 2 global links per router ask for more than the limit of 16777216 links"
# TOPOMATCH_MAX_PUS over all nodes: one node of 17 PUs among 2^22
fattree_2048 2048 >"$work/net"
printf 'cluster: x\nnodes:\n  - names: n[0000000-4194302]\n    hardware: "core:16 pu:1"\n  - names: n4194303\n    hardware: "core:17 pu:1"\n' |
	cat - "$work/net" >"$work/pus_over.yaml"
limit_fails "2^26 + 1 PUs" pus_over.yaml "3:12: 67108865 PUs in all, more than 67108864"
# TM_HOSTLIST_MAX_NAME: node names of 255 characters (the fuzz finding had
# 8 names of 276, which were truncated and then not found)
long=$(printf '%0250d' 0 | tr 0 x)
printf 'network:\n  type: mesh\n  dims: [4, 2]\n' |
	limit_yaml name_at.yaml "m[0-7]${long}yyy" "core:2 pu:1"
run "$tm" topo check "$work/name_at.yaml"
expect_contains "names of 255 characters: valid" "8 nodes, 16 PUs" "$out"
printf 'network:\n  type: mesh\n  dims: [4, 2]\n' |
	limit_yaml name_over.yaml "m[0-7]${long}yyyy" "core:2 pu:1"
limit_fails "a name of 256 characters" name_over.yaml \
	"3:12: names: column 1: a name longer than 255 characters"
# PUs of one node (topology/node_hw.c)
fattree_2048 1 | sed 's/2048/1/' | limit_yaml hw_over.yaml n1 "pack:1 core:4097 pu:1"
limit_fails "4097 PUs in a node" hw_over.yaml \
	"4:15: 'pack:1 core:4097 pu:1' has more than 4096 PUs"
fattree_2048 1 | sed 's/2048/1/' | limit_yaml hw_at.yaml n1 "pack:2 core:32 pu:64"
run "$tm" topo check "$work/hw_at.yaml"
expect_contains "4096 PUs in a node: valid" "1 nodes, 4096 PUs" "$out"
# levels (TOPOMATCH_MAX_LEVELS less the node's 8) and dimensions
levels() { printf 'network:\n  type: fattree\n  levels:\n'; for _ in $(seq "$1"); do printf '    - arity: 1\n'; done; }
levels 24 | limit_yaml levels_at.yaml n1 "pu:1"
run "$tm" topo check "$work/levels_at.yaml"
expect_eq "24 network levels: valid" 0 "$rc"
levels 25 | limit_yaml levels_over.yaml n1 "pu:1"
limit_fails "25 network levels" levels_over.yaml "8:5: levels: at most 24 levels"
printf 'network:\n  type: torus\n  dims: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n' |
	limit_yaml dims_at.yaml n1 "pu:1"
run "$tm" topo check "$work/dims_at.yaml"
expect_eq "16 dimensions: valid" 0 "$rc"
printf 'network:\n  type: torus\n  dims: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n' |
	limit_yaml dims_over.yaml n1 "pu:1"
limit_fails "17 dimensions" dims_over.yaml "7:9: dims: at most 16 dimensions"
# the YAML file itself (tm_ylimits_t defaults): 16 MiB, depth 64
{ printf 'cluster: x\n'; head -c 16777206 /dev/zero | tr '\0' '#'; } >"$work/bytes_over.yaml"
limit_fails "16 MiB + 1 bytes of YAML" bytes_over.yaml "2: larger than the limit of 16777216 bytes"
{ printf 'cluster: '; head -c 64 /dev/zero | tr '\0' '['; } >"$work/deep.yaml"
limit_fails "YAML nested 65 deep" deep.yaml "1:73: nested deeper than the limit of 64 levels"
printf 'cluster: &a x\n' >"$work/anchor.yaml"
limit_fails "a YAML anchor" anchor.yaml "1:10: anchors and aliases are not supported"

finish

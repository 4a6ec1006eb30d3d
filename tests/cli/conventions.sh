#!/bin/sh
# Issue 21, point 3: the command line as Slurm and Scotch users expect it.
# -w/--nodelist (--nodes deprecated), -o/--output/--out, --oversub; patterns
# and targets from pipes, stdin and .gz; the "pattern:" line and ambiguous
# files; why auto chose its mapper and the ratio to the natural placement
# (text and JSON, with the topology and, on request, the mapping); metrics
# on stderr when the mapping takes stdout; warnings for options a mapper
# ignores; the valid names in "unknown" errors; --json of topo show and of
# rankfile's summary, pretty-printed like sim's; topo export's targets.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
conf=$top_srcdir/conf
cl=$conf/local-test-cluster.yaml
"$tm" gen hierarchical --arity 4,2 --shuffle 3 --out "$work/h8.mtx"
"$tm" gen stencil2d --dims 4x4 --out "$work/s16.mtx"
topo="tleaf 2 4 10 4 1"

# ---- -w/--nodelist; --nodes still works, with a warning
run "$tm" map -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" --mapper round-robin -o -
expect_eq "-w: an allocation's PUs" "8 9 10 11 12 13 14 15" "$(echo $out)"
run "$tm" map -t "$cl" -c "$work/h8.mtx" --nodelist "tm[3-4]" --mapper round-robin -o -
expect_eq "--nodelist: the same" "8 9 10 11 12 13 14 15" "$(echo $out)"
run "$tm" map -t "$cl" -c "$work/h8.mtx" --nodes "tm[3-4]" --mapper round-robin -o -
expect_eq "--nodes (deprecated): the same PUs" "8 9 10 11 12 13 14 15" "$(echo $out)"
expect_contains "--nodes: deprecation warning" \
	"topomatch map: warning: --nodes is deprecated (in Slurm it is a node count): use -w/--nodelist" "$err"
run "$tm" map -t "$topo" -c "$work/h8.mtx" -w "tm[3-4]"
expect_eq "-w without a cluster: exit 2" 2 "$rc"
expect_contains "-w without a cluster: says so" \
	"-w/--nodelist needs a cluster description (-t FILE.yaml)" "$err"
echo 0 >"$work/c.con"
run "$tm" map -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" -b "$work/c.con"
expect_contains "-w and -b: give one" "-w/--nodelist and -b both restrict the PUs: give one" "$err"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" --nodes "tm[3-4]"
expect_eq "rankfile --nodes (deprecated): exit 0" 0 "$rc"
expect_contains "rankfile --nodes: deprecation warning" \
	"topomatch rankfile: warning: --nodes is deprecated (in Slurm it is a node count): use -w/--nodelist" "$err"
run env -u SLURM_JOB_NODELIST "$tm" rankfile -t "$cl" -c "$work/h8.mtx"
expect_eq "rankfile outside a job without -w: exit 2" 2 "$rc"
expect_contains "rankfile outside a job without -w: says so" \
	"-w/--nodelist is needed outside a Slurm job" "$err"

# ---- -o/--output/--out write the mapping; an old "-o N" is refused
for o in -o --output --out; do
	rm -f "$work/m.map"
	run "$tm" map -t "$topo" -c "$work/h8.mtx" --mapper round-robin $o "$work/m.map"
	expect_eq "map $o FILE: the mapping written" "0 1 2 3 4 5 6 7" "$(echo $(cat "$work/m.map"))"
done
run "$tm" gen stencil2d --dims 4x4 -o "$work/g1.mtx"
expect_eq "gen -o FILE" "0 $(cat "$work/s16.mtx")" "$rc $(cat "$work/g1.mtx")"
run "$tm" gen stencil2d --dims 4x4 --output "$work/g2.mtx"
expect_eq "gen --output FILE" "0 $(cat "$work/s16.mtx")" "$rc $(cat "$work/g2.mtx")"
run "$tm" convert "$data/ompi_monitoring/ring_e1" -o "$work/c1.tri"
"$tm" convert "$data/ompi_monitoring/ring_e1" --out "$work/c2.tri"
expect_eq "convert -o FILE = --out FILE" "0 $(cat "$work/c2.tri")" "$rc $(cat "$work/c1.tri")"
run "$tm" map -t "$topo" -c "$work/h8.mtx" -o 2
expect_eq "map -o 2 (the old oversubscription): exit 2" 2 "$rc"
expect_contains "map -o 2: the new spelling" \
	"-o is the output file now: for at most 2 tasks per PU, --oversub 2 (a file named '2': --out ./2)" "$err"
expect_eq "map -o 2: no file 2 written" no "$([ -e 2 ] && echo yes || echo no)"
run "$tm" eval -t "$topo" -c "$work/h8.mtx" -s "$work/m.map" -o 1
expect_eq "eval -o 1: exit 2" 2 "$rc"
expect_contains "eval -o 1: the new spelling" "-o is no longer the oversubscription factor: --oversub 1" "$err"
run "$tm" map -t "tleaf 1 4 1" -c "$work/h8.mtx" --oversub 2 --mapper round-robin -o -
expect_eq "--oversub 2: 8 tasks on 4 PUs" "0 0 1 1 2 2 3 3" "$(echo $(printf '%s\n' "$out" | sort -n))"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w tm4 --oversub 2 -o "$work/r.rf"
expect_eq "rankfile --oversub 2: 8 ranks on one 4-core node" "0 8" "$rc $(grep -c '^rank' "$work/r.rf")"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w tm4
expect_contains "rankfile too many ranks: names --oversub's factor" "raise the oversubscription factor" "$err"

# ---- the mapping on stdout: the metrics go to stderr
run "$tm" map -t "$topo" -c "$work/h8.mtx" --mapper round-robin -o -
expect_eq "-o -: only the mapping on stdout" 8 "$(printf '%s\n' "$out" | wc -l | tr -d ' ')"
expect_contains "-o -: the metrics on stderr" "hop_bytes " "$err"
run "$tm" map -t "$topo" -c "$work/h8.mtx" --json -o -
expect_eq "--json -o -: exit 2" 2 "$rc"
expect_contains "--json -o -: says why and how" \
	"--json and --out - both want stdout (--json-mapping puts the mapping in the JSON)" "$err"

# ---- inputs from pipes, stdin and .gz
gzip -c "$work/h8.mtx" >"$work/h8.mtx.gz"
printf '%s\n' "$topo" | gzip -c >"$work/t.tgt.gz"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper round-robin --json
ref=$(json_get hop_bytes)
run "$tm" map -q -t "$work/t.tgt.gz" -c "$work/h8.mtx.gz" --mapper round-robin --json
expect_eq ".gz pattern and target" "$ref" "$(json_get hop_bytes)"
mkfifo "$work/fifo"
(printf '%s\n' "$topo" >"$work/fifo" &)
run "$tm" map -q -t "$work/fifo" -c "$work/h8.mtx" --mapper round-robin --json
expect_eq "target from a pipe (what <(...) gives)" "$ref" "$(json_get hop_bytes)"
(cat "$work/h8.mtx.gz" >"$work/fifo" &)
run "$tm" map -q -t "$topo" -c "$work/fifo" --mapper round-robin --json
expect_eq "compressed pattern from a pipe" "$ref" "$(json_get hop_bytes)"
run sh -c "printf '%s\n' '$topo' | '$tm' map -q -t - -c '$work/h8.mtx' --mapper round-robin --json"
expect_eq "target from stdin (-t -)" "$ref" "$(json_get hop_bytes)"
run "$tm" map -t - -c - </dev/null
expect_eq "-t - -c -: exit 2" 2 "$rc"
expect_contains "-t - -c -: says so" "-t - and -c - cannot both read stdin" "$err"
gzip -c "$cl" >"$work/cl.yaml.gz"
run "$tm" map -q -t "$work/cl.yaml.gz" -c "$work/h8.mtx" -w "tm[3-4]" --mapper round-robin -o -
expect_eq "cluster description from .yaml.gz" "8 9 10 11 12 13 14 15" "$(echo $out)"
(cat "$cl" >"$work/fifo" &)
run "$tm" map -q -t "$work/fifo" -c "$work/h8.mtx" -w "tm[3-4]" --mapper round-robin -o -
expect_eq "cluster description from a pipe (recognised by its keys)" \
	"8 9 10 11 12 13 14 15" "$(echo $out)"
"$tm" gen stencil2d --dims 8x8 --weights 7,2 -o "$work/p64.mtx"
gzip -c "$work/p64.mtx" >"$work/p64.mtx.gz"
run "$tm" gen --from-profile "$work/p64.mtx" --tasks 16 -o "$work/fp1.mtx"
run "$tm" gen --from-profile - --tasks 16 -o "$work/fp2.mtx" <"$work/p64.mtx.gz"
expect_eq "gen --from-profile from a compressed stdin" "0 $(cat "$work/fp1.mtx")" \
	"$rc $(cat "$work/fp2.mtx" 2>/dev/null)"
run "$tm" gen --from-profile "$work/none.mtx" --tasks 16
expect_eq "gen --from-profile of a missing file: one message" \
	"1 topomatch gen: $work/none.mtx: cannot open: No such file or directory" "$rc $err"
head -c 100 "$work/h8.mtx.gz" >"$work/cut.gz"
run "$tm" map -t "$topo" -c "$work/cut.gz"
expect_eq "truncated .gz: exit 1" 1 "$rc"
expect_contains "truncated .gz: says so" "cut.gz: truncated gzip data" "$err"
run "$tm" map -t "$topo" -c "$work"
expect_contains "a directory as pattern: says so" "$work: is a directory" "$err"
run "$tm" map -t "$topo" -c "$work/none.mtx"
expect_contains "missing pattern: cannot open" "none.mtx: cannot open: No such file or directory" "$err"
run "$tm" map -t "$work/t.tgt.gz" -c "$work/h8.mtx" --max-bytes 10
expect_eq "target over --max-bytes: exit 1" 1 "$rc"
expect_contains "target over --max-bytes: file and line" \
	"t.tgt.gz:1: larger than the limit of 10 bytes (--max-bytes)" "$err"

# the limit counts decompressed bytes: 300 kB of digits gzip to a few hundred
head -c 300000 /dev/zero | tr '\0' '1' | gzip -c >"$work/big.gz"
run "$tm" map -t "$topo" -c "$work/big.gz" --max-bytes 100000
expect_eq "compressed pattern over --max-bytes once decompressed: exit 1, said" \
	"1 topomatch map: $work/big.gz:1: larger than the limit of 100000 bytes (--max-bytes)" "$rc $err"

# ---- what was read, and ambiguous files
run "$tm" map -t "$topo" -c "$work/h8.mtx"
expect_contains "pattern line: file, format, tasks, entries" \
	"pattern: $work/h8.mtx: mm (a %%MatrixMarket banner), 8 tasks, " "$err"
printf '0 5\n5 0\n' >"$work/d2.mat"
run "$tm" map -t "$topo" -c "$work/d2.mat"
expect_contains "pattern line: dense" "pattern: $work/d2.mat: dense (rows of numbers), 2 tasks, 2 entries" "$err"
printf '0 1 5\n1 2 3\n' >"$work/t.tri"
run "$tm" map -t "$topo" -c "$work/t.tri"
expect_contains "pattern line: triplets guessed from the shape say so" \
	"pattern: $work/t.tri: triplets (every line 'i j w', no '# tasks N' line), 3 tasks, 2 entries" "$err"
run "$tm" map -q -t "$topo" -c "$work/t.tri"
expect_eq "-q: no pattern line" "" "$err"
printf '0 1 2\n1 0 3\n' >"$work/m23.mat"
run "$tm" map -t "$topo" -c "$work/m23.mat"
expect_eq "2 x 3 dense matrix: exit 1 (not 2 tasks of triplets)" 1 "$rc"
expect_contains "2 x 3 dense matrix: ambiguous, file and line, what to do" \
	"m23.mat:1: ambiguous pattern: lines of 3 numbers with zeros where a dense matrix has its diagonal: a dense matrix that is not square, or 'i j w' triplets? Add a '# tasks N' line or give the format (--format dense|triplets)" "$err"
printf '0 1 2\n1 0 3\n2 3 0\n4 4 4\n' >"$work/stray.mat"
run "$tm" map -t "$topo" -c "$work/stray.mat"
expect_contains "3 x 3 matrix and a stray row: ambiguous" "stray.mat:1: ambiguous pattern" "$err"
run "$tm" map -t "$topo" -c "$work/m23.mat" --format triplets
expect_eq "ambiguous, --format triplets: read as triplets" 0 "$rc"
run "$tm" map -t "$topo" -c "$work/m23.mat" --format dense
expect_contains "ambiguous, --format dense: the dense reader's error" "m23.mat:2: too few rows" "$err"

# ---- why auto chose, and the natural placement
run "$tm" map -t "$topo" -c "$work/h8.mtx"
expect_contains "text: why" "why                 auto: a tree, every PU allowed, so TopoMatch's Fig. 3 runs treematch (refined); " "$out"
expect_contains "text: natural hop-bytes" "natural_hop_bytes   " "$out"
expect_contains "text: ratio" "vs_natural          " "$out"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --json
r=$(json_get hop_bytes_vs_natural)
expect_eq "JSON: ratio = hop_bytes / natural_hop_bytes" "$r" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(repr(j["hop_bytes"] / j["natural_hop_bytes"]))')"
expect_eq "JSON: auto beats the shuffled natural placement here" 1 \
	"$("$PYTHON3" -c "print(int($r < 1))")"
expect_eq "JSON: the topology" "tleaf 2 4 10 4 1 tree 16" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; t=json.load(sys.stdin)["topology"]; print(t["description"], t["kind"], t["pus"])')"
expect_eq "JSON: pretty-printed, one key a line" '  "tasks": 8,' "$(printf '%s\n' "$out" | grep '"tasks"')"
expect_eq "JSON: no mapping unless asked" False \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print("mapping" in json.load(sys.stdin))')"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --json-mapping -o "$work/jm.map"
expect_eq "--json-mapping: the mapping written = the one in the JSON" "$(echo $(cat "$work/jm.map"))" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(*json.load(sys.stdin)["mapping"])')"
printf '0 1 1 1\n1 0 1 1\n1 1 0 1\n1 1 1 0\n' >"$work/all4.mat"
run "$tm" map -q -t "tleaf 2 2 10 2 1" -c "$work/all4.mat" --json
expect_eq "all-to-all: nothing beats the natural placement" "round-robin" "$(json_get mapper)"
expect_contains "all-to-all: says it kept the natural placement" \
	"it did not beat the natural placement (task i on the i-th PU), which is kept" "$(json_get reason)"
run "$tm" map -q -t "torus2D 4 4" -c "$work/s16.mtx" --json
expect_contains "torus: why (not a tree: scotch)" "auto: not a tree, so TopoMatch's Fig. 3 runs scotch" \
	"$(json_get reason)"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper eagermap --json
expect_eq "named mapper: the reason is --mapper" "--mapper eagermap" "$(json_get reason)"
run "$tm" map -q -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" --json
expect_eq "cluster: JSON topology names the cluster" "tmtest 4" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; t=json.load(sys.stdin)["topology"]; print(t["cluster"], t["nodes"])')"
expect_contains "allocation: constraints in the reason" "a tree with constraints (allowed PUs)" "$(json_get reason)"

# ---- options the mapper ignores
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper scotch --tau 5
expect_contains "--tau with scotch: warning" \
	"topomatch map: warning: --tau is ignored by scotch (it tunes treematch, which auto and portfolio run on trees only)" "$err"
run "$tm" map -q -t "torus2D 4 4" -c "$work/s16.mtx" --tau 5
expect_contains "--tau with auto off trees: warning" "--tau is ignored by auto on this topology" "$err"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper treematch --sparse-factor 0.2
expect_contains "--sparse-factor with treematch: warning" \
	"topomatch map: warning: --sparse-factor is ignored by treematch (it tunes scotch, auto and portfolio)" "$err"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper treematch --threads 2
expect_contains "--threads with treematch: warning" \
	"topomatch map: warning: --threads is ignored by treematch (portfolio, eagermap and parmapper use threads)" "$err"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --refine
expect_contains "--refine with auto: warning" \
	"topomatch map: warning: --refine is ignored by auto, which always refines" "$err"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper treematch --tau 5
expect_eq "--tau with treematch: no warning" "" "$err"
run "$tm" map -q -t "$topo" -c "$work/h8.mtx" --mapper greedymap:order=bfs --threads 2
expect_contains "mapper options after a colon: the name is what counts" \
	"--threads is ignored by greedymap (" "$err"

# ---- every "unknown X" lists the valid names
names="auto, portfolio, round-robin, random, treematch, topomatch-const, scotch, eagermap, greedymap, parmapper, analytical"
run "$tm" map -t "$topo" -c "$work/h8.mtx" --mapper nonsense
expect_contains "map: unknown mapper lists the names" "unknown mapper 'nonsense' (known: $names)" "$err"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w tm4 --mapper nonsense
expect_contains "rankfile: unknown mapper lists the names" "unknown mapper 'nonsense' (known: $names)" "$err"
run "$tm" explain 1 -c "$work/h8.mtx" --mapper nonsense:x=1
expect_contains "explain: unknown mapper lists the names" "unknown mapper 'nonsense' (known: $names)" "$err"
run "$tm" nonsense
expect_contains "unknown command lists the commands" \
	"topomatch: unknown command 'nonsense' (map, eval, gen, convert, topo, rankfile, sim, explain)" "$err"
run "$tm" map -t "$topo" -c "$work/h8.mtx" --format nonsense
expect_contains "unknown format lists the formats" "(dense, mm, triplets, grf or auto)" "$err"
run "$tm" topo nonsense "$cl"
expect_contains "unknown topo action lists them" "(check, show, export, import-slurm)" "$err"
run "$tm" gen nonsense
expect_contains "unknown gen kind lists them" "unknown KIND 'nonsense' (stencil2d, stencil3d, hierarchical" "$err"
run "$tm" map -t "nonsense" -c "$work/h8.mtx"
expect_contains "unknown target lists the targets" "unknown target 'nonsense', and no file of that name (expected " "$err"

# ---- topo show --json, rankfile --json
run "$tm" topo show "$cl" --json
expect_eq "topo show --json: exit 0" 0 "$rc"
expect_eq "topo show --json: the cluster (diameter: up 4 levels and down)" "tmtest 4 16 16 8" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(j["cluster"], j["nodes"], j["cores"], j["pus"], j["diameter_hops"])')"
expect_eq "topo show --json: pretty-printed" '  "cluster": "tmtest",' "$(printf '%s\n' "$out" | grep '"cluster"')"
run "$tm" topo show "$conf/irregular-tree.yaml" --json
expect_eq "topo show --json: irregular tree: positions and PUs" "768 576" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(j["positions"], j["pus"])')"
run "$tm" topo check "$cl" --json
expect_eq "topo check --json: the verdict and the cluster" "True tmtest 4 16 None" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(j["valid"], j["cluster"], j["nodes"], j["pus"], j["agrees_with"])')"
gzip -c "$cl" >"$work/c.yaml.gz"
run "$tm" topo check "$work/c.yaml.gz"
expect_contains "topo check of a .gz" "valid: cluster tmtest, 4 nodes, 16 PUs" "$out"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" -o "$work/r.rf" --json
expect_eq "rankfile --json: exit 0" 0 "$rc"
expect_eq "rankfile --json: summary" "8 tm[3-4] 2 $work/r.rf" \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(j["ranks"], j["nodelist"], j["nodes_used"], j["rankfile"])')"
expect_eq "rankfile --json: ratio to the natural placement" 1 \
	"$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; j=json.load(sys.stdin); print(int(abs(j["hop_bytes"] / j["natural_hop_bytes"] - j["hop_bytes_vs_natural"]) < 1e-12))')"
expect_eq "rankfile --json: the rankfile written" 8 "$(grep -c '^rank ' "$work/r.rf")"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" --json
expect_eq "rankfile --json to stdout: exit 2" 2 "$rc"
expect_contains "rankfile --json to stdout: says so" \
	"--json and the rankfile both want stdout: give -o FILE" "$err"
run "$tm" rankfile -q -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]"
expect_eq "rankfile -q: nothing on stderr" "" "$err"
run "$tm" rankfile -t "$cl" -c "$work/h8.mtx" -w "tm[3-4]" --output "$work/r2.rf"
expect_contains "rankfile: summary line on stderr" "rankfile: 8 ranks on 2 nodes of tm[3-4], mapper " "$err"

# ---- topo export: the irregular tree's empty positions are said
run "$tm" topo export --scotch "$conf/irregular-tree.yaml" -o "$work/irr.tgt"
expect_contains "export of an irregular tree: warning" \
	"an irregular tree, exported as the regular tree that holds it: 768 positions for 576 PUs" "$err"
run "$tm" map -q -t "$work/irr.tgt" -c "$work/h8.mtx" --json
expect_eq "export of an irregular tree: map -t reads it" 0 "$rc"
finish

#!/bin/sh
# topomatch explain: a running job's placement (golden text, JSON fields,
# hand-checked hop-bytes and switch traffic, the same placement as
# topomatch map on the job's CPUs), a pending job, CPUs per task, a graph
# network, topomatch.conf beside $SLURM_CONF, a pattern sbatch reduces or
# cannot store within PatternKiB, squeue run or missing or
# failing, and every error with its message.
#
# Data (tests/cli/data/explain): squeue-3jobs.json is squeue --json of the
# project's two-node test cluster (cluster-2x2.yaml) with job 2 running the
# pattern p4.mat; squeue-crafted.json is written in the same format for
# cluster-4n.yaml (two sockets of two cores a node, jobs on some cores) and
# the pattern p8.mat; job*.txt are the expected outputs, checked by hand:
#  - job 2: ranks 0,1 on n001 and 2,3 on n002 (the block layout, which no
#    placement beats); hop-bytes 11107 as SystemComment says (2 hops
#    inside a node, 4 between them: 2 x 3938.77 + 4 x 807.367); switch s1
#    carries the four cross-node pairs, 807.367 = 2 x (103.9 + 101.5 +
#    97.8 + 100.4), the top switch nothing.
#  - job 10: the job holds cores 1,2 of n001 (two sockets), 2,3 of n002,
#    0,1 of n003, 0,3 of n004.  Each heavy pair (weight 100) shares a
#    node: 100 x (4 + 2 + 2 + 4) hop-bytes (2 on one socket, 4 across),
#    the light chain (weight 1 a pair) 48, the least it can be (6 under
#    one leaf switch, 8 across): 1248.  Block layout: every heavy pair
#    across the top switch, 4 x 100 x 8 + 32 = 3232.  The top switch
#    carries 3 light pairs, each leaf switch 5.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
d=$top_srcdir/tests/cli/data/explain

# topomatch.conf is looked up beside $SLURM_CONF: keep /etc/slurm out
mkdir -p "$work/etc" "$work/bin" "$work/empty"
SLURM_CONF=$work/etc/slurm.conf
export SLURM_CONF

# explain, run in the data directory (relative names in the output)
ex() { (cd "$d" && "$tm" explain "$@"); }
ex2() { ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json "$@"; }
ex10() { ex 10 -c p8.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json "$@"; }
# py EXPR: EXPR on d = the JSON object in $out
py() {
	printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

# ---------------------------------------------------------------- job 2
run ex2
expect_eq "job 2: exit 0" 0 "$rc"
expect_eq "job 2: golden text" "$(cat "$d/job2.txt")" "$out"
expect_eq "job 2: nothing on stderr" "" "$err"
expect_contains "job 2: SystemComment's line" \
	"slurmctld: topomatch: round-robin mapped 4 tasks onto 2 nodes: 11107 hop-bytes" "$out"
expect_contains "job 2: n001's ranks" "n001 (switches n[001-002] > n[001-002]): rank 0: CPU 0, rank 1: CPU 1" "$out"
expect_contains "job 2: n002's ranks" "n002 (switches n[001-002] > n[001-002]): rank 2: CPU 0, rank 3: CPU 1" "$out"
expect_contains "job 2: hop-bytes of both layouts" \
	"hop-bytes: 11107 here, 11107 with Slurm's block layout on the same CPUs (x1.00)" "$out"

run ex2 --json
expect_eq "job 2 --json: exit 0" 0 "$rc"
expect_eq "job 2 --json: job_id" 2 "$(py 'd["job_id"]')"
expect_eq "job 2 --json: state" RUNNING "$(py 'd["job_state"]')"
expect_eq "job 2 --json: nodes, tasks" "n[001-002] 4" "$(py 'd["nodes"], d["tasks"]' | tr -d "(),'")"
expect_eq "job 2 --json: SystemComment" \
	"topomatch: round-robin mapped 4 tasks onto 2 nodes: 11107 hop-bytes; cons_tres' own nodes: 11107 (x1.00)" \
	"$(py 'd["system_comment"]')"
expect_eq "job 2 --json: the job's copy of the pattern" job "$(py 'd["pattern_source"]')"
expect_eq "job 2 --json: ranks' nodes" "n001 n001 n002 n002" \
	"$(py '" ".join(r["node"] for r in d["ranks"])')"
expect_eq "job 2 --json: ranks' CPUs" "[[0], [1], [0], [1]]" "$(py '[r["cpus"] for r in d["ranks"]]')"
expect_eq "job 2 --json: per node" "n001:[0, 1] n002:[2, 3]" \
	"$(py '" ".join("%s:%s" % (p["node"], p["ranks"]) for p in d["placement"])')"
expect_eq "job 2 --json: hop-bytes (SystemComment's 11107)" "11107.0 11107.0 1.0" \
	"$(py '"%.1f %.1f %.1f" % (d["hop_bytes"], d["block_hop_bytes"], d["ratio"])')"
expect_eq "job 2 --json: switch traffic" "0:n[001-002]:0.000 1:n[001-002]:807.367" \
	"$(py '" ".join("%d:%s:%.3f" % (s["level"], s["nodes"], s["traffic"]) for s in d["switches"])')"
expect_eq "job 2 --json: within nodes, total" "3938.774 4746.142" \
	"$(py '"%.3f %.3f" % (d["within_nodes"], d["pattern_total"])')"

# the placement is topomatch map's on the job's nodes (here the blob's
# rounding of the weights does not change it; the hop-bytes differ by it)
run "$tm" map -t "$d/cluster-2x2.yaml" -c "$d/p4.mat" --nodes 'n[001-002]' --out -
expect_eq "job 2: map's placement" 0 "$rc"
map_pus=$(echo $out)
run ex2 --json
expect_eq "job 2: explain's PUs are map's" "$map_pus" "$(py '" ".join(str(r["pu"]) for r in d["ranks"])')"

# a finished job: where its ranks ran
run ex 1 -c p4.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json
expect_eq "completed job: as job 2 (same nodes and cores)" "0 $(sed 's/^job 2: RUNNING/job 1: COMPLETED/' "$d/job2.txt")" "$rc $out"

# ---------------------------------------------------------------- pending
run ex 3 -c p4.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json
expect_eq "pending: exit 0" 0 "$rc"
expect_eq "pending: golden text" "$(cat "$d/job3.txt")" "$out"
expect_contains "pending: nothing to place" "no allocation yet: nothing to place" "$out"
run ex 3 -c p4.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json --json
expect_eq "pending --json: exit 0" 0 "$rc"
expect_eq "pending --json: fields" "3 PENDING False None no allocation yet: nothing to place" \
	"$(py '"%s %s %s %s %s" % (d["job_id"], d["job_state"], d["allocated"], d["system_comment"], d["note"])')"
# a pending job needs neither the cluster nor a readable pattern
run ex 3 -c missing.mat --squeue-json squeue-3jobs.json
expect_eq "pending: no cluster or pattern read" "0 no allocation yet: nothing to place" \
	"$rc $(printf '%s' "$out" | tail -n 1)"
run ex 17 -c p8.mat --squeue-json squeue-crafted.json
expect_eq "pending with a stale allocation (requeued): nothing to place" \
	"0 no allocation yet: nothing to place" "$rc $(printf '%s' "$out" | tail -n 1)"
run ex 13 -c p8.mat --squeue-json squeue-crafted.json
expect_eq "cancelled before it ran: exit 0" 0 "$rc"
expect_contains "cancelled: nothing to place" "job 13: CANCELLED, 8 tasks
slurmctld: no topomatch line in SystemComment
no allocation: nothing to place" "$out"

# ---------------------------------------------------------------- job 10
run ex10
expect_eq "job 10: exit 0" 0 "$rc"
expect_eq "job 10: golden text" "$(cat "$d/job10.txt")" "$out"
expect_contains "job 10: the topomatch line of a 3-line SystemComment" \
	"slurmctld: topomatch: treematch mapped 8 tasks onto 4 nodes: 1248.01 hop-bytes;" "$out"
run ex10 --json
expect_eq "job 10 --json: exit 0" 0 "$rc"
expect_eq "job 10: hop-bytes 1248 vs block 3232 (by hand)" "1248.0 3232.0" \
	"$(py '"%.1f %.1f" % (d["hop_bytes"], d["block_hop_bytes"])')"
expect_eq "job 10: heavy pairs share a node" "True" \
	"$(py 'all(d["ranks"][i]["node"] == d["ranks"][i + 4]["node"] for i in range(4))')"
expect_eq "job 10: only the job's cores" "True" \
	"$(py 'all(c in {"n001": [1, 2], "n002": [2, 3], "n003": [0, 1], "n004": [0, 3]}[r["node"]] for r in d["ranks"] for c in r["cpus"])')"
expect_eq "job 10: one rank a CPU" 8 \
	"$(py 'len(set((r["node"], r["cpus"][0]) for r in d["ranks"]))')"
expect_eq "job 10: switch traffic (by hand: 3, 5, 5, 400)" \
	"0:n[001-004]:3.0 1:n[001-002]:5.0 1:n[003-004]:5.0 within:400.0" \
	"$(py '" ".join("%d:%s:%.1f" % (s["level"], s["nodes"], s["traffic"]) for s in d["switches"]) + " within:%.1f" % d["within_nodes"]')"
expect_eq "job 10: block layout on the slots in order" "1 2 6 7 8 9 12 15" \
	"$(py '" ".join(str(r["block_pu"]) for r in d["ranks"])')"
explain_pus=$(py '" ".join(str(r["pu"]) for r in d["ranks"])')
# the same as topomatch map restricted to the job's PUs
printf '1 2 6 7 8 9 12 15\n' >"$work/job10.pus"
run "$tm" map -t "$d/cluster-4n.yaml" -c "$d/p8.mat" -b "$work/job10.pus" --out -
expect_eq "job 10: explain's PUs are map's on the job's PUs" "$(echo $out)" "$explain_pus"

# CPUs per task: squeue's, the option's, and too many
run ex 11 -c p4.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json
expect_eq "job 11 (cpus_per_task 2): exit 0" 0 "$rc"
expect_contains "job 11: 2 CPUs per task from squeue" "2 CPUs per task (squeue's cpus_per_task)" "$out"
expect_contains "job 11: a rank owns a slot" "n004 (switches n[001-004] > n[003-004]): rank 3: CPUs 0,3" "$out"
expect_contains "job 11: slots on one node" "n001 (switches n[001-004] > n[001-002]): rank 0: CPUs 1-2" "$out"
run ex 11 -c p4.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json --cpus-per-task 1 --json
expect_eq "job 11 --cpus-per-task 1: 4 ranks on 8 CPUs, heavy pairs together" "1 option True True" \
	"$(py '"%d %s %s %s" % (d["cpus_per_task"], d["cpus_per_task_from"], d["ranks"][0]["node"] == d["ranks"][1]["node"], d["ranks"][2]["node"] == d["ranks"][3]["node"])')"
run ex10 --cpus-per-task 2
expect_eq "8 tasks of 2 CPUs on 8 CPUs: exit 1" 1 "$rc"
expect_contains "8 tasks of 2 CPUs: says so" \
	"job 10: 8 tasks of 2 CPUs do not fit on 8 CPUs: srun keeps Slurm's layout" "$err"
run ex 16 -c p8.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json
expect_contains "cpus_per_task NO_VAL16: not given" "1 CPU per task (squeue gives none" "$out"

# a graph network: maximum link load instead of switches
run ex 10 -c p8.mat -t graph-4n.yaml --squeue-json squeue-crafted.json
expect_eq "graph: exit 0" 0 "$rc"
expect_eq "graph: golden text" "$(cat "$d/job10-graph.txt")" "$out"
expect_contains "graph: max link load (block: 4 heavy pairs on the one link, 200.5 by hand)" \
	"max link load: 51.0002 here, 200.5 with Slurm's block layout (x0.25)" "$out"
run ex 10 -c p8.mat -t graph-4n.yaml --squeue-json squeue-crafted.json --json
expect_eq "graph --json: no switches" "None None 200.5" \
	"$(py '"%s %s %.1f" % (d["switches"], d["within_nodes"], d["block_max_link_load"])')"
graph_pus=$(py '" ".join(str(r["pu"]) for r in d["ranks"])')
run "$tm" map -t "$d/graph-4n.yaml" -c "$d/p8.mat" -b "$work/job10.pus" --out -
expect_eq "graph: explain's PUs are map's" "$(echo $out)" "$graph_pus"

# squeue's JSON from stdin
run sh -c 'cd "$1" && "$2" explain 2 -c p4.mat -t cluster-2x2.yaml --squeue-json - <squeue-3jobs.json' \
	sh "$d" "$tm"
expect_eq "--squeue-json -: the same" "0 $(cat "$d/job2.txt")" "$rc $out"

# ---------------------------------------------------------------- topomatch.conf
run ex 2 -c p4.mat --squeue-json squeue-3jobs.json
expect_eq "no -t, no topomatch.conf: exit 1" 1 "$rc"
expect_contains "no topomatch.conf: named" "$work/etc/topomatch.conf: No such file or directory" "$err"
printf '# test\nClusterYAML=%s\nMapper=round-robin\n' "$d/cluster-4n.yaml" >"$work/etc/topomatch.conf"
run ex 10 -c p8.mat --squeue-json squeue-crafted.json
expect_eq "ClusterYAML of topomatch.conf: exit 0" 0 "$rc"
expect_contains "ClusterYAML used" "cluster fat4 (tree network): $d/cluster-4n.yaml" "$out"
expect_contains "Mapper=round-robin: the block layout" \
	"hop-bytes: 3232.01 here, 3232.01 with Slurm's block layout on the same CPUs (x1.00)" "$out"
run ex 10 -c p8.mat --squeue-json squeue-crafted.json --mapper topomatch-const
expect_eq "--mapper wins over Mapper" "$(sed 1,4d "$d/job10.txt")" "$(printf '%s\n' "$out" | sed 1,4d)"
printf 'ClusterYAML=%s\nMapper=auto\nEnabled=no\n' "$d/cluster-4n.yaml" >"$work/etc/topomatch.conf"
run ex 10 -c p8.mat --squeue-json squeue-crafted.json
expect_contains "Enabled=no: said" "note: topomatch.conf has Enabled=no" "$out"
printf 'ClusterYAML=%s\nMaxTasks=4\n' "$d/cluster-4n.yaml" >"$work/etc/topomatch.conf"
run ex10
expect_eq "more tasks than MaxTasks: exit 0" 0 "$rc"
expect_contains "more tasks than MaxTasks: srun lays the ranks out node by node" \
	"placement by topomatch-const node by node (8 tasks, more than the 4 a decision maps one by one)" "$out"
expect_contains "node by node: each heavy pair on one node, as the whole mapping" \
	"hop-bytes: 1248.01 here, 3232.01 with Slurm's block layout" "$out"
printf 'ClusterYAML=%s\nMapper = auto\nJobBudgetMs=-3\n' "$d/cluster-4n.yaml" >"$work/etc/topomatch.conf"
run ex10
expect_eq "malformed topomatch.conf: exit 1" 1 "$rc"
expect_contains "malformed topomatch.conf: file and line" "$work/etc/topomatch.conf:3: JobBudgetMs" "$err"
printf 'Mapper=auto\n' >"$work/etc/topomatch.conf"
run ex 10 -c p8.mat --squeue-json squeue-crafted.json
expect_contains "no ClusterYAML: said" "$work/etc/topomatch.conf has no ClusterYAML" "$err"
rm -f "$work/etc/topomatch.conf"

# ---------------------------------------------------------------- PatternKiB
# A job on every core of 4 (16) nodes of 2 x 16 cores with a random
# pattern of 128 (512) tasks: sbatch keeps it whole at the default
# PatternKiB, drops pairs at 1 KiB (srun then lays the ranks out from the
# whole file), and stores the 512 tasks in 1 KiB only in groups of 4.
bigjob() { # NODES TASKS: cluster big-NODES.yaml, squeue big-NODES.json
	"$PYTHON3" - "$1" "$2" "$work" <<'EOF'
import json, sys
nodes, tasks, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hl = "n[001-%03d]" % nodes
half = "n[001-%03d]" % (nodes // 2), "n[%03d-%03d]" % (nodes // 2 + 1, nodes)
open("%s/big-%d.yaml" % (work, nodes), "w").write(
    'cluster: big\nnodes:\n  - names: %s\n    hardware: "pack:2 core:16 pu:1"\n'
    'network:\n  type: tree\n  switches:\n    - name: top\n      switches: leaf[1-2]\n'
    '    - name: leaf1\n      nodes: %s\n    - name: leaf2\n      nodes: %s\n' % ((hl,) + half))
alloc = [{"sockets": {str(s): {"cores": {str(c): "allocated" for c in range(16)}} for s in range(2)},
          "nodename": "n%03d" % (i + 1)} for i in range(nodes)]
job = {"job_id": 20, "job_state": "RUNNING", "nodes": hl, "system_comment": "",
       "cpus_per_task": None, "tasks": tasks, "job_resources": {"nodes": hl, "allocated_nodes": alloc}}
json.dump({"jobs": [job]}, open("%s/big-%d.json" % (work, nodes), "w"))
EOF
}
bigjob 4 128 && bigjob 16 512
"$tm" gen random --tasks 128 --degree 6 --out "$work/r128.mat"
"$tm" gen random --tasks 512 --degree 6 --out "$work/r512.mat"
printf 'ClusterYAML=%s\n' "$work/big-4.yaml" >"$work/etc/topomatch.conf"
run "$tm" explain 20 -c "$work/r128.mat" --squeue-json "$work/big-4.json" --json
expect_eq "128 tasks, default PatternKiB: the job's copy, no note" "0 job None" \
	"$rc $(py 'd["pattern_source"], d.get("note")' | tr -d "(),'")"
printf 'ClusterYAML=%s\nPatternKiB=1\n' "$work/big-4.yaml" >"$work/etc/topomatch.conf"
run "$tm" explain 20 -c "$work/r128.mat" --squeue-json "$work/big-4.json"
expect_eq "PatternKiB=1, 128 tasks: exit 0" 0 "$rc"
expect_contains "PatternKiB=1: srun reads the file" "pattern $work/r128.mat: read as srun reads the file" "$out"
expect_contains "PatternKiB=1: the pairs the job carries" \
	"note: the job carries 194 of the pattern's 756 pairs (PatternKiB=1, 65536 pairs for JobBudgetMs=50): srun lays out the ranks with all of them, from the file" "$out"
run "$tm" explain 20 -c "$work/r128.mat" --squeue-json "$work/big-4.json" --json
explain_pus=$(py '" ".join(str(r["pu"]) for r in d["ranks"])')
run "$tm" map -t "$work/big-4.yaml" -c "$work/r128.mat" --nodes 'n[001-004]' --out -
expect_eq "PatternKiB=1: the placement is map's with the whole file" "$(echo $out)" "$explain_pus"
printf 'ClusterYAML=%s\nPatternKiB=1\n' "$work/big-16.yaml" >"$work/etc/topomatch.conf"
run "$tm" explain 20 -c "$work/r512.mat" --squeue-json "$work/big-16.json" --json
expect_eq "PatternKiB=1, 512 tasks: in groups in the job, srun reads the file" \
	"0 file the job carries the pattern in groups of 4 ranks (PatternKiB=1 does not hold its tasks one by one): srun lays out the ranks with all of it, from the file" \
	"$rc $(py '"%s %s" % (d["pattern_source"], d["note"])')"
explain_pus=$(py '" ".join(str(r["pu"]) for r in d["ranks"])')
run "$tm" map -t "$work/big-16.yaml" -c "$work/r512.mat" --nodes 'n[001-016]' --out -
expect_eq "PatternKiB=1, 512 tasks: the placement is map's with the whole file" "$(echo $out)" "$explain_pus"
rm -f "$work/etc/topomatch.conf"

# ---------------------------------------------------------------- squeue
cat >"$work/bin/squeue" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >"$work/squeue.args"
exec /bin/cat "$d/squeue-3jobs.json"
EOF
chmod +x "$work/bin/squeue"
run env PATH="$work/bin:$PATH" sh -c 'cd "$1" && "$2" explain 2 -c p4.mat -t cluster-2x2.yaml' \
	sh "$d" "$tm"
expect_eq "squeue run: the same as its saved output" "0 $(cat "$d/job2.txt")" "$rc $out"
expect_eq "squeue run: with --json only" "--json" "$(cat "$work/squeue.args")"
cat >"$work/bin/squeue" <<'EOF'
#!/bin/sh
echo "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2
exit 1
EOF
run env PATH="$work/bin:$PATH" "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml"
expect_eq "squeue fails: exit 1" 1 "$rc"
expect_contains "squeue fails: its status and stderr" \
	"$work/bin/squeue --json failed (exit status 1): slurm_load_jobs error: Unable to contact slurm controller (connect failure)" "$err"
printf '#!/bin/sh\nkill -9 $$\n' >"$work/bin/squeue"
run env PATH="$work/bin:$PATH" "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml"
expect_contains "squeue killed: said" "$work/bin/squeue --json was killed by signal 9" "$err"
printf '#!/bin/sh\necho "{\\"jobs\\": ["\n' >"$work/bin/squeue"
run env PATH="$work/bin:$PATH" "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml"
expect_contains "squeue's output malformed: named, with its line" \
	"squeue --json's output:2: malformed JSON: unexpected end of data" "$err"
run env PATH="$work/empty" "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml"
expect_eq "no squeue: exit 1" 1 "$rc"
expect_contains "no squeue: said" "cannot run squeue: not found on PATH" "$err"
chmod -x "$work/bin/squeue"
run env PATH="$work/bin" "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml"
expect_contains "squeue not executable: not found" "cannot run squeue: not found on PATH" "$err"

# ---------------------------------------------------------------- errors
run ex 7 -c p4.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json
expect_eq "unknown job: exit 1" 1 "$rc"
expect_eq "unknown job: message" "topomatch explain: job 7: not found in squeue's output (squeue-3jobs.json)" "$err"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json missing.json
expect_eq "missing JSON: exit 1" 1 "$rc"
expect_eq "missing JSON: named" "topomatch explain: missing.json: No such file or directory" "$err"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work"
expect_contains "a directory: named" "$work: Is a directory" "$err"
head -c 5000 "$d/squeue-3jobs.json" >"$work/trunc.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/trunc.json"
expect_eq "truncated JSON: exit 1" 1 "$rc"
expect_eq "truncated JSON: file, last line" \
	"topomatch explain: $work/trunc.json:$(($(wc -l <"$work/trunc.json") + 1)): malformed JSON: unexpected end of data" "$err"
printf '{\n  "jobs": [\n    {"job_id": 2,,}\n  ]\n}\n' >"$work/bad.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/bad.json"
expect_eq "malformed JSON: file and line" \
	"topomatch explain: $work/bad.json:3: malformed JSON: quoted object property name expected" "$err"
printf '{"jobs": []}\n\n  ]\n' >"$work/trail.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/trail.json"
expect_contains "text after the JSON: file and line" "$work/trail.json:3: malformed JSON" "$err"
printf '{"jobs": [{"job_id": 2}]}\0{}' >"$work/nul.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/nul.json"
expect_contains "a NUL byte: said" "$work/nul.json:1: malformed JSON: a NUL byte" "$err"
: >"$work/empty.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/empty.json"
expect_eq "empty JSON: said" "topomatch explain: $work/empty.json: empty: no JSON at all" "$err"
printf '[{"job_id": 2}]\n' >"$work/list.json"
run ex 2 -c p4.mat -t cluster-2x2.yaml --squeue-json "$work/list.json"
expect_contains "not squeue's JSON: said" "no \"jobs\" list: not the output of squeue --json" "$err"
run ex 12 -c p8.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json
expect_eq "node not in the cluster: exit 1" 1 "$rc"
expect_eq "node not in the cluster: named" \
	"topomatch explain: squeue-crafted.json: job 12 runs on node n009, which the cluster description cluster-4n.yaml does not have" "$err"
run ex 2 -c p8.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json
expect_eq "pattern of other size: exit 1" 1 "$rc"
expect_eq "pattern of other size: says both" \
	"topomatch explain: p8.mat: the pattern has 8 tasks, the job 4" "$err"
run ex 2 -c missing.mat -t cluster-2x2.yaml --squeue-json squeue-3jobs.json
expect_eq "missing pattern: exit 1" 1 "$rc"
expect_contains "missing pattern: named" "missing.mat" "$err"
run ex 2 -c p4.mat -t missing.yaml --squeue-json squeue-3jobs.json
expect_contains "missing cluster: named" "missing.yaml" "$err"
run ex 14 -c p8.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json
expect_eq "a socket the node does not have" \
	"topomatch explain: squeue-crafted.json: job 14: node n001: socket \"2\", but the cluster description gives it 2 sockets" "$err"
run ex 15 -c p8.mat -t cluster-4n.yaml --squeue-json squeue-crafted.json
expect_contains "running without cores: said" "job 15 (RUNNING) lists no allocated cores" "$err"

# usage errors: exit 2
for id in abc 0 12_3 4294967296 2x ""; do
	run "$tm" explain "$id" -c "$d/p4.mat" --squeue-json "$d/squeue-3jobs.json"
	expect_eq "JOBID '$id': exit 2" 2 "$rc"
	expect_contains "JOBID '$id': said" "JOBID: '$id' is not a job number" "$err"
done
run "$tm" explain -5 -c "$d/p4.mat"
expect_contains "JOBID -5: an option, exit 2" "2 topomatch explain: unknown option '-5'" "$rc $err"
run "$tm" explain -c "$d/p4.mat"
expect_eq "no JOBID: exit 2" "2" "$rc"
expect_contains "no JOBID: said" "which job? give its JOBID" "$err"
run "$tm" explain 2 --squeue-json "$d/squeue-3jobs.json"
expect_eq "no -c: exit 2" 2 "$rc"
run "$tm" explain 2 3 -c "$d/p4.mat"
expect_contains "two JOBIDs: exit 2" "2 topomatch explain: unexpected argument '3'" "$rc $err"
run "$tm" explain 2 -c "$d/p4.mat" --mapper frobnicate
expect_contains "unknown mapper: exit 2" "2 topomatch explain: unknown mapper 'frobnicate'" "$rc $err"
run "$tm" explain 2 -c "$d/p4.mat" --cpus-per-task 0
expect_eq "--cpus-per-task 0: exit 2" 2 "$rc"
run "$tm" explain 2 -c "$d/p4.mat" --frob
expect_contains "unknown option: exit 2" "2 topomatch explain: unknown option '--frob'" "$rc $err"
run "$tm" explain 2 -c - --squeue-json -
expect_eq "stdin twice: exit 2" 2 "$rc"
run "$tm" explain --help
expect_contains "--help" "Usage: topomatch explain JOBID -c PATTERN" "$rc $out"
if [ -w /dev/full ]; then
	run sh -c '"$1" explain 2 -c "$2/p4.mat" -t "$2/cluster-2x2.yaml" --squeue-json "$2/squeue-3jobs.json" >/dev/full' sh "$tm" "$d"
	expect_contains "stdout full: exit 1, said" "1 topomatch explain: stdout: write failed" "$rc $err"
fi
run "$tm" --help
expect_contains "in the command list" \
	"explain   where a Slurm job's ranks run and the traffic between its switches" "$out"

# malformed fields of the job: a message naming the file, never a crash
"$PYTHON3" - "$d/squeue-3jobs.json" "$work" <<'EOF'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
job = next(j for j in doc["jobs"] if j["job_id"] == 2)
node = lambda j: j["job_resources"]["allocated_nodes"][0]
cases = {
    "tasks-string": lambda j: j.update(tasks="4"),
    "tasks-zero": lambda j: j.update(tasks=0),
    "tasks-null": lambda j: j.update(tasks=None),
    "state-number": lambda j: j.update(job_state=7),
    "comment-list": lambda j: j.update(system_comment=["x"]),
    "cpt-negative": lambda j: j.update(cpus_per_task=-1),
    "cpt-huge": lambda j: j.update(cpus_per_task=5000),
    "resources-list": lambda j: j.update(job_resources=[]),
    "alloc-object": lambda j: j["job_resources"].update(allocated_nodes={}),
    "alloc-strings": lambda j: j["job_resources"].update(allocated_nodes=["n001"]),
    "nodename-number": lambda j: node(j).update(nodename=1),
    "nodename-long": lambda j: node(j).update(nodename="n" * 5000),
    "node-twice": lambda j: j["job_resources"]["allocated_nodes"].append(copy.deepcopy(node(j))),
    "sockets-list": lambda j: node(j).update(sockets=[]),
    "socket-key": lambda j: node(j).update(sockets={"x": {"cores": {"0": "allocated"}}}),
    "socket-negative": lambda j: node(j).update(sockets={"-1": {"cores": {"0": "allocated"}}}),
    "cores-string": lambda j: node(j).update(sockets={"0": {"cores": "0-1"}}),
    "core-big": lambda j: node(j).update(sockets={"0": {"cores": {"99999999999999999999": "allocated"}}}),
    "core-state": lambda j: node(j).update(sockets={"0": {"cores": {"0": 1}}}),
    "core-idle": lambda j: node(j).update(sockets={"0": {"cores": {"0": "idle"}}}),
    "no-cores": lambda j: node(j).update(sockets={}),
}
for name, f in cases.items():
    d = copy.deepcopy(doc)
    j = next(j for j in d["jobs"] if j["job_id"] == 2)
    f(j)
    json.dump(d, open("%s/m-%s.json" % (sys.argv[2], name), "w"))
EOF
for f in "$work"/m-*.json; do
	name=$(basename "$f" .json)
	run "$tm" explain 2 -c "$d/p4.mat" -t "$d/cluster-2x2.yaml" --squeue-json "$f"
	case $name in
	m-state-number | m-comment-list | m-tasks-null | m-resources-list | m-cpt-negative | \
		m-cpt-huge | m-alloc-object | m-alloc-strings | m-nodename-number | m-nodename-long | \
		m-node-twice | m-sockets-list | m-socket-key | m-socket-negative | m-cores-string | \
		m-core-big | m-core-state | m-core-idle | m-tasks-string | m-tasks-zero)
		expect_contains "$name: exit 1, file named" "1 topomatch explain: $f" "$rc $err"
		;;
	*)
		# no cores on the node: 4 tasks on no CPU
		expect_contains "$name: exit 1, said" "1 topomatch explain: job 2: 4 tasks of 1 CPU do not fit on 2 CPUs" "$rc $err"
		;;
	esac
done

finish

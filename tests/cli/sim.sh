#!/bin/sh
# topomatch sim: a hand-computed trace on the local test cluster's shape
# (start times, waits, makespan, utilization, node lists), the JSON
# summary parsed by python3, determinism across runs and thread counts,
# gzip traces, the real Atlas and Curie traces, a generated stream, the
# output files and plots (skipped without gnuplot), and one error test
# per kind of bad input.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
conf=$top_srcdir/conf
traces=$top_srcdir/../shared/traces
cl=$conf/local-test-cluster.yaml # tm1-tm4, 2 leaf switches, 4 cores per node
# Under valgrind (tests/cli/run_valgrind.sh) the streams run the same code
# on fewer jobs: at full size three runs took 4 of sim.sh's 6 minutes there.
if [ "${TM_VALGRIND:-0}" = 1 ]; then
	stream=40 atlas=30
else
	stream=200 atlas=150
fi

# Fields: job submit wait run alloc cpu mem req_procs req_time mem status
# user group exe queue partition prev think.  With 4 cores per node:
# J1 2 nodes 0-100 (req 200); J2 4 nodes at 10 waits for J1; J3 and J4
# (1 node) backfill at 20 and 30 (they end before J1's requested end);
# J5 needs 8 nodes (too big); J6 never ran; J7 (2 nodes, req 1000) at 60
# would delay J2: starts when J2 ends.  With --comm-share 0 every policy
# has J2 100-150, J7 150-650: waits 0 90 0 0 90, makespan 650.
cat >"$work/t.swf" <<'EOF'
; Version: 2.2
; Computer: test cluster
; MaxNodes: 4
; MaxProcs: 16
1 0 0 100 8 -1 -1 8 200 -1 1 1 1 -1 1 1 -1 -1
2 10 0 50 16 -1 -1 16 100 -1 1 1 1 -1 1 1 -1 -1
3 20 0 30 4 -1 -1 4 60 -1 1 1 1 -1 1 1 -1 -1
; a comment
4 30 0 20 2 -1 -1 2 40 -1 1 1 1 -1 1 1 -1 -1
5 40 0 10 32 -1 -1 32 100 -1 1 1 1 -1 1 1 -1 -1
6 50 -1 -1 4 -1 -1 4 100 -1 5 1 1 -1 1 1 -1 -1
7 60 0 500 8 -1 -1 8 1000 -1 1 1 1 -1 1 1 -1 -1
EOF

py() { printf '%s' "$out" | "$PYTHON3" -c "import json,sys; d=json.load(sys.stdin); $1"; }

run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-share 0 --json
expect_eq "hand trace: exit 0" 0 "$rc"
expect_eq "hand trace: the four policies, in order" \
	"['slurm-linear', 'slurm-tree', 'topomatch', 'random']" "$(py 'print(list(d["policies"]))')"
expect_eq "hand trace: jobs simulated and skipped" "5 7 1 1" \
	"$(py 'j=d["jobs"]; print(j["simulated"], j["records"], j["never_ran"], j["too_big"])')"
for p in slurm-linear slurm-tree topomatch random; do
	expect_eq "hand trace, $p: waits, makespan" "36.0 90.0 650.0" \
		"$(py "p=d['policies']['$p']; print(float(p['mean_wait_s']), float(p['p95_wait_s']), float(p['makespan_s']))")"
	expect_eq "hand trace, $p: utilization 1450/2600" "True" \
		"$(py "print(abs(d['policies']['$p']['utilization'] - 1450/2600) < 1e-12)")"
	expect_eq "hand trace, $p: work utilization, the same (no communication)" "True" \
		"$(py "print(abs(d['policies']['$p']['work_utilization'] - 1450/2600) < 1e-12)")"
	expect_eq "hand trace, $p: bounded slowdown (1 + 2.8 + 1 + 1 + 1.18) / 5" "True" \
		"$(py "print(abs(d['policies']['$p']['mean_bounded_slowdown'] - (1 + 140/50 + 1 + 1 + 590/500) / 5) < 1e-12)")"
done
expect_eq "hand trace: every JSON key" "True" "$(py 'print(all(set(["mean_hop_bytes", "mean_wait_s", "p95_wait_s", "mean_bounded_slowdown", "utilization", "makespan_s"]) <= set(v) for v in d["policies"].values()))')"
expect_eq "hand trace: nothing but JSON on stdout" "{" "$(printf '%s' "$out" | head -c 1)"

# the text summary
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-tree --quiet
expect_eq "text: exit 0" 0 "$rc"
expect_contains "text: trace and skips" "5 simulated (7 records read; skipped: 1 never ran, 1 larger than the cluster)" "$out"
expect_contains "text: the header" "MaxNodes 4, MaxProcs 16" "$out"
expect_contains "text: the policy's line" "slurm-tree" "$out"
expect_eq "text: nothing on stderr with --quiet" "" "$err"

# files: CSV with node lists, summary, JSON, plots
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-linear,topomatch --out "$work/o" \
	--quiet
expect_eq "--out: exit 0" 0 "$rc"
expect_eq "--out: CSV lines (header + 2 policies x 5 jobs)" 11 "$(wc -l <"$work/o-jobs.csv")"
expect_eq "--out: J1 on tm1 tm2 under slurm-linear, start and wait" \
	'slurm-linear,1,0,0,0' "$(grep '^slurm-linear,1,' "$work/o-jobs.csv" | cut -d, -f1-4,6)"
expect_eq "--out: J1's node list" '"tm[1-2]"' "$(grep '^slurm-linear,1,' "$work/o-jobs.csv" | cut -d, -f19-)"
expect_eq "--out: J3 backfilled at 20 on tm3" '20,"tm3"' \
	"$(grep '^slurm-linear,3,' "$work/o-jobs.csv" | cut -d, -f4,19)"
expect_eq "--out: J2 on every node" '"tm[1-4]"' "$(grep '^slurm-linear,2,' "$work/o-jobs.csv" | cut -d, -f19-)"
expect_eq "--out: JSON file parses" "['slurm-linear', 'topomatch']" \
	"$("$PYTHON3" -c 'import json,sys; print(list(json.load(open(sys.argv[1]))["policies"]))' "$work/o.json")"
expect_contains "--out: summary file" "topomatch: the mapping chose" "$(cat "$work/o-summary.txt")"
for f in hopbytes wait util kinds; do
	expect_eq "--out: $f data" yes "$([ -s "$work/o-$f.dat" ] && echo yes)"
done
expect_eq "--out: per kind, each policy's mean hop-bytes over the first's" "True" \
	"$(awk '!/^#/ { n++; ok += $2 == 1 && $3 > 0 } END { print (n > 0 && ok == n) ? "True" : "False" }' "$work/o-kinds.dat")"
if command -v gnuplot >/dev/null 2>&1; then
	for f in hopbytes wait util kinds; do
		expect_eq "plot $f.png is a PNG" "PNG" "$(head -c 4 "$work/o-$f.png" | tail -c 3)"
		expect_contains "plot $f.svg is SVG" "<svg" "$(head -c 400 "$work/o-$f.svg")"
	done
else
	echo "skip - gnuplot not installed: no images to check"
fi
# without gnuplot on PATH: data and script, a note, exit 0
run env PATH=/nonexistent "$tm" sim -t "$cl" --trace "$work/t.swf" --policy random --out "$work/np" --quiet
expect_eq "no gnuplot: exit 0" 0 "$rc"
expect_contains "no gnuplot: says so" "gnuplot is not on PATH: no images" "$err"
expect_eq "no gnuplot: script written" yes "$([ -s "$work/np.gp" ] && echo yes)"
expect_eq "no gnuplot: no image" no "$([ -e "$work/np-wait.png" ] && echo yes || echo no)"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --out "$work/nq" --no-plots --quiet
expect_eq "--no-plots: no script" no "$([ -e "$work/nq.gp" ] && echo yes || echo no)"

# determinism: same output twice, with 1 or 2 threads; gzip reads the same
run "$tm" sim -t "$cl" --trace "$work/t.swf" --json --threads 1 --seed 3
first=$out
run "$tm" sim -t "$cl" --trace "$work/t.swf" --json --threads 2 --seed 3
expect_eq "same JSON with 1 and 2 threads" "$first" "$out"
# the topomatch replay's spare threads (the check of cons_tres' nodes
# beside the node choice, a job's link loads added aside; jobs of 32 nodes
# and more: this stream has them from 64 to 576 nodes) change nothing
run "$tm" sim -t "$conf/curie-fattree.yaml" --generate 50 --load 0.95 --policy topomatch \
	--json --threads 1 --seed 5 --quiet
first_tm=$out
expect_eq "spare threads: the node choice narrowed most jobs (checked against cons_tres')" \
	True "$(py 'print(d["policies"]["topomatch"]["narrowed"] > 25)')"
run "$tm" sim -t "$conf/curie-fattree.yaml" --generate 50 --load 0.95 --policy topomatch \
	--json --threads 3 --seed 5 --quiet
expect_eq "spare threads: same JSON with 1 and 3 threads" "$first_tm" "$out"
gzip -c "$work/t.swf" >"$work/t.swf.gz"
run "$tm" sim -t "$cl" --trace "$work/t.swf.gz" --json --seed 3
expect_eq "gzip trace: same JSON" "$first" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --json --seed 4
expect_eq "another seed: other patterns, other results" yes "$([ "$first" != "$out" ] && echo yes)"

# windows (issue 20): J2 (submitted at 10) warms up the window [20, end)
# of J3, J4, J7; times from 10: J2 0-50 holds every node, J3 and J4
# start at 50 (waits 40, 30), J7 at 50 (wait 0).  Utilization from the
# first counted submission (10) to the last end (550): J2's 40 s inside
# it on 4 nodes + 30 + 20 + 2 x 500 = 1210 over 4 x 540.
run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-share 0 --from 20 --warmup 15 \
	--policy slurm-linear --json
expect_eq "window: exit 0" 0 "$rc"
expect_eq "window: 3 counted, 1 warm-up" "3 1" \
	"$(py 'j=d["jobs"]; print(j["counted"], j["warm_up"])')"
expect_eq "window: mean wait 70/3, utilization 1210/2160" "True True" \
	"$(py 'p=d["policies"]["slurm-linear"]; print(abs(p["mean_wait_s"] - 70/3) < 1e-9, abs(p["utilization"] - 1210/2160) < 1e-12)')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-share 0 --from 20 --warmup 15 \
	--policy slurm-linear --out "$work/w" --no-plots --quiet
expect_eq "window CSV: J2 a warm-up job, J3 counted" "1 0" \
	"$(echo $(grep -E '^slurm-linear,(2|3),' "$work/w-jobs.csv" | cut -d, -f18))"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --skip 2 --jobs 1 --warmup 0 --policy random --json
expect_eq "--skip 2 --jobs 1: J3 alone" "1 0 20.0" \
	"$(py 'j=d["jobs"]; print(j["counted"], j["warm_up"], float(j["window_first_submit_s"]))')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --until 5 --policy random --json
expect_eq "--until 5: J1 alone" "1" "$(py 'print(d["jobs"]["counted"])')"
# offered load: 1450 node-seconds over 4 nodes x 60 s; arrivals x 0.5: 30 s
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy random --json
expect_eq "offered load 1450/240" "True" "$(py 'print(abs(d["jobs"]["offered_load"] - 1450/240) < 1e-12)')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy random --time-scale 0.5 --json
expect_eq "--time-scale 0.5: offered load 1450/120" "True 0.5" \
	"$(py 'j=d["jobs"]; print(abs(j["offered_load"] - 1450/120) < 1e-12, j["time_scale"])')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy random --time-scale 0.5 --quiet
expect_contains "--time-scale: in the summary" "load       offered 12.0833 (node-seconds asked over the cluster's between the first and last submission); inter-arrival times x 0.5" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --from 100
expect_eq "empty window: exit 1" 1 "$rc"
expect_contains "empty window: what the trace holds" \
	"t.swf: no job in the window [100, end): the trace's 5 jobs that ran and fit were submitted from 0 to 60 s" "$err"
expect_eq "empty window: nothing on stdout" "" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --skip 5
expect_contains "--skip past the end: says so" "no job in the window after the first 5 jobs" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --from 50 --until 40
expect_eq "--until before --from: exit 2" 2 "$rc"
run "$tm" sim -t "$cl" --generate 5 --skip 2
expect_eq "--skip without a trace: exit 2" 2 "$rc"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --time-scale 0
expect_eq "--time-scale 0: exit 2" 2 "$rc"

# the hop-bytes model gives what the simulator gave before the contention
# model (numbers of the previous version, commit d774bc8; slurm-linear's
# since it takes cons_tres' best fit among runs of free nodes)
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate 200 --policy slurm-linear,slurm-tree \
	--model hop-bytes --json --quiet
expect_eq "--model hop-bytes: the old numbers" \
	"33083.85 184.94097017398525 1.3599561422380864 92910.08226950355 32304.16 184.28702910674872 1.3603701174559983 92823.04113475178 hop-bytes" \
	"$(py 'print(" ".join(repr(v[k]) for v in d["policies"].values() for k in ("mean_hop_bytes", "mean_wait_s", "mean_bounded_slowdown", "makespan_s")), d["model"])')"
# contention (the default): the same placements, run times no shorter
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate 200 --policy slurm-linear,random --json \
	--quiet --time-scale 0.3
expect_eq "contention: the default model" "contention" "$(py 'print(d["model"])')"
expect_eq "contention: random placements run no shorter than the trace: work utilization <= utilization" \
	"True" "$(py 'v=d["policies"]["random"]; print(v["work_utilization"] <= v["utilization"])')"
expect_eq "contention: HB_c / HB >= 1, random placements meet more" "True True" \
	"$(py 'p=d["policies"]; print(all(v["mean_contention"] >= 1 for v in p.values()), p["random"]["mean_contention"] > p["slurm-linear"]["mean_contention"])')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --model fluid
expect_eq "unknown model: exit 2" 2 "$rc"
expect_contains "unknown model: named" "--model: unknown model 'fluid' (contention, hop-bytes)" "$err"

# --sched slurm: Slurm's backfill (the schedules: test_sim_sched), named
# in the summary and the JSON; EASY by default; bad values refused
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-linear --json --quiet
expect_eq "--sched: EASY by default" "easy" "$(py 'print(d["scheduler"])')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-linear --json --quiet --sched slurm \
	--bf-max-job-test 50 --bf-window 120
expect_eq "--sched slurm: in the JSON, with its depth and window" "slurm 50 120.0" \
	"$(py 'print(d["scheduler"], d["bf_max_job_test"], float(d["bf_window_min"]))')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-linear --quiet --sched slurm
expect_contains "--sched slurm: in the summary, Slurm's defaults" \
	"scheduler  Slurm's backfill: the first 500 queued jobs planned, none reserved more than 1440 min ahead" \
	"$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --sched conservative
expect_eq "unknown scheduler: exit 2" 2 "$rc"
expect_contains "unknown scheduler: named" "--sched: unknown scheduler 'conservative' (easy, slurm)" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --bf-window 60
expect_eq "--bf-window without --sched slurm: exit 2" 2 "$rc"
expect_contains "--bf-window without --sched slurm: says so" \
	"--bf-max-job-test and --bf-window go with --sched slurm" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --sched slurm --bf-max-job-test 0
expect_eq "--bf-max-job-test 0: exit 2" 2 "$rc"

# results per pattern kind (issue 20): each kind's means under each
# policy, weighing up to the policy's; on shuffled stencils (no locality
# in the rank numbers) the mapping gains more than on natural ones
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate $stream --policy slurm-tree,topomatch \
	--json --quiet --patterns stencil3d,shuffled:stencil3d,random
expect_eq "per kind: every kind, both policies" \
	"['stencil3d', 'shuffled:stencil3d', 'random'] True" \
	"$(py 'k=d["patterns"]; print([e["name"] for e in k], all(set(e["by_policy"]) == {"slurm-tree", "topomatch"} for e in k))')"
expect_eq "per kind: the jobs' means weigh up to the policy's" "True True" \
	"$(py 'k=d["patterns"]; n=sum(e["jobs"] for e in k); m=lambda p: d["policies"][p]["mean_hop_bytes"]; print(*(abs(sum(e["jobs"] * e["by_policy"][p]["mean_hop_bytes"] for e in k) / n - m(p)) < 1e-6 * m(p) for p in ("slurm-tree", "topomatch")))')"
expect_eq "per kind: topomatch / slurm-tree hop-bytes lower on shuffled than on natural stencils" "True" \
	"$(py 'k={e["name"]: e["by_policy"] for e in d["patterns"]}; r=lambda x: x["topomatch"]["mean_hop_bytes"] / x["slurm-tree"]["mean_hop_bytes"]; print(r(k["shuffled:stencil3d"]) < r(k["stencil3d"]) < 1)')"
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate $stream --policy slurm-tree,topomatch \
	--quiet --patterns stencil3d,shuffled:stencil3d,random
expect_contains "per kind: in the summary" \
	"per pattern kind (window jobs): mean hop-bytes / mean bounded slowdown" "$out"
expect_contains "per kind: a line per kind" "shuffled:stencil3d" "$out"

# contention-aware node choice (issue 20, point 3): the weight in the
# summary and JSON, what it did; 0 compares by hop-bytes only
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate $stream --policy topomatch --json \
	--quiet --time-scale 0.3
expect_eq "--contention-weight: the default in the JSON" "1.0" "$(py 'print(float(d["contention_weight"]))')"
expect_eq "--contention-weight: jobs whose first choice met load, with other sets mapped, moved" \
	"True" "$(py 'p=d["policies"]["topomatch"]; print(p["contention_loaded"] >= p["contention_compared"] >= p["contention_moved"] >= 0 and p["contention_loaded"] > 0)')"
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate $stream --policy topomatch --quiet \
	--time-scale 0.3 --contention-weight 2.5
expect_contains "--contention-weight 2.5: in the summary" \
	"topomatch: contention weight 2.5: the first choice met running jobs' link loads for" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy topomatch --contention-weight 0 --quiet
expect_contains "--contention-weight 0: hop-bytes only" \
	"topomatch: contention weight 0: node sets compared by hop-bytes only" "$out"
# jobs over MaxTasks, mapped node by node, join the running jobs' link
# loads and weigh them (none did before: jobs of up to 256 tasks, 16
# nodes, seldom leave a leaf switch of 18); too slow under valgrind
if [ "${TM_VALGRIND:-0}" != 1 ]; then
	run "$tm" sim -t "$conf/curie-fattree.yaml" --generate 150 --load 0.93 --policy topomatch \
		--json --quiet --max-tasks 256 --threads 1
	expect_eq "--max-tasks 256: jobs mapped node by node meet and weigh link loads" "True" \
		"$(py 'p=d["policies"]["topomatch"]; print(p["blocked"] > 0 and p["contention_loaded"] > 0 and p["contention_moved"] <= p["contention_loaded"])')"
fi
# --pattern-kib: patterns that PatternKiB=1 does not hold one task a
# vertex go in groups of tasks and are still mapped; with the default
# 48 KiB, these 60 jobs' patterns all fit one by one
run "$tm" sim -t "$conf/curie-fattree.yaml" --generate 60 --load 0.9 --policy topomatch \
	--patterns shuffled:stencil3d,random --pattern-kib 1 --json --quiet --threads 1
expect_eq "--pattern-kib 1: jobs mapped with the pattern in groups, more than left unmapped" \
	"True" "$(py 'p=d["policies"]["topomatch"]; print(p["grouped"] > 5 and p["fallback_over_pattern_kib"] < p["grouped"] and p["grouped"] <= p["narrowed"])')"
run "$tm" sim -t "$conf/curie-fattree.yaml" --generate 60 --load 0.9 --policy topomatch \
	--patterns shuffled:stencil3d,random --json --quiet --threads 1
expect_eq "--pattern-kib 48 (default): no groups, nothing over PatternKiB" "0 0" \
	"$(py 'p=d["policies"]["topomatch"]; print(p["grouped"], p["fallback_over_pattern_kib"])')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --pattern-kib 513
expect_eq "--pattern-kib 513: exit 2" 2 "$rc"
expect_contains "--pattern-kib 513: says why" "--pattern-kib: '513' is not" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --contention-weight -1
expect_eq "--contention-weight -1: exit 2" 2 "$rc"
expect_contains "--contention-weight -1: says why" "--contention-weight: '-1' is not a number in [0, 1e+06]" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --contention-weight lots
expect_eq "--contention-weight lots: exit 2" 2 "$rc"

# --comm-wait (issue 20, point 4): jobs put off for a placement within
# x1.05 of the empty machine's, counted in the JSON and the summary
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate $stream --policy topomatch --json \
	--quiet --time-scale 0.3 --comm-wait 3600 --comm-wait-ratio 1.05
expect_eq "--comm-wait 3600: some jobs waited, fewer until their time was up" "True" \
	"$(py 'p=d["policies"]["topomatch"]; print(p["comm_waited"] > 0 and 0 <= p["comm_wait_expired"] <= p["comm_waited"])')"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy topomatch --comm-wait 60 --quiet
expect_contains "--comm-wait 60: in the summary" \
	"topomatch: --comm-wait 60 s: 0 jobs waited for a placement within x1.2 of their hop-bytes" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-wait -1
expect_eq "--comm-wait -1: exit 2" 2 "$rc"
expect_contains "--comm-wait -1: says why" "--comm-wait: '-1' is not a number in [0, 3.1536e+07]" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-wait-ratio 0.5
expect_eq "--comm-wait-ratio 0.5: exit 2" 2 "$rc"
expect_contains "--comm-wait-ratio 0.5: says why" "--comm-wait-ratio: '0.5' is not a number in [1, 1000]" "$err"

# plot axes fit the data (issue 21, point 5): the CDFs' x ranges are set
# from the curves (1st to 99th percentile), linear when the hop-bytes
# ratios span less than a factor 20; waits from 0
expect_eq "plots: an x range per CDF and terminal" 4 "$(grep -c '^set xrange \[' "$work/o.gp")"
expect_eq "plots: the hand trace's hop-bytes ratios on a linear axis" "unset logscale x" \
	"$(grep -B1 '^set xrange' "$work/o.gp" | head -n 1)"
expect_eq "plots: waits from 0" "set xrange [0:" \
	"$(grep '^set xrange' "$work/o.gp" | sed -n 2p | cut -c1-14)"

# patterns written out
mkdir "$work/pat"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy topomatch --patterns stencil2d \
	--dump-patterns "$work/pat" --quiet
expect_eq "--dump-patterns: one file per job" "job-1.mtx job-2.mtx job-3.mtx job-4.mtx job-7.mtx" \
	"$(cd "$work/pat" && echo *)"
expect_eq "--dump-patterns: J2's 4 x 4 stencil" "%%MatrixMarket matrix coordinate real general" \
	"$(head -n 1 "$work/pat/job-2.mtx")"
expect_eq "--dump-patterns: 16 tasks, 4 x 4 x 3 directed pairs" "16 16 48" \
	"$(sed -n 2p "$work/pat/job-2.mtx")"

# recorded profiles (issue 20): a stencil is rescaled to the job's size
# (lammps-melt-64: 3D 7-point 4 x 4 x 4 with wrap-around; 16 tasks: 2 x 2
# x 4, the +-1 messages of the size-2 dimensions summed: 4 partners per
# rank, 64 entries, 2 x the x face weight 2911147.375 to rank 1), a job
# of the file's size gets the recording itself (591 entries)
profiles=$top_srcdir/bench/profiles
printf '; Version: 2.2\n1 0 0 100 16 -1 -1 16 200 -1 1 1 1 -1 1 1 -1 -1\n2 0 0 100 64 -1 -1 64 200 -1 1 1 1 -1 1 1 -1 -1\n' \
	>"$work/p.swf"
mkdir "$work/prof"
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --trace "$work/p.swf" --cores-per-node 16 \
	--patterns "scaled:$profiles/lammps-melt-64.sum.mat" --policy slurm-tree --quiet \
	--dump-patterns "$work/prof"
expect_eq "scaled: exit 0" 0 "$rc"
expect_eq "scaled: 16 tasks, 2 x 2 x 4 stencil" "16 16 64" "$(sed -n 2p "$work/prof/job-1.mtx")"
expect_eq "scaled: the summed x face weight" "1 2 5822294.75" "$(sed -n 3p "$work/prof/job-1.mtx")"
expect_eq "scaled: 64 tasks, the recording" "64 64 591" "$(sed -n 2p "$work/prof/job-2.mtx")"
expect_contains "scaled: the mix says how" \
	"file:lammps-melt-64.sum.mat: stencil 4 x 4 x 4 (7 points, wraps around): rescaled to other sizes" "$out"
# shuffled: the same entries, other ranks
mkdir "$work/shuf"
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --trace "$work/p.swf" --cores-per-node 16 \
	--patterns "shuffled:scaled:$profiles/lammps-melt-64.sum.mat" --policy slurm-tree --quiet \
	--dump-patterns "$work/shuf"
expect_eq "shuffled: as many entries" "16 16 64" "$(sed -n 2p "$work/shuf/job-1.mtx")"
expect_eq "shuffled: the same weights" "$(sed 1,2d "$work/prof/job-1.mtx" | cut -d' ' -f3 | sort | tr '\n' ' ')" \
	"$(sed 1,2d "$work/shuf/job-1.mtx" | cut -d' ' -f3 | sort | tr '\n' ' ')"
expect_eq "shuffled: other ranks" yes \
	"$(cmp -s "$work/prof/job-1.mtx" "$work/shuf/job-1.mtx" || echo yes)"
# the directory: every NAME.sum.mat, natural and shuffled, the weight shared
run "$tm" sim -t "$conf/atlas-fattree.yaml" --trace "$work/t.swf" --cores-per-node 4 --json \
	--patterns "profiles:$profiles,shuffled:profiles:$profiles=2" --policy slurm-tree --quiet
nprof=$(ls "$profiles"/*.sum.mat | wc -l)
expect_eq "profiles: each file twice, weights 1/n and 2/n" "True True True True" \
	"$(py "p=d['patterns']; n=$nprof; print(len(p) == 2 * n, p[0]['weight'] == 1 / n, p[n]['weight'] == 2 / n, p[n]['shuffled'])")"
expect_eq "profiles: lammps-melt-64 a stencil, rescaled; cp2k not" "[4, 4, 4] True None False" \
	"$(py 'p={e["name"]: e for e in d["patterns"]}; a=p["file:lammps-melt-64.sum.mat"]; b=p["file:cp2k-h2o-64.sum.mat"]; print(a["stencil_dims"], a["rescaled"], b["stencil_dims"], b["rescaled"])')"
expect_eq "profiles: every job drew one (J5 fits Atlas: 6 jobs)" 6 \
	"$(py 'print(sum(e["jobs"] for e in d["patterns"]) + d["no_pattern_jobs"])')"
# file: keeps a stencil for the jobs of its size (the 16-task job: none)
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --trace "$work/p.swf" --cores-per-node 16 \
	--patterns "file:$profiles/lammps-melt-64.sum.mat" --policy slurm-tree --quiet --json
expect_eq "file: a stencil for its size only" "1 1 False" \
	"$(py 'e=d["patterns"][0]; print(e["jobs"], d["no_pattern_jobs"], e["rescaled"])')"
# errors: a profile that cannot be rescaled, a missing or empty directory,
# a bad matrix line
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns "scaled:$profiles/cp2k-h2o-64.sum.mat"
expect_eq "scaled non-stencil: exit 1" 1 "$rc"
expect_contains "scaled non-stencil: the file and why" \
	"cp2k-h2o-64.sum.mat: cannot be rescaled to other job sizes, not a stencil: " "$err"
expect_contains "scaled non-stencil: what to use" "gives it to the jobs of 64 tasks" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns "profiles:$work/nodir"
expect_eq "profiles: missing directory: exit 1" 1 "$rc"
expect_contains "profiles: missing directory: named" "profiles:$work/nodir: No such file or directory" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns "profiles:$work/prof"
expect_contains "profiles: none in the directory" "no NAME.sum.mat profile in that directory" "$err"
printf '0 1\n1 x\n' >"$work/bad.sum.mat"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns "file:$work/bad.sum.mat"
expect_eq "bad matrix: exit 1" 1 "$rc"
expect_contains "bad matrix: file and line" "bad.sum.mat:2" "$err"

# real traces: Atlas on its cluster file, Curie's first jobs on its own
if [ -r "$traces/LLNL-Atlas-2006-2.1-cln.swf.gz" ]; then
	run "$tm" sim -t "$conf/atlas-fattree.yaml" --trace "$traces/LLNL-Atlas-2006-2.1-cln.swf.gz" \
		--jobs $atlas --json --quiet
	expect_eq "Atlas: exit 0" 0 "$rc"
	expect_eq "Atlas: $atlas jobs, 8 cores per node" "$atlas 8 1152" \
		"$(py 'print(d["jobs"]["simulated"], d["cores_per_node"], d["nodes"])')"
	expect_eq "Atlas: topomatch no worse than random in hop-bytes" "True" \
		"$(py 'p=d["policies"]; print(p["topomatch"]["mean_hop_bytes"] <= p["random"]["mean_hop_bytes"])')"
else
	echo "skip - no Atlas trace"
fi
if [ -r "$traces/CEA-Curie-2011-2.1-cln.swf.gz" ]; then
	run "$tm" sim -t "$conf/curie-fattree.yaml" --trace "$traces/CEA-Curie-2011-2.1-cln.swf.gz" \
		--jobs 40 --policy slurm-tree,slurm-linear --json --quiet
	expect_eq "Curie: 40 jobs, 16 cores per node, 5040 nodes" "40 16 5040" \
		"$(py 'print(d["jobs"]["simulated"], d["cores_per_node"], d["nodes"])')"
else
	echo "skip - no Curie trace"
fi

# a generated stream
run "$tm" sim -t "$conf/plafrim2-fattree.yaml" --generate 60 --json --quiet
expect_eq "generated: 60 jobs" 60 "$(py 'print(d["jobs"]["simulated"])')"
run "$tm" sim -t "$conf/bgp-torus.yaml" --generate 30 --jobs 20 --json --quiet
expect_eq "torus: no slurm-tree by default, 20 jobs" "['slurm-linear', 'topomatch', 'random'] 20" \
	"$(py 'print(list(d["policies"]), d["jobs"]["simulated"])')"

# ---- errors: exit 1 for bad input, 2 for bad usage, a message each
sed 's/^3 20 0 30 4 -1 -1 4 60 -1 1 1 1 -1 1 1 -1 -1$/3 20 0 30 4 -1 -1 4 60 -1 1 1 1 -1 1 1 -1/' \
	"$work/t.swf" >"$work/short.swf"
run "$tm" sim -t "$cl" --trace "$work/short.swf"
expect_eq "short line: exit 1" 1 "$rc"
expect_contains "short line: file and line" "short.swf:7: 17 fields, an SWF record has 18" "$err"
expect_eq "short line: nothing on stdout" "" "$out"
sed 's/^4 30 0 20 /4 30 0 2x0 /' "$work/t.swf" >"$work/word.swf"
run "$tm" sim -t "$cl" --trace "$work/word.swf" --json
expect_eq "non-number: exit 1" 1 "$rc"
expect_contains "non-number: file, line and field" \
	"word.swf:9: field 4 (run time): '2x0' is not a number" "$err"
gzip -c "$work/short.swf" >"$work/short.swf.gz"
run "$tm" sim -t "$cl" --trace "$work/short.swf.gz"
expect_contains "gzip short line: file and line" "short.swf.gz:7: 17 fields" "$err"
head -c 100 "$work/t.swf.gz" >"$work/cut.swf.gz"
run "$tm" sim -t "$cl" --trace "$work/cut.swf.gz"
expect_eq "truncated gzip: exit 1" 1 "$rc"
expect_contains "truncated gzip: names the file" "cut.swf.gz:" "$err"
run "$tm" sim -t "$cl" --trace "$work/missing.swf"
expect_eq "missing trace: exit 1" 1 "$rc"
expect_contains "missing trace: named" "missing.swf: No such file or directory" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --policy slurm-tree,best-fit
expect_eq "unknown policy: exit 2" 2 "$rc"
expect_contains "unknown policy: named, with the known ones" \
	"--policy: unknown policy 'best-fit' (slurm-linear, slurm-tree, topomatch, random)" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --jobs 0
expect_eq "--jobs 0: exit 2" 2 "$rc"
expect_contains "--jobs 0: says why" "--jobs: '0' is not an integer in [1," "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --jobs 12x
expect_eq "--jobs 12x: exit 2" 2 "$rc"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns stencil2d,ring
expect_eq "unknown pattern kind: exit 2" 2 "$rc"
expect_contains "unknown pattern kind: named" "unknown kind 'ring'" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --patterns "file:$work/nope.mtx"
expect_eq "missing pattern file: exit 1" 1 "$rc"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --comm-share 1.5
expect_eq "--comm-share 1.5: exit 2" 2 "$rc"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --mapper best
expect_eq "unknown mapper: exit 2" 2 "$rc"
run "$tm" sim -t "$cl"
expect_eq "no stream: exit 2" 2 "$rc"
expect_contains "no stream: says what to give" "--trace FILE or --generate N" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --generate 5
expect_eq "two streams: exit 2" 2 "$rc"
run "$tm" sim --trace "$work/t.swf"
expect_eq "no cluster: exit 2" 2 "$rc"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --no-plots
expect_eq "--no-plots without --out: exit 2" 2 "$rc"
run "$tm" sim -t "$conf/bgp-torus.yaml" --generate 5 --policy slurm-tree
expect_eq "slurm-tree on a torus: exit 1" 1 "$rc"
expect_contains "slurm-tree on a torus: says why" "slurm-tree: " "$err"
expect_contains "slurm-tree on a torus: the network" "torus network, not a tree" "$err"
printf '1 0 0 100 64 -1 -1 64 200 -1 1 1 1 -1 1 1 -1 -1\n' >"$work/big.swf"
run "$tm" sim -t "$cl" --trace "$work/big.swf"
expect_eq "nothing fits: exit 1" 1 "$rc"
expect_contains "nothing fits: says so" "no job to simulate (1 records; 0 never ran, 0 without a processor count, 1 larger than the cluster's 4 nodes)" "$err"
# a record that ran without a processor count (fields 5 and 8 missing)
printf '1 0 0 100 -1 -1 -1 -1 200 -1 1 1 1 -1 1 1 -1 -1\n2 5 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n' >"$work/noprocs.swf"
run "$tm" sim -t "$cl" --trace "$work/noprocs.swf" --policy random --quiet
expect_contains "no processor count: counted apart" \
	"1 simulated (2 records read; skipped: 0 never ran, 1 without a processor count, 0 larger" "$out"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --out /nonexistent/dir/o --quiet
expect_eq "unwritable --out: exit 1" 1 "$rc"
expect_contains "unwritable --out: names the file" "/nonexistent/dir/o-jobs.csv" "$err"
run "$tm" sim -t "$cl" --trace "$work/t.swf" --frobnicate
expect_eq "unknown option: exit 2" 2 "$rc"
run "$tm" sim --help
expect_contains "--help: usage" "Usage: topomatch sim -t CLUSTER.yaml" "$out"

finish

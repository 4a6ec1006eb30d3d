#!/bin/sh
# bench/tm_bench --quick --json: the benchmark runs, its JSON is sound,
# every mapper of a case gives a valid (one task per PU, allowed PUs only)
# row, and Scotch called directly, searched over its settings, gives the
# reference row the ratios are taken to.  Quality floors are in
# quality_floors.sh.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
: "${TM_BENCH:?run through make check (TM_BENCH = the tm_bench binary)}"

run "$TM_BENCH" --quick --json
expect_eq "tm_bench --quick --json exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"

# check NAME: one fact about the JSON, printed by the Python below
check() {
	"$PYTHON3" - "$1" "$work/quick.json" <<'EOF'
import json, math, sys

what, path = sys.argv[1], sys.argv[2]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    print("unparsable: %s" % e)
    sys.exit(0)
cases = doc.get("cases", [])
rows = [(c["name"], r) for c in cases for r in c["rows"]]


def pos(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def row(case, mapper):
    return next((r for r in case["rows"] if r["mapper"] == mapper), None)


if what == "parses":
    print("yes")
elif what == "cases":
    print(" ".join(c["name"] for c in cases))
elif what == "bad-hop-bytes":
    # every row that ran has finite positive hop-bytes
    print(" ".join("%s/%s" % (n, r["mapper"]) for n, r in rows
                   if r["ok"] and not pos(r["hop_bytes"])) or "none")
elif what == "failed-or-invalid":
    # every mapper is implemented: each row runs and is one task per PU
    print(" ".join("%s/%s" % (n, r["mapper"]) for n, r in rows
                   if not (r["ok"] and r["valid"])) or "none")
elif what == "search":
    # Scotch direct tried every setting, and its row is the best of them:
    # one-to-one, or repaired, as the search says
    bad = []
    for c in cases:
        sd, d = c.get("scotch_direct"), row(c, "scotch-direct")
        if not (sd and d and d["ok"] and sd["best"]):
            bad.append(c["name"])
            continue
        settings = sd["settings"]
        vals = [s["hop_bytes"] if s["valid"] else s["repaired_hop_bytes"]
                for s in settings if s["ok"]]
        vals = [v for v in vals if pos(v)]
        b = sd["best"]
        bv = b["hop_bytes"] if b["valid"] else b["repaired_hop_bytes"]
        flags = sorted(set(s["strategy"] for s in settings))
        bals = sorted(set(s["balance"] for s in settings))
        if (flags != ["balance", "default", "quality", "quality+balance", "recursive"]
                or bals != [0, 0.01, 0.05] or len(settings) != 15
                or bv != min(vals) or d["hop_bytes"] != bv):
            bad.append(c["name"])
    print(" ".join(bad) or "best")
elif what == "silent-failures":
    # a row that did not run says why
    print(" ".join("%s/%s" % (n, r["mapper"]) for n, r in rows
                   if not r["ok"] and not r.get("error")) or "none")
elif what == "direct":
    bad = []
    for c in cases:
        d = row(c, "scotch-direct")
        if not (d and d["ok"] and d["valid"] and pos(d["hop_bytes"])
                and pos(d["time_s"]) and d["hop_bytes_ratio"] == 1):
            bad.append(c["name"])
    print(" ".join(bad) or "valid")
elif what == "baselines":
    # natural (unshuffled, round-robin) and round-robin (shuffled) rows ran
    bad = ["%s/%s" % (c["name"], m) for c in cases
           for m in ("natural", "round-robin")
           if not (row(c, m) and row(c, m)["ok"])]
    print(" ".join(bad) or "present")
elif what == "shuffle-hurts":
    # the shuffle is what the mappers must undo: round-robin gets worse
    bad = []
    for c in cases:
        rr, nat = row(c, "round-robin"), row(c, "natural")
        if not (rr and nat and rr["ok"] and nat["ok"]
                and rr["hop_bytes"] > nat["hop_bytes"]):
            bad.append(c["name"])
    print(" ".join(bad) or "yes")
elif what == "ratios":
    # hop_bytes_ratio = hop_bytes / scotch-direct's
    bad = []
    for c in cases:
        d = row(c, "scotch-direct")
        if not (d and d["ok"]):
            continue  # "direct" reports it
        d = d["hop_bytes"]
        for r in c["rows"]:
            if r["ok"] and abs(r["hop_bytes_ratio"] - r["hop_bytes"] / d) > 1e-9:
                bad.append("%s/%s" % (c["name"], r["mapper"]))
    print(" ".join(bad) or "consistent")
elif what == "rss":
    print(" ".join("%s/%s" % (n, r["mapper"]) for n, r in rows
                   if not pos(r["peak_rss_mib"])) or "measured")
elif what == "not-reproducible":
    print(" ".join("%s/%s" % (n, r["mapper"]) for n, r in rows
                   if r["ok"] and not r["reproducible"]) or "none")
elif what == "natural-order":
    # ranks in natural order: no round-robin row (it would be natural again),
    # and auto never worse than the natural placement (Mapping engine II)
    bad = []
    for c in cases:
        nat, auto = row(c, "natural"), row(c, "auto")
        if row(c, "round-robin") or not (nat and auto and nat["ok"] and auto["ok"]
                                         and auto["hop_bytes"] <= nat["hop_bytes"]):
            bad.append(c["name"])
    print(" ".join(bad) or "yes")
elif what == "fragments":
    # the fragmented family: the draw is printed, every free PU allowed,
    # and with more PUs than tasks Scotch tried both formulations
    bad = []
    for c in cases:
        fr, sd = c.get("fragments"), c.get("scotch_direct") or {}
        forms = sorted(set(s.get("form") for s in sd.get("settings", [])))
        want = ["padded", "sub-arch"] if c["allowed_pus"] > c["ranks"] else ["sub-arch"]
        if not (fr and fr["seed"] > 0 and 0 < fr["free_nodes"] < fr["cluster_nodes"]
                and c["allowed_pus"] >= c["ranks"] and forms == want
                and len(sd["settings"]) == 15 * len(want)):
            bad.append(c["name"])
    print(" ".join(bad) or "drawn")
elif what == "targets-pass":
    # what --check's exit status must say
    print("yes" if all(t["status"] == "pass" for t in doc.get("targets", [])) else "no")
elif what.startswith("hop-bytes:"):
    print(" ".join("%s/%s=%r" % (n, r["mapper"], r["hop_bytes"]) for n, r in rows
                   if n == what[len("hop-bytes:"):]))
EOF
}

expect_eq "JSON parses" yes "$(check parses)"
expect_eq "quick cases" "tree-1k frag-1k" "$(check cases)"
expect_eq "rows that ran have finite positive hop-bytes" none "$(check bad-hop-bytes)"
expect_eq "rows that did not run carry a message" none "$(check silent-failures)"
expect_eq "every row ran and is valid" none "$(check failed-or-invalid)"
expect_eq "Scotch direct is the best of its 15 settings" best "$(check search)"
expect_eq "Scotch direct produced a valid row in every case" valid "$(check direct)"
expect_eq "natural and round-robin rows present" present "$(check baselines)"
expect_eq "shuffled ranks cost more in natural order" yes "$(check shuffle-hurts)"
expect_eq "hop-bytes ratios are to Scotch direct" consistent "$(check ratios)"
expect_eq "peak RSS measured for every row" measured "$(check rss)"

# same inputs + same seed = same mappings (DESIGN.md), Scotch direct
# included: across processes, and within one (--repeat compares the
# mappings); one case is enough and keeps the smoke run short
first=$(check hop-bytes:frag-1k)
run "$TM_BENCH" --case frag-1k --repeat 2 --json
expect_eq "--case frag-1k --repeat 2 exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"
expect_eq "a second run gives the same hop-bytes" "$first" "$(check hop-bytes:frag-1k)"
expect_eq "repeated runs give the same mappings" none "$(check not-reproducible)"

# --check: exit status 3 exactly when a target of the cases run did not pass
for c in tree-1k frag-1k; do
	run "$TM_BENCH" --case $c --check --json
	printf '%s' "$out" >"$work/quick.json"
	if [ "$(check targets-pass)" = yes ]; then want=0; else want=3; fi
	expect_eq "--case $c --check: exit status as the targets say" $want "$rc"
done

run "$TM_BENCH" --case frag-1k-nat --json
expect_eq "--case frag-1k-nat exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"
expect_eq "natural order: auto no worse than the natural placement" yes \
	"$(check natural-order)"
expect_eq "frag-1k-nat: every row ran and is valid" none "$(check failed-or-invalid)"

# a profile recorded from a real program (bench/profiles, found through
# $top_srcdir): read, mapped in the application's order, Scotch direct on
# its rescaled weights
run "$TM_BENCH" --case lj-64 --json
expect_eq "--case lj-64 exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"
expect_eq "lj-64: Scotch direct produced a valid row" valid "$(check direct)"
expect_eq "lj-64: every row ran and is valid" none "$(check failed-or-invalid)"
expect_eq "lj-64: auto no worse than the natural placement" yes "$(check natural-order)"

# the fragmented family (issue 19, point 3): random free nodes, every free
# PU allowed (more than the tasks here), Scotch's sub-architecture plain
# and padded with dummy tasks
run "$TM_BENCH" --case frag4-30 --json
expect_eq "--case frag4-30 exits 0" 0 "$rc"
printf '%s' "$out" >"$work/quick.json"
expect_eq "frag4-30: the free nodes drawn and both Scotch forms tried" drawn \
	"$(check fragments)"
expect_eq "frag4-30: every row ran and is valid" none "$(check failed-or-invalid)"
expect_eq "frag4-30: Scotch direct produced a valid row" valid "$(check direct)"

run "$TM_BENCH" --case lj-64 --profiles "$work/no-such-dir"
expect_eq "missing profile: the case cannot be set up" 1 "$rc"
expect_contains "missing profile named" "lammps-melt-64.sum.mat" "$err"

run "$TM_BENCH" --case no-such-case
expect_eq "unknown case: usage error" 2 "$rc"
expect_contains "unknown case named" "no-such-case" "$err"
finish

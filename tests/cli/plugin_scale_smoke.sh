#!/bin/sh
# bench/plugin_scale --quick: select/topomatch's decision code runs on a
# 1,024-node fat tree, torus, dragonfly and graph with Slurm's structures,
# and, given all the time it needs (no budget cut, so the result does not
# depend on the machine), decides every job without falling back (the
# mapping's nodes, or cons_tres' when they give fewer hop-bytes) and
# places it within 5 % of the hop-bytes of the unbudgeted mapper on the
# same free PUs; a job's node choice stands while jobs start elsewhere,
# and is made again when a node is freed or one of its own is taken; two
# users share a scheduling cycle's budget.
# Timings
# are the benchmark's business (bench/README.md), not asserted here: a
# cache hit over its 1 ms target makes plugin_scale exit 1, not this test
# fail (it did, once, beside check.sh's ASan build).
# SPDX-License-Identifier: GPL-2.0-or-later
. "$top_srcdir/tests/cli/common.sh"
: "${PLUGIN_SCALE:?run through make check (PLUGIN_SCALE = the plugin_scale binary)}"

run "$PLUGIN_SCALE" --quick --reps 2 --budget 100000
# exit 1 is also a time target missed (a cache hit over 1 ms at p99 on a
# busy machine): the rows' other verdicts are checked below, a crash or a
# usage error here
expect_eq "plugin_scale --quick ran every case (exit 0, or 1 on a FAIL)" yes \
	"$([ "$rc" -le 1 ] && echo yes || echo "exit $rc")"
expect_eq "no case's hop-bytes or node choice failed (every row's hb and stand)" "" \
	"$(printf '%s\n' "$out" | grep -E 'hb:FAIL|stand:FAIL')"
for net in fattree torus dragonfly graph; do
	row=$(printf '%s\n' "$out" | awk -v n="$net" '$1 == n && $2 == 1024')
	expect_contains "$net: a row for 1,024 nodes, 30 % free, 1,024 tasks" "30% stencil    1024" "$row"
	expect_eq "$net: no job fell back to cons_tres' choice (budget, failure)" "0/2" \
		"$(printf '%s\n' "$row" | awk -F'|' '{ split($5, f, " "); print f[2] }')"
	expect_eq "$net: hop-bytes within 5 % of the unbudgeted mapper" yes \
		"$(printf '%s\n' "$row" | awk -F'|' '{ split($6, f, " "); print (f[1] + 0 > 0 && f[1] + 0 <= 1.05) ? "yes" : f[1] }')"
	expect_contains "$net: a pending job's pattern size" "11.5" "$(printf '%s\n' "$row" | awk -F'|' '{ print $7 }')"
	expect_contains "$net: a node choice stands when a job takes a node elsewhere, is made again when one is freed, and without a node taken from it" \
		"stand:PASS" "$row"
done
expect_contains "one user's many pattern jobs take half the scheduling cycle, not all of it: the other user's job still gets a decision, the first one's job cut off gets one the next cycle" \
	"fair:PASS" "$(printf '%s\n' "$out" | grep '^# fair share')"
# a job of more tasks than the default budget maps (1,024 per 50 ms) keeps
# cons_tres' choice at once, saying why, instead of running past the budget
# more tasks than MaxTasks (1,024 here, without a budget, as the cases
# above, so that the check does not depend on the machine's speed: under
# check.sh's load a decision of 25 ms on an idle machine took 0.8 s):
# mapped node by node, in blocks of a node's 16 PUs, at under 0.6 x the
# hop-bytes of cons_tres' nodes with the shuffled ranks in Slurm's block
# order (108,583,000: "x0.49")
PLUGIN_SCALE_VERBOSE=1 run "$PLUGIN_SCALE" --net fattree --nodes 1024 --free 60 --tasks 4096 \
	--pattern stencil --reps 1 --budget 100000 --max-tasks 1024
expect_eq "4,096 tasks, MaxTasks=1024: mapped (0 of 1 kept cons_tres' choice)" "0/1" \
	"$(printf '%s\n' "$out" | awk -F'|' '$1 ~ /^fattree/ { split($5, f, " "); print f[2] }')"
expect_contains "4,096 tasks, MaxTasks=1024: node by node, onto 256 whole nodes" \
	"mapped 4096 tasks onto 256 nodes node by node (in blocks)" "$err"
expect_eq "4,096 tasks, MaxTasks=1024: under 0.6 x cons_tres' hop-bytes" yes \
	"$(printf '%s\n' "$err" | sed -n 's/.*in blocks): \([0-9.e+]*\) hop-bytes.*/\1/p' |
		awk '{ print ($1 + 0 > 0 && $1 + 0 < 0.6 * 108583000) ? "yes" : $1 }')"
finish

# tests/slurm/lib.sh - what the Slurm integration tests share: the build's
# programs, counted assertions, the closing line, waiting for a job.
# Sourced once top, build and dir (the test cluster's directory; rdir a
# second one, keep=1 to leave them running) are set.
# SPDX-License-Identifier: GPL-2.0-or-later
tm=$build/tools/topomatch
select_dir=$build/plugin/select/.libs
spank=$build/plugin/spank/.libs/spank_topomatch.so

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
expect_contains() { case $3 in *"$2"*) ok "$1" ;; *) not_ok "$1: '$2' not in: $3" ;; esac; }

# need_select_plugin NAME: exit with one failure when the build has no
# select_topomatch.so (configure found no Slurm source).
need_select_plugin() {
	[ -f "$select_dir/select_topomatch.so" ] && return 0
	echo "$1: $select_dir/select_topomatch.so was not built (no Slurm source?)" >&2
	echo "slurm: 0 passed, 1 failed"
	exit 1
}

# Stop the test clusters, print "slurm: N passed, M failed", exit.
finish() {
	local d
	if [ -z "${keep:-}" ]; then
		for d in "$dir" ${rdir:+"$rdir"}; do
			"$top/contrib/testcluster/stop.sh" --dir "$d" >/dev/null 2>&1
		done
	fi
	rm -rf "${work:-}"
	echo "slurm: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# wait_done JOBID: 0 once the job has left the queue (30 s at most).
wait_done() {
	for _ in $(seq 150); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	return 1
}

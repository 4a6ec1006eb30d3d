#!/bin/sh
# bench/run.sh [tm_bench options...] - build the project and run the
# benchmark, writing the table to bench/results-YYYY-MM-DD.txt (not
# committed).  All cases, each measurement three times with the fastest
# counted, unless the options say otherwise; without options (or with
# --check alone), tm_study's noise and sparse-factor studies and
# plugin_scale follow.  Progress goes to the terminal.
# --check: tm_bench exits 3 when one of its targets does not pass
# (plugin_scale exits 1 on a FAIL with or without it); run.sh then exits
# non-zero too, after running everything.
# Run by hand, not by CI: the full run takes minutes (Scotch alone needs
# ~16-20 s per map at 65536 ranks on 2 cores) and its timings mean something
# only on a quiet machine.
# Environment: BUILD_DIR (default build, as for contrib/build.sh).
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD_DIR:-build}

./contrib/build.sh "$build"
bin=$build/bench/tm_bench
if [ ! -x "$bin" ]; then
	echo "run.sh: $bin was not built (is bench/tm_bench in Makefile.am?)" >&2
	exit 1
fi

# the recorded profiles of the profile cases (bench/profiles/README.md)
TM_BENCH_PROFILES=${TM_BENCH_PROFILES:-$top/bench/profiles}
export TM_BENCH_PROFILES
out=bench/results-$(date +%Y-%m-%d).txt
cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//' || true)
{
	echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "# host: $(uname -srm); cpu: ${cpu:-unknown}; $(nproc) cores;" \
		"$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
	echo "# command: tm_bench --repeat 3 $*"
} >"$out"
# the table goes to the file as it is printed; stderr (progress) stays here
rc=0
# a later --repeat in "$@" overrides this one
"$bin" --repeat 3 "$@" >>"$out" || rc=$?
# the noise and sparse-factor studies, and select/topomatch's decisions at
# scale (bench/plugin_scale, built with the select plugin), only with the
# whole benchmark
whole=yes
for a in "$@"; do
	[ "$a" = --check ] || whole=no
done
if [ "$whole" = yes ]; then
	echo >>"$out"
	"$build/bench/tm_study" >>"$out" || rc=$?
	if [ -x "$build/bench/plugin_scale" ]; then
		echo >>"$out"
		"$build/bench/plugin_scale" >>"$out" || rc=$?
		echo >>"$out"
		"$build/bench/plugin_scale" --loss 48 >>"$out" || rc=$?
	fi
fi
cat "$out"
echo "run.sh: results in $out" >&2
exit "$rc"

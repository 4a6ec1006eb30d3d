#!/bin/sh
# tests/fuzz/run.sh [--runs N [--seed S]] BUILD_DIR [SECONDS] - the
# libFuzzer harnesses of tests/fuzz/ (README.md there): builds them with
# clang -fsanitize=fuzzer,address,undefined against the library sources
# (those of core_libtopomatch_la_SOURCES in Makefile.am, compiled into
# BUILD_DIR/fuzz), then for each harness replays its seed corpus
# (tests/fuzz/corpus/NAME) and its regression inputs (tests/fuzz/regress/
# NAME), then fuzzes it with -timeout=10 -rss_limit_mb=2048:
#  - open-ended (the default): for SECONDS (default 30; 0: replay only)
#    from a random seed, new inputs kept in BUILD_DIR/fuzz/corpus/NAME
#    across runs; what to run before a release, by hand;
#  - deterministic (--runs N): exactly N inputs from seed S (default 1),
#    starting again from the committed corpus every time (new inputs go to
#    a scratch directory emptied first); what check.sh runs, so that the
#    suite gives the same verdict on the same code.
# Crashes go to BUILD_DIR/fuzz/artifacts; nothing is written into the
# source tree.  FUZZ_ONLY="a b" runs only those harnesses.  FUZZ_JOBS
# (default: the number of cores) harnesses run at a time.  Prints
# "ok"/"FAIL" per harness and "fuzz: N passed, M failed".
# Without clang or libFuzzer (Debian: clang libclang-rt-14-dev) it builds
# the harnesses with cc and tests/fuzz/replay_main.c, replays the corpora
# and regression inputs, and exits 77 (skip) when they pass.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
usage() { echo "usage: run.sh [--runs N [--seed S]] BUILD_DIR [SECONDS]" >&2; exit 2; }
runs=
seed=1
dir=
secs=
while [ $# -gt 0 ]; do # options before or after the operands
	case $1 in
	--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
	--seed) [ $# -ge 2 ] || usage; seed=$2; shift ;;
	-h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) if [ -z "$dir" ]; then dir=$1; elif [ -z "$secs" ]; then secs=$1; else usage; fi ;;
	esac
	shift
done
[ -n "$dir" ] || usage
secs=${secs:-30}
for v in "$runs" "$seed" "$secs"; do
	case $v in *[!0-9]*) echo "run.sh: --runs, --seed and SECONDS take a whole number" >&2; exit 2 ;; esac
done
[ "$seed" -ge 1 ] 2>/dev/null || { echo "run.sh: --seed must be at least 1 (libFuzzer's 0 is a random seed)" >&2; exit 2; }
mkdir -p "$dir" || exit 2
build=$(cd "$dir" && pwd)
out=$build/fuzz
HARNESSES=${FUZZ_ONLY:-"dense mm triplets grf ompi topology yaml_doc cluster slurm_topo \
slurm_conf hostlist blob blob_env"}

passed=0
failed=0
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; }

mkdir -p "$out/corpus" "$out/artifacts" "$out/logs" || exit 2

# ---------------------------------------------------------------- compiler
probe=$out/probe-$$.c
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$probe"
CLANG=${FUZZ_CC:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if command -v "$CLANG" >/dev/null 2>&1 &&
	"$CLANG" -fsanitize=fuzzer $SAN -o "$out/probe-$$" "$probe" >"$out/probe.log" 2>&1; then
	mode=fuzz
	CC=$CLANG
	LIBFLAGS="-fsanitize=fuzzer-no-link $SAN"
	LINKFLAGS="-fsanitize=fuzzer $SAN"
	DRIVER=
else
	mode=replay
	CC=${CC:-cc}
	echo "SKIP: no clang with libFuzzer (apt-get install clang libclang-rt-14-dev):" \
		"replaying the corpora with $CC instead"
	printf 'int main(void) { return 0; }\n' >"$probe"
	if "$CC" $SAN -o "$out/probe-$$" "$probe" >/dev/null 2>&1; then
		LIBFLAGS=$SAN
	else
		LIBFLAGS=
	fi
	LINKFLAGS=$LIBFLAGS
	DRIVER=tests/fuzz/replay_main.c
fi
rm -f "$probe" "$out/probe-$$"

# ---------------------------------------------------------------- build
# The library's sources as Makefile.am lists them (C files only).
SRCS=$(sed -n '/^core_libtopomatch_la_SOURCES *=/,/[^\\]$/p' "$top/Makefile.am" |
	tr ' \t\\' '\n\n\n' | grep '\.c$' | tr '\n' ' ')
[ -n "$SRCS" ] || { echo "run.sh: no library sources found in Makefile.am" >&2; exit 2; }
version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
cat >"$out/config.h.$$" <<EOC
/* config.h for the fuzz build (tests/fuzz/run.sh) */
#define PACKAGE_VERSION "${version:-fuzz}"
#ifndef _GNU_SOURCE
# define _GNU_SOURCE 1
#endif
EOC
# rewritten only when it changes, so that a second run rebuilds nothing
if cmp -s "$out/config.h.$$" "$out/config.h"; then
	rm -f "$out/config.h.$$"
else
	mv "$out/config.h.$$" "$out/config.h"
fi
DEPCFLAGS="-I/usr/include/scotch $(pkg-config --cflags hwloc yaml-0.1 2>/dev/null)"
LIBS="$(pkg-config --libs hwloc yaml-0.1 2>/dev/null || echo -lhwloc -lyaml) -lscotch -lscotcherr -lz -lpthread -lm"
# Compiled from the source tree with relative paths (make runs in $top):
# the paths in __FILE__ and the sanitizers' source locations are then the
# same in every checkout, so the binaries, and what a seed fuzzes, do not
# depend on where the tree was cloned.
cat >"$out/Makefile.$$" <<'EOM'
# written by tests/fuzz/run.sh; run in the source tree (make -C TOP)
OBJS := $(patsubst %.c,$(OUT)/obj/%.o,$(SRCS))
BINS := $(patsubst %,$(OUT)/bin/fuzz_%,$(HARNESSES))
all: $(BINS)
$(OUT)/obj/%.o: %.c $(OUT)/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/libtm.a: $(OBJS)
	rm -f $@ && ar rcs $@ $(OBJS)
$(OUT)/bin/fuzz_%: tests/fuzz/fuzz_%.c $(OUT)/libtm.a $(DRIVER)
	@mkdir -p $(OUT)/bin
	$(CC) $(CFLAGS) -Itests/fuzz $(LINKFLAGS) -o $@ $< $(DRIVER) $(OUT)/libtm.a $(LIBS)
-include $(OBJS:.o=.d)
.PHONY: all
EOM
mv "$out/Makefile.$$" "$out/Makefile"
CFLAGS="-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter $LIBFLAGS -ffile-prefix-map=$top/= -I$out -Icore -Itopology $DEPCFLAGS"
echo "== fuzz: building the harnesses with $CC into $out"
if ! make -s -C "$top" -f "$out/Makefile" -j"$(nproc 2>/dev/null || echo 2)" OUT="$out" SRCS="$SRCS" \
	HARNESSES="$HARNESSES" CC="$CC" CFLAGS="$CFLAGS" LINKFLAGS="$LINKFLAGS" \
	DRIVER="$DRIVER" LIBS="$LIBS" >"$out/logs/build.log" 2>&1; then
	cat "$out/logs/build.log"
	not_ok "the harnesses build with $CC"
	echo "fuzz: $passed passed, $failed failed"
	exit 1
fi

# ---------------------------------------------------------------- run
aslr_off=
if [ -n "$runs" ] && [ "$mode" = fuzz ]; then
	if setarch "$(uname -m)" -R true 2>/dev/null; then
		aslr_off="setarch $(uname -m) -R"
	else
		echo "note: setarch -R fails here: with address-space randomisation on," \
			"a seed does not give the same inputs every run"
	fi
fi
# The harnesses run in $out with a fixed environment and relative paths
# (src -> the source tree): argv and environ sit at the top of the stack,
# so their lengths move every stack address libFuzzer may compare with,
# and the paths are then the same in every checkout.
ln -sfn "$top" "$out/src"
mkdir -p "$out/tmp" # the private directories of fuzz_cluster and fuzz_slurm_conf
fenv="env -i PATH=/usr/local/bin:/usr/bin:/bin TMPDIR=tmp
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1
	LSAN_OPTIONS=suppressions=src/tests/lsan.supp:print_suppressions=0
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
# run_one NAME: replay then fuzz one harness, in $out; its verdict ("ok -
# ..." or "FAIL - ...", with the log's excerpt) goes to logs/NAME.result
run_one() {
	h=$1
	cd "$out" || exit 1
	bin=bin/fuzz_$h
	log=logs/$h.log
	res=logs/$h.result
	inputs=""
	[ -d "src/tests/fuzz/corpus/$h" ] && inputs="src/tests/fuzz/corpus/$h"
	[ -d "src/tests/fuzz/regress/$h" ] && inputs="$inputs src/tests/fuzz/regress/$h"
	# replay: every seed and regression input once (libFuzzer: -runs=0 on dirs)
	# shellcheck disable=SC2086
	if [ "$mode" = fuzz ]; then
		$fenv "$bin" -runs=0 -timeout=10 -rss_limit_mb=2048 $inputs >"$log" 2>&1
	else
		$fenv timeout 600 "$bin" $inputs >"$log" 2>&1
	fi
	rc=$?
	if [ $rc -ne 0 ]; then
		{ tail -n 40 "$log"
		  echo "FAIL - $h: its corpus and regression inputs replay (exit $rc, $out/$log)"; } >"$res"
		return
	fi
	if [ "$mode" = replay ] || { [ -z "$runs" ] && [ "$secs" -eq 0 ]; } || [ "${runs:-1}" -eq 0 ]; then
		# shellcheck disable=SC2086
		echo "ok - $h: $( [ -z "$inputs" ] || find -L $inputs -type f | wc -l) inputs replay" >"$res"
		return
	fi
	dict=
	[ -f "src/tests/fuzz/$h.dict" ] && dict="-dict=src/tests/fuzz/$h.dict"
	if [ -n "$runs" ]; then
		# the first directory receives new inputs: a scratch one, emptied,
		# so that the run starts from the committed corpus alone
		corpus=corpus-runs/$h
		rm -rf "$corpus" && mkdir -p "$corpus"
		# The seed inputs in the order of their names (libFuzzer runs a
		# directory in readdir order, which differs between file systems).
		# No mutation from compared values (-use_cmp=0): they include
		# pointers, which the environment, the paths and address-space
		# randomisation (off too) move from run to run.
		list=corpus-runs/$h.seeds
		# shellcheck disable=SC2086
		find -L $inputs -type f | LC_ALL=C sort | paste -sd, - | tr -d '\n' >"$list"
		limit="-runs=$runs -seed=$seed -reload=0 -use_cmp=0 -seed_inputs=@$list"
		inputs=
		norand=$aslr_off
		what="seed $seed"
	else
		corpus=corpus/$h
		limit="-max_total_time=$secs"
		norand=
		what="${secs} s"
	fi
	mkdir -p "$corpus"
	# shellcheck disable=SC2086
	$fenv $norand "$bin" $limit -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="artifacts/$h-" $dict "$corpus" $inputs >>"$log" 2>&1
	rc=$?
	done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	stats="${done_runs:-?} runs ($what), $cov"
	if [ $rc -eq 0 ]; then
		echo "ok - $h: $stats, no crash, leak or hang" >"$res"
	else
		{ grep -E 'ERROR|SUMMARY|fuzz property|fuzz:|Test unit written|^    #[0-9]' "$log" | head -n 30
		  echo "FAIL - $h: fuzzing found a problem (exit $rc; $out/$log, $out/artifacts/$h-*)"; } >"$res"
	fi
}

# FUZZ_JOBS harnesses at a time (default: one per core)
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
running=0
for h in $HARNESSES; do
	rm -f "$out/logs/$h.result"
	run_one "$h" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for h in $HARNESSES; do
	if [ ! -f "$out/logs/$h.result" ]; then
		not_ok "$h: no verdict (the harness run was killed?)"
	elif tail -n 1 "$out/logs/$h.result" | grep -q '^ok - '; then
		cat "$out/logs/$h.result"
		passed=$((passed + 1))
	else
		cat "$out/logs/$h.result"
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
	exit 1
fi
[ "$mode" = fuzz ] || exit 77
exit 0

#!/bin/bash
# Run the in-kernel benchmark, the KUnit suite kevent_bench
# (kunit/kevent_bench.c), through kunit_tool in the build without
# coverage, and turn its '# bench:' lines into Markdown tables with
# bench_kernel.py.  Results: $RESULTS/bench/kernel.{log,csv,md}.
# BENCH_RUNS=N boots it N times (default 9), one after the other: the
# tables give, for every figure and ratio, the median over the runs of
# each run's own, and the validity gate needs 5 runs or more
# (kernel-1.log ... kernel-N.log are kept).
#
# usage: run_bench_kernel.sh [--save DIR | --base DIR] [GLOB]
#   GLOB        a glob within the suite (e.g. 'kevent_bench.bench_pipes')
#   --save DIR  copy this build's kernel to DIR (a base for --base), and
#               run nothing
#   --base DIR  a kernel saved with --save: boot it and this build's in
#               turn, BENCH_RUNS times each (which goes first swaps every
#               pair), and compare them run by run (base-N.log are its
#               logs; kernel.md begins with the comparison)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

save='' base='' glob=kevent_bench
while [ $# -gt 0 ]; do
	case $1 in
	--save|--base)
		[ -n "${2:-}" ] || die "$1 needs a directory"
		[ -z "$save$base" ] || die "--save and --base go one at a time, once"
		if [ "$1" = --save ]; then save=$2; else base=$2; fi
		shift ;;
	-*) die "run_bench_kernel.sh: unknown option $1" ;;
	*) glob=$1 ;;
	esac
	shift
done

[ "$TARGET" = plain ] || die "the benchmark runs in the build without coverage (KEVENT_TARGET=plain)"
# What kunit.py exec reads of a build directory to boot it again (linux,
# .kunitconfig), and the configuration it was built with, for the record.
saved=(linux .config .kunitconfig)
if [ -n "$save" ]; then
	mkdir -p "$save"
	for f in "${saved[@]}"; do
		cp "$BUILD/$f" "$save/" || die "no $BUILD/$f: build the kernel first (./run_tests.sh --bench kernel builds it)"
	done
	say "saved this build's kernel to $save: change the code, then --bench-base $save"
	exit 0
fi
if [ -n "$base" ]; then
	for f in "${saved[@]}"; do
		[ -f "$base/$f" ] || die "no $base/$f: save a base kernel first (./run_tests.sh --bench kernel --bench-save $base)"
	done
	base=$(realpath "$base")
fi
runs=${BENCH_RUNS:-9}
case $runs in
''|*[!0-9]*) die "BENCH_RUNS must be a number of runs (1 or more), not '$runs'" ;;
esac
runs=$((10#$runs))
[ "$runs" -ge 1 ] || die "BENCH_RUNS must be a number of runs (1 or more), not '$BENCH_RUNS'"
out=$RESULTS/bench
mkdir -p "$out"
rm -f "$out"/kernel-[0-9]*.log "$out"/base-[0-9]*.log "$out/kernel.csv" "$out/kernel.md"
# One boot shows kunit_tool's output as it comes (fd 3); several, one line each.
exec 3>&1
several=1
if [ "$runs" = 1 ] && [ -z "$base" ]; then several=0; fi
[ $several = 0 ] || exec 3>/dev/null

# Boot the kernel of build directory $1 once; its log becomes $out/$2.log
# and $out/$2-$3.log ($2: kernel, or base for the saved one).
boot() {	# build-dir name run
	local rc again="scripts/bench_kernel.py $out/kernel-[0-9]*.log"
	[ -z "$base" ] || again+=" --base $out/base-[0-9]*.log"
	[ $several = 0 ] || say "in-kernel benchmark: $2, run $3 of $runs"
	set +e
	"$PYTHON" "$KUNIT_PY" exec --arch um --build_dir "$1" --timeout "${BENCH_TIMEOUT:-1800}" \
		"$glob" | tee "$out/$2-parsed.txt" >&3
	rc=${PIPESTATUS[0]}
	set -e
	cp "$1/test.log" "$out/$2.log"
	[ "$rc" = 0 ] || die "the in-kernel benchmark failed in run $3 of $2 (kernel log: $out/$2.log, kunit_tool: $out/$2-parsed.txt; the runs before it: $again)"
	"$PYTHON" "$REPO/scripts/logscan.py" "$out/$2.log" bench
	cp "$out/$2.log" "$out/$2-$3.log"
}

logs=() bases=()
for i in $(seq 1 "$runs"); do
	if [ -z "$base" ]; then
		boot "$BUILD" kernel "$i"
	elif [ $((i % 2)) = 1 ]; then
		boot "$base" base "$i"
		boot "$BUILD" kernel "$i"
	else
		boot "$BUILD" kernel "$i"
		boot "$base" base "$i"
	fi
	logs+=("$out/kernel-$i.log")
	[ -z "$base" ] || bases+=("$out/base-$i.log")
done
[ -z "$base" ] || bases=(--base "${bases[@]}")
"$PYTHON" "$REPO/scripts/bench_kernel.py" "${logs[@]}" "${bases[@]}" \
	--csv "$out/kernel.csv" --md "$out/kernel.md"

#!/bin/bash
# Run the in-kernel benchmark, the KUnit suite kevent_bench
# (kunit/kevent_bench.c), through kunit_tool in the build without
# coverage, and turn its '# bench:' lines into Markdown tables with
# bench_kernel.py.  Results: $RESULTS/bench/kernel.{log,csv,md}.
# $1: an optional glob within the suite (e.g. 'kevent_bench.bench_pipes').
# BENCH_RUNS=N boots it N times (default 9), one after the other: the
# tables give, for every figure and ratio, the median over the runs of
# each run's own, and the validity gate needs 5 runs or more
# (kernel-1.log ... kernel-N.log are kept).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ "$KEVENT_FLAVOUR" = nocov ] || die "the benchmark runs in the build without coverage (KEVENT_FLAVOUR=nocov)"
runs=${BENCH_RUNS:-9}
case $runs in
''|*[!0-9]*) die "BENCH_RUNS must be a number of runs (1 or more), not '$runs'" ;;
esac
runs=$((10#$runs))
[ "$runs" -ge 1 ] || die "BENCH_RUNS must be a number of runs (1 or more), not '$BENCH_RUNS'"
out=$RESULTS/bench
mkdir -p "$out"
rm -f "$out"/kernel-[0-9]*.log "$out/kernel.csv" "$out/kernel.md"
# One run shows kunit_tool's output as it comes (fd 3); several, one line each.
exec 3>&1
[ "$runs" = 1 ] || exec 3>/dev/null
logs=()
for i in $(seq 1 "$runs"); do
	[ "$runs" = 1 ] || say "in-kernel benchmark: run $i of $runs"
	set +e
	"$PYTHON" "$KUNIT_PY" exec --arch um --build_dir "$BUILD" --timeout "${BENCH_TIMEOUT:-1800}" \
		"${1:-kevent_bench}" | tee "$out/kernel-parsed.txt" >&3
	rc=${PIPESTATUS[0]}
	set -e
	cp "$BUILD/test.log" "$out/kernel.log"
	[ "$rc" = 0 ] || die "the in-kernel benchmark failed in run $i (kernel log: $out/kernel.log, kunit_tool: $out/kernel-parsed.txt; the runs before it: scripts/bench_kernel.py $out/kernel-[0-9]*.log)"
	"$REPO/scripts/check_log.sh" "$out/kernel.log" bench
	cp "$out/kernel.log" "$out/kernel-$i.log"
	logs+=("$out/kernel-$i.log")
done
"$PYTHON" "$REPO/scripts/bench_kernel.py" "${logs[@]}" --csv "$out/kernel.csv" \
	--md "$out/kernel.md"

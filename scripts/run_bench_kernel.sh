#!/bin/bash
# Run the in-kernel benchmark, the KUnit suite bench_kevent
# (kunit/kevent_bench.c), through kunit_tool in the build without
# coverage, and turn its '# bench:' lines into a Markdown table with
# bench_kernel.py.  Results: $RESULTS/bench/kernel.{log,csv,md}.
# $1: an optional glob within the suite (e.g. 'bench_kevent.bench_timers').
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ "$KEVENT_FLAVOUR" = nocov ] || die "the benchmark runs in the build without coverage (KEVENT_FLAVOUR=nocov)"
out=$RESULTS/bench
mkdir -p "$out"
set +e
"$PYTHON" "$KUNIT_PY" exec --arch um --build_dir "$BUILD" --timeout "${BENCH_TIMEOUT:-1800}" \
	"${1:-bench_kevent}" | tee "$out/kernel-parsed.txt"
rc=${PIPESTATUS[0]}
set -e
cp "$BUILD/test.log" "$out/kernel.log"
[ "$rc" = 0 ] || die "the in-kernel benchmark failed (kernel log: $out/kernel.log)"
"$REPO/scripts/check_log.sh" "$out/kernel.log" bench
"$PYTHON" "$REPO/scripts/bench_kernel.py" "$out/kernel.log" --csv "$out/kernel.csv" \
	--md "$out/kernel.md"

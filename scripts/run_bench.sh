#!/bin/bash
# Boot the UML (the build without coverage: gcov would weigh on the kernel
# paths measured) and run the benchmark, userland/bench/kevent-bench, in
# it; then turn its CSV into tables and plots with bench_report.py.
# Results: $RESULTS/bench/ (raw.csv, bench.csv, bench.md, *.png).
# Arguments are passed to kevent-bench (e.g. --reps 3 --sizes 10,100).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out=$RESULTS/bench
need_boot_files
[ -x "$USERLAND_OUT/bench/kevent-bench" ] || die "no benchmark program: run scripts/build.py userland"
mkdir -p "$out"
rm -f "$out"/raw.csv
# The command line carries the command; hostfs carries the results back.
BOOT_TIMEOUT=${BENCH_TIMEOUT:-1800} boot_initramfs mem=1G kunit.enable=0 quiet \
	INIT_SHELL=1 INIT_HOST="$out" \
	INIT_CMD="\"/bench/kevent-bench --out /host/raw.csv $*\"" \
	</dev/null | tee "$out/console.log" || true
[ -s "$out/raw.csv" ] || die "the benchmark wrote no results (console: $out/console.log)"
"$PYTHON" "$REPO/scripts/bench_report.py" "$out"

#!/bin/bash
# libevent's benchmarks (test/bench, test/bench_cascade) on the kevent
# backend and on epoll, in one boot of the UML (./run_tests.sh --libevent
# bench; the build without coverage is the one to measure).  REPS
# repetitions (LIBEVENT_BENCH_REPS, default 5), the backends interleaved
# within each; libevent_bench.py turns them into medians and the
# kevent/epoll ratio: $LIBEVENT_WORK/bench/bench.md.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out=$LIBEVENT_WORK/bench
reps=${LIBEVENT_BENCH_REPS:-5}
need_boot_files
"$REPO/scripts/build_libevent.sh"
"$REPO/scripts/libevent_initramfs.sh"
rm -rf "$out"
mkdir -p "$out"
say "libevent: benchmark, $reps repetitions, kevent and epoll in one boot"
start=$SECONDS
rc=0
INITRAMFS=$LIBEVENT_WORK/initramfs.cpio BOOT_TIMEOUT=${LIBEVENT_TIMEOUT:-2400} \
	boot_initramfs mem=1G kunit.enable=0 quiet \
	INIT_SHELL=1 INIT_HOST="$out" \
	${LIBEVENT_BENCH_SHAPES:+LIBEVENT_BENCH_SHAPES="\"$LIBEVENT_BENCH_SHAPES\""} \
	INIT_CMD="\"/libevent/run-in-uml.sh bench /host $reps\"" \
	</dev/null >"$out/console.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || die "libevent: the benchmark boot ended with status $rc (console: $out/console.log)"
[ -s "$out/bench-raw.csv" ] || die "libevent: the benchmark wrote no results (console: $out/console.log)"
say "libevent: benchmark boot $((SECONDS - start)) s"
"$PYTHON" "$REPO/scripts/libevent_bench.py" "$out/bench-raw.csv" \
	--command "./run_tests.sh --libevent bench (LIBEVENT_BENCH_REPS=$reps)" | tee "$out/bench.md"

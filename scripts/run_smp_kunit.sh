#!/bin/bash
# Run the KUnit suites in the x86_64 SMP kernel through kunit_tool: QEMU,
# 4 vCPUs under multi-threaded TCG (configs/qemu_x86_64_smp.py).  The log
# must show every vCPU online and no splat (scripts/check_smp_log.sh).
# $1: an optional suite/test glob (default $KUNIT_TESTS, lib.sh).  KCSAN=1: the
# KCSAN variant.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

glob=${1:-$KUNIT_TESTS}
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (./run_tests.sh --smp does)"
[ -f "$BZIMAGE" ] || die "no x86_64 kernel at $BZIMAGE: run scripts/build_smp.sh first"
mkdir -p "$RESULTS"
log=$RESULTS/$SMP_TAG-kunit-console.log
clear_status smp-kunit
set +e
# KCSAN: a watchpoint every 100 memory accesses per CPU instead of 4000,
# and watchpoints in interrupts too (the timer storage runs there); the
# boot takes about 3x longer.  Not in the user-space boot: the delays of
# that many watchpoints break the user-space tests' timing bounds.
kargs=()
[ "${KCSAN:-0}" = 1 ] &&
	kargs=(--kernel_args kcsan.skip_watch=100 --kernel_args kcsan.interrupt_watcher=1)
"$PYTHON" "$KUNIT_PY" exec --arch x86_64 --qemu_config "$QEMU_CONFIG" \
	--build_dir "$SMP_BUILD" --timeout "${SMP_KUNIT_TIMEOUT:-600}" \
	"${kargs[@]}" --filter "$KUNIT_FILTER" --json="$RESULTS/smp-kunit.json" "$glob" | tee "$RESULTS/$SMP_TAG-kunit-parsed.txt"
rc=${PIPESTATUS[0]}
set -e
cp "$SMP_BUILD/test.log" "$log" 2>/dev/null || true
if [ "$rc" != 0 ]; then
	# A kernel that died of a report still says so.
	check_console "$REPO/scripts/check_smp_log.sh" "$log" "SMP KUnit" smp-kunit
	layer_status smp-kunit failed
	die "SMP KUnit tests failed (kernel log: $log)"
fi
check_console "$REPO/scripts/check_smp_log.sh" "$log" "SMP KUnit" smp-kunit

#!/bin/bash
# Run the KUnit suites in the x86_64 SMP kernel through kunit_tool: QEMU,
# 4 vCPUs under multi-threaded TCG (configs/qemu_x86_64_smp.py).  The log
# must show every vCPU online and no splat (scripts/check_smp_log.sh).
# $1: an optional suite/test glob (default $KUNIT_TESTS, lib.sh).  The
# target (KEVENT_TARGET) is smp or smp-kcsan.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

glob=${1:-$KUNIT_TESTS}
need_qemu_kernel
mkdir -p "$RESULTS"
log=$RESULTS/$TARGET-kunit-console.log
clear_status smp-kunit
set +e
kargs=()
for a in "${TARGET_KUNIT_ARGS[@]}"; do kargs+=(--kernel_args "$a"); done
"$PYTHON" "$KUNIT_PY" exec --arch x86_64 --qemu_config "$QEMU_CONFIG" \
	--build_dir "$BUILD" --timeout "${SMP_KUNIT_TIMEOUT:-600}" \
	"${kargs[@]}" --filter "$KUNIT_FILTER" --json="$RESULTS/smp-kunit.json" "$glob" | tee "$RESULTS/$TARGET-kunit-parsed.txt"
rc=${PIPESTATUS[0]}
set -e
cp "$BUILD/test.log" "$log" 2>/dev/null || true
if [ "$rc" != 0 ]; then
	# A kernel that died of a report still says so.
	check_console "$REPO/scripts/check_smp_log.sh" "$log" "SMP KUnit" smp-kunit
	layer_status smp-kunit failed
	die "SMP KUnit tests failed (kernel log: $log)"
fi
check_console "$REPO/scripts/check_smp_log.sh" "$log" "SMP KUnit" smp-kunit

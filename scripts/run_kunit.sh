#!/bin/bash
# Run the KUnit suites in the built UML kernel through kunit_tool.
# $1: an optional suite/test glob (e.g. 'kevent_core.*oneshot*').
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

glob=${1:-$KUNIT_TESTS}
mkdir -p "$RESULTS"
clear_status kunit
gcov_boot kunit
set +e
"$PYTHON" "$KUNIT_PY" exec --arch um --build_dir "$BUILD" --timeout "${KUNIT_TIMEOUT:-600}" \
	--filter "$KUNIT_FILTER" --json="$RESULTS/kunit.json" "$glob" | tee "$RESULTS/kunit-parsed.txt"
rc=${PIPESTATUS[0]}
set -e
cp "$BUILD/test.log" "$RESULTS/kunit-console.log" 2>/dev/null || true
if [ "$rc" != 0 ]; then
	# A test that failed with a kernel report is a report.
	check_console "$REPO/scripts/check_log.sh" "$RESULTS/kunit-console.log" KUnit kunit
	layer_status kunit failed
	die "KUnit tests failed (kernel log: $RESULTS/kunit-console.log)"
fi
check_console "$REPO/scripts/check_log.sh" "$RESULTS/kunit-console.log" KUnit kunit

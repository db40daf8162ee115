#!/bin/bash
# Boot the UML kernel with the test initramfs (kunit.enable=0, so KUnit
# stays quiet), let init run the user-space tests and power off, then parse
# their KTAP with kunit_tool.  Fails on a test failure, a missing result, a
# kernel panic or a boot that outlives its timeout.  USERLAND_ARGS adds
# kernel arguments (e.g. init's KEVENT_ONLY=prog KEVENT_TEST=name).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

timeout=${USERLAND_TIMEOUT:-900}
mkdir -p "$RESULTS/hostfs"
rm -f "$RESULTS/hostfs/userland.ktap"
clear_status userland
console=$RESULTS/userland-console.log
need_boot_files

# The debug configuration runs the KUnit suites in this boot too (before
# init), so the kmemleak scan at the end sees their objects as well.
if [ "${DEBUG_CONFIG:-0}" = 1 ]; then
	kunit=(kunit.filter_glob='kevent*' KEVENT_KMEMLEAK=1 KEVENT_TOLERANCE_SCALE=5)
else
	kunit=(kunit.enable=0)
fi

read -ra extra <<< "${USERLAND_ARGS:-}"
set +e
BOOT_TIMEOUT=$timeout boot_initramfs mem=512M "${kunit[@]}" "${extra[@]}" \
	KEVENT_RESULTS="$RESULTS/hostfs" KEVENT_TIMEOUT=$((timeout - 30)) \
	</dev/null >"$console" 2>&1
rc=$?
set -e

ktap=$RESULTS/userland.ktap
cp "$RESULTS/hostfs/userland.ktap" "$ktap" 2>/dev/null || : > "$ktap"
problem='' verdict=crashed
if [ $rc = 124 ] || [ $rc = 137 ]; then
	problem="the UML boot hung: killed after $timeout s" verdict=hung
elif grep -q 'Kernel panic' "$console"; then
	problem="kernel panic (see $console)"
elif [ $rc != 0 ]; then
	problem="UML exited with status $rc (see $console)"
elif [ ! -s "$ktap" ]; then
	problem="no user-space results were written (see $console)"
fi

finish_user_layer "user space" "$ktap" userland "$RESULTS/userland-parsed.txt" "$console" \
	"$verdict" "$problem" \
	"$REPO/scripts/check_log.sh"

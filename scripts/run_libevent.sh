#!/bin/bash
# The libevent stage (./run_tests.sh --libevent): libevent's own test
# suite on the kevent backend and on epoll, in one boot of the UML.
# fetch (fetch_libevent.sh) -> patch and build (build_libevent.sh) ->
# initramfs (libevent_initramfs.sh) -> boot, userland/libevent/run-in-uml.sh
# runs the programs as test/test.sh does -> libevent_results.py judges:
# a test that passes on epoll and not on kevent fails the stage.
# Results: $LIBEVENT_WORK/results/ (per backend logs, libevent.ktap,
# console.log), and $RESULTS/libevent.json (kunit_tool's KernelCI JSON).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out=$LIBEVENT_WORK/results
need_boot_files
t0=$SECONDS
"$REPO/scripts/build_libevent.sh"
t1=$SECONDS
"$REPO/scripts/libevent_initramfs.sh"
rm -rf "$out"
mkdir -p "$out"
say "libevent: booting the UML (kevent, then epoll)"
[ "$COVERAGE" = 1 ] && gcov_boot libevent
rc=0
INITRAMFS=$LIBEVENT_WORK/initramfs.cpio BOOT_TIMEOUT=${LIBEVENT_TIMEOUT:-2400} \
	boot_initramfs mem=1G kunit.enable=0 quiet \
	KEVENT_SHELL=1 KEVENT_HOST="$out" \
	KEVENT_CMD="\"/libevent/run-in-uml.sh tests /host\"" \
	</dev/null >"$out/console.log" 2>&1 || rc=$?
t2=$SECONDS
case $rc in
0) ;;
124|137) say "libevent: the boot was killed after ${LIBEVENT_TIMEOUT:-2400} s (console: $out/console.log)" ;;
*) say "libevent: the UML exited with status $rc (console: $out/console.log)" ;;
esac
"$REPO/scripts/check_log.sh" "$out/console.log" || rc=1
"$PYTHON" "$REPO/scripts/libevent_results.py" "$out" \
	--check-dumpevents "$LIBEVENT_WORK/bin/check-dumpevents.py" || rc=1
"$PYTHON" "$KUNIT_PY" parse --json="$RESULTS/libevent.json" "$out/libevent.ktap" \
	>"$out/kunit-parse.log" 2>&1 || true
say "libevent: build $((t1 - t0)) s, tests $((t2 - t1)) s (boot included)"
exit "$rc"

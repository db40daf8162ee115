#!/bin/bash
# The libevent stage (./run_tests.sh --libevent): libevent's own test
# suite on the kevent backend and on epoll, in two boots of the UML side by side.
# fetch (fetch_libevent.sh) -> patch and build (build_libevent.sh) ->
# initramfs (libevent_initramfs.sh) -> two boots side by side, one per
# backend, where userland/libevent/run-in-uml.sh runs the programs as
# test/test.sh does -> libevent_results.py judges:
# a test that passes on epoll and not on kevent fails the stage.
# Results: $LIBEVENT_WORK/results/ (per backend logs, libevent.ktap,
# console-BACKEND.log), and $RESULTS/libevent.json (kunit_tool's KernelCI JSON).
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
# Two boots side by side, one per backend (one UML per CPU, as the
# user-space layer's two parts): the kevent boot's gcov data are the
# layer "libevent"; the epoll boot's, the reference's, are dropped.
boot_backend() {	# backend: its boot, console $out/console-BACKEND.log
	INITRAMFS=$LIBEVENT_WORK/initramfs.cpio BOOT_TIMEOUT=${LIBEVENT_TIMEOUT:-1200} \
		boot_initramfs mem=1G kunit.enable=0 quiet \
		INIT_SHELL=1 INIT_HOST="$out" \
		INIT_CMD="\"/libevent/run-in-uml.sh tests /host $1\"" \
		</dev/null >"$out/console-$1.log" 2>&1
}
say "libevent: booting the UML twice, side by side (kevent, epoll)"
(
	[ "$COVERAGE" = 1 ] && gcov_boot libevent-epoll
	boot_backend epoll
) &
epoll_pid=$!
[ "$COVERAGE" = 1 ] && gcov_boot libevent
declare -A status=([kevent]=0 [epoll]=0)
boot_backend kevent || status[kevent]=$?
wait "$epoll_pid" || status[epoll]=$?
rm -rf "$GCOV_DATA/libevent-epoll"
t2=$SECONDS
rc=0
for b in kevent epoll; do
	case ${status[$b]} in
	0) ;;
	124|137) say "libevent: the $b boot was killed after ${LIBEVENT_TIMEOUT:-1200} s (console: $out/console-$b.log)" ;;
	*) say "libevent: the $b boot's UML exited with status ${status[$b]} (console: $out/console-$b.log)" ;;
	esac
	[ "${status[$b]}" = 0 ] || rc=1
	"$PYTHON" "$REPO/scripts/logscan.py" "$out/console-$b.log" || rc=1
done
"$PYTHON" "$REPO/scripts/libevent_results.py" "$out" \
	--check-dumpevents "$LIBEVENT_WORK/bin/check-dumpevents.py" || rc=1
"$PYTHON" "$KUNIT_PY" parse --json="$RESULTS/libevent.json" "$out/libevent.ktap" \
	>"$out/kunit-parse.log" 2>&1 || true
say "libevent: build $((t1 - t0)) s, tests $((t2 - t1)) s (boot included)"
exit "$rc"

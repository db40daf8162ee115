#!/bin/bash
# Boot the kevent UML to a busybox shell on this terminal: /proc, /sys,
# /dev and loopback up, the test programs (/tests), the tools (/tools:
# kevent-watch, man) in the PATH, the manual pages, this project folder on
# /host.  'poweroff' (or leaving the shell) ends it cleanly.  With a
# coverage build, what the session reached is captured afterwards into
# $RESULTS/coverage-shell.info.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

need_boot_files
coverage=0
grep -q '^CONFIG_GCOV=y' "$BUILD/.config" 2>/dev/null && coverage=1
gcov_boot shell
# libevent's test programs and benchmarks in /libevent/bin when they are
# built (./run_tests.sh --libevent): the libevent initramfs.
if [ -f "$LIBEVENT_WORK/bin/.stamp" ] && "$REPO/scripts/libevent_initramfs.sh"; then
	export INITRAMFS=$LIBEVENT_WORK/initramfs.cpio
	say "shell: libevent's programs are in /libevent/bin (EVENT_NOKEVENT=1 for epoll)"
fi
set +e
boot_initramfs mem=512M kunit.enable=0 quiet INIT_SHELL=1 INIT_HOST="$REPO"
rc=$?
set -e
if [ $coverage = 1 ] && "$REPO/coverage/capture.sh" shell >/dev/null 2>&1; then
	say "shell: this session's coverage is in $RESULTS/coverage-shell.info" \
		"(HTML: coverage/capture.sh report shell)"
fi
exit $rc

#!/bin/bash
# Boot the kevent UML to a busybox shell on this terminal: /proc, /sys,
# /dev and loopback up, the test programs (/tests) and tools (/tools) in
# the PATH, this project folder on /host.  'poweroff' (or leaving the
# shell) ends it cleanly; gcov data of the session is written.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "$UML" ] || die "no UML kernel at $UML: run ./run_tests.sh once first"
[ -f "$USERLAND_OUT/initramfs.cpio" ] || die "no initramfs: run ./run_tests.sh once first"
exec "$UML" mem=512M initrd="$USERLAND_OUT/initramfs.cpio" rdinit=/init \
	kunit.enable=0 quiet KEVENT_SHELL=1 KEVENT_HOST="$REPO" \
	con=null con0=fd:0,fd:1

#!/bin/bash
# The libevent initramfs: the test initramfs (build_userland.sh's list)
# plus libevent's static programs in /libevent/bin and the script that
# runs them, /libevent/run-in-uml.sh.  Written to $LIBEVENT_WORK/initramfs.cpio.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

bin=$LIBEVENT_WORK/bin
list=$USERLAND_OUT/initramfs.list
[ -f "$list" ] || die "no $list: run scripts/build_userland.sh"
[ -f "$bin/.stamp" ] || die "libevent is not built: run scripts/build_libevent.sh"
{
	cat "$list"
	echo "dir /libevent 0755 0 0"
	echo "dir /libevent/bin 0755 0 0"
	echo "file /libevent/run-in-uml.sh $REPO/userland/libevent/run-in-uml.sh 0755 0 0"
	for f in "$bin"/*; do
		[ -x "$f" ] || continue
		echo "file /libevent/bin/$(basename "$f") $f 0755 0 0"
	done
} > "$LIBEVENT_WORK/initramfs.list"
"$USERLAND_OUT/gen_init_cpio" "$LIBEVENT_WORK/initramfs.list" > "$LIBEVENT_WORK/initramfs.cpio.tmp" ||
	die "gen_init_cpio failed"
mv "$LIBEVENT_WORK/initramfs.cpio.tmp" "$LIBEVENT_WORK/initramfs.cpio"

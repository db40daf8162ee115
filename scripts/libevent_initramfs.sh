#!/bin/bash
# The libevent initramfs: the test initramfs (build.py userland's list)
# plus libevent's static programs in /libevent/bin and the script that
# runs them, /libevent/run-in-uml.sh.  Written to $LIBEVENT_WORK/initramfs.cpio.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

bin=$LIBEVENT_WORK/bin
list=$USERLAND_OUT/initramfs.list
[ -f "$list" ] || die "no $list: run scripts/build.py userland"
[ -f "$bin/.stamp" ] || die "libevent is not built: run scripts/build_libevent.sh"
# What libevent's resolver tests read: localhost in /etc/hosts (the
# blocking resolver of dns/bufferevent_connect_hostname), a nameserver in
# /etc/resolv.conf (dns/initialize_nameservers), service names
# (util/getaddrinfo).  The test initramfs has none of them.
etc=$LIBEVENT_WORK/etc
mkdir -p "$etc"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost\n' > "$etc/hosts"
printf 'nameserver 127.0.0.1\n' > "$etc/resolv.conf"
printf 'hosts: files dns\nservices: files\nprotocols: files\n' > "$etc/nsswitch.conf"
{
	cat "$list"
	for f in hosts resolv.conf nsswitch.conf; do
		echo "file /etc/$f $etc/$f 0644 0 0"
	done
	for f in /etc/services /etc/protocols; do
		if [ -r "$f" ]; then echo "file $f $f 0644 0 0"; fi
	done
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

#!/bin/bash
# Build the static user-space programs against the uapi headers as
# installed by make headers_install (userland/Makefile, which first
# checks the ABI against the installed <linux/ukevent.h>), and pack them
# with busybox into the test initramfs ($USERLAND_OUT/initramfs.cpio).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out=$USERLAND_OUT
mkdir -p "$out" "$HEADERS"

# UML cannot export headers (make ARCH=um headers_install stops with
# "Headers not exportable for UML"); the x86 export of the same tree works,
# and its asm/unistd_64.h comes from the syscall_64.tbl that UML uses.
make -s -C "$TREE" ARCH=x86 O="$HEADERS" headers_install >/dev/null ||
	die "make headers_install failed"

# The programs, the manual pages (formatted for the man command of the
# initramfs: busybox has none) and gen_init_cpio: userland/Makefile, which
# first compiles the uapi check (the ABI as static assertions) against the
# <linux/ukevent.h> installed above.  (The uapi check is here rather than
# in lint.sh, so that one headers_install serves both: it costs about 30 s
# of CPU in a cold run.)
make -s -C "$REPO/userland" -j"$JOBS" O="$out" HEADERS="$HEADERS" TREE="$TREE" ||
	die "the user-space build failed (userland/Makefile)"

# What the initramfs carries: every program whose source is there.  A
# binary left from a removed source goes (userland_layer.py runs what is in
# $out/tests/).
progs() {	# dir
	local src bin
	for bin in "$out/$1"/*; do
		[ ! -e "$bin" ] || [ -e "$REPO/userland/$1/$(basename "$bin").c" ] || rm -f "$bin"
	done
	for src in "$REPO/userland/$1"/*.c; do
		[ -e "$src" ] || continue
		basename "$src" .c
	done
}
mapfile -t tests < <(progs tests)
mapfile -t tools < <(progs tools)
mapfile -t benches < <(progs bench)	# ./run_tests.sh --bench, in /bench
mapfile -t fuzzers < <(progs fuzz)	# ./run_tests.sh --fuzz, in /fuzz
pages=()
for src in "$REPO"/userland/man/*.[1-8]; do
	[ -e "$src" ] || continue
	page=$(basename "$src")
	pages+=("cat${page##*.}/$page")
done

busybox=$(command -v busybox) || die "busybox missing: apt-get install busybox-static"
gen=$out/gen_init_cpio

list=$out/initramfs.list
{
	for d in /dev /proc /sys /tmp /results /host /tests /tools /bench /fuzz /bin /sbin /etc /root \
		/usr /usr/share /usr/share/man; do
		echo "dir $d 0755 0 0"
	done
	for p in "${pages[@]}"; do
		echo "dir /usr/share/man/${p%/*} 0755 0 0"
	done | sort -u
	for p in "${pages[@]}"; do
		echo "file /usr/share/man/$p $out/man/$p 0644 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /init $out/init 0755 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	# Every applet by name, for the tests' shell commands and the shell.
	for a in $("$busybox" --list); do
		[ "$a" = busybox ] || echo "slink /bin/$a busybox 0777 0 0"
	done
	for t in "${tests[@]}"; do
		echo "file /tests/$t $out/tests/$t 0755 0 0"
	done
	for t in "${tools[@]}"; do
		echo "file /tools/$t $out/tools/$t 0755 0 0"
	done
	for t in "${benches[@]}"; do
		echo "file /bench/$t $out/bench/$t 0755 0 0"
	done
	for t in "${fuzzers[@]}"; do
		echo "file /fuzz/$t $out/fuzz/$t 0755 0 0"
	done
} > "$list"
"$gen" "$list" > "$out/initramfs.cpio.tmp" || die "gen_init_cpio failed"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
say "userland: ${#tests[@]} test programs, ${#tools[@]} tools, ${#pages[@]} manual pages in $out/initramfs.cpio"

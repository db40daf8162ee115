#!/bin/bash
# Build the static user-space programs against the uapi headers as
# installed by make headers_install, and pack them with busybox into the
# test initramfs ($USERLAND_OUT/initramfs.cpio).  First the uapi check:
# userland/uapi_check.c, the ABI as static assertions, must compile
# against the installed <linux/ukevent.h>, or the build fails.
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

# The uapi check: the ABI of kernel/Documentation/userspace-api/kevent.rst
# as static assertions, compiled against <linux/ukevent.h> as installed.
# (Here rather than in lint.sh, so that one headers_install serves both:
# it costs about 30 s of CPU in a cold run.)
gcc -std=c11 -Wall -Werror -isystem "$HEADERS/usr/include" -o "$out/uapi_check" \
	"$REPO/userland/uapi_check.c" ||
	die "uapi check: installed <linux/ukevent.h> does not match the ABI of kernel/Documentation/userspace-api/kevent.rst"

CFLAGS=(-static -O2 -g -Wall -Werror -pthread
	-isystem "$HEADERS/usr/include"
	-I "$TREE/tools/testing/selftests" -I "$REPO/userland")

# The newest header a program may include.
newest_header=$(find "$REPO/userland" "$HEADERS/usr/include/linux/ukevent.h" \
	-name '*.h' -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)

# Compile $2 from $1 when the source or a header is newer.
cc_static() {
	local src=$1 bin=$2
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$newest_header" -nt "$bin" ]; then
		gcc "${CFLAGS[@]}" -o "$bin" "$src" || die "cannot compile $src"
	fi
}

# Compile every program of userland/$1/ into $out/$1/, drop programs whose
# source is gone; their names in built[].
compile_all() {
	local dir=$1 src bin
	built=()
	mkdir -p "$out/$dir"
	for src in "$REPO/userland/$dir"/*.c; do
		[ -e "$src" ] || continue
		cc_static "$src" "$out/$dir/$(basename "$src" .c)"
		built+=("$(basename "$src" .c)")
	done
	for bin in "$out/$dir"/*; do
		[ ! -e "$bin" ] || [ -e "$REPO/userland/$dir/$(basename "$bin").c" ] || rm -f "$bin"
	done
}

cc_static "$REPO/userland/init.c" "$out/init"
compile_all tests
tests=("${built[@]}")
compile_all tools
tools=("${built[@]}")
# The benchmark (./run_tests.sh --bench), in /bench: not run by the tests.
compile_all bench
benches=("${built[@]}")
# The fuzzer (./run_tests.sh --fuzz), in /fuzz.
compile_all fuzz
fuzzers=("${built[@]}")

# The manual pages, formatted here for the man command of the initramfs
# (busybox has none); plain text, no overstrikes.
pages=()
for src in "$REPO"/userland/man/*.[1-8]; do
	[ -e "$src" ] || continue
	page=$(basename "$src")
	cat=$out/man/cat${page##*.}/$page
	mkdir -p "$(dirname "$cat")"
	if [ ! -s "$cat" ] || [ "$src" -nt "$cat" ]; then
		GROFF_NO_SGR=1 groff -man -Tascii -P-c -P-b -P-u -P-o "$src" > "$cat.tmp" 2>/dev/null ||
			die "groff cannot format $src"
		mv "$cat.tmp" "$cat"
	fi
	pages+=("cat${page##*.}/$page")
done

busybox=$(command -v busybox) || die "busybox missing: apt-get install busybox-static"
gen=$out/gen_init_cpio
[ -x "$gen" ] || gcc -O2 -o "$gen" "$TREE/usr/gen_init_cpio.c" || die "cannot build gen_init_cpio"

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

#!/bin/bash
# Build libevent with the kevent backend, statically, for the UML: fetch
# the source (fetch_libevent.sh), copy it to $LIBEVENT_WORK/tree, apply
# userland/libevent/series with patch -p1, autoreconf (the patches change
# configure.ac and Makefile.am), configure against the tree's uapi
# headers (<linux/ukevent.h>, installed in $LIBEVENT_WORK/headers, apart
# from build.py userland's, so that the two builds can run side by side,
# as ./run_tests.sh --libevent runs them beside the kernel build) and
# make the library, the test programs and the benchmarks, linked with
# -static.  The programs go to $LIBEVENT_WORK/bin/.  The copy, autoreconf
# and configure are redone when the source or the patches changed; make
# as make sees fit.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

patches=$REPO/userland/libevent
tree=$LIBEVENT_WORK/tree
bin=$LIBEVENT_WORK/bin
# The programs of libevent's test/test.sh, and the benchmarks.
PROGRAMS=(test-init test-eof test-closed test-weof test-time test-changelist
	test-fdleak test-dumpevents regress bench bench_cascade)

for tool in autoreconf libtoolize automake patch; do
	command -v "$tool" >/dev/null ||
		die "libevent: $tool is missing (apt-get install autoconf automake libtool patch; scripts/setup.sh does it with SETUP_LIBEVENT=1)"
done
[ -f "$TREE/include/uapi/linux/ukevent.h" ] ||
	die "libevent: no kevent in the kernel tree $TREE: run scripts/tree.py prepare first"
headers=$LIBEVENT_WORK/headers
mkdir -p "$headers"
make -s -C "$TREE" ARCH=x86 O="$headers" headers_install >/dev/null ||
	die "libevent: make headers_install into $headers failed"

src=$("$REPO/scripts/fetch_libevent.sh") || exit 1

# The patched tree, made afresh when the source or the patches changed.
stamp=$( { echo "$src"; cat "$patches/series";
	   while read -r p; do cat "$patches/$p"; done < "$patches/series"; } |
	 sha256sum | cut -d' ' -f1)
if [ ! -f "$tree/.patched" ] || [ "$(cat "$tree/.patched")" != "$stamp" ]; then
	say "libevent: patching a copy of $src"
	rm -rf "$tree.new" "$tree"
	mkdir -p "$LIBEVENT_WORK"
	cp -a "$src" "$tree.new"
	while read -r p; do
		[ -n "$p" ] || continue
		patch -d "$tree.new" -p1 -s --no-backup-if-mismatch < "$patches/$p" ||
			die "libevent: $p does not apply to $src"
	done < "$patches/series"
	mv "$tree.new" "$tree"
	echo "$stamp" > "$tree/.patched"
fi

log=$LIBEVENT_WORK/build.log
# autoreconf and configure again only when the build's sources changed.
conf=$(cat "$tree/configure.ac" "$tree/Makefile.am" "$tree"/test/include.am "$0" |
       sha256sum | cut -d' ' -f1)
if [ ! -f "$tree/.configured" ] || [ "$(cat "$tree/.configured")" != "$conf" ]; then
	say "libevent: autoreconf, configure (log: $log)"
	(
		cd "$tree"
		autoreconf -fi
		# The uapi headers of this tree carry <linux/ukevent.h>; no
		# OpenSSL (regress's SSL tests only), no shared libraries.
		./configure -q --disable-shared --enable-static --disable-openssl \
			--disable-samples \
			CPPFLAGS="-isystem $headers/usr/include" CFLAGS="-O2 -g"
		grep -q '^#define HAVE_KEVENT 1' config.h ||
			{ echo "configure did not find kevent"; exit 1; }
	) >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "libevent: configure failed (log: $log)"; }
	echo "$conf" > "$tree/.configured"
fi
say "libevent: make (log: $log)"
# -all-static: libtool links the programs with gcc -static.
make -C "$tree" -s -j"$JOBS" LDFLAGS=-all-static >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "libevent: build failed (log: $log)"; }

mkdir -p "$bin"
for p in "${PROGRAMS[@]}"; do
	f=$tree/test/$p
	[ -x "$f" ] || die "libevent: test/$p was not built (log: $log)"
	file -b "$f" 2>/dev/null | grep -q 'statically linked' ||
		ldd "$f" 2>&1 | grep -q 'not a dynamic executable' ||
		die "libevent: test/$p is not statically linked"
	cp "$f" "$bin/$p"
done
cp "$tree/test/check-dumpevents.py" "$bin/"
touch "$bin/.stamp"
say "libevent: ${#PROGRAMS[@]} static programs in $bin"

#!/bin/bash
# Make sure the tools and the kernel source the harness needs are here.
# As root on Debian, missing packages are installed with apt-get; otherwise
# the script stops and names them.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# command -> Debian package
declare -A NEED=(
	[gcc]=gcc [make]=make [python3]=python3 [bc]=bc [flex]=flex
	[bison]=bison [perl]=perl [cpio]=cpio [xz]=xz-utils [lcov]=lcov
	[genhtml]=lcov [shellcheck]=shellcheck [patch]=patch
	[busybox]=busybox-static [rsync]=rsync [cmp]=diffutils
	[groff]=groff-base
)
# The benchmark's plots (./run_tests.sh --bench only).
[ "${SETUP_BENCH:-0}" = 1 ] && NEED[gnuplot]=gnuplot-nox
# The x86_64 SMP kernel's machine (./run_tests.sh --smp only); it brings
# qemu-system-data with qboot.rom.
[ "${SETUP_SMP:-0}" = 1 ] && NEED[qemu-system-x86_64]=qemu-system-x86
# libevent's build (./run_tests.sh --libevent only): the patches change
# configure.ac and Makefile.am, so autoreconf runs.
if [ "${SETUP_LIBEVENT:-0}" = 1 ]; then
	NEED[autoreconf]=autoconf NEED[automake]=automake NEED[libtoolize]=libtool
	NEED[dpkg-source]=dpkg-dev
fi
# files -> Debian package
declare -A NEED_FILES=(
	[/usr/include/libelf.h]=libelf-dev
	[/usr/include/gelf.h]=libelf-dev
)

missing=()
for cmd in "${!NEED[@]}"; do
	command -v "$cmd" >/dev/null 2>&1 || missing+=("${NEED[$cmd]}")
done
for f in "${!NEED_FILES[@]}"; do
	[ -e "$f" ] || missing+=("${NEED_FILES[$f]}")
done
# A static glibc for the user-space tests.
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || missing+=(libc6-dev)
# Debian's kernel source, unless the caller brings a tree.
if [ -z "${KERNEL_SRC:-}" ] && [ ! -e /usr/src/linux-source-6.12.tar.xz ]; then
	missing+=(linux-source-6.12)
fi

if [ ${#missing[@]} -gt 0 ]; then
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	if [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null; then
		say "setup: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null || die "apt-get update failed"
		apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install ${missing[*]} failed (linux-source-6.12 is in bookworm-security)"
	else
		die "missing packages: ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root on Debian"
	fi
fi
say "setup: all tools present"

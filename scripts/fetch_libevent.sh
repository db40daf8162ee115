#!/bin/bash
# Fetch libevent's source, Debian 12's package (2.1.12-stable), once, into
# $LIBEVENT_WORK/source/ (apt-get source: the upstream tarball with Debian's
# patches applied).  With LIBEVENT_SRC=DIR, that unpacked tree is used
# instead (never modified: the build copies it).  Prints the directory of
# the pristine tree on stdout; everything else goes to stderr.
#
# apt-get source needs a deb-src entry: when the configured Debian archive
# has none, one is added for the same URIs and suites
# (/etc/apt/sources.list.d/kevent-libevent-src.sources), as root.  With no
# network, no root or no such archive the script says what is missing and
# how to get it, and exits non-zero.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

version=2.1.12-stable
src_dir=$LIBEVENT_WORK/source

# A tree is libevent 2.1.12's if it has these.
check_tree() {	# dir
	local f
	for f in event.c epoll.c configure.ac Makefile.am test/regress.c test/test.sh; do
		[ -e "$1/$f" ] || return 1
	done
	grep -q "AC_INIT(libevent,$version)" "$1/configure.ac"
}

if [ -n "${LIBEVENT_SRC:-}" ]; then
	check_tree "$LIBEVENT_SRC" ||
		die "LIBEVENT_SRC=$LIBEVENT_SRC is not an unpacked libevent $version tree (event.c, epoll.c, configure.ac, test/regress.c, test/test.sh)"
	realpath "$LIBEVENT_SRC"
	exit 0
fi

tree=$(find "$src_dir" -mindepth 1 -maxdepth 1 -type d -name 'libevent-*' 2>/dev/null | head -n 1)
if [ -n "$tree" ] && check_tree "$tree"; then
	echo "$tree"
	exit 0
fi

how="or unpack libevent $version (Debian 12's source package 'libevent') and set LIBEVENT_SRC=DIR"
if ! command -v apt-get >/dev/null || ! command -v dpkg-source >/dev/null; then
	die "libevent source: apt-get and dpkg-source (package dpkg-dev) are needed to fetch it, $how"
fi

# Is there a deb-src entry for Debian's archive?  (deb822 .sources files
# and one-line .list files both.)
has_deb_src() {
	# shellcheck disable=SC2016  # apt's own $(FIELD) syntax
	apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -qx Sources
}
if ! has_deb_src; then
	[ "$(id -u)" = 0 ] ||
		die "libevent source: no deb-src entry in /etc/apt/sources.list*; as root this script adds one (or add 'Types: deb-src' for your Debian mirror yourself), $how"
	# The URIs and suites of the configured Debian archive (deb822 or one-line).
	# shellcheck disable=SC2016  # apt's own $(FIELD) syntax
	entries=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
		grep -E 'debian(-security)?/? ' | sort -u)
	[ -n "$entries" ] ||
		die "libevent source: no Debian archive configured in /etc/apt/sources.list*, $how"
	file=/etc/apt/sources.list.d/kevent-libevent-src.sources
	say >&2 "libevent: adding deb-src entries for the configured Debian archive ($file)"
	while read -r uri suite; do
		printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' \
			"${uri%/}" "$suite"
	done <<< "$entries" > "$file"
	apt-get update -q >&2 ||
		die "libevent source: apt-get update failed (no network?), $how"
fi

rm -rf "$src_dir"
mkdir -p "$src_dir"
say >&2 "libevent: apt-get source libevent into $src_dir"
start=$SECONDS
# As root apt-get source warns that it cannot drop to the _apt user; the
# download still works.
(cd "$src_dir" && apt-get source -q libevent >&2) ||
	die "libevent source: 'apt-get source libevent' failed (no network, or no deb-src entry for Debian 12 'bookworm'?), $how"
tree=$(find "$src_dir" -mindepth 1 -maxdepth 1 -type d -name 'libevent-*' | head -n 1)
if [ -z "$tree" ] || ! check_tree "$tree"; then
	die "libevent source: apt-get source gave no libevent $version tree in $src_dir (another Debian release?), $how"
fi
say >&2 "libevent: source fetched in $((SECONDS - start)) s: $tree"
echo "$tree"

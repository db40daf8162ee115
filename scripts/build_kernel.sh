#!/bin/bash
# Configure and build the UML kernel with kunit_tool from the config
# fragments in configs/.  The binary is $BUILD/linux.  When nothing that
# decides the configuration changed since kunit_tool last made and checked
# it (lib.sh's config_hash, kept in $BUILD/.kevent-config), the build is
# only the `make` kunit_tool would run, without its olddefconfig and
# compile_commands.json passes: about 15 s less for a run after an edit.
#
# That make walks all 388 directories of the configured tree: about 6 s
# with nothing to compile.  When, since the last whole make of this build
# dir began, only kevent's own C files changed (kernel/kevent/ and its
# kunit/, not a Makefile, not a header of include/), make descends into
# kernel/kevent alone and then links.  The link needs no other directory:
# the thin archives built-in.a and vmlinux.a name kevent's objects by
# path, so touching built-in.a makes kbuild take the recompiled objects
# into vmlinux.a and relink.  When no kevent file is newer than the binary,
# there is nothing to make.  $BUILD/.kevent-walked marks the whole make:
# its time is when that make began, its content the list of the files the
# harness puts in the tree (a file added or removed means a whole make).
# Any other change, a failed or interrupted whole make, or
# KEVENT_WHOLE_MAKE=1 means the whole make.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
stamp=$BUILD/.kevent-config
walked=$BUILD/.kevent-walked
want=$(config_hash)

# Whether only kevent's own C files changed since the whole make began;
# sets newer to those newer than the binary.
only_kevent_changed() {
	local f changed

	[ "${KEVENT_WHOLE_MAKE:-0}" != 1 ] &&
		changed=$(tree_changed_since "$walked") || return 1
	newer=()
	for f in $changed; do
		case $f in
		kernel/kevent/*.[ch] | kernel/kevent/kunit/*.[ch]) ;;
		*) return 1 ;;
		esac
		[ "$TREE/$f" -nt "$UML" ] && newer+=("$f")
	done
	return 0
}

make_um() {
	make -s -C "$TREE" ARCH=um O="$BUILD" -j"$JOBS" "$@"
}

if [ -x "$UML" ] && config_stamped "$BUILD" "$want" && only_kevent_changed; then
	if [ ${#newer[@]} = 0 ]; then
		say "build: no kevent file is newer than $UML, nothing else changed since the whole make: nothing to make"
	else
		say "build: only kevent's C files changed since the whole make (${newer[*]}): make in kernel/kevent, then link"
		touch "$BUILD/built-in.a"
		# Goals in order: with -j, make could link before it compiled.
		# One make is about 3 s of CPU less than two; a header of
		# kevent's recompiles its includers, worth two makes with -j.
		case " ${newer[*]}" in
		*.h\ * | *.h) make_um build-dir=kernel/kevent kernel/kevent
			make_um build-dir=kernel/kevent all ;;
		*) make_um -j1 build-dir=kernel/kevent kernel/kevent all ;;
		esac
	fi
elif [ -x "$UML" ] && config_stamped "$BUILD" "$want"; then
	say "build: configuration unchanged since kunit_tool made it: make only"
	mark_tree_begin "$walked"
	make_um all
	mark_tree_done "$walked"
else
	rm -f "$stamp"
	mark_tree_begin "$walked"
	python3 "$KUNIT_PY" build --arch um --build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
	printf '%s\n' "$want" > "$stamp"
	mark_tree_done "$walked"
fi
[ -x "$UML" ] || die "the build did not produce $UML"
say "build: $UML"

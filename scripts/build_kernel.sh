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
# kernel/kevent alone and links.  No other directory is needed for that:
# the thin archives built-in.a and vmlinux.a name kevent's objects by
# path and vmlinux.o takes all of vmlinux.a, so touching built-in.a makes
# kbuild relink, and the link reads the recompiled objects.  (This
# assumes kevent's headers in kernel/kevent/ are included from there
# only; kevent.h of include/, the __fput() hook, is outside it.)  When
# no kevent file changed since the last make that succeeded, no make
# runs.  The marks (lib.sh's mark_tree_begin/done): $BUILD/.kevent-walked
# the last whole make, $BUILD/.kevent-made the last make of any kind that
# succeeded; each has the time its make began.  Any other change of the
# tree (or a file added or removed, or KCFLAGS), a hand-edited .config, a
# failed or interrupted whole make, or KEVENT_WHOLE_MAKE=1 means the whole
# make.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
stamp=$BUILD/.kevent-config
walked=$BUILD/.kevent-walked
made=$BUILD/.kevent-made
want=$(config_hash)

# Whether only kevent's own C files changed since the whole make began;
# sets newer to those changed since the last make that succeeded began.
only_kevent_changed() {
	local f changed

	[ "${KEVENT_WHOLE_MAKE:-0}" != 1 ] && [ ! "$BUILD/.config" -nt "$stamp" ] &&
		changed=$(tree_changed_since "$walked") || return 1
	while IFS= read -r f; do
		case $f in
		'' | kernel/kevent/*.[ch] | kernel/kevent/kunit/*.[ch]) ;;
		*) return 1 ;;
		esac
	done <<< "$changed"
	newer=$(tree_changed_since "$made") || newer=$changed
}

make_um() {	# (-S: no keep-going from MAKEFLAGS, which could link stale objects)
	make -s -S -C "$TREE" ARCH=um O="$BUILD" -j"$JOBS" "$@"
}

if ! [ -x "$KERNEL" ] || ! config_stamped "$BUILD" "$want"; then
	rm -f "$stamp"
	mark_tree_begin "$walked" "$made"
	"$PYTHON" "$KUNIT_PY" build --arch um --build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
	printf '%s\n' "$want" > "$stamp"
	touch -r "$BUILD/.config" "$stamp"
	mark_tree_done "$walked" "$made"
elif ! only_kevent_changed; then
	say "build: configuration unchanged since kunit_tool made it: make only"
	mark_tree_begin "$walked" "$made"
	make_um all
	mark_tree_done "$walked" "$made"
elif [ -z "$newer" ]; then
	say "build: no kevent file changed since the last make, nothing else since the whole make: nothing to make"
else
	say "build: only kevent's C files changed since the whole make (${newer//$'\n'/ }): make in kernel/kevent, then link"
	mark_tree_begin "$made"
	touch "$BUILD/built-in.a"
	# -j1: with -j, make could link before it compiled.  One make is
	# about 3 s of CPU less than two; a header recompiles all its
	# includers, worth two makes with -j.
	case $newer in
	*.h | *.h$'\n'*) make_um build-dir=kernel/kevent kernel/kevent
		make_um build-dir=kernel/kevent all ;;
	*) make_um -j1 build-dir=kernel/kevent kernel/kevent all ;;
	esac
	mark_tree_done "$made"
fi
[ -x "$KERNEL" ] || die "the build did not produce $KERNEL"
say "build: $KERNEL"

#!/bin/bash
# Configure and build the UML kernel with kunit_tool from the config
# fragments in configs/.  The binary is $BUILD/linux.  When nothing that
# decides the configuration changed since kunit_tool last made and checked
# it (lib.sh's config_hash, kept in $BUILD/.kevent-config), the build is
# only the `make` kunit_tool would run, without its olddefconfig and
# compile_commands.json passes: about 15 s less for a run after an edit.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
stamp=$BUILD/.kevent-config
want=$(config_hash)
if [ -x "$UML" ] && config_stamped "$BUILD" "$want"; then
	say "build: configuration unchanged since kunit_tool made it: make only"
	make -s -C "$TREE" ARCH=um O="$BUILD" -j"$JOBS" all
else
	rm -f "$stamp"
	python3 "$KUNIT_PY" build --arch um --build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
	printf '%s\n' "$want" > "$stamp"
fi
[ -x "$UML" ] || die "the build did not produce $UML"
say "build: $UML"

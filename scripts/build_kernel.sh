#!/bin/bash
# Configure and build the UML kernel with kunit_tool from the config
# fragments in configs/.  The binary is $BUILD/linux.  When nothing that
# decides the configuration changed since kunit_tool last made and checked
# it (the fragments, kernel/patches/, kevent's Kconfig, kunit_tool's UML
# fragment, the tree's version, the compiler's: their hash in
# $BUILD/.kevent-config), the build is only the `make` kunit_tool would
# run, without its olddefconfig and compile_commands.json passes: about
# 15 s less for a run after an edit.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
stamp=$BUILD/.kevent-config
want=$({
	printf '%s\n' "${cfg[@]}"
	for f in "${cfg[@]}"; do [ -f "$f" ] && cat "$f"; done
	cat "$REPO"/kernel/patches/*.patch "$REPO/kernel/kevent/Kconfig" \
		"$TREE/tools/testing/kunit/configs/arch_uml.config" "$TREE/Makefile"
	"${CC:-gcc}" --version 2>&1 | head -n 1
} | sha256sum)
if [ -f "$BUILD/.config" ] && [ -x "$UML" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
	say "build: configuration unchanged since kunit_tool made it: make only"
	make -s -C "$TREE" ARCH=um O="$BUILD" -j"$JOBS" all
else
	rm -f "$stamp"
	python3 "$KUNIT_PY" build --arch um --build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
	printf '%s\n' "$want" > "$stamp"
fi
[ -x "$UML" ] || die "the build did not produce $UML"
say "build: $UML"

#!/bin/bash
# Configure and build the UML kernel with kunit_tool from the config
# fragments in configs/.  The binary is $BUILD/linux.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
python3 "$KUNIT_PY" build --arch um --build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
[ -x "$UML" ] || die "the build did not produce $UML"
say "build: $UML"

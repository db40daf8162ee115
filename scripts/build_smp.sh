#!/bin/bash
# Configure and build the x86_64 SMP kernel (./run_tests.sh --smp) with
# kunit_tool from the config fragments (smp_kunitconfig_args in lib.sh):
# $SMP_BUILD/arch/x86/boot/bzImage.  KCSAN=1 builds the KCSAN variant.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t cfg < <(smp_kunitconfig_args)
"$PYTHON" "$KUNIT_PY" build --arch x86_64 --qemu_config "$QEMU_CONFIG" \
	--build_dir "$SMP_BUILD" --jobs "$JOBS" "${cfg[@]}"
[ -f "$BZIMAGE" ] || die "the build did not produce $BZIMAGE"
say "build: $BZIMAGE"

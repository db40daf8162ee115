#!/bin/bash
# Configure and build the x86_64 SMP kernel of the target (smp or
# smp-kcsan: ./run_tests.sh --smp [--kcsan]) with kunit_tool from its
# config fragments (scripts/targets.py): $BUILD/arch/x86/boot/bzImage.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ "$TARGET_ARCH" = x86_64 ] || die "target $TARGET is not an x86_64 kernel: KEVENT_TARGET=smp or smp-kcsan"
mapfile -t cfg < <(kunitconfig_args)
mkdir -p "$BUILD"
"$PYTHON" "$KUNIT_PY" build --arch x86_64 --qemu_config "$QEMU_CONFIG" \
	--build_dir "$BUILD" --jobs "$JOBS" "${cfg[@]}"
[ -f "$KERNEL" ] || die "the build did not produce $KERNEL"
say "build: $KERNEL"

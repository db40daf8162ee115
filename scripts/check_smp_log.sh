#!/bin/bash
# Check a kernel log of the x86_64 SMP kernel (scripts/logscan.py --smp):
# all KEVENT_QEMU_CPUS vCPUs (default 4) came up, the clocksource is a
# hardware clock, and no splat; KCSAN reports are listed, those that
# touch kevent code fail the run, with file:line from the vmlinux of the
# target's build when the target is an x86_64 kernel (smp, smp-kcsan).
# Usage: check_smp_log.sh LOG [WHAT]
# Exit status: 0 clean, 2 a report, 1 anything else.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

lines=()
[ "$TARGET_ARCH" = x86_64 ] && lines=(--vmlinux "$BUILD/vmlinux" --tree "$TREE")
exec "$PYTHON" "$REPO/scripts/logscan.py" --smp --cpus "${KEVENT_QEMU_CPUS:-4}" \
	"${lines[@]}" "$@"

#!/bin/bash
# Boot the x86_64 SMP kernel in QEMU (4 vCPUs, multi-threaded TCG) with the
# test initramfs as -initrd, rdinit=/init.  As the debug UML boot does, the
# kevent KUnit suites run first, then init runs the user-space tests, scans
# for leaks (INIT_KMEMLEAK=1) and reboots (INIT_REBOOT=1), which ends
# QEMU (-no-reboot), as kunit_shutdown=reboot does the KUnit boot.  init
# writes its KTAP to the second serial port (ttyS1), which QEMU puts in a
# host file; kunit_tool parses it.  Fails on a test
# failure, a missing result, a panic, a splat or a boot that outlives its
# timeout.  USERLAND_ARGS adds kernel arguments (e.g. INIT_ONLY=prog).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

timeout=${SMP_USERLAND_TIMEOUT:-600}
need_qemu_kernel
[ -f "$USERLAND_OUT/initramfs.cpio" ] || die "no initramfs: run scripts/build_userland.sh"
mkdir -p "$RESULTS"
console=$RESULTS/$TARGET-userland-console.log
ktap=$RESULTS/$TARGET-userland.ktap
rm -f "$ktap"
clear_status smp-userland

export KEVENT_QEMU_INITRD=$USERLAND_OUT/initramfs.cpio KEVENT_QEMU_RESULTS=$ktap
read -ra extra <<< "${USERLAND_ARGS:-}"
mapfile -d '' cmd < <("$PYTHON" "$REPO/scripts/qemu_cmd.py" "$(dirname "$KUNIT_PY")" \
	"$QEMU_CONFIG" "$BUILD" "${KUNIT_BOOT_ARGS[@]}" \
	INIT_KMEMLEAK=1 INIT_REBOOT=1 INIT_TOLERANCE_SCALE="${SMP_TOLERANCE_SCALE:-5}" \
	INIT_RESULTS=/dev/ttyS1 INIT_TIMEOUT=$((timeout / 4)) "${extra[@]}")
[ ${#cmd[@]} -gt 0 ] || die "cannot make the QEMU command from $QEMU_CONFIG"
printf 'booting:'; printf ' %q' "${cmd[@]}"; printf '\n'
set +e
timeout --kill-after=10 "$timeout" "${cmd[@]}" </dev/null >"$console" 2>&1
rc=$?
set -e
[ -f "$ktap" ] || : > "$ktap"

problem='' verdict=crashed
if [ $rc = 124 ] || [ $rc = 137 ]; then
	problem="the QEMU boot hung: killed after $timeout s" verdict=hung
elif grep -q 'Kernel panic' "$console"; then
	problem="kernel panic (see $console)"
elif [ $rc != 0 ]; then
	problem="QEMU exited with status $rc (see $console)"
elif ! grep -q 'kevent-init: done, powering off' "$console"; then
	problem="init did not finish (see $console)"
elif [ ! -s "$ktap" ]; then
	problem="no user-space results were written (see $console)"
fi

finish_user_layer "SMP user space" "$ktap" smp-userland "$RESULTS/$TARGET-userland-parsed.txt" \
	"$console" "$verdict" "$problem" \
	"$REPO/scripts/check_smp_log.sh"

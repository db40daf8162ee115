#!/bin/bash
# Boot the UML N times (default 100) with an init that runs no test and
# powers off at once, starting each boot from no .gcda files as the
# coverage stages do, and count the exit statuses: every boot must exit
# 0 after "reboot: Power down" and leave its coverage data.  The check of
# kernel/patches/0011 (UML aborted now and then after a clean power-off).
# Usage: power_off_check.sh [N]   (the coverage build; KEVENT_TARGET
# picks another)
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

n=${1:-100}
need_boot_files
log=$RESULTS/power-off
mkdir -p "$log"
declare -A seen
bad=0
for i in $(seq 1 "$n"); do
	[ "$COVERAGE" = 1 ] && find "$BUILD" -name '*.gcda' -delete
	BOOT_TIMEOUT=60 boot_initramfs mem=256M kunit.enable=0 INIT_ONLY=none \
		</dev/null >"$log/boot.log" 2>&1
	rc=$?
	seen[$rc]=$((${seen[$rc]:-0} + 1))
	if [ $rc != 0 ] || ! grep -q '^reboot: Power down' "$log/boot.log" ||
	   { [ "$COVERAGE" = 1 ] && ! find "$BUILD/kernel/kevent" -name '*.gcda' | grep -q .; }; then
		bad=$((bad + 1))
		cp "$log/boot.log" "$log/boot-$i.log"
		say "boot $i: exit status $rc (console: $log/boot-$i.log)"
	fi
done
for rc in "${!seen[@]}"; do
	say "exit status $rc: ${seen[$rc]} boots"
done
[ $bad = 0 ] || die "$bad of $n boots did not power off cleanly with their coverage data"
say "$n boots, each powered off cleanly (exit status 0) and wrote its coverage data"

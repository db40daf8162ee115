#!/bin/bash
# One fuzzing boot: the debug UML runs kevent-fuzz with the given
# arguments (userland/fuzz/kevent-fuzz.c), then init's kmemleak scan.
# Usage: fuzz_once.sh LOG FUZZ-ARGUMENTS...
# Writes the console to LOG and prints one verdict line:
#   ok                        the fuzzer's result line says ok, log clean
#   finding: WHAT             a FINDING line of the fuzzer
#   kernel-report: LINE       a report in the kernel log (check_log.sh)
#   hang: ...                 the UML stopped answering (killed)
#   crash: ...                the UML died without a result
# Exit status 0 for ok, 1 otherwise.  FUZZ_TIME (seconds, default 60)
# bounds the fuzzer; the boot gets 2 minutes more.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

log=${1:?usage: fuzz_once.sh LOG FUZZ-ARGUMENTS...}
shift
time=${FUZZ_TIME:-60}
need_boot_files 2>/dev/null || { echo "crash: no UML or initramfs (build first)"; exit 1; }

# Soft lockups after 10 s (watchdog_thresh=5); hung tasks after 20 s
# (configs/debug.config).
set +e
BOOT_TIMEOUT=$((time + 120)) boot_initramfs mem=512M kunit.enable=0 watchdog_thresh=5 \
	INIT_KMEMLEAK=1 INIT_TOLERANCE_SCALE=5 INIT_TIMEOUT=$((time + 60)) \
	INIT_FUZZ="\"--time $time $*\"" </dev/null >"$log" 2>&1
rc=$?
set -e

# A FINDING printed before the UML stopped answering names the cause (a
# call that runs on and ignores SIGKILL keeps the fuzzer from exiting).
if line=$(grep -m1 'kevent-fuzz: FINDING' "$log"); then
	verdict="finding: ${line#*FINDING }"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		verdict="$verdict; then the UML stopped answering"
	fi
elif [ $rc = 124 ] || [ $rc = 137 ]; then
	verdict="hang: the UML stopped answering, killed after $((time + 120)) s"
elif report=$("$REPO/scripts/check_log.sh" "$log" fuzz 2>&1 >/dev/null); then
	if grep -q 'kevent-fuzz: result ok' "$log"; then
		verdict=ok
	elif [ $rc != 0 ]; then
		verdict="crash: the UML exited with status $rc before the fuzzer's result"
	else
		verdict="crash: no result from the fuzzer ($(grep -m1 'kevent-init: fuzz' "$log" || echo 'no exit status'))"
	fi
else
	verdict="kernel-report: $(printf '%s\n' "$report" | grep -m1 -E '^[0-9]+:' | cut -d: -f2- | cut -c1-160)"
fi
echo "$verdict"
[ "$verdict" = ok ]

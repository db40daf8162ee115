#!/bin/bash
# Shared paths and helpers for the harness scripts.  Sourced, not run.
# shellcheck disable=SC2034  # the paths are used by the scripts that source this

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${KEVENT_WORK:-$REPO/.work}	# everything generated, ignored by git
TREE=$WORK/linux			# the prepared kernel tree
BUILD=${KEVENT_BUILD:-$WORK/build}	# kunit_tool's build dir (O=)
LINT_BUILD=$WORK/build-lint		# W=1 compile of the kevent files
HEADERS=$WORK/headers			# make headers_install output
USERLAND_OUT=$WORK/userland		# static programs and the initramfs
RESULTS=$WORK/results			# KTAP, logs, JSON of the last run
UML=$BUILD/linux			# the UML binary of the last run
KUNIT_PY=$TREE/tools/testing/kunit/kunit.py
JOBS=${JOBS:-$(nproc)}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf '%s\n' "$*"
}

stage() {
	printf '\n==> %s\n' "$*"
}

# The kunitconfig fragments of this run, as kunit_tool arguments.
kunitconfig_args() {
	local args=(--kunitconfig "$REPO/configs/base.config")

	[ "${COVERAGE:-1}" = 1 ] && args+=(--kunitconfig "$REPO/configs/coverage.config")
	[ "${DEBUG_CONFIG:-0}" = 1 ] && args+=(--kunitconfig "$REPO/configs/debug.config")
	printf '%s\n' "${args[@]}"
}

# The UML binary and the initramfs boot_initramfs needs, or a message.
need_boot_files() {
	[ -x "$UML" ] || die "no UML kernel at $UML: run ./run_tests.sh once first"
	[ -f "$USERLAND_OUT/initramfs.cpio" ] || die "no initramfs: run scripts/build_userland.sh"
}

# Boot the UML with the test initramfs; the console is this process's
# stdin and stdout.  Arguments: more of the kernel command line (memory,
# kunit.*, init's KEVENT_* settings).  BOOT_TIMEOUT=seconds kills a boot
# that runs longer (exit status 124 or 137, as timeout(1)); without it the
# boot keeps the terminal (the interactive shell).
# Call need_boot_files first, before any redirection of stderr.
boot_initramfs() {
	local cmd=("$UML" initrd="$USERLAND_OUT/initramfs.cpio" rdinit=/init
		   con=null "con0=fd:0,fd:1" "$@")

	if [ -n "${BOOT_TIMEOUT:-}" ]; then
		timeout --kill-after=10 "$BOOT_TIMEOUT" "${cmd[@]}"
	else
		"${cmd[@]}"
	fi
}

# The x86_64 SMP kernel (./run_tests.sh --smp [--kcsan]), built by
# kunit_tool for QEMU: its build dir (KCSAN=1: the KCSAN variant), the
# bzImage, kunit_tool's QEMU config, and the file-name prefix of its logs.
if [ "${KCSAN:-0}" = 1 ]; then
	SMP_BUILD=$WORK/build-smp-kcsan
	SMP_TAG=smp-kcsan
else
	SMP_BUILD=$WORK/build-smp
	SMP_TAG=smp
fi
BZIMAGE=$SMP_BUILD/arch/x86/boot/bzImage
QEMU_CONFIG=$REPO/configs/qemu_x86_64_smp.py

# The kunitconfig fragments of the SMP kernel, as kunit_tool arguments:
# base.config without its UML-only lines and debug.config (copies in the
# build dir), x86_64.config and, with KCSAN=1, x86_64-kcsan.config.
# kunit_tool refuses two values for one option, so KCSAN's copy of
# debug.config is the one without KASAN (KCSAN excludes it).
smp_kunitconfig_args() {
	local base=$SMP_BUILD/kevent-base.config debug=$SMP_BUILD/kevent-debug.config
	local drop='^$'

	mkdir -p "$SMP_BUILD"
	grep -Ev '^CONFIG_(HOSTFS|NULL_CHAN)=' "$REPO/configs/base.config" > "$base"
	[ "${KCSAN:-0}" = 1 ] && drop='^CONFIG_KASAN(_[A-Z_]*)?='
	grep -Ev "$drop" "$REPO/configs/debug.config" > "$debug"
	printf '%s\n' --kunitconfig "$base" --kunitconfig "$debug" \
		--kunitconfig "$REPO/configs/x86_64.config"
	[ "${KCSAN:-0}" = 1 ] && printf '%s\n' --kunitconfig "$REPO/configs/x86_64-kcsan.config"
	return 0
}

# The end of a user-space layer: parse its KTAP with kunit_tool ($RESULTS/
# NAME.json with JSON_OUT), then fail on the boot's PROBLEM (if any), a
# failed test, or a report in its console (CHECKER: check_log.sh or
# check_smp_log.sh).  Usage: finish_user_layer WHAT KTAP NAME PARSED
# CONSOLE PROBLEM CHECKER
finish_user_layer() {
	local what=$1 ktap=$2 name=$3 parsed=$4 console=$5 problem=$6 checker=$7
	local jsonarg=() rc

	[ -n "${JSON_OUT:-}" ] && jsonarg=(--json="$RESULTS/$name.json")
	python3 "$KUNIT_PY" parse "${jsonarg[@]}" "$ktap" | tee "$parsed"
	rc=${PIPESTATUS[0]}
	if [ -n "$problem" ]; then
		tail -n 30 "$console" >&2
		die "$what: $problem"
	fi
	[ "$rc" = 0 ] || die "$what tests failed (KTAP: $ktap)"
	"$checker" "$console" "$what"
}

# Apply a patch to the prepared tree (tree_patch FILE [-R] to take it out):
# the one way kernel/patches/ and kernel/guards/ are applied, with
# tree-root paths (a/kernel/kevent/kevent.c).
tree_patch() {	# file [-R]
	local r=--forward
	[ "${2:-}" = -R ] && r=-R
	patch -d "$TREE" -p1 -s "$r" --no-backup-if-mismatch < "$1"
}

# Put a guard of kernel/guards/ into the prepared tree (guard_apply FILE),
# and take it out again (guard_restore; also on exit once applied).
guard_current=
guard_apply() {
	tree_patch "$1" || return 1
	guard_current=$1
	trap guard_restore EXIT
}

guard_restore() {
	[ -n "$guard_current" ] &&
		tree_patch "$guard_current" -R
	guard_current=
}

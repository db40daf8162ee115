#!/bin/bash
# Prove that each guarded test guards its bug: for every patch in
# kernel/guards/ (a bug put back: the seed's thirteen, then the hardening
# defects), apply it to the prepared tree, rebuild incrementally, run the
# named test and expect it not to pass; then take the patch out.  The
# "Test:" line names a KUnit test as SUITE.TEST, or a user-space test as
# user:PROGRAM.TEST (one boot of the test initramfs running only that
# test; a boot that hangs or crashes counts as the test failing, which is
# what a wedged kernel looks like, and so does a kernel report in that
# boot's log, lockdep's for one).  A guard's "Target:" line names the
# kernel it is proven in (scripts/targets.py): "coverage", the default
# run's; "debug", where KASAN and lockdep see it; "smp", the x86_64 SMP
# kernel (./run_tests.sh --smp builds it), for races that need
# two CPUs.  A guard whose race the SMP concurrency suite catches without
# the forced interleaving of its Test: names that test on an "SMP:" line,
# proven in the SMP kernel too.  Prints a table
# guard -> test -> result, judged from kunit_tool's JSON; fails unless
# every named test failed.  Usage: prove_guards.sh [--smp] [GLOB]: GLOB
# selects guards by name ('09-*'); --smp proves only what runs in the SMP
# kernel (the "Target: smp" guards and the "SMP:" lines).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

smp_only=0
[ "${1:-}" = --smp ] && { smp_only=1; shift; }
log=$RESULTS/guards
mkdir -p "$log"
rows=()
bad=0

# Run the guarded test through its stage script; print its verdict: HUNG
# or REPORT from the layer's status file (lib.sh's layer_status), else
# kunit_tool's status of the test in the layer's JSON (PASS, FAIL...,
# MISSING when it never reported, NOTFOUND when it never reported and
# its program or suite ran no test at all: a Test: line that names nothing).
run_guarded() {	# name test
	local name=$1 test=$2 json=$log/$1.json layer suite t status
	rm -f "$json"
	case $test in
	user:*)
		layer=userland
		suite=${test#user:}
		t=${suite#*.}
		suite=${suite%%.*}
		USERLAND_TIMEOUT=${GUARD_BOOT_TIMEOUT:-240} \
		USERLAND_ARGS="INIT_ONLY=$suite INIT_TEST=$t" \
			"$REPO/scripts/run_userland.sh" >"$log/$name.run.log" 2>&1
		;;
	*)
		suite=${test%%.*}
		t=${test#*.}
		if [ "$TARGET_ARCH" = x86_64 ]; then
			layer=smp-kunit
			SMP_KUNIT_TIMEOUT=300 "$REPO/scripts/run_smp_kunit.sh" "$test" \
				>"$log/$name.run.log" 2>&1
		else
			layer=kunit
			KUNIT_TIMEOUT=300 "$REPO/scripts/run_kunit.sh" "$test" \
				>"$log/$name.run.log" 2>&1
		fi
		;;
	esac
	cp "$RESULTS/$layer.json" "$json" 2>/dev/null
	case $(layer_status $layer) in
	hung) echo HUNG ;;
	report) echo REPORT ;;
	*)
		status=$("$PYTHON" "$REPO/scripts/guard_status.py" "$json" "$suite" "$t")
		# No result, and kunit_tool saw the program or suite run no test.
		[ "$status" = MISSING ] && grep -q 'NO TESTS RUN' "$log/$name.run.log" &&
			status=NOTFOUND
		echo "$status" ;;
	esac
}

# Prove one guard with one test in one target: a row of the table.
# Its logs are $log/NAME.* ($log/NAME-smp.* for a proof in the SMP kernel).
prove() {	# guard-file name target test
	local g=$1 name=$2 result builder=$REPO/scripts/build_kernel.sh
	test=$4
	set_target "$3"
	if [ "$TARGET_ARCH" = x86_64 ]; then
		name=$name-smp
		builder=$REPO/scripts/build_smp.sh
		if ! command -v qemu-system-x86_64 >/dev/null; then
			rows+=("$name|$test|not run: qemu-system-x86_64 missing (apt-get install qemu-system-x86)")
			bad=1
			return
		fi
	fi
	say "guard $name: $test (target $TARGET)"
	if ! guard_apply "$g" >"$log/$name.patch.log" 2>&1; then
		rows+=("$name|$test|does not apply to the current sources")
		bad=1
		return
	fi
	if ! "$builder" >"$log/$name.build.log" 2>&1; then
		result="build failed (see $log/$name.build.log)"
		bad=1
	else
		status=$(run_guarded "$name" "$test")
		case $status in
		PASS) result="PASSED: the test does not guard this bug"; bad=1 ;;
		SKIP) result="skipped (see $log/$name.run.log)"; bad=1 ;;
		HUNG) result="failed as expected (the boot hung)" ;;
		REPORT) result="failed as expected (a kernel report in the log)" ;;
		MISSING) result="failed as expected (no result: crashed, see $log/$name.run.log)" ;;
		NOTFOUND) result="no such test: nothing ran (see the Test: line)"; bad=1 ;;
		*) result="failed as expected ($status)" ;;
		esac
	fi
	guard_restore
	rows+=("$name|$test|$result")
}

users=0
for g in "$REPO"/kernel/guards/${1:-*}.patch; do
	[ -e "$g" ] || die "no guard matches '${1:-*}' in kernel/guards/"
	name=$(basename "$g" .patch)
	test=$(sed -n 's/^Test: //p' "$g")
	smp_test=$(sed -n 's/^SMP: //p' "$g")
	[ -n "$test" ] || die "$name has no 'Test:' line"
	case $test in
	user:*.*) [ $users = 1 ] || [ $smp_only = 1 ] ||
		"$REPO/scripts/build_userland.sh" >"$log/userland.log" 2>&1 ||
			die "cannot build the test initramfs (see $log/userland.log)"
		users=1 ;;
	*.*) ;;
	*) die "$name: 'Test: $test' is neither SUITE.TEST nor user:PROGRAM.TEST" ;;
	esac
	case $smp_test in
	'' | *.*) ;;
	*) die "$name: 'SMP: $smp_test' is not SUITE.TEST" ;;
	esac
	target=$(sed -n 's/^Target: //p' "$g")
	case $target in
	coverage | debug) ;;
	smp) case $test in user:*) die "$name: a user-space test in target smp is not supported" ;; esac ;;
	*) die "$name: 'Target: $target' is not coverage, debug or smp" ;;
	esac
	if [ $smp_only = 0 ] || [ "$target" = smp ]; then
		prove "$g" "$name" "$target" "$test"
	fi
	[ -z "$smp_test" ] || prove "$g" "$name" smp "$smp_test"
done

# Leave the builds matching the sources again.
for target in coverage debug smp; do
	set_target "$target"
	if [ "$TARGET_ARCH" = x86_64 ]; then
		[ -f "$KERNEL" ] && "$REPO/scripts/build_smp.sh" >"$log/rebuild-$target.log" 2>&1
	else
		[ $smp_only = 0 ] && [ -x "$KERNEL" ] &&
			"$REPO/scripts/build_kernel.sh" >"$log/rebuild-$target.log" 2>&1
	fi
done

printf '\n%-40s %-64s %s\n' "guard" "test" "result"
for r in "${rows[@]}"; do
	IFS='|' read -r a b c <<<"$r"
	printf '%-40s %-64s %s\n' "$a" "$b" "$c"
done
[ ${#rows[@]} -gt 0 ] || die "no guard matches '${1:-*}' with an SMP proof"
[ $bad = 0 ] || die "some guards are not proven (above)"
say "all ${#rows[@]} guards proven"

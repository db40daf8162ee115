#!/bin/bash
# Prove that each seed-bug test guards its bug: for every patch in
# kernel/guards/ (the seed's behaviour put back), apply it to the prepared
# tree, rebuild incrementally, run the named KUnit test and expect it to
# fail; then take the patch out.  Guards marked "Config: debug" (use after
# free, lock order) run in the debug build, where KASAN and lockdep see
# them.  Prints a table bug -> test -> result; fails unless every named
# test failed.  $1: an optional glob of guard names (e.g. '09-*').
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

log=$RESULTS/guards
mkdir -p "$log"
rows=()
bad=0
current=

restore() {
	[ -n "$current" ] && patch -d "$TREE/kernel" -p1 -R -s --no-backup-if-mismatch < "$current"
	current=
}
trap restore EXIT

build_for() {	# config -> sets BUILD, DEBUG_CONFIG, COVERAGE for the stage scripts
	if [ "$1" = debug ]; then
		export KEVENT_BUILD=$WORK/build-debug DEBUG_CONFIG=1 COVERAGE=0
	else
		export KEVENT_BUILD=$WORK/build DEBUG_CONFIG=0 COVERAGE=1
	fi
}

for g in "$REPO"/kernel/guards/${1:-*}.patch; do
	[ -e "$g" ] || die "no guard matches '${1:-*}' in kernel/guards/"
	name=$(basename "$g" .patch)
	test=$(sed -n 's/^Test: //p' "$g")
	config=$(sed -n 's/^Config: //p' "$g")
	[ -n "$test" ] || die "$name has no 'Test:' line"
	build_for "$config"
	say "guard $name: $test ($config build)"
	if ! patch -d "$TREE/kernel" -p1 -s --forward --no-backup-if-mismatch < "$g" >"$log/$name.patch.log" 2>&1; then
		rows+=("$name|$test|does not apply to the current sources")
		bad=1
		continue
	fi
	current=$g
	if ! "$REPO/scripts/build_kernel.sh" >"$log/$name.build.log" 2>&1; then
		result="build failed (see $log/$name.build.log)"
		bad=1
	else
		python3 "$KUNIT_PY" exec --arch um --build_dir "$KEVENT_BUILD" --timeout 300 \
			"kevent_seed_bugs.$test" >"$log/$name.run.log" 2>&1
		if grep -Eq "\[(FAILED|CRASHED)\] $test" "$log/$name.run.log"; then
			result="failed as expected"
		elif grep -q "\[PASSED\] $test" "$log/$name.run.log"; then
			result="PASSED: the test does not guard this bug"
			bad=1
		else
			result="no result (see $log/$name.run.log)"
			bad=1
		fi
	fi
	restore
	rows+=("$name|$test|$result")
done

# Leave the builds matching the sources again.
for config in normal debug; do
	build_for "$config"
	[ -x "$KEVENT_BUILD/linux" ] && "$REPO/scripts/build_kernel.sh" >"$log/rebuild-$config.log" 2>&1
done

printf '\n%-36s %-44s %s\n' "seed bug (guard)" "test" "result"
for r in "${rows[@]}"; do
	IFS='|' read -r a b c <<<"$r"
	printf '%-36s %-44s %s\n' "$a" "$b" "$c"
done
[ $bad = 0 ] || die "some guards are not proven (above)"
say "all ${#rows[@]} guards proven"

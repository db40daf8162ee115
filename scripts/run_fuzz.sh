#!/bin/bash
# The fuzzing layer: kevent-fuzz in the debug UML, one boot per seed.
# Usage: run_fuzz.sh SEED...   (a seed "time" is replaced by the clock)
# FUZZ_OPS (operations per seed, default 100000) and FUZZ_TIME (seconds
# per seed, default 60) bound each run.  Each seed is one test of the
# layer: its KTAP goes to $RESULTS/fuzz.ktap and, through kunit_tool, to
# fuzz.json; the consoles to $RESULTS/fuzz/.  A finding prints its seed and
# the command that replays it, then scripts/fuzz_reduce.sh shrinks it
# (FUZZ_REDUCE=0 skips that).  Then the coverage of a fuzz run (below).
# Fails when any seed found something.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- 1
ops=${FUZZ_OPS:-100000}
dir=$RESULTS/fuzz
mkdir -p "$dir"
ktap=$RESULTS/fuzz.ktap
printf 'KTAP version 1\n1..%d\n' $# > "$ktap"
failed=0 i=0
for seed in "$@"; do
	i=$((i + 1))
	[ "$seed" = time ] && seed=$(date +%s)
	case $seed in ''|*[!0-9]*|0) die "a fuzzing seed is a positive number, not '$seed'" ;; esac
	say "fuzz: seed $seed, $ops operations, at most ${FUZZ_TIME:-60} s (debug UML)"
	log=$dir/seed-$seed.log
	verdict=$("$REPO/scripts/fuzz_once.sh" "$log" --seed "$seed" --ops "$ops")
	grep -E 'kevent-fuzz: [0-9]+ operations in' "$log" | sed 's/^/  /'
	if [ "$verdict" = ok ]; then
		say "  ok (console: $log)"
		printf 'ok %d seed_%s\n' "$i" "$seed" >> "$ktap"
		continue
	fi
	failed=1
	say "  $verdict"
	sed -n '/kevent-fuzz: FINDING/,/kevent-fuzz: result/p' "$log" | head -n 120 | sed 's/^/  | /'
	say "  replay: ./run_tests.sh --fuzz $seed --fuzz-ops $ops   (console: $log)"
	printf 'not ok %d seed_%s # %s\n' "$i" "$seed" "$verdict" >> "$ktap"
	[ "${FUZZ_REDUCE:-1}" = 1 ] && "$REPO/scripts/fuzz_reduce.sh" "$seed" "$ops"
done

"$PYTHON" "$KUNIT_PY" parse --json="$RESULTS/fuzz.json" "$ktap" > "$RESULTS/fuzz-parsed.txt" 2>&1

# Which kevent lines and branches fuzzing reaches: the first seed again, in
# the coverage build when there is one (the default run makes it), for
# FUZZ_COVERAGE_TIME seconds (default 30; 0 skips), as the layer "fuzz".
rm -f "$RESULTS/coverage-fuzz.info"
cov_time=${FUZZ_COVERAGE_TIME:-30}
if [ "$cov_time" != 0 ] && (set_target coverage; [ -x "$KERNEL" ]); then
	seed=$1
	[ "$seed" = time ] && seed=$(date +%s)
	say "fuzz: coverage of seed $seed for $cov_time s (the coverage build)"
	(
		set_target coverage
		"$REPO/scripts/build_kernel.sh" >"$dir/coverage-build.log" 2>&1 ||
			die "the coverage build failed (see $dir/coverage-build.log)"
		gcov_boot fuzz
		set +e
		BOOT_TIMEOUT=$((cov_time + 120)) boot_initramfs mem=512M kunit.enable=0 \
			INIT_TIMEOUT=$((cov_time + 60)) \
			INIT_FUZZ="\"--time $cov_time --seed $seed --ops $ops\"" \
			</dev/null >"$dir/coverage-run.log" 2>&1
		set -e
		"$REPO/coverage/capture.sh" fuzz
	) || say "fuzz: no coverage for this run (see $dir/coverage-run.log)"
fi
[ $failed = 0 ] || die "fuzzing found something (above)"
say "fuzz: $# seeds, no finding"

#!/bin/bash
# Tests of the harness's own logic, on recorded inputs in scripts/test_data/:
# the kernel-log scan, the merging of both layers' results into one
# summary and totals line, and the coverage union across lcov sections.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

data=$REPO/scripts/test_data
fails=0
check() {	# description, expected exit status, command...
	local what=$1 want=$2 got
	shift 2
	"$@" >/dev/null 2>&1
	got=$?
	if { [ "$want" = 0 ] && [ "$got" = 0 ]; } || { [ "$want" != 0 ] && [ "$got" != 0 ]; }; then
		return 0
	fi
	printf 'selftest: %s: exit %s, wanted %s\n' "$what" "$got" "$want" >&2
	fails=$((fails + 1))
}
output_has() {	# description, expected text, command...
	local what=$1 want=$2
	shift 2
	if ! "$@" 2>/dev/null | grep -qxF -- "$want"; then
		printf 'selftest: %s: no line "%s"\n' "$what" "$want" >&2
		fails=$((fails + 1))
	fi
}

check "clean log passes" 0 "$REPO/scripts/check_log.sh" "$data/clean.log"
for log in warning kasan lockdep kmemleak ubsan; do
	check "$log report is caught" 1 "$REPO/scripts/check_log.sh" "$data/$log.log"
done

summary() { python3 "$REPO/scripts/summary.py" --results "$data/$1" "${@:2}"; }
check "all passing layers exit 0" 0 summary pass
output_has "totals count both layers" "4 passed, 0 failed, 2 skipped" summary pass
check "a failing test exits 1" 1 summary fail
output_has "a failing test is counted" "3 passed, 1 failed, 1 skipped" summary fail
check "a missing layer exits 1" 1 summary missing
output_has "a missing layer counts as a failure" "2 passed, 1 failed, 1 skipped" summary missing
output_has "a failed stage counts" "4 passed, 1 failed, 2 skipped" summary pass --failed-stages lint
output_has "a failed layer stage with passing results counts" "4 passed, 1 failed, 2 skipped" \
	summary pass --failed-stages userland
output_has "a failed layer stage is not counted twice" "3 passed, 1 failed, 1 skipped" \
	summary fail --failed-stages userland
output_has "a missing layer is not counted twice" "2 passed, 1 failed, 1 skipped" \
	summary missing --failed-stages userland
# Union of two test sections: lines 10 and 20 hit, 11 not: 66.7%;
# functions 2/2; branches 2/2.
if ! summary pass --tree / 2>/dev/null | grep -Eq '^  t/kernel/kevent/kevent.c +(- +){6}66\.7% 100\.0% 100\.0% *$'; then
	printf 'selftest: coverage is not the union of the lcov sections\n' >&2
	fails=$((fails + 1))
fi

# Function f: lines 10 (hit) and 11 (not); g: line 20 (hit).
if ! summary pass --tree / 2>/dev/null | grep -Eq '^    f +t/kernel/kevent/kevent.c:10 +1/2 +KUnit -, user -$'; then
	printf 'selftest: the least-covered function is not named\n' >&2
	fails=$((fails + 1))
fi

check "a met coverage floor passes" 0 summary pass --tree / --floors "$data/floors.conf"
check "a missed coverage floor fails" 1 summary pass --tree / --floors "$data/floors-high.conf"

# The benchmark report: medians, min and max, and the kevent/epoll ratio.
bench=$(mktemp -d)
cp "$data/bench/raw.csv" "$bench/"
output_has "bench medians with min and max" \
	"| kevent_get_events | 10 | 500 [500, 500] | 300.0 [200.0, 400.0] | 3333 |" \
	python3 "$REPO/scripts/bench_report.py" "$bench"
output_has "bench ratio kevent/epoll" \
	"| oneactive | 10 | kevent_get_events | 3333 | 1667 | 2.00 |" \
	python3 "$REPO/scripts/bench_report.py" "$bench"
rm -rf "$bench"

[ $fails = 0 ] || die "$fails harness self-test(s) failed"
say "selftest: harness logic ok"

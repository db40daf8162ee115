#!/bin/bash
# Tests of the harness's own logic, on recorded inputs in scripts/test_data/:
# the kernel-log scan and the benchmark report here, and the Python unit
# tests of scripts/test_harness.py (results, totals, coverage, guards).
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
	[ "$got" = "$want" ] && return 0
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
check "a missing log is an error, not a report" 1 "$REPO/scripts/check_log.sh" "$data/no-such.log"
for log in warning kasan lockdep kmemleak ubsan; do
	check "$log report is caught" 2 "$REPO/scripts/check_log.sh" "$data/$log.log"
done

# The SMP kernel's log scan (check_smp_log.sh), on QEMU consoles (CR LF
# line ends): a KCSAN race in core kernel code is listed, not counted; one
# in kevent code fails the run; so does a kernel whose clocksource is
# jiffies.  It writes beside the log: a copy.
smp=$(mktemp -d)
cp "$data"/smp/*.log "$smp/"
check "a core kernel KCSAN race is only listed" 0 "$REPO/scripts/check_smp_log.sh" "$smp/kcsan-core-crlf.log"
check "a KCSAN race in kevent code is caught" 2 "$REPO/scripts/check_smp_log.sh" "$smp/kcsan-kevent-crlf.log"
check "a kernel keeping time with jiffies is refused" 1 "$REPO/scripts/check_smp_log.sh" "$smp/jiffies-clock-crlf.log"
rm -rf "$smp"

# init's parameters are INIT_*: an old KEVENT_ONLY= in USERLAND_ARGS, which
# init would not read (every program would run), is refused by lib.sh.
check "an old init parameter name is refused" 1 \
	env USERLAND_ARGS="KEVENT_ONLY=kevent_dev_test" bash -c ". '$REPO/scripts/lib.sh'"
check "an old init parameter name after a tab is refused" 1 \
	env USERLAND_ARGS=$'mem=256M\tKEVENT_TEST=x' bash -c ". '$REPO/scripts/lib.sh'"
check "init's own parameter names pass" 0 \
	env USERLAND_ARGS="INIT_ONLY=kevent_dev_test INIT_TEST=x" bash -c ". '$REPO/scripts/lib.sh'"

# The kernel under test is a target of scripts/targets.py: lib.sh loads
# it, refuses an unknown one, and names what the old knobs became.
output_has "KEVENT_TARGET=smp-kcsan loads its build dir" "$WORK/build-smp-kcsan" \
	env KEVENT_TARGET=smp-kcsan bash -c ". '$REPO/scripts/lib.sh'; echo \"\$BUILD\""
check "an unknown target is refused" 1 \
	env KEVENT_TARGET=nocov bash -c ". '$REPO/scripts/lib.sh'"
check "the old KEVENT_FLAVOUR is refused" 1 \
	env KEVENT_FLAVOUR=debug bash -c ". '$REPO/scripts/lib.sh'"
check "the old KCSAN=1 is refused" 1 env KCSAN=1 bash -c ". '$REPO/scripts/lib.sh'"
# A machine without python3 (before setup.sh installs it) sources lib.sh.
check "lib.sh loads without python3" 0 \
	env KEVENT_PYTHON=/nonexistent/python3 bash -c ". '$REPO/scripts/lib.sh'"

# The results model, the coverage module, the summary's totals and exit
# status, the guard judge: Python unit tests.
if ! out=$("$PYTHON" "$REPO/scripts/test_harness.py" 2>&1); then
	printf '%s\n' "$out" >&2
	fails=$((fails + 1))
fi

# The benchmark report: medians, min and max, and the kevent/epoll ratio.
bench=$(mktemp -d)
cp "$data/bench/raw.csv" "$bench/"
output_has "bench medians with min and max" \
	"| kevent_get_events | 10 | 500 [500, 500] | 300.0 [200.0, 400.0] | 3333 |" \
	"$PYTHON" "$REPO/scripts/bench_report.py" "$bench"
output_has "bench ratio kevent/epoll" \
	"| oneactive | 10 | kevent_get_events | 3333 | 1667 | 2.00 |" \
	"$PYTHON" "$REPO/scripts/bench_report.py" "$bench"
rm -rf "$bench"

[ $fails = 0 ] || die "$fails harness self-test(s) failed"
say "selftest: harness logic ok"

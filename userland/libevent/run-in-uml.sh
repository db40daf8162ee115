#!/bin/sh
# Runs in the booted UML (busybox sh), from the libevent initramfs
# (scripts/libevent.py initramfs puts it at /libevent/run-in-uml.sh and
# libevent's static programs in /libevent/bin).  As libevent's
# test/test.sh does per backend, for the kevent backend and for epoll
# (the reference): test-init, test-eof, test-closed, test-weof,
# test-time, test-changelist, test-fdleak, test-dumpevents, regress and
# regress with EVENT_DEBUG_MODE=1.  Each program's stdout, stderr and
# exit status go to OUT/BACKEND/NAME.{log,err,rc}; the host turns them
# into KTAP (scripts/libevent_results.py).
#
#   run-in-uml.sh tests OUT [BACKENDS]     (default: "kevent epoll")
#   run-in-uml.sh bench OUT REPS [BACKENDS]  test/bench and bench_cascade
BIN=/libevent/bin
# regress's tests that libevent turns off by default and that pass on
# epoll here, run too: tinytest's '..' runs the default set, '+NAME' adds
# one.  The http/cancel_* ones wait 6-12 s each for a server's timeout.
# Left off: those that resolve real host names (dns/gethostby*,
# dns/resolve_reverse, util/getaddrinfo_live) or fail on epoll here
# (http/connection_retry*); and those that judge speed or timing against
# the wall clock, which a loaded host fails on any backend
# (util/monotonic_res_* and thread/deferred_cb_skew failed on epoll in
# the UML; dns/getaddrinfo_race_gotresolve answers 16384 requests within
# 5 s with busy threads on the one CPU: alone, it failed 1 of 4 times on
# kevent and 2 of 4 on epoll).
REGRESS_ALSO="+util/getaddrinfo_AI_ADDRCONFIG
	+http/cancel_by_host_no_ns_server_timeout
	+http/cancel_by_host_ns_timeout_server_timeout
	+http/cancel_by_host_server_timeout +http/cancel_server_timeout"
TIMEOUT=${LIBEVENT_TEST_TIMEOUT:-900}
mode=$1
out=$2
export PATH="$BIN:$PATH"
cd /tmp || exit 1

# Select one backend the way test.sh does: EVENT_NO<every other>.
use_backend() {
	for b in KEVENT EPOLL POLL SELECT; do
		eval "EVENT_NO$b=yes; export EVENT_NO$b"
	done
	unset EVENT_EPOLL_USE_CHANGELIST EVENT_PRECISE_TIMER EVENT_DEBUG_MODE
	case $1 in
	kevent) unset EVENT_NOKEVENT ;;
	epoll) unset EVENT_NOEPOLL ;;
	esac
}

run() {	# dir name command...
	d=$1 n=$2
	shift 2
	start=$(date +%s)
	timeout "$TIMEOUT" "$@" >"$d/$n.log" 2>"$d/$n.err"
	echo $? >"$d/$n.rc"
	echo "$(( $(date +%s) - start ))" >"$d/$n.secs"
}

# A regress test that failed runs again, alone, on the same backend, up
# to three times until it passes (as libevent's tinytest retries its
# TT_RETRIABLE tests three times), into NAME-retry.log.  Some of
# libevent's tests end their loop on a short wall-clock timer:
# http/bad_request gives its HTTP exchange 10 ms, and in an idle UML it
# failed 6 of 40 runs on kevent and 8 of 40 on epoll, so one retry
# left a 2% chance of a red run.  A test fails when all four runs fail.
# At most 10 tests are retried per run, and a run that hangs (killed
# after 300 s) is not run again: neither is flakiness.
retry_failed() {	# dir name
	failed=$(awk '/^[A-Za-z0-9_]+\/[^ ]+: / { t = $1; sub(/:$/, "", t) }
		      /^  \[.* FAILED\]/ { print t }' "$1/$2.log" | head -n 10)
	: >"$1/$2-retry.log"
	for t in $failed; do
		n=0
		while [ "$n" -lt 3 ]; do
			timeout 300 regress "$t" >>"$1/$2-retry.log" 2>&1
			rc=$?
			{ [ "$rc" = 0 ] || [ "$rc" = 124 ]; } && break
			n=$((n + 1))
		done
	done
}

# libevent turns its monotonic timeouts into wall-clock times only once
# the monotonic clock reads at least 6 whole seconds (CLOCK_SYNC_INTERVAL
# 5, gettime() in event.c): in a machine up for less, test-dumpevents
# prints them raw and check-dumpevents.py fails it on every backend.
# Wait until the machine has been up 7 s: libevent reads the coarse
# monotonic clock, which may trail /proc/uptime by a tick.
uptime_past_clock_sync() {
	while read -r uptime _ </proc/uptime && [ "${uptime%.*}" -lt 7 ]; do
		sleep 1
	done
}

if [ "$mode" = tests ]; then
	for backend in ${3:-kevent epoll}; do
		d=$out/$backend
		rm -rf "$d"
		mkdir -p "$d"
		use_backend "$backend"
		echo "libevent: $backend"
		# The backend in use, as libevent reports it.
		EVENT_SHOW_METHOD=1 test-init >/dev/null 2>"$d/method.txt"
		echo $? >"$d/method.rc"
		for t in test-init test-eof test-closed test-weof test-time \
			 test-changelist test-fdleak test-dumpevents; do
			[ "$t" != test-dumpevents ] || uptime_past_clock_sync
			run "$d" "$t" "$t"
		done
		regress --list-tests >"$d/regress-list.txt" 2>&1
		# shellcheck disable=SC2086  # the test names are words
		run "$d" regress regress .. $REGRESS_ALSO
		retry_failed "$d" regress
		# shellcheck disable=SC2086
		EVENT_DEBUG_MODE=1 run "$d" regress_debug regress .. $REGRESS_ALSO
		EVENT_DEBUG_MODE=1 retry_failed "$d" regress_debug
		unset EVENT_DEBUG_MODE
		echo "libevent: $backend done"
	done
	exit 0
fi

if [ "$mode" = bench ]; then
	reps=${3:-5}
	shapes=${LIBEVENT_BENCH_SHAPES:-"-n 100 -a 1 -w 100,-n 1000 -a 1 -w 100,-n 1000 -a 100 -w 100"}
	# The shapes of the 2006 kevent/epoll comparison: N pipes, A of them
	# active, W writes per round; and bench_cascade's chains.
	csv=$out/bench-raw.csv
	echo "backend,program,args,rep,value" >"$csv"
	rep=1
	while [ "$rep" -le "$reps" ]; do
		for backend in ${4:-kevent epoll}; do
			use_backend "$backend"
			IFS=,
			set -f
			for args in $shapes; do
				IFS=' '
				# bench prints one line per run: usec of the last
				# of 25 rounds; keep the median line's value.
				# shellcheck disable=SC2086  # args are words
				v=$(bench $args 2>/dev/null | sort -n | sed -n '13p')
				echo "$backend,bench,$args,$rep,$v" >>"$csv"
			done
			IFS=' '
			set +f
			for n in ${LIBEVENT_CASCADE_SIZES:-100 1000}; do
				v=$(bench_cascade -n "$n" 2>/dev/null | sort -n | sed -n '13p')
				echo "$backend,bench_cascade,-n $n,$rep,$v" >>"$csv"
			done
		done
		rep=$((rep + 1))
	done
	exit 0
fi
echo "usage: run-in-uml.sh tests|bench OUT ..." >&2
exit 2

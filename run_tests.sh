#!/bin/bash
# kevent test harness: builds a UML 6.12 kernel with kevent through
# kunit_tool, runs the KUnit suites and the user-space suites, and writes a
# coverage report.  ./run_tests.sh --help lists the options
# (scripts/usage.txt).
#
# The run itself is scripts/harness.py, which starts each stage (a
# program of scripts/ or coverage/).  This script only makes sure the
# python3 it needs is there: on a machine without it (a minimal Debian),
# scripts/setup.sh installs it first, with the rest of the tools.
set -u
unset KEVENT_TARGET	# the run's options choose it
. "$(dirname "$0")/scripts/lib.sh"

if [ -n "${KEVENT_PYTHON:-}" ] && ! command -v "$KEVENT_PYTHON" >/dev/null 2>&1; then
	die "KEVENT_PYTHON=$KEVENT_PYTHON is not a program: unset it to use Debian's python3"
fi
if ! command -v "$PYTHON" >/dev/null 2>&1; then
	case " $* " in
	*" -h "* | *" --help "*) cat "$REPO/scripts/usage.txt"; exit 0 ;;
	esac
	stage setup
	"$REPO/scripts/setup.sh" || { printf '\n0 passed, 1 failed\n'; exit 1; }
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi
exec "$PYTHON" "$REPO/scripts/harness.py" "$@"

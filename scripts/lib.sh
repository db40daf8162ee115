#!/bin/bash
# Shared paths and helpers of the bash left in the harness: run_tests.sh,
# setup.sh and fetch_libevent.sh, which run before python3 is there or do
# apt's work.  Sourced, not run.  The environment knobs of the harness are
# listed in kernel/Documentation/dev-tools/kevent-harness.rst
# ("Environment").
# shellcheck disable=SC2034  # the paths are used by the scripts that source this

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${KEVENT_WORK:-$REPO/.work}	# everything generated, ignored by git
LIBEVENT_WORK=$WORK/libevent		# libevent's source, build and results (--libevent)
# The python3 the harness runs (PYTHON): KEVENT_PYTHON, else Debian's,
# which setup.sh installs (the harness needs only its standard library),
# rather than the first in PATH: a version manager's shim there (pyenv's)
# took 0.3 s to start a program that Debian's starts in 0.04 s.  A PYTHON
# of the environment (often another interpreter, for other tools) is not
# used.
PYTHON=${KEVENT_PYTHON:-}
if [ -z "$PYTHON" ]; then
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi

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

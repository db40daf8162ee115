#!/bin/bash
# Shared paths and helpers for the harness scripts.  Sourced, not run.
# shellcheck disable=SC2034  # the paths are used by the scripts that source this

#
# The environment knobs of the harness, all of them (run_tests.sh sets
# the first ones from its options; the others are for a person or a
# script that runs one stage by hand):
#   KEVENT_WORK=DIR       where everything generated goes (default .work)
#   KEVENT_TARGET=T       the kernel under test: coverage (default),
#                         plain, debug, smp or smp-kcsan (scripts/targets.py)
#   JOBS=N                parallel make jobs (default: the CPUs)
#   KERNEL_SRC=PATH       a 6.12.x tree or tarball instead of Debian's
#   SETUP_SMP=1, SETUP_BENCH=1   setup.sh installs QEMU, gnuplot too
#   KUNIT_TIMEOUT, USERLAND_TIMEOUT, SMP_KUNIT_TIMEOUT,
#   SMP_USERLAND_TIMEOUT, BENCH_TIMEOUT, GUARD_BOOT_TIMEOUT=SECONDS
#                         how long a stage's boot may take before it is
#                         killed (and reported as hung)
#   LIBEVENT_SRC=DIR      an unpacked libevent 2.1.12 tree instead of
#                         apt-get source (fetch_libevent.sh)
#   LIBEVENT_TIMEOUT=SECONDS  a libevent boot (default 1200)
#   USERLAND_ARGS=...     more kernel/init arguments for the user-space
#                         boot (INIT_ONLY=PROGRAM, INIT_TEST=NAME)
#   USERLAND_PARTS=N      the user-space boots side by side (default 2,
#                         1 on one CPU)
#   SMP_TOLERANCE_SCALE=N timing bounds of the user tests on QEMU, x N
#   BENCH_RUNS=N          boots of the in-kernel benchmark (default 9,
#                         the gate needs 5), folded into medians
#   KEVENT_QEMU_CPUS=N    the vCPUs of the SMP kernel (default 4)
#   FUZZ_OPS, FUZZ_TIME, FUZZ_REDUCE, FUZZ_REDUCE_BOOTS,
#   FUZZ_COVERAGE_TIME    the fuzzer's budget (scripts/fuzz.py)
#   KEVENT_WHOLE_MAKE=1   build.py kernel makes the whole tree even when
#                         only kevent's C files changed
#   KBUILD_TRY_RUN_CACHE  1 (set here): every make of a build dir keeps
#                         kbuild's compiler probes for the next one
#                         (kernel/patches/0013); 0 asks the compiler again
#   KEVENT_PYTHON=PATH    the python3 that runs kunit_tool and the
#                         harness's scripts (below)

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${KEVENT_WORK:-$REPO/.work}	# everything generated, ignored by git
TREE=$WORK/linux			# the prepared kernel tree
LIBEVENT_WORK=$WORK/libevent		# libevent's source, build and results (--libevent)
JOBS=${JOBS:-$(nproc)}
# kbuild asks the compiler the same 27 questions at every make (1.9 s of
# a 7.3 s relink): kernel/patches/0013 keeps the answers in the build dir.
export KBUILD_TRY_RUN_CACHE=${KBUILD_TRY_RUN_CACHE:-1}
# The python3 the harness runs (PYTHON): KEVENT_PYTHON, else Debian's,
# which setup.sh installs (the harness needs only its standard library),
# rather than the first in PATH: a version manager's shim there (pyenv's)
# took 0.3 s to start a program that Debian's starts in 0.04 s, and a run
# starts about ten.  A PYTHON of the environment (often another
# interpreter, for other tools) is not used.
PYTHON=${KEVENT_PYTHON:-}
if [ -z "$PYTHON" ]; then
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The kernel under test, a target of scripts/targets.py (the one place
# that says what each is): set_target T sets, and exports KEVENT_TARGET for
# the stage scripts, TARGET, TARGET_ARCH (um or x86_64), BUILD (kunit_tool's
# build dir), KERNEL (the UML binary or the bzImage), QEMU_CONFIG
# (kunit_tool's, for x86_64), COVERAGE and DEBUG_KERNEL (1 or 0: whether
# its boots write gcov data, whether it is a debug kernel), KUNITCONFIGS
# (its config fragments) and TARGET_KUNIT_ARGS (more kernel arguments of
# its KUnit boot).
set_target() {	# coverage|plain|debug|smp|smp-kcsan
	local sh

	sh=$("$PYTHON" "$REPO/scripts/targets.py" shell "$1") || exit 1
	eval "$sh"
	KEVENT_TARGET=$1
	export KEVENT_TARGET
}
# The spellings before targets: say what they became.
[ -z "${KEVENT_FLAVOUR:-}" ] ||
	die "KEVENT_FLAVOUR is now KEVENT_TARGET (coverage, plain for nocov, debug, smp, smp-kcsan)"
[ "${KCSAN:-0}" = 0 ] || die "KCSAN=1 is now KEVENT_TARGET=smp-kcsan"
# Loaded once python3 is there: setup.sh, which installs it on a machine
# without it, needs no target (run_tests.sh sets one after the setup).
if command -v "$PYTHON" >/dev/null 2>&1; then
	set_target "${KEVENT_TARGET:-coverage}"
fi

# init's parameters are INIT_* (userland/init.c); KEVENT_* are the host's
# knobs above.  An old spelling in USERLAND_ARGS would reach init unread
# and run every program: say so instead.
case " ${USERLAND_ARGS:-} " in
*[[:space:]]KEVENT_[A-Z]*=*)
	die "USERLAND_ARGS='$USERLAND_ARGS': init's parameters are INIT_* (INIT_ONLY=PROGRAM INIT_TEST=NAME, userland/init.c), not KEVENT_*" ;;
esac

say() {
	printf '%s\n' "$*"
}

stage() {
	printf '\n==> %s\n' "$*"
}

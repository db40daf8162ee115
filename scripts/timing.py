#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a user's wait goes (./run_tests.sh time), measured in one run on
this machine, each figure beside kunit_tool's own default UML build (the
anchor):

  cold    ./run_tests.sh in a fresh work directory: tree copy, build,
          lint, both layers, coverage (the packages are installed)
  anchor  `kunit.py build --arch um` with no configuration of ours, cold
          (its own build dir), in the prepared tree, without the try-run
          cache of kernel/patches/0013: kbuild as it comes
  again   ./run_tests.sh once more with no edit (what a re-run costs)
  edit    a one-line edit of kernel/kevent/kevent.c, then ./run_tests.sh
          again in that directory (a warm run: the verdict of an edit)
  debug   ./run_tests.sh --debug in that directory, its build cold

It prints a Markdown table of seconds, the ratio to the anchor and the
stage times each run printed, and writes it to DIR/timing.md, the one
file of the harness's timings.  About 25 minutes on 2 cores.  The edit
is made in this checkout and taken out again, also when interrupted.

With --warm N: only the warm rows, N times each (default 5), in the work
directory of the last run (which must hold its builds): a run with
nothing changed and a run after a one-line edit (each a new line, so each
run compiles), as median [min, max].

Usage: timing.py [DIR]        DIR: the work directory, removed first
                              (default .work/timing)
       timing.py --warm [N]
"""
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import stages

RUN_TESTS = os.path.join(stages.REPO, 'run_tests.sh')
EDITED = os.path.join(stages.REPO, 'kernel', 'kevent', 'kevent.c')


class Timing:
    """The rows of one measurement, written to @out/timing.md."""

    def __init__(self, out):
        self.out = out
        self.rows = []          # (name, what, seconds, stage times)

    def measure(self, name, what, cmd, env=None):
        """Run @cmd; its wall time, its log, the stage times it printed."""
        print(f'timing: {name}: {what}', flush=True)
        log = os.path.join(self.out, name + '.log')
        start = time.monotonic()
        with open(log, 'w') as f:
            rc = stages.run_child(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                  stderr=subprocess.STDOUT,
                                  env=dict(os.environ, **(env or {})))
        secs = round(time.monotonic() - start)
        with open(log, errors='replace') as f:
            found = re.findall(r'^  stage times: (.*)$', f.read(), re.M)
        times = found[-1] if found else ''
        if rc:
            times = f'FAILED (exit {rc}, see {log}) {times}'
        print(f'  {secs} s' + (f'; {times}' if times else ''), flush=True)
        self.rows.append((name, what, secs, times))
        return secs


def header(what):
    """The first line of timing.md."""
    commit = subprocess.run(['git', '-C', stages.REPO, 'rev-parse', '--short', 'HEAD'],
                            stdout=subprocess.PIPE, text=True, check=False).stdout.strip()
    return (f'Measured by scripts/timing.py{what} on '
            f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d}, '
            f'{len(os.sched_getaffinity(0))} CPUs, commit {commit}.\n\n')


def cold_table(rows):
    """The table of a whole measurement (rows of Timing)."""
    anchor = next(secs for name, _, secs, _ in rows if name == 'anchor')
    out = '| run | what | seconds | / anchor | stage times |\n|---|---|---:|---:|---|\n'
    for name, what, secs, times in rows:
        out += f'| {name} | {what} | {secs} | {secs / max(anchor, 1):.2f} | {times} |\n'
    return out


def warm_table(n, again, edit):
    """The table of --warm @n: the seconds of each kind of run."""
    out = (f'| run | seconds, median [min, max] of {n} | runs |\n'
           '|---|---:|---|\n')
    for name, secs in (('again', again), ('edit', edit)):
        low = statistics.median_low(secs)
        out += f"| {name} | {low} [{min(secs)}, {max(secs)}] | {' '.join(map(str, secs))} |\n"
    return out


def write(out, text):
    """Print @text and write it to @out/timing.md."""
    sys.stdout.write(text)
    with open(os.path.join(out, 'timing.md'), 'w') as f:
        f.write(text)


def measure_all(out):
    """The whole measurement in the work dir @out."""
    t = Timing(out)
    env = {'KEVENT_WORK': out}
    t.measure('cold', './run_tests.sh, fresh work directory', [RUN_TESTS], env)
    anchor = os.path.join(out, 'anchor')
    os.makedirs(anchor)
    t.measure('anchor', "kunit.py build --arch um (kunit_tool's defaults)",
              [sys.executable, os.path.join(out, 'linux/tools/testing/kunit/kunit.py'),
               'build', '--arch', 'um', '--build_dir', anchor, '--jobs',
               stages.JOBS],
              {'KBUILD_TRY_RUN_CACHE': '0'})
    t.measure('again', './run_tests.sh, nothing changed since', [RUN_TESTS], env)
    with open(EDITED, 'a') as f:
        f.write('/* timing.py: a one-line edit */\n')
    t.measure('edit', 'one-line edit of kevent.c, ./run_tests.sh', [RUN_TESTS], env)
    restore()
    t.measure('debug', './run_tests.sh --debug, its build cold', [RUN_TESTS, '--debug'], env)
    write(out, header('') + cold_table(t.rows))


def measure_warm(out, n):
    """--warm @n in the work dir of the last run."""
    if not os.access(stages.kernel('coverage'), os.X_OK):
        raise stages.StageError(f'no build in {stages.WORK}: run ./run_tests.sh once first')
    t = Timing(out)
    again, edit = [], []
    for i in range(1, n + 1):
        again.append(t.measure(f'again-{i}', 'nothing changed', [RUN_TESTS]))
        with open(EDITED, 'a') as f:
            f.write(f'/* timing.py: edit {i} */\n')
        edit.append(t.measure(f'edit-{i}', 'one-line edit of kevent.c', [RUN_TESTS]))
    text = header(f' --warm {n}') + warm_table(n, again, edit)
    text += f'\nStage times of each run: {out}/*.log ("stage times").\n'
    text += ''.join(f'FAILED: {name}\n' for name, _, _, times in t.rows
                    if times.startswith('FAILED'))
    write(out, text)


SAVED = None


def restore():
    """kevent.c as it was before the edits."""
    if SAVED is not None:
        with open(EDITED, 'wb') as f:
            f.write(SAVED)


def main(argv):
    global SAVED                # pylint: disable=global-statement
    warm = 0
    if argv[:1] == ['--warm']:
        value = argv[1] if len(argv) > 1 else '5'
        if not value.isdigit() or int(value) == 0 or len(argv) > 2:
            return stages.fail(f"--warm wants a count, not '{value}'")
        warm, out = int(value), os.path.join(stages.WORK, 'timing-warm')
    elif len(argv) <= 1 and not (argv and argv[0].startswith('-')):
        out = os.path.realpath(argv[0] if argv else os.path.join(stages.WORK, 'timing'))
        repo = os.path.realpath(stages.REPO)
        if out == os.path.realpath(stages.WORK) or repo == out or \
                repo.startswith(out.rstrip('/') + '/'):
            return stages.fail(f'refusing to remove {out}: give a directory of its own')
    else:
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    if subprocess.run(['git', '-C', stages.REPO, 'diff', '--quiet', '--', EDITED],
                      check=False).returncode:
        return stages.fail(f'{EDITED} has uncommitted changes: commit or stash them first')
    with open(EDITED, 'rb') as f:
        SAVED = f.read()
    # A kill or a hang-up takes the edit out too (the finally below;
    # stages turns SIGTERM and SIGHUP into SystemExit).
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    try:
        if warm:
            measure_warm(out, warm)
        else:
            measure_all(out)
    finally:
        restore()
    return 0


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

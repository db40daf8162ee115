#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boots of the UML that are not a test layer.

  shell            boot the target's UML (KEVENT_TARGET, the coverage
                   kernel by default) to a busybox shell on this terminal:
                   /proc, /sys, /dev and loopback up, the test programs
                   (/tests), the tools (/tools: kevent-watch, man) in the
                   PATH, the manual pages, this project folder on /host;
                   libevent's programs in /libevent/bin when they are
                   built (./run_tests.sh --libevent).  'poweroff' (or
                   leaving the shell) ends it cleanly.  With a coverage
                   kernel, what the session reached is captured afterwards
                   into .work/results/coverage-shell.info.
  power-off [N]    boot N times (default 100) with an init that runs no
                   test and powers off at once, each boot starting from no
                   .gcda files as the coverage stages do; every boot must
                   exit 0 after "reboot: Power down" and, in a coverage
                   kernel, leave its coverage data.  The check of
                   kernel/patches/0011 (UML aborted now and then after a
                   clean power-off).

Usage: boot.py shell | power-off [N]
"""
import collections
import os
import shutil
import signal
import subprocess
import sys

import libevent
import stages
import targets


def shell(t):
    """The interactive shell; the UML's exit status."""
    initramfs = None
    # The libevent initramfs when libevent is built.
    if libevent.built():
        try:
            libevent.initramfs()
            initramfs = libevent.INITRAMFS
            print("shell: libevent's programs are in /libevent/bin "
                  '(EVENT_NOKEVENT=1 for epoll)')
        except stages.StageError as e:
            print(f'shell: without libevent: {e}')
    cmd = stages.uml_command(t.name, ['mem=512M', 'kunit.enable=0', 'quiet',
                                      'INIT_SHELL=1', f'INIT_HOST={stages.REPO}'],
                             None, initramfs)
    env = dict(os.environ)
    if t.coverage:
        env['GCOV_PREFIX'] = stages.gcov_dir('shell')
    sys.stdout.flush()
    # The terminal is the console.  A Ctrl-C reaches the UML, in the
    # terminal's process group, and ends it; this process waits for it and
    # captures the coverage after it.
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        rc = subprocess.run(cmd, env=env, check=False, preexec_fn=lambda: signal.signal(
            signal.SIGINT, signal.SIG_DFL)).returncode
    finally:
        signal.signal(signal.SIGINT, old)
    capture = os.path.join(stages.REPO, 'coverage', 'capture.py')
    if t.coverage and subprocess.run([sys.executable, capture, 'shell'], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     check=False).returncode == 0:
        print("shell: this session's coverage is in "
              f"{stages.RESULTS}/coverage-shell.info "
              '(HTML: coverage/capture.py report shell)')
    return rc


def gcda_files(folder):
    """The .gcda files under @folder."""
    return [os.path.join(d, f) for d, _, fs in os.walk(folder)
            for f in fs if f.endswith('.gcda')]


def power_off(t, n):
    """N boots that power off at once; the exit status."""
    build = os.path.join(stages.WORK, t.build)
    logs = os.path.join(stages.RESULTS, 'power-off')
    os.makedirs(logs, exist_ok=True)
    log = os.path.join(logs, 'boot.log')
    seen = collections.Counter()
    bad = 0
    for i in range(1, n + 1):
        if t.coverage:
            for f in gcda_files(build):
                os.remove(f)
        # Without GCOV_PREFIX, UML's libgcov writes into the build dir.
        env = {k: v for k, v in os.environ.items() if k != 'GCOV_PREFIX'}
        cmd = stages.uml_command(t.name, ['mem=256M', 'kunit.enable=0',
                                          'INIT_ONLY=none'], 60)
        with open(log, 'w') as f:
            rc = stages.run_group(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                  stderr=subprocess.STDOUT, env=env)
        seen[rc] += 1
        with open(log, errors='replace') as f:
            powered = any(line.startswith('reboot: Power down') for line in f)
        covered = not t.coverage or gcda_files(os.path.join(build, 'kernel/kevent'))
        if rc or not powered or not covered:
            bad += 1
            shutil.copy(log, os.path.join(logs, f'boot-{i}.log'))
            print(f'boot {i}: exit status {rc} (console: {logs}/boot-{i}.log)',
                  flush=True)
    for rc, count in sorted(seen.items()):
        print(f'exit status {rc}: {count} boots')
    if bad:
        return stages.fail(f'{bad} of {n} boots did not power off cleanly '
                           'with their coverage data')
    print(f'{n} boots, each powered off cleanly (exit status 0) and wrote '
          'its coverage data')
    return 0


def main(argv):
    ok = argv == ['shell'] or (argv[:1] == ['power-off'] and len(argv) <= 2 and
                               (len(argv) == 1 or argv[1].isdigit()))
    if not ok:
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    t = targets.from_env()
    if argv[0] == 'shell':
        return shell(t)
    return power_off(t, int(argv[1]) if len(argv) > 1 else 100)


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

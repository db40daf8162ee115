#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the Python modules of the harness share with its bash stages: the
paths of scripts/lib.sh, a stage script run in a target, a UML boot of the
test initramfs, and a layer's verdict word.  Imported, not run.
"""
import os
import shutil
import subprocess

import targets

REPO = targets.REPO
SCRIPTS = os.path.join(REPO, 'scripts')
WORK = os.environ.get('KEVENT_WORK') or os.path.join(REPO, '.work')
TREE = os.path.join(WORK, 'linux')
RESULTS = os.path.join(WORK, 'results')
USERLAND_OUT = os.path.join(WORK, 'userland')
KUNIT_PY = os.path.join(TREE, 'tools', 'testing', 'kunit', 'kunit.py')


class StageError(Exception):
    """What a stage cannot do without, with how to get it."""


def kernel(target):
    """The kernel @target boots (scripts/targets.py), in this work dir."""
    t = targets.target(target)
    return t.kernel(os.path.join(WORK, t.build))


def script(name, *args, target, log, env=None):
    """Run scripts/NAME (or a path) in @target, its output in the file
    @log; its exit status."""
    e = dict(os.environ, KEVENT_TARGET=target, **(env or {}))
    with open(log, 'w') as f:
        return subprocess.run([os.path.join(SCRIPTS, name), *args],
                              stdout=f, stderr=subprocess.STDOUT,
                              env=e).returncode


def layer_status(layer):
    """The verdict word a stage wrote for @layer (lib.sh's layer_status),
    'none' when there is none."""
    try:
        with open(os.path.join(RESULTS, layer + '.status')) as f:
            return f.read().strip()
    except OSError:
        return 'none'


def boot_uml(target, args, log, timeout, env=None):
    """Boot @target's UML with the test initramfs and kernel arguments
    @args, the console in the file @log, killed after @timeout seconds
    (lib.sh's boot_initramfs); the exit status, 124 or 137 when killed."""
    uml = kernel(target)
    initramfs = os.path.join(USERLAND_OUT, 'initramfs.cpio')
    if not os.access(uml, os.X_OK):
        raise StageError(f'no UML kernel at {uml}: run ./run_tests.sh once first')
    if not os.path.isfile(initramfs):
        raise StageError('no initramfs: run scripts/build_userland.sh')
    cmd = ['timeout', '--kill-after=10', str(timeout), uml,
           f'initrd={initramfs}', 'rdinit=/init', 'con=null',
           'con0=fd:0,fd:1', *args]
    with open(log, 'w') as f:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                              stderr=subprocess.STDOUT,
                              env=dict(os.environ, **(env or {}))).returncode


def gcov_dir(layer, part=0):
    """An empty directory for the gcov data of @layer's boot @part (lib.sh's
    gcov_boot): the GCOV_PREFIX of that boot."""
    d = os.path.join(RESULTS, 'gcov', layer, str(part))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d

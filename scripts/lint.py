#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lint: checkpatch.pl and kernel-doc on the kevent sources, a W=1 compile
of them (any compiler warning fails), the layers of kernel/kevent/,
shellcheck on the harness's scripts, groff on the manual pages, the
harness's self-tests, and libevent's patch series.  Every finding is
printed; any fails.  (The uapi check compiles with the user-space
programs, in build.py userland, against the headers installed there.)

The per-file checks are make rules (scripts/lint.mk): a run after an edit
checks what changed.  The W=1 compile is a make of kernel/kevent/ in a
build dir of its own (.work/build-lint; the test build's objects stay as
they are, with their gcov notes), configured by kunit_tool from the
coverage target's fragments only when tree.config_hash() changed, so lint
need not wait for the build.  When no file of the tree changed since it
was last clean (a mark, tree.changed_since()), make is not run there: its
own checks cost about 4 s of CPU.

Usage: lint.py
"""
import contextlib
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import build
import libevent
import stages
import targets
import tree

LINT_BUILD = os.path.join(stages.WORK, 'build-lint')
THIS = os.path.abspath(__file__)


class Lint:
    """The findings of one run."""

    def __init__(self):
        self.failed = False

    def finding(self, what, output=''):
        """Report @what (and the tool's @output); the run fails."""
        if output:
            sys.stderr.write(output.rstrip('\n') + '\n')
        print(f'lint: {what}', file=sys.stderr, flush=True)
        self.failed = True


def repo_files(*patterns, prune=()):
    """The files of the repository matching the glob @patterns (** for any
    depth), relative to it, sorted; none under a @prune folder."""
    out = set()
    for pat in patterns:
        for f in glob.glob(os.path.join(stages.REPO, pat), recursive=True):
            rel = os.path.relpath(f, stages.REPO)
            if os.path.isfile(f) and not any(rel.startswith(p + '/') for p in prune):
                out.add(rel)
    return sorted(out)


def read(path):
    """The text of @path."""
    with open(path, errors='replace') as f:
        return f.read()


def version(cmd):
    """What @cmd prints (a program's version), or that it is missing."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=False).stdout
    except OSError:
        return f'no {cmd[0]}'


def checkers():
    """A name for what the per-file checks are: the programs' versions,
    checkpatch's script and data, lint.mk (a change of any checks every
    file again)."""
    h = hashlib.sha256()
    for cmd in (['shellcheck', '--version'], ['groff', '--version'], ['perl', '-v']):
        h.update(version(cmd).encode() + b'\0')
    h.update(sys.version.encode())
    for f in ('scripts/checkpatch.pl', 'scripts/spelling.txt',
              'scripts/const_structs.checkpatch'):
        h.update(read(os.path.join(stages.TREE, f)).encode())
    h.update(read(os.path.join(stages.SCRIPTS, 'lint.mk')).encode())
    return h.hexdigest()[:16]


def per_file(lint):
    """checkpatch, shellcheck, the manual pages and the self-tests, by
    scripts/lint.mk."""
    sources = repo_files('kernel/kevent/**/*.[ch]', 'kernel/include/**/*.[ch]',
                         'kunit/**/*.[ch]', 'kernel/Documentation/**/*.rst')
    shells = repo_files('run_tests.sh', '.ci/run', 'scripts/**/*.sh',
                        'coverage/**/*.sh', 'userland/**/*.sh',
                        prune=('coverage/html',))
    pages = repo_files('userland/man/*.[1-8]')
    # (coverage/html is left out: capture.py may be rewriting it
    # meanwhile.)
    selftest = [f for f in repo_files('scripts/**', 'coverage/**',
                                      prune=('coverage/html',))
                if not f.endswith('.pyc') and '__pycache__' not in f]
    out = os.path.join(LINT_BUILD, 'ok-' + checkers())
    for old in glob.glob(os.path.join(LINT_BUILD, 'ok-*')) + [
            os.path.join(LINT_BUILD, 'ok'), os.path.join(LINT_BUILD, 'clean')]:
        if old != out:
            shutil.rmtree(old, ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    # The self-tests' inputs by name and mode: a file that comes, goes or
    # changes its mode runs them again (lint.mk).
    listing = ''.join(f'{os.stat(os.path.join(stages.REPO, f)).st_mode:o} {f}\n'
                      for f in selftest)
    inputs = os.path.join(out, 'selftest.inputs')
    if not os.path.exists(inputs) or read(inputs) != listing:
        with open(inputs, 'w') as f:
            f.write(listing)
    cmd = ['make', '-k', '-s', f"-j{build.JOBS}", '-f',
           os.path.join(stages.SCRIPTS, 'lint.mk'), f'REPO={stages.REPO}',
           f'TREE={stages.TREE}', f'OUT={out}', f'PYTHON={sys.executable}',
           'SOURCES=' + ' '.join(sources), 'SHELLS=' + ' '.join(shells),
           'PAGES=' + ' '.join(pages), 'SELFTEST=' + ' '.join(selftest)]
    if subprocess.run(cmd, check=False).returncode:
        lint.failed = True


def kernel_doc(lint):
    """kernel-doc of the API and the suites: every documented function and
    struct complete.  (The W=1 compile checks kernel-doc too, but writes
    the object all the same: it would report a warning once.)"""
    files = repo_files('kernel/kevent/*.[ch]', 'kernel/include/linux/kevent*.h',
                       'kunit/*.[ch]')
    r = subprocess.run(['perl', os.path.join(stages.TREE, 'scripts/kernel-doc'),
                        '-none', '-Wall', *files], cwd=stages.REPO, check=False,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode or r.stdout.strip():
        lint.finding('kernel-doc', r.stdout)


def w1(lint):
    """The W=1 compile of kernel/kevent/, warnings as errors."""
    t = targets.target('coverage')
    os.makedirs(LINT_BUILD, exist_ok=True)
    want = tree.config_hash(t)
    if not tree.config_stamped(LINT_BUILD, want):
        for f in glob.glob(os.path.join(LINT_BUILD, '.kevent-w1*')) + \
                glob.glob(os.path.join(LINT_BUILD, '.kevent-config')):
            os.remove(f)
        log = os.path.join(LINT_BUILD, 'config.log')
        with open(os.devnull, 'w') as quiet, contextlib.redirect_stdout(quiet):
            ok = build.kunit_build(t, LINT_BUILD, configure_only=True, log=log)
        if not ok:
            return lint.finding(f'kunit_tool could not configure {LINT_BUILD} '
                                f'(see {log})')
        tree.stamp_config(LINT_BUILD, want)
    # -Werror: an object that warned is not written, so the next run
    # compiles it (and reports it) again even when its source did not
    # change.  The mark covers this file: a change of lint re-checks.
    with open(THIS, 'rb') as f:
        mark = os.path.join(LINT_BUILD, '.kevent-w1-' +
                            hashlib.sha256(f.read()).hexdigest()[:16])
    if tree.changed_since(mark) == []:
        print('lint: W=1: no file of the tree changed since it was clean')
        return None
    tree.begin(mark)
    r = subprocess.run(['make', '-s', '-C', stages.TREE, 'ARCH=um', f'O={LINT_BUILD}',
                        f'-j{build.JOBS}', 'W=1', 'KCFLAGS=-Werror', 'kernel/kevent/'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       check=False)
    if r.returncode:
        return lint.finding('W=1 build of kernel/kevent/ failed', r.stdout)
    if 'warning:' in r.stdout:
        return lint.finding('compiler warnings at W=1 in kernel/kevent/', r.stdout)
    tree.done(mark)
    return None


def layers(lint):
    """No object of kernel/kevent/ calls a function of a file above it
    (kevent_internal.h), checked on the W=1 objects."""
    r = subprocess.run([sys.executable, os.path.join(stages.SCRIPTS, 'check_layers.py'),
                        os.path.join(LINT_BUILD, 'kernel/kevent')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       check=False)
    if r.returncode:
        lint.finding('layers of kernel/kevent/ (scripts/check_layers.py)', r.stdout)


def libevent_series(lint):
    """libevent's patch series (userland/libevent/series) applies with
    patch -p1 to the pristine tree, when one is at hand (LIBEVENT_SRC, or
    the source ./run_tests.sh --libevent fetched); lint does not fetch it."""
    src = os.environ.get('LIBEVENT_SRC') or next(iter(sorted(glob.glob(
        os.path.join(stages.WORK, 'libevent', 'source', 'libevent-*/')))), '')
    if not os.path.isdir(src):
        print('libevent: no source at hand, patch series not checked '
              '(./run_tests.sh --libevent fetches it)')
        return
    with tempfile.TemporaryDirectory() as tmp:
        failed = libevent.patched_copy(src, tmp, quiet=True)
    if failed:
        lint.finding(f'userland/libevent/{failed} does not apply to {src}')


def main(argv):
    if argv:
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    if not os.path.isfile(stages.KUNIT_PY):
        return stages.fail(f'no prepared tree at {stages.TREE}: run '
                           'scripts/tree.py prepare (./run_tests.sh does)')
    lint = Lint()
    for step in (per_file, kernel_doc, w1, layers, libevent_series):
        step(lint)
    if lint.failed:
        return stages.fail('lint found problems (above)')
    print('lint: checkpatch, kernel-doc, W=1, layers, shellcheck, man pages, '
          "harness self-tests and libevent's patches clean")
    return 0


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prove the guards: each fixed bug, put back, makes its test fail.

A guard (kernel/guards/NN-name.patch) is a diff with tree-root paths that
puts a fixed bug back, under a header of lines that this module reads:

  Test:    the test that must fail: SUITE.TEST (KUnit) or
           user:PROGRAM.TEST (a user-space test)
  Target:  the kernel it is proven in (scripts/targets.py): coverage,
           debug (KASAN, lockdep or real spinlocks see it) or smp
  SMP:     optional, a KUnit test that catches it in the smp target too
  Fuzz:    'yes' when the fuzzer must find it

prove: for each guard, apply it to the prepared tree, rebuild, run the
test through the stage's own program (kunit_layer.py, userland_layer.py),
expect it not to pass, and take the guard out again
(also when this program is interrupted).  The verdict comes from what the
script records, not from what it prints: the layer's record, kunit_tool's
JSON with the layer's verdict in it (stages.layer_status(): a hung boot
or a kernel report is the test failing, as a wedged kernel looks from
outside), and the test's status there.  --smp proves only what runs in the smp target: the
'Target: smp' guards and the 'SMP:' lines.

prove-fuzz: for each 'Fuzz: yes' guard, apply it, rebuild the debug UML,
fuzz seeds 1, 2, 3 (scripts/fuzz.py) until one finds the defect,
then halve the budget (four times at most) while that seed still finds
it.

refresh: rewrite each guard against the current sources: apply it to a
copy of the files it touches in the prepared tree and replace its diff
with a fresh one (tree-root paths, exact offsets), keeping its header.
Run it after the kevent sources moved under the guards; then prove them.

Usage: guards.py prove [--smp] [GLOB]     GLOB selects guards ('09-*')
       guards.py prove-fuzz [GLOB]
       guards.py list [GLOB]              each guard's target and tests
       guards.py refresh [GLOB]           rewrite their diffs
       guards.py status JSON SUITE TEST   a test's status in kunit_tool's
                                          JSON (MISSING when absent)
Logs: .work/results/guards/ and .work/results/guards-fuzz/.
"""
import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import fuzz
import results
import stages
import targets
import tree

GUARDS = os.path.join(stages.REPO, 'kernel', 'guards')
KUNIT_TEST = re.compile(r'[A-Za-z0-9_]+\.\S+$')
USER_TEST = re.compile(r'user:[A-Za-z0-9_-]+\.\S+$')
PROVEN_IN = ('coverage', 'debug', 'smp')
QEMU_MISSING = ('not run: qemu-system-x86_64 missing '
                '(apt-get install qemu-system-x86)')


class GuardError(Exception):
    """A guard or a command line this program cannot work with."""


@dataclass(frozen=True)
class Guard:
    """A guard's file and its header."""
    path: str
    test: str
    target: str
    smp_test: str = ''
    fuzz: bool = False

    @property
    def name(self):
        return os.path.basename(self.path)[:-len('.patch')]

    @classmethod
    def parse(cls, path, text):
        """The guard of @path from its @text; GuardError says what is wrong."""
        name = os.path.basename(path)[:-len('.patch')]
        fields = {}
        for line in text.splitlines():
            if line == '---':
                break
            m = re.match(r'(Test|Target|SMP|Fuzz): (.*)$', line)
            if m:
                fields[m.group(1)] = m.group(2).strip()
        test = fields.get('Test', '')
        target = fields.get('Target', '')
        smp = fields.get('SMP', '')
        if not test:
            raise GuardError(f"{name} has no 'Test:' line")
        if not (KUNIT_TEST.match(test) or USER_TEST.match(test)):
            raise GuardError(f"{name}: 'Test: {test}' is neither SUITE.TEST "
                             "nor user:PROGRAM.TEST")
        if target not in PROVEN_IN:
            raise GuardError(f"{name}: 'Target: {target}' is not "
                             f"{', '.join(PROVEN_IN[:-1])} or {PROVEN_IN[-1]}")
        if target == 'smp' and test.startswith('user:'):
            raise GuardError(f'{name}: a user-space test in target smp is '
                             'not supported')
        if smp and (smp.startswith('user:') or not KUNIT_TEST.match(smp)):
            raise GuardError(f"{name}: 'SMP: {smp}' is not SUITE.TEST")
        return cls(path, test, target, smp, fields.get('Fuzz') == 'yes')


def load(glob='*', where=GUARDS):
    """The guards of @where whose name matches @glob, in name order."""
    names = sorted(f for f in os.listdir(where) if f.endswith('.patch')
                   and fnmatch.fnmatch(f[:-len('.patch')], glob))
    if not names:
        raise GuardError(f"no guard matches '{glob}' in kernel/guards/")
    out = []
    for f in names:
        path = os.path.join(where, f)
        with open(path) as fh:
            out.append(Guard.parse(path, fh.read()))
    return out


def refresh(guard):
    """Rewrite @guard's diff against the prepared tree (see the module's
    text); whether it changed."""
    with open(guard.path) as f:
        text = f.read()
    files = tree.patched_files([guard.path])
    if '\n---\n' not in text:
        raise GuardError(f'{guard.name}: no "---" line ends its header')
    with tempfile.TemporaryDirectory() as tmp:
        for side in 'ab':
            for f in files:
                dest = os.path.join(tmp, side, f)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                if not os.path.isfile(os.path.join(stages.TREE, f)):
                    raise GuardError(f'{guard.name}: the tree has no {f}')
                shutil.copy(os.path.join(stages.TREE, f), dest)
        if not tree.patch(guard.path, os.path.join(tmp, 'b'), '--forward', quiet=True):
            raise GuardError(f'{guard.name} does not apply to the current '
                             'sources: fix it by hand')
        new = text[:text.index('\n---\n') + len('\n---\n')]
        for f in files:
            new += subprocess.run(['diff', '-u', '--label', f'a/{f}', '--label', f'b/{f}',
                                   f'a/{f}', f'b/{f}'], cwd=tmp, stdout=subprocess.PIPE,
                                  text=True, check=False).stdout
    if new == text:
        return False
    with open(guard.path, 'w') as f:
        f.write(new)
    return True


def find(group, suite, test):
    """kunit_tool's status of @suite's @test in the KernelCI @group, or
    None; a user-space test matches by its name or its kselftest name
    (FIXTURE.TEST, FIXTURE.VARIANT.TEST)."""
    for sub in group.get('sub_groups', []):
        if sub.get('name') == suite:
            for case in sub.get('test_cases', []):
                name = case.get('name', '')
                if name == test or name.endswith('.' + test):
                    return case.get('status', 'MISSING')
        found = find(sub, suite, test)
        if found:
            return found
    return None


def test_status(json_path, suite, test):
    """The status of a test in a JSON file kunit_tool wrote, MISSING when
    the file, the suite or the test is not there (a crash or a hang
    before it ran)."""
    data = results.load(json_path)
    return (find(data, suite, test) if data is not None else None) or 'MISSING'


def verdict(layer_status, status, run_log, where):
    """One proof's verdict from the layer's status word, the test's status
    in the JSON and the run's printed log (@run_log, the file @where):
    (proven, the table's text)."""
    if layer_status == 'hung':
        return True, 'failed as expected (the boot hung)'
    if layer_status == 'report':
        return True, 'failed as expected (a kernel report in the log)'
    if status == 'MISSING' and 'NO TESTS RUN' in run_log:
        return False, 'no such test: nothing ran (see the Test: line)'
    if status == 'PASS':
        return False, 'PASSED: the test does not guard this bug'
    if status == 'SKIP':
        return False, f'skipped (see {where})'
    if status == 'MISSING':
        return True, f'failed as expected (no result: crashed, see {where})'
    return True, f'failed as expected ({status})'


def fuzz_row(name, seed, found, least):
    """A row of the fuzz table (found: fuzz.once()'s verdict)."""
    return f'{name:30} {seed!s:5} {least!s:8} {found[:100]}'


class Tree:
    """The prepared tree, with at most one guard in it at a time."""

    def __init__(self, tree):
        self.tree = tree
        self.current = None
        self.said = ''          # what patch said last

    def _patch(self, path, *opts):
        ok, self.said = tree.run_patch(path, self.tree, *opts)
        return ok

    def apply(self, guard):
        """Put @guard in, all of it or nothing; False when it does not
        apply (patch's words in self.said)."""
        if not (self._patch(guard.path, '--forward', '--dry-run')
                and self._patch(guard.path, '--forward')):
            return False
        self.current = guard
        return True

    def restore(self):
        """Take the guard out again (it stays current until it is out); a
        signal meanwhile waits until it is."""
        if self.current:
            signals = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
            signal.pthread_sigmask(signal.SIG_BLOCK, signals)
            try:
                out = self._patch(self.current.path, '-R')
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, signals)
            if not out:
                raise GuardError(f'could not take {self.current.name} out of '
                                 f'{self.tree}: restore it by hand')
            self.current = None


class Prover:
    """Proves guards in the prepared tree, through the stage scripts."""

    def __init__(self):
        self.tree = Tree(stages.TREE)

    def not_applied(self, name, logs):
        """The row's text for a guard that does not apply; what patch
        said goes to NAME.patch.log."""
        log = os.path.join(logs, name + '.patch.log')
        with open(log, 'w') as f:
            f.write(self.tree.said)
        return f'does not apply to the current sources (see {log})'

    @staticmethod
    def build(target, log):
        return stages.script('build.py', 'kernel',
                             target=target, log=log) == 0

    @staticmethod
    def run_test(name, target, test, logs):
        """Run @test in @target; (proven, text) as verdict() says."""
        run_log = os.path.join(logs, name + '.run.log')
        if test.startswith('user:'):
            layer = 'userland'
            suite, _, t = test[len('user:'):].partition('.')
            stages.script('userland_layer.py', target=target, log=run_log, env={
                'USERLAND_TIMEOUT': os.environ.get('GUARD_BOOT_TIMEOUT', '240'),
                'USERLAND_ARGS': f'INIT_ONLY={suite} INIT_TEST={t}'})
        else:
            suite, _, t = test.partition('.')
            layer = 'smp-kunit' if targets.target(target).qemu else 'kunit'
            stages.script('kunit_layer.py', test, target=target, log=run_log,
                          env={'SMP_KUNIT_TIMEOUT': '300', 'KUNIT_TIMEOUT': '300'})
        json_path = os.path.join(logs, name + '.json')
        try:
            shutil.copy(os.path.join(stages.RESULTS, layer + '.json'), json_path)
        except OSError:
            if os.path.exists(json_path):
                os.remove(json_path)
        with open(run_log, errors='replace') as f:
            printed = f.read()
        return verdict(stages.layer_status(layer),
                       test_status(json_path, suite, t), printed, run_log)

    def prove(self, guard, target, test, logs):
        """One row of the table: (name, test, proven, text)."""
        name = guard.name + ('-smp' if target == 'smp' else '')
        if target == 'smp' and not shutil.which('qemu-system-x86_64'):
            return name, test, False, QEMU_MISSING
        print(f'guard {name}: {test} (target {target})', flush=True)
        if not self.tree.apply(guard):
            return name, test, False, self.not_applied(name, logs)
        try:
            build_log = os.path.join(logs, name + '.build.log')
            if not self.build(target, build_log):
                return name, test, False, f'build failed (see {build_log})'
            return (name, test) + self.run_test(name, target, test, logs)
        finally:
            self.tree.restore()

    def rebuild(self, names, logs, smp_only):
        """Leave the builds matching the sources again."""
        for target in names:
            if os.path.exists(stages.kernel(target)) and \
                    (targets.target(target).qemu or not smp_only):
                self.build(target, os.path.join(logs, f'rebuild-{target}.log'))


def prove_all(prover, guards, smp_only):
    """Prove @guards; print the table; the exit status."""
    logs = os.path.join(stages.RESULTS, 'guards')
    os.makedirs(logs, exist_ok=True)
    if not smp_only and any(g.test.startswith('user:') for g in guards):
        log = os.path.join(logs, 'userland.log')
        if stages.script('build.py', 'userland', log=log, target='coverage'):
            raise GuardError(f'cannot build the test initramfs (see {log})')
    rows = []
    for g in guards:
        if not smp_only or g.target == 'smp':
            rows.append(prover.prove(g, g.target, g.test, logs))
        if g.smp_test:
            rows.append(prover.prove(g, 'smp', g.smp_test, logs))
    # Not after an interrupt: the guard is out, and the next build catches up.
    prover.rebuild(('coverage', 'debug', 'smp'), logs, smp_only)
    print(f'\n{"guard":40} {"test":64} result')
    for name, test, _, text in rows:
        print(f'{name:40} {test:64} {text}')
    if not rows:
        raise GuardError('no guard with an SMP proof matches')
    if not all(ok for _, _, ok, _ in rows):
        raise GuardError('some guards are not proven (above)')
    print(f'all {len(rows)} guards proven')
    return 0


def fuzz_once(log, seed, ops):
    """One fuzzing boot: (found, its verdict)."""
    line = fuzz.once(log, ['--seed', str(seed), '--ops', str(ops)])
    return line != 'ok', line


def fuzz_one(prover, g, logs, ops):
    """Put @g's defect back, rebuild the debug UML and fuzz it (see the
    module's text); (the table's row, whether the fuzzer found it)."""
    print(f'guard {g.name}: fuzzing the debug UML with the defect put back',
          flush=True)
    if not prover.tree.apply(g):
        return fuzz_row(g.name, '-', prover.not_applied(g.name, logs), '-'), False
    try:
        build_log = os.path.join(logs, g.name + '.build.log')
        if not prover.build('debug', build_log):
            return fuzz_row(g.name, '-', f'build failed (see {build_log})',
                            '-'), False
        for seed in (1, 2, 3):
            found, line = fuzz_once(os.path.join(
                logs, f'{g.name}-seed{seed}.log'), seed, ops)
            print(f'  seed {seed}: {line}', flush=True)
            if found:
                break
        else:
            return fuzz_row(g.name, '1-3', 'not found', '-'), False
        least, n = ops, ops // 2
        for _ in range(4):
            if n < 64 or not fuzz_once(os.path.join(
                    logs, f'{g.name}-least.log'), seed, n)[0]:
                break
            least, n = n, n // 2
        return fuzz_row(g.name, seed, line, least), True
    finally:
        prover.tree.restore()


def prove_fuzz(prover, guards):
    """The fuzzer finds each 'Fuzz: yes' guard's defect; the exit status."""
    logs = os.path.join(stages.RESULTS, 'guards-fuzz')
    os.makedirs(logs, exist_ok=True)
    ops, _ = fuzz.budget()
    log = os.path.join(logs, 'userland.log')
    if stages.script('build.py', 'userland', log=log, target='debug'):
        raise GuardError(f'cannot build the test initramfs (see {log})')
    found = [fuzz_one(prover, g, logs, ops) for g in guards if g.fuzz]
    # Not after an interrupt: the guard is out, and the next build catches up.
    prover.build('debug', os.path.join(logs, 'rebuild.log'))
    print(f'\n{"guard":30} {"seed":5} {"ops":8} found')
    print('\n'.join(row for row, _ in found))
    if not found:
        raise GuardError("no 'Fuzz: yes' guard matches")
    if not all(ok for _, ok in found):
        raise GuardError('the fuzzer missed some defects (above)')
    print(f'the fuzzer found all {len(found)} defects; replay one with '
          './run_tests.sh --fuzz SEED --fuzz-ops N')
    return 0


def interrupted(signum, _frame):
    """SIGTERM or SIGHUP: end as an interrupt does, through the finally
    clauses that take the guard out."""
    raise SystemExit(128 + signum)


def main(argv):
    usage = __doc__[__doc__.index('Usage:'):].rstrip()
    cmd, args = (argv[0], argv[1:]) if argv else ('', [])
    try:
        if cmd == 'status' and len(args) == 3:
            print(test_status(*args))
            return 0
        smp_only = cmd == 'prove' and args[:1] == ['--smp']
        args = args[1:] if smp_only else args
        if cmd not in ('prove', 'prove-fuzz', 'list', 'refresh') or len(args) > 1:
            print(usage, file=sys.stderr)
            return 2
        guards = load(*args)
        if cmd == 'list':
            for g in guards:
                smp = f'  SMP: {g.smp_test}' if g.smp_test else ''
                fuzz = '  Fuzz: yes' if g.fuzz else ''
                print(f'{g.name:40} {g.target:8} {g.test}{smp}{fuzz}')
            return 0
        if cmd == 'refresh':
            if not os.path.isdir(os.path.join(stages.TREE, 'kernel', 'kevent')):
                raise GuardError(f'no prepared tree at {stages.TREE}: run '
                                 'scripts/tree.py prepare')
            for g in guards:
                if refresh(g):
                    print(f'refreshed {g.name}.patch')
            return 0
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, interrupted)
        prover = Prover()
        if cmd == 'prove':
            return prove_all(prover, guards, smp_only)
        return prove_fuzz(prover, guards)
    except GuardError as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('guards: interrupted; the guard is out of the tree', file=sys.stderr)
        return 130


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

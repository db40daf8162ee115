#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's orchestrator: which stages a run has, in which order,
which of them run side by side, and the summary at the end.

./run_tests.sh starts it (after making sure python3 is there); its
options, and their subcommand forms, are in scripts/usage.txt, which
--help prints.  Each stage is a program of scripts/ or coverage/ (a bash
script, or a Python module such as fuzz.py and guards.py), run with the
run's target (scripts/targets.py) in KEVENT_TARGET.  A stage the rest
depends on (setup, prepare, the build) ends the run when it fails; the
others are counted, and the summary (scripts/summary.py) fails the run
for them.

Side by side: the user-space build (niced; the kernel build is what the
run waits for), lint (niced more, reported last) and libevent's build
run beside the kernel build, each with its output in .work/NAME.log,
printed when the run joins it.  The boots come one after the other: at
most one boot per CPU, as the tests' timing bounds assume.
"""
import glob
import os
import re
import subprocess
import sys
import threading
import time

import fuzz
import stages
import targets

REPO = stages.REPO
SCRIPTS = stages.SCRIPTS
MODES = {'run': [], 'shell': ['--shell'], 'bench': ['--bench'],
         'fuzz': ['--fuzz'], 'prove-guards': ['--prove-guards'],
         'smp': ['--smp'], 'libevent': ['--libevent']}


# The options that set one attribute of Options, and those that take a
# value (with what it is, for the message when it is missing).
FLAGS = {'--no-coverage': ('nocov', True), '--no-lint': ('lint', False),
         '--debug': ('debug', True), '--shell': ('shell', True),
         '--prove-guards': ('guards', True), '--smp': ('smp', True),
         '--kcsan': ('kcsan', True)}
VALUES = {'--jobs': ('jobs', 'a number'), '--json': ('json', 'a file name'),
          '--fuzz-ops': ('fuzz_ops', 'a number'),
          '--fuzz-time': ('fuzz_time', 'seconds')}


class Usage(Exception):
    """A command line the harness cannot run, with what is wrong."""


class Options:
    """The run's options, as scripts/usage.txt lists them."""

    def __init__(self):
        self.filter = ''
        self.json = ''
        self.lint = True
        self.shell = self.guards = self.smp = self.kcsan = False
        self.debug = self.nocov = self.bench = False
        self.bench_which = 'all'
        self.bench_args = []
        self.fuzz = ''
        self.libevent = ''      # '', '1', 'only' or 'bench'
        self.jobs = os.environ.get('JOBS') or str(len(os.sched_getaffinity(0)))
        self.fuzz_ops = self.fuzz_time = None

    @property
    def target(self):
        """The kernel under test: the x86_64 SMP kernel (--smp, with KCSAN
        for --kcsan), else the UML debug build (--debug, --fuzz) whatever
        else is asked, else UML without gcov (--no-coverage, --bench: gcov
        would weigh on it), else UML with coverage."""
        if self.kcsan:
            return 'smp-kcsan'
        if self.smp:
            return 'smp'
        if self.debug or self.fuzz:
            return 'debug'
        if self.nocov or self.bench:
            return 'plain'
        return 'coverage'

    @property
    def tests(self):
        """Whether the run runs the test layers (not a mode instead)."""
        return not (self.guards or self.bench or self.fuzz or self.shell
                    or self.libevent in ('only', 'bench'))


def parse(argv):
    """The Options of @argv; Usage when they cannot be run."""
    o = Options()
    if argv and argv[0] in MODES:
        argv = MODES[argv[0]] + argv[1:]
    args = list(argv)

    def value(opt, what):
        if not args:
            raise Usage(f'{opt} needs {what}')
        return args.pop(0)

    while args:
        a = args.pop(0)
        nxt = args[0] if args else ''
        eq = a.startswith('--') and '=' in a    # --opt=value
        if eq:
            a, nxt = a.split('=', 1)
            args.insert(0, nxt)
            if a not in ('--jobs', '--bench', '--fuzz', '--json'):
                raise Usage(f'unknown option {a}=')
        if a in ('-h', '--help'):
            raise SystemExit(print_usage(sys.stdout) or 0)
        elif a in FLAGS:
            setattr(o, *FLAGS[a])
        elif a in VALUES:
            setattr(o, VALUES[a][0], value(a, VALUES[a][1]))
        elif a == '--bench':
            o.bench = True
            if eq or nxt in ('kernel', 'user', 'all'):
                o.bench_which = args.pop(0)
        elif a in ('--bench-save', '--bench-base'):
            d = value(a, 'a directory')
            if o.bench_args:
                raise Usage('--bench-save and --bench-base go one at a time, once')
            o.bench_args = ['--' + a[len('--bench-'):], d]
        elif a == '--fuzz':
            o.fuzz = '1'
            if eq or nxt[:1].isdigit() or nxt.startswith('time'):
                o.fuzz = args.pop(0)
        elif a == '--libevent':
            o.libevent = '1'
            if nxt in ('only', 'bench'):
                o.libevent = args.pop(0)
        elif a.startswith('-'):
            raise Usage(f'unknown option {a}')
        else:
            o.filter = a
    check(o)
    return o


def check(o):
    """Usage for options that do not go together."""
    if not re.fullmatch('[0-9]+', o.jobs) or int(o.jobs) == 0:
        raise Usage(f"--jobs wants a positive number, not '{o.jobs}'")
    try:
        for value, what in ((o.fuzz_ops, '--fuzz-ops'), (o.fuzz_time, '--fuzz-time')):
            if value is not None:
                fuzz.positive(value, what)
        for word in o.fuzz.split(','):
            if word:
                fuzz.seed_of(word)
    except ValueError as e:
        raise Usage(str(e)) from None
    if o.bench_args and not o.bench_args[1]:
        raise Usage(f'{o.bench_args[0].replace("--", "--bench-")} needs a directory')
    if o.bench and o.bench_which not in ('kernel', 'user', 'all'):
        raise Usage(f"--bench takes kernel, user or all, not '{o.bench_which}'")
    if o.bench_args and not (o.bench and o.bench_which == 'kernel'):
        raise Usage('--bench-save and --bench-base go with --bench kernel')
    if o.kcsan and not o.smp:
        raise Usage('--kcsan goes with --smp')
    if o.kcsan and o.guards:
        raise Usage('--kcsan does not go with --prove-guards')


def print_usage(f):
    with open(os.path.join(SCRIPTS, 'usage.txt')) as u:
        f.write(u.read())


class Run:
    """The stages of one run: their order, their times, their failures."""

    def __init__(self, opts):
        self.o = opts
        self.failed = []
        self.timings = []
        self.beside_ = {}

    @staticmethod
    def header(name):
        print(f'\n==> {name}', flush=True)

    def stage(self, name, *argv):
        """Run a stage here; False when it failed (it is counted)."""
        start = time.monotonic()
        self.header(name)
        ok = stages.run_child(argv) == 0
        if not ok:
            self.failed.append(name)
        self.timings.append(f'{name} {round(time.monotonic() - start)}s')
        return ok

    def must(self, name, *argv):
        """A stage the rest depends on: the run ends when it fails."""
        if not self.stage(name, *argv):
            self.stop_beside()
            print('\n0 passed, 1 failed', flush=True)
            sys.exit(1)

    def beside(self, name, *argv):
        """Start a stage beside the others, in a process group of its own
        (stop_beside), its output in .work/NAME.log; a thread notes when
        it ends, for its time."""
        os.makedirs(stages.WORK, exist_ok=True)
        with open(os.path.join(stages.WORK, name + '.log'), 'w') as log:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        took = {}

        def note(start=time.monotonic()):
            p.wait()
            took['secs'] = time.monotonic() - start
        t = threading.Thread(target=note, daemon=True)
        t.start()
        self.beside_[name] = (p, t, took)

    def join(self, name):
        """Wait for a stage started beside, then print its log, its own
        time and its verdict (in the order of the joins, so the report
        reads as a sequence)."""
        p, t, took = self.beside_.pop(name)
        t.join()
        self.header(name)
        with open(os.path.join(stages.WORK, name + '.log'), errors='replace') as f:
            sys.stdout.write(f.read())
        sys.stdout.flush()
        self.timings.append(f'{name} {round(took["secs"])}s')
        if p.returncode != 0:
            self.failed.append(name)

    def stop_beside(self):
        """Stop what runs beside, with all its processes: it ends with the
        run, not after it."""
        for p, _, _ in self.beside_.values():
            stages.stop_group(p)

    def summary(self, layers, coverage_layers, floors=False, show_failed=False):
        """The summary stage: exec scripts/summary.py, whose exit status
        is the run's."""
        self.header('summary')
        print(f'  stage times: {",".join(self.timings)}')
        if show_failed:
            for f in self.failed:
                print(f'  stage failed: {f}')
        argv = [sys.executable, os.path.join(SCRIPTS, 'summary.py'),
                '--results', stages.RESULTS, '--tree', stages.TREE,
                '--layers', layers, '--coverage-layers', coverage_layers]
        if self.o.json:
            argv += ['--json', self.o.json]
        if floors:
            argv += ['--floors', os.path.join(REPO, 'coverage', 'floors.conf')]
        argv += ['--failed-stages', ','.join(self.failed)]
        execute(argv)


def execute(argv):
    """Become @argv (bash's exec)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvp(argv[0], argv)


def script(name):
    return os.path.join(SCRIPTS, name)


py = sys.executable     # the harness's python3, for its Python stages


def remove(*patterns):
    for pat in patterns:
        for f in glob.glob(os.path.join(stages.RESULTS, pat)):
            os.remove(f)


def smp_run(run, o):
    """--smp: the x86_64 SMP layers, their own build, no coverage (the
    report stays the UML runs')."""
    remove('smp-*.json')
    run.must('smp-build', py, script('build.py'), 'kernel')
    run.stage('smp-kunit', sys.executable, script('kunit_layer.py'), o.filter)
    run.stage('smp-userland-build', py, script('build.py'), 'userland')
    run.stage('smp-userland', sys.executable, script('userland_layer.py'))
    run.summary('smp-kunit,smp-userland', '')


def bench_kernel_args(o):
    """bench.py kernel's arguments: --save or --base DIR, and KUNIT_GLOB,
    which selects cases of kevent_bench ('kevent_bench.bench_sleep')."""
    return ['kernel', *o.bench_args, *([o.filter] if o.filter else [])]


def bench_run(o):
    """--bench: the in-kernel benchmark, the user-space one, or both."""
    if o.bench_which in ('kernel', 'all'):
        boots = f"{os.environ.get('BENCH_RUNS', '9')} boots"
        if o.bench_args[:1] == ['--base']:
            boots = f"{os.environ.get('BENCH_RUNS', '9')} of each kernel"
        if o.bench_args[:1] == ['--save']:
            boots = 'none: save the kernel'
        Run.header(f'in-kernel benchmark (about 50 s a boot, {boots})')
        if stages.run_child([py, script('bench.py'), *bench_kernel_args(o)]):
            sys.exit(1)
    if o.bench_which == 'kernel':
        sys.exit(0)
    then(py, script('build.py'), 'userland')
    Run.header('user-space benchmark (about 11 minutes)')
    execute([py, script('bench.py'), 'user'])


def then(*argv):
    """A step the rest needs, without a stage of its own."""
    if stages.run_child(argv):
        sys.exit(1)


def tests_run(run, o):
    """The test layers: KUnit, user space, libevent, coverage, lint."""
    # Each boot writes its own gcov data (stages.gcov_dir).
    remove('*.json', 'coverage-*.info')
    run.join('userland-build')
    run.stage('kunit', sys.executable, script('kunit_layer.py'), o.filter)
    if 'userland-build' not in run.failed:
        run.stage('userland', sys.executable, script('userland_layer.py'))
    if o.libevent == '1':
        run.join('libevent-build')
        if not {'userland-build', 'libevent-build'} & set(run.failed):
            run.stage('libevent', py, script('libevent.py'), 'run')
    coverage = targets.target(o.target).coverage
    if coverage:
        capture = [py, os.path.join(REPO, 'coverage', 'capture.py')]
        # Each layer's data are its own boots': the captures side by side.
        kunit = subprocess.Popen([*capture, 'kunit'])
        stages.run_child([*capture, 'userland'])
        stages.wait_child(kunit)
        cov = ['kunit', 'userland']
        # --libevent: the kevent lines libevent's suite reaches, a layer
        # of its own.
        if o.libevent == '1' and stages.run_child([*capture, 'libevent']) == 0:
            cov.append('libevent')
        run.stage('coverage', *capture, 'report', *cov)
    if o.lint:
        run.join('lint')
    layers = 'kunit,userland' + (',libevent' if o.libevent == '1' else '')
    run.summary(layers, layers + ',all', floors=coverage, show_failed=True)


def main(argv):
    # time: what a run costs, beside kunit_tool's own build (its own
    # runs of ./run_tests.sh).
    if argv[:1] == ['time']:
        execute([py, script('timing.py'), *argv[1:]])
    try:
        o = parse(argv)
    except Usage as e:
        if str(e).startswith('unknown option'):
            print_usage(sys.stderr)
        print(f'error: {e}', file=sys.stderr)
        return 1
    # What the stages would refuse later, refused before the first.
    try:
        targets.from_env()
        stages.userland_args()
    except (ValueError, stages.StageError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    if o.json:
        o.json = os.path.realpath(o.json)
    env = os.environ
    env['JOBS'] = o.jobs
    if o.fuzz_ops is not None:
        env['FUZZ_OPS'] = o.fuzz_ops
    if o.fuzz_time is not None:
        env['FUZZ_TIME'] = o.fuzz_time
    if o.bench:
        env['SETUP_BENCH'] = '1'
    if o.libevent:
        env['SETUP_LIBEVENT'] = '1'
    # --prove-guards proves some guards in the SMP kernel too: QEMU.
    if o.smp or o.guards:
        env['SETUP_SMP'] = '1'
    env['KEVENT_TARGET'] = o.target
    run = Run(o)
    try:
        go(run, o)
    except (KeyboardInterrupt, SystemExit) as e:
        run.stop_beside()
        if isinstance(e, SystemExit) and e.code in (0, 1, None):
            raise           # the run's own end (Run.must)
        print('\nrun_tests.sh: interrupted', file=sys.stderr)
        return 130
    return 0


def go(run, o):
    """The stages of the run @o asks for, in order."""
    run.must('setup', script('setup.sh'))
    run.must('prepare', py, script('tree.py'), 'prepare')
    if o.guards and o.smp:
        Run.header('prove guards in the SMP kernel')
        run.must('smp-build', py, script('build.py'), 'kernel')
        execute([py, script('guards.py'), 'prove', '--smp'])
    if o.smp:
        smp_run(run, o)
    if o.tests:
        run.beside('userland-build', 'nice', '-n', '10', py, script('build.py'),
                   'userland')
        # Lint reads the sources and writes only its own build dir: beside
        # the kernel build and the boots, niced, reported last.  (The
        # tests' tight timing bounds are judged on the fastest of 5
        # tries, userland/tests/common.h, so lint beside the boots does
        # not fail them.)
        if o.lint:
            run.beside('lint', 'nice', '-n', '19', py, script('lint.py'))
        # libevent's build needs the tree, not the kernel (its configure
        # is one long serial job; cold, it takes minutes).
        if o.libevent == '1':
            run.beside('libevent-build', 'nice', '-n', '19', py,
                       script('libevent.py'), 'build')
    run.must('build', py, script('build.py'), 'kernel')
    if o.guards and o.fuzz:
        Run.header('prove that the fuzzer finds the guarded defects')
        execute([py, script('guards.py'), 'prove-fuzz'])
    if o.guards:
        Run.header('prove guards')
        execute([py, script('guards.py'), 'prove'])
    if o.bench:
        bench_run(o)
    if o.fuzz:
        remove('fuzz.json')
        run.stage('userland-build', py, script('build.py'), 'userland')
        run.stage('fuzz', py, script('fuzz.py'), 'run', *o.fuzz.split(','))
        run.summary('fuzz', 'fuzz')
    if o.libevent == 'bench':
        then(py, script('build.py'), 'userland')
        Run.header('libevent benchmark')
        execute([py, script('libevent.py'), 'bench'])
    if o.libevent == 'only':
        remove('libevent.json')
        run.stage('userland-build', py, script('build.py'), 'userland')
        run.stage('libevent', py, script('libevent.py'), 'run')
        run.summary('libevent', '')
    if o.shell:
        then(py, script('build.py'), 'userland')
        Run.header("booting UML to a shell ('poweroff' ends it)")
        execute([py, script('boot.py'), 'shell'])
    tests_run(run, o)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

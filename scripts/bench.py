#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmarks (./run_tests.sh --bench), in the build without coverage
(target plain: gcov would weigh on the paths measured).

  kernel [--save DIR | --base DIR] [GLOB]
        the in-kernel benchmark, the KUnit suite kevent_bench
        (kunit/kevent_bench.c), through kunit_tool; bench_kernel.py turns
        its '# bench:' lines into tables: .work/results/bench/kernel.{csv,md}.
        BENCH_RUNS=N boots it N times (default 9), one after the other: the
        tables give, for every figure and ratio, the median over the runs
        of each run's own, and the validity gate needs 5 runs or more
        (kernel-1.log ... kernel-N.log are kept).  GLOB is a glob within
        the suite (e.g. 'kevent_bench.bench_pipes').
        --save DIR  copy this build's kernel to DIR (a base for --base),
                    and run nothing
        --base DIR  a kernel saved with --save: boot it and this build's
                    in turn, BENCH_RUNS times each (which goes first swaps
                    every pair), and compare them run by run (base-N.log
                    are its logs; kernel.md begins with the comparison)
  user [ARG...]
        the user-space benchmark, userland/bench/kevent-bench, in one boot
        (its arguments, e.g. --reps 3 --sizes 10,100); bench_report.py
        makes its tables and plots: .work/results/bench/ (raw.csv,
        bench.csv, bench.md, *.png).

Timeout of a boot: BENCH_TIMEOUT (seconds, default 1800).
"""
import glob
import os
import shutil
import subprocess
import sys
import time

import stages
import targets

OUT = os.path.join(stages.RESULTS, 'bench')
# What kunit.py exec reads of a build dir to boot it again (linux,
# .kunitconfig), and the configuration it was built with, for the record.
SAVED = ('linux', '.config', '.kunitconfig')


class BenchError(stages.StageError):
    """What stops a benchmark, with what to do."""


def parse_kernel_args(argv):
    """(save, base, glob) of `kernel`'s arguments."""
    save = base = None
    pattern = 'kevent_bench'
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ('--save', '--base'):
            if not args or not args[0]:
                raise BenchError(f'{a} needs a directory')
            if save or base:
                raise BenchError('--save and --base go one at a time, once')
            if a == '--save':
                save = args.pop(0)
            else:
                base = args.pop(0)
        elif a.startswith('-'):
            raise BenchError(f'bench.py kernel: unknown option {a}')
        else:
            pattern = a
    return save, base, pattern


def runs():
    """BENCH_RUNS as a number of runs."""
    value = os.environ.get('BENCH_RUNS', '9')
    if not value.isdigit() or int(value) < 1:
        raise BenchError(f"BENCH_RUNS must be a number of runs (1 or more), not '{value}'")
    return int(value)


def boot(build, name, run, n, pattern, several, base):
    """Boot the kernel of @build once; its log becomes OUT/NAME.log and
    OUT/NAME-RUN.log (@name: kernel, or base for the saved one)."""
    if several:
        print(f'in-kernel benchmark: {name}, run {run} of {n}', flush=True)
    parsed = os.path.join(OUT, f'{name}-parsed.txt')
    started = time.time()
    # One boot: kunit_tool's output as it comes.
    rc = stages.tee_group([sys.executable, stages.KUNIT_PY, 'exec', '--arch', 'um',
                           '--build_dir', build, '--timeout',
                           os.environ.get('BENCH_TIMEOUT', '1800'), pattern],
                          parsed, echo=not several, stderr=None)
    log = os.path.join(OUT, f'{name}.log')
    if os.path.exists(log):
        os.remove(log)
    if os.path.exists(os.path.join(build, 'test.log')) and \
            os.path.getmtime(os.path.join(build, 'test.log')) >= started:
        shutil.copy(os.path.join(build, 'test.log'), log)
    else:
        rc = rc or 1            # no kernel log of this boot
    if rc:
        again = f'scripts/bench_kernel.py {OUT}/kernel-[0-9]*.log'
        if base:
            again += f' --base {OUT}/base-[0-9]*.log'
        raise BenchError(f'the in-kernel benchmark failed in run {run} of {name} '
                         f'(kernel log: {log}, kunit_tool: {parsed}; the runs '
                         f'before it: {again})')
    if stages.logscan.main([log, 'bench']):
        raise BenchError(f'a kernel report in run {run} of {name} (kernel log: {log})')
    shutil.copy(log, os.path.join(OUT, f'{name}-{run}.log'))


def kernel(argv):
    """`kernel`; the exit status."""
    save, base, pattern = parse_kernel_args(argv)
    t = targets.from_env('plain')
    if t.name != 'plain':
        raise BenchError('the benchmark runs in the build without coverage '
                         '(KEVENT_TARGET=plain)')
    build = os.path.join(stages.WORK, t.build)
    if save:
        os.makedirs(save, exist_ok=True)
        for f in SAVED:
            if not os.path.exists(os.path.join(build, f)):
                raise BenchError(f'no {build}/{f}: build the kernel first '
                                 '(./run_tests.sh --bench kernel builds it)')
            shutil.copy2(os.path.join(build, f), save)
        print(f"saved this build's kernel to {save}: change the code, then "
              f'--bench-base {save}')
        return 0
    if base:
        for f in SAVED:
            if not os.path.isfile(os.path.join(base, f)):
                raise BenchError(f'no {base}/{f}: save a base kernel first '
                                 f'(./run_tests.sh --bench kernel --bench-save {base})')
        base = os.path.realpath(base)
    n = runs()
    os.makedirs(OUT, exist_ok=True)
    for f in glob.glob(os.path.join(OUT, 'kernel-[0-9]*.log')) + \
            glob.glob(os.path.join(OUT, 'base-[0-9]*.log')) + \
            glob.glob(os.path.join(OUT, 'kernel.csv')) + glob.glob(os.path.join(OUT, 'kernel.md')):
        os.remove(f)
    several = n > 1 or bool(base)
    logs, bases = [], []
    for i in range(1, n + 1):
        order = [(build, 'kernel')]
        if base:
            # Which goes first swaps every pair.
            order = [(base, 'base'), (build, 'kernel')] if i % 2 else \
                [(build, 'kernel'), (base, 'base')]
        for b, name in order:
            boot(b, name, i, n, pattern, several, base)
        logs.append(os.path.join(OUT, f'kernel-{i}.log'))
        if base:
            bases.append(os.path.join(OUT, f'base-{i}.log'))
    return subprocess.run([sys.executable, os.path.join(stages.SCRIPTS, 'bench_kernel.py'),
                           *logs, *(['--base', *bases] if bases else []),
                           '--csv', os.path.join(OUT, 'kernel.csv'),
                           '--md', os.path.join(OUT, 'kernel.md')],
                          check=False).returncode


def user(argv):
    """`user`; the exit status."""
    t = targets.from_env('plain')
    program = os.path.join(stages.USERLAND_OUT, 'bench', 'kevent-bench')
    if not os.access(program, os.X_OK):
        raise BenchError('no benchmark program: run scripts/build.py userland')
    os.makedirs(OUT, exist_ok=True)
    raw = os.path.join(OUT, 'raw.csv')
    if os.path.exists(raw):
        os.remove(raw)
    # The command line carries the command; hostfs carries the results back.
    command = ' '.join(['/bench/kevent-bench', '--out', '/host/raw.csv', *argv])
    cmd = stages.uml_command(t.name, ['mem=1G', 'kunit.enable=0', 'quiet', 'INIT_SHELL=1',
                                      f'INIT_HOST={OUT}', f'INIT_CMD="{command}"'],
                             int(os.environ.get('BENCH_TIMEOUT', '1800')))
    console = os.path.join(OUT, 'console.log')
    stages.tee_group(cmd, console, stdin=subprocess.DEVNULL)
    if not (os.path.exists(raw) and os.path.getsize(raw)):
        raise BenchError(f'the benchmark wrote no results (console: {console})')
    return subprocess.run([sys.executable, os.path.join(stages.SCRIPTS, 'bench_report.py'),
                           OUT], check=False).returncode


def main(argv):
    if not argv or argv[0] not in ('kernel', 'user'):
        print(__doc__[__doc__.index('  kernel'):__doc__.index('Timeout')].rstrip(),
              file=sys.stderr)
        return 2
    return kernel(argv[1:]) if argv[0] == 'kernel' else user(argv[1:])


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

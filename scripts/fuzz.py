#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The fuzzing layer: kevent-fuzz (userland/fuzz/kevent-fuzz.c) in the
debug UML, one boot per seed.

run: each seed is one test of the layer "fuzz": its KTAP goes to
.work/results/fuzz.ktap and, through kunit_tool, to fuzz.json; the
consoles to .work/results/fuzz/.  A finding prints its seed, what the
fuzzer printed, and the command that replays it, then is reduced (below;
FUZZ_REDUCE=0 skips that).  Then the first seed runs again in the
coverage build, when there is one, for FUZZ_COVERAGE_TIME seconds
(default 30; 0 skips), and coverage/capture.py makes that the coverage
layer "fuzz".  Fails when any seed found something.

A boot's verdict (once) is one of:
  ok                     the fuzzer's result line says ok, the log is clean
  finding: WHAT          a FINDING line of the fuzzer
  kernel-report: LINE    a report in the kernel log (scripts/logscan.py)
  hang: ...              the UML stopped answering (killed)
  crash: ...             the UML died without a result
Soft lockups are reported after 10 s (watchdog_thresh=5), hung tasks
after 20 s (configs/debug.config).

reduce: halve the operation budget while the seed still finds something,
then drop the kinds of operations it does not need, then try one thread;
print the smallest reproducer and replay it once with --trace, so the
console shows every operation up to the finding.  Races may not
reproduce every time: each step is one boot (FUZZ_REDUCE_BOOTS bounds
them, default 12), and a step that loses the finding is undone.

FUZZ_OPS (operations per seed, default 100000) and FUZZ_TIME (seconds
per seed, default 60; the boot gets 2 minutes more) bound each run.

Usage: fuzz.py run SEED...        (a seed "time" is replaced by the clock)
       fuzz.py once LOG FUZZ-ARGUMENTS...   one boot; prints its verdict,
                                  exit status 0 for ok
       fuzz.py reduce SEED OPS
"""
import os
import re
import subprocess
import sys
import time

import logscan
import stages

K_NR = 16               # the kinds of operations (K_NR in kevent-fuzz.c)
THREADS = 4             # kevent-fuzz's default --threads
TRACE_MAX_OPS = 20000   # a longer --trace replay would flood the console


def budget():
    """(operations per seed, seconds per seed) from the environment."""
    return (positive(os.environ.get('FUZZ_OPS') or '100000', 'FUZZ_OPS'),
            positive(os.environ.get('FUZZ_TIME') or '60', 'FUZZ_TIME'))


def positive(word, what):
    """@word as a positive number; ValueError names @what."""
    if not re.fullmatch(r'[0-9]+', word) or int(word) == 0:
        raise ValueError(f"{what} wants a positive number, not '{word}'")
    return int(word)


def judge(console, rc, secs):
    """The verdict of a boot whose console is @console (text) and whose
    exit status is @rc, the fuzzer bounded by @secs seconds."""
    killed = rc in (124, 137)
    m = re.search(r'kevent-fuzz: FINDING (.*)', console)
    if m:
        # A FINDING printed before the UML stopped answering names the
        # cause (a call that ignores SIGKILL keeps the fuzzer from
        # exiting).
        v = f'finding: {m.group(1).rstrip()}'
        return v + '; then the UML stopped answering' if killed else v
    if killed:
        return f'hang: the UML stopped answering, killed after {secs + 120} s'
    found = logscan.reports(console.splitlines())
    if found:
        first = next(ln for ln in found if re.match(r'[0-9]+:', ln))
        return 'kernel-report: ' + first.split(':', 1)[1][:160]
    if 'kevent-fuzz: result ok' in console:
        return 'ok'
    if rc != 0:
        return f"crash: the UML exited with status {rc} before the fuzzer's result"
    m = re.search(r'.*kevent-init: fuzz.*', console)
    return ('crash: no result from the fuzzer '
            f"({m.group(0).strip() if m else 'no exit status'})")


def once(log, args):
    """One fuzzing boot of the debug UML with kevent-fuzz's @args, its
    console in @log; its verdict."""
    _, secs = budget()
    fuzz = ' '.join(['--time', str(secs), *args])
    try:
        rc = stages.boot_uml('debug', [
            'mem=512M', 'kunit.enable=0', 'watchdog_thresh=5',
            'INIT_KMEMLEAK=1', 'INIT_TOLERANCE_SCALE=5',
            f'INIT_TIMEOUT={secs + 60}', f'INIT_FUZZ="{fuzz}"'],
            log, secs + 120)
    except stages.StageError as e:
        with open(log, 'w') as f:       # no console from an earlier run
            f.write(f'{e}\n')
        return f'crash: {e}'
    with open(log, errors='replace') as f:
        return judge(f.read(), rc, secs)


def reduce(seed, ops):
    """Shrink the finding of @seed at @ops operations (see the module's
    text); prints the steps and the smallest reproducer."""
    log = os.path.join(stages.RESULTS, 'fuzz', f'reduce-{seed}.log')
    boots = [int(os.environ.get('FUZZ_REDUCE_BOOTS', '12'))]

    def reproduces(n, kinds, threads):
        if boots[0] <= 0:
            return False
        boots[0] -= 1
        return once(log, ['--seed', str(seed), '--ops', str(n), '--kinds',
                          str(kinds), '--threads', str(threads)]) != 'ok'

    kinds, threads = (1 << K_NR) - 1, THREADS
    print(f'fuzz: reducing seed {seed} ({ops} operations)', flush=True)
    while ops > 16 and reproduces(ops // 2, kinds, threads):
        ops //= 2
        print(f'  still found with {ops} operations', flush=True)
    for k in range(K_NR):
        bit = 1 << k
        if not kinds & bit or not kinds & ~bit:
            continue
        if reproduces(ops, kinds & ~bit, threads):
            kinds &= ~bit
            print(f'  still found without operation kind {k}', flush=True)
    if reproduces(ops, kinds, 1):
        threads = 1
    repro = (f'kevent-fuzz --seed {seed} --ops {ops} --kinds {kinds:#x} '
             f'--threads {threads}')
    print(f'fuzz: smallest reproducer found: {repro}\n'
          f'  (./run_tests.sh --fuzz {seed} --fuzz-ops {ops} replays it with '
          'all kinds; in a\n'
          f'   shell of the debug UML: /fuzz/{repro})')
    if ops > TRACE_MAX_OPS:
        print(f'  (no --trace replay: {ops} operations would flood the console)')
        return
    once(log + '.trace', ['--seed', str(seed), '--ops', str(ops), '--kinds',
                          str(kinds), '--threads', str(threads), '--trace'])
    print(f'  the last operations before the finding (--trace replay, '
          f'{log}.trace):')
    with open(log + '.trace', errors='replace') as f:
        ops_seen = [ln.rstrip('\n') for ln in f
                    if re.search(r'kevent-fuzz: (op |FINDING)', ln)]
    for ln in ops_seen[-20:]:
        print(f'  | {ln}')


def seed_of(word):
    """A seed of the command line: a positive number, or 'time'."""
    if word == 'time':
        return int(time.time())
    if not re.fullmatch(r'[0-9]+', word) or int(word) == 0:
        raise ValueError(f"a fuzzing seed is a positive number, not '{word}'")
    return int(word)


def excerpt(console):
    """The fuzzer's lines from its FINDING to its result, at most 120."""
    m = re.search(r'^.*kevent-fuzz: FINDING', console, re.M)
    if not m:
        return []
    lines = console[m.start():].splitlines()
    end = next((i for i, ln in enumerate(lines)
                if 'kevent-fuzz: result' in ln), len(lines) - 1)
    return lines[:end + 1][:120]


def coverage_run(seed, ops, secs):
    """The kevent lines and branches @seed reaches in the coverage build,
    as the coverage layer "fuzz"."""
    d = os.path.join(stages.RESULTS, 'fuzz')
    print(f'fuzz: coverage of seed {seed} for {secs} s (the coverage build)',
          flush=True)
    build_log = os.path.join(d, 'coverage-build.log')
    run_log = os.path.join(d, 'coverage-run.log')
    if stages.script('build.py', 'kernel', target='coverage', log=build_log):
        print(f'fuzz: no coverage for this run (the coverage build failed, '
              f'see {build_log})')
        return
    fuzz = f'--time {secs} --seed {seed} --ops {ops}'
    try:
        stages.boot_uml('coverage', [
            'mem=512M', 'kunit.enable=0', f'INIT_TIMEOUT={secs + 60}',
            f'INIT_FUZZ="{fuzz}"'], run_log, secs + 120,
            env={'GCOV_PREFIX': stages.gcov_dir('fuzz')})
    except stages.StageError as e:
        print(f'fuzz: no coverage for this run ({e})')
        return
    if stages.script(os.path.join(stages.REPO, 'coverage', 'capture.py'),
                     'fuzz', target='coverage',
                     log=os.path.join(d, 'coverage-capture.log')):
        print(f'fuzz: no coverage for this run (see {run_log})')


def run(words):
    """The layer: each seed of @words in turn; the exit status."""
    seeds = [seed_of(w) for w in words if w] or [1]
    ops, secs = budget()
    d = os.path.join(stages.RESULTS, 'fuzz')
    os.makedirs(d, exist_ok=True)
    ktap = ['KTAP version 1', f'1..{len(seeds)}']
    failed = False
    for i, seed in enumerate(seeds, 1):
        print(f'fuzz: seed {seed}, {ops} operations, at most {secs} s '
              '(debug UML)', flush=True)
        log = os.path.join(d, f'seed-{seed}.log')
        v = once(log, ['--seed', str(seed), '--ops', str(ops)])
        with open(log, errors='replace') as f:
            console = f.read()
        for ln in re.findall(r'.*kevent-fuzz: [0-9]+ operations in.*', console):
            print(f'  {ln}')
        if v == 'ok':
            print(f'  ok (console: {log})')
            ktap.append(f'ok {i} seed_{seed}')
            continue
        failed = True
        print(f'  {v}')
        for ln in excerpt(console):
            print(f'  | {ln}')
        print(f'  replay: ./run_tests.sh --fuzz {seed} --fuzz-ops {ops}   '
              f'(console: {log})', flush=True)
        ktap.append(f'not ok {i} seed_{seed} # {v}')
        if os.environ.get('FUZZ_REDUCE', '1') == '1':
            reduce(seed, ops)
    with open(os.path.join(stages.RESULTS, 'fuzz.ktap'), 'w') as f:
        f.write('\n'.join(ktap) + '\n')
    with open(os.path.join(stages.RESULTS, 'fuzz-parsed.txt'), 'w') as f:
        subprocess.run([sys.executable, stages.KUNIT_PY, 'parse',
                        '--json=' + os.path.join(stages.RESULTS, 'fuzz.json'),
                        os.path.join(stages.RESULTS, 'fuzz.ktap')],
                       stdout=f, stderr=subprocess.STDOUT)
    cov = os.path.join(stages.RESULTS, 'coverage-fuzz.info')
    if os.path.exists(cov):
        os.remove(cov)
    cov_secs = int(os.environ.get('FUZZ_COVERAGE_TIME', '30'))
    if cov_secs and os.access(stages.kernel('coverage'), os.X_OK):
        coverage_run(seeds[0], ops, cov_secs)
    if failed:
        print('error: fuzzing found something (above)', file=sys.stderr)
        return 1
    print(f'fuzz: {len(seeds)} seeds, no finding')
    return 0


def main(argv):
    usage = __doc__[__doc__.index('Usage:'):].rstrip()
    cmd, args = (argv[0], argv[1:]) if argv else ('', [])
    try:
        if cmd == 'run':
            return run(args)
        if cmd == 'once' and args:
            v = once(args[0], args[1:])
            print(v)
            return 0 if v == 'ok' else 1
        if cmd == 'reduce' and len(args) == 2:
            reduce(seed_of(args[0]), int(args[1]))
            return 0
    except ValueError as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    print(usage, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

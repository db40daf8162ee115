#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Coverage of the kevent sources, per coverage layer (the boots of one
test layer, or of the shell, or of the fuzzer).

A boot of the coverage kernel writes its .gcda files at power-off under
the directory stages.gcov_dir() gave it (UML's libgcov puts GCOV_PREFIX
before the build path), one per layer and part, so that boots side by
side keep their data apart.

  capture.py reset [LAYER]   delete the data of LAYER (or all)
  capture.py LAYER           capture the data of LAYER's boots into
                             .work/results/coverage-LAYER.info
  capture.py report L...     combine the layers and write coverage/html/:
                             index.html (index.py), all/, and one folder
                             per layer (genhtml)
"""
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'scripts'))
import stages  # noqa: E402
import targets  # noqa: E402

GCOV_DATA = os.path.join(stages.RESULTS, 'gcov')
HTML = os.path.join(HERE, 'html')


class CoverageError(stages.StageError):
    """What the report cannot be made without."""


def lcov(*args, **kw):
    """lcov, quiet, with branch coverage; its exit status."""
    return subprocess.run(['lcov', '--quiet', '--rc', 'lcov_branch_coverage=1', *args],
                          check=False, **kw).returncode


def info(layer):
    """The tracefile of @layer."""
    return os.path.join(stages.RESULTS, f'coverage-{layer}.info')


def capture(layer):
    """One lcov capture of every boot's data of @layer, keeping the kevent
    sources and not the tests that drive them; then one pass that adds up
    what the boots counted for the same source file."""
    build = os.path.join(stages.WORK, targets.target('coverage').build)
    kevent = os.path.join(build, 'kernel', 'kevent')
    out = info(layer)
    for f in glob.glob(out) + glob.glob(out + '.*'):
        os.remove(f)
    dirs = []
    for part in sorted(glob.glob(os.path.join(GCOV_DATA, layer, '*', ''))):
        data = os.path.join(part, kevent.lstrip('/'))
        if not glob.glob(os.path.join(data, '**', '*.gcda'), recursive=True):
            continue
        # lcov reads each .gcda beside its .gcno, which the build has.
        for gcno in glob.glob(os.path.join(kevent, '**', '*.gcno'), recursive=True):
            dest = os.path.join(data, os.path.relpath(gcno, kevent))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(gcno, dest)
        dirs += ['--directory', data]
    if not dirs:
        raise CoverageError(f'no .gcda files after the {layer} run: was the kernel '
                            'built with coverage and powered off cleanly?')
    log = os.path.join(stages.RESULTS, f'lcov-{layer}.log')
    with open(log, 'w') as f:
        if lcov('--capture', '--test-name', layer, *dirs,
                '--include', '*/kernel/kevent/*', '--exclude', '*/kernel/kevent/kunit/*',
                '-o', out + '.raw', stderr=f):
            raise CoverageError(f'lcov capture failed (see {log})')
    if lcov('-a', out + '.raw', '-o', out):
        raise CoverageError(f'lcov could not add up {out}.raw')
    os.remove(out + '.raw')


def report(layers):
    """coverage/html: index.html, the union's genhtml report and each
    layer's, side by side."""
    have = [l for l in layers if os.path.exists(info(l)) and os.path.getsize(info(l))]
    if not have:
        raise CoverageError('no coverage data captured')
    args = [a for l in have for a in ('-a', info(l))]
    if lcov(*args, '-o', info('all')):
        raise CoverageError('lcov could not combine the layers')
    shutil.rmtree(HTML, ignore_errors=True)
    procs = {}
    for layer in ['all'] + have:
        procs[layer] = subprocess.Popen(
            ['genhtml', '--quiet', '--branch-coverage', '--legend', '--title',
             f'kevent (UML 6.12): {layer}', '--prefix', stages.TREE,
             '-o', os.path.join(HTML, layer), info(layer)], start_new_session=True)
    failed = [layer for layer, p in zip(procs, stages.wait_groups(list(procs.values()))) if p]
    if failed:
        raise CoverageError(f"genhtml failed for {', '.join(failed)}")
    if subprocess.run([sys.executable, os.path.join(HERE, 'index.py'),
                       '--results', stages.RESULTS, '--tree', stages.TREE,
                       '--out', HTML], check=False).returncode:
        raise CoverageError('the coverage report has broken links (above)')
    print('coverage: report in coverage/html/index.html')


def main(argv):
    if not argv:
        print(__doc__[__doc__.index('  capture.py'):].rstrip(), file=sys.stderr)
        return 2
    if argv[0] == 'reset' and len(argv) <= 2:
        shutil.rmtree(os.path.join(GCOV_DATA, *argv[1:]), ignore_errors=True)
    elif argv[0] == 'report':
        report(argv[1:])
    elif len(argv) == 1:
        capture(argv[0])
    else:
        print(__doc__[__doc__.index('  capture.py'):].rstrip(), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

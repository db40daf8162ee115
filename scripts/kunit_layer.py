#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The KUnit layer of a target: kevent's suites through kunit_tool, as a
library (its modules from the prepared tree, as kunit.py imports them),
in the built UML kernel or, for an x86_64 target, in QEMU with
kunit_tool's --qemu_config (configs/qemu_x86_64_smp.py: 4 vCPUs under
multi-threaded TCG).

kunit_tool boots the kernel, parses its KTAP and writes the layer's
KernelCI JSON; its output also goes to .work/results/LAYER-parsed.txt.
Then the kernel log is judged (scripts/logscan.py; for x86_64, every
vCPU online, a hardware clock and the KCSAN reports listed) and the
layer's verdict word written (scripts/stages.py: passed, failed,
report, crashed).  A UML boot writes its gcov data apart (stages.gcov_dir).

The layer is 'kunit' for a UML target, 'smp-kunit' for an x86_64 one;
the console is .work/results/kunit-console.log or TARGET-kunit-console.log.

Usage: kunit_layer.py [GLOB]   in the target KEVENT_TARGET names
(default coverage); GLOB selects suites or tests (default kevent*).
Timeouts: KUNIT_TIMEOUT, SMP_KUNIT_TIMEOUT (seconds, default 600).
"""
import os
import shutil
import sys

import stages
import targets


def exec_kunit(t, glob, json_path, parsed):
    """kunit_tool's exec of @t's build (printed, and copied to @parsed);
    whether every test passed."""
    build = os.path.join(stages.WORK, t.build)
    timeout = os.environ.get('SMP_KUNIT_TIMEOUT' if t.qemu else 'KUNIT_TIMEOUT',
                             '600')
    def call(kunit, kunit_kernel):
        linux = kunit_kernel.LinuxSourceTree(
            build, arch=t.arch, qemu_config_path=t.qemu_config() or None,
            extra_qemu_args=[])
        request = kunit.KunitExecRequest(
            raw_output=None, json=json_path, build_dir=build,
            timeout=int(timeout), filter_glob=glob, filter=stages.KUNIT_FILTER,
            filter_action=None, kernel_args=list(t.kunit_args),
            run_isolated=None, list_tests=False, list_tests_attr=False)
        return kunit.exec_tests(linux, request)
    return stages.kunit_tool_call(parsed, call)


def run(target, glob):
    """The layer; its exit status."""
    t = targets.target(target)
    layer = 'smp-kunit' if t.qemu else 'kunit'
    what = 'SMP KUnit' if t.qemu else 'KUnit'
    prefix = f'{t.name}-kunit' if t.qemu else 'kunit'
    build = os.path.join(stages.WORK, t.build)
    os.makedirs(stages.RESULTS, exist_ok=True)
    stages.clear_status(layer)
    stages.need_kernel(t)
    if not t.qemu:
        os.environ['GCOV_PREFIX'] = stages.gcov_dir('kunit')
    passed = exec_kunit(t, glob, os.path.join(stages.RESULTS, layer + '.json'),
                        os.path.join(stages.RESULTS, prefix + '-parsed.txt'))
    console = os.path.join(stages.RESULTS, prefix + '-console.log')
    try:
        shutil.copy(os.path.join(build, 'test.log'), console)
    except OSError:
        pass
    # A test that failed with a kernel report is a report.
    if stages.judge_log(t, layer, console, what):
        return 1
    if not passed:
        stages.set_status(layer, 'failed')
        return stages.fail(f'{what} tests failed (kernel log: {console})')
    stages.set_status(layer, 'passed')
    return 0


def main(argv):
    if len(argv) > 1 or argv[:1] in (['-h'], ['--help']):
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    target = targets.from_env().name
    return run(target, argv[0] if argv and argv[0] else stages.KUNIT_GLOB)


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

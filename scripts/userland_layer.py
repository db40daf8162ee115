#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The user-space layer of a target: init (userland/init.c) runs the
test programs of the initramfs and writes their KTAP, kunit_tool (as a
library) parses it into the layer's KernelCI JSON, and the layer fails on
a boot that hung or crashed, a failed test, a program without a result,
or a report in the kernel log.

UML targets: the programs run in USERLAND_PARTS boots side by side
(default 2, one per CPU; 1 when USERLAND_ARGS chooses a program with
INIT_ONLY), each with kunit.enable=0, its own console, KTAP file and
gcov data.  scripts/userland_parts.py shares the programs out by the
time each took in earlier whole runs (init's INIT_PROGRAMS; kept in
.work/results/userland-times-TARGET.txt), so the boots end together;
with no times yet, boot i runs the i-th run of consecutive programs
(INIT_PART=i/n).  scripts/ktap_merge.py joins the boots' KTAP, and the
layer's console is the boots' consoles one after the other.  A debug
kernel runs the KUnit suites in the first boot too (before init), so
kmemleak's scan at its end sees their objects as well, and widens the
tests' timing bounds 5 times.

x86_64 targets: one QEMU boot (kunit_tool's --qemu_config, without its
kunit_shutdown=reboot, so the kernel goes on to init) with the initramfs
as -initrd: the KUnit suites, then the programs, a kmemleak scan and a
reboot, which ends QEMU; init writes its KTAP to the second serial port,
which QEMU puts in a host file.

Usage: userland_layer.py   in the target KEVENT_TARGET names (default
coverage).  USERLAND_ARGS adds kernel arguments (e.g. INIT_ONLY=PROGRAM
INIT_TEST=NAME); USERLAND_TIMEOUT, SMP_USERLAND_TIMEOUT (seconds: 900,
600), USERLAND_PARTS, SMP_TOLERANCE_SCALE (5) change the boots.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import traceback

import ktap_merge
import stages
import targets
import userland_parts

KILLED = (124, 137)     # timeout(1): the boot outlived its timeout


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return ''


def problem_of(machine, rc, console, ktap, timeout, where):
    """What went wrong with one boot of @machine (UML or QEMU): its exit
    status @rc, the texts of its @console and its @ktap, its @timeout;
    (problem, verdict word), ('', ...) when nothing did."""
    if rc in KILLED:
        return f'the {machine} boot hung: killed after {timeout} s', 'hung'
    if 'Kernel panic' in console:
        problem = f'kernel panic (see {where})'
    elif rc != 0:
        problem = f'{machine} exited with status {rc} (see {where})'
    elif machine == 'QEMU' and 'kevent-init: done, powering off' not in console:
        problem = f'init did not finish (see {where})'
    elif not ktap:
        problem = f'no user-space results were written (see {where})'
    else:
        problem = ''
    return problem, 'crashed'


def without_result(doc, programs):
    """The first of @programs without a result line in the KTAP @doc (a
    boot whose init left one out of its share), or None."""
    return next((p for p in programs if not re.search(
        rf'^(not )?ok [0-9]+ {re.escape(p)}( |$)', doc, re.M)), None)


def uml_boots(t, extra):
    """Boot the parts of a UML target side by side, and join their KTAP;
    (console, KTAP file, programs, problem, verdict)."""
    timeout = int(os.environ.get('USERLAND_TIMEOUT', '900'))
    cpus = len(os.sched_getaffinity(0))
    parts = os.environ.get('USERLAND_PARTS') or str(1 if cpus < 2 else 2)
    if any(a.startswith('INIT_ONLY=') for a in extra):
        parts = '1'
    if not parts.isdigit() or int(parts) == 0:
        raise ValueError(f"USERLAND_PARTS wants a positive number, not '{parts}'")
    parts = int(parts)
    hostfs = os.path.join(stages.RESULTS, 'hostfs')
    times = os.path.join(stages.RESULTS, f'userland-times-{t.name}.txt')
    programs = [] if extra else sorted(
        os.listdir(os.path.join(stages.USERLAND_OUT, 'tests')))
    shares = []
    if parts > 1 and programs:
        shares = [','.join(p) for p in userland_parts.split(
            userland_parts.read_times(times), parts, programs)]
        for i, share in enumerate(shares):
            print(f"userland: boot {i + 1}: {share.replace(',', ' ')}")
    sys.stdout.flush()
    shutil.rmtree(os.path.join(stages.RESULTS, 'gcov', 'userland'),
                  ignore_errors=True)
    boots = []
    for i in range(parts):
        d = os.path.join(hostfs, str(i))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        args = ['kunit.enable=0']
        if t.debug:
            args = (stages.KUNIT_BOOT_ARGS if i == 0 else args) + [
                'INIT_KMEMLEAK=1', 'INIT_TOLERANCE_SCALE=5']
        share = (f'INIT_PROGRAMS={shares[i]}' if len(shares) == parts
                 else f'INIT_PART={i}/{parts}')
        cmd = stages.uml_command(t.name, ['mem=512M', *args, *extra, share,
                                          f'INIT_RESULTS={d}',
                                          f'INIT_TIMEOUT={timeout - 30}'],
                                 timeout)
        log = open(os.path.join(d, 'console.log'), 'w')
        env = dict(os.environ, GCOV_PREFIX=stages.gcov_dir('userland', i))
        boots.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT, env=env,
                                      start_new_session=True))
        log.close()
    rcs = stages.wait_groups(boots)
    consoles = [read(os.path.join(hostfs, str(i), 'console.log'))
                for i in range(parts)]
    if programs:
        userland_parts.write_times(times, userland_parts.record(
            userland_parts.read_times(times), consoles))
    console = os.path.join(stages.RESULTS, 'userland-console.log')
    with open(console, 'w') as f:
        for i in range(parts):
            if parts > 1:
                f.write(f'==> user-space boot {i + 1} of {parts}\n')
            f.write(consoles[i])
    ktaps = [read(os.path.join(hostfs, str(i), 'userland.ktap'))
             for i in range(parts)]
    for i in range(parts):
        problem, verdict = problem_of('UML', rcs[i], consoles[i], ktaps[i],
                                      timeout, console)
        if problem:
            break
    ktap = os.path.join(stages.RESULTS, 'userland.ktap')
    doc, lost = ktap_merge.merge(ktaps)
    with open(ktap, 'w') as f:
        f.write(doc)
    for p in lost:
        print(f'ktap_merge: {p}', file=sys.stderr)
    if lost and not problem:
        problem = f'a user-space boot wrote no KTAP plan (see {console})'
    return console, ktap, programs, problem, verdict


def qemu_boot(t, extra):
    """The one QEMU boot of an x86_64 target; (console, KTAP file,
    programs, problem, verdict)."""
    timeout = int(os.environ.get('SMP_USERLAND_TIMEOUT', '600'))
    console = os.path.join(stages.RESULTS, f'{t.name}-userland-console.log')
    ktap = os.path.join(stages.RESULTS, f'{t.name}-userland.ktap')
    if os.path.exists(ktap):
        os.remove(ktap)
    # configs/qemu_x86_64_smp.py reads these when kunit_tool loads it.
    os.environ['KEVENT_QEMU_INITRD'] = os.path.join(stages.USERLAND_OUT,
                                                    'initramfs.cpio')
    os.environ['KEVENT_QEMU_RESULTS'] = ktap
    args = stages.KUNIT_BOOT_ARGS + [
        'INIT_KMEMLEAK=1', 'INIT_REBOOT=1',
        f"INIT_TOLERANCE_SCALE={os.environ.get('SMP_TOLERANCE_SCALE', '5')}",
        'INIT_RESULTS=/dev/ttyS1', f'INIT_TIMEOUT={timeout // 4}', *extra]
    cmd = stages.qemu_command(t, args)
    print('booting: ' + ' '.join(shlex.quote(c) for c in cmd), flush=True)
    with open(console, 'w') as f:
        rc = stages.run_group(['timeout', '--kill-after=10', str(timeout), *cmd],
                              stdin=subprocess.DEVNULL, stdout=f,
                              stderr=subprocess.STDOUT)
    if not os.path.exists(ktap):
        open(ktap, 'w').close()
    problem, verdict = problem_of('QEMU', rc, read(console), read(ktap),
                                  timeout, console)
    return console, ktap, [], problem, verdict


def parse(ktap, json_path, parsed):
    """kunit_tool's parse of the KTAP file @ktap into @json_path (printed,
    and copied to @parsed); whether every test passed."""
    with stages.kunit_tool(parsed) as (kunit, _):
        try:
            import kunit_json  # pylint: disable=import-outside-toplevel
            with open(ktap, errors='backslashreplace') as f:
                lines = f.read().splitlines()
            request = kunit.KunitParseRequest(raw_output=None, json=json_path)
            result, _ = kunit.parse_tests(request, kunit_json.Metadata(), lines)
            return result.status == kunit.KunitStatus.SUCCESS
        except Exception:           # pylint: disable=broad-except
            traceback.print_exc(file=sys.stdout)
            return False


def run(target):
    """The layer; its exit status."""
    t = targets.target(target)
    layer = 'smp-userland' if t.qemu else 'userland'
    what = 'SMP user space' if t.qemu else 'user space'
    prefix = f'{t.name}-userland' if t.qemu else 'userland'
    os.makedirs(stages.RESULTS, exist_ok=True)
    stages.clear_status(layer)
    extra = stages.userland_args()
    stages.need_kernel(t)
    if not os.path.isfile(os.path.join(stages.USERLAND_OUT, 'initramfs.cpio')):
        return stages.fail('no initramfs: run scripts/build.py userland')
    boot = qemu_boot if t.qemu else uml_boots
    console, ktap, programs, problem, verdict = boot(t, extra)
    # Every program of the initramfs has its result line.
    doc = read(ktap)
    missing = without_result(doc, programs)
    if missing and not problem:
        problem = f'{missing} has no result: no boot ran it (see {console})'
    passed = parse(ktap, os.path.join(stages.RESULTS, layer + '.json'),
                   os.path.join(stages.RESULTS, prefix + '-parsed.txt'))
    if problem:
        stages.set_status(layer, verdict)
        print('\n'.join(read(console).splitlines()[-30:]), file=sys.stderr)
        return stages.fail(f'{what}: {problem}')
    if not passed:
        stages.set_status(layer, 'failed')
        return stages.fail(f'{what} tests failed (KTAP: {ktap})')
    if stages.judge_log(t, layer, console, what):
        return 1
    stages.set_status(layer, 'passed')
    return 0


def main(argv):
    if argv:
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    return run(targets.from_env().name)


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

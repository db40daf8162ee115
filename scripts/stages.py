#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the modules of the harness share: the paths, the jobs, a stage
run in a target in a process group of its own and stopped with the run,
a module's main without a traceback, a UML or QEMU boot, a layer's record
and the judging of its kernel log, and kunit_tool imported as a library.
Imported, not run.
"""
import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback

import logscan
import targets

REPO = targets.REPO
SCRIPTS = os.path.join(REPO, 'scripts')
WORK = os.environ.get('KEVENT_WORK') or os.path.join(REPO, '.work')
TREE = os.path.join(WORK, 'linux')
RESULTS = os.path.join(WORK, 'results')
USERLAND_OUT = os.path.join(WORK, 'userland')
KUNIT_PY = os.path.join(TREE, 'tools', 'testing', 'kunit', 'kunit.py')
# Parallel make jobs: JOBS (./run_tests.sh --jobs), else the CPUs this
# process may run on (as nproc counts them).
JOBS = os.environ.get('JOBS') or str(len(os.sched_getaffinity(0)))
# kbuild asks the compiler the same 27 questions at every make (1.9 s of a
# 7.3 s relink): kernel/patches/0013 keeps the answers in the build dir,
# for every make a stage runs, unless KBUILD_TRY_RUN_CACHE=0 asks again.
os.environ.setdefault('KBUILD_TRY_RUN_CACHE', '1')
# The KUnit suites of the test runs: kevent's, less the very slow ones (the
# benchmark, kevent_bench: ./run_tests.sh --bench).  kunit_tool takes them
# as a glob and a filter; a boot without kunit_tool as kernel arguments.
KUNIT_GLOB = 'kevent*'
KUNIT_FILTER = 'speed>very_slow'
KUNIT_BOOT_ARGS = [f'kunit.filter_glob={KUNIT_GLOB}',
                   f'kunit.filter={KUNIT_FILTER}']


class StageError(Exception):
    """What a stage cannot do without, with how to get it."""


def userland_args():
    """USERLAND_ARGS, more kernel and init arguments of the user-space
    boot, as a list; StageError for an old spelling of init's parameters
    (INIT_*, userland/init.c), which would reach init unread, and every
    program would run."""
    extra = os.environ.get('USERLAND_ARGS', '').split()
    if any(re.match(r'KEVENT_[A-Z_]+=', a) for a in extra):
        raise StageError(f"USERLAND_ARGS='{' '.join(extra)}': init's parameters are "
                         'INIT_* (INIT_ONLY=PROGRAM INIT_TEST=NAME, userland/init.c), '
                         'not KEVENT_*')
    return extra


def kernel(target):
    """The kernel @target boots (scripts/targets.py), in this work dir."""
    t = targets.target(target)
    return t.kernel(os.path.join(WORK, t.build))


def fail(message):
    """Print @message as an error; the exit status 1."""
    print(f'error: {message}', file=sys.stderr)
    return 1


def run_main(main):
    """sys.exit(run_main(main)) runs a module's main(argv): a problem it
    cannot go on with (StageError, ValueError, a program missing or
    failing) is one line of error and the exit status 1, and a Ctrl-C the
    exit status 130, not a traceback."""
    try:
        return main(sys.argv[1:])
    except KeyboardInterrupt:
        return 130              # what it started is stopped (wait_groups)
    except (ValueError, StageError) as e:
        return fail(str(e))
    except subprocess.CalledProcessError as e:
        cmd = e.cmd if isinstance(e.cmd, str) else ' '.join(map(str, e.cmd))
        return fail(f'{cmd} failed (exit status {e.returncode})')
    except OSError as e:
        if isinstance(e, FileNotFoundError) and e.filename and \
                os.sep not in str(e.filename):
            return fail(f'{e.filename} is missing: scripts/setup.sh installs what '
                        'the harness uses (./run_tests.sh runs it)')
        return fail(str(e))


def need_kernel(t):
    """StageError unless target @t's kernel is built and, for x86_64,
    QEMU is there."""
    if t.qemu and not shutil.which('qemu-system-x86_64'):
        raise StageError('qemu-system-x86_64 missing: apt-get install '
                         'qemu-system-x86 (./run_tests.sh --smp does)')
    if not os.path.exists(kernel(t.name)):
        raise StageError(f'no kernel at {kernel(t.name)}: build target '
                         f'{t.name} first (./run_tests.sh builds it)')


def command(path, *args):
    """The command that runs the program @path: a Python module with the
    harness's python3 (the one running this), anything else as it is."""
    return [sys.executable, path, *args] if path.endswith('.py') else [path, *args]


def _exit_on(signum, _frame):
    """SIGTERM or SIGHUP as SystemExit: what a stage started is stopped
    on the way out (wait_groups, wait_child), and files are restored."""
    raise SystemExit(128 + signum)


# Every stage imports this module: a CI cancel or a closed terminal stops
# a stage as an interrupt does.
for _sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, _exit_on)


def run_group(cmd, **kw):
    """Run @cmd in a process group of its own; its exit status (wait_groups)."""
    return wait_groups([subprocess.Popen(cmd, start_new_session=True, **kw)])[0]


def wait_groups(procs):
    """The exit statuses of @procs, each started in a process group of its
    own.  When this process is interrupted (Ctrl-C, or SIGTERM or SIGHUP
    turned into SystemExit), every group is stopped before the exception
    goes on: no make, UML or QEMU of a stage keeps running after it."""
    try:
        return [p.wait() for p in procs]
    except BaseException:
        stop_groups(procs)
        raise


def tee_group(cmd, log, echo=True, **kw):
    """Run @cmd in a process group of its own, its output (text; its
    stderr too unless @kw says otherwise) into the file @log and, when
    @echo, to this process's stdout as it comes; stopped with this process
    as wait_groups() says; its exit status."""
    kw.setdefault('stderr', subprocess.STDOUT)
    with open(log, 'w') as f:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, errors='replace',
                             start_new_session=True, **kw)
        try:
            for line in p.stdout:
                f.write(line)
                if echo:
                    sys.stdout.write(line)
                    sys.stdout.flush()
            return p.wait()
        except BaseException:
            stop_group(p)
            raise


def stop_groups(procs):
    """Stop the process groups of @procs: SIGTERM to all, SIGKILL to those
    left 5 s later."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
        for p in procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, sig)
        deadline = time.monotonic() + (wait or 0)
        left = []
        for p in procs:
            try:
                p.wait(None if wait is None else max(0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                left.append(p)
        procs = left
        if not procs:
            return


def stop_group(p):
    """Stop the process group of @p (stop_groups)."""
    stop_groups([p])


def wait_child(p):
    """The exit status of @p, a stage this process started in its own
    process group (so that a Ctrl-C at the terminal reaches it too).  Interrupted,
    this process waits for the stage to stop what it started (30 s, then
    SIGKILL), instead of killing it at once as subprocess.run() does: a
    killed stage could leave its boots running.  A SIGTERM or SIGHUP here is
    passed on to the stage."""
    try:
        return p.wait()
    except BaseException as e:
        if not isinstance(e, KeyboardInterrupt):
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise


def run_child(cmd, **kw):
    """Run @cmd (subprocess.Popen's arguments) as wait_child() says; its
    exit status."""
    return wait_child(subprocess.Popen(cmd, **kw))


def script(name, *args, target, log, env=None):
    """Run scripts/NAME (or a path) in @target, its output in the file
    @log, in a process group of its own (run_group); its exit status."""
    e = dict(os.environ, KEVENT_TARGET=target, **(env or {}))
    with open(log, 'w') as f:
        return run_group(command(os.path.join(SCRIPTS, name), *args),
                         stdin=subprocess.DEVNULL, stdout=f,
                         stderr=subprocess.STDOUT, env=e)


# A test layer's one record is RESULTS/LAYER.json: kunit_tool's KernelCI
# document of its tests, with the layer's verdict word in it ('verdict'),
# which results.py and guards.py read instead of the layer's messages or
# its exit status:
#   passed   every test passed and the kernel log is clean
#   failed   a test failed or did not run (the document says which)
#   report   a kernel report in the log (logscan.py exits 2 for it)
#   hung     the boot outlived its timeout and was killed
#   crashed  the kernel died, wrote no results, or lacked CPUs
# A record without tests ('sub_groups' and 'test_cases' absent) is a layer
# that wrote no results.
def record_path(layer):
    """The record of @layer."""
    return os.path.join(RESULTS, layer + '.json')


def read_record(layer):
    """@layer's record as a dict, or None."""
    try:
        with open(record_path(layer)) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def layer_status(layer):
    """The verdict word of @layer, 'none' when it has written none since
    clear_status()."""
    return (read_record(layer) or {}).get('verdict', 'none')


def set_status(layer, word):
    """Put @layer's verdict word into its record (made, without tests,
    when kunit_tool wrote none)."""
    doc = read_record(layer) or {'name': layer}
    doc['verdict'] = word
    os.makedirs(RESULTS, exist_ok=True)
    with open(record_path(layer) + '.new', 'w') as f:
        json.dump(doc, f, indent=4)
    os.replace(record_path(layer) + '.new', record_path(layer))


def clear_status(layer):
    """Forget @layer's record (a layer's first step)."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(record_path(layer))


def judge_log(t, layer, console, what):
    """Judge the kernel log @console of target @t (logscan.py; for x86_64,
    every vCPU online, a hardware clock and the KCSAN reports listed, with
    file:line from the build's vmlinux); write the layer's verdict unless
    the log is clean; logscan's exit status (0 clean, 2 a report)."""
    args = [console, what]
    if t.qemu:
        args = ['--smp', '--cpus', os.environ.get('KEVENT_QEMU_CPUS', '4'),
                '--vmlinux', os.path.join(WORK, t.build, 'vmlinux'),
                '--tree', TREE] + args
    rc = logscan.main(args)
    if rc:
        set_status(layer, 'report' if rc == 2 else 'crashed')
    return rc


class Tee:
    """A text stream that writes to two (the terminal and a file)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def write(self, s):
        self.a.write(s)
        self.b.write(s)
        return len(s)

    def flush(self):
        self.a.flush()
        self.b.flush()

    def isatty(self):
        """Not a terminal: no colour codes in the copy (as with tee)."""
        return False


@contextlib.contextmanager
def kunit_tool(copy):
    """kunit_tool's modules kunit and kunit_kernel, imported from the
    prepared tree as kunit.py imports them, in its folder as kunit.py
    runs; what they print also goes to the file @copy.  (kunit_tool's
    printer takes sys.stdout when it is first imported: one layer per
    process.)"""
    out, cwd = sys.stdout, os.getcwd()
    with open(copy, 'w') as f:
        sys.stdout = Tee(out, f)
        try:
            sys.path.insert(0, os.path.dirname(KUNIT_PY))
            import kunit            # pylint: disable=import-outside-toplevel
            import kunit_kernel     # pylint: disable=import-outside-toplevel
            os.chdir(TREE)
            yield kunit, kunit_kernel
        finally:
            sys.stdout.flush()
            sys.stdout = out
            os.chdir(cwd)


def kunit_tool_call(copy, call):
    """Call @call(kunit, kunit_kernel), a kunit_tool step that returns its
    KunitResult, within kunit_tool() (its output also in the file @copy);
    print its time as kunit.py does; whether it succeeded.  An exception of
    kunit_tool is printed and is a failure."""
    with kunit_tool(copy) as (kunit, kunit_kernel):
        try:
            result = call(kunit, kunit_kernel)
            kunit.stdout.print_with_timestamp(
                f'Elapsed time: {result.elapsed_time:.3f}s\n')
            return result.status == kunit.KunitStatus.SUCCESS
        except Exception:           # pylint: disable=broad-except
            traceback.print_exc(file=sys.stdout)
            return False


def uml_command(target, args, timeout=None, initramfs=None):
    """The command that boots @target's UML with the test initramfs (or
    @initramfs) and kernel arguments @args, killed after @timeout seconds
    unless it is None (the interactive shell); the console is its stdin
    and stdout."""
    uml = kernel(target)
    initramfs = initramfs or os.path.join(USERLAND_OUT, 'initramfs.cpio')
    if not os.access(uml, os.X_OK):
        raise StageError(f'no UML kernel at {uml}: run ./run_tests.sh once first')
    if not os.path.isfile(initramfs):
        raise StageError(f'no initramfs at {initramfs}: run scripts/build.py userland')
    cmd = [uml, f'initrd={initramfs}', 'rdinit=/init', 'con=null',
           'con0=fd:0,fd:1', *args]
    if timeout is None:
        return cmd
    return ['timeout', '--kill-after=10', str(timeout), *cmd]


def boot_uml(target, args, log, timeout, env=None, initramfs=None):
    """Boot as uml_command() says, the console in the file @log; the exit
    status, 124 or 137 when killed."""
    cmd = uml_command(target, args, timeout, initramfs)
    with open(log, 'w') as f:
        return run_group(cmd, stdin=subprocess.DEVNULL, stdout=f,
                         stderr=subprocess.STDOUT,
                         env=dict(os.environ, **(env or {})))


def qemu_command(t, args):
    """The QEMU command that boots x86_64 target @t's kernel with kernel
    arguments @args and goes on to init: the command kunit_tool's exec runs
    for the same config (configs/qemu_x86_64_smp.py, a QemuArchParams of
    kunit_tool's config format), without KUnit's kunit_shutdown=reboot.
    The config reads its KEVENT_QEMU_* environment when loaded here."""
    sys.path.insert(0, os.path.dirname(KUNIT_PY))
    try:
        spec = importlib.util.spec_from_file_location('kevent_qemu_config',
                                                      t.qemu_config())
        config = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(config)
    finally:
        sys.path.pop(0)
    p = config.QEMU_ARCH
    return ['qemu-system-' + p.qemu_arch, '-nodefaults', '-m', '1024',
            '-kernel', os.path.join(WORK, t.build, p.kernel_path),
            '-append', ' '.join(list(args) + [p.kernel_command_line]),
            '-no-reboot', '-nographic', '-serial', p.serial,
            *p.extra_qemu_params]


def gcov_dir(layer, part=0):
    """An empty directory for the gcov data of @layer's boot @part: the
    GCOV_PREFIX of that boot (coverage/capture.py unites the parts)."""
    d = os.path.join(RESULTS, 'gcov', layer, str(part))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d

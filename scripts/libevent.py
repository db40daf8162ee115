#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""libevent on kevent (./run_tests.sh --libevent): libevent 2.1.12's own
test suite and benchmarks on its kevent backend and on epoll, in the UML.

  build      fetch libevent's source (scripts/fetch_libevent.sh: Debian
             12's package, apt-get source, or LIBEVENT_SRC), copy it to
             .work/libevent/tree, apply userland/libevent/series with
             patch -p1, autoreconf (the patches change configure.ac and
             Makefile.am), configure against the tree's uapi headers
             (<linux/ukevent.h>, installed in .work/libevent/headers, apart
             from build.py userland's, so that the two builds can run side
             by side, as ./run_tests.sh --libevent runs them beside the
             kernel build) and make the library, the test programs and the
             benchmarks, linked with -static, into .work/libevent/bin/.  The
             copy is made again when the source or the patches changed,
             autoreconf and configure when the build's sources did; make
             decides the rest.
  run        the test stage: build (above), the
             libevent initramfs, then two boots side by side, one per
             backend, where userland/libevent/run-in-uml.sh runs the
             programs as libevent's test/test.sh does; libevent_results.py
             judges: a test that passes on epoll and not on kevent fails
             the stage.  Results: .work/libevent/results/ (logs per
             backend, libevent.ktap, console-BACKEND.log) and
             .work/results/libevent.json (kunit_tool's KernelCI JSON).
  bench      test/bench and test/bench_cascade on both backends in one
             boot, LIBEVENT_BENCH_REPS repetitions (default 5), the
             backends interleaved; libevent_bench.py makes the medians and
             the kevent/epoll ratio: .work/libevent/bench/bench.md.
  initramfs  the libevent initramfs alone: the test initramfs (build.py
             userland's list) with libevent's programs in /libevent/bin
             and /libevent/run-in-uml.sh, .work/libevent/initramfs.cpio.

The boots are the run's target's (KEVENT_TARGET): with coverage, the
kevent boot's gcov data are the coverage layer 'libevent'.
Timeouts: LIBEVENT_TIMEOUT (seconds; 1200 for run, 2400 for bench).

Usage: libevent.py build | run | bench | initramfs
"""
import hashlib
import os
import shutil
import subprocess
import sys
import time

import stages
import targets
import tree as tree_mod

WORK = os.path.join(stages.WORK, 'libevent')
BIN = os.path.join(WORK, 'bin')
INITRAMFS = os.path.join(WORK, 'initramfs.cpio')
BACKENDS = ('kevent', 'epoll')
# What libevent's resolver tests read: localhost in /etc/hosts (the
# blocking resolver of dns/bufferevent_connect_hostname), a nameserver in
# /etc/resolv.conf (dns/initialize_nameservers), service names
# (util/getaddrinfo).  The test initramfs has none of them.
ETC = {'hosts': '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost\n',
       'resolv.conf': 'nameserver 127.0.0.1\n',
       'nsswitch.conf': 'hosts: files dns\nservices: files\nprotocols: files\n'}


# The programs of libevent's test/test.sh, and the benchmarks.
PROGRAMS = ('test-init', 'test-eof', 'test-closed', 'test-weof', 'test-time',
            'test-changelist', 'test-fdleak', 'test-dumpevents', 'regress',
            'bench', 'bench_cascade')
PATCHES = os.path.join(stages.REPO, 'userland', 'libevent')


def digest(*parts):
    """A hash of the byte strings @parts."""
    return hashlib.sha256(b'\0'.join(parts)).hexdigest()


def read(path):
    """The bytes of @path."""
    with open(path, 'rb') as f:
        return f.read()


def stamped(path, want):
    """Whether the stamp file @path holds @want."""
    try:
        with open(path) as f:
            return f.read().strip() == want
    except OSError:
        return False


def tail(log, n=30):
    """The last @n lines of the file @log, after a newline (for an error
    that the terminal shows: the path alone is under .work)."""
    with open(log, errors='replace') as f:
        return '\n' + ''.join(f.readlines()[-n:]).rstrip('\n')


def series():
    """The patch series, in order."""
    with open(os.path.join(PATCHES, 'series')) as f:
        return [p.strip() for p in f if p.strip()]


def patched_copy(src, dest, quiet=False):
    """Copy libevent's source @src to @dest and apply the series to it;
    the patch that does not apply (what patch said on stderr, unless
    @quiet), or None.  (lint.py checks the series so, in a scratch
    folder.)"""
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    for p in series():
        if not tree_mod.patch(os.path.join(PATCHES, p), dest, '--forward', quiet=quiet):
            return p
    return None


def build():
    """Fetch, patch, configure and make libevent (see the module's text)."""
    for tool in ('autoreconf', 'libtoolize', 'automake', 'patch'):
        if not shutil.which(tool):
            raise stages.StageError(
                f'libevent: {tool} is missing (apt-get install autoconf automake '
                'libtool patch; scripts/setup.sh does it with SETUP_LIBEVENT=1)')
    if not os.path.isfile(os.path.join(stages.TREE, 'include/uapi/linux/ukevent.h')):
        raise stages.StageError(f'libevent: no kevent in the kernel tree {stages.TREE}: '
                                'run scripts/tree.py prepare first')
    headers = os.path.join(WORK, 'headers')
    os.makedirs(headers, exist_ok=True)
    if subprocess.run(['make', '-s', '-C', stages.TREE, 'ARCH=x86', f'O={headers}',
                       'headers_install'], stdout=subprocess.DEVNULL,
                      check=False).returncode:
        raise stages.StageError(f'libevent: make headers_install into {headers} failed')
    fetched = subprocess.run([os.path.join(stages.SCRIPTS, 'fetch_libevent.sh')],
                             stdout=subprocess.PIPE, text=True, check=False)
    if fetched.returncode:
        raise stages.StageError('libevent: no source (above)')
    src = fetched.stdout.strip()
    tree = os.path.join(WORK, 'tree')
    # The patched tree, made afresh when the source or the patches changed.
    want = digest(src.encode(), read(os.path.join(PATCHES, 'series')),
                  *(read(os.path.join(PATCHES, p)) for p in series()))
    if not stamped(os.path.join(tree, '.patched'), want):
        print(f'libevent: patching a copy of {src}', flush=True)
        shutil.rmtree(tree + '.new', ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)
        failed = patched_copy(src, tree + '.new')
        if failed:
            raise stages.StageError(f'libevent: {failed} does not apply to {src}')
        os.rename(tree + '.new', tree)
        with open(os.path.join(tree, '.patched'), 'w') as f:
            f.write(want + '\n')
    log = os.path.join(WORK, 'build.log')
    # autoreconf and configure again only when the build's sources changed.
    # The uapi headers of this tree carry <linux/ukevent.h>; no OpenSSL
    # (regress's SSL tests only), no shared libraries.
    configure = ['./configure', '-q', '--disable-shared', '--enable-static',
                 '--disable-openssl', '--disable-samples',
                 f'CPPFLAGS=-isystem {headers}/usr/include', 'CFLAGS=-O2 -g']
    conf = digest(*(read(os.path.join(tree, f)) for f in
                    ('configure.ac', 'Makefile.am', 'test/include.am')),
                  '\0'.join(configure).encode())
    configured = stamped(os.path.join(tree, '.configured'), conf)
    with open(log, 'a' if configured else 'w') as f:
        if not configured:
            print(f'libevent: autoreconf, configure (log: {log})', flush=True)
            for cmd in (['autoreconf', '-fi'], configure):
                if subprocess.run(cmd, cwd=tree, stdout=f, stderr=subprocess.STDOUT,
                                  check=False).returncode:
                    raise stages.StageError(f'libevent: configure failed (log: {log}, '
                                            f'its end above){tail(log)}')
            if '#define HAVE_KEVENT 1' not in read(os.path.join(tree, 'config.h')).decode():
                raise stages.StageError(f'libevent: configure did not find kevent (log: {log})')
            with open(os.path.join(tree, '.configured'), 'w') as g:
                g.write(conf + '\n')
        print(f'libevent: make (log: {log})', flush=True)
        f.flush()
        # -all-static: libtool links the programs with gcc -static.
        if subprocess.run(['make', '-C', tree, '-s', f'-j{stages.JOBS}',
                           'LDFLAGS=-all-static'], stdout=f, stderr=subprocess.STDOUT,
                          check=False).returncode:
            raise stages.StageError(f'libevent: build failed (log: {log}, its end '
                                    f'above){tail(log)}')
    os.makedirs(BIN, exist_ok=True)
    for p in PROGRAMS:
        built_program = os.path.join(tree, 'test', p)
        if not os.access(built_program, os.X_OK):
            raise stages.StageError(f'libevent: test/{p} was not built (log: {log})')
        # An ELF file without a program interpreter: static.
        elf = subprocess.run(['readelf', '-S', built_program], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False)
        if elf.returncode or b'.interp' in elf.stdout:
            raise stages.StageError(f'libevent: test/{p} is not a statically linked program')
        shutil.copy(built_program, os.path.join(BIN, p))
    shutil.copy(os.path.join(tree, 'test', 'check-dumpevents.py'), BIN)
    open(os.path.join(BIN, '.stamp'), 'w').close()
    print(f'libevent: {len(PROGRAMS)} static programs in {BIN}', flush=True)


def built():
    """Whether libevent's programs are built."""
    return os.path.exists(os.path.join(BIN, '.stamp'))


def initramfs_list(base, etc, programs):
    """The libevent initramfs's list: the test initramfs's @base, the
    files of /etc (@etc, their folder), the host's service and protocol
    names, libevent's @programs and the script that runs them."""
    lines = [base.rstrip('\n')]
    lines += [f'file /etc/{f} {etc}/{f} 0644 0 0' for f in ETC]
    lines += [f'file {f} {f} 0644 0 0' for f in ('/etc/services', '/etc/protocols')
              if os.access(f, os.R_OK)]
    lines += ['dir /libevent 0755 0 0', 'dir /libevent/bin 0755 0 0',
              'file /libevent/run-in-uml.sh '
              f"{os.path.join(stages.REPO, 'userland/libevent/run-in-uml.sh')} 0755 0 0"]
    lines += [f'file /libevent/bin/{os.path.basename(p)} {p} 0755 0 0'
              for p in programs]
    return '\n'.join(lines) + '\n'


def initramfs():
    """Write the libevent initramfs."""
    base = os.path.join(stages.USERLAND_OUT, 'initramfs.list')
    if not os.path.isfile(base):
        raise stages.StageError(f'no {base}: run scripts/build.py userland')
    if not built():
        raise stages.StageError('libevent is not built: run scripts/libevent.py build')
    etc = os.path.join(WORK, 'etc')
    os.makedirs(etc, exist_ok=True)
    for name, text in ETC.items():
        with open(os.path.join(etc, name), 'w') as f:
            f.write(text)
    programs = sorted(os.path.join(BIN, p) for p in os.listdir(BIN)
                      if not p.startswith('.') and
                      os.access(os.path.join(BIN, p), os.X_OK))
    with open(base) as f:
        listing = initramfs_list(f.read(), etc, programs)
    path = os.path.join(WORK, 'initramfs.list')
    with open(path, 'w') as f:
        f.write(listing)
    with open(INITRAMFS + '.tmp', 'wb') as f:
        if subprocess.run([os.path.join(stages.USERLAND_OUT, 'gen_init_cpio'), path],
                          stdout=f, check=False).returncode:
            raise stages.StageError('gen_init_cpio failed')
    os.replace(INITRAMFS + '.tmp', INITRAMFS)


def prepare():
    """Build libevent and its initramfs; the seconds the build took."""
    t0 = time.monotonic()
    build()
    took = time.monotonic() - t0
    initramfs()
    return took


def init_args(out, command, *more):
    """The kernel arguments of a boot whose init runs @command in a shell,
    with @out as /host."""
    return ['mem=1G', 'kunit.enable=0', 'quiet', 'INIT_SHELL=1',
            f'INIT_HOST={out}', *more, f'INIT_CMD="{command}"']


def run(target):
    """The test stage; its exit status."""
    t = targets.target(target)
    out = os.path.join(WORK, 'results')
    stages.uml_command(t.name, [])     # the kernel and initramfs are there
    built_in = prepare()
    subprocess.run(['rm', '-rf', out], check=True)
    os.makedirs(out)
    timeout = int(os.environ.get('LIBEVENT_TIMEOUT', '1200'))
    print('libevent: booting the UML twice, side by side (kevent, epoll)', flush=True)
    t1 = time.monotonic()
    procs, logs = [], []
    # One boot per backend, one UML per CPU (as the user-space layer's two
    # parts): the kevent boot's gcov data are the layer 'libevent'; the
    # epoll boot's, the reference's, are dropped.
    for b in BACKENDS:
        env = dict(os.environ)
        if t.coverage:
            env['GCOV_PREFIX'] = stages.gcov_dir('libevent' if b == 'kevent'
                                                 else 'libevent-epoll')
        cmd = stages.uml_command(t.name, init_args(
            out, f'/libevent/run-in-uml.sh tests /host {b}'), timeout, INITRAMFS)
        logs.append(open(os.path.join(out, f'console-{b}.log'), 'w'))
        procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logs[-1],
                                      stderr=subprocess.STDOUT, env=env,
                                      start_new_session=True))
    statuses = stages.wait_groups(procs)
    for f in logs:
        f.close()
    subprocess.run(['rm', '-rf', os.path.join(stages.RESULTS, 'gcov', 'libevent-epoll')],
                   check=True)
    tests = time.monotonic() - t1
    rc = 0
    for b, status in zip(BACKENDS, statuses):
        console = os.path.join(out, f'console-{b}.log')
        if status in (124, 137):
            print(f'libevent: the {b} boot was killed after {timeout} s '
                  f'(console: {console})')
        elif status:
            print(f"libevent: the {b} boot's UML exited with status {status} "
                  f'(console: {console})')
        # The log is scanned whatever the boot's end: its reports are printed.
        if stages.logscan.main([console]) or status:
            rc = 1
    py = sys.executable
    if subprocess.run([py, os.path.join(stages.SCRIPTS, 'libevent_results.py'), out,
                       '--check-dumpevents', os.path.join(BIN, 'check-dumpevents.py')],
                      check=False).returncode:
        rc = 1
    parsed = os.path.join(out, 'kunit-parse.log')
    with open(parsed, 'w') as f:
        subprocess.run([py, stages.KUNIT_PY, 'parse',
                        f"--json={os.path.join(stages.RESULTS, 'libevent.json')}",
                        os.path.join(out, 'libevent.ktap')], stdout=f,
                       stderr=subprocess.STDOUT, check=False)
    print(f'libevent: build {round(built_in)} s, tests {round(tests)} s '
          '(boot included)', flush=True)
    return rc


def bench(target):
    """The benchmark; its exit status."""
    out = os.path.join(WORK, 'bench')
    reps = os.environ.get('LIBEVENT_BENCH_REPS', '5')
    stages.uml_command(target, [])
    prepare()
    subprocess.run(['rm', '-rf', out], check=True)
    os.makedirs(out)
    print(f'libevent: benchmark, {reps} repetitions, kevent and epoll in one boot',
          flush=True)
    start = time.monotonic()
    shapes = os.environ.get('LIBEVENT_BENCH_SHAPES')
    more = [f'LIBEVENT_BENCH_SHAPES="{shapes}"'] if shapes else []
    console = os.path.join(out, 'console.log')
    rc = stages.boot_uml(target, init_args(out, f'/libevent/run-in-uml.sh bench /host {reps}',
                                           *more),
                         console, int(os.environ.get('LIBEVENT_TIMEOUT', '2400')),
                         initramfs=INITRAMFS)
    if rc:
        return stages.fail(f'libevent: the benchmark boot ended with status {rc} '
                           f'(console: {console})')
    raw = os.path.join(out, 'bench-raw.csv')
    if not (os.path.exists(raw) and os.path.getsize(raw)):
        return stages.fail(f'libevent: the benchmark wrote no results (console: {console})')
    print(f'libevent: benchmark boot {round(time.monotonic() - start)} s', flush=True)
    r = subprocess.run([sys.executable, os.path.join(stages.SCRIPTS, 'libevent_bench.py'),
                        raw, '--command',
                        f'./run_tests.sh --libevent bench (LIBEVENT_BENCH_REPS={reps})'],
                       stdout=subprocess.PIPE, text=True, check=False)
    sys.stdout.write(r.stdout)
    with open(os.path.join(out, 'bench.md'), 'w') as f:
        f.write(r.stdout)
    return r.returncode


def main(argv):
    if argv not in (['build'], ['run'], ['bench'], ['initramfs']):
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    target = targets.from_env().name
    if argv[0] in ('initramfs', 'build'):
        (initramfs if argv[0] == 'initramfs' else build)()
        return 0
    return run(target) if argv[0] == 'run' else bench(target)


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

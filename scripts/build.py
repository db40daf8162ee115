#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The builds: a target's kernel and the user-space test initramfs.

kernel: configure and build the kernel of the target KEVENT_TARGET names
(scripts/targets.py) with kunit_tool, as a library, from the target's
config fragments: the UML binary BUILD/linux, or BUILD/arch/x86/boot/bzImage
for an x86_64 target (with its --qemu_config).

A UML build whose configuration kunit_tool made from the same inputs
(tree.config_hash(), kept in BUILD/.kevent-config) is only the make
kunit_tool would run, without its olddefconfig and compile_commands.json
passes: about 15 s less for a run after an edit.  That make walks all 388
directories of the configured tree, about 6 s with nothing to compile.
When, since the last whole make of this build dir began, only kevent's own
C files changed (kernel/kevent/ and its kunit/, not a Makefile, not a
header of include/), make descends into kernel/kevent alone and links.  No
other directory is needed for that: the thin archives built-in.a and
vmlinux.a name kevent's objects by path and vmlinux.o takes all of
vmlinux.a, so touching built-in.a makes kbuild relink, and the link reads
the recompiled objects.  (This assumes kevent's headers in kernel/kevent/
are included from there only; kevent.h of include/, the __fput() hook, is
outside it.)  When no kevent file changed since the last make that
succeeded, no make runs.  The marks (tree.begin/done): BUILD/.kevent-walked
the last whole make, BUILD/.kevent-made the last make of any kind that
succeeded.  Any other change of the tree (or a file added or removed, or
KCFLAGS), a hand-edited .config, a failed or interrupted whole make, or
KEVENT_WHOLE_MAKE=1 means the whole make.

userland: the static programs against the uapi headers as make
headers_install installs them (userland/Makefile, which first checks the
ABI against the installed <linux/ukevent.h>), packed with busybox into the
test initramfs, .work/userland/initramfs.cpio, by the Makefile's
gen_init_cpio from the list written here.

Usage: build.py kernel | userland
"""
import os
import shutil
import subprocess
import sys

import stages
import targets
import tree

JOBS = stages.JOBS
HEADERS = os.path.join(stages.WORK, 'headers')
# The initramfs's folders of programs, each from userland/NAME/*.c.
PROGRAM_DIRS = ('tests', 'tools', 'bench', 'fuzz')
DIRS = ('/dev', '/proc', '/sys', '/tmp', '/results', '/host', '/tests',
        '/tools', '/bench', '/fuzz', '/bin', '/sbin', '/etc', '/root', '/usr',
        '/usr/share', '/usr/share/man')


def kunit_build(t, build, configure_only=False, log=os.devnull):
    """kunit_tool's build (or only its config) of target @t in @build, as a
    library; whether it succeeded."""
    def call(kunit, kunit_kernel):
        linux = kunit_kernel.LinuxSourceTree(
            build, kunitconfig_paths=t.fragment_paths(), arch=t.arch,
            qemu_config_path=t.qemu_config() or None)
        request = kunit.KunitBuildRequest(build_dir=build, make_options=None,
                                          jobs=int(JOBS))
        if configure_only:
            return kunit.config_tests(linux, request)
        return kunit.config_and_build_tests(linux, request)
    return stages.kunit_tool_call(log, call)


def make_um(build, *args):
    """make of the UML tree in @build (-S: no keep-going from MAKEFLAGS,
    which could link stale objects); whether it succeeded."""
    cmd = ['make', '-s', '-S', '-C', stages.TREE, 'ARCH=um', f'O={build}',
           f'-j{JOBS}', *args]
    return subprocess.run(cmd, check=False).returncode == 0


def kevent_only(changed):
    """Whether the files @changed are all kevent's own C files."""
    return all(f.startswith('kernel/kevent/') and f.endswith(('.c', '.h'))
               for f in changed)


def uml_make(build):
    """The UML build once kunit_tool made its .config (see the module's
    text); whether it succeeded."""
    walked = os.path.join(build, '.kevent-walked')
    made = os.path.join(build, '.kevent-made')
    changed = None
    if os.environ.get('KEVENT_WHOLE_MAKE', '0') != '1' and \
            os.stat(os.path.join(build, '.config')).st_mtime_ns <= \
            os.stat(os.path.join(build, '.kevent-config')).st_mtime_ns:
        changed = tree.changed_since(walked)
    if changed is None or not kevent_only(changed):
        print("build: configuration unchanged since kunit_tool made it: make only")
        tree.begin(walked, made)
        if not make_um(build, 'all'):
            return False
        tree.done(walked, made)
        return True
    newer = tree.changed_since(made)
    newer = changed if newer is None else newer
    if not newer:
        print("build: no kevent file changed since the last make, nothing else "
              "since the whole make: nothing to make")
        return True
    print("build: only kevent's C files changed since the whole make "
          f"({' '.join(newer)}): make in kernel/kevent, then link")
    tree.begin(made)
    os.utime(os.path.join(build, 'built-in.a'))
    # -j1: with -j, make could link before it compiled.  One make is about
    # 3 s of CPU less than two; a header recompiles all its includers,
    # worth two makes with -j.
    if any(f.endswith('.h') for f in newer):
        ok = (make_um(build, 'build-dir=kernel/kevent', 'kernel/kevent') and
              make_um(build, 'build-dir=kernel/kevent', 'all'))
    else:
        ok = make_um(build, '-j1', 'build-dir=kernel/kevent', 'kernel/kevent', 'all')
    if ok:
        tree.done(made)
    return ok


def kernel(t):
    """Build target @t's kernel; the exit status."""
    build = os.path.join(stages.WORK, t.build)
    os.makedirs(build, exist_ok=True)
    image = t.kernel(build)
    want = None if t.qemu else tree.config_hash(t)
    if t.qemu:
        ok = kunit_build(t, build)
    elif not os.access(image, os.X_OK) or not tree.config_stamped(build, want):
        stamp = os.path.join(build, '.kevent-config')
        if os.path.exists(stamp):
            os.remove(stamp)
        walked = os.path.join(build, '.kevent-walked')
        made = os.path.join(build, '.kevent-made')
        tree.begin(walked, made)
        ok = kunit_build(t, build)
        if ok:
            tree.stamp_config(build, want)
            tree.done(walked, made)
    else:
        ok = uml_make(build)
    if not ok:
        return stages.fail(f'the build of target {t.name} failed (above)')
    if not os.path.exists(image):
        return stages.fail(f'the build did not produce {image}')
    print(f'build: {image}', flush=True)
    return 0


def programs(out, folder):
    """The programs of userland/@folder whose source is there; a binary of
    @out left from a removed source is removed (userland_layer.py runs
    what is in tests/)."""
    src = os.path.join(stages.REPO, 'userland', folder)
    names = sorted(f[:-2] for f in os.listdir(src) if f.endswith('.c'))
    built = os.path.join(out, folder)
    if os.path.isdir(built):
        for b in os.listdir(built):
            if b not in names:
                os.remove(os.path.join(built, b))
    return names


def initramfs_list(out, busybox, applets, progs, pages):
    """gen_init_cpio's list of the test initramfs: the folders, the manual
    pages (formatted, in cat*/: busybox has no man of its own), the
    console, init, busybox and every applet by name, and the programs
    (@progs: folder -> names)."""
    lines = [f'dir {d} 0755 0 0' for d in DIRS]
    lines += [f'dir /usr/share/man/{d} 0755 0 0'
              for d in sorted({p.split('/')[0] for p in pages})]
    lines += [f'file /usr/share/man/{p} {out}/man/{p} 0644 0 0' for p in pages]
    lines += ['nod /dev/console 0600 0 0 c 5 1', 'nod /dev/null 0666 0 0 c 1 3',
              f'file /init {out}/init 0755 0 0',
              f'file /bin/busybox {busybox} 0755 0 0']
    lines += [f'slink /bin/{a} busybox 0777 0 0' for a in applets if a != 'busybox']
    for folder in PROGRAM_DIRS:
        lines += [f'file /{folder}/{p} {out}/{folder}/{p} 0755 0 0'
                  for p in progs[folder]]
    return '\n'.join(lines) + '\n'


def userland():
    """Build the programs and the test initramfs; the exit status."""
    out = stages.USERLAND_OUT
    os.makedirs(out, exist_ok=True)
    os.makedirs(HEADERS, exist_ok=True)
    busybox = shutil.which('busybox')
    if not busybox:
        return stages.fail('busybox missing: apt-get install busybox-static')
    # UML cannot export headers (make ARCH=um headers_install stops with
    # "Headers not exportable for UML"); the x86 export of the same tree
    # works, and its asm/unistd_64.h comes from the syscall_64.tbl that UML
    # uses.
    if subprocess.run(['make', '-s', '-C', stages.TREE, 'ARCH=x86', f'O={HEADERS}',
                       'headers_install'], stdout=subprocess.DEVNULL,
                      check=False).returncode:
        return stages.fail('make headers_install failed')
    # The programs, the manual pages and gen_init_cpio: userland/Makefile,
    # which first compiles the uapi check (the ABI as static assertions)
    # against the <linux/ukevent.h> installed above.  (Here rather than in
    # lint, so that one headers_install serves both: about 30 s of CPU in
    # a cold run.)
    if subprocess.run(['make', '-s', '-C', os.path.join(stages.REPO, 'userland'),
                       f'-j{JOBS}', f'O={out}', f'HEADERS={HEADERS}',
                       f'TREE={stages.TREE}'], check=False).returncode:
        return stages.fail('the user-space build failed (userland/Makefile)')
    progs = {d: programs(out, d) for d in PROGRAM_DIRS}
    man = os.path.join(stages.REPO, 'userland', 'man')
    pages = sorted(f'cat{p.rsplit(".", 1)[1]}/{p}' for p in os.listdir(man)
                   if p[-1:] in '12345678' and p[-2:-1] == '.')
    applets = subprocess.run([busybox, '--list'], stdout=subprocess.PIPE,
                             check=True, text=True).stdout.split()
    listing = os.path.join(out, 'initramfs.list')
    with open(listing, 'w') as f:
        f.write(initramfs_list(out, busybox, applets, progs, pages))
    tmp = os.path.join(out, 'initramfs.cpio.tmp')
    with open(tmp, 'wb') as f:
        if subprocess.run([os.path.join(out, 'gen_init_cpio'), listing],
                          stdout=f, check=False).returncode:
            return stages.fail('gen_init_cpio failed')
    os.replace(tmp, os.path.join(out, 'initramfs.cpio'))
    print(f"userland: {len(progs['tests'])} test programs, {len(progs['tools'])} "
          f"tools, {len(pages)} manual pages in {out}/initramfs.cpio", flush=True)
    return 0


def main(argv):
    if argv not in (['kernel'], ['userland']):
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    if argv[0] == 'userland':
        return userland()
    t = targets.from_env()
    if not os.path.isfile(stages.KUNIT_PY):
        return stages.fail(f'no prepared tree at {stages.TREE}: '
                           'run scripts/tree.py prepare (./run_tests.sh does)')
    return kernel(t)


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The prepared kernel tree (.work/linux) and what decides a build of it.

The tree is the harness's own.  prepare (tree.py prepare, the run's
prepare stage) extracts the pristine 6.12 source once (from KERNEL_SRC,
a 6.12.x tree or tarball, or Debian's linux-source-6.12), applies the
patches of kernel/patches/ in name order with patch -p1, and lays
kevent's files over it as kernel/overlay.map says (their list in
.kevent-overlay).  A file whose content does not change keeps its time,
so make rebuilds only what was edited.  A guard (kernel/guards/) may be
applied on top.  Nothing else in the tree changes after the extraction,
so what a build or lint needs to redo is decided from those files alone:

- config_hash(): what decides a target's .config (its fragments, the
  patches, kevent's Kconfig, kunit_tool's UML fragment, the tree's version
  and the compiler's).  A build dir whose .config kunit_tool made from
  the same inputs keeps it in .kevent-config; then only make needs to run.
- Marks: a mark is a file whose time is when some work on the tree began
  and whose content is the tree's state then (the list of files the
  harness writes, and KCFLAGS).  begin() before the work, done() after it
  succeeded; changed_since() says which files are newer than the mark, or
  None when the state differs (a file added or removed, KCFLAGS changed)
  or the mark is missing: then everything counts as changed.

Usage: tree.py prepare
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import stages

KUNIT_UML_CONFIG = os.path.join(stages.TREE, 'tools/testing/kunit/configs/'
                                'arch_uml.config')


def kunitconfig_args(t):
    """Target @t's config fragments as kunit_tool arguments."""
    return [a for p in t.fragment_paths() for a in ('--kunitconfig', p)]


def _contents(paths):
    out = b''
    for p in paths:
        try:
            with open(p, 'rb') as f:
                out += f.read()
        except OSError:
            out += b'(missing ' + p.encode() + b')\n'
    return out


def config_hash(t):
    """A hash of what decides target @t's configuration (see above)."""
    h = hashlib.sha256()
    h.update('\n'.join(kunitconfig_args(t)).encode() + b'\n')
    h.update(_contents(t.fragment_paths()))
    h.update(_contents(sorted(glob.glob(os.path.join(stages.REPO, 'kernel',
                                                     'patches', '*.patch')))))
    h.update(_contents([os.path.join(stages.REPO, 'kernel/kevent/Kconfig'),
                        KUNIT_UML_CONFIG,
                        os.path.join(stages.TREE, 'Makefile'),
                        os.path.join(stages.TREE, '.kevent-origin')]))
    cc = os.environ.get('CC') or 'gcc'
    try:
        version = subprocess.run([cc, '--version'], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, check=False).stdout
    except OSError:
        version = b'no compiler'
    h.update(version.split(b'\n', 1)[0])
    return h.hexdigest()


def config_stamped(build, want):
    """Whether build dir @build's .config is the one kunit_tool made from
    the inputs whose config_hash() is @want."""
    try:
        with open(os.path.join(build, '.kevent-config')) as f:
            return (os.path.exists(os.path.join(build, '.config'))
                    and f.read().strip() == want)
    except OSError:
        return False


def stamp_config(build, want):
    """Record that kunit_tool made @build's .config from inputs @want."""
    path = os.path.join(build, '.kevent-config')
    with open(path, 'w') as f:
        f.write(want + '\n')
    st = os.stat(os.path.join(build, '.config'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def files():
    """The files of the tree the harness writes (tree-relative): the
    overlay, and what the patches and the guards touch; None before the
    tree is prepared."""
    try:
        with open(os.path.join(stages.TREE, '.kevent-overlay')) as f:
            names = set(f.read().split())
    except OSError:
        return None
    names.update(patched_files(
        glob.glob(os.path.join(stages.REPO, 'kernel', 'patches', '*.patch')) +
        glob.glob(os.path.join(stages.REPO, 'kernel', 'guards', '*.patch'))))
    return sorted(names)


def state(names=None):
    """What a mark records: the files (given, or read) and KCFLAGS."""
    names = files() if names is None else names
    if names is None:
        return None
    text = '\n'.join(names) + f"\nKCFLAGS={os.environ.get('KCFLAGS', '')}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def changed_since(mark):
    """The files newer than @mark, or None (everything changed: see
    above)."""
    names = files()
    try:
        with open(mark) as f:
            recorded = f.read().strip()
        when = os.stat(mark).st_mtime_ns
    except OSError:
        return None
    if names is None or state(names) != recorded:
        return None
    out = []
    for n in names:
        try:
            if os.stat(os.path.join(stages.TREE, n)).st_mtime_ns > when:
                out.append(n)
        except FileNotFoundError:
            pass
    return out


def begin(*marks):
    """Before work on the tree: each MARK.new records the state, now; the
    marks themselves are removed (work that fails leaves none)."""
    now = state() or ''
    for m in marks:
        if os.path.exists(m):
            os.remove(m)
        with open(m + '.new', 'w') as f:
            f.write(now + '\n')


def done(*marks):
    """After the work succeeded: each mark has the time it began."""
    for m in marks:
        os.replace(m + '.new', m)


class PrepareError(stages.StageError):
    """What stops the tree's preparation, with what to do."""


def sha256(path):
    """The hash of the file @path's content."""
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_patch(path, tree, *opts):
    """Apply the patch @path to @tree with tree-root paths (-R to take it
    out, --dry-run to try); (whether it applied, what patch said).  The
    patches, the guards (guards.py) and libevent's series go in so."""
    with open(path) as f:
        r = subprocess.run(['patch', '-d', tree, '-p1', '-s', *opts,
                            '--no-backup-if-mismatch'], stdin=f, check=False,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0, r.stdout


def patch(path, tree, *opts, quiet=False):
    """run_patch(); whether it applied.  What patch said goes to stderr
    when it did not, unless @quiet."""
    ok, said = run_patch(path, tree, *opts)
    if not ok and not quiet:
        sys.stderr.write(said)
    return ok


def patched_files(patches):
    """The tree files the @patches touch, in the order they name them."""
    out = {}
    for p in patches:
        with open(p, errors='replace') as f:
            out.update(dict.fromkeys(re.findall(r'^\+\+\+ b/(\S+)', f.read(), re.M)))
    return list(out)


def kernelversion(tree):
    """make kernelversion of @tree."""
    return subprocess.run(['make', '-s', '-C', tree, 'kernelversion'],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.strip()


def extract(origin):
    """The pristine tree from @origin, a tree or a tarball."""
    tree = stages.TREE
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(stages.WORK, exist_ok=True)
    if os.path.isdir(origin):
        if not os.path.isfile(os.path.join(origin, 'Makefile')):
            raise PrepareError(f'KERNEL_SRC={origin} is not a kernel tree')
        print(f'prepare: copying {origin}', flush=True)
        shutil.copytree(origin, tree, symlinks=True,
                        ignore=shutil.ignore_patterns('.git'))
    elif os.path.isfile(origin):
        print(f'prepare: extracting {origin} (once)', flush=True)
        with tempfile.TemporaryDirectory(dir=stages.WORK, prefix='extract.') as tmp:
            subprocess.run(['tar', '-xf', origin, '-C', tmp], check=True)
            top = os.listdir(tmp)
            src = 'linux-source-6.12' if 'linux-source-6.12' in top else top[0]
            os.rename(os.path.join(tmp, src), tree)
    else:
        raise PrepareError(f'no kernel source at {origin}: set KERNEL_SRC to a 6.12 '
                           'tree or install linux-source-6.12')
    version = kernelversion(tree)
    if not (version == '6.12' or version.startswith('6.12.')):
        raise PrepareError(f'the kernel at {origin} is {version}, not 6.12.x')
    with open(os.path.join(tree, '.kevent-origin'), 'w') as f:
        f.write(origin + '\n')


def apply_patches():
    """When the set of kernel/patches/ changed, take the old set out and
    put the new in.  Files that end up with the content they had keep
    their times, so changing one patch rebuilds only what it touches."""
    tree = stages.TREE
    applied = os.path.join(tree, '.kevent-patches')
    new = sorted(glob.glob(os.path.join(stages.REPO, 'kernel', 'patches', '*.patch')))
    want = hashlib.sha256(_contents(new)).hexdigest()
    try:
        with open(os.path.join(applied, '.sum')) as f:
            if f.read().strip() == want:
                return
    except OSError:
        pass
    old = sorted(glob.glob(os.path.join(applied, '*.patch')))
    before = {}
    for f in patched_files(old + new):
        path = os.path.join(tree, f)
        if os.path.isfile(path):
            before[f] = (sha256(path), os.stat(path).st_mtime_ns)
    for p in reversed(old):
        if not patch(p, tree, '-R'):
            raise PrepareError(f'cannot take out {os.path.basename(p)}; remove {tree} '
                               'and run again')
    shutil.rmtree(applied, ignore_errors=True)
    os.makedirs(applied)
    for p in new:
        print(f'prepare: applying {os.path.basename(p)}', flush=True)
        if not patch(p, tree, '--forward'):
            raise PrepareError(f'{os.path.basename(p)} does not apply to the tree '
                               f'of {origin()}')
        shutil.copy(p, applied)
    for f, (digest, when) in before.items():
        path = os.path.join(tree, f)
        if os.path.isfile(path) and sha256(path) == digest:
            os.utime(path, ns=(when, when))
    with open(os.path.join(applied, '.sum'), 'w') as f:
        f.write(want + '\n')


def overlay_map():
    """kernel/overlay.map's (repository folder, tree folder) pairs."""
    with open(os.path.join(stages.REPO, 'kernel', 'overlay.map')) as f:
        return [tuple(line.split()) for line in f
                if line.strip() and not line.startswith('#')]


def lay_overlay():
    """Copy what changed, delete what the repository no longer has."""
    tree = stages.TREE
    names = []
    for src, dst in overlay_map():
        top = os.path.join(stages.REPO, src)
        for d, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith('.md'):
                    continue
                rel = os.path.relpath(os.path.join(d, f), top)
                here, there = os.path.join(top, rel), os.path.join(tree, dst, rel)
                os.makedirs(os.path.dirname(there), exist_ok=True)
                if not (os.path.isfile(there) and sha256(here) == sha256(there)):
                    shutil.copyfile(here, there)
                names.append(os.path.normpath(os.path.join(dst, rel)))
    manifest = os.path.join(tree, '.kevent-overlay')
    try:
        with open(manifest) as f:
            gone = set(f.read().split()) - set(names)
    except OSError:
        gone = set()
    for g in gone:
        if os.path.exists(os.path.join(tree, g)):
            os.remove(os.path.join(tree, g))
    with open(manifest + '.new', 'w') as f:
        f.write(''.join(n + '\n' for n in sorted(names)))
    os.replace(manifest + '.new', manifest)


def origin():
    """Where the pristine source comes from."""
    return os.environ.get('KERNEL_SRC') or '/usr/src/linux-source-6.12.tar.xz'


def prepare():
    """The prepare stage; its exit status."""
    try:
        with open(os.path.join(stages.TREE, '.kevent-origin')) as f:
            extracted = f.read().strip() == origin()
    except OSError:
        extracted = False
    if not extracted:
        extract(origin())
    apply_patches()
    lay_overlay()
    print(f'prepare: tree ready at {stages.TREE} ({kernelversion(stages.TREE)})')
    return 0


def main(argv):
    if argv != ['prepare']:
        print(__doc__[__doc__.index('Usage:'):].rstrip(), file=sys.stderr)
        return 2
    return prepare()


if __name__ == '__main__':
    sys.exit(stages.run_main(main))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The prepared kernel tree (.work/linux) and what decides a build of it.

The tree is the harness's own: scripts/prepare_tree.sh extracts it and
lays kevent's files over it (the list in .kevent-overlay), the patches of
kernel/patches/ are applied to it, and a guard (kernel/guards/) may be.
Nothing else in it changes after the extraction, so what a build or lint
needs to redo is decided from those files alone:

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

Imported, not run.
"""
import glob
import hashlib
import os
import re
import subprocess

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
    for p in glob.glob(os.path.join(stages.REPO, 'kernel', 'patches', '*.patch')) + \
            glob.glob(os.path.join(stages.REPO, 'kernel', 'guards', '*.patch')):
        with open(p, errors='replace') as f:
            names.update(re.findall(r'^\+\+\+ b/(\S+)', f.read(), re.M))
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

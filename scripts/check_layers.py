#!/usr/bin/env python3
"""kevent's files call only down: check it on the objects.

    check_layers.py OBJDIR     (a build's kernel/kevent/)

Each object of kernel/kevent/ may call the functions of the objects
CALLS gives it, and no other kevent object's: a function (a global text
symbol, nm type T) that one object defines and another one uses (nm -u)
is a call between them.  Data may be referred to in any direction
(kevent_file.o compares f_op with kevent_queue_fops).  Lists each call
that goes up, exit 1; exit 2 when OBJDIR has no kevent object.
"""
import os
import subprocess
import sys

# The queue's files, top down, then the storages (see kevent_internal.h).
CALLS = {
    "kevent_syscalls.o": {"kevent_ctl.o", "kevent_ring.o", "kevent_deliver.o",
                          "kevent_queue.o", "kevent.o"},
    "kevent_ring.o": {"kevent_deliver.o", "kevent_queue.o", "kevent.o"},
    "kevent_ctl.o": {"kevent_queue.o", "kevent.o"},
    "kevent_deliver.o": {"kevent_queue.o", "kevent.o"},
    "kevent_queue.o": {"kevent.o"},
    "kevent_poll.o": {"kevent_file.o", "kevent.o"},
    "kevent_socket.o": {"kevent_file.o", "kevent.o"},
    "kevent_file.o": {"kevent.o"},
    "kevent_timer.o": {"kevent.o"},
    "kevent.o": set(),
}


def symbols(nm_defined, nm_undefined):
    """nm's output for one object -> (functions it defines, names it uses)."""
    defined = set()
    for line in nm_defined.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
    used = {line.split()[-1] for line in nm_undefined.splitlines() if line.strip()}
    return defined, used


def upward_calls(objects):
    """@objects: {object: (defined, used)} -> ["a.o calls f() of b.o", ...]."""
    owner = {f: o for o, (defined, _) in objects.items() for f in defined}
    found = []
    for o, (_, used) in sorted(objects.items()):
        for f in sorted(used):
            callee = owner.get(f)
            if callee and callee != o and callee not in CALLS.get(o, set()):
                found.append(f"{o} calls {f}() of {callee}")
    return found


def nm(args, path):
    return subprocess.run(["nm", *args, path], capture_output=True, text=True,
                          check=True).stdout


def linked(objdir):
    """The kevent objects linked into OBJDIR/built-in.a (a thin archive of
    paths; a stale object left in the folder is not one of them)."""
    archive = os.path.join(objdir, "built-in.a")
    if not os.path.exists(archive):
        return []
    names = subprocess.run(["ar", "t", archive], capture_output=True,
                           text=True, check=True).stdout.split()
    # ar names the members by the archive's own path: relative ones
    # resolve from here as the archive's did.
    return [n for n in names
            if os.path.dirname(os.path.abspath(n)) == os.path.abspath(objdir)]


def main():
    objdir = sys.argv[1]
    paths = linked(objdir)
    if not paths:
        print(f"check_layers: no kevent object linked in {objdir}", file=sys.stderr)
        return 2
    objects = {os.path.basename(p): symbols(nm(["--defined-only"], p), nm(["-u"], p))
               for p in paths}
    found = upward_calls(objects)
    found += [f"{o}: not in check_layers.py's CALLS" for o in sorted(objects)
              if o not in CALLS]
    for line in found:
        print(f"check_layers: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

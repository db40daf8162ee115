#!/usr/bin/env python3
"""Judge a kernel log: the reports that fail a run, and on the x86_64 SMP
kernel its vCPUs, its clocksource and KCSAN's data races.

Every log: a splat fails it (BUG, WARNING, Oops, a lockdep, KASAN, UBSAN
or kmemleak report, a hung task...); each is printed with the lines
after it, as 'grep -n -A 25' would.

With --smp (a QEMU console, CR LF line ends):
- all --cpus vCPUs came up;
- the clocksource is a hardware clock, not jiffies: with jiffies, time
  stands still while the CPU that keeps them spins with interrupts off,
  and so do the hang detectors (seen: a whole boot frozen, without a
  report);
- each KCSAN report (between two lines of '=') goes to LOG.kcsan and is
  listed, one line per race with its two accesses (file:line from
  --vmlinux when given); those that touch kevent code stay in the copy
  that is judged (LOG.checked), and fail the run; the others, core kernel
  races outside the project, are only listed.  So are the core races of
  CORE_RACES, which kevent code is on the stack of but does not cause.

Usage: logscan.py [--smp [--cpus N] [--vmlinux FILE --tree DIR]] LOG [WHAT]
Exit status: 0 clean, 2 a report, 1 anything else (no log, vCPUs
missing, a jiffies clock).
"""
import argparse
import os
import re
import subprocess
import sys

REPORT = re.compile(
    r'(^|[^_])(BUG:|WARNING:|Oops|kernel BUG|general protection|Call Trace:|'
    r'UBSAN:|KASAN:|INFO: task .* blocked|possible circular locking|'
    r'possible recursive locking|inconsistent lock state|'
    r'suspicious RCU usage|unreferenced object|Kernel panic|ODEBUG:|'
    r'list_add corruption|list_del corruption)')
AFTER = 25		# lines printed after each report line
SHOWN = 200		# lines printed at most
ONLINE = re.compile(r'smp: Brought up [0-9]+ nodes?, ([0-9]+) CPUs?')
CLOCK = re.compile(r'clocksource: Switched to clocksource (\S+)')
RULE = re.compile(r'^(\[ *[0-9.]+\] )?=+$')
KEVENT_FRAME = re.compile(r' (kevent|kt|kc|ktt)_[a-z0-9_.]*\+0x')
FRAME_LINE = re.compile(r'^(\[ *[0-9.]+\] )? ((kevent|kt|kc|ktt)_[a-z0-9_.]*'
                        r'\+0x[0-9a-f]+/0x[0-9a-f]+)')
# Races of the core kernel that kevent code calls into, but that no
# caller can cause or prevent: listed, not judged.  Each is the pair of
# functions of its two accesses, as KCSAN's title names them (either
# order).
CORE_RACE_PAIRS = (
    # wait_event_*hrtimeout()'s plain read of the sleeper's task
    # (include/linux/wait.h, inlined where it is used, e.g.
    # kevent_wait_ready) against hrtimer_wakeup() clearing it in the timer
    # interrupt (kernel/time/hrtimer.c).
    (r'hrtimer_wakeup', r'\S+'),
    # A contended mutex's optimistic spinning: osq_wait_next()'s plain peek
    # at node->next (kernel/locking/osq_lock.c, inlined in osq_unlock)
    # before its xchg(), against osq_lock()'s WRITE_ONCE(prev->next) of the
    # next spinner.
    (r'osq_lock', r'osq_unlock'),
)
CORE_RACES = [re.compile(rf'KCSAN: data-race in ({a} / {b}|{b} / {a})$')
              for a, b in CORE_RACE_PAIRS]
# A race at unknown origin (KCSAN saw the value change under its
# watchpoint, not the other access) names one function with its offset:
# the core's when it is either of a pair of two named functions.
CORE_RACES += [re.compile(rf'KCSAN: data-race in ({a}|{b})\+0x[0-9a-f]+/0x[0-9a-f]+$')
               for a, b in CORE_RACE_PAIRS if re.fullmatch(r'\w+ \w+', f'{a} {b}')]
STAMP = re.compile(r'^\[ *[0-9.]+\] *')
ACCESS_STAMP = re.compile(r'^\[ *[0-9.]+\] ')
ACCESS = re.compile(r'(read|write).* to 0x.* by (task|interrupt)')


class Failed(Exception):
    """Not a report, but the log cannot pass (exit status 1)."""


def lines_of(path):
    """The lines of @path without their line ends (LF or CR LF)."""
    try:
        with open(path, errors='replace', newline='') as f:
            return [ln.rstrip('\n').rstrip('\r') for ln in f]
    except OSError:
        raise Failed(f'no kernel log at {path}') from None


def reports(lines):
    """The report lines of @lines with AFTER lines after each, numbered as
    grep -n -A prints them ('N:' a match, 'N-' after it, '--' a gap; a
    match within the lines after another starts them anew)."""
    out, last, left = [], -1, 0
    for i, ln in enumerate(lines):
        if REPORT.search(ln):
            if out and i > last + 1:
                out.append('--')
            out.append(f'{i + 1}:{ln}')
            last, left = i, AFTER
        elif left:
            out.append(f'{i + 1}-{ln}')
            last, left = i, left - 1
    return out


def judge(lines, what, path):
    """Exit status 2 with the reports printed when @lines have one."""
    found = reports(lines)
    if not found:
        return 0
    err = sys.stderr
    print(f'kernel log of {what} has a report:', file=err)
    print('\n'.join(found[:SHOWN]), file=err)
    print(f'error: splat in the kernel log of {what} ({path})', file=err)
    return 2


def split_kcsan(lines):
    """(@lines less the KCSAN reports outside kevent code, every KCSAN
    report's lines).  A block is what lies between two '=' rules."""
    kept, races, blk = [], [], []
    inblk = False

    def flush():
        if not blk:
            return
        text = '\n'.join(blk)
        kcsan = 'KCSAN' in text
        core = any(r.search(b) for r in CORE_RACES for b in blk)
        kevent = any(KEVENT_FRAME.search(b) for b in blk)
        if kcsan:
            races.extend(blk)
            if kevent and not core:
                kept.extend(blk)
        else:
            kept.extend(blk)
        blk.clear()

    for ln in lines:
        if RULE.match(ln):
            if inblk:
                blk.append(ln)
                inblk = False
                flush()
            else:
                flush()
                inblk = True
                blk.append(ln)
        elif inblk:
            blk.append(ln)
        else:
            kept.append(ln)
    flush()
    return kept, races


def race_summary(races):
    """One title per race and the top frame of each of its accesses, a
    title seen before left out, at most SHOWN lines."""
    out, title, want, access = [], '', False, ''
    for ln in races:
        if 'BUG: KCSAN' in ln:
            title = ln[ln.index('BUG: ') + 5:]
            continue
        if ACCESS.search(ln):
            want, access = True, ACCESS_STAMP.sub('', ln, count=1)
            continue
        if want:
            frame = STAMP.sub('', ln, count=1)
            if frame:
                if title:
                    out.append(f'  {title}')
                out += [f'    {access}', f'      at {frame}']
                title, want = '', False
    seen, unique = set(), []
    for ln in out:
        if 'KCSAN' in ln and ln in seen:
            continue
        seen.add(ln)
        unique.append(ln)
    return unique[:SHOWN]


def frame_lines(races, vmlinux, tree):
    """file:line of up to 20 kevent frames (faddr2line reads vmlinux's
    symbols once per frame, seconds each)."""
    faddr2line = os.path.join(tree, 'scripts', 'faddr2line')
    frames = sorted({m.group(2) for m in map(FRAME_LINE.match, races) if m})
    out = []
    for frame in frames[:20]:
        try:
            got = subprocess.run([faddr2line, vmlinux, frame], text=True,
                                 capture_output=True, check=False).stdout
        except OSError:
            return []
        where = next((ln.split(' at ', 1)[1] for ln in got.splitlines()
                      if ' at ' in ln), '')
        if where.startswith(tree + '/'):
            where = where[len(tree) + 1:]
        out.append(f'    {frame}  {where}')
    return out


def scan_smp(lines, path, what, cpus, vmlinux, tree):
    """The SMP checks; returns the lines to judge for reports."""
    online = next((m.group(1) for m in map(ONLINE.search, lines) if m), None)
    if online != str(cpus):
        raise Failed(f'the kernel of {what} brought up {online or "no"} CPUs, '
                     f'not {cpus} (see {path})')
    print(f'{what}: {online} CPUs online')
    clocks = [m.group(1) for m in map(CLOCK.search, lines) if m]
    clock = clocks[-1] if clocks else ''
    if clock in ('', 'jiffies', 'refined-jiffies'):
        raise Failed(f'the kernel of {what} keeps time with '
                     f'{clock or "no clocksource"}, not a hardware clock: see '
                     f'{path} (its ACPI tables give the TSC a reference; '
                     'configs/x86_64.config)')
    print(f'{what}: clocksource {clock}')
    kept, races = split_kcsan(lines)
    with open(path + '.checked', 'w') as f:
        f.write(''.join(ln + '\n' for ln in kept))
    with open(path + '.kcsan', 'w') as f:
        f.write(''.join(ln + '\n' for ln in races))
    if any('BUG: KCSAN' in ln for ln in races):
        print(f'{what}: KCSAN reports (all of them in {path}.kcsan):')
        for ln in race_summary(races):
            print(ln)
        if vmlinux and tree and os.access(vmlinux, os.R_OK) and \
                any(KEVENT_FRAME.search(ln) for ln in races):
            found = frame_lines(races, vmlinux, tree)
            if found:
                print('  kevent frames of the reports, as file:line:')
                print('\n'.join(found))
    return kept


class Parser(argparse.ArgumentParser):
    """A usage error exits 1, not argparse's 2, which here means a report."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f'error: {message}', file=sys.stderr)
        sys.exit(1)


def main(argv=None):
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument('log')
    ap.add_argument('what', nargs='?')
    ap.add_argument('--smp', action='store_true')
    ap.add_argument('--cpus', type=int, default=4)
    ap.add_argument('--vmlinux')
    ap.add_argument('--tree')
    args = ap.parse_args(argv)
    what = args.what or args.log
    try:
        lines = lines_of(args.log)
        judged = args.log
        if args.smp:
            lines = scan_smp(lines, args.log, what, args.cpus, args.vmlinux,
                             args.tree)
            judged = args.log + '.checked'
    except Failed as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    sys.stdout.flush()
    return judge(lines, what, judged)


if __name__ == '__main__':
    sys.exit(main())

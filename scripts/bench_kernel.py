#!/usr/bin/env python3
"""The in-kernel benchmark's figures (KUnit suite kevent_bench) as tables.

Reads the '# bench: key=value ...' lines of one or more kernel logs
(kunit_tool's test.log, one per run) and writes them as CSV and as
Markdown: per (N, K) the ns per event of each reader (median [min, max]
over the repetitions) and the ratios kevent_get_events / epoll_et and
kevent_ring / epoll_et, of the whole (notify + collect) and of the
collection alone; per T the timers.

A second pipes table splits the notification: the pipe write alone (the
reader 'unwatched', whose pipes nothing watches), each watcher's own
share of a notification (its notify figure minus that write), and the
most kevent's own share could cost for kevent_ring / epoll_et to be 0.8
(0.8 x epoll_et's whole figure, minus the ring's collection and the
write).

With several logs every figure is computed within each run and the
tables give the median over the runs (a cell's [min, max] is the lowest
min and the highest max of all runs), so that a disturbance of the
machine during one run moves a ratio of that run only.

The gated table comes from the '# bench-paired:' lines: per (N, K) each
reader's own share of a notification and its collection, less the
write and the clock, and the ratios of issue 27's targets (T1 own
notify get/epoll, T2 Q get/epoll and ring/epoll, T3 the ring's
collection over get's, the whole get/epoll), each paired within each
repetition in the kernel, then the median over the runs.  The validity
gate is over the runs too: kevent_get_events and kevent_ring run the
same notification code, so per (N, K) the median over at least MIN_RUNS
runs of each run's paired get-minus-ring difference must be within 2 ns
(5 at N = 10000), or every figure is INVALID.  One run cannot pass: what
a boot fixes (where its objects land in the cache) moves that difference
by the limit itself, with a sign that changes from boot to boot.  The
gate's differences and the target ratios come with a 95% bootstrap
interval over the runs (the other figures are bare medians), and a
target is 'met' or 'missed' only when its whole interval is on one side
of the limit.  The '# bench-calibrate:' lines give what a clock
read, a __put_user and a 640-byte copy cost.

With --base LOG... (a base kernel's logs, its runs booted in turn with
this kernel's) it compares the two: per (N, K) and figure, the median
over the pairs of runs of this kernel's figure minus the base's, with
its interval.  A change shows in the figure of the reader it changes,
not in a ratio: the readers share the cache, and a change to kevent's
objects has moved epoll's figure by 20 ns (RESULTS.md, fifth round).

Usage: bench_kernel.py LOG... [--base LOG...] [--csv FILE] [--md FILE]
(the tables also go to standard output; the CSV has one row per run and
figure).  A LOG ending in .csv is a CSV this script wrote, of one run or
several.  Logs named NAME-N.log (kernel-N.log, base-N.log) are run N,
so that a base's run pairs with this kernel's run of the same number
whatever the order of the arguments; other logs are numbered in order.
"""
import argparse
import csv
import random
import re
import statistics
import sys

LINE = re.compile(r'bench: (shape=.*)$')
PAIRED = re.compile(r'bench-paired: (shape=.*)$')
CALIBRATE = re.compile(r'bench-calibrate: (.*)$')
PAIRED_COLS = [('write', 'write', '.1f'), ('clock', 'clock', '.1f'),
               ('own_get', 'own get', '.1f'), ('own_ring', 'own ring', '.1f'),
               ('own_epoll_et', 'own epoll_et', '.1f'),
               ('q_get', 'Q get', '.1f'), ('q_ring', 'Q ring', '.1f'),
               ('q_epoll_et', 'Q epoll_et', '.1f'),
               ('t1_get', 'T1 own get/epoll', '.2f'),
               ('t2_get', 'T2 Q get/epoll', '.2f'),
               ('t2_ring', 'T2 Q ring/epoll', '.2f'),
               ('t3', 'T3 collect ring/get', '.2f'),
               ('whole_get', 'whole get/epoll', '.2f'),
               ('gate_diff', 'gate get-ring', '.1f')]
PIPE_READERS = ['kevent_get_events', 'kevent_ring', 'epoll_et', 'epoll_lt',
                'unwatched']
WATCHERS = PIPE_READERS[:-1]
TIMER_READERS = ['kevent_get_events', 'timerfd_epoll_read']
SLEEP_READERS = ['kevent_get_events', 'kevent_ring', 'epoll_et']
RING_TARGET = 0.8
# The gate needs several runs: what one boot fixes (where its objects
# land) moves a cell's get-ring difference by the limit itself.
MIN_RUNS = 5
BOOTSTRAP = 2000
# Issue 27's targets, per K (None: no target at that K); "K >= 16" is
# read as K > 1, since at N = 10 the many-events case is K = 10.
TARGETS = {'t1_get': lambda k: 1.0 if k > 1 else None,
           't2_get': lambda k: 0.8 if k > 1 else 1.0,
           't2_ring': lambda k: 0.8 if k > 1 else 1.0,
           't3': lambda k: 1.0,
           'whole_get': lambda k: 1.0}
TARGET_NAMES = {'t1_get': 'T1 own notify get/epoll',
                't2_get': 'T2 Q get/epoll', 't2_ring': 'T2 Q ring/epoll',
                't3': 'T3 collect ring/get', 'whole_get': 'whole get/epoll'}
FIELDS = ['run', 'shape', 'reader', 'N', 'K', 'ns_per_event', 'min', 'max',
          'notify_ns', 'collect_ns', 'reps']


class BenchError(Exception):
    """Input this script cannot read; the message says which and why."""


def typed(row, run):
    """@row (strings) with numbers, as figure of run @run."""
    missing = [k for k in FIELDS if k != 'run' and k not in row]
    if missing:
        raise BenchError('no ' + ', '.join(missing))
    try:
        for key in ('N', 'K', 'reps'):
            row[key] = int(row[key])
        for key in ('ns_per_event', 'min', 'max', 'notify_ns', 'collect_ns'):
            row[key] = float(row[key])
    except ValueError as e:
        raise BenchError(str(e)) from None
    row['run'] = run
    return row


def words(text):
    """'key=value ...' -> dict, or None when a word has no '='."""
    kv = [w.split('=', 1) for w in text.split()]
    return dict(kv) if all(len(p) == 2 for p in kv) else None


def parse(text, run=1, name='log'):
    """The figures of a log: a list of dicts with FIELDS."""
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        m = LINE.search(line)
        if not m:
            continue
        kv = words(m.group(1))
        try:
            if kv is None:
                raise BenchError('a word without "="')
            rows.append(typed(kv, run))
        except BenchError as e:
            raise BenchError(f'{name}:{n}: a garbled "# bench:" line ({e})') from None
    return rows


def text_of(path):
    """The text of a kernel log."""
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError as e:
        raise BenchError(f'{path}: {e.strerror}') from None


def read(path, first):
    """The figures of a kernel log (run @first), or of a CSV this script
    wrote (its runs numbered from @first on, in the order they come)."""
    if not path.endswith('.csv'):
        return parse(text_of(path), first, path)
    try:
        with open(path, errors='replace', newline='') as f:
            reader = csv.DictReader(f)
            missing = [k for k in FIELDS if k != 'run'
                       and k not in (reader.fieldnames or [])]
            if missing:
                raise BenchError(f'{path}: not a CSV of bench_kernel.py '
                                 f'(no column {", ".join(missing)})')
            runs, rows = {}, []
            for n, r in enumerate(reader, 2):
                run = runs.setdefault(r.get('run'), first + len(runs))
                try:
                    rows.append(typed({k: r[k] for k in FIELDS if k != 'run'},
                                      run))
                except BenchError as e:
                    raise BenchError(f'{path}:{n}: {e}') from None
            return rows
    except OSError as e:
        raise BenchError(f'{path}: {e.strerror}') from None


class Runs:
    """The figures of every run, looked up by (shape, reader, N, K)."""

    def __init__(self, rows):
        self.by = {}
        for r in rows:
            key = (r['shape'], r['reader'], r['N'], r['K'])
            self.by.setdefault(key, {})[r['run']] = r
        self.runs = sorted({r['run'] for r in rows})

    def has(self, key):
        return key in self.by

    def cell(self, key):
        """median [lowest min, highest max] of a figure, or '-'."""
        got = self.by.get(key)
        if not got:
            return '-'
        rs = got.values()
        med = statistics.median(r['ns_per_event'] for r in rs)
        lo = min(r['min'] for r in rs)
        hi = max(r['max'] for r in rs)
        return f'{med:.0f} [{lo:.0f}, {hi:.0f}]'

    def per_run(self, fn, *keys):
        """The median over the runs that have every key of fn(rows)."""
        vals = []
        for run in self.runs:
            rows = [self.by.get(k, {}).get(run) for k in keys]
            if all(rows):
                v = fn(*rows)
                if v is not None:
                    vals.append(v)
        return statistics.median(vals) if vals else None


def fmt(v, spec):
    return '-' if v is None else format(v, spec)


def ratio(key='ns_per_event'):
    return lambda a, b: a[key] / b[key] if b[key] else None


def notify_table(runs, pipes):
    """The notification split: the write alone, each watcher's own share."""
    out = ['| N | K | write alone | ' +
           ' | '.join(f'{rd} own' for rd in WATCHERS) +
           f' | kevent own for ring/epoll {RING_TARGET} |',
           '|---:|---:|' + '---:|' * (len(WATCHERS) + 2)]
    for n, k in pipes:
        w = ('pipes', 'unwatched', n, k)
        if not runs.has(w):
            continue
        cells = [fmt(runs.per_run(lambda r: r['notify_ns'], w), '.0f')]
        for rd in WATCHERS:
            own = runs.per_run(lambda r, u: r['notify_ns'] - u['notify_ns'],
                               ('pipes', rd, n, k), w)
            cells.append(fmt(own, '.0f'))
        budget = runs.per_run(
            lambda e, g, u: (RING_TARGET * e['ns_per_event'] -
                             g['collect_ns'] - u['notify_ns']),
            ('pipes', 'epoll_et', n, k), ('pipes', 'kevent_ring', n, k), w)
        cells.append(fmt(budget, '.0f'))
        out.append(f'| {n} | {k} | ' + ' | '.join(cells) + ' |')
    return out


def tables(rows):
    """The Markdown tables of @rows (of one run or several)."""
    runs = Runs(rows)
    out = []
    pipes = sorted({(r['N'], r['K']) for r in rows if r['shape'] == 'pipes'})
    if pipes:
        out.append('| N | K | ' + ' | '.join(PIPE_READERS) +
                   ' | get/epoll | ring/epoll | get/epoll collect | ring/epoll collect |')
        out.append('|---:|---:|' + '---:|' * (len(PIPE_READERS) + 4))
        for n, k in pipes:
            key = {rd: ('pipes', rd, n, k) for rd in PIPE_READERS}
            cells = [runs.cell(key[rd]) for rd in PIPE_READERS]
            for what in ('ns_per_event', 'collect_ns'):
                for rd in ('kevent_get_events', 'kevent_ring'):
                    cells.append(fmt(runs.per_run(ratio(what), key[rd],
                                                  key['epoll_et']), '.2f'))
            out.append(f'| {n} | {k} | ' + ' | '.join(cells) + ' |')
        if any(r['reader'] == 'unwatched' for r in rows):
            out += [''] + notify_table(runs, pipes)
    sleep = sorted({r['N'] for r in rows if r['shape'] == 'sleep'})
    if sleep:
        if out:
            out.append('')
        out.append('Shape sleep: the collector asleep in its wait; ns from the '
                   'write to the woken collection [min, max], and the write '
                   '(which wakes the task)')
        out.append('')
        out.append('| N | ' + ' | '.join(SLEEP_READERS) + ' | ' +
                   ' | '.join(f'{rd} write' for rd in SLEEP_READERS) +
                   ' | get/epoll | ring/epoll |')
        out.append('|---:|' + '---:|' * (2 * len(SLEEP_READERS) + 2))
        for n in sleep:
            key = {rd: ('sleep', rd, n, 1) for rd in SLEEP_READERS}
            cells = [runs.cell(key[rd]) for rd in SLEEP_READERS]
            cells += [fmt(runs.per_run(lambda r: r['notify_ns'], key[rd]), '.0f')
                      for rd in SLEEP_READERS]
            for rd in ('kevent_get_events', 'kevent_ring'):
                cells.append(fmt(runs.per_run(ratio(), key[rd], key['epoll_et']),
                                 '.2f'))
            out.append(f'| {n} | ' + ' | '.join(cells) + ' |')
    timers = sorted({r['N'] for r in rows if r['shape'] == 'timers'})
    if timers:
        if out:
            out.append('')
        out.append('| T | ' + ' | '.join(TIMER_READERS) + ' | kevent/timerfd |')
        out.append('|---:|' + '---:|' * (len(TIMER_READERS) + 1))
        for t in timers:
            key = {rd: ('timers', rd, t, t) for rd in TIMER_READERS}
            cells = [runs.cell(key[rd]) for rd in TIMER_READERS]
            cells.append(fmt(runs.per_run(ratio(), key['kevent_get_events'],
                                          key['timerfd_epoll_read']), '.2f'))
            out.append(f'| {t} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(out) + '\n'


def number(v):
    return None if v == '-' else float(v)


def parse_paired(text, run=1, name='log'):
    """The '# bench-paired:' lines of a log: dicts, numbers as floats
    (None for '-'), 'valid' a bool, 'run' the run."""
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        m = PAIRED.search(line)
        if not m:
            continue
        d = words(m.group(1))
        need = [k for k, _, _ in PAIRED_COLS] + ['N', 'K', 'valid', 'gate_limit']
        if d is None or any(k not in d for k in need):
            raise BenchError(f'{name}:{n}: a garbled "# bench-paired:" line')
        try:
            row = {k: number(d[k]) for k, _, _ in PAIRED_COLS}
            row.update(N=int(d['N']), K=int(d['K']), run=run,
                       gate_limit=float(d['gate_limit']),
                       valid=d['valid'] == 'yes')
        except ValueError as e:
            raise BenchError(f'{name}:{n}: {e}') from None
        rows.append(row)
    return rows


def parse_calibrate(text):
    """The '# bench-calibrate:' lines of a log: dicts of floats."""
    out = []
    for line in text.splitlines():
        m = CALIBRATE.search(line)
        d = words(m.group(1)) if m else None
        if d:
            try:
                out.append({k: float(v) for k, v in d.items()})
            except ValueError:
                pass
    return out


def bootstrap(vals, seed, resamples=BOOTSTRAP):
    """The median of @vals and its 95% interval: the 2.5th and 97.5th
    percentiles of the medians of @resamples resamples of @vals drawn
    with replacement (the boots are the units: what a boot fixes, such as
    where its objects land, varies between boots, not within one).  The
    generator is seeded with @seed (the cell and figure) and the values
    are sorted first, so an interval depends neither on the order of the
    logs nor on what was resampled before it."""
    vals = sorted(vals)
    med = statistics.median(vals)
    if len(vals) < 2:
        return med, None, None
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(vals, k=len(vals)))
                  for _ in range(resamples))
    tail = int(0.025 * resamples)
    return med, meds[tail], meds[resamples - 1 - tail]


def plural(n, word):
    return f'{n} {word}' + ('' if n == 1 else 's')


def target_verdict(lo, hi, limit):
    """'met' when the whole interval is at or below @limit, 'missed' when
    it is all above, else 'open' (this run cannot tell)."""
    if lo is None:
        return 'open'
    if hi <= limit:
        return 'met'
    if lo > limit:
        return 'missed'
    return 'open'


def gate(paired):
    """The validity gate over the runs: per (N, K) the median over the runs
    of each run's paired get-minus-ring notify difference, its 95%
    interval, the limit, and whether it holds (with a figure from at least
    MIN_RUNS runs).  Returns (cells, valid)."""
    runs = sorted({r['run'] for r in paired})
    cells = []
    for n, k in sorted({(r['N'], r['K']) for r in paired}):
        vals = [r['gate_diff'] for r in paired
                if r['N'] == n and r['K'] == k and r['gate_diff'] is not None]
        limit = max(r['gate_limit'] for r in paired
                    if r['N'] == n and r['K'] == k)
        if not vals:
            cells.append((n, k, 0, None, None, None, limit, False))
            continue
        med, lo, hi = bootstrap(vals, f'gate {n} {k}')
        # Each cell needs its own MIN_RUNS figures, not the runs overall.
        cells.append((n, k, len(vals), med, lo, hi, limit,
                      len(vals) >= MIN_RUNS and abs(med) <= limit))
    valid = len(runs) >= MIN_RUNS and all(c[-1] for c in cells)
    return cells, valid


def gated_tables(paired, calibrations):
    """The gate over the runs, then the gated table: per (N, K) the median
    over the runs of each paired figure, and of each target ratio with its
    95% interval and verdict; INVALID when the gate does not hold."""
    if not paired:
        return ''
    runs = sorted({r['run'] for r in paired})
    cells, valid = gate(paired)
    out = [f'validity gate over {plural(len(runs), "run")} (at least {MIN_RUNS}): '
           'per (N, K), the median over the runs of kevent_get_events\' '
           'notify minus kevent_ring\'s (the same code), 95% interval, limit:']
    for n, k, had, med, lo, hi, limit, ok in cells:
        ci = '' if lo is None else f' [{lo:+.1f}, {hi:+.1f}]'
        short = ''
        if had < len(runs) or had < MIN_RUNS:
            short = f', from {plural(had, "run")} ({MIN_RUNS} needed)'
        out.append(f'  N={n} K={k}: ' +
                   ('no figure' if med is None else f'{med:+.1f}{ci}') +
                   f' ns{short}, limit {limit:.0f}: ' + ('ok' if ok else 'FAILS'))
    own = [r for r in runs if all(p['valid'] for p in paired if p['run'] == r)]
    out.append(f'  (runs whose own gate held in every (N, K): {len(own)} of '
               f'{len(runs)}; one run is not enough, its layout stays fixed)')
    if valid:
        out.append('validity gate: passed')
    elif len(runs) < MIN_RUNS:
        out.append(f'validity gate: INVALID, {plural(len(runs), "run")} '
                   f'(BENCH_RUNS={MIN_RUNS} or more): no figure below may '
                   'be used')
    else:
        out.append('validity gate: INVALID, no figure below may be used')
    if calibrations:
        keys = list(calibrations[0])
        out.append('calibration (ns, median over the cases): ' + ', '.join(
            f'{k} {statistics.median(c[k] for c in calibrations if k in c):.1f}'
            for k in keys))
    out += ['', '| N | K | ' + ' | '.join(h for _, h, _ in PAIRED_COLS) + ' |',
            '|---:|---:|' + '---:|' * len(PAIRED_COLS)]
    mark = '' if valid else ' INVALID'
    pairs = sorted({(r['N'], r['K']) for r in paired})
    verdicts = []
    for n, k in pairs:
        row = []
        for key, _, spec in PAIRED_COLS:
            vals = [r[key] for r in paired
                    if r['N'] == n and r['K'] == k and r[key] is not None]
            row.append(fmt(statistics.median(vals) if vals else None, spec))
            if key in TARGETS and vals:
                med, lo, hi = bootstrap(vals, f'{key} {n} {k}')
                limit = TARGETS[key](k)
                if limit is not None:
                    verdicts.append((n, k, key, med, lo, hi, limit,
                                     target_verdict(lo, hi, limit)))
        out.append(f'| {n} | {k} | ' + ' | '.join(row) + f' |{mark}')
    if verdicts:
        out += ['', 'targets (median over the runs [95% interval], limit: '
                'met, missed, or open when the interval holds the limit)' + mark,
                '', '| N | K | target | median | 95% interval | limit | verdict |',
                '|---:|---:|---|---:|---|---:|---|']
        for n, k, key, med, lo, hi, limit, v in verdicts:
            ci = '-' if lo is None else f'[{lo:.2f}, {hi:.2f}]'
            out.append(f'| {n} | {k} | {TARGET_NAMES[key]} | {med:.2f} | {ci} '
                       f'| {limit:.1f} | {v} |')
    return '\n'.join(out) + '\n'


COMPARED = [('own_get', 'own get'), ('own_ring', 'own ring'),
            ('own_epoll_et', 'own epoll_et'), ('q_get', 'Q get'),
            ('q_ring', 'Q ring'), ('q_epoll_et', 'Q epoll_et'),
            ('t1_get', 'T1'), ('t2_get', 'T2 get'), ('t2_ring', 'T2 ring'),
            ('t3', 'T3'), ('whole_get', 'whole get/epoll')]


def compare(base, new):
    """This kernel against a base kernel, booted in turn: per (N, K) and
    figure, the median over the pairs of runs (run i of each, next to each
    other in time) of new minus base, with its 95% bootstrap interval; *
    marks an interval that excludes 0.  A change shows in the figure of
    the reader it changes: the readers share the cache, so a change to
    one reader's objects can move another's figure, and a ratio with it."""
    b = {(r['run'], r['N'], r['K']): r for r in base}
    n = {(r['run'], r['N'], r['K']): r for r in new}
    pairs = sorted(set(b) & set(n))
    runs = sorted({p[0] for p in pairs})
    alone = sorted({r['run'] for r in base} ^ {r['run'] for r in new})
    out = [f'this kernel minus the base, over {plural(len(runs), "pair")} of '
           'runs: median [95% interval], * when the interval excludes 0 '
           '(ns per event; the ratios as ratios)']
    if alone:
        out.append('runs of one kernel only, left out: ' +
                   ', '.join(str(r) for r in alone))
    out += ['',
           '| N | K | ' + ' | '.join(h for _, h in COMPARED) + ' |',
           '|---:|---:|' + '---|' * len(COMPARED)]
    for cn, ck in sorted({(p[1], p[2]) for p in pairs}):
        cells = []
        for key, _ in COMPARED:
            d = [n[p][key] - b[p][key] for p in pairs
                 if p[1:] == (cn, ck) and n[p][key] is not None
                 and b[p][key] is not None]
            if not d:
                cells.append('-')
                continue
            med, lo, hi = bootstrap(d, f'compare {key} {cn} {ck}')
            spec = '+.2f' if key.startswith(('t', 'whole')) else '+.1f'
            if lo is None:
                cells.append(format(med, spec))
                continue
            star = '*' if lo > 0 or hi < 0 else ''
            cells.append(f'{med:{spec}} [{lo:{spec}}, {hi:{spec}}]{star}')
        out.append(f'| {cn} | {ck} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(out) + '\n'


NUMBERED = re.compile(r'-(\d+)\.log$')


def run_numbers(logs):
    """The run numbers of @logs when each is a log named NAME-N.log with
    its own N (bench.py kernel's kernel-N.log and base-N.log), else
    None: the logs are then numbered in the order given."""
    found = [NUMBERED.search(log) for log in logs]
    if not all(found):
        return None
    nums = [int(m.group(1)) for m in found]
    return nums if len(set(nums)) == len(nums) else None


def load(logs):
    """The figures, paired figures and calibrations of @logs (one run each,
    numbered by their names, see run_numbers(), or in order), or exit with
    a message."""
    rows, paired, calibrations = [], [], []
    numbers = run_numbers(logs)
    for i, log in enumerate(logs):
        run = (numbers[i] if numbers else
               1 + max((r['run'] for r in rows), default=0))
        try:
            if log.endswith('.csv'):
                got = read(log, run)
            else:
                text = text_of(log)
                got = parse(text, run, log)
                paired += parse_paired(text, run, log)
                calibrations += parse_calibrate(text)
        except BenchError as e:
            sys.exit(f'bench_kernel.py: {e}')
        if not got:
            sys.exit(f'bench_kernel.py: no figures ("# bench:" lines or CSV rows) in {log}')
        rows += got
    return rows, paired, calibrations


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('log', nargs='+', help='kernel logs (one run each) or CSVs this script wrote')
    ap.add_argument('--csv')
    ap.add_argument('--md')
    ap.add_argument('--base', nargs='+', metavar='LOG',
                    help="a base kernel's logs, booted in turn with LOG...: "
                    'the tables compare this kernel with it, run by run')
    args = ap.parse_args(argv)
    rows, paired, calibrations = load(args.log)
    if args.csv:
        with open(args.csv, 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction='ignore')
            w.writeheader()
            w.writerows(rows)
    md = tables(rows)
    gated = gated_tables(paired, calibrations)
    if gated:
        md = gated + '\n' + md
    if args.base:
        _, base, _ = load(args.base)
        if not base or not paired:
            sys.exit('bench_kernel.py: --base needs "# bench-paired:" lines '
                     'in both kernels\' logs')
        md = ('## This kernel against the base\n\n' + compare(base, paired) +
              '\n## The base kernel\n\n' + gated_tables(base, []) +
              '\n## This kernel\n\n' + md)
    if args.md:
        with open(args.md, 'w') as f:
            f.write(md)
    sys.stdout.write(md)


if __name__ == '__main__':
    main()

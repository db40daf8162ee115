#!/usr/bin/env python3
"""The in-kernel benchmark's figures (KUnit suite bench_kevent) as tables.

Reads the '# bench: key=value ...' lines of a kernel log (kunit_tool's
test.log) and writes them as CSV and as Markdown: per (N, K) the ns per
event of each reader (median [min, max] over the repetitions) and the
ratios kevent_get_events / epoll_et and kevent_ring / epoll_et, of the
whole (notify + collect) and of the collection alone; per T the timers.

Usage: bench_kernel.py LOG [--csv FILE] [--md FILE]   (the table also
goes to standard output)
"""
import argparse
import csv
import re
import sys

LINE = re.compile(r'bench: (shape=.*)$')
PIPE_READERS = ['kevent_get_events', 'kevent_ring', 'epoll_et', 'epoll_lt']
TIMER_READERS = ['kevent_get_events', 'timerfd_epoll_read']
FIELDS = ['shape', 'reader', 'N', 'K', 'ns_per_event', 'min', 'max',
          'notify_ns', 'collect_ns', 'reps']


def parse(text):
    """The figures of a log: a list of dicts with FIELDS."""
    rows = []
    for line in text.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        row = dict(kv.split('=', 1) for kv in m.group(1).split())
        for key in ('N', 'K', 'reps'):
            row[key] = int(row[key])
        for key in ('ns_per_event', 'min', 'max', 'notify_ns', 'collect_ns'):
            row[key] = float(row[key])
        rows.append(row)
    return rows


def cell(r):
    return f"{r['ns_per_event']:.0f} [{r['min']:.0f}, {r['max']:.0f}]"


def ratio(a, b, key='ns_per_event'):
    if a is None or b is None or not b[key]:
        return '-'
    return f'{a[key] / b[key]:.2f}'


def tables(rows):
    """The Markdown tables of @rows."""
    by = {(r['shape'], r['reader'], r['N'], r['K']): r for r in rows}
    out = []
    pipes = sorted({(r['N'], r['K']) for r in rows if r['shape'] == 'pipes'})
    if pipes:
        out.append('| N | K | ' + ' | '.join(PIPE_READERS) +
                   ' | get/epoll | ring/epoll | get/epoll collect | ring/epoll collect |')
        out.append('|---:|---:|' + '---:|' * (len(PIPE_READERS) + 4))
        for n, k in pipes:
            got = {rd: by.get(('pipes', rd, n, k)) for rd in PIPE_READERS}
            ep = got['epoll_et']
            cells = [cell(got[rd]) if got[rd] else '-' for rd in PIPE_READERS]
            cells += [ratio(got['kevent_get_events'], ep),
                      ratio(got['kevent_ring'], ep),
                      ratio(got['kevent_get_events'], ep, 'collect_ns'),
                      ratio(got['kevent_ring'], ep, 'collect_ns')]
            out.append(f'| {n} | {k} | ' + ' | '.join(cells) + ' |')
    timers = sorted({r['N'] for r in rows if r['shape'] == 'timers'})
    if timers:
        if out:
            out.append('')
        out.append('| T | ' + ' | '.join(TIMER_READERS) + ' | kevent/timerfd |')
        out.append('|---:|' + '---:|' * (len(TIMER_READERS) + 1))
        for t in timers:
            got = {rd: by.get(('timers', rd, t, t)) for rd in TIMER_READERS}
            cells = [cell(got[rd]) if got[rd] else '-' for rd in TIMER_READERS]
            cells.append(ratio(got['kevent_get_events'], got['timerfd_epoll_read']))
            out.append(f'| {t} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(out) + '\n'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('log')
    ap.add_argument('--csv')
    ap.add_argument('--md')
    args = ap.parse_args(argv)
    with open(args.log, errors='replace') as f:
        rows = parse(f.read())
    if not rows:
        sys.exit(f'bench_kernel.py: no "# bench:" lines in {args.log}')
    if args.csv:
        with open(args.csv, 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction='ignore')
            w.writeheader()
            w.writerows(rows)
    md = tables(rows)
    if args.md:
        with open(args.md, 'w') as f:
            f.write(md)
    sys.stdout.write(md)


if __name__ == '__main__':
    main()

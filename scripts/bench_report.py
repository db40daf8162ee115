#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plots from kevent-bench's raw CSV.

Reads DIR/raw.csv (one line per repetition) and writes, in DIR:
  bench.csv   per shape, reader and N: the median, min and max of events
              per second and of reader CPU microseconds per event
  bench.md    the same as Markdown tables, and the kevent/epoll ratios
  SHAPE.png   reader CPU per event against N, one line per reader
              (gnuplot; skipped with a note when gnuplot is missing)
and prints bench.md.
"""

import csv
import os
import shutil
import statistics
import subprocess
import sys

SHAPES = (
    ('random', 'random: N pipes, a writer writes single bytes to random pipes', 'N pipes'),
    ('oneactive', 'one active: N pipes watched, only one written', 'N pipes'),
    ('timers', 'timers: T periodic timers, distinct periods (events = expirations)', 'T timers'),
)
# For each shape: the epoll reader the kevent readers are compared with.
BASELINE = {'random': 'epoll_et', 'oneactive': 'epoll_et', 'timers': 'timerfd_epoll'}
KEVENT_READERS = ('kevent_get_events', 'kevent_wait_ring')


def load(path):
    runs = {}
    order = []
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row['shape'], row['reader'], int(row['n']))
            if key not in runs:
                order.append(key)
            events, wall, cpu = int(row['events']), float(row['wall_s']), float(row['cpu_s'])
            runs.setdefault(key, []).append((events, wall, cpu))
    return runs, order


def stats(values):
    return statistics.median(values), min(values), max(values)


def summarise(runs):
    out = {}
    for key, reps in runs.items():
        rate = [e / w for e, w, _ in reps if w > 0]
        cpu = [c * 1e6 / e for e, _, c in reps if e]
        per_cpu_s = [e / c for e, _, c in reps if c > 0]
        out[key] = {
            'reps': len(reps),
            'rate': stats(rate) if rate else (0, 0, 0),
            'cpu': stats(cpu) if cpu else (0, 0, 0),
            'per_cpu_s': statistics.median(per_cpu_s) if per_cpu_s else 0,
        }
    return out


def write_csv(path, summary, order):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['shape', 'reader', 'n', 'reps',
                    'events_per_s_median', 'events_per_s_min', 'events_per_s_max',
                    'cpu_us_per_event_median', 'cpu_us_per_event_min',
                    'cpu_us_per_event_max', 'events_per_cpu_s_median'])
        for key in order:
            s = summary[key]
            w.writerow(list(key) + [s['reps']] + ['%.1f' % v for v in s['rate']] +
                       ['%.2f' % v for v in s['cpu']] + ['%.0f' % s['per_cpu_s']])


def ratios(summary):
    """Lines: for each shape at its largest N, kevent/epoll events per CPU s."""
    lines = []
    for shape, _, _ in SHAPES:
        ns = [n for (s, _, n) in summary if s == shape]
        if not ns:
            continue
        n = max(ns)
        base = summary.get((shape, BASELINE[shape], n))
        if not base or not base['per_cpu_s']:
            continue
        for reader in KEVENT_READERS:
            k = summary.get((shape, reader, n))
            if k and k['per_cpu_s']:
                lines.append('| %s | %d | %s | %.0f | %.0f | %.2f |'
                             % (shape, n, reader, k['per_cpu_s'], base['per_cpu_s'],
                                k['per_cpu_s'] / base['per_cpu_s']))
    if not lines:
        return []
    return (['', '### kevent / epoll, events per reader CPU second, largest N', '',
             '| shape | N | kevent reader | kevent events/CPU s | epoll events/CPU s (%s) | ratio |'
             % ', '.join(sorted(set(BASELINE.values()))),
             '|---|---:|---|---:|---:|---:|'] + lines)


def markdown(summary, order):
    lines = ['## kevent-bench results', '',
             'Median of the repetitions, [min, max] in brackets. CPU is the reader',
             "thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per event."]
    for shape, title, unit in SHAPES:
        keys = [k for k in order if k[0] == shape]
        if not keys:
            continue
        lines += ['', '### ' + title, '',
                  '| reader | %s | events/s | reader CPU us/event | events/CPU s |' % unit.split()[0],
                  '|---|---:|---:|---:|---:|']
        for key in sorted(keys, key=lambda k: (k[1], k[2])):
            s = summary[key]
            lines.append('| %s | %d | %.0f [%.0f, %.0f] | %.1f [%.1f, %.1f] | %.0f |'
                         % ((key[1], key[2]) + s['rate'] + s['cpu'] + (s['per_cpu_s'],)))
    return lines + ratios(summary)


def plots(out, summary):
    gp = shutil.which('gnuplot')
    if not gp:
        return ['', '(no plots: gnuplot is missing; apt-get install gnuplot-nox)']
    terminal = ('set terminal pngcairo size 900,560 noenhanced' if 'cairo' in _terminals(gp)
                else 'set terminal png size 900,560 noenhanced')
    made = []
    for shape, title, unit in SHAPES:
        readers = sorted({r for (s, r, _) in summary if s == shape})
        if not readers:
            continue
        series = []
        for r in readers:
            data = os.path.join(out, '%s-%s.dat' % (shape, r))
            with open(data, 'w') as f:
                for n in sorted(n for (s, rr, n) in summary if s == shape and rr == r):
                    m, lo, hi = summary[(shape, r, n)]['cpu']
                    f.write('%d %f %f %f\n' % (n, m, lo, hi))
            series.append("'%s' using 1:2:3:4 with yerrorlines title '%s'" % (data, r))
        png = os.path.join(out, '%s.png' % shape)
        script = '\n'.join([
            terminal,
            "set output '%s'" % png,
            "set title '%s'" % title,
            'set logscale x', 'set logscale y',
            "set xlabel '%s'" % unit, "set ylabel 'reader CPU us per event (median, min-max)'",
            'set key outside right', 'set grid',
            'plot ' + ', '.join(series), ''])
        res = subprocess.run([gp], input=script, text=True, capture_output=True)
        if res.returncode:
            return ['', '(plots failed: %s)' % res.stderr.strip()]
        made.append(os.path.basename(png))
    return ['', 'Plots: ' + ', '.join(made)]


def _terminals(gp):
    res = subprocess.run([gp, '-e', 'set terminal'], text=True, capture_output=True)
    return res.stdout + res.stderr


def main():
    if len(sys.argv) != 2:
        print('usage: bench_report.py RESULTS_DIR', file=sys.stderr)
        return 2
    out = sys.argv[1]
    raw = os.path.join(out, 'raw.csv')
    try:
        runs, order = load(raw)
    except OSError as e:
        print('bench_report: %s' % e, file=sys.stderr)
        return 1
    if not runs:
        print('bench_report: %s has no results' % raw, file=sys.stderr)
        return 1
    summary = summarise(runs)
    write_csv(os.path.join(out, 'bench.csv'), summary, order)
    md = markdown(summary, order)
    md += plots(out, summary)
    with open(os.path.join(out, 'bench.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')
    print('\n'.join(md))
    print('\nbench: %s/{bench.md,bench.csv,*.png}' % out)
    return 0


if __name__ == '__main__':
    sys.exit(main())

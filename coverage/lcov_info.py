# SPDX-License-Identifier: GPL-2.0
"""The harness's coverage module: read lcov .info files (per source file,
the union of all test sections), and make what the summary and the
report show of them: the table per layer, the least-covered functions,
the floors of coverage/floors.conf.

A run's coverage data is RESULTS/coverage-LAYER.info, one per UML test
layer and their union ('all'), captured by coverage/capture.py.  Used by
scripts/summary.py (the text of a run) and coverage/index.py (the
report's front page).
"""

import collections
import os

# The coverage layers: a column title in the summary, a page title in
# the report.
Layer = collections.namedtuple('Layer', 'name column page')
LAYERS = (
    Layer('kunit', 'KUnit', 'KUnit only'),
    Layer('userland', 'user', 'user space only'),
    Layer('fuzz', 'fuzz', 'fuzz only'),
    Layer('libevent', 'libevent', "libevent's test suite only"),
    Layer('all', 'both', 'both layers'),
)


def parse(path):
    """{source: {'DA': {line: hits}, 'FN': {name: calls}, 'FNL': {name: line},
    'BR': {(line, block, branch): taken}}} or None when PATH cannot be read.

    A line, function or branch is counted once, hit if any section hit it.
    """
    raw = {}
    cur = None
    try:
        with open(path) as f:
            for line in f:
                key, _, val = line.strip().partition(':')
                if key == 'SF':
                    cur = raw.setdefault(val, {'DA': {}, 'FN': {}, 'FNL': {}, 'BR': {}})
                elif cur is None:
                    continue
                elif key == 'DA':
                    no, count = val.split(',')[:2]
                    cur['DA'][int(no)] = cur['DA'].get(int(no), 0) + int(count)
                elif key == 'FN':
                    parts = val.split(',')
                    cur['FNL'][parts[-1]] = int(parts[0])
                elif key == 'FNDA':
                    count, name = val.split(',', 1)
                    cur['FN'][name] = cur['FN'].get(name, 0) + int(count)
                elif key == 'BRDA':
                    line_no, block, branch, taken = val.split(',')
                    k = (int(line_no), block, branch)
                    hit = 0 if taken == '-' else int(taken)
                    cur['BR'][k] = cur['BR'].get(k, 0) + hit
    except OSError:
        return None
    return raw


def totals(d):
    """LF/LH, FNF/FNH, BRF/BRH of one file's record."""
    return {
        'LF': len(d['DA']), 'LH': sum(1 for c in d['DA'].values() if c),
        'FNF': len(d['FN']), 'FNH': sum(1 for c in d['FN'].values() if c),
        'BRF': len(d['BR']), 'BRH': sum(1 for c in d['BR'].values() if c),
    }


def functions(d):
    """[(name, first line, lines, lines hit, calls)] of one file's record.

    A function's lines are the instrumented lines from its first line up
    to the next function's first line.
    """
    starts = sorted((line, name) for name, line in d['FNL'].items())
    out = []
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else float('inf')
        lines = [c for no, c in d['DA'].items() if start <= no < end]
        out.append((name, start, len(lines), sum(1 for c in lines if c),
                    d['FN'].get(name, 0)))
    return out


def least_covered(data, limit):
    """The LIMIT functions with the lowest line coverage (below 100%), as
    (source, name, first line, lines, lines hit, calls), worst first."""
    rows = []
    for src, d in data.items():
        for name, start, n, hit, calls in functions(d):
            if n and hit < n:
                rows.append((src, name, start, n, hit, calls))
    rows.sort(key=lambda r: (r[4] / r[3], -(r[3] - r[4]), r[0], r[2]))
    return rows[:limit]


def load(results, names=None):
    """{layer: {source: record}} of a run's coverage data, read once; a
    layer without data has {}."""
    return {l.name: parse(os.path.join(results, 'coverage-%s.info' % l.name)) or {}
            for l in LAYERS if names is None or l.name in names}


def _name(src, tree):
    return os.path.relpath(src, tree) if tree else src


def _pct(found, hit):
    return '   -  ' if not found else '%5.1f%%' % (100.0 * hit / found)


def least_covered_text(cov, tree, base='all', limit=5):
    """Lines naming the least-covered functions of layer BASE ('all': both
    test layers together, each shown too)."""
    if not cov.get(base):
        return []
    rows = least_covered(cov[base], limit)
    if not rows:
        return ['  every function of the kevent sources is fully covered', '']
    per_layer = [l for l in LAYERS if l.name in ('kunit', 'userland')] if base == 'all' else []
    out = ['  least-covered functions (lines hit / lines, %s%s):'
           % ('both layers' if base == 'all' else base, '; per layer' if per_layer else '')]
    for src, name, start, n, hit, _ in rows:
        per = []
        for layer in per_layer:
            d = cov.get(layer.name, {}).get(src)
            fns = {f[0]: f for f in functions(d)} if d else {}
            f = fns.get(name)
            per.append('%s %d/%d' % (layer.column, f[3], f[2]) if f else '%s -' % layer.column)
        where = '%s:%d' % (_name(src, tree), start)
        out.append('    %-28s %-36s %3d/%-3d %s' % (name, where, hit, n, ', '.join(per)))
    return out + ['']


def table_text(cov, tree, wanted=('kunit', 'userland', 'all')):
    """The table of line / function / branch coverage per source and layer."""
    layers = [l for l in LAYERS if l.name in wanted]
    if not any(cov.get(l.name) for l in layers):
        return []
    out = ['', 'Coverage of the kevent sources (lines / functions / branches):',
           '  %-32s %s' % ('file', '  '.join('%-24s' % l.column for l in layers))]
    for src in sorted(set().union(*(cov[l.name] for l in layers))):
        cols = []
        for l in layers:
            d = totals(cov[l.name][src]) if src in cov[l.name] else {}
            cols.append('%-24s' % ' '.join((_pct(d.get('LF', 0), d.get('LH', 0)),
                                            _pct(d.get('FNF', 0), d.get('FNH', 0)),
                                            _pct(d.get('BRF', 0), d.get('BRH', 0)))))
        out.append('  %-32s %s' % (_name(src, tree), '  '.join(cols)))
    return out


def floors_missed(cov, tree, path):
    """A line of text for each floor of PATH ("layer file percent" lines,
    '#' comments) that the run's line coverage misses; [] when all are met."""
    missed = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if len(words) != 3:
                continue
            layer, name, floor = words[0], words[1], float(words[2])
            src = os.path.join(tree, name) if tree else name
            d = cov.get(layer, {}).get(src)
            t = totals(d) if d else None
            if not t or not t['LF']:
                missed.append('floor: %s %s: no coverage data' % (layer, name))
                continue
            got = 100.0 * t['LH'] / t['LF']
            if got < floor:
                missed.append('floor: %s %s: %.1f%% of lines, floor %.0f%%'
                              % (layer, name, got, floor))
    return missed

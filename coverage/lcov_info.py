# SPDX-License-Identifier: GPL-2.0
"""Read lcov .info files: per source file, the union of all test sections.

Used by scripts/summary.py (the tables and floors of a run) and
coverage/index.py (the report's front page).
"""


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

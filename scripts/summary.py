#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One summary of a harness run.

Reads the KernelCI JSON that kunit_tool wrote for each layer (KUnit and
user space), prints a table per suite, the coverage of each kevent source
per layer, and ends with the totals line "N passed, N failed".  With
--json FILE it writes every result, both layers, as one KernelCI JSON
document.  Exits 1 when any test failed or a layer has no results.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'coverage'))
import lcov_info  # noqa: E402

# Every layer the harness runs, by kernel: the UML ones (the default run,
# --debug, --fuzz) and the x86_64 SMP ones (--smp, --smp --kcsan).
LAYERS = (('kunit', 'KUnit (UML)'), ('userland', 'user space (UML)'),
          ('fuzz', 'fuzz (debug UML, one test per seed)'),
          ('smp-kunit', 'KUnit (x86_64 SMP, 4 vCPUs, QEMU)'),
          ('smp-userland', 'user space (x86_64 SMP, 4 vCPUs, QEMU)'))


def walk(group, prefix=''):
    """Yield (suite, test, status) for every test case of a KernelCI group."""
    for case in group.get('test_cases', []):
        yield prefix, case['name'], case['status']
    for sub in group.get('sub_groups', []):
        name = sub['name'] if not prefix else prefix + '.' + sub['name']
        yield from walk(sub, name)


def load_layer(results, layer):
    path = os.path.join(results, layer + '.json')
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load_coverage(results):
    """The lcov data of each layer, {layer: {source: record}}, read once."""
    return {l: lcov_info.parse(os.path.join(results, 'coverage-%s.info' % l)) or {}
            for l in ('kunit', 'userland', 'fuzz', 'all')}


def least_covered(cov, tree, base='all', limit=5):
    """Lines naming the least-covered functions of layer BASE ('all': both
    test layers together, each shown too)."""
    if not cov.get(base):
        return []
    rows = lcov_info.least_covered(cov[base], limit)
    if not rows:
        return ['  every function of the kevent sources is fully covered', '']
    per_layer = (('kunit', 'KUnit'), ('userland', 'user')) if base == 'all' else ()
    out = ['  least-covered functions (lines hit / lines, %s%s):'
           % ('both layers' if base == 'all' else base, '; per layer' if per_layer else '')]
    for src, name, start, n, hit, calls in rows:
        per = []
        for layer, title in per_layer:
            d = cov[layer].get(src)
            fns = {f[0]: f for f in lcov_info.functions(d)} if d else {}
            f = fns.get(name)
            per.append('%s %d/%d' % (title, f[3], f[2]) if f else '%s -' % title)
        where = '%s:%d' % (os.path.relpath(src, tree) if tree else src, start)
        out.append('    %-28s %-36s %3d/%-3d %s' % (name, where, hit, n, ', '.join(per)))
    return out + ['']


def pct(found, hit):
    return '   -  ' if not found else '%5.1f%%' % (100.0 * hit / found)


def coverage_table(cov, tree, wanted=('kunit', 'userland', 'all')):
    layers = [(l, t) for l, t in (('kunit', 'KUnit'), ('userland', 'user'),
                                  ('fuzz', 'fuzz'), ('all', 'both'))
              if l in wanted]
    if not any(cov[l] for l, _ in layers):
        return []
    out = ['', 'Coverage of the kevent sources (lines / functions / branches):',
           '  %-30s %s' % ('file', '  '.join('%-24s' % t for _, t in layers))]
    for src in sorted(set().union(*(cov[l] for l, _ in layers))):
        name = os.path.relpath(src, tree) if tree else src
        cols = []
        for l, _ in layers:
            d = lcov_info.totals(cov[l][src]) if src in cov[l] else {}
            cols.append('%-24s' % ' '.join((pct(d.get('LF', 0), d.get('LH', 0)),
                                            pct(d.get('FNF', 0), d.get('FNH', 0)),
                                            pct(d.get('BRF', 0), d.get('BRH', 0)))))
        out.append('  %-30s %s' % (name, '  '.join(cols)))
    return out


def check_floors(cov, tree, path):
    """Lines of text for each floor of FILE missed, or [] when all are met."""
    missed = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if len(words) != 3:
                continue
            layer, name, floor = words[0], words[1], float(words[2])
            src = os.path.join(tree, name) if tree else name
            d = cov.get(layer, {}).get(src)
            t = lcov_info.totals(d) if d else None
            if not t or not t['LF']:
                missed.append('  floor: %s %s: no coverage data' % (layer, name))
                continue
            got = 100.0 * t['LH'] / t['LF']
            if got < floor:
                missed.append('  floor: %s %s: %.1f%% of lines, floor %.0f%%'
                              % (layer, name, got, floor))
    return missed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--results', required=True)
    ap.add_argument('--tree', default='')
    ap.add_argument('--layers', default='kunit,userland')
    ap.add_argument('--coverage-layers', default='kunit,userland,all',
                    help='the coverage columns, when their data is there '
                    '(empty: none, for kernels built without coverage)')
    ap.add_argument('--json', metavar='FILE')
    ap.add_argument('--floors', metavar='FILE',
                    help='coverage floors (layer file percent); a miss counts as a failure')
    ap.add_argument('--failed-stages', default='',
                    help='stages that failed outside the test layers (lint, ...)')
    args = ap.parse_args()

    wanted = args.layers.split(',')
    total = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    combined = {'name': 'kevent', 'sub_groups': [], 'test_cases': []}
    lines = ['', 'Summary', '  %-44s %6s %6s %6s' % ('suite', 'pass', 'fail', 'skip')]
    layer_failures = {}
    for layer, title in LAYERS:
        if layer not in wanted:
            continue
        before = total['FAIL']
        group = load_layer(args.results, layer)
        lines.append('  ' + title)
        if group is None:
            lines.append('    %-42s %6s %6d %6s' % ('(no results: the layer did not finish)',
                                                  '-', 1, '-'))
            total['FAIL'] += 1
            layer_failures[layer] = 1
            continue
        group = dict(group, name=layer)
        combined['sub_groups'].append(group)
        suites = {}
        for suite, _, status in walk(group):
            s = suites.setdefault(suite or layer, {'PASS': 0, 'FAIL': 0, 'SKIP': 0})
            key = status if status in ('PASS', 'SKIP') else 'FAIL'
            s[key] += 1
            total[key] += 1
        if not suites:
            lines.append('    %-42s %6s %6d %6s' % ('(no tests ran)', '-', 1, '-'))
            total['FAIL'] += 1
        for suite, s in sorted(suites.items()):
            lines.append('    %-42s %6d %6d %6d' % (suite, s['PASS'], s['FAIL'], s['SKIP']))
        layer_failures[layer] = total['FAIL'] - before

    for stage in filter(None, args.failed_stages.split(',')):
        if stage in wanted and layer_failures.get(stage, 0):
            continue
        lines.append('  stage %-36s %6s %6d %6s' % (stage, '-', 1, '-'))
        total['FAIL'] += 1

    cov = load_coverage(args.results)
    lines[2:2] = least_covered(cov, args.tree, args.coverage_layers.split(',')[-1])
    lines += coverage_table(cov, args.tree, args.coverage_layers.split(','))
    if args.floors:
        missed = check_floors(cov, args.tree, args.floors)
        lines += missed
        total['FAIL'] += len(missed)
        if not missed:
            lines.append('  all coverage floors of %s met' % os.path.basename(args.floors))
    print('\n'.join(lines))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(combined, f, indent=4)
        print('\nAll results (KernelCI JSON): %s' % args.json)
    print('')
    skipped = ', %d skipped' % total['SKIP'] if total['SKIP'] else ''
    print('%d passed, %d failed%s' % (total['PASS'], total['FAIL'], skipped))
    return 1 if total['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())

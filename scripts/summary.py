#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One summary of a harness run.

Prints a table per suite of each layer the run ran, the coverage of each
kevent source per layer, and ends with the totals line "N passed, N
failed".  With --json FILE it writes every result, all layers and what
failed outside them, as one KernelCI JSON document (the source of the
totals).  Exits 1 when anything failed.  The counting is results.py's,
the coverage lcov_info.py's; this file only prints.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'coverage'))
import lcov_info  # noqa: E402
import results  # noqa: E402

ROW = '    %-42s %6s %6s %6s'


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

    run = results.Run(args.results, args.layers.split(','),
                      list(filter(None, args.failed_stages.split(','))))
    cov_layers = list(filter(None, args.coverage_layers.split(',')))
    cov = lcov_info.load(args.results)
    missed = lcov_info.floors_missed(cov, args.tree, args.floors) if args.floors else []
    for m in missed:
        run.fail(m)

    lines = ['', 'Summary']
    if cov_layers:
        lines += lcov_info.least_covered_text(cov, args.tree, cov_layers[-1])
    lines.append('  %-44s %6s %6s %6s' % ('suite', 'pass', 'fail', 'skip'))
    for layer, suites in run.sections:
        lines.append('  ' + layer.title)
        if suites is None:
            lines.append(ROW % ('(no results: the layer did not finish)', '-', 1, '-'))
        elif not suites:
            lines.append(ROW % ('(no tests ran)', '-', 1, '-'))
        for suite, c in (suites or {}).items():
            lines.append(ROW % (suite, c.passed, c.failed, c.skipped))
    for stage in run.stages:
        lines.append('  stage %-38s %6s %6d %6s' % (stage, '-', 1, '-'))
    lines += lcov_info.table_text(cov, args.tree, cov_layers)
    lines += ['  ' + m for m in missed]
    if args.floors and not missed:
        lines.append('  all coverage floors of %s met' % os.path.basename(args.floors))
    print('\n'.join(lines))
    if args.json:
        run.write(args.json)
        print('\nAll results (KernelCI JSON): %s' % args.json)
    print('')
    total = run.totals()
    print(results.totals_line(total))
    return 1 if total.failed else 0


if __name__ == '__main__':
    sys.exit(main())

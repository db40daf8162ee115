#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the front page of the coverage report, coverage/html/index.html.

One table, a row per kevent source, a column group per layer (KUnit only,
user space only, both), with line, function and branch coverage; each cell
links to that layer's genhtml page of the file.  Below it, the
least-covered functions, linked to their first line.  Then
check_links() makes sure every local link of the report resolves.
"""

import argparse
import html
import os
import re
import sys

import lcov_info

# The report's layers, the union first.
LAYERS = [(l.name, l.page) for name in ('all', 'kunit', 'userland')
          for l in lcov_info.LAYERS if l.name == name]

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th { background: #eee; } td.name { text-align: left; font-family: monospace; }
.hi { background: #c8f0c8; } .mid { background: #f8f0b0; } .lo { background: #f8c8c8; }
"""


def cell(found, hit, href):
    if not found:
        return '<td>-</td>'
    p = 100.0 * hit / found
    cls = 'hi' if p >= 90 else 'mid' if p >= 75 else 'lo'
    text = '%.1f%%<br><small>%d/%d</small>' % (p, hit, found)
    if href:
        text = '<a href="%s">%s</a>' % (html.escape(href), text)
    return '<td class="%s">%s</td>' % (cls, text)


def page_of(src, tree):
    """genhtml's page for SRC, relative to a layer's folder."""
    return os.path.relpath(src, tree) + '.gcov.html'


def front_page(results, tree, out):
    data = lcov_info.load(results, [l for l, _ in LAYERS])
    rows = []
    for src in sorted(data['all']):
        tds = ['<td class="name">%s</td>' % html.escape(os.path.relpath(src, tree))]
        for layer, _ in LAYERS:
            d = data[layer].get(src)
            t = lcov_info.totals(d) if d else {}
            href = '%s/%s' % (layer, page_of(src, tree)) if d else None
            tds += [cell(t.get('LF', 0), t.get('LH', 0), href),
                    cell(t.get('FNF', 0), t.get('FNH', 0), href),
                    cell(t.get('BRF', 0), t.get('BRH', 0), href)]
        rows.append('<tr>%s</tr>' % ''.join(tds))
    least = []
    for src, name, start, n, hit, calls in lcov_info.least_covered(data['all'], 10):
        href = 'all/%s#%d' % (page_of(src, tree), start)
        least.append('<tr><td class="name"><a href="%s">%s</a></td><td class="name">%s:%d</td>'
                     '<td>%d/%d</td><td>%d</td></tr>'
                     % (html.escape(href), html.escape(name),
                        html.escape(os.path.relpath(src, tree)), start, hit, n, calls))
    head = ''.join('<th colspan="3">%s (<a href="%s/index.html">full report</a>)</th>'
                   % (title, layer) for layer, title in LAYERS)
    sub = '<th>lines</th><th>functions</th><th>branches</th>' * len(LAYERS)
    doc = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>kevent coverage</title>
<style>%s</style></head><body>
<h1>kevent coverage (Linux 6.12, UML)</h1>
<p>What the tests reach in the kevent sources, per layer: the KUnit suites
alone, the user-space tests in the booted UML alone, and both together.
Each cell opens that layer's annotated source; green is 90%% or more.</p>
<table><tr><th rowspan="2">source</th>%s</tr><tr>%s</tr>
%s
</table>
<h2>What the tests do not reach: least-covered functions (both layers)</h2>
<table><tr><th>function</th><th>where</th><th>lines hit</th><th>calls</th></tr>
%s
</table>
</body></html>
""" % (STYLE, head, sub, '\n'.join(rows),
       '\n'.join(least) or '<tr><td colspan="4">every function is fully covered</td></tr>')
    with open(os.path.join(out, 'index.html'), 'w') as f:
        f.write(doc)


LINK = re.compile(r'(?:href|src)="([^"#?]*)[^"]*"')


def check_links(out):
    """Local links of every page under OUT that name a missing file."""
    missing = []
    for root, _, files in os.walk(out):
        for name in files:
            if not name.endswith('.html'):
                continue
            page = os.path.join(root, name)
            with open(page, errors='replace') as f:
                for target in LINK.findall(f.read()):
                    if not target or re.match(r'^[a-z]+:', target):
                        continue
                    if not os.path.exists(os.path.join(root, target)):
                        missing.append('%s -> %s' % (os.path.relpath(page, out), target))
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--results', required=True)
    ap.add_argument('--tree', required=True)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    front_page(args.results, args.tree, args.out)
    missing = check_links(args.out)
    for m in missing[:20]:
        print('coverage: broken link %s' % m, file=sys.stderr)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())

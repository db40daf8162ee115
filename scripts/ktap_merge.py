#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Join the KTAP documents of user-space boots run side by side.

init (userland/init.c) writes one KTAP document per boot for its share of
the test programs (INIT_PROGRAMS, or the i-th run of consecutive
programs with INIT_PART=i/n): a plan, then one indented subtest and one
result line per program.  The parts, in order, make one document of the
same shape: one plan, the results numbered on.  A part cut
short (its boot crashed or hung) keeps its place: the next part's results
are numbered after the whole of its plan, so the missing results stay
missing for kunit_tool's parser.

Usage: ktap_merge.py OUT PART.ktap...   (exit 1 when a part has no plan)
"""

import re
import sys

PLAN = re.compile(r'^1\.\.(\d+)$')
RESULT = re.compile(r'^(not ok|ok) (\d+)(.*)$')


def merge(parts):
    """Join KTAP documents (strings, in order); returns (document, problems).

    A problem names a part without a plan: its boot wrote nothing usable.
    """
    body, problems, offset = [], [], 0
    for i, text in enumerate(parts):
        plan = None
        for line in text.splitlines():
            if plan is None and line.startswith('KTAP version'):
                continue
            m = PLAN.match(line)
            if plan is None and m:
                plan = int(m.group(1))
                continue
            m = RESULT.match(line)
            if m:
                line = f'{m.group(1)} {int(m.group(2)) + offset}{m.group(3)}'
            body.append(line)
        if plan is None:
            problems.append(f'part {i} of {len(parts)} wrote no KTAP plan')
            continue
        offset += plan
    head = ['KTAP version 1', f'1..{offset}']
    return '\n'.join(head + body) + '\n', problems


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    parts = []
    for path in argv[2:]:
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                parts.append(f.read())
        except FileNotFoundError:
            parts.append('')
    doc, problems = merge(parts)
    with open(argv[1], 'w', encoding='utf-8') as f:
        f.write(doc)
    for p in problems:
        print(f'ktap_merge: {p}', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

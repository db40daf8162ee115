#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The status of one test in a KernelCI JSON file that kunit_tool wrote.

Usage: guard_status.py JSON SUITE TEST
Prints PASS, FAIL, SKIP, ERROR... as kunit_tool recorded it, or MISSING
when the suite or the test is not there (a crash or a hang before it ran).
A user-space test is matched by its name or by its kselftest name
(FIXTURE.TEST, FIXTURE.VARIANT.TEST).
"""

import sys

import results


def find(group, suite, test):
    for sub in group.get('sub_groups', []):
        if sub.get('name') == suite:
            for case in sub.get('test_cases', []):
                name = case.get('name', '')
                if name == test or name.endswith('.' + test):
                    return case.get('status', 'MISSING')
        found = find(sub, suite, test)
        if found:
            return found
    return None


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    data = results.load(argv[1])
    if data is None:
        print('MISSING')
        return 0
    print(find(data, argv[2], argv[3]) or 'MISSING')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

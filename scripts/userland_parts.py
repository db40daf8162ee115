#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Share the user-space test programs among boots side by side, by time.

init (userland/init.c) prints "kevent-init: PROG took S s" for each program
it ran.  `record` keeps the latest time of each program in a file of
"PROG SECONDS" lines; `split` deals the programs to N boots, the longest
first, each to the boot with the least time so far (a program without a
recorded time counts as the longest recorded one, so a new program does
not crowd a boot unseen; none counts as less than 0.1 s), and prints one line per boot: its programs, in
name order, joined by commas (init's INIT_PROGRAMS).  With no time
recorded at all it prints nothing: the boots then take runs of
consecutive programs (init's INIT_PART).

Usage: userland_parts.py record TIMES CONSOLE_LOG...
       userland_parts.py split TIMES N PROGRAM...
"""

import math
import re
import sys

# init's note("%s took %.1f s") (userland/init.c)
TOOK = re.compile(r'kevent-init: (\S+) took (\d+\.\d) s')
FLOOR = 0.1   # seconds: a program never counts as free


def read_times(path):
    """The recorded times: {program: seconds}; {} when there are none."""
    times = {}
    try:
        with open(path, encoding='utf-8') as f:
            for line in f:
                words = line.split()
                if len(words) == 2:
                    try:
                        t = float(words[1])
                    except ValueError:
                        continue
                    if math.isfinite(t) and t >= 0:
                        times[words[0]] = t
    except FileNotFoundError:
        pass
    return times


def record(times, logs):
    """@times updated with the "took" lines of the texts @logs."""
    times = dict(times)
    for text in logs:
        for m in TOOK.finditer(text):
            times[m.group(1)] = float(m.group(2))
    return times


def write_times(path, times):
    """Keep @times in @path, as read_times() reads them."""
    with open(path, 'w', encoding='utf-8') as f:
        for p in sorted(times):
            f.write(f'{p} {times[p]:.1f}\n')


def split(times, n, programs):
    """@programs dealt to @n boots by @times; [] when no time is known."""
    known = [max(times[p], FLOOR) for p in programs if p in times]
    if not known or n < 1:
        return []
    unknown = max(known)
    cost = {p: max(times.get(p, unknown), FLOOR) for p in programs}
    parts = [[] for _ in range(n)]
    load = [0.0] * n
    for p in sorted(programs, key=lambda p: (-cost[p], p)):
        i = load.index(min(load))
        parts[i].append(p)
        load[i] += cost[p]
    return [sorted(part) for part in parts]


def main(argv):
    if len(argv) >= 3 and argv[1] == 'record':
        logs = []
        for path in argv[3:]:
            try:
                with open(path, encoding='utf-8', errors='replace') as f:
                    logs.append(f.read())
            except FileNotFoundError:
                pass
        write_times(argv[2], record(read_times(argv[2]), logs))
        return 0
    if len(argv) >= 4 and argv[1] == 'split' and argv[3].isdigit():
        for part in split(read_times(argv[2]), int(argv[3]), argv[4:]):
            print(','.join(part))
        return 0
    print(__doc__.strip().split('Usage: ')[1], file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))

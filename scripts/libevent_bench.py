#!/usr/bin/env python3
"""libevent's benchmark in the UML: medians over repetitions, kevent/epoll.

Reads the CSV of userland/libevent/run-in-uml.sh bench (backend, program,
args, rep, value: the median of one invocation's 25 runs, in
microseconds) and prints a Markdown table: per program and shape the
median over the repetitions for each backend (with min-max), and the
kevent/epoll ratio of the medians (below 1: kevent is faster).

usage: libevent_bench.py RAW.csv [--command CMD]
"""
import argparse
import collections
import csv
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--command", default="")
    args = ap.parse_args()

    values = collections.defaultdict(list)
    order = []
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            key = (row["program"], row["args"])
            if key not in order:
                order.append(key)
            try:
                values[key + (row["backend"],)].append(int(row["value"]))
            except ValueError:
                pass  # a run that printed nothing
    reps = max((len(v) for v in values.values()), default=0)
    print(f"libevent 2.1.12 test/bench and test/bench_cascade in one UML boot, "
          f"median of {reps} repetitions (each the median of the program's "
          f"25 runs), microseconds per run; ratio = kevent / epoll.")
    if args.command:
        print(f"Command: `{args.command}`")
    print()
    print("| program | shape | kevent us (min-max) | epoll us (min-max) | kevent/epoll |")
    print("|---|---|---:|---:|---:|")
    for prog, shape in order:
        cells = []
        meds = {}
        for backend in ("kevent", "epoll"):
            v = values.get((prog, shape, backend), [])
            if v:
                meds[backend] = statistics.median(v)
                cells.append(f"{meds[backend]:.0f} ({min(v)}-{max(v)})")
            else:
                cells.append("-")
        ratio = (f"{meds['kevent'] / meds['epoll']:.2f}"
                 if len(meds) == 2 and meds["epoll"] else "-")
        print(f"| {prog} | `{shape}` | {cells[0]} | {cells[1]} | {ratio} |")


if __name__ == "__main__":
    main()

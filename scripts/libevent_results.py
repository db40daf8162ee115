#!/usr/bin/env python3
"""Judge libevent's test suite run in the UML for the kevent backend
against epoll (the reference).

Reads what userland/libevent/run-in-uml.sh wrote, DIR/BACKEND/NAME.{log,
err,rc} (test-init ... test-dumpevents, regress, regress_debug), turns every
libevent test into a result (regress's per-test lines: "group/test: OK",
"SKIPPED", "[test FAILED]"), writes them as KTAP (DIR/libevent.ktap, one
subtest per backend) and prints:

  - the counts per backend (run, passed, failed, skipped);
  - the tests that fail or skip on epoll too, with their reason;
  - the tests that pass on epoll and not on kevent: these fail the run
    (exit status 1).

usage: libevent_results.py DIR [--check-dumpevents SCRIPT]
"""
import argparse
import os
import re
import subprocess
import sys

PROGRAMS = ["test-init", "test-eof", "test-closed", "test-weof", "test-time",
            "test-changelist", "test-fdleak", "test-dumpevents"]
REGRESS = ["regress", "regress_debug"]
BACKENDS = ["kevent", "epoll"]
TEST_LINE = re.compile(r"^([A-Za-z0-9_.-]+/[^:\s]+): ?(.*)$")
FAILED_LINE = re.compile(r"^\s*\[(\S+) FAILED\]\s*$")


class Result:
    """One libevent test on one backend: status ok/fail/skip, a reason."""

    def __init__(self, name, status, reason=""):
        self.name = name
        self.status = status
        self.reason = reason

    def __repr__(self):
        return f"Result({self.name!r}, {self.status!r}, {self.reason!r})"


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def exit_reason(rc):
    """What an exit status from busybox timeout/sh says."""
    if rc == 124 or rc == 137:
        return "timed out"
    if rc > 128:
        return f"killed by signal {rc - 128}"
    return f"exit status {rc}"


def parse_regress(text, listed, prefix, rc):
    """regress's default output -> Results, named PREFIX/group/test.

    A test that started and never ended is failed (the program died
    there); a test of --list-tests with no line is failed as not run.
    """
    results = {}
    current = None
    body = []

    def finish(status, reason=""):
        nonlocal current, body
        if current is not None:
            results[current] = Result(f"{prefix}/{current}", status, reason)
        current, body = None, []

    for line in text.splitlines():
        m = FAILED_LINE.match(line)
        if m and current is not None:
            reason = "; ".join(x.strip() for x in body if x.strip())
            finish("fail", reason[:300] or "failed")
            continue
        m = TEST_LINE.match(line)
        if m and m.group(1).count("/") >= 1 and (
                current is None or not m.group(1).startswith("[")):
            if current is not None and current != m.group(1):
                # A retry, or the last test's end was lost.
                pass
            name, rest = m.group(1), m.group(2).strip()
            current, body = name, []
            if rest.endswith("OK"):
                finish("ok")
            elif rest.endswith("SKIPPED"):
                finish("skip", rest[:-len("SKIPPED")].replace("[forking]", "").strip()
                       or "skipped by the test")
            elif rest.endswith("DISABLED"):
                finish("skip", "off by default")
            else:
                body.append(rest)
            continue
        if re.match(r"^\s*\[RETRYING", line):
            continue
        if current is not None:
            # The outcome may end a line the test printed on.
            stripped = line.rstrip()
            if stripped.endswith("OK"):
                finish("ok")
            elif stripped.endswith("SKIPPED"):
                body.append(stripped[:-len("SKIPPED")])
                reason = "; ".join(x.strip() for x in body if x.strip())
                finish("skip", reason[:300] or "skipped by the test")
            else:
                body.append(line)
    if current is not None:
        results[current] = Result(f"{prefix}/{current}", "fail",
                                  "the program ended in this test: " +
                                  exit_reason(rc))
    for name, off in listed:
        if name not in results and off:
            results[name] = Result(f"{prefix}/{name}", "skip", "off by default")
        elif name not in results:
            results[name] = Result(f"{prefix}/{name}", "fail",
                                   "not run: regress ended before it (" +
                                   exit_reason(rc) + ")")
    return results


def listed_tests(text):
    """regress --list-tests: (name, off by default) of its '    group/test' lines."""
    names = []
    for line in text.splitlines():
        m = re.match(r"^    (\S+/\S+)(.*)$", line)
        if m:
            off = "Off by default" in m.group(2) or "DISABLED" in m.group(2)
            names.append((m.group(1), off))
    return names


def judge_backend(d, backend, check_dumpevents):
    results = []
    method = read(os.path.join(d, "method.txt")).strip()
    for prog in PROGRAMS:
        rc_text = read(os.path.join(d, prog + ".rc")).strip()
        if not rc_text:
            results.append(Result(prog, "fail", "no result (not run)"))
            continue
        rc = int(rc_text)
        if prog == "test-dumpevents" and rc == 0 and check_dumpevents:
            p = subprocess.run([sys.executable, check_dumpevents],
                               input=read(os.path.join(d, prog + ".log")),
                               capture_output=True, text=True)
            if p.returncode:
                results.append(Result(prog, "fail", "check-dumpevents.py: " +
                                      (p.stderr.strip() or p.stdout.strip())[:200]))
                continue
        if rc == 0:
            results.append(Result(prog, "ok"))
        else:
            err = read(os.path.join(d, prog + ".err")).strip().splitlines()
            results.append(Result(prog, "fail", exit_reason(rc) +
                                  (": " + err[-1][:200] if err else "")))
    listed = listed_tests(read(os.path.join(d, "regress-list.txt")))
    for prog in REGRESS:
        rc_text = read(os.path.join(d, prog + ".rc")).strip()
        rc = int(rc_text) if rc_text else -1
        parsed = parse_regress(read(os.path.join(d, prog + ".log")), listed,
                               prog, rc)
        retried(parsed, read(os.path.join(d, prog + "-retry.log")), prog)
        results.extend(parsed[n] for n in sorted(parsed))
    return method, results


FLAKY = "flaky: failed, then passed when run again alone"


def retried(parsed, text, prog):
    """A failed test of @parsed that passed a retry (run-in-uml.sh's
    retry_failed: up to three runs, alone, same backend, until one
    passes) passes, its reason saying so; one that failed every run
    stays failed, with every reason."""
    runs = {}
    for line in text.splitlines(keepends=True):
        m = TEST_LINE.match(line)
        if m and m.group(1) in parsed:
            runs.setdefault(m.group(1), []).append("")
            name = m.group(1)
        if runs:
            runs[name][-1] += line
    for name, texts in runs.items():
        first = parsed[name]
        if first.status != "fail":
            continue
        again = [parse_regress(t, [], prog, 0).get(name) for t in texts]
        if any(r is not None and r.status == "ok" for r in again):
            parsed[name] = Result(first.name, "ok", f"{FLAKY} ({first.reason})")
        else:
            first.reason += "".join(f"; and again alone: {r.reason}"
                                    for r in again if r is not None)


def ktap(by_backend):
    """The judged results as KTAP, one subtest per backend.

    The layer fails only for what fails the stage: on kevent a test that
    fails where epoll passes.  A test that fails on epoll too is a skip
    on both, with epoll's reason (listed by the stage as well).
    """
    ref = {r.name: r for r in by_backend.get("epoll", [])}
    lines = ["KTAP version 1", f"1..{len(by_backend)}"]
    for i, (backend, results) in enumerate(by_backend.items(), 1):
        lines.append("    KTAP version 1")
        lines.append(f"    # Subtest: libevent-{backend}")
        lines.append(f"    1..{len(results)}")
        ok = True
        for j, r in enumerate(results, 1):
            name = r.name.replace(" ", "_").replace("#", "_")
            e = ref.get(r.name)
            if r.status == "ok":
                lines.append(f"    ok {j} {name}")
            elif r.status == "skip":
                lines.append(f"    ok {j} {name} # SKIP {r.reason}")
            elif e is not None and e.status != "ok":
                why = e.reason.replace("#", "_")[:120]
                lines.append(f"    ok {j} {name} # SKIP fails on epoll too: {why}")
            else:
                ok = False
                for reason_line in r.reason.splitlines() or [""]:
                    lines.append(f"    # {reason_line}")
                lines.append(f"    not ok {j} {name}")
        lines.append(f"{'ok' if ok else 'not ok'} {i} libevent-{backend}")
    return "\n".join(lines) + "\n"


def counts(results):
    c = {"ok": 0, "fail": 0, "skip": 0}
    for r in results:
        c[r.status] += 1
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--check-dumpevents")
    args = ap.parse_args()

    by_backend = {}
    bad = []
    for backend in BACKENDS:
        d = os.path.join(args.dir, backend)
        if not os.path.isdir(d):
            bad.append(f"no results for {backend} in {d}")
            by_backend[backend] = []
            continue
        method, results = judge_backend(d, backend, args.check_dumpevents)
        if f"using: {backend}" not in method:
            bad.append(f"the {backend} run did not use {backend}: {method!r}")
        by_backend[backend] = results
    with open(os.path.join(args.dir, "libevent.ktap"), "w") as f:
        f.write(ktap(by_backend))

    kev = {r.name: r for r in by_backend["kevent"]}
    ref = {r.name: r for r in by_backend["epoll"]}
    print("libevent's tests in the UML (kevent against epoll):")
    print(f"  {'backend':8} {'tests':>6} {'passed':>7} {'failed':>7} {'skipped':>8} {'run':>6}")
    for backend, results in by_backend.items():
        c = counts(results)
        n = len(results)
        run = c["ok"] + c["fail"]
        print(f"  {backend:8} {n:6} {c['ok']:7} {c['fail']:7} {c['skip']:8}"
              f" {100.0 * run / n if n else 0:5.1f}%")
    regress_names = [n for n in kev if n.startswith("regress/")]
    if regress_names:
        run = sum(1 for n in regress_names if kev[n].status != "skip")
        off = sum(1 for n in regress_names if kev[n].reason == "off by default")
        print(f"  regress on kevent: {run} of {len(regress_names)} tests run"
              f" ({100.0 * run / len(regress_names):.1f}%), not skipped;"
              f" {run} of the {len(regress_names) - off} not off by default"
              f" ({100.0 * run / max(1, len(regress_names) - off):.1f}%)")

    flaky = [(b, r) for b, rs in by_backend.items() for r in rs
             if r.status == "ok" and r.reason.startswith(FLAKY)]
    if flaky:
        print(f"\n  {FLAKY} (counted as passed):")
        for b, r in flaky:
            print(f"    {b:6} {r.name}: {r.reason[len(FLAKY):].strip(' ()')}")
    also = [r for r in by_backend["epoll"]
            if r.status != "ok" and r.reason != "off by default"]
    off = [r for r in by_backend["epoll"] if r.reason == "off by default"]
    if off:
        print(f"\n  off by default in libevent (DISABLED, on every backend): "
              f"{len(off)} tests of regress and regress_debug")
    if also:
        print("\n  not passing on epoll either (the reference), with the reason:")
        for r in also:
            k = kev.get(r.name)
            kstat = k.status if k else "missing"
            print(f"    {r.status:4} {r.name} (kevent: {kstat}): {r.reason}")
    worse = []
    for name, r in ref.items():
        k = kev.get(name)
        if r.status == "ok" and (k is None or k.status != "ok"):
            worse.append((name, k))
    for name, k in kev.items():
        if name not in ref and k.status == "fail":
            worse.append((name, k))
    if worse:
        print("\n  FAILED: passing on epoll, not on kevent:")
        for name, k in worse:
            print(f"    {k.status if k else 'missing'} {name}: "
                  f"{k.reason if k else 'no result'}")
    for b in bad:
        print(f"  FAILED: {b}")
    print(f"\n  {len(worse)} tests pass on epoll and not on kevent")
    sys.exit(1 if worse or bad else 0)


if __name__ == "__main__":
    main()

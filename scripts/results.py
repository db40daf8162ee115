#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's results model: its layers, defined once, and the totals.

A layer is one kind of result of one kernel, written by kunit_tool as
KernelCI JSON to RESULTS/LAYER.json (the KUnit suites in UML, the
user-space suites booted in UML, the fuzzer, and the same suites in the
x86_64 SMP kernel).  A run tallies the layers it ran, plus what failed
outside them (a stage such as lint, a coverage floor), into one KernelCI
document: the --json output of ./run_tests.sh, from which the totals line
"N passed, N failed[, N skipped]" is computed, here and in .ci/run.

The coverage layers are coverage/lcov_info.py's.  Used by
scripts/summary.py and scripts/test_harness.py; as a command,
"results.py totals FILE[=EXIT_STATUS]..." prints the totals line of
several runs' JSON (.ci/run; see judge_all()), after a "failed:" line per
failure, and exits 1 unless all
passed.
"""

import collections
import json
import os
import sys

# Every test layer, by kernel: the UML ones (the default run, --debug,
# --fuzz) and the x86_64 SMP ones (--smp, --smp --kcsan).
Layer = collections.namedtuple('Layer', 'name title')
LAYERS = (
    Layer('kunit', 'KUnit (UML)'),
    Layer('userland', 'user space (UML)'),
    Layer('fuzz', 'fuzz (debug UML, one test per seed)'),
    Layer('libevent', "libevent's test suite (UML, kevent and epoll)"),
    Layer('smp-kunit', 'KUnit (x86_64 SMP, 4 vCPUs, QEMU)'),
    Layer('smp-userland', 'user space (x86_64 SMP, 4 vCPUs, QEMU)'),
)

# A layer's verdict word other than 'passed' (its record, scripts/stages.py),
# as the document says it when the tests alone do not show it.
VERDICTS = {
    'failed': 'a test failed or did not run',
    'report': 'a kernel report in its log',
    'hung': 'its boot hung and was killed',
    'crashed': 'its kernel died or wrote no results',
}

# What failed outside the layers goes into the document as this group.
HARNESS = 'harness'

Counts = collections.namedtuple('Counts', 'passed failed skipped')


def walk(group, prefix=''):
    """Yield (suite, test, status) for every test case of a KernelCI group."""
    for case in group.get('test_cases', []):
        yield prefix, case['name'], case['status']
    for sub in group.get('sub_groups', []):
        name = sub['name'] if not prefix else prefix + '.' + sub['name']
        yield from walk(sub, name)


def load(path):
    """The KernelCI group in PATH, or None when it cannot be read."""
    try:
        with open(path) as f:
            group = json.load(f)
    except (OSError, ValueError):
        return None
    return group if isinstance(group, dict) else None


def outcome(status):
    """PASS, SKIP or FAIL: every other status (ERROR, CRASHED...) fails."""
    return status if status in ('PASS', 'SKIP') else 'FAIL'


def count(group):
    """The Counts of every test case in GROUP."""
    c = collections.Counter(outcome(s) for _, _, s in walk(group))
    return Counts(c['PASS'], c['FAIL'], c['SKIP'])


def add(a, b):
    return Counts(*(x + y for x, y in zip(a, b)))


def totals_line(counts):
    """The one format of the totals line."""
    skipped = ', %d skipped' % counts.skipped if counts.skipped else ''
    return '%d passed, %d failed%s' % (counts.passed, counts.failed, skipped)


class Run:
    """The results of one run of the harness.

    layers: the names of the layers the run ran (in LAYERS' order);
    failed_stages: stages that failed; a stage named like a layer counts
    only if that layer left no record of its verdict and its results show
    no failure of their own (not twice).
    """

    def __init__(self, results, layers, failed_stages=()):
        self.sections = []	# (Layer, {suite: Counts} or None when missing)
        self.groups = []	# the layers' KernelCI groups, as read
        harness = []
        recorded = set()        # the layers whose record has a verdict
        for layer in LAYERS:
            if layer.name not in layers:
                continue
            group = load(os.path.join(results, layer.name + '.json'))
            verdict = (group or {}).get('verdict')
            if verdict:
                recorded.add(layer.name)
            if group is None or not {'sub_groups', 'test_cases'} & set(group):
                self.sections.append((layer, None))
                why = VERDICTS.get(verdict, 'the layer did not finish')
                harness.append('%s: no results, %s' % (layer.name, why))
                continue
            group = {k: v for k, v in group.items() if k != 'verdict'}
            group['name'] = layer.name
            self.groups.append(group)
            suites = collections.OrderedDict()
            for suite, _, status in walk(group):
                # A parameterized case is a group in its suite: counted there.
                name = (suite or layer.name).split('.')[0]
                one = Counts(*(int(outcome(status) == k) for k in ('PASS', 'FAIL', 'SKIP')))
                suites[name] = add(suites.get(name, Counts(0, 0, 0)), one)
            self.sections.append((layer, dict(sorted(suites.items()))))
            if not suites:
                harness.append('%s: no tests ran' % layer.name)
            elif verdict not in (None, 'passed') and \
                    not any(c.failed for c in suites.values()):
                # The tests passed, the layer did not: its record says why.
                harness.append('%s: %s' % (layer.name,
                                           VERDICTS.get(verdict, verdict)))
        # A stage named like a layer counts only when the layer left no
        # verdict (it stopped before its end) and no failure of its own.
        self.stages = [s for s in failed_stages
                       if s not in layers or
                       (s not in recorded and not self.layer_failed(s))]
        harness += ['stage %s failed' % s for s in self.stages]
        self.harness = harness

    def layer_failed(self, name):
        """Did the layer's own results already count a failure?"""
        for layer, suites in self.sections:
            if layer.name == name:
                return suites is None or not suites or \
                    any(c.failed for c in suites.values())
        return False

    def fail(self, what):
        """Count a failure outside the layers (e.g. a missed coverage floor)."""
        self.harness.append(what)

    @property
    def document(self):
        """The run as one KernelCI document: the layers' groups, then what
        failed outside them as the group HARNESS."""
        groups = list(self.groups)
        if self.harness:
            groups.append({'name': HARNESS, 'sub_groups': [],
                           'test_cases': [{'name': w, 'status': 'FAIL'}
                                          for w in self.harness]})
        return {'name': 'kevent', 'sub_groups': groups, 'test_cases': []}

    def totals(self):
        return count(self.document)

    def write(self, path):
        with open(path, 'w') as f:
            json.dump(self.document, f, indent=4)


def judge(run):
    """The Counts of one run's document and a line per failure, named by
    the document's file and the case's path (so that the end of a CI log
    says what failed, not only how many).  A run is a path, or PATH=STATUS
    with the exit status of the run that wrote it: a document that cannot
    be read counts one failure, and so does a run that exited non-zero
    with no failure in its document."""
    path, _, status = run.rpartition('=') if '=' in run else (run, '', '0')
    group = load(path)
    if group is None:
        return Counts(0, 1, 0), ['%s: no results' % path]
    name = os.path.basename(path)
    c = count(group)
    lines = ['%s: %s %s' % (name, s, suite + '.' + test if suite else test)
             for suite, test, s in walk(group) if outcome(s) == 'FAIL']
    if status != '0' and not c.failed:
        return c._replace(failed=1), ['%s: the run exited %s with no failed test'
                                      % (name, status)]
    return c, lines


def judge_all(runs):
    """The Counts of several runs and their failure lines (see judge())."""
    total, lines = Counts(0, 0, 0), []
    for c, failed in map(judge, runs):
        total = add(total, c)
        lines += failed
    return total, lines


def main(argv):
    if len(argv) < 2 or argv[0] != 'totals':
        print('usage: results.py totals FILE[=EXIT_STATUS]...', file=sys.stderr)
        return 2
    total, lines = judge_all(argv[1:])
    for line in lines:
        print('failed:', line)
    print(totals_line(total._replace(skipped=0)))
    return 1 if total.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the harness, as kunit_tool_test.py tests kunit_tool: over
the recorded inputs in scripts/test_data/, or scratch trees.  Each class
tests one module: the results model (results.py), the coverage module
(coverage/lcov_info.py), the summary's exit status and totals line, the
guards' headers and judge (guards.py), a fuzzing boot's verdict (fuzz.py),
the orchestrator's options (harness.py), the layers' shared pieces
(stages.py), a user-space boot's problem (userland_layer.py), the join of
the user-space boots' KTAP (ktap_merge.py), the kernel log scan
(logscan.py), the in-kernel benchmark's tables (bench_kernel.py) and the
user-space one's (bench_report.py), libevent's results, the layers of
kernel/kevent/ (check_layers.py), the kernels under test (targets.py),
the old knobs refused, the builds' decisions (build.py, tree.py) and lint's
files and rules (lint.py, lint.mk).  Run by the lint stage of
./run_tests.sh (scripts/lint.mk), or alone: python3 scripts/test_harness.py -v
"""

import contextlib
import inspect
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'test_data')
sys.path.insert(0, os.path.join(HERE, '..', 'coverage'))
sys.path.insert(0, HERE)
import bench_kernel  # noqa: E402
import build  # noqa: E402
import check_layers  # noqa: E402
import fuzz  # noqa: E402
import logscan  # noqa: E402
import guards  # noqa: E402
import harness  # noqa: E402
import ktap_merge  # noqa: E402
import lcov_info  # noqa: E402
import libevent_results  # noqa: E402
import lint  # noqa: E402
import results  # noqa: E402
import stages  # noqa: E402
import targets  # noqa: E402
import timing  # noqa: E402
import tree  # noqa: E402
import userland_layer  # noqa: E402
import userland_parts  # noqa: E402

KEVENT_C = '/t/kernel/kevent/kevent.c'


def data(name):
    return os.path.join(DATA, name)


class ResultsModel(unittest.TestCase):
    def run_of(self, name, layers=('kunit', 'userland'), stages=()):
        return results.Run(data(name), list(layers), list(stages))

    def test_walk_names_nested_suites(self):
        group = {'name': 'x', 'test_cases': [{'name': 't0', 'status': 'PASS'}],
                 'sub_groups': [{'name': 's', 'test_cases': [],
                                 'sub_groups': [{'name': 'u', 'sub_groups': [],
                                                 'test_cases': [{'name': 't1',
                                                                 'status': 'FAIL'}]}]}]}
        self.assertEqual(list(results.walk(group)),
                         [('', 't0', 'PASS'), ('s.u', 't1', 'FAIL')])

    def test_every_other_status_fails(self):
        for status in ('FAIL', 'ERROR', 'CRASHED', 'TIMEOUT', ''):
            self.assertEqual(results.outcome(status), 'FAIL', status)
        self.assertEqual(results.outcome('SKIP'), 'SKIP')

    def test_passing_layers(self):
        run = self.run_of('pass')
        self.assertEqual(run.totals(), results.Counts(4, 0, 2))
        self.assertEqual(run.harness, [])
        self.assertEqual([l.name for l, _ in run.sections], ['kunit', 'userland'])

    def test_a_failing_test_counts(self):
        run = self.run_of('fail')
        self.assertEqual(run.totals(), results.Counts(3, 1, 1))
        suites = dict(run.sections[1][1])
        self.assertEqual(suites['kevent_ring_test'], results.Counts(1, 1, 0))

    def test_a_missing_layer_counts_as_a_failure(self):
        run = self.run_of('missing')
        self.assertEqual(run.totals(), results.Counts(2, 1, 1))
        self.assertIsNone(run.sections[1][1])

    def test_a_parameterized_case_counts_in_its_suite(self):
        kunit = {'name': 'x', 'test_cases': [], 'sub_groups': [
            {'name': 's', 'test_cases': [{'name': 'plain', 'status': 'PASS'}],
             'sub_groups': [{'name': 'param', 'sub_groups': [],
                             'test_cases': [{'name': 'n=1', 'status': 'PASS'},
                                            {'name': 'n=2', 'status': 'FAIL'}]}]}]}
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, 'kunit.json'), 'w') as f:
                json.dump(kunit, f)
            run = results.Run(tmp, ['kunit'])
        self.assertEqual(run.sections[0][1], {'s': results.Counts(2, 1, 0)})
        self.assertEqual(run.totals(), results.Counts(2, 1, 0))

    def test_layers_not_run_are_not_read(self):
        self.assertEqual(self.run_of('pass', layers=('kunit',)).totals(),
                         results.Counts(2, 0, 1))

    def test_a_failed_stage_counts(self):
        self.assertEqual(self.run_of('pass', stages=['lint']).totals(),
                         results.Counts(4, 1, 2))

    def test_a_failed_layer_stage_with_passing_results_counts(self):
        self.assertEqual(self.run_of('pass', stages=['userland']).totals(),
                         results.Counts(4, 1, 2))

    def test_a_failed_layer_is_not_counted_twice(self):
        self.assertEqual(self.run_of('fail', stages=['userland']).totals(),
                         results.Counts(3, 1, 1))
        self.assertEqual(self.run_of('missing', stages=['userland']).totals(),
                         results.Counts(2, 1, 1))

    def test_a_layer_record_says_what_its_tests_do_not(self):
        with tempfile.TemporaryDirectory() as d:
            for layer in ('kunit', 'userland'):
                with open(data(f'pass/{layer}.json')) as f, \
                        open(f'{d}/{layer}.json', 'w') as g:
                    g.write(f.read())
            with unittest.mock.patch.object(stages, 'RESULTS', d):
                stages.set_status('kunit', 'report')
                stages.set_status('userland', 'passed')
                self.assertEqual(stages.layer_status('kunit'), 'report')
                run = results.Run(d, ['kunit', 'userland'], ['kunit'])
                self.assertEqual(run.harness, ['kunit: a kernel report in its log'])
                self.assertEqual(run.totals(), results.Counts(4, 1, 2))
                self.assertNotIn('verdict', json.dumps(run.document))
                # A record without tests: the layer wrote no results.
                stages.clear_status('userland')
                stages.set_status('userland', 'hung')
                run = results.Run(d, ['kunit', 'userland'], ['userland'])
                self.assertEqual(run.harness[1:], [
                    'userland: no results, its boot hung and was killed'])
                self.assertEqual(run.totals(), results.Counts(2, 2, 1))
                # A layer stage that failed with no record at all counts.
                stages.clear_status('kunit')
                with open(data('pass/kunit.json')) as f, open(f'{d}/kunit.json', 'w') as g:
                    g.write(f.read())
                self.assertEqual(results.Run(d, ['kunit'], ['kunit']).harness,
                                 ['stage kunit failed'])

    def test_the_document_carries_the_totals(self):
        run = self.run_of('fail', stages=['lint'])
        run.fail('floor: all kevent.c: 50.0% of lines, floor 60%')
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'all.json')
            run.write(path)
            self.assertEqual(results.judge_all([path])[0], run.totals())
            with open(path) as f:
                names = [g['name'] for g in json.load(f)['sub_groups']]
        self.assertEqual(names, ['kunit', 'userland', results.HARNESS])
        self.assertEqual(run.totals(), results.Counts(3, 3, 1))

    def three_documents(self, tmp):
        """Paths of a passing run's document, a failing one's, and one
        never written."""
        paths = []
        for name in ('pass', 'fail'):
            paths.append(os.path.join(tmp, name + '.json'))
            self.run_of(name).write(paths[-1])
        return paths + [os.path.join(tmp, 'never-written.json')]

    def test_totals_of_several_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = self.three_documents(tmp)
            self.assertEqual(results.judge_all(paths)[0], results.Counts(7, 2, 3))
            # A run that exited non-zero fails at least once.
            self.assertEqual(results.judge_all([paths[0] + '=1'])[0], results.Counts(4, 1, 2))
            self.assertEqual(results.judge_all([paths[1] + '=1'])[0], results.Counts(3, 1, 1))
            self.assertEqual(results.judge_all([paths[0] + '=0'])[0], results.Counts(4, 0, 2))

    def test_failures_are_named_one_per_failure_counted(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = self.three_documents(tmp)
            runs = [paths[0] + '=1', paths[1] + '=1', paths[2] + '=1']
            total, lines = results.judge_all(runs)
            self.assertEqual(len(lines), total.failed)
            self.assertEqual(lines[0], 'pass.json: the run exited 1 with no failed test')
            self.assertTrue(lines[1].startswith('fail.json: FAIL '), lines[1])
            self.assertEqual(lines[2], paths[2] + ': no results')
            self.assertEqual(results.judge_all([paths[0]])[1], [])

    def test_the_totals_line(self):
        self.assertEqual(results.totals_line(results.Counts(4, 0, 2)),
                         '4 passed, 0 failed, 2 skipped')
        self.assertEqual(results.totals_line(results.Counts(3, 1, 0)), '3 passed, 1 failed')


class Coverage(unittest.TestCase):
    def setUp(self):
        self.cov = lcov_info.load(data('pass'))

    def test_sections_are_united(self):
        t = lcov_info.totals(self.cov['all'][KEVENT_C])
        # Lines 10 and 20 hit (one section each), 11 in neither.
        self.assertEqual((t['LF'], t['LH']), (3, 2))
        self.assertEqual((t['FNF'], t['FNH']), (2, 2))
        self.assertEqual((t['BRF'], t['BRH']), (2, 2))

    def test_missing_data_is_empty(self):
        self.assertEqual(self.cov['kunit'], {})
        self.assertIsNone(lcov_info.parse(data('no-such.info')))

    def test_least_covered_function(self):
        self.assertEqual(lcov_info.least_covered(self.cov['all'], 5),
                         [(KEVENT_C, 'f', 10, 2, 1, 3)])
        text = lcov_info.least_covered_text(self.cov, '/')
        self.assertEqual(text[1].split(), ['f', 't/kernel/kevent/kevent.c:10', '1/2',
                                           'KUnit', '-,', 'user', '-'])

    def test_table_row(self):
        rows = lcov_info.table_text(self.cov, '/')
        self.assertEqual(rows[-1].split(), ['t/kernel/kevent/kevent.c'] + ['-'] * 6 +
                         ['66.7%', '100.0%', '100.0%'])

    def test_floors(self):
        self.assertEqual(lcov_info.floors_missed(self.cov, '/', data('floors.conf')), [])
        self.assertEqual(lcov_info.floors_missed(self.cov, '/', data('floors-high.conf')),
                         ['floor: all t/kernel/kevent/kevent.c: 66.7% of lines, floor 70%'])
        self.assertEqual(lcov_info.floors_missed({}, '/', data('floors.conf')),
                         ['floor: all t/kernel/kevent/kevent.c: no coverage data'])


class Summary(unittest.TestCase):
    def summary(self, *args):
        p = subprocess.run([sys.executable, os.path.join(HERE, 'summary.py')] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        return p.returncode, p.stdout.rstrip('\n').split('\n')[-1]

    def test_exit_status_and_totals_line(self):
        self.assertEqual(self.summary('--results', data('pass')),
                         (0, '4 passed, 0 failed, 2 skipped'))
        self.assertEqual(self.summary('--results', data('fail')),
                         (1, '3 passed, 1 failed, 1 skipped'))
        self.assertEqual(self.summary('--results', data('pass'), '--failed-stages', 'lint'),
                         (1, '4 passed, 1 failed, 2 skipped'))

    def test_a_missed_floor_fails_the_run(self):
        self.assertEqual(self.summary('--results', data('pass'), '--tree', '/',
                                      '--floors', data('floors-high.conf')),
                         (1, '4 passed, 1 failed, 2 skipped'))
        self.assertEqual(self.summary('--results', data('pass'), '--tree', '/',
                                      '--floors', data('floors.conf'))[0], 0)

    def test_ci_totals_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'run.json')
            self.summary('--results', data('fail'), '--json', path)
            p = subprocess.run([sys.executable, os.path.join(HERE, 'results.py'), 'totals',
                                path, os.path.join(tmp, 'absent.json')],
                               stdout=subprocess.PIPE, universal_newlines=True)
            absent = os.path.join(tmp, 'absent.json')
        # What failed, then the totals alone on the last line.
        self.assertEqual((p.returncode, p.stdout),
                         (1, 'failed: run.json: FAIL userland.kevent_ring_test.ring.wraps\n'
                             'failed: %s: no results\n'
                             '3 passed, 2 failed\n' % absent))


class Harness(unittest.TestCase):
    def opts(self, *argv):
        o = harness.parse(list(argv))
        return (o.target, o.tests, o.filter, o.fuzz, o.bench_which,
                o.bench_args, o.libevent, o.json, o.lint)

    def test_options_and_their_target(self):
        self.assertEqual(self.opts('kevent_core.*', '--json', 'r.json'), (
            'coverage', True, 'kevent_core.*', '', 'all', [], '', 'r.json', True))
        self.assertEqual(self.opts('--debug', '--no-coverage')[:2], ('debug', True))
        self.assertEqual(self.opts('--no-coverage')[:2], ('plain', True))
        self.assertEqual(self.opts('--smp', '--kcsan', '--no-lint'), (
            'smp-kcsan', True, '', '', 'all', [], '', '', False))
        self.assertEqual(self.opts('--fuzz', '1,time', '--fuzz-time', '90')[:4],
                         ('debug', False, '', '1,time'))
        # A word after --fuzz that is not a seed is the KUnit glob.
        self.assertEqual(self.opts('--fuzz', 'kevent_core*')[2:4],
                         ('kevent_core*', '1'))
        self.assertEqual(self.opts('--fuzz=5')[3], '5')
        self.assertEqual(self.opts('--bench', 'kernel', '--bench-save', '/d'), (
            'plain', False, '', '', 'kernel', ['--save', '/d'], '', '', True))
        # The glob reaches the in-kernel benchmark (it used to run all).
        self.assertEqual(harness.bench_kernel_args(harness.parse(
            ['--bench', 'kernel', '--bench-base', '/d', 'kevent_bench.bench_sleep'])),
            ['kernel', '--base', '/d', 'kevent_bench.bench_sleep'])
        self.assertEqual(harness.bench_kernel_args(harness.parse(['--bench', 'kernel'])),
                         ['kernel'])
        self.assertEqual(self.opts('--libevent')[:2] + self.opts('--libevent')[6:7],
                         ('coverage', True, '1'))
        self.assertEqual(self.opts('--libevent', 'only')[1], False)
        o = harness.parse(['--jobs=3', '--fuzz-ops', '64'])
        self.assertEqual((o.jobs, o.fuzz_ops), ('3', '64'))

    def test_subcommands_are_the_options(self):
        for mode, argv in (('fuzz', ['--fuzz', '3']), ('bench', ['--bench', 'user']),
                           ('libevent', ['--libevent', 'only']),
                           ('smp', ['--smp', '--kcsan']), ('shell', ['--shell']),
                           ('prove-guards', ['--prove-guards'])):
            self.assertEqual(self.opts(mode, *argv[1:]), self.opts(*argv), mode)
        self.assertEqual(self.opts('run', 'x*'), self.opts('x*'))

    def test_what_cannot_run_is_refused_with_why(self):
        for argv, msg in (
                (['--kcsan'], '--kcsan goes with --smp'),
                (['--smp', '--kcsan', '--prove-guards'], 'does not go with --prove'),
                (['--bench-save', '/d'], 'go with --bench kernel'),
                (['--bench', '--bench-base', '/d'], 'go with --bench kernel'),
                (['--bench=foo'], "--bench takes kernel, user or all, not 'foo'"),
                (['--jobs', '0'], "--jobs wants a positive number, not '0'"),
                (['--jobs'], '--jobs needs a number'),
                (['--json'], '--json needs a file name'),
                (['--no-lint=1'], 'unknown option --no-lint='),
                (['--jobs', '\u00b2'], "--jobs wants a positive number"),
                (['--fuzz', '--fuzz-ops', '1e5'], "--fuzz-ops wants a positive number"),
                (['--fuzz', '--fuzz-time', '0'], "--fuzz-time wants a positive number"),
                (['--fuzz', '3,x'], "a fuzzing seed is a positive number, not 'x'"),
                (['--bench', 'kernel', '--bench-save', ''], '--bench-save needs a directory'),
                (['--bogus'], 'unknown option --bogus')):
            with self.assertRaises(harness.Usage) as e:
                harness.parse(argv)
            self.assertIn(msg, str(e.exception), argv)

    def test_a_stage_beside_reports_its_own_time_and_verdict(self):
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()) as out:
            saved, stages.WORK = stages.WORK, d
            try:
                run = harness.Run(harness.parse([]))
                run.beside('quick', 'sh', '-c', 'echo from-quick; exit 3')
                run.beside('slow', 'sleep', '30')
                time.sleep(1.2)     # joined a second after it ended
                run.join('quick')
                slow = run.beside_['slow'][0]
                run.stop_beside()
            finally:
                stages.WORK = saved
        self.assertEqual((run.timings, run.failed), (['quick 0s'], ['quick']))
        self.assertIn('==> quick\nfrom-quick\n', out.getvalue())
        self.assertIsNotNone(slow.poll())

    def test_every_option_is_in_the_usage(self):
        src = inspect.getsource(harness.parse)
        with open(os.path.join(HERE, 'usage.txt')) as f:
            usage = f.read()
        opts = set(re.findall(r"'(--?[a-z-]+)'", src)) | set(harness.FLAGS) \
            | set(harness.VALUES)
        self.assertGreater(len(opts), 15)
        for opt in opts:
            self.assertIn(opt, usage)
        for mode in list(harness.MODES) + ['time [DIR | --warm [N]]']:
            self.assertIn(mode, usage)


class Stages(unittest.TestCase):
    def test_tee(self):
        a, b = io.StringIO(), io.StringIO()
        t = stages.Tee(a, b)
        t.write('x\n')
        t.flush()
        self.assertEqual((a.getvalue(), b.getvalue(), t.isatty()),
                         ('x\n', 'x\n', False))

    def test_a_python_stage_runs_with_this_python(self):
        self.assertEqual(stages.command('/s/x.py', 'a'), [sys.executable, '/s/x.py', 'a'])
        self.assertEqual(stages.command('/s/x.sh', 'a'), ['/s/x.sh', 'a'])
        for name in os.listdir(HERE):
            if name.endswith('.py') and name not in ('stages.py', 'results.py'):
                with open(os.path.join(HERE, name)) as f:
                    if "__name__ == '__main__'" in f.read():
                        self.assertTrue(os.access(os.path.join(HERE, name), os.X_OK),
                                        f'{name} has a main but is not executable')

    def test_an_interrupted_stage_leaves_no_process(self):
        with tempfile.TemporaryDirectory() as d:
            def interrupt(*_):
                raise KeyboardInterrupt
            old = signal.signal(signal.SIGALRM, interrupt)
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                with self.assertRaises(KeyboardInterrupt):
                    stages.run_group(['sh', '-c', f'sleep 30 & echo $! > {d}/pid; wait'])
            finally:
                signal.signal(signal.SIGALRM, old)
            with open(f'{d}/pid') as f:
                pid = int(f.read())
            time.sleep(0.2)
            try:        # gone, or a zombie that no one has reaped yet
                with open(f'/proc/{pid}/stat') as f:
                    self.assertEqual(f.read().rsplit(')', 1)[1].split()[0], 'Z')
            except FileNotFoundError:
                pass

    def gone(self, pid):
        """Whether @pid is gone (or a zombie no one reaped yet)."""
        try:
            with open(f'/proc/{pid}/stat') as f:
                return f.read().rsplit(')', 1)[1].split()[0] == 'Z'
        except FileNotFoundError:
            return True

    def test_a_ctrl_c_or_a_kill_stops_the_boots_of_a_stage_of_a_run(self):
        # A run (harness.py's run_child) whose stage (run_group) started
        # two boots in process groups of their own; the terminal's Ctrl-C
        # reaches the run and the stage, not the boots; a kill reaches
        # the run alone.  Either way no boot is left.
        stage = ('import sys; sys.path.insert(0, sys.argv[1]); import stages, subprocess\n'
                 'ps = [subprocess.Popen(["sleep", "60"], start_new_session=True)'
                 ' for _ in range(2)]\n'
                 'open(sys.argv[2], "w").write(" ".join(str(p.pid) for p in ps))\n'
                 'stages.wait_groups(ps)\n')
        run = ('import sys; sys.path.insert(0, sys.argv[1]); import stages\n'
               'stages.run_child([sys.executable, "-c", sys.argv[3], *sys.argv[1:3]])\n')
        for sig in (signal.SIGINT, signal.SIGTERM):
            with tempfile.TemporaryDirectory() as d:
                # SIGINT as a terminal leaves it, whatever this process got
                # (a background job of a script starts with it ignored).
                p = subprocess.Popen([sys.executable, '-c', run, HERE, f'{d}/pids', stage],
                                     start_new_session=True, stderr=subprocess.DEVNULL,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                      signal.SIG_DFL))
                pids = []
                try:
                    for _ in range(200):
                        if os.path.exists(f'{d}/pids') and os.path.getsize(f'{d}/pids'):
                            break
                        time.sleep(0.05)
                    with open(f'{d}/pids') as f:
                        pids = [int(x) for x in f.read().split()]
                    if sig == signal.SIGINT:
                        os.killpg(p.pid, sig)       # the terminal's process group
                    else:
                        p.send_signal(sig)
                    p.wait(20)
                    time.sleep(0.3)
                    self.assertEqual([pid for pid in pids if not self.gone(pid)], [], sig)
                finally:
                    for pid in [p.pid] + pids:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    p.wait()

    def test_the_kernel_log_decides_report_or_crash(self):
        uml = targets.target('coverage')
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            saved, stages.RESULTS = stages.RESULTS, d
            try:
                for log, rc, word in (('clean.log', 0, None),
                                      ('kasan.log', 2, 'report'),
                                      ('no-such.log', 1, 'crashed')):
                    self.assertEqual(stages.judge_log(uml, 'kunit', data(log),
                                                      'KUnit'), rc, log)
                    self.assertEqual(stages.layer_status('kunit'), word or 'none', log)
                    if word:
                        # No tests in it: kunit_tool wrote none here.
                        self.assertEqual(stages.read_record('kunit'),
                                         {'name': 'kunit', 'verdict': word})
                        stages.clear_status('kunit')
            finally:
                stages.RESULTS = saved


class UserlandLayer(unittest.TestCase):
    def test_what_went_wrong_with_a_boot(self):
        p = userland_layer.problem_of
        done = 'kevent-init: done, powering off\n'
        self.assertEqual(p('UML', 0, '', 'ok 1 x\n', 900, 'C'), ('', 'crashed'))
        self.assertEqual(p('QEMU', 0, done, 'ok 1 x\n', 600, 'C'), ('', 'crashed'))
        self.assertEqual(p('UML', 137, '', '', 900, 'C'),
                         ('the UML boot hung: killed after 900 s', 'hung'))
        self.assertEqual(p('QEMU', 124, done, '', 600, 'C')[1], 'hung')
        self.assertEqual(p('UML', 0, 'Kernel panic - not syncing', 'ok', 9, 'C')[0],
                         'kernel panic (see C)')
        self.assertEqual(p('UML', 3, '', 'ok', 9, 'C')[0],
                         'UML exited with status 3 (see C)')
        self.assertEqual(p('QEMU', 0, '', 'ok', 9, 'C')[0],
                         'init did not finish (see C)')
        self.assertEqual(p('UML', 0, '', '', 9, 'C')[0],
                         'no user-space results were written (see C)')

    def test_a_program_without_its_result_line_is_named(self):
        doc = 'KTAP version 1\n1..2\nok 1 kevent_dev_test\nnot ok 2 kevent_ring_test # x\n'
        w = userland_layer.without_result
        self.assertIsNone(w(doc, ['kevent_dev_test', 'kevent_ring_test']))
        self.assertEqual(w(doc, ['kevent_dev_test', 'kevent_dev']), 'kevent_dev')
        self.assertEqual(w(doc, ['kevent_ring']), 'kevent_ring')


class Fuzz(unittest.TestCase):
    OK = ('kevent-init: fuzz\nkevent-fuzz: 100000 operations in 3.1 s\n'
          'kevent-fuzz: result ok\nkevent-init: done, powering off\n')

    def test_verdicts(self):
        j = fuzz.judge
        self.assertEqual(j(self.OK, 0, 60), 'ok')
        finding = ('kevent-fuzz: FINDING kevent 7 returned twice in one call\n'
                   'kevent-fuzz: op 5 ctl add\nkevent-fuzz: result FAIL\n')
        self.assertEqual(j(finding, 0, 60),
                         'finding: kevent 7 returned twice in one call')
        self.assertEqual(j(finding, 137, 60),
                         'finding: kevent 7 returned twice in one call; '
                         'then the UML stopped answering')
        self.assertEqual(j('kevent-init: fuzz\n', 124, 60),
                         'hang: the UML stopped answering, killed after 180 s')
        report = 'a\n[ 3.0] BUG: KASAN: use-after-free in kevent_dequeue\n'
        self.assertEqual(j(report + self.OK, 0, 60), 'kernel-report: '
                         '[ 3.0] BUG: KASAN: use-after-free in kevent_dequeue')
        self.assertEqual(j('kevent-init: fuzz\n', 1, 60), 'crash: the UML exited '
                         "with status 1 before the fuzzer's result")
        self.assertEqual(j('kevent-init: fuzz exited with status 9\n', 0, 60),
                         'crash: no result from the fuzzer '
                         '(kevent-init: fuzz exited with status 9)')
        self.assertEqual(j('', 0, 60),
                         'crash: no result from the fuzzer (no exit status)')

    def test_the_finding_is_shown_from_its_line_to_the_result(self):
        console = ('x\nkevent-fuzz: op 1\nkevent-fuzz: FINDING f\n'
                   'detail\nkevent-fuzz: result FAIL\nafter\n')
        self.assertEqual(fuzz.excerpt(console), [
            'kevent-fuzz: FINDING f', 'detail', 'kevent-fuzz: result FAIL'])
        self.assertEqual(fuzz.excerpt(self.OK), [])

    def test_seeds(self):
        self.assertEqual(fuzz.seed_of('17'), 17)
        self.assertGreater(fuzz.seed_of('time'), 1700000000)
        for bad in ('0', '-1', 'x', ''):
            with self.assertRaisesRegex(ValueError, 'a positive number'):
                fuzz.seed_of(bad)


class Guards(unittest.TestCase):
    HEAD = ('Subject: [GUARD] 99-x\n\nTest: {test}\nTarget: {target}\n{more}'
            'The story.\n---\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+Test: x.y\n')

    def parse(self, test='kevent_core.a_test', target='coverage', more=''):
        return guards.Guard.parse('/g/99-x.patch', self.HEAD.format(
            test=test, target=target, more=more))

    def test_header_lines(self):
        g = self.parse(more='SMP: kevent_concurrency.t\nFuzz: yes\n')
        self.assertEqual((g.name, g.test, g.target, g.smp_test, g.fuzz),
                         ('99-x', 'kevent_core.a_test', 'coverage',
                          'kevent_concurrency.t', True))
        g = self.parse('user:kevent_ring_test.ring.kidx', 'debug')
        self.assertEqual((g.test, g.smp_test, g.fuzz),
                         ('user:kevent_ring_test.ring.kidx', '', False))

    def test_bad_headers_are_refused_with_what_is_wrong(self):
        for kw, msg in (
                (dict(test=''), "99-x has no 'Test:' line"),
                (dict(test='nodot'), "'Test: nodot' is neither SUITE.TEST"),
                (dict(test='user:nodot'), "'Test: user:nodot' is neither"),
                (dict(target='normal'), "'Target: normal' is not coverage, "
                 "debug or smp"),
                (dict(target='smp', test='user:p.t'), 'a user-space test in '
                 'target smp'),
                (dict(more='SMP: user:p.t\n'), "'SMP: user:p.t' is not "
                 'SUITE.TEST')):
            with self.assertRaises(guards.GuardError) as e:
                self.parse(**kw)
            self.assertIn(msg, str(e.exception))

    def test_every_guard_of_the_repository_parses(self):
        all_ = guards.load()
        self.assertEqual(len(all_), len([f for f in os.listdir(guards.GUARDS)
                                          if f.endswith('.patch')]))
        self.assertEqual([g.name for g in guards.load('09-*')],
                         ['09-notify-without-storage-lock'])
        with self.assertRaisesRegex(guards.GuardError, "no guard matches 'zz'"):
            guards.load('zz')

    def test_finds_kunit_and_kselftest_names(self):
        group = results.load(data('fail/userland.json'))
        self.assertEqual(guards.find(group, 'kevent_ring_test', 'wraps'), 'FAIL')
        self.assertEqual(guards.find(group, 'kevent_ring_test', 'ring.kidx'), 'PASS')
        self.assertIsNone(guards.find(group, 'kevent_ring_test', 'absent'))
        self.assertIsNone(guards.find(group, 'kevent_core', 'a'))
        self.assertEqual(guards.test_status(data('fail/userland.json'),
                                            'kevent_ring_test', 'wraps'), 'FAIL')
        self.assertEqual(guards.test_status(data('no-such.json'), 's', 't'),
                         'MISSING')

    def test_verdicts(self):
        v = guards.verdict
        self.assertEqual(v('hung', 'PASS', '', 'L'),
                         (True, 'failed as expected (the boot hung)'))
        self.assertEqual(v('report', 'PASS', '', 'L')[0], True)
        self.assertEqual(v('failed', 'FAIL', '', 'L'),
                         (True, 'failed as expected (FAIL)'))
        self.assertEqual(v('passed', 'PASS', '', 'L'),
                         (False, 'PASSED: the test does not guard this bug'))
        self.assertEqual(v('passed', 'SKIP', '', 'L'), (False, 'skipped (see L)'))
        self.assertEqual(v('crashed', 'MISSING', 'x', 'L'),
                         (True, 'failed as expected (no result: crashed, see L)'))
        self.assertEqual(v('failed', 'MISSING', '[ERROR] NO TESTS RUN', 'L'),
                         (False, 'no such test: nothing ran (see the Test: line)'))

    DIFF = '--- a/k/f.c\n+++ b/k/f.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'

    def scratch(self, d, content):
        """A tree in @d/t whose k/f.c holds @content, and a guard of it,
        @d/99-x.patch, with DIFF: (guard, its header, its text)."""
        os.makedirs(f'{d}/t/k')
        with open(f'{d}/t/k/f.c', 'w') as f:
            f.write(content)
        head = self.HEAD.format(test='s.t', target='coverage', more='')
        head = head[:head.index('--- a/f')]
        with open(f'{d}/99-x.patch', 'w') as f:
            f.write(head + self.DIFF)
        return guards.Guard.parse(f'{d}/99-x.patch', head + self.DIFF), head, head + self.DIFF

    def test_a_guard_goes_in_whole_and_comes_out(self):
        with tempfile.TemporaryDirectory() as d:
            g, _, text = self.scratch(d, 'a\nb\n')
            tree = guards.Tree(f'{d}/t')
            self.assertTrue(tree.apply(g))
            with open(f'{d}/t/k/f.c') as f:
                self.assertEqual(f.read(), 'a\nc\n')
            self.assertFalse(guards.Tree(f'{d}/t').apply(g))  # in already
            tree.restore()
            with open(f'{d}/t/k/f.c') as f:
                self.assertEqual(f.read(), 'a\nb\n')
            self.assertEqual(sorted(os.listdir(f'{d}/t/k')), ['f.c'])
            # A guard whose second hunk does not apply leaves nothing in.
            text += '--- a/k/g.c\n+++ b/k/g.c\n@@ -1 +1 @@\n-x\n+y\n'
            with open(f'{d}/99-x.patch', 'w') as f:
                f.write(text)
            self.assertFalse(tree.apply(g))
            with open(f'{d}/t/k/f.c') as f:
                self.assertEqual(f.read(), 'a\nb\n')
            self.assertIsNone(tree.current)

    def test_refresh_rewrites_the_diff_and_keeps_the_header(self):
        with tempfile.TemporaryDirectory() as d:
            g, head, _ = self.scratch(d, 'new\nlines\nabove\na\nb\n')
            with unittest.mock.patch.object(stages, 'TREE', f'{d}/t'):
                self.assertTrue(guards.refresh(g))
                with open(g.path) as f:
                    fresh = f.read()
                self.assertEqual(fresh, head + '--- a/k/f.c\n+++ b/k/f.c\n'
                                 '@@ -2,4 +2,4 @@\n lines\n above\n a\n-b\n+c\n')
                self.assertFalse(guards.refresh(guards.Guard.parse(g.path, fresh)))
                with open(f'{d}/t/k/f.c') as f:     # the tree is untouched
                    self.assertEqual(f.read(), 'new\nlines\nabove\na\nb\n')
                with open(f'{d}/t/k/f.c', 'w') as f:
                    f.write('other\n')
                with self.assertRaisesRegex(guards.GuardError, 'fix it by hand'):
                    guards.refresh(g)


class KtapMerge(unittest.TestCase):
    def parts(self, *names):
        out = []
        for n in names:
            with open(data('parts/' + n), encoding='utf-8') as f:
                out.append(f.read())
        return out

    def test_parts_make_the_document_of_one_boot(self):
        doc, problems = ktap_merge.merge(self.parts('part0.ktap', 'part1.ktap'))
        self.assertEqual((doc, problems), (self.parts('whole.ktap')[0], []))

    def test_a_part_cut_short_keeps_its_missing_results_missing(self):
        doc, problems = ktap_merge.merge(self.parts('cut0.ktap', 'part1.ktap'))
        lines = doc.splitlines()
        self.assertEqual(problems, [])
        self.assertEqual(lines[1], '1..3')
        self.assertNotIn('not ok 2 kevent_b_test', lines)
        self.assertEqual(lines[-1], 'ok 3 kevent_c_test')

    def test_a_part_without_a_plan_is_a_problem(self):
        doc, problems = ktap_merge.merge(['', self.parts('part1.ktap')[0]])
        self.assertEqual(problems, ['part 0 of 2 wrote no KTAP plan'])
        self.assertEqual(doc.splitlines()[:2], ['KTAP version 1', '1..1'])


class LogScan(unittest.TestCase):
    """The kernel log scan (logscan.py)."""

    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data')

    def scan(self, *args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            rc = logscan.main(list(args))
        return rc, out.getvalue(), err.getvalue()

    def core_races_only(self, log, what):
        """Scan @log, which passes with every KCSAN race listed and none
        judged; what it printed."""
        rc, out, _ = self.scan('--smp', log, what)
        self.assertEqual(rc, 0)
        with open(log + '.checked') as f:
            self.assertNotIn('KCSAN', f.read())
        return out

    def scan_changed(self, d, name, old, new):
        """Scan d/NAME.log with @old replaced by @new: (status, stderr)."""
        with open(f'{d}/{name}.log') as f, open(f'{d}/{name}-changed.log', 'w') as g:
            g.write(f.read().replace(old, new))
        rc, _, err = self.scan('--smp', f'{d}/{name}-changed.log', 'changed')
        return rc, err

    def test_reports_are_printed_as_grep_after_context_does(self):
        lines = ['ok'] * 200
        lines[3] = '[ 1.0] WARNING: CPU: 0 PID: 1 at x'
        lines[20] = '[ 1.1] Call Trace:'       # within the first's context
        lines[150] = '[ 2.0] BUG: kernel NULL pointer dereference'
        lines[60] = '[ 1.5] __BUG: not a report'  # preceded by _
        out = logscan.reports(lines)
        self.assertEqual(out[0], '4:[ 1.0] WARNING: CPU: 0 PID: 1 at x')
        self.assertIn('21:[ 1.1] Call Trace:', out)
        # The second match starts 25 lines anew: 21 + 25 = 46 is the last.
        self.assertEqual(out[out.index('--') - 1], '46-ok')
        self.assertEqual(out[out.index('--') + 1],
                         '151:[ 2.0] BUG: kernel NULL pointer dereference')
        self.assertEqual(len(out), 43 + 1 + 26)

    def test_recorded_logs(self):
        self.assertEqual(self.scan(f'{self.data}/clean.log')[0], 0)
        for name in ('warning', 'kasan', 'lockdep', 'kmemleak', 'ubsan'):
            rc, _, err = self.scan(f'{self.data}/{name}.log', name)
            self.assertEqual(rc, 2, name)
            self.assertIn(f'error: splat in the kernel log of {name}', err)
        rc, _, err = self.scan(f'{self.data}/no-such.log')
        self.assertEqual(rc, 1)
        self.assertIn('no kernel log at', err)
        with self.assertRaises(SystemExit) as e:
            self.scan('--cpus', 'four', 'x.log')
        self.assertEqual(e.exception.code, 1)   # not 2: that is a report

    def test_smp_logs(self):
        with tempfile.TemporaryDirectory() as d:
            for name in ('kcsan-core-crlf', 'kcsan-kevent-crlf',
                         'jiffies-clock-crlf', 'kcsan-osq'):
                with open(f'{self.data}/smp/{name}.log', 'rb') as f, \
                        open(f'{d}/{name}.log', 'wb') as g:
                    g.write(f.read())
            out = self.core_races_only(f'{d}/kcsan-core-crlf.log', 'core')
            self.assertIn('core: 4 CPUs online', out)
            self.assertIn('core: KCSAN reports', out)
            with open(f'{d}/kcsan-core-crlf.log.kcsan') as f:
                races = f.read()
            self.assertIn('BUG: KCSAN', races)
            # A second scan of the log writes the same races, not twice.
            self.assertEqual(self.scan('--smp', f'{d}/kcsan-core-crlf.log')[0], 0)
            with open(f'{d}/kcsan-core-crlf.log.kcsan') as f:
                self.assertEqual(f.read(), races)
            rc, _, err = self.scan('--smp', f'{d}/kcsan-kevent-crlf.log', 'kev')
            self.assertEqual(rc, 2)
            self.assertIn('KCSAN: data-race in kevent_storage_ready', err)
            # The KUnit boot's log (LF): a contended mutex's osq race and
            # the wait macro's, both under kevent frames, are the core's.
            out = self.core_races_only(f'{d}/kcsan-osq.log', 'osq')
            self.assertIn('KCSAN: data-race in osq_lock / osq_unlock', out)
            self.assertIn('hrtimer_wakeup / kevent_wait_ready', out)
            # Only that pair: the same race with a kevent function is kevent's.
            rc, err = self.scan_changed(d, 'kcsan-osq', 'osq_lock / osq_unlock',
                                        'osq_lock / kevent_deliver_to_buf')
            self.assertEqual(rc, 2)
            self.assertIn('osq_lock / kevent_deliver_to_buf', err)
            # At unknown origin, osq_unlock's read is the core's; a kevent
            # function's is kevent's.
            rc, err = self.scan_changed(d, 'kcsan-osq', 'data-race in osq_unlock+0x9f',
                                        'data-race in kevent_deliver_to_buf+0x67')
            self.assertEqual(rc, 2)
            self.assertNotIn('osq_lock / osq_unlock', err)
            self.assertIn('data-race in kevent_deliver_to_buf+0x67', err)
            rc, _, err = self.scan('--smp', f'{d}/jiffies-clock-crlf.log', 'j')
            self.assertEqual(rc, 1)
            self.assertIn('keeps time with refined-jiffies', err)
            rc, _, err = self.scan('--smp', '--cpus', '2',
                                   f'{d}/kcsan-core-crlf.log', 'c2')
            self.assertEqual(rc, 1)
            self.assertIn('brought up 4 CPUs, not 2', err)


class BenchKernel(unittest.TestCase):
    @staticmethod
    def log(figs):
        """A kernel log of (reader, total, notify, collect) at N=1000 K=16."""
        return ''.join(
            f'    # bench: shape=pipes reader={rd} N=1000 K=16 '
            f'ns_per_event={t} min={t - 1} max={t + 1} notify_ns={nt} '
            f'collect_ns={t - nt} reps=51\n' for rd, t, nt in figs)

    def rows(self):
        # Run 2 is twice as slow (a disturbed run): ratios stay per run.
        one = [('kevent_ring', 90, 72), ('epoll_et', 100, 70),
               ('unwatched', 50, 50)]
        two = [(rd, 2 * t, 2 * nt) for rd, t, nt in one]
        three = [('kevent_ring', 99, 79), ('epoll_et', 100, 70),
                 ('unwatched', 50, 50)]
        return (bench_kernel.parse(self.log(one), 1) +
                bench_kernel.parse(self.log(two), 2) +
                bench_kernel.parse(self.log(three), 3))

    def line(self, md, start):
        return next(ln for ln in md.splitlines() if ln.startswith(start))

    def test_figures_are_medians_over_runs_of_each_runs_figure(self):
        md = bench_kernel.tables(self.rows())
        # ring: 90, 180, 99 -> 99 [89, 181]; ratios 0.90, 0.90, 0.99.
        row = self.line(md, '| 1000 | 16 | - | 99 [89, 181] | 100 [99, 201] |')
        self.assertEqual(row.split(' | ')[8], '0.90')
        # collect: ring 18, 36, 20 against epoll 30, 60, 30.
        self.assertEqual(row.split(' | ')[10].rstrip(' |'), '0.60')

    def test_the_notification_split(self):
        md = bench_kernel.tables(self.rows())
        # own: epoll 20, 40, 20; ring 22, 44, 29; budget 80-18-50=12,
        # 160-36-100=24, 80-20-50=10.
        self.assertIn('| 1000 | 16 | 50 | - | 29 | 20 | - | 12 |',
                      md.splitlines())

    def test_csv_of_several_runs_reads_back_as_those_runs(self):
        texts = [self.log([('kevent_ring', t, nt), ('epoll_et', 100, 70),
                           ('unwatched', 50, 50)])
                 for t, nt in ((90, 72), (180, 144), (99, 79))]
        with tempfile.TemporaryDirectory() as d:
            logs = []
            for i, text in enumerate(texts):
                logs.append(os.path.join(d, f'{i}.log'))
                with open(logs[-1], 'w') as f:
                    f.write(text)
            out = os.path.join(d, 'runs.csv')
            with contextlib.redirect_stdout(io.StringIO()):
                bench_kernel.main(logs + ['--csv', out])
            rows = [r for i, t in enumerate(texts, 1)
                    for r in bench_kernel.parse(t, i)]
            # Numbered from 4 on, as after three runs read before.
            back = bench_kernel.read(out, 4)
            self.assertEqual(back, [dict(r, run=r['run'] + 3) for r in rows])
            self.assertEqual(bench_kernel.tables(back),
                             bench_kernel.tables(rows))

    @staticmethod
    def paired(t1, diff, valid, n=1000):
        return (f'    # bench-paired: shape=pipes N={n} K=16 reps=101 write=150.0 '
                f'clock=31.0 own_get=50.0 own_ring=49.0 own_epoll_et=40.0 '
                f'own_epoll_lt=41.0 q_get=120.0 q_ring=110.0 q_epoll_et=130.0 '
                f't1_get={t1} t2_get=0.923 t2_ring=0.846 t3=- whole_get=0.968 '
                f'gate_diff={diff} gate_limit=2.0 valid={valid}\n')

    def gated(self, diffs, t1s=None):
        t1s = t1s or ['1.100'] * len(diffs)
        rows = []
        for run, (d, t1) in enumerate(zip(diffs, t1s), 1):
            valid = 'yes' if abs(float(d)) <= 2 else 'no'
            rows += bench_kernel.parse_paired(self.paired(t1, d, valid), run)
        return bench_kernel.gated_tables(rows, [])

    def test_the_gate_is_the_median_over_the_runs(self):
        # Two runs of five miss the limit on their own, with opposite
        # signs: the median over the runs (0.5) holds it.
        md = self.gated(['0.5', '-3.5', '1.0', '3.0', '-0.2'],
                        ['1.100', '1.250', '1.300', '1.200', '1.150'])
        self.assertIn('  N=1000 K=16: +0.5 [', md)
        self.assertIn('ns, limit 2: ok', md)
        self.assertIn("runs whose own gate held in every (N, K): 3 of 5", md)
        self.assertIn('validity gate: passed', md)
        row = self.line(md, '| 1000 | 16 |').split(' | ')
        self.assertEqual(row[10], '1.20')   # T1: the median of five
        self.assertEqual(row[13], '-')      # T3 had no figure
        self.assertFalse(row[-1].endswith('INVALID'))
        # T1's interval lies above its limit of 1.0 at K = 16.
        self.assertRegex(md, r'\| 1000 \| 16 \| T1 own notify get/epoll \| '
                         r'1\.20 \| \[1\.\d\d, 1\.\d\d\] \| 1\.0 \| missed \|')

    def test_a_gate_that_fails_over_the_runs_leaves_nothing_usable(self):
        md = self.gated(['2.5', '-3.5', '3.0', '2.8', '0.2'])
        self.assertIn('N=1000 K=16: +2.5 [', md)
        self.assertIn('limit 2: FAILS', md)
        self.assertIn('validity gate: INVALID, no figure below may be used', md)
        self.assertTrue(self.line(md, '| 1000 | 16 |').endswith(' INVALID'))

    def test_one_run_cannot_pass_the_gate(self):
        md = self.gated(['0.1'])
        self.assertIn('N=1000 K=16: +0.1 ns, from 1 run (5 needed), limit 2: FAILS', md)
        self.assertIn('validity gate: INVALID, 1 run (BENCH_RUNS=5 or more)', md)
        with self.assertRaisesRegex(bench_kernel.BenchError, 'L:1: a garbled'):
            bench_kernel.parse_paired('# bench-paired: shape=pipes N=1\n', 1, 'L')

    def test_a_target_is_judged_by_its_interval(self):
        self.assertEqual(bench_kernel.target_verdict(0.7, 0.79, 0.8), 'met')
        self.assertEqual(bench_kernel.target_verdict(0.81, 0.9, 0.8), 'missed')
        self.assertEqual(bench_kernel.target_verdict(0.75, 0.85, 0.8), 'open')
        self.assertEqual(bench_kernel.target_verdict(None, None, 0.8), 'open')
        med, lo, hi = bench_kernel.bootstrap([1.0, 2.0, 3.0, 4.0, 5.0], 'x')
        self.assertEqual(med, 3.0)
        self.assertTrue(1.0 <= lo < 3.0 < hi <= 5.0)
        # The same interval whatever the order of the runs.
        self.assertEqual(bench_kernel.bootstrap([5.0, 3.0, 1.0, 4.0, 2.0], 'x'),
                         (med, lo, hi))

    def test_every_cell_needs_its_own_five_runs(self):
        # Five runs, but N = 10 has a figure in one of them only.
        rows = []
        for run in range(1, 6):
            rows += bench_kernel.parse_paired(self.paired('1.1', '0.5', 'yes'), run)
        rows += bench_kernel.parse_paired(self.paired('1.1', '0.5', 'yes', n=10), 1)
        md = bench_kernel.gated_tables(rows, [])
        self.assertIn('N=10 K=16: +0.5 ns, from 1 run (5 needed), limit 2: FAILS', md)
        self.assertIn('N=1000 K=16: +0.5 [+0.5, +0.5] ns, limit 2: ok', md)
        self.assertIn('validity gate: INVALID, no figure below may be used', md)

    def ab_logs(self, runs, own):
        """One paired line per run: own_get = own(run)."""
        return {run: self.paired('1.100', '0.5', 'yes').replace(
            'own_get=50.0', f'own_get={own(run):.1f}') for run in runs}

    def test_a_kernel_is_compared_with_its_base_run_by_run(self):
        # The base's own get varies from run to run; the new kernel's is
        # 2 ns less than the base's of the same run: only a right pairing
        # gives -2.0 in every pair.
        base_logs = self.ab_logs(range(1, 6), lambda r: 40.0 + 3 * r)
        new_logs = self.ab_logs(range(1, 6), lambda r: 38.0 + 3 * r)
        base = [x for r, t in base_logs.items()
                for x in bench_kernel.parse_paired(t, r)]
        new = [x for r, t in new_logs.items()
               for x in bench_kernel.parse_paired(t, r)]
        md = bench_kernel.compare(base, new)
        self.assertIn('over 5 pairs of runs', md)
        row = self.line(md, '| 1000 | 16 |').split(' | ')
        self.assertEqual(row[2], '-2.0 [-2.0, -2.0]*')   # own get
        self.assertEqual(row[3], '+0.0 [+0.0, +0.0]')    # own ring
        self.assertEqual(row[11], '-')                   # T3: no figure
        # Logs are paired by the N of NAME-N.log, not by their order:
        # base run 3 is missing and the new kernel's logs come reversed.
        with tempfile.TemporaryDirectory() as d:
            for r, t in base_logs.items():
                if r != 3:
                    with open(f'{d}/base-{r}.log', 'w') as f:
                        f.write(t + self.log([('epoll_et', 100, 70)]))
            for r, t in new_logs.items():
                with open(f'{d}/kernel-{r}.log', 'w') as f:
                    f.write(t + self.log([('epoll_et', 100, 70)]))
            _, b, _ = bench_kernel.load([f'{d}/base-{r}.log' for r in (1, 2, 4, 5)])
            _, n, _ = bench_kernel.load([f'{d}/kernel-{r}.log' for r in (5, 4, 3, 2, 1)])
        md = bench_kernel.compare(b, n)
        self.assertIn('over 4 pairs of runs', md)
        self.assertIn('runs of one kernel only, left out: 3', md)
        self.assertEqual(self.line(md, '| 1000 | 16 |').split(' | ')[2],
                         '-2.0 [-2.0, -2.0]*')

    def test_what_it_cannot_read_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            other = os.path.join(d, 'other.csv')
            with open(other, 'w') as f:
                f.write('variant,reader,N\nx,epoll_et,10\n')
            with self.assertRaisesRegex(bench_kernel.BenchError,
                                        'other.csv: not a CSV .*no column shape'):
                bench_kernel.read(other, 1)
        with self.assertRaisesRegex(bench_kernel.BenchError, 'L:1: a garbled'):
            bench_kernel.parse('# bench: shape=pipes reader=x N=1\n', 1, 'L')


class UserlandParts(unittest.TestCase):
    LOG = ('kevent-init: running kevent_a_test\n'
           'kevent-init: kevent_a_test took 3.3 s\n'
           'random: crng init done\n'
           'kevent-init: kevent_b_test took 2.0 s\n')

    def test_record_keeps_the_latest_time_of_each_program(self):
        times = userland_parts.record({'kevent_a_test': 9.0, 'kevent_z_test': 1.0},
                                      [self.LOG])
        self.assertEqual(times, {'kevent_a_test': 3.3, 'kevent_b_test': 2.0,
                                 'kevent_z_test': 1.0})

    def test_split_evens_out_the_boots(self):
        times = {'a': 3.3, 'b': 2.0, 'c': 1.6, 'd': 1.5, 'e': 0.6, 'f': 0.5,
                 'g': 0.4, 'h': 0.4}
        parts = userland_parts.split(times, 2, sorted(times))
        self.assertEqual(parts, [['a', 'd', 'h'], ['b', 'c', 'e', 'f', 'g']])
        loads = [sum(times[p] for p in part) for part in parts]
        self.assertLessEqual(max(loads) - min(loads), 0.4)

    def test_every_program_runs_once(self):
        parts = userland_parts.split({'a': 1.0}, 3, ['c', 'a', 'b', 'd'])
        self.assertEqual(sorted(p for part in parts for p in part), ['a', 'b', 'c', 'd'])
        self.assertEqual(len(parts), 3)

    def test_a_new_program_counts_as_the_longest_known(self):
        parts = userland_parts.split({'a': 5.0, 'b': 1.0, 'c': 1.0}, 2, ['a', 'b', 'c', 'new'])
        self.assertEqual(parts, [['a', 'b'], ['c', 'new']])

    def test_no_times_no_split(self):
        self.assertEqual(userland_parts.split({}, 2, ['a', 'b']), [])

    def test_programs_of_no_time_do_not_pile_up_in_one_boot(self):
        parts = userland_parts.split({'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0}, 2,
                                     ['a', 'b', 'c', 'd'])
        self.assertEqual([len(p) for p in parts], [2, 2])

    def test_more_boots_than_programs(self):
        self.assertEqual(userland_parts.split({'a': 1.0}, 3, ['a']), [['a'], [], []])

    def test_garbled_times_are_not_recorded(self):
        times = userland_parts.record({}, ['kevent-init: a took . s\n'
                                           'kevent-init: b took 1e9 s\n'])
        self.assertEqual(times, {})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'times')
            with open(path, 'w', encoding='utf-8') as f:
                f.write('a nan\nb inf\nc -1\nd 0.5\ne\n')
            self.assertEqual(userland_parts.read_times(path), {'d': 0.5})


class LibeventResults(unittest.TestCase):
    LOG = """main/methods: OK
util/getaddrinfo: [forking] 
  SKIP test/regress_util.c:1120: Symbolic service names seem broken.OK
util/getaddrinfo_live: DISABLED
http/ipv6_for_domain: [forking] SKIPPED
dns/bufferevent_connect_hostname: [forking] [Lost connection!] 
  [bufferevent_connect_hostname FAILED]
dns/initialize_nameservers: [forking] 
  FAIL test/regress_dns.c:1020: assert(dns)
  [initialize_nameservers FAILED]
util/monotonic_prc_precise: 
  FAIL test/regress_util.c:1483: assert(total_diff/9 < maxstep): 739 vs 500
  [monotonic_prc_precise FAILED]

  [RETRYING monotonic_prc_precise (3)]
util/monotonic_prc_precise: OK
http/cancel: [forking] """
    LISTED = [('main/methods', False), ('util/getaddrinfo', False),
              ('util/getaddrinfo_live', True), ('http/ipv6_for_domain', False),
              ('dns/bufferevent_connect_hostname', False),
              ('dns/initialize_nameservers', False),
              ('util/monotonic_prc_precise', False), ('http/cancel', False),
              ('http/later', False), ('http/off', True)]

    def test_regress_outcomes(self):
        r = libevent_results.parse_regress(self.LOG, self.LISTED, 'regress', 137)
        status = {n: x.status for n, x in r.items()}
        self.assertEqual(status, {
            'main/methods': 'ok', 'util/getaddrinfo': 'ok',
            'util/getaddrinfo_live': 'skip', 'http/ipv6_for_domain': 'skip',
            'dns/bufferevent_connect_hostname': 'fail',
            'dns/initialize_nameservers': 'fail',
            'util/monotonic_prc_precise': 'ok',  # passed on a retry
            'http/cancel': 'fail', 'http/later': 'fail', 'http/off': 'skip'})
        self.assertIn('assert(dns)', r['dns/initialize_nameservers'].reason)
        self.assertIn('timed out', r['http/cancel'].reason)
        self.assertIn('not run', r['http/later'].reason)
        self.assertEqual(r['http/off'].reason, 'off by default')

    def test_a_failure_is_judged_by_its_retries(self):
        first = ('http/bad_request: [forking] \n'
                 '  FAIL test/regress_http.c:757: assert(test_ok == 2): 1 vs 2\n'
                 '  [bad_request FAILED]\nhttp/incomplete: [forking] OK\n')
        listed = [('http/bad_request', False), ('http/incomplete', False)]
        r = libevent_results.parse_regress(first, listed, 'regress', 1)
        libevent_results.retried(r, 'http/bad_request: [forking] OK\n', 'regress')
        self.assertEqual(r['http/bad_request'].status, 'ok')
        self.assertTrue(r['http/bad_request'].reason.startswith(libevent_results.FLAKY))
        r = libevent_results.parse_regress(first, listed, 'regress', 1)
        libevent_results.retried(r, 'http/bad_request: [forking] \n  FAIL x.c:1: no\n'
                                 '  [bad_request FAILED]\n', 'regress')
        self.assertEqual(r['http/bad_request'].status, 'fail')
        self.assertIn('and again alone: [forking]; FAIL x.c:1: no',
                      r['http/bad_request'].reason)
        # Passed on the third run alone: flaky; failed all three: failed.
        again = ('http/bad_request: [forking] \n  FAIL x.c:1: no\n'
                 '  [bad_request FAILED]\n')
        r = libevent_results.parse_regress(first, listed, 'regress', 1)
        libevent_results.retried(r, again * 2 + 'http/bad_request: [forking] OK\n',
                                 'regress')
        self.assertEqual(r['http/bad_request'].status, 'ok')
        r = libevent_results.parse_regress(first, listed, 'regress', 1)
        libevent_results.retried(r, again * 3, 'regress')
        self.assertEqual(r['http/bad_request'].status, 'fail')
        self.assertEqual(r['http/bad_request'].reason.count('and again alone'), 3)
        self.assertEqual(r['http/incomplete'].status, 'ok')
        # No retry log (an older run): the failure stands.
        r = libevent_results.parse_regress(first, listed, 'regress', 1)
        libevent_results.retried(r, '', 'regress')
        self.assertEqual(r['http/bad_request'].status, 'fail')

    def test_ktap_skips_what_fails_on_epoll_too(self):
        R = libevent_results.Result
        text = libevent_results.ktap({
            'kevent': [R('a', 'ok'), R('b', 'fail', 'x'), R('c', 'fail', 'y')],
            'epoll': [R('a', 'ok'), R('b', 'fail', 'no resolver'), R('c', 'ok')]})
        self.assertIn('    ok 2 b # SKIP fails on epoll too: no resolver', text)
        self.assertIn('    not ok 3 c', text)
        self.assertIn('not ok 1 libevent-kevent', text)
        self.assertIn('ok 2 libevent-epoll', text)
        self.assertIn('    ok 2 b # SKIP fails on epoll too: no resolver',
                      text.split('libevent-epoll')[0])


class CheckLayersTest(unittest.TestCase):
    """scripts/check_layers.py: a call that goes up is listed."""

    def test_nm_output_gives_functions_and_uses(self):
        defined, used = check_layers.symbols(
            "0000000000000000 T kevent_queue_ctl\n0000000000000010 t local\n"
            "0000000000000000 R kevent_queue_fops\n",
            "                 U kevent_init\n                 U memcpy\n")
        self.assertEqual(defined, {"kevent_queue_ctl"})
        self.assertEqual(used, {"kevent_init", "memcpy"})

    def test_only_a_call_up_is_listed(self):
        objects = {
            "kevent.o": ({"kevent_init"}, set()),
            "kevent_queue.o": ({"kevent_remove"}, {"kevent_init"}),
            "kevent_ctl.o": ({"kevent_queue_ctl"}, {"kevent_remove", "kmalloc"}),
            "kevent_file.o": (set(), {"kevent_queue_fops"}),
        }
        self.assertEqual(check_layers.upward_calls(objects), [])
        objects["kevent.o"] = ({"kevent_init"}, {"kevent_queue_ctl"})
        objects["kevent_file.o"] = (set(), {"kevent_remove"})
        self.assertEqual(check_layers.upward_calls(objects), [
            "kevent.o calls kevent_queue_ctl() of kevent_ctl.o",
            "kevent_file.o calls kevent_remove() of kevent_queue.o"])


class Targets(unittest.TestCase):
    def test_each_target_has_its_own_build_and_real_fragments(self):
        self.assertEqual(list(targets.TARGETS),
                         ['coverage', 'plain', 'debug', 'smp', 'smp-kcsan'])
        builds = [t.build for t in targets.TARGETS.values()]
        self.assertEqual(len(set(builds)), len(builds))
        for t in targets.TARGETS.values():
            self.assertEqual(t.fragments[0], 'base', t.name)
            for f in t.fragment_paths():
                self.assertTrue(os.path.isfile(f), f)
            # UML fragments only in UML kernels; KASAN and KCSAN exclude
            # each other; only the coverage kernel has gcov.
            self.assertEqual('uml' in t.fragments, not t.qemu, t.name)
            self.assertFalse({'kasan', 'x86_64-kcsan'} <= set(t.fragments))
            self.assertEqual('coverage' in t.fragments, t.coverage, t.name)
            self.assertEqual(t.debug, 'debug' in t.fragments, t.name)

    def test_an_unknown_target_is_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "unknown target 'nocov': "
                                    "coverage, plain, debug, smp, smp-kcsan"):
            targets.target('nocov')
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(targets.main(['shell', 'coverage']), 1)
        self.assertIn('Usage: targets.py list', err.getvalue())


class OldKnobs(unittest.TestCase):
    """The knobs before targets, and init's old parameter names, are
    refused with what they became: by every stage (targets.from_env(),
    stages.userland_args()) and by the run before its first stage."""

    def env(self, **kw):
        e = {k: v for k, v in os.environ.items()
             if k not in ('KEVENT_TARGET', 'USERLAND_ARGS', 'KCSAN', 'KEVENT_FLAVOUR')}
        return unittest.mock.patch.dict(os.environ, dict(e, **kw), clear=True)

    def test_an_old_init_parameter_name_is_refused(self):
        for args in ('KEVENT_ONLY=kevent_dev_test', 'mem=256M\tKEVENT_TEST=x'):
            with self.env(USERLAND_ARGS=args), \
                    self.assertRaisesRegex(stages.StageError, "init's parameters are INIT_"):
                stages.userland_args()
        with self.env(USERLAND_ARGS='INIT_ONLY=kevent_dev_test INIT_TEST=x'):
            self.assertEqual(stages.userland_args(),
                             ['INIT_ONLY=kevent_dev_test', 'INIT_TEST=x'])

    def test_a_target_from_the_environment(self):
        with self.env(KEVENT_TARGET='smp-kcsan'):
            self.assertEqual(targets.from_env().build, 'build-smp-kcsan')
        with self.env():
            self.assertEqual(targets.from_env('plain').name, 'plain')
        for env, said in (({'KEVENT_TARGET': 'nocov'}, "unknown target 'nocov'"),
                          ({'KEVENT_FLAVOUR': 'debug'}, 'now KEVENT_TARGET'),
                          ({'KCSAN': '1'}, 'now KEVENT_TARGET=smp-kcsan')):
            with self.env(**env), self.assertRaisesRegex(ValueError, said):
                targets.from_env()

    def test_the_run_refuses_them_before_its_first_stage(self):
        for env in ({'KCSAN': '1'}, {'USERLAND_ARGS': 'KEVENT_ONLY=x'}):
            with self.env(**env), contextlib.redirect_stderr(io.StringIO()) as err, \
                    unittest.mock.patch.object(harness, 'go') as go:
                self.assertEqual(harness.main(['--no-lint']), 1)
            go.assert_not_called()
            self.assertIn('error: ', err.getvalue())

    def test_lib_sh_loads_without_python3(self):
        # Before setup.sh installs python3 on a minimal machine.
        r = subprocess.run(['bash', '-c', '. "$1"; echo "$REPO"', '-',
                            os.path.join(HERE, 'lib.sh')], capture_output=True, text=True,
                           env=dict(os.environ, KEVENT_PYTHON='/nonexistent/python3'),
                           check=False)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, os.path.dirname(HERE)))


class BenchReport(unittest.TestCase):
    """The user-space benchmark's tables (bench_report.py)."""

    def test_medians_min_max_and_the_ratio(self):
        with tempfile.TemporaryDirectory() as d:
            with open(data('bench/raw.csv')) as f, \
                    open(os.path.join(d, 'raw.csv'), 'w') as g:
                g.write(f.read())
            out = subprocess.run([sys.executable, os.path.join(HERE, 'bench_report.py'), d],
                                 capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        self.assertIn('| kevent_get_events | 10 | 500 [500, 500] | '
                      '300.0 [200.0, 400.0] | 3333 |', out)
        self.assertIn('| oneactive | 10 | kevent_get_events | 3333 | 1667 | 2.00 |', out)


class Build(unittest.TestCase):
    """The builds' decisions (build.py, tree.py) on a scratch tree."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.saved = stages.TREE
        stages.TREE = self.tmp.name
        self.addCleanup(setattr, stages, 'TREE', self.saved)
        os.makedirs(os.path.join(self.tmp.name, 'kernel/kevent'))
        for f in ('kernel/kevent/kevent.c', 'kernel/kevent/kevent.h', 'fs/file.c'):
            self.touch(f)
        with open(os.path.join(self.tmp.name, '.kevent-overlay'), 'w') as f:
            f.write('kernel/kevent/kevent.c\nkernel/kevent/kevent.h\n')

    def touch(self, name, when=None):
        path = os.path.join(self.tmp.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'a'):
            pass
        if when:
            os.utime(path, ns=(when, when))
        else:
            os.utime(path)

    def test_a_mark_names_what_changed_since_it_began(self):
        mark = os.path.join(self.tmp.name, 'mark')
        self.assertIsNone(tree.changed_since(mark))     # no mark yet
        tree.begin(mark)
        self.assertIsNone(tree.changed_since(mark))     # work not done
        tree.done(mark)
        past = os.stat(mark).st_mtime_ns - 10**9
        for f in ('kernel/kevent/kevent.c', 'kernel/kevent/kevent.h'):
            self.touch(f, past)
        self.assertEqual(tree.changed_since(mark), [])
        self.touch('kernel/kevent/kevent.c', past + 2 * 10**9)
        self.assertEqual(tree.changed_since(mark), ['kernel/kevent/kevent.c'])
        # Another compiler flag, or a file more: everything changed.
        with unittest.mock.patch.dict(os.environ, {'KCFLAGS': '-O1'}):
            self.assertIsNone(tree.changed_since(mark))
        with open(os.path.join(self.tmp.name, '.kevent-overlay'), 'a') as f:
            f.write('kernel/kevent/new.c\n')
        self.assertIsNone(tree.changed_since(mark))
        # A patch's file counts as the harness's: it is in the list.
        self.assertIn('fs/file_table.c', tree.files())

    def test_only_kevent_sources_take_the_short_make(self):
        self.assertTrue(build.kevent_only([]))
        self.assertTrue(build.kevent_only(['kernel/kevent/kevent.c',
                                           'kernel/kevent/kunit/x_test.h']))
        for other in ('kernel/kevent/Makefile', 'kernel/kevent/Kconfig',
                      'include/linux/kevent.h', 'fs/file_table.c'):
            self.assertFalse(build.kevent_only(['kernel/kevent/kevent.c', other]),
                             other)

    def test_the_config_hash_follows_the_fragments(self):
        t = targets.target('plain')
        one = tree.config_hash(t)
        self.assertEqual(one, tree.config_hash(t))
        self.assertNotEqual(one, tree.config_hash(targets.target('coverage')))
        with unittest.mock.patch.dict(os.environ, {'CC': 'no-such-compiler'}):
            self.assertNotEqual(one, tree.config_hash(t))

    def test_the_initramfs_list(self):
        lines = build.initramfs_list(
            '/o', '/bin/bb', ['busybox', 'sh', 'ls'],
            {'tests': ['t1'], 'tools': ['man'], 'bench': [], 'fuzz': ['kevent-fuzz']},
            ['cat2/kevent_ctl.2', 'cat7/kevent.7']).splitlines()
        for want in ('dir /fuzz 0755 0 0', 'dir /usr/share/man/cat2 0755 0 0',
                     'file /usr/share/man/cat7/kevent.7 /o/man/cat7/kevent.7 0644 0 0',
                     'nod /dev/console 0600 0 0 c 5 1', 'file /init /o/init 0755 0 0',
                     'file /bin/busybox /bin/bb 0755 0 0', 'slink /bin/sh busybox 0777 0 0',
                     'file /tests/t1 /o/tests/t1 0755 0 0',
                     'file /fuzz/kevent-fuzz /o/fuzz/kevent-fuzz 0755 0 0'):
            self.assertIn(want, lines)
        self.assertNotIn('slink /bin/busybox busybox 0777 0 0', lines)
        # Every file the list names has its folder before it.
        dirs = ['/'] + [l.split()[1] for l in lines if l.startswith('dir ')]
        for l in lines:
            if l.startswith(('file ', 'slink ')):
                self.assertIn(os.path.dirname(l.split()[1]), dirs, l)

    def test_a_removed_program_leaves_the_initramfs(self):
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, 'tools'))
            for b in ('kevent-watch', 'gone'):
                open(os.path.join(out, 'tools', b), 'w').close()
            names = build.programs(out, 'tools')
            self.assertIn('kevent-watch', names)
            self.assertNotIn('gone', names)
            self.assertEqual(sorted(os.listdir(os.path.join(out, 'tools'))),
                             ['kevent-watch'])


class Lint(unittest.TestCase):
    """What lint checks (lint.py, lint.mk)."""

    def test_the_files_it_checks(self):
        sources = lint.repo_files('kernel/kevent/**/*.[ch]', 'kunit/**/*.[ch]')
        self.assertIn('kernel/kevent/kevent.c', sources)
        self.assertIn('kunit/kevent_core_test.c', sources)
        shells = lint.repo_files('scripts/**/*.sh', 'coverage/**/*.sh',
                                 prune=('coverage/html',))
        self.assertIn('scripts/lib.sh', shells)
        self.assertFalse([f for f in shells if f.startswith('coverage/html/')])

    def test_a_shell_finding_fails_and_is_checked_again(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, 'bad.sh')
            with open(bad, 'w') as f:
                f.write('#!/bin/bash\nfoo=$1\n')
            os.makedirs(os.path.join(d, 'scripts'))
            open(os.path.join(d, 'scripts', 'lib.sh'), 'w').close()
            cmd = ['make', '-s', '-f', os.path.join(HERE, 'lint.mk'), f'REPO={d}',
                   f'TREE={d}', f'OUT={d}/ok', f'PYTHON={sys.executable}',
                   'SHELLS=bad.sh', f'{d}/ok/shellcheck/bad.sh']
            if not shutil.which('shellcheck'):
                self.skipTest('no shellcheck')
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn('lint: shellcheck: bad.sh', r.stderr)
            self.assertFalse(os.path.exists(f'{d}/ok/shellcheck/bad.sh'))
            with open(bad, 'w') as f:
                f.write('#!/bin/bash\necho "$1"\n')
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.exists(f'{d}/ok/shellcheck/bad.sh'))



class Timing(unittest.TestCase):
    """The tables of timing.py (./run_tests.sh time)."""

    def test_the_tables(self):
        self.assertEqual(timing.warm_table(4, [10, 12, 11, 30], [20, 21, 25, 22]).splitlines()[2:],
                         ['| again | 11 [10, 30] | 10 12 11 30 |',
                          '| edit | 21 [20, 25] | 20 21 25 22 |'])
        self.assertEqual(timing.cold_table([('cold', 'c', 300, 'build 1s'),
                                            ('anchor', 'a', 150, '')]).splitlines()[2:],
                         ['| cold | c | 300 | 2.00 | build 1s |',
                          '| anchor | a | 150 | 1.00 |  |'])

    def test_a_run_and_its_stage_times(self):
        with tempfile.TemporaryDirectory() as d:
            t = timing.Timing(d)
            with contextlib.redirect_stdout(io.StringIO()):
                t.measure('ok', 'w', ['sh', '-c', 'echo "  stage times: a 1s"; '
                                      'echo "  stage times: b 2s"'])
                t.measure('bad', 'w', ['sh', '-c', 'exit 3'])
            self.assertEqual(t.rows[0][::3], ('ok', 'b 2s'))
            self.assertEqual(t.rows[1][3], f'FAILED (exit 3, see {d}/bad.log) ')


if __name__ == '__main__':
    unittest.main()

#!/bin/bash
# kevent test harness: builds a UML 6.12 kernel with kevent through
# kunit_tool, runs the KUnit suites and the user-space suites, and writes a
# coverage report.  Each stage is a small script in scripts/ or coverage/.
set -u
. "$(dirname "$0")/scripts/lib.sh"

usage() {
	cat <<EOF
usage: ./run_tests.sh [options] [KUNIT_GLOB]

Sets up what is missing, prepares the kernel tree, builds the UML kernel,
lints, runs the KUnit suites and the user-space suites, and writes the
coverage report (coverage/html/index.html).  Exits 0 only when all passed.

  KUNIT_GLOB        run only these KUnit suites/tests, e.g. 'kevent_core.*oneshot*'
                    (default: kevent*)
  --jobs N          parallel make jobs (default: $(nproc))
  --no-coverage     build without gcov (a separate build dir) and skip the report
  --debug           the debug configuration (configs/debug.config: lockdep,
                    KASAN, kmemleak, UBSAN, fault injection; own build dir, no
                    coverage); any report in a kernel log fails the run
  --no-lint         skip checkpatch, kernel-doc, W=1, shellcheck, the man
                    page check and the harness self-tests
  --json FILE       write all results of the run as one KernelCI JSON
                    document to FILE (scripts/results.py)
  --prove-guards    for each fixed bug, put it back (kernel/guards/),
                    rebuild, and show its test failing; with --fuzz, show
                    the fuzzer finding the guards marked 'Fuzz: yes'; with
                    --smp, the guards proven in the SMP kernel ('Target: smp'
                    and 'SMP:' lines)
  --shell           boot the kevent UML to a shell on this terminal instead
                    (builds first if needed; 'poweroff' ends it)
  --bench [WHICH]   run the benchmark instead of the tests (the build
                    without coverage): 'kernel' the in-kernel suite
                    kevent_bench (kevent against epoll and timerfd, ns per
                    event, 9 boots, about 8 minutes), 'user' the user-space
                    kevent-bench (against epoll, poll and timerfd, about 11
                    minutes), 'all' (default) both, kernel first; tables
                    and plots go to .work/results/bench/
  --bench-save DIR  with --bench kernel: save the built kernel to DIR, as
                    the base of a later comparison, and run nothing
  --bench-base DIR  with --bench kernel: boot the kernel saved in DIR and
                    this tree's in turn, and compare them run by run
  --fuzz [SEEDS]    fuzz kevent instead of the tests: kevent-fuzz in the
                    debug UML, one boot per seed (comma-separated; 'time'
                    is the clock; default 1); a finding is reduced and
                    printed with the command that replays it
  --fuzz-ops N      operations per seed (default 100000)
  --fuzz-time SEC   at most this long per seed (default 60)
  --smp             instead of the UML layers: build kevent into an x86_64
                    kernel (debug configuration: lockdep, KASAN, kmemleak),
                    boot it in QEMU with 4 vCPUs (multi-threaded TCG) and
                    run the KUnit suites and the user-space suites there;
                    results in .work/results/smp-{kunit,userland}.json
  --kcsan           with --smp: KCSAN instead of KASAN (own build dir);
                    the data races it reports in kevent code fail the run
  --libevent [only] also run libevent's own test suite (test/test.sh's
                    programs and regress) on the kevent backend and on
                    epoll, in two UML boots side by side
                    (scripts/run_libevent.sh): fetches
                    Debian 12's libevent source (apt-get source, cached in
                    .work/libevent; LIBEVENT_SRC=DIR uses a tree), applies
                    userland/libevent/, builds it statically; a test that
                    passes on epoll and not on kevent fails the run.
                    'only': this stage alone after the build; 'bench':
                    libevent's test/bench and bench_cascade on kevent and
                    epoll in one boot instead (medians, the ratio; use
                    with --no-coverage)
  -h, --help        this text

Environment: KERNEL_SRC=DIR uses that 6.12.x tree instead of Debian's
linux-source-6.12.  The UML binary of the last run is .work/build/linux
(.work/build-plain/linux, .work/build-debug/linux with those options); the
x86_64 kernel is .work/build-smp/arch/x86/boot/bzImage (build-smp-kcsan).
EOF
}

filter=
json=
lint=1
shell=0
guards=0
bench=0
bench_which=all
bench_args=()
fuzz=
smp=0
libevent=0
nocov=0
debug=0
kcsan=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--jobs) [ $# -ge 2 ] || die "--jobs needs a number"; JOBS=$2; shift ;;
	--jobs=*) JOBS=${1#*=} ;;
	--no-coverage) nocov=1 ;;
	--no-lint) lint=0 ;;
	--debug) debug=1 ;;
	--shell) shell=1 ;;
	--prove-guards) guards=1 ;;
	--bench)
		bench=1
		case ${2:-} in kernel|user|all) bench_which=$2; shift ;; esac ;;
	--bench=*) bench=1; bench_which=${1#*=} ;;
	--bench-save|--bench-base)
		[ -n "${2:-}" ] || die "$1 needs a directory"
		[ ${#bench_args[@]} = 0 ] || die "--bench-save and --bench-base go one at a time, once"
		bench_args=("--${1#--bench-}" "$2"); shift ;;
	--fuzz)
		fuzz=1
		case ${2:-} in [0-9]*|time*) fuzz=$2; shift ;; esac ;;
	--fuzz=*) fuzz=${1#*=} ;;
	--fuzz-ops) [ $# -ge 2 ] || die "--fuzz-ops needs a number"; export FUZZ_OPS=$2; shift ;;
	--fuzz-time) [ $# -ge 2 ] || die "--fuzz-time needs seconds"; export FUZZ_TIME=$2; shift ;;
	--smp) smp=1 ;;
	--libevent)
		libevent=1
		case ${2:-} in only|bench) libevent=$2; shift ;; esac ;;
	--kcsan) kcsan=1 ;;
	--json) [ $# -ge 2 ] || die "--json needs a file name"; json=$2; shift ;;
	--json=*) json=${1#*=} ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) filter=$1 ;;
	esac
	shift
done
case $JOBS in ''|*[!0-9]*) die "--jobs wants a positive number, not '$JOBS'" ;; esac
[ ${#bench_args[@]} = 0 ] || { [ $bench = 1 ] && [ "$bench_which" = kernel ]; } ||
	die "--bench-save and --bench-base go with --bench kernel"

[ -z "$json" ] || json=$(realpath -m "$json")
export JOBS
# The kernel under test (scripts/targets.py): the x86_64 SMP kernel
# (--smp, with KCSAN for --kcsan), else the UML debug build (--debug,
# --fuzz) whatever else is asked, else UML without gcov (--no-coverage,
# --bench: gcov would weigh on it), else UML with coverage.
target=coverage
[ $nocov = 1 ] || [ $bench = 1 ] && target=plain
[ $debug = 1 ] || [ -n "$fuzz" ] && target=debug
[ $smp = 1 ] && target=smp
[ $kcsan = 1 ] && target='smp-kcsan'
[ $bench = 1 ] && export SETUP_BENCH=1
[ "$libevent" != 0 ] && export SETUP_LIBEVENT=1
[ $kcsan = 0 ] || [ $smp = 1 ] || die "--kcsan goes with --smp"
[ $kcsan = 0 ] || [ $guards = 0 ] || die "--kcsan does not go with --prove-guards"
# --prove-guards proves some guards in the SMP kernel too: QEMU.
[ $smp = 1 ] || [ $guards = 1 ] && export SETUP_SMP=1

failed=()
timings=()
run_stage() {	# name, command...
	local name=$1 start=$SECONDS
	shift
	stage "$name"
	"$@" || failed+=("$name")
	timings+=("$name $((SECONDS - start))s")
}
must() {	# a stage the rest depends on
	run_stage "$@"
	[ ${#failed[@]} = 0 ] || { printf '\n0 passed, 1 failed\n'; exit 1; }
}

# A stage beside the others: it starts now, its output goes to a log,
# and join_stage prints that log and its time and verdict when it has
# ended (in the order the joins come, so the report reads as a sequence).
beside_pids=()
beside() {	# name command...
	local name=$1
	shift
	rm -f "$WORK/$name.log.done"
	(
		start=$SECONDS
		rc=0
		"$@" >"$WORK/$name.log" 2>&1 || rc=$?
		echo "$((SECONDS - start)) $rc" >"$WORK/$name.log.done"
	) &
	beside_pids+=("$name:$!")
}
settle() {	# name: wait for it to end, report it later (join_stage)
	local p left=()
	for p in "${beside_pids[@]}"; do
		if [ "${p%%:*}" = "$1" ]; then
			wait "${p#*:}"
		else
			left+=("$p")
		fi
	done
	beside_pids=("${left[@]}")
}
join_stage() {	# name
	local name=$1 secs='?' rc=1
	settle "$name"
	stage "$name"
	cat "$WORK/$name.log"
	[ -f "$WORK/$name.log.done" ] && read -r secs rc <"$WORK/$name.log.done"
	timings+=("$name ${secs}s")
	[ "$rc" = 0 ] || failed+=("$name")
}

must setup "$REPO/scripts/setup.sh"
set_target "$target"	# python3 is there now
must prepare "$REPO/scripts/prepare_tree.sh"
if [ $guards = 1 ] && [ $smp = 1 ]; then
	stage "prove guards in the SMP kernel"
	must smp-build "$REPO/scripts/build_smp.sh"
	exec "$PYTHON" "$REPO/scripts/guards.py" prove --smp
fi
if [ $smp = 1 ]; then
	# The x86_64 SMP layers (scripts/*smp*): their own build, no coverage.
	rm -f "$RESULTS"/smp-*.json
	must smp-build "$REPO/scripts/build_smp.sh"
	run_stage smp-kunit "$REPO/scripts/run_smp_kunit.sh" "$filter"
	run_stage smp-userland-build "$REPO/scripts/build_userland.sh"
	run_stage smp-userland "$REPO/scripts/run_smp_userland.sh"
	stage summary
	printf '  stage times: %s\n' "$(IFS=,; echo "${timings[*]}")"
	# No coverage in the SMP kernel (the report stays the UML runs').
	exec "$PYTHON" "$REPO/scripts/summary.py" --results "$RESULTS" --tree "$TREE" \
		--layers smp-kunit,smp-userland --coverage-layers '' \
		${json:+--json "$json"} --failed-stages "$(IFS=,; echo "${failed[*]}")"
fi
# The user-space programs need the tree's uapi headers, not the kernel:
# a test run builds them beside the kernel, niced (the kernel build is
# what the run waits for: a cold one takes minutes, this one about 2).
tests=1
[ $guards = 1 ] || [ $bench = 1 ] || [ -n "$fuzz" ] || [ $shell = 1 ] || [ "$libevent" = only ] || [ "$libevent" = bench ] && tests=0
[ $tests = 1 ] && beside userland-build nice -n 10 "$REPO/scripts/build_userland.sh"
# Lint reads the sources and writes only its own build dir (with its own
# configuration): it runs beside the kernel build and the boots, niced,
# and is reported last.  (Beside the boots it once made the tests' tight
# timing bounds fail: 3 of 7 runs after an edit, a 1 ms timeout that took
# 7.5 ms.  Those bounds are now judged on the fastest of 5 tries
# (userland/tests/common.h): 8 edit runs with lint beside the boots, 3 of
# them linting everything for 30-33 s, had no failure.)
[ $tests = 1 ] && [ $lint = 1 ] && beside lint nice -n 19 "$REPO/scripts/lint.sh"
# --libevent: libevent's build needs the tree, not the kernel, and runs
# beside the kernel build too, niced as lint (its configure is one long
# serial job; cold, it takes minutes).
[ $tests = 1 ] && [ "$libevent" = 1 ] &&
	beside libevent-build nice -n 19 "$REPO/scripts/build_libevent.sh"
must build "$REPO/scripts/build_kernel.sh"
if [ $guards = 1 ] && [ -n "$fuzz" ]; then
	stage "prove that the fuzzer finds the guarded defects"
	exec "$PYTHON" "$REPO/scripts/guards.py" prove-fuzz
fi
if [ $guards = 1 ]; then
	stage "prove guards"
	exec "$PYTHON" "$REPO/scripts/guards.py" prove
fi
if [ $bench = 1 ]; then
	case $bench_which in
	kernel|all)
		boots="${BENCH_RUNS:-9} boots"
		[ "${bench_args[0]:-}" != --base ] || boots="${BENCH_RUNS:-9} of each kernel"
		[ "${bench_args[0]:-}" != --save ] || boots="none: save the kernel"
		stage "in-kernel benchmark (about 50 s a boot, $boots)"
		"$REPO/scripts/run_bench_kernel.sh" "${bench_args[@]}" || exit 1 ;;
	user) ;;
	*) die "--bench takes kernel, user or all, not '$bench_which'" ;;
	esac
	[ "$bench_which" = kernel ] && exit 0
	"$REPO/scripts/build_userland.sh" || exit 1
	stage "user-space benchmark (about 11 minutes)"
	exec "$REPO/scripts/run_bench.sh"
fi
if [ -n "$fuzz" ]; then
	rm -f "$RESULTS/fuzz.json"
	run_stage userland-build "$REPO/scripts/build_userland.sh"
	# shellcheck disable=SC2046  # the seeds are words
	run_stage fuzz "$PYTHON" "$REPO/scripts/fuzz.py" run $(tr , ' ' <<< "$fuzz")
	stage summary
	printf '  stage times: %s\n' "$(IFS=,; echo "${timings[*]}")"
	exec "$PYTHON" "$REPO/scripts/summary.py" --results "$RESULTS" --tree "$TREE" \
		--layers fuzz --coverage-layers fuzz \
		${json:+--json "$json"} --failed-stages "$(IFS=,; echo "${failed[*]}")"
fi
if [ "$libevent" = bench ]; then
	"$REPO/scripts/build_userland.sh" || exit 1
	stage "libevent benchmark"
	exec "$REPO/scripts/run_libevent_bench.sh"
fi
if [ "$libevent" = only ]; then
	rm -f "$RESULTS/libevent.json"
	run_stage userland-build "$REPO/scripts/build_userland.sh"
	run_stage libevent "$REPO/scripts/run_libevent.sh"
	stage summary
	printf '  stage times: %s\n' "$(IFS=,; echo "${timings[*]}")"
	exec "$PYTHON" "$REPO/scripts/summary.py" --results "$RESULTS" --tree "$TREE" \
		--layers libevent --coverage-layers '' \
		${json:+--json "$json"} --failed-stages "$(IFS=,; echo "${failed[*]}")"
fi
if [ $shell = 1 ]; then
	"$REPO/scripts/build_userland.sh" || exit 1
	stage "booting UML to a shell ('poweroff' ends it)"
	exec "$REPO/scripts/shell.sh"
fi
# The boots come one after the other (the user-space layer is two boots
# side by side): at most one boot per CPU, as the tests' timing bounds
# assume.  Each boot writes its own gcov data (lib.sh's gcov_boot).
rm -f "$RESULTS"/*.json "$RESULTS"/coverage-*.info
join_stage userland-build
run_stage kunit "$REPO/scripts/run_kunit.sh" "$filter"
if [[ " ${failed[*]} " != *" userland-build "* ]]; then
	run_stage userland "$REPO/scripts/run_userland.sh"
	if [ "$libevent" = 1 ]; then
		join_stage libevent-build
		[[ " ${failed[*]} " == *" libevent-build "* ]] ||
			run_stage libevent "$REPO/scripts/run_libevent.sh"
	fi
fi
if [ "$COVERAGE" = 1 ]; then
	# Each layer's data are its own boots': the captures side by side.
	"$REPO/coverage/capture.sh" kunit &
	"$REPO/coverage/capture.sh" userland
	wait $!
	cov=(kunit userland)
	# --libevent: the kevent lines libevent's suite reaches, a layer of its own.
	if [ "$libevent" = 1 ] && "$REPO/coverage/capture.sh" libevent; then
		cov+=(libevent)
	fi
	run_stage coverage "$REPO/coverage/capture.sh" report "${cov[@]}"
fi
[ $lint = 1 ] && join_stage lint

stage summary
printf '  stage times: %s\n' "$(IFS=,; echo "${timings[*]}")"
for f in "${failed[@]}"; do
	printf '  stage failed: %s\n' "$f"
done
floors=()
[ "$COVERAGE" = 1 ] && floors=(--floors "$REPO/coverage/floors.conf")
layers=kunit,userland covlayers=kunit,userland,all
[ "$libevent" = 1 ] && layers=kunit,userland,libevent covlayers=kunit,userland,libevent,all
"$PYTHON" "$REPO/scripts/summary.py" --results "$RESULTS" --tree "$TREE" --layers "$layers" \
	--coverage-layers "$covlayers" \
	${json:+--json "$json"} "${floors[@]}" --failed-stages "$(IFS=,; echo "${failed[*]}")"

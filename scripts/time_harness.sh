#!/bin/bash
# Where a user's wait goes, measured in one run on this machine, each
# figure beside kunit_tool's own default UML build (the anchor):
#   anchor  `kunit.py build --arch um` with no configuration of ours, cold
#           (its own build dir), in the prepared tree
#   cold    ./run_tests.sh in a fresh work directory: tree copy, build,
#           lint, both layers, coverage (the packages are installed)
#   again   ./run_tests.sh once more with no edit (what a re-run costs)
#   edit    a one-line edit of kernel/kevent/kevent.c, then ./run_tests.sh
#           again in that directory (a warm run: the verdict of an edit)
#   debug   ./run_tests.sh --debug in that directory, its build cold
# Prints a Markdown table of seconds, ratio to the anchor and the stage
# times run_tests.sh printed, and writes it to DIR/timing.md.
# Usage: time_harness.sh [DIR]   DIR: the work directory, removed first
# (default $WORK/timing).  About 25 minutes on 2 cores.  The edit is
# made in this checkout and taken out again, also when interrupted.
#        time_harness.sh --warm [N]   only the warm rows, N times each
# (default 5) in the work directory of the last run ($WORK, which must
# hold its builds): a run with nothing changed and a run after a one-line
# edit (each a new line, so each run compiles), as median [min, max].
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

warm=0
if [ "${1:-}" = --warm ]; then
	warm=${2:-5}
	case $warm in ''|0|*[!0-9]*) die "--warm wants a count, not '$warm'" ;; esac
	dir=$WORK/timing-warm
else
	dir=$(realpath -m "${1:-$WORK/timing}")
	case $dir in
	"$WORK" | "$REPO" | /) die "refusing to remove $dir: give a directory of its own" ;;
	esac
fi
edited=$REPO/kernel/kevent/kevent.c
saved=$(mktemp)
cp "$edited" "$saved"
trap 'cp "$saved" "$edited"; rm -f "$saved"' EXIT
git -C "$REPO" diff --quiet -- "$edited" ||
	die "$edited has uncommitted changes: commit or stash them first"

rm -rf "$dir"
mkdir -p "$dir"
rows=()
declare -A took

# One measured command: its wall time, its log, the stage times it printed.
measure() {	# name what command...
	local name=$1 what=$2 start=$SECONDS rc=0 secs stages
	shift 2
	say "time_harness: $name: $what"
	"$@" >"$dir/$name.log" 2>&1 || rc=$?
	secs=$((SECONDS - start))
	stages=$(sed -n 's/^  stage times: //p' "$dir/$name.log" | tail -n 1)
	[ $rc = 0 ] || stages="FAILED (exit $rc, see $dir/$name.log) ${stages}"
	say "  $secs s${stages:+; $stages}"
	rows+=("$name|$what|$secs|$stages")
	took[$name]=$secs
}

if [ "$warm" != 0 ]; then
	[ -x "$KERNEL" ] || die "no build in $WORK: run ./run_tests.sh once first"
	declare -A all
	for ((i = 1; i <= warm; i++)); do
		measure "again-$i" "nothing changed" "$REPO/run_tests.sh"
		all[again]+="${took[again-$i]} "
		printf '/* time_harness.sh: edit %d */\n' "$i" >> "$edited"
		measure "edit-$i" "one-line edit of kevent.c" "$REPO/run_tests.sh"
		all[edit]+="${took[edit-$i]} "
	done
	{
		printf 'Measured by scripts/time_harness.sh --warm %s on %s, %s CPUs, commit %s.\n\n' \
			"$warm" "$(date -u +%Y-%m-%d)" "$(nproc)" "$(git -C "$REPO" rev-parse --short HEAD)"
		printf '| run | seconds, median [min, max] of %s | runs |\n|---|---:|---|\n' "$warm"
		for name in again edit; do
			# shellcheck disable=SC2086  # the times are words
			printf '| %s | %s | %s |\n' "$name" \
				"$(printf '%s\n' ${all[$name]} | sort -n |
				   awk '{ v[NR] = $1 } END { printf "%d [%d, %d]", v[int((NR + 1) / 2)], v[1], v[NR] }')" \
				"${all[$name]% }"
		done
		printf '\nStage times of each run: %s/*.log ("stage times").\n' "$dir"
		for r in "${rows[@]}"; do
			case $r in *FAILED*) printf 'FAILED: %s\n' "${r%%|*}" ;; esac
		done
	} | tee "$dir/timing.md"
	exit 0
fi

export KEVENT_WORK=$dir
measure cold "./run_tests.sh, fresh work directory" "$REPO/run_tests.sh"
mkdir -p "$dir/anchor"
# The anchor is kbuild as it comes: no try-run cache (kernel/patches/0013).
measure anchor "kunit.py build --arch um (kunit_tool's defaults)" \
	env KBUILD_TRY_RUN_CACHE=0 "$PYTHON" "$dir/linux/tools/testing/kunit/kunit.py" build --arch um \
	--build_dir "$dir/anchor" --jobs "$JOBS"
measure again "./run_tests.sh, nothing changed since" "$REPO/run_tests.sh"
printf '/* time_harness.sh: a one-line edit */\n' >> "$edited"
measure edit "one-line edit of kevent.c, ./run_tests.sh" "$REPO/run_tests.sh"
cp "$saved" "$edited"
measure debug "./run_tests.sh --debug, its build cold" "$REPO/run_tests.sh" --debug

{
	printf 'Measured by scripts/time_harness.sh on %s, %s CPUs, commit %s.\n\n' \
		"$(date -u +%Y-%m-%d)" "$(nproc)" "$(git -C "$REPO" rev-parse --short HEAD)"
	printf '| run | what | seconds | / anchor | stage times |\n|---|---|---:|---:|---|\n'
	for r in "${rows[@]}"; do
		IFS='|' read -r name what secs stages <<<"$r"
		printf '| %s | %s | %s | %s | %s |\n' "$name" "$what" "$secs" \
			"$(awk -v a="$secs" -v b="${took[anchor]}" 'BEGIN { printf "%.2f", a / b }')" "$stages"
	done
} | tee "$dir/timing.md"

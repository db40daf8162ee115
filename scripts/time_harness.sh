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
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=$(realpath -m "${1:-$WORK/timing}")
case $dir in
"$WORK" | "$REPO" | /) die "refusing to remove $dir: give a directory of its own" ;;
esac
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

export KEVENT_WORK=$dir
measure cold "./run_tests.sh, fresh work directory" "$REPO/run_tests.sh"
mkdir -p "$dir/anchor"
measure anchor "kunit.py build --arch um (kunit_tool's defaults)" \
	python3 "$dir/linux/tools/testing/kunit/kunit.py" build --arch um \
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

#!/bin/bash
# Shrink a fuzzing finding: halve the operation budget while the seed still
# finds something, then drop the kinds of operations it does not need, then
# try one thread; print the smallest reproducer, and replay it once with
# --trace so the console shows every operation up to the finding (a crash
# leaves nothing else).  Races may not reproduce every time: each step is
# one boot, and a step that loses the finding is undone.
# Usage: fuzz_reduce.sh SEED OPS   (FUZZ_REDUCE_BOOTS bounds the boots, 12)
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

seed=${1:?usage: fuzz_reduce.sh SEED OPS}
ops=${2:?usage: fuzz_reduce.sh SEED OPS}
nkinds=16	# K_NR in userland/fuzz/kevent-fuzz.c
kinds=$(( (1 << nkinds) - 1 ))
threads=4
boots=${FUZZ_REDUCE_BOOTS:-12}
dir=$RESULTS/fuzz
log=$dir/reduce-$seed.log

reproduces() {	# ops kinds threads
	[ "$boots" -gt 0 ] || return 1
	boots=$((boots - 1))
	! "$REPO/scripts/fuzz_once.sh" "$log" --seed "$seed" --ops "$1" --kinds "$2" \
		--threads "$3" >/dev/null
}

say "fuzz: reducing seed $seed ($ops operations)"
while [ "$ops" -gt 16 ] && reproduces $((ops / 2)) $kinds $threads; do
	ops=$((ops / 2))
	say "  still found with $ops operations"
done
for k in $(seq 0 $((nkinds - 1))); do
	bit=$((1 << k))
	[ $((kinds & bit)) = 0 ] || [ $((kinds & ~bit)) = 0 ] && continue
	if reproduces "$ops" $((kinds & ~bit)) $threads; then
		kinds=$((kinds & ~bit))
		say "  still found without operation kind $k"
	fi
done
reproduces "$ops" $kinds 1 && threads=1
repro="kevent-fuzz --seed $seed --ops $ops --kinds $(printf '%#x' $kinds) --threads $threads"
say "fuzz: smallest reproducer found: $repro"
say "  (./run_tests.sh --fuzz $seed --fuzz-ops $ops replays it with all kinds; in a"
say "   shell of the debug UML: /fuzz/$repro)"
if [ "$ops" -gt 20000 ]; then
	say "  (no --trace replay: $ops operations would flood the console)"
	exit 0
fi
"$REPO/scripts/fuzz_once.sh" "$log.trace" --seed "$seed" --ops "$ops" \
	--kinds "$kinds" --threads "$threads" --trace >/dev/null
say "  the last operations before the finding (--trace replay, $log.trace):"
grep -E 'kevent-fuzz: (op |FINDING)' "$log.trace" | tail -n 20 | sed 's/^/  | /'

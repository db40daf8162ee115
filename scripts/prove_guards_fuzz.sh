#!/bin/bash
# Show that the fuzzer finds, by itself, the defects whose guards say
# "Fuzz: yes" (the epoll cycle, the kevent_wait num 0 spin, the 1 ns timer
# flood...): for each, put the defect back, rebuild the debug UML, fuzz
# seeds 1, 2, 3 with the default budget until one finds it, then halve the
# budget (four times at most) while that seed still finds it.  Prints the table guard -> seed
# -> verdict -> smallest budget that found it; fails unless every guard's
# defect was found.  FUZZ_OPS and FUZZ_TIME as for --fuzz.  Usage:
# prove_guards_fuzz.sh [GLOB]: GLOB selects guards by name ('3[7-9]-*').
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

set_target debug
ops=${FUZZ_OPS:-100000}
log=$RESULTS/guards-fuzz
mkdir -p "$log"
rows=()
bad=0

"$REPO/scripts/build_userland.sh" >"$log/userland.log" 2>&1 ||
	die "cannot build the test initramfs (see $log/userland.log)"
for g in "$REPO"/kernel/guards/${1:-*}.patch; do
	[ -e "$g" ] || die "no guard matches '${1:-*}' in kernel/guards/"
	grep -q '^Fuzz: yes' "$g" || continue
	name=$(basename "$g" .patch)
	say "guard $name: fuzzing the debug UML with the defect put back"
	guard_apply "$g" >"$log/$name.patch.log" 2>&1 ||
		{ rows+=("$name|-|does not apply|-"); bad=1; continue; }
	if ! "$REPO/scripts/build_kernel.sh" >"$log/$name.build.log" 2>&1; then
		rows+=("$name|-|build failed (see $log/$name.build.log)|-")
		bad=1
		guard_restore
		continue
	fi
	found=
	for seed in 1 2 3; do
		verdict=$("$REPO/scripts/fuzz_once.sh" "$log/$name-seed$seed.log" --seed $seed --ops "$ops")
		say "  seed $seed: $verdict"
		[ "$verdict" = ok ] || { found=$seed; break; }
	done
	if [ -z "$found" ]; then
		rows+=("$name|1-3|not found|-")
		bad=1
	else
		least=$ops
		n=$((ops / 2))
		tries=4
		while [ $n -ge 64 ] && [ $((tries -= 1)) -ge 0 ] &&
		      ! "$REPO/scripts/fuzz_once.sh" "$log/$name-least.log" --seed "$found" --ops $n >/dev/null; do
			least=$n
			n=$((n / 2))
		done
		rows+=("$name|$found|${verdict%%:*}: ${verdict#*: }|$least")
	fi
	guard_restore
done
"$REPO/scripts/build_kernel.sh" >"$log/rebuild.log" 2>&1

printf '\n%-30s %-5s %-8s %s\n' "guard" "seed" "ops" "found"
for r in "${rows[@]}"; do
	IFS='|' read -r a b c d <<<"$r"
	printf '%-30s %-5s %-8s %s\n' "$a" "$b" "$d" "${c:0:100}"
done
[ $bad = 0 ] || die "the fuzzer missed some defects (above)"
say "the fuzzer found all ${#rows[@]} defects; replay one with ./run_tests.sh --fuzz SEED --fuzz-ops N"

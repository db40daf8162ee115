#!/bin/bash
# Boot the UML kernel with the test initramfs (kunit.enable=0, so KUnit
# stays quiet), let init run the user-space tests and power off, then parse
# their KTAP with kunit_tool.  Fails on a test failure, a missing result, a
# kernel panic or a boot that outlives its timeout.  USERLAND_ARGS adds
# kernel arguments (e.g. init's INIT_ONLY=prog INIT_TEST=name).
#
# The programs run in USERLAND_PARTS boots side by side (default 2, one
# per CPU; 1 when USERLAND_ARGS chooses a program), each with its own
# console log, KTAP file and gcov data.  scripts/userland_parts.py shares
# the programs out by the time each took in earlier runs (init's
# INIT_PROGRAMS; kept in $RESULTS/userland-times-TARGET.txt), so
# the boots end together; with no times yet, boot i runs the i-th run of
# consecutive programs (init's INIT_PART=i/n).  scripts/ktap_merge.py
# joins the boots' KTAP, boot after boot, and the layer's console log is
# the boots' logs one after the other.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

timeout=${USERLAND_TIMEOUT:-900}
parts=${USERLAND_PARTS:-$(($(nproc) < 2 ? 1 : 2))}
read -ra extra <<< "${USERLAND_ARGS:-}"
case " ${extra[*]} " in *" INIT_ONLY="*) parts=1 ;; esac
case $parts in ''|0|*[!0-9]*) die "USERLAND_PARTS wants a positive number, not '$parts'" ;; esac
hostfs=$RESULTS/hostfs
console=$RESULTS/userland-console.log
ktap=$RESULTS/userland.ktap
clear_status userland
need_boot_files
# The times of whole runs only (a guard's boot times one test), kept per
# target (a debug kernel runs the programs slower).
times=$RESULTS/userland-times-$TARGET.txt
shares=() programs=()
if [ -z "${extra[*]}" ]; then
	programs=("$USERLAND_OUT"/tests/*)
	programs=("${programs[@]##*/}")
fi
if [ "$parts" -gt 1 ] && [ ${#programs[@]} -gt 0 ]; then
	mapfile -t shares < <("$PYTHON" "$REPO/scripts/userland_parts.py" split \
		"$times" "$parts" "${programs[@]}" ||
		say "userland: no shares by time (userland_parts.py failed): consecutive runs" >&2)
	for ((i = 0; i < ${#shares[@]}; i++)); do
		say "userland: boot $((i + 1)): ${shares[$i]//,/ }"
	done
fi
"$REPO/coverage/capture.sh" reset userland

# Boot part $1 of $parts; its exit status goes to $hostfs/$1/rc.  The
# debug configuration runs the KUnit suites in the first boot too (before
# init), so the kmemleak scan at its end sees their objects as well.
boot_part() {	# part
	local dir=$hostfs/$1 rc=0 args=(kunit.enable=0) share=INIT_PART=$1/$parts

	if [ "$DEBUG_KERNEL" = 1 ]; then
		[ "$1" = 0 ] && args=("${KUNIT_BOOT_ARGS[@]}")
		args+=(INIT_KMEMLEAK=1 INIT_TOLERANCE_SCALE=5)
	fi
	[ ${#shares[@]} = "$parts" ] && share=INIT_PROGRAMS=${shares[$1]}
	rm -rf "$dir"
	mkdir -p "$dir"
	gcov_boot userland "$1"
	BOOT_TIMEOUT=$timeout boot_initramfs mem=512M "${args[@]}" "${extra[@]}" \
		"$share" INIT_RESULTS="$dir" \
		INIT_TIMEOUT=$((timeout - 30)) \
		</dev/null >"$dir/console.log" 2>&1 || rc=$?
	echo "$rc" >"$dir/rc"
}

pids=()
for ((i = 0; i < parts; i++)); do
	boot_part "$i" &
	pids+=($!)
done
wait "${pids[@]}"
if [ ${#programs[@]} -gt 0 ]; then
	logs=()
	for ((i = 0; i < parts; i++)); do
		logs+=("$hostfs/$i/console.log")
	done
	"$PYTHON" "$REPO/scripts/userland_parts.py" record "$times" "${logs[@]}" ||
		say "userland: the programs' times were not recorded"
fi

problem='' verdict=crashed part_ktaps=()
: >"$console"
for ((i = 0; i < parts; i++)); do
	dir=$hostfs/$i
	[ "$parts" = 1 ] || printf '==> user-space boot %d of %d\n' "$((i + 1))" "$parts" >>"$console"
	cat "$dir/console.log" >>"$console" 2>/dev/null
	part_ktaps+=("$dir/userland.ktap")
	rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
	[ -n "$problem" ] && continue
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		problem="the UML boot hung: killed after $timeout s" verdict=hung
	elif grep -q 'Kernel panic' "$dir/console.log"; then
		problem="kernel panic (see $console)"
	elif [ "$rc" != 0 ]; then
		problem="UML exited with status $rc (see $console)"
	elif [ ! -s "$dir/userland.ktap" ]; then
		problem="no user-space results were written (see $console)"
	fi
done
"$PYTHON" "$REPO/scripts/ktap_merge.py" "$ktap" "${part_ktaps[@]}" ||
	[ -n "$problem" ] || problem="a user-space boot wrote no KTAP plan (see $console)"
# Every program of the initramfs has its result line (a boot whose init
# left one out of its share would otherwise go unnoticed).
for p in "${programs[@]}"; do
	[ -n "$problem" ] && break
	grep -Eq "^(not )?ok [0-9]+ $p( |\$)" "$ktap" ||
		problem="$p has no result: no boot ran it (see $console)"
done

finish_user_layer "user space" "$ktap" userland "$RESULTS/userland-parsed.txt" "$console" \
	"$verdict" "$problem" \
	"$REPO/scripts/check_log.sh"

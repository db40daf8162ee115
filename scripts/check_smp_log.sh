#!/bin/bash
# Check a kernel log of the x86_64 SMP kernel: all $SMP_CPUS vCPUs came up,
# and no splat (scripts/check_log.sh).  KCSAN reports are listed, one line
# per race with its two accesses (file:line from vmlinux when it has debug
# info); those that touch kevent code fail the run, the others (core
# kernel races outside the project) are only listed.  So is the race of
# the core's wait_event_*hrtimeout(): the macro's plain read of the
# sleeper's task (include/linux/wait.h, inlined where it is used, e.g.
# kevent_wait_ready) against hrtimer_wakeup() clearing it in the timer
# interrupt (kernel/time/hrtimer.c).
# Usage: check_smp_log.sh LOG [WHAT]
# Exit status: 0 clean, 2 a report (check_log.sh), 1 anything else.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

log=${1:?usage: check_smp_log.sh LOG [WHAT]}
what=${2:-$log}
[ -r "$log" ] || die "no kernel log at $log"
cpus=${KEVENT_QEMU_CPUS:-4}

online=$(sed -n 's/.*smp: Brought up [0-9]* nodes\{0,1\}, \([0-9]*\) CPUs\{0,1\}.*/\1/p' "$log" | head -n 1)
[ "$online" = "$cpus" ] ||
	die "the kernel of $what brought up ${online:-no} CPUs, not $cpus (see $log)"
say "$what: $online CPUs online"

# A clock that runs on its own (the TSC, calibrated against ACPI's HPET or
# PM timer): with jiffies as the clocksource, time stands still while the
# CPU that keeps jiffies spins with interrupts off, and so do the hang
# detectors (seen: a whole boot frozen, without a report).
clock=$(sed -n 's/.*clocksource: Switched to clocksource \([^ ]*\).*/\1/p' "$log" |
	tr -d '\r' | tail -n 1)
case $clock in
''|jiffies|refined-jiffies)
	die "the kernel of $what keeps time with ${clock:-no clocksource}, not a hardware clock: see $log (its ACPI tables give the TSC a reference; configs/x86_64.config)" ;;
esac
say "$what: clocksource $clock"

# Each KCSAN report sits between two lines of '='.  List them, and keep
# the others out of the copy check_log.sh judges.  QEMU's serial console
# ends its lines with CR LF: the CR goes first.
filtered=$log.checked
awk -v races="$log.kcsan" '
	{ sub(/\r$/, "") }
	function flush() {
		if (n == 0) return
		if (kcsan && (!kevent || core)) { for (i = 1; i <= n; i++) print blk[i] > races }
		else if (kcsan) { for (i = 1; i <= n; i++) { print blk[i] > races; print blk[i] } }
		else { for (i = 1; i <= n; i++) print blk[i] }
		n = 0; kcsan = 0; kevent = 0; core = 0
	}
	/^(\[ *[0-9.]+\] )?=+$/ {
		if (inblk) { blk[++n] = $0; inblk = 0; flush(); next }
		flush(); inblk = 1; blk[++n] = $0; next
	}
	inblk { blk[++n] = $0; if (/KCSAN/) kcsan = 1
		if (/KCSAN: data-race in (hrtimer_wakeup \/|.* \/ hrtimer_wakeup$)/) core = 1
		if (/[ ](kevent|kt|kc|ktt)_[a-z0-9_.]*\+0x/) kevent = 1; next }
	{ print }
	END { flush() }
' "$log" > "$filtered"
: >> "$log.kcsan"
if grep -q 'BUG: KCSAN' "$log.kcsan"; then
	say "$what: KCSAN reports (all of them in $log.kcsan):"
	# The report's title names both functions; the lines after each
	# "read/write ... by task" line are the accesses' top frames.
	awk '/BUG: KCSAN/ { sub(/.*BUG: /, ""); title = $0; next }
	     /(read|write).* to 0x.* by (task|interrupt)/ { want = 1; acc = $0; sub(/^\[ *[0-9.]+\] /, "", acc); next }
	     want { line = $0; sub(/^\[ *[0-9.]+\] */, "", line) }
	     want && line != "" { if (title != "") printf "  %s\n", title
				  printf "    %s\n      at %s\n", acc, line; title = ""; want = 0 }' \
		"$log.kcsan" | awk '!seen[$0]++ || !/KCSAN/' | head -n 200
	# faddr2line reads vmlinux's symbols once per frame (seconds each):
	# only the kevent frames, at most 20.
	if [ -r "$SMP_BUILD/vmlinux" ] && [ -x "$TREE/scripts/faddr2line" ] &&
	   grep -Eq ' (kevent|kt|kc|ktt)_[a-z0-9_.]*\+0x' "$log.kcsan"; then
		say "  kevent frames of the reports, as file:line:"
		grep -E '^(\[ *[0-9.]+\] )? (kevent|kt|kc|ktt)_[a-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+' "$log.kcsan" |
			sed -E 's/^(\[ *[0-9.]+\] )? //; s/ .*//' | sort -u | head -n 20 |
			while read -r frame; do
				printf '    %s  %s\n' "$frame" \
					"$("$TREE/scripts/faddr2line" "$SMP_BUILD/vmlinux" "$frame" 2>/dev/null |
					   sed -n 's/.* at //p' | head -n 1 | sed "s|^$TREE/||")"
			done
	fi
fi
"$REPO/scripts/check_log.sh" "$filtered" "$what"

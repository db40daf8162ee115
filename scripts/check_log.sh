#!/bin/bash
# Fail when a kernel log shows a splat: BUG, WARNING, Oops, a lockdep,
# KASAN, UBSAN or kmemleak report, a hung task.  Prints each report with
# the lines after it.  Usage: check_log.sh LOG [WHAT]
# Exit status: 0 clean, 2 a report, 1 no log.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

log=${1:?usage: check_log.sh LOG [WHAT]}
what=${2:-$log}
[ -r "$log" ] || die "no kernel log at $log"

pattern='(^|[^_])(BUG:|WARNING:|Oops|kernel BUG|general protection|Call Trace:|UBSAN:|KASAN:|INFO: task .* blocked|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|Kernel panic|ODEBUG:|list_add corruption|list_del corruption)'
if grep -Eq "$pattern" "$log"; then
	printf 'kernel log of %s has a report:\n' "$what" >&2
	grep -En -A 25 "$pattern" "$log" | head -n 200 >&2
	printf 'error: splat in the kernel log of %s (%s)\n' "$what" "$log" >&2
	exit 2
fi

#!/bin/bash
# Fail when a kernel log shows a splat: BUG, WARNING, Oops, a lockdep,
# KASAN, UBSAN or kmemleak report, a hung task (scripts/logscan.py, which
# prints each report with the lines after it).
# Usage: check_log.sh LOG [WHAT]
# Exit status: 0 clean, 2 a report, 1 no log.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

exec "$PYTHON" "$REPO/scripts/logscan.py" "$@"

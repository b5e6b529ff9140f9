#!/bin/bash
# Print "program:test status" (status: pass, fail, skip) for every TAP result
# in a guest console log, and "program:(exit) fail" for a program that
# exited non-zero (not the kselftest skip code 4) without reporting a
# failed test: a crash; "program:(timeout) fail" for one the guest killed
# at its time limit (exit code 137, SIGKILL, with secs >= limit; a SIGKILL
# before the limit, e.g. from the OOM killer, is an "(exit)"). The parser
# is scripts/console.awk (the console contract: tests/contract.conf).
# Usage: scripts/tap-results.sh CONSOLE-LOG
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/console.sh
. "$REPO_ROOT/scripts/lib/console.sh"
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
esac
[ $# -eq 1 ] || die "usage: $0 CONSOLE-LOG (see --help)"
[ -f "$1" ] || die "no console log '$1'"
console_tap "$1"

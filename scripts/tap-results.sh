#!/bin/bash
# Print "program:test status" (status: pass, fail, skip) for every TAP result
# in a guest console log, and "program:(exit) fail" for a program that
# exited non-zero (not the kselftest skip code 4) without reporting a
# failed test: a crash; "program:(timeout) fail" for one the guest killed
# at its time limit (exit code 137, SIGKILL, with secs >= limit; a SIGKILL
# before the limit, e.g. from the OOM killer, is an "(exit)").
# Usage: scripts/tap-results.sh CONSOLE-LOG
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
esac
[ $# -eq 1 ] || die "usage: $0 CONSOLE-LOG (see --help)"
[ -f "$1" ] || die "no console log '$1'"
awk '
/^HARNESS-BEGIN tap:/ { prog = substr($2, 5); next }
/^HARNESS-END tap:/ { prog = ""; next }
prog != "" && /^(not )?ok [0-9]+ / {
	st = ($1 == "not") ? "fail" : "pass"
	i = ($1 == "not") ? 4 : 3
	# kselftest: "ok 3 # SKIP name..."; TAP: "ok 3 name # SKIP why".
	if ($i == "#" && toupper($(i + 1)) == "SKIP") { st = "skip"; i += 2 }
	else if ($(i + 1) == "#" && toupper($(i + 2)) == "SKIP") st = "skip"
	print prog ":" $i, st
	if (st == "fail")
		failed[prog] = 1
	next
}
/^HARNESS-EXIT / {
	delete v
	for (f = 3; f <= NF; f++) {
		split($f, a, "=")
		v[a[1]] = a[2]
	}
	if (v["rc"] == 137 && "limit" in v && v["secs"] + 0 >= v["limit"] + 0)
		print $2 ":(timeout)", "fail"
	else if (v["rc"] != 0 && v["rc"] != 4 && !($2 in failed))
		print $2 ":(exit)", "fail"
}' "$1"

# shellcheck shell=bash
# What the check groups (tests/checks/<group>.sh) share. scripts/run-tests.sh
# sources scripts/lib.sh (BASE, the settings of bases/$BASE.conf once
# load_base ran, and the helpers about series, trees and kernels), then this
# file, then the groups. Each subtest of the run (a base, or the harness's
# own checks) runs in a subshell of the runner: what is set here, and the
# base's settings, are that subtest's and end with it.
#
# Set by the runner (its options) for every subtest:
#   full       non-empty with --full: the groups add their --full checks
#   cpus       --cpus N, or empty (group_boot then takes BASE_TEST_CPUS,
#              else 2)
#   groups     the groups this subtest runs, comma-separated (see want)
# Set by the runner (base_ready) once the base's tree is made:
#   patches    the base's patches, in order, paths (series_patches)
#   base_tree  the base's source tree (tree_dir base)
# Set by checks_start, then kept by check:
#   logdir     $OUT_DIR/tests/<subtest>: the NNN-<name>.log of each check
#              of the subtest; groups keep their other files there too
#   n          the checks of the subtest so far (the last one's number)
#   passed, failed, skipped
#              how many of them passed, failed, were skipped (a group
#              compares failed before and after a check to know its
#              verdict)
#   last_log   the log of the last check
# Set by a group, read by check:
#   common_check  1 while a group checks the harness itself: those checks
#              name no base (no "[base] " before the name)
#
# Functions:
#   checks_start DIR   (the runner) a new subtest: its logs in DIR (made
#                      empty), its numbering from 1
#   check NAME CMD...  run CMD, its output in a log, and print one TAP line:
#                      ok (exit 0), ok ... # SKIP <the log's last line>
#                      (exit 77: cannot run here), else not ok and the
#                      log's last 25 lines as "#" comments
#   note TEXT          a "#" comment in the TAP stream
#   want GROUP         true if the subtest runs GROUP
# Everything a check or group prints outside check and note goes to its
# log or stderr: stdout is TAP.

# checks_start DIR: the next checks are a new subtest, numbered from 1,
# with their logs in DIR (emptied first).
checks_start() {
	logdir=$1
	rm -rf "$logdir"
	mkdir -p "$logdir"
	n=0 passed=0 failed=0 skipped=0 last_log='' common_check=''
}

# check NAME CMD...: run CMD, log its output, print one TAP line. Checks of
# the series and kernels name their base; the harness's own (common) ones
# do not.
check() {
	local name="[$BASE] $1" log
	[ "${common_check:-}" = 1 ] && name=$1
	shift
	n=$((n + 1))
	log="$logdir/$(printf '%03d' "$n")-${name//[^A-Za-z0-9_.-]/_}.log"
	# shellcheck disable=SC2034 # read by the groups (boot.sh)
	last_log=$log
	local rc=0
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $name"
	elif [ "$rc" -eq 77 ]; then
		# Exit 77: the check cannot run here; its last line says why.
		skipped=$((skipped + 1))
		echo "ok $n - $name # SKIP $(tail -n 1 "$log")"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		sed 's/^/#   /' "$log" | tail -n 25
		echo "#   (log: $log)"
	fi
}

# note TEXT: a diagnostic line in the TAP stream.
note() { printf '# %s\n' "$*"; }

# want GROUP: the subtest runs GROUP.
# shellcheck disable=SC2154 # groups: set by the runner
want() { [[ ",$groups," == *",$1,"* ]]; }

#!/bin/sh
# Guest job: run the in-tree selftests named in harness.args (comma
# separated paths under /tests/selftests) in a directory of the ext2 root
# (see init), each with its TAP output between markers and its exit code
# and run time after them. A test still running after harness.timeout
# seconds (default 600) is killed: exit code 137.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
mkdir -p /scratch && cd /scratch || exit 1
limit=${H_timeout:-600}
fails=0
for t in $(echo "${H_args:-}" | tr ',' ' '); do
	echo "HARNESS-BEGIN tap:$t"
	start=$(date +%s)
	timeout -s KILL "$limit" "/tests/selftests/$t" 2>&1
	rc=$?
	echo "HARNESS-END tap:$t"
	echo "HARNESS-EXIT $t rc=$rc secs=$(($(date +%s) - start)) limit=$limit"
	case $rc in 0 | 4) ;; *) fails=$((fails + 1)) ;; esac
done
exit $fails

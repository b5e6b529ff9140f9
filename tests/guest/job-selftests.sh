#!/bin/sh
# Guest job: run the in-tree selftests named in harness.args (comma
# separated paths under /tests/selftests) in a directory of the ext2 root
# (see init), each with its TAP output between markers.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
mkdir -p /scratch && cd /scratch || exit 1
fails=0
for t in $(echo "${H_args:-}" | tr ',' ' '); do
	echo "HARNESS-BEGIN tap:$t"
	timeout -s KILL 600 "/tests/selftests/$t" 2>&1
	rc=$?
	echo "HARNESS-END tap:$t"
	echo "HARNESS-EXIT $t rc=$rc"
	case $rc in 0 | 4) ;; *) fails=$((fails + 1)) ;; esac
done
exit $fails

#!/bin/sh
# Guest job for the debug kernel: the selftests of harness.args, then the
# cgroup churn (which ends with a kmemleak scan).
/tests/job-selftests.sh
rc=$?
/tests/job-churn.sh
crc=$?
echo "HARNESS-EXIT churn rc=$crc"
[ $crc -eq 0 ] || rc=$((rc + 1))
exit $rc

#!/bin/sh
# Guest job: run one command, given in harness.args with commas for
# spaces, in a child memcg (harness.cg=root: in the root cgroup). For
# experiments: harness.args=/tests/mq-bench,--mode,pingpong,--count,1000
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
cg=$(make_child_cgroup run) || exit 1
[ "${H_cg:-child}" = root ] || echo 0 >"$cg/cgroup.procs" || exit 1
# shellcheck disable=SC2046 # the split is the point
exec $(echo "${H_args:?harness.args names the command}" | tr ',' ' ')

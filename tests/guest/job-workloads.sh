#!/bin/sh
# Guest job: the third-party workloads (stress-ng stressors, see
# tests/workloads.conf) named in harness.workloads, comma-separated, each
# in a child memcg (harness.cg=root: in the root cgroup, with a child memcg
# present so that the kmem key is on).
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
child=$(make_child_cgroup workloads) || exit 1
cg=$child
[ "${H_cg:-child}" != root ] || cg=/sys/fs/cgroup
: >/tmp/workloads.json
run_workloads "$cg" "${H_workloads:?harness.workloads names the workloads}" /tmp/workloads.json
emit_file workloads.json /tmp/workloads.json
emit_cpu
# Every workload must have given a figure.
! grep -q '"error"' /tmp/workloads.json

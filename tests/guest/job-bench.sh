#!/bin/sh
# Guest job: the mqueue benchmark. harness.cg=root runs it in the root
# cgroup (with a child memcg present, so the kmem key is on), anything else
# in a child memcg. harness.count= sets the number of iterations.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
child=$(make_child_cgroup bench) || exit 1
count=${H_count:-100000}
case "${H_cg:-child}" in
root) cg=/sys/fs/cgroup cg2=$child ;;
*) cg=$child cg2=$(make_child_cgroup bench2) || exit 1 ;;
esac
/tests/mq-bench --json --count "$count" --cgroup "$cg" --cpu 0 \
	--label pair >/tmp/bench.json || exit 1
/tests/mq-bench --json --mode pingpong --count $((count / 10)) --cpu 0 \
	--cgroup "$cg" --label pingpong-same >>/tmp/bench.json || exit 1
/tests/mq-bench --json --mode pingpong --count $((count / 10)) --cpu 0 \
	--cgroup "$cg" --cgroup2 "$cg2" --label pingpong-cross >>/tmp/bench.json || exit 1
if [ -f /lib/modules/kmem_bench.ko ]; then
	insmod /lib/modules/kmem_bench.ko || exit 1
	echo $$ >"$cg/cgroup.procs"
	echo "run $count" >/proc/kmem_bench || exit 1
	sed -n 's/^kmem_bench /&/p' /proc/kmem_bench >/tmp/kmem.txt
	emit_file kmem.txt /tmp/kmem.txt
fi
emit_file bench.json /tmp/bench.json

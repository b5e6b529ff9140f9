#!/bin/sh
# Guest job: what objects kept charged per CPU hold with many cgroups.
# harness.count (default 1000) child memcgs of one parent each run a short
# mqueue benchmark in turn (message allocations and frees from SLAB_ACCOUNT
# caches). Then /proc/slabinfo is read before and after
# `echo 2 >/proc/sys/vm/drop_caches`, whose shrinkers include the one that
# gives kept objects back to their slabs: the drop of in-use objects of the
# caches that messages use (msg_msg-*, kmalloc-cg-*) is what the slots
# held. memory.stat cannot show it: the objcg stock keeps the vmstat
# deltas of small uncharges per CPU. On a kernel without slots the drop
# shows what else the shrinkers free from those caches (nothing, normally).
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
n=${H_count:-1000}
parent=$(make_child_cgroup manycg) || exit 1
echo "+memory" >"$parent/cgroup.subtree_control" || exit 1
i=0
while [ "$i" -lt "$n" ]; do
	mkdir "$parent/c$i" || exit 1
	(echo 0 >"$parent/c$i/cgroup.procs" &&
		exec /tests/mq-bench --count 20 >/dev/null) || exit 1
	i=$((i + 1))
done
# name, in-use objects, object size of the caches messages come from
msg_caches() {
	awk '$1 ~ /^(msg_msg|kmalloc-cg)-/ { print $1, $2, $4 }' /proc/slabinfo
}
msg_caches >/tmp/before
echo 2 >/proc/sys/vm/drop_caches
msg_caches >/tmp/after
awk -v n="$n" -v cpus="$(nproc)" '
	FNR == NR { objs[$1] = $2; size[$1] = $3; next }
	{ d = objs[$1] - $2; if (d > 0) { printf "manycg cache=%s given_back_objects=%d bytes=%d\n", $1, d, d * size[$1]; total += d * size[$1] } }
	END { printf "manycg cgroups=%d cpus=%d given_back_bytes=%d\n", n, cpus, total }
' /tmp/before /tmp/after

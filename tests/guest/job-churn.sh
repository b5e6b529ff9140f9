#!/bin/sh
# Guest job: cgroup churn. harness.count (default 30) times: make a child
# memcg, have a task on each of CPU 0 and CPU 1 inside it make accounted
# slab objects (dentries and inodes of new files) and free some of them,
# delete the cgroup while the rest is still charged to it (so it is
# reparented). Then, on a kmemleak kernel, scan for leaks and print them.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
make_child_cgroup churn >/dev/null || exit 1
echo "+memory" >/sys/fs/cgroup/churn/cgroup.subtree_control || exit 1
n=${H_churn:-30}
mkdir -p /scratch/churn || exit 1
work() { # CPU DIR CGROUP
	taskset -p "$((1 << $1))" $$ >/dev/null 2>&1
	echo 0 >"$3/cgroup.procs" || return 1
	i=0
	while [ $i -lt 100 ]; do
		: >"$2/f$1-$i"
		i=$((i + 1))
	done
	rm -f "$2"/f"$1"-1*
}
i=0
while [ $i -lt "$n" ]; do
	cg=/sys/fs/cgroup/churn/c$i
	d=/scratch/churn/d$i
	mkdir "$cg" "$d" || exit 1
	(work 0 "$d" "$cg") &
	(work 1 "$d" "$cg") &
	wait
	rmdir "$cg" || { echo "HARNESS: cannot remove $cg"; exit 1; }
	rm -rf "$d"
	i=$((i + 1))
done
echo "churn: $n cgroups created, used from CPU 0 and 1, deleted"
if [ -e /sys/kernel/debug/kmemleak ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null; then
	if [ -e /sys/kernel/debug/kmemleak ]; then
		# Objects freshly freed can look leaked for one scan: scan twice.
		echo scan >/sys/kernel/debug/kmemleak
		sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak
	fi
fi
exit 0

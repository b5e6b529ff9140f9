#!/bin/sh
# Guest job, an experiment: what a parent memcg keeps charged once all its
# children are gone. 40 children are made from both CPUs in turn (their
# percpu memory is charged to the parent's own objcg), then removed; the
# stocks are drained until no child is left dying. One line a round:
#   REMAINDER round R: memory.current B dying D percpu P
# Run: scripts/boot-guest.sh base|patched test MODE remainder
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
ncpu=$(grep -c '^processor' /proc/cpuinfo)
stat() { # FILE KEY
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}
r=0
while [ $r -lt 12 ]; do
	p=$(make_child_cgroup "remainder$r") || exit 1
	echo +memory >"$p/cgroup.subtree_control" || exit 1
	i=0
	while [ $i -lt 40 ]; do
		taskset -c $((i % ncpu)) mkdir "$p/c$i" || exit 1
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 40 ]; do
		taskset -c $(((i / 3) % ncpu)) rmdir "$p/c$i" || exit 1
		i=$((i + 1))
	done
	# memory.high 0 drains the per-cpu stocks of the parent's subtree.
	k=0
	while [ $k -lt 20 ]; do
		echo 0 >"$p/memory.high"
		echo max >"$p/memory.high"
		sleep 1
		k=$((k + 1))
		[ "$(stat "$p/cgroup.stat" nr_dying_descendants)" = 0 ] && [ $k -ge 3 ] && break
	done
	echo "REMAINDER round $r: memory.current $(cat "$p/memory.current")" \
		"dying $(stat "$p/cgroup.stat" nr_dying_descendants)" \
		"percpu $(stat "$p/memory.stat" percpu)"
	rmdir "$p" || exit 1
	r=$((r + 1))
done

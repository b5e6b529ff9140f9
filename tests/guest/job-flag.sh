#!/bin/sh
# Guest job: what this kernel charges to a memory cgroup, for a kernel
# booted with scripts/try-kernel.sh. A child memcg creates harness.count
# (default 2000) empty files on tmpfs (a dentry and a shmem inode each:
# slab objects of SLAB_ACCOUNT caches) and then starts 20 sleeping tasks
# (their kernel stacks: kernel memory in whole pages); the growth of
# memory.stat's slab and kernel_stack entries says whether each is
# charged. cgroup.memory=noslab: slab not charged, stacks charged;
# cgroup.memory=nokmem: neither; no option: both.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
n=${H_count:-2000}
echo "flag: kernel $(uname -r)"
echo "flag: command line: $(cat /proc/cmdline)"
dmesg | grep -E 'memcg|cgroup\.(memory|nomemobj)' | grep -vE 'Linux version|[Cc]ommand line' |
	sed 's/^/flag: boot log: /'
cg=$(make_child_cgroup flag) || { echo "HARNESS: no memory cgroup (CONFIG_MEMCG, cgroup v2)"; exit 1; }

# stat KEY: KEY's memory.stat entry of the child, after the periodic
# flush (every 2 s) has run.
stat() {
	sleep 3
	sed -n "s/^$1 //p" "$cg/memory.stat"
}

mkdir -p /tmp/flag
slab0=$(stat slab)
make_files_in "$cg" /tmp/flag "$n" || { echo "HARNESS: creating $n files in the child memcg failed"; exit 1; }
slab1=$(stat slab)
stack0=$(stat kernel_stack)
(
	echo 0 >"$cg/cgroup.procs" || exit 1
	i=0
	while [ "$i" -lt 20 ]; do
		sleep 60 &
		i=$((i + 1))
	done
) || { echo "HARNESS: starting tasks in the child memcg failed"; exit 1; }
stack1=$(stat kernel_stack)
xargs kill <"$cg/cgroup.procs" 2>/dev/null
rm -rf /tmp/flag

# verdict WHAT BEFORE AFTER AT_LEAST: "charged" when the entry grew by at
# least AT_LEAST bytes, else "not charged".
verdict() {
	d=$(($3 - $2))
	if [ "$d" -ge "$4" ]; then v=charged; else v="not charged"; fi
	echo "flag: $1: $v (memory.stat grew by $d bytes)"
}
# A dentry is 192 bytes: half of n dentries is far above noise and far
# below what n dentries and inodes take. A kernel stack is at least 8 KiB.
verdict "slab objects ($n files: dentries, inodes)" "$slab0" "$slab1" $((n * 96))
verdict "kernel stacks (20 tasks)" "$stack0" "$stack1" $((20 * 4096))

#!/bin/sh
# Guest job: how much slab memory a workload with many accounted objects
# uses: /proc/meminfo Slab before and after a task in a child memcg creates
# harness.count empty files (a dentry and an inode each). The obj_cgroup
# vectors of accounted slab pages are part of the difference.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
cg=$(make_child_cgroup slabmem) || exit 1
n=${H_count:-50000}
mkdir -p /scratch/slabmem || exit 1
slab_kb() { sed -n 's/^Slab: *\([0-9]*\) kB/\1/p' /proc/meminfo; }
sync
echo 3 >/proc/sys/vm/drop_caches
before=$(slab_kb)
make_files_in "$cg" /scratch/slabmem "$n" || { echo "HARNESS: creating $n files failed"; exit 1; }
after=$(slab_kb)
made=$(find /scratch/slabmem -type f | wc -l)
[ "$made" -eq "$n" ] || { echo "HARNESS: $made files made, not $n"; exit 1; }
echo "slabmem files=$made slab_before_kb=$before slab_after_kb=$after delta_kb=$((after - before)) memcg_slab=$(sed -n 's/^slab //p' "$cg/memory.stat")"

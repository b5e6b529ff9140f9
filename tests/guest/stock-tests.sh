#!/bin/sh
# Guest TAP tests of the per-cpu objcg stock (memcg slab accounting), run
# like a selftest (/tests/selftests/harness/stock) on the base and the
# patched kernel, whose results the host compares. The tests are the
# table stock_tests (below): one line each, in the order they run, NAME
# (its function test_NAME says what it checks) and whether the debug group
# runs it.
# harness.stock=NAME,NAME runs only those tests (default: all).
# --list [debug|full]: print the names of the tests (of that tier of the
# debug group), one a line, and run none: the host's scripts ask this
# (tests/checks/debug.sh), no guest needed.
# The workloads come from slab-fill (tests/slab-fill.c), whose children
# leave no object behind, so what stays charged can be bounded exactly.
#
# The remainder: a child's percpu memory is charged to its parent's own
# objcg (6.1: mem_cgroup_css_alloc() under set_active_memcg(parent)), from
# the CPU that makes the child and back to the CPU that frees it.  Each
# CPU's objcg stock gives a drained sub-page remainder to the objcg's
# nr_charged_bytes, and so does each refill that fails to lock the stock
# (7.2.13: a task preempted in it on PREEMPT_RT, an irq that interrupts it
# elsewhere).  Kernels without the fix "uncharge the whole pages that
# collect in objcg->nr_charged_bytes" (patches/7.2/fixes) keep those
# bytes until the objcg is released or cached by a stock again: after
# every child is gone, a parent may hold up to ncpu - 1 whole pages there
# an objcg (one objcg a node since 7.2), and more where trylocks fail.
# With the fix nr_charged_bytes stays under a page, so a parent keeps at
# most one page less than it has objcgs (charged_bytes asks that of every
# kernel). The other tests allow the base's bound on every kernel: with
# the kept-objects series a parent also keeps what the sheaves keep
# charged to its removed children until they are flushed. This script
# runs on CPU 0, so a parent whose children are made on CPU 0 and freed
# while CPU 1 is offline (stock_hotplug) keeps none.
# shellcheck shell=sh
CG=/sys/fs/cgroup
scratch=$CG/stk-scratch
PAGE=4096
# What one objcg may keep pre-charged in a CPU's objcg stock: two pages
# with the series (OBJ_STOCK_MAX_BYTES), one on kernels without it.
# harness.slot_pages=1 says the kernel is one without it (run-tests.sh
# passes it when it boots a base kernel).
SLOT=$((${H_slot_pages:-2} * PAGE))
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# The test_kmem tolerance: 64 pages of stock slack per CPU.
tolerance=$((64 * PAGE * ncpu))
nodes=0
for _n in /sys/devices/system/node/node[0-9]*; do
	[ ! -d "$_n" ] || nodes=$((nodes + 1))
done
[ "$nodes" -ge 1 ] || nodes=1
# What a parent may keep once its children are gone (above): remainder
# on any kernel; strict with the fix, once the sheaves are flushed
# (charged_bytes).
remainder=$(((nodes * ncpu - 1) * PAGE))
strict=$(((nodes - 1) * PAGE))
# The baseline of a parent whose children are gone, once the sheaves are
# flushed and the stocks drained (cgroups_1000): strict on 7.x, whose
# drains are meant to leave an objcg under a page (the fix above; the
# 7.2 base fails it in some runs, charged_bytes is the fix's test); the
# remainder on the 6.x backports, where each drain adds its sub-page part
# to nr_charged_bytes (objcg-stock.md).
case $(uname -r) in
[0-6].*) baseline=$remainder ;;
*) baseline=$strict ;;
esac
n=0
fails=0
# What a kernel report starts with (kasan_kept): a WARN, a BUG (KASAN's
# included), a lockdep report, a kmemleak leak or kmemleak turning itself
# off (an object allocated twice), a panic, or the slab core's report of
# objects left in a destroyed cache.
splat_re='WARNING:|BUG:|KASAN:|INFO: possible|inconsistent lock state|circular locking|unreferenced object|leak detector disabled|Kernel panic|Oops|Objects remaining|still has objects'

result() { # STATUS NAME [REASON]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n $2" ;;
	skip) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2${3:+ # $3}"; fails=$((fails + 1)) ;;
	esac
}

# slab_charged: slab objects are charged in this mode ($mode; column slab
# of the modes table: root and default). A base kernel ignores another
# mode's flag and charges them there too, but a test skipped there is
# skipped on both kernels, so the comparison stays like for like.
slab_charged() {
	mode_charges "$mode" slab
}

# charged_skipped NAME: skip test NAME (and return 0) where slab objects
# are not charged in this mode.
charged_skipped() {
	slab_charged && return 1
	result skip "$1" "slab objects are not charged in this mode"
}

# kept_skipped NAME: skip test NAME (and return 0) where no freed object
# can be kept charged: slab objects are not charged in this mode, or the
# kernel runs generic KASAN ($kasan_generic, read from the boot log once),
# whose quarantine takes every freed object, so that the kept-objects
# series keeps none there.
kept_skipped() {
	if charged_skipped "$1"; then
		return 0
	elif [ -n "$kasan_generic" ]; then
		result skip "$1" "generic KASAN: no freed object is kept charged"
	else
		return 1
	fi
}

# flush_sheaves: every cache's per-CPU sheaves and barns are flushed
# (kmem_cache_shrink()), which gives back the charges of the freed
# objects they keep (the kept-objects series); nothing on other kernels.
flush_sheaves() {
	for _f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$_f" 2>/dev/null || :
	done
}

# kmem_bench_loaded: /proc/kmem_bench is there, loading kmem_bench.ko for
# this kernel if it is not yet.
kmem_bench_loaded() {
	[ -e /proc/kmem_bench ] || insmod /lib/modules/kmem_bench.ko 2>/dev/null
}

# bench_skipped NAME: skip test NAME (and return 0) where kmem_bench.ko
# cannot be loaded for this kernel.
bench_skipped() {
	kmem_bench_loaded && return 1
	result skip "$1" "no kmem_bench.ko for this kernel"
}

stat_of() { # CGROUP KEY
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}

dying() { # CGROUP: how many of its removed descendants are not yet released
	awk '$1 == "nr_dying_descendants" { print $2 }' "$1/cgroup.stat"
}

# left CGROUP MAX: what a failed drained() left, for a TAP reason.
left() {
	echo "$(cat "$1/memory.current") bytes stay charged (at most $2 may)," \
		"$(dying "$1") removed cgroups not released"
}

# drained CGROUP MAX: after drains of the per-cpu stocks of CGROUP and its
# descendants (memory.high set to 0 drains them, without an OOM kill), no
# dying descendant is left and memory.current is MAX bytes or less, within
# 20 s. The drain is asked for again every second: a drain skips all CPUs
# while another one runs (the trylock in drain_all_stock()), and dying
# children are released asynchronously.
#
# A CPU's page stock can still cache a dying child with no pages left in
# it: drain_all_stock() skips it, and memory.high drains nothing once
# memory.current is at or under it. A page charged from the scratch cgroup
# on that CPU replaces the cached memcg and lets the child go.
#
# The LRU folio batches of every CPU are drained too (slab-fill
# lru-drain): a folio freed while another CPU's batch holds it stays
# charged until that batch is drained, and the reclaim of memory.high
# drains only the local CPU's (seen on PREEMPT_RT: two such pages, every
# memory.stat entry 0).
#
# A CGROUP already within MAX with no dying descendant is not drained.
drained() {
	i=0
	while [ "$(cat "$1/memory.current")" -gt "$2" ] || [ "$(dying "$1")" != 0 ]; do
		[ $i -lt 200 ] || return 1
		if [ $((i % 10)) -eq 0 ]; then
			drain_once "$1"
			[ "$(dying "$1")" = 0 ] || recache_page_stocks
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# released CGROUP N: within 20 s, no more than N of CGROUP's removed
# descendants are left unreleased (1 if more stay).
released() {
	_i=0
	while [ "$(dying "$1")" -gt "$2" ]; do
		[ $_i -lt 200 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# drained_verdict NAME CGROUP MAX WHO: NAME passes if drained CGROUP MAX
# does, saying what WHO (CGROUP) keeps; else what is left is reported and
# NAME fails.
drained_verdict() {
	if drained "$2" "$3"; then
		echo "# $4 keeps $(cat "$2/memory.current") bytes (at most $3 may)"
		result ok "$1"
	else
		charge_report "$2"
		result fail "$1" "$4: $(left "$2" "$3")"
	fi
}

# drain_once CGROUP: one drain of every CPU's LRU batches and of the
# stocks of CGROUP and its descendants (with the kept-objects series, the
# write of memory.high flushes the sheaves too).
drain_once() {
	slab-fill lru-drain >/dev/null
	echo 0 >"$1/memory.high"
	echo max >"$1/memory.high"
}

# recache_page_stocks: on every online CPU, charge a few pages to the
# scratch cgroup, which then is what that CPU's page stock caches.
recache_page_stocks() {
	for cpu in $(seq 0 $((ncpu - 1))); do
		# shellcheck disable=SC2016 # $1 is the inner shell's
		taskset -c "$cpu" sh -c 'echo 0 >"$1/cgroup.procs" &&
			dd if=/dev/zero of=/dev/null bs=64k count=1 2>/dev/null' _ "$scratch" 2>/dev/null || :
	done
}

# charge_report CGROUP: what is still charged to CGROUP, as TAP comments,
# for a test that failed on it. (memory.stat can lag memory.current by up
# to 2 s, its periodic flush, on a guest of many CPUs: a read flushes only
# past a number of updates per CPU.)
charge_report() {
	echo "# $1: memory.current $(cat "$1/memory.current")"
	echo "# $1: memory.stat$(awk '$1 ~ /^(anon|file|kernel|kernel_stack|pagetables|percpu|sock|slab|shmem)$/ {
		printf " %s %s", $1, $2 }' "$1/memory.stat")"
	echo "# $1: cgroup.stat$(awk '{ printf " %s %s", $1, $2 }' "$1/cgroup.stat")"
	# What its objcgs keep in nr_charged_bytes (kmem_bench "charged"),
	# where the kernel can say.
	if kmem_bench_loaded && echo "charged ${1#"$CG"}" >/proc/kmem_bench 2>/dev/null; then
		echo "# $1: objcgs' nr_charged_bytes:$(sed -n 's/^kmem_bench charged [^ ]*//p' /proc/kmem_bench)"
	fi
}

# others_offline, others_online: every CPU but 0 goes offline (comes back),
# so that all that a test charges and uncharges happens on CPU 0, however
# many CPUs the guest has.
others_offline() {
	for _c in $(seq 1 $((ncpu - 1))); do
		echo 0 >"/sys/devices/system/cpu/cpu$_c/online" || return 1
	done
}

others_online() {
	for _c in $(seq 1 $((ncpu - 1))); do
		echo 1 >"/sys/devices/system/cpu/cpu$_c/online"
	done
}

parent() { # NAME: a cgroup whose children get the memory controller
	mkdir -p "$CG/$1" && echo +memory >"$CG/$1/cgroup.subtree_control" && echo "$CG/$1"
}

# slab_limit: memory.max stops an accounted slab allocation loop (ENOMEM
# or OOM kill) and memory.peak stays near it
test_slab_limit() {
	charged_skipped slab_limit && return
	p=$(parent stk-limit) || { result fail slab_limit "no cgroup"; return; }
	mkdir "$p/l" || { result fail slab_limit "no cgroup"; return; }
	max=$((8 << 20))
	echo $max >"$p/l/memory.max"
	[ -e "$p/l/memory.swap.max" ] && echo 0 >"$p/l/memory.swap.max"
	out=$(slab-fill fill "$p/l")
	rc=$?
	echo "# $out"
	events=$(awk '$1 == "max" { print $2 }' "$p/l/memory.events")
	peak=$(cat "$p/l/memory.peak" 2>/dev/null || echo 0)
	echo "# memory.max $max, memory.peak $peak, max events $events"
	if [ $rc -ne 0 ]; then
		result fail slab_limit "the limit did not stop the allocations"
	elif [ "${events:-0}" -eq 0 ]; then
		result fail slab_limit "no max event"
	elif [ "$peak" -gt $((max + (1 << 20))) ]; then
		result fail slab_limit "memory.peak $peak is more than 1 MiB over memory.max"
	else
		result ok slab_limit
	fi
	rmdir "$p/l" "$p"
}

# stock_hotplug: charges cached in the objcg stock of a CPU that goes
# offline do not stay behind once their cgroup is gone (on 6.1 the dead
# CPU keeps the objcg and its bytes)
test_stock_hotplug() {
	cpu1=/sys/devices/system/cpu/cpu1/online
	if [ ! -w "$cpu1" ]; then
		result skip stock_hotplug "CPU 1 cannot go offline"
		return
	fi
	p=$(parent stk-hp) || { result fail stock_hotplug "no cgroup"; return; }
	mkdir "$p/x" || { result fail stock_hotplug "no cgroup"; return; }
	# Charge and uncharge slab objects on CPU 1 only: its objcg stock is
	# left caching the objcg of x with pre-charged bytes.
	slab-fill churn "$p/x" "$p/x" 1 2000 >/dev/null ||
		{ result fail stock_hotplug "slab-fill failed"; return; }
	echo 0 >"$cpu1"
	rmdir "$p/x"
	if drained "$p" 0; then
		result ok stock_hotplug
	else
		charge_report "$p"
		result fail stock_hotplug "parent: $(left "$p" 0)"
	fi
	echo 1 >"$cpu1"
	rmdir "$p"
}

# stock_slots: with CPUs 1 and up offline, six cgroups churned on CPU 0
# (more objcgs than the stock has slots) and removed leave nothing charged
# once the stocks are drained
test_stock_slots() {
	cpu1=/sys/devices/system/cpu/cpu1/online
	if [ ! -w "$cpu1" ]; then
		result skip stock_slots "CPU 1 cannot go offline"
		return
	fi
	# With CPU 1 offline, all that the parent's objcg is charged and
	# uncharged happens on CPU 0, so no remainder is left (see above).
	others_offline
	p=$(parent stk-slots) || { result fail stock_slots "no cgroup"; others_online; return; }
	# Six cgroups churned one after another on CPU 0: its objcg stock
	# caches more objcgs than it has slots and evicts the oldest; the
	# ones it keeps are reparented to the parent once removed.
	i=0 bad=''
	while [ $i -lt 6 ]; do
		mkdir "$p/c$i" && slab-fill churn "$p/c$i" "$p/c$i" 0 200 >/dev/null ||
			bad="cgroup c$i: no cgroup or slab-fill failed"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 6 ]; do
		rmdir "$p/c$i" || bad="cannot remove c$i"
		i=$((i + 1))
	done
	if [ -n "$bad" ]; then
		result fail stock_slots "$bad"
	elif drained "$p" 0; then
		result ok stock_slots
	else
		charge_report "$p"
		result fail stock_slots "parent: $(left "$p" 0)"
	fi
	others_online
	rmdir "$p"
}

# stock_dead: with CPUs 1 and up offline, two cgroups churned on CPU 0 and
# then removed, with the page stock caching another cgroup, leave no objcg
# of theirs in the objcg stock past an offline drain: without a drain of
# the parent, its memory.stat "kernel" holds at most two pages (its own
# objcg's: a stock slot keeps up to two with the series' stock patch, a
# page without; a leaked child adds one). It guards the multi-slot stock:
# on 6.1's one slot the scratch churn evicts the children's objcgs anyway
test_stock_dead() {
	cpu1=/sys/devices/system/cpu/cpu1/online
	charged_skipped stock_dead && return
	if [ ! -w "$cpu1" ]; then
		result skip stock_dead "CPU 1 cannot go offline"
		return
	fi
	if ! others_offline || [ "$(cat "$cpu1")" != 0 ]; then
		result skip stock_dead "CPU 1 did not go offline"
		others_online
		return
	fi
	p=$(parent stk-dead) || { result fail stock_dead "no cgroup"; others_online; return; }
	# CPU 0's objcg stock then caches four objcgs: the parent's own (the
	# children's percpu memory), c0's, c1's and the scratch cgroup's.
	# After its last free, each of the children's holds a page of
	# pre-charged bytes. The scratch churn comes last, so that the page
	# stock caches the scratch cgroup when the children go offline: its
	# drain then finds nothing of theirs but the objcgs. Pipes, not
	# messages: an unpatched 7.2 built without kmalloc buckets charges no
	# message (the series' first patch), and would pass for that reason.
	# The pipes' inodes and dentries are freed after an RCU grace period:
	# wait for it before the children go offline.
	bad=''
	mkdir "$p/c0" "$p/c1" || bad="no cgroup"
	for c in "$p/c0" "$p/c1" "$scratch"; do
		slab-fill pipes "$c" 0 200 >/dev/null || bad="slab-fill in $c failed"
	done
	sleep 1
	rmdir "$p/c0" "$p/c1" || bad="cannot remove the children"
	released "$p" 0 || :
	# The children's freed objects that the sheaves keep charged (the
	# kept-objects series) are charged to the parent once the children
	# are gone, until the sheaves are flushed: flush them (on the 7.2
	# stack the parent's "kernel" entry is 16 KiB before, 8 KiB after).
	# Their uncharges come after the offline drains: late frees, which
	# cache the children's dead objcgs in CPU 0's stock again, for the
	# next offline drain to take (fixes/0001). Seen on two NUMA nodes
	# after other tests (tests/experiments/stock-slots-diag-7.2.diff).
	# That next offline drain is a cgroup's made for it, elsewhere: it
	# drains every stock that caches a killed objcg, a kernel without
	# the fix only its own. (So the children's own offline drains,
	# best effort, are no longer what the test sees alone.)
	flush_sheaves
	d0=$(dying "$CG")
	if ! mkdir "$CG/stk-kick"; then
		bad="cannot make $CG/stk-kick"
	elif ! rmdir "$CG/stk-kick"; then
		bad="cannot remove $CG/stk-kick"
	else
		released "$CG" "$d0" || :
	fi
	# memory.stat is exact once the periodic rstat flush (every 2 s) ran.
	sleep 3
	kernel=$(stat_of "$p" kernel)
	echo "# parent: kernel $kernel bytes, $(dying "$p") removed cgroups not released"
	case "$kernel" in
	'' | *[!0-9]*) bad="no \"kernel\" entry in $p/memory.stat" ;;
	esac
	if [ -n "$bad" ]; then
		result fail stock_dead "$bad"
	elif [ "$(dying "$p")" != 0 ] || [ "$kernel" -gt $SLOT ]; then
		charge_report "$p"
		result fail stock_dead "parent: kernel $kernel bytes (at most $SLOT may stay, its own objcg's): a removed child's objcg is still in a stock"
	else
		result ok stock_dead
	fi
	drained "$p" 0 || :
	others_online
	rmdir "$p"
}

# stock_large: 512 live objects larger than a page (POSIX messages of 4048
# bytes, a kmalloc(4096) each), charged on one CPU, cost memory.current at
# most their slab charge, the CPU's page stock and 16 pages (the 6.1
# series without its fix stocked the rest of every such charge past the
# stock's bound: two pages an object); skipped where the messages are not
# charged (7.2 without kmalloc buckets)
test_stock_large() {
	charged_skipped stock_large && return
	p=$(parent stk-large) || { result fail stock_large "no cgroup"; return; }
	mkdir "$p/l" || { result fail stock_large "no cgroup"; return; }
	count=512
	# A message of 4048 bytes (DATALEN_MSG) is a kmalloc(4096); the
	# slab entry of memory.stat counts what each one is charged (4104
	# bytes with the objcg pointer, more with KASAN's redzone).
	out=$(slab-fill hold "$p/l" 0 $count 4048)
	rc=$?
	echo "# $(echo "$out" | tr '\n' ' ')"
	read -r cur slab <<EOF
$(echo "$out" | sed -n 's/^current=\([0-9]*\) slab=\([0-9]*\)$/\1 \2/p')
EOF
	# Beyond the objects: MEMCG_CHARGE_BATCH pages of page stock, two
	# of objcg stock, and 16 for what the sending child allocates.
	max=$((${slab:-0} + (64 + 2 + 16) * PAGE))
	if [ $rc -ne 0 ] || [ -z "$cur" ] || [ -z "$slab" ]; then
		result fail stock_large "slab-fill hold failed"
	elif [ "$slab" -lt $((count * 4096)) ]; then
		result skip stock_large "$count messages of 4048 bytes are $slab bytes of slab: not charged on this kernel"
	elif [ "$cur" -gt $max ]; then
		charge_report "$p/l"
		result fail stock_large "$count live objects: memory.current $cur, more than their slab $slab + 82 pages ($max)"
	else
		echo "# memory.current $cur, slab $slab: $((cur - slab)) bytes more (at most $((max - slab)))"
		result ok stock_large
	fi
	rmdir "$p/l" "$p"
}

# bulk_error: a kmem_cache_alloc_bulk() that fails (fault injection fails
# its first slab page) leaves nothing charged once the cgroup is gone (6.1
# kept the charge of the objects never allocated); needs kmem_bench.ko and
# CONFIG_FAIL_PAGE_ALLOC (the debug kernel), else skipped
test_bulk_error() {
	fi=/sys/kernel/debug/fail_page_alloc
	charged_skipped bulk_error && return
	[ -d $fi ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if [ ! -d $fi ]; then
		result skip bulk_error "no CONFIG_FAIL_PAGE_ALLOC"
		return
	fi
	bench_skipped bulk_error && return
	p=$(parent stk-bulk) || { result fail bulk_error "no cgroup"; return; }
	mkdir "$p/b" || { result fail bulk_error "no cgroup"; return; }
	# Every page allocation of a task with make-it-fail set fails, none
	# of any other task.
	echo Y >$fi/task-filter
	echo 0 >$fi/min-order
	echo N >$fi/ignore-gfp-wait
	echo N >$fi/ignore-gfp-highmem
	echo 0 >$fi/verbose
	echo 100 >$fi/probability
	echo -1 >$fi/times
	# shellcheck disable=SC2016 # $1 is the inner shell's
	taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" &&
		echo "bulkfail 4096" >/proc/kmem_bench' _ "$p/b"
	rc=$?
	echo 0 >$fi/probability
	echo "# $(sed -n 's/^kmem_bench //p' /proc/kmem_bench)"
	rmdir "$p/b"
	if [ $rc -ne 0 ]; then
		result fail bulk_error "writing bulkfail to /proc/kmem_bench failed"
	elif ! grep -q 'allocated=0$' /proc/kmem_bench; then
		result fail bulk_error "the bulk allocation did not fail"
	elif drained "$p" $remainder; then
		result ok bulk_error
	else
		charge_report "$p"
		result fail bulk_error "parent: $(left "$p" $remainder)"
	fi
	rmdir "$p"
}

# destroy_kept: a SLAB_ACCOUNT cache whose objects a task of a cgroup
# allocated and freed on CPU 0 (the last ones kept charged) is destroyed:
# kmem_cache_destroy() reports no object left in it, and once the cgroup
# is gone its parent keeps nothing but its remainder. With SLUB_STATS, the
# cache's free_charged counter says that objects were kept (a kernel that
# keeps objects and kept none fails: the test would prove nothing). Needs
# kmem_bench.ko, else skipped
test_destroy_kept() {
	kept_skipped destroy_kept && return
	bench_skipped destroy_kept && return
	p=$(parent stk-destroy) || { result fail destroy_kept "no cgroup"; return; }
	mkdir "$p/d" || { result fail destroy_kept "no cgroup"; return; }
	bad=''
	# shellcheck disable=SC2016 # $1 is the inner shell's
	taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" &&
		echo "keep 256" >/proc/kmem_bench' _ "$p/d" ||
		bad="writing keep to /proc/kmem_bench failed"
	# The first field of a SLUB_STATS file is the sum over the CPUs.
	kept=$(cut -d' ' -f1 /sys/kernel/slab/kmem_bench_keep/free_charged 2>/dev/null)
	echo "# $(sed -n 's/^kmem_bench //p' /proc/kmem_bench); frees kept charged: ${kept:-no counter}"
	[ -n "$bad" ] || echo destroy >/proc/kmem_bench || bad="writing destroy to /proc/kmem_bench failed"
	rmdir "$p/d" || bad="$bad cannot remove d;"
	report=$(dmesg | grep -E 'kmem_bench_keep|Objects remaining' | head -n 3 | tr '\n' ' ')
	if [ -n "$bad" ]; then
		result fail destroy_kept "$bad"
	elif [ -n "$report" ]; then
		result fail destroy_kept "kmem_cache_destroy() found objects left: $report"
	elif [ "${kept:-none}" = 0 ]; then
		result fail destroy_kept "no object was kept charged: the test proves nothing here"
	elif drained "$p" $remainder; then
		result ok destroy_kept
	else
		charge_report "$p"
		result fail destroy_kept "parent: $(left "$p" $remainder)"
	fi
	rmdir "$p"
}

# parent_verdict NAME: NAME's result from $bad once its cgroups are
# removed, after a last check that their parent $p keeps nothing but its
# remainder (what it keeps beyond is reported and added to $bad); $p is
# removed.
parent_verdict() {
	drained "$p" $remainder || {
		charge_report "$p"
		bad="$bad parent: $(left "$p" $remainder);"
	}
	if [ -z "$bad" ]; then
		result ok "$1"
	else
		result fail "$1" "$bad"
	fi
	rmdir "$p"
}

# heads_kept COUNTER: skbuff_head_cache's SLUB_STATS COUNTER (free_charged:
# frees that kept an object charged; alloc_charged: allocations that took
# one), summed over the CPUs (the first field).
heads_kept() {
	cut -d' ' -f1 "/sys/kernel/slab/skbuff_head_cache/$1"
}

# heads_skipped NAME: skip test NAME (and return 0) where it cannot see
# skb heads kept: kept_skipped's reasons, or no SLUB_STATS counter.
heads_skipped() {
	if kept_skipped "$1"; then
		return 0
	elif [ ! -r /sys/kernel/slab/skbuff_head_cache/free_charged ]; then
		result skip "$1" "no SLUB_STATS counter free_charged"
	else
		return 1
	fi
}

# sock_kept: a task of a cgroup sends 1000 unix datagrams of 200 bytes on
# CPU 0, each received before the next: the skb heads it charges by
# GFP_KERNEL_ACCOUNT (skbuff_head_cache, a cache without SLAB_ACCOUNT) are
# kept charged (its SLUB_STATS free_charged counter grows; a kernel that
# keeps only SLAB_ACCOUNT caches' objects fails), and once the cgroup is
# gone its parent keeps nothing but its remainder. Skipped without that
# counter (the base kernel, a kernel without CONFIG_SLUB_STATS)
test_sock_kept() {
	heads_skipped sock_kept && return
	p=$(parent stk-sock) || { result fail sock_kept "no cgroup"; return; }
	mkdir "$p/u" || { result fail sock_kept "no cgroup"; return; }
	bad=''
	kept=$(heads_kept free_charged) took=$(heads_kept alloc_charged)
	slab-fill unix "$p/u" 0 1000 200 >/dev/null || bad="slab-fill unix failed;"
	kept=$(($(heads_kept free_charged) - kept))
	took=$(($(heads_kept alloc_charged) - took))
	echo "# skbuff_head_cache: frees kept charged: $kept, allocations that took one: $took"
	[ "$kept" -gt 0 ] || bad="$bad skbuff_head_cache kept no object charged;"
	rmdir "$p/u" || bad="$bad cannot remove u;"
	parent_verdict sock_kept
}

# kept_limit: the charges that a cgroup's freed messages keep in the
# sheaves (a hundred of 4000 bytes, kmalloc-cg-4k, freed at once when
# slab-fill removes their queue) are given back when memory.max is set
# below them: memory.max holds, with no OOM event. A kernel that keeps
# charged objects and cannot give them back before the OOM killer fails,
# as does one that kept less than 64 KiB here (the test would prove
# nothing). Skipped on a kernel that keeps no charged objects (no
# free_charged counter of SLUB_STATS and less than 64 KiB kept)
test_kept_limit() {
	kept_skipped kept_limit && return
	p=$(parent stk-limit) || { result fail kept_limit "no cgroup"; return; }
	mkdir "$p/k" || { result fail kept_limit "no cgroup"; return; }
	bad=''
	slab-fill hold "$p/k" 0 100 4000 >/dev/null || bad="slab-fill hold failed;"
	kept=$(cat "$p/k/memory.current")
	echo "# k after its messages were freed: memory.current $kept, slab $(stat_of "$p/k" slab)"
	if [ -z "$bad" ] && [ "$kept" -lt 65536 ]; then
		if [ -r /sys/kernel/slab/kmalloc-cg-4k/free_charged ]; then
			bad="only $kept bytes kept charged: the test proves nothing here;"
		else
			rmdir "$p/k" "$p"
			result skip kept_limit "this kernel keeps no charged objects"
			return
		fi
	fi
	if [ -z "$bad" ]; then
		max=$((kept / 2))
		echo "$max" >"$p/k/memory.max" || bad="writing memory.max failed;"
		cur=$(cat "$p/k/memory.current")
		oom=$(awk '$1 == "oom" { print $2 }' "$p/k/memory.events")
		echo "# k with memory.max $max: memory.current $cur, oom events $oom"
		[ "$oom" = 0 ] || bad="$bad $oom OOM events;"
		[ "$cur" -le "$max" ] || bad="$bad memory.current $cur over memory.max $max;"
	fi
	rmdir "$p/k" || bad="$bad cannot remove k;"
	parent_verdict kept_limit
}

# nolock_irq: kmalloc_nolock() and kfree_nolock() of 64-byte objects
# charged to cgroup t, from a timer in hard irq on CPU 0 (on PREEMPT_RT
# from softirq, then from hard irq, where every allocation must fail),
# while a task of t's child l allocates and frees objects of the same
# kmalloc cache on CPU 0 (kmem_bench "nolock"): the timer interrupts the
# task in the cache and takes objects the task freed (kept charged to l by
# the kept-objects series). Once both cgroups are gone, their parent keeps
# nothing but its remainder: no charge lost or taken twice (on the debug
# kernel, the console check catches lockdep and WARN reports). Skipped
# without kmem_bench.ko or kmalloc_nolock() (kernels before 6.18)
test_nolock_irq() {
	charged_skipped nolock_irq && return
	bench_skipped nolock_irq && return
	p=$(parent stk-nolock) || { result fail nolock_irq "no cgroup"; return; }
	if ! mkdir "$p/t" || ! echo +memory >"$p/t/cgroup.subtree_control" ||
		! mkdir "$p/t/l"; then
		result fail nolock_irq "no cgroup"
		return
	fi
	# PREEMPT_RT: the kernel's version string says so (uname -v).
	ctxs=hard
	case " $(uname -v) " in *' PREEMPT_RT '*) ctxs="soft hard" ;; esac
	bad='' skip=''
	for ctx in $ctxs; do
		# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
		err=$(taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" &&
			echo "nolock 50000 $2" >/proc/kmem_bench' _ "$p/t/l" "$ctx" 2>&1) || {
			case $err in
			*'not supported'*) skip="no kmalloc_nolock() in this kernel" ;;
			*) bad="$bad nolock $ctx: $err;" ;;
			esac
			break
		}
		line=$(sed -n 's/^kmem_bench //p' /proc/kmem_bench)
		echo "# $line"
		fired=$(echo "$line" | sed -n 's/.* fired=\([0-9]*\).*/\1/p')
		got=$(echo "$line" | sed -n 's/.* allocated=\([0-9]*\).*/\1/p')
		if [ "${fired:-0}" = 0 ]; then
			bad="$bad the $ctx timer never fired;"
		elif [ "$ctx" = hard ] && [ "$ctxs" != hard ]; then
			[ "$got" = 0 ] || bad="$bad PREEMPT_RT: $got kmalloc_nolock() in hard irq succeeded;"
		elif [ "${got:-0}" = 0 ]; then
			bad="$bad no kmalloc_nolock() from $ctx irq succeeded;"
		fi
	done
	rmdir "$p/t/l" "$p/t" || bad="$bad cannot remove t;"
	if [ -n "$skip" ] && [ -z "$bad" ]; then
		rmdir "$p"
		result skip nolock_irq "$skip"
		return
	fi
	parent_verdict nolock_irq
}

# churn_stats: after cross-cgroup alloc/free churn from both CPUs, a
# cgroup's slab counter returns to within the stock tolerance and its
# parent is left with nothing charged but its own objcg's remainder
# (above)
test_churn_stats() {
	p=$(parent stk-churn) || { result fail churn_stats "no cgroup"; return; }
	mkdir "$p/a" "$p/b" || { result fail churn_stats "no cgroup"; return; }
	# Messages sent from a are received, freed, in b and the other way
	# round, on both CPUs at once.
	i=0
	while [ $i -lt 10 ]; do
		slab-fill churn "$p/a" "$p/b" 0 2000 >/dev/null &
		slab-fill churn "$p/b" "$p/a" $((ncpu - 1)) 2000 >/dev/null &
		wait
		i=$((i + 1))
	done
	bad=''
	for c in a b; do
		slab=$(stat_of "$p/$c" slab)
		echo "# $c: slab $slab bytes after the churn (tolerance $tolerance)"
		[ "${slab:-0}" -le $tolerance ] && [ "${slab:-0}" -ge $((-tolerance)) ] ||
			bad="$bad $c: slab $slab;"
	done
	rmdir "$p/a" "$p/b"
	parent_verdict churn_stats
}

# hotplug_load: a cgroup per CPU makes pipes and churns messages on its
# CPU (objects kept charged, objcg stocks) while the last CPU goes offline
# and back three times; once the cgroups are removed, the parent keeps
# nothing but its remainder (on the debug kernel, the console check
# catches lockdep, KASAN, kmemleak and WARN reports). The loads may fail
# while their CPU is offline: only the kernel is judged. Skipped with one
# CPU
test_hotplug_load() {
	last=$((ncpu - 1))
	online=/sys/devices/system/cpu/cpu$last/online
	if [ "$last" -lt 1 ] || [ ! -w "$online" ]; then
		result skip hotplug_load "no CPU that can go offline"
		return
	fi
	p=$(parent stk-hpload) || { result fail hotplug_load "no cgroup"; return; }
	pids=''
	for cpu in $(seq 0 $last); do
		mkdir "$p/c$cpu" || { result fail hotplug_load "no cgroup"; return; }
		# shellcheck disable=SC2016 # the inner shell's
		sh -c 'i=0; while [ $i -lt 4 ]; do
			slab-fill pipes "$1" "$2" 300 || :
			slab-fill churn "$1" "$1" "$2" 300 || :
			i=$((i + 1))
		done' _ "$p/c$cpu" "$cpu" >/dev/null 2>&1 &
		pids="$pids $!"
	done
	bad=''
	for round in 1 2 3; do
		sleep 1
		echo 0 >"$online" || bad="CPU $last did not go offline (round $round)"
		sleep 1
		echo 1 >"$online" || bad="CPU $last did not come back (round $round)"
	done
	# shellcheck disable=SC2086 # the list of pids
	wait $pids
	[ "$(cat "$online")" = 1 ] || echo 1 >"$online"
	for cpu in $(seq 0 $last); do
		rmdir "$p/c$cpu" || bad="$bad cannot remove c$cpu;"
	done
	if [ -n "$bad" ]; then
		result fail hotplug_load "$bad"
	else
		drained_verdict hotplug_load "$p" $remainder parent
	fi
	rmdir "$p"
}

# kasan_kept: on a kernel with tag-based KASAN, which has no quarantine
# (a freed object goes to the sheaf at once), a task of a cgroup on CPU 0
# allocates and frees an object of a SLAB_ACCOUNT cache, which its sheaf
# keeps charged (the cache's SLUB_STATS free_charged counter grows), then
# reads it and frees it again (kmem_bench "keep", then "misuse"): KASAN
# reports the use after free and the double free, one report each and no
# other between them, and the second free does not put the object in the
# sheaf again (no allocation after it gets the object twice). Then the
# cache is destroyed and the cgroup removed: no report (no object left in
# the cache, no WARN), and the parent keeps nothing but its remainder.
# KASAN's reports taint the kernel, which turns lockdep off: the host runs
# this test in a boot of its own (tests/checks/arm64.sh), with
# kasan_multi_shot (without it KASAN reports its first bug only).
# Skipped without tag-based KASAN ($kasan_tags, read from the boot log
# once), without kasan_multi_shot, without kmem_bench.ko or on a kernel
# that keeps no charged objects (no SLUB_STATS counter free_charged)
test_kasan_kept() {
	if [ -z "$kasan_tags" ]; then
		result skip kasan_kept "no tag-based KASAN (kasan_kept runs on an arm64 kernel of config set arm64-kasan)"
		return
	fi
	kept_skipped kasan_kept && return
	if ! grep -qw kasan_multi_shot /proc/cmdline; then
		result skip kasan_kept "no kasan_multi_shot on the command line: KASAN would report the first bug only"
		return
	fi
	bench_skipped kasan_kept && return
	set -- /sys/kernel/slab/*/free_charged
	if [ ! -r "$1" ]; then
		result skip kasan_kept "this kernel keeps no charged objects (no SLUB_STATS counter free_charged)"
		return
	fi
	p=$(parent stk-kasan) || { result fail kasan_kept "no cgroup"; return; }
	mkdir "$p/k" || { result fail kasan_kept "no cgroup"; return; }
	bad=''
	counter=/sys/kernel/slab/kmem_bench_keep/free_charged
	# shellcheck disable=SC2016 # $1 is the inner shell's
	taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" &&
		echo "keep 1" >/proc/kmem_bench' _ "$p/k" || bad="writing keep to /proc/kmem_bench failed;"
	kept=$(cut -d' ' -f1 $counter 2>/dev/null)
	echo "stock-tests: kasan_kept: misuse begins" >/dev/kmsg
	# shellcheck disable=SC2016 # $1 is the inner shell's
	[ -n "$bad" ] || taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" &&
		echo "misuse 256" >/proc/kmem_bench' _ "$p/k" || bad="writing misuse to /proc/kmem_bench failed;"
	echo "stock-tests: kasan_kept: misuse ends" >/dev/kmsg
	line=$(sed -n 's/^kmem_bench //p' /proc/kmem_bench)
	kept=$(($(cut -d' ' -f1 $counter 2>/dev/null || echo 0) - ${kept:-0}))
	echo "# $line; frees kept charged by misuse: $kept"
	[ -n "$bad" ] || [ "$kept" -gt 0 ] ||
		bad="no object was kept charged: the test proves nothing here;"
	case $line in
	*' twice=0') ;;
	*) bad="$bad an allocation after the double free got an object another one had ($line);" ;;
	esac
	win=$(dmesg | sed -n '/stock-tests: kasan_kept: misuse begins/,/stock-tests: kasan_kept: misuse ends/p')
	uaf=$(echo "$win" | grep -c 'BUG: KASAN: [a-z-]*use-after-free')
	dbl=$(echo "$win" | grep -cE 'BUG: KASAN: (double-free|invalid-free)')
	other=$(echo "$win" | grep -E "$splat_re" |
		grep -vE 'BUG: KASAN: ([a-z-]*use-after-free|double-free|invalid-free) ' | head -n 3 | tr '\n' ' ')
	# (Counts, not the report lines: the host's check of the console
	# allows those lines only between the markers.)
	echo "# KASAN reports between the markers: $uaf use-after-free, $dbl double-free"
	[ "$uaf" = 1 ] || bad="$bad $uaf KASAN use-after-free reports (1 expected);"
	[ "$dbl" = 1 ] || bad="$bad $dbl KASAN double-free reports (1 expected);"
	[ -z "$other" ] || bad="$bad another report: $other;"
	echo destroy >/proc/kmem_bench || bad="$bad writing destroy to /proc/kmem_bench failed;"
	rmdir "$p/k" || bad="$bad cannot remove k;"
	after=$(dmesg | sed -n '/stock-tests: kasan_kept: misuse ends/,$p' | grep -E "$splat_re" |
		head -n 3 | tr '\n' ' ')
	[ -z "$after" ] || bad="$bad a report after the misuse: $after;"
	parent_verdict kasan_kept
}

# cgroups_1000: 1000 cgroups made, used and deleted are all released and
# leave nothing charged but the remainder; once the sheaves are flushed
# (the objects kept charged to the removed children go) and the stocks
# drained, the parent is back to its baseline: at most $baseline bytes,
# the sub-page pre-charges of its own objcgs (the debug kernel's kmemleak
# scan follows)
test_cgroups_1000() {
	p=$(parent stk-many) || { result fail cgroups_1000 "no cgroup"; return; }
	i=0 why=''
	while [ $i -lt 1000 ]; do
		c="$p/c$i"
		# Made from both CPUs in turn: the parent's objcg is charged
		# on both, so its remainder case is always exercised.
		err=$(taskset -c $((i % ncpu)) mkdir "$c" 2>&1) || { why="mkdir c$i: $err"; break; }
		err=$(slab-fill churn "$c" "$c" $((i % ncpu)) 20 2>&1 >/dev/null) ||
			{ why="slab-fill churn in c$i failed: $(echo "$err" | tr '\n' ' ')"; break; }
		err=$(rmdir "$c" 2>&1) ||
			{ why="rmdir c$i: $err (tasks left: $(tr '\n' ' ' <"$c/cgroup.procs"))"; break; }
		i=$((i + 1))
	done
	if [ -n "$why" ]; then
		[ -d "$c" ] && charge_report "$c" && rmdir "$c"
		result fail cgroups_1000 "stopped at cgroup $i: $why"
	elif ! drained "$p" $remainder; then
		charge_report "$p"
		result fail cgroups_1000 "$(left "$p" $remainder)"
	else
		kept=$(cat "$p/memory.current")
		echo "# parent keeps $kept bytes (at most $remainder may)"
		# What it keeps, where it keeps any.
		if [ "$kept" != 0 ]; then
			# (drained() does not drain a parent already
			# within the bound: this is what the children
			# left in the stocks and sheaves, undrained.)
			charge_report "$p"
			drain_once "$p"
			sleep 1
			echo "# drained once: parent keeps $(cat "$p/memory.current") bytes"
		fi
		flush_sheaves
		drain_once "$p"
		drained_verdict cgroups_1000 "$p" $baseline "flushed parent"
	fi
	rmdir "$p"
}

# charged_bytes: a file that a task of cgroup l makes on CPU 0 and
# another task removes on CPU 1 (its inode and dentry are charged to l
# on the one CPU and uncharged on the other) leaves a sub-page remainder
# of l's objcg in each CPU's stock, which add up to whole pages; once the
# sheaves are flushed and the stocks drained, l, alive and empty, keeps
# at most $strict bytes (the fix, above; the base keeps a page in
# nr_charged_bytes). Skipped with one CPU
test_charged_bytes() {
	if [ "$ncpu" -lt 2 ]; then
		result skip charged_bytes "one CPU: no two stocks to leave remainders"
		return
	fi
	p=$(parent stk-bytes) || { result fail charged_bytes "no cgroup"; return; }
	mkdir "$p/l" || { result fail charged_bytes "no cgroup"; return; }
	bad='' f=/tmp/stk-bytes.$$
	mkdir -p /tmp
	# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
	taskset -c 0 sh -c 'echo 0 >"$1/cgroup.procs" && : >"$2"' _ "$p/l" "$f" ||
		bad="cannot make $f in l;"
	echo "# l with the file: memory.current $(cat "$p/l/memory.current")"
	taskset -c 1 rm -f "$f" || bad="$bad cannot remove $f;"
	flush_sheaves
	if [ -n "$bad" ]; then
		result fail charged_bytes "$bad"
	else
		drained_verdict charged_bytes "$p/l" $strict l
	fi
	rmdir "$p/l" "$p"
}

# stock_tests: the tests, one a line in the order they run: NAME, whose
# function is test_NAME, and DEBUG, the tier of the debug group
# (tests/checks/debug.sh) that runs it: "debug" its default tier, "full"
# only --full, "-" none; and why, for "full" and "-".
stock_tests() {
	cat <<'EOF'
slab_limit     debug
stock_hotplug  debug
stock_slots    debug
stock_dead     debug
stock_large    debug
bulk_error     debug
destroy_kept   debug
sock_kept      -      the debug group's list never named it
kept_limit     debug
nolock_irq     debug
churn_stats    full   left 40960 bytes on its parent now and then on the debug and RT kernels; on RT they were folios in other CPUs' LRU batches, drained since (Documentation/charged-objects.md, PREEMPT_RT), the debug kernel's not rerun: --full until it passes there
hotplug_load   debug
cgroups_1000   full   about 10 min on the debug kernel under TCG
charged_bytes  debug
kasan_kept     -      its KASAN reports turn lockdep off: tests/checks/arm64.sh boots it alone on the arm64-kasan kernel
EOF
}

# names [TIER]: the names of the tests (of that tier of the debug group),
# one a line.
names() {
	stock_tests | awk -v tier="${1:-}" 'tier == "" || $2 == tier { print $1 }'
}

if [ "${1:-}" = --list ]; then
	case ${2:-} in
	'' | debug | full) ;;
	*) echo "usage: $0 --list [debug|full]" >&2; exit 2 ;;
	esac
	for t in $(names); do
		command -v "test_$t" >/dev/null || { echo "$0: test $t has no function test_$t" >&2; exit 1; }
	done
	names "${2:-}"
	exit 0
fi

all=$(names | tr '\n' ,)
all=${all%,}
tests=${H_stock:-$all}
echo "TAP version 13"
echo "1..$(echo "$tests" | tr ',' '\n' | grep -c .)"
# The jobs' helpers: guest_mode (a variable, so that a test on the host
# can give this script another lib.sh).
# shellcheck source=tests/guest/lib.sh
. "${GUEST_LIB:-/tests/lib.sh}"
mode=$(guest_mode)
kasan_generic=$(dmesg | grep -m 1 'KernelAddressSanitizer initialized (generic)' || :)
kasan_tags=$(dmesg | grep -m 1 -E 'KernelAddressSanitizer initialized \((sw|hw)-tags' || :)
[ -n "$mode" ] || { echo "Bail out! no mode of ${MODES_CONF:-/tests/modes.conf} matches the command line"; exit 1; }
taskset -p 1 $$ >/dev/null || echo "# cannot pin this script to CPU 0"
echo +memory >"$CG/cgroup.subtree_control"
mkdir -p "$scratch"
for t in $(echo "$tests" | tr ',' ' '); do
	case ",$all," in
	*",$t,"*) "test_$t" ;;
	*) result fail "$t" "no such test" ;;
	esac
done
rmdir "$scratch"
[ $fails -eq 0 ]

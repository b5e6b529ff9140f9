#!/bin/sh
# Guest TAP tests of the per-cpu objcg stock (memcg slab accounting), run
# like a selftest (/tests/selftests/harness/stock) on the base and the
# patched kernel, whose results the host compares:
#   slab_limit      memory.max stops an accounted slab allocation loop
#                   (ENOMEM or OOM kill) and memory.peak stays near it
#   stock_hotplug   charges cached in the objcg stock of a CPU that goes
#                   offline do not stay behind once their cgroup is gone
#                   (on 6.1 the dead CPU keeps the objcg and its bytes)
#   churn_stats     after cross-cgroup alloc/free churn from both CPUs, a
#                   cgroup's slab counter returns to within the stock
#                   tolerance and its parent is left with nothing charged
#   cgroups_1000    1000 cgroups made, used and deleted leave nothing
#                   charged (the debug kernel's kmemleak scan follows)
# The workloads come from slab-fill (tests/slab-fill.c), whose children
# leave no object behind, so "nothing charged" can be checked exactly.
# shellcheck shell=sh
CG=/sys/fs/cgroup
PAGE=4096
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# The test_kmem tolerance: 64 pages of stock slack per CPU.
tolerance=$((64 * PAGE * ncpu))
n=0
fails=0

result() { # STATUS NAME [REASON]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n $2" ;;
	skip) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2${3:+ # $3}"; fails=$((fails + 1)) ;;
	esac
}

# Slab objects charged? Not with cgroup.memory=nokmem, nor with noslab on
# a kernel that knows the flag.
slab_charged() {
	case " $(cat /proc/cmdline) " in
	*cgroup.memory=nokmem* | *cgroup.memory=noslab* | *cgroup.nomemobj*) return 1 ;;
	esac
	return 0
}

stat_of() { # CGROUP KEY
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}

# drained_to_zero CGROUP: after drains of the per-cpu stocks of CGROUP and
# its descendants (memory.high set to 0 drains them, without an OOM kill),
# memory.current reaches 0 within 20 s. The drain is asked for again every
# second: a drain skips all CPUs while another one runs (the trylock in
# drain_all_stock()), and dying children are released asynchronously.
drained_to_zero() {
	i=0
	while [ "$(cat "$1/memory.current")" != 0 ]; do
		[ $i -lt 200 ] || return 1
		if [ $((i % 10)) -eq 0 ]; then
			echo 0 >"$1/memory.high"
			echo max >"$1/memory.high"
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

parent() { # NAME: a cgroup whose children get the memory controller
	mkdir -p "$CG/$1" && echo +memory >"$CG/$1/cgroup.subtree_control" && echo "$CG/$1"
}

test_slab_limit() {
	if ! slab_charged; then
		result skip slab_limit "slab objects are not charged in this mode"
		return
	fi
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
	if drained_to_zero "$p"; then
		result ok stock_hotplug
	else
		result fail stock_hotplug "$(cat "$p/memory.current") bytes stay charged to the parent"
	fi
	echo 1 >"$cpu1"
	rmdir "$p"
}

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
	drained_to_zero "$p" || bad="$bad parent: $(cat "$p/memory.current") bytes charged;"
	if [ -z "$bad" ]; then
		result ok churn_stats
	else
		result fail churn_stats "$bad"
	fi
	rmdir "$p"
}

test_cgroups_1000() {
	p=$(parent stk-many) || { result fail cgroups_1000 "no cgroup"; return; }
	i=0
	while [ $i -lt 1000 ]; do
		mkdir "$p/c$i" || break
		slab-fill churn "$p/c$i" "$p/c$i" $((i % ncpu)) 20 >/dev/null || break
		rmdir "$p/c$i" || break
		i=$((i + 1))
	done
	if [ $i -ne 1000 ]; then
		result fail cgroups_1000 "stopped at cgroup $i"
	elif ! drained_to_zero "$p"; then
		result fail cgroups_1000 "$(cat "$p/memory.current") bytes stay charged"
	else
		result ok cgroups_1000
	fi
	rmdir "$p"
}

echo "TAP version 13"
echo "1..4"
echo +memory >"$CG/cgroup.subtree_control"
test_slab_limit
test_stock_hotplug
test_churn_stats
test_cgroups_1000
[ $fails -eq 0 ]

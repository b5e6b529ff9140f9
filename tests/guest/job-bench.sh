#!/bin/sh
# Guest job: the mqueue benchmark. harness.cg=root runs it in the root
# cgroup (with a child memcg present, so the kmem key is on), anything else
# in a child memcg. harness.count= sets the number of iterations.
# harness.bench= runs only some of its parts (comma-separated: pair,
# pingpong-same, pingpong-cross, kmem, or kmem:API:SIZE:ACCT for one
# measurement of kmem_bench, e.g. kmem:kmalloc:64:0), for
# scripts/profile-workload.sh, locks (lock-bench: will-it-scale's lock1,
# flock, poll() of 64 entries, select() of 1024 and of 512 descriptors,
# unix send + recv, socket() + close(), open() of a missing name, one
# process on CPU 0; lock1 and flock skipped on a kernel without file
# locking);
# default: all of them, and on a guest with several CPUs the SMP parts too:
#   smp-locks        lock-bench's cases with one process per CPU, each in a
#                    cgroup of its own
#   smp-pairs        one pair process per CPU, each in a cgroup of its own
#   smp-stream-1cpu  producer and consumer on a blocking queue of 10, CPU 0
#   smp-stream-2cpu  the same, the consumer on CPU 1
#   smp-pingpong-2cpu  the ping-pong, the receiver on CPU 1
#   smp-storm        a pair process on each CPU but 0, without and then with
#                    a limit storm on CPU 0: a task of the root cgroup
#                    writes memory.high below the usage of a cgroup that
#                    holds anonymous memory, over and over, so that every
#                    write drains the charge stocks (as a charge that fails
#                    after reclaim does) and reclaims in vain
# Under -icount the vCPUs run in turn and guest time counts all of their
# instructions: mq-bench's "pair_all" is the whole window over all pairs,
# its "tsum"/"tn" the calls during which no other vCPU ran.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
child=$(make_child_cgroup bench) || exit 1
count=${H_count:-100000}
case "${H_cg:-child}" in
root) cg=/sys/fs/cgroup cg2=$child ;;
*) cg=$child cg2=$(make_child_cgroup bench2) || exit 1 ;;
esac
# Start each program inside its cgroup, as a container's processes are:
# a task that migrated in after it started pays more per message (about
# 540 guest instructions a ping-pong round trip on 6.1, cause not yet
# known), which would hide what the kernel change does.
run_in() { # CGROUP CMD... (CGROUP empty: where this shell is)
	(if [ -n "$1" ]; then echo 0 >"$1/cgroup.procs" || exit; fi && shift && exec "$@")
}
ncpu=$(nproc)
echo "HARNESS: $ncpu CPUs online"
smp=''
[ "$ncpu" -lt 2 ] || smp=,smp-pairs,smp-stream-1cpu,smp-stream-2cpu,smp-pingpong-2cpu,smp-storm,smp-locks
parts=${H_bench:-pair,pingpong-same,pingpong-cross,kmem,locks$smp}
kmem='' part=''
for part in $(echo "$parts" | tr , ' '); do
	case "$part" in
	pair | pingpong-same | pingpong-cross | kmem | locks) ;;
	smp-*)
		case "$part" in
		smp-pairs | smp-stream-1cpu | smp-stream-2cpu | smp-pingpong-2cpu | smp-storm | smp-locks) ;;
		*)
			echo "HARNESS: unknown bench part '$part' (known SMP parts: smp-pairs, smp-stream-1cpu, smp-stream-2cpu, smp-pingpong-2cpu, smp-storm, smp-locks)"
			exit 1
			;;
		esac
		[ "$ncpu" -ge 2 ] || { echo "HARNESS: bench part $part needs 2 CPUs or more (this guest has $ncpu)"; exit 1; }
		;;
	kmem:*:*:*) kmem=$(echo "${part#kmem:}" | tr : ' ') ;;
	*)
		echo "HARNESS: unknown bench part '$part' (known: pair, pingpong-same, pingpong-cross, kmem, kmem:API:SIZE:ACCT, locks, smp-*)"
		exit 1
		;;
	esac
done
want() { case ",$parts," in *,"$1",* | *,"$1":*) return 0 ;; esac; return 1; }
: >/tmp/bench.json
# How often a kept object served an accounted allocation, where the kernel
# has SLUB_STATS with the kept objects' counters (the test config set:
# run-bench.sh --config test): kept_counts sums alloc_charged,
# free_charged and charged_flush over every cache (each once: merged
# caches' aliases are symlinks), and hits LABEL CALLS records the
# difference since the last kept_counts in /tmp/hits.json, with the number
# of accounted allocations the part made (CALLS).
kept_counts() {
	for _s in alloc_charged free_charged charged_flush; do
		for _d in /sys/kernel/slab/*; do
			[ -L "$_d" ] || cat "$_d/$_s"
		done | awk '{ n += $1 } END { printf "%d ", n }'
	done
}
stats=''
[ ! -f /sys/kernel/slab/kmalloc-cg-64/alloc_charged ] || stats=1
: >/tmp/hits.json
last=''
[ -z "$stats" ] || last=$(kept_counts)
hits() {
	[ -n "$stats" ] || return 0
	_now=$(kept_counts)
	# shellcheck disable=SC2086 # two lists of three numbers
	set -- "$1" "$2" $last $_now
	printf '{"label": "%s", "calls": %d, "alloc_charged": %d, "free_charged": %d, "charged_flush": %d}\n' \
		"$1" "$2" $(($6 - $3)) $(($7 - $4)) $(($8 - $5)) >>/tmp/hits.json
	last=$_now
}
if want pair; then
	run_in "$cg" /tests/mq-bench --json --count "$count" --cpu 0 \
		--label pair >>/tmp/bench.json || exit 1
	hits pair "$count"
fi
if want pingpong-same; then
	run_in "$cg" /tests/mq-bench --json --mode pingpong --count $((count / 10)) \
		--cpu 0 --label pingpong-same >>/tmp/bench.json || exit 1
	hits pingpong-same $((count / 10 + count / 10))
fi
# The receiver of the cross-cgroup ping-pong moves itself to cg2.
if want pingpong-cross; then
	run_in "$cg" /tests/mq-bench --json --mode pingpong --count $((count / 10)) \
		--cpu 0 --cgroup2 "$cg2" --label pingpong-cross >>/tmp/bench.json || exit 1
	hits pingpong-cross $((count / 10 + count / 10))
fi
# cgroups FIRST N: N cgroups of their own (in mode root, the root N times),
# comma-separated, for mq-bench --procs.
cgroups() {
	_l='' _i=$1
	while [ "$_i" -lt $(($1 + $2)) ]; do
		if [ "${H_cg:-child}" = root ]; then
			_c=/sys/fs/cgroup
		else
			_c=$(make_child_cgroup "bench-cpu$_i") || return 1
		fi
		_l=$_l${_l:+,}$_c
		_i=$((_i + 1))
	done
	echo "$_l"
}
# mq-bench of the SMP parts: a tenth of the count for the parts that take
# two CPUs' turns per message.
smpc=$((count / 10))
[ "$smpc" -gt 0 ] || smpc=1
if want smp-pairs; then
	/tests/mq-bench --json --procs "$ncpu" --cpu 0 --count "$count" \
		--cgroup "$(cgroups 0 "$ncpu")" --label smp-pairs >>/tmp/bench.json || exit 1
	hits smp-pairs $((ncpu * count))
fi
if want smp-stream-1cpu; then
	run_in "$cg" /tests/mq-bench --json --mode stream --count "$smpc" \
		--cpu 0 --cpu2 0 --label smp-stream-1cpu >>/tmp/bench.json || exit 1
	hits smp-stream-1cpu "$smpc"
fi
if want smp-stream-2cpu; then
	run_in "$cg" /tests/mq-bench --json --mode stream --count "$smpc" \
		--cpu 0 --cpu2 1 --label smp-stream-2cpu >>/tmp/bench.json || exit 1
	hits smp-stream-2cpu "$smpc"
fi
if want smp-pingpong-2cpu; then
	run_in "$cg" /tests/mq-bench --json --mode pingpong --count "$smpc" \
		--cpu 0 --cpu2 1 --label smp-pingpong-2cpu >>/tmp/bench.json || exit 1
	hits smp-pingpong-2cpu $((smpc * 2))
fi
if want smp-storm; then
	others=$(cgroups 1 $((ncpu - 1))) || exit 1
	/tests/mq-bench --json --procs $((ncpu - 1)) --cpu 1 --count "$count" \
		--cgroup "$others" --label smp-nostorm >>/tmp/bench.json || exit 1
	hits smp-nostorm $(((ncpu - 1) * count))
	storm=$(make_child_cgroup bench-storm) || exit 1
	# The storm cgroup's usage: 4 MiB of anonymous memory (no swap).
	(echo 0 >"$storm/cgroup.procs" && exec sh -c 'x=$(yes abcdefghijklmno | head -c 4194304); while :; do sleep 1000; done # $x') &
	holder=$!
	i=0
	while [ "$(cat "$storm/memory.current")" -lt 4194304 ]; do
		i=$((i + 1))
		[ "$i" -lt 60 ] || { echo "HARNESS: the storm cgroup never held 4 MiB"; exit 1; }
		sleep 1
	done
	taskset 1 sh -c "while :; do echo 0 >$storm/memory.high; done" &
	writer=$!
	[ -z "$stats" ] || last=$(kept_counts)
	/tests/mq-bench --json --procs $((ncpu - 1)) --cpu 1 --count "$count" \
		--cgroup "$others" --label smp-storm >>/tmp/bench.json
	rc=$?
	hits smp-storm $(((ncpu - 1) * count))
	kill "$writer" "$holder" 2>/dev/null
	wait "$writer" "$holder" 2>/dev/null
	echo "HARNESS: storm cgroup $storm: memory.events $(tr '\n' ' ' <"$storm/memory.events")"
	[ "$rc" -eq 0 ] || exit 1
fi
# lock_bench LABEL CGROUP ARGS...: lock-bench's cases, each with ARGS,
# started in CGROUP ('': ARGS has --procs and --cgroup), a label each:
# LABEL-lock1, LABEL-flock, LABEL-poll, LABEL-select, LABEL-select512 and
# the unix-socket and file-name calls LABEL-dgram, LABEL-dgram1000 (send
# + recv of 216 and 1000 bytes), LABEL-stream, LABEL-stream1000,
# LABEL-socket (socket + close), LABEL-openfail (open of a missing name).
# lock1 and flock are left out on a kernel without file locking (no
# /proc/locks), where they cannot run.
lock_bench() {
	_l=$1 _g=$2
	shift 2
	_cases='poll select select:512 dgram dgram:1000 stream stream:1000 socket openfail'
	if [ -e /proc/locks ]; then
		_cases="lock1 flock $_cases"
	else
		echo "HARNESS: no /proc/locks (CONFIG_FILE_LOCKING=n): lock1 and flock of bench part $_l skipped"
	fi
	for _c in $_cases; do
		_m=${_c%%:*} _n='' _o=--nfds
		[ "$_c" = "$_m" ] || _n=${_c#*:}
		case $_m in dgram | stream) _o=--size ;; esac
		run_in "$_g" /tests/lock-bench --json --mode "$_m" ${_n:+$_o "$_n"} \
			--count "$count" --label "$_l-$_m$_n" "$@" >>/tmp/bench.json || return 1
	done
}
if want locks; then
	lock_bench locks "$cg" --cpu 0 || exit 1
fi
if want smp-locks; then
	lock_bench smp-locks '' --procs "$ncpu" --cpu 0 --cgroup "$(cgroups 0 "$ncpu")" || exit 1
fi
if [ -n "$kmem" ] && [ ! -f /lib/modules/kmem_bench.ko ]; then
	echo "HARNESS: bench part kmem:$kmem asked for, but this kernel has no kmem_bench.ko"
	exit 1
fi
if want kmem && [ -f /lib/modules/kmem_bench.ko ]; then
	insmod /lib/modules/kmem_bench.ko || exit 1
	run_in "$cg" sh -c "echo run $count $kmem >/proc/kmem_bench" || exit 1
	sed -n 's/^kmem_bench /&/p' /proc/kmem_bench >/tmp/kmem.txt
	emit_file kmem.txt /tmp/kmem.txt
fi
emit_file bench.json /tmp/bench.json
[ -z "$stats" ] || emit_file hits.json /tmp/hits.json
emit_cpu

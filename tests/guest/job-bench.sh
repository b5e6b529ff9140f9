#!/bin/sh
# Guest job: the mqueue benchmark. harness.cg=root runs it in the root
# cgroup (with a child memcg present, so the kmem key is on), anything else
# in a child memcg. harness.count= sets the number of iterations.
# Its parts, what each runs and in which order: /tests/bench-parts.conf
# (tests/bench-parts.conf). harness.bench= runs only some of them
# (comma-separated names, or kmem:API:SIZE:ACCT for one measurement of
# kmem_bench, e.g. kmem:kmalloc:64:0), for scripts/profile-workload.sh;
# default: every part the guest has the CPUs for (the SMP parts on a guest
# with several CPUs only).
# Under -icount the vCPUs run in turn and guest time counts all of their
# instructions: mq-bench's "pair_all" is the whole window over all pairs,
# its "tsum"/"tn" the calls during which no other vCPU ran.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
child=$(make_child_cgroup bench) || exit 1
count=${H_count:-100000}
# shellcheck disable=SC2034 # cg and cg2: for the table's run column (eval)
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
# unlist VAR LIST: VAR becomes the comma-separated LIST with spaces for
# its commas ("-": empty).
ifs=$IFS
unlist() {
	_v=$1
	[ "$2" != - ] || set -- "$1" ''
	IFS=,
	set -f
	# shellcheck disable=SC2086 # the split is the point
	set -- $2
	set +f
	IFS=$ifs
	eval "$_v=\$*"
}
# The table, read once by the shell itself (no process of its own, so that
# the parts' processes start as they did before there was a table): part I
# (1..nparts) in pI_name, pI_cpus, pI_calls, pI_run and pI_cases; the
# report's columns (place, section, rows, legend) are left out. known:
# every name, deflt: those this guest has the CPUs for.
nparts=0 known='' deflt=''
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	set -f
	# shellcheck disable=SC2086 # the split is the point
	set -- $line
	set +f
	nparts=$((nparts + 1))
	eval "p${nparts}_name=\$1 p${nparts}_cpus=\$2 p${nparts}_calls=\$3"
	unlist "p${nparts}_run" "$4"
	unlist "p${nparts}_cases" "$8"
	known=$known${known:+, }$1
	[ "$ncpu" -lt "$2" ] || deflt=$deflt${deflt:+,}$1
done </tests/bench-parts.conf
# part_index NAME: part_i becomes NAME's number in the table, 0 if none.
part_index() {
	part_i=$nparts
	while [ "$part_i" -gt 0 ]; do
		eval "[ \"\$p${part_i}_name\" != \"\$1\" ]" || return 0
		part_i=$((part_i - 1))
	done
}
parts=${H_bench:-$deflt}
kmem='' part=''
for part in $(echo "$parts" | tr , ' '); do
	case "$part" in
	kmem:*:*:*) kmem=$(echo "${part#kmem:}" | tr : ' ') ;;
	*)
		part_index "$part"
		if [ "$part_i" = 0 ]; then
			echo "HARNESS: unknown bench part '$part' (known: $known, kmem:API:SIZE:ACCT)"
			exit 1
		fi
		eval "_n=\$p${part_i}_cpus"
		[ "$ncpu" -ge "$_n" ] || { echo "HARNESS: bench part $part needs $_n CPUs or more (this guest has $ncpu)"; exit 1; }
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
# The functions of the table's run column; each gets the part's name first.
# mq_bench PART CGROUP ARGS...: mq-bench with ARGS, started in CGROUP ('':
# where this shell is; ARGS has --procs and --cgroup). The receiver of the
# cross-cgroup ping-pong (--cgroup2) moves itself there.
mq_bench() {
	_l=$1 _g=$2
	shift 2
	if [ -n "$_g" ]; then
		run_in "$_g" /tests/mq-bench --json "$@" --label "$_l" >>/tmp/bench.json
	else
		/tests/mq-bench --json "$@" --label "$_l" >>/tmp/bench.json
	fi
}
# storm_bench PART NOSTORM: mq-bench pairs on every CPU but 0, each in a
# cgroup of its own, labelled NOSTORM; then again, labelled PART, with a
# limit storm on CPU 0: a task of the root cgroup writes memory.high below
# the usage of a cgroup that holds anonymous memory, over and over, so that
# every write drains the charge stocks (as a charge that fails after
# reclaim does) and reclaims in vain.
storm_bench() {
	others=$(cgroups 1 $((ncpu - 1))) || return 1
	/tests/mq-bench --json --procs $((ncpu - 1)) --cpu 1 --count "$count" \
		--cgroup "$others" --label "$2" >>/tmp/bench.json || return 1
	hits "$2" $(((ncpu - 1) * count))
	storm=$(make_child_cgroup bench-storm) || return 1
	# The storm cgroup's usage: 4 MiB of anonymous memory (no swap).
	(echo 0 >"$storm/cgroup.procs" && exec sh -c 'x=$(yes abcdefghijklmno | head -c 4194304); while :; do sleep 1000; done # $x') &
	holder=$!
	i=0
	while [ "$(cat "$storm/memory.current")" -lt 4194304 ]; do
		i=$((i + 1))
		[ "$i" -lt 60 ] || { echo "HARNESS: the storm cgroup never held 4 MiB"; return 1; }
		sleep 1
	done
	taskset 1 sh -c "while :; do echo 0 >$storm/memory.high; done" &
	writer=$!
	[ -z "$stats" ] || last=$(kept_counts)
	/tests/mq-bench --json --procs $((ncpu - 1)) --cpu 1 --count "$count" \
		--cgroup "$others" --label "$1" >>/tmp/bench.json
	rc=$?
	hits "$1" $(((ncpu - 1) * count))
	kill "$writer" "$holder" 2>/dev/null
	wait "$writer" "$holder" 2>/dev/null
	echo "HARNESS: storm cgroup $storm: memory.events $(tr '\n' ' ' <"$storm/memory.events")"
	[ "$rc" -eq 0 ]
}
# lock_bench PART CGROUP ARGS...: the part's lock-bench cases (the table's
# cases), each with ARGS, started in CGROUP ('': ARGS has --procs and
# --cgroup), a label each: PART-MODE, and PART-MODEN for a case MODE:N.
# lock1 and flock are left out on a kernel without file locking (no
# /proc/locks), where they cannot run.
lock_bench() {
	_l=$1 _g=$2 _cases=''
	shift 2
	part_index "$_l"
	eval "_cases=\$p${part_i}_cases"
	part_index "$_cases"
	[ "$part_i" = 0 ] || eval "_cases=\$p${part_i}_cases"
	_locks=1
	if [ ! -e /proc/locks ]; then
		_locks=''
		echo "HARNESS: no /proc/locks (CONFIG_FILE_LOCKING=n): lock1 and flock of bench part $_l skipped"
	fi
	for _c in $_cases; do
		_m=${_c%%:*} _n='' _o=--nfds
		case $_m in lock1 | flock) [ -n "$_locks" ] || continue ;; esac
		[ "$_c" = "$_m" ] || _n=${_c#*:}
		case $_m in dgram | stream) _o=--size ;; esac
		run_in "$_g" /tests/lock-bench --json --mode "$_m" ${_n:+$_o "$_n"} \
			--count "$count" --label "$_l-$_m$_n" "$@" >>/tmp/bench.json || return 1
	done
}
# kmem_bench PART CGROUP: kmem_bench.ko's measurements (harness.bench's
# kmem:API:SIZE:ACCT: that one), written from CGROUP; none where the
# kernel has no kmem_bench.ko, unless one was asked for.
kmem_bench() {
	if [ ! -f /lib/modules/kmem_bench.ko ]; then
		[ -n "$kmem" ] || return 0
		echo "HARNESS: bench part kmem:$kmem asked for, but this kernel has no kmem_bench.ko"
		return 1
	fi
	insmod /lib/modules/kmem_bench.ko || return 1
	run_in "$2" sh -c "echo run $count $kmem >/proc/kmem_bench" || return 1
	sed -n 's/^kmem_bench /&/p' /proc/kmem_bench >/tmp/kmem.txt
	emit_file kmem.txt /tmp/kmem.txt
}
# Every part asked for, in the table's order: its run column (the shell
# words expanded now), then its kept-object counters over its calls.
part_n=0 calls='' run=''
while [ "$part_n" -lt "$nparts" ]; do
	part_n=$((part_n + 1))
	eval "part=\$p${part_n}_name calls=\$p${part_n}_calls run=\$p${part_n}_run"
	want "$part" || continue
	eval "set -- $run"
	_f=$1
	shift
	"$_f" "$part" "$@" || exit 1
	# shellcheck disable=SC2004 # calls is arithmetic (count/10*2), not a number
	[ "$calls" = - ] || hits "$part" $(($calls))
done
emit_file bench.json /tmp/bench.json
[ -z "$stats" ] || emit_file hits.json /tmp/hits.json
emit_cpu

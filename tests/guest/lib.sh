# shellcheck shell=sh
# Helpers for guest jobs (busybox sh). Sourced.

# Make a child memory cgroup and print its path. The first non-root memcg
# turns the kmem static key on, as on any host that runs containers.
make_child_cgroup() {
	echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "/sys/fs/cgroup/$1" || return 1
	echo "/sys/fs/cgroup/$1"
}

# make_files_in CGROUP DIR N: a task of CGROUP creates N empty files
# f0..f(N-1) in DIR (a dentry and an inode each, charged to CGROUP).
make_files_in() {
	(
		echo 0 >"$1/cgroup.procs" || exit 1
		_i=0
		while [ "$_i" -lt "$3" ]; do
			: >"$2/f$_i" || exit 1
			_i=$((_i + 1))
		done
	)
}

# The modes table (tests/modes.conf, in /tests) and the kernel command line
# say which mode a job runs in; MODES_CONF and PROC_CMDLINE point
# elsewhere for a test on the host.
# mode_of CMDLINE: the mode of the modes table that CMDLINE boots
# (scripts/boot-guest.sh puts the mode's flags and harness.cg=CGROUP on
# it): of the modes whose flags ("-": none) and harness.cg=CGROUP are all
# words of CMDLINE, the one with the most flags; nothing if none is.
mode_of() {
	awk -v cmdline="$1" '
		BEGIN { n = split(cmdline, w, " "); for (i = 1; i <= n; i++) word[w[i]] = 1 }
		/^#/ || NF < 3 || !(("harness.cg=" $2) in word) { next }
		$3 == "-" { k = 0 }
		$3 != "-" { if (!($3 in word)) next; k = 1 }
		best == "" || k > most { best = $1; most = k }
		END { print best }
	' "${MODES_CONF:-/tests/modes.conf}"
}

# guest_mode: the mode this guest was booted in (mode_of its command line).
guest_mode() {
	read -r _cmdline <"${PROC_CMDLINE:-/proc/cmdline}"
	mode_of "$_cmdline"
}

# mode_charges MODE slab|kmem: true if the patched kernel charges slab
# objects (slab) or the other kernel memory (kmem) to a child memcg in
# MODE (columns slab and kmem of the modes table).
mode_charges() {
	case $2 in slab) _n=5 ;; *) _n=6 ;; esac
	[ "$(awk -v m="$1" -v n="$_n" '!/^#/ && $1 == m { print $n }' \
		"${MODES_CONF:-/tests/modes.conf}")" = yes ]
}

# Print a file between markers so the host can extract it from the log.
emit_file() {
	echo "HARNESS-BEGIN $1"
	cat "$2"
	echo "HARNESS-END $1"
}

# run_workloads CGROUP LIST FILE: run the workloads (stress-ng, hackbench,
# pgbench, cyclictest) named in LIST
# (comma-separated, from /tests/workloads.conf) one after the other, each
# started inside CGROUP, and append one JSON line per workload to FILE:
# guest ns per bogo op, or the error. A workload that fails or outlives
# harness.wtimeout (seconds, default 600) is reported and the next one
# runs. harness.wdiv=N divides every workload's bogo-op count by N (smoke
# runs).
# workload_failed NAME FILE RC WHY: report workload NAME as failed on the
# console and as its JSON line in FILE, with WHY, or the timeout when its
# program's exit code RC is busybox timeout's SIGTERM (143). Quotes and
# backslashes are taken out of WHY, which would break the JSON line.
workload_failed() {
	_fwhy=$4
	[ "$3" -ne 143 ] || _fwhy="timed out after ${H_wtimeout:-600} s"
	_fwhy=$(printf '%s' "$_fwhy" | tr -d '\042\134')
	echo "HARNESS-WORKLOAD-FAILED $1: $_fwhy"
	echo "{\"workload\":\"$1\",\"error\":\"$_fwhy\"}" >>"$2"
}

run_workloads() {
	_cg=$1 _out=$3
	for _w in $(echo "$2" | tr ',' ' '); do
		# shellcheck disable=SC2046 # the split is the point
		set -- $(grep "^${_w}[[:space:]]" /tests/workloads.conf)
		if [ $# -lt 2 ]; then
			echo "{\"workload\":\"$_w\",\"error\":\"unknown workload\"}" >>"$_out"
			continue
		fi
		_ops=$(($2 / ${H_wdiv:-1}))
		[ "$_ops" -gt 0 ] || _ops=1
		shift 2
		echo "HARNESS-WORKLOAD $_w ops=$_ops"
		if [ "${1:-}" = hackbench ]; then
			shift
			run_hackbench "$_cg" "$_w" "$_ops" "$_out" "$@"
			continue
		fi
		if [ "${1:-}" = pgbench ]; then
			shift
			run_pgbench "$_cg" "$_w" "$_ops" "$_out" "$@"
			continue
		fi
		if [ "${1:-}" = cyclictest ]; then
			shift
			run_cyclictest "$_cg" "$_w" "$_ops" "$_out" "$@"
			continue
		fi
		rm -f /tmp/sng.yaml
		_ctxt0=$(sed -n 's/^ctxt //p' /proc/stat)
		(echo 0 >"$_cg/cgroup.procs" && cd /tmp &&
			exec timeout "${H_wtimeout:-600}" stress-ng --"$_w" 1 --"$_w"-ops "$_ops" "$@" \
				--no-rand-seed --temp-path /tmp --metrics --yaml /tmp/sng.yaml) 2>&1
		_rc=$?
		_ctxt1=$(sed -n 's/^ctxt //p' /proc/stat)
		_rate=$(sed -n 's/^ *bogo-ops-per-second-real-time: *//p' /tmp/sng.yaml 2>/dev/null | head -n 1)
		_bogo=$(sed -n 's/^ *bogo-ops: *//p' /tmp/sng.yaml 2>/dev/null | head -n 1)
		if [ "$_rc" -ne 0 ] || [ -z "$_rate" ] || [ "${_bogo:-0}" -lt "$_ops" ]; then
			# busybox timeout ends the program with SIGTERM (143),
			# which stress-ng may catch and exit early, but not 0.
			workload_failed "$_w" "$_out" "$_rc" \
				"stress-ng exit $_rc after ${_bogo:-no} of $_ops bogo ops"
			continue
		fi
		# Context switches per 1000 ops: on one vCPU, how often the
		# stressor's processes hand the CPU over depends on timing, and
		# a kernel that is faster somewhere can switch more per op.
		awk -v w="$_w" -v ops="$_bogo" -v rate="$_rate" -v c="$((_ctxt1 - _ctxt0))" 'BEGIN {
			printf "{\"workload\":\"%s\",\"ops\":%d,\"ns_per_op\":%.1f,\"ctxt_per_kop\":%.1f}\n", w, ops, 1e9 / rate, 1000 * c / ops }' >>"$_out"
	done
	pg_stop
}

# PostgreSQL in the guest (build-initramfs.sh's pgsql.cpio): a cluster in
# /tmp/pgdata, made and loaded by the first pgbench workload of a boot
# (pgbench -i, scale $PG_SCALE), its server started inside that workload's
# cgroup, so that server and clients share it as in a container; stopped
# at the end of run_workloads. No fsync, no autovacuum, no JIT: the runs
# repeat under icount.
PG=/usr/lib/postgresql/15/bin
PG_DATA=/tmp/pgdata
PG_SOCK=/tmp/pgsock
PG_SCALE=1
pg_up=''

# pg_start CGROUP: make, start and load the cluster once; 1 on failure,
# with the reason on stdout. Not in a subshell: it sets pg_up.
pg_start() {
	[ -z "$pg_up" ] || return 0
	if [ ! -x $PG/postgres ]; then
		echo "no PostgreSQL in the guest (build-initramfs.sh's pgsql.cpio)"
		return 1
	fi
	grep -q '^postgres:' /etc/passwd || echo 'postgres:x:70:70:PostgreSQL:/tmp:/bin/sh' >>/etc/passwd
	grep -q '^postgres:' /etc/group || echo 'postgres:x:70:' >>/etc/group
	ip link set lo up 2>/dev/null || :
	mkdir -p $PG_DATA $PG_SOCK && chown postgres:postgres $PG_DATA $PG_SOCK
	su -s /bin/sh postgres -c "TZ=UTC $PG/initdb -D $PG_DATA -U postgres -A trust \
		--no-locale -E UTF8 --no-sync" >/tmp/initdb.log 2>&1 ||
		{ echo "initdb failed: $(tail -n 3 /tmp/initdb.log | tr '\n' ' ')"; return 1; }
	(echo 0 >"$1/cgroup.procs" && exec su -s /bin/sh postgres -c "TZ=UTC exec $PG/postgres \
		-D $PG_DATA -k $PG_SOCK -c listen_addresses=127.0.0.1 -c fsync=off \
		-c synchronous_commit=off -c full_page_writes=off -c autovacuum=off \
		-c jit=off -c shared_buffers=64MB -c max_connections=32 \
		-c dynamic_shared_memory_type=sysv -c checkpoint_timeout=1d \
		-c max_wal_size=1GB") >/tmp/pg.log 2>&1 &
	_i=0
	until grep -q 'ready to accept connections' /tmp/pg.log; do
		_i=$((_i + 1))
		if [ $_i -gt 600 ] || ! kill -0 $! 2>/dev/null; then
			echo "the server did not start: $(tail -n 3 /tmp/pg.log | tr '\n' ' ')"
			return 1
		fi
		sleep 0.2
	done
	pg_up=$!
	(echo 0 >"$1/cgroup.procs" && exec $PG/pgbench -i -q -s $PG_SCALE -h $PG_SOCK -U postgres postgres) \
		>/tmp/pgbench-init.log 2>&1 ||
		{ echo "pgbench -i failed: $(tail -n 3 /tmp/pgbench-init.log | tr '\n' ' ')"; return 1; }
}

pg_stop() {
	[ -n "$pg_up" ] || return 0
	kill -INT "$(head -n 1 $PG_DATA/postmaster.pid)" 2>/dev/null
	wait "$pg_up" 2>/dev/null
	pg_up=''
}

# run_pgbench CGROUP NAME TRANSACTIONS FILE [pgbench arguments]: one pgbench
# run (TRANSACTIONS a client, a fixed random seed), started inside CGROUP
# against the guest's server; appends a JSON line to FILE: guest ns per
# transaction over all clients (1e9 / pgbench's tps, initial connections
# excluded), the tps and the mean latency in ms, or the error.
run_pgbench() {
	_pcg=$1 _pw=$2 _pt=$3 _pout=$4
	shift 4
	if ! pg_start "$_pcg" >/tmp/pg-start.why; then
		workload_failed "$_pw" "$_pout" 0 "$(cat /tmp/pg-start.why)"
		return
	fi
	_ctxt0=$(sed -n 's/^ctxt //p' /proc/stat)
	_plog=$( (echo 0 >"$_pcg/cgroup.procs" && cd /tmp &&
		exec timeout "${H_wtimeout:-600}" $PG/pgbench -n --random-seed=1 -U postgres \
			-t "$_pt" "$@" postgres) 2>&1)
	_rc=$?
	_ctxt1=$(sed -n 's/^ctxt //p' /proc/stat)
	echo "$_plog"
	_tps=$(echo "$_plog" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1)
	_lat=$(echo "$_plog" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' | head -n 1)
	_tx=$(echo "$_plog" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	if [ "$_rc" -ne 0 ] || [ -z "$_tps" ] || [ -z "$_tx" ]; then
		workload_failed "$_pw" "$_pout" "$_rc" "pgbench exit $_rc"
		return
	fi
	awk -v w="$_pw" -v tx="$_tx" -v tps="$_tps" -v lat="${_lat:-0}" -v c="$((_ctxt1 - _ctxt0))" 'BEGIN {
		printf "{\"workload\":\"%s\",\"ops\":%d,\"ns_per_op\":%.1f,\"ctxt_per_kop\":%.1f,\"tps\":%s,\"latency_ms\":%s}\n", w, tx, 1e9 / tps, 1000 * c / tx, tps, lat }' >>"$_pout"
}

# run_hackbench CGROUP NAME LOOPS FILE [hackbench arguments]: one run of
# rt-tests' hackbench, started inside CGROUP, with one group per online CPU
# and LOOPS messages from each sender to each receiver of its group; appends
# a JSON line to FILE: guest ns per message (hackbench's "Time:" over
# groups x senders x receivers x LOOPS), or the error.
run_hackbench() {
	_hcg=$1 _hw=$2 _hl=$3 _hout=$4
	shift 4
	_hg=$(grep -c '^processor' /proc/cpuinfo)
	# Senders (and receivers) a group: hackbench's -f, 20 by default.
	_hf=20 _prev=''
	for _a in "$@"; do
		[ "$_prev" != -f ] || _hf=$_a
		_prev=$_a
	done
	_ctxt0=$(sed -n 's/^ctxt //p' /proc/stat)
	_hlog=$( (echo 0 >"$_hcg/cgroup.procs" && cd /tmp &&
		exec timeout "${H_wtimeout:-600}" hackbench "$@" -g "$_hg" -l "$_hl") 2>&1)
	_rc=$?
	_ctxt1=$(sed -n 's/^ctxt //p' /proc/stat)
	echo "$_hlog"
	_t=$(echo "$_hlog" | sed -n 's/^Time: *//p' | head -n 1)
	if [ "$_rc" -ne 0 ] || [ -z "$_t" ]; then
		workload_failed "$_hw" "$_hout" "$_rc" "hackbench exit $_rc${_t:+ (time $_t)}"
		return
	fi
	awk -v w="$_hw" -v t="$_t" -v m="$((_hg * _hf * _hf * _hl))" -v c="$((_ctxt1 - _ctxt0))" 'BEGIN {
		printf "{\"workload\":\"%s\",\"ops\":%d,\"ns_per_op\":%.1f,\"ctxt_per_kop\":%.1f}\n", w, m, t * 1e9 / m, 1000 * c / m }' >>"$_hout"
}

# run_cyclictest CGROUP NAME LOOPS FILE idle|load|same [cyclictest
# arguments]: one run of rt-tests' cyclictest (LOOPS wakeups, results in
# ns), started where the job is, not in CGROUP. With "load", stress-ng's
# mq stressor runs in CGROUP on every vCPU but 0 (on vCPU 0 if it is the
# only one), an instance a vCPU; with "same", one instance on vCPU 0:
# POSIX messages sent and received, each a charged object allocated and
# freed, started before cyclictest and lasting longer (3 guest s), so that
# no fork or exec of the load falls in the measurement. Appends a JSON line
# to FILE: the maximum latency as ns_per_op, the average as avg_ns, or the
# error. Under QEMU icount a latency is counted in guest instructions, and
# the vCPUs take turns in one host thread: a wakeup on vCPU 0 waits for the
# turn of another vCPU to end ("load" measures that too), where a load on
# vCPU 0 alone must be preempted by the kernel ("same": the other vCPUs
# idle, which takes no turn).
run_cyclictest() {
	_ccg=$1 _cw=$2 _cl=$3 _cout=$4 _cload=$5
	shift 5
	_cn=$(grep -c '^processor' /proc/cpuinfo)
	_cpid='' _lrc=0
	if [ "$_cload" != idle ]; then
		_ck=$((_cn - 1)) _cset=$(seq -s , 1 $((_cn - 1)))
		if [ "$_cn" = 1 ] || [ "$_cload" = same ]; then
			_ck=1 _cset=0
		fi
		# harness.cyc_lead: whole seconds the load runs before
		# cyclictest starts (0: 0.2 s), and lasts longer.
		_clead=${H_cyc_lead:-0}
		case $_clead in
		'' | *[!0-9]*)
			workload_failed "$_cw" "$_cout" 1 "harness.cyc_lead=$_clead: not a number of seconds"
			return
			;;
		esac
		(echo 0 >"$_ccg/cgroup.procs" && cd /tmp &&
			exec stress-ng --mq "$_ck" --taskset "$_cset" -t $((3 + _clead)) \
				--no-rand-seed --temp-path /tmp) >/tmp/cyclictest-load.log 2>&1 &
		_cpid=$!
		# Its instances running before the first wakeup.
		if [ "$_clead" = 0 ]; then sleep 0.2; else sleep "$_clead"; fi
	fi
	if [ -n "${H_trace:-}" ] && ! _terr=$(trace_start "$H_trace"); then
		if [ -n "$_cpid" ]; then
			kill "$_cpid" 2>/dev/null
			wait "$_cpid" 2>/dev/null
		fi
		workload_failed "$_cw" "$_cout" 1 "tracer $H_trace: $_terr"
		return
	fi
	# events:NS: cyclictest stops at a latency over NS (with -N its -b
	# threshold is in ns too). Tracing goes on until trace_report, so
	# the spike is among the last events only where little runs after
	# it (no load; rt-tests' --tracemark, which would stop tracing at
	# the spike, needs debugfs).
	_cb=''
	case ${H_trace:-} in
	events:* | wakestack:*) _cb="-b ${H_trace#*:}" ;;
	esac
	# shellcheck disable=SC2086 # _cb is empty or two words
	_clog=$( (cd /tmp && exec timeout "${H_wtimeout:-600}" cyclictest "$@" $_cb -l "$_cl" -q -N) 2>&1)
	_rc=$?
	[ -z "${H_trace:-}" ] || trace_report "$_cw"
	if [ -n "$_cpid" ]; then
		# A load that ended before cyclictest proves nothing.
		_alive=1
		kill -0 "$_cpid" 2>/dev/null || _alive=0
		wait "$_cpid" || _lrc=$?
		[ "$_alive" = 1 ] || _lrc="$_lrc, ended before cyclictest"
		[ "$_lrc" = 0 ] || sed 's/^/load: /' /tmp/cyclictest-load.log
	fi
	echo "$_clog"
	_max=$(echo "$_clog" | sed -n 's/^T: *0 .* Max: *\([0-9]*\).*/\1/p' | head -n 1)
	_avg=$(echo "$_clog" | sed -n 's/^T: *0 .* Avg: *\([0-9]*\).*/\1/p' | head -n 1)
	if [ "$_rc" -ne 0 ] || [ -z "$_max" ] || [ "$_lrc" != 0 ]; then
		workload_failed "$_cw" "$_cout" "$_rc" "cyclictest exit $_rc, load exit $_lrc"
		return
	fi
	echo "{\"workload\":\"$_cw\",\"ops\":$_cl,\"ns_per_op\":$_max,\"avg_ns\":$_avg}" >>"$_cout"
}

# trace_start TRACER: ftrace's tracer TRACER (a kernel of config set
# rttrace) runs from now on, its maximum reset; 1 with the reason on
# stdout if the kernel has no such tracer. TRACER events:NS is the nop
# tracer with the sched, irq, timer and workqueue events; cyclictest -b NS
# ends its run at the first latency over NS, so that the spike is among
# the last events each CPU keeps. TRACER timerlat:US is the timerlat
# tracer (a FIFO 95 thread a CPU, woken every 1000 us beside cyclictest)
# with osnoise/print_stack US: each of its wakeups later than US us is
# followed by the stack its timer interrupt found, i.e. what the task it
# preempted was running. TRACER wakestack:NS: cyclictest's own wakeups
# (sched_wakeup, with the stack of the interrupt that woke it: the code
# it preempted) and the switches to it; cyclictest -b NS ends its run at
# the first latency over NS, whose wakeup is then the last one traced.
TRACEFS=/sys/kernel/tracing
trace_start() {
	_tt=${1%%:*}
	case $_tt in
	events | timerlat | wakestack)
		case ${1#"$_tt":} in
		'' | *[!0-9]*) echo "$_tt:N takes a number"; return 1 ;;
		esac
		;;
	esac
	_tk=$_tt
	case $_tt in events | wakestack) _tt=nop ;; esac
	if [ ! -e $TRACEFS/current_tracer ]; then
		mount -t tracefs nodev $TRACEFS 2>/dev/null ||
			{ echo "no tracefs (a kernel without ftrace?)"; return 1; }
	fi
	grep -qwF "$_tt" $TRACEFS/available_tracers ||
		{ echo "not in available_tracers: $(cat $TRACEFS/available_tracers)"; return 1; }
	echo 0 >$TRACEFS/tracing_on
	if [ "$_tt" = timerlat ]; then
		echo "${1#timerlat:}" >$TRACEFS/osnoise/print_stack ||
			{ echo "cannot set osnoise/print_stack"; return 1; }
	fi
	echo "$_tt" >$TRACEFS/current_tracer || { echo "cannot select it"; return 1; }
	if [ "$_tk" = wakestack ]; then
		echo >$TRACEFS/trace
		_ew=$TRACEFS/events/sched/sched_wakeup
		# Its measuring threads only (SCHED_FIFO: prio under 100),
		# not its main thread.
		{ echo 'comm == "cyclictest" && prio < 100' >$_ew/filter &&
			echo 'stacktrace if comm == "cyclictest" && prio < 100' >$_ew/trigger &&
			echo 'next_comm == "cyclictest" && next_prio < 100' >$TRACEFS/events/sched/sched_switch/filter &&
			echo 1 >$_ew/enable &&
			echo 1 >$TRACEFS/events/sched/sched_switch/enable; } || {
			echo 0 >$TRACEFS/events/enable
			wakestack_off
			echo "cannot set the wakeup's stacktrace trigger"
			return 1
		}
	elif [ "$_tt" = nop ]; then
		echo >$TRACEFS/trace
		for _e in sched/sched_switch sched/sched_wakeup sched/sched_waking \
			irq timer/hrtimer_expire_entry timer/hrtimer_expire_exit \
			workqueue/workqueue_execute_start workqueue/workqueue_execute_end; do
			echo 1 >"$TRACEFS/events/$_e/enable" || {
				echo 0 >$TRACEFS/events/enable
				echo "no event $_e"
				return 1
			}
		done
	fi
	echo 0 >$TRACEFS/tracing_max_latency
	echo 1 >$TRACEFS/tracing_on
}

# trace_report NAME: stops the tracer and prints, as comments, what it
# kept during workload NAME (under icount 1 us = 1000 guest instructions):
# a latency tracer's longest section (its header, its first and last
# lines, the functions it ran most); the events' last 600 lines on each
# CPU.
trace_report() {
	echo 0 >$TRACEFS/tracing_on
	_tc=$(cat $TRACEFS/current_tracer)
	if [ "$_tc" = timerlat ]; then
		timerlat_report "$1"
		echo nop >$TRACEFS/current_tracer
		echo 0 >$TRACEFS/osnoise/print_stack
		return
	fi
	if [ "$_tc" = nop ]; then
		echo 0 >$TRACEFS/events/enable
		wakestack_off
		for _c in "$TRACEFS"/per_cpu/cpu*; do
			grep -v '^#' "$_c/trace" | tail -n 600 | sed "s/^/# trace $1 ${_c##*/}: /"
		done
		return
	fi
	echo "# trace $1: $_tc maximum $(cat $TRACEFS/tracing_max_latency) us"
	grep -v '^#' $TRACEFS/trace >/tmp/trace.txt
	grep '^#' $TRACEFS/trace | sed -n '1,20p' | sed "s/^/# trace $1: /"
	_tn=$(wc -l </tmp/trace.txt)
	if [ "$_tn" -le 120 ]; then
		sed "s/^/# trace $1: /" /tmp/trace.txt
	else
		sed -n '1,60p' /tmp/trace.txt | sed "s/^/# trace $1: /"
		echo "# trace $1: ... $((_tn - 120)) lines ..."
		tail -n 60 /tmp/trace.txt | sed "s/^/# trace $1: /"
	fi
	# The functions it ran most, a count each.
	# (The delay mark of a latency trace's timestamp may take the place
	# of the blank before its colon: "12us+:", "30us!:".)
	awk 'match($0, /[0-9]us[^:]?: /) { $0 = substr($0, RSTART + RLENGTH); print $1 }' /tmp/trace.txt |
		sort | uniq -c | sort -rn | head -n 25 | sed "s/^/# trace $1: calls /"
	echo nop >$TRACEFS/current_tracer
}

# wakestack_off: no filter or trigger left on the sched events.
wakestack_off() {
	echo 0 >$TRACEFS/events/sched/sched_wakeup/filter
	echo 0 >$TRACEFS/events/sched/sched_switch/filter
	echo '!stacktrace' >$TRACEFS/events/sched/sched_wakeup/trigger 2>/dev/null || :
}

# timerlat_report NAME: the timerlat tracer's thread latencies (count,
# average) and, for the 25 longest of its wakeups over print_stack, the
# latency and the frames under the timer interrupt's entry (the preempted
# code, innermost first); then, over all such wakeups, how often each
# innermost frame came.
timerlat_report() {
	rm -f /tmp/tl-stacks.txt
	grep -v '^#' $TRACEFS/trace | awk -v w="$1" '
	# Latencies keyed by CPU: a stack follows the thread line of its CPU.
	function flush() { if (st) print lat[c] "\t" f >"/tmp/tl-stacks.txt"; st = 0 }
	function cpu() { return match($0, /\[[0-9]+\]/) ? substr($0, RSTART, RLENGTH) : "" }
	/context +thread timer_latency/ {
		flush(); lat[cpu()] = $(NF - 1); n++; sum += $(NF - 1)
		next
	}
	/<stack trace>/ { flush(); c = cpu(); st = 1; f = ""; under = 0; next }
	st && /^ *=> / {
		fn = $2
		if (under && nf < 8) { f = f " " fn; nf++ }
		if (!under && fn ~ /^asm_(sysvec_|common_interrupt)/) { under = 1; nf = 0 }
		next
	}
	{ flush() }
	END {
		flush()
		printf "# trace %s: timerlat thread latency: %d wakeups, average %d ns\n", w, n, n ? sum / n : 0
	}'
	touch /tmp/tl-stacks.txt
	sort -rn /tmp/tl-stacks.txt | head -n 25 |
		sed "s/^\([0-9]*\)\t/# trace $1: timerlat \1 ns, preempted in:/"
	cut -f 2 /tmp/tl-stacks.txt | awk '{ print $1 == "" ? "(none)" : $1 }' |
		sort | uniq -c | sort -rn | head -n 15 |
		sed "s/^/# trace $1: timerlat innermost preempted frame, wakeups: /"
	rm -f /tmp/tl-stacks.txt
}

# emit_cpu: what the guest's CPU model is and which mitigations the kernel
# chose for it (both follow QEMU's -cpu and the kernel config).
emit_cpu() {
	{
		sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
		for _f in /sys/devices/system/cpu/vulnerabilities/*; do
			[ -f "$_f" ] && echo "${_f##*/}: $(cat "$_f")"
		done
	} >/tmp/cpu.txt
	emit_file cpu.txt /tmp/cpu.txt
}

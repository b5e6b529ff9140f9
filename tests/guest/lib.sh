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

# Print a file between markers so the host can extract it from the log.
emit_file() {
	echo "HARNESS-BEGIN $1"
	cat "$2"
	echo "HARNESS-END $1"
}

# run_workloads CGROUP LIST FILE: run the stress-ng workloads named in LIST
# (comma-separated, from /tests/workloads.conf) one after the other, each
# started inside CGROUP, and append one JSON line per workload to FILE:
# guest ns per bogo op, or the error. A workload that fails or outlives
# harness.wtimeout (seconds, default 600) is reported and the next one
# runs. harness.wdiv=N divides every workload's bogo-op count by N (smoke
# runs).
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
			_why="stress-ng exit $_rc after ${_bogo:-no} of $_ops bogo ops"
			[ "$_rc" -ne 143 ] || _why="timed out after ${H_wtimeout:-600} s"
			echo "HARNESS-WORKLOAD-FAILED $_w: $_why"
			echo "{\"workload\":\"$_w\",\"error\":\"$_why\"}" >>"$_out"
			continue
		fi
		# Context switches per 1000 ops: on one vCPU, how often the
		# stressor's processes hand the CPU over depends on timing, and
		# a kernel that is faster somewhere can switch more per op.
		awk -v w="$_w" -v ops="$_bogo" -v rate="$_rate" -v c="$((_ctxt1 - _ctxt0))" 'BEGIN {
			printf "{\"workload\":\"%s\",\"ops\":%d,\"ns_per_op\":%.1f,\"ctxt_per_kop\":%.1f}\n", w, ops, 1e9 / rate, 1000 * c / ops }' >>"$_out"
	done
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

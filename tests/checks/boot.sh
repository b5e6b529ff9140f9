# shellcheck shell=bash
# The boot group: base and patched kernels boot in every mode and run the
# selftests; a test that passes on the base and fails patched fails here.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/tables.sh
. "$REPO_ROOT/scripts/lib/tables.sh"
# shellcheck source=scripts/lib/console.sh
. "$REPO_ROOT/scripts/lib/console.sh"

# The modes this tier boots (column boots of tests/modes.conf).
boot_tier=default
[ -z "$full" ] || boot_tier=full
IFS=, read -ra boot_modes <<<"$(boot_modes "$boot_tier")"
selftests=cgroup/test_kmem,cgroup/test_memcontrol,cgroup/test_core,cgroup/test_kmem_slab,mqueue/mq_open_tests,harness/stock,harness/detect

known_reason() {
	awk -v m="$1" -v t="$2" '!/^#/ && NF >= 3 && ($1 == m || $1 == "*") && $2 == t {
		$1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$REPO_ROOT/$BASE_KNOWN_FAILURES"
}

# compare_results MODE BASE-RESULTS PATCHED-RESULTS TEST
compare_one() {
	local mode=$1 b=$2 p=$3 t=$4 bs ps reason
	bs=$(awk -v t="$t" '$1 == t { print $2 }' "$b")
	ps=$(awk -v t="$t" '$1 == t { print $2 }' "$p")
	echo "base: ${bs:-missing}, patched: ${ps:-missing}"
	case "$ps" in
	pass | skip) return 0 ;;
	flaky) echo "failed once, passed when run again: flaky, not a regression"; return 0 ;;
	esac
	# A "*" entry is a base failure that does not depend on the mode (and
	# may come and go between runs): the base failing it in any mode of
	# this run is enough.
	if [ "$bs" != fail ] && [ -n "$(known_reason '*' "$t")" ] &&
		grep -Fqx "$t fail" "$logdir"/results-base-*.txt; then
		bs=fail
	fi
	if [ "$bs" = fail ]; then
		reason=$(known_reason "$mode" "$t")
		[ -n "$reason" ] || { echo "fails on the base too, but $BASE_KNOWN_FAILURES gives no reason"; return 1; }
		echo "known base failure: $reason"
		return 0
	fi
	echo "REGRESSION: passes on the base, fails patched"
	console_why "$logdir/boot-patched-$mode.log" "$t"
	console_why "$logdir/boot-patched-$mode-again.log" "$t"
	return 1
}

# base_fails TEST RESULTS: TEST failed on the base kernel; a skip there (a
# test that needs more CPUs than --cpus gave, e.g.) skips the check.
base_fails() {
	grep -qx "$1 fail" "$2" && return 0
	if grep -qx "$1 skip" "$2"; then
		echo "$1 was skipped on the base kernel with these guests ($cpus vCPUs): it cannot show that it fails there"
		return 77
	fi
	echo "$1 did not fail on the base kernel"
	return 1
}

# slot_pages KERNEL: how many pages a slot of the objcg stock keeps for an
# objcg: two with the series (each base's series has the two-page slot),
# one on the base kernel (harness/stock's stock_dead bound).
slot_pages() {
	if [ "$1" = base ]; then echo 1; else echo 2; fi
}

# boot_runs LOG ARGS...: the guest booted and its job ran to the end (the
# job's own result, e.g. failed selftests, is judged afterwards).
boot_runs() {
	local log=$1
	shift
	"$REPO_ROOT/scripts/boot-guest.sh" --log "$log" "$@" || true
	[ -n "$(console_result "$log")" ]
}

# noslab_line LOG yes|no: the boot log says slab accounting is off, or not.
noslab_line() {
	if grep -q 'slab objects are not charged to memory cgroups' "$1"; then
		[ "$2" = yes ]
	else
		[ "$2" = no ]
	fi
}

# boot_option NAME CMDLINE yes|no [WARNING]: the patched kernel booted with
# CMDLINE says that slab objects are not charged (yes) or not (no), and
# prints WARNING if given. (A parameter with a dot in its name that no
# handler takes is dropped silently, never passed on to init: before the
# kernel knew cgroup.nomemobj=<value>, such a value was simply ignored.)
boot_option() {
	local log="$logdir/boot-option-$1.log"
	boot_runs "$log" --timeout 600 --append "$2" --args true patched test root run || return 1
	grep -E 'slab objects are not charged|cgroup\.nomemobj' "$log" | grep -v 'command line' || true
	noslab_line "$log" "$3" || { echo "noslab line: expected $3"; return 1; }
	if [ -n "${4:-}" ] && ! grep -qF "$4" "$log"; then
		echo "no warning: $4"
		return 1
	fi
}

# try_kernel VARIANT APPEND SLAB STACKS: scripts/try-kernel.sh, given the
# VARIANT's test bzImage as a user's own kernel and APPEND on its command
# line, says slab objects are SLAB ("charged" or "not charged") and
# kernel stacks STACKS.
try_kernel() {
	local out
	out=$(OUT_DIR="$logdir/try-$1" "$REPO_ROOT/scripts/try-kernel.sh" --append "$2" \
		"$(build_dir "$1" test)/arch/x86/boot/bzImage" 2>&1) || { printf '%s\n' "$out"; return 1; }
	printf '%s\n' "$out"
	grep -q "^flag: slab objects .*: $3 (" <<<"$out" || { echo "slab objects: expected '$3'"; return 1; }
	grep -q "^flag: kernel stacks .*: $4 (" <<<"$out" || { echo "kernel stacks: expected '$4'"; return 1; }
}

group_boot() {
	cpus=${cpus:-${BASE_TEST_CPUS:-2}}
	note "group boot (guests with $cpus vCPUs)"
	for k in base patched; do
		check "boot: build $k kernel (test config)" "$REPO_ROOT/scripts/build-kernel.sh" "$k" test bzImage modules
		# kmem_bench.ko for harness/stock's destroy_kept (and whatever
		# else needs it): built for this kernel every time, so that no
		# module of an earlier build is what the guest gets.
		check "boot: build kmem_bench.ko for the $k kernel (test config)" \
			"$REPO_ROOT/scripts/build-kmem-bench.sh" "$k" test
	done
	check "boot: build the initramfs" "$REPO_ROOT/scripts/build-initramfs.sh"
	for m in "${boot_modes[@]}"; do
		for k in base patched; do
			log="$logdir/boot-$k-$m.log"
			check "boot: $k kernel boots in mode $m and runs the selftests ($cpus vCPUs)" \
				boot_runs "$log" --smp "$cpus" --timeout 1500 \
				--args "$selftests${BASE_EXTRA_SELFTESTS:+,$BASE_EXTRA_SELFTESTS}" \
				--append "harness.slot_pages=$(slot_pages "$k")" "$k" test "$m" selftests
			# A non-zero job result only means some test failed:
			# the comparison below decides.
			"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-$k-$m.txt" 2>/dev/null || true
		done
	done
	# A test that fails patched but passed on the base gets one more run
	# (timing-dependent tests flake under emulation); only a test that
	# fails both times counts as a regression.
	for m in "${boot_modes[@]}"; do
		res="$logdir/results-patched-$m.txt"
		again=$(awk 'NR == FNR { b[$1] = $2; next }
			$2 == "fail" && b[$1] != "fail" { sub(/:.*/, "", $1); print $1 }' \
			"$logdir/results-base-$m.txt" "$res" | sort -u | paste -sd, -)
		[ -n "$again" ] || continue
		log="$logdir/boot-patched-$m-again.log"
		check "boot: patched kernel in mode $m runs $again again (failures the base does not have)" \
			boot_runs "$log" --smp "$cpus" --timeout 1500 --args "$again" patched test "$m" selftests
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-patched-$m-again.txt" 2>/dev/null || true
		awk 'NR == FNR { a[$1] = $2; next }
			$2 == "fail" && a[$1] == "pass" { $2 = "flaky" } { print }' \
			"$logdir/results-patched-$m-again.txt" "$res" >"$res.tmp"
		mv "$res.tmp" "$res"
	done
	for m in "${boot_modes[@]}"; do
		# Every test either kernel reported: one that ran on the base but
		# never on the patched kernel (it crashed first) counts too.
		mapfile -t tests < <(cut -d' ' -f1 "$logdir/results-base-$m.txt" "$logdir/results-patched-$m.txt" | sort -u)
		for t in "${tests[@]}"; do
			check "boot: [$m] $t" compare_one "$m" "$logdir/results-base-$m.txt" "$logdir/results-patched-$m.txt" "$t"
			if grep -q '^known base failure\|^failed once' "$last_log"; then
				note "  $(grep '^known base failure\|^failed once' "$last_log")"
			fi
		done
		# The kernel says so where it charges kmem but not slab
		# objects (columns slab and kmem of tests/modes.conf).
		expect=no
		if ! mode_charges "$m" slab && mode_charges "$m" kmem; then
			expect=yes
		fi
		check "boot: [$m] boot log says slab objects are not charged: $expect" \
			noslab_line "$logdir/boot-patched-$m.log" "$expect"
	done
	# A mistyped cgroup.memory= option is reported, and the options next
	# to it still count.
	check "boot: an unknown cgroup.memory= option is reported, noslab beside it taken" \
		boot_option unknown cgroup.memory=nosuch,noslab yes \
		'cgroup.memory: unknown option "nosuch" ignored'
	# What the kernel makes of cgroup.nomemobj=<value> (the bases that
	# know it) and of noslab with the memory controller off
	# (cgroup_disable=memory).
	if [ -n "$full" ]; then
		if [[ ,$(base_modes), == *,nomemobj,* ]]; then
			check "boot: cgroup.nomemobj=1 turns slab accounting off" \
				boot_option nomemobj1 cgroup.nomemobj=1 yes
			check "boot: cgroup.nomemobj=0 is accepted, another value reported" \
				boot_option nomemobj0 "cgroup.nomemobj=0 cgroup.nomemobj=maybe" no \
				'cgroup.nomemobj: invalid value "maybe" ignored'
		fi
		check "boot: no noslab line with cgroup_disable=memory" \
			boot_option memcgoff "cgroup_disable=memory cgroup.memory=noslab" no
	fi
	# A kernel of one's own with the flag (README: scripts/try-kernel.sh):
	# the patched kernel leaves slab objects uncharged, the base ignores
	# the option.
	check "boot: try-kernel.sh: patched kernel with cgroup.memory=noslab charges kernel stacks, not slab objects" \
		try_kernel patched cgroup.memory=noslab "not charged" charged
	check "boot: try-kernel.sh: base kernel with cgroup.memory=noslab still charges slab objects" \
		try_kernel base cgroup.memory=noslab charged charged
	# Third-party workloads run in the guest (a smoke run on the newest
	# base: two stressors and two hackbench runs, a tenth of their bogo
	# ops and loops; --full: every base; scripts/run-bench.sh --workloads
	# measures).
	if [ -n "$full" ] || [ "$BASE" = "$(list_bases | tail -n 1)" ]; then
		check "boot: patched kernel runs the workloads mq, open, hackbench-sock-proc and hackbench-pipe-thread (mode default)" \
			"$REPO_ROOT/scripts/boot-guest.sh" --log "$logdir/boot-patched-workloads.log" --timeout 900 \
			--append "harness.workloads=mq,open,hackbench-sock-proc,hackbench-pipe-thread harness.wdiv=10" \
			patched test default workloads
	fi
	# Tests that must be able to fail: the base fails them (BASE_MUST_FAIL:
	# mode:program:test, what the series fixes or adds there).
	for mf in ${BASE_MUST_FAIL:-}; do
		m=${mf%%:*} t=${mf#*:}
		check "boot: $t catches the base (fails there in mode $m)" \
			base_fails "$t" "$logdir/results-base-$m.txt"
	done
}

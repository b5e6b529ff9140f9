# shellcheck shell=bash
# The configs group (--full): the patched kernel where objects kept charged
# break first. PREEMPT_RT with lockdep and kmemleak (config set rt: the
# sheaves' local locks and the objcg stock's become sleeping locks, and
# kmalloc_nolock() fails in hard irq), and two NUMA nodes of two vCPUs
# each (config set numa: one objcg per node and memcg, remote frees,
# per-node barns). Each boots in mode default and runs the stock tests
# (nolock_irq among them: kmalloc_nolock() from hard irq, on RT from
# softirq) and the kmem selftests; any splat in the console fails.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir and the
# helpers of tests/checks/debug.sh and boot.sh (boot_runs, results_ok,
# no_splat, debug_stock_tests).
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"

# numa_nodes LOG N: the guest of console log LOG brought up N memory nodes
# (the kernel prints "Initmem setup node I" for each).
numa_nodes() {
	local n
	n=$(grep -c 'Initmem setup node [0-9]' "$1" || :)
	[ "$n" = "$2" ] || { echo "$1: $n nodes set up, not $2"; return 1; }
}

# rt_kernel LOG: the guest of console log LOG ran a PREEMPT_RT kernel.
rt_kernel() {
	grep -q 'PREEMPT_RT' "$1" || { echo "$1: no PREEMPT_RT in the kernel's version line"; return 1; }
}

group_configs() {
	note "group configs"
	local cs log args stock smp
	if [ -z "${BASE_CONFIG_SETS:-}" ]; then
		note "base $BASE has no BASE_CONFIG_SETS: nothing to run"
		return
	fi
	# Every stock test, both tiers of the debug group's table: these
	# kernels are the only ones that run them in their configuration.
	if ! stock=$(debug_stock_tests debug) || ! stock+=,$(debug_stock_tests full); then
		check "configs: the stock tests' table can be read" \
			sh "$REPO_ROOT/tests/guest/stock-tests.sh" --list
		return
	fi
	for cs in $BASE_CONFIG_SETS; do
		check "configs: build the patched kernel, config set $cs ($(configset_fragments "$cs" | sed 's/.* selftests //'))" \
			"$REPO_ROOT/scripts/build-kernel.sh" patched "$cs" bzImage modules
		check "configs: build kmem_bench.ko for the $cs kernel" \
			"$REPO_ROOT/scripts/build-kmem-bench.sh" patched "$cs"
	done
	check "configs: build the initramfs" "$REPO_ROOT/scripts/build-initramfs.sh"
	args=harness/stock,cgroup/test_kmem,cgroup/test_kmem_slab,cgroup/test_kmem_locks
	for cs in $BASE_CONFIG_SETS; do
		log="$logdir/$cs-default.log"
		smp=(--smp 2)
		[ "$cs" != numa ] || smp=(--smp 4 --numa 2)
		# no5lvl: see tests/checks/debug.sh.
		check "configs: [$cs] the $cs kernel (${smp[*]}) boots, runs ${args//,/, }" \
			boot_runs "$log" --timeout 3600 --mem 2048 "${smp[@]}" \
			--append "no5lvl harness.timeout=1800 harness.stock=$stock" \
			--args "$args" patched "$cs" default selftests
		case $cs in
		rt) check "configs: [rt] the guest ran PREEMPT_RT" rt_kernel "$log" ;;
		numa) check "configs: [numa] the guest had two NUMA nodes" numa_nodes "$log" 2 ;;
		esac
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-$cs.txt" 2>/dev/null || true
		check "configs: [$cs] the stock tests and selftests pass (or fail as on the base)" \
			results_ok default "$logdir/results-$cs.txt"
		check "configs: [$cs] no WARNING, BUG, lockdep, KASAN or kmemleak report" no_splat "$log"
	done
}

# shellcheck shell=bash
# The debug group: the patched kernel with lockdep, kmemleak and DEBUG_VM
# (--full: and KASAN, fault injection) runs the kmem selftests, the stock
# tests and a cgroup churn; any splat fails.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"

# no_splat LOG: the console log has no warning, BUG, lockdep or KASAN
# report and no kmemleak leak; else list the report lines and, last (a
# failed check shows its last 25 lines), the first report in short.
splat_re='WARNING:|BUG:|KASAN:|INFO: possible|inconsistent lock state|circular locking|unreferenced object|Kernel panic|Oops|general protection fault'
no_splat() {
	[ -s "$1" ] || { echo "no console log at $1"; return 1; }
	grep -qE "$splat_re" "$1" || { echo "no splat in $1"; return 0; }
	grep -nE "$splat_re" "$1" | head -n 20
	echo "first report, in short:"
	splat_summary "$1"
	return 1
}

# splat_summary LOG: the first report of LOG in at most 22 lines: its first
# lines, the top of its call trace, and the first frames of KASAN's
# "Allocated by", "Freed by" and "belongs to" sections.
splat_summary() {
	awk -v re="$splat_re" '
		!on && $0 ~ re { on = 1; left = 22 }
		!on { next }
		left <= 0 { exit }
		/Call Trace:|^(Allocated|Freed) by task|belongs to the|^Last potentially related/ { sec = 0; take = 10 }
		sec < 4 || take > 0 { print; left--; sec++; take-- }
	' "$1"
}

# results_ok MODE RESULTS: every failure in RESULTS is a known base failure.
results_ok() {
	local t st bad=0
	[ -s "$2" ] || { echo "no results in $2 (the boot gave none)"; return 1; }
	while read -r t st; do
		[ "$st" = fail ] || continue
		if [ -n "$(known_reason "$1" "$t")" ]; then
			echo "$t: known base failure"
		else
			echo "$t: FAILED"
			bad=1
		fi
	done <"$2"
	return $bad
}

# debug_stock_tests TIER: the stock tests of that tier of this group
# (tests/guest/stock-tests.sh --list TIER), comma-separated.
debug_stock_tests() {
	sh "$REPO_ROOT/tests/guest/stock-tests.sh" --list "$1" | paste -sd, -
}

group_debug() {
	note "group debug"
	# The debug kernel (lockdep, kmemleak, DEBUG_VM) has no KASAN, whose
	# quarantine would keep every free from the objects kept charged;
	# --full adds the kasan kernel (the same plus generic KASAN).
	debug_sets=(debug)
	[ -z "$full" ] || debug_sets+=(kasan)
	for ds in "${debug_sets[@]}"; do
		check "debug: build the patched kernel, config set $ds ($(configset_fragments "$ds" | sed 's/.* selftests //'))" \
			"$REPO_ROOT/scripts/build-kernel.sh" patched "$ds" bzImage modules
		# kmem_bench.ko for the stock tests' failed bulk allocation.
		check "debug: build kmem_bench.ko for the $ds kernel" \
			"$REPO_ROOT/scripts/build-kmem-bench.sh" patched "$ds"
	done
	check "debug: build the initramfs" "$REPO_ROOT/scripts/build-initramfs.sh"
	# The stock tests (1000 cgroups alone take ~10 min on this kernel
	# under TCG) run in mode default, where the objcg stock is at work;
	# the boot group runs them in every mode on the test kernel.
	debug_runs=(debug:default)
	[ -z "$full" ] || debug_runs+=(debug:noslab kasan:default)
	for run in "${debug_runs[@]}"; do
		ds=${run%%:*} m=${run#*:}
		log="$logdir/$ds-$m.log"
		args=cgroup/test_kmem,cgroup/test_kmem_slab
		[ "$m" = default ] && args+=,harness/stock
		# The stock tests of the default tier, then (--full) those of
		# the full tier: the table of tests/guest/stock-tests.sh says
		# which and why.
		# A table that cannot be read fails a check, not the base's run.
		if ! stock=$(debug_stock_tests debug) ||
			{ [ -n "$full" ] && ! stock+=,$(debug_stock_tests full); }; then
			check "debug: [$ds $m] the stock tests' table can be read" \
				sh "$REPO_ROOT/tests/guest/stock-tests.sh" --list
			continue
		fi
		# no5lvl: 7.2's identify_cpu() clears the boot CPU's
		# capabilities, X86_FEATURE_LA57 included, with interrupts on,
		# until CPUID is read again. Before alternatives are patched
		# pgtable_l5_enabled() tests that bit, so an interrupt in that
		# window sees KASAN_SHADOW_START of 4-level paging, and its
		# first access to the 5-level direct map (0xff11...) is a
		# "wild-memory-access" (CI, 2026-12-01; 1 boot in 42 here with
		# the host loaded). That is not what this group tests: 4-level
		# paging has no such window.
		check "debug: [$ds $m] $ds kernel boots, runs ${args//,/, } and cgroup churn" \
			boot_runs "$log" --timeout 3600 --mem 1024 \
			--append "no5lvl harness.churn=30 harness.timeout=1800 harness.stock=$stock" \
			--args "$args" patched "$ds" "$m" debug
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-$ds-$m.txt" 2>/dev/null || true
		check "debug: [$ds $m] selftests and churn pass (or fail as on the base)" \
			results_ok "$m" "$logdir/results-$ds-$m.txt"
		check "debug: [$ds $m] no WARNING, BUG, lockdep, KASAN or kmemleak report" no_splat "$log"
	done
	if [ -n "$full" ] && [ -n "${BASE_FAULTINJ_MUST_FAIL:-}" ]; then
		# The bulk_error test must be able to fail: the base keeps the
		# charge of the objects a failed bulk allocation never got.
		check "debug: build the base kernel with fault injection" \
			"$REPO_ROOT/scripts/build-kernel.sh" base faultinj bzImage modules
		check "debug: build kmem_bench.ko for it" "$REPO_ROOT/scripts/build-kmem-bench.sh" base faultinj
		log="$logdir/faultinj-base.log"
		check "debug: base kernel with fault injection runs harness/stock bulk_error" \
			boot_runs "$log" --timeout 900 --append harness.stock=bulk_error \
			--args harness/stock base faultinj default selftests
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-faultinj-base.txt" 2>/dev/null || true
		check "debug: harness/stock bulk_error catches the charge a failed bulk allocation leaks (base fails it)" \
			grep -qx 'harness/stock:bulk_error fail' "$logdir/results-faultinj-base.txt"
	fi
}

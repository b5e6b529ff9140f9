# shellcheck shell=bash
# The arm64 group: the patched kernel of config set arm64-kasan (the debug
# set's lockdep, kmemleak, DEBUG_VM and fault injection, with software
# tag-based KASAN, which has no quarantine: every free reaches the objects
# kept charged) on qemu-system-aarch64 -M virt under TCG. Two boots: the
# kmem selftests, the stock tests of the debug group's default tier and a
# cgroup churn, where any report fails; then harness/stock kasan_kept
# alone (its KASAN reports taint the kernel, which turns lockdep off),
# where the one use-after-free and the one double-free report of that
# test are the only reports allowed, and only between its markers.
# Sourced by scripts/run-tests.sh; uses check(), note() and logdir of
# tests/checks/lib.sh, boot_runs() and known_reason() of boot.sh, and
# no_splat(), results_ok() and debug_stock_tests() of debug.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=tests/checks/debug.sh
. "$REPO_ROOT/tests/checks/debug.sh"

# kasan_kept_only LOG: the reports in LOG are exactly those kasan_kept
# provokes: between its two markers (tests/guest/stock-tests.sh) one
# "BUG: KASAN: ...use-after-free" line and one "BUG: KASAN: double-free"
# (or invalid-free) line, and no_splat finds nothing else anywhere, inside
# the markers or outside (only those two lines are taken out of the log
# it reads: any other report line stays and fails it).
kasan_kept_only() {
	local rest=$1.rest
	awk '
		/stock-tests: kasan_kept: misuse begins/ { on = 1; wins++ }
		/stock-tests: kasan_kept: misuse ends/ { on = 0 }
		on && /BUG: KASAN: [a-z-]*use-after-free / { uaf++; next }
		on && /BUG: KASAN: (double-free|invalid-free) / { dbl++; next }
		{ print }
		END {
			printf "kasan_kept: %d windows, %d use-after-free and %d double-free reports in them (1, 1 and 1 expected)\n", wins, uaf, dbl > "/dev/stderr"
			exit !(wins == 1 && uaf == 1 && dbl == 1)
		}' "$1" >"$rest" || return 1
	grep -E 'BUG: KASAN:' "$1" || true
	no_splat "$rest" && kmemleak_on "$1"
}

# kmemleak_on LOG: kmemleak did not turn itself off (it does on an error
# of its own, e.g. an object allocated twice), which no_splat does not see.
kmemleak_on() {
	! grep -n 'Kernel memory leak detector disabled' "$1"
}

group_arm64() {
	local log stock
	# The kept objects are the mainline series' (the newest base): the
	# backports keep none, so kasan_kept would prove nothing there.
	if [ "$BASE" != "$(list_bases | tail -n 1)" ]; then
		note "group arm64: only on the newest base, whose series keeps freed objects charged"
		return 0
	fi
	note "group arm64 (config set arm64-kasan on qemu-system-aarch64 -M virt, TCG)"
	check "arm64: build the patched kernel, config set arm64-kasan ($(configset_fragments arm64-kasan | sed 's/.* selftests //'))" \
		"$REPO_ROOT/scripts/build-kernel.sh" patched arm64-kasan Image modules
	check "arm64: build kmem_bench.ko for the arm64-kasan kernel" \
		"$REPO_ROOT/scripts/build-kmem-bench.sh" patched arm64-kasan
	check "arm64: build the arm64 initramfs" "$REPO_ROOT/scripts/build-initramfs.sh" --arch arm64
	if ! stock=$(debug_stock_tests debug); then
		check "arm64: the stock tests' table can be read" \
			sh "$REPO_ROOT/tests/guest/stock-tests.sh" --list
		return
	fi
	# Not nolock_irq: tag-based KASAN records every allocation in its
	# stack ring under a rwlock_t (save_stack_info() in mm/kasan/tags.c),
	# which kmalloc_nolock() from a hard irq takes there too: lockdep's
	# "BUG: Invalid wait context" (raw lock nesting) on the base kernel as
	# on the patched one (seen on both), not a report of the series.
	stock=$(printf '%s\n' "${stock//,/$'\n'}" | grep -vx nolock_irq | paste -sd, -)
	log="$logdir/arm64-kasan-default.log"
	check "arm64: [arm64-kasan default] boots, runs cgroup/test_kmem, cgroup/test_kmem_slab, harness/stock and cgroup churn" \
		boot_runs "$log" --timeout 3600 --mem 1024 \
		--append "kasan.fault=report harness.churn=30 harness.timeout=1800 harness.stock=$stock" \
		--args cgroup/test_kmem,cgroup/test_kmem_slab,harness/stock patched arm64-kasan default debug
	"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-arm64-kasan-default.txt" 2>/dev/null || true
	check "arm64: [arm64-kasan default] selftests and churn pass (or fail as on the base)" \
		results_ok default "$logdir/results-arm64-kasan-default.txt"
	check "arm64: [arm64-kasan default] no WARNING, BUG, lockdep, KASAN or kmemleak report" no_splat "$log"
	check "arm64: [arm64-kasan default] kmemleak stayed on" kmemleak_on "$log"
	# KASAN reports only its first bug without kasan_multi_shot; a
	# report must not end the guest (kasan.fault=report, no
	# panic_on_warn).
	log="$logdir/arm64-kasan-kasan_kept.log"
	check "arm64: [arm64-kasan default] boots and runs harness/stock kasan_kept" \
		boot_runs "$log" --timeout 1800 --mem 1024 \
		--append "kasan_multi_shot kasan.fault=report harness.stock=kasan_kept" \
		--args harness/stock patched arm64-kasan default selftests
	"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-arm64-kasan-kasan_kept.txt" 2>/dev/null || true
	check "arm64: harness/stock kasan_kept passes: KASAN reports the use after free and the double free of an object kept charged, the double free does not reach the sheaf, nothing stays charged" \
		grep -qx 'harness/stock:kasan_kept pass' "$logdir/results-arm64-kasan-kasan_kept.txt"
	check "arm64: [arm64-kasan default] no report but kasan_kept's use after free and double free" \
		kasan_kept_only "$log"
}

#!/bin/sh
# Guest TAP test of test_kmem_slab's detection of kernel stacks that are
# slab objects (a "thread_stack" cache: THREAD_SIZE below PAGE_SIZE
# without VMAP_STACK, e.g. ppc64 with 64K pages), which no x86 guest has:
#   stack_detect    test_kmem_slab, run in a mount namespace whose
#                   /sys/kernel/slab shows a thread_stack cache, skips
#                   test_kernel_stacks (and still runs its other tests)
# Runs like a selftest (/tests/selftests/harness/detect), only in the
# modes where the kernel charges slab objects (root, default: column slab
# of tests/modes.conf): the detection does not depend on the mode.
# shellcheck shell=sh
# shellcheck source=tests/guest/lib.sh
. "${GUEST_LIB:-/tests/lib.sh}"
echo "TAP version 13"
echo "1..1"
if ! mode_charges "$(guest_mode)" slab; then
	echo "ok 1 stack_detect # SKIP runs where slab objects are charged (mode default)"
	exit 0
fi
prog=/tests/selftests/cgroup/test_kmem_slab
[ -x "$prog" ] || { echo "not ok 1 stack_detect # no $prog"; exit 1; }
# shellcheck disable=SC2016 # $1 is the inner shell's
out=$(unshare -m sh -c 'mount -t tmpfs fake /sys/kernel/slab &&
	mkdir /sys/kernel/slab/thread_stack && exec "$1"' _ "$prog" 2>&1)
echo "$out" | sed 's/^/# /'
# kselftest.h writes a skip as "ok N # SKIP test_kernel_stacks".
if echo "$out" | grep -q '^ok [0-9]* # SKIP test_kernel_stacks$' &&
	echo "$out" | grep -q '^ok [0-9]* test_percpu$'; then
	echo "ok 1 stack_detect"
else
	echo "not ok 1 stack_detect # test_kernel_stacks not skipped (or the others did not run)"
	exit 1
fi

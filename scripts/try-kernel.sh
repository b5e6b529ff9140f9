#!/bin/bash
# Boot a kernel you built yourself under QEMU with a small initramfs of the
# harness (busybox and tests/guest/job-flag.sh) and print what it charges
# to a memory cgroup: slab objects, and kernel stacks (kernel memory in
# whole pages), each "charged" or "not charged", with the boot log's memcg
# lines. Nothing of the harness's own builds or bases is needed.
# The kernel needs, built in: MEMCG, cgroup v2, DEVTMPFS, TMPFS,
# BLK_DEV_INITRD and the 8250 serial console (Debian's kernels have them);
# BLK_DEV_RAM is used when there.
# Usage: scripts/try-kernel.sh [options] BZIMAGE
#   --append STR    kernel command-line arguments, e.g. cgroup.memory=noslab
#   --accel A       kvm or tcg (default: kvm when /dev/kvm runs a guest)
#   --smp N         guest CPUs (default 2)
#   --timeout S     seconds before the guest counts as hung (default 600)
# Example: sudo scripts/try-kernel.sh --append cgroup.memory=noslab \
#              /path/to/linux/arch/x86/boot/bzImage
# Console log: $OUT_DIR/try-kernel/console.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/guest.sh
. "$REPO_ROOT/scripts/lib/guest.sh"

opts=() kernel=''
while [ $# -gt 0 ]; do
	case "$1" in
	--append | --accel | --smp | --timeout)
		[ $# -ge 2 ] || die "$1 needs a value (see $0 --help)"
		opts+=("$1" "$2")
		shift
		;;
	-h | --help) print_usage "$0"; exit 0 ;;
	-*) die "unknown option '$1' (see $0 --help)" ;;
	*)
		[ -z "$kernel" ] || die "one kernel only (see $0 --help)"
		kernel=$1
		;;
	esac
	shift
done
[ -n "$kernel" ] || die "no kernel given (see $0 --help)"
# The options' values, before anything is made (boot-guest.sh checks
# them again).
for ((i = 0; i < ${#opts[@]}; i += 2)); do
	v=${opts[i + 1]}
	case "${opts[i]}" in
	--accel) [[ $v == kvm || $v == tcg ]] || die "--accel wants kvm or tcg, got '$v'" ;;
	--smp) [[ $v =~ ^[1-9][0-9]?$ ]] || die "--smp wants a number of CPUs, got '$v'" ;;
	--timeout) [[ $v =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, got '$v'" ;;
	esac
done
[ -f "$kernel" ] || die "no file $kernel"
# An x86 boot image has "HdrS" at offset 0x202.
[ "$(dd if="$kernel" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ] ||
	die "$kernel is not an x86 bzImage (arch/x86/boot/bzImage of a kernel build)"
need_busybox
need_cmd cpio cpio

dir="$OUT_DIR/try-kernel"
stage="$dir/initramfs.d"
stage_guest "$stage"
install -m 0755 "$REPO_ROOT/tests/guest/job-flag.sh" "$stage/tests/"
pack_cpio "$stage" "$dir/initramfs.cpio"
rm -rf "$stage"

rc=0
"$REPO_ROOT/scripts/boot-guest.sh" --kernel "$kernel" --initrd "$dir/initramfs.cpio" \
	--log "$dir/console.log" --timeout 600 "${opts[@]}" - - default flag || rc=$?
grep -s '^flag: ' "$dir/console.log" || true
[ "$rc" -eq 0 ] || die "the guest job failed (exit $rc; console log: $dir/console.log)"

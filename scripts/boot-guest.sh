#!/bin/bash
# Boot a built kernel in QEMU with the harness initramfs and run one guest
# job. The serial console goes to a log file; the job's exit code becomes
# this script's exit code.
# Usage: scripts/boot-guest.sh [options] base|patched|floor|pN|base+N[+M...]|SERIES|base+SERIES CONFIGSET MODE JOB
#   MODE: a mode of the base from tests/modes.conf (root, default, noslab,
#     nokmem; nomemobj on 6.12 and 6.1)
#   JOB:  a guest job (tests/guest/job-JOB.sh): bench, selftests, ...
# Options:
#   --icount        TCG with -icount shift=0,sleep=off and -seed 1 (exact,
#                   repeatable; guest ns = guest instructions). Default for
#                   JOB=bench and JOB=workloads.
#   --accel A       kvm or tcg (default: kvm when /dev/kvm is usable)
#   --timeout S     seconds before the guest counts as hung (default 900)
#   --mem M         guest memory in MiB (default 2048; bench 512,
#                   workloads 1024)
#   --smp N         guest CPUs (default 2; 1 for bench and workloads)
#   --numa N        N NUMA nodes (QEMU -numa: an ACPI SRAT; a kernel of
#                   config set numa), the CPUs and memory split evenly in
#                   order: --smp 4 --numa 2 puts vCPUs 0-1 on node 0 and
#                   2-3 on node 1
#   --append STR    more kernel command-line arguments
#   --args STR      harness.args for the job (e.g. selftest list)
#   --log FILE      console log (default $OUT_DIR/logs/...)
#   --kernel FILE   boot this bzImage (arm64: Image) instead of the
#                   variant's build
#   --initrd FILE   boot with this initramfs as it is (no modules added)
#                   instead of the harness's; with --kernel and --initrd,
#                   VARIANT and CONFIGSET may be '-' (a kernel of your own,
#                   scripts/try-kernel.sh)
#   --plugin SPEC   load a QEMU TCG plugin (-plugin SPEC; TCG only), e.g.
#                   scripts/profile-workload.sh's instruction counter
#   --dry-run       print the guest's harness.* keys, one a line, and the
#                   QEMU command (shell-quoted; it boots the initramfs
#                   this would make, kept in a directory it names), and
#                   boot nothing (no KVM probe either: KVM only if an
#                   earlier boot found it usable)
# A config set named arm64-* (scripts/lib/kernels.sh: configset_arch)
# boots arm64: qemu-system-aarch64 -M virt -cpu max under TCG (no KVM on
# this x86 host), console ttyAMA0, the arm64 initramfs
# (build-initramfs.sh --arch arm64); no --numa or --icount there.
# The guest's side: tests/contract.conf (the harness.* keys a job reads,
# the HARNESS-* lines it prints, the exit codes); a harness.* key it does
# not list is refused. The console log is read by scripts/console.awk.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/guest.sh
. "$REPO_ROOT/scripts/lib/guest.sh"
# shellcheck source=scripts/lib/tables.sh
. "$REPO_ROOT/scripts/lib/tables.sh"
# shellcheck source=scripts/lib/console.sh
. "$REPO_ROOT/scripts/lib/console.sh"

pos=()
icount='' accel='' kernel='' initrd='' plugin='' timeout=900 mem='' smp='' numa='' append='' args='' log='' method='' dry=''
while [ $# -gt 0 ]; do
	case "$1" in
	--icount) icount=1 ;;
	--dry-run) dry=1 ;;
	--accel | --timeout | --mem | --smp | --numa | --append | --args | --log | --kernel | --initrd | --plugin)
		[ $# -ge 2 ] || die "$1 needs a value (see $0 --help)"
		case "$1" in
		--accel) accel=$2 ;;
		--timeout) timeout=$2 ;;
		--mem) mem=$2 ;;
		--smp) smp=$2 ;;
		--numa) numa=$2 ;;
		--append) append=$2 ;;
		--args) args=$2 ;;
		--log) log=$2 ;;
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--plugin) plugin=$2 ;;
		esac
		shift
		;;
	-h | --help) print_usage "$0"; exit 0 ;;
	-) pos+=("$1") ;;
	-*) die "unknown option '$1' (see $0 --help)" ;;
	*) pos+=("$1") ;;
	esac
	shift
done
[ ${#pos[@]} -eq 4 ] ||
	die "usage: $0 [options] base|patched|floor|pN|base+N[+M...]|SERIES|base+SERIES CONFIGSET MODE JOB (see --help)"
load_base
variant=${pos[0]} set=${pos[1]} mode=${pos[2]} job=${pos[3]}
if [ "$variant" = - ] || [ "$set" = - ]; then
	if [ -z "$kernel" ] || [ -z "$initrd" ]; then
		die "VARIANT or CONFIGSET '-' needs --kernel and --initrd (see --help)"
	fi
	arch=x86_64
else
	tree_dir "$variant" >/dev/null
	configset_fragments "$set" >/dev/null
	arch=$(configset_arch "$set")
fi
if [ ! -f "$REPO_ROOT/tests/guest/job-$job.sh" ]; then
	jobs=$(cd "$REPO_ROOT/tests/guest" && for f in job-*.sh; do f=${f#job-}; echo "${f%.sh}"; done | paste -sd' ' -)
	die "unknown job '$job' (jobs: $jobs)"
fi
cg=$(mode_field "$mode" 2)
flags=$(mode_field "$mode" 3)
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, got '$timeout'"
[ -z "$mem" ] || [[ $mem =~ ^[1-9][0-9]*$ ]] || die "--mem wants MiB, got '$mem'"
[ -z "$smp" ] || [[ $smp =~ ^[1-9][0-9]?$ ]] || die "--smp wants a number of CPUs, got '$smp'"
[ -z "$numa" ] || [[ $numa =~ ^[1-8]$ ]] || die "--numa wants a number of nodes (1..8), got '$numa'"
case "$accel" in '' | kvm | tcg) ;; *) die "--accel wants kvm or tcg, got '$accel'" ;; esac
if [ "$arch" = x86_64 ]; then
	need_cmd qemu-system-x86_64 qemu-system-x86
else
	need_cmd qemu-system-aarch64 qemu-system-arm
	[ -z "$numa" ] || die "--numa: not on an arm64 guest"
	[ -z "$icount" ] || die "--icount: not on an arm64 guest (job $job)"
	[ -z "$accel" ] || [ "$accel" = tcg ] || die "--accel $accel: an arm64 guest runs under TCG"
	accel=tcg
fi
if [ -z "$kernel" ]; then
	# A build that failed may still hold the kernel it was copied from.
	[ -f "$(build_dir "$variant" "$set")/.harness-source" ] ||
		die "no complete $variant/$set build (run scripts/build-kernel.sh $variant $set)"
	kernel=$(kernel_image_path "$(build_dir "$variant" "$set")" "$arch")
fi
[ -f "$kernel" ] || die "no kernel at $kernel (run scripts/build-kernel.sh $variant $set)"

# KVM when /dev/kvm is there and a guest really runs on it (a nested
# /dev/kvm can exist and hang): probe once per host boot, cache the answer.
pick_accel() {
	local cache
	cache="$CACHE_DIR/kvm-usable.$(cat /proc/sys/kernel/random/boot_id)"
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	if [ ! -f "$cache" ]; then
		msg "probing KVM (up to 20 s)"
		if timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
			-display none -nodefaults -serial stdio -no-reboot \
			-kernel "$1" -append "console=ttyS0 panic=-1" </dev/null 2>/dev/null |
			grep -q -m 1 'Linux version'; then
			echo kvm >"$cache"
		else
			echo tcg >"$cache"
			msg "/dev/kvm does not run a guest here: using TCG"
		fi
	fi
	cat "$cache"
}
case "$job" in
bench) icount=${icount:-1} mem=${mem:-512} smp=${smp:-1} ;;
workloads) icount=${icount:-1} mem=${mem:-1024} smp=${smp:-1} ;;
esac
mem=${mem:-2048} smp=${smp:-2}
if [ -n "$icount" ]; then
	[ -z "$accel" ] || [ "$accel" = tcg ] || die "--icount needs TCG, not --accel $accel"
	accel=tcg
	method="QEMU TCG -icount shift=0,sleep=off (guest ns = guest instructions)"
else
	if [ -z "$accel" ] && [ -n "$dry" ]; then
		# A dry run boots nothing, not even the KVM probe: the
		# probe's cached answer, else TCG.
		accel=$(cat "$CACHE_DIR/kvm-usable.$(cat /proc/sys/kernel/random/boot_id)" 2>/dev/null || echo tcg)
	fi
	[ -n "$accel" ] || accel=$(pick_accel "$kernel")
	method="QEMU $accel (wall-clock ns)"
fi

mods='' initrd_given=$initrd
if [ -n "$initrd" ]; then
	[ -f "$initrd" ] || die "no initramfs at $initrd"
else
	initrd=$(initramfs_path "$arch")
	[ -f "$initrd" ] || die "no initramfs at $initrd (run scripts/build-initramfs.sh$([ "$arch" = x86_64 ] || echo " --arch $arch"))"
	mods="$(build_dir "$variant" "$set")/harness-modules.cpio"
fi

mkdir -p "$OUT_DIR/logs"
log=${log:-$OUT_DIR/logs/$variant-$set-$mode-$job.log}
rundir=$(mktemp -d)
[ -n "$dry" ] || trap 'rm -rf "$rundir"' EXIT
# Linux unpacks concatenated cpio archives: add the kernel's own modules,
# and PostgreSQL for the workloads job's pgbench runs.
cat "$initrd" >"$rundir/initrd"
[ -z "$mods" ] || [ ! -f "$mods" ] || cat "$mods" >>"$rundir/initrd"
if [ "$job" = workloads ] && [ -z "$initrd_given" ] && [ -f "$(pgsql_cpio_path)" ]; then
	cat "$(pgsql_cpio_path)" >>"$rundir/initrd"
fi

console=ttyS0
[ "$arch" = x86_64 ] || console=ttyAMA0
cmdline="console=$console panic=-1 oops=panic brd.rd_nr=1 brd.rd_size=524288"
cmdline+=" harness.job=$job harness.cg=$cg${args:+ harness.args=$args}"
cmdline+="${flags:+ $flags}${append:+ $append}"
check_harness_keys "$cmdline"

if [ "$arch" = x86_64 ]; then
	qemu=(qemu-system-x86_64 -machine q35)
else
	qemu=(qemu-system-aarch64 -machine virt)
fi
smparg=$smp
if [ -n "$numa" ]; then
	if [ $((smp % numa)) != 0 ] || [ $((mem % numa)) != 0 ]; then
		die "--numa $numa: the $smp vCPUs and $mem MiB must split evenly over the nodes"
	fi
	# A socket a node: CPUs of one socket share a last-level cache,
	# which the kernel warns about (topology_sane()) across nodes.
	smparg+=",sockets=$numa,cores=$((smp / numa)),threads=1"
fi
qemu+=(-m "$mem" -smp "$smparg" -no-reboot
	-display none -monitor none -serial stdio -nodefaults
	-kernel "$kernel" -initrd "$rundir/initrd" -append "$cmdline")
if [ -n "$numa" ]; then
	for ((n = 0; n < numa; n++)); do
		lo=$((n * smp / numa)) hi=$(((n + 1) * smp / numa - 1))
		qemu+=(-object "memory-backend-ram,id=mem$n,size=$((mem / numa))M"
			-numa "node,nodeid=$n,cpus=$lo-$hi,memdev=mem$n")
	done
fi
if [ "$accel" = kvm ]; then
	qemu+=(-accel kvm -cpu host)
elif [ "$arch" = x86_64 ]; then
	qemu+=(-accel tcg -cpu max)
else
	# pauth-impdef: pointer authentication with QEMU's own cheap hash
	# instead of QARMA, which costs much under TCG.
	qemu+=(-accel tcg -cpu 'max,pauth-impdef=on')
fi
# icount makes guest time deterministic; -seed and a virtual RTC do the
# same for the guest's random numbers (RDRAND) and its wall clock, which
# otherwise move address layouts and with them a few instructions.
[ -z "$icount" ] || qemu+=(-icount 'shift=0,sleep=off' -seed 1 -rtc 'base=2024-01-01T00:00:00,clock=vm')
if [ -n "$plugin" ]; then
	[ "$accel" = tcg ] || die "--plugin needs TCG (--icount or --accel tcg), not $accel"
	qemu+=(-plugin "$plugin")
fi

if [ -n "$dry" ]; then
	for arg in $cmdline; do
		[[ $arg != harness.* ]] || echo "$arg"
	done
	printf '%q ' "${qemu[@]}"
	echo
	msg "dry run [$method]: the initramfs is kept in $rundir; nothing booted"
	exit 0
fi
msg "boot $variant/$set mode=$mode job=$job [$method] log: $log"
set +e
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 &
qpid=$!
# Show progress: the harness markers and TAP result lines, as they come.
tail -n +1 -f --pid="$qpid" "$log" 2>/dev/null | console_progress >&2
wait "$qpid"
qrc=$?
set -e
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	tail -n 30 "$log" >&2
	die "guest hung: no power-off within $timeout s (console log: $log)"
fi
rc=$(console_result "$log")
if [ -z "$rc" ]; then
	tail -n 30 "$log" >&2
	die "guest ended without a result (qemu exit $qrc; console log: $log)"
fi
exit "$rc"

#!/bin/bash
# The main job: install what is missing, make the base tree, apply the
# series, build the base and patched kernels, boot each in every mode under
# QEMU TCG icount, run the mqueue benchmark and the accounted-allocation
# microbenchmark, and write the side-by-side report.
# Usage: scripts/run-bench.sh [--kernels base,patched[,floor][,pN][,base+N[+M...]][,SERIES][,base+SERIES]]
#          [--modes MODE,...] [--count N] [--kvm]
#          [--config bench|test|vmemmap|distro|rtbench|numa] [--workloads all|NAME,...]
#          [--boots N] [--cpus N] [--numa N]
# The base is the newest in bases/ (mainline); BASE=6.12 or BASE=6.1
# benchmarks that backport.
# --modes: default every mode of the base (tests/modes.conf: root, default,
# noslab, nokmem; nomemobj too on 6.12 and 6.1).
# --kvm reports wall-clock ns under KVM instead of exact icount figures.
# --config bench (the default) is the test config plus what distro kernels
# have that matters here (BASE_BENCH_FRAGMENTS: kmalloc buckets on 7.2 and
# 6.12).
# --config vmemmap builds the guests with CONFIG_SPARSEMEM_VMEMMAP, the
# memory model of distro kernels (config-fragments/vmemmap.config).
# --config distro builds them with Debian's own values of every option that
# touches the accounted path or its cost (config-fragments/distro-<base>
# .config, checked against Debian's config by the style group; includes
# SPARSEMEM_VMEMMAP and, on 7.2 and 6.12, SLAB_BUCKETS).
# --kernels ...,floor adds the patched kernel with the base's floor
# experiment (BASE_FLOOR): on 6.1 without any slab charge or vmstat update
# (tests/experiments/stock-free-floor.diff: what the per-object work of the
# hooks costs by itself), on 7.2 with RFC v9's per-CPU slots instead of
# the charged sheaves (tests/experiments/kept-slots-7.2.diff, the design
# they replaced); benchmarked only.
# --kernels ...,pN adds the base plus the first N patches (on 7.2 counted
# over the whole stack of series, patches/7.2/stack; scripts/
# make-prefix-tree.sh), to attribute a difference to a patch;
# ...,base+N[+M...] the base plus patches N, M, ... alone (e.g. base+21+22:
# what two patches cost without the ones before them); ...,SERIES the base
# plus a series and the series it needs (e.g. base,noslab,patched: the
# option alone, then everything); ...,base+SERIES the base plus that series
# alone, without what it needs (e.g. base+fs).
# --workloads also boots each kernel in each mode to run third-party
# workloads: Debian's stress-ng stressors, rt-tests' hackbench runs and
# PostgreSQL 15's pgbench runs (against a server in the guest) of
# tests/workloads.conf ("all", or names from it, e.g. hackbench-sock-proc,
# pgbench-select-unix-1), each with a fixed number of bogo ops, loops or
# transactions; reported in guest ns per bogo op (hackbench: per message,
# one group per vCPU; pgbench: per transaction). A workload that fails or hangs is reported with its
# console log and the others still run; the script then exits 1.
# --boots N boots each kernel and mode N times for the workloads, boot i
# with harness.salt=i on its command line (which the guest ignores): a
# multi-process stressor on one vCPU moves with any early boot input, so
# the report gives each workload's mean over the boots and its spread.
# The microbenchmarks are booted N times too: most of their rows repeat
# exactly, but the ping-pongs, unix sockets and failed open() move with
# the boot on one vCPU, and every row does on several.
# --cpus N boots guests with N vCPUs (default 1; 1..8) and adds the SMP
# parts of the benchmark (those of cpus 2 in tests/bench-parts.conf, the
# table of its parts). Under -icount the vCPUs take turns in one host
# thread and guest time counts the instructions of all of them (see the
# report's notes).
# --numa N boots the guests with N NUMA nodes (boot-guest.sh --numa: the
# vCPUs split evenly, in order), for a kernel of --config numa: with
# --cpus 4 --numa 2, smp-stream-far's consumer runs on the other node.
# Results: $OUT_DIR/bench-<base>/ (report.md, report.json, overhead.png, logs);
# $OUT_DIR/bench-<base>-vmemmap/ with --config vmemmap, -distro likewise;
# -smpN appended with --cpus N (N > 1), -numaN with --numa N.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/tables.sh
. "$REPO_ROOT/scripts/lib/tables.sh"
# shellcheck source=scripts/lib/console.sh
. "$REPO_ROOT/scripts/lib/console.sh"

kernels=base,patched modes='' count=100000 accel=(--icount) cfg=bench
workloads='' boots=1 cpus=1 numa=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels | --modes | --count | --config | --workloads | --boots | --cpus | --numa)
		[ $# -ge 2 ] || die "$1 needs a value (see $0 --help)"
		case "$1" in
		--kernels) kernels=$2 ;;
		--modes) modes=$2 ;;
		--count) count=$2 ;;
		--config) cfg=$2 ;;
		--workloads) workloads=$2 ;;
		--boots) boots=$2 ;;
		--cpus) cpus=$2 ;;
		--numa) numa=(--numa "$2") ;;
		esac
		shift
		;;
	--kvm) accel=(--accel kvm) ;;
	-h | --help) print_usage "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see $0 --help)" ;;
	esac
	shift
done
# Every argument is checked here, before anything is installed or made.
load_base
if ! [[ $count =~ ^[1-9][0-9]{0,7}$ ]] || [ "$count" -gt 10000000 ]; then
	die "--count wants 1..10000000, got '$count'"
fi
[[ $boots =~ ^([1-9]|1[0-9]|20)$ ]] || die "--boots wants 1..20, got '$boots'"
[[ $cpus =~ ^[1-8]$ ]] || die "--cpus wants 1..8, got '$cpus'"
if [ ${#numa[@]} -gt 0 ] && { ! [[ ${numa[1]} =~ ^[2-8]$ ]] || [ $((cpus % numa[1])) != 0 ]; }; then
	die "--numa wants 2..8 nodes that divide --cpus $cpus, got '${numa[1]}'"
fi
cfg=$(bench_configset "$cfg")
known=$(known_workloads)
[ "$workloads" != all ] || workloads=$known
for w in ${workloads//,/ }; do
	[[ ",$known," == *",$w,"* ]] || die "unknown workload '$w' (known: $known, or all)"
done
IFS=, read -ra kernels <<<"$kernels"
IFS=, read -ra modes <<<"${modes:-$(base_modes)}"
[ $((${#kernels[@]} * ${#modes[@]})) -gt 0 ] || die "--kernels and --modes want at least one name each"
for k in "${kernels[@]}"; do
	# (bisect: run-tests.sh's scratch tree, no kernel to benchmark)
	[ "$k" != bisect ] || die "unknown kernel 'bisect' (kernels: base, patched, floor, pN, base+N[+M...], SERIES, base+SERIES)"
	tree_dir "$k" >/dev/null
	[ "$k" != floor ] || floor_diff >/dev/null
done
for m in "${modes[@]}"; do mode_field "$m" 2 >/dev/null; done
if [ "${accel[0]}" != --icount ] && { [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; }; then
	die "--kvm: /dev/kvm is missing or not usable by this user"
fi

"$REPO_ROOT/scripts/install-deps.sh" --bases "$BASE" --groups bench
"$REPO_ROOT/scripts/prepare-base.sh"
"$REPO_ROOT/scripts/checkout-base.sh"
"$REPO_ROOT/scripts/apply-series.sh"
for k in "${kernels[@]}"; do
	case "$k" in
	floor) "$REPO_ROOT/scripts/make-floor-tree.sh" ;;
	base | patched) ;;
	# pN, base+..., a series (tree_dir checked the names above)
	*) "$REPO_ROOT/scripts/make-prefix-tree.sh" "$k" ;;
	esac
done
for k in "${kernels[@]}"; do
	"$REPO_ROOT/scripts/build-kernel.sh" "$k" "$cfg" bzImage modules
	"$REPO_ROOT/scripts/build-kmem-bench.sh" "$k" "$cfg"
done
"$REPO_ROOT/scripts/build-initramfs.sh"

# emitted NAME LOG: the file the guest printed with emit_file NAME.
emitted() { console_block "$1" "$2"; }

res="$OUT_DIR/bench-$BASE"
[ "$cfg" = test ] || [ "$cfg" = bench ] || res+="-$cfg"
[ "$cpus" = 1 ] || res+="-smp$cpus"
[ ${#numa[@]} = 0 ] || res+="-numa${numa[1]}"
mkdir -p "$res"
rm -f "$res"/*.json "$res"/*.txt "$res"/*.cpu "$res"/*.hits "$res"/*-workloads*.log
# --boots rounds of boots, each kernel and mode once a round (round i > 1
# salted, its files with the suffix .i): the microbenchmarks, then the
# third-party workloads in a boot of their own. A workloads boot that
# fails still yields the figures of the workloads that ran before it.
wfail=()
for ((i = 1; i <= boots; i++)); do
	sfx='' salt=''
	[ "$i" = 1 ] || sfx=".$i" salt=" harness.salt=$i"
	for k in "${kernels[@]}"; do
		for m in "${modes[@]}"; do
			log="$res/$k-$m$sfx.log"
			"$REPO_ROOT/scripts/boot-guest.sh" "${accel[@]}" --smp "$cpus" "${numa[@]}" --timeout $((1800 * cpus)) \
				--append "harness.count=$count$salt" --log "$log" "$k" "$cfg" "$m" bench ||
				die "benchmark of $k in mode $m failed (console log: $log)"
			emitted bench.json "$log" >"$res/$k-$m$sfx.json"
			emitted kmem.txt "$log" >"$res/$k-$m$sfx.txt"
			[ -n "$sfx" ] || emitted cpu.txt "$log" >"$res/$k-$m.cpu"
			[ -n "$sfx" ] || emitted hits.json "$log" >"$res/$k-$m.hits"
			[ -s "$res/$k-$m$sfx.json" ] || die "no benchmark output from $k in mode $m (console log: $log)"
			[ "$(console_cpus "$log")" = "$cpus" ] ||
				die "$k in mode $m brought up $(console_cpus "$log") CPUs, not --cpus $cpus (CONFIG_NR_CPUS?; console log: $log)"
			[ -n "$workloads" ] || continue
			log="$res/$k-$m-workloads$sfx.log"
			"$REPO_ROOT/scripts/boot-guest.sh" "${accel[@]}" --smp "$cpus" "${numa[@]}" --timeout $((3600 * cpus)) \
				--append "harness.workloads=$workloads$salt" --log "$log" "$k" "$cfg" "$m" workloads ||
				wfail+=("$k/$m (console log: $log)")
			emitted workloads.json "$log" >"$res/$k-$m.workloads$sfx.json"
		done
	done
done
sng=''
[ -z "$workloads" ] || sng="stress-ng $(stress-ng --version | sed -n 's/.*version \([^ ]*\).*/\1/p') (Debian)"
if [ "${accel[0]}" = --icount ]; then
	method="QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') TCG -cpu max -icount shift=0,sleep=off, $cpus vCPU(s)${numa[1]:+ in ${numa[1]} NUMA nodes}: 1 guest ns = 1 guest instruction; figures repeat exactly (stddev 0)"
else
	method="QEMU KVM -cpu host, $cpus vCPU(s): wall-clock ns"
fi
python3 "$REPO_ROOT/scripts/bench-report.py" --method "$method" --config "$cfg" \
	--base-desc "$(git -C "$(tree_dir base)" log -1 --format=%s)" \
	--kernels "$(IFS=,; echo "${kernels[*]}")" --modes "$(IFS=,; echo "${modes[*]}")" \
	--workloads "$workloads" --boots "$boots" --cpus "$cpus" --stress-ng "$sng" "$res"
cat "$res/report.md"
msg "report: $res/report.md, $res/report.json, $res/overhead.png"
if [ ${#wfail[@]} -gt 0 ]; then
	die "workloads failed in: ${wfail[*]}"
fi

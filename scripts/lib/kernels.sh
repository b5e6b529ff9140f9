# shellcheck shell=bash
# The kernels the harness builds: config sets (config-fragments/sets.conf),
# kernel variants (base, patched, pN, base+N, a series, floor) and their
# trees and build directories. Sourced, after scripts/lib.sh and
# scripts/lib/source.sh.

# configset_fragments SET: the config fragments (config-fragments/<name>
# .config, names space-separated) of config set SET for the current base,
# from config-fragments/sets.conf: qemu-ARCH (configset_arch: qemu-x86_64,
# or qemu-arm64 for a set named arm64-*), base-$BASE when there is one,
# then the set's own. bench is what scripts/run-bench.sh builds: the
# test set plus what distros have that the tests do without
# (BASE_BENCH_FRAGMENTS, e.g. kmalloc buckets on 7.2).
configset_fragments() {
	local conf="$REPO_ROOT/config-fragments/sets.conf" line b
	b=qemu-$(configset_arch "$1")
	line=$(awk -v s="$1" '!/^#/ && $1 == s { print $2, $3; exit }' "$conf")
	[ -n "$line" ] || die "unknown config set '$1' (config sets: $(configsets | paste -sd, - | sed 's/,/, /g'))"
	# shellcheck disable=SC2086 # the two fields: fragments, needs
	set -- "$1" $line
	[ "$3" = - ] || [ -n "${!3:-}" ] || die "config set '$1' needs $3, which bases/$BASE.conf does not set"
	[ ! -f "$REPO_ROOT/config-fragments/base-$BASE.config" ] || b+=" base-$BASE"
	b+=" ${2//,/ }"
	b=${b//<base>/$BASE}
	echo "${b//<bench>/${BASE_BENCH_FRAGMENTS:-}}"
}

# configset_arch SET: the architecture of the kernels of config set SET:
# arm64 for a set whose name starts with arm64- (built with the cross
# compiler, booted on qemu-system-aarch64 -M virt), else x86_64.
configset_arch() {
	case "$1" in
	arm64-*) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# arch_make_args ARCH: the make arguments of a kernel (or module, or
# selftest) build for ARCH: ARCH=, and CROSS_COMPILE= for arm64.
arch_make_args() {
	case "$1" in
	x86_64) echo ARCH=x86_64 ;;
	arm64) echo ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- ;;
	*) die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
}

# arch_cc ARCH: the C compiler of ARCH's kernels and static test programs.
arch_cc() {
	case "$1" in
	x86_64) echo gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	*) die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
}

# need_arch_cc ARCH: ARCH's compiler is there, else die naming its package.
need_arch_cc() {
	case "$1" in
	x86_64) need_cmd gcc build-essential ;;
	arm64) need_cmd aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu ;;
	esac
}

# kernel_image ARCH: the make target of ARCH's bootable kernel, which is
# also its path under arch/ARCH/boot of the build directory (bzImage on
# x86 is at arch/x86/boot/bzImage).
kernel_image() {
	case "$1" in
	x86_64) echo bzImage ;;
	arm64) echo Image ;;
	*) die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
}

# kernel_image_path BUILDDIR ARCH: the bootable kernel of a build of ARCH.
kernel_image_path() {
	case "$2" in
	x86_64) printf '%s/arch/x86/boot/bzImage\n' "$1" ;;
	*) printf '%s/arch/%s/boot/%s\n' "$1" "$2" "$(kernel_image "$2")" ;;
	esac
}

# configsets: the names of the config sets, one a line.
configsets() {
	awk '!/^#/ && NF { print $1 }' "$REPO_ROOT/config-fragments/sets.conf"
}

# Source worktree of a variant: base, patched (every patch of the base),
# bisect (the scratch tree apply-series.sh uses, checked out at each patch
# in turn by run-tests.sh), floor (the applied patches plus floor_diff,
# made by make-floor-tree.sh; benchmarked only, never a kernel to use), and
# these, made by make-prefix-tree.sh and benchmarked only: pN (the base
# plus the first N patches, counted over the whole stack), base+N[+M...]
# (the base plus patches N, M, ... alone, in that order; an N may be a
# series name: all its patches, e.g. base+fs), SERIES (a series of the
# stack with the series it needs, e.g. noslab). A pN past the prefixes, a
# patch number outside the base's patches or an unknown name dies here,
# before anything is prepared.
tree_dir() {
	case "$1" in
	base | patched | floor) printf '%s/trees/%s\n' "$(work_dir)" "$1" ;;
	bisect) printf '%s/trees/apply\n' "$(work_dir)" ;;
	p[1-9] | p[1-9][0-9])
		check_prefix "$1"
		printf '%s/trees/%s\n' "$(work_dir)" "$1"
		;;
	*)
		if [[ $1 != base+* ]] && ! stack_series | grep -qxF -- "$1"; then
			die "unknown kernel variant '$1' (base, patched, floor, pN: base + the first N patches, base+N[+M...]: base + patches N, M, ..., SERIES: base + a series and those it needs, base+SERIES: base + a series alone; series: $(stack_series | paste -sd' ' -))"
		fi
		check_picks "$1" >/dev/null
		printf '%s/trees/%s\n' "$(work_dir)" "$1"
		;;
	esac
}

# check_picks VARIANT: the patches (positions among all the base's
# patches, one a line, ascending) of a variant made of picked patches:
# base+X[+Y...], each X a patch number (1 to the number of patches) or a
# series name (all its patches), or SERIES (the patches of the series it
# needs and its own: series_needs). Dies unless each patch comes once and
# in ascending order, or when the variant has no patch. Reads the stack and
# series files only.
check_picks() {
	local n p s last=0 picked=()
	case "$1" in
	base+*)
		for p in ${1//+/ }; do
			[ "$p" != base ] || continue
			if [[ $p =~ ^[1-9][0-9]?$ ]]; then
				picked+=("$p")
			elif stack_series | grep -qxF -- "$p"; then
				mapfile -t -O "${#picked[@]}" picked < <(series_positions "$p")
			else
				die "$1: a variant of picked patches is base+X[+Y...], each X a patch number or a series ($(stack_series | paste -sd' ' -)), e.g. base+21+22"
			fi
		done
		;;
	*)
		for s in $(series_needs "$1") "$1"; do
			mapfile -t -O "${#picked[@]}" picked < <(series_positions "$s")
		done
		;;
	esac
	[ ${#picked[@]} -gt 0 ] || die "$1: no patch (a series without patches yet?)"
	n=$(series_patches | wc -l)
	for p in "${picked[@]}"; do
		[ "$p" -le "$n" ] || die "$1: the $BASE series have $n patches (1..$n)"
		[ "$p" -gt "$last" ] || die "$1: name each patch once, in stack order"
		last=$p
		echo "$p"
	done
}

# check_prefix pN: die unless pN is a prefix of the base's patches (all its
# series in stack order): N from 1 to one less than their number (all of
# them is 'patched'). Reads the stack and series files only (the base need
# not be prepared).
check_prefix() {
	local n
	n=$(series_patches | wc -l)
	[ "${1#p}" -lt "$n" ] ||
		die "$1: the $BASE series have $n patches: their prefixes are p1..p$((n - 1)) (all $n is 'patched')"
}

# The one source tree every kernel of a base is compiled from
# (build-kernel.sh checks each variant out there in turn).
kbuild_tree() {
	printf '%s/trees/kbuild\n' "$(work_dir)"
}

# The base's floor experiment (BASE_FLOOR): a measurement-only diff on top
# of the series (6.1: the slab hooks without any charge or vmstat update;
# 7.2: an accounted allocation that only looks up current's objcg).
# FLOOR_DIFF in the environment (a path, relative to the repository or
# absolute) makes the floor kernel another experiment instead, e.g. a
# mutation of the series that a test must catch
# (tests/experiments/mutate-*.diff).
floor_diff() {
	local d=${FLOOR_DIFF:-${BASE_FLOOR:-}}
	[ -n "$d" ] || die "no floor experiment for base $BASE (BASE_FLOOR in bases/$BASE.conf, or FLOOR_DIFF)"
	case "$d" in
	/*) printf '%s\n' "$d" ;;
	*) printf '%s/%s\n' "$REPO_ROOT" "$d" ;;
	esac
}

build_dir() {
	printf '%s/build/%s-%s\n' "$(work_dir)" "$1" "$2"
}

# bench_configset CFG: the config set whose kernels run-bench.sh --config
# CFG boots (bench, test, vmemmap, distro, rtbench or numa). Without extra fragments
# (BASE_BENCH_FRAGMENTS) the bench kernels are the test kernels: built once.
bench_configset() {
	case "$1" in
	bench) if [ -n "${BASE_BENCH_FRAGMENTS:-}" ]; then echo bench; else echo test; fi ;;
	test | vmemmap | distro | rtbench | numa) printf '%s\n' "$1" ;;
	*) die "--config wants bench, test, vmemmap, distro, rtbench or numa, got '$1'" ;;
	esac
}

#!/bin/bash
# Build tests/kmem-bench (the accounted-allocation microbenchmark module)
# against a built kernel and pack it as a small cpio that boot-guest.sh
# appends to the initramfs of that kernel (an arm64 set's kernel: built
# with the cross compiler, scripts/lib/kernels.sh: configset_arch).
# Usage: scripts/build-kmem-bench.sh base|patched|floor|pN|base+N[+M...]|SERIES|base+SERIES CONFIGSET
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/guest.sh
. "$REPO_ROOT/scripts/lib/guest.sh"
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
esac
[ $# -eq 2 ] || die "usage: $0 base|patched|floor|pN|base+N[+M...]|SERIES|base+SERIES CONFIGSET (see --help)"
load_base

tree=$(tree_dir "$1")
configset_fragments "$2" >/dev/null
arch=$(configset_arch "$2")
need_arch_cc "$arch"
read -ra archargs <<<"$(arch_make_args "$arch")"
out=$(build_dir "$1" "$2")
if [ ! -f "$out/.harness-source" ] || [ ! -f "$out/Module.symvers" ]; then
	die "$out is no complete build with modules (run scripts/build-kernel.sh $1 $2 $(kernel_image "$arch") modules)"
fi
src="$out/kmem-bench"
rm -rf "$src"
mkdir -p "$src"
cp "$REPO_ROOT"/tests/kmem-bench/{Kbuild,kmem_bench.c} "$src/"
make -s -C "$tree" O="$out" "${archargs[@]}" M="$src" W=1 modules >"$src/build.log" 2>&1 ||
	{ tail -20 "$src/build.log" >&2; die "kmem_bench.ko failed to build (log: $src/build.log)"; }
if grep -q 'warning:' "$src/build.log"; then
	grep 'warning:' "$src/build.log" >&2
	die "kmem_bench.ko builds with warnings (log: $src/build.log)"
fi
stage="$src/cpio"
mkdir -p "$stage/lib/modules"
cp "$src/kmem_bench.ko" "$stage/lib/modules/"
pack_cpio "$stage" "$out/harness-modules.cpio"

#!/bin/bash
# Build the guest initramfs: busybox-static, the guest jobs (tests/guest),
# the mqueue benchmark, Debian's stress-ng and rt-tests' hackbench and
# cyclictest with the shared libraries they need (tests/workloads.conf)
# and the in-tree cgroup and mqueue selftests built statically from a
# kernel tree (default: the patched tree if the series is applied, else
# the base tree); and beside it pgsql.cpio, PostgreSQL 15 for the pgbench
# workloads, which boot-guest.sh adds for the workloads job. One initramfs
# serves every kernel of a run, so benchmark figures compare kernels, not
# initramfs contents.
# --arch arm64 builds the initramfs of the arm64 guests instead
# (initramfs-arm64.cpio beside it): Debian bookworm's busybox-static for
# arm64 (a private apt, scripts/lib/guest.sh: arm64_busybox), the guest
# jobs, the cgroup selftests and the test programs cross-compiled
# statically with aarch64-linux-gnu-gcc; no mqueue selftests (they link
# libpopt, which has no arm64 package here), stress-ng, hackbench or
# PostgreSQL: the arm64 guests run the tests, not the benchmark.
# Usage: scripts/build-initramfs.sh [--arch x86_64|arm64] [base|patched]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/guest.sh
. "$REPO_ROOT/scripts/lib/guest.sh"
# shellcheck source=scripts/lib/apt.sh
. "$REPO_ROOT/scripts/lib/apt.sh"
arch=x86_64
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || die "--arch needs a value (x86_64 or arm64)"
fi
variant=${1:-}
case "$variant" in
-h | --help) print_usage "$0"; exit 0 ;;
'' | base | patched) ;;
*) die "unknown tree '$variant' (base or patched; see $0 --help)" ;;
esac
[ $# -le 1 ] || die "too many arguments (see $0 --help)"
case "$arch" in x86_64 | arm64) ;; *) die "--arch wants x86_64 or arm64, got '$arch'" ;; esac
load_base
need_cmd cpio cpio
if [ "$arch" = x86_64 ]; then
	need_cmd stress-ng stress-ng
	need_cmd hackbench rt-tests
	need_cmd cyclictest rt-tests
	need_busybox
	busybox=/bin/busybox
else
	need_arch_cc "$arch"
	need_busybox
	busybox=$(arm64_busybox)
fi
cc=$(arch_cc "$arch")
read -ra archargs <<<"$(arch_make_args "$arch")"

if [ -z "$variant" ]; then
	variant=base
	[ -f "$(tree_dir patched)/Makefile" ] && variant=patched
fi
tree=$(tree_dir "$variant")
[ -f "$tree/Makefile" ] || die "no $variant tree at $tree"
out=$(initramfs_path "$arch")
# The x86_64 paths are those of before --arch (the same initramfs bytes).
sfx=''
[ "$arch" = x86_64 ] || sfx=-$arch
stage="$(work_dir)/build/initramfs$sfx.d"
hdrs="$(work_dir)/build/headers$sfx-$variant"
st="$(work_dir)/build/selftests$sfx-$variant"
selftests="cgroup mqueue"
[ "$arch" = x86_64 ] || selftests=cgroup

msg "building static test programs ($arch) from the $variant tree"
make -s -C "$tree" O="$hdrs" "${archargs[@]}" headers >/dev/null
for t in $selftests; do
	log="$st/$t.log"
	mkdir -p "$st/$t"
	make -C "$tree/tools/testing/selftests/$t" OUTPUT="$st/$t" "${archargs[@]}" \
		KHDR_INCLUDES="-isystem $hdrs/usr/include" LDFLAGS=-static \
		>"$log" 2>&1 || { tail -20 "$log" >&2; die "building the $t selftests failed (log: $log)"; }
done
mkdir -p "$st/bench"
"$cc" -O2 -Wall -Wextra -Werror -static -o "$st/bench/mq-bench" \
	"$REPO_ROOT/tests/mq-bench.c" -lrt
"$cc" -O2 -Wall -Wextra -Werror -static -o "$st/bench/slab-fill" \
	"$REPO_ROOT/tests/slab-fill.c" -lrt
"$cc" -O2 -Wall -Wextra -Werror -static -o "$st/bench/lock-bench" \
	"$REPO_ROOT/tests/lock-bench.c"

msg "assembling $out"
stage_guest "$stage" "$busybox"
mkdir -p "$stage"/{lib/modules,tests/selftests}
install -m 0755 "$REPO_ROOT"/tests/guest/job-*.sh "$stage/tests/"
install -m 0755 "$st/bench/mq-bench" "$st/bench/slab-fill" "$st/bench/lock-bench" "$stage/tests/"
# shared_libs BIN...: the loader and every library ldd names for the
# dynamically linked BINs, at the paths they ask for, one a line.
shared_libs() {
	local bin
	for bin in "$@"; do
		ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | sort -u
}

# The harness's own TAP tests run like selftests.
install -D -m 0755 "$REPO_ROOT/tests/guest/stock-tests.sh" "$stage/tests/selftests/harness/stock"
install -D -m 0755 "$REPO_ROOT/tests/guest/detect-tests.sh" "$stage/tests/selftests/harness/detect"
for t in $selftests; do
	mkdir -p "$stage/tests/selftests/$t"
	find "$st/$t" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/tests/selftests/$t/" \;
done
if [ "$arch" != x86_64 ]; then
	pack_cpio "$stage" "$out.tmp"
	mv "$out.tmp" "$out"
	msg "initramfs: $out ($(du -h "$out" | cut -f1))"
	exit 0
fi
# stress-ng, hackbench and cyclictest are dynamically linked: take their
# libraries.
for prog in stress-ng hackbench cyclictest; do
	bin=$(command -v "$prog")
	install -D -m 0755 "$bin" "$stage/usr/bin/$prog"
	libs=$(shared_libs "$bin")
	[ -n "$libs" ] || die "ldd names no library of $bin"
	for lib in $libs; do
		install -D -m 0755 "$(readlink -f "$lib")" "$stage$lib"
	done
done
pack_cpio "$stage" "$out.tmp"
mv "$out.tmp" "$out"
msg "initramfs: $out ($(du -h "$out" | cut -f1))"

# PostgreSQL for the pgbench workloads (tests/workloads.conf): Debian's
# postgresql-15 server, initdb and pgbench, the server's loadable modules
# but the LLVM JIT (jit=off), its share files and the UTC zone, with every
# library they need, in an archive of its own that boot-guest.sh adds for
# the workloads job only.
pg=/usr/lib/postgresql/15
pgout=$(pgsql_cpio_path)
pgstage="$stage.pgsql"
rm -rf "$pgstage"
mkdir -p "$pgstage$pg/bin" "$pgstage$pg/lib" "$pgstage/usr/share/postgresql" "$pgstage/usr/share/zoneinfo/Etc"
for prog in postgres initdb pgbench; do
	[ -x "$pg/bin/$prog" ] || die "no $pg/bin/$prog: install Debian package 'postgresql-15' (scripts/install-deps.sh does)"
	install -m 0755 "$pg/bin/$prog" "$pgstage$pg/bin/"
done
find "$pg/lib" -maxdepth 1 -name '*.so' ! -name 'llvmjit*' -exec install -m 0755 {} "$pgstage$pg/lib/" \;
cp -a /usr/share/postgresql/15 "$pgstage/usr/share/postgresql/"
install -m 0644 /usr/share/zoneinfo/Etc/UTC "$pgstage/usr/share/zoneinfo/Etc/UTC"
ln -s Etc/UTC "$pgstage/usr/share/zoneinfo/UTC"
shared_libs "$pgstage$pg"/bin/* "$pgstage$pg"/lib/*.so | while read -r lib; do
	[ -e "$stage$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$pgstage$lib"
done
pack_cpio "$pgstage" "$pgout.tmp"
mv "$pgout.tmp" "$pgout"
rm -rf "$pgstage"
msg "PostgreSQL for the guest: $pgout ($(du -h "$pgout" | cut -f1))"

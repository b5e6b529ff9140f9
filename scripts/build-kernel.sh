#!/bin/bash
# Configure and build a guest kernel out of tree.
# Usage: scripts/build-kernel.sh VARIANT CONFIGSET [make targets...]
# VARIANT: base, patched, floor, pN, base+N[+M...], SERIES or base+SERIES
# (scripts/lib/kernels.sh: tree_dir; made by make-prefix-tree.sh).
# CONFIGSET is test, bench, debug, kasan, faultinj, slab, nomemcg, vmemmap,
# distro, ... or arm64-kasan (see config-fragments/sets.conf). A set named
# arm64-* is an arm64 kernel (scripts/lib/kernels.sh: configset_arch),
# cross-compiled with aarch64-linux-gnu-gcc; the default target is the
# architecture's image: bzImage on x86_64, Image on arm64. pN is the base
# plus the first N patches, SERIES the base plus a series of the stack and
# the series it needs (scripts/make-prefix-tree.sh).
# The build directory is cached; a second run is incremental, and one whose
# sources, config and targets are those of the last build does not run make.
# Every variant of a base is compiled from one source path (the shared
# tree "kbuild"), and a variant's first build in a
# config set starts from a copy of another variant's build of that set, so
# that only what the series changes is compiled again.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
esac
[ $# -ge 2 ] || die "usage: $0 base|patched|floor|pN|base+N[+M...]|SERIES|base+SERIES CONFIGSET [make targets...] (see --help)"
load_base

variant=$1 set=$2
shift 2
targets=("$@")
arch=$(configset_arch "$set")
need_arch_cc "$arch"
[ ${#targets[@]} -gt 0 ] || targets=("$(kernel_image "$arch")")
tree=$(tree_dir "$variant")
# (Outside the loop: a die in a command substitution would not stop us.)
fl=$(configset_fragments "$set")
out=$(build_dir "$variant" "$set")
[ -f "$tree/Makefile" ] || die "no $variant tree at $tree (run scripts/checkout-base.sh, apply-series.sh or, for pN, base+... or a series, make-prefix-tree.sh)"
if [ "$variant" = floor ] &&
	! git -C "$tree" apply -R --check "$(floor_diff)" 2>/dev/null; then
	die "the floor tree $tree lacks $(floor_diff) (run scripts/make-floor-tree.sh)"
fi
frags=()
for f in $fl; do
	frags+=("$REPO_ROOT/config-fragments/$f.config")
done
stamp=$(cat "${frags[@]}" | md5sum | cut -d' ' -f1)

# What this build is made of: the variant tree's commit, its uncommitted
# changes to tracked files (the floor's diff; untracked files are not
# built), the config fragments and targets, and the pinned build date. A
# build directory records it once make succeeded (.harness-source).
head=$(git -C "$tree" rev-parse HEAD)
changes=$(git -C "$tree" diff-index -p --binary "$head")
# The strings a build writes into the kernel (uname -v, /proc/version) are
# pinned (Documentation/kbuild/reproducible-builds.rst). They must not
# change between builds: random_init() mixes utsname into the CRNG, so a
# new build date changed every random value of the guest (hash seeds,
# address-space layout of the benchmark's processes) and moved figures by
# up to 4 % on a workload. The date is the base commit's (made the same on
# every machine by prepare-base.sh), the same for every variant of a base.
# That is the tree the harness made from the package here (or KSRC's base),
# not BASE_COMMIT: a newer package than the series was made on has another
# base commit, and its builds must still work.
base=$(base_ref)
export KBUILD_BUILD_TIMESTAMP
KBUILD_BUILD_TIMESTAMP=$(TZ=UTC git -C "$tree" log -1 --format=%cd \
	--date=format-local:'%a %b %e %H:%M:%S UTC %Y' "$base" 2>/dev/null) ||
	die "the tree $tree does not contain the base commit $base"
export KBUILD_BUILD_VERSION=1 KBUILD_BUILD_USER=memcg-noslab KBUILD_BUILD_HOST=harness
source_id="$head $(printf '%s' "$changes" | md5sum | cut -d' ' -f1) $stamp ${targets[*]} $("$(arch_cc "$arch")" --version | sed -n 1p) $KBUILD_BUILD_TIMESTAMP"

# Every kernel of a base is compiled from one source path (the tree
# "kbuild") in one build path per config set (build/kbuild-SET): kbuild
# writes both paths into the command line of every object and host tool,
# so a build moved to other paths would be compiled again in full. The
# variant's sources are checked out in the shared tree (git rewrites only
# the files that differ, and make recompiles only what depends on them);
# its build directory is moved to the build path for make and back after.
# A variant's first build in a set starts from a copy of another
# variant's complete build of that set. One build at a time per base (a
# lock). The bisect group keeps its own tree and build directories.
src=$tree obj=$out
if [ "$variant" != bisect ]; then
	mkdir -p "$(work_dir)/build"
	exec 9>"$(work_dir)/kbuild.lock"
	flock 9
	if [ "$(cat "$out/.harness-source" 2>/dev/null)" = "$source_id" ] && [ -f "$out/.config" ]; then
		msg "$variant/$set is up to date in $out"
		exit 0
	fi
	need_space "$(work_dir)/build" 2 "the $variant/$set kernel build"
	src=$(kbuild_tree) obj="$(work_dir)/build/kbuild-$set"
	checkout_tree "$src" "$head"
	if [ -n "$changes" ]; then
		printf '%s\n' "$changes" | git -C "$src" apply --binary ||
			die "cannot apply the uncommitted changes of $tree to $src"
	fi
	# A build killed while at the build path goes back where it belongs.
	if [ -e "$obj" ]; then
		back=$(cat "$obj/.harness-build-dir" 2>/dev/null || true)
		if [ -n "$back" ] && [ ! -e "$back" ]; then
			mv -T "$obj" "$back"
		else
			rm -rf "$obj"
		fi
	fi
	if [ -d "$out" ]; then
		printf '%s\n' "$out" >"$out/.harness-build-dir"
		mv -T "$out" "$obj"
	else
		case "$variant" in
		base) seeds="patched floor" ;;
		patched) seeds="base floor" ;;
		*) seeds="base patched" ;;
		esac
		for v in $seeds; do
			seed=$(build_dir "$v" "$set")
			[ -f "$seed/.harness-source" ] || continue
			msg "$variant/$set starts from a copy of the $v/$set build"
			cp -a "$seed" "$obj"
			rm -rf "$obj/harness-modules.cpio" "$obj/kmem-bench"
			break
		done
	fi
	mkdir -p "$obj"
	printf '%s\n' "$out" >"$obj/.harness-build-dir"
	# Back to its own path at any exit; on a signal, after make ended
	# (bash runs the trap once the foreground make returns).
	trap 'mv -T "$obj" "$out"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
fi
mkdir -p "$obj"
rm -f "$obj/.harness-source"
read -ra archargs <<<"$(arch_make_args "$arch")"
mk=(make -C "$src" O="$obj" "${archargs[@]}")

# config_survived: every value the fragments ask for is in the final
# .config (merge_config.sh only warns); a later fragment overrides an
# earlier one, as in merge_config.sh. Checked after configuring and again
# after make, which syncs the .config with the variant's Kconfig (a build
# that started from another variant's copy is checked there).
config_survived() {
	if ! awk '
		FNR == NR { have[$0] = 1; next }
		/^CONFIG_[A-Za-z0-9_]+=/ { sym = $0; sub(/=.*/, "", sym); want[sym] = $0; next }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[$2] = $0 }
		END {
			for (sym in want) {
				w = want[sym]
				if (w ~ /is not set$/) {
					if ((sym "=y") in have || (sym "=m") in have) {
						printf "error: requested \"%s\", but %s is set\n", w, sym
						bad = 1
					}
				} else if (!(w in have)) {
					printf "error: requested %s, not in the final .config\n", w
					bad = 1
				}
			}
			exit bad
		}' "$obj/.config" "${frags[@]}" >&2; then
		die "config set '$set' did not survive olddefconfig (log: $out/config.log)"
	fi
}

if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.config-fragments.md5" 2>/dev/null)" != "$stamp" ]; then
	msg "configuring $variant/$set: tinyconfig + ${frags[*]##*/}"
	"${mk[@]}" -s tinyconfig >"$obj/config.log" 2>&1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >>"$obj/config.log" 2>&1
	"${mk[@]}" -s olddefconfig >>"$obj/config.log" 2>&1
	config_survived
	printf '%s\n' "$stamp" >"$obj/.config-fragments.md5"
fi

msg "building $variant/$set (${targets[*]}) for $out"
log="$obj/build.log"
start=$(date +%s)
set +e
"${mk[@]}" -j"$(nproc)" "${targets[@]}" 2>&1 | tee "$log" |
	awk '/^  (CC|AS|LD|AR)/ { n++; if (n % 250 == 0) { printf "    ... %d objects\n", n; fflush() } }'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$log" | head -20 >&2 || true
	die "build of $variant/$set failed (log: $out/build.log)"
fi
config_survived
printf '%s\n' "$source_id" >"$obj/.harness-source"
msg "built $variant/$set in $(($(date +%s) - start)) s"

#!/bin/bash
# Configure and build a guest kernel out of tree.
# Usage: scripts/build-kernel.sh base|patched|floor CONFIGSET [make targets...]
# CONFIGSET is test, bench, debug, faultinj, slab, nomemcg, vmemmap or
# distro (see configset_fragments
# in scripts/lib.sh).
# The build directory is cached; a second run is incremental.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
load_base

[ $# -ge 2 ] || die "usage: $0 base|patched|floor CONFIGSET [make targets...]"
variant=$1 set=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bzImage)
tree=$(tree_dir "$variant")
out=$(build_dir "$variant" "$set")
[ -f "$tree/Makefile" ] || die "no $variant tree at $tree (run scripts/checkout-base.sh or scripts/apply-series.sh)"
if [ "$variant" = floor ] &&
	! git -C "$tree" apply -R --check "$(floor_diff)" 2>/dev/null; then
	die "the floor tree $tree lacks $(floor_diff) (run scripts/make-floor-tree.sh)"
fi
mkdir -p "$out"

frags=()
for f in $(configset_fragments "$set"); do
	frags+=("$REPO_ROOT/config-fragments/$f.config")
done
mk=(make -C "$tree" O="$out" ARCH=x86_64)

stamp=$(cat "${frags[@]}" | md5sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config-fragments.md5" 2>/dev/null)" != "$stamp" ]; then
	msg "configuring $variant/$set: tinyconfig + ${frags[*]##*/}"
	"${mk[@]}" -s tinyconfig >"$out/config.log" 2>&1
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >>"$out/config.log" 2>&1
	"${mk[@]}" -s olddefconfig >>"$out/config.log" 2>&1
	# merge_config.sh only warns when a value does not survive: fail here.
	# A later fragment overrides an earlier one, as in merge_config.sh.
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
		}' "$out/.config" "${frags[@]}" >&2; then
		die "config set '$set' did not survive olddefconfig (log: $out/config.log)"
	fi
	printf '%s\n' "$stamp" >"$out/.config-fragments.md5"
fi

msg "building $variant/$set (${targets[*]}) in $out"
log="$out/build.log"
start=$(date +%s)
set +e
"${mk[@]}" -j"$(nproc)" "${targets[@]}" 2>&1 | tee "$log" |
	awk '/^  (CC|AS|LD|AR)/ { n++; if (n % 250 == 0) { printf "    ... %d objects\n", n; fflush() } }'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$log" | head -20 >&2 || true
	die "build of $variant/$set failed (log: $log)"
fi
msg "built $variant/$set in $(($(date +%s) - start)) s"

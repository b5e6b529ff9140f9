#!/bin/bash
# Make (or refresh) the tree of kernel variant pN: the base plus the first N
# patches of the applied series (branch memcg-noslab/<base>, made by
# scripts/apply-series.sh), for benchmarks that attribute a difference
# between base and patched to a patch, e.g.
# "run-bench.sh --kernels base,p1,patched". N runs from 1 to one less than
# the number of patches (pN with N = all of them is "patched").
# Usage: scripts/make-prefix-tree.sh pN
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
esac
[ $# -eq 1 ] || die "usage: $0 pN (see --help)"
load_base

variant=$1
[[ $variant =~ ^p([1-9][0-9]?)$ ]] || die "a prefix variant is p1, p2, ... (got '$variant')"
n=${BASH_REMATCH[1]}
check_prefix "$variant"
repo=$(src_repo)
base=$(base_ref)
git -C "$repo" rev-parse --verify -q "$(series_branch)^{commit}" >/dev/null ||
	die "no branch $(series_branch) (run scripts/apply-series.sh)"
mapfile -t commits < <(git -C "$repo" rev-list --reverse "$base..$(series_branch)")
[ "$n" -lt "${#commits[@]}" ] ||
	die "$variant: the series has ${#commits[@]} patches; p1..p$((${#commits[@]} - 1)) are its prefixes (all of them is 'patched')"
head=${commits[n - 1]}
tree=$(tree_dir "$variant")
name="$variant tree: $tree = base + $n patch(es), up to ${head:0:12} ($(git -C "$repo" log -1 --format=%s "$head"))"
if [ -e "$tree/.git" ] && [ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] &&
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=all)" ]; then
	msg "$name (up to date)"
	exit 0
fi
checkout_tree "$tree" "$head"
msg "$name"

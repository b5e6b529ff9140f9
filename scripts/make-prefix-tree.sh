#!/bin/bash
# Make (or refresh) the tree of kernel variant pN: the base plus the first N
# patches of the applied series (branch memcg-noslab/<base>, made by
# scripts/apply-series.sh), for benchmarks that attribute a difference
# between base and patched to a patch, e.g.
# "run-bench.sh --kernels base,p1,patched". N runs from 1 to one less than
# the number of patches (pN with N = all of them is "patched").
# Patches are counted over the whole base: on a base with a stack, every
# series in stack order (scripts/lib/series.sh: series_patches).
# base+N[+M...] is the base plus patches N, M, ... alone, picked in that
# order (e.g. base+21+22: what two patches do without the ones before
# them); an N may be a series name, all its patches (base+fs: the fs
# series without the series it needs). SERIES (e.g. noslab) is the base
# plus the series it needs and that series (the stack's needs column): the
# option alone, without the series the stack puts before it. A patch that
# does not apply there is named, and the tree is left on the base.
# Usage: scripts/make-prefix-tree.sh pN|base+N[+M...]|base+SERIES|SERIES
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
[ $# -eq 1 ] || die "usage: $0 pN|base+N[+M...]|base+SERIES|SERIES (see --help)"
load_base

variant=$1
case "$variant" in
base | patched | floor | bisect) die "$variant is not made here (base: checkout-base.sh, patched: apply-series.sh, floor: make-floor-tree.sh)" ;;
p[0-9]*)
	[[ $variant =~ ^p([1-9][0-9]?)$ ]] || die "a prefix variant is p1, p2, ... (got '$variant')"
	n=${BASH_REMATCH[1]}
	check_prefix "$variant"
	;;
*)
	# (tree_dir names the variants and series when it is none of them)
	tree_dir "$variant" >/dev/null
	mapfile -t picks < <(check_picks "$variant")
	;;
esac
repo=$(src_repo)
base=$(base_ref)
git -C "$repo" rev-parse --verify -q "$(series_branch)^{commit}" >/dev/null ||
	die "no branch $(series_branch) (run scripts/apply-series.sh)"
mapfile -t commits < <(git -C "$repo" rev-list --reverse "$base..$(series_branch)")
if [ -n "${picks+x}" ]; then
	[ "${picks[-1]}" -le "${#commits[@]}" ] ||
		die "$variant: the applied series has ${#commits[@]} patches"
	tree=$(tree_dir "$variant")
	want=''
	for p in "${picks[@]}"; do
		want+="$(git -C "$repo" show "${commits[p - 1]}" | git patch-id --stable | cut -d' ' -f1) "
	done
	name="$variant tree: $tree = base + patch(es) $(echo "${picks[*]}" | tr ' ' ,)"
	have=''
	if [ -e "$tree/.git" ] && [ -z "$(git -C "$tree" status --porcelain --untracked-files=all)" ] &&
		[ "$(git -C "$tree" rev-parse "HEAD~${#picks[@]}" 2>/dev/null)" = "$(git -C "$repo" rev-parse "$base^{commit}")" ]; then
		for c in $(git -C "$tree" rev-list --reverse "HEAD~${#picks[@]}..HEAD"); do
			have+="$(git -C "$tree" show "$c" | git patch-id --stable | cut -d' ' -f1) "
		done
	fi
	if [ "$have" = "$want" ]; then
		msg "$name (up to date)"
		exit 0
	fi
	checkout_tree "$tree" "$base"
	for p in "${picks[@]}"; do
		c=${commits[p - 1]}
		if ! out=$(git -C "$tree" -c user.name=memcg-noslab-harness -c user.email=harness@invalid \
			cherry-pick "$c" 2>&1); then
			printf '%s\n' "$out" >&2
			git -C "$tree" cherry-pick --abort 2>/dev/null || :
			checkout_tree "$tree" "$base"
			die "$variant: patch $p ($(git -C "$repo" log -1 --format=%s "$c")) does not apply without the patches before it; $tree left on the base"
		fi
	done
	msg "$name"
	exit 0
fi
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

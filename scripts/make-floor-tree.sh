#!/bin/bash
# Make (or refresh) the floor tree: the applied series (branch
# memcg-noslab/<base>, made by scripts/apply-series.sh) plus the base's
# floor experiment (BASE_FLOOR in bases/<base>.conf, a measurement-only
# diff: on 6.1 tests/experiments/stock-free-floor.diff, which keeps the
# per-object objcg work of the slab hooks and drops every slab charge and
# vmstat update, a floor for stock designs that keep that work; on 7.2
# tests/experiments/kept-slots-7.2.diff, the per-CPU slots of RFC v9 in
# place of the charged sheaves). A tree that already is exactly that is
# left alone (builds stay incremental). If the experiment does not apply, print git's
# message and leave the floor tree on the series commit, without it.
# Usage: [BASE=6.1] scripts/make-floor-tree.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
no_args "$0" "$@"
load_base

diff=$(floor_diff)
tree=$(tree_dir floor)
[ -f "$diff" ] || die "missing $diff"
head=$(git -C "$(src_repo)" rev-parse --verify -q "$(series_branch)^{commit}") ||
	die "no branch $(series_branch) (run scripts/apply-series.sh)"
name="floor tree: $tree = $(series_branch) ${head:0:12} + ${diff#"$REPO_ROOT"/}"
if [ -e "$tree/.git" ] && [ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] &&
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=all -- ':!mm/memcontrol.c')" ] &&
	git -C "$tree" apply -R --check "$diff" 2>/dev/null; then
	msg "$name (up to date)"
	exit 0
fi
checkout_tree "$tree" "$head"
if ! out=$(git -C "$tree" apply "$diff" 2>&1); then
	printf '%s\n' "$out" >&2
	die "${diff#"$REPO_ROOT"/} does not apply to $(series_branch); floor tree left on ${head:0:12} without it"
fi
msg "$name"

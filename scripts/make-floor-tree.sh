#!/bin/bash
# Make (or refresh) the floor tree: the patched tree plus
# tests/experiments/stock-free-floor.diff, which keeps the per-object objcg
# work of the slab hooks and drops the objcg stock section. Its accounting
# overhead is what any stock design on this model costs at least. Needs the
# patched tree (scripts/apply-series.sh). If the experiment does not apply,
# name the hunk and leave the floor tree on the patched commit.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
no_args "$0" "$@"
load_base

diff="$REPO_ROOT/tests/experiments/stock-free-floor.diff"
patched=$(tree_dir patched)
tree=$(tree_dir floor)
[ -e "$patched/.git" ] || die "no patched tree at $patched (run scripts/apply-series.sh)"
[ -f "$diff" ] || die "missing $diff"
head=$(git -C "$patched" rev-parse HEAD)
if [ ! -e "$tree/.git" ]; then
	add_worktree "$tree" "$head"
else
	git -C "$tree" checkout -q -f --detach "$head"
	git -C "$tree" clean -q -f -d
fi
if ! out=$(git -C "$tree" apply "$diff" 2>&1); then
	printf '%s\n' "$out" >&2
	git -C "$tree" checkout -q -f --detach "$head"
	die "${diff#"$REPO_ROOT"/} does not apply to the patched tree; floor tree left on $(git -C "$tree" rev-parse --short HEAD)"
fi
msg "floor tree: $tree = patched $(git -C "$tree" rev-parse --short HEAD) + ${diff#"$REPO_ROOT"/}"

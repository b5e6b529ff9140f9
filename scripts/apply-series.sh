#!/bin/bash
# Apply every patch of the base, in order (on a base with a stack, every
# series of patches/<base>/stack, in stack order: series_patches in
# scripts/lib/series.sh), with `git am` onto a fresh branch (memcg-noslab/<base>)
# from the base commit, then point the patched worktree at it. Only files
# that differ are rewritten, so builds stay incremental. Each commit takes
# its patch's date as committer date: the same patches give the same
# commits, which build-kernel.sh finds up to date (a new commit id is a
# new build of every kernel of the series, floor and prefixes too). A
# patch that does not apply: name its series, it and the failing hunk,
# abort, and leave the scratch tree on the base.
# Usage: [BASE=6.1] scripts/apply-series.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
no_args "$0" "$@"
load_base

repo=$(src_repo)
ref=$(base_ref)
scratch="$(work_dir)/trees/apply"
tree=$(tree_dir patched)
branch=$(series_branch)
if [ ! -e "$scratch/.git" ]; then
	add_worktree "$scratch" "$ref"
fi
git -C "$scratch" am --abort >/dev/null 2>&1 || true
git -C "$scratch" checkout -q -f --detach "$ref"
git -C "$scratch" clean -q -f -d

n=0
while IFS= read -r p; do
	[ -f "$p" ] || die "the series file of $(patch_label "$p") names it, but $p does not exist"
	n=$((n + 1))
	if ! out=$(git -C "$scratch" am -q --committer-date-is-author-date "$p" 2>&1); then
		printf '%s\n' "$out" | grep -E '^(error|Patch failed|fatal)' >&2 || printf '%s\n' "$out" >&2
		loc=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: \(.*\):\([0-9]*\)$/\1 \2/p' | head -n 1)
		if [ -n "$loc" ]; then
			# Print the hunk that failed: the first one of that file
			# whose old-start line is the one git names.
			awk -v f="${loc% *}" -v l="${loc#* }" '
				/^diff --git / { infile = ($3 == "a/" f); show = 0 }
				infile && /^@@ / { split($2, a, ","); show = (substr(a[1], 2) == l) }
				infile && show { print "    " $0 }' "$p" >&2
		fi
		git -C "$scratch" am --abort >/dev/null 2>&1 || true
		git -C "$scratch" checkout -q -f --detach "$ref"
		git -C "$scratch" clean -q -f -d
		die "patch $(patch_label "$p") (#$n of the base's patches) does not apply to $(git -C "$scratch" log -1 --format=%s "$ref")${loc:+ (hunk at ${loc/ /:})}; tree left on the base"
	fi
done < <(series_patches)

head=$(git -C "$scratch" rev-parse HEAD)
git -C "$repo" branch -f "$branch" "$head"
[ -z "${KSRC:-}" ] || msg "created/updated branch $branch in $KSRC"
if [ ! -e "$tree/.git" ]; then
	add_worktree "$tree" "$head"
else
	git -C "$tree" checkout -q -f --detach "$head"
fi
msg "applied $n patches: $tree at $(git -C "$tree" rev-parse --short HEAD) ($branch)"

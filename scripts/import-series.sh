#!/bin/bash
# Maintainer tool, the way back of export-patches.sh: make a development
# branch of the base repository from a series of patches/ (as git am
# applies it, with the cover letter's subject and text as the branch
# description), so that export-patches.sh can regenerate the series after
# an edit. On a base with a stack (patches/<base>/stack) the branch is the
# base, then the series the named one needs (series_needs in
# scripts/lib/series.sh), then the series itself: it starts where its needs end,
# which is where export-patches.sh --series takes it from.
# Usage: [BASE=...] scripts/import-series.sh [--series NAME] [BRANCH]
#   --series  the series (required on a base with a stack, e.g. noslab)
#   BRANCH    default: dev; replaced if it exists
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
series=''
if [ "${1:-}" = --series ]; then
	[ $# -ge 2 ] || die "--series needs a value"
	series=$2
	shift 2
fi
branch_arg "$0" "$@"
load_base
series=$(series_arg "$series")

repo=$(src_repo)
cover=$(series_cover "$series")
[ "$(series_send "$series")" = alone ] || [ -f "$cover" ] || die "no cover letter $cover"
mapfile -t needp < <(for s in $(series_needs "$series"); do series_patches "$s"; done)
mapfile -t ps < <(series_patches "$series")
[ ${#ps[@]} -gt 0 ] || die "series $series has no patches"

# git am in the harness's scratch tree (apply-series.sh resets it).
scratch=$(tree_dir bisect)
git -C "$scratch" am --abort >/dev/null 2>&1 || true
checkout_tree "$scratch" "$(base_ref)"
for p in "${needp[@]}" "${ps[@]}"; do
	git -C "$scratch" am -q "$p" || {
		git -C "$scratch" am --abort
		die "$(patch_label "$p") does not apply (scripts/apply-series.sh names the hunk)"
	}
done
git -C "$repo" branch -f "$ref" "$(git -C "$scratch" rev-parse HEAD)"
git -C "$scratch" checkout -q -f --detach "$(base_ref)"
if [ -f "$cover" ]; then
	git -C "$repo" config "branch.$ref.description" "$(cover_text "$cover")"
fi
msg "branch $ref in $repo: ${needp[0]:+${#needp[@]} patches of $(series_needs "$series" | paste -sd' ' -), then }the ${#ps[@]} of series $series$([ ! -f "$cover" ] || echo ', cover letter as its description')"

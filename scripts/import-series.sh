#!/bin/bash
# Maintainer tool, the way back of export-patches.sh: make a development
# branch of the base repository from patches/ (the series as git am applies
# it, with the cover letter's subject and text as the branch description),
# so that export-patches.sh can regenerate the series after an edit.
# Usage: scripts/import-series.sh [BRANCH]   (default: dev; replaced if it exists)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
branch_arg "$0" "$@"
load_base

repo=$(src_repo)
cover="$REPO_ROOT/$BASE_PATCHDIR/0000-cover-letter.patch"
[ -f "$cover" ] || die "no cover letter $cover"

"$REPO_ROOT/scripts/apply-series.sh"
git -C "$repo" branch -f "$ref" "$(series_branch)"
desc=$(cover_text "$cover")
git -C "$repo" config "branch.$ref.description" "$desc"
msg "branch $ref in $repo: the series of $BASE_SERIES, cover letter as its description"

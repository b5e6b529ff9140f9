#!/bin/bash
# Maintainer tool, the way back of export-patches.sh: make a development
# branch of the base repository from patches/ (the series as git am applies
# it, with the cover letter's subject and text as the branch description),
# so that export-patches.sh can regenerate the series after an edit.
# Usage: scripts/import-series.sh [BRANCH]   (default: dev; replaced if it exists)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
load_base

branch_arg "$0" "$@"
repo=$(src_repo)
cover="$REPO_ROOT/$BASE_PATCHDIR/0000-cover-letter.patch"
[ -f "$cover" ] || die "no cover letter $cover"

"$REPO_ROOT/scripts/apply-series.sh"
git -C "$repo" branch -f "$ref" "$(series_branch)"
# Subject without "[PATCH 00/N] ", unfolded; the body up to the shortlog
# ("Name (N):"), without the blank lines before it.
desc=$(awk '
	/^Subject: / { sub(/^Subject: \[PATCH[^]]*\] /, ""); s = $0; insubj = 1; next }
	insubj && /^ / { sub(/^ /, ""); s = s " " $0; next }
	{ insubj = 0 }
	!body && /^$/ { body = 1; print s; print ""; next }
	body && /^[^ ].* \([0-9]+\):$/ { exit }
	body { print }' "$cover")
git -C "$repo" config "branch.$ref.description" "$desc"
msg "branch $ref in $repo: the series of $BASE_SERIES, cover letter as its description"

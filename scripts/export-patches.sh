#!/bin/bash
# Maintainer tool: regenerate patches/ and series from a development branch
# of the base repository with `git format-patch` (cover letter from the
# branch description: first line subject, rest body).
# Usage: scripts/export-patches.sh [BRANCH]   (default: dev)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
branch_arg "$0" "$@"
load_base

repo=$(src_repo)
base=$(base_ref)
git -C "$repo" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "no branch '$ref' in $repo"
[ -n "$(git -C "$repo" rev-list "$base..$ref")" ] ||
	die "branch $ref has no commits on top of the base ${base:0:12}: nothing to export (patches/ left as it is)"
git -C "$repo" config "branch.$ref.description" >/dev/null ||
	die "branch $ref has no description (git branch --edit-description): the cover letter needs one"
pkgver=$(git -C "$repo" log -1 --format=%B "$base" | sed -n 's/^Debian package: //p')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# To: the people get_maintainer.pl names, Cc: the lists it names.
format_patches "$repo" -q -o "$tmp/gm" "$base..$ref"
gm=(perl scripts/get_maintainer.pl --mpath "$(newest_maintainers)" --no-rolestats --no-git --no-git-fallback)
mapfile -t to < <(cd "$(tree_dir base)" && "${gm[@]}" --no-l "$tmp"/gm/*.patch)
mapfile -t cc < <(cd "$(tree_dir base)" && "${gm[@]}" --no-m --no-r "$tmp"/gm/*.patch)
rm -rf "$tmp/gm"
# The cover letter is signed by the project's identity, as the patches are.
GIT_COMMITTER_NAME="memcg-noslab project" GIT_COMMITTER_EMAIL=memcg-noslab@example.org \
	format_patches "$repo" -q --cover-letter \
		--cover-from-description=subject --base="$base" -o "$tmp" \
		"${to[@]/#/--to=}" "${cc[@]/#/--cc=}" "$base..$ref"
# base-commit: a commit others can resolve when the conf knows one (the
# upstream release the Debian package is made of), else the harness's own
# base commit.
if [ -n "${BASE_UPSTREAM_COMMIT:-}" ]; then
	sed -i "s/^base-commit: [0-9a-f]\{40\}\$/base-commit: $BASE_UPSTREAM_COMMIT/" "$tmp/0000-cover-letter.patch"
fi
rm -f "$REPO_ROOT/$BASE_PATCHDIR"/*.patch
mkdir -p "$REPO_ROOT/$BASE_PATCHDIR"
cp "$tmp"/*.patch "$REPO_ROOT/$BASE_PATCHDIR/"
{
	echo "# Series for Linux $BASE.y, base: Debian ${pkgver:-$BASE_PKG}"
	echo "# (base-commit in the cover letter). Apply in this order with git am"
	echo "# or quilt; lines starting with # are not applied."
	for p in "$tmp"/*.patch; do
		b=${p##*/}
		case "$b" in 0000-*) echo "# $b" ;; *) echo "$b" ;; esac
	done
} >"$REPO_ROOT/$BASE_SERIES"
msg "exported $(($(find "$tmp" -name '*.patch' | wc -l) - 1)) patches and a cover letter from $ref"

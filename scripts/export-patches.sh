#!/bin/bash
# Maintainer tool: regenerate a series' folder and series file under
# patches/ from a development branch of the base repository with
# `git format-patch`, numbered from 0001 (cover letter from the branch
# description: first line subject, rest body; To/Cc from get_maintainer.pl
# of the series' patches only; an RFC stays an RFC). On a base with a
# stack the branch is the base, the series the named one needs, then the
# series (as import-series.sh --series makes it): the series starts where
# its needs end, and those first commits must be the needed series'
# stored patches (same patch-ids), which the cover letter names as
# prerequisite-patch-id lines. A series the stack sends alone gets no
# cover letter.
# Usage: [BASE=...] scripts/export-patches.sh [--series NAME] [BRANCH]
#   --series  the series (required on a base with a stack, e.g. noslab)
#   BRANCH    default: dev
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
base=$(base_ref)
dir=$(series_dir "$series")
git -C "$repo" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "no branch '$ref' in $repo"
# Where the series starts: after one commit a patch of the series it needs.
mapfile -t needp < <(for s in $(series_needs "$series"); do series_patches "$s"; done)
mapfile -t commits < <(git -C "$repo" rev-list --reverse "$base..$ref")
start=$base
if [ ${#needp[@]} -gt 0 ]; then
	[ ${#commits[@]} -gt ${#needp[@]} ] ||
		die "branch $ref has ${#commits[@]} commits on the base: not the ${#needp[@]} of what $series needs ($(series_needs "$series" | paste -sd' ' -)) and more"
	for i in "${!needp[@]}"; do
		[ "$(git patch-id --stable <"${needp[i]}" | cut -d' ' -f1)" = \
			"$(git -C "$repo" show "${commits[i]}" | git patch-id --stable | cut -d' ' -f1)" ] ||
			die "commit $((i + 1)) of $ref ($(git -C "$repo" log -1 --format=%s "${commits[i]}")) is not $(patch_label "${needp[i]}"): the branch must start with the series $series needs, as stored (export those first)"
	done
	start=${commits[${#needp[@]} - 1]}
fi
[ -n "$(git -C "$repo" rev-list "$start..$ref")" ] ||
	die "branch $ref has no commits of $series on top of ${start:0:12}: nothing to export (patches/ left as it is)"
cover=()
if [ "$(series_send "$series")" = cover ]; then
	git -C "$repo" config "branch.$ref.description" >/dev/null ||
		die "branch $ref has no description (git branch --edit-description): the cover letter needs one"
	cover=(--cover-letter --cover-from-description=subject)
	! series_rfc "$series" || cover+=(--rfc)
fi
pkgver=$(git -C "$repo" log -1 --format=%B "$base" | sed -n 's/^Debian package: //p')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gm=(perl scripts/get_maintainer.pl --mpath "$(newest_maintainers)" --no-rolestats --no-git --no-git-fallback)
# export_range FROM TO FIRST ARGS...: `git format-patch` of FROM..TO into
# $tmp, the first file numbered FIRST, To: the people get_maintainer.pl
# names for those patches, Cc: the lists it names. The cover letter is
# signed by the project's identity, as the patches are.
export_range() {
	local from=$1 to=$2 first=$3 t c
	shift 3
	rm -rf "$tmp/gm"
	format_patches "$repo" -q -o "$tmp/gm" "$from..$to"
	mapfile -t t < <(cd "$(tree_dir base)" && "${gm[@]}" --no-l "$tmp"/gm/*.patch)
	mapfile -t c < <(cd "$(tree_dir base)" && "${gm[@]}" --no-m --no-r "$tmp"/gm/*.patch)
	rm -rf "$tmp/gm"
	GIT_COMMITTER_NAME="memcg-noslab project" GIT_COMMITTER_EMAIL=memcg-noslab@example.org \
		format_patches "$repo" -q "$@" --start-number="$first" -o "$tmp" \
			"${t[@]/#/--to=}" "${c[@]/#/--cc=}" "$from..$to"
}
if [ "$(series_send "$series")" = alone ]; then
	# Each patch a message of its own: no numbering, its own To/Cc, and
	# no base-commit (each applies to the base release on its own).
	n=0 prev=$start
	for c in $(git -C "$repo" rev-list --reverse "$start..$ref"); do
		n=$((n + 1))
		export_range "$prev" "$c" "$n" --no-numbered
		prev=$c
	done
else
	# --base with a start above the base: the needs become
	# prerequisite-patch-id lines.
	export_range "$start" "$ref" 1 "${cover[@]}" --base="$base"
fi
# base-commit: a commit others can resolve when the conf knows one (the
# upstream release the Debian package is made of), else the harness's own
# base commit.
if [ -n "${BASE_UPSTREAM_COMMIT:-}" ] && [ -f "$tmp/0000-cover-letter.patch" ]; then
	sed -i "s/^base-commit: [0-9a-f]\{40\}\$/base-commit: $BASE_UPSTREAM_COMMIT/" "$tmp/0000-cover-letter.patch"
fi
mkdir -p "$dir"
rm -f "$dir"/*.patch
cp "$tmp"/*.patch "$dir/"
{
	if [ -n "${BASE_STACK:-}" ]; then
		echo "# Series $series of the Linux $BASE.y stack ($BASE_STACK), base: Debian ${pkgver:-$BASE_PKG}"
		how='base-commit in the cover letter'
		[ "$(series_send "$series")" != alone ] || how='sent a message a patch, without a cover letter'
		echo "# ($how)$( [ ${#needp[@]} -eq 0 ] || echo ", on top of: $(series_needs "$series" | paste -sd' ' -)")."
		echo "# Apply in this order with git am or quilt; lines starting with # are"
		echo "# not applied."
	else
		echo "# Series for Linux $BASE.y, base: Debian ${pkgver:-$BASE_PKG}"
		echo "# (base-commit in the cover letter). Apply in this order with git am"
		echo "# or quilt; lines starting with # are not applied."
	fi
	for p in "$tmp"/*.patch; do
		b=${p##*/}
		case "$b" in 0000-*) echo "# $b" ;; *) echo "$b" ;; esac
	done
} >"$(series_file "$series")"
msg "exported $(find "$tmp" -name '0[0-9]*.patch' ! -name '0000-*' | wc -l) patches${cover[0]:+ and a cover letter} of series $series from $ref into ${dir#"$REPO_ROOT"/}"

#!/bin/bash
# Make the base kernel tree: unpack Debian's linux-source package into the
# cache and turn it into a git repository with one commit, tagged
# debian-base, that records the package version and `make kernelversion`.
# With KSRC=/path/to/linux, check that tree instead and touch nothing.
# Usage: [BASE=6.1] [KSRC=/path/to/linux] scripts/prepare-base.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
no_args "$0" "$@"
load_base

# check_version DIR [NAME]: `make kernelversion` of DIR must match the base.
check_version() {
	local v
	v=$(make -s -C "$1" kernelversion 2>/dev/null) || die "${2:-$1}: 'make kernelversion' failed: not a kernel tree"
	[[ $v =~ $BASE_VERSION_RE ]] || die "${2:-$1} is Linux $v, not a $BASE.y tree (base '$BASE')"
	printf '%s\n' "$v"
}

if [ -n "${KSRC:-}" ]; then
	# (load_base checked that KSRC is a git repository.)
	ref=$(base_ref)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git -C "$KSRC" show "$ref:Makefile" >"$tmp/Makefile" || die "KSRC: no Makefile at $ref"
	v=$(check_version "$tmp" "KSRC=$KSRC")
	msg "using your tree $KSRC at $(git -C "$KSRC" rev-parse --short "$ref") (Linux $v)"
	msg "the harness works in git worktrees under $(work_dir) and creates branch $(series_branch) in $KSRC; it changes nothing else there"
	exit 0
fi

if [ -n "${BASE_SUITE:-}" ]; then
	# From a suite the host does not use (mainline: unstable).
	{ read -r BASE_TARBALL && read -r pkgver; } < <("$REPO_ROOT/scripts/fetch-base-package.sh") ||
		die "could not fetch the $BASE base package"
	pkgname=$(basename "$BASE_TARBALL" .tar.xz)
else
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL not found: install Debian package '$BASE_PKG'"
	pkgver=$(dpkg-query -W -f='${Version}' "$BASE_PKG")
	pkgname=$BASE_PKG
fi
[ "$pkgname $pkgver" = "$BASE_PKG $BASE_PKG_VERSION" ] ||
	msg "note: $pkgname is $pkgver here; the series was made on $BASE_PKG $BASE_PKG_VERSION"
# What the cached tree records: the version (and the package when it is not
# BASE_PKG, as when unstable moved on to a newer linux-source-7.x).
stampval=$pkgver
[ "$pkgname" = "$BASE_PKG" ] || stampval="$pkgname $pkgver"
repo=$(src_repo)
stamp="$repo/.git/debian-package-version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stampval" ] &&
	git -C "$repo" rev-parse -q --verify debian-base >/dev/null; then
	msg "base tree $repo is $pkgname $pkgver (cached)"
	exit 0
fi

# The package changed (or no tree yet): start over, then swap in atomically.
tmp="$repo.new"
rm -rf "$tmp"
need_space "$(dirname "$repo")" 4 "unpacking $pkgname $pkgver and making its git repository"
mkdir -p "$tmp"
msg "unpacking $BASE_TARBALL ($pkgname $pkgver)"
tar -xJf "$BASE_TARBALL" -C "$tmp" --strip-components=1
v=$(check_version "$tmp")
msg "making a git repository of Linux $v (this takes a minute)"
git -C "$tmp" init -q -b debian-base-branch
# Debian's .gitignore ignores every top-level path ("/*"), so a plain
# `git add -A` would add nothing: force it. Builds go to O= directories.
git -C "$tmp" add -f -A
# Fixed identity and dates (the tarball's), so the base commit has the same
# hash on every machine and patches can name it in base-commit:.
stamp_date="$(date -u -r "$BASE_TARBALL" '+%Y-%m-%dT%H:%M:%SZ')"
GIT_AUTHOR_DATE=$stamp_date GIT_COMMITTER_DATE=$stamp_date \
	GIT_AUTHOR_NAME="memcg-noslab harness" GIT_AUTHOR_EMAIL=memcg-noslab@localhost \
	GIT_COMMITTER_NAME="memcg-noslab harness" GIT_COMMITTER_EMAIL=memcg-noslab@localhost \
	git -C "$tmp" -c core.autocrlf=false -c commit.gpgsign=false commit -q -m "Linux $v from Debian $pkgname $pkgver

Unpacked from /usr/src/$pkgname.tar.xz.
make kernelversion: $v
Debian package: $pkgname $pkgver"
git -C "$tmp" tag debian-base
printf '%s\n' "$stampval" >"$tmp/.git/debian-package-version"
# Worktrees and builds of an older tree are stale now.
rm -rf "$(work_dir)/trees" "$(work_dir)/build"
rm -rf "$repo"
mv "$tmp" "$repo"
git -C "$repo" worktree prune
sha=$(git -C "$repo" rev-parse debian-base)
[ "$pkgname $pkgver" != "$BASE_PKG $BASE_PKG_VERSION" ] || [ "$sha" = "$BASE_COMMIT" ] ||
	die "base commit is $sha, expected $BASE_COMMIT for $pkgname $pkgver: the unpacked tree differs"
msg "base tree ready: $repo (tag debian-base = ${sha:0:12})"

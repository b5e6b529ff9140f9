#!/bin/bash
# Fetch the source package of a base that comes from a Debian suite the
# host does not use (BASE_SUITE in bases/<base>.conf, e.g. unstable for
# mainline), without touching the host's apt configuration: a private
# sources list and package lists under the cache, `apt-get download`,
# `dpkg-deb -x`. Never installs anything.
# Usage: BASE=7.2 scripts/fetch-base-package.sh [--orig]
#   Prints the unpacked package's tarball path, then its version.
#   --orig also fetches Debian's upstream tarball (linux_<ver>.orig.tar.xz)
#   of the same release and prints its path as a third line.
# Unstable keeps one linux-source-7.x at a time: when the newest package
# matching BASE_PKG_RE is not BASE_PKG, say so and use it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/apt.sh
. "$REPO_ROOT/scripts/lib/apt.sh"
orig=''
case "${1:-}" in
'') ;;
--orig) orig=1 ;;
-h | --help) print_usage "$0"; exit 0 ;;
*) die "unknown argument '$1' (see $0 --help)" ;;
esac
load_base
[ -n "${BASE_SUITE:-}" ] || die "base $BASE has no BASE_SUITE: its package comes from the host's apt sources"
need_cmd apt-get apt
need_cmd dpkg-deb dpkg

private_apt
d=$APT_DIR
pkg=$(apt-cache "${APT_OPTS[@]}" pkgnames linux-source- 2>/dev/null |
	grep -E "$BASE_PKG_RE" | sort -V | tail -n 1) ||
	die "Debian $BASE_SUITE has no package matching $BASE_PKG_RE"
[ "$pkg" = "$BASE_PKG" ] ||
	msg "note: Debian $BASE_SUITE now has $pkg, not $BASE_PKG (the series was made on $BASE_PKG $BASE_PKG_VERSION): using $pkg"
ver=$(apt-cache "${APT_OPTS[@]}" show "$pkg" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$ver" ] || die "no version of $pkg in Debian $BASE_SUITE"
deb="$d/cache/archives/${pkg}_${ver}_all.deb"
tarball="$d/pkg/$pkg-$ver/usr/src/$pkg.tar.xz"
if [ ! -f "$tarball" ]; then
	if [ ! -f "$deb" ]; then
		msg "downloading $pkg $ver from Debian $BASE_SUITE"
		apt_get "$d/cache/archives/partial" "$d/download.log" download "$pkg=$ver" ||
			die "download of $pkg $ver failed (log: $d/download.log)"
		mv "$d/cache/archives/partial/${pkg}_${ver}_all.deb" "$deb"
	fi
	rm -rf "$d/pkg/$pkg-$ver.new"
	dpkg-deb -x "$deb" "$d/pkg/$pkg-$ver.new"
	[ -f "$d/pkg/$pkg-$ver.new/usr/src/$pkg.tar.xz" ] || die "$deb holds no /usr/src/$pkg.tar.xz"
	mv "$d/pkg/$pkg-$ver.new" "$d/pkg/$pkg-$ver"
fi
printf '%s\n%s\n' "$tarball" "$ver"

[ -n "$orig" ] || exit 0
upver=${ver%-*}
f="$d/src/linux_$upver.orig.tar.xz"
if [ ! -f "$f" ]; then
	msg "downloading Debian's linux_$upver.orig.tar.xz (source package linux $ver)"
	mkdir -p "$d/src/partial"
	apt_get "$d/src/partial" "$d/source.log" source --download-only "linux=$ver" ||
		die "download of source package linux $ver failed (log: $d/source.log)"
	mv "$d/src/partial/linux_$upver.orig.tar.xz" "$f"
	rm -rf "$d/src/partial"
fi
printf '%s\n' "$f"

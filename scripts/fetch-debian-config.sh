#!/bin/bash
# Fetch Debian's own amd64 kernel config for the base: the linux-config-X.Y
# package of the base's release (from the host's apt sources, or for a
# BASE_SUITE base from the private apt under the cache), with
# `apt-get download` and `dpkg-deb -x`; nothing is installed. The version
# is the one the series was made on (BASE_PKG_VERSION) if Debian still has
# it, else the newest, saying so.
# Usage: [BASE=6.1] scripts/fetch-debian-config.sh
#   Prints the path of the unpacked config, then the package version.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/apt.sh
. "$REPO_ROOT/scripts/lib/apt.sh"
no_args "$0" "$@"
load_base
need_cmd apt-get apt
need_cmd dpkg-deb dpkg
need_cmd xz xz-utils

pkg=${BASE_PKG/linux-source-/linux-config-}
[ -z "${BASE_SUITE:-}" ] || private_apt
vers=$(apt-cache "${APT_OPTS[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V) || vers=''
[ -n "$vers" ] || die "Debian package '$pkg' is not available (apt sources${BASE_SUITE:+ of $BASE_SUITE})"
if grep -qxF "$BASE_PKG_VERSION" <<<"$vers"; then
	ver=$BASE_PKG_VERSION
else
	ver=$(tail -n 1 <<<"$vers")
	msg "note: Debian has no $pkg $BASE_PKG_VERSION (the series' base): using $ver"
fi
d="$CACHE_DIR/$BASE/debian-config/$ver"
cfg="$d/config.amd64_none_amd64"
if [ ! -f "$cfg" ]; then
	rm -rf "$d.new"
	mkdir -p "$d.new/dl"
	msg "downloading $pkg $ver"
	apt_get "$d.new/dl" "$d.new/download.log" download "$pkg=$ver" ||
		die "download of $pkg $ver failed (log: $d.new/download.log)"
	dpkg-deb -x "$d.new/dl/"*.deb "$d.new/x"
	xz=$(find "$d.new/x" -name 'config.amd64_none_amd64.xz' | head -n 1)
	[ -n "$xz" ] || die "$pkg $ver holds no config.amd64_none_amd64.xz"
	xz -dc "$xz" >"$d.new/config.amd64_none_amd64"
	rm -rf "$d.new/dl" "$d.new/x"
	rm -rf "$d"
	mv "$d.new" "$d"
fi
printf '%s\n%s\n' "$cfg" "$ver"

#!/bin/bash
# Fetch the newest upstream tarball of a base's stable line that Debian's
# source archive has (linux_<ver>.orig.tar.xz: upstream minus the DFSG
# removals), for a base whose package comes from the host's own suites
# (BASE_ORIG_SUITES, BASE_ORIG_RE in bases/<base>.conf; 6.12: the newest
# 6.12.y of trixie, its updates and security suites, and bookworm-security).
# Reads deb-src lines from a private sources list under the cache, never
# the host's apt configuration; downloads, never installs.
# Usage: BASE=6.12 scripts/fetch-orig-tarball.sh
#   Prints the tarball's path, then its upstream version. Exits 77 when the
#   mirror serves none of the tarballs its Sources index names.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/apt.sh
. "$REPO_ROOT/scripts/lib/apt.sh"
no_args "$0" "$@"
load_base
[ -n "${BASE_ORIG_SUITES:-}" ] || die "base $BASE has no BASE_ORIG_SUITES in bases/$BASE.conf"
[ -n "${BASE_ORIG_RE:-}" ] || die "base $BASE has no BASE_ORIG_RE in bases/$BASE.conf"
need_cmd dpkg dpkg

# Debian's security suites live under debian-security.
mapfile -t lines < <(for s in $BASE_ORIG_SUITES; do
	case "$s" in
	*-security) echo "deb-src $DEBIAN_KEY http://deb.debian.org/debian-security $s main" ;;
	*) echo "deb-src $DEBIAN_KEY http://deb.debian.org/debian $s main" ;;
	esac
done)
apt_in "$CACHE_DIR/$BASE/apt-orig" "the sources of Debian $BASE_ORIG_SUITES" "${lines[@]}"
d=$APT_DIR
mkdir -p "$d/src"

# Source package "linux" (the suite's own kernel) and "linux-<base>" (a
# newer kernel built for an older release, e.g. linux-6.12 in bookworm),
# newest upstream version first. A mirror may lack a file its own Sources
# index names (seen: HTTP 404): then the next source package of the same
# version, else the next version, and a note says so.
mapfile -t cands < <(apt-cache "${APT_OPTS[@]}" showsrc linux "linux-$BASE" 2>/dev/null |
	awk '/^Package: / { p = $2 } /^Version: / { v = $2; u = v; sub(/-[^-]*$/, "", u); print u, p "=" v }' |
	awk -v re="$BASE_ORIG_RE" '$1 ~ re' | sort -u | sort -k1,1Vr)
[ ${#cands[@]} -gt 0 ] || die "no source package linux or linux-$BASE matching $BASE_ORIG_RE in Debian $BASE_ORIG_SUITES"
newest=${cands[0]%% *}
for c in "${cands[@]}"; do
	up=${c%% *} src=${c#* }
	f="$d/src/linux_$up.orig.tar.xz"
	if [ ! -f "$f" ]; then
		msg "downloading Debian's orig tarball of $up (source package $src)"
		rm -rf "$d/src/partial"
		mkdir -p "$d/src/partial"
		if ! apt_get "$d/src/partial" "$d/source.log" source --download-only "$src"; then
			grep -q '404' "$d/source.log" ||
				die "download of source package $src failed (log: $d/source.log)"
			msg "note: the mirror does not serve $src (HTTP 404), trying the next"
			continue
		fi
		o=$(find "$d/src/partial" -maxdepth 1 -name "linux*_$up.orig.tar.xz" | head -n 1)
		[ -n "$o" ] || die "source package $src has no orig tarball of $up (log: $d/source.log)"
		mv "$o" "$f"
		rm -rf "$d/src/partial"
	fi
	[ "$up" = "$newest" ] || msg "note: using $up, not the newest $newest the archive lists (not served by the mirror)"
	printf '%s\n%s\n' "$f" "$up"
	exit 0
done
echo "error: the mirror serves no orig tarball of the $BASE_ORIG_RE source packages its index lists (HTTP 404; log: $d/source.log)" >&2
exit 77

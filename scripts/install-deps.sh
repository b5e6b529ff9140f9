#!/bin/bash
# Install the Debian packages the harness needs (only the missing ones),
# for every base in bases/: a base's source package comes from the host's
# apt sources (6.1), or, when its bases/<base>.conf names a BASE_SUITE
# (7.2: unstable), is fetched into the cache by fetch-base-package.sh
# without installing anything from that suite.
# Usage: scripts/install-deps.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
no_args "$0" "$@"

base_pkgs=()
for conf in "$REPO_ROOT"/bases/*.conf; do
	# shellcheck disable=SC2016 # expanded by the inner shell
	p=$(bash -c '. "$1" && [ -z "${BASE_SUITE:-}" ] && echo "$BASE_PKG"' _ "$conf") || continue
	base_pkgs+=("$p")
done

pkgs=(
	"${base_pkgs[@]}" build-essential bc bison flex libelf-dev libssl-dev
	cpio xz-utils kmod rsync git python3 quilt shellcheck
	qemu-system-x86 busybox-static stress-ng libpopt-dev gnuplot-nox git-email b4 codespell
	python3-ply python3-git libmailtools-perl libglib2.0-dev pkg-config
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})"
msg "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed"
for p in "${missing[@]}"; do
	apt-cache show "$p" >/dev/null 2>&1 || die "Debian package '$p' is not available from the configured apt sources"
done
apt-get install -y -q --no-install-recommends "${missing[@]}" |
	grep -E '^(Unpacking|Setting up)' || true
for p in "${missing[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		die "Debian package '$p' failed to install"
done

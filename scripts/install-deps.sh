#!/bin/bash
# Install the Debian 12 packages the harness needs (only the missing ones)
# for the groups asked of the bases asked.
# Usage: scripts/install-deps.sh [--bases all|BASE,...] [--groups all|GROUP,...]
#          [--dry-run]
# --bases: names of bases/<base>.conf (default: all). A base's source
#   package (BASE_PKG) comes from the host's apt sources when its conf has
#   no BASE_SUITE (6.1, 6.12), for every group but profile (each makes the
#   base tree first: prepare-base.sh); a BASE_SUITE base's (7.2: unstable)
#   is fetched into the cache by fetch-base-package.sh, never installed.
#   The send group also makes the newest base's tree (its MAINTAINERS gives
#   To/Cc). With KSRC set the trees come from KSRC: no source package.
# --groups: run-tests.sh's style, apply, bisect, boot, debug, configs, send,
#   arm64; bench (run-bench.sh); profile (profile-workload.sh); all (the default).
# --dry-run: print the packages needed (one line) and the missing ones
#   (another); install nothing.
# No arguments: every group of every base.
# Packages by group (what needs each: the comments in this script):
#   prepare  git make xz-utils debian-archive-keyring: every group but
#            profile (prepare-base.sh, checkout-base.sh, the private apt of
#            fetch-base-package.sh, fetch-debian-config.sh,
#            fetch-orig-tarball.sh)
#   kbuild   build-essential bc bison flex libelf-dev libssl-dev perl kmod
#            rsync: build-kernel.sh, build-kmem-bench.sh
#   guest    cpio busybox-static stress-ng rt-tests postgresql-15
#            libpopt-dev qemu-system-x86: build-initramfs.sh, boot-guest.sh
#   check    perl python3 python3-ply python3-git codespell: checkpatch.pl
#   style    prepare check shellcheck build-essential stress-ng rt-tests
#   apply    prepare quilt
#   bisect   prepare kbuild
#   boot     prepare kbuild guest
#   debug    prepare kbuild guest
#   configs  prepare kbuild guest
#   send     prepare check git-email libmailtools-perl b4
#   arm64    prepare kbuild cpio busybox-static gcc-aarch64-linux-gnu
#            libc6-dev-arm64-cross qemu-system-arm (the guest's arm64
#            busybox comes from a private apt: scripts/lib/guest.sh)
#   bench    prepare kbuild guest python3 gnuplot-nox
#   profile  build-essential libglib2.0-dev pkg-config qemu-system-x86
#            xz-utils debian-archive-keyring python3
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

all_groups=style,apply,bisect,boot,debug,configs,send,arm64,bench,profile
groups=all which=all dry=''
while [ $# -gt 0 ]; do
	case "$1" in
	--groups) [ -n "${2:-}" ] || die "--groups needs a value"; groups=$2; shift ;;
	--bases) [ -n "${2:-}" ] || die "--bases needs a value"; which=$2; shift ;;
	--dry-run) dry=1 ;;
	-h | --help) print_usage "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see $0 --help)" ;;
	esac
	shift
done
[ "$groups" != all ] || groups=$all_groups
mapfile -t all_bases < <(list_bases)
[ "$which" != all ] || which=$(IFS=,; echo "${all_bases[*]}")

# Every group but profile makes the base tree: prepare-base.sh (git
# repository of the unpacked tarball: tar -xJ needs xz; `make
# kernelversion`), checkout-base.sh (git worktree); fetch-base-package.sh,
# fetch-debian-config.sh (style; xz -dc of the config) and
# fetch-orig-tarball.sh (apply) use a private apt that wants
# /usr/share/keyrings/debian-archive-keyring.gpg.
prepare=(git make xz-utils debian-archive-keyring)
# Kernel builds (build-kernel.sh, bisect's make, build-kmem-bench.sh):
# gcc and make; bc (timeconst); bison, flex (kconfig); libelf-dev (objtool:
# UNWINDER_ORC); libssl-dev (certs/extract-cert, sign-file: the kernel's
# documented requirement, though no config set here signs modules); perl
# (kernel-doc of the W=1 kmem_bench.ko build on 6.1, 6.12); kmod (depmod)
# and rsync (headers_install, selftests install): targets the harness
# does not run today.
kbuild=(build-essential bc bison flex libelf-dev libssl-dev perl kmod rsync)
# The guest: build-initramfs.sh (pack_cpio: cpio; static busybox; Debian's
# stress-ng, rt-tests' hackbench and PostgreSQL 15 (server, initdb,
# pgbench) and their libraries copied in; the mqueue selftests link -lpopt
# -static) and boot-guest.sh (qemu-system-x86_64). The host runs no
# PostgreSQL: no cluster is made when the package comes (below).
guest=(cpio busybox-static stress-ng rt-tests postgresql-15 libpopt-dev qemu-system-x86)
# checkpatch.pl (style; send: b4-send.sh): perl, spdxcheck.py (python3 with
# ply and git), --codespell (codespell's dictionary; the callers pass
# --codespell only if /usr/share/codespell/dictionary.txt exists, while
# Debian 12's codespell has it under /usr/lib/python3/dist-packages).
check=(perl python3 python3-ply python3-git codespell)

pkgs=()
for g in ${groups//,/ }; do
	case "$g" in
	# style: the shellcheck check; gcc -static of tests/*.c; stress-ng
	# --dry-run and a hackbench run of tests/workloads.conf; python3:
	# profile-report.py fixture.
	style) pkgs+=("${prepare[@]}" "${check[@]}" shellcheck build-essential stress-ng rt-tests) ;;
	apply) pkgs+=("${prepare[@]}" quilt) ;;
	bisect) pkgs+=("${prepare[@]}" "${kbuild[@]}") ;;
	boot | debug | configs) pkgs+=("${prepare[@]}" "${kbuild[@]}" "${guest[@]}") ;;
	# The arm64 guests (tests/checks/arm64.sh): the cross compiler and
	# its C library (build-kernel.sh, build-kmem-bench.sh, the static
	# test programs of build-initramfs.sh --arch arm64),
	# qemu-system-aarch64 (boot-guest.sh), cpio; the host's busybox-static
	# lists the applets of the guest's, which build-initramfs.sh fetches
	# as busybox-static:arm64 through a private apt (debian-archive-keyring).
	arm64) pkgs+=("${prepare[@]}" "${kbuild[@]}" cpio busybox-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm) ;;
	# git send-email (Debian's git-email wants Mail::Address:
	# libmailtools-perl), b4-send.sh (b4), get_maintainer.pl (perl).
	send) pkgs+=("${prepare[@]}" "${check[@]}" git-email libmailtools-perl b4) ;;
	# bench-report.py (python3) plots with gnuplot's pngcairo.
	bench) pkgs+=("${prepare[@]}" "${kbuild[@]}" "${guest[@]}" python3 gnuplot-nox) ;;
	# The TCG plugin (gcc, glib via pkg-config), qemu-plugin.h from the
	# qemu source package (private apt, .orig.tar.xz), boot-guest.sh;
	# profile-report.py reads the profile.
	profile) pkgs+=(build-essential libglib2.0-dev pkg-config qemu-system-x86 xz-utils debian-archive-keyring python3) ;;
	*) die "unknown group '$g' (groups: ${all_groups//,/, }, or all)" ;;
	esac
done

# Source packages of the bases asked (and of the newest for send).
IFS=, read -ra bases <<<"$which"
for b in "${bases[@]}"; do
	[ -f "$REPO_ROOT/bases/$b.conf" ] || die "unknown base '$b' (bases: ${all_bases[*]}, or all)"
done
[[ ",$groups," != *,send,* ]] || bases+=("${all_bases[-1]}")
if [ -z "${KSRC:-}" ] && [[ ",$groups," =~ ,(style|apply|bisect|boot|debug|configs|send|arm64|bench), ]]; then
	src=()
	for b in "${bases[@]}"; do
		if [ -z "$(base_setting "$b" BASE_SUITE)" ]; then
			src+=("$(base_setting "$b" BASE_PKG)")
		fi
	done
	pkgs=("${src[@]}" "${pkgs[@]}")
fi

declare -A seen
need=() missing=()
for p in "${pkgs[@]}"; do
	[ -z "${seen[$p]:-}" ] || continue
	seen[$p]=1
	need+=("$p")
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ -n "$dry" ]; then
	echo "packages: ${need[*]}"
	echo "missing: ${missing[*]:-none}"
	exit 0
fi
[ ${#missing[@]} -gt 0 ] || exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})"
msg "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
lock=(-o DPkg::Lock::Timeout=600)
# DPkg::Lock::Timeout covers dpkg's lock, not the lists lock of an update
# another apt-get runs: wait for that one here (up to 600 s too).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((i = 0; ; i++)); do
	apt-get -q "${lock[@]}" update >"$log" 2>&1 && break
	if ! grep -q 'Could not get lock' "$log"; then
		tail -n 5 "$log" >&2
		die "apt-get update failed (see above)"
	fi
	[ "$i" -lt 60 ] || die "apt-get update: still no apt lists lock after 600 s: $(grep -m 1 'Could not get lock' "$log")"
	[ "$i" -gt 0 ] || msg "waiting for the apt lists lock (another apt-get runs)"
	sleep 10
done
for p in "${missing[@]}"; do
	apt-cache show "$p" >/dev/null 2>&1 || die "Debian package '$p' is not available from the configured apt sources"
done
# postgresql-common makes and starts a cluster "main" when it is installed,
# unless a file of createcluster.d says not to: the harness only copies the
# binaries into the guest.
if [[ " ${missing[*]} " == *" postgresql-15 "* ]]; then
	mkdir -p /etc/postgresql-common/createcluster.d
	echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/memcg-noslab.conf
fi
apt-get install -y -q "${lock[@]}" --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
	{ tail -n 10 "$log" >&2; die "apt-get install ${missing[*]} failed (see above)"; }
grep -E '^(Unpacking|Setting up)' "$log" || true
for p in "${missing[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		die "Debian package '$p' failed to install"
done

# shellcheck shell=bash
# The guest's initramfs: where it is, busybox, staging and packing. Sourced,
# after scripts/lib.sh and scripts/lib/source.sh.

# initramfs_path [ARCH]: the initramfs with busybox, the guest jobs and
# the test programs of ARCH's guests (x86_64, the default, or arm64).
initramfs_path() {
	case "${1:-x86_64}" in
	x86_64) printf '%s/build/initramfs.cpio\n' "$(work_dir)" ;;
	*) printf '%s/build/initramfs-%s.cpio\n' "$(work_dir)" "$1" ;;
	esac
}

# pgsql_cpio_path: PostgreSQL for the guest's pgbench workloads, made by
# build-initramfs.sh and added to the initramfs of the workloads job.
pgsql_cpio_path() {
	printf '%s/build/pgsql.cpio\n' "$(work_dir)"
}

# need_busybox: a static /bin/busybox, as a guest without libraries needs.
need_busybox() {
	if ! /bin/busybox --list >/dev/null 2>&1 || ldd /bin/busybox >/dev/null 2>&1; then
		die "no static /bin/busybox: install Debian package 'busybox-static'"
	fi
}

# arm64_busybox: the path of a static arm64 busybox: Debian bookworm's
# busybox-static:arm64, fetched with an apt of its own under the cache
# (apt_in: bookworm main for arm64 only, never the host's sources) by
# apt-get download and unpacked with dpkg-deb -x. Needs scripts/lib/apt.sh.
arm64_busybox() {
	local d="$CACHE_DIR/apt-bookworm-arm64" deb host
	apt_in --arch arm64 "$d" "Debian bookworm (arm64)" \
		"deb [arch=arm64 ${DEBIAN_KEY#[} http://deb.debian.org/debian bookworm main"
	mkdir -p "$d/pkg"
	if [ ! -x "$d/pkg/bin/busybox" ]; then
		rm -f "$d"/busybox-static_*_arm64.deb
		apt_get "$d" "$d/download.log" download busybox-static ||
			die "cannot download Debian package 'busybox-static:arm64' (log: $d/download.log)"
		deb=$(ls "$d"/busybox-static_*_arm64.deb)
		dpkg-deb -x "$deb" "$d/pkg"
		basename "$deb" >"$d/pkg/.deb"
	fi
	[ -x "$d/pkg/bin/busybox" ] || die "no bin/busybox in $(cat "$d/pkg/.deb")"
	# stage_guest links the applets of the host's busybox: the same
	# version has the same applets.
	host=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null | sed 's/:/%3a/')
	[[ $(cat "$d/pkg/.deb") == busybox-static_"$host"_arm64.deb ]] ||
		msg "warning: the host's busybox-static is ${host:-not installed}, the guest's $(cat "$d/pkg/.deb"): their applets may differ"
	printf '%s\n' "$d/pkg/bin/busybox"
}

# stage_guest DIR [BUSYBOX]: the start of a guest initramfs in DIR (made
# anew): BUSYBOX (default /bin/busybox, the host's) with a link for each
# applet of the host's busybox (a BUSYBOX of another architecture cannot
# run here: it must be the same Debian version), the guest's init, the
# jobs' tests/guest/lib.sh and the tables the guest reads (tests/*.conf,
# in /tests); the caller adds its jobs to DIR/tests.
stage_guest() {
	local a
	rm -rf "$1"
	mkdir -p "$1"/{bin,sbin,proc,sys,dev,tmp,mnt,tests}
	cp "${2:-/bin/busybox}" "$1/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$1/bin/$a"
	done
	install -m 0755 "$REPO_ROOT/tests/guest/init" "$1/init"
	install -m 0644 "$REPO_ROOT/tests/guest/lib.sh" "$REPO_ROOT"/tests/*.conf \
		"$1/tests/"
}

# pack_cpio DIR FILE: DIR as a newc cpio archive (an initramfs). Fixed
# timestamps and order: the same inputs give the same bytes, so icount
# figures do not move between runs.
pack_cpio() {
	find "$1" -exec touch -h -d @0 {} +
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --reproducible -o -H newc --quiet) >"$2"
}

# shellcheck shell=bash
# The guest's initramfs: where it is, busybox, staging and packing. Sourced,
# after scripts/lib.sh and scripts/lib/source.sh.

# The initramfs with busybox, the guest jobs and the test programs.
initramfs_path() {
	printf '%s/build/initramfs.cpio\n' "$(work_dir)"
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

# stage_guest DIR: the start of a guest initramfs in DIR (made anew):
# busybox with a link for each applet, the guest's init, the jobs'
# tests/guest/lib.sh and the tables the guest reads (tests/*.conf, in
# /tests); the caller adds its jobs to DIR/tests.
stage_guest() {
	local a
	rm -rf "$1"
	mkdir -p "$1"/{bin,sbin,proc,sys,dev,tmp,mnt,tests}
	cp /bin/busybox "$1/bin/busybox"
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

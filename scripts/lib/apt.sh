# shellcheck shell=bash
# Debian packages: an apt of the harness's own (apt_in, private_apt) or the
# host's, and apt-get with its locks waited for. Sourced, after
# scripts/lib.sh.

# apt_in [--arch ARCH] DIR WHAT LINE...: an apt of its own under DIR whose
# sources list is the LINEs (deb or deb-src lines; WHAT names them in
# messages), never the host's configuration; with --arch, its packages are
# those of architecture ARCH alone (APT::Architecture and
# APT::Architectures), e.g. arm64 binaries for a guest. Sets APT_DIR (DIR)
# and APT_OPTS (options for apt-get and apt-cache). Lists younger than a
# day are reused; a failed update with usable lists only warns (offline
# use of a warm cache).
apt_in() {
	local archopt=()
	if [ "$1" = --arch ]; then
		archopt=(-o "APT::Architecture=$2" -o "APT::Architectures=$2")
		shift 2
	fi
	need_cmd apt-get apt
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] ||
		die "no /usr/share/keyrings/debian-archive-keyring.gpg (package debian-archive-keyring)"
	APT_DIR=$1
	local d=$1 what=$2
	shift 2
	mkdir -p "$d/etc" "$d/lists/partial" "$d/cache/archives/partial"
	printf '%s\n' "$@" >"$d/etc/sources.list"
	APT_OPTS=(
		-o "Dir::Etc::SourceList=$d/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
		-o "Dir::State::status=$d/status" -o APT::Sandbox::User=root
		"${archopt[@]}"
	)
	: >"$d/status"
	if [ -z "$(find "$d/lists" -maxdepth 1 \( -name '*Packages*' -o -name '*Sources*' \) -mmin -1440 2>/dev/null)" ]; then
		msg "updating the lists of $what (private, under $d)"
		if ! apt_get "$d" "$d/update.log" update; then
			[ -n "$(find "$d/lists" -maxdepth 1 \( -name '*Packages*' -o -name '*Sources*' \))" ] ||
				die "cannot fetch the lists of $what (log: $d/update.log)"
			msg "warning: update of $what failed, using the lists from $(date -r "$d/lists" +%F)"
		fi
	fi
}

# Without apt_in: the host's apt.
APT_DIR='' APT_OPTS=()

# apt_get DIR LOG ARGS...: apt-get -q ARGS with APT_OPTS, run in DIR (where
# a download lands), its output in LOG. Locks are waited for up to 10
# minutes: dpkg's with DPkg::Lock::Timeout (as scripts/install-deps.sh),
# the private lists of an apt_in with flock (apt does not wait for a lists
# lock: another harness run updating them). A lock still held dies saying
# so; any other failure returns apt-get's status (the caller says what).
apt_get() {
	local dir=$1 log=$2 rc=0 lock=()
	shift 2
	[ -z "$APT_DIR" ] || lock=(flock -w 600 -E 75 "$APT_DIR/harness.lock")
	(cd "$dir" && exec "${lock[@]}" apt-get -q -o DPkg::Lock::Timeout=600 "${APT_OPTS[@]}" "$@") >"$log" 2>&1 || rc=$?
	if [ "$rc" = 75 ] || grep -q '^E: Could not get lock' "$log"; then
		die "apt-get $1: another apt-get or dpkg held the lock it needs (waited up to 10 minutes); run again when that one is done (log: $log)"
	fi
	return "$rc"
}

# The key Debian's archive is signed with, as the sources lines name it.
DEBIAN_KEY='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'

# private_apt: apt_in for a base whose packages come from a Debian suite
# the host does not use (BASE_SUITE), under $CACHE_DIR/$BASE/apt.
private_apt() {
	apt_in "$CACHE_DIR/$BASE/apt" "Debian $BASE_SUITE" \
		"deb $DEBIAN_KEY http://deb.debian.org/debian $BASE_SUITE main" \
		"deb-src $DEBIAN_KEY http://deb.debian.org/debian $BASE_SUITE main"
	mkdir -p "$APT_DIR/pkg"
}

# shellcheck shell=bash
# The base's kernel source: the git repository the harness works from, its
# per-source work directory under the cache, the base commit, and the
# worktrees made from it. Sourced, after scripts/lib.sh.

# The kernel git repository the harness works from: the user's KSRC, or the
# one made from the Debian source package by scripts/prepare-base.sh.
src_repo() {
	if [ -n "${KSRC:-}" ]; then
		printf '%s\n' "$KSRC"
	else
		printf '%s\n' "$CACHE_DIR/$BASE/debian/linux"
	fi
}

# Per-source work directory (worktrees, builds) under the cache.
work_dir() {
	if [ -n "${KSRC:-}" ]; then
		printf '%s/%s/ksrc-%s\n' "$CACHE_DIR" "$BASE" \
			"$(printf '%s' "$(cd "$KSRC" && pwd)" | md5sum | cut -c1-8)"
	else
		printf '%s/%s/debian\n' "$CACHE_DIR" "$BASE"
	fi
}

# The base commit: KSRC_REF (default HEAD) of KSRC, or the tag made from the
# Debian package.
base_ref() {
	if [ -n "${KSRC:-}" ]; then
		git -C "$KSRC" rev-parse --verify -q "${KSRC_REF:-HEAD}^{commit}" ||
			die "KSRC_REF '${KSRC_REF:-HEAD}' is not a commit in $KSRC"
	else
		git -C "$(src_repo)" rev-parse --verify -q "debian-base^{commit}" ||
			die "no base tree yet: run scripts/prepare-base.sh"
	fi
}

# Branch the harness creates (in KSRC too) for the applied series.
series_branch() {
	printf 'memcg-noslab/%s\n' "$BASE"
}

# add_worktree DIR COMMIT: a detached worktree of the source repository.
# (--force: the harness's own worktree may be registered but gone, e.g.
# after the cache was wiped; the user's other worktrees are left alone,
# never pruned.)
add_worktree() {
	need_space "$1" 2 "a kernel tree ($1)"
	mkdir -p "$(dirname "$1")"
	git -C "$(src_repo)" worktree add -q -f --detach "$1" "$2"
}

# need_space PATH GIB WHAT: die, saying what needs the room and where,
# unless the file system PATH is on (PATH or its nearest existing parent)
# has GIB GiB free: a full disk otherwise breaks git am, a build or an
# unpack midway, with logs that cannot even be written.
need_space() {
	local d=$1 avail
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	avail=$(df -Pk "$d" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge $(($2 * 1024 * 1024)) ] ||
		die "$3 needs $2 GiB free on the file system of $d, which has $((avail / 1024)) MiB: free some space, or set CACHE_DIR to another file system (an empty cache grows to about 27 GiB in a run of the test command)"
}

# checkout_tree DIR COMMIT: DIR, a harness-owned worktree (made if it is not
# there), checked out at COMMIT with nothing else in it: tracked files
# reset, untracked ones removed.
checkout_tree() {
	if [ ! -e "$1/.git" ]; then
		add_worktree "$1" "$2"
		return
	fi
	git -C "$1" checkout -q -f --detach "$2" ||
		die "cannot check out $2 in $1 (remove it: git -C $(src_repo) worktree remove --force $1)"
	git -C "$1" clean -q -f -d
}

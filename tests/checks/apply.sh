# shellcheck shell=bash
# The apply group: git am and quilt apply the series, format-patch
# gives it back, the floor experiment applies, the series applies to
# Debian's upstream tarball. group_apply also runs (git am only) before
# the groups that build the patched kernel.
# Sourced by scripts/run-tests.sh, whose check(), note(), logdir, patches,
# base_tree, full, cpus and want() it uses.
# shellcheck disable=SC2154

quilt_applies() {
	local q
	q="$(work_dir)/trees/quilt"
	git -C "$(src_repo)" worktree remove --force "$q" 2>/dev/null || rm -rf "$q"
	add_worktree "$q" "$(base_ref)"
	(cd "$q" && QUILT_PATCHES="$REPO_ROOT/$BASE_PATCHDIR" QUILT_SERIES="$REPO_ROOT/$BASE_SERIES" quilt push -a -q --fuzz=0)
	rm -rf "$q/.pc"
	# Same tree as git am made.
	git -C "$q" add -f -A
	git -C "$q" diff --cached --stat "$(series_branch)"
	git -C "$q" diff --cached --quiet "$(series_branch)"
	local rc=$?
	git -C "$(src_repo)" worktree remove --force "$q"
	return $rc
}

# orig_applies: the series applies with git am to the files it touches, as
# Debian's upstream tarball has them (upstream minus the DFSG removals:
# what reviewers' trees have, unlike linux-source's Debian patches): of the
# base release where the base comes from a private suite (BASE_SUITE), else
# the newest of the base's stable line (BASE_ORIG_SUITES).
orig_applies() {
	local d orig files rc=0
	d=$(mktemp -d)
	if [ -n "${BASE_ORIG_SUITES:-}" ]; then
		orig=$("$REPO_ROOT/scripts/fetch-orig-tarball.sh") || rc=$?
		if [ "$rc" -ne 0 ]; then
			rm -rf "$d"
			return "$rc"
		fi
		echo "upstream version: $(sed -n 2p <<<"$orig")"
		orig=$(sed -n 1p <<<"$orig")
	elif ! orig=$("$REPO_ROOT/scripts/fetch-base-package.sh" --orig | sed -n 3p); then
		rm -rf "$d"
		# Exit 77 (a skip) only when the mirror lacks a file its own
		# Sources index names (seen: HTTP 404 for linux_7.2.13.orig.tar.xz).
		if grep -q '404' "$CACHE_DIR/$BASE/apt/source.log" 2>/dev/null; then
			echo "the Debian mirror does not serve the orig tarball its Sources index names (HTTP 404, $CACHE_DIR/$BASE/apt/source.log)"
			return 77
		fi
		return 1
	fi
	echo "tarball: $orig"
	mapfile -t files < <(grep -h '^diff --git a/' "${patches[@]}" | awk '{ print substr($3, 3) }' | sort -u)
	mkdir -p "$d/t"
	# Files the series creates are not in the tarball: --ignore-failed-read.
	tar -xJf "$orig" -C "$d/t" --strip-components=1 --wildcards \
		"${files[@]/#/*/}" 2>/dev/null || true
	git -C "$d/t" init -q
	git -C "$d/t" add -f -A
	git -C "$d/t" commit -q -m orig
	git -C "$d/t" am -q "${patches[@]}" || rc=1
	rm -rf "$d"
	return $rc
}

# patch_body PATCH [NOLINES]: the diff part of PATCH; with NOLINES, its hunk
# headers without line numbers and its index lines without blob ids.
patch_body() {
	if [ -n "${2:-}" ]; then
		sed -n '/^diff --git/,$p' "$1" | sed -E -e 's/^@@ -[0-9,]+ \+[0-9,]+ @@/@@ @@/' -e 's/^index [0-9a-f]+\.\.[0-9a-f]+/index/'
	else
		sed -n '/^diff --git/,$p' "$1"
	fi
}

format_patch_roundtrip() {
	local tmp rc=0 p b hunks=''
	tmp=$(mktemp -d)
	format_patches "$(src_repo)" -q -o "$tmp" "$(base_ref)..$(series_branch)"
	# On another package version than the series' (a newer 6.12.y than
	# the series was made on) the hunks apply at other line numbers: the
	# diffs must still be the same, their @@ line numbers need not.
	if [ -z "${KSRC:-}" ] && [ "$(base_ref)" != "$BASE_COMMIT" ]; then
		echo "note: the base here is not the series' base $BASE_COMMIT: hunk line numbers and blob ids not compared"
		hunks=1
	fi
	for p in "${patches[@]}"; do
		b=${p##*/}
		[ -f "$tmp/$b" ] || { echo "format-patch made no $b"; rc=1; continue; }
		diff <(patch_body "$p" "$hunks") <(patch_body "$tmp/$b" "$hunks") || rc=1
	done
	rm -rf "$tmp"
	return $rc
}


group_apply() {
	note "group apply"
	f0=$failed
	check "apply: git am of the series onto the base" "$REPO_ROOT/scripts/apply-series.sh"
	am_failed=$((failed - f0))
	if want apply; then
		check "apply: quilt push -a gives the same tree" quilt_applies
		check "apply: git format-patch of the applied branch gives the same diffs" format_patch_roundtrip
		if [ -n "${BASE_SUITE:-}" ]; then
			check "apply: git am onto Debian's upstream tarball (linux_*.orig.tar.xz) of the base release" orig_applies
		elif [ -n "${BASE_ORIG_SUITES:-}" ]; then
			check "apply: git am onto the newest upstream tarball of the base's stable line in Debian's source archive" orig_applies
		fi
		# On a series that did not apply the branch is stale: no verdict.
		if [ -z "${BASE_FLOOR:-}" ]; then
			:
		elif [ "$am_failed" -eq 0 ]; then
			check "apply: the floor experiment applies to the applied series" "$REPO_ROOT/scripts/make-floor-tree.sh"
		else
			note "floor experiment not checked: the series did not apply"
		fi
	fi
}

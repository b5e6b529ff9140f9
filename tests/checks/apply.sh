# shellcheck shell=bash
# The apply group: git am and quilt apply every patch of the base (a
# stack: its series in order), and on a stack each series on the base
# with the series it needs (git am; quilt of its folder alone on the
# needs applied with git am); format-patch gives each series back, the
# floor experiment applies on top of everything, the patches apply to
# Debian's upstream tarball. group_apply also runs (git am of everything
# only) before the groups that build the patched kernel.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"

# The worktree of the quilt and per-series checks (made by group_apply,
# removed at its end: 2 GB).
quilt_tree() {
	printf '%s/trees/quilt\n' "$(work_dir)"
}

# quilt_push SERIES: in the quilt tree, quilt push -a of SERIES' folder,
# with a quilt state directory of its own (.pc-SERIES: one series' state
# must not be read as another's), as README's loop does.
quilt_push() {
	(cd "$(quilt_tree)" && QUILT_PATCHES="$(series_dir "$1")" QUILT_SERIES="$(series_file "$1")" \
		QUILT_PC=".pc-$1" quilt push -a -q --fuzz=0)
}

# same_tree COMMIT: the quilt tree (without quilt's state) is COMMIT's.
same_tree() {
	local q
	q=$(quilt_tree)
	rm -rf "$q"/.pc-*
	git -C "$q" add -f -A
	git -C "$q" diff --cached --stat "$1"
	git -C "$q" diff --cached --quiet "$1"
}

# quilt_applies: quilt pushes every series with patches, in stack order,
# onto the base and gets the tree git am made.
quilt_applies() {
	local s
	checkout_tree "$(quilt_tree)" "$(base_ref)"
	for s in $(stack_series); do
		[ -z "$(series_patches "$s")" ] || quilt_push "$s" || return 1
	done
	same_tree "$(series_branch)"
}

# series_am SERIES: in the quilt tree, git am of the series SERIES needs
# onto the base (their end: series_start[SERIES]), then of SERIES
# (series_end[SERIES]).
declare -gA series_start series_end
series_am() {
	local s q
	q=$(quilt_tree)
	checkout_tree "$q" "$(base_ref)"
	for s in $(series_needs "$1"); do
		echo "git am of $s (needed by $1)"
		mapfile -t ps < <(series_patches "$s")
		[ ${#ps[@]} -eq 0 ] || git -C "$q" am -q "${ps[@]}" || { git -C "$q" am --abort; return 1; }
	done
	series_start[$1]=$(git -C "$q" rev-parse HEAD)
	echo "git am of $1"
	mapfile -t ps < <(series_patches "$1")
	git -C "$q" am -q "${ps[@]}" || { git -C "$q" am --abort; return 1; }
	series_end[$1]=$(git -C "$q" rev-parse HEAD)
}

# series_quilt SERIES: quilt push -a of SERIES alone on the base with its
# needs applied by git am (series_am) gives the tree git am made.
series_quilt() {
	checkout_tree "$(quilt_tree)" "${series_start[$1]}"
	quilt_push "$1" && same_tree "${series_end[$1]}"
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

# format_patch_roundtrip: git format-patch of each series' commits
# (numbered from its first patch's number) gives its patch files back: the
# same names and diffs. A series of a stack is taken as series_am applied
# it, on the base and what it needs (as export-patches.sh made it); the
# others from the applied branch.
format_patch_roundtrip() {
	local tmp rc=0 p b hunks='' s from=0 commits ps first out range
	tmp=$(mktemp -d)
	mapfile -t commits < <(git -C "$(src_repo)" rev-list --reverse "$(base_ref)..$(series_branch)")
	# On another package version than the series' (a newer 6.12.y than
	# the series was made on) the hunks apply at other line numbers: the
	# diffs must still be the same, their @@ line numbers need not.
	if [ -z "${KSRC:-}" ] && [ "$(base_ref)" != "$BASE_COMMIT" ]; then
		echo "note: the base here is not the series' base $BASE_COMMIT: hunk line numbers and blob ids not compared"
		hunks=1
	fi
	for s in $(stack_series); do
		mapfile -t ps < <(series_patches "$s")
		[ ${#ps[@]} -gt 0 ] || continue
		[ $((from + ${#ps[@]})) -le ${#commits[@]} ] || { echo "the branch has fewer commits than the patches"; rc=1; break; }
		first=${ps[0]##*/} out="$tmp/$s"
		# A series of a stack as it was made: on the base and what it
		# needs (series_am's commits), not on every series before it.
		if [ -n "${series_end[$s]:-}" ]; then
			range=${series_start[$s]}..${series_end[$s]}
		else
			range=$( ((from == 0)) && base_ref || echo "${commits[from - 1]}")..${commits[from + ${#ps[@]} - 1]}
		fi
		format_patches "$(src_repo)" -q -o "$out" --start-number=$((10#${first%%-*})) "$range"
		from=$((from + ${#ps[@]}))
		for p in "${ps[@]}"; do
			b=${p##*/}
			[ -f "$out/$b" ] || { echo "format-patch made no $(patch_label "$p") (it made: $(find "$out" -name '*.patch' -printf '%f\n' | sort | paste -sd' ' -))"; rc=1; continue; }
			diff <(patch_body "$p" "$hunks") <(patch_body "$out/$b" "$hunks") || rc=1
		done
	done
	rm -rf "$tmp"
	return $rc
}

group_apply() {
	note "group apply"
	f0=$failed
	check "apply: git am of every patch onto the base${BASE_STACK:+ (the stack, series after series)}" "$REPO_ROOT/scripts/apply-series.sh"
	am_failed=$((failed - f0))
	want apply || return 0
	if [ -n "${BASE_STACK:-}" ]; then
		for s in $(stack_series); do
			if [ -z "$(series_patches "$s")" ]; then
				note "series $s: no patches yet (no folder $(series_dir "$s")): not applied"
				continue
			fi
			needs=$(series_needs "$s" | paste -sd, -)
			f0=$failed
			check "apply: $s: git am onto the base${needs:+ + $needs}" series_am "$s"
			if [ "$failed" -eq "$f0" ]; then
				check "apply: $s: quilt push -a of its folder alone, on the base${needs:+ + $needs} (git am), gives the same tree" series_quilt "$s"
			else
				note "series $s: quilt not checked: git am failed"
			fi
		done
	fi
	check "apply: quilt push -a${BASE_STACK:+ of each series in stack order} gives the same tree" quilt_applies
	git -C "$(src_repo)" worktree remove --force "$(quilt_tree)" 2>/dev/null || rm -rf "$(quilt_tree)"
	check "apply: git format-patch of the applied branch gives the same diffs${BASE_STACK:+, series by series}" format_patch_roundtrip
	if [ -n "${BASE_SUITE:-}" ]; then
		check "apply: git am onto Debian's upstream tarball (linux_*.orig.tar.xz) of the base release" orig_applies
	elif [ -n "${BASE_ORIG_SUITES:-}" ]; then
		check "apply: git am onto the newest upstream tarball of the base's stable line in Debian's source archive" orig_applies
	fi
	# On patches that did not apply the branch is stale: no verdict.
	if [ -z "${BASE_FLOOR:-}" ]; then
		:
	elif [ "$am_failed" -eq 0 ]; then
		check "apply: the floor experiment applies to the applied patches" "$REPO_ROOT/scripts/make-floor-tree.sh"
	else
		note "floor experiment not checked: the patches did not apply"
	fi
}

# shellcheck shell=bash
# The style group: checkpatch --strict and the form of every patch of a
# base, each series file against its folder (and a stack against the
# folders beside it), the base's distro config fragment.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154

checkpatch_clean() {
	local out cs=() d
	# checkpatch looks for codespell's dictionary under /usr/share only;
	# Debian 12's codespell has it in its Python package.
	for d in /usr/share/codespell/dictionary.txt /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt; do
		if [ -f "$d" ]; then
			cs=(--codespell --codespellfile "$d")
			break
		fi
	done
	# Debian's python3 (with python3-ply, python3-git) for spdxcheck.py.
	# UNKNOWN_COMMIT_ID: the base repository holds one commit and no
	# upstream history, so every upstream commit a message names would be
	# "unknown" here; their form ('commit <12 digits> ("<subject>")') is
	# still checked (GIT_COMMIT_ID).
	# And once more with --no-tree, as a reviewer without this tree runs
	# it: some checks of a commit's description only fire there.
	# checkpatch exits non-zero on any ERROR, WARNING or CHECK, and on a
	# file it cannot read.
	local t rc=0
	for t in '' --no-tree; do
		out=$(cd "$base_tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict ${t:+"$t"} \
			"${cs[@]}" --ignore UNKNOWN_COMMIT_ID --terse --no-summary --showfile "$1" 2>&1) || rc=1
		[ -z "$out" ] || printf '%s: %s\n' "${t:-with the tree}" "$out"
	done
	return "$rc"
}

patch_form() {
	local p=$1
	head -n 1 "$p" | grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' || { echo "not git format-patch output"; return 1; }
	grep -qE '^Subject: \[(RFC )?PATCH' "$p" || { echo "no Subject: [PATCH ...] or [RFC PATCH ...]"; return 1; }
	grep -q '^Signed-off-by: .* <.*@.*>$' "$p" || { echo "no Signed-off-by"; return 1; }
	# A body: text between the headers and the first ---.
	awk 'NR > 1 && /^$/ && !h { h = 1; next } h && /^---$/ { exit } h && NF { b++ } END { exit !(b >= 3) }' "$p" ||
		{ echo "commit message body has fewer than 3 lines"; return 1; }
}

# series_matches_dir SERIES: its series file names exactly the .patch files
# of its folder (the cover letter in a comment).
series_matches_dir() {
	local f listed actual
	f=$(series_file "$1")
	[ -f "$f" ] || { echo "no series file $f (a series of the stack without its folder?)"; return 1; }
	listed=$(grep -oE '[^ #]+\.patch' "$f" | sort)
	actual=$(find "$(series_dir "$1")" -maxdepth 1 -name '*.patch' -printf '%f\n' | sort)
	diff <(printf '%s\n' "$listed") <(printf '%s\n' "$actual")
}

# stack_matches_dirs: the stack lists exactly the folders of the base's
# patch directory that have a series file.
stack_matches_dirs() {
	local actual
	actual=$(find "$REPO_ROOT/$BASE_PATCHDIR" -mindepth 2 -maxdepth 2 -name series -printf '%h\n' |
		xargs -r -n 1 basename | sort)
	diff <(stack_series | sort) <(printf '%s\n' "$actual") | sed 's/^</stack only:/; s/^>/folder only:/'
	[ "$(stack_series | sort)" = "$actual" ]
}

group_style() {
	note "group style"
	for p in "${patches[@]}"; do
		check "style: checkpatch --strict $(patch_label "$p")" checkpatch_clean "$p"
		check "style: format of $(patch_label "$p")" patch_form "$p"
	done
	for s in $(stack_series); do
		f=$(series_file "$s") d=$(series_dir "$s")
		check "style: ${f#"$REPO_ROOT"/} names exactly the files in ${d#"$REPO_ROOT"/}/" series_matches_dir "$s"
	done
	[ -z "${BASE_STACK:-}" ] ||
		check "style: $BASE_STACK names exactly the series folders of $BASE_PATCHDIR/" stack_matches_dirs
	check "style: config-fragments/distro-$BASE.config says what Debian's own config says" \
		"$REPO_ROOT/scripts/check-distro-config.sh"
}

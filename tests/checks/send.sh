# shellcheck shell=bash
# The send group: the cover letter, get_maintainer.pl's To/Cc, git
# send-email --dry-run and b4 send -o.
# Sourced by scripts/run-tests.sh, whose check(), note(), logdir, patches,
# base_tree, full, cpus and want() it uses.
# shellcheck disable=SC2154

cover_letter_real() {
	local c="$REPO_ROOT/$BASE_PATCHDIR/0000-cover-letter.patch"
	[ -f "$c" ] || { echo "no cover letter"; return 1; }
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$c" || { echo "cover letter still has the template text"; return 1; }
	grep -q '^Subject: \[PATCH 0\+/' "$c" || { echo "no Subject: [PATCH 0/N]"; return 1; }
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$c" || { echo "no base-commit:"; return 1; }
	grep -q 'icount' "$c" || { echo "no benchmark method (icount) in the cover letter"; return 1; }
	grep -qi 'changes\|changelog' "$c" || { echo "no changelog section"; return 1; }
	grep -q "$BASE_PKG_VERSION" "$c" || { echo "cover letter does not name $BASE_PKG $BASE_PKG_VERSION"; return 1; }
}

maintainers_in_cover() {
	local c="$REPO_ROOT/$BASE_PATCHDIR/0000-cover-letter.patch" who missing=0 a
	who=$(cd "$(tree_dir patched)" && perl scripts/get_maintainer.pl --mpath "$(newest_maintainers)" --no-rolestats --no-git --no-git-fallback --no-tree \
		"${patches[@]}" 2>/dev/null | grep -o '<[^>]*>' | tr -d '<>' | sort -u)
	[ -n "$who" ] || { echo "get_maintainer.pl found nobody"; return 1; }
	for a in $who; do
		sed -n '1,/^$/p' "$c" | grep -q "$a" || { echo "cover letter To/Cc lacks $a"; missing=1; }
	done
	return $missing
}

# send_email_dry_run [GLOB]: git send-email --dry-run of the series, or of
# the patches GLOB matches in it.
send_email_dry_run() {
	# shellcheck disable=SC2206 # the glob is meant to expand
	local files=("$REPO_ROOT/$BASE_PATCHDIR"/${1:-*.patch})
	[ -f "${files[0]}" ] || { echo "no patch matches ${1:-*.patch}"; return 1; }
	git -C "$(tree_dir patched)" send-email --dry-run --confirm=never --suppress-cc=all \
		--from="memcg-noslab project <memcg-noslab@example.org>" --to=linux-mm@kvack.org \
		--smtp-server=/bin/true "${files[@]}"
}

group_send() {
	note "group send"
	# To/Cc come from the newest base's MAINTAINERS (newest_maintainers):
	# a run of an older base alone on an empty cache makes that tree first,
	# as it made its own base's above (a step, not a check: the count of
	# checks must not depend on what the cache holds).
	newest=$(list_bases | tail -n 1)
	[ -f "$CACHE_DIR/$newest/debian/linux/MAINTAINERS" ] ||
		BASE=$newest "$REPO_ROOT/scripts/prepare-base.sh" >&2
	check "send: cover letter has subject, body, figures, base and changelog" cover_letter_real
	check "send: To/Cc of the cover letter come from get_maintainer.pl" maintainers_in_cover
	check "send: git send-email --dry-run accepts the patches" send_email_dry_run
	check "send: b4 prep --enroll + b4 send -o: messages checkpatch-clean, To/Cc from get_maintainer.pl, our cover letter" \
		"$REPO_ROOT/scripts/b4-send.sh" "$logdir/b4"
	for g in ${BASE_SEND_ALONE:-}; do
		check "send: git send-email --dry-run of $g alone (sendable on its own)" send_email_dry_run "$g"
		check "send: b4 send -o of $g alone (sendable on its own)" \
			"$REPO_ROOT/scripts/b4-send.sh" "$logdir/b4-alone" "$g"
	done
}

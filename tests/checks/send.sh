# shellcheck shell=bash
# The send group, series by series (a base of one series: that one): for a
# series sent with a cover letter (the stack's send column: cover), the
# cover letter, its To/Cc against get_maintainer.pl of that series'
# patches, git send-email --dry-run and b4 send -o of the series; for a
# series sent alone, each patch's git send-email --dry-run and b4 send -o
# on its own. The recipients of each series go into
# $logdir/recipients.txt and the TAP stream.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"

# cover_letter_real SERIES: its cover letter is there, made (no template
# text), "[PATCH 0/N]" or "[RFC PATCH 0/N]" with N its number of patches,
# with base, figures' method, changelog and the package it was made on.
cover_letter_real() {
	local c n want
	c=$(series_cover "$1")
	[ -f "$c" ] || { echo "no cover letter $c"; return 1; }
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$c" || { echo "cover letter still has the template text"; return 1; }
	n=$(sed -n 's/^Subject: \[\(RFC \)\{0,1\}PATCH 0*\/\([0-9]*\)\].*/\2/p' "$c")
	[ -n "$n" ] || { echo "no Subject: [PATCH 0/N] or [RFC PATCH 0/N]"; return 1; }
	want=$(series_patches "$1" | wc -l)
	[ "$n" -eq "$want" ] || { echo "the subject says 0/$n, the series has $want patches"; return 1; }
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$c" || { echo "no base-commit:"; return 1; }
	grep -q 'icount' "$c" || { echo "no benchmark method (icount) in the cover letter"; return 1; }
	grep -qi 'changes\|changelog' "$c" || { echo "no changelog section"; return 1; }
	grep -q "$BASE_PKG_VERSION" "$c" || { echo "cover letter does not name $BASE_PKG $BASE_PKG_VERSION"; return 1; }
}

# series_recipients SERIES [PATCH...]: the addresses get_maintainer.pl
# (the newest base's MAINTAINERS) gives for the patches (default: all of
# SERIES'), one a line.
series_recipients() {
	local s=$1 ps
	shift
	if [ $# -gt 0 ]; then ps=("$@"); else mapfile -t ps < <(series_patches "$s"); fi
	(cd "$(tree_dir patched)" && perl scripts/get_maintainer.pl --mpath "$(newest_maintainers)" --no-rolestats \
		--no-git --no-git-fallback --no-tree "${ps[@]}" 2>/dev/null) | mail_addresses
}

# maintainers_in_cover SERIES: the To/Cc of its cover letter are exactly
# what get_maintainer.pl gives for its patches (no one missing, no one
# that only another series' patches call for).
maintainers_in_cover() {
	local c who have rc=0
	c=$(series_cover "$1")
	who=$(series_recipients "$1")
	[ -n "$who" ] || { echo "get_maintainer.pl found nobody"; return 1; }
	echo "get_maintainer.pl on the $(series_patches "$1" | wc -l) patches of $1: $(paste -sd' ' - <<<"$who")"
	have=$( { mail_header "$c" To; mail_header "$c" Cc; } | mail_addresses)
	diff <(echo "$who") <(echo "$have") | sed -n 's/^</cover letter To\/Cc lacks/p; s/^>/cover letter To\/Cc has, get_maintainer.pl does not give/p'
	[ "$who" = "$have" ] || rc=1
	return $rc
}

# send_email_dry_run FILE...: git send-email --dry-run of the files (a
# series with its cover letter, or one patch), recipients as README's
# command takes them: To from get_maintainer.pl's people, Cc from its
# lists, plus the files' own To/Cc.
send_email_dry_run() {
	local gm
	gm="perl scripts/get_maintainer.pl --mpath $(newest_maintainers) --norolestats --nogit --nogit-fallback"
	git -C "$(tree_dir patched)" send-email --dry-run --confirm=never --quiet \
		--from="memcg-noslab project <memcg-noslab@example.org>" \
		--to-cmd="$gm --nol" --cc-cmd="$gm --nom" --smtp-server=/bin/true "$@"
}

# send_series SERIES: the checks of one series, as the stack sends it.
send_series() {
	local s=$1 t ps p b who
	t=$(series_tag "$s")
	mapfile -t ps < <(series_patches "$s")
	if [ ${#ps[@]} -eq 0 ]; then
		note "series $s: no patches yet (no folder $(series_dir "$s")): not sent"
		return
	fi
	who=$(series_recipients "$s" | paste -sd' ' -)
	printf '%s (%s, %s patches): %s\n' "$s" "$(series_send "$s")" "${#ps[@]}" "$who" >>"$logdir/recipients.txt"
	note "recipients of series $s (get_maintainer.pl on its patches): $who"
	if [ "$(series_send "$s")" = cover ]; then
		check "send: ${t}cover letter has subject 0/N, body, figures, base and changelog" cover_letter_real "$s"
		check "send: ${t}To/Cc of the cover letter = get_maintainer.pl of the series' patches" maintainers_in_cover "$s"
		check "send: ${t}git send-email --dry-run accepts the cover letter and patches" \
			send_email_dry_run "$(series_cover "$s")" "${ps[@]}"
		check "send: ${t}b4 prep --enroll + b4 send -o: messages checkpatch-clean, To/Cc from get_maintainer.pl, our cover letter, v$(series_revision "$s")" \
			"$REPO_ROOT/scripts/b4-send.sh" --series "$s" "$logdir/b4${t:+-$s}"
	fi
	# A series sent alone: each patch a message. BASE_SEND_ALONE (a base of
	# one series): the patches its globs match also alone.
	local alone=()
	if [ "$(series_send "$s")" = alone ]; then
		alone=("${ps[@]}")
	else
		for g in ${BASE_SEND_ALONE:-}; do
			# shellcheck disable=SC2206 # the glob is meant to expand
			alone+=("$(series_dir "$s")"/$g)
		done
	fi
	for p in "${alone[@]}"; do
		b=${p##*/}
		check "send: ${t}git send-email --dry-run of $b alone (sendable on its own)" send_email_dry_run "$p"
		check "send: ${t}b4 send -o of $b alone (sendable on its own)" \
			"$REPO_ROOT/scripts/b4-send.sh" --series "$s" "$logdir/b4-alone${t:+-$s}-${b%%-*}" "$b"
	done
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
	: >"$logdir/recipients.txt"
	for s in $(stack_series); do
		send_series "$s"
	done
}

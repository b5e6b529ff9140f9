#!/bin/bash
# Write a series as b4 sends it, sending nothing: in a throw-away clone
# of the base repository (`git clone --shared`, sparse: only the files the
# patches touch; removed at exit, the repository is not changed) the
# series it needs (on a stack: series_needs) go onto the base (git am),
# and the patches of the series onto them on a branch that
# `b4 prep --enroll` takes over at that point, at the series' revision
# (series_revision: the newest vN of its cover letter's changelog; RFC if
# its cover letter is one); the cover letter gets the subject and text
# (up to the shortlog) of the series' 0000-cover-letter.patch and To/Cc from
# `b4 prep --auto-to-cc` (get_maintainer.pl of the base tree, the newest
# base's MAINTAINERS); `b4 send -o` writes the messages. Then it checks
# them, non-zero exit on a failure: one message a patch plus the cover
# letter; checkpatch --strict clean patches; To/Cc = what get_maintainer.pl
# gives for each patch plus the people the patches name (author, Cc: and
# ...-by: trailers), without the sender; the cover letter's subject and text.
# Usage: scripts/b4-send.sh [--series NAME] OUTDIR [PATCH-GLOB]
#   --series    the series (a base with a stack: required, e.g. noslab; a
#               base of one series: that one)
#   OUTDIR      made by b4; must not exist or be empty
#   PATCH-GLOB  only the series' patches whose file names match (e.g.
#               '0001-*.patch'). b4 0.12 sends one patch without a cover
#               letter (it would put the cover text below the ---: it gets
#               none); several, ours. A series sent alone (the stack's
#               send column) takes one patch at a time.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
series=''
case "${1:-}" in
-h | --help) print_usage "$0"; exit 0 ;;
--series) [ $# -ge 2 ] || die "--series needs a value"; series=$2; shift 2 ;;
esac
case "${1:-}" in
'' | -*) die "usage: $0 [--series NAME] OUTDIR [PATCH-GLOB] (see --help)" ;;
esac
[ $# -le 2 ] || die "too many arguments (see $0 --help)"
load_base
series=$(series_arg "$series")
need_cmd b4 b4
shopt -s nullglob
out=$(realpath -m "$1") glob=${2:-*}
[ ! -e "$out" ] || [ -z "$(ls -A "$out")" ] || die "$out exists and is not empty"
btree=$(tree_dir base) mpath=$(newest_maintainers) base=$(base_ref)
[ -f "$btree/scripts/get_maintainer.pl" ] || die "no base tree $btree: run scripts/checkout-base.sh"
me=memcg-noslab@example.org
sel=()
while read -r p; do
	# shellcheck disable=SC2254 # the glob is meant to match
	case "${p##*/}" in $glob) sel+=("$p") ;; esac
done < <(series_patches "$series")
[ ${#sel[@]} -gt 0 ] || die "no patch of series $series matches '$glob'"
[ "$(series_send "$series")" = cover ] || [ ${#sel[@]} -eq 1 ] ||
	die "series $series is sent alone, a message a patch: pick one patch (PATCH-GLOB), not ${#sel[@]}"
# What the series needs goes under it (not sent).
mapfile -t needp < <(for s in $(series_needs "$series"); do series_patches "$s"; done)
rev=$(series_revision "$series") prefixes=()
! series_rfc "$series" || prefixes=(--set-prefixes RFC)

hdr() { mail_header "$@"; }
# body FILE: the text of a mail up to its first "---" line.
body() { awk '!b && /^$/ { b = 1; next } b && /^---$/ { exit } b' "$1"; }
addrs() { mail_addresses; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/b4-send.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Only this script's settings count (no ~/.gitconfig b4/sendemail keys).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
msg "clone of $(src_repo) in $tmp, branch b4-send-$$: ${#sel[@]} patch(es) of series $series (v$rev) on ${base:0:12}${needp[0]:+ + ${#needp[@]} patch(es) of $(series_needs "$series" | paste -sd, -)}"
git clone -q --shared --no-checkout "$(src_repo)" "$tmp/linux"
cd "$tmp/linux"
mapfile -t paths < <(sed -n 's|^diff --git a/\(.*\) b/\(.*\)|/\1\n/\2|p' "${sel[@]}" "${needp[@]}" | sort -u)
git sparse-checkout set --no-cone "${paths[@]}"
git checkout -q -b "b4-send-$$" "$base"
[ ${#needp[@]} -eq 0 ] || git am -q "${needp[@]}" ||
	die "the series $series needs ($(series_needs "$series" | paste -sd' ' -)) do not apply on the base"
base=$(git rev-parse HEAD)
git am -q "${sel[@]}" || die "the patches of $series matching '$glob' do not apply on the base${needp[0]:+ and the series it needs}"
gm="env -C $btree perl scripts/get_maintainer.pl --mpath $mpath --nogit --nogit-fallback --norolestats"
git config user.name "memcg-noslab project"
git config user.email "$me"
git config core.abbrev 12 # as format_patches in lib/series.sh
git config b4.send-auto-to-cmd "$gm --nol"
git config b4.send-auto-cc-cmd "$gm --nom"
git config sendemail.smtpserver /bin/false # never run; no b4 web endpoint
git config core.editor "cp $tmp/cover"     # b4 prep --edit-cover: ours
b4 -q prep --enroll "$base" >/dev/null
b4 -q prep --force-revision "$rev" "${prefixes[@]}" >/dev/null
# To/Cc go into b4's own cover first: in ours they would be taken for
# trailers with whatever "Word: text" lines end the text (a changelog).
b4 -q prep --auto-to-cc >/dev/null
cover_commit=$(git rev-list "$base..HEAD" | tail -n 1)
sub='' text=''
if [ ${#sel[@]} -gt 1 ]; then
	# Our subject (first line) and text (after a blank line).
	desc=$(cover_text "$(series_cover "$series")")
	sub=${desc%%$'\n'*} text=${desc#*$'\n\n'}
	printf '%s\n\n%s\n\n' "$sub" "$text" >"$tmp/cover"
fi
git log -1 --format=%B "$cover_commit" | grep -E '^(To|Cc): ' >>"$tmp/cover" ||
	die "b4 prep --auto-to-cc found no To/Cc"
b4 -q prep --edit-cover >/dev/null
b4 send -o "$out" --no-sign --not-me-too

# --- checks ------------------------------------------------------------------
bad=0
fail() { printf 'FAIL: %s\n' "$*" >&2; bad=1; }
cover='' npatch=0
for f in "$out"/*.eml; do
	if hdr "$f" Subject | grep -qE '^\[([^]]* )?PATCH[^]]* 0+/[0-9]+\]'; then cover=$f; else npatch=$((npatch + 1)); fi
	# The revision and RFC of the series, on every message.
	[ "$rev" -le 1 ] || hdr "$f" Subject | grep -qE "^\[[^]]*PATCH( [A-Z]+)* v${rev}( |\])" || fail "$(basename "$f"): no v$rev in '$(hdr "$f" Subject)'"
	[ ${#prefixes[@]} -eq 0 ] || hdr "$f" Subject | grep -qE '^\[(RFC PATCH|PATCH RFC)' || fail "$(basename "$f"): not an RFC: '$(hdr "$f" Subject)'"
done
msg "check: ${#sel[@]} patch message(s)$([ -z "$sub" ] || echo ' and a cover letter') in $out"
[ "$npatch" -eq ${#sel[@]} ] || fail "$npatch patch messages, not ${#sel[@]}"
[ "${cover:+y}" = "${sub:+y}" ] || fail "cover letter: '${cover:-none}' for ${#sel[@]} patch(es)"

msg "check: checkpatch --strict --ignore UNKNOWN_COMMIT_ID on each patch message (in $btree)"
# checkpatch looks for codespell's dictionary under /usr/share only;
# Debian 12's codespell has it in its Python package.
cs=()
for d in /usr/share/codespell/dictionary.txt /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt; do
	if [ -f "$d" ]; then
		cs=(--codespell --codespellfile "$d")
		break
	fi
done
for f in "$out"/*.eml; do
	[ "$f" != "$cover" ] || continue
	# b4 moves another author to a "From:" line atop the text, unwrapped:
	# a long one there is not a long line of the commit message.
	n=$(awk '!b && /^$/ { b = 1; s = NR; next } b { if (/^From: / && NR == s + 1) print NR; exit }' "$f")
	r=$(cd "$btree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict "${cs[@]}" \
		--ignore UNKNOWN_COMMIT_ID --show-types --terse --no-summary "$f" |
		grep -v "^$f:${n:-0}: WARNING:COMMIT_LOG_LONG_LINE:") || true
	[ -z "$r" ] || fail "checkpatch: $r"
done

msg "check: To/Cc = get_maintainer.pl (--mpath $mpath) of each patch + authors and Cc:/-by: trailers of the patches, without $me"
for p in "${sel[@]}"; do
	# (stderr: git cannot resolve the Fixes: commits in a one-commit base)
	(cd "$btree" && perl scripts/get_maintainer.pl --mpath "$mpath" --nogit --nogit-fallback \
		--norolestats "$p" 2>/dev/null) >>"$tmp/want" || die "get_maintainer.pl failed on $p"
	hdr "$p" From >>"$tmp/want"
	body "$p" | grep -E '^(Cc|[A-Za-z-]+-by): ' >>"$tmp/want" || true
done
want=$(addrs <"$tmp/want" | { grep -vxF "$me" || true; })
got=$(for f in "$out"/*.eml; do hdr "$f" To; hdr "$f" Cc; done | addrs)
[ "$want" = "$got" ] ||
	fail "To/Cc differ: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | sed 's/^</missing/; s/^>/extra/' | tr '\n' ' ')"

if [ -n "$cover" ]; then
	msg "check: the cover letter's subject and text are those of $(patch_label "$(series_cover "$series")")"
	s=$(hdr "$cover" Subject)
	[ "${s#\[*\] }" = "$sub" ] || fail "cover subject '$s', not '$sub'"
	diff <(echo "$text" | grep -v '^$') <(body "$cover" | grep -v '^$') >/dev/null || fail "cover text differs from ours"
fi
[ "$bad" -eq 0 ] || die "b4 send -o $out: checks failed"
msg "b4 send -o $out: $((npatch + (${#cover} > 0))) messages, all checks passed"

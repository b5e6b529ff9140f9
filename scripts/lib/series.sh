# shellcheck shell=bash
# The series of a base. A base has one series (BASE_SERIES, its patches in
# BASE_PATCHDIR) or a stack of them (BASE_STACK: a file listing the series
# in the order they apply, one a line: "NAME NEEDS SEND GOES-TO...", NEEDS a
# comma list of series listed before it or -, SEND cover (a thread with a
# cover letter) or alone (each patch a message of its own), GOES-TO free
# text for people; each series' patches, series file and cover letter in
# BASE_PATCHDIR/NAME/). stack_table is the one reader of that file; the
# functions after it answer every question about the series. A base
# without a stack is one pseudo-series named after the base (e.g. 6.12),
# sent with a cover letter. A series of the stack without its folder yet
# (a planned one) has no patches: the style group fails on it, the others
# skip it. Then the patches as mail: format-patch, maintainers, cover
# letters and addresses. Sourced by scripts/lib.sh (read_base checks the
# stack).

# stack_table: "NAME NEEDS SEND", a line a series, in stack order. Not
# checked here: load_base runs check_stack.
stack_table() {
	if [ -z "${BASE_STACK:-}" ]; then
		printf '%s - cover\n' "$BASE"
		return
	fi
	awk '!/^[[:space:]]*(#|$)/ { print $1, $2, $3 }' "$REPO_ROOT/$BASE_STACK"
}

# check_stack: die, naming the series and what is wrong, unless BASE_STACK
# (if the base has one) lists at least one series, each once, with a name
# that no kernel variant or harness tree has, needs that are series listed
# before it, send cover or alone, and a folder with a series file (or no
# folder at all: a planned series, said once).
check_stack() {
	[ -n "${BASE_STACK:-}" ] || return 0
	local name needs send seen=' ' d
	[ -f "$REPO_ROOT/$BASE_STACK" ] || die "no stack file $REPO_ROOT/$BASE_STACK (BASE_STACK in bases/$BASE.conf)"
	while read -r name needs send; do
		[[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
			die "$BASE_STACK: bad series name '$name' (letters, digits, '.', '_', '-')"
		case "$name" in
		base | patched | floor | bisect | apply | quilt | kbuild | p[0-9]*)
			die "$BASE_STACK: '$name' is a kernel variant or tree of the harness, not a series name" ;;
		esac
		[[ $seen != *" $name "* ]] || die "$BASE_STACK: series '$name' is listed twice"
		case "$send" in
		cover | alone) ;;
		*) die "$BASE_STACK: series '$name': the send column is cover or alone, got '$send'" ;;
		esac
		[ -n "$needs" ] || die "$BASE_STACK: series '$name' has no needs column (- for none)"
		if [ "$needs" != - ]; then
			for d in ${needs//,/ }; do
				[[ $seen == *" $d "* ]] ||
					die "$BASE_STACK: series '$name' needs '$d', which is not a series listed before it (before it:${seen% })"
			done
		fi
		if [ ! -e "$REPO_ROOT/$BASE_PATCHDIR/$name" ]; then
			msg "note: series '$name' of $BASE_STACK has no folder $BASE_PATCHDIR/$name yet: it has no patches"
		elif [ ! -f "$REPO_ROOT/$BASE_PATCHDIR/$name/series" ]; then
			die "$BASE_STACK: series '$name' has no series file $BASE_PATCHDIR/$name/series"
		fi
		seen+="$name "
	done < <(stack_table)
	[ "$seen" != ' ' ] || die "$BASE_STACK lists no series"
}

# stack_series: the names of the base's series, in stack order.
stack_series() {
	stack_table | cut -d' ' -f1
}

# need_series NAME: die unless NAME is a series of the base, naming them.
need_series() {
	stack_series | grep -qxF -- "$1" ||
		die "unknown series '$1' (series of base $BASE: $(stack_series | paste -sd' ' -))"
}

# series_arg NAME: NAME (a --series option's value) checked, or, when it
# is empty, the one series of a base without a stack; a base with a stack
# dies asking for --series and naming its series.
series_arg() {
	if [ -n "$1" ]; then
		need_series "$1"
		printf '%s\n' "$1"
	elif [ -n "${BASE_STACK:-}" ]; then
		die "base $BASE has a stack of series ($BASE_STACK): say which with --series NAME ($(stack_series | paste -sd' ' -))"
	else
		stack_series
	fi
}

# series_tag NAME: "NAME: " on a base with a stack, nothing on a base of
# one series: what check names and messages put before a patch or check.
series_tag() {
	[ -z "${BASE_STACK:-}" ] || printf '%s: ' "$1"
}

# series_dir NAME: the folder of series NAME (absolute).
series_dir() {
	need_series "$1"
	if [ -n "${BASE_STACK:-}" ]; then
		printf '%s/%s/%s\n' "$REPO_ROOT" "$BASE_PATCHDIR" "$1"
	else
		printf '%s/%s\n' "$REPO_ROOT" "$BASE_PATCHDIR"
	fi
}

# series_file NAME: the series file (quilt's) of series NAME (absolute).
series_file() {
	local d
	if [ -n "${BASE_STACK:-}" ]; then
		d=$(series_dir "$1") || exit 1
		printf '%s/series\n' "$d"
	else
		need_series "$1"
		printf '%s/%s\n' "$REPO_ROOT" "$BASE_SERIES"
	fi
}

# series_cover NAME: where the cover letter of series NAME is (or would be).
series_cover() {
	local d
	d=$(series_dir "$1") || exit 1
	printf '%s/0000-cover-letter.patch\n' "$d"
}

# series_field NAME N: field N (2 needs, 3 send) of NAME in stack_table.
series_field() {
	need_series "$1"
	stack_table | awk -v s="$1" -v n="$2" '$1 == s { print $n }'
}

# series_send NAME: how series NAME is sent: cover or alone.
series_send() {
	series_field "$1" 3
}

# series_needs NAME: the series NAME needs, directly or through others, in
# stack order (without NAME): what must be applied before it.
series_needs() {
	need_series "$1"
	# Needs name earlier series only: one walk from the last series back
	# to the first collects the closure.
	stack_table | awk -v s="$1" '
		{ name[NR] = $1; needs[$1] = $2 }
		END {
			want[s] = 1
			for (i = NR; i >= 1; i--)
				if (want[name[i]] && needs[name[i]] != "-") {
					n = split(needs[name[i]], d, ",")
					for (j = 1; j <= n; j++) want[d[j]] = 1
				}
			for (i = 1; i <= NR; i++)
				if (want[name[i]] && name[i] != s) print name[i]
		}'
}

# series_patches [NAME]: the patch files of series NAME, in order, one
# absolute path a line; without NAME, every patch of the base, series
# after series in stack order ("patched" is all of them, pN the first N,
# base+N picks patch N of this list).
series_patches() {
	local s line f
	if [ $# -eq 0 ]; then
		for s in $(stack_series); do series_patches "$s"; done
		return
	fi
	f=$(series_file "$1") || exit 1
	# A planned series (no folder yet) has none.
	[ -e "$f" ] || [ -z "${BASE_STACK:-}" ] || [ -e "${f%/series}" ] || return 0
	while read -r line _; do
		case "$line" in '' | '#'*) continue ;; esac
		printf '%s\n' "${f%/*}/$line"
	done <"$f"
}

# patch_label PATH: a patch as messages and check names give it: its path
# under the base's patch folder (noslab/0001-...patch on a stack).
patch_label() {
	printf '%s\n' "${1#"$REPO_ROOT/$BASE_PATCHDIR/"}"
}

# series_positions NAME: the positions of series NAME's patches among all
# the base's patches (series_patches), one a line.
series_positions() {
	local s n=0 c
	need_series "$1"
	for s in $(stack_series); do
		c=$(series_patches "$s" | wc -l)
		[ "$s" != "$1" ] || seq $((n + 1)) $((n + c))
		n=$((n + c))
	done
}

# series_revision NAME: the version the series is at: the highest "vN:"
# that starts a line after "Changes:" or "Changelog:" in its cover
# letter; 1 without a changelog or cover letter. What b4-send.sh and the
# README's format-patch -v take.
series_revision() {
	local c
	c=$(series_cover "$1") || exit 1
	[ -f "$c" ] || { echo 1; return; }
	awk 'tolower($0) ~ /^(changes|changelog)/ { on = 1; next }
		on && match($0, /^v[0-9]+:/) { v = substr($0, 2, RLENGTH - 2) + 0; if (v > max) max = v }
		END { print max ? max : 1 }' "$c"
}

# series_rfc NAME: true if series NAME's cover letter is an RFC
# ("[RFC PATCH 0/N]"), as b4-send.sh sends it.
series_rfc() {
	local c
	c=$(series_cover "$1") || exit 1
	[ -f "$c" ] && grep -q '^Subject: \[RFC PATCH' "$c"
}

# format_patches REPO ARGS...: `git format-patch` as the harness runs it
# everywhere (export, round-trip check). Object names are abbreviated to a
# fixed 12 hex digits (the kernel's core.abbrev): git's automatic length
# grows with the number of packed objects, so a base repository whose
# objects are still loose (just made) gives 7 digits and the same one after
# a `git gc` 9, and the patch text would depend on the cache's state.
format_patches() {
	local repo=$1
	shift
	git -C "$repo" -c core.abbrev=12 -c format.signature= format-patch "$@"
}

# newest_maintainers: the MAINTAINERS file of the newest base in bases/
# (made by BASE=<name> scripts/prepare-base.sh), for get_maintainer.pl
# --mpath: an older base's file names addresses that have changed since
# (e.g. 6.1 still lists shakeelb@google.com). It depends on bases/ only,
# not on what the cache happens to hold.
newest_maintainers() {
	local newest f
	newest=$(list_bases | tail -n 1)
	f="$CACHE_DIR/$newest/debian/linux/MAINTAINERS"
	[ -f "$f" ] || die "no $f: run BASE=$newest scripts/prepare-base.sh (To/Cc come from the newest base's MAINTAINERS)"
	printf '%s\n' "$f"
}

# cover_text COVER: the subject of a cover letter made by git format-patch
# (without "[PATCH 00/N] " or "[RFC PATCH 00/N] ", unfolded), a blank line, and its text up to
# the shortlog ("Name (N):"), without the blank lines before it: what
# import-series.sh makes the branch description and b4-send.sh b4's cover.
cover_text() {
	awk '
	/^Subject: / { sub(/^Subject: \[(RFC )?PATCH[^]]*\] /, ""); s = $0; insubj = 1; next }
	insubj && /^ / { sub(/^ /, ""); s = s " " $0; next }
	{ insubj = 0 }
	!body && /^$/ { body = 1; print s; print ""; next }
	body && /^[^ ].* \([0-9]+\):$/ { exit }
	body { print }' "$1"
}

# mail_header FILE NAME: the (unfolded) header NAME of a mail (a patch
# file), one line an occurrence.
mail_header() {
	awk -v h="$2" '/^$/ { exit } /^[ \t]/ { if (on) v = v $0; next }
		{ if (on) print v; on = tolower($1) == tolower(h) ":"; v = $0; sub(/^[^:]*: */, "", v) }
		END { if (on) print v }' "$1"
}

# mail_addresses: the e-mail addresses in the text on stdin, lower case,
# sorted, each once.
mail_addresses() {
	grep -oE '[[:alnum:]._%+=-]+@[[:alnum:].-]+' | tr '[:upper:]' '[:lower:]' | sort -u
}

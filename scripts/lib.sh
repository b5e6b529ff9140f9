#!/bin/bash
# Common helpers for the harness scripts, sourced by them. Run, it answers
# questions about a base's series (what README's commands use):
#   [BASE=7.2] scripts/lib.sh stack_series|series_needs NAME|series_send NAME
#     |series_patches [NAME]|series_dir NAME|series_revision NAME

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO_ROOT
# Everything big (source trees, build trees, initramfs) lives here, outside
# the git checkout, so a second run reuses it.
CACHE_DIR=${CACHE_DIR:-/var/cache/memcg-noslab}
# Results of runs (logs, reports).
OUT_DIR=${OUT_DIR:-$REPO_ROOT/out}
# list_bases: the names of bases/*.conf, oldest first (sort -V).
list_bases() {
	local f
	for f in "$REPO_ROOT"/bases/*.conf; do basename "$f" .conf; done | sort -V
}

# The base: bases/$BASE.conf. Default: the newest (mainline).
BASE=${BASE:-$(list_bases | tail -n 1)}
export CACHE_DIR OUT_DIR BASE

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

msg() {
	printf '==> %s\n' "$*" >&2
}

# load_base: the settings of bases/$BASE.conf (an unknown BASE dies naming
# the bases there), then need_cache and a check of KSRC: every script that
# writes the cache loads its base first (after --help and its arguments'
# syntax), so these fail before anything is done.
load_base() {
	local err
	read_base
	need_cache
	if [ -n "${KSRC:-}" ] && ! err=$(git -C "$KSRC" rev-parse --git-dir 2>&1 >/dev/null); then
		die "KSRC=$KSRC: ${err:-not a git repository} (a tree owned by another user needs: git config --global --add safe.directory $KSRC)"
	fi
}

# read_base: the settings of bases/$BASE.conf (an unknown BASE dies naming
# the bases there), its stack checked (check_stack).
read_base() {
	local conf="$REPO_ROOT/bases/$BASE.conf"
	[ -f "$conf" ] || die "unknown base '$BASE' (bases: $(list_bases | tac | paste -sd' ' -))"
	# shellcheck source=../bases/6.1.conf
	. "$conf"
	check_stack
}

# base_setting NAME VAR: the value of VAR in bases/NAME.conf (empty if it
# does not set it), for a script that needs one setting of a base other
# than the one it loaded. read_base in a subshell, after unsetting every
# BASE_* setting (the loaded base's would show through): bases/*.conf are
# read by read_base only, and the loaded base's settings stay as they are.
base_setting() {
	(
		unset "${!BASE_@}"
		BASE=$1 read_base
		printf '%s\n' "${!2:-}"
	)
}

# need_cache: die, before anything is made there, unless $CACHE_DIR is (or
# can be made) a directory this user can write.
need_cache() {
	if ! mkdir -p "$CACHE_DIR" 2>/dev/null || [ ! -w "$CACHE_DIR" ]; then
		die "the cache directory $CACHE_DIR is not writable: run as root, or set CACHE_DIR to a writable directory"
	fi
}

# need_cmd CMD PACKAGE: fail naming the Debian package that provides CMD.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install Debian package '$2' (scripts/install-deps.sh does)"
}

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

# --- the series of a base --------------------------------------------------
# A base has one series (BASE_SERIES, its patches in BASE_PATCHDIR) or a
# stack of them (BASE_STACK: a file listing the series in the order they
# apply, one a line: "NAME NEEDS SEND GOES-TO...", NEEDS a comma list of
# series listed before it or -, SEND cover (a thread with a cover letter)
# or alone (each patch a message of its own), GOES-TO free text for
# people; each series' patches, series file and cover letter in
# BASE_PATCHDIR/NAME/). stack_table is the one reader of that file; the
# functions after it answer every question about the series. A base
# without a stack is one pseudo-series named after the base (e.g. 6.12),
# sent with a cover letter. A series of the stack without its folder yet
# (a planned one) has no patches: the style group fails on it, the others
# skip it.

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

# The identity used for commits the harness makes (never a person).
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-memcg-noslab harness}
export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-memcg-noslab@localhost}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}

# configset_fragments SET: the config fragments (config-fragments/<name>
# .config, names space-separated) of config set SET for the current base,
# from config-fragments/sets.conf: qemu-x86_64, base-$BASE when there is
# one, then the set's own. bench is what scripts/run-bench.sh builds: the
# test set plus what distros have that the tests do without
# (BASE_BENCH_FRAGMENTS, e.g. kmalloc buckets on 7.2).
configset_fragments() {
	local conf="$REPO_ROOT/config-fragments/sets.conf" line b=qemu-x86_64
	line=$(awk -v s="$1" '!/^#/ && $1 == s { print $2, $3; exit }' "$conf")
	[ -n "$line" ] || die "unknown config set '$1' (config sets: $(configsets | paste -sd, - | sed 's/,/, /g'))"
	# shellcheck disable=SC2086 # the two fields: fragments, needs
	set -- "$1" $line
	[ "$3" = - ] || [ -n "${!3:-}" ] || die "config set '$1' needs $3, which bases/$BASE.conf does not set"
	[ ! -f "$REPO_ROOT/config-fragments/base-$BASE.config" ] || b+=" base-$BASE"
	b+=" ${2//,/ }"
	b=${b//<base>/$BASE}
	echo "${b//<bench>/${BASE_BENCH_FRAGMENTS:-}}"
}

# configsets: the names of the config sets, one a line.
configsets() {
	awk '!/^#/ && NF { print $1 }' "$REPO_ROOT/config-fragments/sets.conf"
}

# Source worktree of a variant: base, patched (every patch of the base),
# bisect (the scratch tree apply-series.sh uses, checked out at each patch
# in turn by run-tests.sh), floor (the applied patches plus floor_diff,
# made by make-floor-tree.sh; benchmarked only, never a kernel to use), and
# these, made by make-prefix-tree.sh and benchmarked only: pN (the base
# plus the first N patches, counted over the whole stack), base+N[+M...]
# (the base plus patches N, M, ... alone, in that order; an N may be a
# series name: all its patches, e.g. base+fs), SERIES (a series of the
# stack with the series it needs, e.g. noslab). A pN past the prefixes, a
# patch number outside the base's patches or an unknown name dies here,
# before anything is prepared.
tree_dir() {
	case "$1" in
	base | patched | floor) printf '%s/trees/%s\n' "$(work_dir)" "$1" ;;
	bisect) printf '%s/trees/apply\n' "$(work_dir)" ;;
	p[1-9] | p[1-9][0-9])
		check_prefix "$1"
		printf '%s/trees/%s\n' "$(work_dir)" "$1"
		;;
	*)
		if [[ $1 != base+* ]] && ! stack_series | grep -qxF -- "$1"; then
			die "unknown kernel variant '$1' (base, patched, floor, pN: base + the first N patches, base+N[+M...]: base + patches N, M, ..., SERIES: base + a series and those it needs, base+SERIES: base + a series alone; series: $(stack_series | paste -sd' ' -))"
		fi
		check_picks "$1" >/dev/null
		printf '%s/trees/%s\n' "$(work_dir)" "$1"
		;;
	esac
}

# check_picks VARIANT: the patches (positions among all the base's
# patches, one a line, ascending) of a variant made of picked patches:
# base+X[+Y...], each X a patch number (1 to the number of patches) or a
# series name (all its patches), or SERIES (the patches of the series it
# needs and its own: series_needs). Dies unless each patch comes once and
# in ascending order, or when the variant has no patch. Reads the stack and
# series files only.
check_picks() {
	local n p s last=0 picked=()
	case "$1" in
	base+*)
		for p in ${1//+/ }; do
			[ "$p" != base ] || continue
			if [[ $p =~ ^[1-9][0-9]?$ ]]; then
				picked+=("$p")
			elif stack_series | grep -qxF -- "$p"; then
				mapfile -t -O "${#picked[@]}" picked < <(series_positions "$p")
			else
				die "$1: a variant of picked patches is base+X[+Y...], each X a patch number or a series ($(stack_series | paste -sd' ' -)), e.g. base+21+22"
			fi
		done
		;;
	*)
		for s in $(series_needs "$1") "$1"; do
			mapfile -t -O "${#picked[@]}" picked < <(series_positions "$s")
		done
		;;
	esac
	[ ${#picked[@]} -gt 0 ] || die "$1: no patch (a series without patches yet?)"
	n=$(series_patches | wc -l)
	for p in "${picked[@]}"; do
		[ "$p" -le "$n" ] || die "$1: the $BASE series have $n patches (1..$n)"
		[ "$p" -gt "$last" ] || die "$1: name each patch once, in stack order"
		last=$p
		echo "$p"
	done
}

# check_prefix pN: die unless pN is a prefix of the base's patches (all its
# series in stack order): N from 1 to one less than their number (all of
# them is 'patched'). Reads the stack and series files only (the base need
# not be prepared).
check_prefix() {
	local n
	n=$(series_patches | wc -l)
	[ "${1#p}" -lt "$n" ] ||
		die "$1: the $BASE series have $n patches: their prefixes are p1..p$((n - 1)) (all $n is 'patched')"
}

# The one source tree every kernel of a base is compiled from
# (build-kernel.sh checks each variant out there in turn).
kbuild_tree() {
	printf '%s/trees/kbuild\n' "$(work_dir)"
}

# The base's floor experiment (BASE_FLOOR): a measurement-only diff on top
# of the series (6.1: the slab hooks without any charge or vmstat update;
# 7.2: an accounted allocation that only looks up current's objcg).
# FLOOR_DIFF in the environment (a path, relative to the repository or
# absolute) makes the floor kernel another experiment instead, e.g. a
# mutation of the series that a test must catch
# (tests/experiments/mutate-*.diff).
floor_diff() {
	local d=${FLOOR_DIFF:-${BASE_FLOOR:-}}
	[ -n "$d" ] || die "no floor experiment for base $BASE (BASE_FLOOR in bases/$BASE.conf, or FLOOR_DIFF)"
	case "$d" in
	/*) printf '%s\n' "$d" ;;
	*) printf '%s/%s\n' "$REPO_ROOT" "$d" ;;
	esac
}

build_dir() {
	printf '%s/build/%s-%s\n' "$(work_dir)" "$1" "$2"
}

# mode_field MODE N: field N (2 = cgroup, 3 = flags) of MODE in tests/modes.conf;
# dies unless MODE is a mode of $BASE (its bases column).
mode_field() {
	local m
	[ -n "$(mode_field_any "$1" 1)" ] ||
		die "unknown mode '$1' (modes of base $BASE: $(base_modes | tr , ' '))"
	[[ ,$(base_modes), == *",$1,"* ]] ||
		die "mode '$1' is not a mode of base $BASE: its kernels do not know $(mode_field_any "$1" 3) (modes of base $BASE: $(base_modes | tr , ' '))"
	m=$(mode_field_any "$1" "$2")
	[ "$m" = - ] || printf '%s\n' "$m"
}

# mode_field_any MODE N: field N of MODE in tests/modes.conf, whatever the base
# (nothing for an unknown mode).
mode_field_any() {
	awk -v m="$1" -v n="$2" '!/^#/ && $1 == m { print $n }' "$REPO_ROOT/tests/modes.conf"
}

# base_modes: the modes of $BASE (those whose bases column is "all" or
# names it), comma-separated, in the order of tests/modes.conf.
base_modes() {
	awk -v b="$BASE" '!/^#/ && NF >= 4 {
		n = split($4, a, ",")
		for (i = 1; i <= n; i++)
			if (a[i] == "all" || a[i] == b) { print $1; break }
	}' "$REPO_ROOT/tests/modes.conf" | paste -sd, -
}

# bench_configset CFG: the config set whose kernels run-bench.sh --config
# CFG boots (bench, test, vmemmap or distro). Without extra fragments
# (BASE_BENCH_FRAGMENTS) the bench kernels are the test kernels: built once.
bench_configset() {
	case "$1" in
	bench) if [ -n "${BASE_BENCH_FRAGMENTS:-}" ]; then echo bench; else echo test; fi ;;
	test | vmemmap | distro) printf '%s\n' "$1" ;;
	*) die "--config wants bench, test, vmemmap or distro, got '$1'" ;;
	esac
}

# known_workloads: the workload names of tests/workloads.conf, comma-separated.
known_workloads() {
	awk '!/^#/ && NF { print $1 }' "$REPO_ROOT/tests/workloads.conf" | paste -sd, -
}

# The initramfs with busybox, the guest jobs and the test programs.
initramfs_path() {
	printf '%s/build/initramfs.cpio\n' "$(work_dir)"
}

# pgsql_cpio_path: PostgreSQL for the guest's pgbench workloads, made by
# build-initramfs.sh and added to the initramfs of the workloads job.
pgsql_cpio_path() {
	printf '%s/build/pgsql.cpio\n' "$(work_dir)"
}

# print_usage SCRIPT: the comment block at the top of SCRIPT (the comment
# lines after the #! line), on stdout: what -h and --help print.
print_usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$1"
}

# no_args SCRIPT ARGS...: for scripts that take no arguments but --help.
no_args() {
	local script=$1
	shift
	case "${1:-}" in
	'') return 0 ;;
	-h | --help) print_usage "$script"; exit 0 ;;
	*) die "$(basename "$script") takes no arguments (got '$1'); see --help" ;;
	esac
}

# branch_arg SCRIPT ARGS...: for scripts whose one optional argument is a
# branch of the cache repository: sets $ref to it (default: dev). --help
# prints SCRIPT's usage and exits.
branch_arg() {
	local script=$1
	shift
	case "${1:-}" in
	-h | --help) print_usage "$script"; exit 0 ;;
	-*) die "unknown option '$1' (see $script --help)" ;;
	esac
	[ $# -le 1 ] || die "too many arguments (see $script --help)"
	# shellcheck disable=SC2034 # read by the sourcing script
	ref=${1:-dev}
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

# apt_in DIR WHAT LINE...: an apt of its own under DIR whose sources list
# is the LINEs (deb or deb-src lines; WHAT names them in messages), never
# the host's configuration. Sets APT_DIR (DIR) and APT_OPTS (options for
# apt-get and apt-cache). Lists younger than a day are reused; a failed
# update with usable lists only warns (offline use of a warm cache).
apt_in() {
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

# Run, not sourced: --help prints the comment at the top; the questions
# about the series it names there are answered.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	-h | --help) print_usage "$0"; exit 0 ;;
	stack_series | series_needs | series_send | series_patches | series_dir | series_revision)
		read_base 2>/dev/null
		"$@"
		exit
		;;
	esac
	die "$0 is sourced by the other scripts; run, it answers: stack_series, series_needs, series_send, series_patches, series_dir, series_revision (see --help)"
fi

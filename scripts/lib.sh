#!/bin/bash
# The harness's core, sourced by every script: where things are (REPO_ROOT,
# CACHE_DIR, OUT_DIR), the base (bases/$BASE.conf, read by read_base only)
# and its series (scripts/lib/series.sh, sourced here: read_base checks
# the stack), messages, usage and arguments. A script sources the other
# concerns it uses from scripts/lib/: source.sh (the kernel source and
# its worktrees), kernels.sh (config sets, variants, builds), guest.sh
# (the initramfs), apt.sh (Debian packages), tables.sh (modes, workloads),
# console.sh (the host-guest contract and the console parser).
# Run, it answers questions about a base's series (what README's commands
# use):
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
# shellcheck source=scripts/lib/series.sh
. "$REPO_ROOT/scripts/lib/series.sh"

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

# read_base: the settings of bases/$BASE.conf (read_conf), its stack
# checked (check_stack).
read_base() {
	read_conf
	check_stack
}

# read_conf: the settings of bases/$BASE.conf, the one reader of that file
# (an unknown BASE dies naming the bases there).
read_conf() {
	local conf="$REPO_ROOT/bases/$BASE.conf"
	[ -f "$conf" ] || die "unknown base '$BASE' (bases: $(list_bases | tac | paste -sd' ' -))"
	# shellcheck source=../bases/6.1.conf
	. "$conf"
}

# base_setting NAME VAR: the value of VAR in bases/NAME.conf (empty if it
# does not set it), for a script that needs one setting of a base other
# than the one it loaded: read_conf in a subshell, after unsetting every
# BASE_* setting (the loaded base's would show through). The stack is not
# checked here: a base whose stack is broken is still asked for its
# settings, and dies when it is loaded (load_base), saying why.
base_setting() {
	(
		unset "${!BASE_@}"
		BASE=$1 read_conf
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

# The identity used for commits the harness makes (never a person).
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-memcg-noslab harness}
export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-memcg-noslab@localhost}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}

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

#!/bin/bash
# The test command: checks the series of every base and the harness from
# end to end.
# Usage: scripts/run-tests.sh [--full] [--base all|BASE[,BASE...]]
#          [--groups style,apply,bisect,boot,debug,send] [--cpus N]
# BASE: 7.2, 6.12, 6.1 (bases/*.conf). Without --full, a group runs for a
# base only if it is in the base's default tier (below): asking for
# groups that no asked base runs in the default tier is an error.
# --cpus N: vCPUs of the boot group's guests (1..8; default: the base's
# BASE_TEST_CPUS, else 2). The debug group's guests have 2.
# Bases: every bases/<base>.conf, newest first (--base picks some); each
# line of output names the base it is about ("[7.2] ..."), the checks of
# the harness itself name none.
# Tiers: the default (what .ci/run runs) and --full. Which groups a base
# runs in the default tier is BASE_TIER1_GROUPS of its bases/<base>.conf
# (today: style, apply and send for every base, boot and debug for 7.2);
# --full runs every group for every base and adds, within the groups:
# mode nomemobj and the boot-option boots (boot), mode noslab and the
# base kernel with fault injection (debug).
# Groups:
#   style   checkpatch --strict (with the base tree and --no-tree, with
#           codespell) on every patch, patch form, each series file vs
#           its folder (7.2: and the stack file vs the series folders),
#           the distro config fragment vs Debian's config;
#           once: the series index, shellcheck, -Wall -Wextra builds of
#           the test programs, stress-ng accepts tests/workloads.conf,
#           the harness's own fixtures
#   apply   git am and quilt apply every patch (7.2: the stack's series
#           in order; and each series with git am on the base plus the
#           series it needs, and with quilt alone on those); format-patch
#           regenerates each series; the floor experiment (BASE_FLOOR,
#           tests/experiments/) applies on top of everything;
#           the series applies to Debian's upstream tarball (of the base
#           release for a BASE_SUITE base, else the newest of
#           BASE_ORIG_SUITES)
#   bisect  after each patch, the objects it touches compile with
#           CONFIG_MEMCG=n, SLUB + MEMCG and (6.1) SLAB + MEMCG, with no
#           compiler warning in its files that was not there before it
#   boot    base and patched kernels boot in modes default, noslab, nokmem
#           (--full: and nomemobj) and run the memcg, mqueue and new
#           selftests and the harness's own (harness/stock, harness/detect);
#           a test that passes on the base and fails patched fails here;
#           tests the base must fail (BASE_MUST_FAIL) fail on it;
#           try-kernel.sh on both kernels with noslab; the newest base:
#           a stress-ng smoke run (--full: every base); --full: the
#           patched kernel boots with cgroup.nomemobj=1, =0, a bad value,
#           and noslab with cgroup_disable=memory
#   debug   a lockdep + kmemleak + DEBUG_VM (+ fault injection) build of
#           the patched kernel, without KASAN so that frees reach the
#           objects kept charged, boots in mode default (--full: and
#           noslab, and a build with generic KASAN in default), runs the
#           kmem selftests (and in default the stock tests, with
#           kmem_bench.ko for bulk_error, and CPU hotplug under load) and
#           a cgroup churn from two CPUs (4-level paging: no5lvl); any
#           splat in the console fails
#   send    series by series: cover letter, its To/Cc = get_maintainer.pl
#           of that series, git send-email --dry-run, b4 send -o on the
#           base plus what the series needs; a series the stack sends
#           alone, and the patches of BASE_SEND_ALONE (6.12), a message a
#           patch
# Output: TAP version 13 on stdout (progress on stderr): one "ok N - ..." /
# "not ok N - ..." line a check ("ok N - ... # SKIP why" for a check that
# cannot run here), the plan "1..N" after the last, and a last line
# "N passed, N failed, N skipped"; logs under $OUT_DIR/tests/<base>.
# Groups: one file each in tests/checks/ (<group>.sh; harness.sh: the
# harness's own checks and fixtures), sourced by this runner.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

groups=style,apply,bisect,boot,debug,send full='' which=all cpus=
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1 ;;
	--groups) [ -n "${2:-}" ] || die "--groups needs a value"; groups=$2; shift ;;
	--base) [ $# -ge 2 ] || die "--base needs a value"; which=$2; shift ;;
	--cpus) [ $# -ge 2 ] || die "--cpus needs a value"; cpus=$2; shift ;;
	-h | --help) print_usage "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see $0 --help)" ;;
	esac
	shift
done
for g in ${groups//,/ }; do
	case "$g" in
	style | apply | bisect | boot | debug | send) ;;
	*) die "unknown group '$g' (groups: style, apply, bisect, boot, debug, send)" ;;
	esac
done
[ -z "$cpus" ] || [[ $cpus =~ ^[1-8]$ ]] || die "--cpus wants 1..8, got '$cpus'"
want() { [[ ",$groups," == *",$1,"* ]]; }
mapfile -t all_bases < <(list_bases | tac)
if [ "$which" = all ]; then
	bases=("${all_bases[@]}")
else
	IFS=, read -ra bases <<<"$which"
	for b in "${bases[@]}"; do
		[ -f "$REPO_ROOT/bases/$b.conf" ] || die "unknown base '$b' (bases: ${all_bases[*]})"
	done
fi

# --- the driver: one run of this script per base ----------------------------
# base_groups BASE: the groups to run for BASE in this tier, of those asked.
base_groups() {
	local g tier out=()
	tier=$(sed -n 's/^BASE_TIER1_GROUPS=//p' "$REPO_ROOT/bases/$1.conf" | tr -d "'\"")
	for g in ${groups//,/ }; do
		[ -z "$full" ] && [[ " $tier " != *" $g "* ]] && continue
		out+=("$g")
	done
	(IFS=,; echo "${out[*]}")
}

if [ -z "${RUN_TESTS_BASE_RUN:-}" ]; then
	# Nothing to run is an error, found before the last run's logs go.
	any=''
	for b in "${bases[@]}"; do
		[ -z "$(base_groups "$b")" ] || any=1
	done
	[ -n "$any" ] || die "no base of '${bases[*]}' runs the groups '$groups' in the default tier (BASE_TIER1_GROUPS in bases/*.conf); add --full to run them"
	rm -rf "$OUT_DIR/tests"
	mkdir -p "$OUT_DIR/tests"
	# TAP (version 13): this line first, the plan (1..N) after the last
	# check, then the summary line. Everything else on stdout is a "#"
	# comment; progress goes to stderr.
	echo "TAP version 13"
	total_passed=0 total_failed=0 total_skipped=0 next=1 common=1
	for b in "${bases[@]}"; do
		bg=$(base_groups "$b")
		if [ -z "$bg" ]; then
			echo "# base $b: none of the groups asked is in its default tier (BASE_TIER1_GROUPS); --full runs them"
			continue
		fi
		echo "# base $b: groups ${bg//,/, }"
		# The Debian packages of these groups of this base, no more.
		"$REPO_ROOT/scripts/install-deps.sh" --bases "$b" --groups "$bg" >&2
		RUN_TESTS_BASE_RUN=1 RUN_TESTS_FIRST=$next RUN_TESTS_COMMON=$common \
			BASE=$b "$0" ${full:+--full} ${cpus:+--cpus "$cpus"} --groups "$bg" || true
		common=''
		if read -r p f last s <"$OUT_DIR/tests/$b/counts" 2>/dev/null; then
			total_passed=$((total_passed + p)) total_failed=$((total_failed + f))
			total_skipped=$((total_skipped + s))
			next=$((last + 1))
		else
			echo "not ok $next - [$b] the checks of base $b ran to the end (see the error above)"
			total_failed=$((total_failed + 1)) next=$((next + 1))
		fi
	done
	echo "1..$((next - 1))"
	echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
	[ "$total_failed" -eq 0 ]
	exit
fi

# --- one base ------------------------------------------------------------------
load_base
logdir="$OUT_DIR/tests/$BASE"
rm -rf "$logdir"
mkdir -p "$logdir"
n=$((${RUN_TESTS_FIRST:-1} - 1)) passed=0 failed=0 skipped=0 last_log=''
counts() { printf '%s %s %s %s\n' "$passed" "$failed" "$n" "$skipped" >"$logdir/counts"; }

# check NAME CMD...: run CMD, log its output, print one TAP line. Checks of
# the series and kernels name their base; the harness's own (common) ones
# do not.
check() {
	local name="[$BASE] $1" log
	[ "${common_check:-}" = 1 ] && name=$1
	shift
	n=$((n + 1))
	log="$logdir/$(printf '%03d' "$n")-${name//[^A-Za-z0-9_.-]/_}.log"
	# shellcheck disable=SC2034 # read by tests/checks/boot.sh
	last_log=$log
	local rc=0
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $name"
	elif [ "$rc" -eq 77 ]; then
		# Exit 77: the check cannot run here; its last line says why.
		skipped=$((skipped + 1))
		echo "ok $n - $name # SKIP $(tail -n 1 "$log")"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		sed 's/^/#   /' "$log" | tail -n 25
		echo "#   (log: $log)"
	fi
}

# note TEXT: a diagnostic line in the TAP stream.
note() { printf '# %s\n' "$*"; }

"$REPO_ROOT/scripts/prepare-base.sh" >&2
"$REPO_ROOT/scripts/checkout-base.sh" >&2
# Read by the groups (tests/checks/*.sh):
# shellcheck disable=SC2034
mapfile -t patches < <(series_patches)
# shellcheck disable=SC2034
base_tree=$(tree_dir base)

# --- the groups: one file each in tests/checks/, sourced here -------------
for f in "$REPO_ROOT"/tests/checks/*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done
if want style; then
	group_style
	[ -z "${RUN_TESTS_COMMON:-}" ] || group_harness
fi
# git am of the series, also for the groups that build or send it.
if want apply || want bisect || want boot || want debug || want send; then
	group_apply
fi
if want bisect; then group_bisect; fi
if want boot; then group_boot; fi
if want debug; then group_debug; fi
if want send; then group_send; fi
counts

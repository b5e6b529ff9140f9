#!/bin/bash
# The test command: checks the series of every base and the harness from
# end to end.
# Usage: scripts/run-tests.sh [--full] [--base all|BASE[,BASE...]]
#          [--groups style,apply,bisect,boot,debug,configs,arm64,send]
#          [--cpus N]
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
#   configs the patched kernel where kept objects break first
#           (BASE_CONFIG_SETS: 7.2): PREEMPT_RT with lockdep and kmemleak
#           (2 vCPUs), and two NUMA nodes of two vCPUs each; each runs
#           the stock tests of both tiers (nolock_irq: kmalloc_nolock()
#           from hard irq, on RT from softirq and failing in hard irq)
#           and the kmem selftests; any splat in the console fails
#   arm64   (--full, the newest base) the patched kernel of config set
#           arm64-kasan (the debug set with software tag-based KASAN) on
#           qemu-system-aarch64 -M virt under TCG: the kmem selftests,
#           the debug tier's stock tests (not nolock_irq) and a cgroup
#           churn with no report; then harness/stock kasan_kept alone,
#           whose use-after-free and double-free reports are the only
#           ones allowed (tests/checks/arm64.sh)
#   send    series by series: cover letter, its To/Cc = get_maintainer.pl
#           of that series, git send-email --dry-run, b4 send -o on the
#           base plus what the series needs; a series the stack sends
#           alone, and the patches of BASE_SEND_ALONE (6.12), a message a
#           patch
# Output: TAP version 13 on stdout (progress on stderr), nested as
# kselftest's runner nests it: a subtest a base (and one, "harness", for
# the harness's own checks, run after the first base with the style group,
# with that base's tree), its lines indented 4 spaces: "# Subtest: <name>",
# one "ok N - [base] ..." / "not ok N - [base] ..." line a check, numbered
# from 1 ("ok N - ... # SKIP why" for a check that cannot run here; a
# failed check's last 25 lines of log as "#" comments), the subtest's plan
# "1..N"; then at the top level "ok N - <base>" (or "not ok": a check
# failed, or the run of the base died before its end, which adds a failed
# check saying so). After the last subtest the plan "1..N" and a last line
# "N passed, N failed, N skipped" that counts the checks of every subtest.
# Logs: $OUT_DIR/tests/<base>/NNN-<check>.log ($OUT_DIR/tests/harness/ for
# the harness's own).
# Groups: one file each in tests/checks/ (<group>.sh; harness.sh: the
# harness's own checks and fixtures), sourced by this runner after
# tests/checks/lib.sh (check(), note(), want() and the variables the
# groups read, documented there).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=../tests/checks/lib.sh
. "$REPO_ROOT/tests/checks/lib.sh"

groups=style,apply,bisect,boot,debug,configs,arm64,send full='' which=all cpus=
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
	style | apply | bisect | boot | debug | configs | arm64 | send) ;;
	*) die "unknown group '$g' (groups: style, apply, bisect, boot, debug, configs, arm64, send)" ;;
	esac
done
[ -z "$cpus" ] || [[ $cpus =~ ^[1-8]$ ]] || die "--cpus wants 1..8, got '$cpus'"
mapfile -t all_bases < <(list_bases | tac)
if [ "$which" = all ]; then
	bases=("${all_bases[@]}")
else
	IFS=, read -ra bases <<<"$which"
	for b in "${bases[@]}"; do
		[ -f "$REPO_ROOT/bases/$b.conf" ] || die "unknown base '$b' (bases: ${all_bases[*]})"
	done
fi

# --- one subtest: a base, or the harness's own checks -----------------------
# Each runs in a subshell (subtest): the settings of bases/<base>.conf that
# load_base reads, the groups' variables and check()'s counts stay there.

# base_groups BASE: the groups to run for BASE in this tier, of those asked.
base_groups() {
	local g tier out=()
	tier=$(base_setting "$1" BASE_TIER1_GROUPS)
	for g in ${groups//,/ }; do
		[ -z "$full" ] && [[ " $tier " != *" $g "* ]] && continue
		out+=("$g")
	done
	(IFS=,; echo "${out[*]}")
}

# base_ready: the base's tree made and checked out (progress on stderr),
# and what the groups read of it: patches, base_tree.
base_ready() {
	"$REPO_ROOT/scripts/prepare-base.sh" >&2
	"$REPO_ROOT/scripts/checkout-base.sh" >&2
	# shellcheck disable=SC2034 # read by the groups
	mapfile -t patches < <(series_patches)
	# shellcheck disable=SC2034 # read by the groups
	base_tree=$(tree_dir base)
}

# load_groups: the check groups, one file each in tests/checks/. Sourced
# once the base is loaded: a group's top level may read its settings.
load_groups() {
	local g
	for g in style apply bisect boot debug configs arm64 send harness; do
		# shellcheck source=/dev/null
		. "$REPO_ROOT/tests/checks/$g.sh"
	done
}

# run_base BASE GROUPS: the checks of BASE in GROUPS (comma-separated).
run_base() {
	BASE=$1 groups=$2
	load_base
	checks_start "$OUT_DIR/tests/$BASE"
	base_ready
	load_groups
	if want style; then group_style; fi
	# git am of the series, also for the groups that build or send it.
	if want apply || want bisect || want boot || want debug || want configs ||
		want arm64 || want send; then
		group_apply
	fi
	if want bisect; then group_bisect; fi
	if want boot; then group_boot; fi
	if want debug; then group_debug; fi
	if want configs; then group_configs; fi
	if want arm64; then group_arm64; fi
	if want send; then group_send; fi
}

# run_harness BASE: the harness's own checks (in the style group), with
# BASE's tree (checkpatch of tests/kmem-bench/kmem_bench.c).
run_harness() {
	BASE=$1 groups=style
	load_base
	checks_start "$OUT_DIR/tests/harness"
	base_ready
	load_groups
	group_harness
}

# --- the driver: one subtest a base ------------------------------------------
# Counts of the checks of every subtest so far, and the subtests so far.
total_passed=0 total_failed=0 total_skipped=0 subtests=0

# indent_count: the lines of a subtest's stream, on stdout indented 4
# spaces; its checks counted into sub_n, sub_passed, sub_failed and
# sub_skipped (the lines check() prints: "ok N - ...", "ok N - ... # SKIP
# ...", "not ok N - ..."; its "#" comments count for nothing).
indent_count() {
	local line
	sub_n=0 sub_passed=0 sub_failed=0 sub_skipped=0
	while IFS= read -r line; do
		printf '    %s\n' "$line"
		if [[ $line =~ ^ok\ [0-9]+\ -\ .*\ \#\ SKIP($|\ ) ]]; then
			sub_n=$((sub_n + 1)) sub_skipped=$((sub_skipped + 1))
		elif [[ $line =~ ^ok\ [0-9]+(\ |$) ]]; then
			sub_n=$((sub_n + 1)) sub_passed=$((sub_passed + 1))
		elif [[ $line =~ ^not\ ok\ [0-9]+(\ |$) ]]; then
			sub_n=$((sub_n + 1)) sub_failed=$((sub_failed + 1))
		fi
	done
}

# subtest NAME DIED CMD...: CMD in a subshell, its output as the TAP
# subtest NAME (indented, then its plan), then NAME's result line at the
# top level. If CMD dies before its end, a failed check named DIED says so.
subtest() {
	local name=$1 died=$2 rc
	shift 2
	echo "    # Subtest: $name"
	# errexit stays on in the subshell (a failing command there ends the
	# subtest) but not for the pipeline here: its status is read below.
	# A status tested with || or if would turn errexit off in the subshell.
	set +e
	(
		set -e
		"$@"
	) | indent_count
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" -ne 0 ]; then
		sub_n=$((sub_n + 1)) sub_failed=$((sub_failed + 1))
		echo "    not ok $sub_n - $died (see the error above)"
		echo "    #   (exit $rc; logs so far: $(ls -d "$OUT_DIR/tests/$name" 2>/dev/null || echo none))"
	fi
	echo "    1..$sub_n"
	subtests=$((subtests + 1))
	total_passed=$((total_passed + sub_passed)) total_failed=$((total_failed + sub_failed))
	total_skipped=$((total_skipped + sub_skipped))
	if [ "$sub_failed" -eq 0 ]; then
		echo "ok $subtests - $name"
	else
		echo "not ok $subtests - $name"
	fi
}

# indent_count sets the counts of the subtest in this shell: the last
# command of a pipeline runs here, not in a subshell.
shopt -s lastpipe

# Nothing to run is an error, found before the last run's logs go.
any=''
for b in "${bases[@]}"; do
	[ -z "$(base_groups "$b")" ] || any=1
done
[ -n "$any" ] || die "no base of '${bases[*]}' runs the groups '$groups' in the default tier (BASE_TIER1_GROUPS in bases/*.conf); add --full to run them"
rm -rf "$OUT_DIR/tests"
mkdir -p "$OUT_DIR/tests"
# TAP (version 13): this line first, the subtests, the plan (1..N) after
# the last, then the summary line. Everything else on stdout is a "#"
# comment; progress goes to stderr.
echo "TAP version 13"
harness_base=''
for b in "${bases[@]}"; do
	bg=$(base_groups "$b")
	if [ -z "$bg" ]; then
		echo "# base $b: none of the groups asked is in its default tier (BASE_TIER1_GROUPS); --full runs them"
		continue
	fi
	echo "# base $b: groups ${bg//,/, }"
	# The Debian packages of these groups of this base, no more.
	"$REPO_ROOT/scripts/install-deps.sh" --bases "$b" --groups "$bg" >&2
	subtest "$b" "[$b] the checks of base $b ran to the end" run_base "$b" "$bg"
	# The harness's own checks: once, after the first base with style.
	if [ -z "$harness_base" ] && [[ ",$bg," == *,style,* ]]; then
		harness_base=$b
		echo "# the harness's own checks (with base $b's tree)"
		subtest harness "the harness's own checks ran to the end" run_harness "$b"
	fi
done
echo "1..$subtests"
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]

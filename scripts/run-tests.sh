#!/bin/bash
# The test command: checks the series of every base and the harness from
# end to end.
# Usage: scripts/run-tests.sh [--full] [--base all|7.2|6.12|6.1]
#          [--groups style,apply,bisect,boot,debug,send] [--cpus N]
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
#   style   checkpatch --strict on every patch, patch form, series vs its
#           directory; once: the series index, shellcheck, -Wall -Wextra
#           builds of the test programs, the harness's own fixtures
#   apply   git am and quilt apply the series; format-patch regenerates it;
#           the floor experiment (BASE_FLOOR, tests/experiments/) applies;
#           the series applies to Debian's upstream tarball (BASE_SUITE)
#   bisect  after each patch, the objects it touches compile with
#           CONFIG_MEMCG=n, SLUB + MEMCG and (6.1) SLAB + MEMCG
#   boot    base and patched kernels boot in modes default, noslab, nokmem
#           (--full: and nomemobj) and run the memcg, mqueue and new
#           selftests and the harness's own (harness/stock, harness/detect);
#           a test that passes on the base and fails patched fails here;
#           tests the base must fail (BASE_MUST_FAIL) fail on it; --full:
#           the patched kernel boots with cgroup.nomemobj=1, =0, a bad
#           value, and noslab with cgroup_disable=memory
#   debug   a lockdep + kmemleak + DEBUG_VM (+ fault injection) build of
#           the patched kernel, without KASAN so that frees reach the
#           objects kept charged, boots in mode default (--full: and
#           noslab, and a build with generic KASAN in default), runs the
#           kmem selftests (and in default the stock tests, with
#           kmem_bench.ko for bulk_error, and CPU hotplug under load) and
#           a cgroup churn from two CPUs (4-level paging: no5lvl); any
#           splat in the console fails
#   send    cover letter, get_maintainer.pl, git send-email --dry-run, b4
#           send -o (and the patches a base can send alone, BASE_SEND_ALONE)
# Output: one "ok N - ..." / "not ok N - ..." line a check, logs under
# $OUT_DIR/tests/<base>, and a last line "N passed, N failed".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

groups=style,apply,bisect,boot,debug,send full='' which=all cpus=
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1 ;;
	--groups) [ $# -ge 2 ] || die "--groups needs a value"; groups=$2; shift ;;
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
	rm -rf "$OUT_DIR/tests"
	mkdir -p "$OUT_DIR/tests"
	"$REPO_ROOT/scripts/install-deps.sh"
	total_passed=0 total_failed=0 next=1 common=1
	for b in "${bases[@]}"; do
		bg=$(base_groups "$b")
		if [ -z "$bg" ]; then
			echo "# base $b: none of the groups asked is in its default tier (BASE_TIER1_GROUPS); --full runs them"
			continue
		fi
		echo "# base $b: groups ${bg//,/, }"
		RUN_TESTS_BASE_RUN=1 RUN_TESTS_FIRST=$next RUN_TESTS_COMMON=$common \
			BASE=$b "$0" ${full:+--full} ${cpus:+--cpus "$cpus"} --groups "$bg" || true
		common=''
		if read -r p f last <"$OUT_DIR/tests/$b/counts" 2>/dev/null; then
			total_passed=$((total_passed + p)) total_failed=$((total_failed + f))
			next=$((last + 1))
		else
			echo "not ok $next - [$b] the checks of base $b ran to the end (see the error above)"
			total_failed=$((total_failed + 1)) next=$((next + 1))
		fi
	done
	echo "$total_passed passed, $total_failed failed"
	[ "$total_failed" -eq 0 ]
	exit
fi

# --- one base ------------------------------------------------------------------
load_base
logdir="$OUT_DIR/tests/$BASE"
rm -rf "$logdir"
mkdir -p "$logdir"
n=$((${RUN_TESTS_FIRST:-1} - 1)) passed=0 failed=0 last_log=''
counts() { printf '%s %s %s\n' "$passed" "$failed" "$n" >"$logdir/counts"; }

# check NAME CMD...: run CMD, log its output, print one TAP line. Checks of
# the series and kernels name their base; the harness's own (common) ones
# do not.
check() {
	local name="[$BASE] $1" log
	[ "${common_check:-}" = 1 ] && name=$1
	shift
	n=$((n + 1))
	log="$logdir/$(printf '%03d' "$n")-${name//[^A-Za-z0-9_.-]/_}.log"
	last_log=$log
	local rc=0
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $name"
	elif [ "$rc" -eq 77 ]; then
		# Exit 77: the check cannot run here; its last line says why.
		passed=$((passed + 1))
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

"$REPO_ROOT/scripts/prepare-base.sh"
"$REPO_ROOT/scripts/checkout-base.sh"
mapfile -t patches < <(series_patches)
base_tree=$(tree_dir base)

# --- style -----------------------------------------------------------------
checkpatch_clean() {
	local out cs=()
	[ -f /usr/share/codespell/dictionary.txt ] && cs=(--codespell)
	# Debian's python3 (with python3-ply, python3-git) for spdxcheck.py.
	# UNKNOWN_COMMIT_ID: the base repository holds one commit and no
	# upstream history, so every upstream commit a message names would be
	# "unknown" here; their form ('commit <12 digits> ("<subject>")') is
	# still checked (GIT_COMMIT_ID).
	out=$(cd "$base_tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict "${cs[@]}" --ignore UNKNOWN_COMMIT_ID --terse --no-summary --showfile "$1") || true
	printf '%s\n' "$out"
	! printf '%s\n' "$out" | grep -qE ': (ERROR|WARNING|CHECK):'
}

patch_form() {
	local p=$1
	head -n 1 "$p" | grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' || { echo "not git format-patch output"; return 1; }
	grep -q '^Subject: \[PATCH' "$p" || { echo "no Subject: [PATCH ...]"; return 1; }
	grep -q '^Signed-off-by: .* <.*@.*>$' "$p" || { echo "no Signed-off-by"; return 1; }
	# A body: text between the headers and the first ---.
	awk 'NR > 1 && /^$/ && !h { h = 1; next } h && /^---$/ { exit } h && NF { b++ } END { exit !(b >= 3) }' "$p" ||
		{ echo "commit message body has fewer than 3 lines"; return 1; }
}

series_matches_dir() {
	local listed actual
	listed=$(grep -oE '[^ #]+\.patch' "$REPO_ROOT/$BASE_SERIES" | sort)
	actual=$(find "$REPO_ROOT/$BASE_PATCHDIR" -maxdepth 1 -name '*.patch' -printf '%f\n' | sort)
	diff <(printf '%s\n' "$listed") <(printf '%s\n' "$actual")
}

# series_index: the top-level series file lists exactly the BASE_SERIES of
# bases/*.conf, in comments (it names no patch itself).
series_index() {
	local listed wanted f
	listed=$(grep -oE 'patches/[^ ]+/series' "$REPO_ROOT/series" | sort)
	wanted=$(sed -n 's/^BASE_SERIES=//p' "$REPO_ROOT"/bases/*.conf | sort)
	diff <(printf '%s\n' "$listed") <(printf '%s\n' "$wanted") || return 1
	! grep -vE '^(#|$)' "$REPO_ROOT/series" || { echo "the index names patches"; return 1; }
}

# workloads_known: stress-ng parses every line of tests/workloads.conf
# (--dry-run: parse, do not run).
workloads_known() {
	local name ops args
	need_cmd stress-ng stress-ng
	# shellcheck disable=SC2086 # $args is a list of options
	while read -r name ops args; do
		case "$name" in '' | '#'*) continue ;; esac
		[[ $ops =~ ^[1-9][0-9]*$ ]] || { echo "$name: bad op count '$ops'"; return 1; }
		(cd /tmp && stress-ng --dry-run --"$name" 1 --"$name"-ops "$ops" $args) >/dev/null 2>&1 ||
			{ echo "stress-ng rejects: --$name 1 --$name-ops $ops $args"; return 1; }
	done <"$REPO_ROOT/tests/workloads.conf"
}

c_warning_free() {
	local out
	out=$(gcc -O2 -Wall -Wextra -static -o /dev/null "$@" -lrt -pthread 2>&1) || { printf '%s\n' "$out"; return 1; }
	# Only warnings in the named files count (not in headers they include).
	printf '%s\n' "$out"
	! printf '%s\n' "$out" | grep -E "^($(IFS='|'; echo "${*##*/}")):[0-9]+:[0-9]+: warning"
}

# tap_results_parse: tap-results.sh on a made-up console log gives every
# kind of result: pass, fail, skip, a crash without a failed test, a test
# the guest killed at its time limit, one killed before it.
# profile-report.py on a made-up profile of a window of 300 marker calls
# after 1000 skipped ones: per call is the window's count over 300 (over
# the 1300 hits it would be 4.3 times too small), calls are counted at a
# function's entry block only, the difference of two profiles is grouped by
# kind of work, and two kernels are compared each with its own System.map.
profile_report_fixture() {
	local d out rc=0
	d=$(mktemp -d)
	printf '%s\n' 'ffffffff81000000 T refill_obj_stock' 'ffffffff81000100 T memset_erms' \
		'ffffffff81000200 T _etext' >"$d/System.map"
	printf '%s\n' '# total 4500 hits 1301 window 300' 'ffffffff81000000 1800 600' \
		'ffffffff81000140 2400 300' '7f0000001000 300 300' >"$d/a.prof"
	printf '%s\n' '# total 3300 hits 1301 window 300' 'ffffffff81000000 600' \
		'ffffffff81000140 2400' '7f0000001000 300' >"$d/b.prof"
	printf '%s\n' "$d/System.map" >"$d/a.prof.map"
	out=$("$REPO_ROOT/scripts/profile-report.py" "$d/a.prof") || rc=1
	printf '%s\n' "$out"
	grep -qx '15.0 instructions per call' <<<"$out" || rc=1
	grep -Eq '^ +6\.0  refill_obj_stock \(2\.00 calls\)$' <<<"$out" || rc=1
	grep -Eq '^ +8\.0  memset_erms$' <<<"$out" || rc=1
	grep -Eq '^ +1\.0  \[user space\]$' <<<"$out" || rc=1
	out=$("$REPO_ROOT/scripts/profile-report.py" "$d/a.prof" "$d/b.prof") || rc=1
	printf '%s\n' "$out"
	grep -qx 'what accounting adds per call: 4.0 (15.0 - 11.0)' <<<"$out" || rc=1
	grep -Eq '^ +4\.0  stock charge and uncharge +refill_obj_stock 4\.0$' <<<"$out" || rc=1
	# Kernel B has refill_obj_stock where A has memset_erms: each profile
	# is read with its own map.
	printf '%s\n' 'ffffffff81000000 T memset_erms' 'ffffffff81000100 T refill_obj_stock' \
		'ffffffff81000200 T _etext' >"$d/B.map"
	printf '%s\n' "$d/B.map" >"$d/b.prof.map"
	out=$("$REPO_ROOT/scripts/profile-report.py" --kernels "$d/a.prof" "$d/b.prof") || rc=1
	printf '%s\n' "$out"
	grep -qx 'per marker call: A 15.0, B 11.0, B - A -4.0' <<<"$out" || rc=1
	grep -Eq '^ +\+2\.0 +6\.0 +8\.0  refill_obj_stock +2\.00 -> 0\.00 calls$' <<<"$out" || rc=1
	grep -Eq '^ +\+2\.0  stock charge and uncharge$' <<<"$out" || rc=1
	# A profile of the old format (no window size) is refused, not misread.
	sed -i '1s/ window 300$//' "$d/b.prof"
	cp "$d/a.prof.map" "$d/b.prof.map"
	if "$REPO_ROOT/scripts/profile-report.py" "$d/b.prof" 2>"$d/err"; then
		rc=1
	fi
	grep -q 'no window size' "$d/err" || rc=1
	rm -rf "$d"
	return "$rc"
}

# need_space on a path that does not exist yet looks at its nearest parent,
# passes when the room is there and otherwise dies naming what needed it,
# where, and what is free.
space_fixture() {
	local out rc=0
	(need_space /tmp/no/such/dir 0 "nothing") || rc=1
	if out=$(need_space /tmp/no/such/dir 1048576 "a test tree" 2>&1); then
		rc=1
	fi
	printf '%s\n' "$out"
	grep -q '^error: a test tree needs 1048576 GiB free on the file system of /tmp, which has [0-9]* MiB' <<<"$out" || rc=1
	return "$rc"
}

tap_results_parse() {
	local d rc=0
	d=$(mktemp -d)
	cat >"$d/console.log" <<-'EOF'
	HARNESS-BEGIN tap:a/one
	ok 1 good
	not ok 2 bad
	ok 3 later # SKIP no cpu1
	ok 4 # SKIP kselftest_style
	HARNESS-END tap:a/one
	HARNESS-EXIT a/one rc=1 secs=3 limit=600
	HARNESS-BEGIN tap:a/two
	ok 1 good
	HARNESS-END tap:a/two
	HARNESS-EXIT a/two rc=139 secs=1 limit=600
	HARNESS-BEGIN tap:a/three
	ok 1 good
	HARNESS-END tap:a/three
	HARNESS-EXIT a/three rc=137 secs=600 limit=600
	HARNESS-BEGIN tap:a/four
	HARNESS-END tap:a/four
	HARNESS-EXIT a/four rc=137 secs=12 limit=600
	EOF
	printf '%s\n' 'a/one:good pass' 'a/one:bad fail' 'a/one:later skip' \
		'a/one:kselftest_style skip' \
		'a/two:good pass' 'a/two:(exit) fail' 'a/three:good pass' \
		'a/three:(timeout) fail' 'a/four:(exit) fail' >"$d/want"
	"$REPO_ROOT/scripts/tap-results.sh" "$d/console.log" >"$d/got" || rc=1
	diff "$d/want" "$d/got" || rc=1
	rm -rf "$d"
	return $rc
}

# guest_why LOG PROGRAM:TEST: what the guest printed about a failed test, so
# that a failure is explained in this run's output: its result line and up
# to 8 comment lines before it since the previous result; for a program
# that crashed or timed out (TEST "(exit)" or "(timeout)"), the last 8
# lines it printed.
guest_why() {
	[ -f "$1" ] || return 0
	awk -v prog="${2%%:*}" -v t="${2#*:}" '
	function show(from) {
		for (k = (n > from ? n - from : 0); k < n; k++)
			print "  guest: " buf[k]
	}
	/^HARNESS-BEGIN tap:/ { inside = (substr($2, 5) == prog); n = 0; next }
	/^HARNESS-END tap:/ {
		if (inside && t ~ /^\(/)
			show(8)
		inside = 0
		next
	}
	!inside { next }
	t ~ /^\(/ { buf[n++] = $0; next }
	/^(not )?ok [0-9]+ / {
		i = ($1 == "not") ? 4 : 3
		if ($1 == "not" && ($i == t || ($i == "#" && $(i + 2) == t))) {
			show(8)
			print "  guest: " $0
		}
		n = 0
		next
	}
	/^#/ { buf[n++] = $0 }' "$1"
}

# no_splat LOG: the console log has no warning, BUG, lockdep or KASAN
# report and no kmemleak leak; else list the report lines and, last (a
# failed check shows its last 25 lines), the first report in short.
splat_re='WARNING:|BUG:|KASAN:|INFO: possible|inconsistent lock state|circular locking|unreferenced object|Kernel panic|Oops|general protection fault'
no_splat() {
	[ -s "$1" ] || { echo "no console log at $1"; return 1; }
	grep -qE "$splat_re" "$1" || { echo "no splat in $1"; return 0; }
	grep -nE "$splat_re" "$1" | head -n 20
	echo "first report, in short:"
	splat_summary "$1"
	return 1
}

# splat_summary LOG: the first report of LOG in at most 22 lines: its first
# lines, the top of its call trace, and the first frames of KASAN's
# "Allocated by", "Freed by" and "belongs to" sections.
splat_summary() {
	awk -v re="$splat_re" '
		!on && $0 ~ re { on = 1; left = 22 }
		!on { next }
		left <= 0 { exit }
		/Call Trace:|^(Allocated|Freed) by task|belongs to the|^Last potentially related/ { sec = 0; take = 10 }
		sec < 4 || take > 0 { print; left--; sec++; take-- }
	' "$1"
}

# splat_fixture: no_splat passes a clean log and fails a report (summing
# it up in its last lines, which a failed check shows) and a missing log.
splat_fixture() {
	local d rc=0
	d=$(mktemp -d)
	cat >"$d/early.log" <<-'EOF'
	Calibrating delay loop (skipped)
	==================================================================
	BUG: KASAN: slab-use-after-free in do_raw_spin_lock+0x109/0x240
	Write of size 4 at addr ff1100000017a0a8 by task swapper/0/0
	Call Trace:
	 <IRQ>
	 kasan_report+0xdc/0x110
	 handle_edge_irq+0x28/0x880
	 </IRQ>
	 <TASK>
	 asm_common_interrupt+0x22/0x40
	 </TASK>
	Allocated by task 0:
	 __kasan_kmalloc+0x8f/0xa0
	 alloc_desc+0x50/0x300
	Run /init as init process
	HARNESS-RESULT rc=0
	EOF
	printf 'Run /init as init process\nHARNESS-RESULT rc=0\n' >"$d/clean.log"
	no_splat "$d/clean.log" >/dev/null || { echo "no_splat fails a clean log"; rc=1; }
	! no_splat "$d/none.log" >/dev/null || { echo "no_splat passes a missing log"; rc=1; }
	! no_splat "$d/early.log" >"$d/out" || { echo "no_splat passes a KASAN report"; rc=1; }
	grep -q '^BUG: KASAN' "$d/out" || { echo "the summary lacks the report's first line"; rc=1; }
	tail -n 3 "$d/out" | grep -q 'alloc_desc' || { echo "the summary does not end with the allocation stack"; rc=1; }
	rm -rf "$d"
	return $rc
}

# guest_why_fixture: guest_why picks the comment lines before a failed
# test's result, in its own program only, and a crashed program's last lines.
guest_why_fixture() {
	local d rc=0
	d=$(mktemp -d)
	cat >"$d/console.log" <<-'EOF'
	HARNESS-BEGIN tap:a/one
	# about good
	ok 1 good
	# why bad fails
	not ok 2 bad # reason
	# after bad
	HARNESS-END tap:a/one
	HARNESS-BEGIN tap:a/two
	# not this one
	not ok 1 bad
	HARNESS-END tap:a/two
	HARNESS-BEGIN tap:a/three
	ok 1 good
	Segmentation fault
	HARNESS-END tap:a/three
	EOF
	printf '%s\n' '  guest: # why bad fails' '  guest: not ok 2 bad # reason' \
		'  guest: ok 1 good' '  guest: Segmentation fault' >"$d/want"
	{ guest_why "$d/console.log" a/one:bad && guest_why "$d/console.log" 'a/three:(exit)'; } >"$d/got" || rc=1
	diff "$d/want" "$d/got" || rc=1
	rm -rf "$d"
	return $rc
}

# abbrev_fixture: format_patches gives the same patch text whether the
# repository's objects are loose (a base just made by prepare-base.sh) or
# packed (the same base after git gc): a round trip on an empty cache and
# on a warm one must compare the same bytes. 20000 packed blobs are enough
# for git's automatic abbreviation to grow from 7 to 8 digits.
abbrev_fixture() {
	local d rc=0 i
	d=$(mktemp -d)
	git init -q "$d/r"
	printf 'one\n' >"$d/r/f"
	git -C "$d/r" add f
	git -C "$d/r" commit -q -m one
	printf 'two\n' >"$d/r/f"
	git -C "$d/r" commit -q -a -m two
	format_patches "$d/r" -q -o "$d/loose" -1
	for i in $(seq 1 20000); do
		printf 'blob\ndata %d\n%d\n' "${#i}" "$i"
	done | git -C "$d/r" fast-import --quiet
	format_patches "$d/r" -q -o "$d/packed" -1
	grep -E '^index [0-9a-f]{12}\.\.[0-9a-f]{12} ' "$d/loose"/*.patch || { echo "index line not abbreviated to 12 digits"; rc=1; }
	diff -r "$d/loose" "$d/packed" || rc=1
	rm -rf "$d"
	return $rc
}

if want style; then
	note "group style"
	for p in "${patches[@]}"; do
		check "style: checkpatch --strict ${p##*/}" checkpatch_clean "$p"
		check "style: format of ${p##*/}" patch_form "$p"
	done
	check "style: $BASE_SERIES names exactly the files in $BASE_PATCHDIR/" series_matches_dir
	check "style: config-fragments/distro-$BASE.config says what Debian's own config says" \
		"$REPO_ROOT/scripts/check-distro-config.sh"
fi
if want style && [ -n "${RUN_TESTS_COMMON:-}" ]; then
	# The harness's own checks, once for all bases.
	common_check=1
	check "style: the series index names the series of every base" series_index
	check "style: tap-results.sh tells pass, fail, skip, crash and timeout apart" tap_results_parse
	check "style: profile-report.py gives instructions per call of the window, not of all the hits" profile_report_fixture
	check "style: a regression report shows what the guest printed about the test" guest_why_fixture
	check "style: format-patch output does not depend on whether git packed the objects" abbrev_fixture
	check "style: a splat or a missing console log fails the debug check, which shows the report in short" splat_fixture
	check "style: a file system without the room a tree or build needs is reported before it is made" space_fixture
	check "style: shellcheck" shellcheck "$REPO_ROOT"/scripts/*.sh "$REPO_ROOT"/tests/guest/*.sh "$REPO_ROOT"/tests/guest/init "$REPO_ROOT"/.ci/run
	check "style: mq-bench.c builds with -Wall -Wextra, no warnings" c_warning_free "$REPO_ROOT/tests/mq-bench.c"
	check "style: slab-fill.c builds with -Wall -Wextra, no warnings" c_warning_free "$REPO_ROOT/tests/slab-fill.c"
	check "style: tests/workloads.conf names stressors and options this stress-ng accepts" workloads_known
	check "style: checkpatch --strict kmem_bench.c" bash -c "cd '$base_tree' && PATH=/usr/bin:\$PATH perl scripts/checkpatch.pl --strict --no-tree --terse -f '$REPO_ROOT/tests/kmem-bench/kmem_bench.c' | (! grep -E 'ERROR|WARNING|CHECK')"
	common_check=''
fi

# --- apply -----------------------------------------------------------------
quilt_applies() {
	local q
	q="$(work_dir)/trees/quilt"
	git -C "$(src_repo)" worktree remove --force "$q" 2>/dev/null || rm -rf "$q"
	add_worktree "$q" "$(base_ref)"
	(cd "$q" && QUILT_PATCHES="$REPO_ROOT/$BASE_PATCHDIR" QUILT_SERIES="$REPO_ROOT/$BASE_SERIES" quilt push -a -q --fuzz=0)
	rm -rf "$q/.pc"
	# Same tree as git am made.
	git -C "$q" add -f -A
	git -C "$q" diff --cached --stat "$(series_branch)"
	git -C "$q" diff --cached --quiet "$(series_branch)"
	local rc=$?
	git -C "$(src_repo)" worktree remove --force "$q"
	return $rc
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

format_patch_roundtrip() {
	local tmp rc=0 p b hunks=''
	tmp=$(mktemp -d)
	format_patches "$(src_repo)" -q -o "$tmp" "$(base_ref)..$(series_branch)"
	# On another package version than the series' (a newer 6.12.y than
	# the series was made on) the hunks apply at other line numbers: the
	# diffs must still be the same, their @@ line numbers need not.
	if [ -z "${KSRC:-}" ] && [ "$(base_ref)" != "$BASE_COMMIT" ]; then
		echo "note: the base here is not the series' base $BASE_COMMIT: hunk line numbers and blob ids not compared"
		hunks=1
	fi
	for p in "${patches[@]}"; do
		b=${p##*/}
		[ -f "$tmp/$b" ] || { echo "format-patch made no $b"; rc=1; continue; }
		diff <(patch_body "$p" "$hunks") <(patch_body "$tmp/$b" "$hunks") || rc=1
	done
	rm -rf "$tmp"
	return $rc
}

if want apply || want bisect || want boot || want debug || want send; then
	note "group apply"
	f0=$failed
	check "apply: git am of the series onto the base" "$REPO_ROOT/scripts/apply-series.sh"
	am_failed=$((failed - f0))
	if want apply; then
		check "apply: quilt push -a gives the same tree" quilt_applies
		check "apply: git format-patch of the applied branch gives the same diffs" format_patch_roundtrip
		if [ -n "${BASE_SUITE:-}" ]; then
			check "apply: git am onto Debian's upstream tarball (linux_*.orig.tar.xz) of the base release" orig_applies
		elif [ -n "${BASE_ORIG_SUITES:-}" ]; then
			check "apply: git am onto the newest upstream tarball of the base's stable line in Debian's source archive" orig_applies
		fi
		# On a series that did not apply the branch is stale: no verdict.
		if [ -z "${BASE_FLOOR:-}" ]; then
			:
		elif [ "$am_failed" -eq 0 ]; then
			check "apply: the floor experiment applies to the applied series" "$REPO_ROOT/scripts/make-floor-tree.sh"
		else
			note "floor experiment not checked: the series did not apply"
		fi
	fi
fi

# --- bisect ----------------------------------------------------------------
# What to compile after each patch: the directories of the .c files it
# touches (Kbuild then compiles what the config enables there) and mm/,
# where everything that includes mm/slab.h and the memcg hooks lives.
bisect_targets() {
	local commit=$1 f
	{
		echo mm/
		echo kernel/fork.o
		for f in $(git -C "$(src_repo)" diff-tree --no-commit-id --name-only -r "$commit" -- '*.c' | grep -v '^tools/'); do
			echo "${f%/*}/"
		done
	} | sort -u
}

bisect_build() {
	local set=$1 commit=$2 tree out targets
	tree=$(tree_dir bisect)
	out=$(build_dir bisect "$set")
	git -C "$tree" checkout -q -f --detach "$commit"
	mapfile -t targets < <(bisect_targets "$commit")
	make -s -C "$tree" O="$out" ARCH=x86_64 -j"$(nproc)" "${targets[@]}"
}

if want bisect; then
	note "group bisect"
	nr=${#patches[@]}
	bisect_sets=(nomemcg test)
	[ -z "${BASE_HAS_SLAB:-}" ] || bisect_sets+=(slab)
	for set in "${bisect_sets[@]}"; do
		# Configure once per config set (an O= dir of the scratch tree).
		check "bisect: configure $set" "$REPO_ROOT/scripts/build-kernel.sh" bisect "$set" prepare
	done
	for i in $(seq 1 "$nr"); do
		commit=$(git -C "$(src_repo)" rev-parse "$(series_branch)~$((nr - i))")
		for set in "${bisect_sets[@]}"; do
			check "bisect: patch $i/$nr: mm/ and touched directories build ($set)" bisect_build "$set" "$commit"
		done
	done
	git -C "$(tree_dir bisect)" checkout -q -f --detach "$(series_branch)"
fi

# --- boot ------------------------------------------------------------------
boot_modes=(default noslab nokmem)
[ -z "$full" ] || boot_modes=(default noslab nomemobj nokmem)
selftests=cgroup/test_kmem,cgroup/test_memcontrol,cgroup/test_core,cgroup/test_kmem_slab,mqueue/mq_open_tests,harness/stock,harness/detect

known_reason() {
	awk -v m="$1" -v t="$2" '!/^#/ && NF >= 3 && ($1 == m || $1 == "*") && $2 == t {
		$1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$REPO_ROOT/$BASE_KNOWN_FAILURES"
}

# compare_results MODE BASE-RESULTS PATCHED-RESULTS TEST
compare_one() {
	local mode=$1 b=$2 p=$3 t=$4 bs ps reason
	bs=$(awk -v t="$t" '$1 == t { print $2 }' "$b")
	ps=$(awk -v t="$t" '$1 == t { print $2 }' "$p")
	echo "base: ${bs:-missing}, patched: ${ps:-missing}"
	case "$ps" in
	pass | skip) return 0 ;;
	flaky) echo "failed once, passed when run again: flaky, not a regression"; return 0 ;;
	esac
	# A "*" entry is a base failure that does not depend on the mode (and
	# may come and go between runs): the base failing it in any mode of
	# this run is enough.
	if [ "$bs" != fail ] && [ -n "$(known_reason '*' "$t")" ] &&
		grep -Fqx "$t fail" "$logdir"/results-base-*.txt; then
		bs=fail
	fi
	if [ "$bs" = fail ]; then
		reason=$(known_reason "$mode" "$t")
		[ -n "$reason" ] || { echo "fails on the base too, but $BASE_KNOWN_FAILURES gives no reason"; return 1; }
		echo "known base failure: $reason"
		return 0
	fi
	echo "REGRESSION: passes on the base, fails patched"
	guest_why "$logdir/boot-patched-$mode.log" "$t"
	guest_why "$logdir/boot-patched-$mode-again.log" "$t"
	return 1
}

# base_fails TEST RESULTS: TEST failed on the base kernel; a skip there (a
# test that needs more CPUs than --cpus gave, e.g.) skips the check.
base_fails() {
	grep -qx "$1 fail" "$2" && return 0
	if grep -qx "$1 skip" "$2"; then
		echo "$1 was skipped on the base kernel with these guests ($cpus vCPUs): it cannot show that it fails there"
		return 77
	fi
	echo "$1 did not fail on the base kernel"
	return 1
}

# slot_pages KERNEL: how many pages a slot of the objcg stock keeps for an
# objcg: two with the series (each base's series has the two-page slot),
# one on the base kernel (harness/stock's stock_dead bound).
slot_pages() {
	if [ "$1" = base ]; then echo 1; else echo 2; fi
}

# boot_runs LOG ARGS...: the guest booted and its job ran to the end (the
# job's own result, e.g. failed selftests, is judged afterwards).
boot_runs() {
	local log=$1
	shift
	"$REPO_ROOT/scripts/boot-guest.sh" --log "$log" "$@" || true
	grep -q '^HARNESS-RESULT rc=' "$log"
}

# noslab_line LOG yes|no: the boot log says slab accounting is off, or not.
noslab_line() {
	if grep -q 'slab objects are not charged to memory cgroups' "$1"; then
		[ "$2" = yes ]
	else
		[ "$2" = no ]
	fi
}

# boot_option NAME CMDLINE yes|no [WARNING]: the patched kernel booted with
# CMDLINE says that slab objects are not charged (yes) or not (no), and
# prints WARNING if given. (A parameter with a dot in its name that no
# handler takes is dropped silently, never passed on to init: before the
# kernel knew cgroup.nomemobj=<value>, such a value was simply ignored.)
boot_option() {
	local log="$logdir/boot-option-$1.log"
	boot_runs "$log" --timeout 600 --append "$2" --args true patched test root run || return 1
	grep -E 'slab objects are not charged|cgroup\.nomemobj' "$log" | grep -v 'command line' || true
	noslab_line "$log" "$3" || { echo "noslab line: expected $3"; return 1; }
	if [ -n "${4:-}" ] && ! grep -qF "$4" "$log"; then
		echo "no warning: $4"
		return 1
	fi
}

if want boot; then
	cpus=${cpus:-${BASE_TEST_CPUS:-2}}
	note "group boot (guests with $cpus vCPUs)"
	for k in base patched; do
		check "boot: build $k kernel (test config)" "$REPO_ROOT/scripts/build-kernel.sh" "$k" test bzImage modules
	done
	check "boot: build the initramfs" "$REPO_ROOT/scripts/build-initramfs.sh"
	for m in "${boot_modes[@]}"; do
		for k in base patched; do
			log="$logdir/boot-$k-$m.log"
			check "boot: $k kernel boots in mode $m and runs the selftests ($cpus vCPUs)" \
				boot_runs "$log" --smp "$cpus" --timeout 1500 --args "$selftests" \
				--append "harness.slot_pages=$(slot_pages "$k")" "$k" test "$m" selftests
			# A non-zero job result only means some test failed:
			# the comparison below decides.
			"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-$k-$m.txt" 2>/dev/null || true
		done
	done
	# A test that fails patched but passed on the base gets one more run
	# (timing-dependent tests flake under emulation); only a test that
	# fails both times counts as a regression.
	for m in "${boot_modes[@]}"; do
		res="$logdir/results-patched-$m.txt"
		again=$(awk 'NR == FNR { b[$1] = $2; next }
			$2 == "fail" && b[$1] != "fail" { sub(/:.*/, "", $1); print $1 }' \
			"$logdir/results-base-$m.txt" "$res" | sort -u | paste -sd, -)
		[ -n "$again" ] || continue
		log="$logdir/boot-patched-$m-again.log"
		check "boot: patched kernel in mode $m runs $again again (failures the base does not have)" \
			boot_runs "$log" --smp "$cpus" --timeout 1500 --args "$again" patched test "$m" selftests
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-patched-$m-again.txt" 2>/dev/null || true
		awk 'NR == FNR { a[$1] = $2; next }
			$2 == "fail" && a[$1] == "pass" { $2 = "flaky" } { print }' \
			"$logdir/results-patched-$m-again.txt" "$res" >"$res.tmp"
		mv "$res.tmp" "$res"
	done
	for m in "${boot_modes[@]}"; do
		# Every test either kernel reported: one that ran on the base but
		# never on the patched kernel (it crashed first) counts too.
		mapfile -t tests < <(cut -d' ' -f1 "$logdir/results-base-$m.txt" "$logdir/results-patched-$m.txt" | sort -u)
		for t in "${tests[@]}"; do
			check "boot: [$m] $t" compare_one "$m" "$logdir/results-base-$m.txt" "$logdir/results-patched-$m.txt" "$t"
			if grep -q '^known base failure\|^failed once' "$last_log"; then
				note "  $(grep '^known base failure\|^failed once' "$last_log")"
			fi
		done
		expect=no
		case "$m" in noslab | nomemobj) expect=yes ;; esac
		check "boot: [$m] boot log says slab objects are not charged: $expect" \
			noslab_line "$logdir/boot-patched-$m.log" "$expect"
	done
	# What the kernel makes of cgroup.nomemobj=<value> and of noslab with
	# the memory controller off (cgroup_disable=memory).
	if [ -n "$full" ]; then
		check "boot: cgroup.nomemobj=1 turns slab accounting off" \
			boot_option nomemobj1 cgroup.nomemobj=1 yes
		check "boot: cgroup.nomemobj=0 is accepted, another value reported" \
			boot_option nomemobj0 "cgroup.nomemobj=0 cgroup.nomemobj=maybe" no \
			'cgroup.nomemobj: invalid value "maybe" ignored'
		check "boot: no noslab line with cgroup_disable=memory" \
			boot_option memcgoff "cgroup_disable=memory cgroup.memory=noslab" no
	fi
	# Third-party workloads run in the guest (a smoke run on the newest
	# base: two stressors, a tenth of their bogo ops; --full: every base;
	# scripts/run-bench.sh --workloads measures).
	if [ -n "$full" ] || [ "$BASE" = "$(list_bases | tail -n 1)" ]; then
		check "boot: patched kernel runs the stress-ng workloads mq and open (mode default)" \
			"$REPO_ROOT/scripts/boot-guest.sh" --log "$logdir/boot-patched-workloads.log" --timeout 900 \
			--append "harness.workloads=mq,open harness.wdiv=10" patched test default workloads
	fi
	# Tests that must be able to fail: the base fails them (BASE_MUST_FAIL:
	# mode:program:test, what the series fixes or adds there).
	for mf in ${BASE_MUST_FAIL:-}; do
		m=${mf%%:*} t=${mf#*:}
		check "boot: $t catches the base (fails there in mode $m)" \
			base_fails "$t" "$logdir/results-base-$m.txt"
	done
fi

# --- debug -----------------------------------------------------------------
# results_ok MODE RESULTS: every failure in RESULTS is a known base failure.
results_ok() {
	local t st bad=0
	[ -s "$2" ] || { echo "no results in $2 (the boot gave none)"; return 1; }
	while read -r t st; do
		[ "$st" = fail ] || continue
		if [ -n "$(known_reason "$1" "$t")" ]; then
			echo "$t: known base failure"
		else
			echo "$t: FAILED"
			bad=1
		fi
	done <"$2"
	return $bad
}

if want debug; then
	note "group debug"
	# The debug kernel (lockdep, kmemleak, DEBUG_VM) has no KASAN, whose
	# quarantine would keep every free from the objects kept charged;
	# --full adds the kasan kernel (the same plus generic KASAN).
	debug_sets=(debug)
	[ -z "$full" ] || debug_sets+=(kasan)
	for ds in "${debug_sets[@]}"; do
		check "debug: build the patched kernel, config set $ds ($(configset_fragments "$ds" | sed 's/.* selftests //'))" \
			"$REPO_ROOT/scripts/build-kernel.sh" patched "$ds" bzImage modules
		# kmem_bench.ko for the stock tests' failed bulk allocation.
		check "debug: build kmem_bench.ko for the $ds kernel" \
			"$REPO_ROOT/scripts/build-kmem-bench.sh" patched "$ds"
	done
	check "debug: build the initramfs" "$REPO_ROOT/scripts/build-initramfs.sh"
	# The stock tests (1000 cgroups alone take ~10 min on this kernel
	# under TCG) run in mode default, where the objcg stock is at work;
	# the boot group runs them in every mode on the test kernel.
	debug_runs=(debug:default)
	[ -z "$full" ] || debug_runs+=(debug:noslab kasan:default)
	for run in "${debug_runs[@]}"; do
		ds=${run%%:*} m=${run#*:}
		log="$logdir/$ds-$m.log"
		args=cgroup/test_kmem,cgroup/test_kmem_slab
		[ "$m" = default ] && args+=,harness/stock
		# The default tier leaves out the stock tests' 1000 cgroups
		# (about 10 min on this kernel under TCG).
		# churn_stats left 40960 bytes charged to its parent without a
		# memory.stat entry once in four runs of the KASAN-less debug
		# kernel (2026-12-06, not traced; the boot group runs it on every
		# kernel and mode): --full only here until it is understood.
		stock=slab_limit,stock_hotplug,stock_slots,stock_dead,stock_large,bulk_error,drain_scope,hotplug_load
		[ -z "$full" ] || stock+=,churn_stats,cgroups_1000
		# no5lvl: 7.2's identify_cpu() clears the boot CPU's
		# capabilities, X86_FEATURE_LA57 included, with interrupts on,
		# until CPUID is read again. Before alternatives are patched
		# pgtable_l5_enabled() tests that bit, so an interrupt in that
		# window sees KASAN_SHADOW_START of 4-level paging, and its
		# first access to the 5-level direct map (0xff11...) is a
		# "wild-memory-access" (CI, 2026-12-01; 1 boot in 42 here with
		# the host loaded). That is not what this group tests: 4-level
		# paging has no such window.
		check "debug: [$ds $m] $ds kernel boots, runs ${args//,/, } and cgroup churn" \
			boot_runs "$log" --timeout 3600 --mem 1024 \
			--append "no5lvl harness.churn=30 harness.timeout=1800 harness.stock=$stock" \
			--args "$args" patched "$ds" "$m" debug
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-$ds-$m.txt" 2>/dev/null || true
		check "debug: [$ds $m] selftests and churn pass (or fail as on the base)" \
			results_ok "$m" "$logdir/results-$ds-$m.txt"
		check "debug: [$ds $m] no WARNING, BUG, lockdep, KASAN or kmemleak report" no_splat "$log"
	done
	if [ -n "$full" ] && [ -n "${BASE_FAULTINJ_MUST_FAIL:-}" ]; then
		# The bulk_error test must be able to fail: the base keeps the
		# charge of the objects a failed bulk allocation never got.
		check "debug: build the base kernel with fault injection" \
			"$REPO_ROOT/scripts/build-kernel.sh" base faultinj bzImage modules
		check "debug: build kmem_bench.ko for it" "$REPO_ROOT/scripts/build-kmem-bench.sh" base faultinj
		log="$logdir/faultinj-base.log"
		check "debug: base kernel with fault injection runs harness/stock bulk_error" \
			boot_runs "$log" --timeout 900 --append harness.stock=bulk_error \
			--args harness/stock base faultinj default selftests
		"$REPO_ROOT/scripts/tap-results.sh" "$log" >"$logdir/results-faultinj-base.txt" 2>/dev/null || true
		check "debug: harness/stock bulk_error catches the charge a failed bulk allocation leaks (base fails it)" \
			grep -qx 'harness/stock:bulk_error fail' "$logdir/results-faultinj-base.txt"
	fi
fi

# --- send ------------------------------------------------------------------
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

if want send; then
	note "group send"
	# To/Cc come from the newest base's MAINTAINERS (newest_maintainers):
	# a run of an older base alone on an empty cache makes that tree first,
	# as it made its own base's above (a step, not a check: the count of
	# checks must not depend on what the cache holds).
	newest=$(list_bases | tail -n 1)
	[ -f "$CACHE_DIR/$newest/debian/linux/MAINTAINERS" ] ||
		BASE=$newest "$REPO_ROOT/scripts/prepare-base.sh"
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
fi

counts

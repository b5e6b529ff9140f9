# shellcheck shell=bash
# The harness's own checks, in the style group, once for all bases: the
# series index, shellcheck, -Wall -Wextra builds of the test programs,
# stress-ng's view of tests/workloads.conf, and fixtures that feed made-up
# input to the harness's parsers (scripts/console.awk through
# tap-results.sh and scripts/lib/console.sh, profile-report.py,
# need_space, format_patches, bisect_build's warnings, debug.sh's
# no_splat).
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/console.sh
. "$REPO_ROOT/scripts/lib/console.sh"

# series_index: the top-level series file lists exactly the series files
# of every base (a base with a stack: the series file of each series of
# its stack; else BASE_SERIES of bases/<base>.conf), in comments (it names
# no patch itself).
series_index() {
	local listed wanted b
	listed=$(grep -oE 'patches/[^ ]+/series' "$REPO_ROOT/series" | sort)
	wanted=$(for b in $(list_bases); do
		# The settings of base $b alone (the loaded base's unset).
		# shellcheck disable=SC2034 # BASE: read by read_base, stack_series
		(unset "${!BASE_@}" && BASE=$b && read_base &&
			for s in $(stack_series); do f=$(series_file "$s") && echo "${f#"$REPO_ROOT"/}"; done)
	done | sort)
	diff <(printf '%s\n' "$listed") <(printf '%s\n' "$wanted") || return 1
	! grep -vE '^(#|$)' "$REPO_ROOT/series" || { echo "the index names patches"; return 1; }
}

# workloads_known: stress-ng parses every stress-ng line of
# tests/workloads.conf (--dry-run: parse, do not run), hackbench runs every
# hackbench line's arguments once, briefly (one group, one loop), and no
# pgbench line sets its own transaction count or time.
workloads_known() {
	local name ops args
	need_cmd stress-ng stress-ng
	need_cmd hackbench rt-tests
	need_cmd cyclictest rt-tests
	# shellcheck disable=SC2086 # $args is a list of options
	while read -r name ops args; do
		case "$name" in '' | '#'*) continue ;; esac
		[[ $ops =~ ^[1-9][0-9]*$ ]] || { echo "$name: bad op count '$ops'"; return 1; }
		if [[ $args == pgbench* ]]; then
			# Runs only against the guest's server; the runner adds -n,
			# the seed and -t, so the line must not have them.
			[[ " $args " != *" -t "* && " $args " != *" -T "* ]] ||
				{ echo "$name: the transactions come from the op count, not -t/-T"; return 1; }
			continue
		fi
		if [[ $args == cyclictest* ]]; then
			# cyclictest idle|load|same [its options], run here briefly.
			set -- $args
			[[ ${2:-} =~ ^(idle|load|same)$ ]] ||
				{ echo "$name: cyclictest wants idle, load or same, got '${2:-}'"; return 1; }
			shift 2
			(cd /tmp && timeout 60 cyclictest "$@" -l 10 -q -N) 2>&1 | grep -q '^T: *0 .* Max:' ||
				{ echo "cyclictest rejects: $* -l 10 -q -N"; return 1; }
			continue
		fi
		if [[ $args == hackbench* ]]; then
			(cd /tmp && timeout 60 ${args} -g 1 -l 1) 2>&1 | grep -q '^Time:' ||
				{ echo "hackbench rejects: ${args#hackbench } -g 1 -l 1"; return 1; }
			continue
		fi
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

# console_why_fixture: console_why picks the comment lines before a failed
# test's result, in its own program only, and a crashed program's last lines.
console_why_fixture() {
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
	{ console_why "$d/console.log" a/one:bad && console_why "$d/console.log" 'a/three:(exit)'; } >"$d/got" || rc=1
	diff "$d/want" "$d/got" || rc=1
	rm -rf "$d"
	return $rc
}

# console_contract: the one parser of console logs (scripts/console.awk)
# answers the job's result (the last HARNESS-RESULT), a block printed with
# emit_file and the CPUs online; boot-guest.sh's key check refuses a key
# tests/contract.conf does not have; and every $H_KEY the guest's scripts
# read is a key of the contract, each key read by some script.
console_contract() {
	local d rc=0 k used keys
	d=$(mktemp -d)
	cat >"$d/console.log" <<-'EOF'
	HARNESS-START job=bench kernel=7.2.13 cmdline=x
	HARNESS: 2 CPUs online
	HARNESS-BEGIN bench.json
	{"a": 1}
	HARNESS-BEGIN inner
	HARNESS-END bench.json
	HARNESS-BEGIN bench_json
	no
	HARNESS-END bench_json
	HARNESS-RESULT rc=3
	HARNESS-RESULT rc=0 (after a retry)
	EOF
	[ "$(console_result "$d/console.log")" = 0 ] || { echo "result: not 0"; rc=1; }
	[ "$(console_cpus "$d/console.log")" = 2 ] || { echo "cpus: not 2"; rc=1; }
	[ "$(console_block bench.json "$d/console.log")" = "$(printf '{"a": 1}\nHARNESS-BEGIN inner')" ] ||
		{ echo "block bench.json: wrong lines"; rc=1; }
	[ -z "$(console_result /dev/null)" ] || { echo "result of an empty log"; rc=1; }
	(check_harness_keys "a harness.count=1 harness.args=x") || { echo "known keys refused"; rc=1; }
	if (check_harness_keys "harness.cout=1") 2>"$d/err"; then
		echo "harness.cout accepted"
		rc=1
	fi
	grep -q 'unknown guest key harness.cout' "$d/err" || { cat "$d/err"; rc=1; }
	used=$(cat "$REPO_ROOT"/tests/guest/*.sh | grep -o 'H_[a-z_]*' | sed 's/^H_//' | sort -u)
	keys=$(contract_keys | sort)
	for k in $used; do
		grep -qx "$k" <<<"$keys" || { echo "\$H_$k is read, but no key of tests/contract.conf"; rc=1; }
	done
	for k in $keys; do
		[ "$k" = job ] || [ "$k" = salt ] || grep -qx "$k" <<<"$used" ||
			{ echo "key $k of tests/contract.conf: no guest script reads \$H_$k"; rc=1; }
	done
	rm -rf "$d"
	return $rc
}

# splat_fixture: no_splat (tests/checks/debug.sh) passes a clean log and
# fails a report (summing it up in its last lines, which a failed check
# shows) and a missing log.
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

group_harness() {
	# The harness's own checks, once for all bases.
	common_check=1
	check "style: the series index names the series of every base" series_index
	check "style: tap-results.sh tells pass, fail, skip, crash and timeout apart" tap_results_parse
	check "style: profile-report.py gives instructions per call of the window, not of all the hits" profile_report_fixture
	check "style: a regression report shows what the guest printed about the test" console_why_fixture
	check "style: the console parser and tests/contract.conf agree with the guest's scripts" console_contract
	check "style: README.md's copies of the tables are the tables (scripts/table-md.py --check)" \
		python3 "$REPO_ROOT/scripts/table-md.py" --check "$REPO_ROOT/README.md"
	check "style: every stock test of the registry has its function (stock-tests.sh --list)" \
		sh "$REPO_ROOT/tests/guest/stock-tests.sh" --list
	check "style: format-patch output does not depend on whether git packed the objects" abbrev_fixture
	check "style: a splat or a missing console log fails the debug check, which shows the report in short" splat_fixture
	check "style: a file system without the room a tree or build needs is reported before it is made" space_fixture
	check "style: the bisect group fails a patch on a compiler warning new in a file it touches, not on the base's own" bisect_warnings_fixture
	check "style: shellcheck" shellcheck "$REPO_ROOT"/scripts/*.sh "$REPO_ROOT"/scripts/lib/*.sh "$REPO_ROOT"/tests/checks/*.sh "$REPO_ROOT"/tests/guest/*.sh "$REPO_ROOT"/tests/guest/init "$REPO_ROOT"/.ci/run
	check "style: mq-bench.c builds with -Wall -Wextra, no warnings" c_warning_free "$REPO_ROOT/tests/mq-bench.c"
	check "style: slab-fill.c builds with -Wall -Wextra, no warnings" c_warning_free "$REPO_ROOT/tests/slab-fill.c"
	check "style: lock-bench.c builds with -Wall -Wextra, no warnings" c_warning_free "$REPO_ROOT/tests/lock-bench.c"
	check "style: tests/workloads.conf names stressors and options this stress-ng accepts, and hackbench and cyclictest run their lines" workloads_known
	check "style: checkpatch --strict kmem_bench.c" bash -c "cd '$base_tree' && PATH=/usr/bin:\$PATH perl scripts/checkpatch.pl --strict --no-tree --terse -f '$REPO_ROOT/tests/kmem-bench/kmem_bench.c' | (! grep -E 'ERROR|WARNING|CHECK')"
	# shellcheck disable=SC2034 # read by check() in tests/checks/lib.sh
	common_check=''
}

# bisect_warnings_fixture: the bisect group's verdict on recorded compiler
# output, without a kernel (bisect_make, bisect_targets and bisect_touched
# replaced by stand-ins that play back made-up logs of a base and of two
# patches to mm/slub.c): the base's own warning, moved by the patches,
# fails neither (and only the first patch compiles its parent to find it
# there); a patch that adds an unused variable fails, naming the patch, the
# config and the warning; the same patch without it passes, a new warning
# in a file it does not touch with it.
bisect_warnings_fixture() {
	local d rc=0 out k=/k/trees/apply
	d=$(mktemp -d)
	# The base's warning, at line 100 in the base, 104 after patch 1.
	base() { printf '%s\n' "$k/mm/slub.c: In function 'slab_free':" \
		"$k/mm/slub.c:$1:13: warning: variable 'cnt' set but not used [-Wunused-but-set-variable]" \
		"  $1 |         int cnt;" "      |             ^~~"; }
	base 100 >"$d/p1^.log"
	base 104 >"$d/p1.log"
	cp "$d/p1.log" "$d/p2^.log"
	cp "$d/p1.log" "$d/p2clean^.log"
	{ base 104; echo "$k/mm/util.c:60:5: warning: no previous prototype for 'g' [-Wmissing-prototypes]"; } >"$d/p2clean.log"
	{ cat "$d/p2clean.log"; echo "$k/mm/slub.c: In function 'slab_alloc':"
		echo "$k/mm/slub.c:230:28: warning: unused variable 'objcg' [-Wunused-variable]"; } >"$d/p2.log"
	# shellcheck disable=SC2317 # the stand-ins, called by bisect_build
	out=$(
		tree_dir() { echo "$k"; }
		bisect_targets() { echo mm/; }
		bisect_touched() { echo mm/slub.c; }
		bisect_make() { echo "$2" >>"$d/made"; tee "$3" <"$d/$2.log"; }
		for p2 in p2 p2clean; do
			logdir=$d/$p2 && mkdir "$logdir" && : >"$d/made"
			bisect_build test p1 "1/2 (s/0001-a.patch)" || echo "FAIL p1"
			echo "made $(paste -sd' ' "$d/made")" && : >"$d/made"
			bisect_build test "$p2" "2/2 (s/0002-b.patch)" || echo "FAIL $p2"
			echo "made $(paste -sd' ' "$d/made")"
		done
	)
	printf '%s\n' "$out"
	for want in 'made p1 p1^' 'made p2 p2^' 'FAIL p2' 'made p2clean' \
		'error: patch 2/2 (s/0002-b.patch) adds compiler warnings (config test) in the files it touches:' \
		"  mm/slub.c: warning: unused variable 'objcg' [-Wunused-variable]" \
		"  mm/slub.c: In function 'slab_alloc':" "  mm/slub.c:230:28: warning: unused variable 'objcg' [-Wunused-variable]"; do
		grep -qxF -- "$want" <<<"$out" || { echo "missing: $want"; rc=1; }
	done
	[ "$(grep -c '^FAIL' <<<"$out")" = 1 ] || { echo "want p2 alone to fail, got: $(grep '^FAIL' <<<"$out" | paste -sd, -)"; rc=1; }
	rm -rf "$d"
	return $rc
}

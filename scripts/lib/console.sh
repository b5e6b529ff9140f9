# shellcheck shell=bash
# The host side of the host-guest contract (tests/contract.conf): what the
# harness puts on the guest's command line and what it reads back from the
# console log. Every question about a console log goes to the one parser,
# scripts/console.awk. Sourced (scripts/lib.sh sets REPO_ROOT and die).

# console_ask QUESTION NAME LOG: scripts/console.awk's answer (q=, name=)
# about LOG ("-": standard input, line by line as it comes: mawk, Debian's
# awk, reads a pipe in blocks unless told -W interactive).
console_ask() {
	local awk=(awk)
	[ -n "$3" ] || die "console_ask $1: no console log given"
	if [ "$3" = - ] && awk -W version 2>&1 | grep -q '^mawk'; then
		awk+=(-W interactive)
	fi
	"${awk[@]}" -v q="$1" -v name="$2" -f "$REPO_ROOT/scripts/console.awk" "$3"
}

# console_result LOG: the job's exit code, or nothing (no HARNESS-RESULT).
console_result() { console_ask result '' "$1"; }

# console_block NAME LOG: the block the guest printed with emit_file NAME.
console_block() { console_ask block "$1" "$2"; }

# console_tap LOG: "program:test status" for every test and crash.
console_tap() { console_ask tap '' "$1"; }

# console_why LOG PROGRAM:TEST: what the guest printed about a failed test.
console_why() {
	[ -f "$1" ] || return 0
	console_ask why "$2" "$1"
}

# console_cpus LOG: the CPUs the guest brought up ("HARNESS: N CPUs online").
console_cpus() { console_ask cpus '' "$1"; }

# console_progress: standard input's markers and TAP result lines, as they
# come (what boot-guest.sh shows while the guest runs).
console_progress() { console_ask progress '' -; }

# contract_keys: the harness.* keys of the contract, one a line.
contract_keys() {
	awk '$1 == "key" { print $2 }' "$REPO_ROOT/tests/contract.conf"
}

# check_harness_keys CMDLINE: die naming the key and the known ones unless
# every harness.KEY=VALUE of CMDLINE is a key of the contract.
check_harness_keys() {
	local arg key keys
	keys=" $(contract_keys | paste -sd' ' -) "
	for arg in $1; do
		case "$arg" in
		harness.*)
			key=${arg#harness.}
			key=${key%%=*}
			[[ $keys == *" $key "* ]] ||
				die "unknown guest key harness.$key (tests/contract.conf:${keys% })"
			;;
		esac
	done
}
